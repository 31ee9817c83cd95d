"""Static equilibrium of combinations (engine.setup.equilibrium) against the lever rule of the
reference tractor-semitrailer sheet (/work/shared/reference/tractor-semitrailer.md).

The events are built here as validated data (defaults filled), coordinates from each unit's
sprung-mass CG as the sheet's distances give them.
"""
import copy
import json
import math

import pytest

import engine
from engine import layout as L
from engine.setup import equilibrium as eq
from engine.setup.model import typed_event, typed_unit

from conftest import ROOT

G = 9.80665
REL = 2e-13          # measured agreement with the lever rule: at most 6.6e-14 relative
REL_DRAWBAR = 1e-11  # the converter drawbar load, a difference of larger loads: measured 3.4e-13
#                     and 1.6e-12 on two CPUs (the linear algebra's rounding differs by kernel)


def _stop():
    return {"clearance": 0.08, "K1": 2.0e6, "K3": 5.0e8, "energy_ratio": 0.3}


def _axle(x, track, m_wheel, k, spacing, tire, dual=False, group=None):
    axle = {"x": x, "track": track, "unsprung_mass_per_wheel": m_wheel,
            "suspension": {"type": "solid", "spring_rate": k, "damping": 30000.0, "coulomb_friction": 1500.0,
                           "antisway_roll_stiffness": 0.0, "jounce_stop": _stop(), "rebound_stop": _stop(),
                           "roll_center_height": 0.7, "spring_spacing": spacing, "axle_roll_inertia": 700.0,
                           "roll_steer": 0.0, "camber_set": 0.0},
            "tire": tire, "dual": dual, "steered": False, "driven": False, "brake_torque_ratio": 0.03,
            "proportioned": False, "group": group}
    if dual:
        axle["dual_spacing"] = 0.335
    return axle


def _tire(kt):
    return {"unloaded_radius": 0.55, "radial_stiffness": kt, "secondary_stiffness_multiplier": 3.0,
            "secondary_stiffness_deflection": 0.06, "max_deflection": 0.12}


def _unit(name, mass, inertia, cgh, axles, tires, front=None, rear=None, dolly=None):
    return {"name": name, "sprung_mass": {"mass": mass, "inertia": inertia, "Ixz": 0.0, "cg_height": cgh},
            "axles": axles, "tires": tires, "payloads": [], "occupants": [], "dolly": dolly,
            "connections": {"front": front, "rear": rear}}


def _front(kind, point, tow):
    return {"type": kind, "point": point, "tow": tow, "model": "heavier", "deflection": 0.001,
            "failure_force": None, "failure_start_time": 0.0}


def _rear(kind, point, pitch_stiffness=0.0):
    return {"type": kind, "point": point, "stiffness": None, "damping": None,
            "pitch_stiffness": pitch_stiffness, "pitch_damping": 0.0}


def tractor():
    """The sheet's tractor, x from its CG (2.00 m behind the front axle)."""
    tires = {"tractor": _tire(900000.0)}
    axles = [_axle(2.0, 1.838, 375.0, 592000.0, 1.058, "tractor"),
             _axle(2.0 - 4.08, 1.664, 550.0, 1026000.0, 0.858, "tractor", dual=True, group="drive"),
             _axle(2.0 - 5.48, 1.664, 550.0, 1026000.0, 0.858, "tractor", dual=True, group="drive")]
    return _unit("tractor", 10000.0, [3441.0, 28485.0, 29395.0], 1.13, axles, tires,
                 rear=_rear("fifth_wheel", [2.0 - 4.64, 0.0, 1.13 - 1.35]))


def trailer(name="trailer", tow="tractor"):
    """The sheet's semitrailer, x from its CG (5.96 m behind the kingpin)."""
    tires = {"trailer": _tire(1000000.0)}
    axles = [_axle(5.96 - d, 2.065, 320.0, 710000.0, 1.458, "trailer", group="tridem") for d in (6.28, 7.59, 8.90)]
    return _unit(name, 20000.0, [23904.0, 322240.0, 320011.0], 1.33, axles, tires,
                 front=_front("kingpin", [5.96, 0.0, 1.33 - 1.35], tow),
                 rear=_rear("pintle", [5.96 - 12.0, 0.0, 1.33 - 0.60]))


