"""The start on a mesh or an external road: every unit settled on the terrain under its wheels
and, on a crossfall, in lateral equilibrium (docs/equations.md, "Static equilibrium on a grade or
a crossfall"). :func:`engine.setup.params.pack` calls it once the arrays are packed."""
from __future__ import annotations

import math

import numpy as np

from .. import layout as L
from .errors import EventError
from ..jit import compiled_entry
from ..kinematics import euler_trig, rotation_vehicle_to_earth
from ..least_squares import least_squares
from ..settle import settle_on_terrain as settle_kernel
from ..signals import INPUT_LIMITS
from ..tire import TAU_DAMP, V_LOW, V_N, properties, slip_stiffness


def default_wheel_inputs(n_wheels):
    """The wheel inputs' start values (engine.signals.INPUT_LIMITS), [wheel, WHEEL_INPUTS]."""
    u = np.zeros((n_wheels, len(L.WHEEL_INPUTS)))
    for j, f in enumerate(L.WHEEL_INPUTS):
        u[:, j] = INPUT_LIMITS[f][2]
    return u


def solve_least_squares(A, b):
    """The minimum-norm least-squares solution of A x = b, by the engine's allocation-free
    kernel (:func:`engine.least_squares.least_squares`, in place of LAPACK's, so that code
    that runs without Python can take the same steps)."""
    A = np.array(A, dtype=np.float64, order="C")
    b = np.array(b, dtype=np.float64)
    m, n = A.shape
    x = np.zeros(n)
    least_squares(A, m, n, b, x, np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n), np.zeros(n))
    if not np.all(np.isfinite(x)):
        raise EventError(["the start on the terrain: the equilibrium's Newton step is not finite "
                          "(no equilibrium of the vehicle on the road under it was found)"])
    return x


def settle_on_terrain(model, y0, wheel_names, u_wheel):
    """Put every unit on the terrain under its wheels: each unit's body turned into the plane
    fitted through the terrain under its wheels (roll and pitch from its normal at the unit's
    yaw), its CG at its static height above that plane along the normal, so that it stands
    in its static equilibrium (the normal component of its weight; the along-slope part is
    what the simulation then feels); a towed unit moved onto its tow unit's hitch point. The
    kernel :func:`engine.settle.settle_on_terrain` does it; a wheel off the terrain is an
    :class:`EventError` naming it."""
    most = max(int(k) for k in model.P_UNIT[:, L.U_NWHEELS])
    fault = np.zeros(2)
    args = (y0, model, np.asarray(u_wheel, dtype=np.float64), np.zeros((3, 3)), np.zeros((most, 3)),
            np.zeros(most), np.zeros(3), np.zeros(3, dtype=np.int64), np.zeros(3), np.zeros(3),
            np.zeros(3), fault)
    w = compiled_entry(settle_kernel, args)(*args)
    if w >= 0:
        raise EventError([f"{wheel_names[w]}: off the terrain at X = {fault[0]:.6g} m, Y = "
                          f"{fault[1]:.6g} m at the start (no road polygon under the wheel): place "
                          "the vehicle on the road of the mesh or OpenCRG file (its initial X0, Y0, "
                          "yaw0)"])


