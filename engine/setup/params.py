"""Pack a validated event into the flat arrays of the hot path, in its static equilibrium.

Parameters are validated once (``engine.setup.event``) and packed once here; the kernels only read
these arrays, through the named indices of ``engine.layout``. The static equilibrium the
simulation starts from is ``engine.setup.equilibrium``'s.
"""
from __future__ import annotations

import math

import numpy as np

from .. import layout as L
from ..aerodynamics import DEVICE_AXIS, SURFACES, surface_constant
from ..brakes import design_torque_ratio
from .collision import pack_barriers, pack_collisions, pack_pairs
from .derived import air_density, loaded_radius, unit_mass
from .event import BRAKE_METHODS, DRIVE_METHODS
from ..drivetrain import RPM, engine_torque, gear_ratio
from .equilibrium import connection_rates, links, place_units, static_state, wheels
from .event import EventError
from ..hydroplaning import MODELS
from ..kinematics import euler_trig, rotation_vehicle_to_earth
from .payload import adjusted
from ..signals import INPUT_LIMITS
from ..steering import mode_code, stop_damping, stop_limits, system_inertia
from ..terrain import surface
from .meshes import empty_mesh
from .model import Sides
from .wheel_meshes import pack_reach, pack_wheel_meshes
from ..tire import TAU_DAMP, V_LOW, V_N, properties, slip_stiffness


def _table(dst_x, dst_y, rows):
    n = len(rows)
    for i, (x, y) in enumerate(rows):
        dst_x[i] = x
        dst_y[i] = y
    return n


def bump_steer_coefficients(bump_steer, side):
    """Eq. 63 coefficients of one wheel (vehicle steer sign). A single polynomial is a toe
    change: the right wheel's (side +1), mirrored on the left (side -1), so that pure heave
    steers the axle's wheels apart or together, never the car. ``bump_steer``: one list, or
    per side (:class:`engine.setup.model.Sides`)."""
    if isinstance(bump_steer, Sides):
        return bump_steer.right if side > 0 else bump_steer.left
    return [side * k for k in bump_steer]


