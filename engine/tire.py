"""Tire: contact geometry, radial force, the EDC semi-empirical model, rolling resistance.

Sign conventions (SAE J670, tire frame x' forward in the road plane, y' right, z' down the
road normal): Fx' is the ground force on the tire along x' (forward +), Fy' along y'.
The manual's Eq. 105-112 give the longitudinal force as a braking force for S > 0; here it
is returned as a magnitude and the caller gives it the direction of the slip.

Transient slip. Eq. 94 (S = 1 - Omega r / u_GP) is singular at u_GP = 0. Each tire carries
two first-order states, the carcass deflections of a real tire (rho_x, rho_y) divided by the
relaxation lengths (so that they read as transient slips: kx drive +, ky as sin(alpha)). Each
is a spring (C_s / sigma_x, C_alpha / sigma_y), damped at low speed, whose force equals the
steady-state (EDC) force linearised by its secant G at the kinematic slip: the carcass and
the contact patch in series. Solving that equality for the deflection rate gives the one law
of :func:`carcass`

    dk/dt = v (F_ss - C k) / max(C tau w v + G sigma, C v TAU_MIN)

with F_ss the EDC force at the kinematic slips (in the sign of k), v the reference speed.
In the linear range (G = C) this is the usual sigma dk/dt = v_slip - v k; at steady state the
force is exactly the EDC force of the manual's slips. When the tire slides the secant is
small, the deflection cannot grow beyond the one that carries the friction force, and a tire
that stops while sliding (locked, or sideways) stands on a carcass deflected by what carries
that force (a few millimetres longitudinally, about two centimetres laterally at full
friction), not one relaxation length: it springs back by that much and holds.

See docs/equations.md.
"""
import math

from .jit import njit, njit_inline
from .layout import (PROPS_PARTIAL, T_D2, T_KBAR, T_KT, T_LAMBDA, T_LOAD0, T_NLOAD, T_NSPEED,
                     T_PROPS, T_SPEED0, TP_CA, TP_CG, TP_MUP, TP_MUS, TP_SP)
from .tables import bracket

#: below this contact-patch speed (m/s) the slip states get extra damping (standstill)
V_LOW = 1.5
#: time constant of that damping, s
TAU_DAMP = 0.02
#: contact-patch speed (m/s) below which the kinematic slip is referred to V_N (Eq. 94 floor)
V_N = 0.01
#: shortest time constant (s) of the longitudinal carcass deflection (a sliding tire)
TAU_MIN = 1.0e-3
#: kinematic slip below which the secant stiffness is taken at this slip (its limit C_s)
K_EPS = 1.0e-6
#: spin speed (rad/s) below which the rolling-resistance moment is ramped to zero (Eq. 114)
OMEGA_RR = 1.0
#: the physical limits of the properties the method of partial derivatives gives
#: (:func:`partial_properties`): the least friction coefficient (peak and slide; at zero
#: friction Eq. 101 divides zero by zero), and the range of the slip at peak friction (Eq. 95
#: and 101 need 0 < S_mu_p < 1)
MU_MIN = 1.0e-3
SP_MIN, SP_MAX = 1.0e-3, 0.999


@njit
def loading_force(defl, P, t):
    """Eq. 93 with xi = 1: the 2-step radial force of a tire loaded to deflection ``defl``."""
    if defl <= 0.0:
        return 0.0
    kt = P[t, T_KT]
    d2 = P[t, T_D2]
    if defl < d2:
        return kt * defl
    return kt * (P[t, T_KBAR] * (defl - d2) + d2)


