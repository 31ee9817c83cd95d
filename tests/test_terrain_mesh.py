"""The mesh terrain (engine/setup/meshes.py, engine/terrain_mesh.py): reading OBJ polygon databases, refusing bad
ones with the file and line named, and the compiled lookup of the road under a point
(Eq. 80, GetSurfaceInfo()) against the closed forms of the planes the files describe."""
import math
import time
from pathlib import Path

import numba
import numpy as np
import pytest

from engine.setup.meshes import WALL_ANGLE, MeshError, empty_mesh, load_mesh
from engine.terrain_mesh import mesh_surface
from support.roads import grid_mesh_obj

DATA = Path(__file__).parent / "data" / "terrain"
WET = {"asphalt": {"friction_multiplier": 1.0, "water_depth": 0.0},
       "wet": {"friction_multiplier": 0.6, "water_depth": 0.003}}


def lookup(mesh, X, Y):
    return mesh_surface(mesh.TR_TRI, mesh.TR_NRM, mesh.TR_MAT, mesh.TR_MATP, mesh.TR_GRID,
                        mesh.TR_START, mesh.TR_CELL, float(X), float(Y))


def plane(gx, gy):
    """The unit normal pointing down (Z down) of the plane Z = Z0 + gx X + gy Y."""
    n = np.array([-gx, -gy, 1.0])
    return n / np.linalg.norm(n)


def assert_surface(hit, z, normal, multiplier=1.0, water=0.0):
    found, Z, nx, ny, nz, f, d, _texture = hit
    assert found
    assert Z == pytest.approx(z, abs=1e-12)
    assert np.allclose([nx, ny, nz], normal, atol=1e-12)
    assert (f, d) == (multiplier, water)


def test_flat_square_quad():
    mesh = load_mesh(DATA / "flat.obj", {})
    assert mesh.TR_TRI.shape == (2, 9) and mesh.walls.shape == (0, 9)
    for X, Y in [(0.0, 0.0), (5.0, 5.0), (10.0, 10.0), (3.3, 7.1), (10.0, 0.0), (0.0, 10.0)]:
        assert_surface(lookup(mesh, X, Y), -0.2, (0.0, 0.0, 1.0))
    for X, Y in [(-0.01, 5.0), (10.01, 5.0), (5.0, -1e-3), (5.0, 10.5), (1e6, 1e6)]:
        assert lookup(mesh, X, Y)[0] is False


def test_constant_grade():
    """Z = -0.05 X (the road rises with X): the plane's height and its normal (0.05, 0, 1)/|.|
    everywhere, whatever the winding of the file's quads."""
    mesh = load_mesh(DATA / "grade5.obj", {})
    assert np.all(mesh.TR_NRM[:, 2] > 0.0)
    normal = plane(-0.05, 0.0)
    rng = np.random.default_rng(1)
    for X, Y in zip(rng.uniform(0, 20, 200), rng.uniform(-3, 3, 200)):
        assert_surface(lookup(mesh, X, Y), -0.05 * X, normal)
    assert_surface(lookup(mesh, 10.0, 0.0), -0.5, normal)    # on the edge between the quads
    # n . P = d on every plane
    P = mesh.TR_TRI.reshape(-1, 3, 3)
    assert np.allclose(np.einsum("ij,ikj->ik", mesh.TR_NRM[:, :3], P), mesh.TR_NRM[:, 3:])


def test_z_up_file_turned_into_the_earth_frame(tmp_path):
    """A Z-up file of the grade (Y and Z of the earth frame negated) reads into the same road."""
    lines = []
    for line in (DATA / "grade5.obj").read_text().splitlines():
        if line.startswith("v "):
            x, y, z = map(float, line.split()[1:])
            line = f"v {x} {-y} {-z}"
        lines.append(line)
    (tmp_path / "up.obj").write_text("\n".join(lines))
    down, up = load_mesh(DATA / "grade5.obj", {}), load_mesh(tmp_path / "up.obj", {}, z_up=True)
    assert np.allclose(up.TR_TRI, down.TR_TRI) and np.allclose(up.TR_NRM, down.TR_NRM)
    assert_surface(lookup(up, 4.0, 1.0), -0.2, plane(-0.05, 0.0))
    # read without z_up the same file is a road falling with X, normals still pointing down
    wrong = load_mesh(tmp_path / "up.obj", {})
    assert_surface(lookup(wrong, 4.0, -1.0), 0.2, plane(0.05, 0.0))


