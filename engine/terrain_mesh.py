"""Mesh terrain: HVE's environment polygons (GetSurfaceInfo(), Eq. 80), answering the tire's
three questions (elevation, surface normal, friction multiplier, and the water depth for
hydroplaning) in compiled code.

The road triangles are packed into flat arrays (the ``TR_*`` fields of
:class:`engine.setup.meshes.TerrainMesh`) with a uniform XY grid over them, so
:func:`mesh_surface` looks at the few triangles of one grid cell: its cost does not grow
with the size of the mesh. Reading and packing a file is set-up: :mod:`engine.setup.meshes`.
"""
import math

from .jit import njit

#: The lookup's barycentric tolerance: a point this close (a fraction of the triangle) to an
#: edge is on it, so a point on an edge shared by two triangles is never lost to rounding.
_EDGE_TOL = 1.0e-9


# --------------------------------------------------------------------------------------------
# compiled kernels


@njit
def _plane_z(TR_NRM, i, X, Y):
    """The Z of triangle i's plane at (X, Y): n . P = d solved for Z."""
    return (TR_NRM[i, 3] - TR_NRM[i, 0] * X - TR_NRM[i, 1] * Y) / TR_NRM[i, 2]


@njit
def mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X, Y):
    """The index of the road triangle under earth (X, Y), or -1 off the road: found in the grid
    cell of (X, Y) by a barycentric test in XY, edges inclusive."""
    size_x = TR_GRID[2]
    size_y = TR_GRID[5]
    nx = int(TR_GRID[3])
    ny = int(TR_GRID[4])
    if size_x <= 0.0 or size_y <= 0.0 or nx < 1 or ny < 1:
        return -1
    fx = (X - TR_GRID[0]) / size_x
    fy = (Y - TR_GRID[1]) / size_y
    if not (fx >= 0.0 and fx <= nx and fy >= 0.0 and fy <= ny):
        return -1
    c = min(int(fx), nx - 1) + nx * min(int(fy), ny - 1)
    for k in range(TR_START[c], TR_START[c + 1]):
        i = TR_CELL[k]
        x1 = TR_TRI[i, 0]
        y1 = TR_TRI[i, 1]
        ax = TR_TRI[i, 3] - x1
        ay = TR_TRI[i, 4] - y1
        bx = TR_TRI[i, 6] - x1
        by = TR_TRI[i, 7] - y1
        det = ax * by - ay * bx
        px = X - x1
        py = Y - y1
        u = (px * by - py * bx) / det
        v = (ax * py - ay * px) / det
        if u >= -_EDGE_TOL and v >= -_EDGE_TOL and u + v <= 1.0 + _EDGE_TOL:
            return i
    return -1


@njit
def mesh_surface(TR_TRI, TR_NRM, TR_MAT, TR_MATP, TR_GRID, TR_START, TR_CELL, X, Y):
    """The road under earth (X, Y) (Eq. 80, GetSurfaceInfo()): (found, Z, nx, ny, nz,
    friction multiplier, water depth, texture depth). The triangle is found in the grid cell of
    (X, Y) by a barycentric test in XY (edges inclusive, :func:`mesh_triangle`); Z is its
    plane's at (X, Y) and (nx, ny, nz) its unit normal pointing down. found is False off the
    road (all else zero then)."""
    i = mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X, Y)
    if i < 0:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    m = int(TR_MAT[i])
    return (True, _plane_z(TR_NRM, i, X, Y), TR_NRM[i, 0], TR_NRM[i, 1], TR_NRM[i, 2],
            TR_MATP[m, 0], TR_MATP[m, 1], TR_MATP[m, 2])


@njit
def plane_z(TR_NRM, i, X, Y):
    """The Z of road triangle i's plane at earth (X, Y)."""
    return _plane_z(TR_NRM, i, X, Y)


@njit
def line_interval(TR_TRI, i, X0, Y0, hx, hy):
    """The interval (s_in, s_out) of s over which the line (X0 + s hx, Y0 + s hy) lies inside
    road triangle i, seen from above (XY; the line's direction (hx, hy) not zero): each edge's
    half-plane, on the side of the triangle, bounds s from below or above."""
    x1, y1 = TR_TRI[i, 0], TR_TRI[i, 1]
    orient = (TR_TRI[i, 3] - x1) * (TR_TRI[i, 7] - y1) - (TR_TRI[i, 4] - y1) * (TR_TRI[i, 6] - x1)
    sign = 1.0 if orient > 0.0 else -1.0
    s_in, s_out = -math.inf, math.inf
    for k in range(3):
        xa, ya = TR_TRI[i, 3 * k], TR_TRI[i, 3 * k + 1]
        kb = (k + 1) % 3
        xb, yb = TR_TRI[i, 3 * kb], TR_TRI[i, 3 * kb + 1]
        # the edge's normal towards the triangle's inside
        mx = -sign * (yb - ya)
        my = sign * (xb - xa)
        num = (X0 - xa) * mx + (Y0 - ya) * my
        den = hx * mx + hy * my
        if den > 0.0:
            s_in = max(s_in, -num / den)
        elif den < 0.0:
            s_out = min(s_out, -num / den)
    return s_in, s_out


