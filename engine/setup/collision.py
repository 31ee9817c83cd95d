"""Collisions, set-up side (plain Python): each unit's exterior mesh and the parameter arrays of
the collision kernels (:mod:`engine.collision`).

A unit's exterior is a box from its dimensions (:func:`unit_box`, :func:`box_mesh`) or the
OBJ file ``collision.mesh_file`` (:func:`read_exterior`, :func:`exterior_stiffness`), its
vertices carrying the crush stiffness of the face they lie on (docs/equations.md,
"Collisions"). :func:`pack_collisions`, :func:`pack_barriers`, :func:`pack_pairs` and
:func:`pack_exterior_meshes` fill P_COLL, CV, CK, P_BAR (with the environment's objects),
P_PAIR and XM (the OBJ exteriors' and the objects' triangles, which the vertices meet) for
:func:`engine.setup.params.pack`.
"""
import functools
import math
from pathlib import Path

import numpy as np

from ..collision import FRICTION_SPEED, PARALLEL, RAY_EDGE, set_fraction
from .derived import body_front, body_rear
from .errors import EventError
from ..layout import (BA_KIND, BA_NX, BA_NZ, BA_T0, BA_X, BA_Z, BAR_OBJECT, BAR_RISER, BAR_WALL, CO_E, CO_D0,
                     CO_K0, CO_MU, OB_BOX, OB_K, OB_SLOT,
                     CV_CELL,
                     CO_NV, CO_TAU, CO_V0, CO_VREG, CO_XMAX, CO_XMIN, CO_YMAX, CO_YMIN, CO_ZMAX,
                     CO_ZMIN, FACE_BOTTOM, FACE_FRONT, FACE_LEFT, FACE_REAR, FACE_RIGHT, FACE_ROOF,
                     N_BAR_P, N_COLL_P, N_CV, CO_GRID, XT_V0, N_FACES, N_PAIR_P, N_XG, N_XT, XG_N1, XG_O1, XG_S2,
                     XG_START, XT_C0, XT_D, XT_E0, XT_FACE, XT_INV0, XT_NX, XT_NZ, E_COLL_BASE, N_COLL_UNIT_STATE)
from .meshes import MeshError, read_obj, regular_file, xy_grid
from .model import typed_unit


# --- the box mesh ----------------------------------------------------------------------

def _axis_nodes(lo, hi, n, extra=()):
    """n nodes from lo to hi (and the ``extra`` nodes between them), each one's tributary
    interval from it (to the midpoints with its neighbours: half cells at the ends; (back,
    ahead), back <= 0 <= ahead) and its length."""
    x = np.linspace(lo, hi, n)
    inner = [e for e in extra if lo < e < hi and np.min(np.abs(x - e)) > 1e-6 * (hi - lo)]
    x = np.sort(np.concatenate([x, inner]))
    n = len(x)
    t = np.empty(n)
    t[0] = 0.5 * (x[1] - x[0])
    t[-1] = 0.5 * (x[-1] - x[-2])
    t[1:-1] = 0.5 * (x[2:] - x[:-2])
    half = 0.5 * np.diff(x)
    return x, -np.concatenate([[0.0], half]), np.concatenate([half, [0.0]]), t


def box_nodes(x_front, x_rear, y_half, z_top, z_bottom, n_target=300, x_nodes=()):
    """The grid of :func:`box_mesh` along x, y and z: per axis (its nodes, each one's
    tributary interval from it back and ahead, its length), as :func:`_axis_nodes`."""
    lx, ly, lz = x_front - x_rear, 2.0 * y_half, z_bottom - z_top
    if not (lx > 0.0 and ly > 0.0 and lz > 0.0):
        raise ValueError(f"box_mesh: positive dimensions (got {lx:g} x {ly:g} x {lz:g} m)")
    area = 2.0 * (lx * ly + lx * lz + ly * lz)
    s = math.sqrt(area / max(n_target, 8))
    nx, ny, nz = (max(2, int(round(d / s)) + 1) for d in (lx, ly, lz))
    return (_axis_nodes(x_rear, x_front, nx, x_nodes), _axis_nodes(-y_half, y_half, ny),
            _axis_nodes(z_top, z_bottom, nz))


