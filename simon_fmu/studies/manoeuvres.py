"""The standard manoeuvres: their settings, driver inputs, end condition, metrics and plots.

A manoeuvre drives the lead unit of the FMU through its inputs (steering-wheel angle,
throttle, brake pedal force, gear) once per communication step, from the outputs of the step
before. Its settings (speeds, angles, forces, times) have defaults and ranges; every vehicle
value comes from the FMU (its event) itself. Names of outputs are relative to the lead unit
(``u`` is ``car.u`` for the car).

| name | what | metrics |
| --- | --- | --- |
| ``straight-brake`` | from ``speed0`` in neutral, the brake pedal pushed with ``brakePedalForce`` at ``brakeTime`` and held to a stop | stopping distance and time, mean fully developed deceleration (UN ECE R13-H) |
| ``steady-circle`` | ISO 4138 constant speed, slowly increasing steering-wheel angle | understeer gradient, maximum lateral acceleration, roll gradient |
| ``static-rollover`` | ``method`` ``circle``: the steady-circle ramp on a high-friction road; ``tilt``: a tilt table (FMU input ``gravityTilt``) rising slowly under the braked vehicle at rest; until a wheel lifts off | ``rolloverThreshold`` (g), lateral acceleration, tilt, roll and time at lift-off, the unit and axle that lift, roll gradient (circle) |
| ``sine-with-dwell`` | FMVSS 126 0.7 Hz sine with a 0.5 s dwell, coasting | yaw-rate ratios 1.0 s and 1.75 s after the steer, lateral displacement 1.07 s after its beginning |
| ``step-steer`` | ISO 7401 step steer at constant throttle | yaw-rate and lateral-acceleration response and peak response times, overshoots, steady yaw-rate gain |
| ``frequency-response`` | ISO 7401 several-frequency sine: the sum of 0.2, 0.6 and 1.2 Hz sines of the steering wheel at constant speed | yaw-rate and lateral-acceleration gain and phase to the road-wheel steer at each frequency (``yawRateGain1``..3, ``yawRatePhase1``..3, ``lateralAccelerationGain1``..3, ``lateralAccelerationPhase1``..3) |
| ``split-mu`` | ISO 14512 straight braking with the ``lowSide`` wheels on ``muLow``, the others on ``muHigh`` (wheel input frictionMultiplier); steering held (``driver``=0) or a preview driver back to the initial line (``driver``=1) | stopping distance (along the path) and time, mean deceleration, ``maxYaw``, ``finalYaw``, ``maxLateralDeviation`` |
| ``lane-change`` | ISO 3888-2 severe lane change (obstacle avoidance): the path-following driver through the course of the unit's width, entered at ``speed`` with the accelerator released (``throttleHeld`` 1: speed held) | ``pass``, cone margins ``margin1``, ``margin3``, ``margin5`` per lane (section) and ``minMargin`` (negative: a cone hit), ``firstGateHit``, ``firstHitTime``, ``entrySpeed``, ``exitSpeed``, ``maxLateralAcceleration``, ``maxYawRate``, ``maxSteeringWheelAngle`` |
| ``off-tracking`` | low speed on a circle: the front axle centre steered onto a circle of ``radius`` at ``speed`` | ``offTracking`` (front axle path radius minus the last unit's last axle path radius), ``frontAxleRadius``, ``lastAxleRadius``, ``centreDistance`` of the two fitted circles |
| ``rearward-amplification`` | SAE J2179 single sine at 88 km/h, 0.4 Hz, its amplitude calibrated to the lead unit's peak ``targetAy`` (0.15 g) | ``rearwardAmplification`` (last unit's peak absolute ay over the lead unit's), ``leadPeakAy``, ``lastUnitPeakAy``, ``steeringAmplitude`` |
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ..controllers.abs_controller import AbsController, AbsParams
from ..controllers.driver import DriverParams
from . import metrics as m
from .report import PLAN_Y

WHEEL_SIDES = ("left", "right")


@dataclass(frozen=True)
class Setting:
    """A manoeuvre setting: default, SI unit, accepted range and meaning. A setting with
    ``choices`` takes one of their names or its index (0, 1, ...), and resolves to the index."""
    default: float
    unit: str
    low: float
    high: float
    description: str
    choices: tuple[str, ...] = ()

    def value(self, key: str, manoeuvre: str, value) -> float:
        """``value`` checked against the setting; ValueError naming ``key`` if refused."""
        if self.choices and isinstance(value, str):
            if value in self.choices:
                return float(self.choices.index(value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value) and self.low <= value <= self.high \
                and (not self.choices or value == int(value)):
            return float(value)
        if self.choices:
            raise ValueError(f"{key}: {value!r} is not accepted; {manoeuvre} takes "
                             f"{' or '.join(self.choices)} (or {', '.join(map(str, range(len(self.choices))))})")
        raise ValueError(f"{key}: {value!r} is not accepted; {manoeuvre} takes a number "
                         f"from {self.low:g} to {self.high:g} {self.unit}".rstrip())


@dataclass
class Manoeuvre:
    """Base: a manoeuvre's name, settings and communication step; subclasses drive it."""
    name: str = ""
    description: str = ""
    step: float = 0.01
    settings: dict[str, Setting] = field(default_factory=dict)
    #: panels of the report: (title, x name, [y names], y label)
    plots: tuple = ()
    #: SI unit of each metric
    metric_units: dict[str, str] = field(default_factory=dict)

    # --- settings ---------------------------------------------------------------------------
    def resolve(self, values: dict) -> dict:
        """The settings with ``values`` over the defaults; ValueError naming a bad one."""
        out = {k: s.default for k, s in self.settings.items()}
        for key, value in values.items():
            if key not in self.settings:
                raise ValueError(f"{key}: not a setting of {self.name} "
                                 f"(settings: {', '.join(self.settings)})")
            out[key] = self.settings[key].value(key, self.name, value)
        return out

    # --- driving ----------------------------------------------------------------------------
    def outputs(self, runner) -> list[str]:
        """Output names (relative to the lead unit) recorded each communication step."""
        return ["X", "Y", "u", "speed", "ax", "ay", "r", "roll", "yaw", "sideslip",
                "steering.angle"] + self.wheel_outputs(runner, ("steer", "spin", "Fz"))

    @staticmethod
    def wheel_outputs(runner, quantities) -> list[str]:
        unit = runner.lead_unit
        return [name.split(".", 1)[1] for name in runner.variables
                if name.startswith(unit + ".axle") and name.count(".") == 3
                and name.rsplit(".", 1)[1] in quantities]

    def communication_step(self, s: dict) -> float:
        """The communication step of a run with settings ``s``, s."""
        return self.step

    def fmu_parameters(self, s: dict, unit: str) -> dict:
        """FMU parameters the manoeuvre sets (full names; ``unit`` is the lead unit's)."""
        return {f"{unit}.speed0": s["speed0"]}

    def simulate(self, runner, s: dict, parameters: dict) -> dict:
        """The histories of a case: one run of the FMU (a manoeuvre that calibrates its
        input runs it more than once)."""
        return runner.run(self, s, parameters)

    def controller(self, s: dict, unit: str):
        raise NotImplementedError

    def finished(self, t: float, y: dict, s: dict, unit: str) -> bool:
        return False

    # --- the report's figure ----------------------------------------------------------------
    def panels(self, h: dict, s: dict, shown) -> list:
        """The report figure's panels (:class:`.report.Panel`, the plotted arrays in display
        units, ``shown`` a :class:`.units.DisplayUnits` keyed by history names) from
        ``plots``: (title, x name, [y names], SI unit of the y names). A y name may be a
        (legend name, x name, y name) triple; an x name ``X`` makes a plan view. Call after
        :meth:`metrics` (which adds the derived histories some panels plot)."""
        return [panel(spec, h, shown) for spec in self.plots]

    def metrics(self, h: dict, s: dict) -> dict[str, float]:
        raise NotImplementedError

    def notes(self, metrics: dict, s: dict, shown) -> list[str]:
        """What the report must say beside the metrics, in display units (``shown``): a
        manoeuvre that holds a ``speed`` and measures its ``meanSpeed`` names a mean more than
        :data:`SPEED_HELD` off the setting, since its metrics are then at another speed (a gear
        whose top speed is below the setting cannot reach it)."""
        if "speed" not in s or "meanSpeed" not in metrics or not s["speed"] > 0:
            return []
        mean, target = metrics["meanSpeed"], s["speed"]
        if abs(mean / target - 1.0) <= SPEED_HELD:
            return []
        unit = shown.unit("m/s")
        text = (f"speed: {unit(mean):.4g} {unit.unit} held on average where the metrics are "
                f"measured, {100 * (mean / target - 1):+.1f} % from the setting "
                f"{unit(target):.4g} {unit.unit}; the metrics are at that speed")
        if "gear" in s and mean < target:
            text += f" (gear {int(s['gear'])} may not reach the setting: take a higher gear)"
        return [text]


