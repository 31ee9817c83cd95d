"""Numerical stability of the fixed-step integrator for a given vehicle.

The classical Runge-Kutta method (``engine.integrator``) is stable for a linear mode
y' = lambda y when z = h lambda lies in its stability region |R(z)| <= 1, with the
stability function R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24. On the negative real axis the
region reaches z = -2.785, on the imaginary axis |z| = 2 sqrt(2). A step beyond that for the
stiffest mode makes the state grow without bound within a few steps, which shows as a tire
deflected past its maximum or a state that is no longer finite, far from the cause. Heun's
method (``simulation.integrator`` 'rk2') has R(z) = 1 + z + z^2/2, which reaches z = -2 on
the real axis and none of the imaginary one: for it a mode is resolved inside the region,
or, losing less than 1 % a period, when its oscillation grows by at most 1.01 times its true
change a period (:data:`engine.stability.CYCLE_GROWTH`).

:func:`stable_step` linearises the vehicle's equations of motion about its current state
(a finite-difference Jacobian of the same derivative the integrator calls) and returns the
largest step for which every damped mode stays inside the region, with the mode that sets it.
:class:`engine.Simulation` runs it on its initial state and refuses a step size beyond it, so
that an event whose stiffness and masses the step cannot resolve (a spring rate of 1e300, a
wheel mass of 1e-300) is refused before it runs, naming the mode. Modes that are unstable in
themselves (Re lambda > 0) are not a matter of the step and are left alone.

The check sees the modes of the initial state, with a steering system that the mode
``autostart`` frees later already free (``engine.steering``). The turning points of the
tires' radial-force loops (Eq. 93, ``engine.tire.turning_point_rate``) are held: they are the
memory of a hysteresis, whose rate is the deflection's rate on the loading curve and zero
elsewhere, so a difference quotient across the switch between the two (a tire rolling over a
bump at the start, its deflection at its turning point) would see a rate of order
(deflection rate)/epsilon, a "mode" that is only the switch. Held, the force of each tire is
that of the branch it is on, and the modes are the vehicle's.

:func:`contact_step` adds what the initial state cannot show: the stiffest contact each unit
can meet, its exterior and wheel meshes pressed flat on a rigid surface (``engine.collision``),
with their loading and unloading stiffness and the unloading branch's damping. The stiffest modes of a sliding tire (its
carcass deflection's shortest time constant, ``engine.tire.TAU_MIN``) appear only while it
slides; :data:`engine.setup.fields.MAX_STEP_SIZES` keep every step inside each method's
region for them.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import layout as L
from .. import stability as K
from ..layout import Outputs, new_work


class StableStep(NamedTuple):
    """The largest stable step, s (inf when no damped mode limits it), and its mode: its
    eigenvalue, the state its eigenvector peaks in; ``free``, the states linearised
    (:func:`free_states`), and ``column``, the index of that state among them (-1: none)."""
    h_max: float
    eigenvalue: complex
    state: str
    free: tuple = ()
    column: int = -1


#: the integration methods' names in messages, by ``layout.INTEGRATOR_*``
METHOD_NAMES = {L.INTEGRATOR_RK4: "4th-order Runge-Kutta",
                L.INTEGRATOR_RK2: "2nd-order Runge-Kutta (Heun)"}


def method_of(model) -> int:
    """The integration method of a packed model (``layout.INTEGRATOR_*``)."""
    return int(model.P_ENV[L.E_INTEGRATOR])


def method_name(model) -> str:
    """The name of a packed model's integration method, for messages."""
    return METHOD_NAMES[method_of(model)]


def step_limit(lam: complex, method: int) -> float:
    """The largest step of ``method`` that resolves the mode ``lam`` (the kernel
    :func:`engine.stability.step_limit`)."""
    lam = complex(lam)
    return K.step_limit(lam.real, lam.imag, method)


def rk4_amplification(z):
    """|R(z)| of the classical Runge-Kutta method (its stability function; the kernel
    :func:`engine.stability.rk4_amplification`)."""
    z = complex(z)
    return K.rk4_amplification(z.real, z.imag)


