"""An anti-lock braking controller of the production kind: wheel speeds in, pressure factors out.

Plain Python, no FMI: :mod:`simon_fmu.controllers.slave` wraps it as an FMU, the tests use
it directly. Per call of :meth:`AbsController.step` (every communication step):

1. *Reference speed* from the wheel speeds only (a real car has no sensor of its ground
   speed): ``v_ref = max(max_i spin_i * tireRadius, v_ref_last - maxDeceleration * dt)``;
   the fastest wheel is the best estimate while braking, and the vehicle cannot slow faster
   than ``maxDeceleration``, so a wheel that starts to lock does not drag the estimate down.
2. Each wheel's *slip* ``(v_ref - spin * tireRadius) / v_ref`` and *deceleration*
   ``-d(spin)/dt * tireRadius`` (m/s^2).
3. A three-phase cycle per wheel, acting on its brake pressure factor (0..1):

   - *build*: the factor rises, at ``fastBuildRate`` up to ``reapplyFraction`` of the factor
     at which the wheel last started to lock, at ``buildRate`` above it;
   - *dump*: when the slip exceeds ``dumpSlip``, or the wheel decelerates faster than
     ``dumpDeceleration`` with a slip above ``holdSlip``, the factor falls exponentially
     with time constant ``dumpTime``, until the wheel accelerates again;
   - *hold*: the factor stays until the slip is below ``holdSlip`` (then build) or above
     ``dumpSlip`` (then dump again).

4. *Yaw-moment build-up limitation* on the first axle (production systems call it GMA): on a
   split-mu road the low-mu front wheel locks first. From its first dump on, the difference
   of the two front factors may grow only at ``yawMomentRate`` per second, starting from
   ``yawMomentDifference``: the high-mu front wheel builds its pressure slowly, so the yaw
   moment of the unequal braking forces rises slowly enough for the driver to steer against
   it. On an even road both front wheels lock at about the same factor and the limit does
   not act. (The limit applies to the wheel's own factor, so its cycle continues from the
   limited value.)

Below ``minSpeed`` the controller is off (factor 1): a wheel may lock at walking speed.
Wheels come in left/right pairs, axles from the front; every axle behind the first is
controlled select-low (both wheels get the lower of their two factors).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

BUILD, HOLD, DUMP = 0, 1, 2
PHASES = ("build", "hold", "dump")


@dataclass
class AbsParams:
    """The controller's parameters (SI). ``tireRadius`` describes the vehicle and has no
    default: the ABS FMU's build takes it from the vehicle's event
    (:func:`simon_fmu.controllers.vehicle_data.abs_starts`)."""

    tireRadius: float                 # m, rolling radius for wheel speed -> ground speed
    maxDeceleration: float = 10.0     # m/s^2, fastest slowing of the reference speed (~mu_p g)
    dumpSlip: float = 0.18            # slip above which pressure is dumped
    holdSlip: float = 0.10            # slip below which pressure is built again
    dumpDeceleration: float = 20.0    # m/s^2 of wheel deceleration that starts a dump
    dumpTime: float = 0.03            # s, time constant of the dump
    buildRate: float = 1.0            # 1/s, slow rise of the pressure factor
    fastBuildRate: float = 8.0        # 1/s, rise up to reapplyFraction of the lock factor
    reapplyFraction: float = 0.85
    minSpeed: float = 1.0             # m/s, controller off below
    yawMomentDifference: float = 0.05  # front factor difference allowed at the first dump
    yawMomentRate: float = 0.1        # 1/s, growth of the allowed front factor difference

    def problems(self) -> list[str]:
        out = [f"{k}: a finite value > 0 (got {v!r})" for k, v in vars(self).items()
               if k != "yawMomentDifference"
               and not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0)]
        if not (math.isfinite(self.yawMomentDifference) and self.yawMomentDifference >= 0):
            out.append(f"yawMomentDifference: a finite value >= 0 "
                       f"(got {self.yawMomentDifference!r})")
        if not self.holdSlip < self.dumpSlip < 1:
            out.append("holdSlip, dumpSlip: 0 < holdSlip < dumpSlip < 1")
        if not self.reapplyFraction <= 1:
            out.append("reapplyFraction: at most 1")
        return out


@dataclass
class WheelState:
    """One wheel's controller state."""

    phase: int = BUILD
    factor: float = 1.0          # brake pressure factor, 0..1
    lock_factor: float = 1.0     # the factor when the wheel last started to lock
    last_spin: Optional[float] = None
    slip: float = 0.0
    deceleration: float = 0.0    # m/s^2, positive slowing


