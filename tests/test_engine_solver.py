"""The in-place solvers of the sprung-mass equations agree with numpy's general solver, and
`solve_unit` with an independently assembled full system of the unit."""
import numpy as np
import pytest

from engine.sprung_mass import assemble_unit, finish_unit, solve_spd


def solve_unit(ms, Ix, Iy, Iz, Ixz, Izu, u, v, w, p, q, r, gx, gy, gz,
               F, M, m_w, x_w, y_w, z_w, zd_w, fz_w, n, A, b, acc, zdd):
    """Assemble and solve the coupled sprung/unsprung equations of a unit on independent
    wheels, as the engine does (:func:`assemble_unit`, then :func:`finish_unit`)."""
    assemble_unit(ms, Ix, Iy, Iz, Ixz, Izu, u, v, w, p, q, r, gx, gy, gz, F, M, m_w, x_w, y_w,
                  z_w, zd_w, fz_w, n, A, b, zdd)
    finish_unit(m_w, x_w, y_w, n, A, b, acc, zdd)


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


def _full_system(ms, inertia, V, w, g, F, M, m_w, r_w, zd_w, fz_w):
    """The coupled sprung/unsprung equations of one unit (sprung_mass module docstring)
    assembled as one linear system in (u', v', w', p', q', r', zdd_1..zdd_n), written
    term by term with numpy's cross products and read off column by column."""
    n = len(m_w)
    e_z = np.array([0.0, 0.0, 1.0])

    def residual(z):
        dV, dw, zdd = z[:3], z[3:6], z[6:]
        lin = ms * (dV + np.cross(w, V)) - F - ms * g
        ang = inertia @ dw + np.cross(w, inertia @ w) - M
        wheel = np.zeros(n)
        for i in range(n):
            r, rd, rdd = r_w[i], zd_w[i] * e_z, zdd[i] * e_z
            a_i = dV + np.cross(w, V) + np.cross(dw, r) + np.cross(w, np.cross(w, r)) \
                + 2.0 * np.cross(w, rd) + rdd                       # Eq. 11-12
            lin += m_w[i] * (a_i - g)
            ang += np.cross(r, m_w[i] * (a_i - g))
            wheel[i] = m_w[i] * (a_i @ e_z) - fz_w[i] - m_w[i] * g[2]   # Eq. 18
        return np.concatenate([lin, ang, wheel])

    r0 = residual(np.zeros(6 + n))
    A = np.column_stack([residual(np.eye(6 + n)[k]) - r0 for k in range(6 + n)])
    return A, -r0


@pytest.mark.parametrize("n_wheels", [1, 2, 4, 6])
def test_solve_unit_matches_the_full_system(n_wheels):
    rng = np.random.default_rng(200 + n_wheels)
    for _ in range(20):
        ms = rng.uniform(300.0, 3000.0)
        Ix, Iy, Iz = rng.uniform(200.0, 4000.0, size=3)
        Ixz = rng.uniform(-0.3, 0.3) * np.sqrt(Ix * Iz)
        # the unsprung masses' own yaw inertias turn with the body: the tensor's zz (Eq. 10)
        Izu = rng.uniform(0.0, 300.0)
        inertia = np.array([[Ix, 0.0, -Ixz], [0.0, Iy, 0.0], [-Ixz, 0.0, Iz + Izu]])
        V = rng.uniform(-30.0, 30.0, size=3)
        w = rng.uniform(-1.5, 1.5, size=3)
        g = rng.normal(size=3) + np.array([0.0, 0.0, 9.8])
        F = rng.normal(scale=5e3, size=3)
        M = rng.normal(scale=3e3, size=3)
        m_w = rng.uniform(20.0, 120.0, size=n_wheels)
        r_w = np.column_stack([rng.uniform(-3.0, 3.0, n_wheels), rng.uniform(-1.0, 1.0, n_wheels),
                               rng.uniform(0.1, 0.6, n_wheels)])
        zd_w = rng.uniform(-0.5, 0.5, size=n_wheels)
        fz_w = rng.normal(scale=4e3, size=n_wheels)
        A_full, b_full = _full_system(ms, inertia, V, w, g, F, M, m_w, r_w, zd_w, fz_w)
        expected = np.linalg.solve(A_full, b_full)

        A = np.full((6 + n_wheels + 2, 6 + n_wheels), 3.0)    # scratch as the engine passes it
        b = np.full(6 + n_wheels, 3.0)
        acc = np.zeros(6 + n_wheels)
        zdd = np.zeros(6 + n_wheels)
        solve_unit(ms, Ix, Iy, Iz, Ixz, Izu, *V, *w, *g, F, M, m_w, r_w[:, 0].copy(), r_w[:, 1].copy(),
                   r_w[:, 2].copy(), zd_w, fz_w, n_wheels, A, b, acc, zdd)
        got = np.concatenate([acc[:6], zdd[:n_wheels]])
        scale = np.abs(expected).max()
        assert np.abs(got - expected).max() <= 1e-13 * scale, (got, expected)  # 3e-14 measured


def test_not_positive_definite_gives_nan():
    A = np.array([[1.0, 2.0], [2.0, 1.0]])
    b = np.array([1.0, 1.0])
    solve_spd(A, b, 2)
    assert np.isnan(b).all()
