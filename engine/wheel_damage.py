"""Wheel meshes and wheel damage: the manual's DyMESH wheel contact (Sprung Mass Impact Model,
"DyMESH wheel contact and wheel damage" and "Wheel displacement capping").

Each wheel of a unit with an exterior mesh carries a mesh of its own
(:func:`engine.setup.wheel_meshes.wheel_mesh`): a
cylinder of the tire's unloaded radius and the wheel's width (its tire's, or across both tires
of a dual), whose vertices meet the same surfaces as the unit's exterior: barriers, a mesh
terrain's standing polygons and every other vehicle's box (``engine.collision``), but not the
road, which the tire model carries. The mesh moves with its wheel: its centre and axes are the
wheel's (Eq. 58-62, 63-65, 79: the suspension's travel, steer and camber, and the wheel's
damage set), computed by :func:`unit_wheel_poses` in a collision pass for a unit whose reach
(:func:`engine.setup.wheel_meshes.pack_reach`: its exterior and its wheels wherever its suspension and damage set can take
them) meets a barrier, a wall or another unit's box.
A vertex moves with the sprung mass (its velocity is the body's at its point; the wheel's spin
and travel rates are left out of the sliding velocity of its friction).

The collision forces on a wheel's vertices are added to the sprung mass (Eq. 3, 7), like the
exterior's. Summed about the wheel centre they load the wheel's mount (``Work.wcoll``), and
beyond the wheel's damage thresholds they set it permanently (:func:`damage_step`, at each
integration step boundary):

* the force's vehicle-fixed x-y part F (set-back and track change; its z part is the
  suspension's) sets the wheel centre along F. The set the mount takes under F is
  ``s(F) = c (min(|F|, F_max) - F_0)`` for ``|F| > F_0`` (c the deformation rate, m per N,
  F_0 the largest force without damage, F_max the force beyond which the set grows no more),
  and the set only grows: a step adds ``s(F) - |d|`` along F when that is positive;
* the moment's parts about the vehicle z and x axes (M) turn the wheel, toe and camber, by
  the set ``c (min(|M|, M_max) - M_0) / r^2`` (the moment as a force M / r at the rim, r the
  wheel's radius, the rim's set over r), along M, likewise only growing;
* the cap: neither set moves the wheel (centre, or rim for the turn) further in a step than
  the contact motion of its mesh in that step: how much deeper its deepest vertex is at the
  step's end than the mesh was left at its start (the approach after that boundary's set, a
  state); no contact motion, no set. A wheel whose mount gives way at once is thus carried
  along by what strikes it, its set the intrusion past it less the approach of its first
  step, and a wheel pressed without moving deeper takes no set whatever the force.

The set enters the wheel's kinematics (``engine.vehicle``): its centre at
``x_initial + Delta x`` (Eq. 58) and ``y_initial + ... + Delta y`` (Eq. 59, 61), its steer and
camber turned by the set's toe and camber.
"""
import math

from .jit import njit, njit_inline
from .kinematics import cos_sin
from .connection import turntable_point
from .layout import (APHI, AX_CAMBER, AX_KAPPA, AX_TURNTABLE, AX_YC, AX_ZRC, AZ, DM_APPROACH, DM_CAMBER, DM_TOE,
                     DM_X, DM_Y, E_DMG_BASE, FR_TT, N_AXLE_STATE, N_DMG_STATE, N_STEER_STATE,
                     N_WHEEL_STATE, U_NWHEELS, U_STEER_SLOT, U_WHEEL0, W_SIDE,
                     W_SOLID, W_STEERED, W_X, W_Y0, W_Z0, WC_F0, WC_FMAX, WC_M0, WC_MMAX, WC_NV,
                     WC_RADIUS, WC_RATE, WL_CONTACT, WL_DEEPEST, WL_FX, WL_MX, WP_EX, WP_EY,
                     WP_EZ, WP_X, WP_Y, WP_Z, WZ, state_bases)
