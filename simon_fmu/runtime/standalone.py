"""Standalone FMUs: an FMU that carries everything it needs to run on Linux x86-64.

:func:`make_standalone` turns a development FMU (what ``build`` writes: the project's FMI
library over the building environment's Python) into one that needs nothing of that
environment:

```
binaries/linux64/<id>.so                    standalone_proxy.c: the FMI functions, libc only
resources/standalone/bin/simon-fmu-worker   standalone_worker.c: the FMU's own process
resources/standalone/lib/libpython3.X.so.1.0, fmi2_python.so (the project's FMI library)
resources/standalone/python/lib/python3.X/  a pruned standard library (sourceless .pyc),
                                            lib-dynload, site-packages (numpy, numba,
                                            llvmlite, lxml, simon_fmu_worker)
resources/standalone/numba-cache/           the engine's kernels, compiled at build time
                                            for a generic x86-64 CPU
resources/standalone/manifest.json          what the FMU carries (read by ``doctor``)
```

Everything else (the slave, the bundled engine, the event) is the development FMU's, with
bytecode compiled next to it. The runtime (the worker, libpython, the standard library and the
packages, compressed) is staged once per environment and kept in the user cache
(:func:`prepared_runtime`), so the next standalone build copies it instead of staging it
again. See docs/standalone.md for the design and its trade-offs.
"""
from __future__ import annotations

import compileall
import json
import os
import py_compile
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import zipfile
from importlib import metadata
from pathlib import Path

from . import fmi2_library
from .fmi2_library import CFLAGS, SHARED_DIR, SOURCE_DIR, LibraryBuildError, PathLike

PROXY = "standalone_proxy.c"
WORKER = "standalone_worker.c"
CHANNEL = "standalone_channel.h"
STANDALONE = "standalone"
WORKER_NAME = "simon-fmu-worker"
MANIFEST = "manifest.json"
#: The packages the FMU's code imports beyond the standard library.
PACKAGES = ("numpy", "numba", "llvmlite", "lxml", "trimesh", "crgutils")
#: Folders of the standard library a simulation never imports.
STDLIB_PRUNED = {"test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo", "ensurepip",
                 "lib2to3", "pydoc_data", "venv", "distutils", "site-packages", "__pycache__",
                 "curses", "dbm", "sqlite3", "wsgiref", "xmlrpc", "msilib"}
STDLIB_FILES_PRUNED = {"turtle.py", "pydoc.py", "doctest.py", "_pydecimal.py", "imaplib.py",
                       "nntplib.py", "smtplib.py", "poplib.py", "ftplib.py", "mailbox.py"}
DYNLOAD_PRUNED = ("_test", "_ctypes_test", "_tkinter", "xxlimited", "xxsubtype", "_xxtestfuzz",
                  "_curses", "_sqlite3", "_dbm", "_gdbm", "readline", "_crypt", "nis",
                  "ossaudiodev", "spwd", "_testbuffer", "_testcapi", "_testimportmultiple",
                  "_testinternalcapi", "_testmultiphase", "_xxsubinterpreters")
#: Parts of the packages a simulation never imports.
PACKAGE_PRUNED = {"tests", "test", "testing", "__pycache__", "include", "includes", "cuda",
                  "distutils", "f2py", "_pyinstaller", "isoschematron", "html"}
#: Extension modules of the packages a simulation never imports (by name prefix).
MODULES_PRUNED = ("_simd.", "objectify.", "_test")
PACKAGE_KEEP = {"numpy/testing"}     # numba imports it
SUFFIX_PRUNED = (".pyi", ".pxd", ".pyx", ".h", ".c", ".cpp", ".hpp", ".pxi", ".f", ".f90",
                 ".pyc", ".typed")


