"""The collision pulse of a run, as crash tests and event data recorders report it.

``python -m simon_fmu pulse HISTORY.csv --unit car [--point X Y Z] -o OUT_DIR`` reads a time
history of the vehicle FMU's outputs (a CSV with a names row, and optionally a units row as the
studies write it, :mod:`simon_fmu.studies.tables`; fmpy's ``write_csv`` writes one without) and
writes into OUT_DIR:

* ``pulse.csv``: the acceleration pulse in the vehicle frame (x forward, y right, z down, SAE
  J670; gravity excluded, as the FMU's ``<unit>.ax``/``ay``/``az``) at the CG and, with
  ``--point``, at that vehicle-fixed point (an occupant seat, the event data recorder), each
  unfiltered and filtered with the SAE J211-1 channel frequency classes CFC 60 and CFC 180,
  and the longitudinal and lateral delta-V at the recorder (the point, else the CG) from time
  zero;
* ``edr.csv``: the delta-V in the layout of an event data recorder (49 CFR 563, Table I):
  longitudinal and lateral delta-V every 10 ms from 0 to 250 ms after time zero (or to the end
  of the event plus 30 ms, whichever is shorter), at 1 km/h resolution;
* ``summary.json``: time zero and the end of the event (49 CFR 563.5), the maximum
  longitudinal, lateral and resultant delta-V and their times (0 to 300 ms), the collision's
  delta-V over its impulse phase, its principal direction of force (PDOF, degrees and clock
  direction), its duration, and the peak accelerations.

The columns it needs are ``time`` and the unit's ``ax``, ``ay``, ``az``, ``p``, ``q``, ``r``,
``collision.contact``, ``collision.Fx`` and ``collision.Fy``, at a constant time step.

Definitions (docs/equations.md, "The collision pulse"):

* the acceleration at a vehicle-fixed point r from the CG is a_P = a_CG + w' x r + w x (w x r),
  w = (p, q, r) and w' its rate by central differences of the history;
* the CFC filter is SAE J211-1's (Appendix C; ISO 6487): a two-pole Butterworth low-pass
  with w_d = 2 pi CFC 2.0775, w_a = tan(w_d T / 2) (T the sample interval), run forward and
  then backward, so a four-pole filter without phase shift whose gain at f is
  1 / (1 + (tan(pi f T) / w_a)^4); the ends are extended by the first and last values for
  :data:`PAD_S` before filtering. A class is computed only when the sample rate is at least
  six times its -3 dB frequency 1.6667 CFC (600 Hz for CFC 60, 1800 Hz for CFC 180);
* time zero is 49 CFR 563.5's for a continuously running algorithm: the start of the first
  20 ms over which the longitudinal delta-V exceeds 0.8 km/h, or of the first 5 ms over which
  the lateral one does, whichever is earlier; the end of the event is the first time after
  time zero from which the delta-V over the next 20 ms is 0.8 km/h or less in both directions;
* the impulse phase is the first contact episode: from the first sample with
  ``collision.contact`` to the last one before the contact has been off for
  :data:`GAP_S` (our interpretation); its duration is between those samples, and its PDOF is
  the direction the collision impulse (the integral of ``collision.Fx``, ``collision.Fy``)
  comes from: 0 deg (12 o'clock) for a force pushing the vehicle rearward, 90 deg (3 o'clock)
  for one pushing it to the left, clockwise seen from above.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Mapping, Optional, Sequence

import numpy as np
from scipy.integrate import cumulative_trapezoid, trapezoid

from engine.collision import IMPULSE_GAP

#: the channel frequency classes computed (SAE J211-1)
CLASSES = (60, 180)
#: SAE J211-1 Appendix C: w_d = 2 pi CFC J211_FACTOR
J211_FACTOR = 2.0775
#: the -3 dB frequency of the forward-backward filter, in CFC (SAE J211-1: F_H = 1.667 CFC)
F3DB_PER_CFC = 5.0 / 3.0
#: the sample rate a class needs, in its -3 dB frequency
MIN_RATE_PER_F3DB = 6.0
#: s of the first and last values added at each end before filtering
PAD_S = 0.05
#: 49 CFR 563.5: the delta-V that starts and ends an event (km/h), and its windows (s)
EVENT_DV_KMH = 0.8
WINDOW_LONG_S, WINDOW_LAT_S = 0.020, 0.005
#: 49 CFR 563, Table I: delta-V every 10 ms from 0 to 250 ms, its maximum within 300 ms
EDR_STEP_S, EDR_END_S, EDR_MAX_S, EDR_AFTER_END_S = 0.010, 0.250, 0.300, 0.030
#: the resolution of the recorded delta-V (km/h) and of the time of its maximum (s)
EDR_DV_RESOLUTION_KMH, EDR_TIME_RESOLUTION_S = 1.0, 0.0025
#: 49 CFR 563, Table III: the range of the recorded delta-V (km/h)
EDR_DV_RANGE_KMH = 100.0
#: s without contact that end the impulse phase (the FMU's collision.duration's)
GAP_S = IMPULSE_GAP
KMH = 3.6
#: the unit's outputs the pulse is computed from
COLUMNS = ("ax", "ay", "az", "p", "q", "r", "collision.contact", "collision.Fx", "collision.Fy")


class PulseError(ValueError):
    """The history cannot give a pulse; the message names the column or argument and why."""


def cfc_coefficients(cfc: float, dt: float) -> tuple[float, float, float, float, float]:
    """(a0, a1, a2, b1, b2) of SAE J211-1's two-pole filter of class ``cfc`` at sample interval
    ``dt``: y[n] = a0 x[n] + a1 x[n-1] + a2 x[n-2] + b1 y[n-1] + b2 y[n-2]."""
    wd = 2.0 * math.pi * cfc * J211_FACTOR
    wa = math.tan(wd * dt / 2.0)
    den = 1.0 + math.sqrt(2.0) * wa + wa * wa
    a0 = wa * wa / den
    b1 = -2.0 * (wa * wa - 1.0) / den
    b2 = (-1.0 + math.sqrt(2.0) * wa - wa * wa) / den
    return a0, 2.0 * a0, a0, b1, b2


def _two_pole(x: np.ndarray, c) -> np.ndarray:
    a0, a1, a2, b1, b2 = c
    y = np.empty_like(x)
    y[0], y[1] = x[0], x[1]       # started at rest on the first values (the padding's)
    for n in range(2, len(x)):
        y[n] = a0 * x[n] + a1 * x[n - 1] + a2 * x[n - 2] + b1 * y[n - 1] + b2 * y[n - 2]
    return y


def cfc_filter(x: Sequence[float], dt: float, cfc: float) -> np.ndarray:
    """``x`` sampled every ``dt`` s filtered with SAE J211-1's CFC ``cfc`` filter: the two-pole
    filter forward, then backward (no phase shift); the ends extended by :data:`PAD_S` of the
    first and last values."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return x.copy()
    c = cfc_coefficients(cfc, dt)
    pad = max(2, int(round(PAD_S / dt)))
    ext = np.concatenate([np.full(pad, x[0]), x, np.full(pad, x[-1])])
    y = _two_pole(ext, c)
    y = _two_pole(y[::-1], c)[::-1]
    return y[pad:pad + x.size]


