"""Pack a validated event into the flat arrays of the hot path, in its static equilibrium.

Parameters are validated once (``engine.event``) and packed once here; the kernels only read
these arrays, through the named indices of ``engine.layout``. The static equilibrium the
simulation starts from is ``engine.equilibrium``'s.
"""
from __future__ import annotations

import math

import numpy as np

from . import layout as L
from .aerodynamics import air_density, surface_constant
from .equilibrium import connection_rates, links, place_units, static_state, wheels
from .event import EventError
from .hydroplaning import MODELS
from .kinematics import euler_trig, rotation_vehicle_to_earth
from .payload import adjusted
from .signals import INPUT_LIMITS
from .steering import mode_code, stop_damping, stop_limits, system_inertia
from .terrain import surface
from .terrain_mesh import empty_mesh


def _table(dst_x, dst_y, rows):
    n = len(rows)
    for i, (x, y) in enumerate(rows):
        dst_x[i] = x
        dst_y[i] = y
    return n


def bump_steer_coefficients(bump_steer, side):
    """Eq. 63 coefficients of one wheel (vehicle steer sign). A single polynomial is a toe
    change: the right wheel's (side +1), mirrored on the left (side -1), so that pure heave
    steers the axle's wheels apart or together, never the car."""
    if isinstance(bump_steer, dict):
        return bump_steer["right" if side > 0 else "left"]
    return [side * k for k in bump_steer]


