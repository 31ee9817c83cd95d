"""Drivetrain, % WOT option: engine speed, engine torque and wheel drive torque
(Eq. 32, 50, 51), and its extension to low speed: idle governor and clutch.

The manual makes the engine speed follow the driven wheels (Eq. 50). A drivetrain with an
idle speed (``drivetrain.idle_speed`` of the event) has instead an engine of its own:

* the engine speed omega_e is a state, I_e d(omega_e)/dt = T_e - T_c, with T_e of Eq. 51 and
  T_c the clutch torque (I_e: the drivetrain inertia of the event);
* an idle governor (proportional-integral) opens the throttle when the engine is below idle:
  lambda_gov = K_p e + lambda_i, d(lambda_i)/dt = e / T_i, e = (omega_idle - omega_e) /
  omega_idle, both clamped to 0..1; the engine runs at the larger of the driver's throttle
  and lambda_gov;
* the clutch is an automatic launch clutch. Its capacity is C_max max(x, s(omega_e)): s is
  the launch curve, 0 up to the engine speed omega_0, 1 from omega_1, linear between, and x
  the engagement of its actuator (a state), which closes the clutch (x -> 1) with the time
  constant tau_c while the clutch is locked and the transmission input turns at least at
  idle, and opens it (x -> 0) otherwise. It is locked while the torque that keeps its two
  sides turning together is within the capacity (stiction, as the brake's), and slips with
  the full capacity otherwise. So, launching, the engine revs to where its torque meets the
  launch capacity, the clutch locks once the speeds match and then closes; stopping in gear,
  it opens and slips once holding would pull the engine below idle (the governor holds the
  engine there).

The transmission input speed is omega_t = N_t N_d (the mean driven-wheel spin) (Eq. 50 read as
a speed of the transmission side); the clutch torque reaches each driven wheel as
T_c N_t N_d zeta (Eq. 32). N_t is the ratio of the gear the input ``gear`` selects, N_d that of
the differential gear the input ``differentialGear`` selects from the unit's differential gear
table (a two-speed axle; one entry for a single ``differential_ratio``).
"""
import math

from .jit import njit, njit_inline
from .layout import (EM_CT_X, EM_CT_Y, EM_WOT_X, EM_WOT_Y, IU_DIFF_GEAR, IU_GEAR, N_PT_STATE,
                     N_WHEEL_STATE, PT_ENGAGE, PT_GOV, PT_OMEGA, U_CL_CAP, U_CL_TAU, U_CL_W0,
                     U_CL_W1, U_GOV_KP, U_GOV_TI, U_IDLE, U_N_DRIVEN, U_NWHEELS, U_WHEEL0,
                     W_DRIVEN, WOMEGA, state_bases)
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
def differential_ratio(P_DIFF, u, k):
    """Numerical ratio of differential gear ``k`` (1 .. the unit's number, the input
    ``differentialGear``): eta_Differential of Eq. 32 and 50. 0 for a gear the unit does not
    have (a unit without a drivetrain; the input's range keeps a driven unit's in its table)."""
    if k < 1 or k > P_DIFF.shape[1]:
        return 0.0
    return P_DIFF[u, k - 1]


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


@njit_inline
def governor_throttle(P_UNIT, u, omega_e, integral):
    """The idle governor's throttle lambda_gov = clamp(K_p e + clamp(lambda_i)) and its
    error e = (omega_idle - omega_e) / omega_idle (module docstring)."""
    e = (P_UNIT[u, U_IDLE] - omega_e) / P_UNIT[u, U_IDLE]
    li = min(1.0, max(0.0, integral))
    return min(1.0, max(0.0, P_UNIT[u, U_GOV_KP] * e + li)), e


@njit_inline
def governor_rate(P_UNIT, u, e, integral):
    """d(lambda_i)/dt = e / T_i, held where the integral is at a limit and e pushes it on
    (anti-windup)."""
    if (integral >= 1.0 and e > 0.0) or (integral <= 0.0 and e < 0.0):
        return 0.0
    return e / P_UNIT[u, U_GOV_TI]


@njit_inline
def clutch_capacity(P_UNIT, u, omega_e, engagement):
    """Torque the clutch can carry: C_max max(x, s(omega_e)), s the launch curve (module
    docstring)."""
    w0, w1 = P_UNIT[u, U_CL_W0], P_UNIT[u, U_CL_W1]
    s = min(1.0, max(0.0, (omega_e - w0) / (w1 - w0)))
    return P_UNIT[u, U_CL_CAP] * max(min(1.0, max(0.0, engagement)), s)


@njit_inline
def engagement_rate(P_UNIT, u, engagement, locked, omega_t):
    """dx/dt of the clutch actuator: towards 1 while locked with the transmission input at or
    above idle, towards 0 otherwise, with the time constant tau_c."""
    target = 1.0 if locked and omega_t >= P_UNIT[u, U_IDLE] else 0.0
    return (target - engagement) / P_UNIT[u, U_CL_TAU]


@njit_inline
def clutch_torque(capacity, t_engine, i_engine, omega_e, omega_t, a_t, b_t, tau):
    """Clutch torque T_c, engine side + (Coulomb friction with stiction, as the brake's).

    The transmission side accelerates as d(omega_t)/dt = a_t + b_t T_c (the driven wheels'
    other torques and inertias, reflected), the engine as (t_engine - T_c) / i_engine. While
    the clutch can hold, it carries the torque that brings the slip omega_e - omega_t to zero
    with time constant tau; otherwise it slips with its full capacity."""
    slip = omega_e - omega_t
    need = (t_engine / i_engine - a_t + slip / tau) / (1.0 / i_engine + b_t)
    if need > capacity:
        return capacity
    if need < -capacity:
        return -capacity
    return need


@njit
def engage_clutches(y, U, P):
    """At the start, an engine in gear turns with its wheels: its clutch starts locked and
    closed where the transmission turns faster than idle (the governor then closed), so that a
    vehicle started at speed in gear does not first spin its engine up from idle; omega_t as in
    Eq. 50, for the gear and differential gear inputs the run starts with. Called once, before
    the first step (``engine.Simulation``, the native FMU). Returns 0."""
    wb, _, _, _, pb, _ = state_bases(P)
    PU = P.P_UNIT
    for u in range(PU.shape[0]):
        if PU[u, U_IDLE] <= 0.0 or PU[u, U_N_DRIVEN] <= 0.0:
            continue
        ratio = gear_ratio(P.P_GEAR, u, int(round(U.u_unit[u, IU_GEAR]))) * \
            differential_ratio(P.P_DIFF, u, int(round(U.u_unit[u, IU_DIFF_GEAR])))
        w0, n = int(PU[u, U_WHEEL0]), int(PU[u, U_NWHEELS])
        spin = 0.0
        for w in range(w0, w0 + n):
            if P.P_WHEEL[w, W_DRIVEN] > 0.5:
                spin += y[wb + N_WHEEL_STATE * w + WOMEGA]
        omega_t = ratio * spin / PU[u, U_N_DRIVEN]
        po = pb + N_PT_STATE * u
        if omega_t > PU[u, U_IDLE]:
            y[po + PT_OMEGA] = omega_t
            y[po + PT_GOV] = 0.0
            y[po + PT_ENGAGE] = 1.0
    return 0
