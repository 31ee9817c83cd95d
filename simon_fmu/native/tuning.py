"""Which parameters the native FMU sets itself at initialisation, and what each one writes.

The development FMU runs the engine's set-up (``engine.setup.params.pack``: equilibrium,
placement, the initial motion) again for the parameters a host sets. The native FMU carries
that set-up's result for the parameters' start values, and, per parameter, the set-up's own
answer to a change of it, found at build time by running the set-up for other values
(:func:`effects`):

* a Real parameter whose every effect on the packed arrays and the state is one of
  ``slot = value / c``, ``slot = c * value`` or ``slot = value + c`` (``c`` a constant of the
  event), bit for bit at three values, is *tunable*: the runtime writes those slots with the
  same floating-point operation the set-up does (``car.speed0`` sets each unit's forward speed
  and each wheel's spin, speed / rolling radius; ``frictionMultiplier`` scales the road's
  friction);
* an Enumeration parameter is tunable with the slots the set-up writes for each of its items;
* ``stepSize`` is tunable: it is the integrator's step, checked at initialisation as
  ``engine.Simulation`` checks it (the contact limit of the meshes, the modes of the initial
  state, :mod:`engine.stability`);
* a lead unit's launch attitude (``roll0``, ``pitch0``) on flat ground (by barriers and
  objects, or none), for a vehicle of one unit, alone or among other vehicles: the angles are
  such rows, and the unit is then placed on its lowest point by the kernel the set-up runs
  (``engine.launch.place_launch``, from the unit's equilibrium height: ``tune.launch``); the
  build checks at three values that the two together give the set-up's state bit for bit.
  The placement reads that unit alone, and the set-up's check between vehicles reads only
  their places in plan view (X, Y, yaw: ``engine.launch.footprint_hits``), which the runtime
  runs after the placements all the same (``tune.apart``, below);
* a lead unit's position (``X0``, ``Y0``, ``yaw0``) on flat ground: its slots are such rows;
  the units it tows are then put in line behind it by the kernel the set-up
  runs (``engine.launch.place_towed``: ``tune.towed``; the build checks at three values that
  the two together give the set-up's state bit for bit), and when the event holds several
  vehicles the runtime refuses a start at which two of them overlap, as the set-up does, by
  its kernel (``engine.launch.footprint_hits``: ``tune.apart``, ``apart.*``);
* on a mesh, OpenCRG or external road, a lead unit's
  position (``X0``, ``Y0``, ``yaw0``), and its ``speed0`` (on a crossfall, the road's or one
  the wheel inputs give, it sets the rolling vehicle's slip): the set-up puts the vehicle on the terrain
  under it (``engine.setup.params.pack``: ``engine.setup.settle``), so these are rows on the
  state *before* that start (its ``trace``: ``tune.terrain`` on ``terrain.y``); the runtime
  writes them, puts the towed units in line (``engine.launch.place_towed``), then calls the
  set-up's kernels of that start, ``engine.settle.settle_on_terrain`` and
  ``engine.preload.preload_lateral``, with the set-up's tables (``settle.*``, ``pre.*``), and
  refuses a start with a wheel off the road, or on displaced wheels one the vehicle cannot
  stand on (``engine.setup.settle.displaced_start_problem``), with the set-up's message; then
  the other
  parameters' rows on the state. The build checks at three values of each that this gives the
  set-up's state bit for bit (:func:`terrain_start`);
* wheel inputs set at initialisation (the development FMU builds its simulation with them:
  an external road's ``roadZ`` and grades place the vehicle): where the set-up reads them (a
  road other than flat ground, or displaced wheels) the runtime runs the start on the terrain
  above again with them in the set-up's tables (on flat ground without settling), a row of
  ``apply_motion``'s at zero leaving the start's value there (:data:`NONZERO_ONLY`); the build
  checks per field at a probe that this gives the set-up's state bit for bit
  (:func:`wheel_problems`: ``tune.wheels``), and the runtime refuses a field that does not,
  naming the variable;
* after any of these moved a unit, the runtime refuses a start at which a unit's exterior or
  wheel meshes are inside the road, a barrier, a wall or an environment object, as the set-up
  does (``engine.setup.start_clear``), by its kernel (``engine.start_check.start_overlaps``:
  ``tune.clear``, ``clear.*``) and with its messages (``start_clear.overlap_templates``);
* any other parameter (one whose effect is not of these forms) keeps its start value: the
  runtime refuses another one, naming it.

A parameter that the engine accepts only as zero for this event
(``engine.setup.launch.motion_problems``: the attitude and motion of a lead unit that tows, a
launch attitude on a road other than flat ground) is refused with the engine's message
(``tune.zero``, ``tune.zero_tail``: :data:`ZERO_ONLY`), as the development FMU refuses it.
"""
from __future__ import annotations

import copy
import math
from typing import NamedTuple

import numpy as np

from engine import layout as L
from engine.collision import EDGE
from engine.launch import place_launch, place_towed
from engine.jit import compiled_entry
from engine.preload import PRELOAD_DONE, preload_lateral
from engine.settle import settle_on_terrain
from engine.start_check import H_DEPTH, H_VERTEX
from engine.setup.errors import EventError
from engine.setup.fields import INTEGRATORS, MAX_STEP_SIZES
from engine.setup.launch import MOTION_FIELDS, MOTION_SLOTS, launched, motion_problems
from engine.setup.params import pack
from engine.setup.settle import (DEFLECT, DISPLACED_REST, LIFT_OFF, NO_EQUILIBRIUM, NO_REST,
                                  NOT_FINITE, TERRAIN_REST, terrain_rest_problem,
                                  OFF_TERRAIN, PRELOAD_ARGS, SETTLE_ARGS, STAND,
                                  displaced_start_problem, preload_arguments, settle_arguments)