#: the largest relative difference of a held speed's mean to its setting that goes unnoted
SPEED_HELD = 0.01

#: what an output (history name) is, for axis labels and legends
QUANTITIES = {
    "time": "t", "X": "X", "Y": "Y", "u": "forward speed u", "speed": "speed",
    "ax": "longitudinal acceleration", "ay": "lateral acceleration", "r": "yaw rate",
    "roll": "roll angle", "yaw": "yaw angle", "steering.angle": "steering-wheel angle",
    "frontSteer": "front road-wheel steer (mean)", "tilt": "tilt-table angle",
    "coneMargin": "least cone margin", "radiusError": "front axle radius error",
    "deceleration": "deceleration", "distance": "distance travelled",
    "yawChange": "yaw angle from the start",
}


#: SI units of the histories a manoeuvre derives (not FMU outputs)
DERIVED_UNITS = {"tilt": "rad", "frontSteer": "rad", "coneMargin": "m", "radiusError": "m",
                 "deceleration": "m/s^2", "distance": "m", "yawChange": "rad",
                 "lastUnitAy": "m/s^2", "frontAxleX": "m", "frontAxleY": "m",
                 "lastAxleX": "m", "lastAxleY": "m"}


def quantity(name: str) -> str:
    """What the history ``name`` is: its entry in QUANTITIES, a wheel's output as
    "axle 1 left spin", another unit's as "<unit> <what>"."""
    if name in QUANTITIES:
        return QUANTITIES[name]
    parts = name.split(".")
    if parts[0].startswith("axle") and parts[0][4:].isdigit():
        return " ".join([f"axle {parts[0][4:]}"] + parts[1:])
    if len(parts) > 1:
        return f"{parts[0]} {quantity('.'.join(parts[1:]))}"
    return name


def shown_of(name: str, shown, si: str = ""):
    """The display unit of the history ``name`` (time in s)."""
    from .units import Shown
    if name == "time":
        return Shown("s", "s", 1.0)
    return shown.variable(name, DERIVED_UNITS.get(name, si))


def axis_label(name: str, shown, si: str = "") -> str:
    unit = shown_of(name, shown, si).unit
    return f"{quantity(name)} ({unit})" if unit else quantity(name)


def panel(spec, h: dict, shown):
    """A :class:`.report.Panel` from a ``plots`` entry (see :meth:`Manoeuvre.panels`)."""
    from .report import PLAN_Y, Line, Panel
    title, x, ys, si = spec
    lines = []
    for y in ys:
        label, xn, yn = y if isinstance(y, tuple) else \
            ("CG path" if (x, y) == ("X", "Y") else quantity(y), x, y)
        if yn in h and xn in h:
            lines.append(Line(label, shown_of(xn, shown)(h[xn]), shown_of(yn, shown, si)(h[yn])))
    if x == "X":
        return Panel(title, "X (m)", PLAN_Y + " (Y stretched)", lines, plan=True)
    if len(ys) == 1:
        ylabel = axis_label(ys[0] if not isinstance(ys[0], tuple) else ys[0][2], shown, si)
    else:
        first = ys[0][2] if ys and isinstance(ys[0], tuple) else (ys[0] if ys else "")
        ylabel = f"{title} ({shown_of(first, shown, si).unit if first else shown.unit(si).unit})"
    return Panel(title, axis_label(x, shown), ylabel, lines)


def outline_lines(x, y, yaw, body, every: int, label: str) -> list:
    """The body's outline (plan-view rectangle) at every ``every``-th sample of the CG path
    (x, y, yaw), its front edge drawn heavier: report lines, the first two named."""
    from ..controllers.courses import body_corners
    from .report import Line
    lines = []
    idx = np.arange(0, len(x), max(1, every))
    if idx[-1] != len(x) - 1:
        idx = np.append(idx, len(x) - 1)
    for k, box in enumerate(body_corners(x[idx], y[idx], yaw[idx], body)):
        closed = np.vstack([box, box[:1]])
        lines.append(Line(label if k == 0 else "_outline", closed[:, 0], closed[:, 1],
                          {"color": "0.45", "lw": 0.7}))
        lines.append(Line("body front" if k == 0 else "_front", box[:2, 0], box[:2, 1],
                          {"color": "tab:red", "lw": 1.6}))
    return lines


def speed_governor(unit: str, target: float, feedforward: float, kp: float, ki: float, dt: float):
    """PI throttle on the forward speed, limited to 0..1 with the integral held at the limits."""
    state = {"i": 0.0}

    def throttle(y: dict) -> float:
        e = target - y[f"{unit}.u"]
        raw = feedforward + kp * e + state["i"]
        if 0.0 < raw < 1.0:
            state["i"] += ki * e * dt
        return min(1.0, max(0.0, raw))
    return throttle


class AntiLock:
    """The anti-lock controller in a manoeuvre's loop: the wheel spins ``spins`` (full output
    names, left/right pairs from the front axle, the controller's order) in, each wheel's
    brakePressureFactor out, every ``step`` s. The controller's tire radius is the vehicle's
    own effective rolling radius, learnt at the first call (the wheels roll freely at the
    start): the speed over the mean wheel spin, as a production ABS calibrates its wheel speeds."""

    def __init__(self, unit: str, spins: list[str], step: float):
        self.unit, self.spins, self.step = unit, spins, step
        self.factors = [name[:-len("spin")] + "brakePressureFactor" for name in spins]
        self.control = None

    def __call__(self, y: dict) -> dict:
        spins = [y[name] for name in self.spins]
        if self.control is None:
            mean = sum(spins) / len(spins)
            if not mean > 0:
                raise ValueError(f"abs: the wheels must roll forward at the start to calibrate "
                                 f"the anti-lock controller (mean spin {mean!r} rad/s)")
            self.control = AbsController(len(spins), AbsParams(tireRadius=y[f"{self.unit}.speed"] / mean))
        return dict(zip(self.factors, self.control.step(self.step, spins)))


def steering_at_speed(man: Manoeuvre, s: dict, unit: str):
    """The inputs of an open-loop steering manoeuvre: the steering wheel at ``man.steer(t,
    s)``, the speed held at ``speed`` by the PI throttle in ``gear``."""
    gov = speed_governor(unit, s["speed"], 0.15, 0.5, 0.5, man.step)

    def inputs(t, y):
        return {f"{unit}.steeringWheelAngle": float(man.steer(t, s)),
                f"{unit}.throttle": gov(y), f"{unit}.gear": s["gear"]}
    return inputs


