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


@njit
def table_torque(method, value, mu_p, f_r, r_tire, n):
    """Eq. 49 (Braking Force, % Available Friction) and Eq. 52 (Tractive Effort, % Available
    Friction): the attempted wheel torque magnitude set directly from the table value.

    TABLE_FORCE: T = F_Wheel max(r_Tire) over the wheel's n tires (the largest radius of a
    dual pair); TABLE_FRICTION: T = theta_Wheel sum_i mu_P,i F_R,i r_Tire,i over i = 1..n
    (printed i = 0..N in Eq. 49, a typo: Eq. 52 and the N tires sum from 1). ``mu_p``,
    ``f_r``, ``r_tire`` hold the tires' peak friction (with the road's multiplier), radial
    load (N) and current radius (m)."""
    if method == TABLE_FORCE:
        r_max = 0.0
        for i in range(n):
            r_max = max(r_max, r_tire[i])
        return value * r_max
    t = 0.0
    for i in range(n):
        t += mu_p[i] * f_r[i] * r_tire[i]
    return value * t


@njit
def table_ground_force(method, value, mu_p, f_r, n):
    """The longitudinal ground force magnitude (N) the table prescribes at a wheel with the
    spin degree of freedom bypassed: the torque of ``table_torque`` over the tire radius,
    limited by the available friction sum_i mu_P,i F_R,i (no more can reach the ground).
    TABLE_FORCE gives min(F_Wheel, sum mu_P F_R), TABLE_FRICTION theta sum mu_P F_R."""
    avail = 0.0
    for i in range(n):
        avail += mu_p[i] * f_r[i]
    if method == TABLE_FORCE:
        return min(value, avail)
    return value * avail