class StandaloneError(RuntimeError):
    """A standalone FMU cannot be made here (the message says why)."""


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise StandaloneError(f"{' '.join(map(str, command))} failed "
                              f"(exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done


def _strip(path: Path) -> None:
    if shutil.which("strip"):
        subprocess.run(["strip", "--strip-unneeded", str(path)], capture_output=True)


def compile_proxy(output: Path) -> Path:
    """``binaries/linux64/<id>.so``: the FMI functions over the channel; needs libc only."""
    cc = fmi2_library._compiler()
    includes = [f"-I{SOURCE_DIR}", f"-I{SHARED_DIR}", f"-I{fmi2_library.fmi2_headers()}"]
    _run([cc, *CFLAGS, *includes, str(SOURCE_DIR / PROXY), "-o", str(output)])
    _strip(output)
    return output


def compile_worker(output: Path) -> Path:
    """The worker, linked to libpython with an rpath of ``$ORIGIN/../lib`` (DT_RPATH, which
    LD_LIBRARY_PATH cannot override)."""
    cc = fmi2_library._compiler()
    lib = fmi2_library.libpython()
    if lib is None:
        raise StandaloneError("this Python has no shared libpython: a standalone FMU needs one "
                              "(pyenv: --enable-shared; Debian: libpython3.X)")
    flags = [f for f in CFLAGS if f not in ("-shared", "-fPIC", "-fvisibility=hidden")]
    name = sysconfig.get_config_var("LDLIBRARY") or lib.name
    link = name[3:].split(".so")[0] if name.startswith("lib") else "python3"
    _run([cc, *flags, f"-I{SOURCE_DIR}", f"-I{SHARED_DIR}", f"-I{fmi2_library.fmi2_headers()}",
          f"-I{fmi2_library.python_include()}", str(SOURCE_DIR / WORKER), "-o", str(output),
          f"-L{lib.parent}", f"-l{link}", "-Wl,-rpath,$ORIGIN/../lib", "-Wl,--disable-new-dtags",
          "-ldl", "-lm"])
    _strip(output)
    return output


def _copy_tree(source: Path, target: Path, keep) -> None:
    """Copy the files under ``source`` for which keep(relative path) is true."""
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_dir() or not keep(rel):
            continue
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest, follow_symlinks=True)


def _stage_stdlib(lib: Path) -> None:
    stdlib = Path(sysconfig.get_paths()["stdlib"])

    def keep(rel: Path) -> bool:
        if any(part in STDLIB_PRUNED or part.startswith("config-") for part in rel.parts):
            return False
        if rel.parts[0] == "lib-dynload":
            return not rel.name.startswith(DYNLOAD_PRUNED)
        return rel.name not in STDLIB_FILES_PRUNED and not rel.name.endswith((".pyc", ".exe"))
    _copy_tree(stdlib, lib, keep)
    # sourceless bytecode, valid whatever the files' times (unchecked hash)
    compileall.compile_dir(str(lib), quiet=2, legacy=True, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                           rx=__import__("re").compile(r"lib-dynload|site-packages"))
    for path in lib.rglob("*.py"):
        if "site-packages" in path.parts or path.name == "os.py":   # os.py: the landmark
            continue
        if path.with_suffix(".pyc").is_file():
            path.unlink()


def _distribution_files(name: str):
    dist = metadata.distribution(name)
    return dist, [Path(str(f)) for f in dist.files or ()]


