"""The pythonfmu slaves of the controller FMUs: thin wrappers over :mod:`simon_fmu.controllers.driver` and
:mod:`simon_fmu.controllers.abs_controller`.

Each registers the variables of its catalogue (:mod:`model_description.controllers`), keeps
parameters and inputs in dicts, builds its controller when initialisation ends, and in
``do_step(t, h)`` hands the inputs at ``t`` to the controller, whose answer becomes the
outputs for ``t + h``. The FMU's resources hold ``controller.json``: which controller, the
start values of the parameters that describe the vehicle it was built for, and for the ABS
that vehicle's wheel names. As in the vehicle's slave, nothing raises into pythonfmu: a
problem is logged (category logStatusError) and the call answers fmi2Error:

- a parameter that is not finite or outside its declared min/max, or that the controller
  does not accept, fails fmi2ExitInitializationMode, naming it and what it accepts;
- an input that is not finite or outside its declared min/max fails the next fmi2DoStep,
  naming it and its range; later steps are refused;
- reading an output during initialisation builds a controller for the moment from the
  parameters and inputs as they are; if one of them is not accepted the read answers
  fmi2Error naming it, and nothing is remembered: once it is corrected the outputs read
  and initialisation ends normally.

The FMU state is a deep copy of the controller (JSON when serialised).
"""
from __future__ import annotations

import copy
import dataclasses
import json
import math
import traceback
from pathlib import Path
from typing import Optional

from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from model_description.controllers import abs_catalogue, driver_catalogue
from model_description.writer import LOG_CATEGORIES

from . import abs_controller, driver
from ..runtime.protocol import ERROR, OK, Protocol, check_resources, range_problem

#: The controller description in the FMU's resources folder.
CONTROLLER_FILE = "controller.json"
_TYPES = {"Real": Real, "Integer": Integer, "Boolean": Boolean, "String": String}


