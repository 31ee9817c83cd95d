"""Speed benchmark: the same steering manoeuvre on the peer model, the engine and the FMU.

The manoeuvre: 20 s at 20 m/s, a 0.5 Hz sine of the steering wheel whose amplitude gives
about 4 m/s^2 peak lateral acceleration on the reference sedan, with the throttle (the peer's
acceleration input) governed to hold the speed.

Variants, each run in its own Python process so that its peak memory is its own:

  peer            commonroad-vehicle-models 3.0.2, multi-body model, parameter set 2,
                  fixed-step RK4 at 1 ms in plain Python around vehicle_dynamics_mb
  engine-1ms      engine.Simulation(step_size=0.001), one advance() call per 1 ms
  engine-10ms     the same, one advance() call per 10 ms
  engine-advance  the same, a single advance(T) with the inputs held (steering at the sine's
                  amplitude, throttle at its trim value): the integrator's own speed, not the
                  sine manoeuvre
  fmu-10ms        the FMU through fmpy's FMU2Slave, a manual loop, communication step 10 ms
  fmu-1ms         the same with a 1 ms communication step
  fmu-1ms-buffers the same, setReal/getReal through reused ctypes buffers (fmpy's wrappers
                  build new ones per call), to separate fmpy's client cost from the FMU's
  fmu-simulate    fmpy.simulate_fmu, 10 ms step, the sine as an input table, throttle held
  cold-start      a new process that loads the FMU and completes its first doStep

Wall times cover the stepping loop only (the client's input calculation, set, step and get
included); construction and FMU instantiation are reported separately. Real-time factor is
simulated time / wall time.

Usage (from the repository root):

  python benchmarks/speed.py [--fmu out/SimonCar.fmu] [--quick] [--json out/benchmark.json]

The FMU is built with ``python -m simon_fmu build -o <fmu>`` when it does not exist.
It is a benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FMU = REPO / "out" / "SimonCar.fmu"
DEFAULT_JSON = REPO / "out" / "benchmark.json"

# ---------------------------------------------------------------------------------------------
# The manoeuvre
# ---------------------------------------------------------------------------------------------
SPEED = 20.0                 # m/s, initial and target speed
SINE_FREQUENCY = 0.5         # Hz, steering-wheel sine
TARGET_PEAK_AY = 4.0         # m/s^2, peak lateral acceleration the amplitude is sized for
DURATION = 20.0              # s, full run
QUICK_DURATION = 2.0         # s, --quick smoke run
PHYSICS_STEP = 0.001         # s, peer RK4 step and engine internal step
GEAR = 4                     # engine gear held: about 1980 rpm at 20 m/s on the sedan

# Speed governor, the same structure for every variant: input = feed-forward + PI on the
# speed error. Output is throttle (0..1) for the engine, acceleration (m/s^2) for the peer.
THROTTLE_FEEDFORWARD = 0.2   # first guess at the sedan's constant-speed throttle in 4th
THROTTLE_KP = 0.10           # 1 per m/s
THROTTLE_KI = 0.05           # 1 per m
PEER_ACCEL_KP = 1.0          # (m/s^2) per m/s
PEER_ACCEL_KI = 0.5          # (m/s^2) per m


class SpeedGovernor:
    """Feed-forward plus PI on the speed error, clamped; one update per control interval."""

    def __init__(self, dt, feedforward, kp, ki, low=-math.inf, high=math.inf):
        self.dt, self.feedforward, self.kp, self.ki = dt, feedforward, kp, ki
        self.low, self.high = low, high
        self.integral = 0.0

    def update(self, speed):
        error = SPEED - speed
        self.integral += error * self.dt
        command = self.feedforward + self.kp * error + self.ki * self.integral
        return self.low if command < self.low else self.high if command > self.high else command


def throttle_governor(dt):
    return SpeedGovernor(dt, THROTTLE_FEEDFORWARD, THROTTLE_KP, THROTTLE_KI, 0.0, 1.0)


# ---------------------------------------------------------------------------------------------
# Steering amplitude from the linear bicycle model of the reference sedan
# ---------------------------------------------------------------------------------------------
# Data from the reference sedan sheet (the project's default event).
G = 9.80665                  # m/s^2
SPRUNG_MASS = 965.71         # kg
UNSPRUNG_MASS = 31.896       # kg per wheel, front and rear
CG_TO_FRONT = 1.1562         # m, sprung-mass CG to front axle (a)
CG_TO_REAR = 1.4227          # m, sprung-mass CG to rear axle (b)
STEERING_RATIO = 16.0        # steering-wheel angle : road-wheel angle
TABLE_LOADS = (2000.0, 4000.0, 6000.0)            # N
FRONT_C_ALPHA = (50000.0, 70000.0, 80000.0)       # N/rad per tire
REAR_C_ALPHA = (62500.0, 87500.0, 100000.0)       # N/rad per tire


def _interp(x, xs, ys):
    """Piecewise-linear table look-up, held constant outside the table."""
    if x <= xs[0]:
        return ys[0]
    for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return ys[-1]


def steering_amplitude():
    """Road-wheel and steering-wheel sine amplitudes (rad) for TARGET_PEAK_AY at SPEED.

    Linear bicycle model in steady state: ay / delta = V^2 / (L + K V^2), with L the
    wheelbase, delta the road-wheel angle and K = m_f / C_f - m_r / C_r the understeer
    gradient (rad per m/s^2): m_f, m_r the static axle loads in kg, C_f, C_r the axle
    cornering stiffnesses (two tires each) from the sheet's C_alpha tables at the static tire
    load. That load is the sprung mass shared by the lever rule plus the unsprung mass of the
    wheel: about 2925 N front and 2436 N rear. The gain is the steady-state one; the same
    model's yaw natural frequency at 20 m/s is about 1.9 Hz, so at 0.5 Hz the peak stays
    close to it.
    """
    wheelbase = CG_TO_FRONT + CG_TO_REAR
    fz_front = (SPRUNG_MASS * CG_TO_REAR / wheelbase / 2 + UNSPRUNG_MASS) * G    # N per tire
    fz_rear = (SPRUNG_MASS * CG_TO_FRONT / wheelbase / 2 + UNSPRUNG_MASS) * G    # N per tire
    c_front = 2 * _interp(fz_front, TABLE_LOADS, FRONT_C_ALPHA)                  # N/rad axle
    c_rear = 2 * _interp(fz_rear, TABLE_LOADS, REAR_C_ALPHA)
    mass_front = 2 * fz_front / G                                                # kg on axle
    mass_rear = 2 * fz_rear / G
    understeer = mass_front / c_front - mass_rear / c_rear                        # rad/(m/s^2)
    ay_per_rad = SPEED ** 2 / (wheelbase + understeer * SPEED ** 2)               # m/s^2/rad
    road_wheel = TARGET_PEAK_AY / ay_per_rad
    return {
        "tire_load_front_N": fz_front,
        "tire_load_rear_N": fz_rear,
        "axle_cornering_stiffness_front_N_per_rad": c_front,
        "axle_cornering_stiffness_rear_N_per_rad": c_rear,
        "understeer_gradient_rad_per_mps2": understeer,
        "ay_per_road_wheel_angle_mps2_per_rad": ay_per_rad,
        "road_wheel_amplitude_rad": road_wheel,
        "steering_wheel_amplitude_rad": road_wheel * STEERING_RATIO,
    }


AMPLITUDE = steering_amplitude()
ROAD_WHEEL_AMPLITUDE = AMPLITUDE["road_wheel_amplitude_rad"]
WHEEL_AMPLITUDE = AMPLITUDE["steering_wheel_amplitude_rad"]
OMEGA = 2.0 * math.pi * SINE_FREQUENCY


def _peak_rss_mb():
    """Peak resident set size of this process image, MB.

    resource.getrusage's ru_maxrss is kept across exec on Linux, so a child started from a
    larger parent reports at least the parent's size. The kernel's high-water mark of the
    current image (VmHWM) is this process's own; both are reported, VmHWM is the figure used.
    """
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # kB on Linux
    hwm = None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return (hwm if hwm is not None else maxrss), maxrss


def _step_stats(samples_ns):
    """Median, 99th percentile and maximum of per-call wall times, microseconds."""
    s = sorted(samples_ns)
    n = len(s)
    return {
        "calls": n,
        "median_us": statistics.median(s) / 1e3,
        "p99_us": s[min(n - 1, math.ceil(0.99 * n) - 1)] / 1e3,
        "max_us": s[-1] / 1e3,
    }


# ---------------------------------------------------------------------------------------------
# Variant: the peer (CommonRoad multi-body model, plain-Python RK4)
# ---------------------------------------------------------------------------------------------
def run_peer(duration):
    try:
        from vehiclemodels.init_mb import init_mb
        from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
        from vehiclemodels.vehicle_dynamics_mb import vehicle_dynamics_mb
    except ImportError as exc:
        raise ImportError(f"{exc}; the peer needs: pip install "
                          "commonroad-vehicle-models==3.0.2") from None

    setup_start = time.perf_counter()
    p = parameters_vehicle2()
    # [sx, sy, delta, v, psi, psi_dot, beta]
    x = init_mb([0.0, 0.0, 0.0, SPEED, 0.0, 0.0, 0.0], p)
    setup = time.perf_counter() - setup_start

    h = PHYSICS_STEP
    n = int(round(duration / h))
    ns = range(len(x))
    amplitude = ROAD_WHEEL_AMPLITUDE
    governor = SpeedGovernor(h, 0.0, PEER_ACCEL_KP, PEER_ACCEL_KI)
    peak_ay = 0.0
    min_speed = max_speed = x[3]

    start = time.perf_counter()
    for k in range(n):
        t_next = (k + 1) * h
        # The peer steers through its steering-rate input u[0]. A constant rate over the step
        # that lands the road-wheel angle on the sine at the step's end keeps it on the sine
        # without drift (the rate stays far inside the peer's 0.4 rad/s limit).
        steer_rate = (amplitude * math.sin(OMEGA * t_next) - x[2]) / h
        # u[1] is the longitudinal acceleration demand: PI governor on the x-velocity.
        u = [steer_rate, governor.update(x[3])]
        vy_before = x[10]

        k1 = vehicle_dynamics_mb(x, u, p)
        k2 = vehicle_dynamics_mb([x[i] + 0.5 * h * k1[i] for i in ns], u, p)
        k3 = vehicle_dynamics_mb([x[i] + 0.5 * h * k2[i] for i in ns], u, p)
        k4 = vehicle_dynamics_mb([x[i] + h * k3[i] for i in ns], u, p)
        x = [x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) for i in ns]

        # Lateral acceleration of the sprung mass in the vehicle frame: dv_y/dt + r v_x.
        ay = (x[10] - vy_before) / h + x[5] * x[3]
        if abs(ay) > peak_ay:
            peak_ay = abs(ay)
        if x[3] < min_speed:
            min_speed = x[3]
        elif x[3] > max_speed:
            max_speed = x[3]
    wall = time.perf_counter() - start

    return {
        "simulated_s": n * h,
        "wall_s": wall,
        "setup_s": setup,
        "peak_ay_mps2": peak_ay,
        "speed_range_mps": [min_speed, max_speed],
        "note": "vehicle_dynamics_mb, parameters_vehicle2, RK4 h=1 ms in Python lists",
    }


# ---------------------------------------------------------------------------------------------
# Variant: the engine called directly
# ---------------------------------------------------------------------------------------------
def _engine_simulation():
    import engine

    event = engine.load_event()
    sim = engine.Simulation(event, step_size=PHYSICS_STEP,
                            initial={"car": {"speed0": SPEED, "X0": 0.0, "Y0": 0.0,
                                             "yaw0": 0.0}})
    columns = {
        "steer": engine.UNIT_INPUTS.index("steeringWheelAngle"),
        "throttle": engine.UNIT_INPUTS.index("throttle"),
        "gear": engine.UNIT_INPUTS.index("gear"),
        "ay": engine.UNIT_OUTPUTS.index("ay"),
        "speed": engine.UNIT_OUTPUTS.index("speed"),
    }
    sim.u_unit[0, columns["gear"]] = GEAR
    return sim, columns


def run_engine_loop(duration, chunk):
    """The sine manoeuvre, one advance() per `chunk` seconds, governor updated each call."""
    setup_start = time.perf_counter()
    sim, c = _engine_simulation()
    setup = time.perf_counter() - setup_start

    n = int(round(duration / chunk))
    u_unit, y_unit = sim.u_unit, sim.y_unit
    i_steer, i_thr, i_ay, i_speed = c["steer"], c["throttle"], c["ay"], c["speed"]
    amplitude = WHEEL_AMPLITUDE
    advance = sim.advance
    governor = throttle_governor(chunk)
    throttle_sum = 0.0
    peak_ay = 0.0
    min_speed = max_speed = y_unit.item(0, i_speed)
    calls = [0] * n

    start = time.perf_counter()
    for k in range(n):
        t0 = time.perf_counter_ns()
        # Inputs held over the call: the sine at the start of the interval.
        u_unit[0, i_steer] = amplitude * math.sin(OMEGA * k * chunk)
        speed = y_unit.item(0, i_speed)          # .item(): a Python float, not a numpy scalar
        throttle = governor.update(speed)
        u_unit[0, i_thr] = throttle
        throttle_sum += throttle
        advance((k + 1) * chunk)
        ay = abs(y_unit.item(0, i_ay))
        if ay > peak_ay:
            peak_ay = ay
        if speed < min_speed:
            min_speed = speed
        elif speed > max_speed:
            max_speed = speed
        calls[k] = time.perf_counter_ns() - t0
    wall = time.perf_counter() - start

    return {
        "simulated_s": sim.time,
        "wall_s": wall,
        "setup_s": setup,
        "peak_ay_mps2": float(peak_ay),
        "speed_range_mps": [float(min_speed), float(max_speed)],
        "mean_throttle": throttle_sum / n,
        "per_call": _step_stats(calls),
        "note": f"engine.Simulation step 1 ms, advance() every {chunk * 1e3:g} ms",
    }


def _trim_throttle(duration=2.0):
    """Constant-speed throttle with the steering at the sine's amplitude (an untimed run)."""
    sim, c = _engine_simulation()
    sim.u_unit[0, c["steer"]] = WHEEL_AMPLITUDE
    chunk = 0.01
    governor = throttle_governor(chunk)
    throttle = THROTTLE_FEEDFORWARD
    for k in range(int(round(duration / chunk))):
        throttle = governor.update(sim.y_unit[0, c["speed"]])
        sim.u_unit[0, c["throttle"]] = throttle
        sim.advance((k + 1) * chunk)
    return float(throttle)


