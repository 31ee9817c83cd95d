"""A car's impact into a rigid barrier: its run through the FMU, and the closed forms
(docs/equations.md, "Collisions")."""
from __future__ import annotations

import math

from scipy.optimize import brentq

from support.run import run


def neutral_run(instance, fmu, speed: float, t_end: float, record, start=()) -> dict:
    """The car of ``fmu`` started at ``speed0`` = ``speed`` in neutral, ``record`` every 1 ms
    until ``t_end``, and under "start" the values of the outputs ``start`` at the start
    (``instance(fmu)`` makes the instance; it is freed after the run)."""
    inst = instance(fmu).start({"car.speed0": speed})
    at_start = [inst.get(name) for name in start]

    def neutral(t, i):
        i.set("car.gear", 0)
    try:
        return {**run(inst, t_end, neutral, h=0.001, record=record), "start": at_start}
    finally:
        inst.free()


def spin_energy(unit: dict, spins) -> float:
    """The wheels' spin energy (J) of the event's ``unit`` at the wheel ``spins`` (rad/s, axles
    front to rear, left then right): each wheel's tire spin inertia."""
    inertia = [unit["tires"][axle["tire"]]["spin_inertia"] for axle in unit["axles"]]
    return sum(0.5 * inertia[k // 2] * s ** 2 for k, s in enumerate(spins))


def separation_factor(zeta):
    """f(zeta): x'' + 2 zeta x' + x = 0 from x = 1 at rest; the speed when the spring and
    damper force x + 2 zeta x' first vanishes (the undamped speed is 1)."""
    wd = math.sqrt(1.0 - zeta * zeta)

    def x(t):
        return math.exp(-zeta * t) * (math.cos(wd * t) + zeta / wd * math.sin(wd * t))

    def xd(t):
        return -math.exp(-zeta * t) * math.sin(wd * t) / wd

    if zeta == 0.0:
        return 1.0
    t = brentq(lambda t: x(t) + 2.0 * zeta * xd(t), 1e-9, math.pi / wd)
    return abs(xd(t))
