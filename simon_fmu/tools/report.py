"""How the commands report what they refuse (shared by ``simon_fmu.__main__`` and the study and
sweep commands, which it dispatches to), and what they are doing while a step takes long."""
from __future__ import annotations

import sys

from engine.setup.progress import says_when_slow  # noqa: F401 - for the commands


def print_event_error(source, exc) -> int:
    """Report an invalid event (engine.EventError) as every command does; exit status 2."""
    print(f"{source}: not a valid event:", file=sys.stderr)
    for problem in exc.problems:
        print(f"  {problem}", file=sys.stderr)
    return 2

