"""The NASA-TTI and Gallaway hydroplaning options through the built FMU (fmpy): the friction
available at speeds below and above the hydroplaning speed, on water deeper than the tread
and on a shallow film, against the published formulas evaluated here from the data
(docs/equations.md, "Hydroplaning"). The car runs straight on a level mesh whose left half
is a shallow film and whose right half is deep water, so that one run sees both.

Published forms (US units; 1 psi = 6894.757 Pa, 1 mph = 0.44704 m/s, 1 in = 0.0254 m):

* NASA-TTI: V_p = 7.95 sqrt(p 1.4 / FAR) mph, FAR = footprint width / length, the length
  the chord 2 sqrt(delta (2 r - delta)) at the tire's deflection delta (its output, checked
  against the static F_z / k_t);
* Gallaway: V_p = SD^0.04 P^0.3 (TD + 1)^0.06 A mph, A = max(10.409 / WD^0.06 + 3.507,
  (28.952 / WD^0.06 - 7.817) TXD^0.14), SD = 10 percent;
* friction f = 1 - 0.9 e min(1, (V / V_p)^2), e = min(1, water depth / tread depth).
"""
from __future__ import annotations

import json
import math

import pytest

import engine
from support.roads import grid_mesh_obj
from support.fmus import event_fmu
from support.run import run
from support.sedan import TIRE, static_loads

PSI = 6894.757293168
MPH = 0.44704
INCH = 0.0254
PRESSURE = 220e3            # Pa
TREAD = 0.008               # m
WIDTH = 0.195               # m
TEXTURE = 0.5e-3            # m
SHALLOW, DEEP = 0.002, 0.010  # m: left half a film, right half deeper than the tread
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]


def _static_deflection(wheel):
    front, rear = static_loads()
    return (front if ".axle1." in wheel else rear) / TIRE["radial_stiffness"]


def _water(wheel):
    return SHALLOW if wheel.endswith("left") else DEEP


def _engagement(wheel):
    return min(1.0, _water(wheel) / TREAD)


def _far(wheel, deflection=None):
    """FAR at the tire's deflection (its output), or at its static deflection F_z / k_t."""
    front, rear = static_loads()
    load = front if ".axle1." in wheel else rear
    assert load < TIRE["radial_stiffness"] * TIRE["secondary_stiffness_deflection"]
    d = load / TIRE["radial_stiffness"] if deflection is None else deflection
    r = TIRE["unloaded_radius"]
    return WIDTH / (2.0 * math.sqrt(d * (2.0 * r - d)))


def _vp_tti(wheel, deflection=None):
    return 7.95 * math.sqrt(PRESSURE / PSI * 1.4 / _far(wheel, deflection)) * MPH


def _vp_gallaway(wheel, deflection=None):
    w = (_water(wheel) / INCH) ** 0.06
    a = max(10.409 / w + 3.507, (28.952 / w - 7.817) * (TEXTURE / INCH) ** 0.14)
    return 10.0 ** 0.04 * (PRESSURE / PSI) ** 0.3 * (TREAD / (INCH / 32) + 1.0) ** 0.06 * a * MPH


VP = {"nasa-tti": _vp_tti, "gallaway": _vp_gallaway}


def _fmu(fmu_dir, model):
    name = f"wet_{model}"
    obj = grid_mesh_obj(fmu_dir / f"{name}.obj", lambda x, y: 0.0 * x, (-5.0, 20.0), (-6.0, 6.0),
                        (25, 12), lambda x, y: "film" if y < 0.0 else "deep")
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "mesh", "file": str(obj), "materials": {
        "film": {"friction_multiplier": 1.0, "water_depth": SHALLOW, "texture_depth": TEXTURE},
        "deep": {"friction_multiplier": 1.0, "water_depth": DEEP, "texture_depth": TEXTURE}}}
    data["simulation"]["hydroplaning"] = model
    for tire in data["units"][0]["tires"].values():
        assert tire["unloaded_radius"] == TIRE["unloaded_radius"]
        assert tire["radial_stiffness"] == TIRE["radial_stiffness"]
        tire.update(inflation_pressure=PRESSURE, tread_depth=TREAD, width=WIDTH)
    return event_fmu(fmu_dir, name, data)


def _friction(instance, fmu, speed):
    inst = instance(fmu).start({"car.speed0": speed})
    run(inst, 0.02)
    u = inst.get("car.u")
    return u, {w: inst.get(f"{w}.frictionAvailable") for w in WHEELS}, inst


@pytest.mark.parametrize("model", ["nasa-tti", "gallaway"])
def test_friction_available_follows_the_published_speed(instance, fmu_dir, model):
    fmu = _fmu(fmu_dir, model)
    vp_ref = VP[model]("car.axle1.right")
    previous = None
    for ratio in (0.5, 0.9, 1.25):
        u, mu, inst = _friction(instance, fmu, ratio * vp_ref)
        for w in WHEELS:
            assert inst.get(f"{w}.waterDepth") == pytest.approx(_water(w))
            defl = inst.get(f"{w}.deflection")
            # the running tire's deflection is that of its static load (measured within 0.18 %)
            assert defl == pytest.approx(_static_deflection(w), rel=5e-3)
            share = min(1.0, (u / VP[model](w, defl)) ** 2)
            expected = 1.0 - 0.9 * _engagement(w) * share
            # measured within 3.4e-4 (at 0.9 V_p): the contact patch's speed is the car's u
            # but for the pitch rate times the CG height as the car starts to slow
            assert mu[w] == pytest.approx(expected, abs=5e-4), (model, ratio, w)
        if previous is not None:              # non-increasing in speed (docs)
            assert all(mu[w] <= previous[w] + 1e-12 for w in WHEELS)
        previous = mu
    # above V_p every tire keeps 1 - 0.9 e: 0.1 on deep water, 1 - 0.9 * 0.25 on the film
    assert all(u > VP[model](w) for w in WHEELS)
    assert mu["car.axle1.right"] == pytest.approx(0.1, abs=1e-9)
    assert mu["car.axle1.left"] == pytest.approx(1.0 - 0.9 * SHALLOW / TREAD, abs=1e-9)


def test_gallaway_speed_falls_with_the_water_depth(instance, fmu_dir):
    """Gallaway's V_p falls with the film (WD^-0.06): at one speed, the deep side's tires keep
    less friction per unit of engagement than the film's."""
    fmu = _fmu(fmu_dir, "gallaway")
    assert _vp_gallaway("car.axle1.right") < _vp_gallaway("car.axle1.left")
    u, mu, _ = _friction(instance, fmu, 0.8 * _vp_gallaway("car.axle1.right"))
    loss = {w: (1.0 - mu[w]) / (0.9 * _engagement(w)) for w in WHEELS}   # (V / V_p)^2
    assert loss["car.axle1.right"] > loss["car.axle1.left"]
    assert loss["car.axle1.right"] == pytest.approx((u / _vp_gallaway("car.axle1.right")) ** 2, rel=1e-3)
