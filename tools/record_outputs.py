"""Record the engine's outputs for a fixed set of runs, or compare a recording with a saved one.

    .venv/bin/python tools/record_outputs.py OUT.npz                  # record
    .venv/bin/python tools/record_outputs.py NEW.npz --compare OLD.npz   # record, then compare
    .venv/bin/python tools/record_outputs.py NEW.npz --compare OLD.npz --no-run  # compare files

The runs (engine.Simulation directly, no FMU): the reference sedan in a lane change, the
tractor-semitrailer and the double with a steer, two cars colliding, the sedan on a mesh
(OBJ) road and on a CRG road. Every unit, wheel, tire, solid-axle, connection and steering
output is recorded every 10 ms for 3 s. A comparison is bit for bit: for each array, the
largest absolute and relative difference, matched by row and field name; exit status 1 when
anything differs or is missing. A change that is meant to leave the physics alone must give
identical recordings.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import engine  # noqa: E402
from engine.setup.event import DOUBLE_EVENT, TRACTOR_SEMITRAILER_EVENT, TWO_CARS_EVENT  # noqa: E402
from engine.signals import (AXLE_OUTPUTS, HITCH_OUTPUTS, STEERING_OUTPUTS, TIRE_OUTPUTS,  # noqa: E402
                            UNIT_OUTPUTS, WHEEL_OUTPUTS)
from support.roads import grid_crg, grid_mesh_obj  # noqa: E402

DT = 0.01          # s, the recording interval
DURATION = 3.0     # s
#: (array of the Simulation, its row names, its field names)
ARRAYS = (("y_unit", "unit_names", UNIT_OUTPUTS), ("y_wheel", "wheel_names", WHEEL_OUTPUTS),
          ("y_tire", "tire_names", TIRE_OUTPUTS), ("y_axle", "axle_names", AXLE_OUTPUTS),
          ("y_conn", "connection_names", HITCH_OUTPUTS),
          ("y_steer", "steering_names", STEERING_OUTPUTS))


def lane_change(t, amplitude):
    """A sine steer of one period over 2 s from t = 0.5 s, rad at the steering wheel."""
    return amplitude * math.sin(math.pi * (t - 0.5)) if 0.5 <= t <= 2.5 else 0.0


def cases(folder: Path):
    """name -> (event, Simulation keyword arguments, steering wheel angle as a function of t)."""
    sedan = engine.load_event().data
    out = {"sedan_lane_change": (engine.load_event(), {"initial": {"car": {"speed0": 25.0}}},
                                 lambda t: lane_change(t, 1.5))}
    for case, file in (("tractor_semitrailer_steer", TRACTOR_SEMITRAILER_EVENT),
                       ("double_steer", DOUBLE_EVENT)):
        event = engine.load_event(file)
        out[case] = (event, {"initial": {n: {"speed0": 20.0} for n in event.lead_unit_names()}},
                     lambda t: lane_change(t, 2.0))
    two = json.loads(Path(TWO_CARS_EVENT).read_text())
    car, car2 = two["units"]
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 12.0}
    car2["initial"] = {"X": 12.0, "Y": 0.5 * car["dimensions"]["width"] + 3.0 + 10.0,
                       "yaw": -math.pi / 2.0, "speed": 10.0}
    for unit in two["units"]:
        unit.setdefault("collision", {})["enabled"] = True
    out["two_cars_collide"] = (engine.load_event(two), {}, lambda t: 0.0)
    grid_mesh_obj(folder / "road.obj",
                  lambda X, Y: 0.02 * np.sin(0.7 * X) * np.cos(0.5 * Y) - 0.002 * X,
                  (-20.0, 120.0), (-10.0, 10.0), (70, 10))
    mesh = copy.deepcopy(sedan)
    mesh["environment"]["terrain"] = {"type": "mesh", "file": "road.obj"}
    out["sedan_mesh_road"] = (engine.load_event(mesh, base=folder),
                              {"initial": {"car": {"speed0": 20.0}}}, lambda t: lane_change(t, 0.5))
    grid_crg(folder / "road.crg", lambda u, v: 0.03 * np.sin(0.9 * u) + 0.01 * v,
             (0.0, 140.0), (-5.0, 5.0), (140, 10), phi=(0.0, 0.05))
    crg = copy.deepcopy(sedan)
    crg["environment"]["terrain"] = {"type": "crg", "file": "road.crg", "origin": [-20.0, 0.0, 0.0]}
    out["sedan_crg_road"] = (engine.load_event(crg, base=folder),
                             {"initial": {"car": {"speed0": 20.0}}}, lambda t: lane_change(t, 0.5))
    return out


def run(event, kwargs, steer):
    sim = engine.Simulation(event, **kwargs)
    j = engine.UNIT_INPUTS.index("steeringWheelAngle")
    lead = [sim.unit_index(n) for n in event.lead_unit_names()]
    n = int(round(DURATION / DT))
    rec = {name: np.empty((n + 1,) + getattr(sim, name).shape) for name, _, _ in ARRAYS}
    for k in range(n + 1):
        if k:
            sim.advance(k * DT)
        for name, _, _ in ARRAYS:
            rec[name][k] = getattr(sim, name)
        sim.u_unit[lead, j] = steer(k * DT)
    rows = {name: list(getattr(sim, rows)) for name, rows, _ in ARRAYS}
    return rec, rows


def record(path: Path):
    arrays, meta = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for case, (event, kwargs, steer) in cases(Path(tmp)).items():
            rec, rows = run(event, kwargs, steer)
            for name, _, fields in ARRAYS:
                arrays[f"{case}/{name}"] = rec[name]
                meta[f"{case}/{name}"] = {"rows": rows[name], "fields": list(fields)}
            print(f"{case}: recorded {len(rec['y_unit'])} samples", flush=True)
    np.savez(path, __meta__=np.array(json.dumps(meta)), **arrays)


def load(path: Path):
    z = np.load(path)
    meta = json.loads(str(z["__meta__"]))
    return {k: z[k] for k in z.files if k != "__meta__"}, meta


def compare(old_path: Path, new_path: Path) -> bool:
    old, old_meta = load(old_path)
    new, new_meta = load(new_path)
    same = True
    for key in sorted(set(old) | set(new)):
        if key not in old or key not in new:
            print(f"{key}: only in {'the new' if key in new else 'the old'} recording")
            same = False
            continue
        a, b = old[key], new[key]
        ma, mb = old_meta[key], new_meta[key]
        if ma != mb:
            # match rows and fields by name
            rows = [r for r in ma["rows"] if r in mb["rows"]]
            fields = [f for f in ma["fields"] if f in mb["fields"]]
            print(f"{key}: names differ; comparing {len(rows)} rows x {len(fields)} fields in both")
            a = a[:, [ma["rows"].index(r) for r in rows]][:, :, [ma["fields"].index(f) for f in fields]]
            b = b[:, [mb["rows"].index(r) for r in rows]][:, :, [mb["fields"].index(f) for f in fields]]
            same = False
        if a.shape != b.shape:
            print(f"{key}: shapes differ {a.shape} vs {b.shape}")
            same = False
            continue
        equal = np.array_equal(a, b, equal_nan=True)
        diff = np.abs(a - b)
        diff[np.isnan(a) & np.isnan(b)] = 0.0
        rel = diff / np.maximum(np.abs(a), np.finfo(float).tiny)
        max_abs = float(np.nanmax(diff)) if diff.size else 0.0
        max_rel = float(np.nanmax(rel)) if rel.size else 0.0
        status = "identical" if equal else "DIFFERS"
        print(f"{key}: {status}  max abs {max_abs:.3g}  max rel {max_rel:.3g}")
        same = same and equal
    print("all identical" if same else "recordings differ")
    return same


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", nargs="?", type=Path, help="the recording to write (.npz)")
    ap.add_argument("--compare", type=Path, metavar="FILE", help="a saved recording to compare with")
    ap.add_argument("--no-run", action="store_true", help="compare an existing recording OUTPUT")
    args = ap.parse_args(argv)
    if args.output is None:
        ap.error("give the recording to write")
    if not args.no_run:
        record(args.output)
    if args.compare:
        return 0 if compare(args.compare, args.output) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
