"""The linear quarter car of the reference sedan, and its body's vertical acceleration on a
random road in closed form (frequency domain), independent of the engine.

One corner of an axle: a sprung mass m_s over the suspension (the event's ``spring_rate`` and
``damping``, N/m and N s/m per wheel at the wheel: the engine applies them along the wheel's
travel, no motion ratio), the unsprung mass m_u on the tire's radial rate k_t (its initial
stiffness, Eq. 93: the sedan's deflections stay below the secondary stiffness's delta_2), the
road z_r under the tire. With s = i omega, z up:

    (m_s s^2 + c s + k) Z_s = (c s + k) Z_u
    (m_u s^2 + c s + k + k_t) Z_u = (c s + k) Z_s + k_t Z_r

    H(omega) = s^2 Z_s / Z_r = s^2 k_t (c s + k) / ((m_s s^2 + c s + k)(m_u s^2 + c s + k + k_t)
                                                    - (c s + k)^2)

the body's acceleration per unit road elevation. A road of lines A_j cos(2 pi n_j x + phi_j)
(simon_fmu.tools.rough_road) driven at V gives lines at omega_j = 2 pi n_j V, and the
acceleration's mean square over a period is exactly sum |H(omega_j)|^2 A_j^2 / 2 (the
continuous form: the integral of |H(2 pi n V)|^2 Gd(n) dn over the band).

On a mesh or OpenCRG road the tire meets the road's envelope over its contact length
(docs/equations.md, "Tread envelope on mesh and OpenCRG roads"): for a road small against the
tire's deflection, the mean of the road over the contact chord L (the disc gains the road's
area over the chord, and a segment's area grows by L per unit depth), a moving average whose
response to a line of n cycles/m is sinc(n L) = sin(pi n L) / (pi n L) (:meth:`envelope`); L
is the chord of the unloaded circle at the static deflection (:func:`contact_length`).

The sedan as quarter cars (:func:`axle_corners`): its pitch inertia is close to m_s a b (the
dynamic index I_y / (m_s a b) is 0.986), for which the body's points above the two axles move
independently, each as a quarter car of sprung mass m_s b / L / 2 (front) and m_s a / L / 2
(rear) per wheel. The body at the CG is their lever-rule blend, the rear seeing the front's
road L / V later: a_CG = (b a_f + a a_r) / L (:func:`cg_response`). Both tracks carry the same
profile, so the car does not roll and its anti-sway bars do nothing. The whole linear pitch
plane (:func:`pitch_plane_response`: the body's heave and pitch with I_y as it is, and the two
axles' wheels) checks the blend.

The suspension's Coulomb friction (the event's ``coulomb_friction``, F sat(v / 0.01 m/s) on the
stroke velocity v, docs/equations.md) is not linear. :func:`with_friction` replaces it by the
viscous damping that dissipates as much at the stroke velocity's RMS sigma on the road (the
statistical linearisation of a Gaussian v: E[v F sat(v / e)] / sigma^2 =
(F / e) erf(e / (sigma sqrt 2)), F sqrt(2 / pi) / sigma when sigma >> e), solved with sigma
by a fixed point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from support.sedan import A_S, B_S, EV, MS, WB, lever_loads


@dataclass(frozen=True)
class QuarterCar:
    """One corner: sprung mass, unsprung mass (kg), suspension rate (N/m), damping (N s/m) and
    tire rate (N/m)."""
    ms: float
    mu: float
    k: float
    c: float
    kt: float
    friction: float = 0.0
    contact: float = 0.0

    def envelope(self, omega, speed: float) -> np.ndarray:
        """The tire's envelope of a road line at omega (rad/s) driven at ``speed``: the moving
        average over the contact length, sinc(n L), n = omega / (2 pi V) (1: a point contact)."""
        return np.sinc(np.asarray(omega, dtype=float) / (2 * math.pi * speed) * self.contact)

    def body_acceleration(self, omega) -> np.ndarray:
        """H(omega): the sprung mass's acceleration per unit road elevation (complex)."""
        s = 1j * np.asarray(omega, dtype=float)
        link = self.c * s + self.k
        det = (self.ms * s ** 2 + link) * (self.mu * s ** 2 + link + self.kt) - link ** 2
        return s ** 2 * self.kt * link / det

    def stroke_velocity(self, omega) -> np.ndarray:
        """The suspension's stroke velocity (body less wheel) per unit road elevation: from
        the body's equation, s (Z_s - Z_u) = -m_s s H / (c s + k)."""
        s = 1j * np.asarray(omega, dtype=float)
        return -self.ms * s * self.body_acceleration(omega) / (self.c * s + self.k)

    def natural_frequencies(self) -> tuple[float, float]:
        """The undamped body and wheel-hop frequencies, Hz."""
        m = np.array([[self.ms, 0.0], [0.0, self.mu]])
        k = np.array([[self.k, -self.k], [-self.k, self.k + self.kt]])
        w2 = np.sort(np.linalg.eigvals(np.linalg.solve(m, k)).real)
        return tuple(float(math.sqrt(w) / (2 * math.pi)) for w in w2)


def contact_length(load: float, tire: dict) -> float:
    """The tire's contact length at ``load``: the chord of its unloaded circle (radius r) at the
    deflection delta = load / k_t (below delta_2), 2 sqrt(2 r delta - delta^2)."""
    r, d = tire["unloaded_radius"], load / tire["radial_stiffness"]
    return 2.0 * math.sqrt(2.0 * r * d - d * d)


