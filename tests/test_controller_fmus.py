"""The driver and ABS FMUs as an importer sees them, through fmpy: declared ranges enforced,
reads during initialisation, and parameters that describe the vehicle taken from its event."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error

from conftest import ROOT, renamed_event
from support import fmus
from support.sedan import axle_tire, cornering_stiffness, lever_loads

H = 0.01
G = 9.80665


def _build_controller(command: str, output, event_file):
    """Build a controller FMU for ``event_file`` the way a user does, in its own process,
    once for all sessions with the same sources and event (tests/support/fmus.py)."""
    def make(path):
        subprocess.run([sys.executable, "-m", "simon_fmu", command, str(event_file), "-o",
                        str(path)], check=True, cwd=ROOT, capture_output=True)
    return fmus.cached(fmus.command_key(command, Path(event_file).read_text()), output, make)


def _initialising(instance, fmu):
    inst = instance(fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    return inst


def _declared(inst, name):
    v = next(v for v in inst.md.modelVariables if v.name == name)
    return float(v.min), float(v.max)


@pytest.mark.parametrize("fmu, name, value", [
    ("abs_fmu", "maxDeceleration", 1.0e9),
    ("abs_fmu", "tireRadius", 2.5),
    ("abs_fmu", "dumpTime", 0.0),
    ("driver_fmu", "previewTime", 1.0e3),
    ("driver_fmu", "tireRadius", 2.5),
    ("driver_fmu", "maxBrakeForce", -1.0),
])
def test_a_parameter_outside_its_declared_range_fails_initialisation(
        request, instance, fmu, name, value):
    inst = _initialising(instance, request.getfixturevalue(fmu))
    inst.set(name, value)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.exitInitializationMode()
    assert failed.value.status == fmi2Error
    lo, hi = _declared(inst, name)
    message = inst.messages(fmi2Error)[-1]
    assert name in message and repr(value) in message and f"[{lo!r}, {hi!r}]" in message, \
        inst.log
    with pytest.raises(FMICallException):
        inst.fmu.doStep(0.0, H)


@pytest.mark.parametrize("fmu, name, value", [
    ("abs_fmu", "axle1.left.spin", 1.0e308),
    ("abs_fmu", "axle2.right.spin", -1.0e4),
    ("driver_fmu", "speed", 1.0e9),
    ("driver_fmu", "X", -1.0e12),
])
def test_an_input_outside_its_declared_range_fails_the_step(request, instance, fmu, name, value):
    inst = instance(request.getfixturevalue(fmu)).start()
    lo, hi = _declared(inst, name)
    assert math.isfinite(lo) and math.isfinite(hi)
    inst.fmu.doStep(0.0, H)
    inst.set(name, value)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(H, H)
    assert failed.value.status == fmi2Error
    message = inst.messages(fmi2Error)[-1]
    assert name in message and repr(value) in message and f"[{lo!r}, {hi!r}]" in message, \
        inst.log
    # corrected, the input is no longer the reason: the message says the failure is past
    inst.set(name, (lo + hi) / 2)
    with pytest.raises(FMICallException):
        inst.fmu.doStep(H, H)
    later = inst.messages(fmi2Error)[-1]
    assert "failed earlier" in later and "reset" in later, inst.log


def test_the_abs_answers_finite_values_over_its_whole_spin_range(instance, abs_fmu):
    inst = instance(abs_fmu).start()
    names = [v.name for v in inst.md.modelVariables if v.name.endswith(".spin")]
    lo, hi = _declared(inst, names[0])
    for t, spin in enumerate((hi, lo, hi, 0.0)):
        for name in names:
            inst.set(name, spin)
        inst.fmu.doStep(t * H, H)
        outputs = [v.name for v in inst.md.modelVariables
                   if v.causality == "output" and v.type == "Real"]
        assert np.isfinite(inst.get_reals(outputs)).all()


@pytest.mark.parametrize("fmu, name, bad, good, output", [
    ("abs_fmu", "tireRadius", 2.5, 0.33, "referenceSpeed"),
    ("driver_fmu", "previewTime", 1.0e3, 0.5, "steeringWheelAngle"),
])
def test_reading_during_initialisation_with_a_bad_parameter_is_an_error_not_poison(
        request, instance, fmu, name, bad, good, output):
    inst = _initialising(instance, request.getfixturevalue(fmu))
    inst.set(name, bad)
    with pytest.raises(FMICallException) as failed:
        inst.get_reals([output])
    assert failed.value.status == fmi2Error
    message = inst.messages(fmi2Error)[-1]
    assert output in message and name in message and repr(bad) in message, inst.log
    inst.set(name, good)
    assert math.isfinite(inst.get_reals([output])[0])
    inst.fmu.exitInitializationMode()
    inst.fmu.doStep(0.0, H)
    assert math.isfinite(inst.get_reals([output])[0])


# ---------------------------------------------------------------- values from the event
def _static_radii(unit: dict) -> list[float]:
    """Per axle, the tire's loaded radius at rest, by the lever rule (two axles, linear tire)."""
    out = []
    for k, load in enumerate(lever_loads(unit, G)):
        tire = axle_tire(k, unit)
        deflection = load / tire["radial_stiffness"]
        assert deflection < tire["secondary_stiffness_deflection"]   # the linear range
        out.append((tire["unloaded_radius"] - deflection, load, tire))
    return out


