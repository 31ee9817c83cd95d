"""Environment objects given as meshes (``environment.objects``; engine.collision, object
pairs; docs/equations.md, "Collisions"), through the built FMU: the sedan into a rigid square
pole.

The pole covers the width d of the front across its whole height, and nothing else of the car
meets it (its wheels pass either side). The CRASH3 line F/w = A + B C of the front then holds
over that width: the car stops at the crush C where d (A C + B C^2 / 2 + G), G = A^2 / (2 B),
equals the kinetic energy it brings (its wheels' spin included), the closed form of a front
loaded across the width d only. At 8 m/s C + A/B is about twice d: the front's vertices pass
the pole's back and still press on its face.
"""
from __future__ import annotations

import copy
import json
import math
import zipfile

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.collision import environment_pairs
from engine.setup.collision import unit_box

from support.barrier import neutral_run, spin_energy
from support.exteriors import box_obj
from support.fixtures import BARRIER_X
from support.fmus import event_fmu
from support.sedan import DATA, M

CAR = DATA["units"][0]
POLE = 0.3                  # m: the square pole's width and depth
POLE_HEIGHT = 3.0           # m
A_FRONT = 50.0e3            # N/m: the front's CRASH3 A (its no-damage approach A/B 5 cm)
V_POLE = 8.0                # m/s
WHEELS = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
RECORD = ("car.u", "car.collision.maxCrush", "car.collision.Fx", "car.collision.Fy")


def _pole_event(folder):
    """The default car with its front's A, a rigid square pole POLE wide centred on its path,
    its face BARRIER_X ahead of the car's CG (1 m ahead of its front), from the ground up."""
    box_obj(folder / "pole.obj", (BARRIER_X, -0.5 * POLE, -POLE_HEIGHT),
            (BARRIER_X + POLE, 0.5 * POLE, 0.0), n=2)
    data = copy.deepcopy(DATA)
    data["units"][0].setdefault("collision", {})["crush_a"] = {
        "front": A_FRONT, "side": 20.0e3, "rear": 30.0e3}
    data["environment"]["objects"] = [{"mesh_file": "pole.obj"}]
    return data


@pytest.fixture(scope="module")
def pole_fmu(fmu_dir):
    return event_fmu(fmu_dir, "collision_pole", _pole_event(fmu_dir))


def test_a_pole_crushes_the_front_by_the_crash3_energy_over_its_width(instance, pole_fmu):
    with zipfile.ZipFile(pole_fmu) as z:         # the FMU carries the pole's mesh
        assert "resources/object-0.obj" in z.namelist()
        event = json.loads(z.read("resources/event.json"))
    assert event["environment"]["objects"][0]["mesh_file"] == "object-0.obj"
    r = neutral_run(instance, pole_fmu, V_POLE, 0.5, RECORD, start=[w + ".spin" for w in WHEELS])
    fx = r["car.collision.Fx"]
    first = next(i for i, f in enumerate(fx) if f != 0.0)
    energy = 0.5 * M * r["car.u"][first - 1] ** 2 + spin_energy(CAR, r["start"])
    B = CAR["collision"]["crush_stiffness"]["front"]
    G = A_FRONT ** 2 / (2.0 * B)
    theory = (-A_FRONT + math.sqrt(A_FRONT ** 2 + 2.0 * B * (energy / POLE - G))) / B
    crush = r["car.collision.maxCrush"][-1]
    print(f"pole {POLE} m at {V_POLE} m/s: crush {crush:.4f} m against CRASH3's {theory:.4f} m "
          f"over the pole's width ({crush / theory - 1:+.2%}); approach C + A/B "
          f"{crush + A_FRONT / B:.3f} m")
    assert crush == pytest.approx(theory, rel=0.015)      # measured +0.47 %
    assert crush + A_FRONT / B > POLE                   # through the pole's depth
    assert fx[-1] == 0.0 and r["car.u"][-1] < 0.0       # it rebounded and parted
    assert max(abs(f) for f in r["car.collision.Fy"]) < 1e-6 * max(abs(f) for f in fx)


