"""Environment objects given as meshes (``environment.objects``; engine.collision, object
pairs; docs/equations.md, "Collisions"), through the built FMU: the sedan into a rigid square
pole.

The pole covers the width d of the front across its whole height, and nothing else of the car
meets it (its wheels pass either side). The CRASH3 line F/w = A + B C of the front then holds
over that width: the car stops at the crush C where d (A C + B C^2 / 2 + G), G = A^2 / (2 B),
equals the kinetic energy it brings (its wheels' spin included), the closed form of a front
loaded across the width d only. At 8 m/s C + A/B is about twice d: the front's vertices pass
the pole's back and still press on its face.
"""
from __future__ import annotations

import copy
import json
import math
import zipfile

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.collision import environment_pairs
from engine.setup.collision import unit_box

from support.barrier import neutral_run, spin_energy
from support.exteriors import box_obj, cylinder_obj
from support.fixtures import BARRIER_X
from support.fmus import event_fmu
from support.sedan import DATA, M

CAR = DATA["units"][0]
POLE = 0.3                  # m: the square pole's width and depth
POLE_HEIGHT = 3.0           # m
A_FRONT = 50.0e3            # N/m: the front's CRASH3 A (its no-damage approach A/B 5 cm)
V_POLE = 8.0                # m/s
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
RECORD = ("car.u", "car.collision.maxCrush", "car.collision.Fx", "car.collision.Fy")


def _pole_event(folder):
    """The default car with its front's A, a rigid square pole POLE wide centred on its path,
    its face BARRIER_X ahead of the car's CG (1 m ahead of its front), from the ground up."""
    box_obj(folder / "pole.obj", (BARRIER_X, -0.5 * POLE, -POLE_HEIGHT),
            (BARRIER_X + POLE, 0.5 * POLE, 0.0), n=2)
    data = copy.deepcopy(DATA)
    data["units"][0].setdefault("collision", {})["crush_a"] = {
        "front": A_FRONT, "side": 20.0e3, "rear": 30.0e3}
    data["environment"]["objects"] = [{"mesh_file": "pole.obj"}]
    return data


@pytest.fixture(scope="module")
def pole_fmu(fmu_dir):
    return event_fmu(fmu_dir, "collision_pole", _pole_event(fmu_dir))


def test_a_pole_crushes_the_front_by_the_crash3_energy_over_its_width(instance, pole_fmu):
    with zipfile.ZipFile(pole_fmu) as z:         # the FMU carries the pole's mesh
        assert "resources/object-0.obj" in z.namelist()
        event = json.loads(z.read("resources/event.json"))
    assert event["environment"]["objects"][0]["mesh_file"] == "object-0.obj"
    r = neutral_run(instance, pole_fmu, V_POLE, 0.5, RECORD, start=[w + ".spin" for w in WHEELS])
    fx = r["car.collision.Fx"]
    first = next(i for i, f in enumerate(fx) if f != 0.0)
    energy = 0.5 * M * r["car.u"][first - 1] ** 2 + spin_energy(CAR, r["start"])
    B = CAR["collision"]["crush_stiffness"]["front"]
    G = A_FRONT ** 2 / (2.0 * B)
    theory = (-A_FRONT + math.sqrt(A_FRONT ** 2 + 2.0 * B * (energy / POLE - G))) / B
    crush = r["car.collision.maxCrush"][-1]
    print(f"pole {POLE} m at {V_POLE} m/s: crush {crush:.4f} m against CRASH3's {theory:.4f} m "
          f"over the pole's width ({crush / theory - 1:+.2%}); approach C + A/B "
          f"{crush + A_FRONT / B:.3f} m")
    assert crush == pytest.approx(theory, rel=0.015)      # measured +0.47 %
    assert crush + A_FRONT / B > POLE                   # through the pole's depth
    assert fx[-1] == 0.0 and r["car.u"][-1] < 0.0       # it rebounded and parted
    assert max(abs(f) for f in r["car.collision.Fy"]) < 1e-6 * max(abs(f) for f in fx)


