"""The steering system's columns of ``P_UNIT`` (Eq. 33-39, ``engine.steering``) and the steered
wheels of ``P_WHEEL``."""
from __future__ import annotations

import math

from ... import layout as L
from ...steering import mode_code, stop_damping, stop_limits, system_inertia


def pack_units(P_UNIT, units, steering_units, steering_modes):
    """``steering_units``: the units with a steering system (``Event.steering_unit_names``),
    in the order of their steering states; ``steering_modes``: per unit name, a mode in place
    of the event's."""
    for ui, unit in enumerate(units):
        P = P_UNIT[ui]
        P[L.U_STEERING] = 1.0 if unit.steering else 0.0
        P[L.U_STEER_RATIO] = unit.steering.gear_ratio if unit.steering else 1.0
        _pack_steering(P, unit, steering_units, steering_modes)


def pack_wheels(P_WHEEL, rows):
    for r in rows.wheels:
        P_WHEEL[r.index, L.W_STEERED] = 1.0 if r.ax.steered else 0.0


def _pack_steering(P, unit, steering_units, steering_modes):
    """Pack a unit's steering system (Eq. 33-39, ``engine.steering``); its slot is -1 when it
    has none (no steering, or no steered axle). Values a mode does not use are 0."""
    P[L.U_STEER_SLOT] = -1.0
    P[L.U_STOP_LEFT] = P[L.U_STOP_RIGHT] = math.inf
    name = unit.name
    if name not in steering_units:
        return
    st = unit.steering
    P[L.U_STEER_SLOT] = steering_units.index(name)
    P[L.U_STEER_MODE] = mode_code(steering_modes.get(name, st.mode))
    # engine.steering.stop_limits reads the event's steering object
    P[L.U_STOP_LEFT], P[L.U_STOP_RIGHT] = stop_limits({"stop_left": st.stop_left, "stop_right": st.stop_right})
    n_steered = 2 * sum(1 for a in unit.axles if a.steered)
    P[L.U_K_STOP] = st.stop_stiffness or 0.0
    P[L.U_I_STEER] = system_inertia(n_steered, st.steer_inertia or 0.0,
                                    st.column_inertia or 0.0, st.gear_ratio)
    P[L.U_C_STOP] = stop_damping(P[L.U_K_STOP], P[L.U_I_STEER], n_steered)
    P[L.U_MU_AXIS] = n_steered * st.steer_axis_friction
    P[L.U_MU_COLUMN] = st.column_friction
    P[L.U_NULL_BAND] = st.null_band or math.inf    # read only by the free modes, which need it
    P[L.U_TRAIL_M] = st.mechanical_trail