def axle_corners(unit: dict = EV) -> tuple[QuarterCar, QuarterCar]:
    """The front and rear quarter cars of the sedan: sprung mass m_s b / L / 2 and
    m_s a / L / 2 per wheel, each axle's unsprung mass, spring, damper and tire, its contact
    length at the lever rule's static load."""
    corners = []
    for axle, share, load in zip(unit["axles"][:2], (B_S / WB, A_S / WB), lever_loads(unit)):
        susp, tire = axle["suspension"], unit["tires"][axle["tire"]]
        corners.append(QuarterCar(ms=MS * share / 2, mu=axle["unsprung_mass_per_wheel"],
                                  k=susp["spring_rate"], c=susp["damping"],
                                  kt=tire["radial_stiffness"],
                                  friction=susp["coulomb_friction"],
                                  contact=contact_length(load, tire)))
    return tuple(corners)


#: the null band of the suspension's Coulomb friction, m/s (docs/equations.md)
NULL_BAND = 0.01


def friction_damping(force: float, sigma: float) -> float:
    """The viscous damping equivalent to the friction ``force`` F sat(v / NULL_BAND) for a
    Gaussian stroke velocity of RMS ``sigma``: (F / e) erf(e / (sigma sqrt 2))."""
    return force / NULL_BAND * math.erf(NULL_BAND / (sigma * math.sqrt(2.0)))


def with_friction(corner: QuarterCar, n, amplitude, speed: float) -> QuarterCar:
    """``corner`` with its friction linearised on the road of lines ``n``, ``amplitude`` at
    ``speed``: damping c + friction_damping(F, sigma), sigma the stroke velocity's RMS that
    damping gives (a fixed point, to 1e-9 N s/m)."""
    linear = replace(corner, friction=0.0)
    for _ in range(200):
        sigma = rms_on_lines(lambda w: linear.stroke_velocity(w) * linear.envelope(w, speed), n,
                             amplitude, speed)
        c = corner.c + friction_damping(corner.friction, sigma)
        if abs(c - linear.c) < 1e-9:
            break
        linear = replace(linear, c=c)
    return linear


def dynamic_index(unit: dict = EV) -> float:
    """I_y / (m_s a b): 1 when the body's points above the axles are uncoupled."""
    return unit["sprung_mass"]["inertia"][1] / (MS * A_S * B_S)


def cg_response(omega, speed: float, corners=None) -> np.ndarray:
    """The body's acceleration at the sprung CG per unit road elevation under the front
    wheels: (b H_f E_f + a H_r E_r e^(-i omega L / V)) / L, with the (front, rear) ``corners``
    (default :func:`axle_corners`, friction left out), E their tires' envelopes."""
    front, rear = corners or axle_corners()
    omega = np.asarray(omega, dtype=float)
    delay = np.exp(-1j * omega * WB / speed)
    return (B_S * front.body_acceleration(omega) * front.envelope(omega, speed)
            + A_S * rear.body_acceleration(omega) * rear.envelope(omega, speed) * delay) / WB


def pitch_plane_response(omega, speed: float, x: float = 0.0, unit: dict = EV) -> np.ndarray:
    """The linear pitch plane's body acceleration (z up) at ``x`` ahead of the sprung CG per
    unit road elevation under the front wheels: the body's heave z and pitch theta (mass m_s,
    inertia I_y; its point x at z + x theta), each axle's two wheels as one mass on its two
    springs, dampers and tires (on the road's envelope, :meth:`QuarterCar.envelope`), the rear
    on the road L / V later."""
    front, rear = unit["axles"][:2]
    mass = np.diag([MS, unit["sprung_mass"]["inertia"][1], 2 * front["unsprung_mass_per_wheel"],
                    2 * rear["unsprung_mass_per_wheel"]])
    stiffness, damping = np.zeros((4, 4)), np.zeros((4, 4))
    tires = []
    for j, (axle, lever) in enumerate(((front, A_S), (rear, -B_S))):
        stroke = np.array([1.0, lever, 0.0, 0.0])            # body point less wheel
        stroke[2 + j] = -1.0
        stiffness += 2 * axle["suspension"]["spring_rate"] * np.outer(stroke, stroke)
        damping += 2 * axle["suspension"]["damping"] * np.outer(stroke, stroke)
        tires.append(2 * unit["tires"][axle["tire"]]["radial_stiffness"])
    stiffness[2, 2] += tires[0]
    stiffness[3, 3] += tires[1]
    lengths = [contact_length(load, unit["tires"][a["tire"]])
               for a, load in zip((front, rear), lever_loads(unit))]
    out = []
    for w in np.atleast_1d(np.asarray(omega, dtype=float)):
        s = 1j * w
        n = w / (2 * math.pi * speed)
        force = np.array([0.0, 0.0, tires[0] * np.sinc(n * lengths[0]),
                          tires[1] * np.sinc(n * lengths[1]) * np.exp(-s * WB / speed)])
        q = np.linalg.solve(mass * s ** 2 + damping * s + stiffness, force)
        out.append(s ** 2 * (q[0] + x * q[1]))
    return np.array(out)


def rms_on_lines(response, n, amplitude, speed: float) -> float:
    """The RMS of a response (per unit road elevation, a function of omega) to the road of
    lines ``n`` (cycles/m) and ``amplitude`` (m) at ``speed``: sqrt(sum |H|^2 A^2 / 2)."""
    h = response(2 * math.pi * np.asarray(n) * speed)
    return float(math.sqrt(np.sum(np.abs(h) ** 2 * np.asarray(amplitude) ** 2) / 2))


def rms_on_psd(response, psd, band, speed: float, points: int = 20001) -> float:
    """The same for the continuous PSD ``psd(n)`` (m^3) over ``band``: the integral of
    |H(2 pi n V)|^2 Gd(n) dn, on a logarithmic grid."""
    n = np.geomspace(band[0], band[1], points)
    f = np.abs(response(2 * math.pi * n * speed)) ** 2 * psd(n)
    return float(math.sqrt(np.trapezoid(f * n, np.log(n))))