@njit
def radial_force(defl, turn, P, t):
    """Eq. 93, radial tire force for radial deflection ``defl``, with the rebound multiplier
    lambda as a hysteresis loop whose memory is the turning point ``turn`` (the deflection at
    which the tire last stopped loading, a state: :func:`turning_point_rate`).

    At or beyond the turning point the tire is on its loading curve (Eq. 93 with xi = 1).
    Below it the tire unloads, and reloads, on the loading curve compressed towards the
    turning point by lambda: F = F_load((defl - d0) / lambda), zero at the permanent set
    d0 = (1 - lambda) turn. The force is continuous in the deflection, the unloading returns
    lambda of the energy stored, and lambda = 1 is the loading curve itself (docs/equations.md:
    the manual's xi = lambda on a non-growing deflection cannot hold a static load).
    """
    if defl <= 0.0:
        return 0.0
    if defl >= turn:
        return loading_force(defl, P, t)
    lam = P[t, T_LAMBDA]
    d0 = (1.0 - lam) * turn
    if defl <= d0:
        return 0.0
    return loading_force((defl - d0) / lam, P, t)


@njit
def turning_point_rate(defl, rate, turn, lam):
    """Rate of the turning point of the radial-force loop (Eq. 93, :func:`radial_force`).

    ``rate`` is the deflection rate d(defl)/dt. On the loading curve (defl >= turn) the
    turning point follows a growing deflection; on the unloading branch it holds; below the
    permanent set (the tire carries no force: it has left the ground) the set recovers with
    the deflection, d0 = (1 - lambda) turn following defl down, so the tire is unset when it
    is in the air and the force stays continuous (zero) meanwhile.
    """
    if defl >= turn:
        return rate if rate > 0.0 else 0.0
    if rate < 0.0 and lam < 1.0 and defl <= (1.0 - lam) * turn:
        return rate / (1.0 - lam)
    return 0.0


def static_deflection(load, kt, kbar, d2):
    """Inverse of Eq. 93 (loading branch): the deflection that carries ``load``."""
    if load <= kt * d2:
        return load / kt
    return d2 + (load / kt - d2) / kbar


@njit
def contact(cx, cy, cz, ax, ay, az, px, py, pz, nx, ny, nz):
    """Tire-ground contact on the terrain's local plane (Eq. 79-92).

    Wheel centre (cx, cy, cz) and axle unit vector a (wheel-plane normal, Eq. 79), both
    earth-fixed; the terrain under the wheel centre is the plane through the point
    (px, py, pz) with the unit normal n pointing down (Eq. 80; (0, 0, 1) on level ground; the
    point (cx, cy, Z of the road under the centre) for the road under the centre, another of
    the plane for the tread's envelope, ``engine.envelope``). Returns the distance D from the
    wheel centre to the contact point (Eq. 90), the unit vector d from the centre to the
    contact point (in the wheel plane, Eq. 85-89: the wheel-plane direction closest to n), and
    the inclination angle Gamma of the wheel plane to the terrain normal (Eq. 81-82; positive
    with the top of the wheel to the right of the tire's heading), and 1 / (d . n), the rate
    of D per unit approach of the centre to the plane along n (0 for a wheel lying flat).

    For the unit vectors n and a, d . n = (n - (n.a) a) . n / |n - (n.a) a| = |n - (n.a) a|
    = |n x a| = cos(Gamma): 1 / (d . n) is the reciprocal the normalisation of d divides by,
    and :func:`tire_axes` normalises x' by the same length.
    """
    na = nx * ax + ny * ay + nz * az
    # d = n - (n.a) a: the direction in the wheel plane closest to the downward normal
    dx = nx - na * ax
    dy = ny - na * ay
    dz = nz - na * az
    nd = math.sqrt(dx * dx + dy * dy + dz * dz)
    if nd < 1e-9:  # wheel lying flat on the terrain: no contact possible
        return 1e9, nx, ny, nz, 0.5 * math.pi, 0.0
    per_dn = 1.0 / nd      # = 1 / (d . n), one division for the three components
    dx *= per_dn
    dy *= per_dn
    dz *= per_dn
    # the line c + D d meets the plane n.(P - p) = 0
    D = ((px - cx) * nx + (py - cy) * ny + (pz - cz) * nz) * per_dn
    gamma = math.asin(min(1.0, max(-1.0, na)))  # = pi/2 - acos(U_T . U_w)
    return D, dx, dy, dz, gamma, per_dn