def test_plateau_step_is_a_wall():
    """The 0.1 m riser over 0.05 m (63 degrees) is a wall: kept apart, not in the lookup,
    which finds no road over the riser's 5 cm and the plateau 0.1 m up beyond it."""
    assert math.degrees(WALL_ANGLE) == pytest.approx(45.0)
    mesh = load_mesh(DATA / "plateau.obj", {})
    assert mesh.TR_TRI.shape == (4, 9) and mesh.walls.shape == (2, 9)
    assert set(np.round(mesh.walls[:, 0::3].ravel(), 6)) == {10.0, 10.05}
    assert_surface(lookup(mesh, 9.99, 1.0), 0.0, (0.0, 0.0, 1.0))
    assert lookup(mesh, 10.02, 1.0)[0] is False
    assert_surface(lookup(mesh, 10.06, 1.0), -0.1, (0.0, 0.0, 1.0))
    assert lookup(mesh, 10.06, 1.0)[1] - lookup(mesh, 9.99, 1.0)[1] == pytest.approx(-0.1)


def test_crowned_road_and_its_wet_patch():
    """Z = -0.06 + 0.02 |Y|; friction multiplier and water depth of the triangle's material."""
    mesh = load_mesh(DATA / "crowned.obj", WET)
    assert mesh.material_names == ("", "asphalt", "wet")
    assert np.array_equal(mesh.TR_MATP, [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.6, 0.003, 0.0]])
    # the material of each triangle: the wet ones are those over X 8..12
    centre_x = mesh.TR_TRI[:, 0::3].mean(axis=1)
    assert np.array_equal(mesh.TR_MAT, np.where((centre_x > 8) & (centre_x < 12), 2.0, 1.0))
    for X, Y in [(2.0, 1.5), (2.0, -1.5), (10.0, 2.9), (10.0, -0.4), (17.0, -2.0)]:
        wet = 8 < X < 12
        assert_surface(lookup(mesh, X, Y), -0.06 + 0.02 * abs(Y),
                       plane(0.0, 0.02 * math.copysign(1.0, Y)),
                       0.6 if wet else 1.0, 0.003 if wet else 0.0)
    assert lookup(mesh, 10.0, 0.0)[1] == pytest.approx(-0.06, abs=1e-12)   # on the crown


def test_no_usemtl_is_dry_and_unit_friction():
    mesh = load_mesh(DATA / "grade5.obj", WET)
    assert np.all(mesh.TR_MAT == 0.0)
    assert lookup(mesh, 5.0, 0.0)[5:] == (1.0, 0.0, 0.0)


@pytest.mark.parametrize("name, line, words", [
    ("unknown_material.obj", 6, "unknown material 'ice'"),
    ("degenerate.obj", 6, "degenerate triangle"),
    ("nonfinite.obj", 3, "non-finite vertex"),
    ("missing_vertex.obj", 5, "face references vertex 7, the file has 3 vertices"),
    ("overlap.obj", 11, "overlaps the polygon of line 10 and their heights differ by 0.005 m"),
])
def test_bad_mesh_refused_with_file_and_line(name, line, words):
    materials = {"asphalt": {"friction_multiplier": 1.0, "water_depth": 0.0}}
    with pytest.raises(MeshError) as error:
        load_mesh(DATA / name, materials)
    assert error.value.line == line
    assert str(error.value).startswith(f"{DATA / name}, line {line}: ")
    assert words in str(error.value)


def test_missing_file_and_bad_material_values(tmp_path):
    with pytest.raises(MeshError, match=r"nowhere\.obj: no such file"):
        load_mesh(tmp_path / "nowhere.obj", {})
    with pytest.raises(ValueError, match=r"materials\.wet\.water_depth: must be a finite "):
        load_mesh(DATA / "flat.obj", {"wet": {"friction_multiplier": 0.5, "water_depth": -1}})


