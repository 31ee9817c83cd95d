"""The differential gear table (Eq. 32, 50: eta_Differential "from driver controls, differential
gear table"): a two-speed axle, the event's ``drivetrain.differential_ratios`` and the FMU's
Integer input ``<unit>.differentialGear`` selecting one, through the built FMU.

The car is the reference sedan (its sheet as loaded from the default event) with its one
differential ratio 3.46 replaced by the two of a two-speed axle, 3.46 and 2.54 (a step of 1.36,
usual for such axles). The references are closed forms from the sheet: the tractive force
F = T_WOT(omega_e) N_t N_d / r (Eq. 32, 50, 51; the model has no driveline losses: efficiency
1) with omega_e = N_t N_d u / r, and the top speed where F equals the road load
sigma_0 m g + rho C_d A u^2 / 2 (Eq. 114, 140), never from the engine's own functions."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import engine

from support.fmus import event_fmu
from support.run import run
from support.sedan import CDA, EV, G, H, M, MS, MU, RHO, TIRE, WB, event_data, loaded_radius, static_loads

RATIOS = (3.46, 2.54)            # the two-speed axle: differential gears 1 and 2
DT = EV["drivetrain"]
RPM = 60.0 / (2.0 * math.pi)
WOT = np.array(DT["engine_wot_torque"], dtype=float)
REAR = ("car.axle2.left", "car.axle2.right")
SIGMA0 = TIRE["rolling_resistance"]["sigma0"]


def two_speed_data() -> dict:
    data = event_data()
    dt = data["units"][0]["drivetrain"]
    assert dt.pop("differential_ratio") == RATIOS[0]
    dt["differential_ratios"] = list(RATIOS)
    return data


@pytest.fixture(scope="module")
def two_speed_fmu(fmu_dir):
    return event_fmu(fmu_dir, "two_speed_axle", two_speed_data())


def t_wot(omega_e):
    """The sheet's WOT torque at engine speed omega_e (rad/s), N m."""
    return np.interp(np.asarray(omega_e) * RPM, WOT[:, 0], WOT[:, 1])


def h_cg() -> float:
    """Height of the whole car's CG: the sprung mass's and the wheels' (at their loaded radius)."""
    front, rear = static_loads()
    return (MS * H + 2 * MU * loaded_radius(front) + 2 * MU * loaded_radius(rear)) / M


# --- the event and the input ----------------------------------------------------------------

def test_the_event_takes_one_ratio_or_a_table_and_names_the_field():
    """``differential_ratio`` stays valid; ``differential_ratios`` is the table; one of the two,
    each error naming the field and what it accepts."""
    engine.load_event(two_speed_data())
    engine.load_event()                                 # the sheet's single ratio
    cases = [
        ({"differential_ratios": None}, "units[0].drivetrain: differential_ratio (a number > 0) or "
                                        "differential_ratios (the differential gear table: a list of "
                                        "1..4 numbers > 0, selected by the input differentialGear), one "
                                        "of them (got neither)"),
        ({"differential_ratio": 3.46}, "units[0].drivetrain: differential_ratio (a number > 0) or "
                                       "differential_ratios"),
        ({"differential_ratios": []}, "units[0].drivetrain.differential_ratios: a list of 1..4 items "
                                      "or null (got 0)"),
        ({"differential_ratios": [3.46, 2.54, 2.0, 1.5, 1.0]},
         "units[0].drivetrain.differential_ratios: a list of 1..4 items or null (got 5)"),
        ({"differential_ratios": [3.46, 0.0]},
         "units[0].drivetrain.differential_ratios[1]: a number > 0 (got 0.0)"),
    ]
    for change, message in cases:
        data = two_speed_data()
        data["units"][0]["drivetrain"].update(change)
        with pytest.raises(engine.EventError) as exc:
            engine.load_event(data)
        assert any(p.startswith(message) for p in exc.value.problems), exc.value.problems
        assert len(exc.value.problems) == 1, exc.value.problems     # no second, derived problem
    data = two_speed_data()
    data["units"][0]["drivetrain"]["differential_ratio"] = 3.46
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    assert exc.value.problems[0].endswith("one of them (got both)")