from .resources import FIXED, STEP, TUNABLE, ZERO_ONLY

#: the operation of an effect row: slot = value / c, c * value, value + c, or (an item of an
#: Enumeration) the constant c when the value is the row's item
OP_DIV, OP_MUL, OP_ADD, OP_ITEM = 0, 1, 2, 3
#: the arrays an effect can write: the state, then the packed parameters by field
TARGETS = ("y",) + tuple(f"P.{f}" for f in L.Model._fields)
#: the body states that place a unit: a parameter that writes one moves the vehicle
_PLACEMENT = (L.SX, L.SY, L.SZ, L.SPHI, L.STHETA, L.SPSI)
#: the initial keys of a launch attitude (engine.setup.launch)
_LAUNCH = ("roll0", "pitch0")
#: the initial keys of a lead unit's position, which place the units it tows
_POSITION = ("X0", "Y0", "yaw0")
#: the initial keys of a lead unit that the runtime can apply before it puts the vehicle on a
#: terrain (``tune.terrain``)
_TERRAIN = _POSITION + ("speed0",)
#: how far from its start value each probe of a Real parameter goes (odd, so that no form
#: other than the true one reproduces three of them bit for bit)
_PROBES = (1.2345678901, -0.7654321987, 2.7182818285)
#: the item of a state row (op other than OP_ITEM) whose slot ``apply_motion`` writes only for a
#: value that is not zero: after the start on the terrain is run again (the runtime's
#: ``terrain_start``), such a row at zero leaves the start's value (a rolling vehicle's lateral
#: velocity on a crossfall)
NONZERO_ONLY = 1
#: the wheel inputs' probes at initialisation (engine.signals.WHEEL_INPUTS): per field, a value
#: away from its start value and inside its range, times :data:`_WHEEL_SPREAD` ** wheel so
#: that the wheels differ (an external road's plane under them not flat)
_WHEEL_PROBES = {"brakePressureFactor": 0.75, "frictionMultiplier": 0.85, "roadZ": -0.1234567,
                 "roadGradeX": -0.0512345, "roadGradeY": 0.0312345, "roadWaterDepth": 0.0023,
                 "brakeForce": 1234.5, "brakeFriction": 0.15, "driveForce": 1234.5,
                 "driveFriction": 0.15, "steerAngle": 0.0456}
_WHEEL_SPREAD = 1.1
#: the scales of the probes of a start on a terrain, tried in turn where the set-up refuses one
#: (the vehicle off the road)
_NEARER = (1.0, 0.1, 0.01)


class Effects(NamedTuple):
    """Per variable (by value reference): ``kind`` (FIXED ...), and the rows (value reference,
    target, flat index, op, constant, item) the runtime applies; ``reasons`` says why a
    parameter stays fixed (for docs/native.md and the build's log); ``launch``, per unit whose
    launch attitude is tunable: (unit, flat index of its Z in y, value reference of its roll0,
    of its pitch0, its equilibrium Z, the ground's Z), placed after the rows; ``towed``: 1
    when the towed units are put in line behind their tow units after the rows; ``apart``: 1
    when the runtime checks that the vehicles start apart; ``terrain``: the rows (as ``rows``,
    on the state) that the runtime applies to the state before the set-up put the vehicle on
    the terrain (``flat``), then settling and preloading it by the set-up's kernels
    (``terrain_towed``: 1 when the towed units are put in line first; ``trace``: the set-up's
    wheel inputs and tables of that start, ``engine.setup.params.pack``'s); ``clear``: 1 when
    a parameter moves a unit, and the runtime checks that the meshes start clear of the road,
    the barriers, the walls and the objects."""
    kind: np.ndarray
    rows: np.ndarray
    reasons: dict
    launch: np.ndarray
    towed: int
    apart: int
    terrain: np.ndarray
    terrain_towed: int
    flat: np.ndarray
    trace: dict
    clear: int


def _arrays(model, y0) -> list:
    return [np.asarray(y0)] + [np.asarray(a) for a in model]


def _solver(sim, substeps=None, integrator=None) -> dict:
    """The integrator's settings ``engine.setup.params.pack`` takes: the simulation's, or the
    given ones in their place."""
    return {"substeps": sim.substeps if substeps is None else substeps,
            "integrator": sim.integrator if integrator is None else integrator}


def _setup(event, sim, fm=None, initial=None, modes=None, flat=False, substeps=None,
           integrator=None) -> list:
    """The set-up's arrays (the state and the packed parameters, in :data:`TARGETS` order) for
    the simulation's parameters with the given ones in their place; ``flat``: the state before
    the set-up puts the vehicle on the terrain (``engine.setup.params.pack``'s ``trace``), even
    where the terrain then refuses it."""
    trace = {}
    args = (event, sim.friction_multiplier if fm is None else fm,
            sim.initial if initial is None else initial, None,
            sim.steering_modes if modes is None else modes)
    solver = _solver(sim, substeps, integrator)
    if not flat:
        return _arrays(*pack(*args, **solver))
    try:
        model, _ = pack(*args, trace=trace, **solver)
    except EventError:
        if "flat" not in trace:
            raise
        # the same arrays: only y moves
        model = pack(*args[:2], sim.initial, *args[3:], **solver)[0]
    return _arrays(model, trace["flat"])