def _pressed(sim, model, x, y=None, latch=False):
    """The collision load (engine.collision.environment_pairs' out[0:8]) on the car of ``sim``
    at rest, level, its CG at earth X = x on the centre line (``model``: its arrays; ``y``: its
    state, the start's if None; with ``latch`` its memories raised in y first, as at a step
    boundary)."""
    nw = model.P_WHEEL.shape[0]
    inputs = L.Inputs(np.zeros((1, len(engine.UNIT_INPUTS))),
                      np.zeros((nw, len(engine.WHEEL_INPUTS))), np.zeros(len(engine.ENV_INPUTS)))
    y = sim.y.copy() if y is None else y
    y[L.SX:L.SPSI + 1] = (x, 0.0, y[L.SZ], 0.0, 0.0, 0.0)
    y[L.SU:L.SR + 1] = 0.0
    frames = np.zeros((1, L.N_FRAME))
    frames[0, :9] = np.eye(3).ravel()
    out = np.zeros(L.N_COLL_ROW)
    environment_pairs(y, model, inputs.u_wheel, 0, frames, latch, out, np.zeros((nw, L.N_WPOSE)),
                      np.zeros((nw, L.N_WLOAD)), np.zeros(1), inputs, 1.0)
    return out


@pytest.mark.parametrize("stiffness", [None, 1.0, 0.25], ids=["rigid", "as-stiff", "softer"])
def test_a_pole_pressed_into_the_front_carries_the_fronts_stiffness_over_its_width(
        tmp_path, stiffness):
    """The kernel posed: the car at rest, its front 2 to 40 cm past the pole's face, square to
    it: the pole pushes back with K d H delta (d the pole's width, H the front's height), K the
    front's stiffness per unit area B / H in series with the pole's (``stiffness`` given as a
    multiple of B / H; None: rigid, K = B / H); past the pole's depth, the same. The front's
    own approach, what it reports as crush (plus its A/B) and keeps as memory, is its share of
    the approach, Ko / (Ka + Ko) (the pole elastic; docs/equations.md, "Crush that moves the
    mesh"): pressed to 40 cm and latched, drawn back, the front is free of the pole from the
    approach (1 - e^2) of that share on, its permanent set (the pole springs back whole)."""
    data = _pole_event(tmp_path)
    obj = data["environment"]["objects"][0]
    obj["mesh_file"] = str(tmp_path / "pole.obj")
    car = engine.load_event(data).model.units[0]
    xf, _, _, zt, zb, _ = unit_box(car)
    Ka = car.collision.crush_stiffness.front / (zb - zt)
    if stiffness is not None:
        obj["stiffness"] = stiffness * Ka
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL))
    K = Ka if stiffness is None else Ka * stiffness / (1.0 + stiffness)
    for delta in (0.02, 0.15, 0.4):
        out = _pressed(sim, model, BARRIER_X - xf + delta)
        expected = -K * POLE * (zb - zt) * delta
        print(f"pole stiffness {stiffness}, delta {delta} m: Fx {out[0]:.1f} N, K d H delta "
              f"{expected:.1f} N ({out[0] / expected - 1:+.1e})")
        assert out[0] == pytest.approx(expected, rel=1e-9)
        assert out[1:3] == pytest.approx([0.0, 0.0], abs=1e-9 * abs(expected))
        d0 = model.P_COLL[0, L.CO_D0 + L.FACE_FRONT]
        share = 1.0 if stiffness is None else stiffness / (1.0 + stiffness)
        if share * delta > d0:     # (a crush: the reported one is at least 0)
            assert out[7] + d0 == pytest.approx(share * delta, rel=1e-9)
    y = sim.y.copy()
    _pressed(sim, model, BARRIER_X - xf + 0.4, y, latch=True)
    e = model.P_COLL[0, L.CO_E]
    free = (1.0 - e * e) * share * 0.4
    for delta, touching in ((0.999 * free, False), (1.001 * free, True)):
        out = _pressed(sim, model, BARRIER_X - xf + delta, y.copy())
        assert (out[0] < 0.0) == touching, (delta, out[0])


