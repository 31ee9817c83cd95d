"""Every event the build accepts is one the engine can run: its limits are the validator's,
the engine starts from a static equilibrium that exists, bad files are one named error (exit
2 from the build command), and the engine's own API lets no bad value reach compiled code."""
import copy
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import engine
from engine.drivetrain import RPM

from conftest import ROOT, build
from support.events import problems
from support.sedan import lever_loads

G = 9.80665


def build_rejects(tmp_path, content: bytes):
    """Run the build command on an event file of ``content``; return its stderr, asserting
    exit status 2 and no traceback."""
    event = tmp_path / "bad.json"
    event.write_bytes(content)
    out = subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event), "-o",
                          str(tmp_path / "x.fmu"), "--no-warm"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "not a valid event" in out.stderr
    assert not (tmp_path / "x.fmu").exists()
    return out.stderr


# --- the build command: one named error, exit 2 -----------------------------------------
def _text(raw):
    return json.dumps(raw, indent=1)


@pytest.mark.parametrize("name, make, expected", [
    ("sprung mass 1e300",
     lambda raw: _text(raw).replace('"mass": 965.71', '"mass": 1e300'),
     "units[0].axles[0] (left): no static equilibrium: the static tire load 2.70501e+300 N deflects"),
    ("gravity 1e6",
     lambda raw: _text(raw).replace('"gravity": 9.80665', '"gravity": 1e6'),
     "environment.gravity 1e+06 m/s^2"),
    ("an integer beyond float range",
     lambda raw: _text(raw).replace('"mass": 965.71', '"mass": 1' + "0" * 400),
     "units[0].sprung_mass.mass: a number > 0 (got an integer of 401 digits)"),
    ("an integer of 5000 digits",
     lambda raw: _text(raw).replace('"mass": 965.71', '"mass": 1' + "0" * 5000),
     "bad.json: valid JSON numbers (Exceeds the limit (4300 digits)"),
    ("nested 3000 deep",
     lambda raw: _text(raw).replace('"name": "car"', '"name": "car", "x": ' + "[" * 3000 + "]" * 3000),
     "bad.json: objects and lists nested at most 32 deep"),
    ("a duplicate key",
     lambda raw: _text(raw).replace('"mass": 965.71', '"mass": 965.71, "mass": 1e4'),
     "units[0].sprung_mass.mass: given more than once in the same object"),
    ("a unit name unsafe in FMI names",
     lambda raw: _text(raw).replace('"name": "car"', '"name": "car.1"'),
     "units[0].name: a name of 1..32 ASCII letters, digits and '_' starting with a letter (got 'car.1')"),
])
def test_build_refuses_with_a_named_error(tmp_path, raw, name, make, expected):
    stderr = build_rejects(tmp_path, make(raw).encode())
    assert expected in stderr, stderr


def test_build_refuses_a_file_that_is_not_utf8(tmp_path, raw):
    text = _text(raw).replace('"name": "car"', '"name": "caf\u00e9"')
    stderr = build_rejects(tmp_path, text.encode("latin-1"))
    offset = text.encode("latin-1").index(b"\xe9")
    assert f"bad.json: a UTF-8 text file (byte 0xe9 at offset {offset} is not UTF-8)" in stderr


# --- static equilibrium -----------------------------------------------------------------
def test_static_equilibrium_is_checked(raw):
    unit = raw["units"][0]
    # the lever rule of the sheet's axles: the static loads the check finds are the engine's
    ev = engine.load_event(raw)
    sim = engine.Simulation(ev)
    fz = sim.y_tire[:, engine.TIRE_OUTPUTS.index("Fz")]
    assert fz.sum() == pytest.approx(sim.unit_mass("car") * G, rel=1e-9)

    heavy = copy.deepcopy(raw)
    heavy["units"][0]["sprung_mass"]["mass"] = 1e300
    got = problems(heavy)
    assert len(got) == 4 and all("no static equilibrium" in p and "max_deflection 0.1 m" in p for p in got)

    # the boundary by hand: lever rule for the front wheel's load, Eq. 93 inverted for the
    # gravity at which it deflects the tire to max_deflection (past delta_2, at K_T bar K_T)
    tire = unit["tires"]["front"]
    per_g = lever_loads(unit, 1.0)[0]
    d2, dmax = tire["secondary_stiffness_deflection"], tire["max_deflection"]
    g_limit = (d2 + (dmax - d2) * tire["secondary_stiffness_multiplier"]) * tire["radial_stiffness"] / per_g
    raw["environment"]["gravity"] = 0.999 * g_limit
    engine.load_event(raw)
    raw["environment"]["gravity"] = 1.001 * g_limit
    got = problems(raw)
    assert [p.split(":")[0] for p in got] == ["units[0].axles[0] (left)", "units[0].axles[0] (right)"]
    raw["environment"]["gravity"] = G

    ahead = copy.deepcopy(raw)
    for axle in ahead["units"][0]["axles"]:
        axle["x"] += 3.0            # the CG behind the rear axle: the front wheels would lift
    got = problems(ahead)
    assert any(p.startswith("units[0].axles[0] (left): no static equilibrium: the tire load would be -")
               for p in got), got

    single = copy.deepcopy(raw)
    single["units"][0]["axles"] = single["units"][0]["axles"][:1]
    assert any(p.startswith("units[0].axles: no static equilibrium") for p in problems(single))
    single["units"][0]["axles"][0]["x"] = 0.0     # one axle under the CG: balanced, but nothing holds it in pitch
    assert any(p.startswith("units[0].axles: no static equilibrium") and "no support in pitch" in p
               for p in problems(single))