def run_engine_advance(duration):
    """One advance(duration) call with the inputs held: the integrator alone."""
    setup_start = time.perf_counter()
    throttle = _trim_throttle()
    sim, c = _engine_simulation()
    sim.u_unit[0, c["steer"]] = WHEEL_AMPLITUDE
    sim.u_unit[0, c["throttle"]] = throttle
    setup = time.perf_counter() - setup_start

    start = time.perf_counter()
    sim.advance(duration)
    wall = time.perf_counter() - start

    return {
        "simulated_s": sim.time,
        "wall_s": wall,
        "setup_s": setup,
        "final_ay_mps2": float(sim.y_unit[0, c["ay"]]),
        "final_speed_mps": float(sim.y_unit[0, c["speed"]]),
        "throttle": throttle,
        "note": "single advance(T); steering held at the sine amplitude, trim throttle; "
                "setup includes the untimed trim run",
    }


# ---------------------------------------------------------------------------------------------
# Variants: the FMU through fmpy
# ---------------------------------------------------------------------------------------------
UNIT = "car"


def _fmu_open(fmu_path, instance="bench"):
    """Extract, load and initialise the FMU; returns (slave, value references, timings)."""
    timings = {}
    t = time.perf_counter()
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    timings["import_fmpy_s"] = time.perf_counter() - t

    t = time.perf_counter()
    md = read_model_description(str(fmu_path))
    unzipdir = extract(str(fmu_path))
    timings["read_and_extract_s"] = time.perf_counter() - t

    vr = {v.name: v.valueReference for v in md.modelVariables}
    refs = {key: vr[f"{UNIT}.{name}"] for key, name in (
        ("steer", "steeringWheelAngle"), ("throttle", "throttle"), ("gear", "gear"),
        ("ay", "ay"), ("speed", "speed"))}
    gear_var = next(v for v in md.modelVariables if v.name == f"{UNIT}.gear")

    t = time.perf_counter()
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance)
    slave.instantiate()
    timings["load_and_instantiate_s"] = time.perf_counter() - t

    t = time.perf_counter()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.setReal([vr[f"{UNIT}.speed0"]], [SPEED])
    if gear_var.type == "Integer":
        slave.setInteger([refs["gear"]], [GEAR])
    else:
        slave.setReal([refs["gear"]], [float(GEAR)])
    slave.exitInitializationMode()
    timings["initialize_s"] = time.perf_counter() - t
    return slave, refs, unzipdir, timings