def dolly(kind="converter"):
    """The sheet's dolly, x from its CG (0.50 m ahead of the axle); its fifth wheel at the
    trailer's kingpin height (1.35 m), the drawbar eye at the pintle's (0.60 m)."""
    tires = {"dolly": _tire(900000.0)}
    axles = [_axle(-0.5, 1.83, 400.0, 1026000.0, 0.858, "dolly", dual=True)]
    return _unit("dolly", 1200.0, [600.0, 900.0, 1100.0], 0.9, axles, tires, dolly=kind,
                 front=_front("drawbar", [2.4, 0.0, 0.9 - 0.6], "trailer1"),
                 rear=_rear("fifth_wheel", [-0.5, 0.0, 0.9 - 1.35], 1e8 if kind == "fixed" else 0.0))


def event(units):
    return {"environment": {"gravity": G, "ground_elevation": 0.0}, "units": units}


def semi():
    return event([tractor(), trailer()])


def double(kind="converter"):
    return event([tractor(), trailer("trailer1"), dolly(kind), trailer("trailer2", tow="dolly")])


def axle_loads(unit_static, unit):
    """Per axle: the sum of its spring loads (both sides) and of its tire loads."""
    out = []
    for ai in range(len(unit["axles"])):
        idx = [j for j, (a, _, _) in enumerate(eq.wheels(typed_unit(unit))) if a == ai]
        out.append((sum(unit_static.fs0[j] for j in idx), sum(sum(unit_static.tire_loads[j]) for j in idx)))
    return out


def unsprung(unit):
    return sum(2 * a["unsprung_mass_per_wheel"] for a in unit["axles"])


def test_sedan_by_the_lever_rule():
    """The car: two axles, statically determinate: Fs0 = W b/(a+b)/2 per front wheel, and the
    tire deflection load/K_T (below delta_2)."""
    model = engine.load_event().model
    unit = model.units[0]
    (us,), conns = eq.static_state(model)
    a, b = unit.axles[0].x, -unit.axles[1].x
    W = unit.sprung_mass.mass * G
    expected = [W * b / (a + b) / 2] * 2 + [W * a / (a + b) / 2] * 2
    assert conns == []
    for j, (ai, ax, _) in enumerate(eq.wheels(unit)):
        assert us.fs0[j] == pytest.approx(expected[j], rel=REL)
        load = expected[j] + ax.unsprung_mass_per_wheel * G
        assert us.tire_loads[j] == [pytest.approx(load, rel=REL)]
        assert us.tire_deflections[j] == [pytest.approx(load / unit.tires[ax.tire].radial_stiffness, rel=REL)]
    assert eq.static_equilibrium_problems(model) == []


def _kingpin(W, x_group, x_king, x_cg=0.0):
    return W * (x_cg - x_group) / (x_king - x_group)


def _tractor_loads(W, P, x_front, x_drive, x_fifth):
    """Front and drive-group loads of the tractor with the kingpin load P down at the fifth wheel."""
    front = (-x_drive * W + (x_fifth - x_drive) * P) / (x_front - x_drive)
    return front, W + P - front


def test_tractor_semitrailer_by_the_lever_rule():
    data = semi()
    units, (conn,) = eq.static_state(typed_event(data))
    tr, st = data["units"]
    x_group = sum(a["x"] for a in st["axles"]) / 3
    W_t = st["sprung_mass"]["mass"] * G
    P = _kingpin(W_t, x_group, st["connections"]["front"]["point"][0])
    assert (conn.tow, conn.towed, conn.M) == (0, 1, 0.0)
    assert conn.P == pytest.approx(P, rel=REL)
    # the tridem: equal load per axle, together the trailer weight less the kingpin load
    trailer_axles = axle_loads(units[1], st)
    for springs, _ in trailer_axles:
        assert springs == pytest.approx((W_t - P) / 3, rel=REL)
    front, drive = _tractor_loads(tr["sprung_mass"]["mass"] * G, P, tr["axles"][0]["x"],
                                  (tr["axles"][1]["x"] + tr["axles"][2]["x"]) / 2,
                                  tr["connections"]["rear"]["point"][0])
    tractor_axles = axle_loads(units[0], tr)
    assert tractor_axles[0][0] == pytest.approx(front, rel=REL)
    assert tractor_axles[1][0] == pytest.approx(drive / 2, rel=REL)
    assert tractor_axles[2][0] == pytest.approx(drive / 2, rel=REL)
    # the tires carry the springs and the unsprung weight: in all, the combination's weight
    total = sum(sum(sum(t) for t in us.tire_loads) for us in units)
    weight = sum(u["sprung_mass"]["mass"] + unsprung(u) for u in data["units"]) * G
    assert total == pytest.approx(weight, rel=REL)
    # duals share their wheel's load equally; the symmetric unit loads left and right alike
    for j, loads in enumerate(units[0].tire_loads):
        assert len(loads) == (1 if j < 2 else 2) and loads[0] == loads[-1]
        assert loads[0] == pytest.approx(units[0].tire_loads[j ^ 1][0], rel=REL)
    assert eq.static_equilibrium_problems(typed_event(data)) == []


