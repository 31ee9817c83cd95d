"""The OpenCRG terrain (engine/setup/terrain_crg.py): the triangulated grid against crgutils' own
evaluation of the file, its placement in the earth frame, NaN heights, and the refusals.

The files are written here (tests/support/roads.py, grid_crg, ASCII LRFI, five decimals); the
expected heights are the file's own (the function written, rounded as the file holds it), the
expected x, y crgutils' (eval_uv_to_xy through the reference line), placed by the placement's
definition, written here as rotation matrices. crgutils' eval_uv_to_z agrees at the nodes
inside the grid; between long sections and at the last one it is off by the difference of the
sections' means (crgutils 0.1.1, see docs/equations.md), so it is not the reference there."""
import math

import crgutils
import numpy as np
import pytest

from engine.setup import terrain_crg
from engine.setup.terrain_crg import load_crg
from support.roads import grid_crg
from engine.setup.meshes import MeshError
from engine.terrain_mesh import mesh_surface

ORIGIN, HEADING = (12.0, -3.0, 0.4), 0.7


def lookup(mesh, X, Y):
    return mesh_surface(mesh.TR_TRI, mesh.TR_NRM, mesh.TR_MAT, mesh.TR_MATP, mesh.TR_GRID,
                        mesh.TR_START, mesh.TR_CELL, X, Y)


def rz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def earth(point, start, direction, origin=ORIGIN, heading=HEADING):
    """The earth point of a CRG point (x, y, z): the reference line's start at the origin,
    turned so its start direction lies along x, half a turn about x (y left, z up into y
    right, z down), then yawed by the heading (SAE: a rotation about Z down)."""
    half_turn = np.diag([1.0, -1.0, -1.0])
    local = rz(-direction) @ (np.asarray(point) - np.array([start[0], start[1], 0.0]))
    return np.asarray(origin) + rz(heading) @ half_turn @ local


def crg_truth(path):
    """crgutils' own reading: its contact point, u and v nodes, the reference line's start
    point and start direction."""
    ds = crgutils.read(path)
    cp = ds.create_contact_point()
    start = cp.eval_uv_to_xy(ds.u[0], 0.0)
    second = cp.eval_uv_to_xy(ds.u[1], 0.0)
    return cp, ds.u, ds.v, start, math.atan2(second[1] - start[1], second[0] - start[0])


def bumpy(u, v):
    """A road with grade, crossfall, twist and a wave: no two cells alike."""
    return 0.04 * u - 0.02 * v + 0.003 * u * v + 0.05 * np.sin(0.7 * u) * np.cos(1.3 * v)


def in_file(value):
    """A height as the LRFI file holds it (five decimals)."""
    return float(f"{value:10.5f}")


def test_the_triangles_pass_through_the_crg_nodes_on_a_curved_reference_line(tmp_path):
    """Every node of the grid (x, y through the curved reference line as crgutils maps it, z
    the file's), placed in the earth frame, is a vertex of the terrain and the lookup there
    gives its height; inside the grid crgutils' own eval_uv_to_z gives the same height."""
    path = grid_crg(tmp_path / "curve.crg", bumpy, (0.0, 30.0), (-3.0, 3.0), (30, 6),
                    phi=(0.2, 0.9), start=(100.0, 50.0))
    mesh = load_crg(path, ORIGIN, HEADING)
    cp, us, vs, start, direction = crg_truth(path)
    assert mesh.TR_TRI.shape == (2 * 30 * 6, 9) and len(mesh.walls) == 0
    vertices = mesh.TR_TRI.reshape(-1, 3)
    worst_xyz = worst_lookup = worst_crgutils = 0.0
    for u in us:
        for v in vs:
            x, y = cp.eval_uv_to_xy(u, v)
            expected = earth((x, y, in_file(bumpy(u, v))), start, direction)
            if v < vs[-1]:
                worst_crgutils = max(worst_crgutils, abs(cp.eval_uv_to_z(u, v) - in_file(bumpy(u, v))))
            worst_xyz = max(worst_xyz, np.min(np.max(np.abs(vertices - expected), axis=1)))
            if u in us[[0, -1]] or v in vs[[0, -1]]:
                continue    # on the road's edge: a rounding off the road (checked as vertices)
            found, Z = lookup(mesh, expected[0], expected[1])[:2]
            assert found
            worst_lookup = max(worst_lookup, abs(Z - expected[2]))
    print(f"nodes: vertices within {worst_xyz:.2g} m, heights within {worst_lookup:.2g} m, "
          f"crgutils inside the grid within {worst_crgutils:.2g} m")
    assert worst_xyz < 1e-6       # the file's float32 grid
    assert worst_lookup < 1e-6
    assert worst_crgutils < 1e-6