def _fmu_close(slave, unzipdir):
    import shutil

    slave.terminate()
    slave.freeInstance()
    shutil.rmtree(unzipdir, ignore_errors=True)


def _preallocated_io(slave):
    """setReal/getReal stand-ins that reuse ctypes buffers instead of building them per call.

    FMU2Slave.setReal and getReal build two ctypes arrays and a list on every call; a client
    that cares about per-step cost keeps its buffers. Same FMI functions underneath.
    """
    from fmpy.fmi2 import fmi2Real, fmi2ValueReference

    buffers = {}

    def buffer(vrs):
        key = tuple(vrs)
        if key not in buffers:
            buffers[key] = ((fmi2ValueReference * len(vrs))(*vrs), (fmi2Real * len(vrs))())
        return buffers[key]

    raw_set, raw_get, component = slave.fmi2SetReal, slave.fmi2GetReal, slave.component

    def set_real(vrs, values):
        refs, vals = buffer(vrs)
        vals[:] = values
        raw_set(component, refs, len(refs), vals)

    def get_real(vrs):
        refs, vals = buffer(vrs)
        raw_get(component, refs, len(refs), vals)
        return vals[:]

    return set_real, get_real


def run_fmu_loop(fmu_path, duration, comm_step, client="fmpy"):
    """The sine manoeuvre through FMU2Slave: set inputs, doStep, get outputs, every step.

    client "fmpy" calls FMU2Slave.setReal/getReal; "buffers" reuses ctypes buffers.
    """
    setup_start = time.perf_counter()
    slave, refs, unzipdir, timings = _fmu_open(fmu_path)
    setup = time.perf_counter() - setup_start

    n = int(round(duration / comm_step))
    inputs = [refs["steer"], refs["throttle"]]
    outputs = [refs["ay"], refs["speed"]]
    if client == "buffers":
        set_real, get_real = _preallocated_io(slave)
    else:
        set_real, get_real = slave.setReal, slave.getReal
    do_step = slave.doStep
    amplitude = WHEEL_AMPLITUDE
    governor = throttle_governor(comm_step)
    throttle_sum = 0.0
    peak_ay = 0.0
    speed = get_real([refs["speed"]])[0]
    min_speed = max_speed = speed
    set_ns, step_ns, get_ns, loop_ns = [0] * n, [0] * n, [0] * n, [0] * n
    clock = time.perf_counter_ns

    start = time.perf_counter()
    for k in range(n):
        t0 = clock()
        t = k * comm_step
        throttle = governor.update(speed)
        throttle_sum += throttle
        t1 = clock()
        set_real(inputs, [amplitude * math.sin(OMEGA * t), throttle])
        t2 = clock()
        do_step(currentCommunicationPoint=t, communicationStepSize=comm_step)
        t3 = clock()
        ay, speed = get_real(outputs)
        t4 = clock()
        set_ns[k], step_ns[k], get_ns[k] = t2 - t1, t3 - t2, t4 - t3
        if abs(ay) > peak_ay:
            peak_ay = abs(ay)
        if speed < min_speed:
            min_speed = speed
        elif speed > max_speed:
            max_speed = speed
        loop_ns[k] = clock() - t0
    wall = time.perf_counter() - start

    _fmu_close(slave, unzipdir)
    return {
        "simulated_s": n * comm_step,
        "wall_s": wall,
        "setup_s": setup,
        "setup_breakdown": timings,
        "peak_ay_mps2": peak_ay,
        "speed_range_mps": [min_speed, max_speed],
        "mean_throttle": throttle_sum / n,
        "doStep": _step_stats(step_ns),
        "setReal": _step_stats(set_ns),
        "getReal": _step_stats(get_ns),
        "loop_iteration": _step_stats(loop_ns),
        "note": f"fmpy FMU2Slave, communication step {comm_step * 1e3:g} ms, "
                f"setReal(2) + doStep + getReal(2) per step, {client} set/get",
    }


