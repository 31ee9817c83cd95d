"""The step-size check's kernels: the stability functions of the integration methods
(``engine.integrator``), the Jacobian of the equations of motion by forward differences, and
the largest step that resolves every damped mode of it. Numerics only (no physics);
allocation-free, so that the native FMU runs the same check at initialisation
(docs/native.md). The set-up side, which chooses the states and names the mode:
:mod:`engine.setup.stability`.

RK4 is stable for a linear mode y' = lambda y when z = h lambda lies in its region
|R(z)| <= 1, R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24; the region reaches z = -2.785 on the real
axis and |z| = 2 sqrt(2) on the imaginary one. RK2 (Heun's method) has R(z) = 1 + z + z^2/2,
whose region reaches z = -2 on the real axis and holds no point of the imaginary axis but 0:
it amplifies an undamped oscillation at any step, by |R(i y)| = (1 + y^4/4)^(1/2) a step. So
for RK2 a mode is resolved inside the region, or, when the mode loses less than
:data:`CYCLE_GROWTH` of its amplitude a period, when over the steps of one period the
computed amplitude changes by at most 1 + CYCLE_GROWTH times the true change: an undamped
mode grows by at most CYCLE_GROWTH a period, and a mode damped by more than that is held to
the region (docs/equations.md, "The integration method").
"""
import math

from .eigen import eigenvalues, eigenvector_peak
from .integrator import record
from .jit import njit
from .layout import E_INTEGRATOR, INTEGRATOR_RK2, INTEGRATOR_RK4

#: relative size of the finite-difference perturbation of each state
FD_STEP = 1.0e-6
#: relative real part below which a mode counts as undamped (on the imaginary axis)
NEUTRAL = 1.0e-9
#: bisection steps on h (each halves the bracket)
BISECTIONS = 60
#: the reach of the region on the imaginary axis, |z| = 2 sqrt(2)
IMAGINARY_REACH = 2.0 * math.sqrt(2.0)
#: the region lies within |z| < 4 in the left half-plane (RK2's within |z| <= 2; the steps its
#: check accepts beyond the region, within |z| < 2.3)
REGION_RADIUS = 4.0
#: RK2: the most an undamped mode's amplitude may grow over one period of its oscillation
#: (1 %: the step then resolves an oscillation of y = h omega <= 0.23); a damped mode's growth
#: less its true decay, as long as that decay is less than this a period
CYCLE_GROWTH = 0.01
#: stable_step's status (out[4]): found, a column of the Jacobian not finite (out[3]: it),
#: the eigenvalues not found
FOUND, NOT_FINITE, NO_CONVERGENCE = 0, 1, 2


@njit
def rk4_amplification(re, im):
    """|R(z)| of the classical Runge-Kutta method at z = re + i im."""
    z = complex(re, im)
    r = 1.0 + z * (1.0 + z * (0.5 + z * (1.0 / 6.0 + z * (1.0 / 24.0))))
    return math.hypot(r.real, r.imag)


@njit
def rk2_amplification(re, im):
    """|R(z)| of Heun's method (RK2) at z = re + i im."""
    z = complex(re, im)
    r = 1.0 + z * (1.0 + z * 0.5)
    return math.hypot(r.real, r.imag)


@njit
def rk2_resolves(re, im):
    """Whether RK2 resolves the mode at z = re + i im = h lambda: |R(z)| <= 1, or, for an
    oscillation (im != 0) that loses less than :data:`CYCLE_GROWTH` of its amplitude a period,
    a growth over the steps of one period (2 pi / |im| of them) of at most 1 + CYCLE_GROWTH
    times its true change over the period, exp(2 pi re / |im|): an undamped mode may grow by
    CYCLE_GROWTH a period, a mode damped by more than that must not grow."""
    a = rk2_amplification(re, im)
    if a <= 1.0:
        return True
    if im == 0.0:
        return False
    period = 2.0 * math.pi / abs(im)          # steps
    return math.log(a) * period <= max(0.0, math.log1p(CYCLE_GROWTH) + re * period)


