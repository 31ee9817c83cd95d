"""The inter-vehicle connections, ``P_CONN`` (Eq. 117-135, ``engine.connection``)."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ..equilibrium import links
from ..payload import adjusted


def pack_connections(model, statics, conn_statics, rates):
    """``P_CONN``, a row per connection of the :class:`engine.setup.model.EventModel` in
    towed-unit order (``engine.setup.equilibrium.links``), with the rates
    ``engine.setup.equilibrium.connection_rates`` gives."""
    P_CONN = np.zeros((len(conn_statics), L.N_CONN_P))
    for c, (cs, link, (k_c, c_c)) in enumerate(zip(conn_statics, links(model), rates)):
        _pack_connection(P_CONN[c], model.units, statics, cs, link, k_c, c_c)
    return P_CONN


def _pack_connection(C, units, statics, cs, link, k_c, c_c):
    """Pack one connection (Eq. 117-135) from the tow unit's rear and the towed unit's front."""
    tow, towed = units[cs.tow], units[cs.towed]
    rear, front = tow.connections.rear, towed.connections.front
    C[L.C_TOW], C[L.C_TOWED] = cs.tow, cs.towed
    C[L.C_AX:L.C_AZ + 1] = adjusted(rear.point, statics[cs.tow].props.delta)
    C[L.C_BX:L.C_BZ + 1] = adjusted(front.point, statics[cs.towed].props.delta)
    C[L.C_K], C[L.C_C] = k_c, c_c
    C[L.C_VERTICAL] = 1.0 if link.vertical else 0.0
    C[L.C_P0] = cs.P
    ft, hf = rear.frame_torsion, rear.hitch_friction
    C[L.C_KFRAME], C[L.C_CFRAME] = ft.stiffness, ft.damping
    C[L.C_MU], C[L.C_RADIUS], C[L.C_NULL] = hf.coefficient, hf.radius, hf.null_band
    if link.pitch:
        C[L.C_KPITCH], C[L.C_CPITCH] = rear.pitch_stiffness, rear.pitch_damping
        C[L.C_M0] = cs.M
    C[L.C_FAIL_F] = front.failure_force or 0.0
    C[L.C_FAIL_T] = front.failure_start_time
    C[L.C_DRAWBAR] = front.drawbar_length or 0.0
