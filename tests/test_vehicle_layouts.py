"""The data model admits more than the sedan: dual tires, three axles, several units."""
import copy
import json

import numpy as np
import pytest

import engine

from conftest import ROOT

G = 9.80665


@pytest.fixture
def raw():
    return json.loads((ROOT / "engine" / "data" / "sedan.json").read_text())


def test_dual_rear_tires_share_the_load(raw):
    ax = raw["units"][0]["axles"][1]
    ax["dual"], ax["dual_spacing"] = True, 0.3
    ev = engine.load_event(raw)
    assert ev.tire_names()[2:4] == ["car.axle2.left.inner", "car.axle2.left.outer"]
    sim = engine.Simulation(ev, initial={"car": {"speed0": 10.0}})
    fz = sim.y_tire[:, engine.TIRE_OUTPUTS.index("Fz")]
    assert fz.size == 6
    assert fz[2] == pytest.approx(fz[3]) and fz[4] == pytest.approx(fz[5])
    m = sim.unit_mass("car")
    assert fz.sum() == pytest.approx(m * G, rel=1e-9)
    sim.advance(1.0)
    assert np.isfinite(sim.y).all()


def test_three_axles_in_equilibrium(raw):
    unit = raw["units"][0]
    mid = copy.deepcopy(unit["axles"][1])
    mid["x"] = -0.6
    mid["driven"] = False
    unit["axles"].insert(1, mid)
    ev = engine.load_event(raw)
    sim = engine.Simulation(ev, initial={"car": {"speed0": 0.0}})
    fz = sim.y_tire[:, engine.TIRE_OUTPUTS.index("Fz")]
    assert fz.sum() == pytest.approx(sim.unit_mass("car") * G, rel=1e-9)
    sim.advance(2.0)
    # it starts in equilibrium: nothing moves
    jounce = sim.y_wheel[:, engine.WHEEL_OUTPUTS.index("jounce")]
    assert np.max(np.abs(jounce)) < 1e-5


def test_four_axles_only_for_full_trailers(raw):
    unit = raw["units"][0]
    for x in (-0.2, -0.4):
        extra = copy.deepcopy(unit["axles"][1])
        extra["x"] = x
        unit["axles"].insert(1, extra)
    with pytest.raises(engine.EventError, match="at most 3 axles"):
        engine.load_event(raw)


def test_two_units_run_side_by_side(raw):
    second = copy.deepcopy(raw["units"][0])
    second["name"] = "other"
    raw["units"].append(second)
    ev = engine.load_event(raw)
    sim = engine.Simulation(ev, initial={"car": {"speed0": 10.0}, "other": {"speed0": 20.0, "Y0": 10.0}})
    sim.advance(1.0)
    u = sim.y_unit[:, engine.UNIT_OUTPUTS.index("u")]
    assert u[0] < 10.0 and 18.0 < u[1] < 20.0
    assert sim.y_unit[1, engine.UNIT_OUTPUTS.index("Y")] == pytest.approx(10.0, abs=1e-6)