def rk4_limit(lam: complex) -> float:
    """The largest h > 0 with |R(h lam)| <= 1 along the ray of ``lam`` (Re lam <= 0; the
    kernel :func:`engine.stability.rk4_limit`)."""
    lam = complex(lam)
    return K.rk4_limit(lam.real, lam.imag)


def free_states(model) -> np.ndarray:
    """The states the linearisation varies: all but the latched collision block and the tires'
    turning points (module docstring)."""
    lay = L.StateLayout.of_model(model)
    held = lay.base["tire"] + L.N_TIRE_STATE * np.arange(model.P_TIRE.shape[0]) + L.TTURN
    keep = np.ones(lay.base[L.LATCHED_BLOCK], dtype=bool)   # the collision block is latched
    keep[held] = False
    return np.flatnonzero(keep)


def kernel_work(size: int, free) -> dict:
    """The arrays :func:`engine.stability.stable_step` works in, by its argument names, for a
    state of ``size`` and the states ``free`` (the native FMU carries them too)."""
    n = len(free)
    return {"free": np.ascontiguousarray(free, dtype=np.int64), "base": np.zeros(size),
            "shifted": np.zeros(size), "J": np.zeros((n, n)), "A": np.zeros((n, n)),
            "wr": np.zeros(n), "wi": np.zeros(n), "M": np.zeros((2 * n, 2 * n)),
            "x": np.zeros(2 * n), "d": np.zeros(n), "piv": np.zeros(2 * n, dtype=np.int64),
            "out": np.zeros(5)}


def _fresh(sim):
    """The simulation's state and inputs with outputs, error flags and scratch of their own
    (the check leaves the simulation alone)."""
    y = np.array(sim.y, dtype=np.float64)
    outputs = Outputs(*(np.zeros_like(a) for a in sim._outputs))
    return y, sim._inputs, sim.model, outputs, np.zeros(2, dtype=np.int64), new_work(sim.model)


def jacobian(sim, free=None) -> np.ndarray:
    """d(y')/dy over the states ``free`` (default :func:`free_states`) at the simulation's
    current state and inputs, by forward differences (:func:`engine.stability.jacobian`)."""
    free = free_states(sim.model) if free is None else free
    w = kernel_work(sim.y.size, free)
    K.jacobian(*_fresh(sim), w["free"], w["base"], w["shifted"], w["J"])
    return w["J"]


def stable_step(sim) -> StableStep:
    """The largest step of the event's integration method that resolves every damped mode of
    ``sim`` at its current state (:func:`engine.stability.stable_step`).

    Raises ValueError naming a state whose rate is not finite there.
    """
    free = free_states(sim.model)
    w = kernel_work(sim.y.size, free)
    status = K.stable_step(*_fresh(sim), *w.values())
    out = w["out"]
    if status == K.NOT_FINITE:
        raise ValueError(f"{sim.state_names[free[int(out[3])]]}: the equations of motion are not "
                         f"finite about the initial state")
    if status != K.FOUND:
        raise ValueError("the eigenvalues of its modes at the initial state did not converge")
    column = int(out[3])
    return StableStep(float(out[0]), complex(out[1], out[2]),
                      sim.state_names[free[column]] if column >= 0 else "", tuple(free), column)


class ContactStep(NamedTuple):
    """The largest step for the stiffest contact of a unit (inf: no mesh), and what sets it:
    the unit's index, the face pressed (``layout.FACE_*``), the branch ("loading" or
    "unloading"), the mode's eigenvalue (1/s), whether the wheel meshes set it and, when they
    do, the axle (of the unit, from the front) whose wheel mesh is the stiffest on that face."""
    h_max: float
    unit: int
    face: int
    branch: str
    eigenvalue: complex
    wheels: bool
    axle: int = -1


#: the push on each face of a unit's box (vehicle frame, the surface's normal towards the
#: vehicle), in the order of layout.FACE_*: the front is pushed back, the roof down
FACE_PUSH = np.array([(-1.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0),
                      (0.0, 0.0, -1.0), (0.0, 0.0, 1.0)])


def _mass_matrix(PU):
    """The sprung mass's 6x6 mass matrix about its CG (Eq. 3, 7: m, and the inertia tensor
    with its product Ixz)."""
    M = np.zeros((6, 6))
    M[0, 0] = M[1, 1] = M[2, 2] = PU[L.U_MS]
    M[3:, 3:] = [[PU[L.U_IX], 0.0, -PU[L.U_IXZ]], [0.0, PU[L.U_IY], 0.0],
                 [-PU[L.U_IXZ], 0.0, PU[L.U_IZ]]]
    return M


