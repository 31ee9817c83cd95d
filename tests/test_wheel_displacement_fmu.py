"""The user wheel displacement (Eq. 15-17, 58-62; ``units[].axles[].wheel_displacement``): the
field's checks, and through the built FMU (fmpy) the static wheel loads of a displaced sedan
against the lever rule of the tilted car on its springs (:mod:`support.statics`, closed form
from the event's data).

A displaced wheel keeps its suspension's preload (the springs are the undisplaced car's), so a
car with its rear wheels set back stands on a longer wheelbase (the lever rule), and a raised
wheel (dz < 0: the wheel higher on the body, the body lower there) takes load off its own and
the opposite corner, the warp the springs and anti-sway bars resist. The car starts at rest in
that equilibrium. Each test's docstring gives the agreement measured when it was written; its
tolerance is a small multiple of that.
"""
from __future__ import annotations

import numpy as np
import pytest

import engine
from support.events import problems
from support.fmus import event_fmu
from support.run import run
from support.sedan import EV, G, M, WHEELS, event_data, lever_loads
from support.statics import static_loads

#: the sedan on two solid axles, as tests/test_manual_checks_fmu.py builds it (roll centres
#: 0.30 and 0.40 m, springs 1 m apart), without a camber set
ROLL_CENTRES = (0.30, 0.40)
SPRING_SPACING = 1.0


def displaced(disp: dict, solid: bool = False) -> dict:
    """The default event with the wheel displacements ``disp`` {(axle, side): (dx, dy, dz)}
    (per axle as {"left": ..., "right": ...}, a side left out not moved); on solid axles."""
    data = event_data()
    for axle, height in zip(data["units"][0]["axles"], ROLL_CENTRES):
        if solid:
            susp = axle["suspension"]
            for key in ("half_track_change", "camber_change", "bump_steer"):
                del susp[key]
            wheels = 2 * axle["unsprung_mass_per_wheel"] * (axle["track"] / 2) ** 2
            susp.update(type="solid", roll_center_height=height, spring_spacing=SPRING_SPACING,
                        axle_roll_inertia=wheels)
    for (k, side), d in disp.items():
        axle = data["units"][0]["axles"][k]
        if axle.get("wheel_displacement") is None:
            axle["wheel_displacement"] = {}
        axle["wheel_displacement"]["left" if side < 0 else "right"] = list(d)
    return data


# --- the field ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ([0.0, 0.1], "units[0].axles[0].wheel_displacement: a list of 3 numbers (got [0.0, 0.1])"),
    ({"left": [0.0, 0.0, -0.6]}, "units[0].axles[0].wheel_displacement.left: each of dx, dy, dz "
                                 "within +-0.5 m (got [0.0, 0.0, -0.6])"),
    ({"middle": [0.0, 0.0, 0.0]}, "units[0].axles[0].wheel_displacement.middle: unknown field; "
                                  "accepted fields are left, right"),
    ("0.1", "units[0].axles[0].wheel_displacement: a list of 3 numbers (got '0.1')"),
])
def test_a_bad_displacement_is_named_with_what_it_accepts(raw, value, expected):
    raw["units"][0]["axles"][0]["wheel_displacement"] = value
    assert expected in problems(raw)


def test_one_vector_moves_both_wheels_and_a_side_left_out_stays():
    data = event_data()
    data["units"][0]["axles"][0]["wheel_displacement"] = [-0.05, 0.01, 0.0]
    data["units"][0]["axles"][1]["wheel_displacement"] = {"right": [0.0, 0.0, -0.01]}
    axles = engine.load_event(data).model.units[0].axles
    assert axles[0].wheel_displacement == (-0.05, 0.01, 0.0)
    assert axles[1].wheel_displacement == ((0.0, 0.0, 0.0), (0.0, 0.0, -0.01))


