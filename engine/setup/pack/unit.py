"""The units' rows of ``P_UNIT``: the sprung mass (Eq. 43: every coordinate from the CG with
its payloads), the lead unit whose pedal drives its brakes, and where its wheels, solid axles
and aero surfaces lie in the other arrays."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ..derived import unit_mass, unsprung_yaw_inertias


def pack_units(rows, units, statics):
    """``P_UNIT`` with the sprung mass and index columns filled (the subsystems' columns follow:
    :mod:`.steering`, :mod:`.brakes`, :mod:`.drivetrain`)."""
    P_UNIT = np.zeros((len(units), L.N_UNIT_P))
    lead = leads(units)
    for r in rows.units:
        unit, props = units[r.index], statics[r.index].props
        P = P_UNIT[r.index]
        ix, iy, iz = props.inertia
        P[L.U_MS], P[L.U_IX], P[L.U_IY], P[L.U_IZ], P[L.U_IXZ] = props.mass, ix, iy, iz, props.Ixz
        P[L.U_IZ_UNSPRUNG] = sum(unsprung_yaw_inertias(unit, statics[r.index]))       # Eq. 10
        P[L.U_CGH] = props.cg_height
        P[L.U_LEAD] = lead[r.index]
        P[L.U_MTOTAL] = unit_mass(unit)
        P[L.U_WHEEL0], P[L.U_NWHEELS] = r.wheel0, r.nwheels
        P[L.U_AXLE0], P[L.U_NAXLES] = r.axle0, r.naxles
        P[L.U_AERO0], P[L.U_NAERO] = r.aero0, r.naero
    return P_UNIT


def leads(units):
    """Per unit, the index of the lead unit at the head of its combination."""
    names = [u.name for u in units]
    lead = list(range(len(units)))
    for j, unit in enumerate(units):          # a tow unit is listed before the units it tows
        front = unit.connections.front
        if front is not None:
            lead[j] = lead[names.index(front.tow)]
    return lead
