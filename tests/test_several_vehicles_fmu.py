"""Several vehicles through the built FMU (fmpy): the sedan twice (engine/data/two-cars.json).

The vehicles interact only through collisions (not yet modelled), so the exact reference for
each car of the two-car FMU is the same manoeuvre run alone in the single-car FMU, whose
initial-condition parameters put it where the two-car event puts it. The coasting cars also
follow the closed form of the coast-down in neutral along their own initial heading.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error

import engine
from engine.setup.event import TWO_CARS_EVENT

from conftest import ROOT

DATA = json.loads(open(TWO_CARS_EVENT).read())
INITIAL = {u["name"]: u["initial"] for u in DATA["units"]}
H = 0.01          # communication step, s
T_END = 2.0
T_INPUT = 0.2     # the inputs step at this time
PEDAL = 300.0     # N on car's brake pedal
STEER = 1.0       # rad at car2's steering wheel


def parameters(unit, init, prefix=None):
    """The initial-condition parameters of ``unit`` (named ``prefix`` in the FMU)."""
    p = prefix or unit
    return {f"{p}.X0": init["X"], f"{p}.Y0": init["Y"], f"{p}.yaw0": init["yaw"], f"{p}.speed0": init["speed"]}


def manoeuvre(unit):
    """(input name, value from T_INPUT on) of each vehicle: car brakes, car2 steers; the car
    beside the tractor-semitrailer ("car_beside") steers and the tractor brakes."""
    return {"car": ("brakePedalForce", PEDAL), "car2": ("steeringWheelAngle", STEER),
            "car_beside": ("steeringWheelAngle", STEER), "tractor": ("brakePedalForce", PEDAL)}[unit]


GEAR = {"car": 4, "car2": 4, "car_beside": 4, "tractor": 6}


def real_outputs(md, *units):
    return [v.name for v in md.modelVariables
            if v.causality == "output" and v.type == "Real" and v.name.split(".")[0] in units]


def run(inst, drives, names):
    """Step to T_END; ``drives`` maps the FMU's unit name to the manoeuvre's unit. Returns
    the outputs ``names`` after every step, [step, name]."""
    out = []
    for fmu_unit, unit in drives.items():
        inst.set(f"{fmu_unit}.gear", GEAR[unit])
    vrs = [inst.vr[n] for n in names]
    for n in range(round(T_END / H)):
        t = n * H
        for fmu_unit, unit in drives.items():
            key, value = manoeuvre(unit)
            inst.set(f"{fmu_unit}.{key}", value if t >= T_INPUT - 1e-9 else 0.0)
        inst.fmu.doStep(t, H)
        out.append(inst.fmu.getReal(vrs))
    return np.array(out)


def test_each_car_moves_exactly_as_it_does_alone(instance, extracted, two_cars_fmu, car_fmu):
    """One car braking and one steering in one FMU give the trajectories, and every other
    output, of the same manoeuvres run each alone in the single-car FMU."""
    _, md2 = extracted(two_cars_fmu)
    _, md1 = extracted(car_fmu)
    names = {u: real_outputs(md2, u) for u in ("car", "car2")}
    single = real_outputs(md1, "car")
    assert names["car"] == single and names["car2"] == [n.replace("car.", "car2.", 1) for n in single]
    both = instance(two_cars_fmu, "two").start()
    together = run(both, {"car": "car", "car2": "car2"}, names["car"] + names["car2"])
    n = len(single)
    worst = 0.0
    for k, unit in enumerate(("car", "car2")):
        alone = instance(car_fmu, f"alone_{unit}").start(parameters("car", INITIAL[unit]))
        ref = run(alone, {"car": unit}, single)
        worst = max(worst, relative_difference(together[:, k * n:(k + 1) * n], ref))
    assert worst <= 1e-12                # measured 0: the same arithmetic, bit for bit
    # the manoeuvres did happen: car decelerated more than coasting, car2 turned to the right
    ix = {name: i for i, name in enumerate(names["car"] + names["car2"])}
    assert together[-1, ix["car.u"]] < INITIAL["car"]["speed"] - 4.0
    assert together[-1, ix["car2.yaw"]] > INITIAL["car2"]["yaw"] + 0.3
    assert abs(together[-1, ix["car.yaw"]]) < 1e-9


def relative_difference(got, ref):
    """The largest difference of each output over the run, relative to its largest magnitude
    plus 1 in its SI unit (an output that stays at round-off level, such as the lateral
    position of a straight stop, 1e-23 m, compares in absolute terms)."""
    scale = np.abs(ref).max(axis=0) + 1.0
    return float((np.abs(got - ref).max(axis=0) / scale).max())


def test_a_car_and_a_tractor_semitrailer_move_as_they_do_alone(instance, extracted, car_fmu, semitrailer_fmu,
                                                               fmu_dir):
    """A single unit and a combination in one FMU: the car steering and the tractor braking
    give the outputs of each run alone (the car in the car's FMU, the combination in the
    tractor-semitrailer's); the static equilibrium each starts from is solved vehicle by
    vehicle, so that the heavy combination does not rescale the car's."""
    from conftest import build
    from engine.setup.event import CAR_AND_SEMITRAILER_EVENT
    mixed = build(Path(CAR_AND_SEMITRAILER_EVENT), fmu_dir / "SimonCarAndSemitrailer.fmu")
    data = json.loads(open(CAR_AND_SEMITRAILER_EVENT).read())
    init = {u["name"]: u["initial"] for u in data["units"] if u.get("initial")}
    _, md = extracted(mixed)
    car = real_outputs(md, "car")
    combination = real_outputs(md, "tractor", "trailer")
    assert car == real_outputs(extracted(car_fmu)[1], "car")
    assert combination == real_outputs(extracted(semitrailer_fmu)[1], "tractor", "trailer")
    both = run(instance(mixed, "mixed").start(), {"car": "car_beside", "tractor": "tractor"}, car + combination)
    alone_car = run(instance(car_fmu, "car").start(parameters("car", init["car"])), {"car": "car_beside"}, car)
    alone_semi = run(instance(semitrailer_fmu, "semi").start(parameters("tractor", init["tractor"])),
                     {"tractor": "tractor"}, combination)
    assert relative_difference(both[:, :len(car)], alone_car) <= 1e-12       # measured 0 (3e-13 when the
    #                                                       static loads were solved for the whole event)
    assert relative_difference(both[:, len(car):], alone_semi) <= 1e-12           # measured 0
    ix = {name: i for i, name in enumerate(car + combination)}
    assert both[-1, ix["car.yaw"]] > 0.3 and both[-1, ix["tractor.u"]] < init["tractor"]["speed"] - 2.0


def coast_distance(v0, t, ev_unit, gravity, rho):
    """Distance coasted in neutral in time t from v0: m_eff dv/dt = -(sigma0 m g + rho Cd A
    v^2 / 2), m_eff = m + sum I_w / r^2 with each wheel at its loaded radius; integrated
    exactly: v = c tan(theta0 - sqrt(a k) t), d = ln(cos(theta0 - sqrt(a k) t) / cos(theta0)) / k."""
    ms = ev_unit["sprung_mass"]["mass"]
    axles = ev_unit["axles"]
    m = ms + sum(2 * a["unsprung_mass_per_wheel"] for a in axles)
    wb = axles[0]["x"] - axles[-1]["x"]
    m_eff = m
    for a, share in ((axles[0], -axles[-1]["x"] / wb), (axles[-1], axles[0]["x"] / wb)):
        tire = ev_unit["tires"][a["tire"]]
        load = ms * gravity * share / 2 + a["unsprung_mass_per_wheel"] * gravity
        r = tire["unloaded_radius"] - load / tire["radial_stiffness"]
        m_eff += 2 * tire["spin_inertia"] / r ** 2
    sigma0 = ev_unit["tires"][axles[0]["tire"]]["rolling_resistance"]["sigma0"]
    aero = ev_unit["aerodynamics"][0]
    a = sigma0 * m * gravity / m_eff
    k = 0.5 * rho * aero["drag_coefficient"] * aero["area"] / m_eff
    c = math.sqrt(a / k)
    theta0 = math.atan(v0 / c)
    return math.log(math.cos(theta0 - math.sqrt(a * k) * t) / math.cos(theta0)) / k


def test_each_cars_initial_parameters_take_effect(instance, two_cars_fmu):
    """Set apart from the event's values, each car starts where its parameters say and coasts
    along its own heading: X = X0 + d cos(psi0), Y = Y0 + d sin(psi0), d the coast-down's
    closed form."""
    place = {"car": {"X": -10.0, "Y": 5.0, "yaw": -0.4, "speed": 12.0},
             "car2": {"X": 30.0, "Y": -25.0, "yaw": 2.5, "speed": 18.0}}
    inst = instance(two_cars_fmu).start({**parameters("car", place["car"]), **parameters("car2", place["car2"])})
    fields = ("X", "Y", "yaw", "u")
    for unit, p in place.items():
        assert inst.get_reals([f"{unit}.{f}" for f in fields]) == pytest.approx(
            [p["X"], p["Y"], p["yaw"], p["speed"]], abs=1e-12)
    names = [f"{u}.{f}" for u in place for f in fields]
    vrs = [inst.vr[n] for n in names]
    for n in range(round(T_END / H)):
        inst.fmu.doStep(n * H, H)          # neutral, no pedal, no steering
    got = dict(zip(names, inst.fmu.getReal(vrs)))
    env = DATA["environment"]
    rho = env["air_pressure"] / (287.058 * env["air_temperature"])
    for unit, p in place.items():
        d = coast_distance(p["speed"], T_END, DATA["units"][0], env["gravity"], rho)
        dx, dy = got[f"{unit}.X"] - p["X"], got[f"{unit}.Y"] - p["Y"]
        along = dx * math.cos(p["yaw"]) + dy * math.sin(p["yaw"])
        across = -dx * math.sin(p["yaw"]) + dy * math.cos(p["yaw"])
        assert abs(across) < 1e-9 and got[f"{unit}.yaw"] == pytest.approx(p["yaw"], abs=1e-12)
        assert along == pytest.approx(d, rel=3e-5), unit       # measured 1.2e-5 (the tires settle at the start)
        assert along < p["speed"] * T_END


def test_catalogue_has_each_cars_variables_with_unique_value_references(extracted, two_cars_fmu, car_fmu):
    _, md2 = extracted(two_cars_fmu)
    _, md1 = extracted(car_fmu)
    refs = [v.valueReference for v in md2.modelVariables]
    assert len(set(refs)) == len(refs)
    by_name = {v.name: v for v in md2.modelVariables}
    assert len(by_name) == len(refs)
    one = [v for v in md1.modelVariables]
    unit_vars = [v for v in one if v.name.startswith("car.")]
    shared = [v for v in one if not v.name.startswith("car.")]
    assert len(refs) == len(shared) + 2 * len(unit_vars)
    for v in shared:
        assert by_name[v.name].causality == v.causality
    for unit in ("car", "car2"):
        for v in unit_vars:
            w = by_name[v.name.replace("car.", unit + ".", 1)]
            assert (w.causality, w.variability, w.type, w.unit, w.description) == \
                (v.causality, v.variability, v.type, v.unit, v.description)
        # the driver inputs and initial conditions of each car, its start values from the event
        for key in engine.UNIT_INPUTS:
            assert by_name[f"{unit}.{key}"].causality == "input"
        init = INITIAL[unit]
        for key, value in (("X0", init["X"]), ("Y0", init["Y"]), ("yaw0", init["yaw"]), ("speed0", init["speed"])):
            assert by_name[f"{unit}.{key}"].causality == "parameter"
            assert float(by_name[f"{unit}.{key}"].start) == pytest.approx(value, abs=1e-15)
    # every variable of car2 follows every variable of car (value references unit by unit)
    car = max(by_name[n].valueReference for n in by_name if n.startswith("car."))
    car2 = min(by_name[n].valueReference for n in by_name if n.startswith("car2."))
    assert car < car2


def test_overlapping_start_parameters_are_refused_naming_them(instance, two_cars_fmu):
    inst = instance(two_cars_fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    for name, value in parameters("car2", {"X": 1.0, "Y": 0.5, "yaw": 0.2, "speed": 10.0}).items():
        inst.set(name, value)
    with pytest.raises(FMICallException) as failed:
        inst.fmu.exitInitializationMode()
    assert failed.value.status == fmi2Error
    errors = inst.messages(fmi2Error)
    assert any("car2.X0, car2.Y0, car2.yaw0 (units[1].initial): a start apart from vehicle 'car'" in m
               for m in errors), inst.log


@pytest.mark.parametrize("spoil, words", [
    (lambda d: d["units"][1].pop("initial"), "units[1].initial: missing; an object with X, Y, yaw and speed"),
    (lambda d: d["units"][1].update(name="car"), "units[1].name: a name not used by another unit (got 'car')"),
])
def test_a_bad_second_vehicle_is_refused_by_the_build_command(tmp_path, spoil, words):
    data = json.loads(open(TWO_CARS_EVENT).read())
    spoil(data)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data))
    out = tmp_path / "X.fmu"
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event), "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()
