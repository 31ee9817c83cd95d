"""The severe events of tests/test_severe_events_fmu.py, written once: the rollover of the
reference sedan (30 m/s on friction 1.5, steered 6 rad at the start) run through an FMU
instance, and the figures a reconstructionist reads from it (tools/measure_agreement.py
records them for the docs)."""
from __future__ import annotations

import math

import numpy as np

from engine.setup.collision import unit_box

from .frames import rotation
from .run import run
from .sedan import EV, G

WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
BODY = ("car.X", "car.Y", "car.Z", "car.roll", "car.pitch", "car.yaw", "car.u", "car.v", "car.w",
        "car.p", "car.q", "car.r", "car.speed", "car.collision.Fx", "car.collision.Fy",
        "car.collision.Fz", "car.collision.maxCrush")
SPINS = tuple(f"{w}.spin" for w in WHEELS)
#: the rollover: the FMU's parameters, its steering-wheel step at the start and its length
ROLLOVER = {"car.speed0": 30.0, "frictionMultiplier": 1.5}
ROLLOVER_STEER, ROLLOVER_TIME = 6.0, 14.0


def run_rollover(inst):
    """Run the rollover on a started-to-be instance (tests' Instance); its recorded outputs."""
    inst.start(ROLLOVER)
    inst.set("car.steeringWheelAngle", ROLLOVER_STEER)
    return run(inst, ROLLOVER_TIME, h=0.01, record=BODY + SPINS)


def deepest_corner(r):
    """Per sample, how far the body's deepest box corner is below the ground (Z = 0, down +)."""
    xf, xr, yh, zt, zb, yc = unit_box(EV)
    c = np.array([(x, y, z) for x in (xf, xr) for y in (yc - yh, yc + yh) for z in (zt, zb)])
    return np.array([r["car.Z"][i] + (c @ rotation(r["car.roll"][i], r["car.pitch"][i],
                                                   r["car.yaw"][i]).T)[:, 2].max()
                     for i in range(len(r["time"]))])


def rollover_figures(r) -> dict:
    """The trip (the roll first past 45 degrees), the rest (from when the speed stays below 0.1
    m/s), the quarter turns between, the path's length, the mean deceleration over that
    distance (the drag factor v^2 / (2 g d)) and over the time, the final roll, the largest
    crush and the body's box height."""
    t, roll = r["time"], r["car.roll"]
    trip = int(np.argmax(np.abs(roll) > math.radians(45.0)))
    rest = int(np.nonzero(r["car.speed"] >= 0.1)[0].max()) + 1
    path = float(np.hypot(np.diff(r["car.X"][trip:rest + 1]), np.diff(r["car.Y"][trip:rest + 1])).sum())
    v_trip = float(r["car.speed"][trip])
    xf, xr, yh, zt, zb, yc = unit_box(EV)
    return {"trip_s": float(t[trip]), "trip_speed_m_s": v_trip, "rest_s": float(t[rest]),
            "quarter_turns": int(abs(roll[rest] - roll[trip]) // (0.5 * math.pi)),
            "distance_m": path, "deceleration_g": v_trip ** 2 / (2.0 * path) / G,
            "deceleration_over_time_g": v_trip / (t[rest] - t[trip]) / G,
            "final_roll_deg": math.degrees(roll[-1]) % 360.0,
            "crush_m": float(r["car.collision.maxCrush"].max()), "box_height_m": zb - zt}
