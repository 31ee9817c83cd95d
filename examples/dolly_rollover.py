"""A dolly rollover of the reference sedan (after FMVSS 208 / SAE J2114), through the FMU with
fmpy: the car launched sideways at 48 km/h, rolled 23 degrees towards its leading (right) side,
with the roll rate the dolly's trip gives it, on dry flat ground; it rolls to rest.

The launch uses the FMU's initial-condition parameters car.roll0, car.lateralSpeed0 and
car.rollRate0 (engine.setup.launch: the body turned about its CG and set on its lowest point).
The roll rate at release is our choice (3 rad/s, 172 deg/s): on flat ground a sedan whose track
over twice its CG height exceeds the road's friction slides rather than rolls, and the dolly's
flange that trips its tires is not modelled. Writes out/dolly_rollover.csv and
out/dolly_rollover.png and prints the quarter turns, the distance and the mean deceleration.

    python examples/dolly_rollover.py [--fmu out/SimonCar.fmu] [--roll-rate 3.0]
"""
from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ["car.X", "car.Y", "car.Z", "car.roll", "car.pitch", "car.yaw", "car.speed", "car.p",
           "car.collision.Fx", "car.collision.Fy", "car.collision.Fz", "car.axle1.right.Fz",
           "car.axle2.right.Fz"]
#: the launch: FMVSS 208's 48 km/h sideways on a 23 degree platform
LAUNCH_SPEED = 48.0 / 3.6
LAUNCH_ROLL = math.radians(23.0)
STOP_TIME = 8.0
G = 9.80665


def rollover_figures(t, roll, Y, X, speed):
    """(quarter turns, distance from launch to rest (m), time to rest (s), mean deceleration
    over the distance (g)); rest: from when the speed stays below 0.1 m/s."""
    moving = np.nonzero(speed >= 0.1)[0]
    rest = int(moving.max()) + 1 if moving.size else 0
    rest = min(rest, t.size - 1)
    turns = int(abs(roll[rest] - roll[0]) // (0.5 * math.pi))
    distance = float(np.hypot(np.diff(X[:rest + 1]), np.diff(Y[:rest + 1])).sum())
    decel = speed[0] ** 2 / (2.0 * distance) / G if distance > 0.0 else float("nan")
    return turns, distance, float(t[rest]), decel


def upward(result, prefix):
    """The earth-vertical part (up +) of a vehicle-fixed force ``prefix``.Fx/Fy/Fz: the third row of
    the vehicle-to-earth rotation of the roll and pitch outputs (SAE J670, z down)."""
    f, t = result["car.roll"], result["car.pitch"]
    return -(-np.sin(t) * result[prefix + ".Fx"] + np.sin(f) * np.cos(t) * result[prefix + ".Fy"]
             + np.cos(f) * np.cos(t) * result[prefix + ".Fz"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonCar.fmu"))
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--roll-rate", type=float, default=3.0,
                        help="roll rate at release, rad/s (default 3)")
    args = parser.parse_args(argv)
    fmu, out = Path(args.fmu), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", str(fmu)], check=True)

    import fmpy
    start = {"car.speed0": 0.0, "car.roll0": LAUNCH_ROLL, "car.lateralSpeed0": LAUNCH_SPEED,
             "car.rollRate0": args.roll_rate}
    result = fmpy.simulate_fmu(str(fmu), stop_time=STOP_TIME, output_interval=0.01,
                               start_values=start, output=OUTPUTS)
    from simon_fmu.studies import tables
    names = result.dtype.names
    units = tables.variable_units(fmpy.read_model_description(str(fmu)))
    tables.write_csv(out / "dolly_rollover.csv", names, [units[n] for n in names],
                     [result[n] for n in names])

    t = result["time"]
    turns, distance, t_rest, decel = rollover_figures(t, result["car.roll"], result["car.Y"],
                                                      result["car.X"], result["car.speed"])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5))
    fig.suptitle(f"Dolly rollover of the reference sedan: {LAUNCH_SPEED * 3.6:.0f} km/h sideways, "
                 f"{math.degrees(LAUNCH_ROLL):.0f} deg roll, {math.degrees(args.roll_rate):.0f} deg/s "
                 f"at release")
    ax[0, 0].plot(t, np.degrees(result["car.roll"]), label="roll")
    ax[0, 0].plot(t, np.degrees(result["car.pitch"]), label="pitch")
    ax[0, 0].set(xlabel="t (s)", ylabel="angle (deg)", title="attitude (right side down +)")
    ax[0, 0].legend()
    ax[0, 1].plot(t, result["car.speed"] * 3.6, label="speed (km/h)")
    ax[0, 1].plot(t, np.degrees(result["car.p"]), label="roll rate (deg/s)")
    ax[0, 1].set(xlabel="t (s)", title="speed and roll rate")
    ax[0, 1].legend()
    ax[1, 0].plot(result["car.Y"], -result["car.Z"])
    ax[1, 0].set(xlabel="Y (m, right +)", ylabel="CG height (m)", title="CG across the road")
    ax[1, 1].plot(t, upward(result, "car.collision") / 1000, label="body on the road")
    ax[1, 1].plot(t, result["car.axle1.right.Fz"] / 1000, label="front right tire")
    ax[1, 1].plot(t, result["car.axle2.right.Fz"] / 1000, label="rear right tire")
    ax[1, 1].set(xlabel="t (s)", ylabel="force (kN)", title="ground contacts (body: vertical, up +;"
                 " tires: radial load)")
    ax[1, 1].legend()
    fig.tight_layout()
    fig.savefig(out / "dolly_rollover.png", dpi=90)

    print(f"dolly rollover: {turns} quarter turns, {distance:.1f} m from launch to rest in "
          f"{t_rest:.2f} s, mean deceleration {decel:.2f} g over the distance; final roll "
          f"{math.degrees(result['car.roll'][-1]) % 360.0:.0f} deg")
    print(f"wrote {out / 'dolly_rollover.csv'} and {out / 'dolly_rollover.png'}")


if __name__ == "__main__":
    main()
