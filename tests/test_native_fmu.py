"""The native FMU (docs/native.md): the engine's kernels compiled ahead of time, an FMI 2.0
runtime in C, no Python at run time. Same model description and the same results as the
development FMU, a binary that needs only the C and math libraries."""
from __future__ import annotations

import ctypes
import json
import math
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from support import fmus

ROOT = Path(__file__).resolve().parents[1]
#: the default sedan, started at speed for the lane change (a native FMU's set-up runs at
#: build time, so the initial speed is the event's, not a parameter set at run time)
SPEED = 20.0


@pytest.fixture(scope="module")
def sedan_event(tmp_path_factory) -> Path:
    import engine
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["initial"]["speed"] = SPEED
    path = tmp_path_factory.mktemp("native-event") / "sedan-at-speed.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def native_fmu(sedan_event, tmp_path_factory) -> Path:
    return fmus.native(sedan_event, tmp_path_factory.mktemp("native") / "SimonCar.fmu")


@pytest.fixture(scope="module")
def development_fmu(sedan_event, tmp_path_factory) -> Path:
    return fmus.vehicle(sedan_event, tmp_path_factory.mktemp("development") / "SimonCar.fmu")


def _steps():
    """Communication steps: 10 ms, then some that leave a remainder of the 1 ms grid."""
    return [0.01] * 100 + [0.0037] * 30 + [0.01] * 189


def _steer(t: float) -> float:
    """A single sine of the steering wheel (rad) from 1 s to 3 s: a lane change."""
    return 1.2 * math.sin(math.pi * (t - 1.0)) if 1.0 <= t <= 3.0 else 0.0


def _run(inst) -> list[list]:
    md = inst.md
    reals = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    bools = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Boolean"]
    vr_r = [inst.vr[n] for n in reals]
    vr_b = [inst.vr[n] for n in bools]
    inst.start()
    inst.set("car.gear", 4)
    inst.set("car.throttle", 0.2)
    rows, t = [], 0.0

    def row():
        return [t] + list(inst.fmu.getReal(vr_r)) + [float(b) for b in inst.fmu.getBoolean(vr_b)]
    rows.append(row())
    for h in _steps():
        inst.set("car.steeringWheelAngle", _steer(t))
        inst.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        t += h
        rows.append(row())
    return rows


def test_native_fmu_matches_the_development_fmu(native_fmu, development_fmu, instance):
    native = _run(instance(native_fmu, name="native"))
    development = _run(instance(development_fmu, name="development"))
    assert len(native) == len(development)
    worst = 0.0
    for a, b in zip(native, development):
        for x, y in zip(a, b):
            assert math.isfinite(x) == math.isfinite(y)
            worst = max(worst, abs(x - y) / max(1.0, abs(y)))
    print(f"native vs development FMU: {len(native)} communication points x {len(native[0]) - 1} "
          f"outputs, largest relative difference {worst:.3g}, identical: {native == development}")
    # the vehicle did turn: a lane change at speed
    assert max(abs(r[2]) for r in native) > 0.5   # car.Y (the second output), m
    assert worst <= 1e-9, f"largest relative difference {worst:.3g}"


def _levels_log(fmu, extracted, name: str) -> tuple:
    """(an Instance, or None where fmi2Instantiate answered NULL, and the messages it logged)."""
    from conftest import Instance
    inst = Instance.__new__(Instance)
    try:
        Instance.__init__(inst, *extracted(fmu), name=name)
    except Exception:       # fmpy: fmi2Instantiate answered NULL
        return None, inst.messages()
    return inst, inst.messages()


