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

from typing import List, NamedTuple, Sequence, Tuple

import numpy as np

from ..launch import footprint_corners, footprint_separated, footprint_hits
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
    """The footprint's corners in the earth X, Y plane for a CG at X, Y and a yaw angle (front
    left, front right, rear right, rear left), as the kernel computes them
    (``engine.launch.footprint_hits``)."""
    out = np.zeros((2, 4, 2))
    footprint_corners(np.array([fp], dtype=np.float64), np.array([[X, Y, yaw]], dtype=np.float64), 0, out, 0)
    return [tuple(map(float, p)) for p in out[0]]


def overlap(a: Sequence[Tuple[float, float]], b: Sequence[Tuple[float, float]]) -> bool:
    """Whether two footprints (corner lists in order) share interior points: no edge normal of
    either separates them (the separating axis theorem, as the kernel tests it)."""
    out = np.array([a, b], dtype=np.float64)
    return not (footprint_separated(out, 0) or footprint_separated(out, 1))


class OverlapTables(NamedTuple):
    """The arrays :func:`engine.launch.footprint_hits` takes for an event, and what names
    its hits: ``pairs`` [row, 3] (pair of vehicles, unit of the first, unit of the second) in
    the order they are tried; ``foot`` [unit, 3] the units' footprints; per pair of vehicles
    the text of its problem before the units' places (``heads``); the units' names as the
    problem quotes them (``quoted``)."""
    pairs: np.ndarray
    foot: np.ndarray
    heads: List[str]
    quoted: List[str]


def overlap_tables(event) -> OverlapTables:
    """:class:`OverlapTables` of ``event``: every unit of each vehicle against every unit of
    each later vehicle (``Event.vehicles``)."""
    units = event.model.units
    index = {u.name: i for i, u in enumerate(units)}
    vehicles = event.vehicles()
    rows, heads = [], []
    for k, first in enumerate(vehicles):
        for second in vehicles[k + 1:]:
            for a in first:
                for b in second:
                    rows.append((len(heads), index[a], index[b]))
            lead = second[0]
            heads.append(
                f"{lead}.X0, {lead}.Y0, {lead}.yaw0 (units[{index[lead]}].initial): a start apart "
                f"from vehicle {first[0]!r} (the vehicles interact only through collisions; their "
                f"plan-view footprints, length x width from dimensions, overlap at the start: ")
    foot = np.array([unit_footprint(u) for u in units], dtype=np.float64).reshape(-1, 3)
    return OverlapTables(np.array(rows, dtype=np.float64).reshape(-1, 3), foot, heads,
                         [repr(u.name) for u in units])


def start_overlap_problems(event, y) -> List[str]:
    """One message per pair of vehicles of ``event`` whose footprints overlap in the state
    ``y`` (``engine.launch.footprint_hits``); each names the lead unit's initial-condition
    parameters and its event fields, and the two units' places (the native FMU writes the
    same text)."""
    t = overlap_tables(event)
    if not t.heads:
        return []
    where, hits = np.zeros((t.foot.shape[0], 3)), np.zeros(len(t.heads), dtype=np.int64)
    footprint_hits(np.asarray(y, dtype=np.float64), t.pairs, t.foot, where, np.zeros((2, 4, 2)),
                   hits)
    problems = []
    for k, r in enumerate(hits):
        if r < 0:
            continue
        units = (int(t.pairs[r, 1]), int(t.pairs[r, 2]))
        problems.append(t.heads[k] + ", ".join(
            f"unit {t.quoted[u]} at X = {where[u, 0]:.6g} m, Y = {where[u, 1]:.6g} m, "
            f"yaw = {where[u, 2]:.6g} rad" for u in units) + ")")
    return problems
