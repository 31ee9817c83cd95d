"""Suspension geometry of Eq. 61-63 on the whole car (engine), against symmetry."""
from __future__ import annotations

import json

import numpy as np
import pytest

import engine
from engine.signals import TIRE_OUTPUTS, UNIT_INPUTS, UNIT_OUTPUTS, WHEEL_OUTPUTS

from support.sedan import (A_S, B_S, H, M, MS, axle_roll_stiffnesses, mean_loaded_radius,
                           roll_gradient, series, tire_table, whole_car_cg)

BASE = json.loads(engine.load_event().to_json())


def _event(**suspension):
    data = json.loads(json.dumps(BASE))
    for axle in data["units"][0]["axles"]:
        axle["suspension"].update(suspension)
    return engine.load_event(data)


def _brake_pulses(event, t_end=2.0, h=0.01):
    """20 m/s straight ahead with brake pulses: the body heaves and pitches, no roll."""
    sim = engine.Simulation(event, initial={"car": {"speed0": 20.0}})
    ib = UNIT_INPUTS.index("brakePedalForce")
    iy, ipsi = UNIT_OUTPUTS.index("Y"), UNIT_OUTPUTS.index("yaw")
    ys, yaws = [], []
    for n in range(round(t_end / h)):
        sim.u_unit[0, ib] = 150.0 if (n * h) % 0.5 < 0.25 else 0.0
        sim.advance((n + 1) * h)
        ys.append(sim.y_unit[0, iy])
        yaws.append(sim.y_unit[0, ipsi])
    return np.array(ys), np.array(yaws)


def test_bump_steer_in_pure_heave_is_a_toe_change():
    """One polynomial per axle (Eq. 63) is mirrored left/right: heave and pitch toe the wheels
    in or out together and the car goes straight (it drifted 6 cm in 2 s when both wheels
    steered the same way)."""
    y, yaw = _brake_pulses(_event(bump_steer=[0.002, 0.05, 0.0, 0.0]))
    assert np.abs(y).max() < 1e-9 and np.abs(yaw).max() < 1e-9


def test_bump_steer_per_side_steers_the_car():
    """{"left": p, "right": p} (both in the vehicle's steer sign) steers both wheels right:
    front and rear alike, the car crabs to the right (Y +), as the old single polynomial did."""
    p = [0.002, 0.0, 0.0, 0.0]
    y, yaw = _brake_pulses(_event(bump_steer={"left": p, "right": p}))
    assert y[-1] > 0.02


# --- roll steer: bump steer in roll changes the understeer gradient ------------------------------

G = 9.80665
UNIT = BASE["units"][0]


def suspension_roll_gradients():
    """Per axle, the suspension's share of the roll gradient (rad of body-to-wheel roll per
    m/s^2 of lateral acceleration), from the sheet.

    Body roll gradient (tests/support/sedan.py, roll_gradient): m_s h / (K - m_s g h - m g r), K the
    sum over the axles of the suspension roll stiffness (springs k t^2/2 plus the anti-sway
    bar) in series with the tires' (k_T t^2/2). In series each axle's moment is K_i phi, so
    its suspension rolls by K_i phi / K_s,i = phi K_t,i / (K_s,i + K_t,i)."""
    k = axle_roll_stiffnesses()
    body = roll_gradient(sum(series(s, t) for s, t in k))
    return [body * t / (s + t) for s, t in k]


def roll_steer_understeer_change(axle, kappa1):
    """Understeer-gradient change (rad of road-wheel steer per m/s^2) of kappa1 (rad/m, Eq. 63,
    one polynomial: right wheel kappa1 dz, left mirrored) on one axle.

    In a turn with lateral acceleration a_y (right +) the body rolls by phi = -g_s a_y (right
    side down +), the right wheel's dz (down +) is -(t/2) phi and the left's +(t/2) phi. The
    right wheel steers kappa1 dz_R, the left (mirrored) -kappa1 dz_L: both -kappa1 (t/2) phi
    = kappa1 (t/2) g_s a_y. Bicycle model: delta + delta_f - delta_r = L/R + K a_y, so
    dK = -kappa1 (t_f/2) g_f on the front axle and +kappa1 (t_r/2) g_r on the rear: roll
    understeer when the outer (jouncing, dz < 0) front wheel toes out (kappa1 < 0) or the
    outer rear wheel toes in (kappa1 > 0)."""
    g_s = suspension_roll_gradients()[axle]
    sign = -1.0 if axle == 0 else 1.0
    return sign * kappa1 * UNIT["axles"][axle]["track"] / 2 * g_s


