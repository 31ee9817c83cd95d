"""The compiler for the hot path.

Every kernel of the engine is a plain function over floats and numpy arrays, decorated with
:func:`njit`. With numba present the kernels are compiled to machine code (and cached on
disk next to the source, or under ``NUMBA_CACHE_DIR``; see :func:`_drop_stale_cache`); setting ``NUMBA_DISABLE_JIT=1`` runs
the very same functions as Python, which is how the formulas are debugged.

The kernels allocate nothing: every array they use is made once, in Python, when a simulation
is set up (the state, its scratch, the packed parameters). So they are compiled without
numba's reference-counting runtime, which would otherwise count a reference at every array
view and every call; an allocation inside a kernel is a compilation error.
"""
import hashlib
import os
from pathlib import Path

import numba


def _drop_stale_cache():
    """Discard the on-disk cache when any engine source changed since it was written.

    numba checks a cached function only against its own file, so after an edit to, say,
    ``tire.py`` the cached ``integrator.advance`` would still run the old tire code, which
    it had compiled in. The engine therefore stamps its cache with a digest of all its
    sources and empties it when the digest differs. (An FMU's bundled engine lives in a
    folder named by the same kind of digest, so its cache is always current.)
    """
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(here.rglob("*.py")):
        digest.update(path.relative_to(here).as_posix().encode())
        digest.update(path.read_bytes())
    cache = here / "__pycache__"
    stamp = cache / "numba-sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(digest.hexdigest())
        tmp.replace(stamp)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass


if not os.environ.get("NUMBA_CACHE_DIR"):
    _drop_stale_cache()

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", _nrt=False)


def njit(fn):
    """Compile ``fn`` in nopython mode with an on-disk cache, without the runtime."""
    return numba.njit(**_OPTIONS)(fn)


def njit_inline(fn):
    """:func:`njit`, and inlined into its callers before they are compiled: for the kernels
    with one or two call sites on the hot path, whose loop bounds become constants there and
    whose array arguments are then not passed through a call."""
    return numba.njit(inline="always", **_OPTIONS)(fn)
