"""The collision pulse (``python -m simon_fmu pulse``, simon_fmu/tools/pulse.py) against closed
forms: the SAE J211-1 CFC filters' gain and phase, the event data recorder's table (49 CFR 563)
of a half-sine pulse, the kinematics of a vehicle-fixed point, the principal direction of
force, and the sedan's barrier impact through the built FMU (docs/equations.md, "The collision
pulse")."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import brentq

from simon_fmu.studies.tables import read_csv, write_csv
from simon_fmu.tools.pulse import (PulseError, cfc_filter, collision_pulse, pdof,
                                   point_acceleration)
import engine
from support.barrier import separation_factor
from support.run import run
from support.sedan import M

CAR = json.loads(engine.load_event().to_json())["units"][0]
WIDTH = CAR["dimensions"]["width"]
V_IN = 10.0

KMH = 3.6


def gain(f, fs, cfc):
    """The closed-form gain of the forward-backward two-pole Butterworth of SAE J211-1 at f:
    the bilinear transform maps f to tan(pi f / fs), the corner to tan(pi 2.0775 CFC / fs)."""
    return 1.0 / (1.0 + (math.tan(math.pi * f / fs) / math.tan(math.pi * 2.0775 * cfc / fs)) ** 4)


@pytest.mark.parametrize("cfc,freqs", [(60, (10.0, 60.0, 100.0, 150.0, 250.0)),
                                       (180, (30.0, 180.0, 300.0, 450.0))])
def test_cfc_gain_is_the_closed_forms_and_without_phase(cfc, freqs):
    fs = 10000.0
    t = np.arange(0.0, 1.0, 1.0 / fs)
    mid = slice(len(t) // 4, 3 * len(t) // 4)
    for f in freqs:
        x = np.sin(2.0 * math.pi * f * t)
        y = cfc_filter(x, 1.0 / fs, cfc)
        # amplitude and phase by projection on sin and cos over whole periods of the middle
        s, c = np.sin(2.0 * math.pi * f * t[mid]), np.cos(2.0 * math.pi * f * t[mid])
        a = 2.0 * np.mean(y[mid] * s)
        b = 2.0 * np.mean(y[mid] * c)
        print(f"CFC {cfc} at {f:g} Hz: gain {math.hypot(a, b):.6f}, closed form "
              f"{gain(f, fs, cfc):.6f}, phase {math.atan2(b, a):+.2e} rad")
        assert math.hypot(a, b) == pytest.approx(gain(f, fs, cfc), rel=1e-4, abs=1e-6)
        assert abs(b) < 1e-9 * abs(a)          # no phase shift (measured below 3e-15 rad)
    # SAE J211-1: -3 dB at F_H = 1.667 CFC (the closed form's root of gain = 1/sqrt(2))
    f3 = brentq(lambda f: gain(f, fs, cfc) - 1.0 / math.sqrt(2.0), cfc, 3.0 * cfc)
    assert f3 == pytest.approx(5.0 / 3.0 * cfc, rel=0.01)
    assert 20.0 * math.log10(gain(cfc, fs, cfc)) > -0.5        # flat to the class frequency


A, T, TS, DT = 300.0, 0.08, 0.05, 1e-4       # a half-sine deceleration of 300 m/s2 for 80 ms


def half_sine():
    t = np.arange(0.0, 0.4, DT)
    a = np.where((t >= TS) & (t <= TS + T), -A * np.sin(math.pi * (t - TS) / T), 0.0)
    z = np.zeros_like(t)
    contact = ((t >= TS) & (t <= TS + T)).astype(float)
    return {"time": t, "car.ax": a, "car.ay": z, "car.az": z, "car.p": z, "car.q": z,
            "car.r": z, "car.collision.contact": contact, "car.collision.Fx": M * a,
            "car.collision.Fy": z}


def dv(tau):
    """The closed-form delta-V (m/s) of the half-sine at time tau (s from the start of time)."""
    x = min(max(tau - TS, 0.0), T)
    return -(A * T / math.pi) * (1.0 - math.cos(math.pi * x / T))


def test_recorder_table_of_a_half_sine_pulse():
    data = half_sine()
    out = collision_pulse(data, "car")
    s = out["summary"]
    limit = 0.8 / KMH
    # time zero: the first 20 ms window over which the delta-V exceeds 0.8 km/h starts here
    start = brentq(lambda t0: abs(dv(t0 + 0.02) - dv(t0)) - limit, TS - 0.02, TS)
    t = data["time"]
    assert s["time_zero_s"] == pytest.approx(t[np.flatnonzero(t > start)[0]], abs=1e-12)
    t0 = s["time_zero_s"]
    edr = out["edr"]
    times = edr["time"][1] / 1000.0
    assert times[0] == 0.0 and np.allclose(np.diff(times), 0.010)
    # the end of the event: the delta-V over the next 20 ms falls to 0.8 km/h
    end = brentq(lambda x: abs(dv(x + 0.02) - dv(x)) - limit, TS + T / 2, TS + T)
    assert s["end_of_event_s"] == pytest.approx(end, abs=2 * DT)
    assert times[-1] == pytest.approx(min(0.25, math.floor((end - t0 + 0.03) / 0.01) * 0.01),
                                      abs=1e-9)
    exact = np.array([dv(t0 + x) * KMH for x in times])
    assert np.max(np.abs(edr["deltaV_longitudinal"][1] - exact)) <= 0.5 + 0.01
    assert np.all(edr["deltaV_longitudinal"][1] == np.round(edr["deltaV_longitudinal"][1]))
    assert np.all(edr["deltaV_lateral"][1] == 0.0)
    # the maximum: the whole pulse's 2 A T / pi, at its end
    peak = s["max_longitudinal"]
    assert peak["delta_v_m_s"] == pytest.approx(-2.0 * A * T / math.pi, rel=1e-5)
    assert peak["delta_v_kmh"] == round(-2.0 * A * T / math.pi * KMH)
    assert peak["time_ms"] == pytest.approx((TS + T - t0) * 1000.0, abs=2.5)
    # the impulse phase: contact from TS to TS + T, a frontal impact
    c = s["collision"]
    assert c["duration_s"] == pytest.approx(T, abs=2 * DT)
    assert (c["pdof_deg"], c["pdof_clock"]) == (0.0, 12)
    assert c["delta_v_m_s"][0] == pytest.approx(-2.0 * A * T / math.pi, rel=1e-4)
    # CFC 60 of a 80 ms half-sine (its spectrum mostly below 25 Hz) keeps the peak to 1 %
    assert s["peak_acceleration_m_s2"]["cg.ax.cfc60"] == pytest.approx(-A, rel=0.01)


def test_point_acceleration_of_a_yawing_body():
    """a_P = w' x r + w x (w x r) for a body at rest in translation, yawing up at alpha."""
    alpha, dt = 40.0, 1e-3
    t = np.arange(0.0, 0.2, dt)
    omega = np.column_stack([np.zeros_like(t), np.zeros_like(t), alpha * t])
    r = (1.2, 0.3, -0.4)
    a = point_acceleration(np.zeros((t.size, 3)), omega, dt, r)
    w = alpha * t
    assert np.allclose(a[:, 0], -0.3 * alpha - w ** 2 * 1.2, atol=1e-9)
    assert np.allclose(a[:, 1], 1.2 * alpha - w ** 2 * 0.3, atol=1e-9)
    assert np.allclose(a[:, 2], 0.0, atol=1e-12)