def test_an_object_without_its_file_is_refused(tmp_path):
    data = copy.deepcopy(DATA)
    data["environment"]["objects"] = [{"mesh_file": str(tmp_path / "missing.obj")}]
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    assert err.value.problems[0].startswith(
        f"environment.objects[0].mesh_file: {tmp_path / 'missing.obj'}")


def test_a_bollard_below_the_body_is_met_by_the_wheel_that_runs_into_it(tmp_path):
    """A rigid bollard 10 cm high, lower than the body's underbody, in the left front wheel's
    track: the body passes over it, the wheel's mesh meets it (engine.wheel_damage's meshes meet
    environment objects) and pushes the car back; the other wheels' meshes do not."""
    data = copy.deepcopy(DATA)
    sim = engine.Simulation(engine.load_event(data), warn=False)
    w_y = sim.model.P_WHEEL[0, L.W_Y0]
    zb = sim.model.P_COLL[0, L.CO_ZMAX] + sim.y[L.SZ]      # the underbody's earth Z
    assert zb < -0.1                                        # above the bollard's top
    box_obj(tmp_path / "bollard.obj", (BARRIER_X, w_y - 0.1, -0.1), (BARRIER_X + 0.2, w_y + 0.1, 0.0),
            n=1)
    data["environment"]["objects"] = [{"mesh_file": str(tmp_path / "bollard.obj")}]
    sim = engine.Simulation(engine.load_event(data), warn=False, initial={"car": {"speed0": 2.0}})
    sim.u_unit[0, L.IU_GEAR] = 0
    push, loaded = 0.0, set()
    for n in range(1, 151):
        sim.advance(n * 0.01)
        push = min(push, sim._scratch.coll[0, 0])
        loaded |= {w for w in range(4) if sim._scratch.wcoll[w, L.WL_FX] != 0.0}
    print(f"bollard: the car pushed back by up to {-push:.0f} N, wheels loaded {sorted(loaded)}")
    assert push < 0.0 and loaded == {0}


def test_a_car_that_starts_inside_an_object_is_refused(tmp_path, instance, pole_fmu):
    """The pole through the car's bonnet at the start: the set-up names the object (as it names
    a barrier through the car); through the FMU, a start X0 that puts the car into the pole is
    refused at initialisation with the same message, and the start values still run."""
    data = _pole_event(tmp_path)
    data["environment"]["objects"][0]["mesh_file"] = str(tmp_path / "pole.obj")
    xf = unit_box(engine.load_event(data).model.units[0])[0]
    data["units"][0]["initial"]["X"] = BARRIER_X - xf + 0.2       # the front 0.2 m into the pole
    with pytest.raises(engine.EventError) as err:
        engine.Simulation(engine.load_event(data), warn=False)
    problem = err.value.problems[0]
    print(problem)
    assert problem.startswith("environment.objects[0]: the exterior of car starts 0.2 m inside")
    inst = instance(pole_fmu)
    inst.fmu.setupExperiment(startTime=0.0)
    inst.fmu.enterInitializationMode()
    inst.fmu.setReal([inst.vr["car.X0"]], [BARRIER_X - xf + 0.2])
    with pytest.raises(Exception):
        inst.fmu.exitInitializationMode()
    assert any("environment.objects[0]: the exterior of car starts 0.2 m inside" in m
               for m in inst.messages())


RHO = 0.3               # m: the round pole's radius
SIDES = 64