def pack(event, friction_multiplier: float, initial: dict, u_wheel=None, steering_modes=None):
    """Return (Model, y0) for the event in static equilibrium (``engine.setup.equilibrium``).

    ``steering_modes``: per unit name with a steering system, the steering mode's name
    (``engine.steering.MODES``) to use in place of the event's ``steering.mode``.

    ``initial``: per lead unit name, its speed0, X0, Y0 and yaw0; the units it tows start in
    line behind it at its speed. Every component coordinate is referred to the unit's CG with
    its payloads (Eq. 43). On a mesh or an external road the units stand on the terrain
    (:func:`settle_on_terrain`; ``u_wheel``: the wheel inputs that carry an external road).
    """
    d = event.model
    env = d.environment
    g = env.gravity
    rho = air_density(d)
    units = d.units
    statics, conn_statics = static_state(d)
    rates = connection_rates(d, statics)
    placement = place_units(d, statics, initial)
    names = [u.name for u in units]
    nu = len(units)
    nw = sum(2 * len(u.axles) for u in units)
    nt = sum(2 * (2 if a.dual else 1) for u in units for a in u.axles)
    na = sum(1 for u in units for a in u.axles if a.suspension.type == "solid")
    nc = len(conn_statics)
    steering_units = event.steering_unit_names()
    steering_modes = steering_modes or {}
    ns = sum(len(u.aerodynamics) for u in units)
    drivetrains = [u.drivetrain for u in units if u.drivetrain]

    # the tables and the gear list are as long as the event's longest (no fixed limit)
    n_eng = max([len(table) for dt in drivetrains
                 for table in (dt.engine_wot_torque, dt.engine_closed_throttle_torque)] + [1])
    n_wheel_table = max([len(table) for u in units for a in u.axles
                         for table in (a.suspension.half_track_change, a.suspension.camber_change)
                         if table is not None] + [1])
    n_gears = max([len(dt.transmission_ratios) for dt in drivetrains] + [0])
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
    P_ENV[L.E_MU] = env.friction_multiplier * friction_multiplier
    P_ENV[L.E_GROUND_Z] = env.ground_elevation
    t0 = d.simulation.steer_dof_start_time
    P_ENV[L.E_STEER_T0] = math.inf if t0 is None else t0      # autostart: at contact only

    deltas = [st.props.delta for st in statics]
    mesh = getattr(event, "terrain_mesh", None) or empty_mesh()
    P_COLL, CV, CK, terrain_top = pack_collisions(units, deltas, [unit_mass(u) for u in units], mesh.TR_TRI)
    # the wheels' meshes follow every unit's exterior in CV (engine.wheel_damage)
    P_WCOLL, wheel_cv, wheel_ck = pack_wheel_meshes(units, CV.shape[0])
    CV = np.ascontiguousarray(np.concatenate([CV, wheel_cv]))
    CK = np.ascontiguousarray(np.concatenate([CK, wheel_ck]))
    P_BAR = pack_barriers(env.barriers, mesh.walls)
    P_PAIR = pack_pairs(units, deltas)
    lay = L.StateLayout(nu, nw, na, nt, nc, len(steering_units), CV.shape[0], P_PAIR.shape[0])
    y0 = np.zeros(lay.size)
    lay.pack_bases(P_ENV)
    P_ENV[L.E_COLL_T_ENV] = d.simulation.collisions.environment_start_time
    P_ENV[L.E_COLL_T_VEH] = d.simulation.collisions.vehicle_start_time
    P_ENV[L.E_TERRAIN_TOP] = terrain_top
    designs = []                    # the brake designs, in wheel order (engine.brakes)
    tire_loads = np.zeros(nt)
    lead = _leads(units)
    w = t = s = a_ = 0
    for ui, unit in enumerate(units):
        st = statics[ui]
        props = st.props
        dx, dy, dz = props.delta
        br = unit.brakes
        dt = unit.drivetrain
        ix, iy, iz = props.inertia
        P = P_UNIT[ui]
        P[L.U_MS], P[L.U_IX], P[L.U_IY], P[L.U_IZ], P[L.U_IXZ] = props.mass, ix, iy, iz, props.Ixz
        P[L.U_CGH] = props.cg_height
        P[L.U_LEAD] = lead[ui]
        P[L.U_STEERING] = 1.0 if unit.steering else 0.0
        P[L.U_STEER_RATIO] = unit.steering.gear_ratio if unit.steering else 1.0
        _pack_steering(P, unit, steering_units, steering_modes)
        P[L.U_PEDAL_RATIO] = br.pedal_ratio or 0.0
        P[L.U_PROP_START] = br.proportioning_start
        P[L.U_PROP_RATIO] = br.proportioning_ratio
        P[L.U_PUSHOUT] = br.pushout_pressure
        P[L.U_TAU_P] = br.pressure_time_constant
        P[L.U_BRAKE_TABLE] = BRAKE_METHODS.index(br.method or "pedal")
        P[L.U_DRIVE_TABLE] = DRIVE_METHODS.index((dt.method if dt else None) or "engine")
        if dt:
            P[L.U_DIFF_RATIO] = dt.differential_ratio
            P[L.U_I_DT] = dt.inertia
            if dt.idle_speed is not None:
                to_rad_s = 1.0 / RPM
                P[L.U_IDLE] = dt.idle_speed * to_rad_s
                P[L.U_GOV_KP] = dt.idle_governor.gain
                P[L.U_GOV_TI] = dt.idle_governor.integral_time
                P[L.U_CL_CAP] = dt.clutch.capacity
                P[L.U_CL_W0] = dt.clutch.engagement_start * to_rad_s
                P[L.U_CL_W1] = dt.clutch.full_engagement * to_rad_s
                P[L.U_CL_TAU] = dt.clutch.actuation_time
            ratios = dt.transmission_ratios
            P[L.U_N_GEARS] = len(ratios)
            P_GEAR[ui, 0] = dt.reverse_ratio
            P_GEAR[ui, 1:1 + len(ratios)] = ratios
            N_ENG[ui, 0] = _table(P_ENG[ui, L.EM_WOT_X], P_ENG[ui, L.EM_WOT_Y], dt.engine_wot_torque)
            N_ENG[ui, 1] = _table(P_ENG[ui, L.EM_CT_X], P_ENG[ui, L.EM_CT_Y],
                                  dt.engine_closed_throttle_torque)
        P[L.U_WHEEL0] = w
        P[L.U_NWHEELS] = 2 * len(unit.axles)
        P[L.U_AXLE0] = a_
        P[L.U_AERO0] = s
        P[L.U_NAERO] = len(unit.aerodynamics)
        for surf in unit.aerodynamics:
            P_AERO[s, L.A_UNIT] = ui
            P_AERO[s, L.A_CA] = surface_constant(surf.drag_coefficient, surf.area, rho)
            P_AERO[s, L.A_CPX:L.A_CPZ + 1] = adjusted(surf.center_of_pressure, props.delta)
            P_AERO[s, L.A_AXIS], P_AERO[s, L.A_FACE] = SURFACES.get(surf.name, (DEVICE_AXIS, 0))
            P_AERO[s, L.A_CL] = surface_constant(surf.lift_coefficient or 0.0, surf.area, rho)
            s += 1

        w0 = w
        wheel_list = wheels(unit)
        n_driven = sum(1 for _, ax, _ in wheel_list if ax.driven)
        P[L.U_N_DRIVEN] = n_driven
        axle_index = {}
        for j, (ai, ax, side) in enumerate(wheel_list):
            sus = ax.suspension
            solid = sus.type == "solid"
            tire = unit.tires[ax.tire]
            ntires = 2 if ax.dual else 1
            defls = st.tire_deflections[j]
            r_loaded = loaded_radius(tire, defls)
            W = P_WHEEL[w]
            W[L.W_UNIT], W[L.W_AXLE], W[L.W_SIDE] = ui, ai, side
            W[L.W_X], W[L.W_Y0] = ax.x - dx, side * ax.track / 2.0 - dy
            W[L.W_Z0] = props.cg_height - r_loaded
            W[L.W_MUS] = ax.unsprung_mass_per_wheel
            W[L.W_K], W[L.W_C], W[L.W_FMU] = sus.spring_rate, sus.damping, sus.coulomb_friction
            W[L.W_FS0] = st.fs0[j]
            W[L.W_KRS], W[L.W_TRACK] = sus.antisway_roll_stiffness, ax.track
            W[L.W_PARTNER] = w + 1 if side < 0 else w - 1
            js, rs = sus.jounce_stop, sus.rebound_stop
            W[L.W_JCL], W[L.W_JK1], W[L.W_JK3], W[L.W_JER] = js.clearance, js.K1, js.K3, js.energy_ratio
            W[L.W_RCL], W[L.W_RK1], W[L.W_RK3], W[L.W_RER] = rs.clearance, rs.K1, rs.K3, rs.energy_ratio
            W[L.W_STEERED] = 1.0 if ax.steered else 0.0
            W[L.W_DRIVEN] = 1.0 if ax.driven else 0.0
            if ax.driven:                                         # Eq. 32
                W[L.W_ZETA] = ax.torque_split if ax.torque_split is not None else 1.0 / n_driven
            W[L.W_BRAKE] = -1.0
            design = ax.brake_design
            if design is None:
                W[L.W_TB_RATIO] = ax.brake_torque_ratio
            else:
                W[L.W_BRAKE] = len(designs)
                designs.append(design)
            W[L.W_PROPORTIONED] = 1.0 if ax.proportioned else 0.0
            W[L.W_ISPIN] = ntires * tire.spin_inertia
            W[L.W_TIRE0], W[L.W_NTIRES] = t, ntires
            W[L.W_SOLID] = -1.0
            if solid:
                if ai not in axle_index:
                    axle_index[ai] = a_
                    _pack_axle(P_AXLE[a_], ui, ax, props, r_loaded)
                    a_ += 1
                W[L.W_SOLID] = axle_index[ai]
                W[L.W_YS] = side * sus.spring_spacing / 2.0 - dy
            else:
                W[L.W_BS0:L.W_BS3 + 1] = bump_steer_coefficients(sus.bump_steer, side)
                W[L.W_NHT] = _table(T_WHEEL[w, L.T_HT_X], T_WHEEL[w, L.T_HT_Y], sus.half_track_change)
                W[L.W_NCAM] = _table(T_WHEEL[w, L.T_CAM_X], T_WHEEL[w, L.T_CAM_Y], sus.camber_change)
            offsets = [0.0] if ntires == 1 else [-side * ax.dual_spacing / 2.0, side * ax.dual_spacing / 2.0]
            for off, defl, load in zip(offsets, defls, st.tire_loads[j]):  # inner first, then outer
                _pack_tire(P_TIRE, TT, t, w, off, tire)
                tire_loads[t] = load
                # on its loading curve at the static deflection: the turning point of Eq. 93
                y0[lay.at("tire", t) + L.TTURN] = defl
                t += 1
            w += 1
        P[L.U_MTOTAL] = unit_mass(unit)
        P[L.U_NAXLES] = a_ - P[L.U_AXLE0]

        # initial state: static equilibrium, in line behind the lead unit at its speed
        speed = initial[names[lead[ui]]]["speed0"]
        X, Y, Z, yaw = placement[ui]
        o = lay.at("body", ui)
        y0[o + L.SX], y0[o + L.SY], y0[o + L.SZ], y0[o + L.SPSI] = X, Y, Z, yaw
        y0[o + L.SU] = speed
        for wi in range(w0, w):
            y0[lay.at("wheel", wi) + L.WOMEGA] = speed / (props.cg_height - P_WHEEL[wi, L.W_Z0])

    for c, (cs, link, (k_c, c_c)) in enumerate(zip(conn_statics, links(d), rates)):
        _pack_connection(P_CONN[c], units, statics, cs, link, k_c, c_c)
    terrain = mesh[:7]               # TR_TRI .. TR_CELL, in the order of layout.Model
    P_ENV[L.E_TERRAIN] = TERRAIN_TYPES[env.terrain.type if env.terrain else "flat"]
    P_ENV[L.E_HYDRO] = MODELS[d.simulation.hydroplaning or "off"]
    P_ENV[L.E_AIR_T] = env.air_temperature
    P_BRAKE, T_BRAKE = _pack_brakes(designs)
    pack_reach(P_COLL, P_UNIT, P_WHEEL, P_WCOLL, units)
    model = L.Model(P_UNIT, P_GEAR, P_ENG, N_ENG, P_WHEEL, T_WHEEL, P_TIRE, TT, P_AERO, P_ENV,
                    P_AXLE, P_CONN, P_BRAKE, T_BRAKE, *terrain, P_COLL, CV, CK, P_BAR,
                    P_PAIR, P_WCOLL)
    for wi in range(nw):            # the brakes start at the air temperature, unpressurised
        y0[lay.at("wheel", wi) + L.WTEMP] = env.air_temperature
    for wi, bi in enumerate(P_WHEEL[:, L.W_BRAKE]):
        if bi >= 0:                 # the ratio a designed brake has cold and at rest
            P_WHEEL[wi, L.W_TB_RATIO] = design_torque_ratio(P_BRAKE, T_BRAKE, int(bi),
                                                            env.air_temperature, 0.0)
    _idle(model, y0)
    if P_ENV[L.E_TERRAIN] != L.TERRAIN_FLAT:
        u_wheel = u_wheel if u_wheel is not None else default_wheel_inputs(nw)
        settle_on_terrain(model, y0, event.wheel_names(), u_wheel)
        preload_lateral(model, y0, tire_loads, u_wheel)
    return model, y0


