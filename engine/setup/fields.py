"""The fields of an event file: the schema every event is checked against, and the limits it holds.

Each object of the event format is a dict of :class:`engine.setup.schema.Field` here (``EVENT``
at the top, ``UNIT``, ``AXLE``, ``SUSPENSION``, ``TIRE``, ...). :mod:`engine.setup.event` checks
an event against them (with the checks across fields) and :mod:`engine.setup.model` generates
from them the typed vehicle model's record classes: each field is defined once, here.
"""
from __future__ import annotations

import math
import re

from ..aerodynamics import AERO_NAMES
from typing import NamedTuple

from ..layout import INTEGRATOR_RK2, INTEGRATOR_RK4, MAX_DIFF_GEARS, MAX_GEARS, MAX_TIRE_TESTS
from .meshes import MAX_COORDINATE
from .schema import Field as F, check_object
from .vehicle_classes import (CLASSES as VEHICLE_CLASSES, HEAVY_CLASS, LIGHT_CLASS, LIGHT_VEHICLE_MASS,
                              borrowed, defaults as class_defaults)
from ..steering import MODES as STEERING_MODES

MAX_AXLES = 3
MAX_AXLES_FULL_TRAILER = 6
MAX_UNITS = 8
#: a unit name starts FMU variable names (``<unit>.<field>``): ASCII letters, digits and '_'
MAX_UNIT_NAME = 32
UNIT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
#: objects and lists nest at most this deep in an event (the format itself nests 7 deep)
MAX_DEPTH = 32
#: the internal step the engine accepts, s: below MIN_STEP_SIZE a communication step of
#: seconds would take more internal steps than the step counter holds exactly; above
#: MAX_STEP_SIZES[method] the integration method (simulation.integrator, engine.integrator)
#: leaves its stability interval for a sliding tire's carcass deflection, whose shortest time
#: constant is engine.tire.TAU_MIN = 1 ms: the 4th-order Runge-Kutta step's reaches
#: z >= -2.785 (2 ms = 0.72 x 2.785 ms), Heun's z >= -2 (1.4 ms = 0.7 x 2 ms).
#: engine.setup.stability checks each vehicle's own modes at its initial state on top of this
class Method(NamedTuple):
    """An integration method of simulation.integrator: its code in the packed environment
    (``engine.layout.INTEGRATOR_*``, read by ``engine.integrator``), its largest step (s) and
    its name in messages."""
    code: int
    max_step: float
    title: str


#: simulation.integrator: the integration methods (engine.integrator), the default first
METHODS = {"rk4": Method(INTEGRATOR_RK4, 0.002, "4th-order Runge-Kutta"),
           "rk2": Method(INTEGRATOR_RK2, 0.0014, "2nd-order Runge-Kutta (Heun)")}
MAX_STEP_SIZES = {name: m.max_step for name, m in METHODS.items()}
#: simulation.substeps: the most sub-steps a step may be split into (engine.integrator)
MAX_SUBSTEPS = 64
MIN_STEP_SIZE, MAX_STEP_SIZE = 1e-6, MAX_STEP_SIZES["rk4"]
INTEGRATORS = tuple(METHODS)
# The range of the engine's arithmetic, wide beyond any road vehicle: within it products of
# forces and lever arms stay finite and positions resolve the tire deflection (m, m, K, Pa)
LENGTH_RANGE = 100.0       # a dimension, axle position, tire radius or CG height
MAX_ELEVATION = MAX_COORDINATE
#: the initial conditions of a lead unit (FMU parameters <unit>.X0, Y0, yaw0, speed0): a
#: position within +-MAX_ELEVATION keeps doubles 1.5e-11 m apart (docs/event-format.md: a
#: step's displacement keeps its precision), a yaw angle within one turn either way
INITIAL_LIMITS = {"X": (-MAX_ELEVATION, MAX_ELEVATION), "Y": (-MAX_ELEVATION, MAX_ELEVATION),
                  "yaw": (-2.0 * math.pi, 2.0 * math.pi), "speed": (-100.0, 100.0),
                  # the launch attitude and motion (engine.setup.launch): an attitude within
                  # half a turn, speeds as the forward speed's, rates within 20 rad/s (1150
                  # deg/s, above the roll rates of the fastest rollovers, 400 to 700 deg/s)
                  "roll": (-math.pi, math.pi), "pitch": (-math.pi, math.pi),
                  "v": (-100.0, 100.0), "w": (-100.0, 100.0),
                  "p": (-20.0, 20.0), "q": (-20.0, 20.0), "r": (-20.0, 20.0)}
#: the least sprung mass a unit carries per tire, kg: a plausibility bound that catches a mass
#: given in tonnes (the sedan's 965.71 kg as 0.966: 0.24 kg per tire; a 20 t semitrailer as
#: 20 on its 6 tires: 3.3 kg). The lightest road vehicles carry tens of kg of sprung mass per
#: tire (a 100 kg quad or kart frame on 4 tires: 25 kg), a dolly hundreds (the sheet's:
#: 300 kg). A mass too large for the tires is refused by the static equilibrium instead (a
#: tire pressed beyond its max_deflection), so no upper bound is set here.
MIN_SPRUNG_MASS_PER_TIRE = 5.0
#: the initial speeds (FMU parameter <unit>.speed0, event units[i].initial.speed) above which
#: engine.Simulation warns (PlausibilityWarning; the FMU logs an fmi2Warning): the speed is
#: accepted (INITIAL_LIMITS), but likely given in km/h. PLAUSIBLE_SPEED_LIGHT 70 m/s (252 km/h,
#: above the top speed of all but sports cars) for a vehicle of one unit of at most
#: LIGHT_VEHICLE_MASS 3500 kg (the EU limit of a light goods vehicle, category N1; the limit
#: of the vehicle classes, engine.setup.vehicle_classes);
#: PLAUSIBLE_SPEED_HEAVY 40 m/s (144 km/h, well above the 80..120 km/h speed limits and
#: limiters of trucks, buses and vehicles towing a trailer) for a heavier one or a combination.
#: 100 km/h given as 100 draws the warning for every vehicle, 60 km/h as 60 for a heavy one.
PLAUSIBLE_SPEED_LIGHT, PLAUSIBLE_SPEED_HEAVY = 70.0, 40.0
#: simulation.tire_limit: what a tire beyond its range does
TIRE_LIMITS = ("wheel", "stop")
MIN_AIR_TEMPERATURE, MAX_AIR_TEMPERATURE = 100.0, 1000.0
MAX_AIR_PRESSURE = 1.0e7
MAX_FRICTION = 10.0        # a tire friction coefficient
MAX_DRAG_COEFFICIENT = 10.0
MAX_ENGINE_RPM = 30000.0  # an engine speed (idle), rpm
MAX_LIFT_COEFFICIENT = 10.0
#: the mating points of a connection agree in height above ground within this, m
MATING_HEIGHT_TOLERANCE = 1e-3
MAX_ROLL_STEER = 1.0       # rad/rad
MAX_CAMBER_SET = 0.5       # rad
MAX_JOINT_DEFLECTION = 1.0  # m
#: a coupling deflects at least this under its governing weight, m: 10 micrometres is stiffer
#: than any fifth wheel or drawbar eye (millimetres); below it K_C = W / deflection leaves
#: the range in which the static wheel loads are finite
MIN_JOINT_DEFLECTION = 1.0e-5
#: a wheel mount's deformation rate, m/N: 1 m/N gives way at once under any force (its set is
#: still capped by the contact motion of the wheel's mesh, engine.wheel_damage)
MAX_DEFORMATION_RATE = 1.0
#: a wheel's displacement from the event (units[].axles[].wheel_displacement, Eq. 15-17 and
#: 58-62), m, each component: a wheel moved further than this has left its suspension; what
#: a smaller displacement leaves of the vehicle's static equilibrium is checked at its start
#: (engine.setup.settle.preload_lateral)
MAX_WHEEL_DISPLACEMENT = 0.5
MAX_WATER_DEPTH = 1.0      # m, water on a road material
MAX_INFLATION_PRESSURE = 1.0e7  # Pa
MAX_TREAD_DEPTH = 0.1      # m
#: the terrain sources of environment.terrain.type
TERRAIN_TYPES = ("flat", "mesh", "crg", "external")
#: the fields of environment.terrain each type has (null in the data of the others)
TERRAIN_FIELDS = {"flat": (), "external": (), "mesh": ("file", "z_up", "materials"),
                  "crg": ("file", "origin", "heading", "friction_multiplier", "water_depth",
                          "texture_depth")}
