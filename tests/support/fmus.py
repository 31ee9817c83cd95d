"""The tests' FMUs, each built once: in process, and kept by content in a cache folder.

An FMU is named by what goes into it: the sources of the project's packages (every file of
``engine``, ``model_description`` and ``simon_fmu``, including the FMI library's C sources),
the builder, the model identifier, the library, and the event as the FMU holds it with the
bytes of the files it names (the same inputs as the FMU's GUID, plus the build code). Each one
is built at most once into ``.pytest_cache/simon-fmus/<sources digest>/`` of the clone, under
a file lock, so the test workers of one session never build the same FMU twice and a second
session with the same sources builds none; a test gets its own copy at the path it asks for.
The folder of an older digest is removed when a session starts with other sources.

``$SIMON_TEST_FMU_CACHE`` names another folder. Every real build appends a line to
``builds.log`` there.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("engine", "model_description", "simon_fmu")
_SKIP_SUFFIXES = {".pyc", ".nbi", ".nbc", ".so", ".o"}
#: Bumped whenever what a key covers changes.
_VERSION = "1"


def cache_base() -> Path:
    if os.environ.get("SIMON_TEST_FMU_CACHE"):
        return Path(os.environ["SIMON_TEST_FMU_CACHE"])
    return ROOT / ".pytest_cache" / "simon-fmus"


def _sources_digest() -> str:
    """A hash of every file the builds read from the project, with the interpreter and the
    versions of pythonfmu and numba (which shape the FMU or its compiled code)."""
    from importlib.metadata import version
    h = hashlib.sha256(f"{_VERSION}\0{sys.version}\0{sys.executable}\0".encode())
    for dist in ("pythonfmu", "numba", "llvmlite", "numpy", "scipy", "lxml", "fmpy"):
        h.update(f"{dist}={version(dist)}\0".encode())
    for package in _PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in _SKIP_SUFFIXES:
                continue
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


_DIGEST: Optional[str] = None


def sources_digest() -> str:
    """:func:`_sources_digest` as this process first read it."""
    global _DIGEST
    if _DIGEST is None:
        _DIGEST = _sources_digest()
    return _DIGEST


def cache_dir() -> Path:
    folder = cache_base() / sources_digest()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def prune(keep_seconds: float = 3600.0) -> None:
    """Remove the folders of other sources not used for ``keep_seconds``."""
    base, current = cache_base(), sources_digest()
    if not base.is_dir():
        return
    for folder in base.iterdir():
        if folder.is_dir() and folder.name != current \
                and time.time() - folder.stat().st_mtime > keep_seconds:
            shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _locked(path: Path):
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def key(*parts: str) -> str:
    return hashlib.sha256("\0".join((sources_digest(),) + parts).encode()).hexdigest()[:24]


def vehicle_key(event_file: Optional[Path], model_identifier: str = "SimonCar",
                library: str = "simon") -> str:
    """The key of the vehicle FMU of ``event_file``: what its GUID covers, and the build."""
    import engine
    from simon_fmu.vehicle.build import fmu_event_json, resource_files
    event = engine.load_event(event_file)
    files = [hashlib.sha256(Path(p).read_bytes()).hexdigest()
             for p in resource_files(event).values()]
    return key("vehicle", model_identifier, library, fmu_event_json(event), *files)


def command_key(command: str, event: str) -> str:
    """The key of the FMU ``python -m simon_fmu <command> EVENT`` builds from the event text
    ``event`` (a command-line build in its own process, as a user runs it)."""
    return key("command", command, event)


def standalone_key(command: str) -> str:
    """The key of the standalone FMU ``python -m simon_fmu <command> --standalone`` builds
    (it carries this interpreter and the packages named in :func:`_sources_digest`)."""
    return key("standalone", command, sys.base_prefix)


def cached(key: str, output: Path, make) -> Path:
    """Copy the cached FMU ``key`` to ``output``, building it first with ``make(path)`` when
    no session has; return ``output``."""
    folder = cache_dir()
    fmu = folder / f"{key}.fmu"
    if not fmu.is_file():
        with _locked(folder / f"{key}.lock"):
            if not fmu.is_file():
                partial = folder / f"{key}.{os.getpid()}.partial.fmu"
                started = time.monotonic()
                make(partial)
                os.replace(partial, fmu)
                with open(folder / "builds.log", "a") as log:
                    log.write(f"{key} {output.name} pid={os.getpid()} "
                              f"{time.monotonic() - started:.1f}s\n")
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fmu, output)
    return output


def cached_folder(key: str, make) -> Path:
    """The folder ``key`` of the cache, made in place with ``make(path)`` when no session
    has (for what cannot move once made, as a virtual environment)."""
    folder = cache_dir() / key
    done = folder / ".complete"
    if not done.is_file():
        with _locked(cache_dir() / f"{key}.lock"):
            if not done.is_file():
                shutil.rmtree(folder, ignore_errors=True)    # a session stopped half-way
                make(folder)
                done.write_text(key + "\n")
    return folder


def vehicle(event_file: Optional[Path], output: Path, warm_cache: bool = False,
            **options) -> Path:
    """The vehicle FMU of ``event_file`` (None: the default car) at ``output``, as
    ``simon_fmu.vehicle.build.build_fmu(event_file, output, **options)`` builds it.

    ``warm_cache`` is passed on to the build that makes it: the FMU is the same either way
    (the bundled engine then compiles on its first instance instead of at build time).
    """
    from simon_fmu.vehicle.build import build_fmu

    def make(path: Path) -> None:
        build_fmu(event_file, path, warm_cache=warm_cache, **options)
    return cached(vehicle_key(event_file, **options), output, make)


def native(event_file: Optional[Path], output: Path, platforms: Optional[str] = None) -> Path:
    """The native FMU of ``event_file`` (None: the default car) at ``output``, as
    ``simon_fmu.native.build.build_native(event_file, output, platforms=platforms)`` builds it
    (``platforms``: None for all three)."""
    from simon_fmu.native.build import build_native

    def make(path: Path) -> None:
        build_native(event_file, path, log=lambda text: None, platforms=platforms)
    return cached(key("native", str(platforms), vehicle_key(event_file)), output, make)


def controller(kind: str, output: Path, event_file: Optional[Path] = None) -> Path:
    """The ``driver`` or ``abs`` FMU of ``event_file`` (default car) at ``output``."""
    from simon_fmu.controllers import build as controllers
    builder = {"driver": controllers.build_driver, "abs": controllers.build_abs}[kind]
    event = "" if event_file is None else Path(event_file).read_text()
    return cached(key("controller", kind, event), output,
                  lambda path: builder(event_file, path))


def event_fmu(fmu_dir: Path, name: str, data: dict) -> Path:
    """The FMU of event ``data`` (written to ``name``.json) as ``fmu_dir/name.fmu``; when that
    name was already given to other data, as ``fmu_dir/name-<key>.fmu``."""
    event_file = fmu_dir / f"{name}.json"
    text = json.dumps(data)
    if event_file.is_file() and event_file.read_text() != text:
        digest = hashlib.sha256(text.encode()).hexdigest()[:10]
        name, event_file = f"{name}-{digest}", fmu_dir / f"{name}-{digest}.json"
    fmu = fmu_dir / f"{name}.fmu"
    if not fmu.is_file():
        event_file.write_text(text)
        vehicle(event_file, fmu)
    return fmu


def builds() -> list[str]:
    """The lines of ``builds.log`` for the current sources (what was really built)."""
    log = cache_dir() / "builds.log"
    return log.read_text().splitlines() if log.is_file() else []


_COMPILE_IN_TREE = ("import engine; s = engine.Simulation(engine.load_event()); "
                    "s.advance(1.5 * s.step_size)")
#: the native FMU's kernels for the generic CPU, as a native build of the default car compiles
#: them (simon_fmu.native.build.kernel_ir, kept in the user cache); the set-up that gives their
#: argument types runs as Python here, so that this process compiles nothing of the in-tree
#: engine that the other one compiles at the same time
_COMPILE_NATIVE = ("import os; os.environ['NUMBA_DISABLE_JIT'] = '1'; import engine; "
                   "from simon_fmu.native.build import kernel_ir, kernel_signature; "
                   "s = engine.Simulation(engine.load_event()); "
                   "kernel_ir(kernel_signature(s), log=lambda t: None)")


def warm_up() -> None:
    """Compile the engine once before the test workers start: the in-tree engine (by a run of
    the default car), which the development FMUs run too (simon_fmu.runtime.entry,
    development_engine), and, at the same time, the native FMU's kernels for the generic CPU
    (:data:`_COMPILE_NATIVE`). Each in its own process, so that the two compile on two cores;
    a warm cache makes both quick."""
    import subprocess
    prune()
    tests = str(Path(__file__).resolve().parents[1])
    runs = [subprocess.Popen([sys.executable, "-c", code, tests], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            for code in (_COMPILE_IN_TREE, _COMPILE_NATIVE)]
    from simon_fmu.tools.report import says_when_slow
    with says_when_slow("compiling the engine before the test workers start (several minutes "
                        "the first time on 2 cores; cached for later runs) ..."):
        outputs = [run.communicate()[0] for run in runs]
    for run, out in zip(runs, outputs):
        if run.returncode != 0:   # the tests that need it will say why
            sys.stderr.write(f"warm-up failed: {out.decode(errors='replace')[-2000:]}\n")
