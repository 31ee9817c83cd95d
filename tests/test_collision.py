"""The collision kernel (engine.collision) against closed forms: a box mesh pressed into a
plane, and the unloading path's energy ratio."""
import math

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.collision import environment_pairs, normal_force
from engine.setup.collision import box_mesh, pack_collisions
from engine.simulation import Simulation

B_SIDE = 3.5e5


def _cube_model(offset_x=0.0, n=300):
    """The default event's model with a 1 m cube mesh in place of the car's (the cube's
    centre offset_x behind the CG), the stiffness of every face B_SIDE / 1 m per unit area."""
    sim = Simulation(engine.load_event())
    areal = np.full(L.N_FACES, B_SIDE / 1.0)
    cv, ck = box_mesh(0.5 - offset_x, -0.5 - offset_x, 0.5, -0.5, 0.5, areal, n)
    P_COLL = sim.model.P_COLL.copy()
    P_COLL[0, L.CO_NV] = len(cv)
    P_COLL[0, L.CO_XMIN:L.CO_ZMAX + 1] = (cv[:, 0].min(), cv[:, 0].max(), cv[:, 1].min(),
                                          cv[:, 1].max(), cv[:, 2].min(), cv[:, 2].max())
    P_WCOLL = np.zeros_like(sim.model.P_WCOLL)          # no wheel meshes
    model = sim.model._replace(P_COLL=P_COLL, CV=cv, CK=ck, P_WCOLL=P_WCOLL)
    y = np.zeros(int(model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE + len(cv))
    return sim, model, y, cv, ck


def _wheels(model):
    """The wheel meshes' poses, loads and pose flags, the driver's inputs and the time (none of
    the cube's meshes; the car's wheels at rest)."""
    n = model.P_WHEEL.shape[0]
    nu = model.P_UNIT.shape[0]
    return (np.zeros((n, L.N_WPOSE)), np.zeros((n, L.N_WLOAD)), np.zeros(nu),
            L.Inputs(np.zeros((nu, len(engine.UNIT_INPUTS))), np.zeros((n, len(engine.WHEEL_INPUTS))),
                     np.zeros(len(engine.ENV_INPUTS))), 0.0)


def _frames(roll=0.0, pitch=0.0):
    from engine.kinematics import euler_trig, rotation_vehicle_to_earth
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(roll, pitch, 0.0), R)
    F = np.zeros((1, L.N_FRAME))
    F[0, :9] = R.ravel()
    return F


def test_box_mesh_tributary_areas_sum_to_each_face():
    areal = np.arange(1.0, 7.0)
    cv, ck = box_mesh(2.0, -2.5, 0.8, -0.7, 0.4, areal, 300)
    assert 200 <= len(cv) <= 400
    lx, ly, lz = 4.5, 1.6, 1.1
    areas = {L.FACE_FRONT: ly * lz, L.FACE_REAR: ly * lz, L.FACE_RIGHT: lx * lz,
             L.FACE_LEFT: lx * lz, L.FACE_BOTTOM: lx * ly, L.FACE_ROOF: lx * ly}
    for f, a in areas.items():
        assert ck[:, f].sum() == pytest.approx(areal[f] * a, rel=1e-12)
    # every vertex lies on the box's surface
    on = (np.isclose(cv[:, 0], 2.0) | np.isclose(cv[:, 0], -2.5) | np.isclose(abs(cv[:, 1]), 0.8)
          | np.isclose(cv[:, 2], -0.7) | np.isclose(cv[:, 2], 0.4))
    assert on.all()


@pytest.mark.parametrize("offset_x", [0.0, 0.2])
def test_cube_pressed_into_the_ground(offset_x):
    """A cube whose underside is d below the ground: F_z = -(B/H) * area * d (up), and the
    moment about a CG offset_x ahead of the centre is that force at x = -offset_x."""
    sim, model, y, cv, ck = _cube_model(offset_x)
    d = 0.01
    y[L.SZ] = model.P_ENV[L.E_GROUND_Z] - 0.5 + d       # the underside (z = +0.5) d below
    out = np.zeros(L.N_COLL_ROW)
    environment_pairs(y, model, sim.u_wheel, 0, _frames(), False, out, *_wheels(model))
    k_face = B_SIDE / 1.0 * 1.0
    assert out[2] == pytest.approx(-k_face * d, rel=1e-12)
    assert abs(out[0]) < 1e-9 and abs(out[1]) < 1e-9
    assert out[3] == pytest.approx(0.0, abs=1e-9)
    # M_y = z F_x - x F_z, the force at the centre, x = -offset_x
    assert out[4] == pytest.approx(offset_x * out[2], rel=1e-9, abs=1e-9)
    assert out[6] == np.count_nonzero(np.isclose(cv[:, 2], 0.5))
    assert out[7] == pytest.approx(d)


