"""The FMU's own FMI library under threads, each case in a fresh process (a subprocess, with a
timeout): instances of the car, the driver and the ABS created at the same moment from several
threads, by a C host with POSIX threads (tests/c_host/threads.c) and by fmpy in Python threads;
and concurrent calls on one instance, which FMI 2.0 forbids but which must leave the instance
consistent and usable (the library runs them one after the other)."""
from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from importers.c_host import fmi2_headers

THREADS = Path(__file__).resolve().parent / "c_host" / "threads.c"
TIMEOUT = 180


@pytest.fixture(scope="module")
def threads_host(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to compile the C host (Debian: gcc)")
    out = tmp_path_factory.mktemp("threads") / "threads"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(THREADS), "-o", str(out), "-ldl", "-lpthread"],
                   check=True)
    return out


def _spec(extracted, fmu: Path) -> str:
    folder, md = extracted(fmu)
    assert ":" not in str(folder)
    return f"{folder}:{md.coSimulation.modelIdentifier}:{md.guid}"


def _run(command: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    assert done.stdout.splitlines()[-1] == "done", done.stdout + done.stderr[-3000:]
    return done


def _check_all_created_stepped_freed(done: subprocess.CompletedProcess, n: int, steps: int):
    lines = done.stdout.splitlines()
    report = done.stdout + done.stderr[-3000:]
    created = sorted(line for line in lines if line.startswith("instance "))
    assert created == [f"instance {i} ok" for i in range(n)], report
    stepped = sorted(line for line in lines if line.startswith("steps "))
    assert stepped == [f"steps {i} {steps} 0" for i in range(n)], report
    freed = sorted(line for line in lines if line.startswith("freed "))
    assert freed == [f"freed {i}" for i in range(n)], report
    assert "has no slave class" not in done.stderr


# ----------------------------------------------------------------- instances created at once

def test_c_host_four_threads_create_car_instances_at_once(threads_host, car_fmu, extracted):
    car = _spec(extracted, car_fmu)
    done = _run([str(threads_host), "instantiate", "50", car, car, car, car])
    _check_all_created_stepped_freed(done, 4, 50)


def test_c_host_threads_create_car_abs_and_driver_instances_at_once(
        threads_host, car_fmu, abs_fmu, driver_fmu, extracted):
    """Three FMUs, each with its own copy of the library, in one process that has no Python
    yet: the interpreter is started once, and the slave modules and the packages they share
    are imported once each."""
    car, abs_, driver = (_spec(extracted, f) for f in (car_fmu, abs_fmu, driver_fmu))
    done = _run([str(threads_host), "instantiate", "50", car, abs_, driver, car, abs_, driver])
    _check_all_created_stepped_freed(done, 6, 50)


_FMPY_INSTANTIATE = r"""
import sys, threading
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave

folders = sys.argv[1:]
barrier = threading.Barrier(len(folders))
results = [None] * len(folders)
# read before the threads start: fmpy validates each against the FMI schema with lxml, whose
# schema parser is not thread-safe ("Document is not valid XML Schema" now and then)
descriptions = [read_model_description(folder) for folder in folders]

def run(i, folder):
    md = descriptions[i]
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName=f"t{i}")
    barrier.wait()
    try:
        fmu.instantiate()
    except Exception as exc:
        results[i] = f"instance {i} NULL {exc}"
    barrier.wait()      # every instance exists (or failed) before any is stepped
    if results[i]:
        return
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    for k in range(20):
        fmu.doStep(currentCommunicationPoint=k * 0.001, communicationStepSize=0.001)
    fmu.terminate()
    fmu.freeInstance()
    results[i] = f"instance {i} stepped"

threads = [threading.Thread(target=run, args=(i, f)) for i, f in enumerate(folders)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("\n".join(str(r) for r in results))
print("done")
"""


def test_fmpy_threads_create_instances_at_once(car_fmu, abs_fmu, driver_fmu, extracted):
    """fmpy in Python threads (ctypes lets the GIL go during each call): four car instances,
    then a car, an ABS and a driver, each in a fresh Python process."""
    car, abs_, driver = (str(extracted(f)[0]) for f in (car_fmu, abs_fmu, driver_fmu))
    for folders in ([car] * 4, [car, abs_, driver]):
        done = _run([sys.executable, "-c", _FMPY_INSTANTIATE, *folders])
        lines = done.stdout.splitlines()[:-1]
        assert lines == [f"instance {i} stepped" for i in range(len(folders))], \
            done.stdout + done.stderr[-3000:]


# ----------------------------------------------------------------- concurrent calls, one instance

def test_c_host_two_threads_stepping_one_instance_leave_it_consistent(
        threads_host, car_fmu, extracted):
    """Two threads call fmi2DoStep on one car at once, 2000 times each, each from
    fmi2LastSuccessfulTime; the logger calls back into the instance from the same thread.
    Every communication point is accepted once, fmi2LastSuccessfulTime is the end of the last
    accepted step, the instance steps on afterwards, and its outputs are those of an instance
    stepped alone as often (it was never stepped twice from one point at once)."""
    folder, md = extracted(car_fmu)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    outputs = ["car.engineSpeed", "car.Z", "car.yaw", "car.axle1.left.steer"]
    inputs = [f"{vr['car.throttle']}=0.4", f"{vr['car.steeringWheelAngle']}=0.5"]
    done = _run([str(threads_host), "one-instance", str(folder),
                 md.coSimulation.modelIdentifier, md.guid, "2000", *inputs,
                 *(str(vr[name]) for name in outputs)])
    report = done.stdout + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    result = dict(line.split(" ", 1) for line in lines[:-1] if not line.startswith("value "))
    accepted = int(result["accepted"])
    assert accepted + int(result["refused"]) == 4000, report
    assert accepted >= 2000, report
    assert result["duplicates"] == "0" and result["gaps"] == "0", report
    last = float(result["last-successful"])
    assert math.isclose(last, accepted * 0.001, rel_tol=1e-9), report
    assert last == float(result["expected-last"]), report
    assert result["after"] == "0", report        # 20 more steps, all fmi2OK
    assert math.isclose(float(result["final-last"]), last + 0.02, rel_tol=1e-9), report
    assert int(result["nested"]) >= 1, report     # the logger's calls back were answered
    values = [line.split()[1:] for line in lines if line.startswith("value ")]
    assert len(values) == len(outputs), report
    for (ref, concurrent, alone), name in zip(values, outputs):
        assert float(concurrent) == float(alone), (name, concurrent, alone)
    assert float(values[0][1]) > 100.0, report     # the engine revved: the steps did run
    assert "it accepts a time in" not in done.stderr, report
    assert "failed earlier" not in done.stderr, report


_FMPY_ONE_INSTANCE = r"""
import ctypes, sys, threading
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave, fmi2OK, fmi2LastSuccessfulTime

folder = sys.argv[1]
md = read_model_description(folder)
identifier = md.coSimulation.modelIdentifier
fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder, modelIdentifier=identifier,
                instanceName="shared")
fmu.instantiate()
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.exitInitializationMode()
component = fmu.component

# one thread calls through fmpy (ctypes.CDLL: the GIL is let go during the call), the other
# through ctypes.PyDLL, which keeps the GIL during the call: the library must let it go while
# that thread waits for the other's call on the instance
pydll = ctypes.PyDLL(f"{folder}/binaries/linux64/{identifier}.so")
do_step = pydll.fmi2DoStep
do_step.argtypes = [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int]
do_step.restype = ctypes.c_int
real_status = pydll.fmi2GetRealStatus
real_status.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
real_status.restype = ctypes.c_int

accepted = [[], []]
barrier = threading.Barrier(2)

def through_fmpy():
    barrier.wait()
    for _ in range(1000):
        t = fmu.getRealStatus(fmi2LastSuccessfulTime)
        try:
            fmu.doStep(currentCommunicationPoint=t, communicationStepSize=0.001)
            accepted[0].append(t)
        except Exception:
            pass

def through_pydll():
    barrier.wait()
    for _ in range(1000):
        t = ctypes.c_double()
        real_status(component, fmi2LastSuccessfulTime, ctypes.byref(t))
        if do_step(component, t.value, 0.001, 1) == fmi2OK:
            accepted[1].append(t.value)

threads = [threading.Thread(target=through_fmpy), threading.Thread(target=through_pydll)]
for t in threads:
    t.start()
for t in threads:
    t.join()
points = sorted(accepted[0] + accepted[1])
print("accepted", len(points))
print("contiguous", all(abs(p - k * 0.001) < 1e-6 for k, p in enumerate(points)))
last = fmu.getRealStatus(fmi2LastSuccessfulTime)
print("last-ok", abs(last - len(points) * 0.001) < 1e-9)
for k in range(10):
    fmu.doStep(currentCommunicationPoint=last + k * 0.001, communicationStepSize=0.001)
print("after", fmu.getRealStatus(fmi2LastSuccessfulTime) - last)
fmu.terminate()
fmu.freeInstance()
print("done")
"""


def test_fmpy_and_pydll_threads_stepping_one_instance(car_fmu, extracted):
    """The same from Python: one thread through fmpy, one through ctypes.PyDLL (which holds
    the GIL while it waits for the instance); neither deadlocks, and the instance is
    consistent afterwards."""
    folder, _ = extracted(car_fmu)
    done = _run([sys.executable, "-c", _FMPY_ONE_INSTANCE, str(folder)])
    result = dict(line.split(" ", 1) for line in done.stdout.splitlines()[:-1])
    report = done.stdout + done.stderr[-3000:]
    assert int(result["accepted"]) >= 1000, report
    assert result["contiguous"] == "True" and result["last-ok"] == "True", report
    assert math.isclose(float(result["after"]), 0.01, rel_tol=1e-9), report
    assert "it accepts a time in" not in done.stderr, report


def test_c_host_frees_an_instance_while_two_threads_step_it(threads_host, car_fmu, extracted):
    """fmi2FreeInstance while two other threads call the instance: it waits for the call in
    progress, and every call after it (also one that was waiting for the instance) is refused
    with fmi2Error; nothing crashes or hangs."""
    folder, md = extracted(car_fmu)
    for _ in range(3):
        done = _run([str(threads_host), "free-while-stepping", str(folder),
                     md.coSimulation.modelIdentifier, md.guid])
        result = dict(line.split(" ", 1) for line in done.stdout.splitlines()[:-1]
                      if " " in line)
        report = done.stdout + done.stderr[-3000:]
        assert done.stdout.splitlines()[0] == "free-returned", report
        assert int(result["accepted"]) >= 200, report
        assert result["refused-after-free"] == "100" and result["late-ok"] == "0", report
        assert "no live instance" in done.stderr, report
