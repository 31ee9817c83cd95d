"""Eq. 49 and 52 at one tire (engine.brakes.table_force, table_tire_forces), against
hand-computed values."""
import pytest

from engine.brakes import TABLE_FORCE, TABLE_FRICTION, V_TABLE, table_force, table_tire_forces


def test_a_force_table_shares_the_wheel_force_and_is_limited_by_friction():
    assert table_force(TABLE_FORCE, 2000.0, 2.0, 5000.0) == 1000.0       # a dual pair
    assert table_force(TABLE_FORCE, 9000.0, 1.0, 0.85 * 4200.0) == pytest.approx(0.85 * 4200.0)


def test_a_friction_table_is_theta_mu_fr():
    assert table_force(TABLE_FRICTION, 0.5, 1.0, 0.85 * 4200.0) == pytest.approx(0.5 * 0.85 * 4200.0)
    assert table_force(0, 0.5, 1.0, 1000.0) == 0.0                      # not a table


def test_quasi_static_spin_balances_the_torques():
    """Fx r = T_d - T_b + M_RR; braking opposes the ground speed, ramped in at standstill."""
    fx, fy = table_tire_forces(1000.0, 300.0, -0.01 * 4000.0 * 0.3, 0.3, 20.0, 3600.0, 500.0)
    assert fx == pytest.approx(300.0 - 1000.0 - 0.01 * 4000.0) and fy == 500.0
    fx, _ = table_tire_forces(1000.0, 0.0, 0.0, 0.3, -0.5 * V_TABLE, 3600.0, 0.0)
    assert fx == pytest.approx(500.0)


def test_the_lateral_force_keeps_to_the_friction_circle():
    fx, fy = table_tire_forces(3000.0, 0.0, 0.0, 0.3, 20.0, 5000.0, 6000.0)
    assert fx == -3000.0 and fy == pytest.approx(4000.0)
