"""Steady turning of heavy vehicles through the built FMU (fmpy), against closed forms.

Every reference is computed from the event data (engine/data/tractor-semitrailer.json, the
values of docs/reference/tractor-semitrailer.md), never from earlier engine output:

- the tractor-semitrailer's low-speed off-tracking and articulation on a circle, from the
  geometry of each unit's equivalent wheelbase (the tandem drive group, the tridem);
- the roll gradient of a unit on solid axles (the tractor alone), and the roll of each axle
  relative to the body, from the roll-plane balance of the body and its axles.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from support.fmus import event_fmu
from engine.setup.event import TRACTOR_SEMITRAILER_EVENT

G = 9.80665
with open(TRACTOR_SEMITRAILER_EVENT) as f:
    EVENT = json.load(f)
TRACTOR, TRAILER = EVENT["units"]


def cornering_stiffness(tire: dict, load: float) -> float:
    """C_alpha of one tire at ``load``: linear in the sheet's table (identical at both speeds)."""
    return float(np.interp(load, tire["test_loads"], [row[0] for row in tire["cornering_stiffness"]]))


def n_tires(axle: dict) -> int:
    return 4 if axle["dual"] else 2


def run(inst, t_end, control, record, h=0.01):
    """Step the FMU from 0 to t_end, control(t, values) setting the inputs before each step
    (values: the recorded outputs of the previous step, None before the first)."""
    vrs = [inst.vr[n] for n in record]
    rows, values = [], None
    for n in range(round(t_end / h)):
        control(n * h, values)
        inst.fmu.doStep(n * h, h)
        values = dict(zip(record, inst.fmu.getReal(vrs)))
        rows.append([values[k] for k in record])
    return {k: np.array(col) for k, col in zip(record, zip(*rows))}


def speed_loop(inst, unit, speed, gear, steering_wheel, ramp, base, gain):
    """Controls: a gear, a steering-wheel angle ramped in over ``ramp`` s, and a throttle
    proportional to the speed error on top of ``base``."""
    def control(t, values):
        inst.set(f"{unit}.gear", gear)
        inst.set(f"{unit}.steeringWheelAngle", steering_wheel * min(1.0, t / ramp))
        v = speed if values is None else values[f"{unit}.speed"]
        inst.set(f"{unit}.throttle", min(1.0, max(0.0, base + gain * (speed - v))))
    return control


# --------------------------------------------------------------------------------------------
# 1. Low-speed off-tracking and articulation of the tractor-semitrailer on a circle
# --------------------------------------------------------------------------------------------

def static_semitrailer():
    """Static lever-rule loads of the sheet's combination: kingpin load, and the tire loads of
    the drive group (sharing equally) and of the tridem (sharing equally)."""
    x_front = TRACTOR["axles"][0]["x"]
    kingpin_x = TRAILER["connections"]["front"]["point"][0]
    d_drive = np.array([x_front - a["x"] for a in TRACTOR["axles"][1:]])     # behind the front axle
    d_trailer = np.array([kingpin_x - a["x"] for a in TRAILER["axles"]])     # behind the kingpin
    fifth_wheel = x_front - TRACTOR["connections"]["rear"]["point"][0]
    w1 = TRACTOR["sprung_mass"]["mass"] * G
    w2 = TRAILER["sprung_mass"]["mass"] * G
    kingpin = w2 * (d_trailer.mean() - kingpin_x) / d_trailer.mean()
    drive = (w1 * x_front + kingpin * fifth_wheel) / d_drive.mean()
    tridem = w2 - kingpin
    a_drive, a_trailer = TRACTOR["axles"][1], TRAILER["axles"][0]
    fz_drive = (drive / len(d_drive) / 2 + a_drive["unsprung_mass_per_wheel"] * G) / 2
    fz_trailer = tridem / len(d_trailer) / 2 + a_trailer["unsprung_mass_per_wheel"] * G
    return d_drive, d_trailer, fifth_wheel, fz_drive, fz_trailer


