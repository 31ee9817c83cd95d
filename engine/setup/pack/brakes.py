"""The brake system (``engine.brakes``): its columns of ``P_UNIT`` (pedal, proportioning,
pushout, the pressure's lag, the table option) and of ``P_WHEEL`` (torque ratio or design,
proportioned), and the brake designs, ``P_BRAKE`` and ``T_BRAKE``."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ...brakes import design_torque_ratio
from ..event import BRAKE_METHODS
from ..model import per_side
from .rows import table


def pack_units(P_UNIT, units):
    for ui, unit in enumerate(units):
        P, br = P_UNIT[ui], unit.brakes
        P[L.U_PEDAL_RATIO] = br.pedal_ratio or 0.0
        P[L.U_PROP_START] = br.proportioning_start
        P[L.U_PROP_RATIO] = br.proportioning_ratio
        P[L.U_PUSHOUT] = br.pushout_pressure
        P[L.U_TAU_P] = br.pressure_time_constant
        P[L.U_BRAKE_TABLE] = BRAKE_METHODS.index(br.method or "pedal")


def pack_wheels(P_WHEEL, rows):
    """The wheels' brakes; returns the brake designs in the order of ``W_BRAKE`` (a wheel with
    a generic brake has ``W_BRAKE`` -1 and its torque ratio)."""
    designs = []
    for r in rows.wheels:
        W, ax = P_WHEEL[r.index], r.ax
        W[L.W_BRAKE] = -1.0
        design = ax.brake_design
        if design is None:
            W[L.W_TB_RATIO] = per_side(ax.brake_torque_ratio, r.side)
        else:
            W[L.W_BRAKE] = len(designs)
            designs.append(design)
        W[L.W_PROPORTIONED] = 1.0 if ax.proportioned else 0.0
    return designs


def pack_designs(designs):
    """P_BRAKE, T_BRAKE of the brake designs (engine.brakes; one zero row when there are none)."""
    rows = max([len(t) for d in designs for t in (d.brake_factor, d.lining_friction, d.speed_factor)
                if t] + [1])
    P_BRAKE = np.zeros((max(len(designs), 1), L.N_BRAKE_P))
    T_BRAKE = np.zeros((max(len(designs), 1), 6, rows))
    for b, d in enumerate(designs):
        P = P_BRAKE[b]
        P[L.B_AREA], P[L.B_RADIUS] = d.actuator_area, d.effective_radius
        P[L.B_HEAT], P[L.B_COOL0], P[L.B_COOL1] = d.heat_capacity, d.cooling, d.cooling_per_speed
        P[L.B_NBF] = table(T_BRAKE[b, L.TB_BF_X], T_BRAKE[b, L.TB_BF_Y], d.brake_factor)
        P[L.B_NMU] = table(T_BRAKE[b, L.TB_MU_X], T_BRAKE[b, L.TB_MU_Y], d.lining_friction)
        if d.speed_factor:
            P[L.B_NSPEED] = table(T_BRAKE[b, L.TB_SP_X], T_BRAKE[b, L.TB_SP_Y], d.speed_factor)
    return P_BRAKE, T_BRAKE


def cold_ratios(P_WHEEL, P_BRAKE, T_BRAKE, air_temperature):
    """A designed brake's ``W_TB_RATIO``: the ratio it has cold (at the air temperature) and
    at rest."""
    for wi, bi in enumerate(P_WHEEL[:, L.W_BRAKE]):
        if bi >= 0:
            P_WHEEL[wi, L.W_TB_RATIO] = design_torque_ratio(P_BRAKE, T_BRAKE, int(bi), air_temperature, 0.0)