def run_fmu_simulate(fmu_path, duration, throttle, comm_step=0.01):
    """fmpy.simulate_fmu with the sine as an input table and a held throttle, for reference."""
    import numpy as np
    from fmpy import simulate_fmu

    times = np.arange(0.0, duration + comm_step / 2, comm_step)
    signals = np.zeros(len(times), dtype=[("time", np.float64),
                                          (f"{UNIT}.steeringWheelAngle", np.float64),
                                          (f"{UNIT}.throttle", np.float64)])
    signals["time"] = times
    signals[f"{UNIT}.steeringWheelAngle"] = WHEEL_AMPLITUDE * np.sin(OMEGA * times)
    signals[f"{UNIT}.throttle"] = throttle

    start = time.perf_counter()
    result = simulate_fmu(str(fmu_path), fmi_type="CoSimulation", stop_time=duration,
                          step_size=comm_step, output_interval=comm_step, input=signals,
                          start_values={f"{UNIT}.gear": GEAR, f"{UNIT}.speed0": SPEED},
                          output=[f"{UNIT}.ay", f"{UNIT}.speed"])
    wall = time.perf_counter() - start

    return {
        "simulated_s": float(result["time"][-1]),
        "wall_s": wall,
        "setup_s": None,
        "peak_ay_mps2": float(np.max(np.abs(result[f"{UNIT}.ay"]))),
        "speed_range_mps": [float(result[f"{UNIT}.speed"].min()),
                            float(result[f"{UNIT}.speed"].max())],
        "throttle": throttle,
        "note": "fmpy.simulate_fmu, step 10 ms, sine input table, throttle held at the "
                "engine-10ms run's mean; "
                "wall time includes extract, load, instantiate and initialise",
    }


