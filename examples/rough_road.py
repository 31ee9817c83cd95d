"""The reference sedan at 80 km/h on an ISO 8608 class B road, through the FMU with fmpy,
against the linear quarter car in closed form.

The road is ``python -m simon_fmu rough-road``'s (simon_fmu/tools/rough_road.py): class B, seed
1, repeating every 200 m, the same profile under both wheel tracks, 5 m of it behind the car's
CG at the start. The car starts on it at 80 km/h and drives in 4th gear at a constant throttle
(which holds about 80 km/h); after 2 s it drives one period of the road (9 s), over which the
body's vertical acceleration (car.az) is compared with the front and rear quarter cars blended
at the CG (tests/support/quarter_car.py; docs/equations.md, "Rough roads (ISO 8608)").

The figure: the profile's spectrum (Welch, 100 m segments) against the ISO lines of classes A
to D; car.az's spectrum against the quarter cars' |H|^2 Gd / V, without and with the
suspension friction's equivalent damping; a second of car.az against the quarter cars'
history on the same road; the body's pitch acceleration against the linear pitch plane's.

Writes out/rough-road-B.crg, out/rough-road.json (the event), out/SimonRoughRoad.fmu,
out/rough-road.csv and out/rough-road.png, and prints the RMS values.

    python examples/rough_road.py [--class B] [--fmu out/SimonRoughRoad.fmu] [--rebuild]
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
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from simon_fmu.tools.rough_road import CLASSES, iso_psd, rough_road, write_crg  # noqa: E402
from support.quarter_car import (axle_corners, cg_response, pitch_plane_response,  # noqa: E402
                                 with_friction)
from support.sedan import A_S, B_S, WB, event_data  # noqa: E402

NAME = "rough-road"
SPEED = 80 / 3.6                    # m/s
PERIOD = 200.0                      # the road repeats every PERIOD m: the measuring window
SETTLE = 2.0                        # s before the window
START = 5.0                         # the road begins START m behind the CG (u = X + START)
LENGTH = 260.0                      # m of road
SEED = 1
GEAR, THROTTLE = 4, 0.22            # hold about 80 km/h
STEP = 0.005                        # communication step, s
OUTPUTS = ["car.X", "car.u", "car.az", "car.ax", "car.q"]


def write_event(out: Path, road_class: str) -> tuple[Path, object]:
    """Write the road and the event (the sedan on it) under ``out``; the event file and the
    road (simon_fmu.tools.rough_road.RoughRoad)."""
    road = rough_road(road_class, LENGTH, SEED, period=PERIOD)
    crg = write_crg(out / f"{NAME}-{road_class}.crg", road, LENGTH)
    data = event_data()
    data["name"] = NAME
    data["description"] = (f"the reference sedan on an ISO 8608 class {road_class} road "
                           "(examples/rough_road.py)")
    data["environment"]["terrain"] = {"type": "crg", "file": crg.name,
                                      "origin": [-START, 0.0, 0.0]}
    path = out / f"{NAME}.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path, road


def run(out: Path, fmu: Path, road_class: str = "B", rebuild: bool = False):
    """Write the road and event, build the FMU when missing (or ``rebuild``), run it for
    SETTLE s and one period of the road; returns (result, road)."""
    out.mkdir(parents=True, exist_ok=True)
    event_path, road = write_event(out, road_class)
    if rebuild or not fmu.exists():
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event_path), "-o",
                        str(fmu)], check=True)
    import fmpy
    stop = round(SETTLE + PERIOD / SPEED + 0.2, 2)
    columns = {"car.gear": np.full(2, GEAR, dtype=np.int32), "car.throttle": np.full(2, THROTTLE)}
    for v in fmpy.read_model_description(str(fmu)).modelVariables:
        if v.causality == "input" and v.name not in columns:      # the others at their start
            columns[v.name] = np.full(2, float(v.start))
    table = np.rec.fromarrays([np.array([0.0, stop]), *columns.values()],
                              names=["time", *columns])
    result = fmpy.simulate_fmu(str(fmu), stop_time=stop, output_interval=STEP, input=table,
                               output=OUTPUTS, start_values={"car.speed0": SPEED})
    names = result.dtype.names
    np.savetxt(out / f"{NAME}.csv", np.column_stack([result[n] for n in names]), delimiter=",",
               header=",".join(names), comments="")
    return result, road


def window(result):
    """The samples from SETTLE on while the CG covers one period of the road."""
    t, x = result["time"], result["car.X"]
    return (t >= SETTLE) & (x < np.interp(SETTLE, t, x) + PERIOD)


def figures(result, road):
    """The RMS values of the window: car.az measured and from the quarter cars (plain and with
    the friction's damping), the pitch acceleration measured (the derivative of car.q) and from
    the pitch plane, and the speed."""
    sel = window(result)
    speed = float(np.mean(result["car.u"][sel]))
    omega = 2 * math.pi * road.n * speed
    corners = [with_friction(c, road.n, road.amplitude, speed) for c in axle_corners()]
    pitch = (pitch_plane_response(omega, speed, A_S)
             - pitch_plane_response(omega, speed, -B_S)) / WB
    q_dot = np.gradient(result["car.q"], result["time"])[sel]

    def rms(h):
        return float(math.sqrt(np.sum(np.abs(h) ** 2 * road.amplitude ** 2) / 2))
    return {"speed": speed, "az": float(np.sqrt(np.mean(result["car.az"][sel] ** 2))),
            "linear": rms(cg_response(omega, speed)),
            "friction": rms(cg_response(omega, speed, corners)),
            "pitch": float(np.sqrt(np.mean(q_dot ** 2))), "pitch_plane": rms(pitch),
            "ax": float(np.std(result["car.ax"][sel])), "corners": corners}


def plot(result, road, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.signal import welch
    f = figures(result, road)
    speed, sel = f["speed"], window(result)
    fig, ax = plt.subplots(2, 2, figsize=(12, 8.5))
    # the profile: Welch over one period, 100 m segments, against the ISO lines
    du = 0.02
    z = road.elevation(np.arange(round(road.period / du)) * du)
    n, gz = welch(z, fs=1 / du, nperseg=round(100.0 / du))
    keep = (n >= road.band[0]) & (n <= road.band[1])
    ax[0, 0].loglog(n[keep], gz[keep], lw=0.8, label=f"class {road.road_class} profile (Welch)")
    band = np.geomspace(*road.band, 50)
    for name in CLASSES:
        ax[0, 0].loglog(band, iso_psd(band, name), "--", lw=1,
                        label=f"ISO 8608 class {name}, Gd(n0) = {CLASSES[name] * 1e6:g}e-6")
    ax[0, 0].set(xlabel="spatial frequency n (cycles/m)", ylabel="Gd (m^3)",
                 title="road profile: displacement PSD")
    ax[0, 0].legend(fontsize=8)
    # car.az: Welch of the window against |H(2 pi f)|^2 Gd(f / V) / V
    fs = 1 / STEP
    freq, gaz = welch(result["car.az"][sel], fs=fs, nperseg=round(3.0 * fs))
    nf = np.geomspace(road.band[0] * speed, min(road.band[1] * speed, fs / 2), 800)
    gd = iso_psd(nf / speed, road.road_class) / speed
    ax[0, 1].loglog(freq[1:], gaz[1:], lw=0.9, label="FMU car.az (Welch, 3 s segments)")
    ax[0, 1].loglog(nf, np.abs(cg_response(2 * math.pi * nf, speed)) ** 2 * gd, "--",
                    label=f"quarter cars, linear: rms {f['linear']:.3f} m/s^2")
    ax[0, 1].loglog(nf, np.abs(cg_response(2 * math.pi * nf, speed, f["corners"])) ** 2 * gd,
                    ":", lw=1.5,
                    label=f"with the friction's damping: rms {f['friction']:.3f} m/s^2")
    ax[0, 1].set(xlabel="frequency (Hz)", ylabel="(m/s^2)^2/Hz", xlim=(0.3, 100),
                 ylim=(1e-5, 1), title=f"car.az at {speed * 3.6:.1f} km/h: PSD "
                                       f"(FMU rms {f['az']:.3f} m/s^2)")
    ax[0, 1].legend(fontsize=8)
    # a second of the history, against the quarter cars' on the same road
    t, x = result["time"], result["car.X"]
    h = cg_response(2 * math.pi * road.n * speed, speed, f["corners"])
    shown = (t >= 6.0) & (t <= 7.0)
    u = x[shown] + A_S + START
    history = -np.real(np.exp(1j * (2 * math.pi * np.outer(u, road.n) + road.phase))
                       @ (road.amplitude * h))
    ax[1, 0].plot(t[shown], result["car.az"][shown], label="FMU car.az")
    ax[1, 0].plot(t[shown], history, "--", lw=1,
                  label="quarter cars (friction's damping), same road")
    ax[1, 0].set(xlabel="time (s)", ylabel="m/s^2 (z down)", title="car.az: a second of it")
    ax[1, 0].legend(fontsize=8)
    # pitch: measured against the linear pitch plane
    q_dot = np.gradient(result["car.q"], t)
    freq, gq = welch(q_dot[sel], fs=fs, nperseg=round(3.0 * fs))
    pitch = (pitch_plane_response(2 * math.pi * nf, speed, A_S)
             - pitch_plane_response(2 * math.pi * nf, speed, -B_S)) / WB
    ax[1, 1].loglog(freq[1:], gq[1:], lw=0.9,
                    label=f"FMU d(car.q)/dt: rms {f['pitch']:.3f} rad/s^2")
    ax[1, 1].loglog(nf, np.abs(pitch) ** 2 * gd, "--",
                    label=f"linear pitch plane, no friction: rms {f['pitch_plane']:.3f} "
                          f"rad/s^2")
    ax[1, 1].set(xlabel="frequency (Hz)", ylabel="(rad/s^2)^2/Hz", xlim=(0.3, 100),
                 ylim=(1e-5, 1), title=f"pitch acceleration: PSD (car.ax rms {f['ax']:.2f} "
                                       f"m/s^2)")
    ax[1, 1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return f


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="road_class", default="B", choices=list(CLASSES))
    parser.add_argument("--fmu", default=str(ROOT / "out" / "SimonRoughRoad.fmu"))
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--rebuild", action="store_true", help="build the FMU even when it exists")
    args = parser.parse_args(argv)
    out = Path(args.out)
    result, road = run(out, Path(args.fmu), args.road_class, rebuild=args.rebuild)
    f = plot(result, road, out / f"{NAME}.png")
    print(f"class {road.road_class} at {f['speed'] * 3.6:.1f} km/h: car.az rms {f['az']:.4f} "
          f"m/s^2; quarter cars {f['linear']:.4f} ({100 * (f['az'] / f['linear'] - 1):+.1f} %), with the "
          f"friction's damping {f['friction']:.4f} ({100 * (f['az'] / f['friction'] - 1):+.1f} %); "
          f"pitch acceleration rms {f['pitch']:.3f} rad/s^2, linear pitch plane "
          f"{f['pitch_plane']:.3f}; car.ax rms {f['ax']:.2f} m/s^2")
    print(f"wrote {out / (NAME + '.csv')} and {out / (NAME + '.png')}")


if __name__ == "__main__":
    main()
