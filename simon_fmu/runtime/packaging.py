"""The steps every FMU build shares: the choice of FMI library, and the repacking of
pythonfmu's zip with the generated modelDescription.xml and the project's library; and the
check every command makes of the file or folder it is told to write (:func:`check_output`).
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional, Union

PathLike = Union[str, os.PathLike]

LIBRARIES = ("simon", "pythonfmu")

#: The folder a command creates when an output's folder is missing: ``out`` of the current
#: folder or of the project's clone, where the default outputs, the Makefile's, the examples'
#: and the benchmarks' go. Any other missing folder is refused.
OUTPUT_FOLDER = "out"
_CLONE = Path(__file__).resolve().parents[2]


class OutputError(ValueError):
    """A command refuses to write where it was told; the message (one line) names the path
    and why."""


def partial_path(output: Path) -> Path:
    """Where an output is written before it is renamed over ``output`` (atomic replacement)."""
    return output.with_name(output.name + ".partial")


def _not_a_plain_file(path: Path) -> Optional[str]:
    """Why ``path`` cannot be replaced whatever it holds (None: missing or a regular file)."""
    if path.is_symlink():
        return "is a symbolic link (give the file it points to, or another name)"
    if not path.exists():
        return None
    if path.is_dir():
        return "is a folder"
    if not path.is_file():
        return "is not a regular file (a device, FIFO or socket)"
    return None


def _input_named(path: Path, inputs: Iterable[tuple[str, PathLike]]) -> Optional[str]:
    """The label of the input that ``path`` is (the same file, also through a link)."""
    for label, source in inputs:
        if source is None:
            continue
        try:
            if os.path.samefile(path, source):
                return label
        except OSError:
            continue
    return None


def is_zip_with(member: str) -> Callable[[Path], Optional[str]]:
    """An ``accepts`` test for :func:`check_output`: the file is a zip holding ``member``
    (an FMU holds modelDescription.xml, an SSP file SystemStructure.ssd)."""
    def accepts(path: Path) -> Optional[str]:
        try:
            with zipfile.ZipFile(path) as archive:
                if member in archive.namelist():
                    return None
        except (OSError, zipfile.BadZipFile):
            pass
        return f"exists and is not a zip file holding {member}, as this command writes"
    return accepts


def check_output(output: PathLike, inputs: Iterable[tuple[str, PathLike]] = (),
                 accepts: Optional[Callable[[Path], Optional[str]]] = None,
                 contents: Optional[Iterable[str]] = None) -> Path:
    """Check, before any work, that a command may write ``output``; its path, or
    :class:`OutputError` saying why not in one line.

    The rules:

    - the path is not empty and, for a file, does not name a folder (``.``, ``x/``);
    - it is none of ``inputs`` ((label, path) pairs: the event file, the files the event
      names, the spec, a given FMU), also through a link or a hard link;
    - an existing file is replaced only when it is a regular file (not a folder, a device, a
      FIFO, a socket or a symbolic link) and is empty or passes ``accepts`` (a function that
      answers None, or why the file is not an output of this command);
    - the partial file written first (:func:`partial_path`) is not a folder, link or special
      file either;
    - the folder the output goes into exists and is writable; only ``out/`` of the current
      folder or of the project's clone (:data:`OUTPUT_FOLDER`) is created when missing.

    With ``contents`` (the names of the files written into it), ``output`` is a folder: an
    existing path must be a folder (or a link to one), it is created if its own folder exists
    (or is ``out/``), and each of the named files in it is checked as above (no ``accepts``).
    """
    text = os.fspath(output)
    if not text.strip():
        raise OutputError(f"-o {text!r}: an empty path; give the "
                          f"{'folder' if contents is not None else 'file'} to write")
    path = Path(text)
    label = _input_named(path, inputs)
    if label is not None:
        raise OutputError(f"{text}: is {label}, which this command reads; not replaced")
    if contents is not None:
        if path.exists() and not path.is_dir():
            raise OutputError(f"{text}: exists and is not a folder")
        if path.is_dir():
            for name in contents:
                check_output(path / name, inputs)
            _check_folder(path, text)
            return path
    else:
        why = _not_a_plain_file(path)
        if why is None and (text.endswith(os.sep) or path.name in ("", ".", "..")):
            raise OutputError(f"{text}: names a folder; give the file to write")
        if why is None and path.is_file() and path.stat().st_size and accepts is not None:
            why = accepts(path)
        if why is not None:
            raise OutputError(f"{text}: {why}; not replaced")
        partial = partial_path(path)
        why = _not_a_plain_file(partial)
        if why is not None:
            raise OutputError(f"{text}: the partial file {partial} written first {why}")
    _check_folder(path.parent, text)
    return path


def _check_folder(folder: Path, text: str) -> None:
    if not folder.exists():
        if folder.resolve() not in (Path.cwd().resolve() / OUTPUT_FOLDER, _CLONE / OUTPUT_FOLDER):
            raise OutputError(f"{text}: folder {folder} does not exist; create it first")
    elif not folder.is_dir():
        raise OutputError(f"{text}: {folder} is not a folder")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{text}: folder {folder} is not writable")


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
    partial = partial_path(output)
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
