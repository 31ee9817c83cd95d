"""Metrics of the standard manoeuvres, computed from time histories (SI units throughout).

Each function takes plain arrays, so each can be tested against its closed form directly.
"""
from __future__ import annotations

import math

import numpy as np


def first_crossing(t: np.ndarray, y: np.ndarray, level: float, after: float = -math.inf) -> float:
    """The time at which ``y`` first reaches ``level`` at or after ``after``, linearly
    interpolated between samples; NaN if it never does."""
    idx = np.flatnonzero(t >= after)
    if idx.size == 0:
        return math.nan
    s = y[idx] - level
    sign0 = np.sign(s[0])
    if sign0 == 0:
        return float(t[idx[0]])
    hit = np.flatnonzero(np.sign(s) != sign0)
    if hit.size == 0:
        return math.nan
    j = idx[hit[0]]
    t0, t1, y0, y1 = t[j - 1], t[j], y[j - 1], y[j]
    return float(t0 + (level - y0) * (t1 - t0) / (y1 - y0))


def at(t: np.ndarray, y: np.ndarray, when: float) -> float:
    """``y`` at time ``when`` (linear interpolation); NaN outside the histories."""
    if not (t[0] <= when <= t[-1]):
        return math.nan
    return float(np.interp(when, t, y))


def stopping(t: np.ndarray, x: np.ndarray, u: np.ndarray, t_brake: float,
             stop_speed: float) -> tuple[float, float]:
    """Stopping distance and time from the brake application at ``t_brake`` to the moment
    the forward speed falls to ``stop_speed``: (s, t), NaN if the vehicle does not stop."""
    t_stop = first_crossing(t, u, stop_speed, after=t_brake)
    if math.isnan(t_stop):
        return math.nan, math.nan
    return at(t, x, t_stop) - at(t, x, t_brake), t_stop - t_brake


def mean_fully_developed_deceleration(x: np.ndarray, u: np.ndarray, v0: float) -> float:
    """Mean fully developed deceleration (UN ECE R13-H, Annex 3):

        d_m = (v_b^2 - v_e^2) / (2 (s_e - s_b)),   v_b = 0.8 v0,  v_e = 0.1 v0,

    s_b and s_e the distances travelled at v_b and v_e. ``u`` must fall monotonically
    through both speeds (a straight stop); NaN if it does not reach them."""
    vb, ve = 0.8 * v0, 0.1 * v0
    s = np.arange(u.size, dtype=float)
    ib, ie = first_crossing(s, u, vb), first_crossing(s, u, ve)
    if math.isnan(ib) or math.isnan(ie) or ie <= ib:
        return math.nan
    sb, se = np.interp(ib, s, x), np.interp(ie, s, x)
    return float((vb ** 2 - ve ** 2) / (2.0 * (se - sb)))


def slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope dy/dx; NaN with fewer than two distinct x."""
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan
    return float(np.polyfit(x, y, 1)[0])


def understeer_gradient(ay: np.ndarray, delta: np.ndarray, yaw_rate: np.ndarray, u: np.ndarray,
                        wheelbase: float) -> float:
    """Understeer gradient K (ISO 4138, rad per m/s^2 at the road wheels).

    Steady state: delta = L / R + K ay with the path curvature 1/R = r / u, so K is the
    slope of delta - L r / u over ay (samples of the linear range)."""
    return slope(ay, delta - wheelbase * yaw_rate / u)


def step_response(t: np.ndarray, steer: np.ndarray, y: np.ndarray, steady_from: float
                  ) -> dict[str, float]:
    """ISO 7401 step-steer figures of a response ``y`` to a steering ``steer`` step.

    The reference time t0 is when the steering reaches 50 % of its final value; the steady
    value is the mean of ``y`` from ``steady_from`` on. Response time: t0 to 90 % of the
    steady value; peak response time: t0 to the peak; overshoot: (peak - steady) / steady."""
    final = float(np.mean(steer[t >= steady_from]))
    t0 = first_crossing(t, steer, 0.5 * final)
    steady = float(np.mean(y[t >= steady_from]))
    sign = math.copysign(1.0, steady) if steady else 1.0
    t90 = first_crossing(t, sign * y, 0.9 * abs(steady), after=t0)
    window = t >= t0
    k = int(np.argmax(sign * y[window]))
    peak = float(y[window][k])
    return {"steady": steady, "responseTime": t90 - t0,
            "peakResponseTime": float(t[window][k] - t0),
            "overshoot": (peak - steady) / steady if steady else math.nan}


def sine_with_dwell(t, r, ay, x, y, yaw, bos: float, reversal: float, cos_: float,
                    sign: float) -> dict[str, float]:
    """FMVSS 126 figures of a sine-with-dwell run (S5.2).

    ``bos``, ``reversal`` and ``cos_`` are the beginning of steer, the moment the steering
    changes sign and the completion of steer; ``sign`` that of the first steer. The peak yaw
    rate is the largest yaw rate of the second lobe's sign (-sign) from the reversal to COS +
    1.75 s; the ratios are the yaw rate at COS + 1.0 s and COS + 1.75 s over it. The lateral
    displacement is the CG's displacement 1.07 s after BOS perpendicular to the heading at
    BOS, positive in the direction of the first steer."""
    window = (t >= reversal) & (t <= cos_ + 1.75)
    peak = float(np.max(-sign * r[window])) * -sign if window.any() else math.nan
    x0, y0, psi0 = at(t, x, bos), at(t, y, bos), at(t, yaw, bos)
    t1 = bos + 1.07
    lateral = -(at(t, x, t1) - x0) * math.sin(psi0) + (at(t, y, t1) - y0) * math.cos(psi0)
    return {"peakYawRate": peak,
            "yawRateRatio1s": at(t, r, cos_ + 1.0) / peak,
            "yawRateRatio175s": at(t, r, cos_ + 1.75) / peak,
            "lateralDisplacement": sign * lateral,
            "peakLateralAcceleration": float(np.max(np.abs(ay[t >= bos])))}


def harmonics(t: np.ndarray, y: np.ndarray, frequencies) -> np.ndarray:
    """Complex amplitudes of ``y`` at ``frequencies`` (Hz) by least squares over the
    samples, with a constant: y ~ c0 + sum_k Re(C_k) sin(w_k t) + Im(C_k) cos(w_k t), so
    C_k = |Y_k| e^(j phi_k) for a component |Y_k| sin(w_k t + phi_k). Exact for a sum of
    such sines; the window should hold whole periods of every frequency."""
    w = 2.0 * math.pi * np.asarray(frequencies, dtype=float)
    cols = [np.ones_like(t)]
    for wk in w:
        cols += [np.sin(wk * t), np.cos(wk * t)]
    coef = np.linalg.lstsq(np.column_stack(cols), y, rcond=None)[0]
    return coef[1::2] + 1j * coef[2::2]


def frequency_response(t: np.ndarray, inp: np.ndarray, out: np.ndarray, frequencies
                       ) -> tuple[np.ndarray, np.ndarray]:
    """ISO 7401 frequency response of ``out`` to ``inp``: gain |Y/U| and phase arg(Y/U)
    (rad, negative a lag, in (-pi, pi]) at each frequency, from :func:`harmonics`."""
    h = harmonics(t, out, frequencies) / harmonics(t, inp, frequencies)
    return np.abs(h), np.angle(h)


def lane_margins(corners: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """Margin (m) of a rectangular body to the cone lines of each lane, per sample.

    ``corners`` (n, 4, 2) are the body's corners (X, Y) in order around it at n samples;
    ``lanes`` (k, 4) rows of (x_start, x_end, y_left, y_right) with y_left < y_right, the
    lane's cone lines Y = y_left and Y = y_right between X = x_start and x_end (the track
    limits are tangential to the cones, ISO 3888-2 4.2). The part of the body within the
    lane's X range is the rectangle clipped to x_start <= X <= x_end, a convex polygon whose
    vertices are the corners within the range and the points where the edges cross X =
    x_start and X = x_end; its margin is the least of Y - y_left and y_right - Y over those
    vertices (the extremes of Y lie at vertices): positive inside, negative by how far the
    body crosses a cone line. Returns (n, k), +inf where no part of the body is within the
    lane's X range."""
    corners = np.asarray(corners, float)
    lanes = np.atleast_2d(np.asarray(lanes, float))
    px, py = corners[..., 0], corners[..., 1]
    qx, qy = np.roll(px, -1, axis=1), np.roll(py, -1, axis=1)
    dx = qx - px
    out = np.full((px.shape[0], lanes.shape[0]), np.inf)
    for k, (x0, x1, left, right) in enumerate(lanes):
        ys, valid = [py], [(px >= x0) & (px <= x1)]
        for c in (x0, x1):
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (c - px) / dx
            ys.append(py + t * (qy - py))
            valid.append((dx != 0) & (t >= 0.0) & (t <= 1.0))
        y, ok = np.concatenate(ys, axis=1), np.concatenate(valid, axis=1)
        margin = np.where(ok, np.minimum(y - left, right - y), np.inf)
        out[:, k] = margin.min(axis=1)
    return out


