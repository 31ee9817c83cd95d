"""The ABS control law in-process (no FMU): what a closed-loop run does not show directly."""
from __future__ import annotations

import pytest

from simon_fmu.controllers.abs_controller import AbsController, AbsParams

R = 0.327   # m, a rolling radius


def _abs_run(spin_of, steps: int, dt: float = 0.002, **params):
    """Step an ABS for four wheels, ``spin_of(k, factors)`` giving the four spins."""
    abs_ = AbsController(4, AbsParams(tireRadius=R, **params))
    factors = [1.0] * 4
    history = []
    for k in range(steps):
        factors = abs_.step(dt, spin_of(k, factors))
        history.append(list(factors))
    return abs_, history


def _split_mu_spins(k, factors, v0=25.0, dt=0.002):
    """A car slowing at 5 m/s^2 whose right wheels lock whenever their factor is above 0.05."""
    v = v0 - 5.0 * k * dt
    right = v * (0.5 if factors[1] > 0.05 else 1.0)
    return [v / R, right / R, v / R, right / R]


def test_abs_limits_the_front_yaw_moment_build_up():
    abs_, history = _abs_run(_split_mu_spins, 1000, yawMomentDifference=0.05,
                             yawMomentRate=0.1)
    assert abs_.state.split_time is not None
    split = abs_.state.split_time
    for k, (left, right, *_) in enumerate(history):
        t = (k + 1) * 0.002
        if t > split + 0.002:
            assert left - right <= 0.05 + 0.1 * (t - split) + 1e-9
    assert history[-1][0] > history[-1][1] + 0.1    # the high-mu wheel still builds


def test_abs_front_limit_does_not_act_on_an_even_road():
    def spins(k, factors):   # both front wheels lock above a factor of 0.2, the rear do not
        v = 25.0 - 9.0 * k * 0.002
        return [v / R * (0.7 if f > 0.2 else 1.0) for f in factors[:2]] + [v / R] * 2

    abs_, history = _abs_run(spins, 500)
    assert abs_.state.split_time is not None          # the fronts did cycle
    assert min(h[0] for h in history) < 0.2
    assert all(h[0] == pytest.approx(h[1]) for h in history)


def test_abs_rejects_a_negative_yaw_moment_difference():
    with pytest.raises(ValueError, match="yawMomentDifference"):
        AbsController(4, AbsParams(tireRadius=R, yawMomentDifference=-0.1))
