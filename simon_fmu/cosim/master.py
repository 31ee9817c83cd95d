"""A small co-simulation master on fmpy: FMUs connected by variable name, a fixed communication
step, recorded results, and a real-time mode for rigs.

    from simon_fmu.cosim.master import Master
    m = Master({"driver": "out/Driver.fmu", "vehicle": "out/SimonCar.fmu"},
               prefixes={"vehicle": "car."}, step_size=0.01)
    m.connect_by_name()
    result = m.run(stop_time=10.0, start_values={"vehicle.car.speed0": 60 / 3.6})
    result["vehicle.car.X"]   # numpy array, one value per communication point

The order, written once here:

1. *Instantiate* every FMU in the order given, then for each: setupExperiment, enter
   initialisation, set the start values given for it (parameters and inputs). Then, still
   in initialisation mode, as many rounds as there are FMUs of: read every connected
   output, then set every connected input from it (libcosim initialises so too); so a
   controller starts from the vehicle's initial state. Then exit initialisation, each FMU
   in order.
2. *Initial exchange*: every connected input gets its source's value after initialisation,
   and the values at ``start_time`` are recorded. With ``initial_exchange=False`` there is
   no exchange in initialisation mode either, and every connected input gets 0 for the
   first step, as in fmpy's SSP support (its connectors start at 0.0): the run to compare
   with it.
3. *Each communication step* from ``t_k`` to ``t_k + h`` (``t_k = start_time + k h``, no
   drift), with ``order``:

   - ``"gauss-seidel"`` (default): for each FMU in the order given, set its connected inputs
     from the sources' latest values, then doStep. An FMU later in the order so sees the
     outputs an earlier one computed in this step: put the controllers first, and the
     vehicle sees their commands without delay.
   - ``"jacobi"``: set every connected input from the values at ``t_k``, then step every FMU.
     This is what fmpy's SSP support and libcosim's fixed-step algorithm do; it is the order
     to compare with them.

   Then every recorded variable is read at ``t_k + h``.
4. With ``real_time`` the master waits, after each step, until the wall clock has reached
   ``(t_k + h - start_time) / real_time_factor`` since the start; a step that finishes later
   than that is an overrun (counted, and the worst lateness kept). An overrun is not made up
   by skipping steps: the simulation stays exact, the rig falls behind and is told.
5. terminate and free every FMU, in reverse order.

A refused or failed doStep stops the run with :class:`MasterError` naming the FMU, the time
and the FMU's log messages.
"""
from __future__ import annotations

import shutil
import tempfile
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Union

import numpy as np

PathLike = Union[str, Path]


class MasterError(RuntimeError):
    """The master cannot set up or run the system (the message says why)."""


@dataclass
class RealTimeReport:
    """How a real-time run kept up with the wall clock."""

    steps: int = 0
    overruns: int = 0              # steps that ended after their wall-clock deadline
    max_lateness: float = 0.0      # s, the worst of them
    wall_time: float = 0.0         # s, the whole loop
    real_time_factor: float = 1.0  # simulated seconds per wall-clock second asked for


@dataclass
class Result:
    """Recorded values: ``result["instance.variable"]`` is an array over ``result.time``."""

    time: np.ndarray
    values: dict[str, np.ndarray]
    wall_time: float = 0.0
    real_time: Optional[RealTimeReport] = None
    log: dict[str, list[str]] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def names(self) -> list[str]:
        return list(self.values)


def fmi2_callbacks(logger):
    """fmpy's FMI 2.0 callback structure with ``logger(env, instance, status, category,
    message)`` as its logger; keep it alive as long as the instance."""
    from ctypes import byref

    from fmpy.fmi1 import calloc, free
    from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)
    from fmpy.logging import addLoggerProxy
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    return callbacks