# --- the engine's limits are the validator's ------------------------------------------
def _engine_follows_the_wheels(dt):
    """The manual's drivetrain (Eq. 50: no idle governor, no clutch), whose drive torque is the
    engine map's torque times the driveline ratio at every instant."""
    for key in ("idle_speed", "idle_governor", "clutch"):
        dt.pop(key, None)


def test_tables_of_any_length_run(raw):
    """Engine maps and wheel tables longer than the engine's former 32 rows: the drive torque
    is the WOT map's torque, interpolated between rows 33 and 40, times the driveline ratio
    (Eq. 32, 50, 51)."""
    dt = raw["units"][0]["drivetrain"]
    _engine_follows_the_wheels(dt)
    rows = [[60.0 * i, 100.0 + 2.0 * i] for i in range(40)]
    dt["engine_wot_torque"] = rows
    raw["units"][0]["axles"][0]["suspension"]["camber_change"] = [[0.002 * i - 0.04, 0.0] for i in range(40)]
    top = len(dt["transmission_ratios"])
    ratio = dt["transmission_ratios"][-1] * dt["differential_ratio"]
    r = raw["units"][0]["tires"]["rear"]["unloaded_radius"]
    speed = 2200.0 / RPM / ratio * r        # an engine speed near 2200 rpm: rows 36..37
    sim = engine.Simulation(engine.load_event(raw), initial={"car": {"speed0": speed}})
    sim.u_unit[0, engine.UNIT_INPUTS.index("gear")] = top
    sim.u_unit[0, engine.UNIT_INPUTS.index("throttle")] = 1.0
    sim.advance(0.0)
    sim.set_state(sim.get_state())     # outputs with these inputs
    spin = sim.y_wheel[2:, engine.WHEEL_OUTPUTS.index("spin")]
    rpm = ratio * spin.mean() * RPM
    assert 33 * 60.0 < rpm < 39 * 60.0
    expected = np.interp(rpm, [x for x, _ in rows], [y for _, y in rows]) * ratio / 2
    drive = sim.y_wheel[2:, engine.WHEEL_OUTPUTS.index("driveTorque")]
    np.testing.assert_allclose(drive, expected, rtol=1e-12)


def test_a_long_table_builds_and_runs_in_the_fmu(tmp_path, raw, instance):
    """Before, exitInitializationMode failed for a table of 33 rows or more."""
    dt = raw["units"][0]["drivetrain"]
    _engine_follows_the_wheels(dt)
    rows = [[60.0 * i, 100.0 + 2.0 * i] for i in range(40)]
    dt["engine_wot_torque"] = rows
    event = tmp_path / "long.json"
    event.write_text(json.dumps(raw))
    fmu = build(event, tmp_path / "Long.fmu")
    ratio = dt["transmission_ratios"][-1] * dt["differential_ratio"]
    speed = 2200.0 / RPM / ratio * raw["units"][0]["tires"]["rear"]["unloaded_radius"]
    inst = instance(fmu).start({"car.speed0": speed})
    inst.set("car.gear", len(dt["transmission_ratios"]))
    inst.set("car.throttle", 1.0)
    for k in range(10):
        inst.fmu.doStep(currentCommunicationPoint=0.01 * k, communicationStepSize=0.01)
    spin_l, spin_r, drive = inst.get_reals(["car.axle2.left.spin", "car.axle2.right.spin",
                                            "car.axle2.left.driveTorque"])
    rpm = ratio * (spin_l + spin_r) / 2 * RPM
    assert 33 * 60.0 < rpm < 39 * 60.0
    expected = np.interp(rpm, [x for x, _ in rows], [y for _, y in rows]) * ratio / 2
    assert drive == pytest.approx(expected, rel=1e-9)
    assert inst.get("car.u") > speed