def test_planar_cells_agree_everywhere_and_a_twisted_cell_by_a_quarter_of_its_twist(tmp_path):
    """On a straight reference line with heights planar in (u, v) the triangles equal
    OpenCRG's bilinear surface at every point; with a twist z = k u v each cell's
    triangles differ from it by at most |twist|/4 = k du dv / 4, at the cell's centre."""
    rng = np.random.default_rng(7)
    planar = grid_crg(tmp_path / "planar.crg", lambda u, v: 0.03 * u - 0.05 * v + 0.2,
                      (0.0, 10.0), (-2.0, 2.0), (10, 4))
    k, du, dv = 0.004, 1.0, 1.0
    twisted = grid_crg(tmp_path / "twisted.crg", lambda u, v: k * u * v, (0.0, 10.0),
                       (-2.0, 2.0), (10, 4))
    for path, fn, bound in ((planar, lambda u, v: 0.03 * u - 0.05 * v + 0.2, 1e-6),
                            (twisted, lambda u, v: k * u * v, k * du * dv / 4 + 1e-6)):
        mesh = load_crg(path, ORIGIN, HEADING)
        cp, us, vs, start, direction = crg_truth(path)
        worst = 0.0
        for u, v in zip(rng.uniform(0.0, 10.0, 400), rng.uniform(-2.0, 2.0, 400)):
            x, y = cp.eval_uv_to_xy(u, v)
            X, Y, Z = earth((x, y, fn(u, v)), start, direction)   # bilinear: the file's surface
            found, Z_mesh = lookup(mesh, X, Y)[:2]
            assert found
            worst = max(worst, abs(Z_mesh - Z))
        print(f"{path.name}: within {worst:.3g} m of the bilinear surface (bound {bound:.3g} m)")
        assert worst <= bound
    # at a twisted cell's centre exactly the quarter twist (float32 grid: 1e-7 m)
    x, y = cp.eval_uv_to_xy(3.5, 0.5)
    X, Y, Z = earth((x, y, k * 3.5 * 0.5), start, direction)
    assert abs(lookup(mesh, X, Y)[1] - Z) == pytest.approx(k * du * dv / 4, abs=1e-7)


def test_placement_material_and_normal_of_a_grade(tmp_path):
    """A 5 % grade along a straight reference line starting at the file's (0, 0) with
    direction 0: the road's Z at the earth point `along` m down the heading and `left` m to
    its left is Z0 - 0.05 along, its downward normal (0.05 cos h, 0.05 sin h, 1)/|.|; the
    material is the terrain's."""
    path = grid_crg(tmp_path / "grade.crg", lambda u, v: 0.05 * u + 0.0 * v, (0.0, 40.0),
                    (-4.0, 4.0), (40, 8))
    mesh = load_crg(path, ORIGIN, HEADING, friction_multiplier=0.6, water_depth=0.002,
                    texture_depth=0.001)
    ch, sh = math.cos(HEADING), math.sin(HEADING)
    for along, left in ((0.3, 0.0), (17.25, 3.5), (39.0, -3.9)):
        X = ORIGIN[0] + ch * along + sh * left      # left of the heading is -Y turned by h
        Y = ORIGIN[1] + sh * along - ch * left
        found, Z, nx, ny, nz, friction, water, texture = lookup(mesh, X, Y)
        # the file's grid is float32 (crgutils): 4e-9 m measured
        assert found and Z == pytest.approx(ORIGIN[2] - 0.05 * along, abs=1e-7)
        assert np.allclose([nx, ny, nz], np.array([0.05 * ch, 0.05 * sh, 1.0]) / math.hypot(1, 0.05),
                           atol=1e-7)
        assert (friction, water, texture) == (0.6, 0.002, 0.001)
    # off the road: beyond its end, and beyond its left edge
    assert lookup(mesh, ORIGIN[0] + ch * 41.0, ORIGIN[1] + sh * 41.0)[0] is False
    assert lookup(mesh, ORIGIN[0] + ch * 5.0 + sh * 4.5, ORIGIN[1] + sh * 5.0 - ch * 4.5)[0] is False


def test_a_nan_height_leaves_its_cells_off_the_road(tmp_path):
    """The node (u, v) = (5, 0) has no height: the four cells around it have no triangles,
    the cells beyond them keep theirs."""
    path = grid_crg(tmp_path / "hole.crg",
                    lambda u, v: np.where((u == 5.0) & (v == 0.0), np.nan, 0.0 * u),
                    (0.0, 10.0), (-2.0, 2.0), (10, 4))
    assert "*NaN*" in path.read_text()
    mesh = load_crg(path)
    assert mesh.TR_TRI.shape == (2 * (40 - 4), 9)
    for u, v in ((4.5, 0.5), (5.5, -0.5), (4.2, -0.9), (5.9, 0.1)):
        assert lookup(mesh, u, -v)[0] is False          # v left is earth -Y
    for u, v in ((3.5, 0.5), (6.5, -0.5), (5.5, 1.5), (4.5, -1.5)):
        assert lookup(mesh, u, -v)[:2] == (True, pytest.approx(0.0, abs=1e-12))


