"""Event files: the vehicles, their components, initial conditions and environment.

An event is a JSON document in SI units (see ``docs/event-format.md``). :func:`load_event`
parses and validates it completely; every missing, mistyped or out-of-range field is reported
in one :class:`EventError` whose ``problems`` list names each field and what it accepts.
"""
from __future__ import annotations

import copy
import hashlib
import json
import math
import os
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from ..aerodynamics import DEVICES
from .collision import read_exterior
from .derived import lead_units, loaded_radius, vehicle_mass
from .equilibrium import static_equilibrium_problems, static_state
from .errors import EventError  # noqa: F401  (engine.setup.event.EventError, as before)
from .fields import (  # noqa: F401  (engine.setup.event.<name>, as before)
    MAX_AXLES, MAX_AXLES_FULL_TRAILER, MAX_UNITS, MAX_UNIT_NAME, UNIT_NAME, MAX_DEPTH,
    MIN_STEP_SIZE, MAX_STEP_SIZE, MAX_STEP_SIZES, INTEGRATORS, LENGTH_RANGE, MAX_ELEVATION, INITIAL_LIMITS, MIN_AIR_TEMPERATURE,
    MIN_SPRUNG_MASS_PER_TIRE, MAX_AIR_TEMPERATURE, MAX_AIR_PRESSURE, MAX_FRICTION, MAX_DRAG_COEFFICIENT, MAX_ENGINE_RPM,
    MAX_LIFT_COEFFICIENT, MATING_HEIGHT_TOLERANCE, MAX_ROLL_STEER, MAX_CAMBER_SET,
    MAX_JOINT_DEFLECTION, MIN_JOINT_DEFLECTION, MAX_DEFORMATION_RATE, MAX_WATER_DEPTH,
    MAX_INFLATION_PRESSURE, MAX_TREAD_DEPTH, TERRAIN_TYPES, TERRAIN_FIELDS, TERRAIN_DEFAULTS,
    HYDROPLANING_MODELS, BRAKE_METHODS, DRIVE_METHODS, HYDROPLANING_TIRE_FIELDS,
    HYDROPLANING_MATERIAL_FIELDS, MAX_DIFF_GEARS, MAX_TEXTURE_DEPTH, MAX_STEER_STOP, MAX_TRAIL,
    STEER_INPUTS, STEERING_DOF_FIELDS, SOLID_FIELDS, INDEPENDENT_FIELDS, SUSPENSION, BRAKE_DESIGN,
    DEFAULT_WHEEL_DAMAGE, WHEEL_DAMAGE, AXLE, PAYLOAD, AERO, REAR, FRONT, TIRE, STEERING,
    DEFAULT_CRUSH_B, DEFAULT_RESTITUTION, COLLISION, UNIT, MATERIAL, TERRAIN, MAX_BARRIERS, BARRIER, EVENT)
from .model import event_model
from .tire_properties import property_problems
from .schema import Field as F, check_object, shown
from .vehicle_classes import defaults as class_defaults, inferred_class

