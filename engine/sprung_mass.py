"""Sprung mass with inertially coupled unsprung masses (Eq. 1-14, 18).

The manual writes Euler's equations of the sprung mass in the vehicle-fixed frame (Eq. 1-2,
8-10) with the unsprung masses entering as point-mass inertial forces (Eq. 11-14) and each
independent wheel's vertical equation of motion (Eq. 18). Those equations share the unknown
accelerations (u', v', w', p', q', r' and every wheel's z''), so they are assembled here as
one symmetric linear system and solved together, rather than with lagged accelerations:

    linear momentum  m_s (V' + w x V) + sum m_i a_i          = F_ext + (m_s + sum m_i) g
    angular momentum I w' + w x I w + sum r_i x m_i a_i      = M_ext + sum r_i x m_i g
    wheel i along z  m_i (a_i . e_z)                         = F_tire,i . e_z + m_i g_z + Fs_i

with a_i = V' + w x V + w' x r_i + w x (w x r_i) + 2 w x r_i' + r_i'' the acceleration of
unsprung mass i (Eq. 11-12, with the typos of Eq. 13 and 18 corrected, docs/equations.md).
F_ext and M_ext hold the tire forces at their contact points, aerodynamics and (later)
connections and collisions (Eq. 3, 7).

The system matrix is the unit's mass matrix: symmetric and positive definite (positive masses
and inertias). Each wheel's equation couples its own z'' only with the body accelerations, so
the wheel block of the matrix is diagonal (an "arrowhead" matrix): the wheel unknowns are
eliminated into the six body equations (the Schur complement, which for this matrix has a
closed form, see :func:`solve_unit`), the resulting 6x6 system is solved by Cholesky
factorisation and the wheel accelerations follow by back-substitution. All of it is done in
place, without allocation.
"""
import math

from .jit import njit, njit_inline


@njit_inline
def solve_spd(A, b, N):
    """Solve A x = b in place for a symmetric positive-definite A[:N, :N].

    Cholesky factorisation A = L L^T, L overwriting the lower triangle of A (the upper one is
    not read) with the reciprocals of its diagonal on the diagonal, then forward and back
    substitution; x overwrites b[:N]. A matrix that is not
    positive definite (or holds NaN) gives NaN, which the integrator's check of the state
    reports.
    """
    for j in range(N):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[j, k]
        inv = 1.0 / math.sqrt(d) if d > 0.0 else math.nan   # not positive definite, or NaN
        A[j, j] = inv
        for i in range(j + 1, N):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[j, k]
            A[i, j] = s * inv
    for i in range(N):              # L z = b
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s * A[i, i]
    for i in range(N - 1, -1, -1):  # L^T x = z
        s = b[i]
        for k in range(i + 1, N):
            s -= A[k, i] * b[k]
        b[i] = s * A[i, i]