def test_the_input_is_declared_per_unit_and_refused_outside_the_table(instance, two_speed_fmu):
    """The FMU declares ``car.differentialGear`` an Integer input of 1..2, start 1 (the sheet's
    car: 1..1); a value outside, or a fraction in the engine, is refused naming it."""
    inst = instance(two_speed_fmu)
    v = next(v for v in inst.md.modelVariables if v.name == "car.differentialGear")
    assert (v.type, v.causality, v.variability, v.start, v.min, v.max) == \
        ("Integer", "input", "discrete", "1", "1", "2")
    inst.start({"car.speed0": 10.0})
    inst.set("car.differentialGear", 3)
    with pytest.raises(Exception):
        inst.fmu.doStep(0.0, 0.01)
    assert any("car.differentialGear = 3" in m and "1 .. 2" in m for m in inst.messages()), inst.messages()
    sim = engine.Simulation(engine.load_event(two_speed_data()))
    sim.u_unit[0, engine.UNIT_INPUTS.index("differentialGear")] = 1.5
    with pytest.raises(engine.InputError, match=r"car\.differentialGear: an integer differential gear"):
        sim.advance(0.01)
    single = engine.Simulation(engine.load_event())
    single.u_unit[0, engine.UNIT_INPUTS.index("differentialGear")] = 2
    with pytest.raises(engine.InputError, match=r"car\.differentialGear: a value in 1 \.\. 1 \(got 2\.0\)"):
        single.advance(0.01)


# --- tractive force --------------------------------------------------------------------------

@pytest.mark.parametrize("diff_gear", [1, 2])
def test_tractive_force_follows_the_selected_ratio(instance, two_speed_fmu, diff_gear):
    """Full throttle in third gear from 20 m/s, in differential gear 1 (3.46) and 2 (2.54).

    Eq. 50 and 32 with the selected ratio N = N_3 N_d: the engine turns at N times the mean
    rear-wheel spin (the clutch locked: the car starts in gear above idle) and each rear wheel
    receives half the clutch torque times N, the clutch torque being the engine's WOT torque
    less what accelerates the engine's inertia. The closed form from the sheet: the engine's
    tractive force F = T_WOT(N u / r) N / r (r the rear tires' loaded radius under the load
    the acceleration moves rearwards; efficiency 1) accelerates the car at
    a = (F - sigma_0 m g - rho C_d A u^2 / 2) / m_eff, m_eff = m + sum I_w / r^2 + I_dt N^2 / r^2,
    and reaches the driven wheels less the share that accelerates the driveline,
    F_d = F - I_dt N^2 a / r^2."""
    inst = instance(two_speed_fmu).start({"car.speed0": 20.0})
    inst.set("car.gear", 3)
    inst.set("car.differentialGear", diff_gear)
    inst.set("car.throttle", 1.0)
    h = 0.01
    r = run(inst, 2.0, h=h, record=("car.u", "car.ax", "car.engineSpeed", "car.clutchSlip")
            + tuple(w + ".spin" for w in REAR) + tuple(w + ".driveTorque" for w in REAR))
    n = DT["transmission_ratios"][2] * RATIOS[diff_gear - 1]
    spin = 0.5 * (r[REAR[0] + ".spin"] + r[REAR[1] + ".spin"])
    assert np.max(np.abs(r["car.engineSpeed"] / (n * spin) - 1)) < 1e-6              # Eq. 50
    assert np.max(np.abs(r["car.clutchSlip"])) < 1e-6
    clutch = t_wot(r["car.engineSpeed"]) - DT["inertia"] * np.gradient(r["car.engineSpeed"], h)
    band = slice(50, -1)             # after the first 0.5 s (slip and pitch settle)
    for w in REAR:                                                                     # Eq. 32
        assert np.max(np.abs(r[w + ".driveTorque"][band] / (clutch[band] * n / 2) - 1)) < 5e-4
    # the closed form, from the sheet alone
    front, rear = static_loads()
    u = r["car.u"]
    a = np.zeros_like(u)
    for _ in range(5):
        r_r = loaded_radius(rear + M * a * h_cg() / WB / 2)
        force = t_wot(n * u / r_r) * n / r_r
        m_eff = (M + 2 * TIRE["spin_inertia"] / loaded_radius(front - M * a * h_cg() / WB / 2) ** 2
                 + 2 * TIRE["spin_inertia"] / r_r ** 2 + DT["inertia"] * n ** 2 / r_r ** 2)
        a = (force - SIGMA0 * M * G - 0.5 * RHO * CDA * u ** 2) / m_eff
    at_wheels = force - DT["inertia"] * n ** 2 * a / r_r ** 2
    measured = (r[REAR[0] + ".driveTorque"] + r[REAR[1] + ".driveTorque"]) / r_r
    force_error = np.max(np.abs(measured[band] / at_wheels[band] - 1))
    accel_error = np.mean(r["car.ax"][band]) / np.mean(a[band]) - 1
    print(f"differential gear {diff_gear} (N_d {RATIOS[diff_gear - 1]}): tractive force at the "
          f"wheels {np.mean(measured[band]):.1f} N against {np.mean(at_wheels[band]):.1f} N of the "
          f"closed form (engine's {np.mean(force[band]):.1f} N; largest difference {force_error:.2%}), "
          f"acceleration {np.mean(r['car.ax'][band]):.4f} against {np.mean(a[band]):.4f} m/s^2 "
          f"({accel_error:+.2%})")
    assert force_error < 0.005                    # measured 0.23 % (gear 1), 0.24 % (gear 2)
    assert abs(accel_error) < 0.005               # measured +0.04 %, +0.28 %


