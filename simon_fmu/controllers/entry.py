"""Entry module of the driver and ABS FMUs: pythonfmu imports it from the FMU's resources folder.

The build copies this file to ``resources/simon_ctl_<kind>_<digest>.py`` and the vehicle's
:mod:`simon_fmu.runtime.entry` next to it as ``resources/simon_loader_<digest>.py``; the bundled
packages (``simon_<digest>/`` with the catalogue and the controllers, and the engine the
catalogue imports) are loaded through that loader's ``load_package``, exactly as the vehicle
FMU loads its own, and the slave class of ``<kind>`` (``driver``: ``DriverSlave``, ``abs``:
``AbsSlave``) is the one pythonfmu finds here.
"""
import importlib
import sys
from pathlib import Path

if __name__.startswith("simon_ctl_"):
    # pythonfmu 0.7.0 drops a borrowed reference to this module's dict on every instance
    # (see simon_fmu.runtime.entry): keep one more reference per run
    globals().setdefault("_dict_references", []).append(globals())
    sys.path[:] = list(dict.fromkeys(sys.path))
    _kind, _key = __name__[len("simon_ctl_"):].rsplit("_", 1)
    _resources = Path(__file__).resolve().parent
    _loader = importlib.import_module(f"simon_loader_{_key}")
    for _folder in sorted(_resources.glob("simon_*/__init__.py")):
        _loader.load_package(_resources, _folder.parent.name)
    _module = importlib.import_module(f"simon_{_key}.simon_fmu.controllers.slave")
    # pythonfmu finds the class among the names this file binds when it runs it again with
    # a fresh locals dict, so the class is bound by a plain assignment
    if _kind == "driver":
        DriverSlave = _module.DriverSlave
    else:
        AbsSlave = _module.AbsSlave
