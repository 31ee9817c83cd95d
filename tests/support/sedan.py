"""The closed-form theory of the reference sedan (docs/reference/sedan.md), written once.

Every value is read from the default event (the sedan's sheet as loaded), never from engine
output: the masses, the lever arms of the sprung CG to the axles, the tire, the air and the
drag area, and from them the static tire loads by the lever rule, the loaded radius, the tire
tables at those loads (cornering stiffness, peak friction), the whole car's CG and yaw
inertia, the roll stiffnesses and roll gradient, the linear bicycle model's understeer
gradients (:func:`bicycle_reference`), the broadside sliding force, the acceleration rolling
back down a grade and the body's front.
"""
from __future__ import annotations

import json
import math

import numpy as np

import engine

#: The default event's data (a fresh copy: :func:`event_data`).
DATA = json.loads(engine.load_event().to_json())
ENV = DATA["environment"]
EV = DATA["units"][0]
G = ENV["gravity"]                                   # 9.80665
MS = EV["sprung_mass"]["mass"]
MU = EV["axles"][0]["unsprung_mass_per_wheel"]
M = MS + sum(2 * axle["unsprung_mass_per_wheel"] for axle in EV["axles"])
A_S = EV["axles"][0]["x"]                            # sprung CG to front axle
B_S = -EV["axles"][1]["x"]                           # sprung CG to rear axle
WB = A_S + B_S
H = EV["sprung_mass"]["cg_height"]
TIRE = EV["tires"]["front"]
#: air density of the event's air (ideal gas, R = 287.058 J/(kg K))
RHO = ENV["air_pressure"] / (287.058 * ENV["air_temperature"])
CDA = sum(a["drag_coefficient"] * a["area"] for a in EV["aerodynamics"])
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]


def event_data() -> dict:
    """A fresh copy of the default event's data, to modify."""
    return json.loads(json.dumps(DATA))


def lever_loads(unit: dict = EV, g: float = G) -> tuple[float, float]:
    """Static load per wheel, front and rear, of a two-axle unit by the lever rule: the sprung
    weight split by the CG's distances to the axles, plus each axle's unsprung weight."""
    front, rear = unit["axles"][:2]
    a, b = front["x"], -rear["x"]
    ms = unit["sprung_mass"]["mass"]
    return (ms * g * b / (a + b) / 2 + front["unsprung_mass_per_wheel"] * g,
            ms * g * a / (a + b) / 2 + rear["unsprung_mass_per_wheel"] * g)


def static_loads() -> tuple[float, float]:
    """The sedan's static tire loads (front, rear): :func:`lever_loads` of its unit."""
    return lever_loads()


def loaded_radius(load: float, tire: dict = TIRE) -> float:
    """The tire's loaded radius at ``load``: R0 - Fz / K_T."""
    return tire["unloaded_radius"] - load / tire["radial_stiffness"]


def tire_table(load: float, key: str, tire: dict = TIRE) -> float:
    """The tire's table ``key`` (e.g. ``cornering_stiffness``, ``peak_friction``) at
    ``load``, its first column interpolated in the sheet's test loads."""
    return float(np.interp(load, tire["test_loads"], [row[0] for row in tire[key]]))


def cornering_stiffness(load: float, tire: dict = TIRE) -> float:
    """C_alpha' of one tire at ``load``, interpolated in the sheet's table."""
    return tire_table(load, "cornering_stiffness", tire)


def axle_tire(axle: int, unit: dict = EV) -> dict:
    """The tire of axle ``axle`` (0: front, 1: rear)."""
    return unit["tires"][unit["axles"][axle]["tire"]]


def static_mu_p() -> float:
    """Peak friction at the static wheel loads, interpolated in each axle's tire table and
    weighted by load."""
    loads = static_loads()
    mu = [tire_table(fz, "peak_friction", axle_tire(k)) for k, fz in enumerate(loads)]
    return sum(f * m for f, m in zip(loads, mu)) / sum(loads)


def mean_loaded_radius() -> float:
    """The loaded radius of the (front) tire at the static loads, front and rear averaged."""
    front, rear = static_loads()
    return 0.5 * (loaded_radius(front) + loaded_radius(rear))


def whole_car_cg() -> tuple[float, float]:
    """The whole car's CG (unsprung masses at the axles) to the front and rear axle (a, b)."""
    x_cg = 2 * MU * (A_S - B_S) / M            # whole-car CG ahead of the sprung CG
    return A_S - x_cg, B_S + x_cg


def axle_roll_stiffnesses() -> list[tuple[float, float]]:
    """Per axle, the suspension's roll stiffness (springs k t^2/2 plus the anti-sway bar)
    and the tires' (k_T t^2/2)."""
    return [(ax["suspension"]["spring_rate"] * ax["track"] ** 2 / 2
             + ax["suspension"]["antisway_roll_stiffness"],
             EV["tires"][ax["tire"]]["radial_stiffness"] * ax["track"] ** 2 / 2)
            for ax in EV["axles"]]


