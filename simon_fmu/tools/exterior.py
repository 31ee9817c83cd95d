"""The exteriors of a run's vehicles as the crush has left them, as an OBJ file.

``python -m simon_fmu exterior FMU STATE -o OUT.obj`` reads an FMU, development or native (its
``resources/event.json``, the event it was built from) and a serialised FMU state of it (the
bytes of ``fmi2SerializeFMUstate``, e.g. written by an fmpy script:
``open("state.bin", "wb").write(fmu.serializeFMUstate(fmu.getFMUstate()))``), and writes each
unit's exterior mesh in that state: every vertex moved in by its permanent crush
(engine.setup.collision.deformed_exterior; docs/equations.md, "Crush that moves the mesh"),
one ``o <unit>`` object per unit with a collision mesh, vehicle-fixed from its CG (x forward, y
right, z down, m). A study writes the same file for its run (``exteriors.obj``,
:mod:`simon_fmu.studies.study`).
"""
from __future__ import annotations

import sys
import tempfile
import zipfile
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

#: the first line of the OBJ text (:func:`exteriors_obj`): what a file this command may
#: replace starts with
HEADER = "# the exteriors as the crush left them"


def exteriors_obj(event, y: np.ndarray) -> str:
    """The OBJ text of each unit's exterior of ``event`` (an engine.Event) in state ``y``
    (engine.layout; ValueError when y does not fit the event's layout)."""
    import engine
    from engine.layout import CO_NV
    from engine.setup.collision import deformed_exterior, obj_text
    sim = engine.Simulation(event, warn=False)
    if np.shape(y) != sim.y.shape:
        raise ValueError(f"the state has {np.size(y)} values; the FMU's event has "
                         f"{sim.y.size}: not a state of this FMU")
    objects = []
    for u, unit in enumerate(event.model.units):
        if sim.model.P_COLL[u, CO_NV] > 0:
            verts, tris = deformed_exterior(sim.model, y, u, unit.collision.mesh_file)
            objects.append((unit.name, verts, tris))
    return obj_text(objects, HEADER[2:] + " at the end of the run:\n"
                    "vehicle-fixed from each unit's CG, x forward, y right, z down (SAE J670), m")


def fmu_state_vector(folder: Path, blob: bytes, guid: str | None = None) -> np.ndarray:
    """The engine's state vector y in ``blob``, a serialised FMU state of the FMU extracted in
    ``folder``: a native FMU's (it has resources/native.bin;
    :func:`simon_fmu.native.resources.state_vector`) or a development FMU's (with ``guid``,
    of that FMU: :func:`simon_fmu.vehicle.slave.state_vector`). ValueError saying why when the
    bytes are not one."""
    from ..native.resources import RESOURCE_FILE, state_vector as native_state, unpack
    from ..vehicle.slave import state_vector as development_state
    native = Path(folder) / "resources" / RESOURCE_FILE
    if native.is_file():
        return native_state(blob, unpack(native.read_bytes()))
    return development_state(blob, guid)


def _is_ours(path: Path):
    """None if ``path`` is an OBJ file this command wrote, else why not."""
    with open(path, "rb") as fh:
        head = fh.read(len(HEADER))
    return None if head == HEADER.encode() else "not an exteriors OBJ file of this command"


def main(args) -> int:
    import engine

    from ..runtime.packaging import check_output, partial_path
    from ..vehicle.slave import EVENT_FILE
    fmu, state = Path(args.fmu), Path(args.state)
    try:
        check_output(args.output, [("the FMU", fmu), ("the state file", state)], _is_ours)
        for label, path in (("FMU", fmu), ("state file", state)):
            if not path.is_file():
                raise ValueError(f"{path}: no such {label}")
        with zipfile.ZipFile(fmu) as z, tempfile.TemporaryDirectory() as tmp:
            member = f"resources/{EVENT_FILE}"
            missing = [m for m in (member, "modelDescription.xml") if m not in z.namelist()]
            if missing:
                raise ValueError(f"{fmu}: no {missing[0]}: not an FMU of this project")
            z.extractall(tmp)
            guid = ET.parse(Path(tmp) / "modelDescription.xml").getroot().get("guid")
            event = engine.load_event(Path(tmp) / member)
            try:
                y = fmu_state_vector(Path(tmp), state.read_bytes(), guid)
            except ValueError as exc:
                raise ValueError(f"{state}: {exc}") from None
            text = exteriors_obj(event, y)
    except (ValueError, OSError, zipfile.BadZipFile, ET.ParseError) as exc:
        print(f"exterior: {exc}", file=sys.stderr)
        return 2
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)   # out/, which check_output allows
    partial = partial_path(out)
    partial.write_text(text)
    partial.replace(out)
    print(f"wrote {out}")
    return 0
