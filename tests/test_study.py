"""Studies (simon_fmu.studies): manoeuvre metrics through the built FMU against closed forms
from the sedan sheet, the study command's files, and the metric formulas on exact signals."""
from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest

from simon_fmu.__main__ import main as cli
from simon_fmu.studies import manoeuvres
from simon_fmu.studies import metrics as m
from simon_fmu.studies.study import run_study
from test_fmu_physics import (A_S, CDA, EV, G, M, MS, MU, RHO, WB, bicycle_reference,
                               loaded_radius, static_loads)

REF = bicycle_reference()


def test_bicycle_reference_is_the_benchmarks_figure():
    # benchmarks/README.md: the sedan's plain bicycle-model understeer gradient
    assert REF["k_plain"] == pytest.approx(0.00138, abs=5e-6)


def test_steady_circle_gradients_vs_bicycle_model(car_fmu, tmp_path):
    result = run_study("steady-circle", car_fmu, {}, tmp_path)
    k = result["metrics"]["understeerGradient"]
    # with camber thrust from body roll: measured +5.6 % (the plain model without it: +15 %)
    assert k == pytest.approx(REF["k_us"], rel=0.08)
    assert k > REF["k_plain"]
    # roll to the outside of the turn (SAE: negative roll for positive ay); measured +0.2 %
    assert result["metrics"]["rollGradient"] == pytest.approx(-REF["roll_grad"], rel=0.005)
    peak = max(max(row) for tire in EV["tires"].values() for row in tire["peak_friction"])
    assert 0.5 * peak * G < result["metrics"]["maxLateralAcceleration"] < peak * G
    assert result["metrics"]["meanSpeed"] == pytest.approx(20.0, abs=0.05)


def test_step_steer_gain_and_response(car_fmu, tmp_path):
    result = run_study("step-steer", car_fmu, {"steerAngle": 0.2}, tmp_path)
    r = result["metrics"]
    u = r["meanSpeed"]
    # steady yaw-rate gain of the bicycle model, u / (L + K u^2): measured -1.3 %
    assert r["yawRateGain"] == pytest.approx(u / (WB + REF["k_us"] * u ** 2), rel=0.03)
    assert r["steadyLateralAcceleration"] == pytest.approx(
        u * r["yawRateGain"] * 0.2 / EV["steering"]["gear_ratio"], rel=0.002)  # ay = u r: 0.02 %
    assert 0 < r["yawRateResponseTime"] < r["yawRatePeakResponseTime"] < 1.0
    assert 0 < r["lateralAccelerationResponseTime"] < 1.0
    assert 0 <= r["yawRateOvershoot"] < 0.5


def test_static_rollover_lift_off_vs_quasi_static_load_transfer(car_fmu, tmp_path):
    """Lift-off of an inner wheel against the quasi-static lateral load transfer per axle.

    The roll moment about the ground of the sprung mass, m_s h (ay + g phi) with the
    roll angle phi = roll gradient x ay, goes to the axles in proportion to their roll
    stiffnesses (suspension in series with the tires); each axle's unsprung masses add
    2 m_u r_loaded ay of their own. An axle's inner wheel lifts when its load transfer over
    the track equals its static load."""
    result = run_study("static-rollover", car_fmu, {}, tmp_path)["metrics"]
    h = EV["sprung_mass"]["cg_height"]
    k = REF["k_roll_axles"]
    lift = []
    for axle, load, share in zip(EV["axles"], static_loads(), np.array(k) / sum(k)):
        per_ay = (share * MS * h * (1 + G * REF["roll_grad"]) + 2 * MU * loaded_radius(load)) \
            / axle["track"]
        lift.append(load / per_ay)
    first = int(np.argmin(lift))
    assert result["liftOffAxle"] == first + 1
    # measured -3.6 % (the jounce stops, the tires' lateral deflection are not in the model)
    assert result["liftOffLateralAcceleration"] == pytest.approx(lift[first], rel=0.06)
    track = EV["axles"][first]["track"]
    assert result["liftOffLateralAcceleration"] < G * track / (2 * h)     # the rigid vehicle's


