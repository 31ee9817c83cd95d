"""Fixtures more than one test module uses, registered for every module by tests/conftest.py
(``pytest_plugins``), so each is set up once per session and worker.

- :func:`raw`: the sedan sheet's event as its file holds it (engine/data/sedan.json);
- :func:`faulty_fmu`: tests/fmi2_library/Faulty.py built by pythonfmu on simon-fmu's library;
- :func:`crab_fmu`: the default car with both axles steered 90 degrees at full lock, sliding
  broadside;
- :func:`barrier_fmu`: the default car with a rigid wall :data:`BARRIER_X` ahead, 1 m before
  its front.
"""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from support import fmus
from support.sedan import DATA, FRONT_X

TESTS = Path(__file__).resolve().parents[1]
#: the wall of :func:`barrier_fmu`: 1 m ahead of the car's front
BARRIER_X = FRONT_X + 1.0


@pytest.fixture
def raw():
    """The sedan sheet's event as its file holds it, to modify."""
    return json.loads((fmus.ROOT / "engine" / "data" / "sedan.json").read_text())


@pytest.fixture(scope="session")
def faulty_fmu(tmp_path_factory) -> Path:
    """Faulty.py, built by pythonfmu's builder, on simon-fmu's library."""
    from simon_fmu.runtime.fmi2_library import replace_library
    folder = tmp_path_factory.mktemp("faulty")
    subprocess.run([sys.executable, "-m", "pythonfmu", "build", "-f",
                    str(TESTS / "fmi2_library" / "Faulty.py"), "-d", str(folder)],
                   check=True, capture_output=True)
    return replace_library(folder / "Faulty.fmu")


@pytest.fixture(scope="module")
def crab_fmu(fmu_dir):
    """The default car with both axles steered and a steering ratio that turns every road
    wheel 90 degrees at the steering-wheel limit of 20 rad, and no steering stops: a car that
    slides broadside."""
    data = json.loads(engine.load_event().to_json())
    unit = data["units"][0]
    unit["axles"][1]["steered"] = True
    unit["steering"]["gear_ratio"] = 20.0 / (math.pi / 2)
    unit["steering"]["stop_left"] = unit["steering"]["stop_right"] = None
    event_file = fmu_dir / "crab.json"
    event_file.write_text(json.dumps(data))
    return fmus.vehicle(event_file, fmu_dir / "SimonCrab.fmu")


def barrier_event() -> dict:
    """The default car's event with a rigid wall square to its path 1 m ahead of its front."""
    data = copy.deepcopy(DATA)
    data["environment"]["barriers"] = [{"point": [BARRIER_X, 0.0, 0.0], "normal": [-1.0, 0.0, 0.0]}]
    return data


@pytest.fixture(scope="module")
def barrier_fmu(fmu_dir):
    """The default car, a rigid wall square to its path 1 m ahead of its front."""
    return fmus.event_fmu(fmu_dir, "collision_barrier", barrier_event())
