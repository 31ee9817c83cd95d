"""Named indices over the engine's flat arrays: the state vector and the packed parameters.

No kernel uses a literal index: every column of a packed array and every slot of the state
vector has a name here. Module-level integers are compile-time constants for numba.

State vector (one float64 array), in this order:

* per unit, 16 body states at ``StateLayout.at("body", u) = 16*u``:
  X, Y, Z (earth-fixed CG, m), the three attitude angles (rad: roll, pitch, yaw; in the
  re-indexed axes while the attitude index is not 0), u, v, w (m/s, vehicle-fixed),
  p, q, r (rad/s, vehicle-fixed), then the attitude index (0, or +1 / -1 while the body is
  pitched near +90 / -90 degrees) and the roll, pitch and yaw the unit outputs gave at the
  last step boundary (the continuous Euler angles; latched, rates zero;
  ``engine.kinematics``, "Pitch through 90 degrees");
* per wheel, 5 states at ``at("wheel", w)``: the independent suspension's coordinate and its
  rate (the wheel's vehicle-fixed z displacement from static equilibrium, down +, Eq. 17/62;
  a wheel of a solid axle keeps both at zero, its axle has its own block), the wheel spin
  velocity Omega (rad/s, rolling forward +), the brake's pressure at the wheel cylinder (Pa,
  lagging the pedal, ``engine.brakes``) and its temperature (K; a designed brake's, the air
  temperature for a generic one);
* per solid axle, 4 states at ``at("axle", a)``: the roll centre's heave from static
  equilibrium (vehicle-fixed z, down +, delta of Eq. 22) and its rate, the axle roll relative
  to the sprung mass (rad, about the vehicle x-axis through the roll centre, right side down
  +, phi of Eq. 19-26) and its rate;
* per tire, 3 states at ``at("tire", t)``: the transient longitudinal slip kx (drive +), the
  transient lateral slip ky (~ sin of the slip angle) and the radial deflection at the last
  loading turning point (m, the memory of the rebound multiplier's loop, Eq. 93), see
  ``engine/tire.py``;
* per inter-vehicle connection, 1 state at ``at("connection", c)``: 1 once the connection
  has failed, else 0 (its rate is zero; the integrator latches it, ``engine.connection``);
* per unit, 3 powertrain states at ``at("powertrain", u)``: the engine speed (rad/s), the
  idle governor's integral (a throttle fraction) and the clutch's engagement (0..1), used by
  a drivetrain with an idle speed and a clutch (``engine.drivetrain``; at rest otherwise).
* per steering system (a unit with ``steering`` and a steered axle), 2 states at
  ``at("steering", s)``: the steering-wheel angle (rad, right +; in the mode ``append`` the
  angle added to the driver's) and its rate (rad/s), ``engine.steering``. While the steering
  is rigid the evaluation sets them to the driver's angle and 0 (module docstring of
  ``engine.vehicle``).
* the collision block, at ``at("collision")`` (``P_ENV[E_COLL_BASE]``): per unit 7
  states (``CS_*``: its contact flag, its earth-fixed CG velocity and heading at its first
  contact, for deltaV, and the times of that contact and of its latest), then per vertex of every unit's mesh its largest approach so far (m), then
  per vertex the face of another unit's box it entered through and presses on (a code,
  :func:`entry_code`), then per pair of units that can meet the contact's face of each one's
  box (a code) and how deep that contact reaches (``PS_*``), then per wheel its damage set (``DM_*``: the displacement of its centre
  in vehicle x and y, m, and its turn about the vehicle z and x axes, rad,
  ``engine.wheel_damage``). Their rates are zero: the integrator latches them at each step
  boundary (``engine.collision``).
"""

import math

from .jit import njit, njit_inline  # state_bases, state_fault, below

# --- body states -------------------------------------------------------------------------
SX, SY, SZ, SPHI, STHETA, SPSI, SU, SV, SW, SP, SQ, SR, SATT, SAROLL, SAPITCH, SAYAW = range(16)
N_BODY = 16
#: the body states the first unit outputs copy (X .. r)
N_BODY_OUT = 12
# --- wheel states (relative to the wheel's offset) ---------------------------------------
WZ, WZD, WOMEGA, WPRESS, WTEMP = range(5)
N_WHEEL_STATE = 5
# --- tire states -------------------------------------------------------------------------
TKX, TKY, TTURN = range(3)
N_TIRE_STATE = 3
# --- solid axle states -------------------------------------------------------------------
AZ, AZD, APHI, APHID = range(4)
N_AXLE_STATE = 4
# --- connection states -------------------------------------------------------------------
CFAILED = 0
N_CONN_STATE = 1
# --- powertrain states (per unit) ----------------------------------------------------------
PT_OMEGA, PT_GOV, PT_ENGAGE = range(3)
N_PT_STATE = 3
# --- steering states ----------------------------------------------------------------------
SSA, SSR = range(2)
N_STEER_STATE = 2

# --- packed unit parameters: P_UNIT[u, :] ------------------------------------------------
(U_MS, U_IX, U_IY, U_IZ, U_IXZ, U_CGH, U_STEER_RATIO, U_PEDAL_RATIO, U_PROP_START, U_PROP_RATIO,
 U_PUSHOUT, U_N_DIFFS, U_I_DT, U_N_GEARS, U_WHEEL0, U_NWHEELS, U_N_DRIVEN, U_AERO0, U_NAERO,
 U_MTOTAL, U_LEAD, U_STEERING, U_AXLE0, U_NAXLES, U_STEER_SLOT, U_STEER_MODE, U_STOP_LEFT,
 U_STOP_RIGHT, U_K_STOP, U_C_STOP, U_I_STEER, U_MU_AXIS, U_MU_COLUMN, U_NULL_BAND,
 U_TRAIL_M, U_IDLE, U_GOV_KP, U_GOV_TI, U_CL_CAP, U_CL_W0, U_CL_W1, U_CL_TAU, U_TAU_P,
 U_BRAKE_TABLE, U_DRIVE_TABLE, U_IZ_UNSPRUNG, U_STEER_INPUT, U_STEER_TRAVEL) = range(48)