def pack(event, friction_multiplier: float, initial: dict, u_wheel=None, steering_modes=None):
    """Return (Model, y0) for the event in static equilibrium (``engine.equilibrium``).

    ``steering_modes``: per unit name with a steering system, the steering mode's name
    (``engine.steering.MODES``) to use in place of the event's ``steering.mode``.

    ``initial``: per lead unit name, its speed0, X0, Y0 and yaw0; the units it tows start in
    line behind it at its speed. Every component coordinate is referred to the unit's CG with
    its payloads (Eq. 43). On a mesh or an external road the units stand on the terrain
    (:func:`settle_on_terrain`; ``u_wheel``: the wheel inputs that carry an external road).
    """
    d = event.data
    env = d["environment"]
    g = env["gravity"]
    rho = air_density(env["air_pressure"], env["air_temperature"])
    units = d["units"]
    statics, conn_statics = static_state(d)
    rates = connection_rates(d, statics)
    placement = place_units(d, statics, initial)
    names = [u["name"] for u in units]
    nu = len(units)
    nw = sum(2 * len(u["axles"]) for u in units)
    nt = sum(2 * (2 if a["dual"] else 1) for u in units for a in u["axles"])
    na = sum(1 for u in units for a in u["axles"] if a["suspension"]["type"] == "solid")
    nc = len(conn_statics)
    steering_units = event.steering_unit_names()
    steering_modes = steering_modes or {}
    ns = sum(len(u["aerodynamics"]) for u in units)
    drivetrains = [u["drivetrain"] for u in units if u.get("drivetrain")]

    # the tables and the gear list are as long as the event's longest (no fixed limit)
    n_eng = max([len(dt[k]) for dt in drivetrains
                 for k in ("engine_wot_torque", "engine_closed_throttle_torque")] + [1])
    n_wheel_table = max([len(a["suspension"][k]) for u in units for a in u["axles"]
                         for k in ("half_track_change", "camber_change")
                         if a["suspension"].get(k) is not None] + [1])
    n_gears = max([len(dt["transmission_ratios"]) for dt in drivetrains] + [0])
    P_UNIT = np.zeros((nu, L.N_UNIT_P))
    P_GEAR = np.zeros((nu, n_gears + 1))
    P_ENG = np.zeros((nu, 4, n_eng))
    N_ENG = np.zeros((nu, 2), dtype=np.int64)
    P_WHEEL = np.zeros((nw, L.N_WHEEL_P))
    T_WHEEL = np.zeros((nw, 4, n_wheel_table))
    P_TIRE = np.zeros((nt, L.N_TIRE_P))
    TT = np.zeros((nt, L.N_TIRE_PROPS, L.MAX_TIRE_TESTS, L.MAX_TIRE_TESTS))
    P_AERO = np.zeros((max(ns, 1), L.N_AERO_P))
    P_AXLE = np.zeros((na, L.N_AXLE_P))
    P_CONN = np.zeros((nc, L.N_CONN_P))
    P_ENV = np.zeros(L.N_ENV_P)
    P_ENV[L.E_G] = g
    P_ENV[L.E_RHO] = rho
    P_ENV[L.E_MU] = env["friction_multiplier"] * friction_multiplier
    P_ENV[L.E_GROUND_Z] = env["ground_elevation"]
    P_ENV[L.E_STEER_T0] = d["simulation"]["steer_dof_start_time"]

    y0 = np.zeros(L.state_size(nu, nw, nt, na, nc, len(steering_units)))
    lead = _leads(units)
    w = t = s = a_ = 0
    for ui, unit in enumerate(units):
        st = statics[ui]
        props = st.props
        dx, dy, dz = props.delta
        sm = unit["sprung_mass"]
        br = unit["brakes"]
        dt = unit.get("drivetrain")
        ix, iy, iz = props.inertia
        P = P_UNIT[ui]
        P[L.U_MS], P[L.U_IX], P[L.U_IY], P[L.U_IZ], P[L.U_IXZ] = props.mass, ix, iy, iz, props.Ixz
        P[L.U_CGH] = props.cg_height
        P[L.U_LEAD] = lead[ui]
        P[L.U_STEERING] = 1.0 if unit.get("steering") else 0.0
        P[L.U_STEER_RATIO] = unit["steering"]["gear_ratio"] if unit.get("steering") else 1.0
        _pack_steering(P, unit, steering_units, steering_modes)
        P[L.U_PEDAL_RATIO] = br.get("pedal_ratio") or 0.0
        P[L.U_PROP_START] = br["proportioning_start"]
        P[L.U_PROP_RATIO] = br["proportioning_ratio"]
        P[L.U_PUSHOUT] = br["pushout_pressure"]
        if dt:
            P[L.U_DIFF_RATIO] = dt["differential_ratio"]
            P[L.U_I_DT] = dt["inertia"]
            ratios = dt["transmission_ratios"]
            P[L.U_N_GEARS] = len(ratios)
            P_GEAR[ui, 0] = dt["reverse_ratio"]
            P_GEAR[ui, 1:1 + len(ratios)] = ratios
            N_ENG[ui, 0] = _table(P_ENG[ui, L.EM_WOT_X], P_ENG[ui, L.EM_WOT_Y], dt["engine_wot_torque"])
            N_ENG[ui, 1] = _table(P_ENG[ui, L.EM_CT_X], P_ENG[ui, L.EM_CT_Y],
                                  dt["engine_closed_throttle_torque"])
        P[L.U_WHEEL0] = w
        P[L.U_NWHEELS] = 2 * len(unit["axles"])
        P[L.U_AXLE0] = a_
        P[L.U_AERO0] = s
        P[L.U_NAERO] = len(unit["aerodynamics"])
        for surf in unit["aerodynamics"]:
            P_AERO[s, L.A_UNIT] = ui
            P_AERO[s, L.A_CA] = surface_constant(surf["drag_coefficient"], surf["area"], rho)
            P_AERO[s, L.A_CPX:L.A_CPZ + 1] = adjusted(surf["center_of_pressure"], props.delta)
            s += 1

        w0 = w
        wheel_list = wheels(unit)
        n_driven = sum(1 for _, ax, _ in wheel_list if ax["driven"])
        P[L.U_N_DRIVEN] = n_driven
        m_unsprung = 0.0
        axle_index = {}
        for j, (ai, ax, side) in enumerate(wheel_list):
            sus = ax["suspension"]
            solid = sus["type"] == "solid"
            tire = unit["tires"][ax["tire"]]
            ntires = 2 if ax["dual"] else 1
            defls = st.tire_deflections[j]
            r_loaded = tire["unloaded_radius"] - float(np.mean(defls))
            W = P_WHEEL[w]
            W[L.W_UNIT], W[L.W_AXLE], W[L.W_SIDE] = ui, ai, side
            W[L.W_X], W[L.W_Y0] = ax["x"] - dx, side * ax["track"] / 2.0 - dy
            W[L.W_Z0] = props.cg_height - r_loaded
            W[L.W_MUS] = ax["unsprung_mass_per_wheel"]
            m_unsprung += W[L.W_MUS]
            W[L.W_K], W[L.W_C], W[L.W_FMU] = sus["spring_rate"], sus["damping"], sus["coulomb_friction"]
            W[L.W_FS0] = st.fs0[j]
            W[L.W_KRS], W[L.W_TRACK] = sus["antisway_roll_stiffness"], ax["track"]
            W[L.W_PARTNER] = w + 1 if side < 0 else w - 1
            js, rs = sus["jounce_stop"], sus["rebound_stop"]
            W[L.W_JCL], W[L.W_JK1], W[L.W_JK3], W[L.W_JER] = js["clearance"], js["K1"], js["K3"], js["energy_ratio"]
            W[L.W_RCL], W[L.W_RK1], W[L.W_RK3], W[L.W_RER] = rs["clearance"], rs["K1"], rs["K3"], rs["energy_ratio"]
            W[L.W_STEERED] = 1.0 if ax["steered"] else 0.0
            W[L.W_DRIVEN] = 1.0 if ax["driven"] else 0.0
            if ax["driven"]:                                      # Eq. 32
                W[L.W_ZETA] = ax["torque_split"] if ax.get("torque_split") is not None else 1.0 / n_driven
            W[L.W_TB_RATIO] = ax["brake_torque_ratio"]
            W[L.W_PROPORTIONED] = 1.0 if ax["proportioned"] else 0.0
            W[L.W_ISPIN] = ntires * tire["spin_inertia"]
            W[L.W_TIRE0], W[L.W_NTIRES] = t, ntires
            W[L.W_SOLID] = -1.0
            if solid:
                if ai not in axle_index:
                    axle_index[ai] = a_
                    _pack_axle(P_AXLE[a_], ui, ax, props, r_loaded)
                    a_ += 1
                W[L.W_SOLID] = axle_index[ai]
                W[L.W_YS] = side * sus["spring_spacing"] / 2.0 - dy
            else:
                W[L.W_BS0:L.W_BS3 + 1] = bump_steer_coefficients(sus["bump_steer"], side)
                W[L.W_NHT] = _table(T_WHEEL[w, L.T_HT_X], T_WHEEL[w, L.T_HT_Y], sus["half_track_change"])
                W[L.W_NCAM] = _table(T_WHEEL[w, L.T_CAM_X], T_WHEEL[w, L.T_CAM_Y], sus["camber_change"])
            offsets = [0.0] if ntires == 1 else [-side * ax["dual_spacing"] / 2.0, side * ax["dual_spacing"] / 2.0]
            for off, defl in zip(offsets, defls):  # inner first, then outer
                _pack_tire(P_TIRE, TT, t, w, off, tire)
                # on its loading curve at the static deflection: the turning point of Eq. 93
                y0[L.tire_offset(nu, nw, t, na) + L.TTURN] = defl
                t += 1
            w += 1
        P[L.U_MTOTAL] = props.mass + m_unsprung
        P[L.U_NAXLES] = a_ - P[L.U_AXLE0]

        # initial state: static equilibrium, in line behind the lead unit at its speed
        speed = initial[names[lead[ui]]]["speed0"]
        X, Y, Z, yaw = placement[ui]
        o = L.unit_offset(ui)
        y0[o + L.SX], y0[o + L.SY], y0[o + L.SZ], y0[o + L.SPSI] = X, Y, Z, yaw
        y0[o + L.SU] = speed
        for wi in range(w0, w):
            y0[L.wheel_offset(nu, wi) + L.WOMEGA] = speed / (props.cg_height - P_WHEEL[wi, L.W_Z0])

    for c, (cs, link, (k_c, c_c)) in enumerate(zip(conn_statics, links(d), rates)):
        _pack_connection(P_CONN[c], units, statics, cs, link, k_c, c_c)
    mesh = getattr(event, "terrain_mesh", None) or empty_mesh()
    terrain = mesh[:7]               # TR_TRI .. TR_CELL, in the order of layout.Model
    P_ENV[L.E_TERRAIN] = TERRAIN_TYPES[(env.get("terrain") or {}).get("type", "flat")]
    P_ENV[L.E_HYDRO] = MODELS[d["simulation"].get("hydroplaning") or "off"]
    model = L.Model(P_UNIT, P_GEAR, P_ENG, N_ENG, P_WHEEL, T_WHEEL, P_TIRE, TT, P_AERO, P_ENV,
                    P_AXLE, P_CONN, *terrain)
    if P_ENV[L.E_TERRAIN] != L.TERRAIN_FLAT:
        u_wheel = u_wheel if u_wheel is not None else default_wheel_inputs(nw)
        settle_on_terrain(model, y0, event.wheel_names(), u_wheel)
    return model, y0