def test_refusals_name_the_file(tmp_path, monkeypatch):
    with pytest.raises(MeshError, match=r"nowhere\.crg: no such file"):
        load_crg(tmp_path / "nowhere.crg")
    (tmp_path / "junk.crg").write_text("this is not an OpenCRG file\n")
    with pytest.raises(MeshError) as error:
        load_crg(tmp_path / "junk.crg")
    assert str(error.value).startswith(f"{tmp_path / 'junk.crg'}: not a readable OpenCRG file (")
    path = grid_crg(tmp_path / "big.crg", lambda u, v: 0.0 * u, (0.0, 10.0), (-1.0, 1.0), (10, 4))
    monkeypatch.setattr(terrain_crg, "MAX_TRIANGLES", 79)
    with pytest.raises(MeshError) as error:
        load_crg(path)
    assert str(error.value) == (f"{path}: its 10 x 4 grid cells make 80 triangles, more than the 79 "
                                "this terrain takes: cut the file to the stretch the event drives "
                                "on, or resample it coarser")


def test_a_road_folding_over_itself_is_refused_naming_the_cells(tmp_path):
    """A reference line turning on a 3 m radius under a road 8 m wide: the inner edge's cells
    fold over each other, at heights that differ (a grade), so the lookup would be ambiguous."""
    path = grid_crg(tmp_path / "fold.crg", lambda u, v: 0.1 * u + 0.0 * v, (0.0, 9.0), (-4.0, 4.0),
                    (18, 8), phi=(0.0, 3.0))
    with pytest.raises(MeshError) as error:
        load_crg(path)
    text = str(error.value)
    assert text.startswith(f"{path}: the cell u = ") and " overlaps the cell u = " in text
    assert "their heights differ by" in text


def test_the_lookup_grid_of_a_fine_road_holds_a_few_triangles_per_cell(tmp_path):
    """An OpenCRG road's triangles are long and thin (2 cm along the road, 4 m across for the
    rough roads' two long sections): the grid's cells follow each axis's mean extent, so a cell
    holds a few of them (a square cell of the larger extent held about 400, each tried at every
    look-up), and every point of the road is still found."""
    from simon_fmu.tools.rough_road import rough_road, write_crg
    crg = write_crg(tmp_path / "rough.crg", rough_road("B", 100.0, 1), 100.0)
    mesh = load_crg(str(crg), (0.0, 0.0, 0.0))
    per_cell = np.diff(mesh.TR_START)
    assert per_cell.max() <= 12, per_cell.max()      # measured 8 (a square cell: 400)
    X = np.linspace(0.01, 99.99, 4001)
    for y in (-1.9, -0.3, 0.0, 1.2, 1.9):
        found = [lookup(mesh, x, y)[0] for x in X]
        assert all(found), y


@pytest.mark.parametrize("phi, nans", [((0.2, 0.9), False), ((0.0, 0.0), True),
                                       ((-0.4, 1.3), True)])
def test_the_nodes_evaluated_at_once_are_crgutils_node_by_node(tmp_path, phi, nans):
    """crg_nodes evaluates every node at once (terrain_crg._nodes_at_once, 0.15 s for a 5 km
    rough road's 750 000 nodes that took 11.6 s one by one): on a curved reference line, a
    straight one and one bending back, with NaN nodes, every elevation and x, y equals
    crgutils' own node-by-node evaluation bit for bit, as the check it makes on a sample of
    nodes requires; an edited value at a checked node sends it back to the node-by-node way."""
    def road(u, v):
        z = bumpy(u, v)
        return np.where((u > 7.0) & (u < 9.0) & (v > 1.0), np.nan, z) if nans else z
    path = grid_crg(tmp_path / "road.crg", road, (0.0, 30.0), (-3.0, 3.0), (30, 6), phi=phi,
                    start=(100.0, 50.0))
    dataset = terrain_crg.read_crg(path)
    heights = dataset.z.astype(np.float64) + dataset.z_mean[:, None]
    heights[np.isnan(heights)] = 0.0
    grid = type(dataset)(**{**vars(dataset), "z": heights,
                            "z_mean": np.zeros_like(dataset.z_mean)})
    point = grid.create_contact_point()
    z, base, side = terrain_crg._nodes_at_once(grid, point)
    assert z is not None and z.shape == (7, 31)
    u, v = dataset.u, dataset.v
    one_by_one = np.array([[point.eval_uv_to_z(float(ui), float(vj)) for ui in u] for vj in v])
    xy0 = np.array([point.eval_uv_to_xy(float(ui), 0.0) for ui in u])
    xy1 = np.array([point.eval_uv_to_xy(float(ui), 1.0) for ui in u]) - xy0
    assert np.array_equal(z, one_by_one) and np.array_equal(base, xy0) and np.array_equal(side, xy1)
    # a node the check visits (the first), its grid value changed behind the evaluation's back
    point._ds = type(grid)(**{**vars(grid), "z": heights + (np.arange(heights.size).reshape(
        heights.shape) == 0)})
    assert terrain_crg._nodes_at_once(grid, point) == (None, None, None)
