"""Validation of the collision model against published full-width frontal barrier tests
(docs/validation.md): three NHTSA tests of the 1987 Toyota Camry, at 47.5, 47.6 and 56.2 km/h
(tests/data/nhtsa-camry-1987-frontal.json, the published figures and their source).

CRASH3's A and B are derived from some of the tests by Campbell's method
(:mod:`simon_fmu.tools.crash3`) and the car of another test is driven into a rigid barrier
through the FMU at that test's speed, with that test's mass and damage width: its crush is a
prediction of the test's measured average crush. The CRASH3 energy closed form of the same
inputs (:func:`simon_fmu.tools.crash3.barrier_crush`) separates what the CRASH3 model predicts
from what the engine adds (the pitch, the suspension and the wheels' spin of a whole car).

Each case's car is the reference sedan's (engine/data/sedan.json) with the test's mass (the
sprung mass takes the difference, its inertias scaled with it) and the test's damage width as
the width of its box, and the A and B of its front; the rest (length, restitution, damping) is
the sedan's.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from simon_fmu.tools.crash3 import average_crush, barrier_crush, coefficients, speed_line
from support.barrier import neutral_run, spin_energy
from support.fixtures import barrier_event
from support.sedan import DATA as PUBLISHED_SEDAN

DATA_FILE = Path(__file__).resolve().parents[1] / "data" / "nhtsa-camry-1987-frontal.json"
PUBLISHED = json.loads(DATA_FILE.read_text())
#: the published tests by number, in SI: mass kg, speed m/s, width m, crush profile m
TESTS = {t["test_no"]: {"mass": float(t["mass"]), "speed": t["speed"] / 3.6,
                        "width": t["width"] / 1000.0,
                        "crush": [c / 1000.0 for c in t["crush"]]}
         for t in PUBLISHED["tests"]}
#: (the test simulated, the tests its A and B come from): the 56 km/h test from the two at
#: 48 km/h, and each of those from the 56 km/h one
CASES = ((1013, (1073, 1102)), (1073, (1013,)), (1102, (1013,)))
WHEELS = [f"car.axle{k}.{s}.spin" for k in (1, 2) for s in ("left", "right")]
RECORD = ("car.u", "car.collision.maxCrush", "car.collision.residualCrush",
          "car.collision.Fx", *WHEELS)
T_END = 0.45      # s: 1 m to the wall, about 0.1 s of contact, and the rebound


def own_coefficients(number: int):
    """A test's own Campbell coefficients (b0 = 8 km/h)."""
    t = TESTS[number]
    return coefficients(t["mass"], t["speed"], t["width"], t["crush"])


def source_coefficients(sources) -> tuple[float, float]:
    """A and B from ``sources``: the mean of each test's own (N/m, N/m^2)."""
    ks = [own_coefficients(n) for n in sources]
    return float(np.mean([k.A for k in ks])), float(np.mean([k.B for k in ks]))


def case_event(number: int, a: float, b: float) -> dict:
    """The sedan as test ``number``'s car (mass, damage width) with front A and B, a rigid
    wall square to its path 1 m ahead of its front (:func:`support.fixtures.barrier_event`)."""
    data = barrier_event()
    unit, t = data["units"][0], TESTS[number]
    unsprung = sum(2.0 * axle["unsprung_mass_per_wheel"] for axle in unit["axles"])
    sprung = unit["sprung_mass"]
    scale = (t["mass"] - unsprung) / sprung["mass"]
    sprung["mass"] *= scale
    sprung["inertia"] = [i * scale for i in sprung["inertia"]]
    sprung["Ixz"] *= scale
    unit["dimensions"]["width"] = t["width"]
    col = unit["collision"]
    col["crush_a"] = {"front": a, "side": 0.0, "rear": 0.0}
    col["crush_stiffness"]["front"] = b
    return data


def crash(instance, fmu, speed: float) -> dict:
    """The car of ``fmu`` in neutral at ``speed0`` = ``speed`` into its wall."""
    return neutral_run(instance, fmu, speed, T_END, RECORD)


