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

import engine
from engine.setup.collision import unit_box
from engine.setup.derived import body_front
from engine.setup.event import DEFAULT_CRUSH_B, TWO_CARS_EVENT
from support.energy import QUANTITIES, by_unit, mechanical_energy
from support.exteriors import default_box_obj, hood_obj, read_objects
from support.fmus import event_fmu
from support.fronts import front_contact, peak_approach, series_per_area
from support.run import run

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


def _crash(inst, data, t_end, fields, h=0.005):
    """Both cars of ``data`` started where the event puts them on a frictionless road
    (friction multiplier 0), in neutral, stepped at h (5 ms) to t_end; ``fields`` of each."""
    params = {"frictionMultiplier": 0.0}
    for unit in data["units"]:
        n, ini = unit["name"], unit["initial"]
        params.update({f"{n}.X0": ini["X"], f"{n}.Y0": ini["Y"], f"{n}.yaw0": ini["yaw"],
                       f"{n}.speed0": ini["speed"]})
    inst = inst.start(params)

    def neutral(t, i):
        for unit in data["units"]:
            i.set(unit["name"] + ".gear", 0)

    rec = tuple(f"{u['name']}.{k}" for u in data["units"] for k in fields)
    return run(inst, t_end, neutral, h=h, record=rec)


def test_momentum_is_conserved_and_delta_v_in_the_inverse_mass_ratio(instance, two_car_fmu):
    r = _crash(instance(two_car_fmu), DATA, 1.0, ("u", "v", "yaw", "collision.deltaV",
                                                 "collision.maxCrush", "collision.Fx"))
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


# --- a sideswipe: a contact that moves along a side --------------------------------------
SWIPE_V1, SWIPE_V2, SWIPE_YAW = 20.0, 10.0, 0.15
RISE = 1000.0       # J, the largest rise of the mechanical energy above its least so far (374)


def test_a_sideswipe_only_loses_energy(instance, two_car_fmu):
    """The sedan at 20 m/s, turned 0.15 rad towards its heavier copy, which drives at 10 m/s
    beside it, 0.5 m clear, half a car ahead: its front corner strikes the other's side and
    runs along it, the other's rear corner coming into its box through its side. On a
    frictionless road, in neutral, without aerodynamics or rolling resistance, the contact is
    the only force that does work, and it can only take energy out. Each vertex presses on
    the face it entered through (docs/equations.md, "Collisions"): with one face latched for
    the pair at the first contact, the vertices that came in later through the side were metres
    deep along the front's normal at once, and the cars gained 32 kJ in 0.5 s. The energy here
    leaves out the suspensions' and tires' springs, which exchange a little with the bodies."""
    data = copy.deepcopy(DATA)
    width = data["units"][0]["dimensions"]["width"]
    data["units"][0]["initial"] = {"X": 0.0, "Y": 0.0, "yaw": SWIPE_YAW, "speed": SWIPE_V1}
    data["units"][1]["initial"] = {"X": 3.0, "Y": width + 0.5, "yaw": 0.0, "speed": SWIPE_V2}
    r = _crash(instance(two_car_fmu), data, 1.0, QUANTITIES + ("collision.Fy",))
    names = [u["name"] for u in data["units"]]
    energy = mechanical_energy(by_unit(r, names), dict(zip(names, MASSES)),
                               {u["name"]: u["sprung_mass"]["inertia"] for u in data["units"]},
                               data["environment"]["gravity"])
    rise = np.max(energy - np.minimum.accumulate(energy))      # above the least so far
    print(f"sideswipe: the energy falls by {energy[0] - energy[-1]:.0f} J, its largest rise "
          f"{rise:.1f} J")
    assert np.any(r["car.collision.Fy"] != 0.0)          # they met
    assert energy[-1] < energy[0] - 5e3
    assert rise < RISE


# --- a severe side impact ------------------------------------------------------------------
B_FRONT, B_SIDE = DEFAULT_CRUSH_B["front"], DEFAULT_CRUSH_B["side"]     # N/m^2
TBONE_V1, TBONE_V2 = 50.0 / 3.6, 40.0 / 3.6


