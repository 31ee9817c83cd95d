"""The steering system's own degree of freedom (Eq. 33-39), against closed forms from the sheet.

The formulas are tested directly (contact length, pneumatic trail, stops, friction, inertia);
the behaviour through the built FMU: a constant steering-wheel torque in a steady turn, the
hysteresis of the column friction, the stops at full lock, and the release from a steady turn
at 30 m/s. The references use only the sedan sheet's values (as the default event holds them)
and the FMU's outputs.
"""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

import engine
from support.fmus import event_fmu
from engine.setup.pack.steering import mode_code, stop_damping, stop_limits, system_inertia
from engine.steering import friction_moment, null_band, stop_moment
from engine.tire import contact_length, pneumatic_trail
from support.run import run

ST = engine.load_event().data["units"][0]["steering"]
ETA = ST["gear_ratio"]
N_STEERED = 2                                    # the front axle's two wheels
TORQUE, NORMAL, OFF, AUTOSTART = (mode_code(m) for m in ("torque", "normal", "off", "autostart"))
FRONT = ("car.axle1.left", "car.axle1.right")


# --- the formulas -----------------------------------------------------------------------------
def test_contact_length_is_the_chord_at_the_deflection():
    r, d = 0.344, 0.02
    # the chord of a circle of radius r cut at depth d: half of it is sqrt(r^2 - (r - d)^2)
    assert contact_length(r, d) == pytest.approx(2.0 * math.sqrt(r * r - (r - d) ** 2), rel=1e-12)
    assert contact_length(r, 0.0) == 0.0 and contact_length(r, -0.01) == 0.0


def _trail_by_integration(lam, n=200_000):
    """The resultant's distance behind the patch centre, in patch lengths, of the EDC stress:
    linear from 0 at the leading edge to the friction limit at X_s = lam L (adhesion), then
    uniform at that limit (sliding), integrated numerically."""
    xi = (np.arange(n) + 0.5) / n                        # from the leading edge, over L
    stress = np.where(xi < lam, xi / lam, 1.0)
    return float(np.sum(stress * (xi - 0.5)) / np.sum(stress))


@pytest.mark.parametrize("lam", [1.0, 0.8, 0.5, 0.2, 0.05])
def test_pneumatic_trail_is_the_centroid_of_the_edc_stress(lam):
    length = 0.2
    assert pneumatic_trail(length, lam) == pytest.approx(length * _trail_by_integration(lam),
                                                        rel=1e-6, abs=1e-9)


def test_pneumatic_trail_is_l_over_6_adhering_and_0_sliding():
    assert pneumatic_trail(0.24, 1.0) == pytest.approx(0.04, rel=1e-15)
    assert pneumatic_trail(0.24, 3.0) == pytest.approx(0.04, rel=1e-15)   # X_s/L is limited to 1
    assert pneumatic_trail(0.24, 0.0) == 0.0
    assert pneumatic_trail(0.0, 1.0) == 0.0
    values = [pneumatic_trail(0.24, lam) for lam in np.linspace(0.0, 1.0, 101)]
    assert all(b > a for a, b in zip(values, values[1:]))      # monotonic in X_s/L


def test_stops_friction_and_inertia():
    k, c = ST["stop_stiffness"], 100.0
    assert stop_moment(0.5, 1.0, 0.6, 0.6, k, c) == 0.0
    assert stop_moment(0.61, 1.0, 0.6, 0.7, k, c) == 0.0
    assert stop_moment(0.71, 0.0, 0.6, 0.7, k, c) == pytest.approx(-k * 0.01)
    assert stop_moment(0.71, 2.0, 0.6, 0.7, k, c) == pytest.approx(-k * 0.01 - 2.0 * c)
    assert stop_moment(0.71, -20.0, 0.6, 0.7, k, c) == 0.0          # a stop never pulls
    assert stop_moment(-0.65, 0.0, 0.6, 0.7, k, c) == pytest.approx(k * 0.05)
    # critical damping of a wheel's share of the inertia
    i_s = system_inertia(N_STEERED, ST["steer_inertia"], ST["column_inertia"], ETA)
    assert stop_damping(k, i_s, N_STEERED) ** 2 == pytest.approx(4 * k * i_s / N_STEERED)
    eps, mu_a, mu_c = ST["null_band"], N_STEERED * ST["steer_axis_friction"], ST["column_friction"]
    assert null_band(0.5 * eps, eps) == 0.5 and null_band(-3 * eps, eps) == -1.0
    # fast: both saturated, opposing the motion; the column's torque times eta at the wheel
    assert friction_moment(1.0, mu_a, mu_c, ETA, eps) == pytest.approx(-(mu_a + ETA * mu_c))
    # slow: the column (its rate eta times the wheel's) saturates first
    w = 0.5 * eps / ETA
    assert friction_moment(w, mu_a, mu_c, ETA, eps) == pytest.approx(-(mu_a * w / eps + ETA * mu_c * 0.5))
    # Eq. 39 with the column referred by eta^2: the kinetic energy at a wheel rate of 1 rad/s
    i_s = system_inertia(N_STEERED, ST["steer_inertia"], ST["column_inertia"], ETA)
    energy = 0.5 * N_STEERED * ST["steer_inertia"] + 0.5 * ST["column_inertia"] * ETA ** 2
    assert 0.5 * i_s == pytest.approx(energy, rel=1e-15)


