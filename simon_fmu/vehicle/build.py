"""Build an FMU: pythonfmu packs the slave, then the zip gets the generated modelDescription.xml.

pythonfmu 0.7.0 (``FmuBuilder.build_FMU``) copies the entry script and the project files into
``resources/``, embeds its own Python sources as ``resources/pythonfmu/``, adds its export
library as ``binaries/<platform>/<modelName>.so|.dll``, writes ``resources/slavemodule.txt``
(the module the library imports) and a modelDescription.xml of its own, which has no units,
no InitialUnknowns and needsExecutionTool="true". :func:`build_fmu` rewrites that zip: the
description is replaced by the one :mod:`model_description` generates from the same
catalogue the slave registers, and pythonfmu's library is replaced by the project's own
(:mod:`simon_fmu.runtime.fmi2_library`: ``binaries/linux64/<modelIdentifier>.so`` and
``<modelIdentifier>_python.so``, compiled with gcc, and ``resources/fmi2_python.txt``).
``library="pythonfmu"`` keeps pythonfmu's library instead, renamed to the model identifier.

A mesh or crg terrain's file is copied into ``resources/`` under its name in
:data:`~.slave.TERRAIN_FILES`, and a unit's exterior mesh (``collision.mesh_file``) as
``exterior-<unit>.obj``, an environment object's (``environment.objects[k].mesh_file``) as
``object-<k>.obj``; the event written there (:func:`fmu_event_json`) names them relative
to its own folder, so the FMU does not depend on where it was built.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import sys
import tempfile
import uuid
import warnings
from pathlib import Path
from typing import Optional

import engine
from model_description import build_catalogue, generation_time, model_description_xml

from ..runtime import bundle, entry as runtime_entry
from ..runtime.packaging import PathLike, builder_imports, check_library, repack
from ..tools.report import says_when_slow
from .slave import EVENT_FILE, TERRAIN_FILES

MODEL_IDENTIFIER = "SimonCar"
DESCRIPTION = "SIMON vehicle dynamics (HVE): vehicle units with suspension, tires, " \
              "drivetrain and brakes, on flat ground, a polygon-mesh road, an OpenCRG road or a road " \
              "given per wheel"
_GUID_NAMESPACE = uuid.UUID("6f1d3c52-3b8e-4d7a-9a57-2f0a5d1e8c41")


def build_fmu(event_file: Optional[PathLike] = None, output: PathLike = "out/SimonCar.fmu",
              model_identifier: str = MODEL_IDENTIFIER, warm_cache: bool = True,
              library: str = "simon") -> Path:
    """Build a Co-Simulation FMU of an event and return its path.

    Parameters:
        event_file: an event JSON file; None (default) builds the default car
            (``engine.load_event()``).
        output: the FMU file to write (its folder is created). Default ``out/SimonCar.fmu``.
        model_identifier: the FMU's modelIdentifier (the shared library's name).
            Default ``SimonCar``.
        warm_cache: True (default) runs the bundled engine for two steps once it sits in
            the user's cache folder (see :mod:`simon_fmu.runtime.entry`), so that numba compiles it
            at build time and the FMU's first instance on this machine starts at once.
        library: the FMU's shared library: ``"simon"`` (default), the project's own
            (:mod:`simon_fmu.runtime.fmi2_library`), or ``"pythonfmu"``, pythonfmu 0.7.0's.

    The generation date is the current time, or ``$SOURCE_DATE_EPOCH`` when that is set, so
    that builds can be made reproducible.
    """
    from pythonfmu.builder import FmuBuilder  # heavy, and only needed here

    check_library(library)
    event = engine.load_event(event_file)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="simon_fmu_") as tmp:
        stage = Path(tmp) / "stage"
        stage.mkdir()
        key, packages = bundle.stage_packages(stage)
        (stage / EVENT_FILE).write_text(fmu_event_json(event))
        resources = [stage / EVENT_FILE]
        for name, path in resource_files(event).items():
            shutil.copyfile(path, stage / name)
            resources.append(stage / name)
        entry = stage / f"simon_slave_{key}.py"
        shutil.copy2(runtime_entry.__file__, entry)
        with builder_imports("simon_slave_", *packages):
            raw = FmuBuilder.build_FMU(entry, dest=Path(tmp) / "raw.fmu",
                                       project_files=[stage / p for p in packages] + resources)
            engine_package = next(p for p in packages
                                  if p.startswith(runtime_entry.ENGINE_PREFIX))
            checked = warm_cache and _warm(sys.modules.get(engine_package), stage / EVENT_FILE)

        if not checked:
            engine.Simulation(event)   # what the FMU does first: refuses what it cannot run
        epoch = os.environ.get("SOURCE_DATE_EPOCH")
        xml = fmu_model_description(
            event, model_identifier, generation_time(float(epoch) if epoch else None), key)
        repack(Path(raw), output, xml, model_identifier, library)
    return output


def _terrain_file(event: "engine.Event") -> Optional[str]:
    """The absolute path of the event's mesh or crg terrain file, None for the other terrains."""
    terrain = event.model.environment.terrain
    return terrain.file if terrain.type in TERRAIN_FILES else None


