"""Speed benchmark: the same steering manoeuvre on the peer model, the engine and the FMU.

The manoeuvre (manoeuvres.py): 20 s at 20 m/s, a 0.5 Hz sine of the steering wheel whose
amplitude gives about 4 m/s^2 peak lateral acceleration, with the throttle (the peer's
acceleration input) governed to hold the speed; it is sized with the vehicle values of the
default event, the one the FMU is built from. The variants (variants.py) are the peer
(CommonRoad's multi-body model), the engine called directly and the FMU through fmpy; the
runner (runner.py) runs each in a process of its own, in rounds; the report (report.py)
prints the table, the project's real-time targets next to the figures, and writes the JSON
and a Markdown summary.

Usage (from the repository root):

  python benchmarks/speed.py [--fmu out/SimonCar.fmu] [--quick] [--json PATH]
  python benchmarks/speed.py --event engine/data/tractor-semitrailer.json

The FMU is built with ``python -m simon_fmu build [EVENT] -o <fmu>`` when it does not exist.
With ``--event`` the manoeuvre is sized from that event's lead unit (and what it tows), the
engine runs that event and the FMU is that event's, by default ``out/Simon<Event>.fmu`` with
the report in ``benchmarks/results/speed-<event>.json`` (<event> the file's name without
``.json``; without ``--event``, ``benchmarks/results/speed.json``), the committed file the
docs' figures are rendered from (tools/update_doc_numbers.py); a partial run (``--quick``,
``--only``) writes to ``out/`` instead. It is a benchmark, not a test: nothing here asserts a
time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from manoeuvres import DURATION, QUICK_DURATION
from report import evaluate_targets, markdown_summary, print_table
from runner import (REPO, child_main, engine_cache_dir, ensure_fmu, fmu_staleness,
                    load_manoeuvre, profile_variants, provenance, result_path, run_rounds,
                    shown, write_report)
from variants import VARIANTS, uses_engine, uses_fmu

DEFAULT_FMU = REPO / "out" / "SimonCar.fmu"
DEFAULT_JSON = "speed.json"


def event_defaults(event_file):
    """The FMU and the JSON report's name of an event file's benchmark:
    tractor-semitrailer.json -> out/SimonTractorSemitrailer.fmu and
    speed-tractor-semitrailer.json."""
    stem = Path(event_file).stem
    camel = "".join(part[:1].upper() + part[1:] for part in stem.replace("_", "-").split("-"))
    return REPO / "out" / f"Simon{camel}.fmu", f"speed-{stem}.json"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--event", type=Path,
                        help="event JSON file the manoeuvre, the engine and the FMU use "
                             "(default: the default car)")
    parser.add_argument("--fmu", type=Path,
                        help="FMU to time, built from the event with python -m simon_fmu build "
                             "if missing (default out/SimonCar.fmu; with --event "
                             "out/Simon<Event>.fmu)")
    parser.add_argument("--rebuild", action="store_true",
                        help="build the FMU even when the file exists")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_DURATION:g} s manoeuvre, for smoke runs")
    parser.add_argument("--json", type=Path, help="JSON report path (default "
                        "benchmarks/results/speed.json; with --event "
                        "benchmarks/results/speed-<event>.json; in out/ with --quick or "
                        "--only)")
    parser.add_argument("--only", nargs="+", choices=VARIANTS + ("cold-start",),
                        help="run only these variants")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds: each variant runs once per round in a new process; "
                             "the fastest round is reported (default %(default)s)")
    parser.add_argument("--profile", action="store_true",
                        help="run the --only variants (default fmu-1ms) in this process under "
                             "cProfile and print where the time goes; no report")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--manoeuvre", type=json.loads, help=argparse.SUPPRESS)
    parser.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--throttle", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    event_file = args.event.resolve() if args.event else None
    if event_file is not None and not event_file.is_file():
        parser.error(f"--event: {args.event} is not a file; an event JSON file is expected")
    default_fmu, default_json = (event_defaults(event_file) if event_file
                                 else (DEFAULT_FMU, DEFAULT_JSON))
    fmu_path = (args.fmu or default_fmu).resolve()
    json_path = args.json or result_path(default_json, partial=bool(args.quick or args.only))

    if args.child:
        child_main(args.child, args.manoeuvre, args.duration, fmu_path, args.throttle,
                   event_file)
        return 0

    duration = QUICK_DURATION if args.quick else DURATION
    if args.profile:
        names = args.only or ["fmu-1ms"]
        os.environ["NUMBA_CACHE_DIR"] = str(engine_cache_dir())   # before numba is imported
        sys.path.insert(0, str(REPO))
        from manoeuvres import load

        return profile_variants(names, load(duration, event_file), fmu_path, args.rebuild,
                                event_file)

    selected = args.only or list(VARIANTS) + ["cold-start"]
    manoeuvre = load_manoeuvre(duration, event_file)
    report = {
        "rounds": args.repeat,
        **provenance(),
        "manoeuvre": manoeuvre,
        "fmu": shown(fmu_path),
        "results": {},
        "cold_start": [],
    }

    needs_fmu = any(uses_fmu(v) for v in selected)
    build_error = ensure_fmu(fmu_path, args.rebuild, event_file) if needs_fmu else None
    if build_error:
        report["fmu_build_error"] = build_error
        print(build_error, flush=True)
    elif needs_fmu:
        report["fmu_sources_newer_than_fmu"] = stale = fmu_staleness(fmu_path)
        if stale:
            print(f"warning: {fmu_path} is older than {len(stale)} source file(s), e.g. "
                  f"{stale[0]}; --rebuild builds it afresh", flush=True)
    if any(uses_engine(v) for v in selected):
        report["engine_numba_cache"] = shown(engine_cache_dir())

    report["results"], report["cold_start"], compile_s = run_rounds(
        selected, manoeuvre, fmu_path, args.repeat, build_error)
    if compile_s is not None:
        report["engine_compile_s"] = compile_s

    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["targets"] = evaluate_targets(report)
    print_table(report)
    write_report(report, json_path)
    markdown = REPO / "out" / json_path.with_suffix(".md").name
    markdown.parent.mkdir(parents=True, exist_ok=True)
    markdown.write_text(markdown_summary(report))
    print(f"\nwrote {json_path} and {markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
