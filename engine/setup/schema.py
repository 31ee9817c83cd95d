"""A small declarative schema for event files, gathering every problem at once.

Each field is described by a :class:`Field`. :func:`check` walks a parsed JSON value against
a field and returns the cleaned value (defaults filled in) plus a list of problems of the form
``"units[0].axles[1].track: a number > 0 (got -1.2)"``. Nothing is half-loaded: the caller
raises if the list is not empty.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

_MISSING = object()


@dataclass
class Field:
    """One field of the schema.

    kind: "number", "int", "bool", "str", "object", "list", "table" (list of [x, y] rows
    with strictly increasing x), "vector3", "grid" (list of rows of numbers), "map" (an
    object of free names, each value an ``item``).
    lo/hi: inclusive bounds, or exclusive when lo_open/hi_open.
    default: used when the field is absent (``_MISSING`` means required).
    """

    kind: str
    lo: Optional[float] = None
    hi: Optional[float] = None
    lo_open: bool = False
    hi_open: bool = False
    default: Any = _MISSING
    choices: Optional[tuple] = None
    fields: Optional[dict] = None          # for "object"
    item: Optional["Field"] = None         # for "list"
    min_items: int = 0
    max_items: Optional[int] = None
    doc: str = ""
    nullable: bool = False                 # JSON null is accepted (and kept as None)
    #: what the format page shows as the default in place of the default's value (a default
    #: filled after the schema check, e.g. "(vehicle class)")
    default_text: Optional[str] = None
    extra_check: Optional[Callable[[Any], Optional[str]]] = field(default=None, repr=False)

    def accepts(self) -> str:
        """Human description of what the field accepts."""
        return self._accepts() + (" or null" if self.nullable else "")

    def _accepts(self) -> str:
        if self.kind == "number" or self.kind == "int":
            what = "an integer" if self.kind == "int" else "a number"
            parts = []
            if self.lo is not None:
                parts.append(("> " if self.lo_open else ">= ") + _fmt(self.lo))
            if self.hi is not None:
                parts.append(("< " if self.hi_open else "<= ") + _fmt(self.hi))
            return what + (" " + " and ".join(parts) if parts else "")
        if self.kind == "str":
            if self.choices:
                return "one of " + ", ".join(repr(c) for c in self.choices)
            return "a non-empty string"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "object":
            return "an object"
        if self.kind == "map":
            return "an object of names to objects"
        if self.kind == "list":
            n = f"{self.min_items}" + (f"..{self.max_items}" if self.max_items else " or more")
            return f"a list of {n} items"
        if self.kind == "table":
            return ("a list of [x, y] rows with strictly increasing x"
                    + (f", y {self.item.accepts()}" if self.item else ""))
        if self.kind == "vector3":
            return "a list of 3 numbers"
        if self.kind == "grid":
            return "a list of rows of numbers"
        if self.kind == "sides":
            return f'{self.item.accepts()}, or {{"left": ..., "right": ...}} of two such'

        return self.kind


def _fmt(x):
    return repr(int(x)) if float(x).is_integer() else repr(x)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def shown(v, limit=40):
    """``repr(v)`` shortened to about ``limit`` characters, for messages (an integer beyond
    the range of a float is given by its number of digits)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 128:
        return f"an integer of {len(str(abs(v))) if v.bit_length() < 14000 else 'over 4000'} digits"
    try:
        text = repr(v)
    except ValueError:  # holds an integer too long to convert to text
        return f"a {type(v).__name__} holding an integer too long to show"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _finite_number(x):
    try:
        return _is_number(x) and math.isfinite(x)
    except OverflowError:   # an integer beyond the range of a float
        return False


def _check_number(f: Field, v, path, problems, integer=False):
    if not _finite_number(v) or (integer and not float(v).is_integer()):
        problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        return None
    v = int(v) if integer else float(v)
    bad = False
    if f.lo is not None and (v <= f.lo if f.lo_open else v < f.lo):
        bad = True
    if f.hi is not None and (v >= f.hi if f.hi_open else v > f.hi):
        bad = True
    if bad:
        problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        return None
    return v


