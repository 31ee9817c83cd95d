"""The engine's Python API: a simulation of one event, stepped with driver inputs.

See docs/engine-api.md. Everything that evolves lives in the state vector ``y`` (plus the
time); inputs live in ``u_unit``, ``u_wheel`` and ``u_env`` and outputs in ``y_unit``,
``y_wheel``, ``y_tire``, ``y_axle`` (solid axles), ``y_conn`` (connections) and ``y_steer``
(steering systems), all numpy arrays laid out after ``engine.signals``.
"""
from __future__ import annotations

import hashlib
import io
import math
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from . import layout as L
from .setup.event import (INITIAL_LIMITS, INTEGRATORS, MAX_STEP_SIZE, MAX_STEP_SIZES,
                          MIN_STEP_SIZE, Event, EventError, steering_mode_problems)
from .integrator import advance as _advance
from .setup.derived import wheelbase
from .setup.errors import PlausibilityWarning
from .setup.fields import (LIGHT_VEHICLE_MASS, MAX_SUBSTEPS, PLAUSIBLE_SPEED_HEAVY,
                           PLAUSIBLE_SPEED_LIGHT)
from .setup.footprint import start_overlap_problems
from .setup.launch import MOTION_FIELDS, motion_problems
from .jit import compiled_entry
from .drivetrain import engage_clutches
from .setup.params import pack
from .setup.progress import COMPILING, says_when_slow
from .setup.stability import (contact_step, joint_step, joint_step_problem, method_name,
                              stable_step)
from .setup.start_clear import start_overlap_problems as mesh_overlap_problems
from .signals import (AXLE_OUTPUTS, ENV_INPUTS, HITCH_OUTPUTS, INPUT_LIMITS, SOLVER_OUTPUTS, STEERING_OUTPUTS,
                      TIRE_OUTPUTS, UNIT_INPUTS, UNIT_OUTPUTS, WHEEL_INPUTS, WHEEL_OUTPUTS,
                      WHOLE_INPUTS, inputs_in_range)
from .steering import MODES as STEERING_MODES
from .vehicle import ERR_NONFINITE, ERR_OFF_TERRAIN, ERR_TIRE_DEFLECTION

#: the initial conditions a lead unit takes (FMU parameters <unit>.speed0 ...) and the
#: event's field of each (units[i].initial; its range: engine.setup.event.INITIAL_LIMITS)
INITIAL_FIELDS = {"speed0": "speed", "X0": "X", "Y0": "Y", "yaw0": "yaw", **MOTION_FIELDS}
#: most internal steps one call of Simulation.advance may take (exact in a float)
MAX_STEPS_PER_ADVANCE = 2 ** 53


class InputError(ValueError):
    """An input value is not acceptable: ``field`` names it, ``value`` is what was given."""

    def __init__(self, field, value, accepts):
        self.field, self.value, self.accepts = field, value, accepts
        super().__init__(f"{field}: {accepts} (got {value!r})")


def step_range_problem(h, method: str, given: bool) -> str | None:
    """The refusal of a step ``h`` outside the range the integration method ``method`` accepts
    (``engine.setup.fields.MAX_STEP_SIZES``), or None; ``given``: the method is the
    ``integrator`` argument (the FMU parameter), else the event's ``simulation.integrator``.
    The native FMU prints the same (``simon_fmu.native.tuning``)."""
    top = MAX_STEP_SIZES[method]
    if _finite(h) and MIN_STEP_SIZE <= h <= top:
        return None
    return (f"stepSize: a step {MIN_STEP_SIZE:g} <= h <= {top:g} s (got {h!r})"
            + ("" if top == MAX_STEP_SIZE else
               f" with {'integrator' if given else 'simulation.integrator'} {method!r}"))


class SimulationError(RuntimeError):
    """The model left its range of validity; the state is at the last good step."""


@dataclass
class SimState:
    """A full copy of everything that evolves in a :class:`Simulation`."""
    signature: str
    time: float
    grid_time: float
    grid_steps: int
    y: np.ndarray
    u_unit: np.ndarray
    u_wheel: np.ndarray
    u_env: np.ndarray
    failed: str


