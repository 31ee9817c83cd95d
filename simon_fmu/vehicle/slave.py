"""The slave: a thin FMI 2.0 Co-Simulation wrapper over :class:`engine.Simulation`.

A ``pythonfmu.Fmi2Slave`` subclass, run by the project's own FMI library
(:mod:`simon_fmu.runtime.fmi2_library`, the default) or by pythonfmu 0.7.0's (``build --library
pythonfmu``); :mod:`simon_fmu.runtime.protocol` tells them apart. Life of an instance (the library
calls these methods from the FMI functions):

- ``__init__`` (fmi2Instantiate, fmi2Reset, and once at build time) reads the event from the
  resources folder (with a mesh or crg terrain's file, which the event there names relative to that
  folder) and registers the catalogue's variables. It builds no simulation.
- Inputs and parameters set before or during initialisation are kept by the slave. The
  :class:`engine.Simulation` is built from the parameters when initialisation ends, or
  earlier when an output or calculated parameter is read during initialisation.
- ``do_step`` copies the inputs into the engine, checks them, advances the engine to the end
  of the communication step and so refreshes the outputs, which are read from the engine's
  arrays.
- A rejected input (NaN, infinite, outside its min/max) is checked by ``do_step``: fmi2SetReal
  takes the value (fmi2OK), and the next fmi2DoStep answers fmi2Error, as does an engine
  failure. Both are logged (category logStatusError, naming the variable and its value, or
  the engine's reason); fmi2LastSuccessfulTime is the start of that step, and later steps are
  refused with fmi2Error too, until fmi2SetFMUstate restores a good state or fmi2Reset.
- A parameter that is not finite or outside its min/max makes fmi2ExitInitializationMode
  answer fmi2Error, with a message that names it.
- Reading an output or calculated parameter during initialisation while a parameter is not
  accepted answers fmi2Error, with the same message (as a compiled FMU whose initial
  equations fail does); nothing is remembered, so once the parameter is corrected the
  outputs can be read and initialisation ends normally. After a failed
  fmi2ExitInitializationMode, reading them is fmi2Error too (no NaN with fmi2OK).
- A value reference of another type (or none of this FMU) in fmi2Get/Set* is fmi2Error,
  logged; the other values of that call are still read or written.
- The project's library calls ``fmi2_get_real(vrs, values)`` and its siblings: one Python
  call per FMI call, on memoryviews of the caller's arrays.

Under pythonfmu 0.7.0's library a refused step is fmi2Discard (``do_step`` answers False),
the other statuses are fmi2OK, and any exception escaping into that library ends the
instance with fmi2Fatal; so no method here lets one escape under either library.

The FMU state (fmi2GetFMUstate) is the whole engine state (``Simulation.get_state``) plus the
slave's own values: inputs, parameters, time and failure. Serialised, it is an ``.npz`` (no
pickle) holding those arrays, a JSON header and the engine's ``serialize_state`` bytes.
"""
from __future__ import annotations

import functools
import io
import json
import math
import sys
import traceback
from pathlib import Path
from typing import Optional

import numpy as np
from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Integer, Real, String
from pythonfmu.enums import Fmi2Status

import engine
from engine.setup.fields import INTEGRATORS
from model_description.catalogue import ENUMERATIONS, Catalogue, Variable, build_catalogue
from model_description.writer import LOG_CATEGORIES
from simon_fmu.runtime.checksum import STATE_BASIS, fnv1a64
from simon_fmu.runtime.protocol import (ERROR, OK, WARNING, CallRefused, Protocol,
                                        check_resources, range_problem)

#: The event file in the FMU's resources folder.
EVENT_FILE = "event.json"
#: A mesh or crg terrain's file in the FMU's resources folder, next to EVENT_FILE, by terrain
#: type: the event there names it relative to its own folder, so ``engine.load_event`` finds it
#: wherever the FMU is unpacked.
TERRAIN_FILES = {"mesh": "terrain.obj", "crg": "terrain.crg"}
TERRAIN_FILE = TERRAIN_FILES["mesh"]

