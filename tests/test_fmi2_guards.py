"""What the FMU's own FMI library refuses, and that refusing never harms the instance: the GUID,
freed and unknown instances, the FMI 2.0 state machine and communication points, serialised
FMU states, states the host never freed, and the host's import path."""
from __future__ import annotations

import io
import math
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error, fmi2LastSuccessfulTime, fmi2OK

from importers.c_host import fmi2_headers
from simon_fmu.runtime.checksum import STATE_BASIS, fnv1a64

MISUSE = Path(__file__).resolve().parent / "c_host" / "misuse.c"
H = 0.01


# ----------------------------------------------------------------- instances, GUID (C host)

@pytest.fixture(scope="module")
def misuse_host(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to compile the C host (Debian: gcc)")
    out = tmp_path_factory.mktemp("misuse") / "misuse"
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(MISUSE), "-o", str(out), "-ldl"], check=True)
    return out


def test_c_host_survives_double_free_and_calls_on_freed_instances_and_wrong_guids(
        misuse_host, faulty_fmu, driver_fmu, extracted):
    folder, md = extracted(faulty_fmu)
    other, _ = extracted(driver_fmu)
    done = subprocess.run([str(misuse_host), str(folder), md.coSimulation.modelIdentifier,
                           md.guid, str(other / "resources")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    out = done.stdout.splitlines()
    assert out[-1] == "survived"
    lines = dict(line.split(" ", 1) for line in out[:-1])
    assert lines["null-guid"] == lines["wrong-guid"] == lines["other-resources"] == "NULL"
    assert "no GUID (NULL)" in done.stderr
    assert "GUID {not-this-fmu} is not this FMU's" in done.stderr
    assert f"GUID {md.guid} is not this FMU's" in done.stderr   # the driver's resources
    for name in ("setup", "enter", "exit", "step", "terminate", "again-step"):
        assert lines[name] == str(fmi2OK), name
    assert lines["step-after-terminate"] == lines["terminate-again"] == str(fmi2Error)
    freed = [k for k in lines if k.startswith(("freed-", "never-"))]
    assert len(freed) == 11
    assert all(lines[k] == str(fmi2Error) for k in freed if k != "freed-twice"), lines
    assert "fmi2DoStep: component" in done.stderr and "no live instance" in done.stderr


# ----------------------------------------------------------------- the state machine (fmpy)

@pytest.fixture(params=["faulty", "car", "driver", "abs"])
def any_fmu(request):
    """Each FMU kind: the test FMU and the project's three."""
    return request.getfixturevalue(f"{request.param}_fmu")


def _raw(inst, name, *args) -> int:
    """The status of the FMI function ``name`` (fmpy raises on one above fmi2Warning)."""
    try:
        return getattr(inst.fmu, name)(inst.fmu.component, *args)
    except FMICallException as exc:
        return exc.status


def _last_error(inst) -> str:
    errors = inst.messages(fmi2Error)
    return errors[-1] if errors else ""


def test_calls_out_of_order_are_errors_and_leave_the_instance_as_it_was(instance, any_fmu):
    inst = instance(any_fmu)
    assert _raw(inst, "fmi2ExitInitializationMode") == fmi2Error
    assert "fmi2ExitInitializationMode refused" in _last_error(inst)
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2Error
    assert "initialisation mode not entered yet" in _last_error(inst)
    inst.start()
    assert _raw(inst, "fmi2EnterInitializationMode") == fmi2Error
    assert "entered once" in _last_error(inst)
    assert _raw(inst, "fmi2SetupExperiment", 0, 0.0, 5.0, 0, 0.0) == fmi2Error
    assert "fmi2SetupExperiment refused: the instance is initialised" in _last_error(inst)
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2OK        # the time line is unbroken
    assert _raw(inst, "fmi2Terminate") == fmi2OK
    assert _raw(inst, "fmi2DoStep", H, H, 1) == fmi2Error
    assert "terminated" in _last_error(inst)
    assert _raw(inst, "fmi2Terminate") == fmi2Error
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(H)
    inst.fmu.reset()                                             # reset starts again
    inst.start()
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2OK


@pytest.mark.parametrize("t, h, reason", [
    (math.nan, H, "currentCommunicationPoint = nan"),
    (math.inf, H, "currentCommunicationPoint = inf"),
    (None, math.nan, "communicationStepSize = nan"),
    (None, -math.inf, "communicationStepSize = -inf"),
    (None, 0.0, "communicationStepSize = 0;"),
    (None, -H, "communicationStepSize = -0.01"),
    (None, 1e20, "ends beyond the stop time 10"),
    (None, 1e-30, "does not advance the time"),
    (2 * H, H, "does not continue the last one, t=0.01"),
    (0.0, H, "does not continue the last one, t=0.01"),
])
def test_bad_communication_points_are_errors_that_harm_nothing(instance, any_fmu, t, h, reason):
    """``None``: the right communication point."""
    inst = instance(any_fmu)
    inst.fmu.setupExperiment(startTime=-H, stopTime=10.0)
    inst.fmu.enterInitializationMode()
    inst.fmu.exitInitializationMode()
    assert _raw(inst, "fmi2DoStep", -H, H, 1) == fmi2OK
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2OK
    assert _raw(inst, "fmi2DoStep", H if t is None else t, h, 1) == fmi2Error
    assert reason in _last_error(inst)
    # fmi2LastSuccessfulTime is a time the FMU reached: the end of the last good step
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(H)
    assert _raw(inst, "fmi2DoStep", H, H, 1) == fmi2OK          # not poisoned
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(2 * H)


def test_a_step_too_long_to_take_without_a_stop_time_is_refused_and_harms_nothing(
        instance, car_fmu):
    """1e20 s is a finite step the library lets through when no stop time is defined; the
    vehicle refuses it before it starts (the engine's t_end), and steps on afterwards."""
    inst = instance(car_fmu)
    inst.start()
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2OK
    assert _raw(inst, "fmi2DoStep", H, 1e20, 1) == fmi2Error
    assert "doStep refused" in _last_error(inst) and "t_end" in _last_error(inst)
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(H)
    assert _raw(inst, "fmi2DoStep", H, H, 1) == fmi2OK          # not poisoned
    assert inst.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(2 * H)


@pytest.mark.parametrize("start, stop, reason", [
    (math.nan, None, "startTime = nan"),
    (-math.inf, None, "startTime = -inf"),
    (0.0, math.nan, "stopTime = nan"),
    (1.0, 0.5, "stopTime = 0.5"),
])
def test_bad_start_or_stop_time_is_an_error_that_harms_nothing(instance, faulty_fmu, car_fmu,
                                                              start, stop, reason):
    for fmu in (faulty_fmu, car_fmu):
        inst = instance(fmu)
        defined = stop is not None
        assert _raw(inst, "fmi2SetupExperiment", 0, 0.0, start, int(defined),
                    stop if defined else 0.0) == fmi2Error
        assert reason in _last_error(inst)
        inst.start(start_time=0.25)                                # a good one still works
        assert _raw(inst, "fmi2DoStep", 0.25, H, 1) == fmi2OK


# ----------------------------------------------------------------- FMU states (fmpy)

def _reframe(blob: bytes, payload: bytes) -> bytes:
    """``blob``'s header and GUID around another payload, with length and checksum right."""
    mark, version, guid_length, _, _ = struct.unpack_from("<8sIIQQ", blob)
    rest = blob[32:80] + blob[80:80 + guid_length] + payload
    return struct.pack("<8sIIQQ", mark, version, guid_length, len(payload),
                       fnv1a64(rest, STATE_BASIS)) + rest


def _stepped(instance, fmu, name="instance", steps=3):
    inst = instance(fmu, name).start()
    for k in range(steps):
        inst.fmu.doStep(k * H, H)
    return inst


def _outputs(inst) -> list:
    return inst.fmu.getReal([v.valueReference for v in inst.md.modelVariables
                             if v.causality == "output" and v.type == "Real"])


def test_bad_serialised_states_are_refused_and_harm_nothing(instance, any_fmu, abs_fmu,
                                                            driver_fmu, faulty_fmu):
    other_fmu = driver_fmu if any_fmu != driver_fmu else abs_fmu
    other = _stepped(instance, other_fmu, "other")
    foreign = bytes(other.fmu.serializeFMUstate(other.fmu.getFMUstate()))
    inst = _stepped(instance, any_fmu)   # the last one made: fmpy's logger proxy is global
    state = inst.fmu.getFMUstate()
    blob = bytes(inst.fmu.serializeFMUstate(state))
    damaged = bytearray(blob)
    damaged[-1] ^= 0xFF
    cases = {
        b"": "0 bytes are no serialised FMU state",
        bytes(np.random.default_rng(1).integers(0, 256, 500, dtype=np.uint8)):
            "do not start with the mark",
        blob[:-10]: "truncated or damaged",
        blob + b"\0": "truncated or damaged",
        bytes(damaged): "checksum does not match",
        foreign: "belongs to the FMU with GUID",
        # framed right, but no payload of the slave's: the slave refuses it (Faulty is
        # pythonfmu's default, whose JSON decoder raises)
        _reframe(blob, b"not the slave's bytes"): "not a serialised FMU state of this FMU"
        if any_fmu != faulty_fmu else "JSONDecodeError",
    }
    for data, reason in cases.items():
        with pytest.raises(FMICallException) as refused:
            inst.fmu.deSerializeFMUstate(data)
        assert refused.value.status == fmi2Error
        assert reason in _last_error(inst), (reason, _last_error(inst)[-300:])
    inst.fmu.doStep(3 * H, H)                      # the instance is unharmed
    expected = _outputs(inst)
    restored = inst.fmu.deSerializeFMUstate(blob)  # and a good state still restores
    inst.fmu.setFMUstate(restored)
    inst.fmu.doStep(3 * H, H)
    assert _outputs(inst) == expected


def test_a_state_the_vehicle_cannot_restore_leaves_it_unchanged(instance, car_fmu):
    """Framed right but with inputs of the wrong shape: fmi2SetFMUstate refuses it, all or
    nothing, and the instance steps on as if it had never been tried."""
    reference = _stepped(instance, car_fmu, "reference", steps=5)
    inst = _stepped(instance, car_fmu)   # the last one made: fmpy's logger proxy is global
    blob = bytes(inst.fmu.serializeFMUstate(inst.fmu.getFMUstate()))
    guid_length = struct.unpack_from("<I", blob, 12)[0]
    with np.load(io.BytesIO(blob[80 + guid_length:])) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["u_unit"] = np.zeros((7, 3))
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    bad = inst.fmu.deSerializeFMUstate(_reframe(blob, buf.getvalue()))
    inst.fmu.doStep(3 * H, H)
    with pytest.raises(FMICallException):
        inst.fmu.setFMUstate(bad)
    assert "fmi2SetFMUstate refused, the instance is unchanged" in _last_error(inst)
    inst.fmu.doStep(4 * H, H)
    assert _outputs(inst) == _outputs(reference)


def test_controller_states_serialise_and_restore_in_a_fresh_instance(instance, abs_fmu,
                                                                     driver_fmu):
    for fmu, inputs in ((abs_fmu, {"car.axle1.left.spin": 60.0, "car.axle1.right.spin": 59.0,
                                   "car.axle2.left.spin": 61.0, "car.axle2.right.spin": 60.5}),
                        (driver_fmu, {"speed": 20.0, "X": 0.0, "Y": 0.1, "yaw": 0.0})):
        inst = instance(fmu).start()
        inputs = {k: v for k, v in inputs.items() if k in inst.vr} or \
            {n: 50.0 for n in inst.vr if n.endswith("spin")}
        assert inputs
        for k in range(20):
            for name, value in inputs.items():
                inst.set(name, value * (1 - 0.02 * k))
            inst.fmu.doStep(k * H, H)
        blob = bytes(inst.fmu.serializeFMUstate(inst.fmu.getFMUstate()))
        fresh = instance(fmu, "fresh").start()
        fresh.fmu.setFMUstate(fresh.fmu.deSerializeFMUstate(blob))
        for one in (inst, fresh):
            for name, value in inputs.items():
                one.set(name, value * 0.5)
            one.fmu.doStep(20 * H, H)
        assert _outputs(fresh) == _outputs(inst)
        assert fresh.fmu.getRealStatus(fmi2LastSuccessfulTime) == pytest.approx(21 * H)


def test_states_the_host_never_freed_are_released_with_the_instance(instance, faulty_fmu):
    import os
    page = os.sysconf("SC_PAGE_SIZE")

    def rss() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * page

    def cycle(n: int) -> list:
        inst = instance(faulty_fmu, "states").start()
        for _ in range(n):
            inst.fmu.getFMUstate()
        inst.free()
        return inst.log

    log = cycle(10)
    assert any("10 FMU states that the host did not free released" in m for _, _, m in log)
    cycle(6000)
    before = rss()
    for _ in range(4):
        cycle(6000)
    grown = rss() - before
    # kept, 24000 states of this FMU take about 10 MB
    assert grown < 3e6, f"RSS grew {grown / 1e6:.1f} MB over 24000 states not freed by the host"


# ----------------------------------------------------------------- the host's import path

_IMPORT_PATH_SCRIPT = """
import atexit, shutil, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
before = list(sys.path)
for fmu in sys.argv[1:]:
    folder = extract(fmu)
    atexit.register(shutil.rmtree, folder, True)
    md = read_model_description(folder)
    s = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                  modelIdentifier=md.coSimulation.modelIdentifier, instanceName="i")
    s.instantiate()
    s.setupExperiment(startTime=0.0)
    s.enterInitializationMode()
    s.exitInitializationMode()
    s.doStep(0.0, 0.01)
    s.terminate()
    s.freeInstance()
print("same" if sys.path == before else f"changed: {sys.path} from {before}")
import pythonfmu
print(pythonfmu.__file__)
"""


def test_the_fmu_leaves_the_host_import_path_as_it_found_it(tmp_path, faulty_fmu, car_fmu):
    """sys.path is unchanged, and the host's pythonfmu is the host's, not the FMU's copy."""
    done = subprocess.run([sys.executable, "-c", _IMPORT_PATH_SCRIPT, str(faulty_fmu),
                           str(car_fmu)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    same, location = done.stdout.splitlines()[-2:]
    assert same == "same"
    import pythonfmu
    assert Path(location) == Path(pythonfmu.__file__)


def test_a_string_call_on_a_value_reference_that_is_no_string_is_an_error(instance, car_fmu):
    """The vehicle has no String variable: fmi2GetString and fmi2SetString on another
    variable's value reference answer fmi2Error (they answered fmi2OK with an error logged),
    as the other types' calls and the native FMU do."""
    inst = instance(car_fmu).start()
    vr = inst.vr["car.X"]
    with pytest.raises(FMICallException):
        inst.fmu.getString([vr])
    assert _last_error(inst) == f"fmi2GetString: value reference {vr} is no String variable"
    with pytest.raises(FMICallException):
        inst.fmu.setString([vr], ["1.0"])
    assert _last_error(inst) == f"fmi2SetString: value reference {vr} is no String variable"
    assert _raw(inst, "fmi2DoStep", 0.0, H, 1) == fmi2OK         # harmless