def test_stop_limits_of_the_typed_steering_record():
    steering = engine.load_event().model.units[0].steering
    assert stop_limits(steering) == (ST["stop_left"], ST["stop_right"])
    free = dataclasses.replace(steering, stop_left=None)
    assert stop_limits(free) == (math.inf, ST["stop_right"])


def test_a_free_mode_needs_the_steering_data():
    tractor = engine.load_event(engine.setup.event.TRACTOR_SEMITRAILER_EVENT)
    assert tractor.data["units"][0]["steering"]["mode"] == "off"
    with pytest.raises(engine.EventError) as exc:
        engine.Simulation(tractor, steering_modes={"tractor": "normal"})
    text = str(exc.value)
    for key in ("stop_stiffness", "steer_inertia", "column_inertia", "null_band"):
        assert f"units[0].steering.{key}: missing" in text
    with pytest.raises(engine.EventError, match=r"car.steeringMode: one of 1 \(off\)"):
        engine.Simulation(engine.load_event(), steering_modes={"car": 9})


def test_state_names_and_the_steering_states():
    sim = engine.Simulation(engine.load_event())
    k = sim.state_names.index("car.steering.angle")      # the collision states follow them
    assert sim.state_names[k:k + 2] == ["car.steering.angle", "car.steering.rate"]
    assert sim.steering_names == ["car"] and sim.y_steer.shape == (1, 3)


# --- through the FMU ----------------------------------------------------------------------------
def _speed_hold(v0, extra=None):
    """A control: 4th gear, throttle proportional to the speed error (so the turn is steady)."""
    def control(t, inst):
        inst.set("car.gear", 4)
        u = inst.get("car.u")
        inst.set("car.throttle", min(1.0, max(0.0, 0.2 + 0.5 * (v0 - u))))
        if extra is not None:
            extra(t, inst)
    return control


def _friction_at_wheel(theta_rate):
    """Eq. 36-37 at the steer axis for a steering-wheel rate (N m, opposing the motion)."""
    return friction_moment(theta_rate / ETA, N_STEERED * ST["steer_axis_friction"],
                           ST["column_friction"], ETA, ST["null_band"])


def test_torque_mode_balances_the_aligning_moment(instance, car_fmu):
    """A constant torque T in a low-g steady turn: eta T + sum M_tire + M_friction = 0, with
    M_tire of each steered tire -F_y (T_P + r_x) (Eq. 38; r_x: the contact point ahead of the
    steer axis, which the car's pitch and roll tilt), T_P = L/6 while the patch adheres."""
    T = 2.0
    inst = instance(car_fmu).start({"car.speed0": 20.0, "car.steeringMode": TORQUE})
    names = ["car.steering.angle", "car.steering.rate", "car.steering.torque", "car.ay",
             "car.roll", "car.pitch"]
    for w in FRONT:
        names += [f"{w}.{k}" for k in ("Fy", "Fz", "pneumaticTrail", "Mz", "deflection", "steer")]
    out = run(inst, 10.0, _speed_hold(20.0, lambda t, i: i.set("car.steeringWheelTorque", T)),
              record=tuple(names))
    last = {k: v[-1] for k, v in out.items()}
    assert 0.05 * 9.80665 < last["car.ay"] < 0.2 * 9.80665          # a low-g turn to the right
    r_u = engine.load_event().data["units"][0]["tires"]["front"]["unloaded_radius"]
    balance = 0.0
    for w in FRONT:
        defl = last[f"{w}.deflection"]
        length = 2.0 * math.sqrt(2.0 * r_u * defl - defl * defl)
        assert last[f"{w}.pneumaticTrail"] == pytest.approx(length / 6.0, rel=1e-9)  # adheres
        rT = r_u - defl
        r_x = rT * (math.sin(last["car.roll"]) * math.sin(last[f"{w}.steer"]) - math.sin(last["car.pitch"]))
        balance += last[f"{w}.Fy"] * (last[f"{w}.pneumaticTrail"] - r_x)
    m_fric = _friction_at_wheel(last["car.steering.rate"])
    expected = (balance - m_fric) / ETA
    assert last["car.steering.torque"] == pytest.approx(-sum(last[f"{w}.Mz"] for w in FRONT) / ETA,
                                                         rel=1e-12)
    # measured: 0.10 % against F_y (T_P - r_x) (1.0 % against F_y T_P alone); the held torque
    # within 1.5e-4 N m of T + M_friction / eta
    assert expected == pytest.approx(T, rel=2e-3)
    assert last["car.steering.torque"] == pytest.approx(T + m_fric / ETA, abs=1e-3)


