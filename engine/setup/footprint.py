"""Plan-view footprints of the units, and the check that the vehicles of an event start apart.

An event may hold several vehicles (``Event.vehicles``: a lead unit and the units it tows).
They interact only through collisions, so the engine refuses a start at which two of them
overlap: each would begin inside the other. A unit's footprint is the rectangle of its
``dimensions`` in the road plane: ``length`` along its x axis from ``front_x`` (the front end
from the sprung-mass CG; when the event leaves it out, the front and rear overhangs beyond the
first and last axle are taken equal), ``width`` centred on its x axis. Footprints are placed at
the units' start positions and yaw (roll and pitch are left out: every unit starts in static
equilibrium). Units of one vehicle may overlap each other (a semitrailer over its tractor's
fifth wheel); footprints that only touch do not overlap.
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Sequence, Tuple

from .derived import body_front, body_rear
from .model import typed_unit


class Footprint(NamedTuple):
    """A unit's plan-view rectangle, vehicle-fixed from its sprung-mass CG, m."""
    x_front: float
    x_rear: float
    half_width: float


def unit_footprint(unit) -> Footprint:
    """The footprint of a unit (``Event.model.units[i]``, or its JSON object)."""
    unit = typed_unit(unit)
    return Footprint(body_front(unit), body_rear(unit), 0.5 * float(unit.dimensions.width))


def corners(fp: Footprint, X: float, Y: float, yaw: float) -> List[Tuple[float, float]]:
    """The footprint's corners in the earth X, Y plane for a CG at X, Y and a yaw angle
    (Eq. 53 in the plane: earth = R(yaw) vehicle)."""
    c, s = math.cos(yaw), math.sin(yaw)
    return [(X + c * x - s * y, Y + s * x + c * y)
            for x, y in ((fp.x_front, fp.half_width), (fp.x_front, -fp.half_width),
                         (fp.x_rear, -fp.half_width), (fp.x_rear, fp.half_width))]


def overlap(a: Sequence[Tuple[float, float]], b: Sequence[Tuple[float, float]]) -> bool:
    """Whether two convex polygons (corner lists in order) share interior points: no edge
    normal of either separates them (separating axis theorem)."""
    for poly in (a, b):
        for k in range(len(poly)):
            (x0, y0), (x1, y1) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = y1 - y0, x0 - x1
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) or max(pb) <= min(pa):
                return False
    return True


def start_overlap_problems(event, positions) -> List[str]:
    """One message per pair of vehicles of ``event`` whose footprints overlap, the units at
    ``positions`` (unit name -> (X, Y, yaw)); each names the lead unit's initial-condition
    parameters and its event fields."""
    data = {u.name: (i, u) for i, u in enumerate(event.model.units)}
    shapes = {name: corners(unit_footprint(u), *positions[name]) for name, (_, u) in data.items()}
    vehicles = event.vehicles()
    problems = []
    for k, first in enumerate(vehicles):
        for second in vehicles[k + 1:]:
            hit = next(((a, b) for a in first for b in second if overlap(shapes[a], shapes[b])), None)
            if hit is None:
                continue
            lead = second[0]
            where = ", ".join(f"unit {n!r} at X = {positions[n][0]:.6g} m, Y = {positions[n][1]:.6g} m, "
                              f"yaw = {positions[n][2]:.6g} rad" for n in hit)
            problems.append(
                f"{lead}.X0, {lead}.Y0, {lead}.yaw0 (units[{data[lead][0]}].initial): a start apart from "
                f"vehicle {first[0]!r} (the vehicles interact only through collisions; their plan-view "
                f"footprints, length x width from dimensions, overlap at the start: {where})")
    return problems