@pytest.mark.parametrize("stiffness", [None, 1.0, 0.25], ids=["rigid", "as-stiff", "softer"])
def test_a_pole_pressed_into_the_front_carries_the_fronts_stiffness_over_its_width(
        tmp_path, stiffness):
    """The kernel posed: the car at rest, its front 2 to 40 cm past the pole's face, square to
    it: the pole pushes back with K d H delta (d the pole's width, H the front's height), K the
    front's stiffness per unit area B / H in series with the pole's (``stiffness`` given as a
    multiple of B / H; None: rigid, K = B / H); past the pole's depth, the same."""
    data = _pole_event(tmp_path)
    obj = data["environment"]["objects"][0]
    obj["mesh_file"] = str(tmp_path / "pole.obj")
    car = engine.load_event(data).model.units[0]
    xf, _, _, zt, zb, _ = unit_box(car)
    Ka = car.collision.crush_stiffness.front / (zb - zt)
    if stiffness is not None:
        obj["stiffness"] = stiffness * Ka
    sim = engine.Simulation(engine.load_event(data), warn=False)
    model = sim.model._replace(P_WCOLL=np.zeros_like(sim.model.P_WCOLL))
    K = Ka if stiffness is None else Ka * stiffness / (1.0 + stiffness)
    nw = model.P_WHEEL.shape[0]
    inputs = L.Inputs(np.zeros((1, len(engine.UNIT_INPUTS))),
                      np.zeros((nw, len(engine.WHEEL_INPUTS))), np.zeros(len(engine.ENV_INPUTS)))
    for delta in (0.02, 0.15, 0.4):
        y = sim.y.copy()
        y[L.SX:L.SPSI + 1] = (BARRIER_X - xf + delta, 0.0, y[L.SZ], 0.0, 0.0, 0.0)
        y[L.SU:L.SR + 1] = 0.0
        frames = np.zeros((1, L.N_FRAME))
        frames[0, :9] = np.eye(3).ravel()
        out = np.zeros(8)
        environment_pairs(y, model, inputs.u_wheel, 0, frames, False, out,
                          np.zeros((nw, L.N_WPOSE)), np.zeros((nw, L.N_WLOAD)), np.zeros(1), inputs,
                          1.0)
        expected = -K * POLE * (zb - zt) * delta
        print(f"pole stiffness {stiffness}, delta {delta} m: Fx {out[0]:.1f} N, K d H delta "
              f"{expected:.1f} N ({out[0] / expected - 1:+.1e})")
        assert out[0] == pytest.approx(expected, rel=1e-9)
        assert out[1:3] == pytest.approx([0.0, 0.0], abs=1e-9 * abs(expected))


def test_an_object_without_its_file_is_refused(tmp_path):
    data = copy.deepcopy(DATA)
    data["environment"]["objects"] = [{"mesh_file": str(tmp_path / "missing.obj")}]
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    assert err.value.problems[0].startswith(
        f"environment.objects[0].mesh_file: {tmp_path / 'missing.obj'}")


def test_a_bollard_below_the_body_is_met_by_the_wheel_that_runs_into_it(tmp_path):
    """A rigid bollard 10 cm high, lower than the body's underbody, in the left front wheel's
    track: the body passes over it, the wheel's mesh meets it (engine.wheel_damage's meshes meet
    environment objects) and pushes the car back; the other wheels' meshes do not."""
    data = copy.deepcopy(DATA)
    sim = engine.Simulation(engine.load_event(data), warn=False)
    w_y = sim.model.P_WHEEL[0, L.W_Y0]
    zb = sim.model.P_COLL[0, L.CO_ZMAX] + sim.y[L.SZ]      # the underbody's earth Z
    assert zb < -0.1                                        # above the bollard's top
    box_obj(tmp_path / "bollard.obj", (BARRIER_X, w_y - 0.1, -0.1), (BARRIER_X + 0.2, w_y + 0.1, 0.0),
            n=1)
    data["environment"]["objects"] = [{"mesh_file": str(tmp_path / "bollard.obj")}]
    sim = engine.Simulation(engine.load_event(data), warn=False, initial={"car": {"speed0": 2.0}})
    sim.u_unit[0, L.IU_GEAR] = 0
    push, loaded = 0.0, set()
    for n in range(1, 151):
        sim.advance(n * 0.01)
        push = min(push, sim._scratch.coll[0, 0])
        loaded |= {w for w in range(4) if sim._scratch.wcoll[w, L.WL_FX] != 0.0}
    print(f"bollard: the car pushed back by up to {-push:.0f} N, wheels loaded {sorted(loaded)}")
    assert push < 0.0 and loaded == {0}