@njit_inline
def solve_unit(ms, Ix, Iy, Iz, Ixz, u, v, w, p, q, r, gx, gy, gz,
               F, M, m_w, x_w, y_w, z_w, zd_w, fz_w, n, A, b, acc, zdd):
    """Assemble and solve the coupled sprung/unsprung equations of one unit.

    F, M: external force and moment about the sprung CG (vehicle-fixed, length 3).
    m_w, x_w, y_w, z_w, zd_w: per-wheel mass, position and z-rate (length n).
    fz_w: per wheel, the generalised force on its z-displacement: its tire forces' (their z
    component, and the lateral force through the half-track and camber change, see
    engine/vehicle.py) plus its suspension force Fs.
    g*: gravity in the vehicle frame. A (at least 6x6) and b (at least 6): scratch for the
    system. Writes acc = (u', v', w', p', q', r') and zdd[:n].

    The wheel unknowns are eliminated in closed form. Wheel i's row reads
    m_i (e_i . x + zdd_i) = b_i with e_i = (0, 0, 1, y_i, -x_i, 0) and x the body
    accelerations, and its zdd_i enters the body rows as m_i e_i zdd_i. The Schur complement
    of the diagonal wheel block therefore removes m_i e_i e_i^T from the
    body block and e_i b_i from its right-hand side: each wheel's own vertical inertia is
    carried by its own equation, and the 6x6 system left is solved by :func:`solve_spd`.
    """
    for i in range(6):
        b[i] = 0.0
        for j in range(6):
            A[i, j] = 0.0
    mt = ms
    for i in range(n):
        mt += m_w[i]
    # w x V
    wvx = q * w - r * v
    wvy = r * u - p * w
    wvz = p * v - q * u
    # body block less sum m_i e_i e_i^T: the z row keeps the sprung mass only, and the
    # wheels' r x e_z terms cancel from the roll and pitch rows (see the docstring)
    A[0, 0] = mt
    A[1, 1] = mt
    A[2, 2] = ms
    A[3, 3] = Ix
    A[4, 4] = Iy
    A[5, 5] = Iz
    A[5, 3] = -Ixz
    b[0] = F[0] + mt * gx - mt * wvx
    b[1] = F[1] + mt * gy - mt * wvy
    b[2] = F[2] + mt * gz - mt * wvz
    # w x (I w), inertia with -Ixz off-diagonal (Eq. 2)
    Lx = Ix * p - Ixz * r
    Ly = Iy * q
    Lz = Iz * r - Ixz * p
    b[3] = M[0] - (q * Lz - r * Ly)
    b[4] = M[1] - (r * Lx - p * Lz)
    b[5] = M[2] - (p * Ly - q * Lx)
    for i in range(n):
        mi = m_w[i]
        rx, ry, rz = x_w[i], y_w[i], z_w[i]
        zd = zd_w[i]
        # c_i = w x (w x r) + 2 w x r', r' = (0, 0, zd)  (w x V is already in b)
        wrx = q * rz - r * ry
        wry = r * rx - p * rz
        wrz = p * ry - q * rx
        cx = q * wrz - r * wry + 2.0 * (q * zd)
        cy = r * wrx - p * wrz + 2.0 * (-p * zd)
        cz = p * wry - q * wrx
        # linear rows: mi (V' - [r]x w' + e_z zdd); only the lower triangle is stored
        A[4, 0] += mi * rz
        A[5, 0] -= mi * ry
        A[3, 1] -= mi * rz
        A[5, 1] += mi * rx
        b[0] -= mi * cx
        b[1] -= mi * cy
        b[2] -= mi * cz
        # angular rows: - mi [r]x [r]x = mi (|r|^2 I - r r^T), less mi e_i e_i^T
        A[3, 3] += mi * (rz * rz)
        A[4, 4] += mi * (rz * rz)
        A[5, 5] += mi * (rx * rx + ry * ry)
        A[5, 3] -= mi * rx * rz
        A[5, 4] -= mi * ry * rz
        # the angular rows need the whole a_i - V' - w' x r - e_z zdd, w x V included
        ax_, ay_, az_ = cx + wvx, cy + wvy, cz + wvz
        b[3] += mi * (ry * (gz - az_) - rz * (gy - ay_))
        b[4] += mi * (rz * (gx - ax_) - rx * (gz - az_))
        b[5] += mi * (rx * (gy - ay_) - ry * (gx - ax_))
        # wheel row: mi (w' + p' y - q' x + zdd) = fz + mi gz - mi (wvz + cz) =: bw,
        # eliminated: the body rows lose e_i bw
        bw = fz_w[i] + mi * gz - mi * (wvz + cz)
        zdd[i] = bw
        b[2] -= bw
        b[3] -= ry * bw
        b[4] += rx * bw
    solve_spd(A, b, 6)
    for k in range(6):
        acc[k] = b[k]
    for i in range(n):
        # back-substitution: zdd = bw / mi - e_i . x
        zdd[i] = zdd[i] / m_w[i] - (b[2] + y_w[i] * b[3] - x_w[i] * b[4])
