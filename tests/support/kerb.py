"""A severe event for the integrator's sub-steps (engine.integrator; docs/equations.md, "Sub-steps
in severe events"): the reference sedan sliding at 28.5 m/s, 9 m/s sideways, into a 0.356 m
kerb along X, steered in a fishhook and braked. Found by a severe-event fuzz of the engine:
its outcome at Heun's largest step (1.4 ms) was a car that stays upright, where every finer
step rolls it over two turns and more.

From the repository root, with ``tests`` on ``sys.path``: ``from support.kerb import ...``.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import engine
from support.roads import polygon_obj

#: the kerb's face: along X at earth Y = KERB_Y, KERB_HEIGHT high (the road beyond it higher)
KERB_Y, KERB_HEIGHT = 1.71, 0.356
#: the run's length, s, and the communication step the inputs are held over, s
DURATION, HOLD = 3.37, 0.01
#: the fishhook: from STEER_T0 at STEER_RATE to STEER_AMP, from STEER_T1 back towards
#: STEER_AMP2 (steering-wheel angle, rad); the brake pedal's force BRAKE (N) from BRAKE_T0
STEER_AMP, STEER_AMP2, STEER_T0, STEER_T1, STEER_RATE = 3.6499, -2.3399, 0.4024, 1.2240, 5.0
BRAKE, BRAKE_T0 = 4056.2, 0.707


def kerb_event(folder: Path, integrator: str, step: float, substeps: int = 1) -> dict:
    """The event, its road written to ``folder``/kerb.obj (the event names it relative to
    ``folder``)."""
    x0, x1, y0, y1, h = -15.0, 140.0, -30.0, 30.0, KERB_HEIGHT
    polygon_obj(Path(folder) / "kerb.obj", [
        [(x0, y0, 0.0), (x1, y0, 0.0), (x1, KERB_Y, 0.0), (x0, KERB_Y, 0.0)],
        [(x0, KERB_Y, -h), (x1, KERB_Y, -h), (x1, y1, -h), (x0, y1, -h)],
        [(x0, KERB_Y, 0.0), (x0, KERB_Y, -h), (x1, KERB_Y, -h), (x1, KERB_Y, 0.0)]])
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["initial"].update(speed=28.54, v=9.02)
    data["environment"]["terrain"] = {"type": "mesh", "file": "kerb.obj"}
    data["simulation"].update(integrator=integrator, step_size=step, substeps=substeps)
    return data


def steer(t: float) -> float:
    """The steering-wheel angle at time t, rad."""
    if t < STEER_T0:
        return 0.0
    if t < STEER_T1:
        return min(STEER_AMP, STEER_RATE * (t - STEER_T0))
    return max(STEER_AMP - STEER_RATE * (t - STEER_T1), STEER_AMP2)


def brake(t: float) -> float:
    """The brake pedal's force at time t, N."""
    return BRAKE if t >= BRAKE_T0 else 0.0


def drive(sim):
    """The fishhook and the brake on the car of ``sim``, held over each HOLD until DURATION:
    sets each communication step's inputs and yields its end (the caller advances to it)."""
    ui = {n: i for i, n in enumerate(engine.UNIT_INPUTS)}
    for k in range(int(round(DURATION / HOLD))):
        t = k * HOLD
        sim.u_unit[0, ui["steeringWheelAngle"]] = steer(t)
        sim.u_unit[0, ui["brakePedalForce"]] = brake(t)
        yield round((k + 1) * HOLD, 10)


def run(data: dict, folder: Path) -> dict:
    """The event in the engine, its inputs held over each HOLD: every HOLD the car's X, speed
    and roll unwrapped (rad), as arrays."""
    sim = engine.Simulation(engine.load_event(data, base=folder))
    uo = {n: i for i, n in enumerate(engine.UNIT_OUTPUTS)}
    rows = []
    for t_end in drive(sim):
        sim.advance(t_end)
        y = sim.y_unit[0]
        rows.append((y[uo["X"]], y[uo["speed"]], y[uo["roll"]]))
    X, speed, roll = np.array(rows).T
    return {"X": X, "speed": speed, "roll": np.unwrap(roll)}


def solver_run(folder, substeps: int = 16, check: bool = False):
    """The kerb strike at Heun's largest step (1.4 ms) with ``substeps``: every HOLD the outputs
    ``y_solver`` (steps split, most sub-steps of one) and, with ``check``, whether the same
    communication step taken from the same state without sub-steps (the packed
    simulation.substeps set to 1 for it) ends in the same state to the bit."""
    from engine.layout import E_SUBSTEPS
    data = kerb_event(folder, "rk2", 1.4e-3, substeps)
    sim = engine.Simulation(engine.load_event(data, base=folder))
    rows, same = [], []
    for t_end in drive(sim):
        if check:
            before = sim.get_state()
            sim.model.P_ENV[E_SUBSTEPS] = 1.0
            sim.advance(t_end)
            fixed = sim.y.copy()
            sim.model.P_ENV[E_SUBSTEPS] = substeps
            sim.set_state(before)
        sim.advance(t_end)
        rows.append(sim.y_solver[0].copy())
        if check:
            same.append(bool(np.array_equal(fixed, sim.y)))
    return np.array(rows), np.array(same)
