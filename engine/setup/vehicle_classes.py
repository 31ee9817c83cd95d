"""Vehicle classes: the defaults of a unit's collision and wheel-damage fields by its class.

The table is ``engine/data/vehicle_classes.json``: per class (:data:`CLASSES`: ``car``,
``truck``) the crush stiffness B of the front, the sides and the rear
(``units[].collision.crush_stiffness``), the restitution (``units[].collision.restitution``)
and the wheel-damage thresholds (``units[].axles[].wheel_damage``), each value with its
source; a truck value the literature gives none for is the car's, marked ``car_value``.

A unit's class (:func:`inferred_class` and ``engine.setup.event``, which fills the fields an
event leaves out or null): its ``vehicle_class`` when the event gives one, else the class of
its vehicle's mass (its lead unit and every unit that lead unit tows): ``car`` up to
:data:`LIGHT_VEHICLE_MASS` (3500 kg, the EU limit of a light goods vehicle, category N1),
``truck`` above. docs/event-format.md and docs/equations.md describe the table.
"""
from __future__ import annotations

import json
import os
from types import MappingProxyType

#: the table of the classes' defaults, with the sources of its values
TABLE_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                          "vehicle_classes.json")
#: the groups of fields a class gives defaults to, and their fields in the event format:
#: units[].collision.crush_stiffness.<face>, units[].collision.restitution and
#: units[].axles[].wheel_damage.<threshold>
GROUPS = {"crush_stiffness": ("front", "side", "rear"),
          "restitution": None,
          "wheel_damage": ("max_no_damage_force", "max_no_damage_moment", "deformation_rate",
                           "max_force", "max_moment")}


def _load(path: str = TABLE_FILE) -> dict:
    """The table, checked: every class has every value of :data:`GROUPS`, each a number with
    a unit and a source (ValueError naming the entry otherwise)."""
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    rule = table["inference"]
    entries = [("inference.mass_limit", rule["mass_limit"])]
    for name, cls in table["classes"].items():
        for group, keys in GROUPS.items():
            if keys is None:
                entries.append((f"classes.{name}.{group}", cls[group]))
            else:
                entries += [(f"classes.{name}.{group}.{k}", cls[group][k]) for k in keys]
    for where, entry in entries:
        value = entry.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ValueError(f"{path}: {where}.value: a number > 0 (got {value!r})")
        if not entry.get("unit") or not entry.get("source"):
            raise ValueError(f"{path}: {where}: a unit and a source for its value")
    for side in ("at_most", "above"):
        if rule[side] not in table["classes"]:
            raise ValueError(f"{path}: inference.{side}: one of {sorted(table['classes'])}")
    return table


TABLE = _load()
#: the vehicle classes, as ``units[].vehicle_class`` accepts them
CLASSES = tuple(TABLE["classes"])
#: kg: a vehicle up to this mass is of the class ``inference.at_most`` (car), a heavier one of
#: ``inference.above`` (truck); its source is in the table
LIGHT_VEHICLE_MASS = float(TABLE["inference"]["mass_limit"]["value"])
#: the class of a vehicle up to LIGHT_VEHICLE_MASS, and of a heavier one
LIGHT_CLASS, HEAVY_CLASS = TABLE["inference"]["at_most"], TABLE["inference"]["above"]


def defaults(name: str) -> MappingProxyType:
    """The defaults of class ``name``: {"crush_stiffness": {face: B}, "restitution": e,
    "wheel_damage": {threshold: value}} (values only; the sources are in :data:`TABLE`)."""
    cls = TABLE["classes"][name]
    out = {}
    for group, keys in GROUPS.items():
        out[group] = (cls[group]["value"] if keys is None else
                      MappingProxyType({k: cls[group][k]["value"] for k in keys}))
    return MappingProxyType(out)


def borrowed(name: str, group: str) -> bool:
    """Whether every value of ``group`` of class ``name`` is the car's, applied for lack of a
    published figure (``car_value`` in the table)."""
    entry = TABLE["classes"][name][group]
    keys = GROUPS[group]
    return all(e.get("car_value", False) for e in ([entry] if keys is None else [entry[k] for k in keys]))


def inferred_class(vehicle_mass: float) -> str:
    """The class of a vehicle of total mass ``vehicle_mass`` (kg) whose units give none."""
    return LIGHT_CLASS if vehicle_mass <= LIGHT_VEHICLE_MASS else HEAVY_CLASS
