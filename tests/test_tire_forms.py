"""The two forms of the tire's load- and speed-dependent properties (``tires[].property_model``):
the table look-up of the manual and the method of partial derivatives it replaced
(``engine.tire.partial_properties``), in process: the kernel's form against hand values, its
clamping at the physical limits, the form derived from the sedan's tables, the understeer
gradient and the validation errors. Through the FMU: ``test_tire_forms_fmu.py``.

Hand numbers from the sedan's sheet (docs/reference/sedan.md), front tire at the reference
load 4000 N (a test load: the slope is the chord of its neighbours 2000 and 6000 N):
C_alpha 70000 N/rad and (80000 - 50000) / (6000 - 2000) = 7.5 N/rad per N; C_gamma 3000 N/rad
and (4000 - 1500) / 4000 = 0.625; mu_p 0.97 and (0.94 - 1.00) / 4000 = -1.5e-5 per N; mu_s
0.80 and S_mu_p 0.15 at every load; the tables are equal at 10 and 40 m/s (no speed slope).
"""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from engine import layout as L
from engine.setup.derived import understeer_gradient
from engine.setup.event import EventError, validate_event
from engine.setup.tire_properties import pack_partial_derivatives, value_and_slopes
from engine.setup.model import typed_event
from engine.tire import MU_MIN, SP_MAX, SP_MIN, properties
from support.sedan import DATA, G, axle_tire, static_loads

#: the front tire by partial derivatives at 4000 N and 10 m/s, by hand (module docstring)
FRONT_PD = {"peak_friction": (0.97, -1.5e-5, 0.0), "slide_friction": (0.80, 0.0, 0.0),
            "slip_at_peak": (0.15, 0.0, 0.0), "cornering_stiffness": (70000.0, 7.5, 0.0),
            "camber_stiffness": (3000.0, 0.625, 0.0)}
#: the rear tire: C_alpha 87500 N/rad, (100000 - 62500) / 4000 = 9.375 per N
REAR_CA = (87500.0, 9.375, 0.0)


def switched(reference_load=4000.0, reference_speed=10.0, tire="front", **given) -> dict:
    """The sedan's event with ``tire`` by partial derivatives (its properties ``given``, the
    others derived from its tables)."""
    data = copy.deepcopy(DATA)
    t = data["units"][0]["tires"][tire]
    t["property_model"] = "partial_derivatives"
    t["partial_derivatives"] = dict(reference_load=reference_load, reference_speed=reference_speed, **given)
    return data


def packed(pd: dict):
    """``P_TIRE``, ``TT`` of one tire by partial derivatives ``pd`` (a validated tire's)."""
    P = np.zeros((1, L.N_TIRE_P))
    TT = np.zeros((1, L.N_TIRE_PROPS, L.MAX_TIRE_TESTS, L.MAX_TIRE_TESTS))
    front = typed_event(validate_event(switched(**pd)).data).units[0].tires["front"]
    pack_partial_derivatives(P[0], TT[0], front.partial_derivatives)
    return P, TT


def problems(data) -> list:
    with pytest.raises(EventError) as err:
        validate_event(data)
    return err.value.problems


def test_the_form_derived_from_the_sedan_tables_is_the_hand_one():
    got = validate_event(switched()).data["units"][0]["tires"]
    for key, (value, per_load, per_speed) in FRONT_PD.items():
        q = got["front"]["partial_derivatives"][key]
        assert (q["value"], q["per_load"], q["per_speed"]) == pytest.approx(
            (value, per_load, per_speed), rel=1e-12, abs=1e-18), key
    assert got["rear"]["property_model"] == "table" and got["rear"]["partial_derivatives"] is None


def test_the_forms_differ_at_the_static_loads():
    """The figures of docs/equations.md: at the static loads the derived form's cornering
    stiffness exceeds the table's by 2.5 (4000 - F_z) in front and 3.125 (4000 - F_z) at the
    rear, 2690 and 4890 N/rad, 4.5 and 7.2 % of the table's."""
    got = validate_event(switched(tire="front")).data["units"][0]["tires"]["front"]["partial_derivatives"]
    rear = validate_event(switched(tire="rear")).data["units"][0]["tires"]["rear"]["partial_derivatives"]
    for load, q, tire, hand, share in zip(static_loads(), (got, rear), (axle_tire(0), axle_tire(1)),
                                          (2690.0, 4890.0), (0.045, 0.072)):
        ca = q["cornering_stiffness"]
        table = np.interp(load, tire["test_loads"], [r[0] for r in tire["cornering_stiffness"]])
        difference = ca["value"] + ca["per_load"] * (load - 4000.0) - table
        assert difference == pytest.approx(hand, abs=5.0)
        assert difference / table == pytest.approx(share, abs=5e-4)


