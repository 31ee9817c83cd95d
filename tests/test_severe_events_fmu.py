"""Severe events run to the end, through the built FMU (fmpy): a rollover to rest, a pitch-over
through 90 degrees, braking at five times the road's friction, and the manual's stop at a
tire's max_deflection as an option (docs/equations.md, "Beyond the tire's range" and "Pitch
through 90 degrees").

The references are independent of the engine: the body's box from the event's dimensions
(``engine.setup.collision.unit_box``, the geometry the event describes) placed by the FMU's
position and Euler-angle outputs; the mechanical energy from the outputs and the event's
masses and inertias; the friction bound from the tire data; and the mean deceleration of staged
and real-world rollovers, 0.4 to 0.5 g (from 0.6 g early in a roll to 0.2 g late; Rose and
Beauchamp, SAE 2009-01-0093; two dolly rollovers on soil: 0.52 and 0.53 g).
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

import engine
from support.fmus import event_fmu
from support.frames import rotation
from support.run import run
from support.sedan import loaded_radius, static_loads
from support.severe import BODY, SPINS, WHEELS, deepest_corner, rollover_figures, run_rollover

DATA = json.loads(engine.load_event().to_json())
CAR = DATA["units"][0]
G = DATA["environment"]["gravity"]
MASS = CAR["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in CAR["axles"])
IX, IY, IZ = CAR["sprung_mass"]["inertia"]
SPIN = CAR["tires"]["front"]["spin_inertia"]
PEAK_MU = max(max(row) for t in CAR["tires"].values() for row in t["peak_friction"])
AERO = ("car.aero.Fx", "car.aero.Fy", "car.aero.Fz")
TREAD = tuple(f"{w}.{q}" for w in WHEELS for q in ("deflection", "inclination"))
TIRES = tuple(f"{w}.{q}" for w in WHEELS for q in ("Fx", "Fy", "Fz"))


def _energy(r):
    """Kinetic (body translation and rotation, wheel spin) plus potential energy, J."""
    v2 = r["car.u"] ** 2 + r["car.v"] ** 2 + r["car.w"] ** 2
    rot = 0.5 * (IX * r["car.p"] ** 2 + IY * r["car.q"] ** 2 + IZ * r["car.r"] ** 2)
    spin = 0.5 * SPIN * sum(r[s] ** 2 for s in SPINS)
    return 0.5 * MASS * v2 + rot + spin - MASS * G * r["car.Z"]


def _steps(a):
    return np.abs(np.diff(a)).max()


def _turns_per_step(r):
    """The largest rotation (rad) between two successive samples of the body's attitude, from
    the Euler-angle outputs: the angles describe a continuous motion."""
    Rs = [rotation(f, t, p) for f, t, p in zip(r["car.roll"], r["car.pitch"], r["car.yaw"])]
    cos = [(np.trace(a.T @ b) - 1.0) / 2.0 for a, b in zip(Rs, Rs[1:])]
    return float(np.arccos(np.clip(cos, -1.0, 1.0)).max())


_RUNS: dict = {}


def _once(name, make):
    """A scenario's recorded outputs, run once per test process (the runs take seconds)."""
    if name not in _RUNS:
        _RUNS[name] = make()
    return _RUNS[name]


@pytest.fixture
def rollover(instance, car_fmu):
    """The sedan at 30 m/s on friction 1.5, steered 6 rad at the start, for 14 s."""
    return _once("rollover", lambda: run_rollover(instance(car_fmu)))


def test_a_rollover_runs_to_rest(rollover):
    r = rollover
    t, roll = r["time"], r["car.roll"]
    # the outputs describe a continuous motion through every turn (body rates up to 15 rad/s:
    # at most 9 degrees in a 10 ms step), and no angle jumps to its other set (180 degrees);
    # near +-90 degrees of pitch roll and yaw turn fast (only their sum or difference is defined)
    print(f"largest rotation in 10 ms {math.degrees(_turns_per_step(r)):.1f} deg; largest angle "
          f"steps: roll {math.degrees(_steps(roll)):.1f}, pitch {math.degrees(_steps(r['car.pitch'])):.1f}, "
          f"yaw {math.degrees(_steps(r['car.yaw'])):.1f} deg")
    assert _turns_per_step(r) < math.radians(12.0)
    assert max(_steps(roll), _steps(r["car.pitch"]), _steps(r["car.yaw"])) < math.radians(90.0)
    # at rest at the end
    assert r["car.speed"][t > 13.0].max() < 0.1
    f = rollover_figures(r)
    print(f"trip at {f['trip_s']:.2f} s, {f['trip_speed_m_s']:.2f} m/s; rest at {f['rest_s']:.2f} s "
          f"after {f['distance_m']:.1f} m, {f['quarter_turns']} quarter turns, mean deceleration "
          f"{f['deceleration_g']:.3f} g over the distance, {f['deceleration_over_time_g']:.3f} g "
          f"over the time; final roll {f['final_roll_deg']:.1f} deg")
    quarter_turns, decel = f["quarter_turns"], f["deceleration_g"]
    assert quarter_turns >= 4
    # the staged tests' 0.4 to 0.5 g, with the spread of real rollovers (0.2 to 0.6 g)
    assert 0.35 < decel < 0.65


