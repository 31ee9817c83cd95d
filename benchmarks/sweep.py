"""Sweep throughput: cases per second with 1 and 2 Dask workers, and the per-case overhead.

    python benchmarks/sweep.py [--fmu out/SimonCar.fmu] [--cases 40] [--json out/benchmark-sweep.json]

1. In this process, one :class:`simon_fmu.studies.runner.FmuRunner` runs the step-steer
   manoeuvre for 1, 2, 4 and 8 s simulated, several times each; a straight line through
   wall time against simulated time gives the per-case overhead beyond the simulated time
   (the intercept: fmi2Reset, initialisation, the metrics) and the stepping cost per
   simulated second (the slope). Resident memory is read every fifth of ``--memory-cases``
   more cases of 1 s.
2. ``run_sweep`` of a straight-brake grid of ``--cases`` cases on a LocalCluster of 1 and of
   2 workers: wall time with and without the cluster's start, cases/s.

A benchmark, not a test: nothing asserts a time; other work on the machine moves the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

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
    from simon_fmu.studies import spec as spec_module
    from simon_fmu.studies.sweep import run_sweep
    spec = spec_module.parse({
        "manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000.0}},
        "grid": {"frictionMultiplier": [float(v) for v in np.linspace(0.4, 1.0, cases // 2)],
                 "speed0": [20.0, 30.0]}})
    n = len(spec.cases())
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        summary = run_sweep(spec, Path(tmp) / "r.parquet", fmu, workers=workers, progress=False)
        wall = time.perf_counter() - t0
        # the same sweep again: every case is done, so this is the fixed cost without Dask
        t1 = time.perf_counter()
        run_sweep(spec, Path(tmp) / "r.parquet", fmu, workers=workers, progress=False)
        fixed = time.perf_counter() - t1
    from distributed import LocalCluster
    import logging
    t2 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    start = time.perf_counter() - t2
    cluster.close()
    return {"workers": workers, "cases": n, "failed": summary["failed"], "wall_s": wall,
            "cluster_start_s": start, "cases_per_s": n / wall,
            "cases_per_s_after_start": n / max(1e-9, wall - start - fixed)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonCar.fmu"))
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory-cases", type=int, default=1000)
    parser.add_argument("--json", default=str(ROOT / "out" / "benchmark-sweep.json"))
    args = parser.parse_args(argv)
    fmu = Path(args.fmu)
    if not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", str(fmu)], check=True,
                       cwd=ROOT)
    report = {"machine": os.uname().nodename, "cpus": os.cpu_count(),
              "load_average_start": os.getloadavg(), "fmu": str(fmu)}
    report["overhead"] = overhead(fmu, args.repeat, args.memory_cases)
    report["sweeps"] = [sweep(fmu, args.cases, w) for w in (1, 2)]
    report["load_average_end"] = os.getloadavg()
    o = report["overhead"]
    print(f"per case: {o['per_case_overhead_s'] * 1000:.1f} ms beyond the simulated time, "
          f"stepping {o['real_time_factor_stepping']:.0f} x real time")
    print("RSS by cases run: " + ", ".join(f"{k}: {mb:.0f} MB" for k, mb in o["rss_mb_by_cases"]))
    for s in report["sweeps"]:
        print(f"{s['workers']} worker(s): {s['cases']} cases in {s['wall_s']:.1f} s "
              f"({s['cases_per_s']:.1f} cases/s; {s['cases_per_s_after_start']:.1f} cases/s after "
              f"the cluster's {s['cluster_start_s']:.1f} s start)")
    print(f"load average {report['load_average_start'][0]:.2f} at the start, "
          f"{report['load_average_end'][0]:.2f} at the end")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
