"""A braked car that has stopped stays put (through the built FMUs, fmpy).

After the stop, with the brake held, the car may only rock back on its tires as the body's
pitch recovers (with locked wheels the body and wheels turn about the contact patches, so the
sprung-mass CG moves back by about h * theta_stop) and spring back by the tire's compliance:
the carcass deflection that carried the tire force at the stop, F / (C / sigma), with C_s
(Eq. 101) longitudinally, a few millimetres, and C_alpha' laterally, about a centimetre at
full sliding friction. The ground point under the CG, X + h sin(theta), shows the compliance
alone. References from the default event.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import engine
from support.sedan import CDA, M, RHO, axle_tire, broadside_force, cornering_stiffness

EVENT = engine.load_event()
CAR = EVENT.data["units"][0]
G = EVENT.data["environment"]["gravity"]
H = CAR["sprung_mass"]["cg_height"]
MUS = CAR["tires"]["front"]["slide_friction"][0][0]
WB = CAR["axles"][0]["x"] - CAR["axles"][1]["x"]
WHEELS = [f"axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
#: how far the contact patches may move after the stop: the tire compliance, a few mm
COMPLIANCE = 0.006


def lateral_stiffness(wheel, fz):
    """The lateral carcass spring of a wheel's tire, C_alpha'(F_z) / sigma_y."""
    tire = axle_tire(int(wheel[4]) - 1)
    return cornering_stiffness(fz, tire) / tire["relaxation_length"]["lateral"]


def stopping_distance(v0, force):
    """v0^2 / (2 a) under a constant ground force and the drag: m / (2 k) ln(1 + k v0^2 / F)."""
    k = 0.5 * RHO * CDA
    return M / (2 * k) * math.log(1 + k * v0 ** 2 / force)


def _standstill(t, X, u, pitch, ax, hold=3.0):
    """Figures from the first sample with forward speed u < 0.01 m/s, over ``hold`` seconds."""
    i = int(np.argmax(u < 0.01))
    assert u[i] < 0.01, "the car did not stop"
    j = int(np.searchsorted(t, t[i] + hold))
    assert j < len(t), "the run ends too early"
    ground = X + H * np.sin(pitch)            # the ground point under the CG
    return dict(i=i, j=j, drift_cg=X[j] - X[i], ground=ground[i:j + 1] - ground[i],
                rock=H * abs(pitch[i]), ax_end=ax[j - 100:j + 1], speed_end=abs(u[j]))


def _stop_run(instance, car_fmu, v0, pedal, t_end=8.0, h=0.01):
    inst = instance(car_fmu).start({"car.speed0": v0})
    names = ["car.X", "car.u", "car.pitch", "car.ax", "car.axle1.left.spin"]
    vrs = [inst.vr[n] for n in names]
    inst.set("car.brakePedalForce", pedal)
    rows = []
    for n in range(round(t_end / h)):
        inst.fmu.doStep(n * h, h)
        rows.append([(n + 1) * h] + list(inst.fmu.getReal(vrs)))
    return np.array(rows).T


@pytest.mark.parametrize("pedal", [1500.0, 500.0])
def test_locked_wheel_stop_from_25_ms_stays_put(instance, car_fmu, pedal):
    t, X, u, pitch, ax, spin = _stop_run(instance, car_fmu, 25.0, pedal)
    s = _standstill(t, X, u, pitch, ax)
    assert np.all(np.abs(spin[t < t[s["i"]]][-50:]) < 1e-6)        # the wheels were locked
    # the stopping distance is unchanged: v^2 / (2 mu_s g), with the drag's share
    d_theory = stopping_distance(25.0, MUS * M * G)
    assert X[s["i"]] == pytest.approx(d_theory, rel=0.02)
    # stays put: only the tire compliance at the ground, the pitch rock at the CG
    assert np.abs(s["ground"]).max() < COMPLIANCE
    assert abs(s["drift_cg"] + s["rock"]) < COMPLIANCE
    assert s["speed_end"] < 1e-3 and np.std(s["ax_end"]) < 1e-2    # at rest, no chatter
    print(f"locked stop at {pedal:g} N: ground point {np.abs(s['ground']).max() * 1e3:.1f} mm, "
          f"CG {s['drift_cg'] * 1e3:+.1f} mm (pitch rock {s['rock'] * 1e3:.1f} mm)")


def test_steering_at_standstill_does_not_move_the_car(instance, car_fmu):
    """After a locked stop, with the brake held, the driver turns the steering wheel to
    6 rad (0.38 rad at the road wheels) in 1 s. The road wheels turn about their contact
    patches: the car stays put, only the small carcass deflection left after the stop turns
    with the wheels (rho sin(delta), a fraction of a millimetre)."""
    inst = instance(car_fmu).start({"car.speed0": 25.0})
    names = ["car.X", "car.Y", "car.u", "car.pitch", "car.yaw", "car.axle1.left.steer"]
    vrs = [inst.vr[n] for n in names]
    inst.set("car.brakePedalForce", 1500.0)
    h, rows = 0.01, []
    for n in range(round(9.0 / h)):
        inst.set("car.steeringWheelAngle", 6.0 * min(1.0, max(0.0, n * h - 6.0)))
        inst.fmu.doStep(n * h, h)
        rows.append([(n + 1) * h] + list(inst.fmu.getReal(vrs)))
    t, X, Y, u, pitch, yaw, steer = np.array(rows).T
    a = int(np.searchsorted(t, 6.0))
    assert np.abs(u[a:]).max() < 1e-3
    assert steer[-1] == pytest.approx(6.0 / CAR["steering"]["gear_ratio"], rel=1e-9)
    ground = X + H * np.sin(pitch)
    assert np.abs(ground[a:] - ground[a]).max() < 1e-3
    assert np.abs(Y[a:] - Y[a]).max() < 1e-3
    assert np.abs(yaw[a:] - yaw[a]).max() < 1e-3 / WB


def test_rolling_stop_stays_put(instance, car_fmu):
    """A stop below the lock-up pedal force: the wheels roll down to zero and hold."""
    t, X, u, pitch, ax, spin = _stop_run(instance, car_fmu, 10.0, 150.0, t_end=9.0)
    s = _standstill(t, X, u, pitch, ax)
    assert spin[s["i"] - 30] > 0.05 * 10.0 / 0.33            # rolling, not locked, near the stop
    assert np.abs(s["ground"]).max() < COMPLIANCE
    assert s["speed_end"] < 1e-3 and np.std(s["ax_end"]) < 1e-2


def lateral_compliance(fy, fz):
    """Lateral carcass compliance at the stop: the lateral deflection of tire i that carried
    F_y,i is F_y,i / k_i, k_i = C_alpha'(F_z,i) / sigma_y; relaxing, it moves that wheel's
    contact point along F_y. Returns the stiffness-weighted movement of each axle's contact
    points, sum(F_y) / sum(k), front and rear."""
    out = []
    for axle in (1, 2):
        wheels = [w for w in WHEELS if w.startswith(f"axle{axle}")]
        out.append(sum(fy[w] for w in wheels) / sum(lateral_stiffness(w, fz[w]) for w in wheels))
    return out


def _abs_stop(car_fmu, driver_fmu, abs_fmu, right_mu):
    from simon_fmu.cosim.master import Master
    m = Master({"driver": driver_fmu, "abs": abs_fmu, "vehicle": car_fmu}, 0.002,
               prefixes={"vehicle": "car."})
    m.connect_by_name()
    start = {"vehicle.car.speed0": 100 / 3.6, "driver.path": "straight",
             "driver.targetSpeed": 100 / 3.6, "driver.brakeTime": 0.0}
    start.update({f"vehicle.car.axle{k}.right.frictionMultiplier": right_mu for k in (1, 2)})
    r = m.run(11.0 if right_mu < 1 else 7.0, start_values=start,
              record=["vehicle.car.X", "vehicle.car.u", "vehicle.car.pitch", "vehicle.car.ax",
                      "vehicle.car.yaw", "vehicle.car.r", "driver.steeringWheelAngle"]
              + [f"vehicle.car.{w}.{q}" for w in WHEELS for q in ("Fy", "Fz")])
    return r


@pytest.mark.parametrize("right_mu", [1.0, 0.25])
def test_abs_stop_stays_put(car_fmu, driver_fmu, abs_fmu, right_mu):
    """ABS stop from 100 km/h, on uniform and on split mu (0.25 under the right wheels).

    On split mu the car stops yawing against the brake's yaw moment, its tires carrying
    lateral forces, front and rear opposed (a couple). Those deflections relax after the stop
    and turn the car by the lateral compliance alone, (delta_front - delta_rear) / wheelbase
    (:func:`lateral_compliance`); before the lateral carcass model the slip angles held at
    the stop turned it by 0.035 rad and moved the ground point 26 mm."""
    r = _abs_stop(car_fmu, driver_fmu, abs_fmu, right_mu)
    t = r.time
    s = _standstill(t, r["vehicle.car.X"], r["vehicle.car.u"], r["vehicle.car.pitch"],
                    r["vehicle.car.ax"])
    assert np.abs(s["ground"]).max() < COMPLIANCE
    assert abs(s["drift_cg"] + s["rock"]) < COMPLIANCE
    i, j = s["i"], s["j"]
    yaw = r["vehicle.car.yaw"]
    # the forces of the last sample before the stop
    d_front, d_rear = lateral_compliance({w: r[f"vehicle.car.{w}.Fy"][i - 1] for w in WHEELS},
                                         {w: r[f"vehicle.car.{w}.Fz"][i - 1] for w in WHEELS})
    turn = (d_front - d_rear) / WB
    if right_mu < 1.0:
        assert abs(turn) > 1e-3                              # the case is one of lateral springback
    assert yaw[j] - yaw[i] == pytest.approx(turn, abs=max(0.4 * abs(turn), 2e-4))
    assert np.abs(yaw[i:j + 1] - yaw[i]).max() < 1.5 * abs(turn) + 2e-4
    assert np.abs(r["vehicle.car.r"][j - 500:j + 1]).max() < 1e-4      # at rest, no chatter
    assert np.std(s["ax_end"]) < 1e-2
    print(f"ABS stop (right mu {right_mu}): ground point {np.abs(s['ground']).max() * 1e3:.1f} mm, "
          f"CG {s['drift_cg'] * 1e3:+.1f} mm (pitch rock {s['rock'] * 1e3:.1f} mm), yaw "
          f"{yaw[j] - yaw[i]:+.5f} rad (lateral compliance {turn:+.5f})")
    # the driver has nothing to correct once the car stands: after its lag (lagTime 0.06 s)
    # has brought its steering to what it wanted at the stop, it no longer steers
    after = (t >= t[i] + 0.3) & (t <= t[j])
    steer = r["driver.steeringWheelAngle"][after]
    assert np.abs(steer - steer[0]).max() < math.radians(5.0)


def test_broadside_stop_stays_put(instance, crab_fmu):
    """All four wheels at 90 degrees and locked: the car slides sideways (for its tires) at
    mu_s to a stop. The stopping distance is v^2 / (2 mu g) with the broadside sliding force
    (Eq. 102, 104, 108, 110, at the static loads, as in test_fmu_physics) and the drag.
    After the stop the contact points move by the lateral carcass deflection that carried the
    sliding force, sigma_y F_y / C_alpha' (about 18 mm front, 7 mm rear), equilibrated over
    the four tires at the final loads (12 mm), and no more; the lateral slip state held at the stop
    (sin alpha = 1, one relaxation length) pushed the car back 0.34 m at up to 2.1 m/s."""
    v0 = 15.0
    inst = instance(crab_fmu).start({"car.speed0": v0})
    names = ["car.X", "car.u", "car.pitch", "car.ax"] + [f"car.{w}.{q}" for w in WHEELS for q in ("Fy", "Fz")]
    vrs = [inst.vr[n] for n in names]
    inst.set("car.steeringWheelAngle", 20.0)
    inst.set("car.brakePedalForce", 1500.0)
    h, rows = 0.01, []
    for n in range(round(6.0 / h)):
        inst.fmu.doStep(n * h, h)
        rows.append([(n + 1) * h] + list(inst.fmu.getReal(vrs)))
    r = dict(zip(["time"] + names, np.array(rows).T))
    s = _standstill(r["time"], r["car.X"], r["car.u"], r["car.pitch"], r["car.ax"])
    i, j = s["i"], s["j"]
    # the stopping distance of the ground point (the CG is ahead of it by the pitch rock)
    d_theory = stopping_distance(v0, broadside_force())
    assert r["car.X"][i] + H * math.sin(r["car.pitch"][i]) == pytest.approx(d_theory, rel=0.0025)
    # the springback: the deflections of the last sample before the stop (the tires still
    # slide), relaxed to the force balance at rest
    fy, fz = ({w: r[f"car.{w}.{q}"][i - 1] for w in WHEELS} for q in ("Fy", "Fz"))
    assert abs(fy["axle1.left"]) > 0.95 * MUS * fz["axle1.left"]
    rho = [fy[w] / lateral_stiffness(w, fz[w]) for w in WHEELS]
    k_end = [lateral_stiffness(w, r[f"car.{w}.Fz"][j]) for w in WHEELS]
    back = float(np.dot(k_end, rho) / np.sum(k_end))       # along the tires' force: -X
    assert -s["ground"][-1] == pytest.approx(back, rel=0.05)
    assert np.abs(s["ground"]).max() < 1.25 * back
    assert s["speed_end"] < 1e-3 and np.std(s["ax_end"]) < 1e-2    # at rest, no chatter
    print(f"broadside stop: ground point {s['ground'][-1] * 1e3:+.1f} mm (max "
          f"{np.abs(s['ground']).max() * 1e3:.1f}), lateral compliance {back * 1e3:.1f} mm")
