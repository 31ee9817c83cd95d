"""Inter-vehicle connections: fifth wheel and kingpin, pintle hook and drawbar (Eq. 117-135).

A connection joins the rear point of a tow unit ``a`` to the front point of a towed unit
``b``. Each unit keeps its six degrees of freedom; the joint is a stiff spring and damper
between the two points in the earth-fixed frame (Eq. 117), so that every unit is then solved
on its own (the synchronize phase of ``engine.vehicle``):

    F_C = K_C (R_a - R_b) + C_C (V_a - V_b) - P_0 z_a          (Eq. 117-118, 122-125)

F_C is the force on the towed unit (the tow unit gets -F_C), R and V the points' earth-fixed
positions and velocities. ``P_0 z_a`` is the joint's static load along the tow unit's z-axis
(the kingpin load of the static equilibrium, ``engine.setup.equilibrium``): the preload that lets
the joint carry its static load with the two points together, as the suspension's F_s0
does. K_C and C_C come from the connection model (``engine.setup.equilibrium.connection_rates``,
docs/equations.md). A hinged drawbar carries no vertical force: its F_C keeps only its
earth-horizontal part.

The moments (Eq. 126-135): each unit gets r x f of its own point (Eq. 129-134); the frame
torsion (Eq. 127) acts in roll on both; the hitch friction (Eq. 128) acts in yaw against the
articulation rate; a pitch-rigid joint (the fixed dolly's fifth wheel) adds a spring and
damper on the relative pitch about the towed unit's y-axis, preloaded with its static moment.

A full trailer's turntable (a drawbar of ``drawbar_length`` L > 0, docs/equations.md, "Full
trailer: the turntable"): the drawbar is a massless link, hinged at the tow unit's hitch (point
a) and at the turntable's king pin (point b, on the trailer body), whose yaw it sets. It holds
the two points' earth-horizontal distance s at L, with a force along it only:

    F_C = [K_C (s - L) + C_C (V_a - V_b).e] e,       e = (R_a - R_b)_horizontal / s

and the turntable's angle (the front axle's steer angle) is the drawbar's direction in the
trailer's x-y plane, delta = atan2(d_y, d_x) with d = A_b^T (R_a - R_b)_horizontal, its rate
from the points' velocities (FRAMES[b, FR_TT ..], read by the wheels of the unit's turntable
axle, :func:`turntable_point`).

A connection fails, for good, when the magnitude of F_C exceeds its failure force at a step
boundary not before its failure start time (``engine.integrator``); a failed connection
carries nothing.
"""
import math

from .jit import njit, njit_inline
from .kinematics import cross, point_velocity
from .layout import (C_AX, C_AY, C_AZ, C_BX, C_BY, C_BZ, C_C, C_CFRAME, C_CPITCH, C_DRAWBAR,
                     C_FAIL_F, C_FAIL_T, C_K, C_KFRAME, FR_TT, FR_TT_RATE, FR_TT_X, FR_TT_Y,
                     C_KPITCH, C_M0, C_MU, C_NULL, C_P0, C_RADIUS, C_TOW, C_TOWED, C_VERTICAL,
                     CFAILED, FR_ANG, FR_BRATES, FR_R, N_BODY, N_CONN_STATE, SP, SQ, SR, SU, SV,
                     SW, SX, SY, SZ, YC_ART, YC_FAILED, YC_FX, YC_FY, YC_FZ, YC_SEP)


@njit
def _earth(F, u, x, y, z):
    """Earth-fixed components of unit u's vehicle-fixed vector (x, y, z) (Eq. 57, 125)."""
    return (F[u, FR_R + 0] * x + F[u, FR_R + 1] * y + F[u, FR_R + 2] * z,
            F[u, FR_R + 3] * x + F[u, FR_R + 4] * y + F[u, FR_R + 5] * z,
            F[u, FR_R + 6] * x + F[u, FR_R + 7] * y + F[u, FR_R + 8] * z)


@njit
def _vehicle(F, u, X, Y, Z):
    """Unit u's vehicle-fixed components of an earth-fixed vector (Eq. 119-120: A^T)."""
    return (F[u, FR_R + 0] * X + F[u, FR_R + 3] * Y + F[u, FR_R + 6] * Z,
            F[u, FR_R + 1] * X + F[u, FR_R + 4] * Y + F[u, FR_R + 7] * Z,
            F[u, FR_R + 2] * X + F[u, FR_R + 5] * Y + F[u, FR_R + 8] * Z)


