"""The engine's allocation-free least squares (engine/least_squares.py) against LAPACK's
(numpy.linalg.lstsq): the same rank and the same minimum-norm solution, for square,
tall, wide and exactly rank-deficient systems, and the plane through the terrain under one
axle. (Its rank is a rank-revealing QR's: for a nearly deficient system it may differ from
LAPACK's singular-value cut-off, and is not compared.)"""
import numpy as np
import pytest

from engine.least_squares import least_squares


def _kernel(A, b):
    m, n = A.shape
    A2, b2, x = A.copy(), b.copy(), np.zeros(n)
    rank = least_squares(A2, m, n, b2, x, np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n),
                         np.zeros(n))
    return x, rank


def _cases(kind, count=60, seed=7):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m, n = int(rng.integers(1, 10)), int(rng.integers(1, 10))
        A = rng.normal(size=(m, n))
        if kind == "deficient" and n > 1 and m > 1:
            A[:, -1] = 2.0 * A[:, 0] - A[:, 1] if n > 2 else 2.0 * A[:, 0]
        yield A, rng.normal(size=m)


@pytest.mark.parametrize("kind", ["full", "deficient"])
def test_same_rank_and_solution_as_lapack(kind):
    worst = 0.0
    for A, b in _cases(kind):
        x, rank = _kernel(A, b)
        ref, _, ref_rank, _ = np.linalg.lstsq(A, b, rcond=None)
        assert rank == ref_rank
        worst = max(worst, np.max(np.abs(x - ref)) / max(np.max(np.abs(ref)), 1e-300))
    # measured 1.4e-14 (full) and 2.6e-14 (rank-deficient) over these 60 systems each
    assert worst < 1e-13


def test_the_solution_is_the_minimum_norm_one():
    """A wide system has many solutions: the one given is orthogonal to A's null space."""
    A = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
    b = np.array([1.0, 2.0])
    x, rank = _kernel(A, b)
    assert rank == 2
    assert A @ x == pytest.approx(b, abs=1e-14)
    null = np.cross(A[0], A[1])
    assert abs(x @ null) < 1e-14 * np.linalg.norm(null)


def test_the_plane_under_one_axle_and_a_zero_system():
    """Two wheels of one axle stand on a line: the plane z = a + b X + c Y through them is
    undetermined along it, and LAPACK's minimum-norm plane is taken; nothing from nothing."""
    rows = np.array([[1.0, 3.0, -0.8], [1.0, 3.0, 0.8]])
    z = np.array([0.10, 0.12])
    assert _kernel(rows, z)[0] == pytest.approx(np.linalg.lstsq(rows, z, rcond=None)[0],
                                                rel=1e-14)
    x, rank = _kernel(np.zeros((3, 2)), np.ones(3))
    assert rank == 0 and not x.any()