def run_cold_start(fmu_path):
    """In a fresh process: load the FMU and complete its first doStep."""
    t = time.perf_counter()
    slave, refs, unzipdir, timings = _fmu_open(fmu_path, instance="cold")
    slave.setReal([refs["steer"], refs["throttle"]], [0.0, THROTTLE_FEEDFORWARD])
    t1 = time.perf_counter()
    slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.001)
    timings["first_doStep_s"] = time.perf_counter() - t1
    timings["in_process_s"] = time.perf_counter() - t
    # Tell the parent the first step is done before tearing down.
    print("FIRST_DOSTEP_DONE", flush=True)
    _fmu_close(slave, unzipdir)
    return {"breakdown": timings}


# ---------------------------------------------------------------------------------------------
# Child process entry and the orchestrating parent
# ---------------------------------------------------------------------------------------------
VARIANTS = ("peer", "engine-1ms", "engine-10ms", "engine-advance",
            "fmu-10ms", "fmu-1ms", "fmu-1ms-buffers", "fmu-simulate")
LABELS = {
    "peer": "peer: CommonRoad MB, Python RK4 1 ms",
    "engine-1ms": "engine direct, advance() every 1 ms",
    "engine-10ms": "engine direct, advance() every 10 ms",
    "engine-advance": "engine direct, single advance(T) *",
    "fmu-10ms": "FMU via fmpy FMU2Slave, 10 ms step",
    "fmu-1ms": "FMU via fmpy FMU2Slave, 1 ms step",
    "fmu-1ms-buffers": "same, set/get with reused ctypes buffers",
    "fmu-simulate": "FMU via fmpy.simulate_fmu, 10 ms",
    "python": "bare interpreter (memory baseline)",
}


def run_variant(name, duration, fmu_path, throttle):
    if name == "peer":
        return run_peer(duration)
    if name == "engine-1ms":
        return run_engine_loop(duration, 0.001)
    if name == "engine-10ms":
        return run_engine_loop(duration, 0.01)
    if name == "engine-advance":
        return run_engine_advance(duration)
    if name == "fmu-10ms":
        return run_fmu_loop(fmu_path, duration, 0.01)
    if name == "fmu-1ms":
        return run_fmu_loop(fmu_path, duration, 0.001)
    if name == "fmu-1ms-buffers":
        return run_fmu_loop(fmu_path, duration, 0.001, client="buffers")
    if name == "fmu-simulate":
        return run_fmu_simulate(fmu_path, duration, throttle)
    if name == "cold-start":
        return run_cold_start(fmu_path)
    if name == "python":
        return {}
    raise SystemExit(f"unknown variant {name!r}")


def child_main(name, duration, fmu_path, throttle):
    try:
        result = run_variant(name, duration, fmu_path, throttle)
        result["ok"] = True
    except Exception as exc:  # a benchmark reports a failing variant and goes on
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    result["max_rss_mb"], result["getrusage_maxrss_mb"] = _peak_rss_mb()
    print("RESULT " + json.dumps(result), flush=True)


def best_of(runs):
    """The fastest successful run's figures, with every run's wall time, setup and memory."""
    good = [r for r in runs if r.get("ok")]
    if not good:
        return runs[-1]
    best = dict(min(good, key=lambda r: r.get("wall_s") or 0.0))
    if best.get("wall_s"):
        best["real_time_factor"] = best["simulated_s"] / best["wall_s"]
    best["rounds"] = len(runs)
    best["failed_rounds"] = len(runs) - len(good)
    best["wall_s_all_rounds"] = [r.get("wall_s") for r in good]
    best["setup_s_all_rounds"] = [r.get("setup_s") for r in good]
    best["max_rss_mb"] = max(r["max_rss_mb"] for r in good)
    return best


def engine_cache_dir():
    """A numba cache directory for the engine as it is now, named by a hash of its sources.

    numba checks a cached kernel against its own source file only: a kernel that calls
    kernels of other files (the integrator calls every subsystem) keeps running their old
    compiled code after they change (numba issue 1833). The FMU is immune, its engine copy
    being named by content; the engine variants here get the same by a cache of their own.
    """
    import hashlib

    digest = hashlib.sha256()
    for f in sorted((REPO / "engine").rglob("*")):
        if f.suffix in (".py", ".json") and "__pycache__" not in f.parts:
            digest.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
    return REPO / "out" / "numba-cache" / f"engine-{digest.hexdigest()[:16]}"


def _child_env(name=""):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"]
                                     if env.get("PYTHONPATH") else "")
    if name.startswith("engine"):
        env["NUMBA_CACHE_DIR"] = str(engine_cache_dir())
    return env


