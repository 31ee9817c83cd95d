"""Crush that moves the mesh (engine.collision, surface_memory and series_split;
docs/equations.md, "Crush that moves the mesh"), the kernel posed: a front crushed before
(its vertices' largest approach m, its permanent set s = (1 - e^2) m) is met by a fresh
partner where the crush left it, not where the mesh was made, and the two fronts share the
overlap so that they carry one pressure, the crushed one on its elastic line.

Two copies of the sedan face to face, level, at rest (support.fronts.posed_pair); car's front
crushed by m across its whole face, car2's not. With the two fronts' undeformed overlap D and
d = D - s what is left of it after car's set, both fronts of stiffness K = B / H per unit area
over the common area w H:
  * d <= 0: no force (the old law pressed car2's fresh front from D = 0 on);
  * car on its elastic line (slope K / e^2) from its set, car2 loading (slope K): the pressure
    K x_2 = (K / e^2) x_1 with x_1 + x_2 = d, so F = B w d / (1 + e^2) while x_1 <= e^2 m;
  * beyond, car back on its loading line: K (s + x_1) = K x_2, so F = B w (s + d) / 2.
The same with car's exterior an OBJ file of its box (its triangles met, the memories
interpolated over them).

Where the set varies across the face the crushed surface is turned: the push on a vertex is
F_n (n + grad s), the gradient of the overlap, so the contact has a potential: a narrower
partner pressed into a front crushed unevenly and moved round a closed loop (in, across, out,
back) gets no work from it (with the push along n alone it gained energy round the loop).

The crushed surface is read where a vertex presses by interpolating the memories of the four
grid nodes round it, on whichever of the six faces it presses: checked against a reference
that finds each face's nodes by their coordinates."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.setup.collision import unit_box
from support.exteriors import default_box_obj
from support.fronts import posed_pair, two_sedans

CRUSHED = 0.3       # m: car's front's largest approach before
N_LEG = 801         # points along each leg of the loop (the trapezoid rule)


def _case(obj_dir=None, width2=None):
    data = two_sedans(300)
    if width2 is not None:
        data["units"][1]["dimensions"]["width"] = width2
    data["units"][1]["initial"] = {"X": 10.0, "Y": 0.0, "yaw": np.pi, "speed": 0.0}
    for unit in data["units"]:
        unit["collision"]["damping_ratio"] = 0.0
        unit["collision"]["friction"] = 0.0
    boxes = [unit_box(u) for u in engine.load_event(data).model.units]
    if obj_dir is not None:
        data = copy.deepcopy(data)
        data["units"][0]["collision"]["mesh_file"] = str(default_box_obj(obj_dir / "car.obj",
                                                                         boxes[0], 300))
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL))
    return data, model, sim.y.copy(), boxes


@pytest.fixture(scope="module", params=["box", "obj"])
def crushed(request, tmp_path_factory):
    data, model, y, boxes = _case(None if request.param == "box" else tmp_path_factory.mktemp("m"))
    v0, nv = int(model.P_COLL[0, L.CO_V0]), int(model.P_COLL[0, L.CO_NV])
    memory = np.zeros(model.CV.shape[0])
    front = v0 + np.flatnonzero(model.CK[v0:v0 + nv, L.FACE_FRONT] > 0.0)
    memory[front] = CRUSHED
    return request.param, data, model, y, boxes, memory


def test_a_fresh_partner_meets_a_crushed_front_where_the_crush_left_it(crushed):
    kind, data, model, y, boxes, memory = crushed
    e = model.P_COLL[0, L.CO_E]
    B = data["units"][0]["collision"].get("crush_stiffness", {}).get("front") or \
        engine.setup.event.DEFAULT_CRUSH_B["front"]
    w = boxes[0][2] * 2.0
    s = (1.0 - e * e) * CRUSHED
    rows = []
    for d in (-0.05, -0.005, 0.005, 0.15, 0.45):
        coll, _ = posed_pair(model, y, boxes, s + d, memory=memory)
        if d <= 0.0:
            closed = 0.0
        elif d <= (1.0 + e * e) * CRUSHED:     # x_1 = e^2 d / (1 + e^2) <= e^2 m
            closed = B * w * d / (1.0 + e * e)
        else:
            closed = B * w * (s + d) / 2.0
        rows.append((d, -coll[0, 0], -coll[1, 0], closed))     # each along its own x
    print(f"{kind}: set {s:.4f} m, e {e}: " + "; ".join(
        f"d {d:+.4f}: {fa:.1f} {fb:.1f} N (closed {c:.1f})" for d, fa, fb, c in rows))
    for d, fa, fb, closed in rows:
        if closed == 0.0:
            assert fa == 0.0 and fb == 0.0
        else:
            assert fa == pytest.approx(closed, rel=1e-9)     # measured to 1e-13
            assert fb == pytest.approx(closed, rel=1e-9)


@pytest.mark.parametrize("exterior", ["box", "obj"])
def test_a_partner_moved_round_a_loop_on_an_unevenly_crushed_front_gains_no_work(exterior,
                                                                                  tmp_path):
    """car's front crushed 0.2 m on its right edge to 0.4 m on its left, linearly, car2 (1.0 m
    wide, its front crushed 0.4 m) pressed into it and moved round the loop: in from D0 to
    D1 at dy1, across to dy2, out to D0, back to dy1 (D the undeformed overlap, dy car2's
    offset; friction and damping off, the memories as posed), within the faces' elastic
    lines (where a face loads its memory grows and the contact dissipates). car2's vertices only (car's
    take no part: its vertices under car2's narrower front come and go with the offset, an
    edge effect of the tributary areas apart from the crush). The work of the contact on car2
    over the loop, against the work of its push in on one leg. car's exterior its box mesh, or
    an OBJ file of it (the memories interpolated over its triangles)."""
    data, model, y, boxes = _case(tmp_path if exterior == "obj" else None, width2=1.0)
    v0, nv = int(model.P_COLL[0, L.CO_V0]), int(model.P_COLL[0, L.CO_NV])
    front = v0 + np.flatnonzero(model.CK[v0:v0 + nv, L.FACE_FRONT] > 0.0)
    v1, nv1 = int(model.P_COLL[1, L.CO_V0]), int(model.P_COLL[1, L.CO_NV])
    front2 = v1 + np.flatnonzero(model.CK[v1:v1 + nv1, L.FACE_FRONT] > 0.0)
    memory = np.zeros(model.CV.shape[0])
    half = boxes[0][2]
    memory[front] = 0.3 - 0.1 * model.CV[front, 1] / half
    memory[front2] = 0.4
    model = model._replace(P_COLL=model.P_COLL.copy())
    model.P_COLL[0, L.CO_NV] = 0.0          # car2's vertices only (car's still crushed)
    # car2's front at the offsets spans car's memories 0.213 .. 0.387 m; the faces meet from D
    # = s_2 + s_1 = 0.391 + 0.208 m, and stay on their elastic lines up to an overlap of
    # e^2 (0.4 + 0.2) = 0.0135 m: the loop stays within that (its memories are not raised)
    (D0, D1), (dy1, dy2) = (0.595, 0.61), (-0.2, 0.2)

    def force(depth, dy):
        """car2's position (earth X, Y) and the contact's force on it (earth X, Y)."""
        coll, poses = posed_pair(model, y, boxes, depth, memory=memory, offset=dy)
        return poses[1][:2], np.array([-coll[1, 0], -coll[1, 1]])   # car2 turned round

    legs = [((D0, dy1), (D1, dy1)), ((D1, dy1), (D1, dy2)), ((D1, dy2), (D0, dy2)),
            ((D0, dy2), (D0, dy1))]
    works = []
    for (da, ya), (db, yb) in legs:
        points = [force(d, q) for d, q in zip(np.linspace(da, db, N_LEG), np.linspace(ya, yb, N_LEG))]
        p = np.array([x for x, _ in points])
        F = np.array([g for _, g in points])
        works.append(float(np.sum(0.5 * (F[1:] + F[:-1]) * np.diff(p, axis=0))))
    print(exterior, "work per leg (J):", np.round(works, 2), "loop", round(sum(works), 4))
    most = max(abs(w) for w in works)
    assert most > 50.0                     # the contact does work on the legs (79 J)
    # measured 4.9e-4 (box) and 5.6e-4 (OBJ) of it, the trapezoids of 801 points a leg (the
    # OBJ 3.7e-3 at 201: its gradient jumps at the triangles' edges); along n alone +79 J
    assert abs(sum(works)) < 2e-3 * most


@pytest.mark.parametrize("exterior", ["box", "obj"])
def test_a_front_crushed_along_a_slope_turns_the_push_by_the_slope(exterior, tmp_path):
    """car's front crushed along a plane, its memory m = m0 + g_y y + g_z z over the front
    (the interpolation reproduces it exactly), car2 (narrower and lower, so all its front lies
    over car's) pressed into it square: each of car2's vertices is pushed along n + (1 - e^2)
    grad m, so the push on car2 has F_y / F_x = (1 - e^2) g_y and F_z / F_x = (1 - e^2) g_z,
    whatever the normal forces (car2's vertices only; friction off)."""
    data, model, y, boxes = _case(tmp_path if exterior == "obj" else None, width2=1.0)
    data = copy.deepcopy(data)
    c2 = data["units"][1]["collision"]
    cg = data["units"][1]["sprung_mass"]["cg_height"]
    zt, zb = boxes[0][3], boxes[0][4]          # car's roof and underbody, z down from its CG
    c2["ground_clearance"] = cg - zb + 0.1
    c2["height"] = cg - zt - 0.1
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL),
                               P_COLL=sim.model.P_COLL.copy())
    boxes2 = [unit_box(u) for u in engine.load_event(data).model.units]
    assert boxes2[1][3] > boxes2[0][3] + 0.05 and boxes2[1][4] < boxes2[0][4] - 0.05
    v0, nv = int(model.P_COLL[0, L.CO_V0]), int(model.P_COLL[0, L.CO_NV])
    front = v0 + np.flatnonzero(model.CK[v0:v0 + nv, L.FACE_FRONT] > 0.0)
    v1, nv1 = int(model.P_COLL[1, L.CO_V0]), int(model.P_COLL[1, L.CO_NV])
    front2 = v1 + np.flatnonzero(model.CK[v1:v1 + nv1, L.FACE_FRONT] > 0.0)
    g_y, g_z = -0.06, 0.08
    memory = np.zeros(model.CV.shape[0])
    memory[front] = 0.3 + g_y * model.CV[front, 1] + g_z * model.CV[front, 2]
    memory[front2] = 0.4
    model.P_COLL[0, L.CO_NV] = 0.0          # car2's vertices only (car's still crushed)
    coll, _ = posed_pair(model, sim.y.copy(), boxes2, 0.85, memory=memory)
    fx, fy, fz = -coll[1, 0], -coll[1, 1], coll[1, 2]     # car2 turned round, in car's axes
    e = model.P_COLL[0, L.CO_E]
    print(f"{exterior}: Fx {fx:.1f} N, Fy / Fx {fy / fx:.6e} (closed {(1 - e * e) * g_y:.6e}), "
          f"Fz / Fx {fz / fx:.6e} (closed {(1 - e * e) * g_z:.6e}), {coll[1, 6]:.0f} vertices")
    assert fx > 1e4
    assert fy / fx == pytest.approx((1.0 - e * e) * g_y, rel=1e-9)     # measured 2e-15
    assert fz / fx == pytest.approx((1.0 - e * e) * g_z, rel=1e-9)


