"""simon-fmu's own FMI 2.0 library (simon_fmu/runtime/native/): statuses, exceptions, logging, state,
the C host, and the vehicle and driver FMUs' answers to bad inputs."""
from __future__ import annotations

import ctypes
import math
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (fmi2Discard, fmi2Error, fmi2LastSuccessfulTime, fmi2OK, fmi2Terminated,
                       fmi2Warning)

from conftest import ROOT
from simon_fmu.runtime.fmi2_library import RECORD_FILE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from importers.c_host import build_host  # noqa: E402


def started(instance, fmu, fault=0, name="instance", logging_on=True):
    inst = instance(fmu, name, logging_on=logging_on)
    inst.start({"fault": fault})
    return inst


def test_the_fmu_carries_both_parts_and_the_python_record(faulty_fmu):
    with zipfile.ZipFile(faulty_fmu) as z:
        names = set(z.namelist())
        record = z.read(f"resources/{RECORD_FILE}").decode()
    assert {"binaries/linux64/Faulty.so", "binaries/linux64/Faulty_python.so"} <= names
    assert f"executable={sys.executable}\n" in record


def test_library_needs_only_libc(faulty_fmu, extracted):
    """The loader links no libpython: any host can dlopen it."""
    folder, _ = extracted(faulty_fmu)
    lib = folder / "binaries" / "linux64" / "Faulty.so"
    needed = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True).stdout \
        if shutil.which("readelf") else ""
    assert "libpython" not in needed
    handle = ctypes.CDLL(str(lib))
    handle.fmi2GetVersion.restype = ctypes.c_char_p
    handle.fmi2GetTypesPlatform.restype = ctypes.c_char_p
    assert handle.fmi2GetVersion() == b"2.0"
    assert handle.fmi2GetTypesPlatform() == b"default"


def test_slave_is_told_which_library_runs_it(instance, faulty_fmu):
    inst = started(instance, faulty_fmu)
    assert "initialised by simon-fmu" in inst.messages()


def test_exception_in_do_step_is_an_error_with_traceback_and_the_instance_is_freeable(
        instance, faulty_fmu):
    inst = started(instance, faulty_fmu, fault=1)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(0.0, 0.1)
    assert failed.value.status == fmi2Error
    status, category, message = inst.log[-1]
    assert (status, category) == (fmi2Error, "logStatusError")
    assert "Traceback" in message and "ZeroDivisionError: fault 1: do_step" in message
    assert "Faulty.py" in message
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == 0.0
    inst.free()
    again = started(instance, faulty_fmu, name="again")
    again.set("u", 1.5)
    again.fmu.doStep(0.0, 0.1)
    assert again.get("y") == 3.0
    assert again.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(0.1)


def test_exception_in_a_getter_is_an_error(instance, faulty_fmu):
    inst = started(instance, faulty_fmu, fault=2)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.getReal([inst.vr["y"]])
    assert failed.value.status == fmi2Error
    assert "KeyError" in inst.messages(fmi2Error)[-1]
    inst.fmu.doStep(0.0, 0.1)   # still usable


def test_exception_in_exit_initialization_is_an_error_and_reset_recovers(instance, faulty_fmu):
    inst = instance(faulty_fmu)
    with pytest.raises(FMICallException) as failed:
        inst.start({"fault": 3})
    assert failed.value.status == fmi2Error
    assert "RuntimeError: fault 3" in inst.messages(fmi2Error)[-1]
    inst.fmu.reset()
    inst.start({"fault": 0})
    inst.set("u", 2.0)
    inst.fmu.doStep(0.0, 0.1)
    assert inst.get("y") == 4.0


