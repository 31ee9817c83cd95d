"""Closed-loop runs through the FMUs: the driver and ABS FMUs with the vehicle, in the master.

Three runs, each written as a plot into the output folder (``--out``, default out/; the FMUs
are built there first, but for those given with ``--vehicle``, ``--driver``, ``--abs``), and
each run's metrics printed as a table in display units (km/h, g, m, s, deg):

- ``iso3888-2``: the driver takes the ISO 3888-2 obstacle avoidance at 60 km/h; path vs
  course with the cones, speed, steering-wheel angle, path-tracking error.
- ``abs``: full-pedal braking from 100 km/h with the ABS and with locked wheels; speeds,
  wheel speeds, brake pressure factors.
- ``split-mu``: the driver's emergency stop from 100 km/h, friction 1 on the left wheels and
  0.25 on the right, with the ABS; path, speeds, steering, pressure factors.

    python examples/closed_loop.py [iso3888-2|abs|split-mu ...] [--out FOLDER]
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
G = 9.80665                               # m/s^2 per g, for display
WHEELS = [f"axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]
R = rolling_radius(engine.load_event())   # the default car's rolling radius at rest, m


def _figure(rows: int):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(rows, 1, figsize=(9, 2.6 * rows), constrained_layout=True)
    return plt, fig, axes


def _stop(r) -> int:
    """The index of the first sample below 0.1 m/s (the last one if the car never stops)."""
    slow = r["vehicle.car.speed"] < 0.1
    return int(np.argmax(slow)) if slow.any() else len(slow) - 1


def _braking_metrics(r, prefix: str = "") -> list:
    """Stopping distance (along X), time and mean deceleration from the first sample (to the
    end of the run, and the speed there, if the car does not stop)."""
    stop = _stop(r)
    v = r["vehicle.car.speed"]
    t = r.time[stop] - r.time[0]
    out = [(f"{prefix}stopping distance", r["vehicle.car.X"][stop] - r["vehicle.car.X"][0], "m"),
           (f"{prefix}stopping time", t, "s"),
           (f"{prefix}mean deceleration", (v[0] - v[stop]) / t / G if t > 0 else float("nan"),
            "g")]
    if v[stop] >= 0.1:
        out.append((f"{prefix}not stopped: speed at the end", v[stop] * 3.6, "km/h"))
    return out


def metrics_table(title: str, metrics: list) -> str:
    """``metrics`` (name, value, display unit) as a small fixed-width table under ``title``."""
    width = max(len(name) for name, _, _ in metrics)
    lines = [title]
    for name, value, unit in metrics:
        shown = value if isinstance(value, str) else f"{value:10.3f}"
        lines.append(f"  {name:<{width}}  {shown:>10}  {unit}".rstrip())
    return "\n".join(lines)


def iso3888_2(fmus, out: Path = OUT):
    """The lane change: (plot path, metrics)."""
    system = ssp.SYSTEMS["lane-change"]
    r = ssp.master(system, fmus).run(120 / (60 / 3.6), start_values=system.start_values,
                                     record=system.record + ("vehicle.car.ay",))
    x, y, yaw = r["vehicle.car.X"], r["vehicle.car.Y"], r["vehicle.car.yaw"]
    lanes = check_lanes(iso3888_2_lanes(), x, y, yaw)
    on_course = (x > -5.0) & (x < 70.0)
    speed = r["vehicle.car.speed"][on_course] * 3.6
    metrics = [("body inside the lanes", "yes" if lanes.inside else "no", ""),
               ("least cone margin", lanes.margin, "m"),
               ("entry speed", speed[0], "km/h"),
               ("exit speed", speed[-1], "km/h"),
               ("peak lateral acceleration", np.abs(r["vehicle.car.ay"][on_course]).max() / G, "g"),
               ("peak steering-wheel angle",
                np.degrees(np.abs(r["driver.steeringWheelAngle"][on_course]).max()), "deg"),
               ("peak tracking error", np.abs(r["driver.lateralError"][on_course]).max(), "m")]
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
    return _save(plt, fig, out / "iso3888_2.png"), metrics


def abs_braking(fmus, out: Path = OUT):
    """Braking with the ABS and with locked wheels: (plot path, metrics)."""
    system = ssp.SYSTEMS["abs-braking"]
    with_abs = ssp.master(system, fmus).run(system.stop_time, start_values=system.start_values,
                                            record=system.record)
    locked_system = ssp.System("locked", "", ("vehicle",), system.start_values,
                               tuple(r for r in system.record if r.startswith("vehicle.")),
                               system.step_size, system.stop_time)
    locked = ssp.master(locked_system, fmus).run(
        system.stop_time, start_values=system.start_values, record=locked_system.record)
    metrics = _braking_metrics(with_abs, "ABS: ") + _braking_metrics(locked, "locked: ")
    plt, fig, ax = _figure(3)
    for r, label in ((with_abs, "ABS"), (locked, "locked")):
        v = r["vehicle.car.speed"]
        stop = _stop(r)
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
    return _save(plt, fig, out / "abs_braking.png"), metrics


def split_mu(fmus, out: Path = OUT):
    """Split-mu braking with the driver and the ABS: (plot path, metrics)."""
    system = ssp.SYSTEMS["split-mu"]
    r = ssp.master(system, fmus).run(system.stop_time, start_values=system.start_values,
                                     record=system.record)
    v = r["vehicle.car.speed"]
    stop = _stop(r)
    metrics = _braking_metrics(r) + [
        ("peak lateral deviation", np.abs(r["vehicle.car.Y"][:stop + 1]).max(), "m"),
        ("peak yaw", np.degrees(np.abs(r["vehicle.car.yaw"][:stop + 1]).max()), "deg"),
        ("peak steering-wheel angle",
         np.degrees(np.abs(r["driver.steeringWheelAngle"][:stop + 1]).max()), "deg")]
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
    return _save(plt, fig, out / "split_mu.png"), metrics


def _save(plt, fig, path: Path) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


RUNS = {"iso3888-2": iso3888_2, "abs": abs_braking, "split-mu": split_mu}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help=f"any of {', '.join(RUNS)} (default: all)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="folder for the plots and the FMUs built (default: out/)")
    for name in ssp.FMU_KINDS:
        parser.add_argument(f"--{name}", default=None, metavar="FMU",
                            help=f"the {name} FMU to use (default: built into --out)")
    args = parser.parse_args(argv)
    unknown = [r for r in args.runs if r not in RUNS]
    if unknown:
        parser.error(f"unknown runs: {', '.join(unknown)}")
    args.out.mkdir(exist_ok=True)
    fmus = ssp.build_fmus(args.out, given={name: getattr(args, name) for name in ssp.FMU_KINDS})
    for name in args.runs or RUNS:
        path, metrics = RUNS[name](fmus, args.out)
        print(metrics_table(f"{name} ({path}):", metrics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