#: what those fields are when an event leaves them out (texture_depth stays null: only the
#: gallaway hydroplaning model needs it, and then it is required)
TERRAIN_DEFAULTS = {"mesh": {"z_up": False, "materials": dict},
                    "crg": {"origin": lambda: [0.0, 0.0, 0.0], "heading": 0.0,
                            "friction_multiplier": 1.0, "water_depth": 0.0}}
#: the hydroplaning models of simulation.hydroplaning ("off": none)
HYDROPLANING_MODELS = ("off", "nasa", "nasa-tti", "gallaway")
#: brake and throttle table options (Eq. 47-49, 50-52); the index is the engine's code
#: (0 the brake system / engine model, engine.brakes.TABLE_FORCE, TABLE_FRICTION)
BRAKE_METHODS = ("pedal", "force", "friction")
DRIVE_METHODS = ("engine", "force", "friction")
#: tires[].property_model: how a tire's properties depend on its load and speed: "table", by
#: linear interpolation in tables over test loads and speeds (the manual's SIMON), or
#: "partial_derivatives", a value at a reference load and speed with its first derivatives
#: (the HSRI and EDVDS form the manual says SIMON replaced; engine.tire.partial_properties)
PROPERTY_MODELS = ("table", "partial_derivatives")
#: the load- and speed-dependent tire properties (Eq. 94 ff.): each a table, or a value with
#: its derivatives
TIRE_PROPERTIES = ("peak_friction", "slide_friction", "slip_at_peak", "cornering_stiffness",
                   "camber_stiffness")
#: the tire fields of the table form: required with property_model "table"
TIRE_TABLE_FIELDS = ("test_loads", "test_speeds") + TIRE_PROPERTIES
#: the tire fields every tire needs when simulation.hydroplaning is not "off"
HYDROPLANING_TIRE_FIELDS = ("inflation_pressure", "tread_depth", "width")
#: the material fields every material of a mesh needs with these hydroplaning models
HYDROPLANING_MATERIAL_FIELDS = {"gallaway": ("texture_depth",)}
MAX_TEXTURE_DEPTH = 0.1    # m
MAX_STEER_STOP = 1.5          # rad, a steering stop at the road wheel
MAX_TRAIL = 1.0            # m, a mechanical trail
#: the steering fields a steering mode other than "off" needs (engine.steering)
STEERING_DOF_FIELDS = ("stop_left", "stop_right", "stop_stiffness", "steer_inertia",
                       "column_inertia", "null_band")
#: the steer table options of the manual (engine.steering.INPUTS): the driver steers at the
#: steering wheel (through each steered axle's gear ratio), or gives each steered wheel's angle
STEER_INPUTS = ("at_steering_wheel", "at_axle")


def _num(lo=None, hi=None, lo_open=False, hi_open=False, default=None, doc=""):
    kw = {} if default is None else {"default": default}
    return F("number", lo=lo, hi=hi, lo_open=lo_open, hi_open=hi_open, doc=doc, **kw)


def _pos(doc="", default=None):
    return _num(lo=0.0, lo_open=True, doc=doc, default=default)


def _nonneg(doc="", default=None):
    return _num(lo=0.0, doc=doc, default=default)


def _stop():
    return F("object", fields={
        "clearance": _nonneg("travel from static equilibrium before the stop engages, m"),
        "K1": _nonneg("linear rate, N/m"),
        "K3": _nonneg("cubic rate, N/m^3"),
        "energy_ratio": _num(0.0, 1.0, doc="unloading/loading force ratio (Eq. 116)"),
    })


def _zero_table():
    return [[0.0, 0.0]]


def _optional(kind="number", doc="", **kw):
    """A field that may be absent or null (None in the data until a cross-check fills it)."""
    return F(kind, default=None, nullable=True, doc=doc, **kw)


def _point(doc):
    return F("vector3", doc=f"{doc}, from the sprung-mass CG, m, each within +-{LENGTH_RANGE:g}",
             extra_check=lambda v: None if max(map(abs, v)) <= LENGTH_RANGE else
             f"a point within +-{LENGTH_RANGE:g} m of the CG (got {v})")


#: the fields of a solid axle's suspension (None in the data of an independent one)
SOLID_FIELDS = ("roll_center_height", "spring_spacing", "axle_roll_inertia", "roll_steer", "camber_set")
#: the fields of an independent suspension's geometry, refused on a solid axle
INDEPENDENT_FIELDS = ("half_track_change", "camber_change", "bump_steer")


SUSPENSION = {
    "type": F("str", choices=("independent", "solid"), doc="suspension type"),
    "spring_rate": _pos("N/m per wheel (per spring of a solid axle)"),
    "damping": _nonneg("N s/m per wheel (per spring of a solid axle)"),
    "coulomb_friction": _nonneg("N per wheel (per spring of a solid axle)"),
    "antisway_roll_stiffness": _nonneg("auxiliary roll stiffness of the axle, N m/rad"),
    "jounce_stop": _stop(),
    "rebound_stop": _stop(),
    "half_track_change": F("table", default=_zero_table, nullable=True,
                           doc="[jounce m, outward half-track change m]"),
    "camber_change": F("table", default=_zero_table, nullable=True,
                       doc="[jounce m, camber rad, top outward positive]"),
    "bump_steer": F("sides", item=F("list", item=_num(), min_items=4, max_items=4),
                    default=lambda: [0.0] * 4, nullable=True,
                    doc="kappa0..kappa3 of Eq. 63 (rad, rad/m, rad/m^2, rad/m^3) against the wheel's "
                        "z-displacement (down +), in the vehicle's steer sign (right +). One list is "
                        "the right wheel's, mirrored on the left (a toe change: +kappa is toe-out); "
                        "{\"left\": [...], \"right\": [...]} gives each wheel its own"),
    "roll_center_height": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True,
                                    doc="solid axle (required): roll-centre height above ground at "
                                        "static equilibrium, m"),
    "spring_spacing": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True,
                                doc="solid axle (required): left spring to right spring, m (r_s of Eq. 115)"),
    "axle_roll_inertia": _optional(lo=0.0, lo_open=True,
                                   doc="solid axle (required): roll inertia of the axle about its roll "
                                       "centre, kg m^2; above m_axle rho^2 (rho: roll centre to loaded "
                                       "wheel centre)"),
    "roll_steer": _optional(lo=-MAX_ROLL_STEER, hi=MAX_ROLL_STEER,
                            doc="solid axle: kappa_phi of Eq. 65, rad/rad (default 0)"),
    "camber_set": _optional(lo=-MAX_CAMBER_SET, hi=MAX_CAMBER_SET,
                            doc="solid axle: camber set of Eq. 64, rad (default 0)"),
}

