"""The event's terrain (environment.terrain), hydroplaning model and the tire data it needs."""
import copy
import json
import os
from pathlib import Path

import numpy as np
import pytest

import engine
from support.roads import grid_crg

SQUARE_OBJ = """# a level square 100 m x 100 m at earth Z = {z}, one material
v -50 -50 {z}
v 50 -50 {z}
v 50 50 {z}
v -50 50 {z}
usemtl {material}
f 1 2 3
f 1 3 4
"""
WET = {"friction_multiplier": 0.5, "water_depth": 0.002}
#: environment.terrain's fields with none given (each type fills its own)
NO_TERRAIN_FIELDS = dict.fromkeys(("file", "z_up", "materials", "origin", "heading",
                                   "friction_multiplier", "water_depth", "texture_depth"))


def car():
    return copy.deepcopy(engine.load_event().data)


def problems(data, **kw):
    with pytest.raises(engine.EventError) as info:
        engine.load_event(data, **kw)
    return info.value.problems


def mesh_event(tmp_path, file="road.obj", material="wet", z=0.0, materials=None):
    (tmp_path / "road.obj").write_text(SQUARE_OBJ.format(z=z, material=material))
    data = car()
    data["environment"]["terrain"] = {"type": "mesh", "file": file,
                                      "materials": {"wet": WET} if materials is None else materials}
    return data


def test_the_default_terrain_is_flat_and_hydroplaning_off():
    ev = engine.load_event()
    assert ev.data["environment"]["terrain"] == {"type": "flat", **NO_TERRAIN_FIELDS}
    assert ev.data["simulation"]["hydroplaning"] == "off"
    assert ev.terrain_mesh is None
    for t in ev.data["units"][0]["tires"].values():
        assert t["inflation_pressure"] is None and t["tread_depth"] is None and t["width"] is None
    external = car()
    external["environment"]["terrain"] = {"type": "external"}
    ev = engine.load_event(external)
    assert ev.data["environment"]["terrain"]["type"] == "external" and ev.terrain_mesh is None


def test_a_mesh_file_is_found_next_to_the_event_file(tmp_path, monkeypatch):
    data = mesh_event(tmp_path)
    (tmp_path / "event.json").write_text(json.dumps(data))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    ev = engine.load_event(str(tmp_path / "event.json"))
    terrain = ev.data["environment"]["terrain"]
    assert terrain == {**NO_TERRAIN_FIELDS, "type": "mesh", "file": str(tmp_path / "road.obj"),
                       "z_up": False, "materials": {"wet": {**WET, "texture_depth": None}}}
    assert ev.terrain_mesh.TR_TRI.shape == (2, 9)
    assert ev.terrain_mesh.TR_MATP[:, :2].tolist() == [[1.0, 0.0], [0.5, 0.002]]   # friction, water
    # the data is JSON and loads again as it is, from any folder
    again = engine.load_event(json.loads(ev.to_json()))
    assert again.data == ev.data


def test_a_dict_events_mesh_is_relative_to_base_or_the_current_folder(tmp_path, monkeypatch):
    data = mesh_event(tmp_path)
    assert engine.load_event(data, base=tmp_path).data["environment"]["terrain"]["file"] == \
        str(tmp_path / "road.obj")
    monkeypatch.chdir(tmp_path)
    assert engine.load_event(data).data["environment"]["terrain"]["file"] == str(tmp_path / "road.obj")
    monkeypatch.chdir(tmp_path.parent)
    [p] = problems(data)
    assert p.startswith(f"environment.terrain.file: {tmp_path.parent / 'road.obj'}: ")


def test_a_bad_mesh_is_refused_with_its_file_and_line(tmp_path):
    data = mesh_event(tmp_path, material="ice")
    [p] = problems(data, base=tmp_path)
    assert p.startswith(f"environment.terrain.file: {tmp_path / 'road.obj'}, line 6: ")
    assert "'ice'" in p


