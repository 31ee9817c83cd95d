"""The start on a crossfall through the built FMU (fmpy): the vehicle starts in equilibrium
across the slope (docs/equations.md, "Static equilibrium on a grade or a crossfall").

At t = 0+ the tires' lateral forces sum to m g sin(theta) up the slope (closed form), and in
the first steps the lateral acceleration and the roll rate stay near zero. Without the
preload the car would start at the lateral acceleration g sin(theta) (0.39 m/s^2 on the 4 %
crossfall; measured 0.388 m/s^2 after 1 ms at rest), its roll rate growing to 2.4e-3 rad/s in
20 ms as the carcasses deflect; the tolerances below are a few times what the preloaded start
measured and far below those.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
from support.roads import grid_mesh_obj
from support.fmus import event_fmu
from support.run import run
from support.sedan import G, M, loaded_radius, static_loads

SLOPE = 0.04                               # Z = SLOPE * Y: the road falls to the right
THETA = math.atan(SLOPE)
H = 0.001                                  # the communication step (the event's step size)
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
TRACK = [a["track"] for a in engine.load_event().data["units"][0]["axles"]]
CG_HEIGHT = engine.load_event().data["units"][0]["sprung_mass"]["cg_height"]


def _on_crossfall(data, fmu_dir, name, x_range=(-5.0, 60.0)):
    obj = grid_mesh_obj(fmu_dir / f"{name}.obj", lambda x, y: SLOPE * y + 0.0 * x, x_range,
                        (-8.0, 8.0), (13, 4))
    data["environment"]["terrain"] = {"type": "mesh", "file": str(obj), "materials": {}}
    data["simulation"]["step_size"] = H
    return event_fmu(fmu_dir, name, data)


@pytest.fixture(scope="module")
def crossfall_fmu(fmu_dir):
    return _on_crossfall(json.loads(engine.load_event().to_json()), fmu_dir, "crossfall_start")


def _first_steps(inst, names, n=20, control=None):
    out = run(inst, n * H, control, h=H, record=tuple(names))
    return {k: np.max(np.abs(out[k])) for k in names}


def test_at_rest_on_a_mesh_crossfall_the_tires_carry_m_g_sin(instance, crossfall_fmu):
    inst = instance(crossfall_fmu).start({"car.speed0": 0.0})
    fy = sum(inst.get_reals([f"{w}.Fy" for w in WHEELS]))
    # up the slope (tire frame y' right, in the road plane); measured 6e-8 relative
    assert fy == pytest.approx(-M * G * math.sin(THETA), rel=1e-5)
    peak = _first_steps(inst, ("car.ay", "car.p"))
    assert peak["car.ay"] < 5e-4          # measured 1.3e-4 m/s^2 in 20 ms (0.39 without)
    assert peak["car.p"] < 2e-5           # measured 3.8e-6 rad/s (2.4e-3 without)


def test_rolling_straight_on_a_mesh_crossfall(instance, crossfall_fmu):
    """At 20 m/s the tires need a slip angle: the car starts drifting sideways at the v of
    sin(alpha) = sum F_y / sum C_alpha, with the carcasses preloaded."""
    inst = instance(crossfall_fmu).start({"car.speed0": 20.0})
    fy = sum(inst.get_reals([f"{w}.Fy" for w in WHEELS]))
    assert fy == pytest.approx(-M * G * math.sin(THETA), rel=1e-4)     # measured 2e-5
    assert inst.get("car.v") > 0.0                                     # downhill drift
    peak = _first_steps(inst, ("car.ay", "car.p"), n=10)
    assert peak["car.ay"] < 0.03          # measured 0.015 m/s^2 in 10 ms (0.39 without)
    assert peak["car.p"] < 5e-4           # measured 2.1e-4 rad/s


def test_at_rest_on_the_crossfall_of_the_road_inputs(instance, fmu_dir):
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "external"}
    data["simulation"]["step_size"] = H
    inst = instance(event_fmu(fmu_dir, "external_crossfall", data))

    def wheel_y(w, roll, Y):
        """Earth Y of the wheel centre: the body rolled by ``roll`` about its CG, the centre
        at the loaded radius above the ground (each wheel's road plane passes through its
        centre's X, Y, so that the four planes are the one crossfall)."""
        k = 0 if ".axle1." in w else 1
        load = static_loads()[k]
        z = CG_HEIGHT - loaded_radius(load)
        y = (1 if w.endswith("right") else -1) * TRACK[k] / 2
        return Y + y * math.cos(roll) - z * math.sin(roll)

    def road(roll, Y):
        for w in WHEELS:
            inst.set(f"{w}.roadZ", SLOPE * wheel_y(w, roll, Y))
            inst.set(f"{w}.roadGradeY", SLOPE)

    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.speed0", 0.0)
    road(THETA, 0.0)      # no get in initialization mode: the car starts at Y = 0
    inst.fmu.exitInitializationMode()
    assert THETA < inst.get("car.roll") < THETA + 0.01
    fy = sum(inst.get_reals([f"{w}.Fy" for w in WHEELS]))
    assert fy == pytest.approx(-M * G * math.sin(THETA), rel=1e-5)
    # the road inputs held: over 20 ms the car moves by micrometres
    peak = _first_steps(inst, ("car.ay", "car.p"))
    assert peak["car.ay"] < 5e-4          # measured 1.3e-4 m/s^2, as on the mesh
    assert peak["car.p"] < 2e-5           # measured 3.8e-6 rad/s


def test_road_inputs_changed_after_a_read_in_initialisation_place_the_car(instance, fmu_dir):
    """An output read during initialisation builds the start from the road inputs then; road
    inputs given after that read still place the car on their road at the end of
    initialisation (the start is built again), as without the read: the same roll and lateral
    forces to the bit (before, the start of the first read stayed: the car level on the
    crossfall, roll 0)."""
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "external"}
    data["simulation"]["step_size"] = H
    fmu = event_fmu(fmu_dir, "external_crossfall", data)
    names = ["car.roll", "car.Z"] + [f"{w}.Fy" for w in WHEELS]
    starts = []
    for read_first in (False, True):
        inst = instance(fmu)
        inst.fmu.setupExperiment(startTime=0.0)
        inst.fmu.enterInitializationMode()
        inst.set("car.speed0", 0.0)
        if read_first:
            assert abs(inst.get("car.roll")) < 1e-12      # on the level road of the start values
        for w in WHEELS:
            inst.set(f"{w}.roadZ", SLOPE * (1 if w.endswith("right") else -1) * 0.75)
            inst.set(f"{w}.roadGradeY", SLOPE)
        inst.fmu.exitInitializationMode()
        starts.append(inst.get_reals(names))
    assert starts[1] == starts[0]
    assert starts[0][0] > 0.5 * THETA