TERRAIN_TYPES = {"flat": L.TERRAIN_FLAT, "mesh": L.TERRAIN_MESH, "external": L.TERRAIN_EXTERNAL}


def default_wheel_inputs(n_wheels):
    """The wheel inputs' start values (engine.signals.INPUT_LIMITS), [wheel, WHEEL_INPUTS]."""
    u = np.zeros((n_wheels, len(L.WHEEL_INPUTS)))
    for j, f in enumerate(L.WHEEL_INPUTS):
        u[:, j] = INPUT_LIMITS[f][2]
    return u


def _terrain_plane(model, u_wheel, wheels, points, wheel_names):
    """The least-squares plane z = a + b X + c Y through the terrain under the earth XY
    ``points`` of ``wheels``: its downward unit normal n and d with n.P = d."""
    rows, zs = [], []
    for w, (X, Y) in zip(wheels, points):
        found, z, *_ = surface(model, u_wheel, w, X, Y, X, Y)
        if not found:
            raise EventError([f"{wheel_names[w]}: off the terrain at X = {X:.6g} m, Y = {Y:.6g} m at "
                              "the start (no road polygon under the wheel): place the vehicle on "
                              "the mesh (its initial X0, Y0, yaw0)"])
        rows.append((1.0, X, Y))
        zs.append(z)
    (a, b, c), *_ = np.linalg.lstsq(np.array(rows), np.array(zs), rcond=None)
    n = np.array([-b, -c, 1.0]) / math.sqrt(1.0 + b * b + c * c)
    return n, a * n[2]


