"""Reading mesh files: the Wavefront OBJ polygon databases of mesh terrain and of vehicle
exteriors, checked line by line, and the packing of road triangles with their lookup grid
(set-up, Python; the lookup itself is :mod:`engine.terrain_mesh`).

The file is read with trimesh. The checks that name a line (trimesh reports none) come from a
scan of the file's lines: a bad mesh is refused with :class:`MeshError` ("<file>, line <n>:
<what is wrong>"). Vertex coordinates are earth-fixed X, Y, Z in metres, Z down (SAE J670);
``z_up=True`` reads a file exported Z up.
"""
import io
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..terrain_mesh import overlap_conflict

#: Polygons whose normal is more than this angle from vertical are walls (kerb faces,
#: barriers, the riser of a step), not road: the height lookup ignores them and they are kept
#: in :attr:`TerrainMesh.walls` as obstacles. 45 degrees is a 100 % grade: nearly three times
#: the steepest roads and ramps (about 35 %, 19 degrees), and about the steepest slope a tire
#: can hold a vehicle on with dry-road friction (mu = tan 45 deg = 1); the faces of kerbs and
#: barriers are near vertical. A 45 degree line leaves a wide margin on both sides.
WALL_ANGLE = math.radians(45.0)

#: Overlapping road polygons must agree in height to this (m), wherever they overlap.
OVERLAP_TOLERANCE = 1.0e-3

#: At most this many grid cells per road triangle (see :func:`xy_grid`).
_CELLS_PER_TRIANGLE = 4

#: The name of material row 0: the polygons without a ``usemtl``.
NO_MATERIAL = ""

#: The largest coordinate a mesh file's vertex may have, m: the earth positions the engine's
#: arithmetic keeps precise (engine.setup.event.MAX_ELEVATION, the range of elevations, barrier
#: points and start positions).
MAX_COORDINATE = 1.0e5


class MeshError(ValueError):
    """A mesh file that cannot be used: ``str`` is "<path>, line <n>: <message>" (or
    "<path>: <message>" when no one line is at fault)."""

    def __init__(self, path, line, message):
        self.path = str(path)
        self.line = line
        self.message = message
        where = self.path if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {message}")


class TerrainMesh(NamedTuple):
    """The packed road of a mesh terrain (float64, earth X, Y, Z in m, Z down)."""
    #: (n, 9) the road triangles' vertices X1, Y1, Z1, X2, Y2, Z2, X3, Y3, Z3
    TR_TRI: np.ndarray
    #: (n, 4) unit normal pointing down (nz > 0) and d, with n . P = d on the triangle's plane
    TR_NRM: np.ndarray
    #: (n,) each triangle's material row in TR_MATP (an integer held in a float)
    TR_MAT: np.ndarray
    #: (m, 3) per material (friction multiplier, water depth m, texture depth m); row 0: no
    #: usemtl, (1, 0, 0)
    TR_MATP: np.ndarray
    #: (6,) the grid: x0, y0, the cells' size along X, nx, ny, their size along Y
    TR_GRID: np.ndarray
    #: (nx*ny + 1,) int64: triangles of cell c = ix + nx*iy are TR_CELL[TR_START[c]:TR_START[c+1]]
    TR_START: np.ndarray
    #: (k,) int64: the CSR lists of triangle indices
    TR_CELL: np.ndarray
    #: (n_w, 9) the wall triangles (steeper than WALL_ANGLE), not in the lookup
    walls: np.ndarray
    #: the material names of the TR_MATP rows (row 0 is NO_MATERIAL)
    material_names: tuple
    #: (n_w,) bool: the walls that are risers, every corner a corner of a road triangle (the
    #: face of a step or a kerb, between two levels of road), see :func:`risers`
    risers: np.ndarray = np.zeros(0, dtype=bool)


def empty_mesh() -> TerrainMesh:
    """The zero-size arrays a terrain without a mesh packs (the grid all zeros)."""
    return TerrainMesh(np.zeros((0, 9)), np.zeros((0, 4)), np.zeros(0), np.zeros((0, 3)),
                       np.zeros(6), np.zeros(1, np.int64), np.zeros(0, np.int64),
                       np.zeros((0, 9)), ())


# --------------------------------------------------------------------------------------------
# reading


def materials_table(materials):
    """Rows of TR_MATP and their names from the event's materials {NAME: {...}}."""
    names, rows = [NO_MATERIAL], [(1.0, 0.0, 0.0)]
    for name, entry in (materials or {}).items():
        row = []
        for key, default in (("friction_multiplier", 1.0), ("water_depth", 0.0), ("texture_depth", 0.0)):
            value = entry.get(key, default)
            value = default if value is None else value
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not math.isfinite(value) or value < 0.0):
                raise ValueError(f"materials.{name}.{key}: must be a finite number >= 0, "
                                 f"got {value!r}")
            row.append(float(value))
        names.append(name)
        rows.append(tuple(row))
    return tuple(names), np.array(rows, dtype=np.float64)


