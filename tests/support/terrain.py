"""The reference sedan on a terrain of the tests' making: its event on an OBJ grid surface
(:func:`mesh_event`), released at rest to roll back down a grade (:func:`rolling_back`)."""
from __future__ import annotations

import json

import numpy as np

import engine
from support.roads import grid_mesh_obj
from support.run import run

#: the grade the terrain tests roll the car back down (rising with X)
GRADE = 0.05


def mesh_event(fmu_dir, name, fn_z, x_range=(-5.0, 60.0), y_range=(-6.0, 6.0), n=(65, 12),
               materials=None, fn_material=None, **environment):
    """The default event on the mesh Z = fn_z(X, Y) (written to ``fmu_dir/name.obj``, see
    :func:`support.roads.grid_mesh_obj`), with ``materials`` and more ``environment``."""
    obj = grid_mesh_obj(fmu_dir / f"{name}.obj", fn_z, x_range, y_range, n, fn_material)
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "mesh", "file": str(obj), "materials": materials or {}}
    data["environment"].update(environment)
    return data


def rolling_back(data_fmu, instance, control=None):
    """The car of ``data_fmu`` released at rest for 3 s: its acceleration (the slope of u over
    the last 2 s) and the record of car.u, car.pitch and car.X."""
    inst = instance(data_fmu).start({"car.speed0": 0.0})
    out = run(inst, 3.0, control, record=("car.u", "car.pitch", "car.X"))
    t, u = out["time"], out["car.u"]
    sel = (t > 1.0) & (t <= 3.0)
    a = np.polyfit(t[sel], u[sel], 1)[0]
    return a, out
