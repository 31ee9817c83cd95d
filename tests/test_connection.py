"""Unit tests of the connection kernel (engine/connection.py, Eq. 117-135) against the
printed equations: the penalty force and its preload, frame torsion (Eq. 127, 129, 132-133),
hitch friction (Eq. 128, sign corrected), the hinged drawbar, the pitch-rigid joint and the
failure latch. Two units at rest side by side in earth axes; each case sets one quantity."""
import math

import numpy as np
import pytest

from engine import layout as L
from engine.connection import connection_forces, friction_moment, latch_failures
from engine.kinematics import euler_rates, euler_trig, rotation_vehicle_to_earth

K, C, P0 = 2.0e8, 1.0e6, 4.0e4
A_POINT = (-2.64, 0.0, -0.22)     # the tow unit's rear point
B_POINT = (5.96, 0.0, -0.02)      # the towed unit's front point


def _setup(vertical=True, pitch=(0.0, 0.0, 0.0), frame=(0.0, 0.0), friction=(0.0, 0.0, 0.05),
           fail=(0.0, 0.0)):
    P = np.zeros((1, L.N_CONN_P))
    c = P[0]
    c[L.C_TOW], c[L.C_TOWED] = 0, 1
    c[L.C_AX:L.C_AZ + 1] = A_POINT
    c[L.C_BX:L.C_BZ + 1] = B_POINT
    c[L.C_K], c[L.C_C], c[L.C_VERTICAL], c[L.C_P0] = K, C, 1.0 if vertical else 0.0, P0
    c[L.C_KFRAME], c[L.C_CFRAME] = frame
    c[L.C_MU], c[L.C_RADIUS], c[L.C_NULL] = friction
    c[L.C_KPITCH], c[L.C_CPITCH], c[L.C_M0] = pitch
    c[L.C_FAIL_F], c[L.C_FAIL_T] = fail
    y = np.zeros(2 * L.N_BODY + 1)
    # the towed unit in line: its front point on the tow unit's rear point
    y[L.N_BODY + L.SX] = A_POINT[0] - B_POINT[0]
    y[L.N_BODY + L.SZ] = A_POINT[2] - B_POINT[2]
    return P, y


def _run(P, y, record=True):
    frames = np.zeros((2, L.N_FRAME))
    for u in range(2):
        o = L.N_BODY * u
        trig = euler_trig(y[o + L.SPHI], y[o + L.STHETA], y[o + L.SPSI])
        R = np.zeros((3, 3))
        rotation_vehicle_to_earth(*trig, R)
        frames[u, L.FR_R:L.FR_R + 9] = R.ravel()
        cf, sf, ct, st = trig[:4]
        frames[u, L.FR_RATES:L.FR_RATES + 3] = euler_rates(cf, sf, ct, st, y[o + L.SP],
                                                          y[o + L.SQ], y[o + L.SR])
        # the body's own angles and their rates (attitude index 0: the states')
        frames[u, L.FR_ANG:L.FR_ANG + 3] = y[o + L.SPHI:o + L.SPSI + 1]
        frames[u, L.FR_BRATES:L.FR_BRATES + 3] = frames[u, L.FR_RATES:L.FR_RATES + 3]
    ext = np.zeros((2, 6))
    force = np.zeros(1)
    out = np.zeros((1, len(L.HITCH_OUTPUTS)))
    connection_forces(y, P, 2 * L.N_BODY, frames, ext, force, record, out)
    return ext, force[0], out[0]


def test_coincident_points_carry_the_preload_only():
    """Eq. 117 with the preload: the towed unit is held up by P0 (its z is down), the tow unit
    pushed down by it, at the points' lever arms (Eq. 129-134: r x f)."""
    ext, f, out = _run(*_setup())
    assert ext[1, :3] == pytest.approx([0.0, 0.0, -P0], abs=1e-6)   # 1e-16 m rounding x K_C
    assert ext[0, :3] == pytest.approx([0.0, 0.0, P0], abs=1e-6)
    assert ext[1, 4] == pytest.approx(-B_POINT[0] * -P0)             # M_y = -f_z r_x (Eq. 133)
    assert ext[0, 4] == pytest.approx(-A_POINT[0] * P0)              # (Eq. 130)
    assert f == pytest.approx(P0)
    assert out[L.YC_FZ] == pytest.approx(-P0) and out[L.YC_SEP] < 1e-12