def test_the_body_never_goes_through_the_road(rollover):
    depth = deepest_corner(rollover)
    crush = rollover["car.collision.maxCrush"].max()
    print(f"deepest corner {depth.max():.4f} m below the road, largest crush {crush:.4f} m")
    # a corner is below the road by no more than the deepest approach the contact reports, and
    # never by the body's height (measured: 0.71 m at a corner of the 1.06 m box after three
    # roof impacts; the roof takes the side's crush stiffness, docs/limitations.md)
    assert depth.max() <= crush + 0.01
    assert crush < rollover_figures(rollover)["box_height_m"]


def test_the_energy_only_falls(rollover):
    """No input after the start: the mechanical energy falls, up to what the suspension springs,
    tires and contacts store and give back (measured: 1.9 kJ at most in 10 ms, against 460 kJ at
    the start); over 0.5 s windows it never rises by more than 1 % of the start."""
    e = _energy(rollover)[::50]
    rises = np.diff(e)
    print(f"energy {e[0] / 1e3:.1f} kJ at the start, {e[-1] / 1e3:.1f} kJ at rest; "
          f"largest rise over 0.5 s {rises.max():.1f} J")
    assert rises.max() < 0.01 * e[0]
    assert e[-1] < 0.05 * e[0]


#: a tractor-semitrailer rolling over and tumbling at 45 m/s (friction 2.5, the steering wheel
#: turned 20 rad at 0.1 s, no throttle or brake), for 6 s
TUMBLE = {"tractor.speed0": 45.0, "frictionMultiplier": 2.5}
TUMBLE_UNITS = ("tractor", "trailer")


def test_a_tumbling_rig_only_loses_energy(instance, semitrailer_fmu):
    """The fifth wheel's frame torsion is a spring on the joint's twist, not on the units' Euler
    roll angles (docs/equations.md, "Frame torsion"): through a tumble of more than two turns
    the rig's mechanical energy (every unit's, from its outputs and the event's masses and
    inertias) never exceeds the start's, and over 0.25 s it never rises by more than 5 % of
    the start, what the springs, tires and contacts store in a bounce and give back (measured:
    1.2 MJ of 35.7, 3.4 %). On the Euler angles the spring threw 30 to 90 MJ into the units
    when the tractor's angles passed a whole turn."""
    from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
    event = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    sim = engine.Simulation(event, warn=False)
    units = {u["name"]: u for u in event.data["units"]}
    inst = instance(semitrailer_fmu).start(TUMBLE)
    q = ("u", "v", "w", "p", "q", "r", "Z", "roll")
    r = run(inst, 6.0, lambda t, i: i.set("tractor.steeringWheelAngle", 20.0 if t >= 0.1 else 0.0),
            record=tuple(f"{n}.{k}" for n in TUMBLE_UNITS for k in q))
    e = 0.0
    for n in TUMBLE_UNITS:
        m, (ix, iy, iz) = sim.unit_mass(n), units[n]["sprung_mass"]["inertia"]
        o = {k: r[f"{n}.{k}"] for k in q}
        e = e + 0.5 * m * (o["u"] ** 2 + o["v"] ** 2 + o["w"] ** 2) \
            + 0.5 * (ix * o["p"] ** 2 + iy * o["q"] ** 2 + iz * o["r"] ** 2) - m * G * o["Z"]
    window = e[::25]
    rises = np.diff(window)
    turns = abs(r["trailer.roll"][-1]) / (2.0 * math.pi)
    print(f"energy {e[0] / 1e6:.1f} MJ after 10 ms, {e[-1] / 1e6:.1f} MJ at 6 s, at most "
          f"{e.max() / 1e6:.1f} MJ; largest rise over 0.25 s {rises.max() / 1e6:.2f} MJ; the "
          f"trailer rolled {turns:.1f} turns")
    assert turns > 1.0                     # it tumbles
    assert e.max() <= e[0] * 1.001
    assert rises.max() < 0.05 * e[0]


