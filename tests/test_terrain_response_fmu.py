"""The reference sedan's response to the road through the built FMU (fmpy), against closed
forms from the sedan sheet (the default event): a small half-sine bump across the road against a
linear quarter-car model, and hydroplaning on a wet mesh against the NASA hydroplaning speed and
the documented friction curve and water drag (docs/equations.md, "Hydroplaning").

The meshes are written by the tests (tests/support/roads.py, grid_mesh_obj). The references are
computed here from the sheet's values and the published constants, not from the engine's
functions."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import engine
from support.roads import grid_mesh_obj
from support.fmus import event_fmu
from support.run import run
from support.sedan import A_S, B_S, CDA, G, M, MS, MU, RHO, WB, loaded_radius, static_loads

UNIT = engine.load_event().data["units"][0]
FRONT = UNIT["axles"][0]["suspension"]
K_T = UNIT["tires"]["front"]["radial_stiffness"]


def _mesh_event(fmu_dir, name, fn_z, x_range, y_range, n, materials=None, fn_material=None,
                edit=None):
    obj = grid_mesh_obj(fmu_dir / f"{name}.obj", fn_z, x_range, y_range, n, fn_material)
    data = json.loads(engine.load_event().to_json())
    data["environment"]["terrain"] = {"type": "mesh", "file": str(obj), "materials": materials or {}}
    if edit is not None:
        edit(data)
    return data


# --- a half-sine bump against the linear quarter car ---------------------------------------

BUMP_H, BUMP_L, BUMP_X = 0.005, 1.0, 4.0       # height, length, start (earth X of its near edge)


def _bump(x):
    """The road's rise (m, up positive) at earth X: a half sine across the whole width."""
    s = np.clip((np.asarray(x) - BUMP_X) / BUMP_L, 0.0, 1.0)
    return BUMP_H * np.sin(np.pi * s)


def _contact_length():
    """The front tire's contact length at its static load: the chord of its unloaded circle at
    its static deflection, 2 sqrt(2 r delta - delta^2)."""
    r = UNIT["tires"]["front"]["unloaded_radius"]
    d = r - loaded_radius(static_loads()[0])
    return 2.0 * math.sqrt(2.0 * r * d - d * d)


def _bump_enveloped(x, length=None):
    """The bump as the tire meets it on a mesh road (docs/equations.md, "Tread envelope on mesh
    and OpenCRG roads"): for a rise small against the tire's deflection, the tire's disc gains
    the rise's area over its contact chord, so the effective road is the bump's mean over the
    contact length L centred on the wheel: the half sine's integral over the window (within the
    bump) over L."""
    length = _contact_length() if length is None else length
    x = np.asarray(x, dtype=float)
    lo = np.clip((x - 0.5 * length - BUMP_X) / BUMP_L, 0.0, 1.0)
    hi = np.clip((x + 0.5 * length - BUMP_X) / BUMP_L, 0.0, 1.0)
    return BUMP_H * BUMP_L / (np.pi * length) * (np.cos(np.pi * lo) - np.cos(np.pi * hi))


def test_the_envelope_of_the_bump_is_its_mean_over_the_contact_length():
    """The reference's road: the bump itself as the length shrinks, its mean over the window
    (by quadrature) at the sedan's contact length (0.26 m), and the same area under it."""
    x = np.linspace(BUMP_X - 1.0, BUMP_X + BUMP_L + 1.0, 2001)
    assert np.allclose(_bump_enveloped(x, 1e-7), _bump(x), atol=1e-12)
    length = _contact_length()
    s = np.linspace(-0.5 * length, 0.5 * length, 20001)
    for xi in (BUMP_X, BUMP_X + 0.3, BUMP_X + 0.5):
        assert _bump_enveloped(xi) == pytest.approx(np.trapezoid(_bump(xi + s), s) / length, rel=1e-6)
    assert np.trapezoid(_bump_enveloped(x), x) == pytest.approx(np.trapezoid(_bump(x), x), rel=1e-6)


