"""The variants: one timed loop each, run in a process of its own by the runner.

  peer            commonroad-vehicle-models 3.0.2, multi-body model, parameter set 2 with the
                  event's mass, inertia, geometry, suspension and tire radial values,
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
  python          nothing: the bare interpreter, the memory baseline

Every variant gets the manoeuvre (a dict from :mod:`manoeuvres`) and returns a dict of
figures. Wall times cover the stepping loop only (the client's input calculation, set, step
and get included); construction and FMU instantiation are reported as setup.
"""

from __future__ import annotations

import math
import resource
import statistics
import time
from pathlib import Path

from manoeuvres import peer_governor, peer_setup, throttle_governor

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


def uses_fmu(name):
    return name.startswith("fmu") or name == "cold-start"


def uses_engine(name):
    return name.startswith("engine")


def peak_rss_mb():
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


def step_stats(samples_ns):
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
def run_peer(m, duration):
    try:
        from vehiclemodels.init_mb import init_mb
        from vehiclemodels.parameters_vehicle2 import parameters_vehicle2
        from vehiclemodels.vehicle_dynamics_mb import vehicle_dynamics_mb
    except ImportError as exc:
        raise ImportError(f"{exc}; the peer needs: pip install "
                          "commonroad-vehicle-models==3.0.2") from None

    setup_start = time.perf_counter()
    p = peer_setup(parameters_vehicle2(), m["peer_parameters"])   # the event's lead unit
    # [sx, sy, delta, v, psi, psi_dot, beta]
    x = init_mb([0.0, 0.0, 0.0, m["speed_mps"], 0.0, 0.0, 0.0], p)
    setup = time.perf_counter() - setup_start

    h = m["physics_step_s"]
    n = int(round(duration / h))
    ns = range(len(x))
    amplitude, omega = m["road_wheel_amplitude_rad"], m["omega_rad_per_s"]
    governor = peer_governor(m, h)
    peak_ay = 0.0
    min_speed = max_speed = x[3]

    start = time.perf_counter()
    for k in range(n):
        t_next = (k + 1) * h
        # The peer steers through its steering-rate input u[0]. A constant rate over the step
        # that lands the road-wheel angle on the sine at the step's end keeps it on the sine
        # without drift (the rate stays far inside the peer's 0.4 rad/s limit).
        steer_rate = (amplitude * math.sin(omega * t_next) - x[2]) / h
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
def _engine_simulation(m):
    import engine

    event = engine.load_event(m.get("event_file"))
    sim = engine.Simulation(event, step_size=m["physics_step_s"],
                            initial={m["unit"]: {"speed0": m["speed_mps"], "X0": 0.0,
                                                 "Y0": 0.0, "yaw0": 0.0}})
    columns = {
        "unit": sim.unit_names.index(m["unit"]),     # the lead unit's row: it is driven
        "steer": engine.UNIT_INPUTS.index("steeringWheelAngle"),
        "throttle": engine.UNIT_INPUTS.index("throttle"),
        "gear": engine.UNIT_INPUTS.index("gear"),
        "ay": engine.UNIT_OUTPUTS.index("ay"),
        "speed": engine.UNIT_OUTPUTS.index("speed"),
    }
    sim.u_unit[columns["unit"], columns["gear"]] = m["gear"]
    return sim, columns


def run_engine_loop(m, duration, chunk):
    """The sine manoeuvre, one advance() per `chunk` seconds, governor updated each call."""
    setup_start = time.perf_counter()
    sim, c = _engine_simulation(m)
    setup = time.perf_counter() - setup_start

    n = int(round(duration / chunk))
    u_unit, y_unit = sim.u_unit, sim.y_unit
    row, i_steer, i_thr, i_ay, i_speed = c["unit"], c["steer"], c["throttle"], c["ay"], c["speed"]
    amplitude, omega = m["steering_wheel_amplitude_rad"], m["omega_rad_per_s"]
    advance = sim.advance
    governor = throttle_governor(m, chunk)
    throttle_sum = 0.0
    peak_ay = 0.0
    min_speed = max_speed = y_unit.item(row, i_speed)
    calls = [0] * n

    start = time.perf_counter()
    for k in range(n):
        t0 = time.perf_counter_ns()
        # Inputs held over the call: the sine at the start of the interval.
        u_unit[row, i_steer] = amplitude * math.sin(omega * k * chunk)
        speed = y_unit.item(row, i_speed)          # .item(): a Python float, not a numpy scalar
        throttle = governor.update(speed)
        u_unit[row, i_thr] = throttle
        throttle_sum += throttle
        advance((k + 1) * chunk)
        ay = abs(y_unit.item(row, i_ay))
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
        "per_call": step_stats(calls),
        "note": f"engine.Simulation step 1 ms, advance() every {chunk * 1e3:g} ms",
    }


