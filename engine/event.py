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
from typing import List

from .layout import MAX_GEARS, MAX_TIRE_TESTS
from .params import static_equilibrium_problems
from .schema import Field as F, check_object, shown

DEFAULT_EVENT = os.path.join(os.path.dirname(__file__), "data", "sedan.json")
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
MAX_ELEVATION = 1.0e5
MIN_AIR_TEMPERATURE, MAX_AIR_TEMPERATURE = 100.0, 1000.0
MAX_AIR_PRESSURE = 1.0e7
MAX_FRICTION = 10.0        # a tire friction coefficient
MAX_DRAG_COEFFICIENT = 10.0


class EventError(ValueError):
    """An event file, or a value derived from it, is not acceptable.

    ``problems`` lists every problem found, each naming the field and what it accepts.
    """

    def __init__(self, problems):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("invalid event:\n  " + "\n  ".join(self.problems))


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


SUSPENSION = {
    "type": F("str", choices=("independent",), doc="suspension type; solid axles arrive later"),
    "spring_rate": _pos("N/m per wheel"),
    "damping": _nonneg("N s/m per wheel"),
    "coulomb_friction": _nonneg("N per wheel"),
    "antisway_roll_stiffness": _nonneg("auxiliary roll stiffness of the axle, N m/rad"),
    "jounce_stop": _stop(),
    "rebound_stop": _stop(),
    "half_track_change": F("table", default=_zero_table,
                           doc="[jounce m, outward half-track change m]"),
    "camber_change": F("table", default=_zero_table,
                       doc="[jounce m, camber rad, top outward positive]"),
    "bump_steer": F("sides", item=F("list", item=_num(), min_items=4, max_items=4),
                    default=lambda: [0.0] * 4,
                    doc="kappa0..kappa3 of Eq. 63 (rad, rad/m, rad/m^2, rad/m^3) against the wheel's "
                        "z-displacement (down +), in the vehicle's steer sign (right +). One list is "
                        "the right wheel's, mirrored on the left (a toe change: +kappa is toe-out); "
                        "{\"left\": [...], \"right\": [...]} gives each wheel its own"),
}

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
    "brake_torque_ratio": _nonneg("N m/Pa"),
    "proportioned": F("bool", doc="brake pressure passes the proportioning valve"),
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
}

UNIT = {
    "name": F("str", doc=f"unit name, used as the FMU variable prefix: 1..{MAX_UNIT_NAME} ASCII letters, "
                         "digits and '_', starting with a letter"),
    "sprung_mass": F("object", fields={
        "mass": _pos("kg"),
        "inertia": F("list", item=_pos(), min_items=3, max_items=3, doc="Ix, Iy, Iz about the CG, kg m^2"),
        "Ixz": _num(doc="kg m^2"),
        "cg_height": _num(0.0, LENGTH_RANGE, lo_open=True, doc="CG height above ground at static equilibrium, m"),
    }),
    "dimensions": F("object", fields={"length": _pos("m"), "width": _pos("m")}),
    "axles": F("list", item=F("object", fields=AXLE), min_items=1, max_items=MAX_AXLES_FULL_TRAILER),
    "full_trailer": F("bool", default=False),
    "tires": F("object", fields=None),  # checked separately: a mapping of name -> TIRE
    "steering": F("object", fields={"gear_ratio": _pos("steering-wheel angle : road-wheel angle")}),
    "brakes": F("object", fields={
        "pedal_ratio": _nonneg("Pa/N"),
        "proportioning_start": _nonneg("Pa"),
        "proportioning_ratio": _num(0.0, 1.0),
        "pushout_pressure": _nonneg("Pa"),
    }),
    "drivetrain": F("object", fields={
        "engine_wot_torque": F("table", doc="[engine speed rpm, torque N m]"),
        "engine_closed_throttle_torque": F("table", item=F("number", hi=0.0),
                                           doc="[engine speed rpm, torque N m <= 0]"),
        "transmission_ratios": F("list", item=_pos(), min_items=1, max_items=MAX_GEARS, doc="gears 1..n"),
        "reverse_ratio": _pos("numerical ratio of reverse gear"),
        "differential_ratio": _pos(),
        "inertia": _nonneg("engine + transmission + driveline, at engine speed, kg m^2"),
    }),
    "aerodynamics": F("list", default=list, item=F("object", fields={
        "name": F("str"),
        "drag_coefficient": _num(0.0, MAX_DRAG_COEFFICIENT),
        "area": _num(0.0, LENGTH_RANGE ** 2, doc="m^2"),
        "center_of_pressure": F("vector3", doc=f"from the sprung-mass CG, m, each within +-{LENGTH_RANGE:g}",
                                extra_check=lambda v: None if max(map(abs, v)) <= LENGTH_RANGE else
                                f"a point within +-{LENGTH_RANGE:g} m of the CG (got {v})"),
    })),
    "initial": F("object", default=lambda: {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 0.0}, fields={
        "X": _num(default=0.0), "Y": _num(default=0.0), "yaw": _num(default=0.0),
        "speed": _num(-100.0, 100.0, default=0.0, doc="initial forward speed, m/s"),
    }),
}

