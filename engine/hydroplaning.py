"""Hydroplaning: the friction a tire keeps on a wet road and the water drag in its rolling
resistance (the manual's hydroplaning option and Eq. 114's R_rMult).

The manual names three models (NASA, NASA-TTI, Gallaway) and says only that the chosen one
"reduces the available tire-road friction as a function of speed, water depth and tire
parameters" and scales the rolling resistance by R_rMult. The published hydroplaning speeds
are empirical and written in US units; each is implemented in its published form and its
inputs and result are converted here, so every argument and result is SI:

* NASA (Horne and Dreher 1963): V_p = 10.35 sqrt(p) mph, p the inflation pressure in psi;
* NASA-TTI (Horne, Yager and Ivey 1986; Ivey, Horne and Tonda 1986): the NASA speed
  corrected for the footprint's shape, V_p = 7.95 sqrt(p 1.4 / FAR) mph, FAR = footprint
  width / footprint length;
* Gallaway (Gallaway et al. 1979): V_p = SD^0.04 P^0.3 (TD + 1)^0.06 A mph,
  A = max(10.409 / WD^0.06 + 3.507, (28.952 / WD^0.06 - 7.817) TXD^0.14), with SD the wheel
  spin-down (percent) that defines hydroplaning, P in psi, TD the tread depth in 1/32 in, WD
  the water film thickness above the texture and TXD the texture depth, both in inches.

The effect on the tire (a choice: the sources give the speed, not the curve):

* friction multiplier ``f = 1 - (1 - RESIDUAL_FRICTION) e min(1, (V / V_p)^2)``. Horne's
  V_p is the speed at which the fluid's dynamic pressure (proportional to V^2) carries the
  whole load; below it the fluid carries the share (V / V_p)^2 and the dry contact the rest.
  ``e`` in [0, 1] is how far the water engages the tire, e = min(1, water depth / tread
  depth): the NASA forms hold for water deeper than the tread (Horne and Dreher), and for
  Gallaway, whose V_p depends only weakly on the depth (WD^-0.06), the same ramp keeps the
  friction continuous in the water depth (a micrometre of water must not cost the grip of a
  flooded road). A bald tire (tread depth 0) has e = 1 on any water.
* rolling-resistance multiplier ``R_rMult = 1 + F_w / F_rr``, with ``F_rr`` the dry rolling
  resistance force (sigma_0 F_R + sigma_v |u_GP|, Eq. 114) and ``F_w`` the displacement drag
  of the water the tire pushes aside, 1/2 rho_w C_D b d V^2 (b the tire width, d the water
  depth; Horne, Joyner and Leland 1960 measured it growing with V^2 and about linearly with
  d; C_D = 0.75 on the immersed frontal area b d is the value of the aircraft certification
  guidance for water and slush, EASA AMC 25.1591), growing to V_p and held at its value
  there above it (the tire rides on the water; Horne and Dreher observe the drag peak at
  V_p).

A dry road (water depth 0) and the model ``OFF`` give (1, 1). See docs/equations.md,
"Hydroplaning".
"""
import math

from .jit import njit

#: model codes, ``simulation.hydroplaning`` of the event
OFF = 0
NASA = 1
NASA_TTI = 2
GALLAWAY = 3
#: the event's names of the models
MODELS = {"off": OFF, "nasa": NASA, "nasa-tti": NASA_TTI, "gallaway": GALLAWAY}

#: unit conversions of the published (US) formulas
PSI = 6894.757293168  # Pa
MPH = 0.44704  # m/s
INCH = 0.0254  # m

#: NASA (Horne and Dreher 1963): V_p [mph] = NASA_COEF sqrt(p [psi])
NASA_COEF = 10.35
#: NASA-TTI (Horne, Yager and Ivey 1986): V_p [mph] = TTI_COEF sqrt(p [psi] TTI_FAR / FAR)
TTI_COEF = 7.95
TTI_FAR = 1.4
#: Gallaway et al. (1979): the wheel spin-down (percent) that defines hydroplaning, and the
#: regression's coefficients and exponents
GALLAWAY_SPIN_DOWN = 10.0
G_SD_EXP = 0.04
G_P_EXP = 0.3
G_TD_EXP = 0.06
G_WD_EXP = 0.06
G_TXD_EXP = 0.14
G_A1 = 10.409
G_A2 = 3.507
G_A3 = 28.952
G_A4 = 7.817
#: tread depth unit of Gallaway's TD, m (1/32 in)
G_TD_UNIT = INCH / 32.0

