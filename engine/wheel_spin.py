"""Wheel spin degree of freedom with drivetrain inertia and differential coupling
(Eq. 27-32), and the brake's stick-slip torque.

Each wheel obeys  I_w dOmega/dt = T_d + T_b - F_x' r + M_rolling  (Eq. 27-28), and the
driven wheels of a unit share the drivetrain inertia through the engine speed of Eq. 50:
the mass matrix is M = diag(I_w) + c 1 1^T over the N driven wheels with
c = I_drivetrain (eta_trans eta_diff / N)^2 (for N = 2 this is the A of Eq. 27-30).
It is inverted in closed form (Sherman-Morrison), which for two wheels is the corrected
form of Eq. 29-30.
"""
from .jit import njit, njit_inline

#: time constant (s) with which a brake that can hold the wheel brings its spin to zero
TAU_BRAKE = 0.01


@njit
def brake_torque(t_capacity, t_other, omega, inertia):
    """Brake torque on a wheel: Coulomb friction with stiction.

    While the brake can hold the wheel (|t_other + c omega| <= capacity) it supplies exactly
    the torque that stops it with time constant TAU_BRAKE; otherwise it slips and gives its
    full capacity against the spin. ``t_other`` is the sum of the other torques on the wheel.
    """
    need = -(t_other + inertia * (1.0 / TAU_BRAKE) * omega)   # (the reciprocal folded)
    if need > t_capacity:
        return t_capacity
    if need < -t_capacity:
        return -t_capacity
    return need


@njit_inline
def spin_accelerations(torque, inertia, driven, c, n, out):
    """Solve M dOmega/dt = torque for the n wheels of one unit (Eq. 27-30).

    torque, inertia, driven: the unit's per-wheel arrays; c: drivetrain coupling
    I_drivetrain (eta / N)^2 (0 in neutral). Writes dOmega/dt into out[:n].
    """
    s_t = 0.0
    s_1 = 0.0
    for k in range(n):
        per = 1.0 / inertia[k]      # once per wheel, kept in out[k] until the last loop
        out[k] = per
        if driven[k] > 0.5:
            s_t += torque[k] * per
            s_1 += per
    corr = c * s_t / (1.0 + c * s_1)
    for k in range(n):
        out[k] = ((torque[k] - corr) if driven[k] > 0.5 else torque[k]) * out[k]