BRAKE_DESIGN = {
    "type": F("str", choices=("disc", "drum")),
    "actuator_area": _pos("wheel-cylinder or caliper piston area on which the pressure acts, m^2"),
    "effective_radius": _pos("radius at which the lining's friction acts, m"),
    "brake_factor": F("table", doc="[lining friction, brake factor C*]: friction force on the drum or disc "
                                   "per actuating force (2 mu for a disc with two pads)"),
    "lining_friction": F("table", item=F("number", lo=0.0, hi=MAX_FRICTION),
                         doc="[lining temperature K, friction coefficient]"),
    "speed_factor": F("table", default=None, nullable=True, item=F("number", lo=0.0, hi=MAX_FRICTION),
                      doc="[sliding speed m/s, factor on the lining friction]; null: none"),
    "heat_capacity": _pos("of the drum or disc with its linings, J/K"),
    "cooling": _nonneg("convective cooling at rest, W/K"),
    "cooling_per_speed": _nonneg("rise of the cooling with the vehicle speed, W/K per m/s", default=0.0),
}

#: the default damage thresholds of a car's wheel (engine/data/vehicle_classes.json, with their
#: sources; docs/equations.md, "Wheel meshes and wheel damage": chosen, of the order of the
#: lateral and longitudinal loads at which a car's wheel and suspension take a permanent set in
#: kerb-strike and small-overlap tests); a unit of another class takes its class's
DEFAULT_WHEEL_DAMAGE = dict(class_defaults(LIGHT_CLASS)["wheel_damage"])
#: what the format page shows as the default of a field whose default is its unit's class's
CLASS_DEFAULT = "(vehicle class)"


def _class_text(group: str, key=None) -> str:
    """The classes' defaults of a field, for its doc: "car 2e+04; truck the car's, ..."."""
    out = []
    for name in VEHICLE_CLASSES:
        v = class_defaults(name)[group]
        if name != LIGHT_CLASS and borrowed(name, group):
            out.append(f"{name} the {LIGHT_CLASS}'s, for lack of a published figure")
        elif key is None and not isinstance(v, float):
            out.append(f"{name} " + ", ".join(f"{k} {x:.3g}" for k, x in v.items()))
        else:
            out.append(f"{name} {v if key is None else v[key]:.3g}")
    return "; ".join(out)


def _by_class(doc: str, group: str, key=None, **kw):
    """A field whose default is its unit's vehicle class's (engine.setup.vehicle_classes): null
    until the event is validated, then the class's value where the event left it out or null."""
    return _optional(doc=f"{doc}; null or left out: the unit's vehicle class's ({_class_text(group, key)}; "
                         "engine/data/vehicle_classes.json)", default_text=CLASS_DEFAULT, **kw)

WHEEL_DAMAGE = {
    "mesh": F("bool", default=True, doc="the axle's wheels carry a collision mesh (when the unit's "
                                        "collision is enabled): a cylinder of the tire's radius and "
                                        "the wheel's width (engine.wheel_damage)"),
    "stiffness": _optional(lo=0.0, lo_open=True,
                           doc="N/m: a plane pressed flat on the wheel's side, or across its tread, "
                               "meets this stiffness; null: the tire's radial_stiffness (times 2 for "
                               "a dual)"),
    "restitution": _num(0.05, 1.0, default=1.0,
                        doc="e of the wheel mesh's contacts (as units[].collision.restitution): 1, "
                            "elastic as a tire, what the wheel keeps is its set"),
    "max_no_damage_force": _by_class("the largest collision force (vehicle x-y) on the wheel's mesh that "
                                     "leaves no permanent set, N", "wheel_damage", "max_no_damage_force",
                                     lo=0.0),
    "max_no_damage_moment": _by_class("the largest collision moment (about the vehicle z and x axes) on the "
                                      "wheel that leaves no permanent turn, N m", "wheel_damage",
                                      "max_no_damage_moment", lo=0.0),
    "deformation_rate": _by_class("the permanent set per newton of force beyond max_no_damage_force, m/N "
                                  "(the turn: per N m beyond max_no_damage_moment, over the radius "
                                  "squared); at most 1, a mount that gives way at once", "wheel_damage",
                                  "deformation_rate", lo=0.0, hi=MAX_DEFORMATION_RATE),
    "max_force": _by_class("the force beyond which the set grows no more, N; above max_no_damage_force",
                           "wheel_damage", "max_force", lo=0.0, lo_open=True),
    "max_moment": _by_class("the moment beyond which the turn grows no more, N m; above max_no_damage_moment",
                            "wheel_damage", "max_moment", lo=0.0, lo_open=True),
}


def _wheel_damage_default():
    return check_object(WHEEL_DAMAGE, {}, "", [])


def _displacement_check(v):
    """A wheel displacement's components within +-MAX_WHEEL_DISPLACEMENT, else the message."""
    if max(map(abs, v)) <= MAX_WHEEL_DISPLACEMENT:
        return None
    return f"each of dx, dy, dz within +-{MAX_WHEEL_DISPLACEMENT:g} m (got {v})"


#: one wheel's displacement [dx, dy, dz] (units[].axles[].wheel_displacement)
WHEEL_DISPLACEMENT = F("vector3", default=lambda: [0.0, 0.0, 0.0], extra_check=_displacement_check,
                       doc=f"[dx, dy, dz], m, each within +-{MAX_WHEEL_DISPLACEMENT:g}")