def _stage_packages(site: Path) -> dict:
    versions = {}
    for name in PACKAGES:
        dist, files = _distribution_files(name)
        versions[name] = dist.version
        base = Path(dist.locate_file(""))

        def keep(rel: Path) -> bool:
            text = rel.as_posix()
            if any(text.startswith(k + "/") for k in PACKAGE_KEEP):
                return not any(p in ("tests", "__pycache__") for p in rel.parts)
            if any(part in PACKAGE_PRUNED for part in rel.parts[1:]):
                return False
            if rel.suffix in SUFFIX_PRUNED or rel.name.startswith(MODULES_PRUNED):
                return False
            return not rel.parts[0].endswith(".dist-info") or rel.name in ("METADATA",
                                                                          "top_level.txt")
        for rel in files:
            path = base / rel
            if rel.parts and rel.parts[0] != ".." and path.is_file() and keep(rel):
                dest = site / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
    shutil.copy2(Path(__file__).with_name("standalone_boot.py"), site / "simon_fmu_worker.py")
    compileall.compile_dir(str(site), quiet=2, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    return versions


def _compile_resources(resources: Path) -> None:
    """Bytecode for the FMU's own code, beside it: imported as is, never written at run time."""
    for path in resources.rglob("*.py"):
        if STANDALONE in path.relative_to(resources).parts[:1]:
            continue
        py_compile.compile(str(path), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


_WARM = textwrap.dedent("""
    import sys
    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave
    folder = sys.argv[1]
    md = read_model_description(folder)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="warm")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    outputs = [v.valueReference for v in md.modelVariables
               if v.causality == "output" and v.type == "Real"]
    t, h = 0.0, 0.001
    for _ in range(3):
        fmu.doStep(t, h)
        t += h
    state = fmu.getFMUstate()
    fmu.doStep(t, h)
    fmu.setFMUstate(state)
    data = fmu.serializeFMUstate(state)
    fmu.freeFMUstate(state)
    fmu.setFMUstate(fmu.deSerializeFMUstate(data))
    fmu.doStep(t, h)
    fmu.getReal(outputs)
    fmu.terminate()
    fmu.reset()
    fmu.freeInstance()
""")


def _warm(folder: Path) -> str:
    """Run the staged FMU once through its own library, so that the worker compiles the
    kernels into the shipped cache (for a generic CPU); answers the worker's report."""
    from ..tools.report import says_when_slow
    with says_when_slow("simon-fmu: compiling the kernels for a generic x86-64 CPU (a few "
                        "minutes; kept for the next standalone build of these sources)"):
        done = _run([sys.executable, "-c", _WARM, str(folder)],
                    env={**os.environ, "SIMON_FMU_CACHE": "off"}, timeout=900)
    return done.stderr


def kernel_store():
    """Where the standalone builds keep the kernels they compiled, by package:
    ``<user cache>/standalone-kernels/<package folder>/`` (``simon_fmu.runtime.entry.cache_root``;
    None when ``SIMON_FMU_CACHE`` is ``off``). A bundled package's folder name carries the
    digest of its sources (``simon_engine_<digest>``), and numba checks a cached kernel against
    the bytes of its source file, its version and the CPU (generic), so a kernel found here is
    the one the build would compile."""
    from .entry import cache_root
    if os.environ.get("SIMON_FMU_CACHE", "").lower() == "off":
        return None
    return cache_root() / "standalone-kernels"


def _seed_kernels(resources: Path, shipped: Path) -> list[str]:
    """Copy the kernels :func:`kernel_store` holds for the FMU's packages into its shipped
    cache; return the packages found."""
    store = kernel_store()
    found = []
    if store is None or not store.is_dir():
        return found
    for package in sorted(p.name for p in resources.iterdir() if p.is_dir()):
        kept = store / package
        if (kept / ".complete").is_file():
            shutil.copytree(kept, shipped / package, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(".complete"))
            found.append(package)
    return found


def _keep_kernels(shipped: Path) -> None:
    """Keep the shipped cache's kernels in :func:`kernel_store`, package by package: a new
    package whole, a kept one updated with what this build added (numba's index of a kernel
    lists every signature compiled for it, the kept ones included); a store that cannot be
    written is skipped."""
    store = kernel_store()
    if store is None:
        return
    for folder in sorted(p for p in shipped.iterdir() if p.is_dir()):
        if not any(folder.rglob("*.nbi")):
            continue
        kept = store / folder.name
        staging = store / f".{folder.name}.{os.getpid()}.partial"
        try:
            if (kept / ".complete").is_file():
                shutil.copytree(folder, kept, dirs_exist_ok=True)
                continue
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(folder, staging)
            (staging / ".complete").write_text(folder.name + "\n")
            os.replace(staging, kept)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)


def _glibc_of(paths) -> tuple:
    """The newest glibc symbol version the binaries ``paths`` need (objdump), as a tuple;
    (0,) when there is no objdump or none needs one."""
    import re
    newest = (0,)
    if shutil.which("objdump"):
        for path in paths:
            done = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True)
            for version in re.findall(r"GLIBC_([0-9.]+)", done.stdout):
                newest = max(newest, tuple(int(x) for x in version.split(".")))
    return newest


def _binaries(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*"))
            if p.is_file() and (".so" in p.name or p.name == WORKER_NAME)]


def _glibc_text(newest: tuple) -> str:
    import platform
    return ".".join(map(str, newest)) if newest != (0,) else platform.libc_ver()[1]


def runtime_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# ------------------------------------------------------------------ the runtime, kept

#: What the kept runtime holds, under the FMU's root (the rest of the FMU is its own).
RUNTIME_INFO = "runtime.json"
RUNTIME_ZIP = "runtime.zip"
RUNTIME_PROXY = "proxy.so"


def runtime_store():
    """Where standalone builds keep the runtime they staged (:func:`prepared_runtime`):
    ``<user cache>/standalone-runtime/<key>/`` (None when ``SIMON_FMU_CACHE`` is ``off``)."""
    from .entry import cache_root
    if os.environ.get("SIMON_FMU_CACHE", "").lower() == "off":
        return None
    return cache_root() / "standalone-runtime"


