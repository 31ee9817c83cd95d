"""A speed given in km/h is accepted with a warning: an initial speed beyond a plausible one
for the vehicle (engine.setup.fields.PLAUSIBLE_SPEED_LIGHT, PLAUSIBLE_SPEED_HEAVY), from
engine.Simulation as a PlausibilityWarning and from the FMU as a logged fmi2Warning."""
from __future__ import annotations

import json
import warnings

import pytest

import engine
from engine.setup.errors import PlausibilityWarning
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
from engine.setup.fields import LIGHT_VEHICLE_MASS, PLAUSIBLE_SPEED_HEAVY, PLAUSIBLE_SPEED_LIGHT

FMI2_OK, FMI2_WARNING = 0, 1


def _warnings(event, **kw) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = engine.Simulation(event, **kw)
    messages = [str(w.message) for w in caught if issubclass(w.category, PlausibilityWarning)]
    assert messages == sim.warnings
    return messages


def test_the_bounds():
    assert (PLAUSIBLE_SPEED_LIGHT, PLAUSIBLE_SPEED_HEAVY, LIGHT_VEHICLE_MASS) == (70.0, 40.0, 3500.0)


def test_a_car_warns_above_70_m_s_naming_the_parameter_or_the_field():
    event = engine.load_event()
    assert _warnings(event, initial={"car": {"speed0": 70.0}}) == []
    assert _warnings(event, initial={"car": {"speed0": -70.0}}) == []
    got = _warnings(event, initial={"car": {"speed0": 100.0}})       # 100 km/h given as 100
    assert got == ["car.speed0 = 100 m/s (360 km/h) is above the plausible 70 m/s (252 km/h) "
                   "for a vehicle of one unit of 1093 kg: a speed in km/h? car.speed0 is in m/s"]
    data = json.loads(event.to_json())
    data["units"][0]["initial"] = {"speed": 90.0}
    got = _warnings(engine.load_event(data))
    assert len(got) == 1 and got[0].startswith("units[0].initial.speed = 90 m/s (324 km/h) is above")
    sim = engine.Simulation(event, initial={"car": {"speed0": 100.0}}, warn=False)
    assert sim.warnings == [got[0].replace("units[0].initial.speed = 90 m/s (324 km/h)",
                                           "car.speed0 = 100 m/s (360 km/h)")
                                  .replace("units[0].initial.speed is", "car.speed0 is")]


def test_a_combination_warns_above_40_m_s():
    event = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    assert _warnings(event, initial={"tractor": {"speed0": 40.0}}) == []
    got = _warnings(event, initial={"tractor": {"speed0": 60.0}})     # 60 km/h given as 60
    assert len(got) == 1
    assert got[0].startswith("tractor.speed0 = 60 m/s (216 km/h) is above the plausible 40 m/s "
                             "(144 km/h) for a combination of 2 units")


def test_the_fmu_logs_a_warning_naming_the_parameter(car_fmu, instance, extracted):
    """The status is fmi2Warning through the project's FMI library, fmi2OK through pythonfmu's
    (its status methods answer a bool: True is fmi2OK), the message logged either way."""
    folder, md = extracted(car_fmu)
    identifier = md.coSimulation.modelIdentifier
    ours = (folder / "binaries" / "linux64" / f"{identifier}_python.so").is_file()
    inst = instance(car_fmu, name="kmh")
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.speed0", 100.0)
    status = inst.fmu.exitInitializationMode()
    warned = [(category, message) for status_, category, message in inst.log
              if status_ == FMI2_WARNING]
    assert warned == [("logStatusWarning",
                       "car.speed0 = 100 m/s (360 km/h) is above the plausible 70 m/s (252 km/h) "
                       "for a vehicle of one unit of 1093 kg: a speed in km/h? car.speed0 is in "
                       "m/s")]
    assert status == (FMI2_WARNING if ours else FMI2_OK), (ours, status)
    inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.01)
    assert inst.get("car.speed") == pytest.approx(100.0, abs=0.5)   # accepted as given

    plain = instance(car_fmu, name="plain").start({"car.speed0": 60 / 3.6})
    assert plain.messages(FMI2_WARNING) == []