def _pack_brakes(designs):
    """P_BRAKE, T_BRAKE of the brake designs (engine.brakes; one zero row when there are none)."""
    rows = max([len(table) for d in designs for table in (d.brake_factor, d.lining_friction, d.speed_factor)
                if table] + [1])
    P_BRAKE = np.zeros((max(len(designs), 1), L.N_BRAKE_P))
    T_BRAKE = np.zeros((max(len(designs), 1), 6, rows))
    for b, d in enumerate(designs):
        P = P_BRAKE[b]
        P[L.B_AREA], P[L.B_RADIUS] = d.actuator_area, d.effective_radius
        P[L.B_HEAT], P[L.B_COOL0], P[L.B_COOL1] = d.heat_capacity, d.cooling, d.cooling_per_speed
        P[L.B_NBF] = _table(T_BRAKE[b, L.TB_BF_X], T_BRAKE[b, L.TB_BF_Y], d.brake_factor)
        P[L.B_NMU] = _table(T_BRAKE[b, L.TB_MU_X], T_BRAKE[b, L.TB_MU_Y], d.lining_friction)
        if d.speed_factor:
            P[L.B_NSPEED] = _table(T_BRAKE[b, L.TB_SP_X], T_BRAKE[b, L.TB_SP_Y], d.speed_factor)
    return P_BRAKE, T_BRAKE