def test_column_friction_is_a_hysteresis_of_its_width(instance, car_fmu):
    """A slow torque sweep at 20 m/s: the applied torque against the torque the tires put back
    into the steering wheel (steering.torque) runs up and down 2 (mu_Column + the steer-axis
    friction at its null band's rate) / apart; the column's rate is past its null band."""
    rate = 0.5                                          # N m/s
    def sweep(t, inst):
        T = rate * t if t < 6 else 3 - rate * (t - 6) if t < 18 else -3 + rate * (t - 18)
        inst.set("car.steeringWheelTorque", T)
        sweep.T.append(T)
    sweep.T = []
    inst = instance(car_fmu).start({"car.speed0": 20.0, "car.steeringMode": TORQUE})
    out = run(inst, 30.0, _speed_hold(20.0, sweep),
              record=("car.steering.torque", "car.steering.rate", "car.steering.angle"))
    t, applied = out["time"], np.array(sweep.T)
    hold, theta_rate = out["car.steering.torque"], out["car.steering.rate"]
    gaps, expected, axis = [], [], []
    for lo, hi, sign in ((8.0, 16.0, -1.0), (20.0, 28.0, 1.0)):   # the middles of the two ramps
        k = (t > lo) & (t < hi)
        w = float(np.mean(theta_rate[k]))
        assert sign * w > 1.5 * ST["null_band"]       # the column's rate is past its null band
        # the friction does not depend on where the ramp is: its mean over the ramp's middle
        gaps.append(float(np.mean(applied[k] - hold[k])))
        expected.append(-_friction_at_wheel(w) / ETA)
        # the steer-axis part: its null band is on the road-wheel rate, eta times smaller
        axis.append(N_STEERED * ST["steer_axis_friction"] * null_band(w / ETA, ST["null_band"]) / ETA)
    width = gaps[1] - gaps[0]
    # measured: the width within 0.72 % of the closed form, the column's part within 0.8 % of
    # 2 mu_Column
    assert width == pytest.approx(expected[1] - expected[0], rel=2e-2)
    assert width - (axis[1] - axis[0]) == pytest.approx(2 * ST["column_friction"], rel=2e-2)


@pytest.mark.parametrize("torque", [25.0, -25.0])
def test_stops_limit_the_road_wheels_at_full_lock(instance, car_fmu, torque):
    """At rest, a torque T holds the wheels on the stops: each road wheel's angle is the stop,
    the steering wheel's eta (stop + eta T / (2 K_Stop)), and the torque to hold it is T."""
    inst = instance(car_fmu).start({"car.speed0": 0.0, "car.steeringMode": TORQUE})
    out = run(inst, 3.0, lambda t, i: i.set("car.steeringWheelTorque", torque),
              record=("car.steering.angle", "car.steering.torque", "car.axle1.left.steer",
                      "car.axle1.right.steer"))
    side = "stop_right" if torque > 0 else "stop_left"
    sign = math.copysign(1.0, torque)
    for w in FRONT:
        assert np.all(np.abs(out[f"{w}.steer"]) <= ST[side])          # never past the stop
        assert out[f"{w}.steer"][-1] == sign * ST[side]
    angle = sign * ETA * (ST[side] + ETA * abs(torque) / (N_STEERED * ST["stop_stiffness"]))
    assert out["car.steering.angle"][-1] == pytest.approx(angle, rel=1e-6)
    assert out["car.steering.torque"][-1] == pytest.approx(torque, rel=1e-6)


