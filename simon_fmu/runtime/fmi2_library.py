"""simon-fmu's own FMI 2.0 Co-Simulation library, compiled into the FMUs the project builds.

The C sources are in ``simon_fmu/runtime/native/`` (shipped with the package). :func:`compile_library`
builds them with gcc for this interpreter:

- ``<modelIdentifier>.so`` from ``fmi2_loader.c``: the FMI 2.0 functions, with no dependency
  but the C library, so every host can load it;
- ``<modelIdentifier>_python.so`` from :data:`IMPLEMENTATION` (``fmi2_log.c``,
  ``fmi2_calls.c``, ``fmi2_registry.c``, ``fmi2_values.c``, ``fmi2_state.c``,
  ``fmi2_lifecycle.c``, sharing ``fmi2_internal.h``): the implementation over the Python slave
  object (``pythonfmu.Fmi2Slave`` subclasses, found as pythonfmu's own library finds them,
  through ``resources/slavemodule.txt``).

:func:`python_record` is ``resources/fmi2_python.txt``: the libpython and executable of this
environment, which a host that is not Python loads and starts (``$SIMON_FMU_PYTHON``, a Python
executable, overrides it). :func:`replace_library` turns any FMU built by pythonfmu's builder
into one that runs on this library. :data:`GUID_FILE` is ``resources/guid.txt``, the FMU's GUID,
which fmi2Instantiate checks, and :data:`DIGEST_FILE` ``resources/resources.sha256``, the SHA-256
of each of the FMU's data files (:func:`data_files`), which every slave checks when an instance is
created (:func:`simon_fmu.runtime.protocol.check_resources`). See docs/fmi2-library.md.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path
from typing import Optional, Union

SOURCE_DIR = Path(__file__).resolve().parent / "native"
#: The loader: the FMI functions, needs libc only.
LOADER = "fmi2_loader.c"
#: The implementation, one library, by concern (see fmi2_internal.h).
IMPLEMENTATION = ("fmi2_log.c", "fmi2_calls.c", "fmi2_registry.c", "fmi2_values.c",
                  "fmi2_state.c", "fmi2_lifecycle.c")
HEADERS = ("fmi2_python.h", "fmi2_internal.h")
SOURCES = (LOADER, *IMPLEMENTATION, *HEADERS)
#: The native runtime's headers these libraries include too: the floating-point guard of every
#: entry point (docs/native.md, "The floating-point environment") and the resource location's
#: reading.
SHARED_DIR = Path(__file__).resolve().parent.parent / "native" / "c"
SHARED_HEADERS = ("fp_guard.h", "uri_path.h")
RECORD_FILE = "fmi2_python.txt"
#: The FMU's GUID in its resources folder, checked by fmi2Instantiate.
GUID_FILE = "guid.txt"
#: The SHA-256 of the FMU's data files in its resources folder (sha256sum's format), checked
#: when an instance is created (protocol.RESOURCE_DIGESTS).
DIGEST_FILE = "resources.sha256"
#: What in resources/ is the FMU's code or the library's own, not data: the files at its top
#: with these names, and everything under folders named so or starting with "simon_".
_NOT_DATA_FILES = {"slavemodule.txt", RECORD_FILE, GUID_FILE, DIGEST_FILE}
_NOT_DATA_FOLDERS = {"pythonfmu", "standalone", "__pycache__"}
#: What the library passes the slave as ``fmi2_library=`` when it creates it.
LIBRARY_NAME = "simon-fmu"
CFLAGS = ["-shared", "-fPIC", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
          "-fvisibility=hidden"]

PathLike = Union[str, os.PathLike]


class LibraryBuildError(RuntimeError):
    """The library cannot be compiled here (the message says what is missing)."""


def fmi2_headers() -> Path:
    """The FMI 2.0 headers that fmpy ships (``fmpy/c-code``)."""
    import fmpy
    folder = Path(fmpy.__file__).parent / "c-code"
    if not (folder / "fmi2Functions.h").is_file():
        raise LibraryBuildError(f"fmpy at {folder.parent} ships no FMI 2.0 headers")
    return folder


def python_include() -> Path:
    folder = Path(sysconfig.get_paths()["include"])
    if not (folder / "Python.h").is_file():
        raise LibraryBuildError(f"no Python.h in {folder}: the Python headers are needed "
                                f"(Debian: python{sys.version_info[0]}.{sys.version_info[1]}-dev)")
    return folder


def libpython() -> Optional[Path]:
    """This interpreter's shared libpython, or None (a static build)."""
    cfg = sysconfig.get_config_var
    names = [n for n in (cfg("INSTSONAME"), cfg("LDLIBRARY")) if n and ".so" in n]
    folders = [cfg("LIBDIR")]
    if cfg("LIBDIR") and cfg("MULTIARCH"):
        folders.append(os.path.join(cfg("LIBDIR"), cfg("MULTIARCH")))
    folders.append(os.path.join(sys.base_prefix, "lib"))
    for folder in filter(None, folders):
        for name in names:
            if os.path.isfile(os.path.join(folder, name)):
                return Path(folder, name)
    return None


def python_record() -> str:
    """The text of ``resources/fmi2_python.txt``: the Python a non-Python host starts."""
    lib = libpython()
    return ("# simon-fmu: the Python environment this FMU was built in; a host that is not\n"
            "# Python loads this libpython and starts it with this executable as program name.\n"
            "# $SIMON_FMU_PYTHON (the path of a Python executable) overrides it.\n"
            f"executable={sys.executable}\n"
            f"libpython={lib or ''}\n"
            f"version={sys.version_info[0]}.{sys.version_info[1]}\n"
            f"prefix={sys.prefix}\n")