def series(k1: float, k2: float) -> float:
    """Two springs in series."""
    return k1 * k2 / (k1 + k2)


def roll_gradient(k_roll: float) -> float:
    """The body's roll gradient relative to the ground (rad per m/s^2) with the total roll
    stiffness ``k_roll`` of the axles: m_s h / (K - m_s g h - m g r), less the overturning
    moments of the rolled body: the sprung weight's lateral shift (m_s g h) and the contact
    patches moving sideways as the wheels tilt with the body (m g r_loaded)."""
    return MS * H / (k_roll - MS * G * H - M * G * mean_loaded_radius())


def bicycle_reference() -> dict[str, float]:
    """The linear bicycle model of the sheet's car: understeer gradients and roll gradient.

    Axle cornering stiffnesses: two tires at the static load (interpolated in the sheet's
    table); the CG is the whole car's (unsprung masses at the axles). Body roll tilts the
    wheels (no camber-change table), and camber thrust C_gamma * roll adds understeer:
    ``k_us`` includes it, with the roll gradient of the springs and anti-sway bars;
    ``k_plain`` is the bicycle model's M / L (b / C_f - a / C_r) without it.
    """
    front, rear = static_loads()
    cf = 2 * cornering_stiffness(front, EV["tires"]["front"])
    cr = 2 * cornering_stiffness(rear, EV["tires"]["rear"])
    gf = 2 * tire_table(front, "camber_stiffness", EV["tires"]["front"])
    gr = 2 * tire_table(rear, "camber_stiffness", EV["tires"]["rear"])
    a, b = whole_car_cg()
    # roll gradient of the body relative to the ground. Per axle, suspension roll stiffness
    # in series with the tires'
    k_axles = [series(k_s, k_t) for k_s, k_t in axle_roll_stiffnesses()]
    roll_grad = roll_gradient(sum(k_axles))
    # per unit ay: axle lateral force m b/L (front) plus what camber thrust takes away
    k_us = (M * b / WB + gf * roll_grad) / cf - (M * a / WB + gr * roll_grad) / cr
    k_plain = M / WB * (b / cf - a / cr)
    return {"k_us": k_us, "k_plain": k_plain, "roll_grad": roll_grad, "k_roll_axles": k_axles,
            "cf": cf, "cr": cr, "gf": gf, "gr": gr, "a": a, "b": b}


def broadside_force() -> float:
    """The four tires' side force sliding broadside (free rolling, 90 degrees slip angle) at
    the static loads: per tire mu_s F_z (1 - X_s/L / 2) with X_s/L = mu_s F_z / (2 C_alpha)
    (Eq. 102, 104, 108, 110)."""
    mus = TIRE["slide_friction"][0][0]
    front, rear = static_loads()
    return sum(2 * mus * fz * (1 - mus * fz / (4 * cornering_stiffness(fz, EV["tires"][t])))
               for fz, t in ((front, "front"), (rear, "rear")))


#: the rolling-resistance coefficient sigma0 and the wheels' spin inertia, all four
SIGMA0 = TIRE["rolling_resistance"]["sigma0"]
I_SPIN = sum(EV["tires"][a["tire"]]["spin_inertia"] * 2 for a in EV["axles"])


def rolling_back_acceleration(grade: float) -> float:
    """Released at rest on a grade (rising with X), the car rolls back at
    g (sin - sigma0 cos) m / (m + sum I / r^2): the along-slope weight less the rolling
    resistance, over the mass with the wheels' rotational inertia (rolling backwards: the
    rolling resistance opposes the motion, down the slope); r at a quarter of the weight."""
    th = math.atan(grade)
    r = TIRE["unloaded_radius"] - M * G / 4 / TIRE["radial_stiffness"]
    return -G * (math.sin(th) - SIGMA0 * math.cos(th)) * M / (M + I_SPIN / r ** 2)


#: the body's front (x ahead of the sprung CG): the overhangs ahead of the front axle and
#: behind the rear one equal, the body's length in all
FRONT_X = EV["axles"][0]["x"] + 0.5 * (EV["dimensions"]["length"]
                                       - (EV["axles"][0]["x"] - EV["axles"][-1]["x"]))


def yaw_inertia() -> float:
    """The whole car's yaw inertia about its CG (:func:`whole_car_cg`): the sprung mass's,
    moved from the sprung CG, the unsprung masses at the axles, and the wheels' own (Eq. 10:
    each a disc of its tire's spin inertia, half of it about a diameter)."""
    a, b = whole_car_cg()
    return (EV["sprung_mass"]["inertia"][2] + MS * (A_S - a) ** 2 + 2 * MU * (a ** 2 + b ** 2)
            + I_SPIN / 2)