def spawn(name, duration, fmu_path, throttle=THROTTLE_FEEDFORWARD, timeout=1800):
    """Run one variant in a new interpreter; returns its result dict plus process wall time."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name,
           "--duration", repr(duration), "--fmu", str(fmu_path), "--throttle", repr(throttle)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=_child_env(name), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    result, first_step_at = None, None
    for line in proc.stdout:
        if line.startswith("FIRST_DOSTEP_DONE") and first_step_at is None:
            first_step_at = time.perf_counter() - t0
        elif line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    stderr = proc.stderr.read()
    proc.wait(timeout=timeout)
    if result is None:
        how = (f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0
               else f"exit {proc.returncode}")
        result = {"ok": False, "error": f"{how}: {stderr.strip()[-2000:]}"}
    result["process_wall_s"] = time.perf_counter() - t0
    if first_step_at is not None:
        result["time_to_first_doStep_s"] = first_step_at
    return result


def machine_info():
    cpuinfo = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            cpuinfo.setdefault(key.strip(), value.strip())   # the first processor's entry
    except OSError:
        pass
    versions = {}
    for module in ("numpy", "numba", "fmpy", "pythonfmu"):
        try:
            versions[module] = __import__(module).__version__
        except Exception:
            versions[module] = None
    try:
        from importlib.metadata import version
        versions["commonroad-vehicle-models"] = version("commonroad-vehicle-models")
    except Exception:
        versions["commonroad-vehicle-models"] = None
    return {
        "hostname": platform.node(),
        "cpu_model": cpuinfo.get("model name", "unknown"),
        "cpu_mhz": cpuinfo.get("cpu MHz"),
        "physical_cores": cpuinfo.get("cpu cores"),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else None,
        "load_average_at_start": os.getloadavg(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
    }


def git_revision():
    """HEAD, and the engine, slave and catalogue files that differ from it (the run times
    the working tree)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout
    try:
        changed = git("status", "--porcelain", "--", "engine", "simon_fmu", "model_description")
        return {"head": git("rev-parse", "--short", "HEAD").strip(),
                "uncommitted": [line[3:] for line in changed.splitlines()]}
    except Exception:
        return {"head": None, "uncommitted": None}


def fmu_staleness(fmu_path):
    """Sources of the FMU newer than the FMU file, when it is older than any of them."""
    built = fmu_path.stat().st_mtime
    newer = [str(f.relative_to(REPO)) for folder in ("engine", "simon_fmu", "model_description")
             for f in (REPO / folder).rglob("*") if f.suffix in (".py", ".json")
             and f.stat().st_mtime > built]
    return sorted(newer)


def ensure_fmu(fmu_path, rebuild=False):
    """Build the FMU when it is missing (or when asked); returns an error text or None."""
    if fmu_path.exists() and not rebuild:
        return None
    fmu_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "simon_fmu", "build", "-o", str(fmu_path)]
    print("building the FMU: " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=_child_env(), capture_output=True, text=True)
    if proc.returncode != 0 or not fmu_path.exists():
        return f"build failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
    print(f"built in {time.perf_counter() - t0:.1f} s", flush=True)
    return None


def _fmt(value, spec):
    """Format a number, or a right-aligned dash when there is none."""
    if value is None:
        width = int(re.match(r"\d*", spec).group() or 0)
        return "-".rjust(width)
    return format(value, spec)


def evaluate_targets(report):
    """The figures issue 4 sets, next to what this run measured."""
    results = report["results"]

    def value(name, *keys):
        r = results.get(name, {})
        if not r.get("ok"):
            return None
        for key in keys:
            r = r.get(key) if isinstance(r, dict) else None
        return r

    peer = value("peer", "real_time_factor")
    rows = []

    def add(target, measured, unit, limit, at_least=True):
        met = None if measured is None else (measured >= limit if at_least else measured < limit)
        rows.append({"target": target, "measured": measured, "unit": unit, "met": met})

    for name in ("engine-1ms", "engine-10ms", "engine-advance"):
        rtf = value(name, "real_time_factor")
        add(f"{name}: >= 200 x real time", rtf, "x", 200.0)
        add(f"{name}: >= 40 x the peer", rtf / peer if (rtf and peer) else None, "x", 40.0)
    add("fmu-10ms: >= 100 x real time", value("fmu-10ms", "real_time_factor"), "x", 100.0)
    add("fmu-1ms: >= 20 x real time", value("fmu-1ms", "real_time_factor"), "x", 20.0)
    add("fmu-1ms: doStep p99 < 100 us", value("fmu-1ms", "doStep", "p99_us"), "us", 100.0,
        at_least=False)
    cold = [r["time_to_first_doStep_s"] for r in report.get("cold_start", [])[1:]
            if r.get("ok") and "time_to_first_doStep_s" in r]
    add("cold start to first doStep < 2 s (worst of 2)", max(cold) if cold else None, "s", 2.0,
        at_least=False)
    rss = [r["max_rss_mb"] for name, r in results.items()
           if r.get("ok") and (name.startswith("fmu") or name.startswith("engine"))]
    rss += [r["max_rss_mb"] for r in report.get("cold_start", []) if r.get("ok")]
    add("peak RSS < 250 MB per engine/FMU process (worst)", max(rss) if rss else None, "MB",
        250.0, at_least=False)
    return rows