@njit
def _point(y, F, u, x, yy, z):
    """Earth-fixed position and velocity of unit u's point (x, yy, z) (Eq. 118, 122-125)."""
    o = N_BODY * u
    dx, dy, dz = _earth(F, u, x, yy, z)
    vx, vy, vz = point_velocity(y[o + SU], y[o + SV], y[o + SW], y[o + SP], y[o + SQ], y[o + SR],
                                x, yy, z)
    ex, ey, ez = _earth(F, u, vx, vy, vz)
    return y[o + SX] + dx, y[o + SY] + dy, y[o + SZ] + dz, ex, ey, ez


@njit
def _accumulate(ext, u, fx, fy, fz, mx, my, mz):
    """Add a force and a moment (vehicle-fixed, about the CG) to unit u's row of ``ext``."""
    for k, v in enumerate((fx, fy, fz, mx, my, mz)):
        ext[u, k] += v


@njit
def wrap_angle(a):
    """The angle a in (-pi, pi]."""
    return math.atan2(math.sin(a), math.cos(a)) if abs(a) > math.pi else a


@njit
def friction_moment(mu, fz, radius, null_band, rate):
    """Eq. 128, the hitch friction moment on the tow unit about z: mu |F_z| r_Conn against
    the articulation rate, proportional to it within the null band. (As printed, the moment
    has the sign of the rate and loses r_Conn inside the band; both are corrected,
    docs/equations.md.)"""
    s = rate / null_band
    if s > 1.0:
        s = 1.0
    elif s < -1.0:
        s = -1.0
    return -mu * abs(fz) * radius * s


@njit
def _relative_rate(y, F, a, b, gx, gy, gz):
    """g . (omega_b - omega_a): the rate of a joint coordinate whose gradient in b's rotation
    (minus that in a's) is the earth-fixed g, from the two units' body rates."""
    oa, ob = N_BODY * a, N_BODY * b
    wax, way, waz = _earth(F, a, y[oa + SP], y[oa + SQ], y[oa + SR])
    wbx, wby, wbz = _earth(F, b, y[ob + SP], y[ob + SQ], y[ob + SR])
    return gx * (wbx - wax) + gy * (wby - way) + gz * (wbz - waz)


@njit
def frame_torsion(y, F, a, b, k, c):
    """Eq. 127, frame torsion: the earth-fixed moment on the towed unit b (the tow unit a gets
    its opposite) of a torsion spring k and damper c across the joint.

    A fifth wheel leaves the towed unit free to rock about the tow unit's y-axis and to turn
    about its own kingpin (z_b); what is left is the twist tau about x between them, the middle
    angle of the relative rotation taken as rock, twist, turn (A_a^T A_b = R_y R_x(tau) R_z),
    whose sine is

        u = sin(tau) = -z_b . y_a

    and which is the manual's phi_b cos(gamma) - phi_a to first order in the roll angles. The
    manual's Euler roll angles are a representation, not the attitude: they jump when an
    attitude's angles are latched near 90 degrees of pitch (``vehicle.latch_attitude``) and
    after whole turns, and the printed pair of moments (Eq. 129, 132-133) is equal and
    opposite only with both units level. So the spring stores (k/2) u^2 and the moment is its
    and the damper's on u: -(k u + c u') g on b and the opposite on a, with g = y_a x z_b the
    gradient of u in b's rotation (minus that in a's) and u' = g . (omega_b - omega_a). Level,
    g is the tow unit's x-axis and the moments are the printed ones; at any attitude the pair
    carries no net moment, the spring gives back what it took and the damper only takes, and
    nothing is singular. Beyond 45 degrees of twist the spring softens (its moment k sin(tau)
    cos(tau) peaks there), where a frame would long have failed (docs/equations.md, "Frame
    torsion")."""
    yax, yay, yaz = _earth(F, a, 0.0, 1.0, 0.0)
    zbx, zby, zbz = _earth(F, b, 0.0, 0.0, 1.0)
    u = -(zbx * yax + zby * yay + zbz * yaz)
    gx, gy, gz = cross(yax, yay, yaz, zbx, zby, zbz)
    rate = _relative_rate(y, F, a, b, gx, gy, gz)
    m = -(k * u + c * rate)
    return m * gx, m * gy, m * gz


