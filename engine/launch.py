"""The placements the native FMU repeats at initialisation (kernels): a unit turned to a launch
attitude touches the ground; a towed unit stands in line behind its tow unit; the vehicles of
an event start apart.

A lead unit started at a roll or pitch (``units[i].initial``: roll, pitch; the FMU parameters
``<unit>.roll0``, ``<unit>.pitch0``) keeps its wheels' equilibrium travel and is lowered or
raised so that its lowest tire or exterior-mesh vertex just touches flat ground (a tire at
zero deflection): a launch, not an equilibrium (``engine.setup.launch`` sets the attitude and
motion; docs/limitations.md). A towed unit stands in line with its tow unit
(:func:`place_towed`). Two vehicles whose plan-view footprints overlap cannot start
(:func:`footprint_hits`, ``engine.setup.footprint``). Kernels, so that the native FMU places
a vehicle whose position or launch is set at initialisation, and checks it, with the same
arithmetic as the set-up.
"""
import math

from .jit import dynamic, njit
from .kinematics import euler_trig, rotation_vehicle_to_earth
from .layout import (C_AX, C_AY, C_BX, C_BY, C_DRAWBAR, C_TOW, C_TOWED, CO_NV, CO_V0, N_BODY,
                     N_WHEEL_STATE, SPHI, SPSI, STHETA, SX, SY, SZ, T_DY, T_RU, U_NWHEELS,
                     U_WHEEL0, W_NTIRES, W_TIRE0, W_X, W_Y0, W_Z0, WZ, state_bases)


@njit
def lowest_point(y, P, R, u):
    """The earth Z (down +) of unit u's lowest point in the state y: of its tires, each the
    circle of its unloaded radius in its wheel plane about its centre at the wheel's travel
    (unsteered), and of its exterior mesh's vertices (Eq. 53: R, a 3x3 scratch, receives the
    unit's rotation)."""
    o = N_BODY * u
    rotation_vehicle_to_earth(*euler_trig(y[o + SPHI], y[o + STHETA], y[o + SPSI]), R)
    Z = y[o + SZ]
    # the wheel plane's direction nearest the ground's normal: down - (axle . down) axle, of
    # length cos(inclination); the tire's lowest point lies its radius along it
    ax, ay, az = R[0, 1], R[1, 1], R[2, 1]
    ix, iy, iz = 0.0 - az * ax, 0.0 - az * ay, 1.0 - az * az
    cos_incl = math.sqrt(ix * ix + iy * iy + iz * iz)
    wheel_base = state_bases(P)[0]
    P_WHEEL, P_TIRE = P.P_WHEEL, P.P_TIRE
    low = -math.inf
    w0 = int(P.P_UNIT[u, U_WHEEL0])
    for w in range(w0, w0 + int(P.P_UNIT[u, U_NWHEELS])):
        dz = y[wheel_base + N_WHEEL_STATE * w + WZ]
        t0 = int(P_WHEEL[w, W_TIRE0])
        for t in range(t0, t0 + int(P_WHEEL[w, W_NTIRES])):
            cz = (R[2, 0] * P_WHEEL[w, W_X] + R[2, 1] * (P_WHEEL[w, W_Y0] + P_TIRE[t, T_DY])
                  + R[2, 2] * (P_WHEEL[w, W_Z0] + dz))
            low = max(low, Z + cz + P_TIRE[t, T_RU] * cos_incl)
    v0, nv = int(P.P_COLL[u, CO_V0]), int(P.P_COLL[u, CO_NV])
    if nv > 0:
        CV = P.CV
        top = -math.inf
        for v in range(v0, v0 + nv):
            top = max(top, R[2, 0] * CV[v, 0] + R[2, 1] * CV[v, 1] + R[2, 2] * CV[v, 2])
        low = max(low, Z + top)
    return low


@njit
def place_launch(y, P, R, u, ground_z):
    """Raise or lower unit u in the state y so that its lowest point (:func:`lowest_point`)
    is at earth Z ``ground_z`` (down +)."""
    y[N_BODY * u + SZ] += ground_z - lowest_point(y, P, R, u)


