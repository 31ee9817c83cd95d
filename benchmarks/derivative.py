"""One derivative evaluation alone: ``engine.vehicle.derivatives`` on a saved state, in a loop.

    python benchmarks/derivative.py [--event PATH] [--speed 20] [--steer 0.5] [--time 1]
                                    [--calls 100000] [--rounds 9] [--literal | --inlined |
                                    --frozen] [--states FILE] [--json PATH]

The event's first unit (default the default car) starts at ``--speed`` m/s, its steering
wheel held at ``--steer`` rad, and the event runs in the engine (engine.Simulation, no FMU)
to ``--time`` s; at that state ``engine.vehicle.derivatives`` (without outputs: what the
integrator calls four times a step) is called ``--calls`` times in a compiled loop, and the
fastest and the median of ``--rounds`` rounds are reported, in ns a call. Its flag ``record``
is passed as the integrator passes it, known only at run time (``engine.jit.dynamic``); with
``--literal`` as the constant False, for which numba compiles a version of its own without
the outputs' code.

Two more variants ask what specialising the kernels to one event could gain, with the flag
False as ``--literal`` passes it: ``--inlined`` compiles the derivative inlined into the loop
(numba's inliner, before type inference, as ``engine.jit.njit_inline`` does), and ``--frozen``
does so with the packed model ``P`` a global of the loop, which numba compiles in as constant
data: LLVM then folds every load of ``P`` that the inlined code makes at a known index (the
block offsets, the units' and wheels' counts and methods, every parameter), and the branches
that hang on them. The kernels the derivative calls and does not inline (engine.jit) still
take ``P`` as arguments. No FMU can do that (its parameters are set at initialisation); it
bounds what a build specialised to an event's structure would gain.

Why this script: the derivative is most of a step (the integrator's four stages and the
outputs' evaluation), so a change to it is timed here first, without the integrator, the FMU
or the host. Run it for two checkouts in alternation (``PYTHONPATH=<other checkout> python
benchmarks/derivative.py --states FILE``): with ``--states`` the first run saves the state and
the arrays the kernel reads (a pickle), and every later run, of any checkout with the same
layout, reads them, so each checkout is timed on the very same state. The loop is compiled
without numba's disk cache on purpose (a cached caller keeps the callee's code it was
compiled with). On a shared machine, alternate the checkouts and compare medians as well as
minima: a run that meets other work moves both.

The report goes to out/derivative.json (``--json``). A benchmark, not a test: nothing asserts a
time.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from runner import kept, provenance, write_report

ROOT = Path(__file__).resolve().parents[1]
# this checkout's engine unless PYTHONPATH names another (appended, not put first)
sys.path.append(str(ROOT))


def state(event: Path, speed: float, steer: float, t: float):
    """The kernel's arguments at time t of the event whose first unit starts at ``speed``
    with the steering wheel at ``steer``: (y, U, P, Y, err, W)."""
    import engine
    from engine.signals import UNIT_INPUTS
    data = json.loads(event.read_text())
    data["units"][0].setdefault("initial", {})["speed"] = speed    # a towed unit follows it
    sim = engine.Simulation(engine.load_event(data), warn=False)
    sim.u_unit[0, UNIT_INPUTS.index("steeringWheelAngle")] = steer
    sim.advance(t)
    return sim.y.copy(), sim._inputs, sim.model, sim._outputs, sim._err, sim._scratch


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--event", type=Path, default=ROOT / "engine" / "data" / "sedan.json")
    parser.add_argument("--speed", type=float, default=20.0, help="initial speed, m/s")
    parser.add_argument("--steer", type=float, default=0.5, help="steering wheel angle, rad")
    parser.add_argument("--time", type=float, default=1.0, help="the state's time, s")
    parser.add_argument("--calls", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--states", type=Path, default=None,
                        help="the saved state and the kernel's arrays: read from this file "
                             "when it exists, else computed and written to it")
    variant = parser.add_mutually_exclusive_group()
    variant.add_argument("--literal", action="store_true",
                         help="pass record=False as a constant (a version of its own)")
    variant.add_argument("--inlined", action="store_true",
                         help="as --literal, the derivative inlined into the timing loop")
    variant.add_argument("--frozen", action="store_true",
                         help="as --inlined, with the packed model a compile-time constant")
    parser.add_argument("--json", type=Path, default=ROOT / "out" / "derivative.json")
    args = parser.parse_args(argv)
    for name in ("calls", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: a whole number >= 1")
    import numba

    import engine
    from engine.jit import dynamic
    from engine.vehicle import derivatives
    print(f"engine from {Path(engine.__file__).parent}")
    y, U, P, Y, err, W = kept(args.states,
                              lambda: state(args.event, args.speed, args.steer, args.time))

    if args.frozen or args.inlined:
        # the inlined code is compiled with its caller's options: the engine's (no exception
        # paths, no runtime), not numba's defaults
        from engine.jit import _OPTIONS
        engine_options = {**_OPTIONS, "cache": False}
        inlined = numba.njit(inline="always", **engine_options)(derivatives.py_func)
    if args.frozen:
        frozen = P

        @numba.njit(**engine_options)
        def calls(y, dy, U, P, Y, err, W, n):   # P unused: the closure's constant is read
            for _ in range(n):
                inlined(y, dy, U, frozen, False, Y, err, W)
    elif args.inlined:
        @numba.njit(**engine_options)
        def calls(y, dy, U, P, Y, err, W, n):
            for _ in range(n):
                inlined(y, dy, U, P, False, Y, err, W)
    elif args.literal:
        @numba.njit(cache=False)
        def calls(y, dy, U, P, Y, err, W, n):
            for _ in range(n):
                derivatives(y, dy, U, P, False, Y, err, W)
    else:
        @numba.njit(cache=False)
        def calls(y, dy, U, P, Y, err, W, n):
            for _ in range(n):
                derivatives(y, dy, U, P, dynamic(False), Y, err, W)

    dy = np.zeros_like(y)
    t0 = time.perf_counter()
    calls(y, dy, U, P, Y, err, W, 1)
    compile_s = time.perf_counter() - t0
    report = provenance()
    rounds = []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        calls(y, dy, U, P, Y, err, W, args.calls)
        rounds.append((time.perf_counter() - t0) / args.calls * 1e9)
    best, median = min(rounds), float(np.median(rounds))
    # the variant's derivative against the engine's kernel called as the integrator calls it
    called = np.zeros_like(y)
    derivatives(y, called, U, P, False, Y, err, W)
    difference = float(np.max(np.abs(dy - called)))
    print(f"derivative: {best:.0f} ns a call (median of {args.rounds} rounds {median:.0f} ns); "
          f"{P.P_TIRE.shape[0]} tires; compiled in {compile_s:.1f} s; largest difference to the "
          f"called kernel's derivative {difference:.3g}")
    write_report({**report, "event": str(args.event), "state_time_s": args.time,
                  "record_flag": "dynamic" if not (args.literal or args.inlined or args.frozen)
                  else "literal",
                  "variant": ("frozen" if args.frozen else "inlined" if args.inlined
                              else "literal" if args.literal else "called"),
                  "max_abs_difference_to_called": difference,
                  "calls": args.calls, "rounds_ns": rounds, "best_ns": best, "median_ns": median,
                  "compile_s": compile_s}, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
