"""A guard against pythonfmu 0.7.0's exit-time defect in its shared library.

Needed only for FMUs built with ``build --library pythonfmu``: :class:`simon_fmu.runtime.protocol.
Protocol` calls :func:`guard_exit` when pythonfmu's library created the slave. The project's
own library (:mod:`simon_fmu.runtime.fmi2_library`) has no such defect.

The library keeps its interpreter handle in a global ``std::shared_ptr``. When the process
exits, the handle is reset twice: once by its C++ static destructor, and once by the
library's ``__attribute__((destructor))`` function, which calls the exported
``finalizePythonInterpreter``. The second reset releases a control block that is already
freed. This corrupts the heap and can abort the host after all its work is done. In a
Python host, about one run in four aborted this way (``corrupted double-linked list``).

When the host process is this Python interpreter, the library did not start the
interpreter. Its handle then only owns a finished helper thread, so it is safe to reset it
early. :func:`guard_exit` registers an ``atexit`` hook that calls
``finalizePythonInterpreter`` before the C++ destructors run. Both later resets then find
an empty pointer and do nothing.

A host that is not Python (a C or C++ tool) gets its interpreter from the library itself.
There an early reset would finalise that interpreter too soon, so the guard does nothing.
See docs/importers.md.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import sys
from pathlib import Path

_guarded: dict[str, ctypes.CDLL] = {}


def _host_is_this_python() -> bool:
    try:
        return os.path.realpath("/proc/self/exe") == os.path.realpath(sys.executable)
    except OSError:
        return False


def guard_exit(resources: str | os.PathLike) -> bool:
    """Register the exit guard for the FMU library next to ``resources``; True if guarded.

    Holding a handle to the library also keeps it loaded until the process ends. An importer
    that unloads it (dlclose) after fmi2FreeInstance then cannot run the faulty destructors
    in the middle of the process.
    """
    if not sys.platform.startswith("linux") or not _host_is_this_python():
        return False
    binaries = Path(resources).resolve().parent / "binaries" / "linux64"
    done = False
    for lib_path in sorted(binaries.glob("*.so")):
        key = str(lib_path)
        if key in _guarded:
            done = True
            continue
        try:
            lib = ctypes.CDLL(key)
            reset = lib.finalizePythonInterpreter
        except (OSError, AttributeError):
            continue
        reset.restype = None
        _guarded[key] = lib
        atexit.register(reset)
        done = True
    return done