def _changed(base: list, other: list) -> list:
    """(target, flat index) of every slot that differs (NaN equal to NaN)."""
    out = []
    for t, (a, b) in enumerate(zip(base, other)):
        if a.shape != b.shape:
            raise ValueError(f"{TARGETS[t]} changes its shape")
        a, b = a.ravel(), b.ravel()
        diff = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        out += [(t, int(k)) for k in np.flatnonzero(diff)]
    return out


def _near(c: float):
    """c and its neighbours a few units in the last place away."""
    yield c
    lo = hi = c
    for _ in range(4):
        lo, hi = np.nextafter(lo, -math.inf), np.nextafter(hi, math.inf)
        yield float(lo)
        yield float(hi)


def _form(points) -> tuple | None:
    """(op, c) such that every (value, slot) of ``points`` is op(value, c) bit for bit, or None."""
    v1, s1 = points[1]
    candidates = []
    if s1 != 0.0 and v1 != 0.0:
        candidates += [(OP_DIV, c) for c in _near(v1 / s1)]
    if v1 != 0.0:
        candidates += [(OP_MUL, c) for c in _near(s1 / v1)]
    candidates += [(OP_ADD, c) for c in _near(s1 - v1)]
    for op, c in candidates:
        if all(_apply(op, v, c) == s or (math.isnan(s) and math.isnan(_apply(op, v, c)))
               for v, s in points):
            return op, c
    return None


def _apply(op: int, v: float, c: float) -> float:
    """The runtime's operation (simon_native.c, setup_parameters)."""
    with np.errstate(all="ignore"):
        if op == OP_DIV:
            return float(np.float64(v) / np.float64(c))
        if op == OP_MUL:
            return float(np.float64(c) * np.float64(v))
        return float(np.float64(v) + np.float64(c))


def _probes(v, start: float, scale: float = 1.0) -> list:
    lo = -math.inf if v.min is None else float(v.min)
    hi = math.inf if v.max is None else float(v.max)
    out = []
    for d in _PROBES:
        d *= scale
        p = start + d
        if not lo <= p <= hi:
            p = start - d
        if lo <= p <= hi and p not in out and p != start:
            out.append(p)
    return out


