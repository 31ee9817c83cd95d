"""Orientation and kinematics of the sprung mass (Eq. 53-57).

The manual prints the matrix of Eq. 53 with rows (cos psi cos theta, sin psi cos theta,
-sin theta), ...: that matrix takes earth-fixed components to vehicle-fixed ones. Eq. 57,
125 and 137 use "A" to go the other way (vehicle to earth), Eq. 119 and 139 use A^T to come
back. We therefore store ``R`` = vehicle-to-earth = transpose of the printed matrix, so that
``x_earth = R @ x_vehicle`` (Eq. 57) and ``x_vehicle = R.T @ x_earth`` (Eq. 139).
See docs/equations.md.

Pitch through 90 degrees. Eq. 54-56 hold tan(theta) and sec(theta): they are singular at 90
degrees of pitch, and the manual leaves the remedy open ("an axis indexing scheme can be
implemented"). Ours: while a body is pitched within 30 degrees of +-90 (|cos theta| below
:data:`ATT_ENTER`), its three attitude states are the Euler angles of re-indexed axes, the
body's axes turned by s 90 degrees about their y-axis (s = +1 nose up, -1 nose down, the
attitude index, a state): the body's x-axis is the re-indexed -s z-axis and its z-axis the
re-indexed s x-axis (:func:`reindex_columns`), so the re-indexed pitch is far from its own
singularity. Their rates are Eq. 54-56 of the re-indexed body rates (s r, q, -s p). Once the
body's own pitch is within 45 degrees of level or of upside down (|cos theta| above
:data:`ATT_LEAVE`) the states return to the body's own angles. The switches happen at
integration step boundaries (``engine.vehicle.latch_attitude``) and change no rotation, only
the angles that describe it; a body that never pitches past 60 degrees never switches.

The outputs roll, pitch and yaw stay the body's Euler angles (yaw, pitch, roll about z, y,
x; Eq. 53) and continuous: of the two sets of angles that give one rotation, (phi, theta, psi)
and (phi + pi, pi - theta, psi + pi), each angle taken to the turn nearest, the one nearest
the angles of the previous step boundary (:func:`nearest_zyx`). A pitch-over reads as a pitch
that passes 90 degrees and goes on (to 180 on the roof, facing back), roll and yaw unchanged;
exactly at +-90 degrees roll and yaw are not separately defined (only their difference or sum
is), and the outputs pass that instant without a jump in the rotation they describe.
"""
import math

from .jit import njit

#: |cos(pitch)| below which a body's attitude states switch to the re-indexed axes (30 degrees
#: from +-90 degrees of pitch), and above which they switch back (45 degrees from level or
#: from upside down): the hysteresis keeps a body near either threshold from switching at
#: every step
ATT_ENTER = 0.5
ATT_LEAVE = math.sqrt(0.5)


@njit
def cos_sin(angle):
    """(cos, sin) of an angle; exactly (1, 0) at zero without the library calls (the wheels
    that are neither steered nor cambered)."""
    if angle == 0.0:
        return 1.0, 0.0
    return math.cos(angle), math.sin(angle)


@njit
def euler_trig(phi, theta, psi):
    """Cosines and sines of roll, pitch and yaw: (cf, sf, ct, st, cp, sp), computed once per
    evaluation for Eq. 53 and Eq. 54-56."""
    return (math.cos(phi), math.sin(phi), math.cos(theta), math.sin(theta),
            math.cos(psi), math.sin(psi))


@njit
def rotation_vehicle_to_earth(cf, sf, ct, st, cp, sp, R):
    """Fill R (3x3) with the vehicle-to-earth rotation for yaw-pitch-roll Euler angles (Eq. 53),
    given their cosines and sines (:func:`euler_trig`)."""
    # transpose of the printed Eq. 53
    R[0, 0] = cp * ct
    R[1, 0] = sp * ct
    R[2, 0] = -st
    R[0, 1] = -sp * cf + cp * sf * st
    R[1, 1] = cp * cf + sf * sp * st
    R[2, 1] = sf * ct
    R[0, 2] = sp * sf + cp * st * cf
    R[1, 2] = -cp * sf + sp * st * cf
    R[2, 2] = ct * cf