def test_double_with_a_converter_dolly():
    """Trailer2 on the dolly by the lever rule; the dolly carries its share of the drawbar by
    the lever rule about its axle (its fifth wheel sits over the axle); trailer1 carries the
    drawbar load at its pintle."""
    data = double("converter")
    units, conns = eq.static_state(typed_event(data))
    tr, t1, dl, t2 = data["units"]
    x_group = sum(a["x"] for a in t1["axles"]) / 3
    W_t, W_d = t1["sprung_mass"]["mass"] * G, dl["sprung_mass"]["mass"] * G
    x_a, x_bar, x_fifth = dl["axles"][0]["x"], dl["connections"]["front"]["point"][0], dl["connections"]["rear"]["point"][0]
    P2 = _kingpin(W_t, x_group, t2["connections"]["front"]["point"][0])
    P1 = (-x_a * W_d + (x_fifth - x_a) * P2) / (x_bar - x_a)        # the drawbar's vertical load
    x_pintle = t1["connections"]["rear"]["point"][0]
    P0 = (-x_group * W_t + (x_pintle - x_group) * P1) / (t1["connections"]["front"]["point"][0] - x_group)
    assert [(c.tow, c.towed) for c in conns] == [(0, 1), (1, 2), (2, 3)]
    assert [conns[0].P, conns[2].P] == pytest.approx([P0, P2], rel=REL)
    assert conns[1].P == pytest.approx(P1, rel=REL_DRAWBAR)
    assert P1 > 0.0
    assert axle_loads(units[2], dl)[0][0] == pytest.approx(W_d + P2 - P1, rel=REL)
    front, drive = _tractor_loads(tr["sprung_mass"]["mass"] * G, P0, tr["axles"][0]["x"],
                                  (tr["axles"][1]["x"] + tr["axles"][2]["x"]) / 2, tr["connections"]["rear"]["point"][0])
    assert axle_loads(units[0], tr)[0][0] == pytest.approx(front, rel=REL)
    total = sum(sum(sum(t) for t in us.tire_loads) for us in units)
    assert total == pytest.approx(sum(u["sprung_mass"]["mass"] + unsprung(u) for u in data["units"]) * G, rel=REL)


def test_double_with_a_fixed_dolly():
    """The fixed dolly's drawbar is hinged: no vertical load reaches trailer1, which stands as
    a semitrailer alone; dolly and trailer2 stand together as one body on the dolly axle and
    the tridem (the lever rule of the pair, the dolly's CG at x_kingpin - x_fifth in trailer2's
    frame)."""
    data = double("fixed")
    units, conns = eq.static_state(typed_event(data))
    tr, t1, dl, t2 = data["units"]
    x_group = sum(a["x"] for a in t2["axles"]) / 3
    W_t, W_d = t2["sprung_mass"]["mass"] * G, dl["sprung_mass"]["mass"] * G
    x_king = t2["connections"]["front"]["point"][0]
    x_fifth = dl["connections"]["rear"]["point"][0]
    x_dolly_cg = x_king - x_fifth                       # in trailer2's frame
    x_dolly_axle = x_dolly_cg + dl["axles"][0]["x"]
    F_axle = (W_t * (0.0 - x_group) + W_d * (x_dolly_cg - x_group)) / (x_dolly_axle - x_group)
    assert conns[1].P == 0.0 and conns[1].M == 0.0                 # the hinged drawbar
    assert conns[0].P == pytest.approx(_kingpin(W_t, x_group, t1["connections"]["front"]["point"][0]), rel=REL)
    assert axle_loads(units[2], dl)[0][0] == pytest.approx(F_axle, rel=REL)
    assert sum(s for s, _ in axle_loads(units[3], t2)) == pytest.approx(W_t + W_d - F_axle, rel=REL)
    assert conns[2].P == pytest.approx(F_axle - W_d, rel=REL)
    # the dolly's pitch balance about its CG: its axle load, the kingpin load down at the fifth
    # wheel and -M (trailer2 holds the dolly's nose up: M < 0 on trailer2)
    M = dl["axles"][0]["x"] * F_axle - x_fifth * conns[2].P
    assert M < 0.0 and conns[2].M == pytest.approx(M, rel=REL)
    assert eq.static_equilibrium_problems(typed_event(data)) == []


