"""The two forms of a tire's load- and speed-dependent properties (``tires[].property_model``):
their checks across fields, and the partial-derivative form derived from a tire's tables.

``table`` (the default): the five properties of :data:`engine.setup.fields.TIRE_PROPERTIES`
are grids over ``test_loads`` x ``test_speeds``, interpolated linearly (the manual's table
look-up, ``engine.tire.properties``). ``partial_derivatives``: each is a value at a reference
load and speed with its two first derivatives (the HSRI and EDVDS method the manual says SIMON
replaced, ``engine.tire.partial_properties``). A property the partial-derivative form leaves
out (null) is derived from the tire's table: its value at the reference load and speed and the
table's slopes there (:func:`value_and_slopes`), so that an existing tire switches form with
one field and a reference.
"""
from __future__ import annotations

import numpy as np

from .. import layout as L
from .fields import TIRE, TIRE_PROPERTIES, TIRE_TABLE_FIELDS

#: the property planes of the packed tables ``TT`` and the tire fields they hold
PLANES = ((L.TP_MUP, "peak_friction"), (L.TP_MUS, "slide_friction"), (L.TP_SP, "slip_at_peak"),
          (L.TP_CA, "cornering_stiffness"), (L.TP_CG, "camber_stiffness"))
assert tuple(key for _, key in PLANES) == TIRE_PROPERTIES


def _slope(xs, ys, x) -> float:
    """The slope at ``x`` (within [xs[0], xs[-1]]) of the piecewise-linear function through
    (xs, ys): the segment's inside one, the chord of the two neighbours at an inner point (the
    central difference), the end segment's at an end; 0 for a single point."""
    n = len(xs)
    if n == 1:
        return 0.0
    i = int(np.searchsorted(xs, x, side="right")) - 1       # xs[i] <= x < xs[i + 1]
    i = min(max(i, 0), n - 1)
    if x == xs[i] and 0 < i < n - 1:
        lo, hi = i - 1, i + 1
    else:
        lo = min(i, n - 2)
        hi = lo + 1
    return float((ys[hi] - ys[lo]) / (xs[hi] - xs[lo]))


def value_and_slopes(loads, speeds, grid, load: float, speed: float) -> tuple:
    """A table property's value at (``load``, ``speed``), by the interpolation the engine does
    (linear in load and in speed), and its slopes there in load and in speed (:func:`_slope`):
    the partial-derivative form that agrees with the table at that point, and along its
    segments through it."""
    loads, speeds, grid = (np.asarray(a, float) for a in (loads, speeds, grid))
    along_load = np.array([np.interp(speed, speeds, row) for row in grid])    # each load, at speed
    along_speed = np.array([np.interp(load, loads, col) for col in grid.T])   # each speed, at load
    return (float(np.interp(load, loads, along_load)), _slope(loads, along_load, load),
            _slope(speeds, along_speed, speed))


def _reported(problems: list, path: str) -> bool:
    """Whether ``problems`` already names the field at ``path`` (or a part of it)."""
    return any(q.startswith(path) and q[len(path):len(path) + 1] in (":", ".", "[") for q in problems)


def _missing(path, key, model):
    f = TIRE[key]
    return (f"{path}.{key}: missing; {f.accepts().replace(' or null', '')} ({f.doc}; required "
            f"with property_model {model!r})")


def property_problems(c: dict, path: str, problems: list) -> None:
    """The checks of a checked tire ``c`` at ``path`` across its property fields; a
    partial-derivative form's properties left out are filled in from the tables."""
    model = c.get("property_model")
    p = f"{path}.partial_derivatives"
    if model == "table":
        problems.extend(_missing(path, key, model) for key in TIRE_TABLE_FIELDS
                        if c.get(key) is None and not _reported(problems, f"{path}.{key}"))
        if c.get("partial_derivatives") is not None:
            problems.append(f"{p}: only with property_model 'partial_derivatives' (got "
                            f"property_model 'table'; set it, or remove partial_derivatives)")
        return
    if model != "partial_derivatives":
        return                                  # already reported
    pd = c.get("partial_derivatives")
    if pd is None:
        if not _reported(problems, p):
            problems.append(f"{p}: missing; an object (reference_load, reference_speed and the "
                            f"properties; required with property_model 'partial_derivatives')")
        return
    load, speed = pd.get("reference_load"), pd.get("reference_speed")
    left_out = [key for key in TIRE_PROPERTIES if pd.get(key) is None and not _reported(problems, f"{p}.{key}")]
    if left_out and load is not None and speed is not None:
        _derive(c, pd, left_out, load, speed, path, problems)
    peak, slide = pd.get("peak_friction"), pd.get("slide_friction")
    if peak and slide and peak.get("value") is not None and slide.get("value") is not None \
            and slide["value"] > peak["value"]:
        problems.append(f"{p}.slide_friction.value: a value <= peak_friction.value = "
                        f"{peak['value']:g} at the reference load and speed (got {slide['value']:g})")


def _derive(c, pd, keys, load, speed, path, problems):
    """Fill the properties ``keys`` of the partial-derivative form ``pd`` from the tire's
    tables at (``load``, ``speed``)."""
    p = f"{path}.partial_derivatives"
    loads, speeds = c.get("test_loads"), c.get("test_speeds")
    have = [key for key in keys if c.get(key) is not None]
    for key in keys:
        if c.get(key) is None and not _reported(problems, f"{path}.{key}"):
            problems.append(f"{p}.{key}: an object (value, per_load, per_speed), or the tire's table "
                            f"{key} to derive it from (both missing)")
    if not have or not loads or not speeds or None in loads or None in speeds:
        if have:
            problems.append(f"{p}: the tire's test_loads and test_speeds, to derive "
                            f"{', '.join(have)} from the tables (missing)")
        return
    ok = True
    for name, ref, xs, unit in (("reference_load", load, loads, "N"), ("reference_speed", speed, speeds, "m/s")):
        if len(xs) > 1 and not xs[0] <= ref <= xs[-1]:
            problems.append(f"{p}.{name}: within the tire's test {name[10:]}s, {xs[0]:g}..{xs[-1]:g} "
                            f"{unit}, to derive {', '.join(have)} from its tables (got {ref:g})")
            ok = False
    shapes = all(len(c[key]) == len(loads) and all(len(r) == len(speeds) for r in c[key]) for key in have)
    increasing = all(b > a for xs in (loads, speeds) for a, b in zip(xs, xs[1:]))
    if not (ok and shapes and increasing):      # the tables' own problems are reported already
        return
    for key in have:
        value, per_load, per_speed = value_and_slopes(loads, speeds, c[key], load, speed)
        pd[key] = {"value": value, "per_load": per_load, "per_speed": per_speed}


def pack_partial_derivatives(T, planes, pd) -> None:
    """Pack a tire's properties by partial derivatives ``pd`` (its typed record) into its row
    ``T`` of ``P_TIRE`` and its planes ``TT[t]`` (``engine.tire.partial_properties``): the
    reference load and speed in ``T_LOAD0``, ``T_SPEED0``; each property's value and its
    derivatives in load and in speed at [0, 0], [1, 0] and [0, 1] of its plane."""
    T[L.T_PROPS] = L.PROPS_PARTIAL
    T[L.T_NLOAD], T[L.T_NSPEED] = 1, 1
    T[L.T_LOAD0], T[L.T_SPEED0] = pd.reference_load, pd.reference_speed
    for k, key in PLANES:
        q = getattr(pd, key)
        planes[k, 0, 0], planes[k, 1, 0], planes[k, 0, 1] = q.value, q.per_load, q.per_speed