def test_off_clamps_a_huge_steering_input_at_the_stops(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 10.0})
    out = run(inst, 0.5, lambda t, i: i.set("car.steeringWheelAngle", 20.0),
              record=("car.steering.angle", "car.steering.rate", "car.axle1.left.steer"))
    assert np.all(out["car.axle1.left.steer"] == ST["stop_right"])
    assert np.all(out["car.steering.angle"] == ETA * ST["stop_right"])
    assert np.all(out["car.steering.rate"] == 0.0)


def test_append_adds_the_steer_dof_to_the_drivers_angle(instance, car_fmu):
    """Append at rest: no tire moment moves the steer degree of freedom, so the steering wheel
    is at the driver's angle and the road wheels at that over eta; at speed the aligning
    moment turns the appended angle back until the wheels are straight again (the model has
    no spring about the driver's angle, docs/equations.md)."""
    inst = instance(car_fmu).start({"car.speed0": 0.0, "car.steeringMode": mode_code("append")})
    out = run(inst, 1.0, lambda t, i: i.set("car.steeringWheelAngle", 1.6),
              record=("car.steering.angle", "car.axle1.left.steer"))
    assert out["car.steering.angle"][-1] == pytest.approx(1.6, abs=1e-9)
    assert out["car.axle1.left.steer"][-1] == pytest.approx(1.6 / ETA, abs=1e-9)
    inst = instance(car_fmu, "moving").start({"car.speed0": 20.0,
                                              "car.steeringMode": mode_code("append")})
    out = run(inst, 3.0, lambda t, i: i.set("car.steeringWheelAngle", 0.5),
              record=("car.steering.angle",))
    assert abs(out["car.steering.angle"][-1]) < 0.01 * 0.5       # measured: 0.0019 rad


def test_an_invalid_steering_mode_is_an_error_naming_the_items(instance, car_fmu):
    inst = instance(car_fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.set("car.steeringMode", 7)
    with pytest.raises(Exception):
        inst.fmu.exitInitializationMode()
    text = " ".join(inst.messages())
    assert "car.steeringMode = 7" in text
    assert "1 (Off), 2 (Normal), 3 (Append), 4 (AutoStart), 5 (Torque)" in text


@pytest.fixture(scope="module")
def release_fmu(fmu_dir):
    """The default car whose event frees the steering (mode autostart) at 4 s."""
    data = json.loads(engine.load_event().to_json())
    data["simulation"]["steer_dof_start_time"] = 4.0
    data["units"][0]["steering"]["mode"] = "autostart"
    return event_fmu(fmu_dir, "steering_release", data)


def test_released_from_a_steady_turn_the_wheels_self_centre(instance, release_fmu):
    """A steady turn at 30 m/s, 0.3 g, held rigid until 4 s, then hands off (Normal from
    then on), at the largest internal step: the steering and the yaw rate return to 0 (the
    straight line, the only steady state without a steering input) and stay bounded."""
    inst = instance(release_fmu).start({"car.speed0": 30.0, "stepSize": 0.002})
    assert inst.get("car.steeringMode") == AUTOSTART
    out = run(inst, 14.0, _speed_hold(30.0, lambda t, i: i.set("car.steeringWheelAngle", 0.2)),
              record=("car.steering.angle", "car.r", "car.ay", "car.axle1.left.steer"))
    t = out["time"]
    held = t < 4.0
    r0 = out["car.r"][held][-1]
    assert np.all(out["car.steering.angle"][held] == 0.2)             # rigid until released
    assert 0.2 * 9.80665 < out["car.ay"][held][-1] < 0.4 * 9.80665
    after = ~held
    r, angle = out["car.r"][after], out["car.steering.angle"][after]
    assert np.max(np.abs(r)) < 2.0 * abs(r0)                          # bounded
    # the yaw rate's swings decay: the largest |r| of each second after the release
    peaks = [np.max(np.abs(r[(t[after] >= s) & (t[after] < s + 1.0)])) for s in range(4, 14)]
    assert all(b < a for a, b in zip(peaks, peaks[1:]))
    assert abs(r[-1]) < 1e-3 * abs(r0) and abs(angle[-1]) < 1e-3 * 0.2
