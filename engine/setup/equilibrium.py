"""Static equilibrium of a combination of units joined by connections, and its placement.

Every simulation starts from this state: each unit level at its (payload-adjusted) static CG
height, its springs carrying the sprung weight with the joint forces of its connections, its
tires the spring loads and the unsprung weights. docs/equations.md, "Static equilibrium of a
combination", gives the derivation.

Unknowns: per (axle group, side) the spring load each axle of the group carries on that side
(a load-equalising tandem or tridem; an axle without a group is its own group); per
connection the vertical joint force P when it transmits one (a kingpin, or the drawbar of a
converter dolly; any other drawbar is hinged) and the pitch moment M when it is pitch-rigid
(the fifth wheel of a fixed dolly). Equations: per unit the vertical force, pitch and roll
moment balances about its adjusted CG. Of the solutions, the one of least complementary
energy sum F^2/k (k: a spring in series with its tires, a group's sum of 1/k over its axles,
K_C of a connection, the pitch stiffness of a pitch-rigid one): the elastic solution, which
gives the lever rule exactly wherever the loads are statically determinate.

Every function takes the typed vehicle model (:mod:`engine.setup.model`): an
:class:`~engine.setup.model.EventModel` (``Event.model``) and its
:class:`~engine.setup.model.Unit` records, never the JSON tree (a caller that holds one makes
it a model with :func:`engine.setup.model.typed_event`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .payload import SprungProperties, adjusted, sprung_properties
from ..tire import static_deflection

SIDES = (-1.0, 1.0)                 # left, right: the packing order of a wheel pair
HEIGHT_TOLERANCE = 1e-3             # m: mating connection points' heights above ground
_DOF = ("heave", "pitch", "roll")   # the three balance equations of a unit, in row order


class UnitStatic(NamedTuple):
    """A unit in static equilibrium; per wheel in packing order (axles front to rear as
    listed, left then right): the suspension preload Fs0 (N, the spring load on that side),
    the load of each of its tires (N, inner first for duals) and their deflections (m)."""
    props: SprungProperties
    fs0: list
    tire_loads: list
    tire_deflections: list


class ConnStatic(NamedTuple):
    """A connection in static equilibrium (indices into ``model.units``): P, the vertical force
    the tow unit exerts on the towed unit (up positive: the kingpin load), and M, the pitch
    moment it exerts on the towed unit about the towed unit's y axis."""
    tow: int
    towed: int
    P: float
    M: float


class Link(NamedTuple):
    """A connection of the combination: one per towed unit, in unit order."""
    tow: int
    towed: int
    vertical: bool      # transmits a vertical force
    pitch: bool         # transmits a pitch moment


def wheels(unit) -> list:
    """The wheels of a :class:`engine.setup.model.Unit` in packing order: (axle index, its
    :class:`~engine.setup.model.Axle`, side), left (-1) first."""
    return [(ai, ax, side) for ai, ax in enumerate(unit.axles) for side in SIDES]


def _solid(ax) -> bool:
    return ax.suspension.type == "solid"


def links(model) -> list:
    """The connections of an :class:`~engine.setup.model.EventModel` in towed-unit order
    (design section 3: vertical force through a kingpin or a converter dolly's rigid drawbar;
    a pitch moment through a fixed dolly's fifth wheel)."""
    units = model.units
    names = [u.name for u in units]
    out = []
    for j, unit in enumerate(units):
        front = unit.connections.front
        if front is None:
            continue
        i = names.index(front.tow)
        vertical = front.type == "kingpin" or (front.type == "drawbar" and unit.dolly == "converter")
        out.append(Link(i, j, vertical, units[i].dolly == "fixed"))
    return out