#: friction multiplier of a fully hydroplaning tire (the fluid's shear; a choice)
RESIDUAL_FRICTION = 0.1
#: density of water, kg/m^3
RHO_WATER = 1000.0
#: displacement drag coefficient of a tire in water, on the immersed frontal area (width x
#: depth), as in EASA AMC 25.1591
DRAG_COEF = 0.75


def model_code(name):
    """The code of the model named ``name`` (``simulation.hydroplaning`` of the event); a
    ValueError naming the field and the names it accepts otherwise."""
    if name not in MODELS:
        raise ValueError(f"simulation.hydroplaning: {name!r} is not a hydroplaning model; "
                         f"expected one of {', '.join(repr(k) for k in MODELS)}")
    return MODELS[name]


@njit
def footprint_aspect_ratio(tire_width, radius, deflection):
    """FAR = footprint width / footprint length of a tire of width ``tire_width`` and unloaded
    radius ``radius`` deflected by ``deflection`` (m): the length is the chord
    2 sqrt(delta (2 r - delta)) of the undeformed circle at the deflection. Infinite (a
    footprint of no length) when the tire is not deflected."""
    if deflection <= 0.0:
        return math.inf
    d = min(deflection, radius)
    return tire_width / (2.0 * math.sqrt(d * (2.0 * radius - d)))


@njit
def hydroplaning_speed(model_code, water_depth, inflation_pressure, tread_depth, texture_depth,
                       aspect_ratio):
    """The hydroplaning speed V_p (m/s) of a tire: ``inflation_pressure`` Pa, ``tread_depth`` m,
    on water ``water_depth`` m deep above a road of ``texture_depth`` m (Gallaway), with the
    footprint aspect ratio ``aspect_ratio`` (NASA-TTI, :func:`footprint_aspect_ratio`).

    Infinite for ``OFF`` and on a dry road (no hydroplaning). NASA and NASA-TTI depend on the
    pressure (and the footprint) only; whether the water is deep enough is the engagement of
    :func:`hydroplaning_factors`.
    """
    if model_code == OFF or water_depth <= 0.0:
        return math.inf
    p_psi = max(inflation_pressure, 0.0) / PSI
    if model_code == NASA:
        return NASA_COEF * math.sqrt(p_psi) * MPH
    if model_code == NASA_TTI:
        if not aspect_ratio > 0.0:
            return math.inf
        return TTI_COEF * math.sqrt(p_psi * TTI_FAR / aspect_ratio) * MPH
    # Gallaway
    td = max(tread_depth, 0.0) / G_TD_UNIT
    wd = water_depth / INCH
    txd = max(texture_depth, 0.0) / INCH
    w = wd ** G_WD_EXP
    a = max(G_A1 / w + G_A2, (G_A3 / w - G_A4) * txd ** G_TXD_EXP)
    return (GALLAWAY_SPIN_DOWN ** G_SD_EXP * p_psi ** G_P_EXP * (td + 1.0) ** G_TD_EXP * a
            * MPH)


@njit
def engagement(model_code, water_depth, tread_depth):
    """How far the water engages the tire, in [0, 1]: 0 dry or ``OFF``, else water depth /
    tread depth up to 1 (1 for a bald tire on any water)."""
    if model_code == OFF or water_depth <= 0.0:
        return 0.0
    if tread_depth <= 0.0:
        return 1.0
    return min(1.0, water_depth / tread_depth)


@njit
def hydroplaning_factors(model_code, speed, water_depth, inflation_pressure, tread_depth,
                         texture_depth, aspect_ratio, tire_width, rolling_force):
    """(friction multiplier, rolling-resistance multiplier R_rMult of Eq. 114) of a tire moving
    at ``speed`` (m/s, the contact patch's speed over the ground) on water ``water_depth`` m deep.

    ``tire_width`` (m) is the width that pushes the water aside; ``rolling_force`` (N) is the
    dry rolling resistance sigma_0 F_R + sigma_v |u_GP| that R_rMult scales (with none, 1).
    The other arguments are those of :func:`hydroplaning_speed`.
    """
    e = engagement(model_code, water_depth, tread_depth)
    if e <= 0.0:
        return 1.0, 1.0
    vp = hydroplaning_speed(model_code, water_depth, inflation_pressure, tread_depth,
                            texture_depth, aspect_ratio)
    v = abs(speed)
    if v >= vp:
        share = 1.0
    else:
        share = (v / vp) ** 2
    friction = 1.0 - (1.0 - RESIDUAL_FRICTION) * e * share
    if rolling_force <= 0.0:
        return friction, 1.0
    vw = min(v, vp)
    drag = 0.5 * RHO_WATER * DRAG_COEF * tire_width * water_depth * vw * vw
    return friction, 1.0 + drag / rolling_force
