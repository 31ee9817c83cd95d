"""``python -m simon_fmu study MANOEUVRE [EVENT] [--set NAME=VALUE ...] -o OUT_DIR``.

Runs one manoeuvre on the FMU of the event (built once and cached, see
:func:`.sweep.prepare_fmu`, or ``--fmu``, whose own event gives the vehicle's values: an
event given beside it must be the one it was built from, :func:`.sweep.check_fmu_event`)
and writes into OUT_DIR (checked first, :func:`~simon_fmu.runtime.packaging.check_output`;
each file replaced atomically):

- ``metrics.json``: the manoeuvre, its settings, the FMU parameters set, the metrics, each
  in SI with its unit named (``units``), and what was run (``run``: vehicle, event file, FMU,
  GUID, date);
- ``histories.csv``: time and every recorded output, by its FMU name (``car.u``; a history
  the manoeuvre derives by its own name), a units row (SI, the FMU's unit strings) under
  the names, numbers ``%.9g`` (:mod:`.tables`);
- ``histories.mat``: the same columns for MATLAB (``car.u`` as ``car_u``, the cell arrays
  ``names`` and ``units`` give the CSV's names and units);
- ``report.html``: what was run, the metrics and settings in display units (deg, km/h, g:
  the FMU's declared display units) beside SI, and the figure, one self-contained page;
- ``report.md``: the same as Markdown, the figure beside it;
- ``report.png``: the figure alone, titled, for a document.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from engine.layout import CRUSH_STATIONS

from . import manoeuvres, report, units
from . import tables as history_tables
from .runner import CaseError, FmuRunner

#: The files a study writes into its folder.
REPORT_FILES = ("metrics.json", "histories.csv", "histories.mat", "report.html", "report.png",
                "report.md", "exteriors.obj")


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


def run_study(manoeuvre_name: str, fmu: Path, values: dict, out_dir: Path,
              event_file: Path | None = None) -> dict:
    """Run the study and write its files; the metrics JSON content. ``event_file``: the
    event the FMU was built from, as the report names it (None: the FMU's own)."""
    man = manoeuvres.get(manoeuvre_name)
    runner = FmuRunner(fmu)
    shown = units.DisplayUnits.of_model_description(runner.md)
    fmu_units = history_tables.variable_units(runner.md)
    shown.variables = {_history_name(runner, n): v for n, v in shown.variables.items()}
    run = run_info(runner, fmu, event_file)
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
        collisions = runner.collisions()
        exteriors, no_exteriors = runner.exteriors()
    finally:
        runner.close()
    metrics = {k: float(v) for k, v in man.metrics(history, settings).items()}
    notes = man.notes(metrics, settings, shown) + ([no_exteriors] if no_exteriors else [])
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {"manoeuvre": man.name, "fmu": str(fmu), "settings": settings,
              "parameters": parameters, "metrics": metrics, "notes": notes,
              "units": man.metric_units,
              "settingUnits": {k: v.unit for k, v in man.settings.items()}, "run": run,
              "collisions": collisions}
    as_json = {**result, "metrics": {k: None if math.isnan(v) else v for k, v in metrics.items()}}
    columns = history_tables.history_table(
        history, runner.full_name, fmu_units,
        {k: v.replace("^", "") for k, v in manoeuvres.DERIVED_UNITS.items()})
    title = f"{man.name}: {run['vehicle']}"
    panels = man.panels(history, settings, shown)
    if any(c["collision.crushFace"] != "None" for c in collisions.values()):
        panels.append(crush_panel(collisions, shown))
    png = report.figure_png(panels, f"{title} ({run['date'][:10]})")
    tables = report_tables(man, settings, parameters, metrics, run, shown, notes)
    if collisions:
        tables.insert(-1 if parameters else len(tables), collision_table(collisions, fmu_units, shown))
    page = report.html_report(title, man.description, tables, png)
    md = report.markdown_report(title, man.description, tables)
    for name, data in zip(REPORT_FILES, (json.dumps(as_json, indent=2) + "\n",
                                         history_tables.csv_text(*columns),
                                         history_tables.mat_bytes(*columns), page, png, md,
                                         exteriors)):
        if data is not None:
            _write(out_dir / name, data.encode() if isinstance(data, str) else data)
        elif (out_dir / name).is_file():
            (out_dir / name).unlink()      # an earlier run's, which this report does not go with
    # for a caller that checks what is drawn: the histories and the figure's data
    return {**result, "history": history, "figure": panels}


def _history_name(runner, name: str) -> str:
    return runner.short_name(name) if "." in name else name


def run_info(runner, fmu: Path, event_file: Path | None) -> dict:
    """What was run: the vehicle (the event's name and units), the event file, the FMU, its
    GUID and generation date, and the date of the run (UTC)."""
    import datetime
    units_text = ", ".join(runner.units)
    name = runner.model.name or runner.md.modelName
    return {"vehicle": f"{name} ({units_text})" if len(runner.units) > 1 or
            units_text != name else name,
            "eventFile": str(event_file) if event_file else f"the FMU's own ({name})",
            "fmu": str(fmu), "guid": runner.md.guid, "modelName": runner.md.modelName,
            "fmuGenerated": runner.md.generationDateAndTime or "",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def collision_table(collisions: dict, fmu_units: dict, shown):
    """The report's table of each unit's collision at the end of the run: delta-V, PDOF,
    duration, the crush (maximum, residual) and the residual crush profile (the damaged face,
    its width L and C1..C6; engine.collision.crush_profile), a column per unit."""
    from .report import Table, value_text
    units_ = list(collisions)
    rows = [["damaged face"] + [collisions[u]["collision.crushFace"] for u in units_] + ["", ""]]
    for key in next(iter(collisions.values())):
        if key == "collision.crushFace":
            continue
        si = fmu_units.get(f"{units_[0]}.{key}", "")
        unit = shown.unit(si)
        rows.append([key.split(".", 1)[1]] + [value_text(unit(collisions[u][key])) for u in units_]
                    + [unit.unit, si])
    return Table("Collisions (at the end of the run; crush profile C1..C6 across the damaged "
                 "face, C1 left or front)", ["output"] + units_ + ["unit", "SI unit"], rows)


def crush_panel(collisions: dict, shown):
    """The report's panel of the residual crush profile of each unit that has one (a crushed
    face; not a unit that only touched the road lightly): C1..C6 at their
    stations across the damage width (from C1, the left or the front end), drawn inwards from
    the undamaged face at 0, as a reconstructionist sketches the crushed outline."""
    from .report import Line, Panel
    collisions = {u: c for u, c in collisions.items() if c["collision.crushFace"] != "None"}
    m = shown.unit("m")
    title = "Residual crush profile (C1 at the left or the front)"
    if len(collisions) == 1:        # a single line is named by the title
        (unit, c), = collisions.items()
        face = c["collision.crushFace"].lower()
        end = "left" if face in ("front", "rear") else "front"
        title = f"Residual crush profile: {unit}, {face} (C1 at the {end})"
    panel = Panel(title, f"across the damage width ({m.unit})", f"crush, inwards ({m.unit})")
    width = max(c["collision.crushWidth"] for c in collisions.values())
    panel.lines.append(Line("_undamaged", np.array([0.0, m(width)]), np.zeros(2),
                            {"color": "0.5", "ls": "--"}))
    for unit, c in collisions.items():
        stations = np.linspace(0.0, c["collision.crushWidth"], CRUSH_STATIONS)
        crush = np.array([c[f"collision.crushC{k}"] for k in range(1, CRUSH_STATIONS + 1)])
        panel.lines.append(Line(f"{unit}, {c['collision.crushFace'].lower()}",
                                m(stations), -m(crush), {"marker": "o"}))
    return panel


def report_tables(man, settings: dict, parameters: dict, metrics: dict, run: dict,
                  shown, notes: list[str] = ()) -> list:
    """The report's tables: what was run, the notes (when there are), the metrics, the
    settings, the FMU parameters."""
    from .report import Table, value_text
    what = Table("What was run", ["", ""], [
        ["manoeuvre", man.name], ["vehicle", run["vehicle"]], ["event file", run["eventFile"]],
        ["FMU", f"{run['fmu']} ({run['modelName']})"], ["FMU GUID", run["guid"]],
        ["FMU generated", run["fmuGenerated"]], ["date of the run", run["date"]],
        ["communication step", f"{value_text(man.communication_step(settings))} s"]])
    rows = []
    for name, value in metrics.items():
        si = man.metric_units.get(name, "")
        unit = shown.unit(si)
        rows.append([name, value_text(unit(value)), unit.unit, value_text(value), si])
    out = [what] + ([Table("Notes", ["note"], [[n] for n in notes])] if notes else [])
    out.append(Table("Metrics", ["metric", "value", "unit", "SI value", "SI unit"], rows))
    rows = []
    for name, value in settings.items():
        setting = man.settings.get(name)
        if setting is None:
            rows.append([name, value_text(value), "", "", ""])
        elif setting.choices:
            rows.append([name, setting.choices[int(value)], "", value_text(value),
                         setting.description])
        else:
            unit = shown.unit(setting.unit)
            rows.append([name, value_text(unit(value)), unit.unit, value_text(value),
                         f"{setting.unit}: {setting.description}" if setting.unit
                         else setting.description])
    out.append(Table("Settings", ["setting", "value", "unit", "SI value", "meaning"], rows))
    if parameters:
        rows = []
        for name, value in parameters.items():
            unit = shown.variable(name if name in shown.variables else
                                  name.split(".", 1)[-1])
            rows.append([name, value_text(unit(value)), unit.unit, value_text(value), unit.si])
        out.append(Table("FMU parameters set", ["parameter", "value", "unit", "SI value",
                                                "SI unit"], rows))
    return out


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
        result = run_study(args.manoeuvre, fmu, values, Path(args.output), event_file)
    except engine.EventError as exc:
        return print_event_error(args.event_file, exc)
    except (ValueError, CaseError) as exc:     # also a refused -o (OutputError)
        print(f"study: {exc}", file=sys.stderr)
        return 2
    for note in result["notes"]:
        print(f"note: {note}")
    for name, value in result["metrics"].items():
        print(f"{name} = {value:.6g} {result['units'].get(name, '')}".rstrip())
    print(f"wrote {args.output}/metrics.json, histories.csv, histories.mat, report.html, "
          "report.md, report.png and exteriors.obj")
    return 0