def test_every_instruction_set_level_gives_the_same_results(native_fmu, extracted, monkeypatch):
    """The x86-64 binary carries the kernels once per level (simon_fmu/native/targets.py,
    X86_64_LEVELS) and runs the widest one this processor runs, which it logs. Forced to each
    level this processor runs (SIMON_NATIVE_ISA), the lane change's outputs are the same, bit
    for bit, at every communication point; a level the binary does not have is refused by
    fmi2Instantiate with the variable and the levels it accepts."""
    from simon_fmu.native.targets import X86_64_LEVELS
    names = [level.name for level in X86_64_LEVELS]
    monkeypatch.delenv("SIMON_NATIVE_ISA", raising=False)
    inst, log = _levels_log(native_fmu, extracted, "widest")
    chosen = [m.rsplit(" ", 1)[1] for m in log if m.startswith("kernels at instruction-set level")]
    assert len(chosen) == 1 and chosen[0] in names, log
    from simon_fmu.native.targets import levels_run_here
    assert chosen[0] == levels_run_here()[-1]      # the widest this processor runs
    reference = _run(inst)
    inst.free()
    ran = []
    for name in names:
        monkeypatch.setenv("SIMON_NATIVE_ISA", name)
        inst, log = _levels_log(native_fmu, extracted, name)
        if inst is None:        # a level beyond this processor: refused, never run
            assert log == [f"fmi2Instantiate: SIMON_NATIVE_ISA={name}: this processor does not "
                           "run that level"], log
            assert names.index(name) > names.index(chosen[0])
            continue
        rows = _run(inst)
        inst.free()
        assert rows == reference, f"level {name} differs from {chosen[0]}"
        ran.append(name)
    print(f"levels run here: {ran}; the widest, {chosen[0]}, is the default")
    assert ran[0] == "x86-64" and ran[-1] == chosen[0]
    monkeypatch.setenv("SIMON_NATIVE_ISA", "avx512")
    inst, log = _levels_log(native_fmu, extracted, "unknown")
    assert inst is None
    assert log == ["fmi2Instantiate: SIMON_NATIVE_ISA=avx512: not a level of this binary; it "
                   "accepts " + ", ".join(names)], log


@pytest.fixture(scope="module")
def two_speed_event(tmp_path_factory) -> Path:
    """The sedan at speed with a two-speed axle: differential gears 1 (3.46) and 2 (2.54)."""
    import engine
    data = json.loads(engine.load_event().to_json())
    dt = data["units"][0]["drivetrain"]
    dt["differential_ratios"] = [dt.pop("differential_ratio"), 2.54]
    data["units"][0]["initial"]["speed"] = SPEED
    path = tmp_path_factory.mktemp("native-two-speed") / "sedan-two-speed.json"
    path.write_text(json.dumps(data))
    return path


def _run_two_speed(inst) -> list[list]:
    """Started in fourth gear and differential gear 2 (the clutch locked at the engine speed of
    those gears at the first step), shifted to differential gear 1 at 1 s."""
    reals = [v.name for v in inst.md.modelVariables if v.causality == "output" and v.type == "Real"]
    vrs = [inst.vr[n] for n in reals]
    inst.start()
    inst.set("car.gear", 4)
    inst.set("car.differentialGear", 2)
    inst.set("car.throttle", 0.3)
    rows, t = [], 0.0
    for k in range(200):
        if k == 100:
            inst.set("car.differentialGear", 1)
        inst.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=0.01)
        t += 0.01
        rows.append([t] + list(inst.fmu.getReal(vrs)))
    return rows


def _compare_and_refuse(event, tmp_path_factory, instance, run, what, name, value, accepts):
    """Build the native and the development FMU of ``event``, run both with ``run`` and check
    they agree within 1e-9; then the input ``name`` set to ``value`` is refused by the native
    FMU with ``accepts`` (its range's text)."""
    slug = what.replace(" ", "-")
    native = fmus.native(event, tmp_path_factory.mktemp("native-" + slug) / "SimonCar.fmu")
    development = fmus.vehicle(event, tmp_path_factory.mktemp("dev-" + slug) / "SimonCar.fmu")
    a = run(instance(native, name="native"))
    b = run(instance(development, name="development"))
    worst = max(abs(x - y) / max(1.0, abs(y)) for ra, rb in zip(a, b) for x, y in zip(ra, rb))
    print(f"{what}, native vs development FMU: largest relative difference {worst:.3g}")
    assert worst <= 1e-9
    inst = instance(native, name="refused")
    inst.start()
    inst.set(name, value)
    with pytest.raises(Exception):
        inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    assert any(f"input {name} = {float(value)} rejected: it accepts a value in {accepts}" in m
               for m in inst.messages()), inst.messages()


def test_native_two_speed_axle_matches_the_development_fmu(two_speed_event, tmp_path_factory, instance):
    """The input differentialGear has its native slot: its range, the clutch engaged at the
    start for the differential gear the run starts in, and the shift in a run give the
    development FMU's results; a differential gear outside the table is refused naming it."""
    _compare_and_refuse(two_speed_event, tmp_path_factory, instance, _run_two_speed, "two-speed axle",
                        "car.differentialGear", 3, "1 .. 2")


@pytest.fixture(scope="module")
def at_axle_event(tmp_path_factory) -> Path:
    """The sedan at speed with both axles steered At Axle (each wheel's angle an input)."""
    import engine
    data = json.loads(engine.load_event().to_json())
    unit = data["units"][0]
    unit["axles"][1]["steered"] = True
    unit["steering"]["input"] = "at_axle"
    unit["initial"]["speed"] = SPEED
    path = tmp_path_factory.mktemp("native-at-axle") / "sedan-at-axle.json"
    path.write_text(json.dumps(data))
    return path


