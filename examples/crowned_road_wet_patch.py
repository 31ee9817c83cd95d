"""The reference sedan brakes across a wet patch on a crowned road, through the FMU with fmpy.

The road is a mesh (Wavefront OBJ written with grid_mesh_obj of tests/support/roads.py): 100 m
long, 7 m wide, crowned along its centre line with a 2 % crossfall to each edge, and a wet
patch from X = 40 to 60 m (5 mm of water, friction multiplier 0.7). The car runs in the
right lane at 90 km/h in neutral, steering wheel held straight, with NASA hydroplaning
(Horne and Dreher: V_p = 10.35 sqrt(p) mph, 94 km/h at 220 kPa). Just before the patch the
driver brakes with the pedal force that slows the car at 0.5 g on dry ground (sized from the
event's brake data, :func:`brake_pedal_force`): on the water the tires keep little friction
near the hydroplaning speed, the wheels lock, and they spin up again on the dry road beyond.
On the crossfall the car drifts to the right, down the slope, most while its tires slide.

Writes out/crowned-road.obj, out/crowned-road.json (the event), out/SimonCrownedRoad.fmu,
out/crowned-road.csv and out/crowned-road.png, and prints a short summary.

    python examples/crowned_road_wet_patch.py [--fmu out/SimonCrownedRoad.fmu] [--rebuild]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import engine  # noqa: E402
from model_description.catalogue import TIRE_NAMES  # noqa: E402
from engine.setup.derived import unit_mass  # noqa: E402
from simon_fmu.controllers.vehicle_data import rolling_radius, unit_data  # noqa: E402
from support.roads import grid_mesh_obj  # noqa: E402

NAME = "crowned-road"
LENGTH, WIDTH = 100.0, 7.0          # road, m (X from 0, Y from -WIDTH/2 to WIDTH/2)
CROSSFALL = 0.02                    # down from the crown to each edge, dZ/d|Y|
CELLS = (100, 14)                   # mesh quads along X and across Y: 2 800 triangles
WET = (40.0, 60.0)                  # the wet patch, X from .. to, m
WET_MATERIAL = {"friction_multiplier": 0.7, "water_depth": 0.005}
DRY_MATERIAL = {"friction_multiplier": 1.0, "water_depth": 0.0}
TIRE = {"inflation_pressure": 220e3, "tread_depth": 0.003, "width": 0.195}
SPEED = 90.0 / 3.6                  # m/s
X0, Y0 = 5.0, WIDTH / 4             # the car's start: centre of the right lane
DECELERATION = 0.5                  # the brake application, g on dry ground
BRAKE_BEFORE = 3.0                  # the front axle is this far before the patch at the brake, m
END_MARGIN = 2.0                    # the run ends with the front axle this far before the road's end, m
STEP = 0.01                         # communication step, s
WHEELS = ("axle1.left", "axle1.right", "axle2.left", "axle2.right")
CONTACT_Z = TIRE_NAMES.get("roadZ", "roadZ")   # the FMU's name of the tire output roadZ
OUTPUTS = (["car.X", "car.Y", "car.Z", "car.yaw", "car.u", "car.speed", "car.ax", "car.roll"]
           + [f"car.{w}.{f}" for w in WHEELS
              for f in ("Fz", "Fx", CONTACT_Z, "frictionAvailable", "waterDepth", "skid", "spin")])


def road_z(X, Y):
    """Earth Z of the crowned road (Z down, m): 0 on the crown, CROSSFALL |Y| lower each side."""
    return CROSSFALL * np.abs(Y) + 0.0 * X


def material(X, Y):
    """The material of the mesh at (X, Y): wet on the patch, dry elsewhere."""
    return "wet" if WET[0] <= X <= WET[1] else "dry"


def write_event(out: Path) -> Path:
    """Write the mesh and the event (the reference sedan on it) under ``out``; the event file."""
    # CELLS[1] even: a row of vertices on the crown line Y = 0, so the crown is exact
    grid_mesh_obj(out / f"{NAME}.obj", road_z, (0.0, LENGTH), (-WIDTH / 2, WIDTH / 2), CELLS, material)
    data = json.loads((ROOT / "engine" / "data" / "sedan.json").read_text())
    data["name"] = NAME
    data["description"] = ("the reference sedan on a crowned road (2 % crossfall) with a wet patch "
                           "(examples/crowned_road_wet_patch.py)")
    data["environment"]["terrain"] = {"type": "mesh", "file": f"{NAME}.obj",
                                      "materials": {"wet": WET_MATERIAL, "dry": DRY_MATERIAL}}
    data["simulation"]["hydroplaning"] = "nasa"
    car = data["units"][0]
    for tire in car["tires"].values():
        tire.update(TIRE)
    car["initial"].update({"X": X0, "Y": Y0, "yaw": 0.0, "speed": SPEED})
    path = out / f"{NAME}.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def brake_pedal_force(event, deceleration: float) -> float:
    """Pedal force (N) that decelerates the car at ``deceleration`` (g) on dry level ground.

    Wheel-cylinder pressure p = pedal_ratio F below the proportioning start; brake torque per
    wheel = brake_torque_ratio (p - pushout pressure) (Eq. 47); (m + sum(I) / r^2) a =
    sum(torque) / r, r the rolling radius at static equilibrium, m the whole mass (sprung and
    unsprung), I the tires' spin inertias (the wheels slow down with the car). The road load
    (rolling resistance, drag) comes on top."""
    car = unit_data(event)
    g = event.model.environment.gravity
    mass = unit_mass(car)
    torque_per_pa = sum(2 * a.brake_torque_ratio for a in car.axles)
    r = rolling_radius(event)
    spin = sum(2 * (2 if a.dual else 1) * car.tires[a.tire].spin_inertia for a in car.axles)
    brakes = car.brakes
    pressure = brakes.pushout_pressure + (mass + spin / r ** 2) * deceleration * g * r / torque_per_pa
    if any(a.proportioned for a in car.axles) and pressure > brakes.proportioning_start:
        raise ValueError(f"{deceleration} g needs {pressure:.3g} Pa, above the proportioning start")
    return pressure / brakes.pedal_ratio


def input_table(model_description, event, stop_time):
    """Neutral, steering wheel straight; the brake pedal from the moment the front axle, at the
    start speed, is BRAKE_BEFORE short of the patch. Every other input at its start value."""
    front_x = max(a.x for a in unit_data(event).axles)
    t_brake = (WET[0] - BRAKE_BEFORE - X0 - front_x) / SPEED
    t = np.arange(0.0, stop_time + 1e-9, STEP)
    columns = {"car.steeringWheelAngle": np.zeros(t.size),
               "car.brakePedalForce": np.where(t >= t_brake, brake_pedal_force(event, DECELERATION), 0.0),
               "car.gear": np.zeros(t.size, dtype=np.int32)}      # neutral
    for v in model_description.modelVariables:
        if v.causality == "input" and v.name not in columns:
            columns[v.name] = np.full(t.size, float(v.start))
    table = np.rec.fromarrays([t, *columns.values()], names=["time", *columns])
    return table


def run(out: Path, fmu: Path, stop_time=None, rebuild=False):
    """Write the mesh and event, build the FMU from them when missing (or ``rebuild``), and run
    it for ``stop_time`` (default: until the front axle, unbraked, would be END_MARGIN short of
    the road's end). Returns (result, input table, event)."""
    out.mkdir(parents=True, exist_ok=True)
    event_path = write_event(out)
    event = engine.load_event(str(event_path))
    if rebuild or not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event_path), "-o", str(fmu)],
                       check=True)
    front_x = max(a.x for a in unit_data(event).axles)
    if stop_time is None:
        stop_time = round((LENGTH - END_MARGIN - X0 - front_x) / SPEED, 2)

    import fmpy
    table = input_table(fmpy.read_model_description(str(fmu)), event, stop_time)
    result = fmpy.simulate_fmu(str(fmu), stop_time=stop_time, output_interval=STEP, input=table,
                               output=OUTPUTS)
    names = result.dtype.names
    np.savetxt(out / f"{NAME}.csv", np.column_stack([result[n] for n in names]), delimiter=",",
               header=",".join(names), comments="")
    plot(result, table, rolling_radius(event), out / f"{NAME}.png")
    return result, table, event


