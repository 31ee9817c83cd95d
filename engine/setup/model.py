"""The typed vehicle model: a validated event as frozen records, generated from its schema.

Every object of the event format (:mod:`engine.setup.fields`: ``EVENT``, ``UNIT``, ``AXLE``,
``SUSPENSION``, ``TIRE``, ...) has a record class here, made from its fields: one attribute per
field, of the same name, nothing else. A record is frozen (assigning an attribute raises
``dataclasses.FrozenInstanceError``) and has slots, so that naming a field the schema does not
have raises ``AttributeError`` where it is named. Values are those of the validated JSON tree
(``Event.data``), with its containers made immutable:

- an object: its record (null: None);
- a list of objects (``units``, ``axles``, ``payloads``, ...): a tuple of records;
- a free-named object (a unit's ``tires``, a mesh terrain's ``materials``): a read-only mapping
  of names to records (``unit.tires[axle.tire]``);
- a list of numbers, a vector, a table or a grid: a tuple (of tuples for rows);
- ``bump_steer`` given per side: a :class:`Sides` record (``left``, ``right``); one list: a tuple.

``Event.model`` is the :class:`EventModel` of a validated event, built once after validation.
:func:`typed_event` and :func:`typed_unit` take either a record or its JSON object (validated,
or a part of one as the tests write it: a field the object leaves out is its default, or None
when it has none), so that the set-up functions read records whichever they are given.
"""
from __future__ import annotations

import keyword
from dataclasses import make_dataclass
from types import MappingProxyType

from .fields import (AERO, AXLE, BARRIER, BRAKE_DESIGN, COLLISION, EVENT, FRONT, MATERIAL, OBJECT,
                     PAYLOAD, REAR, STEERING, SUSPENSION, TERRAIN, TIRE, UNIT, WHEEL_DAMAGE)
from .schema import _MISSING, Field

#: a unit's tires as the model holds them: a mapping of names to TIRE (the schema checks them
#: apart, as ``UNIT["tires"]`` has no fields of its own)
UNIT_FIELDS = dict(UNIT, tires=Field("map", item=Field("object", fields=TIRE)))
EVENT_FIELDS = dict(EVENT, units=Field("list", item=Field("object", fields=UNIT_FIELDS)))

#: the names of the record classes of the format's named objects (the others are named after
#: their field: ``sprung_mass`` -> SprungMass)
_NAMES = {id(EVENT_FIELDS): "EventModel", id(UNIT_FIELDS): "Unit", id(AXLE): "Axle",
          id(SUSPENSION): "Suspension", id(TIRE): "Tire", id(STEERING): "Steering",
          id(BRAKE_DESIGN): "BrakeDesign", id(WHEEL_DAMAGE): "WheelDamage", id(PAYLOAD): "Payload",
          id(AERO): "AeroSurface", id(REAR): "RearConnection", id(FRONT): "FrontConnection",
          id(COLLISION): "Collision", id(MATERIAL): "Material", id(TERRAIN): "Terrain",
          id(BARRIER): "Barrier", id(OBJECT): "EnvironmentObject"}
_CLASSES: dict = {}     # id(fields) -> record class