def _scan(path, lines, material_rows):
    """The line-by-line checks trimesh does not report a line for. Returns the text for
    trimesh (comments and ``usemtl`` lines removed) and, per face in the file's order, its
    line number, material row and vertex count."""
    clean, vertex_lines, face_lines, face_mat, face_size, face_top = [], [], [], [], [], []
    negative_at = None
    material = 0
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        words = text.split()
        key = words[0] if words else ""
        if key == "v":
            try:
                xyz = [float(w) for w in words[1:4]]
            except ValueError:
                xyz = []
            if len(xyz) != 3:
                raise MeshError(path, number, f"a vertex needs three numbers X Y Z, got {text!r}")
            if not all(math.isfinite(c) for c in xyz):
                raise MeshError(path, number, f"non-finite vertex coordinate in {text!r}")
            if max(map(abs, xyz)) > MAX_COORDINATE:
                raise MeshError(path, number, f"a vertex's coordinates within +-{MAX_COORDINATE:g} m "
                                              f"(got {text!r})")
            vertex_lines.append(number)
        elif key == "usemtl":
            name = text[len("usemtl"):].strip()
            if name not in material_rows:
                known = ", ".join(repr(m) for m in material_rows if m != NO_MATERIAL) or "none"
                raise MeshError(path, number, f"unknown material {name!r} (the terrain's "
                                              f"materials: {known})")
            material = material_rows[name]
            clean.append("")
            continue
        elif key == "f":
            if len(words) < 4:
                raise MeshError(path, number, f"a face needs at least 3 vertices, got {text!r}")
            for word in words[1:]:
                try:
                    index = int(word.split("/")[0])
                except ValueError:
                    raise MeshError(path, number, f"vertex reference {word!r} is not an integer")
                if index == 0:
                    raise MeshError(path, number, f"face references vertex {word}: there is no "
                                                  f"vertex 0, OBJ numbers them from 1")
                if index < 0:
                    negative_at = negative_at or number
                    index += len(vertex_lines) + 1
                if index < 1:
                    raise MeshError(path, number, f"face references vertex {word}, before the "
                                                  f"first vertex")
                face_top.append(index)
            face_lines.append(number)
            face_mat.append(material)
            face_size.append(len(words) - 1)
        clean.append(text)
    # references may point at vertices defined later: check against all of them
    count = len(vertex_lines)
    top = np.maximum.reduceat(np.array(face_top), np.cumsum([0] + face_size[:-1])) \
        if face_lines else np.zeros(0)
    if np.any(top > count):
        bad = int(np.argmax(top > count))
        raise MeshError(path, face_lines[bad], f"face references vertex {int(top[bad])}, "
                                               f"the file has {count} vertices")
    if negative_at is not None and vertex_lines and vertex_lines[-1] > negative_at:
        raise MeshError(path, negative_at, "relative (negative) vertex references are accepted "
                                           "only when all vertices come before the faces")
    if not face_lines:
        raise MeshError(path, None, "the file has no faces")
    return "\n".join(clean) + "\n", face_lines, np.array(face_mat), np.array(face_size)


def _read_triangles(path, text, face_size):
    """The triangles (n, 3, 3) of the file's faces, in the file's order (polygons fanned into
    their k - 2 triangles), as trimesh reads them."""
    from trimesh.exchange.obj import load_obj
    loaded = load_obj(io.StringIO(text), group_material=False, skip_materials=True,
                      maintain_order=True)
    parts = list(loaded.get("geometry", {}).values())
    if len(parts) != 1:
        raise MeshError(path, None, f"read as {len(parts)} meshes, expected one")
    vertices = np.asarray(parts[0]["vertices"], dtype=np.float64)
    faces = np.asarray(parts[0]["faces"], dtype=np.int64)
    if faces.shape[1] > 3:    # all polygons of one size k: fan each into k - 2 triangles
        k = faces.shape[1]
        faces = np.stack([np.stack([faces[:, 0], faces[:, i + 1], faces[:, i + 2]], axis=1)
                          for i in range(k - 2)], axis=1).reshape(-1, 3)
    if len(faces) != int(np.sum(face_size - 2)):
        raise MeshError(path, None, f"read {len(faces)} triangles from "
                                    f"{len(face_size)} faces, expected {np.sum(face_size - 2)}")
    return vertices[faces]