def test_counts_the_engine_holds(raw):
    dt = raw["units"][0]["drivetrain"]
    dt["transmission_ratios"] = [1.0] * 21
    assert any(p.startswith("units[0].drivetrain.transmission_ratios: a list of 1..20 items (got 21)")
               for p in problems(raw))
    tire = raw["units"][0]["tires"]["front"]
    tire["test_loads"] = [1000.0, 2000.0, 3000.0, 4000.0]
    assert any(p.startswith("units[0].tires.front.test_loads: a list of 1..3 items or null (got 4)") for p in problems(raw))


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["units"][0]["sprung_mass"]["inertia"].__setitem__(0, -1e300),
     "units[0].sprung_mass.inertia[0]: a number > 0"),
    (lambda d: d["units"][0]["sprung_mass"].__setitem__("Ixz", 1e300), "units[0].sprung_mass.Ixz: |Ixz| <"),
    (lambda d: d["units"][0]["tires"]["front"]["test_loads"].__setitem__(0, None),
     "units[0].tires.front.test_loads[0]: a number > 0"),
    (lambda d: d["units"][0]["axles"][0].__setitem__("x", 1e300), "units[0].axles[0].x: a number >= -100"),
    (lambda d: d["units"][0]["tires"]["front"].__setitem__("unloaded_radius", 1e300),
     "units[0].tires.front.unloaded_radius: a number > 0 and <= 100"),
    (lambda d: d["units"][0]["tires"]["front"]["peak_friction"][0].__setitem__(0, 1e300),
     "units[0].tires.front.peak_friction[0][0]: a number > 0 and <= 10"),
    (lambda d: d["environment"].__setitem__("air_pressure", 1e300), "environment.air_pressure: a number > 0"),
    (lambda d: d["environment"].__setitem__("air_temperature", 1e-300),
     "environment.air_temperature: a number >= 100"),
    (lambda d: d["environment"].__setitem__("ground_elevation", 1e300), "environment.ground_elevation"),
    (lambda d: d["units"][0]["aerodynamics"][0].__setitem__("center_of_pressure", [1e300, 0, 0]),
     "units[0].aerodynamics[0].center_of_pressure: a point within +-100 m"),
    (lambda d: d["simulation"].__setitem__("step_size", 1e-300), "simulation.step_size: a number >= 1e-06"),
    (lambda d: d["units"][0].__setitem__("name", "a" * 33), "units[0].name: a name of 1..32"),
    (lambda d: d["units"][0].__setitem__("name", "\u0441ar"), "units[0].name: a name of 1..32 ASCII"),
])
def test_values_beyond_the_engine_are_named(raw, mutate, expected):
    """Each of these reached the engine before and failed there (a NaN output, a non-finite
    state at the first step, a crash of the validator itself)."""
    mutate(raw)
    got = problems(raw)
    assert any(p.startswith(expected) for p in got), got


def test_deep_or_duplicated_json_in_process(raw, tmp_path):
    deep = copy.deepcopy(raw)
    node = deep["units"][0]
    for _ in range(40):
        node["x"] = {}
        node = node["x"]
    assert problems(deep) == ["event: objects and lists nested at most 32 deep (got deeper)"]
    text = _text(raw).replace('"track": 1.3868', '"track": 1.3868, "track": 1.5')
    path = tmp_path / "dup.json"
    path.write_text(text)
    got = problems(path)
    assert got == ["units[0].axles[0].track: given more than once in the same object (each field once)"]
    engine.load_event(raw)      # the longest legal name and the sheet itself load
    raw["units"][0]["name"] = "A" * 32
    engine.load_event(raw)


# --- the engine's public API --------------------------------------------------------------
@pytest.fixture(scope="module")
def sim():
    return engine.Simulation(engine.load_event())


@pytest.mark.parametrize("field, value, message", [
    ("gear", 40, r"car\.gear: a value in -1 \.\. 5 \(got 40\.0\)"),
    ("gear", 2.5, r"car\.gear: an integer gear"),
    ("throttle", float("nan"), r"car\.throttle: a finite number"),
    ("brakePedalForce", -1.0, r"car\.brakePedalForce: a value in 0\.0 \.\. 5000\.0"),
])
def test_advance_refuses_bad_inputs(sim, field, value, message):
    saved = sim.get_state()
    j = engine.UNIT_INPUTS.index(field)
    sim.u_unit[0, j] = value
    try:
        with pytest.raises(engine.InputError, match=message):
            sim.advance(sim.time + 0.01)
        assert sim.time == saved.time and np.array_equal(sim.y, saved.y)
    finally:
        sim.set_state(saved)
    sim.advance(sim.time + 0.002)


def test_advance_refuses_bad_times_and_arrays_cannot_be_replaced(sim):
    for t_end in (float("nan"), float("inf"), "1.0", True, sim.time - 1.0, 1e300):
        with pytest.raises(engine.InputError, match="t_end: a time in"):
            sim.advance(t_end)
    for name in ("y", "u_unit", "u_wheel", "u_env", "y_unit", "y_wheel", "y_tire"):
        with pytest.raises(AttributeError):
            setattr(sim, name, np.zeros(1))
    with pytest.raises(engine.EventError, match="stepSize: a step 1e-06 <= h <= 0.002 s"):
        engine.Simulation(sim.event, step_size=1e-300)


