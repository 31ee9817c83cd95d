"""Eigenvalues of a real nonsymmetric matrix, and the largest component of an eigenvector,
in compiled code that allocates nothing and raises nothing (for the step-size check,
``engine.setup.stability.stable_step``, which must also run where there is no LAPACK).

:func:`eigenvalues` is the classical three-stage dense algorithm (Wilkinson & Reinsch,
*Handbook for Automatic Computation II: Linear Algebra*, 1971; EISPACK's BALANC, ORTHES and
HQR; Golub & Van Loan, *Matrix Computations*, 4th ed., sections 7.4-7.5):

1. :func:`balance`: Parlett & Reinsch's balancing (EISPACK BALANC, without its permutations):
   a diagonal similarity by powers of 2, exact in binary floating point, that brings each
   row's and column's off-diagonal 1-norms within a factor of about 2 of each other. The
   vehicle's Jacobians have entries from 1e-3 to 1e11; balanced, the eigenvalues' errors
   scale with the balanced matrix's norm, many orders of magnitude smaller.
2. :func:`hessenberg`: reduction to upper Hessenberg form by Householder reflections
   (EISPACK ORTHES, Golub & Van Loan algorithm 7.4.2), an orthogonal similarity.
3. :func:`hessenberg_eigenvalues`: Francis's implicit double-shift QR iteration (EISPACK HQR,
   Golub & Van Loan algorithm 7.5.2): each sweep chases the bulge of the shifts' first column
   down the active block with 3x3 reflectors; a subdiagonal element negligible against its
   neighbours on the diagonal deflates the block; a 1x1 block is a real eigenvalue, a 2x2
   block a real or a complex-conjugate pair. A sweep starts below two consecutive small
   subdiagonal elements when it can, and every 10th iteration on one eigenvalue uses
   Wilkinson's exceptional shift (EISPACK's 0.75 s and -0.4375 s^2) to break a cycle.

:func:`eigenvector_peak` finds an eigenvector of the original matrix by inverse iteration
(Wilkinson; EISPACK INVIT; Golub & Van Loan section 7.6.1) on J - lambda I, complex lambda
in the real form of twice the size, and returns the index of its largest component.

Only float64 and int64 arrays pass, no complex ones; every work array is the caller's.
"""
import math

from .jit import njit

#: Status of :func:`eigenvalues`: every eigenvalue found.
EIG_OK = 0
#: Status of :func:`eigenvalues`: an entry of the matrix is not finite (a positive status k
#: instead says that the iteration did not converge and the first k eigenvalues are not found).
EIG_NONFINITE = -1
#: the unit roundoff of IEEE double precision, 2^-52
EPS = 2.220446049250313e-16
#: the smallest positive normal double
SAFE_MIN = 2.2250738585072014e-308
#: the radix of the balancing's scale factors (exact in binary arithmetic)
RADIX = 2.0
#: balancing accepts a scaling that reduces a row's and column's norms to below this fraction
BALANCE_GAIN = 0.95
#: the balancing's sweeps over the rows, at most (it converges in a few)
BALANCE_SWEEPS = 100
#: QR iterations per eigenvalue of the matrix, at most (EISPACK HQR's 30 n)
ITERATIONS_PER_EIGENVALUE = 30
#: the iterations on one eigenvalue after which an exceptional shift is taken, and its factors
EXCEPTIONAL_EVERY = 10
EXCEPTIONAL_SHIFT = 0.75
EXCEPTIONAL_DET = -0.4375
#: inverse iteration's solves (each amplifies the wanted eigenvector by about 1/eps)
INVERSE_SOLVES = 3
#: a component of a back substitution beyond this rescales the vector (no overflow)
RESCALE_ABOVE = 1.0e100
#: components within this relative amount of the largest count as equal to it (a symmetric
#: vehicle's left and right wheels in a symmetric mode): the first of them is the peak
PEAK_TIE = 1.0e-6


