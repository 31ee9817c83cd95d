"""Numerical stability of the fixed-step integrator for a given vehicle.

The classical Runge-Kutta method (``engine.integrator``) is stable for a linear mode
y' = lambda y when z = h lambda lies in its stability region |R(z)| <= 1, with the
stability function R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24. On the negative real axis the
region reaches z = -2.785, on the imaginary axis |z| = 2 sqrt(2). A step beyond that for the
stiffest mode makes the state grow without bound within a few steps, which shows as a tire
deflected past its maximum or a state that is no longer finite, far from the cause.

:func:`stable_step` linearises the vehicle's equations of motion about its current state
(a finite-difference Jacobian of the same derivative the integrator calls) and returns the
largest step for which every damped mode stays inside the region, with the mode that sets it.
:class:`engine.Simulation` runs it on its initial state and refuses a step size beyond it, so
that an event whose stiffness and masses the step cannot resolve (a spring rate of 1e300, a
wheel mass of 1e-300) is refused before it runs, naming the mode. Modes that are unstable in
themselves (Re lambda > 0) are not a matter of the step and are left alone.

The check sees the modes of the initial state, with a steering system that the mode
``autostart`` frees later already free (``engine.steering``). The stiffest modes of a sliding tire (its
carcass deflection's shortest time constant, ``engine.tire.TAU_MIN``) appear only while it
slides; :data:`engine.event.MAX_STEP_SIZE` keeps every step inside the region for them.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .integrator import record
from .layout import E_COLL_BASE, Outputs, new_work

#: relative size of the finite-difference perturbation of each state
_FD_STEP = 1.0e-6
#: relative real part below which a mode counts as undamped (on the imaginary axis)
_NEUTRAL = 1.0e-9
#: bisection steps on h (each halves the bracket)
_BISECTIONS = 60


class StableStep(NamedTuple):
    """The largest stable step, s (inf when no damped mode limits it), and its mode."""
    h_max: float
    eigenvalue: complex
    state: str


def rk4_amplification(z):
    """|R(z)| of the classical Runge-Kutta method (its stability function)."""
    return np.abs(1.0 + z + z * z / 2.0 + z ** 3 / 6.0 + z ** 4 / 24.0)


def rk4_limit(lam: complex) -> float:
    """The largest h > 0 with |R(h lam)| <= 1 along the ray of ``lam`` (Re lam <= 0)."""
    lam = complex(lam)
    if abs(lam) == 0.0:
        return math.inf
    if lam.real > -_NEUTRAL * abs(lam):       # undamped: the region's imaginary-axis reach
        return 2.0 * math.sqrt(2.0) / abs(lam)
    lo, hi = 0.0, 4.0 / abs(lam)              # the region lies within |z| < 4 in the left half
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if rk4_amplification(mid * lam) <= 1.0:
            lo = mid
        else:
            hi = mid
    return lo


def jacobian(sim) -> np.ndarray:
    """d(y')/dy at the simulation's current state and inputs, by forward differences."""
    y0 = np.array(sim.y, dtype=np.float64)
    n = int(sim.model.P_ENV[E_COLL_BASE])   # the collision block is latched, not integrated
    outputs = Outputs(*(np.zeros_like(a) for a in sim._outputs))
    err = np.zeros(2, dtype=np.int64)
    work = new_work(sim.model)
    work.clock[0] = math.inf     # the steering mode autostart as it will be: free
    base, shifted = np.zeros(y0.size), np.zeros(y0.size)
    inputs = sim._inputs
    record(y0, base, inputs, sim.model, outputs, err, work)
    J = np.empty((n, n))
    y = y0.copy()
    for i in range(n):
        e = _FD_STEP * max(1.0, abs(y0[i]))
        y[i] = y0[i] + e
        record(y, shifted, inputs, sim.model, outputs, err, work)
        J[:, i] = (shifted[:n] - base[:n]) / e
        y[i] = y0[i]
    return J


def stable_step(sim) -> StableStep:
    """The largest RK4 step that resolves every damped mode of ``sim`` at its current state.

    Raises ValueError naming a state whose rate is not finite there.
    """
    J = jacobian(sim)
    bad = np.flatnonzero(~np.isfinite(J).all(axis=0))
    if bad.size:
        raise ValueError(f"{sim.state_names[bad[0]]}: the equations of motion are not finite "
                         f"about the initial state")
    values, vectors = np.linalg.eig(J)
    best = StableStep(math.inf, 0j, "")
    for k, lam in enumerate(values):
        if lam.real > _NEUTRAL * abs(lam):
            continue
        h = rk4_limit(lam)
        if h < best.h_max:
            best = StableStep(h, complex(lam), sim.state_names[int(np.argmax(np.abs(vectors[:, k])))])
    return best