@njit
def tire_axes(ax, ay, az, nx, ny, nz, per_m):
    """Tire frame in the terrain plane: x' = n_up x a, y' = n_down x x' (Eq. 71-78), earth
    components (x'x, x'y, x'z, y'x, y'y, y'z). ``per_m``: 1 / |n x a| when the caller knows it
    (:func:`contact`'s 1 / (d . n)), else 0."""
    # n_up = -n: x' = -n x a
    xx = -(ny * az - nz * ay)
    xy = -(nz * ax - nx * az)
    xz = -(nx * ay - ny * ax)
    inv = per_m
    if inv <= 0.0:
        m = math.sqrt(xx * xx + xy * xy + xz * xz)
        if m < 1e-12:
            # the wheel lies flat: any heading in the plane
            xx, xy, xz = nz, 0.0, -nx
            m = math.sqrt(xx * xx + xz * xz)
            if m < 1e-12:
                xx, xy, xz, m = 0.0, nz, -ny, math.sqrt(nz * nz + ny * ny)
        inv = 1.0 / m      # one division for the three components
    xx *= inv
    xy *= inv
    xz *= inv
    # y' = n x x'
    return xx, xy, xz, ny * xz - nz * xy, nz * xx - nx * xz, nx * xy - ny * xx


@njit_inline
def properties(P, TT, t, load, speed):
    """Effective mu_p', mu_s', S_mu_p', C_alpha', C_gamma' at (F_R, u_GP), by linear
    interpolation in the test loads and speeds (the table look-up after Eq. 94), or by the
    method of partial derivatives for a tire that asks for it (:func:`partial_properties`)."""
    if P[t, T_PROPS] == PROPS_PARTIAL:
        return partial_properties(P, TT, t, load, speed)
    nl = int(P[t, T_NLOAD])
    ns = int(P[t, T_NSPEED])
    il, fl = bracket(P[t, T_LOAD0:T_LOAD0 + 3], nl, load)
    iv, fv = bracket(P[t, T_SPEED0:T_SPEED0 + 3], ns, abs(speed))
    il1 = il + 1 if nl > 1 else il
    iv1 = iv + 1 if ns > 1 else iv
    w00 = (1.0 - fl) * (1.0 - fv)
    w01 = (1.0 - fl) * fv
    w10 = fl * (1.0 - fv)
    w11 = fl * fv

    def blend(k):
        return (w00 * TT[t, k, il, iv] + w01 * TT[t, k, il, iv1]
                + w10 * TT[t, k, il1, iv] + w11 * TT[t, k, il1, iv1])

    return blend(TP_MUP), blend(TP_MUS), blend(TP_SP), blend(TP_CA), blend(TP_CG)


@njit_inline
def partial_properties(P, TT, t, load, speed):
    """mu_p', mu_s', S_mu_p', C_alpha', C_gamma' at (F_R, u_GP) by the method of partial
    derivatives of the HSRI and EDVDS tire models, which the manual's table look-up replaced
    (after Eq. 112): each property p = p_0 + dp/dF_z (F_R - F_z0) + dp/dV (|u_GP| - V_0), its
    value p_0 at the reference load F_z0 (``T_LOAD0``) and speed V_0 (``T_SPEED0``) in
    ``TT[t, p, 0, 0]``, its derivatives in ``TT[t, p, 1, 0]`` and ``TT[t, p, 0, 1]``.

    The form extrapolates without bound, where a table holds its end values; it is clamped to
    the properties' physical limits only: frictions at least :data:`MU_MIN`, the slide
    friction at most the peak friction (the mu-slip curve of Eq. 95-100 peaks at S_mu_p),
    S_mu_p within [:data:`SP_MIN`, :data:`SP_MAX`], stiffnesses not negative
    (docs/equations.md, "Tire properties by partial derivatives")."""
    dl = load - P[t, T_LOAD0]
    dv = abs(speed) - P[t, T_SPEED0]

    def linear(k):
        return TT[t, k, 0, 0] + TT[t, k, 1, 0] * dl + TT[t, k, 0, 1] * dv

    mup = max(linear(TP_MUP), MU_MIN)
    mus = min(max(linear(TP_MUS), MU_MIN), mup)
    sp = min(max(linear(TP_SP), SP_MIN), SP_MAX)
    return mup, mus, sp, max(linear(TP_CA), 0.0), max(linear(TP_CG), 0.0)


