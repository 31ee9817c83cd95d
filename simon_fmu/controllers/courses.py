"""The standard courses: their cone lanes, their driving paths, and the check that a body stays
inside the lanes.

Earth-fixed SAE axes: X along the course, Y to the right; the lane changes go to the left
(negative Y), as the standards draw them. The course starts at X = 0 at the entry of its first
lane, on the line Y = 0.

- ISO 3888-1 (double lane change): lanes of 15, 25 and 15 m with gaps of 30 and 25 m; widths
  1.1 W + 0.25, 1.2 W + 0.25 and 1.3 W + 0.25 (W the vehicle width); the second lane is
  3.5 m further left than the first (its right edge 3.5 m left of the first's right
  edge), the third shares the first's right edge.
- ISO 3888-2 (obstacle avoidance): lanes of 12, 11 and 12 m with gaps of 13.5 and 12.5 m
  (61 m in all); widths 1.1 W + 0.25, W + 1 and 3 m (1.3 W + 0.25 when that is more); the
  second lane's right edge is 1 m left of the first lane's left edge, the third shares the
  first's right edge.
- circle: a constant radius (40 m by default), turning right, closed.
- straight: the line Y = 0 from X = -500 to 500 m (straight-line and split-mu braking).

Cones stand on the lane edges, at both ends and the middle of each lane (the track limits
are tangential to the cones, so the lane edge is the limit a body must not cross).

The vehicle's width and body (:class:`~simon_fmu.controllers.vehicle_data.VehicleBody`) come
from its event; where a function takes ``body=None`` it is the default event's car.
``python -m simon_fmu.controllers.courses`` rewrites the shipped CSV paths in
``simon_fmu/controllers/courses/`` from this module (they are the default car's; the driver
FMU's build writes its own for another body). The ISO 3888-2 path is the smooth line (a cubic
spline through points every 3 m) of least peak curvature whose body, moving along the line's
tangent, keeps ``margin`` = 0.15 m from every lane edge; for the default car it asks about
0.8 g at 60 km/h.
"""
from __future__ import annotations

import functools
import math
from pathlib import Path as FilePath
from typing import NamedTuple, Optional

import numpy as np

import engine

from .driver import COURSE_DIR
from .vehicle_data import VehicleBody, vehicle_body


@functools.lru_cache(maxsize=1)
def default_body() -> VehicleBody:
    """The body of the default event's car."""
    return vehicle_body(engine.load_event())


def _body(body: Optional[VehicleBody]) -> VehicleBody:
    return default_body() if body is None else body


class Lane(NamedTuple):
    """One lane of a course between two rows of cones (m)."""

    x_start: float
    x_end: float
    y_centre: float
    width: float

    @property
    def left(self) -> float:      # SAE: left is negative Y
        return self.y_centre - 0.5 * self.width

    @property
    def right(self) -> float:
        return self.y_centre + 0.5 * self.width


def iso3888_1_lanes(width: Optional[float] = None) -> list[Lane]:
    """The three lanes of ISO 3888-1 for a vehicle ``width`` m wide (default: the default car)."""
    width = default_body().width if width is None else width
    wa, wb, wc = 1.1 * width + 0.25, 1.2 * width + 0.25, 1.3 * width + 0.25
    right = 0.5 * wa
    b_right = right - 3.5
    return [Lane(0.0, 15.0, 0.0, wa), Lane(45.0, 70.0, b_right - 0.5 * wb, wb),
            Lane(95.0, 110.0, right - 0.5 * wc, wc)]


def iso3888_2_lanes(width: Optional[float] = None) -> list[Lane]:
    """The three lanes of ISO 3888-2 for a vehicle ``width`` m wide (default: the default car)."""
    width = default_body().width if width is None else width
    wa, wb, wc = 1.1 * width + 0.25, width + 1.0, max(3.0, 1.3 * width + 0.25)
    right = 0.5 * wa
    b_right = -0.5 * wa - 1.0
    return [Lane(0.0, 12.0, 0.0, wa), Lane(25.5, 36.5, b_right - 0.5 * wb, wb),
            Lane(49.0, 61.0, right - 0.5 * wc, wc)]


def cones(lanes: list[Lane]) -> np.ndarray:
    """Cone positions (n, 2) in X, Y: both edges of each lane at its ends and middle."""
    out = []
    for lane in lanes:
        for x in (lane.x_start, 0.5 * (lane.x_start + lane.x_end), lane.x_end):
            out += [(x, lane.left), (x, lane.right)]
    return np.array(out)


def body_corners(x, y, yaw, body: Optional[VehicleBody] = None) -> np.ndarray:
    """Corners (n, 4, 2) of the ``body`` rectangle (default: the default car's) for CG
    positions and yaw angles (arrays)."""
    body = _body(body)
    width, front, rear = body.width, body.front, body.rear
    x, y, yaw = (np.atleast_1d(np.asarray(a, float)) for a in (x, y, yaw))
    c, s = np.cos(yaw), np.sin(yaw)
    out = np.empty((len(x), 4, 2))
    for j, (dx, dy) in enumerate(((front, -0.5 * width), (front, 0.5 * width),
                                  (rear, 0.5 * width), (rear, -0.5 * width))):
        out[:, j, 0] = x + dx * c - dy * s
        out[:, j, 1] = y + dx * s + dy * c
    return out


class LaneCheck(NamedTuple):
    """The result of :func:`check_lanes`."""

    inside: bool
    margin: float            # m, least distance of a body corner inside its lane edge (< 0: out)
    where: tuple             # (time index, X of the corner, lane index) of that least margin