_STATE_FORMAT = "simon-fmu-state/1"
_INPUT_SOURCES = ("u_unit", "u_wheel", "u_env")
#: The engine's output arrays (``y_axle``: solid axles, ``y_conn``: connections of towed units,
#: ``y_steer``: steering systems); an FMU reads, and keeps in its FMU state, those its
#: catalogue binds (:func:`_output_sources`).
_OUTPUT_SOURCES = ("y_unit", "y_wheel", "y_tire", "y_axle", "y_conn", "y_steer", "y_solver")
#: an Enumeration is an Integer to FMI 2.0's get and set functions
_TYPES = {"Real": Real, "Integer": Integer, "Boolean": Boolean, "Enumeration": Integer}
#: From this many values on, fmi2GetReal of outputs gathers them with NumPy in one go.
_GATHER_MIN = 8


@functools.lru_cache(maxsize=16)
def _load(event_path: str, stamp: tuple) -> tuple["engine.Event", Catalogue]:
    """The event and catalogue of an FMU, read once per process (``stamp`` detects changes)."""
    event = engine.load_event(event_path)
    return event, build_catalogue(event)


def _input_arrays(event, catalogue: Catalogue) -> dict[str, np.ndarray]:
    """The slave's copy of the engine's input arrays, filled with the start values.

    Rows without variables (the unit inputs of a towed unit, which the engine does not read)
    keep the inputs' defaults, as the engine's own arrays start.
    """
    arrays = {"u_unit": np.zeros((len(event.units), len(engine.UNIT_INPUTS))),
              "u_wheel": np.zeros((len(event.wheel_names()), len(engine.WHEEL_INPUTS))),
              "u_env": np.zeros(len(engine.ENV_INPUTS))}
    for source, fields in (("u_unit", engine.UNIT_INPUTS), ("u_wheel", engine.WHEEL_INPUTS),
                           ("u_env", engine.ENV_INPUTS)):
        for j, key in enumerate(fields):
            arrays[source][..., j] = engine.INPUT_LIMITS[key][2]
    for v in catalogue.with_causality("input"):
        arrays[v.binding.source][v.binding.index] = v.start
    return arrays


def _output_sources(catalogue: Catalogue) -> tuple[str, ...]:
    """The engine output arrays that ``catalogue``'s outputs read, in _OUTPUT_SOURCES order
    (a car has no solid axle and no connection, so no ``y_axle`` and no ``y_conn``)."""
    used = {v.binding.source for v in catalogue.with_causality("output")}
    return tuple(s for s in _OUTPUT_SOURCES if s in used)


class _SlaveState:
    """What fmi2GetFMUstate hands out: the slave's values and the engine's state."""

    def __init__(self, header: dict, arrays: dict, engine_state=None, serializer=None,
                 engine_blob: Optional[bytes] = None):
        self.header = header            # JSON-able: params, time, started, failure
        self.arrays = arrays            # inputs and outputs, numpy copies
        self.engine_state = engine_state
        self.serializer = serializer    # the Simulation.serialize_state that can encode it
        self.engine_blob = engine_blob
        self.blob: Optional[bytes] = None

    def to_bytes(self) -> bytes:
        if self.blob is None:
            if self.engine_blob is None and self.engine_state is not None:
                self.engine_blob = bytes(self.serializer(self.engine_state))
            buf = io.BytesIO()
            np.savez(buf, header=np.frombuffer(json.dumps(self.header).encode(), np.uint8),
                     engine=np.frombuffer(self.engine_blob or b"", np.uint8), **self.arrays)
            self.blob = buf.getvalue()
        return self.blob

    @classmethod
    def from_bytes(cls, blob: bytes) -> "_SlaveState":
        with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as npz:
            header = json.loads(npz["header"].tobytes().decode())
            if header.get("format") != _STATE_FORMAT:
                raise ValueError(f"not a {_STATE_FORMAT} FMU state")
            arrays = {k: npz[k].copy() for k in npz.files if k not in ("header", "engine")}
            engine_blob = npz["engine"].tobytes() if header["has_engine"] else None
        return cls(header, arrays, engine_blob=engine_blob)