def read_obj(path, lines, material_rows):
    """The triangles (n, 3, 3) of the OBJ text ``lines`` (of the file ``path``, named in the
    errors), in the file's order (polygons fanned into their k - 2 triangles), and per face its
    line number, material row (``material_rows``: each ``usemtl`` name's row) and vertex
    count. Raises :class:`MeshError` naming the file and line for a malformed line, an unknown
    material, a reference to a missing vertex and a file without faces."""
    text, face_lines, face_mat, face_size = _scan(path, lines, material_rows)
    return _read_triangles(path, text, face_size), face_lines, face_mat, face_size


def regular_file(path) -> Path:
    """``path`` as a Path when it names a regular file (or a link to one); else
    :class:`MeshError` saying what it is: missing, a folder, or another kind of file (a
    device such as /dev/zero, a FIFO, a socket), none of which is read."""
    path = Path(path)
    if path.is_file():
        return path
    if path.is_dir():
        raise MeshError(path, None, "a folder, not a file")
    if path.exists():
        raise MeshError(path, None, "not a regular file (a device, FIFO or socket)")
    raise MeshError(path, None, "no such file")


def load_mesh(path, materials: dict, z_up: bool = False) -> TerrainMesh:
    """Read the OBJ file ``path`` into a :class:`TerrainMesh`.

    ``materials`` maps each ``usemtl`` name to ``{"friction_multiplier": f, "water_depth": d}``
    (d in m); a polygon without ``usemtl`` has multiplier 1 and is dry. With ``z_up`` the file
    is right-handed with Z up: it is turned half a turn about X into the earth frame (Y and Z
    change sign), which keeps the road's shape (flipping Z alone would mirror it). Raises
    :class:`MeshError` naming the file and line for: a missing file, an unknown material,
    non-finite vertices, faces that reference missing vertices, degenerate (zero-area)
    triangles, and overlapping road polygons whose heights disagree by more than
    OVERLAP_TOLERANCE.
    """
    path = regular_file(path)
    names, matp = materials_table(materials)
    rows = {name: row for row, name in enumerate(names)}
    lines = path.read_text(errors="replace").splitlines()
    tri, face_lines, face_mat, face_size = read_obj(path, lines, rows)
    tri_line = np.repeat(np.array(face_lines), face_size - 2)
    tri_mat = np.repeat(face_mat, face_size - 2).astype(np.float64)
    if z_up:
        tri[:, :, 1:] *= -1.0

    def polygon(i):
        return int(tri_line[i]), f"the polygon of line {int(tri_line[i])}"
    return pack_triangles(path, tri, tri_mat, matp, names, polygon)


def pack_triangles(path, tri, tri_mat, matp, names, locate) -> TerrainMesh:
    """The :class:`TerrainMesh` of the triangles ``tri`` (n, 3, 3: earth X, Y, Z, Z down) read
    from the file ``path``, whatever its format: their normals, the walls taken out, the grid,
    and the check of overlapping triangles. ``tri_mat`` (n,) is each triangle's row of the
    material table ``matp`` (named ``names``). ``locate(i)`` places triangle i in the file for
    a message: (line or None, a phrase naming it, "the polygon of line 12").

    Raises :class:`MeshError` for a degenerate (zero-area) triangle, a terrain with no road
    triangle, and overlapping road triangles whose heights disagree by more than
    OVERLAP_TOLERANCE."""
    # normals (Eq. 80's surface normal), pointing down whatever the winding; a triangle is
    # degenerate when its height is below a billionth of its longest edge (zero but rounding)
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    double_area = np.linalg.norm(cross, axis=1)
    longest = np.max(np.linalg.norm(tri - np.roll(tri, 1, axis=1), axis=2), axis=1)
    flat = double_area <= 1.0e-9 * longest ** 2
    if np.any(flat):
        line, name = locate(int(np.argmax(flat)))
        raise MeshError(path, line, "degenerate triangle (zero area)"
                        + ("" if line is not None else f" in {name}"))
    normal = cross / double_area[:, None]
    normal *= np.where(normal[:, 2] < 0.0, -1.0, 1.0)[:, None]
    road = normal[:, 2] >= math.cos(WALL_ANGLE)
    if not np.any(road):
        raise MeshError(path, None, f"no road polygons (all are steeper than "
                                    f"{math.degrees(WALL_ANGLE):g} degrees)")
    walls = tri[~road].reshape(-1, 9)
    index = np.flatnonzero(road)        # the road triangles' indices among all
    tri, normal, tri_mat = tri[road], normal[road], tri_mat[road]
    nrm = np.column_stack([normal, np.einsum("ij,ij->i", normal, tri[:, 0])])
    tri = np.ascontiguousarray(tri.reshape(-1, 9))
    grid, start, cell = xy_grid(tri)

    i, j, dz = overlap_conflict(tri, nrm, grid, start, cell, OVERLAP_TOLERANCE,
                                np.zeros((2, 8, 2)))
    if i >= 0:
        (_, first), (line, second) = sorted((locate(int(index[k])) for k in (i, j)),
                                            key=lambda place: place[0] or 0)
        this = "this polygon" if line is not None else second
        raise MeshError(path, line, f"{this} overlaps {first} and their heights differ by "
                                    f"{dz:.4g} m (more than {OVERLAP_TOLERANCE * 1e3:g} mm) "
                                    f"where they overlap")
    return TerrainMesh(tri, np.ascontiguousarray(nrm), tri_mat, matp, grid, start, cell,
                       np.ascontiguousarray(walls), names, risers(walls, tri))


