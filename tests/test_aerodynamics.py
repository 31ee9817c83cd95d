"""The aerodynamic surfaces and devices (Eq. 140-142) as formulas, and their event fields.

Vehicle-fixed SAE axes (x forward, y right, z down); V is the relative wind of Eq. 139, the
air's velocity relative to the vehicle (V_x < 0 when driving forward in still air).
"""
import json
import math

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.aerodynamics import (AERO_NAMES, SURFACES, air_density, device_force, surface_constant,
                                 surface_force, surface_forces)
from engine.setup.params import pack

RHO = air_density(101325.0, 288.15)
CA = surface_constant(0.8, 2.5, RHO)

#: each surface: the unit vector of its outward normal (the wind that strikes it blows against it)
NORMALS = {"front": (1, 0, 0), "back": (-1, 0, 0), "left": (0, -1, 0), "right": (0, 1, 0),
           "top": (0, 0, -1), "bottom": (0, 0, 1)}


def test_the_names_are_the_manuals_six_surfaces_and_two_devices():
    assert set(AERO_NAMES) == set(NORMALS) | {"device1", "device2"}
    for name, (axis, face) in SURFACES.items():
        normal = [0, 0, 0]
        normal[axis] = face
        assert tuple(normal) == NORMALS[name], name


@pytest.mark.parametrize("name", sorted(NORMALS))
def test_a_surface_pushes_only_along_its_axis_from_the_wind_that_strikes_it(name):
    """Eq. 140: f_a = C_A V_a |V_a| when the wind blows onto the surface, else 0; the other
    two components of the wind make nothing."""
    axis, face = SURFACES[name]
    n = np.array(NORMALS[name], dtype=float)
    onto = -7.0 * n + np.array([3.0, -4.0, 2.0]) * (1 - np.abs(n))     # blows onto the face
    f = np.array(surface_force(axis, float(face), CA, *onto))
    assert f == pytest.approx(-CA * 49.0 * n, rel=1e-15)   # pushed inward, 1/2 rho C_d A V_a^2
    away = 7.0 * n + np.array([3.0, -4.0, 2.0]) * (1 - np.abs(n))     # the surface is in the lee
    assert surface_force(axis, float(face), CA, *away) == (0.0, 0.0, 0.0)
    across = np.array([3.0, -4.0, 2.0]) * (1 - np.abs(n))             # no component on its axis
    assert surface_force(axis, float(face), CA, *across) == (0.0, 0.0, 0.0)


def test_a_front_surface_makes_no_side_force_in_a_crosswind():
    """Driving at 20 m/s with a 10 m/s wind from the right: the front surface is pushed back
    by C_A 20^2 alone (the old lumped form C_A |V| V pushed it left as well)."""
    axis, face = SURFACES["front"]
    assert surface_force(axis, float(face), CA, -20.0, -10.0, 0.0) == (-CA * 400.0, 0.0, 0.0)
    axis, face = SURFACES["right"]
    assert surface_force(axis, float(face), CA, -20.0, -10.0, 0.0) == (0.0, -CA * 100.0, 0.0)


def test_a_device_drags_along_the_wind_and_lifts_across_it():
    """Drag C_A,D |V| V along V; lift C_A,L |V_xz| (-V_z, 0, V_x): perpendicular to the wind in
    the x-z plane, of size C_A,L |V_xz|^2."""
    cd_a, cl_a = surface_constant(0.4, 1.2, RHO), surface_constant(-1.5, 1.2, RHO)
    # wind from ahead: drag rearward, a negative C_L presses down (+z)
    assert device_force(cd_a, cl_a, -30.0, 0.0, 0.0) == pytest.approx(
        (-cd_a * 900.0, 0.0, -cl_a * 900.0), rel=1e-15)
    assert device_force(0.0, cl_a, -30.0, 0.0, 0.0)[2] > 0.0
    assert device_force(0.0, -cl_a, -30.0, 0.0, 0.0)[2] < 0.0     # positive lift: up, -z
    # an oblique wind: the parts are perpendicular and of the right sizes
    v = np.array([-25.0, 6.0, 3.0])
    drag = np.array(device_force(cd_a, 0.0, *v))
    lift = np.array(device_force(0.0, cl_a, *v))
    assert drag == pytest.approx(cd_a * np.linalg.norm(v) * v, rel=1e-14)
    assert lift[1] == 0.0 and lift @ v == pytest.approx(0.0, abs=1e-9)
    assert np.linalg.norm(lift) == pytest.approx(abs(cl_a) * (v[0] ** 2 + v[2] ** 2), rel=1e-14)
    assert device_force(cd_a, cl_a, *v) == pytest.approx(tuple(drag + lift), rel=1e-14)


def _packed(entries):
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["aerodynamics"] = entries
    model, _ = pack(engine.load_event(data), 1.0, {"car": {"speed0": 0.0, "X0": 0.0, "Y0": 0.0, "yaw0": 0.0}})
    return model.P_AERO


