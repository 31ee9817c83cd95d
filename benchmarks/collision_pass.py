"""One collision pass alone: the engine's collision kernel on saved states of sustained contact.

    python benchmarks/collision_pass.py [--out out] [--calls 20000] [--rounds 5] [--json PATH]
                                        [--states FILE]

collision.py's event (two cars on one line, the first pushing the second, braked) is run in
the engine (engine.Simulation, no FMU) to 1, 2, 3 and 4 s; at each of those states
``engine.collision.collision_forces`` (every environment and unit pair, the forces of one
evaluation of the derivative) is called ``--calls`` times in a compiled loop, and the fastest
of ``--rounds`` rounds is reported per state with the vertices in touch. A pass is what the
integrator pays four times a step (the first stage's also latches the boundary's memories,
``engine.collision.collision_pass``).

Why this script: it times the collision kernels alone, so a change to engine/collision.py
can be timed against the committed code in alternated runs
(``PYTHONPATH=<other checkout> python benchmarks/collision_pass.py``). Running the event to
its states needs the whole model, which an edit to engine/collision.py has compiled again
(minutes); with ``--states FILE`` the first run saves the states and the arrays the kernels
read there (a pickle), and every later run, of any checkout with the same layout, reads them
and compiles the collision kernels only (seconds), timing each checkout on the very same
states. Its loop is compiled without numba's disk cache on purpose: a cached caller keeps the
callee's code it was compiled with, and would time the old kernels after an edit.

The report goes to out/collision-pass.json (``--json``). A benchmark, not a test: nothing
asserts a time.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from runner import kept, provenance, write_report

ROOT = Path(__file__).resolve().parents[1]
# this checkout's engine unless PYTHONPATH names another (appended, not put first)
sys.path.append(str(ROOT))

TIMES = (1.0, 2.0, 3.0, 4.0)


def states(event_path: Path):
    """The engine at each of TIMES on collision.py's event, driven as collision.py drives the
    FMU: (simulation, [(state, time), ...])."""
    import engine
    from engine.signals import UNIT_INPUTS
    sim = engine.Simulation(engine.load_event(event_path), warn=False)
    for unit, name, value in ((0, "gear", 1), (1, "gear", 1), (0, "throttle", 0.3),
                              (1, "brakePedalForce", 400.0)):
        sim.u_unit[unit, UNIT_INPUTS.index(name)] = value
    saved = []
    for t in TIMES:
        sim.advance(t)
        saved.append((sim.y.copy(), sim.time))
    return sim, saved


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None,
                        help="report path (default out/collision-pass.json)")
    parser.add_argument("--states", type=Path, default=None,
                        help="the saved states and the kernels' arrays: read from this file "
                             "when it exists, else computed and written to it")
    args = parser.parse_args(argv)
    import numba

    import engine               # before collision.py, which puts this checkout first on the path
    from engine.collision import collision_forces
    from collision import write_event
    print(f"engine from {Path(engine.__file__).parent}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    def made():
        sim, saved = states(write_event(out, 2.0, 0.5, 300))
        return sim.model, sim._inputs, sim._scratch, saved
    P, U, W, saved = kept(args.states, made)

    @numba.njit(cache=False)
    def passes(y, P, U, W, t, n):
        for _ in range(n):
            collision_forces(y, P, U, W, t)

    t0 = time.perf_counter()
    passes(saved[0][0], P, U, W, saved[0][1], 1)
    compile_s = time.perf_counter() - t0
    report = provenance()
    rows = []
    for y, t in saved:
        best = np.inf
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            passes(y, P, U, W, t, args.calls)
            best = min(best, (time.perf_counter() - t0) / args.calls)
        rows.append({"time_s": t, "pass_us": best * 1e6,
                     "vertices_in_touch": [float(c) for c in W.coll[:, 6]]})
        print(f"t = {t:.0f} s: {best * 1e6:.3f} us a pass, vertices in touch "
              f"{', '.join(f'{c:g}' for c in W.coll[:, 6])}")
    print(f"(the collision kernels compiled in {compile_s:.1f} s)")
    write_report({**report, "calls": args.calls, "rounds": args.rounds, "states": rows,
                  "compile_s": compile_s}, args.json or out / "collision-pass.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
