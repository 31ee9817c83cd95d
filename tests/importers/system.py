"""System libraries the importers need, installed on demand.

``ecospy`` ships ``libecosc.so`` linked against oneTBB (``libtbb.so.12``), which is
not a Python package: on Debian it comes from the ``libtbb12`` package.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

TBB_SONAME = "libtbb.so.12"
TBB_DEBIAN_PACKAGE = "libtbb12"


class MissingSystemLibrary(RuntimeError):
    """A shared library an importer needs is absent and could not be installed."""


def _loadable(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def _apt_get(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return subprocess.run(
        ["apt-get", *args], env=env, capture_output=True, text=True, timeout=600
    )


def ensure_debian_library(soname: str, package: str) -> None:
    """Make ``soname`` loadable, installing Debian ``package`` if it is missing.

    Installs only when the library cannot be loaded, and only as root with
    ``apt-get`` available; the package lists are refreshed once if the first
    attempt fails (a fresh image often has none). Raises MissingSystemLibrary
    with the reason otherwise.
    """
    if _loadable(soname):
        return
    if shutil.which("apt-get") is None:
        raise MissingSystemLibrary(
            f"{soname} is missing and apt-get is not available: install the "
            f"package that provides it (Debian: {package})"
        )
    if os.geteuid() != 0:
        raise MissingSystemLibrary(
            f"{soname} is missing and this process is not root: run "
            f"`apt-get install -y {package}` as root"
        )
    attempt = _apt_get("install", "-y", "--no-install-recommends", package)
    if attempt.returncode != 0:
        update = _apt_get("update")
        attempt = _apt_get("install", "-y", "--no-install-recommends", package)
        if attempt.returncode != 0:
            raise MissingSystemLibrary(
                f"`apt-get install -y {package}` failed (exit {attempt.returncode}):\n"
                f"{update.stderr[-2000:]}\n{attempt.stdout[-2000:]}\n{attempt.stderr[-2000:]}"
            )
    if not _loadable(soname):
        raise MissingSystemLibrary(
            f"installed {package} but {soname} still cannot be loaded"
        )


def ensure_tbb() -> None:
    """Make oneTBB loadable so that ``import ecospy`` works."""
    ensure_debian_library(TBB_SONAME, TBB_DEBIAN_PACKAGE)
