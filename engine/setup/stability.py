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
from ..kinematics import euler_trig, rotation_vehicle_to_earth, zyx_angles
from ..layout import Outputs, new_work
from .fields import METHODS


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
METHOD_NAMES = {m.code: m.title for m in METHODS.values()}


def method_of(model) -> int:
    """The integration method of a packed model (``layout.INTEGRATOR_*``)."""
    return int(model.P_ENV[L.E_INTEGRATOR])


def method_name(model) -> str:
    """The name of a packed model's integration method, for messages."""
    return METHOD_NAMES[method_of(model)]


def with_method(model, method: str):
    """The packed model integrated by ``method`` (a key of ``METHODS``) instead: a copy of its
    ``P_ENV`` with the method's code, every other array shared."""
    env = model.P_ENV.copy()
    env[L.E_INTEGRATOR] = METHODS[method].code
    return model._replace(P_ENV=env)


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


class JointStep(NamedTuple):
    """The largest step for the stiffest mode of the units on their joints over the attitudes
    they can take (inf: no joint), the mode's eigenvalue (1/s), the state its eigenvector
    peaks in, and the units' attitudes (roll, pitch, yaw per unit, rad) where it is stiffest."""
    h_max: float
    eigenvalue: complex
    state: str
    attitudes: tuple = ()


#: how far the units are lifted above their start for the joint check (m): clear of the road
JOINT_LIFT = 200.0
#: the attitudes sampled (the first: every unit level and in line)
JOINT_SAMPLES = 64
#: the coordinate search's steps from the stiffest sample (rad): each angle is moved by each
#: step both ways, once, keeping a move that finds a stiffer mode
JOINT_SEARCH = (0.2, 0.05)
#: the largest pitch of a unit sampled (rad): the Euler angles' axes are latched beyond
#: (``engine.vehicle.latch_attitude``)
JOINT_PITCH = 1.3
#: the Kronecker sequence's steps per angle: the fractional parts of the square roots of the
#: primes (a low-discrepancy sequence, the same on every machine)
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79,
           83, 89, 97, 101, 103, 107, 109, 113)