def _axle_bump_steer(axle, kappa1):
    data = json.loads(json.dumps(BASE))
    data["units"][0]["axles"][axle]["suspension"]["bump_steer"] = [0.0, kappa1, 0.0, 0.0]
    return data


U0, STEER_ROAD = 20.0, 0.01


def _circle_control(t, speed):
    """Steady-state circle: road steer STEER_ROAD ramped in over 0.5 s, speed held at U0 in
    fourth gear. Returns (steeringWheelAngle, throttle, gear)."""
    ratio = UNIT["steering"]["gear_ratio"]
    return ratio * STEER_ROAD * min(1.0, t / 0.5), min(1.0, max(0.0, 0.15 + 0.5 * (U0 - speed))), 4


def _understeer_gradient(u, r, ay):
    """K = (delta - L r / u) / a_y, road-wheel angle per m/s^2 (delta = L/R + K a_y)."""
    wheelbase = UNIT["axles"][0]["x"] - UNIT["axles"][1]["x"]
    return (STEER_ROAD - wheelbase * r / u) / ay


def _circle_fmu(inst, t_end=8.0, h=0.01):
    names = ["car.u", "car.r", "car.ay", "car.axle1.left.steer", "car.axle1.right.steer",
             "car.axle1.left.jounce", "car.axle1.right.jounce"]
    for n in range(round(t_end / h)):
        steer, throttle, gear = _circle_control(n * h, inst.get("car.u"))
        inst.set("car.gear", gear)
        inst.set("car.steeringWheelAngle", steer)
        inst.set("car.throttle", throttle)
        inst.fmu.doStep(n * h, h)
    return dict(zip(names, inst.get_reals(names)))


@pytest.fixture(scope="module")
def roll_steer_fmu(fmu_dir):
    """The default car with front bump steer kappa1 = -0.1 rad/m: the jouncing wheel toes out."""
    from conftest import build
    event_file = fmu_dir / "roll_steer.json"
    event_file.write_text(json.dumps(_axle_bump_steer(0, KAPPA1_FRONT)))
    return build(event_file, fmu_dir / "SimonRollSteer.fmu")


KAPPA1_FRONT = -0.1


def test_front_roll_steer_adds_understeer_through_the_fmu(instance, car_fmu, roll_steer_fmu):
    """Steady-state circle at 20 m/s (a_y = 1.2 m/s^2) with and without front roll steer: the
    understeer gradient grows by -kappa1 (t_f/2) g_f (6.8e-4 rad per m/s^2, 43 % of the
    car's own 1.6e-3), and each front wheel steers the road angle plus its Eq. 63 term."""
    base = _circle_fmu(instance(car_fmu, "base").start({"car.speed0": U0}))
    steer = _circle_fmu(instance(roll_steer_fmu, "roll_steer").start({"car.speed0": U0}))
    dk = (_understeer_gradient(steer["car.u"], steer["car.r"], steer["car.ay"])
          - _understeer_gradient(base["car.u"], base["car.r"], base["car.ay"]))
    theory = roll_steer_understeer_change(0, KAPPA1_FRONT)
    assert theory > 0 and dk > 0                                  # roll understeer
    assert dk == pytest.approx(theory, rel=0.02)                  # measured -0.46 %
    # Eq. 63 at each wheel, jounce = -dz: right kappa1 dz_R, left mirrored -kappa1 dz_L
    assert steer["car.axle1.right.steer"] == pytest.approx(
        STEER_ROAD - KAPPA1_FRONT * steer["car.axle1.right.jounce"], abs=1e-15)
    assert steer["car.axle1.left.steer"] == pytest.approx(
        STEER_ROAD + KAPPA1_FRONT * steer["car.axle1.left.jounce"], abs=1e-15)
    # in a right turn the outer (left) front wheel jounces and steers left: it toes out
    assert steer["car.axle1.left.jounce"] > 0 and steer["car.axle1.left.steer"] < STEER_ROAD


def _circle_engine(event, t_end=8.0, h=0.01):
    sim = engine.Simulation(event, initial={"car": {"speed0": U0}})
    col = {k: UNIT_OUTPUTS.index(k) for k in ("u", "r", "ay")}
    for n in range(round(t_end / h)):
        sim.u_unit[0, [UNIT_INPUTS.index(k) for k in ("steeringWheelAngle", "throttle", "gear")]] = \
            _circle_control(n * h, sim.y_unit[0, col["u"]])
        sim.advance((n + 1) * h)
    return _understeer_gradient(*(sim.y_unit[0, col[k]] for k in ("u", "r", "ay")))


