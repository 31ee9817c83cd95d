"""The in-place solvers of the sprung-mass equations agree with numpy's general solver."""
import numpy as np
import pytest

from engine.sprung_mass import solve_arrowhead_spd, solve_spd


def _spd(rng, n):
    x = rng.normal(size=(n, n))
    return x @ x.T + n * np.eye(n)


@pytest.mark.parametrize("n", [1, 2, 6, 9, 12])
def test_cholesky_solve_matches_numpy(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a = _spd(rng, n)
        b = rng.normal(size=n)
        expected = np.linalg.solve(a, b)
        # scratch larger than the system, as in the engine
        A = np.full((n + 3, n + 2), 7.0)
        A[:n, :n] = a
        x = np.full(n + 2, 5.0)
        x[:n] = b
        solve_spd(A, x, n)
        np.testing.assert_allclose(x[:n], expected, rtol=1e-11, atol=1e-12)
        assert np.all(x[n:] == 5.0)


@pytest.mark.parametrize("n_wheels", [0, 1, 4, 6])
def test_arrowhead_solve_matches_numpy(n_wheels):
    rng = np.random.default_rng(100 + n_wheels)
    m, n = 6, 6 + n_wheels
    for _ in range(20):
        # the structure of a unit's mass matrix: body block plus, per wheel of mass mi,
        # mi c c^T in the body block, mi c in the border and mi on the diagonal
        full = np.zeros((n, n))
        full[:m, :m] = _spd(rng, m)
        for k in range(n_wheels):
            mi = rng.uniform(10.0, 80.0)
            c = np.zeros(m)
            c[2:5] = rng.normal(size=3)
            full[:m, :m] += mi * np.outer(c, c)
            full[:m, m + k] = full[m + k, :m] = mi * c
            full[m + k, m + k] = mi
        assert np.linalg.eigvalsh(full)[0] > 0.0
        b = rng.normal(size=n)
        expected = np.linalg.solve(full, b)
        A = full.copy()
        x = b.copy()
        solve_arrowhead_spd(A, x, m, n)
        np.testing.assert_allclose(x, expected, rtol=1e-10, atol=1e-12)


def test_not_positive_definite_gives_nan():
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    b = np.array([1.0, 1.0])
    solve_spd(A, b, 2)
    assert np.isnan(b).all()
