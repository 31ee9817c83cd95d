"""Write an FMU, its inputs and a reference result in the FMI cross-check layout.

The layout (FMI cross-check rules 4.1, and what
``python -m fmpy.cross_check.validate_vendor_repo`` checks)::

    <root>/fmus/2.0/cs/linux64/<Tool>/<Version>/<Model>/
        <Model>.fmu          at most 10 MB
        <Model>_in.csv       inputs, if the FMU has any; linear interpolation between rows
        <Model>_ref.csv      reference outputs from StartTime to StopTime (at most 1 MB)
        <Model>_ref.opt      StartTime, StopTime, StepSize, RelTol (+ OutputIntervalLength)
    <root>/results/2.0/cs/linux64/FMPy/<fmpy version>/<Tool>/<Version>/<Model>/
        passed, <Model>_out.csv   fmpy's own run of the folder above (optional)

CSV files: comma separated, first line the variable names in double quotes, first
column the time, numbers unquoted as C floating-point literals.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .scenario import InputTable, Scenario, model_identifier

MAX_REFERENCE_VARIABLES = 10  # the rules recommend at most ten variables in _ref.csv


@dataclass
class CrossCheckFolder:
    root: Path
    model_dir: Path
    result_dir: Path | None


def _tool_from_fmu(fmu: Path) -> tuple[str, str]:
    from fmpy import read_model_description

    md = read_model_description(str(fmu), validate=False)
    words = (md.generationTool or "unknown 0").split()
    if len(words) >= 2:
        return "_".join(words[:-1]), words[-1]
    try:  # a bare tool name: the version of the installed distribution of that name
        from importlib.metadata import version

        return words[0], version(words[0])
    except Exception:
        return words[0], "unknown"


def _write_csv(path: Path, names: Sequence[str], rows: np.ndarray) -> None:
    with path.open("w", newline="\n") as f:
        f.write(",".join(f'"{n}"' for n in names) + "\n")
        for row in rows:
            f.write(",".join(repr(float(x)) for x in row) + "\n")


def other_inputs(fmu: str | Path) -> dict[str, float]:
    """Inputs that are not Real (Integer, Boolean, Enumeration), held at their start values.

    The rules want every input of the FMU in ``_in.csv``; scenarios drive Reals only.
    """
    from fmpy import read_model_description

    md = read_model_description(str(fmu), validate=False)
    values = {}
    for v in md.modelVariables:
        if v.causality == "input" and v.type != "Real":
            start = v.start if v.start is not None else 0
            values[v.name] = float(start in ("true", "1", True) if v.type == "Boolean" else start)
    return values


def full_input_table(scenario: Scenario) -> InputTable:
    """The scenario's Real inputs plus the FMU's other inputs as constant columns."""
    table = scenario.inputs
    extra = other_inputs(scenario.fmu)
    if not extra:
        return table
    times = table.times if table.names else np.array([0.0, scenario.stop_time])
    columns = [table.values] if table.names else []
    columns.append(np.tile(np.array(list(extra.values())), (len(times), 1)))
    return InputTable((*table.names, *extra), times, np.column_stack(columns))


def simulate_reference(scenario: Scenario, variables: Sequence[str]):
    """fmpy's simulate_fmu over the scenario: a structured array from StartTime to StopTime."""
    from fmpy import simulate_fmu

    table = full_input_table(scenario)
    structured = None
    if table.names:
        structured = np.array(
            [tuple([t, *row]) for t, row in zip(table.times, table.values)],
            dtype=[("time", np.float64)] + [(n, np.float64) for n in table.names],
        )
    return simulate_fmu(
        str(scenario.fmu),
        validate=False,
        fmi_type="CoSimulation",
        start_time=0.0,
        stop_time=scenario.stop_time,
        step_size=scenario.step_size,
        output_interval=scenario.step_size,
        input=structured,
        output=list(variables),
        start_values=dict(scenario.start_values),
    )


