"""A closed-loop driver: preview path following, reaction lag, steering limits, speed control.

Plain Python (numpy), no FMI: :mod:`simon_fmu.controllers.slave` wraps it as an FMU, and the
tests use it directly. In the spirit of the HVE Driver Model: the driver looks ahead along an
earth-fixed path, steers with a lag and within the steering-wheel angle and rate limits, and
holds a target speed with throttle and brake pedal, choosing the gear.

Steering, once per call of :meth:`Driver.step` (SAE J670 axes: X forward, Y right, yaw
positive turning right):

1. *Where am I on the path*: the arc length ``s0`` of the point of the path nearest the CG,
   searched near the last one, so the driver keeps its progress along a path that crosses
   or closes on itself.
2. *Preview*: the aim point is the path point at ``s0 + L``, ``L = max(minPreview,
   previewTime * speed)``. Its offset ``e_v`` across the vehicle's course (the direction
   of travel, from the last two positions, so it includes the sideslip), less its offset
   ``e_p`` across the path's own tangent at ``s0``, is the error the driver corrects within
   the preview: ``kappa = kappa_ff + 2 (e_v - e_p) / L**2``. On a straight path this is pure
   pursuit; ``kappa_ff`` is the path's curvature ``feedforwardTime * speed`` ahead, so on a
   curve the driver does not cut the corner.
3. *Steady-state steer for that curvature*: road-wheel angle ``atan(wheelbase * kappa) +
   understeerGradient * speed**2 * kappa``, less the *integral action* (``lateralIntegralGain``
   times the integral of the CG's offset from the path, bounded by ``maxLateralIntegral``),
   times ``steeringRatio``, is the steering-wheel angle the driver wants. A proportional law
   needs a lasting offset to hold a lasting steer; the integral lets the driver hold the
   path against a steady yaw moment (split-mu braking, a side wind).
4. *The driver's own dynamics*: a first-order lag of time constant ``lagTime`` (reaction
   and neuromuscular lag), then the rate limit ``maxSteeringRate`` and the angle limit
   ``maxSteeringAngle``.

Speed: a PI controller on ``targetSpeed - speed`` gives a demand in -1..1; a positive one is
the throttle, a negative one times ``maxBrakeForce`` the brake pedal force. After
``brakeTime`` the driver stops: throttle 0, pedal ``emergencyBrakeForce``, neutral gear,
while it keeps steering along the path. Gear: the highest gear that keeps the engine above
``downshiftSpeed`` and the lowest that keeps it below ``upshiftSpeed``, from the wheel speed
``speed / tireRadius`` and the drivetrain ratios, at most one shift per ``shiftDelay``;
an engine speed far outside that band (above 1.2 ``upshiftSpeed``, below half
``downshiftSpeed``) picks the gear nearest the band's middle at once.

The path is a table of earth-fixed X, Y points (:class:`Path`, :func:`load_path`). Before its
first and after its last point it continues straight along the end segments; a path whose
last point meets its first is closed (a circle course) and wraps around.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field, fields
from pathlib import Path as FilePath
from typing import Optional, Union

import numpy as np

#: Where the standard courses live (``<name>.csv``); see :mod:`simon_fmu.controllers.courses`.
COURSE_DIR = FilePath(__file__).with_name("courses")
#: The standard courses, numbered from 1 in this order by the driver FMU's ``course``.
COURSES = ("iso3888-1", "iso3888-2", "circle", "straight")


class PathError(ValueError):
    """A path table cannot be used (the message says which file and why)."""


class Path:
    """An earth-fixed polyline of X, Y points (m) with arc-length look-ups.

    Parameters:
        x, y: the points, at least two, consecutive points distinct.
        closed: the path wraps around (default: when the last point is within 1 mm of the
            first).
    """

    def __init__(self, x, y, closed: Optional[bool] = None):
        x, y = np.asarray(x, float), np.asarray(y, float)
        if x.ndim != 1 or x.shape != y.shape or len(x) < 2:
            raise PathError("a path needs at least two X, Y points")
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise PathError("path points must be finite numbers")
        if closed is None:
            closed = len(x) > 2 and math.hypot(x[-1] - x[0], y[-1] - y[0]) < 1e-3
        if closed and math.hypot(x[-1] - x[0], y[-1] - y[0]) < 1e-3:
            x, y = x[:-1], y[:-1]
        if closed:
            x, y = np.append(x, x[0]), np.append(y, y[0])
        seg = np.hypot(np.diff(x), np.diff(y))
        if (seg <= 0.0).any():
            raise PathError("consecutive path points must differ")
        self.x, self.y, self.closed = x, y, bool(closed)
        self.s = np.concatenate([[0.0], np.cumsum(seg)])
        self.length = float(self.s[-1])
        self._heading = np.unwrap(np.arctan2(np.diff(y), np.diff(x)))

    def heading(self, s: float) -> float:
        """Direction of the path at arc length ``s`` (rad from X, positive towards Y)."""
        s = self._wrap(s)
        i = int(np.clip(np.searchsorted(self.s, s, side="right") - 1, 0, len(self.s) - 2))
        return float(self._heading[i])

    def curvature(self, s: float, half_width: float = 1.0) -> float:
        """Mean curvature (1/m, positive turning right) over ``s +- half_width``."""
        a, b = s - half_width, s + half_width
        turn = self.heading(b) - self.heading(a)
        if self.closed:
            turn += 2.0 * math.pi * (math.floor(b / self.length) - math.floor(a / self.length))
        turn = (turn + math.pi) % (2.0 * math.pi) - math.pi
        return turn / (b - a)

    def _wrap(self, s: float) -> float:
        return s % self.length if self.closed else s

    def point(self, s: float) -> tuple[float, float]:
        """The point at arc length ``s`` (m), continued straight beyond an open path's ends."""
        s = self._wrap(s)
        i = int(np.clip(np.searchsorted(self.s, s) - 1, 0, len(self.s) - 2))
        t = (s - self.s[i]) / (self.s[i + 1] - self.s[i])
        return (float(self.x[i] + t * (self.x[i + 1] - self.x[i])),
                float(self.y[i] + t * (self.y[i + 1] - self.y[i])))

    def locate(self, px: float, py: float, near: Optional[float] = None,
               behind: float = 5.0, ahead: float = 30.0) -> tuple[float, float]:
        """(arc length, signed lateral offset) of the path point nearest (px, py).

        With ``near`` only the segments from ``near - behind`` to ``near + ahead`` are
        searched; the offset is positive when the point lies right of the path (SAE: y right).
        """
        n = len(self.s) - 1
        if near is None:
            idx = np.arange(n)
        else:
            lo, hi = near - behind, near + ahead
            if self.closed:
                idx = np.arange(n)
                ds = (self.s[:-1] - lo) % self.length
                idx = idx[(ds <= hi - lo) | ((self.s[1:] - lo) % self.length <= hi - lo)]
            else:
                idx = np.arange(int(np.clip(np.searchsorted(self.s, lo) - 1, 0, n - 1)),
                                int(np.clip(np.searchsorted(self.s, hi) + 1, 1, n)))
            if len(idx) == 0:
                idx = np.arange(n)
        x0, y0 = self.x[idx], self.y[idx]
        dx, dy = self.x[idx + 1] - x0, self.y[idx + 1] - y0
        seg2 = dx * dx + dy * dy
        t = ((px - x0) * dx + (py - y0) * dy) / seg2
        first, last = idx == 0, idx == n - 1
        lo_t = np.where(first & ~np.bool_(self.closed), -np.inf, 0.0)
        hi_t = np.where(last & ~np.bool_(self.closed), np.inf, 1.0)
        t = np.clip(t, lo_t, hi_t)
        cx, cy = x0 + t * dx, y0 + t * dy
        d2 = (px - cx) ** 2 + (py - cy) ** 2
        k = int(np.argmin(d2))
        seg = math.sqrt(seg2[k])
        s = float(self.s[idx[k]] + t[k] * seg)
        cross = (dx[k] * (py - cy[k]) - dy[k] * (px - cx[k])) / seg
        return self._wrap(s), float(cross)


