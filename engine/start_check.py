"""The start's meshes against the road, the barriers, the walls and the environment objects.

A vertex of a unit's exterior (``engine.collision``) that starts inside a surface meets it with
its full approach in the first evaluation; the set-up refuses such a start
(``engine.setup.start_clear``, which writes the message naming the field at fault) and so does
the native FMU at initialisation (``simon_fmu/native``), both from this kernel's answer.

Surfaces as the collision passes see them (``engine.collision.environment_pairs``): the road
(flat ground, the terrain mesh under each vertex, or an external road's plane of the unit's
first wheel's road inputs; :func:`engine.terrain.surface`), every barrier plane (its solid side
behind its normal), every standing polygon of a mesh terrain (behind its plane, its foot in
the triangle, the unit's CG in front) and every environment object, met from the side the
unit's CG is on (:func:`engine.collision.object_face`, :func:`engine.collision.object_approach`).
The exterior meets all of them; the wheels' meshes (at their static poses) meet all but the
road, which their tires carry.
"""
import math

from .collision import EDGE, POINT, object_approach, object_face
from .jit import njit
from .kinematics import euler_trig, rotation_vehicle_to_earth
from .layout import (BA_KIND, BA_NX, BA_NY, BA_NZ, BA_T0, BA_X, BA_Y, BA_Z, BAR_OBJECT, BAR_PLANE,
                     CO_NV, CO_V0, CV_CELL, N_BODY, OB_BOX, SPHI, SPSI, STHETA, SX, SY, SZ,
                     U_WHEEL0, W_UNIT, W_X, W_Y0, W_Z0, WC_NV, WC_V0)
from .terrain import surface

#: columns of a row of :func:`start_overlaps`' hits: the deepest vertex's depth into the surface
#: (m, > 0 inside; -inf where no vertex meets it), its index (the exterior's vertices first,
#: then the wheel meshes' in wheel order; -1: none), its earth position, and its position in
#: the unit's axes from its CG
H_DEPTH, H_VERTEX, H_X, H_Y, H_Z, H_RX, H_RY, H_RZ = range(8)
N_HIT = 8
#: the row of hits[u] that holds the road; barrier b of P_BAR is row H_BARRIER + b
H_ROAD, H_BARRIER = 0, 1
#: how far (m^2 times the normal's length) a point's foot may lie outside a triangle's edge and
#: still count as in it: rounding only
IN_TRIANGLE = 1e-12


@njit
def road_depth(P, u_wheel, u, X0, Y0, R, X, Y, Z):
    """How far earth point (X, Y, Z) of unit u (its CG at X0, Y0; R [3, 3] its rotation) is
    into the road along the road's normal (m, > 0 inside; -inf where a mesh has no road): the
    road of the kernels (:func:`engine.terrain.surface`) under the point, an external road's
    being the plane of the unit's first wheel's road inputs through the road under that
    wheel's centre, as ``engine.collision.environment_pairs`` meets it."""
    w = int(P.P_UNIT[u, U_WHEEL0])
    xw, yw = P.P_WHEEL[w, W_X], P.P_WHEEL[w, W_Y0]
    fx, fy = X0 + R[0, 0] * xw + R[0, 1] * yw, Y0 + R[1, 0] * xw + R[1, 1] * yw
    found, z, _, _, nz, _, _, _ = surface(P, u_wheel, w, fx, fy, X, Y)
    return (Z - z) * nz if found else -math.inf


@njit
def _keep(hits, u, s, depth, v, X, Y, Z, rx, ry, rz):
    """Keep vertex v (earth X, Y, Z; r from the CG in the unit's axes) in hits[u, s] when it is
    deeper than the one there (the first of equal depths stays)."""
    if depth > hits[u, s, H_DEPTH]:
        row = hits[u, s]
        row[H_DEPTH], row[H_VERTEX], row[H_X], row[H_Y], row[H_Z] = depth, v, X, Y, Z
        row[H_RX], row[H_RY], row[H_RZ] = rx, ry, rz


@njit
def _in_triangle(bar, nx, ny, nz, X, Y, Z):
    """Whether the foot of earth point (X, Y, Z) on the plane of a standing polygon's triangle
    (``bar``: its row of P_BAR, corners at BA_T0; n its unit normal) lies in the triangle."""
    for k in range(3):
        a, b = BA_T0 + 3 * k, BA_T0 + 3 * ((k + 1) % 3)
        ex, ey, ez = bar[b] - bar[a], bar[b + 1] - bar[a + 1], bar[b + 2] - bar[a + 2]
        px, py, pz = X - bar[a], Y - bar[a + 1], Z - bar[a + 2]
        if (ey * pz - ez * py) * nx + (ez * px - ex * pz) * ny + (ex * py - ey * px) * nz \
                < -IN_TRIANGLE:
            return False
    return True


