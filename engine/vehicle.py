"""Vehicle assembly: the derivative of the whole state, in the one documented order.

Each evaluation has two phases, as in Chrono::Vehicle. *Synchronize*: every unit's
orientation (Eq. 53) and Euler-angle rates (Eq. 54-56), then every inter-vehicle
connection's force and moments from its two points (Eq. 117-135, ``engine.connection``),
accumulated onto both units. Then each unit is solved on its own:
 1. orientation (Eq. 53), gravity in the vehicle frame;
 2. aerodynamics from the relative wind: surfaces and devices (Eq. 136-142), and the
    collision force and moment on the unit's exterior mesh (``engine.collision``, Eq. 3, 7),
    evaluated for every unit after the synchronize phase;
 3. driver controls: the steering-wheel angle (the driver's, through each steered axle's gear
    ratio, or the steering system's own, ``engine.steering``; with the option At Axle each
    steered wheel's own input ``steerAngle``), engine torque (Eq. 50-51), source brake
    pressure (Eq. 48);
 4. per wheel: suspension force (Eq. 115-116), wheel kinematics (Eq. 16-17, 61-63, 79),
    and per tire: contact (Eq. 80-92; on a mesh road with the tread's envelope of the road,
    ``engine.envelope``), radial force (Eq. 93), contact-patch velocity in the
    ground plane (Eq. 66-78), transient slip, EDC forces (Eq. 94-113), rolling resistance
    (Eq. 114), the pneumatic trail and the tire's moment about its steer axis (Eq. 38); the
    tire forces are summed onto the unit at their contact points;
 5. wheel spin torques, brake stick-slip and the drivetrain-coupled spin accelerations
    (Eq. 27-32, 47);
 6. the steering system's acceleration (Eq. 33-39) from the tire and stop moments summed over
    its steered wheels;
 7. the coupled sprung/unsprung accelerations (Eq. 1-14, 18; a solid axle's heave and roll,
    Eq. 19-26, in the same system), Euler-angle rates (Eq. 54-56) and earth-fixed velocity
    (Eq. 57).

A wheel on a solid axle is a point of the axle: its centre follows the axle's heave and roll
about the roll centre (Eq. 58-60), its camber is the axle roll plus the camber set (Eq. 64),
its roll steer kappa_phi phi (Eq. 65); its spring sits at its side of the spring spacing
(Eq. 115) and acts on the axle's heave and roll.

The pass never writes its state ``y``: the derivative is a function of (time, state, inputs,
parameters), its scratch ``W`` aside; but for the collision block at a step boundary's first
stage, which the integrator asks its collision pass to latch as it goes (``W.clock[1]``;
engine.collision.collision_pass). Two kinds of state are *latched* instead, at each
integration step's boundary: the pass writes their new values into ``W.latched`` (unless it
records) and the integrator (``engine.integrator.advance``) takes them into the state after
the step's first stage, before the stages that follow. The steering states, while the
steering is rigid (mode ``off``, or ``autostart`` before its start time): the driver's angle
(clamped at the stops) and rate 0, their rates being zero, so that the angle the steering is
freed from is the driver's. A tire's loading turning point (Eq. 93, ``engine.tire``): when
the deflection has passed it, the tire is on its loading curve, where the force and the rates
do not depend on the turning point, and it is set to the deflection: at an integration step's
first stage this removes the lag that the step's stages leave when a tire starts loading (the
stages before and after the turn straddle the switch). A tire off the ground carries no force
whatever its turning point, and its turning point is set to zero: the tire in the air keeps no
memory of its last load. Neither changes a derivative of the state it is applied to.

When ``record`` is true the same pass also fills the output arrays. Nothing is allocated:
the per-wheel values, the rotation matrix and the unit's system matrix live in the
preallocated ``scratch`` (rows named in ``engine.layout``, shape ``layout.scratch_shape``).
"""
import math

from .aerodynamics import relative_wind, surface_forces
from .brakes import (brake_torque_capacity, design_torque_ratio, pressure_rate, system_pressure,
                     TABLE_FORCE, V_TABLE, table_force, table_tire_forces, temperature_rate,
                     wheel_pressure)
from .collision import FRICTION_SPEED, collision_outputs, collision_pass
from .connection import connection_forces, turntable_point
from .drivetrain import (clutch_capacity, clutch_torque, differential_ratio, engagement_rate,
                         engine_speed, engine_torque, gear_ratio, governor_rate, governor_throttle)
from .jit import njit, njit_inline
from .steering import (STEER_TORQUE, clamp, driver_steer, friction_moment, steering_wheel_angle,
                       stop_moment)
from .kinematics import (ATT_ENTER, ATT_LEAVE, body_euler_rates, cos_sin, cross, euler_rates,
                         euler_trig, nearest_zyx, point_velocity, reindex_columns,
                         rotation_vehicle_to_earth, to_earth, to_vehicle, unindex_columns,
                         zyx_angles)