def effects(event, sim, catalogue) -> Effects:
    """The native FMU's parameter table for the event built as ``sim`` (module docstring)."""
    from model_description.catalogue import ENUMERATIONS

    params = [v for v in catalogue if v.causality == "parameter"]
    nvars = len(catalogue)
    kind = np.zeros(nvars, np.int64)
    reasons = {}
    base = _setup(event, sim)
    for t, (a, b) in enumerate(zip(base, _arrays(sim.model, sim.y))):
        if not np.array_equal(a, b, equal_nan=True):
            raise RuntimeError(f"the set-up does not reproduce the simulation's {TARGETS[t]}")
    lay = L.StateLayout.of_model(sim.model)
    placing = {lay.at("body", u) + s for u in range(len(sim.unit_names)) for s in _PLACEMENT}
    flat = event.model.environment.terrain is None or event.model.environment.terrain.type == "flat"
    # barriers, walls and objects: the runtime refuses a start inside one as the set-up does,
    # by its kernel (engine.start_check.start_overlaps: tune.clear); other vehicles: a start
    # at which two overlap, by the set-up's kernel (engine.launch.footprint_hits: tune.apart)
    several = len(event.vehicles()) > 1
    towing = {vehicle[0] for vehicle in event.vehicles() if len(vehicle) > 1}
    rows, owner, launches, towed, apart, clear = [], {}, {}, False, False, False
    names = {v.name: v.value_reference for v in params}
    # on a terrain: the lead's position (and speed) applied before the set-up's start on it
    trace = {}
    pack(event, sim.friction_multiplier, sim.initial, None, sim.steering_modes, trace=trace,
         **_solver(sim))
    flat_base = [trace["flat"]] + base[1:]
    terrain = {}             # value reference -> (variable, its rows on the flat state, towed)
    for v in params:
        source, index = v.binding
        vr = v.value_reference
        if source == "parameter" and index == ("stepSize",):
            kind[vr] = STEP
            continue
        if source == "initial" and index[1] in MOTION_FIELDS and _zero_problem(event, *index):
            # the engine accepts it only as zero for this event: a lead unit that tows, an
            # attitude on a road other than flat ground (refused with its message: tables)
            kind[vr] = ZERO_ONLY
            continue
        ignore, u, train = frozenset(), -1, False
        if source == "initial" and index[1] in _LAUNCH and flat:
            # its unit's height is the placement's (checked below), not one of the rows
            u = sim.unit_names.index(index[0])
            ignore = frozenset({(0, lay.at("body", u) + L.SZ)})
        elif source == "initial" and index[1] in _POSITION and index[0] in towing and flat:
            # the towed units' places are the kernel's (checked below), not rows
            train = True
            ignore = frozenset((0, lay.at("body", sim.unit_names.index(name)) + s)
                               for vehicle in event.vehicles() if vehicle[0] == index[0]
                               for name in vehicle[1:] for s in (L.SX, L.SY, L.SPSI))
        moved = source == "initial" and index[1] in _TERRAIN and not flat
        # (a position on a terrain is probed on the state before the start there, below: the
        # set-up may refuse a probe off the road; the speed too, even where its effect on the
        # final state is rows: with other wheel inputs, a crossfall, it sets the slip)
        found = "" if moved else _effect(event, sim, v, base, ENUMERATIONS, ignore)
        if moved:
            # its rows on the state before the start on the terrain; the towed units' places
            # there are the kernel's
            train = index[0] in towing
            ignore = frozenset((0, lay.at("body", sim.unit_names.index(name)) + s)
                               for vehicle in event.vehicles() if vehicle[0] == index[0]
                               for name in vehicle[1:] for s in (L.SX, L.SY, L.SPSI)) \
                if train else frozenset()
            found = _effect(event, sim, v, flat_base, ENUMERATIONS, ignore, flat=True)
            if not isinstance(found, str) and any(t != 0 for _, t, _, _, _, _ in found):
                found = "it changes a packed parameter besides the state"
            if isinstance(found, str):
                reasons[v.name] = found
            else:
                terrain[vr] = (v, found, train)
            continue
        if not isinstance(found, str) and train:
            found = _towed_problem(event, sim, v, found) or found
            towed = towed or not isinstance(found, str)
        elif not isinstance(found, str) and ignore:
            if u not in launches:
                launches[u] = _launch_row(event, sim, lay, u, names)
            found = _launch_problem(event, sim, v, found, launches[u]) or found
        if isinstance(found, str):
            reasons[v.name] = found
            continue
        moves = any(t == 0 and k in placing for _, t, k, _, _, _ in found)
        if moves and not flat:
            reasons[v.name] = "it moves a unit on a road other than flat ground (the vehicle " \
                              "was settled on the road at build time)"
            continue
        apart = apart or (moves and several)
        clear = clear or moves
        kind[vr] = TUNABLE
        for row in found:
            owner.setdefault((row[1], row[2]), set()).add(vr)
        rows += found
    if towed:
        # the runtime places every towed unit after any change: at the start values too
        y = np.array(sim.y, dtype=np.float64)
        place_towed(y, sim.model)
        if not np.array_equal(y, sim.y, equal_nan=True):
            towed = False
            for v in params:
                source, index = v.binding
                if source == "initial" and index[1] in _POSITION and index[0] in towing \
                        and kind[v.value_reference] == TUNABLE:
                    kind[v.value_reference] = FIXED
                    reasons[v.name] = "the towed units' places do not reproduce the set-up's state"
                    rows = [r for r in rows if r[0] != v.value_reference]
    shared = {vr for vrs in owner.values() if len(vrs) > 1 for vr in vrs}
    named = {v.value_reference: v.name for v in params}
    for vr in shared:         # two parameters writing one slot: the set-up combines them
        kind[vr] = FIXED
        reasons[named[vr]] = "it writes a slot another parameter writes too"
    rows = [r for r in rows if r[0] not in shared]
    # the terrain's parameters: their rows, the towed units put in line, the start on the
    # terrain, then the other parameters' rows on the state give the set-up's, at three values
    after = [r for r in rows if r[1] == 0]
    slots = {}
    for vr, (v, found, _) in terrain.items():
        for row in found:
            slots.setdefault(row[2], set()).add(vr)
    twice = {vr for vrs in slots.values() if len(vrs) > 1 for vr in vrs}
    terrain_rows, terrain_towed = [], False
    for vr, (v, found, train) in terrain.items():
        problem = "it writes a slot another parameter writes too" if vr in twice else \
            _terrain_problem(event, sim, v, found, train, flat_base[0], after, trace, params)
        if problem:
            reasons[v.name] = problem
            continue
        kind[vr] = TUNABLE
        terrain_rows += found
        terrain_towed = terrain_towed or train
        clear = True
        apart = apart or (several and v.binding[1][1] in _POSITION)
    table = np.array(rows, dtype=np.float64).reshape(-1, 6)
    launch = [row for row in launches.values()
              if any(kind[int(vr)] == TUNABLE for vr in row[2:4])]
    return Effects(kind, table, reasons, np.array(launch, dtype=np.float64).reshape(-1, 6),
                   int(towed), int(apart), np.array(terrain_rows, dtype=np.float64).reshape(-1, 6),
                   int(terrain_towed), np.array(flat_base[0], dtype=np.float64), trace,
                   int(clear))


def terrain_start(y, model, trace, towed: bool, wheel_names, settle: bool = True) -> str | None:
    """What the native runtime does after the terrain's rows (``tune.terrain``): the towed units
    put in line (``towed``), the start on the terrain by the set-up's kernels
    (``engine.settle.settle_on_terrain``, but on flat ground (``settle`` False), and
    ``engine.preload.preload_lateral``) with the set-up's wheel inputs and tables (``trace``:
    ``engine.setup.params.pack``'s), on displaced wheels the set-up's check that the vehicle
    stands (``engine.setup.settle.displaced_start_problem``). None, or why the set-up refuses
    the start."""
    if towed:
        compiled_entry(place_towed, (y, model))(y, model)
    args = (y,) + settle_arguments(model, trace["u_wheel"])
    w = compiled_entry(settle_on_terrain, args)(*args) if settle else -1
    if w >= 0:
        return f"off the terrain: wheel {w}"
    args = (y,) + preload_arguments(model, trace["tire_loads"], trace["u_wheel"], trace["pitch"],
                                    trace["wheel_dz"])
    if compiled_entry(preload_lateral, args)(*args) != PRELOAD_DONE:
        return "no equilibrium"
    problem = terrain_rest_problem(args[PRELOAD_ARGS.index("vn")][0], trace["pitch"])
    if problem:
        return problem
    if trace["pitch"]:
        r, Y = args[PRELOAD_ARGS.index("vn")][0], args[PRELOAD_ARGS.index("Y")]
        return displaced_start_problem(model, r, Y.y_tire, trace["displaced"], wheel_names)
    return None