@njit
def slip_stiffness(Fz, mup, mus, sp):
    """Eq. 95-101: the mu-slip curve coefficients A, B and the longitudinal slip stiffness Cs."""
    a = (1.0 + sp) * (1.0 - sp) ** 2                                  # Eq. 95
    b = (1.0 - sp) * (mus * (sp + 2.0) - mup * (2.0 * sp + 1.0))      # Eq. 96
    c = (mus - mup) * mus                                             # Eq. 97
    per_2a = 0.5 / a          # (its division alongside the square root, not after it)
    B = (math.sqrt(max(b * b - 4.0 * a * c, 0.0)) - b) * per_2a       # Eq. 98
    A = mus + B                                                       # Eq. 99
    C = mus + B * (1.0 - sp)                                          # Eq. 100
    cm = max(C - mup, 1e-3 * mup)  # mu_s = mu_p makes Eq. 101 singular
    Cs = C * C * Fz * (1.0 - sp) / (4.0 * sp * cm)                    # Eq. 101
    return A, B, Cs


@njit_inline
def edc_forces(Fz, S, sin_a, Ky_camber, mup, mus, sp, ca, fmult):
    """EDC semi-empirical tire model, Eq. 102-113.

    Fz: radial load (N); S: longitudinal slip in [0, 1] (|S| of the manual); sin_a: sine of
    the slip angle; Ky_camber: camber thrust stiffness term C_gamma' * Gamma (N);
    mup, mus, sp, ca: the effective tire properties (tire-test values); fmult: road friction
    multiplier, applied to the friction (mu), not to the tire's elastic stiffnesses.
    Returns (|Fx'| as a magnitude in the slip direction, Fy' (signed, y' right), X_s/L).

    Eq. 102 and the sliding direction of Eq. 109-110 use the resultant sliding slip
    S_r = |v_sliding| / |V_GP| = sqrt(S^2 cos^2(alpha) + sin^2(alpha)) (S of Eq. 94 is
    referred to u_GP = |V_GP| cos(alpha)): mu = A - B S_r is mu_s at full slide in any
    direction and is the printed A - B S for pure longitudinal slip. Camber thrust acts in the
    adhesion region only: it does not turn the sliding direction (docs/equations.md).
    """
    if Fz <= 0.0:
        return 0.0, 0.0, 1.0
    A, B, Cs = slip_stiffness(Fz, mup, mus, sp)
    return edc_core(Fz, S, sin_a, Ky_camber, A, B, Cs, ca, fmult)


@njit_inline
def edc_core(Fz, S, sin_a, Ky_camber, A, B, Cs, ca, fmult):
    """:func:`edc_forces` for given mu-slip coefficients A, B and slip stiffness Cs."""
    if Fz <= 0.0:
        return 0.0, 0.0, 1.0
    s2 = sin_a * sin_a
    sx = S * math.sqrt(max(1.0 - s2, 0.0))            # longitudinal sliding slip, over |V_GP|
    ns = math.sqrt(sx * sx + s2)                      # resultant sliding slip S_r
    mu = (A - B * min(ns, 1.0)) * fmult               # Eq. 102 with S_r
    if mu < 0.0:
        mu = 0.0
    Kx = Cs * S
    Ky = ca * sin_a - Ky_camber
    Dt = math.sqrt(Kx * Kx + Ky * Ky)                                 # Eq. 103
    oms = 1.0 - S
    if Dt < 1e-9:
        return 0.0, 0.0, 1.0
    half = mu * Fz / (2.0 * Dt)          # shared by Eq. 104 and Eq. 107-108
    xsl = half * oms                                                  # Eq. 104
    if xsl >= 1.0:
        inv = 1.0 / oms
        return Kx * inv, -Ky * inv, 1.0                               # Eq. 105-106
    fac = half * half * oms
    fxa = Kx * fac                                                    # Eq. 107
    fya = -Ky * fac                                                   # Eq. 108
    slide = mu * Fz * (1.0 - xsl)
    if ns > 1e-12:
        per = slide / ns
        fxs = per * sx                                                # Eq. 109
        fys = -per * sin_a                                            # Eq. 110
    else:
        fxs = 0.0
        fys = -slide * Ky / Dt
    return fxa + fxs, fya + fys, xsl                                  # Eq. 111-112