def load_path(source: Union[str, FilePath]) -> Path:
    """A :class:`Path` from a CSV file of X, Y columns (m), or a standard course's name.

    The file has a header row naming the columns ``X`` and ``Y`` (any other columns are
    ignored); a bare name without ``.csv`` (``iso3888-2``) is looked up in
    :data:`COURSE_DIR`.
    """
    source = FilePath(source)
    if source.suffix.lower() != ".csv" and not source.exists():
        source = COURSE_DIR / f"{source.name}.csv"
    try:
        with open(source, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as exc:
        raise PathError(f"{source}: cannot read the path ({exc.strerror})") from None
    if not rows:
        raise PathError(f"{source}: empty path file")
    header = [h.strip() for h in rows[0]]
    if "X" not in header or "Y" not in header:
        raise PathError(f"{source}: the header row must name the columns X and Y")
    ix, iy = header.index("X"), header.index("Y")
    try:
        xy = np.array([(float(r[ix]), float(r[iy])) for r in rows[1:] if r], float)
    except (ValueError, IndexError):
        raise PathError(f"{source}: every row needs numbers in the X and Y columns") from None
    try:
        return Path(xy[:, 0], xy[:, 1]) if len(xy) else Path([], [])
    except PathError as exc:
        raise PathError(f"{source}: {exc}") from None


@dataclass
class DriverParams:
    """The driver's parameters (SI). The first six describe the vehicle and have no default:
    the driver FMU's build takes them from the vehicle's event
    (:func:`simon_fmu.controllers.vehicle_data.driver_starts`); the defaults of the others
    describe the driver."""

    wheelbase: float                       # m
    steeringRatio: float                   # steering-wheel angle : road-wheel angle
    understeerGradient: float              # rad per m/s^2 of lateral acceleration
    tireRadius: float                      # m, rolling radius of the driven wheels
    finalDriveRatio: float
    gearRatios: tuple                      # transmission ratios of gears 1..n
    targetSpeed: float = 60.0 / 3.6        # m/s
    previewTime: float = 0.55              # s, aim point ahead at this time
    minPreview: float = 4.0                # m, shortest preview distance
    lagTime: float = 0.06                  # s, first-order steering lag
    feedforwardTime: float = 0.15          # s, path curvature taken this far ahead
    lateralIntegralGain: float = 0.05      # rad of road-wheel angle per m s of path offset
    maxLateralIntegral: float = 0.1        # rad of road-wheel angle, bound of that term
    maxSteeringAngle: float = 7.85         # rad at the steering wheel (450 deg)
    maxSteeringRate: float = 20.0          # rad/s at the steering wheel
    speedGain: float = 0.3                 # demand per m/s of speed error
    speedIntegralGain: float = 0.1         # demand per m of integrated speed error
    maxBrakeForce: float = 300.0           # N of pedal force at demand -1
    brakeTime: float = 1.0e9               # s, start of an emergency stop (never by default)
    emergencyBrakeForce: float = 1000.0    # N, pedal force of the emergency stop
    upshiftSpeed: float = 4500.0 * math.pi / 30.0    # rad/s of engine speed (4500 rpm)
    downshiftSpeed: float = 1500.0 * math.pi / 30.0  # rad/s (1500 rpm)
    shiftDelay: float = 0.5                # s between two shifts

    def problems(self) -> list[str]:
        """Every parameter that is out of its range, with what it accepts."""
        out = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "gearRatios":
                if not value or any(not (math.isfinite(r) and r > 0) for r in value):
                    out.append("gearRatios: one or more positive ratios")
            elif not math.isfinite(value):
                out.append(f"{f.name}: a finite number (got {value!r})")
        positive = ("previewTime", "minPreview", "steeringRatio", "wheelbase",
                    "maxSteeringAngle", "maxSteeringRate", "tireRadius", "finalDriveRatio")
        out += [f"{k}: a value > 0 (got {getattr(self, k)!r})" for k in positive
                if not getattr(self, k) > 0]
        nonneg = ("targetSpeed", "lagTime", "feedforwardTime", "lateralIntegralGain",
                  "maxLateralIntegral", "speedGain", "speedIntegralGain", "maxBrakeForce",
                  "emergencyBrakeForce", "shiftDelay")
        out += [f"{k}: a value >= 0 (got {getattr(self, k)!r})" for k in nonneg
                if not getattr(self, k) >= 0]
        if not self.upshiftSpeed > self.downshiftSpeed > 0:
            out.append("upshiftSpeed, downshiftSpeed: 0 < downshiftSpeed < upshiftSpeed")
        return out


@dataclass
class DriverOutputs:
    """The controls the driver applies (the vehicle's inputs)."""

    steeringWheelAngle: float = 0.0   # rad, positive steers right
    throttle: float = 0.0             # 0..1
    brakePedalForce: float = 0.0      # N
    gear: int = 0                     # -1 reverse, 0 neutral, 1..n


@dataclass
class DriverState:
    """Everything that evolves in a :class:`Driver` (a full copy gives a restart point)."""

    time: float = 0.0
    s: Optional[float] = None          # arc length of the nearest path point, m
    last_xy: Optional[tuple] = None    # previous CG position, for the course angle
    steer: float = 0.0                 # lagged, limited steering-wheel angle, rad
    speed_integral: float = 0.0        # m
    gear: int = 0
    last_shift: float = -1.0e9         # s
    lateral_error: float = 0.0         # m, CG offset from the path (positive right)
    lateral_integral: float = 0.0      # rad of road-wheel angle, the integral action
    outputs: DriverOutputs = field(default_factory=DriverOutputs)


class Driver:
    """The path-following driver (see the module docstring for the control laws).

    Parameters:
        path: the :class:`Path` to follow.
        params: :class:`DriverParams`.
    """

    def __init__(self, path: Path, params: DriverParams):
        self.path = path
        self.params = params
        problems = self.params.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.state = DriverState()

    # ------------------------------------------------------------------ gear
    def _engine_speed(self, speed: float, gear: int) -> float:
        p = self.params
        return abs(speed) / p.tireRadius * p.finalDriveRatio * p.gearRatios[gear - 1]

    def _initial_gear(self, speed: float) -> int:
        p = self.params
        middle = 0.5 * (p.upshiftSpeed + p.downshiftSpeed)
        return min(range(1, len(p.gearRatios) + 1),
                   key=lambda g: abs(self._engine_speed(speed, g) - middle))

    def _select_gear(self, t: float, speed: float) -> int:
        p, st = self.params, self.state
        if st.gear <= 0:   # the first choice is no shift: a wrong one is corrected at once
            st.gear = self._initial_gear(speed)
            return st.gear
        if t - st.last_shift < p.shiftDelay:
            return st.gear
        w = self._engine_speed(speed, st.gear)
        if w > 1.2 * p.upshiftSpeed or w < 0.5 * p.downshiftSpeed:   # far off: skip gears
            gear = self._initial_gear(speed)
            if gear != st.gear:
                st.gear, st.last_shift = gear, t
        elif w > p.upshiftSpeed and st.gear < len(p.gearRatios):
            st.gear, st.last_shift = st.gear + 1, t
        elif w < p.downshiftSpeed and st.gear > 1:
            st.gear, st.last_shift = st.gear - 1, t
        return st.gear

    # ------------------------------------------------------------------ step
    def step(self, t: float, dt: float, x: float, y: float, yaw: float,
             speed: float) -> DriverOutputs:
        """Read the vehicle at time ``t`` (X, Y in m, yaw in rad, speed in m/s) and return
        the controls for the interval ``t .. t + dt``."""
        p, st = self.params, self.state
        # 1. where on the path; a jump (a restart elsewhere) searches the whole path again
        if st.last_xy is not None and math.hypot(x - st.last_xy[0], y - st.last_xy[1]) \
                > 10.0 + abs(speed) * dt:
            st.s = st.last_xy = None
        st.s, st.lateral_error = self.path.locate(x, y, st.s, ahead=30.0 + abs(speed) * dt)
        # the course angle from the travelled displacement, the yaw when it is too short
        course = yaw
        if st.last_xy is not None:
            dx, dy = x - st.last_xy[0], y - st.last_xy[1]
            if math.hypot(dx, dy) > 1e-3:
                course = math.atan2(dy, dx)
        st.last_xy = (x, y)
        # 2. preview: pure-pursuit curvature to the aim point
        v = max(abs(speed), 0.1)
        L = max(p.minPreview, p.previewTime * v)
        ax, ay = self.path.point(st.s + L)
        ex, ey = ax - x, ay - y
        e_v = -math.sin(course) * ex + math.cos(course) * ey     # right of the course
        px, py = self.path.point(st.s)
        theta = self.path.heading(st.s)
        e_p = -math.sin(theta) * (ax - px) + math.cos(theta) * (ay - py)
        kappa = self.path.curvature(st.s + p.feedforwardTime * v) \
            + 2.0 * (e_v - e_p) / (L * L)
        # 3. steady-state steering-wheel angle for that curvature
        delta = math.atan(p.wheelbase * kappa) + p.understeerGradient * v * v * kappa \
            - st.lateral_integral
        st.lateral_integral = min(max(st.lateral_integral + p.lateralIntegralGain
                                      * st.lateral_error * dt, -p.maxLateralIntegral),
                                  p.maxLateralIntegral)
        wanted = p.steeringRatio * delta
        # 4. lag, rate and angle limits
        if dt > 0:
            lagged = st.steer + (wanted - st.steer) * (
                1.0 - math.exp(-dt / p.lagTime) if p.lagTime > 0 else 1.0)
            step_limit = p.maxSteeringRate * dt
            st.steer += min(max(lagged - st.steer, -step_limit), step_limit)
        st.steer = min(max(st.steer, -p.maxSteeringAngle), p.maxSteeringAngle)

        out = DriverOutputs(steeringWheelAngle=st.steer)
        if t >= p.brakeTime:
            out.brakePedalForce, out.gear = p.emergencyBrakeForce, 0
        else:
            error = p.targetSpeed - speed
            demand = p.speedGain * error + p.speedIntegralGain * st.speed_integral
            if -1.0 < demand < 1.0 or demand * error < 0:   # anti-windup
                st.speed_integral += error * dt
            demand = min(max(demand, -1.0), 1.0)
            out.throttle = max(demand, 0.0)
            out.brakePedalForce = max(-demand, 0.0) * p.maxBrakeForce
            out.gear = self._select_gear(t, speed)
        st.time, st.outputs = t + dt, out
        return out
