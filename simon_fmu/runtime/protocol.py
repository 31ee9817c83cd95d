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

:func:`check_resources` is what every slave does first: the data files of the FMU's resources
folder (the event, terrain and exterior files of a vehicle, the controller description and
courses of a controller) must be those the build wrote, as ``resources/resources.sha256``
records them; a file missing or changed is refused with :class:`ResourceError`, one line.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Callable, Iterable, Optional

from .exit_guard import guard_exit

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
#: The value of the ``fmi2_library`` keyword from the project's own library.
LIBRARY_NAME = "simon-fmu"
#: The SHA-256 of each data file in the resources folder, written by the build (the format of
#: ``sha256sum``, names relative to the resources folder).
RESOURCE_DIGESTS = "resources.sha256"
#: What the project's library writes beside them (resources/guid.txt): an FMU that has it was
#: built with the digests.
GUID_FILE = "guid.txt"


class ResourceError(Exception):
    """A file of the FMU's resources folder is missing, unreadable or not the one the build
    wrote. The project's library logs the message alone, one line (``fmi2_one_line``)."""

    fmi2_one_line = True


class CallRefused(Exception):
    """A call the slave refuses as a whole (a value reference of another type): the project's
    library answers fmi2Error and logs the message alone, one line (``fmi2_one_line``)."""

    fmi2_one_line = True


def check_resources(resources) -> None:
    """Refuse an FMU whose data files (:data:`RESOURCE_DIGESTS`) are missing or were changed
    after the build, with :class:`ResourceError` naming the file. An FMU built without the
    project's library (no resources/guid.txt) has no digests and is not checked."""
    if resources is None:
        return
    folder = Path(resources)
    listing = folder / RESOURCE_DIGESTS
    try:
        text = listing.read_text(encoding="utf-8")
    except FileNotFoundError:
        if (folder / GUID_FILE).is_file():
            raise ResourceError(f"resources/{RESOURCE_DIGESTS} is missing from the FMU's "
                                f"resources folder {folder}: the FMU is incomplete; rebuild "
                                f"it or extract it whole") from None
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceError(f"resources/{RESOURCE_DIGESTS} cannot be read: "
                            f"{getattr(exc, 'strerror', None) or exc}") from None
    for number, line in enumerate(text.splitlines(), 1):
        digest, separator, name = line.partition("  ")
        if not separator or len(digest) != 64 or not name or ".." in Path(name).parts:
            raise ResourceError(f"resources/{RESOURCE_DIGESTS}, line {number}: not "
                                f"'<sha256>  <file>': {line[:80]!r}")
        try:
            data = (folder / name).read_bytes()
        except FileNotFoundError:
            raise ResourceError(f"resources/{name} is missing from the FMU's resources folder "
                                f"{folder}: the FMU is incomplete; rebuild it or extract it "
                                f"whole") from None
        except OSError as exc:
            raise ResourceError(f"resources/{name} cannot be read: {exc.strerror or exc}") \
                from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise ResourceError(f"resources/{name} was changed after the FMU was built (its "
                                f"SHA-256 differs from the one in resources/{RESOURCE_DIGESTS});"
                                f" an FMU's resources are part of it: build a new FMU from the "
                                f"edited file instead")


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


def _accepts(v) -> str:
    """What a variable with the declared bounds v.min, v.max (None: none) accepts: a whole
    number for an Integer (its values are whole already), else a finite value."""
    kind = "a whole number" if getattr(v, "type", None) == "Integer" else "a finite value"
    if v.min is not None and v.max is not None:
        return f"{kind} in [{v.min!r}, {v.max!r}]"
    if v.min is not None:
        return f"{kind} >= {v.min!r}"
    if v.max is not None:
        return f"{kind} <= {v.max!r}"
    return kind


def range_problem(causality: str, variables: Iterable, value_of: Callable,
                  enumerations: Optional[dict] = None) -> Optional[str]:
    """Every one of ``variables`` (catalogue variables of ``causality``) whose value
    (``value_of(variable)``) is not finite or outside its declared [min, max], or for an
    Enumeration not one of its items (``enumerations``: its type by name), each with what it
    accepts, in the variables' order and joined by "; "; None when all are accepted."""
    problems = []
    for v in variables:
        value = value_of(v)
        if getattr(v, "type", None) == "Enumeration" and enumerations:
            items = enumerations[v.declared_type]
            if not (isinstance(value, int) and 1 <= value <= len(items.items)):
                problems.append(f"{causality} {v.name} = {value!r} rejected: it accepts "
                                f"{items.accepts()}")
            continue
        if not (isinstance(value, (int, float)) and math.isfinite(value)) \
                or (v.min is not None and value < v.min) \
                or (v.max is not None and value > v.max):
            problems.append(f"{causality} {v.name} = {value!r} rejected: it accepts "
                            f"{_accepts(v)}")
    return "; ".join(problems) or None