N_UNIT_P = 48
# U_STEER_INPUT: the steer table option (engine.steering.AT_STEERING_WHEEL 0, AT_AXLE 1);
# U_STEER_TRAVEL: the largest gear ratio (its magnitude) of its steered axles (the steering
# wheel's travel between the stops is this ratio times the stop)
# U_N_DIFFS, U_N_GEARS: how many differential gears (P_DIFF) and forward gears (P_GEAR) it has
# U_IZ_UNSPRUNG: the unsprung masses' own yaw inertias, summed (kg m^2, Eq. 10's sum I_z,Unsprung;
# U_IZ is the sprung mass's, with its payloads, Eq. 46)
# U_BRAKE_TABLE, U_DRIVE_TABLE: the brake and throttle table options (engine.setup.event.BRAKE_METHODS,
# DRIVE_METHODS index: 0 pedal / engine, engine.brakes.TABLE_FORCE, TABLE_FRICTION)
# U_TAU_P: the time constant of the wheel-cylinder pressure's lag behind the pedal (s; 0: none)
# U_IDLE: engine idle speed, rad/s (0: the engine speed follows the wheels, Eq. 50, no clutch);
# U_GOV_KP, U_GOV_TI: the idle governor's gain (throttle per relative speed error) and integral
# time (s); U_CL_CAP: the clutch's capacity (N m) fully engaged at engine speed U_CL_W1, zero
# at and below U_CL_W0 (rad/s) while launching; U_CL_TAU: its actuator's time constant (s)
# U_LEAD: the unit whose brake pedal drives this unit's brakes (itself for a lead unit);
# U_STEERING: 1 when the unit has a steering system; U_AXLE0, U_NAXLES: its solid axles in P_AXLE
# U_STEER_SLOT: its steering system's block of steering states (-1: none); U_STEER_MODE: the
# mode's code (engine.steering); the stops (rad at the road wheel, to the left and to the
# right, inf: none), K_Stop and the stop's damping (Eq. 35), the system inertia at the road wheel (Eq. 39), the steer-
# axis friction of all its steered wheels (Eq. 36), the column friction (Eq. 37), the null band
# and the mechanical trail T_M (Eq. 38)
MAX_GEARS = 20  # forward gears a unit may have (the event's limit)
# P_GEAR[u, 0] is reverse, P_GEAR[u, k] forward gear k (0 ratio = not present); as many
# columns as the event's longest list of gears
MAX_DIFF_GEARS = 4  # differential gears a unit may have (two- and three-speed axles)
# P_DIFF[u, k - 1] is the ratio of differential gear k (the input differentialGear), 1 ..
# U_N_DIFFS (0 = not present); as many columns as the event's longest differential gear table

# --- packed wheel parameters: P_WHEEL[w, :] ----------------------------------------------
(W_UNIT, W_AXLE, W_SIDE, W_X, W_Y0, W_Z0, W_MUS, W_K, W_C, W_FMU, W_FS0, W_KRS, W_TRACK, W_PARTNER,
 W_JCL, W_JK1, W_JK3, W_JER, W_RCL, W_RK1, W_RK3, W_RER, W_STEERED, W_BS0, W_BS1, W_BS2, W_BS3,
 W_DRIVEN, W_ZETA, W_TB_RATIO, W_PROPORTIONED, W_ISPIN, W_TIRE0, W_NTIRES, W_NHT, W_NCAM,
 W_SOLID, W_YS, W_BRAKE, W_STEER_RATIO) = range(40)
N_WHEEL_P = 40
# W_X, W_Y0, W_Z0: the wheel centre at rest on its springs' preloads (from the CG with its
# payloads): the axle's place plus the event's wheel displacement (Eq. 15-17, 58-62's
# Delta_Displ); W_Z0 is where its z-displacement (Eq. 17, 62) is measured from
# W_STEER_RATIO: the steering gear ratio of the wheel's axle (its steering_gear_ratio, or the
# unit's steering.gear_ratio; U_STEER_RATIO on a wheel that is not steered)
# W_BRAKE: the wheel's brake design in P_BRAKE (engine.brakes), -1 for the generic torque ratio
# W_SOLID: index of the wheel's solid axle in P_AXLE, -1 for an independent suspension;
# W_YS: y of the wheel's spring on a solid axle (its side of the spring spacing)

# --- packed solid axles: P_AXLE[a, :] -----------------------------------------------------
# x of the axle, y and z of its roll centre at static equilibrium (from the sprung CG), rho:
# the axle's mass centre below the roll centre (Eq. 19-24), its mass and roll inertia about
# its own mass centre, the anti-sway bar's roll stiffness, roll steer (Eq. 65), camber set
# (Eq. 64), and 1 for the front axle of a full trailer on a turntable (engine.connection)
AX_UNIT, AX_X, AX_YC, AX_ZRC, AX_RHO, AX_M, AX_ICM, AX_KRS, AX_KAPPA, AX_CAMBER, AX_TURNTABLE = range(11)
N_AXLE_P = 11

# --- packed connections: P_CONN[c, :] ------------------------------------------------------
# tow and towed unit, the tow unit's rear point and the towed unit's front point (vehicle-
# fixed from each CG), constraint rate and damping (Eq. 117), 1 when the joint carries vertical
# force, its static vertical load (up on the towed unit +), frame torsion (Eq. 127), hitch
# friction (Eq. 128), pitch stiffness, damping and static moment (a pitch-rigid joint), failure
# force and start time, and the length of a turntable's drawbar (m; 0: no turntable)
(C_TOW, C_TOWED, C_AX, C_AY, C_AZ, C_BX, C_BY, C_BZ, C_K, C_C, C_VERTICAL, C_P0, C_KFRAME,
 C_CFRAME, C_MU, C_RADIUS, C_NULL, C_KPITCH, C_CPITCH, C_M0, C_FAIL_F, C_FAIL_T,
 C_DRAWBAR) = range(23)
N_CONN_P = 23
# wheel tables T_WHEEL[w, table, row] (half-track change, camber change) and engine maps
# P_ENG[u, table, row] have as many rows as the event's longest table
T_HT_X, T_HT_Y, T_CAM_X, T_CAM_Y = range(4)

# --- packed tire parameters: P_TIRE[t, :] ------------------------------------------------
(T_WHEEL, T_DY, T_RU, T_KT, T_KBAR, T_D2, T_LAMBDA, T_DMAX, T_SIG0, T_SIGV, T_RLX, T_RLY,
 T_FZMIN, T_TAU, T_NLOAD, T_NSPEED, T_LOAD0, T_LOAD1, T_LOAD2, T_SPEED0, T_SPEED1, T_SPEED2,
 T_PRESSURE, T_TREAD, T_WIDTH, T_RRIM, T_HALFW, T_KRIM, T_CRIM, T_CSIDE, T_PROPS) = range(31)
