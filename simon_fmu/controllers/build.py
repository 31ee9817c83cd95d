"""Build the controller FMUs: the driver (``build-driver``) and the ABS (``build-abs``).

As :mod:`simon_fmu.vehicle.build` does for the vehicle: pythonfmu packs the slave
(:mod:`simon_fmu.controllers.slave`) with the bundled packages (:mod:`simon_fmu.runtime.bundle`),
then the zip gets the modelDescription.xml generated from the controller's catalogue
(:mod:`model_description.controllers`). Both are built for a vehicle, the unit of an event
(default: the default car's): the start values of their parameters that describe it come
from the event (:mod:`simon_fmu.controllers.vehicle_data`). The driver FMU carries the
standard courses in ``resources/courses/``, the ISO 3888 ones for that vehicle's width and
body; the ABS FMU has one wheel per wheel of the unit.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Optional

import engine
from model_description import generation_time, model_description_xml
from model_description.controllers import abs_catalogue, abs_wheels, driver_catalogue

from ..runtime import bundle, entry as runtime_entry
from ..runtime.packaging import PathLike, builder_imports, repack
from . import courses
from .slave import CONTROLLER_FILE
from .driver import COURSE_DIR
from .vehicle_data import abs_starts, driver_starts, vehicle_body

#: What a controller FMU bundles: the catalogue (which imports the engine) and the
#: controllers with their slave.
RUNTIME = {
    "engine": bundle.RUNTIME["engine"],
    "model_description": ("*.py",),
    "simon_fmu": ("__init__.py", "controllers/__init__.py", "controllers/slave.py",
                  "controllers/driver.py", "controllers/abs_controller.py",
                  "runtime/__init__.py", "runtime/protocol.py", "runtime/exit_guard.py"),
}
_GUID_NAMESPACE = uuid.UUID("3c1f0e9a-7d52-4b8e-a1c3-5e2d8f6b9a07")
DESCRIPTIONS = {
    "driver": "Closed-loop driver (preview path follower, speed control, gear selection) "
              "for the SIMON vehicle FMU",
    "abs": "Anti-lock braking controller (build, hold, dump per wheel) for the SIMON "
           "vehicle FMU",
}


def build_driver(event_file: Optional[PathLike] = None, output: PathLike = "out/Driver.fmu",
                 model_identifier: str = "Driver", unit: Optional[str] = None) -> Path:
    """Build the driver FMU for the vehicle of ``event_file`` and return its path.

    Parameters:
        event_file: the vehicle's event JSON file; None (default) for the default car.
        output: the FMU file to write (its folder is created). Default ``out/Driver.fmu``.
        model_identifier: the FMU's modelIdentifier. Default ``Driver``.
        unit: the vehicle unit the driver drives (default: the first).
    """
    event = engine.load_event(event_file)
    starts = driver_starts(event, unit)
    config = {"kind": "driver", "starts": starts}
    body = vehicle_body(event, unit)
    with tempfile.TemporaryDirectory(prefix="simon_courses_") as tmp:
        # the shipped courses are those of the default car; another body gets its own
        folder = COURSE_DIR if body == vehicle_body(engine.load_event()) \
            else courses.write_courses(Path(tmp), body)[0].parent
        return _build("driver", driver_catalogue(starts), config, output, model_identifier,
                      {f"courses/{p.name}": p for p in sorted(folder.glob("*.csv"))})


def build_abs(event_file: Optional[PathLike] = None, output: PathLike = "out/ABS.fmu",
              model_identifier: str = "ABS", unit: Optional[str] = None) -> Path:
    """Build the ABS FMU for the vehicle of ``event_file`` and return its path.

    Parameters:
        event_file: the vehicle's event JSON file; None (default) for the default car.
        output: the FMU file to write. Default ``out/ABS.fmu``.
        model_identifier: the FMU's modelIdentifier. Default ``ABS``.
        unit: the vehicle unit whose wheels it controls (default: the first).
    """
    event = engine.load_event(event_file)
    wheels, starts = abs_wheels(event, unit), abs_starts(event, unit)
    return _build("abs", abs_catalogue(wheels, starts),
                  {"kind": "abs", "wheels": wheels, "starts": starts}, output,
                  model_identifier, {})


def _build(kind, catalogue, config, output, model_identifier, extra_files) -> Path:
    from pythonfmu.builder import FmuBuilder

    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="simon_ctl_") as tmp:
        stage = Path(tmp) / "stage"
        stage.mkdir()
        key, packages = bundle.stage_packages(stage, RUNTIME)
        (stage / CONTROLLER_FILE).write_text(json.dumps(config, indent=1) + "\n")
        files = [stage / p for p in packages] + [stage / CONTROLLER_FILE]
        if extra_files:
            (stage / "courses").mkdir()
            for rel, src in extra_files.items():
                shutil.copy2(src, stage / rel)
            files.append(stage / "courses")
        loader = stage / f"simon_loader_{key}.py"
        shutil.copy2(runtime_entry.__file__, loader)
        entry = stage / f"simon_ctl_{kind}_{key}.py"
        shutil.copy2(Path(__file__).with_name("entry.py"), entry)
        with builder_imports("simon_ctl_", "simon_loader_", *packages):
            raw = FmuBuilder.build_FMU(entry, dest=Path(tmp) / "raw.fmu",
                                       project_files=files + [loader])
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        guid = uuid.uuid5(_GUID_NAMESPACE, hashlib.sha256(
            f"{key}\0{model_identifier}\0{json.dumps(config)}".encode()).hexdigest())
        xml = model_description_xml(
            catalogue, model_identifier=model_identifier, guid=f"{{{guid}}}",
            generated_at=generation_time(float(epoch) if epoch else None),
            description=DESCRIPTIONS[kind])
        repack(Path(raw), output, xml, model_identifier)
    return output