def _round_pole_event(folder, vertices=300):
    cylinder_obj(folder / "round.obj", (BARRIER_X + RHO, 0.0), RHO, -3.0, 0.0, SIDES)
    data = copy.deepcopy(DATA)
    data["units"][0].setdefault("collision", {})["crush_a"] = {
        "front": A_FRONT, "side": 20.0e3, "rear": 30.0e3}
    data["units"][0]["collision"]["mesh_vertices"] = vertices
    data["environment"]["objects"] = [{"mesh_file": str(folder / "round.obj")}]
    return data


def _prism_strips(P, front):
    """Per vertex of the front (rows of CV ``front``) over the round pole: its stiffness on the
    front times the share of its cell across the pole (K), how far behind the pole's nearest
    line the facet across its y lies (m), |cos| of that facet's normal off the car's axis, and
    the share; zero stiffness for a vertex beside the pole."""
    a = math.pi + 2.0 * math.pi * np.arange(SIDES + 1) / SIDES
    cx, cy = RHO * np.cos(a), RHO * np.sin(a)          # from the axis, the near side cx < 0
    out = np.zeros((len(front), 4))
    for j, v in enumerate(front):
        y = P.CV[v, 1]
        lo, hi = y + P.CV[v, L.CV_CELL + 2], y + P.CV[v, L.CV_CELL + 3]
        share = min(max((min(hi, RHO) - max(lo, -RHO)) / (hi - lo), 0.0), 1.0)
        if not abs(y) < RHO:
            continue
        k = next(k for k in range(SIDES) if cx[k] < 0.0 and cx[k + 1] <= 0.0
                 and min(cy[k], cy[k + 1]) <= y <= max(cy[k], cy[k + 1]))
        t = (y - cy[k]) / (cy[k + 1] - cy[k])
        out[j] = (P.CK[v, L.FACE_FRONT] * share, RHO + cx[k] + t * (cx[k + 1] - cx[k]),
                  abs(math.cos(0.5 * (a[k] + a[k + 1]))), share)
    return out


def test_a_round_pole_pressed_into_the_front_carries_each_strip_by_its_slope(tmp_path):
    """The kernel posed: the car at rest square to a round pole (a 64-sided prism of radius rho
    on its centre line), its front pressed D past the pole's nearest line. A strip of the front at
    y meets the pole's surface at s(y) = rho - sqrt(rho^2 - y^2) behind that line, where the
    surface's normal is phi = asin(y / rho) off the car's axis: its approach (along the normal)
    is (D - s) cos phi, its stiffness the front's weighted by the cosine cos phi (the cosine
    rule), and the force's x part another cos phi. So Fx = -sum over the front's columns of
    K_j (D - s(y_j)) cos^3 phi_j (K_j the column's stiffness, B / H times its width and height),
    and Fy = 0 by symmetry."""
    data = _round_pole_event(tmp_path, vertices=3000)
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL))
    P = model
    car = engine.load_event(data).model.units[0]
    xf = unit_box(car)[0]
    v0, nv = int(P.P_COLL[0, L.CO_V0]), int(P.P_COLL[0, L.CO_NV])
    front = [v for v in range(v0, v0 + nv) if P.CK[v, L.FACE_FRONT] > 0.0]
    for depth in (0.03, 0.12, 0.25):
        out = _pressed(sim, model, BARRIER_X - xf + depth)
        strips = _prism_strips(P, front)
        yv = P.CV[front, 1]
        share = strips[:, 3]
        inside = np.abs(yv) < RHO
        # the circle: s = rho - sqrt(rho^2 - y^2) behind the nearest line, cos phi
        s = RHO - np.sqrt(RHO ** 2 - yv[inside] ** 2)
        cos = np.sqrt(1.0 - (yv[inside] / RHO) ** 2)
        circle = -np.sum(P.CK[np.array(front)[inside], L.FACE_FRONT] * share[inside]
                         * np.maximum(depth - s, 0.0) * cos ** 3)
        # the prism: each strip meets the facet across its y, that facet's normal
        prism = -np.sum(strips[:, 0] * np.maximum(depth - strips[:, 1], 0.0) * strips[:, 2] ** 3)
        print(f"round pole, D = {depth} m: Fx {out[0]:.2f} N against {prism:.2f} N for the "
              f"prism ({out[0] / prism - 1:+.1e}), {circle:.1f} N for the circle "
              f"({out[0] / circle - 1:+.1e}); Fy {out[1]:.2e} N")
        assert out[0] == pytest.approx(prism, rel=1e-9)           # measured 5e-11
        # the circle's: the facets' normals are up to pi / 64 off the circle's, so cos^3 of a
        # strip at 30 degrees is up to 8 % off (measured -0.8 %, -2.6 %, -3.4 % in all)
        assert out[0] == pytest.approx(circle, rel=0.08)
        assert abs(out[1]) <= 1e-9 * abs(out[0])


