"""The catalogue of FMU variables: the single source of truth for names, units and bindings.

:func:`build_catalogue` derives the list of variables from an :class:`engine.Event` (unit
names, axles, dual tires) and the field tuples of :mod:`engine.signals`. The slave registers
its variables from it, :mod:`model_description.writer` turns it into modelDescription.xml
and :mod:`model_description.markdown` into the README's table, so a name, a unit or a
description is written once, here, in :data:`FIELDS` and :data:`PARAMETERS`.

A combination (units joined by connections) is described by the same event: a *lead* unit
(one without a front connection) has the initial-condition parameters, which place the whole
combination, and the driver's inputs; a *towed* unit has neither, and has instead the
outputs of its front connection (:data:`HITCH_FIELDS`); a solid axle has its own outputs
(:data:`AXLE_FIELDS`); a unit with a steering system and a steered axle has the steering mode
(:data:`STEERING_PARAMETERS`) and outputs (:data:`STEERING_FIELDS`).

Value references are assigned in catalogue order, from 0: environment and global parameters
first, then, unit by unit in event order, its parameters (lead units; the steering mode of a
unit with a steering system), calculated parameters, inputs (lead units) and the inputs of
its wheels, its outputs, its steering outputs, the outputs of its front connection (towed
units), and axle by axle from the front its solid-axle outputs and,
wheel by wheel (left before right), the wheel and tire outputs. The same event always gives
the same numbering.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple, Optional, Union

import engine
from engine.layout import CRUSH_STATIONS
from engine.setup.derived import differential_ratios
from engine.setup.event import MAX_STEP_SIZE, MIN_STEP_SIZE
from engine.setup.fields import INTEGRATORS, MAX_STEP_SIZES, MAX_SUBSTEPS
from engine.signals import (AXLE_OUTPUTS, DRIVETRAIN_OUTPUTS, HITCH_OUTPUTS, SOLVER_OUTPUTS,
                            STEERING_OUTPUTS)
from engine.steering import MODES as STEERING_MODES

Number = Union[float, int, bool]


class Field(NamedTuple):
    """What one engine field means to a user of the FMU."""

    unit: Optional[str]          # SI unit (None: dimensionless, or not a Real)
    display_unit: Optional[str]  # a friendlier unit for people, defined in writer.UNITS
    description: str
    type: str = "Real"           # "Real", "Integer", "Boolean", "String" or "Enumeration"
    declared_type: Optional[str] = None   # an Enumeration's type, a key of ENUMERATIONS


class Enumeration(NamedTuple):
    """An FMI enumeration type: its items (name, description), valued 1, 2, ... in order."""

    description: str
    items: tuple[tuple[str, str], ...]

    def accepts(self) -> str:
        """What a variable of this type accepts, for messages."""
        return "one of " + ", ".join(f"{k} ({name})" for k, (name, _) in enumerate(self.items, 1))


#: The enumeration types of the FMU variables (TypeDefinitions), by type name.
ENUMERATIONS: dict[str, Enumeration] = {
    "SteeringMode": Enumeration("Steer degree of freedom (Eq. 33-39)", (
        ("Off", "Rigid: the road wheels follow the steering-wheel angle through the gear ratio"),
        ("Normal", "Hands off: the steering moves under the tire and stop moments"),
        ("Append", "The driver's steering-wheel angle plus the steer degree of freedom about it"),
        ("AutoStart", "Rigid until the unit's first collision contact (or the event's "
                      "simulation.steer_dof_start_time, if earlier), then hands off"),
        ("Torque", "The input steeringWheelTorque drives the steering, which integrates its "
                   "own angle"),
    )),
    "Integrator": Enumeration("Integration method of the internal steps (engine.integrator)", (
        ("RK4", "The classical 4th-order Runge-Kutta method: four evaluations of the model a "
                "step, steps up to %g s" % MAX_STEP_SIZES["rk4"]),
        ("RK2", "Heun's method (2nd-order Runge-Kutta): two evaluations a step, steps up to "
                "%g s" % MAX_STEP_SIZES["rk2"]),
    )),
    "CrushFace": Enumeration("The face a unit's residual crush profile is measured on", (
        ("None", "No residual crush yet"),
        ("Front", "The front; C1 at the left, C6 at the right"),
        ("Rear", "The rear; C1 at the left, C6 at the right"),
        ("Right", "The right side; C1 at the front, C6 at the rear"),
        ("Left", "The left side; C1 at the front, C6 at the rear"),
    )),
}
assert [name.lower() for name, _ in ENUMERATIONS["SteeringMode"].items] == list(STEERING_MODES)
assert [name.lower() for name, _ in ENUMERATIONS["Integrator"].items] == list(INTEGRATORS)


#: Every per-unit, per-wheel, per-tire and environment field of :mod:`engine.signals`.
#: Frames follow SAE J670: x forward, y right, z down.
FIELDS: dict[str, Field] = {
    # unit inputs
    "steeringWheelAngle": Field("rad", "deg", "Steering-wheel angle; positive steers right "
                                "(a positive rotation about z down, giving a positive yaw rate)"),
    "throttle": Field(None, None, "Throttle position, fraction of wide-open throttle (0..1)"),
    "brakePedalForce": Field("N", None, "Force on the brake pedal"),
    "gear": Field(None, None, "Selected gear: -1 reverse, 0 neutral, 1..n forward", "Integer"),
    "steeringWheelTorque": Field("N.m", None, "Torque on the steering wheel, positive turns it "
                                 "to the right; read in the steering mode Torque only"),
    "differentialGear": Field(None, None, "Selected differential gear: 1..n of the drivetrain's "
                              "differential gear table (a two-speed axle: 1 and 2)", "Integer"),
    # wheel inputs
    "brakePressureFactor": Field(None, None, "Factor on this wheel's brake pressure, "
                                 "for an external ABS controller (0..1)"),
    "frictionMultiplier": Field(None, None, "Multiplier on the road friction under this "
                                "wheel's tires"),
    "roadZ": Field("m", None, "Earth-fixed Z of the road under the wheel centre (z down); "
                   "external terrain"),
    "roadGradeX": Field(None, None, "Grade dZ/dX of the road under the wheel, earth frame "
                        "(z down: positive where the road falls towards +X); external terrain"),
    "roadGradeY": Field(None, None, "Grade dZ/dY of the road under the wheel, earth frame "
                        "(z down: positive where the road falls towards +Y); external terrain"),
    "roadWaterDepth": Field("m", None, "Water depth on the road under the wheel (for "
                            "hydroplaning); external terrain"),
    "brakeForce": Field("N", None, "Attempted braking force at the ground (Eq. 49, Braking "
                        "Force table); with brakes.method force"),
    "brakeFriction": Field(None, None, "Attempted braking, fraction of the tires' available "
                           "friction (Eq. 49, % Available Friction, 0..1); with brakes.method friction"),
    "steerAngle": Field("rad", "deg", "Road-wheel steer angle of this steered wheel, positive "
                        "right (SAE J670), relative to the vehicle; the unit's steering.input "
                        "'at_axle' (the manual's At Axle option) only, in place of the "
                        "steering-wheel angle over the axle's gear ratio; bump and roll steer "
                        "add to it"),
    "driveForce": Field("N", None, "Attempted tractive effort at the ground (Eq. 52); driven "
                        "wheels with drivetrain.method force"),
    "driveFriction": Field(None, None, "Attempted traction, fraction of the tires' available "
                           "friction (Eq. 52, 0..1); driven wheels with drivetrain.method friction"),
    # environment inputs
    "windSpeed": Field("m/s", "km/h", "Wind speed"),
    "windDirection": Field("rad", "deg", "Direction the wind comes from, measured from earth X"),
    "gravityTilt": Field("rad", "deg", "Gravity turned about earth X by this angle, to (0, g sin, "
                         "g cos) in the earth frame (z down): the ground a tilt table whose +Y "
                         "side is down; 0 level"),
    # unit outputs
    "X": Field("m", None, "Earth-fixed X position of the sprung-mass CG"),
    "Y": Field("m", None, "Earth-fixed Y position of the sprung-mass CG"),
    "Z": Field("m", None, "Earth-fixed Z position of the sprung-mass CG (z down)"),
    "roll": Field("rad", "deg", "Roll angle (Euler angles in yaw, pitch, roll order)"),
    "pitch": Field("rad", "deg", "Pitch angle (Euler angles in yaw, pitch, roll order)"),
    "yaw": Field("rad", "deg", "Yaw angle (Euler angles in yaw, pitch, roll order)"),
    "u": Field("m/s", "km/h", "Forward velocity of the CG, vehicle-fixed frame"),
    "v": Field("m/s", "km/h", "Lateral velocity of the CG (positive right), vehicle-fixed frame"),
    "w": Field("m/s", "km/h", "Vertical velocity of the CG (positive down), vehicle-fixed frame"),
    "p": Field("rad/s", "deg/s", "Roll rate, vehicle-fixed frame"),
    "q": Field("rad/s", "deg/s", "Pitch rate, vehicle-fixed frame"),
    "r": Field("rad/s", "deg/s", "Yaw rate, vehicle-fixed frame"),
    "ax": Field("m/s2", "g", "Forward acceleration of the CG, vehicle-fixed frame, "
                "gravity excluded"),
    "ay": Field("m/s2", "g", "Lateral acceleration of the CG, vehicle-fixed frame, "
                "gravity excluded"),
    "az": Field("m/s2", "g", "Vertical acceleration of the CG, vehicle-fixed frame, "
                "gravity excluded"),
    "speed": Field("m/s", "km/h", "Magnitude of the CG velocity"),
    "sideslip": Field("rad", "deg", "Sideslip angle of the CG, atan2(v, u)"),
    "engineSpeed": Field("rad/s", "rpm", "Engine speed"),
    "clutchSlip": Field(None, None, "Clutch slip, 1 - transmission input speed / engine speed: 0 "
                        "locked, 1 with the transmission at rest, below 0 while the wheels "
                        "drive the engine, above 1 while they turn it backwards (0 in "
                        "neutral)"),
    "aero.Fx": Field("N", "kN", "Aerodynamic force on the unit, x (forward), vehicle-fixed frame"),
    "aero.Fy": Field("N", "kN", "Aerodynamic force on the unit, y (right), vehicle-fixed frame"),
    "aero.Fz": Field("N", "kN", "Aerodynamic force on the unit, z (down: downforce positive), "
                     "vehicle-fixed frame"),
    "aero.Mx": Field("N.m", None, "Aerodynamic moment about the CG, x (roll), "
                     "vehicle-fixed frame"),
    "aero.My": Field("N.m", None, "Aerodynamic moment about the CG, y (pitch), "
                     "vehicle-fixed frame"),
    "aero.Mz": Field("N.m", None, "Aerodynamic moment about the CG, z (yaw), "
                     "vehicle-fixed frame"),
    "collision.Fx": Field("N", "kN", "Collision force on the unit's exterior mesh (road, "
                          "barriers, other vehicles, the unit it tows or is towed by), x (forward), "
                          "vehicle-fixed frame"),
    "collision.Fy": Field("N", "kN", "Collision force on the unit's exterior mesh, y (right), "
                          "vehicle-fixed frame"),
    "collision.Fz": Field("N", "kN", "Collision force on the unit's exterior mesh, z (down), "
                          "vehicle-fixed frame"),
    "collision.Mx": Field("N.m", None, "Collision moment about the CG, x (roll), vehicle-fixed frame"),
    "collision.My": Field("N.m", None, "Collision moment about the CG, y (pitch), vehicle-fixed frame"),
    "collision.Mz": Field("N.m", None, "Collision moment about the CG, z (yaw), vehicle-fixed frame"),
    "collision.contact": Field(None, None, "A vertex of the unit's exterior mesh is pressed against "
                               "the road, a barrier or another unit's mesh now", "Boolean"),
    "collision.deltaV": Field("m/s", "km/h", "Magnitude of the change of the CG velocity since the "
                              "unit's first contact (0 before it)"),
    "collision.maxCrush": Field("m", None, "Deepest crush any vertex of the exterior mesh has had "
                                "so far: its approach less its face's CRASH3 no-damage approach "
                                "A/B (collision.crush_a; all of it without an A)"),
    "collision.residualCrush": Field("m", None, "Deepest permanent crush of the exterior mesh so "
                                     "far: a vertex's permanent approach, 1 - e^2 of its largest, "
                                     "less its face's A/B"),
    "collision.deltaVx": Field("m/s", "km/h", "Change of the CG's horizontal velocity since the "
                               "unit's first contact, along its heading at that contact (forward "
                               "+; a recorder's longitudinal delta-V)"),
    "collision.deltaVy": Field("m/s", "km/h", "Change of the CG's horizontal velocity since the "
                               "unit's first contact, across its heading at that contact (right +)"),
    "collision.pdof": Field("rad", "deg", "Principal direction of force: where the collision's "
                            "delta-V (deltaVx, deltaVy) comes from, clockwise from straight ahead "
                            "seen from above, 0 to 2 pi (0: 12 o'clock, frontal; pi/2: 3 o'clock, "
                            "from the right); 0 before contact"),
    "collision.duration": Field("s", None, "The impulse phase's duration: from the unit's first "
                                "contact to the last before 50 ms without one (0 before contact)"),
    "collision.crushFace": Field(None, None, "The face of front, rear, right and left that "
                                 "holds the unit's deepest residual crush, across which crushC1.."
                                 "crushC6 are measured", "Enumeration", "CrushFace"),
    "collision.crushWidth": Field("m", None, "The damage width L of the residual crush profile: "
                                  "between the outermost vertices of crushFace with a residual "
                                  "crush (CRASH3's L)"),
    **{f"collision.crushC{k}": Field("m", None, f"Residual crush C{k} of the profile across "
                                     f"crushFace: at {k - 1}/{CRUSH_STATIONS - 1} of crushWidth from "
                                     "its start (C1 left or front), the deepest residual crush of "
                                     "the vertices whose tributary strip spans that station")
       for k in range(1, CRUSH_STATIONS + 1)},
    # wheel outputs
    "steer": Field("rad", "deg", "Road-wheel steer angle relative to the vehicle "
                   "(positive right)"),
    "spin": Field("rad/s", "rpm", "Wheel spin velocity (positive rolling forward)"),
    "jounce": Field("m", None, "Suspension compression from static equilibrium (wheel up +)"),
    "brakePressure": Field("Pa", "bar", "Pressure at the wheel cylinder after proportioning and "
                           "ABS factor, lagging the pedal"),
    "brakeTorque": Field("N.m", None, "Brake torque on the wheel (opposing spin, <= 0 while "
                         "rolling forward)"),
    "driveTorque": Field("N.m", None, "Drivetrain torque delivered to the wheel"),
    "brakeTemperature": Field("K", None, "Temperature of the brake's drum or disc and lining (a "
                              "designed brake; the air temperature for a generic one)"),
    "brakeTorqueRatio": Field("N.m/Pa", None, "Current brake torque ratio, brake torque per "
                              "pressure above pushout (Eq. 47)"),
    "damageDisplacement": Field("m", None, "Permanent displacement of the wheel centre by collisions "
                                "on its mesh (vehicle x-y, Eq. 58-62; DyMESH wheel damage)"),
    # tire outputs
    "Fx": Field("N", "kN", "Longitudinal ground force on the tire, tire frame (x' forward)"),
    "Fy": Field("N", "kN", "Lateral ground force on the tire, tire frame (y' right)"),
    "Fz": Field("N", "kN", "Radial (normal) tire load, >= 0"),
    "slip": Field(None, None, "Longitudinal slip: braking positive, driving negative"),
    "slipAngle": Field("rad", "deg", "Tire slip angle, positive when the contact patch "
                       "moves to the right"),
    "inclination": Field("rad", "deg", "Inclination of the wheel plane to the ground normal"),
    "deflection": Field("m", None, "Tire radial deflection"),
    "skid": Field(None, None, "Tire is skidding (skid flag)", "Boolean"),
    "frictionAvailable": Field(None, None, "Friction multiplier the tire has: the road's "
                               "(its material's, the event's and the wheel's "
                               "frictionMultiplier) after hydroplaning"),
    "waterDepth": Field("m", None, "Water depth on the road under the tire"),
    "pneumaticTrail": Field("m", None, "Pneumatic trail: distance behind the contact point at "
                            "which the lateral force acts (L/6 while the contact patch adheres, "
                            "to 0 as it slides)"),
    "Mz": Field("N.m", None, "Moment of the ground force on the tire about the wheel's steer axis "
                "(aligning moment; positive turns the wheel to the right)"),
}

#: The FMU name of each tire output whose engine field shares its name with a wheel input
#: (a single tire's variables are named as its wheel's): engine.signals' tire ``roadZ``, the
#: road at the contact point, is ``<tire>.contactZ``, as the wheel's input ``roadZ`` of an
#: external terrain is the road under the wheel centre.
TIRE_NAMES: dict[str, str] = {"roadZ": "contactZ"}

#: What the tire outputs of :data:`TIRE_NAMES` mean, by FMU name.
TIRE_FIELDS: dict[str, Field] = {
    "contactZ": Field("m", None, "Earth-fixed Z of the road at the tire's contact point (z down)"),
}

#: The wheel inputs that carry the road, on an event whose terrain is ``external`` only.
ROAD_INPUTS = ("roadZ", "roadGradeX", "roadGradeY", "roadWaterDepth")
#: the wheel inputs of the brake and throttle table options (Eq. 49, 52): a wheel has the one
#: its unit's ``brakes.method`` reads, and a driven wheel the one ``drivetrain.method`` reads
TABLE_INPUTS = {("brakes", "force"): "brakeForce", ("brakes", "friction"): "brakeFriction",
                ("drivetrain", "force"): "driveForce", ("drivetrain", "friction"): "driveFriction"}
#: the wheel inputs a wheel has only with an option of its unit: the table inputs, and the
#: road-wheel angle of the steering option At Axle (:func:`_table_inputs`)
OPTION_INPUTS = tuple(TABLE_INPUTS.values()) + ("steerAngle",)


def _table_inputs(unit, axle):
    """The table inputs (TABLE_INPUTS) a wheel on ``axle`` of ``unit`` has (records of the
    typed model, :mod:`engine.setup.model`), and ``steerAngle`` on a steered axle of a unit
    with the steering option At Axle."""
    keys = set()
    if axle.steered and unit.steering is not None and unit.steering.input == "at_axle":
        keys.add("steerAngle")
    for part in ("brakes", "drivetrain"):
        record = getattr(unit, part)
        method = record.method if record is not None else None
        if (part, method) in TABLE_INPUTS and (part == "brakes" or axle.driven):
            keys.add(TABLE_INPUTS[(part, method)])
    return keys


#: The outputs of a solid axle, ``<unit>.axle<k>.<field>`` (:data:`engine.signals.AXLE_OUTPUTS`).
AXLE_FIELDS: dict[str, Field] = {
    "roll": Field("rad", "deg", "Roll of the solid axle relative to the sprung mass "
                  "(positive right side down)"),
    "heave": Field("m", None, "Displacement of the solid axle's roll centre from static "
                   "equilibrium, vehicle-fixed frame (down +)"),
}

#: The outputs of a unit's steering system, ``<unit>.steering.<field>``
#: (:data:`engine.signals.STEERING_OUTPUTS`).
STEERING_FIELDS: dict[str, Field] = {
    "angle": Field("rad", "deg", "Steering-wheel angle (positive right); within the steering "
                   "stops times the gear ratio while the steering is rigid"),
    "rate": Field("rad/s", "deg/s", "Steering-wheel rate (0 while the steering is rigid)"),
    "torque": Field("N.m", None, "Torque the driver must apply to hold the steering wheel still "
                    "(positive right): minus the tire and stop moments about the steer axes over "
                    "the gear ratio"),
}

#: The integrator's outputs, ``solver.<field>`` (:data:`engine.signals.SOLVER_OUTPUTS`; one
#: for the simulation): how the last communication step was integrated.
SOLVER_FIELDS: dict[str, Field] = {
    "splitSteps": Field(None, None, "Internal steps of the last communication step that were "
                        "taken again in sub-steps because they met a mode stiffer than the step "
                        "resolves (an impact, a kerb strike); always 0 with the parameter "
                        "substeps at 1"),
    "mostSubsteps": Field(None, None, "The most sub-steps one internal step of the last "
                          "communication step was split into (0 when none was)"),
}

_HITCH_FORCE = ("force the unit ahead exerts on this unit at its front connection, this "
                "unit's vehicle-fixed frame")

#: The outputs of a towed unit's front connection (:data:`engine.signals.HITCH_OUTPUTS`):
#: ``<unit>.articulation`` and ``<unit>.hitch.<field>`` for the others.
HITCH_FIELDS: dict[str, Field] = {
    "articulation": Field("rad", "deg", "Articulation angle: yaw of the unit ahead minus this "
                          "unit's yaw (Eq. 126), wrapped to (-pi, pi]"),
    "Fx": Field("N", "kN", f"Longitudinal {_HITCH_FORCE} (x forward)"),
    "Fy": Field("N", "kN", f"Lateral {_HITCH_FORCE} (y right)"),
    "Fz": Field("N", "kN", f"Vertical {_HITCH_FORCE} (z down: a kingpin load is negative)"),
    "failed": Field(None, None, "The front connection has failed (its force exceeded the "
                    "failure force after the failure start time); the units are separate",
                    "Boolean"),
    "separation": Field("m", None, "Distance between the two mating connection points "
                        "(the joint's deflection while connected; horizontal for a hinged "
                        "drawbar, which holds the points only there; for a full trailer's "
                        "turntable drawbar, how far the points' horizontal distance is from "
                        "the drawbar's length)"),
}

#: The FMU variable name of each connection output of towed unit ``u``.
HITCH_NAMES: dict[str, str] = {key: "<unit>.articulation" if key == "articulation"
                               else f"<unit>.hitch.{key}" for key in HITCH_OUTPUTS}


class Parameter(NamedTuple):
    """A parameter of the FMU: the field, its start value and its accepted range."""

    field: Field
    start: float
    min: Optional[float] = None
    max: Optional[float] = None


_FRICTION_MIN, _FRICTION_MAX, _ = engine.INPUT_LIMITS["frictionMultiplier"]

#: Parameters of the whole simulation. The start values are the defaults; the event's own
#: values replace those of EVENT_PATHS (simulation.step_size). frictionMultiplier scales the
#: event's road friction (environment.friction_multiplier), as engine.Simulation's
#: friction_multiplier does, so its start is 1 whatever the event's friction.
PARAMETERS: dict[str, Parameter] = {
    "stepSize": Parameter(Field("s", None, "Internal fixed integration step"), 0.001,
                          MIN_STEP_SIZE, MAX_STEP_SIZE),
    "frictionMultiplier": Parameter(Field(None, None, "Road friction multiplier, on the "
                                          "event's road friction"),
                                    1.0, _FRICTION_MIN, _FRICTION_MAX),
    "substeps": Parameter(Field(None, None, "The most sub-steps an internal step is split into "
                                "where it meets a mode stiffer than the step resolves (an "
                                "impact, a kerb strike): 1 never splits; 16 for severe events "
                                "(the outputs solver.splitSteps, solver.mostSubsteps show it)",
                                "Integer"), 1, 1, MAX_SUBSTEPS),
    "integrator": Parameter(Field(None, None, "Integration method: RK4 (the classical Runge-"
                                  "Kutta method, four evaluations of the model a step) or RK2 "
                                  "(Heun's, two; stepSize at most %g s)" % MAX_STEP_SIZES["rk2"],
                                  "Enumeration", "Integrator"), 1, 1, len(INTEGRATORS)),
}

#: Initial conditions of each unit; the event's units[i].initial values are the start values.
UNIT_PARAMETERS: dict[str, Parameter] = {
    "speed0": Parameter(Field("m/s", "km/h", "Initial forward speed"), 0.0,
                        *engine.setup.event.INITIAL_LIMITS["speed"]),
    "X0": Parameter(Field("m", None, "Initial earth-fixed X position of the CG"), 0.0,
                    *engine.setup.event.INITIAL_LIMITS["X"]),
    "Y0": Parameter(Field("m", None, "Initial earth-fixed Y position of the CG"), 0.0,
                    *engine.setup.event.INITIAL_LIMITS["Y"]),
    "yaw0": Parameter(Field("rad", "deg", "Initial yaw angle"), 0.0,
                      *engine.setup.event.INITIAL_LIMITS["yaw"]),
    # the launch attitude and motion (engine.setup.launch): a vehicle of one unit
    "roll0": Parameter(Field("rad", "deg", "Initial roll angle (right side down +; a launch on "
                             "flat ground: the body set on its lowest point)"), 0.0,
                       *engine.setup.event.INITIAL_LIMITS["roll"]),
    "pitch0": Parameter(Field("rad", "deg", "Initial pitch angle (nose up +; as roll0)"), 0.0,
                        *engine.setup.event.INITIAL_LIMITS["pitch"]),
    "lateralSpeed0": Parameter(Field("m/s", "km/h", "Initial lateral velocity (vehicle y, right +)"),
                               0.0, *engine.setup.event.INITIAL_LIMITS["v"]),
    "verticalSpeed0": Parameter(Field("m/s", "km/h", "Initial vertical velocity (vehicle z, down +)"),
                                0.0, *engine.setup.event.INITIAL_LIMITS["w"]),
    "rollRate0": Parameter(Field("rad/s", "deg/s", "Initial roll rate"), 0.0,
                           *engine.setup.event.INITIAL_LIMITS["p"]),
    "pitchRate0": Parameter(Field("rad/s", "deg/s", "Initial pitch rate"), 0.0,
                            *engine.setup.event.INITIAL_LIMITS["q"]),
    "yawRate0": Parameter(Field("rad/s", "deg/s", "Initial yaw rate"), 0.0,
                          *engine.setup.event.INITIAL_LIMITS["r"]),
}

#: The steering mode of each unit with a steering system; the event's units[i].steering.mode
#: is the start value.
STEERING_PARAMETERS: dict[str, Parameter] = {
    "steeringMode": Parameter(Field(None, None, "Steering mode: Off, Normal, Append, AutoStart or "
                                    "Torque (the steer degree of freedom, Eq. 33-39)",
                                    "Enumeration", "SteeringMode"),
                              1, 1, len(STEERING_MODES)),
}

#: Where the event file keeps each parameter's value: key -> path of fields in the typed model
#: (``Event.model``; for unit parameters, relative to the unit's record).
EVENT_PATHS: dict[str, tuple[str, ...]] = {
    "stepSize": ("simulation", "step_size"),
    "substeps": ("simulation", "substeps"),
    "speed0": ("initial", "speed"),
    "X0": ("initial", "X"),
    "Y0": ("initial", "Y"),
    "yaw0": ("initial", "yaw"),
    "roll0": ("initial", "roll"),
    "pitch0": ("initial", "pitch"),
    "lateralSpeed0": ("initial", "v"),
    "verticalSpeed0": ("initial", "w"),
    "rollRate0": ("initial", "p"),
    "pitchRate0": ("initial", "q"),
    "yawRate0": ("initial", "r"),
}

#: Values each unit reports from its data, fixed once the simulation is built.
UNIT_CALCULATED: dict[str, Field] = {
    "mass": Field("kg", None, "Total mass of the unit"),
    "wheelbase": Field("m", None, "Wheelbase of the unit (first to last axle)"),
}

SIDES = ("left", "right")
DUAL_POSITIONS = ("inner", "outer")


class Binding(NamedTuple):
    """Where a variable's value lives.

    ``source`` is one of the engine arrays (``"u_unit"``, ``"u_wheel"``, ``"u_env"``,
    ``"y_unit"``, ``"y_wheel"``, ``"y_tire"``, ``"y_axle"`` (rows: ``Simulation.axle_names``,
    the solid axles), ``"y_conn"`` (rows: ``Simulation.connection_names``, the towed units),
    with ``index`` the numpy index into it), or
    ``"parameter"`` (index ``(key,)``), ``"initial"`` (index ``(unit, key)``), ``"steering"``
    (index ``(unit, key)``, the steering mode) or ``"calculated"`` (index ``(unit, key)``) for
    the values the slave keeps itself.
    """

    source: str
    index: tuple


@dataclass(frozen=True)
class Variable:
    """One FMU variable, with everything modelDescription.xml says about it."""

    name: str
    value_reference: int
    type: str                     # "Real", "Integer", "Boolean", "String", "Enumeration"
    causality: str                # "input", "output", "parameter", "calculatedParameter"
    variability: str              # "fixed", "discrete", "continuous"
    initial: Optional[str]        # "exact", "calculated" or None (inputs)
    unit: Optional[str]
    display_unit: Optional[str]
    start: Optional[Number]
    min: Optional[Number]
    max: Optional[Number]
    description: str
    binding: Binding
    pattern: str                  # the name with <unit>, <k>, <side>, <tire> placeholders
    declared_type: Optional[str] = None   # an Enumeration's type (ENUMERATIONS)


class Catalogue:
    """The ordered, immutable list of an FMU's variables, with look-ups."""

    def __init__(self, variables: list[Variable]):
        self.variables: tuple[Variable, ...] = tuple(variables)
        self.by_name: dict[str, Variable] = {v.name: v for v in self.variables}
        self.by_value_reference: dict[int, Variable] = {
            v.value_reference: v for v in self.variables}
        self._index = {v.name: i for i, v in enumerate(self.variables, start=1)}
        if len(self.by_name) != len(self.variables):
            raise ValueError("variable names are not unique")
        if len(self.by_value_reference) != len(self.variables):
            raise ValueError("value references are not unique")

    def __iter__(self) -> Iterator[Variable]:
        return iter(self.variables)

    def __len__(self) -> int:
        return len(self.variables)

    def __getitem__(self, name: str) -> Variable:
        return self.by_name[name]

    def with_causality(self, *causalities: str) -> list[Variable]:
        return [v for v in self.variables if v.causality in causalities]

    def index_of(self, variable: Variable) -> int:
        """1-based position in ModelVariables, as ModelStructure refers to it."""
        return self._index[variable.name]