def test_status_answers(instance, faulty_fmu):
    refused = instance(faulty_fmu, "refused").start({"fault": 4}, start_time=1.0)
    with pytest.raises(FMICallException) as failed:
        refused.fmu.doStep(1.0, 0.1)
    assert failed.value.status == fmi2Error
    assert "fault 4: step from t=1.0 refused" in refused.messages(fmi2Error)[-1]
    assert refused.fmu.getRealStatus(fmi2LastSuccessfulTime) == 1.0

    discarded = started(instance, faulty_fmu, fault=5, name="discarded")
    with pytest.raises(FMICallException) as failed:
        discarded.fmu.doStep(0.0, 0.1)
    assert failed.value.status == fmi2Discard
    assert discarded.fmu.getBooleanStatus(fmi2Terminated)

    warned = started(instance, faulty_fmu, name="warned")
    warned.set("u", -1.0)
    assert _raw_step(warned, 0.0, 0.1) == fmi2Warning
    assert not warned.fmu.getBooleanStatus(fmi2Terminated)
    # the message is passed as text, never as a printf format
    assert (fmi2Warning, "logStatusWarning", "u = -1.0 is negative: 100% sure %s %d") \
        in warned.log
    warned.set("u", 1.0)
    assert _raw_step(warned, 0.1, 0.1) == fmi2OK


def _raw_step(inst, t, h) -> int:
    """fmi2DoStep's status (fmpy's doStep answers None)."""
    return inst.fmu.fmi2DoStep(inst.fmu.component, t, h, 1)


def test_logging_off_passes_errors_only(instance, faulty_fmu):
    quiet = started(instance, faulty_fmu, logging_on=False)
    quiet.set("u", -1.0)
    quiet.fmu.doStep(0.0, 0.1)
    assert quiet.log == []                   # neither logAll nor the warning
    quiet.fmu.setDebugLogging(True, ["logStatusWarning"])
    quiet.fmu.doStep(0.1, 0.1)
    assert [c for _, c, _ in quiet.log] == ["logStatusWarning"]
    quiet.fmu.setDebugLogging(False, [])
    with pytest.raises(FMICallException):
        quiet.fmu.setDebugLogging(True, ["noSuchCategory"])
    assert "noSuchCategory" in quiet.log[-1][2]
    quiet.log.clear()
    quiet.fmu.reset()
    quiet.start({"fault": 1})
    with pytest.raises(FMICallException):
        quiet.fmu.doStep(0.0, 0.1)
    assert [s for s, _, _ in quiet.log] == [fmi2Error]   # errors always reach the logger


def test_fmu_state_round_trip(instance, faulty_fmu):
    inst = started(instance, faulty_fmu)
    inst.set("u", 1.0)
    inst.fmu.doStep(0.0, 0.1)
    state = inst.fmu.getFMUstate()
    blob = inst.fmu.serializeFMUstate(state)
    inst.set("u", 5.0)
    inst.fmu.doStep(0.1, 0.1)
    assert inst.get("y") == 10.0
    inst.fmu.setFMUstate(state)
    assert inst.get("y") == 2.0
    inst.fmu.freeFMUstate(state)
    fresh = started(instance, faulty_fmu, name="fresh")
    restored = fresh.fmu.deSerializeFMUstate(blob)
    fresh.fmu.setFMUstate(restored)
    fresh.fmu.freeFMUstate(restored)
    assert fresh.get("y") == 2.0 and fresh.get("u") == 1.0


def test_unsupported_functions_are_errors(instance, faulty_fmu):
    inst = started(instance, faulty_fmu)
    y, u = inst.vr["y"], inst.vr["u"]
    with pytest.raises(FMICallException) as failed:
        inst.fmu.getDirectionalDerivative([y], [u], [1.0])
    assert failed.value.status == fmi2Error
    with pytest.raises(FMICallException):
        inst.fmu.setRealInputDerivatives([u], [1], [1.0])
    with pytest.raises(FMICallException):
        inst.fmu.getRealOutputDerivatives([y], [1])
    assert "not supported" in inst.messages(fmi2Error)[-1]


# ----------------------------------------------------------------- the project's FMUs

