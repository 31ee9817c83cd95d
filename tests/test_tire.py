"""Tire formulas (Eq. 93-114) against points computed by hand from the reference sedan's data.

Hand calculation for a front tire at F_R = 3000 N (half-way between the 2000 and 4000 N test
loads): mu_p' = 0.985, mu_s' = 0.80, S_mu_p' = 0.15, C_alpha' = 60000 N/rad,
C_gamma' = 2250 N/rad, and

    a = 1.15 * 0.85^2                          = 0.830875        (Eq. 95)
    b = 0.85 * (0.8 * 2.15 - 0.985 * 1.3)      = 0.373575        (Eq. 96)
    c = (0.8 - 0.985) * 0.8                    = -0.148          (Eq. 97)
    B = (-b + sqrt(b^2 - 4ac)) / 2a            = 0.253380        (Eq. 98)
    A = 0.8 + B                                = 1.053380        (Eq. 99)
    C = 0.8 + 0.85 B                           = 1.015373        (Eq. 100)
    Cs = C^2 * 3000 * 0.85 / (4 * 0.15 * (C - 0.985)) = 144261 N  (Eq. 101)
"""
import math

import numpy as np
import pytest

import engine
from engine.params import pack
from engine.tire import (edc_forces, edc_slip, properties, radial_force, rolling_resistance,
                         slip_rates, slip_stiffness, static_deflection, tire_forces)

FZ = 3000.0
MUP, MUS, SP, CA, CG = 0.985, 0.80, 0.15, 60000.0, 2250.0


@pytest.fixture(scope="module")
def model():
    sim_event = engine.load_event()
    m, _ = pack(sim_event, 1.0, {"car": {"speed0": 0.0, "X0": 0.0, "Y0": 0.0, "yaw0": 0.0}})
    return m


def test_properties_interpolate_in_load(model):
    got = properties(model.P_TIRE, model.TT, 0, FZ, 25.0)
    assert got == pytest.approx((MUP, MUS, SP, CA, CG), rel=1e-12)
    # beyond the last test load the table is held constant
    assert properties(model.P_TIRE, model.TT, 2, 9000.0, 5.0)[3] == pytest.approx(100000.0)


def test_slip_stiffness_hand_point():
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    assert B == pytest.approx(0.253380, abs=2e-6)
    assert A == pytest.approx(1.053380, abs=2e-6)
    assert Cs == pytest.approx(144261.0, rel=1e-5)


