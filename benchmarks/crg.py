"""The cost of an OpenCRG road: the sedan straight ahead on flat ground and on CRG roads.

    python benchmarks/crg.py [--rounds 3] [--duration 15] [--json PATH]

In this process, the engine's integrator alone (``engine.Simulation.advance`` in one call,
no steering, no FMU): the default sedan at 20 m/s straight ahead for ``--duration`` s on flat
ground, on a level OpenCRG road (every height zero: the physics are flat ground's, the
difference is the road's look-up and the tread's envelope of it, ``engine.envelope``) and on
ISO 8608 class A and C rough roads of the same layout (``simon_fmu.tools.rough_road``: 2 cm
cells along, three long sections across 4 m). The four alternate ``--rounds`` times; the
fastest of each is kept, as microseconds per 1 ms step and real-time factor. The report goes
to benchmarks/results/crg.json. A benchmark, not a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

from runner import REPO, provenance, result_path, shown, write_report

SPEED = 20.0                 # m/s
LENGTH = 400.0               # m of road, from X = -20 m (the car starts at X = 0)
STEP = 0.001                 # s: the engine's internal step


def write_event(out: Path, road_class: str | None) -> Path:
    """The sedan on a CRG road of ``road_class`` (None: level), written under ``out``."""
    import numpy as np

    from simon_fmu.tools.rough_road import rough_road, write_crg
    road = rough_road(road_class or "A", LENGTH)
    if road_class is None:
        road = dataclasses.replace(road, amplitude=np.zeros_like(road.amplitude))
    name = f"crg-{road_class or 'level'}"
    write_crg(out / f"{name}.crg", road, LENGTH)
    data = json.loads((REPO / "engine" / "data" / "sedan.json").read_text())
    data["environment"]["terrain"] = {"type": "crg", "file": f"{name}.crg",
                                      "origin": [-20.0, 0.0,
                                                 data["environment"]["ground_elevation"]]}
    path = out / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def time_run(event: Path | None, duration: float) -> float:
    """Wall seconds of one advance over ``duration`` (the set-up not counted)."""
    import engine
    sim = engine.Simulation(engine.load_event(event), initial={"car": {"speed0": SPEED}})
    start = time.perf_counter()
    sim.advance(duration)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--json", type=Path, default=None,
                        help="the report (default benchmarks/results/crg.json)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    with tempfile.TemporaryDirectory(prefix="bench-crg-") as tmp:
        out = Path(tmp)
        events = {"flat": None, "crg-level": write_event(out, None),
                  "crg-A": write_event(out, "A"), "crg-C": write_event(out, "C")}
        for event in events.values():            # compile and load before timing
            time_run(event, 0.01)
        walls = {name: [] for name in events}
        for _ in range(args.rounds):
            for name, event in events.items():
                walls[name].append(time_run(event, args.duration))
    steps = round(args.duration / STEP)
    best = {name: min(w) for name, w in walls.items()}
    report = {**provenance(), "command": "python benchmarks/crg.py", "speed_m_s": SPEED,
              "duration_s": args.duration, "rounds": args.rounds,
              "wall_s_all_rounds": walls,
              "us_per_step": {n: w * 1e6 / steps for n, w in best.items()},
              "real_time_factor": {n: args.duration / w for n, w in best.items()},
              "wall_over_flat": {n: best[n] / best["flat"] for n in events if n != "flat"}}
    path = args.json or result_path("crg.json", partial=False)
    write_report(report, path)
    print(json.dumps({k: report[k] for k in ("real_time_factor", "wall_over_flat")}, indent=1))
    print(f"wrote {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
