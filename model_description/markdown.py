"""The README's table of FMU variables, rendered from a :class:`Catalogue`."""
from __future__ import annotations

from typing import Callable, Optional

from .catalogue import Catalogue, Variable
from .writer import format_value

_COLUMNS = ("Name", "Causality", "Type", "Unit", "Start", "Min", "Max", "Description")


def _cell(x) -> str:
    return "" if x is None else format_value(x) if not isinstance(x, str) else x.replace("|", "\\|")


def _row(name: str, v: Variable) -> str:
    unit = v.unit or ""
    if v.display_unit:
        unit += f" ({v.display_unit})"
    cells = (f"`{name}`", v.causality, v.type, unit, v.start, v.min, v.max, v.description)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def variable_table(catalogue: Catalogue, generic: bool = True,
                   only: Optional[Callable[[Variable], bool]] = None) -> str:
    """A Markdown table of the variables.

    Parameters:
        catalogue: the variables to list.
        generic: True (default) lists each kind of variable once, with ``<unit>``, ``<k>``
            (axle number) and ``<side>`` placeholders; False lists every variable by name.
        only: list only the variables for which this is true (default: all).
    """
    lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + " --- |" * len(_COLUMNS)]
    seen = set()
    for v in catalogue:
        name = v.pattern if generic else v.name
        if name not in seen and (only is None or only(v)):
            seen.add(name)
            lines.append(_row(name, v))
    return "\n".join(lines) + "\n"
