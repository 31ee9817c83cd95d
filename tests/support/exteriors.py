"""OBJ exteriors for the collision tests (``collision.mesh_file``): a box whose faces are a grid
of quads, and a box whose front top edge is cut by a slope (a hood); and the reader of the
exteriors the crush left (``python -m simon_fmu exterior``, a study's exteriors.obj)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.setup.collision import box_nodes


def grid_box_obj(path, xs, ys, zs):
    """An OBJ file of the box over the nodes xs, ys, zs (increasing; vehicle-fixed x, y, z from
    the CG): each face the grid of quads of its two axes' nodes, the vertices shared."""
    nodes = (np.asarray(xs, float), np.asarray(ys, float), np.asarray(zs, float))
    index, verts, faces = {}, [], []
    for ax in range(3):
        a, b = (k for k in range(3) if k != ax)
        for side in (nodes[ax][0], nodes[ax][-1]):
            for i in range(len(nodes[a]) - 1):
                for j in range(len(nodes[b]) - 1):
                    quad = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = [0.0, 0.0, 0.0]
                        p[ax], p[a], p[b] = side, nodes[a][i + di], nodes[b][j + dj]
                        key = tuple(np.round(p, 12))
                        if key not in index:
                            index[key] = len(verts) + 1
                            verts.append(key)
                        quad.append(index[key])
                    faces.append(quad)
    Path(path).write_text("".join("v %.12g %.12g %.12g\n" % v for v in verts)
                          + "".join("f %d %d %d %d\n" % tuple(q) for q in faces))
    return Path(path)


def box_obj(path, lo, hi, n=4):
    """An OBJ file of the box lo..hi (vehicle-fixed x, y, z from the CG), n x n quads a face."""
    return grid_box_obj(path, *(np.linspace(lo[k], hi[k], n + 1) for k in range(3)))


def default_box_obj(path, box, vertices=300):
    """An OBJ file of a unit's default box exterior (``box``: engine.setup.collision.unit_box's
    x_front, x_rear, y_half, z_top, z_bottom, y_centre), its vertices those of the box mesh of
    about ``vertices`` (engine.setup.collision.box_mesh)."""
    xf, xr, yh, zt, zb, yc = box
    (xs, *_), (ys, *_), (zs, *_) = box_nodes(xf, xr, yh, zt, zb, vertices)
    return grid_box_obj(path, xs, ys + yc, zs)


def hood_obj(path, box, hood_z, slope):
    """An OBJ file of a unit's box (as :func:`default_box_obj`'s) with its front top edge cut
    by a plane across the width: the front face rises from the underbody to ``hood_z``
    (vehicle-fixed z, down), from where a slope of ``slope`` rad from the horizontal rises back
    to the roof. Its eight-cornered prism has the vertices of its outline only."""
    xf, xr, yh, zt, zb, yc = box
    back = xf - (hood_z - zt) / math.tan(slope)
    outline = ((xr, zb), (xf, zb), (xf, hood_z), (back, zt), (xr, zt))     # x, z round it
    verts = [(x, yc + s * yh, z) for s in (-1.0, 1.0) for x, z in outline]
    n = len(outline)
    faces = [list(range(1, n + 1)), list(range(2 * n, n, -1))]
    faces += [[i + 1, (i + 1) % n + 1, (i + 1) % n + 1 + n, i + 1 + n] for i in range(n)]
    Path(path).write_text("".join("v %.12g %.12g %.12g\n" % v for v in verts)
                          + "".join("f " + " ".join(map(str, f)) + "\n" for f in faces))
    return Path(path)


def cylinder_obj(path, centre, radius, z_top, z_bottom, sides=64):
    """An OBJ file of a vertical prism of ``sides`` sides round the circle of ``radius`` about
    ``centre`` (X, Y), from ``z_top`` to ``z_bottom`` (z down): a round pole, its corners on the
    circle, one corner straight ahead of the centre towards -X (the side a car comes from)."""
    angles = math.pi + 2.0 * math.pi * np.arange(sides) / sides
    ring = [(centre[0] + radius * math.cos(a), centre[1] + radius * math.sin(a)) for a in angles]
    verts = [(x, y, z) for z in (z_top, z_bottom) for x, y in ring]
    faces = [list(range(sides, 0, -1)), list(range(sides + 1, 2 * sides + 1))]
    faces += [[i + 1, (i + 1) % sides + 1, (i + 1) % sides + 1 + sides, i + 1 + sides]
              for i in range(sides)]
    lines = [f"v {x:.12g} {y:.12g} {z:.12g}" for x, y, z in verts]
    lines += ["f " + " ".join(str(i) for i in face) for face in faces]
    Path(path).write_text("\n".join(lines) + "\n")
    return path


def read_objects(text: str) -> dict:
    """{name: (vertices (n, 3), triangles (m, 3) numbering them from 0)} of an OBJ text of
    ``o`` objects and triangles (simon_fmu.tools.exterior's, one object per unit)."""
    out, name, base, count = {}, None, 0, 0
    for line in text.splitlines():
        word, *rest = line.split() or [""]
        if word == "o":
            base, name = count, rest[0]
            out[name] = ([], [])
        elif word == "v":
            out[name][0].append([float(x) for x in rest])
            count += 1
        elif word == "f":
            out[name][1].append([int(x) - 1 - base for x in rest])
    return {k: (np.array(v), np.array(t)) for k, (v, t) in out.items()}
