"""The start in equilibrium across a crossfall, or on displaced wheels (kernel).

Every unit of a combination settled on the terrain (:mod:`engine.settle`) gets its tires'
lateral preloads and, by Newton's method on the engine's own derivative
(:func:`engine.integrator.record`), the heave, roll (and, on displaced wheels, pitch), the
wheels' and solid axles' positions and the towed units' places at which those accelerations
vanish (docs/equations.md, "Static equilibrium on a grade or a crossfall"; the steps are those
of :func:`engine.setup.settle.preload_lateral`, which packs the index tables and calls this
kernel). Each vehicle's Newton step is solved on its own block of the finite-difference
Jacobian by :func:`engine.least_squares.least_squares`.

A kernel over the packed model, the index tables the set-up packs and scratch the caller
passes, so that the set-up and code that runs without Python take the same steps. Its sums
over a combination's tires are numpy's pairwise sums (``numpy.sum``, which the set-up used
before it called this kernel: the starts are the same bit for bit); beyond 128 tires in one
vehicle they are summed in order.
"""
import math

from .integrator import record
from .jit import njit
from .kinematics import euler_trig, rotation_vehicle_to_earth, to_earth
from .layout import (C_AX, C_AY, C_AZ, C_BX, C_BY, C_BZ, C_DRAWBAR, C_K, C_P0, C_TOW, C_TOWED,
                     C_VERTICAL, N_BODY, SPHI, SPSI, STHETA, SU, SV, SX, SY, SZ, T_RLY, U_LEAD,
                     YT_DEFL, YT_FZ)
from .least_squares import least_squares
from .tire import TAU_DAMP, V_LOW, V_N, properties, slip_stiffness

#: Newton iterations of the start on a crossfall (at least; as many as a displaced vehicle's
#: while it is not at rest), of a displaced vehicle (which starts further from its
#: equilibrium), the halvings of a step that leaves larger accelerations, and the
#: finite-difference step (m, rad)
EQUILIBRIUM_ITERATIONS = 4
EQUILIBRIUM_ITERATIONS_PITCH = 8
#: the accelerations (m/s^2, rad/s^2) below which a start is at rest
EQUILIBRIUM_REST = 1e-6
EQUILIBRIUM_HALVINGS = 10
EQUILIBRIUM_STEP = 1e-6
#: the return values of :func:`preload_lateral`: done, or a Newton step that is not finite
PRELOAD_DONE, PRELOAD_NOT_FINITE = 0, 1
#: numpy's pairwise summation: its unrolling and the block it sums without splitting
_UNROLL, _BLOCK = 8, 128


@njit
def _block_sum(a, idx, i0, n, scale):
    """numpy's pairwise sum (``pairwise_sum`` of its add loop) of a[idx[i0 + k]] * scale,
    k < n <= 128 (scale 1: the values themselves, a product by 1 being exact)."""
    if n < _UNROLL:
        res = -0.0
        for k in range(n):
            res += a[idx[i0 + k]] * scale
        return res
    r0, r1 = a[idx[i0]] * scale, a[idx[i0 + 1]] * scale
    r2, r3 = a[idx[i0 + 2]] * scale, a[idx[i0 + 3]] * scale
    r4, r5 = a[idx[i0 + 4]] * scale, a[idx[i0 + 5]] * scale
    r6, r7 = a[idx[i0 + 6]] * scale, a[idx[i0 + 7]] * scale
    k = _UNROLL
    while k < n - n % _UNROLL:
        r0 += a[idx[i0 + k]] * scale
        r1 += a[idx[i0 + k + 1]] * scale
        r2 += a[idx[i0 + k + 2]] * scale
        r3 += a[idx[i0 + k + 3]] * scale
        r4 += a[idx[i0 + k + 4]] * scale
        r5 += a[idx[i0 + k + 5]] * scale
        r6 += a[idx[i0 + k + 6]] * scale
        r7 += a[idx[i0 + k + 7]] * scale
        k += _UNROLL
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while k < n:
        res += a[idx[i0 + k]] * scale
        k += 1
    return res


@njit
def _sum(a, idx, i0, n, scale):
    """The sum of a[idx[i0 + k]] * scale over k < n, as ``numpy.sum`` adds them (module
    docstring)."""
    if n <= _BLOCK:
        return _block_sum(a, idx, i0, n, scale)
    res = 0.0
    for k in range(n):
        res += a[idx[i0 + k]] * scale
    return res


@njit
def _max_abs(r, n):
    """max |r[:n]|, NaN when one is NaN (``numpy.max``)."""
    m = 0.0
    for k in range(n):
        v = abs(r[k])
        if v != v:
            return v
        if v > m:
            m = v
    return m