def cfc_available(cfc: float, dt: float) -> bool:
    """Whether the sample rate 1/dt is at least :data:`MIN_RATE_PER_F3DB` times the class's
    -3 dB frequency."""
    return 1.0 / dt >= MIN_RATE_PER_F3DB * F3DB_PER_CFC * cfc * (1.0 - 1e-9)


def point_acceleration(a_cg: np.ndarray, omega: np.ndarray, dt: float,
                       point: Sequence[float]) -> np.ndarray:
    """a_P = a_CG + w' x r + w x (w x r) (n, 3) at the vehicle-fixed point r (m from the CG),
    w (n, 3) the body rates and w' their central differences (one-sided at the ends)."""
    r = np.asarray(point, dtype=np.float64)
    wdot = np.gradient(omega, dt, axis=0)
    return a_cg + np.cross(wdot, r) + np.cross(omega, np.cross(omega, r))


def time_zero(dvx: np.ndarray, dvy: np.ndarray, dt: float) -> Optional[int]:
    """The sample of 49 CFR 563.5's time zero: the start of the first 20 ms over which the
    longitudinal delta-V changes by more than 0.8 km/h, or of the first 5 ms for the lateral
    one, whichever is earlier; None when neither does."""
    limit = EVENT_DV_KMH / KMH
    found = []
    for dv, window in ((dvx, WINDOW_LONG_S), (dvy, WINDOW_LAT_S)):
        k = max(1, int(round(window / dt)))
        if dv.size > k:
            hit = np.flatnonzero(np.abs(dv[k:] - dv[:-k]) > limit)
            if hit.size:
                found.append(int(hit[0]))
    return min(found) if found else None


