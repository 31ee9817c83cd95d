"""The native FMU's runtime against hosts that misuse it (docs/native.md, "The runtime"): the
host process never crashes or hangs, a bad call is refused with fmi2Error and a message, and
nothing wrong comes back under fmi2OK. Each case a robustness audit of the Linux x86-64 binary
found; the development FMU is the reference where it answers.

Crashes are run in a child process, so that a regression fails the test instead of the run.
"""
from __future__ import annotations

import json
import math
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from importers.c_host import fmi2_headers
from support import fmus

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def _sedan(mass_factor: float = 1.0, external: bool = False) -> dict:
    import engine
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["initial"]["speed"] = 20.0
    data["units"][0]["sprung_mass"]["mass"] *= mass_factor
    if external:
        data["environment"]["terrain"] = {"type": "external"}
    return data


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """name -> (native FMU, development FMU) of the sedan, the sedan twice as heavy (another
    GUID, the same arrays) and the sedan on an external road (its start reads the wheel
    inputs), each built once for the module."""
    folder = tmp_path_factory.mktemp("robustness")
    cache = {}

    def get(name):
        if name not in cache:
            event = folder / f"{name}.json"
            event.write_text(json.dumps({"sedan": _sedan(), "heavy": _sedan(2.0),
                                         "external": _sedan(external=True)}[name]))
            cache[name] = (fmus.native(event, folder / f"{name}-native.fmu", platforms="linux64"),
                           fmus.vehicle(event, folder / f"{name}-development.fmu"))
        return cache[name]
    return get


# ------------------------------------------------------------------ NULL arrays

#: a ctypes host of the native binary of the extracted FMU ``sys.argv[1]``: its logger keeps
#: the messages, ``instantiate(name)`` answers the component (None: refused)
_CTYPES_HOST = textwrap.dedent("""
    import ctypes, sys
    from fmpy import read_model_description
    folder = sys.argv[1]
    md = read_model_description(folder)
    lib = ctypes.CDLL(f"{folder}/binaries/linux64/{md.coSimulation.modelIdentifier}.so")
    # the logger is variadic (its format "%s", then the text): on x86-64 the text comes as
    # the next argument, which this prototype reads
    LOGGER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                              ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p)
    messages = []
    @LOGGER
    def logger(env, name, status, category, fmt, text):
        messages.append(text.decode() if fmt == b"%s" else fmt.decode())
    class Callbacks(ctypes.Structure):
        _fields_ = [("logger", LOGGER), ("allocate", ctypes.c_void_p), ("free", ctypes.c_void_p),
                    ("step_finished", ctypes.c_void_p), ("env", ctypes.c_void_p)]
    callbacks = Callbacks(logger, None, None, None, None)
    lib.fmi2Instantiate.restype = ctypes.c_void_p
    def instantiate(name):
        return lib.fmi2Instantiate(name, 1, md.guid.encode(),
                                   f"file://{folder}/resources".encode(),
                                   ctypes.byref(callbacks), 0, 1)
""")

_NULL_CALLS = _CTYPES_HOST + textwrap.dedent("""
    case = sys.argv[2]
    c = instantiate(b"null")
    c = ctypes.c_void_p(c)
    assert lib.fmi2SetupExperiment(c, 0, ctypes.c_double(0.0), ctypes.c_double(0.0), 0,
                                   ctypes.c_double(0.0)) == 0
    assert lib.fmi2EnterInitializationMode(c) == 0 and lib.fmi2ExitInitializationMode(c) == 0
    vr = (ctypes.c_uint * 1)(md.modelVariables[0].valueReference)
    values = (ctypes.c_double * 4)()
    state = ctypes.c_void_p()
    assert lib.fmi2GetFMUstate(c, ctypes.byref(state)) == 0
    calls = {
        "GetReal vr": lambda: lib.fmi2GetReal(c, None, ctypes.c_size_t(3), values),
        "GetReal values": lambda: lib.fmi2GetReal(c, vr, ctypes.c_size_t(1), None),
        "SetReal vr": lambda: lib.fmi2SetReal(c, None, ctypes.c_size_t(3), values),
        "SetInteger values": lambda: lib.fmi2SetInteger(c, vr, ctypes.c_size_t(1), None),
        "GetBoolean values": lambda: lib.fmi2GetBoolean(c, vr, ctypes.c_size_t(1), None),
        "GetString": lambda: lib.fmi2GetString(c, None, ctypes.c_size_t(2), None),
        "SetString": lambda: lib.fmi2SetString(c, None, ctypes.c_size_t(2), None),
        "SerializedFMUstateSize": lambda: lib.fmi2SerializedFMUstateSize(c, state, None),
    }
    status = calls[case]()
    lib.fmi2FreeInstance(c)
    print(status, messages[-1] if messages else "")
""")