def test_terrain_fields_are_checked_and_named(tmp_path):
    data = car()
    data["environment"]["terrain"] = {"type": "flat", "file": "road.obj", "z_up": True}
    assert problems(data) == [
        "environment.terrain.file: only for terrain type 'mesh' or 'crg' (got type 'flat'); remove it",
        "environment.terrain.z_up: only for terrain type 'mesh' (got type 'flat'); remove it"]
    data["environment"]["terrain"] = {"type": "mesh"}
    [p] = problems(data)
    assert p.startswith("environment.terrain.file: missing; a non-empty string")
    data["environment"]["terrain"] = {"type": "crater"}
    assert problems(data) == ["environment.terrain.type: one of 'flat', 'mesh', 'crg', 'external' "
                              "(got 'crater')"]
    data = mesh_event(tmp_path, materials={"wet": {"friction_multiplier": -1, "water_depth": 0.0},
                                           "two words": WET})
    assert problems(data, base=tmp_path) == [
        "environment.terrain.materials.wet.friction_multiplier: a number >= 0 and <= 10 (got -1.0)",
        "environment.terrain.materials: names of one word without spaces (got 'two words')"]


def test_hydroplaning_needs_the_tire_data_of_every_tire():
    data = car()
    data["simulation"]["hydroplaning"] = "nasa"
    del data["units"][0]["tires"]["rear"]["inflation_pressure"]
    data["units"][0]["tires"]["front"].update(inflation_pressure=2.2e5, tread_depth=0.008, width=0.195)
    assert problems(data) == [
        "units[0].tires.rear.inflation_pressure: missing; a number > 0 and <= 10000000 (required by "
        "simulation.hydroplaning 'nasa'; inflation pressure (gauge), Pa)",
        "units[0].tires.rear.tread_depth: missing; a number >= 0 and <= 0.1 (required by "
        "simulation.hydroplaning 'nasa'; tread depth, m)",
        "units[0].tires.rear.width: missing; a number > 0 and <= 100 (required by "
        "simulation.hydroplaning 'nasa'; tread width, m (the footprint's width, the width that "
        "pushes water aside))"]
    data["units"][0]["tires"]["rear"].update(inflation_pressure=2.4e5, tread_depth=0.0, width=0.195)
    for model in ("nasa", "nasa-tti", "gallaway"):
        data["simulation"]["hydroplaning"] = model
        ev = engine.load_event(data)
        assert ev.data["units"][0]["tires"]["rear"]["inflation_pressure"] == 2.4e5
    data["simulation"]["hydroplaning"] = "aquaplane"
    assert problems(data) == ["simulation.hydroplaning: one of 'off', 'nasa', 'nasa-tti', 'gallaway' "
                              "(got 'aquaplane')"]
    data["simulation"]["hydroplaning"] = "off"
    data["units"][0]["tires"]["rear"]["tread_depth"] = -0.001
    assert problems(data) == ["units[0].tires.rear.tread_depth: a number >= 0 and <= 0.1 or null "
                              "(got -0.001)"]


def with_gallaway(data):
    """Gallaway hydroplaning, with the tire data it needs."""
    data["simulation"]["hydroplaning"] = "gallaway"
    for t in data["units"][0]["tires"].values():
        t.update(inflation_pressure=2.2e5, tread_depth=0.008, width=0.195)


def test_gallaway_needs_the_texture_depth_of_every_material(tmp_path):
    data = mesh_event(tmp_path, materials={"wet": WET, "rough": {**WET, "texture_depth": 0.001}})
    with_gallaway(data)
    assert problems(data, base=tmp_path) == [
        "environment.terrain.materials.wet.texture_depth: missing; a number >= 0 and <= 0.1 (required "
        "by simulation.hydroplaning 'gallaway'; mean texture depth of the surface, m)"]
    data["simulation"]["hydroplaning"] = "nasa"
    assert engine.load_event(data, base=tmp_path).data["environment"]["terrain"]["materials"]["wet"] == \
        {**WET, "texture_depth": None}


# --- OpenCRG ---------------------------------------------------------------------------------

