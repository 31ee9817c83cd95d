"""Collision cost: two cars in sustained contact through the FMU at a 10 ms step.

    python benchmarks/collision.py [--out out] [--duration 5] [--step 0.01] [--vertices 300]
                                   [--obj] [--no-native] [--internal-step S] [--json PATH]

The shipped two-car event (engine/data/two-cars.json) with both cars on one line: the first
car, in first gear at part throttle, drives at ``--speed`` into the second, which stands braked
``--gap`` metres ahead, and keeps pushing it, so that the two exterior meshes (about
``--vertices`` vertices each, ``collision.mesh_vertices``) stay in contact; with ``--obj`` each
car's exterior is an OBJ file of that box mesh (``collision.mesh_file``), so that each car's
vertices meet the other's triangles (engine.collision.mesh_approach). The FMU is built from
that event (``out/SimonCollisionBench.fmu``, ``-obj`` with ``--obj``), then stepped with fmpy's
FMU2Slave at ``--step`` for ``--duration`` s, three rounds in this process; the fastest round
is reported. The steps in which ``car.collision.contact`` is true are timed apart from the
others: their real-time factor is the collision's figure. The native FMU of the same event
(``-native.fmu``, Linux x86-64 only; docs/native.md) is stepped alike, its figures under
``native`` in the report (``--no-native`` skips it), and then once forced to each of its
instruction-set levels (``SIMON_NATIVE_ISA``), under ``native_levels``. The report goes to
benchmarks/results/collision.json, the committed file the docs' figures are rendered from
(tools/update_doc_numbers.py). ``--internal-step`` sets both FMUs' parameter stepSize at
initialisation (the event's is 1 ms), its report by default to
out/collision-internal-step.json: what a coarser internal step gains, and what it moves
(the maximum crush is reported).
A benchmark, not a test: nothing asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from unittest.mock import patch

import numpy as np

from runner import fmu_staleness, native_level_here, provenance, result_path, write_report

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def write_event(out: Path, speed: float, gap: float, vertices: int, obj: bool = False) -> Path:
    """The two-car event with the cars on one line, the second braked ahead of the first; with
    ``obj`` each car's exterior an OBJ file of its box mesh."""
    import engine
    from engine.setup.collision import unit_box
    from engine.setup.event import TWO_CARS_EVENT
    from support.exteriors import default_box_obj
    data = json.loads(Path(TWO_CARS_EVENT).read_text())
    car, car2 = data["units"]
    for unit in (car, car2):
        unit.setdefault("collision", {})["mesh_vertices"] = vertices
    if obj:
        units = engine.load_event(data).model.units
        for unit, typed in zip((car, car2), units):
            name = f"bench-{unit['name']}.obj"
            default_box_obj(out / name, unit_box(typed), vertices)
            unit["collision"]["mesh_file"] = name
    length = car["dimensions"]["length"]
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": speed}
    car2["initial"] = {"X": length + gap, "Y": 0.0, "yaw": 0.0, "speed": 0.0}
    data.setdefault("simulation", {}).setdefault("collisions", {}).update(
        {"vehicle_start_time": 0.0})
    path = out / "bench-collision.json"
    text = json.dumps(data, indent=1)
    if not path.exists() or path.read_text() != text:     # (its time stamp dates the FMU's)
        path.write_text(text)
    return path


def run(fmu: Path, duration: float, step: float, names: list[str],
        internal_step: float | None = None) -> dict:
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    folder = extract(str(fmu))
    try:
        rounds = []
        for _ in range(3):          # a new slave each round: freeInstance unloads the library
            slave = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                              modelIdentifier=md.coSimulation.modelIdentifier, instanceName="bench")
            slave.instantiate()
            slave.setupExperiment(startTime=0.0)
            slave.enterInitializationMode()
            if internal_step is not None:
                slave.setReal([vr["stepSize"]], [internal_step])
            slave.exitInitializationMode()
            slave.setInteger([vr["car.gear"], vr["car2.gear"]], [1, 1])
            slave.setReal([vr["car.throttle"], vr["car2.brakePedalForce"]], [0.3, 400.0])
            contact_vr = vr["car.collision.contact"]
            out_vrs = [vr[n] for n in names]
            walls, contacts = [], []
            t = 0.0
            for _k in range(int(round(duration / step))):
                t0 = time.perf_counter()
                slave.doStep(currentCommunicationPoint=t, communicationStepSize=step)
                y = slave.getReal(out_vrs)
                walls.append(time.perf_counter() - t0)
                contacts.append(bool(slave.getBoolean([contact_vr])[0]))
                t += step
            crush = y[names.index("car.collision.maxCrush")]
            gap = y[names.index("car2.X")] - y[names.index("car.X")]
            slave.terminate()
            slave.freeInstance()
            walls, contacts = np.array(walls), np.array(contacts)
            rounds.append({"wall": float(walls.sum()),
                           "contact_steps": int(contacts.sum()), "steps": int(contacts.size),
                           "contact_wall": float(walls[contacts].sum()),
                           "free_wall": float(walls[~contacts].sum()),
                           "max_crush": float(crush), "final_cg_distance": float(gap)})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    best = min(rounds, key=lambda r: r["wall"])
    n_c, n_f = best["contact_steps"], best["steps"] - best["contact_steps"]
    best["x_real_time"] = duration / best["wall"]
    best["contact_x_real_time"] = (n_c * step / best["contact_wall"]) if n_c else float("nan")
    best["free_x_real_time"] = (n_f * step / best["free_wall"]) if n_f else float("nan")
    return best