def test_separation_gives_the_penalty_force_and_its_damping():
    """Eq. 117: F = K (R_a - R_b) + C (V_a - V_b), earth axes, on the towed unit."""
    P, y = _setup()
    y[L.N_BODY + L.SX] -= 1e-3          # the towed unit 1 mm behind
    y[L.N_BODY + L.SU] = -0.01          # and moving backwards at 1 cm/s
    ext, f, out = _run(P, y)
    assert ext[1, 0] == pytest.approx(K * 1e-3 + C * 0.01)
    assert ext[0, 0] == pytest.approx(-(K * 1e-3 + C * 0.01))
    assert out[L.YC_SEP] == pytest.approx(1e-3)
    assert f == pytest.approx(math.hypot(K * 1e-3 + C * 0.01, P0))


def test_a_hinged_drawbar_carries_no_vertical_force():
    P, y = _setup(vertical=False)
    y[L.N_BODY + L.SZ] += 0.01          # 10 mm lower: free for a hinged drawbar
    y[L.N_BODY + L.SX] -= 1e-3
    ext, _, out = _run(P, y)
    assert ext[1, 2] == 0.0 and ext[1, 0] == pytest.approx(K * 1e-3)
    assert out[L.YC_SEP] == pytest.approx(1e-3)                       # horizontal only


@pytest.mark.parametrize("gamma", [0.0, 0.5, math.pi / 2])
def test_frame_torsion(gamma):
    """Eq. 127: M = (phi_b cos(gamma) - phi_a) K_F + (rates) C_F on the tow unit (Eq. 129),
    -M cos(gamma) in roll and -M sin(gamma) in pitch on the towed unit (Eq. 132-133)."""
    kf, cf = 1.0e6, 1.0e4
    P, y = _setup(frame=(kf, cf))
    P[0, L.C_P0] = 0.0
    y[L.SPSI] = gamma                                  # tow unit yawed, the towed unit not
    y[L.N_BODY:L.N_BODY + 3] = 0.0
    # put the towed unit's front point on the tow unit's rear point in the yawed frame
    ca, sa = math.cos(gamma), math.sin(gamma)
    ax, ay = ca * A_POINT[0], sa * A_POINT[0]
    y[L.N_BODY + L.SX] = ax - B_POINT[0]
    y[L.N_BODY + L.SY] = ay
    y[L.N_BODY + L.SZ] = A_POINT[2] - B_POINT[2]
    y[L.N_BODY + L.SPHI] = 0.01
    ext, _, _ = _run(P, y)
    m = 0.01 * math.cos(gamma) * kf
    fb = ext[1, :3]
    rxf = np.cross(B_POINT, fb)                        # the force part, removed
    assert ext[0, 3] - np.cross(A_POINT, ext[0, :3])[0] == pytest.approx(m, abs=1e-6 * kf)
    assert ext[1, 3] - rxf[0] == pytest.approx(-m * math.cos(gamma), abs=1e-6 * kf)
    assert ext[1, 4] - rxf[1] == pytest.approx(-m * math.sin(gamma), abs=1e-6 * kf)