def test_nan_input_to_the_vehicle_is_an_error_from_do_step(instance, car_fmu):
    """fmi2SetReal takes the NaN (fmi2OK); fmi2DoStep answers fmi2Error and names it."""
    inst = instance(car_fmu).start({"car.speed0": 10.0})
    inst.fmu.doStep(0.0, 0.01)
    vr = inst.vr["car.throttle"]
    status = inst.fmu.fmi2SetReal(inst.fmu.component, (ctypes.c_uint * 1)(vr), 1,
                                  (ctypes.c_double * 1)(math.nan))
    assert status == fmi2OK
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(0.01, 0.01)
    assert failed.value.status == fmi2Error
    assert any(s == fmi2Error and "car.throttle" in m and "nan" in m for s, _, m in inst.log)
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(0.01)


@pytest.fixture(scope="module")
def driver_fmu(fmu_dir):
    out = fmu_dir / "DriverLib.fmu"
    subprocess.run([sys.executable, "-m", "simon_fmu", "build-driver", "-o", str(out)],
                   check=True, cwd=ROOT, capture_output=True)
    return out


def test_driver_nan_input_and_bad_parameter_are_errors(instance, driver_fmu):
    inst = instance(driver_fmu).start()
    inst.fmu.doStep(0.0, 0.01)
    inst.set("speed", math.nan)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.doStep(0.01, 0.01)
    assert failed.value.status == fmi2Error
    assert "speed" in inst.messages(fmi2Error)[-1] and "nan" in inst.messages(fmi2Error)[-1]

    bad = instance(driver_fmu, "bad")
    with pytest.raises(FMICallException) as failed:
        bad.start({"path": "no-such-course"})
    assert failed.value.status == fmi2Error
    assert "parameters are not accepted" in bad.messages(fmi2Error)[-1]


_OLD_LIBRARY_SCRIPT = """
import math, os, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
md = read_model_description(sys.argv[1])
vr = {v.name: v.valueReference for v in md.modelVariables}
folder = extract(sys.argv[1], os.path.join(os.path.dirname(sys.argv[1]), "unzipped"))
s = FMU2Slave(guid=md.guid, unzipDirectory=folder,
              modelIdentifier=md.coSimulation.modelIdentifier, instanceName="old")
s.instantiate()
s.setupExperiment(startTime=0.0)
s.enterInitializationMode()
s.exitInitializationMode()
s.doStep(0.0, 0.01)
s.setReal([vr["car.throttle"]], [math.nan])
try:
    s.doStep(0.01, 0.01)
except Exception as exc:
    print("status", exc.status)
sys.stdout.flush()
os._exit(0)   # pythonfmu's library may corrupt the heap at exit (docs/importers.md)
"""


def test_the_pythonfmu_library_is_still_available(tmp_path):
    """``build --library pythonfmu`` keeps pythonfmu's library; its refused step is Discard."""
    out = tmp_path / "Old.fmu"
    subprocess.run([sys.executable, "-m", "simon_fmu", "build", "--no-warm", "--library",
                    "pythonfmu", "-o", str(out)], check=True, cwd=ROOT, capture_output=True)
    with zipfile.ZipFile(out) as z:
        assert "binaries/linux64/SimonCar_python.so" not in z.namelist()
        assert "binaries/linux64/SimonCar.so" in z.namelist()
    done = subprocess.run([sys.executable, "-c", _OLD_LIBRARY_SCRIPT, str(out)],
                          capture_output=True, text=True, timeout=300)
    assert f"status {fmi2Discard}" in done.stdout, done.stderr[-3000:]


# ----------------------------------------------------------------- a C host

@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to compile the C host (Debian: gcc)")
    return build_host(tmp_path_factory.mktemp("c-host") / "host")


def _bare_environment(**extra) -> dict:
    """No Python on PATH but Debian's, no LD_PRELOAD, no Python variables."""
    import os
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/tmp")}
    env.update(extra)
    return env


