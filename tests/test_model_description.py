"""The catalogue and the modelDescription.xml generated from it."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import fmpy
import pytest
from fmpy.model_description import read_model_description
from fmpy.validation import validate_fmu
from lxml import etree

import engine
from engine.signals import STEERING_OUTPUTS
from model_description import build_catalogue, variable_table
from model_description.catalogue import OPTION_INPUTS, ROAD_INPUTS, TIRE_NAMES
from simon_fmu.vehicle.build import fmu_model_description

from conftest import renamed_event

WHEELS = [f"car.axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]
XSD = Path(fmpy.__file__).parent / "schema" / "fmi2" / "fmi2ModelDescription.xsd"
DATE = "2024-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def event():
    return engine.load_event()


@pytest.fixture(scope="module")
def catalogue(event):
    return build_catalogue(event)


@pytest.fixture(scope="module")
def xml(event) -> bytes:
    return fmu_model_description(event, generated_at=DATE)


def test_names_and_value_references_are_unique(catalogue):
    names = [v.name for v in catalogue]
    refs = [v.value_reference for v in catalogue]
    assert len(set(names)) == len(names)
    assert sorted(refs) == list(range(len(refs)))


def test_value_references_are_deterministic(event, catalogue):
    again = build_catalogue(engine.load_event())
    assert [(v.name, v.value_reference) for v in again] == \
        [(v.name, v.value_reference) for v in catalogue]


def test_interface_names_of_issue_2(catalogue):
    c = catalogue.by_name
    for name in ("steeringWheelAngle", "throttle", "brakePedalForce"):
        assert c[f"car.{name}"].causality == "input" and c[f"car.{name}"].type == "Real"
    assert c["car.gear"].type == "Integer" and c["car.gear"].causality == "input"
    assert c["car.steeringWheelAngle"].unit == "rad"
    assert c["windSpeed"].unit == "m/s" and c["windDirection"].unit == "rad"
    for wheel in WHEELS:
        factor = c[f"{wheel}.brakePressureFactor"]
        assert (factor.causality, factor.start, factor.min, factor.max) == ("input", 1.0, 0.0, 1.0)
        assert c[f"{wheel}.frictionMultiplier"].causality == "input"
        for field in engine.WHEEL_OUTPUTS + tuple(TIRE_NAMES.get(f, f) for f in engine.TIRE_OUTPUTS):
            assert c[f"{wheel}.{field}"].causality == "output"
        assert c[f"{wheel}.skid"].type == "Boolean"
        assert c[f"{wheel}.Fz"].unit == "N"
    for name in ("speed0", "X0", "Y0", "yaw0"):
        assert c[f"car.{name}"].causality == "parameter"
    for name in ("stepSize", "frictionMultiplier"):
        assert c[name].causality == "parameter"
    assert c["stepSize"].start == 0.001
    for name in ("mass", "wheelbase"):
        assert c[f"car.{name}"].causality == "calculatedParameter"
    for field in engine.UNIT_OUTPUTS:
        assert c[f"car.{field}"].causality == "output"


@pytest.mark.parametrize("terrain", ["flat", "external"])
def test_every_engine_field_has_a_variable(terrain):
    """The bindings cover every cell of the engine's input and output arrays exactly once, but
    the road inputs (ROAD_INPUTS), which only an external terrain has, and the inputs of the
    options (OPTION_INPUTS: the brake and throttle tables, the road-wheel angles of At Axle
    steering), which the sedan's pedal, engine and At Steering Wheel options do not read."""
    data = engine.load_event().data
    data["environment"]["terrain"] = {"type": terrain}
    event = engine.load_event(data)
    catalogue = build_catalogue(event)
    road = [k for k in engine.WHEEL_INPUTS if k in ROAD_INPUTS]
    assert road == ["roadZ", "roadGradeX", "roadGradeY", "roadWaterDepth"]
    wheel_inputs = len(engine.WHEEL_INPUTS) - (0 if terrain == "external" else len(road)) \
        - len(OPTION_INPUTS)
    sizes = {"u_unit": (len(event.units), len(engine.UNIT_INPUTS)),
             "u_wheel": (len(event.wheel_names()), wheel_inputs),
             "u_env": (len(engine.ENV_INPUTS),),
             "y_unit": (len(event.units), len(engine.UNIT_OUTPUTS)),
             "y_wheel": (len(event.wheel_names()), len(engine.WHEEL_OUTPUTS)),
             "y_tire": (len(event.tire_names()), len(engine.TIRE_OUTPUTS)),
             "y_steer": (len(event.steering_unit_names()), len(STEERING_OUTPUTS))}
    for source, shape in sizes.items():
        cells = [v.binding.index for v in catalogue if v.binding.source == source]
        assert len(cells) == len(set(cells)) == (shape[0] * shape[1] if len(shape) == 2
                                                 else shape[0]), source


def test_road_inputs_are_the_wheels_on_an_external_terrain_only():
    data = engine.load_event().data
    assert not [v.name for v in build_catalogue(engine.load_event(data)) if ".road" in v.name]
    data["environment"]["terrain"] = {"type": "external"}
    c = build_catalogue(engine.load_event(data))
    for wheel in WHEELS:
        z, gx, gy, water = (c[f"{wheel}.{k}"] for k in ROAD_INPUTS)
        assert (water.causality, water.unit, water.start, water.min, water.max) == ("input", "m", 0.0, 0.0, 1.0)
        assert (z.causality, z.unit, z.start, z.min, z.max) == ("input", "m", 0.0, -1e5, 1e5)
        assert "under the wheel centre" in z.description and "z down" in z.description
        for g, axis in ((gx, "X"), (gy, "Y")):
            assert (g.causality, g.unit, g.start, g.min, g.max) == ("input", None, 0.0, -1.0, 1.0)
            assert f"dZ/d{axis}" in g.description and "earth frame" in g.description
        assert c[f"{wheel}.contactZ"].causality == "output" and c[f"{wheel}.contactZ"].unit == "m"
        assert c[f"{wheel}.waterDepth"].unit == "m" and c[f"{wheel}.frictionAvailable"].unit is None


