"""Terrain: the three questions a tire asks about the ground under it — elevation, surface
normal and friction multiplier (HVE's GetSurfaceInfo(), Eq. 80). This version is flat,
level ground of uniform friction; other surfaces answer the same three questions."""
from .jit import njit
from .layout import E_GROUND_Z, E_MU


@njit
def surface(P_ENV, X, Y):
    """(elevation Z, normal pointing down (nx, ny, nz), friction multiplier) at earth X, Y."""
    return P_ENV[E_GROUND_Z], 0.0, 0.0, 1.0, P_ENV[E_MU]
