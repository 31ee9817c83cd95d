"""Suspension geometry of Eq. 61-63 on the whole car (engine), against symmetry."""
from __future__ import annotations

import json

import numpy as np

import engine
from engine.signals import UNIT_INPUTS, UNIT_OUTPUTS

BASE = json.loads(engine.load_event().to_json())


def _event(**suspension):
    data = json.loads(json.dumps(BASE))
    for axle in data["units"][0]["axles"]:
        axle["suspension"].update(suspension)
    return engine.load_event(data)


def _brake_pulses(event, t_end=2.0, h=0.01):
    """20 m/s straight ahead with brake pulses: the body heaves and pitches, no roll."""
    sim = engine.Simulation(event, initial={"car": {"speed0": 20.0}})
    ib = UNIT_INPUTS.index("brakePedalForce")
    iy, ipsi = UNIT_OUTPUTS.index("Y"), UNIT_OUTPUTS.index("yaw")
    ys, yaws = [], []
    for n in range(round(t_end / h)):
        sim.u_unit[0, ib] = 150.0 if (n * h) % 0.5 < 0.25 else 0.0
        sim.advance((n + 1) * h)
        ys.append(sim.y_unit[0, iy])
        yaws.append(sim.y_unit[0, ipsi])
    return np.array(ys), np.array(yaws)


def test_bump_steer_in_pure_heave_is_a_toe_change():
    """One polynomial per axle (Eq. 63) is mirrored left/right: heave and pitch toe the wheels
    in or out together and the car goes straight (it drifted 6 cm in 2 s when both wheels
    steered the same way)."""
    y, yaw = _brake_pulses(_event(bump_steer=[0.002, 0.05, 0.0, 0.0]))
    assert np.abs(y).max() < 1e-9 and np.abs(yaw).max() < 1e-9


def test_bump_steer_per_side_steers_the_car():
    """{"left": p, "right": p} (both in the vehicle's steer sign) steers both wheels right:
    front and rear alike, the car crabs to the right (Y +), as the old single polynomial did."""
    p = [0.002, 0.0, 0.0, 0.0]
    y, yaw = _brake_pulses(_event(bump_steer={"left": p, "right": p}))
    assert y[-1] > 0.02
