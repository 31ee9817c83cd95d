"""The catalogues of the controller FMUs: the driver and the ABS.

Their variables are named after the vehicle's (``steeringWheelAngle``, ``axle<k>.<side>.spin``)
so a master connects them by name. Each parameter is a field of the controller's parameter
dataclass (:class:`simon_fmu.controllers.driver.DriverParams`, :class:`simon_fmu.controllers.abs_controller.AbsParams`)
with the same name and meaning. Its start value is the dataclass's default, or for the
parameters that describe the vehicle (``starts``: the driver's wheelbase, steering ratio,
understeer gradient, rolling radius and drivetrain ratios, the ABS's rolling radius) the value
the build took from the vehicle's event (:mod:`simon_fmu.controllers.vehicle_data`). Every
Real and Integer parameter and input has a min and a max, which the FMU enforces. Value
references are assigned in catalogue order (parameters, inputs, outputs), from 0.
"""
from __future__ import annotations

from dataclasses import MISSING, fields

from .catalogue import FIELDS, SIDES, Binding, Catalogue, Field, _Builder

#: The driver's parameters: name -> (field, min, max). The start values are DriverParams'.
DRIVER_PARAMETERS: dict[str, tuple[Field, object, object]] = {
    "targetSpeed": (Field("m/s", "km/h", "Speed the driver holds"), 0.0, 100.0),
    "previewTime": (Field("s", None, "Preview: the aim point is this far ahead in time"),
                    0.01, 10.0),
    "minPreview": (Field("m", None, "Shortest preview distance"), 0.1, 100.0),
    "lagTime": (Field("s", None, "Time constant of the driver's first-order steering lag"),
                0.0, 2.0),
    "feedforwardTime": (Field("s", None, "The path curvature steered for is this far ahead"),
                        0.0, 2.0),
    "lateralIntegralGain": (Field(None, None, "Integral action on the CG's offset from the "
                                  "path: rad of road-wheel angle per m s (holds the path "
                                  "against a steady yaw moment)"), 0.0, 10.0),
    "maxLateralIntegral": (Field("rad", "deg", "Bound of the integral action, as road-wheel "
                                 "angle"), 0.0, 1.0),
    "steeringRatio": (Field(None, None, "Steering gear ratio: steering-wheel angle per "
                            "road-wheel angle"), 1.0, 100.0),
    "wheelbase": (Field("m", None, "Vehicle wheelbase"), 0.5, 20.0),
    "understeerGradient": (Field(None, None, "Understeer gradient, rad of road-wheel angle "
                                 "per m/s2 of lateral acceleration"), -0.1, 0.1),
    "maxSteeringAngle": (Field("rad", "deg", "Steering-wheel angle limit"), 0.01, 20.0),
    "maxSteeringRate": (Field("rad/s", "deg/s", "Steering-wheel rate limit"), 0.01, 100.0),
    "speedGain": (Field(None, None, "Pedal demand per m/s of speed error"), 0.0, 100.0),
    "speedIntegralGain": (Field(None, None, "Pedal demand per m of integrated speed error"),
                          0.0, 100.0),
    "maxBrakeForce": (Field("N", None, "Brake pedal force at full speed-control demand"),
                      0.0, 5000.0),
    "brakeTime": (Field("s", None, "Time of an emergency stop (full pedal, neutral) while "
                        "steering on"), -1.0e9, 1.0e9),
    "emergencyBrakeForce": (Field("N", None, "Brake pedal force of the emergency stop"),
                            0.0, 5000.0),
    "tireRadius": (Field("m", None, "Tire rolling radius, for the engine speed"), 0.05, 2.0),
    "finalDriveRatio": (Field(None, None, "Differential ratio"), 0.1, 50.0),
    "upshiftSpeed": (Field("rad/s", "rpm", "Engine speed above which the driver shifts up"),
                     1.0, 2000.0),
    "downshiftSpeed": (Field("rad/s", "rpm", "Engine speed below which the driver shifts "
                             "down"), 1.0, 2000.0),
    "shiftDelay": (Field("s", None, "Shortest time between two shifts"), 0.0, 10.0),
}
DRIVER_STRINGS = {
    "path": (Field(None, None, "Path to follow: a CSV file with columns X and Y (m), or a "
                   "standard course: iso3888-1, iso3888-2, circle, straight", "String"), "iso3888-2"),
    "gearRatios": (Field(None, None, "Transmission ratios of gears 1..n, separated by "
                         "spaces", "String"), None),
}
#: An Integer choice of the standard course, for importers that cannot set a String
#: (fmpy's SSP support): 0 follows ``path``, 1.. the courses of simon_fmu.controllers.driver.COURSES.
DRIVER_COURSE = (Field(None, None, "Standard course to follow, overriding path: 0 none "
                       "(follow path), 1 iso3888-1, 2 iso3888-2, 3 circle, 4 straight",
                       "Integer"), 0)
