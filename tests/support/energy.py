"""The mechanical energy of an event's units from their outputs: each body's translation at
the unit's whole mass, its sprung mass's rotation and its height (Z down). It leaves out the
suspensions' and tires' springs and the wheels' spin, so a small exchange with them shows.

From the repository root, with ``tests`` on ``sys.path``: ``from support.energy import ...``.
"""
from __future__ import annotations

QUANTITIES = ("u", "v", "w", "p", "q", "r", "Z")


def by_unit(record, names) -> dict:
    """A record keyed ``<unit>.<output>`` (support.run.run) as {unit: {output: values}} of the
    outputs :func:`mechanical_energy` takes."""
    return {n: {k: record[f"{n}.{k}"] for k in QUANTITIES} for n in names}


def mechanical_energy(outputs, masses, inertia, gravity):
    """Every unit's kinetic and potential energy summed, J (arrays where the outputs are):
    ``outputs[unit]`` its u .. r and Z, ``masses[unit]`` its whole mass (kg),
    ``inertia[unit]`` its sprung mass's (Ixx, Iyy, Izz, ...) (kg m^2), ``gravity`` m/s^2."""
    e = 0.0
    for n, o in outputs.items():
        ix, iy, iz = inertia[n][:3]
        e = e + 0.5 * masses[n] * (o["u"] ** 2 + o["v"] ** 2 + o["w"] ** 2) \
            + 0.5 * (ix * o["p"] ** 2 + iy * o["q"] ** 2 + iz * o["r"] ** 2) \
            - masses[n] * gravity * o["Z"]
    return e
