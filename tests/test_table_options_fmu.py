"""The manual's brake and throttle table options (Eq. 49 Braking Force / % Available Friction,
Eq. 52 Tractive Effort / % Available Friction) through the built FMU (fmpy), against closed
forms (docs/equations.md, "Brake and throttle table options").

The sedan with no aerodynamics, no rolling resistance and a peak friction of 0.9 at every load
and speed, so that the ground force is exactly what the tables ask: a force table gives the
vehicle a = sum F / m, a friction table theta mu F_R at each tire. The references are
computed here from the event's data."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error

import engine
from engine.setup.event import validate_event
from support.fmus import event_fmu
from support.run import run
from support.sedan import M

WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
DRIVEN = WHEELS[2:]                              # the sedan drives its rear axle
MU_P = 0.9


def _tables(method):
    data = json.loads(engine.load_event().to_json())
    unit = data["units"][0]
    unit["brakes"]["method"] = method
    unit["drivetrain"]["method"] = method
    unit["aerodynamics"] = []
    for tire in unit["tires"].values():
        tire["rolling_resistance"] = {"sigma0": 0.0, "sigma_v": 0.0}
        tire["peak_friction"] = [[MU_P] * len(row) for row in tire["peak_friction"]]
    return data


@pytest.fixture(scope="module")
def force_fmu(fmu_dir):
    return event_fmu(fmu_dir, "ForceTables", _tables("force"))


@pytest.fixture(scope="module")
def friction_fmu(fmu_dir):
    return event_fmu(fmu_dir, "FrictionTables", _tables("friction"))


FX = tuple(w + ".Fx" for w in WHEELS)
FZ = tuple(w + ".Fz" for w in WHEELS)


def test_a_braking_force_table_is_the_force_at_the_ground(instance, force_fmu):
    """1000 N on every wheel at 20 m/s (0.37 g, within every tire's mu F_R): sum Fx = -4000 N,
    u = 20 - 4000 t / m."""
    inst = instance(force_fmu).start({"car.speed0": 20.0})
    for w in WHEELS:
        inst.set(w + ".brakeForce", 1000.0)
    r = run(inst, 1.0, h=0.005, record=("car.u", "car.ax") + FX)
    late = r["time"] > 0.2
    total = sum(r[f] for f in FX)
    assert np.max(np.abs(total[late] + 4000.0)) < 1e-6 * 4000.0
    # ax is the sprung CG's: it differs from the whole car's F / m by the pitch transient
    assert np.max(np.abs(r["car.ax"][late] + 4000.0 / M)) < 0.01 * 4000.0 / M   # measured 0.57 %
    u_theory = 20.0 - 4000.0 / M * r["time"]
    assert np.max(np.abs(r["car.u"] - u_theory)) < 0.01     # measured 5.2e-3 m/s (the pitch)
    for w in WHEELS:                                 # no brake-system torque, the table's
        assert inst.get(w + ".brakePressure") == 0.0


def test_half_the_available_friction_is_half_mu_fz(instance, friction_fmu):
    inst = instance(friction_fmu).start({"car.speed0": 20.0})
    for w in WHEELS:
        inst.set(w + ".brakeFriction", 0.5)
    r = run(inst, 1.0, h=0.005, record=("car.ax",) + FX + FZ)
    late = r["time"] > 0.2
    for fx, fz in zip(FX, FZ):
        assert np.max(np.abs(r[fx][late] + 0.5 * MU_P * r[fz][late])) < 1e-6 * MU_P * 3000.0
    # the car decelerates at 0.5 mu sum F_R / m (0.5 mu g once the pitch has settled)
    a = 0.5 * MU_P * sum(r[f] for f in FZ) / M
    assert np.max(np.abs(r["car.ax"][late] + a[late])) < 0.01 * 0.5 * MU_P * 9.80665   # measured 0.58 %


def test_a_tractive_effort_table_accelerates_at_f_over_m(instance, force_fmu):
    """800 N on each rear wheel from 10 m/s, in gear (the table disconnects the engine)."""
    inst = instance(force_fmu).start({"car.speed0": 10.0})
    inst.set("car.gear", 1)
    for w in DRIVEN:
        inst.set(w + ".driveForce", 800.0)
    for w in WHEELS[:2]:                              # read only on a driven wheel
        assert w + ".driveForce" not in inst.vr
    r = run(inst, 1.0, h=0.005, record=("car.u",) + FX)
    late = r["time"] > 0.2
    assert np.max(np.abs(sum(r[f] for f in FX)[late] - 1600.0)) < 1e-6 * 1600.0
    assert np.max(np.abs(r["car.u"] - (10.0 + 1600.0 / M * r["time"]))) < 2e-3


def test_a_force_table_is_limited_by_the_available_friction(instance, force_fmu):
    inst = instance(force_fmu).start({"car.speed0": 20.0})
    for w in WHEELS:
        inst.set(w + ".brakeForce", 1.0e5)
    r = run(inst, 0.5, h=0.005, record=FX + FZ)
    late = r["time"] > 0.2
    for fx, fz in zip(FX, FZ):
        assert np.max(np.abs(r[fx][late] + MU_P * r[fz][late])) < 1e-6 * MU_P * 3000.0


def test_an_input_out_of_range_is_refused_and_named(instance, friction_fmu):
    inst = instance(friction_fmu).start({"car.speed0": 20.0})
    name = WHEELS[0] + ".brakeFriction"
    inst.set(name, 1.5)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(0.0, 0.005)
    assert failed.value.status == fmi2Error
    assert name in inst.messages(fmi2Error)[-1] and "1.5" in inst.messages(fmi2Error)[-1]


@pytest.mark.parametrize("brakes, drive, field", [
    ("disc", "engine", "brakes.method"),
    ("pedal", "torque", "drivetrain.method"),
    ("force", "engine", "drivetrain.method"),
])
def test_a_bad_method_names_the_field(brakes, drive, field):
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["brakes"]["method"] = brakes
    data["units"][0]["drivetrain"]["method"] = drive
    with pytest.raises(engine.EventError) as failed:
        validate_event(data)
    assert field in str(failed.value)
