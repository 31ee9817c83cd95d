"""Several vehicles in one event, in the engine: the shipped two-vehicle events, the checks of a
bad event (each naming its field), and the footprints that must start apart."""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from engine.setup.event import (CAR_AND_SEMITRAILER_EVENT, DEFAULT_EVENT, TRACTOR_SEMITRAILER_EVENT,
                          TWO_CARS_EVENT)
from engine.setup.footprint import Footprint, corners, overlap, unit_footprint


def load(path):
    with open(path) as fh:
        return json.load(fh)


SEDAN = load(DEFAULT_EVENT)["units"][0]
SEMI = load(TRACTOR_SEMITRAILER_EVENT)["units"]


def without(unit, *keys):
    return {k: v for k, v in unit.items() if k not in keys}


@pytest.mark.parametrize("path, sources", [
    (TWO_CARS_EVENT, [SEDAN, SEDAN]),
    (CAR_AND_SEMITRAILER_EVENT, [SEDAN] + SEMI),
])
def test_shipped_events_copy_their_units_from_the_single_vehicle_events(path, sources):
    data = load(path)
    assert len(data["units"]) == len(sources)
    for got, source in zip(data["units"], sources):
        assert without(got, "name", "initial") == without(source, "name", "initial")
    ev = engine.load_event(path)
    assert len(ev.vehicles()) == 2


def test_vehicles_group_each_lead_unit_with_the_units_it_tows():
    assert engine.load_event(TWO_CARS_EVENT).vehicles() == [["car"], ["car2"]]
    assert engine.load_event(CAR_AND_SEMITRAILER_EVENT).vehicles() == [["car"], ["tractor", "trailer"]]
    assert engine.load_event(engine.setup.event.DOUBLE_EVENT).vehicles() == [["tractor", "trailer1", "dolly", "trailer2"]]
    data = load(CAR_AND_SEMITRAILER_EVENT)       # listed in another order: still by lead unit
    data["units"] = data["units"][1:] + data["units"][:1]
    assert engine.load_event(data).vehicles() == [["tractor", "trailer"], ["car"]]


def test_two_cars_start_where_the_event_puts_them():
    data = load(TWO_CARS_EVENT)
    sim = engine.Simulation(engine.load_event(data))
    i = [engine.UNIT_OUTPUTS.index(k) for k in ("X", "Y", "yaw", "u")]
    for row, unit in zip(sim.y_unit, data["units"]):
        init = unit["initial"]
        assert [row[k] for k in i] == pytest.approx([init["X"], init["Y"], init["yaw"], init["speed"]],
                                                   abs=1e-12)
    # the state holds each car's states once, under its unit names (grouped by kind: bodies,
    # wheels, tires, ... engine.layout), and the pair's contacts: the face of each car's box
    # the other's vertices first entered through, and how deep they reach along it
    single = engine.Simulation(engine.load_event())
    pair = ["car.collision.face_of_car2", "car2.collision.face_of_car",
            "car.collision.depth_in_car2", "car2.collision.depth_in_car"]
    assert len(sim.state_names) == 2 * len(single.state_names) + len(pair)
    assert sorted(sim.state_names) == sorted(single.state_names + pair +
                                             [n.replace("car.", "car2.", 1) for n in single.state_names])


def test_a_second_vehicle_without_initial_is_refused_naming_the_field():
    data = load(TWO_CARS_EVENT)
    del data["units"][1]["initial"]
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    assert len(err.value.problems) == 1
    assert err.value.problems[0].startswith("units[1].initial: missing; an object with X, Y, yaw and speed")
    # one vehicle may leave it out (all 0)
    one = load(DEFAULT_EVENT)
    del one["units"][0]["initial"]
    assert engine.load_event(one).data["units"][0]["initial"] == {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 0.0}
    # a towed unit needs none: the sedan beside the combination without the trailer's
    data = load(CAR_AND_SEMITRAILER_EVENT)
    assert "initial" not in data["units"][2] or data["units"][2]["initial"] is None
    engine.load_event(data)


