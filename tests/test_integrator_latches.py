"""The integrator's latched block (engine.integrator.advance): the collision block (the vertices'
memories, the pairs' faces, the wheels' damage sets) is copied to the stages and to the last
good state only at a boundary whose latches changed it. A step that fails at its boundary
restores the last good state whole, the block as latched at that state's boundary: the sedan
into a wall with tires that cannot take the crash's load fails during the crush (its memories
growing every step), and the state it is left at is, bit for bit, the same run's stopped at
the last good time with that boundary's latches taken.
"""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.collision import boundary_latches
from engine.vehicle import derivatives, latch_attitude, synchronize_frames
from support.fixtures import barrier_event

SPEED = 15.0            # m/s into the wall, 1 m ahead of the car's front
#: m: the tires' limit (the sedan's 0.1 m, its second stiffness from 0.05 m), which the front
#: tires pass as the car dives into the wall (static 0.0185 m; they fail at 0.098 s, the
#: front pressed into the wall with 590 kN)
MAX_DEFLECTION, SECONDARY = 0.019, 0.0188


def _sim():
    data = barrier_event()
    for tire in data["units"][0]["tires"].values():
        tire["max_deflection"] = MAX_DEFLECTION
        tire["secondary_stiffness_deflection"] = SECONDARY
    data["units"][0]["initial"]["speed"] = SPEED
    data.setdefault("simulation", {})["tire_limit"] = "stop"    # a tire beyond it: a failure
    sim = engine.Simulation(engine.load_event(data), warn=False)
    sim.u_unit[0, L.IU_GEAR] = 0
    return sim


def test_a_step_failing_in_a_crush_leaves_the_last_good_state_whole():
    failing = _sim()
    with pytest.raises(engine.SimulationError) as err:
        failing.advance(0.5)
    t_good = failing.time
    block = failing.layout.at("collision")
    # the failure came while the front was crushing: its memories grew at every boundary
    assert "tire deflection exceeds" in str(err.value)
    assert failing.y_unit[0, L.YU_COLL_CONTACT] == 1.0 and failing.y_unit[0, L.YU_COLL_FX] < 0.0
    # the last good state is the one at t_good with that boundary's latches taken: the state
    # of the run stopped at t_good once the boundary's latches (engine.integrator.advance's
    # first calls, the first stage's, then engine.collision.boundary_latches) are taken on it
    at_good = _sim()
    at_good.advance(t_good)
    y = at_good.y.copy()
    P, U, W = at_good.model, at_good._inputs, at_good._scratch
    latch_attitude(y, P, W)
    synchronize_frames(y, P, W)
    # the first stage's: its collision pass latches the memories as it goes (W.clock[1]), the
    # derivative the rest (a rigid steering's angle, the tires' turning points); then the
    # contacts and the wheels' damage
    W.latched[:] = y
    W.clock[:] = t_good, 1.0
    derivatives(y, np.zeros_like(y), U, P, False, at_good._outputs, np.zeros(2, dtype=np.int64), W)
    W.clock[1] = 0.0
    y[:block] = W.latched[:block]
    changed, _ = boundary_latches(y, t_good, P, W)
    grown = np.count_nonzero(y[block:] != at_good.y[block:])
    print(f"failed after t = {t_good} s: {err.value}; the block's {grown} states latched at "
          f"that boundary")
    assert changed and grown > 0    # the boundary changed the block: it had to be copied
    assert np.array_equal(failing.y, y)
