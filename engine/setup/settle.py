"""The start on a mesh or an external road: every unit settled on the terrain under its wheels
and, on a crossfall, in lateral equilibrium (docs/equations.md, "Static equilibrium on a grade or
a crossfall"). :func:`engine.setup.params.pack` calls it once the arrays are packed."""
from __future__ import annotations

import numpy as np

from .. import layout as L
from .errors import EventError
from ..jit import compiled_entry
from ..preload import EQUILIBRIUM_REST, PRELOAD_NOT_FINITE, preload_lateral as preload_kernel
from ..settle import pitch_partner, settle_on_terrain as settle_kernel
from ..signals import INPUT_LIMITS


def default_wheel_inputs(n_wheels):
    """The wheel inputs' start values (engine.signals.INPUT_LIMITS), [wheel, WHEEL_INPUTS]."""
    u = np.zeros((n_wheels, len(L.WHEEL_INPUTS)))
    for j, f in enumerate(L.WHEEL_INPUTS):
        u[:, j] = INPUT_LIMITS[f][2]
    return u


def settle_on_terrain(model, y0, wheel_names, u_wheel):
    """Put every unit on the terrain under its wheels: each unit's body turned into the plane
    fitted through the terrain under its wheels (roll and pitch from its normal at the unit's
    yaw), its CG at its static height above that plane along the normal, so that it stands
    in its static equilibrium (the normal component of its weight; the along-slope part is
    what the simulation then feels); a towed unit moved onto its tow unit's hitch point. The
    kernel :func:`engine.settle.settle_on_terrain` does it; a wheel off the terrain is an
    :class:`EventError` naming it."""
    args = (y0,) + settle_arguments(model, u_wheel)
    w = compiled_entry(settle_kernel, args)(*args)
    if w >= 0:
        fault = args[SETTLE_ARGS.index("fault")]
        raise EventError([f"{wheel_names[w]}{OFF_TERRAIN[0]}{fault[0]:.6g}{OFF_TERRAIN[1]}"
                          f"{fault[1]:.6g}{OFF_TERRAIN[2]}"])


#: the message of a start whose equilibrium's Newton step is not finite
NOT_FINITE = ("the start on the terrain: the equilibrium's Newton step is not finite (no "
              "equilibrium of the vehicle on the road under it was found)")
#: the accelerations (m/s^2, rad/s^2) a start on the terrain may leave: where the road under
#: the wheels has no smooth equilibrium (a wheel on a step's edge) or the Newton steps went
#: astray, the start is refused rather than begun far from rest. A start the steps bring near
#: rest but not to it (an articulated vehicle on a plane with a grade and a crossfall: up to
#: about 3 left) settles in its first moments; the starts that went astray left 25 and more
TERRAIN_REST = 10.0
#: the message of a start on the terrain not at rest, around the largest acceleration (%.3g)
NO_EQUILIBRIUM = ("the start on the terrain: no equilibrium of the vehicle on the road under it "
                  "was found (an acceleration of ", " left): the road under its wheels is too "
                  "steep to stand on or not smooth there; place the vehicle elsewhere (its "
                  "initial X0, Y0, yaw0)")
#: the message of a wheel off the terrain at the start, around its X and its Y (%.6g)
OFF_TERRAIN = (": off the terrain at X = ", " m, Y = ", " m at the start (no road polygon under "
               "the wheel): place the vehicle on the road of the mesh or OpenCRG file (its initial "
               "X0, Y0, yaw0)")
#: the arguments of the kernel :func:`engine.settle.settle_on_terrain`, in order
SETTLE_ARGS = ("y", "P", "u_wheel", "R", "A", "b", "x", "perm", "tau", "rz", "xp", "fault")


