"""Vehicle classes (engine.setup.vehicle_classes, engine/data/vehicle_classes.json): the defaults
of the crush stiffness, the restitution and the wheel-damage thresholds by class, the rule that
chooses a unit's class, and the sources the table gives for its values."""
from __future__ import annotations

import copy
import json

import pytest

import engine
from engine.setup import vehicle_classes as vc
from engine.setup.event import (CAR_AND_SEMITRAILER_EVENT, DOUBLE_EVENT, TRACTOR_SEMITRAILER_EVENT,
                                DEFAULT_CRUSH_B, DEFAULT_RESTITUTION, DEFAULT_WHEEL_DAMAGE)


def _applied(unit) -> dict:
    """A unit record's values of the class fields, as vehicle_classes.defaults gives them."""
    col = unit.collision
    damage = {a.wheel_damage for a in unit.axles}
    assert len(damage) == 1
    (wd,) = damage
    return {"crush_stiffness": {k: getattr(col.crush_stiffness, k) for k in vc.GROUPS["crush_stiffness"]},
            "restitution": col.restitution,
            "wheel_damage": {k: getattr(wd, k) for k in vc.GROUPS["wheel_damage"]}}


def _expected(name) -> dict:
    d = vc.defaults(name)
    return {"crush_stiffness": dict(d["crush_stiffness"]), "restitution": d["restitution"],
            "wheel_damage": dict(d["wheel_damage"])}


@pytest.mark.parametrize("source, classes", [
    (None, {"car": "car"}),
    (TRACTOR_SEMITRAILER_EVENT, {"tractor": "truck", "trailer": "truck"}),
    (DOUBLE_EVENT, {"tractor": "truck", "trailer1": "truck", "dolly": "truck", "trailer2": "truck"}),
    (CAR_AND_SEMITRAILER_EVENT, {"car": "car", "tractor": "truck", "trailer": "truck"}),
])
def test_each_unit_takes_the_defaults_of_its_vehicles_class(source, classes):
    """The trucks' units (the dolly too: it belongs to a vehicle above 3.5 t) get the truck's
    values of the table, the sedan the car's; the validated data holds the class."""
    event = engine.load_event(source)
    assert {u.name: u.vehicle_class for u in event.model.units} == classes
    for unit, data in zip(event.model.units, event.data["units"]):
        assert _applied(unit) == _expected(unit.vehicle_class)
        assert data["vehicle_class"] == unit.vehicle_class


def test_the_car_defaults_are_the_car_class():
    car = vc.defaults("car")
    assert DEFAULT_CRUSH_B == dict(car["crush_stiffness"]) == {"front": 1.0e6, "side": 3.5e5, "rear": 6.0e5}
    assert DEFAULT_RESTITUTION == car["restitution"] == 0.15
    assert DEFAULT_WHEEL_DAMAGE == dict(car["wheel_damage"])


def test_every_value_of_the_table_has_a_unit_and_a_source():
    """Each value names its source; a value the table borrows from the car (car_value) is the
    car's and says so in its source."""
    table = json.loads(open(vc.TABLE_FILE, encoding="utf-8").read())
    assert set(table["classes"]) == set(vc.CLASSES) == {"car", "truck"}
    assert table["inference"]["mass_limit"]["source"]
    for name, cls in table["classes"].items():
        assert cls["description"]
        for group, keys in vc.GROUPS.items():
            for key in (None,) if keys is None else keys:
                entry = cls[group] if key is None else cls[group][key]
                car = table["classes"]["car"][group] if key is None else table["classes"]["car"][group][key]
                assert entry["value"] > 0 and entry["unit"], (name, group, key)
                assert len(entry["source"]) > 40, (name, group, key)
                if entry.get("car_value"):
                    assert entry["value"] == car["value"] and "car's" in entry["source"], (name, group, key)
    # the truck has no published figure for any of them (engine/data/vehicle_classes.json)
    assert all(vc.borrowed("truck", group) for group in vc.GROUPS)


def test_a_table_value_without_a_source_is_refused(tmp_path):
    table = copy.deepcopy(vc.TABLE)
    del table["classes"]["truck"]["restitution"]["source"]
    path = tmp_path / "classes.json"
    path.write_text(json.dumps(table))
    with pytest.raises(ValueError, match=r"classes\.truck\.restitution: a unit and a source"):
        vc._load(str(path))


