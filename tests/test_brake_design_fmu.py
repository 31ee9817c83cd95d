"""Brake pressure lag, brake designs and fade, through the built FMU (fmpy), against closed
forms (docs/equations.md, "Brakes: pressure lag, designs and fade").

* The wheel-cylinder pressure follows the pedal as a first-order lag: R F (1 - exp(-t/tau)).
* A designed brake's torque ratio is A C*(mu_L) r_e, mu_L from its lining's temperature; its
  temperature rises by the braking energy over its heat capacity (no cooling here), and in a
  series of stops the stopping distance grows as the friction-temperature data predict: with
  equal brakes all round, a = K mu(T), T rising with the energy the stop has taken, which
  integrates to x = ln((alpha + beta v0^2) / alpha) / (2 K beta).

The references are computed here from the event's data, not from the engine's functions."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from support.fmus import event_fmu
from support.run import run
from support.sedan import A_S, B_S, G, M, MS, MU, WB, loaded_radius

EV = engine.load_event().data["units"][0]
R_PEDAL = EV["brakes"]["pedal_ratio"]
TAU_P = EV["brakes"]["pressure_time_constant"]
T_AIR = engine.load_event().data["environment"]["air_temperature"]
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]

# a disc brake on every wheel: two pads (C* = 2 mu), the lining fading from 0.40 cold to 0.20
# 400 K hotter; no cooling, so that the temperature keeps what each stop puts in
DISC = {"type": "disc", "actuator_area": 2.5e-3, "effective_radius": 0.12,
        "brake_factor": [[0.0, 0.0], [1.0, 2.0]],
        "lining_friction": [[T_AIR, 0.40], [T_AIR + 400.0, 0.20]],
        "heat_capacity": 1500.0, "cooling": 0.0}
MU0, FADE = 0.40, 0.20 / 400.0                       # mu_L(T) = MU0 - FADE (T - T_air)


def test_the_wheel_pressure_lags_the_pedal(instance, car_fmu):
    """A 100 N pedal step at 20 m/s: the front wheel-cylinder pressure (not proportioned
    below 3 MPa) is R F (1 - exp(-t / tau_p)), tau_p = 0.05 s."""
    inst = instance(car_fmu).start({"car.speed0": 20.0})
    inst.set("car.brakePedalForce", 100.0)
    r = run(inst, 0.3, h=0.005, record=tuple(w + ".brakePressure" for w in WHEELS))
    theory = R_PEDAL * 100.0 * (1.0 - np.exp(-r["time"] / TAU_P))
    for w in WHEELS:
        assert np.max(np.abs(r[w + ".brakePressure"] / theory - 1)) < 1e-6   # measured 2.0e-8
    assert r[WHEELS[0] + ".brakePressure"][0] < 0.1 * R_PEDAL * 100.0       # no jump


def test_a_generic_brake_has_the_sheets_ratio_and_the_air_temperature(instance, car_fmu):
    inst = instance(car_fmu).start({"car.speed0": 20.0})
    inst.set("car.brakePedalForce", 200.0)
    run(inst, 1.0)
    for w, axle in zip(WHEELS, (0, 0, 1, 1)):
        assert inst.get(w + ".brakeTorqueRatio") == EV["axles"][axle]["brake_torque_ratio"]
        assert inst.get(w + ".brakeTemperature") == T_AIR


def _designed(data):
    unit = data["units"][0]
    for axle in unit["axles"]:
        axle["brake_torque_ratio"] = None
        axle["brake_design"] = DISC
    for tire in unit["tires"].values():      # the brakes take all the kinetic energy
        tire["rolling_resistance"] = {"sigma0": 0.0, "sigma_v": 0.0}
    unit["aerodynamics"] = []
    unit["brakes"]["pressure_time_constant"] = 0.0
    return data


@pytest.fixture(scope="module")
def disc_fmu(fmu_dir):
    return event_fmu(fmu_dir, "DiscBrakes", _designed(json.loads(engine.load_event().to_json())))


PEDAL = 80.0                                  # 1.6 MPa: no proportioning, no lock (about 0.3 g)


def _stop(inst, v_start):
    """Brake with PEDAL in neutral from the current state to a stop; returns the distance,
    the brake temperatures before and after, and the brake energy of each wheel."""
    inst.set("car.gear", 0)
    inst.set("car.throttle", 0.0)
    inst.set("car.brakePedalForce", PEDAL)
    t0 = inst._t
    x0 = inst.get("car.X")
    temps0 = inst.get_reals([w + ".brakeTemperature" for w in WHEELS])
    names = ("car.u", "car.X") + tuple(w + f for w in WHEELS for f in (".brakeTorque", ".spin"))
    r = run(inst, t0 + 1.2 * v_start / (0.25 * G), h=0.002, record=names)
    stopped = np.flatnonzero(r["car.u"] < 1e-3)
    assert stopped.size, "the car did not stop"
    x = r["car.X"][stopped[0]] - x0
    energy = [np.trapezoid(-r[w + ".brakeTorque"] * r[w + ".spin"], r["time"]) for w in WHEELS]
    inst.set("car.brakePedalForce", 0.0)
    return x, temps0, inst.get_reals([w + ".brakeTemperature" for w in WHEELS]), energy


def _predicted_distance(v0, t_start):
    """x = ln((alpha + beta v0^2)/alpha) / (2 K beta): a = K mu, mu = MU0 - FADE (T - T_air),
    T = t_start + M_eff (v0^2 - v^2) / (8 C) (four equal brakes share the kinetic energy)."""
    front, rear = MS * G * B_S / WB / 2 + MU * G, MS * G * A_S / WB / 2 + MU * G
    r_f, r_r = loaded_radius(front), loaded_radius(rear)
    spin = EV["tires"]["front"]["spin_inertia"]
    m_eff = M + 2 * spin / r_f ** 2 + 2 * spin / r_r ** 2
    p = R_PEDAL * PEDAL - EV["brakes"]["pushout_pressure"]
    # sum of T_b / r over the wheels, per unit lining friction
    k = 2 * DISC["actuator_area"] * 2.0 * DISC["effective_radius"] * p * (1 / r_f + 1 / r_r) / m_eff
    beta = FADE * m_eff / (8 * DISC["heat_capacity"])
    alpha = MU0 - FADE * (t_start - T_AIR) - beta * v0 ** 2
    return math.log((alpha + beta * v0 ** 2) / alpha) / (2 * k * beta), m_eff


def test_repeated_stops_heat_the_brakes_and_fade(instance, disc_fmu):
    """Three stops from 20 m/s, driving back up to speed in second gear between them. Each
    stop heats every brake by its braking energy over its heat capacity, and the stopping
    distance grows as the fading lining predicts."""
    inst = instance(disc_fmu).start({"car.speed0": 20.0})
    inst._t = 0.0
    distances, predicted = [], []
    for n in range(3):
        v0 = inst.get("car.u")
        x, before, after, energy = _stop(inst, v0)
        want, m_eff = _predicted_distance(v0, float(np.mean(before)))
        distances.append(x)
        predicted.append(want)
        for t0, t1, e in zip(before, after, energy):
            # the brake's energy balance: measured 7e-4 to 8e-4 (the trapezoid rule over the
            # stop's last step, where the brake holds)
            assert t1 - t0 == pytest.approx(e / DISC["heat_capacity"], rel=3e-3)
        # the brakes take the kinetic energy less the tires' slip work: measured 0.991 to 0.993
        heat = DISC["heat_capacity"] * (np.sum(after) - np.sum(before))
        assert 0.98 < heat / (0.5 * m_eff * v0 ** 2) < 1.0
        assert x == pytest.approx(want, rel=5e-3)           # measured 1.2e-4 to 1.5e-3
        if n < 2:                          # back up to 20 m/s
            inst.set("car.gear", 2)
            inst.set("car.throttle", 1.0)
            while inst.get("car.u") < 20.0:
                run(inst, inst._t + 0.1, h=0.002)
    assert distances[0] < distances[1] < distances[2]
    # the growth of the distance, stop after stop, as the data predict
    for n in (1, 2):
        assert distances[n] / distances[0] == pytest.approx(predicted[n] / predicted[0],
                                                            rel=5e-3)   # measured 1.4e-3
    # the torque ratio is the design's at the hot lining's friction
    t_now = inst.get(WHEELS[0] + ".brakeTemperature")
    mu = MU0 - FADE * (t_now - T_AIR)
    assert inst.get(WHEELS[0] + ".brakeTorqueRatio") == pytest.approx(
        DISC["actuator_area"] * 2.0 * mu * DISC["effective_radius"], rel=1e-12)


@pytest.mark.parametrize("change, message", [
    (lambda a: a.update(brake_design=DISC), "units[0].axles[0]: brake_torque_ratio (a number >= 0, "
                                           "N m/Pa, or one per side) or brake_design (an object), one of them (got both)"),
    (lambda a: a.update(brake_torque_ratio=None), "units[0].axles[0]: brake_torque_ratio"),
    (lambda a: a.update(brake_torque_ratio=None, brake_design=dict(DISC, type="band")),
     "units[0].axles[0].brake_design.type: one of 'disc', 'drum'"),
])
def test_a_bad_brake_is_refused_naming_the_field(change, message):
    data = json.loads(engine.load_event().to_json())
    change(data["units"][0]["axles"][0])
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    assert any(p.startswith(message) for p in exc.value.problems), exc.value.problems


def _split_front(data, left, right):
    """The sedan with its front brakes' torque ratios given per wheel (the manual's "brake torque
    ratio supplied for each individual wheel")."""
    data["units"][0]["axles"][0]["brake_torque_ratio"] = {"left": left, "right": right}
    return data