#: the engine's data folder: the reference events
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
#: the reference sedan (unit ``car``)
DEFAULT_EVENT = os.path.join(DATA_DIR, "sedan.json")
#: the reference tractor-semitrailer (units ``tractor``, ``trailer``)
TRACTOR_SEMITRAILER_EVENT = os.path.join(DATA_DIR, "tractor-semitrailer.json")
#: the reference double: ``tractor``, ``trailer1``, converter ``dolly``, ``trailer2``
DOUBLE_EVENT = os.path.join(DATA_DIR, "double.json")
#: the double with a fixed dolly in place of the converter dolly
DOUBLE_FIXED_DOLLY_EVENT = os.path.join(DATA_DIR, "double-fixed-dolly.json")
#: two vehicles: the reference sedan twice (units ``car``, ``car2``), on crossing paths
TWO_CARS_EVENT = os.path.join(DATA_DIR, "two-cars.json")
#: a rigid truck and a full trailer on a turntable: ``truck``, ``trailer``
TRUCK_FULL_TRAILER_EVENT = os.path.join(DATA_DIR, "truck-full-trailer.json")
#: two vehicles: the sedan (``car``) and the tractor-semitrailer (``tractor``, ``trailer``)
CAR_AND_SEMITRAILER_EVENT = os.path.join(DATA_DIR, "car-and-semitrailer.json")


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

    ``model`` is the same event as the typed vehicle model (:mod:`engine.setup.model`:
    frozen records, ``event.model.units[0].sprung_mass.mass``), built once from ``data``;
    the set-up code reads it, ``data`` is what an FMU embeds (:meth:`to_json`).
    ``terrain_mesh`` is the road of a mesh terrain as read from its file
    (:class:`engine.setup.meshes.TerrainMesh`), None for the other terrains; the data keeps
    the file's absolute path (``environment.terrain.file``), not the mesh.
    """

    def __init__(self, data: dict, terrain_mesh=None, model=None):
        self.data = data
        self.model = event_model(data) if model is None else model
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
        return [u.name for u in self.model.units if u.steering and any(a.steered for a in u.axles)]

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
        if c.get("max_deflection") is None:
            # the manual: "by default, delta_max is set equal to the section height of the tire"
            if c.get("section_height") is None:
                problems.append(f"{p}.max_deflection: a deflection in m, or section_height, its "
                                f"default (both missing)")
            else:
                c["max_deflection"] = c["section_height"]
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
        property_problems(c, p, problems)
        if c.get("secondary_stiffness_deflection") and c.get("max_deflection") and \
                c["secondary_stiffness_deflection"] >= c["max_deflection"]:
            problems.append(f"{p}.secondary_stiffness_deflection: a deflection below max_deflection "
                            f"{c['max_deflection']} (got {c['secondary_stiffness_deflection']})")
        if c.get("max_deflection") and c.get("unloaded_radius") and c["max_deflection"] >= c["unloaded_radius"]:
            problems.append(f"{p}.max_deflection: a deflection below unloaded_radius (got {c['max_deflection']})")
    return out


def _sprung_mass_problems(unit, p, problems):
    """A unit's sprung mass is at least MIN_SPRUNG_MASS_PER_TIRE (5 kg) per tire of its axles
    (two per axle, four on a dual axle): a plausibility bound, below any road vehicle's, that
    names a mass given in tonnes rather than kg before the checks that would trip over it (a
    1.5 kg sedan's tire and crush stiffnesses give modes too fast for the step). A mass too
    large is refused by the static equilibrium (a tire beyond its max_deflection)."""
    mass = (unit.get("sprung_mass") or {}).get("mass")
    axles = [a for a in unit.get("axles") or [] if a]
    if mass is None or not axles:
        return
    tires = sum(4 if a.get("dual") else 2 for a in axles)
    if mass < MIN_SPRUNG_MASS_PER_TIRE * tires:
        problems.append(f"{p}.sprung_mass.mass: at least {MIN_SPRUNG_MASS_PER_TIRE:g} kg per tire, "
                        f"{MIN_SPRUNG_MASS_PER_TIRE * tires:g} kg on this unit's {tires} tires "
                        f"(got {mass:g} kg, {mass / tires:.3g} kg per tire: a mass in kg, not "
                        f"tonnes? the sprung masses of road vehicles are tens of kg per tire "
                        f"and more)")


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
        problems.append(f"{p}: brake_torque_ratio (a number >= 0, N m/Pa, or one per side) or brake_design (an object), "
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


def _differential_problems(dt, raw, p, problems):
    """A drivetrain has one differential ratio (differential_ratio) or a differential gear table
    (differential_ratios, the ratios the FMU input differentialGear selects), not both (one the
    schema refused counts as given: its own problem names it)."""
    if not dt:
        return
    one, table = (_given(raw, k) for k in ("differential_ratio", "differential_ratios"))
    if one == table:
        problems.append(f"{p}: differential_ratio (a number > 0) or differential_ratios (the differential "
                        f"gear table: a list of 1..{MAX_DIFF_GEARS} numbers > 0, selected by the input "
                        f"differentialGear), one of them (got {'both' if one else 'neither'})")


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
    _differential_problems(u.get("drivetrain"), (raw or {}).get("drivetrain"), p + ".drivetrain", problems)
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


def _turntable_problems(units, problems):
    """A full trailer's turntable (``axles[0].turntable``) is the first axle of a towed unit
    that is not a dolly, a solid axle, behind a drawbar with a ``drawbar_length`` that fails
    never; the pintle that tows it transmits no moment (a drawbar hinged at both ends); a
    ``drawbar_length`` belongs to such a trailer only (engine.connection)."""
    index = {u["name"]: i for i, u in enumerate(units) if u and u.get("name")}
    for i, u in enumerate(units):
        if not u:
            continue
        p = f"units[{i}]"
        axles = [a or {} for a in (u.get("axles") or [])]
        table = [j for j, a in enumerate(axles) if a.get("turntable")]
        front = (u.get("connections") or {}).get("front")
        for j in table:
            ap = f"{p}.axles[{j}]"
            if j != 0:
                problems.append(f"{ap}.turntable: only on the unit's first axle, the front axle its "
                                f"drawbar steers (got true on axle {j})")
            sus = axles[j].get("suspension") or {}
            if sus.get("type") not in (None, "solid"):
                problems.append(f"{ap}.suspension.type: 'solid' on a turntable axle (the beam axle "
                                f"the turntable carries; got {sus.get('type')!r})")
            if axles[j].get("steered") and front is None:
                problems.append(f"{ap}.steered: false on a turntable axle (its drawbar steers it; got "
                                "true)")
        if table and front is None:
            problems.append(f"{p}.axles[{table[0]}].turntable: only on a towed unit, a full trailer "
                            "whose connections.front is a drawbar with a drawbar_length (got a lead "
                            "unit, without connections.front)")
            continue
        if not table:
            if front and front.get("drawbar_length") is not None:
                problems.append(f"{p}.connections.front.drawbar_length: only on a full trailer whose "
                                "first axle has turntable true (the drawbar steers it; got "
                                f"{front['drawbar_length']!r} with no turntable axle); remove it")
            continue
        if front.get("type") not in (None, "drawbar"):
            problems.append(f"{p}.connections.front.type: 'drawbar' on a full trailer with a turntable "
                            f"axle (got {front['type']!r})")
        if u.get("dolly") is not None:
            problems.append(f"{p}.dolly: null on a full trailer with a turntable axle (the turntable "
                            f"is part of the trailer; got {u['dolly']!r})")
        if front.get("drawbar_length") is None:
            problems.append(f"{p}.connections.front.drawbar_length: missing; a length > 0, m, from "
                            f"the pintle to the turntable's king pin (required by {p}.axles[0]"
                            ".turntable)")
        if front.get("failure_force") is not None:
            problems.append(f"{p}.connections.front.failure_force: null on a full trailer's drawbar "
                            "(the turntable has no state of its own to keep once the drawbar is "
                            f"gone; got {front['failure_force']!r})")
        k = index.get(front.get("tow"))
        rear = (units[k].get("connections") or {}).get("rear") if k is not None and units[k] else None
        if not rear:
            continue
        rp = f"units[{k}].connections.rear"
        for key, sub in (("frame_torsion", ("stiffness", "damping")), ("hitch_friction", ("coefficient",))):
            got = {f: (rear.get(key) or {}).get(f) for f in sub}
            if any(v for v in got.values()):
                problems.append(f"{rp}.{key}: " + " and ".join(f"{f} 0" for f in sub)
                                + f" on the pintle that tows {p}'s turntable drawbar (a drawbar "
                                "hinged at both ends carries a force along itself only; got "
                                + ", ".join(f"{f} {v!r}" for f, v in got.items()) + ")")
        for key in ("pitch_stiffness", "pitch_damping"):
            if rear.get(key):
                problems.append(f"{rp}.{key}: 0 on the pintle that tows {p}'s turntable drawbar "
                                f"(got {rear[key]!r})")


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


def _roll_inertia_problems(model, problems):
    """Eq. 24: a solid axle's roll inertia about its roll centre includes its own mass at the
    distance rho from the roll centre to the loaded wheel centre, so it exceeds m_axle rho^2.
    The loaded wheel centre lies the tire's unloaded radius less its mean static deflection
    (engine.setup.equilibrium.static_state) above the ground."""
    units_static = static_state(model)[0]
    for i, (u, st) in enumerate(zip(model.units, units_static)):
        for j, a in enumerate(u.axles):
            susp = a.suspension
            if susp.type != "solid":
                continue
            defls = st.tire_deflections[2 * j] + st.tire_deflections[2 * j + 1]
            wheel_centre = loaded_radius(u.tires[a.tire], defls)
            rho = susp.roll_center_height - wheel_centre
            m_axle = 2.0 * a.unsprung_mass_per_wheel
            if not susp.axle_roll_inertia > m_axle * rho ** 2:
                problems.append(f"units[{i}].axles[{j}].suspension.axle_roll_inertia: a roll inertia > "
                                f"m_axle rho^2 = {m_axle * rho ** 2:.6g} kg m^2 (m_axle = 2 x "
                                f"unsprung_mass_per_wheel = {m_axle:g} kg, rho = roll_center_height - loaded "
                                f"wheel-centre height = {rho:.6g} m; got {susp.axle_roll_inertia:g})")


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
    """A unit's ``collision.mesh_file`` and an environment object's ``mesh_file``: found
    relative to ``base`` (the data keeps its absolute path) and read
    (engine.setup.collision.read_exterior); a file the reader refuses is a problem naming the
    field, the file and the line."""
    from .meshes import MeshError
    holders = [(f"units[{i}].collision", unit.get("collision"))
               for i, unit in enumerate(data.get("units") or []) if isinstance(unit, dict)]
    env = data.get("environment")
    objects = env.get("objects") if isinstance(env, dict) else None
    holders += [(f"environment.objects[{i}]", obj)
                for i, obj in enumerate(objects if isinstance(objects, list) else [])]
    for path, holder in holders:
        if not isinstance(holder, dict) or not isinstance(holder.get("mesh_file"), str) \
                or not holder["mesh_file"]:
            continue
        holder["mesh_file"] = os.path.abspath(os.path.join(base, holder["mesh_file"]))
        try:
            read_exterior(holder["mesh_file"])
        except MeshError as exc:
            problems.append(f"{path}.mesh_file: {exc}")


#: the roads read last in this process, by (terrain type, digest of the file's bytes, the
#: reader's arguments): an FMU's instances, a study's runs and a sweep's cases read one road
ROADS_KEPT = 4
_ROADS: dict = {}


def _read_terrain(data, problems):
    """The road of a mesh or crg terrain as a TerrainMesh (None for the others); a file its
    reader refuses is a problem naming the file (and for a mesh the line):
    engine.setup.meshes.MeshError. A road read before in this process from the same bytes
    with the same arguments is not read again: each caller gets its own copy of its arrays."""
    terrain = data["environment"]["terrain"]
    if terrain["type"] not in ("mesh", "crg"):
        return None
    from .meshes import MeshError   # the readers are needed only here
    if terrain["type"] == "crg":
        from .terrain_crg import load_crg
        args = (terrain["origin"], terrain["heading"], terrain["friction_multiplier"],
                terrain["water_depth"], terrain["texture_depth"])
        read = lambda: load_crg(terrain["file"], *args)     # noqa: E731
    else:
        from .meshes import load_mesh
        args = (terrain["materials"], terrain["z_up"])
        read = lambda: load_mesh(terrain["file"], *args)    # noqa: E731
    key = None          # unless a regular file is read: the reader names what is wrong with it
    try:
        if os.path.isfile(terrain["file"]):
            with open(terrain["file"], "rb") as fh:
                key = (terrain["type"], hashlib.sha256(fh.read()).hexdigest(),
                       json.dumps(args, sort_keys=True, default=repr))
    except OSError:
        pass
    try:
        road = _ROADS.pop(key) if key in _ROADS else read()
    except MeshError as exc:
        problems.append(f"environment.terrain.file: {exc}")
        return None
    if key is not None:
        _ROADS[key] = road          # the most recent last
        while len(_ROADS) > ROADS_KEPT:
            del _ROADS[next(iter(_ROADS))]
    return type(road)(*(v.copy() if isinstance(v, np.ndarray) else v for v in road))


def steering_mode_problems(unit, path, mode, mode_name=None):
    """What a unit's ``steering`` (validated data of ``units[i]``, at ``path``) lacks for the
    steering mode ``mode``: the data of the steer degree of freedom, unless it is "off". The
    steer degree of freedom has one steering-wheel angle: it needs the option at_steering_wheel
    and one gear ratio on every steered axle. ``mode_name``: where the mode was given (default
    the event's ``steering.mode``; the FMU's ``<unit>.steeringMode``)."""
    st = unit.get("steering")
    if mode == "off" or not st:
        return []
    mode_name = mode_name or f"{path}.steering.mode"
    if st.get("input") == "at_axle":
        return [f"{mode_name}: 'off' with steering.input 'at_axle' (the road-wheel angles are the "
                f"inputs steerAngle; the steer degree of freedom turns the wheels from the steering "
                f"wheel; got {mode!r})"]
    ratios = {j: a["steering_gear_ratio"] for j, a in enumerate(unit.get("axles") or [])
              if a and a.get("steered") and a.get("steering_gear_ratio") is not None}
    for j, ratio in ratios.items():
        if ratio != st["gear_ratio"]:
            return [f"{path}.axles[{j}].steering_gear_ratio: null or the unit's steering.gear_ratio "
                    f"{st['gear_ratio']!r} with the steering mode {mode!r} (the steer degree of freedom "
                    f"has one road-wheel angle; {mode_name} 'off' takes a ratio per axle; got {ratio!r})"]
    out = [f"{path}.steering.{key}: missing; {STEERING[key].accepts().replace(' or null', '')} "
           f"(required by the steering mode {mode!r}; {STEERING[key].doc.split(';')[0]})"
           for key in STEERING_DOF_FIELDS if st.get(key) is None]
    if not out and not (st["steer_inertia"] > 0.0 or st["column_inertia"] > 0.0):
        out.append(f"{path}.steering.steer_inertia: an inertia > 0, or column_inertia > 0 (the steering "
                   f"mode {mode!r} integrates the steering system's motion; got both 0)")
    return out


def _steering_problems(data, problems):
    """Each unit's steering has the data its own ``steering.mode`` needs; an axle's own
    steering gear ratio is on a steered axle."""
    for i, u in enumerate(data.get("units") or []):
        for j, a in enumerate((u or {}).get("axles") or []):
            if a and a.get("steering_gear_ratio") is not None and not a.get("steered"):
                problems.append(f"units[{i}].axles[{j}].steering_gear_ratio: only on a steered axle "
                                f"(remove it, or set steered)")
        st = (u or {}).get("steering")
        if st and st.get("mode"):
            problems.extend(steering_mode_problems(u, f"units[{i}]", st["mode"]))


def _step_size_problems(data, problems):
    """simulation.step_size within the range of simulation.integrator (MAX_STEP_SIZES)."""
    sim = data.get("simulation") or {}
    method, h = sim.get("integrator") or INTEGRATORS[0], sim.get("step_size")
    top = MAX_STEP_SIZES.get(method)
    if top is not None and isinstance(h, (int, float)) and h > top:
        problems.append(f"simulation.step_size: at most {top:g} s with simulation.integrator "
                        f"{method!r} (got {h!r}); up to {MAX_STEP_SIZE:g} s with 'rk4'")


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
            _sprung_mass_problems(u, p, problems)
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
        _turntable_problems(data["units"], problems)
        _vehicle_problems(data["units"], raw["units"], problems)
    if data is not None:
        _terrain_problems(data, raw, os.getcwd() if base is None else os.fspath(base), problems)
        _mesh_file_problems(data, os.getcwd() if base is None else os.fspath(base), problems)
        _hydroplaning_problems(data, problems)
        _steering_problems(data, problems)
        _step_size_problems(data, problems)
    if problems:
        raise EventError(problems)
    terrain_mesh = _read_terrain(data, problems)
    if problems:
        raise EventError(problems)
    # every field is valid: each unit's vehicle class and the defaults it gives
    _fill_class_defaults(data)
    for i, u in enumerate(data["units"]):
        for j, a in enumerate(u["axles"]):       # a threshold given against its class's default
            _wheel_damage_problems(a, f"units[{i}].axles[{j}]", problems)
    if problems:
        raise EventError(problems)
    # every field is valid: the typed model, and the static equilibrium the engine starts from
    model = event_model(data)
    problems = static_equilibrium_problems(model)
    if not problems:
        _roll_inertia_problems(model, problems)
    if problems:
        raise EventError(problems)
    return Event(data, terrain_mesh, model)


def _fill_class_defaults(data) -> None:
    """Each unit's vehicle class into ``data`` (``units[].vehicle_class``: its own; else its
    lead unit's; else inferred from the mass of its vehicle, the lead unit and the units it
    tows, ``engine.setup.vehicle_classes``) and its class's defaults into the collision and
    wheel-damage fields the event left out or null."""
    model = event_model(data)
    given = {u.name: u.vehicle_class for u in model.units}
    lead_of = lead_units(model)
    inferred = {}
    for unit, u in zip(model.units, data["units"]):
        lead = lead_of[unit.name]
        name = given[unit.name] or given[lead]
        if name is None:
            if lead not in inferred:
                inferred[lead] = inferred_class(vehicle_mass(model, lead))
            name = inferred[lead]
        u["vehicle_class"] = name
        d = class_defaults(name)
        col = u["collision"]
        if col["crush_stiffness"] is None:
            col["crush_stiffness"] = dict(d["crush_stiffness"])
        if col["restitution"] is None:
            col["restitution"] = d["restitution"]
        for a in u["axles"]:
            damage = a["wheel_damage"]
            for key, value in d["wheel_damage"].items():
                if damage[key] is None:
                    damage[key] = value


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
