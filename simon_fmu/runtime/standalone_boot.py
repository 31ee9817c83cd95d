"""The first module a standalone FMU's worker imports (shipped as ``simon_fmu_worker``).

The worker (``resources/standalone/bin/simon-fmu-worker``) sets ``SIMON_FMU_STANDALONE_ROOT``
to ``resources/standalone``, ``NUMBA_CPU_NAME=generic`` and ``NUMBA_CACHE_LOCATOR_CLASSES`` to
the two locators below, so numba looks for the engine's compiled kernels here and nowhere
else:

- :class:`ShippedCacheLocator`: functions of the FMU's own packages (under ``resources/``)
  are cached in ``resources/standalone/numba-cache/<package folder>/``, a path that does not
  depend on where the FMU was extracted. The build compiles every kernel there (for a generic
  x86-64 CPU); numba checks a cached kernel against a hash of its source file's contents, so
  the files' times after extraction do not matter.
- :class:`UserCacheLocator`: anything else, and kernels the shipped cache lacks when the
  extracted FMU is read-only, go to the user cache ``$SIMON_FMU_CACHE/standalone-numba``
  (default ``$XDG_CACHE_HOME/simon-fmu`` or ``~/.cache/simon-fmu``); ``SIMON_FMU_CACHE=off``
  switches it off (such kernels are then compiled in memory each time).

A kernel that has to be compiled at the user's site is reported on the worker's stderr while
it compiles; a cache that cannot be written is reported once and otherwise ignored.
"""
import hashlib
import os
import sys
from pathlib import Path

from numba.core import caching

ROOT = Path(os.environ.get("SIMON_FMU_STANDALONE_ROOT", Path(__file__).resolve().parents[4]))
RESOURCES = ROOT.parent
SHIPPED = ROOT / "numba-cache"


def user_cache():
    """The user cache folder for kernels the FMU does not ship, or None when switched off."""
    chosen = os.environ.get("SIMON_FMU_CACHE")
    if chosen and chosen.lower() == "off":
        return None
    if chosen:
        base = Path(chosen)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "simon-fmu"
    try:
        guid = (RESOURCES / "guid.txt").read_bytes()
    except OSError:
        guid = str(ROOT).encode()
    return base / "standalone-numba" / hashlib.sha256(guid).hexdigest()[:16]


class _Locator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """A cache folder chosen by the class, the source checked by a hash of its contents."""

    def __init__(self, py_func, py_file, path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(path)

    def get_cache_path(self):
        return self._cache_path


class ShippedCacheLocator(_Locator):
    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            folder = Path(py_file).resolve().parent.relative_to(RESOURCES.resolve())
        except (ValueError, OSError):
            return None
        if folder.parts and folder.parts[0] == ROOT.name:
            return None
        shipped = SHIPPED / ("_".join(folder.parts) or "resources")
        if shipped.is_dir() or os.access(SHIPPED, os.W_OK):
            return cls(py_func, py_file, shipped)
        user = user_cache()
        if user is not None:
            return cls(py_func, py_file, user / ("_".join(folder.parts) or "resources"))
        return cls(py_func, py_file, shipped)


class UserCacheLocator(_Locator):
    @classmethod
    def from_function(cls, py_func, py_file):
        base = user_cache() or SHIPPED
        return cls(py_func, py_file, base / "other" / cls.get_suitable_cache_subpath(py_file))


_load = caching.Cache.load_overload
_save = caching.Cache.save_overload
_unwritable = set()


def _load_overload(self, sig, target_context):
    data = _load(self, sig, target_context)
    if data is None:
        print(f"simon-fmu: compiling {getattr(self, '_name', 'a kernel')} {sig} for this "
              "machine (no compiled code for it in the FMU); this can take a minute",
              file=sys.stderr, flush=True)
    return data


def _save_overload(self, sig, data):
    try:
        _save(self, sig, data)
    except OSError as exc:
        path = self._cache_path
        if path not in _unwritable:
            _unwritable.add(path)
            print(f"simon-fmu: compiled code not cached ({path}: {exc.strerror})",
                  file=sys.stderr, flush=True)


caching.Cache.load_overload = _load_overload
caching.Cache.save_overload = _save_overload