AXLE = {
    "x": _num(-LENGTH_RANGE, LENGTH_RANGE, doc="axle x-coordinate from the sprung-mass CG, m (forward +)"),
    "track": _num(0.0, LENGTH_RANGE, lo_open=True, doc="m"),
    "unsprung_mass_per_wheel": _pos("kg"),
    "unsprung_yaw_inertia": _optional(lo=0.0, doc="kg m^2: the yaw inertia of the axle's unsprung masses "
                                                  "about vertical axes through their own mass centres "
                                                  "(I_z,Unsprung of Eq. 10): of its two wheels together on "
                                                  "an independent axle, of the axle on a solid one; null: "
                                                  "derived, each wheel a disc of its tires' spin inertia "
                                                  "(half of it about a diameter), a solid axle its roll "
                                                  "inertia about its mass centre "
                                                  "(engine.setup.derived.unsprung_yaw_inertias)"),
    "suspension": F("object", fields=SUSPENSION),
    "tire": F("str", doc="name of an entry of the unit's tires"),
    "dual": F("bool", default=False),
    "dual_spacing": _nonneg("centre distance of dual tires, m", default=0.0),
    "steered": F("bool"),
    "steering_gear_ratio": _optional(
        extra_check=lambda v: None if v != 0.0 else "a number other than 0 (got 0.0)",
        doc="this steered axle's steering gear ratio (steering-wheel angle : its road-wheel angle; "
            "< 0: steered in opposite phase, a rear axle of four-wheel steering; null: the unit's "
            "steering.gear_ratio); only on a steered axle"),
    "turntable": F("bool", default=False,
                   doc="the front axle of a full trailer on a turntable that its drawbar steers: "
                       "its steer angle is the angle between the drawbar and the trailer body "
                       "(the unit's connections.front: a drawbar with a drawbar_length, whose "
                       "point is the turntable's king pin); the first axle of a towed unit that "
                       "is not a dolly, a solid axle, not steered"),
    "driven": F("bool"),
    "brake_torque_ratio": F("sides", item=F("number", lo=0.0), default=None, nullable=True,
                            doc="N m/Pa, the generic brake (Eq. 47), for both wheels or per wheel "
                                "as the manual supplies it ({\"left\": ..., \"right\": ...}); null "
                                "with a brake_design"),
    "brake_design": F("object", default=None, nullable=True, fields=BRAKE_DESIGN,
                      doc="a brake described by its design, whose torque ratio follows its lining "
                          "friction (temperature, sliding speed): fade; null: the generic "
                          "brake_torque_ratio"),
    "proportioned": F("bool", doc="brake pressure passes the proportioning valve"),
    "group": _optional("str", doc="axles of one unit with the same group name share their static load "
                                  "equally (a load-equalising tandem or tridem); null: its own group"),
    "torque_split": _optional("number", lo=0.0, hi=1.0, lo_open=True,
                              doc="zeta of Eq. 32 for each wheel of this driven axle: its share of the "
                                  "drive torque; the shares of a unit's driven wheels sum to 1 (null on "
                                  "every driven axle: an equal share)"),
    "wheel_displacement": F("sides", item=WHEEL_DISPLACEMENT, default=None, nullable=True,
                            doc="the manual's user wheel displacement [dx, dy, dz]_Displ (Eq. 15-17, "
                                "58-62), m, vehicle axes (x forward, y right, z down): the wheel "
                                "centre of a damaged or modified vehicle moved from where the axle "
                                "puts it, its suspension and tires with it (dz < 0 raises the wheel "
                                "on the body, which then sits lower there); each component within "
                                f"+-{MAX_WHEEL_DISPLACEMENT:g} m. One [dx, dy, dz] moves both wheels "
                                "alike, {\"left\": [...], \"right\": [...]} each its own (a side "
                                "left out is not moved); null: none. The springs keep the undisplaced "
                                "vehicle's preloads, and the vehicle starts in the static equilibrium "
                                "of the displaced one; a collision's set adds to it"),
    "wheel_damage": F("object", default=_wheel_damage_default, fields=WHEEL_DAMAGE,
                      doc="the wheels' collision mesh and damage thresholds (the manual's DyMESH "
                          "wheel contact and wheel damage, engine.wheel_damage); the thresholds "
                          "default to the unit's vehicle class's (units[].vehicle_class)"),
}

PAYLOAD = {
    "name": F("str"),
    "mass": _pos("kg"),
    "inertia": F("list", item=_nonneg(), min_items=3, max_items=3, doc="Ix, Iy, Iz about its own CG, kg m^2"),
    "position": _point("its CG"),
}

AERO = {
    "name": F("str", choices=AERO_NAMES,
              doc="a surface (front, back, left, right, top, bottom: force along its own axis from "
                  "the wind striking it) or a device (device1, device2: drag and lift)"),
    "drag_coefficient": _num(0.0, MAX_DRAG_COEFFICIENT),
    "area": _num(0.0, LENGTH_RANGE ** 2, doc="m^2"),
    "center_of_pressure": _point("the centre of pressure"),
    "lift_coefficient": _optional(lo=-MAX_LIFT_COEFFICIENT, hi=MAX_LIFT_COEFFICIENT,
                                  doc="device only (default 0): C_L, lift positive up (-z) for wind "
                                      "from ahead, negative for downforce"),
}

REAR = {
    "type": F("str", choices=("fifth_wheel", "pintle")),
    "point": _point("the coupling point"),
    "frame_torsion": F("object", default=lambda: {"stiffness": 0.0, "damping": 0.0},
                       doc="K_Frame of Eq. 127, of this (the tow) unit", fields={
                           "stiffness": _nonneg("N m/rad", default=0.0),
                           "damping": _nonneg("N m s/rad", default=0.0)}),
    "hitch_friction": F("object", default=lambda: {"coefficient": 0.0, "radius": 0.0, "null_band": 0.05},
                        doc="Eq. 128", fields={
                            "coefficient": _num(0.0, MAX_FRICTION, default=0.0),
                            "radius": _num(0.0, LENGTH_RANGE, default=0.0, doc="moment radius, m"),
                            "null_band": _pos("rad/s", default=0.05)}),
    "stiffness": _optional(lo=0.0, lo_open=True, doc="N/m, the joint rate of connection model 'tow'"),
    "damping": _optional(lo=0.0, doc="N s/m, the joint damping of connection model 'tow'"),
    "pitch_stiffness": _nonneg("N m/rad (required > 0 on a fixed dolly)", default=0.0),
    "pitch_damping": _nonneg("N m s/rad", default=0.0),
}

FRONT = {
    "type": F("str", choices=("kingpin", "drawbar"), doc="mates a fifth_wheel / a pintle"),
    "point": _point("the coupling point"),
    "tow": F("str", doc="name of the unit whose rear connection this one mates, listed before this unit"),
    "model": F("str", choices=("heavier", "both", "tow"), default="heavier",
               doc="connection model: Use Heavier Vehicle / Use Both Vehicles / Use Tow Veh Properties"),
    "deflection": _num(MIN_JOINT_DEFLECTION, MAX_JOINT_DEFLECTION, default=0.001,
                       doc="joint deflection under the governing weight, m (K_C = W / deflection)"),
    "drawbar_length": _optional(lo=0.0, lo_open=True, hi=LENGTH_RANGE,
                                doc="a full trailer's drawbar to its turntable (an axle with "
                                    "turntable true): m, from the tow unit's pintle (its "
                                    "connections.rear.point) to the turntable's king pin (this "
                                    "connection's point) in plan view; null: no turntable"),
    "failure_force": _optional(lo=0.0, lo_open=True, doc="N; null: never fails"),
    "failure_start_time": _nonneg("s", default=0.0),
}

_load_row = F("number", lo=0.0)


def _table(kind, doc, **kw):
    """A field of the table form: required with property_model "table" (checked with it),
    else left out or null (as a validated event holds it)."""
    return F(kind, default=None, nullable=True, default_text="required with property_model 'table'",
             doc=doc, **kw)


