"""The wheels' meshes of DyMESH wheel contact (set-up, Python): each wheel's cylinder of vertices
with their stiffness (:func:`wheel_mesh`), packed with the wheel's damage thresholds
(:func:`pack_wheel_meshes`), and each unit's reach (:func:`pack_reach`). The contact and the damage
they carry are compiled: :mod:`engine.wheel_damage`.
"""
import math

import numpy as np

from ..layout import (CO_NV, CO_R0, CO_WHEELS, CO_XMAX, CO_XMIN, CO_YMAX, CO_YMIN, CO_ZMAX, CO_ZMIN,
                      FACE_BOTTOM, FACE_FRONT, FACE_LEFT, FACE_REAR, FACE_RIGHT, FACE_ROOF, N_CV,
                      N_FACES, N_WCOLL_P, W_X, W_Y0, W_Z0, WC_BOUND, WC_E, WC_F0, WC_FMAX, WC_K0,
                      WC_M0, WC_MMAX, WC_NV, WC_RADIUS, WC_RATE, WC_V0)
from .derived import tire_width
from .equilibrium import wheels

#: vertices round a wheel's mesh on each of its three rings (its two sides and its middle)
AROUND = 16


def wheel_mesh(radius, width, stiffness, around=AROUND):
    """A wheel's mesh: a cylinder of ``radius`` and ``width`` about its spin axis (y), in the
    wheel's axes (x along its heading, y along the spin axis, z down), from its centre.

    Three rings of ``around`` vertices (the two sides and the middle of the tread) and the
    centre of each side. Returns (offsets (n, 3), CK (n, 6), the faces' stiffness per unit
    area (6,)). Each vertex carries its tributary area of the tread (its arc times its share of
    the width) on the face of the wheel's bounding box its radial direction is nearest, and of
    its side (the side's fan of triangles from the centre: a third of each triangle's area to
    each corner) on that side's face, times the face's stiffness per unit area: ``stiffness``
    over the face's projected area (pi r^2 for a side, 2 r w for the tread's faces), so that a
    plane pressed flat on a side of the wheel, or across its tread at a face, meets about the
    stiffness ``stiffness`` (N/m) in all. The mesh is symmetric about its middle plane.
    """
    if not (radius > 0.0 and width > 0.0 and stiffness > 0.0):
        raise ValueError(f"wheel_mesh: positive radius, width and stiffness (got {radius:g}, "
                         f"{width:g}, {stiffness:g})")
    a = 2.0 * math.pi * np.arange(around) / around
    c, s = np.cos(a), np.sin(a)
    side_area = 0.5 * around * radius ** 2 * math.sin(2.0 * math.pi / around)   # each side's fan
    areal = np.zeros(N_FACES)
    areal[[FACE_LEFT, FACE_RIGHT]] = stiffness / side_area
    areal[[FACE_FRONT, FACE_REAR, FACE_BOTTOM, FACE_ROOF]] = stiffness / (2.0 * radius * width)
    # the face of the box each radial direction is nearest: +x front, -x rear, +z (down) bottom
    radial = np.where(np.abs(c) >= np.abs(s), np.where(c > 0.0, FACE_FRONT, FACE_REAR),
                      np.where(s > 0.0, FACE_BOTTOM, FACE_ROOF))
    arc = 2.0 * math.pi * radius / around
    verts, stiff = [], []
    for yy, share, side in ((-0.5 * width, 0.25, FACE_LEFT), (0.0, 0.5, -1),
                            (0.5 * width, 0.25, FACE_RIGHT)):
        for j in range(around):
            ck = np.zeros(N_FACES)
            ck[radial[j]] += areal[radial[j]] * arc * share * width
            if side >= 0:
                ck[side] += areal[side] * 2.0 * side_area / (3.0 * around)
            verts.append((radius * c[j], yy, radius * s[j]))
            stiff.append(ck)
    for yy, side in ((-0.5 * width, FACE_LEFT), (0.5 * width, FACE_RIGHT)):
        ck = np.zeros(N_FACES)
        ck[side] = areal[side] * side_area / 3.0
        verts.append((0.0, yy, 0.0))
        stiff.append(ck)
    return np.array(verts), np.array(stiff), areal


def wheel_width(axle, tire):
    """The width of a wheel's mesh: its tire's (``engine.setup.derived.tire_width``) and across
    both tires of a dual (plus their spacing)."""
    return tire_width(tire) + (axle.dual_spacing if axle.dual else 0.0)



