"""The two forms of the tire's properties (``tires[].property_model``: the manual's table
look-up and the method of partial derivatives it replaced) through one built FMU of four
sedans side by side that never meet (nor collide: ``simulation.collisions``
``vehicle_start_time`` beyond the run), each steered into the same gentle turn:

- ``table`` and ``partial``: a tire whose properties are linear in load and in speed, given as
  its table at the corners of 1000..7000 N and 10..40 m/s, and as the same function by
  partial derivatives: the two forms agree where the table is linear;
- ``sedan`` and ``sedan_pd``: the shipped sedan tire (nonlinear in load: its cornering
  stiffness rises by 10 N/rad per N from 2000 to 4000 N, by 5 from 4000 to 6000 N) as its
  tables and switched to partial derivatives at 4000 N and 10 m/s (derived from the tables:
  C_alpha = 70000 + 7.5 (F_z - 4000) N/rad in front, 87500 + 9.375 (F_z - 4000) at the rear):
  each tire's cornering stiffness from its outputs is its own form's closed form, and the two
  differ by what those give. Between 2000 and 4000 N the difference is
  2.5 (4000 - F_z) N/rad in front (2750 N/rad, 4.7 %, at the static 2900 N), 3.125
  (4000 - F_z) at the rear (4900 N/rad, 6.8 %, at 2440 N).

The tires' cornering stiffness from their outputs: with the whole patch adhering (Eq. 106 with
the camber thrust, docs/equations.md) the steady-state force is
F_y,ss (1 - S) = -(C_alpha' sin(alpha) - C_gamma' Gamma), so
C_alpha' = (C_gamma' Gamma - F_y,ss (1 - S)) / sin(alpha), C_gamma' by the same form at F_z.
The car coasts, slowing from 20 m/s, so its turn fades and each tire's force lags the steady
state by the carcass's relaxation, sigma_y dk/dt = v_slip - V k (docs/equations.md, transient
slip): F_y,ss = F_y + (sigma_y / V) dF_y/dt, with V the car's speed and dF_y/dt by finite
differences (without it the stiffness reads 3.6e-4 high on every tire).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

from support.fmus import event_fmu
from support.run import run
from support.sedan import event_data

#: the linear tire: each property p = value + per_load (F_z - 4000) + per_speed (V - 20), the
#: front's; the rear's cornering stiffness 1.25 times the front's (the sedan's ratio)
REFERENCE = (4000.0, 20.0)
LINEAR = {"peak_friction": (0.97, -1.5e-5, -0.002), "slide_friction": (0.80, 0.0, -0.003),
          "slip_at_peak": (0.15, 1e-5, 0.0), "cornering_stiffness": (60000.0, 8.0, -200.0),
          "camber_stiffness": (2500.0, 0.5, -10.0)}
REAR_SCALE = {"cornering_stiffness": 1.25}
LOADS, SPEEDS = [1000.0, 7000.0], [10.0, 40.0]
#: the sedan's tires by partial derivatives at 4000 N (C_alpha; C_gamma, both tires): the
#: value at 4000 N and the chord of the 2000 and 6000 N test loads (docs/reference/sedan.md)
SEDAN_PD = {"front": ((70000.0, (80000.0 - 50000.0) / 4000.0), (3000.0, (4000.0 - 1500.0) / 4000.0)),
            "rear": ((87500.0, (100000.0 - 62500.0) / 4000.0), (3000.0, (4000.0 - 1500.0) / 4000.0))}
UNITS = ("table", "partial", "sedan", "sedan_pd")
SPEED, STEER = 20.0, 0.1      # m/s; rad at the steering wheel: 0.72 m/s^2 of lateral acceleration
#: the units start side by side this far apart (m), each turning right on a circle of about
#: 400 m: their paths cross a quarter of a turn on, beyond the run
GAP = 20.0
H = 0.01                      # s, the communication step
#: the tires' lateral relaxation length, m (the event's default; the sedan sheet gives none)
SIGMA_Y = event_data()["units"][0]["tires"]["front"]["relaxation_length"]["lateral"]


def _linear(key: str, tire: str) -> tuple:
    scale = REAR_SCALE.get(key, 1.0) if tire == "rear" else 1.0
    return tuple(scale * c for c in LINEAR[key])


def _linear_tire(base: dict, tire: str, form: str) -> dict:
    t = copy.deepcopy(base)
    for key in LINEAR:
        del t[key]
    if form == "table":
        t["test_loads"], t["test_speeds"] = LOADS, SPEEDS
        for key in LINEAR:
            v, dl, dv = _linear(key, tire)
            t[key] = [[v + dl * (f - REFERENCE[0]) + dv * (s - REFERENCE[1]) for s in SPEEDS]
                      for f in LOADS]
    else:
        del t["test_loads"], t["test_speeds"]
        t["property_model"] = "partial_derivatives"
        t["partial_derivatives"] = dict(
            reference_load=REFERENCE[0], reference_speed=REFERENCE[1],
            **{key: dict(zip(("value", "per_load", "per_speed"), _linear(key, tire))) for key in LINEAR})
    return t


def _event() -> dict:
    data = event_data()
    car = data["units"][0]
    units = []
    for k, name in enumerate(UNITS):
        u = copy.deepcopy(car)
        u["name"] = name
        u["initial"] = dict(u.get("initial") or {}, Y=-GAP * k)
        for tire, t in u["tires"].items():
            if name in ("table", "partial"):
                u["tires"][tire] = _linear_tire(t, tire, name)
            elif name == "sedan_pd":
                t["property_model"] = "partial_derivatives"
                t["partial_derivatives"] = {"reference_load": 4000.0, "reference_speed": 10.0}
        units.append(u)
    data["units"] = units
    data["simulation"]["collisions"] = {"vehicle_start_time": 1.0e6}
    return data


TIRES = [f"axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
QUANTITIES = ("Fy", "Fz", "slipAngle", "slip", "inclination")


@pytest.fixture(scope="module")
def turn(extracted, fmu_dir):
    """Each unit's tire outputs in the turn, from 2 s (steady) to 4 s."""
    from conftest import Instance
    fmu = event_fmu(fmu_dir, "tire_forms", _event())
    inst = Instance(*extracted(fmu), name=fmu.stem)

    def steer(t, i):
        for u in UNITS:
            i.set(f"{u}.steeringWheelAngle", STEER)
    names = tuple(f"{u}.{w}.{q}" for u in UNITS for w in TIRES for q in QUANTITIES)
    try:
        inst.start({f"{u}.speed0": SPEED for u in UNITS})
        r = run(inst, 4.0, steer, h=H, record=names + tuple(f"{u}.{q}" for u in UNITS for q in ("ay", "u")))
    finally:
        inst.free()
    for u in UNITS:         # the steady-state force (module docstring), before the window is cut
        for w in TIRES:
            r[f"{u}.{w}.Fy_ss"] = r[f"{u}.{w}.Fy"] + SIGMA_Y / r[f"{u}.u"] * np.gradient(r[f"{u}.{w}.Fy"], H)
    steady = r["time"] > 2.0
    return {k: v[steady] for k, v in r.items()}