def _law(x, e, m):
    """A face's load per unit of its stiffness at x beyond its permanent set (1 - e^2) m, as
    docs/equations.md states it: the elastic line of slope 1 / e^2 up to its memory m, the
    loading line of slope 1 beyond (written here from the text, not from the engine)."""
    corner = e * e * m
    return x / (e * e) if x <= corner else m + (x - corner)


def _split_by_bisection(Ka, ea, ma, Kb, eb, mb, d):
    """x_a in [0, d] with Ka law_a(x_a) = Kb law_b(d - x_a), by bisection (the difference grows
    with x_a; held at the ends where it has no root inside)."""
    def g(x):
        return Ka * _law(x, ea, ma) - Kb * _law(d - x, eb, mb)
    if g(0.0) >= 0.0:
        return 0.0
    if g(d) <= 0.0:
        return d
    lo, hi = 0.0, d
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) < 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


def test_the_overlap_is_split_where_the_two_faces_carry_one_pressure():
    """series_split against bisection of the two laws over 20 000 random pairs of faces
    (stiffness, restitution 0.05 to 1, memory 0 to 0.5 m, overlap to 0.6 m): x_a to 1e-14 of
    the overlap, and its rate with the overlap against a centred difference of the bisection's
    x_a where no corner is within the difference's reach, to 4e-9. Measured: 6.7e-16 and
    4e-10 (the difference's own error)."""
    from engine.collision import series_split
    rng = np.random.default_rng(7)
    worst_x, worst_rate, rates = 0.0, 0.0, 0
    for _ in range(20000):
        Ka, Kb = rng.uniform(1e4, 1e7, 2)
        ea, eb = rng.choice([0.05, 0.3, 1.0, rng.uniform(0.05, 1.0)], 2)
        ma, mb = rng.choice([0.0, rng.uniform(0.0, 0.5)], 2)
        d = rng.uniform(1e-4, 0.6)
        x, rate = series_split(Ka, ea, ma, Kb, eb, mb, d)
        worst_x = max(worst_x, abs(x - _split_by_bisection(Ka, ea, ma, Kb, eb, mb, d)) / d)
        h = 1e-6 * d
        corners = (ea * ea * ma, d - eb * eb * mb)       # x_a where a face changes its line
        if all(abs(x - c) > 1e3 * h for c in corners) and 1e3 * h < x < d - 1e3 * h:
            numeric = (_split_by_bisection(Ka, ea, ma, Kb, eb, mb, d + h)
                       - _split_by_bisection(Ka, ea, ma, Kb, eb, mb, d - h)) / (2 * h)
            worst_rate = max(worst_rate, abs(rate - numeric))
            rates += 1
    print(f"series_split: x_a to {worst_x:.2g} of the overlap, its rate to {worst_rate:.2g} "
          f"({rates} rates)")
    assert rates > 5000
    assert worst_x < 1e-14
    assert worst_rate < 4e-9