class StraightBrake(Manoeuvre):
    """Straight-line stop: neutral, no steering, a step of brake pedal force at
    ``brakeTime`` (the brakes' own pressure lag follows), held until the forward speed falls
    below ``stopSpeed`` or ``duration`` ends. The FMU has no ABS of its own, so a force high
    enough locks the wheels; with ``abs`` 1 the anti-lock controller
    (:class:`simon_fmu.controllers.abs_controller.AbsController`, its default calibration)
    sets each wheel's brakePressureFactor from the wheel spins every ``absCycle`` (then the
    communication step; production controllers cycle every 5 to 10 ms: at 10 ms the low-friction
    wheel's mean slip is 0.45, at 5 ms 0.24, at 2 ms 0.16, and the split-mu stop at 5 ms is
    within 0.1 % of the one at 2 ms)."""

    def __init__(self):
        super().__init__(
            name="straight-brake", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed0": Setting(20.0, "m/s", 0.5, 100.0, "initial forward speed"),
                "brakePedalForce": Setting(3000.0, "N", 0.0, 5000.0, "brake pedal force"),
                "brakeTime": Setting(0.0, "s", 0.0, 10.0, "time of the brake application"),
                "stopSpeed": Setting(0.01, "m/s", 1e-4, 1.0, "speed taken as stopped"),
                "duration": Setting(20.0, "s", 0.1, 600.0, "longest run"),
                "abs": Setting(0, "", 0, 1, "0 no ABS, 1 the anti-lock controller in the loop"),
                "absCycle": Setting(0.005, "s", 0.001, 0.02, "the anti-lock controller's cycle, "
                                    "the communication step with abs 1"),
            },
            plots=(("speed", "time", ["u"], "m/s"),
                   ("deceleration", "time", ["deceleration"], "m/s^2"),
                   ("distance", "time", ["distance"], "m"),
                   ("wheel spin", "time", ["axle1.left.spin", "axle2.left.spin"], "rad/s")),
            metric_units={"stoppingDistance": "m", "stoppingTime": "s",
                          "meanDeceleration": "m/s^2", "brakeSpeed": "m/s"})

    def outputs(self, runner):
        self._spins = [f"{runner.lead_unit}.{name}" for name in self.wheel_outputs(runner, ("spin",))]
        return super().outputs(runner)

    def communication_step(self, s):
        return s["absCycle"] if s["abs"] >= 0.5 else self.step

    def controller(self, s, unit):
        force, t_brake = s["brakePedalForce"], s["brakeTime"]
        anti_lock = AntiLock(unit, self._spins, s["absCycle"]) if s["abs"] >= 0.5 else None

        def inputs(t, y):
            out = {f"{unit}.brakePedalForce": force if t >= t_brake - 1e-9 else 0.0,
                   f"{unit}.gear": 0}
            if anti_lock is not None:
                out.update(anti_lock(y))
            return out
        return inputs

    def finished(self, t, y, s, unit):
        return t > s["brakeTime"] and y[f"{unit}.u"] < s["stopSpeed"]

    def metrics(self, h, s):
        t, x, u = h["time"], h["X"], h["u"]
        h["deceleration"] = -h["ax"]
        h["distance"] = x - x[0]
        distance, duration = m.stopping(t, x, u, s["brakeTime"], s["stopSpeed"])
        v_brake = m.at(t, u, s["brakeTime"])
        after = t >= s["brakeTime"]
        return {"stoppingDistance": distance, "stoppingTime": duration,
                "meanDeceleration": m.mean_fully_developed_deceleration(x[after], u[after], v_brake),
                "brakeSpeed": v_brake}


def front_steer(h: dict) -> np.ndarray:
    """Mean road-wheel steer angle of the first axle's wheels."""
    return 0.5 * (h["axle1.left.steer"] + h["axle1.right.steer"])


class SteadyCircle(Manoeuvre):
    """ISO 4138 steady-state circular driving, constant-speed method: the speed held at
    ``speed`` by a PI throttle in ``gear`` while the steering-wheel angle rises slowly at
    ``steerRate`` from ``rampStart`` until ``maxSteer`` (a quasi-steady sweep of lateral
    acceleration). The understeer and roll gradients are fitted over the lateral
    accelerations ``linearLow`` to ``linearHigh``."""

    def __init__(self):
        super().__init__(
            name="steady-circle", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(20.0, "m/s", 1.0, 80.0, "speed held"),
                "gear": Setting(4, "", 1, 20, "gear held"),
                "steerRate": Setting(0.04, "rad/s", 1e-3, 1.0, "steering-wheel rate"),
                "maxSteer": Setting(1.6, "rad", 0.01, 20.0, "last steering-wheel angle"),
                "rampStart": Setting(2.0, "s", 0.0, 60.0, "start of the steering ramp"),
                "linearLow": Setting(0.2, "m/s^2", 0.0, 20.0, "fit range, low end"),
                "linearHigh": Setting(2.0, "m/s^2", 0.0, 20.0, "fit range, high end"),
                "duration": Setting(40.0, "s", 0.1, 600.0, "longest run"),
            },
            plots=(("lateral acceleration", "time", ["ay"], "m/s^2"),
                   ("road-wheel steer vs lateral acceleration", "ay", ["frontSteer"], "rad"),
                   ("roll vs lateral acceleration", "ay", ["roll"], "rad"),
                   ("speed", "time", ["u"], "m/s")),
            metric_units={"understeerGradient": "rad/(m/s^2)", "maxLateralAcceleration": "m/s^2",
                          "rollGradient": "rad/(m/s^2)", "meanSpeed": "m/s"})

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    def controller(self, s, unit):
        gov = speed_governor(unit, s["speed"], 0.15, 0.5, 0.5, self.step)

        def inputs(t, y):
            steer = min(s["maxSteer"], s["steerRate"] * max(0.0, t - s["rampStart"]))
            return {f"{unit}.steeringWheelAngle": steer, f"{unit}.throttle": gov(y),
                    f"{unit}.gear": s["gear"]}
        return inputs

    def finished(self, t, y, s, unit):
        return s["steerRate"] * (t - s["rampStart"]) >= s["maxSteer"]

    def metrics(self, h, s):
        h["frontSteer"] = front_steer(h)
        ay = h["ay"]
        band = (h["time"] > s["rampStart"]) & (np.abs(ay) >= s["linearLow"]) \
            & (np.abs(ay) <= s["linearHigh"])
        wheelbase = float(h["wheelbase"][0])
        return {"understeerGradient": m.understeer_gradient(ay[band], h["frontSteer"][band],
                                                            h["r"][band], h["u"][band], wheelbase),
                "maxLateralAcceleration": float(np.max(np.abs(ay))),
                "rollGradient": m.slope(ay[band], h["roll"][band]),
                "meanSpeed": float(np.mean(h["u"][band])) if band.any() else math.nan}

    def outputs(self, runner):
        return super().outputs(runner) + ["wheelbase"]