EVENT = {
    "name": F("str", default="event"),
    "environment": F("object", fields={
        "gravity": _pos("m/s^2"),
        "air_pressure": _num(0.0, MAX_AIR_PRESSURE, lo_open=True, doc="Pa"),
        "air_temperature": _num(MIN_AIR_TEMPERATURE, MAX_AIR_TEMPERATURE, doc="K"),
        "friction_multiplier": _nonneg(default=1.0),
        "ground_elevation": _num(-MAX_ELEVATION, MAX_ELEVATION, default=0.0,
                                 doc="earth Z of the flat ground, m (down +)"),
    }),
    "simulation": F("object", default=lambda: {"step_size": 0.001}, fields={
        "step_size": _num(MIN_STEP_SIZE, MAX_STEP_SIZE, default=0.001, doc="internal fixed step, s"),
    }),
    "units": F("list", item=F("object", fields=UNIT), min_items=1, max_items=MAX_UNITS),
}


@dataclass(frozen=True)
class AxleInfo:
    number: int
    suspension: str
    dual: bool
    steered: bool
    driven: bool


@dataclass(frozen=True)
class UnitInfo:
    name: str
    axles: List[AxleInfo]


class Event:
    """A validated event. ``data`` is the cleaned JSON tree with defaults filled in."""

    def __init__(self, data: dict):
        self.data = data
        self.units = [
            UnitInfo(u["name"], [AxleInfo(i + 1, a["suspension"]["type"], a["dual"], a["steered"], a["driven"])
                                 for i, a in enumerate(u["axles"])])
            for u in data["units"]]

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


def validate_event(raw) -> Event:
    """Validate a parsed event; raise :class:`EventError` listing every problem."""
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
            sm = u.get("sprung_mass")
            if sm and sm.get("inertia") and None not in sm["inertia"] and sm.get("Ixz") is not None:
                ix, iy, iz = sm["inertia"]
                if abs(sm["Ixz"]) >= math.sqrt(ix) * math.sqrt(iz):
                    problems.append(f"{p}.sprung_mass.Ixz: |Ixz| < sqrt(Ix*Iz) (got {sm['Ixz']})")
    if problems:
        raise EventError(problems)
    # every field is valid: the engine must find the static equilibrium it starts from
    problems = static_equilibrium_problems(data)
    if problems:
        raise EventError(problems)
    return Event(data)


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


def load_event(source=None) -> Event:
    """Load and validate an event.

    Parameters
    ----------
    source : None, str, os.PathLike or dict
        None loads the default event (the reference sedan, unit ``car``). A path names a JSON
        file; a dict is an already-parsed event.
    """
    if source is None:
        source = DEFAULT_EVENT
    if isinstance(source, dict):
        problem = _depth_problem(source)
        if problem:
            raise EventError(f"event: {problem}")
        return validate_event(source)
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
    return validate_event(parse_event_json(text, path))


def format_reference() -> str:
    """The event format as Markdown, generated from the schema (docs/event-format.md)."""
    from .schema import describe
    unit_fields = {k: v for k, v in UNIT.items() if k != "tires"}
    lines = [
        "# Event format",
        "",
        "An event is one JSON object in SI units (angles in rad). This page is generated from",
        "the schema in `engine/event.py` (`python -m engine.event`); the default event",
        "`engine/data/sedan.json` is a complete example. Unknown fields are rejected, and so",
        "is every missing, mistyped or out-of-range field, all listed in one error.",
        "",
        "| field | accepts | default | meaning |",
        "| --- | --- | --- | --- |",
    ]
    ev = {k: v for k, v in EVENT.items() if k != "units"}
    lines += describe(ev)
    lines.append("| `units` | a list of 1..8 vehicle units | required | |")
    lines += describe(unit_fields, "units[]")
    lines.append("| `units[].tires` | an object mapping tire names to tire data | required | "
                 "axles name their tire here |")
    lines += describe(TIRE, "units[].tires.<name>")
    lines += ["", "Tire property grids (`peak_friction` ... `camber_stiffness`) have one row per test load",
              "and one column per test speed. The default relaxation lengths are 0.2 m",
              "(longitudinal) and 0.4 m (lateral); the default skid flag uses F_z,min = 50 N and",
              "tau = 0.1 (Eq. 113).", "",
              "An event file is UTF-8 JSON with each key once per object, nested at most "
              f"{MAX_DEPTH} deep.",
              "Tables (`[x, y]` rows) may have any number of rows. Once every field is valid, each",
              "unit must have a static equilibrium on its wheels, the state every simulation starts",
              "from: the axles balance the sprung weight about its CG (axles on both sides of it, or",
              "one axle at x = 0), every tire carries a load > 0 and deflects less than its",
              "`max_deflection` under it (Eq. 93).", ""]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    print(format_reference())