@pytest.mark.parametrize("jx,jy,deg,clock", [(-1.0, 0.0, 0.0, 12), (1.0, 0.0, 180.0, 6),
                                             (0.0, -1.0, 90.0, 3), (0.0, 1.0, 270.0, 9),
                                             (-1.0, -math.tan(math.radians(50.0)), 50.0, 2),
                                             (-1.0, math.tan(math.radians(20.0)), 340.0, 11)])
def test_principal_direction_of_force(jx, jy, deg, clock):
    got = pdof(jx, jy)
    assert got[0] == pytest.approx(deg, abs=1e-9) and got[1] == clock


def test_bad_history_names_the_column(tmp_path):
    data = half_sine()
    del data["car.collision.Fx"]
    with pytest.raises(PulseError, match=r"car\.collision\.Fx: not in the history"):
        collision_pulse(data, "car")
    data = half_sine()
    data["time"] = data["time"] ** 1.01
    with pytest.raises(PulseError, match="time: samples at a constant step"):
        collision_pulse(data, "car")
    history = tmp_path / "h.csv"
    history.write_text("time,car.ax\n0,0\n")
    # the command never writes over what it reads, and says why in one line
    run_ = subprocess.run([sys.executable, "-m", "simon_fmu", "pulse", str(history), "-o",
                           str(history)], capture_output=True, text=True)
    assert run_.returncode == 2 and "not replaced" in run_.stderr
    assert history.read_text() == "time,car.ax\n0,0\n"


