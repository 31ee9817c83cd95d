"""The initial attitude and motion of all six degrees of freedom (set-up, Python): a lead unit's
roll and pitch, its body velocities and angular rates (``units[i].initial``: roll, pitch, v, w,
p, q, r; FMU parameters ``<unit>.roll0`` ...), as SIMON's event editor gives them.

The static equilibrium is found at rest on level ground as for any start; the body is then
turned to the given roll and pitch about its CG (its wheels keep their equilibrium travel:
their springs' preload) and, when it is turned, lowered or raised so that its lowest tire or
body vertex just touches the ground (a tire at zero deflection): a launch, not an equilibrium.
Its velocities and rates are the given ones, its forward speed ``speed0``. Only on flat ground
and for a vehicle of one unit (the units a lead unit tows start in line behind it, in their
combination's equilibrium): otherwise the fields must be zero.
"""
from __future__ import annotations

import numpy as np

from .. import layout as L
from ..launch import place_launch

#: the initial-condition keys of the attitude and motion (Simulation's initial, the FMU's
#: parameters <unit>.<key>) and their fields in units[i].initial
MOTION_FIELDS = {"roll0": "roll", "pitch0": "pitch", "lateralSpeed0": "v", "verticalSpeed0": "w",
                 "rollRate0": "p", "pitchRate0": "q", "yawRate0": "r"}
#: the body states each key sets (only for a value other than zero: :func:`apply_motion`)
MOTION_SLOTS = {"roll0": L.SPHI, "pitch0": L.STHETA, "lateralSpeed0": L.SV,
                "verticalSpeed0": L.SW, "rollRate0": L.SP, "pitchRate0": L.SQ, "yawRate0": L.SR}


def motion_problems(event, initial: dict) -> list:
    """Problems of the lead units' attitude and motion (``initial``: per lead unit its keys,
    :data:`MOTION_FIELDS` among them): non-zero only for a vehicle of one unit, and an attitude
    only on flat ground."""
    problems = []
    flat = (event.model.environment.terrain is None
            or event.model.environment.terrain.type == "flat")
    for vehicle in event.vehicles():
        lead = vehicle[0]
        given = {k: v for k, v in (initial.get(lead) or {}).items() if k in MOTION_FIELDS and v}
        for key in given:
            if len(vehicle) > 1:
                problems.append(f"{lead}.{key}: 0 for a vehicle that tows (its units start in line, "
                                f"in their combination's equilibrium; got {given[key]!r})")
            elif key in ("roll0", "pitch0") and not flat:
                problems.append(f"{lead}.{key}: 0 on a road other than flat ground (a launch "
                                f"attitude is placed on flat ground only; got {given[key]!r})")
    return problems


def apply_motion(model, lay, y0, unit_names, initial: dict, ground_z: float) -> None:
    """Set each lead unit's attitude and motion from ``initial`` into ``y0`` (module docstring);
    a unit turned out of level is placed with its lowest tire or body vertex on the ground at
    earth Z ``ground_z`` (down +): the kernel :func:`engine.launch.place_launch`, which the
    native FMU runs too."""
    for u, name in enumerate(unit_names):
        given = initial.get(name) or {}
        o = lay.at("body", u)
        for key, slot in MOTION_SLOTS.items():
            if given.get(key):
                y0[o + slot] = given[key]
        if launched(given):
            place_launch(y0, model, np.zeros((3, 3)), u, float(ground_z))


def launched(given: dict) -> bool:
    """Whether a lead unit's initial keys ``given`` turn it out of level (a launch)."""
    return bool(given.get("roll0") or given.get("pitch0"))
