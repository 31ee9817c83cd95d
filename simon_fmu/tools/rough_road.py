"""ISO 8608 random road profiles, written as an OpenCRG road (``python -m simon_fmu rough-road``).

ISO 8608:2016 (Mechanical vibration - Road surface profiles - Reporting of measured data)
describes a road's longitudinal profile by the one-sided power spectral density of its
elevation over the spatial frequency n (cycles/m), a straight line on log-log axes:

    Gd(n) = Gd(n0) (n / n0)^-w,   n0 = 0.1 cycles/m,  w = 2,

and classes the roads by Gd(n0): A (below 32e-6 m^3), B (32e-6 to 128e-6), C (to 512e-6),
D (to 2048e-6), ...; a road of a class here takes the class's geometric mean, A 16e-6, B 64e-6,
C 256e-6, D 1024e-6 m^3 (:data:`CLASSES`). The standard's notes put the useful band of an
on-road vehicle between 0.01 cycles/m (100 m waves) and 10 cycles/m (0.1 m, where the tire's
enveloping filters the road): :data:`BAND`.

The profile is a sum of cosines with random phases (:class:`RoughRoad`),

    z(s) = sum_k A_k cos(2 pi n_k s + phi_k),   A_k^2 / 2 = integral of Gd over the line's bin,

over the lines n_k = k / P (k whole, n_k in the band): each line carries the PSD's power over
its bin, n_k -+ 1 / (2 P), the two end lines the half of it inside the band. Inside, that is
Gd(n_k) / P / (1 - (2 n_k P)^-2): 2.9 % above the line's own PSD at the second line of a 200 m
period, falling as 1 / k^2. The road repeats every P (the period, by default its length), and
over one period its mean square is exactly sum_k A_k^2 / 2, the PSD's integral over the band
(the response of a linear vehicle likewise, line by line: tests/support/quarter_car.py). The
phases are uniform in [0, 2 pi) from numpy's ``default_rng(seed)``: a seed gives the same road
every time, and the classes of one seed are the same road scaled (B is A times 2, C times 4,
D times 8).

:func:`write_crg` writes it as an ASCII OpenCRG file (LDFI, 20 characters a value, so that a
class A road's micrometres are kept): a straight reference line along its u, the profile
z(u) on every long section across the road (both wheel tracks see the same profile), sampled
every ``step`` along u (at least four samples per shortest wave); the engine triangulates it,
so between the samples the road is linear (docs/equations.md, "Rough roads (ISO 8608)").
"""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Gd(n0) of each class, m^3: the geometric mean of its range in ISO 8608:2016
CLASSES = {"A": 16e-6, "B": 64e-6, "C": 256e-6, "D": 1024e-6}
#: the reference spatial frequency, cycles/m, and the PSD's slope
N0, W = 0.1, 2.0
#: the spatial band synthesised by default, cycles/m (ISO 8608:2016's notes for on-road vehicles)
BAND = (0.01, 10.0)
#: at least this many samples per wave at the band's top (the road is linear between samples)
SAMPLES_PER_WAVE = 4
#: the first line of every file this module writes (what ``-o`` may replace)
SIGNATURE = "ISO 8608 rough road"


def iso_psd(n, road_class: str):
    """Gd(n) of the class, m^3 (n in cycles/m)."""
    return CLASSES[road_class] * (np.asarray(n, dtype=float) / N0) ** -W


def band_power(n, road_class: str):
    """An antiderivative of Gd over n, m^2: Gd(n0) n0^2 (-1 / n) for w = 2. Its difference
    between two spatial frequencies is the PSD's power between them."""
    return -CLASSES[road_class] * N0 ** W / np.asarray(n, dtype=float)