from .steering import driver_steer, steering_wheel_angle
from .suspension import bump_steer, camber_change, half_track_change

# --- the pose (compiled) ---------------------------------------------------------------

@njit
def steering_angle(y, P, u_unit, u, clock, steer_base):
    """The steering-wheel angle of unit u, as ``engine.vehicle`` takes it
    (engine.steering.steering_wheel_angle); 0 for a unit without a steering system."""
    slot = int(P.P_UNIT[u, U_STEER_SLOT])
    if slot < 0:
        return 0.0
    return steering_wheel_angle(y, P, u_unit, u, clock, steer_base + N_STEER_STATE * slot)[0]


@njit_inline
def damaged_wheel_x(PW, y, w, dmg):
    """Wheel w's centre x (vehicle frame, from the CG) with its damage set (state block
    ``dmg``): Eq. 58's x, before a full trailer's turntable turns it."""
    return PW[w, W_X] + y[dmg + DM_X]


@njit
def wheel_geometry(y, P, U, u, w, theta, wheel_base, axle_base, dmg):
    """Wheel w's centre (vehicle frame, from the CG), steer and camber, as the derivative takes
    them (Eq. 58-65), with its damage set (state block ``dmg``); ``theta``: its unit u's
    steering-wheel angle, ``U`` the inputs (engine.steering.driver_steer)."""
    PW = P.P_WHEEL
    road_steer = driver_steer(P, U.u_wheel, u, w, theta)
    solid = int(PW[w, W_SOLID])
    xw = damaged_wheel_x(PW, y, w, dmg)
    if solid < 0:
        dz = y[wheel_base + N_WHEEL_STATE * w + WZ]
        yw = PW[w, W_Y0] + half_track_change(PW, P.T_WHEEL, w, -dz)[0]
        zw = PW[w, W_Z0] + dz
        cam = camber_change(PW, P.T_WHEEL, w, -dz)[0]
        steer = road_steer * PW[w, W_STEERED] + bump_steer(PW, w, dz)
    else:
        ao = axle_base + N_AXLE_STATE * solid
        phi = y[ao + APHI]
        yc = P.P_AXLE[solid, AX_YC]
        ca, sa = math.cos(phi), math.sin(phi)
        ry0 = PW[w, W_Y0] - yc
        rz0 = PW[w, W_Z0] - P.P_AXLE[solid, AX_ZRC]
        yw = yc + ry0 * ca - rz0 * sa
        zw = P.P_AXLE[solid, AX_ZRC] + y[ao + AZ] + ry0 * sa + rz0 * ca
        cam = phi + PW[w, W_SIDE] * P.P_AXLE[solid, AX_CAMBER]
        steer = road_steer * PW[w, W_STEERED] + P.P_AXLE[solid, AX_KAPPA] * phi
    return xw, yw + y[dmg + DM_Y], zw, steer, cam