def _class_name(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_"))


def record_class(fields: dict, name: str):
    """The frozen record class of an object's ``fields`` (made once per fields dict)."""
    cls = _CLASSES.get(id(fields))
    if cls is None:
        for key in fields:
            if not key.isidentifier() or keyword.iskeyword(key):  # pragma: no cover - schema author error
                raise ValueError(f"{name}.{key}: a field name that is a Python identifier")
        cls = make_dataclass(_NAMES.get(id(fields), name), list(fields), frozen=True, slots=True)
        cls.__module__ = __name__
        cls.__doc__ = (f"{cls.__name__}: the record of the event format's fields "
                       + ", ".join(fields) + " (engine.setup.fields).")
        cls.FIELDS = fields
        _CLASSES[id(fields)] = cls
        for key, f in fields.items():       # the classes of its objects, made with it
            _classes(f, key)
    return cls


def _classes(f: Field, key: str):
    if f.kind == "object" and f.fields:
        record_class(f.fields, _class_name(key))
    elif f.kind in ("list", "map") and f.item is not None:
        _classes(f.item, key[:-1] if f.kind == "list" and key.endswith("s") else key)


class Sides(tuple):
    """A field given per side, ``{"left": ..., "right": ...}``: its two values."""
    __slots__ = ()

    def __new__(cls, left, right):
        return super().__new__(cls, (left, right))

    @property
    def left(self):
        return self[0]

    @property
    def right(self):
        return self[1]

    def side(self, side: int):
        """The value of a side: -1 left, +1 right."""
        return self.right if side > 0 else self.left


def per_side(value, side: int):
    """A field's value for a wheel on ``side`` (-1 left, +1 right): its :class:`Sides` value, or
    the one value given for both."""
    return value.side(side) if isinstance(value, Sides) else value


def _value(f: Field, v, key: str, path: str):
    """The model's value of the JSON value ``v`` of field ``f``."""
    if v is None:
        return None
    k = f.kind
    if k == "object" and f.fields:
        return _record(f.fields, v, key, path)
    if k == "list":
        if f.item is not None and f.item.kind == "object" and f.item.fields:
            return tuple(_record(f.item.fields, x, key, f"{path}[{i}]") for i, x in enumerate(v))
        return tuple(_value(f.item, x, key, f"{path}[{i}]") if f.item is not None else x for i, x in enumerate(v))
    if k == "map":
        return MappingProxyType({name: _value(f.item, x, name, f"{path}.{name}") for name, x in v.items()})
    if k in ("table", "grid"):
        return tuple(tuple(row) for row in v)
    if k == "vector3":
        return tuple(v)
    if k == "sides":
        if isinstance(v, dict):
            return Sides(_value(f.item, v["left"], key, path + ".left"), _value(f.item, v["right"], key, path + ".right"))
        return _value(f.item, v, key, path)
    return v


def _record(fields: dict, obj, key: str, path: str):
    cls = record_class(fields, _class_name(key))
    if isinstance(obj, cls):
        return obj
    unknown = [k for k in obj if k not in fields]
    if unknown:
        raise ValueError(f"{path}.{unknown[0]}: not a field of the event format; its fields are "
                         + ", ".join(fields))
    values = {}
    for name, f in fields.items():
        if name in obj:
            v = obj[name]
        elif f.default is _MISSING:
            v = None
        else:
            v = f.default() if callable(f.default) else f.default
        values[name] = _value(f, v, name, f"{path}.{name}" if path else name)
    return cls(**values)


def event_model(data) -> "EventModel":
    """The :class:`EventModel` of validated event data (``Event.data``)."""
    return _record(EVENT_FIELDS, data, "event", "")


def typed_event(data) -> "EventModel":
    """``data`` as an :class:`EventModel`: an Event's model, a model as it is, or event data
    (a JSON tree) made into one."""
    if isinstance(data, EventModel):
        return data
    model = getattr(data, "model", None)
    if isinstance(model, EventModel):
        return model
    return event_model(data)


def typed_unit(unit) -> "Unit":
    """``unit`` as a :class:`Unit` record: a record as it is, a unit's JSON object made into one."""
    return unit if isinstance(unit, Unit) else _record(UNIT_FIELDS, unit, "unit", "unit")


EventModel = record_class(EVENT_FIELDS, "EventModel")
Unit = _CLASSES[id(UNIT_FIELDS)]
Axle = _CLASSES[id(AXLE)]
Suspension = _CLASSES[id(SUSPENSION)]
Tire = _CLASSES[id(TIRE)]
Steering = _CLASSES[id(STEERING)]
BrakeDesign = _CLASSES[id(BRAKE_DESIGN)]
WheelDamage = _CLASSES[id(WHEEL_DAMAGE)]
Payload = _CLASSES[id(PAYLOAD)]
AeroSurface = _CLASSES[id(AERO)]
RearConnection = _CLASSES[id(REAR)]
FrontConnection = _CLASSES[id(FRONT)]
Collision = _CLASSES[id(COLLISION)]
Terrain = _CLASSES[id(TERRAIN)]
Barrier = _CLASSES[id(BARRIER)]
