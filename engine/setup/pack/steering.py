"""The steering system's columns of ``P_UNIT`` (Eq. 33-39, ``engine.steering``) and the steered
wheels of ``P_WHEEL``, with the set-up quantities they are made of (the mode's code, the
stops, the system inertia and the stops' damping; the kernels in ``engine.steering`` read them
from ``P_UNIT``)."""
from __future__ import annotations

import math

from ... import layout as L
from ...steering import INPUTS as STEER_INPUTS, MODES


def mode_code(name):
    """The code (1..5) of a mode's name (``engine.steering.MODES``)."""
    return MODES.index(name) + 1


def system_inertia(n_wheels, wheel_inertia, column_inertia, ratio):
    """Eq. 39 at the road wheel: I_Steering = sum I_Steer + I_Column eta^2.

    The column turns eta times as fast as the road wheels, so its kinetic energy
    I_Column (eta delta')^2 / 2 refers it to the steer axis with eta^2 (the printed
    I_Column x eta is dimensionally an inertia only for eta = 1; docs/equations.md).
    """
    return n_wheels * wheel_inertia + column_inertia * ratio * ratio


def stop_damping(k_stop, inertia, n_wheels):
    """The damping of each wheel's stop, N m s/rad: critical, 2 sqrt(K_Stop I_Steering / n),
    for its share of the system's inertia (Eq. 35 as implemented, docs/equations.md)."""
    return 2.0 * math.sqrt(k_stop * inertia / n_wheels) if n_wheels > 0 else 0.0


def stop_limits(steering) -> tuple:
    """The stops (left, right) of a :class:`engine.setup.model.Steering` record, rad; inf
    where it has none."""
    return tuple(math.inf if stop is None else stop for stop in (steering.stop_left, steering.stop_right))


def axle_ratio(unit, axle) -> float:
    """The steering gear ratio of a steered ``axle`` of ``unit`` (records): its own
    steering_gear_ratio, else the unit's steering.gear_ratio (the manual's ratio per axle)."""
    if axle.steering_gear_ratio is not None:
        return float(axle.steering_gear_ratio)
    return float(unit.steering.gear_ratio)


def pack_units(P_UNIT, units, steering_units, steering_modes):
    """``steering_units``: the units with a steering system (``Event.steering_unit_names``),
    in the order of their steering states; ``steering_modes``: per unit name, a mode in place
    of the event's."""
    for ui, unit in enumerate(units):
        P = P_UNIT[ui]
        P[L.U_STEERING] = 1.0 if unit.steering else 0.0
        P[L.U_STEER_RATIO] = unit.steering.gear_ratio if unit.steering else 1.0
        P[L.U_STEER_INPUT] = STEER_INPUTS.index(unit.steering.input) if unit.steering else 0.0
        ratios = [axle_ratio(unit, a) for a in unit.axles if a.steered] if unit.steering else []
        P[L.U_STEER_TRAVEL] = max(abs(r) for r in ratios) if ratios else P[L.U_STEER_RATIO]
        _pack_steering(P, unit, steering_units, steering_modes)


def pack_wheels(P_WHEEL, rows, units, P_UNIT):
    """The steered wheels and their axles' gear ratios (``P_UNIT``'s packed first: a wheel
    that is not steered has its unit's ratio)."""
    for r in rows.wheels:
        unit = units[r.unit]
        P_WHEEL[r.index, L.W_STEERED] = 1.0 if r.ax.steered else 0.0
        P_WHEEL[r.index, L.W_STEER_RATIO] = (axle_ratio(unit, r.ax) if r.ax.steered and unit.steering
                                             else P_UNIT[r.unit, L.U_STEER_RATIO])


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
    P[L.U_STOP_LEFT], P[L.U_STOP_RIGHT] = stop_limits(st)
    n_steered = 2 * sum(1 for a in unit.axles if a.steered)
    P[L.U_K_STOP] = st.stop_stiffness or 0.0
    P[L.U_I_STEER] = system_inertia(n_steered, st.steer_inertia or 0.0,
                                    st.column_inertia or 0.0, st.gear_ratio)
    P[L.U_C_STOP] = stop_damping(P[L.U_K_STOP], P[L.U_I_STEER], n_steered)
    P[L.U_MU_AXIS] = n_steered * st.steer_axis_friction
    P[L.U_MU_COLUMN] = st.column_friction
    P[L.U_NULL_BAND] = st.null_band or math.inf    # read only by the free modes, which need it
    P[L.U_TRAIL_M] = st.mechanical_trail
