"""What a long step says while it runs: a compile of the kernels on a cold cache takes minutes,
a warm one a fraction of a second, and only the first should print anything."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

#: What the engine prints when its kernels are still compiling after a few seconds.
COMPILING = ("engine: compiling the kernels for these sources (a few minutes the first time; "
             "cached for every later run)")


@contextmanager
def says_when_slow(message: str, after: float = 3.0, stream=None):
    """Print ``message`` (to ``stream``, default stderr) once if the block is still running
    after ``after`` seconds: what a long compile or build says it is doing, while a quick one
    (a warm cache) stays silent."""
    out = sys.stderr if stream is None else stream
    timer = threading.Timer(after, lambda: print(message, file=out, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