def check_lanes(lanes: list[Lane], x, y, yaw, body: Optional[VehicleBody] = None) -> LaneCheck:
    """Whether the body stays inside every lane while any corner is within that lane's X.

    ``x, y, yaw`` are the CG trajectory (arrays); ``body`` the vehicle's (default: the
    default car's). The body's corners are checked at every sample.
    """
    corners = body_corners(x, y, yaw, body)
    best = (math.inf, (None, None, None))
    for k, lane in enumerate(lanes):
        cx, cy = corners[..., 0], corners[..., 1]
        within = (cx >= lane.x_start) & (cx <= lane.x_end)
        if not within.any():
            continue
        m = np.where(within, 0.5 * lane.width - np.abs(cy - lane.y_centre), np.inf)
        i, j = np.unravel_index(np.argmin(m), m.shape)
        if m[i, j] < best[0]:
            best = (float(m[i, j]), (int(i), float(cx[i, j]), k))
    return LaneCheck(best[0] >= 0.0, best[0], best[1])


def _cycloid(x, x0, x1, y0, y1):
    t = np.clip((x - x0) / (x1 - x0), 0.0, 1.0)
    return y0 + (y1 - y0) * (t - np.sin(2.0 * np.pi * t) / (2.0 * np.pi))


def iso3888_1_path(step: float = 0.5, body: Optional[VehicleBody] = None) -> np.ndarray:
    """Centre line of ISO 3888-1 for ``body``'s width: lane centres joined by cycloids across
    the gaps."""
    a, b, c = iso3888_1_lanes(_body(body).width)
    x = np.arange(-30.0, 140.0 + step / 2, step)
    y = np.where(x < 0.5 * (b.x_start + b.x_end), _cycloid(x, a.x_end, b.x_start, 0.0, b.y_centre),
                 _cycloid(x, b.x_end, c.x_start, b.y_centre, c.y_centre))
    return np.c_[x, y]


def iso3888_2_path(margin: float = 0.15, step: float = 0.25,
                   body: Optional[VehicleBody] = None) -> np.ndarray:
    """The ISO 3888-2 path of least peak curvature with ``body`` (default: the default car's)
    ``margin`` m inside the lanes of its width.

    A cubic spline through free points every 3 m from X = 0 to 66 (flat before and after),
    optimised with SLSQP (a smooth 8-norm of the curvature as the objective), the body
    moving along the spline's tangent.
    """
    from scipy.interpolate import CubicSpline
    from scipy.optimize import minimize

    body = _body(body)
    lanes = iso3888_2_lanes(body.width)
    x = np.linspace(-30.0, 90.0, 2401)
    knots = np.arange(0.0, 67.0, 3.0)
    xs = np.concatenate([[-30.0, -15.0], knots, [80.0, 95.0]])

    def line(q):
        return CubicSpline(xs, np.concatenate([[0.0, 0.0], q, [q[-1], q[-1]]]))(x)

    def margins(q):
        y = line(q)
        yaw = np.arctan(np.gradient(y, x))
        corners = body_corners(x, y, yaw, body)
        out = []
        for lane in lanes:
            within = (corners[..., 0] >= lane.x_start) & (corners[..., 0] <= lane.x_end)
            out.append(np.min(np.where(within, 0.5 * lane.width
                                       - np.abs(corners[..., 1] - lane.y_centre), np.inf)))
        return np.array(out) - margin

    def curvature(q):
        yp = np.gradient(line(q), x)
        return np.gradient(yp, x) / (1.0 + yp * yp) ** 1.5

    q0 = np.interp(knots, [0, 12, 25.5, 36.5, 49, 61, 70],
                   [0, 0] + [lanes[1].y_centre] * 2 + [lanes[2].y_centre] * 3)
    res = minimize(lambda q: 10.0 * np.mean(curvature(q) ** 8) ** 0.125, q0,
                   constraints=[{"type": "ineq", "fun": margins}], method="SLSQP",
                   options={"maxiter": 500})
    keep = (x >= -20.0) & (x <= 90.0)
    return np.c_[x[keep], line(res.x)[keep]][::round(step / (x[1] - x[0]))]


@functools.lru_cache(maxsize=8)
def iso3888_2_course(body: Optional[VehicleBody] = None) -> np.ndarray:
    """The ISO 3888-2 driving path (X, Y points) for ``body``: the shipped
    ``courses/iso3888-2.csv`` when it is the default car's body (the CSV is written for
    it), else :func:`iso3888_2_path` for that body (about 10 s of optimisation, kept for
    the process)."""
    body = _body(body)
    if body == default_body():
        return np.loadtxt(COURSE_DIR / "iso3888-2.csv", delimiter=",", skiprows=1)
    return iso3888_2_path(body=body)


def circle_path(radius: float = 40.0, step: float = 0.5) -> np.ndarray:
    """A closed circle of ``radius`` m through the origin, heading +X and turning right."""
    n = max(8, round(2.0 * math.pi * radius / step))
    a = np.linspace(0.0, 2.0 * math.pi, n + 1)
    return np.c_[radius * np.sin(a), radius * (1.0 - np.cos(a))]


def write_courses(folder: FilePath = COURSE_DIR,
                  body: Optional[VehicleBody] = None) -> list[FilePath]:
    """Write the standard course CSVs (X, Y) for ``body`` (default: the default car's) to
    ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, xy in (("iso3888-1", iso3888_1_path(body=body)),
                     ("iso3888-2", iso3888_2_path(body=body)),
                     ("circle", circle_path()),
                     ("straight", np.c_[[-500.0, 500.0], [0.0, 0.0]])):
        path = folder / f"{name}.csv"
        np.savetxt(path, xy, delimiter=",", header="X,Y", comments="", fmt="%.4f")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_courses():
        print(p)
