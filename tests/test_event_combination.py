"""The event format of combinations: connections, towed units, solid axles, payloads, dollies."""
import json

import pytest

import engine
from engine.setup import event as E

from conftest import ROOT

DATA = ROOT / "engine" / "data"


def raw(name):
    return json.loads((DATA / name).read_text())


def problems(data):
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    return exc.value.problems


def unit(d, name):
    return next(u for u in d["units"] if u["name"] == name)


# --- the three heavy-vehicle events -------------------------------------------------------

@pytest.mark.parametrize("path, units, towed", [
    (E.TRACTOR_SEMITRAILER_EVENT, ["tractor", "trailer"], ["trailer"]),
    (E.DOUBLE_EVENT, ["tractor", "trailer1", "dolly", "trailer2"], ["trailer1", "dolly", "trailer2"]),
    (E.DOUBLE_FIXED_DOLLY_EVENT, ["tractor", "trailer1", "dolly", "trailer2"], ["trailer1", "dolly", "trailer2"]),
])
def test_heavy_events_load(path, units, towed):
    ev = engine.load_event(path)
    assert [u.name for u in ev.units] == units
    assert ev.lead_unit_names() == ["tractor"]
    assert ev.connection_names() == towed
    solid = [f"{u}.axle{k}" for u in units for k in ((1,) if u == "dolly" else (1, 2, 3))]
    assert ev.solid_axle_names() == solid
    assert [u.towed for u in ev.units] == [u in towed for u in units]


def test_tractor_semitrailer_geometry_is_the_sheet():
    ev = engine.load_event(E.TRACTOR_SEMITRAILER_EVENT)
    assert ev.data["name"] == "reference tractor-semitrailer"
    tractor, trailer = ev.data["units"]
    front_axle = tractor["axles"][0]["x"]
    # behind the front axle: CG 2.00, drive axles 4.08 and 5.48, fifth wheel 4.64 (1.35 m high)
    assert front_axle == pytest.approx(2.00)
    assert [front_axle - a["x"] for a in tractor["axles"]] == pytest.approx([0.0, 4.08, 5.48])
    fifth = tractor["connections"]["rear"]["point"]
    assert front_axle - fifth[0] == pytest.approx(4.64)
    assert tractor["sprung_mass"]["cg_height"] - fifth[2] == pytest.approx(1.35)
    # behind the kingpin: CG 5.96, axles 6.28, 7.59, 8.90; pintle 12.00 (0.60 m high)
    kingpin = trailer["connections"]["front"]["point"]
    assert kingpin[0] == pytest.approx(5.96)
    assert trailer["sprung_mass"]["cg_height"] - kingpin[2] == pytest.approx(1.35)
    assert [kingpin[0] - a["x"] for a in trailer["axles"]] == pytest.approx([6.28, 7.59, 8.90])
    pintle = trailer["connections"]["rear"]["point"]
    assert (kingpin[0] - pintle[0], trailer["sprung_mass"]["cg_height"] - pintle[2]) == pytest.approx((12.00, 0.60))
    # half the per-axle unsprung mass on each wheel; the load-sharing groups
    assert [a["unsprung_mass_per_wheel"] for a in tractor["axles"]] == [375.0, 550.0, 550.0]
    assert [a["group"] for a in tractor["axles"]] == [None, "drive", "drive"]
    assert [a["group"] for a in trailer["axles"]] == ["tridem"] * 3
    assert trailer["connections"]["front"]["tow"] == "tractor"


