"""Aerodynamics: relative wind and lumped surface forces and moments (Eq. 136-142)."""
import math

from .jit import njit, njit_inline
from .kinematics import to_earth, to_vehicle
from .layout import A_CA, A_CPX, A_CPY, A_CPZ

GAS_CONSTANT_AIR = 287.058  # J/(kg K)


def air_density(pressure, temperature):
    """rho = P_barometric / (R T) (after Eq. 140)."""
    return pressure / (GAS_CONSTANT_AIR * temperature)


def surface_constant(cd, area, rho):
    """C_A = C_d A rho / 2 (Eq. 140; the printed /2g is the weight-density form, see
    docs/equations.md)."""
    return 0.5 * cd * area * rho


@njit
def relative_wind(R, u, v, w, wind_speed, wind_dir):
    """Vehicle-fixed relative wind velocity (Eq. 136-139).

    wind_dir is the direction the wind comes from, from earth X; the wind velocity is
    S (cos(psi_w - pi), sin(psi_w - pi), 0) (Eq. 136).
    """
    vwx = wind_speed * math.cos(wind_dir - math.pi)
    vwy = wind_speed * math.sin(wind_dir - math.pi)
    VX, VY, VZ = to_earth(R, u, v, w)                 # Eq. 137
    return to_vehicle(R, vwx - VX, vwy - VY, -VZ)     # Eq. 138-139


@njit_inline
def surface_forces(P_AERO, s0, n, wx, wy, wz):
    """Eq. 140-142: sum of the surfaces' forces f = C_A |V| V, along the relative wind V, and
    their moments about the CG. Returns (Fx, Fy, Fz, Mx, My, Mz), vehicle-fixed."""
    Fx = Fy = Fz = Mx = My = Mz = 0.0
    speed = math.sqrt(wx * wx + wy * wy + wz * wz)
    for s in range(s0, s0 + n):
        ca = P_AERO[s, A_CA] * speed
        fx = ca * wx
        fy = ca * wy
        fz = ca * wz
        rx, ry, rz = P_AERO[s, A_CPX], P_AERO[s, A_CPY], P_AERO[s, A_CPZ]
        Fx += fx
        Fy += fy
        Fz += fz
        # r x f (Eq. 142 with the sign of each term taken from the cross product)
        Mx += ry * fz - rz * fy
        My += rz * fx - rx * fz
        Mz += rx * fy - ry * fx
    return Fx, Fy, Fz, Mx, My, Mz