def test_a_tractor_semitrailer_at_rest_on_a_mesh_crossfall(instance, fmu_dir):
    """Every unit (solid axles, the kingpin carrying its share P sin(theta) of the
    semitrailer's lateral weight): all the tires together carry M g sin(theta)."""
    data = json.loads(engine.load_event(TRACTOR_SEMITRAILER_EVENT).to_json())
    fmu = _on_crossfall(data, fmu_dir, "semitrailer_crossfall", x_range=(-40.0, 20.0))
    ev = engine.load_event(data)
    units = [u.name for u in ev.units]
    mass = sum(u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"])
               for u in data["units"])
    inst = instance(fmu).start({f"{units[0]}.speed0": 0.0})
    tires = [n for n in inst.vr if n.endswith(".Fy") and ".axle" in n]
    assert len(tires) == len(ev.tire_names())
    fy = sum(inst.get_reals(tires))
    g = data["environment"]["gravity"]
    assert fy == pytest.approx(-mass * g * math.sin(THETA), rel=2e-4)     # measured 3.5e-5
    peak = _first_steps(inst, [f"{u}.{k}" for u in units for k in ("ay", "p")])
    for u in units:
        assert peak[f"{u}.ay"] < 1e-3     # measured 1.4e-4 m/s^2 (0.39 without)
        assert peak[f"{u}.p"] < 2e-5      # measured 4e-6 rad/s (1.1e-3 without)