def end_of_event(dvx: np.ndarray, dvy: np.ndarray, dt: float, zero: int) -> int:
    """The first sample after ``zero`` from which the delta-V over the next 20 ms is 0.8 km/h
    or less in both directions (the last sample when there is none)."""
    limit = EVENT_DV_KMH / KMH
    k = max(1, int(round(WINDOW_LONG_S / dt)))
    n = dvx.size
    for i in range(zero + 1, n - k):
        if abs(dvx[i + k] - dvx[i]) <= limit and abs(dvy[i + k] - dvy[i]) <= limit:
            return i
    return n - 1


def impulse_phase(contact: np.ndarray, dt: float) -> Optional[tuple[int, int]]:
    """(first, last) sample of the first contact episode: contact on from ``first``, ending at
    the last contact before :data:`GAP_S` without one; None without contact."""
    on = np.flatnonzero(contact > 0.5)
    if on.size == 0:
        return None
    gap = max(1, int(round(GAP_S / dt)))
    breaks = np.flatnonzero(np.diff(on) > gap)
    last = on[breaks[0]] if breaks.size else on[-1]
    return int(on[0]), int(last)


def pdof(jx: float, jy: float) -> tuple[float, int]:
    """(degrees, clock) of the principal direction of force of the impulse (jx, jy) on the
    vehicle (vehicle frame, y right): the direction it comes from, clockwise from straight
    ahead seen from above, 0 <= deg < 360, clock 1..12 (12 straight ahead)."""
    deg = math.degrees(math.atan2(-jy, -jx)) % 360.0
    clock = int(round(deg / 30.0)) % 12
    return deg, 12 if clock == 0 else clock


def _kmh(v: float) -> float:
    """A delta-V (m/s) as the recorder keeps it: km/h at its resolution, within its range."""
    x = round(v * KMH / EDR_DV_RESOLUTION_KMH) * EDR_DV_RESOLUTION_KMH
    return float(min(EDR_DV_RANGE_KMH, max(-EDR_DV_RANGE_KMH, x))) + 0.0