N_TIRE_P = 31
# T_PRESSURE, T_TREAD, T_WIDTH: inflation pressure (Pa), tread depth and width (m), for
# hydroplaning
# T_RRIM, T_HALFW: the radius of the rim's flange (the unloaded radius less the section
# height) and half the tire's width (its sidewalls' offset from the wheel plane), m; T_KRIM,
# T_CRIM: the rim's contact stiffness (N/m) and damping (N s/m); T_CSIDE: the sidewall's
# damping (its stiffness is K_T): the wheel beyond its tread (simulation.tire_limit "wheel")
# T_PROPS: how the tire's properties depend on load and speed (tires[].property_model):
# PROPS_TABLE, the tables TT by linear interpolation in the test loads T_LOAD0.. and speeds
# T_SPEED0..; PROPS_PARTIAL, the method of partial derivatives: T_LOAD0 and T_SPEED0 hold the
# reference load and speed, TT[t, prop, 0, 0] the property there, TT[t, prop, 1, 0] its
# derivative in load and TT[t, prop, 0, 1] in speed (the coefficients of a first-order
# expansion, engine.tire.partial_properties)
PROPS_TABLE, PROPS_PARTIAL = 0, 1
MAX_TIRE_TESTS = 3  # test loads, and test speeds, of a tire (T_LOAD0..2, T_SPEED0..2)
# property planes of the tire table TT[t, prop, load, speed]
TP_MUP, TP_MUS, TP_SP, TP_CA, TP_CG = range(5)
N_TIRE_PROPS = 5

# --- packed brake designs: P_BRAKE[b, :], their tables T_BRAKE[b, table, row] ------------
# actuator area (m^2), effective radius (m), heat capacity (J/K), cooling at rest (W/K) and
# its rise with speed (W/K per m/s), the rows of the brake-factor, lining-friction and speed
# tables; tables: brake factor against lining friction, lining friction against temperature
# (K), its factor against sliding speed (m/s)
(B_AREA, B_RADIUS, B_HEAT, B_COOL0, B_COOL1, B_NBF, B_NMU, B_NSPEED) = range(8)
N_BRAKE_P = 8
TB_BF_X, TB_BF_Y, TB_MU_X, TB_MU_Y, TB_SP_X, TB_SP_Y = range(6)

# --- packed aero surfaces: P_AERO[s, :] --------------------------------------------------
A_UNIT, A_CA, A_CPX, A_CPY, A_CPZ, A_AXIS, A_FACE, A_CL = range(8)
N_AERO_P = 8
# A_CA: C_A = C_d A rho / 2 (Eq. 140); A_AXIS: a surface's vehicle axis 0..2, -1 for a device;
# A_FACE: the sign of a surface's outward normal along its axis; A_CL: a device's C_L A rho / 2

# --- environment: P_ENV[:] ---------------------------------------------------------------
(E_G, E_RHO, E_MU, E_GROUND_Z, E_TERRAIN, E_HYDRO, E_AIR_T, E_STEER_T0, E_COLL_BASE, E_COLL_T_ENV,
 E_COLL_T_VEH, E_TERRAIN_TOP, E_DMG_BASE, E_WHEEL_BASE, E_AXLE_BASE, E_TIRE_BASE, E_CONN_BASE,
 E_PT_BASE, E_STEER_BASE, E_TIRE_LIMIT, E_INTEGRATOR, E_SUBSTEPS) = range(22)
N_ENV_P = 22
# E_TIRE_LIMIT: simulation.tire_limit, TIRE_LIMIT_WHEEL or TIRE_LIMIT_STOP
TIRE_LIMIT_WHEEL, TIRE_LIMIT_STOP = 0, 1
# E_INTEGRATOR: simulation.integrator, the integration method (engine.integrator)
INTEGRATOR_RK4, INTEGRATOR_RK2 = 0, 1
# E_SUBSTEPS: simulation.substeps, the most sub-steps a step that meets a mode stiffer than
# the method resolves at the step is taken again in (1: never; engine.integrator)
# E_WHEEL_BASE .. E_STEER_BASE, E_COLL_BASE, E_DMG_BASE: the offsets of the state vector's
# blocks (StateLayout.pack_bases): the wheels', solid axles', tires', connections',
# powertrains', steering systems', the collision block's and the wheels' damage states (DM_*)
# E_COLL_BASE: the offset of the collision block in the state vector; E_COLL_T_ENV,
# E_COLL_T_VEH: simulation.collisions' environment_start_time and vehicle_start_time, s;
# E_TERRAIN_TOP: the earth Z of a mesh terrain's highest point (its smallest Z), the broad phase
# of the body's contact with it
# E_TERRAIN: the terrain type (TERRAIN_FLAT, TERRAIN_MESH, TERRAIN_EXTERNAL); E_HYDRO: the
# hydroplaning model's code (engine.hydroplaning); E_STEER_T0: the time the steering mode
# ``autostart`` frees the steering at, s, unless a collision contact comes first (inf: none)
TERRAIN_FLAT, TERRAIN_MESH, TERRAIN_EXTERNAL = range(3)

# --- collisions (engine.collision): P_COLL[u, :], the unit's exterior mesh CV[v, 0:3]
# (vehicle-fixed, from the CG) and the vertices' stiffness per face CK[v, face] (N/m: the
# vertex's tributary area on that face times the face's stiffness per unit area); barriers
# P_BAR[b, :]. CV[v, CV_CELL .. CV_CELL + 5]: the vertex's tributary cell, from the vertex along
# the mesh's x, y and z (lo x, hi x, lo y, hi y, lo z, hi z, m; its tributary area on a face is
# the cell's extent along that face's two axes): a box mesh's grid cell, halved at the edges;
# an OBJ exterior's vertex's, the bounding box of its edges' midpoints
# (engine.setup.collision.vertex_cells); all 0 (a point) for a vertex of a wheel's mesh
CV_CELL = 3
N_CV = CV_CELL + 6
(CO_V0, CO_NV, CO_E, CO_MU, CO_TAU, CO_VREG, CO_XMIN, CO_XMAX, CO_YMIN, CO_YMAX, CO_ZMIN,
 CO_ZMAX, CO_K0) = range(13)