def settle_on_terrain(model, y0, wheel_names, u_wheel):
    """Put every unit on the terrain under its wheels: each unit's body turned into the plane
    fitted through the terrain under its wheels (roll and pitch from its normal at the unit's
    yaw), its CG at its static height above that plane along the normal, so that it stands
    in its static equilibrium (the normal component of its weight; the along-slope part is
    what the simulation then feels); a towed unit moved onto its tow unit's hitch point."""
    P_UNIT, P_WHEEL = model.P_UNIT, model.P_WHEEL
    nu = P_UNIT.shape[0]
    for u in range(nu):
        o = L.unit_offset(u)
        X, Y, yaw = y0[o + L.SX], y0[o + L.SY], y0[o + L.SPSI]
        h = P_UNIT[u, L.U_CGH]
        w0, n = int(P_UNIT[u, L.U_WHEEL0]), int(P_UNIT[u, L.U_NWHEELS])
        wheels = list(range(w0, w0 + n))
        phi = theta = 0.0
        for _ in range(3):
            R = _rotation(phi, theta, yaw)
            feet = [R @ np.array([P_WHEEL[w, L.W_X], P_WHEEL[w, L.W_Y0], h]) for w in wheels]
            nrm, d = _terrain_plane(model, u_wheel, wheels, [(X + f[0], Y + f[1]) for f in feet],
                                    wheel_names)
            cp, sp = math.cos(yaw), math.sin(yaw)
            n1 = cp * nrm[0] + sp * nrm[1]               # the normal in the yawed frame
            n2 = -sp * nrm[0] + cp * nrm[1]
            phi = -math.asin(max(-1.0, min(1.0, n2)))
            theta = math.atan2(n1, nrm[2])
        Z = (d - h - nrm[0] * X - nrm[1] * Y) / nrm[2]
        y0[o + L.SZ], y0[o + L.SPHI], y0[o + L.STHETA] = Z, phi, theta
    for c in range(model.P_CONN.shape[0]):                # towed units in unit order
        C = model.P_CONN[c]
        a, b = int(C[L.C_TOW]), int(C[L.C_TOWED])
        oa, ob = L.unit_offset(a), L.unit_offset(b)
        Ra = _rotation(*y0[oa + L.SPHI:oa + L.SPSI + 1])
        Rb = _rotation(*y0[ob + L.SPHI:ob + L.SPSI + 1])
        hitch = y0[oa + L.SX:oa + L.SZ + 1] + Ra @ C[L.C_AX:L.C_AZ + 1]
        y0[ob + L.SX:ob + L.SZ + 1] = hitch - Rb @ C[L.C_BX:L.C_BZ + 1]


