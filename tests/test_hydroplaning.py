"""Hydroplaning speeds against hand calculations from the published formulas, and the
friction and rolling-resistance multipliers' documented behaviour (docs/equations.md,
"Hydroplaning").

Hand calculations (1 psi = 6894.757 Pa, 1 mph = 0.44704 m/s, 1 in = 0.0254 m):

* NASA, 30 psi: 10.35 sqrt(30) = 10.35 * 5.47723 = 56.689 mph = 25.342 m/s.
* NASA-TTI, 30 psi, FAR 0.7: 7.95 sqrt(30 * 1.4 / 0.7) = 7.95 * 7.74597 = 61.580 mph
  = 27.529 m/s.
* Gallaway, 24 psi, tread 10/32 in, water 0.08 in, texture 0.02 in, spin-down 10 %:
  0.08^0.06 = 0.859380; A = max(10.409 / 0.859380 + 3.507, (28.952 / 0.859380 - 7.817)
  * 0.02^0.14) = max(15.6192, 14.9617) = 15.6192;
  V = 10^0.04 * 24^0.3 * 11^0.06 * A = 1.096478 * 2.594558 * 1.154738 * 15.6192
  = 51.310 mph = 22.938 m/s.
  With texture 0.1 in the texture branch governs: (33.6891 - 7.817) * 0.1^0.14 = 18.7429,
  V = 61.572 mph = 27.525 m/s.
"""
import math

import numpy as np
import pytest

from engine.hydroplaning import (DRAG_COEF, GALLAWAY, MODELS, NASA, NASA_TTI, OFF,
                                 RESIDUAL_FRICTION, RHO_WATER, footprint_aspect_ratio,
                                 hydroplaning_factors, hydroplaning_speed, model_code)

PSI = 6894.757293168
INCH = 0.0254
P30 = 30.0 * PSI
TREAD = 8.0e-3  # m
WET = 0.01  # m of water, deeper than the tread
TEXTURE = 0.5e-3  # m
FAR = 0.9
WIDTH = 0.2  # m
F_RR = 60.0  # N, a car tire's dry rolling resistance


def factors(model, speed, water=WET, pressure=P30, tread=TREAD, texture=TEXTURE, far=FAR,
            rolling=F_RR):
    return hydroplaning_factors(model, speed, water, pressure, tread, texture, far, WIDTH,
                                rolling)


def test_model_names():
    assert MODELS == {"off": OFF, "nasa": NASA, "nasa-tti": NASA_TTI, "gallaway": GALLAWAY}
    assert len(set(MODELS.values())) == 4 and OFF == 0


def test_nasa_speed_at_30_psi():
    assert hydroplaning_speed(NASA, WET, P30, TREAD, TEXTURE, FAR) == pytest.approx(
        25.342, abs=2e-3)


def test_nasa_tti_speed():
    assert hydroplaning_speed(NASA_TTI, WET, P30, TREAD, TEXTURE, 0.7) == pytest.approx(
        27.529, abs=2e-3)
    # a footprint of aspect ratio 1.4 gives 7.95 / 10.35 of the NASA speed
    assert (hydroplaning_speed(NASA_TTI, WET, P30, TREAD, TEXTURE, 1.4)
            / hydroplaning_speed(NASA, WET, P30, TREAD, TEXTURE, 1.4)) == pytest.approx(
        7.95 / 10.35, rel=1e-12)


def test_gallaway_speed():
    args = (0.08 * INCH, 24.0 * PSI, 10.0 / 32.0 * INCH)
    assert hydroplaning_speed(GALLAWAY, *args, 0.02 * INCH, FAR) == pytest.approx(
        22.938, abs=2e-3)
    assert hydroplaning_speed(GALLAWAY, *args, 0.1 * INCH, FAR) == pytest.approx(
        27.525, abs=2e-3)


def test_gallaway_trends():
    """Deeper water lowers V_p, a deeper tread and a higher pressure raise it."""
    vp = [hydroplaning_speed(GALLAWAY, d, P30, TREAD, TEXTURE, FAR)
          for d in (0.5e-3, 1e-3, 2e-3, 5e-3, 1e-2)]
    assert all(a > b for a, b in zip(vp, vp[1:]))
    assert (hydroplaning_speed(GALLAWAY, WET, P30, 2e-3, TEXTURE, FAR)
            < hydroplaning_speed(GALLAWAY, WET, P30, 8e-3, TEXTURE, FAR))
    assert (hydroplaning_speed(GALLAWAY, WET, 0.8 * P30, TREAD, TEXTURE, FAR)
            < hydroplaning_speed(GALLAWAY, WET, P30, TREAD, TEXTURE, FAR))


def test_no_hydroplaning_speed_dry_or_off():
    for model in (NASA, NASA_TTI, GALLAWAY):
        assert hydroplaning_speed(model, 0.0, P30, TREAD, TEXTURE, FAR) == math.inf
    assert hydroplaning_speed(OFF, WET, P30, TREAD, TEXTURE, FAR) == math.inf


