"""An intersection T-bone crash of two sedans, through the FMU with fmpy.

The shipped two-car event (engine/data/two-cars.json): the first car (``car``) crosses the
intersection eastwards (earth X, yaw 0) at 50 km/h; the second (``car2``) comes from its
right, heading north (yaw -90 degrees: along earth -Y, since Y is to the right, SAE J670) at
40 km/h, and its front strikes the first car's right side at the CG at about ``IMPACT`` s.
Both drivers are off the controls (neutral, no brake, steering held straight), so after the
impact the cars slide apart on their tires. The exterior meshes and the crush stiffness are
the event's defaults (docs/equations.md, "Collisions").

The striking front stays against the struck side: each car's vertices press on the face of
the other's box they entered through (docs/equations.md, "Collisions"). The example prints the
deltaV at the end of the contact (the crash's) and at the end (the tires' forces after the
contact added), beside two closed forms of a central impact: along the normal with the
restitution e of the event, (1 + e) (m_other / (m1 + m2)) v_n (v_n car2's speed), which the
crash deltaV falls a little below (the damping of the unloading path lowers the rebound) and
the friction between the bodies raises, and a plastic impact, (m_other / (m1 + m2)) |v1 - v2|
(32 km/h each at 50 and 40 km/h), which it would reach only if the sliding of the front along
the side stopped within the contact; with the bodies' friction 0.4 it does not. The crush
is printed beside the deepest approach of a mass-spring impact (figures()).

Writes out/tbone.json (the event), out/SimonTbone.fmu, out/tbone.csv and out/tbone.png
(the trajectories with the bodies at the impact and at the end, the deltaV and the crush
against time), and prints the deltaV, the crush and the momentum balance.

    python examples/tbone_crash.py [--fmu out/SimonTbone.fmu] [--rebuild]
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.setup.derived import body_front, body_rear, unit_mass  # noqa: E402
from engine.setup.event import TWO_CARS_EVENT  # noqa: E402

NAME = "tbone"
V1, V2 = 50.0 / 3.6, 40.0 / 3.6     # m/s: the struck car, the striking car
IMPACT = 1.0                        # s: when the striking car's front reaches the struck car's side
DURATION = 3.0                      # s
STEP = 0.005                        # communication step, s
UNITS = ("car", "car2")
FIELDS = ("X", "Y", "yaw", "u", "v", "collision.deltaV", "collision.maxCrush",
          "collision.Fx", "collision.Fy")


def write_event(out: Path, v1: float = V1, v2: float = V2) -> tuple[Path, object]:
    """The event: the two cars placed so that car2's front meets car's right side at its CG
    at IMPACT s (car2's front, dimensions.front_x ahead of its CG, and car's right side, half
    its width from its centre line). Returns its file and its typed model (with the defaults
    the engine fills in)."""
    shipped = engine.load_event(TWO_CARS_EVENT).model.units
    half_width = shipped[0].dimensions.width / 2.0
    front2 = body_front(shipped[1])
    data = json.loads(Path(TWO_CARS_EVENT).read_text())
    car, car2 = data["units"]
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": v1}
    car2["initial"] = {"X": v1 * IMPACT, "Y": half_width + front2 + v2 * IMPACT,
                       "yaw": -math.pi / 2.0, "speed": v2}
    data["name"] = "T-bone crash"
    data["description"] = (f"Intersection T-bone: car eastwards at {v1 * 3.6:g} km/h, car2 from "
                           f"its right at {v2 * 3.6:g} km/h into its right side")
    path = out / f"{NAME}.json"
    path.write_text(json.dumps(data, indent=1))
    return path, engine.load_event(path).model


def simulate(fmu: Path, model) -> dict:
    from fmpy import simulate_fmu
    start = {}
    for unit in model.units:
        n, ini = unit.name, unit.initial
        start.update({f"{n}.X0": ini.X, f"{n}.Y0": ini.Y, f"{n}.yaw0": ini.yaw,
                      f"{n}.speed0": ini.speed, f"{n}.gear": 0})
    outputs = [f"{u}.{f}" for u in UNITS for f in FIELDS]
    r = simulate_fmu(str(fmu), stop_time=DURATION, output_interval=STEP, start_values=start,
                     output=outputs)
    return {name: np.asarray(r[name], float) for name in r.dtype.names}


def masses(model) -> list[float]:
    """Each unit's total mass, kg, as the engine counts it (engine.setup.derived.unit_mass)."""
    return [unit_mass(u) for u in model.units]