def test_linear_tables_and_partial_derivatives_agree(turn):
    """Every tire force and load of the two forms of the linear tire, through the whole turn:
    the same to rounding. Measured: 5.3e-11 N at most, of loads up to 3160 N."""
    worst = 0.0
    for w in TIRES:
        for q in ("Fy", "Fz"):
            worst = max(worst, float(np.abs(turn[f"table.{w}.{q}"] - turn[f"partial.{w}.{q}"]).max()))
    scale = max(float(np.abs(turn[f"table.{w}.Fz"]).max()) for w in TIRES)
    print(f"largest difference {worst:.2e} N of loads up to {scale:.0f} N; "
          f"lateral acceleration {turn['table.ay'].mean():.2f} m/s^2")
    assert worst < 2e-13 * scale
    # the tires run off the reference load (4000 N; measured: 2276 to 3160 N) and speed (20 m/s;
    # the car coasts from 19.55 to 19.11 m/s), so that the derivatives matter
    loads = np.concatenate([turn[f"table.{w}.Fz"] for w in TIRES])
    print(f"loads {loads.min():.0f} to {loads.max():.0f} N, speed {turn['table.u'].max():.2f} "
          f"to {turn['table.u'].min():.2f} m/s")
    assert loads.max() < 3500.0 and turn["table.u"].max() < 19.9


def _stiffness(turn, unit, w, camber):
    """C_alpha' of the tire ``w`` of ``unit`` from its outputs (module docstring), with
    C_gamma' by ``camber(F_z)``."""
    fz, alpha, slip, gamma = (turn[f"{unit}.{w}.{q}"] for q in QUANTITIES[1:])
    return (camber(fz) * gamma - turn[f"{unit}.{w}.Fy_ss"] * (1.0 - slip)) / np.sin(alpha), fz


def _table(tire: dict, key: str):
    rows = [row[0] for row in tire[key]]    # equal at both test speeds
    return lambda fz: np.interp(fz, tire["test_loads"], rows)


def _pd(value, per_load):
    return lambda fz: value + per_load * (fz - 4000.0)


def test_the_sedan_tire_by_partial_derivatives_differs_as_the_closed_form_says(turn):
    """Each tire's cornering stiffness against its form's closed form at its load, on both
    cars: within 1.5e-5 measured; and the partial-derivative car's stiffness minus the table's
    closed form at the same load, against the closed forms' difference 2.5 (4000 - F_z) in
    front, 3.125 (4000 - F_z) at the rear: within 0.65 N/rad measured, of differences of
    at least 2085 N/rad (3.4 to 7.6 % of the stiffness)."""
    car = event_data()["units"][0]
    worst, worst_difference, smallest, largest = 0.0, 0.0, np.inf, 0.0
    for w in TIRES:
        tire_name = "front" if w.startswith("axle1") else "rear"
        tire = car["tires"][tire_name]
        table_ca, table_cg = _table(tire, "cornering_stiffness"), _table(tire, "camber_stiffness")
        (ca0, ca1), (cg0, cg1) = SEDAN_PD[tire_name]
        pd_ca, pd_cg = _pd(ca0, ca1), _pd(cg0, cg1)
        c, fz = _stiffness(turn, "sedan", w, table_cg)
        worst = max(worst, float(np.abs(c / table_ca(fz) - 1.0).max()))
        c, fz = _stiffness(turn, "sedan_pd", w, pd_cg)
        worst = max(worst, float(np.abs(c / pd_ca(fz) - 1.0).max()))
        assert fz.max() < 4000.0 and fz.min() > 2000.0      # on the table's first segment
        expected = (4000.0 - fz) * (2.5 if tire_name == "front" else 3.125)
        assert np.allclose(pd_ca(fz) - table_ca(fz), expected, rtol=1e-9)
        measured = c - table_ca(fz)
        worst_difference = max(worst_difference, float(np.abs(measured - expected).max()))
        smallest = min(smallest, float(expected.min()))
        largest = max(largest, float((expected / pd_ca(fz)).max()))
    print(f"stiffness against its form's closed form: {worst:.2e}; the forms' difference within "
          f"{worst_difference:.3f} N/rad of the closed form's, which is at least {smallest:.0f} N/rad "
          f"(at most {largest:.3f} of the stiffness)")
    assert worst < 5e-5
    assert worst_difference < 2.0
    assert smallest > 1000.0