#: a serialised FMU state's framing by the project's FMI library (simon_fmu/runtime/native/
#: fmi2_state.c): the mark, then the GUID's length at byte 12 and its payload's at 16; the GUID
#: from byte 80, the slave's bytes after it
_STATE_MARK, _STATE_HEAD = b"SIMONFMU", 80
#: its format version (at byte 8) and where its FNV-1a 64 checksum (at byte 24) starts
_STATE_VERSION, _CHECKED_FROM = 1, 32


def state_vector(blob: bytes, guid: Optional[str] = None) -> np.ndarray:
    """The engine's state vector y (engine.layout) in a serialised FMU state of a development
    FMU (fmi2SerializeFMUstate's bytes; with ``guid``, of that FMU): ValueError saying why when
    the bytes are not one."""
    blob = bytes(blob)
    if len(blob) < _STATE_HEAD or blob[:len(_STATE_MARK)] != _STATE_MARK:
        raise ValueError("not a serialised FMU state of a development FMU")
    if int.from_bytes(blob[8:12], sys.byteorder) != _STATE_VERSION:
        raise ValueError(f"a serialised FMU state of format version "
                         f"{int.from_bytes(blob[8:12], sys.byteorder)}; this reads {_STATE_VERSION}")
    guid_length = int.from_bytes(blob[12:16], sys.byteorder)
    payload_length = int.from_bytes(blob[16:24], sys.byteorder)
    start = _STATE_HEAD + guid_length
    if len(blob) != start + payload_length:
        raise ValueError(f"a serialised FMU state of {len(blob)} bytes whose header says "
                         f"{start + payload_length}: cut short or extended")
    if fnv1a64(blob[_CHECKED_FROM:], STATE_BASIS) != int.from_bytes(blob[24:32],
                                                                      sys.byteorder):
        raise ValueError("the serialised FMU state's checksum does not match its contents "
                         "(damaged)")
    if guid is not None and blob[_STATE_HEAD:start].decode(errors="replace") != guid:
        raise ValueError("a serialised FMU state of another FMU (its GUID differs)")
    try:
        state = _SlaveState.from_bytes(blob[start:])
        if state.engine_blob is None:
            raise ValueError("it holds no engine state (taken before initialisation)")
        with np.load(io.BytesIO(state.engine_blob), allow_pickle=False) as npz:
            return npz["y"].copy()
    except Exception as exc:  # noqa: BLE001 - any corruption is reported the same way
        raise ValueError(f"the serialised FMU state cannot be read: {exc}") from None


class _Unavailable(Exception):
    """An output cannot be read now; the message says why (a rejected parameter)."""