def _torsion_only(attitude_a, attitude_b, rates_a=(0.0, 0.0, 0.0), rates_b=(0.0, 0.0, 0.0),
                  joint="frame"):
    """The moments (earth axes) of frame torsion alone (``joint`` "frame"), or of a pitch-rigid
    joint alone ("pitch": K 1e6, C 1e4, preload 0): the joint's force rates and preload zero,
    each unit at its Euler angles (phi, theta, psi) and body rates (p, q, r)."""
    P, y = _setup(frame=(1.0e6, 1.0e4)) if joint == "frame" else _setup(pitch=(1.0e6, 1.0e4, 0.0))
    P[0, L.C_K] = P[0, L.C_C] = P[0, L.C_P0] = 0.0
    for u, (att, rates) in enumerate(((attitude_a, rates_a), (attitude_b, rates_b))):
        o = L.N_BODY * u
        y[o + L.SPHI:o + L.SPSI + 1] = att
        y[o + L.SP:o + L.SR + 1] = rates
    ext, _, _ = _run(P, y)
    out = []
    for u, att in enumerate((attitude_a, attitude_b)):
        R = np.zeros((3, 3))
        rotation_vehicle_to_earth(*euler_trig(*att), R)
        out.append(R @ ext[u, 3:])
    return out


def _same_attitude(phi, theta, psi):
    """The other Euler angles of the attitude (phi, theta, psi): (phi + pi, pi - theta, psi + pi)."""
    return phi + math.pi, math.pi - theta, psi + math.pi


def test_frame_torsion_is_the_twists_not_the_euler_angles():
    """The twist is the attitude's (docs/equations.md, "Frame torsion"): the same two attitudes
    in other Euler angles (a whole turn of roll, the angles latched past 90 degrees of pitch)
    give the same moments, where the printed phi_b cos(gamma) - phi_a jumped by 2 pi and by pi."""
    a, b = (0.3, 0.2, 0.4), (-0.5, 0.1, 0.1)
    ma, mb = _torsion_only(a, b)
    for a2, b2 in [(a, (b[0] + 2.0 * math.pi, b[1], b[2])), (_same_attitude(*a), b),
                   (a, _same_attitude(*b)), (_same_attitude(*a), _same_attitude(*b))]:
        ma2, mb2 = _torsion_only(a2, b2)
        assert ma2 == pytest.approx(ma, abs=1e-6) and mb2 == pytest.approx(mb, abs=1e-6)
    # between level units the spring's moment is k sin(tau) cos(tau) at a twist tau: k tau
    # to first order, softening past 45 degrees, nothing at a quarter turn
    for tau in (0.01, 0.5, math.pi / 4, 1.2, math.pi / 2):
        m = _torsion_only((0.0, 0.0, 0.0), (tau, 0.0, 0.0))[1]
        assert m == pytest.approx([-1.0e6 * math.sin(tau) * math.cos(tau), 0.0, 0.0], abs=1e-6)


@pytest.mark.parametrize("attitudes", [((1.2, 0.4, 0.3), (-0.7, -0.3, 1.1)),
                                       ((2.5, 1.3, -2.0), (0.2, -1.4, 0.7))])
@pytest.mark.parametrize("joint", ["frame", "pitch"])
def test_frame_torsion_is_an_equal_and_opposite_pair_at_any_attitude(attitudes, joint):
    """The moment on the tow unit is the opposite of the towed unit's, rates included, so the
    joint's torsion (or a pitch-rigid joint) carries no net moment (the printed pair does only
    with both units level)."""
    ma, mb = _torsion_only(*attitudes, rates_a=(0.5, -0.2, 0.3), rates_b=(-1.0, 0.4, 0.1),
                           joint=joint)
    assert np.linalg.norm(mb) > 5e4
    assert ma == pytest.approx(-mb, abs=1e-9 * np.linalg.norm(mb))


def test_frame_torsion_stores_the_springs_energy():
    """The spring is conservative: the moment on the towed unit is minus the gradient of
    K u^2 / 2 in its rotation, u = sin(tau) = -z_b . y_a the sine of the twist (central
    differences of the energy as the towed unit is turned about each earth axis; the kernel's
    moment is its closed-form gradient). Also where the towed unit's z-axis lies along the tow
    unit's x-axis (a jackknifed trailer on its side), nothing is singular."""
    for a, b in [((0.4, 0.3, 0.2), (-0.6, 0.5, -0.3)), ((0.1, 0.0, 1.6), (-1.45, 0.05, 0.0))]:
        _check_gradient(a, b, "frame", lambda Ra, Rb: -Rb[:, 2] @ Ra[:, 1])


