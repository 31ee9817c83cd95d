"""Check that several importers give the same outputs for the same Scenario."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from simon_fmu.tools.scenario import Result, Scenario


@dataclass
class Mismatch:
    importer: str
    output: str
    step: int
    time: float
    value: float
    reference: float

    def __str__(self) -> str:
        return (
            f"{self.importer}: {self.output} at t={self.time:g} (step {self.step}) is "
            f"{self.value!r}, reference {self.reference!r}"
        )


def compare_results(
    reference: Result, others: Iterable[Result], rtol: float = 1e-9, atol: float = 1e-12
) -> list[Mismatch]:
    """Every value of every other result against the reference, |a-b| <= atol + rtol*|b|.

    Time columns must agree too (to 1e-9 s: importers count time differently).
    Non-finite values must match exactly (same NaN/inf in the same place).
    """
    mismatches = []
    for other in others:
        if other.outputs != reference.outputs or other.values.shape != reference.values.shape:
            raise ValueError(f"{other.importer} ran a different scenario from {reference.importer}")
        if not np.allclose(other.time, reference.time, rtol=0, atol=1e-9):
            raise ValueError(f"{other.importer} reports other communication points")
        a, b = other.values, reference.values
        finite = np.isfinite(a) & np.isfinite(b)
        bad = np.zeros(a.shape, dtype=bool)
        bad[finite] = np.abs(a[finite] - b[finite]) > atol + rtol * np.abs(b[finite])
        bad[~finite] = ~((a[~finite] == b[~finite]) | (np.isnan(a[~finite]) & np.isnan(b[~finite])))
        for step, column in zip(*np.nonzero(bad)):
            mismatches.append(
                Mismatch(
                    other.importer, reference.outputs[column], int(step),
                    float(reference.time[step]), float(a[step, column]), float(b[step, column]),
                )
            )
    return mismatches


def run_and_compare(
    scenario: Scenario,
    importers: dict[str, Callable[[Scenario], Result]],
    rtol: float = 1e-9,
    atol: float = 1e-12,
) -> tuple[dict[str, Result], list[Mismatch]]:
    """Run the scenario in each importer (the first is the reference) and compare."""
    results = {name: run(scenario) for name, run in importers.items()}
    reference, *others = results.values()
    return results, compare_results(reference, others, rtol=rtol, atol=atol)