def preload_lateral(model, y0, tire_loads, u_wheel, displaced=(), wheel_dz=None, wheel_names=None):
    """Start every unit of a settled combination (:func:`settle_on_terrain`) in equilibrium
    across its crossfall: each tire's lateral force carries the share of the weight component
    along the road's lateral direction that its normal load carries of the weight, and the
    roll moment of those forces about the CG is carried by the suspension and the tires
    (docs/equations.md, "Static equilibrium on a grade or a crossfall").

    Per unit, s = R[2, 1] / R[2, 2] of its settled frame (the earth z components of its y
    axis, in the road plane, and of its z axis, the road normal) is the tangent of its
    crossfall, the weight's lateral component over its normal one; tire t must give
    F_y' = -F_R s (the normal loads sum to m g cos), so its carcass
    state ky is preloaded to the deflection whose force (:func:`engine.tire.carcass`, the
    secant at the static load) is that. A rolling combination also gets the lateral velocity
    v of the slip angle that the sum of those forces needs, sin(alpha) = sum F / sum
    C_alpha' (without it the deflections would relax within a relaxation length); at rest the
    carcass holds the force itself. A towed unit whose joint carries vertical load P gets the
    joint's share P sin of its lateral weight: it stands P sin / K_C aside of the hitch along its
    y axis, so that the joint's spring (Eq. 117) carries it. Then every unit's heave and roll,
    a towed unit's lateral position, its independent wheels' displacements and its solid
    axles' heave and roll are solved
    (Newton, on the engine's own derivative) so that those accelerations vanish, the
    turning points of Eq. 93 following the deflections and the preload the normal loads. No
    longitudinal preload: on a grade free-rolling wheels are not in equilibrium.

    ``displaced``: the fields of the event's wheel displacements that move a wheel
    (``units[i].axles[j].wheel_displacement``, Eq. 15-17 and 58-62), if any (then called on
    flat ground too). Every unit's pitch is then solved as well (its pitch acceleration
    vanishing), and a towed unit's position along its x axis (its longitudinal acceleration
    the tow unit's), so that the vehicle starts at rest on its displaced wheels, its springs at
    the undisplaced vehicle's preloads. The iteration starts from the wheel centres where the
    undisplaced vehicle has them (:func:`_undisplaced_start`; ``wheel_dz``: each wheel's dz),
    and halves a step that leaves larger accelerations. A displacement the vehicle cannot
    stand on (a tire that would lift off or deflect beyond its max_deflection, or no
    equilibrium found) is an :class:`EventError` naming those fields (``wheel_names``: the
    wheels' names, for the messages)."""
    P_UNIT, P_WHEEL, P_TIRE = model.P_UNIT, model.P_WHEEL, model.P_TIRE
    nu, nw, nt = P_UNIT.shape[0], P_WHEEL.shape[0], P_TIRE.shape[0]
    na = model.P_AXLE.shape[0]
    lay = L.StateLayout.of_model(model)
    pitch = bool(displaced)
    rot = [_rotation(*y0[lay.at("body", u) + L.SPHI:lay.at("body", u) + L.SPSI + 1]) for u in range(nu)]
    unit_of = [int(P_WHEEL[int(P_TIRE[t, L.T_WHEEL]), L.W_UNIT]) for t in range(nt)]
    share = np.array([rot[u][2, 1] / rot[u][2, 2] for u in range(nu)])   # tan of the crossfall
    speed = [y0[lay.at("body", u) + L.SU] for u in range(nu)]

    def stiffness(loads):
        out = np.zeros(nt)
        for t in range(nt):
            mup, mus, sp, ca, _ = properties(P_TIRE, model.TT, t, loads[t], speed[unit_of[t]])
            out[t] = ca if ca > 0.0 else slip_stiffness(loads[t], mup, mus, sp)[2]
        return out

    # a rolling combination: one lateral velocity for all its units (no joint damper force)
    sin_a = np.zeros(nu)
    stiff = stiffness(tire_loads)
    for lead in set(int(k) for k in P_UNIT[:, L.U_LEAD]):
        members = [u for u in range(nu) if int(P_UNIT[u, L.U_LEAD]) == lead]
        tires = [t for t in range(nt) if unit_of[t] in members]
        s = float(np.sum(tire_loads[tires] * share[unit_of[tires[0]]]) / np.sum(stiff[tires]))
        if speed[lead] != 0.0 and abs(s) < 1.0:
            for u in members:
                y0[lay.at("body", u) + L.SV] = abs(speed[lead]) * s / math.sqrt(1.0 - s * s)
                sin_a[u] = s
    for c in range(model.P_CONN.shape[0]):                # the joints' lateral share, in unit order
        C = model.P_CONN[c]
        a, b = int(C[L.C_TOW]), int(C[L.C_TOWED])
        oa, ob = lay.at("body", a), lay.at("body", b)
        hitch = y0[oa + L.SX:oa + L.SZ + 1] + rot[a] @ C[L.C_AX:L.C_AZ + 1]
        aside = C[L.C_P0] * rot[b][2, 1] / C[L.C_K] if C[L.C_VERTICAL] > 0.5 else 0.0
        y0[ob + L.SX:ob + L.SZ + 1] = hitch - rot[b] @ C[L.C_BX:L.C_BZ + 1] + aside * rot[b][:, 1]

    def preload(loads):
        stiff = stiffness(loads)
        for t in range(nt):
            u = unit_of[t]
            o = lay.at("body", u)
            V = math.hypot(y0[o + L.SU], y0[o + L.SV])
            # the carcass force C k + C TAU_DAMP w dk/dt at the start (engine.tire.carcass,
            # its secant G = C in the linear range), solved for the k that gives F
            d = TAU_DAMP * max(0.0, 1.0 - V / V_LOW) * max(V, V_N)
            rl = P_TIRE[t, L.T_RLY]
            f = loads[t] * share[u]
            y0[lay.at("tire", t) + L.TKY] = (f * (d + rl) - d * stiff[t] * sin_a[u]) / (stiff[t] * rl)

    wb, ab = lay.base["wheel"], lay.base["axle"]
    body = (L.SZ, L.SPHI, L.STHETA) if pitch else (L.SZ, L.SPHI)
    rates = (L.SW, L.SP, L.SQ) if pitch else (L.SW, L.SP)
    unknowns = [lay.at("body", u) + k for u in range(nu) for k in body]
    residuals = [lay.at("body", u) + k for u in range(nu) for k in rates]
    for w in range(nw):
        if P_WHEEL[w, L.W_SOLID] < 0:
            unknowns.append(wb + L.N_WHEEL_STATE * w + L.WZ)
            residuals.append(wb + L.N_WHEEL_STATE * w + L.WZD)
    for c in range(model.P_CONN.shape[0]):          # a towed unit: aside of the hitch
        unknowns.append(lay.at("body", int(model.P_CONN[c, L.C_TOWED])) + L.SY)
        residuals.append(lay.at("body", int(model.P_CONN[c, L.C_TOWED])) + L.SV)
    for a in range(na):
        unknowns += [ab + L.N_AXLE_STATE * a + L.AZ, ab + L.N_AXLE_STATE * a + L.APHI]
        residuals += [ab + L.N_AXLE_STATE * a + L.AZD, ab + L.N_AXLE_STATE * a + L.APHID]
    # pitched units move their hitch points along x: a towed unit follows its tow unit's
    # (its longitudinal acceleration, relative to the tow unit's, vanishing)
    along = [(lay.at("body", int(model.P_CONN[c, L.C_TOWED])), lay.at("body", int(model.P_CONN[c, L.C_TOW])))
             for c in range(model.P_CONN.shape[0])] if pitch else []
    unknowns += [b + L.SX for b, _ in along]
    # the unknowns and residuals of each vehicle (its lead unit's): its Newton step is solved on
    # its own, so that a vehicle starts as in an event of its own (the Jacobian is block diagonal)
    lead = [int(P_UNIT[u, L.U_LEAD]) for u in range(nu)]
    owner = [lead[u] for u in range(nu) for _ in body]
    owner += [lead[int(P_WHEEL[w, L.W_UNIT])] for w in range(nw) if P_WHEEL[w, L.W_SOLID] < 0]
    owner += [lead[int(model.P_CONN[c, L.C_TOWED])] for c in range(model.P_CONN.shape[0])]
    owner += [lead[int(model.P_AXLE[a, L.AX_UNIT])] for a in range(na) for _ in (L.AZ, L.APHI)]
    owner += [lead[int(model.P_CONN[c, L.C_TOWED])] for c in range(len(along))]
    owner = np.array(owner)
    blocks = [np.flatnonzero(owner == lead) for lead in sorted(set(owner.tolist()))]
    evaluate = _derivative(model, u_wheel, y0.size)
    turns = [lay.at("tire", t) + L.TTURN for t in range(nt)]

    def residual(y):
        dy, y_tire = evaluate(y)
        r = dy[residuals]
        if along:
            r = np.concatenate([r, [dy[b + L.SU] - dy[a + L.SU] for b, a in along]])
        return r, y_tire

    if pitch:
        _undisplaced_start(model, y0, lay, np.asarray(wheel_dz, dtype=float))
    loads = tire_loads
    for _ in range(EQUILIBRIUM_ITERATIONS_PITCH if pitch else EQUILIBRIUM_ITERATIONS):
        preload(loads)
        r, y_tire = residual(y0)
        J = np.zeros((len(r), len(unknowns)))
        for j, i in enumerate(unknowns):
            y1 = y0.copy()
            y1[i] += EQUILIBRIUM_STEP
            J[:, j] = (residual(y1)[0] - r) / EQUILIBRIUM_STEP
        step = np.zeros(len(unknowns))
        for b in blocks:       # residuals and unknowns in the same owner order
            step[b] = solve_least_squares(J[np.ix_(b, b)], r[b])
        if pitch:
            # a step that leaves larger accelerations is halved (the start on displaced
            # wheels is further from equilibrium than a crossfall's)
            base = y0[unknowns].copy()
            for _ in range(EQUILIBRIUM_HALVINGS):
                y0[unknowns] = base - step
                if np.max(np.abs(residual(y0)[0])) < np.max(np.abs(r)):
                    break
                step = 0.5 * step
        else:
            y0[unknowns] -= step
        y_tire = evaluate(y0)[1]
        y0[turns] = y_tire[:, L.YT_DEFL]               # on the loading curve (Eq. 93)
        loads = y_tire[:, L.YT_FZ].copy()
    preload(loads)
    if pitch:
        _displaced_start_problems(model, y0, residual, displaced, wheel_names)


