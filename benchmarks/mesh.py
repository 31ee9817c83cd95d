"""The cost of a mesh road: the sedan on a level mesh against flat ground.

    python benchmarks/mesh.py [--part integrator fmu] [--runs 2] [--repeat 3] [--json PATH]

Two parts (benchmarks/README.md, "On a mesh"), each recorded with its own date, revision and
kernel digest, so that a run of one (``--part``) keeps the other's figures:

  integrator  in this process, the engine's integrator alone (speed.py's engine-advance: one
              advance() of the 20 s manoeuvre with the steering held) on flat ground, on
              the 20 000-triangle mesh of mesh_event.py and on the same area in 2 000
              triangles, the three alternating ``--rounds`` times (the same load for all),
              the fastest of each kept: microseconds per 1 ms step.
  fmu         speed.py's engine-1ms, engine-10ms, engine-advance, fmu-10ms and fmu-1ms on
              the default (flat) event and on the mesh event (FMU out/SimonBenchMesh.fmu,
              built when missing), alternately, ``--runs`` runs of each with ``--repeat``
              rounds: each variant's best real-time factor and doStep median over the runs.

The mesh is level, so the physics are flat ground's and the difference is the terrain
look-up. The report goes to benchmarks/results/mesh.json, the committed file the docs'
figures are rendered from (tools/update_doc_numbers.py); a --quick run (2 s manoeuvre) to
out/mesh.json. A benchmark, not a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from runner import REPO, provenance, result_path, shown, write_report

SPEED = Path(__file__).resolve().parent / "speed.py"
VARIANTS = ("engine-1ms", "engine-10ms", "engine-advance", "fmu-10ms", "fmu-1ms")
TRIANGLES = (20000, 2000)
STEP = 0.001                 # s: the engine's internal step


def integrator(out: Path, duration: float, rounds: int) -> dict:
    """Microseconds per 1 ms step of engine-advance on flat ground and on the meshes."""
    import mesh_event
    from manoeuvres import load
    from variants import run_engine_advance

    events = {"flat": None, **{f"mesh-{n}": mesh_event.write(out / f"mesh-{n}", n)
                               for n in TRIANGLES}}
    manoeuvres = {name: load(duration, event) for name, event in events.items()}
    walls = {name: [] for name in events}
    for _ in range(rounds):
        for name, m in manoeuvres.items():
            r = run_engine_advance(m, duration)
            walls[name].append(r["wall_s"] * 1e6 / round(r["simulated_s"] / STEP))
    best = {name: min(w) for name, w in walls.items()}
    return {"duration_s": duration, "rounds": rounds, "us_per_step_all_rounds": walls,
            "us_per_step": best,
            "flat_over_mesh": {f"mesh-{n}": best["flat"] / best[f"mesh-{n}"] for n in TRIANGLES}}


def _speed(event: Path | None, repeat: int, quick: bool, out: Path) -> dict:
    """One speed.py run of VARIANTS on `event` (None: the default event); its report."""
    report = out / f"speed-{'flat' if event is None else event.stem}-{time.monotonic_ns()}.json"
    cmd = [sys.executable, str(SPEED), "--only", *VARIANTS, "--repeat", str(repeat),
           "--json", str(report), *(["--quick"] if quick else []),
           *(["--event", str(event)] if event is not None else [])]
    subprocess.run(cmd, cwd=REPO, check=True)
    return json.loads(report.read_text())


def fmu(out: Path, runs: int, repeat: int, quick: bool) -> dict:
    """speed.py on the flat and the mesh events alternately: each variant's best real-time
    factor, and the FMU variants' doStep median (the least over the runs), per terrain."""
    import mesh_event

    events = {"flat": None, "mesh": mesh_event.write(out, TRIANGLES[0])}
    reports = {name: [] for name in events}
    for _ in range(runs):
        for name, event in events.items():
            reports[name].append(_speed(event, repeat, quick, out))
    terrain = {}
    for name, rs in reports.items():
        terrain[name] = {
            "real_time_factor": {v: max(r["results"][v]["real_time_factor"] for r in rs)
                                 for v in VARIANTS},
            "doStep_median_us": {v: min(r["results"][v]["doStep"]["median_us"] for r in rs)
                                 for v in VARIANTS if v.startswith("fmu-")},
            "load_average": [rs[0]["machine"]["load_average_at_start"][0],
                             rs[-1]["machine"].get("load_average_at_end",
                                                   rs[-1]["machine"]["load_average_at_start"])[0]]}
    flat, mesh = terrain["flat"], terrain["mesh"]
    return {"runs": runs, "repeat": repeat, "triangles": TRIANGLES[0], **terrain,
            "mesh_over_flat": {v: mesh["real_time_factor"][v] / flat["real_time_factor"][v]
                               for v in VARIANTS},
            "doStep_flat_over_mesh": {v: flat["doStep_median_us"][v] / mesh["doStep_median_us"][v]
                                      for v in flat["doStep_median_us"]}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="+", choices=("integrator", "fmu"),
                        default=["integrator", "fmu"])
    parser.add_argument("--rounds", type=int, default=5, help="integrator rounds (default 5)")
    parser.add_argument("--runs", type=int, default=2,
                        help="speed.py runs of each terrain (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="speed.py's rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="2 s manoeuvre, to out/mesh.json")
    parser.add_argument("--json", type=Path, default=None,
                        help="the report (default benchmarks/results/mesh.json); the part not "
                             "run is kept from it")
    args = parser.parse_args(argv)
    from manoeuvres import DURATION, QUICK_DURATION
    path = args.json or result_path("mesh.json", partial=args.quick)
    run = provenance()
    old = json.loads(path.read_text()) if path.is_file() else {}
    parts = {k: old[k] for k in ("integrator", "fmu") if k in old}
    with tempfile.TemporaryDirectory(prefix="bench-mesh-") as tmp:
        for part in args.part:
            print(f"{part} ...", flush=True)
            figures = (integrator(Path(tmp), QUICK_DURATION if args.quick else DURATION,
                                  args.rounds) if part == "integrator"
                       else fmu(Path(tmp), args.runs, args.repeat, args.quick))
            parts[part] = {"command": run["command"], "date_utc": run["date_utc"],
                           "git_revision": run["git_revision"],
                           "kernel_digest": run["kernel_digest"], **figures}
    seeded = [k for k, v in parts.items() if v.get("seeded_from")]
    digests = {v.get("kernel_digest") for v in parts.values()}
    report = {**({"seeded_from": "the part(s) " + ", ".join(seeded) + " (see their "
                                 "seeded_from)"} if seeded else {}),
              **run, "command": "python benchmarks/mesh.py",
              "kernel_digest": digests.pop() if len(digests) == 1 else None, **parts}
    write_report(report, path)
    print(json.dumps({k: v for k, v in parts.get("integrator", {}).items()
                      if k in ("us_per_step", "flat_over_mesh")}, indent=1))
    print(f"wrote {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
