"""The wheels' suspension and geometry in ``P_WHEEL`` (position, springs, dampers, stops, the
anti-sway bar, bump steer (Eq. 63) and the half-track and camber change tables ``T_WHEEL``) and
the solid axles, ``P_AXLE`` (Eq. 19-26, roll steer Eq. 65, camber set Eq. 64)."""
from __future__ import annotations

import numpy as np

from ... import layout as L
from ..derived import loaded_radius, solid_axle_inertia
from ..model import Sides, per_side
from .rows import table


def bump_steer_coefficients(bump_steer, side):
    """Eq. 63 coefficients of one wheel (vehicle steer sign). A single polynomial is a toe
    change: the right wheel's (side +1), mirrored on the left (side -1), so that pure heave
    steers the axle's wheels apart or together, never the car. ``bump_steer``: one list, or
    per side (:class:`engine.setup.model.Sides`)."""
    if isinstance(bump_steer, Sides):
        return bump_steer.side(side)
    return [side * k for k in bump_steer]


def wheel_displacement(ax, side):
    """(dx, dy, dz) of the event's ``wheel_displacement`` (Eq. 15-17, 58-62) of the wheel on
    ``side`` (-1 left, +1 right) of axle ``ax``; zeros when it has none."""
    d = per_side(ax.wheel_displacement, side)
    return (0.0, 0.0, 0.0) if d is None else d


def displacement_fields(units):
    """The fields of the axles (``units[i].axles[j].wheel_displacement``) that displace a wheel."""
    return [f"units[{i}].axles[{j}].wheel_displacement" for i, unit in enumerate(units)
            for j, ax in enumerate(unit.axles)
            if any(c != 0.0 for side in (-1, 1) for c in wheel_displacement(ax, side))]


def _loaded_radius(r, units, statics):
    """The loaded radius of wheel row ``r``'s tire at its static deflections."""
    unit = units[r.unit]
    return loaded_radius(unit.tires[r.ax.tire], statics[r.unit].tire_deflections[r.j])


def pack_wheels(P_WHEEL, rows, units, statics):
    """The suspension columns of every wheel; returns ``T_WHEEL`` (its tables, as many rows as
    the event's longest)."""
    n_rows = max([len(t) for u in units for a in u.axles
                  for t in (a.suspension.half_track_change, a.suspension.camber_change)
                  if t is not None] + [1])
    T_WHEEL = np.zeros((len(rows.wheels), 4, n_rows))
    for r in rows.wheels:
        w, ax, side, st = r.index, r.ax, r.side, statics[r.unit]
        props, sus = st.props, ax.suspension
        dx, dy, dz = props.delta
        W = P_WHEEL[w]
        W[L.W_UNIT], W[L.W_AXLE], W[L.W_SIDE] = r.unit, r.axle, side
        # the wheel centre at rest on its springs' preloads (Eq. 15-17, 58-62): the axle's place,
        # from the CG with its payloads, plus the event's wheel displacement
        ddx, ddy, ddz = wheel_displacement(ax, side)
        W[L.W_X], W[L.W_Y0] = (ax.x - dx) + ddx, (side * ax.track / 2.0 - dy) + ddy
        W[L.W_Z0] = (props.cg_height - _loaded_radius(r, units, statics)) + ddz
        W[L.W_MUS] = ax.unsprung_mass_per_wheel
        W[L.W_K], W[L.W_C], W[L.W_FMU] = sus.spring_rate, sus.damping, sus.coulomb_friction
        W[L.W_FS0] = st.fs0[r.j]
        W[L.W_KRS], W[L.W_TRACK] = sus.antisway_roll_stiffness, ax.track
        W[L.W_PARTNER] = w + 1 if side < 0 else w - 1
        js, rs = sus.jounce_stop, sus.rebound_stop
        W[L.W_JCL], W[L.W_JK1], W[L.W_JK3], W[L.W_JER] = js.clearance, js.K1, js.K3, js.energy_ratio
        W[L.W_RCL], W[L.W_RK1], W[L.W_RK3], W[L.W_RER] = rs.clearance, rs.K1, rs.K3, rs.energy_ratio
        W[L.W_SOLID] = r.solid
        if r.solid >= 0:
            W[L.W_YS] = side * sus.spring_spacing / 2.0 - dy
        else:
            W[L.W_BS0:L.W_BS3 + 1] = bump_steer_coefficients(sus.bump_steer, side)
            W[L.W_NHT] = table(T_WHEEL[w, L.T_HT_X], T_WHEEL[w, L.T_HT_Y], sus.half_track_change)
            W[L.W_NCAM] = table(T_WHEEL[w, L.T_CAM_X], T_WHEEL[w, L.T_CAM_Y], sus.camber_change)
    return T_WHEEL


def pack_axles(rows, units, statics):
    """``P_AXLE``, a row per solid axle."""
    P_AXLE = np.zeros((len(rows.axles), L.N_AXLE_P))
    for a in rows.axles:
        r = a.wheel
        rho_icm = solid_axle_inertia(r.ax, units[r.unit].tires[r.ax.tire], statics[r.unit].tire_deflections[r.j])
        _pack_axle(P_AXLE[a.index], r.unit, r.ax, statics[r.unit].props, *rho_icm)
    return P_AXLE


def _pack_axle(A, ui, ax, props, rho, icm):
    """Pack one solid axle (Eq. 19-26): its roll centre and mass centre from the sprung CG."""
    sus = ax.suspension
    A[L.AX_UNIT] = ui
    A[L.AX_X] = ax.x - props.delta[0]
    A[L.AX_YC] = -props.delta[1]
    A[L.AX_ZRC] = props.cg_height - sus.roll_center_height
    A[L.AX_RHO] = rho
    A[L.AX_M] = 2.0 * ax.unsprung_mass_per_wheel
    A[L.AX_ICM] = icm
    A[L.AX_KRS] = sus.antisway_roll_stiffness
    A[L.AX_KAPPA] = sus.roll_steer
    A[L.AX_CAMBER] = sus.camber_set
    A[L.AX_TURNTABLE] = 1.0 if ax.turntable else 0.0