def _terrain_problem(event, sim, v, rows, train, flat_y, after, trace, params) -> str | None:
    """None when the rows of the initial-condition parameter ``v`` on the state before the
    start on the terrain (``flat_y``), :func:`terrain_start` and the other parameters' rows on
    the state (``after``, at their start values) give the set-up's state bit for bit at three
    values of it, and a refusal where the set-up refuses (a wheel off the terrain), else why
    not. Where the set-up refuses a probe (the vehicle off the road), the probes nearer the
    start value (:data:`_NEARER`) are tried too."""
    lead, key = v.binding[1]
    start = {p.value_reference: float(p.start) for p in params}
    checked = 0
    values = [p for scale in _NEARER for p in _probes(v, float(v.start), scale)]
    for value in values:
        if checked == len(_PROBES):
            break
        initial = copy.deepcopy(sim.initial)
        initial[lead][key] = value
        try:
            want = _setup(event, sim, initial=initial)[0]
        except EventError:
            want = None
        y = np.array(flat_y, dtype=np.float64)
        for _, _, k, op, c, _ in rows:
            y[int(k)] = _apply(int(op), value, c)
        refused = terrain_start(y, sim.model, trace, train, sim.wheel_names)
        if want is None or refused:
            if want is None and refused:
                continue
            return "the start on the terrain does not reproduce the set-up's state"
        _after(y, after, start)
        if not np.array_equal(y, want, equal_nan=True):
            return "the start on the terrain does not reproduce the set-up's state"
        checked += 1
    return None if checked == len(_PROBES) else \
        f"the set-up refuses {len(values) - checked} of the {len(values)} values it was probed at"


def _after(y, after, start) -> None:
    """The state rows ``after`` at the values ``start`` (by value reference) on the state ``y``
    once the start on the terrain ran again, as the runtime writes them: a row of
    ``apply_motion``'s (item :data:`NONZERO_ONLY`) at zero leaves the start's value."""
    for vr, _, k, op, c, item in after:
        value = start[int(vr)]
        if not (item == NONZERO_ONLY and int(op) != OP_ITEM and value == 0.0):
            y[int(k)] = _apply(int(op), value, c)


def wheel_problems(event, sim, found, catalogue) -> list[str]:
    """Per wheel input (engine.signals.WHEEL_INPUTS), "" when the runtime's start with it set
    at initialisation gives the set-up's state bit for bit, else why not (the runtime refuses
    it then, naming it). Where the set-up reads no wheel input (flat ground without wheel
    displacements) every one is "". Each is probed at :data:`_WHEEL_PROBES` (nearer its start
    value, :data:`_NEARER`, where the set-up refuses a probe): the state before the start
    (``terrain.y``) with the terrain's rows, :func:`terrain_start` with the probe's wheel inputs
    in the set-up's tables, the other rows on the state (:func:`_after`), the towed units put in
    line and a launch placed as the runtime does, all at the parameters' start values; the
    set-up's answer is ``engine.setup.params.pack`` with those wheel inputs."""
    from engine.setup.settle import default_wheel_inputs
    flat = event.model.environment.terrain is None or event.model.environment.terrain.type == "flat"
    if flat and not found.trace["pitch"]:
        return [""] * len(L.WHEEL_INPUTS)
    start = {v.value_reference: float(v.start) for v in catalogue if v.causality == "parameter"}
    after = [r for r in found.rows if int(r[1]) == 0]
    base = default_wheel_inputs(len(sim.wheel_names))
    spread = _WHEEL_SPREAD ** np.arange(len(sim.wheel_names))
    out = []
    for j, field in enumerate(L.WHEEL_INPUTS):
        problem, checked = "", 0
        for scale in _NEARER:
            u = base.copy()
            u[:, j] = base[:, j] + (_WHEEL_PROBES[field] - base[:, j]) * scale * spread
            try:
                want = pack(event, sim.friction_multiplier, sim.initial, u, sim.steering_modes,
                            **_solver(sim))[1]
            except EventError:
                want = None
            y = np.array(found.flat, dtype=np.float64)
            for vr, _, k, op, c, _ in found.terrain:
                y[int(k)] = _apply(int(op), start[int(vr)], c)
            refused = terrain_start(y, sim.model, dict(found.trace, u_wheel=u),
                                    bool(found.terrain_towed), sim.wheel_names, settle=not flat)
            if want is None and refused:
                continue
            _after(y, after, start)
            if found.towed:
                place_towed(y, sim.model)
            for row in found.launch:
                if start[int(row[2])] != 0.0 or start[int(row[3])] != 0.0:
                    place_launch(y, sim.model, np.zeros((3, 3)), int(row[0]), float(row[5]))
            if want is None or refused or not np.array_equal(y, want, equal_nan=True):
                problem = "the start on the road with it does not reproduce the set-up's state"
                break
            checked += 1
            break
        out.append(problem or ("" if checked else "the set-up refuses every value it was "
                                                  "probed at"))
    return out