def unit_mass_and_cg(unit, distances):
    """Whole-unit mass and CG distance behind the reference point (the front axle or the
    kingpin) from the sprung mass and the axles' unsprung masses."""
    ref = unit["axles"][0]["x"] if unit is TRACTOR else unit["connections"]["front"]["point"][0]
    masses = [unit["sprung_mass"]["mass"]] + [2 * a["unsprung_mass_per_wheel"] for a in unit["axles"]]
    dist = [ref] + list(distances)
    m = sum(masses)
    return m, sum(mi * di for mi, di in zip(masses, dist)) / m


def circle_geometry(r_front: float, speed: float) -> dict:
    """Steady turn of the tractor-semitrailer whose front-axle centre runs on radius r_front.

    Kinematics (small slip angles): each unit turns about the common centre O, which lies on
    the lateral line through the unit's zero-slip point at l behind its reference point; any
    point at s behind the reference point runs on radius sqrt(R^2 + (s - l)^2), R the radius
    of the zero-slip point. Chain: R1 = sqrt(r_front^2 - l1^2); the fifth wheel at c behind the
    front axle, e = c - l1, R_K^2 = R1^2 + e^2; R2^2 = R_K^2 - l2^2; the tridem centre at
    g = d_mean - l2 behind the trailer's zero-slip point, R_gc^2 = R2^2 + g^2.
    Articulation (tractor yaw minus trailer yaw) = the angle at O between the units' radii:
    atan(e / R1) + atan(l2 / R2). Off-tracking = r_front - R_gc.

    Equivalent wheelbase of a group of non-steered axles (Gillespie & Winkler 1978, "On the
    directional response characteristics of heavy trucks"; Winkler 1998, "Simplified analysis
    of the steady-state turning of complex vehicles", VSD 29(3); Winkler & Aurell 1998): the
    axles' slip angles are (d_i - l)/R, their lateral forces C_i (d_i - l)/R toward O, and the
    unit's moment balance places its zero-slip point. About the kingpin (no yaw moment there),
    for the trailer: sum C_i (d_i - l2) d_i / R2 = m2 a2 x2, i.e.

        l2 = (sum C_i d_i^2 - m2 a2 x2 R2) / sum C_i d_i   (equal C_i: sum d_i^2 / sum d_i,
                                                              a tandem L + s^2 / (4 L)),

    and the kingpin carries K = m2 a2 - sum C_i (d_i - l2) / R2 toward O. About the tractor's
    front axle: sum C_j (d_j - l1) d_j / R1 = K cos(articulation) c + m1 a1 x1, i.e.

        l1 = (sum C_j d_j^2 - R1 (K cos(articulation) c + m1 a1 x1)) / sum C_j d_j.

    The trailer's tridem scrub pushes the fifth wheel outward and moves the tractor's
    zero-slip point forward of the drive group's geometric sum d^2 / sum d. a = U^2 / R is the
    units' lateral acceleration (x1, x2: whole-unit CG behind the reference point); as U -> 0
    this is the low-speed (kinematic) limit. C_i: the sheet's cornering stiffness at each
    tire's static lever-rule load, a dual pair counting two tires.
    """
    d_drive, d_trailer, c, fz_drive, fz_trailer = static_semitrailer()
    c_drive = n_tires(TRACTOR["axles"][1]) * cornering_stiffness(TRACTOR["tires"]["drive"], fz_drive)
    c_trailer = n_tires(TRAILER["axles"][0]) * cornering_stiffness(TRAILER["tires"]["trailer"], fz_trailer)
    m1, x1 = unit_mass_and_cg(TRACTOR, d_drive)
    m2, x2 = unit_mass_and_cg(TRAILER, d_trailer)
    l1 = (d_drive ** 2).sum() / d_drive.sum()
    l2 = (d_trailer ** 2).sum() / d_trailer.sum()
    for _ in range(8):      # fixed point in the small coupling terms
        r1 = math.sqrt(r_front ** 2 - l1 ** 2)
        e = c - l1
        r2 = math.sqrt(r1 ** 2 + e ** 2 - l2 ** 2)
        articulation = math.atan2(e, r1) + math.atan2(l2, r2)
        a1 = speed ** 2 / r1
        a2 = a1 * r2 / r1
        l2 = ((d_trailer ** 2).sum() - m2 * a2 * x2 * r2 / c_trailer) / d_trailer.sum()
        kingpin = m2 * a2 - c_trailer / r2 * (d_trailer - l2).sum()
        l1 = ((d_drive ** 2).sum()
              - r1 * (kingpin * math.cos(articulation) * c + m1 * a1 * x1) / c_drive) / d_drive.sum()
    r_group = math.sqrt(r2 ** 2 + (d_trailer.mean() - l2) ** 2)
    return {"articulation": articulation, "offtracking": r_front - r_group, "l1": l1, "l2": l2}