class StaticRollover(SteadyCircle):
    """Quasi-static rollover threshold, by one of two ``method``s, until a wheel's load falls
    to ``liftLoad`` (a wheel lifts off). ``circle``: the steady-circle ramp (constant speed,
    slowly increasing steering-wheel angle up to ``maxSteer``) on a road of friction
    multiplier ``friction``, high enough that the tires do not saturate first; the
    threshold is the lateral acceleration at lift-off in g. ``tilt``: a tilt table, the
    vehicle at rest in neutral on it, braked with ``brakePedalForce``, while from ``rampStart`` its cross slope rises at
    ``tiltRate`` (the FMU's ``gravityTilt``, positive the right side down) up to
    ``maxTilt``; the threshold is tan(tilt at lift-off) in g. The wheels of every unit count."""

    METHODS = ("circle", "tilt")

    def __init__(self):
        super().__init__()
        self.name = "static-rollover"
        self.description = self.__doc__.split("\n\n")[0]
        self.settings = {**self.settings,
                         "method": Setting(0, "", 0, 1, "circle: steady-circle ramp; tilt: tilt table",
                                           choices=self.METHODS),
                         "friction": Setting(1.6, "", 0.0, 5.0, "road friction multiplier"),
                         "liftLoad": Setting(10.0, "N", 0.0, 1e4, "load taken as lift-off"),
                         "steerRate": Setting(0.1, "rad/s", 1e-3, 1.0, "steering-wheel rate"),
                         "maxSteer": Setting(6.0, "rad", 0.01, 20.0, "last steering-wheel angle"),
                         "tiltRate": Setting(0.01, "rad/s", 1e-4, 0.5, "tilt table's rate"),
                         "maxTilt": Setting(1.2, "rad", 0.0, 1.5, "tilt table's last angle"),
                         "brakePedalForce": Setting(500.0, "N", 0.0, 5000.0,
                                                    "brake pedal force held on the tilt table"),
                         "duration": Setting(200.0, "s", 0.1, 3600.0, "longest run")}
        self.plots = (("lateral acceleration", "time", ["ay"], "m/s^2"),
                      ("least tire load of each axle", "time", [], "N"),
                      ("roll vs lateral acceleration", "ay", ["roll"], "rad"),
                      ("speed", "time", ["u"], "m/s"))
        self.tilt_plots = (("tilt", "time", ["tilt"], "rad"),
                           ("least tire load of each axle", "time", [], "N"),
                           ("roll vs tilt", "tilt", ["roll"], "rad"))
        self.metric_units = {"rolloverThreshold": "g", "liftOffLateralAcceleration": "m/s^2",
                             "liftOffTilt": "rad", "liftOffRoll": "rad", "liftOffTime": "s",
                             "liftOffUnit": "", "liftOffAxle": "", "rollGradient": "rad/(m/s^2)"}
        self._gravity = math.nan
        self._tilt_method = False
        self._units: list[str] = []

    def resolve(self, values):
        s = super().resolve(values)
        self._tilt_method = self.METHODS[int(s["method"])] == "tilt"
        if self._tilt_method:
            self.plots = self.tilt_plots
        return s

    def outputs(self, runner):
        self._gravity = runner.model.environment.gravity
        if self._tilt_method and "gravityTilt" not in runner.variables:
            raise ValueError("method: tilt needs the FMU input gravityTilt (an FMU built by "
                             "this version)")
        self._units = list(runner.units)
        own = super().outputs(runner)
        tires = [name for name in runner.variables if ".axle" in name and name.endswith(".Fz")
                 and runner.short_name(name) not in own]       # the dual tires, the other units'
        return own + tires

    def tilt(self, t, s):
        """The tilt table's angle at time(s) ``t``."""
        return np.minimum(s["maxTilt"], s["tiltRate"] * np.maximum(
            0.0, np.asarray(t, dtype=float) - s["rampStart"]))

    def fmu_parameters(self, s, unit):
        speed = 0.0 if self._tilt_method else s["speed"]
        return {f"{unit}.speed0": speed, "frictionMultiplier": s["friction"]}

    def controller(self, s, unit):
        if not self._tilt_method:
            return super().controller(s, unit)

        def inputs(t, y):
            return {"gravityTilt": float(self.tilt(t, s)), f"{unit}.gear": 0,
                    f"{unit}.brakePedalForce": s["brakePedalForce"]}
        return inputs

    @staticmethod
    def _loads(y: dict) -> list[float]:
        return [v for k, v in y.items() if ".axle" in k and k.endswith(".Fz")]

    def finished(self, t, y, s, unit):
        if self._tilt_method:
            done = s["tiltRate"] * (t - s["rampStart"]) >= s["maxTilt"]
        else:
            done = SteadyCircle.finished(self, t, y, s, unit)
        return done or (t > s["rampStart"] and min(self._loads(y)) <= s["liftLoad"])

    def axle_loads(self, h) -> dict[str, np.ndarray]:
        """The least tire load of each axle (over its wheels, the dual tires each), by
        "<unit> axle <k>": the wheel that lifts first is on the axle whose line reaches the
        lift-off load first."""
        out: dict[str, list] = {}
        for k in h:
            if (k.startswith("axle") or ".axle" in k) and k.endswith(".Fz"):
                unit = k.split(".")[0] if ".axle" in k else (self._units or [""])[0]
                axle = k.split(".axle")[-1].split(".")[0] if ".axle" in k else \
                    k.split(".")[0][len("axle"):]
                out.setdefault(f"{unit} axle {axle}".strip(), []).append(h[k])
        return {name: np.min(np.vstack(v), axis=0) for name, v in out.items()}

    def panels(self, h, s, shown):
        from .report import Line
        out = super().panels(h, s, shown)
        load = out[1]
        kn = shown.variable(next((k for k in h if k.endswith(".Fz")), ""), "N")
        load.lines = [Line(name, h["time"], kn(v)) for name, v in self.axle_loads(h).items()]
        load.lines.append(Line("lift-off load", h["time"][[0, -1]],
                               kn(np.full(2, s["liftLoad"])), {"color": "k", "ls": ":"}))
        load.ylabel = f"tire load ({kn.unit})"
        return out

    def metrics(self, h, s):
        t, ay = h["time"], h["ay"]
        h["tilt"] = self.tilt(t, s)
        wheels = [k for k in h if (k.startswith("axle") or ".axle" in k) and k.endswith(".Fz")]
        loads = np.column_stack([h[k] for k in wheels])
        lifted = np.flatnonzero((t > s["rampStart"]) & (loads.min(axis=1) <= s["liftLoad"]))
        band = (t > s["rampStart"]) & (np.abs(ay) >= s["linearLow"]) & (np.abs(ay) <= s["linearHigh"])
        out = {"rollGradient": math.nan if self._tilt_method else m.slope(ay[band], h["roll"][band])}
        if lifted.size == 0:
            return {**out, **{k: math.nan for k in self.metric_units if k not in out}}
        i = lifted[0]
        wheel = wheels[int(np.argmin(loads[i]))]
        unit = wheel.split(".")[0] if ".axle" in wheel else ""
        threshold = math.tan(h["tilt"][i]) if self._tilt_method else abs(ay[i]) / self._gravity
        return {**out, "rolloverThreshold": float(threshold),
                "liftOffLateralAcceleration": float(abs(ay[i])),
                "liftOffTilt": float(h["tilt"][i]) if self._tilt_method else math.nan,
                "liftOffRoll": float(h["roll"][i]), "liftOffTime": float(t[i]),
                "liftOffUnit": float(self._units.index(unit) + 1 if unit else 1),
                "liftOffAxle": float(wheel.split(".axle")[-1].split(".")[0]
                                     if unit else wheel.split(".")[0][len("axle"):])}


#: the report panels of a transient steering manoeuvre
TRANSIENT_PANELS = (("steering-wheel angle", "time", ["steering.angle"], "rad"),
                    ("yaw rate", "time", ["r"], "rad/s"),
                    ("lateral acceleration", "time", ["ay"], "m/s^2"))


class StepSteer(Manoeuvre):
    """ISO 7401 step steer: at ``speed`` in ``gear`` with the throttle trimmed by a PI
    governor until ``stepTime``, then held; the steering wheel ramps to ``steerAngle`` within
    ``rampTime`` and is held. Response figures per ISO 7401 (see
    :func:`metrics.step_response`), the steady state taken from ``steadyFrom`` seconds after
    the step."""

    def __init__(self):
        super().__init__(
            name="step-steer", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(22.2, "m/s", 1.0, 80.0, "speed"),
                "gear": Setting(4, "", 1, 20, "gear held"),
                "steerAngle": Setting(0.3, "rad", -20.0, 20.0, "steering-wheel step"),
                "stepTime": Setting(1.0, "s", 0.1, 60.0, "start of the steering ramp"),
                "rampTime": Setting(0.1, "s", 0.01, 1.0, "duration of the steering ramp"),
                "steadyFrom": Setting(3.0, "s", 0.5, 60.0, "steady state from this long after the step"),
                "duration": Setting(5.0, "s", 0.1, 120.0, "run"),
            },
            plots=TRANSIENT_PANELS + (("speed", "time", ["u"], "m/s"),),
            metric_units={"yawRateGain": "1/s", "yawRateResponseTime": "s",
                          "yawRatePeakResponseTime": "s", "yawRateOvershoot": "",
                          "lateralAccelerationResponseTime": "s",
                          "lateralAccelerationPeakResponseTime": "s",
                          "lateralAccelerationOvershoot": "", "steadyLateralAcceleration": "m/s^2",
                          "meanSpeed": "m/s"})

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    def controller(self, s, unit):
        gov = speed_governor(unit, s["speed"], 0.15, 0.5, 0.5, self.step)
        held = {}

        def inputs(t, y):
            if t < s["stepTime"]:
                throttle = gov(y)
                held["throttle"] = throttle
            else:
                throttle = held.get("throttle", 0.0)
            ramp = min(1.0, max(0.0, (t - s["stepTime"]) / s["rampTime"]))
            return {f"{unit}.steeringWheelAngle": s["steerAngle"] * ramp,
                    f"{unit}.throttle": throttle, f"{unit}.gear": s["gear"]}
        return inputs

    def metrics(self, h, s):
        t = h["time"]
        steer = np.where(t >= s["stepTime"], 1.0, 0.0) * np.minimum(
            1.0, np.maximum(0.0, (t - s["stepTime"]) / s["rampTime"])) * s["steerAngle"]
        start = s["stepTime"] + s["steadyFrom"]
        yaw = m.step_response(t, steer, h["r"], start)
        lat = m.step_response(t, steer, h["ay"], start)
        return {"yawRateGain": yaw["steady"] / float(np.mean(front_steer(h)[t >= start])),
                "yawRateResponseTime": yaw["responseTime"],
                "yawRatePeakResponseTime": yaw["peakResponseTime"],
                "yawRateOvershoot": yaw["overshoot"],
                "lateralAccelerationResponseTime": lat["responseTime"],
                "lateralAccelerationPeakResponseTime": lat["peakResponseTime"],
                "lateralAccelerationOvershoot": lat["overshoot"],
                "steadyLateralAcceleration": lat["steady"],
                "meanSpeed": float(np.mean(h["u"][t >= start]))}