def _placement_problem(event, sim, v, rows, place, failure) -> str | None:
    """None when the rows of the initial-condition parameter ``v`` and then ``place(y,
    initial)`` (the runtime's placement after the rows) give the set-up's state bit for bit
    at three values of it, else ``failure`` (or why the rows alone cannot do)."""
    lead, key = v.binding[1]
    if any(t != 0 for _, t, _, _, _, _ in rows):
        return "it changes a packed parameter besides the state"
    for value in _probes(v, float(v.start)):
        initial = copy.deepcopy(sim.initial)
        initial[lead][key] = value
        want = _setup(event, sim, initial=initial)[0]
        y = np.array(sim.y, dtype=np.float64)
        for _, _, k, op, c, _ in rows:
            y[int(k)] = _apply(int(op), value, c)
        place(y, initial)
        if not np.array_equal(y, want, equal_nan=True):
            return failure
    return None


def _towed_problem(event, sim, v, rows) -> str | None:
    """:func:`_placement_problem` of the lead's position parameter ``v``, the towed units put
    in line by the kernel ``engine.launch.place_towed`` after the rows."""
    return _placement_problem(event, sim, v, rows, lambda y, initial: place_towed(y, sim.model),
                              "the towed units' places do not reproduce the set-up's state")


def _launch_row(event, sim, lay, u, names) -> tuple:
    """(unit, flat index of its Z, value references of its roll0 and pitch0, its Z at
    equilibrium (the set-up's with both zero), the ground's Z): a row of ``tune.launch``."""
    lead = sim.unit_names[u]
    initial = copy.deepcopy(sim.initial)
    initial[lead].update({key: 0.0 for key in _LAUNCH})
    z = lay.at("body", u) + L.SZ
    level = _setup(event, sim, initial=initial)[0]
    return (u, z, names[f"{lead}.roll0"], names[f"{lead}.pitch0"], float(level[z]),
            float(event.model.environment.ground_elevation))


def _launch_problem(event, sim, v, rows, launch) -> str | None:
    """:func:`_placement_problem` of the launch-attitude parameter ``v``: after the rows, the
    equilibrium Z, then the placement on the lowest point when the unit is turned."""
    u, z, _, _, z_level, ground = launch
    lead = v.binding[1][0]

    def place(y, initial):
        y[int(z)] = z_level
        if launched(initial[lead]):
            place_launch(y, sim.model, np.zeros((3, 3)), int(u), ground)
    return _placement_problem(event, sim, v, rows, place,
                              "the placement on the lowest point does not reproduce the set-up's "
                              "state")


def _effect(event, sim, v, base, enumerations, ignore=frozenset(), flat=False):
    """The effect rows of parameter ``v`` (value reference, target, flat index, op, constant,
    item), or the reason it stays fixed; the slots (target, flat index) in ``ignore`` are
    left to the caller. ``flat``: on the state before the start on the terrain (``base`` that
    state's arrays)."""
    source, index = v.binding
    start = float(v.start)

    def arrays_at(value):
        if source == "parameter" and index == ("substeps",):
            return _setup(event, sim, substeps=value)
        if source == "parameter" and index == ("integrator",):
            return _setup(event, sim, integrator=INTEGRATORS[int(value) - 1])
        if source == "parameter":
            return _setup(event, sim, fm=value)
        if source == "initial":
            initial = copy.deepcopy(sim.initial)
            initial[index[0]][index[1]] = value
            return _setup(event, sim, initial=initial, flat=flat)
        modes = dict(sim.steering_modes)
        from engine.steering import MODES
        modes[index[0]] = MODES[int(value) - 1]
        return _setup(event, sim, modes=modes)

    vr = v.value_reference
    if v.type == "Enumeration":
        items = range(1, len(enumerations[v.declared_type].items) + 1)
        arrays = {item: base if item == int(start) else arrays_at(item) for item in items}
        # an item's rows restore what another item's rows wrote: every slot any item writes
        # gets a row for every item
        slots = sorted({s for item in items for s in _changed(base, arrays[item])})
        return [(vr, t, k, OP_ITEM, float(arrays[item][t].ravel()[k]), item)
                for item in items for t, k in slots]
    if source == "parameter" and index not in (("frictionMultiplier",), ("substeps",)):
        return "not a parameter of the set-up"
    probes = _probes(v, start)
    if len(probes) < 2:
        return "its range leaves no room to probe it"
    results = [(p, arrays_at(p)) for p in probes]
    slots = sorted({s for _, arrays in results for s in _changed(base, arrays)} - ignore)
    rows = []
    for t, k in slots:
        points = [(start, float(base[t].ravel()[k]))] + \
                 [(p, float(arrays[t].ravel()[k])) for p, arrays in results]
        form = _form(points)
        if form is None:
            return f"its effect on {TARGETS[t]}[{k}] is not a product, quotient or sum of its value"
        rows.append((vr, t, k, form[0], form[1], _nonzero_only(sim, source, index, t, k)))
    return rows


