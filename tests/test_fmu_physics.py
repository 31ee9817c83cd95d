"""Vehicle physics through the built FMU (fmpy), against closed-form theory from the sedan sheet.

Every reference below is computed from docs/reference/sedan.md (as loaded from the
default event), never from earlier engine output.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

# the sedan's theory, the stepping helper and the broadside car (tests/support)
from support.run import run
from support.sedan import (CDA, EV, G, M, RHO, TIRE, WB, WHEELS, bicycle_reference,
                           broadside_force, loaded_radius, static_loads)


def test_static_wheel_loads_and_no_settling(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 0.0})
    front, rear = static_loads()
    loads = [inst.get(w + ".Fz") for w in WHEELS]
    assert loads[0] == pytest.approx(front, rel=1e-6) and loads[1] == pytest.approx(front, rel=1e-6)
    assert loads[2] == pytest.approx(rear, rel=1e-6) and loads[3] == pytest.approx(rear, rel=1e-6)
    assert sum(loads) == pytest.approx(M * G, rel=1e-9)
    assert inst.get("car.Z") == pytest.approx(-EV["sprung_mass"]["cg_height"], abs=1e-12)
    r = run(inst, 2.0, record=("car.Z", "car.pitch", "car.roll") + tuple(w + ".jounce" for w in WHEELS))
    # no settling bounce: the car starts at rest on its springs
    assert np.max(np.abs(r["car.Z"] + EV["sprung_mass"]["cg_height"])) < 1e-5
    assert np.max(np.abs(r["car.pitch"])) < 1e-5
    for w in WHEELS:
        assert np.max(np.abs(r[w + ".jounce"])) < 1e-5


def test_coast_down_matches_rolling_resistance_and_drag(instance, car_fmu):
    """In neutral: m_eff dv/dt = -(sigma0 m g + rho Cd A v^2 / 2), m_eff = m + sum I_w / r^2."""
    v0 = 25.0
    inst = instance(car_fmu).start({"car.speed0": v0})
    r = run(inst, 4.0, record=("car.u",))
    front, rear = static_loads()
    r_f, r_r = loaded_radius(front), loaded_radius(rear)
    m_eff = M + 2 * TIRE["spin_inertia"] / r_f ** 2 + 2 * TIRE["spin_inertia"] / r_r ** 2
    sigma0 = TIRE["rolling_resistance"]["sigma0"]
    # integrate the closed-form ODE exactly: dv/dt = -(a + k v^2) -> v = sqrt(a/k) tan(...)
    a = sigma0 * M * G / m_eff
    k = 0.5 * RHO * CDA / m_eff
    c = math.sqrt(a / k)
    t = r["time"][-1] - 1.0  # skip the first second (slip states settle)
    i1 = np.searchsorted(r["time"], 1.0)
    v1 = r["car.u"][i1]
    v_theory = c * math.tan(math.atan(v1 / c) - math.sqrt(a * k) * t)
    dv_engine = v1 - r["car.u"][-1]
    dv_theory = v1 - v_theory
    assert dv_engine == pytest.approx(dv_theory, rel=3e-5)         # measured 7e-6


def test_locked_wheel_deceleration_is_mu_slide_g(instance, car_fmu):
    v0 = 20.0
    inst = instance(car_fmu).start({"car.speed0": v0})
    skid = {}

    def brake(t, i):
        i.set("car.brakePedalForce", 3000.0)
        if abs(t - 1.0) < 1e-9:  # sliding at about 12 m/s
            skid.update({w: i.get(w + ".skid") for w in WHEELS})
            skid["slip"] = i.get("car.axle1.left.slip")

    r = run(inst, 4.0, brake, record=("car.u", "car.ax", "car.X") + tuple(w + ".spin" for w in WHEELS))
    assert all(skid[w] for w in WHEELS) and skid["slip"] == pytest.approx(1.0, abs=1e-3)
    u = r["car.u"]
    band = (u < 16.0) & (u > 4.0)
    for w in WHEELS:
        assert np.all(np.abs(r[w + ".spin"][band]) < 1e-6)      # the wheels are locked
    mus = TIRE["slide_friction"][0][0]
    ax_theory = -(mus * M * G + 0.5 * RHO * CDA * u[band] ** 2) / M
    assert np.mean(r["car.ax"][band]) == pytest.approx(np.mean(ax_theory), rel=0.01)
    # stopping distance: brake application and lock-up take a few tens of ms
    distance = r["car.X"][-1]
    assert distance == pytest.approx(v0 ** 2 / (2 * mus * G), rel=0.025)   # measured -1.1 %


def test_steady_cornering_matches_bicycle_model(instance, car_fmu):
    """Low-g steady state at 20 m/s vs the linear bicycle model (:func:`bicycle_reference`)."""
    u0 = 20.0
    steer_road = 0.01
    ref = bicycle_reference()
    k_us, k_plain, roll_grad = ref["k_us"], ref["k_plain"], ref["roll_grad"]

    inst = instance(car_fmu).start({"car.speed0": u0})

    def control(t, i):
        i.set("car.gear", 4)
        i.set("car.steeringWheelAngle", 16.0 * steer_road * min(1.0, t / 0.5))
        i.set("car.throttle", min(1.0, max(0.0, 0.15 + 0.5 * (u0 - i.get("car.u")))))

    r = run(inst, 8.0, control, record=("car.u", "car.r", "car.ay", "car.roll"))
    u, yaw_rate, ay = r["car.u"][-1], r["car.r"][-1], r["car.ay"][-1]
    assert u == pytest.approx(u0, abs=0.3)
    r_theory = u * steer_road / (WB + k_us * u ** 2)
    r_plain = u * steer_road / (WB + k_plain * u ** 2)
    assert yaw_rate > 0  # positive steer (to the right) gives positive yaw rate (SAE z down)
    assert yaw_rate == pytest.approx(r_theory, rel=0.02)
    assert yaw_rate == pytest.approx(r_plain, rel=0.05)
    assert ay == pytest.approx(u * yaw_rate, rel=0.02)          # steady state: ay = u r
    assert r["car.roll"][-1] == pytest.approx(-roll_grad * ay, rel=0.03)


def test_brake_to_stop_hold_then_roll_away(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 10.0})
    rec = ("car.u", "car.X", "car.ax") + tuple(w + ".spin" for w in WHEELS) + tuple(w + ".Fx" for w in WHEELS)
    r1 = run(inst, 6.0, lambda t, i: i.set("car.brakePedalForce", 800.0), record=rec)
    hold = r1["time"] > 4.0
    assert np.all(np.isfinite(np.column_stack([r1[k] for k in rec])))
    assert np.max(np.abs(r1["car.u"][hold])) < 1e-3                   # stopped
    assert abs(r1["car.X"][-1] - r1["car.X"][hold][0]) < 2e-3         # no creep while held
    assert np.std(r1["car.ax"][hold]) < 1e-2                          # no chatter
    for w in WHEELS:
        assert np.max(np.abs(r1[w + ".spin"][hold])) < 1e-3

    def go(t, i):
        i.set("car.brakePedalForce", 0.0)
        i.set("car.gear", 1)
        i.set("car.throttle", 0.5)

    r2 = run(inst, 9.0, go, record=rec)
    assert r2["car.u"][-1] > 3.0
    # forward only: the body's pitch rebound on release moves the CG back a few mm at most
    assert np.min(r2["car.X"]) > r1["car.X"][-1] - 0.01


def test_reverse_gear_drives_backwards(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 0.0})

    def back(t, i):
        i.set("car.gear", -1)
        i.set("car.throttle", 0.5)

    r = run(inst, 2.0, back, record=("car.u",))
    assert r["car.u"][-1] < -1.0


def test_broadside_sliding_friction_is_mu_s(instance, crab_fmu):
    """Free-rolling wheels sliding at 90 degrees slip angle: Eq. 102 with the resultant
    sliding slip gives mu_s. Per tire |F_y| = mu_s F_z (1 - X_s/L / 2) with
    X_s/L = mu_s F_z / (2 C_alpha) (Eq. 104, 108, 110), summed at the static loads;
    the deceleration adds the drag."""
    inst = instance(crab_fmu).start({"car.speed0": 15.0})
    inst.set("car.steeringWheelAngle", 20.0)
    r = run(inst, 1.5, record=("car.u", "car.ax", "car.axle1.left.steer"))
    assert r["car.axle1.left.steer"][-1] == pytest.approx(math.pi / 2, rel=1e-12)
    band = (r["time"] > 0.5) & (r["car.u"] > 3.0)
    mus = TIRE["slide_friction"][0][0]
    force = broadside_force()
    u = r["car.u"][band]
    ax_theory = -(force + 0.5 * RHO * CDA * u ** 2) / M
    measured = np.mean(r["car.ax"][band])
    assert measured == pytest.approx(np.mean(ax_theory), rel=0.02)
    # and the friction coefficient seen from outside is mu_s (was 0.965 g with mu = A)
    mu_seen = -np.mean(r["car.ax"][band] + 0.5 * RHO * CDA * u ** 2 / M) / G
    assert mu_seen == pytest.approx(mus, rel=0.025)
    print(f"broadside sliding: {mu_seen:.4f} g (mu_s {mus}), error vs theory "
          f"{measured / np.mean(ax_theory) - 1:+.2%}")