def test_a_second_vehicle_with_the_first_ones_name_is_refused_naming_the_field():
    data = load(TWO_CARS_EVENT)
    data["units"][1]["name"] = "car"
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    assert "units[1].name: a name not used by another unit (got 'car')" in err.value.problems


def test_a_bad_field_of_the_second_vehicle_is_named_by_its_index():
    data = load(TWO_CARS_EVENT)
    data["units"][1]["initial"]["speed"] = 150.0
    data["units"][1]["sprung_mass"]["mass"] = -1.0
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    got = " ".join(err.value.problems)
    assert "units[1].initial.speed" in got and "units[1].sprung_mass.mass" in got
    assert "units[0]" not in got


def test_footprint_from_front_x_or_equal_overhangs():
    # the sedan gives no front_x: overhangs equal beyond its two axles
    fp = unit_footprint(SEDAN)
    xs = [a["x"] for a in SEDAN["axles"]]
    overhang = 0.5 * (SEDAN["dimensions"]["length"] - (xs[0] - xs[-1]))
    assert fp == pytest.approx(Footprint(xs[0] + overhang, xs[-1] - overhang, 0.5 * SEDAN["dimensions"]["width"]),
                               abs=1e-15)
    tractor = SEMI[0]
    fp = unit_footprint(tractor)
    assert fp == pytest.approx(Footprint(tractor["dimensions"]["front_x"],
                                         tractor["dimensions"]["front_x"] - tractor["dimensions"]["length"],
                                         0.5 * tractor["dimensions"]["width"]), abs=1e-15)
    # a quarter turn puts the front at +Y
    c = corners(Footprint(2.0, -1.0, 0.5), 10.0, 20.0, math.pi / 2)
    assert c[0] == pytest.approx((10.0 - 0.5, 22.0)) and c[2] == pytest.approx((10.5, 19.0))


def test_overlap_is_interior_only():
    a = corners(Footprint(1.0, -1.0, 0.5), 0.0, 0.0, 0.0)
    assert overlap(a, corners(Footprint(1.0, -1.0, 0.5), 1.9, 0.9, 0.0))
    assert not overlap(a, corners(Footprint(1.0, -1.0, 0.5), 2.0, 0.0, 0.0))     # touching ends
    assert not overlap(a, corners(Footprint(1.0, -1.0, 0.5), 0.0, 1.0, 0.0))     # touching sides
    # a diamond whose corner reaches into the box only along a diagonal gap: separated by its edge
    assert not overlap(a, corners(Footprint(0.5, -0.5, 0.5), 1.0 + 0.5 * math.sqrt(2) + 0.5 + 1e-9,
                                  0.0, math.pi / 4))
    assert overlap(a, corners(Footprint(0.5, -0.5, 0.5), 1.0 + 0.5 * math.sqrt(2) - 1e-3, 0.0, math.pi / 4))


@pytest.mark.parametrize("place, hits", [
    ({"X0": 2.0, "Y0": 1.0}, True),                         # across the first car's front
    ({"X0": 0.0, "Y0": 1.61, "yaw0": 0.0}, False),          # side by side, sides touching
    ({"X0": 0.0, "Y0": 1.60, "yaw0": 0.0}, True),           # 1 cm into its side
    ({"X0": 4.508, "Y0": 0.0, "yaw0": 0.0}, False),         # nose to tail, touching
    ({"X0": 4.5, "Y0": 0.0, "yaw0": 0.0}, True),
])
def test_vehicles_must_start_apart(place, hits):
    ev = engine.load_event(TWO_CARS_EVENT)
    if not hits:
        engine.Simulation(ev, initial={"car2": place})
        return
    with pytest.raises(engine.EventError) as err:
        engine.Simulation(ev, initial={"car2": place})
    (msg,) = err.value.problems
    assert msg.startswith("car2.X0, car2.Y0, car2.yaw0 (units[1].initial): a start apart from vehicle 'car'")
    assert "unit 'car' at X = 0 m, Y = 0 m" in msg