@njit
def balance(A, n, d):
    """Balance the top-left n x n block of A in place (Parlett & Reinsch; EISPACK BALANC
    without the permutations that isolate eigenvalues): A becomes D^-1 A D, D = diag(d[:n]).
    Row i is divided, column i multiplied, by a power of 2 f with f^2 ~ (row's off-diagonal
    1-norm) / (column's), kept only when it reduces their sum below 0.95 of what it was;
    sweeps repeat until none is kept. The eigenvalues are unchanged (a similarity, exact in
    binary arithmetic), an eigenvector y of the balanced matrix is D y of A's; a row or
    column with no off-diagonal entry is left alone."""
    for i in range(n):
        d[i] = 1.0
    for _ in range(BALANCE_SWEEPS):
        changed = False
        for i in range(n):
            c = 0.0
            r = 0.0
            for j in range(n):
                if j != i:
                    c += abs(A[j, i])
                    r += abs(A[i, j])
            if c == 0.0 or r == 0.0:
                continue
            f = 1.0
            while c * f * RADIX < r / f:            # the column too light: scale it up
                f *= RADIX
            while c * f > RADIX * r / f:            # too heavy: down
                f /= RADIX
            if c * f + r / f >= BALANCE_GAIN * (c + r):
                continue
            changed = True
            d[i] *= f
            for j in range(n):
                A[i, j] /= f
            for j in range(n):
                A[j, i] *= f
        if not changed:
            return


@njit
def hessenberg(A, n, v, s):
    """Reduce the top-left n x n block of A in place to upper Hessenberg form by Householder
    reflections, an orthogonal similarity (EISPACK ORTHES; Golub & Van Loan algorithm 7.4.2).

    For column k the reflection P = I - u u^T / beta of rows k+1..n-1 maps the column's part
    below the diagonal, x, onto alpha e_1 (alpha = -sign(x_1) |x|, u = x - alpha e_1,
    beta = |x| (|x| + |x_1|)); A becomes P A P. v and s are work vectors of length n (u and
    the row u^T A). Entries below the subdiagonal are set to zero."""
    for k in range(n - 2):
        scale = 0.0
        for i in range(k + 1, n):
            scale += abs(A[i, k])
        if scale == 0.0:
            continue
        below = 0.0                                 # the part the reflection must zero
        for i in range(k + 2, n):
            below += abs(A[i, k])
        if below == 0.0:
            continue
        norm2 = 0.0
        for i in range(k + 1, n):
            v[i] = A[i, k] / scale                  # scaled: no overflow in the squares
            norm2 += v[i] * v[i]
        x1 = v[k + 1]
        alpha = -math.copysign(math.sqrt(norm2), x1)
        beta = norm2 - alpha * x1
        v[k + 1] = x1 - alpha
        # from the left: rows k+1..n-1, columns k+1..n-1 (column k is known: alpha e_1)
        for j in range(k + 1, n):
            s[j] = 0.0
        for i in range(k + 1, n):
            vi = v[i]
            if vi != 0.0:
                for j in range(k + 1, n):
                    s[j] += vi * A[i, j]
        for i in range(k + 1, n):
            g = v[i] / beta
            if g != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= g * s[j]
        # from the right: every row, columns k+1..n-1
        for i in range(n):
            t = 0.0
            for j in range(k + 1, n):
                t += A[i, j] * v[j]
            if t != 0.0:
                t /= beta
                for j in range(k + 1, n):
                    A[i, j] -= t * v[j]
        A[k + 1, k] = alpha * scale
        for i in range(k + 2, n):
            A[i, k] = 0.0


@njit
def _block_2x2(a, b, c, d, wr, wi, i):
    """The eigenvalues of [[a, b], [c, d]] into wr[i:i+2], wi[i:i+2]: both real, or the
    complex pair with the positive imaginary part first (as LAPACK orders them)."""
    p = 0.5 * (a - d)
    bc = b * c
    q = p * p + bc
    if q >= 0.0:
        z = p + math.copysign(math.sqrt(q), p)      # no cancellation
        wr[i] = d + z
        wr[i + 1] = d - bc / z if z != 0.0 else d + z
        wi[i] = 0.0
        wi[i + 1] = 0.0
    else:
        z = math.sqrt(-q)
        wr[i] = d + p
        wr[i + 1] = d + p
        wi[i] = z
        wi[i + 1] = -z


