"""Pack a validated event into the flat arrays of the hot path, in its static equilibrium.

Parameters are validated once (``engine.setup.event``) and packed once here; the kernels only read
these arrays, through the named indices of ``engine.layout``. Each subsystem packs its own rows
and columns (``engine.setup.pack``: :mod:`.pack.unit`, :mod:`.pack.axle`, :mod:`.pack.tire`,
:mod:`.pack.brakes`, :mod:`.pack.drivetrain`, :mod:`.pack.steering`, :mod:`.pack.aero`,
:mod:`.pack.connection`, :mod:`.pack.environment`; collisions :mod:`.collision`, the wheels'
meshes :mod:`.wheel_meshes`); :func:`pack` assembles them in order with the initial state.
Every array's rows and columns: :mod:`.parameter_layout` (docs/parameter-layout.md). The static
equilibrium the simulation starts from is ``engine.setup.equilibrium``'s; the start on a mesh or
an external road, :mod:`.settle`'s.
"""
from __future__ import annotations

import numpy as np

from .. import layout as L
from ..jit import compiled_entry
from ..launch import place_towed
from .collision import pack_barriers, pack_collisions, pack_exterior_meshes, pack_pairs
from .derived import air_density, unit_mass
from .equilibrium import connection_rates, place_units, static_state
from .meshes import empty_mesh
from .pack import aero, axle, brakes, connection, drivetrain, environment, steering, tire, unit
from .pack.axle import bump_steer_coefficients  # noqa: F401  (engine.setup.params' name, as before)
from .pack.environment import TERRAIN_TYPES  # noqa: F401
from .pack.rows import rows as packing_rows
from .launch import apply_motion
from .settle import default_wheel_inputs, preload_lateral, settle_on_terrain
from .wheel_meshes import pack_reach, pack_wheel_meshes


def pack(event, friction_multiplier: float, initial: dict, u_wheel=None, steering_modes=None,
         trace=None, substeps=None, integrator=None):
    """Return (Model, y0) for the event in static equilibrium (``engine.setup.equilibrium``).

    ``steering_modes``: per unit name with a steering system, the steering mode's name
    (``engine.steering.MODES``) to use in place of the event's ``steering.mode``.

    ``initial``: per lead unit name, its speed0, X0, Y0 and yaw0; the units it tows start in
    line behind it at its speed. Every component coordinate is referred to the unit's CG with
    its payloads (Eq. 43). On a mesh or an external road the units stand on the terrain
    (:func:`engine.setup.settle.settle_on_terrain`; ``u_wheel``: the wheel inputs that carry an
    external road).

    ``trace``: a dict, or None; a dict gets the start before it is put on the terrain and in
    equilibrium there (``flat``: the state on flat ground, ``u_wheel``, ``tire_loads``,
    ``pitch``: on displaced wheels, ``wheel_dz``, ``displaced``: their fields), which the
    native FMU starts from when it puts the vehicle on the terrain itself
    (``simon_fmu.native.tuning``).

    ``substeps``: the most sub-steps a step is split into, in place of the event's
    ``simulation.substeps`` (``engine.integrator``); ``integrator``: the integration method (a key
    of ``engine.setup.fields.METHODS``), in place of the event's ``simulation.integrator``.
    """
    d = event.model
    env = d.environment
    rho = air_density(d)
    units = d.units
    statics, conn_statics = static_state(d)
    steering_units = event.steering_unit_names()
    rows = packing_rows(units)
    nw = len(rows.wheels)

    # the units, their wheels, tires and solid axles: each subsystem its rows and columns
    P_UNIT = unit.pack_units(rows, units, statics)
    steering.pack_units(P_UNIT, units, steering_units, steering_modes or {})
    brakes.pack_units(P_UNIT, units)
    P_GEAR, P_DIFF, P_ENG, N_ENG = drivetrain.pack_units(P_UNIT, rows, units)
    P_WHEEL = np.zeros((nw, L.N_WHEEL_P))
    T_WHEEL = axle.pack_wheels(P_WHEEL, rows, units, statics)
    steering.pack_wheels(P_WHEEL, rows, units, P_UNIT)
    drivetrain.pack_wheels(P_WHEEL, rows)
    designs = brakes.pack_wheels(P_WHEEL, rows)
    P_TIRE, TT, tire_loads, tire_deflections = tire.pack_tires(P_WHEEL, rows, units, statics, env.gravity)
    P_AXLE = axle.pack_axles(rows, units, statics)
    P_AERO = aero.pack_surfaces(rows, units, statics, rho)
    P_CONN = connection.pack_connections(d, statics, conn_statics, connection_rates(d, statics))
    P_BRAKE, T_BRAKE = brakes.pack_designs(designs)

    # collisions: the units' exterior meshes, then the wheels' meshes (engine.wheel_damage) in CV
    deltas = [st.props.delta for st in statics]
    mesh = getattr(event, "terrain_mesh", None) or empty_mesh()
    P_COLL, CV, CK, terrain_top = pack_collisions(units, deltas, [unit_mass(u) for u in units], mesh.TR_TRI)
    P_WCOLL, wheel_cv, wheel_ck = pack_wheel_meshes(units, CV.shape[0])
    CV = np.ascontiguousarray(np.concatenate([CV, wheel_cv]))
    CK = np.ascontiguousarray(np.concatenate([CK, wheel_ck]))
    P_BAR = pack_barriers(env.barriers, mesh.walls, mesh.risers, env.objects, len(units))
    P_PAIR = pack_pairs(units, deltas)
    exterior_meshes = pack_exterior_meshes(units, deltas, env.objects)
    pack_reach(P_COLL, P_UNIT, P_WHEEL, P_WCOLL, units)

    lay = L.StateLayout(len(units), nw, len(rows.axles), len(rows.tires), len(conn_statics),
                        len(steering_units), CV.shape[0], P_PAIR.shape[0])
    P_ENV = environment.pack_environment(d, friction_multiplier, rho, terrain_top, lay, substeps,
                                         integrator)
    brakes.cold_ratios(P_WHEEL, P_BRAKE, T_BRAKE, env.air_temperature)
    model = L.Model(P_UNIT, P_GEAR, P_DIFF, P_ENG, N_ENG, P_WHEEL, T_WHEEL, P_TIRE, TT, P_AERO,
                    P_ENV, P_AXLE, P_CONN, P_BRAKE, T_BRAKE, *environment.terrain_arrays(mesh), P_COLL,
                    CV, CK, P_BAR, P_PAIR, P_WCOLL, exterior_meshes)
    y0 = initial_state(model, lay, rows, d, statics, initial, tire_deflections)
    drivetrain.idle(model, y0)
    displaced = axle.displacement_fields(units)
    u_wheel = u_wheel if u_wheel is not None else default_wheel_inputs(nw)
    wheel_dz = [axle.wheel_displacement(w.ax, w.side)[2] for w in rows.wheels]
    if trace is not None:
        trace.update(flat=y0.copy(), u_wheel=np.array(u_wheel, dtype=np.float64),
                     tire_loads=np.array(tire_loads, dtype=np.float64), pitch=bool(displaced),
                     wheel_dz=wheel_dz, displaced=list(displaced))
    if P_ENV[L.E_TERRAIN] != L.TERRAIN_FLAT:
        settle_on_terrain(model, y0, event.wheel_names(), u_wheel)
    if P_ENV[L.E_TERRAIN] != L.TERRAIN_FLAT or displaced:
        # at rest on a crossfall, or on displaced wheels (their springs keep the undisplaced
        # vehicle's preloads: the displaced vehicle stands elsewhere on them)
        preload_lateral(model, y0, tire_loads, u_wheel, displaced, wheel_dz, event.wheel_names())
    apply_motion(model, lay, y0, [u.name for u in units], initial, env.ground_elevation)
    return model, y0


