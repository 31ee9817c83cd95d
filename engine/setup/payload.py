"""Payloads and occupants on a unit's sprung mass (Eq. 40-46).

A payload (or an occupant, the same mathematically) is a rigid body fixed in the unit: its
mass, its principal inertias about its own CG and its position from the sprung-mass CG the
user gave. Adding it does not move the vehicle on the road; it moves the CG within the
vehicle (Eq. 42), so every component coordinate is referred to the new CG (Eq. 43), and the
inertia about the new CG follows from the parallel-axis theorem. The printed Eq. 44-46 square
sums of signed coordinates (``dV_x = Delta_y + Delta_z``); the theorem uses the squared
perpendicular distances (``d_y^2 + d_z^2``), which is what is done here (docs/equations.md,
"Payloads and occupants").
"""
from __future__ import annotations

from typing import NamedTuple

from .model import typed_unit


class SprungProperties(NamedTuple):
    """A unit's sprung mass with its payloads and occupants, about the adjusted CG."""
    mass: float          # kg, Eq. 40 (m_Total)
    inertia: tuple       # (Ix, Iy, Iz) about the adjusted CG, kg m^2 (Eq. 46, theorem done properly)
    Ixz: float           # kg m^2, product of inertia about the adjusted CG
    delta: tuple         # (dx, dy, dz): Eq. 42, from the original CG to the adjusted one, vehicle axes, m
    cg_height: float     # m above ground at static equilibrium: the user's cg_height - dz (z down)


def bodies(unit) -> list:
    """Every payload and occupant of ``unit``: the lists of design section 1 (absent = none)."""
    unit = typed_unit(unit)
    return list(unit.payloads or ()) + list(unit.occupants or ())


def sprung_properties(unit) -> SprungProperties:
    """Eq. 40-46 for every payload and occupant of ``unit`` at once.

    Eq. 40: m = m_s + sum m_p. Eq. 41-42 for several bodies: Delta = sum m_p r_p / m (one
    payload: eta r, eta = m_p / m). Parallel-axis theorem about the adjusted CG, the sprung
    body at d = -Delta and each payload at d = r_p - Delta:
    ``Ix = Ix_s + m_s (d_y^2 + d_z^2) + sum [Ix_p + m_p (d_y^2 + d_z^2)]`` (and cyclically),
    ``Ixz = Ixz_s + m_s d_x d_z + sum m_p d_x d_z`` (payloads have no product of their own).
    """
    unit = typed_unit(unit)
    sm = unit.sprung_mass
    ms = sm.mass
    extra = bodies(unit)
    m = ms + sum(b.mass for b in extra)
    delta = tuple(sum(b.mass * b.position[k] for b in extra) / m for k in range(3))
    parts = [(ms, tuple(sm.inertia), tuple(-dk for dk in delta))]
    parts += [(b.mass, tuple(b.inertia), tuple(b.position[k] - delta[k] for k in range(3)))
              for b in extra]
    ix = sum(I[0] + mk * (d[1] ** 2 + d[2] ** 2) for mk, I, d in parts)
    iy = sum(I[1] + mk * (d[2] ** 2 + d[0] ** 2) for mk, I, d in parts)
    iz = sum(I[2] + mk * (d[0] ** 2 + d[1] ** 2) for mk, I, d in parts)
    ixz = sm.Ixz + sum(mk * d[0] * d[2] for mk, _, d in parts)
    return SprungProperties(m, (ix, iy, iz), ixz, delta, sm.cg_height - delta[2])


def adjusted(point, delta) -> tuple:
    """Eq. 43: a component coordinate referred to the adjusted CG, C - Delta."""
    return tuple(point[k] - delta[k] for k in range(3))