def _face_stiffness(points, k, push):
    """The 6x6 stiffness about the CG of vertices at ``points`` (vehicle frame, from the CG)
    of stiffness ``k`` (N/m) pressed along ``push`` on a plane: the sum of k g g^T with
    g = (n, r x n) (Eq. 3, 7 of a vertex force k delta along n)."""
    g = np.hstack([np.broadcast_to(push, points.shape), np.cross(points, push)])
    return (g * k[:, None]).T @ g


def contact_step(model) -> ContactStep:
    """The largest step of the model's integration method for the stiffest contact of every unit's meshes (Eq. 3, 7 with the
    vertex force law of ``engine.collision``).

    Per unit and face of its box, all vertices of that face (its exterior's, and its wheel
    meshes' at their static poses) pressed on a rigid plane: the modes of the sprung mass
    (6 degrees of freedom about its CG) on the sum of the vertices' stiffness, on the loading
    branch (k, undamped) and on the unloading branch (k / e^2, damped with the time constant
    tau of the unit: c = tau k / e^2). This is the stiffest contact a unit can meet: a barrier,
    the road or a standing polygon is rigid; against another unit, each vertex carries the two
    faces' series stiffness (per area at most the smaller of the two) across the reduced mass,
    and (1/m_a + 1/m_b) / (1/K_a + 1/K_b) <= max(K_a / m_a, K_b / m_b): the pair's mode is
    never stiffer than the stiffer of the two units' own on a rigid plane.
    """
    PC, CV, CK, PWC, PW = model.P_COLL, model.CV, model.CK, model.P_WCOLL, model.P_WHEEL
    method = method_of(model)
    best = ContactStep(math.inf, -1, -1, "", 0j, False)
    for u in range(PC.shape[0]):
        nv = int(PC[u, L.CO_NV])
        if nv == 0:
            continue
        v0 = int(PC[u, L.CO_V0])
        e, tau = PC[u, L.CO_E], PC[u, L.CO_TAU]
        M = _mass_matrix(model.P_UNIT[u])
        wheels = [w for w in range(PW.shape[0])
                  if int(PW[w, L.W_UNIT]) == u and PWC[w, L.WC_NV] > 0]
        for f, push in enumerate(FACE_PUSH):
            k_ext = CK[v0:v0 + nv, f]
            K_body = _face_stiffness(CV[v0:v0 + nv, :3], k_ext, push)
            K_wheel, K_wheel_u = np.zeros((6, 6)), np.zeros((6, 6))
            stiffest, k_most = -1, -math.inf
            for w in wheels:
                a, n = int(PWC[w, L.WC_V0]), int(PWC[w, L.WC_NV])
                centre = PW[w, [L.W_X, L.W_Y0, L.W_Z0]]
                Kw = _face_stiffness(CV[a:a + n, :3] + centre, CK[a:a + n, f], push)
                K_wheel += Kw
                K_wheel_u += Kw / PWC[w, L.WC_E] ** 2
                if np.trace(Kw) > k_most:
                    stiffest, k_most = int(PW[w, L.W_AXLE]), np.trace(Kw)
            for branch, K, damped in (("loading", K_body + K_wheel, False),
                                      ("unloading", K_body / (e * e) + K_wheel_u, True)):
                omega2 = np.linalg.eigvals(np.linalg.solve(M, K)).real
                for w2 in omega2[omega2 > 0.0]:
                    # lambda^2 + tau w^2 lambda + w^2 = 0 (damped), lambda = +-j w (undamped)
                    roots = np.roots([1.0, tau * w2, w2]) if damped else [1j * math.sqrt(w2)]
                    lam = max(roots, key=abs)
                    h = step_limit(lam, method)
                    if h < best.h_max:
                        with_wheels = not np.any(K_body) or (
                            np.trace(K_wheel) > np.trace(K_body))
                        best = ContactStep(h, u, f, branch, complex(lam), bool(with_wheels),
                                           stiffest if with_wheels else -1)
    return best
