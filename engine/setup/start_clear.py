"""The check that every unit's meshes start clear of the road, the barriers and the walls.

A vertex of a unit's exterior (``engine.collision``) that starts inside a surface meets it with
its full approach in the first evaluation: a mesh reaching below the road, a barrier plane
through the car or one drawn on the wrong side of it. Such a start is not a collision the
engine can simulate (nothing brought the vertex there), and its force would show only as a
stiff mode far from its cause. :func:`start_overlap_problems` names the field at fault and what
overlaps, before the step size is judged (``engine.setup.stability``).

Surfaces as the collision passes see them: the road (flat ground, the terrain mesh under each
vertex, or an external road's plane of the unit's first wheel's road inputs), every barrier
plane (its solid side behind its normal) and every standing polygon of a mesh terrain (behind
its plane, its foot in the triangle, the unit's CG in front). Every environment object (a
fixed mesh) is met from the side the unit's CG is on, as the collision passes meet it
(:func:`engine.collision.object_approach`). The wheels' meshes meet barriers, walls and
objects, not the road (their tires carry it), and are checked against those at their static
poses. A vertex counts when it is deeper than :data:`engine.collision.EDGE` (1 mm).
"""
from __future__ import annotations

import numpy as np

from .. import layout as L
from ..collision import EDGE, POINT, object_approach, object_face
from ..jit import compiled_entry
from .settle import _rotation
from ..terrain import surface


def _vertices(model, layout, y, u):
    """Earth positions of unit u's exterior vertices and its wheel meshes' (static poses), the
    unit's CG and its rotation (vehicle to earth); ``layout``: the state's
    (:class:`engine.layout.StateLayout`)."""
    o = layout.at("body", u)
    X, Y, Z = y[o + L.SX], y[o + L.SY], y[o + L.SZ]
    R = _rotation(y[o + L.SPHI], y[o + L.STHETA], y[o + L.SPSI])
    cg = np.array([X, Y, Z])
    v0, nv = int(model.P_COLL[u, L.CO_V0]), int(model.P_COLL[u, L.CO_NV])
    body = cg + model.CV[v0:v0 + nv, :3] @ R.T
    wheel = [np.zeros((0, 3))]
    PW, PWC = model.P_WHEEL, model.P_WCOLL
    for w in range(PW.shape[0]):
        if int(PW[w, L.W_UNIT]) != u or PWC[w, L.WC_NV] <= 0:
            continue
        a, n = int(PWC[w, L.WC_V0]), int(PWC[w, L.WC_NV])
        centre = PW[w, [L.W_X, L.W_Y0, L.W_Z0]]
        wheel.append(cg + (model.CV[a:a + n, :3] + centre) @ R.T)
    return body, np.concatenate(wheel), cg, R


def _road_depth(model, u_wheel, u, pts, R, cg):
    """Per point, how far it is into the road along the road's normal (m, > 0 inside; -inf
    where a mesh has no road): the road of the kernels (``engine.terrain.surface``) under each
    point, an external road's being the plane of the unit's first wheel's road inputs through
    the road under that wheel's centre, as ``engine.collision.environment_pairs`` meets it."""
    w = int(model.P_UNIT[u, L.U_WHEEL0])
    foot = cg + R @ np.array([model.P_WHEEL[w, L.W_X], model.P_WHEEL[w, L.W_Y0], 0.0])
    fx, fy = float(foot[0]), float(foot[1])
    depth = np.full(len(pts), -np.inf)
    if len(pts) == 0:
        return depth
    # the kernel's entry point for these arrays: a call through numba's dispatcher would work
    # out the type of every array of the model again for each of the hundreds of points
    road = compiled_entry(surface, (model, u_wheel, w, fx, fy, 0.0, 0.0))
    for i, (X, Y, Z) in enumerate(pts.tolist()):
        found, z, _, _, nz = road(model, u_wheel, w, fx, fy, X, Y)[:5]
        if found:
            depth[i] = (Z - z) * nz
    return depth


def _in_triangle(pts, tri, n):
    """Whether each point's foot on the triangle's plane lies in the triangle (n its unit
    normal)."""
    inside = np.ones(len(pts), dtype=bool)
    for k in range(3):
        a, b = tri[k], tri[(k + 1) % 3]
        inside &= np.cross(b - a, pts - a) @ n >= -1e-12
    return inside