@dataclass
class AbsState:
    """Everything that evolves in an :class:`AbsController`."""

    v_ref: Optional[float] = None    # m/s, estimated vehicle speed
    time: float = 0.0                # s since the first step
    split_time: Optional[float] = None   # s, first dump of a front wheel (yaw-moment limit)
    wheels: list = field(default_factory=list)


class AbsController:
    """Per-wheel ABS for ``n_wheels`` wheels (see the module docstring).

    Parameters:
        n_wheels: how many wheels it controls.
        params: :class:`AbsParams`.
    """

    def __init__(self, n_wheels: int, params: AbsParams):
        self.params = params
        problems = self.params.problems()
        if problems:
            raise ValueError("; ".join(problems))
        self.state = AbsState(wheels=[WheelState() for _ in range(n_wheels)])

    @property
    def factors(self) -> list[float]:
        return [w.factor for w in self.state.wheels]

    def step(self, dt: float, spins) -> list[float]:
        """Read the wheel spins (rad/s) and return the pressure factors for the next ``dt`` s."""
        p, st = self.params, self.state
        speeds = [s * p.tireRadius for s in spins]
        fastest = max(speeds)
        st.v_ref = fastest if st.v_ref is None else max(fastest, st.v_ref - p.maxDeceleration * dt)
        v = st.v_ref
        for w, spin, speed in zip(st.wheels, spins, speeds):
            if w.last_spin is not None and dt > 0:
                w.deceleration = -(spin - w.last_spin) / dt * p.tireRadius
            w.last_spin = spin
            w.slip = (v - speed) / v if v > 1e-6 else 0.0
            if v < p.minSpeed:
                w.phase, w.factor = BUILD, 1.0
                continue
            locking = w.slip > p.dumpSlip or (w.deceleration > p.dumpDeceleration
                                              and w.slip > p.holdSlip)
            if w.phase == BUILD and locking:
                w.phase, w.lock_factor = DUMP, w.factor
            elif w.phase == DUMP and w.deceleration < 0.0:
                w.phase = HOLD
            elif w.phase == HOLD:
                if w.slip > p.dumpSlip:
                    w.phase = DUMP
                elif w.slip < p.holdSlip:
                    w.phase = BUILD
            if w.phase == DUMP:
                w.factor *= math.exp(-dt / p.dumpTime)
            elif w.phase == BUILD:
                rate = p.fastBuildRate if w.factor < p.reapplyFraction * w.lock_factor \
                    else p.buildRate
                w.factor = min(1.0, w.factor + rate * dt)
        # yaw-moment build-up limitation on the front axle
        if len(st.wheels) >= 2 and v >= p.minSpeed:
            left, right = st.wheels[0], st.wheels[1]
            if st.split_time is None and DUMP in (left.phase, right.phase):
                st.split_time = st.time
            if st.split_time is not None:
                allowed = p.yawMomentDifference + p.yawMomentRate * (st.time - st.split_time)
                high, low = (left, right) if left.factor > right.factor else (right, left)
                high.factor = min(high.factor, low.factor + allowed)
        st.time += dt
        # select-low on the rear axles (wheels 2, 3, ...: left and right in pairs): on a
        # split-mu road the high-mu rear wheel brakes no harder than the low-mu one, which
        # keeps the rear's side grip and halves the yaw moment the driver must hold
        out = self.factors
        for i in range(2, len(out) - 1, 2):
            out[i] = out[i + 1] = min(out[i], out[i + 1])
        return out