@dataclass(frozen=True)
class RoughRoad:
    """The profile z(s) (m, up) of an ISO 8608 road: its lines n (cycles/m), amplitudes (m)
    and phases (rad)."""
    road_class: str
    seed: int
    period: float
    band: tuple[float, float]
    n: np.ndarray
    amplitude: np.ndarray
    phase: np.ndarray

    def elevation(self, s) -> np.ndarray:
        """z at the distances ``s`` (m) along the road: on evenly spaced distances whose
        spacing divides the period, by one inverse FFT over the period (:meth:`_on_grid`);
        else line by line (:meth:`direct`)."""
        s = np.asarray(s, dtype=float)
        flat = s.ravel()
        z = self._on_grid(flat)
        return (z if z is not None else self.direct(flat)).reshape(s.shape)

    def direct(self, s) -> np.ndarray:
        """z at the distances ``s`` (m), summed line by line: sum A_k cos(2 pi n_k s + phi_k)."""
        s = np.asarray(s, dtype=float)
        flat = s.ravel()
        z = np.empty_like(flat)
        chunk = max(1, 4_000_000 // len(self.n))
        for i in range(0, len(flat), chunk):
            arg = 2 * math.pi * np.outer(flat[i:i + chunk], self.n) + self.phase
            z[i:i + chunk] = np.cos(arg) @ self.amplitude
        return z.reshape(s.shape)

    def _on_grid(self, s: np.ndarray):
        """z on s_j = s_0 + j h, when h is P / M for a whole M above twice the highest line
        k / P, and every s_j is within 1e-10 / n_max of s_0 + j h (a phase error below 1e-9
        rad); else None. Then z_j = Re sum_k c_k exp(2 pi i k j / M) with
        c_k = A_k exp(i (phi_k + 2 pi n_k s_0)): M times the inverse DFT of the c_k, taken
        j mod M (the road repeats every P)."""
        if len(s) < 16 or not np.all(np.isfinite(s)):
            return None
        h = (s[-1] - s[0]) / (len(s) - 1)
        whole = round(self.period / h) if h > 0 else 0
        k = np.rint(self.n * self.period).astype(np.int64)
        if whole <= 2 * k[-1] or abs(self.period / h - whole) > 1e-9 * whole:
            return None
        h = self.period / whole
        j = np.arange(len(s))
        if np.max(np.abs(s - (s[0] + j * h))) > 1e-10 / self.n[-1]:
            return None
        c = np.zeros(whole, dtype=complex)
        c[k] = self.amplitude * np.exp(1j * (self.phase + 2 * math.pi * self.n * s[0]))
        return (np.fft.ifft(c) * whole).real[j % whole]

    @property
    def mean_square(self) -> float:
        """The profile's mean square over a period, m^2: sum A^2 / 2."""
        return float(np.sum(self.amplitude ** 2) / 2)


def problems(road_class="B", length=400.0, seed=1, step=0.02, width=4.0, band=BAND,
             period=None) -> list[tuple[str, str]]:
    """What is wrong with the arguments, as (argument, what it accepts and got) pairs."""
    from engine.setup.terrain_crg import MAX_TRIANGLES
    found = []

    def number(value) -> bool:
        return isinstance(value, numbers.Real) and not isinstance(value, bool) \
            and math.isfinite(value)

    if road_class not in CLASSES:
        found.append(("class", f"one of {', '.join(CLASSES)} (got {road_class!r})"))
    for name, value in (("length", length), ("step", step), ("width", width)):
        if not number(value) or value <= 0:
            found.append((name, f"a number > 0 (got {value!r})"))
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0:
        found.append(("seed", f"a whole number >= 0 (got {seed!r})"))
    low, high = band if len(band) == 2 else (None, None)
    if not (number(low) and number(high) and 0 < low < high):
        found.append(("band", f"two spatial frequencies 0 < low < high, cycles/m (got {band!r})"))
        return found
    if period is not None and (not number(period) or period < 1.0 / low):
        found.append(("period", f"a length >= 1 / the band's low = {1.0 / low:g} m (default: "
                                f"the road's length, at least that) (got {period!r})"))
    if number(step) and step > 0 and step > 1.0 / (SAMPLES_PER_WAVE * high):
        found.append(("step", f"at most {1.0 / (SAMPLES_PER_WAVE * high):g} m "
                              f"({SAMPLES_PER_WAVE} samples a wave at {high:g} cycles/m) "
                              f"(got {step!r})"))
    elif not found and 2 * 2 * max(1, round(length / step)) > MAX_TRIANGLES:
        found.append(("length", f"at most {MAX_TRIANGLES // 4 * step:g} m at a step of "
                                f"{step:g} m (the engine reads at most {MAX_TRIANGLES} "
                                f"triangles) (got {length!r})"))
    return found


def rough_road(road_class: str, length: float = 400.0, seed: int = 1, band=BAND,
               period=None) -> RoughRoad:
    """The road of ``road_class`` and ``seed``: lines k / P over ``band``, P the ``period``
    (default: ``length``, at least 1 / band's low)."""
    _check(road_class=road_class, length=length, seed=seed, band=band, period=period)
    low, high = band
    period = float(period if period is not None else max(length, 1.0 / low))
    k = np.arange(math.ceil(low * period - 1e-9), math.floor(high * period + 1e-9) + 1)
    n = k / period
    edges = np.clip(np.concatenate([n - 0.5 / period, n[-1:] + 0.5 / period]), low, high)
    amplitude = np.sqrt(2.0 * np.diff(band_power(edges, road_class)))
    phase = np.random.default_rng(seed).uniform(0.0, 2 * math.pi, len(n))
    return RoughRoad(road_class, seed, period, (float(low), float(high)), n, amplitude, phase)


def _check(**arguments) -> None:
    found = problems(**arguments)
    if found:
        raise ValueError("; ".join(f"{name}: {what}" for name, what in found))


def write_crg(path, road: RoughRoad, length: float = 400.0, step: float = 0.02,
              width: float = 4.0) -> Path:
    """Write ``road`` over ``length`` m as an ASCII (LDFI) OpenCRG file at ``path``: u from 0
    to ``length`` in cells of about ``step`` (length / round(length / step)), three long
    sections across ``width`` (v = -width/2, 0, width/2), each holding z(u). Returns the path."""
    _check(road_class=road.road_class, length=length, step=step, width=width, band=road.band,
           period=road.period)
    n_u = max(1, round(length / step))
    u = np.linspace(0.0, length, n_u + 1)
    z = road.elevation(u)
    v = (-width / 2, 0.0, width / 2)
    low, high = road.band
    head = ["$CT", f"{SIGNATURE}: class {road.road_class} (Gd(n0) = "
                   f"{CLASSES[road.road_class]:g} m^3, n0 = {N0:g} cycles/m, w = {W:g}), "
                   f"seed {road.seed}",
            f"{len(road.n)} cosines with random phases at k / {road.period:g} m over "
            f"{low:g} to {high:g} cycles/m; rms {math.sqrt(road.mean_square) * 1e3:.3f} mm",
            "written by python -m simon_fmu rough-road (simon_fmu/tools/rough_road.py)", "$",
            "$ROAD_CRG",
            "REFERENCE_LINE_START_U = 0.0", f"REFERENCE_LINE_END_U = {float(length)!r}",
            f"REFERENCE_LINE_INCREMENT = {float(u[1] - u[0])!r}",
            "REFERENCE_LINE_START_X = 0.0", "REFERENCE_LINE_START_Y = 0.0",
            "REFERENCE_LINE_START_PHI = 0.0", "REFERENCE_LINE_END_PHI = 0.0",
            f"LONG_SECTION_V_RIGHT = {v[0]!r}", f"LONG_SECTION_V_LEFT = {v[-1]!r}",
            f"LONG_SECTION_V_INCREMENT = {v[1] - v[0]!r}", "$",
            "$KD_DEFINITION", "#:LDFI", "U:reference line u,m"]
    head += [f"D:long section at v = {vj:g},m" for vj in v]
    head += ["$", "$" * 80]
    # 20 characters a value: a row of three sections is one record of 60 characters
    rows = [f"{x:20.12e}" * len(v) for x in z.tolist()]
    from ..runtime.packaging import partial_path
    path = Path(path)
    partial = partial_path(path)
    partial.write_text("\n".join(head + rows) + "\n")
    os.replace(partial, path)
    return path


def not_a_rough_road(path: Path):
    """None when ``path`` is a file this module wrote (what ``-o`` may replace), else why not."""
    with open(path, "rb") as f:
        head = f.read(200).decode("ascii", errors="replace").splitlines()
    if len(head) > 1 and head[0].strip() == "$CT" and head[1].startswith(SIGNATURE):
        return None
    return "exists and is not a rough road this command wrote (an OpenCRG file)"


def main(args) -> int:
    """``python -m simon_fmu rough-road``: write the road the arguments describe."""
    from ..runtime.packaging import check_output
    check_output(args.output, (), not_a_rough_road)
    road = rough_road(args.road_class, args.length, args.seed, tuple(args.band), args.period)
    path = write_crg(args.output, road, args.length, args.step, args.width)
    print(f"{path}: ISO 8608 class {road.road_class}, seed {road.seed}, {args.length:g} m "
          f"(period {road.period:g} m), {len(road.n)} cosines over {road.band[0]:g} to "
          f"{road.band[1]:g} cycles/m, rms {math.sqrt(road.mean_square) * 1e3:.2f} mm")
    return 0