def test_unit_names_come_from_the_event():
    catalogue = build_catalogue(engine.load_event(renamed_event("truck")))
    assert "truck.axle2.right.Fz" in catalogue.by_name
    assert not [v.name for v in catalogue if v.name.startswith("car.")]


def test_xml_validates_against_the_fmi2_schema(xml):
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    document = etree.fromstring(xml)
    assert schema.validate(document), schema.error_log


def test_fmpy_validation_reports_no_problem(xml, tmp_path):
    (tmp_path / "modelDescription.xml").write_bytes(xml)
    assert validate_fmu(str(tmp_path)) == []
    md = read_model_description(str(tmp_path), validate=True, validate_variable_names=True,
                                validate_model_structure=True)
    assert md.variableNamingConvention == "structured"
    assert md.coSimulation.canGetAndSetFMUstate and md.coSimulation.canSerializeFMUstate
    assert md.coSimulation.canHandleVariableCommunicationStepSize
    assert not md.coSimulation.needsExecutionTool
    assert md.coSimulation.canNotUseMemoryManagementFunctions
    assert (md.defaultExperiment.startTime, md.defaultExperiment.stopTime,
            md.defaultExperiment.stepSize) == ("0.0", "10.0", "0.01")
    assert md.generationTool and md.generationDateAndTime == DATE


def test_units_and_display_units(xml):
    root = etree.fromstring(xml)
    units = {u.get("name"): u for u in root.iter("Unit")}
    assert {"m", "m/s", "rad", "rad/s", "m/s2", "N", "N.m", "Pa", "kg", "s"} <= set(units)
    newton = units["N"].find("BaseUnit").attrib
    assert dict(newton) == {"kg": "1", "m": "1", "s": "-2"}
    display = {(u.getparent().get("name"), u.get("name")): float(u.get("factor"))
               for u in root.iter("DisplayUnit")}
    assert display[("rad", "deg")] == pytest.approx(57.29577951308232)
    assert display[("m/s", "km/h")] == 3.6
    assert display[("Pa", "bar")] == 1e-5
    assert display[("N", "kN")] == 1e-3
    assert display[("m/s2", "g")] == pytest.approx(1 / 9.80665)
    # every unit is written once, in the type definitions; variables refer to the types
    assert not root.xpath("//ScalarVariable/Real[@unit]")


def test_model_structure_dependencies(xml, catalogue):
    root = etree.fromstring(xml)
    outputs = root.find("ModelStructure/Outputs")
    assert [int(u.get("index")) for u in outputs] == \
        [catalogue.index_of(v) for v in catalogue.with_causality("output")]
    assert all(u.get("dependencies") == "" for u in outputs)
    parameters = {catalogue.index_of(v) for v in catalogue.with_causality("parameter")}
    initial = root.find("ModelStructure/InitialUnknowns")
    for u in initial:
        v = catalogue.variables[int(u.get("index")) - 1]
        deps = {int(i) for i in u.get("dependencies").split()}
        assert deps == (parameters if v.causality == "output" else set())


def test_log_categories_are_the_ones_the_slave_uses(xml):
    root = etree.fromstring(xml)
    declared = {c.get("name") for c in root.iter("Category")}
    source = (Path(__file__).parents[1] / "simon_fmu" / "vehicle" / "slave.py").read_text()
    used = set(re.findall(r'"(log[A-Z]\w*)"', source))
    assert declared == used


def test_markdown_table(catalogue):
    table = variable_table(catalogue)
    lines = table.splitlines()
    assert lines[0].startswith("| Name | Causality | Type | Unit |")
    assert "| `<unit>.axle<k>.<side>.Fz` | output | Real | N (kN) |" in table
    assert len(lines) - 2 == len({v.pattern for v in catalogue})
    full = variable_table(catalogue, generic=False)
    assert len(full.splitlines()) - 2 == len(catalogue)


def test_xml_inside_the_built_fmu_equals_the_generated_xml(car_fmu, event):
    with zipfile.ZipFile(car_fmu) as z:
        inside = z.read("modelDescription.xml")
        digest = z.read("resources/slavemodule.txt").decode().strip().removeprefix("simon_slave_")
    date = etree.fromstring(inside).get("generationDateAndTime")
    assert inside == fmu_model_description(event, generated_at=date, code_digest=digest)


def test_built_fmu_passes_fmpy_validate(car_fmu, truck_fmu):
    assert validate_fmu(str(car_fmu)) == []
    assert validate_fmu(str(truck_fmu)) == []


def test_dual_tires_sit_under_inner_and_outer(tmp_path):
    data = renamed_event("car")
    data["units"][0]["axles"][1].update(dual=True, dual_spacing=0.3)
    event = engine.load_event(data)
    catalogue = build_catalogue(event)
    for side in ("left", "right"):
        for pos in ("inner", "outer"):
            assert catalogue[f"car.axle2.{side}.{pos}.Fz"].causality == "output"
            assert catalogue[f"car.axle2.{side}.{pos}.skid"].type == "Boolean"
        assert f"car.axle2.{side}.Fz" not in catalogue.by_name
        assert catalogue[f"car.axle2.{side}.spin"].causality == "output"
    assert "<unit>.axle<k>.<side>.inner.Fz" in {v.pattern for v in catalogue}
    (tmp_path / "modelDescription.xml").write_bytes(fmu_model_description(event, generated_at=DATE))
    assert validate_fmu(str(tmp_path)) == []
