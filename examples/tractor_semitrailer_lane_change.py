"""Open-loop single lane change of the reference tractor-semitrailer, through the FMU with fmpy.

The combination runs at 80 km/h in the gear that suits that speed (see :func:`cruise_gear`);
the steering wheel makes one period of a sine, sized so that the tractor ends one lane width
(3.5 m) to the right, while a speed loop on ``tractor.speed`` holds the throttle. The FMU is
stepped by fmpy's FMU2Slave so that the throttle can be computed at every communication step.

Plots the paths of the tractor's front axle centre and of the trailer's tridem centre, the
articulation angle, both yaw rates, the lateral accelerations and the off-tracking (the lateral
distance of the tridem centre's path from the front axle's path, against the distance along
that path). Writes out/tractor-semitrailer-lane-change.csv and .png and prints the peaks.

    python examples/tractor_semitrailer_lane_change.py [--fmu out/SimonTractorSemitrailer.fmu]
"""
from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT  # noqa: E402
from engine.setup.payload import sprung_properties  # noqa: E402
from simon_fmu.controllers.vehicle_data import (rolling_radius, understeer_gradient,  # noqa: E402
                                                unit_data)

SPEED = 80.0 / 3.6          # m/s
LANE = 3.5                  # lateral offset of the lane change, m
AY_TARGET = 0.18            # peak lateral acceleration of the tractor the sine is sized for, g
START = 2.0                 # the steering starts here (the speed loop settles before), s
STOP_TIME = 12.0            # s
STEP = 0.01                 # communication step, s
KP, KI = 2.0, 1.0           # speed loop: throttle per m/s of speed error, per m of distance error
OUTPUTS = ["tractor.X", "tractor.Y", "tractor.yaw", "tractor.r", "tractor.ay", "tractor.speed",
           "trailer.X", "trailer.Y", "trailer.yaw", "trailer.r", "trailer.ay",
           "trailer.articulation", "trailer.hitch.Fx", "trailer.hitch.Fy", "trailer.hitch.Fz"]


def cruise_gear(event, speed: float) -> int:
    """The highest gear in which the engine turns at least at the lowest speed of its full
    torque at ``speed`` (m/s): the engine is not lugged and keeps the full torque in reserve.

    Engine speed = speed / r * transmission ratio * differential ratio, r the driven wheels'
    rolling radius at static equilibrium."""
    dt = unit_data(event, "tractor").drivetrain
    wot = np.asarray(dt.engine_wot_torque, float)
    full_torque_rpm = wot[np.argmax(wot[:, 1]), 0]
    wheel_rate = speed / rolling_radius(event, "tractor", driven_only=True)
    rpm = [wheel_rate * ratio * dt.differential_ratio * 30 / math.pi
           for ratio in dt.transmission_ratios]
    gears = [k + 1 for k, n in enumerate(rpm) if full_torque_rpm <= n <= wot[-1, 0]]
    if not gears:
        raise ValueError(f"no gear puts the engine between {full_torque_rpm:.0f} and "
                         f"{wot[-1, 0]:.0f} rpm at {speed:.1f} m/s")
    return max(gears)


def first_amplitude(event, speed: float, period: float) -> float:
    """Steering-wheel amplitude (rad) of a one-period sine for a lane change of LANE m.

    A sine of lateral acceleration a sin(2 pi t / T) moves the vehicle a T^2 / (2 pi)
    sideways; the steady-state bicycle model of the tractor (its front axle to the middle of
    its drive axles, understeer gradient K) gives the road-wheel angle for a:
    delta = (L / v^2 + K) a. The lane change then corrects it on the measured offset."""
    tractor = unit_data(event, "tractor")
    xs = [a.x for a in tractor.axles]
    front = [a.x for a in tractor.axles if a.steered][0]
    rear = np.mean([x for x, a in zip(xs, tractor.axles) if not a.steered])
    ay = LANE * 2 * math.pi / period ** 2
    delta = ((front - rear) / speed ** 2 + understeer_gradient(event, "tractor")) * ay
    return delta * tractor.steering.gear_ratio


def period_for(ay_g: float, gravity: float) -> float:
    """The sine's period (s) for a lane change of LANE m at a peak of ``ay_g`` g."""
    return math.sqrt(LANE * 2 * math.pi / (ay_g * gravity))