def write_crosscheck(
    scenario: Scenario,
    root: str | Path,
    variables: Sequence[str] | None = None,
    tool_name: str | None = None,
    tool_version: str | None = None,
    rel_tol: float = 1e-4,
    with_fmpy_result: bool = True,
) -> CrossCheckFolder:
    """Write the cross-check folder for ``scenario`` under ``root``.

    ``variables``: the outputs in ``_ref.csv`` (default: the scenario's first ten
    outputs). The tool name and version default to the FMU's generationTool.
    The reference is fmpy's ``simulate_fmu`` with the ``_in.csv`` table, so any
    importer that follows the rules (inputs interpolated linearly) can reproduce it.
    """
    if scenario.start_values:
        raise ValueError("the cross-check layout has no place for start values")
    root = Path(root)
    model_name, _, _ = model_identifier(scenario.fmu)
    default_tool, default_version = _tool_from_fmu(scenario.fmu)
    tool_name = tool_name or default_tool
    tool_version = tool_version or default_version
    variables = list(variables or scenario.outputs[:MAX_REFERENCE_VARIABLES])

    model_dir = root / "fmus" / "2.0" / "cs" / "linux64" / tool_name / tool_version / model_name
    model_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(scenario.fmu, model_dir / f"{model_name}.fmu")

    inputs = full_input_table(scenario)
    if inputs.names:
        write_input_csv(inputs, model_dir / f"{model_name}_in.csv")

    result = simulate_reference(scenario, variables)
    columns = ["time", *variables]
    _write_csv(
        model_dir / f"{model_name}_ref.csv",
        columns,
        np.column_stack([result[c] for c in columns]),
    )
    (model_dir / f"{model_name}_ref.opt").write_text(
        "StartTime,0.0\n"
        f"StopTime,{scenario.stop_time!r}\n"
        f"StepSize,{scenario.step_size!r}\n"
        f"RelTol,{rel_tol!r}\n"
        f"OutputIntervalLength,{scenario.step_size!r}\n"
    )

    result_dir = None
    if with_fmpy_result:
        import fmpy

        result_dir = (
            root / "results" / "2.0" / "cs" / "linux64" / "FMPy" / fmpy.__version__
            / tool_name / tool_version / model_name
        )
        result_dir.mkdir(parents=True, exist_ok=True)
        rerun = _rerun_from_folder(model_dir, model_name, variables)
        _write_csv(
            result_dir / f"{model_name}_out.csv",
            columns,
            np.column_stack([rerun[c] for c in columns]),
        )
        (result_dir / "passed").touch()
    return CrossCheckFolder(root, model_dir, result_dir)


def _rerun_from_folder(model_dir: Path, model_name: str, variables: Sequence[str]):
    """Simulate the FMU the way an importer would: only from the folder's files."""
    from fmpy import simulate_fmu
    from fmpy.util import read_csv, read_ref_opt_file

    opt = read_ref_opt_file(str(model_dir / f"{model_name}_ref.opt"))
    in_csv = model_dir / f"{model_name}_in.csv"
    return simulate_fmu(
        str(model_dir / f"{model_name}.fmu"),
        validate=False,
        fmi_type="CoSimulation",
        start_time=opt["StartTime"],
        stop_time=opt["StopTime"],
        step_size=opt["StepSize"],
        output_interval=opt["StepSize"],
        input=read_csv(str(in_csv)) if in_csv.exists() else None,
        output=list(variables),
    )


def read_input_csv(path: str | Path) -> InputTable:
    """An input table from a CSV file in the cross-check format (time first)."""
    data = np.genfromtxt(path, delimiter=",", names=True, deletechars="")
    data = np.atleast_1d(data)
    names = data.dtype.names
    return InputTable(
        tuple(names[1:]),
        data[names[0]],
        np.column_stack([data[n] for n in names[1:]]) if len(names) > 1 else np.zeros((len(data), 0)),
    )


def write_input_csv(table: InputTable, path: str | Path) -> None:
    _write_csv(Path(path), ["time", *table.names], np.column_stack([table.times, table.values]))


def validate(root: str | Path, python: str = sys.executable) -> subprocess.CompletedProcess:
    """Run ``python -m fmpy.cross_check.validate_vendor_repo root`` (exit code = problems)."""
    return subprocess.run(
        [python, "-m", "fmpy.cross_check.validate_vendor_repo", str(root)],
        capture_output=True,
        text=True,
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: write a cross-check folder for an FMU and validate it."""
    import argparse
    import os

    parser = argparse.ArgumentParser(
        prog="python -m simon_fmu.tools.crosscheck",
        description="Write FMU, inputs and reference result in the FMI cross-check layout.",
    )
    parser.add_argument("fmu", type=Path)
    parser.add_argument("root", type=Path, help="folder to write fmus/ (and results/) into")
    parser.add_argument("--step-size", type=float, default=0.01)
    parser.add_argument("--stop-time", type=float, default=3.0)
    parser.add_argument("--inputs", type=Path, help="input table CSV (time, then inputs)")
    parser.add_argument("--variables", help="comma-separated outputs for _ref.csv")
    parser.add_argument("--tool-name")
    parser.add_argument("--tool-version")
    parser.add_argument("--no-fmpy-result", action="store_true")
    parser.add_argument("--no-validate", action="store_true")
    args = parser.parse_args(argv)

    inputs = read_input_csv(args.inputs) if args.inputs else None
    scenario = Scenario.for_fmu(args.fmu, args.step_size, args.stop_time, inputs=inputs)
    folder = write_crosscheck(
        scenario, args.root,
        variables=args.variables.split(",") if args.variables else None,
        tool_name=args.tool_name, tool_version=args.tool_version,
        with_fmpy_result=not args.no_fmpy_result,
    )
    print(f"cross-check folder: {folder.model_dir}")
    status = 0
    if not args.no_validate:
        completed = validate(args.root)
        print(completed.stdout, end="")
        print(completed.stderr, end="", file=sys.stderr)
        status = completed.returncode
    sys.stdout.flush()
    sys.stderr.flush()
    # leave before the FMU library's finalisers run (see importers.isolated)
    os._exit(status)


if __name__ == "__main__":
    main()