def earth_velocity(h: dict, unit: str) -> tuple[np.ndarray, np.ndarray]:
    u, v, yaw = h[f"{unit}.u"], h[f"{unit}.v"], h[f"{unit}.yaw"]
    return u * np.cos(yaw) - v * np.sin(yaw), u * np.sin(yaw) + v * np.cos(yaw)


def body(unit, X: float, Y: float, yaw: float) -> np.ndarray:
    """Plan-view corners of the unit's body box (its engine.setup.model.Unit) at (X, Y, yaw),
    closed."""
    front, rear = body_front(unit), body_rear(unit)
    xs = np.array([front, front, rear, rear, front])
    ys = np.array([-1, 1, 1, -1, -1]) * unit.dimensions.width / 2.0
    c, s = math.cos(yaw), math.sin(yaw)
    return np.column_stack([X + c * xs - s * ys, Y + s * xs + c * ys])


def figures(h: dict, model) -> dict:
    """What the example prints, from its history ``h`` and its event's model: the deltaV of
    both cars (km/h) at the end of the contact (the last sample at which car's collision force
    is not zero) and at the end, their crush (m), the closed forms of a central impact beside
    them, where car2 ends across car's path and the momentum at the start.

    The closed forms: along the normal with the restitution e of car2,
    (1 + e) (m_other / (m1 + m2)) v_n (v_n car2's speed); plastic,
    (m_other / (m1 + m2)) |v1 - v2|; and the deepest approach of a mass-spring impact, the
    closing energy along the normal, (1/2) mu_r v_n^2 (mu_r the reduced mass), taken up by
    car2's front and car's side in series across car2's width w,
    k = w B_front B_side / (B_front + B_side): delta = v_n sqrt(mu_r / k)."""
    m1, m2 = masses(model)
    (vx1, vy1), (vx2, vy2) = earth_velocity(h, "car"), earth_velocity(h, "car2")
    p0 = np.array([m1 * vx1[0] + m2 * vx2[0], m1 * vy1[0] + m2 * vy2[0]])
    touching = np.flatnonzero(np.abs(h["car.collision.Fx"]) + np.abs(h["car.collision.Fy"]) > 0)
    k1 = int(touching[-1]) if touching.size else -1
    struck, striking = model.units
    e = striking.collision.restitution
    vn = math.hypot(vx2[0], vy2[0])
    front, side = striking.collision.crush_stiffness.front, struck.collision.crush_stiffness.side
    k = striking.dimensions.width * front * side / (front + side)
    at = {"contact_end": k1, "end": -1}
    return {
        "time_s": {key: float(h["time"][k]) for key, k in at.items()},
        "deltaV_km_h": {key: [float(h[f"{u}.collision.deltaV"][k] * 3.6) for u in UNITS]
                        for key, k in at.items()},
        "crush_m": [float(h[f"{u}.collision.maxCrush"][-1]) for u in UNITS],
        "closed_forms": {
            "restitution": e,
            "normal_km_h": [(1 + e) * m2 / (m1 + m2) * vn * 3.6,
                            (1 + e) * m1 / (m1 + m2) * vn * 3.6],
            "plastic_km_h": [m / (m1 + m2) * math.hypot(vx1[0] - vx2[0], vy1[0] - vy2[0]) * 3.6
                             for m in (m2, m1)],
            # the approach, shared by the struck side and the striking front as springs in
            # series carrying one pressure (docs/equations.md, "Crush that moves the mesh")
            "approach_m": vn * math.sqrt(m1 * m2 / (m1 + m2) / k),
            "crush_m": [vn * math.sqrt(m1 * m2 / (m1 + m2) / k) * b / (front + side)
                        for b in (front, side)]},
        "car2_across_m": float(h["car2.Y"][-1] - h["car.Y"][-1]),
        "momentum_kg_m_s": float(np.hypot(*p0)),
    }


