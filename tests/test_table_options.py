"""Eq. 49 and 52, the manual's Braking Force / Tractive Effort and % Available Friction
wheel tables (engine.brakes.table_torque, table_ground_force), against hand-computed values."""
import numpy as np
import pytest

from engine.brakes import TABLE_FORCE, TABLE_FRICTION, table_ground_force, table_torque


def test_force_table_uses_the_largest_tire_radius():
    r = np.array([0.30, 0.32])
    t = table_torque(TABLE_FORCE, 2000.0, np.ones(2), np.ones(2), r, 2)
    assert t == pytest.approx(2000.0 * 0.32, rel=1e-15)


def test_friction_table_sums_mu_fz_r_over_the_tires():
    mu, fr, r = np.array([0.9, 0.8]), np.array([4000.0, 3500.0]), np.array([0.31, 0.30])
    t = table_torque(TABLE_FRICTION, 0.5, mu, fr, r, 2)
    assert t == pytest.approx(0.5 * (0.9 * 4000.0 * 0.31 + 0.8 * 3500.0 * 0.30), rel=1e-15)


def test_ground_force_half_friction_is_half_mu_fz():
    mu, fr = np.array([0.85]), np.array([4200.0])
    f = table_ground_force(TABLE_FRICTION, 0.5, mu, fr, 1)
    assert f == pytest.approx(0.5 * 0.85 * 4200.0, rel=1e-15)


def test_force_table_is_limited_by_the_available_friction():
    mu, fr = np.array([0.85]), np.array([4200.0])
    assert table_ground_force(TABLE_FORCE, 1000.0, mu, fr, 1) == 1000.0
    assert table_ground_force(TABLE_FORCE, 9000.0, mu, fr, 1) == pytest.approx(0.85 * 4200.0)