def simulate(fmu: Path, amplitude: float, period: float, gear: int, stop_time: float = STOP_TIME,
             start: float = START, speed: float = SPEED) -> np.ndarray:
    """One run: the steering-wheel sine of ``amplitude`` (rad) and ``period`` (s) from
    ``start``, the throttle from a PI loop on tractor.speed; the outputs at every step."""
    import fmpy
    from fmpy.fmi2 import FMU2Slave
    md = fmpy.read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzipped = fmpy.extract(str(fmu))
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipped,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="truck")
    slave.instantiate()
    try:
        slave.setupExperiment(startTime=0.0)
        slave.enterInitializationMode()
        slave.setReal([vr["tractor.speed0"]], [speed])
        slave.exitInitializationMode()
        slave.setInteger([vr["tractor.gear"]], [gear])
        out_refs = [vr[n] for n in OUTPUTS]
        n = int(round(stop_time / STEP))
        rows = np.zeros((n + 1, 3 + len(OUTPUTS)))
        distance_error = 0.0
        for k in range(n + 1):
            t = k * STEP
            values = slave.getReal(out_refs)
            error = speed - values[OUTPUTS.index("tractor.speed")]
            throttle = min(max(KP * error + KI * distance_error, 0.0), 1.0)
            phase = (t - start) / period
            steer = amplitude * math.sin(2 * math.pi * phase) if 0.0 < phase < 1.0 else 0.0
            rows[k] = [t, steer, throttle, *values]
            if k == n:
                break
            slave.setReal([vr["tractor.steeringWheelAngle"], vr["tractor.throttle"]],
                          [steer, throttle])
            slave.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)
            distance_error += error * STEP
        slave.terminate()
    finally:
        slave.freeInstance()
        shutil.rmtree(unzipped, ignore_errors=True)
    names = ["time", "tractor.steeringWheelAngle", "tractor.throttle"] + OUTPUTS
    return np.rec.fromarrays(rows.T, names=names)


def axle_point(result, event, unit: str, steered: bool) -> np.ndarray:
    """Earth X, Y (m, plan view) of the middle of the unit's steered axles (``steered``) or of
    its other axles, from the unit's CG position and yaw and the axles' x from the CG
    (payloads shift the CG: Eq. 43)."""
    u = unit_data(event, unit)
    xs = [a.x for a in u.axles if a.steered == steered]
    x = float(np.mean(xs)) - sprung_properties(u).delta[0]
    yaw = result[f"{unit}.yaw"]
    return np.column_stack([result[f"{unit}.X"] + x * np.cos(yaw),
                            result[f"{unit}.Y"] + x * np.sin(yaw)])


