"""Linear interpolation in the tables of the vehicle data (clamped at the ends)."""
from .jit import njit


@njit
def interp1(xs, ys, n, x):
    """Value of the piecewise-linear table (xs[:n], ys[:n]) at x, constant beyond its ends."""
    if n <= 1 or x <= xs[0]:
        return ys[0]
    if x >= xs[n - 1]:
        return ys[n - 1]
    i = 0
    while x > xs[i + 1]:
        i += 1
    f = (x - xs[i]) / (xs[i + 1] - xs[i])
    return ys[i] + f * (ys[i + 1] - ys[i])


@njit
def value_slope1(xs, ys, n, x):
    """Value and slope dy/dx of the piecewise-linear table (xs[:n], ys[:n]) at x: the value
    of :func:`interp1` (constant beyond the ends, where the slope is zero), with one search and
    one division for both."""
    if n <= 1 or x <= xs[0]:
        return ys[0], 0.0
    if x >= xs[n - 1]:
        return ys[n - 1], 0.0
    i = 0
    while x > xs[i + 1]:
        i += 1
    slope = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
    return ys[i] + (x - xs[i]) * slope, slope


@njit
def bracket(xs, n, x):
    """Index i and weight f so that x ~ (1-f) xs[i] + f xs[i+1], clamped to the table."""
    if n <= 1 or x <= xs[0]:
        return 0, 0.0
    if x >= xs[n - 1]:
        return n - 2, 1.0
    i = 0
    while x > xs[i + 1]:
        i += 1
    # the reciprocal depends on the bracket only, not on x: it can be computed before x is known
    return i, (x - xs[i]) * (1.0 / (xs[i + 1] - xs[i]))