CO_R0 = CO_K0 + 6       # CO_R0 .. CO_R0 + 5: the unit's reach, lo x, hi x, lo y, hi y, lo z, hi z
CO_WHEELS = CO_R0 + 6   # 1 when a wheel of the unit has a mesh
CO_D0 = CO_WHEELS + 1   # CO_D0 .. CO_D0 + 5: each face's no-damage approach A/B (m), FACE_* order
CO_GRID = CO_D0 + 6     # CO_GRID .. CO_GRID + 2: a box mesh's nodes along x, y and z (0: an OBJ exterior)
N_COLL_P = CO_GRID + 3
# CO_V0, CO_NV: the unit's vertices in CV; CO_E: restitution; CO_MU: the friction coefficient
# of the body on the road and barriers; CO_TAU: the time constant of the damping on the
# elastic (unloading and reloading) branch, s; CO_VREG: the sliding speed below which the
# friction is regularised, m/s; CO_XMIN .. CO_ZMAX: the mesh's bounding box (the broad phase);
# CO_K0 .. CO_K0 + 5: the faces' stiffness per unit area (N/m^3), in the order of FACE_*;
# CO_D0 .. CO_D0 + 5: the faces' CRASH3 no-damage approach A/B (m; 0 without an A), the part
# of an approach that is not crush (engine.collision.collision_outputs); CO_GRID .. CO_GRID + 2:
# the nodes of a box mesh's grid along x, y and z (engine.setup.collision.box_nodes), whose
# surface vertices CV holds in the order of engine.collision.grid_vertex, so that the set of
# its crushed vertices under a point of a face can be found (engine.collision.surface_memory);
# the reach: a box (vehicle frame) that holds the exterior and every wheel mesh of the unit
# wherever its suspension and its damage set can take it (engine.setup.wheel_meshes.pack_reach), the
# broad phase of its wheels
FACE_FRONT, FACE_REAR, FACE_RIGHT, FACE_LEFT, FACE_BOTTOM, FACE_ROOF = range(6)
N_FACES = 6


@njit_inline
def entry_code(f, b):
    """A vertex's entry state (the "entry" block) for face f (FACE_*) of unit b's box:
    1 + f + N_FACES b; 0 is none."""
    return 1.0 + f + N_FACES * b


@njit_inline
def entry_face_of(code, b):
    """The face of unit b's box that an entry state ``code`` holds, or -1 (none, or another
    unit's)."""
    c = int(code + 0.5) - 1
    if c < 0 or c // N_FACES != b:
        return -1
    return c % N_FACES

# a barrier: a point of its face (earth X, Y, Z) and its unit normal out of the barrier; the
# half-space behind the face is solid. BA_KIND: BAR_PLANE (an event barrier, the whole plane)
# or BAR_WALL (a standing polygon of a mesh terrain: the triangle BA_T0 .. BA_T0 + 8, earth
# X, Y, Z of its three corners, whose face the normal is out of), or BAR_RISER (a standing
# polygon all of whose corners are corners of road polygons: the face of a step or kerb, which
# the tires' envelope meets, engine.envelope; the wheel meshes meet it with their sides only)
BA_X, BA_Y, BA_Z, BA_NX, BA_NY, BA_NZ, BA_KIND, BA_T0 = range(8)
N_BAR_P = BA_T0 + 9
BAR_PLANE, BAR_WALL, BAR_RISER, BAR_OBJECT = 0.0, 1.0, 2.0, 3.0
# an environment object (BAR_OBJECT, engine.collision's object pairs: a fixed mesh, environment.
# objects) holds in BA_T0 .. BA_T0 + 8: its bounding box (earth lo X, hi X, lo Y, hi Y, lo Z,
# hi Z from OB_BOX), the slot of its grids in XM (OB_SLOT: 3 OB_SLOT + axis is its grid's row,
# after the units') and its stiffness per unit area (OB_K, N/m^3; 0: rigid)
OB_BOX, OB_SLOT, OB_K = BA_T0, BA_T0 + 6, BA_T0 + 7
# a pair of units whose meshes meet (engine.collision.unit_pair), P_PAIR[k, :]: the units a
# and b, and the x (vehicle-fixed, from the CG) behind which each one's box is not part of the
# pair (a tractor's cab: the part of its box a semitrailer can meet; -1e9: the whole box)
PA_A, PA_B, PA_AX, PA_BX = range(4)
N_PAIR_P = 4
# the OBJ exteriors other units' vertices meet (engine.collision.mesh_approach), one flat
# array XM (engine.setup.collision.pack_exterior_meshes): first per unit and axis i (at
# XM[N_XG (3 u + i)]) the grid of the unit's triangles seen along that axis (their two other
# coordinates, axis i + 1 then i + 2, mod 3), each cell listing the triangles not parallel to
# the axis whose projection, grown by engine.collision.RAY_EDGE, overlaps it: XG_O1, XG_O2 the
# grid's origin, XG_S1, XG_S2 its cells' size, XG_N1, XG_N2 its cells along each (XG_N1 = 0:
# the unit has no mesh, its box is met), XG_START where in XM the grid's cells' starts are (cell
# c = i1 + N1 i2: its list from XM[start + c] to XM[start + c + 1], each entry where in XM its
# triangle's row is); then every triangle's row: its corners (vehicle-fixed x, y, z of each,
# from the unit's CG), its outward unit normal and the plane's offset (n . r = d on it), and
# the face of the unit's bounding box (FACE_*) whose crush stiffness it carries (that its
# normal is nearest, as engine.setup.collision.exterior_stiffness gives its area); then the
# starts and the lists (integers held in floats)
XG_O1, XG_O2, XG_S1, XG_N1, XG_N2, XG_S2, XG_START = range(7)
N_XG = 7
XT_C0 = 0               # XT_C0 .. XT_C0 + 8: x1, y1, z1, x2, y2, z2, x3, y3, z3
XT_NX, XT_NY, XT_NZ, XT_D, XT_FACE = range(9, 14)
# XT_E0 + 9 i + 3 e .. + 2: the edge e of its projection along axis i (on axes i + 1, i + 2) as
# the line a q1 + b q2 + c = the distance of (q1, q2) inside that edge (m; all 0 where the edge
# projects to a point); XT_INV0 + i: 1 / n_i (0 where the triangle is parallel to axis i)
XT_E0 = 14
XT_INV0 = XT_E0 + 27
# XT_V0 .. XT_V0 + 2: its corners' vertices in the unit's exterior (CV from CO_V0; -1 for an
# environment object's triangle), whose permanent set deforms it (engine.collision.surface_memory)
XT_V0 = XT_INV0 + 3
N_XT = XT_V0 + 3
# the collision block of the state vector (at P_ENV[E_COLL_BASE]): per unit 1 once it has
# touched anything (2 once its first contact episode, the impulse phase, is over), its
# earth-fixed CG velocity then (for deltaV), the heading of its x axis then (rad, earth X to
# Y), the time of that first contact and of the phase's latest (s); then per vertex its
# largest approach so far (m, the memory of the unloading path). The rates are zero; the
# integrator latches them at each step boundary (engine.collision.collision_pass,
# boundary_latches)
CS_CONTACT, CS_VX0, CS_VY0, CS_VZ0, CS_HEADING0, CS_T0, CS_T1 = range(7)
N_COLL_UNIT_STATE = 7
# then per vertex (of every unit's exterior and wheel mesh, in CV's order) the face of another
# unit's box it entered through and presses on, latched at the first step boundary it is inside
# that box and held until it is out (0: none, else entry_code; engine.collision); then per pair
# of P_PAIR (a, b) four: the contact's face of b's box (the face the deepest of a's vertices
# entered through at the first boundary one held a face of b's box) and the contact's face of
# a's box (0: none, else 1 + FACE_*), held while a vertex holds a face of that box; then how
# deep each contact reaches along its face (m: the deepest approach, into the box as made, of
# the vertices holding it at the last step boundary, renewed when it moves by more than
# engine.collision.REACH_STEP)
PS_FACE_ON_B, PS_FACE_ON_A, PS_DEPTH_ON_B, PS_DEPTH_ON_A = range(4)
N_PAIR_FACES = 2        # PS_DEPTH_ON_* = PS_FACE_ON_* + N_PAIR_FACES
N_PAIR_STATE = 4
# then per wheel its damage set (engine.wheel_damage): the wheel centre's permanent displacement
# in vehicle x and y (m, Eq. 58-62's Delta x, Delta y), its permanent turn about the vehicle z
# axis (toe, rad, added to the steer) and the vehicle x axis (rad, added to the camber), and
# the deepest approach of its mesh's vertices left at the last step boundary (m, after the set:
# the start of the next step's contact motion)
DM_X, DM_Y, DM_TOE, DM_CAMBER, DM_APPROACH = range(5)
N_DMG_STATE = 5

