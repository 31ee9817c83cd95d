"""The start on a mesh or an external road: every unit put on the terrain under its wheels
(kernel).

Each unit is turned into the least-squares plane through the terrain under its wheels (roll
and pitch from the plane's normal at the unit's yaw; three passes, because the wheels' XY move
as it turns) with its CG at its static height above that plane along the normal; a towed unit
is then moved onto its tow unit's hitch point, a full trailer's king pin to its drawbar length
behind it (docs/equations.md, "Start on the terrain"). Two units joined rigid in pitch (a
fixed dolly and the trailer on its fifth wheel) stand in one plane, through the wheels of
both: their pitch joint then starts unstrained.
A kernel over the packed model and scratch the caller passes, so that the set-up
(``engine.setup.settle``) and code that runs without Python take the same steps; the plane is
:func:`engine.least_squares.least_squares`'s.
"""
import math

from .jit import njit
from .kinematics import euler_trig, rotation_vehicle_to_earth, to_earth
from .layout import (C_AX, C_AY, C_AZ, C_BX, C_BY, C_BZ, C_CPITCH, C_DRAWBAR, C_KPITCH, C_TOW,
                     C_TOWED, N_BODY, SPHI, SPSI, STHETA, SX, SY, SZ, U_CGH, U_NWHEELS, U_WHEEL0,
                     W_X, W_Y0)
from .least_squares import least_squares
from .terrain import surface

#: the passes of a unit's turn into the plane under its wheels
SETTLE_PASSES = 3


@njit
def pitch_partner(P, u):
    """The unit joined to unit u by a joint rigid in pitch (a fixed dolly's fifth wheel), or
    -1."""
    C = P.P_CONN
    for c in range(C.shape[0]):
        if C[c, C_KPITCH] > 0.0 or C[c, C_CPITCH] > 0.0:
            a, b = int(C[c, C_TOW]), int(C[c, C_TOWED])
            if a == u:
                return b
            if b == u:
                return a
    return -1


@njit
def _feet(y, P, u_wheel, R, A, b, v, phi, theta, fault, row):
    """Rows ``row`` on of the plane's system (A, b): the terrain under unit v's wheels, the unit
    turned by (phi, theta) at its own yaw. Returns the next row, or -1 - w for a wheel w whose
    foot found no road (its earth X, Y into fault[0:2])."""
    P_UNIT, P_WHEEL = P.P_UNIT, P.P_WHEEL
    o = N_BODY * v
    X, Y = y[o + SX], y[o + SY]
    h = P_UNIT[v, U_CGH]
    rotation_vehicle_to_earth(*euler_trig(phi, theta, y[o + SPSI]), R)
    w0 = int(P_UNIT[v, U_WHEEL0])
    for j in range(int(P_UNIT[v, U_NWHEELS])):
        w = w0 + j
        fx, fy, _ = to_earth(R, P_WHEEL[w, W_X], P_WHEEL[w, W_Y0], h)
        px, py = X + fx, Y + fy
        found, z, _, _, _, _, _, _ = surface(P, u_wheel, w, px, py, px, py)
        if not found:
            fault[0], fault[1] = px, py
            return -1 - w
        A[row, 0], A[row, 1], A[row, 2] = 1.0, px, py
        b[row] = z
        row += 1
    return row


@njit
def settle_on_terrain(y, P, u_wheel, R, A, b, x, perm, tau, rz, xp, fault):
    """Every unit of the state y on the terrain (module docstring); ``u_wheel``: the wheel
    inputs (an external road's). Scratch: R (3, 3), A (most wheels of a unit, or of two units
    joined rigid in pitch, 3), b (as many), x, tau, rz, xp (3), perm (3 int64). Returns -1, or
    the wheel whose foot found no road (its earth X, Y into fault[0:2]), the units from it on
    left unsettled."""
    P_UNIT = P.P_UNIT
    for u in range(P_UNIT.shape[0]):
        o = N_BODY * u
        X, Y, yaw = y[o + SX], y[o + SY], y[o + SPSI]
        h = P_UNIT[u, U_CGH]
        partner = pitch_partner(P, u)
        phi = theta = 0.0
        n0 = n1 = d = 0.0
        n2 = 1.0
        for _ in range(SETTLE_PASSES):
            n = _feet(y, P, u_wheel, R, A, b, u, phi, theta, fault, 0)
            if n >= 0 and partner >= 0:
                n = _feet(y, P, u_wheel, R, A, b, partner, phi, theta, fault, n)
            if n < 0:
                return -1 - n
            # the plane z = a + b X + c Y, its downward unit normal n and n.P = d
            least_squares(A, n, 3, b, x, perm, tau, rz, xp)
            m = math.sqrt(1.0 + x[1] * x[1] + x[2] * x[2])
            n0, n1, n2 = -x[1] / m, -x[2] / m, 1.0 / m
            d = x[0] * n2
            cp, sp = math.cos(yaw), math.sin(yaw)
            k1 = cp * n0 + sp * n1                  # the normal in the yawed frame
            k2 = -sp * n0 + cp * n1
            phi = -math.asin(max(-1.0, min(1.0, k2)))
            theta = math.atan2(k1, n2)
        y[o + SZ] = (d - h - n0 * X - n1 * Y) / n2
        y[o + SPHI], y[o + STHETA] = phi, theta
    C = P.P_CONN
    for c in range(C.shape[0]):                     # towed units in unit order
        oa, ob = N_BODY * int(C[c, C_TOW]), N_BODY * int(C[c, C_TOWED])
        rotation_vehicle_to_earth(*euler_trig(y[oa + SPHI], y[oa + STHETA], y[oa + SPSI]), R)
        ax, ay, az = to_earth(R, C[c, C_AX], C[c, C_AY], C[c, C_AZ])
        hx, hy, hz = y[oa + SX] + ax, y[oa + SY] + ay, y[oa + SZ] + az     # the hitch point
        rotation_vehicle_to_earth(*euler_trig(y[ob + SPHI], y[ob + STHETA], y[ob + SPSI]), R)
        bx, by, bz = to_earth(R, C[c, C_BX], C[c, C_BY], C[c, C_BZ])
        lb = C[c, C_DRAWBAR]
        if lb > 0.0:
            # a full trailer's king pin: its drawbar length behind the hitch point in the tow
            # unit's heading (as engine.launch.place_towed puts it on flat ground); the trailer
            # stands on its own wheels, where it was settled
            yaw = y[oa + SPSI]
            y[ob + SX] = hx - lb * math.cos(yaw) - bx
            y[ob + SY] = hy - lb * math.sin(yaw) - by
        else:
            y[ob + SX], y[ob + SY], y[ob + SZ] = hx - bx, hy - by, hz - bz
    return -1