def _trim_throttle(m, duration=2.0):
    """Constant-speed throttle with the steering at the sine's amplitude (an untimed run)."""
    sim, c = _engine_simulation(m)
    sim.u_unit[c["unit"], c["steer"]] = m["steering_wheel_amplitude_rad"]
    chunk = 0.01
    governor = throttle_governor(m, chunk)
    throttle = m["throttle_feedforward"]
    for k in range(int(round(duration / chunk))):
        throttle = governor.update(sim.y_unit[c["unit"], c["speed"]])
        sim.u_unit[c["unit"], c["throttle"]] = throttle
        sim.advance((k + 1) * chunk)
    return float(throttle)


def run_engine_advance(m, duration):
    """One advance(duration) call with the inputs held: the integrator alone."""
    setup_start = time.perf_counter()
    throttle = _trim_throttle(m)
    sim, c = _engine_simulation(m)
    sim.u_unit[c["unit"], c["steer"]] = m["steering_wheel_amplitude_rad"]
    sim.u_unit[c["unit"], c["throttle"]] = throttle
    setup = time.perf_counter() - setup_start

    start = time.perf_counter()
    sim.advance(duration)
    wall = time.perf_counter() - start

    return {
        "simulated_s": sim.time,
        "wall_s": wall,
        "setup_s": setup,
        "final_ay_mps2": float(sim.y_unit[c["unit"], c["ay"]]),
        "final_speed_mps": float(sim.y_unit[c["unit"], c["speed"]]),
        "throttle": throttle,
        "note": "single advance(T); steering held at the sine amplitude, trim throttle; "
                "setup includes the untimed trim run",
    }


# ---------------------------------------------------------------------------------------------
# Variants: the FMU through fmpy
# ---------------------------------------------------------------------------------------------
def _fmu_open(m, fmu_path, instance="bench"):
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

    unit = m["unit"]
    vr = {v.name: v.valueReference for v in md.modelVariables}
    refs = {key: vr[f"{unit}.{name}"] for key, name in (
        ("steer", "steeringWheelAngle"), ("throttle", "throttle"), ("gear", "gear"),
        ("ay", "ay"), ("speed", "speed"))}
    gear_var = next(v for v in md.modelVariables if v.name == f"{unit}.gear")

    t = time.perf_counter()
    slave = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir,
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance)
    slave.instantiate()
    timings["load_and_instantiate_s"] = time.perf_counter() - t

    t = time.perf_counter()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.setReal([vr[f"{unit}.speed0"]], [m["speed_mps"]])
    if gear_var.type == "Integer":
        slave.setInteger([refs["gear"]], [m["gear"]])
    else:
        slave.setReal([refs["gear"]], [float(m["gear"])])
    # the manoeuvre's parameters set at initialisation (benchmarks/native.py: integrator)
    for name, value in m.get("parameters", {}).items():
        var = next(v for v in md.modelVariables if v.name == name)
        if var.type in ("Integer", "Enumeration"):
            slave.setInteger([var.valueReference], [int(value)])
        else:
            slave.setReal([var.valueReference], [float(value)])
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


def run_fmu_loop(m, fmu_path, duration, comm_step, client="fmpy"):
    """The sine manoeuvre through FMU2Slave: set inputs, doStep, get outputs, every step.

    client "fmpy" calls FMU2Slave.setReal/getReal; "buffers" reuses ctypes buffers.
    """
    setup_start = time.perf_counter()
    slave, refs, unzipdir, timings = _fmu_open(m, fmu_path)
    setup = time.perf_counter() - setup_start

    n = int(round(duration / comm_step))
    inputs = [refs["steer"], refs["throttle"]]
    outputs = [refs["ay"], refs["speed"]]
    if client == "buffers":
        set_real, get_real = _preallocated_io(slave)
    else:
        set_real, get_real = slave.setReal, slave.getReal
    do_step = slave.doStep
    amplitude, omega = m["steering_wheel_amplitude_rad"], m["omega_rad_per_s"]
    governor = throttle_governor(m, comm_step)
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
        set_real(inputs, [amplitude * math.sin(omega * t), throttle])
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
        "doStep": step_stats(step_ns),
        "setReal": step_stats(set_ns),
        "getReal": step_stats(get_ns),
        "loop_iteration": step_stats(loop_ns),
        "note": f"fmpy FMU2Slave, communication step {comm_step * 1e3:g} ms, "
                f"setReal(2) + doStep + getReal(2) per step, {client} set/get",
    }


