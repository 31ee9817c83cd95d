"""Entry module of a built FMU: the FMU's library imports it from the resources folder.

The build copies this file, unchanged, to ``resources/simon_slave_<digest>.py``; ``<digest>``
is the content hash of the code the FMU bundles as the packages ``resources/simon_<digest>``
(the catalogue and the slave) and ``resources/simon_engine_<engine digest>`` (see
:mod:`simon_fmu.runtime.bundle`). So two FMUs with different code never share a module in one
process, and two with the same code share it harmlessly; each instance reads its own event
from its own resources folder.

Each package is imported from a copy made once under the user's cache folder
(``$SIMON_FMU_CACHE``, else ``$XDG_CACHE_HOME/simon-fmu``, else ``~/.cache/simon-fmu``),
keyed by the digest. Its files keep their paths and times from one extraction of an FMU to
the next, so numba's cache of compiled code, which is keyed on them, stays valid. Where that
folder cannot be written, the package is imported from the resources folder itself. A
standalone FMU (``resources/standalone/``, see docs/standalone.md) always imports its packages
in place: its compiled kernels are found by content, not by file times, and it writes nothing.

A development FMU run where the project's own ``engine`` package is importable with exactly
the files its bundled engine was made from (the repository it was built in, unedited since)
takes that package instead of its copy (:func:`development_engine`): one compile of the kernels
serves the repository and its FMUs, and a process that uses both holds one engine, not two.

The project's FMI library (:mod:`simon_fmu.runtime.fmi2_library`) imports this file once per process,
as ``resources/slavemodule.txt`` names it. pythonfmu 0.7.0's library (``build --library
pythonfmu``) runs it again for every instance; the second time it only looks the package
up in ``sys.modules``.
"""
import hashlib
import importlib
import importlib.util
import os
import pkgutil
import shutil
import sys
import threading
import types
from pathlib import Path


#: The engine's files an FMU bundles (patterns under the package's folder), and the name of
#: its bundled copy: this prefix and the digest of those files.
ENGINE_FILES = ("**/*.py", "data/*.json")
ENGINE_PREFIX = "simon_engine_"
#: The version of the import rewriting of simon_fmu.runtime.bundle, which the digests cover:
#: bumped whenever the rewriting changes what it writes.
REWRITE_VERSION = b"1"


def package_files(name: str, root: Path, patterns) -> dict:
    """{path in the bundle (``name/...``): source file} for the files of the package folder
    ``root`` that match ``patterns``."""
    files = {}
    for pattern in patterns:
        for path in root.glob(pattern):
            if path.is_file() and "__pycache__" not in path.parts:
                files[f"{name}/{path.relative_to(root).as_posix()}"] = path
    return files


def digest(files) -> str:
    """A short content hash of bundled files, (path in the bundle, source file) pairs sorted
    by path: their names and bytes, and the rewriting's version."""
    h = hashlib.sha256(REWRITE_VERSION)
    for rel, path in files:
        data = path.read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:16]


def development_engine(name: str):
    """The importable package ``engine`` when its files are those the bundled engine ``name``
    (``simon_engine_<digest>``) was made from, imported with every module of it, each also
    under the bundled name (so that the bundled slave's imports find it); else None.

    The engine's modules import each other only relatively, so a bundled copy is the files
    themselves: the same digest is the same code. A folder named ``engine`` with other files
    (another version, or another project's package) gives another digest and is not taken."""
    if not name.startswith(ENGINE_PREFIX) or os.environ.get("SIMON_FMU_BUNDLED_ENGINE"):
        return None
    try:
        spec = importlib.util.find_spec("engine")
        roots = list(spec.submodule_search_locations or []) if spec else []
        if len(roots) != 1 or digest(sorted(package_files(
                "engine", Path(roots[0]), ENGINE_FILES).items())) != name[len(ENGINE_PREFIX):]:
            return None
        package = importlib.import_module("engine")
        for info in pkgutil.walk_packages(package.__path__, "engine."):
            importlib.import_module(info.name)
    except Exception:  # noqa: BLE001 - the bundled copy serves instead
        return None
    for key, module in list(sys.modules.items()):
        if key == "engine" or key.startswith("engine."):
            sys.modules[name + key[len("engine"):]] = module
    return package


