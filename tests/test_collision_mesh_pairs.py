"""A unit's vertices against another unit's OBJ exterior met as its triangles (engine.collision,
mesh_approach; docs/equations.md, "Collisions"), the kernel posed: a box-shaped OBJ is met as
the default box is, and a sloped front top pushes along the slope's normal."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.collision import mesh_approach, mesh_entry_face
from engine.setup.collision import unit_box
from support.exteriors import default_box_obj, hood_obj
from support.fronts import front_contact, posed_pair, series_per_area, two_sedans

SLOPE = math.radians(30.0)      # the hood's slope from the horizontal
HOOD_DROP = 0.5                 # m: the hood's front edge above the box's underbody
RAISE = 0.05                    # m: the striking box's bottom above the hood's front edge


def _sedans(vertices=300):
    """Two copies of the sedan facing each other (support.fronts.two_sedans)."""
    data = two_sedans(vertices)
    data["units"][1]["initial"] = {"X": 10.0, "Y": 0.0, "yaw": math.pi, "speed": 0.0}
    return data


def _boxes(data):
    return [unit_box(u) for u in engine.load_event(data).model.units]


def _model(data):
    sim = engine.Simulation(engine.load_event(data), warn=False)
    return sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL)), sim.y.copy()


@pytest.fixture(scope="module")
def box_pairs(tmp_path_factory):
    """Per vertex count: (the model with car2's default box, the model with car2's exterior an
    OBJ of that box's vertices, the state, the boxes)."""
    made = {}

    def get(vertices):
        if vertices not in made:
            data = _sedans(vertices)
            boxes = _boxes(data)
            path = default_box_obj(tmp_path_factory.mktemp("box") / "car2.obj", boxes[1], vertices)
            obj = copy.deepcopy(data)
            obj["units"][1]["collision"]["mesh_file"] = str(path)
            (model, y), (model_obj, _) = _model(data), _model(obj)
            assert np.asarray(_boxes(obj)) == pytest.approx(np.asarray(boxes), abs=1e-12)
            made[vertices] = model, model_obj, y, boxes
        return made[vertices]
    return get


def test_a_point_is_inside_an_obj_box_by_its_depth_below_the_face_its_ray_leaves_through(box_pairs):
    """mesh_approach on an OBJ box: a point inside, pressing along the front's normal, is at the
    front's distance from it, with the front's normal and stiffness; outside, above the roof
    and beside the box it is not, on the plane of the roof it is; pressing along the roof's
    normal it is at the roof's distance."""
    _, model, _, boxes = box_pairs(300)
    xf, xr, yh, zt, zb, yc = boxes[1]

    def approach(f, x, y, z):
        return mesh_approach(model, 1, f, x, y, z, False)
    assert approach(L.FACE_FRONT, xf - 0.1, yc + 0.2, 0.1) == pytest.approx(
        (0.1, 1.0, 0.0, 0.0, L.FACE_FRONT), abs=1e-12)
    assert approach(L.FACE_ROOF, xf - 0.1, yc + 0.2, zt + 0.3)[0] == pytest.approx(0.3, abs=1e-12)
    assert approach(L.FACE_FRONT, xf + 0.1, yc, 0.1)[4] == -1          # ahead of it
    assert approach(L.FACE_FRONT, xf - 0.1, yc, zt - 0.01)[4] == -1    # above it
    assert approach(L.FACE_FRONT, xf - 0.1, yc + yh + 0.01, 0.1)[4] == -1
    # on the plane of the roof (the edge rows of two level boxes) it meets the front's edge
    assert approach(L.FACE_FRONT, xf - 0.1, yc, zt)[0] == pytest.approx(0.1)
    # within EDGE behind the rear (a front pushing it): in through the rear, not a side or the
    # roof, whose rays from its point in the box would leave the mesh
    for z in (zt, 0.1, zb):
        assert mesh_entry_face(model, 1, xr - 0.5e-3, yc + 0.3, z, 2.0, 0.0, 0.0) == L.FACE_REAR


@pytest.mark.parametrize("vertices, pitch", [(300, 0.0), (100, 0.0), (300, math.radians(3.0))],
                         ids=["300", "100", "pitched-3deg"])
def test_a_box_shaped_obj_is_met_as_the_default_box(box_pairs, vertices, pitch):
    """car's front into car2's, car2's exterior its default box or an OBJ file of the same box
    mesh: car's vertices meet the OBJ's triangles as they meet the box's faces (the same force
    on each unit from them, to rounding, level or pitched), car2's OBJ vertices carry the box
    mesh's cells (engine.setup.collision.vertex_cells), and level the pair carries the series
    stiffness of the fronts over their common area, K_a K_b / (K_a + K_b) A delta, once."""
    model, model_obj, y, boxes = box_pairs(vertices)
    ks = series_per_area(*(model.P_COLL[u, L.CO_K0 + L.FACE_FRONT] for u in (0, 1)))
    one_way = [m._replace(P_COLL=m.P_COLL.copy()) for m in (model, model_obj)]
    for m in one_way:
        m.P_COLL[1, L.CO_NV] = 0.0          # car's vertices only
    for depth in (0.05, 0.2, 0.4):
        coll, (pa, pb) = posed_pair(model, y, boxes, depth, pitch)
        coll_obj, _ = posed_pair(model_obj, y, boxes, depth, pitch)
        car, car_obj = (posed_pair(m, y, boxes, depth, pitch)[0] for m in one_way)
        ref = 0.5 * sum(ks * area * approach for area, approach in
                        (front_contact(pa, boxes[0], pb, boxes[1]),
                         front_contact(pb, boxes[1], pa, boxes[0])))
        print(f"{vertices} vertices, pitch {math.degrees(pitch):.0f} deg, depth {depth} m: "
              f"car's vertices: OBJ / box - 1 = {car_obj[0, 0] / car[0, 0] - 1:+.2e}; both: "
              f"OBJ / box - 1 = {coll_obj[0, 0] / coll[0, 0] - 1:+.2e}, "
              f"box / reference - 1 = {-coll[0, 0] / ref - 1:+.2e}")
        assert car[0, 0] < 0.0
        assert car_obj[:, :6] == pytest.approx(car[:, :6], rel=1e-9, abs=1e-9 * abs(car[0, 0]))
        # the moments: car2's OBJ vertices carry a third of each triangle's area, the box
        # mesh's their cells' (the same sum over a face)
        assert coll_obj[:, :3] == pytest.approx(coll[:, :3], rel=1e-9, abs=1e-9 * abs(coll[0, 0]))
        if not pitch:
            assert -coll_obj[0, 0] == pytest.approx(ref, rel=1e-9)


@pytest.fixture(scope="module")
def hood_pair(tmp_path_factory):
    """car (its box's bottom RAISE above the hood's front edge) facing car2, whose exterior is
    its default box with the front top cut by a slope of SLOPE from HOOD_DROP above the
    underbody; and the same pair with car2's default box."""
    data = _sedans(300)
    boxes = _boxes(data)
    xf, xr, yh, zt, zb, yc = boxes[1]
    hood_z = zb - HOOD_DROP
    path = hood_obj(tmp_path_factory.mktemp("hood") / "hood.obj", boxes[1], hood_z, SLOPE)
    cgh = data["units"][0]["sprung_mass"]["cg_height"]
    bottom = cgh - (hood_z - RAISE)             # above ground
    data["units"][0]["collision"].update({"ground_clearance": bottom, "height": bottom + 0.8})
    hood = copy.deepcopy(data)
    hood["units"][1]["collision"]["mesh_file"] = str(path)
    return _model(hood), _model(data), _boxes(hood)


def test_a_sloped_front_pushes_a_striking_front_along_its_normal(hood_pair):
    """car's box front, its underbody above the hood's front edge, pressed into car2's slope:
    every vertex inside presses along the slope's outward normal (sin a, 0, -cos a) in car2's
    frame, so the force on car2 is F (-sin a, 0, cos a): Fz / Fx = -cot a, and the striking
    front is pushed up (car's Fz < 0). car2's default box of the same size pushes back only
    along its front's normal (Fz = 0)."""
    (model, y), (model_box, y_box), boxes = hood_pair
    assert -1 == mesh_entry_face(model, 1, boxes[1][0] - 0.05, 0.0, boxes[0][4] - 0.01, -8.0, 0.0,
                                 0.0)         # in car2's box above the slope: outside its mesh
    # 13 mm under the slope on the plane of car2's side (car's box as wide), moving in through
    # the slope: in through the front (by the box's faces, through the side, 1 mm away)
    xf, _, yh, _, _, yc = boxes[1]
    assert L.FACE_FRONT == mesh_entry_face(model, 1, xf - 0.1, yc + yh, boxes[0][4], -8.0, 0.0, 0.0)
    # 1 mm in front of the slope: outside, whichever way (a ray along y passes 1 mm beside the
    # side's slope edge)
    x_slope = xf - (boxes[1][4] - HOOD_DROP - boxes[0][4]) / math.tan(SLOPE)
    assert -1 == mesh_entry_face(model, 1, x_slope + 1e-3, yc + 0.5, boxes[0][4], -8.0, 0.0, 0.0)
    assert L.FACE_FRONT == mesh_entry_face(model, 1, x_slope - 1e-3, yc + 0.5, boxes[0][4], -8.0,
                                           0.0, 0.0)
    for depth in (0.15, 0.25, 0.4):     # the slope is 0.087 m behind the front at car's underbody
        # car2's vertices are outside car's box (below it), their direction not latched
        coll, _ = posed_pair(model, y, boxes, depth, latched=(True, False))
        coll_box, _ = posed_pair(model_box, y_box, boxes, depth)
        print(f"hood, depth {depth} m: car2 Fx {coll[1, 0]:.0f} N, Fz {coll[1, 2]:.0f} N, "
              f"Fz / Fx {coll[1, 2] / coll[1, 0]:.6f} (-cot a {-1.0 / math.tan(SLOPE):.6f}); "
              f"box Fx {coll_box[1, 0]:.0f} N, Fz {coll_box[1, 2]:.3g} N")
        assert coll[1, 0] < 0.0 and coll[0, 2] < 0.0
        assert coll[1, 2] / coll[1, 0] == pytest.approx(-1.0 / math.tan(SLOPE), rel=1e-9)
        assert coll_box[1, 0] < 0.0 and abs(coll_box[1, 2]) <= 1e-9 * abs(coll_box[1, 0])


def test_a_car_pushing_another_meets_its_obj_box_as_its_box(tmp_path):
    """benchmarks/collision.py's event (the first car in first gear pushing the second, braked,
    from 0.5 m behind it): with both exteriors OBJ files of their box meshes the cars keep the
    distance they keep as boxes (the pair latched to the front and the rear, not to the roof or
    a side: a vertex within EDGE behind the rear is in through the rear)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from collision import write_event
    gaps = []
    for obj in (False, True):
        sim = engine.Simulation(engine.load_event(str(write_event(tmp_path, 2.0, 0.5, 300, obj))),
                                warn=False)
        sim.u_unit[:, L.IU_GEAR] = 1
        sim.u_unit[0, L.IU_THROTTLE], sim.u_unit[1, L.IU_BRAKE] = 0.3, 400.0
        sim.advance(1.5)
        gaps.append(sim.y[L.N_BODY + L.SX] - sim.y[L.SX])
    print(f"pushing: CG distance {gaps[0]:.6f} m as boxes, {gaps[1]:.6f} m as OBJ boxes")
    assert gaps[1] == pytest.approx(gaps[0], abs=1e-3)      # measured 3e-6 m
