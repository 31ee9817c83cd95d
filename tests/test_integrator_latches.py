"""The integrator's latched block (engine.integrator.advance): the collision block (the vertices'
memories and entry faces, the pairs' contacts, the wheels' damage sets) is copied to the stages
and to the last good state only as far as a boundary's latches changed it (none of it, the
units' own states at its start, or all of it). A step that fails at its boundary
restores the last good state whole, the block as latched at that state's boundary: the sedan
into a wall with tires that cannot take the crash's load fails during the crush (its memories
growing every step), and the state it is left at is, bit for bit, the same run's stopped at
the last good time with that boundary's latches taken.
"""
from __future__ import annotations

import json
from pathlib import Path

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
    y, span = _boundary(at_good)
    grown = np.count_nonzero(y[block:] != at_good.y[block:])
    print(f"failed after t = {t_good} s: {err.value}; the block's {grown} states latched at "
          f"that boundary")
    # the boundary changed the memories: the whole block had to be copied
    assert span == y.size - block and grown > 0
    assert np.array_equal(failing.y, y)


def _boundary(sim):
    """The state of ``sim`` with the latches of its next step boundary taken, as
    engine.integrator.advance takes them, and the span of the collision block, from its start,
    that boundary_latches says they changed: the first stage's collision pass latches the
    memories as it goes (W.clock[1]), its derivative the rest (a rigid steering's angle, the
    tires' turning points); then the contacts and the wheels' damage
    (engine.collision.boundary_latches)."""
    y = sim.y.copy()
    P, U, W = sim.model, sim._inputs, sim._scratch
    block = sim.layout.at("collision")
    latch_attitude(y, P, W)
    synchronize_frames(y, P, W)
    W.latched[:] = y
    W.clock[:] = sim.time, 1.0
    derivatives(y, np.zeros_like(y), U, P, False, sim._outputs, np.zeros(2, dtype=np.int64), W)
    W.clock[1] = 0.0
    y[:block] = W.latched[:block]
    span, _ = boundary_latches(y, sim.time, P, W)
    return y, span


def _pushing():
    """Two cars in sustained contact, the first in gear pushing the second, braked, ahead of it
    (benchmarks/collision.py's scene)."""
    from engine.setup.event import TWO_CARS_EVENT
    data = json.loads(Path(TWO_CARS_EVENT).read_text())
    car, car2 = data["units"]
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 2.0}
    car2["initial"] = {"X": car["dimensions"]["length"] + 0.5, "Y": 0.0, "yaw": 0.0, "speed": 0.0}
    data.setdefault("simulation", {}).setdefault("collisions", {}).update(
        {"vehicle_start_time": 0.0})
    sim = engine.Simulation(engine.load_event(data), warn=False)
    sim.u_unit[:, L.IU_GEAR] = 1
    sim.u_unit[0, L.IU_THROTTLE] = 0.3
    sim.u_unit[1, L.IU_BRAKE] = 400.0
    return sim


def test_a_boundary_names_the_part_of_the_block_its_latches_changed():
    """The pushing scene: at every boundary the states of the collision block that the
    latches changed lie within the span boundary_latches returns, which the integrator copies
    to its stages and its last good state. While the push holds, most boundaries move only the
    units' own states (the contact episode's latest time): the span is then those."""
    sim = _pushing()
    block = sim.layout.at("collision")
    units = L.N_COLL_UNIT_STATE * 2
    whole = sim.y.size - block
    h = sim.step_size
    spans = {0: 0, units: 0, whole: 0}
    for k in range(1, 1200):
        sim.advance(round(k * h, 9))
        y, span = _boundary(sim)
        changed = np.nonzero(y[block:] != sim.y[block:])[0]
        assert span in spans
        assert changed.size == 0 or changed.max() < span, (sim.time, span, changed.max())
        spans[span] += 1
    print(f"boundaries: {spans[0]} changed nothing of the block, {spans[units]} the units' "
          f"states only, {spans[whole]} the memories")
    assert spans[units] > 0.5 * sum(spans.values()) and spans[whole] > 0 and spans[0] > 0


def test_calls_of_many_steps_run_as_calls_of_one():
    """The pushing scene advanced in calls of ten steps (10 ms) and in calls of one: the same
    states at every 10 ms. A call copies the whole block at its first step only; at its later
    steps it copies what each boundary changed (the units' states, or the whole block where a
    memory grew), so a span copied short or to the wrong place would show as other forces.
    The contact episode's times (T0, T1) are the boundary's time, t0 + k h of the call, which
    rounds differently in the two: they are compared to 1e-12 s."""
    many, one = _pushing(), _pushing()
    h = one.step_size
    times = [i for i, name in enumerate(one.state_names)
             if name.endswith((".collision.T0", ".collision.T1"))]
    exact = np.ones(one.y.size, dtype=bool)
    exact[times] = False
    block = many.layout.at("collision")
    grown = 0
    for k in range(1, 121):
        before = many.y.copy()
        many.advance(round(k * 10 * h, 9))
        for j in range(10):
            one.advance(round(((k - 1) * 10 + j + 1) * h, 9))
        grown += np.count_nonzero(many.y[block:] != before[block:])
        assert np.array_equal(many.y[exact], one.y[exact]), (k, np.nonzero(many.y != one.y)[0])
        assert np.allclose(many.y[times], one.y[times], rtol=0.0, atol=1e-12)
    assert many.y_unit[0, L.YU_COLL_CONTACT] == 1.0 and grown > 0