@njit
def _vertex(y, P, u_wheel, u, R, rot, hits, v, rx, ry, rz, cell, body):
    """Vertex v of unit u at r (its axes, from the CG; ``cell`` its tributary cell, POINT for
    a wheel mesh's; ``body``: of the exterior, which meets the road too) against every surface,
    into hits[u]."""
    o = N_BODY * u
    X0, Y0, Z0 = y[o + SX], y[o + SY], y[o + SZ]
    X = X0 + R[0, 0] * rx + R[0, 1] * ry + R[0, 2] * rz
    Y = Y0 + R[1, 0] * rx + R[1, 1] * ry + R[1, 2] * rz
    Z = Z0 + R[2, 0] * rx + R[2, 1] * ry + R[2, 2] * rz
    if body:
        _keep(hits, u, H_ROAD, road_depth(P, u_wheel, u, X0, Y0, R, X, Y, Z), v, X, Y, Z, rx, ry,
              rz)
    PB = P.P_BAR
    for b in range(PB.shape[0]):
        bar = PB[b]
        s = H_BARRIER + b
        if bar[BA_KIND] == BAR_OBJECT:
            f = object_face((bar[OB_BOX], bar[OB_BOX + 1], bar[OB_BOX + 2], bar[OB_BOX + 3],
                             bar[OB_BOX + 4], bar[OB_BOX + 5]), X0, Y0, Z0)
            depth = object_approach(P, bar, f, X, Y, Z, rot, cell)[0]
            _keep(hits, u, s, depth, v, X, Y, Z, rx, ry, rz)
            continue
        nx, ny, nz = bar[BA_NX], bar[BA_NY], bar[BA_NZ]
        if bar[BA_KIND] != BAR_PLANE:
            # a standing polygon: met from the front only, where the foot is in its triangle
            if (X0 - bar[BA_T0]) * nx + (Y0 - bar[BA_T0 + 1]) * ny + (Z0 - bar[BA_T0 + 2]) * nz \
                    <= 0.0 or not _in_triangle(bar, nx, ny, nz, X, Y, Z):
                continue
        depth = -((X - bar[BA_X]) * nx + (Y - bar[BA_Y]) * ny + (Z - bar[BA_Z]) * nz)
        _keep(hits, u, s, depth, v, X, Y, Z, rx, ry, rz)


@njit
def start_overlaps(y, P, u_wheel, R, rot, hits):
    """Every unit's deepest vertex into each surface at the state y (the start): hits[u, s]
    (:data:`N_HIT` columns, H_*) for unit u and surface s (:data:`H_ROAD`, then
    :data:`H_BARRIER` + b for barrier b of P_BAR); a unit without an exterior mesh meets
    nothing. ``u_wheel``: the wheel inputs (an external road's); R [3, 3], rot [9]: scratch (a
    unit's rotation, vehicle to earth). Returns how many rows are deeper than
    :data:`engine.collision.EDGE`: the overlaps the start may not have."""
    for u in range(hits.shape[0]):
        for s in range(hits.shape[1]):
            hits[u, s, H_DEPTH], hits[u, s, H_VERTEX] = -math.inf, -1.0
            for c in range(H_X, N_HIT):
                hits[u, s, c] = 0.0
    n = 0
    for u in range(hits.shape[0]):
        nv = int(P.P_COLL[u, CO_NV])
        if nv <= 0:
            continue
        o = N_BODY * u
        rotation_vehicle_to_earth(*euler_trig(y[o + SPHI], y[o + STHETA], y[o + SPSI]), R)
        for i in range(3):
            for j in range(3):
                rot[3 * i + j] = R[i, j]
        v0 = int(P.P_COLL[u, CO_V0])
        for v in range(nv):
            c = P.CV[v0 + v]
            cell = (c[CV_CELL], c[CV_CELL + 1], c[CV_CELL + 2], c[CV_CELL + 3], c[CV_CELL + 4],
                    c[CV_CELL + 5])
            _vertex(y, P, u_wheel, u, R, rot, hits, v, c[0], c[1], c[2], cell, True)
        k = nv
        PW, PWC = P.P_WHEEL, P.P_WCOLL
        for w in range(PW.shape[0]):
            if int(PW[w, W_UNIT]) != u or PWC[w, WC_NV] <= 0:
                continue
            a = int(PWC[w, WC_V0])
            for v in range(int(PWC[w, WC_NV])):
                _vertex(y, P, u_wheel, u, R, rot, hits, k, P.CV[a + v, 0] + PW[w, W_X],
                        P.CV[a + v, 1] + PW[w, W_Y0], P.CV[a + v, 2] + PW[w, W_Z0], POINT, False)
                k += 1
        for s in range(hits.shape[1]):
            n += hits[u, s, H_DEPTH] > EDGE
    return n
