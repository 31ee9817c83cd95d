"""Wheel meshes and wheel damage (engine.wheel_damage): the mesh, the set law and its cap
against their definitions, the set's effect on the wheel kinematics against the lever rule,
and through the built FMU a car driven into a rigid barrier far enough for its front wheels
to meet it.

Barrier: the default car at 26 m/s in neutral into a wall 0.3 m ahead. Its front crushes by
about 0.69 m, past the front wheels' tread (0.62 m behind the front), so the wall reaches the
front wheels' meshes and not the rear ones. A wheel whose mount gives way at once (no damage
threshold, a huge deformation rate) is carried back by the wall: the cap holds its set to the
contact motion of its mesh, so the set is the intrusion of the wall past the wheel's front,
which is geometry. With the default thresholds the wheels' loads in such a crash leave no set.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from support.fmus import event_fmu
from engine import layout as L
from engine.simulation import Simulation
from engine.setup.wheel_meshes import wheel_mesh
from engine.wheel_damage import damage_step, set_step
from support.run import run
from support.sedan import FRONT_X

DATA = json.loads(engine.load_event().to_json())
CAR = DATA["units"][0]
G = DATA["environment"]["gravity"]
WALL_X = FRONT_X + 0.3
V_IN = 26.0
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
RADIUS = CAR["tires"][CAR["axles"][0]["tire"]]["unloaded_radius"]


# --- the mesh and the set law -----------------------------------------------------------

def test_wheel_mesh_carries_its_stiffness_on_each_side_and_is_symmetric():
    k, r, w = 2.0e5, 0.3, 0.2
    cv, ck, areal = wheel_mesh(r, w, k)
    # every vertex on the cylinder's surface: the tread circle or a side's centre
    rad = np.hypot(cv[:, 0], cv[:, 2])
    assert np.all(np.isclose(rad, r) | np.isclose(rad, 0.0))
    assert np.all(np.isclose(np.abs(cv[:, 1]), w / 2) | np.isclose(cv[:, 1], 0.0))
    # a plane pressed flat on a side meets the stiffness k
    assert ck[:, L.FACE_LEFT].sum() == pytest.approx(k, rel=1e-12)
    assert ck[:, L.FACE_RIGHT].sum() == pytest.approx(k, rel=1e-12)
    # the tread's faces: areal times the tread area nearest each face, a quarter of it each
    tread = 2.0 * math.pi * r * w
    for f in (L.FACE_FRONT, L.FACE_REAR, L.FACE_BOTTOM, L.FACE_ROOF):
        assert ck[:, f].sum() == pytest.approx(areal[f] * tread / 4.0, rel=1e-12)
    # mirror symmetric about the middle plane: the same stiffness at (x, -y, z) as at (x, y, z)
    mirror = {(round(x, 9), round(-y, 9), round(z, 9)): i for i, (x, y, z) in enumerate(cv)}
    for i, (x, y, z) in enumerate(cv):
        j = mirror[(round(x, 9), round(y, 9), round(z, 9))]
        swapped = ck[j].copy()
        swapped[[L.FACE_LEFT, L.FACE_RIGHT]] = swapped[[L.FACE_RIGHT, L.FACE_LEFT]]
        assert np.allclose(ck[i], swapped, rtol=1e-12, atol=0.0)


def test_the_set_law_threshold_limit_growth_and_cap():
    c, f0, fmax = 1e-5, 2e4, 1e5
    # below the threshold, or without contact motion, no set whatever the force
    assert set_step(1.9e4, f0, c, fmax, 0.0, 1.0) == 0.0
    assert set_step(9e4, f0, c, fmax, 0.0, 0.0) == 0.0
    # beyond it the mount's set c (F - F0), grown from the current set, capped by the motion
    assert set_step(5e4, f0, c, fmax, 0.0, 1.0) == pytest.approx(c * 3e4)
    assert set_step(5e4, f0, c, fmax, 0.1, 1.0) == pytest.approx(c * 3e4 - 0.1)
    assert set_step(5e4, f0, c, fmax, 0.0, 0.05) == 0.05
    # the set only grows, and not past c (F_max - F0)
    assert set_step(3e4, f0, c, fmax, 0.2, 1.0) == 0.0
    assert set_step(1e7, f0, c, fmax, 0.0, 10.0) == pytest.approx(c * (fmax - f0))


@pytest.fixture(scope="module")
def sim():
    return Simulation(engine.load_event())


def _damage_slots(model, w):
    return int(model.P_ENV[L.E_DMG_BASE]) + L.N_DMG_STATE * w


def test_damage_step_sets_the_wheel_along_the_force_within_the_motion(sim):
    model = sim.model
    nw = model.P_WHEEL.shape[0]
    pw = model.P_WCOLL
    f0, c, r = pw[0, L.WC_F0], pw[0, L.WC_RATE], pw[0, L.WC_RADIUS]
    y = sim.y.copy()
    loads = np.zeros((nw, L.N_WLOAD))
    motion = np.zeros((nw, 2))
    fx, fy = -3.0 * f0, 1.0 * f0                   # back and to the right
    loads[0, L.WL_FX], loads[0, L.WL_FX + 1] = fx, fy
    loads[1, L.WL_FX] = -3.0 * f0                   # wheel 1 loaded without contact motion
    loads[2, L.WL_FX] = -0.5 * f0                   # wheel 2 below the threshold
    motion[0] = (1.0, 1.2)                         # (contact motion, deepest approach)
    motion[1] = (0.0, 0.3)
    motion[2] = (1.0, 1.0)
    damage_step(y, model, loads, motion)
    f = math.hypot(fx, fy)
    s = c * (f - f0)
    d0 = _damage_slots(model, 0)
    assert y[d0 + L.DM_X] == pytest.approx(s * fx / f, rel=1e-12)
    assert y[d0 + L.DM_Y] == pytest.approx(s * fy / f, rel=1e-12)
    assert y[d0 + L.DM_APPROACH] == pytest.approx(1.2 - s, rel=1e-12)
    for w, left in ((1, 0.3), (2, 1.0)):
        d = _damage_slots(model, w)
        assert y[d + L.DM_X] == 0.0 and y[d + L.DM_Y] == 0.0
        assert y[d + L.DM_APPROACH] == left
    # a moment about z beyond the threshold turns the wheel: rim set c (M - M0) / r over r
    y = sim.y.copy()
    loads[:] = 0.0
    m0 = pw[3, L.WC_M0]
    loads[3, L.WL_MX + 2] = 2.0 * m0
    motion[:] = 0.0
    motion[3] = (1.0, 1.0)
    damage_step(y, model, loads, motion)
    d3 = _damage_slots(model, 3)
    assert y[d3 + L.DM_TOE] == pytest.approx(c * m0 / r / r, rel=1e-12)
    assert y[d3 + L.DM_CAMBER] == 0.0 and y[d3 + L.DM_X] == 0.0


def test_a_set_front_axle_moves_the_static_loads_by_the_lever_rule():
    """Both front wheels set back by d: at rest the loads are those of a wheelbase d shorter,
    from the moment balance about the CG with the unsprung masses at the wheels."""
    d = 0.1
    sim = Simulation(engine.load_event())
    model = sim.model
    for w in (0, 1):
        sim.y[_damage_slots(model, w) + L.DM_X] = -d
    sim.advance(4.0)
    fz = [sum(sim.y_tire[t, L.YT_FZ] for t in range(int(model.P_WHEEL[w, L.W_TIRE0]),
                                                     int(model.P_WHEEL[w, L.W_TIRE0] + model.P_WHEEL[w, L.W_NTIRES])))
          for w in range(4)]
    assert sim.y_wheel[0, L.YW_DAMAGE] == pytest.approx(d)
    xf, xr = model.P_WHEEL[0, L.W_X] - d, model.P_WHEEL[2, L.W_X]
    muf, mur = model.P_WHEEL[0, L.W_MUS], model.P_WHEEL[2, L.W_MUS]
    m = model.P_UNIT[0, L.U_MTOTAL]
    # Ff + Fr = m g; Ff xf + Fr xr = 2 g (muf xf + mur xr) (the sprung weight acts at the CG)
    front = (2.0 * G * (muf * xf + mur * xr) - m * G * xr) / (xf - xr)
    assert fz[0] + fz[1] == pytest.approx(front, rel=2e-3)
    assert sum(fz) == pytest.approx(m * G, rel=1e-4)
    # against the loads before the set: the front carries more, as the lever rule says
    assert front > (2.0 * G * (muf * (xf + d) + mur * xr) - m * G * xr) / (xf + d - xr)


# --- through the FMU --------------------------------------------------------------------

def _barrier_event(damage):
    data = copy.deepcopy(DATA)
    data["environment"]["barriers"] = [{"point": [WALL_X, 0.0, 0.0], "normal": [-1.0, 0.0, 0.0]}]
    for axle in data["units"][0]["axles"]:
        axle["wheel_damage"] = dict(damage)
    return data


@pytest.fixture(scope="module")
def yielding_fmu(fmu_dir):
    """A mount that gives way at once: no threshold, 1 m of set per newton, no turn."""
    return event_fmu(fmu_dir, "wheel_damage_yielding", _barrier_event(
        {"max_no_damage_force": 0.0, "deformation_rate": 1.0, "max_force": 1e9,
         "max_no_damage_moment": 1e9, "max_moment": 2e9}))


def _crash(instance, fmu, t_end=0.5):
    inst = instance(fmu).start({"car.speed0": V_IN})
    rec = ("car.X", "car.pitch") + tuple(w + k for w in WHEELS for k in (".damageDisplacement", ".jounce"))
    r = run(inst, t_end, lambda t, i: i.set("car.gear", 0), h=0.001, record=rec)
    return inst, r


def test_a_yielding_wheel_is_set_back_by_the_walls_intrusion_past_it(instance, yielding_fmu):
    inst, r = _crash(instance, yielding_fmu)
    # the front of the front wheels' tread (earth X): the wheel centre below the CG by the CG
    # height less the radius and the jounce, turned with the pitch (x cos + z sin)
    axle = CAR["axles"][0]
    z_centre = CAR["sprung_mass"]["cg_height"] - RADIUS      # within the tire's static deflection
    th = r["car.pitch"]
    x_tread = (r["car.X"] + (axle["x"] + RADIUS) * np.cos(th)
               + (z_centre - r["car.axle1.left.jounce"]) * np.sin(th))
    intrusion = np.maximum.accumulate(np.maximum(x_tread - WALL_X, 0.0))
    front = r["car.axle1.left.damageDisplacement"]
    assert intrusion[-1] > 0.04, "the wall did not reach the front wheels"
    # the cap: the set follows the intrusion past the wheel and never runs ahead of it
    assert front[-1] == pytest.approx(intrusion[-1], rel=0.01, abs=1e-3)
    assert np.all(front <= intrusion + 5e-4)
    # (the force-based set would be 1 m per newton of a load of kilonewtons)
    # no contact motion, no set: once the wall stops intruding the set stays
    peak = int(np.argmax(intrusion >= intrusion[-1] - 1e-12))
    assert np.all(front[peak + 1:] == front[peak + 1])
    # both front wheels alike, the rear ones untouched
    assert r["car.axle1.right.damageDisplacement"][-1] == pytest.approx(front[-1], rel=1e-6)
    assert r["car.axle2.left.damageDisplacement"][-1] == 0.0
    assert r["car.axle2.right.damageDisplacement"][-1] == 0.0


def test_a_wheel_below_its_damage_threshold_takes_no_set(instance, barrier_fmu):
    """The default car (default thresholds, 20 kN without damage) at the same speed into a
    wall 1 m ahead (tests/support/fixtures.py): its front crushes past the front wheels'
    tread, whose elastic meshes carry some kilonewtons, below the threshold: no wheel is set."""
    inst, r = _crash(instance, barrier_fmu, 0.6)
    for w in WHEELS:
        assert np.all(r[w + ".damageDisplacement"] == 0.0)
    assert inst.get("car.collision.maxCrush") > FRONT_X - (CAR["axles"][0]["x"] + RADIUS) + 0.03


# --- a wheel mesh against another unit's face: the two in series --------------------------
def _under_trailer(speed, restitution):
    """The sedan square into the left side of the bundled semitrailer at rest, at the middle
    of its tri-axle, at ``speed``: the car's box passes under the trailer's (its ground
    clearance is 1.3 m), so only the trailer's wheel meshes meet it, their sides against the
    car's front. On a frictionless road, in neutral, without aerodynamics, with the bodies'
    friction and elastic damping off and no wheel damage, so that the contact is the one force
    and its unloading the one loss. Returns (the closing speed at the axles' middle before and
    after, the packed model, the car's and a trailer wheel's index)."""
    from engine.setup.derived import body_front
    from engine.setup.event import CAR_AND_SEMITRAILER_EVENT
    data = json.loads(open(CAR_AND_SEMITRAILER_EVENT).read())
    car, tractor, trailer = data["units"]
    for unit in data["units"]:
        unit["aerodynamics"] = []
        unit.setdefault("collision", {}).update({"damping_ratio": 0.0, "friction": 0.0})
        for axle in unit["axles"]:
            axle["wheel_damage"] = {"max_no_damage_force": 1e9, "max_no_damage_moment": 1e9,
                                    "max_force": 2e9, "max_moment": 2e9}
    car["collision"]["restitution"] = restitution
    tractor["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 0.0}
    car["initial"] = {"X": 0.0, "Y": -60.0, "yaw": 0.0, "speed": 0.0}     # out of the way
    apart = Simulation(engine.load_event(copy.deepcopy(data)), friction_multiplier=0.0)
    out = {n: i for i, n in enumerate(engine.UNIT_OUTPUTS)}
    yt = apart.y_unit[apart.unit_names.index("trailer")]
    xm = float(np.mean([a["x"] for a in trailer["axles"]]))
    yaw_t = yt[out["yaw"]]
    car["initial"] = {"X": yt[out["X"]] + xm * math.cos(yaw_t),
                      "Y": yt[out["Y"]] + xm * math.sin(yaw_t)
                      - trailer["dimensions"]["width"] / 2.0 - body_front(car) - 0.05,
                      "yaw": yaw_t + math.pi / 2.0, "speed": speed}
    sim = Simulation(engine.load_event(data), friction_multiplier=0.0)
    ic, it = sim.unit_names.index("car"), sim.unit_names.index("trailer")
    sim.u_unit[:, engine.UNIT_INPUTS.index("gear")] = 0

    def closing():
        c, t = sim.y_unit[ic], sim.y_unit[it]
        yaw = t[out["yaw"]]
        # the earth velocities across the trailer: the car's CG, the trailer's at the axles
        nx, ny = -math.sin(yaw), math.cos(yaw)
        vc = (c[out["u"]] * math.cos(c[out["yaw"]]) - c[out["v"]] * math.sin(c[out["yaw"]])) * nx \
            + (c[out["u"]] * math.sin(c[out["yaw"]]) + c[out["v"]] * math.cos(c[out["yaw"]])) * ny
        return vc - (t[out["v"]] + t[out["r"]] * xm)

    before = closing()
    sim.advance(0.6)
    assert sim.y_unit[ic, out["collision.Fy"]] == 0.0 and sim.y_unit[ic, out["collision.deltaV"]] > 1.0
    return before, closing(), sim.model, ic, int(sim.model.P_UNIT[it, L.U_WHEEL0])


@pytest.mark.parametrize("restitution", [0.15, 0.5])
def test_a_car_rebounds_from_a_trailers_wheels_at_their_restitution_in_series(restitution):
    """A wheel mesh's vertex takes the whole overlap with the face it presses, so the two load
    and unload in series: each carries the one pressure and stores a share of the work
    inversely as its stiffness per unit area K, and gives back e^2 of it, so the contact
    returns e^2 = (e_w^2 K_f + e_f^2 K_w) / (K_w + K_f) of the work (the wheel's side K_w,
    restitution 1, a tire's; the car's front K_f, e_f its restitution), and the closing speed
    comes back times e (docs/equations.md, "Wheel meshes and wheel damage"). With the wheel's
    restitution alone (until 2026-12-07) the car came back at 0.975 of its closing speed
    whatever its front's. Measured 3.0 to 3.2 % below the closed form (several wheels, the
    trailer turning about its kingpin)."""
    before, after, P, ic, w = _under_trailer(8.0, restitution)
    k_w, e_w = P.P_WCOLL[w, L.WC_K0 + L.FACE_LEFT], P.P_WCOLL[w, L.WC_E]
    k_f, e_f = P.P_COLL[ic, L.CO_K0 + L.FACE_FRONT], P.P_COLL[ic, L.CO_E]
    assert e_w == 1.0 and e_f == restitution
    e = math.sqrt((e_w ** 2 * k_f + e_f ** 2 * k_w) / (k_w + k_f))
    print(f"rebound {-after / before:.4f}, in series {e:.4f} ({-after / before / e - 1:+.2%})")
    assert -after / before == pytest.approx(e, rel=0.05)