def box_mesh(x_front, x_rear, y_half, z_top, z_bottom, areal, n_target=300, x_nodes=()):
    """The vertices (vehicle-fixed, from the CG, z down) of a box mesh and their stiffness.

    x_front > x_rear, y in [-y_half, y_half], z_top < z_bottom (the roof is up, -z).
    ``areal``: the stiffness per unit area of each face, N/m^3, in the order of
    ``layout.FACE_*`` (front, rear, right, left, bottom, roof). The faces get a grid of about
    ``n_target`` vertices in all, cells as square as the dimensions allow, at least 2 nodes
    along each edge, and a ring of vertices round the box at each x of ``x_nodes`` (the back
    of a cab). Returns (CV[v, layout.N_CV], CK[v, 6]): CV[v, 0:3] the vertex, CV[v, CV_CELL:]
    its tributary cell (the box of the midpoints to its neighbours along x, y and z, from it:
    its tributary area on a face is the cell's extent along the face's axes); CK[v, f] is the
    face's areal stiffness times the vertex's tributary area on face f (0 for a face the vertex
    is not on), so the stiffnesses of a face sum to its stiffness per area times its area.
    """
    (xs, xlo, xhi, tx), (ys, ylo, yhi, ty), (zs, zlo, zhi, tz) = box_nodes(
        x_front, x_rear, y_half, z_top, z_bottom, n_target, x_nodes)
    nx, ny, nz = len(xs), len(ys), len(zs)
    verts, stiff = [], []
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                faces = np.zeros(N_FACES)
                if i == nx - 1:
                    faces[FACE_FRONT] = areal[FACE_FRONT] * ty[j] * tz[k]
                if i == 0:
                    faces[FACE_REAR] = areal[FACE_REAR] * ty[j] * tz[k]
                if j == ny - 1:
                    faces[FACE_RIGHT] = areal[FACE_RIGHT] * tx[i] * tz[k]
                if j == 0:
                    faces[FACE_LEFT] = areal[FACE_LEFT] * tx[i] * tz[k]
                if k == nz - 1:
                    faces[FACE_BOTTOM] = areal[FACE_BOTTOM] * tx[i] * ty[j]
                if k == 0:
                    faces[FACE_ROOF] = areal[FACE_ROOF] * tx[i] * ty[j]
                if i in (0, nx - 1) or j in (0, ny - 1) or k in (0, nz - 1):
                    verts.append((xs[i], ys[j], zs[k],
                                  xlo[i], xhi[i], ylo[j], yhi[j], zlo[k], zhi[k]))
                    stiff.append(faces)
    return np.array(verts, dtype=np.float64), np.array(stiff, dtype=np.float64)


# --- the exterior from a file, the box, packing ----------------------------------------

@functools.lru_cache(maxsize=32)
def _read_exterior(path, stamp):
    lines = [("" if raw.split("#", 1)[0].split()[:1] == ["usemtl"] else raw)
             for raw in Path(path).read_text(errors="replace").splitlines()]
    tri = read_obj(path, lines, {})[0]
    verts, corner = np.unique(tri.reshape(-1, 3), axis=0, return_inverse=True)
    corner = corner.reshape(-1, 3)
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = 0.5 * np.linalg.norm(cross, axis=1)
    extent = float(np.max(np.ptp(verts, axis=0))) if len(verts) else 0.0
    tiny = np.flatnonzero(area <= 1e-12 * max(extent, 1e-3) ** 2)
    if tiny.size:
        raise MeshError(path, None, f"triangle {int(tiny[0]) + 1} of the file has no area")
    if not np.all(np.ptp(verts, axis=0) > 0.0):
        raise MeshError(path, None, "the mesh is flat: an exterior has length, width and height")
    return verts, corner, cross / (2.0 * area[:, None]), area


def read_exterior(path):
    """The exterior mesh of a unit from the OBJ file ``path`` (vehicle-fixed, from the CG, SAE
    axes, m; ``usemtl`` lines ignored): (vertices (n, 3), each triangle's vertex indices
    (m, 3), each triangle's unit normal (m, 3) and area (m,)). Raises
    engine.setup.meshes.MeshError naming the file (and line) for a missing file, a malformed
    line, a triangle without area and a flat mesh."""
    p = regular_file(path)
    st = p.stat()
    return _read_exterior(str(p), (st.st_mtime_ns, st.st_size))