def cache_root() -> Path:
    """The folder that holds one copy of each bundled package, by digest."""
    if os.environ.get("SIMON_FMU_CACHE"):
        return Path(os.environ["SIMON_FMU_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "simon-fmu"


def stable_copy(source: Path, name: str) -> Path:
    """Copy the package folder ``source`` to the cache once; return the copy (or ``source``)."""
    try:
        root = cache_root()
        target = root / name
        if (target / ".complete").is_file():
            return target
        root.mkdir(parents=True, exist_ok=True)
        staging = root / f".{name}.{os.getpid()}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(source, staging, ignore=shutil.ignore_patterns("__pycache__"))
        (staging / ".complete").write_text(name + "\n")
        try:
            os.rename(staging, target)
        except OSError:  # another process made it first
            shutil.rmtree(staging, ignore_errors=True)
        return target if (target / ".complete").is_file() else source
    except OSError:
        return source


def import_lock() -> "threading.RLock":
    """The process's one lock around the imports of simon-fmu's slave modules and packages.

    A package is in ``sys.modules`` while its code runs, and that code lets the GIL go, so an
    instance created at the same time in another thread (of this FMU or of another one that
    bundles the same package) must wait for the import to end rather than take the half-run
    package. The project's FMI library (fmi2_lifecycle.c) holds the same lock, the RLock
    ``lock`` of the module ``_simon_fmu_import``, while it imports this file; each FMU has its
    own copy of this file and of the library, so the lock lives in ``sys.modules``.
    """
    shared = types.ModuleType("_simon_fmu_import", "the lock of simon-fmu slave imports")
    shared.lock = threading.RLock()
    return sys.modules.setdefault("_simon_fmu_import", shared).lock


def load_package(resources: Path, name: str):
    """Import the bundled package ``name`` (once per process) and return it."""
    with import_lock():
        return _load_package(resources, name)


def _load_package(resources: Path, name: str):
    if name in sys.modules:
        return sys.modules[name]
    standalone = (resources / "standalone").is_dir()
    shared = None if standalone else development_engine(name)
    if shared is not None:
        return shared
    location = resources / name if standalone else stable_copy(resources / name, name)
    spec = importlib.util.spec_from_file_location(
        name, location / "__init__.py", submodule_search_locations=[str(location)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as exc:
        del sys.modules[name]
        if (exc.name or "").partition(".")[0] in _ENVIRONMENT_PACKAGES:
            raise ImportError(development_message(resources)) from None
        raise
    except BaseException:
        del sys.modules[name]
        raise
    return module


#: What the FMU's code imports from the Python environment (a standalone FMU carries them).
_ENVIRONMENT_PACKAGES = ("numpy", "numba", "llvmlite", "scipy", "lxml")


def development_message(resources: Path) -> str:
    """What a development FMU says when the interpreter that runs it lacks its packages."""
    try:
        lines = (resources / "fmi2_python.txt").read_text().splitlines()
    except OSError:
        lines = []
    record = dict(line.partition("=")[::2] for line in lines if not line.startswith("#"))
    prefix = record.get("prefix") or record.get("executable")
    return (f"this FMU was built for development and needs the Python environment at "
            f"{prefix or 'the one it was built in'}; build with --native (a vehicle FMU) or "
            f"--standalone to run it elsewhere (the interpreter running it, {sys.executable}, "
            f"lacks its packages)")


if __name__.startswith("simon_slave_"):
    # pythonfmu 0.7.0 (findClass in PySlaveInstance.cpp) runs this file again for every
    # instance and then calls Py_DECREF on the module's dict, a borrowed reference: without
    # one new reference per run the dict is freed after a few instances, and the next
    # fmi2Instantiate crashes the process. So each run keeps one more reference to it.
    globals().setdefault("_dict_references", []).append(globals())
    # pythonfmu puts the resources folder on sys.path again for every instance
    sys.path[:] = list(dict.fromkeys(sys.path))
    _resources = Path(__file__).resolve().parent
    for _folder in sorted(_resources.glob("simon_*/__init__.py")):
        load_package(_resources, _folder.parent.name)
    SimonSlave = importlib.import_module(
        "simon_" + __name__[len("simon_slave_"):] + ".simon_fmu.vehicle.slave").SimonSlave
