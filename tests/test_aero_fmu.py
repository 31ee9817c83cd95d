"""Aerodynamic surfaces and devices through the built FMU (fmpy), against closed forms.

The events are the default car's, with other aerodynamic entries. The car stands still in a
steady wind of speed V, so the relative wind is the wind. A surface the wind strikes takes
F = 1/2 rho C_d A V^2 along its own axis; a device's lift is L = 1/2 rho C_L A V^2 across
the wind. At steady state the tires carry it: the lateral forces sum to -F, split between the
axles by the lever rule about the centre of pressure; the vertical loads change by L, split
the same way.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import engine
from support.fmus import event_fmu
from support.run import run
from support.sedan import RHO, static_loads

DATA = json.loads(engine.load_event().to_json())
CAR = DATA["units"][0]
ENV = DATA["environment"]
G = ENV["gravity"]
A_F = CAR["axles"][0]["x"]                  # sprung CG to front axle
B_R = -CAR["axles"][1]["x"]                 # sprung CG to rear axle
WB = A_F + B_R
FRONT = [f"car.axle1.{s}" for s in ("left", "right")]
REAR = [f"car.axle2.{s}" for s in ("left", "right")]
AERO = [f"car.aero.{k}" for k in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]

WIND = 20.0
#: wind from the car's left: from earth -Y (the car faces +X), blowing towards +Y
FROM_LEFT = -math.pi / 2
#: wind from straight ahead: from earth +X
FROM_AHEAD = 0.0

SIDE = {"name": "left", "drag_coefficient": 1.0, "area": 4.0, "center_of_pressure": [0.3, 0.0, -0.2]}
WING = {"name": "device1", "drag_coefficient": 0.0, "lift_coefficient": -1.5, "area": 1.0,
        "center_of_pressure": [-1.8, 0.0, -0.5]}


def _event(entries):
    data = copy.deepcopy(DATA)
    data["units"][0]["aerodynamics"] = entries
    return data


@pytest.fixture(scope="module")
def side_fmu(fmu_dir):
    """The default car (its front surface) with a left side surface."""
    return event_fmu(fmu_dir, "aero_side", _event(CAR["aerodynamics"] + [SIDE]))


@pytest.fixture(scope="module")
def wing_fmu(fmu_dir):
    """The default car with a rear wing (downforce, no drag) in place of its front surface."""
    return event_fmu(fmu_dir, "aero_wing", _event([WING]))


def _in_wind(instance, fmu, speed, direction, t_end, record, speed0=0.0):
    inst = instance(fmu).start({"car.speed0": speed0})

    def wind(t, i):
        i.set("windSpeed", speed)
        i.set("windDirection", direction)

    return run(inst, t_end, wind, record=tuple(record))


def test_a_side_surface_in_a_crosswind_loads_the_tires_by_half_rho_cd_a_v2(instance, side_fmu):
    """At rest in a 20 m/s wind from the left: the left surface takes F = 1/2 rho C_d A V^2
    to the right, the front surface nothing (the wind does not strike it). The tires hold the
    car with sum F_y = -F, the front axle's share (x_cp + b)/l by the lever rule. The side force
    rolls the body by phi (0.9 deg here): the body-fixed wind is V cos(phi), and the force
    along the body's y axis has the ground-plane part cos(phi) of it, so to second order in phi
    the tires carry F cos^3(phi)."""
    fy = [w + ".Fy" for w in FRONT + REAR]
    r = _in_wind(instance, side_fmu, WIND, FROM_LEFT, 4.0, fy + AERO + ["car.roll"])
    force = 0.5 * RHO * SIDE["drag_coefficient"] * SIDE["area"] * WIND ** 2
    tires = sum(r[n][-1] for n in fy)
    phi = r["car.roll"][-1]
    assert 0.005 < phi < 0.03                                   # leans away from the wind
    assert -tires == pytest.approx(force, rel=1e-3)             # measured 3.9e-4 (the roll)
    # measured 4.6e-6: the car drifts downwind at 4e-5 m/s, the tires' creep at rest
    assert -tires == pytest.approx(force * math.cos(phi) ** 3, rel=3e-5)
    front = sum(r[n][-1] for n in fy[:2])
    x_cp, _, z_cp = SIDE["center_of_pressure"]
    assert front / tires == pytest.approx((x_cp + B_R) / WB, rel=1e-5)     # measured 1e-6
    # the unit's aerodynamic outputs: the left surface's force and its moment about the CG
    f_body = force * math.cos(phi) ** 2
    Fx, Fy, Fz, Mx, My, Mz = (r[n][-1] for n in AERO)
    assert Fy == pytest.approx(f_body, rel=3e-5)                            # measured 4.6e-6
    assert abs(Fx) < 1e-6 * force and Fz == 0.0 and abs(My) < 1e-6 * force
    assert Mx == pytest.approx(-z_cp * Fy, rel=1e-12) and Mz == pytest.approx(x_cp * Fy, rel=1e-12)


def test_a_front_surface_alone_makes_no_side_force(instance, car_fmu):
    """The default car (a front surface only) at 20 m/s in a 20 m/s wind from the left: the
    crosswind does not strike the front surface, which is pushed back by 1/2 rho C_d A u^2
    alone; the car runs straight on."""
    r = _in_wind(instance, car_fmu, WIND, FROM_LEFT, 2.0, AERO + ["car.u", "car.Y", "car.yaw"]
                 + [w + ".Fy" for w in FRONT + REAR], speed0=20.0)
    (front,) = CAR["aerodynamics"]
    drag = 0.5 * RHO * front["drag_coefficient"] * front["area"] * r["car.u"] ** 2
    assert np.all(r["car.aero.Fy"] == 0.0) and np.all(r["car.aero.Mz"] == 0.0)
    assert np.all(r["car.aero.Mx"] == 0.0)
    assert r["car.aero.Fx"] == pytest.approx(-drag, rel=1e-6)
    assert np.abs(r["car.Y"]).max() < 1e-9 and np.abs(r["car.yaw"]).max() < 1e-9
    assert max(np.abs(r[w + ".Fy"]).max() for w in FRONT + REAR) < 1e-6


def test_a_lift_device_changes_the_axle_loads_by_the_lever_rule(instance, wing_fmu):
    """At rest in a 20 m/s headwind, a rear wing with C_L < 0 presses the car down by
    L = 1/2 rho |C_L| A V^2 behind the rear axle: the axle loads change by L in all, the front
    by L (x_cp + b)/l (negative: the front unloads).

    The car pitches by theta under the load (0.3 deg), which moves the sprung CG and the
    centre of pressure over the contact patches: the wheel centres, z_w below the sprung CG,
    move forward by z_w theta relative to it, the centre of pressure by z_cp theta. The
    moment balance about the rear contact patches of the pitched car, to first order in
    theta, is the lever rule with these horizontal positions."""
    fz = [w + ".Fz" for w in FRONT + REAR]
    r = _in_wind(instance, wing_fmu, WIND, FROM_AHEAD, 4.0, fz + AERO + ["car.pitch"])
    lift = 0.5 * RHO * abs(WING["lift_coefficient"]) * WING["area"] * WIND ** 2
    front0, rear0 = static_loads()
    d_front = sum(r[n][-1] for n in fz[:2]) - 2 * front0
    d_rear = sum(r[n][-1] for n in fz[2:]) - 2 * rear0
    theta = r["car.pitch"][-1]
    assert 0.0 < theta < 0.01                                  # nose up: the rear squats
    # measured 3e-5 each: the car still creeps downwind at about 0.3 mm/s after it pitched
    assert d_front + d_rear == pytest.approx(lift, rel=1e-4)
    # the lift is across the wind: straight down in the earth frame, L cos(theta) on body z
    assert r["car.aero.Fz"][-1] == pytest.approx(lift * math.cos(theta), rel=1e-4)
    assert r["car.aero.Fx"][-1] == pytest.approx(-lift * math.sin(theta), rel=1e-4)
    x_cp, _, z_cp = WING["center_of_pressure"]
    # horizontal positions from the sprung CG: the axles (contact patches under the wheel
    # centres) and the centre of pressure, in the pitched car
    tire = CAR["tires"][CAR["axles"][0]["tire"]]
    z_w = [CAR["sprung_mass"]["cg_height"] - (tire["unloaded_radius"] - load / tire["radial_stiffness"])
           for load in (front0, rear0)]
    x_f, x_r = A_F + z_w[0] * theta, -B_R + z_w[1] * theta
    w_s = CAR["sprung_mass"]["mass"] * G
    w_u = 2 * CAR["axles"][0]["unsprung_mass_per_wheel"] * G

    def front_load(lift_force, x_lift, pitch):
        xf, xr = (x_f, x_r) if pitch else (A_F, -B_R)
        return (w_s * (0.0 - xr) + w_u * (xf - xr) + lift_force * (x_lift - xr)) / (xf - xr)

    lever = lift * (x_cp + B_R) / WB
    pitched = front_load(lift, x_cp + z_cp * theta, True) - front_load(0.0, 0.0, False)
    # measured 0.07 N = 2e-4 L; the rigid lever rule alone is 6.1 N (1.7 % of L) off
    assert d_front == pytest.approx(pitched, abs=1e-3 * lift)
    assert abs(pitched - lever) > 10 * abs(d_front - pitched)
    assert d_rear == pytest.approx(lift - pitched, abs=1e-3 * lift)
