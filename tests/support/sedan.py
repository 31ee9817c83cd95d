"""The closed-form theory of the reference sedan (docs/reference/sedan.md), written once.

Every value is read from the default event (the sedan's sheet as loaded), never from engine
output: the masses, the lever arms of the sprung CG to the axles, the tire, the air and the
drag area, and from them the static tire loads by the lever rule and the loaded radius.
"""
from __future__ import annotations

import json

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
