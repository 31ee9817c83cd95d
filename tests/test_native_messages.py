"""The native FMU's long messages are the development FMU's, whole: the set-up's refusal of
many parameters of many vehicles at the end of initialisation, and the outputs that cannot be
read in initialisation mode while a parameter is refused, named one by one (docs/native.md).

The logger here takes the text as the "%s" argument and keeps it whole (fmpy's own logger
proxy cuts a message at 2047 characters).
"""
from __future__ import annotations

import copy
import ctypes
import json
import shutil
from ctypes import c_char_p, c_int, c_void_p

import pytest

import engine
from support import fmus

#: eight sedans side by side, 4 m apart
CARS = 8
#: a refused value of every initial-condition parameter of each car
BAD = {"speed0": 250.0, "X0": 1e6, "Y0": -1e6, "yaw0": 10.0, "roll0": 9.0, "pitch0": -9.0,
       "lateralSpeed0": 200.0, "verticalSpeed0": 200.0, "rollRate0": 50.0, "pitchRate0": 50.0,
       "yawRate0": -50.0}


@pytest.fixture(scope="module")
def eight_cars(fmu_dir):
    data = json.loads(engine.load_event().to_json())
    car = data["units"][0]
    data["units"] = []
    for j in range(CARS):
        unit = copy.deepcopy(car)
        unit["name"] = f"c{j}"
        unit["initial"] = {"X": 0.0, "Y": 4.0 * j, "yaw": 0.0, "speed": 10.0}
        data["units"].append(unit)
    event = fmu_dir / "eight-cars.json"
    event.write_text(json.dumps(data))
    return (fmus.vehicle(event, fmu_dir / "EightCars.fmu"),
            fmus.native(event, fmu_dir / "EightCarsNative.fmu", platforms="linux64"))


def _errors(fmu, params):
    """The error messages, whole, of: the parameters set in initialisation mode, every Real
    output read there, the end of initialisation and a step."""
    from fmpy import extract, read_model_description
    from fmpy.fmi1 import calloc, free
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2Real,
                           fmi2ValueReference)
    folder = extract(str(fmu))
    md = read_model_description(folder)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    log = []
    logger_type = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_int, c_char_p, c_char_p, c_char_p)
    keep = logger_type(lambda env, name, status, category, fmt, text:
                       log.append((status, (text if fmt == b"%s" else fmt).decode())))
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = ctypes.cast(keep, fmi2CallbackLoggerTYPE)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    slave = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="messages")
    slave.instantiate(callbacks=callbacks, loggingOn=True)
    f, c = slave._functions, slave.component
    try:
        f["fmi2SetupExperiment"](c, 0, 0.0, 0.0, 0, 0.0)
        f["fmi2EnterInitializationMode"](c)
        for name, value in params.items():
            f["fmi2SetReal"](c, (fmi2ValueReference * 1)(vr[name]), 1, (fmi2Real * 1)(value))
        outputs = [v.valueReference for v in md.modelVariables
                   if v.causality == "output" and v.type == "Real"]
        f["fmi2GetReal"](c, (fmi2ValueReference * len(outputs))(*outputs), len(outputs),
                         (fmi2Real * len(outputs))())
        f["fmi2ExitInitializationMode"](c)
        f["fmi2DoStep"](c, 0.0, 0.01, 1)
    finally:
        slave.freeInstance()
        shutil.rmtree(folder, ignore_errors=True)
    return [text for status, text in log if status >= 3]


def test_long_messages_are_the_development_fmus_whole(eight_cars):
    """Every initial-condition parameter of eight cars refused: the unreadable outputs' message
    names all 1000-odd outputs (about 30 kB; the native FMU cut it at 1 kB, mid-name) and the end
    of initialisation names every refused parameter (about 8 kB; cut at 4 kB)."""
    dev, native = eight_cars
    params = {f"c{j}.{k}": v for j in range(CARS) for k, v in BAD.items()}
    want, got = _errors(dev, params), _errors(native, params)
    print("development:", [len(m) for m in want], "native:", [len(m) for m in got])
    assert max(len(m) for m in want) > 8192
    assert got == want