from .layout import (APHI, APHID, AX_CAMBER, AX_ICM, AX_KAPPA, AX_KRS, AX_M, AX_RHO, AX_TURNTABLE,
                     AX_X, AX_YC, AX_ZRC, AZ, AZD, E_G, E_HYDRO, FR_R, FR_RATES, IE_WIND_DIR,
                     IE_GRAVITY_TILT, IE_WIND_SPEED, IU_BRAKE, IU_DIFF_GEAR, IU_GEAR, IU_STEER_TORQUE, IU_THROTTLE, IW_BFORCE, IW_BFRIC, IW_DFORCE, IW_DFRIC, IW_BPF, IW_MU,
                     N_AXLE_STATE, N_BODY, N_CONN_STATE, N_PT_STATE, N_TIRE_STATE, N_WHEEL_STATE,
                     E_AIR_T, PT_ENGAGE, PT_GOV, PT_OMEGA, SP, U_TAU_P, W_BRAKE, WPRESS, WTEMP,
                     YW_BRATIO, YW_BTEMP, SPHI, S_TBASE, U_IDLE, YU_CLUTCH, YU_ENGINE,
                     N_STEER_STATE, SSA, SSR,
                     SPSI, SQ, SR, STHETA, SU, SV, SW, SX, SY, SZ, S_A, S_ACC, S_B, S_DOMEGA,
                     S_DRIVEN, S_F, S_OMFREE, S_FZW, S_INERTIA, S_JZ, S_M, S_MW, S_QD, S_QP, S_R, S_TORQUE,
                     S_XW, S_YW, S_ZDD, S_ZDW, S_ZW, TKX, TKY, TTURN, T_DMAX, T_DY, T_FZMIN,
                     T_LAMBDA, T_PRESSURE, T_RLX, T_RLY, T_RU, T_SIG0, T_SIGV, T_TAU, T_TREAD,
                     T_WIDTH, U_AERO0, U_AXLE0, U_C_STOP, U_IX, U_IXZ, U_IY, U_IZ,
                     U_I_DT, U_IZ_UNSPRUNG, U_I_STEER, U_K_STOP, U_LEAD, U_MS, U_MU_AXIS, U_MU_COLUMN, U_NAERO,
                     U_NAXLES, U_NULL_BAND, U_NWHEELS, U_N_DRIVEN, U_PEDAL_RATIO, U_PROP_RATIO,
                     U_PROP_START, U_PUSHOUT, U_BRAKE_TABLE, U_DRIVE_TABLE, U_STEER_MODE, U_STEER_RATIO, U_STEER_SLOT,
                     U_STOP_LEFT, U_STOP_RIGHT, U_TRAIL_M, U_WHEEL0,
                     WOMEGA, WZ, WZD, W_DRIVEN, W_ISPIN, W_KRS, W_MUS, W_NTIRES, W_PARTNER,
                     W_PROPORTIONED, W_SIDE, W_SOLID, W_STEERED, W_STEER_RATIO, W_TB_RATIO, W_TIRE0, W_TRACK,
                     W_Y0, W_YS, W_Z0, W_ZETA, YA_HEAVE, YA_ROLL, YS_ANGLE, YS_RATE,
                     YS_TORQUE, YT_ALPHA, YT_DEFL, YT_FX,
                     YT_FY, YT_FZ, YT_INCL, YT_MU, YT_MZ, YT_ROADZ, YT_SKID, YT_SLIP, YT_TRAIL, YT_WATER, YU_AERO_FX, YU_COLL_FX, YU_AERO_FY, YU_AERO_FZ, YU_AERO_MX, YU_AERO_MY, YU_AERO_MZ, YU_AX,
                     YU_AY, YU_AZ, YU_BETA, YU_SPEED, YU_X, YW_BRAKEP, YW_BRAKET, YW_DRIVET,
                     YW_JOUNCE, YW_SPIN, YW_STEER, YW_DAMAGE, DM_CAMBER, DM_TOE, DM_X, DM_Y,
                     E_DMG_BASE, N_DMG_STATE)
from .layout import (E_TERRAIN, E_TIRE_LIMIT, FR_ANG, FR_BRATES, FR_TT, FR_TT_RATE, FR_TT_X,
                     FR_TT_Y, N_BODY_OUT, SAPITCH, SAROLL, SATT,
                     SAYAW, TERRAIN_MESH, T_CRIM, T_CSIDE, T_HALFW, T_KRIM, T_KT, T_RRIM,
                     TIRE_LIMIT_STOP, YU_ROLL, state_bases)  # state_bases: the integrator's too
from .sprung_mass import add_solid_axle, assemble_unit, finish_unit, solid_axle_accelerations
from .suspension import antisway_force, bump_steer, camber_change, half_track_change, suspension_force
from .hydroplaning import footprint_aspect_ratio, hydroplaning_factors
from .envelope import tread_envelope
from .terrain import surface
from .tire import (contact, contact_length, kinematic_slips, pneumatic_trail, properties,
                   radial_force, ring_low_point, rolling_resistance, skid_flag, tire_axes,
                   tire_forces, tread_share, turning_point_rate, wheel_body_force)
from .wheel_spin import TAU_BRAKE, brake_torque, spin_accelerations
from .wheel_damage import damaged_wheel_x

#: error codes reported through err[0]; err[1] holds the tire or state index
ERR_TIRE_DEFLECTION = 1
ERR_NONFINITE = 2
ERR_OFF_TERRAIN = 3


@njit_inline
def synchronize(y, P, W, record, Y):
    """Phase 1: every unit's frame and Euler-angle rates into W.frames, every connection's
    force and moment into W.ext (``engine.connection``)."""
    synchronize_frames(y, P, W)
    conn_base = state_bases(P)[3]
    connection_forces(y, P.P_CONN, conn_base, W.frames, W.ext, W.conn_force, record, Y.y_conn)


@njit_inline
def synchronize_frames(y, P, W):
    """Every unit's frame and Euler-angle rates into W.frames; W.ext cleared."""
    F = W.frames
    for u in range(P.P_UNIT.shape[0]):
        o = N_BODY * u
        phi, theta, psi = y[o + SPHI], y[o + STHETA], y[o + SPSI]
        p, q, r = y[o + SP], y[o + SQ], y[o + SR]
        s = y[o + SATT]
        cf, sf, ct, st, cp, sp = euler_trig(phi, theta, psi)
        R = W.scratch[S_R:S_R + 3]
        rotation_vehicle_to_earth(cf, sf, ct, st, cp, sp, R)
        if s == 0.0:
            dphi, dtheta, dpsi = euler_rates(cf, sf, ct, st, p, q, r)       # Eq. 54-56
            bphi, btheta, bpsi, bdphi, bdtheta, bdpsi = phi, theta, psi, dphi, dtheta, dpsi
        else:
            # re-indexed axes (engine.kinematics, "Pitch through 90 degrees"): Eq. 54-56 of
            # their rates, the body's R, angles and angle rates from them
            dphi, dtheta, dpsi = euler_rates(cf, sf, ct, st, s * r, q, -s * p)
            reindex_columns(R, s)
            bphi, btheta, bpsi = nearest_zyx(R, y[o + SAROLL], y[o + SAPITCH], y[o + SAYAW])
            bdphi, bdtheta, bdpsi = body_euler_rates(bphi, btheta, p, q, r)
        for i in range(3):
            for j in range(3):
                F[u, FR_R + 3 * i + j] = R[i, j]
        F[u, FR_RATES] = dphi
        F[u, FR_RATES + 1] = dtheta
        F[u, FR_RATES + 2] = dpsi
        F[u, FR_ANG], F[u, FR_ANG + 1], F[u, FR_ANG + 2] = bphi, btheta, bpsi
        F[u, FR_BRATES], F[u, FR_BRATES + 1], F[u, FR_BRATES + 2] = bdphi, bdtheta, bdpsi
        for k in range(6):
            W.ext[u, k] = 0.0


@njit_inline
def turntable_axes(fr, u, px, py, fx, fy):
    """The y of the point (px, py) and the y component of the force (fx, fy) (vehicle axes of
    unit u) in the axes of its turntable (``engine.connection``; frames ``fr``)."""
    c, s = math.cos(fr[u, FR_TT]), math.sin(fr[u, FR_TT])
    y0 = fr[u, FR_TT_Y]
    return y0 - s * (px - fr[u, FR_TT_X]) + c * (py - y0), -s * fx + c * fy


