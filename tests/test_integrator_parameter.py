"""The integration method chosen when the simulation is built (``engine.Simulation(integrator=)``,
the FMUs' parameter ``integrator``) in place of the event's ``simulation.integrator``.

The method itself is tested elsewhere (tests/test_step_convergence.py: each method's order of
accuracy against a run at a fine step). Here: the parameter gives exactly the run of an event
that names the method, bit for bit, in the engine; the range of the step follows the method
chosen; a method the engine does not have is refused naming the argument. The FMUs' side is in
tests/test_native_fmu.py, tests/test_native_events.py and tests/test_joint_step.py.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.layout import E_INTEGRATOR, INTEGRATOR_RK2, INTEGRATOR_RK4
from engine.signals import UNIT_INPUTS

STEER = UNIT_INPUTS.index("steeringWheelAngle")


def _event(method: str, step: float = 0.001):
    data = json.loads(engine.load_event().to_json())
    data["simulation"]["integrator"] = method
    data["simulation"]["step_size"] = step
    data["units"][0]["initial"]["speed"] = 25.0
    return engine.load_event(data)


def _lane_change(sim) -> np.ndarray:
    """The state every 10 ms through a steering-wheel step of 1.2 rad held for a second."""
    out = []
    for k in range(150):
        sim.u_unit[0, STEER] = 1.2 if 20 <= k < 120 else 0.0
        sim.advance((k + 1) * 0.01)
        out.append(sim.y.copy())
    return np.array(out)


def test_the_parameter_runs_the_event_of_that_method_to_the_bit():
    by_event = engine.Simulation(_event("rk2"), warn=False)
    by_parameter = engine.Simulation(_event("rk4"), integrator="rk2", warn=False)
    rk4 = engine.Simulation(_event("rk4"), warn=False)
    assert by_parameter.integrator == "rk2" and rk4.integrator == "rk4"
    assert by_parameter.model.P_ENV[E_INTEGRATOR] == INTEGRATOR_RK2
    assert rk4.model.P_ENV[E_INTEGRATOR] == INTEGRATOR_RK4
    a, b, c = _lane_change(by_event), _lane_change(by_parameter), _lane_change(rk4)
    assert np.array_equal(a, b)
    # and it is another integration than the event's own method: the yaw rate, lateral
    # velocity and roll differ, by no more than Heun's error at 1 ms over the manoeuvre
    # (measured: 5.2e-5, 2.8e-5 and 2.3e-5 of each one's peak)
    for state in (L.SR, L.SV, L.SPHI):
        k = rk4.layout.at("body", 0) + state
        difference = np.max(np.abs(b[:, k] - c[:, k])) / np.max(np.abs(c[:, k]))
        assert 0.0 < difference < 2e-4, rk4.state_names[k]
    # the other way round: an event of Heun's method run by the classical Runge-Kutta method
    back = engine.Simulation(_event("rk2"), integrator="rk4", warn=False)
    assert np.array_equal(_lane_change(back), c)


def test_the_steps_range_follows_the_method_chosen():
    """Heun's largest step is 1.4 ms (engine.setup.fields.MAX_STEP_SIZES): 1.7 ms is refused
    with it, naming the argument the method came from, and taken by RK4."""
    with pytest.raises(engine.EventError) as told:
        engine.Simulation(_event("rk4"), step_size=0.0017, integrator="rk2", warn=False)
    assert told.value.problems == [
        "stepSize: a step 1e-06 <= h <= 0.0014 s (got 0.0017) with integrator 'rk2'"]
    with pytest.raises(engine.EventError) as told:
        engine.Simulation(_event("rk2"), step_size=0.0017, warn=False)
    assert told.value.problems == [
        "stepSize: a step 1e-06 <= h <= 0.0014 s (got 0.0017) with simulation.integrator 'rk2'"]
    sim = engine.Simulation(_event("rk2"), step_size=0.0017, integrator="rk4", warn=False)
    assert sim.step_size == 0.0017 and sim.model.P_ENV[E_INTEGRATOR] == INTEGRATOR_RK4


@pytest.mark.parametrize("value", ["rk3", "RK2", 2])
def test_a_method_the_engine_does_not_have_is_refused_naming_the_argument(value):
    with pytest.raises(engine.EventError) as told:
        engine.Simulation(_event("rk4"), integrator=value, warn=False)
    assert told.value.problems == [f"integrator: one of 'rk4', 'rk2' (got {value!r})"]