class _Builder:
    """Appends variables in order, numbering their value references."""

    def __init__(self):
        self.variables: list[Variable] = []

    def add(self, name, pattern, field: Field, causality, binding, start=None, lo=None, hi=None):
        variability, initial = _VARIABILITY[causality]
        if causality in ("input", "output") and field.type != "Real":
            variability = "discrete"
        if field.type in ("Integer", "Enumeration"):
            start, lo, hi = (None if x is None else int(x) for x in (start, lo, hi))
        elif field.type == "Boolean":
            lo = hi = None
            start = None if start is None else bool(start)
        elif field.type == "String":
            lo = hi = None
            start = None if start is None else str(start)
        else:
            start, lo, hi = (None if x is None else float(x) for x in (start, lo, hi))
        self.variables.append(Variable(
            name=name, value_reference=len(self.variables), type=field.type,
            causality=causality, variability=variability, initial=initial,
            unit=field.unit if field.type == "Real" else None,
            display_unit=field.display_unit if field.type == "Real" else None,
            start=start, min=lo, max=hi, description=field.description,
            binding=binding, pattern=pattern, declared_type=field.declared_type))

    def add_input(self, name, pattern, key, binding, hi=None):
        """An input with its range of engine.INPUT_LIMITS (``hi``: the unit's own maximum
        where the limits leave it open: the number of forward gears, or of differential gears)."""
        lo, top, start = engine.INPUT_LIMITS[key]
        self.add(name, pattern, FIELDS[key], "input", binding, start, lo, hi if top is None else top)