def test_barrier_impact_pulse_through_the_fmu(instance, barrier_fmu, tmp_path):
    """The sedan at 10 m/s into a rigid wall (tests/test_collision_fmu.py), stepped and
    recorded at 0.5 ms (2 kHz, enough for CFC 180). Its collision delta-V is the approach speed
    plus the rebound e f(zeta) v of the damped unloading spring; the impulse phase lasts the
    quarter period of the loading spring w B on the car's mass plus the unloading time; the
    force comes from straight ahead."""
    h = 0.0005
    inst = instance(barrier_fmu).start({"car.speed0": V_IN, "stepSize": h})

    def neutral(t, i):
        i.set("car.gear", 0)
    reals = ["car." + k for k in ("ax", "ay", "az", "p", "q", "r", "collision.Fx",
                                  "collision.Fy", "u", "collision.deltaVx", "collision.deltaVy",
                                  "collision.pdof", "collision.duration")]
    contact = []

    def step(t, i):
        neutral(t, i)
        if t > 0.0:
            contact.append(float(i.get("car.collision.contact")))   # a Boolean, after t
    r = run(inst, 0.6, step, h=h, record=tuple(reals))
    contact.append(float(inst.get("car.collision.contact")))
    r["car.collision.contact"] = np.array(contact)
    names = reals + ["car.collision.contact"]
    history = tmp_path / "history.csv"
    write_csv(history, ["time"] + names, [""] * (len(names) + 1),
              [r["time"]] + [r[n] for n in names])
    out = tmp_path / "pulse"
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "pulse", str(history), "--point",
                           "0.5", "-0.4", "-0.3", "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["cfc_not_computed"] == {}
    col = CAR["collision"]
    e, zeta, B = col["restitution"], col["damping_ratio"], col["crush_stiffness"]["front"]
    c = s["collision"]
    first = int(round(c["first_contact_s"] / h)) - 1
    v_in = r["car.u"][first - 1]
    assert v_in == pytest.approx(V_IN, rel=2e-3)
    dv_theory = v_in * (1.0 + e * separation_factor(zeta))
    assert -c["delta_v_m_s"][0] == pytest.approx(dv_theory, rel=0.006)    # measured +0.23 %
    assert abs(c["delta_v_m_s"][1]) < 1e-6 * dv_theory
    assert (round(c["pdof_deg"], 6) % 360.0, c["pdof_clock"]) == (0.0, 12)
    # duration: pi / (2 w) loading, then the damped unloading spring (w / e) to separation
    w = math.sqrt(WIDTH * B / M)
    wd = math.sqrt(1.0 - zeta * zeta)
    t_sep = brentq(lambda x: math.exp(-zeta * x) * (math.cos(wd * x) + zeta / wd * math.sin(wd * x))
                   + 2.0 * zeta * (-math.exp(-zeta * x) * math.sin(wd * x) / wd), 1e-9, math.pi / wd)
    duration = math.pi / (2.0 * w) + t_sep * e / w
    print(f"barrier pulse: delta-V {-c['delta_v_m_s'][0]:.4f} m/s against {dv_theory:.4f} "
          f"({-c['delta_v_m_s'][0] / dv_theory - 1:+.2%}), duration {c['duration_s'] * 1000:.2f} "
          f"ms against {duration * 1000:.2f} ({c['duration_s'] / duration - 1:+.2%})")
    assert c["duration_s"] == pytest.approx(duration, rel=0.03)     # measured +1.7 %
    # the FMU's live outputs at the last contact: the same delta-V, direction and duration
    # (after it, the delta-V since first contact goes on with the tires' forces)
    last = int(round(c["last_contact_s"] / h)) - 1
    live = -r["car.collision.deltaVx"][last]
    print(f"live: delta-V {live:.4f} m/s ({live / dv_theory - 1:+.2%}), duration "
          f"{r['car.collision.duration'][last] * 1000:.2f} ms")
    assert live == pytest.approx(dv_theory, rel=0.006)
    assert abs(r["car.collision.deltaVy"][-1]) < 1e-9 * dv_theory
    assert min(r["car.collision.pdof"][-1], 2 * math.pi - r["car.collision.pdof"][-1]) < 1e-9
    # the impulse phase, latched at the step boundaries: measured 48.5 ms (+3.8 %), the
    # history's contact samples 47.5
    assert r["car.collision.duration"][-1] == pytest.approx(c["duration_s"], abs=3 * h)
    assert r["car.collision.duration"][-1] == pytest.approx(duration, rel=0.05)
    assert r["car.collision.duration"][first - 1] == 0.0 and r["car.collision.deltaVx"][0] == 0.0
    # the recorder's table (at the point): its largest longitudinal delta-V is the collision's
    names_, units, edr = read_csv(out / "edr.csv")
    assert names_ == ["time", "deltaV_longitudinal", "deltaV_lateral"]
    assert units == ["ms", "km/h", "km/h"]
    assert s["max_longitudinal"]["delta_v_kmh"] == pytest.approx(-dv_theory * KMH, abs=1.0)
    assert np.min(edr["deltaV_longitudinal"]) >= -round(dv_theory * KMH) - 1
    assert np.max(np.abs(edr["deltaV_lateral"])) <= 1.0
    # the filtered pulses keep its area, the delta-V (the filters' gain is 1 at 0 Hz)
    _, _, p = read_csv(out / "pulse.csv")
    area = np.sum(p["cg.ax"]) * h
    for cfc in (60, 180):
        filtered = p[f"cg.ax.cfc{cfc}"]
        assert np.sum(filtered) * h == pytest.approx(area, rel=1e-4)


