"""The steps every FMU build shares: the choice of FMI library, and the repacking of
pythonfmu's zip with the generated modelDescription.xml and the project's library.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator, Union

PathLike = Union[str, os.PathLike]

LIBRARIES = ("simon", "pythonfmu")


def check_library(library: str) -> None:
    if library not in LIBRARIES:
        raise ValueError(f"library {library!r}: one of {', '.join(LIBRARIES)}")


@contextlib.contextmanager
def builder_imports(*prefixes: str) -> Iterator[None]:
    """Undo what pythonfmu's builder leaves behind: it imports the entry script, so the
    staged folder stays on sys.path and the staged modules in sys.modules. On leaving,
    sys.path is restored and the modules imported meanwhile whose names start with one of
    ``prefixes`` are dropped."""
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name in set(sys.modules) - saved_modules:
            if name.startswith(prefixes):
                del sys.modules[name]


def repack(raw: Path, output: Path, xml: bytes, model_identifier: str,
            library: str = "simon") -> None:
    """Copy pythonfmu's zip to ``output`` with our description and library."""
    from . import fmi2_library
    check_library(library)
    partial = output.with_name(output.name + ".partial")
    with zipfile.ZipFile(raw) as src, \
            zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as dst, \
            tempfile.TemporaryDirectory(prefix="simon_lib_") as work:
        for info in src.infolist():
            name = info.filename
            if name == "modelDescription.xml" or "__pycache__" in name:
                continue
            if name.startswith("binaries/"):
                if library != "pythonfmu":
                    continue
                folder, _, filename = name.rpartition("/")
                name = f"{folder}/{model_identifier}{Path(filename).suffix}"
            copy = zipfile.ZipInfo(name, info.date_time)
            copy.external_attr = info.external_attr
            dst.writestr(copy, src.read(info), zipfile.ZIP_DEFLATED)
        if library == "simon":
            fmi2_library.add_library(dst, model_identifier, work, fmi2_library.guid_of(xml))
        dst.writestr("modelDescription.xml", xml, zipfile.ZIP_DEFLATED)
    os.replace(partial, output)