def initial_state(model, lay, rows, typed_model, statics, initial, tire_deflections):
    """The state at rest in static equilibrium on flat ground: every unit in line behind its
    lead unit at its speed (``engine.setup.equilibrium.place_units``: the leads and every unit's
    height; the towed units put in line by the kernel ``engine.launch.place_towed``), its wheels rolling (at
    their loaded radius, the wheel centre's height without its displacement), each tire on its
    loading curve at its static deflection (the turning point of Eq. 93), the brakes at the
    air temperature, unpressurised."""
    y0 = np.zeros(lay.size)
    placement = place_units(typed_model, statics, initial)
    names = [u.name for u in typed_model.units]
    P_UNIT, P_WHEEL = model.P_UNIT, model.P_WHEEL
    for t, defl in enumerate(tire_deflections):
        y0[lay.at("tire", t) + L.TTURN] = defl
    for r in rows.units:
        ui = r.index
        speed = initial[names[int(P_UNIT[ui, L.U_LEAD])]]["speed0"]
        X, Y, Z, yaw = placement[ui]
        o = lay.at("body", ui)
        y0[o + L.SZ] = Z
        if X is not None:
            y0[o + L.SX], y0[o + L.SY], y0[o + L.SPSI] = X, Y, yaw
        y0[o + L.SU] = speed
        cg_height = statics[ui].props.cg_height
        for w in rows.wheels[r.wheel0:r.wheel0 + r.nwheels]:
            dz = axle.wheel_displacement(w.ax, w.side)[2]
            y0[lay.at("wheel", w.index) + L.WOMEGA] = speed / (cg_height - (P_WHEEL[w.index, L.W_Z0] - dz))
    compiled_entry(place_towed, (y0, model))(y0, model)     # the towed units behind their tow units
    for wi in range(P_WHEEL.shape[0]):
        y0[lay.at("wheel", wi) + L.WTEMP] = typed_model.environment.air_temperature
    return y0