def course_result(t: np.ndarray, margins: np.ndarray, completed: bool) -> dict[str, float]:
    """Pass or fail of a run through a cone course from :func:`lane_margins`' (n, k)
    ``margins`` at times ``t``: the least margin in each lane (NaN for a lane the body never
    reached), the index (from 0) of the lane whose cone line the body crossed first and the
    time of that first hit (NaN if none); the run passes when no margin is negative and the
    body ``completed`` the course."""
    least = margins.min(axis=0)
    hit = np.flatnonzero((margins < 0.0).any(axis=1))
    first = (int(np.argmin(margins[hit[0]])), float(t[hit[0]])) if hit.size else (math.nan, math.nan)
    return {"least": np.where(np.isinf(least), math.nan, least),
            "firstLane": first[0], "firstTime": first[1],
            "passed": bool(completed and hit.size == 0)}


def point_on_unit(x: np.ndarray, y: np.ndarray, yaw: np.ndarray, ahead: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Earth X, Y of the point ``ahead`` metres ahead of the CG (X, Y) on a unit's
    longitudinal axis at heading ``yaw`` (SAE: Y right, yaw positive turning right); roll
    and pitch are neglected."""
    return x + ahead * np.cos(yaw), y + ahead * np.sin(yaw)


def fit_circle(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle through the points (algebraic fit, Kasa 1976): (centre X,
    centre Y, radius). Minimises sum (x^2 + y^2 + D x + E y + F)^2, exact for points on a
    circle; NaN with fewer than three points."""
    if x.size < 3:
        return math.nan, math.nan, math.nan
    x0, y0 = float(np.mean(x)), float(np.mean(y))      # centred: better conditioned
    xc, yc = x - x0, y - y0
    a = np.column_stack([xc, yc, np.ones_like(xc)])
    d, e, f = np.linalg.lstsq(a, -(xc ** 2 + yc ** 2), rcond=None)[0]
    cx, cy = -d / 2.0, -e / 2.0
    return float(cx + x0), float(cy + y0), float(math.sqrt(cx ** 2 + cy ** 2 - f))


def rearward_amplification(ay_lead: np.ndarray, ay_last: np.ndarray) -> tuple[float, float, float]:
    """Rearward amplification (SAE J2179): the peak absolute lateral acceleration of the last
    unit's CG over the lead unit's, over the same samples: (ratio, lead peak, last peak)."""
    lead, last = float(np.max(np.abs(ay_lead))), float(np.max(np.abs(ay_last)))
    return (last / lead if lead > 0 else math.nan), lead, last
