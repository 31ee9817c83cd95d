"""Steering system: the steer degree of freedom of the manual (Eq. 33-39) and its modes.

The linkage is rigid: every steered wheel of a unit turns about its steer axis (the vehicle
z-line through the wheel centre: no caster, kingpin inclination or kingpin offset, the manual's
simplification) by delta = theta / eta with theta the steering-wheel angle and eta its axle's
gear ratio (each steered axle's own ``steering_gear_ratio``, by default the unit's
``steering.gear_ratio``), plus the wheel's bump or roll steer. With the manual's At Axle option
(``steering.input`` "at_axle") each steered wheel's delta is instead its own input
``steerAngle`` (:func:`driver_steer`); that option takes the mode ``off`` only, and its
steering-wheel angle is 0. The one equation of
motion, at the road wheel (Eq. 33-34), is

    I_Steering d2(delta)/dt2 = sum M_Stop + sum M_Axis + eta M_Column + sum M_Tire + eta T_driver

with the stops of each steered wheel (Eq. 35), the steer-axis friction of each (Eq. 36), the
column friction referred to the steer axis (Eq. 37, a torque at the column times eta), the
tire moments (Eq. 38, ``engine.vehicle``) and, in the mode ``torque``, the driver's torque at
the steering wheel. The states are theta and its rate (``engine.layout``: SSA, SSR).

Modes (codes 1..5, as the FMU's enumeration ``<unit>.steeringMode``):

* ``off``: rigid; the road-wheel angle is the steering-wheel input over eta (today's model);
* ``normal``: hands off: the system moves under the tire and stop moments and its friction;
* ``append``: the driver's angle plus the steer-DOF angle, which moves hands off about it;
* ``autostart``: rigid until the unit's first collision contact (as the manual's AutoStart),
  or ``simulation.steer_dof_start_time`` if the event gives one and it comes first, then hands
  off;
* ``torque``: the input ``steeringWheelTorque`` drives the system, which integrates its angle.

In every mode the road-wheel angle stays within the stops: a rigid steering's input is
clamped there, and a free one presses into them with K_Stop while each wheel's kinematic
angle is held at its stop. See docs/equations.md (Steering system).
"""
from .jit import njit
from .layout import (CS_CONTACT, E_COLL_BASE, E_STEER_T0, IU_STEER, IW_STEER, N_COLL_UNIT_STATE, SSA,
                     U_STEER_INPUT, U_STEER_MODE, U_STEER_TRAVEL, U_STOP_LEFT, U_STOP_RIGHT,
                     W_STEER_RATIO)

#: the modes, in the order of their codes 1, 2, ... (event ``steering.mode``)
MODES = ("off", "normal", "append", "autostart", "torque")
STEER_OFF, STEER_NORMAL, STEER_APPEND, STEER_AUTOSTART, STEER_TORQUE = range(1, len(MODES) + 1)
#: the steer table options (event ``steering.input``), codes 0, 1 (``U_STEER_INPUT``)
INPUTS = ("at_steering_wheel", "at_axle")
AT_STEERING_WHEEL, AT_AXLE = range(len(INPUTS))


@njit
def null_band(rate, band):
    """The direction of a coulomb friction with its null band (Eq. 36-37): rate / band inside
    the band, sgn(rate) outside it."""
    s = rate / band
    if s > 1.0:
        return 1.0
    if s < -1.0:
        return -1.0
    return s


@njit
def stop_moment(delta, rate, stop_left, stop_right, k_stop, c_stop):
    """Eq. 35: the moment of a wheel's steering stops about its steer axis (right +) at its
    steer angle ``delta`` and rate ``rate`` (right +): K_Stop times the angle past the stop,
    with the stop's damping c_stop, pushing back and never pulling; zero between the stops.

    The printed form acts only while the wheel moves into the stop, so that the stop takes
    the impact's energy (no rebound); as printed it cannot hold a steady moment (none at zero
    rate). Here a critically damped stop (``engine.setup.pack.steering.stop_damping``)
    does both.
    """
    if delta > stop_right:
        m = -k_stop * (delta - stop_right) - c_stop * rate
        return m if m < 0.0 else 0.0
    if delta < -stop_left:
        m = k_stop * (-stop_left - delta) - c_stop * rate
        return m if m > 0.0 else 0.0
    return 0.0


@njit
def friction_moment(wheel_rate, mu_axis, mu_column, ratio, band):
    """Eq. 36 and 37 at the steer axis, opposing the road-wheel rate ``wheel_rate``:
    the steer-axis friction of all the steered wheels (``mu_axis``, their sum) with the null
    band on the wheel rate, and the column friction ``mu_column`` with the null band on the
    column's own rate eta delta', referred to the steer axis by eta."""
    return (-mu_axis * null_band(wheel_rate, band)
            - ratio * mu_column * null_band(ratio * wheel_rate, band))


@njit
def clamp(x, lo, hi):
    """x limited to [lo, hi]."""
    return lo if x < lo else hi if x > hi else x


@njit
def steering_wheel_angle(y, P, u_unit, u, clock, so):
    """Unit u's steering-wheel angle (rad) and whether its steering is free: the steering
    state (plus the driver's angle in ``append``) while free (:func:`is_free`; its first
    collision contact read from the collision block), else the driver's angle held within the
    stops. ``so``: its steering states' offset in y; ``clock``: the time of the step."""
    PU, PE = P.P_UNIT, P.P_ENV
    mode = int(PU[u, U_STEER_MODE])
    contact = y[int(PE[E_COLL_BASE]) + N_COLL_UNIT_STATE * u + CS_CONTACT] > 0.5
    if is_free(mode, clock, PE[E_STEER_T0], contact):
        theta = y[so + SSA]
        if mode == STEER_APPEND:
            theta += u_unit[u, IU_STEER]
        return theta, True
    if PU[u, U_STEER_INPUT] == AT_AXLE:
        return 0.0, False                # no steering wheel: the wheels take their own inputs
    eta = PU[u, U_STEER_TRAVEL]          # the steered axle that reaches its stops last
    return clamp(u_unit[u, IU_STEER], -eta * PU[u, U_STOP_LEFT], eta * PU[u, U_STOP_RIGHT]), False


@njit
def driver_steer(P, u_wheel, u, w, theta):
    """The steer angle the driver gives wheel w of unit u (rad, right +), before its bump or
    roll steer, its stops and its damage set: with the option At Axle its input ``steerAngle``,
    else the steering-wheel angle ``theta`` over its axle's gear ratio (the manual's At
    Steering Wheel). Counts on a steered wheel only (the caller multiplies by W_STEERED)."""
    if P.P_UNIT[u, U_STEER_INPUT] == AT_AXLE:
        return u_wheel[w, IW_STEER]
    return theta / P.P_WHEEL[w, W_STEER_RATIO]


@njit
def is_free(mode, time, start_time, contact):
    """Whether the steering moves on its own in ``mode`` at ``time`` (autostart: from the
    unit's first collision contact, ``contact`` true once it has touched anything, or from
    ``start_time`` on, whichever comes first; inf: at the contact only)."""
    if mode == STEER_OFF:
        return False
    if mode == STEER_AUTOSTART:
        return contact or time >= start_time
    return True