class SineWithDwell(Manoeuvre):
    """FMVSS No. 126 sine with dwell: coasting in neutral from ``speed``, at ``startTime``
    (the beginning of steer, BOS) the steering wheel follows a ``frequency`` sine of
    ``amplitude``, held for ``dwell`` at its second peak, then back to zero (the completion
    of steer, COS, 1/f + dwell after BOS). Yaw-rate ratios at COS + 1.0 s and COS + 1.75 s
    to the first yaw-rate peak after the steering changes sign (FMVSS 126 S5.2.1, S5.2.2:
    at most 0.35 and 0.20), and the lateral displacement of the CG 1.07 s after BOS (S5.2.3),
    in the direction of the first steer."""

    def __init__(self):
        super().__init__(
            name="sine-with-dwell", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(80.0 / 3.6, "m/s", 1.0, 80.0, "initial speed"),
                "amplitude": Setting(1.5, "rad", -20.0, 20.0, "steering-wheel amplitude"),
                "frequency": Setting(0.7, "Hz", 0.05, 5.0, "frequency of the sine"),
                "dwell": Setting(0.5, "s", 0.0, 5.0, "dwell at the second peak"),
                "startTime": Setting(1.0, "s", 0.0, 30.0, "beginning of steer"),
                "duration": Setting(6.0, "s", 0.1, 120.0, "run"),
            },
            plots=TRANSIENT_PANELS + (("path of the CG", "X", ["Y"], "m"),),
            metric_units={"yawRateRatio1s": "", "yawRateRatio175s": "", "peakYawRate": "rad/s",
                          "lateralDisplacement": "m", "peakLateralAcceleration": "m/s^2"})

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    @staticmethod
    def steer(t, s):
        """The steering-wheel angle at time(s) ``t``."""
        tau = np.asarray(t, dtype=float) - s["startTime"]
        w, quarter3 = 2 * math.pi * s["frequency"], 0.75 / s["frequency"]
        end = 1.0 / s["frequency"] + s["dwell"]
        phase = np.where(tau < quarter3, tau, np.where(tau < quarter3 + s["dwell"], quarter3,
                                                       tau - s["dwell"]))
        return np.where((tau > 0) & (tau < end), s["amplitude"] * np.sin(w * phase), 0.0)

    def controller(self, s, unit):
        def inputs(t, y):
            return {f"{unit}.steeringWheelAngle": float(self.steer(t, s)),
                    f"{unit}.throttle": 0.0, f"{unit}.gear": 0}
        return inputs

    def metrics(self, h, s):
        bos = s["startTime"]
        cos_ = bos + 1.0 / s["frequency"] + s["dwell"]
        return m.sine_with_dwell(h["time"], h["r"], h["ay"], h["X"], h["Y"], h["yaw"], bos,
                                 bos + 0.5 / s["frequency"], cos_, math.copysign(1.0, s["amplitude"]))


class FrequencyResponse(Manoeuvre):
    """ISO 7401 frequency response, several-frequency sine input: at ``speed`` held by a PI
    throttle in ``gear``, from ``startTime`` the steering wheel follows the sum of sines
    of ``frequency1``..``frequency3`` (Hz), each of ``amplitude``/3. After ``settle`` seconds
    the yaw rate, the lateral acceleration and the mean road-wheel steer of the first axle
    are fitted over ``window`` seconds (:func:`metrics.harmonics`; the window should hold
    whole periods of each frequency); gain and phase (negative a lag) of yaw rate and
    lateral acceleration to the road-wheel steer at each frequency."""

    N = 3

    def __init__(self):
        super().__init__(
            name="frequency-response", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(80.0 / 3.6, "m/s", 1.0, 80.0, "speed held"),
                "gear": Setting(4, "", 1, 20, "gear held"),
                "amplitude": Setting(0.3, "rad", -20.0, 20.0, "steering-wheel amplitude (sum of the sines)"),
                "frequency1": Setting(0.2, "Hz", 0.01, 10.0, "first frequency"),
                "frequency2": Setting(0.6, "Hz", 0.01, 10.0, "second frequency"),
                "frequency3": Setting(1.2, "Hz", 0.01, 10.0, "third frequency"),
                "startTime": Setting(1.0, "s", 0.0, 30.0, "start of the steering"),
                "settle": Setting(5.0, "s", 0.0, 60.0, "settling time before the fit"),
                "window": Setting(10.0, "s", 0.5, 300.0, "fit window"),
                "duration": Setting(60.0, "s", 0.1, 600.0, "longest run (ends after the window)"),
            },
            plots=TRANSIENT_PANELS + (("speed", "time", ["u"], "m/s"),),
            metric_units={**{f"{q}{i}": unit for i in range(1, self.N + 1) for q, unit in
                             (("frequency", "Hz"), ("yawRateGain", "1/s"), ("yawRatePhase", "rad"),
                              ("lateralAccelerationGain", "m/s^2/rad"),
                              ("lateralAccelerationPhase", "rad"))}, "meanSpeed": "m/s"})

    def frequencies(self, s) -> list[float]:
        return [s[f"frequency{i}"] for i in range(1, self.N + 1)]

    def steer(self, t, s):
        """The steering-wheel angle at time(s) ``t``."""
        tau = np.maximum(np.asarray(t, dtype=float) - s["startTime"], 0.0)
        return s["amplitude"] / self.N * sum(np.sin(2 * math.pi * f * tau)
                                             for f in self.frequencies(s))

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    def controller(self, s, unit):
        return steering_at_speed(self, s, unit)

    def finished(self, t, y, s, unit):
        return t >= s["startTime"] + s["settle"] + s["window"]

    def metrics(self, h, s):
        t = h["time"]
        t0 = s["startTime"] + s["settle"]
        win = (t >= t0) & (t < t0 + s["window"] - 0.5 * self.step)
        freqs = self.frequencies(s)
        delta = front_steer(h)[win]
        out = {"meanSpeed": float(np.mean(h["u"][win]))}
        for q, name in (("r", "yawRate"), ("ay", "lateralAcceleration")):
            gain, phase = m.frequency_response(t[win], delta, h[q][win], freqs)
            for i, f in enumerate(freqs, 1):
                out[f"frequency{i}"] = f
                out[f"{name}Gain{i}"] = float(gain[i - 1])
                out[f"{name}Phase{i}"] = float(phase[i - 1])
        return out


class SplitMu(StraightBrake):
    """ISO 14512 straight braking on split friction: from ``speed0`` in neutral the wheels
    of the ``lowSide`` (-1 left, +1 right) run on the road friction times ``muLow``, the
    others times ``muHigh`` (the wheel input frictionMultiplier); the brake pedal pushed
    with ``brakePedalForce`` at ``brakeTime`` to a stop. With ``driver`` 0 the steering
    wheel is held straight; with 1 a preview driver steers back to the initial line:
    steering-wheel angle -``driverGain`` (Y + ``preview`` u sin psi) within
    +-``maxSteer``. Stopping distance and time, largest yaw angle, yaw at the stop and
    largest lateral deviation from the initial line."""

    def __init__(self):
        super().__init__()
        self.name = "split-mu"
        self.description = self.__doc__.split("\n\n")[0]
        self.settings = {**self.settings,
                         "muLow": Setting(0.2, "", 0.0, 5.0, "friction multiplier, low side"),
                         "muHigh": Setting(1.0, "", 0.0, 5.0, "friction multiplier, high side"),
                         "lowSide": Setting(1, "", -1, 1, "low-friction side: -1 left, +1 right"),
                         "driver": Setting(0, "", 0, 1, "0 steering held, 1 path-following driver"),
                         "driverGain": Setting(0.3, "rad/m", 0.0, 10.0, "driver gain on the preview error"),
                         "preview": Setting(0.8, "s", 0.0, 5.0, "driver preview time"),
                         "maxSteer": Setting(6.0, "rad", 0.0, 20.0, "driver's largest steering-wheel angle")}
        self.plots = (("path of the CG and the body", "X", [("CG path", "X", "Y")], "m"),
                      ("yaw angle from the start", "time", ["yawChange"], "rad"),
                      ("speed", "time", ["speed"], "m/s"),
                      ("steering-wheel angle", "time", ["steering.angle"], "rad"))
        self.metric_units = {**self.metric_units, "maxYaw": "rad", "finalYaw": "rad",
                             "maxLateralDeviation": "m"}
        self._wheels: list[str] = []
        self.body = None

    def panels(self, h, s, shown):
        """The path in a plan view of equal scales with the body's outline every 0.5 s (a
        spin shows), the yaw angle from the start, the speed (the magnitude of the CG
        velocity: the forward speed u turns negative once the car runs backwards)."""
        out = super().panels(h, s, shown)
        path = out[0]
        path.equal, path.ylabel = True, PLAN_Y
        if self.body is not None:
            every = max(1, int(round(0.5 / (h["time"][1] - h["time"][0])))) if h["time"].size > 1 else 1
            path.lines += outline_lines(h["X"], h["Y"], h["yaw"], self.body, every,
                                        "body every 0.5 s")
        return out

    def outputs(self, runner):
        from ..controllers.vehicle_data import vehicle_body
        self.body = vehicle_body(runner.event(), runner.lead_unit)
        self._wheels = [name for name in runner.variables if name.startswith(runner.lead_unit + ".axle")
                        and name.endswith(".frictionMultiplier") and name.count(".") == 3]
        return super().outputs(runner)

    def controller(self, s, unit):
        if s["lowSide"] == 0:
            raise ValueError("lowSide: 0 is not accepted; split-mu takes -1 (left) or +1 (right)")
        brake = super().controller(s, unit)
        low = "left" if s["lowSide"] < 0 else "right"
        friction = {w: s["muLow"] if w.split(".")[2] == low else s["muHigh"] for w in self._wheels}

        def inputs(t, y):
            out = {**brake(t, y), **friction}
            if s["driver"] >= 0.5:
                error = y[f"{unit}.Y"] + s["preview"] * y[f"{unit}.u"] * math.sin(y[f"{unit}.yaw"])
                out[f"{unit}.steeringWheelAngle"] = max(-s["maxSteer"], min(s["maxSteer"],
                                                                           -s["driverGain"] * error))
            else:
                out[f"{unit}.steeringWheelAngle"] = 0.0
            return out
        return inputs

    def finished(self, t, y, s, unit):
        return t > s["brakeTime"] and y[f"{unit}.speed"] < s["stopSpeed"]

    def metrics(self, h, s):
        # the vehicle may yaw far: distances along the path, the speed its magnitude
        path = np.concatenate(([0.0], np.cumsum(0.5 * (h["speed"][1:] + h["speed"][:-1])
                                               * np.diff(h["time"]))))
        out = super().metrics({**h, "X": path, "u": h["speed"]}, s)
        after = h["time"] >= s["brakeTime"]
        h["yawChange"] = h["yaw"] - h["yaw"][0]
        yaw = h["yawChange"][after]
        return {**out, "maxYaw": float(np.max(np.abs(yaw))), "finalYaw": float(yaw[-1]),
                "maxLateralDeviation": float(np.max(np.abs(h["Y"][after] - h["Y"][0])))}


