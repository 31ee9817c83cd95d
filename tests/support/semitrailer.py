"""The closed-form theory of the reference tractor-semitrailer (and the data of the double),
written once: static axle-group, tire and kingpin loads by the lever rule, from the event
files (engine/data/tractor-semitrailer.json and double.json, which hold the sheets' values
exactly), never from engine output."""
from __future__ import annotations

import json

import numpy as np

from engine.setup.event import DOUBLE_EVENT, TRACTOR_SEMITRAILER_EVENT

SEMI = json.loads(open(TRACTOR_SEMITRAILER_EVENT).read())
DOUBLE = json.loads(open(DOUBLE_EVENT).read())
ENV = SEMI["environment"]
G = ENV["gravity"]
#: air density of the event's air (ideal gas, R = 287.058 J/(kg K))
RHO = ENV["air_pressure"] / (287.058 * ENV["air_temperature"])


def unit(data: dict, name: str) -> dict:
    """The unit ``name`` of the event ``data``."""
    return next(u for u in data["units"] if u["name"] == name)


def tire_data(u: dict, axle: dict) -> dict:
    """The tire of ``axle`` of unit ``u``."""
    return u["tires"][axle["tire"]]


def unit_mass(u: dict) -> float:
    return u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"])


def lever(loads: list[tuple[float, float]], x_a: float, x_b: float) -> tuple[float, float]:
    """Reactions at supports x_a and x_b of a beam carrying the (force, x) loads (lever rule)."""
    r_a = sum(f * (x - x_b) for f, x in loads) / (x_a - x_b)
    return r_a, sum(f for f, _ in loads) - r_a


def group_x(u: dict, group: str) -> float:
    """An axle group's mean x: where its equal axle loads act together."""
    xs = [a["x"] for a in u["axles"] if a["group"] == group]
    return sum(xs) / len(xs)


def semitrailer_support(u: dict, extra: tuple[tuple[float, float], ...] = ()) -> tuple[float, float]:
    """A semitrailer on its kingpin and its tridem: (kingpin load, tridem sprung load)."""
    weight = u["sprung_mass"]["mass"] * G
    return lever([(weight, 0.0), *extra], u["connections"]["front"]["point"][0], group_x(u, "tridem"))


def tractor_support(u: dict, kingpin: float) -> tuple[float, float]:
    """The tractor's (front axle, drive group) sprung loads with the kingpin load at the fifth wheel."""
    return lever([(u["sprung_mass"]["mass"] * G, 0.0), (kingpin, u["connections"]["rear"]["point"][0])],
                 u["axles"][0]["x"], group_x(u, "drive"))


def tire_loads(u: dict, axle_sprung: list[float]) -> list[float]:
    """Per axle, each tire's load: the axle's sprung share plus its unsprung weight, shared by its tires."""
    return [(f + 2 * a["unsprung_mass_per_wheel"] * G) / (4 if a["dual"] else 2)
            for f, a in zip(axle_sprung, u["axles"])]


def semitrailer_tire_theory():
    """Per unit name, per axle, the static tire load of the tractor-semitrailer; and the kingpin load."""
    tractor, trailer = unit(SEMI, "tractor"), unit(SEMI, "trailer")
    kingpin, tridem = semitrailer_support(trailer)
    front, drive = tractor_support(tractor, kingpin)
    return {"tractor": tire_loads(tractor, [front, drive / 2, drive / 2]),
            "trailer": tire_loads(trailer, [tridem / 3] * 3)}, kingpin


def loaded_radius(u: dict, axle: dict, load: float) -> float:
    """The loaded radius of ``axle``'s tire at ``load``: R0 - Fz / K_T."""
    t = tire_data(u, axle)
    return t["unloaded_radius"] - load / t["radial_stiffness"]


def peak_friction(u: dict, axle: dict, load: float) -> float:
    """The peak friction of ``axle``'s tire at ``load``, interpolated in its table."""
    t = tire_data(u, axle)
    return float(np.interp(load, t["test_loads"], [row[0] for row in t["peak_friction"]]))