def test_slopes_inside_a_segment_and_at_the_ends():
    """Between test loads the slope is the segment's; at the first and last the end segment's;
    in speed, a table of one column has none."""
    loads, speeds, grid = [2000.0, 4000.0, 6000.0], [10.0], [[50000.0], [70000.0], [80000.0]]
    assert value_and_slopes(loads, speeds, grid, 3000.0, 25.0) == pytest.approx((60000.0, 10.0, 0.0))
    assert value_and_slopes(loads, speeds, grid, 2000.0, 0.0) == pytest.approx((50000.0, 10.0, 0.0))
    assert value_and_slopes(loads, speeds, grid, 6000.0, 0.0) == pytest.approx((80000.0, 5.0, 0.0))
    # in load and speed: p = 1 + 2e-4 F - 0.01 V sampled at the corners
    grid2 = [[1 + 2e-4 * f - 0.01 * v for v in (10.0, 40.0)] for f in (1000.0, 3000.0)]
    assert value_and_slopes([1000.0, 3000.0], [10.0, 40.0], grid2, 1500.0, 20.0) == \
        pytest.approx((1 + 0.3 - 0.2, 2e-4, -0.01), rel=1e-12)


def test_the_kernel_extrapolates_the_linear_form():
    """The engine's properties of the derived front tire at 7000 N (beyond the table's last
    test load, where the table holds 80000 N/rad) and 30 m/s: the linear form by hand."""
    P, TT = packed({})
    got = properties(P, TT, 0, 7000.0, -30.0)
    hand = [v + d * 3000.0 for v, d, _ in FRONT_PD.values()]   # 92500 N/rad, 4875 N/rad, ...
    assert got == pytest.approx(hand, rel=1e-14)
    assert got[3] == pytest.approx(92500.0)


def test_the_kernel_clamps_at_the_physical_limits_only():
    """A tire whose properties fall with load: the frictions stop at MU_MIN, the slide friction
    at the peak friction, the slip at peak within [SP_MIN, SP_MAX], the stiffnesses at 0."""
    pd = {"peak_friction": {"value": 1.0, "per_load": -1e-4},          # 0 at 14000 N
          "slide_friction": {"value": 0.8, "per_load": 1e-4},          # above mu_p from 5000 N
          "slip_at_peak": {"value": 0.15, "per_load": 1e-4, "per_speed": -0.01},
          "cornering_stiffness": {"value": 70000.0, "per_load": -10.0},  # 0 at 11000 N
          "camber_stiffness": {"value": 3000.0, "per_speed": -100.0}}    # 0 at 40 m/s
    P, TT = packed(pd)
    mup, mus, sp, ca, cg = properties(P, TT, 0, 6000.0, 10.0)
    assert (mup, mus, sp, ca, cg) == pytest.approx((0.8, 0.8, 0.35, 50000.0, 3000.0))
    mup, mus, sp, ca, cg = properties(P, TT, 0, 20000.0, 60.0)
    assert (mup, mus, ca, cg) == (MU_MIN, MU_MIN, 0.0, 0.0)
    assert sp == SP_MAX                          # 0.15 + 1.6 - 0.5 = 1.25
    assert properties(P, TT, 0, 0.0, 60.0)[2] == SP_MIN    # 0.15 - 0.4 - 0.5 < 0


def test_understeer_gradient_takes_the_partial_derivative_form():
    """K = m_f / C_f - m_r / C_r (docs: engine.setup.derived.understeer_gradient) with the
    rear tires by partial derivatives at 4000 N: C_r = 87500 + 9.375 (F_r - 4000) at the
    static rear load F_r, not the table's 62500 + 12.5 (F_r - 2000)."""
    front, rear = static_loads()
    c_f = float(np.interp(front, axle_tire(0)["test_loads"],
                          [r[0] for r in axle_tire(0)["cornering_stiffness"]]))
    c_r = REAR_CA[0] + REAR_CA[1] * (rear - 4000.0)
    hand = (front / G) / c_f - (rear / G) / c_r
    got = understeer_gradient(validate_event(switched(tire="rear")))
    # measured: 5.6e-16 relative (the engine's static loads are the lever rule's on level ground)
    assert got == pytest.approx(hand, rel=1e-12)
    # the table's rear stiffness gives an 18 % smaller gradient
    table_c_r = 62500.0 + 12.5 * (rear - 2000.0)
    assert abs(hand - ((front / G) / c_f - (rear / G) / table_c_r)) > 0.15 * abs(hand)