def fit_circle(x, y):
    """Least-squares circle through the points: centre (xc, yc)."""
    a = np.column_stack([2 * x, 2 * y, np.ones_like(x)])
    sol = np.linalg.lstsq(a, x ** 2 + y ** 2, rcond=None)[0]
    return sol[0], sol[1]


def test_low_speed_offtracking_and_articulation_on_a_circle(instance, semitrailer_fmu):
    """2 m/s, gear 1, a constant 1.6 rad at the steering wheel: a 63 m circle.

    The radius keeps every tridem tire in the adhesion (linear) range of the tire model: the
    outer trailer axles scrub at (d_i - l2)/R2 = 1.4 / 62 rad, below mu F_z / (2 C_alpha).
    On a 25 m circle they slide partially and the off-tracking departs from the linear
    geometry by +0.95 % (articulation -0.23 %). 60 s of travel (120 m) settles the
    articulation to 3e-5 rad.
    The paths: the front-axle centre and the tridem centre from each unit's X, Y, yaw and the
    axle's x from its CG.
    """
    speed = 2.0
    inst = instance(semitrailer_fmu).start({"tractor.speed0": speed})
    record = ("tractor.X", "tractor.Y", "tractor.yaw", "trailer.X", "trailer.Y", "trailer.yaw",
              "trailer.articulation", "tractor.speed")
    r = run(inst, 60.0, speed_loop(inst, "tractor", speed, 1, 1.6, 2.0, 0.05, 2.0), record)
    tail = slice(len(r["tractor.X"]) * 3 // 5, None)        # the last 24 s
    yaw1, yaw2 = r["tractor.yaw"][tail], r["trailer.yaw"][tail]
    x_front = TRACTOR["axles"][0]["x"]
    x_group = np.mean([a["x"] for a in TRAILER["axles"]])
    fx = r["tractor.X"][tail] + x_front * np.cos(yaw1)
    fy = r["tractor.Y"][tail] + x_front * np.sin(yaw1)
    gx = r["trailer.X"][tail] + x_group * np.cos(yaw2)
    gy = r["trailer.Y"][tail] + x_group * np.sin(yaw2)
    xc, yc = fit_circle(fx, fy)
    r_front = np.hypot(fx - xc, fy - yc)
    r_group = np.hypot(gx - xc, gy - yc)
    articulation = r["trailer.articulation"][tail]
    assert np.std(r_front) < 1e-4 and np.std(r_group) < 1e-3                  # on circles
    assert np.ptp(articulation) < 1e-4                                         # steady
    speed_measured = float(np.mean(r["tractor.speed"][tail]))
    assert speed_measured == pytest.approx(speed, abs=0.1)
    theory = circle_geometry(float(np.mean(r_front)), speed_measured)
    assert articulation[-1] > 0          # right turn: the tractor's yaw leads the trailer's
    # measured: 0.12277 rad against 0.12311 (-0.27 %); off-tracking 0.6504 m against 0.6495 m
    # (+0.14 %). The U -> 0 limit gives 0.12325 rad and 0.6560 m (the 2 m/s lateral
    # acceleration moves l2 by 4 cm); purely geometric equivalent wheelbases sum d^2 / sum d
    # for both units (the kingpin force left out) give 0.1202 rad and 0.6704 m (2 % and 3 % off).
    assert articulation[-1] == pytest.approx(theory["articulation"], rel=0.01)
    assert float(np.mean(r_front - r_group)) == pytest.approx(theory["offtracking"], rel=0.005)


# --------------------------------------------------------------------------------------------
# 2. Roll gradient of a unit on solid axles: the tractor alone
# --------------------------------------------------------------------------------------------

def tractor_alone() -> dict:
    """The reference event's tractor on its own three axles: no trailer, no rear connection."""
    data = copy.deepcopy(EVENT)
    data["name"] = "reference tractor alone"
    data["units"] = [data["units"][0]]
    data["units"][0]["connections"] = {"front": None, "rear": None}
    return data


@pytest.fixture(scope="module")
def tractor_fmu(fmu_dir):
    return event_fmu(fmu_dir, "tractor-alone", tractor_alone())


def roll_plane(speed: float, yaw_rate: float) -> dict:
    """Steady roll of a unit on solid axles at lateral acceleration a_y = U r (small angles).

    Per axle i: suspension roll stiffness K_s = k_s s^2 / 2 (a spring of rate k_s per side at
    +-s/2) plus the anti-sway bar (0 on this tractor); tire roll stiffness K_t = sum k_t y^2
    over its tires at lateral y (k_t t^2 / 2 for single tires, k_t (t^2 + s_d^2) for duals at
    +-t/2 +- s_d/2); roll-centre height h_rc; sprung share W_i of the lever rule (the drive
    group sharing equally); unsprung mass m_u at the wheel-centre height h_u (the loaded
    radius). The sprung mass (roll phi) is joined to each axle (roll phi_i on its tires) at
    the roll centre, where the axle takes the lateral force F_i = Y_i - m_u a_y, Y_i the axle's
    tire force of the linear bicycle model about the whole CG (the tandem's
    scrub included: Y_j = -C_j (beta + r x_j / U); sum Y = m a_y, sum Y x = 0).
    Moments about a longitudinal line on the ground (outward roll positive), D'Alembert:

        body:   sum K_s,i (phi - phi_i) = m_s a_y h_s - sum F_i h_rc,i + sum W_i (h_s - h_rc,i) phi
        axle i: (K_t,i + K_s,i - W_i h_rc,i - m_u,i g h_u,i) phi_i - K_s,i phi
                    = m_u,i a_y h_u,i + F_i h_rc,i

    (the W terms: the body's weight shifting sideways as it rolls about the roll centres, the
    roll centres moving h_rc phi_i with the axle; the body's CG shift is the share-weighted
    sum). Their sum is the whole vehicle's: overturning moment = sum K_t phi_i less the weights'
    lateral shifts. Solved for phi and phi_i: the roll gradient phi / a_y and each axle's roll
    relative to the body phi - phi_i (K_s,i (phi - phi_i) = the suspension roll moment).
    The textbook form m_s h' / (sum K_s K_t / (K_s + K_t) - m_s g h'), h' the CG over the roll
    axis, leaves out the roll-centre forces' moment F_i h_rc,i on the tires: 5.30e-3 rad per
    m/s^2 here, 23 % below this balance.
    """
    unit = tractor_alone()["units"][0]
    axles = unit["axles"]
    ms, hs = unit["sprung_mass"]["mass"], unit["sprung_mass"]["cg_height"]
    x = np.array([a["x"] for a in axles])
    mu = np.array([2 * a["unsprung_mass_per_wheel"] for a in axles])
    x_group = x[1:].mean()
    w_front = ms * G * (0.0 - x_group) / (x[0] - x_group)
    w = np.array([w_front] + [(ms * G - w_front) / (len(axles) - 1)] * (len(axles) - 1))
    nt = np.array([n_tires(a) for a in axles])
    tires = [unit["tires"][a["tire"]] for a in axles]
    fz = (w + mu * G) / nt
    c = np.array([n * cornering_stiffness(t, f) for n, t, f in zip(nt, tires, fz)])
    h_u = np.array([t["unloaded_radius"] - f / t["radial_stiffness"] for t, f in zip(tires, fz)])

    def tire_roll_stiffness(a, t):
        half = a["track"] / 2
        ys = [half - a["dual_spacing"] / 2, half + a["dual_spacing"] / 2] if a["dual"] else [half]
        return 2 * t["radial_stiffness"] * sum(y * y for y in ys)

    k_t = np.array([tire_roll_stiffness(a, t) for a, t in zip(axles, tires)])
    k_s = np.array([a["suspension"]["spring_rate"] * a["suspension"]["spring_spacing"] ** 2 / 2
                    + a["suspension"]["antisway_roll_stiffness"] for a in axles])
    h_rc = np.array([a["suspension"]["roll_center_height"] for a in axles])
    m = ms + mu.sum()
    xi = x - (mu * x).sum() / m                   # axle x from the whole CG
    ay, rho = speed * yaw_rate, yaw_rate / speed
    cr, xr = c[1:], xi[1:]
    # unknowns Y_front, beta: Y_f + sum Y_j = m a_y, Y_f x_f + sum Y_j x_j = 0
    y_front, beta = np.linalg.solve([[1.0, -cr.sum()], [xi[0], -(cr * xr).sum()]],
                                    [m * ay + (cr * rho * xr).sum(), (cr * rho * xr ** 2).sum()])
    y = np.r_[y_front, -cr * (beta + rho * xr)]
    f = y - mu * ay
    n = len(axles)
    a_mat = np.zeros((n + 1, n + 1))
    rhs = np.zeros(n + 1)
    a_mat[0, 0] = k_s.sum() - (w * (hs - h_rc)).sum()
    a_mat[0, 1:] = -k_s
    rhs[0] = ms * ay * hs - (f * h_rc).sum()
    for i in range(n):
        a_mat[1 + i, 0] = -k_s[i]
        a_mat[1 + i, 1 + i] = k_t[i] + k_s[i] - w[i] * h_rc[i] - mu[i] * G * h_u[i]
        rhs[1 + i] = mu[i] * ay * h_u[i] + f[i] * h_rc[i]
    phi = np.linalg.solve(a_mat, rhs)
    return {"ay": ay, "roll": phi[0], "axle_roll": phi[0] - phi[1:]}


def test_solid_axle_roll_gradient_of_the_tractor_alone(instance, tractor_fmu):
    """15 m/s, gear 8, 0.7 rad at the steering wheel: a_y = 1.24 m/s^2 (0.13 g), steady in 3 s.

    tractor.roll is the body's roll (SAE: right side down positive, so a right turn, a_y > 0,
    rolls it negative); tractor.axle<k>.roll the axle's roll relative to the body (right side
    down positive: the body rolls out more than its axles, so positive).
    """
    speed = 15.0
    inst = instance(tractor_fmu).start({"tractor.speed0": speed})
    axles = [f"tractor.axle{k}.roll" for k in (1, 2, 3)]
    record = ("tractor.speed", "tractor.u", "tractor.r", "tractor.ay", "tractor.roll", *axles)
    r = run(inst, 6.0, speed_loop(inst, "tractor", speed, 8, 0.7, 1.0, 0.3, 1.0), record)
    last = {k: r[k][-1] for k in record}
    assert abs(r["tractor.roll"][-1] - r["tractor.roll"][-100]) < 1e-6        # steady
    theory = roll_plane(last["tractor.u"], last["tractor.r"])
    assert last["tractor.ay"] == pytest.approx(theory["ay"], rel=1e-6)        # a_y = U r (measured 1e-9)
    assert 0.1 * G < last["tractor.ay"] < 0.2 * G
    # measured: -6.850e-3 rad per m/s^2 against 6.820e-3 (+0.43 %)
    assert -last["tractor.roll"] / last["tractor.ay"] == pytest.approx(
        theory["roll"] / theory["ay"], rel=0.015)
    # measured: front 3.247e-3, drive 5.781e-3 and 4.850e-3 rad per m/s^2 against 3.256e-3,
    # 5.744e-3, 4.812e-3 (-0.3 %, +0.6 %, +0.8 %): the drive axles differ by the tandem's scrub
    for name, expected in zip(axles, theory["axle_roll"]):
        assert last[name] / last["tractor.ay"] == pytest.approx(expected / theory["ay"], rel=0.025)