DRIVER_INPUTS = {key: Field(FIELDS[key].unit, FIELDS[key].display_unit,
                            "Vehicle's " + FIELDS[key].description[0].lower()
                            + FIELDS[key].description[1:])
                 for key in ("X", "Y", "yaw", "speed")}
#: The physical range of each driver input: a position within 10,000 km of the origin, a yaw
#: angle of up to 1,500 turns either way, a speed up to 200 m/s (720 km/h).
DRIVER_INPUT_RANGES = {"X": (-1.0e7, 1.0e7), "Y": (-1.0e7, 1.0e7), "yaw": (-1.0e4, 1.0e4),
                       "speed": (0.0, 200.0)}
#: The range of the ABS's wheel spin inputs, rad/s: about 19,000 rpm either way, a ground
#: speed of 200 m/s on a tire of 10 cm rolling radius.
ABS_SPIN_RANGE = (-2000.0, 2000.0)
DRIVER_OUTPUTS = {key: FIELDS[key] for key in
                  ("steeringWheelAngle", "throttle", "brakePedalForce", "gear")}
DRIVER_OUTPUTS.update({
    "lateralError": Field("m", None, "Distance of the CG from the path, positive right"),
    "pathDistance": Field("m", None, "Arc length of the path point nearest the CG"),
})

ABS_PARAMETERS: dict[str, tuple[Field, object, object]] = {
    "tireRadius": (Field("m", None, "Tire rolling radius: wheel speed = spin * radius"),
                   0.05, 2.0),
    "maxDeceleration": (Field("m/s2", "g", "Fastest the reference speed may fall"),
                        0.1, 50.0),
    "dumpSlip": (Field(None, None, "Slip above which the pressure is dumped"), 0.01, 0.99),
    "holdSlip": (Field(None, None, "Slip below which the pressure is built again"),
                 0.0, 0.99),
    "dumpDeceleration": (Field("m/s2", "g", "Wheel deceleration that starts a dump"),
                         0.1, 500.0),
    "dumpTime": (Field("s", None, "Time constant of the pressure dump"), 0.001, 1.0),
    "buildRate": (Field(None, None, "Slow rise of the pressure factor, 1/s"), 0.01, 100.0),
    "fastBuildRate": (Field(None, None, "Fast rise of the pressure factor up to the "
                            "reapply fraction, 1/s"), 0.01, 1000.0),
    "reapplyFraction": (Field(None, None, "Fraction of the last lock factor rebuilt fast"),
                        0.0, 1.0),
    "minSpeed": (Field("m/s", "km/h", "Reference speed below which the ABS is off"),
                 0.0, 50.0),
    "yawMomentDifference": (Field(None, None, "Difference of the front wheels' pressure "
                                  "factors allowed at the first dump (yaw-moment limit)"),
                            0.0, 1.0),
    "yawMomentRate": (Field(None, None, "Growth of the allowed difference of the front "
                            "wheels' pressure factors, 1/s"), 0.001, 100.0),
}
ABS_WHEEL_OUTPUTS = {
    "brakePressureFactor": FIELDS["brakePressureFactor"],
    "slip": Field(None, None, "Wheel slip from the reference speed"),
    "phase": Field(None, None, "Control phase: 0 build, 1 hold, 2 dump", "Integer"),
}