def _quarter_car(t, x_wheel):
    """The front quarter car (up positive): the sprung mass's share of one front wheel on the
    spring and damper, on the unsprung mass, on the tire's radial spring, driven by the road
    height the tire meets at the wheel centre (the bump's envelope over the contact length,
    :func:`_bump_enveloped`). Returns the jounce (z_u - z_s) and the tire load change
    K_T (h - z_u) at the times t."""
    m_s = MS * B_S / WB / 2
    k, c = FRONT["spring_rate"], FRONT["damping"]

    def rhs(time, y):
        zs, vs, zu, vu = y
        h = float(_bump_enveloped(np.interp(time, t, x_wheel)))
        f_susp = k * (zu - zs) + c * (vu - vs)
        return [vs, f_susp / m_s, vu, (K_T * (h - zu) - f_susp) / MU]

    sol = solve_ivp(rhs, (t[0], t[-1]), [0.0] * 4, t_eval=t, method="RK45",
                    rtol=1e-9, atol=1e-12, max_step=5e-4)
    zs, _, zu, _ = sol.y
    return zu - zs, K_T * (_bump_enveloped(x_wheel) - zu)


def _no_coulomb(data):
    # the suspension's coulomb friction (50 N per wheel) is a nonlinear force that locks the
    # suspension for small motions: the linear reference has none, so the test's car has none
    for axle in data["units"][0]["axles"]:
        axle["suspension"]["coulomb_friction"] = 0.0


def test_half_sine_bump_matches_the_linear_quarter_car(fmu_dir, instance):
    """A 5 mm, 1 m half sine across the whole width (both front wheels alike: the anti-sway
    bar does not act) at 10 m/s, coasting; the mesh samples X every 2 cm. The tire meets the
    bump's envelope over its contact length (the quarter car's road; against the bump itself,
    as a point contact meets it, the jounce peaks 2.8 % lower). The bump's part of
    the motion is the bump run less the same coast on a flat mesh (the coasting car dives a
    little as it slows: superposition, the motions are small)."""
    wheel = "car.axle1.left"
    record = ("car.X", "car.pitch", f"{wheel}.jounce", f"{wheel}.Fz")
    runs = []
    for name, fn_z in (("bump", lambda x, y: -_bump(x) + 0.0 * y),
                       ("bump_flat", lambda x, y: 0.0 * x)):
        data = _mesh_event(fmu_dir, name, fn_z, (-3.0, 20.0), (-2.0, 2.0), (1150, 2),
                           edit=_no_coulomb)
        inst = instance(event_fmu(fmu_dir, name, data), name).start({"car.speed0": 10.0})
        runs.append((inst.get("car.X"), run(inst, 1.2, h=0.002, record=record)))
    (x0, out), (_, flat) = runs
    t = np.concatenate(([0.0], out["time"]))
    x_cg = np.concatenate(([x0], out["car.X"]))
    x_wheel = x_cg + A_S * np.cos(np.concatenate(([0.0], out["car.pitch"])))
    jounce_ref, dfz_ref = _quarter_car(t, x_wheel)
    jounce = np.concatenate(([0.0], out[f"{wheel}.jounce"] - flat[f"{wheel}.jounce"]))
    dfz = np.concatenate(([0.0], out[f"{wheel}.Fz"] - flat[f"{wheel}.Fz"]))
    pass_ = (x_wheel > BUMP_X - 0.5) & (x_wheel < BUMP_X + BUMP_L + 3.0)   # rear axle too
    for name, got, ref in (("jounce", jounce, jounce_ref), ("load", dfz, dfz_ref)):
        print(f"{name}: peaks {np.max(got) / np.max(ref) - 1:+.2%} / {np.min(got) / np.min(ref) - 1:+.2%}, "
              f"rms difference {np.sqrt(np.mean((got - ref)[pass_] ** 2)) / np.max(np.abs(ref)):.2%} of the peak")
        # measured: peaks +0.57 % / -0.01 % (jounce), +0.01 % / +0.12 % (load); the RMS
        # difference over the passage 0.56 % and 0.63 % of the peak (the rear axle's passage
        # pitches the body, which the quarter car does not see)
        assert np.max(got) == pytest.approx(np.max(ref), rel=0.02)
        assert np.min(got) == pytest.approx(np.min(ref), rel=0.02)
        assert np.sqrt(np.mean((got - ref)[pass_] ** 2)) < 0.02 * np.max(np.abs(ref))
    # the bump lifts the wheel and the tire load peaks while on it, ahead of the jounce
    assert t[np.argmax(dfz)] < t[np.argmax(jounce)]


# --- hydroplaning on a wet mesh -------------------------------------------------------------

