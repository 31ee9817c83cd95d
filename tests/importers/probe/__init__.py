"""Build the importer probe FMU with pythonfmu."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).with_name("ImporterProbe.py")


def build_probe_fmu(directory: str | Path, python: str = sys.executable) -> Path:
    """Build ImporterProbe.fmu into ``directory`` and return its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    completed = subprocess.run(
        [python, "-m", "pythonfmu", "build", "-f", str(SOURCE), "-d", str(directory)],
        capture_output=True,
        text=True,
    )
    fmu = directory / "ImporterProbe.fmu"
    if completed.returncode != 0 or not fmu.exists():
        raise RuntimeError(f"pythonfmu build failed:\n{completed.stdout}\n{completed.stderr}")
    return fmu
