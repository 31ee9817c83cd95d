"""The compiler for the hot path.

Every kernel of the engine is a plain function over floats and numpy arrays, decorated with
:func:`njit`. With numba present the kernels are compiled to machine code (and cached on
disk next to the source, or under ``NUMBA_CACHE_DIR``); setting ``NUMBA_DISABLE_JIT=1`` runs
the very same functions as Python, which is how the formulas are debugged.
"""
import numba


def njit(fn):
    """Compile ``fn`` in nopython mode with an on-disk cache."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)