def print_table(report):
    results = report["results"]
    peer = results.get("peer", {})
    peer_rtf = peer.get("real_time_factor") if peer.get("ok") else None
    print()
    print(f"machine: {report['machine']['hostname']}, {report['machine']['cpu_model']}, "
          f"{report['machine']['physical_cores']} cores / {report['machine']['logical_cores']} "
          f"threads, Python {report['machine']['python']}, "
          f"{report['date_utc']}")
    rev = report["git_revision"]
    print(f"revision {rev['head']}" + (f", with uncommitted changes to {len(rev['uncommitted'])} "
                                        "engine/slave/catalogue file(s)"
                                        if rev["uncommitted"] else ""))
    print("load average (1, 5, 15 min) at start " +
          " ".join(f"{x:.2f}" for x in report["machine"]["load_average_at_start"]) +
          ", at end " + " ".join(f"{x:.2f}" for x in report["machine"]["load_average_at_end"]))
    print(f"manoeuvre: {report['manoeuvre']['duration_s']:g} s at {SPEED:g} m/s, "
          f"{SINE_FREQUENCY:g} Hz steering-wheel sine, amplitude "
          f"{math.degrees(WHEEL_AMPLITUDE):.1f} deg at the steering wheel "
          f"({math.degrees(ROAD_WHEEL_AMPLITUDE):.2f} deg road wheel)")
    print()
    header = (f"{'variant':<42}{'wall s':>9}{'x real time':>13}{'x peer':>9}"
              f"{'peak RSS MB':>13}{'peak ay':>9}{'setup s':>9}")
    print(header)
    print("-" * len(header))
    for name in list(VARIANTS) + ["python"]:
        r = results.get(name)
        if r is None:
            continue
        if not r.get("ok"):
            print(f"{LABELS[name]:<42}  FAILED: {r.get('error', '')[:200]}")
            continue
        rtf = r.get("real_time_factor")
        ratio = rtf / peer_rtf if (rtf and peer_rtf) else None
        print(f"{LABELS[name]:<42}{_fmt(r.get('wall_s'), '9.3f')}{_fmt(rtf, '13.1f')}"
              f"{_fmt(ratio, '9.1f')}{_fmt(r.get('max_rss_mb'), '13.1f')}"
              f"{_fmt(r.get('peak_ay_mps2', r.get('final_ay_mps2')), '9.2f')}"
              f"{_fmt(r.get('setup_s'), '9.2f')}")
    print("* inputs held (steering at the sine amplitude, trim throttle): not the sine")
    print()
    print(f"{'per call, microseconds':<42}{'median':>9}{'p99':>9}{'max':>9}")
    for name, key, what in (("engine-1ms", "per_call", "loop iteration incl. advance()"),
                            ("engine-10ms", "per_call", "loop iteration incl. advance()"),
                            ("fmu-10ms", "doStep", "doStep"),
                            ("fmu-10ms", "loop_iteration", "set + doStep + get iteration"),
                            ("fmu-1ms", "doStep", "doStep"),
                            ("fmu-1ms", "setReal", "setReal (2 inputs)"),
                            ("fmu-1ms", "getReal", "getReal (2 outputs)"),
                            ("fmu-1ms", "loop_iteration", "set + doStep + get iteration"),
                            ("fmu-1ms-buffers", "setReal", "setReal (2 inputs)"),
                            ("fmu-1ms-buffers", "getReal", "getReal (2 outputs)"),
                            ("fmu-1ms-buffers", "loop_iteration", "set + doStep + get")):
        r = results.get(name, {})
        stats = r.get(key)
        if r.get("ok") and stats:
            tag = f"{name}: {what}"
            print(f"{tag:<42}{stats['median_us']:9.1f}{stats['p99_us']:9.1f}"
                  f"{stats['max_us']:9.1f}")
    cold = report.get("cold_start", [])
    if cold:
        print()
        for i, r in enumerate(cold):
            tag = "priming run" if i == 0 else f"cold start {i}"
            if not r.get("ok"):
                print(f"{tag}: FAILED: {r.get('error', '')[:200]}")
                continue
            b = r["breakdown"]
            print(f"{tag}: new process to first doStep done {r['time_to_first_doStep_s']:.2f} s "
                  f"(import fmpy {b['import_fmpy_s']:.2f}, extract {b['read_and_extract_s']:.2f}, "
                  f"instantiate {b['load_and_instantiate_s']:.2f}, "
                  f"initialise {b['initialize_s']:.2f}, "
                  f"first doStep {b['first_doStep_s'] * 1e3:.2f} ms), "
                  f"peak RSS {r['max_rss_mb']:.0f} MB")
    print()
    print("targets of issue 4 (reported, not asserted):")
    for t in report.get("targets", []):
        verdict = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        print(f"  {t['target']:<58}{_fmt(t['measured'], '10.1f')} {t['unit']:<6} {verdict}")


