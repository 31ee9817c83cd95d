"""The reference sedan on terrain through the built FMU (fmpy), against closed forms: a car
rolling back down a grade on a mesh and on the same grade given through the external road
inputs, climbing onto a plateau, a locked stop on a material of lower friction, standing on a
crossfall, the NASA hydroplaning speed, and a tire leaving the mesh.

The meshes are written by the tests (tests/support/roads.py, tests/support/terrain.py); every
expected value comes from the sedan sheet (the default event) and the surface's own geometry."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from support.fmus import event_fmu
from support.run import run
from support.sedan import G, M, TIRE, rolling_back_acceleration
from support.terrain import GRADE, mesh_event, rolling_back

EV = engine.load_event().data
UNIT = EV["units"][0]
AXLE_X = [a["x"] for a in UNIT["axles"]]
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]


def test_rolling_back_down_a_mesh_grade(fmu_dir, instance):
    """The road rises with X (Z = -0.05 X, Z down): the car, released at rest, rolls back."""
    data = mesh_event(fmu_dir, "grade", lambda x, y: -GRADE * x)
    a, out = rolling_back(event_fmu(fmu_dir, "grade", data), instance)
    theory = rolling_back_acceleration(GRADE)
    assert a == pytest.approx(theory, rel=0.015)          # measured -0.51 %
    assert out["car.pitch"][-1] == pytest.approx(math.atan(GRADE), abs=2e-3)   # nose up


def test_rolling_back_down_the_same_grade_from_the_road_inputs(fmu_dir, instance):
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "external"}
    fmu = event_fmu(fmu_dir, "external", data)

    def road(t, inst):
        X, yaw = inst.get("car.X"), inst.get("car.yaw")
        for w in WHEELS:
            x = AXLE_X[0] if ".axle1." in w else AXLE_X[1]
            inst.set(f"{w}.roadZ", -GRADE * (X + math.cos(yaw) * x))
            inst.set(f"{w}.roadGradeX", -GRADE)

    inst = instance(fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    for w in WHEELS:
        x = AXLE_X[0] if ".axle1." in w else AXLE_X[1]
        inst.set(f"{w}.roadZ", -GRADE * x)
        inst.set(f"{w}.roadGradeX", -GRADE)
    inst.fmu.exitInitializationMode()
    # the road inputs given at initialisation place the car on the grade
    assert inst.get("car.pitch") == pytest.approx(math.atan(GRADE), abs=2e-4)   # 6e-5 measured
    out = run(inst, 3.0, road, record=("car.u", "car.pitch"))
    t, u = out["time"], out["car.u"]
    sel = (t > 1.0) & (t <= 3.0)
    a = np.polyfit(t[sel], u[sel], 1)[0]
    assert a == pytest.approx(rolling_back_acceleration(GRADE), rel=0.015)
    assert out["car.pitch"][-1] == pytest.approx(math.atan(GRADE), abs=2e-3)


def test_climbing_onto_a_plateau_raises_the_cg_by_the_step(fmu_dir, instance):
    step = 0.10
    data = mesh_event(fmu_dir, "plateau", lambda x, y: -step * np.clip((x - 10.0) / 2.0, 0.0, 1.0),
                       n=(130, 4))
    inst = instance(event_fmu(fmu_dir, "plateau", data)).start({"car.speed0": 5.0})
    z0 = inst.get("car.Z")
    out = run(inst, 6.0, record=("car.Z", "car.X"))
    assert out["car.X"][-1] > 25.0
    # settled on the plateau: the CG is the step higher (Z down), to the suspension's static state
    assert z0 - out["car.Z"][-1] == pytest.approx(step, abs=1e-3)


def test_a_locked_stop_on_a_material_decelerates_at_f_mu_s_g(fmu_dir, instance):
    f = 0.5
    data = mesh_event(fmu_dir, "low", lambda x, y: 0.0 * x, x_range=(-5.0, 80.0), n=(85, 6),
                       materials={"ice": {"friction_multiplier": f, "water_depth": 0.0}},
                       fn_material=lambda x, y: "ice")
    inst = instance(event_fmu(fmu_dir, "low", data)).start({"car.speed0": 15.0})
    mu_s = TIRE["slide_friction"][0][0]

    def brake(t, inst):
        inst.set("car.brakePedalForce", 3000.0)
    out = run(inst, 1.5, brake, record=("car.u", "car.ax", "car.axle1.left.frictionAvailable"))
    sel = (out["time"] > 0.5) & (out["time"] < 1.5)
    # the car's own drag at these speeds adds ~0.3 %: within the tolerance
    assert np.mean(out["car.ax"][sel]) == pytest.approx(-f * mu_s * G, rel=0.02)
    assert out["car.axle1.left.frictionAvailable"][-1] == pytest.approx(f)


def test_standing_on_a_crossfall_needs_the_lateral_force_m_g_sin(fmu_dir, instance):
    slope = 0.04                      # Z = 0.04 Y: the road falls to the right
    data = mesh_event(fmu_dir, "crossfall", lambda x, y: slope * y, n=(13, 6))
    inst = instance(event_fmu(fmu_dir, "crossfall", data)).start({"car.speed0": 0.0})
    names = [f"{w}.Fy" for w in WHEELS]
    run(inst, 2.0)
    fy = sum(inst.get_reals(names))
    th = math.atan(slope)
    # the ground holds the car up the slope (tire frame y' right, in the road plane)
    assert fy == pytest.approx(-M * G * math.sin(th), rel=0.01)
    assert abs(inst.get("car.roll") - th) < 0.01


def test_leaving_the_mesh_is_an_fmi_error_naming_the_tire(fmu_dir, instance):
    data = mesh_event(fmu_dir, "short", lambda x, y: 0.0 * x, x_range=(-5.0, 10.0), n=(15, 6))
    inst = instance(event_fmu(fmu_dir, "short", data)).start({"car.speed0": 10.0})
    status = None
    for n in range(200):
        try:
            inst.fmu.doStep(n * 0.01, 0.01)
        except Exception:                      # fmpy raises on fmi2Error
            status = "error"
            break
    assert status == "error"
    text = " ".join(inst.messages())
    assert "off the terrain at X =" in text and "car.axle1." in text


def test_an_external_road_carries_its_water_depth(fmu_dir, instance):
    """The water depth of an external road comes from the wheel input roadWaterDepth; with
    NASA hydroplaning at 0.8 of the hydroplaning speed the available friction is
    1 - 0.9 (0.8)^2 (docs/equations.md, "Hydroplaning")."""
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "external"}
    data["simulation"]["hydroplaning"] = "nasa"
    p = 220e3
    for tire in data["units"][0]["tires"].values():
        tire.update(inflation_pressure=p, tread_depth=0.003, width=0.195)
    vp = 10.35 * math.sqrt(p / 6894.757293168) * 0.44704
    inst = instance(event_fmu(fmu_dir, "external_wet", data)).start({"car.speed0": 0.8 * vp})
    for w in WHEELS:
        inst.set(f"{w}.roadWaterDepth", 0.005)
    run(inst, 0.02)
    u = inst.get("car.u")
    for w in WHEELS:
        assert inst.get(f"{w}.waterDepth") == pytest.approx(0.005)
        assert inst.get(f"{w}.frictionAvailable") == pytest.approx(1 - 0.9 * (u / vp) ** 2, abs=2e-3)