@njit
def skid_flag(Fz, xsl, fz_min, tau):
    """Eq. 113: the tire is skidding when loaded and its adhesion region is small."""
    return 1.0 if (Fz > fz_min and xsl < tau) else 0.0


@njit
def rolling_resistance(r, FR, u_gp, omega, sig0, sigv):
    """Eq. 114, rolling-resistance moment on the wheel, ramped to zero below OMEGA_RR."""
    s = omega / OMEGA_RR
    if s > 1.0:
        s = 1.0
    elif s < -1.0:
        s = -1.0
    return -r * (sig0 * FR + sigv * abs(u_gp)) * s


@njit
def kinematic_slips(u_gp, v_gp, omega, r):
    """Kinematic slips of the contact patch (Eq. 94 and the slip angle), floored at V_N.

    Returns (kin, v_ref, sa, V_ref, w): kin = -(u_GP - Omega r) / v_ref, the manual's slip as a
    transient-slip value (Omega r / u_GP - 1 while |u_GP| >= V_N), v_ref = max(|u_GP|, V_N);
    sa = v_GP / V_ref, the sine of the slip angle, V_ref = max(|V_GP|, V_N); w in [0, 1], the
    low-speed weight (1 at standstill, 0 from V_LOW up).
    """
    v_ref = max(abs(u_gp), V_N)
    V = math.sqrt(u_gp * u_gp + v_gp * v_gp)
    V_ref = max(V, V_N)
    w = 1.0 - V * (1.0 / V_LOW)     # (the reciprocal of the constant folded at compile time)
    if w < 0.0:
        w = 0.0
    return -(u_gp - omega * r) / v_ref, v_ref, v_gp / V_ref, V_ref, w


@njit
def edc_slip(kx_eff, u_gp):
    """Manual slip S in [0, 1] for the EDC model from the transient slip kx (drive +).

    Braking (wheel slower than the road): S = -kx, which is Eq. 94 at steady state.
    Driving: S = kx / (1 + kx), the slip referred to the wheel's own speed (Omega r - u) /
    (Omega r), the manual's "|S|" extension for drive torque kept inside [0, 1).
    """
    s = abs(kx_eff)
    if kx_eff * u_gp < 0.0:
        return min(s, 1.0)
    return s / (1.0 + s)


@njit
def carcass(k, v_ref, f_ss, G, C, w_low, rl):
    """Rate of a carcass state k (deflection over relaxation length rl) and its force.

    The carcass is a spring C / rl on the deflection rl k, with the low-speed damping
    C TAU_DAMP w_low; its force C (k + TAU_DAMP w_low dk/dt) equals the steady-state force at
    the contact-patch slip, linearised by the secant G: G (kin - rl dk/dt / v_ref), where
    G kin = f_ss is the steady-state force at the kinematic slip kin (in the sign of k).
    Solved for dk/dt:

        dk/dt = v_ref (f_ss - C k) / max(C TAU_DAMP w_low v_ref + G rl, C v_ref TAU_MIN)

    (the floor keeps a sliding tire's deflection from relaxing faster than TAU_MIN).
    Returns (dk/dt, carcass force in the sign of k).
    """
    d = C * TAU_DAMP * w_low
    den = d * v_ref + G * rl
    floor = C * v_ref * TAU_MIN
    if den < floor:
        den = floor
    dk = v_ref * (f_ss - C * k) / den
    return dk, C * k + d * dk