# --- wheel meshes (engine.wheel_damage): P_WCOLL[w, :]. A wheel's mesh vertices are rows of
# CV (after every unit's exterior) holding their offsets from the wheel centre in the wheel's
# own axes (x along its heading, y along its spin axis, z down), CK their stiffness per face.
# WC_V0, WC_NV: its vertices (0 vertices: no mesh); WC_BOUND: the radius of the sphere round
# its centre that holds them (the broad phase); WC_RADIUS: the wheel's radius (a moment M turns
# it as a force M / r at its rim); the damage thresholds: WC_F0, WC_M0 the largest force and
# moment without damage (N, N m), WC_RATE the deformation rate (m of set per N above WC_F0),
# WC_FMAX, WC_MMAX the force and moment beyond which the set grows no more; WC_K0 .. WC_K0 + 5
# the stiffness per unit area of the faces of its bounding box (N/m^3, in the order of FACE_*);
# WC_E: the restitution of its mesh's contacts
(WC_V0, WC_NV, WC_BOUND, WC_RADIUS, WC_F0, WC_M0, WC_RATE, WC_FMAX, WC_MMAX, WC_E, WC_K0) = range(11)
N_WCOLL_P = 11 + 6
# the pose of a wheel's mesh in the vehicle frame, Work.wpose[w, :]: its centre (m, from the
# CG) and its axes (heading, spin axis, down), each a unit vector
WP_X, WP_Y, WP_Z, WP_EX, WP_EY, WP_EZ = 0, 1, 2, 3, 6, 9
N_WPOSE = 12
# the collision load on a wheel's mesh, Work.wcoll[w, :]: force and moment about the wheel
# centre (vehicle frame), the deepest approach of any of its vertices now (m) and how many of
# its vertices touch
WL_FX, WL_MX, WL_DEEPEST, WL_CONTACT = 0, 3, 6, 7
N_WLOAD = 8
# a unit's row of Work.coll: its collision force and moment, contact, deepest crush, and the
# flags of a pass that latches (engine.collision.WC_*)
N_COLL_ROW = 10

# --- engine maps: P_ENGINE[u, table, row]; N_ENGINE[u, table] rows ------------------------
EM_WOT_X, EM_WOT_Y, EM_CT_X, EM_CT_Y = range(4)

# --- per-wheel work/outputs computed by the derivative ------------------------------------
# indices into the wheel output array (match engine.signals.WHEEL_OUTPUTS)
from .signals import (AXLE_OUTPUTS, ENV_INPUTS, HITCH_OUTPUTS, SOLVER_OUTPUTS, STEERING_OUTPUTS,  # noqa: E402
                      TIRE_OUTPUTS, UNIT_INPUTS, UNIT_OUTPUTS, WHEEL_INPUTS, WHEEL_OUTPUTS)

(YW_STEER, YW_SPIN, YW_JOUNCE, YW_BRAKEP, YW_BRAKET, YW_DRIVET, YW_BTEMP,
 YW_BRATIO, YW_DAMAGE) = range(len(WHEEL_OUTPUTS))
(YT_FX, YT_FY, YT_FZ, YT_SLIP, YT_ALPHA, YT_INCL, YT_DEFL, YT_SKID, YT_ROADZ, YT_MU,
 YT_WATER, YT_TRAIL, YT_MZ) = range(len(TIRE_OUTPUTS))
(YU_X, YU_Y, YU_Z, YU_ROLL, YU_PITCH, YU_YAW, YU_U, YU_V, YU_W, YU_P, YU_Q, YU_R, YU_AX, YU_AY, YU_AZ,
 YU_SPEED, YU_BETA, YU_ENGINE, YU_CLUTCH,
 YU_AERO_FX, YU_AERO_FY, YU_AERO_FZ, YU_AERO_MX, YU_AERO_MY, YU_AERO_MZ,
 YU_COLL_FX, YU_COLL_FY, YU_COLL_FZ, YU_COLL_MX, YU_COLL_MY, YU_COLL_MZ, YU_COLL_CONTACT, YU_COLL_DV,
 YU_COLL_CRUSH, YU_COLL_RESIDUAL, YU_COLL_DVX, YU_COLL_DVY, YU_COLL_PDOF,
 YU_COLL_DURATION, YU_CRUSH_FACE, YU_CRUSH_WIDTH, YU_CRUSH_C1) = range(len(UNIT_OUTPUTS) - 5)
#: the stations of the crush profile (collision.crushC1 .. crushC6, from YU_CRUSH_C1 on)
CRUSH_STATIONS = 6
IU_STEER, IU_THROTTLE, IU_BRAKE, IU_GEAR, IU_STEER_TORQUE, IU_DIFF_GEAR = range(len(UNIT_INPUTS))
(IW_BPF, IW_MU, IW_ROADZ, IW_GRADEX, IW_GRADEY, IW_WATER, IW_BFORCE, IW_BFRIC, IW_DFORCE,
 IW_DFRIC, IW_STEER) = range(len(WHEEL_INPUTS))
