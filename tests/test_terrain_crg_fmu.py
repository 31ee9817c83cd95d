"""The reference sedan on an OpenCRG road through the built FMU (fmpy), against closed forms:
rolling back down a constant grade (and agreeing with the same grade as a mesh), the road put
where its origin and heading say, a tire leaving the road (its end, or a NaN hole) as an
fmi2Error naming it, and a bad file refused by the build with the file named.

The CRG files are written by the tests (tests/support/roads.py, grid_crg, ASCII LRFI); every
expected value comes from the sedan sheet (the default event) and the road's own geometry."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import engine
from support.roads import grid_crg
from conftest import ROOT
from support.fmus import event_fmu
from support.run import run
from support.sedan import rolling_back_acceleration
from support.terrain import GRADE, mesh_event, rolling_back
from simon_fmu.vehicle.slave import TERRAIN_FILES


def _crg_event(fmu_dir, name, fn_z, u_range, v_range, n, **terrain):
    crg = grid_crg(fmu_dir / f"{name}.crg", fn_z, u_range, v_range, n)
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "crg", "file": str(crg), **terrain}
    return data


def test_rolling_back_down_a_crg_grade_as_on_the_same_grade_as_a_mesh(fmu_dir, instance):
    """The road rises 5 % along u (z up), its reference line along earth X from X = -5 m,
    the file's elevation 0 at Z = 0.25 m there: Z = -0.05 X, the mesh test's plane. The car,
    released at rest, rolls back at g (sin - sigma0 cos) m / (m + sum I / r^2), and as on the
    mesh of that plane."""
    data = _crg_event(fmu_dir, "crg_grade", lambda u, v: GRADE * u + 0.0 * v, (0.0, 65.0),
                      (-6.0, 6.0), (65, 12), origin=[-5.0, 0.0, 5.0 * GRADE])
    fmu = event_fmu(fmu_dir, "crg_grade", data)
    with zipfile.ZipFile(fmu) as z:
        assert z.read(f"resources/{TERRAIN_FILES['crg']}") == (fmu_dir / "crg_grade.crg").read_bytes()
    a_crg, out_crg = rolling_back(fmu, instance)
    mesh = mesh_event(fmu_dir, "grade", lambda x, y: -GRADE * x)
    a_mesh, out_mesh = rolling_back(event_fmu(fmu_dir, "grade", mesh), instance)
    theory = rolling_back_acceleration(GRADE)
    print(f"rolling back: CRG {a_crg:.6f}, mesh {a_mesh:.6f}, theory {theory:.6f} m/s^2 "
          f"(CRG {100 * (a_crg / theory - 1):+.3f} %, CRG - mesh {a_crg - a_mesh:+.2e} m/s^2)")
    assert a_crg == pytest.approx(theory, rel=0.002)         # measured -0.057 %, as the mesh
    assert a_crg == pytest.approx(a_mesh, rel=5e-6)          # measured 7.8e-7 relative
    assert out_crg["car.pitch"][-1] == pytest.approx(math.atan(GRADE), abs=2e-3)
    assert np.max(np.abs(out_crg["car.X"] - out_mesh["car.X"])) < 1e-5


def test_origin_and_heading_put_the_road_where_they_say(fmu_dir, instance, tmp_path):
    """A 5 % grade along u, its reference line heading h = 0.4 rad with its start placed so
    that the car (at X = Y = 0, yaw 0) stands 10 m along it and 1 m to its left. There the
    road is the plane Z = Z0 - g (cos h dX + sin h dY) (dX, dY from the start): the car starts
    pitched atan(g cos h), and stands exactly as on a mesh of that plane (CG height, pitch and
    roll: on the plane's crossfall, -asin(g sin h / sqrt(1 + g^2)), the body leans further on
    its springs under the tires' lateral preload); its tires have the road's friction
    multiplier and water depth. The FMU reads the file from its resources: the original is
    gone when it runs."""
    h, along, left, z0 = 0.4, 10.0, 1.0, 0.3
    ch, sh = math.cos(h), math.sin(h)
    origin = [-(ch * along + sh * left), -(sh * along - ch * left), z0]
    data = _crg_event(fmu_dir, "crg_placed", lambda u, v: GRADE * u + 0.0 * v, (0.0, 30.0),
                      (-4.0, 4.0), (30, 8), origin=origin, heading=h,
                      friction_multiplier=0.7, water_depth=0.001)
    fmu = event_fmu(fmu_dir, "crg_placed", data)
    (fmu_dir / "crg_placed.crg").unlink()
    plane = mesh_event(fmu_dir, "crg_placed_twin",
                        lambda x, y: z0 - GRADE * (ch * (x - origin[0]) + sh * (y - origin[1])),
                        x_range=(-6.0, 6.0), y_range=(-6.0, 6.0), n=(12, 12))
    twin = instance(event_fmu(fmu_dir, "crg_placed_twin", plane), "twin").start({"car.speed0": 0.0})
    inst = instance(fmu, "placed").start({"car.speed0": 0.0})
    gaps = {k: inst.get(f"car.{k}") - twin.get(f"car.{k}") for k in ("Z", "pitch", "roll")}
    print("placement against the mesh of the plane:", {k: f"{v:+.2e}" for k, v in gaps.items()})
    # measured 4.9e-9 m, 1.4e-9 rad and 4.0e-9 rad against the closed forms before the lateral
    # preload (the file's float32 grid)
    assert abs(gaps["Z"]) < 1e-7 and abs(gaps["pitch"]) < 1e-7 and abs(gaps["roll"]) < 1e-7
    assert inst.get("car.pitch") == pytest.approx(math.atan(GRADE * ch), abs=1e-7)
    m = math.sqrt(1.0 + GRADE ** 2)
    assert inst.get("car.roll") < -math.asin(GRADE * sh / m)      # leaning downhill on its springs
    run(inst, 0.01)
    for w in (f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")):
        assert inst.get(f"{w}.frictionAvailable") == pytest.approx(0.7)
        assert inst.get(f"{w}.waterDepth") == pytest.approx(0.001)


@pytest.mark.parametrize("name, fn_z, end_x", [
    ("crg_short", lambda u, v: 0.0 * u, 15.0 - 5.0),           # the road ends 15 m along u
    ("crg_hole", lambda u, v: np.where(u == 20.0, np.nan, 0.0 * u), 19.0 - 5.0),  # NaN across it
])
def test_leaving_the_crg_road_is_an_fmi_error_naming_the_tire(fmu_dir, instance, name, fn_z, end_x):
    u_end = 15.0 if name == "crg_short" else 40.0
    data = _crg_event(fmu_dir, name, fn_z, (0.0, u_end), (-3.0, 3.0), (round(u_end), 6),
                      origin=[-5.0, 0.0, 0.0])
    inst = instance(event_fmu(fmu_dir, name, data)).start({"car.speed0": 10.0})
    with pytest.raises(Exception):                  # fmpy raises on fmi2Error
        for n in range(300):
            inst.fmu.doStep(n * 0.01, 0.01)
    text = " ".join(inst.messages())
    assert "car.axle1." in text and "off the terrain at X = " in text
    x_off = float(text.split("off the terrain at X = ")[1].split(" m")[0])
    print(f"{name}: off the road at X = {x_off:.4f} m, the edge at {end_x:g} m")
    # the front tire's contact, within a step's travel (1 cm) past the edge: 6.4 mm and 0.9 mm
    assert end_x <= x_off <= end_x + 0.01 * 1.5


def test_a_bad_crg_file_is_refused_by_the_build_with_its_name(tmp_path):
    (tmp_path / "road.crg").write_text("$CT\nnot a road\n$\n")
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "crg", "file": "road.crg"}
    (tmp_path / "event.json").write_text(json.dumps(data))
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(tmp_path / "event.json"),
                           "-o", str(tmp_path / "bad.fmu")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0 and not (tmp_path / "bad.fmu").exists()
    assert f"environment.terrain.file: {tmp_path / 'road.crg'}: not a readable OpenCRG file" in done.stderr