# --- top speed ----------------------------------------------------------------------------------

def top_speed(n: float) -> float:
    """The speed at which the tractive force at WOT, T_WOT(n u / r) n / r, equals the road load
    sigma_0 m g + rho C_d A u^2 / 2, r the rear tires' loaded radius under the load the drag
    moves onto them (its moment about the ground, drag x the centre of pressure's height,
    over the wheelbase; the car's CG and the aero centre of pressure from the sheet)."""
    _, rear = static_loads()
    (surface,) = EV["aerodynamics"]
    h_cp = H - surface["center_of_pressure"][2]          # z down: above the sprung CG

    def excess(u):
        drag = 0.5 * RHO * CDA * u * u
        r_r = loaded_radius(rear + drag * h_cp / WB / 2)
        return t_wot(n * u / r_r) * n / r_r - SIGMA0 * M * G - drag
    return brentq(excess, 20.0, 75.0, xtol=1e-9)


def _mean_acceleration(instance, fmu, diff_gear, speed0, name):
    inst = instance(fmu, name=name).start({"car.speed0": speed0})
    inst.set("car.gear", 5)
    inst.set("car.differentialGear", diff_gear)
    inst.set("car.throttle", 1.0)
    r = run(inst, 3.0, record=("car.u", "car.ax", "car.engineSpeed"))
    band = slice(100, None)          # from 1 s on (the start's slip and pitch settled)
    return float(np.mean(r["car.u"][band])), float(np.mean(r["car.ax"][band])), \
        float(np.max(r["car.engineSpeed"]) * RPM)


@pytest.mark.parametrize("diff_gear", [1, 2])
def test_top_speed_follows_the_selected_ratio(instance, two_speed_fmu, diff_gear):
    """Full throttle in fifth gear, started 2 % below and 2 % above the closed-form top speed
    of the selected differential gear: the car accelerates below it and slows above it, and the
    speed where the acceleration crosses zero (linear between the two runs) is the closed form's
    (both top speeds below the end of the WOT map, where the fuel is cut: drag-limited)."""
    n = DT["transmission_ratios"][4] * RATIOS[diff_gear - 1]
    v_top = top_speed(n)
    u_lo, a_lo, rpm_lo = _mean_acceleration(instance, two_speed_fmu, diff_gear, 0.98 * v_top, "below")
    u_hi, a_hi, rpm_hi = _mean_acceleration(instance, two_speed_fmu, diff_gear, 1.02 * v_top, "above")
    assert a_lo > 0.0 > a_hi
    assert max(rpm_lo, rpm_hi) < WOT[-1, 0]
    measured = u_lo - a_lo * (u_hi - u_lo) / (a_hi - a_lo)
    print(f"differential gear {diff_gear} (N_d {RATIOS[diff_gear - 1]}): top speed {measured:.3f} m/s, "
          f"closed form {v_top:.3f} m/s ({measured / v_top - 1:+.3%})")
    assert measured == pytest.approx(v_top, rel=3e-3)     # measured -0.16 % (gear 1), +0.01 % (gear 2)


# --- a shift of the axle in a run ----------------------------------------------------------------

def test_shifting_the_axle_in_a_run_changes_the_engine_speed_by_the_ratio(instance, two_speed_fmu):
    """Cruising in fourth gear at 20 m/s with a light throttle, the axle shifted from gear 1 to
    gear 2 at 1 s: once the clutch has locked again the engine turns at N_4 N_d2 times the mean
    rear-wheel spin, 2.54 / 3.46 of what it turned at before at the same wheel speed."""
    inst = instance(two_speed_fmu).start({"car.speed0": 20.0})
    inst.set("car.gear", 4)
    inst.set("car.throttle", 0.2)
    record = ("car.engineSpeed", "car.clutchSlip") + tuple(w + ".spin" for w in REAR)
    before = run(inst, 1.0, record=record)
    inst.set("car.differentialGear", 2)
    after = run(inst, 4.0, record=record)
    n4 = DT["transmission_ratios"][3]
    for rec, d in ((before, RATIOS[0]), (after, RATIOS[1])):
        spin = 0.5 * (rec[REAR[0] + ".spin"][-1] + rec[REAR[1] + ".spin"][-1])
        assert rec["car.engineSpeed"][-1] == pytest.approx(n4 * d * spin, rel=1e-6)
        assert abs(rec["car.clutchSlip"][-1]) < 1e-6