@pytest.mark.parametrize("kappa1", [0.1, -0.1])
def test_rear_roll_steer_changes_understeer_by_the_closed_form(kappa1):
    """The rear axle's kappa1 > 0 toes the outer (jouncing) rear wheel in, steering the rear
    with the front: understeer of +kappa1 (t_r/2) g_r; kappa1 < 0 the opposite, oversteer."""
    dk = _circle_engine(engine.load_event(_axle_bump_steer(1, kappa1))) - _circle_engine(engine.load_event())
    theory = roll_steer_understeer_change(1, kappa1)
    assert np.sign(dk) == np.sign(kappa1)
    assert dk == pytest.approx(theory, rel=0.03)                  # measured +1.2 %


# --- half-track change and camber change (Eq. 16, 61, 69-70, 79) -------------------------------

HALF_TRACK = [[-0.1, -0.01], [0.1, 0.01]]                # outward 0.1 m per m of jounce
CAMBER = [[-0.1, -0.03], [0.0, 0.01], [0.1, 0.04]]       # top outward, 0.01 rad static


def _heave_outputs(event, t_end=2.0, h=0.01):
    """Brake pulses at 20 m/s (as _brake_pulses): per step the unit outputs, the wheels'
    jounce and the tires' inclination and lateral force."""
    sim = engine.Simulation(event, initial={"car": {"speed0": 20.0}})
    ib = UNIT_INPUTS.index("brakePedalForce")
    out = {k: [] for k in ("Y", "yaw", "roll", "pitch", "jounce", "inclination", "Fy")}
    for n in range(round(t_end / h)):
        sim.u_unit[0, ib] = 150.0 if (n * h) % 0.5 < 0.25 else 0.0
        sim.advance((n + 1) * h)
        for k in ("Y", "yaw", "roll", "pitch"):
            out[k].append(sim.y_unit[0, UNIT_OUTPUTS.index(k)])
        out["jounce"].append(sim.y_wheel[:, WHEEL_OUTPUTS.index("jounce")].copy())
        for k in ("inclination", "Fy"):
            out[k].append(sim.y_tire[:, TIRE_OUTPUTS.index(k)].copy())
    return {k: np.array(v) for k, v in out.items()}


def test_half_track_and_camber_change_in_heave_keep_the_car_straight():
    """Heave and pitch with half-track change, camber change (with a static camber) and bump
    steer on both axles: left and right are mirror images, so the scrub and camber forces
    cancel pairwise (F_y,left = -F_y,right, each tens of newtons) and the car goes straight
    and level to the numerical noise."""
    r = _heave_outputs(_event(half_track_change=HALF_TRACK, camber_change=CAMBER,
                              bump_steer=[0.002, 0.05, 0.0, 0.0]))
    for k in ("Y", "yaw", "roll"):
        assert np.abs(r[k]).max() < 1e-9, k
    fy = r["Fy"]
    assert np.abs(fy).max() > 20.0                              # the geometry acts
    assert np.abs(fy[:, 0] + fy[:, 1]).max() < 1e-9 * np.abs(fy).max()
    assert np.abs(fy[:, 2] + fy[:, 3]).max() < 1e-9 * np.abs(fy).max()
    assert np.abs(r["jounce"]).max() > 2e-3                      # it heaves and pitches


def test_inclination_is_the_camber_table_at_the_jounce():
    """Eq. 79 and 81-82 with the camber table: at zero steer the wheel's axle vector is
    R (0, cos c, sin c) with c = +cam(jounce) on the right and -cam(jounce) on the left (top
    outward positive), so the inclination is asin(cos(pitch) sin(roll + c)); here roll = 0."""
    r = _heave_outputs(_event(camber_change=CAMBER))
    x, y = np.array(CAMBER).T
    for w, side in enumerate((-1.0, 1.0, -1.0, 1.0)):
        cam = side * np.interp(r["jounce"][:, w], x, y)
        expected = np.arcsin(np.cos(r["pitch"]) * np.sin(r["roll"] + cam))
        assert np.abs(r["inclination"][:, w] - expected).max() < 1e-12
    assert np.ptp(r["inclination"][:, 1]) > 1e-4                 # the jounce sweeps the table


def test_static_camber_thrust_is_c_gamma_times_inclination():
    """A constant camber of 0.02 rad (top outward) rolling straight at 20 m/s: each tire pushes
    towards its top, F_y = C_gamma(F_z) Gamma in the linear range (camber thrust in K_y,
    docs/equations.md), outward on both sides, and the pair cancels."""
    sim = engine.Simulation(_event(camber_change=[[0.0, 0.02]]), initial={"car": {"speed0": 20.0}})
    sim.advance(2.0)
    fy, fz, incl = (sim.y_tire[:, TIRE_OUTPUTS.index(k)] for k in ("Fy", "Fz", "inclination"))
    assert incl == pytest.approx([-0.02, 0.02, -0.02, 0.02], rel=1e-6)
    for t, tire in enumerate(("front", "front", "rear", "rear")):
        data = UNIT["tires"][tire]
        c_gamma = tire_table(fz[t], "camber_stiffness", data)
        assert fy[t] == pytest.approx(c_gamma * incl[t], rel=0.03)      # measured +0.8 %, +1.0 %
    assert abs(sim.y_unit[0, UNIT_OUTPUTS.index("Y")]) < 1e-12


