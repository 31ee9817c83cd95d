"""The built FMU as an importer sees it, through fmpy: faults, state, reset, several FMUs."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error, fmi2LastSuccessfulTime

import engine

from conftest import ROOT, build, renamed_event

pytestmark = pytest.mark.skipif(not hasattr(engine, "Simulation"),
                                reason="engine.Simulation is not there yet")

H = 0.01           # communication step, s
SPEED0 = 20.0      # m/s
PARAMETERS = {"car.speed0": SPEED0}


def drive(inst, t0: float, t1: float, unit: str = "car", h: float = H) -> np.ndarray:
    """Step from t0 to t1 under a fixed input sequence; one row of all outputs per step."""
    real = [v.valueReference for v in inst.md.modelVariables
            if v.causality == "output" and v.type == "Real"]
    boolean = [v.valueReference for v in inst.md.modelVariables
               if v.causality == "output" and v.type == "Boolean"]
    rows = []
    for n in range(round(t0 / h), round(t1 / h)):
        t = n * h
        inst.set(f"{unit}.gear", 4)
        inst.set(f"{unit}.throttle", 0.3)
        inst.set(f"{unit}.steeringWheelAngle", 0.5 * math.sin(math.pi * t))
        inst.fmu.doStep(t, h)
        rows.append(list(inst.fmu.getReal(real)) + [float(b) for b in inst.fmu.getBoolean(boolean)])
    return np.array(rows)


def started(instance, fmu, name="instance", parameters=PARAMETERS):
    return instance(fmu, name).start(parameters)


def test_calculated_parameters(instance, car_fmu):
    inst = started(instance, car_fmu)
    assert inst.get("car.mass") == pytest.approx(1093.29, abs=0.01)
    assert inst.get("car.wheelbase") == pytest.approx(2.5789, abs=1e-4)
    assert inst.get("car.speed") == pytest.approx(SPEED0, rel=1e-3)


@pytest.mark.parametrize("name, value", [
    ("car.steeringWheelAngle", math.nan),
    ("car.axle1.left.brakePressureFactor", math.inf),
    ("windSpeed", -math.inf),
    ("car.throttle", 1.5),
])
def test_bad_input_is_refused_and_named_in_the_log(instance, car_fmu, name, value):
    """fmi2SetReal takes the value; the next fmi2DoStep answers fmi2Error and names it."""
    inst = started(instance, car_fmu)
    drive(inst, 0.0, 2 * H)
    inst.set(name, value)                       # fmi2OK: inputs are checked by the step
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(2 * H, H)
    assert failed.value.status == fmi2Error
    errors = inst.messages(fmi2Error)
    assert errors and name in errors[-1] and repr(value) in errors[-1], inst.log
    assert any(status == fmi2Error and category == "logStatusError" and name in message
               for status, category, message in inst.log)
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(2 * H)
    # later steps are refused cleanly, even with a good input again
    inst.set(name, 0.0 if "throttle" in name or "wind" in name else 0.5)
    with pytest.raises(FMICallException) as again:
        inst.fmu.doStep(2 * H, H)
    assert again.value.status == fmi2Error
    assert "refused" in inst.messages(fmi2Error)[-1]
    # the host lives on, and a reset instance runs again
    inst.fmu.reset()
    inst.start(PARAMETERS)
    assert drive(inst, 0.0, 2 * H).shape[0] == 2


def test_value_reference_of_another_type_is_an_error_not_fatal(instance, car_fmu):
    inst = started(instance, car_fmu)
    gear, speed = inst.vr["car.gear"], inst.vr["car.speed"]
    with pytest.raises(FMICallException) as failed:
        inst.fmu.getReal([speed, gear])
    assert failed.value.status == fmi2Error
    with pytest.raises(FMICallException) as failed:
        inst.fmu.setReal([gear], [2.0])
    assert failed.value.status == fmi2Error
    assert inst.get("car.gear") == 0
    assert any(f"value reference {gear} is no Real variable" in m
               for m in inst.messages(fmi2Error)), inst.log
    drive(inst, 0.0, H)


def test_bad_parameter_fails_exit_initialization_and_is_named(instance, car_fmu):
    inst = instance(car_fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.speed0", math.inf)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.exitInitializationMode()
    assert failed.value.status == fmi2Error
    assert any("car.speed0" in m and "inf" in m for m in inst.messages(fmi2Error)), inst.log


def test_bad_parameter_is_named_and_steps_are_refused(instance, car_fmu):
    inst = instance(car_fmu)
    with pytest.raises(FMICallException):
        inst.start({"car.speed0": math.nan})
    assert any("car.speed0" in m and "nan" in m for m in inst.messages(fmi2Error)), inst.log
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(0.0, H)
    assert failed.value.status == fmi2Error


@pytest.mark.parametrize("output", ["car.speed", "car.mass"])
def test_reading_during_initialisation_with_a_bad_parameter_is_an_error_not_poison(
        instance, car_fmu, output):
    """fmi2Error naming the parameter, no NaN with fmi2OK; corrected, the instance runs."""
    inst = instance(car_fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.speed0", 1.0e9)                  # outside [-100, 100]
    with pytest.raises(FMICallException) as failed:
        inst.get_reals([output, "car.X"])
    assert failed.value.status == fmi2Error
    message = inst.messages(fmi2Error)[-1]
    assert "car.speed0" in message and "1000000000.0" in message and "100" in message
    assert output in message and "car.X" in message, inst.log
    inst.set("car.speed0", SPEED0)
    speed, mass = inst.get_reals(["car.speed", "car.mass"])
    assert speed == pytest.approx(SPEED0, rel=1e-3) and mass == pytest.approx(1093.29, abs=0.01)
    inst.fmu.exitInitializationMode()
    rows = drive(inst, 0.0, 2 * H)
    assert np.isfinite(rows).all()


def test_outputs_after_a_failed_initialisation_are_errors_not_nan(instance, car_fmu):
    inst = instance(car_fmu)
    with pytest.raises(FMICallException):
        inst.start({"car.speed0": math.inf})
    with pytest.raises(FMICallException) as failed:
        inst.get_reals(["car.speed"])
    assert failed.value.status == fmi2Error
    assert "car.speed0" in inst.messages(fmi2Error)[-1]


def test_step_that_does_not_continue_is_refused(instance, car_fmu):
    inst = started(instance, car_fmu)
    drive(inst, 0.0, H)
    with pytest.raises(FMICallException):
        inst.fmu.doStep(0.5, H)
    assert "does not continue" in inst.messages(fmi2Error)[-1]
    drive(inst, H, 2 * H)   # the right point is still accepted


def test_get_and_set_state_gives_bit_identical_outputs(instance, car_fmu):
    inst = started(instance, car_fmu)
    drive(inst, 0.0, 2.0)
    state = inst.fmu.getFMUstate()
    first = drive(inst, 2.0, 5.0)
    inst.fmu.setFMUstate(state)
    second = drive(inst, 2.0, 5.0)
    inst.fmu.freeFMUstate(state)
    assert np.isfinite(first).all()
    assert np.array_equal(first, second)
    assert abs(first[-1] - first[0]).max() > 0.0   # it did move


def test_serialized_state_restores_in_a_fresh_instance(instance, car_fmu):
    inst = started(instance, car_fmu, "original")
    drive(inst, 0.0, 2.0)
    state = inst.fmu.getFMUstate()
    blob = inst.fmu.serializeFMUstate(state)
    inst.fmu.freeFMUstate(state)
    first = drive(inst, 2.0, 5.0)

    fresh = instance(car_fmu, "fresh").start()          # default parameters: speed0 from the event
    restored = fresh.fmu.deSerializeFMUstate(blob)
    fresh.fmu.setFMUstate(restored)
    fresh.fmu.freeFMUstate(restored)
    assert fresh.get("car.speed0") == SPEED0
    second = drive(fresh, 2.0, 5.0)
    assert np.array_equal(first, second)


def test_reset_returns_to_the_fresh_state(instance, car_fmu):
    inst = started(instance, car_fmu)
    first = drive(inst, 0.0, 1.0)
    inst.fmu.reset()
    assert inst.get("car.speed0") == 0.0      # the event's value, not the one set before
    inst.start(PARAMETERS)
    second = drive(inst, 0.0, 1.0)
    assert np.array_equal(first, second)


def test_variable_communication_steps(instance, car_fmu):
    """Steps that are no multiple of the internal step change results only by integration error."""
    regular = started(instance, car_fmu, "regular")
    drive(regular, 0.0, 1.0)
    irregular = started(instance, car_fmu, "irregular")
    points = np.cumsum([0.0] + [0.0137, 0.0005, 0.031, 0.0021] * 20)
    points = np.append(points[points < 1.0], 1.0)
    for t, t_next in zip(points[:-1], points[1:]):
        irregular.set("car.gear", 4)
        irregular.set("car.throttle", 0.3)
        irregular.set("car.steeringWheelAngle", 0.5 * math.sin(math.pi * t))
        irregular.fmu.doStep(t, t_next - t)
    names = ["car.X", "car.Y", "car.speed", "car.yaw"]
    assert np.allclose(irregular.get_reals(names), regular.get_reals(names), rtol=1e-2, atol=1e-2)


def test_two_different_fmus_side_by_side(instance, car_fmu, truck_fmu):
    car = started(instance, car_fmu, "car")
    truck = started(instance, truck_fmu, "truck", {"truck.speed0": SPEED0})
    assert "truck.axle1.left.Fz" in truck.vr and "truck.axle1.left.Fz" not in car.vr
    a, b = [], []
    for n in range(100):   # interleaved, so any shared state would show
        a.append(drive(car, n * H, (n + 1) * H))
        b.append(drive(truck, n * H, (n + 1) * H, unit="truck"))
    assert np.array_equal(np.concatenate(a), np.concatenate(b))   # same vehicle, same inputs


def test_fmus_built_from_different_code_do_not_collide(tmp_path, instance, car_fmu, extracted):
    """A second FMU built from an edited copy of the sources bundles its own package."""
    src = tmp_path / "src"
    for package in ("engine", "model_description", "simon_fmu"):
        shutil.copytree(ROOT / package, src / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    with open(src / "model_description" / "__init__.py", "a") as fh:
        fh.write("\nEDITED_COPY = True\n")
    other = tmp_path / "Edited.fmu"
    env = dict(os.environ, PYTHONPATH=str(src))
    subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", str(other)],
                   check=True, cwd=src, env=env, capture_output=True)
    car = started(instance, car_fmu, "car")
    edited = started(instance, other, "edited")
    assert np.array_equal(drive(car, 0.0, 0.2), drive(edited, 0.0, 0.2))
    packages = {m.split(".")[0] for m in sys.modules if m.startswith("simon_")
                and not m.startswith("simon_slave_") and m != "simon_fmu"}
    assert len(packages) >= 2
    assert any(getattr(sys.modules[p + ".model_description"], "EDITED_COPY", False)
               for p in packages if p + ".model_description" in sys.modules)


def _rss_kib() -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))


def test_instantiate_simulate_free_100_times(extracted, car_fmu):
    from conftest import Instance
    folder, md = extracted(car_fmu)

    def cycle():
        inst = Instance(folder, md).start(PARAMETERS)
        drive(inst, 0.0, 10 * H)
        inst.free()
    for _ in range(5):     # warm up: imports, compiled code, allocator pools
        cycle()
    before = _rss_kib()
    for _ in range(100):
        cycle()
    growth = _rss_kib() - before
    assert growth < 20 * 1024, f"RSS grew {growth / 1024:.1f} MiB over 100 cycles"


@pytest.fixture(scope="module")
def stiff_limit_fmu(fmu_dir):
    """The car with front tires that may deflect only a little more than their static 18.5 mm,
    and the manual's stop there (simulation.tire_limit "stop")."""
    data = renamed_event("car")
    data["simulation"]["tire_limit"] = "stop"
    front = data["units"][0]["tires"]["front"]
    front.update(max_deflection=0.021, secondary_stiffness_deflection=0.020)
    event_file = fmu_dir / "limit.json"
    event_file.write_text(json.dumps(data))
    return build(event_file, fmu_dir / "Limit.fmu")


def test_engine_failure_is_logged_and_later_steps_refused(instance, stiff_limit_fmu):
    inst = started(instance, stiff_limit_fmu)
    inst.set("car.brakePedalForce", 400.0)     # hard braking loads the front tires
    t = 0.0
    with pytest.raises(FMICallException):
        for n in range(300):
            t = n * H
            inst.fmu.doStep(t, H)
    last = inst.fmu.getRealStatus(fmi2LastSuccessfulTime)
    assert 0.0 < last <= t + 1e-12
    errors = inst.messages(fmi2Error)
    assert errors and "simulation stopped" in errors[-1], inst.log
    assert "deflection" in errors[-1].lower()
    with pytest.raises(FMICallException):
        inst.fmu.doStep(t, H)
    assert "refused" in inst.messages(fmi2Error)[-1]
