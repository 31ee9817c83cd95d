"""Sub-steps in severe events (``simulation.substeps``; engine.integrator; docs/equations.md,
"Sub-steps in severe events"): a step whose stages meet a mode stiffer than the method resolves
at that step is taken again in sub-steps.

The case is the severe-event fuzz's sedan sliding into a kerb (tests/support/kerb.py) at
Heun's largest step, 1.4 ms: there it stayed upright, where a quarter of the step and less roll
it over two turns and more. The reference is the same engine at a quarter of the step, without
sub-steps (a rollover's count of quarter turns is not converged in the step:
docs/limitations.md; its distance is)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from support.kerb import kerb_event, run, solver_run

LARGEST_RK2 = 1.4e-3


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kerb")
    return {name: run(kerb_event(folder, "rk2", step, substeps), folder)
            for name, step, substeps in (("reference", LARGEST_RK2 / 4, 1),
                                         ("fixed", LARGEST_RK2, 1),
                                         ("split", LARGEST_RK2, 16))}


def test_a_kerb_trip_at_heuns_largest_step_rolls_over_as_the_finer_step_does(runs):
    ref, fixed, split = runs["reference"], runs["fixed"], runs["split"]
    turns = {k: r["roll"][-1] / (2 * math.pi) for k, r in runs.items()}
    print({k: (round(t, 2), round(float(runs[k]["X"][-1]), 2), round(float(runs[k]["speed"][-1]), 2))
           for k, t in turns.items()})
    assert abs(turns["reference"]) > 2.0, "the reference does not roll over"
    # without sub-steps the largest step loses the rollover (the defect sub-steps repair)
    assert abs(turns["fixed"]) < 0.5
    # with them it rolls as the reference does, and ends where it ends
    assert abs(turns["split"]) > 2.0 and turns["split"] * turns["reference"] > 0
    assert abs(split["X"][-1] - ref["X"][-1]) < 1.0
    assert abs(fixed["X"][-1] - ref["X"][-1]) > 5.0


def test_a_smooth_manoeuvre_runs_as_without_sub_steps():
    """A lane change at 20 m/s meets no mode beyond the margin: with sub-steps allowed every
    output is the fixed step's to 2e-6 of its range. The estimate splits only the run's first
    steps, where the start's tire states and the wheels' spin settle: 4.8e-7 of ax's range at
    10 ms, 1.9e-9 of any output's after the first second (measured 2026-12-07)."""
    out = []
    for substeps in (1, 16):
        data = json.loads(engine.load_event().to_json())
        data["units"][0]["initial"]["speed"] = 20.0
        data["simulation"]["substeps"] = substeps
        sim = engine.Simulation(engine.load_event(data))
        ui = {n: i for i, n in enumerate(engine.UNIT_INPUTS)}
        rows = []
        for k in range(300):
            t = k * 0.01
            sim.u_unit[0, ui["steeringWheelAngle"]] = (1.0 * math.sin(math.pi * (t - 0.5))
                                                       if 0.5 <= t <= 2.5 else 0.0)
            sim.advance(round((k + 1) * 0.01, 10))
            rows.append(sim.y_unit[0].copy())
        out.append(np.array(rows))
    a, b = out
    scale = np.maximum(np.ptp(a, axis=0), 1e-3 * np.max(np.abs(a), axis=0))
    worst = float(np.max(np.abs(a - b) / np.where(scale > 0.0, scale, 1.0)))
    print(f"largest difference {worst:.3g} of a range")
    assert worst <= 2e-6


@pytest.mark.parametrize("value", [0, 65, 2.5])
def test_substeps_out_of_range_are_refused_naming_the_field(value):
    data = json.loads(engine.load_event().to_json())
    data["simulation"]["substeps"] = value
    with pytest.raises(engine.EventError, match=r"simulation\.substeps"):
        engine.load_event(data)


# --- what an engineer sees: the integrator's outputs ----------------------------------------

def test_the_steps_split_into_sub_steps_are_counted_where_they_are_split(tmp_path):
    """``solver.splitSteps`` and ``solver.mostSubsteps`` (engine.Simulation.y_solver, the FMUs'
    outputs): over the kerb strike at Heun's largest step with 16 sub-steps allowed, each
    communication step's count is checked against the integrator itself: the same step taken
    from the same state without sub-steps ends in the same state, bit for bit, exactly where
    none was counted, and elsewhere not. Where steps were split the most sub-steps of one lies
    in 2 .. 16, where none was it is 0; without sub-steps both stay 0."""
    rows, same = solver_run(tmp_path, check=True)
    split, most = rows[:, 0], rows[:, 1]
    counted = split > 0
    print(f"{int(counted.sum())} of {len(rows)} communication steps split, "
          f"{int(split.sum())} steps in all, at most {int(most.max())} sub-steps of one")
    assert counted.sum() >= 3, "the kerb strike splits steps"
    assert np.array_equal(counted, ~same)
    assert np.all(split <= 8) and np.all(split == np.round(split))      # 7 or 8 steps of 1.4 ms
    assert np.all((most[counted] >= 2) & (most[counted] <= 16)) and np.all(most[~counted] == 0)
    fixed, _ = solver_run(tmp_path, substeps=1)
    assert not fixed.any()


@pytest.mark.parametrize("value", [0, 65, 2.5, True])
def test_substeps_given_to_the_simulation_out_of_range_are_refused(value):
    """engine.Simulation(substeps=...) (the FMUs' parameter ``substeps``) stands for the
    event's simulation.substeps: a whole number 1..64, else refused naming it."""
    with pytest.raises(engine.EventError, match=r"substeps: a whole number 1\.\.64 \(got "):
        engine.Simulation(engine.load_event(), substeps=value)
    sim = engine.Simulation(engine.load_event(), substeps=16)
    from engine.layout import E_SUBSTEPS
    assert sim.substeps == 16 and sim.model.P_ENV[E_SUBSTEPS] == 16.0
