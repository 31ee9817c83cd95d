"""The body's collisions with the environment through the built FMU (fmpy), against closed
forms: the default car into a rigid barrier, and a car that rolls over onto its roof.

Barrier: the car rolls in neutral at v into a wall square to its path. Its front face, of
width w and crush stiffness B per unit width, is pressed evenly: the loading work to the
largest approach delta_m is w B delta_m^2 / 2, which equals the kinetic energy it brings
(1/2 m v^2 and its wheels' spin energy). The unloading path returns e^2 of it through a
spring with the damper of damping ratio zeta (docs/equations.md, "Collisions"), so the car
separates at e f(zeta) v, f the separation speed of a damped spring released from rest.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from support.fixtures import BARRIER_X
from support.fmus import event_fmu
from support.barrier import separation_factor
from support.exteriors import box_obj
from support.run import run
from support.sedan import FRONT_X, M

DATA = json.loads(engine.load_event().to_json())
CAR = DATA["units"][0]
G = DATA["environment"]["gravity"]
WIDTH = CAR["dimensions"]["width"]
WALL_X = BARRIER_X                       # 1 m ahead of the car's front (FRONT_X)
V_IN = 10.0
COLL = ["car.collision." + k for k in ("Fx", "Fy", "Fz", "Mx", "My", "Mz", "deltaV", "maxCrush")]
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]


def test_separation_factor_of_a_damped_spring():
    assert separation_factor(0.0) == 1.0
    # the undamped limit and a value from the closed form by hand (zeta = 0.1: 0.8626)
    assert separation_factor(1e-6) == pytest.approx(1.0, abs=1e-5)
    assert separation_factor(0.1) == pytest.approx(0.8626, abs=1e-4)


def test_central_impact_into_a_rigid_barrier(instance, barrier_fmu):
    inst = instance(barrier_fmu).start({"car.speed0": V_IN})
    spin0 = [inst.get(w + ".spin") for w in WHEELS]

    def neutral(t, i):
        i.set("car.gear", 0)

    r = run(inst, 0.6, neutral, h=0.001, record=("car.X", "car.u", "car.pitch") + tuple(COLL))
    col = CAR["collision"]
    e, zeta, B = col["restitution"], col["damping_ratio"], col["crush_stiffness"]["front"]
    m = M
    fx = r["car.collision.Fx"]
    touching = np.flatnonzero(fx != 0.0)
    assert touching.size, "the car never reached the barrier"
    first, last = touching[0], touching[-1]
    assert np.all(fx[first:last + 1] < 0.0)          # the wall only pushes back
    # the approach: the car arrives at V_IN less its rolling resistance over the 1 m gap
    v_in = r["car.u"][first - 1]
    assert v_in == pytest.approx(V_IN, rel=2e-3)
    # it never passes the wall: the front stops maxCrush beyond the wall's plane, well
    # short of the front overhang
    crush = r["car.collision.maxCrush"][-1]
    overhang = FRONT_X - CAR["axles"][0]["x"]
    assert 0.0 < crush < 0.5 * overhang
    x_front = r["car.X"] + FRONT_X
    assert np.max(x_front) - WALL_X == pytest.approx(crush, rel=0.02)
    # energy: the loading work w B delta_m^2 / 2 is the kinetic energy brought in, the
    # wheels' spin included (spin inertia of each wheel's tire)
    tire = CAR["tires"][CAR["axles"][0]["tire"]]
    e_spin = 0.5 * sum(CAR["tires"][a["tire"]]["spin_inertia"] * s ** 2
                       for a, pair in zip(CAR["axles"], (spin0[:2], spin0[2:])) for s in pair)
    assert tire["spin_inertia"] > 0.0
    e_in = 0.5 * m * v_in ** 2 + e_spin
    e_load = 0.5 * WIDTH * B * crush ** 2
    assert e_load == pytest.approx(e_in, rel=0.02)
    # the crush energy, what the unloading path does not return: (1 - e^2) of the loading work
    assert (1 - e * e) * e_load == pytest.approx(0.5 * m * v_in ** 2 * (1 - e * e), rel=0.05)
    # rebound: the speed at separation against e f(zeta) v
    v_out = -r["car.u"][last + 1]
    expected = e * separation_factor(zeta) * v_in
    assert v_out == pytest.approx(expected, rel=0.06)
    # deltaV: the change of the CG velocity since first contact
    assert r["car.collision.deltaV"][last + 1] == pytest.approx(v_in + v_out, rel=0.01)
    # a central impact: no side force, no yaw or roll moment
    assert np.max(np.abs(r["car.collision.Fy"])) < 1e-6 * np.max(np.abs(fx))
    assert np.max(np.abs(r["car.collision.Mz"])) < 1e-6 * np.max(np.abs(fx))
    assert inst.get("car.collision.contact") in (False, 0)      # apart again


@pytest.fixture(scope="module")
def rollover_fmu(fmu_dir):
    return event_fmu(fmu_dir, "collision_rollover", copy.deepcopy(DATA))


def test_a_rolled_over_car_comes_to_rest_on_its_roof(instance, rollover_fmu):
    """A 6 rad steering step at 9 m/s on a friction 2 road rolls the car onto its roof. It
    must not sink: its CG stays above the ground by the roof's height above the CG less the
    deepest crush, at rest the road carries its whole weight through the roof (the tires
    carry nothing), and it comes to rest."""
    inst = instance(rollover_fmu).start({"car.speed0": 9.0, "frictionMultiplier": 2.0})

    def steer(t, i):
        i.set("car.steeringWheelAngle", 6.0 if t >= 0.2 else 0.0)

    names = ("car.Z", "car.roll", "car.pitch", "car.speed", "car.collision.Fz",
             "car.collision.Fx", "car.collision.Fy", "car.collision.maxCrush") + \
        tuple(w + ".Fz" for w in WHEELS)
    r = run(inst, 13.0, steer, record=names)
    assert np.all(np.isfinite(r["car.Z"]))
    roll = r["car.roll"][-1]
    assert math.cos(roll) < -0.99 and abs(r["car.pitch"][-1]) < 0.05     # on its roof
    roof = CAR["collision"]["height"] or 2.0 * CAR["sprung_mass"]["cg_height"]
    roof_above_cg = roof - CAR["sprung_mass"]["cg_height"]
    crush = r["car.collision.maxCrush"][-1]
    assert 0.0 < crush < 0.5 * roof_above_cg
    height = -r["car.Z"]                       # CG above the ground (flat road at Z = 0)
    inverted = np.cos(r["car.roll"]) < -0.99
    assert np.min(height[inverted]) >= roof_above_cg - crush - 1e-3
    # coming to rest: the rocking on the roof dies away (by about half each second; it lands
    # on the roof for good near 6.5 s, its wheels' rims and sidewalls meeting the road as it
    # rolls), and the road holds the weight through the body alone
    t = r["time"]
    last = t > 12.0
    assert np.max(r["car.speed"][last]) < 0.01
    assert np.max(r["car.speed"][last]) < 0.5 * np.max(r["car.speed"][(t > 10.0) & (t <= 11.0)])
    assert np.ptp(r["car.Z"][last]) < 1e-3
    assert max(np.max(r[w + ".Fz"][last]) for w in WHEELS) == 0.0
    f = np.array([r["car.collision." + k][-1] for k in ("Fx", "Fy", "Fz")])
    assert np.linalg.norm(f) == pytest.approx(M * G, rel=0.01)
    # upside down the body's z axis points up: the road pushes along +z
    assert f[2] == pytest.approx(M * G, rel=0.01)


# --- an exterior read from an OBJ file ------------------------------------------------------
MESH_WIDTH = 1.0          # narrower than the car's dimensions.width


def _front_into_a_wall(inst, width, label):
    """The car rolled in neutral from V_IN into the wall ahead: (the record, the kinetic
    energy it brings, its spin included, and the loading work width B delta_m^2 / 2)."""
    inst = inst.start({"car.speed0": V_IN})
    spin0 = [inst.get(w + ".spin") for w in WHEELS]
    r = run(inst, 0.6, lambda t, i: i.set("car.gear", 0), h=0.001,
            record=("car.X", "car.u", "car.collision.Fx", "car.collision.maxCrush"))
    touching = np.flatnonzero(r["car.collision.Fx"] != 0.0)
    assert touching.size, "the car never reached the wall"
    v_in = r["car.u"][touching[0] - 1]
    e_spin = 0.5 * sum(CAR["tires"][a["tire"]]["spin_inertia"] * s ** 2
                       for a, pair in zip(CAR["axles"], (spin0[:2], spin0[2:])) for s in pair)
    crush = r["car.collision.maxCrush"][-1]
    e_load = 0.5 * width * CAR["collision"]["crush_stiffness"]["front"] * crush ** 2
    e_in = 0.5 * M * v_in ** 2 + e_spin
    print(f"{label}: crush {crush:.4f} m, loading work {e_load:.0f} J, brought in {e_in:.0f} J")
    return r, e_in, e_load


@pytest.fixture(scope="module")
def obj_barrier_fmu(fmu_dir):
    """The barrier event with the car's exterior an OBJ box MESH_WIDTH wide, its front where
    the generated box's is, named relative to the event file."""
    cgh = CAR["sprung_mass"]["cg_height"]
    box_obj(fmu_dir / "narrow-car.obj", (FRONT_X - CAR["dimensions"]["length"], -0.5 * MESH_WIDTH,
                                         -0.8), (FRONT_X, 0.5 * MESH_WIDTH, 0.5 * cgh))
    data = copy.deepcopy(DATA)
    data["units"][0]["collision"]["mesh_file"] = "narrow-car.obj"
    data["environment"]["barriers"] = [{"point": [WALL_X, 0.0, 0.0], "normal": [-1.0, 0.0, 0.0]}]
    return event_fmu(fmu_dir, "collision_obj_barrier", data)


