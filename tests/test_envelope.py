"""The tread's envelope of a mesh road (engine.envelope; docs/equations.md, "Tread envelope on
mesh and OpenCRG roads"), kernel by kernel: exact on a plane, the closed form of a disc over a
step's corner (tests/support/curbs.py), continuous across a step met straight on or sideways,
a step's sloping face bridged, no road off the mesh; the risers among a mesh's walls; the walk
along the heading cut to the span that can meet the disc gives the whole walk's sums, bit for
bit."""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
import pytest

from engine import layout as L
from engine.envelope import (MODE_DISC, MODE_SECTION, disc_span, segment_angle, tread_envelope,
                             walk)
from engine.setup.collision import terrain_top
from engine.setup.meshes import TerrainMesh, load_mesh
from engine.tire import contact
from support.curbs import segment_depth, step, step_area
from support.roads import grid_mesh_obj, polygon_obj
from support.sedan import TIRE

R = TIRE["unloaded_radius"]
HALF = 0.2 * R                 # half the tread's width (the tire has no width: 0.4 r)
DEPTH = 0.02                   # the tire's deflection on the road below


#: the model's fields the envelope reads: a mesh's arrays and the environment's
Road = namedtuple("Road", TerrainMesh._fields[:7] + ("P_ENV",))


def _road(mesh, top=None) -> Road:
    """The arrays of ``mesh`` as the packing gives them to the kernels; ``top``: the terrain's
    highest point in place of the packing's (engine.setup.collision.terrain_top)."""
    env = np.zeros(L.N_ENV_P)
    env[L.E_MU] = 1.0
    env[L.E_TERRAIN_TOP] = terrain_top(mesh.TR_TRI) if top is None else top
    return Road(mesh.TR_TRI, mesh.TR_NRM, mesh.TR_MAT, mesh.TR_MATP, mesh.TR_GRID,
                mesh.TR_START, mesh.TR_CELL, env)


def _deflection(road, c, a):
    """The tire's deflection on the envelope's plane (Eq. 85-92), and the plane's normal."""
    found, _, px, py, pz, nx, ny, nz = tread_envelope(road, *c, *a, R, HALF)[:8]
    assert found
    return R - contact(*c, *a, px, py, pz, nx, ny, nz)[0], np.array([nx, ny, nz])


def _axle(steer=0.0, camber=0.0):
    return (-math.sin(steer), math.cos(steer) * math.cos(camber), math.cos(steer) * math.sin(camber))


def test_the_segment_angle_inverts_the_segments_area():
    for theta in (1e-3, 0.1, 0.4, 1.2, 2.0, 3.0):
        area = R * R * (theta - math.sin(theta) * math.cos(theta))
        assert segment_angle(area, R) == pytest.approx(theta, rel=1e-12)
    assert segment_angle(0.0, R) == 0.0 and segment_angle(4.0 * R * R, R) == math.pi


def test_on_a_plane_the_envelope_is_the_plane(tmp_path):
    """A plane rising 10 % along X and falling 5 % across, in triangles of 0.5 m: wherever the
    wheel is (over the triangles' edges too), however it is steered or cambered, the effective
    plane is the road's and the contact that of the plane under the centre."""
    gx, gy = -0.10, 0.05
    mesh = load_mesh(grid_mesh_obj(tmp_path / "plane.obj", lambda x, y: 0.2 + gx * x + gy * y,
                                   (-3.0, 3.0), (-2.0, 2.0), (12, 8)), {})
    road = _road(mesh)
    normal = np.array([-gx, -gy, 1.0]) / math.sqrt(1.0 + gx * gx + gy * gy)
    for x, y in ((0.3, 0.1), (0.5, 0.0), (-1.25, 0.75)):
        z = 0.2 + gx * x + gy * y
        for a in (_axle(), _axle(0.3), _axle(0.0, 0.1), _axle(-1.0, -0.05)):
            c = (x, y, z - (R - DEPTH))
            got, n = _deflection(road, c, a)
            ref = R - contact(*c, *a, x, y, z, *normal)[0]
            assert np.abs(n - normal).max() < 1e-12
            assert got == pytest.approx(ref, abs=1e-12)


