"""Linear least squares without LAPACK, for the start on a terrain (``engine.setup.settle``).

:func:`least_squares` gives the minimum-norm least-squares solution of ``A x = b`` for any
shape and rank: Householder QR with column pivoting (``A P = Q R``), the rank from the
diagonal of ``R`` (a rank-revealing QR, as LAPACK's ``xGELSY``), and for a rank-deficient
``A`` the complete orthogonal decomposition ``R[:r] = [T 0] Z`` (LAPACK's ``xTZRZF``), so that
the free directions get no share of the solution. ``numpy.linalg.lstsq`` (LAPACK's ``xGELSD``)
takes the rank from the singular values instead: the two agree for full-rank and exactly
deficient systems, which are those the start meets (the plane under a unit on one axle), but
may differ by one or two for a nearly deficient one. It allocates nothing:
the caller passes its scratch, so the same kernel serves the set-up in Python and code that
runs without it. The plane fitted through the terrain under a unit's wheels (a rank-deficient
problem for a unit on one axle, whose wheels stand on a line) and the Newton steps of the
start's equilibrium use it.
"""
import math

from .jit import njit

#: machine epsilon of float64
_EPS = 2.220446049250313e-16


@njit
def _householder(akk, tail):
    """The reflection H = I - tau v v^T that maps (akk, t) with |t|^2 = ``tail`` onto its first
    axis: (beta, tau, the factor that turns t into v's tail; v[0] = 1). tau = 0: nothing to
    reflect."""
    if tail == 0.0:
        return akk, 0.0, 0.0
    beta = -math.copysign(math.sqrt(akk * akk + tail), akk)
    return beta, (beta - akk) / beta, 1.0 / (akk - beta)


@njit
def _reflect_column(A, k, m):
    """The reflection that maps A[k:m, k] onto its first axis: A[k, k] becomes beta,
    A[k+1:m, k] holds v. Returns tau."""
    tail = 0.0
    for i in range(k + 1, m):
        tail += A[i, k] * A[i, k]
    A[k, k], tau, scale = _householder(A[k, k], tail)
    for i in range(k + 1, m):
        A[i, k] *= scale
    return tau


@njit
def _reflect_row(A, k, r, n):
    """The reflection, v nonzero at k (1) and at r..n-1 (stored in A[k, r:n]), that clears
    A[k, r:n] into A[k, k] (LAPACK's RZ step). Returns tau."""
    tail = 0.0
    for j in range(r, n):
        tail += A[k, j] * A[k, j]
    A[k, k], tau, scale = _householder(A[k, k], tail)
    for j in range(r, n):
        A[k, j] *= scale
    return tau


@njit
def least_squares(A, m, n, b, x, perm, tau, rz, xp):
    """The minimum-norm x[:n] that minimises |A[:m, :n] x - b[:m]|; returns the rank of A.

    Overwrites A and b. Scratch: perm (n int64), tau, rz, xp (n floats each). The rank is the
    number of diagonal entries of R above max(m, n) machine epsilons of the largest (the cut-off
    ``numpy.linalg.lstsq`` applies to the singular values); NaN in A or b gives NaN in x."""
    for j in range(n):
        perm[j] = j
        x[j] = 0.0
    kmax = min(m, n)
    for k in range(kmax):
        # the remaining column of largest norm first (QR with column pivoting)
        best, p = -1.0, k
        for j in range(k, n):
            s = 0.0
            for i in range(k, m):
                s += A[i, j] * A[i, j]
            if s > best:
                best, p = s, j
        if p != k:
            for i in range(m):
                A[i, k], A[i, p] = A[i, p], A[i, k]
            perm[k], perm[p] = perm[p], perm[k]
        t = _reflect_column(A, k, m)
        tau[k] = t
        if t == 0.0:
            continue
        for j in range(k + 1, n):
            s = A[k, j]
            for i in range(k + 1, m):
                s += A[i, k] * A[i, j]
            s *= t
            A[k, j] -= s
            for i in range(k + 1, m):
                A[i, j] -= s * A[i, k]
        s = b[k]
        for i in range(k + 1, m):
            s += A[i, k] * b[i]
        s *= t
        b[k] -= s
        for i in range(k + 1, m):
            b[i] -= s * A[i, k]
    if kmax == 0:
        return 0
    tol = max(m, n) * _EPS * abs(A[0, 0])
    r = 0
    while r < kmax and abs(A[r, r]) > tol:
        r += 1
    if r == 0:
        return 0
    # R[:r] = [T 0] Z when A is rank-deficient or wide: the rows reflected from the last up
    for k in range(r - 1, -1, -1):
        t = 0.0
        if r < n:
            t = _reflect_row(A, k, r, n)
        rz[k] = t
        if t == 0.0:
            continue
        for i in range(k):
            s = A[i, k]
            for j in range(r, n):
                s += A[i, j] * A[k, j]
            s *= t
            A[i, k] -= s
            for j in range(r, n):
                A[i, j] -= s * A[k, j]
    # T w = (Q^T b)[:r], back substitution
    for k in range(r - 1, -1, -1):
        s = b[k]
        for j in range(k + 1, r):
            s -= A[k, j] * xp[j]
        xp[k] = s / A[k, k]
    for j in range(r, n):
        xp[j] = 0.0
    # x' = Z^T [w; 0]: the row reflections in the order they were made, last first
    for k in range(r):
        t = rz[k]
        if t == 0.0:
            continue
        s = xp[k]
        for j in range(r, n):
            s += A[k, j] * xp[j]
        s *= t
        xp[k] -= s
        for j in range(r, n):
            xp[j] -= s * A[k, j]
    for j in range(n):
        x[perm[j]] = xp[j]
    return r