def test_overlap_within_a_millimetre_and_touching_steps_are_accepted(tmp_path):
    """Layered polygons 0.5 mm apart agree; a step modelled as two levels meeting on one XY
    line (a vertical riser) touches without overlapping, so it is not a conflict."""
    text = (DATA / "overlap.obj").read_text().replace("-0.005", "-0.0005")
    (tmp_path / "layered.obj").write_text(text)
    assert load_mesh(tmp_path / "layered.obj", {}).TR_TRI.shape == (4, 9)
    grid_mesh_obj(tmp_path / "low.obj", lambda x, y: 0.0 * x, (0, 1), (0, 1), 1)
    step = (tmp_path / "low.obj").read_text().splitlines()
    step += ["v 1 0 -0.1", "v 2 0 -0.1", "v 2 1 -0.1", "v 1 1 -0.1", "f 5 6 7 8",
             "f 3 4 8 5"]   # the upper level and the vertical riser between the two
    (tmp_path / "step.obj").write_text("\n".join(step))
    mesh = load_mesh(tmp_path / "step.obj", {})
    assert mesh.TR_TRI.shape == (4, 9) and mesh.walls.shape == (2, 9)


def test_empty_mesh_finds_nothing():
    assert lookup(empty_mesh(), 0.0, 0.0)[0] is False


@numba.njit(cache=False)
def _lookups(TR_TRI, TR_NRM, TR_MAT, TR_MATP, TR_GRID, TR_START, TR_CELL, X, Y):
    total = 0.0
    for k in range(len(X)):
        total += mesh_surface(TR_TRI, TR_NRM, TR_MAT, TR_MATP, TR_GRID, TR_START, TR_CELL,
                              X[k], Y[k])[1]
    return total


def _ns_per_lookup(mesh, n=10_000):
    """ns per lookup along a weaving track over the mesh's grid, as a tire asks for it (a
    point near the last one), not at random points, whose cost on a mesh larger than the
    processor's caches is that of the memory, not of the index."""
    grid = mesh.TR_GRID
    lo, hi = grid[:2], grid[:2] + grid[[2, 5]] * grid[3:5]
    s = np.linspace(0.0, 1.0, n)
    X = lo[0] + s * (hi[0] - lo[0])
    Y = 0.5 * (lo[1] + hi[1]) + 0.3 * (hi[1] - lo[1]) * np.sin(6.0 * s)
    args = (mesh.TR_TRI, mesh.TR_NRM, mesh.TR_MAT, mesh.TR_MATP, mesh.TR_GRID, mesh.TR_START,
            mesh.TR_CELL, X, Y)
    _lookups(*args)
    best = math.inf
    for _ in range(7):
        t0 = time.perf_counter()
        _lookups(*args)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e9


def test_lookup_cost_does_not_grow_with_the_mesh(tmp_path):
    """The spatial index's order, not a timed benchmark of the engine: 10 000 lookups on a
    20 000-triangle mesh of a bumpy road cost per call no more than 5x those on a 2-triangle
    square (a search through all triangles would cost thousands of times more; measured 14 ns
    and 55 ns, the big mesh's memory outside the processor's first caches)."""
    big = grid_mesh_obj(tmp_path / "big.obj", lambda x, y: 0.05 * np.sin(x) * np.cos(y),
                        (0, 200), (-50, 50), 100)
    big = load_mesh(big, {})
    assert big.TR_TRI.shape == (20_000, 9)
    small = load_mesh(DATA / "flat.obj", {})
    t_small, t_big = _ns_per_lookup(small), _ns_per_lookup(big)
    print(f"lookup: {t_small:.0f} ns per call on 2 triangles, {t_big:.0f} ns on 20 000")
    assert t_big < 5.0 * t_small
    # and right: at a vertex of the big mesh, the surface's own height
    found, Z = lookup(big, 2.0, 1.0)[:2]
    assert found and Z == pytest.approx(0.05 * np.sin(2.0) * np.cos(1.0), abs=1e-12)


def test_exporter_extras_keep_faces_and_materials_in_order():
    """Texture and normal references, a quad among triangles, o and g lines: the triangles
    come out in the file's order with the material of their face."""
    wet = {"wet": {"friction_multiplier": 0.5, "water_depth": 0.001}}
    mesh = load_mesh(DATA / "mixed.obj", wet)
    centres = mesh.TR_TRI.reshape(-1, 3, 3).mean(axis=1)
    assert np.allclose(centres[:, :2], [[2 / 3, 1 / 3], [1 / 3, 2 / 3], [5 / 3, 1 / 3],
                                        [7 / 3, 0.5]])
    assert np.array_equal(mesh.TR_MAT, [1.0, 1.0, 0.0, 1.0])
    assert lookup(mesh, 0.5, 0.5)[5:] == (0.5, 0.001, 0.0)
    assert lookup(mesh, 1.9, 0.5)[5:] == (1.0, 0.0, 0.0)