def _tbone_event():
    """The sedan eastwards at 50 km/h; its copy from its right, northwards at 40 km/h, whose
    front meets the first car's right side at the CG 0.1 s after the start."""
    data = json.loads(open(TWO_CARS_EVENT).read())
    car, car2 = data["units"]
    for unit in (car, car2):
        assert "crush_stiffness" not in unit.get("collision", {})    # the defaults
        unit["aerodynamics"] = []
        for tire in unit["tires"].values():
            tire["rolling_resistance"] = {"sigma0": 0.0, "sigma_v": 0.0}
    d = car2["dimensions"]
    front2 = body_front(car2)
    car["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": TBONE_V1}
    car2["initial"] = {"X": 0.1 * TBONE_V1, "Y": d["width"] / 2.0 + front2 + 0.1 * TBONE_V2,
                       "yaw": -math.pi / 2.0, "speed": TBONE_V2}
    return data


TBONE = _tbone_event()


@pytest.fixture(scope="module")
def tbone_fmu(fmu_dir):
    return event_fmu(fmu_dir, "tbone_collision", TBONE)


def test_a_severe_side_impact_crushes_the_side_by_the_closing_energy_and_stops(instance, tbone_fmu):
    """A T-bone at 50 and 40 km/h on a frictionless road: the striking front stays against the
    struck side (each vertex presses on the face it entered through, not on its nearest face:
    with the nearest face the front passed through the side). The deepest approach is that of
    a mass-spring impact: the closing energy along the normal, (1/2) mu_r v_n^2 (mu_r the
    reduced mass, v_n the striking car's 40 km/h), taken up by the front and the side in
    series across the striking car's width w, k = w B_f B_s / (B_f + B_s):
    delta = v_n sqrt(mu_r / k), which the two faces share as springs in series, each crushed
    to carry the same pressure: the side B_f / (B_f + B_s) of it, the front B_s / (B_f + B_s)
    (docs/equations.md, "Crush that moves the mesh"). The cars part, and the momentum is
    conserved."""
    r = _crash(instance(tbone_fmu), TBONE, 0.6, ("u", "v", "yaw", "collision.maxCrush",
                                                "collision.Fy"))
    m = [u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"])
         for u in TBONE["units"]]
    mu_r = m[0] * m[1] / (m[0] + m[1])
    k = TBONE["units"][1]["dimensions"]["width"] * B_FRONT * B_SIDE / (B_FRONT + B_SIDE)
    delta = TBONE_V2 * math.sqrt(mu_r / k)
    shares = B_FRONT / (B_FRONT + B_SIDE), B_SIDE / (B_FRONT + B_SIDE)     # side, front
    crush = r["car.collision.maxCrush"][-1], r["car2.collision.maxCrush"][-1]
    (vx1, vy1), (vx2, vy2) = _velocity(r, "car"), _velocity(r, "car2")
    px = m[0] * vx1 + m[1] * vx2 - (m[0] * TBONE_V1)
    py = m[0] * vy1 + m[1] * vy2 - (-m[1] * TBONE_V2)
    print(f"T-bone: crush {crush[0]:.4f} {crush[1]:.4f} m, closed form {delta * shares[0]:.4f} "
          f"{delta * shares[1]:.4f} m ({crush[0] / (delta * shares[0]) - 1:+.2%} "
          f"{crush[1] / (delta * shares[1]) - 1:+.2%}); momentum error "
          f"{np.max(np.hypot(px, py)) / (m[0] * TBONE_V1):.2e}")
    assert np.any(r["car.collision.Fy"] != 0.0) and r["car.collision.Fy"][-1] == 0.0   # they parted
    for c, share in zip(crush, shares):     # measured 2.7 and 3.7 % above them
        assert c == pytest.approx(delta * share, rel=0.05)
    assert max(crush) < TBONE["units"][0]["dimensions"]["width"] / 2.0     # not through
    assert np.max(np.hypot(px, py)) < 0.01 * m[0] * TBONE_V1


# --- a central head-on impact: the kinetic energy lost is the crush work -------------------
HEAD_ON_E = 0.3


