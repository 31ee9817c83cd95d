"""A full trailer on a turntable (engine/data/truck-full-trailer.json) through the built FMU
(fmpy): low-speed off-tracking in a steady circle against the closed form of SAE J695, the
turntable's angle against the drawbar's direction, straight running after a disturbance, the
static loads, and the validation of the fields.

The closed form (SAE J695, "Turning Ability and Off Tracking - Motor Vehicles": steady-state
low-speed off-tracking, every axle rolling without lateral slip, so that the turn centre lies on
the line of each unit's rear axle): a point a distance L ahead of an axle, on the same rigid
unit, turns on a radius R_ahead with the axle's own R_axle^2 = R_ahead^2 - L^2; a point c
behind the axle (a hitch overhang) turns on R^2 = R_axle^2 + c^2. A truck with a full trailer
is three such units in a row: the truck (its front axle centre on R1, wheelbase L1, the pintle
c behind its rear axle), the drawbar (its front end the pintle, its "axle" the turntable's
front axle, whose wheels the drawbar steers along itself, the king pin a drawbar length L_d
behind the pintle) and the trailer body (the turntable axle at the king pin, its rear axle a
wheelbase L_t behind):

    R2^2 = R1^2 - L1^2,  R_H^2 = R2^2 + c^2,  R_K^2 = R_H^2 - L_d^2,  R_4^2 = R_K^2 - L_t^2

and the turntable's angle (the drawbar's to the trailer body) sin(delta) = L_t / R_K. R1 is
taken from the run (the truck's front axle centre's circle), every other radius from the
closed form and the event's geometry.
"""
from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

import engine
from engine.setup.event import TRUCK_FULL_TRAILER_EVENT
from support import fmus
from support.run import run

DATA = json.loads(Path(TRUCK_FULL_TRAILER_EVENT).read_text())
TRUCK, TRAILER = DATA["units"]
#: the geometry of the closed form, from the event (x forward from each unit's CG)
X_FRONT, X_REAR = TRUCK["axles"][0]["x"], TRUCK["axles"][1]["x"]
X_PINTLE = TRUCK["connections"]["rear"]["point"][0]
X_KING = TRAILER["connections"]["front"]["point"][0]
X_TRAILER_REAR = TRAILER["axles"][1]["x"]
L1, C, L_D, L_T = (X_FRONT - X_REAR, X_REAR - X_PINTLE,
                   TRAILER["connections"]["front"]["drawbar_length"], X_KING - X_TRAILER_REAR)
STEER = 5.5          # rad at the steering wheel (gear ratio 20: 0.275 rad at the road wheels)
RECORD = ("truck.X", "truck.Y", "truck.yaw", "truck.pitch", "truck.roll", "truck.u", "trailer.X",
          "trailer.Y", "trailer.yaw", "trailer.pitch", "trailer.roll",
          "trailer.axle1.left.steer", "trailer.axle1.right.steer", "trailer.articulation",
          "trailer.hitch.separation")


@pytest.fixture(scope="module")
def full_trailer_fmu(fmu_dir) -> Path:
    return fmus.vehicle(Path(TRUCK_FULL_TRAILER_EVENT), fmu_dir / "SimonTruckFullTrailer.fmu")


def closed_form(r1):
    """Radii of the truck's rear axle, the pintle, the king pin and the trailer's rear axle, and
    the turntable's angle, of a front axle centre on the radius r1 (module docstring)."""
    r2 = math.sqrt(r1 ** 2 - L1 ** 2)
    rh = math.sqrt(r2 ** 2 + C ** 2)
    rk = math.sqrt(rh ** 2 - L_D ** 2)
    r4 = math.sqrt(rk ** 2 - L_T ** 2)
    return r2, rh, rk, r4, math.asin(L_T / rk)


def drive(inst, t_end, speed, steer, h=0.05):
    """Hold the truck near ``speed`` in first gear (throttle on the speed error), steering
    ``steer(t)``; the recorded outputs."""
    inst.set("truck.gear", 1)

    def control(t, i):
        i.set("truck.throttle", min(1.0, max(0.0, 0.05 + 0.5 * (speed - i.get("truck.u")))))
        i.set("truck.steeringWheelAngle", steer(t))
    return run(inst, t_end, control, h=h, record=RECORD)


