"""How a slave answers the FMI library that runs it.

The project's own library (:mod:`simon_fmu.runtime.fmi2_library`) creates a slave with the keyword
``fmi2_library="simon-fmu"`` and reads a method's return value as its FMI status: None or
True is fmi2OK, False fmi2Discard, an int 0..3 that status (OK, Warning, Discard, Error). It
passes log messages to the host as plain text, and an exception becomes fmi2Error with its
traceback logged.

pythonfmu 0.7.0's library (``build --library pythonfmu``) passes no such keyword; it reads
``do_step``'s answer as a bool (False: fmi2Discard), uses each log message as a printf format,
and needs the exit guard of :mod:`simon_fmu.runtime.exit_guard`. :class:`Protocol` hides the
difference from the slaves.
"""
from __future__ import annotations

import math
from typing import Callable, Iterable, Optional

from .exit_guard import guard_exit

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
#: The value of the ``fmi2_library`` keyword from the project's own library.
LIBRARY_NAME = "simon-fmu"


class Protocol:
    """The library a slave was created by: ``Protocol(kwargs, resources)`` in ``__init__``."""

    def __init__(self, kwargs: dict, resources):
        self.native = kwargs.get("fmi2_library") == LIBRARY_NAME
        if not self.native and resources is not None:
            guard_exit(resources)

    def answer(self, status: int):
        """What a status method returns for ``status``: the int itself, or pythonfmu's bool."""
        return status if self.native else status <= WARNING

    def text(self, message: str) -> str:
        """A log message as the library wants it: plain, or escaped as a printf format."""
        return message if self.native else message.replace("%", "%%")


def range_problem(causality: str, variables: Iterable, value_of: Callable,
                  enumerations: Optional[dict] = None) -> Optional[str]:
    """The first of ``variables`` (catalogue variables of ``causality``) whose value
    (``value_of(variable)``) is not finite or outside its declared [min, max], or for an
    Enumeration not one of its items (``enumerations``: its type by name), with what it
    accepts; None when all are accepted."""
    for v in variables:
        value = value_of(v)
        if getattr(v, "type", None) == "Enumeration" and enumerations:
            items = enumerations[v.declared_type]
            if not (isinstance(value, int) and 1 <= value <= len(items.items)):
                return f"{causality} {v.name} = {value!r} rejected: it accepts {items.accepts()}"
            continue
        if not (isinstance(value, (int, float)) and math.isfinite(value)) \
                or (v.min is not None and value < v.min) \
                or (v.max is not None and value > v.max):
            return (f"{causality} {v.name} = {value!r} rejected: it accepts a finite value"
                    f" in [{v.min!r}, {v.max!r}]")
    return None