def vertex_cells(verts, corner):
    """Each vertex's tributary cell of a read mesh (as :func:`box_mesh`'s CV[:, CV_CELL:]: lo x,
    hi x, lo y, hi y, lo z, hi z from the vertex): the bounding box of the midpoints of its
    edges. On a box whose faces are a grid of quads (fanned into triangles, the diagonals'
    midpoints lie within it) that is the box mesh's cell: to the midpoints with its
    neighbours, half cells at the edges."""
    edges = np.concatenate([corner[:, [0, 1]], corner[:, [1, 2]], corner[:, [2, 0]]])
    edges = np.concatenate([edges, edges[:, ::-1]])
    half = 0.5 * (verts[edges[:, 1]] - verts[edges[:, 0]])
    lo, hi = np.zeros((len(verts), 3)), np.zeros((len(verts), 3))
    np.minimum.at(lo, edges[:, 0], half)
    np.maximum.at(hi, edges[:, 0], half)
    cells = np.empty((len(verts), 6))
    cells[:, 0::2], cells[:, 1::2] = lo, hi
    return cells


def outward_faces(verts, corner, normal):
    """Each triangle's outward unit normal (away from the vertices' centroid) and the face of
    the box (``layout.FACE_*``) it is nearest: its largest component and that one's sign (+x
    the front, -z the roof)."""
    centre = verts.mean(axis=0)
    mid = verts[corner].mean(axis=1)
    sign = np.where(np.einsum("ij,ij->i", normal, mid - centre) < 0.0, -1.0, 1.0)
    n = normal * sign[:, None]
    axis = np.argmax(np.abs(n), axis=1)
    positive = n[np.arange(len(n)), axis] > 0.0
    face = np.array([[FACE_REAR, FACE_FRONT], [FACE_LEFT, FACE_RIGHT],
                     [FACE_ROOF, FACE_BOTTOM]])[axis, positive.astype(int)]
    return n, face


def exterior_stiffness(verts, corner, normal, area, areal):
    """CK[v, f] of a read mesh (as :func:`box_mesh`'s): a third of each triangle's area goes to
    each of its vertices, on the face of the box its outward normal is nearest (its largest
    component and that one's sign: +x the front, -z the roof), times that face's stiffness per
    unit area ``areal``. Outward: away from the vertices' centroid."""
    face = outward_faces(verts, corner, normal)[1]
    CK = np.zeros((len(verts), N_FACES))
    for k in range(3):
        np.add.at(CK, (corner[:, k], face), areal[face] * area / 3.0)
    return CK


def unit_box(unit, delta=(0.0, 0.0, 0.0)):
    """(x_front, x_rear, y_half, z_top, z_bottom, y_centre) of the unit's mesh box,
    vehicle-fixed from its CG (with payloads: ``delta`` of Eq. 42 from the unit's own CG).

    With ``collision.mesh_file``: the bounding box of that mesh. Else the box spans dimensions.length back from dimensions.front_x (default: the front axle plus
    half of the length beyond the wheelbase, equal overhangs), dimensions.width, and from
    collision.ground_clearance (default half the smallest unloaded tire radius) up to
    collision.height (default dimensions.height, else twice the CG height) above ground.
    """
    unit = typed_unit(unit)
    dims, col, sm = unit.dimensions, unit.collision, unit.sprung_mass
    dx, dy, dz = delta
    if col.mesh_file:
        verts = read_exterior(col.mesh_file)[0]
        lo, hi = verts.min(axis=0), verts.max(axis=0)
        return (hi[0] - dx, lo[0] - dx, 0.5 * (hi[1] - lo[1]), lo[2] - dz, hi[2] - dz,
                0.5 * (hi[1] + lo[1]) - dy)
    width, cgh = dims.width, sm.cg_height
    front, rear = body_front(unit), body_rear(unit)
    height = col.height or dims.height or 2.0 * cgh
    clearance = col.ground_clearance
    if clearance is None:
        clearance = 0.5 * min(t.unloaded_radius for t in unit.tires.values())
    return (front - dx, rear - dx, 0.5 * width, cgh - height - dz, cgh - clearance - dz, -dy)