def _partial(value, unit=""):
    """A property in the partial-derivative form: its value at the reference load and speed
    (``value``: the field of the table's items) and its first derivatives."""
    per = f"{unit} per" if unit else "per"
    return F("object", default=None, nullable=True,
             default_text="derived from the table",
             doc="value + per_load (F_z - reference_load) + per_speed (speed - reference_speed); "
                 "null: derived from the tire's table at the reference load and speed (its "
                 "interpolated value and slopes there)",
             fields={"value": F(value.kind, lo=value.lo, hi=value.hi, lo_open=value.lo_open,
                                hi_open=value.hi_open,
                                doc="at the reference load and speed" + (f", {unit}" if unit else "")),
                     "per_load": _num(default=0.0, doc=f"derivative in load, {per} N"),
                     "per_speed": _num(default=0.0, doc=f"derivative in speed, {per} m/s")})


_friction = _num(0.0, MAX_FRICTION, lo_open=True)
_slip_at_peak = F("number", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
PARTIAL_DERIVATIVES = {
    "reference_load": _pos("F_z0, the load at which the values are given, N"),
    "reference_speed": _nonneg("V_0, the speed at which the values are given, m/s"),
    "peak_friction": _partial(_friction),
    "slide_friction": _partial(_friction),
    "slip_at_peak": _partial(_slip_at_peak),
    "cornering_stiffness": _partial(_nonneg(), "N/rad"),
    "camber_stiffness": _partial(_nonneg(), "N/rad"),
}

TIRE = {
    "unloaded_radius": _num(0.0, LENGTH_RANGE, lo_open=True, doc="m"),
    "radial_stiffness": _pos("initial radial stiffness K_T, N/m"),
    "secondary_stiffness_multiplier": _pos("K_T bar of Eq. 93"),
    "secondary_stiffness_deflection": _pos("delta_2 of Eq. 93, m"),
    "rebound_multiplier": _num(0.0, 1.0, lo_open=True, doc="lambda of Eq. 93"),
    "max_deflection": _optional(lo=0.0, lo_open=True,
                                doc="m; the deflection past which the tire is beyond its model (the "
                                    "rim meets the road); null: section_height, as the manual sets it"),
    "section_height": _optional(lo=0.0, lo_open=True,
                                doc="the tire's section height, m (unloaded radius less the rim "
                                    "flange's): the default of max_deflection"),
    "spin_inertia": _pos("tire + rim spin inertia, kg m^2"),
    "rolling_resistance": F("object", fields={
        "sigma0": _nonneg("load coefficient"),
        "sigma_v": _nonneg("velocity coefficient, N s/m"),
    }),
    "property_model": F("str", choices=PROPERTY_MODELS, default="table",
                        doc="how the properties below depend on load and speed: table, linear "
                            "interpolation in the tables over test_loads and test_speeds (the "
                            "manual's SIMON); partial_derivatives, each property a value at a "
                            "reference load and speed with its first derivatives (the HSRI and "
                            "EDVDS form, the field partial_derivatives). The manual does not map "
                            "either to HVE's tire model versions Vers 1, 2, 3"),
    "test_loads": _table("list", item=_pos(), min_items=1, max_items=MAX_TIRE_TESTS, doc="N, increasing"),
    "test_speeds": _table("list", item=_nonneg(), min_items=1, max_items=MAX_TIRE_TESTS,
                          doc="m/s, increasing"),
    "peak_friction": _table("grid", item=_friction, doc="[load][speed]"),
    "slide_friction": _table("grid", item=_friction, doc="[load][speed]"),
    "slip_at_peak": _table("grid", item=_slip_at_peak, doc="[load][speed]"),
    "cornering_stiffness": _table("grid", item=_nonneg(), doc="[load][speed], N/rad"),
    "camber_stiffness": _table("grid", item=_nonneg(), doc="[load][speed], N/rad"),
    "partial_derivatives": F("object", default=None, nullable=True, fields=PARTIAL_DERIVATIVES,
                             default_text="required with property_model 'partial_derivatives'",
                             doc="the properties by partial derivatives (property_model "
                                 "partial_derivatives; refused with 'table'): each clamped to its "
                                 "physical limits, not to a range of loads and speeds"),
    "relaxation_length": F("object", default=lambda: {"longitudinal": 0.2, "lateral": 0.4}, fields={
        "longitudinal": _pos("m"),
        "lateral": _pos("m"),
    }),
    "skid_flag": F("object", default=lambda: {"min_load": 50.0, "adhesion_fraction": 0.1}, fields={
        "min_load": _nonneg("F_z,min of Eq. 113, N"),
        "adhesion_fraction": _num(0.0, 1.0, doc="tau of Eq. 113"),
    }),
    "inflation_pressure": _optional(lo=0.0, hi=MAX_INFLATION_PRESSURE, lo_open=True,
                                    doc="inflation pressure (gauge), Pa; required when "
                                        "simulation.hydroplaning is not 'off'"),
    "tread_depth": _optional(lo=0.0, hi=MAX_TREAD_DEPTH,
                             doc="tread depth, m; required when simulation.hydroplaning is not 'off'"),
    "width": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True,
                       doc="tread width, m (the footprint's width, the width that pushes water "
                           "aside); required when simulation.hydroplaning is not 'off'"),
}

STEERING = {
    "gear_ratio": _pos("steering-wheel angle : road-wheel angle, of every steered axle that gives "
                       "no steering_gear_ratio of its own"),
    "input": F("str", choices=STEER_INPUTS, default="at_steering_wheel",
               doc="the manual's steer table option: at_steering_wheel: the input "
                   "steeringWheelAngle over each steered axle's gear ratio; at_axle: the inputs "
                   "<unit>.axle<k>.<side>.steerAngle, each steered wheel's road-wheel angle (needs "
                   "mode 'off')"),
    "mode": F("str", choices=STEERING_MODES, default="off",
              doc="steer degree of freedom (Eq. 33-39): off: rigid, the road wheels follow the "
                  "steering-wheel input; normal: hands off; append: the driver's angle plus the "
                  "steer DOF about it; autostart: rigid until the unit's first collision contact "
                  "(or simulation.steer_dof_start_time, if given and earlier), then hands off; torque: the input steeringWheelTorque drives it. Other than "
                  "'off' it needs " + ", ".join(STEERING_DOF_FIELDS)),
    "stop_left": _optional(lo=0.0, hi=MAX_STEER_STOP, lo_open=True,
                           doc="steering stop of each steered wheel for a steer to the left, rad at "
                               "the road wheel (null: none); the road-wheel angle never passes it"),
    "stop_right": _optional(lo=0.0, hi=MAX_STEER_STOP, lo_open=True,
                            doc="steering stop of each steered wheel for a steer to the right, rad"),
    "stop_stiffness": _optional(lo=0.0, lo_open=True, doc="K_Stop of Eq. 35, N m/rad"),
    "steer_inertia": _optional(lo=0.0, doc="rotational inertia of each steered wheel about its steer "
                                           "axis (tire, rim, brake; Eq. 39), kg m^2"),
    "column_inertia": _optional(lo=0.0, doc="rotational inertia of the steering column and gearbox at "
                                            "the steering wheel (Eq. 39), kg m^2"),
    "steer_axis_friction": _nonneg("coulomb friction torque about each steered wheel's steer axis "
                                   "(Eq. 36), N m", default=0.0),
    "column_friction": _nonneg("coulomb friction torque of the steering column (Eq. 37), N m",
                               default=0.0),
    "null_band": _optional(lo=0.0, lo_open=True,
                           doc="friction null band epsilon (Eq. 36-37), rad/s: on the road-wheel rate "
                               "for the steer axes, on the column's rate for the column"),
    "mechanical_trail": _num(-MAX_TRAIL, MAX_TRAIL, default=0.0,
                             doc="T_M of Eq. 38, m (the manual assumes 0)"),
}