class _Instance:
    """One FMU in the system: its fmpy slave, variables by name and its log."""

    def __init__(self, name: str, fmu: Path, workdir: Path):
        from fmpy import extract, read_model_description
        from fmpy.fmi2 import FMU2Slave

        self.name, self.fmu_path = name, fmu
        self.md = read_model_description(str(fmu))
        if self.md.coSimulation is None:
            raise MasterError(f"{name}: {fmu} is not a Co-Simulation FMU")
        self.unzipdir = extract(str(fmu), str(workdir / name))
        self.variables = {v.name: v for v in self.md.modelVariables}
        self.log: list[str] = []
        self.slave = FMU2Slave(guid=self.md.guid, unzipDirectory=self.unzipdir,
                               modelIdentifier=self.md.coSimulation.modelIdentifier,
                               instanceName=name)
        self.slave.instantiate(loggingOn=True, callbacks=self._callbacks())
        self.freed = False

    def _callbacks(self):
        def logger(_env, _instance, status, category, message):
            self.log.append((message or b"").decode(errors="replace"))
        self._cb = fmi2_callbacks(logger)
        return self._cb

    def variable(self, name: str):
        try:
            return self.variables[name]
        except KeyError:
            raise MasterError(f"{self.name} has no variable {name!r}") from None

    def set(self, name: str, value) -> None:
        v = self.variable(name)
        if v.type == "Real":
            self.slave.setReal([v.valueReference], [float(value)])
        elif v.type in ("Integer", "Enumeration"):
            self.slave.setInteger([v.valueReference], [int(round(value))])
        elif v.type == "Boolean":
            self.slave.setBoolean([v.valueReference], [bool(value)])
        else:
            self.slave.setString([v.valueReference], [str(value)])

    def free(self) -> None:
        if not self.freed:
            self.freed = True
            try:
                self.slave.terminate()
            finally:
                self.slave.freeInstance()


class _Group:
    """Variables of one type of one instance, read or written in one call."""

    def __init__(self, inst: _Instance, kind: str, names: list[str]):
        self.inst, self.kind, self.names = inst, kind, names
        self.vrs = [inst.variable(n).valueReference for n in names]
        self.get = {"Real": inst.slave.getReal, "Integer": inst.slave.getInteger,
                    "Boolean": inst.slave.getBoolean}[kind]
        self.set = {"Real": inst.slave.setReal, "Integer": inst.slave.setInteger,
                    "Boolean": inst.slave.setBoolean}[kind]
        self.convert = {"Real": float, "Integer": lambda x: int(round(x)), "Boolean": bool}[kind]


