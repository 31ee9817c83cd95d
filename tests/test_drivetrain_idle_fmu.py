"""The drivetrain at low speed through the built FMU (fmpy): the idle governor holds the engine
at the sheet's idle speed, the launch clutch slips while the wheels turn slower than idle and
locks once the speeds match, so that in first gear with no throttle and no brake the car creeps
at omega_idle r / (i_1 i_d), and launches smoothly under throttle (docs/equations.md,
"Drivetrain at low speed").

The references are computed here from the sedan sheet (the default event), not from the
engine's functions."""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from support.run import run
from support.sedan import A_S, G, MS, MU, WB, loaded_radius

DT = engine.load_event().data["units"][0]["drivetrain"]
OMEGA_IDLE = DT["idle_speed"] * 2.0 * math.pi / 60.0        # 800 rpm, rad/s
I1, ID = DT["transmission_ratios"][0], DT["differential_ratio"]
REAR = ("car.axle2.left", "car.axle2.right")


def test_the_car_creeps_at_idle_speed_in_first_gear(instance, car_fmu):
    """First gear, no throttle, no brake, from rest: the clutch slips while it launches the car,
    then locks; the governor holds 800 rpm, and the car creeps at omega_idle r / (i_1 i_d),
    r the rear tires' loaded radius (the tire's slip under the rolling resistance is below the
    measured 2e-4)."""
    inst = instance(car_fmu).start({"car.speed0": 0.0})
    inst.set("car.gear", 1)
    r = run(inst, 40.0, record=("car.u", "car.engineSpeed", "car.clutchSlip")
            + tuple(w + ".spin" for w in REAR))
    rear_load = MS * G * A_S / WB / 2 + MU * G
    spin = OMEGA_IDLE / (I1 * ID)
    assert r["car.engineSpeed"][-1] == pytest.approx(OMEGA_IDLE, rel=1e-6)
    for w in REAR:
        assert r[w + ".spin"][-1] == pytest.approx(spin, rel=1e-6)
    assert r["car.u"][-1] == pytest.approx(spin * loaded_radius(rear_load), rel=5e-4)
    assert abs(r["car.clutchSlip"][-1]) < 1e-6
    # it slipped at the start (the transmission at rest) and then locked
    assert r["car.clutchSlip"][0] > 0.9
    locked = np.flatnonzero(np.abs(r["car.clutchSlip"]) < 1e-4)
    assert locked.size and r["time"][locked[0]] < 5.0
    # the governor never let the engine sag by more than 2 % below idle
    assert np.min(r["car.engineSpeed"]) > 0.98 * OMEGA_IDLE


def test_the_car_launches_smoothly_under_throttle(instance, car_fmu):
    """30 % throttle in first gear from rest: the engine revs up, the clutch's capacity with it,
    and the car accelerates without a jolt: the slip falls to 0 and the clutch stays locked,
    and the acceleration changes by less than 0.03 g within any 10 ms step (no step where the
    clutch grabs: its full 300 N m would jolt the car by several m/s^2; measured 0.012 g, the
    engine's inertia taken up at the lock)."""
    inst = instance(car_fmu).start({"car.speed0": 0.0})
    inst.set("car.gear", 1)
    inst.set("car.throttle", 0.3)
    r = run(inst, 4.0, record=("car.u", "car.ax", "car.engineSpeed", "car.clutchSlip"))
    slip = r["car.clutchSlip"]
    locked = np.flatnonzero(np.abs(slip) < 1e-4)
    assert locked.size, "the clutch never locked"
    assert np.all(np.abs(slip[locked[0]:]) < 1e-3)
    # past the first 20 ms, in which the engine revs up faster than the car, the slip only falls
    assert np.all(np.diff(slip[2:locked[0] + 1]) < 1e-9)
    assert np.max(np.abs(np.diff(r["car.ax"]))) < 0.03 * G
    assert np.min(r["car.engineSpeed"]) > 0.98 * OMEGA_IDLE
    assert r["car.u"][-1] > 3.0


def test_in_neutral_the_engine_idles(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 0.0})
    r = run(inst, 5.0, record=("car.u", "car.engineSpeed", "car.clutchSlip"))
    assert np.max(np.abs(r["car.engineSpeed"] - OMEGA_IDLE)) < 1e-6 * OMEGA_IDLE
    assert np.max(np.abs(r["car.u"])) < 1e-6
    assert np.max(np.abs(r["car.clutchSlip"])) == 0.0


def test_started_in_gear_at_speed_the_clutch_is_locked(instance, car_fmu):
    """Started at 20 m/s in fourth gear, the engine turns with the wheels from the first step
    (it does not spin up from idle through a slipping clutch)."""
    inst = instance(car_fmu).start({"car.speed0": 20.0})
    inst.set("car.gear", 4)
    r = run(inst, 2.0, record=("car.engineSpeed", "car.clutchSlip") + tuple(w + ".spin" for w in REAR))
    ratio = DT["transmission_ratios"][3] * ID
    omega_t = ratio * (r[REAR[0] + ".spin"] + r[REAR[1] + ".spin"]) / 2
    assert np.max(np.abs(r["car.clutchSlip"])) < 1e-4
    assert np.max(np.abs(r["car.engineSpeed"] - omega_t) / omega_t) < 1e-4
    assert r["car.engineSpeed"][0] > 2.0 * OMEGA_IDLE


def _drivetrain_event(**changes):
    data = json.loads(engine.load_event().to_json())
    dt = data["units"][0]["drivetrain"]
    for key, value in changes.items():
        if value is None:
            dt.pop(key, None)
        else:
            dt[key] = value
    return data


@pytest.mark.parametrize("changes, message", [
    ({"clutch": None}, "units[0].drivetrain: idle_speed, idle_governor and clutch together, or none "
                       "of them (missing clutch)"),
    ({"clutch": {"capacity": 300.0, "engagement_start": 1500, "full_engagement": 700}},
     "units[0].drivetrain.clutch.full_engagement: an engine speed above engagement_start"),
    ({"inertia": 0.0}, "units[0].drivetrain.inertia: a number > 0 with an idle_speed"),
    ({"idle_speed": -800}, "units[0].drivetrain.idle_speed:"),
])
def test_a_bad_idle_drivetrain_is_refused_naming_the_field(changes, message):
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(_drivetrain_event(**copy.deepcopy(changes)))
    assert any(p.startswith(message) for p in exc.value.problems), exc.value.problems


def test_without_an_idle_speed_the_engine_follows_the_wheels():
    """The manual's Eq. 50 stays what a drivetrain without idle data gets: started at 20 m/s in
    fourth gear, the engine speed is N_t N_d times the mean driven-wheel spin."""
    data = _drivetrain_event(idle_speed=None, idle_governor=None, clutch=None)
    data["units"][0]["initial"]["speed"] = 20.0
    sim = engine.Simulation(engine.load_event(data))
    sim.u_unit[0, engine.UNIT_INPUTS.index("gear")] = 4
    sim.advance(0.5)
    spin = [sim.y_wheel[sim.wheel_names.index(w), engine.WHEEL_OUTPUTS.index("spin")] for w in REAR]
    omega_e = sim.y_unit[0, engine.UNIT_OUTPUTS.index("engineSpeed")]
    assert omega_e == pytest.approx(DT["transmission_ratios"][3] * ID * np.mean(spin), rel=1e-12)
    assert sim.y_unit[0, engine.UNIT_OUTPUTS.index("clutchSlip")] == 0.0
