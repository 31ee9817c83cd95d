"""Formula-level tests of the subsystems, against hand calculations from the manual's equations."""
import math

import numpy as np
import pytest

import engine
from engine.aerodynamics import air_density, relative_wind, surface_constant
from engine.brakes import brake_torque_capacity, system_pressure, wheel_pressure
from engine.drivetrain import engine_torque, gear_ratio
from engine.kinematics import euler_rates, euler_trig, rotation_vehicle_to_earth, to_earth
from engine.setup.params import pack
from engine.suspension import antisway_force, stop_force
from engine.wheel_spin import brake_torque, spin_accelerations


@pytest.fixture(scope="module")
def model():
    m, _ = pack(engine.load_event(), 1.0, {"car": {"speed0": 0.0, "X0": 0.0, "Y0": 0.0, "yaw0": 0.0}})
    return m


def test_rotation_places_a_point_ahead_of_a_yawed_car():
    """Eq. 57: a point 1 m ahead of a car yawed 90 deg (facing +Y) is at earth +Y."""
    R = np.empty((3, 3))
    rotation_vehicle_to_earth(*euler_trig(0.0, 0.0, math.pi / 2), R)
    assert np.allclose(to_earth(R, 1.0, 0.0, 0.0), (0.0, 1.0, 0.0), atol=1e-12)
    rotation_vehicle_to_earth(*euler_trig(0.3, -0.2, 1.1), R)
    assert np.allclose(R @ R.T, np.eye(3), atol=1e-12)
    # gravity in the vehicle frame is (-sin theta, sin phi cos theta, cos phi cos theta) g (Eq. 4-6)
    th, ph = -0.2, 0.3
    assert np.allclose(R.T @ [0, 0, 1.0], [-math.sin(th), math.sin(ph) * math.cos(th), math.cos(ph) * math.cos(th)])


def test_euler_rates():
    """Eq. 54-56 at a level attitude: the rates are the body rates."""
    def rates(phi, th, p, q, r):
        cf, sf, ct, st, _, _ = euler_trig(phi, th, 0.0)
        return euler_rates(cf, sf, ct, st, p, q, r)

    assert rates(0.0, 0.0, 0.1, 0.2, 0.3) == pytest.approx((0.1, 0.2, 0.3))
    phi, th = 0.2, 0.1
    assert rates(phi, th, 0.0, 0.0, 1.0)[2] == pytest.approx(math.cos(phi) / math.cos(th))
    assert rates(phi, th, 0.0, 0.0, 1.0)[0] == pytest.approx(math.cos(phi) * math.tan(th))


def test_aero_drag_and_crosswind():
    rho = air_density(101325.0, 288.15)
    assert rho == pytest.approx(1.2250, abs=1e-4)
    assert surface_constant(0.3, 2.1, rho) == pytest.approx(0.5 * 0.3 * 2.1 * rho)
    R = np.eye(3)
    # driving at 20 m/s in still air: relative wind -20 m/s along x
    assert relative_wind(R, 20.0, 0.0, 0.0, 0.0, 0.0) == pytest.approx((-20.0, 0.0, 0.0))
    # wind from earth +Y (direction 90 deg) blows towards -Y
    w = relative_wind(R, 0.0, 0.0, 0.0, 10.0, math.pi / 2)
    assert w == pytest.approx((0.0, -10.0, 0.0), abs=1e-12)


def test_brake_pressure_and_torque():
    """Eq. 48 and 47 with the sedan's brake data."""
    p = system_pressure(200.0, 20000.0)                  # 4 MPa at the master cylinder
    assert p == 4.0e6
    assert wheel_pressure(p, False, 3e6, 0.3, 1.0) == 4.0e6
    assert wheel_pressure(p, True, 3e6, 0.3, 1.0) == pytest.approx(3e6 + 0.3 * 1e6)
    assert wheel_pressure(p, True, 3e6, 0.3, 0.5) == pytest.approx(0.5 * 3.3e6)
    assert brake_torque_capacity(3.3e6, 1.5e-4, 5e4) == pytest.approx(1.5e-4 * (3.3e6 - 5e4))
    assert brake_torque_capacity(4e4, 1.5e-4, 5e4) == 0.0


