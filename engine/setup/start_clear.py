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

The geometry is the kernel's (:func:`engine.start_check.start_overlaps`: per unit and surface,
its deepest vertex); this module writes its message. The native FMU refuses a start with the
same texts (:func:`overlap_templates`: each message with the kernel's numbers left as
:data:`FIELDS` placeholders that :func:`fill` and the native runtime fill alike).
"""
from __future__ import annotations

import re

import numpy as np

from .. import layout as L
from ..collision import EDGE
from ..jit import compiled_entry
from ..start_check import (H_BARRIER, H_DEPTH, H_RX, H_RY, H_RZ, H_VERTEX, H_X, H_Y,
                           H_Z, N_HIT, start_overlaps)

#: the placeholders of a message template, each a column of a row of the kernel's hits and
#: the significant digits it is written with (format "g"): "{d}" the depth, "{x}", "{y}", "{z}"
#: the vertex from the CG (unit axes), "{X}", "{Y}", "{Z}" its earth position
#: (simon_native.c, fill_template, fills them alike)
FIELDS = {"d": (H_DEPTH, 3), "x": (H_RX, 3), "y": (H_RY, 3), "z": (H_RZ, 3), "X": (H_X, 4),
          "Y": (H_Y, 4), "Z": (H_Z, 4)}
_PLACEHOLDER = re.compile(r"\{([" + "".join(FIELDS) + r"])\}")


def start_arguments(model, y, u_wheel) -> tuple:
    """The arguments of :func:`engine.start_check.start_overlaps` for the state ``y``: its
    hits [unit, surface, N_HIT] last."""
    hits = np.zeros((model.P_UNIT.shape[0], H_BARRIER + model.P_BAR.shape[0], N_HIT))
    return (np.asarray(y, dtype=np.float64), model, u_wheel, np.zeros((3, 3)), np.zeros(9), hits)


def start_hits(model, y, u_wheel) -> np.ndarray:
    """The kernel's hits at the state ``y`` (:func:`start_arguments`)."""
    args = start_arguments(model, y, u_wheel)
    compiled_entry(start_overlaps, args)(*args)
    return args[-1]


def overlap_templates(model, event) -> list:
    """Per unit and surface (the rows of the kernel's hits), the messages of a vertex of the
    exterior and of a wheel mesh deeper than EDGE in it, with the kernel's numbers as
    placeholders (:data:`FIELDS`)."""
    terrain = event.model.environment.terrain
    out = []
    for u, unit in enumerate(event.model.units):
        name = unit.name
        field = "collision.mesh_file" if unit.collision.mesh_file else "collision.ground_clearance"
        road = (f"units[{u}].{field}: the exterior of {name} reaches {{d}} m into the road at the "
                "start (its vertex at x, y, z = {x}, {y}, {z} m from the CG); the exterior must "
                "clear the road (" + (f"{terrain.type} terrain" if terrain.type != "flat" else
                                      f"the ground at Z = {model.P_ENV[L.E_GROUND_Z]:g} m") + ")")
        rows = [(road, road)]
        objects = 0
        for b, bar in enumerate(model.P_BAR):
            if bar[L.BA_KIND] == L.BAR_OBJECT:
                rows.append(tuple(
                    f"environment.objects[{objects}]: the {part.format(name)} {{d}} m inside the "
                    "object (at X, Y, Z = {X}, {Y}, {Z} m); a vehicle starts clear of the objects "
                    "(move the vehicle, its initial X0, Y0, or the object)"
                    for part in ("exterior of {} starts", "wheel meshes of {} start")))
                objects += 1
            elif bar[L.BA_KIND] == L.BAR_PLANE:
                rows.append(tuple(
                    f"environment.barriers[{b}]: its face passes {{d}} m into the {part} of {name} "
                    "at the start; a vehicle starts on the side its normal points to, clear of it"
                    for part in ("exterior", "wheel meshes")))
            else:
                tri = bar[L.BA_T0:L.BA_T0 + 9].reshape(3, 3)
                rows.append(tuple(
                    "environment.terrain.file: a standing polygon (corners at X, Y, Z = "
                    + ", ".join(f"({c[0]:.4g}, {c[1]:.4g}, {c[2]:.4g})" for c in tri)
                    + f" m) passes {{d}} m into the {part} of {name} at the start; a vehicle "
                    "starts clear of the walls" for part in ("exterior", "wheel meshes")))
        out.append(rows)
    return out


def fill(template: str, hit) -> str:
    """The message ``template`` with its placeholders (:data:`FIELDS`) from a row of hits."""
    def number(match):
        column, digits = FIELDS[match.group(1)]
        return format(float(hit[column]), f".{digits}g")
    return _PLACEHOLDER.sub(number, template)


def start_overlap_problems(model, y, u_wheel, event) -> list[str]:
    """What the units' meshes overlap at the state ``y`` (the start), one line each naming the
    field at fault: [] when every unit starts clear."""
    hits = start_hits(model, y, u_wheel)
    if not (hits[:, :, H_DEPTH] > EDGE).any():
        return []
    templates = overlap_templates(model, event)
    problems = []
    for u in range(hits.shape[0]):
        nv = int(model.P_COLL[u, L.CO_NV])
        for s in range(hits.shape[1]):
            hit = hits[u, s]
            if hit[H_DEPTH] > EDGE:
                problems.append(fill(templates[u][s][int(hit[H_VERTEX] >= nv)], hit))
    return problems