#: the default crush stiffness B per unit width of a midsize car's front, side and rear,
#: N/m^2 (engine/data/vehicle_classes.json, with their sources; docs/equations.md,
#: "Collisions": representative of the class values published for the CRASH3 damage
#: algorithm); a unit of another class takes its class's
DEFAULT_CRUSH_B = dict(class_defaults(LIGHT_CLASS)["crush_stiffness"])
#: the default restitution of a car's exterior (engine/data/vehicle_classes.json)
DEFAULT_RESTITUTION = class_defaults(LIGHT_CLASS)["restitution"]

COLLISION = {
    "enabled": F("bool", default=True, doc="false: the unit has no exterior mesh (nothing it "
                                           "touches pushes back on its body)"),
    "crush_stiffness": F("object", default=None, nullable=True, default_text=CLASS_DEFAULT,
                         doc="the B crush coefficients (force per unit width per crush, N/m^2) of "
                             "the front, the sides (also the roof and the underbody) and the rear; "
                             "null or left out: the unit's vehicle class's (" + _class_text("crush_stiffness")
                             + "; engine/data/vehicle_classes.json)",
                         fields={k: _pos("N/m^2") for k in DEFAULT_CRUSH_B}),
    "crush_a": F("object", default=None, nullable=True, default_text="0 on every face",
                 doc="the CRASH3 A crush coefficients (force per unit width at zero crush, N/m) "
                     "of the front, the sides (also the roof and the underbody) and the rear, "
                     "with crush_stiffness their B: F/w = A + B C. A face's approach up to A/B "
                     "is not crush, so collision.maxCrush and residualCrush report the crush C; "
                     "null or left out: 0 on every face (all of an approach is crush)",
                 fields={k: _nonneg("N/m", default=0.0) for k in DEFAULT_CRUSH_B}),
    "restitution": _by_class("e: the unloading path returns e^2 of the work of loading and leaves the "
                             "permanent crush (1 - e^2) of the largest approach", "restitution",
                             lo=0.05, hi=1.0),
    "damping_ratio": _num(0.0, 1.0, default=0.1,
                          doc="viscous damping ratio of the elastic (unloading and reloading) branch, of "
                              "the unit's mass on its front face's unloading stiffness"),
    "friction": _num(0.0, MAX_FRICTION, default=0.4,
                     doc="Coulomb friction coefficient of the body on the road (times the road's "
                         "friction multipliers) and on barriers"),
    "height": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True,
                        doc="height of the mesh's roof above ground, m; default dimensions.height, "
                            "else twice the CG height"),
    "ground_clearance": _optional(lo=0.0, hi=LENGTH_RANGE,
                                  doc="height of the mesh's underbody above ground, m; default half "
                                      "the smallest unloaded tire radius of the unit"),
    "mesh_vertices": F("int", lo=26, hi=5000, default=300,
                       doc="about how many vertices the generated box mesh has"),
    "cab_length": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True,
                            doc="length of the unit's cab, m back from the front of its box: a unit "
                                "it tows meets the cab (a jackknife stops at it; the rest of the box "
                                "is under the towed unit); null: it does not meet the units it tows"),
    "mesh_file": _optional("str", doc="an OBJ file of the unit's exterior, relative to the event file's "
                                      "folder, in place of the generated box: vehicle-fixed metres from "
                                      "the CG (without payloads), SAE axes (x forward, y right, z down); "
                                      "its vertices are the contact vertices, each carrying the crush "
                                      "stiffness of a third of its triangles' areas, and its triangles "
                                      "are the surface other units' vertices meet (engine.collision)"),
}


def _collision_default():
    return check_object(COLLISION, {}, "", [])