def _rate(model, link, props) -> tuple:
    """(K_C, C_C) of one connection (Eq. 117 with the stiffness read as a weight per
    deflection; docs/equations.md, "The connection stiffness K_C")."""
    units = model.units
    front = units[link.towed].connections.front
    rear = units[link.tow].connections.rear
    kind = front.model
    if kind == "tow":
        return float(rear.stiffness), float(rear.damping)
    m_tow, m_towed = props[link.tow].mass, props[link.towed].mass
    lo, hi = min(m_tow, m_towed), max(m_tow, m_towed)
    m_gov = hi if kind == "heavier" else 0.75 * lo + 0.25 * hi
    k = model.environment.gravity * m_gov / front.deflection
    return k, 0.5 * math.sqrt(k * m_gov)


def connection_rates(model, units_static) -> list:
    """Per connection of an :class:`~engine.setup.model.EventModel` (towed-unit order) the
    constraint rates (K_C N/m, C_C N s/m) of Eq. 117: K_C = W_gov / deflection, W_gov =
    g max(m_tow, m_towed) ("heavier"), g (0.75 m_min + 0.25 m_max) ("both"), sprung masses
    with their payloads; C_C = 0.5 sqrt(K_C m_gov); the tow unit's rear-connection stiffness
    and damping for "tow"."""
    props = [s.props for s in units_static]
    return [_rate(model, link, props) for link in links(model)]


def _series(ax, unit) -> float:
    """One side's spring in series with that side's tires, N/m."""
    ks = ax.suspension.spring_rate
    kt = (2 if ax.dual else 1) * unit.tires[ax.tire].radial_stiffness
    return ks * kt / (ks + kt)


def _spring_y(ax, side, dy) -> float:
    """A spring's y from the adjusted CG: a solid axle's at +-spring_spacing/2 about the axle
    centre, an independent wheel's at its wheel centre (+-track/2)."""
    half = ax.suspension.spring_spacing / 2.0 if _solid(ax) else ax.track / 2.0
    return side * half - dy


class _System(NamedTuple):
    props: list          # SprungProperties per unit
    A: np.ndarray        # (3 n_units, n_unknowns): rows heave, pitch, roll per unit
    b: np.ndarray
    k: np.ndarray        # per unknown, the stiffness of its complementary energy F^2/k
    spring_col: list     # per unit, per wheel (packing order): the column of its spring load
    conn_cols: list      # per link: (column of P or None, column of M or None)
    links: list
    length: float        # m, the largest coordinate: the scale of the moment rows


def _system(model) -> _System:
    units = model.units
    g = model.environment.gravity
    props = [sprung_properties(u) for u in units]
    lk = links(model)
    cols, k = [], []            # cols: list of {row: coefficient}

    def column(entries, stiffness):
        cols.append(entries)
        k.append(stiffness)
        return len(cols) - 1

    spring_col = []
    length = 1.0
    for ui, unit in enumerate(units):
        dx, dy, _ = props[ui].delta
        groups = {}
        for ai, ax in enumerate(unit.axles):
            groups.setdefault(("group", ax.group) if ax.group is not None else ("axle", ai), []).append(ai)
        col_of = {}
        for members in groups.values():
            for side in SIDES:
                entries = {}
                compliance = 0.0
                for ai in members:
                    ax = unit.axles[ai]
                    x, y = ax.x - dx, _spring_y(ax, side, dy)
                    length = max(length, abs(x), abs(y))
                    for r, c in ((0, 1.0), (1, x), (2, y)):
                        entries[3 * ui + r] = entries.get(3 * ui + r, 0.0) + c
                    compliance += 1.0 / _series(ax, unit)
                c = column(entries, 1.0 / compliance)
                for ai in members:
                    col_of[(ai, side)] = c
        spring_col.append([col_of[(ai, side)] for ai, _, side in wheels(unit)])

    conn_cols = []
    for link in lk:
        front = units[link.towed].connections.front
        rear = units[link.tow].connections.rear
        pf = adjusted(front.point, props[link.towed].delta)
        pr = adjusted(rear.point, props[link.tow].delta)
        length = max(length, *(abs(v) for v in pf[:2] + pr[:2]))
        cp = cm = None
        if link.vertical:
            # up on the towed unit at its front point, down on the tow unit at its rear point
            e = {3 * link.towed: 1.0, 3 * link.towed + 1: pf[0], 3 * link.towed + 2: pf[1]}
            for r, c in ((0, -1.0), (1, -pr[0]), (2, -pr[1])):
                e[3 * link.tow + r] = e.get(3 * link.tow + r, 0.0) + c
            cp = column(e, _rate(model, link, props)[0])
        if link.pitch:
            cm = column({3 * link.towed + 1: 1.0, 3 * link.tow + 1: -1.0}, rear.pitch_stiffness)
        conn_cols.append((cp, cm))

    A = np.zeros((3 * len(units), len(cols)))
    for c, entries in enumerate(cols):
        for r, v in entries.items():
            A[r, c] = v
    b = np.zeros(3 * len(units))
    b[0::3] = [p.mass * g for p in props]
    return _System(props, A, b, np.asarray(k, dtype=float), spring_col, conn_cols, lk, length)


