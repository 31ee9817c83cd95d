"""The closed forms of a car's impact into a rigid barrier (docs/equations.md, "Collisions")."""
from __future__ import annotations

import math

from scipy.optimize import brentq


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