def _starts(fmu) -> dict:
    return {v.name: v.start for v in read_model_description(str(fmu)).modelVariables
            if v.causality == "parameter"}


def _check_starts(unit: dict, abs_fmu, driver_fmu):
    (r_front, load_f, tire_f), (r_rear, load_r, tire_r) = _static_radii(unit)
    abs_starts, driver_starts = _starts(abs_fmu), _starts(driver_fmu)
    assert float(abs_starts["tireRadius"]) == pytest.approx(0.5 * (r_front + r_rear), abs=1e-9)
    assert float(driver_starts["tireRadius"]) == pytest.approx(r_rear, abs=1e-9)  # driven
    front, rear = unit["axles"]
    assert float(driver_starts["wheelbase"]) == pytest.approx(front["x"] - rear["x"], abs=1e-12)
    assert float(driver_starts["steeringRatio"]) == unit["steering"]["gear_ratio"]
    drivetrain = unit["drivetrain"]
    assert float(driver_starts["finalDriveRatio"]) == drivetrain["differential_ratio"]
    assert [float(r) for r in driver_starts["gearRatios"].split()] \
        == drivetrain["transmission_ratios"]
    # the bicycle model: K = m_f / C_f - m_r / C_r, axle loads as mass, axle stiffness
    c_f = 2 * cornering_stiffness(load_f, tire_f)
    c_r = 2 * cornering_stiffness(load_r, tire_r)
    k = 2 * load_f / G / c_f - 2 * load_r / G / c_r
    assert float(driver_starts["understeerGradient"]) == pytest.approx(k, rel=1e-9)


def test_the_default_controllers_take_the_vehicle_values_from_the_default_event(
        abs_fmu, driver_fmu):
    import engine
    _check_starts(json.loads(engine.load_event().to_json())["units"][0], abs_fmu, driver_fmu)


def test_controllers_built_for_another_vehicle_take_its_values(tmp_path):
    data = renamed_event("car")
    unit = data["units"][0]
    for tire in unit["tires"].values():
        tire["unloaded_radius"] = 0.40
    unit["steering"]["gear_ratio"] = 18.5
    unit["drivetrain"]["differential_ratio"] = 4.1
    unit["drivetrain"]["transmission_ratios"] = [4.0, 2.5, 1.6, 1.2, 1.0, 0.8]
    unit["axles"][0]["x"] = 1.30
    unit["dimensions"]["width"] = 1.90
    event_file = tmp_path / "other.json"
    event_file.write_text(json.dumps(data))
    abs_fmu = _build_controller("build-abs", tmp_path / "ABS.fmu", event_file)
    driver_fmu = _build_controller("build-driver", tmp_path / "Driver.fmu", event_file)
    _check_starts(unit, abs_fmu, driver_fmu)
    # the ISO 3888-2 course is laid out for the wider body: its second lane is W + 1 wide,
    # and the path keeps the body inside it
    import zipfile
    from simon_fmu.controllers import courses
    from simon_fmu.controllers.vehicle_data import vehicle_body
    import engine
    body = vehicle_body(engine.load_event(event_file))
    with zipfile.ZipFile(driver_fmu) as z:
        rows = z.read("resources/courses/iso3888-2.csv").decode().split()[1:]
    xy = np.array([[float(c) for c in r.split(",")] for r in rows])
    yaw = np.arctan(np.gradient(xy[:, 1], xy[:, 0]))
    lanes = courses.iso3888_2_lanes(body.width)
    assert lanes[1].width == pytest.approx(1.90 + 1.0)
    check = courses.check_lanes(lanes, xy[:, 0], xy[:, 1], yaw, body)
    assert check.inside and check.margin == pytest.approx(0.15, abs=0.01)
    shipped = np.loadtxt(ROOT / "simon_fmu/controllers/courses/iso3888-2.csv", delimiter=",",
                         skiprows=1)
    assert not courses.check_lanes(lanes, shipped[:, 0], shipped[:, 1],
                                   np.arctan(np.gradient(shipped[:, 1], shipped[:, 0])),
                                   body).inside
