"""The aero surfaces and devices, ``P_AERO`` (Eq. 140, ``engine.aerodynamics``)."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ...aerodynamics import DEVICE_AXIS, SURFACES, surface_constant
from ..payload import adjusted


def pack_surfaces(rows, units, statics, rho):
    """``P_AERO``, a row per surface of every unit (one zero row when there are none): its
    unit, C_A = C_d A rho / 2, its centre of pressure from the unit's CG with payloads (Eq. 43),
    its axis and face, and a device's C_L A rho / 2."""
    P_AERO = np.zeros((max(len(rows.surfaces), 1), L.N_AERO_P))
    for r in rows.surfaces:
        surf, s, ui = r.surface, r.index, r.unit
        P_AERO[s, L.A_UNIT] = ui
        P_AERO[s, L.A_CA] = surface_constant(surf.drag_coefficient, surf.area, rho)
        P_AERO[s, L.A_CPX:L.A_CPZ + 1] = adjusted(surf.center_of_pressure, statics[ui].props.delta)
        P_AERO[s, L.A_AXIS], P_AERO[s, L.A_FACE] = SURFACES.get(surf.name, (DEVICE_AXIS, 0))
        P_AERO[s, L.A_CL] = surface_constant(surf.lift_coefficient or 0.0, surf.area, rho)
    return P_AERO