def plot(result, table, radius, path):
    """Speed, pedal, road and friction under the tires, tire loads and drift against the car's
    X; wheel spin shown as spin x ``radius`` (the rolling radius, m)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    X = result["car.X"]
    wet = dict(color="tab:blue", alpha=0.12, lw=0)
    fig, ax = plt.subplots(3, 2, figsize=(11, 9), sharex=True)
    ax[0, 0].plot(X, result["car.speed"] * 3.6, label="speed")
    for w in ("axle1.left", "axle2.left"):
        ax[0, 0].plot(X, result[f"car.{w}.spin"] * radius * 3.6, "--", lw=0.8,
                      label=f"{w} spin x rolling radius")
    ax[0, 0].set(ylabel="km/h", title="speed and wheel spin (spin 0: locked)")
    ax[0, 0].legend(fontsize=8)
    ax[0, 1].plot(X, np.interp(result["time"], table["time"], table["car.brakePedalForce"]))
    ax[0, 1].set(ylabel="N", title="brake pedal force")
    for w in WHEELS:
        ax[1, 0].plot(X, -result[f"car.{w}.{CONTACT_Z}"] * 100, label=w)
        ax[1, 1].plot(X, result[f"car.{w}.frictionAvailable"], label=w)
        ax[2, 0].plot(X, result[f"car.{w}.Fz"] / 1000, label=w)
    ax[1, 0].set(ylabel="road height (cm, up +)", title="road under the tires (crown at 0)")
    ax[1, 1].set(ylabel="1", title="frictionAvailable (material x hydroplaning)")
    ax[2, 0].set(ylabel="Fz (kN)", title="tire loads")
    ax[1, 1].legend(fontsize=8)
    ax[2, 1].plot(X, (result["car.Y"] - result["car.Y"][0]) * 100, label="lateral drift Y - Y0 (cm)")
    ax[2, 1].plot(X, np.degrees(result["car.yaw"]) * 10, label="yaw (0.1 deg)")
    ax[2, 1].set(ylabel="cm, right +", title="drift down the crossfall")
    ax[2, 1].legend(fontsize=8)
    for a in ax.ravel():
        a.axvspan(*WET, **wet)
    for a in ax[2]:
        a.set(xlabel="car X (m); shaded: the wet patch")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def summary(result):
    """Figures of the run: the lowest friction on the patch, how long the front wheels were
    locked, the speed lost and the drift."""
    X = result["car.X"]
    on_patch = (X >= WET[0]) & (X <= WET[1])
    mu = min(result[f"car.{w}.frictionAvailable"][on_patch].min() if on_patch.any() else np.nan
             for w in WHEELS)
    locked = float(np.sum(result["car.axle1.left.skid"] > 0.5) * STEP)
    return {"min_friction_on_patch": mu, "front_left_skid_s": locked,
            "speed_start_kmh": result["car.speed"][0] * 3.6, "speed_end_kmh": result["car.speed"][-1] * 3.6,
            "drift_m": result["car.Y"][-1] - result["car.Y"][0], "X_end": X[-1]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonCrownedRoad.fmu"))
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--rebuild", action="store_true", help="build the FMU even when it exists")
    args = parser.parse_args(argv)
    out = Path(args.out)
    result, _, _ = run(out, Path(args.fmu), rebuild=args.rebuild)
    s = summary(result)
    print(f"crowned road, wet patch X {WET[0]:.0f} to {WET[1]:.0f} m: {s['speed_start_kmh']:.0f} to "
          f"{s['speed_end_kmh']:.1f} km/h, lowest frictionAvailable on the patch "
          f"{s['min_friction_on_patch']:.2f}, front left tire sliding {s['front_left_skid_s']:.2f} s, "
          f"drift {s['drift_m'] * 100:.1f} cm to the right")
    print(f"wrote {out / (NAME + '.csv')} and {out / (NAME + '.png')}")


if __name__ == "__main__":
    main()
