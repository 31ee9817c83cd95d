"""Two cars collide, through the built FMU (fmpy): vehicle-vehicle pairs (engine.collision,
unit_pair; docs/equations.md, "Collisions").

The sedan and a heavier copy (sprung mass and inertias times MASS_RATIO) meet head-on with a
lateral offset on a frictionless road (friction multiplier 0), in neutral, with no
aerodynamics and no rolling resistance: no force on either car but the other's. Then the
total momentum, sum of m v_CG over the cars (m each car's total mass), is conserved, and the
CG velocity changes are equal and opposite impulses over the masses: deltaV_1 / deltaV_2 =
m_2 / m_1."""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from engine.event import TWO_CARS_EVENT
from conftest import event_fmu
from test_fmu_physics import run

MASS_RATIO = 1.5
V1, V2 = 12.0, 8.0
OFFSET = 0.6                 # lateral offset of the paths, m


def _event():
    data = json.loads(open(TWO_CARS_EVENT).read())
    car, car2 = data["units"]
    for unit in (car, car2):
        unit["aerodynamics"] = []
        for tire in unit["tires"].values():
            tire["rolling_resistance"] = {"sigma0": 0.0, "sigma_v": 0.0}
    sm = car2["sprung_mass"]
    sm["mass"] *= MASS_RATIO
    sm["inertia"] = [MASS_RATIO * i for i in sm["inertia"]]
    length = car["dimensions"]["length"]
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": V1}
    car2["initial"] = {"X": length + 2.0, "Y": OFFSET, "yaw": math.pi, "speed": V2}
    return data


DATA = _event()
MASSES = [u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"])
          for u in DATA["units"]]


@pytest.fixture(scope="module")
def two_car_fmu(fmu_dir):
    return event_fmu(fmu_dir, "two_car_collision", DATA)


def _velocity(r, unit):
    u, v, yaw = r[unit + ".u"], r[unit + ".v"], r[unit + ".yaw"]
    return u * np.cos(yaw) - v * np.sin(yaw), u * np.sin(yaw) + v * np.cos(yaw)


def test_momentum_is_conserved_and_delta_v_in_the_inverse_mass_ratio(instance, two_car_fmu):
    params = {"frictionMultiplier": 0.0}
    for unit in DATA["units"]:
        n, ini = unit["name"], unit["initial"]
        params.update({f"{n}.X0": ini["X"], f"{n}.Y0": ini["Y"], f"{n}.yaw0": ini["yaw"],
                       f"{n}.speed0": ini["speed"]})
    inst = instance(two_car_fmu).start(params)

    def neutral(t, i):
        i.set("car.gear", 0)
        i.set("car2.gear", 0)

    rec = tuple(f"{n}.{k}" for n in ("car", "car2")
                for k in ("u", "v", "yaw", "collision.deltaV", "collision.maxCrush", "collision.Fx"))
    r = run(inst, 1.0, neutral, h=0.005, record=rec)
    assert np.any(np.abs(r["car.collision.Fx"]) > 0.0)            # they met
    assert r["car.collision.Fx"][-1] == 0.0 and r["car2.collision.Fx"][-1] == 0.0   # and parted
    (vx1, vy1), (vx2, vy2) = _velocity(r, "car"), _velocity(r, "car2")
    m1, m2 = MASSES
    px, py = m1 * vx1 + m2 * vx2, m1 * vy1 + m2 * vy2
    p0 = m1 * V1 - m2 * V2
    dpx, dpy = np.max(np.abs(px - p0)) / abs(m1 * V1), np.max(np.abs(py)) / abs(m1 * V1)
    dv1, dv2 = r["car.collision.deltaV"][-1], r["car2.collision.deltaV"][-1]
    ratio = dv1 / dv2
    ke0 = 0.5 * (m1 * V1 ** 2 + m2 * V2 ** 2)
    ke1 = 0.5 * (m1 * (vx1[-1] ** 2 + vy1[-1] ** 2) + m2 * (vx2[-1] ** 2 + vy2[-1] ** 2))
    print(f"momentum error x {dpx:.2e}, y {dpy:.2e} of m1 V1; deltaV {dv1:.3f} {dv2:.3f} m/s, "
          f"ratio {ratio:.4f} (m2/m1 {m2 / m1:.4f}); KE {ke0:.0f} -> {ke1:.0f} J; crush "
          f"{r['car.collision.maxCrush'][-1]:.3f} {r['car2.collision.maxCrush'][-1]:.3f} m")
    assert dv1 > 0.5
    assert dpx < 0.02 and dpy < 0.02
    assert ratio == pytest.approx(m2 / m1, rel=0.03)
    assert ke1 < ke0