IE_WIND_SPEED, IE_WIND_DIR, IE_GRAVITY_TILT = range(len(ENV_INPUTS))
YA_ROLL, YA_HEAVE = range(len(AXLE_OUTPUTS))
YC_ART, YC_FX, YC_FY, YC_FZ, YC_FAILED, YC_SEP = range(len(HITCH_OUTPUTS))
YS_ANGLE, YS_RATE, YS_TORQUE = range(len(STEERING_OUTPUTS))
YV_SPLIT, YV_MOST = range(len(SOLVER_OUTPUTS))
assert HITCH_OUTPUTS[YC_SEP] == "separation" and AXLE_OUTPUTS[YA_HEAVE] == "heave"
assert WHEEL_OUTPUTS[YW_DRIVET] == "driveTorque" and TIRE_OUTPUTS[YT_SKID] == "skid"
assert WHEEL_OUTPUTS[YW_DAMAGE] == "damageDisplacement"
assert UNIT_OUTPUTS[YU_CLUTCH] == "clutchSlip" and UNIT_INPUTS[IU_STEER_TORQUE] == "steeringWheelTorque"
assert UNIT_INPUTS[IU_DIFF_GEAR] == "differentialGear" and WHEEL_INPUTS[IW_STEER] == "steerAngle"
assert UNIT_OUTPUTS[YU_AERO_FX] == "aero.Fx" and UNIT_OUTPUTS[YU_AERO_MZ] == "aero.Mz"
assert UNIT_OUTPUTS[YU_COLL_FX] == "collision.Fx" and UNIT_OUTPUTS[YU_COLL_CRUSH] == "collision.maxCrush"
assert UNIT_OUTPUTS[YU_COLL_RESIDUAL] == "collision.residualCrush"
assert UNIT_OUTPUTS[YU_COLL_DURATION] == "collision.duration"
assert UNIT_OUTPUTS[YU_CRUSH_FACE] == "collision.crushFace"
assert UNIT_OUTPUTS[YU_CRUSH_C1 + CRUSH_STATIONS - 1] == "collision.crushC6" == UNIT_OUTPUTS[-1]
assert TIRE_OUTPUTS[YT_MZ] == "Mz" and STEERING_OUTPUTS[YS_TORQUE] == "torque"

# --- scratch of the derivative evaluation: SCRATCH[row, column] ----------------------------
# Preallocated once per simulation so that an evaluation allocates nothing. Each row below
# holds one value per wheel of the unit being assembled (or the few values named); the last
# rows hold the unit's rotation matrix and the matrix of its coupled equations (Eq. 1-14, 18).
# S_JZ .. S_ZDD are indexed by the unit's independent wheels, S_TORQUE .. S_DOMEGA and S_TBASE by all its
# wheels, S_QD, S_QP (generalised forces on a solid axle's heave and roll) by its solid axles.
(S_JZ, S_MW, S_XW, S_YW, S_ZW, S_ZDW, S_FZW, S_TORQUE, S_INERTIA, S_DRIVEN, S_DOMEGA, S_ZDD,
 S_F, S_M, S_ACC, S_B, S_QD, S_QP, S_TBASE, S_OMFREE) = range(20)
# S_TBASE: a wheel's spin torques from its tires and rolling resistance (before drive and brake)
# S_OMFREE: a wheel's free-rolling spin u_gp / r (a unit with a table option, engine.brakes)
S_R = 20            # rows S_R .. S_R+2, columns 0..2: the vehicle-to-earth rotation R (Eq. 53)
S_A = S_R + 3       # rows S_A .. S_A+5, columns 0..5: the unit's reduced 6x6 system matrix

# --- per-unit work of the synchronize phase: FRAMES[u, 0:9] the unit's rotation R (row-major),
# FRAMES[u, 9:12] its Euler-angle rates; EXT[u, 0:6] the connection force and moment on it
# (vehicle-fixed, about its CG); AXLE_WORK[axle of the unit, :] a solid axle's eliminated block
# FRAMES[u, 12:15] the body's roll, pitch and yaw (the continuous Euler angles the outputs
# give) and FRAMES[u, 15:18] their rates (equal to FRAMES[u, 9:12] at attitude index 0)
# FRAMES[u, 18:22] a full trailer's turntable (engine.connection): its angle and rate (rad,
# rad/s, right +: the drawbar's direction in the unit's x-y plane) and its centre's x and y
# (from the CG); zeros on a unit without one
FR_R, FR_RATES, FR_ANG, FR_BRATES, FR_TT, FR_TT_RATE, FR_TT_X, FR_TT_Y = 0, 9, 12, 15, 18, 19, 20, 21
N_FRAME = 22
(AW_B, AW_MINV, AW_BQ) = (0, 12, 15)   # B (6x2, row-major), M_qq^-1 (a, b, c), b_q (2)
N_AXLE_WORK = 17


def scratch_shape(max_wheels):
    """Shape of the scratch array for units of at most ``max_wheels`` wheels."""
    n = 6 + max_wheels
    return (S_A + n, n)


BODY_STATE_NAMES = ("X", "Y", "Z", "roll", "pitch", "yaw", "u", "v", "w", "p", "q", "r",
                    "attitude.index", "attitude.roll", "attitude.pitch", "attitude.yaw")
WHEEL_STATE_NAMES = ("dz", "dz_rate", "spin", "brake_pressure", "brake_temperature")
AXLE_STATE_NAMES = ("heave", "heave_rate", "roll", "roll_rate")
TIRE_STATE_NAMES = ("kx", "ky", "defl_turn")
CONN_STATE_NAMES = ("hitch.failed",)
PT_STATE_NAMES = ("engine_speed", "idle_governor", "clutch_engagement")
STEER_STATE_NAMES = ("steering.angle", "steering.rate")
COLL_STATE_NAMES = ("collision.contact", "collision.VX0", "collision.VY0", "collision.VZ0",
                    "collision.heading0", "collision.T0", "collision.T1")
DMG_STATE_NAMES = ("damage.dx", "damage.dy", "damage.toe", "damage.camber", "damage.approach")

#: The blocks of the state vector in their order: (block, states per item, what an item is).
#: The module docstring describes each block's states.
STATE_BLOCKS = (
    ("body", N_BODY, "unit"), ("wheel", N_WHEEL_STATE, "wheel"), ("axle", N_AXLE_STATE, "solid axle"),
    ("tire", N_TIRE_STATE, "tire"), ("connection", N_CONN_STATE, "connection"),
    ("powertrain", N_PT_STATE, "unit"), ("steering", N_STEER_STATE, "steering system"),
    ("collision", N_COLL_UNIT_STATE, "unit"), ("vertex", 1, "mesh vertex"),
    ("entry", 1, "mesh vertex"), ("pair", N_PAIR_STATE, "pair of units"),
    ("damage", N_DMG_STATE, "wheel"))
#: the first block of the collision block (latched at step boundaries, never integrated)
LATCHED_BLOCK = "collision"


