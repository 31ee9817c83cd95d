"""Event files: the vehicles, their components, initial conditions and environment.

An event is a JSON document in SI units (see ``docs/event-format.md``). :func:`load_event`
parses and validates it completely; every missing, mistyped or out-of-range field is reported
in one :class:`EventError` whose ``problems`` list names each field and what it accepts.
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
from dataclasses import dataclass
from typing import List, Optional

from .aerodynamics import AERO_NAMES, DEVICES
from .collision_setup import read_exterior
from .layout import MAX_GEARS, MAX_TIRE_TESTS
from .equilibrium import static_equilibrium_problems, static_state
from .errors import EventError  # noqa: F401  (engine.event.EventError, as before)
from .schema import Field as F, check_object, shown
from .steering import MODES as STEERING_MODES
from .terrain_mesh import MAX_COORDINATE

DEFAULT_EVENT = os.path.join(os.path.dirname(__file__), "data", "sedan.json")
#: the reference tractor-semitrailer (units ``tractor``, ``trailer``)
TRACTOR_SEMITRAILER_EVENT = os.path.join(os.path.dirname(__file__), "data", "tractor-semitrailer.json")
#: the reference double: ``tractor``, ``trailer1``, converter ``dolly``, ``trailer2``
DOUBLE_EVENT = os.path.join(os.path.dirname(__file__), "data", "double.json")
#: the double with a fixed dolly in place of the converter dolly
DOUBLE_FIXED_DOLLY_EVENT = os.path.join(os.path.dirname(__file__), "data", "double-fixed-dolly.json")
#: two vehicles: the reference sedan twice (units ``car``, ``car2``), on crossing paths
TWO_CARS_EVENT = os.path.join(os.path.dirname(__file__), "data", "two-cars.json")
#: two vehicles: the sedan (``car``) and the tractor-semitrailer (``tractor``, ``trailer``)
CAR_AND_SEMITRAILER_EVENT = os.path.join(os.path.dirname(__file__), "data", "car-and-semitrailer.json")
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
#: MAX_STEP_SIZE the 4th-order Runge-Kutta step leaves its stability interval (z >= -2.785)
#: for a sliding tire's carcass deflection, whose shortest time constant is
#: engine.tire.TAU_MIN = 1 ms (2 ms = 0.72 x 2.785 ms; engine.stability checks each
#: vehicle's own modes at its initial state on top of this)
MIN_STEP_SIZE, MAX_STEP_SIZE = 1e-6, 0.002
# The range of the engine's arithmetic, wide beyond any road vehicle: within it products of
# forces and lever arms stay finite and positions resolve the tire deflection (m, m, K, Pa)
LENGTH_RANGE = 100.0       # a dimension, axle position, tire radius or CG height
MAX_ELEVATION = MAX_COORDINATE
#: the initial conditions of a lead unit (FMU parameters <unit>.X0, Y0, yaw0, speed0): a
#: position within +-MAX_ELEVATION keeps doubles 1.5e-11 m apart (docs/event-format.md: a
#: step's displacement keeps its precision), a yaw angle within one turn either way
INITIAL_LIMITS = {"X": (-MAX_ELEVATION, MAX_ELEVATION), "Y": (-MAX_ELEVATION, MAX_ELEVATION),
                  "yaw": (-2.0 * math.pi, 2.0 * math.pi), "speed": (-100.0, 100.0)}
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

#: the default damage thresholds of a wheel (docs/equations.md, "Wheel meshes and wheel damage":
#: chosen, of the order of the lateral and longitudinal loads at which a car's wheel and
#: suspension take a permanent set in kerb-strike and small-overlap tests)
DEFAULT_WHEEL_DAMAGE = {"max_no_damage_force": 2.0e4, "max_no_damage_moment": 5.0e3,
                        "deformation_rate": 5.0e-6, "max_force": 1.0e5, "max_moment": 2.5e4}

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
    "max_no_damage_force": _nonneg("the largest collision force (vehicle x-y) on the wheel's mesh that "
                                   "leaves no permanent set, N", DEFAULT_WHEEL_DAMAGE["max_no_damage_force"]),
    "max_no_damage_moment": _nonneg("the largest collision moment (about the vehicle z and x axes) on the "
                                    "wheel that leaves no permanent turn, N m",
                                    DEFAULT_WHEEL_DAMAGE["max_no_damage_moment"]),
    "deformation_rate": _num(0.0, MAX_DEFORMATION_RATE, default=DEFAULT_WHEEL_DAMAGE["deformation_rate"],
                             doc="the permanent set per newton of force beyond max_no_damage_force, m/N "
                                 "(the turn: per N m beyond max_no_damage_moment, over the radius "
                                 "squared); at most 1, a mount that gives way at once"),
    "max_force": _pos("the force beyond which the set grows no more, N; above max_no_damage_force",
                      DEFAULT_WHEEL_DAMAGE["max_force"]),
    "max_moment": _pos("the moment beyond which the turn grows no more, N m; above max_no_damage_moment",
                       DEFAULT_WHEEL_DAMAGE["max_moment"]),
}


def _wheel_damage_default():
    return check_object(WHEEL_DAMAGE, {}, "", [])


AXLE = {
    "x": _num(-LENGTH_RANGE, LENGTH_RANGE, doc="axle x-coordinate from the sprung-mass CG, m (forward +)"),
    "track": _num(0.0, LENGTH_RANGE, lo_open=True, doc="m"),
    "unsprung_mass_per_wheel": _pos("kg"),
    "suspension": F("object", fields=SUSPENSION),
    "tire": F("str", doc="name of an entry of the unit's tires"),
    "dual": F("bool", default=False),
    "dual_spacing": _nonneg("centre distance of dual tires, m", default=0.0),
    "steered": F("bool"),
    "driven": F("bool"),
    "brake_torque_ratio": _optional(lo=0.0, doc="N m/Pa, the generic brake (Eq. 47); null with a "
                                               "brake_design"),
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
    "wheel_damage": F("object", default=_wheel_damage_default, fields=WHEEL_DAMAGE,
                      doc="the wheels' collision mesh and damage thresholds (the manual's DyMESH "
                          "wheel contact and wheel damage, engine.wheel_damage); defaults: "
                          + ", ".join(f"{k} {v:.3g}" for k, v in DEFAULT_WHEEL_DAMAGE.items())),
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
    "failure_force": _optional(lo=0.0, lo_open=True, doc="N; null: never fails"),
    "failure_start_time": _nonneg("s", default=0.0),
}

_load_row = F("number", lo=0.0)
TIRE = {
    "unloaded_radius": _num(0.0, LENGTH_RANGE, lo_open=True, doc="m"),
    "radial_stiffness": _pos("initial radial stiffness K_T, N/m"),
    "secondary_stiffness_multiplier": _pos("K_T bar of Eq. 93"),
    "secondary_stiffness_deflection": _pos("delta_2 of Eq. 93, m"),
    "rebound_multiplier": _num(0.0, 1.0, lo_open=True, doc="lambda of Eq. 93"),
    "max_deflection": _pos("m"),
    "spin_inertia": _pos("tire + rim spin inertia, kg m^2"),
    "rolling_resistance": F("object", fields={
        "sigma0": _nonneg("load coefficient"),
        "sigma_v": _nonneg("velocity coefficient, N s/m"),
    }),
    "test_loads": F("list", item=_pos(), min_items=1, max_items=MAX_TIRE_TESTS, doc="N, increasing"),
    "test_speeds": F("list", item=_nonneg(), min_items=1, max_items=MAX_TIRE_TESTS,
                     doc="m/s, increasing"),
    "peak_friction": F("grid", item=_num(0.0, MAX_FRICTION, lo_open=True), doc="[load][speed]"),
    "slide_friction": F("grid", item=_num(0.0, MAX_FRICTION, lo_open=True), doc="[load][speed]"),
    "slip_at_peak": F("grid", item=F("number", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
                      doc="[load][speed]"),
    "cornering_stiffness": F("grid", item=_nonneg(), doc="[load][speed], N/rad"),
    "camber_stiffness": F("grid", item=_nonneg(), doc="[load][speed], N/rad"),
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
    "gear_ratio": _pos("steering-wheel angle : road-wheel angle"),
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
#: N/m^2 (docs/equations.md, "Collisions": representative of the class values published for
#: the CRASH3 damage algorithm, NHTSA's CRASH3 User's Guide and Technical Manual (1986),
#: Prasad SAE 900098 and 910121, Siddall and Day SAE 960897)
DEFAULT_CRUSH_B = {"front": 1.0e6, "side": 3.5e5, "rear": 6.0e5}

COLLISION = {
    "enabled": F("bool", default=True, doc="false: the unit has no exterior mesh (nothing it "
                                           "touches pushes back on its body)"),
    "crush_stiffness": F("object", default=lambda: dict(DEFAULT_CRUSH_B),
                         doc="the B crush coefficients (force per unit width per crush, N/m^2) of "
                             "the front, the sides (also the roof and the underbody) and the rear; "
                             "defaults " + ", ".join(f"{k} {v:.3g}" for k, v in DEFAULT_CRUSH_B.items()),
                         fields={k: _pos("N/m^2") for k in DEFAULT_CRUSH_B}),
    "restitution": _num(0.05, 1.0, default=0.15,
                        doc="e: the unloading path returns e^2 of the work of loading and leaves the "
                            "permanent crush (1 - e^2) of the largest approach"),
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
                                      "stiffness of a third of its triangles' areas, and its bounding box "
                                      "is the surface other units meet (engine.collision)"),
}


def _collision_default():
    return check_object(COLLISION, {}, "", [])


UNIT = {
    "name": F("str", doc=f"unit name, used as the FMU variable prefix: 1..{MAX_UNIT_NAME} ASCII letters, "
                         "digits and '_', starting with a letter"),
    "sprung_mass": F("object", fields={
        "mass": _pos("kg"),
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
        "differential_ratio": _pos(),
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
        "speed": _num(*INITIAL_LIMITS["speed"], default=0.0, doc="initial forward speed, m/s"),
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
    may overflow, 1e308 in each, or underflow; engine.collision_setup.unit_vector scales first)."""
    return None if max(map(abs, v)) > 0.0 else f"a normal of length > 0 (got {v})"


