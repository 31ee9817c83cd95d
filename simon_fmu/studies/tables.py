"""Time histories as engineers load them: CSV with a units row, and MATLAB ``.mat``.

CSV (:func:`write_csv`): the first line names the columns (``time`` and the FMU variable
names, unit prefix kept: ``car.u``), the second gives each column's unit in SI as the FMU
declares it (``s``, ``m/s``, ``rad``, ``m/s2``; empty for a dimensionless value or a count),
then one row per time, each number in :data:`NUMBER_FORMAT` (nine significant digits: a
double's history to better than 1e-8 relative, a third of ``%.18e``'s width; NaN as
``nan``). A column of strings (a sweep's ``status`` and ``error``) is written as it is, in
double quotes (a quote doubled) when it holds a comma, a quote or a line break, as CSV
readers expect. Read it back with :func:`read_csv`, ``pandas.read_csv(path, header=[0, 1])``
or, when every column is a number, ``numpy.loadtxt(path, delimiter=",", skiprows=2)``.

``.mat`` (:func:`write_mat`, MATLAB 5 format, ``scipy.io.savemat``): one column vector per
column, named as in the CSV with every character MATLAB does not allow in a name made ``_``
(``car.u`` -> ``car_u``), and the cell arrays ``names`` (the CSV's column names) and
``units`` (their units) in the same order: ``load('histories.mat')`` in MATLAB.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

#: The number format of every CSV the studies and examples write.
NUMBER_FORMAT = "%.9g"


def variable_units(md) -> dict[str, str]:
    """Each variable's unit (SI, the FMU's spelling) from an fmpy model description: its
    own ``unit`` or its declared type's, ``""`` for one without (a ratio, a count)."""
    out = {"time": "s"}
    for v in md.modelVariables:
        t = v.declaredType
        unit = getattr(v, "unit", None) or (getattr(t, "unit", None) if t is not None else None)
        out[v.name] = unit or ""
    return out


def _is_text(column) -> bool:
    """A column of strings (written as is) rather than of numbers."""
    if isinstance(column, np.ndarray):
        return column.dtype.kind in "USO" and (column.dtype.kind != "O" or any(
            isinstance(v, str) for v in column.flat))
    return any(isinstance(v, str) for v in column)


def _quoted(text: str) -> str:
    """A text cell: in double quotes, a quote doubled, when it holds a comma, a quote or a
    line break (RFC 4180), else as it is."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_text(names: Sequence[str], units: Sequence[str], columns: Sequence) -> str:
    """The CSV of :func:`write_csv` as a string."""
    names, units = list(names), list(units)
    if not (len(names) == len(units) == len(columns)):
        raise ValueError(f"{len(names)} names, {len(units)} units, {len(columns)} columns")
    for text in names + units:
        if any(c in text for c in ',"\r\n'):
            raise ValueError(f"a column name or unit with a comma, a quote or a line break: "
                             f"{text!r}")
    header = ",".join(names) + "\n" + ",".join(units)
    text = [_is_text(c) for c in columns]
    out = io.StringIO()
    if not any(text):
        np.savetxt(out, np.column_stack([np.asarray(c, dtype=float) for c in columns]),
                   delimiter=",", fmt=NUMBER_FORMAT, header=header, comments="")
        return out.getvalue()
    cells = [[_quoted(str(v)) for v in c] if t else
             [NUMBER_FORMAT % v for v in np.asarray(c, dtype=float)]
             for c, t in zip(columns, text)]
    if len({len(c) for c in cells}) > 1:
        raise ValueError(f"columns of {sorted({len(c) for c in cells})} rows")
    out.write(header + "\n")
    for row in zip(*cells):
        out.write(",".join(row) + "\n")
    return out.getvalue()


def write_csv(path: str | Path, names: Sequence[str], units: Sequence[str],
              columns: Sequence) -> None:
    """Write ``columns`` (equal-length arrays of numbers, or sequences of strings) under a
    names row and a units row."""
    Path(path).write_text(csv_text(names, units, columns))


def read_csv(path: str | Path, text: Sequence[str] = ()
             ) -> tuple[list[str], list[str], dict[str, np.ndarray]]:
    """A CSV of :func:`write_csv`: its names, its units and ``{name: column}``, a column of
    floats, or of strings (``numpy.str_``) when it is named in ``text`` or a cell of it is
    not a number. ValueError for a row of another length than the names."""
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    if not lines:
        raise ValueError(f"{path}: empty, no names row")
    names = lines[0]
    # csv gives [] for an empty line: the units row or a row of one column's empty text
    rows = [line if line or len(names) != 1 else [""] for line in lines[1:]]
    units = rows[0] if rows else []
    for k, row in enumerate(rows):
        if len(row) != len(names):
            raise ValueError(f"{path}: row {k + 2} has {len(row)} cells, the names "
                             f"{len(names)}")
    body = rows[1:]
    data: dict[str, np.ndarray] = {}
    for j, name in enumerate(names):
        cells = [row[j] for row in body]
        column = None
        if name not in text:
            try:
                column = np.array([float(c) for c in cells], dtype=float)
            except ValueError:
                pass
        data[name] = column if column is not None else np.array(cells, dtype=str)
    return names, units, data


def mat_name(name: str) -> str:
    """A MATLAB variable name for a column: letters, digits and ``_`` (``car.u`` ->
    ``car_u``), beginning with a letter, at most 63 characters."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not out or not out[0].isalpha():
        out = "x" + out
    return out[:63]


def mat_bytes(names: Sequence[str], units: Sequence[str], columns: Sequence) -> bytes:
    """The ``.mat`` file of :func:`write_mat` as bytes; ValueError when two names map to
    the same MATLAB name or a name is ``names`` or ``units``."""
    import scipy.io
    names, units = list(names), list(units)
    if not (len(names) == len(units) == len(columns)):
        raise ValueError(f"{len(names)} names, {len(units)} units, {len(columns)} columns")
    data: dict[str, object] = {}
    for name, column in zip(names, columns):
        key = mat_name(name)
        if key in data or key in ("names", "units"):
            raise ValueError(f"column {name!r}: its MATLAB name {key!r} is taken")
        data[key] = np.asarray(column, dtype=float).reshape(-1, 1)
    data["names"] = np.array(names, dtype=object).reshape(-1, 1)
    data["units"] = np.array(units, dtype=object).reshape(-1, 1)
    out = io.BytesIO()
    scipy.io.savemat(out, data, long_field_names=True, do_compression=True, oned_as="column")
    return out.getvalue()


def write_mat(path: str | Path, names: Sequence[str], units: Sequence[str],
              columns: Sequence) -> None:
    """Write the columns as a MATLAB ``.mat`` file (see the module's description)."""
    Path(path).write_bytes(mat_bytes(names, units, columns))


def history_table(history: Mapping[str, np.ndarray], full_name, units: Mapping[str, str],
                  extra_units: Mapping[str, str] | None = None):
    """A study's history as ``(names, units, columns)``: each key as its FMU name
    (``full_name(key)`` when that is an FMU variable, a key of ``units``, else the key: a
    column the manoeuvre derives), its unit from ``units`` or, for a derived column,
    ``extra_units`` (empty when neither knows it)."""
    extra_units = extra_units or {}
    names, unit_row, columns = [], [], []
    for key, column in history.items():
        name = key
        if key != "time":
            full = full_name(key)
            if full in units:
                name = full
        names.append(name)
        unit_row.append(units.get(name, extra_units.get(key, "")))
        columns.append(column)
    return names, unit_row, columns
