"""A mesh terrain's file travels in the FMU: the build copies it into resources/, the event
there names it relative to its folder, and the FMU runs from anywhere without the original."""
from __future__ import annotations

import json
import zipfile

import fmpy
import pytest

import engine
from simon_fmu.vehicle.build import fmu_model_description
from simon_fmu.vehicle.slave import EVENT_FILE, TERRAIN_FILE

from conftest import build

#: a level square 100 m x 100 m, 0.5 m above the earth origin (Z down), of one wet material
ROAD_Z = -0.5
SQUARE = f"""# a level wet square
v -50 -50 {ROAD_Z}
v 50 -50 {ROAD_Z}
v 50 50 {ROAD_Z}
v -50 50 {ROAD_Z}
usemtl wet
f 1 2 3
f 1 3 4
"""
WET = {"friction_multiplier": 0.8, "water_depth": 0.003}
TIRES = [f"car.axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]


def write_event(folder, road="../roads/square.obj"):
    """An event file in folder/events/ naming its mesh relative to itself."""
    (folder / "roads").mkdir(exist_ok=True)
    (folder / "roads" / "square.obj").write_text(SQUARE)
    (folder / "events").mkdir(exist_ok=True)
    data = engine.load_event().data
    data["environment"]["terrain"] = {"type": "mesh", "file": road, "materials": {"wet": WET}}
    path = folder / "events" / "wet-square.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def mesh_fmu(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mesh_event")
    fmu = build(write_event(folder), folder / "WetSquare.fmu")
    (folder / "roads" / "square.obj").unlink()   # the FMU must not need the original
    return fmu


def test_the_mesh_file_is_in_the_resources_and_the_event_names_it_there(mesh_fmu):
    with zipfile.ZipFile(mesh_fmu) as z:
        assert z.read(f"resources/{TERRAIN_FILE}").decode() == SQUARE
        terrain = json.loads(z.read(f"resources/{EVENT_FILE}"))["environment"]["terrain"]
    assert terrain == {"type": "mesh", "file": TERRAIN_FILE, "z_up": False,
                       "materials": {"wet": {**WET, "texture_depth": None}},
                       **dict.fromkeys(("origin", "heading", "friction_multiplier", "water_depth",
                                        "texture_depth"))}


def test_the_fmu_runs_on_its_mesh_from_another_folder(mesh_fmu, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = [f"{t}.{k}" for t in TIRES for k in ("contactZ", "frictionAvailable", "waterDepth")]
    result = fmpy.simulate_fmu(str(mesh_fmu), stop_time=0.05, step_size=0.01, output=names)
    for t in TIRES:
        assert result[f"{t}.contactZ"][-1] == pytest.approx(ROAD_Z, abs=1e-9)
        assert result[f"{t}.frictionAvailable"][-1] == pytest.approx(WET["friction_multiplier"], rel=1e-12)
        assert result[f"{t}.waterDepth"][-1] == pytest.approx(WET["water_depth"], rel=1e-12)


def test_the_guid_follows_the_mesh_not_the_folder(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    a = engine.load_event(write_event(first))
    b = engine.load_event(write_event(second))
    assert a.data != b.data      # the absolute paths differ
    guid = lambda event: fmu_model_description(event, code_digest="0", generated_at="x").split(b'guid="')[1][:38]
    assert guid(a) == guid(b)
    (second / "roads" / "square.obj").write_text(SQUARE.replace("usemtl wet\n", ""))
    assert guid(engine.load_event(second / "events" / "wet-square.json")) != guid(a)