@pytest.fixture(scope="module")
def step_road(tmp_path_factory):
    folder = tmp_path_factory.mktemp("envelope")
    return {h: _road(load_mesh(polygon_obj(folder / f"step{h}.obj", step(h, x=0.0)), {}))
            for h in (0.03, 0.15)}


@pytest.mark.parametrize("h", [0.03, 0.15])
def test_over_a_step_the_tire_is_a_disc_over_its_corner(step_road, h):
    """The centre at a fixed height, R - DEPTH above the road below a vertical step: the
    deflection is the depth of the circular segment of the disc's area inside the road
    (tests/support/curbs.py), from the corner's first touch to the road above, and the plane
    leans towards the corner (its normal forward, into the step)."""
    height = R - DEPTH
    for x in np.linspace(-0.45, 0.45, 37):
        got, n = _deflection(step_road[h], (x, 0.3, -height), _axle())
        ref = segment_depth(R, step_area(R, height, -x, h))
        assert got == pytest.approx(ref, abs=1e-12)
        touch = math.sqrt(R * R - (height - h) ** 2)
        if -touch < x < 0.0:
            assert n[0] > 0.0                     # the road rises ahead: pushed back and up


def test_rolling_onto_a_step_straight_or_sideways_has_no_jump(step_road):
    """Over 0.1 mm of travel the deflection changes by less than twice that (no jump: a point
    contact's is the step's 0.15 m at once), whether the wheel meets the step straight on or
    runs along its edge, the tread crossing it (measured 0.036 and 0.109 mm: sideways, the
    step's height over the tread's width)."""
    road, h, dx = step_road[0.15], 0.15, 1e-4
    for heading in ("straight", "along"):
        depths = []
        for x in np.arange(-0.45, 0.45, dx):
            c, a = ((x, 0.3, -(R - DEPTH)), _axle()) if heading == "straight" else \
                ((x, 0.3, -(R - DEPTH)), _axle(math.pi / 2))
            depths.append(_deflection(road, c, a)[0])
        steps = np.abs(np.diff(depths))
        print(f"{heading}: largest change {steps.max() * 1e3:.4f} mm in {dx * 1e3:.1f} mm, from "
              f"{depths[0] * 1e3:.1f} to {depths[-1] * 1e3:.1f} mm")
        assert depths[0] == pytest.approx(DEPTH, abs=1e-12)
        assert depths[-1] == pytest.approx(DEPTH + h, abs=1e-12)
        assert steps.max() < 2.0 * dx


def test_a_sloping_face_is_bridged_and_the_road_ends_at_the_mesh(tmp_path):
    """A 1 m step whose face slopes over 0.1 m (steeper than 45 degrees: a wall, no road under
    it), as an OpenCRG step within one cell: the tire over its footprint finds the road (the
    bridge from the road below to the road above) and its deflection grows as the face comes
    in; past the mesh's far end there is no road."""
    polygons = [[(-5, -2, 0), (0, -2, 0), (0, 2, 0), (-5, 2, 0)],
                [(0.1, -2, -1), (5, -2, -1), (5, 2, -1), (0.1, 2, -1)],
                [(0, -2, 0), (0, 2, 0), (0.1, 2, -1), (0.1, -2, -1)]]
    mesh = load_mesh(polygon_obj(tmp_path / "crgstep.obj", polygons), {})
    assert len(mesh.walls) == 2 and mesh.risers.all()
    road = _road(mesh)
    depths = [_deflection(road, (x, 0.0, -(R - DEPTH)), _axle())[0]
              for x in np.arange(-0.4, 0.06, 0.01)]
    assert np.all(np.diff(depths) >= -1e-12) and depths[-1] > 0.25
    found = tread_envelope(road, 0.05, 0.0, -1.0 - (R - DEPTH), *_axle(), R, HALF)[0]
    assert found                                          # over the face's footprint
    assert not tread_envelope(road, 5.5, 0.0, -1.3, *_axle(), R, HALF)[0]