def collision_pulse(data: Mapping[str, np.ndarray], unit: str,
                    point: Optional[Sequence[float]] = None) -> dict:
    """The pulse of ``unit`` from the history ``data`` ({column name: array}, ``time``
    included); see the module's docstring. Returns {"columns": {name: (unit, array)},
    "edr": {name: (unit, array)}, "summary": {...}}. Raises :class:`PulseError`."""
    if "time" not in data:
        raise PulseError("time: the history has no column 'time'")
    need = [f"{unit}.{c}" for c in COLUMNS]
    missing = [n for n in need if n not in data]
    if missing:
        raise PulseError(f"{', '.join(missing)}: not in the history; record the unit's "
                         f"{', '.join(COLUMNS)} (is the unit named {unit!r}?)")
    t = np.asarray(data["time"], dtype=np.float64)
    if t.size < 8:
        raise PulseError(f"time: at least 8 samples (got {t.size})")
    steps = np.diff(t)
    dt = float(np.mean(steps))
    if not (dt > 0.0 and np.all(np.abs(steps - dt) <= 1e-6 * dt + 1e-12)):
        raise PulseError("time: samples at a constant step (record every communication step "
                         "of one size)")
    cols = {n: np.asarray(data[n], dtype=np.float64) for n in need}
    for n, c in cols.items():
        if not np.all(np.isfinite(c)):
            raise PulseError(f"{n}: finite values (a failed run's history?)")
    if point is not None:
        point = [float(v) for v in point]
        if len(point) != 3 or not all(math.isfinite(v) for v in point):
            raise PulseError(f"--point: three finite numbers X Y Z, m from the CG (got {point})")
    a_cg = np.column_stack([cols[f"{unit}.a{k}"] for k in "xyz"])
    omega = np.column_stack([cols[f"{unit}.{k}"] for k in "pqr"])
    places = {"cg": a_cg}
    if point is not None:
        places["point"] = point_acceleration(a_cg, omega, dt, point)
    recorder = places["point" if point is not None else "cg"]
    columns: dict = {"time": ("s", t)}
    peaks = {}
    skipped = [c for c in CLASSES if not cfc_available(c, dt)]
    for place, acc in places.items():
        for k, axis in enumerate("xyz"):
            columns[f"{place}.a{axis}"] = ("m/s2", acc[:, k])
            for c in CLASSES:
                if c in skipped:
                    continue
                f = cfc_filter(acc[:, k], dt, c)
                columns[f"{place}.a{axis}.cfc{c}"] = ("m/s2", f)
                peaks[f"{place}.a{axis}.cfc{c}"] = float(f[np.argmax(np.abs(f))])
    dvx_all, dvy_all = (cumulative_trapezoid(recorder[:, k], dx=dt, initial=0.0) for k in (0, 1))
    zero = time_zero(dvx_all, dvy_all, dt)
    summary: dict = {"unit": unit, "point": point, "sample_interval_s": dt,
                     "cfc_not_computed": {str(c): f"needs a sample rate of at least "
                                          f"{MIN_RATE_PER_F3DB * F3DB_PER_CFC * c:.0f} Hz "
                                          f"(this history's {1.0 / dt:.0f} Hz)"
                                          for c in skipped},
                     "peak_acceleration_m_s2": peaks}
    edr: dict = {}
    if zero is None:
        summary["time_zero_s"] = None
        columns["recorder.deltaVx"] = ("m/s", np.zeros_like(t))
        columns["recorder.deltaVy"] = ("m/s", np.zeros_like(t))
    else:
        dvx, dvy = dvx_all - dvx_all[zero], dvy_all - dvy_all[zero]
        dvx[:zero], dvy[:zero] = 0.0, 0.0
        columns["recorder.deltaVx"] = ("m/s", dvx)
        columns["recorder.deltaVy"] = ("m/s", dvy)
        end = end_of_event(dvx, dvy, dt, zero)
        t0 = t[zero]
        stop = min(EDR_END_S, t[end] - t0 + EDR_AFTER_END_S)
        times = np.arange(0.0, stop + 1e-9, EDR_STEP_S)
        rel = t - t0
        vx = np.interp(times, rel[zero:], dvx[zero:], right=np.nan)
        vy = np.interp(times, rel[zero:], dvy[zero:], right=np.nan)
        edr = {"time": ("ms", np.round(times * 1000.0, 6)),
               "deltaV_longitudinal": ("km/h", np.array([_kmh(v) if np.isfinite(v) else np.nan
                                                         for v in vx])),
               "deltaV_lateral": ("km/h", np.array([_kmh(v) if np.isfinite(v) else np.nan
                                                    for v in vy]))}
        window = (rel >= -1e-12) & (rel <= EDR_MAX_S + 1e-9)
        idx = np.flatnonzero(window)

        def maximum(v):
            i = idx[np.argmax(np.abs(v[idx]))]
            return {"delta_v_kmh": _kmh(v[i]), "delta_v_m_s": float(v[i]),
                    "time_ms": round(rel[i] / EDR_TIME_RESOLUTION_S) * EDR_TIME_RESOLUTION_S
                    * 1000.0}
        res = np.hypot(dvx, dvy)
        summary.update({"time_zero_s": float(t0), "end_of_event_s": float(t[end]),
                        "max_longitudinal": maximum(dvx), "max_lateral": maximum(dvy),
                        "max_resultant": maximum(res)})
    phase = impulse_phase(cols[f"{unit}.collision.contact"], dt)
    if phase is None:
        summary["collision"] = None
    else:
        first, last = phase
        sl = slice(first, last + 1)
        jx = float(trapezoid(cols[f"{unit}.collision.Fx"][sl], dx=dt))
        jy = float(trapezoid(cols[f"{unit}.collision.Fy"][sl], dx=dt))
        deg, clock = pdof(jx, jy)
        dvx_c = float(dvx_all[last] - dvx_all[first])
        dvy_c = float(dvy_all[last] - dvy_all[first])
        summary["collision"] = {
            "first_contact_s": float(t[first]), "last_contact_s": float(t[last]),
            "duration_s": float(t[last] - t[first]),
            "impulse_N_s": [jx, jy], "pdof_deg": deg, "pdof_clock": clock,
            "delta_v_m_s": [dvx_c, dvy_c], "delta_v_kmh": math.hypot(dvx_c, dvy_c) * KMH}
    return {"columns": columns, "edr": edr, "summary": summary}