def run_fmu_simulate(m, fmu_path, duration, throttle, comm_step=0.01):
    """fmpy.simulate_fmu with the sine as an input table and a held throttle, for reference."""
    import numpy as np
    from fmpy import simulate_fmu

    unit = m["unit"]
    times = np.arange(0.0, duration + comm_step / 2, comm_step)
    signals = np.zeros(len(times), dtype=[("time", np.float64),
                                          (f"{unit}.steeringWheelAngle", np.float64),
                                          (f"{unit}.throttle", np.float64)])
    signals["time"] = times
    signals[f"{unit}.steeringWheelAngle"] = (m["steering_wheel_amplitude_rad"]
                                              * np.sin(m["omega_rad_per_s"] * times))
    signals[f"{unit}.throttle"] = throttle

    start = time.perf_counter()
    result = simulate_fmu(str(fmu_path), fmi_type="CoSimulation", stop_time=duration,
                          step_size=comm_step, output_interval=comm_step, input=signals,
                          start_values={f"{unit}.gear": m["gear"],
                                        f"{unit}.speed0": m["speed_mps"]},
                          output=[f"{unit}.ay", f"{unit}.speed"])
    wall = time.perf_counter() - start

    return {
        "simulated_s": float(result["time"][-1]),
        "wall_s": wall,
        "setup_s": None,
        "peak_ay_mps2": float(np.max(np.abs(result[f"{unit}.ay"]))),
        "speed_range_mps": [float(result[f"{unit}.speed"].min()),
                            float(result[f"{unit}.speed"].max())],
        "throttle": throttle,
        "note": "fmpy.simulate_fmu, step 10 ms, sine input table, throttle held at the "
                "engine-10ms run's mean; "
                "wall time includes extract, load, instantiate and initialise",
    }


def run_cold_start(m, fmu_path):
    """In a fresh process: load the FMU and complete its first doStep."""
    t = time.perf_counter()
    slave, refs, unzipdir, timings = _fmu_open(m, fmu_path, instance="cold")
    slave.setReal([refs["steer"], refs["throttle"]], [0.0, m["throttle_feedforward"]])
    t1 = time.perf_counter()
    slave.doStep(currentCommunicationPoint=0.0, communicationStepSize=0.001)
    timings["first_doStep_s"] = time.perf_counter() - t1
    timings["in_process_s"] = time.perf_counter() - t
    timings["load_to_first_doStep_s"] = (timings["load_and_instantiate_s"]
                                         + timings["initialize_s"] + timings["first_doStep_s"])
    # Tell the parent the first step is done before tearing down.
    print("FIRST_DOSTEP_DONE", flush=True)
    _fmu_close(slave, unzipdir)
    return {"breakdown": timings}


def run_variant(name, manoeuvre, duration, fmu_path, throttle):
    """Run one variant of the manoeuvre for `duration` seconds; `throttle` is the held
    throttle of fmu-simulate (the runner passes engine-10ms's mean)."""
    if name == "peer":
        return run_peer(manoeuvre, duration)
    if name == "engine-1ms":
        return run_engine_loop(manoeuvre, duration, 0.001)
    if name == "engine-10ms":
        return run_engine_loop(manoeuvre, duration, 0.01)
    if name == "engine-advance":
        return run_engine_advance(manoeuvre, duration)
    if name == "fmu-10ms":
        return run_fmu_loop(manoeuvre, fmu_path, duration, 0.01)
    if name == "fmu-1ms":
        return run_fmu_loop(manoeuvre, fmu_path, duration, 0.001)
    if name == "fmu-1ms-buffers":
        return run_fmu_loop(manoeuvre, fmu_path, duration, 0.001, client="buffers")
    if name == "fmu-simulate":
        return run_fmu_simulate(manoeuvre, fmu_path, duration, throttle)
    if name == "cold-start":
        return run_cold_start(manoeuvre, fmu_path)
    if name == "python":
        return {}
    raise SystemExit(f"unknown variant {name!r}")