def _run_at_axle(inst) -> list[list]:
    """A lane change of the four road-wheel angles, each its own (rear in opposite phase, left
    and right apart)."""
    reals = [v.name for v in inst.md.modelVariables if v.causality == "output" and v.type == "Real"]
    vrs = [inst.vr[n] for n in reals]
    gains = {"car.axle1.left": 0.02, "car.axle1.right": 0.018, "car.axle2.left": -0.006,
             "car.axle2.right": -0.004}
    inst.start()
    inst.set("car.gear", 4)
    inst.set("car.throttle", 0.2)
    rows, t = [], 0.0
    for _ in range(200):
        for w, g in gains.items():
            inst.set(f"{w}.steerAngle", g * _steer(t + 1.0) / 1.2)
        inst.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=0.01)
        t += 0.01
        rows.append([t] + list(inst.fmu.getReal(vrs)))
    return rows


def test_native_at_axle_steering_matches_the_development_fmu(at_axle_event, tmp_path_factory, instance):
    """The wheel inputs steerAngle have their native slots: a run steered At Axle gives the
    development FMU's results; an angle outside -1.5 .. 1.5 is refused naming it."""
    _compare_and_refuse(at_axle_event, tmp_path_factory, instance, _run_at_axle, "At Axle steering",
                        "car.axle2.right.steerAngle", 2.0, "-1.5 .. 1.5")


def test_native_binary_needs_only_libc_and_libm(native_fmu, tmp_path):
    with zipfile.ZipFile(native_fmu) as z:
        names = z.namelist()
        lib = tmp_path / "SimonCar.so"
        lib.write_bytes(z.read("binaries/linux64/SimonCar.so"))
    assert "resources/native.bin" in names
    dynamic = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True,
                             check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
    assert needed and needed <= {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"}, needed
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(lib)], capture_output=True,
                               text=True, check=True).stdout
    assert not re.search(r"\b(Py\w+|numba_\w+|NRT_\w+)", undefined), undefined


def test_model_description_is_the_development_fmus(native_fmu, development_fmu):
    def xml(fmu):
        with zipfile.ZipFile(fmu) as z:
            text = z.read("modelDescription.xml").decode()
        return re.sub(r'generationDateAndTime="[^"]*"', "", text)
    assert xml(native_fmu) == xml(development_fmu)


def _run_with(inst, parameters: dict) -> tuple:
    """Set ``parameters`` during initialisation, then the lane change of :func:`_run` for 1.5 s:
    (exitInitializationMode's status, the messages, the rows of outputs)."""
    reals = [v.name for v in inst.md.modelVariables if v.causality == "output" and v.type == "Real"]
    vrs = [inst.vr[n] for n in reals]
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    for name, value in parameters.items():
        inst.set(name, value)
    try:
        status = inst.fmu.exitInitializationMode()
    except Exception as exc:  # noqa: BLE001 - fmpy raises on fmi2Error
        return f"error: {exc}", inst.messages(), []
    inst.set("car.gear", 4)
    rows, t = [list(inst.fmu.getReal(vrs))], 0.0
    for _ in range(150):
        inst.set("car.steeringWheelAngle", _steer(t + 1.0))
        inst.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=0.01)
        t += 0.01
        rows.append(list(inst.fmu.getReal(vrs)))
    return status, inst.messages(), rows


#: parameters set at initialisation: the native FMU applies the set-up's operations for them
#: (simon_fmu/native/tuning.py) and checks the step at the new initial state with the step-size
#: kernel; measured: every output identical to the development FMU's at every point
TUNED = [
    {"car.speed0": 27.5, "frictionMultiplier": 0.75},
    {"car.speed0": 12.0, "stepSize": 0.0005, "car.X0": -40.0, "car.Y0": 3.5, "car.yaw0": 0.4},
    {"car.yawRate0": 0.15, "car.lateralSpeed0": -0.4, "car.rollRate0": 0.05,
     "car.steeringMode": 2, "stepSize": 0.002},
    # a launch: the dolly rollover's (23 degrees of roll, 48 km/h sideways), and a turned pitch
    # with roll and yaw; each placed on its lowest point by the set-up's kernel
    {"car.speed0": 0.0, "car.roll0": 0.4014257279586958, "car.lateralSpeed0": 13.333333333333334,
     "car.rollRate0": 3.0},
    {"car.speed0": 10.0, "car.pitch0": -0.3, "car.roll0": 0.1, "car.yaw0": 0.7},
    # sub-steps (the first steps from a start at speed are split, tests/test_substeps.py)
    {"car.speed0": 25.0, "substeps": 16},
    # Heun's method (tests/test_native_events.py: the same outputs as an event built with it)
    {"car.speed0": 25.0, "integrator": 2, "stepSize": 0.0014},
]


