"""Curbs, steps and potholes for the tests: the polygons of mesh roads with standing faces
(written by :func:`support.roads.polygon_obj`), and the closed form of a tire's disc over a
step's corner (docs/equations.md, "Tread envelope on mesh and OpenCRG roads"): the area of the
disc below the road, the circular segment of that area, Eq. 93 at its depth. Independent of
the engine."""
from __future__ import annotations

import math

from scipy.optimize import brentq

from support.sedan import TIRE

#: the steps' and curbs' faces in the tests, earth X (m)
X_STEP = 3.0
#: the face of :func:`curb_along`, earth Y (m)
CURB_Y = 1.0


def step(h, x=X_STEP, x0=-5.0, x1=60.0, w=6.0):
    """A road rising by h (m) at X = x across the whole width: the road below, the road above
    and the standing face between them (its normal out of the step, towards -X)."""
    return [[(x0, -w, 0.0), (x, -w, 0.0), (x, w, 0.0), (x0, w, 0.0)],
            [(x, -w, -h), (x1, -w, -h), (x1, w, -h), (x, w, -h)],
            [(x, -w, 0.0), (x, w, 0.0), (x, w, -h), (x, -w, -h)]]


def pothole(d, x, length, y0, y1, x0=-5.0, x1=60.0, w=6.0):
    """A road with a box-shaped hole d (m) deep over x..x + length, y0..y1: the road round it,
    its floor and its four standing sides."""
    xe = x + length
    return [[(x0, -w, 0.0), (x, -w, 0.0), (x, w, 0.0), (x0, w, 0.0)],
            [(xe, -w, 0.0), (x1, -w, 0.0), (x1, w, 0.0), (xe, w, 0.0)],
            [(x, -w, 0.0), (xe, -w, 0.0), (xe, y0, 0.0), (x, y0, 0.0)],
            [(x, y1, 0.0), (xe, y1, 0.0), (xe, w, 0.0), (x, w, 0.0)],
            [(x, y0, d), (xe, y0, d), (xe, y1, d), (x, y1, d)],
            [(x, y0, 0.0), (x, y1, 0.0), (x, y1, d), (x, y0, d)],
            [(xe, y0, 0.0), (xe, y0, d), (xe, y1, d), (xe, y1, 0.0)],
            [(x, y0, 0.0), (x, y0, d), (xe, y0, d), (xe, y0, 0.0)],
            [(x, y1, 0.0), (xe, y1, 0.0), (xe, y1, d), (x, y1, d)]]


def _chord_integral(r, a, b):
    """The integral of sqrt(r^2 - s^2) over a <= s <= b (within -r .. r)."""
    def prim(s):
        return 0.5 * (s * math.sqrt(max(r * r - s * s, 0.0)) + r * r * math.asin(s / r))
    a, b = max(a, -r), min(b, r)
    return prim(b) - prim(a) if b > a else 0.0


def _disc_below(r, c, a, b):
    """The area of the disc of radius r about the origin (s along the road, u up) below the
    level line u = c, over a <= s <= b."""
    if c <= -r:
        return 0.0
    if c >= r:
        return 2.0 * _chord_integral(r, a, b)
    sc = math.sqrt(r * r - c * c)        # where the line crosses the circle
    lo, hi = max(a, -sc), min(b, sc)
    inner = c * (hi - lo) + _chord_integral(r, lo, hi) if hi > lo else 0.0
    outer = 0.0
    if c > 0.0:                          # the whole chord beyond the crossings
        outer = 2.0 * (_chord_integral(r, a, min(b, -sc)) + _chord_integral(r, max(a, sc), b))
    return inner + outer


def step_area(r, height, edge, h):
    """The area of a tire's disc (radius r, its centre ``height`` above the road below the
    step) inside a road that rises by h at ``edge`` (m ahead of the centre): the segment cut by
    the road below, plus the part of the disc ahead of the edge between the two levels."""
    return (_disc_below(r, -height, -r, r) + _disc_below(r, -height + h, edge, r)
            - _disc_below(r, -height, edge, r))


def segment_depth(r, area):
    """The depth of the circular segment of a disc of radius r whose area is ``area``:
    r^2 (theta - sin theta cos theta) = area, depth r (1 - cos theta)."""
    if area <= 0.0:
        return 0.0
    theta = brentq(lambda t: r * r * (t - math.sin(t) * math.cos(t)) - area, 0.0, math.pi,
                   xtol=1e-15)
    return r * (1.0 - math.cos(theta))


def radial_load(depth, tire=TIRE):
    """Eq. 93 on its loading curve: K_T delta, then the secondary rate beyond delta_2."""
    d2, kbar = tire["secondary_stiffness_deflection"], tire["secondary_stiffness_multiplier"]
    if depth <= d2:
        return tire["radial_stiffness"] * depth
    return tire["radial_stiffness"] * (kbar * (depth - d2) + d2)


def curb_along(h, y=CURB_Y, x=(-15.0, 15.0), y0=-6.0, y1=40.0):
    """A curb h high along X at Y = y: the road below, the road above (Y > y) and the face
    (normal towards -Y)."""
    return [[(x[0], y0, 0.0), (x[1], y0, 0.0), (x[1], y, 0.0), (x[0], y, 0.0)],
            [(x[0], y, -h), (x[1], y, -h), (x[1], y1, -h), (x[0], y1, -h)],
            [(x[0], y, 0.0), (x[0], y, -h), (x[1], y, -h), (x[1], y, 0.0)]]