class StateLayout:
    """The state vector's layout: its blocks (:data:`STATE_BLOCKS`), each item's offset, the
    size and every slot's name. The one description of the state every consumer asks.

    Packing writes its block offsets into the packed environment (``P_ENV[E_WHEEL_BASE]`` ..
    ``P_ENV[E_DMG_BASE]``, :meth:`pack_bases`), where the compiled kernels read them
    (:func:`state_bases`): the state layout travels with the packed parameters as plain
    numbers (docs/engine-api.md, "State layout")."""

    def __init__(self, units, wheels, axles, tires, connections, steering, vertices, pairs):
        counts = {"body": units, "wheel": wheels, "axle": axles, "tire": tires,
                  "connection": connections, "powertrain": units, "steering": steering,
                  "collision": units, "vertex": vertices, "entry": vertices, "pair": pairs,
                  "damage": wheels}
        self.counts = {b: int(counts[b]) for b, _, _ in STATE_BLOCKS}
        self.base, at = {}, 0
        for block, per, _ in STATE_BLOCKS:
            self.base[block] = at
            at += per * self.counts[block]
        self.size = at

    @classmethod
    def of_model(cls, P) -> "StateLayout":
        """The layout of the packed model ``P`` (:class:`Model`)."""
        return cls(P.P_UNIT.shape[0], P.P_WHEEL.shape[0], P.P_AXLE.shape[0], P.P_TIRE.shape[0],
                   P.P_CONN.shape[0], int((P.P_UNIT[:, U_STEER_SLOT] >= 0).sum()), P.CV.shape[0],
                   P.P_PAIR.shape[0])

    def at(self, block: str, item: int = 0) -> int:
        """The offset of item ``item`` of ``block`` (its first state)."""
        per = _PER_ITEM[block]
        if not 0 <= item < max(self.counts[block], 1):
            raise IndexError(f"{block} {item}: the state has {self.counts[block]}")
        return self.base[block] + per * item

    def pack_bases(self, P_ENV) -> None:
        """Write the block offsets the kernels read into the packed environment."""
        for slot, block in _ENV_BASES:
            P_ENV[slot] = self.base[block]

    def names(self, unit_names, wheel_names, tire_names, axle_names=(), connection_names=(),
              steering_names=(), vertex_counts=(), pairs=(), wheel_vertex_counts=()):
        """Names of every slot, for diagnostics and state checks (``steering_names``: the
        units with a steering system, ``Event.steering_unit_names``; ``vertex_counts``: the
        vertices of each unit's collision mesh; ``pairs``: the unit names (a, b) of each pair
        of P_PAIR; ``wheel_vertex_counts``: the vertices of each wheel's mesh)."""
        out = [f"{u}.{s}" for u in unit_names for s in BODY_STATE_NAMES]
        out += [f"{w}.{s}" for w in wheel_names for s in WHEEL_STATE_NAMES]
        out += [f"{a}.{s}" for a in axle_names for s in AXLE_STATE_NAMES]
        out += [f"{t}.{s}" for t in tire_names for s in TIRE_STATE_NAMES]
        out += [f"{c}.{s}" for c in connection_names for s in CONN_STATE_NAMES]
        out += [f"{u}.{s}" for u in unit_names for s in PT_STATE_NAMES]
        out += [f"{u}.{s}" for u in steering_names for s in STEER_STATE_NAMES]
        out += [f"{u}.{s}" for u in unit_names for s in COLL_STATE_NAMES]
        for what in ("approach", "entry_face"):
            out += [f"{u}.collision.vertex{k}.{what}" for u, n in zip(unit_names, vertex_counts)
                    for k in range(n)]
            out += [f"{w}.collision.vertex{k}.{what}"
                    for w, n in zip(wheel_names, wheel_vertex_counts) for k in range(n)]
        out += [f"{x}.collision.{what}_{z}" for a, b in pairs
                for what in ("face_of", "depth_in") for x, z in ((a, b), (b, a))]
        out += [f"{w}.{s}" for w in wheel_names for s in DMG_STATE_NAMES]
        if len(out) != self.size:
            raise ValueError(f"{len(out)} state names for a state of {self.size}")
        return out


_PER_ITEM = {block: per for block, per, _ in STATE_BLOCKS}
_ENV_BASES = ((E_WHEEL_BASE, "wheel"), (E_AXLE_BASE, "axle"), (E_TIRE_BASE, "tire"),
              (E_CONN_BASE, "connection"), (E_PT_BASE, "powertrain"), (E_STEER_BASE, "steering"),
              (E_COLL_BASE, LATCHED_BLOCK), (E_DMG_BASE, "damage"))


@njit_inline
def state_bases(P):
    """Offsets of the wheel, solid-axle, tire, connection, powertrain and steering blocks of the
    state vector of the packed model P, in compiled code: as :class:`StateLayout` packed them
    into P_ENV."""
    E = P.P_ENV
    return (int(E[E_WHEEL_BASE]), int(E[E_AXLE_BASE]), int(E[E_TIRE_BASE]), int(E[E_CONN_BASE]),
            int(E[E_PT_BASE]), int(E[E_STEER_BASE]))


#: :func:`state_fault`'s word for a slot that holds a code: it accepts a whole number
ACCEPTS_WHOLE = 1.0


@njit
def state_fault(y, P, accepts):
    """The first slot of the state vector y (of the packed model P) that holds a value no run
    leaves there, or -1; what that slot accepts into ``accepts``: (lowest, highest, 1.0 when
    it holds a whole number, else 0.0). Every slot holds a finite number; the codes hold the
    whole numbers a run writes: a body's attitude index -1, 0 or 1 (``engine.kinematics``,
    "Pitch through 90 degrees"), a connection's failure 0 or 1, a unit's contact 0, 1 or 2
    (``CS_CONTACT``), a vertex's entry state 0 to N_FACES times the units (:func:`entry_code`)
    and a pair's contact faces 0 to N_FACES (``PS_FACE_ON_*``). The kernels take the codes
    as indices and signs: a state restored from outside (an FMU state, whose checksum anyone
    can make again) is checked here first."""
    nu = P.P_UNIT.shape[0]
    nv = P.CV.shape[0]
    conn_base = int(P.P_ENV[E_CONN_BASE])
    coll_base = int(P.P_ENV[E_COLL_BASE])
    vbase = coll_base + N_COLL_UNIT_STATE * nu
    ebase = vbase + nv
    pbase = ebase + nv
    for k in range(y.shape[0]):
        lo, hi = -math.inf, math.inf
        if k < N_BODY * nu and k % N_BODY == SATT:
            lo, hi = -1.0, 1.0
        elif conn_base <= k < conn_base + N_CONN_STATE * P.P_CONN.shape[0]:
            lo, hi = 0.0, 1.0
        elif coll_base <= k < vbase and (k - coll_base) % N_COLL_UNIT_STATE == CS_CONTACT:
            lo, hi = 0.0, 2.0
        elif ebase <= k < pbase:
            lo, hi = 0.0, float(N_FACES * nu)
        elif pbase <= k < pbase + N_PAIR_STATE * P.P_PAIR.shape[0] \
                and (k - pbase) % N_PAIR_STATE < N_PAIR_FACES:
            lo, hi = 0.0, float(N_FACES)
        whole = lo > -math.inf
        v = y[k]
        if not (math.isfinite(v) and lo <= v <= hi and (not whole or v == math.floor(v))):
            accepts[0], accepts[1] = lo, hi
            accepts[2] = ACCEPTS_WHOLE if whole else 0.0
            return k
    return -1


