"""The FMU variables of a combination: lead and towed units, connections, solid axles.

The car's catalogue is the contract of issue 2 and must not change: it is compared, variable by
variable (name, value reference, type, causality, unit, start, range, description, binding),
with ``data/sedan_catalogue.json``, the catalogue the car had before combinations existed,
with the three tire outputs the terrain brought (contactZ, frictionAvailable, waterDepth) and
the six aerodynamic outputs of each unit (``<unit>.aero.Fx`` .. ``<unit>.aero.Mz``), which
number the wheel and tire outputs after them six places later; the drivetrain's engineSpeed
and clutchSlip; the brakes' brakeTemperature and brakeTorqueRatio per wheel; and what the
steering system brought: the parameter steeringMode (an Enumeration), the input
steeringWheelTorque, the outputs steering.angle, .rate, .torque and, per tire,
pneumaticTrail and Mz (so the value references from car.steeringMode on moved); and the
collision outputs of each unit (``<unit>.collision.Fx`` .. ``.Mz``, ``.contact``, ``.deltaV``,
``.maxCrush``) after its aerodynamic ones; and the
tilt table's environment input gravityTilt after windDirection (every value reference after it
one place later).

A change that adds or moves the car's variables on purpose rewrites the file with
``tools/update_catalogue_snapshot.py``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import fmpy
import pytest
from fmpy.validation import validate_fmu
from lxml import etree

import engine
from engine.signals import AXLE_OUTPUTS, DRIVETRAIN_OUTPUTS, HITCH_OUTPUTS, STEERING_OUTPUTS
from model_description import build_catalogue, model_description_xml, variable_table
from model_description.catalogue import AXLE_FIELDS, HITCH_FIELDS, HITCH_NAMES, OPTION_INPUTS, ROAD_INPUTS
from simon_fmu.vehicle.build import DESCRIPTION, fmu_model_description

DATA = Path(__file__).parent / "data"
EVENTS = Path(engine.__file__).parent / "data"
XSD = Path(fmpy.__file__).parent / "schema" / "fmi2" / "fmi2ModelDescription.xsd"
DATE = "2024-01-01T00:00:00Z"
LEAD_ONLY = ("speed0", "X0", "Y0", "yaw0", "roll0", "pitch0", "lateralSpeed0", "verticalSpeed0",
             "rollRate0", "pitchRate0", "yawRate0", "steeringWheelAngle", "throttle",
             "brakePedalForce", "gear", "steeringWheelTorque", "steeringMode",
             "steering.angle", "steering.rate", "steering.torque")


@pytest.fixture(scope="module")
def combination():
    return engine.load_event(EVENTS / "tractor-semitrailer.json")


@pytest.fixture(scope="module")
def catalogue(combination):
    return build_catalogue(combination)


def test_the_car_catalogue_is_unchanged():
    expected = json.loads((DATA / "sedan_catalogue.json").read_text())
    catalogue = build_catalogue(engine.load_event())
    rows = [[getattr(v, c) for c in expected["columns"]] for v in catalogue]
    for row in rows:
        source, index = row[expected["columns"].index("binding")]
        row[expected["columns"].index("binding")] = [source, list(index)]
    # 150, and since the launch parameters (engine.setup.launch) roll0, pitch0, lateralSpeed0,
    # verticalSpeed0, rollRate0, pitchRate0 and yawRate0: 157; since the differential gear
    # table (the input car.differentialGear, a two-speed axle): 158; since the CRASH3 A
    # coefficients (the output car.collision.residualCrush): 159; since the live collision
    # pulse (car.collision.deltaVx, deltaVy, pdof and duration): 163; since the residual crush
    # profile (car.collision.crushFace, crushWidth, crushC1..crushC6): 171; since the
    # integrator's sub-steps (the parameter substeps, the outputs solver.splitSteps and
    # solver.mostSubsteps): 174; since the integration method as a parameter (integrator): 175
    assert len(rows) == len(expected["variables"]) == 175
    for row, want in zip(rows, expected["variables"]):
        assert row == want, row[0]
    xml = model_description_xml(catalogue, model_identifier="SimonCar",
                                guid="{00000000-0000-0000-0000-000000000000}",
                                generated_at=DATE, description=DESCRIPTION)
    assert hashlib.sha256(xml).hexdigest() == expected["model_description_sha256"]


def test_only_lead_units_have_initial_conditions_and_driver_inputs(catalogue):
    c = catalogue.by_name
    for key in LEAD_ONLY:
        assert f"tractor.{key}" in c
        assert f"trailer.{key}" not in c
    assert c["tractor.speed0"].binding == ("initial", ("tractor", "speed0"))
    assert c["tractor.gear"].binding == ("u_unit", (0, engine.UNIT_INPUTS.index("gear")))
    assert not [v for v in catalogue if v.binding.source == "u_unit" and v.binding.index[0] != 0]
    assert not [v for v in catalogue if v.binding.source == "initial"
                and v.binding.index[0] != "tractor"]
    # every unit keeps its outputs, calculated parameters and its wheels' inputs
    for unit in ("tractor", "trailer"):
        for key in engine.UNIT_OUTPUTS:
            if key in DRIVETRAIN_OUTPUTS and unit == "trailer":
                assert f"{unit}.{key}" not in c       # a towed unit has no drivetrain
                continue
            assert c[f"{unit}.{key}"].causality == "output"
        for key in ("mass", "wheelbase"):
            assert c[f"{unit}.{key}"].causality == "calculatedParameter"
    for wheel in [f"{u}.axle{k}.{side}" for u in ("tractor", "trailer") for k in (1, 2, 3)
                  for side in ("left", "right")]:
        for key in engine.WHEEL_INPUTS:   # the road inputs are an external terrain's only,
            # the table inputs a brakes/drivetrain table option's only, steerAngle At Axle's only
            absent = key in ROAD_INPUTS or key in OPTION_INPUTS
            assert f"{wheel}.{key}" not in c if absent else c[f"{wheel}.{key}"].causality == "input"
    for side in ("left", "right"):   # the tractor's drive axles run on duals
        for pos in ("inner", "outer"):
            assert c[f"tractor.axle2.{side}.{pos}.Fz"].causality == "output"


def test_towed_units_have_the_connection_outputs(catalogue):
    c = catalogue.by_name
    names = ["trailer.articulation", "trailer.hitch.Fx", "trailer.hitch.Fy", "trailer.hitch.Fz",
             "trailer.hitch.failed", "trailer.hitch.separation"]
    for j, name in enumerate(names):
        v = c[name]
        assert v.causality == "output"
        assert v.binding == ("y_conn", (0, j))
        assert HITCH_OUTPUTS[j] == name.rsplit(".", 1)[1]
    assert (c["trailer.articulation"].unit, c["trailer.articulation"].display_unit) == ("rad", "deg")
    for axis in "xyz":
        assert c[f"trailer.hitch.F{axis}"].unit == "N"
    assert c["trailer.hitch.separation"].unit == "m"
    failed = c["trailer.hitch.failed"]
    assert (failed.type, failed.variability, failed.unit) == ("Boolean", "discrete", None)
    assert not [v.name for v in catalogue if v.name.startswith("tractor.")
                and (".hitch." in v.name or v.name.endswith(".articulation"))]


def test_solid_axles_have_roll_and_heave(combination, catalogue):
    c = catalogue.by_name
    for i, axle in enumerate(combination.solid_axle_names()):
        for j, key in enumerate(AXLE_OUTPUTS):
            v = c[f"{axle}.{key}"]
            assert (v.causality, v.binding) == ("output", ("y_axle", (i, j)))
    assert (c["tractor.axle1.roll"].unit, c["tractor.axle1.roll"].display_unit) == ("rad", "deg")
    assert c["trailer.axle1.heave"].unit == "m"
    assert len([v for v in catalogue if v.binding.source == "y_axle"]) == 6 * len(AXLE_OUTPUTS)


def test_bindings_cover_every_cell_once_and_numbering_follows_the_order(combination, catalogue):
    sizes = {"u_wheel": (len(combination.wheel_names()), len(engine.WHEEL_INPUTS)),
             "y_unit": (len(combination.units), len(engine.UNIT_OUTPUTS)),
             "y_wheel": (len(combination.wheel_names()), len(engine.WHEEL_OUTPUTS)),
             "y_tire": (len(combination.tire_names()), len(engine.TIRE_OUTPUTS)),
             "y_axle": (len(combination.solid_axle_names()), len(AXLE_OUTPUTS)),
             "y_conn": (len(combination.connection_names()), len(HITCH_OUTPUTS)),
             "y_steer": (len(combination.steering_unit_names()), len(STEERING_OUTPUTS))}
    for source, (rows, columns) in sizes.items():
        cells = [v.binding.index for v in catalogue if v.binding.source == source]
        # on flat ground the wheels have no road inputs; with pedal brakes, an engine and the
        # steering option At Steering Wheel, no table inputs and no steerAngle
        used = [j for j in range(columns) if source != "u_wheel"
                or engine.WHEEL_INPUTS[j] not in ROAD_INPUTS + OPTION_INPUTS]
        # a towed unit (the trailer, row 1) has no drivetrain outputs
        expected = [(i, j) for i in range(rows) for j in used
                    if not (source == "y_unit" and i == 1
                            and engine.UNIT_OUTPUTS[j] in DRIVETRAIN_OUTPUTS)]
        assert sorted(cells) == expected, source
    assert [v.value_reference for v in catalogue] == list(range(len(catalogue)))
    names = [v.name for v in catalogue]
    # the trailer's variables follow the tractor's; a unit's connection outputs follow its
    # own outputs, an axle's outputs precede its wheels'
    assert names.index("trailer.mass") > names.index("tractor.axle3.right.outer.skid")
    assert names.index("trailer.sideslip") < names.index("trailer.articulation") \
        < names.index("trailer.hitch.separation") < names.index("trailer.axle1.roll") \
        < names.index("trailer.axle1.left.steer")


def test_descriptions_say_frames_and_units():
    assert set(AXLE_FIELDS) == set(AXLE_OUTPUTS) and set(HITCH_FIELDS) == set(HITCH_OUTPUTS)
    assert HITCH_NAMES["articulation"] == "<unit>.articulation"
    assert HITCH_NAMES["Fz"] == "<unit>.hitch.Fz"
    assert "Eq. 126" in HITCH_FIELDS["articulation"].description
    for key in ("Fx", "Fy", "Fz"):
        assert "vehicle-fixed" in HITCH_FIELDS[key].description


def test_combination_model_description_validates(combination, tmp_path):
    xml = fmu_model_description(combination, generated_at=DATE)
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    assert schema.validate(etree.fromstring(xml)), schema.error_log
    (tmp_path / "modelDescription.xml").write_bytes(xml)
    assert validate_fmu(str(tmp_path)) == []


def test_markdown_lists_the_combination_patterns(catalogue):
    table = variable_table(catalogue)
    for pattern in ("<unit>.articulation", "<unit>.hitch.Fx", "<unit>.hitch.failed",
                    "<unit>.hitch.separation", "<unit>.axle<k>.roll", "<unit>.axle<k>.heave"):
        assert f"| `{pattern}` | output |" in table


def test_the_slave_reads_the_arrays_its_outputs_bind(combination, catalogue):
    from simon_fmu.vehicle.slave import _input_arrays, _output_sources
    assert _output_sources(build_catalogue(engine.load_event())) == ("y_unit", "y_wheel", "y_tire",
                                                                     "y_steer", "y_solver")
    assert _output_sources(catalogue) == ("y_unit", "y_wheel", "y_tire", "y_axle", "y_conn",
                                          "y_steer", "y_solver")
    inputs = _input_arrays(combination, catalogue)
    assert inputs["u_unit"].shape == (2, len(engine.UNIT_INPUTS))
    # the towed unit's row, which no variable sets, holds the inputs' defaults
    assert list(inputs["u_unit"][1]) == [engine.INPUT_LIMITS[k][2] for k in engine.UNIT_INPUTS]


def test_variables_page_lists_the_variables_a_combination_adds():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "update_variable_tables",
        Path(__file__).parents[1] / "tools" / "update_variable_tables.py")
    update_variable_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(update_variable_tables)
    from support.docs import variables_section
    expected = update_variable_tables.sections()["combination-variables"]
    assert variables_section("combination-variables") == expected, \
        "run: .venv/bin/python tools/update_variable_tables.py"
    for pattern in ("<unit>.articulation", "<unit>.hitch.failed", "<unit>.axle<k>.roll"):
        assert f"| `{pattern}` |" in expected
    assert "| `<unit>.speed0` |" not in expected


def test_the_double_has_one_set_of_connection_outputs_per_towed_unit():
    event = engine.load_event(EVENTS / "double.json")
    c = build_catalogue(event).by_name
    assert event.connection_names() == ["trailer1", "dolly", "trailer2"]
    for i, unit in enumerate(event.connection_names()):
        assert c[f"{unit}.articulation"].binding == ("y_conn", (i, 0))
        assert c[f"{unit}.hitch.failed"].binding == ("y_conn", (i, HITCH_OUTPUTS.index("failed")))
        assert f"{unit}.speed0" not in c and f"{unit}.brakePedalForce" not in c
    assert c["dolly.axle1.roll"].binding == ("y_axle", (event.solid_axle_names().index(
        "dolly.axle1"), 0))
    start = event.data["units"][0]["initial"]
    assert (c["tractor.speed0"].start, c["tractor.yaw0"].start) == (start["speed"], start["yaw"])


# ---------------------------------------------------------------- through the built FMU
@pytest.fixture(scope="module")
def tractor_semitrailer_fmu(semitrailer_fmu):
    """engine/data/tractor-semitrailer.json's FMU: conftest's, built once per session."""
    return semitrailer_fmu


def _tire_loads(inst, unit):
    return sum(inst.get(v.name) for v in inst.md.modelVariables
               if v.name.startswith(f"{unit}.axle") and v.name.endswith(".Fz"))


def test_the_lead_unit_places_the_combination_and_the_hitch_carries_the_rest(
        tractor_semitrailer_fmu, instance):
    inst = instance(tractor_semitrailer_fmu)
    assert "trailer.speed0" not in inst.vr and "trailer.brakePedalForce" not in inst.vr
    inst.start({"tractor.speed0": 12.0, "tractor.yaw0": 0.3})
    # in line, at the lead unit's speed
    assert inst.get("trailer.u") == pytest.approx(12.0, abs=1e-9)
    assert inst.get("trailer.yaw") == pytest.approx(0.3, abs=1e-12)
    assert inst.get("trailer.articulation") == pytest.approx(0.0, abs=1e-12)
    assert inst.types["trailer.hitch.failed"] == "Boolean" and not inst.get("trailer.hitch.failed")
    assert 0.0 <= inst.get("trailer.hitch.separation") < 1e-3
    # vertical balance of the trailer (tires and kingpin) and of the whole combination; they
    # agree to 2e-13 and 2e-15 (rounding)
    g = engine.load_event(EVENTS / "tractor-semitrailer.json").data["environment"]["gravity"]
    trailer, tractor = inst.get("trailer.mass") * g, inst.get("tractor.mass") * g
    kingpin = -inst.get("trailer.hitch.Fz")    # z down: the fifth wheel pushes up
    assert kingpin > 0.0
    assert _tire_loads(inst, "trailer") + kingpin == pytest.approx(trailer, rel=1e-12)
    assert _tire_loads(inst, "tractor") + _tire_loads(inst, "trailer") == \
        pytest.approx(tractor + trailer, rel=1e-14)


def test_connection_and_axle_outputs_read_alike_one_by_one_in_bulk_and_after_a_restore(
        tractor_semitrailer_fmu, instance):
    inst = instance(tractor_semitrailer_fmu)
    inst.start({"tractor.speed0": 15.0})
    inst.set("tractor.steeringWheelAngle", 0.5)
    inst.set("tractor.brakePedalForce", 300.0)
    for k in range(20):
        inst.fmu.doStep(currentCommunicationPoint=0.01 * k, communicationStepSize=0.01)
    names = [v.name for v in inst.md.modelVariables if v.causality == "output"
             and v.type == "Real" and (".hitch." in v.name or v.name.endswith(
                 (".articulation", ".roll", ".heave")))]
    assert len(names) == 5 + 2 + 2 * 6   # the connection; the two units' roll; six solid axles
    bulk = inst.get_reals(names)      # the gathered path (8 values or more)
    assert bulk == [inst.get(n) for n in names]
    assert inst.get("trailer.articulation") != 0.0 and inst.get("tractor.axle1.roll") != 0.0
    state = inst.fmu.getFMUstate()
    inst.fmu.doStep(currentCommunicationPoint=0.2, communicationStepSize=0.1)
    assert inst.get_reals(names) != bulk
    inst.fmu.setFMUstate(state)
    assert inst.get_reals(names) == bulk
    inst.fmu.freeFMUstate(state)


def test_hitch_failed_turns_true_when_the_connection_fails(fmu_dir, instance):
    from conftest import build
    data = json.loads(engine.load_event(EVENTS / "tractor-semitrailer.json").to_json())
    front = data["units"][1]["connections"]["front"]
    front.update(failure_force=1000.0, failure_start_time=0.05)   # below the kingpin load
    event_file = fmu_dir / "weak-kingpin.json"
    event_file.write_text(json.dumps(data))
    inst = instance(build(event_file, fmu_dir / "WeakKingpin.fmu"))
    inst.start({"tractor.speed0": 10.0})
    failed = []
    for k in range(20):
        inst.fmu.doStep(currentCommunicationPoint=0.01 * k, communicationStepSize=0.01)
        failed.append(inst.fmu.getBoolean([inst.vr["trailer.hitch.failed"]])[0])
    assert not any(failed[:4])          # not before the failure start time
    assert all(failed[6:])              # latched once failed
