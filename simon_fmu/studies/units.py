"""Display units of a study's report: the FMU's own declarations (its UnitDefinitions'
DisplayUnits, the displayUnit of each SimpleType and variable), as an engineer reads them:
deg for rad, km/h for m/s, g for m/s^2, deg/g for rad/(m/s^2).

A display value is ``factor * SI value + offset`` (FMI 2.0, 2.2.2). The manoeuvres name their
units as SI strings (``m/s^2``, ``rad/(m/s^2)``, ``m/s^2/rad``, ``1/s``); a quotient is shown
as the quotient of its parts' display units. metrics.json keeps SI.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Optional


class Shown(NamedTuple):
    """An SI unit and the unit it is shown in: display value = factor * SI value."""

    si: str
    unit: str
    factor: float

    def __call__(self, value):
        return value * self.factor


def _key(unit: str) -> str:
    """The FMU's spelling of an SI unit string (``m/s^2`` is the FMU's ``m/s2``)."""
    return unit.replace("^", "").strip()


def _pretty(unit: str) -> str:
    return unit.replace("m/s2", "m/s^2")


class DisplayUnits:
    """The display unit of each SI unit and of each FMU variable."""

    def __init__(self, factors: dict[str, dict[str, float]], preferred: dict[str, str],
                 variables: Optional[dict[str, tuple[str, str]]] = None):
        #: SI unit (FMU spelling) -> {display unit: factor}
        self.factors = factors
        #: SI unit -> the display unit its SimpleType declares
        self.preferred = preferred
        #: full variable name -> (SI unit, display unit)
        self.variables = variables or {}

    @classmethod
    def of_model_description(cls, md) -> "DisplayUnits":
        """From an fmpy model description."""
        factors = {u.name: {d.name: float(d.factor) for d in u.displayUnits}
                   for u in md.unitDefinitions}
        preferred = {t.unit: t.displayUnit for t in md.typeDefinitions
                     if getattr(t, "unit", None) and getattr(t, "displayUnit", None)}
        variables = {}
        for v in md.modelVariables:
            t = v.declaredType
            unit = v.unit or (t.unit if t is not None else None)
            display = v.displayUnit or (t.displayUnit if t is not None else None)
            if unit:
                variables[v.name] = (unit, display or unit)
        return cls(factors, preferred, variables)

    @classmethod
    def default(cls) -> "DisplayUnits":
        """The FMUs' declarations as this version writes them (model_description.writer)."""
        from model_description.writer import TYPES, UNITS
        factors = {name: dict(u.display) for name, u in UNITS.items()}
        preferred = {name: display for name, (_, _, display) in TYPES.items() if display}
        return cls(factors, preferred)

    def unit(self, si: str) -> Shown:
        """How an SI unit string is shown."""
        key = _key(si)
        if not key or key == "1":
            return Shown(si, si, 1.0)
        if key in self.factors or key in self.preferred:
            display = self.preferred.get(key)
            if display and display in self.factors.get(key, {}):
                return Shown(si, display, self.factors[key][display])
            return Shown(si, _pretty(key), 1.0)
        top = _top_level_slash(key)
        if top is not None:
            num, den = self.unit(_strip(key[:top])), self.unit(_strip(key[top + 1:]))
            den_name = den.unit if "/" not in den.unit else f"({den.unit})"
            return Shown(si, f"{num.unit}/{den_name}", num.factor / den.factor)
        return Shown(si, si, 1.0)

    def variable(self, name: str, si: str = "") -> Shown:
        """How the FMU variable ``name`` (full name) is shown; ``si`` if the FMU does not
        declare its unit."""
        if name in self.variables:
            unit, display = self.variables[name]
            factor = self.factors.get(unit, {}).get(display, 1.0)
            return Shown(unit, display if factor != 1.0 or display != unit else _pretty(unit),
                         factor)
        return self.unit(si)


def _strip(unit: str) -> str:
    unit = unit.strip()
    if unit.startswith("(") and unit.endswith(")"):
        return unit[1:-1]
    return unit


def _top_level_slash(unit: str) -> Optional[int]:
    """The index of the last ``/`` outside parentheses, None if there is none."""
    depth, last = 0, None
    for i, c in enumerate(unit):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "/" and depth == 0:
            last = i
    return last


def format_value(value: float) -> str:
    """A number as a report shows it: 4 significant digits, NaN as "-"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float) and value == int(value) and abs(value) < 1e6:
        return f"{int(value)}"
    return f"{value:.4g}"