def test_the_sum_and_its_moment_about_the_cg():
    """Eq. 141-142: forces summed, moments r x f at each centre of pressure (the printed M_z row
    has r_z where r x f has r_x)."""
    entries = [
        {"name": "front", "drag_coefficient": 0.3, "area": 2.1, "center_of_pressure": [2.0, 0.1, -0.1]},
        {"name": "left", "drag_coefficient": 0.9, "area": 4.0, "center_of_pressure": [0.3, -0.7, -0.2]},
        {"name": "device1", "drag_coefficient": 0.2, "lift_coefficient": -1.1, "area": 0.8,
         "center_of_pressure": [-2.1, 0.0, -0.6]},
    ]
    P = _packed(entries)
    assert P.shape[0] == 3
    v = (-25.0, 8.0, 0.5)
    total = np.array(surface_forces(P, 0, 3, *v))
    force = np.zeros(3)
    moment = np.zeros(3)
    for e in entries:
        cd_a = surface_constant(e["drag_coefficient"], e["area"], RHO)
        if e["name"] in SURFACES:
            axis, face = SURFACES[e["name"]]
            f = np.array(surface_force(axis, float(face), cd_a, *v))
        else:
            f = np.array(device_force(cd_a, surface_constant(e["lift_coefficient"], e["area"], RHO), *v))
        force += f
        moment += np.cross(e["center_of_pressure"], f)     # the default car has no payloads
    assert total[:3] == pytest.approx(force, rel=1e-12)
    assert total[3:] == pytest.approx(moment, rel=1e-12)
    # the front surface only along x, the left surface only along y (the wind from the left)
    fx = -surface_constant(0.3, 2.1, RHO) * 625.0
    fy = surface_constant(0.9, 4.0, RHO) * 64.0
    assert np.array(surface_forces(P, 0, 2, *v))[:3] == pytest.approx((fx, fy, 0.0), rel=1e-12)
    # Eq. 142's M_z of the left surface at x = 0.3: r_x f_y
    assert surface_forces(P, 1, 1, *v)[5] == pytest.approx(0.3 * fy, rel=1e-12)


def test_packing_of_surfaces_and_devices():
    P = _packed([{"name": n, "drag_coefficient": 0.5, "area": 1.0, "center_of_pressure": [0.0, 0.0, 0.0]}
                 for n in ("back", "bottom")]
                + [{"name": "device2", "drag_coefficient": 0.1, "lift_coefficient": 0.7, "area": 2.0,
                    "center_of_pressure": [0.0, 0.0, 0.0]}])
    assert tuple(P[0, [L.A_AXIS, L.A_FACE]]) == (0, -1) and tuple(P[1, [L.A_AXIS, L.A_FACE]]) == (2, 1)
    assert P[2, L.A_AXIS] < 0
    assert P[2, L.A_CL] == pytest.approx(0.5 * 0.7 * 2.0 * RHO) and P[0, L.A_CL] == 0.0


def _problems(entries):
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["aerodynamics"] = entries
    with pytest.raises(engine.EventError) as e:
        engine.load_event(data)
    return e.value.problems


def _entry(name, **extra):
    return {"name": name, "drag_coefficient": 0.3, "area": 1.0, "center_of_pressure": [0.0, 0.0, 0.0], **extra}


def test_event_names_each_surface_and_device_once():
    names = "'front', 'back', 'left', 'right', 'top', 'bottom', 'device1', 'device2'"
    assert _problems([_entry("wing")]) == [f"units[0].aerodynamics[0].name: one of {names} (got 'wing')"]
    assert _problems([_entry("left"), _entry("left")]) == [
        "units[0].aerodynamics[1].name: a surface or device not already given for this unit (got 'left')"]


def test_event_lift_coefficient_on_devices_only():
    assert _problems([_entry("top", lift_coefficient=0.2)]) == [
        "units[0].aerodynamics[0].lift_coefficient: only for a device (device1, device2); the surface "
        "'top' makes drag along its own axis only; remove it"]
    assert _problems([_entry("device1", lift_coefficient=-11.0)]) == [
        "units[0].aerodynamics[0].lift_coefficient: a number >= -10 and <= 10 or null (got -11.0)"]
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["aerodynamics"] = [_entry("device2")]
    assert engine.load_event(data).data["units"][0]["aerodynamics"][0]["lift_coefficient"] == 0.0


def test_the_default_car_has_the_sheets_front_surface():
    """The sheet gives a front surface (C_d 0.30, 2.10 m^2): driving straight in still air its
    drag is the same 1/2 rho C_d A u^2 as before, along x alone."""
    (entry,) = engine.load_event().data["units"][0]["aerodynamics"]
    assert entry["name"] == "front" and entry["lift_coefficient"] is None
    P = _packed([entry])
    assert surface_forces(P, 0, 1, -20.0, 0.0, 0.0)[:3] == pytest.approx(
        (-0.5 * RHO * 0.30 * 2.10 * 400.0, 0.0, 0.0), rel=1e-14)
    assert math.isclose(surface_forces(P, 0, 1, 20.0, 0.0, 0.0)[0], 0.0)   # reversing: in its lee
