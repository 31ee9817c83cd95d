"""The compiler for the hot path.

Every kernel of the engine is a plain function over floats and numpy arrays, decorated with
:func:`njit`. With numba present the kernels are compiled to machine code (and cached on
disk next to the source, or under ``NUMBA_CACHE_DIR``); setting ``NUMBA_DISABLE_JIT=1`` runs
the very same functions as Python, which is how the formulas are debugged.

The kernels allocate nothing: every array they use is made once, in Python, when a simulation
is set up (the state, its scratch, the packed parameters). So they are compiled without
numba's reference-counting runtime, which would otherwise count a reference at every array
view and every call; an allocation inside a kernel is a compilation error.
"""
import numba

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", _nrt=False)


def njit(fn):
    """Compile ``fn`` in nopython mode with an on-disk cache, without the runtime."""
    return numba.njit(**_OPTIONS)(fn)


def njit_inline(fn):
    """:func:`njit`, and inlined into its callers before they are compiled: for the small
    kernels with one caller, whose loop bounds become constants there."""
    return numba.njit(inline="always", **_OPTIONS)(fn)
