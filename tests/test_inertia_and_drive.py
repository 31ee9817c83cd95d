"""Product of inertia Ixz, the tire's rebound multiplier and a driven front axle, each against a
closed form from the sedan sheet (docs/reference/sedan.md, as loaded from the default event)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.tire import radial_force, turning_point_rate

from conftest import build
from support.sedan import (CDA, EV, G, H, I_SPIN, M, MS, MU, RHO, TIRE, WB, loaded_radius,
                           static_loads)

BASE = json.loads(engine.load_event().to_json())


def _modified(change) -> dict:
    data = json.loads(json.dumps(BASE))
    change(data["units"][0])
    return data


# --- Ixz: products of inertia couple roll and yaw (Eq. 8, 10) --------------------------------

def _instant_rates(ixz, d=0.01, h=1e-6):
    """The car at rest, front wheels displaced antisymmetrically (left down d, right up d):
    the springs and the bar put a pure roll moment on the body. One RK4 step of h gives the
    accelerations (v', p', r') at that instant. The front dampers and coulomb friction are
    taken out: within the step the wheels gain speed, and their rate forces would change the
    moment (by 1e-3 of it from the friction's null band)."""
    def change(unit):
        unit["sprung_mass"]["Ixz"] = ixz
        unit["axles"][0]["suspension"].update(damping=0.0, coulomb_friction=0.0)
    data = _modified(change)
    sim = engine.Simulation(engine.load_event(data), step_size=h)
    state = sim.get_state()
    for wheel, sign in ((0, 1.0), (1, -1.0)):          # axle 1 left, right
        state.y[sim.layout.at("wheel", wheel) + L.WZ] = sign * d
    sim.set_state(state)
    y0 = sim.y.copy()
    sim.advance(h)
    rates = (sim.y - y0) / h
    return rates[L.SV], rates[L.SP], rates[L.SR]


def _roll_yaw_closed_form(ixz, d=0.01):
    """(v', p', r') from Euler's equations (Eq. 8, 10, with the lateral Eq. 2 and 12) of the
    sprung mass and the unsprung point masses. At the instant each wheel is free to move
    vertically on its own suspension, so a wheel carries inertia only horizontally: in roll
    m z^2 (its lateral acceleration -z p'), in yaw m (x^2 + y^2), and the product term
    -m x z couples them like Ixz. The wheels' own yaw inertias (Eq. 10's sum I_z,Unsprung:
    each a disc of its tire's spin inertia, half of it about a diameter) add to I_z.

    The roll moment: jounce -d left and +d right changes the spring forces by -/+ k d and
    the anti-sway bar (relative roll -2d/t) by -/+ 2 K_rs d / t^2; acting on the body at
    y = -/+ t/2 they give M_x = -(k t d + 2 K_rs d / t). The tire-force change acts on the
    wheels, which take it up themselves (their vertical motion is free)."""
    front, rear = static_loads()
    wheels = []
    for ax, load in ((EV["axles"][0], front), (EV["axles"][1], rear)):
        z = H - loaded_radius(load)                     # wheel centre below the CG
        for side, dz in ((-1.0, d), (1.0, -d)) if ax is EV["axles"][0] else ((-1.0, 0.0), (1.0, 0.0)):
            wheels.append((ax["x"], side * ax["track"] / 2, z + dz))
    x, y, z = (np.array(c) for c in zip(*wheels))
    ix, _, iz = EV["sprung_mass"]["inertia"]
    sus, t = EV["axles"][0]["suspension"], EV["axles"][0]["track"]
    mx = -(sus["spring_rate"] * t * d + 2 * sus["antisway_roll_stiffness"] * d / t)
    m = MU
    mass = np.array([
        [M, -m * z.sum(), m * x.sum()],
        [-m * z.sum(), ix + m * (z * z).sum(), -(ixz + m * (x * z).sum())],
        [m * x.sum(), -(ixz + m * (x * z).sum()), iz + m * (x * x + y * y).sum() + I_SPIN / 2],
    ])
    return np.linalg.solve(mass, [0.0, mx, 0.0])


@pytest.mark.parametrize("ixz", [0.0, 200.0, -200.0])
def test_product_of_inertia_couples_roll_into_yaw(ixz):
    """A pure roll moment accelerates the body in roll and, through Ixz (and the unsprung
    masses' x z), in yaw: r' = (Ixz + sum m x z) p' / I_z,eff at the instant (plus the
    lateral coupling of the unsprung masses). Ixz = +200 kg m^2 gives r' of the sign of p',
    -200 the opposite; the sedan's Ixz = 0 leaves only the unsprung masses' small term."""
    measured = np.array(_instant_rates(ixz))
    theory = _roll_yaw_closed_form(ixz)
    assert measured == pytest.approx(theory, rel=0.0, abs=1e-4 * abs(theory[1]))   # measured 2.8e-5
    if ixz:   # Eq. 10 with M_z = 0: I_z r' = Ixz p' + ..., so r' follows Ixz p' in sign
        assert np.sign(measured[2]) == np.sign(ixz * measured[1])


# --- lambda: the tire's rebound multiplier (Eq. 93) --------------------------------------------

def _tire_params(lam):
    data = _modified(lambda u: [t.update(rebound_multiplier=lam) for t in u["tires"].values()])
    model, _ = engine.setup.params.pack(engine.load_event(data), 1.0,
                                  {"car": {"speed0": 0.0, "X0": 0.0, "Y0": 0.0, "yaw0": 0.0}})
    return model.P_TIRE


def _loading(defl):
    """Eq. 93 with xi = 1, by hand from the sheet."""
    kt, kbar, d2 = TIRE["radial_stiffness"], TIRE["secondary_stiffness_multiplier"], TIRE["secondary_stiffness_deflection"]
    return kt * defl if defl < d2 else kt * (kbar * (defl - d2) + d2)


def _stored(defl):
    """Work of loading a tire from zero to ``defl``: the integral of Eq. 93 (xi = 1)."""
    kt, kbar, d2 = TIRE["radial_stiffness"], TIRE["secondary_stiffness_multiplier"], TIRE["secondary_stiffness_deflection"]
    if defl <= d2:
        return kt * defl ** 2 / 2
    e = defl - d2
    return kt * (d2 ** 2 / 2 + kbar * e ** 2 / 2 + d2 * e)


@pytest.mark.parametrize("turn", [0.01, 0.049, 0.06, 0.09])
def test_radial_force_loading_and_rebound_follow_eq_93(turn):
    """Eq. 93 by hand from the sheet: K_T delta below delta_2, K_T (K_bar (delta - delta_2)
    + delta_2) beyond while the tire loads. Unloading from the turning point, the force is
    continuous there, falls to zero at the permanent set (1 - lambda) delta_turn (below it the
    tire carries nothing), returns lambda of the energy stored (the integral of Eq. 93 from
    zero to the turning point), and is in the linear range the straight line of slope
    K_T / lambda; lambda = 1 unloads on the loading curve itself."""
    lam = 0.4
    P, P1 = _tire_params(lam), _tire_params(1.0)
    assert radial_force(turn, turn, P, 0) == pytest.approx(_loading(turn), rel=1e-15)
    assert radial_force(turn, 0.0, P, 0) == pytest.approx(_loading(turn), rel=1e-15)   # a fresh tire
    assert radial_force(turn * (1 - 1e-9), turn, P, 0) == pytest.approx(_loading(turn), rel=1e-8)
    d0 = (1 - lam) * turn
    assert radial_force(d0, turn, P, 0) == 0.0
    assert radial_force(d0 * 0.99, turn, P, 0) == 0.0
    assert radial_force(-turn, turn, P, 0) == 0.0      # off the ground
    grid = np.linspace(d0, turn, 200001)
    returned = np.trapezoid([radial_force(x, turn, P, 0) for x in grid], grid)
    assert returned == pytest.approx(lam * _stored(turn), rel=1e-9)
    mid = (d0 + turn) / 2
    if turn < TIRE["secondary_stiffness_deflection"]:
        assert radial_force(mid, turn, P, 0) == pytest.approx(TIRE["radial_stiffness"] / lam * (mid - d0), rel=1e-12)
    for x in (0.3 * turn, mid, 0.999 * turn):
        assert radial_force(x, turn, P1, 0) == _loading(x)


def test_turning_point_follows_loading_holds_on_rebound_and_recovers_off_the_ground():
    """The loop's memory: on the loading curve the turning point moves with a growing
    deflection (never back); on the unloading branch it holds; below the permanent set, the
    tire carrying nothing, the set follows the deflection down (the turning point at
    rate / (1 - lambda))."""
    lam, turn = 0.4, 0.03
    assert turning_point_rate(turn, 0.5, turn, lam) == 0.5
    assert turning_point_rate(turn + 1e-3, 0.5, turn, lam) == 0.5
    assert turning_point_rate(turn, -0.5, turn, lam) == 0.0
    assert turning_point_rate(0.025, -0.5, turn, lam) == 0.0     # unloading branch
    assert turning_point_rate(0.025, 0.5, turn, lam) == 0.0      # reloading branch
    assert turning_point_rate(0.015, -0.5, turn, lam) == pytest.approx(-0.5 / (1 - lam))
    assert turning_point_rate(0.015, 0.5, turn, lam) == 0.0
    assert turning_point_rate(0.0, -0.5, turn, 1.0) == 0.0


def _rest_and_ride(lam, speed0, t_end=2.0, h=0.01):
    """The car from static equilibrium, at rest or rolling straight: tire loads and CG height."""
    data = _modified(lambda u: [t.update(rebound_multiplier=lam) for t in u["tires"].values()])
    sim = engine.Simulation(engine.load_event(data), initial={"car": {"speed0": speed0}})
    ifz, iz = engine.TIRE_OUTPUTS.index("Fz"), engine.UNIT_OUTPUTS.index("Z")
    loads, heights = [], []
    for n in range(round(t_end / h)):
        sim.advance((n + 1) * h)
        loads.append(sim.y_tire[:, ifz].copy())
        heights.append(sim.y_unit[0, iz])
    return np.array(loads), np.array(heights)


def test_rebound_multiplier_leaves_static_equilibrium_alone():
    """lambda acts only while a tire unloads. A car standing in static equilibrium neither
    loads nor unloads its tires, so with lambda = 0.5 it keeps the static loads (sprung
    weight by the lever rule plus the unsprung weight) and does not heave; rolling straight
    at 20 m/s, once the drag has pitched it, it carries the loads it carries with lambda = 1."""
    front, rear = static_loads()
    loads, heights = _rest_and_ride(0.5, 0.0)
    assert np.max(np.abs(loads - [front, front, rear, rear])) < 1e-6      # N (measured 3.4e-8)
    assert np.ptp(heights) < 1e-12                                         # m (measured 6e-14)
    rolling, heights = _rest_and_ride(0.5, 20.0)
    reference, _ = _rest_and_ride(1.0, 20.0)
    assert np.max(np.abs(rolling[-50:] - reference[-50:])) < 1.0           # N (measured 0.004)
    assert np.ptp(heights) < 1e-4                                          # m (measured 3.1e-5)


@pytest.fixture(scope="module")
def rebound_fmu(fmu_dir):
    """The default car with lambda = 0.5 on every tire."""
    event_file = fmu_dir / "rebound.json"
    event_file.write_text(json.dumps(
        _modified(lambda u: [t.update(rebound_multiplier=0.5) for t in u["tires"].values()])))
    return build(event_file, fmu_dir / "SimonRebound.fmu")


def test_rebound_multiplier_car_at_rest_through_the_fmu(instance, rebound_fmu):
    """Through the FMU, the lambda = 0.5 car standing for 2 s reports its static tire loads
    (the lever rule plus the unsprung weight) and the CG height of the static state."""
    inst = instance(rebound_fmu).start({})
    tires = [f"car.axle{k}.{s}.Fz" for k in (1, 2) for s in ("left", "right")]
    h, rec = 0.01, []
    for n in range(200):
        inst.fmu.doStep(n * h, h)
        rec.append(inst.get_reals(tires + ["car.Z"]))
    rec = np.array(rec)
    front, rear = static_loads()
    assert np.max(np.abs(rec[:, :4] - [front, front, rear, rear])) < 1e-6     # N (measured 3.4e-8)
    assert np.ptp(rec[:, 4]) < 1e-12                                            # m (measured 6e-14)


def _tire_history(lam, change, t_end, h=1e-4, tire=0):
    """Deflection, radial force and turning point of one tire, every step of h, after
    ``change(state.y)`` is applied to the car's static state."""
    data = _modified(lambda u: [t.update(rebound_multiplier=lam) for t in u["tires"].values()])
    sim = engine.Simulation(engine.load_event(data), step_size=h)
    state = sim.get_state()
    change(state.y)
    sim.set_state(state)
    turn = sim.layout.at("tire", tire) + L.TTURN
    rows = [(sim.y_tire[tire, L.YT_DEFL], sim.y_tire[tire, L.YT_FZ], sim.y[turn])]
    for n in range(round(t_end / h)):
        sim.advance((n + 1) * h)
        rows.append((sim.y_tire[tire, L.YT_DEFL], sim.y_tire[tire, L.YT_FZ], sim.y[turn]))
    return np.array(rows).T


@pytest.mark.parametrize("lam", [0.5, 0.3])
def test_struck_wheel_tire_returns_lambda_of_the_energy_it_stored(lam):
    """The front left wheel of the resting car struck down at 5 m/s (as by a pothole's edge):
    its tire loads from the static deflection into the secondary stiffness and unloads until
    it carries nothing. Along the way F dF agrees with the closed forms of Eq. 93: the
    loading takes the integral of Eq. 93 from the static to the largest deflection, the
    unloading gives back lambda of the energy stored from zero, the force reaches zero at the
    permanent set (1 - lambda) delta_max, and it is continuous: no step changes it by more
    than the steepest branch (K_T K_bar / lambda) times the step's deflection change (Eq. 93
    as printed jumps by (1 - lambda) F_R at the turn, 6000 N here)."""
    def strike(y):
        y[engine.Simulation(engine.load_event()).layout.at("wheel", 0) + L.WZD] = 5.0
    defl, force, turn = _tire_history(lam, strike, 0.06)
    i = int(np.argmax(defl))
    j = i + int(np.argmax(force[i:] == 0.0))        # first step without force after the turn
    assert j > i and np.all(np.diff(defl[:i + 1]) > 0) and np.all(np.diff(defl[i:j + 1]) < 0)
    d_max = defl[i]
    assert d_max > TIRE["secondary_stiffness_deflection"]
    assert turn[i] == pytest.approx(d_max, abs=1e-6)          # measured 9e-8 (the turn within the step)
    stored = np.trapezoid(force[:i + 1], defl[:i + 1])
    assert stored == pytest.approx(_stored(d_max) - _stored(defl[0]), rel=1e-5)     # measured 1.4e-6
    returned = -np.trapezoid(force[i:j + 1], defl[i:j + 1])
    assert returned == pytest.approx(lam * _stored(d_max), rel=1e-5)                # measured 2.4e-6
    set_ = (1 - lam) * d_max
    assert defl[j] <= set_ <= defl[j - 1]
    k_max = TIRE["radial_stiffness"] * TIRE["secondary_stiffness_multiplier"] / lam
    assert np.max(np.abs(np.diff(force))) <= 1.05 * k_max * np.max(np.abs(np.diff(defl)))


def test_dropped_car_lands_on_fresh_tires():
    """The car lifted 0.1 m off the ground: a tire in the air keeps no memory of its load
    (turning point zero), so on landing it loads on Eq. 93 from zero: the work done on it up
    to its largest deflection is the integral of Eq. 93 from zero."""
    def lift(y):
        y[L.SZ] -= 0.1
    defl, force, turn = _tire_history(0.5, lift, 0.2)
    assert defl[0] == 0.0 and force[0] == 0.0
    k0 = int(np.argmax(force > 0.0))
    i = k0 + int(np.argmax(np.diff(defl[k0:]) <= 0.0))          # the largest deflection
    assert k0 > 1 and i > k0 + 10 and np.all(turn[1:k0] == 0.0)  # from the first step on
    # on the loading curve the turning point follows the deflection within the last step
    lag = defl[k0:i + 1] - turn[k0:i + 1]
    assert np.all(lag >= -1e-12) and np.all(lag <= np.diff(defl[k0 - 1:i + 1]) + 1e-12)
    stored = np.trapezoid(force[k0 - 1:i + 1], defl[k0 - 1:i + 1])
    assert stored == pytest.approx(_stored(defl[i]), rel=1e-6)


# --- a driven front axle ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def front_drive_fmu(fmu_dir):
    """The default car with its front axle driven and its rear axle free rolling."""
    def change(unit):
        unit["axles"][0]["driven"], unit["axles"][1]["driven"] = True, False
    event_file = fmu_dir / "front_drive.json"
    event_file.write_text(json.dumps(_modified(change)))
    return build(event_file, fmu_dir / "SimonFrontDrive.fmu")


def test_front_drive_accelerates_at_the_torque_limited_rate(instance, front_drive_fmu):
    """Full throttle in second gear from 5 m/s, front wheels driven (torque-limited: the
    drive force stays below mu_p F_z of the front tires).

    Closed form: m_eff a = T_e(omega_e) eta / r_f - sigma0 m g - rho Cd A u^2 / 2, with
    eta = eta_2 eta_diff, m_eff = m + sum I_w / r^2 + I_drivetrain eta^2 / r_f^2 (engine and
    driveline turn with the front wheels), T_e from the WOT map at the engine speed
    eta * (mean front spin) (Eq. 50), r_f the front tires' loaded radius under the load
    the acceleration moves rearwards (m a h_cg / L; iterated). The clutch is locked (the car
    starts in gear above idle), so the engine turns at eta times the mean front spin; the
    drive torque, the clutch torque T_e - I_drivetrain d(omega_e)/dt times eta, reaches the
    front wheels only, half each (Eq. 32, zeta = 1/2), and the car goes straight."""
    inst = instance(front_drive_fmu).start({"car.speed0": 5.0})
    inst.set("car.gear", 2)
    inst.set("car.throttle", 1.0)
    wheels = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
    names = ["car.u", "car.ax", "car.Y", "car.yaw", "car.engineSpeed"] + [w + ".spin" for w in wheels] + \
        [w + ".driveTorque" for w in wheels]
    h, rec = 0.01, []
    for n in range(300):
        inst.fmu.doStep(n * h, h)
        rec.append(inst.get_reals(names))
    r = dict(zip(names, np.array(rec).T))
    dt = EV["drivetrain"]
    eta = dt["transmission_ratios"][1] * dt["differential_ratio"]
    wot = np.array(dt["engine_wot_torque"], dtype=float)
    omega_e = eta * 0.5 * (r["car.axle1.left.spin"] + r["car.axle1.right.spin"])
    t_e = np.interp(omega_e * 60.0 / (2.0 * math.pi), wot[:, 0], wot[:, 1])
    assert np.max(np.abs(r["car.engineSpeed"] / omega_e - 1)) < 1e-6            # locked
    # the drive torque: the clutch torque x overall ratio, half to each front wheel, none at the
    # rear; the clutch torque is the engine's less what accelerates the engine's inertia
    domega = np.gradient(r["car.engineSpeed"], h)
    clutch = t_e - dt["inertia"] * domega
    for side in ("left", "right"):
        drive = r[f"car.axle1.{side}.driveTorque"]
        # after the first 0.5 s (the shuffle of the launch), inside the central differences
        assert np.max(np.abs(drive[50:-1] / (clutch[50:-1] * eta / 2) - 1)) < 5e-4   # measured 1.3e-4
        assert np.all(r[f"car.axle2.{side}.driveTorque"] == 0.0)
    assert np.max(np.abs(r["car.Y"])) < 1e-9 and np.max(np.abs(r["car.yaw"])) < 1e-9
    front, rear = static_loads()
    h_cg = (MS * H + 2 * MU * loaded_radius(front) + 2 * MU * loaded_radius(rear)) / M
    u = r["car.u"]
    a = np.zeros_like(u)
    for _ in range(5):
        r_f = loaded_radius(front - M * a * h_cg / WB / 2)
        m_eff = (M + 2 * TIRE["spin_inertia"] / r_f ** 2 + 2 * TIRE["spin_inertia"] / loaded_radius(rear) ** 2
                 + dt["inertia"] * eta ** 2 / r_f ** 2)
        a = (t_e * eta / r_f - TIRE["rolling_resistance"]["sigma0"] * M * G - 0.5 * RHO * CDA * u ** 2) / m_eff
    band = slice(50, None)                        # after the first 0.5 s (slip and pitch settle)
    assert np.mean(r["car.ax"][band]) == pytest.approx(np.mean(a[band]), rel=0.015)    # measured -0.48 %
    assert np.max(np.abs(r["car.ax"][band] / a[band] - 1)) < 0.025                     # measured 0.8 %