@njit
def hessenberg_eigenvalues(H, n, wr, wi):
    """The eigenvalues of the upper Hessenberg top-left n x n block of H (overwritten) by
    Francis's implicit double-shift QR iteration (EISPACK HQR; Golub & Van Loan algorithm
    7.5.2), into wr (real parts) and wi (imaginary parts), a complex pair at consecutive
    indices, positive imaginary part first.

    The active block is rows and columns lo..hi. A subdiagonal entry H[l, l-1] with
    |H[l, l-1]| <= eps (|H[l-1, l-1]| + |H[l, l]|) is set to zero, which splits the block;
    a 1x1 or 2x2 block at the bottom gives its eigenvalues, and hi moves up. Otherwise one
    implicit double-shift sweep: the shifts are the eigenvalues of the trailing 2x2 block
    (their sum and product, so the arithmetic stays real); the sweep starts at the lowest row
    m >= lo for which the first column of (H - s1 I)(H - s2 I) from row m would hardly change
    the entry H[m, m-1] (two consecutive small subdiagonal entries), and a 3x3 (at the bottom
    2x2) Householder reflection chases the bulge down to hi. Each 10th iteration on the same
    eigenvalue uses the exceptional shift instead. Returns 0, or the number of eigenvalues not
    found (wr[:k], wi[:k] undetermined) when the iterations reach 30 n in all."""
    anorm = 0.0
    for i in range(n):
        for j in range(max(i - 1, 0), n):
            anorm += abs(H[i, j])
    budget = ITERATIONS_PER_EIGENVALUE * n
    its = 0
    hi = n - 1
    while hi >= 0:
        lo = hi
        while lo > 0:
            near = abs(H[lo - 1, lo - 1]) + abs(H[lo, lo])
            if near == 0.0:
                near = anorm
            sub = abs(H[lo, lo - 1])
            if sub <= EPS * near or sub < SAFE_MIN:
                H[lo, lo - 1] = 0.0
                break
            lo -= 1
        if lo == hi:
            wr[hi] = H[hi, hi]
            wi[hi] = 0.0
            hi -= 1
            its = 0
            continue
        if lo == hi - 1:
            _block_2x2(H[lo, lo], H[lo, hi], H[hi, lo], H[hi, hi], wr, wi, lo)
            hi -= 2
            its = 0
            continue
        if budget == 0:
            return hi + 1
        budget -= 1
        its += 1
        # the shifts' sum x + y and product x y - w
        x = H[hi, hi]
        y = H[hi - 1, hi - 1]
        w = H[hi, hi - 1] * H[hi - 1, hi]
        if its % EXCEPTIONAL_EVERY == 0:
            s = abs(H[hi, hi - 1]) + abs(H[hi - 1, hi - 2])
            x = H[hi, hi] + EXCEPTIONAL_SHIFT * s
            y = x
            w = EXCEPTIONAL_DET * s * s
        # the first column of (H - s1 I)(H - s2 I) from row m, over H[m+1, m]; the lowest m
        # whose reflection leaves H[m, m-1] unchanged to within rounding
        m = hi - 2
        p = 0.0
        q = 0.0
        r = 0.0
        while True:
            z = H[m, m]
            dx = x - z
            dy = y - z
            p = (dx * dy - w) / H[m + 1, m] + H[m, m + 1]
            q = H[m + 1, m + 1] - z - dx - dy
            r = H[m + 2, m + 1]
            scale = abs(p) + abs(q) + abs(r)
            p /= scale
            q /= scale
            r /= scale
            if m == lo:
                break
            lost = abs(H[m, m - 1]) * (abs(q) + abs(r))
            kept = abs(p) * (abs(H[m - 1, m - 1]) + abs(z) + abs(H[m + 1, m + 1]))
            if lost <= EPS * kept:
                break
            m -= 1
        # the bulge chase: reflection k maps (p, q, r) of rows k..k+2 onto (beta, 0, 0)
        for k in range(m, hi):
            three = k < hi - 1
            if k > m:
                p = H[k, k - 1]
                q = H[k + 1, k - 1]
                r = H[k + 2, k - 1] if three else 0.0
                scale = abs(p) + abs(q) + abs(r)
                if scale == 0.0:
                    continue
                p /= scale
                q /= scale
                r /= scale
            else:
                scale = 1.0
            beta = -math.copysign(math.sqrt(p * p + q * q + r * r), p)
            tau = (beta - p) / beta             # P = I - tau u u^T, u = (1, v2, v3)
            d = p - beta
            v2 = q / d
            v3 = r / d
            if k > m:
                H[k, k - 1] = beta * scale
                H[k + 1, k - 1] = 0.0
                if three:
                    H[k + 2, k - 1] = 0.0
            elif lo < m:
                # the reflection of (H[m, m-1], 0, 0): its first entry; the other two are
                # negligible by the choice of m
                H[k, k - 1] *= 1.0 - tau
            for j in range(k, hi + 1):
                t = H[k, j] + v2 * H[k + 1, j]
                if three:
                    t += v3 * H[k + 2, j]
                t *= tau
                H[k, j] -= t
                H[k + 1, j] -= t * v2
                if three:
                    H[k + 2, j] -= t * v3
            for i in range(lo, min(k + 3, hi) + 1):
                t = H[i, k] + v2 * H[i, k + 1]
                if three:
                    t += v3 * H[i, k + 2]
                t *= tau
                H[i, k] -= t
                H[i, k + 1] -= t * v2
                if three:
                    H[i, k + 2] -= t * v3
    return EIG_OK