PSI, MPH = 6894.757, 0.44704              # Pa per psi, m/s per mph
P_TIRE, TREAD, WIDTH, WATER = 220e3, 0.003, 0.195, 0.005
RESIDUAL = 0.1                            # the documented friction of a hydroplaning tire
V_P = 10.35 * math.sqrt(P_TIRE / PSI) * MPH   # Horne and Dreher (NASA TN D-2056): 26.1 m/s


def _friction_nasa(v):
    """1 - (1 - f_r) (V/V_p)^2 below V_p, f_r above: water deeper than the tread (engaged)."""
    return 1.0 - (1.0 - RESIDUAL) * np.minimum(1.0, (np.asarray(v) / V_P) ** 2)


def _hydro_event(fmu_dir, name, water):
    def edit(data):
        data["simulation"]["hydroplaning"] = "nasa"
        for tire in data["units"][0]["tires"].values():
            tire.update(inflation_pressure=P_TIRE, tread_depth=TREAD, width=WIDTH)
    data = _mesh_event(fmu_dir, name, lambda x, y: 0.0 * x, (-5.0, 45.0), (-3.0, 3.0), (25, 3),
                       materials={"road": {"friction_multiplier": 1.0, "water_depth": water}},
                       fn_material=lambda x, y: "road", edit=edit)
    return event_fmu(fmu_dir, name, data)


@pytest.mark.parametrize("share", [0.5, 0.9, 1.2])
def test_available_friction_on_water_follows_the_nasa_hydroplaning_speed(fmu_dir, instance, share):
    tires = [f"car.axle{k}.{s}" for k in (1, 2) for s in ("left", "right")]
    inst = instance(_hydro_event(fmu_dir, "wet", WATER)).start({"car.speed0": share * V_P})
    out = run(inst, 0.5, record=("car.u",) + tuple(f"{w}.frictionAvailable" for w in tires)
              + tuple(f"{w}.waterDepth" for w in tires))
    # V_p from the published constant: the tire is below it at 0.5 and 0.9, above it at 1.2
    ref = _friction_nasa(out["car.u"])
    for w in tires:
        assert np.all(out[f"{w}.waterDepth"] == pytest.approx(WATER))
        # measured: within 1.2e-4 (0.5 V_p), 5.6e-4 (0.9 V_p), exactly 0.1 above V_p; the
        # recorded speed is the CG's, the friction the contact patch's at its last step
        assert np.max(np.abs(out[f"{w}.frictionAvailable"] - ref)) < 2e-3
    if share > 1.0:
        assert np.all(out[f"{tires[0]}.frictionAvailable"] == pytest.approx(RESIDUAL, abs=1e-9))


def test_water_on_the_road_slows_a_coasting_car(fmu_dir, instance):
    """The water the tires push aside drags the car: the documented displacement drag
    1/2 rho_w C_D b d V^2 per tire (docs/equations.md, Eq. 114's R_rMult) over the mass with
    the wheels' rotational inertia."""
    v0 = 15.0
    front, rear = static_loads()
    m_eff = M + 2 * UNIT["tires"]["front"]["spin_inertia"] / loaded_radius(front) ** 2 \
        + 2 * UNIT["tires"]["rear"]["spin_inertia"] / loaded_radius(rear) ** 2
    sigma0 = UNIT["tires"]["front"]["rolling_resistance"]["sigma0"]
    rho_w, c_d = 1000.0, 0.75             # water; the documented drag coefficient on b d
    decel = {}
    for name, water in (("dry", 0.0), ("wet", WATER)):
        inst = instance(_hydro_event(fmu_dir, name, water), name).start({"car.speed0": v0})
        out = run(inst, 1.5, record=("car.u",))
        t, u = out["time"], out["car.u"]
        sel = t > 0.5
        # m_eff du/dt = -(sigma0 m g + 1/2 rho C_d A u^2 + 4 (1/2 rho_w C_D b d u^2)), u < V_p
        theory = -(sigma0 * M * G + 0.5 * RHO * CDA * u[sel] ** 2
                   + 4 * 0.5 * rho_w * c_d * WIDTH * water * u[sel] ** 2) / m_eff
        decel[name] = np.polyfit(t[sel], u[sel], 1)[0]
        # measured: +0.007 % dry, +0.016 % wet
        assert decel[name] == pytest.approx(np.mean(theory), rel=5e-4)
    assert decel["wet"] < 2.5 * decel["dry"]         # the water more than doubles the slowing
