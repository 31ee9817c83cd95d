"""Curbs, steps and potholes through the built FMU (fmpy): the tread's envelope of a mesh or
OpenCRG road (docs/equations.md, "Tread envelope on mesh and OpenCRG roads").

The references are independent of the engine: the tire's load on a slow roll onto a step from
the geometry of a disc over a corner in closed form (the area of the disc below the road, the
circular segment of that area, Eq. 93 at its depth) at the wheel centre the FMU's body and
jounce outputs place; the tire's range (its max_deflection) and the jump a point contact would
make at a step (K_T times the step) from the tire data; the road's levels from the meshes the
tests write; the mean deceleration of rollovers, 0.4 to 0.5 g (Rose and Beauchamp, SAE
2009-01-0093; tests/test_severe_events_fmu.py).
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from engine.setup.collision import unit_box
from support.curbs import (CURB_Y, X_STEP, curb_along, pothole, radial_load, segment_depth, step,
                           step_area)
from support.fmus import event_fmu
from support.frames import rotation
from support.roads import grid_crg, polygon_obj
from support.run import run
from support.sedan import A_S, DATA, EV, G, TIRE

R_U = TIRE["unloaded_radius"]
K_T = TIRE["radial_stiffness"]
TRACK = EV["axles"][0]["track"]
WHEEL = "car.axle1.left"                  # at vehicle y = -TRACK / 2
BODY = ("car.X", "car.Y", "car.Z", "car.roll", "car.pitch", "car.yaw", "car.u", "car.v",
        "car.speed", "car.collision.maxCrush")
TIRES = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]


def _mesh_event(fmu_dir, name, polygons, collisions=True):
    data = copy.deepcopy(DATA)
    obj = polygon_obj(fmu_dir / f"{name}.obj", polygons)
    data["environment"]["terrain"] = {"type": "mesh", "file": str(obj), "materials": {}}
    data["units"][0]["collision"]["enabled"] = collisions
    return event_fmu(fmu_dir, name, data)


def _wheel_centres(r, first):
    """Earth X and Z of the front left wheel's centre per sample: the body's pose and the
    wheel's jounce, its height in the body at zero jounce from the start on level road (its
    centre the unloaded radius less its deflection above the road)."""
    xw, yw = A_S, -0.5 * TRACK
    R0 = rotation(first["car.roll"], first["car.pitch"], first["car.yaw"])
    z0 = (-(R_U - first[f"{WHEEL}.deflection"]) - first["car.Z"] - R0[2, 0] * xw
          - R0[2, 1] * yw) / R0[2, 2]
    X, Z = [], []
    for i in range(len(r["time"])):
        R = rotation(r["car.roll"][i], r["car.pitch"][i], r["car.yaw"][i])
        c = R @ (xw, yw, z0 - r[f"{WHEEL}.jounce"][i])
        X.append(r["car.X"][i] + c[0])
        Z.append(r["car.Z"][i] + c[2])
    return np.array(X), np.array(Z)


def test_the_closed_form_is_the_segment_on_level_road():
    """On level road (no step ahead) the area is the circular segment of the deflection."""
    depth = 0.02
    level = segment_depth(R_U, step_area(R_U, R_U - depth, 10.0, 0.03))
    assert level == pytest.approx(depth, rel=1e-12)
    # ... and wholly on the road above, the segment of the deflection plus the step
    above = segment_depth(R_U, step_area(R_U, R_U - depth, -R_U, 0.03))
    assert above == pytest.approx(depth + 0.03, rel=1e-12)


@pytest.fixture(scope="module")
def step3_fmu(fmu_dir):
    return _mesh_event(fmu_dir, "step3cm", step(0.03))


def test_a_slow_roll_onto_a_step_loads_the_tire_as_a_disc_over_its_corner(instance, step3_fmu):
    """The sedan rolls in neutral at 1 m/s onto a 3 cm step: the front tire's load, from its
    static value up as the step's corner enters the tire's circle (its unloaded radius) ahead
    of the wheel centre, follows the closed form at the wheel centre where the outputs put it
    (the point contact jumps by K_T h = 4.7 kN as the centre passes the edge)."""
    h = 0.03
    inst = instance(step3_fmu).start({"car.speed0": 1.0})
    first = {n: inst.get(n) for n in BODY + (f"{WHEEL}.deflection",)}
    record = BODY + tuple(f"{WHEEL}.{q}" for q in ("jounce", "Fz", "deflection"))
    r = run(inst, 3.0, lambda t, i: i.set("car.gear", 0), h=0.002, record=record)
    xw, zw = _wheel_centres(r, first)
    edge = X_STEP - xw
    over = np.abs(edge) < R_U                          # the corner within the tire's reach
    assert over.sum() > 100 and xw.max() > X_STEP + R_U  # the front wheel rolled onto the step
    ref = np.array([radial_load(segment_depth(R_U, step_area(R_U, -z, e, h)))
                    for z, e in zip(zw[over], edge[over])])
    got = r[f"{WHEEL}.Fz"][over]
    rise = ref.max() - ref.min()
    err = np.abs(got - ref).max()
    # where the load starts to rise: the corner meets the circle at sqrt(r^2 - (H - h)^2) ahead
    touch = edge[over][np.argmax(ref > ref[0] + 1.0)]
    seen = edge[over][np.argmax(got > got[0] + 1.0)]
    print(f"load {got.min():.0f} .. {got.max():.0f} N over the step (closed form "
          f"{ref.min():.0f} .. {ref.max():.0f} N), largest difference {err:.3g} N "
          f"({err / rise:.2e} of the rise); the rise starts {seen:.4f} m ahead of the centre, "
          f"closed form {touch:.4f} m; largest change in 2 ms {np.abs(np.diff(got)).max():.0f} N")
    assert err < 1e-3 * rise
    assert seen == pytest.approx(touch, abs=0.005)


def _peaks(inst, t_end, wheels=TIRES):
    record = tuple(f"{w}.{q}" for w in wheels for q in ("Fz", "deflection"))
    r = run(inst, t_end, h=0.001, record=record + ("car.u",))
    out = {}
    for w in wheels:
        fz = r[f"{w}.Fz"]
        out[w] = (fz.max(), r[f"{w}.deflection"].max(), np.abs(np.diff(fz)).max())
    return out, r


def _within_range(peaks, label, h):
    """Each tire's deflection below its max_deflection, and its load's largest change in a step
    (1 ms) below a tenth of the jump K_T h a point contact makes at a step of h."""
    for w, (fz, defl, jump) in peaks.items():
        print(f"{label}, {w}: peak load {fz:.0f} N, deflection {defl * 1e3:.1f} mm, largest "
              f"change in 1 ms {jump:.0f} N (a point contact's jump {K_T * h:.0f} N)")
        assert defl < TIRE["max_deflection"]
        assert jump < 0.1 * K_T * h


def test_a_3cm_step_at_50_kmh_loads_the_tires_within_their_range(instance, step3_fmu):
    """Each tire's deflection stays below its max_deflection, and its load changes by at most a
    tenth of the jump K_T h a point contact makes in one step (1 ms)."""
    peaks, _ = _peaks(instance(step3_fmu).start({"car.speed0": 50.0 / 3.6}), 0.8)
    _within_range(peaks, "3 cm step at 50 km/h", 0.03)


def test_a_pothole_at_50_kmh_loads_the_tires_within_their_range(instance, fmu_dir):
    """A pothole 5 cm deep, 30 cm long and 1 m wide under the left wheels: as the 3 cm step."""
    d = 0.05
    y = -0.5 * TRACK
    fmu = _mesh_event(fmu_dir, "pothole", pothole(d, X_STEP, 0.3, y - 0.5, y + 0.5))
    peaks, r = _peaks(instance(fmu).start({"car.speed0": 50.0 / 3.6}), 0.8)
    _within_range(peaks, "pothole at 50 km/h", d)
    assert r[f"{WHEEL}.Fz"].min() < 0.5 * r[f"{WHEEL}.Fz"][0]     # it did meet the hole


def test_a_15cm_curb_at_10_kmh_is_climbed(instance, fmu_dir):
    """Struck straight on at 10 km/h in neutral, the curb's edge pushes the wheels back and up:
    both axles climb it and the car rolls on, its CG the curb's height higher."""
    h = 0.15
    fmu = _mesh_event(fmu_dir, "curb15cm", step(h))
    inst = instance(fmu).start({"car.speed0": 10.0 / 3.6})
    z0 = inst.get("car.Z")
    peaks, r = _peaks(inst, 4.0, wheels=(WHEEL, "car.axle2.left"))
    for w, (fz, defl, jump) in peaks.items():
        print(f"15 cm curb at 10 km/h, {w}: peak load {fz:.0f} N, deflection {defl * 1e3:.1f} "
              f"mm, largest change in 1 ms {jump:.0f} N")
    rear = inst.get("car.X") + EV["axles"][1]["x"]
    print(f"speed {r['car.u'][0]:.2f} -> {r['car.u'][-1]:.2f} m/s, the rear axle "
          f"{rear - X_STEP:.2f} m past the curb, the CG {z0 - inst.get('car.Z'):.4f} m higher")
    assert rear > X_STEP + R_U                                     # the rear wheels are on it
    assert inst.get("car.Z") == pytest.approx(z0 - h, abs=2e-3)


