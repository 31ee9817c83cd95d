"""Combinations through the built FMU (fmpy), against closed forms from the tractor-semitrailer sheet.

The tractor-semitrailer and the double with a converter dolly: static axle-group and joint loads
by the lever rule, straight braking from the brake torques, a kingpin that fails under braking,
and the joints' separation under the largest loads of these runs. Every expected value is
computed here and in tests/support/semitrailer.py from the event files
(engine/data/tractor-semitrailer.json and double.json, which hold the sheet's values exactly),
never from earlier engine output.
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from support.fmus import event_fmu
from support.semitrailer import (DOUBLE, G, RHO, SEMI, lever, loaded_radius, peak_friction,
                                 semitrailer_support, semitrailer_tire_theory, tire_data,
                                 tire_loads, tractor_support, unit, unit_mass)

SIDES = ("left", "right")
PEDAL = 150.0          # N: about 0.39 g, every tire well below its peak friction


def wheels(u: dict) -> list[str]:
    return [f"{u['name']}.axle{k}.{s}" for k in range(1, len(u["axles"]) + 1) for s in SIDES]


def tires(u: dict) -> list[list[str]]:
    """Per axle, the Fz variables of its tires (both sides; inner and outer for duals)."""
    return [[f"{u['name']}.axle{k}.{s}{p}.Fz" for s in SIDES
             for p in ((".inner", ".outer") if axle["dual"] else ("",))]
            for k, axle in enumerate(u["axles"], start=1)]


def step(inst, t0: float, t1: float, h: float, names: list[str], control=None) -> dict:
    """Step from t0 to t1 with communication step h, control(t, inst) before each step."""
    rows = []
    vrs = [inst.vr[n] for n in names]
    for n in range(round(t0 / h), round(t1 / h)):
        t = n * h
        if control is not None:
            control(t, inst)
        inst.fmu.doStep(t, h)
        rows.append([t + h] + inst.fmu.getReal(vrs))
    arr = np.array(rows)
    return {name: arr[:, j] for j, name in enumerate(["time"] + names)}


def brake(t, inst):
    inst.set("tractor.brakePedalForce", PEDAL)


def start_rolling(inst, speed: float = 20.0):
    inst.start({"tractor.speed0": speed})
    inst.set("tractor.gear", 0)          # neutral: no engine drag
    return inst


def max_rel(values, theory) -> float:
    return max(abs(v - t) / abs(t) for v, t in zip(values, theory))


# ---------------------------------------------------------------------------- 1. static loads

def test_static_loads_follow_the_lever_rule(instance, semitrailer_fmu):
    per_axle, kingpin = semitrailer_tire_theory()
    inst = instance(semitrailer_fmu).start({"tractor.speed0": 0.0})
    names = {u: tires(unit(SEMI, u)) for u in ("tractor", "trailer")}
    total = G * sum(unit_mass(u) for u in SEMI["units"])
    for when in ("t = 0", "after 1 s"):
        if when != "t = 0":
            step(inst, 0.0, 1.0, 0.01, [])
        assert -inst.get("trailer.hitch.Fz") == pytest.approx(kingpin, rel=5e-12)   # measured 1.0e-12
        fz_all = []
        for u, axles in names.items():
            for axle_names, theory in zip(axles, per_axle[u]):
                fz = inst.get_reals(axle_names)
                fz_all += fz
                # equal load on every tire of a group (axle) and its lever-rule value
                assert max_rel(fz, [theory] * len(fz)) < 1e-10, (when, axle_names)   # measured 1.9e-11
        assert sum(fz_all) == pytest.approx(total, rel=2e-14)    # measured 3.8e-15
        assert abs(inst.get("trailer.hitch.Fx")) < 1e-3 and abs(inst.get("trailer.hitch.Fy")) < 1e-3


# ---------------------------------------------------------------------------- 2. straight braking

def braking_theory(speed_sq: float) -> float:
    """Steady deceleration (m/s^2, negative) of the whole combination in neutral at pedal PEDAL.

    Per wheel position T = brake_torque_ratio (pedal_ratio F - pushout) (a dual pair once), its
    ground force T / r at the static loaded radius; plus rolling resistance sigma0 W and the
    tractor's drag rho Cd A v^2 / 2, over the mass plus every tire's spin inertia I / r^2.
    """
    per_axle, _ = semitrailer_tire_theory()
    pressure = SEMI["units"][0]["brakes"]["pedal_ratio"] * PEDAL
    force = inertia = 0.0
    for u in SEMI["units"]:
        for axle, load in zip(u["axles"], per_axle[u["name"]]):
            r = loaded_radius(u, axle, load)
            torque = axle["brake_torque_ratio"] * (pressure - u["brakes"]["pushout_pressure"])
            force += 2 * torque / r
            inertia += (4 if axle["dual"] else 2) * tire_data(u, axle)["spin_inertia"] / r ** 2
    mass = sum(unit_mass(u) for u in SEMI["units"])
    sigma0 = SEMI["units"][0]["tires"]["steer"]["rolling_resistance"]["sigma0"]
    aero = SEMI["units"][0]["aerodynamics"][0]
    drag = 0.5 * RHO * aero["drag_coefficient"] * aero["area"] * speed_sq
    return -(force + sigma0 * mass * G + drag) / (mass + inertia)


def test_braking_torques_stay_below_the_tires_grip():
    """The premise of the braking tests: at PEDAL no wheel position comes near locking."""
    per_axle, _ = semitrailer_tire_theory()
    pressure = SEMI["units"][0]["brakes"]["pedal_ratio"] * PEDAL
    for u in SEMI["units"]:
        for axle, load in zip(u["axles"], per_axle[u["name"]]):
            torque = axle["brake_torque_ratio"] * (pressure - u["brakes"]["pushout_pressure"])
            n = 2 if axle["dual"] else 1
            grip = n * peak_friction(u, axle, load) * load * loaded_radius(u, axle, load)
            assert torque < 0.6 * grip, (u["name"], axle["x"])


def test_straight_braking_deceleration_from_the_brake_torques(instance, semitrailer_fmu):
    tractor, trailer = unit(SEMI, "tractor"), unit(SEMI, "trailer")
    inst = start_rolling(instance(semitrailer_fmu))
    slips = [f"{w}{p}.slip" for u in SEMI["units"] for k, a in enumerate(u["axles"], start=1)
             for s in SIDES for w in [f"{u['name']}.axle{k}.{s}"]
             for p in ((".inner", ".outer") if a["dual"] else ("",))]
    names = (["tractor.u", "tractor.yaw", "trailer.yaw", "trailer.articulation"] + slips
             + [w + ".brakePressure" for w in wheels(tractor) + wheels(trailer)]
             + [w + ".brakeTorque" for w in wheels(tractor) + wheels(trailer)])
    r = step(inst, 0.0, 2.8, 0.01, names, brake)
    # every wheel takes the lead unit's pedal pressure, no proportioning; T = ratio (p - pushout)
    pressure = tractor["brakes"]["pedal_ratio"] * PEDAL
    for u in (tractor, trailer):
        for k, axle in enumerate(u["axles"], start=1):
            for s in SIDES:
                w = f"{u['name']}.axle{k}.{s}"
                assert np.all(r[w + ".brakePressure"] == pytest.approx(pressure, rel=1e-12))
                torque = axle["brake_torque_ratio"] * (pressure - u["brakes"]["pushout_pressure"])
                assert np.all(r[w + ".brakeTorque"] == pytest.approx(-torque, rel=1e-12))
    # rolling, not locking: every slip far below the slip at peak friction (measured max 0.038)
    assert max(np.max(np.abs(r[n])) for n in slips) < 0.1
    # the steady deceleration over 1.0 .. 2.8 s (16.2 -> 9.4 m/s)
    t, u = r["time"], r["tractor.u"]
    i1, i2 = np.searchsorted(t, 1.0 - 1e-9), len(t) - 1
    measured = (u[i2] - u[i1]) / (t[i2] - t[i1])
    mean_sq = (u[i1] ** 2 + u[i1] * u[i2] + u[i2] ** 2) / 3      # <v^2> of a linear decay
    theory = braking_theory(mean_sq)
    assert measured == pytest.approx(theory, rel=1e-3)           # measured -2.0e-4 (3.1 % without I_spin)
    # the combination stays straight
    for key in ("tractor.yaw", "trailer.yaw", "trailer.articulation"):
        assert np.max(np.abs(r[key])) < 1e-15                       # measured 3e-18
    # a trailer wheel's brakePressureFactor scales that wheel's pressure only
    inst.set("trailer.axle2.left.brakePressureFactor", 0.5)
    step(inst, 2.8, 2.81, 0.01, [], brake)
    p = {w: inst.get(w + ".brakePressure") for w in wheels(trailer) + ["tractor.axle1.left"]}
    assert p["trailer.axle2.left"] == pytest.approx(0.5 * p["tractor.axle1.left"], rel=1e-12)
    assert p["trailer.axle2.right"] == pytest.approx(p["tractor.axle1.left"], rel=1e-12)
    assert p["tractor.axle1.left"] == pytest.approx(pressure, rel=1e-12)


# ---------------------------------------------------------------------------- 3. connection failure

def test_a_kingpin_weaker_than_the_braking_load_fails_and_the_units_separate(instance, fmu_dir):
    """failure_force: 1.15 x the static kingpin load, so it holds at rest (|F_C| = P) and fails in
    braking (steady |F_C| ~ 54.4 kN, peak 60.5 kN, against 48.4 kN), once t >= 1.0 s."""
    _, kingpin = semitrailer_tire_theory()
    data = copy.deepcopy(SEMI)
    front = unit(data, "trailer")["connections"]["front"]
    front["failure_force"] = 1.15 * kingpin
    front["failure_start_time"] = 1.0
    inst = start_rolling(instance(event_fmu(fmu_dir, "semitrailer-weak-kingpin", data)))
    hitch = ["trailer.hitch.Fx", "trailer.hitch.Fy", "trailer.hitch.Fz", "trailer.hitch.separation"]

    def late_brake(t, i):
        i.set("tractor.brakePedalForce", PEDAL if t >= 0.2 - 1e-9 else 0.0)

    rows = []

    def record(t0, t1, h):
        for n in range(round(t0 / h), round(t1 / h)):
            late_brake(n * h, inst)
            inst.fmu.doStep(n * h, h)
            rows.append((n * h + h, inst.get("trailer.hitch.failed"), *inst.get_reals(hitch)))

    record(0.0, 1.1, 0.001)           # the joint's internal step: every step boundary is seen
    before = [row for row in rows if row[0] <= 1.0 + 1e-9]
    force = [math.sqrt(fx * fx + fy * fy + fz * fz) for _, _, fx, fy, fz, _ in before]
    assert not any(row[1] for row in before)
    assert force[0] < front["failure_force"] < max(force[-100:])    # held at rest, over it before 1 s
    after = rows[len(before)]
    assert after[0] == pytest.approx(1.001) and after[1]   # the first boundary after 1.0 s
    record(1.1, 3.0, 0.01)
    failed = [row for row in rows if row[0] > 1.0 + 1e-9]
    assert all(row[1] for row in failed)
    assert all(row[2:5] == (0.0, 0.0, 0.0) for row in failed)
    assert max(row[5] for row in failed if row[0] <= 3.0 + 1e-9) > 0.1   # measured 6.2 m at 3 s
    # with no landing gear the trailer's nose falls through the road until a tire refuses
    try:
        record(3.0, 8.0, 0.01)
    except FMICallException as error:
        assert "status 3" in str(error)                         # fmi2Error, not a crash
        errors = inst.messages(min_status=3)
        assert errors and "trailer.axle" in errors[-1] and "deflection" in errors[-1]


# ---------------------------------------------------------------------------- 4. joint separation

def test_kingpin_separation_stays_below_a_millimetre_in_braking_and_turning(instance, semitrailer_fmu):
    inst = start_rolling(instance(semitrailer_fmu))
    r = step(inst, 0.0, 2.8, 0.01, ["trailer.hitch.separation"], brake)
    assert np.max(r["trailer.hitch.separation"]) < 5e-4              # measured 1.13e-4 m

    def steer(t, i):
        i.set("tractor.steeringWheelAngle", min(t, 1.0))           # ramp to 1 rad in 1 s
    inst = start_rolling(instance(semitrailer_fmu, name="turn"))
    r = step(inst, 0.0, 4.0, 0.01, ["trailer.hitch.separation", "trailer.ay"], steer)
    assert np.max(r["trailer.ay"]) > 0.25 * G                       # measured 0.30 g peak, 0.28 g steady
    assert np.max(r["trailer.hitch.separation"]) < 3e-4              # measured 9.1e-5 m


def test_the_doubles_three_joints_stay_within_a_millimetre_in_braking(instance, double_fmu):
    inst = start_rolling(instance(double_fmu))
    seps = [f"{u}.hitch.separation" for u in ("trailer1", "dolly", "trailer2")]
    r = step(inst, 0.0, 2.8, 0.01, seps, brake)
    measured = {"trailer1": 9.5e-5, "dolly": 2.3e-4, "trailer2": 3.6e-4}
    for name in seps:
        assert np.max(r[name]) < 3 * measured[name.split(".")[0]], name


# ---------------------------------------------------------------------------- 5. the double's statics

def test_the_doubles_drawbar_and_kingpin_loads_follow_the_lever_rule(instance, double_fmu):
    dolly, trailer1, trailer2 = (unit(DOUBLE, n) for n in ("dolly", "trailer1", "trailer2"))
    king2, tridem2 = semitrailer_support(trailer2)
    # the dolly: its weight at its CG and trailer2's kingpin load at the fifth wheel (over the
    # axle), carried by the drawbar eye and the axle
    axle_x = dolly["axles"][0]["x"]
    drawbar, dolly_axle = lever([(dolly["sprung_mass"]["mass"] * G, 0.0),
                                 (king2, dolly["connections"]["rear"]["point"][0])],
                                dolly["connections"]["front"]["point"][0], axle_x)
    # trailer1 carries the drawbar load at its pintle
    king1, tridem1 = semitrailer_support(trailer1, ((drawbar, trailer1["connections"]["rear"]["point"][0]),))
    inst = instance(double_fmu).start({"tractor.speed0": 0.0})
    # measured 6.2e-15 and 5.3e-15, and 2.1e-13 on another CPU (the equilibrium's linear algebra
    # rounds differently by kernel)
    assert -inst.get("dolly.hitch.Fz") == pytest.approx(drawbar, rel=1e-12)
    assert -inst.get("trailer2.hitch.Fz") == pytest.approx(king2, rel=1e-12)
    assert -inst.get("trailer1.hitch.Fz") == pytest.approx(king1, rel=5e-12)    # measured 1.1e-12
    tractor = unit(DOUBLE, "tractor")
    front, drive = tractor_support(tractor, king1)
    for u, sprung in ((tractor, [front, drive / 2, drive / 2]), (trailer1, [tridem1 / 3] * 3),
                      (dolly, [dolly_axle]), (trailer2, [tridem2 / 3] * 3)):
        for axle_names, theory in zip(tires(u), tire_loads(u, sprung)):
            # every tire of an axle (and of a group) equal, at its lever-rule value
            assert max_rel(inst.get_reals(axle_names), [theory] * len(axle_names)) < 1e-13, axle_names  # measured 1.5e-14
    every = [n for u in DOUBLE["units"] for axle in tires(u) for n in axle]
    assert sum(inst.get_reals(every)) == pytest.approx(G * sum(unit_mass(u) for u in DOUBLE["units"]),
                                                       rel=2e-14)  # measured 4.9e-15