@njit
def _cell_of(TR_GRID, x, y):
    ix = min(max(int(math.floor((x - TR_GRID[0]) / TR_GRID[2])), 0), int(TR_GRID[3]) - 1)
    iy = min(max(int(math.floor((y - TR_GRID[1]) / TR_GRID[5])), 0), int(TR_GRID[4]) - 1)
    return ix, iy


@njit
def _overlap_dz(TR_TRI, TR_NRM, a, b, work):
    """The largest height difference of triangles a and b over the interior of the overlap of
    their XY projections (0 when they do not overlap over an area). The overlap is triangle a
    clipped by b's three edges (Sutherland-Hodgman); the planes' difference is linear, so its
    largest value over the convex overlap is at one of the overlap's corners."""
    poly = work[0]
    out = work[1]
    for k in range(3):
        poly[k, 0] = TR_TRI[a, 3 * k]
        poly[k, 1] = TR_TRI[a, 3 * k + 1]
    count = 3
    bx = TR_TRI[b, 0::3]
    by = TR_TRI[b, 1::3]
    orient = (bx[1] - bx[0]) * (by[2] - by[0]) - (by[1] - by[0]) * (bx[2] - bx[0])
    sign = 1.0 if orient > 0.0 else -1.0
    for e in range(3):
        ex0 = bx[e]
        ey0 = by[e]
        ex = bx[(e + 1) % 3] - ex0
        ey = by[(e + 1) % 3] - ey0
        n_out = 0
        for k in range(count):
            px, py = poly[k, 0], poly[k, 1]
            qx, qy = poly[(k + 1) % count, 0], poly[(k + 1) % count, 1]
            sp = sign * (ex * (py - ey0) - ey * (px - ex0))
            sq = sign * (ex * (qy - ey0) - ey * (qx - ex0))
            if sp >= 0.0:
                out[n_out, 0] = px
                out[n_out, 1] = py
                n_out += 1
            if (sp >= 0.0) != (sq >= 0.0):
                t = sp / (sp - sq)
                out[n_out, 0] = px + t * (qx - px)
                out[n_out, 1] = py + t * (qy - py)
                n_out += 1
        count = n_out
        if count < 3:
            return 0.0
        for k in range(count):
            poly[k, 0] = out[k, 0]
            poly[k, 1] = out[k, 1]
    area = 0.0
    for k in range(count):
        area += poly[k, 0] * poly[(k + 1) % count, 1] - poly[(k + 1) % count, 0] * poly[k, 1]
    area_b = abs(orient)
    if abs(area) <= 1.0e-9 * area_b:    # touching along an edge or at a corner only
        return 0.0
    dz = 0.0
    for k in range(count):
        d = abs(_plane_z(TR_NRM, a, poly[k, 0], poly[k, 1])
                - _plane_z(TR_NRM, b, poly[k, 0], poly[k, 1]))
        dz = max(dz, d)
    return dz


@njit
def overlap_conflict(TR_TRI, TR_NRM, TR_GRID, TR_START, TR_CELL, tolerance, work):
    """The first pair (a, b, dz) of road triangles whose XY projections overlap and whose
    heights there differ by more than ``tolerance``; (-1, -1, 0) if none. Each pair sharing
    cells is compared once, in the first cell they share (the low corner of the overlap of
    their cell ranges), so the work grows with the mesh like the number of triangles per
    cell squared times the cells: O(n) for a mesh of even size. ``work`` is (2, 8, 2)
    scratch for the clipped polygon."""
    nx = int(TR_GRID[3])
    for c in range(len(TR_START) - 1):
        cx = c % nx
        cy = c // nx
        for p in range(TR_START[c], TR_START[c + 1]):
            a = TR_CELL[p]
            ax, ay = _cell_of(TR_GRID, min(TR_TRI[a, 0], TR_TRI[a, 3], TR_TRI[a, 6]),
                              min(TR_TRI[a, 1], TR_TRI[a, 4], TR_TRI[a, 7]))
            for q in range(p + 1, TR_START[c + 1]):
                b = TR_CELL[q]
                bx, by = _cell_of(TR_GRID, min(TR_TRI[b, 0], TR_TRI[b, 3], TR_TRI[b, 6]),
                                  min(TR_TRI[b, 1], TR_TRI[b, 4], TR_TRI[b, 7]))
                if max(ax, bx) != cx or max(ay, by) != cy:
                    continue
                dz = _overlap_dz(TR_TRI, TR_NRM, a, b, work)
                if dz > tolerance:
                    return min(a, b), max(a, b), dz
    return -1, -1, 0.0


# --------------------------------------------------------------------------------------------
# writing test and example meshes