def pack_collisions(units, deltas, total_masses, terrain_tri):
    """(P_COLL, CV, CK, terrain top) for the event's units (``deltas``: each unit's CG shift
    of Eq. 42, ``total_masses``: each unit's sprung plus unsprung mass)."""
    P_COLL = np.zeros((len(units), N_COLL_P))
    verts, stiff = [np.zeros((0, N_CV))], [np.zeros((0, N_FACES))]
    n = 0
    for ui, unit in enumerate(units):
        col = unit.collision
        if not col.enabled:
            continue
        xf, xr, yh, zt, zb, yc = unit_box(unit, deltas[ui])
        b = col.crush_stiffness
        h = zb - zt
        areal = np.zeros(N_FACES)
        areal[FACE_FRONT], areal[FACE_REAR] = b.front / h, b.rear / h
        areal[[FACE_RIGHT, FACE_LEFT, FACE_BOTTOM, FACE_ROOF]] = b.side / h
        cab = col.cab_length
        if col.mesh_file:
            mesh_v, corner, normal, area = read_exterior(col.mesh_file)
            cv = np.zeros((len(mesh_v), N_CV))
            cv[:, :3] = mesh_v - np.asarray(deltas[ui], dtype=np.float64)
            cv[:, CV_CELL:] = vertex_cells(mesh_v, corner)
            ck = exterior_stiffness(mesh_v, corner, normal, area, areal)
        else:
            x_nodes = () if cab is None else (xf - cab,)
            cv, ck = box_mesh(xf, xr, yh, zt, zb, areal, col.mesh_vertices, x_nodes)
            cv[:, 1] += yc
            P_COLL[ui, CO_GRID:CO_GRID + 3] = [
                len(nodes[0]) for nodes in box_nodes(xf, xr, yh, zt, zb, col.mesh_vertices, x_nodes)]
        e = col.restitution
        k_front = b.front * 2.0 * yh / (e * e)            # the front face's unloading stiffness
        omega = math.sqrt(k_front / total_masses[ui])
        P = P_COLL[ui]
        P[CO_V0], P[CO_NV] = n, len(cv)
        P[CO_E], P[CO_MU] = e, col.friction
        P[CO_TAU] = 2.0 * col.damping_ratio / omega
        P[CO_VREG] = FRICTION_SPEED
        P[CO_XMIN], P[CO_XMAX] = cv[:, 0].min(), cv[:, 0].max()
        P[CO_YMIN], P[CO_YMAX] = cv[:, 1].min(), cv[:, 1].max()
        P[CO_ZMIN], P[CO_ZMAX] = cv[:, 2].min(), cv[:, 2].max()
        P[CO_K0:CO_K0 + N_FACES] = areal
        P[CO_D0:CO_D0 + N_FACES] = no_damage_approaches(col)
        verts.append(cv)
        stiff.append(ck)
        n += len(cv)
    return (P_COLL, np.ascontiguousarray(np.concatenate(verts)),
            np.ascontiguousarray(np.concatenate(stiff)), terrain_top(terrain_tri))


def terrain_top(terrain_tri) -> float:
    """The earth Z of a mesh terrain's highest point, its road triangles' (``TR_TRI``) smallest
    Z (0 without a mesh): ``P_ENV[E_TERRAIN_TOP]``, the collisions' broad phase against the
    terrain and the bound of the tread envelope's walk (``engine.envelope.disc_span``)."""
    return float(terrain_tri[:, 2::3].min()) if terrain_tri.shape[0] else 0.0


def projected_edges(tri):
    """(m, 27): for each triangle (``tri`` (m, 3, 3)), axis i and edge e (corner e to e + 1) the
    line (a, b, c) of its projection on the axes i + 1, i + 2 with a q1 + b q2 + c the distance
    of the point (q1, q2) inside that edge (layout.XT_E0): the inner side by the projection's
    orientation; all 0 for an edge that projects to a point."""
    out = np.zeros((len(tri), 3, 3, 3))
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        pj, pk = tri[:, :, j], tri[:, :, k]
        turn = (pj[:, 1] - pj[:, 0]) * (pk[:, 2] - pk[:, 0]) - (pk[:, 1] - pk[:, 0]) * (pj[:, 2] - pj[:, 0])
        sg = np.where(turn > 0.0, 1.0, -1.0)
        for e in range(3):
            ej, ek = pj[:, (e + 1) % 3] - pj[:, e], pk[:, (e + 1) % 3] - pk[:, e]
            length = np.hypot(ej, ek)
            scale = np.divide(sg, length, out=np.zeros_like(length), where=length > 0.0)
            out[:, i, e] = np.stack([-ek * scale, ej * scale,
                                     (ek * pj[:, e] - ej * pk[:, e]) * scale], axis=1)
    return out.reshape(len(tri), 27)


#: the cells of an exterior's grids over its triangles' mean extent (engine.setup.meshes.xy_grid):
#: half, so that a cell holds about half the triangles of cells of their size (a vertex of another
#: unit tries those of one cell)
GRID_SCALE = 0.5


