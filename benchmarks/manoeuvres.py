"""The benchmark's manoeuvre: a steering-wheel sine at constant speed, derived from the event.

20 s at 20 m/s, a 0.5 Hz sine of the steering wheel whose amplitude gives about 4 m/s^2 peak
lateral acceleration on a single vehicle (2 m/s^2 on a combination), with the throttle (the
peer's acceleration input) governed to hold the speed. What the manoeuvre asks of the driver
(speed, frequency, target lateral acceleration, the shift rule, governor gains) is set here;
every vehicle value it is sized with (masses, geometry, tire tables, steering ratio,
drivetrain, aerodynamics, gravity, air) is read from the event: the lead unit (the first),
and for a combination the units it tows (their weight on the lead unit's rear connection,
their rolling resistance).

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
# A combination (an event with towed units) is sized for half of it: a laden
# tractor-semitrailer rolls over at about 3.5 m/s^2, so 2 m/s^2 is a brisk lane change that
# stays in the tires' linear range and clear of wheel lift-off.
COMBINATION_PEAK_AY = 2.0    # m/s^2
DURATION = 20.0              # s, full run
QUICK_DURATION = 2.0         # s, --quick smoke run
PHYSICS_STEP = 0.001         # s, peer RK4 step and engine internal step
# The gear held: the highest in which the engine turns at least this fraction of the way up
# its torque table's speed range at the manoeuvre speed (a driver who keeps the engine off the
# bottom of its range): 4th at 1921 rpm on the reference sedan, 10th at 1137 rpm on the
# reference tractor (select_gear()).
ENGINE_SPEED_FLOOR = 0.15

# Speed governor, the same structure for every variant: input = feed-forward + PI on the
# speed error. Output is throttle (0..1) for the engine, acceleration (m/s^2) for the peer.
# The throttle feed-forward is the road-load estimate of throttle_feedforward().
THROTTLE_KP = 0.10           # 1 per m/s
THROTTLE_KI = 0.05           # 1 per m
PEER_ACCEL_KP = 1.0          # (m/s^2) per m/s
PEER_ACCEL_KI = 0.5          # (m/s^2) per m

# The peer's own lateral-compliance values that the event has no counterpart for, scaled by
# the event's sprung mass over the parameter set's so that their modes keep the set's
# frequencies on a heavier vehicle (for the sedan the factor is 1.0001): the lateral spring
# and damper at the roll axis and the auxiliary roll stiffnesses with it, the tires' lateral
# compliance against it. Unscaled, a 10 t tractor on the set's 1.3 t car values rolls over
# within a few seconds of the sine.
PEER_SCALED_WITH_MASS = ("K_ras", "K_rad", "K_tsf", "K_tsr")
PEER_SCALED_AGAINST_MASS = ("K_lt",)


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
def last_axle_group(axles):
    """The unit's last axle group: the axles sharing the last axle's group name (a tandem, a
    tridem: load-equalising, one static load each), or the last axle alone when it has none."""
    last = axles[-1]
    if last.group is None:
        return [last]
    return [a for a in axles if a.group == last.group]


def _tires_per_axle(axle):
    return 4 if axle.dual else 2


def _joint_loads_on(model, lead, gravity):
    """The static vertical loads (N, downward) the units towed by `lead` put on its rear
    connection: each towed unit whose front connection carries vertical force (a kingpin,
    or the drawbar of a converter dolly) rests its sprung weight on that connection and on
    the centre of its last axle group by the lever rule. Loads that reach the towed unit
    from units further back are left out (a dolly's on a trailer's pintle)."""
    loads = []
    for unit in model.units:
        front = unit.connections.front
        if front is None or front.tow != lead.name:
            continue
        if front.type != "kingpin" and unit.dolly != "converter":
            continue                               # a hinged drawbar: horizontal force only
        x_front = front.point[0]
        group = last_axle_group(unit.axles)
        x_axles = sum(a.x for a in group) / len(group)
        loads.append(unit.sprung_mass.mass * gravity * -x_axles / (x_front - x_axles))
    return sum(loads)


def vehicle(event):
    """The lead unit's values the manoeuvre and the peer are set up with, SI units, and what
    the units it tows add to it.

    ``event``: an engine.Event, its typed model (engine.setup.model.EventModel) or its data.
    The front axle is the lead unit's first steered axle, the rear axle its last axle group
    (for a tandem the mean of its axles' x); the sprung-mass CG to axle distances are the
    axles' x positions (positive forward). Tire tables are taken at their first test speed
    (the manoeuvre runs at one speed). The combination's rolling-resistance weight is every
    unit's mass times its tires' mean sigma_0; drag is the lead unit's. The masses (sprung,
    unsprung, payloads and occupants) and the air density are the engine's
    (:mod:`engine.setup.derived`).
    """
    from engine.setup.derived import air_density, unit_mass    # the parent process's engine
    from engine.setup.model import typed_event
    model = typed_event(event)
    units = model.units
    unit = units[0]
    gravity = model.environment.gravity
    axles = unit.axles
    front = next((a for a in axles if a.steered), axles[0])
    rear_group = last_axle_group(axles)
    rear = rear_group[-1]
    if front in rear_group:
        raise ValueError(f"unit {unit.name!r}: the sine-steer manoeuvre needs a steered "
                         "front axle and a rear axle")
    tire_f, tire_r = unit.tires[front.tire], unit.tires[rear.tire]
    drive = unit.drivetrain
    rho = air_density(model)
    rear_connection = unit.connections.rear
    rolling_weight = sum(
        unit_mass(u) * gravity
        * sum(u.tires[a.tire].rolling_resistance.sigma0 for a in u.axles)
        / len(u.axles) for u in units)
    front_susp, rear_susp = front.suspension, rear.suspension
    return {
        "unit": unit.name,
        "units": len(units),
        "gravity": gravity,
        "air_density": rho,
        "sprung_mass": unit.sprung_mass.mass,
        "total_mass": unit_mass(unit),
        "combination_mass": sum(unit_mass(u) for u in units),
        "inertia": list(unit.sprung_mass.inertia),
        "Ixz": unit.sprung_mass.Ixz,
        "cg_height": unit.sprung_mass.cg_height,
        "length": unit.dimensions.length,
        "width": unit.dimensions.width,
        "cg_to_front": front.x,
        "cg_to_rear": -sum(a.x for a in rear_group) / len(rear_group),
        "rear_axles": len(rear_group),
        "tires_front": _tires_per_axle(front),
        "tires_rear": sum(_tires_per_axle(a) for a in rear_group),
        "track_front": front.track,
        "track_rear": rear.track,
        "unsprung_mass_front": front.unsprung_mass_per_wheel,
        "unsprung_mass_rear": sum(a.unsprung_mass_per_wheel for a in rear_group),
        "unsprung_mass_per_tire_front": 2 * front.unsprung_mass_per_wheel
                                        / _tires_per_axle(front),
        "unsprung_mass_per_tire_rear": 2 * rear.unsprung_mass_per_wheel / _tires_per_axle(rear),
        "spring_rate_front": front_susp.spring_rate,
        "spring_rate_rear": sum(a.suspension.spring_rate for a in rear_group),
        "damping_front": front_susp.damping,
        "damping_rear": sum(a.suspension.damping for a in rear_group),
        "roll_center_height_front": front_susp.roll_center_height,
        "roll_center_height_rear": (sum(a.suspension.roll_center_height for a in rear_group)
                                    / len(rear_group) if rear_susp.roll_center_height else None),
        "axle_roll_inertia_front": front_susp.axle_roll_inertia,
        "axle_roll_inertia_rear": (sum(a.suspension.axle_roll_inertia for a in rear_group)
                                   if rear_susp.axle_roll_inertia else None),
        "joint_load_N": _joint_loads_on(model, unit, gravity),
        "joint_x": rear_connection.point[0] if rear_connection else 0.0,
        "tire_radius": tire_r.unloaded_radius,
        "tire_radial_stiffness": tire_r.radial_stiffness,
        "tire_spin_inertia": tire_r.spin_inertia,
        "rolling_resistance_weight_N": rolling_weight,
        "tire_loads": list(tire_f.test_loads),
        "cornering_stiffness_front": [row[0] for row in tire_f.cornering_stiffness],
        "tire_loads_rear": list(tire_r.test_loads),
        "cornering_stiffness_rear": [row[0] for row in tire_r.cornering_stiffness],
        "steering_ratio": unit.steering.gear_ratio,
        "transmission_ratios": list(drive.transmission_ratios),
        "differential_ratio": drive.differential_ratio,
        "engine_wot_torque": [list(p) for p in drive.engine_wot_torque],
        "engine_closed_throttle_torque": [list(p) for p in drive.engine_closed_throttle_torque],
        # the C_d A a car driving straight ahead in still air meets: its front surface and its
        # devices (the other surfaces are not struck, docs/equations.md "Aerodynamics")
        "drag_area": sum(s.drag_coefficient * s.area for s in unit.aerodynamics
                         if s.name in ("front", "device1", "device2")),
    }


def steering_amplitude(car, speed, target_ay):
    """Road-wheel and steering-wheel sine amplitudes (rad) for `target_ay` at `speed`.

    Linear bicycle model in steady state: ay / delta = V^2 / (L + K V^2), with L the
    wheelbase (steered axle to the centre of the last axle group), delta the road-wheel angle
    and K = m_f / C_f - m_r / C_r the understeer gradient (rad per m/s^2): m_f, m_r the static
    axle (group) loads in kg, C_f, C_r the axle (group) cornering stiffnesses, every tire's
    from the tire table at the static tire load. That load is the sprung mass shared by the
    lever rule, plus the towed units' weight on the rear connection (shared by the lever rule
    too: it rides with the lead unit in a turn), over the axle's tires, plus the tire's share
    of the unsprung mass (on the reference sedan about 2925 N front and 2436 N rear). The gain
    is the steady-state one; the sedan's yaw natural frequency at 20 m/s is about 1.9 Hz, so
    at 0.5 Hz the peak stays close to it.
    """
    g, a, b = car["gravity"], car["cg_to_front"], car["cg_to_rear"]
    wheelbase = a + b
    m_s = car["sprung_mass"]
    joint, x_joint = car["joint_load_N"], car["joint_x"]
    n_f, n_r = car["tires_front"], car["tires_rear"]
    fz_front = ((m_s * g * b + joint * (x_joint + b)) / wheelbase / n_f
                + car["unsprung_mass_per_tire_front"] * g)                     # N per tire
    fz_rear = ((m_s * g * a + joint * (a - x_joint)) / wheelbase / n_r
               + car["unsprung_mass_per_tire_rear"] * g)                       # N per tire
    c_front = n_f * interp(fz_front, car["tire_loads"], car["cornering_stiffness_front"])
    c_rear = n_r * interp(fz_rear, car["tire_loads_rear"], car["cornering_stiffness_rear"])
    mass_front = n_f * fz_front / g                                            # kg on axle
    mass_rear = n_r * fz_rear / g
    understeer = mass_front / c_front - mass_rear / c_rear                     # rad/(m/s^2)
    ay_per_rad = speed ** 2 / (wheelbase + understeer * speed ** 2)            # m/s^2/rad
    road_wheel = target_ay / ay_per_rad
    return {
        "wheelbase_m": wheelbase,
        "joint_load_N": joint,
        "tire_load_front_N": fz_front,
        "tire_load_rear_N": fz_rear,
        "axle_cornering_stiffness_front_N_per_rad": c_front,
        "axle_cornering_stiffness_rear_N_per_rad": c_rear,
        "understeer_gradient_rad_per_mps2": understeer,
        "ay_per_road_wheel_angle_mps2_per_rad": ay_per_rad,
        "road_wheel_amplitude_rad": road_wheel,
        "steering_wheel_amplitude_rad": road_wheel * car["steering_ratio"],
    }


def _engine_rpm(car, speed, gear):
    overall = car["transmission_ratios"][gear - 1] * car["differential_ratio"]
    return speed / car["tire_radius"] * overall * 60.0 / (2.0 * math.pi)


def select_gear(car, speed):
    """The gear held: the highest whose engine speed at `speed` (on the driven tire's
    unloaded radius, through the gear and differential ratios) lies inside the engine's
    torque table and at least ENGINE_SPEED_FLOOR of the way up its speed range."""
    speeds = [p[0] for p in car["engine_wot_torque"]]
    low, high = speeds[0], speeds[-1]
    floor = low + ENGINE_SPEED_FLOOR * (high - low)
    fitting = [gear for gear in range(1, len(car["transmission_ratios"]) + 1)
               if floor <= _engine_rpm(car, speed, gear) <= high]
    if not fitting:
        raise ValueError(f"unit {car['unit']!r}: no forward gear puts the engine between "
                         f"{floor:.0f} and {high:.0f} rpm at {speed:g} m/s")
    return max(fitting)


def throttle_feedforward(car, speed, gear):
    """The governor's first guess at the constant-speed throttle in `gear`, straight ahead.

    Road load F = sum over units of sigma_0 m g + rho/2 C_d A V^2 (every unit's rolling
    resistance, the lead unit's drag) at the driven wheels' unloaded radius R; engine torque
    T = F R / (i_gear i_diff) at engine speed V / R i_gear i_diff; throttle = (T - T_closed) /
    (T_wot - T_closed) at that speed. The PI part of the governor takes up the rest (tire
    deflection, cornering drag).
    """
    ratios = car["transmission_ratios"]
    if not 1 <= gear <= len(ratios):
        raise ValueError(f"gear: a forward gear 1..{len(ratios)} of the event's transmission, "
                         f"not {gear}")
    overall = ratios[gear - 1] * car["differential_ratio"]
    radius = car["tire_radius"]
    force = (car["rolling_resistance_weight_N"]
             + 0.5 * car["air_density"] * car["drag_area"] * speed ** 2)
    torque = force * radius / overall
    rpm = _engine_rpm(car, speed, gear)
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
    """Values of CommonRoad's multi-body parameter set that the event's lead unit also defines.

    The peer runs with ``parameters_vehicle2()`` overridden by these, so that it carries the
    lead unit's mass, inertia, geometry, suspension rates and tire radius and stiffness; its
    tire model (Pacejka coefficients), roll-axis and anti-roll values stay its own. It has two
    axles and no trailer: its rear axle is the last axle group (at the group's centre, with
    the group's unsprung mass and its axles' spring and damper rates side by side); its axle
    masses ``m_uf``, ``m_ur`` are the two wheels of an axle. A solid axle's roll inertia and
    roll-centre height (``I_uf``, ``I_ur``, ``h_raf``, ``h_rar``) are the event's too: with
    a heavy axle under the set's own car inertia the axle's roll mode on its tires would be
    far too fast for the peer's 1 ms step. See also :func:`peer_setup`.
    """
    m_uf = 2 * car["unsprung_mass_front"]
    m_ur = 2 * car["unsprung_mass_rear"]
    ix, iy, iz = car["inertia"]
    axle_roll = {key: car[f"{name}_{end}"] for key, name, end in (
        ("I_uf", "axle_roll_inertia", "front"), ("I_ur", "axle_roll_inertia", "rear"),
        ("h_raf", "roll_center_height", "front"), ("h_rar", "roll_center_height", "rear"))
        if car[f"{name}_{end}"]}
    return {
        **axle_roll,
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


def peer_setup(p, overrides):
    """Set CommonRoad parameter set `p` (``parameters_vehicle2()``) up as the event's lead
    unit: the values of :func:`peer_parameters`, then the set's own lateral compliances
    scaled by the sprung-mass ratio (PEER_SCALED_WITH_MASS, PEER_SCALED_AGAINST_MASS)."""
    set_sprung_mass = p.m_s
    for key, value in overrides.items():
        setattr(p, key, value)
    ratio = p.m_s / set_sprung_mass
    for key in PEER_SCALED_WITH_MASS:
        setattr(p, key, getattr(p, key) * ratio)
    for key in PEER_SCALED_AGAINST_MASS:
        setattr(p, key, getattr(p, key) / ratio)
    return p


def sine_steer(event, duration=DURATION, speed=SPEED, frequency=SINE_FREQUENCY,
               target_ay=None, gear=None, event_file=None):
    """The manoeuvre for an event (an engine.Event, its typed model or its data), as a
    JSON-ready dict. The target lateral acceleration defaults to TARGET_PEAK_AY for a single
    vehicle and COMBINATION_PEAK_AY for a combination, the gear to select_gear()'s."""
    from engine.setup.model import typed_event
    model = typed_event(event)
    car = vehicle(model)
    if target_ay is None:
        target_ay = TARGET_PEAK_AY if car["units"] == 1 else COMBINATION_PEAK_AY
    if gear is None:
        gear = select_gear(car, speed)
    amplitude = steering_amplitude(car, speed, target_ay)
    trim = throttle_feedforward(car, speed, gear)
    return {
        "name": "sine steer at constant speed",
        "event": model.name,
        "event_file": event_file,
        "unit": car["unit"],
        "units": car["units"],
        "combination_mass_kg": car["combination_mass"],
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


def load(duration=DURATION, event_file=None):
    """The manoeuvre for an event file (default: the project's default event, the one the
    FMU is built from by default)."""
    import engine

    return sine_steer(engine.load_event(event_file), duration,
                      event_file=None if event_file is None else str(event_file))


def describe(manoeuvre):
    """One line saying what is driven."""
    m = manoeuvre
    return (f"{m['duration_s']:g} s at {m['speed_mps']:g} m/s in gear {m['gear']} "
            f"({m['engine_rpm']:.0f} rpm), {m['sine_frequency_hz']:g} Hz steering-wheel sine, "
            f"amplitude {math.degrees(m['steering_wheel_amplitude_rad']):.1f} deg at the "
            f"steering wheel ({math.degrees(m['road_wheel_amplitude_rad']):.2f} deg road "
            f"wheel), sized for {m['target_peak_ay_mps2']:g} m/s^2; unit {m['unit']!r} of "
            f"the event {m['event']!r}" + (f" ({m['units']} units)" if m.get("units", 1) > 1
                                           else ""))
