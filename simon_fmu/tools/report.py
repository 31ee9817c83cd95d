"""How the commands report what they refuse (shared by ``simon_fmu.__main__`` and the study and
sweep commands, which it dispatches to), and what they are doing while a step takes long."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager


def print_event_error(source, exc) -> int:
    """Report an invalid event (engine.EventError) as every command does; exit status 2."""
    print(f"{source}: not a valid event:", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)
    return 2


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