def test_a_payload_moves_the_axle_loads_by_the_lever_rule():
    """5000 kg at x = +2 m (and 0.5 m above the CG) on the trailer: the kingpin load by the
    lever rule of the two weights in the user's coordinates."""
    data = semi()
    st = data["units"][1]
    st["payloads"] = [{"name": "load", "mass": 5000.0, "inertia": [1000.0, 2000.0, 2000.0], "position": [2.0, 0.0, -0.5]}]
    units, (conn,) = eq.static_state(typed_event(data))
    x_group = sum(a["x"] for a in st["axles"]) / 3
    x_king = st["connections"]["front"]["point"][0]
    W_t, W_p = st["sprung_mass"]["mass"] * G, 5000.0 * G
    P = (W_t * (0.0 - x_group) + W_p * (2.0 - x_group)) / (x_king - x_group)
    assert conn.P == pytest.approx(P, rel=REL)
    assert P - _kingpin(W_t, x_group, x_king) > 0.2 * W_p        # it moved, forwards
    assert sum(s for s, _ in axle_loads(units[1], st)) == pytest.approx(W_t + W_p - P, rel=REL)
    assert units[1].props.delta == pytest.approx((0.4, 0.0, -0.1), rel=1e-15)
    assert units[1].props.cg_height == pytest.approx(1.33 + 0.1, rel=1e-15)
    tr = data["units"][0]
    front, drive = _tractor_loads(tr["sprung_mass"]["mass"] * G, P, tr["axles"][0]["x"],
                                  (tr["axles"][1]["x"] + tr["axles"][2]["x"]) / 2, tr["connections"]["rear"]["point"][0])
    assert axle_loads(units[0], tr)[0][0] == pytest.approx(front, rel=REL)
    assert eq.static_equilibrium_problems(typed_event(data)) == []


def test_a_lateral_payload_loads_its_side_by_the_lever_rule():
    """A payload off the centre line (Eq. 43 shifts the spring y): the solid axle's springs
    by the lever rule across the spacing, its tires by the axle's roll balance."""
    data = event([dolly(None)])
    unit = data["units"][0]
    unit["connections"] = {"front": None, "rear": None}
    unit["axles"].append(copy.deepcopy(unit["axles"][0]))
    unit["axles"][0]["x"], unit["axles"][1]["x"] = 1.0, -1.0
    unit["payloads"] = [{"name": "p", "mass": 300.0, "inertia": [0.0, 0.0, 0.0], "position": [0.0, 0.2, 0.0]}]
    (us,), _ = eq.static_state(typed_event(data))
    W = 1500.0 * G
    s, t = unit["axles"][0]["suspension"]["spring_spacing"], unit["axles"][0]["track"]
    y_cg = 300.0 * 0.2 / 1500.0
    right = W / 2 * (s / 2 + y_cg) / s                  # one axle's right spring
    assert us.fs0[1] == pytest.approx(right, rel=REL)
    assert us.fs0[0] == pytest.approx(W / 2 - right, rel=REL)
    mg = unit["axles"][0]["unsprung_mass_per_wheel"] * G
    tire_right = W / 4 + mg + (right - (W / 2 - right)) * s / t / 2
    assert sum(us.tire_loads[1]) == pytest.approx(tire_right, rel=REL)


def test_connection_rates():
    data = semi()
    units, _ = eq.static_state(typed_event(data))
    (k, c), = eq.connection_rates(typed_event(data), units)
    assert k == pytest.approx(20000.0 * G / 0.001, rel=1e-15)
    assert c == pytest.approx(0.5 * math.sqrt(k * 20000.0), rel=1e-15)
    data["units"][1]["connections"]["front"]["model"] = "both"
    (k, c), = eq.connection_rates(typed_event(data), units)
    m = 0.75 * 10000.0 + 0.25 * 20000.0
    assert (k, c) == pytest.approx((m * G / 0.001, 0.5 * math.sqrt(m * G / 0.001 * m)), rel=1e-15)
    data["units"][1]["connections"]["front"]["model"] = "tow"
    data["units"][0]["connections"]["rear"].update(stiffness=3e7, damping=2e4)
    assert eq.connection_rates(typed_event(data), units) == [(3e7, 2e4)]


