"""A bad mesh is refused at build: ``python -m simon_fmu build EVENT -o X.fmu`` on an event
whose mesh has an error exits with status 2, names the mesh file and the line at fault, and
writes no FMU (issue "Roads that are not flat": "A bad mesh is refused at build, with the
file and line named")."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[1]
MESHES = Path(__file__).parent / "data" / "terrain"


@pytest.mark.parametrize("mesh, line, words", [
    ("degenerate.obj", 6, "degenerate triangle (zero area)"),
    ("unknown_material.obj", 6, "unknown material 'ice'"),
    ("missing_vertex.obj", 5, "face references vertex 7"),
])
def test_a_bad_mesh_is_refused_by_the_build_command(tmp_path, mesh, line, words):
    shutil.copy(MESHES / mesh, tmp_path / "road.obj")
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "mesh", "file": "road.obj", "materials": {
        "asphalt": {"friction_multiplier": 1.0, "water_depth": 0.0}}}
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data))
    out = tmp_path / "out" / "X.fmu"
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event), "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'road.obj'}, line {line}: " in done.stderr
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
    assert not out.parent.exists() or not any(out.parent.iterdir())
