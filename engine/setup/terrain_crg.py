"""OpenCRG terrain: an ASAM OpenCRG road surface (HVE's environment, GetSurfaceInfo(), Eq. 80),
read with crgutils and triangulated into the mesh terrain's :class:`~.meshes.TerrainMesh`,
so that the mesh's compiled, grid-indexed lookup answers the tire's questions unchanged.

An OpenCRG file holds the road's elevations on a regular grid over a reference line: u along
the line, v across it (left positive), in the file's own frame (x forward, y left, z up). Here
the file is read once, at load (ASCII LRFI and LDFI, binary KRBI and KDBI, through
``crgutils.read``'s steps), and:

* every grid node (u_i, v_j) is evaluated as crgutils evaluates it: its elevation with
  ``eval_uv_to_z`` (the grid, the reference line's elevation and slope, banking, smoothing, as
  OpenCRG defines them) and its x, y with ``eval_uv_to_xy`` (through the reference line), all
  nodes at once where a sample of them equals crgutils' own evaluation bit for bit;
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
#: TerrainMesh, 670 MB at the peak of reading them and about 3 s to read (0.4 s crgutils'
#: reading, 0.04 s the evaluation of the nodes at once, the rest the mesh's packing), measured
#: on the development machine; a 1 km long, 5 m wide road at 0.1 m x 0.1 m is exactly that. A
#: larger file is refused (cut it to the stretch the event drives on, or resample it more
#: coarsely).
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
    z, base, side = _nodes_at_once(grid, point)
    if z is None:
        z = np.array([[point.eval_uv_to_z(float(ui), float(vj)) for ui in u] for vj in v])
        base = np.array([point.eval_uv_to_xy(float(ui), 0.0) for ui in u])
        side = np.array([point.eval_uv_to_xy(float(ui), 1.0) for ui in u]) - base
    x = base[None, :, 0] + v[:, None] * side[None, :, 0]
    y = base[None, :, 1] + v[:, None] * side[None, :, 1]
    nan = nan | ~np.isfinite(z)
    z[nan] = np.nan
    return z, x, y, nan, base


#: nodes of each end and of the middle of the road, and nodes at random, whose evaluation at once
#: must equal crgutils' own, bit for bit (:func:`_nodes_at_once`)
CHECKED_ENDS, CHECKED_RANDOM = 3, 64


def _nodes_at_once(grid, point):
    """(z (n_v, n_u), base (n_u, 2), side (n_u, 2)) of :func:`crg_nodes`, evaluated for all the
    nodes at once: crgutils 0.1.1's ``_eval_uv_to_z`` and ``_eval_uv_to_xy`` at the nodes (where
    u and v lie on the grid), their arithmetic in their order, over arrays. The nodes of each end
    and of the middle of the road and :data:`CHECKED_RANDOM` nodes at random must equal
    crgutils' own evaluation bit for bit; else, and for what this does not cover (smoothing at
    the road's ends, a closed reference line, nodes outside the core), (None, None, None): the
    caller evaluates node by node. 4.3 s of a 1 000 000-triangle road's 6 s read was the
    node-by-node evaluation."""
    ds, opts = grid, point._options
    u, v = np.asarray(ds.u, dtype=np.float64), np.asarray(ds.v, dtype=np.float64)
    n_u, n_v = len(u), len(v)
    if (opts.smooth_u_begin is not None or opts.smooth_u_end is not None or ds.u_is_closed
            or n_u < 2 or n_v < 2 or not (np.all(u >= ds.u_min) and np.all(u <= ds.u_max)
                                          and np.all(v >= ds.v_min) and np.all(v <= ds.v_max))):
        return None, None, None
    with np.errstate(all="ignore"):
        z = _z_at_nodes(ds, u, v)
        base = _xy_at_nodes(ds, u, 0.0)
        side = _xy_at_nodes(ds, u, 1.0) - base
    ends = list(range(min(CHECKED_ENDS, n_u))) + list(range(max(0, n_u - CHECKED_ENDS), n_u))
    rng = np.random.default_rng(0)
    cols = sorted(set(ends + [n_u // 2] + rng.integers(0, n_u, CHECKED_RANDOM).tolist()))
    for i in cols:
        b = point.eval_uv_to_xy(float(u[i]), 0.0)
        d = np.array(point.eval_uv_to_xy(float(u[i]), 1.0)) - b
        if not (np.array_equal(base[i], b) and np.array_equal(side[i], d)):
            return None, None, None
        for j in range(n_v):
            zj = point.eval_uv_to_z(float(u[i]), float(v[j]))
            if not (zj == z[j, i] or (math.isnan(zj) and math.isnan(z[j, i]))):
                return None, None, None
    return z, base, side


def _grid_index(frac, n):
    """crgutils' cell index and fraction along one grid axis from a grid coordinate ``frac``
    (in the core): clamped at 0, the last node in the last cell at fraction 1."""
    frac = np.where(frac < 0.0, 0.0, frac)
    idx = frac.astype(np.int64)
    last = idx >= n - 1
    return np.where(last, n - 2, idx), np.where(last, 1.0, frac - idx)


def _z_at_nodes(ds, u, v):
    """crgutils' ``_eval_uv_to_z`` at every node (u_i, v_j), in the core: the bilinear grid
    value, the grid's section means, the reference line's elevation and banking: (n_v, n_u)."""
    n_u, n_v = len(u), len(v)
    iu, fu = _grid_index((u - ds.u_min) / ds.u_inc, n_u)
    if ds.v_equally_spaced:
        iv, fv = _grid_index((v - ds.v_min) / ds.v_inc, n_v)
    else:
        grid_v = np.asarray(ds.v)
        iv = np.clip(np.searchsorted(grid_v, v, side="right") - 1, 0, n_v - 2)
        dv = grid_v[iv + 1] - grid_v[iv]
        fv = np.where(dv > 0, (v - grid_v[iv]) / np.where(dv > 0, dv, 1.0), 0.0)
        fv = np.maximum(0.0, np.minimum(1.0, fv))
    Z = np.asarray(ds.z, dtype=np.float64)
    IV, IU = iv[:, None], iu[None, :]
    FV, FU = fv[:, None], fu[None, :]
    z00 = Z[IV, IU]
    z10 = Z[IV, IU + 1] - z00
    z01 = Z[IV + 1, IU]
    z11 = Z[IV + 1, IU + 1] - (z10 + z01)
    z01 = z01 - z00
    z = (z11 * FV + z10) * FU + z01 * FV + z00
    z = z + np.asarray(ds.z_mean, dtype=np.float64)[iv][:, None]
    if ds.ref_z is not None:
        ref = np.asarray(ds.ref_z)
        if len(ref) > 1:
            k = np.minimum(iu, len(ref) - 2)
            z = z + (ref[k].astype(np.float64) + fu * (ref[k + 1] - ref[k]).astype(np.float64))
        else:
            z = z + float(ref[0])
    if ds.has_bank and ds.bank is not None:
        bank = np.asarray(ds.bank)
        v_bank = np.maximum(ds.v_min, np.minimum(ds.v_max, v))
        if len(bank) > 1:
            k = np.minimum(iu, len(bank) - 2)
            b = bank[k].astype(np.float64) + fu * (bank[k + 1] - bank[k]).astype(np.float64)
        else:
            b = np.full(n_u, float(bank[0]))
        z = z + b[None, :] * v_bank[:, None]
    return z


def _xy_at_nodes(ds, u, v):
    """crgutils' ``_eval_uv_to_xy`` at the nodes' u and one v: (n_u, 2)."""
    if ds.x is None or len(ds.x) == 0:
        return np.stack([u, np.full_like(u, v)], axis=1)
    x, y = np.asarray(ds.x, dtype=np.float64), np.asarray(ds.y, dtype=np.float64)
    n = ds.n_u
    frac = (u - ds.u_min) / ds.u_inc
    index = frac.astype(np.int64)
    out = np.empty((len(u), 2))
    end = index >= n - 1
    du = (frac[end] - (n - 1)) * ds.u_inc
    out[end, 0] = x[-1] + du * ds.phi_last_cos - v * ds.phi_last_sin
    out[end, 1] = y[-1] + du * ds.phi_last_sin + v * ds.phi_last_cos
    k, f = index[~end], frac[~end] - index[~end]

    def unit_normal(dx, dy):
        nx, ny = -dy, dx
        length = np.sqrt(nx ** 2 + ny ** 2)
        big = length > 1e-10
        return np.where(big, nx / np.where(big, length, 1.0), nx), \
            np.where(big, ny / np.where(big, length, 1.0), ny)

    def mitred(nx, ny, mx, my):
        dot = nx * mx + ny * my
        big = np.abs(dot) > 1e-10
        return np.where(big, nx / np.where(big, dot, 1.0), nx), \
            np.where(big, ny / np.where(big, dot, 1.0), ny)

    p1x, p1y, p2x, p2y = x[k], y[k], x[k + 1], y[k + 1]
    n12x, n12y = unit_normal(p2x - p1x, p2y - p1y)
    prev = np.maximum(k - 1, 0)
    n1x, n1y = unit_normal(p2x - x[prev], p2y - y[prev])
    n1x, n1y = np.where(k > 0, n1x, n12x), np.where(k > 0, n1y, n12y)
    n1x, n1y = mitred(n1x, n1y, n12x, n12y)
    nxt = np.minimum(k + 2, n - 1)
    n2x, n2y = unit_normal(x[nxt] - p1x, y[nxt] - p1y)
    n2x, n2y = np.where(k < n - 2, n2x, n12x), np.where(k < n - 2, n2y, n12y)
    n2x, n2y = mitred(n2x, n2y, n12x, n12y)
    ax, ay = p1x + v * n1x, p1y + v * n1y
    bx, by = p2x + v * n2x, p2y + v * n2y
    out[~end, 0] = ax + f * (bx - ax)
    out[~end, 1] = ay + f * (by - ay)
    return out


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