def test_place_units_in_line():
    """The trailer's kingpin on the tractor's fifth wheel in X and Y, the same yaw, each CG at
    its static height; the dolly and trailer2 of the double likewise, down the line; a full
    trailer's king pin its drawbar length straight behind the truck's hitch. The lead is
    placed by the set-up, the towed units by the kernel engine.launch.place_towed."""
    minimal = double("converter")
    minimal["units"][1]["payloads"] = [{"name": "p", "mass": 2000.0, "inertia": [0, 0, 0], "position": [1.0, 0.3, -0.4]}]
    units, _ = eq.static_state(typed_event(minimal))
    assert units[1].props.cg_height == pytest.approx(1.33 + 0.4 * 2000.0 / 22000.0, rel=1e-15)
    for name, lead in (("double.json", "tractor"), ("truck-full-trailer.json", "truck")):
        data = json.loads((ROOT / "engine" / "data" / name).read_text())
        data["units"][1]["payloads"] = [{"name": "p", "mass": 2000.0, "inertia": [0, 0, 0],
                                         "position": [1.0, 0.3, -0.4]}]
        units, _ = eq.static_state(typed_event(data))
        sim = engine.Simulation(engine.load_event(data),
                                initial={lead: {"X0": 10.0, "Y0": -4.0, "yaw0": 0.7}})
        y = sim.get_state().y

        def pose(ui):
            o = sim.layout.at("body", ui)
            return y[o + L.SX], y[o + L.SY], y[o + L.SZ], y[o + L.SPSI]
        assert pose(0)[:2] + pose(0)[3:] == (10.0, -4.0, 0.7)

        def earth(ui, end, behind=0.0):
            X, Y, Z, yaw = pose(ui)
            x, y_, z = (p - d for p, d in zip(data["units"][ui]["connections"][end]["point"],
                                              units[ui].props.delta))
            x -= behind
            return (X + math.cos(yaw) * x - math.sin(yaw) * y_, Y + math.sin(yaw) * x + math.cos(yaw) * y_)

        for towed in range(1, len(data["units"])):
            front = data["units"][towed]["connections"]["front"]
            tow = [u["name"] for u in data["units"]].index(front["tow"])
            assert pose(towed)[3] == 0.7
            assert pose(towed)[2] == pytest.approx(-units[towed].props.cg_height, rel=1e-15)
            bar = front.get("drawbar_length") or 0.0
            assert earth(towed, "front") == pytest.approx(earth(tow, "rear", bar), abs=1e-12), name


def test_free_one_axle_units_are_refused():
    """A unit with no way to stand: a semitrailer or a dolly left unconnected, or a full
    trailer on one axle behind a hinged drawbar (it would pitch over)."""
    free_trailer = event([trailer(tow=None)])
    free_trailer["units"][0]["connections"] = {"front": None, "rear": None}
    got = eq.static_equilibrium_problems(typed_event(free_trailer))
    assert got == [got[0]] and got[0].startswith("units[0].axles: no static equilibrium: unit 'trailer' cannot stand")
    assert "no support in pitch" in got[0]
    with pytest.raises(ValueError, match="cannot stand"):
        eq.static_state(typed_event(free_trailer))

    free_dolly = event([dolly()])
    free_dolly["units"][0]["connections"] = {"front": None, "rear": None}
    got = eq.static_equilibrium_problems(typed_event(free_dolly))
    assert len(got) == 1 and got[0].startswith("units[0].axles: no static equilibrium: unit 'dolly'")

    # a one-axle unit behind a hinged drawbar (a dolly field other than "converter")
    data = semi()
    full = dolly(None)
    full["connections"] = {"front": _front("drawbar", [2.4, 0.0, 0.3], "trailer"), "rear": None}
    data["units"].append(full)
    got = eq.static_equilibrium_problems(typed_event(data))
    assert len(got) == 1 and got[0].startswith("units[2].axles: no static equilibrium: unit 'dolly' cannot stand")
    assert "connections.front" in got[0]
    full["dolly"] = "converter"                     # its drawbar rigid: it stands on the pintle
    assert eq.static_equilibrium_problems(typed_event(data)) == []


def test_height_mismatch_names_both_points():
    data = double("converter")
    data["units"][2]["connections"]["rear"]["point"][2] = 0.9 - 1.20     # the sheet's 1.20 m fifth wheel
    got = eq.static_equilibrium_problems(typed_event(data))
    assert len(got) == 1
    assert got[0].startswith("units[3].connections.front.point: no static equilibrium")
    assert "units[2].connections.rear.point (1.2 m)" in got[0] and "height above ground (1.35 m," in got[0] and "by 0.15 m" in got[0]
    data["units"][2]["connections"]["rear"]["point"][2] = 0.9 - 1.35 + 0.9e-3      # within 1 mm
    assert eq.static_equilibrium_problems(typed_event(data)) == []