def _exterior_name(unit) -> str:
    """The name in resources/ of a unit's exterior mesh (its ``collision.mesh_file``)."""
    return f"exterior-{unit.name}.obj"


def _object_name(k: int) -> str:
    """The name in resources/ of the mesh of the event's environment object k."""
    return f"object-{k}.obj"


def resource_files(event: "engine.Event") -> dict:
    """The files the FMU carries beside its event: {name in resources/: absolute path}, the
    terrain's (named as in :data:`~.slave.TERRAIN_FILES`), each unit's exterior mesh and each
    environment object's mesh."""
    files = {}
    road = _terrain_file(event)
    if road is not None:
        files[TERRAIN_FILES[event.model.environment.terrain.type]] = road
    for unit in event.model.units:
        if unit.collision.mesh_file:
            files[_exterior_name(unit)] = unit.collision.mesh_file
    for k, obj in enumerate(event.model.environment.objects):
        files[_object_name(k)] = obj.mesh_file
    return files


def event_inputs(event_file: Optional[PathLike], event: "engine.Event") -> list[tuple[str, str]]:
    """The files a build of ``event`` reads, as (label, path) pairs for
    :func:`~simon_fmu.runtime.packaging.check_output`: the event file (the default car's when
    None) and the files the event names (:func:`resource_files`)."""
    from engine.setup.event import DEFAULT_EVENT
    out = [("the event file", os.fspath(event_file) if event_file is not None
            else DEFAULT_EVENT)]
    for name, path in resource_files(event).items():
        kind = ("exterior mesh" if name.startswith("exterior-") else
                "object mesh" if name.startswith("object-") else "terrain file")
        out.append((f"the {kind} the event names", path))
    return out


def fmu_event_json(event: "engine.Event") -> str:
    """The event as the FMU's resources hold it: its data (the JSON it embeds), with the files
    it names (:func:`resource_files`) relative to the event file's folder (``resources/``)."""
    if not resource_files(event):
        return event.to_json()
    model = event.model
    data = copy.deepcopy(event.data)
    if _terrain_file(event) is not None:
        data["environment"]["terrain"]["file"] = TERRAIN_FILES[model.environment.terrain.type]
    for unit, written in zip(model.units, data["units"]):
        if unit.collision.mesh_file:
            written["collision"]["mesh_file"] = _exterior_name(unit)
    for k, written in enumerate(data["environment"]["objects"]):
        written["mesh_file"] = _object_name(k)
    return json.dumps(data, indent=2, sort_keys=True)


def _warm(bundled_engine, event_file: Path) -> bool:
    """Compile the bundled engine where the FMU will import it from (numba caches it there).

    Returns True when the bundled engine set up the event as the FMU will (so the event is
    one the FMU can run); an event it refuses raises :class:`engine.EventError`.
    """
    if bundled_engine is None or runtime_entry.cache_root() not in Path(bundled_engine.__file__).parents:
        return False
    try:
        sim = bundled_engine.Simulation(bundled_engine.load_event(event_file))
    except bundled_engine.EventError as exc:
        raise engine.EventError(exc.problems) from None
    try:
        with says_when_slow("simon-fmu: compiling the engine's kernels for this FMU's code (a few "
                            "minutes the first time; cached for later builds and runs)"):
            sim.advance(1.5 * sim.step_size)   # a whole step and a partial one
    except Exception as exc:  # noqa: BLE001 - the FMU is still usable; it compiles when run
        warnings.warn(f"the bundled engine could not be compiled at build time: {exc}")
    return True


def fmu_model_description(event: "engine.Event", model_identifier: str = MODEL_IDENTIFIER,
                          generated_at: Optional[str] = None,
                          code_digest: Optional[str] = None) -> bytes:
    """The modelDescription.xml that :func:`build_fmu` puts in the FMU of ``event``.

    Parameters:
        event: the validated event.
        model_identifier: as for :func:`build_fmu`.
        generated_at: generationDateAndTime; default now.
        code_digest: the digest of the bundled code (:func:`bundle.digest`); default that of
            the sources as they are now.

    The GUID is derived from the bundled code, the model identifier, the event and the files
    it names (:func:`resource_files`), so it changes whenever any of them does.
    """
    event_json = fmu_event_json(event)
    for path in resource_files(event).values():
        event_json += "\0" + hashlib.sha256(Path(path).read_bytes()).hexdigest()
    key = code_digest or bundle.digest(bundle.runtime_files())
    guid = uuid.uuid5(_GUID_NAMESPACE, hashlib.sha256(
        f"{key}\0{model_identifier}\0{event_json}".encode()).hexdigest())
    return model_description_xml(
        build_catalogue(event), model_identifier=model_identifier, guid=f"{{{guid}}}",
        generated_at=generated_at or generation_time(), description=DESCRIPTION)
