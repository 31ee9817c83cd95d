"""Named indices over the engine's flat arrays: the state vector and the packed parameters.

No kernel uses a literal index: every column of a packed array and every slot of the state
vector has a name here. Module-level integers are compile-time constants for numba.

State vector (one float64 array), in this order:

* per unit, 12 body states at ``unit_offset(u) = 12*u``:
  X, Y, Z (earth-fixed CG, m), roll, pitch, yaw (rad), u, v, w (m/s, vehicle-fixed),
  p, q, r (rad/s, vehicle-fixed);
* per wheel, 3 states at ``wheel_offset(w) = 12*n_units + 3*w``: the suspension coordinate
  and its rate (independent suspension: the wheel's vehicle-fixed z displacement from static
  equilibrium, down +, Eq. 17/62; a solid axle will use the two wheel slots of its axle for
  axle heave and axle roll), and the wheel spin velocity Omega (rad/s, rolling forward +);
* per tire, 3 states at ``tire_offset(t) = 12*n_units + 3*n_wheels + 3*t``: the transient
  longitudinal slip kx (drive +), the transient lateral slip ky (~ sin of the slip angle) and
  the radial deflection at the last loading turning point (m, the memory of the rebound
  multiplier's loop, Eq. 93), see ``engine/tire.py``.
"""

# --- body states -------------------------------------------------------------------------
SX, SY, SZ, SPHI, STHETA, SPSI, SU, SV, SW, SP, SQ, SR = range(12)
N_BODY = 12
# --- wheel states (relative to the wheel's offset) ---------------------------------------
WZ, WZD, WOMEGA = range(3)
N_WHEEL_STATE = 3
# --- tire states -------------------------------------------------------------------------
TKX, TKY, TTURN = range(3)
N_TIRE_STATE = 3

# --- packed unit parameters: P_UNIT[u, :] ------------------------------------------------
(U_MS, U_IX, U_IY, U_IZ, U_IXZ, U_CGH, U_STEER_RATIO, U_PEDAL_RATIO, U_PROP_START, U_PROP_RATIO,
 U_PUSHOUT, U_DIFF_RATIO, U_I_DT, U_N_GEARS, U_WHEEL0, U_NWHEELS, U_N_DRIVEN, U_AERO0, U_NAERO,
 U_MTOTAL) = range(20)
N_UNIT_P = 20
MAX_GEARS = 20  # forward gears a unit may have (the event's limit)
# P_GEAR[u, 0] is reverse, P_GEAR[u, k] forward gear k (0 ratio = not present); as many
# columns as the event's longest list of gears

# --- packed wheel parameters: P_WHEEL[w, :] ----------------------------------------------
(W_UNIT, W_AXLE, W_SIDE, W_X, W_Y0, W_Z0, W_MUS, W_K, W_C, W_FMU, W_FS0, W_KRS, W_TRACK, W_PARTNER,
 W_JCL, W_JK1, W_JK3, W_JER, W_RCL, W_RK1, W_RK3, W_RER, W_STEERED, W_BS0, W_BS1, W_BS2, W_BS3,
 W_DRIVEN, W_ZETA, W_TB_RATIO, W_PROPORTIONED, W_ISPIN, W_TIRE0, W_NTIRES, W_NHT, W_NCAM) = range(36)
N_WHEEL_P = 36
# wheel tables T_WHEEL[w, table, row] (half-track change, camber change) and engine maps
# P_ENG[u, table, row] have as many rows as the event's longest table
T_HT_X, T_HT_Y, T_CAM_X, T_CAM_Y = range(4)

# --- packed tire parameters: P_TIRE[t, :] ------------------------------------------------
(T_WHEEL, T_DY, T_RU, T_KT, T_KBAR, T_D2, T_LAMBDA, T_DMAX, T_SIG0, T_SIGV, T_RLX, T_RLY,
 T_FZMIN, T_TAU, T_NLOAD, T_NSPEED, T_LOAD0, T_LOAD1, T_LOAD2, T_SPEED0, T_SPEED1, T_SPEED2) = range(22)
N_TIRE_P = 22
MAX_TIRE_TESTS = 3  # test loads, and test speeds, of a tire (T_LOAD0..2, T_SPEED0..2)
# property planes of the tire table TT[t, prop, load, speed]
TP_MUP, TP_MUS, TP_SP, TP_CA, TP_CG = range(5)
N_TIRE_PROPS = 5

# --- packed aero surfaces: P_AERO[s, :] --------------------------------------------------
A_UNIT, A_CA, A_CPX, A_CPY, A_CPZ = range(5)
N_AERO_P = 5

