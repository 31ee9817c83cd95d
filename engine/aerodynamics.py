"""Aerodynamics: relative wind, the six surfaces and two devices, their forces and moments
(Eq. 136-142).

Axes are SAE J670, vehicle-fixed (x forward, y right, z down). ``V`` is the relative wind of
Eq. 139: the velocity of the air relative to the vehicle (the wind less the vehicle's own
velocity), so a car driving forward in still air has ``V_x < 0``.

A *surface* (``front``, ``back``, ``left``, ``right``, ``top``, ``bottom``) is a flat plate
whose outward normal is ``n_a e_a``, along one vehicle axis ``a`` (x for front and back, y for
left and right, z for top and bottom; ``n_a = +1`` for front, right and bottom, ``-1`` for
back, left and top). It is struck only by the component ``V_a`` of the relative wind along
its axis, and only when that component blows onto it (``n_a V_a < 0``: a front surface sees
wind from ahead, a left surface wind from the left). Its force is along that axis alone,
``f_a = C_A V_a |V_a|`` (Eq. 140 read as ``V sgn(V) V``, see docs/equations.md), and zero in
the lee.

A *device* (``device1``, ``device2``: a wing, a spoiler) has a drag and a lift coefficient.
Its drag is along the whole relative wind, ``f_D = C_A,D |V| V``. Its lift is perpendicular
to the relative wind in the vehicle's x-z plane, from the wind's x-z part ``V_xz``:
``f_L = C_A,L |V_xz| (-V_z, 0, V_x)``. For wind from ahead (``V_x < 0``) a positive lift
coefficient lifts (force towards -z, up) and a negative one, the usual downforce, presses
the vehicle down (+z).

Each force acts at its element's centre of pressure ``r`` and gives the moment ``r x f``
about the CG (Eq. 142, whose printed M_z row has a typo).
"""
import math

from .jit import njit, njit_inline
from .kinematics import to_earth, to_vehicle
from .layout import A_AXIS, A_CA, A_CL, A_CPX, A_CPY, A_CPZ, A_FACE

GAS_CONSTANT_AIR = 287.058  # J/(kg K)

#: surface name -> (vehicle axis 0/1/2 = x/y/z, sign of its outward normal along that axis)
SURFACES = {"front": (0, 1), "back": (0, -1), "left": (1, -1), "right": (1, 1),
            "top": (2, -1), "bottom": (2, 1)}
#: the user-defined devices (drag and lift), packed with axis DEVICE_AXIS
DEVICES = ("device1", "device2")
#: every name an aerodynamic entry may have
AERO_NAMES = tuple(SURFACES) + DEVICES
DEVICE_AXIS = -1


def air_density(pressure, temperature):
    """rho = P_barometric / (R T) (after Eq. 140)."""
    return pressure / (GAS_CONSTANT_AIR * temperature)


def surface_constant(cd, area, rho):
    """C_A = C_d A rho / 2 (Eq. 140; the printed /2g is the weight-density form, see
    docs/equations.md). With a lift coefficient in place of C_d, the device's lift constant."""
    return 0.5 * cd * area * rho


@njit
def relative_wind(R, u, v, w, wind_speed, wind_dir):
    """Vehicle-fixed relative wind velocity (Eq. 136-139).

    wind_dir is the direction the wind comes from, from earth X; the wind velocity is
    S (cos(psi_w - pi), sin(psi_w - pi), 0) (Eq. 136).
    """
    vwx, vwy = 0.0, 0.0                 # calm: without the library calls
    if wind_speed != 0.0:
        vwx = wind_speed * math.cos(wind_dir - math.pi)
        vwy = wind_speed * math.sin(wind_dir - math.pi)
    VX, VY, VZ = to_earth(R, u, v, w)                 # Eq. 137
    return to_vehicle(R, vwx - VX, vwy - VY, -VZ)     # Eq. 138-139


@njit_inline
def surface_force(axis, face, ca, wx, wy, wz):
    """Eq. 140 for one surface: f_a = C_A V_a |V_a| along its axis ``axis`` when the wind
    component V_a blows onto its face (``face`` V_a < 0), else nothing. Returns (fx, fy, fz)."""
    va = wx if axis == 0 else (wy if axis == 1 else wz)
    if face * va >= 0.0:
        return 0.0, 0.0, 0.0
    f = ca * va * abs(va)
    if axis == 0:
        return f, 0.0, 0.0
    if axis == 1:
        return 0.0, f, 0.0
    return 0.0, 0.0, f


@njit_inline
def device_force(cd_a, cl_a, wx, wy, wz):
    """A device's drag C_A,D |V| V along the relative wind and lift C_A,L |V_xz| (-V_z, 0, V_x)
    perpendicular to it in the x-z plane (positive lift up, -z, for wind from ahead).
    Returns (fx, fy, fz)."""
    speed = math.sqrt(wx * wx + wy * wy + wz * wz)
    s_xz = math.sqrt(wx * wx + wz * wz)
    d = cd_a * speed
    lift = cl_a * s_xz
    return d * wx - lift * wz, d * wy, d * wz + lift * wx


@njit_inline
def surface_forces(P_AERO, s0, n, wx, wy, wz):
    """Eq. 140-142: the sum of the unit's surfaces' and devices' forces and their moments
    r x f about the CG. Returns (Fx, Fy, Fz, Mx, My, Mz), vehicle-fixed."""
    Fx = Fy = Fz = Mx = My = Mz = 0.0
    for s in range(s0, s0 + n):
        axis = int(P_AERO[s, A_AXIS])
        if axis < 0:
            fx, fy, fz = device_force(P_AERO[s, A_CA], P_AERO[s, A_CL], wx, wy, wz)
        else:
            fx, fy, fz = surface_force(axis, P_AERO[s, A_FACE], P_AERO[s, A_CA], wx, wy, wz)
        rx, ry, rz = P_AERO[s, A_CPX], P_AERO[s, A_CPY], P_AERO[s, A_CPZ]
        Fx += fx                                                  # Eq. 141
        Fy += fy
        Fz += fz
        Mx += ry * fz - rz * fy                                   # Eq. 142: r x f
        My += rz * fx - rx * fz
        Mz += rx * fy - ry * fx
    return Fx, Fy, Fz, Mx, My, Mz
