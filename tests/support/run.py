"""Stepping an FMU instance (conftest.Instance) and recording its outputs."""
from __future__ import annotations

import numpy as np


def run(inst, t_end, control=None, h=0.01, record=("car.u",)):
    """Step the FMU to t_end with control(t, inst) called before each step; returns arrays
    (a variable that is not a Real, an Enumeration's value say, read by its own getter)."""
    types = getattr(inst, "types", {})
    reals = [n for n in record if types.get(n, "Real") == "Real"]
    others = [n for n in record if n not in reals]
    vrs = [inst.vr[n] for n in reals]
    out = {n: [] for n in ("time",) + tuple(record)}
    t = inst_time = getattr(inst, "_t", 0.0)
    n0 = round(inst_time / h)
    for n in range(n0, round(t_end / h)):
        t = n * h
        if control is not None:
            control(t, inst)
        inst.fmu.doStep(t, h)
        vals = inst.fmu.getReal(vrs)
        out["time"].append(t + h)
        for name, v in zip(reals, vals):
            out[name].append(v)
        for name in others:
            out[name].append(inst.get(name))
    inst._t = t + h
    return {k: np.array(v) for k, v in out.items()}
