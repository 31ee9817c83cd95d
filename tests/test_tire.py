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
from engine.setup.params import pack
from engine.tire import (TAU_DAMP, V_N, carcass, edc_forces, edc_slip, kinematic_slips,
                         properties, radial_force, rolling_resistance, slip_stiffness,
                         static_deflection, tire_forces)

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


def test_sliding_friction_is_mu_s_in_any_direction():
    """Eq. 102 with the resultant sliding slip S_r = sqrt(S^2 cos^2 a + sin^2 a): a locked
    wheel slides at mu_s whatever its slip angle, along the sliding velocity (cos a, sin a)
    (Eq. 109-110)."""
    for a in (0.0, 0.3, math.pi / 4, 1.2):
        fx, fy, xsl = edc_forces(FZ, 1.0, math.sin(a), 0.0, MUP, MUS, SP, CA, 1.0)
        assert xsl == 0.0
        assert math.hypot(fx, fy) == pytest.approx(MUS * FZ, rel=1e-12)
        assert math.atan2(-fy, fx) == pytest.approx(a, abs=1e-12)


def test_broadside_free_rolling_wheel_slides_at_mu_s():
    """S = 0, alpha = 90 deg: mu = A - B * 1 = mu_s (the printed A - B S gave A = 1.053).
    With the adhesion region of Eq. 104, X_s/L = mu_s F_z / (2 C_alpha), Eq. 108 + 110 give
    |F_y| = mu_s F_z (1 - X_s/L / 2): the hand value 0.8 * 3000 * (1 - 0.01) = 2376 N."""
    fx, fy, xsl = edc_forces(FZ, 0.0, 1.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert xsl == pytest.approx(MUS * FZ / (2 * CA), rel=1e-12)
    assert fx == 0.0
    assert -fy == pytest.approx(MUS * FZ * (1 - xsl / 2), rel=1e-12)
    assert -fy == pytest.approx(2376.0, rel=1e-12)


def test_pure_longitudinal_slip_keeps_the_printed_eq_102():
    """alpha = 0: S_r = S, and the force at S = 0.5 is the hand value (A - B/2) F_z
    (all sliding: X_s/L = mu F_z (1 - S) / (2 C_s S) < 1)."""
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    S = 0.5
    fx, _, xsl = edc_forces(FZ, S, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    mu = A - B * S
    x = mu * FZ * (1 - S) / (2 * Cs * S)
    assert xsl == pytest.approx(x, rel=1e-12)
    assert fx == pytest.approx(Cs * S * (mu * FZ / (2 * Cs * S)) ** 2 * (1 - S) + mu * FZ * (1 - x),
                               rel=1e-12)


def test_friction_multiplier_scales_friction_not_stiffness():
    fx1, _, _ = edc_forces(FZ, 1.0, 0.0, 0.0, MUP, MUS, SP, CA, 0.3)
    assert fx1 == pytest.approx(0.3 * MUS * FZ, rel=1e-12)
    fx2, _, _ = edc_forces(FZ, 0.001, 0.0, 0.0, MUP, MUS, SP, CA, 0.3)
    fx3, _, _ = edc_forces(FZ, 0.001, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    assert fx2 == pytest.approx(fx3, rel=1e-12)


def test_radial_force_two_step(model):
    P = model.P_TIRE
    kt = 158294.0
    # loading (the deflection at its turning point, or a fresh tire)
    assert radial_force(0.02, 0.02, P, 0) == pytest.approx(kt * 0.02)
    # beyond delta_2 = 0.05 m the secondary multiplier 3 applies (Eq. 93)
    assert radial_force(0.06, 0.0, P, 0) == pytest.approx(kt * (3.0 * 0.01 + 0.05))
    assert radial_force(-0.01, 0.0, P, 0) == 0.0
    # the sedan's lambda = 1: unloading from 0.08 m follows the loading curve
    assert radial_force(0.06, 0.08, P, 0) == radial_force(0.06, 0.0, P, 0)
    assert static_deflection(kt * 0.08, kt, 3.0, 0.05) == pytest.approx(0.06)


def test_rolling_resistance_opposes_spin():
    r, fr = 0.33, 3000.0
    assert rolling_resistance(r, fr, 20.0, 60.0, 0.01, 0.0) == pytest.approx(-r * 0.01 * fr)
    assert rolling_resistance(r, fr, -20.0, -60.0, 0.01, 0.0) == pytest.approx(r * 0.01 * fr)
    assert rolling_resistance(r, fr, 0.0, 0.0, 0.01, 0.0) == 0.0


def _forces(kx, ky, u, v, omega, r=0.33, gamma=0.0, rlx=0.2, rly=0.4):
    """tire_forces at the hand-calculation tire for a contact patch moving at (u, v)."""
    kin, v_ref, sa, V_ref, w = kinematic_slips(u, v, omega, r)
    return tire_forces(FZ, kx, ky, kin, v_ref, sa, V_ref, w, u, gamma, MUP, MUS, SP, CA, CG, 1.0,
                       rlx, rly)


def test_transient_slip_settles_to_eq_94():
    """The kinematic slip is the manual's S = 1 - Omega r / u_GP, and the carcass state's
    steady state gives the EDC force at that slip (Eq. 94-112)."""
    u, omega, r = 20.0, 50.0, 0.33
    kin, v_ref, sa, V_ref, w = kinematic_slips(u, 0.0, omega, r)
    assert -kin == pytest.approx(1 - omega * r / u) and v_ref == u and w == 0.0
    assert sa == 0.0 and V_ref == u
    # driving: the slip referred to the wheel speed, (Omega r - u)/(Omega r), inside [0, 1)
    assert edc_slip(0.25, 20.0) == pytest.approx(0.25 / 1.25)
    # steady state of the carcass: dkx/dt = 0 at C_s kx = G kin, the EDC force
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    fxm, _, _ = edc_forces(FZ, -kin, 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
    G = fxm / abs(kin)
    dkx, fx = carcass(G * kin / Cs, v_ref, G * kin, G, Cs, w, 0.2)
    assert dkx == pytest.approx(0.0, abs=1e-12) and fx == pytest.approx(-fxm, rel=1e-12)


def test_lateral_carcass_settles_to_the_steady_state_force():
    """At a steady slip angle (with camber thrust and a braking slip) the lateral carcass at
    k_y = -F_y'/C_alpha' is at rest, and its force is the EDC force at the kinematic slips."""
    u, v, omega, r, g = 20.0, 1.5, 20.0 * 0.97 / 0.33, 0.33, 0.03
    V = math.hypot(u, v)
    S = 1 - omega * r / u
    fxm, fy, _ = edc_forces(FZ, S, v / V, CG * g, MUP, MUS, SP, CA, 1.0)
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    kx = -fxm / Cs
    fx_t, fy_t, dkx, dky, S_t, _ = _forces(kx, -fy / CA, u, v, omega, r, g)
    assert S_t == pytest.approx(S, rel=1e-12)
    assert dky == pytest.approx(0.0, abs=1e-12) and dkx == pytest.approx(0.0, abs=1e-9)
    assert fy_t == pytest.approx(fy, rel=1e-12) and fx_t == pytest.approx(-fxm, rel=1e-9)


def test_lateral_carcass_is_the_classic_relaxation_in_the_linear_range():
    """Small slip angle, rolling: sigma_y dk_y/dt = v_GP - |V_GP| k_y, F_y' = -C_alpha' k_y."""
    u, v, ky = 20.0, 0.05, 0.001
    _, fy, _, dky, _, _ = _forces(0.0, ky, u, v, u / 0.33)
    assert dky * 0.4 == pytest.approx(v - math.hypot(u, v) * ky, rel=1e-4)
    assert fy == pytest.approx(-CA * ky, rel=1e-12)


def test_carcass_is_a_spring_at_standstill():
    """At rest (u_GP = 0, Omega = 0) the contact patch sticks: the deflection sigma kx follows
    the wheel's displacement (dkx/dt = -v_sx / sigma) and the force is C_s kx plus the
    low-speed damping C_s tau dkx/dt. The same holds sideways, with C_alpha'."""
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    kx, sigma, vsx = 0.01, 0.2, 1e-4
    G = Cs                                       # the secant at vanishing slip
    kin = -vsx / V_N
    dkx, fx = carcass(kx, V_N, G * kin, G, Cs, 1.0, sigma)
    assert dkx == pytest.approx(-(Cs * kx * V_N + Cs * vsx) / (Cs * TAU_DAMP * V_N + Cs * sigma), rel=1e-12)
    assert dkx * sigma == pytest.approx(-vsx, rel=0.01, abs=V_N * kx * 1.01)
    assert fx == pytest.approx(Cs * (kx + TAU_DAMP * dkx), rel=1e-12)
    # sideways: the wheel moves right at 1e-5 m/s on a carcass deflected right by 4 mm
    ky, v = 0.004 / 0.4, 1e-5
    _, fy, _, dky, _, _ = _forces(0.0, ky, 0.0, v, 0.0)
    w = kinematic_slips(0.0, v, 0.0, 0.33)[4]
    assert dky * 0.4 == pytest.approx(v, rel=0.01, abs=V_N * ky * 1.01)
    assert fy == pytest.approx(-CA * (ky + TAU_DAMP * w * dky), rel=1e-12)
    assert abs(fy) == pytest.approx(CA / 0.4 * 0.004, rel=0.03)   # F = k rho, k = C_alpha / sigma


def test_a_sliding_tire_holds_only_the_deflection_of_its_friction_force():
    """Locked (kin = -1) at 1 m/s: the secant G = mu_s F_z makes the deflection settle at
    mu_s F_z / C_s * sigma (a few mm), not at one relaxation length."""
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    G = MUS * FZ
    kx = -G / Cs
    dkx, fx = carcass(kx, 1.0, -G, G, Cs, 0.0, 0.2)
    assert dkx == pytest.approx(0.0, abs=1e-9) and fx == pytest.approx(-MUS * FZ, rel=1e-12)
    assert abs(kx) * 0.2 < 0.004


def test_a_tire_sliding_sideways_holds_only_the_deflection_of_its_friction_force():
    """Broadside at 3 m/s (alpha = 90 deg, free rolling): the lateral deflection settles where
    C_alpha' k_y is the sliding force mu_s F_z (1 - X_s/L / 2) (2376 N, Eq. 104, 108, 110):
    sigma_y k_y = 2376 / (60000 / 0.4) = 15.8 mm, not sigma_y = 0.4 m. Started at one
    relaxation length (the transient slip of a slide), the deflection falls to it in
    milliseconds, and at that deflection the force is the sliding force."""
    f_slide = MUS * FZ * (1 - MUS * FZ / (4 * CA))
    ky = f_slide / CA
    _, fy, _, dky, _, _ = _forces(0.0, ky, 0.0, 3.0, 0.0)
    # (the longitudinal slip is the floor K_EPS, so S_r and X_s/L differ from 1 by 1e-6)
    assert dky == pytest.approx(0.0, abs=1e-6) and -fy == pytest.approx(f_slide, rel=1e-5)
    assert ky * 0.4 == pytest.approx(0.0158, abs=1e-4)
    _, fy, _, dky, _, _ = _forces(0.0, 1.0, 0.0, 3.0, 0.0)
    assert dky < 0 and -(1.0 - ky) / dky < 0.01          # relaxes within 10 ms


def test_tire_forces_signs():
    """Braking slip gives a rearward force, drive slip a forward one, in the tire frame; a
    contact patch moving right (positive slip angle) a force to the left."""
    A, B, Cs = slip_stiffness(FZ, MUP, MUS, SP)
    for kin, sign in ((-0.05, -1.0), (0.05, 1.0)):
        fxm, _, _ = edc_forces(FZ, edc_slip(kin, 20.0), 0.0, 0.0, MUP, MUS, SP, CA, 1.0)
        kx = fxm / abs(kin) * kin / Cs             # the carcass at its steady state
        fx, fy, dkx, dky, S, _ = _forces(kx, 0.0, 20.0, 0.0, 20.0 * (1 + kin) / 0.33)
        assert fx * sign > 0 and dkx == pytest.approx(0.0, abs=1e-6)
        assert fx == pytest.approx(sign * fxm, rel=1e-6)
        assert fy == 0.0 and dky == 0.0
    _, fy, _, dky, _, _ = _forces(0.0, 0.0, 20.0, 1.0, 20.0 / 0.33)
    assert dky > 0
    _, fy, _, _, _, _ = _forces(0.0, 0.01, 20.0, 1.0, 20.0 / 0.33)
    assert fy < 0
