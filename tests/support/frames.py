"""Frames for the tests' references: the vehicle-to-earth rotation of a body's yaw-pitch-roll
angles (SAE J670, z down), independent of the engine."""
from __future__ import annotations

import math

import numpy as np


def rotation(roll, pitch, yaw):
    """The vehicle-to-earth rotation matrix of yaw-pitch-roll angles (rad)."""
    cf, sf, ct, st, cp, sp = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                              math.cos(yaw), math.sin(yaw))
    return np.array([[cp * ct, -sp * cf + cp * sf * st, sp * sf + cp * st * cf],
                     [sp * ct, cp * cf + sf * sp * st, -cp * sf + sp * st * cf],
                     [-st, sf * ct, ct * cf]])
