"""Orientation and kinematics of the sprung mass (Eq. 53-57).

The manual prints the matrix of Eq. 53 with rows (cos psi cos theta, sin psi cos theta,
-sin theta), ...: that matrix takes earth-fixed components to vehicle-fixed ones. Eq. 57,
125 and 137 use "A" to go the other way (vehicle to earth), Eq. 119 and 139 use A^T to come
back. We therefore store ``R`` = vehicle-to-earth = transpose of the printed matrix, so that
``x_earth = R @ x_vehicle`` (Eq. 57) and ``x_vehicle = R.T @ x_earth`` (Eq. 139).
See docs/equations.md.
"""
import math

from .jit import njit


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
