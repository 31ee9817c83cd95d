"""Drivetrain, % WOT option: engine speed, engine torque and wheel drive torque
(Eq. 32, 50, 51)."""
import math

from .jit import njit, njit_inline
from .layout import EM_CT_X, EM_CT_Y, EM_WOT_X, EM_WOT_Y
from .tables import interp1

RPM = 60.0 / (2.0 * math.pi)
#: engine speed (rad/s) over which closed-throttle drag is ramped in from zero
OMEGA_DRAG = 10.0


@njit
def gear_ratio(P_GEAR, u, gear):
    """Numerical transmission ratio of ``gear`` (negative for reverse, 0 for neutral)."""
    if gear == 0:
        return 0.0
    if gear < 0:
        return -P_GEAR[u, 0]
    return P_GEAR[u, gear]


@njit
def engine_speed(ratio_total, omega_sum, n_driven):
    """Eq. 50: engine speed (rad/s) from the mean driven-wheel spin."""
    return ratio_total * omega_sum / n_driven


@njit_inline
def engine_torque(P_ENG, N_ENG, u, omega_e, throttle):
    """Eq. 51: T_e = T_CT + lambda (T_WOT - T_CT) at engine speed omega_e (rad/s).

    Closed-throttle torque is engine drag: it opposes the engine's rotation and fades to zero
    at standstill. Above the last speed of the WOT map the fuel is cut (T_WOT = T_CT).
    """
    rpm = omega_e * RPM
    arpm = abs(rpm)
    nct = N_ENG[u, 1]
    nwot = N_ENG[u, 0]
    ct = interp1(P_ENG[u, EM_CT_X], P_ENG[u, EM_CT_Y], nct, arpm)
    s = omega_e / OMEGA_DRAG
    if s > 1.0:
        s = 1.0
    elif s < -1.0:
        s = -1.0
    t_ct = abs(ct) * (-s)
    if rpm > P_ENG[u, EM_WOT_X, nwot - 1]:
        t_wot = t_ct
    else:
        t_wot = interp1(P_ENG[u, EM_WOT_X], P_ENG[u, EM_WOT_Y], nwot, rpm)
    return t_ct + throttle * (t_wot - t_ct)
