"""The collision benchmark before and after: an earlier revision's and this checkout's, on one
machine, alternated.

    python benchmarks/collision_before_after.py [--before 153ad36] [--rounds 3] [--json PATH]

Machines differ from one measurement to the next, so a real-time factor measured today says
little against one measured on another machine. This script runs ``benchmarks/collision.py``
of the revision ``--before`` (by default 153ad36, the code before the collisions became mesh
against mesh: each unit's vertices against the other's bounding box, a mesh that the crush
does not move, CRASH3 B alone) in a copy of that revision's tree (``git archive``, in a
temporary folder; its own engine, FMU build and event), and this checkout's, one after the
other, ``--rounds`` times each, after one unrecorded run of each (the earlier revision's
kernels compile there, minutes the first time). Each run's figure is the development FMU's
real-time factor over the steps in contact, as each script prints it ("in contact at X x
real time"; the development FMU's is the first such line of this checkout's script). The
report goes to benchmarks/results/collision-before-after.json (``--json``): both lists, their
medians and the ratio of the medians.

A benchmark, not a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from runner import provenance, result_path, write_report

ROOT = Path(__file__).resolve().parents[1]
#: the development FMU's figure in either script's output
CONTACT = re.compile(r"in contact at ([0-9.]+) x real time")


def export(revision: str, folder: Path) -> str:
    """The tree of ``revision`` written into ``folder``; returns its full hash."""
    full = subprocess.run(["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=ROOT,
                          capture_output=True, text=True)
    if full.returncode != 0:
        raise SystemExit(f"--before {revision!r}: not a revision of this repository")
    archive = subprocess.run(["git", "archive", "--format=tar", full.stdout.strip()], cwd=ROOT,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return full.stdout.strip()


def contact_figure(tree: Path, extra: list[str]) -> float:
    """One run of ``tree``'s benchmarks/collision.py (its own out/): the development FMU's
    real-time factor in contact."""
    run = subprocess.run([sys.executable, "benchmarks/collision.py", "--out", str(tree / "out"),
                          *extra], cwd=tree, capture_output=True, text=True)
    found = CONTACT.search(run.stdout)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"{tree}: benchmarks/collision.py failed (exit {run.returncode}):\n"
                         f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return float(found.group(1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="153ad36",
                        help="the earlier revision (default 153ad36: boxes, before issue 33)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None,
                        help="report path (default benchmarks/results/collision-before-after.json)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds: a whole number >= 1 (got {args.rounds})")
    report = provenance()
    with tempfile.TemporaryDirectory(prefix="simon_before_") as tmp:
        before_tree = Path(tmp) / "tree"
        before_tree.mkdir()
        # this checkout's development FMU only (the earlier revision has no native FMU to
        # compare), its report in the temporary folder, not over collision.json
        after_args = ["--no-native", "--json", str(Path(tmp) / "after.json")]
        full = export(args.before, before_tree)
        print(f"{args.before} ({full[:12]}): compiling and warming up ...", flush=True)
        contact_figure(before_tree, [])
        contact_figure(ROOT, after_args)
        before, after = [], []
        for k in range(args.rounds):
            before.append(contact_figure(before_tree, []))
            after.append(contact_figure(ROOT, after_args))
            print(f"round {k + 1}: before {before[-1]:.1f} x, after {after[-1]:.1f} x real time "
                  f"in contact", flush=True)
    b, a = statistics.median(before), statistics.median(after)
    r = {**report, "before_revision": full, "before_x_real_time": before,
         "after_x_real_time": after, "before_median": b, "after_median": a,
         "after_over_before": a / b}
    print(f"median: before {b:.1f} x, after {a:.1f} x real time in contact ({a / b:.2f} x)")
    write_report(r, args.json or result_path("collision-before-after.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