def pack_wheel_meshes(units, first_vertex):
    """(P_WCOLL, CV rows, CK rows) for the event's wheels
    (in the engine's wheel order, ``engine.setup.equilibrium.wheels``), their vertices numbered from
    ``first_vertex``. A wheel has a mesh when its unit's collision is enabled and its axle's
    ``wheel_damage.mesh`` is true. Its vertices are points (their cells in CV all 0)."""
    rows, verts, stiff = [], [np.zeros((0, N_CV))], [np.zeros((0, N_FACES))]
    n = first_vertex
    for unit in units:
        for _, axle, _ in wheels(unit):
            row = np.zeros(N_WCOLL_P)
            dmg = axle.wheel_damage
            if unit.collision.enabled and dmg.mesh:
                tire = unit.tires[axle.tire]
                radius = tire.unloaded_radius
                width = wheel_width(axle, tire)
                k = dmg.stiffness
                if k is None:
                    k = tire.radial_stiffness * (2 if axle.dual else 1)
                cv, ck, areal = wheel_mesh(radius, width, k)
                row[WC_V0] = n
                row[WC_NV] = len(cv)
                row[WC_BOUND] = math.hypot(radius, 0.5 * width)
                row[WC_RADIUS] = radius
                row[WC_F0], row[WC_M0] = dmg.max_no_damage_force, dmg.max_no_damage_moment
                row[WC_RATE] = dmg.deformation_rate
                row[WC_FMAX], row[WC_MMAX] = dmg.max_force, dmg.max_moment
                row[WC_E] = dmg.restitution
                row[WC_K0:WC_K0 + N_FACES] = areal
                verts.append(np.hstack([cv, np.zeros((len(cv), N_CV - 3))]))
                stiff.append(ck)
                n += len(cv)
            rows.append(row)
    P_WCOLL = np.array(rows).reshape(-1, N_WCOLL_P)
    return P_WCOLL, np.concatenate(verts), np.concatenate(stiff)


def pack_reach(P_COLL, P_UNIT, P_WHEEL, P_WCOLL, units):
    """Each unit's reach into P_COLL[u, CO_R0 : CO_R0 + 6] and whether it has wheel meshes into
    CO_WHEELS: its exterior's box and, round each wheel with a mesh, the sphere of its mesh
    grown by the wheel's travel (its suspension's jounce and rebound clearances plus the
    wheel's radius, beyond which a stop's force rises steeply) and its largest set
    (deformation_rate times (max_force - max_no_damage_force), plus its rim's turn, as much
    again, and no more than the exterior's diagonal), about its static centre; a wheel of a
    full trailer's turntable, grown by the circle the turntable turns it on."""
    w = 0
    for u, unit in enumerate(units):
        row = P_COLL[u]
        lo = np.array([row[CO_XMIN], row[CO_YMIN], row[CO_ZMIN]])
        hi = np.array([row[CO_XMAX], row[CO_YMAX], row[CO_ZMAX]])
        across = float(np.linalg.norm(hi - lo))     # the exterior's diagonal
        for _, axle, _ in wheels(unit):
            pw = P_WCOLL[w]
            if pw[WC_NV] > 0.0:
                sus = axle.suspension
                travel = (sus.jounce_stop.clearance + sus.rebound_stop.clearance
                          + pw[WC_RADIUS])
                # at most the exterior's diagonal (a set carries a wheel through it at
                # most), in Python floats: a rate of 1 m/N times a force of 1e300 N is inf
                set_max = min(2.0 * float(pw[WC_RATE]) * float(pw[WC_FMAX] - pw[WC_F0]), across)
                r = pw[WC_BOUND] + travel + set_max
                if axle.turntable:
                    # a full trailer's turntable turns the wheel about the front point
                    px, py, _ = unit.connections.front.point
                    r += 2.0 * (abs(axle.x - px) + abs(py) + axle.track / 2.0)
                c = P_WHEEL[w, [W_X, W_Y0, W_Z0]]
                lo, hi = np.minimum(lo, c - r), np.maximum(hi, c + r)
                row[CO_WHEELS] = 1.0
            w += 1
        if row[CO_NV] <= 0.0:
            row[CO_WHEELS] = 0.0        # no exterior: nothing of the unit collides
        row[CO_R0:CO_R0 + 6] = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