def test_a_1m_step_of_a_crg_road_stops_the_tires_without_leaving_the_road(instance, fmu_dir):
    """An OpenCRG road rising 1 m within one cell (its triangles there are steeper than 45
    degrees: standing faces, no road): the tires meet the face through their envelope (the
    body's collisions off, so that they reach it) and the car stops short of it and rolls back,
    without an error (the point contact found no road over the face)."""
    start = -15.0                     # earth X of the road's start (it bounces back a long way)
    crg = grid_crg(fmu_dir / "step1m.crg",
                   lambda u, v: np.where(u > X_STEP + 0.05 - start, 1.0, 0.0),
                   (0.0, 40.0), (-4.0, 4.0), (400, 16))
    data = copy.deepcopy(DATA)
    data["environment"]["terrain"] = {"type": "crg", "file": str(crg),
                                      "origin": [start, 0.0, 0.0]}
    data["units"][0]["collision"]["enabled"] = False
    inst = instance(event_fmu(fmu_dir, "crg_step1m", data)).start({"car.speed0": 10.0 / 3.6})
    r = run(inst, 3.0, h=0.01, record=("car.X", "car.u", f"{WHEEL}.Fz", f"{WHEEL}.deflection"))
    face = X_STEP + 0.05
    print(f"1 m crg step: front axle at most {face - (r['car.X'].max() + A_S):.3f} m short of "
          f"the face, peak load {r[f'{WHEEL}.Fz'].max():.0f} N, deflection "
          f"{r[f'{WHEEL}.deflection'].max() * 1e3:.0f} mm; speed {r['car.u'][-1]:.2f} m/s at the "
          f"end")
    assert len(r["time"]) == 300
    assert r["car.X"].max() + A_S < face
    assert r["car.u"][-1] < 0.0


