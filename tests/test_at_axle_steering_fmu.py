"""Steering per axle (the manual's steering system, "Steering inputs may be provided for right and
left side wheels at each steerable axle. At Steering Wheel and At Axle options are supported"):
a steering gear ratio per steered axle (``axles[].steering_gear_ratio``, the unit's
``steering.gear_ratio`` by default) and the At Axle option (``steering.input: "at_axle"``, the FMU
inputs ``<unit>.axle<k>.<side>.steerAngle``), through the built FMU.

The cars are the reference sedan (its sheet as loaded from the default event) with its rear axle
steered as well: driven by its road-wheel angles (At Axle), or through the steering wheel at a
ratio of its own (an opposite-phase four-wheel steer). The reference is the linear bicycle model
with rear steer in steady state: r = V (delta_f - delta_r) / (L + K V^2), K the understeer
gradient of the sheet's data (:func:`support.sedan.bicycle_reference`, with the camber thrust of
the body roll; rear steer does not change K), never the engine's own functions."""
from __future__ import annotations

import pytest

import engine

from support.fmus import event_fmu
from support.run import run
from support.sedan import WB, bicycle_reference, event_data

V = 20.0                         # m/s, the steady-state speed
FRONT = ("car.axle1.left", "car.axle1.right")
REAR = ("car.axle2.left", "car.axle2.right")
WHEELS = FRONT + REAR
RATIO = 16.0                     # the sheet's steering.gear_ratio
REAR_RATIO = -64.0               # the opposite-phase rear axle: a quarter of the front's angle


def at_axle_data() -> dict:
    """The sedan with both axles steered, each wheel's angle an input (At Axle)."""
    data = event_data()
    unit = data["units"][0]
    unit["axles"][1]["steered"] = True
    unit["steering"]["input"] = "at_axle"
    return data


def four_wheel_steer_data(front_ratio=None) -> dict:
    """The sedan with its rear axle steered through the steering wheel in opposite phase
    (ratio -64), the front at the unit's 16 or at ``front_ratio`` of its own."""
    data = event_data()
    unit = data["units"][0]
    unit["axles"][1]["steered"] = True
    unit["axles"][1]["steering_gear_ratio"] = REAR_RATIO
    if front_ratio is not None:
        unit["axles"][0]["steering_gear_ratio"] = front_ratio
    return data


@pytest.fixture(scope="module")
def at_axle_fmu(fmu_dir):
    return event_fmu(fmu_dir, "at_axle", at_axle_data())


@pytest.fixture(scope="module")
def four_wheel_steer_fmu(fmu_dir):
    return event_fmu(fmu_dir, "four_wheel_steer", four_wheel_steer_data(front_ratio=20.0))


def bicycle_yaw_rate(u, delta_f, delta_r):
    """Steady-state yaw rate of the linear bicycle model with rear steer, rad/s."""
    return u * (delta_f - delta_r) / (WB + bicycle_reference()["k_us"] * u ** 2)


# --- the event -------------------------------------------------------------------------------

def _problems(data):
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    return exc.value.problems


def test_the_event_takes_the_option_and_a_ratio_per_axle_and_names_the_field():
    """``steering.input`` (default at_steering_wheel: the event as it was) and a steered axle's
    ``steering_gear_ratio``; every refusal names its field and what it accepts."""
    assert engine.load_event().model.units[0].steering.input == "at_steering_wheel"
    engine.load_event(at_axle_data())
    engine.load_event(four_wheel_steer_data(front_ratio=20.0))
    cases = []
    data = at_axle_data()
    data["units"][0]["steering"]["input"] = "wheel"
    cases.append((data, "units[0].steering.input: one of 'at_steering_wheel', 'at_axle' (got 'wheel')"))
    data = at_axle_data()
    data["units"][0]["steering"]["mode"] = "normal"
    cases.append((data, "units[0].steering.mode: 'off' with steering.input 'at_axle'"))
    data = event_data()
    data["units"][0]["axles"][1]["steering_gear_ratio"] = 20.0
    cases.append((data, "units[0].axles[1].steering_gear_ratio: only on a steered axle"))
    data = four_wheel_steer_data()
    data["units"][0]["axles"][1]["steering_gear_ratio"] = 0.0
    cases.append((data, "units[0].axles[1].steering_gear_ratio: a number other than 0 (got 0.0)"))
    data = four_wheel_steer_data()
    data["units"][0]["steering"]["mode"] = "torque"
    cases.append((data, "units[0].axles[1].steering_gear_ratio: null or the unit's steering.gear_ratio "
                        "16.0 with the steering mode 'torque'"))
    for data, message in cases:
        problems = _problems(data)
        assert any(p.startswith(message) for p in problems), problems
        assert len(problems) == 1, problems
    # the same ratio as the unit's keeps the steer degree of freedom
    data = four_wheel_steer_data()
    data["units"][0]["axles"][1]["steering_gear_ratio"] = RATIO
    data["units"][0]["steering"]["mode"] = "normal"
    engine.load_event(data)


def test_a_steering_mode_set_at_run_time_is_refused_with_at_axle():
    """The FMU's ``<unit>.steeringMode`` (engine.Simulation's steering_modes) other than Off on
    an At Axle unit is refused naming it."""
    event = engine.load_event(at_axle_data())
    with pytest.raises(engine.EventError) as exc:
        engine.Simulation(event, steering_modes={"car": "normal"})
    assert any(p.startswith("car.steeringMode: 'off' with steering.input 'at_axle'")
               for p in exc.value.problems), exc.value.problems