def settle_arguments(model, u_wheel) -> tuple:
    """The arguments after the state of the kernel :func:`engine.settle.settle_on_terrain`
    (:data:`SETTLE_ARGS`): the model, the wheel inputs and the kernel's scratch."""
    wheels = [int(k) for k in model.P_UNIT[:, L.U_NWHEELS]]
    # two units joined rigid in pitch stand in one plane through the wheels of both
    partners = [pitch_partner(model, u) for u in range(len(wheels))]
    most = max(wheels[u] + (wheels[p] if p >= 0 else 0) for u, p in enumerate(partners))
    return (model, np.array(u_wheel, dtype=np.float64), np.zeros((3, 3)), np.zeros((most, 3)),
            np.zeros(most), np.zeros(3), np.zeros(3, dtype=np.int64), np.zeros(3), np.zeros(3),
            np.zeros(3), np.zeros(2))


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
    wheels' names, for the messages).

    The kernel :func:`engine.preload.preload_lateral` takes those steps over the tables
    :func:`preload_arguments` packs."""
    pitch = bool(displaced)
    args = preload_arguments(model, tire_loads, u_wheel, pitch, wheel_dz)
    status = compiled_entry(preload_kernel, (y0,) + args)(y0, *args)
    if status == PRELOAD_NOT_FINITE:
        raise EventError([NOT_FINITE])
    problem = terrain_rest_problem(args[PRELOAD_ARGS.index("vn") - 1][0], pitch)
    if problem:
        raise EventError([problem])
    if pitch:
        # the accelerations left (vn[0]) and the tires' outputs (Y) at the start
        r, Y = args[PRELOAD_ARGS.index("vn") - 1][0], args[PRELOAD_ARGS.index("Y") - 1]
        _displaced_start_problems(model, r, Y.y_tire, displaced, wheel_names)


def terrain_rest_problem(r, pitch) -> str | None:
    """The message of a start on the terrain (not on displaced wheels, ``pitch`` False, which
    :func:`displaced_start_problem` judges) whose accelerations ``r`` left are beyond
    :data:`TERRAIN_REST`, or None."""
    most = np.max(np.abs(r), initial=0.0)
    if pitch or most <= TERRAIN_REST:
        return None
    return f"{NO_EQUILIBRIUM[0]}{most:.3g}{NO_EQUILIBRIUM[1]}"


#: the arguments of the kernel :func:`engine.preload.preload_lateral`, in order
PRELOAD_ARGS = ("y", "U", "P", "Y", "err", "W", "dy", "tires", "groups", "group0", "unknowns",
                "residuals", "blocks", "block0", "start_at", "start_by", "tire_loads", "pitch",
                "R", "vn", "J", "vt", "vu", "A", "vb", "perm")
#: the accelerations (m/s^2, rad/s^2) below which a displaced vehicle's start is at rest
DISPLACED_REST = EQUILIBRIUM_REST


def preload_arguments(model, tire_loads, u_wheel, pitch, wheel_dz=None) -> tuple:
    """The arguments after the state of the kernel :func:`engine.preload.preload_lateral`
    (:data:`PRELOAD_ARGS`) for ``model``: its index tables, the derivative's inputs at their
    start values (``u_wheel``: the wheel inputs), outputs and scratch, and the kernel's
    scratch. ``pitch``: the start on displaced wheels (``wheel_dz``: each wheel's dz)."""
    P_UNIT, P_WHEEL, P_TIRE = model.P_UNIT, model.P_WHEEL, model.P_TIRE
    nu, nw, nt = P_UNIT.shape[0], P_WHEEL.shape[0], P_TIRE.shape[0]
    na, nc = model.P_AXLE.shape[0], model.P_CONN.shape[0]
    lay = L.StateLayout.of_model(model)
    unit_of = [int(P_WHEEL[int(P_TIRE[t, L.T_WHEEL]), L.W_UNIT]) for t in range(nt)]
    tires = np.array([(unit_of[t], lay.at("tire", t) + L.TKY, lay.at("tire", t) + L.TTURN)
                      for t in range(nt)], dtype=np.int64).reshape(nt, 3)
    lead = [int(P_UNIT[u, L.U_LEAD]) for u in range(nu)]
    # the tires of each combination (its lead unit's), in tire order
    groups = [[t for t in range(nt) if lead[unit_of[t]] == k] for k in sorted(set(lead))]
    body = (L.SZ, L.SPHI, L.STHETA) if pitch else (L.SZ, L.SPHI)
    rates = (L.SW, L.SP, L.SQ) if pitch else (L.SW, L.SP)
    wb, ab = lay.base["wheel"], lay.base["axle"]
    unknowns = [lay.at("body", u) + k for u in range(nu) for k in body]
    residuals = [(lay.at("body", u) + k, -1) for u in range(nu) for k in rates]
    owner = [lead[u] for u in range(nu) for _ in body]
    if not pitch:
        # two units joined rigid in pitch (a fixed dolly and its trailer) stand in one plane
        # (engine.settle): their pitch, which the joint holds together, is solved as well
        for u in range(nu):
            if pitch_partner(model, u) >= 0:
                unknowns.append(lay.at("body", u) + L.STHETA)
                residuals.append((lay.at("body", u) + L.SQ, -1))
                owner.append(lead[u])
    for w in range(nw):
        if P_WHEEL[w, L.W_SOLID] < 0:
            unknowns.append(wb + L.N_WHEEL_STATE * w + L.WZ)
            residuals.append((wb + L.N_WHEEL_STATE * w + L.WZD, -1))
            owner.append(lead[int(P_WHEEL[w, L.W_UNIT])])
    for c in range(nc):                             # a towed unit: aside of the hitch
        if model.P_CONN[c, L.C_DRAWBAR] > 0.0:
            continue        # a full trailer stands on its own wheels (engine.preload)
        b = lay.at("body", int(model.P_CONN[c, L.C_TOWED]))
        unknowns.append(b + L.SY)
        residuals.append((b + L.SV, -1))
        owner.append(lead[int(model.P_CONN[c, L.C_TOWED])])
    for a in range(na):
        o = ab + L.N_AXLE_STATE * a
        unknowns += [o + L.AZ, o + L.APHI]
        residuals += [(o + L.AZD, -1), (o + L.APHID, -1)]
        owner += [lead[int(model.P_AXLE[a, L.AX_UNIT])]] * 2
    if pitch:
        # pitched units move their hitch points along x: a towed unit follows its tow unit's
        # (its longitudinal acceleration, relative to the tow unit's, vanishing)
        for c in range(nc):
            b = lay.at("body", int(model.P_CONN[c, L.C_TOWED]))
            unknowns.append(b + L.SX)
            residuals.append((b + L.SU, lay.at("body", int(model.P_CONN[c, L.C_TOW])) + L.SU))
            owner.append(lead[int(model.P_CONN[c, L.C_TOWED])])
    # the unknowns and residuals of each vehicle (its lead unit's): its Newton step is solved on
    # its own, so that a vehicle starts as in an event of its own (the Jacobian is block diagonal)
    owner = np.array(owner)
    blocks = [np.flatnonzero(owner == k) for k in sorted(set(owner.tolist()))]
    start_at, start_by = _undisplaced_start(model, lay, wheel_dz) if pitch else ([], [])
    n, most = len(unknowns), max(len(b) for b in blocks)
    U = L.Inputs(np.array([[INPUT_LIMITS[f][2] for f in L.UNIT_INPUTS]] * nu),
                 np.array(u_wheel, dtype=np.float64), np.array([INPUT_LIMITS[f][2] for f in L.ENV_INPUTS]))
    Y = L.Outputs(np.zeros((nu, len(L.UNIT_OUTPUTS))), np.zeros((nw, len(L.WHEEL_OUTPUTS))),
                  np.zeros((nt, len(L.TIRE_OUTPUTS))), np.zeros((na, len(L.AXLE_OUTPUTS))),
                  np.zeros((nc, len(L.HITCH_OUTPUTS))),
                  np.zeros((int(np.sum(P_UNIT[:, L.U_STEER_SLOT] >= 0)), len(L.STEERING_OUTPUTS))),
                  np.zeros((1, len(L.SOLVER_OUTPUTS))))
    return (U, model, Y, np.zeros(2, dtype=np.int64), L.new_work(model), np.zeros(lay.size), tires,
            np.array([t for g in groups for t in g], dtype=np.int64),
            np.cumsum([0] + [len(g) for g in groups]).astype(np.int64),
            np.array(unknowns, dtype=np.int64), np.array(residuals, dtype=np.int64).reshape(-1, 2),
            np.concatenate(blocks).astype(np.int64),
            np.cumsum([0] + [len(b) for b in blocks]).astype(np.int64),
            np.array(start_at, dtype=np.int64), np.array(start_by, dtype=np.float64),
            np.array(tire_loads, dtype=np.float64), int(pitch), np.zeros((3, 3)), np.zeros((4, n)),
            np.zeros((n, n)), np.zeros((2, nt)), np.zeros((2, nu)), np.zeros((most, most)),
            np.zeros((5, most)), np.zeros(most, dtype=np.int64))


def _undisplaced_start(model, lay, dz):
    """The Newton start of a vehicle on displaced wheels: every wheel's centre where the
    undisplaced vehicle has it (an independent wheel's z-displacement, a solid axle's heave and
    roll, less its wheels' displacements dz), so that every tire starts on the ground at its static
    deflection (a raised wheel would start in the air, where its tire gives the Newton step no
    hold). Returns (state indices, amounts): the kernel subtracts each amount from its state."""
    P_WHEEL, P_AXLE = model.P_WHEEL, model.P_AXLE
    dz = np.asarray(dz, dtype=float)
    at, by = [], []
    for w in range(P_WHEEL.shape[0]):
        if P_WHEEL[w, L.W_SOLID] < 0:
            at.append(lay.at("wheel", w) + L.WZ)
            by.append(dz[w])
    for a in range(P_AXLE.shape[0]):
        ws = [w for w in range(P_WHEEL.shape[0]) if int(P_WHEEL[w, L.W_SOLID]) == a]
        left, right = (ws[0], ws[1]) if P_WHEEL[ws[0], L.W_SIDE] < 0 else (ws[1], ws[0])
        o = lay.at("axle", a)
        at += [o + L.AZ, o + L.APHI]
        by += [0.5 * (dz[left] + dz[right]),
               (dz[right] - dz[left]) / (P_WHEEL[right, L.W_Y0] - P_WHEEL[left, L.W_Y0])]
    return at, by


def _displaced_start_problems(model, r, y_tire, fields, wheel_names):
    """Raise :class:`EventError` with :func:`displaced_start_problem`'s message, if any."""
    problem = displaced_start_problem(model, r, y_tire, fields, wheel_names)
    if problem:
        raise EventError([problem])


#: the message of a vehicle that cannot stand on its displaced wheels, around the fields, and
#: its reasons: a tire off the ground, one beyond its max_deflection (around the deflection and
#: the limit, %.4g), accelerations left (around the largest, %.3g)
STAND = (": the vehicle cannot stand on its displaced wheels (", "); give smaller displacements")
LIFT_OFF = " would lift off"
DEFLECT = ("'s tire would deflect ", " m, beyond its max_deflection ", " m")
NO_REST = ("no equilibrium found (an acceleration of ", " left)")


def displaced_start_problem(model, r, y_tire, fields, wheel_names) -> str | None:
    """Why a vehicle with a wheel displacement has not been brought to rest
    (:func:`preload_lateral` with ``displaced``; ``r``: the accelerations left, ``y_tire``:
    the tires' outputs at the start): a tire off the ground or beyond its max_deflection, or
    accelerations left; the message names the displacements' ``fields``. None: at rest."""
    P_WHEEL, P_TIRE = model.P_WHEEL, model.P_TIRE
    names = wheel_names or [f"wheel {w}" for w in range(P_WHEEL.shape[0])]
    why = []
    for t in range(P_TIRE.shape[0]):
        w = int(P_TIRE[t, L.T_WHEEL])
        if not y_tire[t, L.YT_FZ] > 0.0:
            why.append(f"{names[w]}{LIFT_OFF}")
        elif not y_tire[t, L.YT_DEFL] < P_TIRE[t, L.T_DMAX]:
            why.append(f"{names[w]}{DEFLECT[0]}{y_tire[t, L.YT_DEFL]:.4g}{DEFLECT[1]}"
                       f"{P_TIRE[t, L.T_DMAX]:.4g}{DEFLECT[2]}")
    if not why and not np.max(np.abs(r), initial=0.0) <= DISPLACED_REST:
        why.append(f"{NO_REST[0]}{np.max(np.abs(r)):.3g}{NO_REST[1]}")
    if not why:
        return None
    return f"{', '.join(fields)}{STAND[0]}{'; '.join(dict.fromkeys(why))}{STAND[1]}"
