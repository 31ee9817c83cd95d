"""The internal step's error: the sedan's sine steer at the engine's steps against a fine one.

The fixed-step RK4 (engine.integrator) at the default step, 1 ms, and at the largest the
engine accepts, 2 ms (engine.setup.fields.MAX_STEP_SIZE; docs/equations.md, "The integration
step and its stability"), against the same run at 0.25 ms: every unit and tire output that
moves (its range over the run above 1e-6 in SI units), sampled every 10 ms, differs from the
fine run's by a small part of its range, and the difference shrinks as the step does. The
run: 6 s at 20 m/s, the steering wheel a 0.5 Hz sine of 1 rad (about 4 m/s^2 of lateral
acceleration at its peaks), no throttle.

Measured (55 outputs move): the largest difference, in the vertical and the longitudinal
acceleration, 2.8e-5 of the output's range at 1 ms and 1.6e-4 at 2 ms; the median over the
outputs 2.0e-7 and 7.6e-7. The largest falls 5.6 times from 2 ms to 1 ms, not the 16 times of
RK4's h^4 on a smooth model: the model's derivative has branches (a tire loading or
unloading, sliding or sticking) at which it is not smooth.

Heun's method (simulation.integrator 'rk2', docs/equations.md, "The integration method") at
1 ms and at 0.5 ms against the same RK4 run at 0.25 ms: the largest difference, in the
longitudinal acceleration (whose range is small here: the speed is held by no throttle),
4.0e-3 of the output's range at 1 ms and 1.0e-3 at 0.5 ms; the median over the outputs 9.0e-6
and 2.4e-6. It falls 3.97 times as the step halves: second order.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.setup.event import DEFAULT_EVENT
from engine.setup.fields import MAX_STEP_SIZE
from engine.signals import TIRE_OUTPUTS, UNIT_OUTPUTS

DURATION, SAMPLE = 6.0, 0.01                # s
SPEED, AMPLITUDE, FREQUENCY = 20.0, 1.0, 0.5     # m/s, rad at the steering wheel, Hz
FINE = 0.25e-3                              # s, the reference's step
MOVES = 1e-6                                # an output's range below this: it does not move
#: the largest difference allowed, a part of the output's range, per step: about 3 times the
#: measured (module docstring)
TOLERANCE = {1e-3: 8e-5, MAX_STEP_SIZE: 5e-4}


#: Heun's method: the largest difference allowed, per step (about 3 times the measured)
TOLERANCE_RK2 = {1e-3: 1.2e-2, 0.5e-3: 3e-3}


def _run(h, integrator="rk4"):
    data = json.loads(open(DEFAULT_EVENT).read())
    data["units"][0].setdefault("initial", {})["speed"] = SPEED
    data["simulation"]["integrator"] = integrator
    sim = engine.Simulation(engine.load_event(data), step_size=h, warn=False)
    rows = []
    for k in range(int(round(DURATION / SAMPLE))):
        t = k * SAMPLE
        sim.u_unit[0, L.IU_STEER] = AMPLITUDE * math.sin(2.0 * math.pi * FREQUENCY * t)
        sim.advance(round((k + 1) * SAMPLE, 9))
        rows.append(np.concatenate([sim.y_unit[0], sim.y_tire.ravel()]))
    names = list(UNIT_OUTPUTS) + [f"{tire}.{o}" for tire in sim.tire_names for o in TIRE_OUTPUTS]
    return np.array(rows), names


@pytest.fixture(scope="module")
def fine():
    return _run(FINE)


def _largest(fine, h, integrator="rk4"):
    """The largest difference of the run at step h by ``integrator`` from the fine run, a part
    of the output's range, over the outputs that move (printed with the median)."""
    reference, names = fine
    result, _ = _run(h, integrator)
    span = np.ptp(reference, axis=0)
    moving = span > MOVES
    error = np.abs(result - reference).max(axis=0)[moving] / span[moving]
    worst = int(np.argmax(error))
    name = [n for n, m in zip(names, moving) if m][worst]
    print(f"{integrator} h = {h * 1e3:g} ms: {moving.sum()} outputs; largest difference "
          f"{error[worst]:.2e} of its range ({name}), median {np.median(error):.2e}")
    return error[worst]


@pytest.mark.parametrize("h", sorted(TOLERANCE))
def test_the_step_s_error_is_a_small_part_of_every_output_s_range(fine, h):
    assert _largest(fine, h) < TOLERANCE[h]


def test_the_error_shrinks_with_the_step(fine):
    reference, _ = fine
    span = np.ptp(reference, axis=0)
    moving = span > MOVES
    errors = []
    for h in sorted(TOLERANCE, reverse=True):
        result, _ = _run(h)
        errors.append((np.abs(result - reference).max(axis=0)[moving] / span[moving]).max())
    print(f"largest difference at 2 ms / at 1 ms: {errors[0] / errors[1]:.1f}")
    assert errors[0] > 3.0 * errors[1]


def test_heun_s_error_is_small_and_of_second_order(fine):
    """RK2 at 1 ms and 0.5 ms against RK4 at 0.25 ms: within TOLERANCE_RK2, and the error at
    1 ms 3 to 5 times that at 0.5 ms (h^2: 4)."""
    errors = {h: _largest(fine, h, "rk2") for h in sorted(TOLERANCE_RK2)}
    for h, e in errors.items():
        assert e < TOLERANCE_RK2[h]
    ratio = errors[1e-3] / errors[0.5e-3]
    print(f"rk2: largest difference at 1 ms / at 0.5 ms: {ratio:.2f}")
    assert 3.0 < ratio < 5.0
