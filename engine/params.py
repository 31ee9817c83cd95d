"""Pack a validated event into the flat arrays of the hot path, and find static equilibrium.

Parameters are validated once (``engine.event``) and packed once here; the kernels only read
these arrays, through the named indices of ``engine.layout``.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import layout as L
from .aerodynamics import air_density, surface_constant
from .tire import static_deflection


class Model(NamedTuple):
    """The packed parameters, in the argument order of the kernels."""
    P_UNIT: np.ndarray
    P_GEAR: np.ndarray
    P_ENG: np.ndarray
    N_ENG: np.ndarray
    P_WHEEL: np.ndarray
    T_WHEEL: np.ndarray
    P_TIRE: np.ndarray
    TT: np.ndarray
    P_AERO: np.ndarray
    P_ENV: np.ndarray


def _table(dst_x, dst_y, rows):
    n = len(rows)
    for i, (x, y) in enumerate(rows):
        dst_x[i] = x
        dst_y[i] = y
    return n


def static_suspension_loads(x, y, k, weight):
    """Suspension preloads Fs0 carrying the sprung weight at the CG (x = y = 0).

    Solves sum F = W, sum F x = 0, sum F y = 0 with F_i = k_i (a0 + a1 x_i + a2 y_i): the
    loads of a rigid body resting on springs of rates k_i; statically determinate cases
    (two axles, symmetric) give the textbook split whatever the rates.
    """
    x, y, k = map(np.asarray, (x, y, k))
    A = np.array([[np.sum(k), np.sum(k * x), np.sum(k * y)],
                  [np.sum(k * x), np.sum(k * x * x), np.sum(k * x * y)],
                  [np.sum(k * y), np.sum(k * x * y), np.sum(k * y * y)]])
    rhs = np.array([weight, 0.0, 0.0])
    if not (np.isfinite(A).all() and np.isfinite(weight)):   # beyond the range of a float
        return np.full(k.shape, np.nan)
    a = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return k * (a[0] + a[1] * x + a[2] * y)


def _wheels(unit):
    """The unit's wheels in packing order: (axle index, axle, side), left (-1) first."""
    return [(ai, ax, side) for ai, ax in enumerate(unit["axles"]) for side in (-1.0, 1.0)]


def _static_wheels(unit, g):
    """Static equilibrium of a unit resting on its wheels: per wheel, in packing order, the
    suspension preload Fs0 (N), the load of each of its tires (N) and that tire's deflection
    (m, inverse of Eq. 93)."""
    wheels = _wheels(unit)
    k_series, xs, ys = [], [], []
    for _, ax, _side in wheels:
        tire = unit["tires"][ax["tire"]]
        ks = ax["suspension"]["spring_rate"]
        kt = (2 if ax["dual"] else 1) * tire["radial_stiffness"]
        k_series.append(ks * kt / (ks + kt))
        xs.append(ax["x"])
        ys.append(_side * ax["track"] / 2.0)
    fs0 = static_suspension_loads(xs, ys, k_series, unit["sprung_mass"]["mass"] * g)
    out = []
    for f, (_, ax, _side) in zip(fs0, wheels):
        tire = unit["tires"][ax["tire"]]
        load = (f + ax["unsprung_mass_per_wheel"] * g) / (2 if ax["dual"] else 1)
        defl = static_deflection(load, tire["radial_stiffness"], tire["secondary_stiffness_multiplier"],
                                 tire["secondary_stiffness_deflection"])
        out.append((float(f), float(load), float(defl)))
    return out, np.asarray(xs), np.asarray(ys)