@njit
def euler_rates(cf, sf, ct, st, p, q, r):
    """Euler-angle rates from body rates: Eq. 54 (roll), Eq. 55 (pitch), Eq. 56 (yaw), given
    the cosines and sines of roll and pitch (:func:`euler_trig`)."""
    tt = st / ct
    qr = q * sf + r * cf
    return p + qr * tt, q * cf - r * sf, qr / ct


@njit
def to_earth(R, x, y, z):
    """Earth-fixed components of a vehicle-fixed vector (Eq. 57, 125, 137)."""
    return (R[0, 0] * x + R[0, 1] * y + R[0, 2] * z,
            R[1, 0] * x + R[1, 1] * y + R[1, 2] * z,
            R[2, 0] * x + R[2, 1] * y + R[2, 2] * z)


@njit
def to_vehicle(R, X, Y, Z):
    """Vehicle-fixed components of an earth-fixed vector (Eq. 119, 139: A^T)."""
    return (R[0, 0] * X + R[1, 0] * Y + R[2, 0] * Z,
            R[0, 1] * X + R[1, 1] * Y + R[2, 1] * Z,
            R[0, 2] * X + R[1, 2] * Y + R[2, 2] * Z)


@njit
def cross(ax, ay, az, bx, by, bz):
    """Vector product a x b."""
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


@njit
def point_velocity(u, v, w, p, q, r, x, y, z):
    """Vehicle-fixed velocity of a point fixed at (x, y, z) from the CG (Eq. 66-68, 122-124)."""
    return u - r * y + q * z, v - p * z + r * x, w - q * x + p * y


@njit
def reindex_columns(R, s):
    """R (3x3, vehicle-to-earth) of the re-indexed axes (attitude index s = +-1) into the
    body's: the body's x-axis is the re-indexed -s z-axis, its z-axis the re-indexed s x-axis
    (module docstring)."""
    for i in range(3):
        a0, a2 = R[i, 0], R[i, 2]
        R[i, 0] = -s * a2
        R[i, 2] = s * a0


@njit
def unindex_columns(R, s):
    """The inverse of :func:`reindex_columns`: the body's R into the re-indexed axes'."""
    for i in range(3):
        b0, b2 = R[i, 0], R[i, 2]
        R[i, 0] = s * b2
        R[i, 2] = -s * b0


@njit
def zyx_angles(R):
    """The Euler angles (roll, pitch, yaw) of R (Eq. 53), pitch in [-pi/2, pi/2], roll and yaw
    in (-pi, pi]."""
    return (math.atan2(R[2, 1], R[2, 2]), math.asin(min(1.0, max(-1.0, -R[2, 0]))),
            math.atan2(R[1, 0], R[0, 0]))


@njit
def near_turn(a, ref):
    """The angle a plus the whole turns that bring it nearest ref."""
    return a + 2.0 * math.pi * math.floor((ref - a) / (2.0 * math.pi) + 0.5)


@njit
def nearest_zyx(R, roll, pitch, yaw):
    """The Euler angles of R nearest (roll, pitch, yaw): of the two sets that give R, each
    angle taken to its nearest turn, the nearer (module docstring)."""
    f, t, p = zyx_angles(R)
    f1, t1, p1 = near_turn(f, roll), near_turn(t, pitch), near_turn(p, yaw)
    f2, t2, p2 = (near_turn(f + math.pi, roll), near_turn(math.pi - t, pitch),
                  near_turn(p + math.pi, yaw))
    d1 = abs(f1 - roll) + abs(t1 - pitch) + abs(p1 - yaw)
    d2 = abs(f2 - roll) + abs(t2 - pitch) + abs(p2 - yaw)
    if d2 < d1:
        return f2, t2, p2
    return f1, t1, p1


@njit
def body_euler_rates(phi, theta, p, q, r):
    """Eq. 54-56 for the body's own roll and pitch at any pitch: their rates, with cos(pitch)
    held at least :data:`ATT_ENTER` / 10 from zero (only read by the connections,
    ``engine.connection``, while the body is re-indexed)."""
    ct = math.cos(theta)
    lim = 0.1 * ATT_ENTER
    if abs(ct) < lim:
        ct = lim if ct >= 0.0 else -lim
    return euler_rates(math.cos(phi), math.sin(phi), ct, math.sin(theta), p, q, r)