class LaneChange(Manoeuvre):
    """ISO 3888-2 severe lane change, obstacle avoidance: the vehicle enters the course at
    ``speed`` and the path-following driver (:class:`~simon_fmu.controllers.driver.Driver`)
    steers it along the course's path. The run starts ``runIn`` metres before the course
    (the CG at X = -``runIn``) at ``speed``, the driver's speed control holding it; when the
    body's front reaches the course entry the accelerator is released and the gear held
    (ISO 3888-2:2011 Annex A) -- or, with ``throttleHeld`` 1, the driver keeps holding the
    speed through the course. The run ends when the body's rear leaves the last lane.
    Margins of the body to the cone lines of each lane (sections 1, 3 and 5 of the
    standard; negative: a cone hit), pass or fail, the first lane hit, the largest lateral
    acceleration, yaw rate and steering-wheel angle.

    The course (ISO 3888-2:2011, 4.1 Table 1, 61 m in all; W the unit's width from its
    event, :func:`~simon_fmu.controllers.courses.iso3888_2_lanes`): section 1, the entry
    lane, 12 m long and 1.1 W + 0.25 wide; section 2 a 13.5 m gap; section 3, the side lane,
    11 m long and W + 1 wide, its right edge 1 m left of section 1's left edge; section 4 a
    12.5 m gap; section 5, the exit lane, 12 m long and 1.3 W + 0.25 wide but at least 3 m,
    its right edge in line with section 1's. Cones stand on the lane edges and the track
    limits are tangential to them (4.2), so a lane's cone lines are its edges.

    The driver follows the course's path of least peak curvature for the body
    (:func:`~simon_fmu.controllers.courses.iso3888_2_course`), with the driver's vehicle
    parameters from the event (:func:`~simon_fmu.controllers.vehicle_data.driver_starts`)
    and its preview time ``previewTime`` (0.3 s: a longer preview cuts this course's
    corners). Before the entry the speed is held by the PI throttle of the other
    manoeuvres, in the driver's gear.

    The body is the unit's plan-view rectangle: its width, its front end
    ``dimensions.front_x`` ahead of the CG and its rear ``length`` behind the front
    (:func:`~simon_fmu.controllers.vehicle_data.vehicle_body`). Its margin to a lane
    (:func:`metrics.lane_margins`) counts the part of the body within the lane's length,
    so a body's side that crosses a cone line at the lane's end counts although its
    corners are past it. ``pass`` is 1 when no margin is negative and the body's rear has
    left section 5; ``firstGateHit`` the section (1, 3 or 5) of the first cone line
    crossed, 0 if none; ``margin1``, ``margin3``, ``margin5`` each lane's least margin
    (NaN for a lane not reached); the largest values are over the run from the entry."""

    #: the standard's numbers of the three lanes of cones (sections 2 and 4 are the gaps)
    SECTIONS = (1, 3, 5)

    def __init__(self):
        d = {f.name: f.default for f in dataclasses.fields(DriverParams)}
        super().__init__(
            name="lane-change", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(60.0 / 3.6, "m/s", 1.0, 60.0, "entry speed"),
                "throttleHeld": Setting(0, "", 0, 1, "0 accelerator released at the entry "
                                        "(ISO 3888-2), 1 speed held through the course",
                                        choices=("released", "held")),
                "runIn": Setting(30.0, "m", 5.0, 500.0, "CG distance before the course entry at the start"),
                "previewTime": Setting(0.3, "s", 0.05, 5.0, "driver preview time"),
                "lagTime": Setting(d["lagTime"], "s", 0.0, 1.0, "driver steering lag"),
                "duration": Setting(30.0, "s", 0.1, 600.0, "longest run"),
            },
            plots=(("path with the cones", "X", [("CG path", "X", "Y")], "m"),
                   ("steering-wheel angle", "time", ["steering.angle"], "rad"),
                   ("lateral acceleration", "time", ["ay"], "m/s^2"),
                   ("yaw rate", "time", ["r"], "rad/s"),
                   ("cone margin", "time", ["coneMargin"], "m"),
                   ("speed", "time", ["u"], "m/s")),
            metric_units={"pass": "", "margin1": "m", "margin3": "m", "margin5": "m",
                          "minMargin": "m", "firstGateHit": "", "firstHitTime": "s",
                          "entrySpeed": "m/s", "exitSpeed": "m/s",
                          "maxLateralAcceleration": "m/s^2", "maxYawRate": "rad/s",
                          "maxSteeringWheelAngle": "rad"})
        self.body = None
        self.lanes: list = []
        self._starts: dict = {}
        self._path = None

    def outputs(self, runner):
        """Also reads the vehicle from the FMU's event: its body, the lanes of its width,
        the course path and the driver's vehicle parameters."""
        from ..controllers import courses
        from ..controllers.vehicle_data import driver_starts, vehicle_body
        event = runner.event()
        self.body = vehicle_body(event, runner.lead_unit)
        self.lanes = courses.iso3888_2_lanes(self.body.width)
        self._path = courses.iso3888_2_course(self.body)
        self._starts = driver_starts(event, runner.lead_unit)
        return super().outputs(runner)

    def fmu_parameters(self, s, unit):
        """The start at ``speed``, ``runIn`` before the entry on the path, along it."""
        from ..controllers.driver import Path
        path = Path(self._path[:, 0], self._path[:, 1])
        station, _ = path.locate(-s["runIn"], 0.0)
        _, y0 = path.point(station)
        return {f"{unit}.speed0": s["speed"], f"{unit}.X0": -s["runIn"], f"{unit}.Y0": y0,
                f"{unit}.yaw0": path.heading(station)}

    def _ends(self, x, yaw):
        """X of the body's front and rear (on its centre line) for CG X and yaw."""
        c = np.cos(yaw)
        return x + self.body.front * c, x + self.body.rear * c

    def controller(self, s, unit):
        from ..controllers.driver import Driver, Path
        driver = Driver(Path(self._path[:, 0], self._path[:, 1]),
                        DriverParams(**self._starts, targetSpeed=s["speed"],
                                     previewTime=s["previewTime"], lagTime=s["lagTime"]))
        gov = speed_governor(unit, s["speed"], 0.15, 0.5, 0.5, self.step)
        entry, held = self.lanes[0].x_start, {}

        def inputs(t, y):
            out = driver.step(t, self.step, y[f"{unit}.X"], y[f"{unit}.Y"], y[f"{unit}.yaw"],
                              y[f"{unit}.speed"])
            front, _ = self._ends(y[f"{unit}.X"], y[f"{unit}.yaw"])
            throttle = gov(y)
            if s["throttleHeld"] or front < entry:
                held["gear"] = out.gear
            else:
                throttle = 0.0
            return {f"{unit}.steeringWheelAngle": out.steeringWheelAngle,
                    f"{unit}.throttle": throttle, f"{unit}.gear": held.get("gear", out.gear)}
        return inputs

    def finished(self, t, y, s, unit):
        return self._ends(y[f"{unit}.X"], y[f"{unit}.yaw"])[1] > self.lanes[-1].x_end

    def metrics(self, h, s):
        from ..controllers.courses import body_corners
        t = h["time"]
        corners = body_corners(h["X"], h["Y"], h["yaw"], self.body)
        margins = m.lane_margins(corners, [(a.x_start, a.x_end, a.left, a.right)
                                           for a in self.lanes])
        least = margins.min(axis=1)
        h["coneMargin"] = np.where(np.isinf(least), np.nan, least)
        front, rear = self._ends(h["X"], h["yaw"])
        result = m.course_result(t, margins, bool(rear[-1] > self.lanes[-1].x_end))
        t_entry = m.first_crossing(t, front, self.lanes[0].x_start)
        on = t >= (t_entry if not math.isnan(t_entry) else t[-1])
        lane = result["firstLane"]
        return {"pass": float(result["passed"]),
                **{f"margin{n}": float(v) for n, v in zip(self.SECTIONS, result["least"])},
                "minMargin": float(np.nanmin(result["least"])) if np.isfinite(result["least"]).any()
                else math.nan,
                "firstGateHit": 0.0 if math.isnan(lane) else float(self.SECTIONS[lane]),
                "firstHitTime": result["firstTime"],
                "entrySpeed": m.at(t, h["u"], t_entry),
                "exitSpeed": float(h["u"][-1]),
                "maxLateralAcceleration": float(np.max(np.abs(h["ay"][on]))),
                "maxYawRate": float(np.max(np.abs(h["r"][on]))),
                "maxSteeringWheelAngle": float(np.max(np.abs(h["steering.angle"][on])))}

    def panels(self, h, s, shown):
        """The path panel also shows the lanes' cone lines and cones and the body's outline
        every 0.25 s over the course (Y stretched)."""
        from ..controllers.courses import cones
        from .report import Line
        out = super().panels(h, s, shown)
        path = out[0]
        if self.body is None:
            return out
        for k, lane in enumerate(self.lanes):
            for j, y in enumerate((lane.left, lane.right)):
                path.lines.append(Line("cone lines" if k == j == 0 else "_cone line",
                                       np.array([lane.x_start, lane.x_end]), np.array([y, y]),
                                       {"color": "tab:orange", "lw": 1}))
        c = cones(self.lanes)
        path.lines.append(Line("cones", c[:, 0], c[:, 1],
                               {"color": "tab:orange", "ls": "none", "marker": "^", "ms": 5}))
        on = (h["X"] > self.lanes[0].x_start - self.body.length) \
            & (h["X"] < self.lanes[-1].x_end + self.body.length)
        if on.any():
            path.lines += outline_lines(h["X"][on], h["Y"][on], h["yaw"][on], self.body,
                                        int(round(0.25 / self.step)), "body every 0.25 s")
        path.xlim = (self.lanes[0].x_start - 10.0, self.lanes[-1].x_end + 10.0)
        return out