def rotation(out, unit):
    """The rows of ``unit``'s vehicle-to-earth rotation (yaw, pitch, roll: Eq. 53), per sample."""
    ps, th, ph = out[f"{unit}.yaw"], out[f"{unit}.pitch"], out[f"{unit}.roll"]
    cs, ss, ct, st, cf, sf = np.cos(ps), np.sin(ps), np.cos(th), np.sin(th), np.cos(ph), np.sin(ph)
    return ((cs * ct, cs * st * sf - ss * cf, cs * st * cf + ss * sf),
            (ss * ct, ss * st * sf + cs * cf, ss * st * cf - cs * sf))


def point(out, unit, x, z=0.0):
    """Earth X, Y of the point (x, 0, z) of ``unit`` (vehicle axes from its CG)."""
    (r00, _, r02), (r10, _, r12) = rotation(out, unit)
    return out[f"{unit}.X"] + r00 * x + r02 * z, out[f"{unit}.Y"] + r10 * x + r12 * z


def drawbar_angle(out):
    """The drawbar's direction (king pin to pintle, earth-horizontal) in the trailer's x-y plane,
    from the units' positions and attitudes: the angle the turntable takes."""
    hx, hy = point(out, "truck", X_PINTLE, TRUCK["connections"]["rear"]["point"][2])
    kx, ky = point(out, "trailer", X_KING, TRAILER["connections"]["front"]["point"][2])
    (r00, r01, _), (r10, r11, _) = rotation(out, "trailer")
    dx, dy = hx - kx, hy - ky
    return np.arctan2(r01 * dx + r11 * dy, r00 * dx + r10 * dy)


def circle_centre(x, y):
    """The centre of the least-squares circle through the points (x, y)."""
    A = np.c_[2 * x, 2 * y, np.ones_like(x)]
    c = np.linalg.lstsq(A, x ** 2 + y ** 2, rcond=None)[0]
    return c[0], c[1]


def test_steady_circle_off_tracking_against_sae_j695(full_trailer_fmu, instance):
    """A steady circle at about 2 m/s (the steer ramped in over 2 s, then held for 58 s: the
    trailer's rear axle travels about 8 trailer wheelbases): each point's radius against the
    closed form. Measured: the truck's rear axle 3.4e-5 m and the pintle 5.0e-5 m inside it, the
    king pin 7.1 mm and the trailer's rear axle 21.9 mm outside it (the trailer's tires slip at
    its 0.24 m/s^2: the beginning of high-speed off-tracking, outward), of a total off-tracking
    R1 - R4 of 2.02 m; the turntable 1.7e-4 rad inside its closed form. (At about 1.2 m/s,
    measured in process, every point is within 8.4 mm.)"""
    inst = instance(full_trailer_fmu).start({"truck.speed0": 2.5})
    out = drive(inst, 60.0, 2.5, lambda t: STEER * min(1.0, t / 2.0))
    last = out["time"] > 45.0                      # steady: the last 15 s
    fx, fy = point(out, "truck", X_FRONT)
    cx, cy = circle_centre(fx[last], fy[last])

    def radius(unit, x):
        px, py = point(out, unit, x)
        r = np.hypot(px[last] - cx, py[last] - cy)
        assert np.ptp(r) < 3e-5                    # a circle: measured 7.9e-6 m
        return r.mean()
    r1 = radius("truck", X_FRONT)
    r2, rh, rk, r4, delta = closed_form(r1)
    assert radius("truck", X_REAR) == pytest.approx(r2, abs=1.5e-4)
    assert radius("truck", X_PINTLE) == pytest.approx(rh, abs=1.5e-4)
    assert radius("trailer", X_KING) == pytest.approx(rk, abs=0.015)
    assert radius("trailer", X_TRAILER_REAR) == pytest.approx(r4, abs=0.04)
    assert r1 - r4 > 1.9                           # the off-tracking resolved: 2.02 m
    assert out["trailer.axle1.left.steer"][last].mean() == pytest.approx(delta, abs=5e-4)


