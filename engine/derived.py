"""Quantities derived from a unit's event data, computed in one place (set-up, plain Python).

Each takes a validated unit (``Event.data["units"][i]``: axles ordered from the front, x
strictly decreasing) and gives what the engine, the controllers, the studies and the
examples use alike, so that what one draws or places is what the other simulates.
"""
from __future__ import annotations


def wheelbase(unit: dict) -> float:
    """First to last axle, m (0 for a single axle)."""
    xs = [a["x"] for a in unit["axles"]]
    return float(max(xs) - min(xs))


def body_front(unit: dict) -> float:
    """The front end of the unit's body, m ahead of its sprung-mass CG: ``dimensions.front_x``,
    or when the event leaves it out, the front axle plus half of the length beyond the
    wheelbase (equal front and rear overhangs)."""
    dims = unit["dimensions"]
    front = dims.get("front_x")
    if front is None:
        xs = [a["x"] for a in unit["axles"]]
        front = max(xs) + 0.5 * (dims["length"] - (max(xs) - min(xs)))
    return float(front)


def body_rear(unit: dict) -> float:
    """The rear end of the unit's body, m along its x axis from the sprung-mass CG (negative
    behind it): ``dimensions.length`` behind :func:`body_front`."""
    return body_front(unit) - float(unit["dimensions"]["length"])