UNIT = {
    "name": F("str", doc=f"unit name, used as the FMU variable prefix: 1..{MAX_UNIT_NAME} ASCII letters, "
                         "digits and '_', starting with a letter"),
    "vehicle_class": _optional("str", choices=VEHICLE_CLASSES, default_text="(inferred)",
                               doc="the class whose defaults the unit's crush stiffness, restitution and "
                                   "wheel-damage thresholds take (engine/data/vehicle_classes.json, each "
                                   "value with its source); null or left out: its lead unit's, else "
                                   "inferred from the mass of its vehicle (the lead unit and the units "
                                   "it tows): "
                                   f"'{LIGHT_CLASS}' up to {LIGHT_VEHICLE_MASS:g} kg, '{HEAVY_CLASS}' above"),
    "sprung_mass": F("object", fields={
        "mass": _pos(f"kg; at least {MIN_SPRUNG_MASS_PER_TIRE:g} kg per tire of the unit (a plausibility "
                     "check: a mass in tonnes is refused)"),
        "inertia": F("list", item=_pos(), min_items=3, max_items=3, doc="Ix, Iy, Iz about the CG, kg m^2"),
        "Ixz": _num(doc="kg m^2"),
        "cg_height": _num(0.0, LENGTH_RANGE, lo_open=True, doc="CG height above ground at static equilibrium, m"),
    }),
    "dimensions": F("object", fields={
        "length": _pos("m"), "width": _pos("m"),
        "height": _optional(lo=0.0, hi=LENGTH_RANGE, lo_open=True, doc="overall height, m"),
        "front_x": _optional(lo=-LENGTH_RANGE, hi=LENGTH_RANGE,
                             doc="x of the unit's front end from the sprung-mass CG, m"),
    }),
    "axles": F("list", item=F("object", fields=AXLE), min_items=1, max_items=MAX_AXLES_FULL_TRAILER),
    "full_trailer": F("bool", default=False),
    "tires": F("object", fields=None),  # checked separately: a mapping of name -> TIRE
    "steering": F("object", default=None, nullable=True, doc="required on a lead unit, refused on a towed unit",
                  fields=STEERING),
    "brakes": F("object", fields={
        "pedal_ratio": _optional(lo=0.0, doc="Pa/N; required on a lead unit, refused on a towed unit "
                                             "(it follows the lead unit's pedal)"),
        "proportioning_start": _nonneg("Pa", default=0.0),
        "proportioning_ratio": _num(0.0, 1.0, default=1.0, doc="1: none"),
        "pushout_pressure": _nonneg("Pa"),
        "pressure_time_constant": _nonneg("s: the wheel-cylinder pressure lags the pedal by this time "
                                          "constant (first order); 0: at once", default=0.0),
        "method": F("str", choices=BRAKE_METHODS, default="pedal",
                    doc="brake table option (Eq. 47-49): 'pedal' the pedal force and the brake system; "
                        "'force' the wheel inputs brakeForce (N at the ground), 'friction' brakeFriction "
                        "(fraction 0..1 of the tire's available friction); with a table the wheel spin "
                        "is quasi-static (docs/equations.md)"),
    }),
    "drivetrain": F("object", default=None, nullable=True, doc="required on a lead unit, refused on a towed unit",
                    fields={
        "method": F("str", choices=DRIVE_METHODS, default="engine",
                    doc="throttle table option (Eq. 50-52): 'engine' the throttle and the engine model "
                        "(% WOT); 'force' the wheel inputs driveForce (tractive effort, N at the ground), "
                        "'friction' driveFriction (fraction 0..1 of the available friction); a table "
                        "disconnects the engine from the wheels; brakes.method and drivetrain.method "
                        "are both tables or neither"),
        "engine_wot_torque": F("table", doc="[engine speed rpm, torque N m]"),
        "engine_closed_throttle_torque": F("table", item=F("number", hi=0.0),
                                           doc="[engine speed rpm, torque N m <= 0]"),
        "transmission_ratios": F("list", item=_pos(), min_items=1, max_items=MAX_GEARS, doc="gears 1..n"),
        "reverse_ratio": _pos("numerical ratio of reverse gear"),
        "differential_ratio": _optional(lo=0.0, lo_open=True,
                                        doc="numerical ratio of the differential (a single-speed axle); "
                                            "this or differential_ratios"),
        "differential_ratios": F("list", item=_pos(), min_items=1, max_items=MAX_DIFF_GEARS, default=None,
                                 nullable=True,
                                 doc="the differential gear table (a two-speed axle: two ratios): the "
                                     "ratios the FMU input differentialGear selects, 1..n in the order "
                                     "given; this or differential_ratio"),
        "inertia": _nonneg("engine + transmission + driveline, at engine speed, kg m^2; with an "
                           "idle_speed, the engine side of the clutch, > 0"),
        "idle_speed": _optional(lo=0.0, lo_open=True, hi=MAX_ENGINE_RPM,
                                doc="engine idle speed, rpm; with it the engine has its own speed, an "
                                    "idle governor and a clutch (idle_governor and clutch are then "
                                    "required); null: the engine speed follows the wheels (Eq. 50)"),
        "idle_governor": F("object", default=None, nullable=True,
                           doc="the idle governor (proportional-integral on the engine speed)", fields={
            "gain": _pos("throttle fraction per relative speed error below idle, 1"),
            "integral_time": _pos("s"),
        }),
        "clutch": F("object", default=None, nullable=True,
                    doc="automatic launch clutch: closes once locked with the transmission input at "
                        "or above idle; launching, its capacity rises with engine speed", fields={
            "capacity": _pos("torque it carries fully engaged, N m"),
            "engagement_start": _nonneg("launching: engine speed where it starts to carry torque, rpm"),
            "full_engagement": _pos("launching: engine speed from which it carries its full capacity, rpm"),
            "actuation_time": _pos("time constant with which it closes once locked above idle, and "
                                   "opens below, s"),
        }),
    }),
    "aerodynamics": F("list", default=list, item=F("object", fields=AERO),
                      doc="the surfaces and devices of Eq. 140, each name at most once"),
    "initial": F("object", default=None, nullable=True,
                 doc="lead units only (default all 0); a towed unit is placed by its connection", fields={
        "X": _num(*INITIAL_LIMITS["X"], default=0.0, doc="earth X of the CG, m"),
        "Y": _num(*INITIAL_LIMITS["Y"], default=0.0, doc="earth Y of the CG, m"),
        "yaw": _num(*INITIAL_LIMITS["yaw"], default=0.0, doc="yaw angle, rad"),
        "speed": _num(*INITIAL_LIMITS["speed"], default=0.0,
                      doc=f"initial forward speed, m/s; a warning above {PLAUSIBLE_SPEED_LIGHT:g} m/s "
                          f"({PLAUSIBLE_SPEED_LIGHT * 3.6:g} km/h) for a vehicle of one unit of up to "
                          f"{LIGHT_VEHICLE_MASS:g} kg, {PLAUSIBLE_SPEED_HEAVY:g} m/s "
                          f"({PLAUSIBLE_SPEED_HEAVY * 3.6:g} km/h) for a heavier one or a "
                          f"combination (a speed in km/h?)"),
        "roll": _num(*INITIAL_LIMITS["roll"], default=0.0,
                     doc="roll angle, rad (right side down +); a launch: the body turned about its "
                         "CG and set on its lowest point (engine.setup.launch); flat ground, a "
                         "vehicle of one unit"),
        "pitch": _num(*INITIAL_LIMITS["pitch"], default=0.0, doc="pitch angle, rad (nose up +); as roll"),
        "v": _num(*INITIAL_LIMITS["v"], default=0.0, doc="lateral velocity, m/s (vehicle y, right +); 0 for a vehicle that tows"),
        "w": _num(*INITIAL_LIMITS["w"], default=0.0, doc="vertical velocity, m/s (vehicle z, down +); 0 for a vehicle that tows"),
        "p": _num(*INITIAL_LIMITS["p"], default=0.0, doc="roll rate, rad/s; 0 for a vehicle that tows"),
        "q": _num(*INITIAL_LIMITS["q"], default=0.0, doc="pitch rate, rad/s; 0 for a vehicle that tows"),
        "r": _num(*INITIAL_LIMITS["r"], default=0.0, doc="yaw rate, rad/s; 0 for a vehicle that tows"),
    }),
    "payloads": F("list", default=list, item=F("object", fields=PAYLOAD), doc="masses carried (Eq. 40-46)"),
    "occupants": F("list", default=list, item=F("object", fields=PAYLOAD), doc="as payloads"),
    "dolly": _optional("str", choices=("converter", "fixed"),
                       doc="converter: the fifth wheel pitches, the drawbar is rigid; fixed: the fifth "
                           "wheel is pitch-rigid (connections.rear.pitch_stiffness), the drawbar hinged"),
    "collision": F("object", default=_collision_default, fields=COLLISION,
                   doc="the exterior mesh and crush properties (engine.collision); its box spans "
                       "dimensions.length from front_x (default: equal overhangs) and "
                       "dimensions.width"),
    "connections": F("object", default=lambda: {"front": None, "rear": None},
                     doc="a unit with a front connection is towed, one without is a lead unit", fields={
                         "front": F("object", default=None, nullable=True, fields=FRONT),
                         "rear": F("object", default=None, nullable=True, fields=REAR)}),
}

MATERIAL = {
    "friction_multiplier": _num(0.0, MAX_FRICTION, doc="multiplies the tire's friction on this material"),
    "water_depth": _num(0.0, MAX_WATER_DEPTH, doc="depth of the water on it, m"),
    "texture_depth": _optional(lo=0.0, hi=MAX_TEXTURE_DEPTH,
                               doc="mean texture depth of the surface, m; required by "
                                   "simulation.hydroplaning 'gallaway'"),
}

