"""The typed vehicle model (engine.setup.model): the validated event as frozen records generated
from the schema, and the derived quantities (engine.setup.derived) the engine packs."""
import dataclasses
from types import MappingProxyType

import pytest

import engine
from engine.setup import derived
from engine.setup.event import DOUBLE_EVENT, TRACTOR_SEMITRAILER_EVENT
from engine.setup.model import EventModel, Sides, Unit, typed_event, typed_unit


def _plain(value):
    """A model value as the JSON tree holds it (records as dicts, tuples as lists)."""
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Sides):
        return {"left": _plain(value.left), "right": _plain(value.right)}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, (dict, MappingProxyType)):
        return {k: _plain(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("source", [None, TRACTOR_SEMITRAILER_EVENT, DOUBLE_EVENT])
def test_the_model_holds_the_validated_data(source):
    event = engine.load_event(source)
    assert isinstance(event.model, EventModel)
    assert _plain(event.model) == event.data


def test_fields_are_attributes_of_the_schema_only():
    event = engine.load_event()
    unit = event.model.units[0]
    axle = unit.axles[0]
    assert isinstance(unit, Unit)
    assert unit.sprung_mass.mass == event.data["units"][0]["sprung_mass"]["mass"]
    assert axle.suspension.jounce_stop.clearance == \
        event.data["units"][0]["axles"][0]["suspension"]["jounce_stop"]["clearance"]
    assert unit.tires[axle.tire].unloaded_radius == \
        event.data["units"][0]["tires"][axle.tire]["unloaded_radius"]
    with pytest.raises(AttributeError):
        unit.sprung_mass.weight                  # noqa: B018  (not a field of the format)
    with pytest.raises(AttributeError):
        axle.suspension.spring_stiffness         # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        unit.sprung_mass.mass = 1.0
    with pytest.raises(TypeError):
        unit.tires["another"] = unit.tires[axle.tire]


def test_json_of_a_unit_is_read_as_its_record():
    """A unit's JSON (a part of one, as tests write it): a field left out is its default,
    or None when it has none; a key the format does not have is refused."""
    unit = typed_unit({"sprung_mass": {"mass": 1000.0, "inertia": [1.0, 2.0, 3.0], "Ixz": 0.0,
                                       "cg_height": 0.5}})
    assert unit.sprung_mass.inertia == (1.0, 2.0, 3.0)
    assert unit.payloads == () and unit.name is None
    assert unit.collision.enabled and unit.collision.damping_ratio == 0.1
    # the vehicle class's defaults are filled when an event is validated, not in a part of one
    assert unit.collision.crush_stiffness is None and unit.vehicle_class is None
    with pytest.raises(ValueError, match="sprung_mass.weight: not a field"):
        typed_unit({"sprung_mass": {"weight": 1.0}})
    event = engine.load_event()
    assert typed_event(event) is event.model and typed_event(event.model) is event.model
    assert typed_event(event.data) == event.model


@pytest.mark.parametrize("source", [None, TRACTOR_SEMITRAILER_EVENT])
def test_derived_quantities_are_what_the_engine_packs(source):
    event = engine.load_event(source)
    sim = engine.Simulation(event)
    for unit in event.model.units:
        assert derived.unit_mass(unit) == sim.unit_mass(unit.name)
        assert derived.wheelbase(unit) == sim.unit_wheelbase(unit.name)
    lead = event.model.units[0].name
    assert derived.vehicle_mass(event, lead) == sum(sim.unit_mass(u.name) for u in event.model.units)
    axle_loads = derived.static_axle_loads(event, lead)
    assert len(axle_loads) == len(event.model.units[0].axles)
    assert all(load > 0.0 for load in axle_loads)
