"""The reference sedan on ISO 8608 rough roads through the built FMU, against the linear quarter
car in closed form (tests/support/quarter_car.py; docs/equations.md, "Rough roads (ISO 8608)").

The roads are those of ``python -m simon_fmu rough-road`` (simon_fmu/tools/rough_road.py):
seed 1, the same profile under both wheel tracks, repeating every :data:`PERIOD` m. The car
starts on the road at 80 km/h (the FMU's ``speed0``) and holds it in 4th gear with a throttle
on its speed; after :data:`SETTLE` s it drives exactly one period of the road, over which the
closed form's mean square, sum |H|^2 A^2 / 2 over the road's own lines, is exact (no random
realisation in the comparison). The body's vertical acceleration is ``car.az`` (the sprung
CG's, vehicle axes, z down, gravity excluded), compared with the front and rear quarter cars
blended by the lever rule at the CG, the rear one on the road L / V later.

- The sedan without its suspension's Coulomb friction (a linear suspension, as the quarter
  car's): classes A and B, the RMS and the time history of car.az.
- The sedan as it is (50 N of friction per wheel): classes A and B against the quarter car
  with the friction's equivalent viscous damping; the plain linear quarter car is printed
  beside it (the friction adds 12 % on class A, 5 % on B).
- Classes C and D, the sedan as it is: each runs to its end at 80 km/h; on D the tires leave
  the road a few per cent of the time.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from simon_fmu.tools.rough_road import rough_road, write_crg
from support.fmus import event_fmu
from support.quarter_car import (axle_corners, cg_response, dynamic_index, rms_on_lines,
                                 with_friction)
from support.run import run
from support.sedan import A_S, WHEELS, event_data

SPEED = 80 / 3.6
#: the road repeats every PERIOD m: the window in which the RMS is measured (9.0 s)
PERIOD = 200.0
#: s from the start before the window: the start's transient (the body modes, damping ratio
#: 0.35 at 1.4 Hz, decay as exp(-3.1 t))
SETTLE = 2.0
#: the road begins this far behind the CG (u = X + START): the car starts on it
START = 5.0
LENGTH = 260.0
SEED = 1
T_END = SETTLE + PERIOD / SPEED + 0.2


#: the road of each class and its file, written once a session
_ROADS: dict = {}


def _road_fmu(fmu_dir, road_class: str, friction: bool = True):
    if road_class not in _ROADS:
        road = rough_road(road_class, LENGTH, SEED, period=PERIOD)
        _ROADS[road_class] = road, write_crg(fmu_dir / f"rough_{road_class}.crg", road, LENGTH)
    road, crg = _ROADS[road_class]
    data = event_data()
    data["environment"]["terrain"] = {"type": "crg", "file": str(crg),
                                      "origin": [-START, 0.0, 0.0]}
    if not friction:
        for axle in data["units"][0]["axles"]:
            axle["suspension"]["coulomb_friction"] = 0.0
    name = f"rough_{road_class}" + ("" if friction else "_frictionless")
    return road, event_fmu(fmu_dir, name, data)


def _drive(instance, fmu, record=()):
    """80 km/h held in 4th gear; the record over the window: the samples from SETTLE on while
    the CG covers one period of the road."""
    inst = instance(fmu).start({"car.speed0": SPEED})

    def hold(t, i):
        i.set("car.gear", 4)
        i.set("car.throttle", min(1.0, max(0.0, 0.2 + 0.5 * (SPEED - i.get("car.u")))))
    out = run(inst, T_END, hold, record=("car.az", "car.X", "car.u") + tuple(record))
    x = out["car.X"]
    x0 = np.interp(SETTLE, out["time"], x)
    window = (out["time"] >= SETTLE) & (x < x0 + PERIOD)
    assert x[-1] >= x0 + PERIOD, "the run ends before the window does"
    return {k: v[window] for k, v in out.items()}


def _rms(values) -> float:
    return float(np.sqrt(np.mean(np.square(values))))


def _history(road, x, speed, corners=None):
    """car.az as the quarter cars predict it along the CG's path x: the lines of the road
    under the front wheels (u = x + a + START), through the CG's response (z down)."""
    h = cg_response(2 * math.pi * road.n * speed, speed, corners)
    u = x + A_S + START
    return -np.real(np.exp(1j * (2 * math.pi * np.outer(u, road.n) + road.phase))
                    @ (road.amplitude * h))


@pytest.mark.parametrize("road_class", ["A", "B"])
def test_frictionless_sedan_body_acceleration_is_the_quarter_cars(fmu_dir, instance, road_class):
    """The sedan with a linear suspension: car.az's RMS over one period of the road equals the
    quarter cars' closed form at the CG, and its time history follows theirs."""
    road, fmu = _road_fmu(fmu_dir, road_class, friction=False)
    out = _drive(instance, fmu)
    speed = float(np.mean(out["car.u"]))
    theory = rms_on_lines(lambda w: cg_response(w, speed), road.n, road.amplitude, speed)
    measured = _rms(out["car.az"])
    history = _history(road, out["car.X"], speed)
    error = _rms(out["car.az"] - history) / theory
    print(f"class {road_class}, no friction, {speed * 3.6:.2f} km/h: car.az rms "
          f"{measured:.4f} m/s^2, quarter cars {theory:.4f} "
          f"({100 * (measured / theory - 1):+.2f} %); time history off by {100 * error:.2f} % "
          f"rms (dynamic index {dynamic_index():.3f})")
    assert measured == pytest.approx(theory, rel=0.004)   # measured -0.13 % (A), -0.15 % (B)
    assert error < 0.025                                   # measured 0.61 % (A), 0.85 % (B)


