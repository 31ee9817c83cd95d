"""Closed-loop runs through the FMUs: the driver and ABS FMUs with the vehicle, in the master.

Three runs, each written as a plot under out/ (the FMUs are built into out/ first):

- ``iso3888-2``: the driver takes the ISO 3888-2 obstacle avoidance at 60 km/h; path vs
  course with the cones, speed, steering-wheel angle, path-tracking error.
- ``abs``: full-pedal braking from 100 km/h with the ABS and with locked wheels; speeds,
  wheel speeds, brake pressure factors.
- ``split-mu``: the driver's emergency stop from 100 km/h, friction 1 on the left wheels and
  0.25 on the right, with the ABS; path, speeds, steering, pressure factors.

    python examples/closed_loop.py [iso3888-2|abs|split-mu ...]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simon_fmu.cosim import ssp  # noqa: E402
from simon_fmu.controllers.courses import check_lanes, cones, iso3888_2_lanes  # noqa: E402
from simon_fmu.controllers.driver import COURSE_DIR  # noqa: E402
from simon_fmu.controllers.vehicle_data import rolling_radius  # noqa: E402
import engine  # noqa: E402

OUT = ROOT / "out"
WHEELS = [f"axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]
R = rolling_radius(engine.load_event())   # the default car's rolling radius at rest, m


def _figure(rows: int):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(rows, 1, figsize=(9, 2.6 * rows), constrained_layout=True)
    return plt, fig, axes


def iso3888_2(fmus) -> Path:
    system = ssp.SYSTEMS["lane-change"]
    r = ssp.master(system, fmus).run(120 / (60 / 3.6), start_values=system.start_values,
                                     record=system.record)
    x, y, yaw = r["vehicle.car.X"], r["vehicle.car.Y"], r["vehicle.car.yaw"]
    lanes = check_lanes(iso3888_2_lanes(), x, y, yaw)
    course = np.loadtxt(COURSE_DIR / "iso3888-2.csv", delimiter=",",
                        skiprows=1)
    plt, fig, ax = _figure(4)
    c = cones(iso3888_2_lanes())
    ax[0].plot(course[:, 0], -course[:, 1], "k--", lw=0.8, label="path")
    ax[0].plot(x, -y, label="CG")
    ax[0].plot(c[:, 0], -c[:, 1], "o", color="orange", ms=4, label="cones")
    ax[0].set(xlim=(-10, 80), xlabel="X, m", ylabel="left, m",
              title=f"ISO 3888-2 at 60 km/h: body inside the lanes: {lanes.inside} "
                    f"(least margin {lanes.margin:.2f} m)")
    ax[0].legend(loc="upper right")
    ax[1].plot(r.time, r["vehicle.car.speed"] * 3.6)
    ax[1].set(ylabel="speed, km/h")
    ax[2].plot(r.time, np.degrees(r["driver.steeringWheelAngle"]))
    ax[2].set(ylabel="steering wheel, deg")
    ax[3].plot(r.time, r["driver.lateralError"])
    ax[3].set(xlabel="time, s", ylabel="tracking error, m")
    return _save(plt, fig, "iso3888_2.png")


def abs_braking(fmus) -> Path:
    system = ssp.SYSTEMS["abs-braking"]
    with_abs = ssp.master(system, fmus).run(system.stop_time, start_values=system.start_values,
                                            record=system.record)
    locked_system = ssp.System("locked", "", ("vehicle",), system.start_values,
                               tuple(r for r in system.record if r.startswith("vehicle.")),
                               system.step_size, system.stop_time)
    locked = ssp.master(locked_system, fmus).run(
        system.stop_time, start_values=system.start_values, record=locked_system.record)
    plt, fig, ax = _figure(3)
    for r, label in ((with_abs, "ABS"), (locked, "locked")):
        v = r["vehicle.car.speed"]
        stop = int(np.argmax(v < 0.1))
        ax[0].plot(r.time, v * 3.6, label=f"{label}: stops in "
                   f"{r['vehicle.car.X'][stop] - r['vehicle.car.X'][0]:.1f} m")
    ax[0].set(ylabel="speed, km/h", title="Full-pedal braking from 100 km/h")
    ax[0].legend()
    for w in WHEELS:
        ax[1].plot(with_abs.time, with_abs[f"vehicle.car.{w}.spin"] * R * 3.6, lw=0.8, label=w)
        ax[2].plot(with_abs.time, with_abs[f"abs.{w}.brakePressureFactor"], lw=0.8, label=w)
    ax[1].plot(with_abs.time, with_abs["vehicle.car.speed"] * 3.6, "k--", lw=0.8, label="car")
    ax[1].set(ylabel="wheel speed (ABS), km/h")
    ax[1].legend(ncol=5, fontsize=7)
    ax[2].set(xlabel="time, s", ylabel="pressure factor")
    return _save(plt, fig, "abs_braking.png")


def split_mu(fmus) -> Path:
    system = ssp.SYSTEMS["split-mu"]
    r = ssp.master(system, fmus).run(system.stop_time, start_values=system.start_values,
                                     record=system.record)
    v = r["vehicle.car.speed"]
    stop = int(np.argmax(v < 0.1))
    plt, fig, ax = _figure(4)
    ax[0].plot(r["vehicle.car.X"][:stop + 1], -r["vehicle.car.Y"][:stop + 1])
    ax[0].axhline(0.0, color="k", lw=0.5)
    ax[0].set(xlabel="X, m", ylabel="left, m",
              title=f"Split-mu braking from 100 km/h (mu 1 left, 0.25 right): stops in "
                    f"{r['vehicle.car.X'][stop] - r['vehicle.car.X'][0]:.1f} m, lateral "
                    f"deviation {np.abs(r['vehicle.car.Y'][:stop + 1]).max():.2f} m")
    ax[1].plot(r.time, v * 3.6)
    ax[1].set(ylabel="speed, km/h")
    ax[2].plot(r.time, np.degrees(r["driver.steeringWheelAngle"]), label="steering wheel")
    ax[2].plot(r.time, np.degrees(r["vehicle.car.yaw"]) * 10, label="yaw x 10")
    ax[2].set(ylabel="deg")
    ax[2].legend()
    for w in WHEELS:
        ax[3].plot(r.time, r[f"abs.{w}.brakePressureFactor"], lw=0.8, label=w)
    ax[3].set(xlabel="time, s", ylabel="pressure factor")
    ax[3].legend(ncol=4, fontsize=7)
    return _save(plt, fig, "split_mu.png")


def _save(plt, fig, name: str) -> Path:
    path = OUT / name
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


RUNS = {"iso3888-2": iso3888_2, "abs": abs_braking, "split-mu": split_mu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help=f"any of {', '.join(RUNS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = [r for r in args.runs if r not in RUNS]
    if unknown:
        parser.error(f"unknown runs: {', '.join(unknown)}")
    OUT.mkdir(exist_ok=True)
    fmus = ssp.build_fmus(OUT)
    for name in args.runs or RUNS:
        print(RUNS[name](fmus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
