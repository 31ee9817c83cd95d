"""Native FMU benchmark: the native FMU against the development FMU and the peer (issue 29).

In one run on one machine: the native FMU (docs/native.md) at 1 ms and 10 ms communication
steps through fmpy and through a C host (native_host.c, compiled here with gcc; at 10 ms
once more with its parameter stepSize, the internal step, at the largest the engine
accepts, 2 ms, where the others run the event's 1 ms), the
development FMU through fmpy at the same steps, and the peer (CommonRoad's multi-body model)
as speed.py runs it; then the worst doStep over 600 s simulated at a 1 ms step through the
C host, and the cold start (load library, instantiate, initialise, first step) through the
C host and through fmpy. Each C host run is two processes: one times every call (doStep's
median, p99 and worst), the other reads no clock inside its loop and gives the real-time
factor, as the peer's loop does. Prints a table and the issue's targets next to the figures, and
writes the JSON report. It is a benchmark, not a test: nothing here asserts a time.

Usage (from the repository root):

  python benchmarks/native.py [--quick] [--repeat 3] [--long 600] [--json PATH]

The report goes to benchmarks/results/native.json (a --quick run's to out/native.json), the
committed file the docs' figures are rendered from (tools/update_doc_numbers.py).

The manoeuvre is speed.py's (manoeuvres.py): the sedan at 20 m/s, a 0.5 Hz steering-wheel
sine, the throttle governed. The sedan's native FMU is built here from a copy of the default
event whose initial speed is the manoeuvre's (out/bench-native-sedan.json ->
out/SimonCar-native-bench.fmu, Linux x86-64 only, a few seconds once the kernels are cached),
a choice of the time when the native FMU's parameters were fixed at build; the hosts set its
speed0 in initialisation mode as well (it is tunable now, docs/native.md, "Parameters"), as
they do for the development FMU (out/SimonCar.fmu, built when missing), so both start alike.
The fmpy variants, the peer and fmpy's cold start are speed.py's own (runner.spawn).

The same native FMU with its parameter ``integrator`` set to 2, RK2, at initialisation
(Heun's method, two evaluations of the model a step where RK4 takes four; docs/equations.md,
"The integration method"), as a real-time host would set it, runs the same variants at 1 ms
and 10 ms through fmpy and the C host (the ``-rk2`` rows); the targets are reported for both
methods.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from manoeuvres import DURATION, QUICK_DURATION, THROTTLE_KI, THROTTLE_KP
from runner import (REPO, best_of, ensure_fmu, fmu_staleness, load_manoeuvre, native_level_here,
                    provenance, result_path, shown, spawn, write_report)


DEV_FMU = REPO / "out" / "SimonCar.fmu"
NATIVE_FMU = REPO / "out" / "SimonCar-native-bench.fmu"
NATIVE_EVENT = REPO / "out" / "bench-native-sedan.json"
#: the parameters the ``-rk2`` variants set at initialisation: Heun's method
RK2_PARAMETERS = {"integrator": 2}
DEFAULT_EVENT = REPO / "engine" / "data" / "sedan.json"
HOST_SOURCE = Path(__file__).resolve().parent / "native_host.c"

# issue 29, "Measure": the native FMU's targets
TARGET_DEV_1MS = 3.0       # x the development FMU's real-time factor at 1 ms
TARGET_PEER_1MS = 30.0     # x the peer's real-time factor, at 1 ms
TARGET_PEER_10MS = 50.0    # x the peer's real-time factor, at 10 ms
TARGET_COLD_START = 0.050  # s, load library, instantiate, initialise, first step

LABELS = {
    "peer": "peer: CommonRoad MB, Python RK4 1 ms",
    "dev-fmpy-1ms": "development FMU, fmpy, 1 ms",
    "dev-fmpy-10ms": "development FMU, fmpy, 10 ms",
    "native-fmpy-1ms": "native FMU, fmpy, 1 ms",
    "native-fmpy-10ms": "native FMU, fmpy, 10 ms",
    "native-c-1ms": "native FMU, C host, 1 ms",
    "native-c-10ms": "native FMU, C host, 10 ms",
    "native-c-10ms-h2": "native FMU, C host, 10 ms, 2 ms step",
    "native-fmpy-1ms-rk2": "native FMU, rk2, fmpy, 1 ms",
    "native-fmpy-10ms-rk2": "native FMU, rk2, fmpy, 10 ms",
    "native-c-1ms-rk2": "native FMU, rk2, C host, 1 ms",
    "native-c-10ms-rk2": "native FMU, rk2, C host, 10 ms",
    "native-c-long": "native FMU, C host, 1 ms, long run",
}


def build_native(manoeuvre, fmu_path, event_path):
    """The sedan's native FMU, from a copy of the default event starting at the manoeuvre's
    speed (the hosts set speed0 at initialisation too). Returns an error text or None."""
    event = json.loads(DEFAULT_EVENT.read_text())
    lead = event["units"][0]
    lead.setdefault("initial", {})["speed"] = manoeuvre["speed_mps"]
    event["name"] = f"{event['name']} at {manoeuvre['speed_mps']:g} m/s (benchmarks/native.py)"
    event_path.parent.mkdir(parents=True, exist_ok=True)
    event_path.write_text(json.dumps(event, indent=2) + "\n")
    cmd = [sys.executable, "-m", "simon_fmu", "build", "--native", str(event_path),
           "--platforms", "linux64", "-o", str(fmu_path)]
    print("building the native FMU: " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0 or not fmu_path.exists():
        return f"native build failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
    print(f"built in {time.perf_counter() - t0:.1f} s", flush=True)
    return None


def fmi2_headers():
    """The FMI 2.0 headers that fmpy ships (fmpy/c-code), found without importing fmpy."""
    out = subprocess.run([sys.executable, "-c", "import fmpy, os; "
                          "print(os.path.join(os.path.dirname(fmpy.__file__), 'c-code'))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return Path(out)


def compile_host(folder):
    """gcc -O2 native_host.c: the C host, in `folder`."""
    exe = folder / "native_host"
    cmd = ["gcc", "-O2", "-std=c11", "-Wall", f"-I{fmi2_headers()}", str(HOST_SOURCE),
           "-o", str(exe), "-ldl", "-lm"]
    subprocess.run(cmd, check=True)
    return exe


def fmu_refs(unzipdir, unit):
    """GUID, model identifier and the value references the host needs, from the model
    description, and the largest internal step the FMU accepts (stepSize's max)."""
    root = ET.parse(unzipdir / "modelDescription.xml").getroot()
    vr = {v.get("name"): int(v.get("valueReference")) for v in root.iter("ScalarVariable")}
    step = next(v for v in root.iter("ScalarVariable") if v.get("name") == "stepSize")
    return {
        "guid": root.get("guid"),
        "id": root.find("CoSimulation").get("modelIdentifier"),
        "refs": [vr[f"{unit}.{name}"] for name in ("speed0", "gear", "steeringWheelAngle",
                                                   "throttle", "ay", "speed")],
        "step_size": vr["stepSize"],
        "step_size_start": float(step.find("Real").get("start")),
        "step_size_max": float(step.find("Real").get("max")),
        "integrator": vr["integrator"],
    }


def run_host(exe, unzipdir, md, manoeuvre, step, duration, internal_step=None, method=None):
    """One C host process: cold start, then `duration` s of the manoeuvre at `step`; with
    ``internal_step``, the FMU's parameter stepSize set to it at initialisation, with
    ``method`` its parameter integrator (and stepSize at its start value unless given)."""
    m = manoeuvre
    cmd = [str(exe), str(unzipdir), md["id"], md["guid"], repr(step), repr(duration),
           *map(str, md["refs"]), repr(m["speed_mps"]), str(m["gear"]),
           repr(m["steering_wheel_amplitude_rad"]), repr(m["omega_rad_per_s"]),
           repr(m["throttle_feedforward"]), repr(THROTTLE_KP), repr(THROTTLE_KI)]
    if internal_step is not None or method is not None:
        cmd += [str(md["step_size"]), repr(md["step_size_start"] if internal_step is None
                                            else internal_step)]
    if method is not None:
        cmd += [str(md["integrator"]), str(method)]
    runs = []
    # the calls' times from a loop that reads the clock around each call; the real-time
    # factor from the same manoeuvre in a new process whose loop reads none (the peer's loop
    # reads none either; six reads an iteration are about a twentieth of a 1 ms step)
    for env in (None, dict(os.environ, NATIVE_HOST_UNTIMED="1")):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            return {"ok": False,
                    "error": f"exit {proc.returncode}: {proc.stderr.strip()[-2000:]}"}
        runs.append(json.loads(proc.stdout))
    result, untimed = runs
    result["timed_wall_s"] = result["wall_s"]
    result["wall_s"] = untimed["wall_s"]
    result["ok"] = True
    return result


def fmpy_cold_start(r):
    """fmpy's cold start in the issue's sense (load library and instantiate, initialise,
    first step; without importing fmpy and extracting), and from process start."""
    if not r.get("ok"):
        return r
    b = r["breakdown"]
    return {"ok": True,
            "load_instantiate_initialise_first_step_s": b["load_to_first_doStep_s"],
            "new_process_to_first_doStep_s": r.get("time_to_first_doStep_s"),
            "breakdown": b}


def _fmt(value, spec):
    return "-".rjust(int(spec.split(".")[0] or 0)) if value is None else format(value, spec)


def evaluate_targets(report):
    res = report["results"]

    def rtf(name):
        r = res.get(name, {})
        return r.get("real_time_factor") if r.get("ok") else None

    peer, dev1 = rtf("peer"), rtf("dev-fmpy-1ms")
    rows = []

    def add(target, measured, unit, limit, at_least=True):
        met = None if measured is None else (measured >= limit if at_least else measured < limit)
        rows.append({"target": target, "measured": measured, "unit": unit, "limit": limit,
                     "met": met})

    def ratio(a, b):
        return a / b if (a and b) else None

    for method in ("", "-rk2"):
        for client in ("fmpy", "c"):
            add(f"native-{client}-1ms{method} >= {TARGET_DEV_1MS:g} x development FMU (fmpy, "
                "1 ms)", ratio(rtf(f"native-{client}-1ms{method}"), dev1), "x", TARGET_DEV_1MS)
            add(f"native-{client}-1ms{method} >= {TARGET_PEER_1MS:g} x the peer",
                ratio(rtf(f"native-{client}-1ms{method}"), peer), "x", TARGET_PEER_1MS)
            add(f"native-{client}-10ms{method} >= {TARGET_PEER_10MS:g} x the peer",
                ratio(rtf(f"native-{client}-10ms{method}"), peer), "x", TARGET_PEER_10MS)
    for label, key, values in (
            ("cold start, C host", "total_s",
             [r["cold_start"] for r in report["cold_start"]["c_host"] if r.get("ok")]),
            ("cold start, fmpy", "load_instantiate_initialise_first_step_s",
             [r for r in report["cold_start"]["native_fmpy"] if r.get("ok")])):
        worst = max((v[key] for v in values), default=None)
        add(f"{label} < {TARGET_COLD_START * 1e3:g} ms (worst)",
            None if worst is None else worst * 1e3, "ms", TARGET_COLD_START * 1e3,
            at_least=False)
    return rows


def print_table(report):
    m, res = report["machine"], report["results"]
    peer = res.get("peer", {}).get("real_time_factor")
    dev1 = res.get("dev-fmpy-1ms", {}).get("real_time_factor")
    print()
    print(f"machine: {m['hostname']}, {m['cpu_model']}, nproc {m['logical_cores']}, "
          f"shared with other jobs (load average at start "
          f"{m['load_average_at_start'][0]:.2f}, at end {m['load_average_at_end'][0]:.2f}); "
          f"{report['date_utc']}, revision {report['git_revision']['head']}")
    print("one run: the figures move with the machine's other work; quote them as ratios "
          "from one run")
    print(f"native FMU's kernels at instruction-set level {report.get('native_level')}")
    print(f"manoeuvre: {report['manoeuvre']['duration_s']:g} s sine steer at "
          f"{report['manoeuvre']['speed_mps']:g} m/s; best of {report['rounds']} rounds per "
          "variant")
    print()
    header = (f"{'variant':<37}{'x real time':>12}{'x peer':>8}{'x dev 1ms':>10}"
              f"{'doStep median us':>18}{'p99 us':>9}{'worst us':>10}")
    print(header)
    print("-" * len(header))
    for name, label in LABELS.items():
        r = res.get(name)
        if r is None:
            continue
        if name == "native-c-long":
            label = f"native FMU, C host, 1 ms, {r.get('simulated_s', 0):.0f} s"
        if not r.get("ok"):
            print(f"{label:<37}  FAILED: {r.get('error', '')[:200]}")
            continue
        rate = r.get("real_time_factor")
        step = r.get("doStep") or {}
        print(f"{label:<37}{_fmt(rate, '12.1f')}"
              f"{_fmt(rate / peer if rate and peer else None, '8.1f')}"
              f"{_fmt(rate / dev1 if rate and dev1 else None, '10.2f')}"
              f"{_fmt(step.get('median_us'), '18.1f')}{_fmt(step.get('p99_us'), '9.1f')}"
              f"{_fmt(step.get('max_us'), '10.1f')}")
    print()
    cold = report["cold_start"]
    for label, rows, key in (("C host", [r.get("cold_start", r) for r in cold["c_host"]],
                              "total_s"),
                             ("native FMU, fmpy", cold["native_fmpy"],
                              "load_instantiate_initialise_first_step_s"),
                             ("development FMU, fmpy", cold["dev_fmpy"],
                              "load_instantiate_initialise_first_step_s")):
        good = [r for r in rows if r.get("ok", True) and key in r]
        text = ", ".join(f"{r[key] * 1e3:.1f}" for r in good) or "FAILED"
        extra = ""
        if good and "new_process_to_first_doStep_s" in good[0]:
            extra = ("; new Python process to first doStep " + ", ".join(
                f"{r['new_process_to_first_doStep_s'] * 1e3:.0f}" for r in good) + " ms")
        print(f"cold start (load, instantiate, initialise, first step), {label}: {text} ms"
              + extra)
    print()
    print("targets (issue 29; reported, not asserted):")
    for t in report["targets"]:
        verdict = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        print(f"  {t['target']:<58}{_fmt(t['measured'], '9.1f')} {t['unit']:<3} {verdict}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_DURATION:g} s manoeuvre and a 20 s long run, for smoke "
                             "runs")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds; each variant runs once per round in a new process, the "
                             "fastest round is reported (default %(default)s)")
    parser.add_argument("--long", type=float, default=600.0,
                        help="seconds simulated at 1 ms through the C host for the worst "
                             "doStep (default %(default)g)")
    parser.add_argument("--json", type=Path,
                        help="JSON report path (default benchmarks/results/native.json; "
                             "with --quick out/native.json)")
    args = parser.parse_args(argv)
    duration = QUICK_DURATION if args.quick else DURATION
    long_run = 20.0 if args.quick else args.long
    json_path = args.json or result_path("native.json", partial=args.quick)

    report = {
        "rounds": args.repeat,
        **provenance(),
        "note": "shared 2-core VM with other jobs running; figures from one run, to be "
                "quoted as ratios",
    }
    manoeuvre = load_manoeuvre(duration)
    report["manoeuvre"] = manoeuvre
    # a development FMU older than its sources is built again: it would time other kernels
    # than the native FMU's
    error = (build_native(manoeuvre, NATIVE_FMU, NATIVE_EVENT)
             or ensure_fmu(DEV_FMU, rebuild=DEV_FMU.exists() and bool(fmu_staleness(DEV_FMU))))
    if error:
        raise SystemExit(error)
    stale = fmu_staleness(DEV_FMU)
    if stale:
        print(f"warning: {DEV_FMU} is older than {len(stale)} source file(s), e.g. {stale[0]}",
              flush=True)
    report["fmus"] = {"native": shown(NATIVE_FMU), "native_event": shown(NATIVE_EVENT),
                      "rk2_parameters": RK2_PARAMETERS,
                      "development": shown(DEV_FMU), "development_sources_newer": stale}
    # the instruction-set level the native FMU's kernels run at here: the widest this
    # processor runs (docs/native.md, "Instruction-set levels")
    report["native_level"] = native_level_here()

    work = Path(tempfile.mkdtemp(prefix="simon-native-bench-"))
    try:
        exe = compile_host(work)
        unzipdir = work / "fmu"
        with zipfile.ZipFile(NATIVE_FMU) as z:
            z.extractall(unzipdir)
        md = fmu_refs(unzipdir, manoeuvre["unit"])
        heun = dict(manoeuvre, parameters=RK2_PARAMETERS)

        fmpy_variants = {"peer": ("peer", None), "dev-fmpy-1ms": ("fmu-1ms", DEV_FMU),
                         "dev-fmpy-10ms": ("fmu-10ms", DEV_FMU),
                         "native-fmpy-1ms": ("fmu-1ms", NATIVE_FMU),
                         "native-fmpy-10ms": ("fmu-10ms", NATIVE_FMU),
                         "native-fmpy-1ms-rk2": ("fmu-1ms", NATIVE_FMU),
                         "native-fmpy-10ms-rk2": ("fmu-10ms", NATIVE_FMU)}
        # (communication step, internal step: None for the event's, 1 ms, and the integration
        # method: None for the event's, RK4, 2 for RK2); the third at the largest internal step
        # the FMU accepts, 2 ms (docs/equations.md, "The integration step and its stability")
        host_variants = {"native-c-1ms": (0.001, None, None), "native-c-10ms": (0.01, None, None),
                         "native-c-10ms-h2": (0.01, md["step_size_max"], None),
                         "native-c-1ms-rk2": (0.001, None, RK2_PARAMETERS["integrator"]),
                         "native-c-10ms-rk2": (0.01, None, RK2_PARAMETERS["integrator"])}
        runs = {name: [] for name in list(fmpy_variants) + list(host_variants)}
        for i in range(max(1, args.repeat)):
            for name, (variant, fmu) in fmpy_variants.items():
                print(f"round {i + 1}/{args.repeat}: {name} ...", flush=True)
                runs[name].append(spawn(variant, heun if name.endswith("-rk2") else manoeuvre,
                                        duration, fmu))
            for name, (step, internal, method) in host_variants.items():
                print(f"round {i + 1}/{args.repeat}: {name} ...", flush=True)
                runs[name].append(run_host(exe, unzipdir, md, manoeuvre, step, duration,
                                           internal, method))
        results = {name: best_of(rs) for name, rs in runs.items()}

        print(f"native-c-long: {long_run:g} s at 1 ms through the C host ...", flush=True)
        long_result = run_host(exe, unzipdir, md, manoeuvre, 0.001, long_run)
        if long_result.get("ok"):
            long_result["real_time_factor"] = long_result["simulated_s"] / long_result["wall_s"]
        results["native-c-long"] = long_result

        cold = {"c_host": [], "native_fmpy": [], "dev_fmpy": []}
        for i in range(3):
            print(f"cold start {i} ...", flush=True)
            cold["c_host"].append(run_host(exe, unzipdir, md, manoeuvre, 0.001, 0.0))
            cold["native_fmpy"].append(fmpy_cold_start(
                spawn("cold-start", manoeuvre, 0.0, NATIVE_FMU)))
            cold["dev_fmpy"].append(fmpy_cold_start(spawn("cold-start", manoeuvre, 0.0,
                                                          DEV_FMU)))
        # the first of each primes the page cache (and the development FMU's kernel cache);
        # the two after it are the figures
        report["cold_start_priming"] = {k: v[0] for k, v in cold.items()}
        report["cold_start"] = {k: v[1:] for k, v in cold.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    report["results"] = results
    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["targets"] = evaluate_targets(report)
    print_table(report)
    print(f"\nwrote {write_report(report, json_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