@pytest.mark.parametrize("case", ["GetReal vr", "GetReal values", "SetReal vr",
                                  "SetInteger values", "GetBoolean values", "GetString",
                                  "SetString", "SerializedFMUstateSize"])
def test_null_arrays_are_refused_not_a_crash(case, built, extracted):
    """A NULL value-reference or value array with nvr > 0 (or no place for a size) is
    refused with fmi2Error and a message; it crashed the host with SIGSEGV."""
    folder, _ = extracted(built("sedan")[0])
    done = subprocess.run([sys.executable, "-c", _NULL_CALLS, str(folder), case],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    status, message = done.stdout.strip().split(" ", 1)
    print(case, status, message)
    assert status == "3" and "(NULL)" in message


# ------------------------------------------------------------------ FMU states

def _state_bytes(inst) -> bytes:
    inst.start()
    for k in range(20):
        inst.fmu.doStep(k * 0.01, 0.01)
    return bytes(inst.fmu.serializeFMUstate(inst.fmu.getFMUstate()))


def test_a_state_of_another_fmu_is_refused_naming_both_guids(built, instance):
    """The sedan's state handed to the sedan twice as heavy (another event, the same arrays'
    sizes): both FMUs refuse it naming the two GUIDs, as the development FMU did alone; the
    native FMU took it with fmi2OK and ran the heavy car on from the light one's state."""
    messages = []
    for k in (0, 1):
        blob = _state_bytes(instance(built("sedan")[k], name="light"))
        heavy = instance(built("heavy")[k], name="heavy").start()
        with pytest.raises(FMICallException):
            heavy.fmu.deSerializeFMUstate(blob)
        messages.append(heavy.messages(min_status=3)[-1])
    print(messages[0])
    assert messages[0] == messages[1]
    assert "the state belongs to the FMU with GUID" in messages[0]


def _resealed(blob: bytearray) -> bytes:
    """The state's checksum made again (FNV-1a from start_time on), as an editor would."""
    h = 0xcbf29ce484222325
    for x in bytes(blob[24:]):
        h = ((h ^ x) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    blob[16:24] = struct.pack("=Q", h)
    return bytes(blob)


def test_a_state_whose_clocks_are_not_a_runs_is_refused(built, instance):
    """A state edited to a step count of -10^12 with its checksum recomputed: refused, where
    the next doStep ran 10^12 kernel steps (the host hung)."""
    inst = instance(built("sedan")[0], name="edited")
    blob = bytearray(_state_bytes(inst))
    blob[56:64] = struct.pack("=q", -10 ** 12)              # sn_state_header.grid_steps
    with pytest.raises(FMICallException):
        inst.fmu.deSerializeFMUstate(_resealed(blob))
    assert "its clocks are not a run's" in inst.messages(min_status=3)[-1]


def test_a_state_whose_grid_is_not_its_clocks_is_refused(built, instance):
    """A state whose grid time is edited (-1e300, or -1e7) with its checksum made again: the
    next doStep counted 2^63 kernel steps (a signed overflow, undefined behaviour, found under
    UBSan) or 10^10, and the host hung. Refused, as the engine's own check refuses times
    below 0, and a grid whose time and steps do not reach the clock's."""
    inst = instance(built("sedan")[0], name="grid")
    state = bytearray(_state_bytes(inst))
    for grid_time in (-1e300, -1e7, 1e7):
        blob = bytearray(state)
        blob[48:56] = struct.pack("=d", grid_time)             # sn_state_header.grid_time
        with pytest.raises(FMICallException):
            inst.fmu.deSerializeFMUstate(_resealed(blob))
        assert "its clocks are not a run's" in inst.messages(min_status=3)[-1], grid_time


def test_a_state_whose_packed_parameters_are_edited_is_refused(built, instance, extracted):
    """A state holds the arrays of packed parameters that a parameter writes (the friction
    multiplier's P_ENV, the steering mode's P_UNIT), indices and constants included. One of
    those edited (the collision block's base in P_ENV) with the checksum made again crashed
    the host with an out-of-bounds write in the kernels (found under AddressSanitizer). Such
    a state is now refused; a state whose parameters were set (their slots differ from the
    FMU's) is taken, by another instance too."""
    from engine.layout import E_COLL_BASE, E_MU
    from simon_fmu.native import resources as R
    fmu = built("sedan")[0]
    folder, _ = extracted(fmu)
    p_env = R.unpack((folder / "resources" / "native.bin").read_bytes())["P.P_ENV"]
    plain = instance(fmu, name="plain")
    state = bytearray(_state_bytes(plain))
    at = bytes(state).find(p_env.tobytes())
    assert at > 0 and bytes(state).find(p_env.tobytes(), at + 1) < 0, "P_ENV found once"
    # an index may not
    blob = bytearray(state)
    struct.pack_into("=d", blob, at + 8 * E_COLL_BASE, 1e18)
    with pytest.raises(FMICallException):
        plain.fmu.deSerializeFMUstate(_resealed(blob))
    assert "its packed parameters are another FMU's" in plain.messages(min_status=3)[-1]
    # a parameter's slot may differ: a state of an instance run at another friction
    tuned = instance(fmu, name="tuned").start({"frictionMultiplier": 0.7})
    for k in range(20):
        tuned.fmu.doStep(k * 0.01, 0.01)
    tuned_state = bytes(tuned.fmu.serializeFMUstate(tuned.fmu.getFMUstate()))
    assert struct.unpack_from("=d", tuned_state, at + 8 * E_MU)[0] == pytest.approx(0.7 * p_env[E_MU])
    other = instance(fmu, name="other")
    other.fmu.setFMUstate(other.fmu.deSerializeFMUstate(tuned_state))
    assert other.get("frictionMultiplier") == 0.7


def test_a_state_whose_parameter_slots_are_not_its_parameters_values_is_refused(built, instance,
                                                                               extracted):
    """The slots a parameter writes may differ from the FMU's, but only as the parameter's
    value writes them: the sub-steps' bound (P_ENV[E_SUBSTEPS], the integrator's loop bound)
    edited to 10^15, alone or with the parameter's value in the state, with the checksum made
    again, was taken with fmi2OK (a split step would then take up to 10^15 sub-steps). Both
    are refused; a state whose parameter was set at initialisation (16) is taken."""
    from engine.layout import E_SUBSTEPS
    from simon_fmu.native import resources as R
    fmu = built("sedan")[0]
    folder, md = extracted(fmu)
    arrays = R.unpack((folder / "resources" / "native.bin").read_bytes())
    p_env, values = arrays["P.P_ENV"], arrays["var.value"]
    vr = {v.name: v.valueReference for v in md.modelVariables}["substeps"]
    tuned = instance(fmu, name="tuned").start({"substeps": 16})
    for k in range(20):
        tuned.fmu.doStep(k * 0.01, 0.01)
    state = bytearray(tuned.fmu.serializeFMUstate(tuned.fmu.getFMUstate()))
    tuned_env, tuned_values = p_env.copy(), values.copy()
    tuned_env[E_SUBSTEPS], tuned_values[vr] = 16.0, 16.0
    at_env, at_values = bytes(state).find(tuned_env.tobytes()), bytes(state).find(tuned_values.tobytes())
    assert at_env > 0 and at_values > 0, "the tuned P_ENV and parameters' values in the state"
    other = instance(fmu, name="other")
    other.fmu.setFMUstate(other.fmu.deSerializeFMUstate(bytes(state)))
    assert other.get("substeps") == 16
    for edit_value, message in ((False, "not what its parameters' values set"),
                                (True, "a parameter's value is outside its range")):
        blob = bytearray(state)
        struct.pack_into("=d", blob, at_env + 8 * E_SUBSTEPS, 1e15)
        if edit_value:
            struct.pack_into("=d", blob, at_values + 8 * vr, 1e15)
        with pytest.raises(FMICallException):
            other.fmu.deSerializeFMUstate(_resealed(blob))
        assert message in other.messages(min_status=3)[-1]


def test_a_state_whose_enumeration_lies_between_its_items_is_refused(built, instance, extracted):
    """A state of a run of Heun's method (the parameter integrator at 2) with that value
    edited to 1.5 and the checksum made again: no item's row writes anything for it, so the
    check of the slots passes, and it was taken with fmi2OK, the instance then reporting
    integrator 1 (RK4) while it integrated by RK2. Refused; at 1 the edit is a value whose
    rows the slot then contradicts; at 2 it is the state itself. A state saved in
    initialisation mode with 1.5 is refused too (the end of initialisation would have taken
    the step against RK4's limits)."""
    from simon_fmu.native import resources as R
    fmu = built("sedan")[0]
    folder, md = extracted(fmu)
    values = R.unpack((folder / "resources" / "native.bin").read_bytes())["var.value"]
    vr = {v.name: v.valueReference for v in md.modelVariables}["integrator"]
    heun = instance(fmu, name="heun").start({"integrator": 2})
    for k in range(20):
        heun.fmu.doStep(k * 0.01, 0.01)
    state = bytearray(heun.fmu.serializeFMUstate(heun.fmu.getFMUstate()))
    tuned = values.copy()
    tuned[vr] = 2.0
    at = bytes(state).find(tuned.tobytes())
    assert at > 0, "the parameters' values in the state"
    other = instance(fmu, name="other")
    for value, message in ((1.5, "an Integer or Enumeration parameter's value is not a whole "
                                 "number"),
                           (1.0, "its packed parameters are not what its parameters' values "
                                 "set")):
        blob = bytearray(state)
        struct.pack_into("=d", blob, at + 8 * vr, value)
        with pytest.raises(FMICallException):
            other.fmu.deSerializeFMUstate(_resealed(blob))
        assert message in other.messages(min_status=3)[-1]
    other.fmu.setFMUstate(other.fmu.deSerializeFMUstate(bytes(state)))
    assert other.get("integrator") == 2
    early = instance(fmu, name="early")
    early.fmu.setupExperiment(startTime=0.0)
    early.fmu.enterInitializationMode()
    early.set("integrator", 2)
    blob = bytearray(early.fmu.serializeFMUstate(early.fmu.getFMUstate()))
    at = bytes(blob).find(tuned.tobytes())
    assert at > 0, "the parameters' values in the state saved in initialisation mode"
    struct.pack_into("=d", blob, at + 8 * vr, 1.5)
    late = instance(fmu, name="late")     # the last one made: fmpy's logger proxy is global
    with pytest.raises(FMICallException):
        late.fmu.deSerializeFMUstate(_resealed(blob))
    assert "an Integer or Enumeration parameter's value is not a whole number" in \
        late.messages(min_status=3)[-1]


#: sn_state_header's size: the state's y follows it (docs/native.md, "FMU state")
_HEADER = 1248


def test_a_state_whose_y_holds_what_no_run_leaves_is_refused(built, instance):
    """A state whose y is edited, its checksum made again: a body's attitude index (the sign
    its axes turn by near 90 degrees of pitch), a mesh vertex's entry face (the collision
    kernels take it as an index), a velocity not finite. The native FMU took each with fmi2OK
    (only the clocks and packed parameters were checked); it now refuses them in the
    development FMU's words (engine.layout.state_fault, which both run), and takes the state
    as it was."""
    import copy
    import engine
    from engine import layout as L
    sim = engine.Simulation(engine.load_event(_sedan()))
    inst = instance(built("sedan")[0], name="y")
    state = bytearray(_state_bytes(inst))
    assert np.array_equal(np.frombuffer(state, float, sim.y.size, _HEADER)[:L.N_BODY_OUT],
                          inst.get_reals([f"car.{n}" for n in L.BODY_STATE_NAMES[:L.N_BODY_OUT]])), \
        "y right after the header"
    vertex = int(sim.model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE + sim.model.CV.shape[0] + 3
    for slot, value in ((L.SATT, 0.5), (vertex, 1e18), (vertex, 2.5), (L.SU, math.nan)):
        blob = bytearray(state)
        struct.pack_into("=d", blob, _HEADER + 8 * slot, value)
        with pytest.raises(FMICallException):
            inst.fmu.deSerializeFMUstate(_resealed(blob))
        native = inst.messages(min_status=3)[-1]
        print(native)
        bad = copy.deepcopy(sim.get_state())
        bad.y[slot] = value
        with pytest.raises(ValueError) as dev:
            sim.set_state(bad)
        if math.isfinite(value):
            assert f"(its {str(dev.value).removeprefix('state: ')})" in native
        else:       # the development FMU's own check of finite values comes first
            assert f"(its car.u = nan, where a run leaves a finite number)" in native
    inst.fmu.setFMUstate(inst.fmu.deSerializeFMUstate(bytes(state)))


# ------------------------------------------------------------------ the resources

_INSTANTIATE = _CTYPES_HOST + textwrap.dedent("""
    c = instantiate(b"forged")
    print(c is not None, messages[-1] if messages else "")
""")


def test_a_variable_outside_its_array_in_the_resources_is_refused(built, tmp_path, extracted):
    """A resources file re-packed with a valid digest but one variable's slot beyond its array
    is refused at fmi2Instantiate, naming the table: fmi2SetReal wrote out of bounds."""
    from simon_fmu.native import resources as R
    folder, md = extracted(built("sedan")[0])
    forged = tmp_path / "forged"
    shutil.copytree(folder, forged)
    native_bin = forged / "resources" / "native.bin"
    arrays = R.unpack(native_bin.read_bytes())
    vr = {v.name: v.valueReference for v in md.modelVariables}["car.throttle"]
    table = arrays["var.table"].copy()
    table[vr, 4] = 1 << 40                  # the input's slot in its array
    arrays["var.table"] = table
    native_bin.write_bytes(R.pack(arrays))
    done = subprocess.run([sys.executable, "-c", _INSTANTIATE, str(forged)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    print(done.stdout)
    assert done.stdout.strip() == (f"False fmi2Instantiate: the resources' variable table is "
                                   f"inconsistent (value reference {vr})")


_LOCATIONS = _CTYPES_HOST + textwrap.dedent("""
    import json
    for location in json.loads(sys.argv[2]):
        messages.clear()
        c = lib.fmi2Instantiate(b"where", 1, md.guid.encode(), location.encode(),
                                ctypes.byref(callbacks), 0, 1)
        if c:
            lib.fmi2FreeInstance(ctypes.c_void_p(c))
        print(json.dumps([c is not None, messages[-1] if messages else ""]))
""")


def test_resource_locations_in_every_form_hosts_write(built, tmp_path, extracted):
    """fmuResourceLocation in the forms hosts write (FMI 2.0 asks for an RFC 3986 file URI):
    the resources are found whatever the folder's name, and a location naming another host
    or a NUL byte is refused with the development FMU's message. A '%' without two
    hexadecimal digits after it is the name's own, as the development FMU reads it: the
    native runtime decoded '%fu' as the byte 15 and could not open the folder. The scheme and
    the host are read in any case (RFC 3986), as FILE:// and LOCALHOST were not. (On
    Windows, tests/test_native_platforms.py.)"""
    folder, _ = extracted(built("sedan")[0])
    named = tmp_path / "Prüfstand Jürgen 試験" / "resources"
    odd = tmp_path / "100%full" / "resources"
    for where in (named, odd):
        shutil.copytree(folder / "resources", where)
    found = [named.as_uri() + "/", "file:" + quote(str(named)), f"file://localhost{quote(str(named))}/",
             f"file://{named}", str(named), f"file://{odd}/", odd.as_uri(),
             "FILE://" + quote(str(named)), f"File://LocalHost{quote(str(named))}/"]
    refused = ["file://server/share/resources/", named.as_uri() + "%00/", ""]
    done = subprocess.run([sys.executable, "-c", _LOCATIONS, str(folder), json.dumps(found + refused)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    for location, (ok, message) in zip(found + refused, answers):
        print(repr(location), ok, message)
    assert len(answers) == len(found + refused)
    assert all(ok for ok, _ in answers[:len(found)]), answers[:len(found)]
    for location, (ok, message) in zip(refused, answers[len(found):]):
        assert not ok and message == (f"fmi2Instantiate: the resource location {location} is no "
                                      f"local file URI")
    # the development FMU from the folder not named in ASCII, as fmpy names it (a URI)
    from fmpy import simulate_fmu
    dev_folder, _ = extracted(built("sedan")[1])
    moved = tmp_path / "Prüfstand Jürgen 試験" / "development"
    shutil.copytree(dev_folder, moved)
    result = simulate_fmu(str(moved), stop_time=0.02, output_interval=0.01, output=["car.X"])
    assert len(result) == 3


# ------------------------------------------------------------------ initialisation


def _start_external(inst, read_first: bool) -> tuple:
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    z0 = inst.get("car.axle1.left.roadZ")
    if read_first:                          # a host reading its initial outputs (Simulink)
        for side in ("left", "right"):
            inst.set(f"car.axle1.{side}.roadZ", z0 - 0.1)
        inst.get("car.Z")
        for side in ("left", "right"):
            inst.set(f"car.axle1.{side}.roadZ", z0)
    inst.set("car.X0", 3.0)
    inst.fmu.exitInitializationMode()
    return inst.get("car.Z"), inst.get("car.pitch")


def test_a_read_in_initialisation_mode_leaves_no_trace_on_the_start(built, instance):
    """On an external road: wheel inputs moved, an output read, the inputs set back, X0 set,
    the end of initialisation: the start is that of no read at all, and the development
    FMU's. The native FMU started on the road of the read (car.Z -0.669 against -0.614 and
    0.039 rad of pitch) under fmi2OK."""
    native, development = built("external")
    starts = {(k, read): _start_external(instance(fmu, name=f"{k}-{read}"), read)
              for k, fmu in (("native", native), ("development", development))
              for read in (False, True)}
    print(starts)
    assert len(set(starts.values())) == 1


# ------------------------------------------------------------------ hosts' threads and loggers


@pytest.fixture(scope="module")
def c_hosts(tmp_path_factory) -> dict:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to compile the C hosts (Debian: gcc)")
    out = tmp_path_factory.mktemp("c-hosts")
    hosts = {}
    for name, flags in (("threads", ["-std=c11", "-ldl", "-lpthread"]),
                        ("reentrant_logger", ["-std=gnu11", "-ldl", "-lm"]),
                        ("priority", ["-std=gnu11", "-ldl", "-lpthread"])):
        hosts[name] = out / name
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{fmi2_headers()}",
                        str(ROOT / "tests" / "c_host" / f"{name}.c"), "-o", str(hosts[name]),
                        *flags], check=True)
    return hosts


def _run(command) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          timeout=TIMEOUT)


def test_two_threads_stepping_one_native_instance_leave_it_consistent(c_hosts, built, extracted):
    """tests/c_host/threads.c one-instance, as tests/test_fmi2_threads.py runs it on the
    development FMU: the calls run one after the other, every communication point accepted
    once. The native runtime had no lock: steps taken twice from one point, gaps, then a
    state gone non-finite."""
    folder, md = extracted(built("sedan")[0])
    vr = {v.name: v.valueReference for v in md.modelVariables}
    done = _run([c_hosts["threads"], "one-instance", folder, md.coSimulation.modelIdentifier,
                 md.guid, 2000, f"{vr['car.throttle']}=0.4", f"{vr['car.steeringWheelAngle']}=0.5",
                 vr["car.engineSpeed"], vr["car.Z"]])
    report = done.stdout + done.stderr[-3000:]
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "done", report
    result = dict(line.split(" ", 1) for line in done.stdout.splitlines()[:-1]
                  if not line.startswith("value "))
    assert int(result["accepted"]) + int(result["refused"]) == 4000, report
    assert result["duplicates"] == "0" and result["gaps"] == "0", report
    assert result["after"] == "0" and int(result["nested"]) >= 1, report
    values = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("value ")]
    assert all(v[1] == v[2] for v in values), report   # as an instance stepped alone


@pytest.mark.parametrize("instances", ["own", "same"])
def test_real_time_threads_of_two_priorities_on_one_cpu_both_go_on(instances, c_hosts, built,
                                                                    extracted):
    """tests/c_host/priority.c: a SCHED_FIFO thread of priority 10 calling fmi2GetReal on one
    instance without pause and one of priority 20 calling every 200 us on another instance
    ("own", legal FMI use) or on the same one ("same": serialised), both on one CPU, as on a
    real-time target. The runtime's locks were spins: the high thread, finding the registry's
    lock held by the low one, spun for ever at its higher priority, and both stopped within
    the first second (every run, also on ARM64). Its locks now put a waiting thread to sleep
    (a futex; on Windows a slim reader/writer lock)."""
    folder, md = extracted(built("sedan")[0])
    vr = {v.name: v.valueReference for v in md.modelVariables}
    done = _run([c_hosts["priority"], f"{folder}/binaries/linux64/{md.coSimulation.modelIdentifier}.so",
                 f"file://{folder}/resources/", md.guid, vr["car.speed"], 3]
                + (["same"] if instances == "same" else []))
    print(done.stdout, done.stderr)
    assert done.returncode == 0 and "H went on calling for 3 s" in done.stdout, (
        done.returncode, done.stdout, done.stderr)


def test_freeing_a_native_instance_while_two_threads_step_it(c_hosts, built, extracted):
    """fmi2FreeInstance while two threads step the instance: it waits for the call in
    progress, every later call is refused; it crashed with SIGSEGV in 5 runs of 5."""
    folder, md = extracted(built("sedan")[0])
    for _ in range(3):
        done = _run([c_hosts["threads"], "free-while-stepping", folder,
                     md.coSimulation.modelIdentifier, md.guid])
        report = done.stdout + done.stderr[-3000:]
        assert done.returncode == 0 and done.stdout.splitlines()[-1] == "done", report
        result = dict(line.split(" ", 1) for line in done.stdout.splitlines()[:-1] if " " in line)
        assert result["refused-after-free"] == "100" and result["late-ok"] == "0", report


@pytest.mark.parametrize("flavour", [0, 1], ids=["native", "development"])
def test_a_logger_reading_back_during_a_refused_initialisation(flavour, c_hosts, built,
                                                               extracted):
    """tests/c_host/reentrant_logger.c "always" with car.speed0 = 250 at initialisation: the
    logger reads car.X for every message, and each read is refused (the parameters are not
    accepted) with a message of its own. The refusal reaches the logger once and its reads'
    messages do not: both FMUs recursed into the logger about 8000 deep and crashed."""
    folder, md = extracted(built("sedan")[flavour])
    vr = {v.name: v.valueReference for v in md.modelVariables}
    done = _run([c_hosts["reentrant_logger"], folder, md.coSimulation.modelIdentifier, md.guid,
                 vr["car.X"], vr["car.throttle"], "always", vr["car.speed0"], 250])
    report = done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "survived", report
    logged = [line for line in done.stdout.splitlines() if line.startswith("log ")
              and line.split()[2] == "3"]
    assert len(logged) == 1 and "car.speed0 = 250.0 rejected" in logged[0], report
    nested = [line for line in done.stdout.splitlines() if line.startswith("nested ")]
    assert nested == ["nested 0 3"], report
