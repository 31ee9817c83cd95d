"""A sweep's results: a journal appended row by row, and the table written from it.

Each finished case is one JSON line appended to ``RESULTS.journal.jsonl`` (flushed and
fsync'd), so a run that is killed loses no finished case, and a line cut short by the kill is
ignored when the journal is read back. The table (Parquet with pyarrow, or CSV when the name
ends ``.csv``) is written from the journal, sorted by case id, when a run completes; the
journal stays, and a run of the same spec into the same RESULTS skips the cases it holds.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Optional

from ..runtime.packaging import partial_path

FIXED = ("case",)
TAIL = ("status", "error")


def journal_path(results: Path) -> Path:
    return results.with_name(results.name + ".journal.jsonl")


def not_a_table(results: Path) -> Optional[str]:
    """None when ``results`` is a table a sweep writes (Parquet, or CSV for a ``.csv`` name,
    its first column ``case``), else why not: a sweep replaces no other file."""
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
    """case, the parameters in spec order, the metrics in name order, status, error."""
    metrics = sorted({k for r in rows for k in r} - set(FIXED) - set(TAIL) - set(parameters))
    return list(FIXED) + list(parameters) + metrics + list(TAIL)


def write_table(results: Path, rows: list[dict], parameters: list[str]) -> Path:
    """Write ``rows`` (sorted by case) as Parquet, or CSV for a ``.csv`` name, atomically."""
    import pyarrow as pa
    rows = sorted(rows, key=lambda r: r["case"])
    names = columns(rows, parameters)
    data = {}
    for name in names:
        values = [r.get(name) for r in rows]
        if name in TAIL:
            data[name] = pa.array(["" if v is None else str(v) for v in values], pa.string())
        elif name == "case":
            data[name] = pa.array(values, pa.int64())
        else:
            data[name] = pa.array([math.nan if v is None else float(v) for v in values],
                                  pa.float64())
    table = pa.table(data)
    tmp = partial_path(results)
    if results.suffix.lower() == ".csv":
        import pyarrow.csv as pcsv
        pcsv.write_csv(table, tmp)
    else:
        import pyarrow.parquet as pq
        pq.write_table(table, tmp)
    os.replace(tmp, results)
    return results


def read_table(results: Path):
    """The table as a pyarrow Table."""
    if Path(results).suffix.lower() == ".csv":
        import pyarrow.csv as pcsv
        return pcsv.read_csv(results)
    import pyarrow.parquet as pq
    return pq.read_table(results)