def linear_bicycle(s: dict, man, t_end: float) -> dict:
    """The two-degree-of-freedom linear bicycle model of the sheet's car at constant speed,
    with the camber thrust of the quasi-static body roll (phi = -roll gradient x ay, the
    same model as :func:`bicycle_reference`'s understeer gradient), integrated with scipy:
    m (v' + u r) = F_f + F_r, I_z r' = a F_f - b F_r, F = C alpha - C_gamma phi' ay."""
    from scipy.integrate import solve_ivp
    cf, cr, gf, gr, a, b = (REF[k] for k in ("cf", "cr", "gf", "gr", "a", "b"))
    izz = EV["sprung_mass"]["inertia"][2] + MS * (A_S - a) ** 2 + 2 * MU * (a ** 2 + b ** 2)
    u, ratio, roll = s["speed"], EV["steering"]["gear_ratio"], REF["roll_grad"]

    def f(t, z):
        v, r, psi, _x, _y = z
        delta = float(man.steer(t, s)) / ratio
        ff, fr = cf * (delta - (v + a * r) / u), -cr * (v - b * r) / u
        ay = (ff + fr) / (M + (gf + gr) * roll)
        ff, fr = ff - gf * roll * ay, fr - gr * roll * ay
        return [(ff + fr) / M - u * r, (a * ff - b * fr) / izz, r,
                u * math.cos(psi) - v * math.sin(psi), u * math.sin(psi) + v * math.cos(psi)]
    t = np.arange(0.0, t_end + 1e-9, 0.001)
    z = solve_ivp(f, (0.0, t_end), [0.0] * 5, t_eval=t, max_step=0.001, rtol=1e-9, atol=1e-12).y
    return {"time": t, "r": z[1], "yaw": z[2], "X": z[3], "Y": z[4]}


def test_sine_with_dwell_vs_linear_bicycle_model(car_fmu, tmp_path):
    man = manoeuvres.get("sine-with-dwell")
    result = run_study("sine-with-dwell", car_fmu, {"amplitude": 0.2}, tmp_path)
    s = result["settings"]
    ref = linear_bicycle(s, man, s["duration"])
    bos = s["startTime"]
    cos_ = bos + 1 / s["frequency"] + s["dwell"]
    expected = m.sine_with_dwell(ref["time"], ref["r"], ref["r"] * s["speed"], ref["X"], ref["Y"],
                                 ref["yaw"], bos, bos + 0.5 / s["frequency"], cos_, 1.0)
    got = result["metrics"]
    # measured -3.1 % and -3.5 % (the FMU's understeer gradient is 5.6 % above this model's)
    assert got["peakYawRate"] == pytest.approx(expected["peakYawRate"], rel=0.06)
    assert got["lateralDisplacement"] == pytest.approx(expected["lateralDisplacement"], rel=0.06)
    # linear range: the yaw rate has died away 1 s after the steer (FMVSS 126: <= 0.35, 0.20)
    assert abs(got["yawRateRatio1s"]) < 0.01 and abs(got["yawRateRatio175s"]) < 0.01


def test_sine_with_dwell_steering_profile():
    man = manoeuvres.get("sine-with-dwell")
    s = man.resolve({"amplitude": 2.0, "frequency": 0.5, "dwell": 0.4, "startTime": 1.0})
    t = np.array([0.5, 1.5, 2.0, 2.5, 2.9, 3.2, 3.4, 3.9, 4.5])
    # quarter period 0.5 s: +A at 1.5, 0 at 2.0, -A from 2.5 held to 2.9, 0 at 3.4 (COS), then 0
    assert man.steer(t, s) == pytest.approx([0, 2, 0, -2, -2, 2 * math.sin(math.pi * 1.8),
                                             0, 0, 0], abs=1e-12)


