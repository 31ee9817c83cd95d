"""References computed without the FMU, for comparing what an importer (or the cross-check
folder) got from it.

* the importer probe: its equations in closed form (a first-order lag integrated by explicit
  Euler in ten sub-steps, and ``y2 = sin(u1)*u2 + t``), from the probe's description;
* the vehicle: the engine driven directly through its Python API (``engine.Simulation``),
  with no FMI library, no slave and no importer in between.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np

import engine
from engine.signals import SOLVER_OUTPUTS, STEERING_OUTPUTS
from model_description.catalogue import TIRE_NAMES
from simon_fmu.tools.scenario import Result, Scenario

PROBE_SUBSTEPS = 10
PROBE_RATE = 0.5


def probe_reference(scenario: Scenario) -> Result:
    """The probe in closed form: y1' = u1 - 0.5*y1 (Euler, 10 sub-steps), y2 = sin(u1)*u2 + t."""
    rows = scenario.input_rows()
    inputs = dict(zip(scenario.inputs.names, rows.T))
    u1 = inputs.get("u1", np.zeros(scenario.n_steps))
    u2 = inputs.get("u2", np.ones(scenario.n_steps))
    h = scenario.step_size / PROBE_SUBSTEPS
    # n Euler sub-steps of y' = u - a*y with u held: y_n = c^n y_0 + (1 - c^n) u / a
    c_n = (1.0 - h * PROBE_RATE) ** PROBE_SUBSTEPS
    y1 = np.empty(scenario.n_steps)
    y = 0.0
    for k in range(scenario.n_steps):
        y = c_n * y + (1.0 - c_n) * u1[k] / PROBE_RATE
        y1[k] = y
    t = scenario.step_size * np.arange(scenario.n_steps)
    columns = {"y1": y1, "y2": np.sin(u1) * u2 + t}
    return Result("closed form", scenario.outputs, t + scenario.step_size,
                  np.column_stack([columns[n] for n in scenario.outputs]))


def _slot(event: engine.Event, name: str):
    """(kind, row, field) of an FMU variable in ``engine.Simulation``'s arrays: kind is
    ``env``, ``unit``, ``wheel``, ``tire``, ``steering`` or ``solver``; row is None for the
    environment."""
    if "." not in name:
        return "env", None, name
    tire_fields = {TIRE_NAMES.get(key, key): key for key in engine.TIRE_OUTPUTS}   # FMU name: field
    for kind, names, fields in (
            ("unit", [u.name for u in event.units], engine.UNIT_INPUTS + engine.UNIT_OUTPUTS),
            ("wheel", event.wheel_names(), engine.WHEEL_INPUTS + engine.WHEEL_OUTPUTS),
            ("tire", event.tire_names(), tuple(tire_fields)),
            ("steering", [f"{u}.steering" for u in event.steering_unit_names()], STEERING_OUTPUTS),
            ("solver", ["solver"], SOLVER_OUTPUTS)):
        for row, head in enumerate(names):      # a field may hold a dot itself (aero.Fx)
            field = name[len(head) + 1:]
            if name.startswith(head + ".") and field in fields:
                return kind, row, tire_fields.get(field, field) if kind == "tire" else field
    raise KeyError(f"{name}: not a unit, wheel, tire, steering, solver or environment variable of "
                   "the event")


def engine_reference(scenario: Scenario) -> Result:
    """The event the vehicle FMU carries, run by ``engine.Simulation`` with the same inputs,
    applied at t_k before the step that starts there, outputs read after every step."""
    with zipfile.ZipFile(scenario.fmu) as z:
        event_name = next(n for n in z.namelist()
                          if n.startswith("resources/") and n.endswith("event.json"))
        event = engine.load_event(json.loads(z.read(event_name)))
    sim = engine.Simulation(event)
    inputs = {"unit": (sim.u_unit, engine.UNIT_INPUTS), "wheel": (sim.u_wheel, engine.WHEEL_INPUTS),
              "env": (sim.u_env, engine.ENV_INPUTS)}
    outputs = {"unit": (sim.y_unit, engine.UNIT_OUTPUTS), "wheel": (sim.y_wheel, engine.WHEEL_OUTPUTS),
               "tire": (sim.y_tire, engine.TIRE_OUTPUTS), "steering": (sim.y_steer, STEERING_OUTPUTS),
               "solver": (sim.y_solver, SOLVER_OUTPUTS)}

    def where(name, table):
        kind, row, field = _slot(event, name)
        array, fields = table[kind]
        column = fields.index(field)
        return array, (column,) if row is None else (row, column)

    setters = [where(n, inputs) for n in scenario.inputs.names]
    getters = [where(n, outputs) for n in scenario.outputs]
    rows = scenario.input_rows()
    values = np.empty((scenario.n_steps, len(getters)))
    for k in range(scenario.n_steps):
        for (array, index), value in zip(setters, rows[k]):
            array[index] = value
        sim.advance(scenario.time(k + 1))
        values[k] = [array[index] for array, index in getters]
    return Result("engine", scenario.outputs, scenario.step_size * np.arange(1, scenario.n_steps + 1),
                  values)


def independent_reference(scenario: Scenario) -> Result:
    """The probe's closed form, or the engine run directly for a vehicle FMU."""
    if scenario.fmu.stem == "ImporterProbe":
        return probe_reference(scenario)
    return engine_reference(scenario)
