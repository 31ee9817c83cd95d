"""Fixed-step integration, run entirely in compiled code: the classical 4th-order Runge-Kutta
method (RK4, four evaluations of the derivative a step), or Heun's method (RK2, the explicit
trapezoidal rule, two a step), as the FMU parameter ``integrator`` chooses, whose start value
is the event's ``simulation.integrator`` (``P_ENV[E_INTEGRATOR]``; docs/equations.md, "The
integration method").

Both are explicit Runge-Kutta methods whose stages are k_s = f(y + c_s h k_(s-1)): RK4 with
c = (0, 1/2, 1/2, 1) and y' = y + h (k1 + 2 k2 + 2 k3 + k4) / 6, RK2 with c = (0, 1) and
y' = y + h (k1 + k2) / 2. RK2 is second-order accurate: its error per unit time goes as h^2
where RK4's goes as h^4, and its stability region is smaller (to z = -2 on the real axis,
none of the imaginary axis: ``engine.stability``).

``advance`` takes ``n`` steps of size ``h`` with the inputs held (the zero-order hold of a
co-simulation communication step), checks every step, and on failure leaves the state at
the last good step. At each step boundary it latches: the collision block (the first stage's
collision pass latches as it goes, ``W.clock[1]``; then ``engine.collision.boundary_latches``),
each body's attitude states (``engine.vehicle.latch_attitude``: the Euler angles' axes near 90
degrees of pitch), the states the derivative's first stage sets
(``Work.latched``: rigid steering, tires' turning points; ``engine.vehicle``), and the
connections whose force exceeds their failure force (``engine.connection.latch_failures``).
It tells the derivative the
time of the step it takes (``W.clock``: the steering mode autostart frees the steering from
the first step that starts at or after its start time).

With the parameter ``substeps`` above 1 (``P_ENV[E_SUBSTEPS]``; its start value the event's
``simulation.substeps``) each step estimates the stiffest mode its stages meet, at no extra
evaluation: the derivative's change between two stages over the change of the state between
them, rho = |k3 - k2| / |(h/2) (k2 - k1)| (RK4) or |k2 - k1| / |h k1| (RK2), the power
iteration of the Jacobian along the direction the step moves the state in (Hairer and Wanner's
stiffness detection). Where rho h passes the margin the engine's largest steps keep
(``SUBSTEP_Z_RK4``, ``SUBSTEP_Z_RK2``), the step is taken again from its start in m sub-steps
of h / m, m the fewest that bring rho h / m within a quarter of it (``SUBSTEP_RESOLVE``), at
most the parameter ``substeps``: a wheel's spin under an impact's load or an axle on its
jounce stop, stiffer for some milliseconds than the step resolves, is then
integrated where the method resolves it (docs/equations.md, "Sub-steps in severe events").
Each step so split is counted in the outputs ``Y.y_solver`` (``splitSteps``, and the most
sub-steps one was split into, ``mostSubsteps``), which the caller clears at each communication
point (``engine.Simulation.advance``, the native runtime's doStep).
"""
import math

import numpy as np

from .collision import boundary_latches
from .connection import latch_failures
from .jit import dynamic, njit
from .layout import E_COLL_BASE, E_INTEGRATOR, E_SUBSTEPS, INTEGRATOR_RK2, YV_MOST, YV_SPLIT
from .vehicle import ERR_NONFINITE, derivatives, latch_attitude, state_bases

#: |z| = rho h, the step's stiffness estimate (the module docstring), up to which a step
#: stands: the margins the largest steps the engine accepts keep on the negative real axis
#: (engine.setup.fields.MAX_STEP_SIZES), 0.72 of RK4's reach z = -2.785 and 0.7 of RK2's -2
SUBSTEP_Z_RK4 = 0.72 * 2.785
SUBSTEP_Z_RK2 = 0.7 * 2.0
#: a step split into sub-steps holds each to this fraction of that margin's |z|: a quarter,
#: as docs/limitations.md asked of a severe event's step by hand (the mode resolved, not only
#: kept stable; docs/equations.md, "Sub-steps in severe events")
SUBSTEP_RESOLVE = 4.0
#: the change of the state between the two stages, relative to the state, below which the
#: estimate is not taken: there the stages differ by rounding (a vehicle at rest, or in a
#: steady state), and a mode excited that little cannot grow to matter in the milliseconds
#: an impact's stiff transient lasts
SUBSTEP_FLOOR = 1.0e-10
#: _step's outcome: the step taken; its start's state judged out of range (err[0]); a state
#: not finite after it (err[0], y put back to its start); its stiffness beyond the margin (y
#: at a stage, its start in the last good state)
STEP_OK, STEP_START_BAD, STEP_NONFINITE, STEP_STIFF = range(4)


@njit
def record(y, dy, U, P, Y, err, W):
    """The derivative at y with the outputs recorded: compiled once, outside the step loop."""
    derivatives(y, dy, U, P, dynamic(True), Y, err, W)


