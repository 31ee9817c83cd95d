"""The drive torque split zeta per wheel position (Eq. 32, T_d = T_e eta_T eta_D zeta): the
event's torque_split, validated, and the drive torque the engine gives each wheel."""
import copy
import json

import pytest

import engine
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT, EventError


def _event(splits):
    data = json.loads(open(TRACTOR_SEMITRAILER_EVENT).read())
    for ax, z in zip(data["units"][0]["axles"][1:], splits):
        ax["torque_split"] = z
    return data


def _drive_torques(data):
    sim = engine.Simulation(engine.load_event(data), initial={"tractor": {"speed0": 10.0}})
    ui = engine.UNIT_INPUTS
    sim.u_unit[0, ui.index("gear")] = 6
    sim.u_unit[0, ui.index("throttle")] = 0.5
    sim.advance(0.2)
    col = engine.WHEEL_OUTPUTS.index("driveTorque")
    return {name: sim.y_wheel[i, col] for i, name in enumerate(sim.wheel_names)
            if name.startswith("tractor.")}


def test_the_sheet_splits_the_drive_torque_equally():
    t = _drive_torques(_event([0.25, 0.25]))
    drive = [v for k, v in t.items() if not k.startswith("tractor.axle1")]
    assert min(drive) > 0.0
    assert max(drive) == pytest.approx(min(drive), rel=1e-12)
    assert t["tractor.axle1.left"] == 0.0


def test_an_uneven_split_shares_the_torque_as_given():
    t = _drive_torques(_event([0.3, 0.2]))
    assert t["tractor.axle2.left"] / t["tractor.axle3.left"] == pytest.approx(1.5, rel=1e-12)
    assert t["tractor.axle2.right"] / t["tractor.axle3.left"] == pytest.approx(1.5, rel=1e-12)


@pytest.mark.parametrize("splits, message", [
    ([0.3, 0.3], "torque_split shares whose sum over the driven wheels"),
    ([0.25, None], "a torque_split on every driven axle, or on none"),
])
def test_split_problems_are_named(splits, message):
    with pytest.raises(EventError) as err:
        engine.load_event(_event(splits))
    assert any(message in p and p.startswith("units[0].axles") for p in err.value.problems)


def test_a_split_on_an_axle_that_is_not_driven_is_refused():
    data = _event([0.25, 0.25])
    data = copy.deepcopy(data)
    data["units"][0]["axles"][0]["torque_split"] = 0.1
    with pytest.raises(EventError) as err:
        engine.load_event(data)
    assert "units[0].axles[0].torque_split: only on a driven axle" in str(err.value)