def _nonzero_only(sim, source, index, t, k) -> int:
    """1 when the row's slot is the body state that ``engine.setup.launch.apply_motion``
    writes for its initial key only when the value is not zero (:data:`NONZERO_ONLY`), else
    0."""
    if source != "initial" or t != 0 or index[1] not in MOTION_SLOTS:
        return 0
    lay = L.StateLayout.of_model(sim.model)
    return int(k == lay.at("body", sim.unit_names.index(index[0])) + MOTION_SLOTS[index[1]])


#: a value no parameter has: it marks where the engine's message prints the value
_SENTINEL = 1.2345678901234567e-7


def _zero_problem(event, lead: str, key: str) -> str | None:
    """The engine's problem with the lead unit ``lead``'s initial key ``key`` at a value other
    than zero (``engine.setup.launch.motion_problems``, the value printed as :data:`_SENTINEL`),
    or None where the engine takes such a value."""
    problems = motion_problems(event, {lead: {key: _SENTINEL}})
    return problems[0] if problems else None


def _split(message: str, value) -> tuple[str, str]:
    """The text of ``message`` before and after ``repr(value)`` (which it holds once)."""
    head, sep, tail = message.partition(repr(value))
    if not sep or repr(value) in tail:
        raise RuntimeError(f"cannot find where {message!r} prints its value")
    return head, tail


def _kernel_arrays(prefix: str, names, args) -> dict:
    """{prefix.name: array} of a kernel's arguments ``args`` named ``names`` (a named tuple's
    arrays by its fields), but the packed model ``P`` (the runtime's own) and scalars."""
    out = {}
    for name, value in zip(names, args):
        if isinstance(value, np.ndarray):
            out[f"{prefix}.{name}"] = value
        elif hasattr(value, "_fields") and name != "P":
            for field in value._fields:
                out[f"{prefix}.{name}.{field}"] = getattr(value, field)
    return out


