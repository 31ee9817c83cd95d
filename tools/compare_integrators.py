"""Measure the agreement figures under both integration methods, RK4 and Heun's (RK2), into
benchmarks/results/integrators.json.

The figures are tools/measure_agreement.py's (the code of the example or the test that the
docs name; FMUs built once by tests/support/fmus.py), each run twice from one event that
differs only in ``simulation.integrator`` ("rk4", the default, and "rk2"; docs/equations.md,
"The integration method"). The double's stiffest mode asks RK2 for a step below 0.948 ms, so
its figure runs both methods at 0.9 ms (the others at their events' 1 ms). For each figure
the report keeps both sets of figures and the relative difference of RK2's from RK4's for
the headline quantities (HEADLINES).

A rollover's outcome turns on small differences (which corner digs in, whether the car
stops on its side or its roof), so the rollover is also run under each method at the steps
of ROLLOVER_STEPS: the spread of its figures over the step under RK4 is the measure against
which RK2's rollover is read.

    .venv/bin/python tools/compare_integrators.py
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tools", ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

RESULT = ROOT / "benchmarks" / "results" / "integrators.json"
METHODS = ("rk4", "rk2")
#: the step both methods take in a figure whose event's step RK2 cannot (the double's)
STEPS = {"rearward-amplification": 0.0009}
#: per figure, the quantities compared (paths into its figures, as tools/update_doc_numbers.py
#: reads them)
HEADLINES = {
    "locked-stop": ["ax_at_0_5_s_g", "distance_m"],
    "tbone": ["deltaV_km_h.contact_end[0]", "deltaV_km_h.contact_end[1]", "crush_m[0]",
              "crush_m[1]"],
    "understeer": ["understeer_gradient"],
    "rearward-amplification": ["rearward_amplification"],
    "crash-validation": [f"cases[{i}].{q}" for i in range(3)
                         for q in ("engine_crush_m", "rebound_km_h")],
}
#: the rollover's steps, s
ROLLOVER_STEPS = (0.001, 0.0005, 0.0004, 0.00025, 0.0002)
ROLLOVER_HEADLINES = ("quarter_turns", "rest_s", "distance_m", "deceleration_g", "crush_m")


@contextmanager
def simulation_options(work: Path, **options):
    """Every vehicle FMU built inside (tests/support/fmus.py ``vehicle``, through which
    ``event_fmu`` builds too) is built from a copy of its event (the default car's when none)
    whose ``simulation`` takes ``options``; the copy is written to ``work``."""
    from engine.setup.event import DEFAULT_EVENT
    from support import fmus
    plain = fmus.vehicle

    def vehicle(event_file, output, **kwargs):
        source = Path(event_file or DEFAULT_EVENT)
        data = json.loads(source.read_text())
        data.setdefault("simulation", {}).update(options)
        tag = "-".join(f"{v}" for v in options.values())
        copy = work / f"{source.stem}-{tag}.json"
        copy.write_text(json.dumps(data))
        return plain(copy, output, **kwargs)
    fmus.vehicle = vehicle
    try:
        yield
    finally:
        fmus.vehicle = plain


def value(figures: dict, path: str):
    """The quantity at ``path`` (keys joined by dots, list indices in brackets)."""
    from update_doc_numbers import lookup
    return lookup(figures, path, "figures")


def compare(rk4: dict, rk2: dict, paths) -> dict:
    """Per path, RK2's value relative to RK4's, less one."""
    return {p: value(rk2, p) / value(rk4, p) - 1.0 for p in paths}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULT,
                        help="the result file (default benchmarks/results/integrators.json)")
    args = parser.parse_args(argv)
    import measure_agreement as agreement
    from runner import provenance, write_report
    report = {**provenance(), "figures": {}, "rollover_steps": {}}
    with tempfile.TemporaryDirectory(prefix="integrators-") as tmp:
        for name, paths in HEADLINES.items():
            measured = {}
            for method in METHODS:
                work = Path(tmp) / f"{name}-{method}"
                work.mkdir()
                options = {"integrator": method}
                if name in STEPS:
                    options["step_size"] = STEPS[name]
                print(f"{name}, {method} ...", flush=True)
                with simulation_options(work, **options):
                    measured[method] = agreement._plain(agreement.FIGURES[name](work))
            report["figures"][name] = {
                **({"step_size_s": STEPS[name]} if name in STEPS else {}),
                **measured, "rk2_vs_rk4": compare(measured["rk4"], measured["rk2"], paths)}
            print(json.dumps(report["figures"][name]["rk2_vs_rk4"], indent=1), flush=True)
        for method in METHODS:
            runs = {}
            for step in ROLLOVER_STEPS:
                work = Path(tmp) / f"rollover-{method}-{step}"
                work.mkdir()
                print(f"rollover, {method} at {step} s ...", flush=True)
                with simulation_options(work, integrator=method, step_size=step):
                    f = agreement._plain(agreement.FIGURES["rollover"](work))
                runs[f"{step:g}"] = {q: f[q] for q in ROLLOVER_HEADLINES}
            spread = {q: {"min": min(r[q] for r in runs.values()),
                          "max": max(r[q] for r in runs.values())} for q in ROLLOVER_HEADLINES}
            report["rollover_steps"][method] = {"runs": runs, "range": spread}
            print(json.dumps(report["rollover_steps"][method], indent=1), flush=True)
    worst = max((abs(d), f"{n}: {p}") for n, f in report["figures"].items()
                for p, d in f["rk2_vs_rk4"].items())
    report["largest_difference"] = {"figure": worst[1], "relative": worst[0]}
    print(f"wrote {write_report(report, args.json)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
