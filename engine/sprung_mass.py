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
closed form, see :func:`assemble_unit` and :func:`finish_unit`), the resulting 6x6 system is solved by the
square-root-free Cholesky factorisation (L D L^T) and the wheel accelerations follow by back-substitution. All of it is done in
place, without allocation.
"""
import math

from .jit import njit_inline


@njit_inline
def solve_spd(A, b, N):
    """Solve A x = b in place for a symmetric positive-definite A[:N, :N].

    Factorisation A = L D L^T (L unit lower triangular, D diagonal; the square-root-free form
    of Cholesky's, so that each column costs one division and no square root), L overwriting
    the strict lower triangle of A, the reciprocals of D its diagonal, and L D the strict
    upper triangle (A[j, i] = L[i, j] D[j], i > j: the sums' partial products; the upper
    triangle is not read on entry); then forward substitution, the division by D and back
    substitution; x overwrites b[:N]. A matrix that is not positive definite (or holds NaN)
    gives NaN, which the integrator's check of the state reports.
    """
    for j in range(N):
        d = A[j, j]
        for k in range(j):
            d -= A[j, k] * A[k, j]
        inv = 1.0 / d if d > 0.0 else math.nan    # not positive definite, or NaN
        A[j, j] = inv
        for i in range(j + 1, N):
            s = A[i, j]
            for k in range(j):
                s -= A[i, k] * A[k, j]
            A[j, i] = s
            A[i, j] = s * inv
    for i in range(N):              # L z = b
        s = b[i]
        for k in range(i):
            s -= A[i, k] * b[k]
        b[i] = s
    for i in range(N - 1, -1, -1):  # L^T x = D^-1 z
        s = b[i] * A[i, i]
        for k in range(i + 1, N):
            s -= A[k, i] * b[k]
        b[i] = s


@njit_inline
def assemble_unit(ms, Ix, Iy, Iz, Ixz, Izu, u, v, w, p, q, r, gx, gy, gz,
                  F, M, m_w, x_w, y_w, z_w, zd_w, fz_w, n, A, b, zdd):
    """Assemble the coupled sprung/unsprung equations of one unit, its independent wheels
    eliminated (solid axles are added by :func:`add_solid_axle`).

    The yaw inertia is the sprung mass's Iz plus Izu, the unsprung masses' own yaw inertias
    (Eq. 10: ``(I_z + sum I_z,Unsprung) r'``; their masses' m d^2 come with the point masses,
    Eq. 11-14). The unsprung masses turn with the body, so Izu is in its angular momentum
    ``L_z`` too: the rigid body's gyroscopic terms, ``qr Izu`` in the roll row and ``-pr Izu``
    in the pitch row, which Eq. 8-9 as printed leave out (docs/equations.md, "Unsprung yaw
    inertia").

    F, M: external force and moment about the sprung CG (vehicle-fixed, length 3).
    m_w, x_w, y_w, z_w, zd_w: per-wheel mass, position and z-rate (length n).
    fz_w: per wheel, the generalised force on its z-displacement: its tire forces' (their z
    component, and the lateral force through the half-track and camber change, see
    engine/vehicle.py) plus its suspension force Fs.
    g*: gravity in the vehicle frame. A (at least 6x6) and b (at least 6): scratch for the
    system. Writes zdd[:n] = each wheel's right-hand side b_w for :func:`finish_unit`.

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
    Izt = Iz + Izu                  # Eq. 10: I_z + sum I_z,Unsprung
    A[5, 5] = Izt
    A[5, 3] = -Ixz
    b[0] = F[0] + mt * gx - mt * wvx
    b[1] = F[1] + mt * gy - mt * wvy
    b[2] = F[2] + mt * gz - mt * wvz
    # w x (I w), inertia with -Ixz off-diagonal (Eq. 2)
    Lx = Ix * p - Ixz * r
    Ly = Iy * q
    Lz = Izt * r - Ixz * p
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


@njit_inline
def finish_unit(m_w, x_w, y_w, n, A, b, acc, zdd):
    """Solve the assembled 6x6 system; acc = (u', v', w', p', q', r'), and the independent
    wheels' z'' by back-substitution (zdd holds their b_w on entry)."""
    solve_spd(A, b, 6)
    for k in range(6):
        acc[k] = b[k]
    for i in range(n):
        # back-substitution: zdd = bw / mi - e_i . x
        zdd[i] = zdd[i] / m_w[i] - (b[2] + y_w[i] * b[3] - x_w[i] * b[4])


@njit_inline
def add_solid_axle(A, b, aw, m, Icm, x, yc, zc, rho, phi, phid, deld, u, v, w, p, q, r,
                   gx, gy, gz, Qd, Qp):
    """Add a solid axle to the assembled system of its unit and eliminate its two unknowns
    (Eq. 19-26, in the corrected form of docs/equations.md).

    The axle is a rigid body of mass m and roll inertia Icm about its mass centre, which lies
    rho below the roll centre. Its coordinates are the roll centre's heave delta (the roll
    centre at (x, yc, zc), zc including delta) and its roll phi relative to the sprung mass,
    about the vehicle x-axis through the roll centre. Its mass centre is at
    r = (x, yc - rho sin phi, zc + rho cos phi) (Eq. 19, 22) and accelerates with

        a = V' + w x V - r x w' + w x (w x r) + 2 w x r' + J (delta'', phi'') + c_rel

    with J = [e_z, (0, -rho cos phi, -rho sin phi)] (Eq. 20-21, 23-24) and c_rel the
    quadratic terms of Eq. 21 and 24. Its angular velocity is w + phi' e_x. Kane's equations
    of the unit and the axle share the accelerations; the axle's rows (generalised forces Qd
    and Qp: the tire and suspension forces on its heave and roll) are eliminated into the six
    body rows by the Schur complement of its 2x2 block, and ``aw`` keeps what
    :func:`solid_axle_accelerations` needs afterwards. Only the lower triangle of A is used.
    """
    cf, sf = math.cos(phi), math.sin(phi)
    rx, ry, rz = x, yc - rho * sf, zc + rho * cf
    j2y, j2z = -rho * cf, -rho * sf
    vry, vrz = j2y * phid, deld + j2z * phid
    cry, crz = rho * sf * phid * phid, -rho * cf * phid * phid
    # c = w x V + w x (w x r) + 2 w x r' + c_rel
    wrx, wry, wrz = q * rz - r * ry, r * rx - p * rz, p * ry - q * rx
    cx = (q * w - r * v) + (q * wrz - r * wry) + 2.0 * (q * vrz - r * vry)
    cy = (r * u - p * w) + (r * wrx - p * wrz) + 2.0 * (-p * vrz) + cry
    cz = (p * v - q * u) + (p * wry - q * wrx) + 2.0 * (p * vry) + crz
    fx, fy, fz = m * (gx - cx), m * (gy - cy), m * (gz - cz)
    # body rows: the axle's full inertia
    A[0, 0] += m
    A[1, 1] += m
    A[2, 2] += m
    A[3, 1] -= m * rz
    A[3, 2] += m * ry
    A[4, 0] += m * rz
    A[4, 2] -= m * rx
    A[5, 0] -= m * ry
    A[5, 1] += m * rx
    A[3, 3] += m * (ry * ry + rz * rz) + Icm
    A[4, 4] += m * (rx * rx + rz * rz)
    A[5, 5] += m * (rx * rx + ry * ry)
    A[4, 3] -= m * rx * ry
    A[5, 3] -= m * rx * rz
    A[5, 4] -= m * ry * rz
    h = Icm * (p + phid)          # the axle's roll momentum; w x (I_u W) = (0, r h, -q h)
    b[0] += fx
    b[1] += fy
    b[2] += fz
    b[3] += ry * fz - rz * fy
    b[4] += rz * fx - rx * fz - r * h
    b[5] += rx * fy - ry * fx + q * h
    # the coupling B (6x2): [m J; m r x J + I_u G], row-major in aw[0:12]
    aw[0], aw[1] = 0.0, 0.0
    aw[2], aw[3] = 0.0, m * j2y
    aw[4], aw[5] = m, m * j2z
    aw[6], aw[7] = m * ry, m * (ry * j2z - rz * j2y) + Icm
    aw[8], aw[9] = -m * rx, m * (-rx * j2z)
    aw[10], aw[11] = 0.0, m * (rx * j2y)
    m11, m12, m22 = m, m * j2z, m * rho * rho + Icm
    det = m11 * m22 - m12 * m12
    i11, i12, i22 = m22 / det, -m12 / det, m11 / det
    bq1 = fz + Qd
    bq2 = j2y * fy + j2z * fz + Qp
    aw[12], aw[13], aw[14] = i11, i12, i22
    aw[15], aw[16] = bq1, bq2
    for i in range(6):
        bi1, bi2 = aw[2 * i], aw[2 * i + 1]
        t1 = bi1 * i11 + bi2 * i12
        t2 = bi1 * i12 + bi2 * i22
        for j in range(i + 1):
            A[i, j] -= t1 * aw[2 * j] + t2 * aw[2 * j + 1]
        b[i] -= t1 * bq1 + t2 * bq2


@njit_inline
def solid_axle_accelerations(aw, acc):
    """(delta'', phi'') of an axle eliminated by :func:`add_solid_axle`, once the body
    accelerations ``acc`` are known: M_qq^-1 (b_q - B^T acc)."""
    r1 = aw[15]
    r2 = aw[16]
    for i in range(6):
        r1 -= aw[2 * i] * acc[i]
        r2 -= aw[2 * i + 1] * acc[i]
    return aw[12] * r1 + aw[13] * r2, aw[13] * r1 + aw[14] * r2
