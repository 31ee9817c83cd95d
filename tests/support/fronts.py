"""Two units' boxes front to front (engine.setup.collision.unit_box, engine.collision's unit
pairs): the area their fronts have in common and the mean approach over it, from the units'
poses, and the mass-spring closed form of the deepest approach."""
from __future__ import annotations

import math

import numpy as np

from engine.kinematics import euler_trig, rotation_vehicle_to_earth


def rotation(roll, pitch, yaw):
    """The vehicle-to-earth rotation (engine.kinematics)."""
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(roll, pitch, yaw), R)
    return R


def _within(s0, s1, lo, hi, a, b):
    """The interval of t in [a, b] where s0 + s1 t lies in [lo, hi] (empty: hi < lo)."""
    if s1 == 0.0:
        return (a, b) if lo <= s0 <= hi else (a, a - 1.0)
    t0, t1 = sorted(((lo - s0) / s1, (hi - s0) / s1))
    return max(a, t0), min(b, t1)


def front_contact(pose_a, box_a, pose_b, box_b):
    """(area, mean approach) of unit a's front over unit b's front: the part of a's front face
    (``box``: x_front, x_rear, y_half, z_top, z_bottom, y_centre from the CG, as unit_box;
    ``pose``: X, Y, Z, roll, pitch, yaw) that lies across b's front face (within its width and
    height, seen along b's x), and the mean of its depth past b's front. For units that do not
    roll or yaw against each other but by half turns, the depth varies linearly along a's
    height only, so its mean is its value at the middle of that part (exact)."""
    xa, _, ha, ta, ba, ca = box_a
    xb, _, hb, tb, bb, cb = box_b
    Ra, Rb = rotation(*pose_a[3:]), rotation(*pose_b[3:])
    origin = (np.asarray(pose_a[:3]) + Ra @ np.array([xa, 0.0, 0.0]) - np.asarray(pose_b[:3])) @ Rb
    along_y, along_z = Rb.T @ Ra[:, 1], Rb.T @ Ra[:, 2]
    y0, y1 = _within(origin[1], along_y[1], cb - hb, cb + hb, ca - ha, ca + ha)
    z0, z1 = _within(origin[2], along_z[2], tb, bb, ta, ba)
    if y1 <= y0 or z1 <= z0:
        return 0.0, 0.0
    mid = 0.5 * (z0 + z1)
    return (y1 - y0) * (z1 - z0), xb - (origin[0] + along_z[0] * mid + along_y[0] * 0.5 * (y0 + y1))


def series_per_area(k_a, k_b):
    """Two faces' stiffnesses per unit area (N/m^3, B / H) in series."""
    return k_a * k_b / (k_a + k_b)


def peak_approach(closing_speed, m_a, m_b, k):
    """The mass-spring closed form: two masses closing at ``closing_speed`` on a contact of
    stiffness k reach the approach v sqrt(mu_r / k), mu_r the reduced mass."""
    return closing_speed * math.sqrt(m_a * m_b / (m_a + m_b) / k)