def crg_event(tmp_path, **fields):
    grid_crg(tmp_path / "road.crg", lambda u, v: 0.0 * u, (0.0, 20.0), (-3.0, 3.0), (20, 6))
    data = car()
    data["environment"]["terrain"] = {"type": "crg", "file": "road.crg", **fields}
    return data


def test_a_crg_file_is_found_next_to_the_event_file_with_its_defaults(tmp_path, monkeypatch):
    data = crg_event(tmp_path, origin=[-10.0, 0.0, 0.25])
    (tmp_path / "event.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path.parent)
    ev = engine.load_event(str(tmp_path / "event.json"))
    assert ev.data["environment"]["terrain"] == {
        **NO_TERRAIN_FIELDS, "type": "crg", "file": str(tmp_path / "road.crg"),
        "origin": [-10.0, 0.0, 0.25], "heading": 0.0, "friction_multiplier": 1.0, "water_depth": 0.0}
    assert ev.terrain_mesh.TR_TRI.shape == (2 * 20 * 6, 9)
    assert ev.terrain_mesh.TR_TRI[:, 2::3].tolist() == [[0.25] * 3] * 240   # Z0 - 0
    assert ev.terrain_mesh.TR_MATP[1].tolist() == [1.0, 0.0, 0.0]
    assert engine.load_event(json.loads(ev.to_json())).data == ev.data


def test_crg_fields_are_checked_and_named(tmp_path):
    data = crg_event(tmp_path, origin=[0.0, 1.0], heading=12.0, friction_multiplier=-0.1,
                     water_depth=2.0, z_up=True)
    assert problems(data, base=tmp_path) == [
        "environment.terrain.origin: a list of 3 numbers (got [0.0, 1.0])",
        "environment.terrain.heading: a number >= -10 and <= 10 or null (got 12.0)",
        "environment.terrain.friction_multiplier: a number >= 0 and <= 10 or null (got -0.1)",
        "environment.terrain.water_depth: a number >= 0 and <= 1 or null (got 2.0)",
        "environment.terrain.z_up: only for terrain type 'mesh' (got type 'crg'); remove it"]
    data = mesh_event(tmp_path)
    data["environment"]["terrain"]["heading"] = 0.5
    assert problems(data, base=tmp_path) == [
        "environment.terrain.heading: only for terrain type 'crg' (got type 'mesh'); remove it"]
    data = crg_event(tmp_path)
    del data["environment"]["terrain"]["file"]
    [p] = problems(data, base=tmp_path)
    assert p.startswith("environment.terrain.file: missing; a non-empty string")


def test_a_bad_crg_file_is_refused_with_its_name(tmp_path):
    data = crg_event(tmp_path)
    (tmp_path / "road.crg").write_text("$CT\nno data\n")
    [p] = problems(data, base=tmp_path)
    assert p.startswith(f"environment.terrain.file: {tmp_path / 'road.crg'}: not a readable OpenCRG file")
    data["environment"]["terrain"]["file"] = "gone.crg"
    assert problems(data, base=tmp_path) == [
        f"environment.terrain.file: {tmp_path / 'gone.crg'}: no such file"]


def test_gallaway_needs_the_texture_depth_of_a_crg_road(tmp_path):
    data = crg_event(tmp_path, water_depth=0.002)
    with_gallaway(data)
    assert problems(data, base=tmp_path) == [
        "environment.terrain.texture_depth: missing; a number >= 0 and <= 0.1 (required by "
        "simulation.hydroplaning 'gallaway'; crg: mean texture depth of the road, m)"]
    data["environment"]["terrain"]["texture_depth"] = 0.0008
    ev = engine.load_event(data, base=tmp_path)
    assert ev.terrain_mesh.TR_MATP[1].tolist() == [1.0, 0.002, 0.0008]


def test_a_road_read_again_from_the_same_bytes_is_a_copy_and_new_bytes_are_read(tmp_path,
                                                                                monkeypatch):
    from engine.setup import event as event_module
    from engine.setup import meshes
    reads = []
    real = meshes.load_mesh
    monkeypatch.setattr(meshes, "load_mesh", lambda *a, **k: reads.append(a) or real(*a, **k))
    monkeypatch.setattr(event_module, "_ROADS", {})
    data = mesh_event(tmp_path, file=str(tmp_path / "road.obj"))
    first, second = engine.load_event(data), engine.load_event(copy.deepcopy(data))
    assert len(reads) == 1                      # the same bytes and arguments: read once
    for a, b in zip(first.terrain_mesh, second.terrain_mesh):
        if hasattr(a, "shape"):
            assert a is not b and a.tolist() == b.tolist()   # each event its own arrays
    first.terrain_mesh.TR_MATP[1, 0] = 0.1      # what one instance does stays its own
    assert engine.load_event(copy.deepcopy(data)).terrain_mesh.TR_MATP[1, 0] == 0.5
    other = copy.deepcopy(data)
    other["environment"]["terrain"]["materials"]["wet"]["friction_multiplier"] = 0.7
    assert engine.load_event(other).terrain_mesh.TR_MATP[1, 0] == 0.7 and len(reads) == 2
    (tmp_path / "road.obj").write_text(SQUARE_OBJ.format(z=-1.0, material="wet"))
    assert engine.load_event(copy.deepcopy(data)).terrain_mesh.TR_TRI[0, 2] == -1.0
    assert len(reads) == 3                      # new bytes: read again


def _on_sine_road(tmp_path, name, amplitude):
    """The bundled event ``name`` on an OpenCRG road 16 m wide whose elevation is a sine of
    ``amplitude`` m and 3 m wavelength along it, the vehicle 60 m from its start."""
    import math

    from engine.setup.event import DATA_DIR
    road = grid_crg(tmp_path / "sine.crg", lambda u, v: amplitude * np.sin(2.0 * math.pi * u / 3.0),
                    (0.0, 200.0), (-8.0, 8.0), (2000, 32))
    data = json.loads((Path(DATA_DIR) / f"{name}.json").read_text())
    data["environment"]["terrain"] = {"type": "crg", "file": str(road), "origin": [-60.0, 0.0, 0.0]}
    return engine.load_event(data)


@pytest.mark.parametrize("name", ["sedan", "tractor-semitrailer", "double", "truck-full-trailer",
                                  "double-fixed-dolly"])
def test_a_start_on_a_rough_road_is_at_rest(tmp_path, name):
    """On a 5 cm sine road every unit starts at rest vertically (the equilibrium's Newton steps
    bring the accelerations they solve below 1e-3: docs/equations.md, "Static equilibrium on a
    grade or a crossfall"): no unit's vertical acceleration at the start exceeds 1e-3 g."""
    sim = engine.Simulation(_on_sine_road(tmp_path, name, 0.05), warn=False)
    k = list(engine.UNIT_OUTPUTS).index("az")
    assert np.abs(sim.y_unit[:, k]).max() < 1e-3 * 9.81


def test_a_start_with_no_equilibrium_is_refused(tmp_path):
    """A truck with a full trailer on a 20 % downhill grade: the Newton steps of the start
    leave 84 m/s^2 (docs/limitations.md). It is refused, saying so, rather than begun far
    from rest (the fixed-dolly double on a 2 cm sine road was refused so, until the start
    stood the dolly and its trailer in one plane and solved their pitch)."""
    from engine.setup.event import DATA_DIR
    road = grid_crg(tmp_path / "grade.crg", lambda u, v: -0.2 * u, (0.0, 200.0), (-8.0, 8.0),
                    (200, 16))
    data = json.loads((Path(DATA_DIR) / "truck-full-trailer.json").read_text())
    data["environment"]["terrain"] = {"type": "crg", "file": str(road), "origin": [-60.0, 0.0, 0.0]}
    with pytest.raises(engine.EventError) as refused:
        engine.Simulation(engine.load_event(data), warn=False)
    text = str(refused.value)
    assert "the start on the terrain: no equilibrium of the vehicle on the road under it was found" in text
    assert "stepSize" not in text and "ground_clearance" not in text