def test_the_truck_class_gives_its_own_values(monkeypatch):
    """The truck's defaults are the table's truck entries, not the car's: with other truck
    values in the table, the truck takes them and the car keeps its own."""
    table = copy.deepcopy(vc.TABLE)
    truck = table["classes"]["truck"]
    for face, b in (("front", 3e6), ("side", 1e6), ("rear", 2e6)):
        truck["crush_stiffness"][face]["value"] = b
    truck["restitution"]["value"] = 0.1
    truck["wheel_damage"]["max_force"]["value"] = 4e5
    monkeypatch.setattr(vc, "TABLE", table)
    tractor, trailer = engine.load_event(TRACTOR_SEMITRAILER_EVENT).model.units
    for unit in (tractor, trailer):
        got = _applied(unit)
        assert got["crush_stiffness"] == {"front": 3e6, "side": 1e6, "rear": 2e6}
        assert got["restitution"] == 0.1 and got["wheel_damage"]["max_force"] == 4e5
        assert got["wheel_damage"]["max_no_damage_force"] == DEFAULT_WHEEL_DAMAGE["max_no_damage_force"]
    (car,) = engine.load_event().model.units
    assert _applied(car) == _expected("car") and car.collision.restitution == DEFAULT_RESTITUTION


def _sedan() -> dict:
    return json.loads(engine.load_event().to_json())


def _raw(path) -> dict:
    return json.loads(open(path).read())


def test_the_class_is_inferred_from_the_vehicles_mass():
    """Up to 3500 kg a car, above a truck: the sedan (1093 kg) loaded to 3.6 t is a truck."""
    data = _sedan()
    del data["units"][0]["vehicle_class"]
    mass = engine.setup.derived.vehicle_mass(engine.load_event(data))
    assert mass < vc.LIGHT_VEHICLE_MASS == 3500.0
    assert vc.inferred_class(3500.0) == "car" and vc.inferred_class(3500.1) == "truck"
    for key in ("crush_stiffness", "restitution"):
        data["units"][0]["collision"][key] = None            # null: the class's, as left out
    for axle in data["units"][0]["axles"]:
        axle["wheel_damage"].update(dict.fromkeys(vc.GROUPS["wheel_damage"]))
    data["units"][0]["payloads"] = [{"name": "load", "mass": 3600.0 - mass, "inertia": [0.0, 0.0, 0.0],
                                     "position": [0.0, 0.0, 0.0]}]
    (unit,) = engine.load_event(data).model.units
    assert unit.vehicle_class == "truck" and _applied(unit) == _expected("truck")


def test_a_given_class_or_value_is_kept():
    """An explicit vehicle_class chooses the defaults (a towed unit takes its lead unit's);
    an explicit value is kept whatever the class."""
    data = _raw(TRACTOR_SEMITRAILER_EVENT)
    data["units"][0]["vehicle_class"] = "car"
    data["units"][1].setdefault("collision", {})["restitution"] = 0.3
    tractor, trailer = engine.load_event(data).model.units
    assert (tractor.vehicle_class, trailer.vehicle_class) == ("car", "car")
    assert trailer.collision.restitution == 0.3 and tractor.collision.restitution == DEFAULT_RESTITUTION
    data["units"][1]["vehicle_class"] = "truck"                   # its own, over its lead unit's
    assert engine.load_event(data).model.units[1].vehicle_class == "truck"
    data["units"][0]["vehicle_class"] = "bus"
    with pytest.raises(engine.EventError, match=r"units\[0\]\.vehicle_class: one of 'car', 'truck' or null"):
        engine.load_event(data)


def test_a_threshold_is_checked_against_its_class_default():
    """A max_force given below the class's max_no_damage_force is refused, as one below a
    given max_no_damage_force is."""
    data = _raw(engine.setup.event.DEFAULT_EVENT)
    data["units"][0]["axles"][1]["wheel_damage"] = {"max_force": 1.0e4}
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    assert exc.value.problems == ["units[0].axles[1].wheel_damage.max_force: above max_no_damage_force "
                                  "(20000) (got 10000)"]


def test_the_validated_data_loads_to_the_same_event():
    """What an FMU embeds (the validated data, the class and its values written out) loads to
    the same model."""
    event = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    again = engine.load_event(json.loads(event.to_json()))
    assert again.model == event.model
