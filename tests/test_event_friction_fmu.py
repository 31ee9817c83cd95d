"""The event's road friction (``environment.friction_multiplier``) reaches the tires once, in
the engine and in both FMUs, and the FMU parameter ``frictionMultiplier`` scales it.

Every tire's ``frictionAvailable`` is the product of the multipliers on the road's friction
under it (docs/equations.md); on the default flat road that is the event's friction times the
parameter. The FMU's parameter starts at 1 whatever the event's friction, so an event of any
friction the event format accepts builds a valid modelDescription.
"""
from __future__ import annotations

import json

import pytest

import engine
from conftest import Instance
from support import fmus

TIRES = [f"car.axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]
#: the event's friction: a wet road, and one above the parameter's largest value (5)
WET, GRIPPY = 0.2, 6.0


def _event(folder, mu: float):
    data = json.loads(engine.load_event().to_json())
    data["environment"]["friction_multiplier"] = mu
    path = folder / f"friction-{mu:g}.json"
    path.write_text(json.dumps(data))
    return path


def _available(fmu, extracted, parameters: dict) -> list[float]:
    inst = Instance(*extracted(fmu), name="friction").start(parameters)
    try:
        inst.fmu.doStep(0.0, 0.01)
        return [inst.get(f"{t}.frictionAvailable") for t in TIRES]
    finally:
        inst.free()


def _engine_available(event_file, multiplier: float) -> list[float]:
    sim = engine.Simulation(engine.load_event(event_file), friction_multiplier=multiplier,
                            warn=False)
    sim.advance(0.01)
    k = list(engine.TIRE_OUTPUTS).index("frictionAvailable")
    return [float(v) for v in sim.y_tire[:4, k]]


@pytest.fixture(scope="module")
def wet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("friction")
    event = _event(folder, WET)
    return event, fmus.vehicle(event, folder / "Wet.fmu"), fmus.native(event, folder / "WetNative.fmu",
                                                                      platforms="linux64")


@pytest.mark.parametrize("multiplier", [1.0, 0.5])
def test_the_events_friction_reaches_the_tires_once(wet, extracted, multiplier):
    event, dev, native = wet
    expected = [WET * multiplier] * 4
    assert _engine_available(event, multiplier) == pytest.approx(expected, rel=1e-15)
    for fmu in (dev, native):
        assert _available(fmu, extracted, {"frictionMultiplier": multiplier}) == \
            pytest.approx(expected, rel=1e-15), fmu.name


def test_the_parameter_starts_at_one_whatever_the_events_friction(wet, extracted, tmp_path):
    from fmpy import read_model_description
    _, dev, native = wet
    for fmu in (dev, native):
        start = {v.name: v.start for v in read_model_description(str(fmu)).modelVariables}
        assert float(start["frictionMultiplier"]) == 1.0, fmu.name
    grippy = fmus.vehicle(_event(tmp_path, GRIPPY), tmp_path / "Grippy.fmu")
    variable = next(v for v in read_model_description(str(grippy)).modelVariables
                    if v.name == "frictionMultiplier")
    assert float(variable.start) == 1.0 and float(variable.max) == 5.0
    assert _available(grippy, extracted, {}) == pytest.approx([GRIPPY] * 4, rel=1e-15)
