"""How the commands report what they refuse (shared by ``simon_fmu.__main__`` and the study and
sweep commands, which it dispatches to)."""
from __future__ import annotations

import sys


def print_event_error(source, exc) -> int:
    """Report an invalid event (engine.EventError) as every command does; exit status 2."""
    print(f"{source}: not a valid event:", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)
    return 2
