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
- The *final drive ratio* is the differential's ratio; with a differential gear table (a
  two-speed axle) its first entry, the differential gear the vehicle FMU starts in
  (``differentialGear`` = 1): the driver shifts the transmission, not the axle.
- The *steering ratio* is the bicycle model's: the steering-wheel angle per radian of the
  front axles' steer less the rear axles' (ahead of and behind the CG; an axle's own
  ``steering_gear_ratio``, or the unit's ``steering.gear_ratio``), so the front axle's ratio
  for a car that steers it alone, and a car whose rear axle steers too is steered by its net
  yaw gain (``engine.setup.derived.bicycle_steering_ratio``). The driver turns the
  steering wheel, so a unit with the steering option At Axle (``steering.input`` "at_axle",
  which reads each wheel's ``steerAngle`` instead) does not follow it.
- The *understeer gradient* is the steady-state bicycle model's
  ``K = m_f / C_f - m_r / C_r`` (rad per m/s^2 of lateral acceleration): ``m_f``, ``m_r`` the
  static load on the axles ahead of and behind the CG as mass, ``C_f``, ``C_r`` the sums of their
  tires' cornering stiffness at their static loads (the tire table at its lowest test speed).

Both, and the wheelbase and the body's front, are computed in :mod:`engine.setup.derived`, as
the engine and the examples take them.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import engine
from engine.setup import derived


class VehicleBody(NamedTuple):
    """A unit's plan view for the courses (m): overall width and length, and the distance from
    the sprung-mass CG forward to the front of the body."""

    width: float
    length: float
    front: float

    @property
    def rear(self) -> float:
        """The rear end of the body, m along x from the sprung-mass CG (negative behind it):
        ``length`` behind ``front``, as :func:`engine.setup.derived.body_rear`."""
        return self.front - self.length


def unit_data(event: "engine.Event", unit: Optional[str] = None):
    """The typed model (:class:`engine.setup.model.Unit`) of the unit named ``unit`` (default:
    the first)."""
    return event.model.units[derived.unit_index(event, unit)]


def rolling_radius(event: "engine.Event", unit: Optional[str] = None,
                   driven_only: bool = False) -> float:
    """The mean rolling radius of the unit's wheels (of its driven wheels: ``driven_only``):
    :func:`engine.setup.derived.rolling_radius`."""
    return derived.rolling_radius(event, unit, driven_only)


def understeer_gradient(event: "engine.Event", unit: Optional[str] = None) -> float:
    """The bicycle model's understeer gradient K (rad per m/s^2):
    :func:`engine.setup.derived.understeer_gradient`."""
    return derived.understeer_gradient(event, unit)


def wheelbase(event: "engine.Event", unit: Optional[str] = None) -> float:
    """First to last axle (m), as the vehicle FMU's ``<unit>.wheelbase``."""
    return derived.wheelbase(unit_data(event, unit))


def vehicle_body(event: "engine.Event", unit: Optional[str] = None) -> VehicleBody:
    """The unit's :class:`VehicleBody`: the event's overall width and length, and its front
    end ``dimensions.front_x`` ahead of the sprung-mass CG; when the event does not give
    ``front_x`` the overhangs are taken equal front and rear (half of the length less the
    wheelbase beyond the first and the last axle)."""
    u = unit_data(event, unit)
    return VehicleBody(u.dimensions.width, u.dimensions.length, derived.body_front(u))


def abs_starts(event: "engine.Event", unit: Optional[str] = None) -> dict:
    """The ABS parameters that come from the vehicle: its rolling radius."""
    return {"tireRadius": rolling_radius(event, unit)}


def driver_starts(event: "engine.Event", unit: Optional[str] = None) -> dict:
    """The driver parameters that come from the vehicle (see the module docstring)."""
    u = unit_data(event, unit)
    drivetrain = u.drivetrain
    return {"wheelbase": wheelbase(event, unit),
            "steeringRatio": derived.bicycle_steering_ratio(u),
            "understeerGradient": understeer_gradient(event, unit),
            "tireRadius": rolling_radius(event, unit, driven_only=True),
            "finalDriveRatio": derived.differential_ratios(drivetrain)[0],
            "gearRatios": tuple(float(r) for r in drivetrain.transmission_ratios)}
