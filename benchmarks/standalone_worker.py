"""The standalone FMU's worker processes: each instance's memory and start.

    python benchmarks/standalone_worker.py [--fmu out/SimonCar-standalone.fmu] [--instances 3]
                                           [--json PATH]

A standalone FMU (docs/standalone.md) runs the engine in a worker process of its own for each
instance. This script extracts the FMU once, then instantiates it ``--instances`` times in
this process with fmpy's FMU2Slave, one instance after the other, each taken to the end of
its first 10 ms doStep; it times that start (fmi2Instantiate to the end of the first doStep:
the worker's start, its imports and the kernels' load, the initialisation). With all the
instances alive it reads each worker's memory with psutil: the resident set, its peak
(VmHWM), and the unique and proportional sets (which do not count the libraries the workers
share more than once). Then it frees them. The FMU is ``make standalone``'s; it is not built
here.

The report goes to benchmarks/results/standalone-worker.json, the committed file the docs'
figures are rendered from (tools/update_doc_numbers.py), with the FMU's GUID and generation
time; its ``kernel_digest`` is that of the engine the FMU carries (which may be older than the
working tree's). A benchmark, not a test: nothing asserts a figure.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from runner import provenance, result_path, shown, write_report

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FMU = ROOT / "out" / "SimonCar-standalone.fmu"
STEP = 0.01                 # s: the first doStep


def _workers(known: set[int]) -> list:
    """The processes under this one that are not in ``known`` (pids)."""
    import psutil
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in known]


def _peak_mb(pid: int) -> float | None:
    """The process's peak resident set (VmHWM), MB."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) / 1024.0 if m else None


def bundled_kernel_digest(folder: Path) -> str | None:
    """engine.jit's digest of the kernels' sources of the engine the extracted FMU carries
    (resources/simon_engine_*/), computed in a process of its own: the kernels measured, which
    may be older than the working tree's."""
    engines = sorted((folder / "resources").glob("simon_engine_*"))
    if len(engines) != 1:
        return None
    code = "import sys; from pathlib import Path; from engine.jit import source_digest; " \
           "print(source_digest(Path(sys.argv[1])))"
    run = subprocess.run([sys.executable, "-c", code, str(engines[0])], cwd=ROOT,
                         capture_output=True, text=True)
    return (run.stdout.strip() or None) if run.returncode == 0 else None


def measure(fmu: Path, instances: int) -> dict:
    import psutil
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    with zipfile.ZipFile(fmu) as z:
        manifest = json.loads(z.read("resources/standalone/manifest.json"))
    folder = extract(str(fmu))
    digest = bundled_kernel_digest(Path(folder))
    slaves, runs = [], []
    try:
        for k in range(instances):
            known = {p.pid for p in psutil.Process().children(recursive=True)}
            slave = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                              modelIdentifier=md.coSimulation.modelIdentifier,
                              instanceName=f"instance{k}")
            t0 = time.perf_counter()
            slave.instantiate()
            slave.setupExperiment(startTime=0.0)
            slave.enterInitializationMode()
            slave.exitInitializationMode()
            slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=STEP)
            start = time.perf_counter() - t0
            slaves.append(slave)
            workers = _workers(known)
            if len(workers) != 1:
                raise SystemExit(f"instance {k}: {len(workers)} new processes, expected its "
                                 "worker alone")
            runs.append({"instance": k, "worker_pid": workers[0].pid,
                         "instantiate_to_first_doStep_s": start})
        for run in runs:        # every instance alive
            pid = run.pop("worker_pid")
            info = psutil.Process(pid).memory_full_info()
            run.update({"rss_mb": info.rss / 2 ** 20, "peak_rss_mb": _peak_mb(pid),
                        "uss_mb": info.uss / 2 ** 20, "pss_mb": info.pss / 2 ** 20})
    finally:
        for slave in slaves:
            slave.terminate()
            slave.freeInstance()
        shutil.rmtree(folder, ignore_errors=True)
    starts = [r["instantiate_to_first_doStep_s"] for r in runs]
    return {"kernel_digest": digest,
            "fmu": {"path": shown(fmu), "guid": md.guid,
                    "generated": md.generationDateAndTime, "kernel_digest": digest,
                    "python": manifest.get("python"), "packages": manifest.get("packages")},
            "instances": runs,
            "start_s": {"min": min(starts), "median": statistics.median(starts),
                        "max": max(starts)},
            "rss_mb": {"min": min(r["rss_mb"] for r in runs),
                       "max": max(r["rss_mb"] for r in runs)},
            "uss_mb": {"min": min(r["uss_mb"] for r in runs),
                       "max": max(r["uss_mb"] for r in runs)}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", type=Path, default=DEFAULT_FMU,
                        help="the standalone FMU (default out/SimonCar-standalone.fmu, "
                             "`make standalone`)")
    parser.add_argument("--instances", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None,
                        help="the report (default benchmarks/results/standalone-worker.json; "
                             "with other --instances, out/standalone-worker.json)")
    args = parser.parse_args(argv)
    if not args.fmu.is_file():
        raise SystemExit(f"{args.fmu}: no such FMU; build it with `make standalone`")
    report = {**provenance(), **measure(args.fmu, args.instances)}
    path = args.json or result_path("standalone-worker.json", partial=args.instances != 3)
    write_report(report, path)
    for r in report["instances"]:
        print(f"instance {r['instance']}: start {r['instantiate_to_first_doStep_s']:.2f} s, "
              f"worker RSS {r['rss_mb']:.0f} MB (peak {r['peak_rss_mb'] or float('nan'):.0f}), "
              f"USS {r['uss_mb']:.0f} MB, PSS {r['pss_mb']:.0f} MB")
    print(f"wrote {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
