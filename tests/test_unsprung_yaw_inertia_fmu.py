"""The unsprung masses' own yaw inertias, sum I_z,Unsprung of Eq. 10 (``units[].axles[].
unsprung_yaw_inertia``, derived by default): its default, and through the built FMU (fmpy) the
yaw acceleration of the sedan under a step yaw moment against the closed form, without the
term, with its default and with a large one.

The moment: the car at rest, its brakes and drive on the table option 'force', a drive force
F = 1 kN at the left rear tire (``car.axle2.left.driveForce``) from t = 0: a yaw moment
N = F t_r / 2 about any point (and a force F along x, which turns nothing), on a car whose
other three tires stand on frictionless ground (``frictionMultiplier`` 0) so that only the
driven tire's lateral force, built up as its contact patch starts moving sideways, acts
against the turn. The yaw acceleration at t = 0 is the closed form's

    r' = N / I_z,G,   I_z,G = I_z,sprung + m_s x_G^2 + sum m_i ((x_i - x_G)^2 + y_i^2)
                              + sum I_z,Unsprung

(the planar rigid body about its CG x_G, the unsprung masses as points at the wheel centres,
Eq. 11-14, plus their own yaw inertias). It is read from the yaw rate after each of the first
eight 1 ms steps, r(t) = r'_0 t + a t^2 + b t^3 fitted by least squares.
"""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.setup.derived import unsprung_yaw_inertia, unsprung_yaw_inertias
from engine.setup.equilibrium import static_state
from engine.setup.event import DOUBLE_EVENT
from support.fmus import event_fmu
from support.run import run
from support.sedan import EV, MS, event_data

F_DRIVE = 1000.0
H = 0.001
STEPS = 8
#: a large yaw inertia per axle (kg m^2): the effect of the term well above the measurement's
HEAVY = 150.0


def _event(per_axle) -> dict:
    """The default event on the table options, each axle's unsprung_yaw_inertia ``per_axle``
    (None: the default)."""
    data = event_data()
    car = data["units"][0]
    car["brakes"]["method"] = "force"
    car["drivetrain"]["method"] = "force"
    if per_axle is not None:
        for axle in car["axles"]:
            axle["unsprung_yaw_inertia"] = per_axle
    return data


def yaw_inertia(unsprung: float) -> float:
    """I_z,G of the module docstring: the sedan's yaw inertia about its CG, the unsprung masses
    points at the wheel centres, plus ``unsprung``, the sum of their own yaw inertias."""
    masses = [(a["unsprung_mass_per_wheel"], a["x"], s * a["track"] / 2)
              for a in EV["axles"] for s in (-1, 1)]
    m = MS + sum(mi for mi, _, _ in masses)
    x_g = sum(mi * x for mi, x, _ in masses) / m
    return (EV["sprung_mass"]["inertia"][2] + MS * x_g ** 2
            + sum(mi * ((x - x_g) ** 2 + y ** 2) for mi, x, y in masses) + unsprung)


def closed_form(unsprung: float) -> float:
    return F_DRIVE * EV["axles"][1]["track"] / 2 / yaw_inertia(unsprung)


def measured(instance, fmu) -> float:
    """r'_0 from the FMU (module docstring)."""
    inst = instance(fmu).start()

    def push(t, i):
        i.set("car.axle2.left.driveForce", F_DRIVE)
        for w in ("car.axle1.left", "car.axle1.right", "car.axle2.right"):
            i.set(f"{w}.frictionMultiplier", 0.0)
    r = run(inst, STEPS * H, push, h=H, record=("car.r",))
    t = r["time"]
    return float(np.linalg.lstsq(np.column_stack([t, t ** 2, t ** 3]), r["car.r"], rcond=None)[0][0])


@pytest.fixture(scope="module")
def yaw_fmus(fmu_dir):
    return {name: event_fmu(fmu_dir, f"yaw_moment_{name}", _event(per_axle))
            for name, per_axle in (("without", 0.0), ("default", None), ("heavy", HEAVY))}


def test_the_default_is_the_wheels_as_discs_and_a_solid_axles_roll_inertia():
    """The sedan's four wheels are discs of their tires' spin inertia, each half of it about a
    diameter: 4 x 1.7 / 2 kg m^2. A solid axle (the double's) takes its roll inertia about its
    mass centre: the event's about the roll centre less m rho^2."""
    spin = sum(EV["tires"][a["tire"]]["spin_inertia"] for a in EV["axles"])
    assert unsprung_yaw_inertia(engine.load_event()) == pytest.approx(spin, rel=1e-15)
    event = engine.load_event(DOUBLE_EVENT)
    statics = static_state(event.model)[0]
    for unit, static in zip(event.model.units, statics):
        tires = [d for d in static.tire_deflections]
        for k, (axle, iz) in enumerate(zip(unit.axles, unsprung_yaw_inertias(unit, static))):
            sus = axle.suspension
            rho = sus.roll_center_height - (unit.tires[axle.tire].unloaded_radius - np.mean(tires[2 * k]))
            assert iz == pytest.approx(sus.axle_roll_inertia - 2 * axle.unsprung_mass_per_wheel * rho ** 2,
                                       rel=1e-12)
    given = engine.load_event(_event(HEAVY))
    assert unsprung_yaw_inertia(given) == 2 * HEAVY


@pytest.mark.parametrize("name, unsprung", [("without", 0.0), ("default", None), ("heavy", 2 * HEAVY)])
def test_a_step_yaw_moment_turns_the_car_by_the_closed_forms_yaw_acceleration(instance, yaw_fmus, name,
                                                                                 unsprung):
    """r'_0 against N / I_z,G: measured 4.6e-5 to 5.3e-5 above it in the three cases (I_z,G 2066.1,
    2069.5 and 2366.1 kg m^2; the unsprung masses' product of inertia I_xz = sum m x z, which
    couples the yaw to the roll, is not in the closed form: (sum m x z)^2 / (I_x I_z) = 6e-5).
    The default's term (3.4 kg m^2) is 1.6e-3 of the car's, 30 times that."""
    if unsprung is None:
        unsprung = unsprung_yaw_inertia(engine.load_event(_event(None)))
    got = measured(instance, yaw_fmus[name])
    assert got == pytest.approx(closed_form(unsprung), rel=2e-4)


def test_the_term_slows_the_turn_by_the_ratio_of_the_inertias(instance, yaw_fmus):
    """With and without the term the yaw accelerations are in the inverse ratio of the yaw
    inertias: measured within 1e-7 of it for the default and 7.6e-6 for 150 kg m^2 per axle
    (the closed form's leftover, nearly common to all three, cancels)."""
    without = measured(instance, yaw_fmus["without"])
    for name, unsprung in (("default", unsprung_yaw_inertia(engine.load_event(_event(None)))),
                           ("heavy", 2 * HEAVY)):
        ratio = measured(instance, yaw_fmus[name]) / without
        assert ratio == pytest.approx(yaw_inertia(0.0) / yaw_inertia(unsprung), rel=3e-5)