@pytest.fixture
def pitch_over(instance, car_fmu):
    """The sedan braked hard from 20 m/s on friction 3.5: past the pitch-over threshold mu > a/h
    (the sprung CG's distance to the front axle over its height)."""
    def make():
        inst = instance(car_fmu).start({"car.speed0": 20.0, "frictionMultiplier": 3.5})
        inst.set("car.brakePedalForce", 2000.0)
        return run(inst, 8.0, h=0.01, record=BODY)
    return _once("pitch_over", make)


def test_the_pitch_over_threshold_from_the_data():
    a, h = CAR["axles"][0]["x"], CAR["sprung_mass"]["cg_height"]
    assert PEAK_MU * 3.5 > a / h


def test_a_pitch_over_passes_90_degrees_and_runs_to_rest(pitch_over):
    r = pitch_over
    pitch = r["car.pitch"]
    print(f"pitch down to {math.degrees(pitch.min()):.1f} deg, final speed {r['car.speed'][-1]:.4f} m/s")
    assert pitch.min() < -math.radians(90.0)                   # through the vertical
    assert _steps(pitch) < math.radians(5.0)                   # continuously
    # no roll or yaw appear: the convention past 90 degrees keeps them (module docstring of
    # engine.kinematics)
    assert np.abs(r["car.roll"]).max() < 1e-6 and np.abs(r["car.yaw"]).max() < 1e-6
    assert r["car.speed"][r["time"] > 7.5].max() < 0.05


@pytest.fixture
def extreme_braking(instance, car_fmu):
    """Friction multiplier 5, 50 m/s, 5000 N on the pedal (25.6 g of body-axis acceleration
    once reported as a possible defect: docs/equations.md, "Beyond the tire's range")."""
    def make():
        inst = instance(car_fmu).start({"car.speed0": 50.0, "frictionMultiplier": 5.0})
        inst.set("car.brakePedalForce", 5000.0)
        return run(inst, 3.0, h=0.001, record=BODY + TIRES + TREAD + AERO)
    return _once("extreme_braking", make)


def test_braking_never_exceeds_the_friction_of_the_normal_loads(extreme_braking):
    """Each tire's ground force stays within the friction multiplier times its peak friction
    times its normal load; the car's horizontal deceleration, while only its treads touch the
    road and it is near level, within that friction times the sum of the normal loads plus the
    air's force, over the mass (1 % margin)."""
    r = extreme_braking
    mu = 5.0 * PEAK_MU
    for w in WHEELS:
        assert (np.hypot(r[w + ".Fx"], r[w + ".Fy"]) <= mu * r[w + ".Fz"] + 1e-6).all()
    # the earth-fixed horizontal velocity of the CG, from the body velocities and the angles
    vel = []
    for i in range(len(r["time"])):
        R = rotation(r["car.roll"][i], r["car.pitch"][i], r["car.yaw"][i])
        vel.append(R @ (r["car.u"][i], r["car.v"][i], r["car.w"][i]))
    vel = np.array(vel)
    dt = np.diff(r["time"])
    acc = np.hypot(np.diff(vel[:, 0]), np.diff(vel[:, 1])) / dt
    fz = sum(r[w + ".Fz"] for w in WHEELS)
    aero = np.sqrt(sum(r[a] ** 2 for a in AERO))
    bound = (mu * 0.5 * (fz[1:] + fz[:-1]) + np.maximum(aero[1:], aero[:-1])) / MASS
    # only the treads touch: no body force, no tire past its max_deflection (its rim on the road)
    # nor inclined past 45 degrees (its sidewall taking over; docs/equations.md)
    body = np.abs(r["car.collision.Fx"]) + np.abs(r["car.collision.Fy"]) + np.abs(r["car.collision.Fz"])
    tread = (body == 0.0)
    for w in WHEELS:
        tire = CAR["tires"][CAR["axles"][int(w[len("car.axle")]) - 1]["tire"]]
        tread &= (r[w + ".deflection"] < tire["max_deflection"]) & (np.abs(r[w + ".inclination"]) < math.radians(45.0))
    # ... and the body is within 10 degrees of level: the outputs are the sprung mass's, which the
    # suspension's forces (internal, along the body's z) push forward or back once it pitches
    tread &= np.abs(r["car.pitch"]) < math.radians(10.0)
    tires_only = tread[1:] & tread[:-1]
    assert tires_only[:100].all()
    print(f"largest deceleration over the friction bound while on the tires: "
          f"{(acc[tires_only] / bound[tires_only]).max():.4f}")
    assert (acc[tires_only] <= 1.01 * bound[tires_only]).all()
    # and the run goes on through the pitch-over to rest
    assert r["car.pitch"].min() < -math.radians(45.0)