def _mechanisms(s: _System) -> list:
    """The rigid motions no spring or joint resists: per such motion, {unit: dof name} of the
    units it moves ([] when every unit is held in heave, pitch and roll)."""
    rows = s.A.shape[0]
    scaled = s.A.copy()
    scaled[1::3] /= s.length         # moments per unit length: rows of one scale
    scaled[2::3] /= s.length
    for _, cm in s.conn_cols:
        if cm is not None:
            scaled[:, cm] *= s.length
    u, sv, _ = np.linalg.svd(scaled)
    rank = int(np.sum(sv > 1e-9 * sv.max())) if sv.size else 0
    out = []
    for n in range(rank, rows):
        v = u[:, n]
        moved = {}
        for ui in range(rows // 3):
            block = np.abs(v[3 * ui:3 * ui + 3])
            if block.max() > 1e-6:
                moved[ui] = _DOF[int(np.argmax(block))]
        out.append(moved)
    return out


def _vehicles(s: _System) -> list:
    """Per vehicle (a lead unit and the units it tows; in the order of its first unit), the
    rows of its units' balances and the columns of its springs and joints: A is block
    diagonal in them, no spring or joint acting on two vehicles."""
    n = s.A.shape[0] // 3
    vehicle = list(range(n))
    for link in s.links:          # towed units are listed after their tow unit
        vehicle[link.towed] = vehicle[link.tow]
    out = []
    for v in sorted(set(vehicle)):
        rows = [3 * ui + r for ui in range(n) if vehicle[ui] == v for r in range(3)]
        cols = [c for c in range(s.A.shape[1]) if np.any(s.A[rows, c] != 0.0)]
        out.append((rows, cols))
    return out


def _solve(s: _System):
    """The least-complementary-energy loads: u = K A^T lam with (A K A^T) lam = b, solved
    vehicle by vehicle (:func:`_vehicles`, so that a vehicle's loads are those of an event of
    its own, to the last bit) with its K and b divided by their largest entries (u does not
    depend on the scale of K and is linear in b), so that loads within the range of a float
    are found whatever the rates."""
    u = np.zeros(s.A.shape[1])
    for rows, cols in _vehicles(s):
        A = s.A[np.ix_(rows, cols)]
        k = s.k[cols] / np.max(s.k[cols])
        w = float(np.max(np.abs(s.b[rows])))
        lam = np.linalg.solve((A * k) @ A.T, s.b[rows] / w)
        u[cols] = w * (k * (A.T @ lam))
    return u


def _wheel_loads(unit, props, u, cols, g):
    """Per wheel (packing order): (Fs0, [tire loads], [tire deflections])."""
    f = [float(u[c]) for c in cols]
    out = []
    for j, (_, ax, side) in enumerate(wheels(unit)):
        n = 2 if ax.dual else 1
        mg = ax.unsprung_mass_per_wheel * g
        if _solid(ax):
            fl, fr = f[j - 1:j + 1] if side > 0 else f[j:j + 2]
            ratio = ax.suspension.spring_spacing / ax.track
            load = 0.5 * (fl + fr) + mg + side * 0.5 * (fr - fl) * ratio   # heave and roll about the axle centre
        else:
            load = f[j] + mg
        tire = unit.tires[ax.tire]
        per = load / n
        d = static_deflection(per, tire.radial_stiffness, tire.secondary_stiffness_multiplier,
                              tire.secondary_stiffness_deflection)
        out.append((f[j], [per] * n, [float(d)] * n))
    return out


def static_state(model):
    """(list[UnitStatic] in unit order, list[ConnStatic] in towed-unit order) of a validated
    event's :class:`engine.setup.model.EventModel`; ValueError naming the problem when the
    combination cannot stand."""
    s = _system(model)
    if _mechanisms(s):
        raise ValueError("; ".join(static_equilibrium_problems(model)))
    u = _solve(s)
    g = model.environment.gravity
    units = []
    for ui, unit in enumerate(model.units):
        rows = _wheel_loads(unit, s.props[ui], u, s.spring_col[ui], g)
        units.append(UnitStatic(s.props[ui], [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]))
    conns = [ConnStatic(link.tow, link.towed, float(u[cp]) if cp is not None else 0.0,
                        float(u[cm]) if cm is not None else 0.0)
             for link, (cp, cm) in zip(s.links, s.conn_cols)]
    return units, conns


def _point_height(unit, end) -> float:
    """Height above ground of a connection point at static equilibrium (payload shifts move
    the CG and the point alike, so the user's coordinates give it)."""
    return unit.sprung_mass.cg_height - getattr(unit.connections, end).point[2]


def _height_problems(model) -> list:
    units = model.units
    out = []
    for link in links(model):
        hf = _point_height(units[link.towed], "front")
        hr = _point_height(units[link.tow], "rear")
        if not abs(hf - hr) <= HEIGHT_TOLERANCE:
            out.append(f"units[{link.towed}].connections.front.point: no static equilibrium: its height above "
                       f"ground ({hf:.6g} m, units[{link.towed}].sprung_mass.cg_height less its z) differs from "
                       f"that of the point it mates, units[{link.tow}].connections.rear.point ({hr:.6g} m), by "
                       f"{abs(hf - hr):.3g} m; they must agree within {HEIGHT_TOLERANCE:g} m (both units stand "
                       "level at their static CG heights)")
    return out


def _mechanism_problems(model, s, mechanisms) -> list:
    units = model.units
    named = {}
    for moved in mechanisms:
        for ui, dof in moved.items():
            named.setdefault(ui, dof)
    out = []
    for ui in sorted(named):
        unit = units[ui]
        conns = unit.connections
        held = [f"connections.{end}" for end in ("front", "rear") if getattr(conns, end) is not None]
        by = f" and its {' and '.join(held)}" if held else ""
        out.append(f"units[{ui}].axles: no static equilibrium: unit {unit.name!r} cannot stand: its axles "
                   f"at x = {[a.x for a in unit.axles]} m{by} give it no support in {named[ui]} about "
                   "its CG; give axles on both sides of the CG, or tow it by a connection that carries "
                   "vertical load (connections.front: a kingpin, or the drawbar of a converter dolly; any "
                   "other drawbar is hinged)")
    return out


def static_equilibrium_problems(model) -> list:
    """Why the event of the :class:`engine.setup.model.EventModel` ``model`` (of fields each
    valid) has no static equilibrium the engine can start from, one message per problem naming
    the fields ([] when it has one).

    The combination must stand on its wheels: every unit held in heave, pitch and roll by its
    springs and its connections (a one-axle unit only when towed by a connection that carries
    vertical load), the connection points meeting, every tire pressed on the ground (a load
    > 0) and within its max_deflection (Eq. 93): the engine starts every simulation in this
    state and stops when a tire deflects beyond its maximum.
    """
    g = model.environment.gravity
    units = model.units
    problems = _height_problems(model)
    with np.errstate(all="ignore"):
        s = _system(model)
        finite = bool(np.isfinite(s.A).all() and np.isfinite(s.b).all() and np.isfinite(s.k).all())
        if finite:
            mechanisms = _mechanisms(s)
            if mechanisms:
                return problems + _mechanism_problems(model, s, mechanisms)
            try:
                u = _solve(s)
            except np.linalg.LinAlgError:
                u = np.full(s.A.shape[1], np.nan)
            scale = max(float(np.max(np.abs(s.b))), 1.0)
            if np.isfinite(u).all() and not np.max(np.abs(s.A @ u - s.b) * np.tile([1.0, 1.0 / s.length, 1.0 / s.length],
                                                                                   len(units))) <= 1e-9 * scale:
                u = np.full(s.A.shape[1], np.nan)
        else:
            u = np.full(s.A.shape[1], np.nan)
        rows = [_wheel_loads(unit, s.props[ui], u, s.spring_col[ui], g) for ui, unit in enumerate(units)]
    for i, unit in enumerate(units):
        p = f"units[{i}]"
        if not all(math.isfinite(v) for f, loads, defl in rows[i] for v in [f, *loads, *defl]):
            problems.append(f"{p}: no static equilibrium: the wheel loads are not finite numbers "
                            f"(sprung_mass.mass {unit.sprung_mass.mass!r} kg, environment.gravity "
                            f"{g!r} m/s^2, the axles' spring_rate and the tires' radial_stiffness "
                            "must give loads within the range of a float)")
            continue
        connected = unit.connections.front is not None or unit.connections.rear is not None
        for j, (ai, ax, side) in enumerate(wheels(unit)):
            _, loads, defls = rows[i][j]
            load, defl = min(loads), max(defls)
            wheel = f"{p}.axles[{ai}] ({'left' if side < 0 else 'right'})"
            tire = unit.tires[ax.tire]
            if not load > 0.0:
                where = ("its CG (x = 0) and its connection loads must lie between the first and the last "
                         "axle" if connected else "the sprung-mass CG (x = 0) must lie between the first and "
                         "the last axle")
                problems.append(f"{wheel}: no static equilibrium: the tire load would be {load:.6g} N "
                                f"(the wheel lifts off); {where}")
            elif not defl < tire.max_deflection:
                problems.append(f"{wheel}: no static equilibrium: the static tire load {max(loads):.6g} N "
                                f"deflects tire {ax.tire!r} by {defl:.6g} m, beyond its max_deflection "
                                f"{tire.max_deflection:g} m (units[{i}].sprung_mass.mass {unit.sprung_mass.mass:g} kg, "
                                f"environment.gravity {g:g} m/s^2, units[{i}].tires.{ax.tire}.radial_stiffness "
                                f"{tire.radial_stiffness:g} N/m)")
    return problems


def place_units(model, units_static, initial) -> list:
    """Per unit of the :class:`engine.setup.model.EventModel` ``model`` (X, Y, Z, yaw) of its
    adjusted CG, earth axes. ``initial``: {lead unit name:
    {"X0", "Y0", "yaw0", "speed0"}}. A lead unit at its X0, Y0, yaw0; a towed unit's X, Y and
    yaw are None here: the kernel :func:`engine.launch.place_towed` puts it in line behind its
    tow unit in the state, as the native FMU does at initialisation;
    every unit at Z = ground_elevation - its adjusted CG height (level, at rest on its
    wheels; the mating points' heights agree, ``static_equilibrium_problems``)."""
    ground = model.environment.ground_elevation
    out = []
    for j, unit in enumerate(model.units):
        z = ground - units_static[j].props.cg_height
        if unit.connections.front is None:
            ini = initial[unit.name]
            out.append((float(ini["X0"]), float(ini["Y0"]), z, float(ini["yaw0"])))
        else:
            out.append((None, None, z, None))
    return out