def wrap(angle: float) -> float:
    """An angle wrapped to (-pi, pi]."""
    return math.pi - (math.pi - angle) % (2.0 * math.pi)


class OffTracking(Manoeuvre):
    """Low-speed off-tracking on a steady circle: at ``speed`` held by a PI throttle in
    ``gear``, the lead unit's front axle centre is steered onto a circle of ``radius``
    (``direction`` +1 to the right, -1 to the left) that starts where it stands, tangent to
    its heading. The steering is path following at the front axle (Stanley): road-wheel
    angle = heading error of the circle's tangent + atan((``steerGain`` e + integral of
    ``integralGain`` e) / u), e the front axle's distance outside the circle, times the
    event's steering gear ratio. Over the last ``window`` seconds, circles are fitted to the
    paths of the front axle centre and of the last unit's last axle centre (their
    positions from each unit's CG and yaw and the event's axle positions); the off-tracking
    is the difference of their radii."""

    def __init__(self):
        super().__init__(
            name="off-tracking", description=self.__doc__.split("\n\n")[0], step=0.02,
            settings={
                "radius": Setting(15.0, "m", 2.0, 1000.0, "radius of the front axle's circle"),
                "speed": Setting(1.0, "m/s", 0.1, 20.0, "speed held"),
                "gear": Setting(1, "", 1, 20, "gear held"),
                "direction": Setting(1, "", -1, 1, "turn: +1 right, -1 left"),
                "steerGain": Setting(1.0, "1/s", 0.0, 20.0, "path-following gain"),
                "integralGain": Setting(0.2, "1/s^2", 0.0, 20.0, "integral gain on the radius error"),
                "window": Setting(60.0, "s", 1.0, 600.0, "fit window at the end of the run"),
                "duration": Setting(300.0, "s", 1.0, 3600.0, "run"),
            },
            plots=(("axle paths", "X", [], "m"),
                   ("steering-wheel angle", "time", ["steering.angle"], "rad"),
                   ("front axle radius error", "time", ["radiusError"], "m"),
                   ("speed", "time", ["u"], "m/s")),
            metric_units={"frontAxleRadius": "m", "lastAxleRadius": "m", "offTracking": "m",
                          "centreDistance": "m", "maxRadiusError": "m", "meanSpeed": "m/s"})
        self._geometry: dict = {}
        self._fits: dict = {}

    def outputs(self, runner):
        lead, last = runner.model.units[0], runner.model.units[-1]
        if lead.steering is None:
            raise ValueError(f"off-tracking: the lead unit {lead.name!r} has no steering")
        self._geometry = {"front": lead.axles[0].x, "ratio": lead.steering.gear_ratio,
                          "last": last.name, "rear": last.axles[-1].x, "lead": lead.name}
        rear = [] if last.name == runner.lead_unit else \
            [f"{last.name}.{q}" for q in ("X", "Y", "yaw")]
        return super().outputs(runner) + rear

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    def panels(self, h, s, shown):
        """The paths of the lead unit's front axle centre and of the last unit's last axle
        centre in the earth frame (each from its own unit's CG position and yaw), equal
        scales, and the circles fitted over the window dashed."""
        from .report import Line
        out = super().panels(h, s, shown)
        paths = out[0]
        paths.equal, paths.ylabel = True, PLAN_Y
        lead = self._geometry.get("lead", "lead unit")
        paths.lines = [Line(f"{lead} front axle", h["frontAxleX"], h["frontAxleY"],
                            {"color": "tab:blue"}),
                       Line(f"{self._geometry['last']} last axle", h["lastAxleX"], h["lastAxleY"],
                            {"color": "tab:orange"})]
        a = np.linspace(0.0, 2 * math.pi, 181)
        for name, (cx, cy, r) in self._fits.items():
            paths.lines.append(Line(f"fitted circle, {name} ({r:.2f} m)", cx + r * np.cos(a),
                                    cy + r * np.sin(a), {"color": "k", "lw": 0.7, "ls": "--"}))
        return out

    def _circle(self, s, x, y, yaw):
        """The front axle's circle: centre ``radius`` to the side of the turn of the front
        axle at the start (x, y, yaw of the lead unit's CG)."""
        fx, fy = m.point_on_unit(x, y, yaw, self._geometry["front"])
        d = s["direction"]
        return fx - d * s["radius"] * math.sin(yaw), fy + d * s["radius"] * math.cos(yaw)

    def controller(self, s, unit):
        if s["direction"] == 0:
            raise ValueError("direction: 0 is not accepted; off-tracking takes -1 (left) or +1 (right)")
        gov = speed_governor(unit, s["speed"], 0.15, 0.5, 0.5, self.step)
        geo, d, dt = self._geometry, s["direction"], self.step
        state = {"centre": None, "i": 0.0}

        def inputs(t, y):
            x, y_, yaw = y[f"{unit}.X"], y[f"{unit}.Y"], y[f"{unit}.yaw"]
            if state["centre"] is None:
                state["centre"] = self._circle(s, x, y_, yaw)
            cx, cy = state["centre"]
            fx, fy = m.point_on_unit(x, y_, yaw, geo["front"])
            error = math.hypot(fx - cx, fy - cy) - s["radius"]
            state["i"] += s["integralGain"] * error * dt
            tangent = math.atan2(fy - cy, fx - cx) + d * math.pi / 2
            delta = wrap(tangent - yaw) + d * math.atan(
                (s["steerGain"] * error + state["i"]) / max(abs(y[f"{unit}.u"]), 0.1))
            return {f"{unit}.steeringWheelAngle": geo["ratio"] * delta,
                    f"{unit}.throttle": gov(y), f"{unit}.gear": s["gear"]}
        return inputs

    def metrics(self, h, s):
        geo, t = self._geometry, h["time"]
        last = "" if geo["last"] not in {k.split(".")[0] for k in h if "." in k} else geo["last"] + "."
        h["frontAxleX"], h["frontAxleY"] = m.point_on_unit(h["X"], h["Y"], h["yaw"], geo["front"])
        h["lastAxleX"], h["lastAxleY"] = m.point_on_unit(h[last + "X"], h[last + "Y"],
                                                         h[last + "yaw"], geo["rear"])
        cx, cy = self._circle(s, h["X"][0], h["Y"][0], h["yaw"][0])
        h["radiusError"] = np.hypot(h["frontAxleX"] - cx, h["frontAxleY"] - cy) - s["radius"]
        win = t >= t[-1] - s["window"]
        fx, fy, rf = m.fit_circle(h["frontAxleX"][win], h["frontAxleY"][win])
        lx, ly, rl = m.fit_circle(h["lastAxleX"][win], h["lastAxleY"][win])
        self._fits = {"front axle": (fx, fy, rf), "last axle": (lx, ly, rl)}
        return {"frontAxleRadius": rf, "lastAxleRadius": rl, "offTracking": rf - rl,
                "centreDistance": math.hypot(fx - lx, fy - ly),
                "maxRadiusError": float(np.max(np.abs(h["radiusError"][win]))),
                "meanSpeed": float(np.mean(h["u"][win]))}