@njit
def place_towed(y, P):
    """Every towed unit in the state y in line with its tow unit (the same yaw), its front
    point on the tow unit's rear point in X and Y, a full trailer's king pin its drawbar
    length straight behind it (connections in unit order, so a tow unit is placed before the
    unit it tows); its Z is left as it is (``engine.setup.equilibrium.place_units``)."""
    C = P.P_CONN
    for c in range(C.shape[0]):
        oa, ob = N_BODY * int(C[c, C_TOW]), N_BODY * int(C[c, C_TOWED])
        X, Y, yaw = y[oa + SX], y[oa + SY], y[oa + SPSI]
        cs, sn = math.cos(yaw), math.sin(yaw)
        xr, yr, xf, yf = C[c, C_AX], C[c, C_AY], C[c, C_BX], C[c, C_BY]
        hx, hy = X + cs * xr - sn * yr, Y + sn * xr + cs * yr      # the hitch point, earth X, Y
        lb = C[c, C_DRAWBAR]
        y[ob + SX] = hx - lb * cs - (cs * xf - sn * yf)
        y[ob + SY] = hy - lb * sn - (sn * xf + cs * yf)
        y[ob + SPSI] = yaw


@njit
def footprint_corners(foot, where, u, out, k):
    """Unit u's footprint corners in the earth X, Y plane into out[k] (Eq. 53 in the plane:
    earth = R(yaw) vehicle): front left, front right, rear right, rear left, from foot[u] =
    (x_front, x_rear, half width) and where[u] = (X, Y, yaw)."""
    X, Y = where[u, 0], where[u, 1]
    c, s = math.cos(where[u, 2]), math.sin(where[u, 2])
    xf, xr, hw = foot[u, 0], foot[u, 1], foot[u, 2]
    for j in range(4):
        x = xf if j < 2 else xr
        y = hw if j == 0 or j == 3 else -hw
        out[k, j, 0] = X + c * x - s * y
        out[k, j, 1] = Y + s * x + c * y


@njit
def footprint_separated(out, k):
    """Whether an edge normal of polygon k of ``out`` separates the two polygons (the
    separating axis theorem; polygons that only touch are separated)."""
    for e in range(4):
        x0, y0 = out[k, e, 0], out[k, e, 1]
        x1, y1 = out[k, (e + 1) % 4, 0], out[k, (e + 1) % 4, 1]
        nx, ny = y1 - y0, x0 - x1
        lo_a = hi_a = nx * out[0, 0, 0] + ny * out[0, 0, 1]
        lo_b = hi_b = nx * out[1, 0, 0] + ny * out[1, 0, 1]
        for j in range(1, 4):
            pa = nx * out[0, j, 0] + ny * out[0, j, 1]
            pb = nx * out[1, j, 0] + ny * out[1, j, 1]
            lo_a, hi_a = min(lo_a, pa), max(hi_a, pa)
            lo_b, hi_b = min(lo_b, pb), max(hi_b, pb)
        if hi_a <= lo_b or hi_b <= lo_a:
            return True
    return False


@njit
def footprint_hits(y, pairs, foot, where, corners, hits):
    """The start's overlaps of the vehicles' plan-view footprints (``engine.setup.footprint``):
    every unit's (X, Y, yaw) from the state y into where[u]; pairs [row, 3] = (pair of
    vehicles, unit of the first, unit of the second), in the order they are tried; hits[pair]
    = the first row whose footprints (foot [unit, 3]) share interior points, else -1.
    corners: scratch [2, 4, 2]."""
    for u in range(where.shape[0]):
        o = N_BODY * u
        where[u, 0], where[u, 1], where[u, 2] = y[o + SX], y[o + SY], y[o + SPSI]
    for k in range(hits.shape[0]):
        hits[k] = -1
    for r in range(pairs.shape[0]):
        k = int(pairs[r, 0])
        if hits[k] >= 0:
            continue
        first, second = dynamic(0), dynamic(1)     # one compile for both polygons
        footprint_corners(foot, where, int(pairs[r, 1]), corners, first)
        footprint_corners(foot, where, int(pairs[r, 2]), corners, second)
        if not (footprint_separated(corners, first) or footprint_separated(corners, second)):
            hits[k] = r
