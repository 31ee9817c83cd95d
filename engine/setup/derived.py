"""Quantities derived from a unit's or a vehicle's event data, computed in one place (set-up,
plain Python).

Each reads the typed vehicle model (:mod:`engine.setup.model`; a unit's JSON object is made
into one) and gives what the engine, the controllers, the studies, the benchmarks and the
examples use alike, so that what one draws, places or takes as a reference is what the other
simulates:

- the body: :func:`body_front`, :func:`body_rear` (its box with the heights is
  :func:`engine.setup.collision.unit_box`), :func:`wheelbase`;
- the masses: :func:`unsprung_mass`, :func:`unit_mass`, :func:`vehicle_mass`, and the solid
  axles' and the unsprung masses' inertias: :func:`solid_axle_inertia`,
  :func:`unsprung_yaw_inertias`, :func:`unsprung_yaw_inertia`;
- the static state: :func:`loaded_radius`, :func:`static_wheels`, :func:`static_axle_loads`,
  :func:`rolling_radius`, :func:`understeer_gradient`;
- the air: :func:`air_density`;
- the drivetrain: :func:`differential_ratios`.

Axles are ordered from the front (x strictly decreasing, as validated).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from .. import layout as L
from ..aerodynamics import air_density as _air_density
from ..tire import properties
from .equilibrium import static_state
from .model import typed_event, typed_unit
from .pack.steering import axle_ratio
from .payload import sprung_properties
from .tire_properties import pack_partial_derivatives


def differential_ratios(drivetrain) -> tuple:
    """A drivetrain's differential gear table: the ratios the input ``differentialGear`` selects,
    1..n (``differential_ratios``, or its one ``differential_ratio``); () without a drivetrain."""
    if drivetrain is None:
        return ()
    if isinstance(drivetrain, dict):
        table, one = drivetrain.get("differential_ratios"), drivetrain.get("differential_ratio")
    else:
        table, one = drivetrain.differential_ratios, drivetrain.differential_ratio
    return tuple(float(r) for r in table) if table is not None else (float(one),)


def wheelbase(unit) -> float:
    """First to last axle, m (0 for a single axle)."""
    xs = [a.x for a in typed_unit(unit).axles]
    return float(max(xs) - min(xs))


def body_front(unit) -> float:
    """The front end of the unit's body, m ahead of its sprung-mass CG: ``dimensions.front_x``,
    or when the event leaves it out, the front axle plus half of the length beyond the
    wheelbase (equal front and rear overhangs)."""
    unit = typed_unit(unit)
    dims = unit.dimensions
    front = dims.front_x
    if front is None:
        xs = [a.x for a in unit.axles]
        front = max(xs) + 0.5 * (dims.length - (max(xs) - min(xs)))
    return float(front)


def body_rear(unit) -> float:
    """The rear end of the unit's body, m along its x axis from the sprung-mass CG (negative
    behind it): ``dimensions.length`` behind :func:`body_front`."""
    unit = typed_unit(unit)
    return body_front(unit) - float(unit.dimensions.length)


def unsprung_mass(unit) -> float:
    """The unit's unsprung mass, kg: each wheel's ``unsprung_mass_per_wheel`` (two wheels an
    axle, a dual pair being one wheel), summed wheel by wheel in the engine's order."""
    m = 0.0
    for a in typed_unit(unit).axles:
        m += a.unsprung_mass_per_wheel          # left
        m += a.unsprung_mass_per_wheel          # right
    return m


def unit_mass(unit) -> float:
    """The unit's total mass as the engine counts it, kg: its sprung mass with its payloads
    and occupants (Eq. 40) plus :func:`unsprung_mass` (``Simulation.unit_mass``, the FMU's
    ``<unit>.mass``)."""
    unit = typed_unit(unit)
    return sprung_properties(unit).mass + unsprung_mass(unit)


def solid_axle_inertia(axle, tire, deflections) -> tuple:
    """(rho, I_cm) of a solid axle (Eq. 19-26): its mass centre's depth below its roll centre,
    m (the roll centre's height less the wheel centre's, its tire loaded to ``deflections``),
    and its roll inertia about that mass centre, kg m^2: ``axle_roll_inertia`` (about the roll
    centre) less m rho^2, m = 2 ``unsprung_mass_per_wheel``."""
    sus = axle.suspension
    rho = sus.roll_center_height - loaded_radius(tire, deflections)
    m = 2.0 * axle.unsprung_mass_per_wheel
    return rho, sus.axle_roll_inertia - m * rho ** 2


