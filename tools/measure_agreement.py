"""Measure the agreement figures the README and the docs quote, into benchmarks/results/.

The physics figures the docs give (the engine against a closed form, a linear model, or
another platform) are computed here by the code of the example or the test that the docs
name, and written to ``benchmarks/results/agreement.json`` in the result files' format (the
command, the date, the machine, the git revision, engine.jit's digest of the kernels),
from which tools/update_doc_numbers.py renders them (docs/benchmarks.md, "How the numbers
stay current"). Each figure is one entry of ``figures`` with its own date, revision and
kernel digest, so that a run of some of them (``--only``) leaves the others as they were:

  locked-stop             the README's example: the default car from 90 km/h with 3000 N on
                          the pedal through fmpy.simulate_fmu; ax at 0.5 s, where it stops,
                          against v0^2 / (2 mu_s g) of the sedan's sheet
  tbone                   examples/tbone_crash.py: its event, its run and its figures()
                          (deltaV and crush against the closed forms of a central impact)
  understeer              tests/test_study.py's steady circle: the study's understeer gradient
                          against the bicycle model of tests/support/sedan.py
  rollover                tests/test_severe_events_fmu.py's rollover of the sedan to rest
                          (tests/support/severe.py): quarter turns, distance, deceleration, crush
  rearward-amplification  tests/test_dolly_fmu.py's rearward_amplification of the double
  native-platforms        tests/test_native_platforms.py's Windows (wine) and ARM64 (qemu)
                          runs, under pytest, read from what their comparison prints
  crash-validation        tests/test_crash_validation.py's cases (tests/support/
                          crash_validation.py): three NHTSA barrier tests of the 1987 Toyota
                          Camry, each one's crush predicted from the others' CRASH3 A and B

The FMUs are the tests' (tests/support/fmus.py: built once for the sources and kept).

    .venv/bin/python tools/measure_agreement.py                 # every figure
    .venv/bin/python tools/measure_agreement.py --only tbone understeer
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

RESULT = ROOT / "benchmarks" / "results" / "agreement.json"
G0 = 9.80665        # standard gravity: the FMU's display unit g


def _instance(fmu: Path, name: str):
    """An instance of ``fmu`` as the tests make one (tests/conftest.py, Instance)."""
    from fmpy import extract, read_model_description

    from conftest import Instance
    folder = extract(str(fmu), str(fmu.parent / f"{fmu.stem}-{name}"))
    return Instance(Path(folder), read_model_description(folder), name=name)


def locked_stop(work: Path) -> dict:
    """The README's example: the default car at 25 m/s, 3000 N on the brake pedal, 5 s through
    fmpy.simulate_fmu; ax at 0.5 s (sample 50 of 10 ms) in g, the distance, the time it stops,
    and the closed form v0^2 / (2 mu_s g) with the sedan's sliding friction."""
    import fmpy
    import numpy as np

    from support import fmus
    from support.sedan import G, TIRE
    fmu = fmus.vehicle(None, work / "SimonCar.fmu")
    v0 = 25.0
    result = fmpy.simulate_fmu(str(fmu), stop_time=5.0,
                               start_values={"car.speed0": v0, "car.brakePedalForce": 3000.0},
                               output=["car.X", "car.u", "car.ax"])
    mus = TIRE["slide_friction"][0][0]
    stopped = np.flatnonzero(result["car.u"] <= 1e-3)
    closed = v0 ** 2 / (2 * mus * G)
    return {"speed0_m_s": v0, "ax_at_0_5_s_g": float(result["car.ax"][50] / G0),
            "mu_s": mus, "distance_m": float(result["car.X"][-1]),
            "stop_time_s": float(result["time"][stopped[0]]) if stopped.size else None,
            "closed_form_distance_m": closed,
            "distance_vs_closed_form": float(result["car.X"][-1] / closed - 1.0)}


def tbone(work: Path) -> dict:
    """examples/tbone_crash.py at its speeds (50 and 40 km/h): the figures it prints, and its
    crush against the mass-spring closed form."""
    import tbone_crash

    from support import fmus
    event, model = tbone_crash.write_event(work)
    fmu = fmus.vehicle(event, work / "SimonTbone.fmu")
    f = tbone_crash.figures(tbone_crash.simulate(fmu, model), model)
    f["speeds_km_h"] = [tbone_crash.V1 * 3.6, tbone_crash.V2 * 3.6]
    f["crush_vs_closed_form"] = [c / closed - 1.0 for c, closed in
                                 zip(f["crush_m"], f["closed_forms"]["crush_m"])]
    return f


def understeer(work: Path) -> dict:
    """tests/test_study.py, test_steady_circle_gradients_vs_bicycle_model: the steady-circle
    study's understeer gradient against the linear bicycle model with camber thrust (k_us)
    and without it (k_plain)."""
    from simon_fmu.studies.study import run_study
    from support import fmus
    from support.sedan import bicycle_reference
    fmu = fmus.vehicle(None, work / "SimonCar.fmu")
    result = run_study("steady-circle", fmu, {}, work / "steady-circle")
    ref = bicycle_reference()
    k = result["metrics"]["understeerGradient"]
    return {"understeer_gradient": k, "bicycle_k_us": ref["k_us"],
            "bicycle_k_plain": ref["k_plain"], "vs_k_us": k / ref["k_us"] - 1.0,
            "vs_k_plain": k / ref["k_plain"] - 1.0}


