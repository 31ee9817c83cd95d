"""The code an FMU carries: the engine, the catalogue and the slave, as one uniquely named package.

:func:`stage_package` copies the project's runtime packages into ``<dest>/simon_<digest>/``
and rewrites their absolute imports of each other (``import engine``, ``from engine.x import
y``, ``from model_description import ...``) to point into that package. Relative imports are
left alone. ``<digest>`` is a hash of the original files, so it names the code exactly: FMUs
built from different code never collide in ``sys.modules``. Line numbers are kept, so
tracebacks and numba's cache index refer to the same lines as the sources.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path

#: The project's packages an FMU needs at run time, and which of their files it takes.
RUNTIME = {
    "engine": ("**/*.py", "data/*.json"),
    "model_description": ("*.py",),
    "simon_fmu": ("__init__.py", "slave.py"),
}
#: Bumped whenever the rewriting below changes what it writes.
_REWRITE_VERSION = b"1"


class BundleError(Exception):
    """The project's sources cannot be bundled (the message says which file and why)."""


def package_dir(name: str) -> Path:
    """Where the importable package ``name`` lives (the repository or site-packages)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise BundleError(f"package {name!r} is not importable")
    return Path(list(spec.submodule_search_locations)[0])


def runtime_files() -> list[tuple[str, Path]]:
    """(path inside the bundle, source file) for every file the FMU needs, sorted."""
    files = {}
    for name, patterns in RUNTIME.items():
        root = package_dir(name)
        for pattern in patterns:
            for path in root.glob(pattern):
                if path.is_file() and "__pycache__" not in path.parts:
                    files[f"{name}/{path.relative_to(root).as_posix()}"] = path
    return sorted(files.items())


def digest(files: list[tuple[str, Path]]) -> str:
    """A short content hash of the bundled files (names and bytes)."""
    h = hashlib.sha256(_REWRITE_VERSION)
    for rel, path in files:
        data = path.read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:16]


def rewrite_imports(source: str, package: str, filename: str = "<source>") -> str:
    """Make absolute imports of the runtime packages import from ``package`` instead."""
    tree = ast.parse(source, filename)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name.split(".")[0] in RUNTIME for a in node.names):
                edits.append((node, "; ".join(_import_parts(node, package))))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in RUNTIME:
            names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "")
                              for a in node.names)
            edits.append((node, f"from {package}.{node.module} import {names}"))
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


def _import_parts(node: ast.Import, package: str) -> list[str]:
    parts = []
    for a in node.names:
        top = a.name.split(".")[0]
        if top not in RUNTIME:
            parts.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
        elif a.asname:
            parts.append(f"import {package}.{a.name} as {a.asname}")
        else:
            if "." in a.name:
                parts.append(f"import {package}.{a.name}")
            parts.append(f"from {package} import {top}")
    return parts


def stage_package(dest: Path) -> tuple[str, str]:
    """Write the bundled package under ``dest``; return (package name, digest)."""
    files = runtime_files()
    key = digest(files)
    package = f"simon_{key}"
    root = dest / package
    root.mkdir(parents=True)
    (root / "__init__.py").write_text(
        f'"""SIMON engine, catalogue and slave as bundled in an FMU (content hash {key})."""\n')
    for rel, path in files:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            target.write_text(rewrite_imports(path.read_text(), package, rel))
        else:
            target.write_bytes(path.read_bytes())
    return package, key