def test_peak_of_mu_slip_curve_is_mu_p():
    """At S = S_mu_p the EDC force is exactly mu_p' F_z: the curve passes its test peak."""
    fx, fy, xsl = edc_forces(FZ, SP, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert fx == pytest.approx(MUP * FZ, rel=1e-9)
    assert fy == 0.0
    assert xsl == pytest.approx(0.059827, abs=1e-5)


def test_locked_wheel_gives_slide_friction():
    fx, fy, xsl = edc_forces(FZ, 1.0, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert fx == pytest.approx(MUS * FZ, rel=1e-12)
    assert xsl == 0.0


def test_small_slips_are_linear():
    """Full adhesion (X_s/L = 1): Eq. 105 and 106."""
    S = 0.002
    fx, _, xsl = edc_forces(FZ, S, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert xsl == 1.0
    assert fx == pytest.approx(144261.0 * S / (1 - S), rel=1e-5)
    a = 0.01
    _, fy, xsl = edc_forces(FZ, 0.0, math.sin(a), 0.0, MUP, MUS, SP, CA, 1.0)
    assert xsl == 1.0
    assert fy == pytest.approx(-CA * math.sin(a), rel=1e-12)   # Eq. 106: positive alpha, force left


def test_camber_thrust_towards_the_lean():
    g = 0.02
    _, fy, _ = edc_forces(FZ, 0.0, 0.0, CG * g, MUP, MUS, SP, CA, 1.0)
    assert fy == pytest.approx(CG * g, rel=1e-12)


def test_large_slip_angle_saturates_at_friction():
    """Sliding sideways at 90 degrees with a locked wheel: the force is mu_s F_z along the
    sliding direction (Eq. 109-110)."""
    fx, fy, _ = edc_forces(FZ, 1.0, 1.0, 0.0, MUP, MUS, SP, CA, 1.0)
    # mu = A - B*1 = mu_s, direction (S, sin a) / |.| = (1, 1)/sqrt 2
    assert math.hypot(fx, fy) == pytest.approx(MUS * FZ, rel=1e-9)
    assert fx == pytest.approx(-fy)


def test_friction_multiplier_scales_friction_not_stiffness():
    fx1, _, _ = edc_forces(FZ, 1.0, 0.0, 0.0, MUP, MUS, SP, CA, 0.3)
    assert fx1 == pytest.approx(0.3 * MUS * FZ, rel=1e-12)
    fx2, _, _ = edc_forces(FZ, 0.001, 0.0, 0.0, MUP, MUS, SP, CA, 0.3)
    fx3, _, _ = edc_forces(FZ, 0.001, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert fx2 == pytest.approx(fx3, rel=1e-12)


def test_radial_force_two_step(model):
    P = model.P_TIRE
    kt = 158294.0
    assert radial_force(0.02, True, P, 0) == pytest.approx(kt * 0.02)
    # beyond delta_2 = 0.05 m the secondary multiplier 3 applies (Eq. 93)
    assert radial_force(0.06, True, P, 0) == pytest.approx(kt * (3.0 * 0.01 + 0.05))
    assert radial_force(-0.01, True, P, 0) == 0.0
    assert static_deflection(kt * 0.08, kt, 3.0, 0.05) == pytest.approx(0.06)


def test_rolling_resistance_opposes_spin():
    r, fr = 0.33, 3000.0
    assert rolling_resistance(r, fr, 20.0, 60.0, 0.01, 0.0) == pytest.approx(-r * 0.01 * fr)
    assert rolling_resistance(r, fr, -20.0, -60.0, 0.01, 0.0) == pytest.approx(r * 0.01 * fr)
    assert rolling_resistance(r, fr, 0.0, 0.0, 0.01, 0.0) == 0.0


def test_transient_slip_settles_to_eq_94():
    """The slip states' steady state is the manual's slip: S = 1 - Omega r / u_GP."""
    u, omega, r = 20.0, 50.0, 0.33
    kx = (omega * r - u) / u            # steady state of sigma dkx/dt = -(u - Omega r) - |u| kx
    dkx, _, kx_eff, _, w = slip_rates(kx, 0.0, u, 0.0, omega, r, 0.2, 0.4)
    assert dkx == pytest.approx(0.0, abs=1e-12) and w == 0.0
    assert edc_slip(kx_eff, u) == pytest.approx(1 - omega * r / u)
    # driving: the slip referred to the wheel speed, (Omega r - u)/(Omega r), inside [0, 1)
    assert edc_slip(0.25, 20.0) == pytest.approx(0.25 / 1.25)
    # lateral: ky settles to sin(alpha)
    v = 2.0
    ky = v / math.hypot(u, v)
    assert slip_rates(0.0, ky, u, v, u / r, r, 0.2, 0.4)[1] == pytest.approx(0.0, abs=1e-12)


def test_tire_forces_signs():
    """Braking slip gives a rearward force, drive slip a forward one, in the tire frame."""
    fx_b, _, S, _ = tire_forces(FZ, -0.05, 0.0, 0.0, 20.0, 0.0, MUP, MUS, SP, CA, CG, 1.0)
    fx_d, _, _, _ = tire_forces(FZ, 0.05, 0.0, 0.0, 20.0, 0.0, MUP, MUS, SP, CA, CG, 1.0)
    assert fx_b < 0 < fx_d and S == pytest.approx(0.05)
    assert np.isfinite([fx_b, fx_d]).all()