def risers(walls, road):
    """Which of the wall triangles ``walls`` (n_w, 9) are risers: each of their corners is,
    coordinate for coordinate, a corner of one of the ``road`` triangles (n, 9). A step's or a
    kerb's face joins the road below it to the road above it; a standing polygon on its own (a
    wall, a barrier's face) has corners no road triangle has."""
    if len(walls) == 0:
        return np.zeros(0, dtype=bool)
    def rows(a):
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(-1, 3)) + 0.0  # -0 is 0
        return a.view(np.dtype((np.void, 3 * a.itemsize))).ravel()
    return np.isin(rows(walls), rows(road)).reshape(-1, 3).all(axis=1)


# --------------------------------------------------------------------------------------------
# the grid


def xy_grid(tri, scale=1.0):
    """A uniform XY grid over the road triangles, with each cell's list of the triangles whose
    XY bounding box overlaps it (CSR: TR_START, TR_CELL; cell index ix + nx*iy).

    The cells' size along X is the triangles' mean X extent, along Y their mean Y extent, so
    a cell holds a few triangles on average and a triangle touches a few cells, also where the
    triangles are long and thin (an OpenCRG road's: 2 cm along the road, metres across it; a
    square cell of their larger extent would hold hundreds, each tried at every look-up). If
    the road's bounding box would need more than _CELLS_PER_TRIANGLE cells per triangle (a
    sparse mesh, say a long diagonal strip) the cells are enlarged to that count, which bounds
    the grid's memory by the mesh's size. ``scale``: the cells' size over those means (smaller
    cells hold fewer triangles, each triangle touching more of them)."""
    xs, ys = tri[:, 0::3], tri[:, 1::3]
    lo_x, hi_x, lo_y, hi_y = xs.min(axis=1), xs.max(axis=1), ys.min(axis=1), ys.max(axis=1)
    x0, y0 = lo_x.min(), lo_y.min()
    width, height = hi_x.max() - x0, hi_y.max() - y0
    extent = float(np.mean(np.maximum(hi_x - lo_x, hi_y - lo_y)))
    # each at least a thousandth of the larger (a triangle's XY projection has an area)
    size_x = scale * max(float(np.mean(hi_x - lo_x)), 1e-3 * extent)
    size_y = scale * max(float(np.mean(hi_y - lo_y)), 1e-3 * extent)
    limit = _CELLS_PER_TRIANGLE * len(tri)
    if (width / size_x + 1.0) * (height / size_y + 1.0) > limit:
        grow = max(1.0, math.sqrt(width * height / (size_x * size_y * limit)),
                   width / (size_x * limit), height / (size_y * limit))
        size_x, size_y = size_x * grow, size_y * grow
    nx = max(1, math.ceil(width / size_x))
    ny = max(1, math.ceil(height / size_y))

    def cells(lo, hi, origin, n, size):    # computed as the lookup computes a point's cell
        first = np.clip(np.floor((lo - origin) / size), 0, n - 1).astype(np.int64)
        last = np.clip(np.floor((hi - origin) / size), 0, n - 1).astype(np.int64)
        return first, last - first + 1

    ix0, wx = cells(lo_x, hi_x, x0, nx, size_x)
    iy0, wy = cells(lo_y, hi_y, y0, ny, size_y)
    counts = wx * wy
    owner = np.repeat(np.arange(len(tri), dtype=np.int64), counts)
    local = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    index = (ix0[owner] + local % wx[owner]) + nx * (iy0[owner] + local // wx[owner])
    order = np.argsort(index, kind="stable")
    start = np.zeros(nx * ny + 1, dtype=np.int64)
    start[1:] = np.cumsum(np.bincount(index, minlength=nx * ny))
    grid = np.array([x0, y0, size_x, nx, ny, size_y], dtype=np.float64)
    return grid, start, np.ascontiguousarray(owner[order])
