"""Open-loop single lane change of the reference sedan, through the FMU with fmpy.

The driver input is a table (time, steering-wheel angle, throttle, gear) given to fmpy as an
input signal; the FMU runs at 80 km/h in 4th gear. Writes out/lane_change.csv and
out/lane_change.png and prints a short summary.

    python examples/lane_change.py [--fmu out/SimonCar.fmu]
"""
from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ["car.X", "car.Y", "car.yaw", "car.u", "car.r", "car.ay", "car.roll", "car.sideslip",
           "car.axle1.left.Fz", "car.axle1.right.Fz", "car.axle2.left.Fz", "car.axle2.right.Fz",
           "car.axle1.left.slipAngle", "car.axle2.left.slipAngle"]


def input_table(model_description):
    """A one-period sine of the steering wheel (a lane change of about 3.5 m), then straight.

    Every other input of the FMU is held at its start value."""
    t = np.arange(0.0, 8.0 + 1e-9, 0.01)
    t0, period, amplitude = 1.0, 2.5, math.radians(23.0)
    phase = (t - t0) / period
    steer = np.where((phase > 0) & (phase < 1), amplitude * np.sin(2 * math.pi * phase), 0.0)
    others = [v for v in model_description.modelVariables if v.causality == "input"
              and v.name not in ("car.steeringWheelAngle", "car.throttle", "car.gear")]
    table = np.zeros(t.size, dtype=[("time", np.float64), ("car.steeringWheelAngle", np.float64),
                                     ("car.throttle", np.float64), ("car.gear", np.int32)]
                     + [(v.name, np.float64) for v in others])
    table["time"] = t
    for v in others:
        table[v.name] = float(v.start)
    table["car.steeringWheelAngle"] = steer
    table["car.throttle"] = 0.22
    table["car.gear"] = 4
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonCar.fmu"))
    parser.add_argument("--out", default=str(ROOT / "out"))
    args = parser.parse_args(argv)
    fmu, out = Path(args.fmu), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", str(fmu)], check=True)

    import fmpy
    speed = 80.0 / 3.6
    table = input_table(fmpy.read_model_description(str(fmu)))
    result = fmpy.simulate_fmu(str(fmu), stop_time=8.0, output_interval=0.01,
                               start_values={"car.speed0": speed}, input=table, output=OUTPUTS)
    from simon_fmu.studies import tables
    names = result.dtype.names            # time and the FMU names; a units row (SI), %.9g
    units = tables.variable_units(fmpy.read_model_description(str(fmu)))
    tables.write_csv(out / "lane_change.csv", names, [units[n] for n in names],
                     [result[n] for n in names])

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = result["time"]
    steer = np.interp(t, table["time"], table["car.steeringWheelAngle"])
    fig, ax = plt.subplots(3, 2, figsize=(11, 9))
    ax[0, 0].plot(result["car.X"], result["car.Y"])
    ax[0, 0].set(xlabel="X (m)", ylabel="Y (m, right +)", title="path (earth-fixed)")
    ax[0, 0].invert_yaxis()
    ax[0, 1].plot(t, np.degrees(steer))
    ax[0, 1].set(xlabel="t (s)", ylabel="steering wheel (deg)", title="driver input")
    ax[1, 0].plot(t, np.degrees(result["car.r"]), label="yaw rate (deg/s)")
    ax[1, 0].plot(t, result["car.ay"], label="ay (m/s^2)")
    ax[1, 0].legend()
    ax[1, 0].set(xlabel="t (s)", title="response")
    ax[1, 1].plot(t, np.degrees(result["car.roll"]), label="roll")
    ax[1, 1].plot(t, np.degrees(result["car.sideslip"]), label="sideslip")
    ax[1, 1].legend()
    ax[1, 1].set(xlabel="t (s)", ylabel="deg")
    for w in ("axle1.left", "axle1.right", "axle2.left", "axle2.right"):
        ax[2, 0].plot(t, result[f"car.{w}.Fz"] / 1000, label=w)
    ax[2, 0].legend()
    ax[2, 0].set(xlabel="t (s)", ylabel="Fz (kN)", title="tire loads")
    ax[2, 1].plot(t, np.degrees(result["car.axle1.left.slipAngle"]), label="front left")
    ax[2, 1].plot(t, np.degrees(result["car.axle2.left.slipAngle"]), label="rear left")
    ax[2, 1].legend()
    ax[2, 1].set(xlabel="t (s)", ylabel="slip angle (deg)")
    fig.tight_layout()
    fig.savefig(out / "lane_change.png", dpi=90)

    print(f"lane change at {speed * 3.6:.0f} km/h: lateral offset {result['car.Y'][-1]:.2f} m, "
          f"peak ay {np.max(np.abs(result['car.ay'])):.2f} m/s^2, "
          f"peak yaw rate {np.degrees(np.max(np.abs(result['car.r']))):.1f} deg/s, "
          f"final speed {result['car.u'][-1] * 3.6:.1f} km/h")
    print(f"wrote {out / 'lane_change.csv'} and {out / 'lane_change.png'}")


if __name__ == "__main__":
    main()
