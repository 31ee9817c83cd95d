"""Terrain: what a tire asks about the ground under it -- elevation, surface normal, friction
multiplier and water depth (HVE's GetSurfaceInfo(), Eq. 80).

Three sources (``environment.terrain`` of the event, ``P_ENV[E_TERRAIN]``):

* flat: level ground at ``ground_elevation`` with the event's friction multiplier, dry;
* mesh: the road triangles of a polygon database (``engine.terrain_mesh``), found through a
  uniform grid so that a lookup costs the same on any size of mesh; each triangle's material
  gives its friction multiplier, water depth and texture depth (for hydroplaning). Outside
  the road triangles there is no terrain: the caller reports the tire and its position. An
  event's OpenCRG road (``engine.setup.terrain_crg``) is triangulated into such a mesh when the
  event is loaded, and is a mesh here. A tire on a mesh meets the road's envelope over its
  contact length (``engine.envelope``), not the point under its centre that :func:`surface`
  answers;
* external: the road under each wheel comes from its inputs ``roadZ`` (the earth Z under the
  wheel centre) and ``roadGradeX``, ``roadGradeY`` (dZ/dX, dZ/dY): the plane through that
  point with those slopes, whose downward normal is (-gx, -gy, 1)/|.|, as commercial vehicle
  models take the road per tire.
"""
import math

from .jit import njit
from .layout import (E_GROUND_Z, E_MU, E_TERRAIN, IW_GRADEX, IW_GRADEY, IW_ROADZ, IW_WATER,
                     TERRAIN_EXTERNAL,
                     TERRAIN_MESH)
from .terrain_mesh import mesh_surface


@njit
def surface(P, u_wheel, w, Xw, Yw, X, Y):
    """(found, elevation Z at X, Y, normal pointing down (nx, ny, nz), friction multiplier,
    water depth, texture depth) of the terrain for a tire of wheel w at earth X, Y; (Xw, Yw) is the wheel
    centre, where the external road inputs apply. ``found`` is False where a mesh has no road
    triangle."""
    kind = P.P_ENV[E_TERRAIN]
    if kind == TERRAIN_MESH:
        found, z, nx, ny, nz, fr, water, texture = mesh_surface(
            P.TR_TRI, P.TR_NRM, P.TR_MAT, P.TR_MATP, P.TR_GRID, P.TR_START, P.TR_CELL, X, Y)
        return found, z, nx, ny, nz, fr * P.P_ENV[E_MU], water, texture
    if kind == TERRAIN_EXTERNAL:
        gx, gy = u_wheel[w, IW_GRADEX], u_wheel[w, IW_GRADEY]
        m = math.sqrt(1.0 + gx * gx + gy * gy)
        z = u_wheel[w, IW_ROADZ] + gx * (X - Xw) + gy * (Y - Yw)
        return True, z, -gx / m, -gy / m, 1.0 / m, P.P_ENV[E_MU], u_wheel[w, IW_WATER], 0.0
    return True, P.P_ENV[E_GROUND_Z], 0.0, 0.0, 1.0, P.P_ENV[E_MU], 0.0, 0.0
