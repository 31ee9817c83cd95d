"""One FMU, extracted and instantiated once, run case after case (fmi2Reset between cases).

:class:`FmuRunner` is what a sweep's worker keeps for its whole life: the FMU is unpacked into
a temporary folder once, instantiated once, and each case starts with fmi2Reset (a new slave
object, the same shared library and extracted files). A case that fails (a parameter out of
range, an engine error on a step) raises :class:`CaseError` with the FMU's logged message;
the next case resets the instance as usual, and if fmi2Reset itself fails the instance is
freed and instantiated again from the same extracted folder.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from engine.layout import CRUSH_STATIONS


class CaseError(RuntimeError):
    """A case the FMU refused or failed; the message is the FMU's logged reason."""


class FmuRunner:
    """An extracted, instantiated FMU that runs manoeuvres (``run``)."""

    def __init__(self, fmu: str | Path):
        from fmpy import extract, read_model_description

        from engine.setup.model import event_model
        self.fmu_path = Path(fmu)
        self._folder = Path(tempfile.mkdtemp(prefix="simon-study-"))
        extract(str(self.fmu_path), str(self._folder))
        self.md = read_model_description(str(self._folder))
        self.variables = {v.name: v for v in self.md.modelVariables}
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.types = {v.name: "Integer" if v.type == "Enumeration" else v.type
                      for v in self.md.modelVariables}
        self.lead_unit = next(v.name.split(".")[0] for v in self.md.modelVariables
                              if v.name.endswith(".speed0"))
        #: the event the FMU was built from (its resources/event.json, validated when it was
        #: built) as the typed vehicle model (engine.setup.model): the vehicle values
        self.model = event_model(json.loads((self._folder / "resources" / "event.json").read_text()))
        self.units = [u.name for u in self.model.units]
        self.log: list[str] = []
        self.instantiations = 0
        self._fresh = False
        self._instantiate()

    # --- life cycle -------------------------------------------------------------------------
    def _instantiate(self) -> None:
        from fmpy.fmi2 import FMU2Slave

        from ..cosim.master import fmi2_callbacks

        def logger(_env, _instance, status, _category, message):
            if status >= 2:        # warnings are not a case's failure; errors and worse are
                self.log.append((message or b"").decode(errors="replace"))

        self._callbacks = fmi2_callbacks(logger)
        self.fmu = FMU2Slave(guid=self.md.guid, unzipDirectory=str(self._folder),
                             modelIdentifier=self.md.coSimulation.modelIdentifier,
                             instanceName="study")
        self.fmu.instantiate(callbacks=self._callbacks, loggingOn=False)
        self.instantiations += 1
        self._fresh = True

    def _reset(self) -> None:
        if self._fresh:
            return
        try:
            self.fmu.reset()
        except Exception:                      # noqa: BLE001 - fall back to a new instance
            try:
                self.fmu.freeInstance()
            except Exception:                  # noqa: BLE001
                pass
            self._instantiate()
        self._fresh = True

    def close(self) -> None:
        try:
            self.fmu.freeInstance()
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)

    def event(self):
        """The event the FMU was built from (``resources/event.json``), as an engine.Event:
        a manoeuvre takes its vehicle values (body, steering ratio, drivetrain) from it."""
        import engine

        from ..vehicle.slave import EVENT_FILE
        return engine.load_event(self._folder / "resources" / EVENT_FILE)

    # --- values -----------------------------------------------------------------------------
    def set(self, name: str, value) -> None:
        self.set_many({name: value})

    def set_many(self, values: dict) -> None:
        """Set several variables, one fmi2Set call per type."""
        by_type: dict[str, tuple[list, list]] = {}
        for name, value in values.items():
            kind = self.types[name]
            if kind == "Integer":
                value = int(round(value))
            elif kind == "Boolean":
                value = bool(value)
            vrs, vals = by_type.setdefault(kind, ([], []))
            vrs.append(self.vr[name])
            vals.append(value)
        for kind, (vrs, vals) in by_type.items():
            getattr(self.fmu, f"set{kind}")(vrs, vals)

    def full_name(self, name: str) -> str:
        """The FMU name of an output named relative to the lead unit, or of another unit's
        (``trailer.ay``: a name that begins with a unit's name is kept)."""
        return name if name.split(".", 1)[0] in self.units else f"{self.lead_unit}.{name}"

    def short_name(self, name: str) -> str:
        """The history key of an FMU output: relative to the lead unit, or the full name."""
        unit, rest = name.split(".", 1)
        return rest if unit == self.lead_unit else name

    def _error(self, what: str, exc: Exception) -> CaseError:
        reason = "; ".join(dict.fromkeys(self.log)) or str(exc)
        return CaseError(f"{what}: {reason}")

    # --- a case -----------------------------------------------------------------------------
    def run(self, manoeuvre, settings: dict, parameters: dict) -> dict[str, np.ndarray]:
        """Run ``manoeuvre`` with its ``settings`` and the FMU ``parameters``; the histories.

        Returns ``{"time": ..., output name: ...}`` at the manoeuvre's communication step;
        the lead unit's outputs by their names relative to it, the other units' by their
        full names.
        """
        self._reset()
        self._fresh = False
        self.log.clear()
        unit = self.lead_unit
        # the outputs first: a manoeuvre may read the vehicle from the FMU there
        outputs = [self.full_name(name) for name in manoeuvre.outputs(self)]
        start = manoeuvre.fmu_parameters(settings, unit)
        start.update(parameters)
        out_vrs = [self.vr[n] for n in outputs]
        dt, stop = manoeuvre.communication_step(settings), float(settings["duration"])
        try:
            self.fmu.setupExperiment(startTime=0.0)
            self.fmu.enterInitializationMode()
            self.set_many(start)
            self.fmu.exitInitializationMode()
        except Exception as exc:               # noqa: BLE001 - recorded as the case's error
            raise self._error("initialisation", exc) from None
        n = int(round(stop / dt))
        rows = np.empty((n + 1, len(outputs)))
        times = np.arange(n + 1) * dt
        controller = manoeuvre.controller(settings, unit)
        rows[0] = self.fmu.getReal(out_vrs)
        last = 0
        for k in range(n):
            values = dict(zip(outputs, rows[k]))
            self.set_many(controller(times[k], values))
            try:
                self.fmu.doStep(currentCommunicationPoint=times[k], communicationStepSize=dt)
            except Exception as exc:           # noqa: BLE001
                raise self._error(f"step at t = {times[k]:.3f} s", exc) from None
            rows[k + 1] = self.fmu.getReal(out_vrs)
            last = k + 1
            if manoeuvre.finished(times[last], dict(zip(outputs, rows[last])), settings, unit):
                break
        history = {"time": times[:last + 1]}
        for j, name in enumerate(outputs):
            history[self.short_name(name)] = rows[:last + 1, j].copy()
        return history

    def collisions(self) -> dict[str, dict[str, float]]:
        """Each unit's collision outputs at the end of the case just run (COLLISION_OUTPUTS,
        by their names after ``<unit>.``), for the units that have touched something (a
        delta-V or a crush); {} for none. The damaged face is its CrushFace item's name."""
        from model_description.catalogue import ENUMERATIONS
        faces = [name for name, _ in ENUMERATIONS["CrushFace"].items]
        out = {}
        for unit in self.units:
            names = [f"{unit}.{key}" for key in COLLISION_OUTPUTS]
            values = dict(zip(COLLISION_OUTPUTS, self.fmu.getReal([self.vr[n] for n in names])))
            if values["collision.deltaV"] > 0.0 or values["collision.maxCrush"] > 0.0:
                face = self.fmu.getInteger([self.vr[f"{unit}.collision.crushFace"]])[0]
                out[unit] = {**values, "collision.crushFace": faces[face - 1]}
        return out

    def exteriors(self) -> tuple[str | None, str]:
        """The OBJ text of each unit's exterior as the crush has left it at the end of the case
        just run (:func:`simon_fmu.tools.exterior.exteriors_obj`), from the FMU's state
        (fmi2GetFMUstate, serialised; a development or a native FMU's) and the event it was
        built from; or (None, why not)."""
        from fmpy.fmi1 import FMICallException

        from ..tools.exterior import exteriors_obj, fmu_state_vector
        try:
            state = self.fmu.getFMUstate()
            try:
                y = fmu_state_vector(self._folder, self.fmu.serializeFMUstate(state),
                                     self.md.guid)
            finally:
                self.fmu.freeFMUstate(state)
            return exteriors_obj(self.event(), y), ""
        except (ValueError, FMICallException) as exc:    # the report is written without it
            return None, f"exteriors.obj not written: {exc}"


#: the collision outputs a study reports for each unit that has touched something (with
#: collision.crushFace, an Enumeration)
COLLISION_OUTPUTS = ("collision.deltaV", "collision.deltaVx", "collision.deltaVy",
                     "collision.pdof", "collision.duration", "collision.maxCrush",
                     "collision.residualCrush", "collision.crushWidth") + tuple(
    f"collision.crushC{k}" for k in range(1, CRUSH_STATIONS + 1))
