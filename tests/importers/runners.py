"""Run a Scenario in fmpy, in libcosim (libcosimpy) and in Vico's ecos (ecospy).

Each runner follows the convention in ``scenario``: start values and the first
input row in initialization mode, inputs sampled at ``t_k`` set before the step
that starts there, outputs read after every step.
"""

from __future__ import annotations

import shutil
from typing import Callable

import numpy as np

from simon_fmu.tools.scenario import Result, Scenario
from .system import require_tbb


class ImporterError(RuntimeError):
    """An importer refused a call or failed to step."""


def _initial_values(scenario: Scenario) -> dict[str, float]:
    values = dict(scenario.start_values)
    first = scenario.inputs.at(0.0)
    values.update(zip(scenario.inputs.names, (float(x) for x in first)))
    return values


def run_fmpy(scenario: Scenario) -> Result:
    """fmpy's FMU2Slave, driven call by call."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(scenario.fmu), validate=False)
    unzipdir = extract(str(scenario.fmu))
    try:
        slave = FMU2Slave(
            guid=md.guid,
            unzipDirectory=unzipdir,
            modelIdentifier=md.coSimulation.modelIdentifier,
            instanceName="fmpy",
        )
        in_vrs = scenario.value_references(scenario.inputs.names)
        out_vrs = scenario.value_references(scenario.outputs)
        initial = _initial_values(scenario)
        rows = scenario.input_rows()
        values = np.empty((scenario.n_steps, len(out_vrs)))
        slave.instantiate()
        try:
            slave.setupExperiment(startTime=0.0, stopTime=scenario.stop_time)
            slave.enterInitializationMode()
            if initial:
                slave.setReal(scenario.value_references(list(initial)), list(initial.values()))
            slave.exitInitializationMode()
            for k in range(scenario.n_steps):
                if in_vrs:
                    slave.setReal(in_vrs, [float(x) for x in rows[k]])
                slave.doStep(
                    currentCommunicationPoint=scenario.time(k),
                    communicationStepSize=scenario.step_size,
                )
                values[k] = slave.getReal(out_vrs)
            slave.terminate()
        finally:
            slave.freeInstance()
    finally:
        shutil.rmtree(unzipdir, ignore_errors=True)
    times = np.array([scenario.time(k + 1) for k in range(scenario.n_steps)])
    return Result("fmpy", scenario.outputs, times, values)


def run_libcosim(scenario: Scenario) -> Result:
    """libcosim through libcosimpy: one local slave, override manipulator, last-value observer."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.WARNING)
    step_ns = round(scenario.step_size * 1e9)
    if abs(step_ns - scenario.step_size * 1e9) > 1e-6:
        raise ValueError("libcosim counts time in whole nanoseconds; choose such a step size")

    execution = CosimExecution.from_step_size(step_size=step_ns)
    slave = CosimLocalSlave(fmu_path=str(scenario.fmu), instance_name="libcosim")
    index = execution.add_local_slave(local_slave=slave)
    if index < 0:
        raise ImporterError(f"libcosim could not load {scenario.fmu}")
    manipulator = CosimManipulator.create_override()
    observer = CosimObserver.create_last_value()
    execution.add_manipulator(manipulator=manipulator)
    execution.add_observer(observer=observer)

    for name, value in _initial_values(scenario).items():
        (vr,) = scenario.value_references([name])
        if not execution.real_initial_value(index, vr, value):
            raise ImporterError(f"libcosim refused the initial value {name}={value}")

    in_vrs = scenario.value_references(scenario.inputs.names)
    out_vrs = scenario.value_references(scenario.outputs)
    rows = scenario.input_rows()
    values = np.empty((scenario.n_steps, len(out_vrs)))
    times = np.empty(scenario.n_steps)
    for k in range(scenario.n_steps):
        if in_vrs and not manipulator.slave_real_values(index, in_vrs, [float(x) for x in rows[k]]):
            raise ImporterError(f"libcosim refused the inputs at step {k}")
        if not execution.step():
            raise ImporterError(f"libcosim failed the step from t={scenario.time(k)}")
        times[k] = execution.status().current_time * 1e-9
        values[k] = observer.last_real_values(index, out_vrs)
    execution.stop()
    del observer, manipulator, execution, slave
    return Result("libcosim", scenario.outputs, times, values)


def run_ecos(scenario: Scenario) -> Result:
    """Vico's ecos through ecospy: a one-model structure, values set by name."""
    require_tbb()  # libecosc.so is loaded when ecospy is imported
    from ecospy import EcosLib, EcosSimulation, EcosSimulationStructure

    EcosLib.set_log_level("warn")
    structure = EcosSimulationStructure()
    structure.add_model("ecos", str(scenario.fmu))
    sim = EcosSimulation(structure=structure, step_size=scenario.step_size)
    try:
        for name, value in _initial_values(scenario).items():
            sim.set_real(f"ecos::{name}", value)
        if not sim.init(0.0):
            raise ImporterError(f"ecos could not initialise: {EcosLib.get_last_error()}")
        rows = scenario.input_rows()
        values = np.empty((scenario.n_steps, len(scenario.outputs)))
        times = np.empty(scenario.n_steps)
        for k in range(scenario.n_steps):
            for name, value in zip(scenario.inputs.names, rows[k]):
                sim.set_real(f"ecos::{name}", float(value))
            times[k] = sim.step()
            values[k] = [sim.get_real(f"ecos::{name}") for name in scenario.outputs]
        sim.terminate()
    finally:
        sim.free()
        structure.free()
    return Result("ecos", scenario.outputs, times, values)


PYTHON_IMPORTERS: dict[str, Callable[[Scenario], Result]] = {
    "fmpy": run_fmpy,
    "libcosim": run_libcosim,
    "ecos": run_ecos,
}