def test_risers_are_the_faces_between_two_levels_of_road(tmp_path):
    """A step's face has every corner on the road below or above it; a standing wall on the
    road has its top corners on nothing."""
    stepped = load_mesh(polygon_obj(tmp_path / "step.obj", step(0.15, x=0.0)), {})
    assert stepped.risers.tolist() == [True, True]
    wall = [[(-5, -2, 0), (5, -2, 0), (5, 2, 0), (-5, 2, 0)],
            [(0, -2, 0), (0, 2, 0), (0, 2, -1.5), (0, -2, -1.5)]]
    standing = load_mesh(polygon_obj(tmp_path / "wall.obj", wall), {})
    assert len(standing.walls) == 2 and not standing.risers.any()


def _strips(x0, x1, n, z):
    """n strips of road across y in [-1, 1] from x0 to x1 at the earth Z z."""
    xs = np.linspace(x0, x1, n + 1)
    return [[(a, -1, z), (b, -1, z), (b, 1, z), (a, 1, z)] for a, b in zip(xs[:-1], xs[1:])]


def test_the_walk_sums_no_piece_beyond_the_span_that_can_meet_the_disc(tmp_path):
    """engine.envelope.walk sums no piece of profile beyond the span whose disc arc clears the
    terrain's highest point (disc_span), and stops past it. On a rough road of 1 cm cells (4 cm
    from its lowest to its highest point), over a kerb whose face is bridged, across a hole,
    on 2 mm cells (where a walk once ran out of look-ups), over triangles that overlap within the
    loader's tolerance, and past a run of strips too many for the look-back after a gap; at
    heights from clear of the road to 5 cm into it and with the road at the centre's height;
    along, across and oblique to the cells: the sums, the profile's point under the centre and
    its triangle are the whole walk's (the terrain's top at minus infinity), bit for bit, and
    so is the envelope. Measured: 1520 of the 4680 walks stopped early."""
    grid = lambda name, fn, n, span=(-1.0, 1.0): load_mesh(grid_mesh_obj(
        tmp_path / f"{name}.obj", fn, span, (-0.5, 0.5), n), {})
    meshes = {
        "rough": grid("rough", lambda x, y: 0.02 * np.sin(7.1 * x) * np.cos(3.3 * y)
                      + 0.005 * np.sin(53.0 * x + 11.0 * y), (200, 100)),
        "fine": grid("fine", lambda x, y: 0.001 * np.sin(40.0 * x), (400, 8), (-0.4, 0.4)),
        "kerb": load_mesh(polygon_obj(tmp_path / "kerb.obj", [
            [(-2, -2, 0), (0, -2, 0), (0, 2, 0), (-2, 2, 0)],
            [(0.02, -2, -0.12), (2, -2, -0.12), (2, 2, -0.12), (0.02, 2, -0.12)],
            [(0, -2, 0), (0, 2, 0), (0.02, 2, -0.12), (0.02, -2, -0.12)]]), {}),
        "hole": load_mesh(polygon_obj(tmp_path / "hole.obj", [
            [(-2, -2, 0), (-0.05, -2, 0), (-0.05, 2, 0), (-2, 2, 0)],
            [(0.05, -2, 0.01), (2, -2, 0.01), (2, 2, 0.01), (0.05, 2, 0.01)]]), {}),
        "overlap": load_mesh(polygon_obj(tmp_path / "overlap.obj", [
            [(-0.25, -1, 0), (2, -1, 0), (2, 1, 0), (-0.25, 1, 0)],
            [(-0.28, -1, 0), (-0.2206, -1, 0), (-0.2206, 1, 0), (-0.28, 1, 0)],
            [(-2, -1, 0.0009), (-0.1515, -1, 0.0009), (-0.1515, 1, 0.0009),
             (-2, 1, 0.0009)]]), {}),
        "strips": load_mesh(polygon_obj(tmp_path / "strips.obj", [
            [(-2, -1, 0), (-0.11, -1, 0), (-0.11, 1, 0), (-2, 1, 0)]]
            + _strips(-0.1055, -0.1005, 10, -0.005)
            + [[(-0.1005, -1, 0), (2, -1, 0), (2, 1, 0), (-0.1005, 1, 0)]]), {}),
    }
    cut = cases = 0
    for name, mesh in meshes.items():
        road, whole = _road(mesh), _road(mesh, -math.inf)
        top = terrain_top(mesh.TR_TRI)
        for x in np.linspace(-0.3, 0.3, 13):
            for heading in (0.0, 0.7, math.pi / 2, 2.9):
                hx, hy = math.cos(heading), math.sin(heading)
                for depth in (-0.01, 0.0, 0.02, 0.05, R - 5e-9):
                    cz = top - (R - depth)
                    for shift in (0.0, 0.004, -0.003):
                        args = (mesh.TR_TRI, mesh.TR_NRM, mesh.TR_GRID, mesh.TR_START,
                                mesh.TR_CELL, x, 0.0007, hx, hy, R, MODE_DISC, R, cz, shift)
                        got, want = walk(*args, top), walk(*args, -math.inf)
                        assert got[:6] == want[:6], (name, x, heading, depth, shift)
                        cases += 1
                        cut += got[8] < want[8]     # stopped before the whole walk's end
                    a = (-hy, hx, 0.0)
                    assert tread_envelope(road, x, 0.0007, cz, *a, R, HALF) == \
                        tread_envelope(whole, x, 0.0007, cz, *a, R, HALF), (name, x, heading)
    print(f"{cut} of {cases} walks stopped early")
    assert cut >= 1400