def test_a_vehicle_that_cannot_stand_on_its_displaced_wheels_is_refused():
    """The left front wheel 0.3 m lower on the body: the warp would lift the left rear wheel
    off the ground. Every tire starts loaded, as the undisplaced vehicle's static equilibrium
    requires (engine.setup.equilibrium.static_equilibrium_problems)."""
    data = displaced({(0, -1): (0.0, 0.0, 0.3)})
    with pytest.raises(engine.EventError) as exc:
        engine.Simulation(engine.load_event(data))
    (message,) = exc.value.problems
    assert message.startswith("units[0].axles[0].wheel_displacement: the vehicle cannot stand on its "
                              "displaced wheels (")
    assert message.endswith("(car.axle2.left would lift off); give smaller displacements")


def test_a_displacement_adds_to_the_collision_set():
    """The set a collision leaves (Delta x of ``engine.wheel_damage``) and the event's
    displacement add: front wheels set back 0.05 m by each stand as set back 0.1 m (measured
    2.1e-6 of the loads apart after 4 s of settling from the event's equilibrium to the set's,
    the suspensions' Coulomb friction still giving way)."""
    from engine import layout as L
    from engine.simulation import Simulation
    both = Simulation(engine.load_event(displaced({(0, s): (-0.05, 0.0, 0.0) for s in (-1, 1)})))
    base = int(both.model.P_ENV[L.E_DMG_BASE])
    for w in (0, 1):
        both.y[base + L.N_DMG_STATE * w + L.DM_X] = -0.05
    both.advance(4.0)
    alone = Simulation(engine.load_event(displaced({(0, s): (-0.1, 0.0, 0.0) for s in (-1, 1)})))
    alone.advance(4.0)
    assert both.y_tire[:, L.YT_FZ] == pytest.approx(alone.y_tire[:, L.YT_FZ], rel=1e-5)


# --- through the FMU ------------------------------------------------------------------------

LOADS = tuple(f"{w}.Fz" for w in WHEELS)


def _at_rest(instance, fmu, solid=False):
    """The FMU's static loads, pitch and roll (and solid axles' roll) after 10 ms, and how much
    the loads changed over the next 2 s (a car started at rest stays so)."""
    inst = instance(fmu).start()
    axles = ("car.axle1.roll", "car.axle2.roll") if solid else ()
    record = LOADS + ("car.pitch", "car.roll") + axles
    first = run(inst, 0.01, h=0.01, record=record)
    later = run(inst, 2.0, h=0.01, record=LOADS)
    out = {k: v[-1] for k, v in first.items()}
    out["loads"] = np.array([out[k] for k in LOADS])
    out["drift"] = max(float(np.max(np.abs(later[k] - out[k]))) for k in LOADS)
    out["axle_roll"] = [out[k] for k in axles]
    return out


def _agree(got, ref, disp, solid=False):
    """The FMU's loads against the closed form's: the largest error per unit of the largest
    load change the displacement makes (the closed form's, from the undisplaced car)."""
    unit = displaced(disp, solid)["units"][0]
    change = np.max(np.abs(ref["loads"] - static_loads(unit, {})["loads"]))
    return float(np.max(np.abs(got["loads"] - ref["loads"])) / change)


@pytest.fixture(scope="module")
def set_back_fmu(fmu_dir):
    return event_fmu(fmu_dir, "rear_wheels_set_back",
                     displaced({(1, s): (-0.1, 0.0, 0.0) for s in (-1, 1)}))