def test_a_round_pole_stops_the_car_on_its_line_by_the_work_of_its_strips(instance, fmu_dir,
                                                                          tmp_path):
    """Through the FMU at 8 m/s: the round pole's lateral forces cancel (the car keeps its line
    and heading), and the car stops where the work of the strips of its front equals the
    kinetic energy it brought (its wheels' spin included): a strip at y, its facet's normal
    theta off the car's axis and its surface s behind the pole's nearest line, carries
    K (D - s) cos^2 theta (cos theta + mu sin theta) along the car's axis at a penetration D
    (the normal force of the posed test, and the friction mu of the normal force against the
    strip sliding along the facet), so W(D) = sum K cos^2 theta (cos theta + mu sin theta)
    (D - s)^2 / 2."""
    data = _round_pole_event(fmu_dir)
    fmu = event_fmu(fmu_dir, "collision_round_pole", data)
    r = neutral_run(instance, fmu, V_POLE, 0.5, RECORD + ("car.X", "car.Y", "car.yaw"),
                    start=[w + ".spin" for w in WHEELS])
    sim = engine.Simulation(engine.load_event(_round_pole_event(tmp_path)), warn=False)
    P = sim.model
    v0, nv = int(P.P_COLL[0, L.CO_V0]), int(P.P_COLL[0, L.CO_NV])
    front = [v for v in range(v0, v0 + nv) if P.CK[v, L.FACE_FRONT] > 0.0]
    strips = _prism_strips(P, front)
    mu = P.P_COLL[0, L.CO_MU]
    sin = np.sqrt(1.0 - strips[:, 2] ** 2)
    xf = unit_box(engine.load_event(data).model.units[0])[0]
    depth = np.max(r["car.X"]) - (BARRIER_X - xf)
    work = np.sum(strips[:, 0] * strips[:, 2] ** 2 * (strips[:, 2] + mu * sin)
                  * np.maximum(depth - strips[:, 1], 0.0) ** 2 / 2.0)
    first = next(i for i, f in enumerate(r["car.collision.Fx"]) if f != 0.0)
    energy = 0.5 * M * r["car.u"][first - 1] ** 2 + spin_energy(CAR, r["start"])
    fy = np.max(np.abs(r["car.collision.Fy"]))
    print(f"round pole {2 * RHO} m at {V_POLE} m/s: penetration {depth:.4f} m, the strips' work "
          f"{work:.0f} J against {energy:.0f} J brought ({work / energy - 1:+.2%}); largest |Fy| "
          f"{fy:.2e} N of |Fx| {np.max(np.abs(r['car.collision.Fx'])):.0f} N, final Y "
          f"{r['car.Y'][-1]:.2e} m, yaw {r['car.yaw'][-1]:.2e} rad")
    assert work == pytest.approx(energy, rel=ROUND_WORK)
    assert fy <= 1e-6 * np.max(np.abs(r["car.collision.Fx"]))
    assert abs(r["car.Y"][-1]) < 1e-6 and abs(r["car.yaw"][-1]) < 1e-6


#: the strips' work against the energy brought (measured -0.46 %: the pitch and the suspension
#: take the rest)
ROUND_WORK = 0.015