class RearwardAmplification(Manoeuvre):
    """SAE J2179 rearward amplification of a combination: at ``speed`` (88 km/h) held by a
    PI throttle in ``gear``, from ``startTime`` the steering wheel turns one full period of
    a ``frequency`` sine (0.4 Hz, the single-sine lane change of SAE J2179 and ISO 14791 as
    commonly run) and returns to zero. Its amplitude is calibrated so that the lead unit's
    peak lateral acceleration is ``targetAy`` (0.15 g): the run is repeated
    ``calibrationRuns`` times, the amplitude scaled each time by ``targetAy`` over the peak
    reached (``targetAy`` 0: ``amplitude`` as given). Rearward amplification: the peak
    absolute lateral acceleration of the last unit's CG over the lead unit's (Fancher and
    Winkler, UMTRI 1992: the ratio of the last trailer's peak lateral acceleration to the
    tractor's), and each unit's peak."""

    def __init__(self):
        super().__init__(
            name="rearward-amplification", description=self.__doc__.split("\n\n")[0],
            settings={
                "speed": Setting(88.0 / 3.6, "m/s", 1.0, 80.0, "speed held"),
                "gear": Setting(10, "", 1, 20, "gear held"),
                "frequency": Setting(0.4, "Hz", 0.01, 5.0, "frequency of the single sine"),
                "targetAy": Setting(0.15 * 9.80665, "m/s^2", 0.0, 20.0,
                                    "lead unit's peak lateral acceleration (0: no calibration)"),
                "amplitude": Setting(0.5, "rad", -20.0, 20.0,
                                     "steering-wheel amplitude (the first guess when calibrated)"),
                "calibrationRuns": Setting(2, "", 0, 10, "runs that calibrate the amplitude"),
                "startTime": Setting(1.0, "s", 0.0, 30.0, "start of the sine"),
                "settle": Setting(4.0, "s", 0.0, 60.0, "run on after the sine"),
            },
            plots=(("steering-wheel angle", "time", ["steering.angle"], "rad"),
                   ("lateral acceleration of each unit's CG", "time", ["ay"], "m/s^2"),
                   ("yaw rate of each unit", "time", ["r"], "rad/s"),
                   ("path of each unit's CG", "X", ["Y"], "m")),
            metric_units={"rearwardAmplification": "", "leadPeakAy": "m/s^2",
                          "lastUnitPeakAy": "m/s^2", "steeringAmplitude": "rad",
                          "meanSpeed": "m/s"})
        self._units: list[str] = []

    def outputs(self, runner):
        self._units = list(runner.units)
        others = [f"{u}.{q}" for u in self._units[1:] for q in ("X", "Y", "yaw", "r", "ay")]
        return super().outputs(runner) + others

    def fmu_parameters(self, s, unit):
        return {f"{unit}.speed0": s["speed"]}

    def panels(self, h, s, shown):
        """Each unit's lateral acceleration, yaw rate and CG path, by the unit's name."""
        from .report import Line
        out = super().panels(h, s, shown)
        for p, q in zip(out[1:], ("ay", "r", "Y")):
            p.lines = []
            for k, u in enumerate(self._units or ["lead unit"]):
                name = q if k == 0 else f"{u}.{q}"
                xname = "time" if q != "Y" else ("X" if k == 0 else f"{u}.X")
                if name in h:
                    p.lines.append(Line(u, shown_of(xname, shown)(h[xname]),
                                        shown_of(name, shown, "m/s^2" if q == "ay" else "")(h[name])))
        return out

    def end(self, s) -> float:
        return s["startTime"] + 1.0 / s["frequency"] + s["settle"]

    def resolve(self, values):
        out = super().resolve(values)
        return {**out, "duration": self.end(out)}

    @staticmethod
    def steer(t, s):
        """The steering-wheel angle at time(s) ``t``: one period of the sine."""
        tau = np.asarray(t, dtype=float) - s["startTime"]
        return np.where((tau > 0) & (tau < 1.0 / s["frequency"]),
                        s["amplitude"] * np.sin(2 * math.pi * s["frequency"] * tau), 0.0)

    def controller(self, s, unit):
        return steering_at_speed(self, s, unit)

    def simulate(self, runner, s, parameters):
        amplitude = s["amplitude"]
        runs = 1 + (int(s["calibrationRuns"]) if s["targetAy"] > 0 else 0)
        for k in range(runs):
            h = runner.run(self, {**s, "amplitude": amplitude}, parameters)
            h["steeringAmplitude"] = np.full(h["time"].size, amplitude)
            peak = float(np.max(np.abs(h["ay"][h["time"] >= s["startTime"]])))
            if k + 1 < runs:
                if not peak > 0.0:
                    raise ValueError("rearward-amplification: no lateral acceleration to "
                                     "calibrate the amplitude on (amplitude 0?)")
                amplitude *= s["targetAy"] / peak
        return h

    def metrics(self, h, s):
        last = self._units[-1] if len(self._units) > 1 else None
        h["lastUnitAy"] = h[f"{last}.ay"] if last else h["ay"]
        after = h["time"] >= s["startTime"]
        ratio, lead, rear = m.rearward_amplification(h["ay"][after], h["lastUnitAy"][after])
        out = {"rearwardAmplification": ratio, "leadPeakAy": lead, "lastUnitPeakAy": rear}
        for u in self._units[1:-1]:                     # the units between, if any
            out[f"{u}PeakAy"] = float(np.max(np.abs(h[f"{u}.ay"][after])))
        out["steeringAmplitude"] = float(h["steeringAmplitude"][0])
        out["meanSpeed"] = float(np.mean(h["u"][after]))
        return out


MANOEUVRES = {cls().name: cls for cls in (StraightBrake, SteadyCircle, StepSteer, StaticRollover,
                                          SineWithDwell, FrequencyResponse, SplitMu,
                                          LaneChange,
                                          OffTracking, RearwardAmplification)}


def get(name: str) -> Manoeuvre:
    """A new manoeuvre by name; ValueError listing the names if unknown."""
    if name not in MANOEUVRES:
        raise ValueError(f"{name!r} is not a manoeuvre; choose one of {', '.join(MANOEUVRES)}")
    return MANOEUVRES[name]()