def test_rear_wheels_set_back_carry_the_lever_rules_loads(instance, set_back_fmu):
    """Both rear wheels 0.1 m back (dx): the axle loads of the lever rule with the wheelbase
    0.1 m longer, the sprung weight shared by the CG's distances to the axles and each axle's
    unsprung weight at it: within 1.5e-3 of each load (measured 6.8e-4: the car pitches 3.2
    mrad nose down as its springs take the new loads, moving the contact points back under the
    CG by z_w sin(theta)). With that tilt (:mod:`support.statics`) the loads agree within 7e-6 of
    their change (158 N per axle) and the pitch within 1.2e-5 of itself."""
    got = _at_rest(instance, set_back_fmu)
    unit = displaced({})["units"][0]
    unit["axles"][1]["x"] -= 0.1
    front, rear = lever_loads(unit)
    assert got["loads"] == pytest.approx([front, front, rear, rear], rel=1.5e-3)
    assert got["loads"].sum() == pytest.approx(M * G, rel=1e-9)
    disp = {(1, s): (-0.1, 0.0, 0.0) for s in (-1, 1)}
    ref = static_loads(displaced(disp)["units"][0], disp)
    assert _agree(got, ref, disp) < 5e-5
    assert got["car.pitch"] == pytest.approx(ref["pitch"], rel=1e-4)
    assert got["drift"] < 1e-6


@pytest.fixture(scope="module")
def raised_fmu(fmu_dir):
    return event_fmu(fmu_dir, "front_left_wheel_raised", displaced({(0, -1): (0.0, 0.0, -0.02)}))


def test_a_raised_wheel_unloads_its_diagonal_by_the_warp_of_the_springs(instance, raised_fmu):
    """The left front wheel 2 cm higher on the body (dz = -0.02): the body sinks at that corner,
    rolls 9.8 mrad to the left and pitches 4.0 mrad nose down; the left front and right rear
    tires lose 112 and 161 N, the others gain 116 and 158 N, the warp the springs, anti-sway
    bars and tires resist. Against the closed form (:mod:`support.statics`): the loads within
    1.4e-4 of the largest change (0.023 N), pitch and roll within 1e-4 of themselves."""
    disp = {(0, -1): (0.0, 0.0, -0.02)}
    got = _at_rest(instance, raised_fmu)
    ref = static_loads(displaced(disp)["units"][0], disp)
    assert _agree(got, ref, disp) < 5e-4
    assert got["car.pitch"] == pytest.approx(ref["pitch"], rel=3e-4)
    assert got["car.roll"] == pytest.approx(ref["roll"], rel=3e-4)
    # the diagonal unloads: left front and right rear lose, the other two gain
    before = static_loads(displaced({})["units"][0], {})["loads"]
    assert list(np.sign(got["loads"] - before)) == [-1.0, 1.0, 1.0, -1.0]
    assert got["loads"].sum() == pytest.approx(M * G, rel=1e-9)
    assert got["drift"] < 1e-6


@pytest.fixture(scope="module")
def solid_fmu(fmu_dir):
    return event_fmu(fmu_dir, "solid_axle_wheel_displaced",
                     displaced({(1, 1): (0.0, 0.05, -0.02)}, solid=True))


def test_a_solid_axles_wheel_moved_out_and_raised(instance, solid_fmu):
    """The sedan on solid axles, its right rear wheel 5 cm further out and 2 cm higher on its
    axle (dy, dz; Eq. 59-60: the wheel a point of the axle): the rear axle rolls 7.3 mrad
    relative to the body, the body 5.4 mrad to the right. Against the closed form
    (:mod:`support.statics`, the axles rolling about their roll centres): the loads within
    4.2e-5 of the largest change (0.007 N of 169 N), the body's roll and the axles' within 7e-5
    of themselves, its pitch (3.8 mrad) within 3.4e-4."""
    disp = {(1, 1): (0.0, 0.05, -0.02)}
    got = _at_rest(instance, solid_fmu, solid=True)
    ref = static_loads(displaced(disp, solid=True)["units"][0], disp)
    assert _agree(got, ref, disp, solid=True) < 2e-4
    assert got["car.roll"] == pytest.approx(ref["roll"], rel=3e-4)
    assert got["car.pitch"] == pytest.approx(ref["pitch"], rel=1.5e-3)
    assert got["axle_roll"] == pytest.approx(ref["axle_roll"], rel=3e-4)
    assert got["loads"].sum() == pytest.approx(M * G, rel=1e-9)
    assert got["drift"] < 1e-6
