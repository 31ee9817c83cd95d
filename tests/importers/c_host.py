"""Compile tests/c_host/host.c and run a Scenario in it."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from .c_env import host_environment
from simon_fmu.tools.scenario import Result, Scenario, model_identifier

HOST_SOURCE = Path(__file__).resolve().parents[1] / "c_host" / "host.c"


def fmi2_headers() -> Path:
    """The FMI 2.0 headers (fmi2Functions.h and friends) that fmpy ships."""
    import fmpy

    folder = Path(fmpy.__file__).parent / "c-code"
    if not (folder / "fmi2Functions.h").is_file():
        raise FileNotFoundError(f"fmpy at {folder.parent} ships no FMI 2.0 headers")
    return folder


def build_host(output: str | Path, compiler: str = "gcc") -> Path:
    """Compile the host with warnings as errors; returns the executable."""
    output = Path(output)
    if shutil.which(compiler) is None:
        raise FileNotFoundError(f"no C compiler `{compiler}` on PATH")
    command = [
        compiler, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
        f"-I{fmi2_headers()}", str(HOST_SOURCE), "-o", str(output), "-ldl",
    ]
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{completed.stderr}")
    return output


def run_host(
    host: str | Path,
    scenario: Scenario,
    env: dict[str, str] | None = None,
    python_executable: str = sys.executable,
    unpack: bool = True,
    timeout: float = 300,
) -> Result:
    """Run the scenario in the compiled host.

    ``env`` defaults to ``host_environment(python_executable)``. With ``unpack``
    the FMU is extracted here and the host gets the folder; otherwise the host
    extracts the .fmu itself with ``unzip``. Start values are not supported.
    """
    if scenario.start_values:
        raise ValueError("the C host sets inputs only, not start values")
    if env is None:
        env = host_environment(python_executable)
    _, identifier, guid = model_identifier(scenario.fmu)
    in_vrs = scenario.value_references(scenario.inputs.names)
    out_vrs = scenario.value_references(scenario.outputs)
    with tempfile.TemporaryDirectory(prefix="c-host-") as work:
        work = Path(work)
        inputs = work / "inputs.csv"
        with inputs.open("w") as f:
            f.write(",".join(scenario.inputs.names or ("none",)) + "\n")
            for row in scenario.input_rows():
                f.write(",".join(repr(float(x)) for x in row) + "\n")
        fmu = scenario.extract(work / "fmu") if unpack else scenario.fmu
        command = [
            str(host), str(fmu), identifier, guid, repr(scenario.step_size),
            str(scenario.n_steps), ",".join(map(str, in_vrs)), ",".join(map(str, out_vrs)),
            str(inputs),
        ]
        env = dict(env, TMPDIR=str(work))
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise RuntimeError(
            f"C host exited with {completed.returncode}\nstdout:\n{completed.stdout[-4000:]}"
            f"\nstderr:\n{completed.stderr[-4000:]}"
        )
    rows = list(csv.reader(io.StringIO(completed.stdout)))
    header, data = rows[0], np.array(rows[1:], dtype=float)
    if header[1:] != [str(vr) for vr in out_vrs] or data.shape != (scenario.n_steps, len(out_vrs) + 1):
        raise RuntimeError(f"unexpected C host output:\n{completed.stdout[:2000]}")
    return Result("c-host", scenario.outputs, data[:, 0], data[:, 1:])
