"""Parameter sweeps on Dask distributed.

``python -m simon_fmu sweep SPEC.json -o RESULTS [--workers N | --scheduler ADDRESS]`` runs
every case of the spec (:mod:`.spec`) on a ``LocalCluster`` of N single-threaded worker
processes (default 2), or on the workers of an existing scheduler. The client computes the
cases (and draws the random samples), submits them a few per worker at a time, and journals
each row as it arrives (:mod:`.results`); a case that fails is a row with status ``failed``
and the FMU's message, and the sweep goes on. Each worker process extracts and instantiates
the FMU once (:class:`.runner.FmuRunner`, kept in the process by FMU path) and starts every
case with fmi2Reset. Rows hold no timing and the table is sorted by case id, so the table is
the same whatever the number of workers.
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

ROOT = Path(__file__).resolve().parents[2]
#: the sources an FMU is built from: a cached FMU is rebuilt when one of them changes
_FMU_SOURCES = ("engine", "model_description", "simon_fmu/vehicle", "simon_fmu/runtime")

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
    """One case on this process's runner: its row (parameters, metrics, status, error)."""
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
        row.update({k: float(v) for k, v in man.metrics(history, settings).items()})
        row.update(status="ok", error="")
    except (CaseError, ValueError, ArithmeticError) as exc:
        row.update(status="failed", error=str(exc))
    except Exception as exc:                    # noqa: BLE001 - any failure is the case's row
        row.update(status="failed", error=f"{type(exc).__name__}: {exc}")
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
    while the event and the FMU's sources are unchanged."""
    from ..vehicle.build import build_fmu
    fmu = cache / f"Simon-{_sources_hash(event_file)}.fmu"
    if not fmu.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = fmu.with_suffix(".building.fmu")
        build_fmu(event_file, tmp)
        os.replace(tmp, fmu)
    return fmu


def fmu_parameter_names(fmu: Path) -> set[str]:
    from fmpy import read_model_description
    md = read_model_description(str(fmu))
    return {v.name for v in md.modelVariables if v.causality == "parameter"}


def run_sweep(spec: Spec, output: Path, fmu: Path | None = None, workers: int = 2,
              scheduler: str | None = None, progress: bool = True, retry_failed: bool = False
              ) -> dict:
    """Run the sweep's missing cases and write the table; a summary dict."""
    output = Path(output)
    if fmu is None:
        fmu = prepare_fmu(spec.event_path())
    fmu = Path(fmu).resolve()
    spec.check_parameters(fmu_parameter_names(fmu))
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
    store.write_table(output, rows, spec.parameters)
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


def main(args) -> int:
    """The ``sweep`` command (arguments from :mod:`simon_fmu.__main__`)."""
    import engine

    from . import spec as spec_module
    try:
        spec = spec_module.load(args.spec)
        summary = run_sweep(spec, Path(args.output), Path(args.fmu) if args.fmu else None,
                            workers=args.workers, scheduler=args.scheduler,
                            progress=not args.no_progress, retry_failed=args.retry_failed)
    except SpecError as exc:
        print(f"{args.spec}: not a valid sweep:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except engine.EventError as exc:
        print(f"{spec.event_path()}: not a valid event:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    print(f"{summary['output']}: {summary['cases']} cases, {summary['run']} run, "
          f"{summary['skipped']} already done, {summary['failed']} failed")
    return 0