def start_overlap_problems(model, y, u_wheel, event) -> list[str]:
    """What the units' meshes overlap at the state ``y`` (the start), one line each naming the
    field at fault: [] when every unit starts clear."""
    problems = []
    units = event.model.units
    terrain = event.model.environment.terrain
    layout = L.StateLayout.of_model(model)
    for u, unit in enumerate(units):
        if model.P_COLL[u, L.CO_NV] <= 0:
            continue
        body, wheel, cg, R = _vertices(model, layout, y, u)
        name = unit.name
        road = _road_depth(model, u_wheel, u, body, R, cg)
        k = int(np.argmax(road))
        if road[k] > EDGE:
            field = "collision.mesh_file" if unit.collision.mesh_file else "collision.ground_clearance"
            where = R.T @ (body[k] - cg)
            problems.append(
                f"units[{u}].{field}: the exterior of {name} reaches {road[k]:.3g} m into the road "
                f"at the start (its vertex at x, y, z = {where[0]:.3g}, {where[1]:.3g}, "
                f"{where[2]:.3g} m from the CG); the exterior must clear the road ("
                + (f"{terrain.type} terrain" if terrain.type != "flat" else
                   f"the ground at Z = {model.P_ENV[L.E_GROUND_Z]:g} m") + ")")
        pts = np.concatenate([body, wheel])
        objects = 0
        for b, bar in enumerate(model.P_BAR):
            if bar[L.BA_KIND] == L.BAR_OBJECT:
                v0, nv = int(model.P_COLL[u, L.CO_V0]), int(model.P_COLL[u, L.CO_NV])
                cells = list(model.CV[v0:v0 + nv, L.CV_CELL:L.CV_CELL + 6]) + [None] * len(wheel)
                problems += _inside_object(model, bar, pts, cells, R, cg, name, objects)
                objects += 1
                continue
            n = bar[L.BA_NX:L.BA_NZ + 1]
            depth = -(pts - bar[L.BA_X:L.BA_Z + 1]) @ n
            if bar[L.BA_KIND] != L.BAR_PLANE:
                tri = bar[L.BA_T0:L.BA_T0 + 9].reshape(3, 3)
                if (cg - tri[0]) @ n <= 0.0:      # its back: met from the front only
                    continue
                depth = np.where(_in_triangle(pts, tri, n), depth, -np.inf)
            k = int(np.argmax(depth))
            if depth[k] <= EDGE:
                continue
            part = "exterior" if k < len(body) else "wheel meshes"
            if bar[L.BA_KIND] == L.BAR_PLANE:
                problems.append(
                    f"environment.barriers[{b}]: its face passes {depth[k]:.3g} m into the {part} "
                    f"of {name} at the start; a vehicle starts on the side its normal points to, "
                    f"clear of it")
            else:
                problems.append(
                    "environment.terrain.file: a standing polygon (corners at X, Y, Z = "
                    + ", ".join(f"({c[0]:.4g}, {c[1]:.4g}, {c[2]:.4g})" for c in tri)
                    + f" m) passes {depth[k]:.3g} m into the {part} of {name} at the start; a "
                    f"vehicle starts clear of the walls")
    return problems


def _inside_object(model, bar, pts, cells, R, cg, name, k):
    """The problem (a list of one line, or none) of the unit ``name`` whose exterior vertices or
    wheel meshes' (``pts``, earth; ``cells``: each one's tributary cell, None for a wheel
    mesh's vertex, a point) start inside environment object k (``bar``: its row of P_BAR), met
    through the face of its box its CG is beyond, as the collision passes meet it
    (:func:`engine.collision.object_approach`; R the unit's rotation)."""
    box = tuple(float(c) for c in bar[L.OB_BOX:L.OB_BOX + 6])
    face = compiled_entry(object_face, (box, *map(float, cg)))(box, *map(float, cg))
    rot = np.ascontiguousarray(R, dtype=np.float64).ravel()
    args = (model, bar, face, 0.0, 0.0, 0.0, rot, POINT)
    approach = compiled_entry(object_approach, args)
    depth = np.array([approach(model, bar, face, *map(float, p), rot,
                               POINT if c is None else tuple(map(float, c)))[0]
                      for p, c in zip(pts, cells)])
    i = int(np.argmax(depth))
    if depth[i] <= EDGE:
        return []
    part = "exterior of {} starts" if cells[i] is not None else "wheel meshes of {} start"
    return [f"environment.objects[{k}]: the {part.format(name)} {depth[i]:.3g} m inside the "
            f"object (at X, Y, Z = {pts[i][0]:.4g}, {pts[i][1]:.4g}, {pts[i][2]:.4g} m); a "
            "vehicle starts clear of the objects (move the vehicle, its initial X0, Y0, or the "
            "object)"]