def _bracket(nodes, q):
    """The cell of sorted ``nodes`` that q lies in (the one above a node between two cells),
    q's fraction of it (held at 0 or 1 beyond the ends) and its width (0 beyond the ends)."""
    m = int(np.clip(np.searchsorted(nodes, q, side="right") - 1, 0, len(nodes) - 2))
    a, b = nodes[m], nodes[m + 1]
    return m, min(max((q - a) / (b - a), 0.0), 1.0), (b - a) if a <= q <= b else 0.0


def test_the_crushed_surface_is_interpolated_between_its_nodes_on_every_face():
    """surface_memory on each of the six faces of a box mesh against a reference that knows no
    vertex numbering: the face's vertices found by the faces they carry stiffness on (CK), its
    nodes by their coordinates, the memory interpolated bilinearly over the four nodes round
    the point, with its rates across the face (rise over run along each of the face's two
    axes, in the order i + 1, i + 2 of the face's axis i). Random memories on every vertex,
    points inside, beyond the face's edges and on its nodes."""
    from engine import collision as C
    data = two_sedans(300)
    data["units"][1]["initial"] = {"X": 10.0, "Y": 0.0, "yaw": np.pi, "speed": 0.0}
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model
    rng = np.random.default_rng(7)
    y = sim.y.copy()
    vbase = int(model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE * model.P_UNIT.shape[0]
    y[vbase:vbase + model.CV.shape[0]] = rng.uniform(0.0, 0.2, model.CV.shape[0])
    worst, count = 0.0, 0
    for b in range(model.P_UNIT.shape[0]):
        PCb = model.P_COLL[b]
        box = tuple(float(PCb[c]) for c in (L.CO_XMIN, L.CO_XMAX, L.CO_YMIN, L.CO_YMAX,
                                            L.CO_ZMIN, L.CO_ZMAX))
        grid = C.grid_scale(model.CV, PCb)
        v0, nv = int(PCb[L.CO_V0]), int(PCb[L.CO_NV])
        for f in range(L.N_FACES):
            i = C.face_axis(f)
            j, k = (i + 1) % 3, (i + 2) % 3
            on = v0 + np.flatnonzero(model.CK[v0:v0 + nv, f] > 0.0)
            memory = {(model.CV[v, j], model.CV[v, k]): y[vbase + v] for v in on}
            nodes_j = np.unique(model.CV[on, j])
            nodes_k = np.unique(model.CV[on, k])
            assert len(memory) == len(nodes_j) * len(nodes_k)    # a full grid on the face
            for _ in range(400):
                q = [rng.uniform(box[2 * a] - 0.05, box[2 * a + 1] + 0.05) for a in range(3)]
                if rng.random() < 0.3:          # on a node along one of the face's axes
                    a, nodes = (j, nodes_j) if rng.random() < 0.5 else (k, nodes_k)
                    q[a] = float(rng.choice(nodes))
                mj, tj, sj = _bracket(nodes_j, q[j])
                mk, tk, sk = _bracket(nodes_k, q[k])
                c00 = memory[(nodes_j[mj], nodes_k[mk])]
                c10 = memory[(nodes_j[mj + 1], nodes_k[mk])]
                c01 = memory[(nodes_j[mj], nodes_k[mk + 1])]
                c11 = memory[(nodes_j[mj + 1], nodes_k[mk + 1])]
                low, high = c00 + tj * (c10 - c00), c01 + tj * (c11 - c01)
                want = (low + tk * (high - low), (1 - tk) * (c10 - c00) + tk * (c11 - c01), sj,
                        high - low, sk)
                got = C.surface_memory(y, model, b, vbase, f, q[0], q[1], q[2], box, -1, grid)
                worst = max(worst, max(abs(g - w) for g, w in zip(got, want)))
                count += 1
    print(f"surface memory on every face: {count} points, largest difference {worst:.2e} m")
    assert worst <= 1e-15      # measured: 0