def _head_on_event():
    """DATA's cars head-on without the offset, both of the first one's mass (so that their
    boxes stand level and the fronts meet across their whole height), the boxes centred on
    the CG height (so that the impact does not pitch them), their bodies without friction on
    each other and without damping on the unloading path, the restitution HEAD_ON_E."""
    data = copy.deepcopy(DATA)
    data["units"][1]["initial"]["Y"] = 0.0
    data["units"][1]["sprung_mass"] = copy.deepcopy(data["units"][0]["sprung_mass"])
    for unit in data["units"]:
        h = unit["sprung_mass"]["cg_height"]
        unit["collision"] = {"friction": 0.0, "damping_ratio": 0.0, "restitution": HEAD_ON_E,
                             "ground_clearance": 0.5 * h, "height": 1.5 * h}
    return data


HEAD_ON = _head_on_event()


@pytest.fixture(scope="module")
def head_on_fmu(fmu_dir):
    return event_fmu(fmu_dir, "head_on_collision", HEAD_ON)


def test_the_kinetic_energy_falls_by_the_crush_work(instance, head_on_fmu):
    """Two fronts, each of stiffness B_f per unit width, meet square across the width w: in
    series k = w B_f / 2, so the deepest approach is delta = (V1 + V2) sqrt(mu_r / k), half of
    it each front's crush. Loading stores (1/2) k delta^2; the unloading line (slope k / e^2)
    returns e^2 of it and the permanent crush keeps the rest. So the kinetic energy falls by
    the crush work (1 - e^2) (1/2) k delta^2, with delta the sum of the two FMU's maxCrush."""
    r = _crash(instance(head_on_fmu), HEAD_ON, 1.0, ("u", "v", "yaw", "collision.maxCrush",
                                                    "collision.Fx"))
    assert np.any(r["car.collision.Fx"] != 0.0) and r["car.collision.Fx"][-1] == 0.0
    m1, m2 = (u["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in u["axles"])
              for u in HEAD_ON["units"])
    mu_r = m1 * m2 / (m1 + m2)
    k = DATA["units"][0]["dimensions"]["width"] * B_FRONT / 2.0
    delta = (V1 + V2) * math.sqrt(mu_r / k)
    crush = r["car.collision.maxCrush"][-1] + r["car2.collision.maxCrush"][-1]
    (vx1, vy1), (vx2, vy2) = _velocity(r, "car"), _velocity(r, "car2")
    ke0 = 0.5 * (m1 * V1 ** 2 + m2 * V2 ** 2)
    ke1 = 0.5 * (m1 * (vx1[-1] ** 2 + vy1[-1] ** 2) + m2 * (vx2[-1] ** 2 + vy2[-1] ** 2))
    work = (1.0 - HEAD_ON_E ** 2) * 0.5 * k * crush ** 2
    rebound = (vx2[-1] - vx1[-1]) / (V1 + V2)
    print(f"head-on: crush {r['car.collision.maxCrush'][-1]:.4f} + "
          f"{r['car2.collision.maxCrush'][-1]:.4f} = {crush:.4f} m, closed form {delta:.4f} m "
          f"({crush / delta - 1:+.2%}); KE lost {ke0 - ke1:.0f} J, "
          f"crush work {work:.0f} J; rebound {rebound:.4f} (e {HEAD_ON_E})")
    assert crush == pytest.approx(delta, rel=0.03)      # measured 0.35 % above it
    assert ke0 - ke1 == pytest.approx(work, rel=0.01)    # measured 0.6 %
    # the separating speed over the closing speed is the restitution, less what the impact
    # leaves in the bodies' pitch and bounce (about 2 % of the closing energy): measured 0.299
    assert rebound == pytest.approx(HEAD_ON_E, rel=0.15)


# --- a taller partner with coarse meshes: the series stiffness over the common area ---------
TALLER = 0.05               # m: car2's box that much taller
CLOSING = 15.0              # m/s


def _taller_event():
    """DATA's cars (car2 the heavier) head-on without the offset, closing at CLOSING, their box
    meshes of about 100 vertices, car2's box TALLER higher than its default."""
    data = copy.deepcopy(DATA)
    car, car2 = data["units"]
    car["initial"]["speed"] = 0.5 * CLOSING
    car2["initial"].update({"Y": 0.0, "speed": 0.5 * CLOSING})
    for unit in data["units"]:
        unit["collision"] = {"mesh_vertices": 100}
    car2["collision"]["height"] = 2.0 * car2["sprung_mass"]["cg_height"] + TALLER
    return data


TALLER_EVENT = _taller_event()


@pytest.fixture(scope="module")
def taller_fmu(fmu_dir):
    return event_fmu(fmu_dir, "taller_partner_collision", TALLER_EVENT)


def test_a_taller_partner_carries_the_series_stiffness_over_the_common_area(instance, taller_fmu):
    """car's front (1.06 m high) into car2's, 5 cm taller, both meshes coarse (3 rows of
    vertices up a front): the deepest mean approach over the area the fronts have in common
    is that of a mass-spring impact, v sqrt(mu_r / k), k = K_1 K_2 / (K_1 + K_2) A with
    K = B / H each front's stiffness per unit area and A that area (docs/equations.md,
    "Collisions"), to 1 % (measured 0.37 % below it). Before each vertex counted its share of
    that area, car2's top row counted nothing (it lies above car's box) and its second row its
    whole cell, and the edge rows came and went with the cars' pitch: 5.7 % deeper (the engine
    run of this event)."""
    poses = ("X", "Y", "Z", "roll", "pitch", "yaw")
    r = _crash(instance(taller_fmu), TALLER_EVENT, 0.25, poses + ("collision.Fx",), h=0.001)
    assert np.any(r["car.collision.Fx"] != 0.0) and r["car.collision.Fx"][-1] == 0.0
    units = engine.load_event(TALLER_EVENT).model.units
    boxes = [unit_box(u) for u in units]
    ks = series_per_area(*(u.collision.crush_stiffness.front / (b[4] - b[3])
                           for u, b in zip(units, boxes)))
    contact = [front_contact([r["car." + k][i] for k in poses], boxes[0],
                             [r["car2." + k][i] for k in poses], boxes[1])
               for i in range(len(r["time"]))]
    area, deepest = max(contact, key=lambda c: c[1])
    closed = peak_approach(CLOSING, *MASSES, ks * area)
    print(f"taller partner: deepest mean approach {deepest:.4f} m over {area:.4f} m^2, closed "
          f"form {closed:.4f} m ({deepest / closed - 1:+.2%})")
    assert deepest == pytest.approx(closed, rel=0.01)


# --- the struck car's exterior an OBJ file: met as its triangles ---------------------------

@pytest.fixture(scope="module")
def head_on_obj_fmu(fmu_dir):
    """HEAD_ON with car2's exterior an OBJ file of its default box mesh (the same vertices)."""
    data = copy.deepcopy(HEAD_ON)
    box = unit_box(engine.load_event(data).model.units[1])
    default_box_obj(fmu_dir / "head-on-car2.obj", box)
    data["units"][1]["collision"]["mesh_file"] = "head-on-car2.obj"
    return event_fmu(fmu_dir, "head_on_obj_collision", data)


def test_a_box_shaped_obj_struck_head_on_is_met_as_the_default_box(instance, head_on_fmu,
                                                                  head_on_obj_fmu):
    """The head-on impact above with car2's exterior an OBJ box of its default box mesh: car's
    vertices meet its triangles (engine.collision.mesh_approach), car2's vertices carry the box
    mesh's cells (engine.setup.collision.vertex_cells). The crush, the kinetic energy after
    and the rebound are the default box's to 1 % (measured: to 5e-5), and the crush the closed
    form's as above."""
    fields = ("u", "v", "yaw", "collision.maxCrush", "collision.Fx")
    runs = [_crash(instance(f), HEAD_ON, 1.0, fields) for f in (head_on_fmu, head_on_obj_fmu)]
    m1, m2 = MASSES[0], MASSES[0]
    figures = []
    for r in runs:
        assert np.any(r["car.collision.Fx"] != 0.0) and r["car.collision.Fx"][-1] == 0.0
        (vx1, vy1), (vx2, vy2) = _velocity(r, "car"), _velocity(r, "car2")
        ke1 = 0.5 * (m1 * (vx1[-1] ** 2 + vy1[-1] ** 2) + m2 * (vx2[-1] ** 2 + vy2[-1] ** 2))
        figures.append((r["car.collision.maxCrush"][-1], r["car2.collision.maxCrush"][-1], ke1,
                        (vx2[-1] - vx1[-1]) / (V1 + V2)))
    k = DATA["units"][0]["dimensions"]["width"] * B_FRONT / 2.0
    delta = (V1 + V2) * math.sqrt(0.5 * m1 / k)
    delta *= 0.5        # each front's share
    (box, obj) = figures
    print("head-on, car2 an OBJ box: crush %.5f %.5f m, KE after %.0f J, rebound %.5f; "
          "default box: %.5f %.5f m, %.0f J, %.5f; closed form %.5f m; largest relative "
          "difference %.1e" % (obj + box + (delta, max(abs(a / b - 1) for a, b in zip(obj, box)))))
    for a, b in zip(obj, box):
        assert a == pytest.approx(b, rel=0.01)
    assert obj[0] == pytest.approx(delta, rel=0.03)


SLOPE = math.radians(30.0)      # the hood's slope from the horizontal
HOOD_DROP = 0.5                 # m: the hood's front edge above the struck box's underbody
RAISE = 0.05                    # m: the striking box's underbody above the hood's front edge
HOOD_SPEED = 1.0                # m/s: car's front stays on the slope, its wheels off car2


def _hood_event(fmu_dir):
    """DATA's cars head-on without the offset, both of car's mass, car2 standing, car at
    HOOD_SPEED from 10 cm before car2's front; car2's exterior its default box with the front
    top cut by a slope of SLOPE from HOOD_DROP above its underbody (an OBJ file), car's box
    from RAISE above the hood's front edge, 0.8 m high (so that only car's vertices meet car2's
    slope), no friction between them."""
    data = copy.deepcopy(DATA)
    car, car2 = data["units"]
    car2["sprung_mass"] = copy.deepcopy(car["sprung_mass"])
    box_car, box = (unit_box(u) for u in engine.load_event(data).model.units)
    car2["initial"].update({"X": box_car[0] + box[0] + 0.1, "Y": 0.0, "speed": 0.0})
    car["initial"]["speed"] = HOOD_SPEED
    hood_z = box[4] - HOOD_DROP
    hood_obj(fmu_dir / "hood-car2.obj", box, hood_z, SLOPE)
    bottom = car["sprung_mass"]["cg_height"] - (hood_z - RAISE)    # above ground
    car["collision"] = {"ground_clearance": bottom, "height": bottom + 0.8, "friction": 0.0}
    car2["collision"] = {"mesh_file": "hood-car2.obj", "friction": 0.0}
    return data


@pytest.fixture(scope="module")
def hood_fmu(fmu_dir):
    return event_fmu(fmu_dir, "hood_collision", _hood_event(fmu_dir))


def test_a_sloped_hood_pushes_the_striking_front_up_along_its_normal(instance, hood_fmu, fmu_dir):
    """car's front, its underbody above the hood's front edge of car2, runs into car2's sloped
    front top: each of car's vertices under the slope presses along the slope's outward normal
    (sin a, 0, -cos a) in car2's frame, so car2's collision force, vehicle-fixed, has
    Fz / Fx = -cot a at every step (a box would give Fz = 0 there), and car is pushed up
    (its Fz < 0)."""
    r = _crash(instance(hood_fmu), _hood_event(fmu_dir), 2.5,
               ("u", "v", "yaw", "collision.Fx", "collision.Fz"))
    fx, fz = r["car2.collision.Fx"], r["car2.collision.Fz"]
    on = fx != 0.0
    assert on.sum() > 10 and not on[-1]        # they met, and parted
    ratio = fz[on] / fx[on]
    print(f"hood: {on.sum()} steps in contact, car2 Fx down to {fx.min():.0f} N; Fz / Fx from "
          f"{ratio.min():.9f} to {ratio.max():.9f}, -cot a {-1.0 / math.tan(SLOPE):.9f}; car Fz "
          f"down to {r['car.collision.Fz'].min():.0f} N")
    assert ratio == pytest.approx(-1.0 / math.tan(SLOPE), rel=1e-9)
    assert np.all(fx[on] < 0.0) and np.all(r["car.collision.Fz"][on] < 0.0)


# --- a second impact on the fronts the first one crushed -----------------------------------
SECOND_V = 6.0               # m/s: car's speed into car2, which stands braked
SECOND_BRAKE = 400.0         # N: car2's brake pedal force
SECOND_THROTTLE = 0.15       # car's throttle in first gear once the two have parted
SECOND_H = 0.001             # s: the communication step


def _rotation(roll, pitch, yaw):
    """Body to earth of the Euler angles in yaw, pitch, roll order (SAE J670)."""
    from engine.kinematics import euler_trig, rotation_vehicle_to_earth
    R = np.zeros((3, 3))
    rotation_vehicle_to_earth(*euler_trig(roll, pitch, yaw), R)
    return R


def _front_set(made, crushed):
    """The front face's vertices as made (y, z) and each one's permanent set (m): how far the
    crush moved it back."""
    front = made[:, 0] > made[:, 0].max() - 1e-9
    return made[front, 1:3], made[front, 0] - crushed[front, 0], made[:, 0].max()


def _fronts(data, blob, units):
    """Per unit of ``units``, :func:`_front_set` of event ``data``'s exteriors as made (at the
    start, before any crush) and as crushed in the development FMU's serialised state ``blob`` (the ``exterior``
    command's code)."""
    from simon_fmu.tools.exterior import exteriors_obj
    from simon_fmu.vehicle.slave import state_vector
    event = engine.load_event(data)
    made = read_objects(exteriors_obj(event, engine.Simulation(event, warn=False).y))
    crushed = read_objects(exteriors_obj(event, state_vector(blob)))
    return {u: _front_set(made[u][0], crushed[u][0]) for u in units}


def _bilinear(nodes, sets, y, z):
    """The set at (y, z) interpolated over a front's grid of nodes (bilinear), held at its
    edges."""
    ys, zs = np.unique(nodes[:, 0]), np.unique(nodes[:, 1])
    grid = np.empty((ys.size, zs.size))
    for (ny, nz), s in zip(nodes, sets):
        grid[np.searchsorted(ys, ny), np.searchsorted(zs, nz)] = s
    y, z = min(max(y, ys[0]), ys[-1]), min(max(z, zs[0]), zs[-1])
    j = min(max(np.searchsorted(ys, y, side="right") - 1, 0), ys.size - 2)
    k = min(max(np.searchsorted(zs, z, side="right") - 1, 0), zs.size - 2)
    tj, tk = (y - ys[j]) / (ys[j + 1] - ys[j]), (z - zs[k]) / (zs[k + 1] - zs[k])
    low = grid[j, k] + tj * (grid[j + 1, k] - grid[j, k])
    high = grid[j, k + 1] + tj * (grid[j + 1, k + 1] - grid[j, k + 1])
    return low + tk * (high - low)


def _deepest_gap(pose, fronts, pair=("car", "car2")):
    """The largest overlap of the two crushed fronts of ``pair`` at the cars' poses: over each
    car's front vertices, how far it is into the other's front as made less its own set and
    the other's set interpolated where it presses (> 0: the crushed surfaces overlap there)."""
    deepest = -np.inf
    for a, b in (pair, pair[::-1]):
        (nodes_a, set_a, xa), (nodes_b, set_b, xb) = fronts[a], fronts[b]
        ra, rb = _rotation(*pose[a][3:]), _rotation(*pose[b][3:])
        for (y, z), s in zip(nodes_a, set_a):
            p = rb.T @ (pose[a][:3] + ra @ np.array([xa, y, z]) - pose[b][:3])
            deepest = max(deepest, xb - p[0] - s - _bilinear(nodes_b, set_b, p[1], p[2]))
    return deepest


def test_a_second_impact_meets_the_fronts_where_the_first_left_them(instance, head_on_fmu):
    """HEAD_ON's cars on a road with friction: car at SECOND_V into car2, which stands braked,
    in neutral; once they have parted, car drives back into car2 in first gear. Each front keeps
    its own permanent set (1 - e^2) delta_max, so the second contact begins where the fronts as
    the crush left them meet: computed here from the cars' poses (the FMU's outputs) and their
    crushed exteriors (``simon_fmu exterior``'s OBJ of the state at parting), at the step
    before it no vertex of either front reaches the other's crushed surface and at its first
    step one does, by less than the closing speed times the step. The boxes as made then
    overlap by about the two sets (15 cm), not by nothing."""
    car = HEAD_ON["units"][0]
    params = {"car.X0": 0.0, "car.speed0": SECOND_V, "car2.X0": car["dimensions"]["length"] + 1.0,
              "car2.Y0": 0.0, "car2.yaw0": math.pi, "car2.speed0": 0.0}
    inst = instance(head_on_fmu).start(params)
    pose_names = [f"{u}.{k}" for u in ("car", "car2") for k in ("X", "Y", "Z", "roll", "pitch",
                                                                    "yaw")]
    vrs = [inst.vr[n] for n in pose_names + ["car.collision.Fx", "car.u", "car2.u"]]
    rows, blob, parted, touched = [], None, False, False
    for n in range(int(round(4.0 / SECOND_H))):
        inst.set("car2.gear", 0)
        inst.set("car2.brakePedalForce", SECOND_BRAKE)
        inst.set("car.gear", 1 if parted else 0)
        inst.set("car.throttle", SECOND_THROTTLE if parted else 0.0)
        inst.fmu.doStep(n * SECOND_H, SECOND_H)
        rows.append(inst.fmu.getReal(vrs))
        fx = rows[-1][12]
        if not parted and touched and fx == 0.0:
            parted = True
            blob = inst.fmu.serializeFMUstate(inst.fmu.getFMUstate())
            first = len(rows)
        touched = touched or fx != 0.0
        if parted and fx != 0.0:
            break
    assert parted and rows[-1][12] != 0.0, "the second contact did not come"
    fronts = _fronts(HEAD_ON, blob, ("car", "car2"))
    pose = [{"car": np.array(r[0:6]), "car2": np.array(r[6:12])} for r in rows[-2:]]
    before, at = _deepest_gap(pose[0], fronts), _deepest_gap(pose[1], fronts)
    closing = rows[-1][13] + rows[-1][14]
    overlap = 2.0 * fronts["car"][2] - (rows[-1][6] - rows[-1][0])
    sets = fronts["car"][1].min() + fronts["car2"][1].min()
    print(f"second contact {(len(rows) - first) * SECOND_H:.3f} s after parting, closing at "
          f"{closing:.3f} m/s: crushed fronts {before * 1e3:+.3f} mm apart the step before, "
          f"{at * 1e3:+.3f} mm into each other at it; the boxes as made overlap {overlap:.4f} m, "
          f"the sets {fronts['car'][1].min():.4f} to {fronts['car'][1].max():.4f} and "
          f"{fronts['car2'][1].min():.4f} to {fronts['car2'][1].max():.4f} m")
    # measured: -1.528 mm the step before, +0.087 mm at it, closing at 1.632 m/s (1.6 mm a step)
    assert before <= 0.0 < at <= closing * SECOND_H
    # measured 0.1372 m against the least sets' sum 0.1458 m: the fronts pitch a little as car
    # drives (the top rows, 0.3 m above the CG, meet first)
    assert overlap == pytest.approx(sets, rel=0.1)


# --- a second impact on a crushed front by a third car --------------------------------------
THIRD_X = -12.0              # m: where car3 waits on the line, braked
THIRD_REVERSE = 0.2          # car's throttle in reverse, once it has parted from car2
THIRD_LOCK = 6.0             # rad: car's steering-wheel angle as it backs out
THIRD_ASIDE = 3.5            # m: car is clear of the line from this lateral offset on
THIRD_THROTTLE = 0.15        # car3's throttle in first gear


def _third_event():
    """HEAD_ON's cars and a third, car3, a copy of car waiting on the same line THIRD_X
    behind car's start, facing car2."""
    data = copy.deepcopy(HEAD_ON)
    car3 = copy.deepcopy(data["units"][0])
    car3["name"] = "car3"
    car3["initial"] = {"X": THIRD_X, "Y": 0.0, "yaw": 0.0, "speed": 0.0}
    data["units"].append(car3)
    return data


THIRD = _third_event()


@pytest.fixture(scope="module")
def third_fmu(fmu_dir):
    return event_fmu(fmu_dir, "third_car_collision", THIRD)


def test_a_third_car_meets_the_front_the_first_one_crushed(instance, third_fmu):
    """car at SECOND_V into car2, which stands braked; once they have parted, car backs out
    of the line on full lock and stops aside, and car3, which waited braked on the line behind
    it, drives into car2's crushed front in first gear. The second contact is a different
    vehicle's: it begins where car3's front as made meets car2's front as car's impact left it,
    computed here as for the second impact by the same car (from the FMU's poses and the
    crushed exteriors of the state once car is aside): at the step before it no vertex of
    either front reaches the other's crushed surface and at its first step one does, by less
    than the closing speed times the step; the boxes as made then overlap by about car2's set,
    not by nothing."""
    car = THIRD["units"][0]
    params = {"car.X0": 0.0, "car.speed0": SECOND_V, "car2.X0": car["dimensions"]["length"] + 1.0,
              "car2.Y0": 0.0, "car2.yaw0": math.pi, "car2.speed0": 0.0, "car3.X0": THIRD_X}
    inst = instance(third_fmu).start(params)
    units = ("car", "car2", "car3")
    pose_names = [f"{u}.{k}" for u in units for k in ("X", "Y", "Z", "roll", "pitch", "yaw")]
    fx_names = [f"{u}.collision.Fx" for u in units]
    vrs = [inst.vr[n] for n in pose_names + fx_names + ["car2.u", "car3.u"]]
    fx = slice(18, 21)
    rows, blob, phase, touched = [], None, "first", False
    for n in range(int(round(20.0 / SECOND_H))):
        inst.set("car2.gear", 0)
        inst.set("car2.brakePedalForce", SECOND_BRAKE)
        if phase == "first":          # car into car2 in neutral, car3 waiting braked
            inst.set("car.gear", 0)
            inst.set("car3.gear", 0)
            inst.set("car3.brakePedalForce", SECOND_BRAKE)
        elif phase == "aside":        # car backs out on full lock
            inst.set("car.gear", -1)
            inst.set("car.throttle", THIRD_REVERSE)
            inst.set("car.steeringWheelAngle", THIRD_LOCK)
        else:                         # car stands aside, braked; car3 drives into car2
            inst.set("car.gear", 0)
            inst.set("car.throttle", 0.0)
            inst.set("car.brakePedalForce", SECOND_BRAKE)
            inst.set("car3.gear", 1)
            inst.set("car3.brakePedalForce", 0.0)
            inst.set("car3.throttle", THIRD_THROTTLE)
        inst.fmu.doStep(n * SECOND_H, SECOND_H)
        rows.append(inst.fmu.getReal(vrs))
        f = np.asarray(rows[-1][fx])
        if phase == "first":
            if touched and f[0] == 0.0:
                phase = "aside"
            touched = touched or f[0] != 0.0
        elif phase == "aside" and abs(rows[-1][1]) > THIRD_ASIDE:
            phase = "third"
            # car2's front as car's impact left it, car3's as made
            blob = inst.fmu.serializeFMUstate(inst.fmu.getFMUstate())
            first = len(rows)
        elif phase == "third" and any(f != 0.0):
            break
    assert phase == "third" and rows[-1][20] != 0.0, "car3 did not reach car2"
    assert rows[-1][18] == 0.0, "car was not clear of the line"
    fronts = _fronts(THIRD, blob, ("car2", "car3"))
    pose = [{u: np.array(r[6 * i:6 * i + 6]) for i, u in enumerate(units)} for r in rows[-2:]]
    before, at = (_deepest_gap(p, fronts, ("car3", "car2")) for p in pose)
    closing = rows[-1][21] + rows[-1][22]
    overlap = fronts["car2"][2] + fronts["car3"][2] - (rows[-1][6] - rows[-1][12])
    set2, set3 = fronts["car2"][1], fronts["car3"][1]
    print(f"car3 reached car2 {(len(rows) - first) * SECOND_H:.3f} s after car was aside "
          f"(car at Y {rows[first - 1][1]:.2f} m), closing at {closing:.3f} m/s: crushed fronts "
          f"{before * 1e3:+.3f} mm apart the step before, {at * 1e3:+.3f} mm into each other at "
          f"it; the boxes as made overlap {overlap:.4f} m, car2's set {set2.min():.4f} to "
          f"{set2.max():.4f} m, car3's {set3.min():.4f} to {set3.max():.4f} m")
    assert np.all(set3 == 0.0) and set2.min() > 0.0
    # measured: -1.538 mm the step before, +1.707 mm at it, closing at 3.245 m/s (3.2 mm a
    # step); car's impact had moved car2's front back by 73 to 99 mm
    assert before <= 0.0 < at <= closing * SECOND_H
    # measured 0.0726 m against car2's least set 0.0729 m
    assert overlap == pytest.approx(set2.min(), rel=0.02)