@pytest.mark.parametrize("change, expected", [
    (lambda t: t.update(property_model="partial_derivatives"),
     "units[0].tires.front.partial_derivatives: missing; an object (reference_load, reference_speed"),
    (lambda t: t.update(property_model="derivatives"),
     "units[0].tires.front.property_model: one of 'table', 'partial_derivatives' (got 'derivatives')"),
    (lambda t: t.update(partial_derivatives={"reference_load": 4000.0, "reference_speed": 10.0}),
     "units[0].tires.front.partial_derivatives: only with property_model 'partial_derivatives' "
     "(got property_model 'table'"),
    (lambda t: t.pop("cornering_stiffness"),
     "units[0].tires.front.cornering_stiffness: missing; a list of rows of numbers ([load][speed], "
     "N/rad; required with property_model 'table')"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 8000.0, "reference_speed": 10.0}),
     "units[0].tires.front.partial_derivatives.reference_load: within the tire's test loads, "
     "2000..6000 N, to derive peak_friction, slide_friction, slip_at_peak, cornering_stiffness, "
     "camber_stiffness from its tables (got 8000)"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 4000.0, "reference_speed": 45.0}),
     "units[0].tires.front.partial_derivatives.reference_speed: within the tire's test speeds, "
     "10..40 m/s"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 0.0, "reference_speed": 10.0}),
     "units[0].tires.front.partial_derivatives.reference_load: a number > 0 (got 0.0)"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 4000.0, "reference_speed": 10.0,
                                             "cornering_stiffness": {"value": -1.0}}),
     "units[0].tires.front.partial_derivatives.cornering_stiffness.value: a number >= 0 (got -1.0)"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 4000.0, "reference_speed": 10.0,
                                             "slip_at_peak": {"value": 0.1, "per_load": "steep"}}),
     "units[0].tires.front.partial_derivatives.slip_at_peak.per_load: a number (got 'steep')"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 4000.0, "reference_speed": 10.0,
                                             "camber_stiffness": {"per_load": 0.5}}),
     "units[0].tires.front.partial_derivatives.camber_stiffness.value: missing; a number >= 0"),
    (lambda t: t.update(property_model="partial_derivatives",
                        partial_derivatives={"reference_load": 4000.0, "reference_speed": 10.0,
                                             "slide_friction": {"value": 1.2}}),
     "units[0].tires.front.partial_derivatives.slide_friction.value: a value <= "
     "peak_friction.value = 0.97 at the reference load and speed (got 1.2)"),
])
def test_bad_forms_are_named(change, expected):
    data = copy.deepcopy(DATA)
    change(data["units"][0]["tires"]["front"])
    got = problems(data)
    assert any(p.startswith(expected) for p in got), got


def test_a_form_without_tables_names_each_property_it_lacks():
    data = copy.deepcopy(DATA)
    t = data["units"][0]["tires"]["front"]
    for key in ("test_loads", "test_speeds", "peak_friction", "slide_friction", "slip_at_peak",
                "cornering_stiffness", "camber_stiffness"):
        del t[key]
    t["property_model"] = "partial_derivatives"
    t["partial_derivatives"] = {"reference_load": 4000.0, "reference_speed": 10.0,
                                "peak_friction": {"value": 0.97}, "slide_friction": {"value": 0.8},
                                "slip_at_peak": {"value": 0.15}}
    got = problems(data)
    assert got == [f"units[0].tires.front.partial_derivatives.{key}: an object (value, per_load, "
                   f"per_speed), or the tire's table {key} to derive it from (both missing)"
                   for key in ("cornering_stiffness", "camber_stiffness")]
    t["partial_derivatives"].update(cornering_stiffness={"value": 70000.0, "per_load": 7.5},
                                    camber_stiffness={"value": 3000.0})
    event = validate_event(data)
    front = event.model.units[0].tires["front"]
    assert front.test_loads is None and front.partial_derivatives.camber_stiffness.per_load == 0.0
    # a validated event holds the table fields as null: it validates again as it is (an FMU
    # builds from it)
    again = validate_event(json.loads(event.to_json()))
    assert again.data["units"][0]["tires"]["front"] == event.data["units"][0]["tires"]["front"]