def test_lift_off_and_overload_are_named():
    """The trailer's CG behind its tridem (moved 4 m ahead): the kingpin pulls the tractor up
    behind its drive axles, which lift off (the lever rule gives them a negative load); a
    trailer of 200 t deflects its tires beyond their maximum."""
    data = semi()
    tr, st = data["units"]
    for a in st["axles"]:
        a["x"] += 4.0
    x_group = sum(a["x"] for a in st["axles"]) / 3
    P = _kingpin(st["sprung_mass"]["mass"] * G, x_group, st["connections"]["front"]["point"][0])
    _, drive = _tractor_loads(tr["sprung_mass"]["mass"] * G, P, tr["axles"][0]["x"],
                              (tr["axles"][1]["x"] + tr["axles"][2]["x"]) / 2, tr["connections"]["rear"]["point"][0])
    assert drive / 4 + tr["axles"][1]["unsprung_mass_per_wheel"] * G < 0.0
    got = eq.static_equilibrium_problems(typed_event(data))
    assert {p.split(":")[0] for p in got} == {f"units[0].axles[{k}] ({s})" for k in (1, 2) for s in ("left", "right")}
    assert all("the tire load would be -" in p and "connection loads must lie between" in p for p in got)
    heavy = semi()
    heavy["units"][1]["sprung_mass"]["mass"] = 2.0e5
    got = eq.static_equilibrium_problems(typed_event(heavy))
    assert got and all("beyond its max_deflection 0.12 m" in p for p in got)
    assert {p.split(":")[0] for p in got} >= {f"units[1].axles[{k}] (left)" for k in range(3)}


def test_loads_beyond_a_float_are_named_not_raised():
    data = semi()
    data["environment"]["gravity"] = 1e300
    got = eq.static_equilibrium_problems(typed_event(data))
    assert [p.split(":")[0] for p in got] == ["units[0]", "units[1]"]
    assert all("the wheel loads are not finite numbers" in p and "environment.gravity 1e+300" in p for p in got)


# --- the default events, validated, against the sheet's distances --------------------------
W_TRACTOR, W_TRAILER, W_DOLLY = 10000.0 * G, 20000.0 * G, 1200.0 * G
KINGPIN = W_TRAILER * (7.59 - 5.96) / 7.59     # trailer CG 5.96 m, tridem centre 7.59 m behind the kingpin


@pytest.mark.parametrize("name", ["tractor-semitrailer", "double", "double-fixed-dolly"])
def test_default_events_by_the_sheet(name):
    """engine/data events as loaded, against the lever rule of the sheet's distances: the
    tractor's CG 2.00 m, drive-group centre 4.78 m and fifth wheel 4.64 m behind its front
    axle; the trailer's pintle 12.00 m behind the kingpin; the dolly's CG 0.50 m and drawbar
    eye 2.90 m ahead of its axle, its fifth wheel over the axle."""
    model = engine.load_event(str(ROOT / "engine" / "data" / f"{name}.json")).model
    units, conns = eq.static_state(model)
    if name == "tractor-semitrailer":
        P0 = KINGPIN
    elif name == "double":
        P1 = W_DOLLY * 0.50 / 2.90
        assert conns[1].P == pytest.approx(P1, rel=REL_DRAWBAR)
        assert conns[2].P == pytest.approx(KINGPIN, rel=REL)
        P0 = (W_TRAILER * (7.59 - 5.96) + P1 * (7.59 - 12.00)) / 7.59
    else:
        assert conns[1].P == 0.0
        # dolly and trailer 2 as one body: the dolly axle under the kingpin, its CG 0.50 m ahead
        axle = (W_TRAILER * (7.59 - 5.96) + W_DOLLY * (7.59 + 0.50)) / 7.59
        assert conns[2].P == pytest.approx(axle - W_DOLLY, rel=REL)
        assert conns[2].M == pytest.approx(-0.50 * W_DOLLY, rel=REL)
        P0 = KINGPIN
    assert conns[0].P == pytest.approx(P0, rel=REL)
    front = (W_TRACTOR * (4.78 - 2.00) + P0 * (4.78 - 4.64)) / 4.78
    assert sum(units[0].fs0[:2]) == pytest.approx(front, rel=REL)
    assert eq.static_equilibrium_problems(model) == []