def test_footprint_aspect_ratio():
    # width 0.2 m, radius 0.3 m, deflection 0.02 m: length 2 sqrt(0.02 * 0.58) = 0.215407 m
    assert footprint_aspect_ratio(0.2, 0.3, 0.02) == pytest.approx(0.928477, rel=1e-6)
    assert footprint_aspect_ratio(0.2, 0.3, 0.0) == math.inf


@pytest.mark.parametrize("model", [NASA, NASA_TTI, GALLAWAY])
def test_friction_falls_monotonically_and_continuously(model):
    vp = hydroplaning_speed(model, WET, P30, TREAD, TEXTURE, FAR)
    speeds = np.linspace(0.0, 2.0 * vp, 4001)
    f = np.array([factors(model, v)[0] for v in speeds])
    assert f[0] == 1.0
    assert np.all(np.diff(f) <= 0.0)
    # continuous: no step larger than the slope bound 2 (1 - r) / V_p allows
    dv = speeds[1] - speeds[0]
    assert np.max(np.abs(np.diff(f))) <= 2.0 * (1.0 - RESIDUAL_FRICTION) * dv / vp * (1 + 1e-9)
    # half the hydroplaning speed: the fluid carries a quarter of the load
    assert factors(model, 0.5 * vp)[0] == pytest.approx(1.0 - 0.25 * (1.0 - RESIDUAL_FRICTION))
    # at and above V_p the residual
    assert factors(model, vp)[0] == pytest.approx(RESIDUAL_FRICTION)
    assert factors(model, 1.5 * vp)[0] == pytest.approx(RESIDUAL_FRICTION)


@pytest.mark.parametrize("model", [NASA, NASA_TTI, GALLAWAY])
def test_shallow_water_engages_the_tire_partly(model):
    """Water half as deep as the tread: half the loss; a bald tire: all of it."""
    shallow = 0.5 * TREAD
    vp = hydroplaning_speed(model, shallow, P30, TREAD, TEXTURE, FAR)
    f = factors(model, 2.0 * vp, water=shallow)[0]
    assert f == pytest.approx(1.0 - 0.5 * (1.0 - RESIDUAL_FRICTION))
    vp_bald = hydroplaning_speed(model, shallow, P30, 0.0, TEXTURE, FAR)
    assert factors(model, 2.0 * vp_bald, water=shallow, tread=0.0)[0] == pytest.approx(
        RESIDUAL_FRICTION)


@pytest.mark.parametrize("model", [NASA, NASA_TTI, GALLAWAY])
def test_friction_is_continuous_in_water_depth(model):
    """From dry to a flooded road at a speed above V_p, without a step."""
    depths = np.linspace(0.0, 2.0 * TREAD, 2001)
    f = np.array([factors(model, 40.0, water=d)[0] for d in depths])
    assert f[0] == 1.0 and f[-1] == pytest.approx(RESIDUAL_FRICTION)
    assert np.all(np.diff(f) <= 0.0)
    # the loss grows at most at the slope (1 - r) / h_t of the engagement ramp
    step = depths[1] - depths[0]
    assert np.max(np.abs(np.diff(f))) <= (1.0 - RESIDUAL_FRICTION) * step / TREAD * (1 + 1e-9)


def test_model_code_names_the_field():
    assert model_code("nasa-tti") == NASA_TTI
    with pytest.raises(ValueError, match=r"simulation\.hydroplaning: 'nasa_tti' is not"):
        model_code("nasa_tti")


@pytest.mark.parametrize("model", [OFF, NASA, NASA_TTI, GALLAWAY])
def test_dry_road_is_unaffected(model):
    for v in (0.0, 10.0, 40.0, 80.0):
        assert factors(model, v, water=0.0) == (1.0, 1.0)


def test_off_is_unaffected_on_water():
    for v in (0.0, 10.0, 40.0, 80.0):
        assert factors(OFF, v, water=0.05) == (1.0, 1.0)


def test_rolling_resistance_multiplier():
    """R_rMult = 1 + 1/2 rho_w C_D b d V^2 / F_rr below V_p, held at its V_p value above."""
    vp = hydroplaning_speed(NASA, WET, P30, TREAD, TEXTURE, FAR)
    v = 10.0
    # 0.5 * 1000 * 0.75 * 0.2 * 0.01 * 100 = 75 N of water drag on 60 N of rolling resistance
    assert factors(NASA, v)[1] == pytest.approx(1.0 + 75.0 / 60.0, rel=1e-12)
    peak = 1.0 + 0.5 * RHO_WATER * DRAG_COEF * WIDTH * WET * vp * vp / F_RR
    assert factors(NASA, vp)[1] == pytest.approx(peak)
    assert factors(NASA, 1.5 * vp)[1] == pytest.approx(peak)
    r = [factors(GALLAWAY, s)[1] for s in np.linspace(0.0, 40.0, 81)]
    assert r[0] == 1.0 and np.all(np.diff(r) >= 0.0)
    # no dry rolling resistance to scale
    assert factors(NASA, v, rolling=0.0)[1] == 1.0
