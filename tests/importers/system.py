"""System libraries the importers need. The set-up step (``make setup``, which ``make test``
runs first; the list is ``tools/system-packages.txt``) installs them; tests only check.

``ecospy`` ships ``libecosc.so`` linked against oneTBB (``libtbb.so.12``), which is
not a Python package: on Debian it comes from the ``libtbb12`` package.
"""

from __future__ import annotations

import ctypes

TBB_SONAME = "libtbb.so.12"
TBB_DEBIAN_PACKAGE = "libtbb12"


class MissingSystemLibrary(RuntimeError):
    """A shared library an importer needs is absent (the message says how to install it)."""


def require_library(soname: str, package: str) -> None:
    """Raise MissingSystemLibrary naming the set-up step unless ``soname`` can be loaded."""
    try:
        ctypes.CDLL(soname)
    except OSError:
        raise MissingSystemLibrary(
            f"{soname} cannot be loaded: run `make setup` (as root it installs the Debian "
            f"package {package}, listed in tools/system-packages.txt)") from None


def require_tbb() -> None:
    """oneTBB must be loadable for ``import ecospy``."""
    require_library(TBB_SONAME, TBB_DEBIAN_PACKAGE)