def static_equilibrium_problems(data) -> list:
    """Why the event of validated data ``data`` has no static equilibrium the engine can start
    from, one message per problem naming the fields ([] when every unit has one).

    Each unit must rest on its wheels (Eq. 115 preloads carrying the sprung weight, with
    balanced moments about the CG), every tire pressed on the ground (a load > 0) and within
    its max_deflection (Eq. 93): the engine starts every simulation in this state and stops
    when a tire deflects beyond its maximum.
    """
    g = data["environment"]["gravity"]
    problems = []
    for i, unit in enumerate(data["units"]):
        p = f"units[{i}]"
        weight = unit["sprung_mass"]["mass"] * g
        with np.errstate(all="ignore"):
            try:
                wheels, xs, ys = _static_wheels(unit, g)
            except np.linalg.LinAlgError:
                wheels, xs, ys = None, None, None
            finite = wheels is not None and math.isfinite(weight) and all(
                math.isfinite(v) for row in wheels for v in row)
            if finite:
                fs0 = np.array([w[0] for w in wheels])
                span = max(1.0, float(np.max(np.abs(xs))), float(np.max(np.abs(ys))))
                residual = max(abs(float(np.sum(fs0)) - weight), abs(float(np.sum(fs0 * xs))) / span,
                               abs(float(np.sum(fs0 * ys))) / span)
        if not finite:
            problems.append(f"{p}: no static equilibrium: the wheel loads are not finite numbers "
                            f"(sprung_mass.mass {unit['sprung_mass']['mass']!r} kg, environment.gravity "
                            f"{g!r} m/s^2, the axles' spring_rate and the tires' radial_stiffness "
                            "must give loads within the range of a float)")
            continue
        if not residual <= 1e-9 * max(weight, 1.0):
            problems.append(f"{p}.axles: no static equilibrium: the axles at x = {[a['x'] for a in unit['axles']]} m "
                            "cannot balance the sprung weight at the CG (x = 0) by themselves; give axles "
                            "on both sides of the CG (a single axle at x = 0)")
            continue
        for j, (ai, ax, side) in enumerate(_wheels(unit)):
            _, load, defl = wheels[j]
            wheel = f"{p}.axles[{ai}] ({'left' if side < 0 else 'right'})"
            tire = unit["tires"][ax["tire"]]
            if not load > 0.0:
                problems.append(f"{wheel}: no static equilibrium: the tire load would be {load:.6g} N "
                                "(the wheel lifts off); the sprung-mass CG (x = 0) must lie between the "
                                "first and the last axle")
            elif not defl < tire["max_deflection"]:
                problems.append(f"{wheel}: no static equilibrium: the static tire load {load:.6g} N "
                                f"deflects tire {ax['tire']!r} by {defl:.6g} m, beyond its max_deflection "
                                f"{tire['max_deflection']:g} m (units[{i}].sprung_mass.mass {unit['sprung_mass']['mass']:g} kg, "
                                f"environment.gravity {g:g} m/s^2, units[{i}].tires.{ax['tire']}.radial_stiffness "
                                f"{tire['radial_stiffness']:g} N/m)")
    return problems


def bump_steer_coefficients(bump_steer, side):
    """Eq. 63 coefficients of one wheel (vehicle steer sign). A single polynomial is a toe
    change: the right wheel's (side +1), mirrored on the left (side -1), so that pure heave
    steers the axle's wheels apart or together, never the car."""
    if isinstance(bump_steer, dict):
        return bump_steer["right" if side > 0 else "left"]
    return [side * k for k in bump_steer]


