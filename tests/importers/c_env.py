"""The environment a non-Python process needs to run a pythonfmu FMU.

pythonfmu's ``binaries/linux64/<model>.so`` calls the CPython C API but does not
link libpython (it has no DT_NEEDED entry for it): inside a Python process the
symbols come from the interpreter, in any other process ``dlopen`` fails with
``undefined symbol: _Py_NoneStruct``. When it is loaded it calls
``Py_Initialize()`` unless Python is already running, with CPython's default
program name ``python3``, and CPython works out ``sys.prefix`` by looking up
``python3`` on ``PATH``: whatever interpreter comes first there decides which
standard library and which site-packages the FMU gets (a different one, e.g.
Debian's ``/usr/bin/python3`` beside another build's libpython, fails).

So a host needs two things from its environment, both derived from the Python
environment in which the FMU's dependencies are installed:

* ``LD_PRELOAD`` = that interpreter's shared ``libpython3.X.so.1.0``;
* that interpreter's ``bin`` directory first on ``PATH`` (what activating a
  virtual environment does), so the embedded interpreter is the venv itself,
  with its site-packages and ``.pth`` files;

or, with ``explicit=True``, instead of ``PATH``: ``PYTHONHOME`` = its base
prefix and ``PYTHONPATH`` = its ``sys.path`` beyond the standard library (this
does not depend on ``PATH`` but skips ``.pth``-file import hooks such as
setuptools' editable-install finders).

``python -m importers.c_env [PYTHON]`` prints the ``export`` lines for a shell.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PROBE = r"""
import json, os, sys, sysconfig
cfg = sysconfig.get_config_var
names = [n for n in (cfg("INSTSONAME"), cfg("LDLIBRARY")) if n and ".so" in n]
dirs = [d for d in (cfg("LIBDIR"),) if d]
if cfg("LIBDIR") and cfg("MULTIARCH"):
    dirs.append(os.path.join(cfg("LIBDIR"), cfg("MULTIARCH")))
dirs.append(os.path.join(sys.base_prefix, "lib"))
stdlib = {os.path.realpath(p) for p in (
    sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib"),
    os.path.join(sysconfig.get_path("stdlib"), "lib-dynload"),
) if p}
print(json.dumps({
    "executable": sys.executable,
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "version": "%d.%d" % sys.version_info[:2],
    "shared": bool(cfg("Py_ENABLE_SHARED")),
    "libraries": [os.path.join(d, n) for d in dirs for n in names],
    "path": [p for p in sys.path if p and os.path.realpath(p) not in stdlib
             and not p.endswith(".zip")],
}))
"""


class NoSharedLibpython(RuntimeError):
    """The interpreter has no shared libpython that a host could preload."""


def describe(python_executable: str | os.PathLike = sys.executable) -> dict:
    """What a host needs to know about a Python interpreter (asked in a subprocess)."""
    completed = subprocess.run(
        [os.fspath(python_executable), "-c", _PROBE],
        capture_output=True, text=True, check=True, env=_without_python_variables(os.environ),
    )
    return json.loads(completed.stdout)


def _without_python_variables(env) -> dict:
    return {k: v for k, v in env.items() if k not in ("PYTHONHOME", "PYTHONPATH")}


def libpython(python_executable: str | os.PathLike = sys.executable) -> Path:
    """The shared libpython of an interpreter."""
    info = describe(python_executable)
    for candidate in info["libraries"]:
        if os.path.isfile(candidate):
            return Path(candidate)
    raise NoSharedLibpython(
        f"{info['executable']} (Python {info['version']}) has no shared libpython "
        f"(looked for {info['libraries']}); use an interpreter built with "
        f"--enable-shared, or on Debian install libpython{info['version']}"
    )


def host_environment(
    python_executable: str | os.PathLike = sys.executable,
    base: dict | None = None,
    explicit: bool = False,
) -> dict[str, str]:
    """The environment (``base`` or os.environ, amended) in which a C host can run
    pythonfmu FMUs using the packages of ``python_executable``'s environment."""
    env = _without_python_variables(dict(os.environ if base is None else base))
    info = describe(python_executable)
    library = str(libpython(python_executable))
    env["LD_PRELOAD"] = " ".join(p for p in (library, env.get("LD_PRELOAD", "")) if p)
    if explicit:
        env["PYTHONHOME"] = info["base_prefix"]
        env["PYTHONPATH"] = os.pathsep.join(info["path"])
        return env
    bindir = Path(info["executable"]).parent
    python3 = bindir / "python3"
    if not python3.exists() or _resolve(python3) != _resolve(Path(info["executable"])):
        # No `python3` beside this interpreter that is this interpreter: PATH
        # cannot select it, so name everything explicitly.
        return host_environment(python_executable, base, explicit=True)
    env["PATH"] = os.pathsep.join(p for p in (str(bindir), env.get("PATH", "")) if p)
    return env


def _resolve(path: Path) -> Path:
    return Path(os.path.realpath(path))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    explicit = "--explicit" in argv
    rest = [a for a in argv if a != "--explicit"]
    python = rest[0] if rest else sys.executable
    env = host_environment(python, base={}, explicit=explicit)
    for key in ("LD_PRELOAD", "PYTHONHOME", "PYTHONPATH"):
        if key in env:
            print(f"export {key}={_quote(env[key])}")
    if "PATH" in env:
        print(f"export PATH={_quote(env['PATH'].split(os.pathsep)[0])}:\"$PATH\"")
    return 0


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)


if __name__ == "__main__":
    sys.exit(main())