@njit_inline
def tire_forces(Fz, kx, ky, kin, v_ref, sa, V_ref, w_low, u_gp, gamma, mup, mus, sp, ca, cg,
                fmult, rlx, rly):
    """Tire-frame forces (Fx', Fy'), the rates of the carcass states kx and ky, the manual
    slip S of the kinematic slip and X_s/L.

    The EDC model (Eq. 94-112) is evaluated once, at the kinematic slips (kin, sa); its Fx'
    and Fy' are the steady-state forces that the two carcass deflections carry at steady
    state (:func:`carcass`), whose forces are the tire's. The longitudinal secant is
    F_x' / kin, the lateral F_y' over the kinematic lateral slip with the camber thrust's
    equivalent slip, -F_y' / (sa - C_gamma' Gamma / C_alpha'): the slip at which the
    adhesion term K_y of Eq. 103 is C_alpha' times it.
    """
    k = kin
    if abs(k) < K_EPS:
        k = K_EPS if k >= 0.0 else -K_EPS
    S = edc_slip(k, u_gp)
    sa = min(1.0, max(-1.0, sa))
    if Fz <= 0.0:      # unloaded: the carcass relaxes
        return 0.0, 0.0, -kx * v_ref / rlx, -ky * V_ref / rly, S, 1.0
    # camber thrust needs a rolling tire: faded out with the low-speed weight
    kyc = cg * gamma * (1.0 - w_low)
    A, B, Cs = slip_stiffness(Fz, mup, mus, sp)
    fxm, fy, xsl = edc_core(Fz, S, sa, kyc, A, B, Cs, ca, fmult)
    gx = fxm * (1.0 / abs(k))      # (the division alongside the EDC's, not after it)
    dkx, fx = carcass(kx, v_ref, gx * kin, gx, Cs, w_low, rlx)
    cy = ca if ca > 0.0 else Cs      # a carcass needs a stiffness; F_ss is unchanged
    se = sa - kyc / cy
    fy_se = fy
    if abs(se) < K_EPS:
        # the secant at its limit, as the longitudinal one: the force at the floored slip
        # (at a zero slip the force is zero and the secant would vanish, so that a deflected
        # carcass at zero lateral slip, a tire standing on a crossfall, would carry nothing)
        se = K_EPS if se >= 0.0 else -K_EPS
        fy_se = edc_core(Fz, S, kyc / cy + se, kyc, A, B, Cs, ca, fmult)[1]
    gy = -fy_se * (1.0 / se)
    if gy < 0.0:
        gy = 0.0
    dky, fyc = carcass(ky, V_ref, -fy, gy, cy, w_low, rly)
    return fx, -fyc, dkx, dky, S, xsl


@njit
def contact_length(ru, defl):
    """Length of the contact patch, m: the chord of the unloaded tire (radius ``ru``) at the
    radial deflection ``defl``, L = 2 sqrt(2 r_u delta - delta^2) (0 off the ground)."""
    c = defl * (2.0 * ru - defl)
    return 2.0 * math.sqrt(c) if defl > 0.0 and c > 0.0 else 0.0


@njit
def pneumatic_trail(length, xsl):
    """Pneumatic trail T_P (m, behind the contact point) of a patch of length ``length`` whose
    adhesion fraction is ``xsl`` = X_s/L (Eq. 104, limited to 1).

    The EDC model's assumptions (uniform pressure; in the adhesion region, from the leading
    edge to X_s, a shear stress growing linearly to the friction limit; in the sliding region
    behind it the uniform friction stress, Eq. 107-110) place the lateral force's resultant at

        T_P = (L / 6) lambda (3 - 2 lambda) / (2 - lambda),   lambda = X_s / L:

    the triangle's centroid (L/6 behind the centre) while the whole patch adheres
    (lambda = 1), falling to 0 as the patch slides (lambda -> 0). docs/equations.md derives it.
    """
    lam = xsl if xsl < 1.0 else 1.0
    if lam <= 0.0 or length <= 0.0:
        return 0.0
    return length / 6.0 * lam * (3.0 - 2.0 * lam) / (2.0 - lam)