def check(f: Field, v, path: str, problems: list):
    """Check value ``v`` against field ``f``; append problems; return the cleaned value."""
    if v is None and f.nullable:
        return None
    k = f.kind
    out = None
    if k in ("number", "int"):
        out = _check_number(f, v, path, problems, integer=(k == "int"))
    elif k == "bool":
        if isinstance(v, bool):
            out = v
        else:
            problems.append(f"{path}: true or false (got {shown(v)})")
    elif k == "str":
        if not isinstance(v, str) or not v:
            problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        elif f.choices and v not in f.choices:
            problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        else:
            out = v
    elif k == "vector3":
        if not isinstance(v, list) or len(v) != 3 or not all(_finite_number(x) for x in v):
            problems.append(f"{path}: a list of 3 numbers (got {shown(v)})")
        else:
            out = [float(x) for x in v]
    elif k == "table":
        out = _check_table(f, v, path, problems)
    elif k == "grid":
        out = _check_grid(f, v, path, problems)
    elif k == "list":
        if not isinstance(v, list):
            problems.append(f"{path}: {f.accepts()} (got {type(v).__name__})")
        elif len(v) < f.min_items or (f.max_items is not None and len(v) > f.max_items):
            problems.append(f"{path}: {f.accepts()} (got {len(v)})")
        else:
            out = [check(f.item, x, f"{path}[{i}]", problems) for i, x in enumerate(v)]
    elif k == "object":
        out = check_object(f.fields, v, path, problems)
    elif k == "map":
        if not isinstance(v, dict):
            problems.append(f"{path}: {f.accepts()} (got {type(v).__name__})")
        else:
            out = {}
            for name, x in v.items():
                if not name.strip() or name != name.strip() or len(name.split()) != 1:
                    problems.append(f"{path}: names of one word without spaces (got {shown(name)})")
                out[name] = check(f.item, x, f"{path}.{name}", problems)
    elif k == "sides":   # one value for both sides, or {"left": value, "right": value}
        if isinstance(v, dict):
            out = check_object({"left": f.item, "right": f.item}, v, path, problems)
        else:
            out = check(f.item, v, path, problems)
    else:  # pragma: no cover - schema author error
        raise ValueError(f"unknown field kind {k}")
    if out is not None and f.extra_check is not None:
        msg = f.extra_check(out)
        if msg:
            problems.append(f"{path}: {msg}")
    return out


def check_object(fields: dict, v, path: str, problems: list):
    """Check a JSON object against a dict of fields; unknown keys are problems too."""
    if not isinstance(v, dict):
        problems.append(f"{path or 'event'}: an object (got {type(v).__name__})")
        return None
    out = {}
    for key, fld in fields.items():
        p = f"{path}.{key}" if path else key
        if key not in v:
            if fld.default is _MISSING:
                problems.append(f"{p}: missing; {fld.accepts()}" + (f" ({fld.doc})" if fld.doc else ""))
                continue
            d = fld.default
            out[key] = d() if callable(d) else d
            continue
        out[key] = check(fld, v[key], p, problems)
    for key in v:
        if key not in fields:
            p = f"{path}.{key}" if path else key
            problems.append(f"{p}: unknown field; accepted fields are " + ", ".join(fields))
    return out


def _check_table(f, v, path, problems):
    ok = isinstance(v, list) and len(v) >= 1 and all(
        isinstance(r, list) and len(r) == 2 and all(_finite_number(x) for x in r) for r in v)
    if not ok:
        problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        return None
    xs = [float(r[0]) for r in v]
    if any(b <= a for a, b in zip(xs, xs[1:])):
        problems.append(f"{path}: {f.accepts()} (x not strictly increasing: {shown(xs, 80)})")
        return None
    rows = [[float(r[0]), float(r[1])] for r in v]
    if f.item is not None:
        for i, r in enumerate(rows):
            check(f.item, r[1], f"{path}[{i}][1]", problems)
    return rows


def _check_grid(f, v, path, problems):
    ok = isinstance(v, list) and len(v) >= 1 and all(
        isinstance(r, list) and len(r) >= 1 and all(_finite_number(x) for x in r) for r in v)
    if not ok:
        problems.append(f"{path}: {f.accepts()} (got {shown(v)})")
        return None
    rows = [[float(x) for x in r] for r in v]
    if f.item is not None:
        for i, r in enumerate(rows):
            for j, x in enumerate(r):
                check(f.item, x, f"{path}[{i}][{j}]", problems)
    return rows


def describe(fields: dict, prefix: str = "") -> list:
    """Markdown table rows (path, accepts, default, meaning) for a dict of fields."""
    rows = []
    for key, f in fields.items():
        path = f"{prefix}.{key}" if prefix else key
        default = f.default_text or ("required" if f.default is _MISSING else "null" if f.default is None
                                     else "(defaults)" if callable(f.default) else repr(f.default))
        if f.kind == "object" and f.fields:
            rows.append(f"| `{path}` | {f.accepts()} | {default} | {f.doc} |")
            rows.extend(describe(f.fields, path))
        elif f.kind == "list" and f.item is not None and f.item.kind == "object" and f.item.fields:
            rows.append(f"| `{path}` | {f.accepts()} | {default} | {f.doc} |")
            rows.extend(describe(f.item.fields, path + "[]"))
        elif f.kind == "map" and f.item.fields:
            rows.append(f"| `{path}` | {f.accepts()} | {default} | {f.doc} |")
            rows.extend(describe(f.item.fields, path + ".<name>"))
        else:
            acc = f.accepts() if f.item is None or f.kind != "list" else f"{f.accepts()}, each {f.item.accepts()}"
            rows.append(f"| `{path}` | {acc} | {default} | {f.doc} |")
    return rows
