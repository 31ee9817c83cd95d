"""What every importer is asked to do: one FMU, one input table, one fixed step.

The convention shared by all runners (fmpy, libcosim, Vico's ecos, the C host):

* communication points are ``t_k = k * step_size`` for ``k = 0 .. n_steps``;
* the input values sampled from the table at ``t_0`` are set in initialization
  mode (as start values), and before the step from ``t_k`` to ``t_k+1`` the inputs
  are set to the table sampled at ``t_k``;
* the outputs are read after each step, so a result has one row per ``t_1 .. t_n``.

The table is sampled piecewise linearly between rows and held constant after
the last row; where a time appears twice (a jump), the later row applies from
that time on.
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np


@dataclass(frozen=True)
class Variable:
    name: str
    value_reference: int
    causality: str
    start: float | None
    min: float | None
    max: float | None


def real_variables(fmu: str | Path) -> dict[str, Variable]:
    """The FMU's Real variables by name, read from its modelDescription.xml."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu), validate=False)
    result = {}
    for v in md.modelVariables:
        if v.type != "Real":
            continue

        def num(x):
            return None if x is None else float(x)

        result[v.name] = Variable(
            v.name, v.valueReference, v.causality, num(v.start), num(v.min), num(v.max)
        )
    return result


def model_identifier(fmu: str | Path) -> tuple[str, str, str]:
    """(modelName, co-simulation modelIdentifier, guid) of an FMU."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu), validate=False)
    if md.coSimulation is None:
        raise ValueError(f"{fmu} does not support co-simulation")
    return md.modelName, md.coSimulation.modelIdentifier, md.guid


@dataclass(frozen=True)
class InputTable:
    """Input values over time: ``times`` (non-decreasing) and one column per input."""

    names: tuple[str, ...]
    times: np.ndarray
    values: np.ndarray  # shape (len(times), len(names))

    def __post_init__(self):
        times = np.asarray(self.times, dtype=float)
        values = np.asarray(self.values, dtype=float).reshape(len(times), len(self.names))
        if len(times) == 0 and self.names:
            raise ValueError("an input table needs at least one row")
        if np.any(np.diff(times) < 0):
            raise ValueError("input table times must not decrease")
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "values", values)

    def at(self, t: float) -> np.ndarray:
        """Input values at time ``t``."""
        if not self.names:
            return np.zeros(0)
        times, values = self.times, self.values
        i = int(np.searchsorted(times, t, side="right"))  # rows with time <= t
        if i == 0:
            return values[0].copy()
        if i == len(times):
            return values[-1].copy()
        t0, t1 = times[i - 1], times[i]
        w = (t - t0) / (t1 - t0)
        return values[i - 1] + w * (values[i] - values[i - 1])


def default_inputs(fmu: str | Path, names: Sequence[str], stop_time: float) -> InputTable:
    """A smooth, non-trivial excursion of each named input around its start value.

    Stays inside declared min/max; for use when a test has no table of its own.
    """
    variables = real_variables(fmu)
    times = np.linspace(0.0, stop_time, 21)
    columns = []
    for j, name in enumerate(names):
        v = variables[name]
        start = v.start if v.start is not None else 0.0
        if v.min is not None and v.max is not None and math.isfinite(v.max - v.min):
            amplitude = 0.2 * (v.max - v.min)
        else:
            amplitude = 0.2 * max(1.0, abs(start))
        column = start + amplitude * np.sin(2 * np.pi * times / stop_time * (1 + 0.5 * j) + 0.3 * j)
        lo = v.min if v.min is not None else -np.inf
        hi = v.max if v.max is not None else np.inf
        columns.append(np.clip(column, lo, hi))
    values = np.column_stack(columns) if columns else np.zeros((len(times), 0))
    return InputTable(tuple(names), times, values)


@dataclass(frozen=True)
class Scenario:
    """One FMU run: which inputs to drive, which outputs to read, how long, how finely."""

    fmu: Path
    inputs: InputTable
    outputs: tuple[str, ...]
    step_size: float
    n_steps: int
    start_values: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def for_fmu(
        cls,
        fmu: str | Path,
        step_size: float,
        stop_time: float,
        inputs: Sequence[str] | InputTable | None = None,
        outputs: Sequence[str] | None = None,
        start_values: Mapping[str, float] | None = None,
    ) -> "Scenario":
        """A scenario for any FMU; by default all Real inputs and all Real outputs."""
        fmu = Path(fmu).resolve()
        variables = real_variables(fmu)
        if inputs is None:
            inputs = [n for n, v in variables.items() if v.causality == "input"]
        if not isinstance(inputs, InputTable):
            inputs = default_inputs(fmu, list(inputs), stop_time)
        if outputs is None:
            outputs = [n for n, v in variables.items() if v.causality == "output"]
        missing = [n for n in (*inputs.names, *outputs) if n not in variables]
        if missing:
            raise KeyError(f"{fmu.name} has no Real variable named {missing}")
        n_steps = int(round(stop_time / step_size))
        if n_steps <= 0 or not math.isclose(n_steps * step_size, stop_time, rel_tol=1e-12):
            raise ValueError("stop_time must be a positive multiple of step_size")
        return cls(fmu, inputs, tuple(outputs), float(step_size), n_steps, dict(start_values or {}))

    @property
    def stop_time(self) -> float:
        return self.n_steps * self.step_size

    def time(self, k: int) -> float:
        return k * self.step_size

    def input_rows(self) -> np.ndarray:
        """Input values applied before each step: shape (n_steps, n_inputs)."""
        return np.array([self.inputs.at(self.time(k)) for k in range(self.n_steps)]).reshape(
            self.n_steps, len(self.inputs.names)
        )

    def value_references(self, names: Sequence[str]) -> list[int]:
        variables = real_variables(self.fmu)
        return [variables[n].value_reference for n in names]

    def extract(self, directory: str | Path) -> Path:
        """Unzip the FMU into ``directory`` and return it."""
        directory = Path(directory)
        with zipfile.ZipFile(self.fmu) as archive:
            archive.extractall(directory)
        return directory


@dataclass
class Result:
    """Outputs after each step: ``time`` is t_1..t_n, ``values`` has one column per output."""

    importer: str
    outputs: tuple[str, ...]
    time: np.ndarray
    values: np.ndarray

    def column(self, name: str) -> np.ndarray:
        return self.values[:, self.outputs.index(name)]