# --- a tripped rollover: sliding sideways into a curb --------------------------------------

def _corner_depth(r, h):
    """Per sample, how far the body box's deepest corner lies below the road under it (the
    road h higher beyond the curb)."""
    xf, xr, yh, zt, zb, yc = unit_box(EV)
    c = np.array([(x, y, z) for x in (xf, xr) for y in (yc - yh, yc + yh) for z in (zt, zb)])
    out = []
    for i in range(len(r["time"])):
        p = c @ rotation(r["car.roll"][i], r["car.pitch"][i], r["car.yaw"][i]).T
        p += (r["car.X"][i], r["car.Y"][i], r["car.Z"][i])
        out.append((p[:, 2] - np.where(p[:, 1] >= CURB_Y, -h, 0.0)).max())
    return np.array(out)


def test_a_car_sliding_sideways_into_a_curb_trips_and_rolls_to_rest(instance, fmu_dir):
    """The sedan sliding sideways at 40 km/h into a 15 cm curb (a mesh road with a standing
    face) trips over it and rolls on to rest, its body never further below the road than its
    crush. The trip: the first step at which a leading tire's road rises under its tread (its
    contactZ up by 5 mm)."""
    h = 0.15
    fmu = _mesh_event(fmu_dir, "curb_trip", curb_along(h))
    inst = instance(fmu).start({"car.speed0": 0.0, "car.lateralSpeed0": 40.0 / 3.6})
    r = run(inst, 8.0, h=0.005, record=BODY + tuple(f"{w}.contactZ" for w in TIRES))
    t, roll, speed = r["time"], r["car.roll"], r["car.speed"]
    assert speed[t > 7.5].max() < 0.1                                      # at rest
    trip = int(np.argmax(np.min([r[f"{w}.contactZ"] for w in TIRES], axis=0) < -0.005))
    rest = int(np.nonzero(speed >= 0.1)[0].max()) + 1
    path = np.hypot(np.diff(r["car.X"][trip:rest + 1]), np.diff(r["car.Y"][trip:rest + 1])).sum()
    v_trip = speed[trip]
    decel = v_trip ** 2 / (2.0 * path) / G
    quarter_turns = round(abs(roll[-1]) / (0.5 * math.pi))     # at rest: on wheels, side or roof
    roll45 = int(np.argmax(np.abs(roll) > math.radians(45.0)))
    path45 = np.hypot(np.diff(r["car.X"][roll45:rest + 1]),
                      np.diff(r["car.Y"][roll45:rest + 1])).sum()
    depth = _corner_depth(r, h)
    crush = r["car.collision.maxCrush"].max()
    print(f"tripped at {t[trip]:.3f} s at {v_trip * 3.6:.1f} km/h; at rest at {t[rest]:.2f} s, "
          f"{path:.2f} m from the trip, after {math.degrees(roll[-1]):.0f} degrees of roll "
          f"({quarter_turns} quarter turns), {r['car.Y'][-1] - CURB_Y:.2f} m beyond the curb; "
          f"mean deceleration {decel:.3f} g over the distance, "
          f"{v_trip / (t[rest] - t[trip]) / G:.3f} g over the time (from the roll's 45 degrees "
          f"at {speed[roll45] * 3.6:.1f} km/h: "
          f"{speed[roll45] ** 2 / (2.0 * path45) / G:.3f} g over {path45:.2f} m); deepest corner "
          f"{depth.max():.3f} m below the road, crush {crush:.3f} m")
    assert v_trip > 38.0 / 3.6                     # it met the curb at about 40 km/h
    assert quarter_turns >= 2                      # on its side at least: it rolled
    assert depth.max() <= crush + 0.01
    # the staged tests' 0.4 to 0.5 g, with the spread of real rollovers (0.2 to 0.6 g) and the
    # curb's blow at the trip
    assert 0.3 < decel < 0.75