def _zyx(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """The vehicle-to-earth rotation of yaw-pitch-roll Euler angles (Eq. 53, the kernel's)."""
    R = np.empty((3, 3))
    rotation_vehicle_to_earth(*euler_trig(roll, pitch, yaw), R)
    return R


def _rot(axis: int, a: float) -> np.ndarray:
    """The rotation by a about the x (0), y (1) or z (2) axis."""
    angles = [0.0, 0.0, 0.0]
    angles[axis] = a
    return _zyx(*angles)


def joint_free_states(model) -> np.ndarray:
    """The states the joint check varies: the units' bodies (X .. r). The suspensions, tires,
    spins and the rest are held: the joints' modes are of the bodies, the suspensions' a
    hundred times softer."""
    return np.array([L.N_BODY * u + k for u in range(model.P_UNIT.shape[0])
                     for k in range(L.SX, L.SR + 1)], dtype=np.int64)


def _joint_kinds(model):
    """Per unit: -1 for a unit that no joint tows, else (its connection's row, how many
    angles its attitude relative to the tow unit takes: 3 for a ball joint, 2 for a joint
    rigid in pitch or with frame torsion)."""
    towed = {}
    for c, row in enumerate(model.P_CONN):
        rigid = row[L.C_KPITCH] > 0.0 or row[L.C_CPITCH] > 0.0 or \
            row[L.C_KFRAME] > 0.0 or row[L.C_CFRAME] > 0.0
        towed[int(row[L.C_TOWED])] = (c, 2 if rigid else 3)
    return [towed.get(u, -1) for u in range(model.P_UNIT.shape[0])]


def _attitudes(model, kinds, order, angles):
    """Each unit's rotation for the angles (3 per unit, the last unused by a joint of two):
    a unit no joint tows at its Euler angles (roll, pitch, yaw); a towed unit turned from its
    tow unit: by a ball joint through any rotation (Euler angles), by a joint rigid in pitch
    (a fixed dolly's fifth wheel) about the tow unit's x, then its own z, which keeps the
    joint's s = x_a . z_b at zero, by one with frame torsion about the tow unit's y (rock),
    then its own z, which keeps the twist u = -z_b . y_a at zero (``engine.connection``)."""
    R = [None] * len(kinds)
    for u in order:                     # tow units first
        a0, a1, a2 = angles[3 * u:3 * u + 3]
        if kinds[u] == -1:
            R[u] = _zyx(a0, a1, a2)
            continue
        c, n = kinds[u]
        row = model.P_CONN[c]
        Ra = R[int(row[L.C_TOW])]
        if n == 3:
            R[u] = Ra @ _zyx(a0, a1, a2)
        elif row[L.C_KPITCH] > 0.0 or row[L.C_CPITCH] > 0.0:
            R[u] = Ra @ _rot(0, a0) @ _rot(2, a1)
        else:
            R[u] = Ra @ _rot(1, a0) @ _rot(2, a1)
    return R


def _depth(model, kinds, u):
    """How many joints lie between unit u and the unit at the head of its vehicle."""
    d = 0
    while kinds[u] != -1:
        u = int(model.P_CONN[kinds[u][0], L.C_TOW])
        d += 1
    return d


def _still(sim) -> np.ndarray:
    """The simulation's state with its wheels not spinning (the joint check's base)."""
    y = np.array(sim.y, dtype=np.float64)
    lay = L.StateLayout.of_model(sim.model)
    for w in range(lay.counts["wheel"]):
        y[lay.at("wheel", w) + L.WOMEGA] = 0.0
    return y


def _joint_state(model, base, kinds, order, R):
    """The state ``base`` (:func:`_still`) with every unit at rotation R[u], lifted JOINT_LIFT
    above its start, still, each towed unit placed with its joint's points together (a
    drawbar's a drawbar length apart, behind the tow unit's hitch along the tow unit's
    heading); None where a unit's pitch is beyond JOINT_PITCH. ``order``: the units, tow units
    first."""
    y = base.copy()
    for u in order:
        o = L.N_BODY * u
        roll, pitch, yaw = zyx_angles(R[u])
        if abs(pitch) > JOINT_PITCH:
            return None
        if kinds[u] == -1:
            y[o + L.SZ] -= JOINT_LIFT
        else:
            row = model.P_CONN[kinds[u][0]]
            a = int(row[L.C_TOW])
            oa = L.N_BODY * a
            pa = y[oa + L.SX:oa + L.SZ + 1] + R[a] @ row[[L.C_AX, L.C_AY, L.C_AZ]]
            if row[L.C_DRAWBAR] > 0.0:
                heading = R[a][:2, 0] / max(np.hypot(*R[a][:2, 0]), 1e-12)
                pa = pa - row[L.C_DRAWBAR] * np.array([heading[0], heading[1], 0.0])
            y[o + L.SX:o + L.SZ + 1] = pa - R[u] @ row[[L.C_BX, L.C_BY, L.C_BZ]]
        y[o + L.SPHI], y[o + L.STHETA], y[o + L.SPSI] = roll, pitch, yaw
        y[o + L.SATT] = 0.0
        y[o + L.SU:o + L.SR + 1] = 0.0
    return y


def joint_step(sim, model=None) -> JointStep:
    """The largest step of the event's integration method that resolves the stiffest mode of
    the units on their joints at any attitude they can take (docs/equations.md, "The
    integration step and its stability"); ``model``: ``sim.model`` or that model with another
    method (:func:`with_method`).

    The check at the initial state sees the joints as the units stand there. A joint's modes
    depend on the attitudes: a fixed dolly level under its trailer has its pitch held by the
    fifth wheel's pitch joint, but rolled against the trailer the joint holds another axis and
    the dolly pitches freely on the drawbar's damper, a mode twice as stiff (Eq. 117-118; the
    step the start accepts then diverges in a tumble). So the units are lifted clear of the
    road, their meshes' contacts left out (:func:`contact_step` bounds those), still, each
    joint's points together, and turned through attitudes the joints allow
    (:func:`_attitudes`: a low-discrepancy sample of JOINT_SAMPLES, the first level, then a
    coordinate search from the stiffest); at each, the same linearisation as
    :func:`stable_step` over the bodies (:func:`joint_free_states`)."""
    model = sim.model if model is None else model
    if model.P_CONN.shape[0] == 0:
        return JointStep(math.inf, 0j, "")
    PC = model.P_COLL.copy()
    PC[:, L.CO_NV] = 0.0
    PW = model.P_WCOLL.copy()
    if PW.size:
        PW[:, L.WC_NV] = 0.0
    clear = model._replace(P_COLL=PC, P_WCOLL=PW)
    free = joint_free_states(model)
    kinds = _joint_kinds(model)
    order = sorted(range(len(kinds)), key=lambda u: _depth(model, kinds, u))
    base = _still(sim)
    w = kernel_work(sim.y.size, free)
    outputs = Outputs(*(np.zeros_like(a) for a in sim._outputs))
    err = np.zeros(2, dtype=np.int64)
    scratch = new_work(model)

    def limit(angles):
        y = _joint_state(model, base, kinds, order, _attitudes(model, kinds, order, angles))
        if y is None:
            return math.inf, None
        status = K.stable_step(y, sim._inputs, clear, outputs, err, scratch, *w.values())
        out = w["out"]
        if status != K.FOUND:
            return math.inf, None
        col = int(out[3])
        return float(out[0]), (complex(out[1], out[2]), int(free[col]) if col >= 0 else -1, y)

    n = 3 * len(kinds)
    steps = [math.sqrt(p) % 1.0 for p in _PRIMES[:n]]
    span = np.array([math.pi, JOINT_PITCH, math.pi] * len(kinds))
    best = (math.inf, None, None)
    for i in range(JOINT_SAMPLES):
        angles = span * (2.0 * np.array([(0.5 + i * s) % 1.0 for s in steps]) - 1.0)
        h, info = limit(angles)
        if h < best[0]:
            best = (h, info, angles)
    if best[1] is None:
        return JointStep(math.inf, 0j, "")
    for step in JOINT_SEARCH:
        for k in range(n):
            for sign in (1.0, -1.0):
                angles = best[2].copy()
                angles[k] += sign * step
                h, info = limit(angles)
                if h < best[0]:
                    best = (h, info, angles)
    h, (lam, state, y), _ = best
    attitudes = tuple(tuple(float(v) for v in y[L.N_BODY * u + L.SPHI:L.N_BODY * u + L.SPSI + 1])
                      for u in range(len(kinds)))
    return JointStep(h, lam, sim.state_names[state] if state >= 0 else "", attitudes)


def joint_step_problem(sim, limit: JointStep, step, model=None) -> str:
    """The refusal of a step beyond the joints' limit (``step``: the step, printed as given;
    ``model``: the one :func:`joint_step` found it for, by default ``sim.model``)."""
    lam = limit.eigenvalue
    where = "; ".join(f"{name} " + ", ".join(f"{math.degrees(a):.0f}" for a in angles)
                      for name, angles in zip(sim.unit_names, limit.attitudes))
    return (f"stepSize: a step <= {limit.h_max:.3g} s for this vehicle (got {step!r}): turned "
            f"through the attitudes its joints allow, its units' stiffest mode on their joints, "
            f"in {limit.state}, has the eigenvalue {lam.real:.4g}{lam.imag:+.4g}j 1/s (roll, "
            f"pitch, yaw in degrees: {where}), and the "
            f"{method_name(sim.model if model is None else model)} step is stable "
            f"only up to h = {limit.h_max:.3g} s for it")
