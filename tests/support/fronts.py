"""Two units' boxes front to front (engine.setup.collision.unit_box, engine.collision's unit
pairs): the area their fronts have in common and the mean approach over it, from the units'
poses, and the mass-spring closed form of the deepest approach."""
from __future__ import annotations

import copy
import json
import math

import numpy as np

import engine
from engine import layout as L
from engine.collision import unit_pair
from engine.kinematics import euler_trig, rotation_vehicle_to_earth
from engine.setup.event import TWO_CARS_EVENT


def rotation(roll, pitch, yaw):
    """The vehicle-to-earth rotation (engine.kinematics)."""
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(roll, pitch, yaw), R)
    return R


def _within(s0, s1, lo, hi, a, b):
    """The interval of t in [a, b] where s0 + s1 t lies in [lo, hi] (empty: hi < lo)."""
    if s1 == 0.0:
        return (a, b) if lo <= s0 <= hi else (a, a - 1.0)
    t0, t1 = sorted(((lo - s0) / s1, (hi - s0) / s1))
    return max(a, t0), min(b, t1)


def front_contact(pose_a, box_a, pose_b, box_b):
    """(area, mean approach) of unit a's front over unit b's front: the part of a's front face
    (``box``: x_front, x_rear, y_half, z_top, z_bottom, y_centre from the CG, as unit_box;
    ``pose``: X, Y, Z, roll, pitch, yaw) that lies across b's front face (within its width and
    height, seen along b's x), and the mean of its depth past b's front. For units that do not
    roll or yaw against each other but by half turns, the depth varies linearly along a's
    height only, so its mean is its value at the middle of that part (exact)."""
    xa, _, ha, ta, ba, ca = box_a
    xb, _, hb, tb, bb, cb = box_b
    Ra, Rb = rotation(*pose_a[3:]), rotation(*pose_b[3:])
    origin = (np.asarray(pose_a[:3]) + Ra @ np.array([xa, 0.0, 0.0]) - np.asarray(pose_b[:3])) @ Rb
    along_y, along_z = Rb.T @ Ra[:, 1], Rb.T @ Ra[:, 2]
    y0, y1 = _within(origin[1], along_y[1], cb - hb, cb + hb, ca - ha, ca + ha)
    z0, z1 = _within(origin[2], along_z[2], tb, bb, ta, ba)
    if y1 <= y0 or z1 <= z0:
        return 0.0, 0.0
    mid = 0.5 * (z0 + z1)
    return (y1 - y0) * (z1 - z0), xb - (origin[0] + along_z[0] * mid + along_y[0] * 0.5 * (y0 + y1))


def series_per_area(k_a, k_b):
    """Two faces' stiffnesses per unit area (N/m^3, B / H) in series."""
    return k_a * k_b / (k_a + k_b)


def peak_approach(closing_speed, m_a, m_b, k):
    """The mass-spring closed form: two masses closing at ``closing_speed`` on a contact of
    stiffness k reach the approach v sqrt(mu_r / k), mu_r the reduced mass."""
    return closing_speed * math.sqrt(m_a * m_b / (m_a + m_b) / k)


def posed_pair(model, y, boxes, depth, pitch=0.0, raised=0.0, latched=(True, True), memory=None,
               offset=0.0):
    """unit_pair (pair 0: units 0 and 1) with unit 1 turned round to face unit 0, pitched by
    ``pitch`` and raised by ``raised`` (m, up), moved ``offset`` along y (m), its front's point on the CG line ``depth``
    past unit 0's front (``boxes``: each unit's unit_box); every vertex of unit 0 holding unit
    1's front as the face it entered through and the other way round (each as ``latched`` says,
    else none held), both at rest, the vertices' largest approaches ``memory`` (one per vertex of CV;
    None: nothing crushed yet). Returns (the collision rows of both units,
    vehicle-fixed: force, moment, contacts, deepest approach; the two poses)."""
    y = y.copy()
    Ra, Rb = rotation(0.0, 0.0, 0.0), rotation(0.0, pitch, math.pi)
    cb = np.array([boxes[0][0] - depth, offset, -raised]) - Rb @ np.array([boxes[1][0], 0.0, 0.0])
    poses = [np.zeros(6), np.concatenate([cb, [0.0, pitch, math.pi]])]
    for u in (0, 1):
        o = L.N_BODY * u
        y[o + L.SX:o + L.SPSI + 1] = poses[u]
        y[o + L.SU:o + L.SR + 1] = 0.0
    vbase = int(model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE * model.P_UNIT.shape[0]
    ebase = vbase + model.CV.shape[0]
    fs = ebase + model.CV.shape[0]
    y[vbase:ebase] = 0.0 if memory is None else memory
    for u in (0, 1):       # a unit with a memory has touched something (collision.CS_CONTACT)
        v0, nv = int(model.P_COLL[u, L.CO_V0]), int(model.P_COLL[u, L.CO_NV])
        y[int(model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE * u + L.CS_CONTACT] = \
            float(np.any(y[vbase + v0:vbase + v0 + nv] > 0.0))
    # each unit's vertices (its exterior's and its wheels') holding the other's front
    for u, other in ((0, 1), (1, 0)):
        rows = [np.arange(int(model.P_COLL[u, L.CO_V0]),
                          int(model.P_COLL[u, L.CO_V0] + model.P_COLL[u, L.CO_NV]))]
        w0 = int(model.P_UNIT[u, L.U_WHEEL0])
        for w in range(w0, w0 + int(model.P_UNIT[u, L.U_NWHEELS])):
            first = int(model.P_WCOLL[w, L.WC_V0])
            rows.append(np.arange(first, first + max(int(model.P_WCOLL[w, L.WC_NV]), 0)))
        y[ebase + np.concatenate(rows)] = L.entry_code(L.FACE_FRONT, other) if latched[u] else 0.0
        y[fs + (L.PS_FACE_ON_B if u == 0 else L.PS_FACE_ON_A)] = 1.0 + L.FACE_FRONT if latched[u] else 0.0
    frames = np.zeros((2, L.N_FRAME))
    frames[0, :9], frames[1, :9] = Ra.ravel(), Rb.ravel()
    coll = np.zeros((2, L.N_COLL_ROW))
    nw = model.P_WHEEL.shape[0]
    unit_pair(y, model, 0, frames, False, coll, np.zeros((nw, L.N_WPOSE)),
              np.zeros((nw, L.N_WLOAD)), np.zeros(2),
              L.Inputs(np.zeros((2, len(engine.UNIT_INPUTS))), np.zeros((nw, len(engine.WHEEL_INPUTS))),
                       np.zeros(len(engine.ENV_INPUTS))),
              model.P_ENV[L.E_COLL_T_VEH])
    return coll, poses


def two_sedans(vertices=300):
    """The two-car event's data with two copies of its sedan (the second named car2), without
    aerodynamics and rolling resistance, box meshes of about ``vertices``."""
    with open(TWO_CARS_EVENT) as fh:
        data = json.load(fh)
    car = data["units"][0]
    car2 = copy.deepcopy(car)
    car2["name"] = "car2"
    data["units"][1] = car2
    for unit in data["units"]:
        unit["aerodynamics"] = []
        for tire in unit["tires"].values():
            tire["rolling_resistance"] = {"sigma0": 0.0, "sigma_v": 0.0}
        unit["collision"] = {"mesh_vertices": vertices}
    return data
