"""Parameter sweeps on Dask distributed.

``python -m simon_fmu sweep SPEC.json -o RESULTS [--workers N | --scheduler ADDRESS]`` runs
every case of the spec (:mod:`.spec`) on a ``LocalCluster`` of N single-threaded worker
processes (default 2), or on the workers of an existing scheduler. The client computes the
cases (and draws the random samples), submits them a few per worker at a time, and journals
each row as it arrives (:mod:`.results`); a case that fails is a row with status ``failed``
and the FMU's message, and the sweep goes on. Each worker process extracts and instantiates
the FMU once (:class:`.runner.FmuRunner`, kept in the process by FMU path) and starts every
case with fmi2Reset. Rows hold no timing and the table is sorted by case id, so the table is
the same whatever the number of workers. Each column carries its SI unit
(:func:`column_units`): in the CSV table a units row under the names, as in the studies' CSVs.
"""
from __future__ import annotations

import hashlib
import logging
import os
import sys
import uuid
from pathlib import Path

from . import manoeuvres, results as store
from .runner import CaseError, FmuRunner
from .spec import Spec, SpecError
from .units import DisplayUnits

ROOT = Path(__file__).resolve().parents[2]
#: the sources an FMU is built from: a cached FMU is rebuilt when one of them changes
_FMU_SOURCES = ("engine", "model_description", "simon_fmu/vehicle", "simon_fmu/runtime",
                "simon_fmu/native/c")    # its fp_guard.h is the runtime library's too

#: the runner of this (worker) process, by FMU path and modification time
_RUNNERS: dict[tuple[str, int], FmuRunner] = {}


def worker_runner(fmu: str) -> FmuRunner:
    """This process's runner of ``fmu``, made on the first case (extract + instantiate once)."""
    key = (fmu, os.stat(fmu).st_mtime_ns)
    runner = _RUNNERS.get(key)
    if runner is None:
        for old in list(_RUNNERS):
            _RUNNERS.pop(old).close()
        runner = _RUNNERS[key] = FmuRunner(fmu)
    return runner


def run_case(fmu: str, manoeuvre_name: str, fixed: dict, case: int, parameters: dict) -> dict:
    """One case on this process's runner: its row (parameters, metrics, status, error and
    the manoeuvre's notes, as a study's, joined by "; ")."""
    row = {"case": case, **parameters}
    man = manoeuvres.get(manoeuvre_name)
    settings_in = dict(fixed)
    fmu_parameters = {}
    for name, value in parameters.items():
        if name in man.settings:
            settings_in[name] = value
        else:
            fmu_parameters[name] = value
    try:
        settings = man.resolve(settings_in)
        runner = worker_runner(fmu)
        history = man.simulate(runner, settings, fmu_parameters)
        metrics = {k: float(v) for k, v in man.metrics(history, settings).items()}
        row.update(metrics)
        notes = man.notes(metrics, settings, DisplayUnits.of_model_description(runner.md))
        row.update(status="ok", error="", notes="; ".join(notes))
    except (CaseError, ValueError, ArithmeticError) as exc:
        row.update(status="failed", error=str(exc), notes="")
    except Exception as exc:                    # noqa: BLE001 - any failure is the case's row
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}", notes="")
    return row


def _sources_hash(event_file: Path | None) -> str:
    h = hashlib.sha256()
    h.update(event_file.read_bytes() if event_file else b"default")
    for folder in _FMU_SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".py", ".c", ".h", ".json") and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def prepare_fmu(event_file: Path | None, cache: Path = ROOT / "out" / "studies") -> Path:
    """The FMU of ``event_file`` (default car if None), built once into ``cache`` and reused
    while the event and the FMU's sources are unchanged. An event that is missing or not
    valid raises engine.EventError before anything is built."""
    import engine

    from ..vehicle.build import build_fmu
    engine.load_event(event_file)
    fmu = cache / f"Simon-{_sources_hash(event_file)}.fmu"
    if not fmu.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = fmu.with_suffix(".building.fmu")
        build_fmu(event_file, tmp)
        os.replace(tmp, fmu)
    return fmu