def unsprung_yaw_inertias(unit, static) -> list:
    """Per axle of the typed ``unit`` (from the front), the yaw inertia of its unsprung masses
    about vertical axes through their own mass centres, kg m^2 (I_z,Unsprung of Eq. 10; their
    masses' m d^2 about the unit's CG are the point masses' of Eq. 11-14, not in it):
    ``unsprung_yaw_inertia`` where the event gives it, else

    - an independent axle: each wheel a disc of its tires' spin inertia, whose inertia about a
      diameter is half the polar one: ``n_tires * spin_inertia`` for the axle's two wheels (a
      dual's two tires taken about their own centres: the spacing's m (s/2)^2 needs the tire's
      mass, which the event does not give);
    - a solid axle: its roll inertia about its mass centre (:func:`solid_axle_inertia`), a body
      that lies along its y axis having the same inertia about its vertical axis: the beam and
      its wheels at +-track/2 alike, the wheels' and drums' own discs about x and z alike.

    ``static``: the unit's :class:`engine.setup.equilibrium.UnitStatic` (a solid axle's rho
    needs its tires' static deflections)."""
    unit = typed_unit(unit)
    out = []
    for k, axle in enumerate(unit.axles):
        tire = unit.tires[axle.tire]
        if axle.unsprung_yaw_inertia is not None:
            out.append(float(axle.unsprung_yaw_inertia))
        elif axle.suspension.type == "solid":
            out.append(float(solid_axle_inertia(axle, tire, static.tire_deflections[2 * k])[1]))
        else:
            out.append(float((2 if axle.dual else 1) * tire.spin_inertia))
    return out


def unsprung_yaw_inertia(event, unit: Optional[str] = None) -> float:
    """Sum I_z,Unsprung of Eq. 10 of the unit named ``unit`` (default: the first), kg m^2: the
    sum of its axles' :func:`unsprung_yaw_inertias`, which the engine adds to its sprung mass's
    yaw inertia."""
    model = typed_event(event)
    i = unit_index(model, unit)
    return float(sum(unsprung_yaw_inertias(model.units[i], static_state(model)[0][i])))


def vehicle_mass(event, lead: Optional[str] = None) -> float:
    """The total mass of a vehicle, kg: the :func:`unit_mass` of its lead unit ``lead``
    (default: the first unit) and of every unit it tows, in unit order."""
    model = typed_event(event)
    names = _vehicle_units(model, lead)
    return sum(unit_mass(u) for u in model.units if u.name in names)


def lead_units(event) -> dict:
    """{unit name: the name of its vehicle's lead unit} (a lead unit's own), in unit order."""
    lead_of = {}
    for u in typed_event(event).units:      # a tow unit is listed before the units it tows
        front = u.connections.front
        lead_of[u.name] = lead_of[front.tow] if front is not None else u.name
    return lead_of


def _vehicle_units(model, lead):
    """The names of the units of the vehicle whose lead unit is ``lead`` (default: the first)."""
    lead_of = lead_units(model)
    lead = model.units[0].name if lead is None else lead
    if lead not in lead_of.values():
        raise ValueError(f"lead: one of {sorted(set(lead_of.values()))} (got {lead!r})")
    return {name for name, head in lead_of.items() if head == lead}


def unit_index(event, unit: Optional[str] = None) -> int:
    """The index of the unit named ``unit`` in the event (default: the first, 0)."""
    model = typed_event(event)
    if unit is None:
        return 0
    names = [u.name for u in model.units]
    if unit not in names:
        raise ValueError(f"unit: one of {names} (got {unit!r})")
    return names.index(unit)


#: a tire's section width per unloaded radius when its ``width`` is not given: a fifth of its
#: diameter, a common section width to diameter ratio of road tires
TIRE_WIDTH_PER_RADIUS = 0.4


def tire_width(tire) -> float:
    """A tire's width, m: its ``width``, else :data:`TIRE_WIDTH_PER_RADIUS` times its unloaded
    radius."""
    return tire.width or TIRE_WIDTH_PER_RADIUS * tire.unloaded_radius


def rim_radius(tire) -> float:
    """The radius of a tire's rim flange, m: its unloaded radius less its section height
    (``section_height``; not given: ``max_deflection``, the deflection past which the manual
    has the rim deform, its section height by default)."""
    return tire.unloaded_radius - (tire.section_height or tire.max_deflection)


def loaded_radius(tire, deflections) -> float:
    """A wheel's loaded (rolling) radius, m: its tire's unloaded radius less the mean of its
    tires' ``deflections`` (inverse of Eq. 93 at the static load)."""
    return tire.unloaded_radius - float(np.mean(deflections))


class StaticWheel(NamedTuple):
    """A wheel at the static equilibrium the engine starts from."""
    axle: object            # its engine.setup.model.Axle
    tire: object            # its engine.setup.model.Tire
    load: float             # N per tire
    rolling_radius: float   # m: the tire's unloaded radius less its static deflection


def static_wheels(event, unit: Optional[str] = None) -> list:
    """Per wheel of the unit named ``unit`` (default: the first), in the engine's order (axle
    by axle, left first): its :class:`StaticWheel` at the static equilibrium of the whole
    combination (``engine.setup.equilibrium.static_state``; the rolling radius inverts
    Eq. 93: the radius at which the engine lets the wheels start free rolling)."""
    model = typed_event(event)
    i = unit_index(model, unit)
    u = model.units[i]
    static = static_state(model)[0][i]
    axles = [a for a in u.axles for _ in (0, 1)]
    return [StaticWheel(axle, u.tires[axle.tire], float(np.mean(loads)),
                        loaded_radius(u.tires[axle.tire], deflections))
            for loads, deflections, axle in zip(static.tire_loads, static.tire_deflections, axles)]


