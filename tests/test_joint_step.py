"""The step-size check covers the joints at every attitude (engine.setup.stability.joint_step,
docs/equations.md, "The integration step and its stability").

A fixed-dolly double starts with its dolly's pitch held by the fifth wheel's pitch joint, and
its stiffest mode there asks for 2.7 ms (RK4). Rolled in a tumble, the joint holds another
axis and the dolly pitches on the drawbar's damper, a mode twice as stiff: the start check
took 2 ms, and after a barrier impact the run diverged under fmi2OK (unit speeds of 350 m/s
and the energy up from 29 to 252 MJ before a state went non-finite). The joint check turns
the units through the attitudes their joints allow and refuses such a step, naming the mode.

The references: the start's own modes (the engine's check at the initial state), and a run of
the same event at a step five times smaller, which resolves every mode.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from engine.setup.stability import joint_step, stable_step
from support import fmus
from support.energy import QUANTITIES, by_unit, mechanical_energy
from support.run import run

DATA = json.loads((fmus.ROOT / "engine" / "data" / "double-fixed-dolly.json").read_text())
UNITS = ("tractor", "trailer1", "dolly", "trailer2")
#: the impact (a case the severe-event fuzz found): the double at 30.9 m/s on friction 1.7,
#: steered 8.3 rad at 5 rad/s from 0.12 s into a barrier across its path, braked from 0.63 s
SPEED, FRICTION, DURATION = 30.879, 1.6964, 3.0
BARRIER = {"point": [20.962264093441238, 0.0, 0.0],
           "normal": [-0.864429799688346, -0.5027535394313659, 0.0]}


def _impact(step: float) -> dict:
    data = copy.deepcopy(DATA)
    data["units"][0]["initial"]["speed"] = SPEED
    data["environment"]["friction_multiplier"] = FRICTION
    data["environment"]["barriers"] = [BARRIER]
    data["simulation"]["step_size"] = step
    return data


def _steer(t: float) -> float:
    return min(8.306780447208457, 5.0 * max(0.0, t - 0.1160937906467468))


def _brake(t: float) -> float:
    return 5000.0 if t >= 0.628403064928748 else 0.0


def _masses():
    """Each unit's whole mass and its sprung mass's inertia (the event's)."""
    sim = engine.Simulation(engine.load_event(_impact(0.001)), warn=False)
    inertia = {u["name"]: u["sprung_mass"]["inertia"] for u in DATA["units"]}
    return {n: sim.unit_mass(n) for n in UNITS}, inertia


def _engine_run(step: float) -> dict:
    """The impact in the engine, outputs every 10 ms."""
    sim = engine.Simulation(engine.load_event(_impact(step)), warn=False)
    UI, UO = list(engine.UNIT_INPUTS), list(engine.UNIT_OUTPUTS)
    out = {n: {k: [] for k in QUANTITIES} for n in UNITS}
    for k in range(round(DURATION / 0.01)):
        t = k * 0.01
        sim.u_unit[0, UI.index("steeringWheelAngle")] = _steer(t)
        sim.u_unit[0, UI.index("brakePedalForce")] = _brake(t)
        sim.advance(round((k + 1) * 0.01, 10))
        for i, n in enumerate(UNITS):
            for q in QUANTITIES:
                out[n][q].append(sim.y_unit[i, UO.index(q)])
    return {n: {q: np.array(v) for q, v in o.items()} for n, o in out.items()}


def test_a_rolled_fixed_dolly_meets_a_stiffer_mode_than_its_start():
    """The joints' limit lies well below the start's (the double at speed, where no wheel's
    spin sets it): the start holds the dolly's pitch."""
    sim = engine.Simulation(engine.load_event(_impact(0.001)), warn=False)
    start, joints = stable_step(sim), joint_step(sim)
    print(f"fixed dolly: start {start.h_max * 1e3:.3f} ms ({start.eigenvalue:.4g}, "
          f"{start.state}); joints {joints.h_max * 1e3:.3f} ms ({joints.eigenvalue:.4g}, "
          f"{joints.state})")
    assert joints.h_max < 0.6 * start.h_max
    assert joints.state.startswith("dolly.")
    # the units as they stood: the level sample is the start's own arrangement of the joints
    assert sim.joint_limit == joints


def test_a_step_beyond_the_joints_limit_is_refused_naming_the_mode():
    with pytest.raises(engine.EventError) as told:
        engine.Simulation(engine.load_event(_impact(0.002)), warn=False)
    message = str(told.value)
    print(message)
    assert "stepSize: a step <= 0.0014 s for this vehicle (got 0.002): turned through the " \
           "attitudes its joints allow" in message
    assert "in dolly.q" in message and "4th-order Runge-Kutta" in message


def test_a_vehicle_without_joints_has_no_joint_limit():
    sim = engine.Simulation(engine.load_event(), warn=False)
    assert joint_step(sim).h_max == math.inf


@pytest.fixture(scope="module")
def impact_fmus(tmp_path_factory):
    """The impact's native and development FMUs, at the event's step of 1 ms."""
    folder = tmp_path_factory.mktemp("joint-step")
    event = folder / "impact.json"
    event.write_text(json.dumps(_impact(0.001)))
    return (fmus.native(event, folder / "impact-native.fmu", platforms="linux64"),
            fmus.vehicle(event, folder / "impact-development.fmu"))


def _refusals(impact_fmus, instance, parameters) -> list[str]:
    """Each FMU's message refusing ``parameters`` at the end of initialisation."""
    messages = []
    for fmu in impact_fmus:
        inst = instance(fmu, name=fmu.stem)
        inst.fmu.setupExperiment(startTime=0.0)
        inst.fmu.enterInitializationMode()
        for name, value in parameters.items():
            inst.set(name, value)
        with pytest.raises(Exception):
            inst.fmu.exitInitializationMode()
        messages.append(inst.messages(min_status=3)[-1])
    print(messages[0])
    return messages


def test_both_fmus_refuse_a_step_beyond_the_joints_limit_alike(impact_fmus, instance):
    messages = _refusals(impact_fmus, instance, {"stepSize": 0.0015})
    assert messages[0] == messages[1]
    assert "the parameters are not accepted: stepSize: a step <= 0.0014 s for this vehicle " \
           "(got 0.0015): turned through the attitudes its joints allow" in messages[0]


def test_heuns_method_set_as_a_parameter_meets_its_own_joints_limit(impact_fmus, instance):
    """The FMUs of the impact are built with the classical Runge-Kutta method; with the
    parameter integrator set to Heun's method, the joints' limit is that method's (1.01 ms
    where RK4's is 1.40: its stability region is smaller), and both FMUs refuse a step
    between the two alike, naming the method (the native FMU's from its build, which found
    both)."""
    messages = _refusals(impact_fmus, instance, {"integrator": 2, "stepSize": 0.0012})
    assert messages[0] == messages[1]
    assert "the parameters are not accepted: stepSize: a step <= 0.00101 s for this vehicle " \
           "(got 0.0012): turned through the attitudes its joints allow" in messages[0]
    assert "2nd-order Runge-Kutta (Heun) step is stable only up to h = 0.00101 s" in messages[0]


def test_the_impact_at_a_step_the_check_accepts_runs_to_the_end(impact_fmus, instance):
    """At 1.25 ms (the joints' limit 1.40 ms) the barrier impact and the tumble after it run
    through both FMUs to the end, alike to the bit; the energy never exceeds the start's; and
    it follows the engine's run at 0.25 ms, which resolves every mode (measured: within
    0.13 % of the start's energy at every 10 ms)."""
    record = tuple(f"{n}.{k}" for n in UNITS for k in QUANTITIES)

    def control(t, inst):
        inst.set("tractor.steeringWheelAngle", _steer(t))
        inst.set("tractor.brakePedalForce", _brake(t))

    runs = []
    for fmu in impact_fmus:
        inst = instance(fmu, name=fmu.stem).start({"stepSize": 0.00125})
        runs.append(run(inst, DURATION, control, record=record))
    native, development = runs
    for name in record:
        assert np.array_equal(native[name], development[name]), name
    masses, inertia = _masses()
    g = DATA["environment"]["gravity"]
    e = mechanical_energy(by_unit(native, UNITS), masses, inertia, g)
    fine = mechanical_energy(_engine_run(0.00025), masses, inertia, g)
    worst = np.abs(e - fine).max() / fine[0]
    print(f"energy {e[0] / 1e6:.2f} MJ at 10 ms, {e[-1] / 1e6:.2f} MJ at {DURATION:g} s, at most "
          f"{e.max() / 1e6:.2f} MJ; against 0.25 ms: largest difference {worst:.3%} of the start")
    assert e.max() <= e[0] * 1.001
    assert e[-1] < 0.1 * e[0]              # the barrier and the tumble took most of it
    assert worst < 0.004
