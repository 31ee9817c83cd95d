"""The compiled eigenvalue and eigenvector kernels (engine.eigen) against LAPACK (numpy, scipy),
against known roots, and in the step-size check they serve (engine.setup.stability.stable_step).

An eigenvalue's error is judged against the first-order bound of a backward-stable method,
kappa eps ||B||_1: B the balanced matrix (scipy.linalg.matrix_balance, both methods balance),
kappa the eigenvalue's condition number in B, 1 / cos of its left and right eigenvectors
(Golub & Van Loan section 7.2.2). Both sets are paired by the assignment of least total
distance.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from scipy.optimize import linear_sum_assignment

import engine
from engine.eigen import EIG_NONFINITE, EIG_OK, PEAK_TIE, eigenvalues, eigenvector_peak
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
from engine.setup.stability import free_states, jacobian, rk4_limit, stable_step
from engine.stability import NEUTRAL as _NEUTRAL

EPS = np.finfo(float).eps
#: |ours - LAPACK| / (kappa eps ||B||_1), random matrices of sizes 1..60 (plain, diagonally
#: scaled by 1e-6..1e9, entries scaled by 1e-6..1e9): at most 3.2, 7.6 and 10.3 measured
RANDOM_BOUNDS = 40.0
#: the same for the vehicles' Jacobians: 0.48 (sedan), 0.84 (tractor-semitrailer) measured
VEHICLE_BOUNDS = 5.0
#: |ours - LAPACK| / |lambda| of the vehicles' modes with |lambda| >= 1 1/s (those that set
#: the step): 3.3e-13 (sedan) and 1.1e-12 (tractor-semitrailer) measured on an AMD EPYC,
#: 3.6e-13 and 6.0e-12 on an Intel Xeon (LAPACK's rounding, and the compiled Jacobian's, follow
#: the CPU; the truck's worst is a mode at -3.6 1/s of a matrix whose norm is 2e11)
VEHICLE_REL = 2e-11
#: 1 - |cos| between our eigenvector and LAPACK's, for a simple eigenvalue: at most 4.4e-16
#: (random matrices), 5.6e-16 (sedan) and 1.1e-15 (tractor-semitrailer) measured
ANGLE = 1e-14


def our_eigenvalues(A):
    n = A.shape[0]
    wr, wi = np.zeros(n), np.zeros(n)
    status = eigenvalues(np.array(A, dtype=np.float64), n, wr, wi)
    return status, wr + 1j * wi


def our_eigenvector(J, lam):
    """(peak, the eigenvector) of ``eigenvector_peak``."""
    n = J.shape[0]
    M, x = np.zeros((2 * n, 2 * n)), np.zeros(2 * n)
    peak = eigenvector_peak(J, n, lam.real, lam.imag, M, x, np.zeros(n),
                            np.zeros(2 * n, dtype=np.int64))
    return peak, (x[:n] + 1j * x[n:] if lam.imag != 0.0 else x[:n].astype(complex))


def paired(ours, ref):
    """(ours, ref) reordered to pair each with the nearest (least total distance)."""
    r, c = linear_sum_assignment(abs(ours[:, None] - ref[None, :]))
    return ours[r], ref[c], c


def bounded_error(A):
    """(status, max |ours - LAPACK| / (kappa eps ||B||_1), our eigenvalues paired, LAPACK's)."""
    status, ours = our_eigenvalues(A)
    B = sl.matrix_balance(A, permute=False)[0]
    ref, left, right = sl.eig(B, left=True, right=True)
    cos = abs(np.sum(left.conj() * right, axis=0)) / (np.linalg.norm(left, axis=0)
                                                     * np.linalg.norm(right, axis=0))
    mine, theirs, c = paired(ours, ref)
    bound = EPS * np.linalg.norm(B, 1) / np.maximum(cos[c], 1e-300)
    return status, float(np.max(abs(mine - theirs) / bound)), mine, theirs


def random_matrix(rng, n, kind):
    A = rng.standard_normal((n, n))
    if kind == "diagonally scaled":        # D A D^-1, D from 1e-6 to 1e9: balancing undoes it
        d = 10.0 ** rng.uniform(-6.0, 9.0, n)
        return A * d[:, None] / d[None, :]
    if kind == "entries scaled":           # every entry from 1e-6 to 1e9 in size
        return A * 10.0 ** rng.uniform(-6.0, 9.0, (n, n))
    return A


KINDS = ("plain", "diagonally scaled", "entries scaled")


@pytest.mark.parametrize("kind", KINDS)
def test_random_matrices_agree_with_lapack(kind):
    rng = np.random.default_rng(20240611 + KINDS.index(kind))
    complex_seen = 0
    for n in range(1, 61):
        A = random_matrix(rng, n, kind)
        status, ratio, mine, _ = bounded_error(A)
        assert status == EIG_OK, n
        assert ratio <= RANDOM_BOUNDS, (n, ratio)
        complex_seen += int(np.sum(mine.imag != 0.0))
        # a pair in consecutive places, the positive imaginary part first
        wr, wi = np.zeros(n), np.zeros(n)
        eigenvalues(A.copy(), n, wr, wi)
        k = 0
        while k < n:
            if wi[k] != 0.0:
                assert wi[k] > 0.0 and wi[k + 1] == -wi[k] and wr[k + 1] == wr[k]
                k += 2
            else:
                k += 1
    assert complex_seen > 100


def simple_eigenvalues(A, w):
    """The indices of the eigenvalues ``w`` of A whose eigenvector is well determined: apart
    from every other by more than 1e-8 ||B||_1 (B balanced), and not within 1e-6 of zero."""
    scale = np.linalg.norm(sl.matrix_balance(A, permute=False)[0], 1)
    keep = []
    for k, lam in enumerate(w):
        others = np.delete(w, k)
        gap = abs(others - lam).min() if others.size else np.inf
        if gap > 1e-8 * scale and abs(lam) > 1e-6 * scale:
            keep.append(k)
    return keep


def assert_peaks_agree(A):
    """For each simple eigenvalue (upper half plane): our eigenvector is LAPACK's, and our
    peak is LAPACK's largest component, or one within PEAK_TIE of it. Returns the count."""
    w, V = np.linalg.eig(A)
    count = 0
    for k in simple_eigenvalues(A, w):
        if w[k].imag < 0.0:
            continue
        peak, x = our_eigenvector(A, w[k])
        v = V[:, k]
        angle = 1.0 - abs(np.vdot(x, v)) / (np.linalg.norm(x) * np.linalg.norm(v))
        assert angle <= ANGLE, (w[k], angle)
        assert abs(v[peak]) >= (1.0 - PEAK_TIE) * abs(v).max(), (w[k], peak, np.argmax(abs(v)))
        # the first index within the tie of the largest
        assert peak == np.flatnonzero(abs(x) >= (1.0 - PEAK_TIE) * abs(x).max())[0]
        count += 1
    return count


@pytest.mark.parametrize("kind", KINDS)
def test_eigenvector_peaks_agree_with_lapack(kind):
    rng = np.random.default_rng(7 + KINDS.index(kind))
    checked = sum(assert_peaks_agree(random_matrix(rng, n, kind)) for n in (1, 2, 3, 5, 8, 13,
                                                                            21, 34, 60))
    assert checked > 60


def companion(roots):
    """The companion matrix of the monic polynomial with these roots."""
    c = np.poly(roots).real
    n = len(roots)
    C = np.zeros((n, n))
    C[0, :] = -c[1:]
    C[1:, :-1] = np.eye(n - 1)
    return C


@pytest.mark.parametrize("roots", [
    [-1.0, -2.0, -5.0, -10.0, 3 + 4j, 3 - 4j, -0.5 + 1j, -0.5 - 1j],
    [1e-3, -2e2, 5e4, 1 + 1e3j, 1 - 1e3j, -7.0],       # roots over 8 decades
    list(-np.arange(1.0, 13.0)),                       # Wilkinson's: ill-conditioned
])
def test_companion_matrices_give_their_roots(roots):
    C = companion(roots)
    status, ratio, mine, _ = bounded_error(C)
    assert status == EIG_OK and ratio <= RANDOM_BOUNDS     # 1.1, 0.03, 0.29 measured
    roots = np.array(roots, dtype=complex)
    ours, known, _ = paired(our_eigenvalues(C)[1], roots)
    lapack, known2, _ = paired(np.linalg.eigvals(C), roots)
    # as close to the roots as LAPACK's: relative 4.0e-15, 2.0e-15, 3.1e-8 measured (LAPACK
    # 3.6e-15, 5.7e-16, 6.8e-9); the error of the last is the coefficients' rounding
    # amplified by the roots' condition
    ours_rel = np.max(abs(ours - known) / abs(known))
    lapack_rel = np.max(abs(lapack - known2) / abs(known2))
    assert ours_rel <= max(10.0 * lapack_rel, 1e-14)


def test_a_defective_eigenvalue_and_its_eigenvector():
    """A Jordan block of 2 of size 4 in an orthogonal basis Q, with 3 simple eigenvalues:
    the block's eigenvalues split by (eps ||A||)^(1/4) (Golub & Van Loan section 7.2.3), and
    its only eigenvector is Q e_1."""
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((7, 7)))[0]
    T = np.diag([2.0, 2.0, 2.0, 2.0, -1.0, 5.0, -3.0]) + np.diag([1.0, 1.0, 1.0, 0, 0, 0], 1)
    A = Q @ T @ Q.T
    status, w = our_eigenvalues(A)
    assert status == EIG_OK
    ours, known, _ = paired(w, np.array([2.0, 2.0, 2.0, 2.0, -1.0, 5.0, -3.0], dtype=complex))
    split = (EPS * np.linalg.norm(A, 1)) ** 0.25
    block = known.real == 2.0
    assert np.max(abs(ours[block] - 2.0)) <= 2.0 * split                   # 0.48 split measured
    assert np.max(abs(ours[~block] - known[~block])) <= 4e-14              # 4.0e-15 measured
    peak, x = our_eigenvector(A, complex(ours[block][0]))
    e1 = Q[:, 0]
    assert 1.0 - abs(np.vdot(x, e1)) / np.linalg.norm(x) <= 5e-8        # 6.6e-9 measured
    assert peak == np.argmax(abs(e1))


