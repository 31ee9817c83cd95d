"""The powertrain (``engine.drivetrain``): its columns of ``P_UNIT`` (differential gears, inertia,
idle governor, clutch, gears, the throttle table option, the driven wheels), the gear ratios
``P_GEAR``, the differential gear table ``P_DIFF``, the engine maps ``P_ENG``/``N_ENG``, the
driven wheels' torque split in ``P_WHEEL`` (Eq. 32), and the powertrain's start (idling, a
clutch locked at speed)."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ...drivetrain import RPM, engine_torque
from ..derived import differential_ratios
from ..event import DRIVE_METHODS
from .rows import table


def pack_units(P_UNIT, rows, units):
    """The drivetrain's columns of ``P_UNIT``; returns P_GEAR, P_DIFF, P_ENG, N_ENG. The tables
    and the gear lists are as long as the event's longest (at least one differential gear)."""
    drivetrains = [u.drivetrain for u in units if u.drivetrain]
    n_eng = max([len(t) for dt in drivetrains
                 for t in (dt.engine_wot_torque, dt.engine_closed_throttle_torque)] + [1])
    n_gears = max([len(dt.transmission_ratios) for dt in drivetrains] + [0])
    n_diffs = max([len(differential_ratios(dt)) for dt in drivetrains] + [1])
    nu = len(units)
    P_GEAR = np.zeros((nu, n_gears + 1))
    P_DIFF = np.zeros((nu, n_diffs))
    P_ENG = np.zeros((nu, 4, n_eng))
    N_ENG = np.zeros((nu, 2), dtype=np.int64)
    for ui, unit in enumerate(units):
        P, dt = P_UNIT[ui], unit.drivetrain
        P[L.U_DRIVE_TABLE] = DRIVE_METHODS.index((dt.method if dt else None) or "engine")
        P[L.U_N_DRIVEN] = rows.units[ui].n_driven
        if not dt:
            continue
        diffs = differential_ratios(dt)
        P[L.U_N_DIFFS] = len(diffs)
        P_DIFF[ui, :len(diffs)] = diffs
        P[L.U_I_DT] = dt.inertia
        if dt.idle_speed is not None:
            to_rad_s = 1.0 / RPM
            P[L.U_IDLE] = dt.idle_speed * to_rad_s
            P[L.U_GOV_KP] = dt.idle_governor.gain
            P[L.U_GOV_TI] = dt.idle_governor.integral_time
            P[L.U_CL_CAP] = dt.clutch.capacity
            P[L.U_CL_W0] = dt.clutch.engagement_start * to_rad_s
            P[L.U_CL_W1] = dt.clutch.full_engagement * to_rad_s
            P[L.U_CL_TAU] = dt.clutch.actuation_time
        ratios = dt.transmission_ratios
        P[L.U_N_GEARS] = len(ratios)
        P_GEAR[ui, 0] = dt.reverse_ratio
        P_GEAR[ui, 1:1 + len(ratios)] = ratios
        N_ENG[ui, 0] = table(P_ENG[ui, L.EM_WOT_X], P_ENG[ui, L.EM_WOT_Y], dt.engine_wot_torque)
        N_ENG[ui, 1] = table(P_ENG[ui, L.EM_CT_X], P_ENG[ui, L.EM_CT_Y],
                             dt.engine_closed_throttle_torque)
    return P_GEAR, P_DIFF, P_ENG, N_ENG


def pack_wheels(P_WHEEL, rows):
    """The driven wheels and their share of the drive torque (Eq. 32: an even split unless the
    axle gives its ``torque_split``)."""
    for r in rows.wheels:
        W, ax = P_WHEEL[r.index], r.ax
        W[L.W_DRIVEN] = 1.0 if ax.driven else 0.0
        if ax.driven:                                         # Eq. 32
            W[L.W_ZETA] = ax.torque_split if ax.torque_split is not None else 1.0 / rows.units[r.unit].n_driven


def _powertrain(model, u):
    """The offset of unit u's powertrain states in the state vector."""
    return L.StateLayout.of_model(model).at("powertrain", u)


def idle(model, y0):
    """An engine with an idle speed starts idling, declutched: at its idle speed with the
    governor's integral at the throttle that holds it there (T_e = 0, Eq. 51)."""
    for u in range(model.P_UNIT.shape[0]):
        idle_speed = model.P_UNIT[u, L.U_IDLE]
        if idle_speed > 0.0:
            closed = engine_torque(model.P_ENG, model.N_ENG, u, idle_speed, 0.0)
            wot = engine_torque(model.P_ENG, model.N_ENG, u, idle_speed, 1.0)
            po = _powertrain(model, u)
            y0[po + L.PT_OMEGA] = idle_speed
            y0[po + L.PT_GOV] = min(1.0, max(0.0, -closed / (wot - closed))) if wot > closed else 1.0