def native_levels(fmu: Path, duration: float, step: float, names: list[str],
                  internal_step: float | None = None) -> dict:
    """The native FMU forced to each instruction-set level of its x86-64 binary
    (``SIMON_NATIVE_ISA``, docs/native.md), stepped as :func:`run`: {level: figures}, or
    {level: {"refused": ...}} for a level this processor does not run."""
    from simon_fmu.native.targets import X86_64_LEVELS
    out = {}
    for level in X86_64_LEVELS:
        # the variable as it was is put back after each level (patch.dict restores it)
        with patch.dict(os.environ, {"SIMON_NATIVE_ISA": level.name}):
            try:
                out[level.name] = run(fmu, duration, step, names, internal_step)
            except Exception as exc:    # noqa: BLE001 - fmpy: fmi2Instantiate answered NULL
                out[level.name] = {"refused": str(exc)}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--step", type=float, default=0.01)
    parser.add_argument("--speed", type=float, default=2.0, help="first car's speed, m/s")
    parser.add_argument("--gap", type=float, default=0.5, help="bumper gap at the start, m")
    parser.add_argument("--vertices", type=int, default=300)
    parser.add_argument("--obj", action="store_true",
                        help="each car's exterior an OBJ file of its box mesh")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--no-native", action="store_true",
                        help="skip the native FMU of the same event (built with --platforms linux64)")
    parser.add_argument("--internal-step", type=float, default=None,
                        help="the FMUs' parameter stepSize (s), set at initialisation; default "
                             "the event's, 1 ms")
    parser.add_argument("--json", type=Path, default=None,
                        help="JSON report path (default benchmarks/results/collision.json; "
                             "with --internal-step out/collision-internal-step.json)")
    args = parser.parse_args(argv)
    if args.json is None:
        args.json = (result_path("collision.json") if args.internal_step is None
                     else Path(args.out) / "collision-internal-step.json")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    event = write_event(out, args.speed, args.gap, args.vertices, args.obj)
    fmu = out / ("SimonCollisionBench-obj.fmu" if args.obj else "SimonCollisionBench.fmu")
    # built again when asked, missing, or older than a source of the FMU or its event
    if args.rebuild or not fmu.exists() or fmu_staleness(fmu) or \
            event.stat().st_mtime > fmu.stat().st_mtime:
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event), "-o", str(fmu)],
                       check=True, cwd=ROOT)
    native = fmu.with_name(fmu.stem + "-native.fmu")
    if not args.no_native and (args.rebuild or not native.exists() or fmu_staleness(native)
                               or event.stat().st_mtime > native.stat().st_mtime):
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", "--native", str(event),
                        "--platforms", "linux64", "-o", str(native)], check=True, cwd=ROOT)
    names = ["car.X", "car2.X", "car.collision.maxCrush", "car.collision.Fx"]
    report = provenance()
    load0 = report["machine"]["load_average_at_start"][0]
    h = args.internal_step
    r = run(fmu, args.duration, args.step, names, h)
    if not args.no_native:
        # the native FMU of the same event (docs/native.md), stepped alike: the same kernels
        # without the development FMU's Python slave round them
        r["native"] = run(native, args.duration, args.step, names, h)
        r["native_levels"] = native_levels(native, args.duration, args.step, names, h)
        # the level the native FMU ran at by itself: the widest this processor runs
        r["native"]["level"] = native_level_here()
    report["machine"]["load_average_at_end"] = os.getloadavg()
    r = {**report, **r, "step": args.step, "internal_step": h, "duration": args.duration,
         "vertices": args.vertices, "obj": args.obj}
    levels = [(f"native FMU at {name}", v) for name, v in r.get("native_levels", {}).items()]
    for label, v in (("development FMU", r), ("native FMU", r.get("native")), *levels):
        if v is None or "x_real_time" not in v:
            continue
        print(f"{label}: two cars, {args.vertices} vertices each"
              f"{' (OBJ exteriors)' if args.obj else ''}, {args.step * 1e3:g} ms step"
              f"{f' ({h * 1e3:g} ms internal step)' if h is not None else ''}, "
              f"{args.duration:g} s: {v['x_real_time']:.1f} x real time overall; "
              f"{v['contact_steps']} of {v['steps']} steps in contact at "
              f"{v['contact_x_real_time']:.1f} x real time, the others at "
              f"{v['free_x_real_time']:.1f} x; max crush {v['max_crush']:.3f} m")
    print(f"load average {load0:.2f} to {os.getloadavg()[0]:.2f}")
    write_report(r, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
