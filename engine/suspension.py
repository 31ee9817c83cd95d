"""Independent suspension: kinematics tables, spring-damper-friction force, stops, anti-sway
bar (Eq. 15-17, 61-63, 115-116).

Sign conventions. ``dz`` is the manual's wheel z-displacement from static equilibrium
(vehicle-fixed, down +, Eq. 17/62). The suspension *compression* (jounce, wheel up +) is
``-dz``. The suspension force ``Fs`` is the force that pushes wheel and body apart: it acts
on the wheel along +z (down) and on the sprung mass along -z at the wheel.
"""
from .jit import njit
from .layout import (T_CAM_X, T_CAM_Y, T_HT_X, T_HT_Y, W_BS0, W_BS1, W_BS2, W_BS3, W_C, W_FMU,
                     W_FS0, W_JCL, W_JER, W_JK1, W_JK3, W_K, W_NCAM, W_NHT, W_RCL, W_RER, W_RK1,
                     W_RK3, W_SIDE)
from .tables import value_slope1

#: velocity null band of the coulomb friction (m/s): below it the friction is proportional
FRICTION_NULL_BAND = 0.01


@njit
def half_track_change(P, T, w, jounce):
    """Eq. 16/61: lateral wheel offset (vehicle y, m) and its derivative d y / d jounce.

    The table gives the outward half-track change against jounce; outward is +y on the
    right, -y on the left.
    """
    side = P[w, W_SIDE]
    value, slope = value_slope1(T[w, T_HT_X], T[w, T_HT_Y], int(P[w, W_NHT]), jounce)
    return side * value, side * slope


@njit
def camber_change(P, T, w, jounce):
    """Camber change against jounce, as a rotation about the vehicle x-axis (rad), and its
    derivative. The table's camber is top-outward positive, i.e. +x rotation on the right."""
    side = P[w, W_SIDE]
    value, slope = value_slope1(T[w, T_CAM_X], T[w, T_CAM_Y], int(P[w, W_NCAM]), jounce)
    return side * value, side * slope


@njit
def bump_steer(P, w, dz):
    """Eq. 63 without the driver term: kappa0 + kappa1 dz + kappa2 dz^2 + kappa3 dz^3."""
    return P[w, W_BS0] + dz * (P[w, W_BS1] + dz * (P[w, W_BS2] + dz * P[w, W_BS3]))


#: the rate (m/s) at which a suspension stop recedes before it is on its unloading branch
#: (engine.suspension.stop_force): at rest on a stop, and within this of it, the stop is on its
#: loading branch from both sides, so that the step-size check's finite differences of a rate
#: (engine.stability.FD_STEP of a zero rate) do not straddle the switch and see it as a mode of
#: order (the force) / (the difference); ten times that difference
STOP_RECEDE = 1.0e-5


@njit
def stop_force(defl, rate, clearance, k1, k3, energy_ratio):
    """Eq. 116, force of a suspension stop for a travel ``defl`` towards it (m, + into the
    stop) and its rate. Zero until the clearance is used up; the energy ratio scales the
    force while the stop unloads (recedes faster than :data:`STOP_RECEDE`)."""
    d = defl - clearance
    if d <= 0.0:
        return 0.0
    f = k1 * d + k3 * d * d * d
    if rate < -STOP_RECEDE:
        f *= energy_ratio
    return f


@njit
def antisway_force(krs, track, jounce, jounce_partner, side):
    """Anti-sway bar force at one wheel (the K_rs term of Eq. 115).

    The axle's relative roll is phi = (jounce_left - jounce_right) / track; the bar stores
    K_rs phi^2 / 2, so the force on the wheel is dE/d(jounce) = +-K_rs phi / track: a roll
    moment of exactly K_rs phi about the axle. (Eq. 115 as printed, K_rs phi / r_s with
    r_s = track/2, would give 2 K_rs; see docs/equations.md.)
    """
    if side < 0.0:
        phi = (jounce - jounce_partner) / track
        return krs * phi / track
    phi = (jounce_partner - jounce) / track
    return -krs * phi / track


@njit
def suspension_force(P, w, jounce, jounce_rate, f_antisway):
    """Eq. 115 + 116: total force pushing wheel and body apart (N).

    Fs = Fs0 + K jounce + C jounce_rate + F_mu + F_antisway + F_stops, where Fs0 is the
    static-equilibrium preload (the manual measures deflection from equilibrium).
    """
    fmu = P[w, W_FMU]
    s = jounce_rate * (1.0 / FRICTION_NULL_BAND)   # (the reciprocal folded at compile time)
    if s > 1.0:
        s = 1.0
    elif s < -1.0:
        s = -1.0
    f = P[w, W_FS0] + P[w, W_K] * jounce + P[w, W_C] * jounce_rate + fmu * s + f_antisway
    f += stop_force(jounce, jounce_rate, P[w, W_JCL], P[w, W_JK1], P[w, W_JK3], P[w, W_JER])
    f -= stop_force(-jounce, -jounce_rate, P[w, W_RCL], P[w, W_RK1], P[w, W_RK3], P[w, W_RER])
    return f
