"""Roads for tests, benchmarks and examples: writers of a Wavefront OBJ grid surface
(:func:`grid_mesh_obj`) and of an ASCII OpenCRG road (:func:`grid_crg`) from an elevation
function, read back by engine.setup.meshes.load_mesh and engine.setup.terrain_crg.load_crg.

From the repository root, with ``tests`` on ``sys.path``: ``from support.roads import ...``.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np


def grid_mesh_obj(path, fn_z, x_range, y_range, n, fn_material=None):
    """Write an OBJ of the surface Z = fn_z(X, Y) (earth, Z down, m) over x_range x y_range
    sampled on an n x n grid of quads (n may be (nx, ny)), each quad two triangles: 2 n^2
    triangles. ``fn_material(X, Y)``, if given, names each quad's material (None: no usemtl)
    from its centre. Returns the path."""
    nx, ny = (n, n) if np.isscalar(n) else n
    xs = np.linspace(x_range[0], x_range[1], nx + 1)
    ys = np.linspace(y_range[0], y_range[1], ny + 1)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    gz = np.broadcast_to(np.asarray(fn_z(gx, gy), dtype=np.float64), gx.shape)
    out = [f"# {2 * nx * ny} triangles over X {x_range}, Y {y_range} (Z down)"]
    out += [f"v {x!r} {y!r} {z!r}" for x, y, z in
            zip(gx.ravel().tolist(), gy.ravel().tolist(), gz.ravel().tolist())]
    current = None
    for i in range(nx):
        for j in range(ny):
            if fn_material is not None:
                name = fn_material(0.5 * (xs[i] + xs[i + 1]), 0.5 * (ys[j] + ys[j + 1]))
                if name != current and name is not None:
                    out.append(f"usemtl {name}")
                elif name != current:
                    out.append("usemtl")    # back to no material: a name that is never used
                current = name
            v00 = i * (ny + 1) + j + 1
            v10, v01 = v00 + ny + 1, v00 + 1
            v11 = v10 + 1
            out.append(f"f {v00} {v10} {v11}")
            out.append(f"f {v00} {v11} {v01}")
    Path(path).write_text("\n".join(out) + "\n")
    return Path(path)


def grid_crg(path, fn_z, u_range, v_range, n, phi=(0.0, 0.0), start=(0.0, 0.0)):
    """Write an ASCII (LRFI) OpenCRG file of the road elevation z = fn_z(u, v) (m, the file's
    frame: z up, v left) over u_range x v_range on an (n_u, n_v) grid of cells (n may be
    (n_u, n_v)), its reference line starting at ``start`` (x, y) with the heading going
    linearly from phi[0] to phi[1] (rad, counter-clockwise; equal: a straight line). A NaN
    elevation is written as the format's ``*NaN*``. Returns the path."""
    n_u, n_v = (n, n) if np.isscalar(n) else n
    u = np.linspace(u_range[0], u_range[1], n_u + 1)
    v = np.linspace(v_range[0], v_range[1], n_v + 1)
    gu, gv = np.meshgrid(u, v, indexing="ij")
    z = np.broadcast_to(np.asarray(fn_z(gu, gv), dtype=np.float64), gu.shape)
    head = ["$CT", f"{2 * n_u * n_v} triangles' worth of road: u {tuple(u_range)}, "
                   f"v {tuple(v_range)} (z up)", "$",
            "$ROAD_CRG",
            f"REFERENCE_LINE_START_U = {float(u[0])!r}", f"REFERENCE_LINE_END_U = {float(u[-1])!r}",
            f"REFERENCE_LINE_INCREMENT = {float(u[1] - u[0])!r}",
            f"REFERENCE_LINE_START_X = {float(start[0])!r}", f"REFERENCE_LINE_START_Y = {float(start[1])!r}",
            f"REFERENCE_LINE_START_PHI = {float(phi[0])!r}", f"REFERENCE_LINE_END_PHI = {float(phi[1])!r}",
            f"LONG_SECTION_V_RIGHT = {float(v[0])!r}", f"LONG_SECTION_V_LEFT = {float(v[-1])!r}",
            f"LONG_SECTION_V_INCREMENT = {float(v[1] - v[0])!r}", "$",
            "$KD_DEFINITION", "#:LRFI", "U:reference line u,m"]
    head += [f"D:long section at v = {vj:.4f},m" for vj in v]
    head += ["$", "$" * 80]

    def field(value):       # ten characters a value, eight values an 80-character record
        text = "*NaN*" if math.isnan(value) else f"{value:10.5f}"
        if len(text) > 10:
            raise ValueError(f"elevation {value!r} does not fit the LRFI format's ten characters")
        return text.rjust(10)
    rows = []
    for i in range(n_u + 1):
        record = "".join(field(x) for x in z[i].tolist())
        rows += [record[k:k + 80] for k in range(0, len(record), 80)]
    Path(path).write_text("\n".join(head + rows) + "\n")
    return Path(path)


def polygon_obj(path, polygons):
    """Write an OBJ of the ``polygons`` (each a list of 3 or more earth X, Y, Z corners, Z down,
    counter-clockwise seen from outside the solid: the OBJ convention, its normal out of the
    solid by the right-hand rule), a corner given twice written once (so that a step's face
    shares its corners with the road above and below it). Returns the path."""
    index, vertices, faces = {}, [], []
    for polygon in polygons:
        face = []
        for corner in polygon:
            key = tuple(float(c) for c in corner)
            if key not in index:
                index[key] = len(vertices) + 1
                vertices.append(key)
            face.append(index[key])
        faces.append(face)
    Path(path).write_text("".join(f"v {x!r} {y!r} {z!r}\n" for x, y, z in vertices)
                          + "".join("f " + " ".join(map(str, f)) + "\n" for f in faces))
    return Path(path)