def test_sparse_mesh_grid_stays_small(tmp_path):
    """A 1 km diagonal strip of 4 m triangles: its bounding box would need 60 000 cells of the
    triangles' size; the grid is held to a few cells per triangle, and the lookup still
    finds the strip's plane (Z = -0.01 X) and nothing beside it."""
    lines, faces = [], []
    for k in range(251):
        s = 4.0 * k / math.sqrt(2.0)
        for off in (-2.0, 2.0):
            x, y = s + off / math.sqrt(2.0), s - off / math.sqrt(2.0)
            lines.append(f"v {x!r} {y!r} {-0.01 * x!r}")
    for k in range(250):
        a = 2 * k + 1
        faces += [f"f {a} {a + 1} {a + 3}", f"f {a} {a + 3} {a + 2}"]
    (tmp_path / "strip.obj").write_text("\n".join(lines + faces))
    mesh = load_mesh(tmp_path / "strip.obj", {})
    n_cells = len(mesh.TR_START) - 1
    assert n_cells <= 2 * 4 * len(mesh.TR_TRI)
    for s in np.linspace(1.0, 700.0, 50):
        found, Z, nx, ny, nz = lookup(mesh, s, s)[:5]
        assert found and Z == pytest.approx(-0.01 * s, abs=1e-12)
        assert np.allclose([nx, ny, nz], plane(-0.01, 0.0), atol=1e-12)
        assert lookup(mesh, s + 3.0, s - 3.0)[0] is False


@pytest.mark.parametrize("body, line, words", [
    # the same triangle twice, one plane tilted each way: the heights agree along X = 0,
    # through the overlap's centre, and differ by 0.02 m at its corners X = -1, 1
    ("v -1 0 -0.01\nv 1 0 0.01\nv 0 1 0\nv -1 0 0.01\nv 1 0 -0.01\nv 0 1 0\n"
     "f 1 2 3\nf 4 5 6\n", 8, "overlaps the polygon of line 7 and their heights differ by 0.02 m"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 0 1 2\n", 4, "there is no vertex 0"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 0\nf -1 -2 -4\n", 4, "vertex -4, before the first vertex"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 inf\nf 1 2 3\n", 3, "non-finite vertex"),
    ("v 0 0 0\nv 1 0\nv 1 1 0\nf 1 2 3\n", 2, "a vertex needs three numbers"),
    ("v 0 0 0\nv 1 0 0\nf 1 2\n", 3, "a face needs at least 3 vertices"),
])
def test_more_refusals(tmp_path, body, line, words):
    (tmp_path / "bad.obj").write_text(body)
    with pytest.raises(MeshError) as error:
        load_mesh(tmp_path / "bad.obj", {})
    assert error.value.line == line and words in str(error.value)


def test_thin_but_true_triangles_far_from_the_origin_are_not_degenerate(tmp_path):
    """A 1 mm-wide sliver 5 km out is a triangle; three points on one line there are not."""
    body = "v 5000 5000 0\nv 5001 5000 0\nv 5000 5000.001 0\nv 5002 5000 0\nf 1 2 3\n"
    (tmp_path / "thin.obj").write_text(body)
    assert lookup(load_mesh(tmp_path / "thin.obj", {}), 5000.1, 5000.0005)[0]
    (tmp_path / "line.obj").write_text(body + "f 1 2 4\n")
    with pytest.raises(MeshError, match="line 6: degenerate triangle"):
        load_mesh(tmp_path / "line.obj", {})


def test_a_material_carries_its_texture_depth():
    """Gallaway's hydroplaning speed needs the road's texture depth: a material's own."""
    mesh = load_mesh(DATA / "crowned.obj", {"asphalt": {"friction_multiplier": 1.0, "water_depth": 0.0,
                                                       "texture_depth": 0.0008},
                                            "wet": {"friction_multiplier": 0.6, "water_depth": 0.003,
                                                    "texture_depth": 0.0005}})
    assert lookup(mesh, 10.0, 1.0)[5:] == (0.6, 0.003, 0.0005)
    assert lookup(mesh, 2.0, 1.0)[5:] == (1.0, 0.0, 0.0008)