def test_an_obj_exterior_carries_its_own_front_into_the_barrier(instance, obj_barrier_fmu):
    """The OBJ box's front, MESH_WIDTH wide, meets the wall: the loading work
    MESH_WIDTH B delta_m^2 / 2 is the kinetic energy brought in, so the crush is
    sqrt(WIDTH / MESH_WIDTH) times the generated box's. The FMU carries the file in its
    resources and its event names it there."""
    import zipfile
    with zipfile.ZipFile(obj_barrier_fmu) as z:
        assert "resources/exterior-car.obj" in z.namelist()
        event = json.loads(z.read("resources/event.json"))
    assert event["units"][0]["collision"]["mesh_file"] == "exterior-car.obj"
    r, e_in, e_load = _front_into_a_wall(instance(obj_barrier_fmu), MESH_WIDTH, "OBJ exterior")
    assert e_load == pytest.approx(e_in, rel=0.02)      # measured 0.2 %


def test_a_bad_exterior_file_is_refused_naming_the_field(tmp_path):
    data = copy.deepcopy(DATA)
    data["units"][0]["collision"]["mesh_file"] = "missing.obj"
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data, base=tmp_path)
    assert err.value.problems == [f"units[0].collision.mesh_file: {tmp_path / 'missing.obj'}: "
                                  "no such file"]
    (tmp_path / "bad.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 x\nf 1 2 3\n")
    data["units"][0]["collision"]["mesh_file"] = "bad.obj"
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data, base=tmp_path)
    (msg,) = err.value.problems
    assert msg.startswith(f"units[0].collision.mesh_file: {tmp_path / 'bad.obj'}, line 3: ")