def test_a_repeated_eigenvalue_gives_a_vector_of_its_eigenspace():
    """3 twice over a 2-dimensional eigenspace (semisimple): any vector of the eigenspace is
    an eigenvector; ours is one (residual at rounding level), and its peak its largest
    component."""
    rng = np.random.default_rng(4)
    S = rng.standard_normal((6, 6))
    A = S @ np.diag([3.0, 3.0, -1.0, 0.5, 7.0, -4.0]) @ np.linalg.inv(S)
    status, w = our_eigenvalues(A)
    assert status == EIG_OK
    assert np.sum(abs(w - 3.0) < 4e-14) == 2                # 4.4e-15 from 3 measured
    peak, x = our_eigenvector(A, complex(3.0))
    residual = np.linalg.norm(A @ x - 3.0 * x) / (np.linalg.norm(A, 1) * np.linalg.norm(x))
    assert residual <= 1e-15                                # 7.6e-17 measured
    assert abs(x[peak]) >= (1.0 - PEAK_TIE) * abs(x).max()


def test_status_codes():
    A = np.eye(3)
    A[1, 2] = np.nan
    assert eigenvalues(A.copy(), 3, np.zeros(3), np.zeros(3)) == EIG_NONFINITE
    assert our_eigenvector(A, 1 + 0j)[0] == -1
    # an empty matrix has no eigenvalue, the zero matrix every vector for its eigenvalue 0
    assert eigenvalues(np.zeros((1, 1)), 0, np.zeros(1), np.zeros(1)) == EIG_OK
    assert our_eigenvector(np.zeros((3, 3)), 0j)[0] == 0