def runtime_key() -> str:
    """The digest of everything the runtime is made from: this module and the worker's boot
    script (what is staged and pruned), the C sources and flags of the proxy and the worker,
    the Python (version, executable, standard library, libpython's file) and each package's
    name, version, location and installed-file record."""
    import hashlib
    h = hashlib.sha256()
    here = Path(__file__)
    for path in (here, here.with_name("standalone_boot.py"),
                 *sorted(SOURCE_DIR.glob("*.[ch]")),
                 *(SHARED_DIR / name for name in fmi2_library.SHARED_HEADERS)):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(" ".join(CFLAGS).encode())
    lib = fmi2_library.libpython()
    stat = lib.resolve().stat() if lib is not None else None
    h.update(f"{sys.version}\0{sys.executable}\0{sysconfig.get_paths()['stdlib']}\0"
             f"{lib and lib.resolve()}\0{stat and stat.st_size}\0{stat and stat.st_mtime_ns}"
             f"\0{fmi2_library.fmi2_headers()}\0{os.environ.get('CC', 'gcc')}".encode())
    for name in PACKAGES:
        dist = metadata.distribution(name)
        h.update(f"{name}\0{dist.version}\0{dist.locate_file('')}\0".encode())
        h.update((dist.read_text("RECORD") or "").encode())
    return h.hexdigest()[:20]


def prepared_runtime(scratch: Path | None = None) -> tuple[Path, bool]:
    """(folder, kept): the folder holding the runtime every standalone FMU of this environment
    carries, made once and kept in :func:`runtime_store` (without a store, made under
    ``scratch``):

    - ``runtime.zip``: ``resources/standalone/{bin,lib,python}`` as the FMU holds them (the
      worker, libpython, the pruned standard library and packages with their bytecode), each
      member compressed as the FMU's are, so that a build copies them as they are;
    - ``proxy.so``: the FMI functions of ``binaries/linux64/<id>.so``;
    - ``runtime.json``: the packages' versions, the newest glibc symbol the binaries need,
      the members;

    ``kept`` is true when an earlier build had made it."""
    store = runtime_store()
    key = runtime_key()
    if store is not None:
        kept = store / key
        if (kept / ".complete").is_file():
            return kept, True
        store.mkdir(parents=True, exist_ok=True)
        staging = store / f".{key}.{os.getpid()}.partial"
    else:
        if scratch is None:
            raise ValueError("scratch: a folder is needed when SIMON_FMU_CACHE is off")
        staging = kept = Path(scratch) / "runtime"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _make_runtime(staging)
        if store is None:
            return kept, False
        (staging / ".complete").write_text(key + "\n")
        try:
            os.rename(staging, kept)
        except OSError:          # another build kept it first
            shutil.rmtree(staging, ignore_errors=True)
        return kept, False
    except BaseException:
        if store is not None:
            shutil.rmtree(staging, ignore_errors=True)
        raise


def _make_runtime(folder: Path) -> None:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    lib = fmi2_library.libpython()          # compile_worker refuses a Python without one
    tree = folder / "tree"
    root = tree / "resources" / STANDALONE
    for name in ("bin", "lib"):
        (root / name).mkdir(parents=True)
    compile_proxy(folder / RUNTIME_PROXY)
    compile_worker(root / "bin" / WORKER_NAME)
    lib_name = sysconfig.get_config_var("INSTSONAME") or lib.name
    shutil.copy2(lib.resolve(), root / "lib" / lib_name)
    python_lib = root / "python" / "lib" / f"python{version}"
    _stage_stdlib(python_lib)
    versions = _stage_packages(python_lib / "site-packages")
    # the wheels' own libraries are left alone: auditwheel's patchelf edits do not survive
    # strip; these carry debug symbols and are not patched
    for so in [root / "lib" / lib_name, *root.rglob("libllvmlite.so")]:
        _strip(so)
    members = _zip(tree, folder / RUNTIME_ZIP)
    glibc = _glibc_of([*_binaries(tree), folder / RUNTIME_PROXY])
    (folder / RUNTIME_INFO).write_text(json.dumps(
        {"packages": versions, "glibc": list(glibc), "members": members}, indent=1) + "\n")
    shutil.rmtree(tree)