# --- roll centre: the jacking force of half-track and camber change -----------------------------

def roll_gradient_with_roll_centres(contact_slope):
    """Body roll gradient (rad per m/s^2, outward +) with both axles' contact patches moving
    outward by ``contact_slope`` (m per m of jounce): roll centres h_i = slope t_i / 2 above
    the ground (the lateral force F_i of axle i acts on the body there).

    Per unit a_y, with the roll moment M_i carried by axle i's tires:
      phi = M_i / K_t,i + (M_i - F_i h_i) / K_s,i          (tires in series with springs)
      M_f + M_r = m_s h + (m_s g h + m g r) phi - sum W_i h_i phi_s,i
    F_i = m b/L, m a/L (whole-car CG), W_i the sprung weight on the axle; the last term is
    the sprung weight moving inward over the contact patches as they shift by h_i phi_s,i.
    At slope 0 it is the roll gradient of tests/support/sedan.py."""
    ms, m, h, a, b = MS, M, H, A_S, B_S
    a_cg, b_cg = whole_car_cg()
    lateral = [m * b_cg / (a + b), m * a_cg / (a + b)]
    weight = [ms * G * b / (a + b), ms * G * a / (a + b)]
    A, rhs = np.zeros((3, 3)), np.zeros(3)
    A[2, 0], rhs[2] = -(ms * G * h + m * G * mean_loaded_radius()), ms * h
    for i, (ax, (k_s, k_t)) in enumerate(zip(UNIT["axles"], axle_roll_stiffnesses())):
        h_rc = contact_slope * ax["track"] / 2
        A[i, 0], A[i, 1 + i], rhs[i] = 1.0, -(1 / k_t + 1 / k_s), -lateral[i] * h_rc / k_s
        A[2, 1 + i] = 1 + weight[i] * h_rc / k_s
        rhs[2] += weight[i] * h_rc * lateral[i] * h_rc / k_s
    return np.linalg.solve(A, rhs)[0]


def _circle_roll(event):
    sim = engine.Simulation(event, initial={"car": {"speed0": U0}})
    for n in range(800):
        sim.u_unit[0, [UNIT_INPUTS.index(k) for k in ("steeringWheelAngle", "throttle", "gear")]] = \
            _circle_control(n * 0.01, sim.y_unit[0, UNIT_OUTPUTS.index("u")])
        sim.advance((n + 1) * 0.01)
    return sim.y_unit[0, UNIT_OUTPUTS.index("roll")] / sim.y_unit[0, UNIT_OUTPUTS.index("ay")]


@pytest.fixture(scope="module")
def plain_roll():
    return _circle_roll(engine.load_event())


@pytest.mark.parametrize("kind, slope", [("half_track", 0.1), ("half_track", -0.1),
                                         ("camber", 0.3), ("camber", -0.3)])
def test_half_track_and_camber_change_set_the_roll_centre(plain_roll, kind, slope):
    """Half-track change s (outward per jounce) moves the contact patch outward by s, camber
    change c (top outward per jounce) by -r c (it turns about the wheel centre, r above the
    patch). The lateral tire force then pushes the wheel along its travel (the jacking force,
    the generalised force of Eq. 69-70): the roll centre is slope t/2 above the ground and the
    steady-state roll gradient in a 1.2 m/s^2 circle changes by the closed-form ratio (11 % for
    s = 0.1 m/m; the lateral force used to act on the body only, and roll changed by 1 %)."""
    r_mean = mean_loaded_radius()
    if kind == "half_track":
        event, contact_slope = _event(half_track_change=[[-0.1, -0.1 * slope], [0.1, 0.1 * slope]]), slope
    else:
        event, contact_slope = _event(camber_change=[[-0.1, -0.1 * slope], [0.1, 0.1 * slope]]), -r_mean * slope
    ratio = _circle_roll(event) / plain_roll
    theory = roll_gradient_with_roll_centres(contact_slope) / roll_gradient_with_roll_centres(0.0)
    assert abs(ratio - 1.0) > 0.08
    # measured: half-track -0.11 %, +0.27 %; camber (its camber thrust left out) +0.40 %, +0.10 %
    assert ratio == pytest.approx(theory, rel=0.012)