def pack(event, friction_multiplier: float, initial: dict):
    """Return (Model, y0, wheel_names, tire_names) for the event in static equilibrium."""
    d = event.data
    env = d["environment"]
    g = env["gravity"]
    rho = air_density(env["air_pressure"], env["air_temperature"])
    units = d["units"]
    nu = len(units)
    nw = sum(2 * len(u["axles"]) for u in units)
    nt = sum(2 * (2 if a["dual"] else 1) for u in units for a in u["axles"])
    ns = sum(len(u["aerodynamics"]) for u in units)

    # the tables and the gear list are as long as the event's longest (no fixed limit)
    n_eng = max(len(u["drivetrain"][k]) for u in units
                for k in ("engine_wot_torque", "engine_closed_throttle_torque"))
    n_wheel_table = max(len(a["suspension"][k]) for u in units for a in u["axles"]
                        for k in ("half_track_change", "camber_change"))
    n_gears = max(len(u["drivetrain"]["transmission_ratios"]) for u in units)
    P_UNIT = np.zeros((nu, L.N_UNIT_P))
    P_GEAR = np.zeros((nu, n_gears + 1))
    P_ENG = np.zeros((nu, 4, n_eng))
    N_ENG = np.zeros((nu, 2), dtype=np.int64)
    P_WHEEL = np.zeros((nw, L.N_WHEEL_P))
    T_WHEEL = np.zeros((nw, 4, n_wheel_table))
    P_TIRE = np.zeros((nt, L.N_TIRE_P))
    TT = np.zeros((nt, L.N_TIRE_PROPS, L.MAX_TIRE_TESTS, L.MAX_TIRE_TESTS))
    P_AERO = np.zeros((max(ns, 1), L.N_AERO_P))
    P_ENV = np.zeros(L.N_ENV_P)
    P_ENV[L.E_G] = g
    P_ENV[L.E_RHO] = rho
    P_ENV[L.E_MU] = env["friction_multiplier"] * friction_multiplier
    P_ENV[L.E_GROUND_Z] = env["ground_elevation"]

    y0 = np.zeros(L.state_size(nu, nw, nt))
    w = t = s = 0
    for ui, unit in enumerate(units):
        sm = unit["sprung_mass"]
        br = unit["brakes"]
        dt = unit["drivetrain"]
        ix, iy, iz = sm["inertia"]
        P = P_UNIT[ui]
        P[L.U_MS], P[L.U_IX], P[L.U_IY], P[L.U_IZ], P[L.U_IXZ] = sm["mass"], ix, iy, iz, sm["Ixz"]
        P[L.U_CGH] = sm["cg_height"]
        P[L.U_STEER_RATIO] = unit["steering"]["gear_ratio"]
        P[L.U_PEDAL_RATIO] = br["pedal_ratio"]
        P[L.U_PROP_START] = br["proportioning_start"]
        P[L.U_PROP_RATIO] = br["proportioning_ratio"]
        P[L.U_PUSHOUT] = br["pushout_pressure"]
        P[L.U_DIFF_RATIO] = dt["differential_ratio"]
        P[L.U_I_DT] = dt["inertia"]
        ratios = dt["transmission_ratios"]
        P[L.U_N_GEARS] = len(ratios)
        P_GEAR[ui, 0] = dt["reverse_ratio"]
        P_GEAR[ui, 1:1 + len(ratios)] = ratios
        N_ENG[ui, 0] = _table(P_ENG[ui, L.EM_WOT_X], P_ENG[ui, L.EM_WOT_Y], dt["engine_wot_torque"])
        N_ENG[ui, 1] = _table(P_ENG[ui, L.EM_CT_X], P_ENG[ui, L.EM_CT_Y], dt["engine_closed_throttle_torque"])
        P[L.U_WHEEL0] = w
        P[L.U_NWHEELS] = 2 * len(unit["axles"])
        P[L.U_AERO0] = s
        P[L.U_NAERO] = len(unit["aerodynamics"])
        for surf in unit["aerodynamics"]:
            P_AERO[s, L.A_UNIT] = ui
            P_AERO[s, L.A_CA] = surface_constant(surf["drag_coefficient"], surf["area"], rho)
            P_AERO[s, L.A_CPX:L.A_CPZ + 1] = surf["center_of_pressure"]
            s += 1

        # wheels: the static equilibrium first
        w0 = w
        wheel_list = _wheels(unit)
        n_driven = sum(1 for _, ax, _ in wheel_list if ax["driven"])
        P[L.U_N_DRIVEN] = n_driven
        static, _, _ = _static_wheels(unit, g)
        m_unsprung = 0.0
        for j, (ai, ax, side) in enumerate(wheel_list):
            sus = ax["suspension"]
            tire = unit["tires"][ax["tire"]]
            ntires = 2 if ax["dual"] else 1
            W = P_WHEEL[w]
            W[L.W_UNIT], W[L.W_AXLE], W[L.W_SIDE] = ui, ai, side
            W[L.W_X], W[L.W_Y0] = ax["x"], side * ax["track"] / 2.0
            W[L.W_MUS] = ax["unsprung_mass_per_wheel"]
            m_unsprung += W[L.W_MUS]
            W[L.W_K], W[L.W_C], W[L.W_FMU] = sus["spring_rate"], sus["damping"], sus["coulomb_friction"]
            W[L.W_FS0], _, defl = static[j]
            W[L.W_KRS], W[L.W_TRACK] = sus["antisway_roll_stiffness"], ax["track"]
            W[L.W_PARTNER] = w + 1 if side < 0 else w - 1
            js, rs = sus["jounce_stop"], sus["rebound_stop"]
            W[L.W_JCL], W[L.W_JK1], W[L.W_JK3], W[L.W_JER] = js["clearance"], js["K1"], js["K3"], js["energy_ratio"]
            W[L.W_RCL], W[L.W_RK1], W[L.W_RK3], W[L.W_RER] = rs["clearance"], rs["K1"], rs["K3"], rs["energy_ratio"]
            W[L.W_STEERED] = 1.0 if ax["steered"] else 0.0
            W[L.W_BS0:L.W_BS3 + 1] = bump_steer_coefficients(sus["bump_steer"], side)
            W[L.W_DRIVEN] = 1.0 if ax["driven"] else 0.0
            W[L.W_ZETA] = 1.0 / n_driven if ax["driven"] else 0.0
            W[L.W_TB_RATIO] = ax["brake_torque_ratio"]
            W[L.W_PROPORTIONED] = 1.0 if ax["proportioned"] else 0.0
            W[L.W_ISPIN] = ntires * tire["spin_inertia"]
            W[L.W_TIRE0], W[L.W_NTIRES] = t, ntires
            W[L.W_NHT] = _table(T_WHEEL[w, L.T_HT_X], T_WHEEL[w, L.T_HT_Y], sus["half_track_change"])
            W[L.W_NCAM] = _table(T_WHEEL[w, L.T_CAM_X], T_WHEEL[w, L.T_CAM_Y], sus["camber_change"])
            r_loaded = tire["unloaded_radius"] - defl
            W[L.W_Z0] = sm["cg_height"] - r_loaded
            offsets = [0.0] if ntires == 1 else [-side * ax["dual_spacing"] / 2.0, side * ax["dual_spacing"] / 2.0]
            for off in offsets:  # inner first, then outer
                _pack_tire(P_TIRE, TT, t, w, off, tire)
                # on its loading curve at the static deflection: the turning point of Eq. 93
                y0[L.tire_offset(nu, nw, t) + L.TTURN] = defl
                t += 1
            w += 1
        P[L.U_MTOTAL] = sm["mass"] + m_unsprung

        # initial state: static equilibrium at the initial speed
        ini = initial[unit["name"]]
        o = L.unit_offset(ui)
        y0[o + L.SX] = ini["X0"]
        y0[o + L.SY] = ini["Y0"]
        y0[o + L.SZ] = env["ground_elevation"] - sm["cg_height"]
        y0[o + L.SPSI] = ini["yaw0"]
        y0[o + L.SU] = ini["speed0"]
        for wi in range(w0, w):
            r_loaded = P_WHEEL[wi, L.W_Z0]
            r_loaded = sm["cg_height"] - r_loaded
            y0[L.wheel_offset(nu, wi) + L.WOMEGA] = ini["speed0"] / r_loaded
    model = Model(P_UNIT, P_GEAR, P_ENG, N_ENG, P_WHEEL, T_WHEEL, P_TIRE, TT, P_AERO, P_ENV)
    return model, y0