def test_a_car_inside_the_semitrailer_is_refused_naming_the_trailer():
    ev = engine.load_event(CAR_AND_SEMITRAILER_EVENT)
    trailer = engine.Simulation(ev).y_unit[2, engine.UNIT_OUTPUTS.index("X")]
    with pytest.raises(engine.EventError) as err:
        engine.Simulation(ev, initial={"car": {"X0": trailer, "Y0": 3.7}})
    (msg,) = err.value.problems
    assert msg.startswith("tractor.X0, tractor.Y0, tractor.yaw0 (units[1].initial): a start apart from "
                          "vehicle 'car'") and "unit 'trailer' at" in msg


def test_units_of_one_vehicle_may_overlap():
    ev = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    sim = engine.Simulation(ev)
    ix, iy, iyaw = (engine.UNIT_OUTPUTS.index(k) for k in ("X", "Y", "yaw"))
    shapes = [corners(unit_footprint(u), *(row[[ix, iy, iyaw]])) for u, row in zip(ev.data["units"], sim.y_unit)]
    assert overlap(*shapes)          # the semitrailer's nose over the tractor's fifth wheel


def test_the_event_file_of_an_overlapping_pair_is_refused_as_the_fmu_would():
    data = copy.deepcopy(load(TWO_CARS_EVENT))
    data["units"][1]["initial"] = {"X": 1.0, "Y": 0.5, "yaw": 0.2, "speed": 10.0}
    ev = engine.load_event(data)           # every field is valid ...
    with pytest.raises(engine.EventError, match=r"car2\.X0, car2\.Y0, car2\.yaw0 \(units\[1\]\.initial\)"):
        engine.Simulation(ev)              # ... but the start is not


def _run_car(data, initial=None, tractor_pedal=0.0):
    """The car's unit, wheel and tire outputs over 1 s, steering from 0.1 s on."""
    sim = engine.Simulation(engine.load_event(data), initial=initial)
    lead = [sim.unit_index(n) for n in sim.lead_units]
    steer, gear, pedal = (engine.UNIT_INPUTS.index(k) for k in ("steeringWheelAngle", "gear", "brakePedalForce"))
    car = sim.unit_index("car")
    wheels = [i for i, n in enumerate(sim.wheel_names) if n.startswith("car.")]
    tires = [i for i, n in enumerate(sim.tire_names) if n.startswith("car.")]
    out = []
    for k in range(1, 101):
        sim.u_unit[lead, gear] = 4
        sim.u_unit[car, steer] = 1.0 if k > 10 else 0.0
        if "tractor" in sim.unit_names:
            sim.u_unit[sim.unit_index("tractor"), pedal] = tractor_pedal
        sim.advance(k * 0.01)
        out.append(np.concatenate([sim.y_unit[car], sim.y_wheel[wheels].ravel(), sim.y_tire[tires].ravel()]))
    return np.array(out)


def test_a_vehicle_moves_as_in_an_event_of_its_own_bit_for_bit():
    """The car beside the tractor-semitrailer, wherever that is and whatever its driver does,
    gives the car's outputs of an event without it, to the last bit (its static loads too:
    engine.setup.equilibrium solves each vehicle on its own)."""
    mixed = load(CAR_AND_SEMITRAILER_EVENT)
    alone = copy.deepcopy(mixed)
    alone["units"] = alone["units"][:1]
    ref = _run_car(alone)
    assert np.array_equal(_run_car(mixed), ref)
    assert np.array_equal(_run_car(mixed, tractor_pedal=800.0), ref)
    assert np.array_equal(_run_car(mixed, initial={"tractor": {"X0": -400.0, "Y0": 900.0, "yaw0": 2.0,
                                                               "speed0": 5.0}}), ref)
    # and the combination's static loads are those of its own event
    combo = engine.Simulation(engine.load_event(TRACTOR_SEMITRAILER_EVENT), initial={"tractor": {"X0": 30.0, "Y0": 3.7}})
    both = engine.Simulation(engine.load_event(mixed))
    fz = engine.TIRE_OUTPUTS.index("Fz")
    assert np.array_equal(both.y_tire[len(both.tire_names) - len(combo.tire_names):, fz], combo.y_tire[:, fz])