def _powertrain(model, y, u):
    """The offset of unit u's powertrain states in y."""
    return L.StateLayout.of_model(model).at("powertrain", u)


def _idle(model, y0):
    """An engine with an idle speed starts idling, declutched: at its idle speed with the
    governor's integral at the throttle that holds it there (T_e = 0, Eq. 51)."""
    for u in range(model.P_UNIT.shape[0]):
        idle = model.P_UNIT[u, L.U_IDLE]
        if idle > 0.0:
            closed = engine_torque(model.P_ENG, model.N_ENG, u, idle, 0.0)
            wot = engine_torque(model.P_ENG, model.N_ENG, u, idle, 1.0)
            po = _powertrain(model, y0, u)
            y0[po + L.PT_OMEGA] = idle
            y0[po + L.PT_GOV] = min(1.0, max(0.0, -closed / (wot - closed))) if wot > closed else 1.0


def engage_clutches(model, y, u_unit):
    """At the start, an engine in gear turns with its wheels: its clutch starts locked and
    closed where the transmission turns faster than idle (the governor then closed), so that a vehicle
    started at speed in gear does not first spin its engine up from idle. Called before the
    first step, with the gear inputs the simulation starts with."""
    wb = L.StateLayout.of_model(model).base["wheel"]
    for u in range(model.P_UNIT.shape[0]):
        P = model.P_UNIT[u]
        if P[L.U_IDLE] <= 0.0 or P[L.U_N_DRIVEN] <= 0.0:
            continue
        ratio = gear_ratio(model.P_GEAR, u, int(round(u_unit[u, L.IU_GEAR]))) * P[L.U_DIFF_RATIO]
        w0, n = int(P[L.U_WHEEL0]), int(P[L.U_NWHEELS])
        spin = sum(y[wb + L.N_WHEEL_STATE * w + L.WOMEGA] for w in range(w0, w0 + n)
                   if model.P_WHEEL[w, L.W_DRIVEN] > 0.5)
        omega_t = ratio * spin / P[L.U_N_DRIVEN]
        po = _powertrain(model, y, u)
        if omega_t > P[L.U_IDLE]:
            y[po + L.PT_OMEGA] = omega_t
            y[po + L.PT_GOV] = 0.0
            y[po + L.PT_ENGAGE] = 1.0