#: Newton iterations of the start on a crossfall (of a displaced vehicle, which starts further
#: from its equilibrium), and the finite-difference step (m, rad)
EQUILIBRIUM_ITERATIONS = 4
EQUILIBRIUM_ITERATIONS_PITCH = 8
EQUILIBRIUM_HALVINGS = 10
EQUILIBRIUM_STEP = 1e-6
#: the accelerations (m/s^2, rad/s^2) below which a displaced vehicle's start is at rest
DISPLACED_REST = 1e-6


def _undisplaced_start(model, y0, lay, dz):
    """The Newton start of a vehicle on displaced wheels: every wheel's centre where the
    undisplaced vehicle has it (an independent wheel's z-displacement, a solid axle's heave and
    roll, less its wheels' displacements dz), so that every tire starts on the ground at its static
    deflection (a raised wheel would start in the air, where its tire gives the Newton step no
    hold)."""
    P_WHEEL, P_AXLE = model.P_WHEEL, model.P_AXLE
    for w in range(P_WHEEL.shape[0]):
        if P_WHEEL[w, L.W_SOLID] < 0:
            y0[lay.at("wheel", w) + L.WZ] -= dz[w]
    for a in range(P_AXLE.shape[0]):
        ws = [w for w in range(P_WHEEL.shape[0]) if int(P_WHEEL[w, L.W_SOLID]) == a]
        left, right = (ws[0], ws[1]) if P_WHEEL[ws[0], L.W_SIDE] < 0 else (ws[1], ws[0])
        o = lay.at("axle", a)
        y0[o + L.AZ] -= 0.5 * (dz[left] + dz[right])
        y0[o + L.APHI] -= (dz[right] - dz[left]) / (P_WHEEL[right, L.W_Y0] - P_WHEEL[left, L.W_Y0])


