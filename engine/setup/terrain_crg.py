"""OpenCRG terrain: an ASAM OpenCRG road surface (HVE's environment, GetSurfaceInfo(), Eq. 80),
read with crgutils and triangulated into the mesh terrain's :class:`~.meshes.TerrainMesh`,
so that the mesh's compiled, grid-indexed lookup answers the tire's questions unchanged.

An OpenCRG file holds the road's elevations on a regular grid over a reference line: u along
the line, v across it (left positive), in the file's own frame (x forward, y left, z up). Here
the file is read once, at load (ASCII LRFI and LDFI, binary KRBI and KDBI, through
``crgutils.read``'s steps), and:

* every grid node (u_i, v_j) is evaluated by crgutils itself: its elevation with
  ``eval_uv_to_z`` (the grid, the reference line's elevation and slope, banking, smoothing, as
  OpenCRG defines them) and its x, y with ``eval_uv_to_xy`` (through the reference line);
* each node is placed in the earth frame: the reference line's start (u at its start, v = 0,
  the file's elevation 0) at the event's ``origin`` [X, Y, Z], the reference line's start
  direction at the earth yaw ``heading``, the file's y-left, z-up frame turned half a turn
  about its x axis into SAE's y right, z down (as a mesh's ``z_up``);
* each grid cell is split into two triangles along its diagonal from (u_i, v_j) to
  (u_i+1, v_j+1), all of one material (the terrain's friction multiplier, water depth and
  texture depth).

The triangulated surface passes through every node and equals OpenCRG's bilinear surface on a
planar cell; inside a twisted cell it differs by at most a quarter of the cell's twist
|z00 - z10 - z01 + z11|, at the cell's centre (docs/equations.md, "OpenCRG terrain").

A node whose elevation is NaN (the format's "no data") is off the road: the cells around it
have no triangles, and a tire there gets the same error as off a mesh. A file whose
``$ROAD_CRG_MODS`` names a ``grid_nan_mode`` has its NaNs filled as it asks, by crgutils.
"""
import math

import numpy as np

from .meshes import MeshError, TerrainMesh, materials_table, pack_triangles, regular_file

#: At most this many triangles (two per grid cell): 1 000 000 triangles take 148 MB as a
#: TerrainMesh, 670 MB at the peak of reading them and 6 s to read (0.8 s crgutils' reading,
#: 4.3 s its evaluation of the nodes, 3.4 s the mesh's packing), measured on the development
#: machine; a 1 km long, 5 m wide road at 0.1 m x 0.1 m is exactly that. A larger file is
#: refused (cut it to the stretch the event drives on, or resample it more coarsely).
MAX_TRIANGLES = 1_000_000

#: The name of the material row every CRG triangle has.
CRG_MATERIAL = "crg"


def read_crg(path):
    """The crgutils dataset of the OpenCRG file ``path``, its header's modifiers applied (as
    ``crgutils.read`` does), NaN heights kept as NaN unless the file names a grid_nan_mode.
    Raises :class:`MeshError` naming the file for a missing file or one crgutils refuses."""
    import crgutils   # the OpenCRG reader is needed only here
    path = regular_file(path)
    try:
        dataset = crgutils.load(path)
        crgutils.check(dataset, raise_on_error=True)
        modifiers = dict(dataset.pending_modifiers)
        modifiers.setdefault("grid_nan_mode", crgutils.GridNaNMode.KEEP)
        crgutils.apply_modifiers(dataset, **modifiers)
        dataset.pending_modifiers.clear()
    except Exception as exc:  # noqa: BLE001 - the reader's errors are of many types
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise MeshError(path, None, f"not a readable OpenCRG file ({text})") from None
    return dataset


def crg_nodes(dataset):
    """(z, x, y, nan, line) of the dataset's grid nodes, each (n_v, n_u) in the file's frame
    (x forward, y left, z up, m), evaluated by crgutils; ``nan`` marks the nodes without a
    height (z there is NaN); ``line`` (n_u, 2) is the reference line's x, y at the nodes' u.

    A node's elevation is crgutils' ``eval_uv_to_z`` at the node, on a copy of the dataset
    whose grid holds the elevations themselves, in float64: crgutils keeps each long section
    (v) less its mean, as float32, and adds back the mean of the lower section of the cell,
    so that its own evaluation is off by the difference of two sections' means between them
    and at the last one (crgutils 0.1.1; with the means zero the copy evaluates to OpenCRG's
    bilinear surface). The copy's NaNs are zeros: a neighbour's bilinear weight is zero at a
    node, but a NaN there would make its value NaN (NaN x 0). x, y at fixed u are affine in
    v (the reference line's point plus v along its mitred normal), so ``eval_uv_to_xy`` is
    taken at v = 0 and v = 1 once per u."""
    heights = dataset.z.astype(np.float64) + dataset.z_mean[:, None]
    nan = np.isnan(heights)
    heights[nan] = 0.0
    grid = type(dataset)(**{**vars(dataset), "z": heights,
                            "z_mean": np.zeros_like(dataset.z_mean)})
    point = grid.create_contact_point()
    u, v = dataset.u, dataset.v
    z = np.array([[point.eval_uv_to_z(float(ui), float(vj)) for ui in u] for vj in v])
    base = np.array([point.eval_uv_to_xy(float(ui), 0.0) for ui in u])
    side = np.array([point.eval_uv_to_xy(float(ui), 1.0) for ui in u]) - base
    x = base[None, :, 0] + v[:, None] * side[None, :, 0]
    y = base[None, :, 1] + v[:, None] * side[None, :, 1]
    nan = nan | ~np.isfinite(z)
    z[nan] = np.nan
    return z, x, y, nan, base


