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


def _run(h):
    data = json.loads(open(DEFAULT_EVENT).read())
    data["units"][0].setdefault("initial", {})["speed"] = SPEED
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


@pytest.mark.parametrize("h", sorted(TOLERANCE))
def test_the_step_s_error_is_a_small_part_of_every_output_s_range(fine, h):
    reference, names = fine
    result, _ = _run(h)
    span = np.ptp(reference, axis=0)
    moving = span > MOVES
    error = np.abs(result - reference).max(axis=0)[moving] / span[moving]
    worst = int(np.argmax(error))
    name = [n for n, m in zip(names, moving) if m][worst]
    print(f"h = {h * 1e3:g} ms: {moving.sum()} outputs; largest difference {error[worst]:.2e} of "
          f"its range ({name}), median {np.median(error):.2e}")
    assert error[worst] < TOLERANCE[h]


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