def test_cube_tilted_into_the_ground():
    """Pitched by a small angle, each underside vertex's approach is d + x sin(theta): the
    force and moment are the sums of k_v times those approaches (the underside's stiffness
    weighted by cos theta)."""
    sim, model, y, cv, ck = _cube_model()
    th, d = 0.05, 0.02
    y[L.SZ] = model.P_ENV[L.E_GROUND_Z] - 0.5 / math.cos(th) + d
    y[L.STHETA] = th
    out = np.zeros(L.N_COLL_ROW)
    environment_pairs(y, model, sim.u_wheel, 0, _frames(pitch=th), False, out, *_wheels(model))
    R = _frames(pitch=th)[0, :9].reshape(3, 3)
    Zv = y[L.SZ] + cv[:, :3] @ R[2]
    pen = Zv - model.P_ENV[L.E_GROUND_Z]
    nb = R.T @ np.array([0.0, 0.0, -1.0])
    k = ck[:, L.FACE_BOTTOM] * -nb[2] + ck[:, L.FACE_REAR] * max(nb[0], 0) + ck[:, L.FACE_FRONT] * max(-nb[0], 0)
    f = np.where(pen > 0, k * pen, 0.0)
    F = (f[:, None] * nb).sum(axis=0)
    M = np.cross(cv[:, :3], f[:, None] * nb).sum(axis=0)
    assert out[:3] == pytest.approx(F, rel=1e-9)
    assert out[3:6] == pytest.approx(M, rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("e", [0.1, 0.3, 0.7, 1.0])
def test_unloading_returns_e_squared_of_the_loading_work(e):
    k, dmax = 2.0e6, 0.1
    x = np.linspace(0.0, dmax, 20001)
    load = np.array([normal_force(k, e, 0.0, p, 1.0, p) for p in x])
    unload = np.array([normal_force(k, e, 0.0, p, -1.0, dmax) for p in x])
    w_in = np.trapezoid(load, x)
    w_out = np.trapezoid(unload, x)
    assert w_in == pytest.approx(0.5 * k * dmax ** 2, rel=1e-6)
    assert w_out / w_in == pytest.approx(e * e, rel=1e-3)
    # the permanent crush: no force below (1 - e^2) dmax, the loading line at dmax
    assert normal_force(k, e, 0.0, (1 - e * e) * dmax * 0.999, -1.0, dmax) == 0.0
    assert normal_force(k, e, 0.0, dmax, 0.0, dmax) == pytest.approx(k * dmax)


def test_damping_acts_on_the_elastic_branch_only():
    k, e, tau, dmax = 1.0e6, 0.2, 1e-3, 0.05
    p = 0.049
    base = normal_force(k, e, 0.0, p, 0.0, dmax)
    assert normal_force(k, e, tau, p, -0.1, dmax) == pytest.approx(base - tau * k / e ** 2 * 0.1)
    assert normal_force(k, e, tau, 0.06, 5.0, dmax) == pytest.approx(k * 0.06)    # loading
    assert normal_force(k, e, tau, p, 50.0, dmax) == pytest.approx(k * p)         # capped


def test_units_apart_from_every_surface_cost_one_box_test():
    """The broad phase: a car standing on its wheels has no vertex in the ground."""
    sim = Simulation(engine.load_event())
    out = np.zeros(L.N_COLL_ROW)
    F = np.zeros((1, L.N_FRAME))
    F[0, :9] = np.eye(3).ravel()
    environment_pairs(sim.y, sim.model, sim.u_wheel, 0, F, False, out, *_wheels(sim.model))
    assert (out == 0.0).all()


def test_the_cheap_box_test_never_drops_a_vertex_inside_the_other_box():
    """A unit's vertices are first tested against the other unit's box as seen from their own
    frame (its bounding box there): every point the full test finds inside is kept, at any
    pair of attitudes and positions."""
    from engine.collision import EDGE, _box_in_frame, pair_rotation
    from engine.kinematics import euler_trig, rotation_vehicle_to_earth
    rng = np.random.default_rng(1)
    box = (-2.0, 2.0, -0.8, 0.8, -0.6, 0.4)
    inside_total, kept_outside = 0, 0
    for _ in range(300):
        Ra, Rb = np.zeros((3, 3)), np.zeros((3, 3))
        rotation_vehicle_to_earth(*euler_trig(*rng.uniform(-3, 3, 3)), Ra)
        rotation_vehicle_to_earth(*euler_trig(*rng.uniform(-3, 3, 3)), Rb)
        Ra, Rb = Ra.ravel(), Rb.ravel()
        pa, pb = tuple(rng.uniform(-2, 2, 3)), tuple(rng.uniform(-2, 2, 3))
        lx, hx, ly, hy, lz, hz = _box_in_frame(box, Ra, Rb, pair_rotation(Ra, Rb), pa, pb)
        for r in rng.uniform(-3, 3, (50, 3)):
            # the point in b's frame, R_b^T (X_a + R_a r - X_b)
            px, py, pz = Rb.reshape(3, 3).T @ (np.array(pa) + Ra.reshape(3, 3) @ r - np.array(pb))
            inside = (box[0] - EDGE < px < box[1] + EDGE and box[2] - EDGE < py < box[3] + EDGE
                      and box[4] - EDGE < pz < box[5] + EDGE)
            kept = lx <= r[0] <= hx and ly <= r[1] <= hy and lz <= r[2] <= hz
            assert kept or not inside
            inside_total += inside
            kept_outside += kept and not inside
    # the poses put some hundreds of the 15 000 points inside (322), and the cheap test keeps
    # fewer than a fifth of those outside (1263 of 14 678): it does throw points away
    assert inside_total > 200
    assert kept_outside < 0.2 * (15000 - inside_total)