def static_axle_loads(event, unit: Optional[str] = None) -> list:
    """Per axle of the unit (from the front), the static load on the ground of all its tires,
    N (the spring loads, the unsprung weight and the joint loads of the combination)."""
    wheels = static_wheels(event, unit)
    return [sum(w.load * (2 if w.axle.dual else 1) for w in wheels[2 * k:2 * k + 2])
            for k in range(len(wheels) // 2)]


def rolling_radius(event, unit: Optional[str] = None, driven_only: bool = False) -> float:
    """The mean rolling radius of the unit's wheels (of its driven wheels: ``driven_only``), m."""
    radii = [w.rolling_radius for w in static_wheels(event, unit) if w.axle.driven or not driven_only]
    if not radii:
        raise ValueError("the unit has no driven axle")
    return float(np.mean(radii))


def ahead_of_cg(axle) -> bool:
    """Whether a typed axle is ahead of its unit's sprung-mass CG (x > 0): the bicycle model's
    front axles, the others its rear."""
    return axle.x > 0.0


def understeer_gradient(event, unit: Optional[str] = None) -> float:
    """The steady-state bicycle model's understeer gradient of the unit, rad per m/s^2 of
    lateral acceleration: ``K = m_f / C_f - m_r / C_r``, ``m_f``, ``m_r`` the static load on
    the axles ahead of and behind the sprung-mass CG as mass, ``C_f``, ``C_r`` the sums of
    their tires' cornering stiffness at their static loads (the tire table at its lowest test
    speed; a tire by partial derivatives at its reference speed). The gradient is the
    vehicle's whatever its axles steer: which do is :func:`bicycle_steering_ratio`'s."""
    model = typed_event(event)
    g = model.environment.gravity
    mass, stiffness = {True: 0.0, False: 0.0}, {True: 0.0, False: 0.0}
    for axle, tire, load, _ in static_wheels(model, unit):
        tires = 2 if axle.dual else 1
        front = ahead_of_cg(axle)
        mass[front] += tires * load / g
        stiffness[front] += tires * cornering_stiffness(tire, load)
    if not (stiffness[True] > 0 and stiffness[False] > 0):
        raise ValueError("the understeer gradient needs axles ahead of and behind the CG")
    return mass[True] / stiffness[True] - mass[False] / stiffness[False]


def bicycle_steering_ratio(unit) -> float:
    """The steering-wheel angle per radian of the bicycle model's steer, ``1 / (d_f - d_r)``:
    ``d_f``, ``d_r`` the mean steer per radian at the steering wheel of the axles ahead of and
    behind the sprung-mass CG (an axle's 1 / its gear ratio, ``engine.setup.pack.steering
    .axle_ratio``; 0 for one not steered): the front axle's ratio for a car that steers it
    alone; a rear axle steered in phase (a ratio of the front's sign) lowers the yaw gain,
    one in counter-phase raises it. A unit whose axles steer its front and rear alike has
    no such ratio (its wheels crab)."""
    u = typed_unit(unit)
    steer = {True: [], False: []}
    for axle in u.axles:
        steer[ahead_of_cg(axle)].append(1.0 / axle_ratio(u, axle) if axle.steered else 0.0)
    if not steer[True] or not steer[False]:
        raise ValueError("the bicycle model needs axles ahead of and behind the CG")
    net = float(np.mean(steer[True]) - np.mean(steer[False]))
    if net == 0.0:
        raise ValueError("the unit steers its front and rear axles alike (crab steering): the "
                         "steering wheel gives no yaw response to steer by")
    return 1.0 / net


def cornering_stiffness(tire, load: float) -> float:
    """A typed tire's cornering stiffness C_alpha' at ``load``, N/rad: its table at its lowest
    test speed, or by partial derivatives at its reference speed (``engine.tire``)."""
    if tire.property_model == "partial_derivatives":
        P, TT = np.zeros((1, L.N_TIRE_P)), np.zeros((1, L.N_TIRE_PROPS, L.MAX_TIRE_TESTS, L.MAX_TIRE_TESTS))
        pack_partial_derivatives(P[0], TT[0], tire.partial_derivatives)
        return float(properties(P, TT, 0, load, tire.partial_derivatives.reference_speed)[3])
    table = np.asarray(tire.cornering_stiffness, float)[:, 0]
    return float(np.interp(load, tire.test_loads, table))


def air_density(event) -> float:
    """The air density of the event's environment, kg/m^3 (``engine.aerodynamics.air_density``
    of its air_pressure and air_temperature, after Eq. 140)."""
    env = typed_event(event).environment
    return _air_density(env.air_pressure, env.air_temperature)
