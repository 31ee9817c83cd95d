"""The benchmark's manoeuvre: a steering-wheel sine at constant speed, derived from the event.

20 s at 20 m/s, a 0.5 Hz sine of the steering wheel whose amplitude gives about 4 m/s^2 peak
lateral acceleration, with the throttle (the peer's acceleration input) governed to hold the
speed. What the manoeuvre asks of the driver (speed, frequency, target lateral acceleration,
gear, governor gains) is set here; every vehicle value it is sized with (masses, geometry,
tire tables, steering ratio, drivetrain, aerodynamics, gravity, air) is read from the event's
first unit.

:func:`sine_steer` turns an event's data into a plain dict (the "manoeuvre") that the parent
process passes to every variant's process as JSON, so that a variant that does not run the
engine (the peer, the FMU clients, the bare interpreter) never imports it and its peak memory
stays its own.
"""

from __future__ import annotations

import math

SPEED = 20.0                 # m/s, initial and target speed
SINE_FREQUENCY = 0.5         # Hz, steering-wheel sine
TARGET_PEAK_AY = 4.0         # m/s^2, peak lateral acceleration the amplitude is sized for
DURATION = 20.0              # s, full run
QUICK_DURATION = 2.0         # s, --quick smoke run
PHYSICS_STEP = 0.001         # s, peer RK4 step and engine internal step
GEAR = 4                     # forward gear held (on the reference sedan about 1980 rpm)

# Speed governor, the same structure for every variant: input = feed-forward + PI on the
# speed error. Output is throttle (0..1) for the engine, acceleration (m/s^2) for the peer.
# The throttle feed-forward is the road-load estimate of throttle_feedforward().
THROTTLE_KP = 0.10           # 1 per m/s
THROTTLE_KI = 0.05           # 1 per m
PEER_ACCEL_KP = 1.0          # (m/s^2) per m/s
PEER_ACCEL_KI = 0.5          # (m/s^2) per m

GAS_CONSTANT_AIR = 287.058   # J/(kg K), dry air


class SpeedGovernor:
    """Feed-forward plus PI on the speed error, clamped; one update per control interval."""

    def __init__(self, target, dt, feedforward, kp, ki, low=-math.inf, high=math.inf):
        self.target, self.dt, self.feedforward, self.kp, self.ki = target, dt, feedforward, kp, ki
        self.low, self.high = low, high
        self.integral = 0.0

    def update(self, speed):
        error = self.target - speed
        self.integral += error * self.dt
        command = self.feedforward + self.kp * error + self.ki * self.integral
        return self.low if command < self.low else self.high if command > self.high else command


def throttle_governor(manoeuvre, dt, feedforward=None):
    """The engine's and the FMU's governor: throttle 0..1."""
    if feedforward is None:
        feedforward = manoeuvre["throttle_feedforward"]
    return SpeedGovernor(manoeuvre["speed_mps"], dt, feedforward, THROTTLE_KP, THROTTLE_KI,
                         0.0, 1.0)


def peer_governor(manoeuvre, dt):
    """The peer's governor: longitudinal acceleration demand, m/s^2."""
    return SpeedGovernor(manoeuvre["speed_mps"], dt, 0.0, PEER_ACCEL_KP, PEER_ACCEL_KI)


def interp(x, xs, ys):
    """Piecewise-linear table look-up, held constant outside the table."""
    if x <= xs[0]:
        return ys[0]
    for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return ys[-1]