def plot(h: dict, model, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = h["time"]
    contact = np.flatnonzero(np.abs(h["car.collision.Fx"]) + np.abs(h["car.collision.Fy"]) > 0)
    k0 = int(contact[0]) if contact.size else 0
    fig, (ax0, ax1, ax2) = plt.subplots(1, 3, figsize=(15, 4.8))
    for unit, colour in zip(model.units, ("tab:blue", "tab:red")):
        n = unit.name
        ax0.plot(h[f"{n}.X"], h[f"{n}.Y"], color=colour, label=f"{n} CG path")
        for k, style in ((k0, "--"), (-1, "-")):
            b = body(unit, h[f"{n}.X"][k], h[f"{n}.Y"][k], h[f"{n}.yaw"][k])
            ax0.plot(b[:, 0], b[:, 1], style, color=colour, lw=1)
        ax1.plot(t, h[f"{n}.collision.deltaV"] * 3.6, color=colour, label=n)
        ax2.plot(t, h[f"{n}.collision.maxCrush"] * 100, color=colour, label=n)
    ax0.set(xlabel="earth X, m", ylabel="earth Y, m (right)", title="paths (bodies at first contact, dashed, and at the end)")
    ax0.invert_yaxis()
    ax0.set_aspect("equal")
    ax0.legend(fontsize=8)
    ax1.set(xlabel="time, s", ylabel="deltaV, km/h", title="CG velocity change since first contact")
    ax2.set(xlabel="time, s", ylabel="max crush, cm", title="deepest vertex approach")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonTbone.fmu"))
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--speeds", type=float, nargs=2, default=[V1 * 3.6, V2 * 3.6],
                        metavar=("CAR", "CAR2"), help="the two speeds, km/h")
    args = parser.parse_args(argv)
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    event, model = write_event(out, args.speeds[0] / 3.6, args.speeds[1] / 3.6)
    fmu = Path(args.fmu)
    if args.rebuild or not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event), "-o", str(fmu)],
                       check=True, cwd=ROOT)
    h = simulate(fmu, model)
    names = ["time"] + [f"{u}.{f}" for u in UNITS for f in FIELDS]
    import fmpy

    from simon_fmu.studies import tables
    units = tables.variable_units(fmpy.read_model_description(str(fmu)))   # SI, a units row
    tables.write_csv(out / f"{NAME}.csv", names, [units[n] for n in names], [h[n] for n in names])
    plot(h, model, out / f"{NAME}.png")
    f = figures(h, model)
    for label, key in (("at the end of the contact", "contact_end"), ("at the end", "end")):
        dv1, dv2 = f["deltaV_km_h"][key]
        print(f"deltaV {label} (t = {f['time_s'][key]:.3f} s): car {dv1:.1f} km/h, car2 "
              f"{dv2:.1f} km/h")
    closed = f["closed_forms"]
    print(f"closed forms: along the normal with e = {closed['restitution']:g}: car "
          f"{closed['normal_km_h'][0]:.1f} km/h, car2 {closed['normal_km_h'][1]:.1f} km/h; "
          f"plastic: car {closed['plastic_km_h'][0]:.1f} km/h")
    print(f"max crush: car {f['crush_m'][0] * 100:.1f} cm, car2 {f['crush_m'][1] * 100:.1f} cm; "
          f"mass-spring closed form: the approach {closed['approach_m'] * 100:.1f} cm, the side's "
          f"share {closed['crush_m'][0] * 100:.1f} cm, the front's {closed['crush_m'][1] * 100:.1f} cm")
    print(f"car2 ends {f['car2_across_m']:+.2f} m across car's path (Y, + right)")
    print(f"momentum at the start {f['momentum_kg_m_s']:.0f} kg m/s; "
          f"wrote {out / (NAME + '.csv')} and {out / (NAME + '.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