# --- a standing polygon of a mesh terrain -------------------------------------------------
WALL_HALF_WIDTH = 3.0


@pytest.fixture(scope="module")
def wall_fmu(fmu_dir):
    """The car on a flat mesh road with a standing quad 1.5 m high across its path at WALL_X,
    WALL_HALF_WIDTH either side of it, wound so that its normal points back at the car."""
    x = WALL_X
    (fmu_dir / "wall.obj").write_text(
        "v -20 -20 0\nv 60 -20 0\nv 60 20 0\nv -20 20 0\nf 1 2 3 4\n"
        f"v {x} {-WALL_HALF_WIDTH} 0\nv {x} {WALL_HALF_WIDTH} 0\n"
        f"v {x} {WALL_HALF_WIDTH} -1.5\nv {x} {-WALL_HALF_WIDTH} -1.5\nf 5 6 7 8\n")
    data = copy.deepcopy(DATA)
    data["environment"]["terrain"] = {"type": "mesh", "file": "wall.obj"}
    return event_fmu(fmu_dir, "collision_terrain_wall", data)


def test_a_standing_polygon_of_the_terrain_stops_the_car_as_a_barrier(instance, wall_fmu):
    """The wall is a rigid surface as a barrier plane is, over its polygon: the car's front
    loads to w B delta_m^2 / 2 = the kinetic energy brought in (as into the barrier)."""
    r, e_in, e_load = _front_into_a_wall(instance(wall_fmu), WIDTH, "terrain wall")
    assert e_load == pytest.approx(e_in, rel=0.025)     # measured 1.5 %
    crush = r["car.collision.maxCrush"][-1]
    assert np.max(r["car.X"]) + FRONT_X - WALL_X == pytest.approx(crush, rel=0.02)
    assert r["car.u"][-1] < 0.0                               # it rebounds


def test_beside_the_standing_polygon_the_car_passes_its_plane(instance, wall_fmu):
    """The wall is its polygon, not its plane: a car beside it drives on past WALL_X."""
    y0 = WALL_HALF_WIDTH + WIDTH
    inst = instance(wall_fmu).start({"car.speed0": V_IN, "car.Y0": y0})
    r = run(inst, 0.6, lambda t, i: i.set("car.gear", 0), h=0.005,
            record=("car.X", "car.collision.Fx"))
    assert r["car.X"][-1] + FRONT_X > WALL_X + 2.0
    assert np.all(r["car.collision.Fx"] == 0.0)


def test_autostart_frees_the_steering_at_the_first_collision_contact(instance, barrier_fmu):
    """The car's steering in AutoStart (the event gives no start time of its own): rigid at the
    driver's angle up to the step at which the car first touches the wall, hands off from then
    on: the angle leaves the driver's at once and never comes back to it."""
    assert DATA["simulation"].get("steer_dof_start_time") is None
    inst = instance(barrier_fmu).start({"car.speed0": V_IN, "car.steeringMode": 4})
    assert inst.get("car.steeringMode") == 4
    held = 0.3

    def drive(t, i):
        i.set("car.gear", 0)
        i.set("car.steeringWheelAngle", held)

    r = run(inst, 0.4, drive, h=0.001, record=("car.steering.angle", "car.collision.deltaV",
                                               "car.collision.Fx"))
    touching = np.flatnonzero(r["car.collision.Fx"] != 0.0)
    assert touching.size, "the car never reached the barrier"
    first = touching[0]
    angle = r["car.steering.angle"]
    assert np.all(angle[:first] == held)                  # rigid until the contact
    assert np.all(angle[first + 1:] != held)              # free from the step after it on
    assert abs(angle[-1] - held) > 1e-3                   # and moved under the impact