class _ControllerSlave:
    """What both controller slaves share: variables, parameters, stepping, state.

    A mixin: pythonfmu 0.7.0's loader takes as the slave a class whose direct bases
    include Fmi2Slave, so each slave names Fmi2Slave itself.
    """

    author = "simon-fmu"
    log_categories = dict(LOG_CATEGORIES)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._protocol = Protocol(kwargs, self.resources)
        check_resources(self.resources)
        self._config = json.loads((Path(self.resources) / CONTROLLER_FILE).read_text())
        self._catalogue = self._make_catalogue()
        self._catalogue_causality = {v.binding.index: v.causality for v in self._catalogue}
        self._by_vr = {v.value_reference: v for v in self._catalogue}
        self._values = {v.binding.index: v.start for v in self._catalogue}
        self._initial: Optional[tuple] = None    # (values, problem) of the last initial read
        self._controller = None
        self._time = 0.0
        self._failure: Optional[str] = None
        for v in self._catalogue:
            var = _TYPES[v.type](v.name, causality=Fmi2Causality[v.causality],
                                 getter=self._getter(v), setter=self._setter(v))
            self.register_variable(var, nested=False)

    def _getter(self, v):
        key = v.binding.index
        convert = {"Real": float, "Integer": int, "Boolean": bool, "String": str}[v.type]
        fallback = {"Real": math.nan, "Integer": 0, "Boolean": False, "String": ""}[v.type]

        output = v.causality == "output"

        def get():
            if output and self._controller is None and self._initial_outputs():
                return fallback
            value = self._values.get(key)
            return fallback if value is None else convert(value)
        return get

    def _initial_outputs(self) -> Optional[str]:
        """The outputs during initialisation, from the parameters and inputs as they are;
        returns why they cannot be computed (None: they are in ``self._values``).

        An importer that exchanges values in initialisation mode (libcosim does) reads them
        before the controller is built: a controller built for the moment answers, and is
        dropped again, so that parameters can still be set.
        """
        if self._failure is not None:
            return self._failure
        now = ({k: v for k, v in self._values.items()
                if self._catalogue_causality[k] != "output"}, self._time)
        if self._initial is not None and self._initial[0] == now:
            return self._initial[1]
        problem = self._problem("parameter") or self._problem("input")
        if problem is None:
            try:
                self._controller = self._build(self._parameters())
                self._step(self._time, 0.0)
            except (ValueError, driver.PathError) as exc:
                problem = f"the parameters are not accepted: {exc}"
            except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                problem = f"internal error in building the controller: {detail}"
            finally:
                self._controller = None
        self._initial = (now, problem)
        return problem

    def _problem(self, causality: str) -> Optional[str]:
        """The first parameter or input (``causality``) that is not finite or outside its
        declared range, with what it accepts (None: all are accepted)."""
        return range_problem(
            causality, (v for v in self._catalogue.with_causality(causality)
                        if v.type in ("Real", "Integer")),
            lambda v: self._values[v.binding.index])

    # The project's library: one call per fmi2Get*, the values in memoryviews of the
    # caller's arrays; an output that cannot be computed is fmi2Error with the reason.
    def _fmi2_get(self, vrs, values, kind: str, function: str) -> int:
        status, problem = OK, None
        convert = {"Real": float, "Integer": int, "Boolean": bool}[kind]
        unread = []
        for i, vr in enumerate(vrs):
            v = self._by_vr.get(vr)
            if v is None or v.type != kind:
                self._log(f"{function}: value reference {vr} is no {kind} variable")
                values[i], status = convert(0), ERROR
                continue
            if v.causality == "output" and self._controller is None:
                problem = problem or self._initial_outputs()
                if problem:
                    unread.append(v.name)
                    values[i], status = (math.nan if kind == "Real" else convert(0)), ERROR
                    continue
            value = self._values.get(v.binding.index)
            values[i] = convert(0 if value is None else value)
        if unread:
            self._log(f"{function}: {', '.join(unread)} cannot be read: {problem}")
        return status

    def fmi2_get_real(self, vrs, values):
        return self._fmi2_get(vrs, values, "Real", "fmi2GetReal")

    def fmi2_get_integer(self, vrs, values):
        return self._fmi2_get(vrs, values, "Integer", "fmi2GetInteger")

    def fmi2_get_boolean(self, vrs, values):
        return self._fmi2_get(vrs, values, "Boolean", "fmi2GetBoolean")

    def _setter(self, v):
        key = v.binding.index

        def set_(value):
            if v.causality == "output":
                self._log(f"{v.name} is an output and cannot be set; ignored", Fmi2Status.warning)
            elif v.causality == "parameter" and self._controller is not None:
                self._log(f"parameter {v.name} is fixed after initialisation; {value!r} "
                          "ignored", Fmi2Status.warning)
            else:
                self._values[key] = value
        return set_

    def _starts(self) -> dict:
        """The start values of the parameters that describe the vehicle, from the build."""
        return {k: tuple(v) if isinstance(v, list) else v
                for k, v in self._config["starts"].items()}

    def _parameters(self) -> dict:
        return {v.binding.index[0]: self._values[v.binding.index]
                for v in self._catalogue.with_causality("parameter")}

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):
        self._time = float(start_time)

    def exit_initialization_mode(self):
        problem = self._problem("parameter")
        if problem:
            return self._fail(problem)
        try:
            self._controller = self._build(self._parameters())
            self._step(self._time, 0.0)    # the outputs before the first step
        except (ValueError, driver.PathError) as exc:
            return self._fail(f"the parameters are not accepted: {exc}")
        except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
            self._fail_unexpected("building the controller", exc)
            return self._protocol.answer(ERROR)
        return OK

    def do_step(self, current_time, step_size):
        if self._failure is not None or self._controller is None:
            reason = ("initialisation has not ended" if self._failure is None else
                      f"the instance failed earlier ({self._failure}); restore an FMU state "
                      "or reset it")
            self._log(f"doStep at t={current_time!r} refused: {reason}", Fmi2Status.error)
            return self._protocol.answer(ERROR)
        if not (step_size > 0 and math.isfinite(step_size)):
            self._log(f"doStep refused: communication step size {step_size!r} is not > 0",
                      Fmi2Status.error)
            return self._protocol.answer(ERROR)
        problem = self._problem("input")
        if problem:
            return self._fail(f"t={current_time!r}: {problem}")
        try:
            self._step(float(current_time), float(step_size))
        except Exception as exc:  # noqa: BLE001
            self._fail_unexpected(f"the step from t={current_time!r}", exc)
            return self._protocol.answer(ERROR)
        self._time = current_time + step_size
        return self._protocol.answer(OK)

    def _log(self, message: str, status=Fmi2Status.error) -> None:
        category = "logStatusError" if status == Fmi2Status.error else "logStatusWarning"
        self.log(self._protocol.text(message), status, category)

    def _fail(self, reason: str):
        self._failure = reason
        self._log(reason)
        return self._protocol.answer(ERROR)

    def _fail_unexpected(self, what: str, exc: Exception) -> None:
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        self._fail(f"internal error in {what}: {detail}")

    # FMU state: the controller (deep copy), the values, time and failure
    def _get_fmu_state(self):
        return {"values": dict(self._values), "time": self._time, "failure": self._failure,
                "controller": copy.deepcopy(self._controller)}

    def _set_fmu_state(self, state):
        """Restore ``state``, all or nothing (nothing changes if it is not one of this FMU's)."""
        try:
            if not (isinstance(state, dict) and state.get("values", {}).keys()
                    == self._values.keys()):
                raise ValueError("not an FMU state of this FMU")
            values, controller = dict(state["values"]), copy.deepcopy(state["controller"])
            time, failure = float(state["time"]), state["failure"]
        except Exception as exc:  # noqa: BLE001 - nothing may escape into pythonfmu
            self._log(f"fmi2SetFMUstate refused, the instance is unchanged: {exc}")
            return self._protocol.answer(ERROR)
        self._values, self._controller, self._time, self._failure = \
            values, controller, time, failure
        return self._protocol.answer(OK)

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        c = state["controller"]
        return json.dumps({"values": [[list(k), v] for k, v in state["values"].items()],
                           "time": state["time"], "failure": state["failure"],
                           "controller": None if c is None else dataclasses.asdict(c.state)}
                          ).encode()

    def _fmu_state_from_bytes(self, blob: bytes):
        """The state of ``_fmu_state_to_bytes``'s bytes: the controller is built again from
        the state's parameters and given the state's controller state. ValueError if the
        bytes are not a state of this FMU."""
        try:
            data = json.loads(bytes(blob).decode())
            values = {tuple(k): v for k, v in data["values"]}
            if values.keys() != self._values.keys():
                raise ValueError("its variables are not this FMU's")
            controller = None
            if data["controller"] is not None:
                parameters = {v.binding.index[0]: values[v.binding.index]
                              for v in self._catalogue.with_causality("parameter")}
                controller = self._build(parameters)
                controller.state = self._state_from_dict(data["controller"])
            time, failure = float(data["time"]), data["failure"]
            if failure is not None and not isinstance(failure, str):
                raise ValueError(f"failure {failure!r} is no text")
        except Exception as exc:  # noqa: BLE001 - any corruption is reported the same way
            raise ValueError(f"not a serialised FMU state of this FMU ({exc!r})") from None
        return {"values": values, "time": time, "failure": failure, "controller": controller}