@njit
def _resolves(re, im, method):
    """Whether the method ``method`` (``layout.INTEGRATOR_*``) resolves the mode lam at the step
    of z = h lam = re + i im: RK4 inside its stability region, RK2 as :func:`rk2_resolves`."""
    if method == INTEGRATOR_RK2:
        return rk2_resolves(re, im)
    return rk4_amplification(re, im) <= 1.0


@njit
def step_limit(re, im, method):
    """The largest step h > 0 at which the integration method ``method``
    (``layout.INTEGRATOR_*``) resolves the mode lam = re + i im (re <= 0), by bisection along
    its ray; an undamped mode under RK4 takes the region's reach on the imaginary axis."""
    mag = math.hypot(re, im)
    if mag == 0.0:
        return math.inf
    if method != INTEGRATOR_RK2 and re > -NEUTRAL * mag:
        return IMAGINARY_REACH / mag
    lo, hi = 0.0, REGION_RADIUS / mag
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        if _resolves(mid * re, mid * im, method):
            lo = mid
        else:
            hi = mid
    return lo


@njit
def rk4_limit(re, im):
    """The largest h > 0 with |R(h lam)| <= 1 along the ray of lam = re + i im (re <= 0)."""
    return step_limit(re, im, INTEGRATOR_RK4)


@njit
def jacobian(y, U, P, Y, err, W, free, base, shifted, J):
    """J[:n, :n] = d(y')/dy over the states ``free`` (n of them) at y, by forward differences
    of ``integrator.record`` (y is restored; Y, err and W are written), with the steering mode
    autostart as it will be: free (``W.clock`` at infinity, restored)."""
    clock = W.clock[0]
    W.clock[0] = math.inf
    record(y, base, U, P, Y, err, W)
    n = free.shape[0]
    for c in range(n):
        i = free[c]
        yi = y[i]
        e = FD_STEP * max(1.0, abs(yi))
        y[i] = yi + e
        record(y, shifted, U, P, Y, err, W)
        for r in range(n):
            J[r, c] = (shifted[free[r]] - base[free[r]]) / e
        y[i] = yi
    W.clock[0] = clock


@njit
def stable_step(y, U, P, Y, err, W, free, base, shifted, J, A, wr, wi, M, x, d, piv, out):
    """The largest step of the event's integration method (``P.P_ENV[E_INTEGRATOR]``) that
    resolves every damped mode at the state y (Re lambda > 0 are
    unstable in themselves, not a matter of the step, and left alone). ``out``: the step
    (inf when no damped mode limits it), the real and imaginary part of its eigenvalue, the
    index (into ``free``) of its eigenvector's largest component (-1: none), the status
    (FOUND, NOT_FINITE with out[3] the first column that is not finite, NO_CONVERGENCE).
    Work arrays: base, shifted (len(y)); J, A (n x n); wr, wi, d (n); M (2n x 2n); x, piv (2n).
    Returns the status."""
    n = free.shape[0]
    jacobian(y, U, P, Y, err, W, free, base, shifted, J)
    out[0], out[1], out[2], out[3], out[4] = math.inf, 0.0, 0.0, -1.0, FOUND
    for c in range(n):
        for r in range(n):
            if not math.isfinite(J[r, c]):
                out[3], out[4] = c, NOT_FINITE
                return NOT_FINITE
            A[r, c] = J[r, c]
    if eigenvalues(A, n, wr, wi) != 0:
        out[4] = NO_CONVERGENCE
        return NO_CONVERGENCE
    best = -1
    method = P.P_ENV[E_INTEGRATOR]
    for k in range(n):
        if wr[k] > NEUTRAL * math.hypot(wr[k], wi[k]):
            continue
        h = step_limit(wr[k], wi[k], method)
        if h < out[0]:
            out[0], best = h, k
    if best >= 0:
        out[1], out[2] = wr[best], wi[best]
        out[3] = eigenvector_peak(J, n, wr[best], wi[best], M, x, d, piv)
    return FOUND