def test_study_command_writes_metrics_histories_and_report(car_fmu, tmp_path, capsys):
    out = tmp_path / "brake"
    assert cli(["study", "straight-brake", "--fmu", str(car_fmu), "--set", "speed0=25",
                "--set", "frictionMultiplier=0.7", "-o", str(out)]) == 0
    data = json.loads((out / "metrics.json").read_text())
    assert data["settings"]["speed0"] == 25.0 and data["parameters"] == {"frictionMultiplier": 0.7}
    (mu_s,) = {v for tire in EV["tires"].values() for row in tire["slide_friction"] for v in row}
    a, k = 0.7 * mu_s * G, 0.5 * RHO * CDA / M
    assert data["metrics"]["stoppingDistance"] == pytest.approx(
        math.log(1 + k * 25.0 ** 2 / a) / (2 * k), rel=0.006)
    header = (out / "histories.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "time" and "u" in header and "axle1.left.spin" in header
    table = np.loadtxt(out / "histories.csv", delimiter=",", skiprows=1)
    assert table[0, header.index("u")] == pytest.approx(25.0) and abs(table[-1, header.index("u")]) < 0.05
    page = (out / "report.html").read_text()
    png = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", page).group(1))
    assert png.startswith(b"\x89PNG") and "stoppingDistance" in page
    assert (out / "report.png").read_bytes() == png
    assert "stoppingDistance" in capsys.readouterr().out


def test_study_command_names_a_bad_setting(car_fmu, tmp_path, capsys):
    assert cli(["study", "straight-brake", "--fmu", str(car_fmu), "--set", "speed0=900",
                "-o", str(tmp_path)]) == 2
    assert "speed0" in capsys.readouterr().err
    assert cli(["study", "straight-brake", "--fmu", str(car_fmu), "--set", "wobble=1",
                "-o", str(tmp_path)]) == 2
    assert "wobble" in capsys.readouterr().err


# --- the metric formulas on exact signals -------------------------------------------------

def test_mean_fully_developed_deceleration_of_a_constant_deceleration():
    t = np.linspace(0.0, 4.0, 4001)
    a, v0 = 6.0, 20.0
    u = np.maximum(v0 - a * t, 0.0)
    x = np.where(u > 0, v0 * t - 0.5 * a * t ** 2, v0 ** 2 / (2 * a))
    assert m.mean_fully_developed_deceleration(x, u, v0) == pytest.approx(a, rel=1e-6)  # x interpolated linearly
    s, t_stop = m.stopping(t, x, u, 0.0, 0.5)
    assert s == pytest.approx((v0 ** 2 - 0.25) / (2 * a), rel=1e-6)
    assert t_stop == pytest.approx((v0 - 0.5) / a, rel=1e-9)


def test_understeer_gradient_recovers_k():
    ay = np.linspace(0.2, 2.0, 50)
    u = np.full_like(ay, 20.0)
    k, wb = 0.0015, 2.6
    r = ay / u
    delta = wb * r / u + k * ay
    assert m.understeer_gradient(ay, delta, r, u, wb) == pytest.approx(k, rel=1e-9)


def test_step_response_of_first_and_second_order_systems():
    t = np.linspace(0.0, 20.0, 200001)
    steer = (t >= 1.0).astype(float)
    tau = 0.3
    first = np.where(t >= 1.0, 1.0 - np.exp(-(t - 1.0) / tau), 0.0)
    r = m.step_response(t, steer, first, 15.0)
    assert r["responseTime"] == pytest.approx(tau * math.log(10.0), abs=2e-4)
    zeta, wn = 0.4, 8.0
    wd = wn * math.sqrt(1 - zeta ** 2)
    tt = np.maximum(t - 1.0, 0.0)
    second = np.where(t >= 1.0, 1 - np.exp(-zeta * wn * tt) * (np.cos(wd * tt) + zeta * wn / wd
                                                                * np.sin(wd * tt)), 0.0)
    r = m.step_response(t, steer, second, 15.0)
    assert r["overshoot"] == pytest.approx(math.exp(-zeta * math.pi / math.sqrt(1 - zeta ** 2)),
                                           rel=1e-4)
    assert r["peakResponseTime"] == pytest.approx(math.pi / wd, abs=2e-4)


def bicycle_frequency_response(u: float, freqs) -> tuple[np.ndarray, np.ndarray]:
    """Yaw-rate and lateral-acceleration responses to the road-wheel steer (complex, per
    frequency in Hz) of :func:`linear_bicycle`'s model: x' = A x + B delta with x = (v, r),
    H(jw) = (jw I - A)^-1 B, ay = v' + u r (the linear model's state matrices by columns)."""
    cf, cr, gf, gr, a, b = (REF[k] for k in ("cf", "cr", "gf", "gr", "a", "b"))
    izz = EV["sprung_mass"]["inertia"][2] + MS * (A_S - a) ** 2 + 2 * MU * (a ** 2 + b ** 2)
    roll = REF["roll_grad"]

    def f(v, r, delta):
        ff, fr = cf * (delta - (v + a * r) / u), -cr * (v - b * r) / u
        ay = (ff + fr) / (M + (gf + gr) * roll)
        ff, fr = ff - gf * roll * ay, fr - gr * roll * ay
        return np.array([(ff + fr) / M - u * r, (a * ff - b * fr) / izz])
    A = np.column_stack([f(1, 0, 0), f(0, 1, 0)])
    B = f(0, 0, 1)
    rs, ays = [], []
    for fr_ in freqs:
        jw = 2j * math.pi * fr_
        v, r = np.linalg.solve(jw * np.eye(2) - A, B)
        rs.append(r)
        ays.append(jw * v + u * r)
    return np.array(rs), np.array(ays)


def test_frequency_response_vs_linear_bicycle_model(car_fmu, tmp_path):
    result = run_study("frequency-response", car_fmu, {"amplitude": 0.1}, tmp_path)
    got, s = result["metrics"], result["settings"]
    freqs = [s[f"frequency{i}"] for i in (1, 2, 3)]
    r_ref, ay_ref = bicycle_frequency_response(got["meanSpeed"], freqs)
    # yaw rate, measured gain -1.4 %, -0.8 %, +4.7 %; phase +0.003, -0.001, -0.018 rad
    for i in (1, 2, 3):
        assert got[f"yawRateGain{i}"] == pytest.approx(abs(r_ref[i - 1]), rel=0.07)
        assert got[f"yawRatePhase{i}"] == pytest.approx(np.angle(r_ref[i - 1]), abs=0.04)
    # lateral acceleration at 0.2 Hz: -0.2 %, -0.005 rad; at 0.6 Hz +6.1 %, -0.064 rad. At
    # 1.2 Hz the FMU lags the two-degree-of-freedom model by 0.3 rad (+7 % gain): that model
    # has the roll quasi-static, so only the fall of the gain is checked there
    assert got["lateralAccelerationGain1"] == pytest.approx(abs(ay_ref[0]), rel=0.01)
    assert got["lateralAccelerationPhase1"] == pytest.approx(np.angle(ay_ref[0]), abs=0.02)
    assert got["lateralAccelerationGain2"] == pytest.approx(abs(ay_ref[1]), rel=0.09)
    assert got["lateralAccelerationPhase2"] == pytest.approx(np.angle(ay_ref[1]), abs=0.1)
    assert got["lateralAccelerationGain3"] < got["lateralAccelerationGain2"] < got["lateralAccelerationGain1"]
    # the lowest frequency's gain tends to the steady yaw-rate gain u / (L + K u^2): -1.4 %
    u = got["meanSpeed"]
    assert got["yawRateGain1"] == pytest.approx(u / (WB + REF["k_us"] * u ** 2), rel=0.03)

def test_harmonics_of_a_sum_of_sines():
    t = np.arange(0.0, 10.0, 0.01)
    y = 0.3 + 2.0 * np.sin(2 * math.pi * 0.2 * t - 0.4) + 0.5 * np.sin(2 * math.pi * 1.2 * t + 1.0)
    c = m.harmonics(t, y, [0.2, 0.6, 1.2])
    assert np.abs(c) == pytest.approx([2.0, 0.0, 0.5], abs=1e-9)
    assert np.angle(c[[0, 2]]) == pytest.approx([-0.4, 1.0], abs=1e-9)
    gain, phase = m.frequency_response(t, np.sin(2 * math.pi * 0.2 * t), y, [0.2])
    assert gain == pytest.approx([2.0]) and phase == pytest.approx([-0.4])


def test_split_mu_locked_wheel_stop_vs_friction_bounds(car_fmu, tmp_path):
    """Locked wheels on split friction (no ABS in the FMU): the sliding tires' forces are at
    most mu_i N_i, so the path is at least the mean-friction stop (aero drag included:
    s = ln(1 + k v^2 / a) / (2 k), a = g mu_s (mu_low + mu_high) / 2, the loads equal left
    and right), and shorter than the low-friction stop. The car yaws towards the high side."""
    result = run_study("split-mu", car_fmu, {}, tmp_path)
    got, s = result["metrics"], result["settings"]
    (mu_s,) = {v for tire in EV["tires"].values() for row in tire["slide_friction"] for v in row}
    k, v = 0.5 * RHO * CDA / M, s["speed0"]

    def stop(mu):
        return math.log(1 + k * v ** 2 / (mu * mu_s * G)) / (2 * k)
    mean = stop(0.5 * (s["muLow"] + s["muHigh"]))
    assert stop(s["muHigh"]) < mean <= got["stoppingDistance"] < stop(s["muLow"])
    # measured +14 % over the mean-friction stop: the car spins, its tires slide in different directions
    assert got["stoppingDistance"] == pytest.approx(mean, rel=0.2)
    assert got["finalYaw"] < -0.5          # low side right: yaw to the left (SAE: negative)


def test_split_mu_driver_holds_the_line_below_lock(car_fmu, tmp_path):
    base = {"brakePedalForce": 100.0, "muLow": 0.5}
    held = run_study("split-mu", car_fmu, base, tmp_path / "held")["metrics"]
    driven = run_study("split-mu", car_fmu, {**base, "driver": 1}, tmp_path / "driver")["metrics"]
    # measured 4.7 mm held, 0.7 mm with the driver
    assert driven["maxLateralDeviation"] < 0.5 * held["maxLateralDeviation"]
    assert driven["stoppingDistance"] == pytest.approx(held["stoppingDistance"], rel=0.01)


def test_gravity_tilt_loads_the_tires_with_m_g_cos_and_m_g_sin(instance, car_fmu):
    """The tilt table (FMU input gravityTilt): gravity turned about earth X by T. At rest on
    it the tires carry m g cos T normal to the table and m g sin T up its slope (exact)."""
    from test_fmu_physics import run
    inst = instance(car_fmu).start({"car.speed0": 0.0})
    tilt = 0.3

    def control(t, i):
        i.set("gravityTilt", tilt * min(1.0, t / 2.0))
        i.set("car.brakePedalForce", 500.0)
    run(inst, 4.0, control)
    tires = [f"{w}.{q}" for w in ("car.axle1.left", "car.axle1.right", "car.axle2.left",
                                  "car.axle2.right") for q in ("Fy", "Fz")]
    f = dict(zip(tires, inst.get_reals(tires)))
    fz = sum(v for k, v in f.items() if k.endswith("Fz"))
    fy = sum(v for k, v in f.items() if k.endswith("Fy"))
    assert fz == pytest.approx(M * G * math.cos(tilt), rel=1e-4)
    # the table falls to the right: the ground holds the car up the slope (tire frame y' right)
    assert fy == pytest.approx(-M * G * math.sin(tilt), rel=2e-3)
    assert abs(inst.get("car.ay")) < 0.01


def tilt_lift_off_theory() -> list[float]:
    """tan(T) of each axle's inner-wheel lift-off on a tilt table, quasi-static.

    The circle's load transfer (see the test above: sprung roll moment m_s h (a + g phi)
    shared by the axles' roll stiffnesses, plus 2 m_u r_loaded a per axle) with the
    table's lateral a = g sin T and normal g' = g cos T in place of g: the roll gradient
    m_s h / (K - m_s g' h - m g' r), the static loads times cos T. The lighter normal load
    lets the springs and tires extend by (1 - cos T) of their static deflections, which
    raises the sprung CG (by the deflections at the CG's place between the axles) and the
    wheel centres. An axle lifts when its transfer equals its static load: solved by a
    fixed point in T."""
    k_axles = REF["k_roll_axles"]
    loads = static_loads()
    kt = EV["tires"]["front"]["radial_stiffness"]
    defl = [(n - MU * G) / ax["suspension"]["spring_rate"] + n / kt
            for n, ax in zip(loads, EV["axles"])]
    rise_cg = (-EV["axles"][1]["x"] * defl[0] + EV["axles"][0]["x"] * defl[1]) / WB
    out = []
    for j, (axle, load) in enumerate(zip(EV["axles"], loads)):
        tan = 1.0
        for _ in range(100):
            c = math.cos(math.atan(tan))
            h = EV["sprung_mass"]["cg_height"] + (1 - c) * rise_cg
            radii = [loaded_radius(n * c) for n in loads]
            roll = MS * h / (sum(k_axles) - G * c * (MS * h + M * np.mean(radii)))
            per_a = (k_axles[j] / sum(k_axles) * MS * h * (1 + G * c * roll)
                     + 2 * MU * radii[j]) / axle["track"]
            tan = load / (G * per_a)
        out.append(tan)
    return out


def test_static_rollover_on_a_tilt_table(car_fmu, tmp_path, capsys):
    out = tmp_path / "tilt"
    assert cli(["study", "static-rollover", "--fmu", str(car_fmu), "--set", "method=tilt",
                "-o", str(out)]) == 0
    got = json.loads((out / "metrics.json").read_text())["metrics"]
    lift = tilt_lift_off_theory()
    first = int(np.argmin(lift))
    assert got["liftOffAxle"] == first + 1 and got["liftOffUnit"] == 1
    # measured -1.8 % (0.939 g against 0.956 g)
    assert got["rolloverThreshold"] == pytest.approx(lift[first], rel=0.04)
    assert got["rolloverThreshold"] == pytest.approx(math.tan(got["liftOffTilt"]))
    # the rigid vehicle's tan T = (t/2) / h, the whole car's CG height and load-weighted
    # half track: 1.186; the compliant car is 21 % below it
    loads = static_loads()
    h_cg = (MS * EV["sprung_mass"]["cg_height"] + sum(2 * MU * loaded_radius(n) for n in loads)) / M
    half_track = sum(n * a["track"] / 2 for n, a in zip(loads, EV["axles"])) / sum(loads)
    assert got["rolloverThreshold"] < 0.85 * half_track / h_cg
    # the steady-circle method: measured 0.9435 g, the tilt table 0.5 % below it
    circle = run_study("static-rollover", car_fmu, {}, tmp_path / "circle")["metrics"]
    assert circle["rolloverThreshold"] == pytest.approx(circle["liftOffLateralAcceleration"] / G)
    assert got["rolloverThreshold"] == pytest.approx(circle["rolloverThreshold"], rel=0.015)


def test_a_choice_setting_takes_its_name_or_index():
    man = manoeuvres.get("static-rollover")
    assert man.resolve({"method": "tilt"})["method"] == 1.0
    assert man.resolve({"method": 0})["method"] == 0.0
    for bad in ("tipsy", 0.5, 2):
        with pytest.raises(ValueError, match="method: .* circle or tilt"):
            man.resolve({"method": bad})