class SimonSlave(Fmi2Slave):
    """SIMON vehicle dynamics as an FMI 2.0 Co-Simulation slave."""

    author = "simon-fmu"
    description = "SIMON vehicle dynamics (HVE)"
    log_categories = dict(LOG_CATEGORIES)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._protocol = Protocol(kwargs, self.resources)
        check_resources(self.resources)
        event_path = Path(self.resources) / EVENT_FILE
        st = event_path.stat()
        self._event, self._catalogue = _load(str(event_path), (st.st_mtime_ns, st.st_size))
        self._inputs = _input_arrays(self._event, self._catalogue)
        self._outputs = _output_sources(self._catalogue)
        self._params = {v.binding: v.start for v in self._catalogue.with_causality("parameter")}
        self._sim: Optional[engine.Simulation] = None
        self._sim_params: Optional[dict] = None   # the parameters self._sim was built with
        self._sim_wheels: Optional[np.ndarray] = None   # and the wheel inputs (an external road)
        self._start_time = 0.0
        self._time = 0.0            # the communication point the next doStep must start at
        self._started = False       # initialisation has ended
        self._failure: Optional[str] = None
        # per type, by value reference: the variable's getter and setter (None: another type)
        self._getters = {t: [None] * len(self._catalogue) for t in (Real, Integer, Boolean)}
        self._setters = {t: [None] * len(self._catalogue) for t in (Real, Integer, Boolean)}
        for v in self._catalogue:
            self._register(v)
        self._gather: Optional[tuple] = None   # (sim, flat buffer, vr -> position or -1)

    # ----------------------------------------------------------------- variables
    def _register(self, v: Variable) -> None:
        getter, setter = self._accessors(v)
        var = _TYPES[v.type](v.name, causality=Fmi2Causality[v.causality],
                             getter=getter, setter=setter)
        self.register_variable(var, nested=False)
        if var.value_reference != v.value_reference:
            raise RuntimeError(f"{v.name}: value reference {var.value_reference} differs "
                               f"from the catalogue's {v.value_reference}")
        kind = _TYPES[v.type]
        if kind in self._getters:
            self._getters[kind][v.value_reference] = var.getter
            self._setters[kind][v.value_reference] = var.setter

    def _accessors(self, v: Variable):
        source, index = v.binding
        if source in _INPUT_SOURCES:
            values = self._inputs[source]
            convert = int if v.type == "Integer" else float

            def get():
                return convert(values[index])

            def set_(value):
                values[index] = value
            return get, set_
        if source in ("parameter", "initial", "steering"):
            return (lambda: self._params[v.binding]), (lambda value: self._set_parameter(v, value))
        if source == "calculated":
            return (lambda: self._calculated(*index)), (lambda value: self._refuse_set(v))
        default = False if v.type == "Boolean" else math.nan
        convert = {"Boolean": bool, "Integer": int, "Enumeration": int}.get(v.type, float)

        def get_output():
            sim = self._sim if self._started else self._simulation(final=False)
            if sim is None:
                raise _Unavailable(self._failure or "there is no simulation")
            return convert(getattr(sim, source)[index])
        return get_output, (lambda value: self._refuse_set(v))

    def _set_parameter(self, v: Variable, value) -> Optional[int]:
        if self._started:
            self._log_warning(f"parameter {v.name} is fixed after initialisation; "
                              f"{value!r} ignored")
            return WARNING
        self._params[v.binding] = value
        return None

    def _refuse_set(self, v: Variable) -> int:
        article = "an" if v.causality[0] in "aeiou" else "a"     # as the native FMU says it
        self._log_warning(f"{v.name} is {article} {v.causality} and cannot be set; ignored")
        return WARNING

    def _calculated(self, unit: str, key: str) -> float:
        sim = self._simulation(final=self._started)
        if sim is None:
            raise _Unavailable(self._failure or "there is no simulation")
        return float(sim.unit_mass(unit) if key == "mass" else sim.unit_wheelbase(unit))

    # pythonfmu's getters and setters raise TypeError for a value reference of another type,
    # which ends the instance with fmi2Fatal and corrupts memory when it is freed; these log
    # the mistake instead and leave the value alone (setters) or answer NaN/0/False (getters).
    def _get(self, vrs, kind, convert, fallback, function):
        out = []
        for vr in vrs:
            var = self.vars.get(vr)
            if not isinstance(var, kind):
                self._log_error(f"{function}: value reference {vr} is no {kind.__name__} variable")
                out.append(fallback)
                continue
            try:
                out.append(convert(var.getter()))
            except _Unavailable as exc:
                self._log_error(f"{function}: {var.name} cannot be read: {exc}")
                out.append(fallback)
            except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
                self._log_error(f"{function}: {var.name} could not be read ({exc!r})")
                out.append(fallback)
        return out

    def _set(self, vrs, values, kind, function):
        for vr, value in zip(vrs, values):
            var = self.vars.get(vr)
            if isinstance(var, kind):
                var.setter(value)
            else:
                self._log_error(f"{function}: value reference {vr} is no {kind.__name__} "
                                f"variable; {value!r} ignored")

    def get_real(self, vrs):
        return self._get(vrs, Real, float, math.nan, "fmi2GetReal")

    def get_integer(self, vrs):
        return self._get(vrs, Integer, int, 0, "fmi2GetInteger")

    def get_boolean(self, vrs):
        return self._get(vrs, Boolean, bool, False, "fmi2GetBoolean")

    def _only_strings(self, vrs):
        """The FMU has no String variable a host could read or set: a value reference that is
        not one refuses the call (fmi2Error), as the other types' calls answer."""
        for vr in vrs:
            if not isinstance(self.vars.get(vr), String):
                raise CallRefused(f"value reference {vr} is no String variable")

    def get_string(self, vrs):
        self._only_strings(vrs)
        return self._get(vrs, String, str, "", "fmi2GetString")

    def set_real(self, vrs, values):
        self._set(vrs, values, Real, "fmi2SetReal")

    def set_integer(self, vrs, values):
        self._set(vrs, values, Integer, "fmi2SetInteger")

    def set_boolean(self, vrs, values):
        self._set(vrs, values, Boolean, "fmi2SetBoolean")

    def set_string(self, vrs, values):
        self._only_strings(vrs)
        self._set(vrs, values, String, "fmi2SetString")

    # The project's library: one call per fmi2Get/Set*, the values in memoryviews of the
    # caller's arrays (vrs: unsigned ints; values: doubles for Real, ints otherwise).
    def _fmi2_get(self, vrs, values, kind, fallback, function) -> int:
        getters = self._getters[kind]
        try:
            for i, vr in enumerate(vrs):
                values[i] = getters[vr]()
            return OK
        except Exception:  # noqa: BLE001 - find and name the culprits one by one
            pass
        status = OK
        unavailable: dict[str, list[str]] = {}    # reason -> the variables it keeps unread
        for i, vr in enumerate(vrs):
            getter = getters[vr] if vr < len(getters) else None
            if getter is None:
                self._log_error(f"{function}: value reference {vr} is no {kind.__name__} "
                                "variable")
                values[i], status = fallback, ERROR
                continue
            try:
                values[i] = getter()
            except _Unavailable as exc:
                unavailable.setdefault(str(exc), []).append(self.vars[vr].name)
                values[i], status = fallback, ERROR
            except Exception as exc:  # noqa: BLE001
                self._log_error(f"{function}: {self.vars[vr].name} could not be read ({exc!r})")
                values[i], status = fallback, ERROR
        for reason, names in unavailable.items():
            self._log_error(f"{function}: {', '.join(names)} cannot be read: {reason}")
        return status

    def _fmi2_set(self, vrs, values, kind, function) -> int:
        setters = self._setters[kind]
        status = OK
        for vr, value in zip(vrs, values):
            setter = setters[vr] if vr < len(setters) else None
            if setter is None:
                self._log_error(f"{function}: value reference {vr} is no {kind.__name__} "
                                f"variable; {value!r} ignored")
                status = ERROR
                continue
            answer = setter(bool(value) if kind is Boolean else value)
            if answer:
                status = max(status, answer)
        return status

    def fmi2_get_real(self, vrs, values):
        sim = self._sim
        if len(vrs) >= _GATHER_MIN and self._started and sim is not None:
            gather = self._gather if self._gather and self._gather[0] is sim \
                else self._make_gather(sim)
            try:
                where = gather[2][np.frombuffer(vrs, np.uint32)]
            except IndexError:
                where = None
            if where is not None and where.min() >= 0:    # all outputs: one gather
                flat = np.concatenate([getattr(sim, s) for s in self._outputs], axis=None,
                                      out=gather[1])
                np.take(flat, where, out=np.frombuffer(values, np.float64))
                return OK
        return self._fmi2_get(vrs, values, Real, math.nan, "fmi2GetReal")

    def _make_gather(self, sim) -> tuple:
        offsets, total = {}, 0
        for source in self._outputs:
            offsets[source] = total
            total += getattr(sim, source).size
        where = np.full(len(self._catalogue), -1, np.intp)
        for v in self._catalogue.with_causality("output"):
            if v.type == "Real":
                source, index = v.binding
                where[v.value_reference] = offsets[source] + int(
                    np.ravel_multi_index(index, getattr(sim, source).shape))
        self._gather = (sim, np.empty(total), where)
        return self._gather

    def fmi2_get_integer(self, vrs, values):
        return self._fmi2_get(vrs, values, Integer, 0, "fmi2GetInteger")

    def fmi2_get_boolean(self, vrs, values):
        return self._fmi2_get(vrs, values, Boolean, False, "fmi2GetBoolean")

    def fmi2_set_real(self, vrs, values):
        return self._fmi2_set(vrs, values, Real, "fmi2SetReal")

    def fmi2_set_integer(self, vrs, values):
        return self._fmi2_set(vrs, values, Integer, "fmi2SetInteger")

    def fmi2_set_boolean(self, vrs, values):
        return self._fmi2_set(vrs, values, Boolean, "fmi2SetBoolean")

    # ----------------------------------------------------------------- simulation
    def _parameter_problem(self) -> Optional[str]:
        return range_problem("parameter", self._catalogue.with_causality("parameter"),
                             lambda v: self._params[v.binding], ENUMERATIONS)

    def _simulation(self, final: bool = True) -> Optional["engine.Simulation"]:
        """The engine, (re)built from the current parameters if they changed.

        Parameters that are not accepted are a failure of the instance when ``final`` (at
        the end of initialisation); otherwise (a read during initialisation) they raise
        :class:`_Unavailable` and leave nothing behind, so the importer can correct them.
        """
        if self._failure is not None:
            return self._sim
        wheels = self._inputs["u_wheel"]
        if self._sim is not None and self._sim_params == self._params and (
                self._started or np.array_equal(self._sim_wheels, wheels, equal_nan=True)):
            return self._sim    # (before the start, the wheel inputs place it on a road too)
        self._sim = None
        problem = self._parameter_problem()
        if problem is None:
            initial: dict = {}
            steering: dict = {}
            for (source, index), value in self._params.items():
                if source == "initial":
                    initial.setdefault(index[0], {})[index[1]] = float(value)
                elif source == "steering":
                    steering[index[0]] = int(value)
            try:
                self._sim = engine.Simulation(
                    self._event,
                    step_size=float(self._params[("parameter", ("stepSize",))]),
                    friction_multiplier=float(
                        self._params[("parameter", ("frictionMultiplier",))]),
                    substeps=int(self._params[("parameter", ("substeps",))]),
                    integrator=INTEGRATORS[int(self._params[("parameter", ("integrator",))]) - 1],
                    initial=initial, steering_modes=steering,
                    # an external road's inputs at initialisation place the vehicle on it
                    wheel_inputs=wheels if np.isfinite(wheels).all() else None,
                    warn=False)     # its warnings are logged at exitInitializationMode
            except engine.EventError as exc:
                problem = "the parameters are not accepted: " + "; ".join(exc.problems)
            except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
                self._fail_unexpected("building the simulation", exc)
        self._sim_params = dict(self._params)
        self._sim_wheels = wheels.copy()
        if problem is not None:
            if not final:
                raise _Unavailable(problem)
            self._fail(problem)
        return self._sim

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self._start_time = self._time = float(start_time)

    def exit_initialization_mode(self):
        if self._failure is not None:      # an earlier end of initialisation failed
            self._log_error(f"fmi2ExitInitializationMode refused: the instance failed earlier "
                            f"({self._failure}); reset it")
            return self._protocol.answer(ERROR)
        sim = self._simulation()
        self._started = True
        if sim is None:
            return self._protocol.answer(ERROR)    # the reason is logged
        self._log(f"simulation built: units {[u.name for u in self._event.units]}, "
                  f"internal step {self._params[('parameter', ('stepSize',))]} s",
                  Fmi2Status.ok, "logAll")
        for message in sim.warnings:     # accepted, but implausible (a speed in km/h?)
            self._log_warning(message)
        return self._protocol.answer(WARNING) if sim.warnings else OK

    def do_step(self, current_time: float, step_size: float):
        try:
            status = self._do_step(float(current_time), float(step_size))
        except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
            self._fail_unexpected(f"the step from t={current_time!r}", exc)
            status = ERROR
        return self._protocol.answer(status)

    def _do_step(self, t: float, h: float) -> int:
        if self._failure is not None:
            self._log_error(f"doStep at t={t!r} refused: the instance failed earlier "
                            f"({self._failure}); restore an FMU state or reset it")
            return ERROR
        sim = self._sim
        if not self._started or sim is None:
            self._log_error("doStep refused: initialisation has not ended")
            return ERROR
        if not (h > 0.0 and math.isfinite(h)):
            self._log_error(f"doStep refused: communication step size {h!r} is not > 0")
            return ERROR
        if abs(t - self._time) > 1e-9 * max(1.0, abs(self._time)):
            self._log_error(f"doStep refused: communication point t={t!r} does not continue "
                            f"the last one, t={self._time!r}")
            return ERROR
        for source in _INPUT_SOURCES:
            np.copyto(getattr(sim, source), self._inputs[source])
        try:
            sim.check_inputs()
        except engine.InputError as exc:   # its field is the FMU variable's name
            return self._fail(f"t={t!r}: input {exc.field} = {exc.value!r} rejected: "
                              f"it accepts {exc.accepts}")
        try:
            sim.advance(t + h - self._start_time, inputs_checked=True)
        except engine.InputError as exc:   # the step itself (t_end): refused before it starts
            self._log_error(f"doStep refused: communication step from t={t!r} of {h!r} s: "
                            f"{exc.field} = {exc.value!r}, it accepts {exc.accepts}")
            return ERROR
        except engine.SimulationError as exc:
            return self._fail(f"simulation stopped at t={sim.time + self._start_time!r}: {exc}")
        self._time = t + h
        return OK

    # ----------------------------------------------------------------- logging and failure
    def _log(self, message: str, status: Fmi2Status, category: str) -> None:
        self.log(self._protocol.text(message), status, category)

    def _log_error(self, message: str) -> None:
        self._log(message, Fmi2Status.error, "logStatusError")

    def _log_warning(self, message: str) -> None:
        self._log(message, Fmi2Status.warning, "logStatusWarning")

    def _fail(self, reason: str) -> int:
        """Remember and log a failure; later steps are refused. Returns ERROR for do_step."""
        self._failure = reason
        self._log_error(reason)
        return ERROR

    def _fail_unexpected(self, what: str, exc: Exception) -> None:
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        where = traceback.extract_tb(exc.__traceback__)[-1:]
        place = f" at {where[0].filename}:{where[0].lineno}" if where else ""
        self._fail(f"internal error in {what}: {detail}{place}")

    # ----------------------------------------------------------------- FMU state
    def _get_fmu_state(self) -> _SlaveState:
        sim = self._sim
        header = {"format": _STATE_FORMAT, "time": self._time, "start_time": self._start_time,
                  "started": self._started, "failure": self._failure,
                  "params": [[list(_flat(k)), value] for k, value in self._params.items()],
                  "has_engine": sim is not None}
        arrays = {s: a.copy() for s, a in self._inputs.items()}
        if sim is None:
            return _SlaveState(header, arrays)
        arrays.update({s: getattr(sim, s).copy() for s in self._outputs})
        return _SlaveState(header, arrays, sim.get_state(), sim.serialize_state)

    def _set_fmu_state(self, state: _SlaveState):
        """Restore ``state``, all or nothing: a state that cannot be restored is refused with
        ERROR, and the instance is left as it was."""
        sim = self._sim
        saved = (self._params, {s: a.copy() for s, a in self._inputs.items()}, sim,
                 self._sim_params, self._sim_wheels, self._start_time, self._time, self._started,
                 self._failure)
        engine_saved = None if sim is None else (
            sim.get_state(), {s: getattr(sim, s).copy() for s in self._outputs})
        try:
            self._restore(state)
            return self._protocol.answer(OK)
        except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
            (self._params, inputs, self._sim, self._sim_params, self._sim_wheels,
             self._start_time, self._time, self._started, self._failure) = saved
            for s in _INPUT_SOURCES:
                np.copyto(self._inputs[s], inputs[s])
            if engine_saved is not None:     # what was there, as it was
                sim.set_state(engine_saved[0], check_inputs=False)
                for s in self._outputs:
                    np.copyto(getattr(sim, s), engine_saved[1][s])
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self._log_error(f"fmi2SetFMUstate refused, the instance is unchanged: {detail}")
            return self._protocol.answer(ERROR)

    def _restore(self, state: _SlaveState) -> None:
        """Put ``state`` in place; raises ValueError if it is not one of this FMU's."""
        if not isinstance(state, _SlaveState):
            raise ValueError(f"{type(state).__name__} is not an FMU state of this FMU")
        h = state.header
        params = {_unflat(k): value for k, value in h["params"]}
        if params.keys() != self._params.keys():
            raise ValueError("the state's parameters are not this FMU's")
        for s in _INPUT_SOURCES + (self._outputs if h["has_engine"] else ()):
            if s not in state.arrays:
                raise ValueError(f"the state has no {s}: it is not one of this FMU's")
        for s in _INPUT_SOURCES:
            if state.arrays[s].shape != self._inputs[s].shape:
                raise ValueError(f"the state's {s} has the shape {state.arrays[s].shape}, this "
                                 f"FMU's {self._inputs[s].shape}")
        self._params = params
        for s in _INPUT_SOURCES:
            np.copyto(self._inputs[s], state.arrays[s])
        self._failure = None
        self._start_time, self._time, self._started = h["start_time"], h["time"], h["started"]
        if h["has_engine"]:
            sim = self._simulation()
            if sim is None:
                raise ValueError(f"the state's simulation cannot be built: {self._failure}")
            # a failed instance's state keeps the input it refused (its steps are refused)
            sim.set_state(state.engine_state if state.engine_state is not None
                          else sim.deserialize_state(state.engine_blob),
                          check_inputs=h["failure"] is None)
            for s in self._outputs:
                np.copyto(getattr(sim, s), state.arrays[s])
        self._failure = h["failure"]

    @staticmethod
    def _fmu_state_to_bytes(state: _SlaveState) -> bytes:
        return state.to_bytes()

    @staticmethod
    def _fmu_state_from_bytes(state: bytes) -> _SlaveState:
        """The state of ``state``'s bytes; ValueError if they are not one of this FMU's."""
        try:
            decoded = _SlaveState.from_bytes(state)
            h = decoded.header
            for key in ("time", "start_time", "started", "failure", "params", "has_engine"):
                h[key]
            for s in _INPUT_SOURCES + (("y_unit",) if h["has_engine"] else ()):
                decoded.arrays[s]    # the outputs this FMU binds are checked on restore
        except Exception as exc:  # noqa: BLE001 - any corruption is reported the same way
            raise ValueError(f"not a serialised FMU state of this FMU ({exc!r})") from None
        return decoded


def _flat(binding) -> tuple:
    source, index = binding
    return (source, *index)


def _unflat(flat) -> tuple:
    return (flat[0], tuple(flat[1:]))