def read_history(path: Path) -> dict[str, np.ndarray]:
    """A CSV of names (and an optional units row) over numbers: {name: column}."""
    try:
        with open(path, newline="") as f:
            rows = [r for r in csv.reader(f) if r]
    except OSError as exc:
        raise PulseError(f"{path}: cannot be read ({exc.strerror})") from None
    if len(rows) < 2:
        raise PulseError(f"{path}: a names row and rows of numbers")
    names = [n.strip() for n in rows[0]]

    def numbers(row):
        try:
            return [float(c) for c in row]
        except ValueError:
            return None
    body = rows[1:] if numbers(rows[1]) is not None else rows[2:]
    values = []
    for k, row in enumerate(body):
        v = numbers(row)
        if v is None or len(v) != len(names):
            raise PulseError(f"{path}: row {k + 2}: {len(names)} numbers, as the names row")
        values.append(v)
    if not values:
        raise PulseError(f"{path}: no rows of numbers")
    table = np.array(values, dtype=np.float64)
    return {n: table[:, j] for j, n in enumerate(names)}


OUTPUTS = ("pulse.csv", "edr.csv", "summary.json")


def write(result: dict, folder: Path) -> None:
    """The three files of :data:`OUTPUTS` into ``folder``, each written whole first as
    ``<name>.partial`` and renamed over the name."""
    import os
    from ..studies.tables import csv_text
    cols, edr = result["columns"], result["edr"]
    if not edr:
        edr = {"time": ("ms", np.zeros(0))}
    texts = {"pulse.csv": csv_text(list(cols), [u for u, _ in cols.values()],
                                   [c for _, c in cols.values()]),
             "edr.csv": csv_text(list(edr), [u for u, _ in edr.values()],
                                 [c for _, c in edr.values()]),
             "summary.json": json.dumps(result["summary"], indent=2) + "\n"}
    for name, text in texts.items():
        partial = folder / f"{name}.partial"
        partial.write_text(text)
        os.replace(partial, folder / name)


def main(args) -> int:
    """The ``pulse`` command."""
    import sys
    from ..runtime.packaging import OutputError, check_output
    try:
        folder = check_output(args.output, [("the history", args.history)], contents=OUTPUTS)
        result = collision_pulse(read_history(Path(args.history)), args.unit, args.point)
    except (PulseError, OutputError) as exc:
        print(f"pulse: {exc}", file=sys.stderr)
        return 2
    folder.mkdir(parents=True, exist_ok=True)
    write(result, folder)
    for c, why in result["summary"]["cfc_not_computed"].items():
        print(f"pulse: CFC {c} not computed: it {why}", file=sys.stderr)
    print(folder)
    return 0
