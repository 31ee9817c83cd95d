"""A jackknife that stops at the tractor's cab, through the built FMU (fmpy): the reference
tractor-semitrailer's trailer front against its tractor's cab (engine.collision.unit_pair,
docs/equations.md, "Collisions").

The tractor's drive axles brake at the full available friction (the table option
brakeFriction) on a road of friction 0.3 after a small steering step, so its rear end loses
its side force and the rig folds. In plan view the trailer's front corner (a, -b) from the
kingpin (a the front's set-forward, b the half width) swings round it; at articulation
theta it is at x(theta) = a cos(theta) + b sin(theta) ahead of the kingpin, and it meets the
cab's back, g ahead of the kingpin, at the contact angle x(theta_c) = g, where it is within
the cab's half width. All from the event's dimensions. Past theta_c the corner is inside the
cab by x(theta) - g: with the cab the articulation stays at most where that equals the
largest crush the meshes report; without a cab (cab_length null) the rig folds past it.

The test event's cab is 0.3 m ahead of the trailer's front (the reference's is 1.09 m: its
trailer's corner swings clear of the cab and only its side meets the cab's far corner, near
130 degrees), and both units' crush stiffnesses are STIFF times the car defaults: the
reference sheet has no crush data for the rig, and a car's B gives a trailer corner against a
cab too soft a contact to stop 30 t (docs/equations.md)."""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from scipy.optimize import brentq

import engine
from engine.setup.event import DEFAULT_CRUSH_B, TRACTOR_SEMITRAILER_EVENT
from support.fmus import event_fmu
from support.run import run

DATA = json.loads(engine.load_event(TRACTOR_SEMITRAILER_EVENT).to_json())
TRACTOR, TRAILER = DATA["units"]
GAP = 0.3                       # the cab's back ahead of the trailer's front at rest, m
STIFF = 30.0
MU = 0.3
V0 = 20.0
STEER = 0.5                     # steering wheel step at 0.5 s, rad
DRIVE = [f"tractor.axle{k}.{s}" for k in (2, 3) for s in ("left", "right")]


def _geometry():
    """(a, b, g, half width of the cab) from the event's dimensions and coupling points."""
    kp_t = TRACTOR["connections"]["rear"]["point"][0]            # the fifth wheel, tractor x
    kp_s = TRAILER["connections"]["front"]["point"][0]           # the kingpin, trailer x
    a = TRAILER["dimensions"]["front_x"] - kp_s
    b = 0.5 * TRAILER["dimensions"]["width"]
    g = a + GAP
    cab_length = TRACTOR["dimensions"]["front_x"] - (kp_t + g)
    return a, b, g, 0.5 * TRACTOR["dimensions"]["width"], cab_length


A, B, G_CAB, W_CAB, CAB_LENGTH = _geometry()


def corner_x(theta):
    return A * math.cos(theta) + B * math.sin(theta)


THETA_C = brentq(lambda t: corner_x(t) - G_CAB, 0.0, math.atan2(B, A))


def _event(cab):
    data = copy.deepcopy(DATA)
    for unit in data["units"]:
        unit["brakes"]["method"] = "friction"
        if unit.get("drivetrain"):
            unit["drivetrain"]["method"] = "friction"
        unit["collision"]["crush_stiffness"] = {k: STIFF * v for k, v in DEFAULT_CRUSH_B.items()}
    data["units"][0]["collision"]["cab_length"] = CAB_LENGTH if cab else None
    return data


@pytest.fixture(scope="module")
def cab_fmu(fmu_dir):
    return event_fmu(fmu_dir, "jackknife_cab", _event(True))


@pytest.fixture(scope="module")
def nocab_fmu(fmu_dir):
    return event_fmu(fmu_dir, "jackknife_nocab", _event(False))


def _jackknife(instance, fmu):
    inst = instance(fmu).start({"tractor.speed0": V0, "frictionMultiplier": MU})
    for w in DRIVE:
        inst.set(w + ".brakeFriction", 1.0)

    def steer(t, i):
        if t >= 0.5:
            i.set("tractor.steeringWheelAngle", STEER)

    return run(inst, 5.0, steer, h=0.01,
               record=("trailer.articulation", "trailer.collision.maxCrush",
                       "tractor.collision.maxCrush", "trailer.collision.Fx", "trailer.collision.Fy"))


def test_the_contact_angle_from_the_dimensions():
    # the corner is within the cab's width when it meets the cab's back
    assert abs(A * math.sin(THETA_C) - B * math.cos(THETA_C)) < W_CAB
    assert math.degrees(THETA_C) == pytest.approx(16.8, abs=0.1)


def test_without_a_cab_the_rig_folds_past_the_contact_angle(instance, nocab_fmu):
    r = _jackknife(instance, nocab_fmu)
    art = np.abs(r["trailer.articulation"])
    assert art.max() > 2.0 * math.pi / 3.0         # it folds on past 120 degrees
    assert r["trailer.collision.maxCrush"].max() == 0.0


def test_a_jackknife_stops_at_the_cab(instance, cab_fmu):
    r = _jackknife(instance, cab_fmu)
    art = np.abs(r["trailer.articulation"])
    contact = np.hypot(r["trailer.collision.Fx"], r["trailer.collision.Fy"]) > 0.0
    # the first contact comes at the geometric contact angle (the trailer's front edge is a
    # column of vertices, the cab's back a face)
    first = np.argmax(contact)
    assert contact.any()
    assert art[first] == pytest.approx(THETA_C, abs=math.radians(1.0))
    # the articulation stays where the corner is in the cab by the crush the meshes report
    crush = max(r["trailer.collision.maxCrush"].max(), r["tractor.collision.maxCrush"].max())
    theta_max = art.max()
    print(f"theta_c {math.degrees(THETA_C):.2f} deg, max {math.degrees(theta_max):.2f} deg, "
          f"corner in the cab {corner_x(theta_max) - G_CAB:.4f} m, crush {crush:.4f} m")
    assert corner_x(theta_max) - G_CAB <= crush + 0.005
    assert crush < 0.2
    assert theta_max < THETA_C + math.radians(15.0)
    # and it stays folded against the cab to the end, not through it
    assert art[-1] > THETA_C and contact[-1]