def check_fmu_event(fmu: Path, event_file: Path | None) -> None:
    """Check that ``fmu`` (given with ``--fmu``) is a vehicle FMU of this project and, when an
    event file is given too, that it was built from that event; ValueError (one line) if not.

    A study or a sweep takes the vehicle's values (body, steering, drivetrain, gravity) from
    the FMU's own event (``resources/event.json``), so an event given beside the FMU must be
    the same: its data as the FMU carries it (:func:`~simon_fmu.vehicle.build.fmu_event_json`,
    both read by the engine of today) and the files it names, byte for byte."""
    import json
    import tempfile
    import zipfile

    import engine

    from ..vehicle.build import fmu_event_json, resource_files
    from ..vehicle.slave import EVENT_FILE
    member = f"resources/{EVENT_FILE}"
    try:
        with zipfile.ZipFile(fmu) as archive:
            names = set(archive.namelist())
            if member not in names:
                raise ValueError(f"--fmu {fmu}: not a vehicle FMU of this project "
                                 f"(it has no {member})")
            if event_file is None:
                return
            given = engine.load_event(event_file)
            with tempfile.TemporaryDirectory(prefix="simon_event_") as tmp:
                archive.extractall(tmp, [n for n in names if n.startswith("resources/")
                                         and n.count("/") == 1 and not n.endswith(".py")])
                try:
                    own = json.loads(fmu_event_json(engine.load_event(Path(tmp) / member)))
                except engine.EventError:       # an FMU of an older engine: its data as is
                    own = json.loads((Path(tmp) / member).read_text())
            same = own == json.loads(fmu_event_json(given)) and all(
                f"resources/{name}" in names
                and archive.read(f"resources/{name}") == Path(path).read_bytes()
                for name, path in resource_files(given).items())
    except (OSError, zipfile.BadZipFile) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"--fmu {fmu}: not a readable FMU ({reason})") from None
    if not same:
        raise ValueError(f"--fmu {fmu} was built from another event than {event_file}; give "
                         "that event's FMU, or no event file to use the FMU's own")


def vehicle_fmu(event_file: Path | None, fmu: Path | None) -> Path:
    """The FMU a study or sweep runs: ``fmu`` when given (checked against ``event_file`` by
    :func:`check_fmu_event`), else the cached build of ``event_file`` (:func:`prepare_fmu`)."""
    if fmu is None:
        return prepare_fmu(event_file)
    check_fmu_event(Path(fmu), event_file)
    return Path(fmu)


def fmu_parameter_units(fmu: Path) -> dict[str, str]:
    """The FMU's parameters and their SI units (the model description's; ``""`` for none)."""
    from fmpy import read_model_description

    from .tables import variable_units
    md = read_model_description(str(fmu))
    units = variable_units(md)
    return {v.name: units[v.name] for v in md.modelVariables if v.causality == "parameter"}


def column_units(man, parameters: list[str], fmu_units: dict[str, str]) -> dict[str, str]:
    """The SI unit of each column of a sweep's table, spelt as the FMU spells units (``m/s2``,
    as in the studies' CSVs): a swept setting's from the manoeuvre, an FMU parameter's from
    the FMU's model description, a metric's from the manoeuvre's metrics; ``case``,
    ``status``, ``error`` and ``notes`` have none."""
    out = dict(man.metric_units)
    for name in parameters:
        out[name] = man.settings[name].unit if name in man.settings else fmu_units.get(name, "")
    return {k: v.replace("^", "") for k, v in out.items()}


