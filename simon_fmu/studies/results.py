"""A sweep's results: a journal appended row by row, and the table written from it.

Each finished case is one JSON line appended to ``RESULTS.journal.jsonl`` (flushed and
fsync'd), so a run that is killed loses no finished case, and a line cut short by the kill is
ignored when the journal is read back. The table (Parquet with pyarrow, or CSV when the name
ends ``.csv``) is written from the journal, sorted by case id, when a run completes; the
journal stays, and a run of the same spec into the same RESULTS skips the cases it holds.

Each column has its SI unit (:func:`write_table`'s ``units``; none for ``case``, ``status``,
``error`` and ``notes``): the CSV carries it in a units row under the column names, numbers in
``%.9g``, as every CSV of the studies and examples (:mod:`.tables`); Parquet in each field's
metadata (``unit``). :func:`read_table` reads either back as the same Arrow table.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Mapping, Optional

from ..runtime.packaging import partial_path
from . import tables

FIXED = ("case",)
TAIL = ("status", "error", "notes")


def journal_path(results: Path) -> Path:
    return results.with_name(results.name + ".journal.jsonl")


def not_a_table(results: Path) -> Optional[str]:
    """None when ``results`` is a table a sweep writes (Parquet, or CSV for a ``.csv`` name,
    its first column ``case``: with a units row under the names, or quoted names as earlier
    versions wrote it), else why not: a sweep replaces no other file."""
    with open(results, "rb") as f:
        head = f.read(64)
    if results.suffix.lower() == ".csv":
        first = head.split(b"\n", 1)[0].split(b",", 1)[0].strip().strip(b'"')
        if first == b"case":
            return None
        return "exists and is not a sweep's results table (CSV whose first column is case)"
    if head[:4] == b"PAR1":
        return None
    return "exists and is not a sweep's results table (a Parquet file)"


def read_journal(results: Path) -> dict[int, dict]:
    """Rows already done, by case id (a cut-short last line is skipped)."""
    path = journal_path(results)
    rows: dict[int, dict] = {}
    if not path.exists():
        return rows
    with path.open() as f:
        for line in f:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("case"), int):
                rows[row["case"]] = row
    return rows


class Journal:
    """Appends rows to the journal, one durable line each."""

    def __init__(self, results: Path):
        path = journal_path(results)
        path.parent.mkdir(parents=True, exist_ok=True)
        # a run killed mid-line leaves no newline: start the next row on a line of its own
        if path.exists() and path.stat().st_size:
            with path.open("rb") as f:
                f.seek(-1, os.SEEK_END)
                needs_newline = f.read(1) != b"\n"
        else:
            needs_newline = False
        self._file = path.open("a")
        if needs_newline:
            self._file.write("\n")

    def append(self, row: dict) -> None:
        self._file.write(json.dumps(row) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def columns(rows: list[dict], parameters: list[str]) -> list[str]:
    """case, the parameters in spec order, the metrics in name order, status, error, notes
    (what the manoeuvre notes of a case beside its metrics; empty in a journal written before
    there were notes)."""
    metrics = sorted({k for r in rows for k in r} - set(FIXED) - set(TAIL) - set(parameters))
    return list(FIXED) + list(parameters) + metrics + list(TAIL)


def write_table(results: Path, rows: list[dict], parameters: list[str],
                units: Optional[Mapping[str, str]] = None) -> Path:
    """Write ``rows`` (sorted by case) as Parquet, or CSV for a ``.csv`` name, atomically;
    ``units``: each column's SI unit (a column it does not name has none)."""
    units = units or {}
    rows = sorted(rows, key=lambda r: r["case"])
    names = columns(rows, parameters)
    data = {}
    for name in names:
        values = [r.get(name) for r in rows]
        if name in TAIL:
            data[name] = ["" if v is None else str(v) for v in values]
        elif name == "case":
            data[name] = values
        else:
            data[name] = [math.nan if v is None else float(v) for v in values]
    tmp = partial_path(results)
    if results.suffix.lower() == ".csv":
        tables.write_csv(tmp, names, [units.get(n, "") for n in names], list(data.values()))
    else:
        import pyarrow.parquet as pq
        pq.write_table(_arrow_table(names, [units.get(n, "") for n in names], data), tmp)
    os.replace(tmp, results)
    return results


def _arrow_table(names: list[str], units: list[str], data: dict):
    """The table's columns as Arrow: case int64, status, error and notes strings, the rest
    float64;
    each field's unit in its metadata."""
    import pyarrow as pa
    fields, arrays = [], []
    for name, unit in zip(names, units):
        kind = pa.string() if name in TAIL else pa.int64() if name == "case" else pa.float64()
        values = data[name]
        if kind == pa.int64():
            values = [int(v) for v in values]
        elif kind == pa.string():
            values = [str(v) for v in values]
        arrays.append(pa.array(values, kind))
        fields.append(pa.field(name, kind, metadata={"unit": unit}))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def read_table(results: Path):
    """The table as a pyarrow Table, from Parquet or from the CSV (its units row as each
    field's ``unit`` metadata, NaN where a metric is missing, as in Parquet)."""
    if Path(results).suffix.lower() == ".csv":
        names, units, data = tables.read_csv(results, text=TAIL)
        return _arrow_table(names, units, data)
    import pyarrow.parquet as pq
    return pq.read_table(results)


def table_units(table) -> dict[str, str]:
    """Each column's unit, from the metadata of a :func:`read_table` table (``""`` when it
    has none: no unit, or a table written before units were stored)."""
    return {f.name: (f.metadata or {}).get(b"unit", b"").decode() for f in table.schema}
