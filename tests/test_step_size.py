"""The internal step size: every step the engine and the FMU accept runs the vehicle, and a step
the vehicle's stiffest mode cannot take is refused up front, naming it (engine.setup.stability)."""
from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import fmi2Error

from conftest import build

import engine
from engine import layout as L
from engine.setup.event import EventError, MAX_STEP_SIZE, MAX_STEP_SIZES
from engine.setup.stability import rk4_amplification, rk4_limit, stable_step, step_limit
from engine.stability import CYCLE_GROWTH, rk2_amplification, rk2_resolves
from engine.tire import TAU_MIN

EVENT = engine.load_event()
CAR = EVENT.data["units"][0]
STIFF_SPRING = 1.0e9      # N/m on the front axle: a wheel-hop mode of about 6000 rad/s
U = engine.UNIT_INPUTS


def _stiff_event(rate=STIFF_SPRING):
    data = copy.deepcopy(EVENT.data)
    data["units"][0]["axles"][0]["suspension"]["spring_rate"] = rate
    return engine.load_event(data)


def test_rk4_stability_interval_and_imaginary_reach():
    """The classical values: -2.7853 on the real axis, 2 sqrt(2) on the imaginary axis."""
    assert rk4_limit(-1.0) == pytest.approx(2.785293563405282, rel=1e-12)
    assert rk4_limit(1j) == pytest.approx(2.0 * math.sqrt(2.0), rel=1e-12)
    assert rk4_amplification(2.0 * math.sqrt(2.0) * 1j) == pytest.approx(1.0, abs=1e-12)
    lam = complex(-50.0, 400.0)
    h = rk4_limit(lam)
    assert rk4_amplification(h * lam) <= 1.0 < rk4_amplification(1.001 * h * lam)


def test_rk2_stability_interval_and_undamped_growth():
    """Heun's method: its interval reaches -2 on the real axis; an undamped oscillation grows
    at any step, and the step check takes the one at which it grows by CYCLE_GROWTH over a
    period of 2 pi / y steps: ln|R(iy)| 2 pi / y = ln(1 + g), |R(iy)|^2 = 1 + y^4 / 4; a mode
    damped by more than that a period is held to the region."""
    rk2 = L.INTEGRATOR_RK2
    assert step_limit(-1.0, rk2) == pytest.approx(2.0, rel=1e-12)
    assert rk2_amplification(-2.0, 0.0) == pytest.approx(1.0, abs=1e-15)
    y = step_limit(1j, rk2)
    assert 0.5 * math.log1p(y ** 4 / 4.0) * 2.0 * math.pi / y == pytest.approx(
        math.log1p(CYCLE_GROWTH), rel=1e-9)
    assert y == pytest.approx((8.0 * math.log1p(CYCLE_GROWTH) / (2.0 * math.pi)) ** (1 / 3),
                              rel=1e-3)       # the small-y form 2 pi y^3 / 8
    # a mode damped by more than 1 % a period (here e^(-2 pi 50 / 400) = 0.46): the region
    for lam in (complex(-50.0, 400.0), complex(-400.0, 50.0)):
        h = step_limit(lam, rk2)
        assert rk2_amplification((h * lam).real, (h * lam).imag) <= 1.0 < rk2_amplification(
            (1.001 * h * lam).real, (1.001 * h * lam).imag)
    # a mode damped by less (0.5 %): beyond the region, it may grow by 1.01 times its true
    # change a period, 0.5 %
    lam = complex(-0.3, 400.0)
    h = step_limit(lam, rk2)
    z = h * lam
    period = 2.0 * math.pi / z.imag
    growth = rk2_amplification(z.real, z.imag) ** period
    assert growth == pytest.approx(1.01 * math.exp(z.real * period), rel=1e-9)
    assert 1.0 < growth < 1.01
    # RK4's check is the same as before
    assert step_limit(lam, L.INTEGRATOR_RK4) == rk4_limit(lam)


@pytest.mark.parametrize("method", MAX_STEP_SIZES)
def test_the_largest_accepted_step_resolves_a_sliding_tire(method):
    """MAX_STEP_SIZES keep a sliding tire's carcass deflection (time constant TAU_MIN) inside
    each method's interval, with margin."""
    code = {"rk4": L.INTEGRATOR_RK4, "rk2": L.INTEGRATOR_RK2}[method]
    assert MAX_STEP_SIZES[method] <= 0.75 * step_limit(-1.0 / TAU_MIN, code)
    assert MAX_STEP_SIZE == MAX_STEP_SIZES["rk4"]


