"""Sweep throughput: cases per second with 1 and 2 Dask workers, and the per-case overhead.

    python benchmarks/sweep.py [--fmu out/SimonCar.fmu] [--cases 200] [--json PATH]

The report goes to benchmarks/results/sweep.json, the committed file the docs' figures are
rendered from (tools/update_doc_numbers.py).

1. In this process, one :class:`simon_fmu.studies.runner.FmuRunner` runs the step-steer
   manoeuvre for 1, 2, 4 and 8 s simulated, several times each; a straight line through
   wall time against simulated time gives the per-case overhead beyond the simulated time
   (the intercept: fmi2Reset, initialisation, the metrics) and the stepping cost per
   simulated second (the slope). Resident memory is read every fifth of ``--memory-cases``
   more cases of 1 s.
2. ``run_sweep`` of a straight-brake grid of ``--cases`` cases on a LocalCluster of 1 and of
   2 workers: the wall time with the cluster's start and the FMU loads, and cases/s on warm
   workers (the throughput of a long sweep), whose ratio is the 2-worker speed-up.

A benchmark, not a test: nothing asserts a time; other work on the machine moves the figures.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from runner import provenance, result_path, shown, write_report

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def overhead(fmu: Path, repeat: int, memory_cases: int) -> dict:
    from simon_fmu.studies import manoeuvres
    from simon_fmu.studies.runner import FmuRunner
    runner = FmuRunner(fmu)
    man = manoeuvres.get("step-steer")
    points = []
    for duration in (1.0, 2.0, 4.0, 8.0):
        s = man.resolve({"duration": duration, "stepTime": 0.2, "steadyFrom": 0.5})
        runner.run(man, s, {})                       # warm
        for _ in range(repeat):
            t0 = time.perf_counter()
            h = runner.run(man, s, {})
            man.metrics(h, s)
            points.append((duration, time.perf_counter() - t0))
    d, w = np.array(points).T
    slope, intercept = np.polyfit(d, w, 1)
    s = man.resolve({"duration": 1.0, "stepTime": 0.2, "steadyFrom": 0.5})
    rss = [(0, rss_mb())]
    for k in range(1, memory_cases + 1):
        man.metrics(runner.run(man, s, {}), s)
        if k % max(1, memory_cases // 5) == 0:
            rss.append((k, rss_mb()))
    runner.close()
    return {"per_case_overhead_s": float(intercept), "wall_per_simulated_s": float(slope),
            "real_time_factor_stepping": float(1.0 / slope), "rss_mb_by_cases": rss,
            "points": points}


def sweep(fmu: Path, cases: int, workers: int) -> dict:
    """A straight-brake grid of ``cases`` cases: once on a new LocalCluster (the wall time a user
    sees, with the cluster's start and each worker's FMU load), then the same grid on a second
    cluster whose workers have each run a warm-up case, so that ``cases_per_s_steady`` is the
    throughput of a long sweep."""
    import logging

    from distributed import LocalCluster

    from simon_fmu.studies import spec as spec_module
    from simon_fmu.studies.sweep import run_sweep

    def grid(n):
        return spec_module.parse({
            "manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000.0}},
            "grid": {"frictionMultiplier": [float(v) for v in np.linspace(0.4, 1.0, n // 2)],
                     "speed0": [20.0, 30.0]}})
    spec = grid(cases)
    n = len(spec.cases())
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        summary = run_sweep(spec, Path(tmp) / "r.parquet", fmu, workers=workers, progress=False)
        wall = time.perf_counter() - t0
        t2 = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        start = time.perf_counter() - t2
        try:
            run_sweep(grid(2 * workers), Path(tmp) / "warm.parquet", fmu,
                      scheduler=cluster.scheduler_address, progress=False)
            t3 = time.perf_counter()
            run_sweep(spec, Path(tmp) / "steady.parquet", fmu,
                      scheduler=cluster.scheduler_address, progress=False)
            steady = time.perf_counter() - t3
        finally:
            cluster.close()
    return {"workers": workers, "cases": n, "failed": summary["failed"], "wall_s": wall,
            "cluster_start_s": start, "cases_per_s": n / wall,
            "steady_wall_s": steady, "cases_per_s_steady": n / steady}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonCar.fmu"))
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-cases", type=int, default=2000)
    parser.add_argument("--json", default=str(result_path("sweep.json")),
                        help="JSON report path (default benchmarks/results/sweep.json)")
    args = parser.parse_args(argv)
    fmu = Path(args.fmu)
    if not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", str(fmu)], check=True,
                       cwd=ROOT)
    report = {**provenance(), "fmu": shown(fmu),
              "settings": {"cases": args.cases, "repeat": args.repeat,
                           "memory_cases": args.memory_cases}}
    report["overhead"] = overhead(fmu, args.repeat, args.memory_cases)
    report["sweeps"] = [sweep(fmu, args.cases, w) for w in (1, 2)]
    load = report["machine"]["load_average_at_end"] = os.getloadavg()
    o = report["overhead"]
    print(f"per case: {o['per_case_overhead_s'] * 1000:.1f} ms beyond the simulated time, "
          f"stepping {o['real_time_factor_stepping']:.0f} x real time")
    print("RSS by cases run: " + ", ".join(f"{k}: {mb:.0f} MB" for k, mb in o["rss_mb_by_cases"]))
    for s in report["sweeps"]:
        print(f"{s['workers']} worker(s): {s['cases']} cases in {s['wall_s']:.1f} s "
              f"({s['cases_per_s']:.1f} cases/s with the cluster's {s['cluster_start_s']:.1f} s "
              f"start; {s['cases_per_s_steady']:.1f} cases/s on warm workers)")
    one, two = report["sweeps"]
    report["speedup_2_workers"] = two["cases_per_s_steady"] / one["cases_per_s_steady"]
    print(f"2 workers / 1 worker, warm: {report['speedup_2_workers']:.2f}x")
    print(f"load average {report['machine']['load_average_at_start'][0]:.2f} at the start, "
          f"{load[0]:.2f} at the end")
    print(f"wrote {write_report(report, args.json)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