def place(x, y, z, start, direction, origin, heading):
    """Earth X, Y, Z (Z down) of the CRG points (x, y, z) (x forward, y left, z up): the point
    ``start`` (x0, y0) at ``origin`` [X0, Y0, Z0] with the file's elevation 0 at Z0, the
    file's direction ``direction`` (rad, counter-clockwise from its x axis) along the earth
    yaw ``heading`` (rad, from X towards Y), y-left/z-up turned half a turn about x."""
    c, s = math.cos(direction), math.sin(direction)
    along = c * (x - start[0]) + s * (y - start[1])      # along the start direction
    left = -s * (x - start[0]) + c * (y - start[1])      # to its left
    ch, sh = math.cos(heading), math.sin(heading)
    X = origin[0] + ch * along + sh * left               # right = -left after the half turn
    Y = origin[1] + sh * along - ch * left
    return X, Y, origin[2] - z


def load_crg(path, origin=(0.0, 0.0, 0.0), heading=0.0, friction_multiplier=1.0,
             water_depth=0.0, texture_depth=None) -> TerrainMesh:
    """Read the OpenCRG file ``path`` into a :class:`TerrainMesh` placed in the earth frame.

    ``origin`` [X, Y, Z] (m, Z down) is where the reference line's start (its first u, v = 0,
    the file's elevation 0) lies, ``heading`` (rad) the earth yaw of the reference line's start
    direction (its first segment). The whole road is one material: ``friction_multiplier``,
    ``water_depth`` (m) and ``texture_depth`` (m, or None: 0). Raises :class:`MeshError`
    naming the file for: a missing file, one crgutils cannot read or refuses, a grid of more
    than MAX_TRIANGLES triangles, a reference line that is not finite, a road without a
    height anywhere, and the mesh's own refusals (a degenerate triangle, the road folding
    over itself so that cells overlap with heights that disagree), which name the cell.
    """
    dataset = read_crg(path)
    n_u, n_v = len(dataset.u), len(dataset.v)
    count = 2 * (n_u - 1) * (n_v - 1)
    if n_v < 2:
        raise MeshError(path, None, "the grid has one long section (v): no cell to make a road of")
    if count > MAX_TRIANGLES:
        raise MeshError(path, None, f"its {n_u - 1} x {n_v - 1} grid cells make {count} triangles, "
                                    f"more than the {MAX_TRIANGLES} this terrain takes: cut the "
                                    "file to the stretch the event drives on, or resample it coarser")
    z, x, y, nan, line = crg_nodes(dataset)
    u, v = dataset.u, dataset.v
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if np.any(bad):
        j, i = np.argwhere(bad)[0]
        raise MeshError(path, None, f"the reference line is not finite at u = {u[i]:g} m "
                                    f"(v = {v[j]:g} m)")
    direction = math.atan2(line[1, 1] - line[0, 1], line[1, 0] - line[0, 0])
    X, Y, Z = place(x, y, z, line[0], direction, origin, heading)
    nodes = np.stack([X, Y, Z], axis=-1)                       # (n_v, n_u, 3)
    p00, p10 = nodes[:-1, :-1], nodes[:-1, 1:]                 # (v_j, u_i), (v_j, u_i+1)
    p01, p11 = nodes[1:, :-1], nodes[1:, 1:]
    tri = np.stack([np.stack([p00, p10, p11], axis=2),
                    np.stack([p00, p11, p01], axis=2)], axis=2)   # (n_v-1, n_u-1, 2, 3, 3)
    keep = ~(nan[:-1, :-1] | nan[:-1, 1:] | nan[1:, :-1] | nan[1:, 1:])
    if not np.any(keep):
        raise MeshError(path, None, "no cell has a height at all four corners (NaN heights)")
    cells = np.argwhere(keep)                                  # (j, i) of the kept cells
    tri = tri[keep].reshape(-1, 3, 3)
    names, matp = materials_table({CRG_MATERIAL: {
        "friction_multiplier": friction_multiplier, "water_depth": water_depth,
        "texture_depth": texture_depth}})

    def cell(k):
        j, i = cells[k // 2]
        return None, (f"the cell u = {u[i]:g}..{u[i + 1]:g} m, v = {v[j]:g}..{v[j + 1]:g} m "
                      f"(grid cell {i + 1} along u, {j + 1} across v)")
    return pack_triangles(path, tri, np.ones(len(tri)), matp, names, cell)


# --------------------------------------------------------------------------------------------
# writing test and example roads