def make_standalone(development_fmu: PathLike, output: PathLike, warm: bool = True) -> Path:
    """Write the standalone form of ``development_fmu`` to ``output`` and return its path."""
    from fmpy import read_model_description

    development_fmu, output = Path(development_fmu), Path(output)
    md = read_model_description(str(development_fmu), validate=False)
    identifier = md.coSimulation.modelIdentifier
    if fmi2_library.libpython() is None:
        raise StandaloneError("this Python has no shared libpython")
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="simon_standalone_") as tmp:
        tree = Path(tmp) / "fmu"
        with zipfile.ZipFile(development_fmu) as archive:
            archive.extractall(tree)
        binaries = tree / "binaries" / "linux64"
        resources = tree / "resources"
        root = resources / STANDALONE
        implementation = binaries / f"{identifier}_python.so"
        if not implementation.is_file():
            raise StandaloneError(f"{development_fmu} carries no {implementation.name}: only "
                                  "FMUs on the project's own library can be made standalone")
        runtime, had_runtime = prepared_runtime(Path(tmp))
        info = json.loads((runtime / RUNTIME_INFO).read_text())
        with zipfile.ZipFile(runtime / RUNTIME_ZIP) as archive:
            archive.extractall(tree)
        (root / "numba-cache").mkdir()
        shutil.move(implementation, root / "lib" / "fmi2_python.so")
        _strip(root / "lib" / "fmi2_python.so")
        (resources / fmi2_library.RECORD_FILE).unlink(missing_ok=True)
        shutil.copy2(runtime / RUNTIME_PROXY, binaries / f"{identifier}.so")
        _compile_resources(resources)
        # the kernels an earlier build compiled from the same sources, when it kept them
        seeded = _seed_kernels(resources, root / "numba-cache") if warm else []
        before = {p.name for p in (root / "numba-cache").rglob("*.nbc")}
        report = _warm(tree) if warm else ""
        compiled = sorted(p.name for p in (root / "numba-cache").rglob("*.nbi"))
        new = sorted({p.name for p in (root / "numba-cache").rglob("*.nbc")} - before)
        if warm and compiled:
            _keep_kernels(root / "numba-cache")
        glibc = max(tuple(info["glibc"]), _glibc_of([root / "lib" / "fmi2_python.so"]))
        manifest = {
            "format": 1, "platform": "linux64 (x86-64, glibc)", "model_identifier": identifier,
            "python": sys.version.split()[0], "packages": info["packages"],
            "numba_cpu": "generic", "compiled_kernels": compiled,
            "kernels_from_an_earlier_build": seeded, "compiled_by_this_build": new,
            "runtime_from_an_earlier_build": had_runtime,
            "worker": f"{STANDALONE}/bin/{WORKER_NAME}",
            "runtime_bytes": runtime_size(root), "glibc": _glibc_text(glibc),
        }
        (root / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        if warm and not compiled and "compiling" in report:
            raise StandaloneError(f"the kernels were not cached by the warm-up run:\n{report}")
        _zip(tree, output, runtime / RUNTIME_ZIP, set(info["members"]))
    return output


def _zip(tree: Path, output: Path, base: Path | None = None, skip=frozenset()) -> list[str]:
    """Zip the files under ``tree`` to ``output`` (names relative to ``tree``, all dated
    1980-01-01, executables 0755, the rest 0644), after the members of the zip ``base``
    copied as they are; files named in ``skip`` are left out. Answers the names written."""
    from .packaging import partial_path
    partial = partial_path(output)
    if base is not None:
        shutil.copyfile(base, partial)
    names = []
    with zipfile.ZipFile(partial, "a" if base is not None else "w", zipfile.ZIP_DEFLATED,
                         compresslevel=6) as archive:
        for path in sorted(tree.rglob("*")):
            if path.is_dir():
                continue
            rel = path.relative_to(tree).as_posix()
            if rel in skip:
                continue
            info = zipfile.ZipInfo(rel, (1980, 1, 1, 0, 0, 0))
            executable = rel.startswith("binaries/") or rel.endswith(f"bin/{WORKER_NAME}") \
                or ".so" in path.name
            info.external_attr = (0o755 if executable else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
            names.append(rel)
    os.replace(partial, output)
    return names


def build_standalone(build, output: PathLike, *args, **kwargs) -> Path:
    """Build a development FMU with ``build(*args, output=..., **kwargs)`` (one of the
    project's builders) in a temporary folder and write its standalone form to ``output``."""
    with tempfile.TemporaryDirectory(prefix="simon_dev_") as tmp:
        development = build(*args, output=Path(tmp) / Path(output).name, **kwargs)
        return make_standalone(development, output)