def test_brake_stick_slip():
    # slipping: full capacity against the spin
    assert brake_torque(100.0, 0.0, 50.0, 1.7) == -100.0
    # holding: exactly cancels the other torques at zero spin
    assert brake_torque(100.0, 30.0, 0.0, 1.7) == pytest.approx(-30.0)


def test_engine_torque(model):
    """Eq. 51 at 3000 rpm: T_CT = -15 - 30 * 2000/5500, T_WOT = 225 N m."""
    om = 3000.0 / 60.0 * 2.0 * math.pi
    ct = -(15.0 + 30.0 * 2000.0 / 5500.0)
    assert engine_torque(model.P_ENG, model.N_ENG, 0, om, 0.0) == pytest.approx(ct)
    assert engine_torque(model.P_ENG, model.N_ENG, 0, om, 1.0) == pytest.approx(225.0)
    assert engine_torque(model.P_ENG, model.N_ENG, 0, om, 0.4) == pytest.approx(ct + 0.4 * (225.0 - ct))
    # fuel cut above the map, drag vanishing at standstill
    assert engine_torque(model.P_ENG, model.N_ENG, 0, 7000 / 60 * 2 * math.pi, 1.0) < 0
    assert engine_torque(model.P_ENG, model.N_ENG, 0, 0.0, 0.0) == 0.0
    assert gear_ratio(model.P_GEAR, 0, 2) == 2.0
    assert gear_ratio(model.P_GEAR, 0, -1) == -3.67
    assert gear_ratio(model.P_GEAR, 0, 0) == 0.0


def test_differential_coupling_is_the_inverse_of_eq_27_28():
    """Eq. 27-28: [[I_R + A, A], [A, I_L + A]] dOmega = T; the closed form must invert it."""
    I_r, I_l, A = 1.7, 2.1, 10.0
    T = np.array([120.0, -40.0])
    out = np.empty(2)
    spin_accelerations(T, np.array([I_r, I_l]), np.array([1.0, 1.0]), A, 2, out)
    M = np.array([[I_r + A, A], [A, I_l + A]])
    assert out == pytest.approx(np.linalg.solve(M, T), rel=1e-12)
    # an undriven wheel is on its own
    spin_accelerations(T, np.array([I_r, I_l]), np.array([0.0, 0.0]), A, 2, out)
    assert out == pytest.approx(T / [I_r, I_l])


def test_suspension_stops_and_antisway_bar():
    # Eq. 116: 0.02 m into a stop with K1 = 1e5, K3 = 1e7
    f = 1e5 * 0.02 + 1e7 * 0.02 ** 3
    assert stop_force(0.10, 0.1, 0.08, 1e5, 1e7, 0.3) == pytest.approx(f)
    assert stop_force(0.10, -0.1, 0.08, 1e5, 1e7, 0.3) == pytest.approx(0.3 * f)
    assert stop_force(0.05, 0.1, 0.08, 1e5, 1e7, 0.3) == 0.0
    # anti-sway bar: roll moment K_rs * phi for relative roll phi
    krs, t = 20000.0, 1.3868
    jl, jr = 0.01, -0.01
    fl = antisway_force(krs, t, jl, jr, -1.0)
    fr = antisway_force(krs, t, jr, jl, 1.0)
    phi = (jl - jr) / t
    assert (fl - fr) * t / 2 == pytest.approx(krs * phi)
    assert fl == pytest.approx(-fr)


def test_static_preloads_two_axles():
    """Two axles: the spring preloads are statically determinate (the lever rule on the sprung
    weight), whatever the spring rates."""
    import copy

    from engine.setup.equilibrium import static_state
    from engine.setup.model import typed_event
    data = copy.deepcopy(engine.load_event().data)
    unit = data["units"][0]
    a, b = unit["axles"][0]["x"], -unit["axles"][1]["x"]
    W = unit["sprung_mass"]["mass"] * data["environment"]["gravity"]
    for rate in (1.0, 3.0):
        unit["axles"][0]["suspension"]["spring_rate"] *= rate
        f = static_state(typed_event(data))[0][0].fs0
        assert f[0] == pytest.approx(W * b / (a + b) / 2, rel=1e-12)
        assert f[2] == pytest.approx(W * a / (a + b) / 2, rel=1e-12)