@njit_inline
def carrier_velocity(px, py, pz, ydot, gdot, piv_y, piv_z, piv_zd, fr, u, tt):
    """The velocity (vehicle axes) of the point p of a wheel's carrier relative to the body:
    its lateral rate ydot and its camber turning at gdot about the line (piv_y, piv_z), which
    rises at piv_zd; on a turntable (``tt``) these in the turntable's axes, plus the
    turntable's turn about its centre (frames ``fr`` of unit u)."""
    if not tt:
        return 0.0, ydot - gdot * (pz - piv_z), piv_zd + gdot * (py - piv_y)
    yt, _ = turntable_axes(fr, u, px, py, 0.0, 0.0)
    c, s = math.cos(fr[u, FR_TT]), math.sin(fr[u, FR_TT])
    vl = ydot - gdot * (pz - piv_z)
    om = fr[u, FR_TT_RATE]
    return (-s * vl - om * (py - fr[u, FR_TT_Y]), c * vl + om * (px - fr[u, FR_TT_X]),
            piv_zd + gdot * (yt - piv_y))


@njit_inline
def wheel_ground_force(F, M, q_d, q_p, ka, px, py, pz, fx, fy, fz, dcam, dht, yw, zw, piv_y, piv_z,
                       fr, u, tt):
    """A ground force f on a wheel at the point p (vehicle frame, from the CG) onto the unit's
    sums F and M (Eq. 3, 7) and onto its suspension: for a wheel of solid axle ka (>= 0, the
    unit's axle index) the axle's heave and roll (about the roll centre piv), else (ka < 0)
    returned as the generalised force on the wheel's own z-displacement: the force times the
    point's velocity per unit wheel z-rate (Eq. 69-70), i.e. the vertical force and, through
    the half-track and camber change (their slopes dht, dcam; the wheel centre yw, zw), the
    lateral force (the jacking force that lifts an independent axle's roll centre off the
    ground). On a full trailer's turntable (``tt``; frames ``fr`` of unit u) the axle rolls
    about the turntable's x-axis: its generalised force takes p and f in the turntable's axes."""
    F[0] += fx
    F[1] += fy
    F[2] += fz
    mx, my, mz = cross(px, py, pz, fx, fy, fz)
    M[0] += mx
    M[1] += my
    M[2] += mz
    if ka < 0:
        return fz + fy * (dcam * (pz - zw) - dht) - fz * dcam * (py - yw)
    if tt:
        # the axle rolls about the turntable's x-axis: p and f in the turntable's axes
        py, fy = turntable_axes(fr, u, px, py, fx, fy)
    q_d[ka] += fz
    q_p[ka] += (py - piv_y) * fz - (pz - piv_z) * fy
    return 0.0


@njit
def latch_attitude(y, P, W):
    """At an integration step boundary: each unit's continuous roll, pitch and yaw (the
    outputs' angles) latched into its attitude states, and its attitude states switched to the
    re-indexed axes near +-90 degrees of pitch or back away from it (``engine.kinematics``,
    "Pitch through 90 degrees"). Changes no rotation: only the angles that describe it."""
    R = W.scratch[S_R:S_R + 3]
    for u in range(P.P_UNIT.shape[0]):
        o = N_BODY * u
        phi, theta, psi = y[o + SPHI], y[o + STHETA], y[o + SPSI]
        s = y[o + SATT]
        if s == 0.0:
            y[o + SAROLL], y[o + SAPITCH], y[o + SAYAW] = phi, theta, psi
            if abs(math.cos(theta)) >= ATT_ENTER:
                continue        # the body's own angles stay: no rotation needed
        rotation_vehicle_to_earth(*euler_trig(phi, theta, psi), R)
        if s == 0.0:
            s = 1.0 if math.sin(theta) > 0.0 else -1.0
            unindex_columns(R, s)
            y[o + SPHI], y[o + STHETA], y[o + SPSI] = zyx_angles(R)
            y[o + SATT] = s
        else:
            reindex_columns(R, s)
            bphi, btheta, bpsi = nearest_zyx(R, y[o + SAROLL], y[o + SAPITCH], y[o + SAYAW])
            y[o + SAROLL], y[o + SAPITCH], y[o + SAYAW] = bphi, btheta, bpsi
            if abs(math.cos(btheta)) > ATT_LEAVE:
                y[o + SPHI], y[o + STHETA], y[o + SPSI] = bphi, btheta, bpsi
                y[o + SATT] = 0.0