def describe_fault(names, y, k, accepts) -> str:
    """The words of :func:`state_fault`'s finding at slot k (``names``: the state's slot
    names), as the native runtime writes them too (simon_fmu/native/c/simon_native.c,
    state_problem): "<name> = <value>, where a run leaves <what it accepts>"."""
    lo, hi, whole = accepts
    what = (f"a whole number from {lo:.0f} to {hi:.0f}" if whole == ACCEPTS_WHOLE
            else "a finite number")
    return f"{names[k]} = {y[k]:.6g}, where a run leaves {what}"


# vehicle.derivatives copies the body states X .. r straight into the first unit outputs
assert UNIT_OUTPUTS[YU_X:YU_R + 1] == BODY_STATE_NAMES[:N_BODY_OUT] and (SX, SR) == (0, N_BODY_OUT - 1)


# --- the kernels' argument structures ----------------------------------------------------
from typing import NamedTuple  # noqa: E402

import numpy as _np  # noqa: E402


class Model(NamedTuple):
    """The packed parameters (``engine.setup.params.pack``), one argument of every kernel."""
    P_UNIT: _np.ndarray
    P_GEAR: _np.ndarray
    P_DIFF: _np.ndarray
    P_ENG: _np.ndarray
    N_ENG: _np.ndarray
    P_WHEEL: _np.ndarray
    T_WHEEL: _np.ndarray
    P_TIRE: _np.ndarray
    TT: _np.ndarray
    P_AERO: _np.ndarray
    P_ENV: _np.ndarray
    P_AXLE: _np.ndarray
    P_CONN: _np.ndarray
    P_BRAKE: _np.ndarray
    T_BRAKE: _np.ndarray
    # the mesh terrain (engine.terrain_mesh; zero-size arrays for other terrains)
    TR_TRI: _np.ndarray
    TR_NRM: _np.ndarray
    TR_MAT: _np.ndarray
    TR_MATP: _np.ndarray
    TR_GRID: _np.ndarray
    TR_START: _np.ndarray
    TR_CELL: _np.ndarray
    # collisions (engine.collision)
    P_COLL: _np.ndarray
    CV: _np.ndarray
    CK: _np.ndarray
    P_BAR: _np.ndarray
    P_PAIR: _np.ndarray
    P_WCOLL: _np.ndarray     # [wheel, N_WCOLL_P]: its mesh and damage thresholds
    XM: _np.ndarray          # the OBJ exteriors' triangles and their grids (flat, XG_*, XT_*)


class Inputs(NamedTuple):
    """The inputs the kernels read: [unit, UNIT_INPUTS], [wheel, WHEEL_INPUTS], [ENV_INPUTS]."""
    u_unit: _np.ndarray
    u_wheel: _np.ndarray
    u_env: _np.ndarray


class Outputs(NamedTuple):
    """The outputs a recording pass writes, laid out after ``engine.signals``."""
    y_unit: _np.ndarray
    y_wheel: _np.ndarray
    y_tire: _np.ndarray
    y_axle: _np.ndarray
    y_conn: _np.ndarray
    y_steer: _np.ndarray     # [steering system, STEERING_OUTPUTS]
    y_solver: _np.ndarray    # [1, SOLVER_OUTPUTS]: the integrator's (engine.integrator.advance)


class Work(NamedTuple):
    """Preallocated scratch of a derivative evaluation (nothing is allocated in it)."""
    scratch: _np.ndarray     # [row, column], rows S_*, shape scratch_shape(max wheels)
    frames: _np.ndarray      # [unit, N_FRAME]
    ext: _np.ndarray         # [unit, 6]
    axle_work: _np.ndarray   # [solid axle of one unit, N_AXLE_WORK]
    conn_force: _np.ndarray  # [connection]: magnitude of the joint force, N (failure check)
    fault: _np.ndarray       # (3,): where an evaluation failed (earth X, Y, Z of a tire off the terrain)
    clock: _np.ndarray       # (2,): the time of the integration step being taken, s (the
    #                          integrator sets it; the steering mode autostart reads it), and
    #                          1 while the step's first stage is evaluated at its boundary
    #                          (the collision pass then latches: engine.collision)
    coll: _np.ndarray        # [unit, N_COLL_ROW]: the collision force and moment on it
    #                          (vehicle-fixed, about its CG), whether it touches, the deepest
    #                          approach now, and a latching pass's flags (engine.collision.WC_*)
    wpose: _np.ndarray       # [wheel, N_WPOSE]: the pose of its mesh (vehicle frame)
    wcoll: _np.ndarray       # [wheel, N_WLOAD]: the collision load on its mesh
    wmotion: _np.ndarray     # [wheel, 2]: its mesh's contact motion in the step and its
    #                          deepest approach at the boundary (m)
    wvalid: _np.ndarray      # [unit]: 1 once its wheels' poses are in wpose for this pass
    latched: _np.ndarray     # (state size,): the state with the latches of the evaluation at a
    #                          step boundary (rigid steering's angle, tires' turning points):
    #                          the derivative writes them here, never into its state, and the
    #                          integrator takes them into the state (integrator.advance)


def new_work(model: Model) -> Work:
    """The scratch of a derivative evaluation for ``model``."""
    nu = model.P_UNIT.shape[0]
    max_wheels = max(int(k) for k in model.P_UNIT[:, U_NWHEELS])
    max_axles = max(int(k) for k in model.P_UNIT[:, U_NAXLES])
    return Work(_np.zeros(scratch_shape(max_wheels)), _np.zeros((nu, N_FRAME)), _np.zeros((nu, 6)),
                _np.zeros((max(max_axles, 1), N_AXLE_WORK)), _np.zeros(model.P_CONN.shape[0]),
                _np.zeros(3), _np.zeros(2), _np.zeros((nu, N_COLL_ROW)),
                _np.zeros((model.P_WHEEL.shape[0], N_WPOSE)), _np.zeros((model.P_WHEEL.shape[0], N_WLOAD)),
                _np.zeros((model.P_WHEEL.shape[0], 2)), _np.zeros(nu),
                _np.zeros(StateLayout.of_model(model).size))