def _rotation(phi, theta, psi):
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(phi, theta, psi), R)
    return R


def _leads(units):
    """Per unit, the index of the lead unit at the head of its combination."""
    names = [u["name"] for u in units]
    lead = list(range(len(units)))
    for j, unit in enumerate(units):          # a tow unit is listed before the units it tows
        front = (unit.get("connections") or {}).get("front")
        if front is not None:
            lead[j] = lead[names.index(front["tow"])]
    return lead


def _pack_steering(P, unit, steering_units, steering_modes):
    """Pack a unit's steering system (Eq. 33-39, ``engine.steering``); its slot is -1 when it
    has none (no steering, or no steered axle). Values a mode does not use are 0."""
    P[L.U_STEER_SLOT] = -1.0
    P[L.U_STOP_LEFT] = P[L.U_STOP_RIGHT] = math.inf
    name = unit["name"]
    if name not in steering_units:
        return
    st = unit["steering"]
    P[L.U_STEER_SLOT] = steering_units.index(name)
    P[L.U_STEER_MODE] = mode_code(steering_modes.get(name, st["mode"]))
    P[L.U_STOP_LEFT], P[L.U_STOP_RIGHT] = stop_limits(st)
    n_steered = 2 * sum(1 for a in unit["axles"] if a["steered"])
    P[L.U_K_STOP] = st["stop_stiffness"] or 0.0
    P[L.U_I_STEER] = system_inertia(n_steered, st["steer_inertia"] or 0.0,
                                    st["column_inertia"] or 0.0, st["gear_ratio"])
    P[L.U_C_STOP] = stop_damping(P[L.U_K_STOP], P[L.U_I_STEER], n_steered)
    P[L.U_MU_AXIS] = n_steered * st["steer_axis_friction"]
    P[L.U_MU_COLUMN] = st["column_friction"]
    P[L.U_NULL_BAND] = st["null_band"] or math.inf    # read only by the free modes, which need it
    P[L.U_TRAIL_M] = st["mechanical_trail"]


def _pack_axle(A, ui, ax, props, r_loaded):
    """Pack one solid axle (Eq. 19-26): its roll centre and mass centre from the sprung CG."""
    sus = ax["suspension"]
    A[L.AX_UNIT] = ui
    A[L.AX_X] = ax["x"] - props.delta[0]
    A[L.AX_YC] = -props.delta[1]
    A[L.AX_ZRC] = props.cg_height - sus["roll_center_height"]
    A[L.AX_RHO] = sus["roll_center_height"] - r_loaded
    m = 2.0 * ax["unsprung_mass_per_wheel"]
    A[L.AX_M] = m
    A[L.AX_ICM] = sus["axle_roll_inertia"] - m * A[L.AX_RHO] ** 2
    A[L.AX_KRS] = sus["antisway_roll_stiffness"]
    A[L.AX_KAPPA] = sus["roll_steer"]
    A[L.AX_CAMBER] = sus["camber_set"]