BARRIER = {
    "point": F("vector3", doc="a point of the barrier's face, earth X, Y, Z, m (Z down)",
               extra_check=lambda v: None if max(map(abs, v)) <= MAX_ELEVATION else
               f"a point within +-{MAX_ELEVATION:g} m (got {v})"),
    "normal": F("vector3", doc="the face's normal, pointing out of the barrier (towards the free "
                               "side); any length > 0", extra_check=_unit_normal),
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
    }),
    "simulation": F("object", default=lambda: {"step_size": 0.001, "hydroplaning": "off",
                                               "steer_dof_start_time": None,
                                               "collisions": {"vehicle_start_time": 0.0,
                                                              "environment_start_time": 0.0}}, fields={
        "step_size": _num(MIN_STEP_SIZE, MAX_STEP_SIZE, default=0.001, doc="internal fixed step, s"),
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


@dataclass(frozen=True)
class AxleInfo:
    number: int
    suspension: str        # "independent" or "solid"
    dual: bool
    steered: bool
    driven: bool


@dataclass(frozen=True)
class UnitInfo:
    name: str
    axles: List[AxleInfo]
    towed: bool = False    # it has a front connection (else it is a lead unit)
    tow: Optional[str] = None   # the unit it is towed by
    dolly: Optional[str] = None


class Event:
    """A validated event. ``data`` is the cleaned JSON tree with defaults filled in.

    ``terrain_mesh`` is the road of a mesh terrain as read from its file
    (:class:`engine.terrain_mesh.TerrainMesh`), None for the other terrains; the data keeps
    the file's absolute path (``environment.terrain.file``), not the mesh.
    """

    def __init__(self, data: dict, terrain_mesh=None):
        self.data = data
        self.terrain_mesh = terrain_mesh
        self.units = []
        for u in data["units"]:
            front = u["connections"]["front"]
            self.units.append(UnitInfo(
                u["name"], [AxleInfo(i + 1, a["suspension"]["type"], a["dual"], a["steered"], a["driven"])
                            for i, a in enumerate(u["axles"])],
                towed=front is not None, tow=front["tow"] if front else None, dolly=u["dolly"]))

    def lead_unit_names(self) -> List[str]:
        """The units without a front connection, in unit order."""
        return [u.name for u in self.units if not u.towed]

    def vehicles(self) -> List[List[str]]:
        """The vehicles of the event: per lead unit, in unit order, the names of the lead unit
        and of the units it tows, directly or through others (a single unit is a vehicle of
        one unit)."""
        lead_of = {}
        for u in self.units:
            lead_of[u.name] = lead_of[u.tow] if u.towed else u.name
        return [[u.name for u in self.units if lead_of[u.name] == lead] for lead in self.lead_unit_names()]

    def connection_names(self) -> List[str]:
        """One name per connection: the towed unit's, in unit order."""
        return [u.name for u in self.units if u.towed]

    def steering_unit_names(self) -> List[str]:
        """The units with a steering system and a steered axle (each has the steering states
        and outputs), in unit order."""
        return [u["name"] for u in self.data["units"]
                if u.get("steering") and any(a["steered"] for a in u["axles"])]

    def solid_axle_names(self) -> List[str]:
        """``<unit>.axle<k>`` of every solid axle, in unit order then axle order."""
        return [f"{u.name}.axle{a.number}" for u in self.units for a in u.axles if a.suspension == "solid"]

    def to_json(self) -> str:
        return json.dumps(self.data, indent=2, sort_keys=True)

    def wheel_names(self) -> List[str]:
        return [f"{u.name}.axle{a.number}.{side}" for u in self.units for a in u.axles
                for side in ("left", "right")]

    def tire_names(self) -> List[str]:
        out = []
        for u in self.units:
            for a in u.axles:
                for side in ("left", "right"):
                    base = f"{u.name}.axle{a.number}.{side}"
                    out.extend([base + ".inner", base + ".outer"] if a.dual else [base])
        return out


def _check_tires(tires, path, problems):
    if not isinstance(tires, dict) or not tires:
        problems.append(f"{path}: an object mapping tire names to tire data (got {tires!r})")
        return None
    out = {}
    for name, t in tires.items():
        p = f"{path}.{name}"
        c = check_object(TIRE, t, p, problems)
        if c is None:
            continue
        out[name] = c
        loads, speeds = c.get("test_loads"), c.get("test_speeds")
        loads = loads if loads and None not in loads else None     # items already reported
        speeds = speeds if speeds and None not in speeds else None
        if loads and any(b <= a for a, b in zip(loads, loads[1:])):
            problems.append(f"{p}.test_loads: strictly increasing loads (got {loads})")
        if speeds and any(b <= a for a, b in zip(speeds, speeds[1:])):
            problems.append(f"{p}.test_speeds: strictly increasing speeds (got {speeds})")
        if loads and speeds:
            for key in ("peak_friction", "slide_friction", "slip_at_peak", "cornering_stiffness",
                        "camber_stiffness"):
                g = c.get(key)
                if g is not None and (len(g) != len(loads) or any(len(r) != len(speeds) for r in g)):
                    problems.append(f"{p}.{key}: a grid of {len(loads)} rows (test loads) x "
                                    f"{len(speeds)} columns (test speeds)")
            pk, sl = c.get("peak_friction"), c.get("slide_friction")
            if pk and sl and len(pk) == len(sl) and all(len(a) == len(b) for a, b in zip(pk, sl)):
                for i, (ra, rb) in enumerate(zip(pk, sl)):
                    for j, (a, b) in enumerate(zip(ra, rb)):
                        if b > a:
                            problems.append(f"{p}.slide_friction[{i}][{j}]: a value <= peak_friction "
                                            f"[{i}][{j}] = {a} (got {b})")
        if c.get("secondary_stiffness_deflection") and c.get("max_deflection") and \
                c["secondary_stiffness_deflection"] >= c["max_deflection"]:
            problems.append(f"{p}.secondary_stiffness_deflection: a deflection below max_deflection "
                            f"{c['max_deflection']} (got {c['secondary_stiffness_deflection']})")
        if c.get("max_deflection") and c.get("unloaded_radius") and c["max_deflection"] >= c["unloaded_radius"]:
            problems.append(f"{p}.max_deflection: a deflection below unloaded_radius (got {c['max_deflection']})")
    return out


def _given(raw, key):
    """Whether the raw object ``raw`` gives ``key`` a value other than null."""
    return isinstance(raw, dict) and raw.get(key) is not None


_LEAD_ONLY = ("steering", "drivetrain", "initial")


def _wheel_damage_problems(axle, p, problems):
    """A wheel's largest force and moment lie above those that do no damage."""
    dmg = axle.get("wheel_damage") or {}
    for top, low in (("max_force", "max_no_damage_force"), ("max_moment", "max_no_damage_moment")):
        if dmg.get(top) is not None and dmg.get(low) is not None and not dmg[top] > dmg[low]:
            problems.append(f"{p}.wheel_damage.{top}: above {low} ({dmg[low]:g}) (got {dmg[top]:g})")



def _brake_problems(axle, p, problems):
    """An axle has a generic brake (brake_torque_ratio) or a designed one (brake_design), not
    both; a design's tables are of lining friction (brake factor) and positive temperatures."""
    generic, design = axle.get("brake_torque_ratio"), axle.get("brake_design")
    if (generic is None) == (design is None):
        problems.append(f"{p}: brake_torque_ratio (a number >= 0, N m/Pa) or brake_design (an object), "
                        f"one of them (got {'both' if design is not None else 'neither'})")
    if design and design.get("lining_friction"):
        if design["lining_friction"][0][0] <= 0.0:
            problems.append(f"{p}.brake_design.lining_friction: temperatures > 0 K (got "
                            f"{design['lining_friction'][0][0]!r})")
    if design and design.get("brake_factor"):
        if any(not (0.0 <= x <= MAX_FRICTION and y >= 0.0) for x, y in design["brake_factor"]):
            problems.append(f"{p}.brake_design.brake_factor: rows [lining friction 0..{MAX_FRICTION:g}, "
                            f"brake factor >= 0] (got {design['brake_factor']!r})")


def _method_problems(u, p, problems):
    """A table option bypasses the wheel spin of the whole unit (docs/equations.md): a unit
    with a drivetrain uses a table for both its brakes and its drive, or for neither."""
    dt = u.get("drivetrain")
    br = u.get("brakes") or {}
    if not dt or dt.get("method") is None or br.get("method") is None:
        return
    if (br["method"] == "pedal") != (dt["method"] == "engine"):
        problems.append(f"{p}.drivetrain.method: a table ('force' or 'friction') when brakes.method "
                        f"is one, 'engine' when it is 'pedal' (got {dt['method']!r} with brakes.method "
                        f"{br['method']!r})")


def _idle_problems(dt, p, problems):
    """idle_speed, idle_governor and clutch come together; the clutch engages between two
    increasing speeds; the engine inertia is > 0 (it has a speed of its own)."""
    if not dt:
        return
    parts = [dt.get(k) is not None for k in ("idle_speed", "idle_governor", "clutch")]
    if any(parts) and not all(parts):
        missing = [k for k, given in zip(("idle_speed", "idle_governor", "clutch"), parts) if not given]
        problems.append(f"{p}: idle_speed, idle_governor and clutch together, or none of them "
                        f"(missing {', '.join(missing)})")
        return
    if not all(parts):
        return
    cl = dt["clutch"]
    if None not in (cl.get("engagement_start"), cl.get("full_engagement")) and \
            not cl["engagement_start"] < cl["full_engagement"]:
        problems.append(f"{p}.clutch.full_engagement: an engine speed above engagement_start "
                        f"({cl['engagement_start']!r} rpm; got {cl['full_engagement']!r})")
    if dt.get("inertia") is not None and not dt["inertia"] > 0.0:
        problems.append(f"{p}.inertia: a number > 0 with an idle_speed (the engine has a speed of "
                        f"its own; got {dt['inertia']!r})")


def _role_problems(u, raw, p, problems):
    """A lead unit (no front connection) has steering, a drivetrain and the brake pedal ratio;
    a towed unit has none of them, nor initial conditions (they are None in its data)."""
    conns = u.get("connections") or {}
    towed = conns.get("front") is not None or _given((raw or {}).get("connections"), "front")
    brakes = u.get("brakes") or {}
    if towed:
        for key in _LEAD_ONLY:
            if _given(raw, key):
                problems.append(f"{p}.{key}: not on a towed unit (it has connections.front; it follows "
                                "the lead unit); remove it")
            u[key] = None
        if _given(raw.get("brakes"), "pedal_ratio"):
            problems.append(f"{p}.brakes.pedal_ratio: not on a towed unit (its brakes follow the lead "
                            "unit's pedal); remove it")
        if u.get("brakes"):
            brakes["pedal_ratio"] = None
        for j, a in enumerate(u.get("axles") or []):
            for key, what in (("steered", "steering"), ("driven", "drivetrain")):
                if a and a.get(key):
                    problems.append(f"{p}.axles[{j}].{key}: false on a unit without {what} (a towed unit "
                                    f"has none; got true)")
        return
    axles = [a for a in (u.get("axles") or []) if a]
    splits = [a.get("torque_split") for a in axles if a.get("driven")]
    for j, a in enumerate(u.get("axles") or []):
        if a and a.get("torque_split") is not None and not a.get("driven"):
            problems.append(f"{p}.axles[{j}].torque_split: only on a driven axle (remove it, or set driven)")
    if any(z is not None for z in splits):
        if any(z is None for z in splits):
            problems.append(f"{p}.axles: a torque_split on every driven axle, or on none (got "
                            f"{splits})")
        elif abs(2.0 * sum(splits) - 1.0) > 1e-9:
            problems.append(f"{p}.axles: torque_split shares whose sum over the driven wheels (two per "
                            f"axle) is 1 (got 2 x {sum(splits):g})")
    _idle_problems(u.get("drivetrain"), p + ".drivetrain", problems)
    _method_problems(u, p, problems)
    for key in ("steering", "drivetrain"):
        if key not in (raw or {}) or raw[key] is None:
            problems.append(f"{p}.{key}: missing; an object (required on a lead unit, one without "
                            "connections.front)")
    if isinstance(raw, dict) and isinstance(raw.get("brakes"), dict) and raw["brakes"].get("pedal_ratio") is None:
        problems.append(f"{p}.brakes.pedal_ratio: missing; a number >= 0, Pa/N (required on a lead unit)")
    if u.get("initial") is None and not _given(raw, "initial"):
        u["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 0.0}


def _suspension_problems(u, raw, p, problems):
    """A solid axle has the solid fields (roll steer and camber set default 0) and none of the
    independent geometry (None in its data); an independent one the reverse (null or absent
    geometry takes its default)."""
    raw_axles = raw.get("axles") if isinstance(raw, dict) else None
    for j, a in enumerate(u.get("axles") or []):
        susp = a.get("suspension") if a else None
        if not susp:
            continue
        try:
            raw_susp = raw_axles[j]["suspension"]
        except (TypeError, KeyError, IndexError):
            raw_susp = {}
        ps = f"{p}.axles[{j}].suspension"
        if susp.get("type") == "solid":
            for key in INDEPENDENT_FIELDS:
                susp[key] = None
                if _given(raw_susp, key):
                    problems.append(f"{ps}.{key}: only for an independent suspension (type 'solid' has "
                                    "the axle's roll_center_height, spring_spacing, roll_steer, camber_set); "
                                    "remove it")
            for key in ("roll_center_height", "spring_spacing", "axle_roll_inertia"):
                if raw_susp.get(key) is None:
                    problems.append(f"{ps}.{key}: missing; {SUSPENSION[key].accepts().replace(' or null', '')} "
                                    f"({SUSPENSION[key].doc})")
            for key in ("roll_steer", "camber_set"):
                if susp.get(key) is None and raw_susp.get(key) is None:
                    susp[key] = 0.0
        elif susp.get("type") == "independent":
            for key in SOLID_FIELDS:
                if _given(raw_susp, key):
                    problems.append(f"{ps}.{key}: only for a solid axle (suspension.type 'solid'); remove it")
            for key in INDEPENDENT_FIELDS:
                if susp.get(key) is None and not _given(raw_susp, key):
                    susp[key] = SUSPENSION[key].default()


def _aero_problems(u, raw, p, problems):
    """Each surface or device at most once on a unit; a lift coefficient on a device only (a
    device without one has 0, a surface None)."""
    raw_aero = raw.get("aerodynamics") if isinstance(raw, dict) else None
    seen = set()
    for j, entry in enumerate(u.get("aerodynamics") or []):
        if not entry:
            continue
        pa = f"{p}.aerodynamics[{j}]"
        name = entry.get("name")
        if name in seen:
            problems.append(f"{pa}.name: a surface or device not already given for this unit (got {name!r})")
        seen.add(name)
        try:
            raw_entry = raw_aero[j]
        except (TypeError, KeyError, IndexError):
            raw_entry = {}
        if name in DEVICES:
            if entry.get("lift_coefficient") is None:
                entry["lift_coefficient"] = 0.0
        elif name is not None and _given(raw_entry, "lift_coefficient"):
            problems.append(f"{pa}.lift_coefficient: only for a device ({', '.join(DEVICES)}); "
                            f"the surface {name!r} makes drag along its own axis only; remove it")


def _height(unit, point):
    """Height above ground of a vehicle-fixed point at static equilibrium (z down), m."""
    return unit["sprung_mass"]["cg_height"] - point[2]


def _connection_problems(units, problems):
    """The connections form trees: every front connection names an earlier unit with a rear
    connection of the mating type, free for it, at the same height above ground."""
    index = {u["name"]: i for i, u in enumerate(units) if u and u.get("name")}
    front = {i: (u.get("connections") or {}).get("front") for i, u in enumerate(units) if u}
    tow = {i: index.get(f["tow"]) if f and f.get("tow") else None for i, f in front.items()}
    mates = {"kingpin": "fifth_wheel", "drawbar": "pintle"}
    towed_by = {}
    in_cycle = set()
    for i, f in front.items():
        if not f or f.get("tow") is None:
            continue
        p = f"units[{i}].connections.front"
        name = f["tow"]
        if name not in index:
            problems.append(f"{p}.tow: the name of another unit, one of {sorted(index)} (got {name!r})")
            continue
        k = index[name]
        if k == i:
            problems.append(f"{p}.tow: another unit than this one (got its own name {name!r})")
            continue
        chain, j = [i], k
        while j is not None and j not in chain:
            chain.append(j)
            j = tow.get(j)
        if j is not None:   # back to a unit of the chain: a cycle
            loop = chain[chain.index(j):]
            if i == min(loop):
                problems.append(f"{p}.tow: a chain of tow units ending at a lead unit (got a cycle: "
                                + " -> ".join(repr(units[m]["name"]) for m in loop + [j]) + ")")
            in_cycle.update(loop)
            continue
        if k > i:
            problems.append(f"{p}.tow: a unit listed before this one; list the tow unit first "
                            f"(got {name!r}, units[{k}])")
        rear = (units[k].get("connections") or {}).get("rear")
        if rear is None:
            problems.append(f"{p}.tow: a unit with a rear connection (units[{k}] {name!r} has "
                            "connections.rear null)")
            continue
        if k in towed_by:
            problems.append(f"{p}.tow: a tow unit whose rear connection tows no other unit ({name!r} "
                            f"already tows units[{towed_by[k]}] {units[towed_by[k]]['name']!r})")
        else:
            towed_by[k] = i
        if f.get("type") and rear.get("type") and mates[f["type"]] != rear["type"]:
            want = {v: key for key, v in mates.items()}[rear["type"]]
            problems.append(f"{p}.type: {want!r} to mate units[{k}].connections.rear.type "
                            f"{rear['type']!r} (got {f['type']!r})")
        if f.get("model") == "tow":
            for key in ("stiffness", "damping"):
                if rear.get(key) is None:
                    problems.append(f"units[{k}].connections.rear.{key}: missing; a number "
                                    f"{'> 0' if key == 'stiffness' else '>= 0'} (required by {p}.model 'tow')")
        sm_i, sm_k = units[i].get("sprung_mass") or {}, units[k].get("sprung_mass") or {}
        if None not in (f.get("point"), rear.get("point"), sm_i.get("cg_height"), sm_k.get("cg_height")):
            h_front, h_rear = _height(units[i], f["point"]), _height(units[k], rear["point"])
            if abs(h_front - h_rear) > MATING_HEIGHT_TOLERANCE:
                problems.append(f"{p}.point: a point at the height above ground of units[{k}]"
                                f".connections.rear.point, {h_rear:.6g} m within {MATING_HEIGHT_TOLERANCE:g} m "
                                f"(got {h_front:.6g} m: cg_height - z)")
    for i, u in enumerate(units):
        if not u:
            continue
        p = f"units[{i}]"
        f = front.get(i)
        dolly = u.get("dolly")
        if dolly is not None and (not f or f.get("type") != "drawbar"):
            problems.append(f"{p}.dolly: only on a unit whose connections.front is a drawbar "
                            f"(got {dolly!r} with front {f.get('type') if f else None!r})")
        rear = (u.get("connections") or {}).get("rear")
        if dolly == "fixed" and not (rear and rear.get("pitch_stiffness")):
            problems.append(f"{p}.connections.rear.pitch_stiffness: a stiffness > 0 on a fixed dolly "
                            "(its fifth wheel is pitch-rigid)"
                            + ("" if rear else "; give the dolly a rear connection"))


def _vehicle_problems(units, raw_units, problems):
    """In an event of several vehicles (several lead units) every lead unit gives its own
    ``initial``: the default, all 0, would start them all in one place."""
    lead = [i for i, u in enumerate(units)
            if u and not (u.get("connections") or {}).get("front")
            and not _given((raw_units[i] or {}).get("connections") if isinstance(raw_units[i], dict) else None,
                           "front")]
    if len(lead) < 2:
        return
    names = ", ".join(repr(units[i].get("name")) for i in lead)
    for i in lead:
        if not _given(raw_units[i], "initial"):
            problems.append(f"units[{i}].initial: missing; an object with X, Y, yaw and speed (required on "
                            f"every lead unit of an event with several vehicles, {names}: each starts in "
                            "its own place)")


def _roll_inertia_problems(data, problems):
    """Eq. 24: a solid axle's roll inertia about its roll centre includes its own mass at the
    distance rho from the roll centre to the loaded wheel centre, so it exceeds m_axle rho^2.
    The loaded wheel centre lies the tire's unloaded radius less its mean static deflection
    (engine.equilibrium.static_state) above the ground."""
    units_static = static_state(data)[0]
    for i, (u, st) in enumerate(zip(data["units"], units_static)):
        for j, a in enumerate(u["axles"]):
            susp = a["suspension"]
            if susp["type"] != "solid":
                continue
            defls = st.tire_deflections[2 * j] + st.tire_deflections[2 * j + 1]
            wheel_centre = u["tires"][a["tire"]]["unloaded_radius"] - sum(defls) / len(defls)
            rho = susp["roll_center_height"] - wheel_centre
            m_axle = 2.0 * a["unsprung_mass_per_wheel"]
            if not susp["axle_roll_inertia"] > m_axle * rho ** 2:
                problems.append(f"units[{i}].axles[{j}].suspension.axle_roll_inertia: a roll inertia > "
                                f"m_axle rho^2 = {m_axle * rho ** 2:.6g} kg m^2 (m_axle = 2 x "
                                f"unsprung_mass_per_wheel = {m_axle:g} kg, rho = roll_center_height - loaded "
                                f"wheel-centre height = {rho:.6g} m; got {susp['axle_roll_inertia']:g})")


def _terrain_problems(data, raw, base, problems):
    """Each terrain type has its own fields (TERRAIN_FIELDS; null in the data of the others,
    TERRAIN_DEFAULTS filled in); a mesh or crg needs its file, found relative to ``base``,
    whose absolute path the data keeps."""
    terrain = (data.get("environment") or {}).get("terrain")
    if not terrain or terrain.get("type") is None:
        return
    raw_terrain = (raw.get("environment") or {}).get("terrain") if isinstance(raw, dict) else None
    p = "environment.terrain"
    kind = terrain["type"]
    for key in TERRAIN:
        if key == "type" or key in TERRAIN_FIELDS[kind]:
            continue
        if _given(raw_terrain, key):
            owners = " or ".join(repr(t) for t, keys in TERRAIN_FIELDS.items() if key in keys)
            problems.append(f"{p}.{key}: only for terrain type {owners} (got type {kind!r}); remove it")
        terrain[key] = None
    if "file" not in TERRAIN_FIELDS[kind]:
        return
    if not _given(raw_terrain, "file"):
        problems.append(f"{p}.file: missing; a non-empty string ({TERRAIN['file'].doc})")
    elif terrain["file"] is not None:
        terrain["file"] = os.path.abspath(os.path.join(base, terrain["file"]))
    for key, default in TERRAIN_DEFAULTS.get(kind, {}).items():
        if terrain[key] is None:
            terrain[key] = default() if callable(default) else default


def _mesh_file_problems(data, base, problems):
    """A unit's ``collision.mesh_file``: found relative to ``base`` (the data keeps its absolute
    path) and read (engine.collision_setup.read_exterior); a file the reader refuses is a problem
    naming the field, the file and the line."""
    from .terrain_mesh import MeshError
    for i, unit in enumerate(data.get("units") or []):
        col = unit.get("collision") if isinstance(unit, dict) else None
        if not isinstance(col, dict) or not col.get("mesh_file"):
            continue
        col["mesh_file"] = os.path.abspath(os.path.join(base, col["mesh_file"]))
        try:
            read_exterior(col["mesh_file"])
        except MeshError as exc:
            problems.append(f"units[{i}].collision.mesh_file: {exc}")


def _read_terrain(data, problems):
    """The road of a mesh or crg terrain as a TerrainMesh (None for the others); a file its
    reader refuses is a problem naming the file (and for a mesh the line):
    engine.terrain_mesh.MeshError."""
    terrain = data["environment"]["terrain"]
    if terrain["type"] not in ("mesh", "crg"):
        return None
    from .terrain_mesh import MeshError   # the readers are needed only here
    try:
        if terrain["type"] == "crg":
            from .terrain_crg import load_crg
            return load_crg(terrain["file"], terrain["origin"], terrain["heading"],
                            terrain["friction_multiplier"], terrain["water_depth"],
                            terrain["texture_depth"])
        from .terrain_mesh import load_mesh
        return load_mesh(terrain["file"], terrain["materials"], terrain["z_up"])
    except MeshError as exc:
        problems.append(f"environment.terrain.file: {exc}")
        return None


def steering_mode_problems(unit, path, mode):
    """What a unit's ``steering`` (validated data of ``units[i]``, at ``path``) lacks for the
    steering mode ``mode``: the data of the steer degree of freedom, unless it is "off"."""
    st = unit.get("steering")
    if mode == "off" or not st:
        return []
    out = [f"{path}.steering.{key}: missing; {STEERING[key].accepts().replace(' or null', '')} "
           f"(required by the steering mode {mode!r}; {STEERING[key].doc.split(';')[0]})"
           for key in STEERING_DOF_FIELDS if st.get(key) is None]
    if not out and not (st["steer_inertia"] > 0.0 or st["column_inertia"] > 0.0):
        out.append(f"{path}.steering.steer_inertia: an inertia > 0, or column_inertia > 0 (the steering "
                   f"mode {mode!r} integrates the steering system's motion; got both 0)")
    return out


def _steering_problems(data, problems):
    """Each unit's steering has the data its own ``steering.mode`` needs."""
    for i, u in enumerate(data.get("units") or []):
        st = (u or {}).get("steering")
        if st and st.get("mode"):
            problems.extend(steering_mode_problems(u, f"units[{i}]", st["mode"]))


def _hydroplaning_problems(data, problems):
    """Every tire has the data of the hydroplaning model, unless it is 'off'."""
    model = (data.get("simulation") or {}).get("hydroplaning")
    if model in (None, "off"):
        return
    def missing(path, fld):
        return (f"{path}: missing; {fld.accepts().replace(' or null', '')} (required by "
                f"simulation.hydroplaning {model!r}; {fld.doc.split(';')[0]})")
    for i, u in enumerate(data.get("units") or []):
        for name, t in ((u or {}).get("tires") or {}).items():
            problems.extend(missing(f"units[{i}].tires.{name}.{key}", TIRE[key])
                            for key in HYDROPLANING_TIRE_FIELDS if t.get(key) is None)
    terrain = (data.get("environment") or {}).get("terrain") or {}
    for name, m in (terrain.get("materials") or {}).items():
        problems.extend(missing(f"environment.terrain.materials.{name}.{key}", MATERIAL[key])
                        for key in HYDROPLANING_MATERIAL_FIELDS.get(model, ()) if m and m.get(key) is None)
    if terrain.get("type") == "crg":    # the road's one material
        problems.extend(missing(f"environment.terrain.{key}", TERRAIN[key])
                        for key in HYDROPLANING_MATERIAL_FIELDS.get(model, ()) if terrain.get(key) is None)


def validate_event(raw, base=None) -> Event:
    """Validate a parsed event; raise :class:`EventError` listing every problem.

    ``base`` is the folder a mesh terrain's file is relative to (default: the current folder).
    """
    problems: list = []
    raw = copy.deepcopy(raw)
    # tires are a free-named mapping: take them out, check them on their own
    tires_raw = []
    if isinstance(raw, dict) and isinstance(raw.get("units"), list):
        for u in raw["units"]:
            if isinstance(u, dict):
                tires_raw.append(u.pop("tires", None))
            else:
                tires_raw.append(None)
        unit_fields = dict(UNIT)
        unit_fields.pop("tires")
        event_fields = dict(EVENT)
        event_fields["units"] = F("list", item=F("object", fields=unit_fields), min_items=1, max_items=MAX_UNITS)
    else:
        event_fields = EVENT
    data = check_object(event_fields, raw, "", problems)
    if data is not None and data.get("units"):
        names = set()
        for i, (u, t) in enumerate(zip(data["units"], tires_raw)):
            p = f"units[{i}]"
            if u is None:
                continue
            u["tires"] = _check_tires(t, p + ".tires", problems)
            name = u.get("name")
            if name is not None:
                if not UNIT_NAME.match(name) or len(name) > MAX_UNIT_NAME:
                    problems.append(f"{p}.name: a name of 1..{MAX_UNIT_NAME} ASCII letters, digits and '_' "
                                    f"starting with a letter (got {shown(name)})")
                if name in names:
                    problems.append(f"{p}.name: a name not used by another unit (got {name!r})")
                names.add(name)
            axles = u.get("axles") or []
            limit = MAX_AXLES_FULL_TRAILER if u.get("full_trailer") else MAX_AXLES
            if len(axles) > limit:
                problems.append(f"{p}.axles: at most {limit} axles for this unit (got {len(axles)})")
            xs = [a["x"] for a in axles if a and a.get("x") is not None]
            if any(b >= a for a, b in zip(xs, xs[1:])):
                problems.append(f"{p}.axles: axles ordered from the front, x strictly decreasing (got {xs})")
            for j, a in enumerate(axles):
                if not a:
                    continue
                if u["tires"] is not None and a.get("tire") is not None and a["tire"] not in u["tires"]:
                    problems.append(f"{p}.axles[{j}].tire: one of {sorted(u['tires'])} (got {a['tire']!r})")
                if a.get("dual") and not a.get("dual_spacing"):
                    problems.append(f"{p}.axles[{j}].dual_spacing: a spacing > 0 for dual tires (got 0)")
                _brake_problems(a, f"{p}.axles[{j}]", problems)
                _wheel_damage_problems(a, f"{p}.axles[{j}]", problems)
            raw_u = raw["units"][i]
            _role_problems(u, raw_u, p, problems)
            _suspension_problems(u, raw_u, p, problems)
            _aero_problems(u, raw_u, p, problems)
            sm = u.get("sprung_mass")
            if sm and sm.get("inertia") and None not in sm["inertia"] and sm.get("Ixz") is not None:
                ix, iy, iz = sm["inertia"]
                if abs(sm["Ixz"]) >= math.sqrt(ix) * math.sqrt(iz):
                    problems.append(f"{p}.sprung_mass.Ixz: |Ixz| < sqrt(Ix*Iz) (got {sm['Ixz']})")
        _connection_problems(data["units"], problems)
        _vehicle_problems(data["units"], raw["units"], problems)
    if data is not None:
        _terrain_problems(data, raw, os.getcwd() if base is None else os.fspath(base), problems)
        _mesh_file_problems(data, os.getcwd() if base is None else os.fspath(base), problems)
        _hydroplaning_problems(data, problems)
        _steering_problems(data, problems)
    if problems:
        raise EventError(problems)
    terrain_mesh = _read_terrain(data, problems)
    if problems:
        raise EventError(problems)
    # every field is valid: the engine must find the static equilibrium it starts from
    problems = static_equilibrium_problems(data)
    if not problems:
        _roll_inertia_problems(data, problems)
    if problems:
        raise EventError(problems)
    return Event(data, terrain_mesh)


def _depth_problem(value):
    """A message when lists and objects in ``value`` nest deeper than MAX_DEPTH, else None
    (walked without recursion, so that any depth is reported rather than crashing)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > MAX_DEPTH:
                return f"objects and lists nested at most {MAX_DEPTH} deep (got deeper)"
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return None


class _Object(dict):
    """A JSON object as parsed, with the keys it gave more than once."""
    duplicates = ()


def _object(pairs):
    obj = _Object()
    dups = []
    for key, value in pairs:
        if key in obj:
            dups.append(key)
        obj[key] = value
    if dups:
        obj.duplicates = dups
    return obj


def _duplicate_keys(value):
    """One message per key given twice in an object of the parsed event, by its path."""
    out = []
    stack = [(value, "")]
    while stack:
        v, path = stack.pop()
        if isinstance(v, dict):
            for key in getattr(v, "duplicates", ()):
                out.append(f"{path + '.' if path else ''}{key}: given more than once in the same object "
                           "(each field once)")
            stack.extend((x, f"{path}.{k}" if path else str(k)) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, f"{path}[{i}]") for i, x in enumerate(v))
    return sorted(out)


def parse_event_json(text: str, where: str = "event"):
    """Parse the text of an event file; every way it is not an event's JSON is an
    :class:`EventError` naming ``where`` (a duplicate key, nesting beyond MAX_DEPTH, an
    integer too long to read)."""
    try:
        raw = json.loads(text, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise EventError(f"{where}: valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise EventError(f"{where}: objects and lists nested at most {MAX_DEPTH} deep (got deeper)") from None
    except ValueError as exc:   # e.g. an integer of more digits than Python converts
        raise EventError(f"{where}: valid JSON numbers ({str(exc).split(';')[0]})") from None
    depth = _depth_problem(raw)
    if depth:
        raise EventError(f"{where}: {depth}")
    duplicates = _duplicate_keys(raw)
    if duplicates:
        raise EventError(duplicates)
    return raw


def load_event(source=None, base=None) -> Event:
    """Load and validate an event.

    Parameters
    ----------
    source : None, str, os.PathLike or dict
        None loads the default event (the reference sedan, unit ``car``). A path names a JSON
        file; a dict is an already-parsed event.
    base : None, str or os.PathLike
        The folder a mesh terrain's file (``environment.terrain.file``) is relative to. Default:
        the event file's folder, or for a dict the current folder.
    """
    if source is None:
        source = DEFAULT_EVENT
    if isinstance(source, dict):
        problem = _depth_problem(source)
        if problem:
            raise EventError(f"event: {problem}")
        return validate_event(source, base)
    path = os.fspath(source)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise EventError(f"{path}: a readable JSON event file ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EventError(f"{path}: a UTF-8 text file (byte 0x{data[exc.start]:02x} at offset {exc.start} "
                         "is not UTF-8)") from None
    return validate_event(parse_event_json(text, path),
                          os.path.dirname(os.path.abspath(path)) if base is None else base)