def tables(event, sim, catalogue) -> dict:
    """The native FMU's parameter tables, ``tune.*``, and the step-size kernel's arrays,
    ``stab.*`` (docs/native.md, "Parameters"). The parameters' current values are the
    instance's copy of ``var.value``."""
    from engine import Simulation
    from engine.simulation import step_range_problem
    from engine.setup.event import MIN_STEP_SIZE
    from engine.setup.footprint import overlap_tables
    from engine.setup.start_clear import FIELDS, overlap_templates, start_arguments
    from engine.setup.stability import (contact_step, joint_step, joint_step_problem,
                                        kernel_work, with_method)
    from model_description.catalogue import ENUMERATIONS
    from simon_fmu.runtime.protocol import _accepts
    from .resources import texts

    found = effects(event, sim, catalogue)
    overlaps = overlap_tables(event)
    terrain = event.model.environment.terrain
    flat = terrain is None or terrain.type == "flat"
    kind = found.kind.copy()
    nvars = len(catalogue)
    lo, hi = np.full(nvars, -math.inf), np.full(nvars, math.inf)
    accepts, zero, zero_tail = [""] * nvars, [""] * nvars, [""] * nvars
    item_rows, speed_rows, messages = [], [], []
    reasons = dict(found.reasons)
    # the packed model with each integration method, and the meshes' contact limit for it
    models = {method: with_method(sim.model, method) for method in INTEGRATORS}
    contacts = {method: contact_step(model) for method, model in models.items()}
    contact = contacts[sim.integrator]
    for v in catalogue:
        vr = v.value_reference
        if v.causality != "parameter":
            continue
        lo[vr] = -math.inf if v.min is None else float(v.min)
        hi[vr] = math.inf if v.max is None else float(v.max)
        accepts[vr] = ENUMERATIONS[v.declared_type].accepts() if v.type == "Enumeration" \
            else _accepts(v)
        source, index = v.binding
        if kind[vr] == STEP and contact.h_max < MAX_STEP_SIZES[sim.integrator]:
            kind[vr] = FIXED      # its message depends on the step beyond its value
            reasons[v.name] = "a step beyond the limit of the meshes' stiffest contact " \
                              f"({contact.h_max:.3g} s) is possible"
        if kind[vr] == ZERO_ONLY:
            zero[vr], zero_tail[vr] = _split(_zero_problem(event, *index), _SENTINEL)
        if v.type == "Enumeration" and kind[vr] == TUNABLE and source == "steering":
            for item in range(1, len(ENUMERATIONS[v.declared_type].items) + 1):
                problems = []
                Simulation.steering_modes_of(event, {index[0]: item}, problems)
                if problems:
                    item_rows.append((vr, item, len(messages)))
                    messages.append("; ".join(problems))
    names = {v.name: v.value_reference for v in catalogue}
    step_vr, method_vr = names["stepSize"], names["integrator"]
    if kind[method_vr] == TUNABLE:
        # another method changes the contact's limit: the meshes' stiffest contact must
        # resolve every step it accepts (the runtime's check of the initial state's modes and
        # the joints' limit is the method's: below)
        for method in INTEGRATORS:
            bound = MAX_STEP_SIZES[method] if kind[step_vr] == STEP else sim.step_size
            h = contacts[method].h_max
            if h < bound:
                kind[method_vr] = FIXED
                reasons["integrator"] = \
                    f"with {method!r}, a step beyond the limit of the meshes' stiffest " \
                    f"contact ({h:.3g} s) is possible"
                break
    # per integration method (items 1, 2, ... of integrator): its largest step and its
    # refusal around the step; the joints' limit at any attitude (no other parameter changes
    # it) and its refusal, the build's for the event's method, found again for another
    # method the parameter can choose
    methods = []
    for method, model in models.items():
        joint, joint_text = (sim.joint_limit if method == sim.integrator else
                             joint_step(sim, model) if kind[method_vr] == TUNABLE else
                             None), -1
        if joint is not None and joint.h_max < math.inf:
            joint_text = len(messages)
            messages.extend(_split(joint_step_problem(sim, joint, _SENTINEL, model), _SENTINEL))
        range_text = len(messages)
        messages.extend(_split(step_range_problem(_SENTINEL, method, True), _SENTINEL))
        methods.append((MAX_STEP_SIZES[method], math.inf if joint is None else joint.h_max,
                        joint_text, range_text))
    for lead, limit, what in sim.speed_limits():
        vr = names.get(f"{lead}.speed0")
        if vr is not None:
            speed_rows.append((vr, limit, len(messages)))
            messages.append(what)
    # the step-size check: the build's limit for the event's method, and the kernel's arrays
    limit = sim.step_limit               # the simulation's check found it at this state
    free = np.asarray(limit.free, dtype=np.int64)
    state = int(free[limit.column]) if limit.column >= 0 else -1
    # the arrays the rows write (each a float64 array of the kernels' arguments), renumbered
    rows = found.rows.copy()
    used = sorted({int(t) for t in rows[:, 1]})
    rows[:, 1] = [used.index(int(t)) for t in rows[:, 1]]
    out = {
        "tune.kind": kind, "tune.lo": lo, "tune.hi": hi,
        "tune.accepts": texts(accepts), "tune.rows": rows,
        "tune.targets": texts(TARGETS[t] for t in used),
        "tune.zero": texts(zero), "tune.zero_tail": texts(zero_tail),
        "tune.items": np.array(item_rows, np.float64).reshape(-1, 3),
        "tune.texts": texts(messages),
        "tune.speed": np.array(speed_rows, np.float64).reshape(-1, 3),
        "tune.stable": np.array([limit.h_max, limit.eigenvalue.real, limit.eigenvalue.imag,
                                 float(state), MIN_STEP_SIZE]),
        "tune.methods": np.array(methods, np.float64).reshape(-1, 4),
        "tune.method": np.array([method_vr, step_vr], np.int64),
        "tune.reasons": texts(reasons.get(v.name, "") for v in catalogue),
        "tune.launch": found.launch,
        "tune.towed": np.array([found.towed], np.int64),
        "tune.apart": np.array([found.apart], np.int64),
        "apart.pairs": overlaps.pairs, "apart.foot": overlaps.foot,
        "apart.where": np.zeros((overlaps.foot.shape[0], 3)), "apart.corners": np.zeros((2, 4, 2)),
        "apart.hits": np.zeros(len(overlaps.heads), np.int64),
        "apart.heads": texts(overlaps.heads), "apart.quoted": texts(overlaps.quoted),
        "launch.R": np.zeros((3, 3)),
        "tune.clear": np.array([found.clear], np.int64),
        # per unit, its exterior's vertex count (a hit beyond it is of a wheel mesh); per unit
        # and surface, the messages of the exterior and of a wheel mesh; their placeholders
        "clear.nv": np.array(sim.model.P_COLL[:, L.CO_NV], np.int64),
        "clear.texts": texts(t for rows in overlap_templates(sim.model, event) for row in rows
                             for t in row),
        "clear.fields": texts(FIELDS), "clear.columns": np.array(list(FIELDS.values()),
                                                                 np.int64).reshape(-1, 2),
        # a vertex deeper than EDGE is inside; the columns of a hit's depth and vertex
        "clear.check": np.array([EDGE, H_DEPTH, H_VERTEX], np.float64),
        "tune.terrain": found.terrain,
        "tune.terrain_flags": np.array([found.terrain_towed, int(found.trace["pitch"]),
                                        int(not flat)], np.int64),
        # per wheel input, why the runtime cannot run the start again with it ("": it can)
        "tune.wheels": texts(wheel_problems(event, sim, found, catalogue)),
        "terrain.y": found.flat,
        "terrain.texts": texts(OFF_TERRAIN + (NOT_FINITE, ", ".join(found.trace["displaced"]))
                               + STAND + (LIFT_OFF,) + DEFLECT + NO_REST + NO_EQUILIBRIUM),
        # the check of a start on displaced wheels: y_tire's columns of the load and the
        # deflection, P_TIRE's of the wheel and the largest deflection, the rest's limit; and
        # of a start on the terrain, its rest's limit
        "terrain.check": np.array([L.YT_FZ, L.YT_DEFL, L.T_WHEEL, L.T_DMAX, DISPLACED_REST,
                                   TERRAIN_REST]),
        "wheel.names": texts(sim.wheel_names),
    }
    out.update(_kernel_arrays("settle", SETTLE_ARGS[1:], settle_arguments(
        sim.model, found.trace["u_wheel"])))
    out.update(_kernel_arrays("pre", PRELOAD_ARGS[1:], preload_arguments(
        sim.model, found.trace["tire_loads"], found.trace["u_wheel"], found.trace["pitch"],
        found.trace["wheel_dz"])))
    _, _, _, R, rot, hits = start_arguments(sim.model, sim.y, sim.u_wheel)
    out.update({"clear.R": R, "clear.rot": rot, "clear.hits": hits})
    for name, a in kernel_work(sim.y.size, free).items():
        out[f"stab.{name}"] = a
    return out