@pytest.mark.parametrize("road_class", ["A", "B"])
def test_sedan_with_friction_against_the_linearised_quarter_cars(fmu_dir, instance, road_class):
    """The sedan as it is: its suspension's Coulomb friction stiffens the ride on a smooth road;
    the quarter cars with the friction's equivalent viscous damping follow it."""
    road, fmu = _road_fmu(fmu_dir, road_class)
    out = _drive(instance, fmu)
    speed = float(np.mean(out["car.u"]))
    corners = [with_friction(c, road.n, road.amplitude, speed) for c in axle_corners()]
    theory = rms_on_lines(lambda w: cg_response(w, speed, corners), road.n, road.amplitude, speed)
    linear = rms_on_lines(lambda w: cg_response(w, speed), road.n, road.amplitude, speed)
    measured = _rms(out["car.az"])
    print(f"class {road_class}, the sedan: car.az rms {measured:.4f} m/s^2, quarter cars with "
          f"the friction's damping ({corners[0].c:.0f}, {corners[1].c:.0f} N s/m) {theory:.4f} "
          f"({100 * (measured / theory - 1):+.2f} %), without it {linear:.4f} "
          f"({100 * (measured / linear - 1):+.2f} %)")
    assert measured == pytest.approx(theory, rel=0.05)     # measured +2.2 % (A), +0.6 % (B)
    assert measured > linear                               # the friction adds: +12.2 %, +5.1 %


@pytest.mark.parametrize("road_class", ["C", "D"])
def test_rough_classes_run_to_the_end(fmu_dir, instance, road_class):
    """Classes C and D at 80 km/h, the sedan as it is: the run ends without an error, and
    car.az stays near the linearised quarter cars' (on D the tires leave the road now and
    then, beyond what a linear model holds)."""
    road, fmu = _road_fmu(fmu_dir, road_class)
    loads = tuple(f"{w}.Fz" for w in WHEELS)
    out = _drive(instance, fmu, record=loads + tuple(f"{w}.jounce" for w in WHEELS))
    speed = float(np.mean(out["car.u"]))
    corners = [with_friction(c, road.n, road.amplitude, speed) for c in axle_corners()]
    theory = rms_on_lines(lambda w: cg_response(w, speed, corners), road.n, road.amplitude, speed)
    measured = _rms(out["car.az"])
    airborne = [float(np.mean(out[f] <= 0.0)) for f in loads]
    jounce = max(float(np.max(np.abs(out[f"{w}.jounce"]))) for w in WHEELS)
    print(f"class {road_class}, the sedan: car.az rms {measured:.4f} m/s^2, linearised quarter "
          f"cars {theory:.4f} ({100 * (measured / theory - 1):+.2f} %); lowest tire load "
          f"{min(float(np.min(out[f])) for f in loads):.0f} N, off the road "
          f"{', '.join(f'{100 * a:.1f}' for a in airborne)} % of the time; largest jounce or "
          f"rebound {1000 * jounce:.1f} mm")
    assert np.all(np.isfinite(out["car.az"]))
    assert measured == pytest.approx(theory, rel=0.03)     # measured +0.1 % (C), -0.8 % (D)


def test_the_example_plots_the_sedan_on_a_class_a_road(tmp_path):
    """examples/rough_road.py (the figure of docs/equations.md, "Rough roads (ISO 8608)") on
    class A: its FMU (built here through the tests' cache), its run at a constant throttle,
    its figures: car.az's RMS near the quarter cars with the friction's damping, the pitch
    acceleration above the linear pitch plane's (the tires' longitudinal forces)."""
    import importlib.util
    from support import fmus
    spec = importlib.util.spec_from_file_location("rough_road_example",
                                                  fmus.ROOT / "examples" / "rough_road.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    event_path, _ = example.write_event(tmp_path, "A")
    fmu = fmus.vehicle(event_path, tmp_path / "rough.fmu")
    result, road = example.run(tmp_path, fmu, "A")
    f = example.plot(result, road, tmp_path / "rough-road.png")
    print({k: round(v, 4) for k, v in f.items() if k != "corners"})
    assert (tmp_path / "rough-road.png").stat().st_size > 0
    assert (tmp_path / "rough-road.csv").stat().st_size > 0
    assert f["speed"] == pytest.approx(SPEED, rel=0.01)
    assert f["az"] == pytest.approx(f["friction"], rel=0.05)
    assert f["pitch"] > f["pitch_plane"]