@njit
def _stiffness(y, P, loads, stiff, tires):
    """Each tire's cornering stiffness C_alpha' at its load (``engine.tire.properties``), or its
    longitudinal slip stiffness (Eq. 101) for a tire without one."""
    for t in range(tires.shape[0]):
        load = loads[t]
        mup, mus, sp, ca, _ = properties(P.P_TIRE, P.TT, t, load, y[N_BODY * tires[t, 0] + SU])
        stiff[t] = ca if ca > 0.0 else slip_stiffness(load, mup, mus, sp)[2]


@njit
def _preload(y, P, loads, stiff, share, sin_a, tires):
    """Each tire's carcass deflection ky whose force (``engine.tire.carcass``: C k + C TAU_DAMP
    w dk/dt, its secant G = C in the linear range) is its share of the lateral weight."""
    _stiffness(y, P, loads, stiff, tires)
    for t in range(tires.shape[0]):
        u = tires[t, 0]
        o = N_BODY * u
        V = math.hypot(y[o + SU], y[o + SV])
        d = TAU_DAMP * max(0.0, 1.0 - V / V_LOW) * max(V, V_N)
        rl = P.P_TIRE[t, T_RLY]
        f = loads[t] * share[u]
        y[tires[t, 1]] = (f * (d + rl) - d * stiff[t] * sin_a[u]) / (stiff[t] * rl)


@njit
def _residual(y, U, P, Y, err, W, dy, residuals, r):
    """The accelerations that vanish in equilibrium at y into r: dy[a], or dy[a] - dy[b] (a
    towed unit's longitudinal acceleration relative to its tow unit's) where b >= 0."""
    for i in range(dy.shape[0]):
        dy[i] = 0.0
    err[0] = 0
    err[1] = 0
    record(y, dy, U, P, Y, err, W)
    for k in range(residuals.shape[0]):
        a, b = residuals[k, 0], residuals[k, 1]
        r[k] = dy[a] if b < 0 else dy[a] - dy[b]