@pytest.mark.parametrize("parameters", TUNED, ids=["speed-friction", "place-step", "motion-mode",
                                                   "dolly-launch", "pitch-launch", "substeps",
                                                   "heun"])
def test_parameters_set_at_initialisation(native_fmu, development_fmu, instance, parameters):
    native = _run_with(instance(native_fmu, name="native"), parameters)
    development = _run_with(instance(development_fmu, name="development"), parameters)
    assert native[0] == development[0] == 0          # fmi2OK
    assert native[2] == development[2]
    speed0 = parameters.get("car.speed0", SPEED)
    vx = [v.name for v in instance(native_fmu).md.modelVariables
          if v.causality == "output" and v.type == "Real"].index("car.u")
    assert native[2][0][vx] == pytest.approx(speed0, rel=1e-12)


@pytest.mark.parametrize("parameters, message", [
    ({"car.speed0": 250.0},
     "parameter car.speed0 = 250.0 rejected: it accepts a finite value in [-100.0, 100.0]"),
    ({"car.steeringMode": 9},
     "parameter car.steeringMode = 9 rejected: it accepts one of 1 (Off)"),
    ({"car.speed0": 75.0}, "car.speed0 = 75 m/s (270 km/h) is above the plausible"),
    ({"substeps": 65}, "parameter substeps = 65 rejected: it accepts a whole number in [1, 64]"),
    ({"integrator": 3}, "parameter integrator = 3 rejected: it accepts one of 1 (RK4), 2 (RK2)"),
    # the step's range follows the method (engine.simulation.step_range_problem)
    ({"integrator": 2, "stepSize": 0.0017}, "the parameters are not accepted: stepSize: a step "
     "1e-06 <= h <= 0.0014 s (got 0.0017) with integrator 'rk2'"),
    # every one refused is named, in the variables' order (only the first was)
    ({"stepSize": math.nan, "car.speed0": math.nan, "car.steeringMode": 9},
     "parameter stepSize = nan rejected: it accepts a finite value in [1e-06, 0.002]; "
     "parameter car.speed0 = nan rejected: it accepts a finite value in [-100.0, 100.0]; "
     "parameter car.steeringMode = 9 rejected: it accepts one of 1 (Off)"),
])
def test_parameters_refused_as_the_development_fmu_refuses_them(native_fmu, development_fmu,
                                                                instance, parameters, message):
    native = _run_with(instance(native_fmu, name="native"), parameters)
    development = _run_with(instance(development_fmu, name="development"), parameters)
    said = [m for m in native[1] if message in m]
    assert said, native[1]
    assert said == [m for m in development[1] if message in m]
    assert (native[0] == development[0]) or (str(native[0]).startswith("error")
                                             and str(development[0]).startswith("error"))


@pytest.fixture(scope="module")
def stiff_fmus(tmp_path_factory) -> tuple:
    """The sedan with a front spring of 1e9 N/m (a wheel-hop mode near 6000 rad/s, stable up to
    about 0.46 ms) at an internal step of 0.1 ms: its native and its development FMU."""
    import engine
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["axles"][0]["suspension"]["spring_rate"] = 1.0e9
    data["simulation"]["step_size"] = 1.0e-4
    folder = tmp_path_factory.mktemp("native-stiff")
    event = folder / "stiff.json"
    event.write_text(json.dumps(data))
    return (fmus.native(event, folder / "native.fmu", platforms="linux64"),
            fmus.vehicle(event, folder / "development.fmu"))


@pytest.mark.parametrize("parameters", [{"stepSize": 0.001},
                                        {"stepSize": 0.001, "car.speed0": 15.0}],
                         ids=["the-builds-limit", "the-kernels-limit"])
def test_a_step_beyond_the_stiffest_mode_is_refused(stiff_fmus, instance, parameters):
    """Only the step changed: the build's limit; the initial state changed too: the step-size
    kernel's, at the new state. The same message as the development FMU's."""
    native = _run_with(instance(stiff_fmus[0], name="native"), parameters)
    development = _run_with(instance(stiff_fmus[1], name="development"), parameters)
    said = [m for m in native[1] if "the parameters are not accepted: stepSize: a step <=" in m]
    assert len(said) == 1 and "car.axle1" in said[0], native[1]
    assert said == [m for m in development[1] if m in said]
    assert str(native[0]).startswith("error") and str(development[0]).startswith("error")