def _compiler() -> str:
    cc = os.environ.get("CC", "gcc")
    if shutil.which(cc) is None:
        raise LibraryBuildError(f"no C compiler `{cc}` on PATH (Debian: gcc)")
    return cc


def _key() -> str:
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((SOURCE_DIR / name).read_bytes())
    for name in SHARED_HEADERS:
        h.update((SHARED_DIR / name).read_bytes())
    h.update(" ".join(CFLAGS).encode())
    h.update(f"{sys.version}\0{python_include()}\0{fmi2_headers()}".encode())
    return h.hexdigest()[:16]


def compile_library(folder: PathLike, model_identifier: str) -> list[Path]:
    """Compile ``<model_identifier>.so`` and ``<model_identifier>_python.so`` into ``folder``.

    The compiled pair is kept in the user cache (by a hash of the sources, flags and Python),
    so only the first build after a change runs the compiler.
    """
    from .entry import cache_root
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    key = _key()
    cached = cache_root() / "fmi2-library" / key
    if not (cached / ".complete").is_file():
        _compile_into(cached)
    outputs = []
    for name, target in (("loader.so", f"{model_identifier}.so"),
                         ("python.so", f"{model_identifier}_python.so")):
        shutil.copy2(cached / name, folder / target)
        outputs.append(folder / target)
    return outputs


def _compile_into(cached: Path) -> None:
    cc = _compiler()
    includes = [f"-I{SOURCE_DIR}", f"-I{SHARED_DIR}", f"-I{fmi2_headers()}"]
    cached.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{cached.name}.", dir=cached.parent))
    try:
        commands = [
            [cc, *CFLAGS, *includes, str(SOURCE_DIR / LOADER),
             "-o", str(work / "loader.so"), "-ldl", "-lpthread"],
            [cc, *CFLAGS, *includes, f"-I{python_include()}",
             *(str(SOURCE_DIR / name) for name in IMPLEMENTATION),
             "-o", str(work / "python.so"), "-lpthread", "-lm"],
        ]
        for command in commands:
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise LibraryBuildError(f"{' '.join(command)} failed:\n{done.stderr}")
        (work / ".complete").write_text(_key() + "\n")
        try:
            os.rename(work, cached)
        except OSError:   # another build made it first
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)


def replace_library(fmu: PathLike, output: Optional[PathLike] = None) -> Path:
    """Rewrite an FMU built by pythonfmu's builder to run on this library (in place by default)."""
    from fmpy import read_model_description
    fmu = Path(fmu)
    output = Path(output) if output is not None else fmu
    md = read_model_description(str(fmu), validate=False)
    identifier = md.coSimulation.modelIdentifier
    partial = output.with_name(output.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="simon_lib_") as tmp, zipfile.ZipFile(fmu) as src, \
            zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if not info.filename.startswith("binaries/") \
                    and info.filename not in (f"resources/{RECORD_FILE}", f"resources/{GUID_FILE}",
                                              f"resources/{DIGEST_FILE}"):
                dst.writestr(info, src.read(info))
        add_library(dst, identifier, Path(tmp), md.guid)
    os.replace(partial, output)
    return output


def guid_of(xml: bytes) -> str:
    """The ``guid`` attribute of a modelDescription.xml."""
    import xml.etree.ElementTree as ElementTree
    guid = ElementTree.fromstring(xml).get("guid")
    if not guid:
        raise ValueError("the modelDescription.xml has no guid")
    return guid


def data_files(names: list[str]) -> list[str]:
    """Of an FMU's file names, those of its data in resources/ (the event, terrain and exterior
    files, the controller description, courses), relative to resources/, sorted: every file
    there but the code (``*.py``, ``*.pyc``, ``simon_*`` packages, ``pythonfmu/``), the
    standalone runtime (``standalone/``) and the library's own files."""
    out = []
    for name in names:
        if not name.startswith("resources/") or name.endswith("/"):
            continue
        rel = name[len("resources/"):]
        parts = rel.split("/")
        if len(parts) == 1 and rel in _NOT_DATA_FILES:
            continue
        if any(p in _NOT_DATA_FOLDERS for p in parts[:-1]) \
                or (len(parts) > 1 and parts[0].startswith("simon_")) \
                or rel.endswith((".py", ".pyc")):
            continue
        out.append(rel)
    return sorted(out)


def resource_digests(archive: zipfile.ZipFile) -> str:
    """The text of ``resources/resources.sha256`` for the FMU ``archive`` holds (readable:
    also while it is being written)."""
    return "".join(f"{hashlib.sha256(archive.read('resources/' + rel)).hexdigest()}  {rel}\n"
                   for rel in data_files(archive.namelist()))


def add_library(archive: zipfile.ZipFile, model_identifier: str, work: PathLike,
                guid: str) -> None:
    """Write the library (for this platform), its Python record, the FMU's GUID (checked by
    fmi2Instantiate) and the digests of its data files (checked when an instance is created)
    into an FMU being written, after its resources."""
    for path in compile_library(work, model_identifier):
        info = zipfile.ZipInfo(f"binaries/linux64/{path.name}", (1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o755 << 16
        archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    archive.writestr(zipfile.ZipInfo(f"resources/{RECORD_FILE}", (1980, 1, 1, 0, 0, 0)),
                     python_record(), zipfile.ZIP_DEFLATED)
    archive.writestr(zipfile.ZipInfo(f"resources/{GUID_FILE}", (1980, 1, 1, 0, 0, 0)),
                     guid + "\n", zipfile.ZIP_DEFLATED)
    archive.writestr(zipfile.ZipInfo(f"resources/{DIGEST_FILE}", (1980, 1, 1, 0, 0, 0)),
                     resource_digests(archive), zipfile.ZIP_DEFLATED)