def _pack_connection(C, units, statics, cs, link, k_c, c_c):
    """Pack one connection (Eq. 117-135) from the tow unit's rear and the towed unit's front."""
    tow, towed = units[cs.tow], units[cs.towed]
    rear, front = tow["connections"]["rear"], towed["connections"]["front"]
    C[L.C_TOW], C[L.C_TOWED] = cs.tow, cs.towed
    C[L.C_AX:L.C_AZ + 1] = adjusted(rear["point"], statics[cs.tow].props.delta)
    C[L.C_BX:L.C_BZ + 1] = adjusted(front["point"], statics[cs.towed].props.delta)
    C[L.C_K], C[L.C_C] = k_c, c_c
    C[L.C_VERTICAL] = 1.0 if link.vertical else 0.0
    C[L.C_P0] = cs.P
    ft, hf = rear["frame_torsion"], rear["hitch_friction"]
    C[L.C_KFRAME], C[L.C_CFRAME] = ft["stiffness"], ft["damping"]
    C[L.C_MU], C[L.C_RADIUS], C[L.C_NULL] = hf["coefficient"], hf["radius"], hf["null_band"]
    if link.pitch:
        C[L.C_KPITCH], C[L.C_CPITCH] = rear["pitch_stiffness"], rear["pitch_damping"]
        C[L.C_M0] = cs.M
    C[L.C_FAIL_F] = front["failure_force"] or 0.0
    C[L.C_FAIL_T] = front["failure_start_time"]


def _pack_tire(P_TIRE, TT, t, w, dy, tire):
    """Pack one tire; ``dy`` is its offset along the axle (vehicle y at zero steer)."""
    T = P_TIRE[t]
    T[L.T_WHEEL], T[L.T_DY] = w, dy
    T[L.T_RU] = tire["unloaded_radius"]
    T[L.T_KT] = tire["radial_stiffness"]
    T[L.T_KBAR] = tire["secondary_stiffness_multiplier"]
    T[L.T_D2] = tire["secondary_stiffness_deflection"]
    T[L.T_LAMBDA] = tire["rebound_multiplier"]
    T[L.T_DMAX] = tire["max_deflection"]
    T[L.T_SIG0] = tire["rolling_resistance"]["sigma0"]
    T[L.T_SIGV] = tire["rolling_resistance"]["sigma_v"]
    T[L.T_RLX] = tire["relaxation_length"]["longitudinal"]
    T[L.T_RLY] = tire["relaxation_length"]["lateral"]
    T[L.T_FZMIN] = tire["skid_flag"]["min_load"]
    T[L.T_PRESSURE] = tire.get("inflation_pressure") or 0.0
    T[L.T_TREAD] = tire.get("tread_depth") or 0.0
    T[L.T_WIDTH] = tire.get("width") or 0.0
    T[L.T_TAU] = tire["skid_flag"]["adhesion_fraction"]
    loads, speeds = tire["test_loads"], tire["test_speeds"]
    T[L.T_NLOAD], T[L.T_NSPEED] = len(loads), len(speeds)
    T[L.T_LOAD0:L.T_LOAD0 + len(loads)] = loads
    T[L.T_SPEED0:L.T_SPEED0 + len(speeds)] = speeds
    for k, key in ((L.TP_MUP, "peak_friction"), (L.TP_MUS, "slide_friction"), (L.TP_SP, "slip_at_peak"),
                   (L.TP_CA, "cornering_stiffness"), (L.TP_CG, "camber_stiffness")):
        grid = np.asarray(tire[key])
        TT[t, k, :grid.shape[0], :grid.shape[1]] = grid