@pytest.mark.parametrize("cells", [(500, 20), (5000, 2)])
def test_on_fine_cells_the_walk_meets_the_whole_chord(tmp_path, cells):
    """A level road of 2 mm and of 0.2 mm cells (2 x 500 and 2 x 5000 triangles along 1 m, the
    finer in strips 2 cm wide): the walk along a heading crosses about 700 and 7000 triangles
    over a tire's chord. A walk once made at most 400 look-ups, then 4000: it dropped the
    profile past where it stopped, with no error (on 2 mm cells past s = 0.049 m, 79 % of the
    interference, 0.00248 of 0.00313 m^2, a tire's load 21 % low). The interference is the
    circular segment of the tire's depth, to rounding, along the cells and oblique to them, and
    the envelope's deflection is that depth."""
    mesh = load_mesh(grid_mesh_obj(tmp_path / "fine.obj", lambda x, y: 0.0 * x, (-0.5, 0.5),
                                   (-0.02, 0.02), cells), {})
    r = 0.35
    theta = math.acos((r - DEPTH) / r)
    segment = r * r * (theta - math.sin(theta) * math.cos(theta))
    for heading in (0.0, 0.05):      # (oblique: the line stays on the strip of road)
        got = walk(mesh.TR_TRI, mesh.TR_NRM, mesh.TR_GRID, mesh.TR_START, mesh.TR_CELL, 0.0,
                   0.0007, math.cos(heading), math.sin(heading), r, MODE_DISC, r, -(r - DEPTH),
                   0.0, terrain_top(mesh.TR_TRI))
        assert got[0] == pytest.approx(segment, rel=1e-9), heading
    depth, _ = _deflection(_road(mesh), (0.0, 0.0007, -(R - DEPTH)), _axle())
    assert depth == pytest.approx(DEPTH, abs=1e-12)


def test_a_walk_ends_on_a_position_that_is_not_finite(tmp_path):
    """The walk has no bound on its look-ups (it moves on along the line at every one): on a
    centre, a heading or a length that is not finite it still ends, having found no road."""
    mesh = load_mesh(grid_mesh_obj(tmp_path / "fine.obj", lambda x, y: 0.0 * x, (-0.5, 0.5),
                                   (-0.5, 0.5), (50, 50)), {})
    nan = math.nan
    for x, hx, length in ((nan, 1.0, R), (0.0, nan, R), (0.0, 1.0, nan), (math.inf, 1.0, R)):
        for mode in (MODE_DISC, MODE_SECTION):
            got = walk(mesh.TR_TRI, mesh.TR_NRM, mesh.TR_GRID, mesh.TR_START, mesh.TR_CELL, x,
                       0.0, hx, 0.0, length, mode, R, -(R - DEPTH), 0.0, 0.0)
            assert not got[3], (x, hx, length, mode)