class DriverSlave(_ControllerSlave, Fmi2Slave):
    """The path-following driver (:class:`simon_fmu.controllers.driver.Driver`) as an FMU."""

    description = "Closed-loop driver: preview path following, speed control, gear selection"

    def _make_catalogue(self):
        return driver_catalogue(self._starts())

    def _build(self, p: dict):
        path, course = p.pop("path"), p.pop("course")
        if course:
            if not 1 <= course <= len(driver.COURSES):
                raise ValueError(f"course: 0 (follow path) or 1..{len(driver.COURSES)} "
                                 f"(got {course!r})")
            path = driver.COURSES[course - 1]
        source = Path(path)
        if not source.is_absolute() and not source.exists():
            source = Path(self.resources) / "courses" / f"{path}.csv" \
                if not path.lower().endswith(".csv") else source
        ratios = p.pop("gearRatios")
        try:
            gear_ratios = tuple(float(r) for r in ratios.split())
        except ValueError:
            raise ValueError(f"gearRatios: numbers separated by spaces (got {ratios!r})") from None
        return driver.Driver(driver.load_path(source),
                             driver.DriverParams(gearRatios=gear_ratios, **p))

    @staticmethod
    def _state_from_dict(d: dict) -> driver.DriverState:
        d = dict(d, outputs=driver.DriverOutputs(**d["outputs"]))
        if d["last_xy"] is not None:
            d["last_xy"] = tuple(d["last_xy"])
        return driver.DriverState(**d)

    def _step(self, t, h):
        v = self._values
        out = self._controller.step(t, h, v[("X",)], v[("Y",)], v[("yaw",)], v[("speed",)])
        for key in ("steeringWheelAngle", "throttle", "brakePedalForce", "gear"):
            v[(key,)] = getattr(out, key)
        v[("lateralError",)] = self._controller.state.lateral_error
        v[("pathDistance",)] = self._controller.state.s


class AbsSlave(_ControllerSlave, Fmi2Slave):
    """The ABS (:class:`simon_fmu.controllers.abs_controller.AbsController`) as an FMU."""

    description = "Anti-lock braking controller: per-wheel build, hold and dump"

    def _make_catalogue(self):
        self._wheels = self._config["wheels"]
        return abs_catalogue(self._wheels, self._starts())

    def _build(self, p: dict):
        return abs_controller.AbsController(len(self._wheels), abs_controller.AbsParams(**p))

    def _state_from_dict(self, d: dict) -> abs_controller.AbsState:
        wheels = [abs_controller.WheelState(**w) for w in d["wheels"]]
        if len(wheels) != len(self._wheels):
            raise ValueError(f"{len(wheels)} wheels, this ABS has {len(self._wheels)}")
        return abs_controller.AbsState(**dict(d, wheels=wheels))

    def _step(self, t, h):
        v = self._values
        factors = self._controller.step(h, [v[(i, "spin")] for i in range(len(self._wheels))])
        v[("referenceSpeed",)] = self._controller.state.v_ref
        for i, (f, w) in enumerate(zip(factors, self._controller.state.wheels)):
            v[(i, "brakePressureFactor")], v[(i, "slip")], v[(i, "phase")] = f, w.slip, w.phase