def test_set_state_refuses_bad_states(sim):
    good = sim.get_state()
    bad_y = copy.deepcopy(good)
    bad_y.y[3] = float("nan")
    bad_gear = copy.deepcopy(good)
    bad_gear.u_unit[0, engine.UNIT_INPUTS.index("gear")] = 40
    bad_shape = copy.deepcopy(good)
    bad_shape.u_env = np.zeros(7)
    for state, message in ((bad_y, "state: y of shape"), (bad_gear, r"state: inputs within their ranges \(car\.gear"),
                           (bad_shape, "state: u_env of shape")):
        with pytest.raises(ValueError, match=message):
            sim.set_state(state)
        assert np.array_equal(sim.y, good.y) and np.array_equal(sim.u_unit, good.u_unit)
        with pytest.raises(ValueError):
            sim.set_state(sim.deserialize_state(sim.serialize_state(state)))
    sim.set_state(sim.deserialize_state(sim.serialize_state(good)))


def test_every_state_of_a_crash_is_taken_back():
    """No false refusal (engine.layout.state_fault): along a car's crash into a semitrailer's
    tandem axle (test_native_platforms' crash), whose states hold vertices' entry faces and the
    pair's contact faces, every state is serialised, read back and restored every 10 ms."""
    from engine import layout as L
    data = json.loads((ROOT / "engine" / "data" / "car-and-semitrailer.json").read_text())
    units = {u["name"]: u for u in data["units"]}
    units["car"]["initial"] = {"X": 5.101, "Y": -21.665, "yaw": 1.8873, "speed": 29.98}
    units["tractor"]["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 10.94}
    sim = engine.Simulation(engine.load_event(data), warn=False)
    base = int(sim.model.P_ENV[L.E_COLL_BASE]) + L.N_COLL_UNIT_STATE * sim.model.P_UNIT.shape[0]
    entries = slice(base + sim.model.CV.shape[0], base + 2 * sim.model.CV.shape[0])
    held = 0
    for k in range(150):
        sim.advance(round((k + 1) * 0.01, 10))
        held += int(np.any(sim.y[entries] != 0.0))
        sim.set_state(sim.deserialize_state(sim.serialize_state(sim.get_state())))
    print(f"{held} of 150 states hold an entry face")
    assert held >= 10


@pytest.mark.parametrize("block, value, accepts", [
    ("attitude", 0.5, "a whole number from -1 to 1"),
    ("attitude", -2.0, "a whole number from -1 to 1"),
    ("contact", 3.0, "a whole number from 0 to 2"),
    ("entry", 1e18, "a whole number from 0 to 12"),
    ("entry", 2.5, "a whole number from 0 to 12"),
    ("entry", -1.0, "a whole number from 0 to 12"),
    ("pair", 7.0, "a whole number from 0 to 6"),
])
def test_set_state_refuses_codes_no_run_leaves(block, value, accepts):
    """The codes among the states (engine.layout.state_fault), edited in a state of two cars:
    a body's attitude index (the sign its axes turn by near 90 degrees of pitch), a unit's
    contact, a mesh vertex's entry face and a pair's contact face (indices of the collision
    kernels). Each is refused naming the slot, its value and what a run leaves there; the
    values a run leaves pass, the codes at their ends among them."""
    from engine import layout as L
    sim = engine.Simulation(engine.load_event(ROOT / "engine" / "data" / "two-cars.json"))
    good = sim.get_state()
    base = int(sim.model.P_ENV[L.E_COLL_BASE])
    nu, nv = sim.model.P_UNIT.shape[0], sim.model.CV.shape[0]
    slot = {"attitude": L.N_BODY + L.SATT, "contact": base + L.N_COLL_UNIT_STATE + L.CS_CONTACT,
            "entry": base + L.N_COLL_UNIT_STATE * nu + nv + 5,
            "pair": base + L.N_COLL_UNIT_STATE * nu + 2 * nv + L.PS_FACE_ON_A}[block]
    top = float(accepts.split()[-1])
    for legal in (0.0, top):
        ok = copy.deepcopy(good)
        ok.y[slot] = legal
        sim.set_state(ok)
    bad = copy.deepcopy(good)
    bad.y[slot] = value
    with pytest.raises(ValueError) as refused:
        sim.set_state(bad)
    print(refused.value)
    assert str(refused.value) == f"state: {sim.state_names[slot]} = {value:.6g}, where a run leaves {accepts}"
    assert np.array_equal(sim.y, ok.y)
