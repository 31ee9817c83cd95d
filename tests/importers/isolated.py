"""Run an importer in a process of its own.

An importer is a program of its own in real use, and the FMU's library is not
safe to share a process with: pythonfmu 0.7.0's shared library releases its
global interpreter state twice when it is finalised (a C++ static destructor and
a destructor function both reset the same ``std::shared_ptr``), which corrupts
the heap of the host process; the abort that follows comes at exit or in some
later unrelated allocation, depending on luck. So each run gets a fresh Python
process that writes its result and leaves with ``os._exit`` before any
finaliser runs.

``python -m importers.isolated IMPORTER SCENARIO_JSON RESULT_NPZ`` is the child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from simon_fmu.tools.scenario import InputTable, Result, Scenario

PACKAGE_PARENT = Path(__file__).resolve().parents[1]


def _dump(scenario: Scenario) -> dict:
    return {
        "fmu": str(scenario.fmu),
        "input_names": list(scenario.inputs.names),
        "times": scenario.inputs.times.tolist(),
        "values": scenario.inputs.values.tolist(),
        "outputs": list(scenario.outputs),
        "step_size": scenario.step_size,
        "n_steps": scenario.n_steps,
        "start_values": dict(scenario.start_values),
    }


def _load(data: dict) -> Scenario:
    table = InputTable(
        tuple(data["input_names"]),
        np.array(data["times"], dtype=float),
        np.array(data["values"], dtype=float).reshape(len(data["times"]), len(data["input_names"])),
    )
    return Scenario(
        Path(data["fmu"]), table, tuple(data["outputs"]), data["step_size"], data["n_steps"],
        data["start_values"],
    )


def run_isolated(importer: str, scenario: Scenario, timeout: float = 900) -> Result:
    """Run ``importer`` (a key of runners.PYTHON_IMPORTERS) on the scenario in a child process."""
    with tempfile.TemporaryDirectory(prefix=f"{importer}-") as work:
        spec = Path(work) / "scenario.json"
        out = Path(work) / "result.npz"
        spec.write_text(json.dumps(_dump(scenario)))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p
        )
        completed = subprocess.run(
            [sys.executable, "-m", "importers.isolated", importer, str(spec), str(out)],
            capture_output=True, text=True, env=env, timeout=timeout, cwd=work,
        )
        if completed.returncode != 0 or not out.exists():
            raise RuntimeError(
                f"{importer} run failed (exit {completed.returncode}):\n"
                f"{completed.stdout[-3000:]}\n{completed.stderr[-6000:]}"
            )
        with np.load(out) as data:
            return Result(importer, scenario.outputs, data["time"], data["values"])


def isolated_runner(importer: str):
    """A runner with the signature of runners.run_* that runs in a child process."""

    def run(scenario: Scenario) -> Result:
        return run_isolated(importer, scenario)

    run.__name__ = f"run_{importer}_isolated"
    return run


def main(argv: list[str]) -> None:
    from .runners import PYTHON_IMPORTERS

    importer, spec, out = argv
    result = PYTHON_IMPORTERS[importer](_load(json.loads(Path(spec).read_text())))
    with open(out, "wb") as f:
        np.savez(f, time=result.time, values=result.values)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