def _parameter_starts(params_class, starts: dict) -> dict:
    """The start values: the dataclass's defaults, and ``starts`` for the fields without one."""
    out = {f.name: f.default for f in fields(params_class) if f.default is not MISSING}
    out.update(starts)
    missing = [f.name for f in fields(params_class) if f.name not in out]
    if missing:
        raise ValueError(f"the start values of {', '.join(missing)} come from the vehicle "
                         "and are missing")
    return out


def driver_catalogue(starts: dict) -> Catalogue:
    """The driver FMU's variables: parameters, inputs X, Y, yaw, speed, outputs the controls.

    ``starts``: the start values of the parameters that describe the vehicle.
    """
    from simon_fmu.controllers.driver import COURSES, DriverParams
    starts = _parameter_starts(DriverParams, starts)
    b = _Builder()
    for key, (fld, start) in DRIVER_STRINGS.items():
        if key == "gearRatios":
            start = " ".join(f"{r:g}" for r in starts["gearRatios"])
        b.add(key, key, fld, "parameter", Binding("parameter", (key,)), start)
    fld, start = DRIVER_COURSE
    b.add("course", "course", fld, "parameter", Binding("parameter", ("course",)), start, 0,
          len(COURSES))
    for key, (fld, lo, hi) in DRIVER_PARAMETERS.items():
        b.add(key, key, fld, "parameter", Binding("parameter", (key,)), starts[key], lo, hi)
    for key, fld in DRIVER_INPUTS.items():
        b.add(key, key, fld, "input", Binding("input", (key,)), 0.0, *DRIVER_INPUT_RANGES[key])
    for key, fld in DRIVER_OUTPUTS.items():
        b.add(key, key, fld, "output", Binding("output", (key,)))
    return Catalogue(b.variables)


def abs_wheels(event, unit: str | None = None) -> list[str]:
    """The ABS's wheel names ``axle<k>.<side>`` for a unit of ``event`` (default: the first)."""
    info = event.units[0] if unit is None else next(u for u in event.units if u.name == unit)
    return [f"axle{axle.number}.{side}" for axle in info.axles for side in SIDES]


def abs_catalogue(wheels: list[str], starts: dict) -> Catalogue:
    """The ABS FMU's variables for the wheels ``wheels`` (``axle<k>.<side>`` names);
    ``starts``: the start values of the parameters that describe the vehicle."""
    from simon_fmu.controllers.abs_controller import AbsParams
    starts = _parameter_starts(AbsParams, starts)
    b = _Builder()
    for key, (fld, lo, hi) in ABS_PARAMETERS.items():
        b.add(key, key, fld, "parameter", Binding("parameter", (key,)), starts[key], lo, hi)
    for i, wheel in enumerate(wheels):
        b.add(f"{wheel}.spin", "axle<k>.<side>.spin", FIELDS["spin"], "input",
              Binding("input", (i, "spin")), 0.0, *ABS_SPIN_RANGE)
    b.add("referenceSpeed", "referenceSpeed",
          Field("m/s", "km/h", "Vehicle speed estimated from the wheel speeds"),
          "output", Binding("output", ("referenceSpeed",)))
    for i, wheel in enumerate(wheels):
        for key, fld in ABS_WHEEL_OUTPUTS.items():
            b.add(f"{wheel}.{key}", f"axle<k>.<side>.{key}", fld, "output",
                  Binding("output", (i, key)))
    return Catalogue(b.variables)