def run_sweep(spec: Spec, output: Path, fmu: Path | None = None, workers: int = 2,
              scheduler: str | None = None, progress: bool = True, retry_failed: bool = False
              ) -> dict:
    """Run the sweep's missing cases and write the table; a summary dict."""
    output = Path(output)
    fmu = vehicle_fmu(spec.event_path(), fmu).resolve()
    fmu_units = fmu_parameter_units(fmu)
    spec.check_parameters(set(fmu_units))
    cases = spec.cases()
    done = store.read_journal(output)
    for case, row in done.items():
        if case >= len(cases) or any(row.get(k) != v for k, v in cases[case].items()):
            raise SpecError([f"{output}: its journal holds case {case} with other parameters than "
                             "this spec; write to another RESULTS or delete it and its journal"])
    if retry_failed:
        done = {k: r for k, r in done.items() if r.get("status") == "ok"}
    todo = [i for i in range(len(cases)) if i not in done]
    if todo:
        _run_on_dask(spec, fmu, cases, todo, output, workers, scheduler, progress)
    rows = list(store.read_journal(output).values())
    store.write_table(output, rows, spec.parameters,
                      column_units(spec.manoeuvre, spec.parameters, fmu_units))
    failed = sum(r.get("status") != "ok" for r in rows)
    return {"cases": len(cases), "run": len(todo), "skipped": len(cases) - len(todo),
            "failed": failed, "output": str(output), "fmu": str(fmu)}


def _run_on_dask(spec, fmu, cases, todo, output, workers, scheduler, progress):
    from distributed import Client, LocalCluster, as_completed
    from tqdm import tqdm
    cluster = None
    if scheduler:
        client = Client(scheduler)
        workers = max(1, len(client.scheduler_info().get("workers", {})))
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    journal = store.Journal(output)
    bar = tqdm(total=len(cases), initial=len(cases) - len(todo), unit="case",
               disable=not progress, file=sys.stderr)
    try:
        pending = iter(todo)
        run_token = uuid.uuid4().hex[:12]      # keys of this run, unique on a shared scheduler
        window = 2 * workers          # a few cases per worker in flight: memory stays flat

        def submit(i):
            return client.submit(run_case, str(fmu), spec.manoeuvre.name, spec.settings, i,
                                 cases[i], pure=False, key=f"case-{i}-{run_token}")
        running = as_completed([submit(i) for _, i in zip(range(window), pending)])
        for future in running:
            row = future.result()
            future.release()
            journal.append(row)
            bar.update(1)
            nxt = next(pending, None)
            if nxt is not None:
                running.add(submit(nxt))
    finally:
        bar.close()
        journal.close()
        client.close()
        if cluster is not None:
            cluster.close()


def output_inputs(event_file: Path | None, fmu) -> list[tuple[str, str]]:
    """The files a study or sweep reads, for :func:`~simon_fmu.runtime.packaging.check_output`:
    the event file and the files it names (EventError if it is not valid), and ``--fmu``."""
    import engine

    from ..vehicle.build import event_inputs
    inputs = []
    if event_file is not None:
        inputs += event_inputs(event_file, engine.load_event(event_file))
    if fmu:
        inputs.append(("the FMU given with --fmu", fmu))
    return inputs


def main(args) -> int:
    """The ``sweep`` command (arguments from :mod:`simon_fmu.__main__`)."""
    import engine

    from ..tools.report import print_event_error
    from ..runtime.packaging import check_output
    from . import spec as spec_module
    spec = None
    try:
        spec = spec_module.load(args.spec)
        output = Path(args.output)
        inputs = [("the sweep's spec", args.spec)] + output_inputs(spec.event_path(), args.fmu)
        check_output(output, inputs, store.not_a_table)
        check_output(store.journal_path(output), inputs)
        summary = run_sweep(spec, output, Path(args.fmu) if args.fmu else None,
                            workers=args.workers, scheduler=args.scheduler,
                            progress=not args.no_progress, retry_failed=args.retry_failed)
    except SpecError as exc:
        print(f"{args.spec}: not a valid sweep:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except engine.EventError as exc:
        return print_event_error(spec.event_path(), exc)
    except ValueError as exc:            # a refused -o (OutputError), an FMU that does not fit
        print(f"sweep: {exc}", file=sys.stderr)
        return 2
    print(f"{summary['output']}: {summary['cases']} cases, {summary['run']} run, "
          f"{summary['skipped']} already done, {summary['failed']} failed")
    return 0