def test_a_side_impact_comes_from_three_oclock(instance, barrier_fmu):
    """The sedan turned to face -Y (yaw0 -90 deg), so that its right side faces the wall ahead
    of it in X, launched sliding to its right (lateralSpeed0): the wall pushes it to its left,
    so the delta-V points left and the force comes from 3 o'clock (PDOF 90 deg), and it takes
    off the speed the car came in with."""
    half = CAR["dimensions"]["width"] / 2.0
    from support.fixtures import BARRIER_X
    inst = instance(barrier_fmu).start({"car.yaw0": -math.pi / 2, "car.X0": BARRIER_X - half - 0.3,
                                        "car.lateralSpeed0": 8.0})
    r = run(inst, 0.4, h=0.001, record=("car.v", "car.u", "car.collision.deltaVx",
                                        "car.collision.deltaVy", "car.collision.pdof",
                                        "car.collision.duration", "car.collision.Fy"))
    touching = np.flatnonzero(r["car.collision.Fy"] != 0.0)
    assert touching.size, "the car never reached the wall"
    first = touching[0]
    assert np.all(r["car.collision.Fy"][touching] < 0.0)          # pushed to its left
    v_in = r["car.v"][first - 1]
    dvy = r["car.collision.deltaVy"][-1]
    print(f"side impact: v in {v_in:.3f} m/s, deltaVy {dvy:.3f} m/s, pdof "
          f"{math.degrees(r['car.collision.pdof'][-1]):.2f} deg")
    assert -v_in < 0.0 and dvy < -0.95 * v_in          # stopped by the wall (measured 0.99)
    assert math.degrees(r["car.collision.pdof"][-1]) == pytest.approx(90.0, abs=5.0)
    assert abs(r["car.collision.deltaVx"][-1]) < 0.1 * abs(dvy)
    assert r["car.collision.duration"][-1] > 0.0