def profile_variants(names, duration, fmu_path, rebuild):
    """cProfile of variants run in this process. The FMU's Python slave runs in this
    interpreter (pythonfmu re-enters it on the calling thread), so its frames show too."""
    import cProfile
    import pstats

    if any(n.startswith("fmu") or n == "cold-start" for n in names):
        error = ensure_fmu(fmu_path, rebuild)
        if error:
            print(error)
            return 1
    if any(n.startswith("engine") for n in names):
        os.environ["NUMBA_CACHE_DIR"] = str(engine_cache_dir())   # before numba is imported
    sys.path.insert(0, str(REPO))
    for name in names:
        profiler = cProfile.Profile()
        profiler.enable()
        run_variant(name, duration, fmu_path, THROTTLE_FEEDFORWARD)
        profiler.disable()
        print(f"--- {name}, {duration:g} s (setup and compilation included)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0


def markdown_summary(report):
    """The figures as Markdown, in the form benchmarks/README.md quotes them."""
    m, results = report["machine"], report["results"]
    peer_rtf = results.get("peer", {}).get("real_time_factor")
    rev = report["git_revision"]
    lines = [
        f"Measured {report['date_utc'][:10]} on `{m['hostname']}`: {m['cpu_model']}, "
        f"{m['physical_cores']} cores / {m['logical_cores']} threads, Python {m['python']}, "
        f"numba {m['versions'].get('numba')}, fmpy {m['versions'].get('fmpy')}; revision "
        f"{rev['head']}" + (" plus uncommitted engine/slave changes" if rev["uncommitted"]
                            else "") +
        f"; load average {m['load_average_at_start'][0]:.2f} at the start, "
        f"{m['load_average_at_end'][0]:.2f} at the end; best of {report['rounds']} rounds, "
        f"{report['manoeuvre']['duration_s']:g} s manoeuvre.",
        "",
        "| variant | wall s | x real time | x peer | peak RSS MB | peak ay m/s^2 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in list(VARIANTS) + ["python"]:
        r = results.get(name)
        if r is None:
            continue
        if not r.get("ok"):
            lines.append(f"| {LABELS[name]} | failed | | | | |")
            continue
        rtf = r.get("real_time_factor")
        ratio = rtf / peer_rtf if (rtf and peer_rtf) else None
        ay = r.get("peak_ay_mps2", r.get("final_ay_mps2"))
        lines.append(f"| {LABELS[name]} | {_fmt(r.get('wall_s'), '.3f')} | {_fmt(rtf, '.1f')} | "
                     f"{_fmt(ratio, '.1f')} | {_fmt(r.get('max_rss_mb'), '.0f')} | "
                     f"{_fmt(ay, '.2f')} |")
    lines += ["", "\\* inputs held (steering at the sine's amplitude, trim throttle), not the "
              "sine. simulate_fmu's wall time includes extracting, loading and initialising.",
              "", "| per call, us | median | p99 | max |", "| --- | ---: | ---: | ---: |"]
    for name, key in (("engine-1ms", "per_call"), ("fmu-10ms", "doStep"), ("fmu-1ms", "doStep"),
                      ("fmu-1ms", "setReal"), ("fmu-1ms", "getReal"),
                      ("fmu-1ms", "loop_iteration")):
        stats = results.get(name, {}).get(key)
        if stats:
            lines.append(f"| {name} {key} | {stats['median_us']:.1f} | {stats['p99_us']:.1f} | "
                         f"{stats['max_us']:.1f} |")
    cold = [r for r in report.get("cold_start", [])[1:] if r.get("ok")]
    if cold:
        lines += ["", "Cold start (new process to first doStep done, after a priming run): " +
                  ", ".join(f"{r['time_to_first_doStep_s']:.2f} s" for r in cold) +
                  f"; peak RSS {max(r['max_rss_mb'] for r in cold):.0f} MB."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fmu", type=Path, default=DEFAULT_FMU,
                        help="FMU to time (built with python -m simon_fmu build if missing)")
    parser.add_argument("--rebuild", action="store_true",
                        help="build the FMU even when the file exists")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_DURATION:g} s manoeuvre, for smoke runs")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="JSON report path")
    parser.add_argument("--only", nargs="+", choices=VARIANTS + ("cold-start",),
                        help="run only these variants")
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds: each variant runs once per round in a new process; "
                             "the fastest round is reported (default %(default)s)")
    parser.add_argument("--profile", action="store_true",
                        help="run the --only variants (default fmu-1ms) in this process under "
                             "cProfile and print where the time goes; no report")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--duration", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--throttle", type=float, default=THROTTLE_FEEDFORWARD,
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    fmu_path = args.fmu.resolve()

    if args.child:
        child_main(args.child, args.duration, fmu_path, args.throttle)
        return 0

    duration = QUICK_DURATION if args.quick else DURATION
    if args.profile:
        return profile_variants(args.only or ["fmu-1ms"], duration, fmu_path, args.rebuild)
    selected = args.only or list(VARIANTS) + ["cold-start"]
    report = {
        "rounds": args.repeat,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_revision": git_revision(),
        "machine": machine_info(),
        "manoeuvre": {"duration_s": duration, "speed_mps": SPEED,
                      "sine_frequency_hz": SINE_FREQUENCY, "target_peak_ay_mps2": TARGET_PEAK_AY,
                      "physics_step_s": PHYSICS_STEP, "gear": GEAR, **AMPLITUDE},
        "fmu": str(fmu_path),
        "results": {},
        "cold_start": [],
    }

    needs_fmu = any(v.startswith("fmu") or v == "cold-start" for v in selected)
    build_error = ensure_fmu(fmu_path, args.rebuild) if needs_fmu else None
    if build_error:
        report["fmu_build_error"] = build_error
        print(build_error, flush=True)
    elif needs_fmu:
        report["fmu_sources_newer_than_fmu"] = stale = fmu_staleness(fmu_path)
        if stale:
            print(f"warning: {fmu_path} is older than {len(stale)} source file(s), e.g. "
                  f"{stale[0]}; --rebuild builds it afresh", flush=True)

    # Rounds: every variant once per round, each in a new process, so that each variant
    # meets the machine's other work at several moments; the fastest round is reported.
    names = [v for v in VARIANTS if v in selected] + ["python"]
    runs = {name: [] for name in names}
    if any(name.startswith("engine") for name in names):
        cache = engine_cache_dir()
        report["engine_numba_cache"] = str(cache)
        if not cache.exists():
            print(f"compiling the engine into {cache.relative_to(REPO)} ...", flush=True)
            t0 = time.perf_counter()
            spawn("engine-advance", 0.01, fmu_path)
            report["engine_compile_s"] = time.perf_counter() - t0
    for i in range(max(1, args.repeat)):
        for name in names:
            if name.startswith("fmu") and build_error:
                runs[name].append({"ok": False, "error": "no FMU"})
                continue
            print(f"round {i + 1}/{args.repeat}: {name} ...", flush=True)
            # simulate_fmu has no governor: it holds the throttle engine-10ms averaged.
            mean_throttle = next((r["mean_throttle"] for r in runs.get("engine-10ms", [])
                                  if r.get("ok")), THROTTLE_FEEDFORWARD)
            runs[name].append(spawn(name, duration, fmu_path, mean_throttle))
    report["results"] = {name: best_of(rs) for name, rs in runs.items()}

    if "cold-start" in selected and not build_error:
        # The first process primes whatever the FMU caches on the machine (it has usually run
        # already in the variants above); the two after it are the measured cold starts.
        for i in range(3):
            print(f"cold start {i} ...", flush=True)
            report["cold_start"].append(spawn("cold-start", 0.0, fmu_path))

    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["targets"] = evaluate_targets(report)
    print_table(report)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    markdown = args.json.with_suffix(".md")
    markdown.write_text(markdown_summary(report))
    print(f"\nwrote {args.json} and {markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