@njit
def eigenvalues(A, n, wr, wi):
    """All eigenvalues of the real n x n matrix in the top-left block of A (overwritten):
    :func:`balance`, :func:`hessenberg`, :func:`hessenberg_eigenvalues`. wr[:n], wi[:n] (float64)
    receive their real and imaginary parts (a complex pair at consecutive indices, positive
    imaginary part first); they are also the reduction's work vectors.

    Returns EIG_OK (0); EIG_NONFINITE (-1) when an entry is not finite; k > 0 when the QR
    iteration did not converge within 30 n iterations (wr[:k], wi[:k] not found)."""
    for i in range(n):
        for j in range(n):
            if not math.isfinite(A[i, j]):
                return EIG_NONFINITE
    balance(A, n, wr)
    hessenberg(A, n, wi, wr)
    return hessenberg_eigenvalues(A, n, wr, wi)


@njit
def eigenvector_peak(J, n, lam_re, lam_im, M, x, d, piv):
    """The index of the largest component of an eigenvector of the n x n block of J
    (untouched) for its eigenvalue lam_re + i lam_im, by inverse iteration (Wilkinson;
    EISPACK INVIT; Golub & Van Loan section 7.6.1); -1 if it fails (J or the vector not
    finite).

    J is balanced first (:func:`balance`, B = D^-1 J D, D = diag(d[:n])), so that the pivots
    are judged against a norm of the matrix's own scale. For a complex lam the complex system
    (B - lam I) z = b with z = x + i y is solved in its real form
    [[B - a I, b I], [-b I, B - a I]] [x; y] of size N = 2n (lam = a + i b), for a real one
    B - a I of size N = n: M (at least N x N) receives its LU factors with partial pivoting,
    piv (int64, N) the row swaps, x (N) the vector. A pivot below eps ||M||_1 is replaced by
    that: at an eigenvalue the matrix is singular to within its rounding, and the replacement
    is a perturbation of the shift of that order. From b = (1, ..., 1), three solves with the
    same factors, the vector scaled to a largest component of 1 after each, each amplifying
    the eigenvector over the others in proportion to the distances of lam to their
    eigenvalues. On return x[:n] (+ i x[n:2n]) is the eigenvector of J, D z scaled to a
    largest component of 1, and the peak is the first index whose |component| is within a
    relative 1e-6 of the largest: in a symmetric mode of a symmetric vehicle the left
    wheel's state rather than its mirror image's.

    For a repeated eigenvalue the vector is one of its eigenspace (for a semisimple one, the
    part of b in it, amplified; for a defective one, its eigenvector), whichever that is:
    another vector of the same eigenspace may peak elsewhere, as numpy's (LAPACK's) may."""
    pair = lam_im != 0.0          # complex: the real form of twice the size
    N = 2 * n if pair else n
    for i in range(n):
        for j in range(n):
            if not math.isfinite(J[i, j]):
                return -1
            M[i, j] = J[i, j]
    balance(M, n, d)
    for i in range(n):
        M[i, i] -= lam_re
    if pair:
        for i in range(n):
            for j in range(n):
                M[n + i, n + j] = M[i, j]
                M[i, n + j] = 0.0
                M[n + i, j] = 0.0
            M[i, n + i] = lam_im
            M[n + i, i] = -lam_im
    norm = 0.0
    for j in range(N):
        col = 0.0
        for i in range(N):
            col += abs(M[i, j])
        norm = max(norm, col)
    if not math.isfinite(norm):
        return -1
    if norm == 0.0:        # J = 0 and lam = 0: every vector is an eigenvector
        for i in range(N):
            x[i] = 1.0
        return 0
    floor = max(EPS * norm, SAFE_MIN)
    # LU with partial pivoting, whole rows swapped (P M = L U, L unit lower)
    for k in range(N):
        p = k
        largest = abs(M[k, k])
        for i in range(k + 1, N):
            if abs(M[i, k]) > largest:
                p = i
                largest = abs(M[i, k])
        piv[k] = p
        if p != k:
            for j in range(N):
                t = M[k, j]
                M[k, j] = M[p, j]
                M[p, j] = t
        if abs(M[k, k]) < floor:
            M[k, k] = floor if M[k, k] >= 0.0 else -floor
        pivot = M[k, k]
        for i in range(k + 1, N):
            if M[i, k] != 0.0:
                l = M[i, k] / pivot
                M[i, k] = l
                for j in range(k + 1, N):
                    M[i, j] -= l * M[k, j]
    for i in range(N):
        x[i] = 1.0
    for _ in range(INVERSE_SOLVES):
        for k in range(N):
            p = piv[k]
            if p != k:
                t = x[k]
                x[k] = x[p]
                x[p] = t
        for i in range(1, N):
            t = x[i]
            for j in range(i):
                t -= M[i, j] * x[j]
            x[i] = t
        for i in range(N - 1, -1, -1):
            t = x[i]
            for j in range(i + 1, N):
                t -= M[i, j] * x[j]
            x[i] = t / M[i, i]
            if abs(x[i]) > RESCALE_ABOVE:       # scale what is solved and what is not alike
                g = 1.0 / abs(x[i])
                for j in range(N):
                    x[j] *= g
        top = 0.0
        for i in range(N):
            top = max(top, abs(x[i]))
        if not (top > 0.0 and math.isfinite(top)):
            return -1
        for i in range(N):
            x[i] /= top
    top = 0.0
    for i in range(n):
        x[i] *= d[i]
        if pair:
            x[n + i] *= d[i]
        top = max(top, math.hypot(x[i], x[n + i]) if pair else abs(x[i]))
    if not (top > 0.0 and math.isfinite(top)):
        return -1
    for i in range(N):
        x[i] /= top
    peak = -1
    for i in range(n):
        size = math.hypot(x[i], x[n + i]) if pair else abs(x[i])
        if peak < 0 and size >= 1.0 - PEAK_TIE:
            peak = i
    return peak