def test_turntable_angle_is_the_drawbar_angle(full_trailer_fmu, instance):
    """Through a turn in and out (a steer ramped to full over 2 s, held, and back to straight at
    6 s) the front axle's steer output equals the drawbar's direction in the trailer's x-y plane
    from the units' positions and attitudes (measured: within 1.5e-15 rad), both wheels alike,
    and the drawbar keeps its length (its stretch measured at most 8.5e-5 m)."""
    inst = instance(full_trailer_fmu).start({"truck.speed0": 2.5})
    out = drive(inst, 12.0, 2.5, lambda t: STEER * min(1.0, t / 2.0) if t < 6.0 else 0.0)
    steer = out["trailer.axle1.left.steer"]
    assert np.abs(steer).max() > 0.25               # it turned (measured 0.30 rad)
    assert np.abs(steer - drawbar_angle(out)).max() < 1e-12
    assert np.array_equal(steer, out["trailer.axle1.right.steer"])
    assert np.abs(out["trailer.hitch.separation"]).max() < 2e-4


def test_straight_running_stays_straight(full_trailer_fmu, instance):
    """At 15 m/s a steer pulse (1 rad at the steering wheel for 0.5 s) turns the turntable by
    0.07 rad; 11.5 s later, with the steering straight, the turntable and the articulation have
    died away (measured: 8.4e-15 and 3.6e-15 rad) and the trailer runs on the truck's line (its
    CG 3.4e-14 m off the line of the truck's x-axis)."""
    inst = instance(full_trailer_fmu).start({"truck.speed0": 15.0})
    inst.set("truck.gear", 0)
    out = run(inst, 14.0, lambda t, i: i.set("truck.steeringWheelAngle",
                                              1.0 if 1.0 <= t < 1.5 else 0.0),
              h=0.05, record=RECORD)
    assert np.abs(out["trailer.axle1.left.steer"]).max() > 0.01       # disturbed
    end = out["time"] > 13.0
    psi = out["truck.yaw"][end]
    assert np.abs(out["trailer.axle1.left.steer"][end]).max() < 1e-12
    assert np.abs(out["trailer.articulation"][end]).max() < 1e-12
    # the trailer's CG on the line of the truck's x-axis
    psi = out["truck.yaw"][end]
    dx = out["trailer.X"][end] - out["truck.X"][end]
    dy = out["trailer.Y"][end] - out["truck.Y"][end]
    assert np.abs(-np.sin(psi) * dx + np.cos(psi) * dy).max() < 1e-12