def test_fmu_state_and_refused_input(native_fmu, instance):
    inst = instance(native_fmu, name="state")
    inst.start()
    inst.set("car.steeringWheelAngle", 0.5)
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.5)
    state = inst.fmu.getFMUstate()
    blob = inst.fmu.serializeFMUstate(state)
    inst.fmu.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.5)
    first = inst.get_reals(["car.Y", "car.r"])
    inst.fmu.setFMUstate(inst.fmu.deSerializeFMUstate(blob))
    inst.fmu.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.5)
    assert inst.get_reals(["car.Y", "car.r"]) == first
    inst.fmu.freeFMUstate(state)
    inst.set("car.throttle", math.nan)
    with pytest.raises(Exception):
        inst.fmu.doStep(currentCommunicationPoint=1.0, communicationStepSize=0.01)
    assert any("input car.throttle = nan rejected: it accepts a finite number" in m
               for m in inst.messages())
    # fmi2Reset: the instance starts over from the build's state, and runs as the first time
    inst.fmu.reset()
    inst.start()
    inst.set("car.steeringWheelAngle", 0.5)
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.5)
    inst.fmu.doStep(currentCommunicationPoint=0.5, communicationStepSize=0.5)
    assert inst.get_reals(["car.Y", "car.r"]) == first