# --- environment: P_ENV[:] ---------------------------------------------------------------
E_G, E_RHO, E_MU, E_GROUND_Z = range(4)
N_ENV_P = 4

# --- engine maps: P_ENGINE[u, table, row]; N_ENGINE[u, table] rows ------------------------
EM_WOT_X, EM_WOT_Y, EM_CT_X, EM_CT_Y = range(4)

# --- per-wheel work/outputs computed by the derivative ------------------------------------
# indices into the wheel output array (match engine.signals.WHEEL_OUTPUTS)
from .signals import TIRE_OUTPUTS, UNIT_INPUTS, UNIT_OUTPUTS, WHEEL_INPUTS, WHEEL_OUTPUTS, ENV_INPUTS  # noqa: E402

YW_STEER, YW_SPIN, YW_JOUNCE, YW_BRAKEP, YW_BRAKET, YW_DRIVET = range(len(WHEEL_OUTPUTS))
YT_FX, YT_FY, YT_FZ, YT_SLIP, YT_ALPHA, YT_INCL, YT_DEFL, YT_SKID = range(len(TIRE_OUTPUTS))
(YU_X, YU_Y, YU_Z, YU_ROLL, YU_PITCH, YU_YAW, YU_U, YU_V, YU_W, YU_P, YU_Q, YU_R, YU_AX, YU_AY, YU_AZ,
 YU_SPEED, YU_BETA) = range(len(UNIT_OUTPUTS))
IU_STEER, IU_THROTTLE, IU_BRAKE, IU_GEAR = range(len(UNIT_INPUTS))
IW_BPF, IW_MU = range(len(WHEEL_INPUTS))
IE_WIND_SPEED, IE_WIND_DIR = range(len(ENV_INPUTS))
assert WHEEL_OUTPUTS[YW_DRIVET] == "driveTorque" and TIRE_OUTPUTS[YT_SKID] == "skid"
assert UNIT_OUTPUTS[YU_BETA] == "sideslip" and UNIT_INPUTS[IU_GEAR] == "gear"

# --- scratch of the derivative evaluation: SCRATCH[row, column] ----------------------------
# Preallocated once per simulation so that an evaluation allocates nothing. Each row below
# holds one value per wheel of the unit being assembled (or the few values named); the last
# rows hold the unit's rotation matrix and the matrix of its coupled equations (Eq. 1-14, 18).
(S_JZ, S_MW, S_XW, S_YW, S_ZW, S_ZDW, S_FZW, S_TORQUE, S_INERTIA, S_DRIVEN, S_DOMEGA, S_ZDD,
 S_F, S_M, S_ACC, S_B) = range(16)
S_R = 16            # rows S_R .. S_R+2, columns 0..2: the vehicle-to-earth rotation R (Eq. 53)
S_A = S_R + 3       # rows S_A .. S_A+5, columns 0..5: the unit's reduced 6x6 system matrix


def scratch_shape(max_wheels):
    """Shape of the scratch array for units of at most ``max_wheels`` wheels."""
    n = 6 + max_wheels
    return (S_A + n, n)


def unit_offset(u):
    return N_BODY * u


def wheel_offset(n_units, w):
    return N_BODY * n_units + N_WHEEL_STATE * w


def tire_offset(n_units, n_wheels, t):
    return N_BODY * n_units + N_WHEEL_STATE * n_wheels + N_TIRE_STATE * t


def state_size(n_units, n_wheels, n_tires):
    return N_BODY * n_units + N_WHEEL_STATE * n_wheels + N_TIRE_STATE * n_tires


BODY_STATE_NAMES = ("X", "Y", "Z", "roll", "pitch", "yaw", "u", "v", "w", "p", "q", "r")
WHEEL_STATE_NAMES = ("dz", "dz_rate", "spin")
TIRE_STATE_NAMES = ("kx", "ky", "defl_turn")


def state_names(unit_names, wheel_names, tire_names):
    """Names of every slot of the state vector, for diagnostics and state checks."""
    out = [f"{u}.{s}" for u in unit_names for s in BODY_STATE_NAMES]
    out += [f"{w}.{s}" for w in wheel_names for s in WHEEL_STATE_NAMES]
    out += [f"{t}.{s}" for t in tire_names for s in TIRE_STATE_NAMES]
    return out


# vehicle.derivatives copies the body states straight into the first unit outputs
assert UNIT_OUTPUTS[YU_X:YU_R + 1] == BODY_STATE_NAMES and (SX, SR) == (0, N_BODY - 1)