@njit
def pitch_joint(y, F, a, b, k, c, m0):
    """A pitch-rigid joint (a fixed dolly's fifth wheel): the earth-fixed moment on the towed
    unit b (the tow unit a gets its opposite) of a spring k, a damper c and the static preload
    m0 on the relative pitch of b about its y-axis, whose sine is

        s = sin(theta) = (x_a x x_b) . y_b = x_a . z_b.

    As frame_torsion's twist: the spring stores (k/2) s^2 - m0 s, the moment on b is
    (m0 - k s - c s') h with h = z_b x x_a the gradient of s in b's rotation (minus that in
    a's) and s' = h . (omega_b - omega_a); level and in line, h is b's y-axis and the moment
    the earlier (m0 - k theta - c q_rel) about it to first order, but at any attitude the pair
    carries no net moment and the spring gives back what it took (it applied the moment about
    y_b, which takes or gives energy as the units turn apart)."""
    xax, xay, xaz = _earth(F, a, 1.0, 0.0, 0.0)
    zbx, zby, zbz = _earth(F, b, 0.0, 0.0, 1.0)
    s = xax * zbx + xay * zby + xaz * zbz
    hx, hy, hz = cross(zbx, zby, zbz, xax, xay, xaz)
    rate = _relative_rate(y, F, a, b, hx, hy, hz)
    m = m0 - k * s - c * rate
    return m * hx, m * hy, m * hz


@njit
def connection_forces(y, P_CONN, conn_base, F, ext, conn_force, record, y_conn):
    """Accumulate every connection's force and moment onto its two units (phase 1 of the
    derivative, after each unit's frame is in ``F``; see the module docstring).

    ext[u, 0:3] and ext[u, 3:6] receive the force and the moment about the unit's CG,
    vehicle-fixed; conn_force[c] the magnitude of the joint force (N).
    """
    for c in range(P_CONN.shape[0]):
        a = int(P_CONN[c, C_TOW])
        b = int(P_CONN[c, C_TOWED])
        P = P_CONN[c]
        ax, ay, az = P[C_AX], P[C_AY], P[C_AZ]
        bx, by, bz = P[C_BX], P[C_BY], P[C_BZ]
        Xa, Ya, Za, VXa, VYa, VZa = _point(y, F, a, ax, ay, az)
        Xb, Yb, Zb, VXb, VYb, VZb = _point(y, F, b, bx, by, bz)
        oa, ob = N_BODY * a, N_BODY * b
        gamma = F[a, FR_ANG + 2] - F[b, FR_ANG + 2]                            # Eq. 126
        failed = y[conn_base + N_CONN_STATE * c + CFAILED] > 0.5
        dX, dY, dZ = Xa - Xb, Ya - Yb, Za - Zb
        # the separation in the directions the joint holds (a hinged drawbar: horizontal)
        sep = math.sqrt(dX * dX + dY * dY + (dZ * dZ if P[C_VERTICAL] > 0.5 else 0.0))
        fbx = fby = fbz = 0.0
        if P[C_DRAWBAR] > 0.0:
            sep = turntable(F, b, P, dX, dY, VXa - VXb, VYa - VYb, y[ob + SP], y[ob + SQ],
                            y[ob + SR])
        if not failed:
            if P[C_DRAWBAR] > 0.0:
                # the turntable's drawbar: along itself only (module docstring)
                s = max(math.sqrt(dX * dX + dY * dY), 1e-9)
                f = P[C_K] * (s - P[C_DRAWBAR]) + P[C_C] * ((VXa - VXb) * dX + (VYa - VYb) * dY) / s
                FX, FY, FZ = f * dX / s, f * dY / s, 0.0
            else:
                # Eq. 117, with the static preload along the tow unit's z-axis
                zx, zy, zz = _earth(F, a, 0.0, 0.0, 1.0)
                FX = P[C_K] * dX + P[C_C] * (VXa - VXb) - P[C_P0] * zx
                FY = P[C_K] * dY + P[C_C] * (VYa - VYb) - P[C_P0] * zy
                FZ = P[C_K] * dZ + P[C_C] * (VZa - VZb) - P[C_P0] * zz
                if P[C_VERTICAL] < 0.5:
                    FZ = 0.0
            conn_force[c] = math.sqrt(FX * FX + FY * FY + FZ * FZ)
            fbx, fby, fbz = _vehicle(F, b, FX, FY, FZ)                      # Eq. 120
            fax, fay, faz = _vehicle(F, a, -FX, -FY, -FZ)                   # Eq. 119
            max_, may, maz = cross(ax, ay, az, fax, fay, faz)               # Eq. 129-131
            mbx, mby, mbz = cross(bx, by, bz, fbx, fby, fbz)                # Eq. 132-134
            # the joint's moments on b, earth-fixed (a gets their opposite): Eq. 127, frame
            # torsion on the joint's twist, and a pitch-rigid joint's (a fixed dolly's fifth
            # wheel) on the relative pitch
            tx = ty = tz = 0.0
            if P[C_KFRAME] > 0.0 or P[C_CFRAME] > 0.0:
                tx, ty, tz = frame_torsion(y, F, a, b, P[C_KFRAME], P[C_CFRAME])
            if P[C_KPITCH] > 0.0 or P[C_CPITCH] > 0.0:
                px, py, pz = pitch_joint(y, F, a, b, P[C_KPITCH], P[C_CPITCH], P[C_M0])
                tx, ty, tz = tx + px, ty + py, tz + pz
            ex, ey, ez = _vehicle(F, b, tx, ty, tz)
            mbx += ex
            mby += ey
            mbz += ez
            ex, ey, ez = _vehicle(F, a, -tx, -ty, -tz)
            max_ += ex
            may += ey
            maz += ez
            # Eq. 128: hitch friction against the articulation rate
            m_fr = friction_moment(P[C_MU], fbz, P[C_RADIUS], P[C_NULL],
                                   F[a, FR_BRATES + 2] - F[b, FR_BRATES + 2])
            maz += m_fr
            mbz -= m_fr
            _accumulate(ext, a, fax, fay, faz, max_, may, maz)
            _accumulate(ext, b, fbx, fby, fbz, mbx, mby, mbz)
        else:
            conn_force[c] = 0.0
        if record:
            y_conn[c, YC_ART] = wrap_angle(gamma)
            y_conn[c, YC_FX] = fbx
            y_conn[c, YC_FY] = fby
            y_conn[c, YC_FZ] = fbz
            y_conn[c, YC_FAILED] = 1.0 if failed else 0.0
            y_conn[c, YC_SEP] = sep


