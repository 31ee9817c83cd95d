"""Per-call overhead of the FMU's library, through fmpy: one FMU or several side by side.

For each FMU (e.g. one built with the project's library and one with ``--library pythonfmu``):

  simulate    fmpy.simulate_fmu, 10 s at a 1 ms communication step, every output recorded
  get1        fmi2GetReal of one output (reused ctypes buffers: the library's cost, not fmpy's)
  get-all     fmi2GetReal of every Real output in one call
  set-all     fmi2SetReal of every Real input in one call
  step        fmi2DoStep of 1 ms (the engine's own work included)

Each figure is the best of several repeats and of ``--rounds`` (default 3) runs, the FMUs
interleaved (the machine may be busy). Every run is a process of its own.

Usage (from the repository root):

  python -m simon_fmu build -o out/SimonCar.fmu
  python -m simon_fmu build --library pythonfmu -o out/SimonCarPythonfmu.fmu
  python benchmarks/call_overhead.py [--rounds N] [--json PATH] \
      out/SimonCar.fmu out/SimonCarPythonfmu.fmu

The report (each FMU's best figures by its library, the machine and the revision) goes to
benchmarks/results/call-overhead.json, the committed file the docs' figures are rendered from
(tools/update_doc_numbers.py).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from runner import provenance, result_path, shown, write_report


def measure(fmu: str) -> dict:
    from fmpy import extract, read_model_description, simulate_fmu
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(fmu)
    outs = [v.valueReference for v in md.modelVariables
            if v.causality == "output" and v.type == "Real"]
    ins = [v.valueReference for v in md.modelVariables
           if v.causality == "input" and v.type == "Real"]
    with zipfile.ZipFile(fmu) as z:      # the project's library records its Python there
        library = "simon" if "resources/fmi2_python.txt" in z.namelist() else "pythonfmu"
    result = {"fmu": shown(fmu), "library": library, "outputs": len(outs), "inputs": len(ins)}
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        simulate_fmu(fmu, stop_time=10.0, step_size=1e-3, output_interval=1e-3)
        best = min(best, time.perf_counter() - t)
    result["simulate_s"] = best

    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(fmu),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="bench")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    c = slave.component
    vo = (ctypes.c_uint * len(outs))(*outs)
    vals = (ctypes.c_double * len(outs))()
    vi = (ctypes.c_uint * len(ins))(*ins)
    ivals = (ctypes.c_double * len(ins))()
    v1, val1 = (ctypes.c_uint * 1)(outs[0]), (ctypes.c_double * 1)()
    k = [0]

    def step():
        slave.fmi2DoStep(c, k[0] * 1e-3, 1e-3, 1)
        k[0] += 1

    calls = {"get1": lambda: slave.fmi2GetReal(c, v1, 1, val1),
             "get-all": lambda: slave.fmi2GetReal(c, vo, len(outs), vals),
             "set-all": lambda: slave.fmi2SetReal(c, vi, len(ins), ivals),
             "step": step}
    step()
    for name, call in calls.items():
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(1000):
                call()
            best = min(best, (time.perf_counter() - t) / 1000)
        result[f"{name}_us"] = best * 1e6
    return result


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        print(json.dumps(measure(argv[1])))
        sys.stdout.flush()
        os._exit(0)    # pythonfmu's library may corrupt the heap at exit (docs/importers.md)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fmus", nargs="+", metavar="FMU")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=result_path("call-overhead.json"),
                        help="JSON report path (default benchmarks/results/call-overhead.json)")
    args = parser.parse_args(argv)
    report = {"rounds": args.rounds, **provenance()}
    best: dict[str, dict] = {}
    for _ in range(args.rounds):      # interleaved, so that a busy moment hits every FMU alike
        for fmu in args.fmus:
            done = subprocess.run([sys.executable, __file__, "--child", fmu],
                                  capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            b = best.setdefault(fmu, r)
            for key, value in r.items():
                if key.endswith(("_s", "_us")):
                    b[key] = min(b[key], value)
    print(f"{'FMU':40s} {'simulate 10 s @1 ms':>20s} {'get1':>8s} {'get-all':>9s} "
          f"{'set-all':>9s} {'step':>8s}")
    for fmu, r in best.items():
        print(f"{fmu:40s} {r['simulate_s']:>18.2f} s {r['get1_us']:>6.1f}us "
              f"{r['get-all_us']:>7.1f}us {r['set-all_us']:>7.1f}us {r['step_us']:>6.1f}us"
              f"   ({r['outputs']} outputs, {r['inputs']} inputs)")
    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["libraries"] = {r["library"]: r for r in best.values()}
    print(f"wrote {write_report(report, args.json)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
