"""Brakes, At Pedal option (Eq. 47-48) with a per-wheel pressure factor for an ABS, the
pressure's lag behind the pedal, and brake designs with lining friction and fade (after the
HVE Brake Designer).

* **Pressure lag.** The pressure the pedal builds at a wheel, p, follows its target p* (the
  pedal's pressure after proportioning, Eq. 48) as a first-order lag, dp/dt = (p* - p) /
  tau_p (tau_p: ``brakes.pressure_time_constant`` of the unit; 0 gives the manual's instant
  pressure). The ABS factor acts on it at once: the wheel cylinder sees factor * p (an ABS
  valve's own timing belongs to the ABS model).
* **Generic brake.** Eq. 47 with the axle's fixed torque ratio.
* **Designed brake** (``axles[].brake_design``). The torque ratio follows from the design
  and the lining's state: T_ratio = A C*(mu_L) r_e, with A the actuator (wheel-cylinder or
  caliper piston) area, C* the brake factor of the shoe or pad arrangement (the drum's or
  disc's friction force per actuating force, a function of the lining friction: 2 mu_L for
  a disc with two pads, a rising curve for a drum's self-energising shoes), r_e the
  effective radius. The lining friction mu_L = mu(T) f(v_s) depends on the lining
  temperature T and the sliding speed v_s = |Omega| r_e. The drum or disc and its linings
  are one thermal mass: C dT/dt = |T_b Omega| - (h_0 + h_1 V)(T - T_air), the braking power
  in, the convective cooling out, rising with the vehicle speed V.
"""
from .jit import njit, njit_inline
from .layout import (B_AREA, B_COOL0, B_COOL1, B_HEAT, B_NBF, B_NMU, B_NSPEED, B_RADIUS,
                     TB_BF_X, TB_BF_Y, TB_MU_X, TB_MU_Y, TB_SP_X, TB_SP_Y)
from .tables import interp1


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


@njit_inline
def pressure_rate(p, target, tau):
    """dp/dt of the wheel-cylinder pressure lagging its target with time constant tau > 0."""
    return (target - p) / tau


@njit_inline
def lining_friction(P_BRAKE, T_BRAKE, b, temperature, omega):
    """mu_L = mu(T) f(v_s) of design b at lining temperature T (K) and wheel spin omega."""
    mu = interp1(T_BRAKE[b, TB_MU_X], T_BRAKE[b, TB_MU_Y], int(P_BRAKE[b, B_NMU]), temperature)
    n_speed = int(P_BRAKE[b, B_NSPEED])
    if n_speed > 0:
        v_s = abs(omega) * P_BRAKE[b, B_RADIUS]
        mu *= interp1(T_BRAKE[b, TB_SP_X], T_BRAKE[b, TB_SP_Y], n_speed, v_s)
    return mu


@njit_inline
def design_torque_ratio(P_BRAKE, T_BRAKE, b, temperature, omega):
    """T_ratio = A C*(mu_L) r_e of design b (module docstring), N m/Pa."""
    mu = lining_friction(P_BRAKE, T_BRAKE, b, temperature, omega)
    c_star = interp1(T_BRAKE[b, TB_BF_X], T_BRAKE[b, TB_BF_Y], int(P_BRAKE[b, B_NBF]), mu)
    return P_BRAKE[b, B_AREA] * c_star * P_BRAKE[b, B_RADIUS]


@njit_inline
def temperature_rate(P_BRAKE, b, temperature, power, speed, air_temperature):
    """dT/dt = (P - (h_0 + h_1 V)(T - T_air)) / C of design b, with the braking power P >= 0."""
    cooling = P_BRAKE[b, B_COOL0] + P_BRAKE[b, B_COOL1] * speed
    return (power - cooling * (temperature - air_temperature)) / P_BRAKE[b, B_HEAT]



#: the wheel-table methods of Eq. 49 (brakes) and Eq. 52 (drive): a force at the ground per
#: wheel (Braking Force, Tractive Effort) or a fraction of the available friction
TABLE_FORCE = 1
TABLE_FRICTION = 2
#: ground speed (m/s) over which a table's braking force is ramped in from zero at standstill
V_TABLE = 0.1


@njit
def table_force(method, value, n_tires, available):
    """Eq. 49 and 52 at one tire: the longitudinal ground force (magnitude, N) a table asks of
    it, with the spin degree of freedom bypassed (the torque over the tire radius).

    TABLE_FORCE (Braking Force, Tractive Effort): the wheel's force F_Wheel shared by its
    n_tires, at most the tire's available friction ``available`` = mu_P F_R; TABLE_FRICTION (%
    Available Friction): theta_Wheel mu_P F_R. 0 for any other method (the table is unused)."""
    if method == TABLE_FORCE:
        return min(value / n_tires, available)
    if method == TABLE_FRICTION:
        return value * available
    return 0.0


@njit
def table_tire_forces(f_brake, f_drive, m_roll, r, u_gp, available, fy):
    """Tire-frame (Fx', Fy') of a tire of a unit with a table option: the wheel in quasi-static
    spin equilibrium, Fx' r = T_d - T_b + M_RR (Eq. 49, 52 and 114 without spin inertia), the
    braking force opposing the ground speed u_gp (ramped in over V_TABLE), Fx' limited by the
    available friction and Fy' to the rest of the friction circle."""
    s = min(1.0, max(-1.0, u_gp / V_TABLE))
    fx = f_drive - f_brake * s + m_roll / r
    fx = min(available, max(-available, fx))
    fy_max = (max(available * available - fx * fx, 0.0)) ** 0.5
    return fx, min(fy_max, max(-fy_max, fy))