def test_the_inputs_are_declared_on_the_steered_wheels_of_an_at_axle_unit(instance, at_axle_fmu):
    """``steerAngle`` (rad, start 0, -1.5 .. 1.5) on each steered wheel of the At Axle car; the
    default car (At Steering Wheel) has none."""
    inst = instance(at_axle_fmu)
    variables = {v.name: v for v in inst.md.modelVariables}
    for w in WHEELS:
        v = variables[f"{w}.steerAngle"]
        assert (v.type, v.causality, float(v.start), float(v.min), float(v.max)) == \
            ("Real", "input", 0.0, -1.5, 1.5)
    from model_description.catalogue import FIELDS, build_catalogue
    assert FIELDS["steerAngle"].unit == "rad"
    assert not [v for v in build_catalogue(engine.load_event()) if v.name.endswith(".steerAngle")]
    front_only = at_axle_data()
    front_only["units"][0]["axles"][1]["steered"] = False
    names = {v.name for v in build_catalogue(engine.load_event(front_only))}
    assert {f"{w}.steerAngle" for w in FRONT} <= names
    assert not {f"{w}.steerAngle" for w in REAR} & names


# --- through the FMU -------------------------------------------------------------------------

def test_left_and_right_angles_are_applied_as_given(instance, at_axle_fmu):
    """Four different road-wheel angles, at rest: each wheel's ``steer`` is its input (no bump
    steer on the sheet's car), and the steering-wheel angle is not read."""
    angles = {"car.axle1.left": 0.031, "car.axle1.right": 0.027, "car.axle2.left": -0.012,
              "car.axle2.right": -0.009}
    inst = instance(at_axle_fmu).start()

    def control(t, i):
        i.set("car.steeringWheelAngle", 5.0)          # not read with At Axle
        for w, a in angles.items():
            i.set(f"{w}.steerAngle", a)

    r = run(inst, 0.2, control, record=tuple(f"{w}.steer" for w in WHEELS) + ("car.steering.angle",))
    for w, a in angles.items():
        assert r[f"{w}.steer"][-1] == pytest.approx(a, abs=1e-12)
    assert r["car.steering.angle"][-1] == 0.0


def _steady_yaw_rate(inst, inputs):
    """Steady state at V with the road-wheel or steering-wheel angles ``inputs`` (ramped in over
    0.5 s), the speed held by the throttle: (u, r, ay) at the end of 8 s."""
    inst = inst.start({"car.speed0": V})

    def control(t, i):
        i.set("car.gear", 4)
        for name, value in inputs.items():
            i.set(name, value * min(1.0, t / 0.5))
        i.set("car.throttle", min(1.0, max(0.0, 0.15 + 0.5 * (V - i.get("car.u")))))

    r = run(inst, 8.0, control, record=("car.u", "car.r", "car.ay"))
    return r["car.u"][-1], r["car.r"][-1], r["car.ay"][-1]


@pytest.mark.parametrize("delta_f, delta_r", [(0.0, -0.01), (0.008, -0.002)],
                         ids=["rear-steer", "opposite-phase"])
def test_steady_state_matches_the_bicycle_model_with_rear_steer(instance, at_axle_fmu, delta_f, delta_r):
    """A rear-steer car (front angles 0, rear -0.01 rad) and an opposite-phase four-wheel steer
    (0.008 / -0.002 rad), the angles given At Axle, at 20 m/s and 1.2 m/s^2: the yaw rate of
    the bicycle model with rear steer (measured -0.82 % and -0.99 %); ay = u r."""
    inputs = {f"{w}.steerAngle": delta_f for w in FRONT} | {f"{w}.steerAngle": delta_r for w in REAR}
    u, r, ay = _steady_yaw_rate(instance(at_axle_fmu), inputs)
    assert u == pytest.approx(V, abs=0.3)
    theory = bicycle_yaw_rate(u, delta_f, delta_r)
    print(f"{delta_f=} {delta_r=}: r {r:.6g} rad/s, bicycle model {theory:.6g}, "
          f"{100 * (r / theory - 1):+.3f} %")
    assert r > 0                      # rear steer to the left turns the car to the right
    assert r == pytest.approx(theory, rel=0.015)
    assert ay == pytest.approx(u * r, rel=0.01)


def test_a_gear_ratio_per_axle_through_the_steering_wheel(instance, four_wheel_steer_fmu):
    """The steering wheel turns the front wheels by theta / 20 (the axle's own ratio, not the
    unit's 16) and the rear ones by theta / -64 (opposite phase); in steady state at 20 m/s the
    yaw rate is the bicycle model's with delta_r = -delta_f 20 / 64 (measured -0.98 %)."""
    theta = 0.16                     # rad at the steering wheel: 8 mrad at the front
    inst = instance(four_wheel_steer_fmu)
    u, r, _ = _steady_yaw_rate(inst, {"car.steeringWheelAngle": theta})
    steer = {w: inst.get(f"{w}.steer") for w in WHEELS}
    for w in FRONT:
        assert steer[w] == pytest.approx(theta / 20.0, rel=1e-12)
    for w in REAR:
        assert steer[w] == pytest.approx(theta / REAR_RATIO, rel=1e-12)
    theory = bicycle_yaw_rate(u, theta / 20.0, theta / REAR_RATIO)
    print(f"per-axle ratios: r {r:.6g} rad/s, bicycle model {theory:.6g}, {100 * (r / theory - 1):+.3f} %")
    assert r == pytest.approx(theory, rel=0.015)