#: causality -> (variability for Reals, initial)
_VARIABILITY = {
    "input": ("continuous", None),
    "output": ("continuous", "calculated"),
    "parameter": ("fixed", "exact"),
    "calculatedParameter": ("fixed", "calculated"),
}


def build_catalogue(event: "engine.Event") -> Catalogue:
    """Return the catalogue of FMU variables for ``event``.

    Parameters:
        event: a validated :class:`engine.Event` (from :func:`engine.load_event`); its unit
            names, axles, dual tires, solid axles (``Event.solid_axle_names``), lead units
            (``Event.lead_unit_names``) and connections (``Event.connection_names``) decide
            the variables, and its terrain whether the wheels have the road inputs
            (:data:`ROAD_INPUTS`, only for ``environment.terrain`` of type ``external``).
    """
    model = event.model
    b = _Builder()
    for key, par in PARAMETERS.items():
        start = _event_value(model, key, par.start) if key in EVENT_PATHS else par.start
        if key == "integrator":     # the event's method, an item 1, 2, ...
            start = INTEGRATORS.index(model.simulation.integrator or INTEGRATORS[0]) + 1
        b.add(key, key, par.field, "parameter", Binding("parameter", (key,)), start,
              par.min, par.max)
    for j, key in enumerate(engine.ENV_INPUTS):
        b.add_input(key, key, key, Binding("u_env", (j,)))

    wheel_index = {name: i for i, name in enumerate(event.wheel_names())}
    tire_index = {name: i for i, name in enumerate(event.tire_names())}
    axle_index = {name: i for i, name in enumerate(event.solid_axle_names())}
    connection_index = {name: i for i, name in enumerate(event.connection_names())}
    lead = set(event.lead_unit_names())
    steering_index = {name: i for i, name in enumerate(event.steering_unit_names())}
    external = model.environment.terrain.type == "external"
    for i, unit in enumerate(model.units):
        u = unit.name
        if u in lead:
            for key, par in UNIT_PARAMETERS.items():
                b.add(f"{u}.{key}", f"<unit>.{key}", par.field, "parameter",
                      Binding("initial", (u, key)),
                      _event_value(unit, key, par.start), par.min, par.max)
        if u in steering_index:
            mode = unit.steering.mode
            for key, par in STEERING_PARAMETERS.items():
                b.add(f"{u}.{key}", f"<unit>.{key}", par.field, "parameter",
                      Binding("steering", (u, key)), STEERING_MODES.index(mode) + 1, par.min, par.max)
        for key, fld in UNIT_CALCULATED.items():
            b.add(f"{u}.{key}", f"<unit>.{key}", fld, "calculatedParameter",
                  Binding("calculated", (u, key)))
        if u in lead:
            dt = unit.drivetrain
            top = {"gear": len(dt.transmission_ratios) if dt is not None else 0,
                   "differentialGear": max(1, len(differential_ratios(dt)))}
            for j, key in enumerate(engine.UNIT_INPUTS):
                b.add_input(f"{u}.{key}", f"<unit>.{key}", key, Binding("u_unit", (i, j)),
                            hi=top.get(key))
        for number, axle in enumerate(unit.axles, 1):
            tables = _table_inputs(unit, axle)
            for side in SIDES:
                wheel = f"{u}.axle{number}.{side}"
                for j, key in enumerate(engine.WHEEL_INPUTS):
                    if (key in ROAD_INPUTS and not external) or \
                            (key in OPTION_INPUTS and key not in tables):
                        continue
                    b.add_input(f"{wheel}.{key}", f"<unit>.axle<k>.<side>.{key}", key,
                                Binding("u_wheel", (wheel_index[wheel], j)))
        for j, key in enumerate(engine.UNIT_OUTPUTS):
            if key in DRIVETRAIN_OUTPUTS and u not in lead:
                continue
            b.add(f"{u}.{key}", f"<unit>.{key}", FIELDS[key], "output", Binding("y_unit", (i, j)))
        if u in steering_index:
            for j, key in enumerate(STEERING_OUTPUTS):
                b.add(f"{u}.steering.{key}", f"<unit>.steering.{key}", STEERING_FIELDS[key],
                      "output", Binding("y_steer", (steering_index[u], j)))
        if u in connection_index:
            for j, key in enumerate(HITCH_OUTPUTS):
                pattern = HITCH_NAMES[key]
                b.add(pattern.replace("<unit>", u), pattern, HITCH_FIELDS[key], "output",
                      Binding("y_conn", (connection_index[u], j)))
        for number, axle in enumerate(unit.axles, 1):
            name = f"{u}.axle{number}"
            if name in axle_index:
                for j, key in enumerate(AXLE_OUTPUTS):
                    b.add(f"{name}.{key}", f"<unit>.axle<k>.{key}", AXLE_FIELDS[key], "output",
                          Binding("y_axle", (axle_index[name], j)))
            for side in SIDES:
                wheel = f"{name}.{side}"
                for j, key in enumerate(engine.WHEEL_OUTPUTS):
                    b.add(f"{wheel}.{key}", f"<unit>.axle<k>.<side>.{key}", FIELDS[key],
                          "output", Binding("y_wheel", (wheel_index[wheel], j)))
                tires = [(f"{wheel}.{pos}", f".{pos}") for pos in DUAL_POSITIONS] \
                    if axle.dual else [(wheel, "")]
                for tire, suffix in tires:
                    for j, key in enumerate(engine.TIRE_OUTPUTS):
                        field = TIRE_NAMES.get(key, key)
                        b.add(f"{tire}.{field}", f"<unit>.axle<k>.<side>{suffix}.{field}",
                              TIRE_FIELDS.get(field) or FIELDS[field], "output", Binding("y_tire", (tire_index[tire], j)))
    for j, key in enumerate(SOLVER_OUTPUTS):
        b.add(f"solver.{key}", f"solver.{key}", SOLVER_FIELDS[key], "output",
              Binding("y_solver", (0, j)))
    return Catalogue(b.variables)


def _event_value(record, key: str, default: float) -> float:
    """The value the typed model's ``record`` (the event's, or a unit's) gives parameter
    ``key``, or ``default`` where a record on its path is null (a lead unit without
    ``initial``)."""
    for part in EVENT_PATHS[key]:
        if record is None:
            return default
        record = getattr(record, part)
    return default if record is None else record