def _stop_event():
    data = copy.deepcopy(DATA)
    data["simulation"]["tire_limit"] = "stop"
    return data


def test_the_manuals_stop_at_max_deflection_is_an_option(instance, fmu_dir):
    fmu = event_fmu(fmu_dir, "tire_limit_stop", _stop_event())
    inst = instance(fmu).start({"car.speed0": 50.0, "frictionMultiplier": 5.0})
    inst.set("car.brakePedalForce", 5000.0)
    with pytest.raises(FMICallException):
        run(inst, 1.0, h=0.01, record=("car.pitch",))
    assert any("tire deflection exceeds its maximum of 0.1 m" in m for m in inst.messages())


# --- a launch: the initial attitude and motion of all six degrees of freedom ---------------

LAUNCH = {"car.speed0": 0.0, "car.roll0": math.radians(23.0), "car.lateralSpeed0": 48.0 / 3.6,
          "car.rollRate0": 3.0}


def _launch_height():
    """The CG's earth Z (down +) of the sedan turned by roll0 about its CG and set on its lowest
    tire's unloaded circle: each wheel centre where the equilibrium has it (the loaded radius of
    the lever rule's load above the ground, the sheet's CG height above it), turned with the
    body, its wheel plane too."""
    phi = LAUNCH["car.roll0"]
    low = []
    for axle, load in zip(CAR["axles"], static_loads()):
        tire = CAR["tires"][axle["tire"]]
        centre_y, centre_z = 0.5 * axle["track"], CAR["sprung_mass"]["cg_height"] - loaded_radius(load, tire)
        low.append(centre_y * math.sin(phi) + (centre_z + tire["unloaded_radius"]) * math.cos(phi))
    return -max(low)


@pytest.fixture
def dolly(instance, car_fmu):
    """A dolly rollover (examples/dolly_rollover.py): 48 km/h sideways, 23 degrees of roll, 3 rad/s."""
    def make():
        inst = instance(car_fmu).start(LAUNCH)
        first = {n: inst.get(n) for n in BODY}
        return first, run(inst, 8.0, h=0.01, record=BODY)
    return _once("dolly", make)


def test_a_launch_starts_as_given(dolly):
    first, _ = dolly
    assert first["car.roll"] == pytest.approx(LAUNCH["car.roll0"], abs=1e-12)
    assert first["car.v"] == pytest.approx(LAUNCH["car.lateralSpeed0"], abs=1e-12)
    assert first["car.p"] == pytest.approx(LAUNCH["car.rollRate0"], abs=1e-12)
    assert first["car.u"] == 0.0 and first["car.pitch"] == 0.0
    # set on its lowest point: the leading tire's unloaded circle on the ground
    print(f"launch CG Z {first['car.Z']:.6f} m, from the data {_launch_height():.6f} m")
    assert first["car.Z"] == pytest.approx(_launch_height(), abs=2e-3)


def test_a_dolly_rollover_rolls_to_rest(dolly):
    _, r = dolly
    roll = r["car.roll"]
    assert _steps(roll) < math.radians(15.0)
    turns = abs(roll[-1] - LAUNCH["car.roll0"]) / (0.5 * math.pi)
    print(f"dolly rollover: {turns:.1f} quarter turns, rest {math.degrees(roll[-1]) % 360:.1f} deg, "
          f"{r['car.Y'][-1]:.2f} m across")
    assert turns >= 4.0
    assert r["car.speed"][r["time"] > 7.0].max() < 0.1


def test_a_launch_needs_a_vehicle_of_one_unit_on_flat_ground():
    from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
    with pytest.raises(engine.EventError) as e:
        engine.Simulation(engine.load_event(TRACTOR_SEMITRAILER_EVENT),
                          initial={"tractor": {"roll0": 0.1}})
    assert any(p.startswith("tractor.roll0: 0 for a vehicle that tows") for p in e.value.problems)
    with pytest.raises(engine.EventError) as e:
        engine.Simulation(engine.load_event(), initial={"car": {"rollRate0": 25.0}})
    assert any(p.startswith("car.rollRate0: a finite number in [-20, 20]") for p in e.value.problems)