#: the engine's terrain source of each event terrain type: an OpenCRG road is triangulated at load
#: (engine.setup.terrain_crg), so the engine looks it up as a mesh
TERRAIN_TYPES = {"flat": L.TERRAIN_FLAT, "mesh": L.TERRAIN_MESH, "crg": L.TERRAIN_MESH,
                 "external": L.TERRAIN_EXTERNAL}


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
                              "the road of the mesh or OpenCRG file (its initial X0, Y0, yaw0)"])
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
    lay = L.StateLayout.of_model(model)
    for u in range(nu):
        o = lay.at("body", u)
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
        oa, ob = lay.at("body", a), lay.at("body", b)
        Ra = _rotation(*y0[oa + L.SPHI:oa + L.SPSI + 1])
        Rb = _rotation(*y0[ob + L.SPHI:ob + L.SPSI + 1])
        hitch = y0[oa + L.SX:oa + L.SZ + 1] + Ra @ C[L.C_AX:L.C_AZ + 1]
        y0[ob + L.SX:ob + L.SZ + 1] = hitch - Rb @ C[L.C_BX:L.C_BZ + 1]


def preload_lateral(model, y0, tire_loads, u_wheel):
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
    longitudinal preload: on a grade free-rolling wheels are not in equilibrium."""
    P_UNIT, P_WHEEL, P_TIRE = model.P_UNIT, model.P_WHEEL, model.P_TIRE
    nu, nw, nt = P_UNIT.shape[0], P_WHEEL.shape[0], P_TIRE.shape[0]
    na = model.P_AXLE.shape[0]
    lay = L.StateLayout.of_model(model)
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
    unknowns = [lay.at("body", u) + k for u in range(nu) for k in (L.SZ, L.SPHI)]
    residuals = [lay.at("body", u) + k for u in range(nu) for k in (L.SW, L.SP)]
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
    # the unknowns and residuals of each vehicle (its lead unit's): its Newton step is solved on
    # its own, so that a vehicle starts as in an event of its own (the Jacobian is block diagonal)
    lead = [int(P_UNIT[u, L.U_LEAD]) for u in range(nu)]
    owner = [lead[u] for u in range(nu) for _ in (L.SZ, L.SPHI)]
    owner += [lead[int(P_WHEEL[w, L.W_UNIT])] for w in range(nw) if P_WHEEL[w, L.W_SOLID] < 0]
    owner += [lead[int(model.P_CONN[c, L.C_TOWED])] for c in range(model.P_CONN.shape[0])]
    owner += [lead[int(model.P_AXLE[a, L.AX_UNIT])] for a in range(na) for _ in (L.AZ, L.APHI)]
    owner = np.array(owner)
    blocks = [np.flatnonzero(owner == lead) for lead in sorted(set(owner.tolist()))]
    evaluate = _derivative(model, u_wheel, y0.size)
    turns = [lay.at("tire", t) + L.TTURN for t in range(nt)]

    def residual(y):
        dy, y_tire = evaluate(y)
        return dy[residuals], y_tire

    loads = tire_loads
    for _ in range(EQUILIBRIUM_ITERATIONS):
        preload(loads)
        r, y_tire = residual(y0)
        J = np.zeros((len(residuals), len(unknowns)))
        for j, i in enumerate(unknowns):
            y1 = y0.copy()
            y1[i] += EQUILIBRIUM_STEP
            J[:, j] = (residual(y1)[0] - r) / EQUILIBRIUM_STEP
        step = np.zeros(len(unknowns))
        for b in blocks:       # residuals and unknowns in the same owner order
            step[b] = np.linalg.lstsq(J[np.ix_(b, b)], r[b], rcond=None)[0]
        y0[unknowns] -= step
        y_tire = evaluate(y0)[1]
        y0[turns] = y_tire[:, L.YT_DEFL]               # on the loading curve (Eq. 93)
        loads = y_tire[:, L.YT_FZ].copy()
    preload(loads)


#: Newton iterations of the start on a crossfall, and the finite-difference step (m, rad)
EQUILIBRIUM_ITERATIONS = 4
EQUILIBRIUM_STEP = 1e-6


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

    def evaluate(y):
        dy = np.zeros(n)
        err[:] = 0
        record(y, dy, U, model, Y, err, W)
        return dy, Y.y_tire.copy()
    return evaluate


def _rotation(phi, theta, psi):
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(phi, theta, psi), R)
    return R


def _leads(units):
    """Per unit, the index of the lead unit at the head of its combination."""
    names = [u.name for u in units]
    lead = list(range(len(units)))
    for j, unit in enumerate(units):          # a tow unit is listed before the units it tows
        front = unit.connections.front
        if front is not None:
            lead[j] = lead[names.index(front.tow)]
    return lead


def _pack_steering(P, unit, steering_units, steering_modes):
    """Pack a unit's steering system (Eq. 33-39, ``engine.steering``); its slot is -1 when it
    has none (no steering, or no steered axle). Values a mode does not use are 0."""
    P[L.U_STEER_SLOT] = -1.0
    P[L.U_STOP_LEFT] = P[L.U_STOP_RIGHT] = math.inf
    name = unit.name
    if name not in steering_units:
        return
    st = unit.steering
    P[L.U_STEER_SLOT] = steering_units.index(name)
    P[L.U_STEER_MODE] = mode_code(steering_modes.get(name, st.mode))
    # engine.steering.stop_limits reads the event's steering object
    P[L.U_STOP_LEFT], P[L.U_STOP_RIGHT] = stop_limits({"stop_left": st.stop_left, "stop_right": st.stop_right})
    n_steered = 2 * sum(1 for a in unit.axles if a.steered)
    P[L.U_K_STOP] = st.stop_stiffness or 0.0
    P[L.U_I_STEER] = system_inertia(n_steered, st.steer_inertia or 0.0,
                                    st.column_inertia or 0.0, st.gear_ratio)
    P[L.U_C_STOP] = stop_damping(P[L.U_K_STOP], P[L.U_I_STEER], n_steered)
    P[L.U_MU_AXIS] = n_steered * st.steer_axis_friction
    P[L.U_MU_COLUMN] = st.column_friction
    P[L.U_NULL_BAND] = st.null_band or math.inf    # read only by the free modes, which need it
    P[L.U_TRAIL_M] = st.mechanical_trail


def _pack_axle(A, ui, ax, props, r_loaded):
    """Pack one solid axle (Eq. 19-26): its roll centre and mass centre from the sprung CG."""
    sus = ax.suspension
    A[L.AX_UNIT] = ui
    A[L.AX_X] = ax.x - props.delta[0]
    A[L.AX_YC] = -props.delta[1]
    A[L.AX_ZRC] = props.cg_height - sus.roll_center_height
    A[L.AX_RHO] = sus.roll_center_height - r_loaded
    m = 2.0 * ax.unsprung_mass_per_wheel
    A[L.AX_M] = m
    A[L.AX_ICM] = sus.axle_roll_inertia - m * A[L.AX_RHO] ** 2
    A[L.AX_KRS] = sus.antisway_roll_stiffness
    A[L.AX_KAPPA] = sus.roll_steer
    A[L.AX_CAMBER] = sus.camber_set


def _pack_connection(C, units, statics, cs, link, k_c, c_c):
    """Pack one connection (Eq. 117-135) from the tow unit's rear and the towed unit's front."""
    tow, towed = units[cs.tow], units[cs.towed]
    rear, front = tow.connections.rear, towed.connections.front
    C[L.C_TOW], C[L.C_TOWED] = cs.tow, cs.towed
    C[L.C_AX:L.C_AZ + 1] = adjusted(rear.point, statics[cs.tow].props.delta)
    C[L.C_BX:L.C_BZ + 1] = adjusted(front.point, statics[cs.towed].props.delta)
    C[L.C_K], C[L.C_C] = k_c, c_c
    C[L.C_VERTICAL] = 1.0 if link.vertical else 0.0
    C[L.C_P0] = cs.P
    ft, hf = rear.frame_torsion, rear.hitch_friction
    C[L.C_KFRAME], C[L.C_CFRAME] = ft.stiffness, ft.damping
    C[L.C_MU], C[L.C_RADIUS], C[L.C_NULL] = hf.coefficient, hf.radius, hf.null_band
    if link.pitch:
        C[L.C_KPITCH], C[L.C_CPITCH] = rear.pitch_stiffness, rear.pitch_damping
        C[L.C_M0] = cs.M
    C[L.C_FAIL_F] = front.failure_force or 0.0
    C[L.C_FAIL_T] = front.failure_start_time


def _pack_tire(P_TIRE, TT, t, w, dy, tire):
    """Pack one tire; ``dy`` is its offset along the axle (vehicle y at zero steer)."""
    T = P_TIRE[t]
    T[L.T_WHEEL], T[L.T_DY] = w, dy
    T[L.T_RU] = tire.unloaded_radius
    T[L.T_KT] = tire.radial_stiffness
    T[L.T_KBAR] = tire.secondary_stiffness_multiplier
    T[L.T_D2] = tire.secondary_stiffness_deflection
    T[L.T_LAMBDA] = tire.rebound_multiplier
    T[L.T_DMAX] = tire.max_deflection
    T[L.T_SIG0] = tire.rolling_resistance.sigma0
    T[L.T_SIGV] = tire.rolling_resistance.sigma_v
    T[L.T_RLX] = tire.relaxation_length.longitudinal
    T[L.T_RLY] = tire.relaxation_length.lateral
    T[L.T_FZMIN] = tire.skid_flag.min_load
    T[L.T_PRESSURE] = tire.inflation_pressure or 0.0
    T[L.T_TREAD] = tire.tread_depth or 0.0
    T[L.T_WIDTH] = tire.width or 0.0
    T[L.T_TAU] = tire.skid_flag.adhesion_fraction
    loads, speeds = tire.test_loads, tire.test_speeds
    T[L.T_NLOAD], T[L.T_NSPEED] = len(loads), len(speeds)
    T[L.T_LOAD0:L.T_LOAD0 + len(loads)] = loads
    T[L.T_SPEED0:L.T_SPEED0 + len(speeds)] = speeds
    for k, grid in ((L.TP_MUP, tire.peak_friction), (L.TP_MUS, tire.slide_friction), (L.TP_SP, tire.slip_at_peak),
                    (L.TP_CA, tire.cornering_stiffness), (L.TP_CG, tire.camber_stiffness)):
        grid = np.asarray(grid)
        TT[t, k, :grid.shape[0], :grid.shape[1]] = grid