TERRAIN = {
    "type": F("str", choices=TERRAIN_TYPES, default="flat",
              doc="flat: level ground at ground_elevation; mesh: a Wavefront OBJ polygon database; "
                  "crg: an ASAM OpenCRG road surface; "
                  "external: the road under each wheel from its inputs roadZ, roadGradeX, roadGradeY"),
    "file": _optional("str", doc="mesh and crg (required): the OBJ or OpenCRG file, relative to the event "
                                 "file's folder (an event given as a dict: to the current folder, or "
                                 "load_event's base); the validated data holds its absolute path"),
    "z_up": _optional("bool", doc="mesh: true when the file's Z axis points up (default false: its "
                                  "coordinates are earth X, Y, Z, Z down)"),
    "materials": F("map", item=F("object", fields=MATERIAL), default=None, nullable=True,
                   doc="mesh: the materials its usemtl names select (default none: a polygon without "
                       "usemtl has friction multiplier 1 and is dry)"),
    "origin": _optional("vector3", doc="crg: earth X, Y, Z (m, Z down) of the start of the file's "
                                       "reference line (its first u, v = 0, at the file's elevation 0); "
                                       "default [0, 0, 0]",
                        extra_check=lambda v: None if max(map(abs, v)) <= MAX_ELEVATION else
                        f"a point within +-{MAX_ELEVATION:g} m (got {v})"),
    "heading": _optional(lo=-10.0, hi=10.0,
                         doc="crg: the earth yaw of the reference line's start direction, rad (from X "
                             "towards Y); default 0"),
    "friction_multiplier": _optional(lo=0.0, hi=MAX_FRICTION,
                                     doc="crg: multiplies the tire's friction on the road; default 1"),
    "water_depth": _optional(lo=0.0, hi=MAX_WATER_DEPTH, doc="crg: depth of the water on the road, m; "
                                                            "default 0"),
    "texture_depth": _optional(lo=0.0, hi=MAX_TEXTURE_DEPTH,
                               doc="crg: mean texture depth of the road, m; required by "
                                   "simulation.hydroplaning 'gallaway'"),
}

MAX_BARRIERS = 64


def _unit_normal(v):
    """Any finite direction of length > 0 (its largest component non-zero: the length itself
    may overflow, 1e308 in each, or underflow; engine.setup.collision.unit_vector scales first)."""
    return None if max(map(abs, v)) > 0.0 else f"a normal of length > 0 (got {v})"


BARRIER = {
    "point": F("vector3", doc="a point of the barrier's face, earth X, Y, Z, m (Z down)",
               extra_check=lambda v: None if max(map(abs, v)) <= MAX_ELEVATION else
               f"a point within +-{MAX_ELEVATION:g} m (got {v})"),
    "normal": F("vector3", doc="the face's normal, pointing out of the barrier (towards the free "
                               "side); any length > 0", extra_check=_unit_normal),
}

#: a fixed object of the environment given as a mesh (engine.collision, object pairs)
OBJECT = {
    "mesh_file": F("str", doc="an OBJ file of the object, relative to the event file's folder: "
                              "earth X, Y, Z, m (Z down), a closed surface (a pole, a guardrail "
                              "segment); the units' and their wheels' vertices meet its triangles"),
    "stiffness": _optional(lo=0.0, lo_open=True,
                           doc="the object's stiffness per unit area of its surface, N/m^3, in "
                               "series with the vertices' (a unit's face's B over its height is "
                               "one); null: rigid"),
}

EVENT = {
    "name": F("str", default="event"),
    "description": _optional("str", doc="free text: the event's sources and choices"),
    "environment": F("object", fields={
        "gravity": _pos("m/s^2"),
        "air_pressure": _num(0.0, MAX_AIR_PRESSURE, lo_open=True, doc="Pa"),
        "air_temperature": _num(MIN_AIR_TEMPERATURE, MAX_AIR_TEMPERATURE, doc="K"),
        "friction_multiplier": _nonneg(default=1.0),
        "ground_elevation": _num(-MAX_ELEVATION, MAX_ELEVATION, default=0.0,
                                 doc="earth Z of the flat ground, m (down +)"),
        "terrain": F("object", fields=TERRAIN, doc="the road under the tires",
                     default=lambda: {"type": "flat", **dict.fromkeys(k for k in TERRAIN if k != "type")}),
        "barriers": F("list", default=list, max_items=MAX_BARRIERS, item=F("object", fields=BARRIER),
                      doc="rigid walls: the half-space behind each plane is solid"),
        "objects": F("list", default=list, max_items=MAX_BARRIERS, item=F("object", fields=OBJECT),
                     doc="fixed objects given as meshes (poles, guardrail segments)"),
    }),
    "simulation": F("object", default=lambda: {"step_size": 0.001, "integrator": "rk4",
                                               "substeps": 1,
                                               "hydroplaning": "off",
                                               "tire_limit": "wheel",
                                               "steer_dof_start_time": None,
                                               "collisions": {"vehicle_start_time": 0.0,
                                                              "environment_start_time": 0.0}}, fields={
        "step_size": _num(MIN_STEP_SIZE, MAX_STEP_SIZE, default=0.001,
                          doc="internal fixed step, s (at most "
                              + ", ".join(f"{h:g} for {m!r}" for m, h in MAX_STEP_SIZES.items())
                              + ": simulation.integrator)"),
        "integrator": F("str", choices=INTEGRATORS, default="rk4",
                        doc="the integration method: 'rk4', the classical 4th-order Runge-Kutta "
                            "method (four evaluations of the model a step); 'rk2', Heun's "
                            "method (2nd order, two a step: about half the time a step, its "
                            "error growing as the step squared; docs/equations.md, \"The "
                            "integration method\"); the start of the FMU parameter integrator, "
                            "which a host may set at initialisation"),
        "substeps": F("int", lo=1, hi=MAX_SUBSTEPS, default=1,
                      doc="the most sub-steps a step is split into where a mode has turned "
                          "stiffer than the step resolves, beyond the margin of the method's "
                          "largest step (a wheel's spin or an axle on its stop in an impact or "
                          "a kerb strike); 1 (the default) never splits; each step estimates "
                          "its stiffest mode from its own stages at no extra evaluation "
                          "(docs/equations.md, \"Sub-steps in severe events\"); the start of "
                          "the FMU parameter substeps"),
        "tire_limit": F("str", choices=TIRE_LIMITS, default="wheel",
                        doc="a tire beyond its range (deflected past max_deflection, or its wheel "
                            "plane near the road's): 'wheel': the tread's forces fade and the "
                            "wheel's rim and sidewall meet the road, the run goes on; 'stop': the "
                            "manual's, the run stops at max_deflection (docs/equations.md, "
                            "\"Beyond the tire's range\")"),
        "hydroplaning": F("str", choices=HYDROPLANING_MODELS, default="off",
                          doc="the hydroplaning model on wet roads (engine.hydroplaning); other than "
                              "'off' every tire needs " + " and ".join(HYDROPLANING_TIRE_FIELDS)),
        "steer_dof_start_time": _optional(lo=0.0,
                                          doc="time from the start at which the steering mode "
                                              "'autostart' frees the steering, s, unless the unit's "
                                              "first collision contact comes first; null: at that "
                                              "contact only"),
        "collisions": F("object", default=lambda: {"vehicle_start_time": 0.0, "environment_start_time": 0.0},
                        fields={
            "vehicle_start_time": _nonneg("time from which vehicles collide with each other, s",
                                          default=0.0),
            "environment_start_time": _nonneg("time from which the units' bodies meet the road and the "
                                              "barriers, s", default=0.0),
        }),
    }),
    "units": F("list", item=F("object", fields=UNIT), min_items=1, max_items=MAX_UNITS),
}