def test_towed_unit_data_has_no_lead_sections():
    ev = engine.load_event(E.DOUBLE_EVENT)
    for u in ev.data["units"][1:]:
        assert (u["steering"], u["drivetrain"], u["initial"], u["brakes"]["pedal_ratio"]) == (None,) * 4
        assert (u["brakes"]["proportioning_start"], u["brakes"]["proportioning_ratio"]) == (0.0, 1.0)
    tractor = ev.data["units"][0]
    assert tractor["connections"]["front"] is None
    assert tractor["initial"] == {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 0.0,
                                  **dict.fromkeys(("roll", "pitch", "v", "w", "p", "q", "r"), 0.0)}
    dolly = unit(ev.data, "dolly")
    assert dolly["dolly"] == "converter"
    assert dolly["connections"]["rear"]["pitch_stiffness"] == 0.0
    assert unit(engine.load_event(E.DOUBLE_FIXED_DOLLY_EVENT).data, "dolly")["connections"]["rear"][
        "pitch_stiffness"] == 1.0e8


# --- every validation problem names its field ---------------------------------------------

def _set(path, value):
    """A mutation setting ``path`` (unit name, then keys) to ``value``."""
    def mutate(d):
        obj = unit(d, path[0])
        for key in path[1:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return mutate


def _delete(path):
    def mutate(d):
        obj = unit(d, path[0])
        for key in path[1:-1]:
            obj = obj[key]
        del obj[path[-1]]
    return mutate


TRACTOR_FRONT = {"type": "kingpin", "point": [1.0, 0.0, -0.22], "tow": "trailer"}
FRONT = ("connections", "front")

CASES = [
    # the connection graph
    ("semi", _set(("trailer",) + FRONT + ("tow",), "truck"),
     "units[1].connections.front.tow: the name of another unit"),
    ("semi", _set(("trailer",) + FRONT + ("tow",), "trailer"),
     "units[1].connections.front.tow: another unit than this one"),
    ("semi", _set(("tractor",) + FRONT, TRACTOR_FRONT),
     "units[0].connections.front.tow: a chain of tow units ending at a lead unit (got a cycle"),
    ("double", _set(("trailer2",) + FRONT + ("tow",), "tractor"),
     "units[3].connections.front.tow: a tow unit whose rear connection tows no other unit"),
    ("semi", _set(("tractor", "connections", "rear"), None),
     "units[1].connections.front.tow: a unit with a rear connection"),
    ("semi", _set(("trailer",) + FRONT + ("type",), "drawbar"),
     "units[1].connections.front.type: 'kingpin' to mate units[0].connections.rear.type 'fifth_wheel'"),
    ("double", lambda d: d["units"].insert(1, d["units"].pop(2)),
     "units[1].connections.front.tow: a unit listed before this one; list the tow unit first"),
    ("semi", _set(("trailer",) + FRONT + ("point",), [5.96, 0.0, -0.10]),
     "units[1].connections.front.point: a point at the height above ground of units[0].connections.rear.point"),
    ("semi", _set(("trailer",) + FRONT + ("model",), "tow"),
     "units[0].connections.rear.stiffness: missing"),
    ("semi", _set(("trailer",) + FRONT + ("failure_force",), -1.0),
     "units[1].connections.front.failure_force: a number > 0 or null"),
    ("semi", _set(("tractor", "connections", "rear", "type"), "hook"),
     "units[0].connections.rear.type: one of 'fifth_wheel', 'pintle'"),
    # towed units have no lead sections; lead units need them
    ("semi", _set(("trailer", "steering"), {"gear_ratio": 20.0}), "units[1].steering: not on a towed unit"),
    ("semi", lambda d: unit(d, "trailer").__setitem__("drivetrain", unit(d, "tractor")["drivetrain"]),
     "units[1].drivetrain: not on a towed unit"),
    ("semi", _set(("trailer", "initial"), {"X": 0.0}), "units[1].initial: not on a towed unit"),
    ("semi", _set(("trailer", "brakes", "pedal_ratio"), 1600.0), "units[1].brakes.pedal_ratio: not on a towed unit"),
    ("semi", lambda d: unit(d, "trailer")["axles"][0].__setitem__("steered", True),
     "units[1].axles[0].steered: false on a unit without steering"),
    ("semi", lambda d: unit(d, "trailer")["axles"][2].__setitem__("driven", True),
     "units[1].axles[2].driven: false on a unit without drivetrain"),
    ("semi", _delete(("tractor", "steering")), "units[0].steering: missing"),
    ("semi", _delete(("tractor", "drivetrain")), "units[0].drivetrain: missing"),
    ("semi", _delete(("tractor", "brakes", "pedal_ratio")), "units[0].brakes.pedal_ratio: missing"),
    # dollies
    ("semi", _set(("trailer", "dolly"), "converter"),
     "units[1].dolly: only on a unit whose connections.front is a drawbar"),
    ("double", _set(("dolly", "dolly"), "fixed"),
     "units[2].connections.rear.pitch_stiffness: a stiffness > 0 on a fixed dolly"),
    ("double", _set(("dolly", "dolly"), "pivot"), "units[2].dolly: one of 'converter', 'fixed' or null"),
    # solid axles
    ("semi", _delete(("tractor", "axles", 0, "suspension", "roll_center_height")),
     "units[0].axles[0].suspension.roll_center_height: missing; a number > 0"),
    ("semi", _delete(("trailer", "axles", 1, "suspension", "spring_spacing")),
     "units[1].axles[1].suspension.spring_spacing: missing"),
    ("semi", _delete(("trailer", "axles", 2, "suspension", "axle_roll_inertia")),
     "units[1].axles[2].suspension.axle_roll_inertia: missing"),
    ("semi", _set(("tractor", "axles", 0, "suspension", "half_track_change"), [[0.0, 0.0]]),
     "units[0].axles[0].suspension.half_track_change: only for an independent suspension"),
    ("semi", _set(("tractor", "axles", 1, "suspension", "bump_steer"), [0.0] * 4),
     "units[0].axles[1].suspension.bump_steer: only for an independent suspension"),
    ("sedan", _set(("car", "axles", 0, "suspension", "spring_spacing"), 1.0),
     "units[0].axles[0].suspension.spring_spacing: only for a solid axle"),
    ("semi", _set(("tractor", "axles", 0, "suspension", "axle_roll_inertia"), 0.5),
     "units[0].axles[0].suspension.axle_roll_inertia: a roll inertia > m_axle rho^2"),
    ("semi", _set(("tractor", "axles", 0, "suspension", "roll_steer"), 2.0),
     "units[0].axles[0].suspension.roll_steer: a number >= -1 and <= 1 or null"),
    ("semi", _set(("tractor", "axles", 1, "group"), 3), "units[0].axles[1].group: a non-empty string or null"),
    # payloads and occupants
    ("semi", _set(("trailer", "payloads"), [{"name": "load", "mass": 0.0, "inertia": [0, 0, 0],
                                             "position": [0, 0, 0]}]),
     "units[1].payloads[0].mass: a number > 0"),
    ("semi", _set(("tractor", "occupants"), [{"name": "driver", "mass": 80.0, "inertia": [1, 1],
                                              "position": [2.5, -0.6, -0.8]}]),
     "units[0].occupants[0].inertia: a list of 3..3 items"),
]
SOURCES = {"semi": "tractor-semitrailer.json", "double": "double.json", "sedan": "sedan.json"}


@pytest.mark.parametrize("source, mutate, expected", CASES, ids=[c[2].split(":")[0] + "-" + c[0] for c in CASES])
def test_problem_names_its_field(source, mutate, expected):
    d = raw(SOURCES[source])
    mutate(d)
    got = problems(d)
    assert any(p.startswith(expected) for p in got), got


def test_every_problem_in_one_error():
    d = raw("double.json")
    unit(d, "trailer1")["steering"] = {"gear_ratio": 20.0}
    unit(d, "dolly")["connections"]["front"]["tow"] = "trailer9"
    unit(d, "trailer2")["axles"][0]["suspension"]["camber_change"] = [[0.0, 0.0]]
    del unit(d, "tractor")["axles"][1]["suspension"]["spring_spacing"]
    got = problems(d)
    assert len(got) == 4, got
    assert [p.split(":")[0] for p in sorted(got)] == [
        "units[0].axles[1].suspension.spring_spacing", "units[1].steering", "units[2].connections.front.tow",
        "units[3].axles[0].suspension.camber_change"]


@pytest.mark.parametrize("path", [E.DEFAULT_EVENT, E.TRACTOR_SEMITRAILER_EVENT, E.DOUBLE_EVENT,
                                  E.DOUBLE_FIXED_DOLLY_EVENT, E.TRUCK_FULL_TRAILER_EVENT])
def test_validated_data_loads_again_unchanged(path):
    """The FMU build writes the validated data out and loads it again."""
    data = engine.load_event(path).data
    assert engine.load_event(json.loads(json.dumps(data))).data == data


def test_solid_axle_data():
    axle = engine.load_event(E.TRACTOR_SEMITRAILER_EVENT).data["units"][0]["axles"][0]["suspension"]
    assert (axle["roll_center_height"], axle["spring_spacing"], axle["axle_roll_inertia"]) == (0.60, 1.058, 450.0)
    assert (axle["roll_steer"], axle["camber_set"]) == (0.0, 0.0)
    assert [axle[k] for k in E.INDEPENDENT_FIELDS] == [None] * 3


def test_null_sections_are_absent_sections():
    d = raw("tractor-semitrailer.json")
    trailer = unit(d, "trailer")
    trailer.update({"steering": None, "drivetrain": None, "initial": None, "dolly": None})
    trailer["brakes"]["pedal_ratio"] = None
    assert engine.load_event(d).data["units"][1]["steering"] is None


# --- the car event is unchanged -----------------------------------------------------------

NEW_KEYS = {  # the fields the combinations brought, with the values an event without them gets
    "description": None,
    "units[0].payloads": [], "units[0].occupants": [], "units[0].dolly": None,
    "units[0].connections": {"front": None, "rear": None},
    "units[0].dimensions.height": None, "units[0].dimensions.front_x": None,
    **{f"units[0].axles[{j}].{key}": None for j in (0, 1) for key in
       ["group", "torque_split"] + [f"suspension.{s}" for s in E.SOLID_FIELDS]},
}
TERRAIN_KEYS = {  # the fields the terrain brought, with the values an event without them gets
    "environment.terrain": {"type": "flat", **dict.fromkeys(
        ("file", "z_up", "materials", "origin", "heading", "friction_multiplier", "water_depth",
         "texture_depth"))},
    "simulation.hydroplaning": "off",
    **{f"units[0].tires.{t}.{key}": None for t in ("front", "rear")
       for key in ("inflation_pressure", "tread_depth", "width")},
}
AERO_KEYS = {  # the field the aerodynamic devices brought, None on a surface
    "units[0].aerodynamics[0].lift_coefficient": None,
}
BRAKE_KEYS = {  # the field the brake designs brought: a generic brake has none; and the
    # table options: the pedal and the engine
    **{f"units[0].axles[{j}].brake_design": None for j in (0, 1)},
    "units[0].brakes.method": "pedal", "units[0].drivetrain.method": "engine",
}
STEERING_KEYS = {  # the field the steering system brought that the car event leaves to its default
    "simulation.steer_dof_start_time": None,
}
COLLISION_KEYS = {  # the fields the collisions brought, with the values an event without them gets
    "environment.barriers": [],
    "environment.objects": [],
    "units[0].vehicle_class": "car",        # the class that gives the defaults below: the sedan's mass
    # each axle's wheel mesh and damage thresholds (engine.wheel_damage)
    **{f"units[0].axles[{a}].wheel_damage.{key}": value for a in (0, 1) for key, value in (
        ("mesh", True), ("stiffness", None), ("restitution", 1.0),
        ("max_no_damage_force", 2.0e4), ("max_no_damage_moment", 5.0e3),
        ("deformation_rate", 5.0e-6), ("max_force", 1.0e5), ("max_moment", 2.5e4))},
    "simulation.collisions.environment_start_time": 0.0,
    "simulation.collisions.vehicle_start_time": 0.0,
    **{f"units[0].collision.{k}": v for k, v in (
        ("enabled", True), ("crush_stiffness", {"front": 1.0e6, "side": 3.5e5, "rear": 6.0e5}),
        ("restitution", 0.15), ("damping_ratio", 0.1), ("friction", 0.4), ("height", None),
        ("ground_clearance", None), ("mesh_vertices", 300), ("cab_length", None),
        ("mesh_file", None))},
}
MANUAL_KEYS = {  # the fields the rest of the manual's options brought (At Axle steering and a
    # ratio per axle, the differential gear table, CRASH3 A, wheel displacement, the unsprung
    # yaw inertia, the full trailer's turntable, the tire properties by partial derivatives),
    # with the values an event without them gets
    "units[0].steering.input": "at_steering_wheel",
    "units[0].drivetrain.differential_ratios": None,
    "units[0].collision.crush_a": None,
    **{f"units[0].axles[{k}].{f}": None for k in (0, 1)
       for f in ("steering_gear_ratio", "wheel_displacement", "unsprung_yaw_inertia")},
    **{f"units[0].axles[{k}].turntable": False for k in (0, 1)},  # a full trailer's turntable
    # the tire property forms: the manual's tables
    **{f"units[0].tires.{t}.{key}": value for t in ("front", "rear") for key, value in (
        ("property_model", "table"), ("partial_derivatives", None))},
}
SEVERE_KEYS = {  # the fields the severe events brought, with the values an event without them gets
    "simulation.tire_limit": "wheel",
    "simulation.integrator": "rk4",           # and the integration method, its default
    "simulation.substeps": 1,                 # and its sub-steps in severe events, none
    **{f"units[0].initial.{k}": 0.0 for k in ("roll", "pitch", "v", "w", "p", "q", "r")},
    **{f"units[0].tires.{t}.section_height": None for t in ("front", "rear")},
}
OLD_DEFAULTS = {  # the fields the car event leaves to their defaults, as before
    "units[0].full_trailer": False,
    "units[0].axles[0].dual_spacing": 0.0, "units[0].axles[1].dual_spacing": 0.0,
    **{f"units[0].tires.{t}.{key}": value for t in ("front", "rear") for key, value in (
        ("relaxation_length", {"longitudinal": 0.2, "lateral": 0.4}),
        ("skid_flag", {"min_load": 50.0, "adhesion_fraction": 0.1}))},
}


def _flatten(value, path=""):
    """{path: leaf} of a JSON tree, objects walked, lists walked except lists of numbers."""
    if isinstance(value, dict) and value:
        out = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{path}.{k}" if path else k))
        return out
    if isinstance(value, list) and any(isinstance(x, dict) for x in value):
        out = {}
        for i, v in enumerate(value):
            out.update(_flatten(v, f"{path}[{i}]"))
        return out
    return {path: value}


def test_sedan_data_is_the_file_plus_defaults():
    given = _flatten(raw("sedan.json"))
    got = _flatten(engine.load_event().data)
    # every value of the file comes back as written; the rest is exactly the defaults
    assert {k: got.get(k) for k in given} == given
    defaults = {**NEW_KEYS, **TERRAIN_KEYS, **AERO_KEYS, **BRAKE_KEYS, **STEERING_KEYS, **COLLISION_KEYS,
                **SEVERE_KEYS, **MANUAL_KEYS, **OLD_DEFAULTS}
    assert {k: v for k, v in got.items() if k not in given} == _flatten(defaults)
    ev = engine.load_event()
    assert (ev.lead_unit_names(), ev.connection_names(), ev.solid_axle_names()) == (["car"], [], [])
    assert not ev.units[0].towed