@njit
def unit_wheel_poses(y, P, U, clock, u, pose, frames):
    """The pose of every wheel mesh of unit u (``layout.WP_*``) into pose[w]; a wheel of a full
    trailer's turntable turned with it (``frames``, engine.connection)."""
    PU, PWC = P.P_UNIT, P.P_WCOLL
    wheel_base, axle_base, _, _, _, steer_base = state_bases(P)
    dbase = int(P.P_ENV[E_DMG_BASE])
    w0 = int(PU[u, U_WHEEL0])
    theta = steering_angle(y, P, U.u_unit, u, clock, steer_base)
    for w in range(w0, w0 + int(PU[u, U_NWHEELS])):
        if PWC[w, WC_NV] <= 0.0:
            continue
        xw, yw, zw, steer, cam = wheel_geometry(y, P, U, u, w, theta, wheel_base, axle_base,
                                                dbase + N_DMG_STATE * w)
        solid = int(P.P_WHEEL[w, W_SOLID])
        if solid >= 0 and P.P_AXLE[solid, AX_TURNTABLE] > 0.5:
            xw, yw = turntable_point(frames, u, xw, yw)
            steer += frames[u, FR_TT]
        cs, ss = cos_sin(steer + y[dbase + N_DMG_STATE * w + DM_TOE])
        cc, sc = cos_sin(cam + y[dbase + N_DMG_STATE * w + DM_CAMBER])
        p = pose[w]
        p[WP_X], p[WP_Y], p[WP_Z] = xw, yw, zw
        # the spin axis (Eq. 79), the heading square to it in the vehicle's x-y plane as
        # near as it goes, and the third axis (down) completing them
        ey0, ey1, ey2 = -ss, cc * cs, sc * cs
        ez0, ez1, ez2 = ss * ey2, -cs * ey2, cs * ey1 - ss * ey0          # (cs, ss, 0) x ey
        n = math.sqrt(ez0 * ez0 + ez1 * ez1 + ez2 * ez2)
        ez0, ez1, ez2 = ez0 / n, ez1 / n, ez2 / n
        p[WP_EX], p[WP_EX + 1], p[WP_EX + 2] = (ey1 * ez2 - ey2 * ez1, ey2 * ez0 - ey0 * ez2,
                                                 ey0 * ez1 - ey1 * ez0)
        p[WP_EY], p[WP_EY + 1], p[WP_EY + 2] = ey0, ey1, ey2
        p[WP_EZ], p[WP_EZ + 1], p[WP_EZ + 2] = ez0, ez1, ez2


@njit
def wheel_centre_x(y, P, w):
    """The x (vehicle frame, from the CG) of wheel w's centre as :func:`unit_wheel_poses` puts
    it, its damage set's included (:func:`wheel_geometry`); NaN for a wheel of a full trailer's
    turntable, which the turntable moves along x as well."""
    solid = int(P.P_WHEEL[w, W_SOLID])
    if solid >= 0 and P.P_AXLE[solid, AX_TURNTABLE] > 0.5:
        return math.nan
    return damaged_wheel_x(P.P_WHEEL, y, w, int(P.P_ENV[E_DMG_BASE]) + N_DMG_STATE * w)


@njit
def ensure_poses(y, P, U, clock, u, pose, valid, frames):
    """Unit u's wheel poses into pose, computed once per collision pass (``valid[u]``): only a
    unit whose reach meets something pays for them."""
    if valid[u] == 0.0:
        unit_wheel_poses(y, P, U, clock, u, pose, frames)
        valid[u] = 1.0


@njit
def wheel_vertex(CV, vi, p):
    """Vertex vi of a wheel mesh (its offset CV[vi] in the wheel's axes) in the vehicle frame,
    the wheel at pose p."""
    lx, ly, lz = CV[vi, 0], CV[vi, 1], CV[vi, 2]
    return (p[WP_X] + lx * p[WP_EX] + ly * p[WP_EY] + lz * p[WP_EZ],
            p[WP_Y] + lx * p[WP_EX + 1] + ly * p[WP_EY + 1] + lz * p[WP_EZ + 1],
            p[WP_Z] + lx * p[WP_EX + 2] + ly * p[WP_EY + 2] + lz * p[WP_EZ + 2])


@njit
def add_wheel_load(load, p, rx, ry, rz, fx, fy, fz):
    """A vertex's force f at r (vehicle frame) onto its wheel's load: the force, and its
    moment about the wheel centre (pose p)."""
    dx, dy, dz = rx - p[WP_X], ry - p[WP_Y], rz - p[WP_Z]
    load[WL_FX] += fx
    load[WL_FX + 1] += fy
    load[WL_FX + 2] += fz
    load[WL_MX] += dy * fz - dz * fy
    load[WL_MX + 1] += dz * fx - dx * fz
    load[WL_MX + 2] += dx * fy - dy * fx