def test_static_loads_stand_on_the_trailer_axles(full_trailer_fmu, instance):
    """At rest the drawbar carries no load (hinged at both ends): the trailer stands on its two
    axles, each carrying half of it (its CG midway: the lever rule), the truck its own weight."""
    inst = instance(full_trailer_fmu).start()
    g = DATA["environment"]["gravity"]

    def load(unit, k):
        """The sum of the tire loads of the unit's axle k (a dual's two per side)."""
        return sum(inst.get(v.name) for v in inst.md.modelVariables
                   if v.name.startswith(f"{unit}.axle{k}.") and v.name.endswith(".Fz"))

    def weight(u):
        return g * (u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"]))
    half = g * TRAILER["sprung_mass"]["mass"] / 2
    for k, ax in enumerate(TRAILER["axles"], start=1):
        assert load("trailer", k) == pytest.approx(half + 2 * g * ax["unsprung_mass_per_wheel"], rel=1e-6)
    assert load("truck", 1) + load("truck", 2) == pytest.approx(weight(TRUCK), rel=1e-6)
    assert inst.get("trailer.hitch.Fz") == 0.0
    assert inst.get("trailer.axle1.left.steer") == 0.0


#: a square road of 260 m by 200 m around the start, level or with a crossfall (Z down, the
#: right side 3 % lower)
ROAD = "v -60 -100 {a}\nv 200 -100 {a}\nv 200 100 {b}\nv -60 100 {b}\nf 1 2 3 4\n"


@pytest.mark.parametrize("crossfall", [0.0, 0.03])
def test_it_starts_on_a_mesh_road_its_drawbar_length_behind(full_trailer_fmu, instance, fmu_dir,
                                                            crossfall):
    """On a mesh road the trailer starts where it does on flat ground: its king pin its drawbar
    length behind the pintle, standing on its own wheels (docs/equations.md, "Start on the
    terrain"). On a level mesh the start is flat ground's (measured: to 1e-15 m); on a 3 %
    crossfall the pintle and the king pin are a drawbar length apart in plan (measured: to
    1e-6 m, the joint's deflection under the lateral share). The start moved the king pin onto
    the pintle, 3 m into the truck, and its step check refused the event."""
    name = f"full-trailer-mesh-{crossfall:g}"
    (fmu_dir / f"{name}.obj").write_text(ROAD.format(a=-100 * crossfall, b=100 * crossfall))
    data = copy.deepcopy(DATA)
    data["environment"]["terrain"] = {"type": "mesh", "file": f"{name}.obj"}
    fmu = fmus.event_fmu(fmu_dir, name, data)
    start = ("truck.X", "truck.Y", "truck.Z", "trailer.X", "trailer.Y", "trailer.Z",
             "trailer.roll", "trailer.pitch")
    on_mesh = instance(fmu).start()
    got = dict(zip(start, on_mesh.get_reals(list(start))))
    out = {k: np.array([v]) for k, v in got.items()}
    for k in ("truck.yaw", "truck.pitch", "truck.roll", "trailer.yaw"):
        out[k] = np.array([on_mesh.get(k)])
    pintle = point(out, "truck", X_PINTLE, TRUCK["connections"]["rear"]["point"][2])
    king = point(out, "trailer", X_KING, TRAILER["connections"]["front"]["point"][2])
    apart = math.hypot(pintle[0][0] - king[0][0], pintle[1][0] - king[1][0])
    print(f"crossfall {crossfall}: pintle to king pin {apart:.9f} m in plan")
    assert apart == pytest.approx(L_D, abs=1e-5)
    if crossfall == 0.0:
        flat = instance(full_trailer_fmu).start()
        want = dict(zip(start, flat.get_reals(list(start))))
        for k in start:
            assert got[k] == pytest.approx(want[k], abs=1e-12), k


def _bad(edit) -> list:
    data = copy.deepcopy(DATA)
    edit(data["units"][0], data["units"][1])
    with pytest.raises(engine.EventError) as err:
        engine.load_event(data)
    return err.value.problems


@pytest.mark.parametrize("edit, field, says", [
    (lambda t, f: f["connections"]["front"].pop("drawbar_length"),
     "units[1].connections.front.drawbar_length", "required by units[1].axles[0].turntable"),
    (lambda t, f: f["axles"][1].update(turntable=True), "units[1].axles[1].turntable",
     "only on the unit's first axle"),
    (lambda t, f: t["axles"][0].update(turntable=True), "units[0].axles[0].turntable",
     "only on a towed unit"),
    (lambda t, f: [a.update(turntable=False) for a in f["axles"]],
     "units[1].connections.front.drawbar_length", "only on a full trailer"),
    (lambda t, f: f.update(dolly="converter"), "units[1].dolly", "null on a full trailer"),
    (lambda t, f: f["connections"]["front"].update(failure_force=1e5),
     "units[1].connections.front.failure_force", "null on a full trailer's drawbar"),
    (lambda t, f: t["connections"]["rear"].update(hitch_friction={"coefficient": 0.1}),
     "units[0].connections.rear.hitch_friction", "coefficient 0"),
    (lambda t, f: t["connections"]["rear"].update(frame_torsion={"stiffness": 1e6}),
     "units[0].connections.rear.frame_torsion", "stiffness 0 and damping 0"),
    (lambda t, f: f["connections"]["front"].update(drawbar_length=0.0),
     "units[1].connections.front.drawbar_length", "> 0"),
])
def test_turntable_validation_names_the_field(edit, field, says):
    problems = _bad(edit)
    assert any(p.startswith(field + ":") and says in p for p in problems), problems


def test_turntable_needs_a_solid_axle():
    """An independent suspension under a turntable is refused, naming its type."""
    def edit(truck, trailer):
        sus = trailer["axles"][0]["suspension"]
        for key in ("roll_center_height", "spring_spacing", "axle_roll_inertia", "roll_steer",
                    "camber_set"):
            sus.pop(key, None)
        sus["type"] = "independent"
    problems = _bad(edit)
    assert any(p.startswith("units[1].axles[0].suspension.type: 'solid' on a turntable axle")
               for p in problems), problems