def pack_exterior_meshes(units, deltas, objects=()):
    """XM (layout.XG_*, XT_*): the triangles of the units whose exterior is an OBJ file, which
    other units' vertices meet (engine.collision.mesh_approach), vehicle-fixed from the unit's CG
    (shifted with its payloads' like its vertices), then those of the environment's ``objects``
    (earth-fixed), each with its outward normal, its plane's offset and the face of the box
    whose stiffness it carries; and per unit, then per object, and axis the grid of the
    triangles seen along that axis (zeros for a unit met as its box). One flat array: the
    kernels take it as one argument (each array of the model is passed whole to every kernel)."""
    meshes = [(ui, unit.collision.mesh_file, deltas[ui]) for ui, unit in enumerate(units)
              if unit.collision.enabled and unit.collision.mesh_file]
    meshes += [(len(units) + k, obj.mesh_file, (0.0, 0.0, 0.0)) for k, obj in enumerate(objects)]
    rows, grids, starts, cells = [], np.zeros((3 * (len(units) + len(objects)), N_XG)), [], []
    n_tri, n_cell, n_start = 0, 0, 0
    for ui, mesh_file, shift in meshes:
        verts, corner, normal, _ = read_exterior(mesh_file)
        n, face = outward_faces(verts, corner, normal)
        tri = (verts - np.asarray(shift, dtype=np.float64))[corner]       # (m, 3, 3)
        xt = np.zeros((len(tri), N_XT))
        xt[:, XT_C0:XT_C0 + 9] = tri.reshape(-1, 9)
        xt[:, XT_NX:XT_NZ + 1] = n
        xt[:, XT_D] = np.einsum("ij,ij->i", n, tri[:, 0])
        xt[:, XT_FACE] = face
        xt[:, XT_E0:XT_INV0] = projected_edges(tri)
        along = np.abs(n) > PARALLEL
        xt[:, XT_INV0:XT_INV0 + 3][along] = 1.0 / n[along]
        xt[:, XT_V0:XT_V0 + 3] = corner if ui < len(units) else -1.0
        rows.append(xt)
        for axis in range(3):
            j, k = (axis + 1) % 3, (axis + 2) % 3
            # the triangles a ray along the axis can cross, by their projections grown by
            # RAY_EDGE (the lookup tries the cell of a ray's point only)
            crossed = np.flatnonzero(np.abs(n[:, axis]) > PARALLEL)
            row = grids[3 * ui + axis]
            if not crossed.size:        # an open mesh: nothing to cross along this axis
                row[XG_O1:XG_START + 1] = (0.0, 0.0, 1.0, 1.0, 1.0, 1.0, n_start)
                starts.append(np.full(2, n_cell))
                n_start += 2
                continue
            lo = tri[crossed][:, :, [j, k]].min(axis=1) - RAY_EDGE
            hi = tri[crossed][:, :, [j, k]].max(axis=1) + RAY_EDGE
            # xy_grid reads triangles' XY bounding boxes: each projection's box as a triangle
            boxes = np.zeros((len(crossed), 9))
            boxes[:, [0, 1]], boxes[:, [3, 4]] = lo, hi
            boxes[:, [6, 7]] = lo
            grid, start, cell = xy_grid(boxes, GRID_SCALE)
            row[XG_O1:XG_S2 + 1] = grid
            row[XG_START] = n_start
            starts.append(start + n_cell)
            cells.append(crossed[cell] + n_tri)
            n_cell += len(cell)
            n_start += len(start)
        n_tri += len(tri)
    if not rows:
        return grids.ravel()
    # offsets in XM: the grids, the triangles' rows, the cells' starts, the cells' lists
    t0 = grids.size
    s0 = t0 + n_tri * N_XT
    c0 = s0 + n_start
    mesh_rows = grids[:, XG_N1] > 0.0
    grids[mesh_rows, XG_START] += s0
    return np.ascontiguousarray(np.concatenate(
        [grids.ravel(), np.concatenate(rows).ravel(), np.concatenate(starts) + c0,
         t0 + N_XT * np.concatenate(cells)]).astype(np.float64))


