"""Brakes, At Pedal option (Eq. 47-48) with a per-wheel pressure factor for an ABS."""
from .jit import njit


@njit
def system_pressure(pedal_force, pedal_ratio):
    """p_Table = F_Table * R: pressure at the master cylinder (Pa)."""
    return pedal_force * pedal_ratio


@njit
def wheel_pressure(p_source, proportioned, p_start, ratio, factor):
    """Eq. 48, pressure at the wheel cylinder after the proportioning valve, times the ABS
    pressure factor (0..1)."""
    p = p_source
    if proportioned and p_source > p_start:
        p = p_start + ratio * (p_source - p_start)
    return p * factor


@njit
def brake_torque_capacity(p, torque_ratio, pushout):
    """Eq. 47, attempted brake torque T_b = T_ratio (p - p0), zero below the pushout pressure."""
    if p <= pushout:
        return 0.0
    return torque_ratio * (p - pushout)