def impact(instance, fmu, speed: float) -> dict:
    """The run whose speed at the first contact is ``speed``: a first run finds what the car
    loses on its 1 m to the wall, a second starts that much faster. Its figures: the speed
    at contact, the largest and the residual crush, and the rebound speed (the speed the
    moment the wall's force ends, away from the wall)."""
    r = crash(instance, fmu, speed)
    first = int(np.argmax(r["car.collision.Fx"] != 0.0))
    r = crash(instance, fmu, 2.0 * speed - r["car.u"][first - 1])
    contact = r["car.collision.Fx"] != 0.0
    first = int(np.argmax(contact))
    last = len(contact) - 1 - int(np.argmax(contact[::-1]))
    assert last < len(contact) - 1, "the car is still against the wall at the end of the run"
    spin = spin_energy(PUBLISHED_SEDAN["units"][0], [r[w][first - 1] for w in WHEELS])
    return {"speed_in": float(r["car.u"][first - 1]), "spin_energy": float(spin),
            "max_crush": float(r["car.collision.maxCrush"][-1]),
            "residual_crush": float(r["car.collision.residualCrush"][-1]),
            "rebound": float(-r["car.u"][last + 1])}


def case_figures(number: int, sources, run_figures: dict) -> dict:
    """One case: the published crush, the CRASH3 closed form and the engine's figures."""
    t = TESTS[number]
    a, b = source_coefficients(sources)
    measured = average_crush(t["crush"])
    closed = barrier_crush(t["mass"], t["speed"], t["width"], a, b)
    # the same with the energy the car of the FMU brings: its speed at the first contact and
    # its wheels' spin, which CRASH3's m V^2 / 2 leaves out
    v_in = run_figures["speed_in"]
    v_all = (v_in ** 2 + 2.0 * run_figures["spin_energy"] / t["mass"]) ** 0.5
    closed_all = barrier_crush(t["mass"], v_all, t["width"], a, b)
    return {"test": number, "from": list(sources), "speed_km_h": t["speed"] * 3.6,
            "mass_kg": t["mass"], "width_m": t["width"], "A": a, "B": b,
            "measured_crush_m": measured, "crash3_crush_m": closed,
            "engine_crush_m": run_figures["max_crush"],
            "engine_residual_crush_m": run_figures["residual_crush"],
            "engine_speed_in_km_h": run_figures["speed_in"] * 3.6,
            "rebound_km_h": run_figures["rebound"] * 3.6,
            "rebound_ratio": run_figures["rebound"] / run_figures["speed_in"],
            "crash3_vs_measured": closed / measured - 1.0,
            "engine_vs_measured": run_figures["max_crush"] / measured - 1.0,
            "engine_vs_crash3": run_figures["max_crush"] / closed - 1.0,
            "spin_energy_share": run_figures["spin_energy"] / (0.5 * t["mass"] * v_in ** 2),
            "crash3_with_spin_crush_m": closed_all,
            "engine_vs_crash3_with_spin": run_figures["max_crush"] / closed_all - 1.0}


def published_figures() -> dict:
    """What the published tests give without a simulation: each test's average crush and own
    coefficients, and the speed line through all three (b0 not assumed)."""
    tests = {}
    for n, t in TESTS.items():
        k = own_coefficients(n)
        tests[str(n)] = {"speed_km_h": t["speed"] * 3.6, "mass_kg": t["mass"],
                         "width_m": t["width"], "crush_m": k.crush, "b1": k.b1,
                         "A": k.A, "B": k.B, "G": k.G}
    b0, b1 = speed_line([t["speed"] for t in TESTS.values()],
                        [average_crush(t["crush"]) for t in TESTS.values()])
    return {"tests": tests, "line_b0_km_h": b0 * 3.6, "line_b1": b1}


def figures(instance, fmu_for) -> dict:
    """Every case through the FMU ``fmu_for(number, a, b)`` builds, with the published
    figures."""
    cases = []
    for number, sources in CASES:
        a, b = source_coefficients(sources)
        fmu = fmu_for(number, a, b)
        cases.append(case_figures(number, sources, impact(instance, fmu, TESTS[number]["speed"])))
    return {"published": published_figures(), "cases": cases}