def no_damage_approaches(col):
    """Each face's CRASH3 no-damage approach A/B (m, in the order of FACE_*) of a unit's
    ``collision`` record: the approach a face takes before it crushes, from its A
    (``crush_a``, 0 when not given) and B (``crush_stiffness``; the sides' for the roof and the
    underbody): F/w = A + B C reads F/w = B (C + A/B)."""
    b, a = col.crush_stiffness, col.crush_a
    out = np.zeros(N_FACES)
    if a is not None:
        out[FACE_FRONT], out[FACE_REAR] = a.front / b.front, a.rear / b.rear
        out[[FACE_RIGHT, FACE_LEFT, FACE_BOTTOM, FACE_ROOF]] = a.side / b.side
    return out


def unit_vector(v):
    """v / |v| without overflow or underflow: scaled by its largest component first."""
    v = np.asarray(v, dtype=np.float64)
    v = v / np.max(np.abs(v))
    return v / np.linalg.norm(v)


def pack_barriers(barriers, walls=np.zeros((0, 9)), risers=None, objects=(), n_units=0):
    """P_BAR of the event's barriers, their normals made unit, then of the mesh terrain's
    standing polygons ``walls`` (n, 9: earth X, Y, Z of each triangle's corners), each one's
    normal by the right-hand rule of its corners' order (counter-clockwise seen from outside
    the solid, the OBJ convention); ``risers`` (n,) bool marks the faces of steps and kerbs
    (BAR_RISER, :func:`engine.setup.meshes.risers`), the others are BAR_WALL; then of the
    environment's ``objects`` (BAR_OBJECT: its bounding box, its grids' slot in XM after the
    ``n_units`` units', its stiffness per unit area, 0 when rigid)."""
    P_BAR = np.zeros((len(barriers) + len(walls) + len(objects), N_BAR_P))
    for b, bar in enumerate(barriers):
        P_BAR[b, BA_X:BA_Z + 1] = bar.point
        P_BAR[b, BA_NX:BA_NZ + 1] = unit_vector(bar.normal)
    for w, tri in enumerate(np.asarray(walls, dtype=np.float64).reshape(-1, 3, 3)):
        n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
        row = P_BAR[len(barriers) + w]
        row[BA_X:BA_Z + 1] = tri[0]
        row[BA_NX:BA_NZ + 1] = unit_vector(n)
        row[BA_KIND] = BAR_RISER if risers is not None and risers[w] else BAR_WALL
        row[BA_T0:BA_T0 + 9] = tri.ravel()
    for k, obj in enumerate(objects):
        verts = read_exterior(obj.mesh_file)[0]
        row = P_BAR[len(barriers) + len(walls) + k]
        row[BA_KIND] = BAR_OBJECT
        row[OB_BOX:OB_BOX + 6:2], row[OB_BOX + 1:OB_BOX + 6:2] = verts.min(axis=0), verts.max(axis=0)
        row[OB_SLOT] = n_units + k
        row[OB_K] = obj.stiffness or 0.0
    return P_BAR


#: the x of "the whole box" in P_PAIR (no cut)
WHOLE_BOX = -1.0e9


def pack_pairs(units, deltas):
    """P_PAIR: the pairs of units whose meshes meet. Every unit of a vehicle with every unit
    of every other vehicle (the whole boxes). Within a combination, a unit with a
    ``collision.cab_length`` and each unit it tows: the towed unit's whole box against the
    towing unit's box from its front back to cab_length (its cab), so that a jackknife stops
    at the cab. Raises EventError if the towed unit's box reaches into the cab at rest (the
    coupling points aligned)."""
    index = {u.name: i for i, u in enumerate(units)}
    pairs = []
    for bi, unit in enumerate(units):
        front = unit.connections.front
        if not front or not unit.collision.enabled:
            continue
        ai = index[front.tow]
        tow = units[ai]
        cab = tow.collision.cab_length
        if cab is None or not tow.collision.enabled:
            continue
        xf_a = unit_box(tow, deltas[ai])[0]
        x_cab = xf_a - cab
        # the towed unit's front, in the tower's frame, with the coupling points together
        rear = tow.connections.rear
        nose = (rear.point[0] - deltas[ai][0]) + (unit_box(unit, deltas[bi])[0]
                                                  - (front.point[0] - deltas[bi][0]))
        nose -= front.drawbar_length or 0.0       # a full trailer's, its drawbar further back
        if not nose < x_cab:
            raise EventError([f"units[{ai}].collision.cab_length: a cab that ends ahead of the "
                              f"front of the unit it tows ({unit.name}) at rest: at most "
                              f"{xf_a - nose:.3g} m (got {cab:g} m)"])
        pairs.append((ai, bi, x_cab, WHOLE_BOX))
    # vehicle with vehicle: every unit of one against every unit of another
    vehicle = []
    for unit in units:
        front = unit.connections.front
        vehicle.append(vehicle[index[front.tow]] if front else len(vehicle))
    for ai in range(len(units)):
        for bi in range(ai + 1, len(units)):
            if vehicle[ai] != vehicle[bi] and units[ai].collision.enabled \
                    and units[bi].collision.enabled:
                pairs.append((ai, bi, WHOLE_BOX, WHOLE_BOX))
    P_PAIR = np.zeros((len(pairs), N_PAIR_P))
    for k, row in enumerate(pairs):
        P_PAIR[k] = row
    return P_PAIR