@njit
def latch_wheel_motion(load, pen):
    """A wheel vertex at approach ``pen`` at a step boundary: the wheel's deepest approach now
    raised to it, one more vertex in contact."""
    if pen > load[WL_DEEPEST]:
        load[WL_DEEPEST] = pen
    load[WL_CONTACT] += 1.0


# --- the damage (compiled) ---------------------------------------------------------------

@njit
def set_step(load, threshold, rate, limit, current, motion):
    """How far a set grows in a step: the set ``rate (min(load, limit) - threshold)`` the mount
    takes under ``load`` beyond the ``current`` one, capped at the contact motion (0 without
    it, and never negative)."""
    if load <= threshold or motion <= 0.0:
        return 0.0
    grow = rate * (min(load, limit) - threshold) - current
    if grow <= 0.0:
        return 0.0
    return min(grow, motion)


@njit
def contact_motions(y, P, loads, motion):
    """At a step boundary: each wheel's contact motion over the step just taken into
    motion[w, 0] (how much deeper its mesh is now, ``loads[w, WL_DEEPEST]``, than it was left
    at the last boundary, never negative) and that deepest approach into motion[w, 1];
    whether any wheel moved."""
    dbase = int(P.P_ENV[E_DMG_BASE])
    moved = False
    for w in range(motion.shape[0]):
        deepest = loads[w, WL_DEEPEST]
        m = deepest - y[dbase + N_DMG_STATE * w + DM_APPROACH]
        motion[w, 0] = m if m > 0.0 else 0.0
        motion[w, 1] = deepest
        if m > 0.0:
            moved = True
    return moved


@njit
def damage_step(y, P, loads, motion):
    """At a step boundary: every wheel's damage set grown by its load (``loads[w]``: the
    collision force and moment on its mesh at the boundary, ``layout.WL_*``) within its contact
    motion ``motion[w, 0]`` (:func:`contact_motions`), as the module docstring says, and the
    approach it is left with (its deepest, motion[w, 1], less the set's growth) kept for the
    next step. Whether any of those states changed, and whether a set grew (a wheel's mesh
    moved)."""
    PWC = P.P_WCOLL
    dbase = int(P.P_ENV[E_DMG_BASE])
    changed, grown = False, False
    for w in range(PWC.shape[0]):
        d = dbase + N_DMG_STATE * w
        load = loads[w]
        left = motion[w, 1]
        if PWC[w, WC_NV] > 0.0 and motion[w, 0] > 0.0:
            rate = PWC[w, WC_RATE]
            fx, fy = load[WL_FX], load[WL_FX + 1]
            f = math.sqrt(fx * fx + fy * fy)
            dx, dy = y[d + DM_X], y[d + DM_Y]
            s = set_step(f, PWC[w, WC_F0], rate, PWC[w, WC_FMAX], math.sqrt(dx * dx + dy * dy),
                         motion[w, 0])
            if s > 0.0:
                y[d + DM_X] = dx + s * fx / f
                y[d + DM_Y] = dy + s * fy / f
                left -= s
                changed, grown = True, True
            r = PWC[w, WC_RADIUS]
            mx, mz = load[WL_MX], load[WL_MX + 2]
            m = math.sqrt(mx * mx + mz * mz)
            tc, tt = y[d + DM_CAMBER], y[d + DM_TOE]
            # the turn's rim set: rate (M - M_0) / r, capped by the contact motion; the turn is it / r
            s = set_step(m / r, PWC[w, WC_M0] / r, rate, PWC[w, WC_MMAX] / r,
                         r * math.sqrt(tc * tc + tt * tt), motion[w, 0])
            if s > 0.0:
                y[d + DM_CAMBER] = tc + s / r * mx / m
                y[d + DM_TOE] = tt + s / r * mz / m
                changed, grown = True, True
        left = left if left > 0.0 else 0.0
        if y[d + DM_APPROACH] != left:
            y[d + DM_APPROACH] = left
            changed = True
    return changed, grown