# ---------------------------------------------------------------------------------------------
# Vehicle values, from the event
# ---------------------------------------------------------------------------------------------
def vehicle(event_data):
    """The first unit's values the manoeuvre and the peer are set up with, SI units.

    The front axle is the first steered axle, the rear axle the last axle; the sprung-mass CG
    to axle distances are the axles' x positions (positive forward). Tire tables are taken
    at their first test speed (the manoeuvre runs at one speed).
    """
    unit = event_data["units"][0]
    environment = event_data["environment"]
    axles = unit["axles"]
    front = next((a for a in axles if a["steered"]), axles[0])
    rear = axles[-1]
    if front is rear:
        raise ValueError(f"unit {unit['name']!r}: the sine-steer manoeuvre needs a steered "
                         "front axle and a rear axle")
    tires = unit["tires"]
    tire_f, tire_r = tires[front["tire"]], tires[rear["tire"]]
    axle_mass = sum(a["unsprung_mass_per_wheel"] * (4 if a["dual"] else 2) for a in axles)
    drive = unit["drivetrain"]
    rho = environment["air_pressure"] / (GAS_CONSTANT_AIR * environment["air_temperature"])
    return {
        "unit": unit["name"],
        "gravity": environment["gravity"],
        "air_density": rho,
        "sprung_mass": unit["sprung_mass"]["mass"],
        "total_mass": unit["sprung_mass"]["mass"] + axle_mass,
        "inertia": list(unit["sprung_mass"]["inertia"]),
        "Ixz": unit["sprung_mass"]["Ixz"],
        "cg_height": unit["sprung_mass"]["cg_height"],
        "length": unit["dimensions"]["length"],
        "width": unit["dimensions"]["width"],
        "cg_to_front": front["x"],
        "cg_to_rear": -rear["x"],
        "track_front": front["track"],
        "track_rear": rear["track"],
        "unsprung_mass_front": front["unsprung_mass_per_wheel"],
        "unsprung_mass_rear": rear["unsprung_mass_per_wheel"],
        "spring_rate_front": front["suspension"]["spring_rate"],
        "spring_rate_rear": rear["suspension"]["spring_rate"],
        "damping_front": front["suspension"]["damping"],
        "damping_rear": rear["suspension"]["damping"],
        "tire_radius": tire_r["unloaded_radius"],
        "tire_radial_stiffness": tire_r["radial_stiffness"],
        "tire_spin_inertia": tire_r["spin_inertia"],
        "rolling_resistance": tire_r["rolling_resistance"]["sigma0"],
        "tire_loads": list(tire_f["test_loads"]),
        "cornering_stiffness_front": [row[0] for row in tire_f["cornering_stiffness"]],
        "tire_loads_rear": list(tire_r["test_loads"]),
        "cornering_stiffness_rear": [row[0] for row in tire_r["cornering_stiffness"]],
        "steering_ratio": unit["steering"]["gear_ratio"],
        "transmission_ratios": list(drive["transmission_ratios"]),
        "differential_ratio": drive["differential_ratio"],
        "engine_wot_torque": [list(p) for p in drive["engine_wot_torque"]],
        "engine_closed_throttle_torque": [list(p) for p in drive["engine_closed_throttle_torque"]],
        "drag_area": sum(s["drag_coefficient"] * s["area"] for s in unit["aerodynamics"]),
    }


def steering_amplitude(car, speed, target_ay):
    """Road-wheel and steering-wheel sine amplitudes (rad) for `target_ay` at `speed`.

    Linear bicycle model in steady state: ay / delta = V^2 / (L + K V^2), with L the
    wheelbase, delta the road-wheel angle and K = m_f / C_f - m_r / C_r the understeer
    gradient (rad per m/s^2): m_f, m_r the static axle loads in kg, C_f, C_r the axle
    cornering stiffnesses (two tires each) from the tire tables at the static tire load.
    That load is the sprung mass shared by the lever rule plus the unsprung mass of the
    wheel (on the reference sedan about 2925 N front and 2436 N rear). The gain is the
    steady-state one; the sedan's yaw natural frequency at 20 m/s is about 1.9 Hz, so at
    0.5 Hz the peak stays close to it.
    """
    g, a, b = car["gravity"], car["cg_to_front"], car["cg_to_rear"]
    wheelbase = a + b
    m_s = car["sprung_mass"]
    fz_front = (m_s * b / wheelbase / 2 + car["unsprung_mass_front"]) * g      # N per tire
    fz_rear = (m_s * a / wheelbase / 2 + car["unsprung_mass_rear"]) * g        # N per tire
    c_front = 2 * interp(fz_front, car["tire_loads"], car["cornering_stiffness_front"])
    c_rear = 2 * interp(fz_rear, car["tire_loads_rear"], car["cornering_stiffness_rear"])
    mass_front = 2 * fz_front / g                                              # kg on axle
    mass_rear = 2 * fz_rear / g
    understeer = mass_front / c_front - mass_rear / c_rear                     # rad/(m/s^2)
    ay_per_rad = speed ** 2 / (wheelbase + understeer * speed ** 2)            # m/s^2/rad
    road_wheel = target_ay / ay_per_rad
    return {
        "tire_load_front_N": fz_front,
        "tire_load_rear_N": fz_rear,
        "axle_cornering_stiffness_front_N_per_rad": c_front,
        "axle_cornering_stiffness_rear_N_per_rad": c_rear,
        "understeer_gradient_rad_per_mps2": understeer,
        "ay_per_road_wheel_angle_mps2_per_rad": ay_per_rad,
        "road_wheel_amplitude_rad": road_wheel,
        "steering_wheel_amplitude_rad": road_wheel * car["steering_ratio"],
    }