@njit
def derivatives(y, dy, U, P, record, Y, err, W):
    """dy = f(y, inputs U, parameters P), outputs Y when ``record``; W: scratch (``layout.Work``),
    the latched states into ``W.latched`` unless ``record``. Leaves ``y`` as it is. See the
    module docstring for the evaluation order and the latches."""
    u_unit, u_wheel, u_env = U.u_unit, U.u_wheel, U.u_env
    P_UNIT, P_WHEEL, P_TIRE, P_AXLE, P_ENV = P.P_UNIT, P.P_WHEEL, P.P_TIRE, P.P_AXLE, P.P_ENV
    y_unit, y_wheel, y_tire = Y.y_unit, Y.y_wheel, Y.y_tire
    scratch = W.scratch
    nu = P_UNIT.shape[0]
    g = P_ENV[E_G]
    tilt = u_env[IE_GRAVITY_TILT]
    # a tilt table turns gravity about earth X (the ground stays the earth's X-Y plane); without
    # one (tilt 0) its earth components are (0, 0, g), as the library's sin and cos give them
    g_y, g_z = (g * math.sin(tilt), g * math.cos(tilt)) if tilt != 0.0 else (0.0, g)
    R = scratch[S_R:S_R + 3]          # R[i, j], j < 3
    F = scratch[S_F]
    M = scratch[S_M]
    acc = scratch[S_ACC]
    jz = scratch[S_JZ]
    m_w = scratch[S_MW]
    x_w = scratch[S_XW]
    y_w = scratch[S_YW]
    z_w = scratch[S_ZW]
    zd_w = scratch[S_ZDW]
    fz_w = scratch[S_FZW]
    torque = scratch[S_TORQUE]
    inertia = scratch[S_INERTIA]
    driven = scratch[S_DRIVEN]
    domega = scratch[S_DOMEGA]
    zdd = scratch[S_ZDD]
    q_d = scratch[S_QD]
    q_p = scratch[S_QP]
    A = scratch[S_A:]
    b = scratch[S_B]
    wheel_base, axle_base, tire_base, conn_base, pt_base, steer_base = state_bases(P)
    t_base = scratch[S_TBASE]
    dmg_base = int(P_ENV[E_DMG_BASE])
    stop_at_dmax = P_ENV[E_TIRE_LIMIT] == TIRE_LIMIT_STOP
    on_mesh = P_ENV[E_TERRAIN] == TERRAIN_MESH
    om_free = scratch[S_OMFREE]
    for c in range(P.P_CONN.shape[0]):
        dy[conn_base + N_CONN_STATE * c] = 0.0
    # the collision block (P_ENV[E_COLL_BASE] on) is latched, never integrated: its rates are
    # left as the caller's dy has them (zeros; the integrator skips the block)
    synchronize(y, P, W, record, Y)
    # at a step boundary's first stage (W.clock[1], the integrator's) the pass also latches
    # the collision block: the one write of this evaluation into its state (engine.collision)
    collision_pass(y, P, U, W, W.clock[0], W.clock[1] > 0.0)
    for u in range(nu):
        o = N_BODY * u
        X, Y_, Z = y[o + SX], y[o + SY], y[o + SZ]
        uu, vv, ww = y[o + SU], y[o + SV], y[o + SW]
        p, q, r = y[o + SP], y[o + SQ], y[o + SR]
        # 1. orientation and gravity (the frame of the synchronize phase)
        for i in range(3):
            for j in range(3):
                R[i, j] = W.frames[u, FR_R + 3 * i + j]
        gx, gy, gz = to_vehicle(R, 0.0, g_y, g_z)
        # 2. aerodynamics, plus the connections' force and moment
        wx, wy, wz = relative_wind(R, uu, vv, ww, u_env[IE_WIND_SPEED], u_env[IE_WIND_DIR])
        fax, fay, faz, max_, may, maz = surface_forces(P.P_AERO, int(P_UNIT[u, U_AERO0]),
                                                       int(P_UNIT[u, U_NAERO]), wx, wy, wz)
        # 2b. the collision force and moment on the exterior mesh (Eq. 3, 7; engine.collision)
        C = W.coll[u]
        F[0], F[1], F[2] = fax + W.ext[u, 0] + C[0], fay + W.ext[u, 1] + C[1], faz + W.ext[u, 2] + C[2]
        M[0], M[1], M[2] = max_ + W.ext[u, 3] + C[3], may + W.ext[u, 4] + C[4], maz + W.ext[u, 5] + C[5]
        # 3. driver controls: steering and drivetrain of the unit, brake pressure of its lead
        slot = int(P_UNIT[u, U_STEER_SLOT])
        free = False
        eta = P_UNIT[u, U_STEER_RATIO]
        stop_l, stop_r = P_UNIT[u, U_STOP_LEFT], P_UNIT[u, U_STOP_RIGHT]
        theta, theta_rate = 0.0, 0.0
        so = steer_base + N_STEER_STATE * slot
        if slot >= 0:
            theta, free = steering_wheel_angle(y, P, u_unit, u, W.clock[0], so)
            if free:
                theta_rate = y[so + SSR]
            elif not record:
                # rigid: the driver's angle, held within the stops, is the state (latched)
                W.latched[so + SSA] = theta
                W.latched[so + SSR] = 0.0
        m_steer = 0.0                    # tire and stop moments about the steer axes (Eq. 34)
        gear = int(round(u_unit[u, IU_GEAR]))
        diff_gear = int(round(u_unit[u, IU_DIFF_GEAR]))
        w0 = int(P_UNIT[u, U_WHEEL0])
        n = int(P_UNIT[u, U_NWHEELS])
        a0 = int(P_UNIT[u, U_AXLE0])
        na = int(P_UNIT[u, U_NAXLES])
        nd = P_UNIT[u, U_N_DRIVEN]
        ratio = gear_ratio(P.P_GEAR, u, gear) * differential_ratio(P.P_DIFF, u, diff_gear)
        bmeth = int(P_UNIT[u, U_BRAKE_TABLE])
        dmeth = int(P_UNIT[u, U_DRIVE_TABLE])
        tabled = bmeth > 0 or dmeth > 0
        if dmeth > 0:
            ratio = 0.0                  # a throttle table: the engine is not coupled to the wheels
        t_engine = 0.0
        c_dt = 0.0
        po = pt_base + N_PT_STATE * u
        clutched = P_UNIT[u, U_IDLE] > 0.0
        omega_e = 0.0
        om_sum = 0.0
        if ratio != 0.0 and nd > 0.0:
            for k in range(n):
                if P_WHEEL[w0 + k, W_DRIVEN] > 0.5:
                    om_sum += y[wheel_base + N_WHEEL_STATE * (w0 + k) + WOMEGA]
        if clutched:
            # an engine of its own, with the idle governor (engine.drivetrain)
            omega_e = y[po + PT_OMEGA]
            lam, e_gov = governor_throttle(P_UNIT, u, omega_e, y[po + PT_GOV])
            t_engine = engine_torque(P.P_ENG, P.N_ENG, u, omega_e, max(u_unit[u, IU_THROTTLE], lam))
            dy[po + PT_GOV] = governor_rate(P_UNIT, u, e_gov, y[po + PT_GOV])
        elif ratio != 0.0 and nd > 0.0:
            omega_e = engine_speed(ratio, om_sum, nd)
            t_engine = engine_torque(P.P_ENG, P.N_ENG, u, omega_e, u_unit[u, IU_THROTTLE])
            c_dt = P_UNIT[u, U_I_DT] * (ratio / nd) ** 2
        if not clutched:
            dy[po + PT_OMEGA] = 0.0
            dy[po + PT_GOV] = 0.0
            dy[po + PT_ENGAGE] = 0.0
        lead = int(P_UNIT[u, U_LEAD])
        p_source = system_pressure(u_unit[lead, IU_BRAKE], P_UNIT[lead, U_PEDAL_RATIO])
        # 4. wheels and tires
        for k in range(n):
            jz[k] = -y[wheel_base + N_WHEEL_STATE * (w0 + k) + WZ]
        for k in range(na):
            q_d[k] = 0.0
            q_p[k] = 0.0
        ni = 0                           # independent wheels so far (their compact index)
        for k in range(n):
            w = w0 + k
            wo = wheel_base + N_WHEEL_STATE * w
            om = y[wo + WOMEGA]
            solid = int(P_WHEEL[w, W_SOLID])
            dmg = dmg_base + N_DMG_STATE * w      # its damage set (engine.wheel_damage)
            xw = damaged_wheel_x(P_WHEEL, y, w, dmg)                             # Eq. 58
            if solid < 0:
                # independent wheel: its own z-displacement (Eq. 16-17, 61-63)
                dz, dzd = y[wo + WZ], y[wo + WZD]
                jounce, jrate = -dz, -dzd
                kp = int(P_WHEEL[w, W_PARTNER]) - w0
                f_arb = antisway_force(P_WHEEL[w, W_KRS], P_WHEEL[w, W_TRACK], jounce, jz[kp],
                                       P_WHEEL[w, W_SIDE])
                fs = suspension_force(P_WHEEL, w, jounce, jrate, f_arb)
                ht, dht = half_track_change(P_WHEEL, P.T_WHEEL, w, jounce)
                cam, dcam = camber_change(P_WHEEL, P.T_WHEEL, w, jounce)
                ydot = dht * jrate
                gdot = dcam * jrate
                steer = driver_steer(P, u_wheel, u, w, theta) * P_WHEEL[w, W_STEERED] + bump_steer(P_WHEEL, w, dz)
                yw = P_WHEEL[w, W_Y0] + ht + y[dmg + DM_Y]                       # Eq. 61
                zw = P_WHEEL[w, W_Z0] + dz
                piv_y, piv_z, piv_zd = yw, zw, dzd      # the point the wheel's camber turns about
                tt = False
            else:
                # wheel of a solid axle: a point of the axle (Eq. 58-60, 64-65)
                ao = axle_base + N_AXLE_STATE * solid
                delta, deld, phi, phid = y[ao + AZ], y[ao + AZD], y[ao + APHI], y[ao + APHID]
                yc, zc = P_AXLE[solid, AX_YC], P_AXLE[solid, AX_ZRC] + delta
                ca, sa_ = math.cos(phi), math.sin(phi)
                ry0 = P_WHEEL[w, W_Y0] - yc
                rz0 = P_WHEEL[w, W_Z0] - P_AXLE[solid, AX_ZRC]
                yw = yc + ry0 * ca - rz0 * sa_ + y[dmg + DM_Y]                    # Eq. 59
                zw = zc + ry0 * sa_ + rz0 * ca
                ys = P_WHEEL[w, W_YS] - yc        # the spring's seat, on the roll-centre line
                jounce = -(delta + ys * sa_)
                jrate = -(deld + ys * ca * phid)
                fs = suspension_force(P_WHEEL, w, jounce, jrate, 0.0)
                q_d[solid - a0] += fs                                     # Eq. 115 on heave
                q_p[solid - a0] += fs * ys * ca                           # ... and on roll
                ydot = 0.0
                gdot = phid
                cam = phi + P_WHEEL[w, W_SIDE] * P_AXLE[solid, AX_CAMBER]             # Eq. 64
                steer = (driver_steer(P, u_wheel, u, w, theta) * P_WHEEL[w, W_STEERED]
                         + P_AXLE[solid, AX_KAPPA] * phi)                              # Eq. 65
                piv_y, piv_z, piv_zd = yc, zc, deld
                dht, dcam = 0.0, 0.0          # (the independent wheel's slopes: unused here)
                tt = P_AXLE[solid, AX_TURNTABLE] > 0.5
                if tt:
                    # a full trailer's turntable (engine.connection): the axle turns with it
                    # about its centre, the drawbar's angle its wheels' steer
                    xw, yw = turntable_point(W.frames, u, xw, yw)
                    steer += W.frames[u, FR_TT]
            steered = P_WHEEL[w, W_STEERED] > 0.5
            trail_m = 0.0
            if steered:
                # the stops hold the wheel (Eq. 35): a free steering presses into them
                if free:
                    m_steer += stop_moment(steer, theta_rate / eta, stop_l, stop_r,
                                           P_UNIT[u, U_K_STOP], P_UNIT[u, U_C_STOP])
                steer = clamp(steer, -stop_l, stop_r)
                trail_m = P_UNIT[u, U_TRAIL_M]
            # the damage set turns the wheel past its steer and camber (engine.wheel_damage)
            steer += y[dmg + DM_TOE]
            cam += y[dmg + DM_CAMBER]
            cs, ss = cos_sin(steer)
            cc, sc = cos_sin(cam)
            axb, ayb, azb = -ss, cc * cs, sc * cs                             # Eq. 79
            axe, aye, aze = to_earth(R, axb, ayb, azb)
            wex, wey, _ = to_earth(R, xw, yw, zw)
            wex += X
            wey += Y_
            t_tire = 0.0
            m_roll = 0.0
            t_tb, t_td = 0.0, 0.0       # a table's brake and drive torques (outputs)
            f_gen = 0.0                 # generalised tire force on the wheel's own z (independent)
            t0 = int(P_WHEEL[w, W_TIRE0])
            for t in range(t0, t0 + int(P_WHEEL[w, W_NTIRES])):
                dyt = P_TIRE[t, T_DY]
                cxb, cyb, czb = xw + dyt * axb, yw + dyt * ayb, zw + dyt * azb
                cex, cey, cez = to_earth(R, cxb, cyb, czb)
                cex += X
                cey += Y_
                cez += Z
                ru = P_TIRE[t, T_RU]
                if on_mesh:
                    # the tread's envelope of the road over its contact length (engine.envelope):
                    # the plane through (gpx, gpy, gpz) of normal n
                    found, zg, gpx, gpy, gpz, nx, ny, nz, fr, water, texture = tread_envelope(
                        P, cex, cey, cez, axe, aye, aze, ru, P_TIRE[t, T_HALFW])
                else:
                    found, zg, nx, ny, nz, fr, water, texture = surface(P, u_wheel, w, wex, wey,
                                                                        cex, cey)
                    gpx, gpy, gpz = cex, cey, zg
                if not found:
                    # off the terrain: no ground under this tire (reported with its position)
                    if err[0] == 0:
                        err[0] = ERR_OFF_TERRAIN
                        err[1] = t
                        W.fault[0], W.fault[1], W.fault[2] = cex, cey, cez
                    zg, nx, ny, nz, fr, water, texture = cez + 1e3, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0
                    gpx, gpy, gpz = cex, cey, zg
                D, dxe, dye, dze, incl, per_dn = contact(cex, cey, cez, axe, aye, aze, gpx, gpy,
                                                         gpz, nx, ny, nz)
                xx, xy, xz, yx, yy, yz = tire_axes(axe, aye, aze, nx, ny, nz, per_dn)
                rT = D if D < ru else ru                                   # Eq. 91
                defl = ru - rT                                             # Eq. 92
                if defl > P_TIRE[t, T_DMAX] and stop_at_dmax and err[0] == 0:
                    err[0] = ERR_TIRE_DEFLECTION
                    err[1] = t
                dxb, dyb, dzb = to_vehicle(R, dxe, dye, dze)
                rcx, rcy, rcz = cxb + rT * dxb, cyb + rT * dyb, czb + rT * dzb
                # contact-patch velocity (Eq. 66-70): the body's, plus the wheel's motion
                # relative to it (its own z-rate, or the axle's heave and roll)
                vcx, vcy, vcz = point_velocity(uu, vv, ww, p, q, r, rcx, rcy, rcz)
                dvx, dvy, dvz = carrier_velocity(rcx, rcy, rcz, ydot, gdot, piv_y, piv_z, piv_zd,
                                                 W.frames, u, tt)
                vcx += dvx
                vcy += dvy
                vcz += dvz
                vex, vey, vez = to_earth(R, vcx, vcy, vcz)
                u_gp = vex * xx + vey * xy + vez * xz                      # Eq. 74
                v_gp = vex * yx + vey * yy + vez * yz                      # Eq. 78
                ts = tire_base + N_TIRE_STATE * t
                # Eq. 93 on its loop: the deflection rate is the contact point's velocity
                # (wheel-carrier fixed) along the normal over d.n, the rate of Eq. 90-92. A
                # turning point below the deflection (the integration's lag as the tire
                # starts loading) is raised to it, a tire off the ground has none (module
                # docstring)
                turn = y[ts + TTURN]
                if defl > turn or D >= ru:
                    turn = defl
                    if not record:
                        W.latched[ts + TTURN] = defl
                FR = radial_force(defl, turn, P_TIRE, t)                   # Eq. 93
                rate = 0.0
                if D < ru:
                    rate = (vex * nx + vey * ny + vez * nz) * per_dn
                dy[ts + TTURN] = turning_point_rate(defl, rate, turn, P_TIRE[t, T_LAMBDA])
                kin, v_ref, sa, V_ref, wl = kinematic_slips(u_gp, v_gp, om, rT)
                mup, mus, sp_, ca_, cg = properties(P_TIRE, P.TT, t, FR, u_gp)
                mu_h, rr_h = 1.0, 1.0
                if water > 0.0:
                    far = footprint_aspect_ratio(P_TIRE[t, T_WIDTH], ru, defl)
                    mu_h, rr_h = hydroplaning_factors(
                        int(P_ENV[E_HYDRO]), u_gp, water, P_TIRE[t, T_PRESSURE], P_TIRE[t, T_TREAD],
                        texture, far, P_TIRE[t, T_WIDTH],
                        P_TIRE[t, T_SIG0] * FR + P_TIRE[t, T_SIGV] * abs(u_gp))
                fmult = fr * u_wheel[w, IW_MU] * mu_h
                fx, fy, dkx, dky, S, xsl = tire_forces(FR, y[ts + TKX], y[ts + TKY], kin, v_ref, sa,
                                                       V_ref, wl, u_gp, incl, mup, mus, sp_, ca_, cg,
                                                       fmult, P_TIRE[t, T_RLX], P_TIRE[t, T_RLY])
                dy[ts + TKX] = dkx
                dy[ts + TKY] = dky
                rr_t = rr_h * rolling_resistance(rT, FR, u_gp, om, P_TIRE[t, T_SIG0],
                                                 P_TIRE[t, T_SIGV])                     # Eq. 114
                if tabled:
                    # Eq. 49, 52: the tables set the ground force, the spin is quasi-static
                    avail = mup * fmult * FR
                    nt = P_WHEEL[w, W_NTIRES]
                    f_b = table_force(bmeth, u_wheel[w, IW_BFORCE] if bmeth == TABLE_FORCE
                                      else u_wheel[w, IW_BFRIC], nt, avail)
                    f_d = 0.0
                    if P_WHEEL[w, W_DRIVEN] > 0.5:
                        f_d = table_force(dmeth, u_wheel[w, IW_DFORCE] if dmeth == TABLE_FORCE
                                          else u_wheel[w, IW_DFRIC], nt, avail)
                    fx, fy = table_tire_forces(f_b, f_d, rr_t, rT, u_gp, avail, fy)
                    om_free[k] = u_gp / rT
                    t_tb -= f_b * min(1.0, max(-1.0, u_gp / V_TABLE)) * rT
                    t_td += f_d * rT
                share = 1.0
                if not stop_at_dmax:
                    # beyond the tread's range (engine.tire, simulation.tire_limit "wheel"):
                    # its forces fade as the wheel plane nears the road's
                    share = tread_share(incl)
                    fx *= share
                    fy *= share
                    FR *= share
                    rr_t *= share
                # ground force on the tire: Fx' x' + Fy' y' + F_R along the upward normal
                fex = fx * xx + fy * yx - FR * nx
                fey = fx * xy + fy * yy - FR * ny
                fez = fx * xz + fy * yz - FR * nz
                fbx, fby, fbz = to_vehicle(R, fex, fey, fez)
                # Eq. 38: its moment about the steer axis (the vehicle z-line through the wheel
                # centre), the shear force acting the trail T_P + T_M behind the contact point
                # along x' (x' x y' is the downward normal n: the trail's arm is -T Fy' n_z);
                # needed by a free steering, else only for the outputs
                t_p, m_axis = 0.0, 0.0
                if record or (steered and free):
                    t_p = pneumatic_trail(contact_length(ru, defl), xsl)
                    nbz = to_vehicle(R, nx, ny, nz)[2]
                    m_axis = (rcx - xw) * fby - (rcy - yw) * fbx - (t_p + trail_m) * fy * nbz
                    # referred to the unit's ratio eta through the axle's own (1 when the same)
                    m_steer += m_axis * (eta / P_WHEEL[w, W_STEER_RATIO]) if steered else 0.0
                f_gen += wheel_ground_force(F, M, q_d, q_p, solid - a0, rcx, rcy, rcz, fbx, fby,
                                            fbz, dcam, dht, yw, zw, piv_y, piv_z, W.frames, u, tt)
                t_tire -= fx * rT
                m_roll += rr_t
                if not stop_at_dmax:
                    # the rim (its flange's ring in the wheel plane) and the lower sidewall (the
                    # tire's outer ring on the side turned to the road, taking over from the
                    # tread as it fades) against the road: forces at their lowest points, on
                    # the wheel like the tire's
                    n_a = nx * axe + ny * aye + nz * aze
                    for part in range(2):
                        if part == 0:
                            kc, cc_, rad, off = (P_TIRE[t, T_KRIM], P_TIRE[t, T_CRIM],
                                                 P_TIRE[t, T_RRIM], 0.0)
                        else:
                            share_s = 1.0 - share
                            if share_s <= 0.0:
                                continue
                            kc, cc_, rad = (share_s * P_TIRE[t, T_KT], share_s * P_TIRE[t, T_CSIDE],
                                            ru)
                            off = P_TIRE[t, T_HALFW] if n_a >= 0.0 else -P_TIRE[t, T_HALFW]
                        pen, pex, pey, pez = ring_low_point(cex, cey, cez, axe, aye, aze, gpx, gpy,
                                                            gpz, nx, ny, nz, rad, off)
                        if pen <= 0.0:
                            continue
                        pbx, pby, pbz = to_vehicle(R, pex - X, pey - Y_, pez - Z)
                        # the point's velocity: the body's, the wheel's motion relative to it,
                        # and its spin (rolling forward turns the wheel about -a)
                        vpx, vpy, vpz = point_velocity(uu, vv, ww, p, q, r, pbx, pby, pbz)
                        dvx, dvy, dvz = carrier_velocity(pbx, pby, pbz, ydot, gdot, piv_y, piv_z,
                                                         piv_zd, W.frames, u, tt)
                        vpx += dvx
                        vpy += dvy
                        vpz += dvz
                        vqx, vqy, vqz = to_earth(R, vpx, vpy, vpz)
                        lx, ly, lz = pex - cex, pey - cey, pez - cez
                        sx_, sy_, sz_ = cross(axe, aye, aze, lx, ly, lz)
                        vqx -= om * sx_
                        vqy -= om * sy_
                        vqz -= om * sz_
                        gx_, gy_, gz_, fn_c = wheel_body_force(kc, cc_, mus * fmult, FRICTION_SPEED,
                                                               pen, nx, ny, nz, vqx, vqy, vqz)
                        if fn_c == 0.0:
                            continue
                        # its moment about the spin axis drives the spin like the tread's
                        tq = cross(lx, ly, lz, gx_, gy_, gz_)
                        t_tire -= tq[0] * axe + tq[1] * aye + tq[2] * aze
                        gbx, gby, gbz = to_vehicle(R, gx_, gy_, gz_)
                        f_gen += wheel_ground_force(F, M, q_d, q_p, solid - a0, pbx, pby, pbz, gbx,
                                                    gby, gbz, dcam, dht, yw, zw, piv_y, piv_z,
                                                    W.frames, u, tt)
                if record:
                    y_tire[t, YT_FX] = fx
                    y_tire[t, YT_FY] = fy
                    y_tire[t, YT_FZ] = FR
                    y_tire[t, YT_SLIP] = -kin
                    y_tire[t, YT_ALPHA] = math.asin(min(1.0, max(-1.0, sa)))
                    y_tire[t, YT_INCL] = incl
                    y_tire[t, YT_DEFL] = defl
                    y_tire[t, YT_SKID] = skid_flag(FR, xsl, P_TIRE[t, T_FZMIN], P_TIRE[t, T_TAU])
                    y_tire[t, YT_ROADZ] = cez + D * dze if D < ru else zg
                    y_tire[t, YT_MU] = fmult
                    y_tire[t, YT_WATER] = water
                    y_tire[t, YT_TRAIL] = t_p
                    y_tire[t, YT_MZ] = m_axis
            if solid < 0:
                fz_w[ni] = f_gen + fs
                m_w[ni] = P_WHEEL[w, W_MUS]
                x_w[ni] = xw
                y_w[ni] = yw
                z_w[ni] = zw
                zd_w[ni] = y[wo + WZD]
                ni += 1
            t_base[k] = t_tire + m_roll
            driven[k] = P_WHEEL[w, W_DRIVEN]
            inertia[k] = P_WHEEL[w, W_ISPIN]
            if record:
                y_wheel[w, YW_STEER] = steer
                y_wheel[w, YW_SPIN] = om
                y_wheel[w, YW_JOUNCE] = jounce
                y_wheel[w, YW_DAMAGE] = math.sqrt(y[dmg + DM_X] ** 2 + y[dmg + DM_Y] ** 2)
                if tabled:
                    y_wheel[w, YW_BRAKEP] = 0.0
                    y_wheel[w, YW_BRAKET] = t_tb
                    y_wheel[w, YW_DRIVET] = t_td
                    y_wheel[w, YW_BTEMP] = y[wo + WTEMP]
                    y_wheel[w, YW_BRATIO] = 0.0
        # 5. spin torques: the clutch (a drivetrain with one), then drive and brake per wheel
        t_shaft = t_engine
        if clutched:
            t_shaft = 0.0
            if ratio != 0.0 and nd > 0.0:
                a_t = 0.0
                b_t = 0.0
                for k in range(n):
                    if driven[k] > 0.5:
                        a_t += t_base[k] / inertia[k]
                        b_t += P_WHEEL[w0 + k, W_ZETA] / inertia[k]
                omega_t = ratio * om_sum / nd
                cap_c = clutch_capacity(P_UNIT, u, omega_e, y[po + PT_ENGAGE])
                t_shaft = clutch_torque(cap_c, t_engine, P_UNIT[u, U_I_DT], omega_e, omega_t,
                                        ratio / nd * a_t, ratio * ratio / nd * b_t, TAU_BRAKE)
                locked = abs(t_shaft) < cap_c
            else:
                locked = False
                omega_t = 0.0
            dy[po + PT_OMEGA] = (t_engine - t_shaft) / P_UNIT[u, U_I_DT]
            dy[po + PT_ENGAGE] = engagement_rate(P_UNIT, u, y[po + PT_ENGAGE], locked, omega_t)
        for k in range(n):
            w = w0 + k
            drv = driven[k]
            if tabled:
                # the spin follows free rolling (quasi-static; the tables bypass the brakes)
                torque[k] = 0.0
                dy[wheel_base + N_WHEEL_STATE * w + WPRESS] = 0.0
                dy[wheel_base + N_WHEEL_STATE * w + WTEMP] = 0.0
                continue
            t_drive = t_shaft * ratio * P_WHEEL[w, W_ZETA] if drv > 0.5 else 0.0   # Eq. 32
            t_other = t_base[k] + t_drive
            wo = wheel_base + N_WHEEL_STATE * w
            om = y[wo + WOMEGA]
            pw = wheel_pressure(p_source, P_WHEEL[w, W_PROPORTIONED] > 0.5, P_UNIT[u, U_PROP_START],
                                P_UNIT[u, U_PROP_RATIO], 1.0)
            dy[wo + WPRESS] = 0.0
            if P_UNIT[u, U_TAU_P] > 0.0:
                # the pressure the pedal builds lags its target (engine.brakes)
                dy[wo + WPRESS] = pressure_rate(y[wo + WPRESS], pw, P_UNIT[u, U_TAU_P])
                pw = y[wo + WPRESS]
            pw *= u_wheel[w, IW_BPF]          # the ABS's valve at the wheel acts on it at once
            bd = int(P_WHEEL[w, W_BRAKE])
            t_ratio = P_WHEEL[w, W_TB_RATIO]
            if bd >= 0:
                t_ratio = design_torque_ratio(P.P_BRAKE, P.T_BRAKE, bd, y[wo + WTEMP], om)
            cap = brake_torque_capacity(pw, t_ratio, P_UNIT[u, U_PUSHOUT])
            i_eff = inertia[k] + (c_dt if drv > 0.5 else 0.0)
            tb = brake_torque(cap, t_other, om, i_eff)
            torque[k] = t_other + tb
            dy[wo + WTEMP] = 0.0
            if bd >= 0:
                dy[wo + WTEMP] = temperature_rate(P.P_BRAKE, bd, y[wo + WTEMP], abs(tb * om),
                                                  math.sqrt(uu * uu + vv * vv + ww * ww),
                                                  P_ENV[E_AIR_T])
            if record:
                y_wheel[w, YW_BRAKEP] = pw
                y_wheel[w, YW_BRAKET] = tb
                y_wheel[w, YW_DRIVET] = t_drive
                y_wheel[w, YW_BTEMP] = y[wo + WTEMP]
                y_wheel[w, YW_BRATIO] = t_ratio
        spin_accelerations(torque, inertia, driven, c_dt, n, domega)
        if tabled:
            for k in range(n):
                domega[k] = (om_free[k] - y[wheel_base + N_WHEEL_STATE * (w0 + k) + WOMEGA]) / TAU_BRAKE
        # 6. the steering system (Eq. 33-39), at the road wheel: delta = theta / eta
        if slot >= 0:
            dy[so + SSA] = 0.0
            dy[so + SSR] = 0.0
            if free:
                m_drive = 0.0            # the driver's torque, at the steer axis
                if int(P_UNIT[u, U_STEER_MODE]) == STEER_TORQUE:
                    m_drive = eta * u_unit[u, IU_STEER_TORQUE]
                m_fric = friction_moment(theta_rate / eta, P_UNIT[u, U_MU_AXIS],
                                         P_UNIT[u, U_MU_COLUMN], eta, P_UNIT[u, U_NULL_BAND])
                dy[so + SSA] = theta_rate
                dy[so + SSR] = eta * (m_steer + m_fric + m_drive) / P_UNIT[u, U_I_STEER]
            if record:
                Y.y_steer[slot, YS_ANGLE] = theta
                Y.y_steer[slot, YS_RATE] = theta_rate
                Y.y_steer[slot, YS_TORQUE] = -m_steer / eta
        # 7. coupled accelerations and kinematics
        assemble_unit(P_UNIT[u, U_MS], P_UNIT[u, U_IX], P_UNIT[u, U_IY], P_UNIT[u, U_IZ],
                      P_UNIT[u, U_IXZ], P_UNIT[u, U_IZ_UNSPRUNG], uu, vv, ww, p, q, r, gx, gy,
                      gz, F, M, m_w, x_w, y_w, z_w, zd_w, fz_w, ni, A, b, zdd)
        for k in range(na):
            ax = a0 + k
            ao = axle_base + N_AXLE_STATE * ax
            phi = y[ao + APHI]
            # the anti-sway bar on the axle roll (Eq. 115's K_rs term: a roll moment K_rs phi)
            add_solid_axle(A, b, W.axle_work[k], P_AXLE[ax, AX_M], P_AXLE[ax, AX_ICM],
                           P_AXLE[ax, AX_X], P_AXLE[ax, AX_YC], P_AXLE[ax, AX_ZRC] + y[ao + AZ],
                           P_AXLE[ax, AX_RHO], phi, y[ao + APHID], y[ao + AZD], uu, vv, ww, p, q,
                           r, gx, gy, gz, q_d[k], q_p[k] - P_AXLE[ax, AX_KRS] * phi)
        finish_unit(m_w, x_w, y_w, ni, A, b, acc, zdd)
        vx, vy, vz = to_earth(R, uu, vv, ww)                                # Eq. 57 (CG)
        dy[o + SX] = vx
        dy[o + SY] = vy
        dy[o + SZ] = vz
        dy[o + SPHI] = W.frames[u, FR_RATES]                                # Eq. 54-56
        dy[o + STHETA] = W.frames[u, FR_RATES + 1]
        dy[o + SPSI] = W.frames[u, FR_RATES + 2]
        for k in range(6):
            dy[o + SU + k] = acc[k]
        ki = 0
        for k in range(n):
            w = w0 + k
            wo = wheel_base + N_WHEEL_STATE * w
            if P_WHEEL[w, W_SOLID] < 0.0:
                dy[wo + WZ] = y[wo + WZD]
                dy[wo + WZD] = zdd[ki]
                ki += 1
            else:
                dy[wo + WZ] = 0.0
                dy[wo + WZD] = 0.0
            dy[wo + WOMEGA] = domega[k]
        for k in range(na):
            ao = axle_base + N_AXLE_STATE * (a0 + k)
            dd, pd = solid_axle_accelerations(W.axle_work[k], acc)
            dy[ao + AZ] = y[ao + AZD]
            dy[ao + AZD] = dd
            dy[ao + APHI] = y[ao + APHID]
            dy[ao + APHID] = pd
            if record:
                Y.y_axle[a0 + k, YA_ROLL] = y[ao + APHI]
                Y.y_axle[a0 + k, YA_HEAVE] = y[ao + AZ]
        if record:
            # the first twelve unit outputs are the body states, in the same order, with the
            # body's own continuous Euler angles (equal to the states at attitude index 0)
            for k in range(N_BODY_OUT):
                y_unit[u, YU_X + k] = y[o + k]
            for k in range(3):
                y_unit[u, YU_ROLL + k] = W.frames[u, FR_ANG + k]
            y_unit[u, YU_AX] = acc[0] + q * ww - r * vv
            y_unit[u, YU_AY] = acc[1] + r * uu - p * ww
            y_unit[u, YU_AZ] = acc[2] + p * vv - q * uu
            y_unit[u, YU_SPEED] = math.sqrt(uu * uu + vv * vv + ww * ww)
            y_unit[u, YU_BETA] = math.atan2(vv, uu) if abs(uu) + abs(vv) > 1e-9 else 0.0
            y_unit[u, YU_ENGINE] = omega_e
            slip = 0.0
            if clutched and ratio != 0.0 and nd > 0.0 and omega_e > 0.0:
                slip = 1.0 - ratio * om_sum / nd / omega_e
            y_unit[u, YU_CLUTCH] = slip
            y_unit[u, YU_AERO_FX], y_unit[u, YU_AERO_FY], y_unit[u, YU_AERO_FZ] = fax, fay, faz
            y_unit[u, YU_AERO_MX], y_unit[u, YU_AERO_MY], y_unit[u, YU_AERO_MZ] = max_, may, maz
            collision_outputs(y, P, u, W.frames, W.coll, y_unit[u], YU_COLL_FX)