@pytest.fixture(scope="module")
def split_fmu(fmu_dir):
    base = EV["axles"][0]["brake_torque_ratio"]
    return event_fmu(fmu_dir, "brake_split", _split_front(json.loads(engine.load_event().to_json()),
                                                          1.5 * base, base))


def test_a_brake_torque_ratio_per_wheel_pulls_the_car_to_the_stronger_side(instance, split_fmu):
    """The front left brake 1.5 times the right's at a light pedal (no wheel locks) from 20 m/s,
    steering held: each wheel's brake torque is its own ratio times the wheel pressure less the
    push-out (Eq. 47); the yaw moment of the front tires' braking forces is the closed form
    t/2 (T_L - T_R) / r (t the front track, r the loaded radius of the lever-rule load: the
    wheels' spin inertia takes the same share of both torques, and cancels in the difference);
    z down: a stronger left brake turns the nose left (yaw rate < 0)."""
    base = EV["axles"][0]["brake_torque_ratio"]
    inst = instance(split_fmu).start({"car.speed0": 20.0})
    inst.set("car.brakePedalForce", 150.0)
    names = tuple(w + q for w in WHEELS for q in (".brakeTorque", ".brakePressure", ".Fx"))
    r = run(inst, 1.5, h=0.005, record=names + ("car.r",))
    push = EV["brakes"]["pushout_pressure"]
    for w, ratio in zip(WHEELS, (1.5 * base, base, EV["axles"][1]["brake_torque_ratio"],
                                 EV["axles"][1]["brake_torque_ratio"])):
        torque = -ratio * np.maximum(r[w + ".brakePressure"] - push, 0.0)
        assert np.allclose(r[w + ".brakeTorque"], torque, rtol=1e-12, atol=1e-9), w
    late = r["time"] > 0.5
    assert (r["car.r"][late] < 0.0).all()                       # the nose turns left
    half = 0.5 * EV["axles"][0]["track"]
    left, right = WHEELS[0], WHEELS[1]
    closed = half * (r[left + ".brakeTorque"] - r[right + ".brakeTorque"]) / loaded_radius(_lever_front_load())
    measured = half * (r[left + ".Fx"] - r[right + ".Fx"])
    # the left wheel's longitudinal force swings +-5 % about its mean (its spin against the
    # tire's longitudinal carcass, excited by the car's pitch): compared over the last second
    err = measured[late].mean() / closed[late].mean() - 1.0
    print(f"front braking forces' yaw moment against the closed form: {err:+.2e}")
    assert abs(err) < 0.03


def _lever_front_load():
    """The front wheel's static load by the lever rule (the sprung weight split by the CG's
    distances to the axles, plus the unsprung weight)."""
    return MS * G * B_S / WB / 2.0 + MU * G