# --- beyond the tread's range: the wheel's rim and sidewall (simulation.tire_limit "wheel") --

#: inclination of the wheel plane to the road normal (rad) up to which the tread's point
#: contact (Eq. 79-113) carries the wheel alone, and from which it carries nothing: between,
#: its forces fade (a smooth step) while the sidewall takes over (:func:`tread_share`)
TREAD_FULL = math.radians(45.0)
TREAD_NONE = math.radians(75.0)


@njit
def tread_share(gamma):
    """The share of the tread's point contact in a wheel's road contact at inclination gamma
    (rad, Eq. 81-82): 1 up to :data:`TREAD_FULL`, 0 from :data:`TREAD_NONE`, a smooth step
    (3 x^2 - 2 x^3) between; the sidewall carries 1 minus it."""
    g = abs(gamma)
    if g <= TREAD_FULL:
        return 1.0
    if g >= TREAD_NONE:
        return 0.0
    x = (g - TREAD_FULL) / (TREAD_NONE - TREAD_FULL)
    return 1.0 - x * x * (3.0 - 2.0 * x)


#: the most the cosine of :func:`ring_low_point` can be (1, and its square root's rounding):
#: a ring whose centre is farther than its radius times this above the road cannot reach it
RING_REACH = 1.0 + 1.0e-9


@njit
def ring_low_point(cx, cy, cz, ax, ay, az, gx, gy, gz, nx, ny, nz, radius, offset):
    """The lowest point of a wheel's ring against the road plane: the circle of ``radius`` in
    the wheel plane about the point ``offset`` along the axle a from the wheel centre c (earth,
    the plane through the point g of downward unit normal n, as :func:`contact`). Returns its
    approach into the road (> 0 below it, along n) and the point (earth). A ring lying flat
    meets the road with the whole circle: its centre is taken as the point.

    A ring that cannot reach the plane, its centre farther above it than its radius (the
    rim of a wheel on its tire), is told apart before the square root: its approach is
    returned as that clearance less the radius (< 0, no more than the ring's own), its point
    as its centre."""
    na = nx * ax + ny * ay + nz * az
    h = (cx - gx) * nx + (cy - gy) * ny + (cz - gz) * nz + offset * na
    px, py, pz = cx + offset * ax, cy + offset * ay, cz + offset * az
    reach = h + radius * RING_REACH
    if reach <= 0.0:
        return reach, px, py, pz
    dx, dy, dz = nx - na * ax, ny - na * ay, nz - na * az
    m = math.sqrt(dx * dx + dy * dy + dz * dz)    # = cos(inclination)
    if m > 1e-12:
        s = radius / m
        px += s * dx
        py += s * dy
        pz += s * dz
    return h + radius * m, px, py, pz


@njit
def wheel_body_force(k, c, mu, vreg, pen, nx, ny, nz, vx, vy, vz):
    """Force (earth) on a wheel's rim or sidewall at approach ``pen`` into the road (downward
    unit normal n), its point moving at v: the normal force k pen + c (approach rate), never
    pulling, up the normal, and Coulomb friction mu F_n against the sliding velocity,
    regularised below ``vreg`` (as the body's vertices, ``engine.collision.vertex_force``)."""
    vn = vx * nx + vy * ny + vz * nz
    fn = k * pen + c * vn
    if fn <= 0.0:
        return 0.0, 0.0, 0.0, 0.0
    tx, ty, tz = vx - vn * nx, vy - vn * ny, vz - vn * nz
    s = math.sqrt(tx * tx + ty * ty + tz * tz + vreg * vreg)
    f = mu * fn / s
    return -fn * nx - f * tx, -fn * ny - f * ty, -fn * nz - f * tz, fn