def _rk2_event(step=None):
    data = copy.deepcopy(EVENT.data)
    data["simulation"]["integrator"] = "rk2"
    if step is not None:
        data["simulation"]["step_size"] = step
    return engine.load_event(data)


def test_rk2_refuses_a_step_beyond_its_interval():
    """An event or a stepSize beyond MAX_STEP_SIZES["rk2"] is refused, naming the method; an
    unknown method names the accepted ones."""
    with pytest.raises(EventError, match=r"simulation\.step_size: at most 0\.0014 s with "
                                         r"simulation\.integrator 'rk2' \(got 0\.0015\)"):
        _rk2_event(0.0015)
    with pytest.raises(EventError, match=r"stepSize: a step 1e-06 <= h <= 0\.0014 s \(got "
                                         r"0\.0016\) with simulation\.integrator 'rk2'"):
        engine.Simulation(_rk2_event(), step_size=0.0016)
    data = copy.deepcopy(EVENT.data)
    data["simulation"]["integrator"] = "euler"
    with pytest.raises(EventError, match=r"simulation\.integrator: one of 'rk4', 'rk2'"):
        engine.load_event(data)


@pytest.mark.parametrize("method", MAX_STEP_SIZES)
@pytest.mark.parametrize("speed, steer, brake, throttle, gear", [
    (40.0, 0.0, 5000.0, 0.0, 0),     # locked-wheel stop from 144 km/h
    (5.0, 0.0, 5000.0, 1.0, 1),      # brake and throttle against each other
    (40.0, 2.0, 0.0, 0.0, 0),        # steering-wheel 2 rad at 144 km/h: a spin
    (0.0, 0.5, 0.0, 1.0, 1),         # full-throttle launch, steered
])
def test_every_accepted_step_runs_the_hardest_manoeuvres(speed, steer, brake, throttle, gear,
                                                        method):
    event = EVENT if method == "rk4" else _rk2_event()
    sim = engine.Simulation(event, step_size=MAX_STEP_SIZES[method],
                            initial={"car": {"speed0": speed}})
    for name, value in (("steeringWheelAngle", steer), ("brakePedalForce", brake),
                        ("throttle", throttle), ("gear", gear)):
        sim.u_unit[0, U.index(name)] = value
    sim.advance(4.0)
    assert np.isfinite(sim.y).all()


def test_a_step_beyond_the_stiffest_mode_is_refused_and_really_diverges():
    event = _stiff_event()
    probe = engine.Simulation(event, step_size=1e-4)
    limit = stable_step(probe)
    assert "axle1" in limit.state and "dz" in limit.state
    # the wheel-hop mode: the unsprung mass between the tire and the spring, whose far end
    # is the body at the wheel, of effective mass 1/m_c = 1/m_s + (t/2)^2/I_x + a^2/I_y
    axle = CAR["axles"][0]
    m_u, m_s = axle["unsprung_mass_per_wheel"], CAR["sprung_mass"]["mass"]
    i_x, i_y, _ = CAR["sprung_mass"]["inertia"]
    m_c = 1.0 / (1.0 / m_s + (axle["track"] / 2) ** 2 / i_x + axle["x"] ** 2 / i_y)
    k_t = CAR["tires"]["front"]["radial_stiffness"]
    omega = math.sqrt((STIFF_SPRING + k_t) / m_u + STIFF_SPRING / m_c)
    assert abs(limit.eigenvalue.imag) == pytest.approx(omega, rel=0.01)     # 0.3 % measured
    assert limit.h_max == pytest.approx(rk4_limit(limit.eigenvalue), rel=1e-12)
    with pytest.raises(engine.EventError) as refused:
        engine.Simulation(event, step_size=1.05 * limit.h_max)
    (message,) = refused.value.problems
    assert message.startswith("stepSize: a step <= ") and limit.state in message
    # the check predicts the integrator: just inside it runs, just outside it diverges
    ok = engine.Simulation(event, step_size=0.95 * limit.h_max)
    ok.advance(0.5)
    with pytest.raises(engine.SimulationError):
        probe._run(1.3 * limit.h_max, int(0.5 / (1.3 * limit.h_max)))


def test_build_refuses_an_event_no_step_resolves(tmp_path):
    event_file = tmp_path / "stiff.json"
    event_file.write_text(json.dumps(_stiff_event().data))
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "build", str(event_file), "-o",
                           str(tmp_path / "x.fmu"), "--no-warm"], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "stepSize: a step <= " in done.stderr and "axle1" in done.stderr
    assert not (tmp_path / "x.fmu").exists()


