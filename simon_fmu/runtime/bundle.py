"""The code an FMU carries: the engine, the catalogue and the slave, under content-hashed names.

:func:`stage_packages` copies the project's runtime packages into two uniquely named
top-level packages: the engine as ``simon_engine_<engine digest>/``, and the catalogue and
the slave as ``simon_<digest>/model_description`` and ``simon_<digest>/simon_fmu``. Their
absolute imports of each other (``import engine``, ``from engine.x import y``,
``from model_description import ...``) are rewritten to those names; relative imports are
left alone. A digest is a hash of the original files (``<digest>`` of all of them), so it
names the code exactly: FMUs built from different code never collide in ``sys.modules``.
The engine has a name of its own so that numba's cache of its compiled code, keyed on module
names and files, survives changes to the slave. Line numbers are kept, so tracebacks and
numba's cache index refer to the same lines as the sources.
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

# digest is part of this module's interface too (bundle.digest)
from .entry import ENGINE_FILES, ENGINE_PREFIX, digest, package_files  # noqa: F401

#: The project's packages an FMU needs at run time, and which of their files it takes.
RUNTIME = {
    "engine": ENGINE_FILES,
    "model_description": ("*.py",),
    "simon_fmu": ("__init__.py", "vehicle/__init__.py", "vehicle/slave.py",
                  "runtime/__init__.py", "runtime/protocol.py", "runtime/exit_guard.py",
                  "runtime/checksum.py"),
}


class BundleError(Exception):
    """The project's sources cannot be bundled (the message says which file and why)."""


def package_dir(name: str) -> Path:
    """Where the importable package ``name`` lives (the repository or site-packages)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise BundleError(f"package {name!r} is not importable")
    return Path(list(spec.submodule_search_locations)[0])


def runtime_files(runtime: dict | None = None) -> list[tuple[str, Path]]:
    """(path inside the bundle, source file) for every file the FMU needs, sorted.

    ``runtime`` maps packages to the patterns of their files (default :data:`RUNTIME`).
    """
    files = {}
    for name, patterns in (RUNTIME if runtime is None else runtime).items():
        files.update(package_files(name, package_dir(name), patterns))
    return sorted(files.items())


#: rewritten sources by (source, names, file name): every build of one process stages the same
#: files, and parsing them twice over took most of a build's time
_REWRITTEN: dict = {}


def rewrite_imports(source: str, names: dict[str, str], filename: str = "<source>") -> str:
    """Rewrite absolute imports of the packages in ``names`` (old name -> new dotted name)."""
    key = (source, tuple(sorted(names.items())), filename)
    if key not in _REWRITTEN:
        _REWRITTEN[key] = _rewrite_imports(source, names, filename)
    return _REWRITTEN[key]


def _rewrite_imports(source: str, names: dict[str, str], filename: str) -> str:
    tree = ast.parse(source, filename)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name.split(".")[0] in names for a in node.names):
                edits.append((node, "; ".join(_import_parts(node, names))))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in names:
            top, _, rest = node.module.partition(".")
            module = names[top] + (f".{rest}" if rest else "")
            imported = ", ".join(a.name + (f" as {a.asname}" if a.asname else "")
                                 for a in node.names)
            edits.append((node, f"from {module} import {imported}"))
    lines = source.splitlines(keepends=True)
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
        head = first.encode()[:node.col_offset].decode()
        tail = last.encode()[node.end_col_offset:].decode()
        # keep the line count: the statement's extra lines become empty ones
        replaced = head + text + "\n" * (node.end_lineno - node.lineno) + tail
        lines[node.lineno - 1:node.end_lineno] = [replaced]
    result = "".join(lines)
    try:
        ast.parse(result, filename)
    except SyntaxError as exc:
        raise BundleError(f"{filename}: cannot rewrite its imports ({exc})") from None
    if result.count("\n") != source.count("\n"):
        raise BundleError(f"{filename}: rewriting its imports changed its line count")
    return result


def _import_parts(node: ast.Import, names: dict[str, str]) -> list[str]:
    parts = []
    for a in node.names:
        top, _, rest = a.name.partition(".")
        if top not in names:
            parts.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            continue
        module = names[top] + (f".{rest}" if rest else "")
        if a.asname:
            parts.append(f"import {module} as {a.asname}")
        else:
            if rest:
                parts.append(f"import {module}")
            parts.append(f"import {names[top]} as {top}")
    return parts


def package_names(files: list[tuple[str, Path]]) -> tuple[str, dict[str, str]]:
    """(digest of all files, runtime package name -> its name inside an FMU)."""
    key = digest(files)
    engine_key = digest([f for f in files if f[0].startswith("engine/")])
    return key, {"engine": ENGINE_PREFIX + engine_key,
                 "model_description": f"simon_{key}.model_description",
                 "simon_fmu": f"simon_{key}.simon_fmu"}


def stage_packages(dest: Path, runtime: dict | None = None) -> tuple[str, list[str]]:
    """Write the bundled packages under ``dest``; return (digest, top-level package names).

    ``runtime`` as for :func:`runtime_files` (default :data:`RUNTIME`, the vehicle's).
    """
    files = runtime_files(runtime)
    key, names = package_names(files)
    tops = sorted({name.split(".")[0] for name in names.values()})
    for top in tops:
        (dest / top).mkdir(parents=True)
    (dest / f"simon_{key}" / "__init__.py").write_text(
        f'"""The catalogue and the slave as bundled in an FMU (content hash {key})."""\n')
    for rel, path in files:
        top, _, inner = rel.partition("/")
        target = dest.joinpath(*names[top].split("."), inner)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            target.write_text(rewrite_imports(path.read_text(), names, rel))
        else:
            target.write_bytes(path.read_bytes())
    return key, tops