def off_tracking(leader: np.ndarray, follower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Station along the ``leader`` path (m, from its first point) and the signed lateral
    distance (m, right of the path +) of each ``follower`` point from that path; NaN where the
    follower's nearest point is not within the path."""
    seg = np.diff(leader, axis=0)
    length = np.hypot(seg[:, 0], seg[:, 1])
    keep = length > 1e-9
    a, seg, length = leader[:-1][keep], seg[keep], length[keep]
    station0 = np.concatenate([[0.0], np.cumsum(length)[:-1]])
    d = follower[:, None, :] - a[None, :, :]
    s = np.einsum("ijk,jk->ij", d, seg) / length ** 2
    inside = (s >= 0) & (s <= 1)
    foot = a[None] + np.clip(s, 0, 1)[..., None] * seg[None]
    dist = np.where(inside, np.hypot(*(follower[:, None, :] - foot).transpose(2, 0, 1)), np.inf)
    j = np.argmin(dist, axis=1)
    rows = np.arange(len(follower))
    found = np.isfinite(dist[rows, j])
    tangent, offset = seg[j], d[rows, j]
    lateral = (tangent[:, 0] * offset[:, 1] - tangent[:, 1] * offset[:, 0]) / length[j]   # Y right +
    station = station0[j] + np.clip(s[rows, j], 0, 1) * length[j]
    return np.where(found, station, np.nan), np.where(found, lateral, np.nan)


def peaks(result, offtrack) -> dict:
    """The peak values of the run (SI units, angles in rad)."""
    tractor_ay = np.max(np.abs(result["tractor.ay"]))
    trailer_ay = np.max(np.abs(result["trailer.ay"]))
    return {
        "articulation": float(np.max(np.abs(result["trailer.articulation"]))),
        "tractor_yaw_rate": float(np.max(np.abs(result["tractor.r"]))),
        "trailer_yaw_rate": float(np.max(np.abs(result["trailer.r"]))),
        "off_tracking": float(np.nanmax(np.abs(offtrack))) if np.isfinite(offtrack).any() else 0.0,
        "tractor_ay": float(tractor_ay),
        "trailer_ay": float(trailer_ay),
        "rearward_amplification": float(trailer_ay / tractor_ay) if tractor_ay > 0 else float("nan"),
        "lateral_offset": float(result["tractor.Y"][-1] - result["tractor.Y"][0]),
        "final_speed": float(result["tractor.speed"][-1]),
    }


def plot(result, front, tridem, station, offtrack, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = result["time"]
    fig, ax = plt.subplots(3, 2, figsize=(12, 10))
    ax[0, 0].plot(front[:, 0], front[:, 1], label="tractor front axle")
    ax[0, 0].plot(tridem[:, 0], tridem[:, 1], "--", label="trailer tridem centre")
    ax[0, 0].invert_yaxis()
    ax[0, 0].legend()
    ax[0, 0].set(xlabel="X (m)", ylabel="Y (m, right +)", title="paths (earth-fixed)")
    ax[0, 1].plot(t, np.degrees(result["tractor.steeringWheelAngle"]), label="steering wheel (deg)")
    ax[0, 1].plot(t, 100 * result["tractor.throttle"], label="throttle (%)")
    ax[0, 1].plot(t, result["tractor.speed"] * 3.6, label="tractor speed (km/h)")
    ax[0, 1].legend()
    ax[0, 1].set(xlabel="t (s)", title="driver")
    ax[1, 0].plot(t, np.degrees(result["trailer.articulation"]))
    ax[1, 0].set(xlabel="t (s)", ylabel="articulation (deg)", title="articulation angle")
    ax[1, 1].plot(t, np.degrees(result["tractor.r"]), label="tractor")
    ax[1, 1].plot(t, np.degrees(result["trailer.r"]), label="trailer")
    ax[1, 1].legend()
    ax[1, 1].set(xlabel="t (s)", ylabel="yaw rate (deg/s)", title="yaw rates")
    ax[2, 0].plot(t, result["tractor.ay"], label="tractor")
    ax[2, 0].plot(t, result["trailer.ay"], label="trailer")
    ax[2, 0].legend()
    ax[2, 0].set(xlabel="t (s)", ylabel="ay (m/s^2)", title="lateral acceleration")
    ax[2, 1].plot(station, offtrack)
    ax[2, 1].set(xlabel="distance along the front axle's path (m)",
                 ylabel="off-tracking (m, right +)",
                 title="tridem centre's path from the front axle's path")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def lane_change(fmu: Path, out: Path, stop_time: float = STOP_TIME, start: float = START,
                iterations: int = 3, speed: float = SPEED) -> dict:
    """The lane change: sizes the sine for the tractor's lateral offset to be LANE m at the
    end (``iterations`` runs, scaling the amplitude by the offset it missed by), writes the
    csv and png under ``out`` and returns the peaks (:func:`peaks`) of the last run."""
    event = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    gear = cruise_gear(event, speed)
    period = period_for(AY_TARGET, event.model.environment.gravity)
    amplitude = first_amplitude(event, speed, period)
    for k in range(max(iterations, 1)):
        result = simulate(fmu, amplitude, period, gear, stop_time, start, speed)
        offset = result["tractor.Y"][-1] - result["tractor.Y"][0]
        if k + 1 < iterations and abs(offset) > 1e-3:
            amplitude *= LANE / offset
    front = axle_point(result, event, "tractor", steered=True)
    tridem = axle_point(result, event, "trailer", steered=False)
    station, offtrack = off_tracking(front, tridem)
    out.mkdir(parents=True, exist_ok=True)
    names = result.dtype.names
    extra = ["front.X", "front.Y", "tridem.X", "tridem.Y", "offtracking.station", "offtracking"]
    import fmpy

    from simon_fmu.studies import tables
    units = tables.variable_units(fmpy.read_model_description(str(fmu)))   # SI, a units row
    tables.write_csv(out / "tractor-semitrailer-lane-change.csv", list(names) + extra,
                     [units[n] for n in names] + ["m"] * len(extra),
                     [result[n] for n in names] + [*front.T, *tridem.T, station, offtrack])
    found = peaks(result, offtrack)
    found.update(gear=gear, amplitude=amplitude, period=period)
    plot(result, front, tridem, station, offtrack, out / "tractor-semitrailer-lane-change.png",
         f"tractor-semitrailer lane change at {speed * 3.6:.0f} km/h, gear {gear}: "
         f"steering wheel {math.degrees(amplitude):.1f} deg, period {period:.2f} s")
    return found


def built(fmu: Path) -> Path:
    """``fmu``, built from the reference tractor-semitrailer event first if it is missing."""
    if not fmu.exists():
        fmu.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "simon_fmu", "build", TRACTOR_SEMITRAILER_EVENT,
                        "-o", str(fmu)], check=True)
    return fmu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", type=Path, default=ROOT / "out" / "SimonTractorSemitrailer.fmu")
    parser.add_argument("--out", type=Path, default=ROOT / "out")
    args = parser.parse_args(argv)
    out = args.out
    p = lane_change(built(args.fmu), out)
    print(f"lane change at {SPEED * 3.6:.0f} km/h in gear {p['gear']}: steering wheel "
          f"{math.degrees(p['amplitude']):.1f} deg over {p['period']:.2f} s, tractor lateral "
          f"offset {p['lateral_offset']:.2f} m, final speed {p['final_speed'] * 3.6:.1f} km/h")
    print(f"peaks: articulation {math.degrees(p['articulation']):.2f} deg, yaw rate tractor "
          f"{math.degrees(p['tractor_yaw_rate']):.2f} deg/s, trailer "
          f"{math.degrees(p['trailer_yaw_rate']):.2f} deg/s, off-tracking {p['off_tracking']:.3f} m, "
          f"ay tractor {p['tractor_ay']:.2f} m/s^2, trailer {p['trailer_ay']:.2f} m/s^2, "
          f"rearward amplification {p['rearward_amplification']:.2f}")
    print(f"wrote {out / 'tractor-semitrailer-lane-change.csv'} and "
          f"{out / 'tractor-semitrailer-lane-change.png'}")


if __name__ == "__main__":
    main()