def _run_host(host, folder, md, inputs, outputs, steps, env, h=0.1):
    vr = {v.name: v.valueReference for v in md.modelVariables}
    table = folder.parent / f"{folder.name}-inputs.csv"
    table.write_text(",".join(inputs) + "\n" + "\n".join(
        ",".join(repr(float(x)) for x in row) for row in steps) + "\n")
    return subprocess.run(
        [str(host), str(folder), md.coSimulation.modelIdentifier, md.guid, repr(h),
         str(len(steps)), ",".join(str(vr[n]) for n in inputs),
         ",".join(str(vr[n]) for n in outputs), str(table)],
        env=env, capture_output=True, text=True, timeout=300)


def test_c_host_needs_no_environment_and_exits_normally(c_host, faulty_fmu, extracted):
    folder, md = extracted(faulty_fmu)
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0], [2.0], [-1.0]],
                     _bare_environment())
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
    assert [float(r[1]) for r in rows] == [2.0, 4.0, -2.0]


def _own_copy(fmu: Path, folder: Path):
    """(folder, model description) of an extraction of ``fmu`` that a test may change."""
    from fmpy import read_model_description
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    return folder, read_model_description(str(folder))


def test_c_host_sees_an_exception_as_an_error(c_host, tmp_path, faulty_fmu):
    folder, md = _own_copy(faulty_fmu, tmp_path / "faulty")
    # fault 1 through the start value: rewrite the slave's default
    source = folder / "resources" / "Faulty.py"
    source.write_text(source.read_text().replace("self.fault = 0", "self.fault = 1"))
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0]], _bare_environment())
    assert done.returncode == 3, done.stderr
    assert "ZeroDivisionError: fault 1: do_step" in done.stderr
    assert "fmi2DoStep" in done.stderr


def test_c_host_sees_a_failed_instantiation(c_host, faulty_fmu, extracted):
    folder, md = extracted(faulty_fmu)
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0]],
                     _bare_environment(FAULTY_INIT_RAISES="1"))
    assert done.returncode == 3
    assert "fmi2Instantiate failed" in done.stderr
    assert "ValueError: the slave cannot be created" in done.stderr


def test_c_host_with_simon_fmu_python_instead_of_the_record(c_host, tmp_path, faulty_fmu):
    folder, md = _own_copy(faulty_fmu, tmp_path / "faulty")
    (folder / "resources" / RECORD_FILE).unlink()
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0]], _bare_environment())
    assert done.returncode == 3 and "SIMON_FMU_PYTHON is not set" in done.stderr
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0]],
                     _bare_environment(SIMON_FMU_PYTHON=sys.executable))
    assert done.returncode == 0, done.stderr
    assert float(done.stdout.splitlines()[-1].split(",")[1]) == 2.0


@pytest.mark.parametrize("python", ["/no/such/python", "/bin/false"])
def test_c_host_with_a_python_that_cannot_be_used(c_host, faulty_fmu, extracted, python):
    """The message names the variable and says what to do; no shell error leaks out."""
    folder, md = extracted(faulty_fmu)
    done = _run_host(c_host, folder, md, ["u"], ["y"], [[1.0]],
                     _bare_environment(SIMON_FMU_PYTHON=python))
    assert done.returncode == 3
    assert f"SIMON_FMU_PYTHON={python}" in done.stderr
    assert "unset it" in done.stderr and "--standalone" in done.stderr, done.stderr
    assert "not found" not in done.stderr, done.stderr


def test_c_host_runs_the_vehicle_without_environment(c_host, car_fmu, extracted):
    folder, md = extracted(car_fmu)
    steps = [[0.3, 0.0]] * 50
    done = _run_host(c_host, folder, md, ["car.throttle", "car.steeringWheelAngle"],
                     ["car.X", "car.speed"], steps, _bare_environment(), h=0.01)
    assert done.returncode == 0, done.stderr[-3000:]
    last = [float(x) for x in done.stdout.splitlines()[-1].split(",")]
    assert last[0] == pytest.approx(0.5) and all(math.isfinite(x) for x in last)