class Master:
    """A fixed-step co-simulation of FMUs (see the module docstring for the order).

    Parameters:
        fmus: instance name -> FMU file, in stepping order.
        step_size: the communication step h, s.
        prefixes: instance name -> the prefix its variable names carry that the others'
            do not (the vehicle's unit, ``"car."``), for :meth:`connect_by_name`.
        order: ``"gauss-seidel"`` (default) or ``"jacobi"``.
    """

    def __init__(self, fmus: dict[str, PathLike], step_size: float,
                 prefixes: Optional[dict[str, str]] = None, order: str = "gauss-seidel"):
        if order not in ("gauss-seidel", "jacobi"):
            raise MasterError(f"order: 'gauss-seidel' or 'jacobi' (got {order!r})")
        if not step_size > 0:
            raise MasterError(f"step_size: a step > 0 s (got {step_size!r})")
        self.fmus = {name: Path(p) for name, p in fmus.items()}
        self.step_size, self.order = float(step_size), order
        self.prefixes = dict(prefixes or {})
        self.connections: list[tuple[str, str]] = []   # ("inst.output", "inst.input")
        from fmpy import read_model_description
        self._md = {name: read_model_description(str(p)) for name, p in self.fmus.items()}

    # ------------------------------------------------------------------ connections
    def _variables(self, inst: str, causality: str) -> dict[str, str]:
        """Local name (prefix removed) -> variable name, for one causality."""
        prefix = self.prefixes.get(inst, "")
        return {v.name[len(prefix):] if v.name.startswith(prefix) else v.name: v.name
                for v in self._md[inst].modelVariables if v.causality == causality}

    def connect(self, source: str, target: str) -> None:
        """Connect output ``"instance.variable"`` to input ``"instance.variable"``."""
        for ref, causality in ((source, "output"), (target, "input")):
            inst, _, var = ref.partition(".")
            if inst not in self._md:
                raise MasterError(f"{ref}: no instance {inst!r}")
            found = [v for v in self._md[inst].modelVariables if v.name == var]
            if not found or found[0].causality != causality:
                raise MasterError(f"{ref}: {inst} has no {causality} {var!r}")
        if any(t == target for _, t in self.connections):
            raise MasterError(f"{target} is connected twice")
        self.connections.append((source, target))

    def connect_by_name(self) -> list[tuple[str, str]]:
        """Connect every input to the output of another instance with the same local name
        (its name without that instance's prefix); returns the connections made."""
        made = []
        outputs = {inst: self._variables(inst, "output") for inst in self.fmus}
        for target in self.fmus:
            for local, var in self._variables(target, "input").items():
                sources = [(s, outputs[s][local]) for s in self.fmus
                           if s != target and local in outputs[s]]
                if len(sources) > 1:
                    raise MasterError(f"{target}.{var}: several outputs named {local!r}")
                if sources and not any(t == f"{target}.{var}" for _, t in self.connections):
                    self.connect(f"{sources[0][0]}.{sources[0][1]}", f"{target}.{var}")
                    made.append(self.connections[-1])
        return made

    # ------------------------------------------------------------------ run
    def run(self, stop_time: float, start_time: float = 0.0,
            start_values: Optional[dict[str, object]] = None,
            record: Optional[Iterable[str]] = None, real_time: bool = False,
            real_time_factor: float = 1.0, initial_exchange: bool = True) -> Result:
        """Simulate from ``start_time`` to ``stop_time`` and return the recorded values.

        Parameters:
            stop_time, start_time: s.
            start_values: ``"instance.variable"`` -> value, set in initialisation mode
                (parameters, and inputs that no connection drives: they keep the value).
            record: the ``"instance.variable"`` names to record; default every output.
            real_time: pace the steps to the wall clock (see the module docstring).
            real_time_factor: simulated seconds per wall-clock second (default 1).
            initial_exchange: True (default) exchanges the connected values in and after
                initialisation, False starts the connected inputs at 0 (see the module
                docstring).
        """
        h = self.step_size
        n_steps = int(round((stop_time - start_time) / h))
        if n_steps < 1:
            raise MasterError("stop_time must be at least one step after start_time")
        workdir = Path(tempfile.mkdtemp(prefix="simon_master_"))
        instances: dict[str, _Instance] = {}
        try:
            for name, path in self.fmus.items():
                instances[name] = _Instance(name, path, workdir)
            by_inst: dict[str, dict] = {name: {} for name in self.fmus}
            for ref, value in (start_values or {}).items():
                inst, _, var = ref.partition(".")
                if inst not in instances:
                    raise MasterError(f"{ref}: no instance {inst!r}")
                by_inst[inst][var] = value
            for name, inst in instances.items():
                inst.slave.setupExperiment(startTime=start_time, stopTime=stop_time)
                inst.slave.enterInitializationMode()
                for var, value in by_inst[name].items():
                    inst.set(var, value)

            names = list(record) if record is not None else [
                f"{i}.{v.name}" for i, md in self._md.items() for v in md.modelVariables
                if v.causality == "output" and v.type in ("Real", "Integer", "Boolean")]
            reads = self._groups(instances, names)
            links = self._links(instances)
            current: dict[str, float] = {}

            def read(group_list):
                for g in group_list:
                    for n, x in zip(g.names, g.get(g.vrs)):
                        current[f"{g.inst.name}.{n}"] = x

            for _ in (instances if initial_exchange else ()):   # in initialisation mode
                read([g for gs in links["sources"].values() for g in gs])
                for name in instances:
                    self._set_inputs(links["targets"][name], current)
            for inst in instances.values():
                inst.slave.exitInitializationMode()

            read([g for gs in reads.values() for g in gs])
            read([g for gs in links["sources"].values() for g in gs])
            data = np.empty((n_steps + 1, len(names)))
            data[0] = [current[n] for n in names]
            if not initial_exchange:
                current.update((s, 0.0) for s, _ in self.connections)
            times = start_time + h * np.arange(n_steps + 1)

            report = RealTimeReport(real_time_factor=real_time_factor) if real_time else None
            wall0 = _time.perf_counter()
            for k in range(n_steps):
                t = times[k]
                if self.order == "jacobi":
                    for name in instances:
                        self._set_inputs(links["targets"][name], current)
                for name, inst in instances.items():
                    if self.order == "gauss-seidel":
                        self._set_inputs(links["targets"][name], current)
                    try:   # fmpy raises on a status other than fmi2OK and fmi2Warning
                        inst.slave.doStep(currentCommunicationPoint=t, communicationStepSize=h)
                    except Exception as exc:
                        raise MasterError(f"{name}: doStep from t={t:g} s failed ({exc}): "
                                          + " | ".join(inst.log[-5:])) from exc
                    if self.order == "gauss-seidel":
                        read(links["sources"].get(name, []))
                if self.order == "jacobi":
                    read([g for gs in links["sources"].values() for g in gs])
                read([g for gs in reads.values() for g in gs])
                data[k + 1] = [current[n] for n in names]
                if report is not None:
                    self._pace(report, wall0, (times[k + 1] - start_time) / real_time_factor)
            wall = _time.perf_counter() - wall0
            if report is not None:
                report.wall_time = wall
            return Result(times, {n: data[:, j].copy() for j, n in enumerate(names)}, wall,
                          report, {name: list(inst.log) for name, inst in instances.items()})
        except MasterError:
            raise
        except Exception as exc:
            logs = " | ".join(m for i in instances.values() for m in i.log[-3:])
            raise MasterError(f"{type(exc).__name__}: {exc}" + (f" ({logs})" if logs else "")) \
                from exc
        finally:
            for inst in reversed(list(instances.values())):
                try:
                    inst.free()
                except Exception:  # noqa: BLE001 - free the others all the same
                    pass
            shutil.rmtree(workdir, ignore_errors=True)

    @staticmethod
    def _pace(report: RealTimeReport, wall0: float, due: float) -> None:
        report.steps += 1
        late = _time.perf_counter() - wall0 - due
        if late > 0:
            report.overruns += 1
            report.max_lateness = max(report.max_lateness, late)
        else:
            _time.sleep(-late)

    def _groups(self, instances, names: list[str]) -> dict[str, list[_Group]]:
        """Reads grouped per instance and type."""
        by: dict[tuple, list[str]] = {}
        for ref in names:
            inst, _, var = ref.partition(".")
            if inst not in instances:
                raise MasterError(f"{ref}: no instance {inst!r}")
            kind = instances[inst].variable(var).type
            if kind not in ("Real", "Integer", "Boolean"):
                raise MasterError(f"{ref}: only Real, Integer and Boolean values are recorded")
            by.setdefault((inst, kind), []).append(var)
        out: dict[str, list[_Group]] = {}
        for (inst, kind), vars_ in by.items():
            out.setdefault(inst, []).append(_Group(instances[inst], kind, vars_))
        return out

    def _links(self, instances):
        """The connections as read groups (per source instance) and write lists."""
        sources = self._groups(instances, sorted({s for s, _ in self.connections}))
        targets: dict[str, list] = {name: [] for name in instances}
        by: dict[tuple, list] = {}
        for s, t in self.connections:
            inst, _, var = t.partition(".")
            kind = instances[inst].variable(var).type
            by.setdefault((inst, kind), []).append((s, var))
        for (inst, kind), pairs in by.items():
            g = _Group(instances[inst], kind, [v for _, v in pairs])
            targets[inst].append((g, [s for s, _ in pairs]))
        return {"sources": sources, "targets": targets}

    @staticmethod
    def _set_inputs(targets, current) -> None:
        for g, sources in targets:
            g.set(g.vrs, [g.convert(current[s]) for s in sources])