def _displaced_start_problems(model, y0, residual, fields, wheel_names):
    """Raise :class:`EventError` when a vehicle with a wheel displacement has not been brought
    to rest (:func:`preload_lateral` with ``displaced``): a tire off the ground or beyond its
    max_deflection, or accelerations left; the message names the displacements' ``fields``."""
    P_WHEEL, P_TIRE = model.P_WHEEL, model.P_TIRE
    r, y_tire = residual(y0)
    names = wheel_names or [f"wheel {w}" for w in range(P_WHEEL.shape[0])]
    why = []
    for t in range(P_TIRE.shape[0]):
        w = int(P_TIRE[t, L.T_WHEEL])
        if not y_tire[t, L.YT_FZ] > 0.0:
            why.append(f"{names[w]} would lift off")
        elif not y_tire[t, L.YT_DEFL] < P_TIRE[t, L.T_DMAX]:
            why.append(f"{names[w]}'s tire would deflect {y_tire[t, L.YT_DEFL]:.4g} m, beyond its "
                       f"max_deflection {P_TIRE[t, L.T_DMAX]:.4g} m")
    if not why and not np.max(np.abs(r), initial=0.0) <= DISPLACED_REST:
        why.append(f"no equilibrium found (an acceleration of {np.max(np.abs(r)):.3g} left)")
    if why:
        raise EventError([f"{', '.join(fields)}: the vehicle cannot stand on its displaced wheels "
                          f"({'; '.join(dict.fromkeys(why))}); give smaller displacements"])


def _derivative(model, u_wheel, n):
    """A function y -> (dy, tire outputs) of the engine's derivative at the inputs' start
    values (``u_wheel``: the wheel inputs)."""
    from ..integrator import record
    U = L.Inputs(np.array([[INPUT_LIMITS[f][2] for f in L.UNIT_INPUTS]] * model.P_UNIT.shape[0]),
                 np.array(u_wheel, dtype=np.float64), np.array([INPUT_LIMITS[f][2] for f in L.ENV_INPUTS]))
    Y = L.Outputs(np.zeros((model.P_UNIT.shape[0], len(L.UNIT_OUTPUTS))),
                  np.zeros((model.P_WHEEL.shape[0], len(L.WHEEL_OUTPUTS))),
                  np.zeros((model.P_TIRE.shape[0], len(L.TIRE_OUTPUTS))),
                  np.zeros((model.P_AXLE.shape[0], len(L.AXLE_OUTPUTS))),
                  np.zeros((model.P_CONN.shape[0], len(L.HITCH_OUTPUTS))),
                  np.zeros((int(np.sum(model.P_UNIT[:, L.U_STEER_SLOT] >= 0)), len(L.STEERING_OUTPUTS))))
    W = L.new_work(model)
    err = np.zeros(2, dtype=np.int64)
    kernel = []     # record's entry point for these arrays, once the first state is known

    def evaluate(y):
        dy = np.zeros(n)
        err[:] = 0
        args = (np.ascontiguousarray(y, dtype=np.float64), dy, U, model, Y, err, W)
        if not kernel:
            kernel.append(compiled_entry(record, args))
        kernel[0](*args)
        return dy, Y.y_tire.copy()
    return evaluate


def _rotation(phi, theta, psi):
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(phi, theta, psi), R)
    return R
