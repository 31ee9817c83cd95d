"""What the controllers need to know about the vehicle, taken from its event.

The driver and the ABS FMU are built for one vehicle: their vehicle-dependent parameters
(the driver's wheelbase, steering ratio, understeer gradient, rolling radius and drivetrain
ratios, the ABS's rolling radius) get their start values from the event here, and the
standard courses their vehicle width and body from :func:`vehicle_body`. The controller
runs on those values; an importer may still set other ones.

- The *rolling radius* of a wheel is its tire's loaded radius at static equilibrium (the
  unloaded radius less the static deflection, inverse of Eq. 93), the radius at which the
  engine lets the wheels start free rolling; a controller with one radius takes the mean
  over the wheels it reads.
- The *understeer gradient* is the steady-state bicycle model's
  ``K = m_f / C_f - m_r / C_r`` (rad per m/s^2 of lateral acceleration): ``m_f``, ``m_r`` the
  static load on the steered and the other axles as mass, ``C_f``, ``C_r`` the sums of their
  tires' cornering stiffness at their static loads (the tire table at its lowest test speed).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

import engine
from engine import derived
from engine.equilibrium import static_state


class VehicleBody(NamedTuple):
    """A unit's plan view for the courses (m): overall width and length, and the distance from
    the sprung-mass CG forward to the front of the body."""

    width: float
    length: float
    front: float


def unit_data(event: "engine.Event", unit: Optional[str] = None) -> dict:
    """The event data of the unit named ``unit`` (default: the first)."""
    units = event.data["units"]
    if unit is None:
        return units[0]
    for u in units:
        if u["name"] == unit:
            return u
    raise ValueError(f"unit: one of {[u['name'] for u in units]} (got {unit!r})")


def _wheels(event, unit) -> list[tuple[dict, dict, float, float]]:
    """Per wheel of the unit, in the engine's order (axle by axle, left first): its axle, its
    tire, the load per tire (N) and the tire's rolling radius (m)."""
    u = unit_data(event, unit)
    static = static_state(event.data)[0][event.data["units"].index(u)]
    out = []
    axles = [a for a in u["axles"] for _ in (0, 1)]
    for loads, deflections, axle in zip(static.tire_loads, static.tire_deflections, axles):
        tire = u["tires"][axle["tire"]]
        out.append((axle, tire, float(np.mean(loads)), tire["unloaded_radius"] - float(np.mean(deflections))))
    return out


def rolling_radius(event: "engine.Event", unit: Optional[str] = None,
                   driven_only: bool = False) -> float:
    """The mean rolling radius of the unit's wheels (of its driven wheels: ``driven_only``)."""
    radii = [r for axle, _, _, r in _wheels(event, unit) if axle["driven"] or not driven_only]
    if not radii:
        raise ValueError("the unit has no driven axle")
    return float(np.mean(radii))


def understeer_gradient(event: "engine.Event", unit: Optional[str] = None) -> float:
    """The bicycle model's understeer gradient K (rad per m/s^2), see the module docstring."""
    g = event.data["environment"]["gravity"]
    mass, stiffness = {True: 0.0, False: 0.0}, {True: 0.0, False: 0.0}
    for axle, tire, load, _ in _wheels(event, unit):
        tires = 2 if axle["dual"] else 1
        table = np.asarray(tire["cornering_stiffness"], float)[:, 0]
        steered = bool(axle["steered"])
        mass[steered] += tires * load / g
        stiffness[steered] += tires * float(np.interp(load, tire["test_loads"], table))
    if not (stiffness[True] > 0 and stiffness[False] > 0):
        raise ValueError("the understeer gradient needs a steered and an unsteered axle")
    return mass[True] / stiffness[True] - mass[False] / stiffness[False]


def wheelbase(event: "engine.Event", unit: Optional[str] = None) -> float:
    """First to last axle (m), as the vehicle FMU's ``<unit>.wheelbase``."""
    return derived.wheelbase(unit_data(event, unit))


def vehicle_body(event: "engine.Event", unit: Optional[str] = None) -> VehicleBody:
    """The unit's :class:`VehicleBody`: the event's overall width and length, and its front
    end ``dimensions.front_x`` ahead of the sprung-mass CG; when the event does not give
    ``front_x`` the overhangs are taken equal front and rear (half of the length less the
    wheelbase beyond the first and the last axle)."""
    u = unit_data(event, unit)
    dims = u["dimensions"]
    return VehicleBody(dims["width"], dims["length"], derived.body_front(u))


def abs_starts(event: "engine.Event", unit: Optional[str] = None) -> dict:
    """The ABS parameters that come from the vehicle: its rolling radius."""
    return {"tireRadius": rolling_radius(event, unit)}


def driver_starts(event: "engine.Event", unit: Optional[str] = None) -> dict:
    """The driver parameters that come from the vehicle (see the module docstring)."""
    u = unit_data(event, unit)
    drivetrain = u["drivetrain"]
    return {"wheelbase": wheelbase(event, unit),
            "steeringRatio": float(u["steering"]["gear_ratio"]),
            "understeerGradient": understeer_gradient(event, unit),
            "tireRadius": rolling_radius(event, unit, driven_only=True),
            "finalDriveRatio": float(drivetrain["differential_ratio"]),
            "gearRatios": tuple(float(r) for r in drivetrain["transmission_ratios"])}