def test_a_pitch_rigid_joint_stores_the_springs_energy():
    """The pitch-rigid joint too: its moment on the towed unit is minus the gradient of K s^2 / 2,
    s = sin(theta) = x_a . z_b the sine of the relative pitch (it was applied about the towed
    unit's y-axis, which gives or takes energy as the units turn apart)."""
    for a, b in [((0.4, 0.3, 0.2), (-0.6, 0.5, -0.3)), ((0.2, -0.4, 1.2), (1.1, 0.3, -0.2))]:
        _check_gradient(a, b, "pitch", lambda Ra, Rb: Ra[:, 0] @ Rb[:, 2])


def _check_gradient(a, b, joint, sine, kf=1.0e6):
    m = _torsion_only(a, b, joint=joint)[1]

    def matrix(att):
        R = np.zeros((3, 3))
        rotation_vehicle_to_earth(*euler_trig(*att), R)
        return R

    Ra = matrix(a)

    def energy(Rb):
        u = sine(Ra, Rb)
        return 0.5 * kf * u * u

    Rb, e = matrix(b), 1e-6
    for k in range(3):
        c, s = math.cos(e), math.sin(e)
        rot = {0: [[1, 0, 0], [0, c, -s], [0, s, c]], 1: [[c, 0, s], [0, 1, 0], [-s, 0, c]],
               2: [[c, -s, 0], [s, c, 0], [0, 0, 1]]}[k]
        dv = (energy(np.array(rot) @ Rb) - energy(np.array(rot).T @ Rb)) / (2.0 * e)
        assert m[k] == pytest.approx(-dv, rel=1e-5, abs=1e-3)


def test_hitch_friction_resists_the_articulation_rate():
    """Eq. 128 in the corrected sign: the tow unit yawing right relative to the trailer gets a
    moment to the left, the trailer one to the right; proportional inside the null band."""
    mu, radius, band = 0.1, 0.2, 0.05
    P, y = _setup(friction=(mu, radius, band))
    y[L.SR] = 0.1                                      # beyond the null band
    ext, _, _ = _run(P, y)
    m = mu * P0 * radius
    torque = ext[:, 5] - np.array([np.cross(A_POINT, ext[0, :3])[2], np.cross(B_POINT, ext[1, :3])[2]])
    assert torque == pytest.approx([-m, m], rel=1e-3)
    assert friction_moment(mu, P0, radius, band, 0.025) == pytest.approx(-0.5 * m)
    assert friction_moment(mu, P0, radius, band, -1.0) == pytest.approx(m)


def test_a_pitch_rigid_joint_resists_relative_pitch():
    kp = 1.0e8
    P, y = _setup(pitch=(kp, 0.0, 0.0))
    P[0, L.C_P0] = 0.0
    y[L.N_BODY + L.STHETA] = 1e-4                      # towed unit pitched nose up
    ext, _, _ = _run(P, y)
    my = ext[1, 4] - np.cross(B_POINT, ext[1, :3])[1]
    assert my == pytest.approx(-kp * 1e-4, rel=1e-6)


def test_failure_latches_after_its_start_time_only():
    P, y = _setup(fail=(3.0e4, 1.0))
    _, f, _ = _run(P, y)
    force = np.array([f])
    assert not latch_failures(y, 0.5, P, 2 * L.N_BODY, force)          # before the start time
    assert latch_failures(y, 1.0, P, 2 * L.N_BODY, force)              # P0 = 40 kN > 30 kN
    assert y[2 * L.N_BODY] == 1.0
    ext, f, out = _run(P, y)
    assert not ext.any() and f == 0.0 and out[L.YC_FAILED] == 1.0