def test_fmu_refuses_a_step_size_its_vehicle_cannot_take(instance, fmu_dir):
    """A vehicle that runs at 0.5 ms but not at 2 ms: fmi2Error at the end of
    initialisation, naming stepSize and the mode; at 0.5 ms it runs."""
    rate = 2.0e8
    event_file = fmu_dir / "stiff-2e8.json"
    event_file.write_text(json.dumps(_stiff_event(rate).data | {"simulation": {"step_size": 5e-4}}))
    fmu = build(event_file, fmu_dir / "Stiff.fmu")
    inst = instance(fmu)
    with pytest.raises(FMICallException) as failed:
        inst.start({"stepSize": MAX_STEP_SIZE})
    assert failed.value.status == fmi2Error
    message = inst.messages(fmi2Error)[-1]
    assert "stepSize" in message and "axle1" in message, inst.log
    runs = instance(fmu).start({"car.speed0": 10.0})
    for n in range(20):
        runs.fmu.doStep(n * 0.01, 0.01)


@pytest.mark.parametrize("name", ["sedan", "tractor-semitrailer", "car-and-semitrailer",
                                  "double-fixed-dolly", "truck-full-trailer", "two-cars",
                                  "double"])
def test_the_bundled_events_under_rk2(name):
    """Every bundled event starts under RK2 at its 1 ms step but the double: its converter
    dolly's pitch mode (about -2109 1/s at the start) asks for 0.948 ms, and the refusal names
    the mode and the method; 0.9 ms starts."""
    data = json.loads((Path(engine.__file__).parent / "data" / f"{name}.json").read_text())
    data.setdefault("simulation", {})["integrator"] = "rk2"
    event = engine.load_event(data)
    if name != "double":
        engine.Simulation(event, warn=False)
        return
    with pytest.raises(EventError, match=r"stepSize: a step <= 0\.000948 s .* in dolly\.q, .* "
                                         r"2nd-order Runge-Kutta \(Heun\) step is stable only"):
        engine.Simulation(event, warn=False)
    engine.Simulation(event, step_size=0.0009, warn=False)


def test_a_trailer_axle_resting_on_its_jounce_stop_is_judged_by_its_modes(tmp_path):
    """The double with a 10.5 cm pad under one wheel of its second trailer's front axle: the
    trailer's axles start pressed into their jounce stops. A stop switches to its unloading
    branch on the sign of its rate, so at rest on it the check's difference quotient of a
    zero rate crossed the switch and saw a "mode" of -6.3e7 1/s in an axle's heave rate, for
    which no step the engine accepts was enough. A stop unloads only while it recedes faster
    than engine.suspension.STOP_RECEDE, and the limit is now that of a mode of the vehicle:
    the most loaded wheel's spin, which the step then resolves."""
    from support.roads import grid_mesh_obj
    data = json.loads(Path(engine.setup.event.DOUBLE_EVENT).read_text())
    start = engine.Simulation(engine.load_event(copy.deepcopy(data)))
    out = engine.UNIT_OUTPUTS
    trailer = start.y_unit[start.unit_names.index("trailer2")]
    axle = next(u for u in data["units"] if u["name"] == "trailer2")["axles"][0]
    xw = trailer[out.index("X")] + axle["x"] * math.cos(trailer[out.index("yaw")])
    yw = trailer[out.index("Y")] - 0.5 * axle["track"]

    def pad(x, y):      # 10.5 cm (Z down), 1.2 m by 0.4 m, with ramps of 0.6 m and 0.2 m
        return -0.105 * np.clip(2.0 - np.abs(x - xw) / 0.6, 0.0, 1.0) \
            * np.clip(2.0 - np.abs(y - yw) / 0.2, 0.0, 1.0)

    grid_mesh_obj(tmp_path / "pad.obj", pad, (-80.0, 20.0), (-6.0, 6.0), (500, 120))
    data["environment"]["terrain"] = {"type": "mesh", "file": "pad.obj"}
    event = engine.load_event(data, base=tmp_path)
    with pytest.raises(EventError) as err:
        engine.Simulation(event)
    assert "spin" in str(err.value) and "no step the engine accepts" not in str(err.value)
    sim = engine.Simulation(event, step_size=0.0004)
    jounce = sim.y_wheel[:, engine.WHEEL_OUTPUTS.index("jounce")]
    stop = axle["suspension"]["jounce_stop"]["clearance"]
    limit = sim.step_limit
    print(f"stop {stop} m, the deepest jounce {jounce.max():.4f} m; the limit {limit.h_max:.3g} s "
          f"in {limit.state} ({limit.eigenvalue:.4g} 1/s)")
    assert jounce.max() > stop
    assert limit.state.endswith(".spin") and abs(limit.eigenvalue) < 1e4
    sim.advance(0.5)
    assert np.all(np.isfinite(sim.y))
