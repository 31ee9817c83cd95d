"""Events the engine used to accept and then run wrongly, or refuse with the wrong reason.

Each case goes through the command a user runs (``python -m simon_fmu build``, in process) or
through the built FMU (fmpy): a crush stiffness the step cannot integrate, a barrier normal of
huge finite size, start positions far from the origin, a car starting on a bumpy road, meshes
overlapping the road or a barrier at the start, and the messages of files and fields that are
not acceptable. Expected values come from the sedan sheet (the default event) and the events'
own geometry."""
from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pytest

import engine
from conftest import event_fmu
from support.roads import grid_crg, grid_mesh_obj
from support.run import run
from simon_fmu.__main__ import main

BARRIER_X = 5.0


def _event(**changes) -> dict:
    data = json.loads(engine.load_event().to_json())
    for path, value in changes.items():
        node = data
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[keys[-1]] = value
    return data


def _build_refusal(tmp_path, capsys, data) -> str:
    """Build ``data`` with the command a user runs; return its one-line refusal."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data))
    code = main(["build", str(event), "-o", str(tmp_path / "refused.fmu"), "--no-warm"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert not (tmp_path / "refused.fmu").exists()
    return err


def _setup_quietly(data, **kw):
    """engine.Simulation of ``data`` with every warning an error (a build prints none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return engine.Simulation(engine.load_event(data), **kw)


# --- item 6: the stiffest contact is judged against the step -----------------------------

def _barrier(data, normal=(-1.0, 0.0, 0.0)):
    data["environment"]["barriers"] = [{"point": [BARRIER_X, 0.0, 0.0], "normal": list(normal)}]
    return data


def test_a_crush_stiffness_the_step_cannot_integrate_is_refused_with_the_largest_it_allows(
        tmp_path, capsys):
    """B = 1e10 N/m^2 on the front used to build, and the car rebounded from the barrier
    faster than it hit it (47.6 m/s from 15 m/s). The refusal names the field and the largest
    B the step allows; 0.9 of that is accepted, 1.2 of it refused."""
    data = _barrier(_event())
    data["units"][0]["collision"]["crush_stiffness"]["front"] = 1e10
    err = _build_refusal(tmp_path, capsys, data)
    assert "units[0].collision.crush_stiffness.front: at most about" in err, err
    limit = float(re.search(r"at most about ([0-9.e+]+) N/m\^2", err).group(1))
    assert 1e6 < limit < 1e10
    data["units"][0]["collision"]["crush_stiffness"]["front"] = 0.9 * limit
    _setup_quietly(data)
    data["units"][0]["collision"]["crush_stiffness"]["front"] = 1.2 * limit
    with pytest.raises(engine.EventError, match=r"crush_stiffness\.front"):
        _setup_quietly(data)
    for bad in (1e11, 1e300):
        data["units"][0]["collision"]["crush_stiffness"]["front"] = bad
        assert "crush_stiffness.front" in _build_refusal(tmp_path, capsys, data)


def test_a_soft_restitution_that_makes_the_unloading_too_stiff_is_refused(tmp_path, capsys):
    """The unloading branch is k / e^2: e = 0.05 with a front of 1e8 N/m^2 is 400 times
    stiffer unloading than loading."""
    data = _barrier(_event())
    data["units"][0]["collision"]["crush_stiffness"]["front"] = 1e8
    data["units"][0]["collision"]["restitution"] = 0.05
    err = _build_refusal(tmp_path, capsys, data)
    assert "crush_stiffness.front" in err and "unloading branch" in err, err


def test_a_wheel_mesh_too_stiff_for_the_step_is_refused_naming_its_own_axle(tmp_path, capsys):
    """Both axles carry wheel meshes; the rear's is made too stiff for the step: the refusal
    names the rear axle's field (it named the first axle with a mesh, whatever set the mode)."""
    data = _event()
    data["units"][0]["axles"][1]["wheel_damage"]["stiffness"] = 1e12
    err = _build_refusal(tmp_path, capsys, data)
    assert "units[0].axles[1].wheel_damage.stiffness: at most about" in err, err
    assert "axles[0]" not in err, err


def test_a_barrier_of_huge_normal_and_a_stiff_front_the_step_takes_stop_the_car(
        fmu_dir, instance):
    """A barrier whose normal is (-1e308, 0, 0) is the plane X = 5 m facing -X: built without
    a warning, it stops the car at 15 m/s. Its front is as stiff as the step allows (0.8 of the
    limit): the rebound keeps within e of the approach speed, as the force law says."""
    data = _barrier(_event(), normal=(-1e308, 0.0, 0.0))
    data["units"][0]["collision"]["crush_stiffness"]["front"] = 1e6
    sim = _setup_quietly(data)
    assert sim.model.P_BAR[0, 3:6].tolist() == [-1.0, 0.0, 0.0]
    limit = engine.setup.stability.contact_step(sim.model)
    front = 1e6 * 0.8 * (limit.h_max / sim.step_size) ** 2
    data["units"][0]["collision"]["crush_stiffness"]["front"] = front
    _setup_quietly(data)
    inst = instance(event_fmu(fmu_dir, "huge_normal_stiff_front", data)).start({"car.speed0": 15.0})
    out = run(inst, 1.5, record=("car.X", "car.u", "car.collision.maxCrush"))
    x_front = engine.setup.collision.unit_box(data["units"][0])[0]
    assert np.max(out["car.X"]) + x_front < BARRIER_X + np.max(out["car.collision.maxCrush"]) + 1e-3
    assert np.max(out["car.collision.maxCrush"]) > 0.0
    e = data["units"][0]["collision"]["restitution"]
    print(f"front B {front:.3g} N/m^2: crush {np.max(out['car.collision.maxCrush']):.4f} m, "
          f"rebound {-np.min(out['car.u']):.3f} m/s from 15 m/s (e = {e})")
    assert -np.min(out["car.u"]) < e * 15.0


# --- item 8: positions within the range that keeps their precision --------------------------

def test_a_run_far_from_the_origin_keeps_its_precision_and_beyond_it_is_refused(
        car_fmu, instance):
    """At X0 = 1e5 m (the limit) the car coasting at 20 m/s for 1 s moves as at X0 = 0 to
    2e-10 m (measured 1.9e-10 m); 1e15 (the car used to freeze there), inf and a yaw of 1e300 are refused naming
    the parameter, and the modelDescription declares the ranges."""
    paths = {}
    for x0 in (0.0, 1e5):
        inst = instance(car_fmu, f"x0_{x0:g}").start({"car.speed0": 20.0, "car.X0": x0})
        paths[x0] = run(inst, 1.0, record=("car.X", "car.Y"))
    moved = paths[1e5]["car.X"] - 1e5 - paths[0.0]["car.X"]
    print(f"X0 = 1e5 m against 0: largest difference {np.max(np.abs(moved)):.2e} m")
    assert paths[0.0]["car.X"][-1] > 19.0
    assert np.max(np.abs(moved)) < 5e-10
    md = instance(car_fmu, "ranges").md
    var = {v.name: v for v in md.modelVariables}
    assert (float(var["car.X0"].min), float(var["car.X0"].max)) == (-1e5, 1e5)
    assert float(var["car.yaw0"].max) == pytest.approx(2 * math.pi)
    for name, value in (("car.X0", 1e15), ("car.X0", math.inf), ("car.yaw0", 1e300)):
        inst = instance(car_fmu, f"bad_{name}")
        inst.fmu.setupExperiment(startTime=0.0)
        inst.fmu.enterInitializationMode()
        with pytest.raises(Exception):
            inst.set(name, value)
            inst.fmu.exitInitializationMode()
        text = " ".join(inst.messages())
        assert f"{name} = {value!r} rejected" in text and "in [" in text, text


def test_gear_declares_its_maximum(car_fmu, instance):
    """The sedan has five forward gears: gear declares -1 .. 5, as the step that refuses 6
    says (inputs are checked when a step takes them)."""
    sedan = engine.load_event().data["units"][0]["drivetrain"]["transmission_ratios"]
    inst = instance(car_fmu, "gear")
    var = {v.name: v for v in inst.md.modelVariables}
    assert (int(var["car.gear"].min), int(var["car.gear"].max)) == (-1, len(sedan))
    inst.start({"car.speed0": 10.0})
    inst.set("car.gear", len(sedan))
    inst.fmu.doStep(0.0, 0.01)
    inst.set("car.gear", len(sedan) + 1)
    with pytest.raises(Exception):
        inst.fmu.doStep(0.01, 0.01)
    text = " ".join(inst.messages(2))
    assert "car.gear" in text and "-1 .. 5" in text, text


def test_external_road_grades_are_declared_within_45_degrees():
    from model_description import build_catalogue
    data = _event()
    data["environment"]["terrain"] = {"type": "external"}
    catalogue = build_catalogue(engine.load_event(data))
    grades = [v for v in catalogue.variables if v.name.endswith((".roadGradeX", ".roadGradeY"))]
    assert len(grades) == 8 and all((v.min, v.max) == (-1.0, 1.0) for v in grades)


# --- item 9: a car starts on a bumpy road at the default step -------------------------------

def _loads_plausible(out, weight):
    total = out["sum"]
    # the bumps move the load about the weight; the mean over the run is the weight
    assert abs(np.mean(total) / weight - 1.0) < 0.05
    assert np.all(total > 0.0) and np.max(total) < 3.0 * weight


@pytest.mark.parametrize("speed", [0.0, 20.0])
def test_a_car_starts_on_a_sine_road_and_on_a_random_grid_at_the_default_step(
        fmu_dir, instance, speed):
    """A CRG road z = 3 cm sin(u) under the car, and an OBJ grid of 5 m by 2 m cells with
    1 cm of random height per node: both used to be refused at the start (a step below
    0.1 ms was asked for, the turning point of a tire's radial-force loop taken for a mode).
    Both start at 1 ms, at rest and at 20 m/s, and run 2 s with the wheel loads about the
    weight."""
    sine = grid_crg(fmu_dir / "sine_road.crg", lambda u, v: 0.03 * np.sin(u) + 0.0 * v,
                    (-50.0, 80.0), (-5.0, 5.0), (520, 10))
    rng = np.random.default_rng(27)
    heights = 0.01 * rng.standard_normal((25, 11))
    grid = grid_mesh_obj(fmu_dir / "rough_grid.obj",
                         lambda x, y: heights[np.rint((x + 40.0) / 5.0).astype(int),
                                              np.rint((y + 10.0) / 2.0).astype(int)],
                         (-40.0, 80.0), (-10.0, 10.0), (24, 10))
    roads = {"sine_road": {"type": "crg", "file": str(sine), "origin": [-48.1, 0.0, 0.0]},
             "rough_grid": {"type": "mesh", "file": str(grid)}}
    weight = None
    for name, terrain in roads.items():
        data = _event()
        data["environment"]["terrain"] = terrain
        assert engine.Simulation(engine.load_event(data)).step_size == 0.001
        fmu = event_fmu(fmu_dir, name, data)
        inst = instance(fmu, f"{name}_{speed:g}").start({"car.speed0": speed})
        tires = [t for t in inst.vr if re.fullmatch(r"car\.axle\d\.(left|right)\.Fz", t)]
        out = run(inst, 2.0, record=tuple(tires) + ("car.u",))
        out["sum"] = sum(out[t] for t in tires)
        weight = weight or inst.get("car.mass") * 9.81
        _loads_plausible(out, weight)
        assert not inst.messages(2)


# --- item 10: meshes overlapping at the start are named --------------------------------------

def _box_obj(path, lo, hi):
    v = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    faces = [(1, 2, 4, 3), (5, 7, 8, 6), (1, 5, 6, 2), (3, 4, 8, 7), (1, 3, 7, 5), (2, 6, 8, 4)]
    path.write_text("".join("v %r %r %r\n" % p for p in v)
                    + "".join("f %d %d %d %d\n" % f for f in faces))
    return str(path)


def test_meshes_overlapping_at_the_start_are_refused_naming_what_overlaps(tmp_path, capsys):
    cg_height = engine.load_event().data["units"][0]["sprung_mass"]["cg_height"]
    cases = {
        # an exterior reaching 0.2 m below the ground (z down from the CG)
        "units[0].collision.mesh_file: the exterior of car reaches 0.2 m into the road":
            _event(units__0__collision__mesh_file=_box_obj(
                tmp_path / "low.obj", (-2.4, -0.9, -1.0), (2.3, 0.9, cg_height + 0.2))),
        "units[0].collision.mesh_file: ":
            _event(units__0__collision__mesh_file=_box_obj(
                tmp_path / "huge.obj", (-1e6, -1e6, -1e6), (1e6, 1e6, 1e6))),
        # a barrier plane through the middle of the car, facing back
        "environment.barriers[0]: its face passes":
            _barrier(_event(), normal=(-1.0, 0.0, 0.0)),
        # a barrier 0.5 m above the ground whose solid side is above it (its normal down)
        "environment.barriers[0]: its face passes ":
            _event(),
    }
    cases["environment.barriers[0]: its face passes"]["environment"]["barriers"][0]["point"] = \
        [0.5, 0.0, 0.0]
    cases["environment.barriers[0]: its face passes "]["environment"]["barriers"] = [
        {"point": [0.0, 0.0, -0.5], "normal": [0.0, 0.0, 1.0]}]
    for expected, data in cases.items():
        err = _build_refusal(tmp_path, capsys, data)
        assert expected.strip() in err and "stepSize" not in err, err
        assert len(err.strip().splitlines()) == 2, err     # the file, and the one problem


def _road_depth(model, u_wheel, u, pts, R, cg):
    """Per point (earth), how far it is into the road along the road's normal (m, > 0 inside;
    -inf where a mesh has no road), for unit u with its CG at ``cg`` and rotation R: the
    kernel engine.start_check.road_depth."""
    from engine.jit import compiled_entry
    from engine.start_check import road_depth
    R = np.ascontiguousarray(R, dtype=np.float64)
    args = (model, u_wheel, u, float(cg[0]), float(cg[1]), R, 0.0, 0.0, 0.0)
    depth = compiled_entry(road_depth, args)
    return np.array([depth(model, u_wheel, u, float(cg[0]), float(cg[1]), R, *p)
                     for p in np.asarray(pts, dtype=np.float64).tolist()])


def test_the_start_check_meets_the_road_of_the_kernels(tmp_path):
    """The start check's depth into the road is the collision's: along the road's normal,
    the road from engine.terrain.surface (flat ground; an external road's plane of the first
    wheel's inputs through the road under its centre; a mesh's triangle under the point, none
    beside it)."""
    from engine import layout as L
    R, cg = np.eye(3), np.zeros(3)
    flat = engine.Simulation(engine.load_event(_event()))
    ground = flat.model.P_ENV[L.E_GROUND_Z]
    assert _road_depth(flat.model, flat.u_wheel, 0, np.array([[0.0, 0.0, ground + 0.1],
                                                             [3.0, -1.0, ground - 0.2]]), R, cg) == \
        pytest.approx([0.1, -0.2], abs=1e-15)
    external = engine.Simulation(engine.load_event(_event(environment__terrain={"type": "external"})))
    model, u_wheel = external.model, external.u_wheel.copy()
    w = int(model.P_UNIT[0, L.U_WHEEL0])
    fx, fy = model.P_WHEEL[w, L.W_X], model.P_WHEEL[w, L.W_Y0]
    u_wheel[w, L.IW_ROADZ], u_wheel[w, L.IW_GRADEX], u_wheel[w, L.IW_GRADEY] = 0.05, 0.1, -0.2
    point = np.array([[fx + 1.0, fy + 2.0, 0.3]])
    road = 0.05 + 0.1 * 1.0 - 0.2 * 2.0
    assert _road_depth(model, u_wheel, 0, point, R, cg) == \
        pytest.approx([(0.3 - road) / math.sqrt(1.0 + 0.1 ** 2 + 0.2 ** 2)], rel=1e-12)
    slope = 0.2                                  # a plane rising 0.2 m per m of X (Z down)
    obj = grid_mesh_obj(tmp_path / "slope.obj", lambda x, y: -slope * x + 0.0 * y,
                        (-20.0, 20.0), (-10.0, 10.0), (8, 4))
    mesh = engine.Simulation(engine.load_event(_event(environment__terrain={"type": "mesh", "file": str(obj)})))
    depth = _road_depth(mesh.model, mesh.u_wheel, 0, np.array([[5.0, 0.0, 0.0], [50.0, 0.0, 0.0]]), R, cg)
    assert depth[0] == pytest.approx(slope * 5.0 / math.sqrt(1.0 + slope ** 2), rel=1e-12)
    assert depth[1] == -np.inf                   # beside the road


# --- item 11: one line naming the field and what it accepts ---------------------------------

def test_files_and_fields_that_are_not_acceptable_are_named_as_such(tmp_path, capsys):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    big = tmp_path / "big.obj"
    big.write_text("v -1e308 -1e308 0\nv 1e308 -1e308 0\nv 1e308 1e308 0\nv -1e308 1e308 0\n"
                   "f 1 2 3 4\n")
    truck = json.loads(engine.load_event(engine.setup.event.TRACTOR_SEMITRAILER_EVENT).to_json())
    truck["units"][1]["connections"]["front"]["deflection"] = 1e-12
    wheel = _event()
    wheel["units"][0]["axles"][0]["wheel_damage"]["deformation_rate"] = 1e308
    cases = [
        (_event(environment__terrain={"type": "mesh", "file": str(big)}),
         "big.obj, line 1: a vertex's coordinates within +-100000 m"),
        (_event(environment__terrain={"type": "mesh", "file": str(folder)}),
         "a-folder: a folder, not a file"),
        (_event(environment__terrain={"type": "mesh", "file": "/dev/zero"}),
         "/dev/zero: not a regular file"),
        (_event(environment__terrain={"type": "crg", "file": str(folder)}),
         "a-folder: a folder, not a file"),
        (_event(units__0__collision__mesh_file="/dev/zero"), "/dev/zero: not a regular file"),
        (truck, "units[1].connections.front.deflection: a number >= 1e-05"),
        (wheel, "units[0].axles[0].wheel_damage.deformation_rate: a number >= 0 and <= 1"),
        (_event(units__0__initial__X=1e15), "units[0].initial.X"),
    ]
    for data, expected in cases:
        err = _build_refusal(tmp_path, capsys, data)
        assert expected in err, err
        assert "Traceback" not in err and "stepSize" not in err, err
