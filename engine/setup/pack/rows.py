"""The rows of the packed arrays: which unit, wheel, tire, solid axle and aero surface each row
holds, in the one order every subsystem's packer (and the state vector) follows.

Units in event order; per unit its wheels (``engine.setup.equilibrium.wheels``: axle by axle,
left first); per wheel its tires (one, or a dual's inner then outer); a solid axle where its
first wheel is; a unit's aero surfaces in event order.
"""
from __future__ import annotations

from typing import NamedTuple

from ..equilibrium import wheels


class UnitRow(NamedTuple):
    """Row ``index`` of ``P_UNIT``: where the unit's other rows lie."""
    index: int
    wheel0: int         # its first wheel in P_WHEEL
    nwheels: int
    axle0: int          # its first solid axle in P_AXLE
    naxles: int
    aero0: int          # its first surface in P_AERO
    naero: int
    n_driven: int       # its driven wheels


class WheelRow(NamedTuple):
    """Row ``index`` of ``P_WHEEL`` and ``T_WHEEL``."""
    index: int
    unit: int
    j: int              # the wheel's place among its unit's wheels (the statics' order)
    axle: int           # its axle's index in the unit
    ax: object          # the axle (engine.setup.model.Axle)
    side: int           # -1 left, +1 right
    tire0: int          # its first tire in P_TIRE
    ntires: int
    solid: int          # its solid axle in P_AXLE, -1 for an independent suspension


class TireRow(NamedTuple):
    """Row ``index`` of ``P_TIRE`` and ``TT``."""
    index: int
    wheel: WheelRow
    k: int              # 0: the single or inner tire, 1: a dual's outer
    offset: float       # along the axle from the wheel centre (vehicle y at zero steer)


class AxleRow(NamedTuple):
    """Row ``index`` of ``P_AXLE``: a solid axle, at its first (left) wheel."""
    index: int
    wheel: WheelRow


class SurfaceRow(NamedTuple):
    """Row ``index`` of ``P_AERO``."""
    index: int
    unit: int
    surface: object     # engine.setup.model's aero surface


class Rows(NamedTuple):
    units: list
    wheels: list
    tires: list
    axles: list
    surfaces: list


def rows(units) -> Rows:
    """The rows of every unit, wheel, tire, solid axle and aero surface of ``units``."""
    out = Rows([], [], [], [], [])
    for ui, unit in enumerate(units):
        w0, a0, s0 = len(out.wheels), len(out.axles), len(out.surfaces)
        for surf in unit.aerodynamics:
            out.surfaces.append(SurfaceRow(len(out.surfaces), ui, surf))
        axle_index = {}
        wheel_list = wheels(unit)
        for j, (ai, ax, side) in enumerate(wheel_list):
            ntires = 2 if ax.dual else 1
            solid = -1
            first = False
            if ax.suspension.type == "solid":
                if ai not in axle_index:
                    axle_index[ai] = a0 + len(axle_index)
                    first = True
                solid = axle_index[ai]
            row = WheelRow(len(out.wheels), ui, j, ai, ax, side, len(out.tires), ntires, solid)
            out.wheels.append(row)
            if first:
                out.axles.append(AxleRow(solid, row))
            offsets = [0.0] if ntires == 1 else [-side * ax.dual_spacing / 2.0, side * ax.dual_spacing / 2.0]
            for k, off in enumerate(offsets):                   # inner first, then outer
                out.tires.append(TireRow(len(out.tires), row, k, off))
        out.units.append(UnitRow(ui, w0, len(out.wheels) - w0, a0, len(out.axles) - a0, s0,
                                 len(out.surfaces) - s0,
                                 sum(1 for _, ax, _ in wheel_list if ax.driven)))
    return out


def table(dst_x, dst_y, entries):
    """Write the (x, y) rows of an event table into two rows of a packed table; return their
    count."""
    n = len(entries)
    for i, (x, y) in enumerate(entries):
        dst_x[i] = x
        dst_y[i] = y
    return n