@njit
def _step(y, t, h, span, estimate, fresh, work, U, P, Y, err, W, mi, conn_base, rk2):
    """One step of size h from time t, in place (``advance``): the boundary's latches, the
    stages k_s = f(y + c_s h k_(s-1)), c = (0, 1/2, 1/2, 1) (RK4) or (0, 1) (RK2), and the sum.
    ``span``: how far into the collision block the last good state (work[5]) is to be copied
    at least (the whole block when y is the caller's). Without ``fresh`` the boundary is the
    one a step that stopped as stiff met: its latches and first stage (work[0]) stand, and y is
    its start, in the last good state too. With ``estimate``, the step stops at
    the stage that shows its stiffness estimate rho h beyond the method's margin
    (SUBSTEP_Z_RK4, SUBSTEP_Z_RK2), and returns (STEP_STIFF, rho h); else (outcome, 0)."""
    k1, k2, k3, k4, y_good = work[0], work[1], work[2], work[3], work[5]
    m = y.shape[0]
    stages = 2 if rk2 else 4
    W.clock[0] = t
    # the derivative is a compiled function of its own (vehicle.derivatives), called, not
    # inlined, so that the model is compiled once for this loop, its failure branch and
    # ``record``
    if fresh:
        latch_attitude(y, P, W)
    for s in range(stages):
        ks = work[s]
        if s == 0 and fresh:
            for i in range(mi):     # the derivative's latches are integrated states
                W.latched[i] = y[i]
            # the collisions' memory (each vertex's largest approach and entry face) is
            # latched by this stage's collision pass as it meets each vertex, before its
            # force (engine.collision.collision_pass): the stages after it read the
            # boundary's memory, as this one does where its pass has latched it
            W.clock[1] = 1.0
        if s > 0 or fresh:
            derivatives(y, ks, U, P, dynamic(False), Y, err, W)
        if s == 0 and fresh:
            W.clock[1] = 0.0
            if err[0] != 0:
                return STEP_START_BAD, 0.0
            # the boundary's latches (the derivative leaves the rest of its state alone):
            # the first contacts and the wheels' damage (engine.collision), then a
            # connection that fails at this boundary carries nothing from here on; either
            # way, when one moves something, this step's first stage is taken again
            for i in range(mi):
                y[i] = W.latched[i]
            changed, grown = boundary_latches(y, t, P, W)
            span = max(span, changed)
            failed = latch_failures(y, t, P.P_CONN, conn_base, W.conn_force)
            if grown or failed:
                for i in range(mi):
                    W.latched[i] = y[i]
                derivatives(y, ks, U, P, dynamic(False), Y, err, W)
                for i in range(mi):
                    y[i] = W.latched[i]
            for i in range(mi + span):
                y_good[i] = y[i]
        if estimate and s == stages - (1 if rk2 else 2):
            # the stiffness the stages met: rho h = |dk| / |dY| h, dY = c h dk_prev (RK4: the
            # stages 2 and 3, c = 1/2; RK2: the first stage and the second, c = 1)
            num, den, size = 0.0, 0.0, 0.0
            if rk2:
                for i in range(mi):
                    num += (k2[i] - k1[i]) ** 2
                    den += k1[i] ** 2
                    size += y_good[i] ** 2
                z_max, c = SUBSTEP_Z_RK2, 1.0
            else:
                for i in range(mi):
                    num += (k3[i] - k2[i]) ** 2
                    den += (k2[i] - k1[i]) ** 2
                    size += y_good[i] ** 2
                z_max, c = SUBSTEP_Z_RK4, 0.5
            # |dY|^2 = (c h)^2 den against the floor; rho h = sqrt(num / den) / c
            if (num > z_max * z_max * c * c * den
                    and c * c * h * h * den > SUBSTEP_FLOOR * SUBSTEP_FLOOR * size):
                # a stage's error is not the step's (only a boundary's state is judged)
                err[0] = 0
                err[1] = 0
                return STEP_STIFF, math.sqrt(num / den) / c
        if s < stages - 1:
            # the next stage's state, in y: the step's start (y_good) plus c h k_s
            c = h if s == 2 or rk2 else 0.5 * h
            for i in range(mi):
                y[i] = y_good[i] + c * ks[i]
    err[0] = 0  # only the state at a step boundary (k1) is judged for deflection
    # the step's sum, counting the states that are not finite (v - v is 0 for a finite v
    # only) without a branch, so that the loop vectorises; the first one is found after
    nonfinite = 0
    if rk2:
        for i in range(mi):
            v = y_good[i] + 0.5 * h * (k1[i] + k2[i])
            y[i] = v
            nonfinite += (v - v) != 0.0
    else:
        for i in range(mi):
            v = y_good[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            y[i] = v
            nonfinite += (v - v) != 0.0
    if nonfinite > 0:
        bad = 0
        while np.isfinite(y[bad]):
            bad += 1
        for i in range(m):
            y[i] = y_good[i]
        err[0] = ERR_NONFINITE
        err[1] = bad
        return STEP_NONFINITE, 0.0
    return STEP_OK, 0.0


@njit
def advance(y, t0, h, n, work, U, P, Y, err, W):
    """Integrate n steps of size h in place from time t0, by the method of
    ``P.P_ENV[E_INTEGRATOR]`` (RK4 or RK2, the module docstring), each split into sub-steps
    where it meets a mode stiffer than the method resolves, up to ``P.P_ENV[E_SUBSTEPS]``
    of them. Returns the number of steps completed.

    work: array (6, len(y)) of scratch rows (the stages' derivatives in rows 0..3, the step's
    start while it is taken in sub-steps in row 4, the last good state in row 5); W: the
    derivative's scratch (``layout.Work``). Each step split into sub-steps adds 1 to
    ``Y.y_solver[0, YV_SPLIT]`` and raises ``Y.y_solver[0, YV_MOST]`` to its sub-steps.
    err[0] != 0 on failure (see vehicle.ERR_*), with y restored to the last good state; the
    outputs are recorded at the final state. err is cleared on entry.
    """
    err[0] = 0
    err[1] = 0
    k1, y_start, y_good = work[0], work[4], work[5]
    m = y.shape[0]
    # the collision block (P_ENV[E_COLL_BASE] on: the vertices' memories and entry faces, the
    # wheels' damage sets) is latched at the boundaries, never integrated: the stages carry it
    # unchanged and the sums skip it. The stages after the first are evaluated on y itself,
    # its integrated states set to the stage's and the block left as the boundary's latches
    # left it; the step's start is kept in the last good state y_good, from which the stages
    # and the step's sum are taken. The block is copied there only as far as a boundary's
    # latches changed it (the whole block at the first step: y is the caller's), so a step
    # without contact copies none of it and a step of sustained contact whose memories hold
    # copies only the units' own states (the block's start).
    mi = int(P.P_ENV[E_COLL_BASE])
    conn_base = state_bases(P)[3]
    rk2 = P.P_ENV[E_INTEGRATOR] == INTEGRATOR_RK2
    most = int(P.P_ENV[E_SUBSTEPS])
    z_max = SUBSTEP_Z_RK2 if rk2 else SUBSTEP_Z_RK4
    z_sub = z_max / SUBSTEP_RESOLVE
    done = 0
    whole = True        # the next step copies the whole block to the last good state
    for step in range(n):
        t = t0 + step * h
        outcome, z = _step(y, t, h, m - mi if whole else 0, most > 1, True, work, U, P, Y, err,
                           W, mi, conn_base, rk2)
        whole = False
        if outcome == STEP_STIFF:
            # taken again from its start in `parts` sub-steps, each of rho h / parts <= z_sub,
            # at most `most`: the first from the same boundary, whose latches and first stage
            # stand (taken again, a wheel's damage set would grow twice at one boundary)
            for i in range(mi):
                y[i] = y_good[i]
            for i in range(m):
                y_start[i] = y[i]
            parts = most
            if z < z_sub * most:
                parts = int(z / z_sub)
                if parts * z_sub < z:
                    parts += 1
            hs = h / parts
            Y.y_solver[0, YV_SPLIT] += 1.0
            if parts > Y.y_solver[0, YV_MOST]:
                Y.y_solver[0, YV_MOST] = parts
            for j in range(parts):
                outcome, z = _step(y, t + j * hs, hs, 0, False, j > 0, work, U, P, Y, err, W,
                                   mi, conn_base, rk2)
                if outcome != STEP_OK:
                    break
            # the step's start is the last good state (a sub-step's is not a step's), and the
            # next step copies the whole block there: the sub-steps' boundaries latched it
            for i in range(m):
                y_good[i] = y_start[i]
            whole = True
            if outcome != STEP_OK:
                # a sub-step's start out of range, or a state not finite: the step is not
                # taken
                for i in range(m):
                    y[i] = y_start[i]
                break
        elif outcome == STEP_START_BAD:
            if done > 0:  # the state reached by the previous step is out of range
                for i in range(m):
                    y[i] = y_good[i]
                done -= 1
            break
        elif outcome == STEP_NONFINITE:
            break
        done += 1
    # outputs at the final state (also judges its tire deflection)
    W.clock[0] = t0 + done * h
    if err[0] == 0:
        record(y, k1, U, P, Y, err, W)
        if err[0] != 0 and done > 0:
            for i in range(m):
                y[i] = y_good[i]
            done -= 1
    if err[0] != 0:
        e0, e1 = err[0], err[1]
        err[0] = 0
        record(y, k1, U, P, Y, err, W)
        err[0], err[1] = e0, e1
    return done
