"""``python -m simon_fmu study MANOEUVRE [EVENT] [--set NAME=VALUE ...] -o OUT_DIR``.

Runs one manoeuvre on the FMU of the event (built once and cached, see
:func:`.sweep.prepare_fmu`, or ``--fmu``, whose own event gives the vehicle's values: an
event given beside it must be the one it was built from, :func:`.sweep.check_fmu_event`)
and writes into OUT_DIR (checked first, :func:`~simon_fmu.runtime.packaging.check_output`;
each file replaced atomically):

- ``metrics.json``: the manoeuvre, its settings, the FMU parameters set, the metrics (SI);
- ``histories.csv``: time and every recorded output (names relative to the lead unit);
- ``report.html``: the same figures and the plots, one self-contained page;
- ``report.png``: the plots alone, for a document.
"""
from __future__ import annotations

import io
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from . import manoeuvres, report
from .runner import CaseError, FmuRunner

#: The files a study writes into its folder.
REPORT_FILES = ("metrics.json", "histories.csv", "report.html", "report.png")


def parse_sets(items: list[str]) -> dict[str, float | str]:
    """``NAME=VALUE`` pairs, the value a number or else a word (the name of a setting's
    choice); ValueError naming a bad one."""
    out: dict[str, float | str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(f"--set {item!r}: expected NAME=NUMBER or NAME=CHOICE")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            out[name.strip()] = value.strip()
    return out


def run_study(manoeuvre_name: str, fmu: Path, values: dict, out_dir: Path) -> dict:
    """Run the study and write its files; the metrics JSON content."""
    man = manoeuvres.get(manoeuvre_name)
    runner = FmuRunner(fmu)
    try:
        parameters_known = {n for n, v in runner.variables.items() if v.causality == "parameter"}
        settings_in, parameters = {}, {}
        for name, value in values.items():
            if name in man.settings:
                settings_in[name] = value
            elif name in parameters_known:
                if isinstance(value, str):
                    raise ValueError(f"--set {name}={value}: the FMU parameter takes a number")
                parameters[name] = value
            else:
                raise ValueError(f"--set {name}: neither a setting of {man.name} "
                                 f"({', '.join(man.settings)}) nor a parameter of the FMU")
        settings = man.resolve(settings_in)
        history = man.simulate(runner, settings, parameters)
    finally:
        runner.close()
    metrics = {k: float(v) for k, v in man.metrics(history, settings).items()}
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {"manoeuvre": man.name, "fmu": str(fmu), "settings": settings,
              "parameters": parameters, "metrics": metrics, "units": man.metric_units}
    as_json = {**result, "metrics": {k: None if math.isnan(v) else v for k, v in metrics.items()}}
    names = list(history)
    table = io.StringIO()
    np.savetxt(table, np.column_stack([history[n] for n in names]),
               delimiter=",", header=",".join(names), comments="")
    png = report.figure_png(history, man.plots, man.decorate)
    page = report.html_report(f"{man.name} study", man.description, settings,
                              {k: s.unit for k, s in man.settings.items()}, parameters, metrics,
                              man.metric_units, png)
    for name, data in zip(REPORT_FILES, (json.dumps(as_json, indent=2) + "\n",
                                         table.getvalue(), page, png)):
        _write(out_dir / name, data.encode() if isinstance(data, str) else data)
    return result


def _write(path: Path, data: bytes) -> None:
    """Write a report file atomically (its partial file renamed over it)."""
    from ..runtime.packaging import partial_path
    partial = partial_path(path)
    partial.write_bytes(data)
    os.replace(partial, path)


def main(args) -> int:
    import engine

    from ..tools.report import print_event_error
    from ..runtime.packaging import check_output
    from .sweep import output_inputs, vehicle_fmu
    event_file = Path(args.event_file) if args.event_file else None
    try:
        values = parse_sets(args.set)
        manoeuvres.get(args.manoeuvre)
        check_output(args.output, output_inputs(event_file, args.fmu), contents=REPORT_FILES)
        fmu = vehicle_fmu(event_file, Path(args.fmu) if args.fmu else None)
        result = run_study(args.manoeuvre, fmu, values, Path(args.output))
    except engine.EventError as exc:
        return print_event_error(args.event_file, exc)
    except (ValueError, CaseError) as exc:     # also a refused -o (OutputError)
        print(f"study: {exc}", file=sys.stderr)
        return 2
    for name, value in result["metrics"].items():
        print(f"{name} = {value:.6g} {result['units'].get(name, '')}".rstrip())
    print(f"wrote {args.output}/metrics.json, histories.csv, report.html and report.png")
    return 0