@njit_inline
def turntable(F, b, P, dX, dY, dVX, dVY, p, q, r):
    """The turntable of towed unit b into FRAMES[b, FR_TT ..]: its angle delta and rate (the
    direction of the earth-horizontal hitch-to-king-pin vector (dX, dY) in b's x-y plane, of
    rate (dVX, dVY); b's body rates p, q, r) and its centre (the king pin, P's point b).
    Returns the drawbar's stretch |s - L| (the output ``separation``)."""
    dx, dy, dz = _vehicle(F, b, dX, dY, 0.0)
    ex, ey, ez = _vehicle(F, b, dVX, dVY, 0.0)
    # the rate in b's axes: A^T d' less the body's rotation, w x d
    ex -= q * dz - r * dy
    ey -= r * dx - p * dz
    n = max(dx * dx + dy * dy, 1e-18)
    F[b, FR_TT] = math.atan2(dy, dx)
    F[b, FR_TT_RATE] = (dx * ey - dy * ex) / n
    F[b, FR_TT_X], F[b, FR_TT_Y] = P[C_BX], P[C_BY]
    return abs(math.sqrt(dX * dX + dY * dY) - P[C_DRAWBAR])


@njit_inline
def turntable_point(F, u, x, y):
    """The point (x, y) of unit u's turntable (vehicle axes, from the CG, as at a turntable
    angle of 0) turned with it about its centre: where it is on the body."""
    c, s = math.cos(F[u, FR_TT]), math.sin(F[u, FR_TT])
    x0, y0 = F[u, FR_TT_X], F[u, FR_TT_Y]
    return x0 + c * (x - x0) - s * (y - y0), y0 + s * (x - x0) + c * (y - y0)


@njit
def latch_failures(y, t, P_CONN, conn_base, conn_force):
    """Fail, for good, every connection whose joint force (of the evaluation at the step
    boundary, ``conn_force``) exceeds its failure force at a time not before its failure
    start time. A failure force of 0 means the connection never fails. Returns True when a
    connection failed here (the caller then evaluates the derivative again)."""
    changed = False
    for c in range(P_CONN.shape[0]):
        f_fail = P_CONN[c, C_FAIL_F]
        s = conn_base + N_CONN_STATE * c + CFAILED
        if f_fail > 0.0 and t >= P_CONN[c, C_FAIL_T] and conn_force[c] > f_fail and y[s] < 0.5:
            y[s] = 1.0
            changed = True
    return changed