def rollover(work: Path) -> dict:
    """tests/test_severe_events_fmu.py's rollover (tests/support/severe.py): the sedan at 30 m/s
    on friction 1.5 steered 6 rad, to rest: its quarter turns, distance, mean deceleration
    (against the 0.4 to 0.5 g of staged rollovers) and the largest crush of its box."""
    from support import fmus
    from support.severe import rollover_figures, run_rollover
    fmu = fmus.vehicle(None, work / "SimonCar.fmu")
    inst = _instance(fmu, "rollover")
    try:
        return rollover_figures(run_rollover(inst))
    finally:
        inst.free()


def rearward_amplification(work: Path) -> dict:
    """tests/test_dolly_fmu.py's rearward_amplification of the double (SAE J2179)."""
    from engine.setup.event import DOUBLE_EVENT
    from support import fmus
    from test_dolly_fmu import rearward_amplification as measure
    fmu = fmus.vehicle(Path(DOUBLE_EVENT), work / "SimonDouble.fmu")
    made = []

    def make(name):
        made.append(_instance(fmu, name))
        return made[-1]
    try:
        return measure(make)
    finally:
        for inst in made:
            inst.free()


#: What tests/test_native_platforms.py's _compare prints for each platform.
COMPARED = re.compile(r"(?P<name>[\w-]+) \((?P<runner>\w+)\) vs linux64: (?P<points>\d+) "
                      r"communication points x (?P<outputs>\d+) outputs, largest relative "
                      r"difference (?P<worst>\S+), (?P<identical>\d+) of (?P<values>\d+) values "
                      r"bit-identical")


def native_platforms(work: Path) -> dict:
    """tests/test_native_platforms.py's Windows and ARM64 tests, run by pytest (they build the
    native FMU, cross-build the C host and run it under wine and qemu-user); the comparison
    each prints against the Linux x86-64 library, and the versions of wine and qemu."""
    tests = "test_windows_binary_matches_linux_under_wine or test_arm64_binary_matches_linux_under_qemu"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:randomly",
                          "-p", "no:cacheprovider", "tests/test_native_platforms.py", "-k", tests],
                         cwd=ROOT, capture_output=True, text=True)
    found = {m["name"]: m for m in COMPARED.finditer(run.stdout)}
    if run.returncode != 0 or set(found) != {"win64", "aarch64-linux"}:
        raise RuntimeError(f"tests/test_native_platforms.py exited {run.returncode}:\n"
                           f"{run.stdout[-3000:]}{run.stderr[-2000:]}")

    def version(*command):
        try:
            out = subprocess.run(command, capture_output=True, text=True).stdout
        except OSError:
            return None
        m = re.search(r"(\d+\.\d+(?:\.\d+)?)", out)
        return m.group(1) if m else None

    return {"relative_difference": "|a - b| / max(1, |b|) against the Linux x86-64 library",
            **{name: {"runner": m["runner"], "communication_points": int(m["points"]),
                      "outputs": int(m["outputs"]), "largest_difference": float(m["worst"]),
                      "bit_identical": int(m["identical"]), "values": int(m["values"])}
               for name, m in found.items()},
            "wine_version": version(shutil.which("wine64") or "/usr/lib/wine/wine64", "--version"),
            "qemu_version": version("qemu-aarch64", "--version")}


def crash_validation(work: Path) -> dict:
    """tests/test_crash_validation.py's figures: the published tests, and each case's measured
    crush, CRASH3 closed form and crush, residual crush and rebound through the FMU."""
    from support import crash_validation as cv
    from support import fmus
    made = []

    def make(fmu):
        made.append(_instance(fmu, f"validation{len(made)}"))
        return made[-1]

    def fmu_for(number, a, b):
        return fmus.event_fmu(work, f"camry_{number}", cv.case_event(number, a, b))
    try:
        return cv.figures(make, fmu_for)
    finally:
        for inst in made:
            inst.free()


FIGURES = {"locked-stop": locked_stop, "tbone": tbone, "understeer": understeer, "rollover": rollover,
           "rearward-amplification": rearward_amplification,
           "native-platforms": native_platforms, "crash-validation": crash_validation}


def _plain(value):
    """``value`` with numpy scalars and non-finite floats made JSON's."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(FIGURES), help="measure only these")
    parser.add_argument("--json", type=Path, default=RESULT,
                        help="the result file (default benchmarks/results/agreement.json); the "
                             "figures not measured are kept from it")
    args = parser.parse_args(argv)
    from runner import provenance, write_report
    run = provenance()
    old = json.loads(args.json.read_text()) if args.json.is_file() else {}
    figures = dict(old.get("figures", {}))
    with tempfile.TemporaryDirectory(prefix="agreement-") as tmp:
        for name in args.only or FIGURES:
            work = Path(tmp) / name
            work.mkdir()
            print(f"{name} ...", flush=True)
            figures[name] = {"command": run["command"], "date_utc": run["date_utc"],
                             "git_revision": run["git_revision"],
                             "kernel_digest": run["kernel_digest"],
                             **_plain(FIGURES[name](work))}
            print(json.dumps(figures[name], indent=1), flush=True)
    seeded = sorted(n for n, f in figures.items() if f.get("seeded_from"))
    digests = {f.get("kernel_digest") for f in figures.values()}
    report = {**({"seeded_from": "figures " + ", ".join(seeded) + " (see each one's "
                                 "seeded_from)"} if seeded else {}),
              **run,
              # the command that measures every figure again
              "command": "python tools/measure_agreement.py",
              # the kernels of every figure when they are the same; else null (run again)
              "kernel_digest": digests.pop() if len(digests) == 1 else None,
              "figures": {n: figures[n] for n in FIGURES if n in figures}}
    write_report(report, args.json)
    print(f"wrote {args.json.relative_to(ROOT) if ROOT in args.json.resolve().parents else args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