@njit
def preload_lateral(y, U, P, Y, err, W, dy, tires, groups, group0, unknowns, residuals, blocks,
                    block0, start_at, start_by, tire_loads, pitch, R, vn, J, vt, vu, A, vb, perm):
    """Start the settled state y in equilibrium (module docstring; the steps of
    ``engine.setup.settle.preload_lateral``). Returns :data:`PRELOAD_DONE` or
    :data:`PRELOAD_NOT_FINITE` (a vehicle whose Newton step is not finite: y is then left
    part-way). ``pitch`` 1: the start on displaced wheels (each unit's pitch solved too, a
    towed unit's position along x, steps that leave larger accelerations halved). vn[0] holds
    the accelerations left and Y the outputs at the state returned, which the caller judges
    (``engine.setup.settle``: the start is at rest, or no equilibrium was found).

    The set-up's tables (``engine.setup.settle.preload_tables``): ``tires`` (tire, 3: its
    unit, the state index of its ky, of its turning point), ``groups``/``group0`` (the tires of
    each combination, by its lead unit, from group0[g] to group0[g + 1]; the lead
    tires[groups[group0[g]], 0]'s lead), ``unknowns`` (n state indices), ``residuals`` (n, 2:
    see :func:`_residual`), ``blocks``/``block0`` (the positions in ``unknowns`` of each
    vehicle's block), ``start_at``/``start_by`` (y[start_at] -= start_by: the undisplaced
    wheel centres, ``pitch`` only), ``tire_loads`` (the static loads). ``U``, ``Y``, ``err``,
    ``W``: the derivative's inputs (their start values), outputs and scratch. Scratch: dy (the
    state's size), R (3, 3), vn (4, n), J (n, n), vt (2, tires), vu (2, units), A (most
    unknowns of a block, as many), vb (5, as many), perm (as many, int64)."""
    P_UNIT, C = P.P_UNIT, P.P_CONN
    nu, nt, n = P_UNIT.shape[0], tires.shape[0], unknowns.shape[0]
    r, r1, step, base = vn[0], vn[1], vn[2], vn[3]
    loads, stiff = vt[0], vt[1]
    share, sin_a = vu[0], vu[1]
    for u in range(nu):                             # the tangent of each unit's crossfall
        o = N_BODY * u
        rotation_vehicle_to_earth(*euler_trig(y[o + SPHI], y[o + STHETA], y[o + SPSI]), R)
        share[u] = R[2, 1] / R[2, 2]
        sin_a[u] = 0.0
    # a rolling combination: one lateral velocity for all its units (no joint damper force)
    _stiffness(y, P, tire_loads, stiff, tires)
    for g in range(group0.shape[0] - 1):
        i0, m = group0[g], group0[g + 1] - group0[g]
        if m == 0:
            continue
        lead = int(P_UNIT[tires[groups[i0], 0], U_LEAD])
        s = _sum(tire_loads, groups, i0, m, share[tires[groups[i0], 0]]) / _sum(stiff, groups, i0, m, 1.0)
        speed = y[N_BODY * lead + SU]
        if speed != 0.0 and abs(s) < 1.0:
            for u in range(nu):
                if int(P_UNIT[u, U_LEAD]) == lead:
                    y[N_BODY * u + SV] = abs(speed) * s / math.sqrt(1.0 - s * s)
                    sin_a[u] = s
    for c in range(C.shape[0]):                     # the joints' lateral share, in unit order
        if C[c, C_DRAWBAR] > 0.0:
            continue        # a full trailer stands on its own wheels, where it was settled
        oa, ob = N_BODY * int(C[c, C_TOW]), N_BODY * int(C[c, C_TOWED])
        rotation_vehicle_to_earth(*euler_trig(y[oa + SPHI], y[oa + STHETA], y[oa + SPSI]), R)
        ax, ay, az = to_earth(R, C[c, C_AX], C[c, C_AY], C[c, C_AZ])
        hx, hy, hz = y[oa + SX] + ax, y[oa + SY] + ay, y[oa + SZ] + az      # the hitch point
        rotation_vehicle_to_earth(*euler_trig(y[ob + SPHI], y[ob + STHETA], y[ob + SPSI]), R)
        aside = C[c, C_P0] * R[2, 1] / C[c, C_K] if C[c, C_VERTICAL] > 0.5 else 0.0
        bx, by, bz = to_earth(R, C[c, C_BX], C[c, C_BY], C[c, C_BZ])
        y[ob + SX] = hx - bx + aside * R[0, 1]
        y[ob + SY] = hy - by + aside * R[1, 1]
        y[ob + SZ] = hz - bz + aside * R[2, 1]
    if pitch:
        for k in range(start_at.shape[0]):
            y[start_at[k]] -= start_by[k]
    for t in range(nt):
        loads[t] = tire_loads[t]
    for it in range(EQUILIBRIUM_ITERATIONS_PITCH):
        _preload(y, P, loads, stiff, share, sin_a, tires)
        _residual(y, U, P, Y, err, W, dy, residuals, r)
        # a crossfall's start takes EQUILIBRIUM_ITERATIONS, more while it is not at rest (a
        # rough road's)
        if not pitch and it >= EQUILIBRIUM_ITERATIONS and _max_abs(r, n) <= EQUILIBRIUM_REST:
            break
        for j in range(n):                          # the Jacobian by forward differences
            i = unknowns[j]
            kept = y[i]
            y[i] += EQUILIBRIUM_STEP
            _residual(y, U, P, Y, err, W, dy, residuals, r1)
            y[i] = kept
            for k in range(n):
                J[k, j] = (r1[k] - r[k]) / EQUILIBRIUM_STEP
        for g in range(block0.shape[0] - 1):        # each vehicle's block on its own
            i0, m = block0[g], block0[g + 1] - block0[g]
            for a in range(m):
                for b in range(m):
                    A[a, b] = J[blocks[i0 + a], blocks[i0 + b]]
                vb[0, a] = r[blocks[i0 + a]]
            least_squares(A, m, m, vb[0], vb[1], perm, vb[2], vb[3], vb[4])
            for a in range(m):
                x = vb[1, a]
                if not (x - x == 0.0):
                    return PRELOAD_NOT_FINITE
                step[blocks[i0 + a]] = x
        # a step that leaves larger accelerations is halved (the start on displaced wheels,
        # or on a rough road, can be far from equilibrium); a step that does not is taken whole
        for j in range(n):
            base[j] = y[unknowns[j]]
        before = _max_abs(r, n)
        for _ in range(EQUILIBRIUM_HALVINGS):
            for j in range(n):
                y[unknowns[j]] = base[j] - step[j]
            _residual(y, U, P, Y, err, W, dy, residuals, r1)
            if _max_abs(r1, n) < before:
                break
            for j in range(n):
                step[j] = 0.5 * step[j]
        _residual(y, U, P, Y, err, W, dy, residuals, r1)
        for t in range(nt):                         # on the loading curve (Eq. 93)
            y[tires[t, 2]] = Y.y_tire[t, YT_DEFL]
            loads[t] = Y.y_tire[t, YT_FZ]
    _preload(y, P, loads, stiff, share, sin_a, tires)
    _residual(y, U, P, Y, err, W, dy, residuals, r)
    return PRELOAD_DONE