def test_do_step_allocates_nothing_and_makes_no_system_call(native_fmu, tmp_path):
    """A C host (tests/c_host/native_rt.c) steps the FMU at 1 ms: no malloc-family call and,
    under strace, no system call between the first and the last of 2000 doSteps."""
    import shutil
    from fmpy import extract, read_model_description
    from simon_fmu.runtime.fmi2_library import fmi2_headers
    host = tmp_path / "native_rt"
    subprocess.run(["gcc", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(ROOT / "tests" / "c_host" / "native_rt.c"),
                    "-o", str(host), "-ldl", "-lm"], check=True)
    folder = tmp_path / "fmu"
    extract(str(native_fmu), str(folder))
    md = read_model_description(str(folder))
    steer = next(v.valueReference for v in md.modelVariables
                 if v.name == "car.steeringWheelAngle")
    args = [str(folder), md.coSimulation.modelIdentifier, md.guid, "0.001"]
    run = subprocess.run([str(host), *args, "10000", str(steer)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    print(f"native doStep at 1 ms, C host: {run.stdout.strip()}")
    assert "allocations=0 " in run.stdout
    if shutil.which("strace") is None:
        pytest.skip("no strace")
    trace = tmp_path / "trace.txt"
    run = subprocess.run(["strace", "-o", str(trace), str(host), *args, "2000", str(steer)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = trace.read_text().splitlines()
    begin = next(i for i, s in enumerate(lines) if "<<native-rt:begin>>" in s)
    end = next(i for i, s in enumerate(lines) if "<<native-rt:end>>" in s)
    assert lines[begin + 1:end] == []


def test_a_study_runs_on_the_native_fmu(native_fmu, development_fmu, tmp_path):
    """A study (straight-brake) runs on the native FMU and writes its whole report, the
    exteriors read from the native FMU's state (docs/native.md, "FMU state") among it: the
    development FMU's study writes the same metrics and the same exteriors.obj."""
    from simon_fmu.studies.study import REPORT_FILES, run_study
    settings = {"speed0": 10.0, "duration": 2.0}
    result = run_study("straight-brake", native_fmu, settings, tmp_path / "native")
    assert result["metrics"]["stoppingDistance"] > 0.0
    written = sorted(p.name for p in (tmp_path / "native").iterdir())
    assert written == sorted(REPORT_FILES)
    assert not any("exteriors" in n for n in result["notes"]), result["notes"]
    reference = run_study("straight-brake", development_fmu, settings, tmp_path / "development")
    assert result["metrics"] == reference["metrics"]
    obj = (tmp_path / "native" / "exteriors.obj").read_text()
    assert obj == (tmp_path / "development" / "exteriors.obj").read_text()
    assert "\no car\n" in obj


# ----------------------------------------------------------------- misuse by the host

def _raw(inst, name, *args) -> int:
    """The status of the FMI function ``name`` (fmpy raises on one above fmi2Warning)."""
    from fmpy.fmi1 import FMICallException
    try:
        return getattr(inst.fmu, name)(inst.fmu.component, *args)
    except FMICallException as exc:
        return exc.status


def _misuse_run(inst) -> tuple[list, list]:
    """Calls out of order and a step past the stop time, each refused: (statuses, car.X after
    each), and the warnings and error messages."""
    statuses, xs = [], []

    def call(name, *args):
        statuses.append(_raw(inst, name, *args))
        xs.append(inst.get("car.X") if inst.fmu.component else None)
    call("fmi2ExitInitializationMode")                 # before fmi2EnterInitializationMode
    call("fmi2DoStep", 0.0, 0.02, 1)                   # before initialisation
    call("fmi2SetupExperiment", 0, 0.0, 0.0, 1, 0.05)  # stop time 0.05 s
    call("fmi2EnterInitializationMode")
    call("fmi2ExitInitializationMode")
    call("fmi2DoStep", 0.0, 0.02, 1)
    inst.set("car.X", 1.0)                             # an output: a warning
    call("fmi2ExitInitializationMode")                 # once put the car back to its start
    call("fmi2EnterInitializationMode")
    call("fmi2SetupExperiment", 0, 0.0, 0.0, 0, 0.0)
    call("fmi2DoStep", 0.02, 0.02, 1)                  # the run goes on where it was
    call("fmi2DoStep", 0.04, 0.02, 1)                  # beyond the stop time
    call("fmi2Terminate")
    call("fmi2DoStep", 0.04, 0.01, 1)
    call("fmi2Terminate")
    return list(zip(statuses, xs)), inst.messages(1)


def test_calls_out_of_order_and_past_the_stop_time_are_refused_as_the_development_fmu_does(
        native_fmu, development_fmu, instance):
    """The FMI 2.0 state machine of the development FMU's library, with its messages: a call
    out of order, or a step past the stop time, is fmi2Error and leaves the run as it was (a
    second fmi2ExitInitializationMode in the middle of a run used to put the car back to its
    start under fmi2OK, and the stop time was not kept)."""
    native, native_errors = _misuse_run(instance(native_fmu, name="native"))
    dev, dev_errors = _misuse_run(instance(development_fmu, name="development"))
    assert [s for s, _ in native] == [3, 3, 0, 0, 0, 0, 3, 3, 3, 0, 3, 0, 3, 3]
    assert native == dev
    assert native_errors == dev_errors
    assert native[6][1] == native[5][1] > 0.0            # X where the step left it
    assert any("ends beyond the stop time" in m for m in native_errors)


def test_a_c_host_survives_double_free_and_calls_on_freed_instances(native_fmu, development_fmu,
                                                                   extracted, tmp_path):
    """tests/c_host/misuse.c on the native FMU: wrong GUIDs and another FMU's resources give
    NULL; a second fmi2FreeInstance and calls on the freed instance answer fmi2Error without
    touching its memory (they used to crash the host)."""
    from importers.c_host import fmi2_headers
    host = tmp_path / "misuse"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(ROOT / "tests" / "c_host" / "misuse.c"), "-o",
                    str(host), "-ldl"], check=True)
    folder, md = extracted(native_fmu)
    other, _ = extracted(development_fmu)
    done = subprocess.run([str(host), str(folder), md.coSimulation.modelIdentifier, md.guid,
                           str(other / "resources")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    out = done.stdout.splitlines()
    assert out[-1] == "survived"
    lines = dict(line.split(" ", 1) for line in out[:-1])
    assert lines["null-guid"] == lines["wrong-guid"] == lines["other-resources"] == "NULL"
    for name in ("setup", "enter", "exit", "step", "terminate"):
        assert lines[name] == "0", name
    assert lines["step-after-terminate"] == lines["terminate-again"] == "3"
    freed = [k for k in lines if k.startswith(("freed-", "never-"))]
    assert len(freed) == 11
    assert all(lines[k] == "3" for k in freed if k != "freed-twice"), lines
    assert "fmi2DoStep: component" in done.stderr and "no live instance" in done.stderr


def test_states_of_another_instance_freed_or_damaged_are_refused_and_harm_nothing(
        native_fmu, instance):
    """An FMU state is the instance's own, live and undamaged (a checksum over it), or
    fmi2SetFMUstate and fmi2DeSerializeFMUstate refuse it and the run goes on as it was: a
    pointer that is no state used to crash the host, a damaged state to be taken."""
    import ctypes
    import struct

    from simon_fmu.native.resources import _STATE_HEADER
    a, b = instance(native_fmu, name="a").start(), instance(native_fmu, name="b").start()
    for inst in (a, b):
        inst.set("car.steeringWheelAngle", 0.5)
        inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.2)
    state = a.fmu.getFMUstate()

    def said(text):     # (fmpy's logger proxy may hand one instance's messages to the other)
        return any(text in m for m in a.messages(3) + b.messages(3))
    assert _raw(b, "fmi2SetFMUstate", state) == 3
    assert said("fmi2SetFMUstate: 0x")
    assert said("is no FMU state of this instance (freed already, never made, or made by "
                "another instance)")
    assert _raw(a, "fmi2SetFMUstate", ctypes.c_void_p(0x3039)) == 3
    assert said("0x3039 is no FMU state of this instance")
    blob = a.fmu.serializeFMUstate(state)
    damaged = bytearray(blob)
    damaged[_STATE_HEADER.size:_STATE_HEADER.size + 8] = struct.pack("=d", 1e200)  # car.X
    with pytest.raises(Exception):
        a.fmu.deSerializeFMUstate(bytes(damaged))
    assert said("fmi2DeSerializeFMUstate: the state's checksum does not match its contents "
                "(damaged)")
    address = state.value
    a.fmu.freeFMUstate(state)
    assert _raw(a, "fmi2SetFMUstate", ctypes.c_void_p(address)) == 3      # freed
    for inst in (a, b):
        inst.fmu.doStep(currentCommunicationPoint=0.2, communicationStepSize=0.2)
    assert a.get_reals(["car.X", "car.Y", "car.r"]) == b.get_reals(["car.X", "car.Y", "car.r"])
    a.fmu.setFMUstate(a.fmu.deSerializeFMUstate(blob))          # the undamaged bytes
    assert a.get("car.X") < b.get("car.X")


def _category_run(inst) -> list:
    """A warning (setting an output) and a message of logAll (the start) with logging off, then
    with one category on, then with an unknown one: the messages that reached the logger."""
    inst.start()
    inst.set("car.X", 1.0)
    seen = [list(inst.log)]
    inst.fmu.setDebugLogging(True, ["logStatusWarning"])
    inst.set("car.X", 1.0)
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    seen.append(list(inst.log))
    assert _raw(inst, "fmi2SetDebugLogging", True, 1, (ctypes.c_char_p * 1)(b"logNothing")) == 3
    inst.fmu.setDebugLogging(False, [])
    inst.set("car.X", 1.0)
    seen.append(list(inst.log))
    return seen


def test_log_categories_are_kept_as_the_development_fmu_keeps_them(native_fmu, development_fmu,
                                                                   instance):
    """With logging off only errors reach the logger (the native FMU passed its warnings too);
    fmi2SetDebugLogging switches the modelDescription's categories one by one and refuses one
    it does not have, with the development FMU's messages."""
    native = _category_run(instance(native_fmu, name="native", logging_on=False))
    dev = _category_run(instance(development_fmu, name="development", logging_on=False))
    assert native == dev
    assert native[0] == []
    assert native[1] == [(1, "logStatusWarning",
                          "car.X is an output and cannot be set; ignored")]
    assert native[2][-1] == (3, "logStatusError",
                             "fmi2SetDebugLogging: logNothing is no log category of this FMU")


def _failed_start(inst) -> tuple[list, list]:
    """A parameter refused at the end of initialisation, then what a host may try: statuses and
    the warnings and errors logged."""
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.speed0", 250.0)
    statuses = [_raw(inst, "fmi2ExitInitializationMode"), _raw(inst, "fmi2DoStep", 0.0, 0.01, 1)]
    inst.set("car.speed0", 20.0)                      # too late: the instance failed
    statuses += [_raw(inst, "fmi2ExitInitializationMode"), _raw(inst, "fmi2Terminate"),
                 _raw(inst, "fmi2Reset")]
    inst.start()                                      # reset starts again
    statuses.append(_raw(inst, "fmi2DoStep", 0.0, 0.01, 1))
    return statuses, inst.messages(1)


def test_a_failed_initialisation_is_kept_as_the_development_fmu_keeps_it(
        native_fmu, development_fmu, instance):
    """After fmi2ExitInitializationMode refused a parameter, both FMUs stay in initialisation
    mode, refuse a step, a second end of initialisation (saying why: it used to answer
    fmi2Error silently in the development FMU) and fmi2Terminate, and run again after
    fmi2Reset; with the same messages."""
    native = _failed_start(instance(native_fmu, name="native"))
    dev = _failed_start(instance(development_fmu, name="development"))
    assert native == dev
    assert native[0] == [3, 3, 3, 3, 0, 0]
    assert any("fmi2ExitInitializationMode refused: the instance failed earlier (parameter "
               "car.speed0 = 250.0 rejected" in m for m in native[1])


def _read_during_initialisation(inst) -> tuple[list, list]:
    """Outputs read in initialisation mode before and after parameters are set, with a refused
    one, then after the end of initialisation; and the errors logged."""
    from fmpy.fmi1 import FMICallException
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    names = ["car.u", "car.X", "car.Z", "car.r"]
    seen = [inst.get_reals(names)]
    inst.set("car.speed0", 27.5)
    inst.set("car.X0", -3.0)
    inst.set("car.yawRate0", 0.1)
    seen.append(inst.get_reals(names))
    inst.set("car.speed0", 250.0)
    with pytest.raises(FMICallException):
        inst.get_reals(names + ["car.speed0"])
    inst.set("car.speed0", 27.5)
    inst.fmu.exitInitializationMode()
    seen.append(inst.get_reals(names))
    return seen, inst.messages(3)


def test_outputs_read_during_initialisation_follow_the_parameters_set_so_far(
        native_fmu, development_fmu, instance):
    """A host that reads the outputs in initialisation mode (Simulink takes its initial
    outputs there) sees the start with the parameters set so far, as in the development FMU,
    and a parameter that is not accepted makes them unreadable, saying why (the native FMU
    answered the build's start)."""
    native = _read_during_initialisation(instance(native_fmu, name="native"))
    dev = _read_during_initialisation(instance(development_fmu, name="development"))
    assert native == dev
    assert native[0][1][:2] == [27.5, -3.0] == native[0][2][:2]
    assert native[1] == ["fmi2GetReal: car.u, car.X, car.Z, car.r cannot be read: parameter "
                         "car.speed0 = 250.0 rejected: it accepts a finite value in "
                         "[-100.0, 100.0]"]


def _statuses(inst) -> list:
    """Each status function for each kind after a step of 3.7 ms and a refused one."""
    from fmpy.fmi2 import fmi2Boolean, fmi2Integer, fmi2Real, fmi2Status, fmi2String
    inst.start()
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.0037)
    _raw(inst, "fmi2DoStep", 0.5, 0.01, 1)                   # refused: not the last point
    seen = []
    for function, kind in (("fmi2GetStatus", fmi2Status), ("fmi2GetRealStatus", fmi2Real),
                           ("fmi2GetIntegerStatus", fmi2Integer),
                           ("fmi2GetBooleanStatus", fmi2Boolean),
                           ("fmi2GetStringStatus", fmi2String)):
        for s in range(5):
            value = kind()
            seen.append((function, s, _raw(inst, function, s, ctypes.byref(value)),
                         value.value))
    return seen


def test_status_functions_answer_as_the_development_fmu(native_fmu, development_fmu, instance):
    """fmi2DoStepStatus, the last step's end as fmi2LastSuccessfulTime (the communication point,
    not the engine's clock), fmi2Terminated, and fmi2Discard for a status this FMU does not have
    (the native FMU answered fmi2Error and logged it)."""
    native = _statuses(instance(native_fmu, name="native"))
    dev = _statuses(instance(development_fmu, name="development"))
    assert native == dev
    assert ("fmi2GetRealStatus", 2, 0, 0.0037) in native


def _restore_failed(inst) -> tuple[list, list]:
    """A state taken after a step refused an input, restored after fmi2Terminate: statuses,
    the gear read back, and the errors logged."""
    inst.start()
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    inst.set("car.gear", 2147483647)
    statuses = [_raw(inst, "fmi2DoStep", 0.01, 0.01, 1)]
    state = inst.fmu.getFMUstate()
    statuses += [_raw(inst, "fmi2Terminate"), _raw(inst, "fmi2SetFMUstate", state),
                 _raw(inst, "fmi2DoStep", 0.01, 0.01, 1)]
    gear = inst.get("car.gear")
    inst.fmu.freeFMUstate(state)
    return statuses + [gear], inst.messages(3)


def test_a_failed_instances_state_restores_alike_in_both_fmus(native_fmu, development_fmu,
                                                               instance):
    """The state of an instance that refused an input keeps that input and the failure: both
    FMUs restore it, and refuse its steps until a reset (the development FMU refused the
    restore with a Python traceback for a message)."""
    native = _restore_failed(instance(native_fmu, name="native"))
    dev = _restore_failed(instance(development_fmu, name="development"))
    assert native == dev
    assert native[0] == [3, 0, 0, 3, 2147483647]
    assert not any("Traceback" in m for m in dev[1])
