"""The tires, ``P_TIRE`` and their property tables ``TT`` (``engine.tire``, Eq. 93-113), and
each wheel's tires and spin inertia in ``P_WHEEL``."""
from __future__ import annotations

import math

import numpy as np

from ... import layout as L
from ..derived import rim_radius, tire_width
from ..tire_properties import PLANES, pack_partial_derivatives

#: the damping ratio of a wheel's rim and sidewall contact with the road (simulation.tire_limit
#: "wheel"), on the tire's static load: the damping of a rubber contact that comes to rest
#: within a few bounces (our choice, docs/equations.md, "Beyond the tire's range")
WHEEL_CONTACT_DAMPING = 0.5


def pack_tires(P_WHEEL, rows, units, statics, g):
    """``P_TIRE``, ``TT``; and per tire its static load and deflection (the state starts on the
    tire's loading curve there: the turning point of Eq. 93)."""
    nt = len(rows.tires)
    P_TIRE = np.zeros((nt, L.N_TIRE_P))
    TT = np.zeros((nt, L.N_TIRE_PROPS, L.MAX_TIRE_TESTS, L.MAX_TIRE_TESTS))
    loads, deflections = np.zeros(nt), np.zeros(nt)
    for r in rows.wheels:
        tire = units[r.unit].tires[r.ax.tire]
        W = P_WHEEL[r.index]
        W[L.W_ISPIN] = r.ntires * tire.spin_inertia
        W[L.W_TIRE0], W[L.W_NTIRES] = r.tire0, r.ntires
    for r in rows.tires:
        w = r.wheel
        st = statics[w.unit]
        tire = units[w.unit].tires[w.ax.tire]
        _pack_tire(P_TIRE, TT, r.index, w.index, r.offset, tire)
        loads[r.index] = st.tire_loads[w.j][r.k]
        _pack_wheel_contact(P_TIRE[r.index], tire, loads[r.index] / g)
        deflections[r.index] = st.tire_deflections[w.j][r.k]
    return P_TIRE, TT, loads, deflections


def _pack_tire(P_TIRE, TT, t, w, dy, tire):
    """Pack one tire; ``dy`` is its offset along the axle (vehicle y at zero steer)."""
    T = P_TIRE[t]
    T[L.T_WHEEL], T[L.T_DY] = w, dy
    T[L.T_RU] = tire.unloaded_radius
    T[L.T_KT] = tire.radial_stiffness
    T[L.T_KBAR] = tire.secondary_stiffness_multiplier
    T[L.T_D2] = tire.secondary_stiffness_deflection
    T[L.T_LAMBDA] = tire.rebound_multiplier
    T[L.T_DMAX] = tire.max_deflection
    T[L.T_SIG0] = tire.rolling_resistance.sigma0
    T[L.T_SIGV] = tire.rolling_resistance.sigma_v
    T[L.T_RLX] = tire.relaxation_length.longitudinal
    T[L.T_RLY] = tire.relaxation_length.lateral
    T[L.T_FZMIN] = tire.skid_flag.min_load
    T[L.T_PRESSURE] = tire.inflation_pressure or 0.0
    T[L.T_TREAD] = tire.tread_depth or 0.0
    T[L.T_WIDTH] = tire.width or 0.0
    T[L.T_TAU] = tire.skid_flag.adhesion_fraction
    if tire.property_model == "partial_derivatives":
        pack_partial_derivatives(T, TT[t], tire.partial_derivatives)
        return
    loads, speeds = tire.test_loads, tire.test_speeds
    T[L.T_NLOAD], T[L.T_NSPEED] = len(loads), len(speeds)
    T[L.T_LOAD0:L.T_LOAD0 + len(loads)] = loads
    T[L.T_SPEED0:L.T_SPEED0 + len(speeds)] = speeds
    for k, key in PLANES:
        grid = np.asarray(getattr(tire, key))
        TT[t, k, :grid.shape[0], :grid.shape[1]] = grid


def _pack_wheel_contact(T, tire, mass):
    """A tire's rim and sidewall against the road (``engine.tire``, "beyond the tread's
    range"): the rim's flange radius, the sidewalls' offset, the rim's stiffness (the tire's
    secondary rate K_T bar K_T, Eq. 93: the rubber pinched between rim and road) and the
    dampings of both at :data:`WHEEL_CONTACT_DAMPING` on ``mass``, the tire's static share."""
    T[L.T_RRIM] = rim_radius(tire)
    T[L.T_HALFW] = 0.5 * tire_width(tire)
    T[L.T_KRIM] = tire.secondary_stiffness_multiplier * tire.radial_stiffness
    T[L.T_CRIM] = 2.0 * WHEEL_CONTACT_DAMPING * math.sqrt(T[L.T_KRIM] * mass)
    T[L.T_CSIDE] = 2.0 * WHEEL_CONTACT_DAMPING * math.sqrt(tire.radial_stiffness * mass)