class Simulation:
    """A simulation of an :class:`~engine.Event`.

    Parameters
    ----------
    event : Event
        The validated event (``engine.load_event``).
    step_size : float, optional
        Internal fixed integration step in s (default: the event's ``simulation.step_size``,
        1 ms for the reference sedan). Accepts 1e-6 <= h <= 0.002, 0.0014 with the
        integration method "rk2" (``engine.setup.fields.MAX_STEP_SIZES``), and no more
        than the vehicle's stiffest mode allows at its initial state
        (:mod:`engine.setup.stability`).
    friction_multiplier : float, optional
        Road friction multiplier applied on top of the event's environment (default 1).
    initial : dict, optional
        Per lead unit name, any of ``speed0`` (m/s), ``X0``, ``Y0`` (m) and ``yaw0`` (rad),
        overriding the event's initial conditions. A lead unit places the units it tows. The
        vehicles of an event with several must start apart (:mod:`engine.setup.footprint`).
        A speed beyond a plausible one for the vehicle is accepted with a
        :class:`~engine.setup.errors.PlausibilityWarning` (``warnings.warn``; also listed in
        ``warnings``): above ``PLAUSIBLE_SPEED_LIGHT`` (70 m/s) for a vehicle of one unit of
        at most ``LIGHT_VEHICLE_MASS`` (3500 kg), ``PLAUSIBLE_SPEED_HEAVY`` (40 m/s) for a
        heavier one or a combination (:mod:`engine.setup.fields`): a speed in km/h?
    wheel_inputs : array, optional
        The wheel inputs [wheel, WHEEL_INPUTS] to start with (default: their start values);
        with an external road, its roadZ and grades place the vehicle on it.
    steering_modes : dict, optional
        Per unit with a steering system (``Event.steering_unit_names``), its steering mode,
        a name of ``engine.steering.MODES`` or its code 1..5, in place of the event's
        ``steering.mode`` (default: the event's). A mode other than "off" needs the steering
        data of the steer degree of freedom (``engine.setup.event.STEERING_DOF_FIELDS``).
    substeps : int, optional
        The most sub-steps a step is split into where it meets a mode stiffer than it
        resolves, 1 (never) to 64, in place of the event's ``simulation.substeps``
        (``engine.integrator``; docs/equations.md, "Sub-steps in severe events").
    integrator : str, optional
        The integration method, "rk4" (the classical Runge-Kutta method) or "rk2" (Heun's), in
        place of the event's ``simulation.integrator`` (``engine.integrator``;
        docs/equations.md, "The integration method").
    """

    def __init__(self, event: Event, step_size=None, friction_multiplier=1.0, initial=None,
                 wheel_inputs=None, steering_modes=None, warn=True, substeps=None,
                 integrator=None):
        if not isinstance(event, Event):
            raise EventError("event: an engine.Event from engine.load_event")
        problems = []
        h = event.model.simulation.step_size if step_size is None else step_size
        method = event.model.simulation.integrator or INTEGRATORS[0]
        if integrator is not None and integrator not in INTEGRATORS:
            problems.append(f"integrator: one of {', '.join(map(repr, INTEGRATORS))} "
                            f"(got {integrator!r})")
        elif integrator is not None:
            method = integrator
        problem = step_range_problem(h, method, integrator is not None)
        if problem:
            problems.append(problem)
        mu_lo, mu_hi, _ = INPUT_LIMITS["frictionMultiplier"]
        if not _finite(friction_multiplier) or not (mu_lo <= friction_multiplier <= mu_hi):
            problems.append(f"frictionMultiplier: a multiplier {mu_lo:g}..{mu_hi:g} "
                            f"(got {friction_multiplier!r})")
        n_sub = event.model.simulation.substeps or 1 if substeps is None else substeps
        if isinstance(n_sub, bool) or not isinstance(n_sub, (int, np.integer)) \
                or not 1 <= n_sub <= MAX_SUBSTEPS:
            problems.append(f"substeps: a whole number 1..{MAX_SUBSTEPS} (got {n_sub!r})")
        init = {}
        initial = initial or {}
        names = event.lead_unit_names()
        for key in initial:
            if key not in names:
                problems.append(f"initial.{key}: one of the lead unit names {names} (a towed unit "
                                "follows the unit ahead)")
        for unit in event.model.units:
            if unit.name not in names:
                continue
            ev = unit.initial
            vals = {k: getattr(ev, f) for k, f in INITIAL_FIELDS.items()}
            for k, v in (initial.get(unit.name) or {}).items():
                if k not in INITIAL_FIELDS:
                    problems.append(f"{unit.name}.{k}: one of {', '.join(INITIAL_FIELDS)}")
                    continue
                lo, hi = INITIAL_LIMITS[INITIAL_FIELDS[k]]
                if not _finite(v) or not lo <= v <= hi:
                    problems.append(f"{unit.name}.{k}: a finite number in [{lo:.10g}, {hi:.10g}] "
                                    f"(got {v!r})")
                else:
                    vals[k] = float(v)
            init[unit.name] = vals
        problems += motion_problems(event, init)
        modes = self.steering_modes_of(event, steering_modes or {}, problems)
        if problems:
            raise EventError(problems)
        self.event = event
        self.steering_modes = modes
        self.step_size = float(h)
        self.friction_multiplier = float(friction_multiplier)
        #: the most sub-steps a step is split into (the event's simulation.substeps, or the
        #: ``substeps`` given)
        self.substeps = int(n_sub)
        #: the integration method (the event's simulation.integrator, or the ``integrator``
        #: given): a key of ``engine.setup.fields.METHODS``
        self.integrator = method
        self.initial = init
        if wheel_inputs is not None:
            wheel_inputs = np.array(wheel_inputs, dtype=np.float64)
            if wheel_inputs.shape != (len(event.wheel_names()), len(WHEEL_INPUTS)) or \
                    not np.isfinite(wheel_inputs).all():
                raise EventError([f"wheel_inputs: finite values of shape "
                                  f"{(len(event.wheel_names()), len(WHEEL_INPUTS))}"])
        self.model, y0 = pack(event, self.friction_multiplier, init, wheel_inputs, modes,
                              substeps=self.substeps, integrator=self.integrator)
        self.unit_names = [u.name for u in event.units]
        self.wheel_names = event.wheel_names()
        self.tire_names = event.tire_names()
        self.axle_names = event.solid_axle_names()
        self.connection_names = event.connection_names()
        self.steering_names = event.steering_unit_names()
        self.lead_units = event.lead_unit_names()
        #: the warnings of the set-up (messages naming the parameter or field), also given to
        #: warnings.warn unless ``warn`` is False (an FMU logs them instead)
        self.warnings = self._speed_warnings(initial)
        if warn:
            for message in self.warnings:
                warnings.warn(message, PlausibilityWarning, stacklevel=2)
        nu, nw, nt = len(self.unit_names), len(self.wheel_names), len(self.tire_names)
        na, nc = len(self.axle_names), len(self.connection_names)
        self.layout = L.StateLayout.of_model(self.model)
        self.state_names = self.layout.names(self.unit_names, self.wheel_names, self.tire_names,
                                             self.axle_names, self.connection_names,
                                             self.steering_names,
                                             [int(n) for n in self.model.P_COLL[:, L.CO_NV]],
                                             [(self.unit_names[int(a)], self.unit_names[int(b)])
                                              for a, b in self.model.P_PAIR[:, L.PA_A:L.PA_B + 1]],
                                             [int(n) for n in self.model.P_WCOLL[:, L.WC_NV]])
        self._signature = hashlib.sha256(
            (event.to_json() + repr((self.step_size, self.friction_multiplier, sorted(init.items()),
                                     sorted(modes.items()), self.substeps,
                                     self.integrator))).encode()
        ).hexdigest()
        # the arrays the compiled code reads and writes: fixed for the life of the simulation
        # (read-only attributes; their values are written in place)
        self._y = y0
        self._u_unit = np.zeros((nu, len(UNIT_INPUTS)))
        self._u_wheel = np.zeros((nw, len(WHEEL_INPUTS)))
        self._u_env = np.zeros(len(ENV_INPUTS))
        for arr, fields in ((self.u_unit, UNIT_INPUTS), (self.u_wheel, WHEEL_INPUTS), (self.u_env, ENV_INPUTS)):
            for j, f in enumerate(fields):
                arr[..., j] = INPUT_LIMITS[f][2]
        if wheel_inputs is not None:
            self._u_wheel[:] = wheel_inputs
        self._y_unit = np.zeros((nu, len(UNIT_OUTPUTS)))
        self._y_wheel = np.zeros((nw, len(WHEEL_OUTPUTS)))
        self._y_tire = np.zeros((nt, len(TIRE_OUTPUTS)))
        self._y_axle = np.zeros((na, len(AXLE_OUTPUTS)))
        self._y_conn = np.zeros((nc, len(HITCH_OUTPUTS)))
        self._y_steer = np.zeros((len(self.steering_names), len(STEERING_OUTPUTS)))
        self._y_solver = np.zeros((1, len(SOLVER_OUTPUTS)))
        self._work = np.zeros((6, y0.size))
        self._scratch = L.new_work(self.model)
        self._err = np.zeros(2, dtype=np.int64)
        self._inputs = L.Inputs(self._u_unit, self._u_wheel, self._u_env)
        self._outputs = L.Outputs(self._y_unit, self._y_wheel, self._y_tire, self._y_axle, self._y_conn,
                                  self._y_steer, self._y_solver)
        self.time = 0.0
        self._grid_time = 0.0
        self._grid_steps = 0
        self._failed = ""
        self._kernel = None   # the integrator's entry point for these arrays (engine.jit)
        self._n_gears = [int(p) for p in self.model.P_UNIT[:, L.U_N_GEARS]]
        # a unit without a drivetrain has differential gear 1 only (the input's start; unread)
        self._n_diffs = [max(1, int(p)) for p in self.model.P_UNIT[:, L.U_N_DIFFS]]
        self._bounds = self._input_bounds()
        self._run(0.0, 0)  # outputs at the initial state
        self._check_vehicles_apart()
        self._check_meshes_clear()
        self._check_step_size()

    @staticmethod
    def steering_modes_of(event, modes, problems):
        """Every steering system's mode name: the event's, or that of ``modes`` (a name or a
        code); what is not accepted is added to ``problems``."""
        names = event.steering_unit_names()
        out = {}
        for key in modes:
            if key not in names:
                problems.append(f"steering_modes.{key}: one of the units with a steering system and a "
                                f"steered axle {names}")
        for i, unit in enumerate(event.model.units):
            name = unit.name
            if name not in names:
                continue
            mode = modes.get(name, unit.steering.mode)
            if isinstance(mode, (int, np.integer)) and not isinstance(mode, bool) \
                    and 1 <= mode <= len(STEERING_MODES):
                mode = STEERING_MODES[mode - 1]
            if mode not in STEERING_MODES:
                problems.append(f"{name}.steeringMode: one of " + ", ".join(
                    f"{k + 1} ({m})" for k, m in enumerate(STEERING_MODES)) + f" (got {mode!r})")
                continue
            problems.extend(steering_mode_problems(event.data["units"][i], f"units[{i}]", mode,
                                                   f"{name}.steeringMode" if name in modes else None))
            out[name] = mode
        return out

    def _check_vehicles_apart(self):
        """Refuse a start at which two vehicles overlap (engine.setup.footprint)."""
        if len(self.lead_units) < 2:
            return
        problems = start_overlap_problems(self.event, self.y)
        if problems:
            raise EventError(problems)

    def _check_meshes_clear(self):
        """Refuse a start at which a unit's meshes are inside the road, a barrier or a wall
        (engine.setup.start_clear)."""
        problems = mesh_overlap_problems(self.model, self.y, self.u_wheel, self.event)
        if problems:
            raise EventError(problems)

    def _check_step_size(self):
        """Refuse a step the integrator cannot take for this vehicle (engine.setup.stability): its
        modes at the initial state, the stiffest contact its meshes can meet, and the stiffest
        mode of its units on their joints at any attitude."""
        self._check_contact_step()
        try:
            with says_when_slow(COMPILING):      # the first evaluation compiles the model
                limit = stable_step(self)
            #: the step-size limit at the initial state (engine.setup.stability.StableStep)
            self.step_limit = limit
        except (ValueError, np.linalg.LinAlgError) as exc:
            raise EventError([f"the event cannot be integrated: {exc}"]) from None
        if not self.step_size <= limit.h_max:
            lam = limit.eigenvalue
            raise EventError([
                f"stepSize: a step <= {limit.h_max:.3g} s for this vehicle (got {self.step_size!r}): "
                f"its stiffest mode, in {limit.state}, has the eigenvalue "
                f"{lam.real:.4g}{lam.imag:+.4g}j 1/s at the initial state, and the "
                f"{method_name(self.model)} step is stable only up to h = {limit.h_max:.3g} s "
                f"for it"
                + ("" if math.isfinite(limit.h_max) and limit.h_max >= MIN_STEP_SIZE else
                   "; no step the engine accepts resolves it: check the stiffnesses and masses "
                   "of the event")])
        self._check_joint_step()

    def _check_joint_step(self):
        """Refuse a step beyond the limit of the units' stiffest mode on their joints at any
        attitude they can take (engine.setup.stability.joint_step)."""
        limit = joint_step(self)
        #: that limit (engine.setup.stability.JointStep)
        self.joint_limit = limit
        if self.step_size <= limit.h_max:
            return
        raise EventError([joint_step_problem(self, limit, self.step_size)])

    def _check_contact_step(self):
        limit = contact_step(self.model)
        if self.step_size <= limit.h_max:
            return
        unit = self.event.model.units[limit.unit]
        face = ("front", "rear", "right side", "left side", "underbody", "roof")[limit.face]
        ratio = (limit.h_max / self.step_size) ** 2     # the mode's frequency goes as sqrt(k)
        if limit.wheels:
            k = unit.axles[limit.axle].wheel_damage.stiffness
            field = f"units[{limit.unit}].axles[{limit.axle}].wheel_damage.stiffness"
            got = "the tire's radial stiffness" if k is None else f"{k:g} N/m"
            accepts = f"at most about {ratio * k:.3g} N/m" if k else \
                f"at most about {ratio:.3g} times the tire's radial stiffness"
            what = "wheel meshes"
        else:
            key = {"front": "front", "rear": "rear"}.get(face, "side")
            b = getattr(unit.collision.crush_stiffness, key)
            field = f"units[{limit.unit}].collision.crush_stiffness.{key}"
            accepts, got, what = f"at most about {ratio * b:.3g} N/m^2", f"{b:g} N/m^2", "exterior"
        lam = limit.eigenvalue
        raise EventError([
            f"{field}: {accepts} for the step {self.step_size:g} s (got {got}): the {what} of "
            f"{unit.name}, pressed flat on a rigid surface at its {face}, give the mode "
            f"{lam.real:.4g}{lam.imag:+.4g}j 1/s on the {limit.branch} branch (restitution "
            f"{unit.collision.restitution:g}), and the {method_name(self.model)} step is "
            f"stable only up to h = {limit.h_max:.3g} s for it; or a stepSize <= "
            f"{limit.h_max:.3g} s"])

    # --- the arrays ---------------------------------------------------------------------
    y = property(lambda self: self._y, doc="The state vector (names: ``state_names``).")
    u_unit = property(lambda self: self._u_unit, doc="Unit inputs [unit, UNIT_INPUTS].")
    u_wheel = property(lambda self: self._u_wheel, doc="Wheel inputs [wheel, WHEEL_INPUTS].")
    u_env = property(lambda self: self._u_env, doc="Environment inputs [ENV_INPUTS].")
    y_unit = property(lambda self: self._y_unit, doc="Unit outputs [unit, UNIT_OUTPUTS].")
    y_wheel = property(lambda self: self._y_wheel, doc="Wheel outputs [wheel, WHEEL_OUTPUTS].")
    y_tire = property(lambda self: self._y_tire, doc="Tire outputs [tire, TIRE_OUTPUTS].")
    y_axle = property(lambda self: self._y_axle, doc="Solid-axle outputs [axle, AXLE_OUTPUTS].")
    y_conn = property(lambda self: self._y_conn, doc="Connection outputs [connection, HITCH_OUTPUTS].")
    y_steer = property(lambda self: self._y_steer,
                       doc="Steering outputs [steering system (``steering_names``), STEERING_OUTPUTS].")
    y_solver = property(lambda self: self._y_solver,
                        doc="The integrator's outputs [1, SOLVER_OUTPUTS]: of the last call of "
                            ":meth:`advance`, the steps taken in sub-steps and the most sub-steps "
                            "one was split into (0 when none was; ``simulation.substeps``).")

    # --- information ------------------------------------------------------------------
    def speed_limits(self) -> list:
        """Per vehicle (``Event.vehicles``): its lead unit's name, the plausible initial speed
        for it (m/s; engine.setup.fields.PLAUSIBLE_SPEED_LIGHT, PLAUSIBLE_SPEED_HEAVY) and what
        kind of vehicle that limit is for, as the speed warnings name it."""
        out = []
        for names in self.event.vehicles():
            mass = sum(float(self.model.P_UNIT[self.unit_names.index(n), L.U_MTOTAL])
                       for n in names)
            light = len(names) == 1 and mass <= LIGHT_VEHICLE_MASS
            kind = (f"a vehicle of one unit of {mass:.0f} kg" if light else
                    f"a vehicle of {mass:.0f} kg" if len(names) == 1 else
                    f"a combination of {len(names)} units")
            out.append((names[0], PLAUSIBLE_SPEED_LIGHT if light else PLAUSIBLE_SPEED_HEAVY, kind))
        return out

    def _speed_warnings(self, given: dict) -> list:
        """A message per lead unit whose initial speed is beyond a plausible one for its
        vehicle (:meth:`speed_limits`)."""
        out = []
        for lead, limit, kind in self.speed_limits():
            speed = self.initial[lead]["speed0"]
            if abs(speed) <= limit:
                continue
            if "speed0" in (given.get(lead) or {}):
                name = f"{lead}.speed0"
            else:
                name = f"units[{self.unit_names.index(lead)}].initial.speed"
            out.append(f"{name} = {speed:g} m/s ({speed * 3.6:g} km/h) is above the plausible "
                       f"{limit:g} m/s ({limit * 3.6:g} km/h) for {kind}: a speed in km/h? "
                       f"{name} is in m/s")
        return out

    def unit_index(self, name):
        try:
            return self.unit_names.index(name)
        except ValueError:
            raise KeyError(f"unit {name!r}: one of {self.unit_names}") from None

    def unit_mass(self, name):
        """Total mass of the unit (sprung + unsprung), kg."""
        return float(self.model.P_UNIT[self.unit_index(name), L.U_MTOTAL])

    def unit_wheelbase(self, name):
        """Distance between the first and the last axle of the unit, m."""
        return wheelbase(self.event.model.units[self.unit_index(name)])

    # --- inputs -----------------------------------------------------------------------
    def check_inputs(self):
        """Raise :class:`InputError` for the first input that is NaN, infinite or out of range."""
        if self._inputs_acceptable():
            return
        for arr, fields, names in ((self.u_unit, UNIT_INPUTS, self.unit_names),
                                   (self.u_wheel, WHEEL_INPUTS, self.wheel_names)):
            for i, owner in enumerate(names):
                for j, f in enumerate(fields):
                    self._check(f"{owner}.{f}", f, arr[i, j], i)
        for j, f in enumerate(ENV_INPUTS):
            self._check(f, f, self.u_env[j], 0)

    def _input_bounds(self):
        """Lower and upper bound of every input, and where it must be whole (the gears), as
        arrays of the shapes of u_unit, u_wheel and u_env[None]. A missing bound is the
        largest float, so that an infinite value is outside too."""
        big = sys.float_info.max
        bounds = []
        for arr, fields in ((self.u_unit, UNIT_INPUTS), (self.u_wheel, WHEEL_INPUTS),
                            (self.u_env[None], ENV_INPUTS)):
            lo, hi = np.full(arr.shape, -big), np.full(arr.shape, big)
            whole = np.zeros(arr.shape, dtype=np.bool_)
            for j, f in enumerate(fields):
                a, b, _ = INPUT_LIMITS[f]
                lo[:, j] = -big if a is None else float(a)
                hi[:, j] = big if b is None else float(b)
                if f in WHOLE_INPUTS:
                    hi[:, j] = self._top_gears(f)
                    whole[:, j] = True
            args = (arr, lo, hi, whole)
            bounds.append((compiled_entry(inputs_in_range, args), args))
        return bounds

    def _inputs_acceptable(self):
        """True when every input passes the checks of :meth:`_check` (the fast path, once per
        step, compiled); otherwise the slow path names the first bad one."""
        for in_range, args in self._bounds:
            if not in_range(*args):
                return False
        return True

    def _check(self, name, field, v, unit_index):
        lo, hi, _ = INPUT_LIMITS[field]
        if field in WHOLE_INPUTS:
            top = self._top_gears(field)
            hi = top[unit_index] if unit_index < len(top) else hi
        if not math.isfinite(v):
            raise InputError(name, float(v), "a finite number")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            rng = f"{lo if lo is not None else '-inf'} .. {hi if hi is not None else 'inf'}"
            raise InputError(name, float(v), f"a value in {rng}")
        if field in WHOLE_INPUTS and v != round(v):
            raise InputError(name, float(v), WHOLE_INPUTS[field])

    def _top_gears(self, field):
        """Per unit, the largest value of the integer input ``field``: its number of forward
        gears, or of differential gears."""
        return self._n_gears if field == "gear" else self._n_diffs

    # --- stepping ---------------------------------------------------------------------
    def advance(self, t_end, inputs_checked=False):
        """Integrate from ``self.time`` to ``t_end`` with the current inputs held.

        Takes whole internal steps on the grid time0 + n*h; a remainder shorter than one
        step is taken as one partial step (so any communication step works). Raises
        :class:`InputError` for an input out of its range (:meth:`check_inputs`) or a
        ``t_end`` that is not a time from now on, and :class:`SimulationError` when the model
        fails; ``self.time`` is then the last successful time. ``inputs_checked``: the caller
        has just called :meth:`check_inputs` on these inputs (the FMU's slave, which answers
        a bad input in its own words), so they are not checked a second time.
        """
        if self._failed:
            raise SimulationError("the simulation failed earlier and cannot continue: " + self._failed)
        h = self.step_size
        t_max = self.time + MAX_STEPS_PER_ADVANCE * h
        if not _finite(t_end) or not self.time <= t_end <= t_max:
            raise InputError("t_end", t_end, f"a time in {self.time!r} .. {t_max:g} s (from the current "
                                             f"time, at most {MAX_STEPS_PER_ADVANCE} steps of {h:g} s)")
        t_end = float(t_end)
        if not inputs_checked:
            self.check_inputs()
        if self.time == 0.0 and self._grid_steps == 0:
            engage_clutches(self.y, self._inputs, self.model)   # the gears the run starts in
        self._y_solver[:] = 0.0         # the integrator counts this call's split steps
        tol = 1e-9 * max(1.0, abs(t_end))
        n_total = int(math.floor((t_end - self._grid_time) / h + 1e-6))
        n = n_total - self._grid_steps
        if n > 0:
            self._run(h, n)
            self._grid_steps += n
            self.time = self._grid_time + self._grid_steps * h
        rest = t_end - self.time
        if rest > tol:
            self._run(rest, 1)
            self._grid_time = t_end
            self._grid_steps = 0
            self.time = t_end
        elif abs(rest) <= tol:
            self.time = t_end if n <= 0 else self.time

    def _run(self, h, n):
        m = self.model
        args = (self.y, self.time, h, n, self._work, self._inputs, self.model, self._outputs,
                self._err, self._scratch)
        if self._kernel is None:
            with says_when_slow(COMPILING):
                self._kernel = compiled_entry(_advance, args)
        done = self._kernel(*args)
        code = self._err.item(0)
        if code:
            idx = self._err.item(1)
            t_fail = (self._grid_time + (self._grid_steps + done) * h) if n > 1 else self.time + done * h
            self.time = t_fail
            self._grid_time, self._grid_steps = t_fail, 0
            if code == ERR_TIRE_DEFLECTION:
                tmax = m.P_TIRE[idx, L.T_DMAX]
                msg = (f"{self.tire_names[idx]}: tire deflection exceeds its maximum of {tmax:g} m "
                       f"after t = {t_fail:.6g} s (the wheel rim would deform; beyond the tire model)")
            elif code == ERR_OFF_TERRAIN:
                X, Y, _ = self._scratch.fault
                msg = (f"{self.tire_names[idx]}: off the terrain at X = {X:.6g} m, Y = {Y:.6g} m after "
                       f"t = {t_fail:.6g} s (no road polygon under the tire)")
            elif code == ERR_NONFINITE:
                msg = f"{self.state_names[idx]}: state became non-finite after t = {t_fail:.6g} s"
            else:  # pragma: no cover
                msg = f"engine error {code} at index {idx}"
            self._failed = msg
            raise SimulationError(msg)

    @property
    def failed(self):
        """Why the simulation stopped, or '' while it is healthy."""
        return self._failed

    # --- state ------------------------------------------------------------------------
    def get_state(self) -> SimState:
        return SimState(self._signature, self.time, self._grid_time, self._grid_steps, self.y.copy(),
                        self.u_unit.copy(), self.u_wheel.copy(), self.u_env.copy(), self._failed)

    def set_state(self, state: SimState, check_inputs: bool = True):
        """Restore a state of :meth:`get_state` (or :meth:`deserialize_state`). A state of
        another event, of other shapes, with a non-finite value, a code no run leaves
        (:func:`engine.layout.state_fault`) or an input out of range is
        refused with ValueError, and this simulation is left as it was. ``check_inputs`` False
        takes the state's inputs as they are and leaves the outputs to the caller: the state of
        an FMU instance that refused an input keeps it, and the instance refuses its steps until
        it is reset or another state is restored (simon_fmu.vehicle.slave)."""
        if not isinstance(state, SimState) or state.signature != self._signature:
            raise ValueError("state: a state taken from a simulation of the same event and parameters")
        self._check_state(state, inputs=check_inputs)
        saved = self.get_state()
        self._restore(state)
        try:
            if check_inputs:
                self.check_inputs()
        except InputError as exc:
            self._restore(saved)
            raise ValueError(f"state: inputs within their ranges ({exc})") from None
        if not self._failed and check_inputs:
            # refresh the outputs (the kernels take only inputs in range: unchecked ones are
            # never run, and the caller restores the outputs the state was taken with); no
            # step has been split since the state
            self._y_solver[:] = 0.0
            self._run(0.0, 0)

    def _restore(self, state):
        self.time, self._grid_time, self._grid_steps = state.time, state.grid_time, int(state.grid_steps)
        self.y[:] = state.y
        self.u_unit[:] = state.u_unit
        self.u_wheel[:] = state.u_wheel
        self.u_env[:] = state.u_env
        self._failed = state.failed

    def _check_state(self, st, inputs=True):
        """ValueError unless every part of state ``st`` has this simulation's shape and is finite
        (the inputs only with ``inputs``: see :meth:`set_state`)."""
        for name in ("y", "u_unit", "u_wheel", "u_env"):
            a = getattr(st, name)
            checked = inputs or name == "y"
            # float64 in this machine's byte order: the kernels' type (a state check below)
            if not isinstance(a, np.ndarray) or a.shape != getattr(self, name).shape or a.dtype != np.float64 \
                    or (checked and not np.isfinite(a).all()):
                raise ValueError(f"state: {name} of shape {getattr(self, name).shape} with finite values")
        # the codes among the states (the kernels take them as indices and signs)
        accepts = np.zeros(3)
        k = L.state_fault(st.y, self.model, accepts)
        if k >= 0:
            raise ValueError(f"state: {L.describe_fault(self.state_names, st.y, k, accepts)}")
        if not (_finite(st.time) and _finite(st.grid_time) and isinstance(st.grid_steps, (int, np.integer))
                and 0 <= st.grid_steps <= MAX_STEPS_PER_ADVANCE and st.time >= 0.0 and st.grid_time >= 0.0):
            raise ValueError("state: finite times >= 0 and a step count >= 0")
        if not isinstance(st.failed, str):
            raise ValueError("state: a failure text")

    def serialize_state(self, state: SimState) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, signature=np.array(state.signature), time=np.array([state.time, state.grid_time]),
                 grid_steps=np.array([state.grid_steps]), y=state.y, u_unit=state.u_unit,
                 u_wheel=state.u_wheel, u_env=state.u_env, failed=np.array(state.failed))
        return buf.getvalue()

    def deserialize_state(self, blob: bytes) -> SimState:
        try:
            z = np.load(io.BytesIO(bytes(blob)), allow_pickle=False)
            st = SimState(str(z["signature"]), float(z["time"][0]), float(z["time"][1]), int(z["grid_steps"][0]),
                          z["y"].copy(), z["u_unit"].copy(), z["u_wheel"].copy(), z["u_env"].copy(),
                          str(z["failed"]))
        except Exception as exc:  # noqa: BLE001 - any corruption is reported the same way
            raise ValueError(f"state: serialized engine state could not be read ({exc})") from None
        if st.signature != self._signature or st.y.shape != self.y.shape:
            raise ValueError("state: serialized state of a different event or parameters")
        self._check_state(st)
        return st


def _finite(v):
    return isinstance(v, (int, float, np.floating)) and not isinstance(v, bool) and math.isfinite(v)