def _pack_tire(P_TIRE, TT, t, w, dy, tire):
    """Pack one tire; ``dy`` is its offset along the axle (vehicle y at zero steer)."""
    T = P_TIRE[t]
    T[L.T_WHEEL], T[L.T_DY] = w, dy
    T[L.T_RU] = tire["unloaded_radius"]
    T[L.T_KT] = tire["radial_stiffness"]
    T[L.T_KBAR] = tire["secondary_stiffness_multiplier"]
    T[L.T_D2] = tire["secondary_stiffness_deflection"]
    T[L.T_LAMBDA] = tire["rebound_multiplier"]
    T[L.T_DMAX] = tire["max_deflection"]
    T[L.T_SIG0] = tire["rolling_resistance"]["sigma0"]
    T[L.T_SIGV] = tire["rolling_resistance"]["sigma_v"]
    T[L.T_RLX] = tire["relaxation_length"]["longitudinal"]
    T[L.T_RLY] = tire["relaxation_length"]["lateral"]
    T[L.T_FZMIN] = tire["skid_flag"]["min_load"]
    T[L.T_TAU] = tire["skid_flag"]["adhesion_fraction"]
    loads, speeds = tire["test_loads"], tire["test_speeds"]
    T[L.T_NLOAD], T[L.T_NSPEED] = len(loads), len(speeds)
    T[L.T_LOAD0:L.T_LOAD0 + len(loads)] = loads
    T[L.T_SPEED0:L.T_SPEED0 + len(speeds)] = speeds
    for k, key in ((L.TP_MUP, "peak_friction"), (L.TP_MUS, "slide_friction"), (L.TP_SP, "slip_at_peak"),
                   (L.TP_CA, "cornering_stiffness"), (L.TP_CG, "camber_stiffness")):
        grid = np.asarray(tire[key])
        TT[t, k, :grid.shape[0], :grid.shape[1]] = grid