# --- the exterior as the crush left it -----------------------------------------------------

def exterior_triangles(model, u, mesh_file=None):
    """The triangles (m, 3) of unit u's exterior, as numbers of its vertices (from its first in
    CV, ``layout.CO_V0``), each turned so that its corners run anticlockwise seen from outside:
    an OBJ exterior's (``mesh_file``, as :func:`read_exterior` reads it), or a box mesh's, each
    face's grid of quads (``layout.CO_GRID``, engine.collision.grid_vertex) cut along a
    diagonal."""
    from ..collision import grid_vertex
    PC = model.P_COLL[u]
    if PC[CO_GRID] <= 0.0:
        if not mesh_file:
            raise ValueError(f"unit {u}: an OBJ exterior; give its file")
        verts, corner, normal, _ = read_exterior(mesh_file)
        outward = outward_faces(verts, corner, normal)[0]
        turned = np.einsum("ij,ij->i", normal, outward) < 0.0
        corner = corner.copy()
        corner[turned] = corner[turned][:, ::-1]
        return corner
    n = [int(c) for c in PC[CO_GRID:CO_GRID + 3]]
    tris = []
    for ax in range(3):
        a, b = (ax + 1) % 3, (ax + 2) % 3
        for m, sign in ((0, -1), (n[ax] - 1, 1)):
            for i in range(n[a] - 1):
                for j in range(n[b] - 1):
                    quad = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        node = [0, 0, 0]
                        node[ax], node[a], node[b] = m, i + di, j + dj
                        quad.append(grid_vertex(*n, *node))
                    if sign < 0:
                        quad = quad[::-1]
                    tris += [(quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])]
    return np.array(tris, dtype=np.int64)


#: the outward unit normal of each face of the box, in the order of layout.FACE_*
FACE_NORMALS = np.array([(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0),
                         (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)])


def deformed_exterior(model, y, u, mesh_file=None):
    """Unit u's exterior as the crush has left it in state ``y``: (vertices (n, 3), vehicle-fixed
    from the CG, SAE axes, m; triangles (m, 3), :func:`exterior_triangles`). Each vertex is
    moved in by its permanent set (1 - e^2) delta_max (its largest approach, the collision
    block of y) along the normal of each face of the box it lies on (CK > 0: a vertex of a
    face straight in, one of an edge or a corner in from each of its faces): where the
    kernels put the surface other units meet there (engine.collision.surface_memory;
    docs/equations.md, "Crush that moves the mesh")."""
    PC = model.P_COLL[u]
    v0, nv = int(PC[CO_V0]), int(PC[CO_NV])
    vbase = int(model.P_ENV[E_COLL_BASE]) + N_COLL_UNIT_STATE * model.P_UNIT.shape[0]
    set_ = set_fraction(PC[CO_E]) * np.asarray(y[vbase + v0:vbase + v0 + nv], dtype=np.float64)
    on = model.CK[v0:v0 + nv] > 0.0
    verts = model.CV[v0:v0 + nv, :3] - set_[:, None] * (on.astype(float) @ FACE_NORMALS)
    return verts, exterior_triangles(model, u, mesh_file)


def obj_text(objects, comment=""):
    """An OBJ file's text of named meshes: ``objects`` a list of (name, vertices (n, 3),
    triangles (m, 3) numbering them from 0), each an ``o`` group of its own."""
    lines = [f"# {line}" for line in comment.splitlines()]
    base = 1
    for name, verts, tris in objects:
        lines.append(f"o {name}")
        lines += [f"v {x:.12g} {y:.12g} {z:.12g}" for x, y, z in verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in tris]
        base += len(verts)
    return "\n".join(lines) + "\n"