def test_only_the_top_left_block_is_read():
    """The kernels read the n x n block of larger arrays (the native build's work arrays)."""
    rng = np.random.default_rng(5)
    big = rng.standard_normal((9, 9))
    A = big[:5, :5].copy()
    wr, wi = np.zeros(9), np.zeros(9)
    assert eigenvalues(big.copy(), 5, wr, wi) == EIG_OK
    assert np.array_equal(np.sort_complex(wr[:5] + 1j * wi[:5]),
                          np.sort_complex(our_eigenvalues(A)[1]))
    lam = complex(wr[0], wi[0])
    M, x = np.full((20, 20), np.nan), np.full(20, np.nan)
    peak = eigenvector_peak(big, 5, lam.real, lam.imag, M, x, np.zeros(9),
                            np.zeros(20, dtype=np.int64))
    assert peak == our_eigenvector(A, lam)[0]


VEHICLES = {"sedan": lambda: engine.load_event(),
            "tractor-semitrailer": lambda: engine.load_event(TRACTOR_SEMITRAILER_EVENT)}


@pytest.fixture(scope="module", params=list(VEHICLES))
def vehicle(request):
    """(name, Simulation at its initial state, its Jacobian over the free states)."""
    sim = engine.Simulation(VEHICLES[request.param]())
    return request.param, sim, jacobian(sim, free_states(sim.model))


def test_the_vehicles_jacobians_agree_with_lapack(vehicle):
    _, _, J = vehicle
    status, ratio, mine, theirs = bounded_error(J)
    assert status == EIG_OK and ratio <= VEHICLE_BOUNDS
    ours, lapack, _ = paired(our_eigenvalues(J)[1], np.linalg.eigvals(J))
    stiff = abs(lapack) >= 1.0
    assert np.max(abs(ours[stiff] - lapack[stiff]) / abs(lapack[stiff])) <= VEHICLE_REL
    assert assert_peaks_agree(J) > 20


def lapack_stable_step(sim, J):
    """stable_step as it was with numpy's eig: (h_max, eigenvalue, the indices of the free
    states within PEAK_TIE of the eigenvector's largest component)."""
    values, vectors = np.linalg.eig(J)
    best = (np.inf, 0j, [])
    for k, lam in enumerate(values):
        if lam.real > _NEUTRAL * abs(lam):
            continue
        h = rk4_limit(lam)
        if h < best[0]:
            size = abs(vectors[:, k])
            best = (h, complex(lam), np.flatnonzero(size >= (1.0 - PEAK_TIE) * size.max()))
    return best


def test_stable_step_finds_the_mode_lapack_finds(vehicle):
    """The step-size check on the kernels: the same limit and eigenvalue as with numpy's eig
    (1.1e-15 relative measured), and the first of the states LAPACK's eigenvector peaks on
    (for the sedan its front wheels' spin, left and right equal to 1e-9; for the
    tractor-semitrailer the trailer's six wheels' spin)."""
    _, sim, J = vehicle
    h, lam, peaks = lapack_stable_step(sim, J)
    got = stable_step(sim)
    assert got.h_max == pytest.approx(h, rel=1e-14)
    assert abs(got.eigenvalue - lam) <= 1e-14 * abs(lam)
    free = free_states(sim.model)
    assert got.state == sim.state_names[free[peaks[0]]]