def throttle_feedforward(car, speed, gear):
    """The governor's first guess at the constant-speed throttle in `gear`, straight ahead.

    Road load F = sigma_0 m g + rho/2 C_d A V^2 (rolling resistance, drag) at the driven
    wheels' unloaded radius R; engine torque T = F R / (i_gear i_diff) at engine speed
    V / R i_gear i_diff; throttle = (T - T_closed) / (T_wot - T_closed) at that speed. The
    PI part of the governor takes up the rest (tire deflection, cornering drag).
    """
    ratios = car["transmission_ratios"]
    if not 1 <= gear <= len(ratios):
        raise ValueError(f"gear: a forward gear 1..{len(ratios)} of the event's transmission, "
                         f"not {gear}")
    overall = ratios[gear - 1] * car["differential_ratio"]
    radius = car["tire_radius"]
    force = (car["rolling_resistance"] * car["total_mass"] * car["gravity"]
             + 0.5 * car["air_density"] * car["drag_area"] * speed ** 2)
    torque = force * radius / overall
    rpm = speed / radius * overall * 60.0 / (2.0 * math.pi)
    wot = car["engine_wot_torque"]
    closed = car["engine_closed_throttle_torque"]
    t_wot = interp(rpm, [p[0] for p in wot], [p[1] for p in wot])
    t_closed = interp(rpm, [p[0] for p in closed], [p[1] for p in closed])
    return {
        "engine_rpm": rpm,
        "road_load_N": force,
        "engine_torque_Nm": torque,
        "throttle_feedforward": min(1.0, max(0.0, (torque - t_closed) / (t_wot - t_closed))),
    }


def peer_parameters(car):
    """Values of CommonRoad's multi-body parameter set that the event also defines.

    The peer runs with ``parameters_vehicle2()`` overridden by these, so that it carries the
    event's mass, inertia, geometry, suspension rates and tire radius and stiffness; its tire
    model (Pacejka coefficients), roll-axis and anti-roll values stay its own. Its axle masses
    ``m_uf``, ``m_ur`` are the two wheels of an axle.
    """
    m_uf = 2 * car["unsprung_mass_front"]
    m_ur = 2 * car["unsprung_mass_rear"]
    ix, iy, iz = car["inertia"]
    return {
        "m": car["sprung_mass"] + m_uf + m_ur, "m_s": car["sprung_mass"],
        "m_uf": m_uf, "m_ur": m_ur,
        "I_Phi_s": ix, "I_y_s": iy, "I_z": iz, "I_xz_s": car["Ixz"],
        "a": car["cg_to_front"], "b": car["cg_to_rear"], "h_s": car["cg_height"],
        "T_f": car["track_front"], "T_r": car["track_rear"],
        "l": car["length"], "w": car["width"],
        "K_sf": car["spring_rate_front"], "K_sr": car["spring_rate_rear"],
        "K_sdf": car["damping_front"], "K_sdr": car["damping_rear"],
        "R_w": car["tire_radius"], "K_zt": car["tire_radial_stiffness"],
        "I_y_w": car["tire_spin_inertia"],
    }


def sine_steer(event_data, duration=DURATION, speed=SPEED, frequency=SINE_FREQUENCY,
               target_ay=TARGET_PEAK_AY, gear=GEAR):
    """The manoeuvre for an event (its ``data``), as a JSON-ready dict."""
    car = vehicle(event_data)
    amplitude = steering_amplitude(car, speed, target_ay)
    trim = throttle_feedforward(car, speed, gear)
    return {
        "name": "sine steer at constant speed",
        "event": event_data.get("name"),
        "unit": car["unit"],
        "duration_s": duration,
        "speed_mps": speed,
        "sine_frequency_hz": frequency,
        "omega_rad_per_s": 2.0 * math.pi * frequency,
        "target_peak_ay_mps2": target_ay,
        "physics_step_s": PHYSICS_STEP,
        "gear": gear,
        **amplitude,
        **trim,
        "peer_parameters": peer_parameters(car),
    }


def load(duration=DURATION):
    """The manoeuvre for the project's default event (the one the FMU is built from)."""
    import engine

    return sine_steer(engine.load_event().data, duration)


def describe(manoeuvre):
    """One line saying what is driven."""
    m = manoeuvre
    return (f"{m['duration_s']:g} s at {m['speed_mps']:g} m/s in gear {m['gear']} "
            f"({m['engine_rpm']:.0f} rpm), {m['sine_frequency_hz']:g} Hz steering-wheel sine, "
            f"amplitude {math.degrees(m['steering_wheel_amplitude_rad']):.1f} deg at the "
            f"steering wheel ({math.degrees(m['road_wheel_amplitude_rad']):.2f} deg road "
            f"wheel), sized for {m['target_peak_ay_mps2']:g} m/s^2; unit {m['unit']!r} of "
            f"the event {m['event']!r}")
