"""The tread's envelope of a mesh road (an OpenCRG road is one): the effective road plane a
tire meets over its contact length, so that a step, a kerb or a pothole loads it continuously.

The manual's contact (Eq. 80-92) takes the road under the wheel centre as its local plane. On a
mesh with a step that plane jumps as the centre crosses the step's edge, and the tire's load
with it (by the step's height times the tire's stiffness, in one integration step). Here, on
a mesh road, the tire is a disc of its unloaded radius r_u in the vertical plane through the
wheel centre along its heading h (the horizontal direction of the wheel plane), and the road
a profile in that plane (docs/equations.md, "Tread envelope on mesh and OpenCRG roads"):

* **the profile**: the road's section under the heading over s in [-r_u, r_u] from the centre,
  found by walking the road triangles (:func:`walk`): each triangle's interval along the line,
  exactly, from its edges; the walk then looks just past its exit. Where no road triangle
  lies (a standing polygon's footprint, the steep cell of an OpenCRG step, a crack), the walk
  steps on by :data:`GAP_STEP` until it finds the road again, and the profile bridges the gap
  with a straight line from the last road point to the first (the face of the step). A
  vertical face has no footprint: the profile jumps there, between two triangles;
* **across the tread**: the road under the tread's width 2 w (w the tire's half width) on the
  line through the centre along the axle's horizontal direction l, bridged in the same way,
  its ends held level where the road stops; the longitudinal profile is shifted by the mean of
  that lateral section less its value at the centre, so that a step that runs along the
  heading rises under the tread as the tread crosses it, not when the centre does;
* **the interference**: the region of the disc below the profile, its area A and first
  moments about the centre, in closed form per straight piece of the profile
  (:func:`piece_moments`);
* **the effective plane**: the plane whose circular segment has the same area A (its depth
  delta_e = r_u (1 - cos theta), theta from A = r_u^2 (theta - sin theta cos theta),
  :func:`segment_angle`), normal to the direction d from the centre to the area's centroid, in
  the section; across the tread it has the road's cross slope under the centre. The
  manual's contact (Eq. 85-92) then meets that plane as it meets any.

On a plane road the interference is the plane's circular segment, whose centroid lies on the
plane's normal from the centre: the effective plane is the road's plane (to rounding), and the
tire's contact is the manual's. On flat ground and on external road inputs the engine keeps
the point contact (``engine.terrain``); only mesh roads take this path (``engine.vehicle``).
"""
import math

from .jit import dynamic, njit
from .layout import E_MU, E_TERRAIN_TOP
from .terrain_mesh import line_interval, mesh_triangle, plane_z

#: the step (m) with which a walk along the road crosses a stretch with no road triangle (a
#: standing polygon's footprint, the steep cell of an OpenCRG step, a hole) to find the road
#: beyond it
GAP_STEP = 0.01
#: how far past a road triangle's exit a walk looks for the next one, m
WALK_EPS = 1.0e-6
#: pieces of the profile shorter than this (m) carry no area (their share is below rounding)
PIECE_MIN = 1.0e-9
#: a walk has no bound on its road look-ups: every look-up moves it on along the line, by at
#: least WALK_EPS (or GAP_STEP across a gap), so it ends, and its cost follows the cells it
#: crosses (over 0.7 m, about 140 of 1 cm cells, 700 of 2 mm, 7000 of 0.2 mm). A bound of
#: 400 look-ups, later 4000, dropped the rest of the profile on cells finer than 3.5 mm, then
#: 0.35 mm, under no error (tests/test_envelope.py)
#: how far beyond either end of the contact length (m) a walk looks for the road across a gap
#: that reaches the end, to bridge it (an OpenCRG step's cell, a kerb's sloping face)
GAP_REACH = 0.5
#: the most look-ups back from a triangle found past a gap, for a road triangle stepped over
MAX_BACK = 8
#: iterations of the segment angle's safeguarded Newton solution, and its tolerance (rad)
SEGMENT_ITERATIONS = 60
SEGMENT_TOL = 1.0e-15
#: the least horizontal part of a wheel's axle for which the wheel has a heading (below it
#: the wheel lies flat and the heading is earth X)
HEADING_MIN = 1.0e-9
#: the least first moment of the interference, over its area times the radius, that gives it a
#: direction (a disc wholly inside the road has its centroid at its centre)
MOMENT_MIN = 1.0e-9
#: walk modes: the disc's interference moments (along the heading), the section's integrals
#: (across the tread)
MODE_DISC, MODE_SECTION = 0, 1
#: how far (m) the disc's lower arc keeps above the terrain's highest point where a walk in
#: MODE_DISC leaves the profile out (:func:`disc_span`): beyond the rounding of the arc's
#: height near the disc's rim (sqrt of a difference of squares of r: some 4e-9 m) and of the
#: road's heights at survey coordinates (plane_z at 5e6 m: some 1e-8 m on a steep triangle)
CLEAR_MARGIN = 1.0e-6


@njit
def _g(r, x):
    """A primitive of sqrt(r^2 - x^2)."""
    q = math.sqrt(max(r * r - x * x, 0.0))
    return 0.5 * (x * q + r * r * math.asin(min(1.0, max(-1.0, x / r))))


@njit
def _h(r, x):
    """A primitive of x sqrt(r^2 - x^2)."""
    q = max(r * r - x * x, 0.0)
    return -q * math.sqrt(q) / 3.0


@njit
def _strip(r, sa, ua, beta, x0, x1):
    """The moments (A, M_s, M_u) over x0 <= s <= x1 of the disc of radius r about the origin
    (s along the heading, u up) below the line u = ua + beta (s - sa), when the line does not
    cross the circle inside the strip (it is above, inside or below it throughout)."""
    if x1 <= x0:
        return 0.0, 0.0, 0.0
    m = 0.5 * (x0 + x1)
    um = ua + beta * (m - sa)
    w = math.sqrt(max(r * r - m * m, 0.0))
    if um >= w:      # above the disc: the whole chord
        return 2.0 * (_g(r, x1) - _g(r, x0)), 2.0 * (_h(r, x1) - _h(r, x0)), 0.0
    if um <= -w:     # below it: nothing
        return 0.0, 0.0, 0.0
    # from the lower arc up to the line
    u0 = ua + beta * (x0 - sa)
    u1 = ua + beta * (x1 - sa)
    dx = x1 - x0
    area = 0.5 * dx * (u0 + u1) + _g(r, x1) - _g(r, x0)
    ms = dx / 6.0 * (x0 * (2.0 * u0 + u1) + x1 * (u0 + 2.0 * u1)) + _h(r, x1) - _h(r, x0)
    mu = 0.5 * (dx * (u0 * u0 + u0 * u1 + u1 * u1) / 3.0 - r * r * dx
                + (x1 * x1 * x1 - x0 * x0 * x0) / 3.0)
    return area, ms, mu


@njit
def piece_moments(r, sa, ua, sb, ub):
    """The area and first moments (A, M_s, M_u) of the part of the disc of radius r about the
    origin (s along the heading, u up) that lies below the straight piece of profile from
    (sa, ua) to (sb, ub) (sa < sb) and over it: split where the piece crosses the circle, each
    part in closed form (:func:`_strip`)."""
    lo = max(sa, -r)
    hi = min(sb, r)
    ds = sb - sa
    if hi <= lo or ds < PIECE_MIN:
        return 0.0, 0.0, 0.0
    du = ub - ua
    beta = du / ds
    # the piece's points sa + t ds, ua + t du on the circle: a quadratic in t
    qa = ds * ds + du * du
    qb = sa * ds + ua * du
    qc = sa * sa + ua * ua - r * r
    disc = qb * qb - qa * qc
    c1, c2 = hi, hi
    if disc > 0.0:
        root = math.sqrt(disc)
        c1 = min(max(sa + (-qb - root) / qa * ds, lo), hi)
        c2 = min(max(sa + (-qb + root) / qa * ds, lo), hi)
        if c2 < c1:
            c1, c2 = c2, c1
    a1, s1, u1 = _strip(r, sa, ua, beta, lo, c1)
    a2, s2, u2 = _strip(r, sa, ua, beta, c1, c2)
    a3, s3, u3 = _strip(r, sa, ua, beta, c2, hi)
    return a1 + a2 + a3, s1 + s2 + s3, u1 + u2 + u3


@njit
def segment_angle(area, r):
    """The half angle theta of the circular segment of a disc of radius r whose area is
    ``area``: r^2 (theta - sin theta cos theta) = area, theta in [0, pi]. Newton's method from
    the series of the small segment's inverse, theta = x (1 + x^2/15 + 2 x^4/175) with
    x = (3 area / (2 r^2))^(1/3) (area / r^2 = 2 theta^3/3 - 2 theta^5/15 + 4 theta^7/315 - ...),
    kept within the bracket [0, pi] the iterates narrow (bisecting when a step leaves it), to a
    step of SEGMENT_TOL."""
    if area <= 0.0:
        return 0.0
    if area >= math.pi * r * r:
        return math.pi
    target = area / (r * r)
    lo, hi = 0.0, math.pi
    x = (1.5 * target) ** (1.0 / 3.0)
    x2 = x * x
    th = min(x * (1.0 + x2 * (1.0 / 15.0 + x2 * 2.0 / 175.0)), math.pi)
    for _ in range(SEGMENT_ITERATIONS):
        f = th - math.sin(th) * math.cos(th) - target
        if f == 0.0:
            return th
        if f > 0.0:
            hi = th
        else:
            lo = th
        slope = 2.0 * math.sin(th) ** 2
        step = f / slope if slope > 0.0 else th - 0.5 * (lo + hi)
        nxt = th - step
        if abs(step) <= SEGMENT_TOL:
            return nxt
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        th = nxt
    return th


@njit
def _add(mode, r, cz, shift, sa, za, sb, zb):
    """One straight piece of profile from (sa, za) to (sb, zb) (earth Z, down +): its disc
    moments (MODE_DISC: the disc about the height cz, the profile raised by -shift) or its
    section integrals (MODE_SECTION: int z ds, int s z ds, its length)."""
    if mode == MODE_DISC:
        return piece_moments(r, sa, cz - za - shift, sb, cz - zb - shift)
    d = sb - sa
    return (0.5 * d * (za + zb), d / 6.0 * (sa * (2.0 * za + zb) + sb * (za + 2.0 * zb)), d)


@njit
def disc_span(r, cz, shift, top, L):
    """The half length s* of the profile along the heading that can meet the disc: for |s| > s*
    its lower arc, at the height sqrt(r^2 - s^2) below the centre, is above the terrain's
    highest point ``top`` (earth Z, down +) raised by the tread's ``shift`` (u = cz - z -
    shift, u up: every road point and every bridge between two has u <= cz - top - shift =
    -D), by :data:`CLEAR_MARGIN`: s* = sqrt(r^2 - (D - margin)^2), 0 where the whole disc
    clears it, L where the terrain may reach the centre's height."""
    d = top + shift - cz - CLEAR_MARGIN
    if not d > 0.0:
        return L
    return min(L, math.sqrt(max(r * r - d * d, 0.0)))


@njit
def walk(TR_TRI, TR_NRM, TR_GRID, TR_START, TR_CELL, X0, Y0, hx, hy, L, mode, r, cz, shift,
         top):
    """The road's profile along the line (X0 + s hx, Y0 + s hy), s in [-L, L] (module
    docstring), summed piece by piece by :func:`_add` in ``mode``. In MODE_DISC a gap at either
    end is bridged to the road beyond it, up to :data:`GAP_REACH` away. Returns (S0, S1, S2;
    whether the profile covers s = 0, its Z there and the road triangle there (on a bridge,
    the last one before it); the first and last s and Z of the profile; whether any road was
    found).

    In MODE_DISC the profile beyond |s| > s* (:func:`disc_span`, from the terrain's highest
    point ``top``) cannot meet the disc: the walk takes the same path from -L, but sums no piece
    that ends at or before -s*, and stops once its profile has passed s* (what follows starts
    beyond it). Every piece so left out lies below the disc's lower arc, where
    :func:`piece_moments` gives exact zeros, so the sums, and the profile's point at s = 0, are
    the whole walk's, bit for bit (the last s and Z of the profile, which this mode does not
    use, are where it stopped)."""
    have = False
    last_s, last_z, last_i = 0.0, 0.0, -1
    first_s, first_z = 0.0, 0.0
    at0, z0, i0 = False, 0.0, -1
    S0, S1, S2 = 0.0, 0.0, 0.0
    reach = GAP_REACH if mode == MODE_DISC else 0.0
    # the span that can meet the disc (MODE_DISC; the section's walk takes it all)
    span = disc_span(r, cz, shift, top, L) if mode == MODE_DISC else L
    if reach > 0.0 and mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X0 - L * hx,
                                     Y0 - L * hy) < 0:
        # a gap at the start: the road before it, where its bridge starts
        s = -L - GAP_STEP
        while s >= -L - reach:
            j = mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X0 + s * hx, Y0 + s * hy)
            if j >= 0:
                last_s = line_interval(TR_TRI, j, X0, Y0, hx, hy)[1]
                last_z = plane_z(TR_NRM, j, X0 + last_s * hx, Y0 + last_s * hy)
                have, last_i = True, j
                break
            s -= GAP_STEP
    s = -L
    while True:
        # (written to end on a NaN as well: a position not <= L ends the walk)
        if not s <= L and not (have and last_s < L and s <= L + reach):
            break
        if have and last_s > span:
            break           # what is left starts beyond the span: it adds nothing
        i = mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X0 + s * hx, Y0 + s * hy)
        if i < 0:
            s += GAP_STEP
            continue
        s_in, s_out = line_interval(TR_TRI, i, X0, Y0, hx, hy)
        if have and s_in > last_s + WALK_EPS:
            # found past a gap: a road triangle stepped over lies just before this one's entry
            for _ in range(MAX_BACK):
                sb = s_in - WALK_EPS
                if sb <= last_s:
                    break
                j = mesh_triangle(TR_TRI, TR_GRID, TR_START, TR_CELL, X0 + sb * hx, Y0 + sb * hy)
                if j < 0 or j == i:
                    break
                i = j
                s_in, s_out = line_interval(TR_TRI, i, X0, Y0, hx, hy)
        a = max(s_in, -L)
        if have and a < last_s:
            a = last_s
        za = plane_z(TR_NRM, i, X0 + a * hx, Y0 + a * hy)
        if have and a > last_s:
            # the bridge over the gap: the straight face from the last road point to this one
            if a > -span:
                d0, d1, d2 = _add(mode, r, cz, shift, last_s, last_z, a, za)
                S0 += d0
                S1 += d1
                S2 += d2
            if not at0 and last_s <= 0.0 <= a:
                at0, z0, i0 = True, last_z + (za - last_z) * (0.0 - last_s) / (a - last_s), last_i
            last_s, last_z = a, za
        elif not have:
            first_s, first_z = a, za
        b = min(s_out, L)
        if b > a:
            if b > -span:
                d0, d1, d2 = _add(mode, r, cz, shift, a, za, b, plane_z(TR_NRM, i, X0 + b * hx,
                                                                         Y0 + b * hy))
                S0 += d0
                S1 += d1
                S2 += d2
            if not at0 and a <= 0.0 <= b:
                at0, z0, i0 = True, plane_z(TR_NRM, i, X0, Y0), i
            have = True
            last_s, last_z, last_i = b, plane_z(TR_NRM, i, X0 + b * hx, Y0 + b * hy), i
        s = max(s + WALK_EPS, b + WALK_EPS)
    return S0, S1, S2, at0, z0, i0, first_s, first_z, last_s, last_z, have


@njit
def tread_envelope(P, cx, cy, cz, ax, ay, az, r, halfw):
    """The effective road plane of a tire on a mesh road (module docstring): wheel centre c
    (earth), axle unit vector a, unloaded radius r, half the tread's width. Returns (found, Z
    of the road under the centre (the tread's mean), a point p of the plane and its unit normal
    n (pointing down, into the road), the friction multiplier, water depth and texture depth of
    the road triangle under the centre). found is False when no road lies under the centre
    (nor a gap bridged by the road on both sides of it)."""
    TR_TRI, TR_NRM, TR_GRID = P.TR_TRI, P.TR_NRM, P.TR_GRID
    TR_START, TR_CELL = P.TR_START, P.TR_CELL
    # the heading h: the horizontal direction of the wheel plane (a x down), l = down x h
    hx, hy = ay, -ax
    m = math.sqrt(hx * hx + hy * hy)
    if m < HEADING_MIN:
        hx, hy, m = 1.0, 0.0, 1.0
    hx /= m
    hy /= m
    lx, ly = -hy, hx
    # across the tread: its mean height and the height under the centre
    top = P.P_ENV[E_TERRAIN_TOP]
    T0, _, _, lat0, zl0, il0, fs, fz, ls, lz, lat = walk(TR_TRI, TR_NRM, TR_GRID, TR_START,
                                                         TR_CELL, cx, cy, lx, ly, halfw,
                                                         dynamic(MODE_SECTION), r, cz, 0.0, top)
    shift = 0.0
    if lat and lat0:
        # held level beyond the road's ends
        T0 += (fs + halfw) * fz + (halfw - ls) * lz
        shift = T0 / (2.0 * halfw) - zl0
    # along the heading: the disc's interference with the profile
    A, Ms, Mu, lon0, z0, i0, _, _, _, _, _ = walk(TR_TRI, TR_NRM, TR_GRID, TR_START, TR_CELL,
                                                  cx, cy, hx, hy, r, dynamic(MODE_DISC), r, cz, shift,
                                                  top)
    if not lon0:
        if not (lat and lat0):
            return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        # the heading runs along a gap bridged across the tread: a level profile there
        z0, i0 = zl0, il0
        A, Ms, Mu = piece_moments(r, -r, cz - z0 - shift, r, cz - z0 - shift)
    elif lat and lat0:
        z0 = zl0
    zg = z0 + shift
    # the road's cross slope under the centre (its triangle's plane), dZ per m along l
    gl = -(TR_NRM[i0, 0] * lx + TR_NRM[i0, 1] * ly) / TR_NRM[i0, 2]
    mat = int(P.TR_MAT[i0])
    fr = P.TR_MATP[mat, 0] * P.P_ENV[E_MU]
    water, texture = P.TR_MATP[mat, 1], P.TR_MATP[mat, 2]
    # the plane of the road under the centre, in the section: its normal into the road, its
    # distance from the centre
    gs = -(TR_NRM[i0, 0] * hx + TR_NRM[i0, 1] * hy) / TR_NRM[i0, 2]    # dZ per m along h
    q = math.sqrt(1.0 + gs * gs)
    ds_, du_ = -gs / q, -1.0 / q
    dist = (zg - cz) / q
    if A > 0.0:
        # the segment of area A, normal to the direction of the area's centroid
        dist = r * math.cos(segment_angle(A, r))
        mm = math.sqrt(Ms * Ms + Mu * Mu)
        if mm > MOMENT_MIN * A * r:
            ds_, du_ = Ms / mm, Mu / mm
    elif dist < r:
        dist = r         # clear of the road: the road's plane, moved clear of the disc
    # in earth axes: the direction d to the centroid, the section's tangent t_s, across t_l
    dxe, dye, dze = ds_ * hx, ds_ * hy, -du_
    tsx, tsy, tsz = -du_ * hx, -du_ * hy, -ds_
    tlx, tly, tlz = lx, ly, gl
    nx = tsy * tlz - tsz * tly
    ny = tsz * tlx - tsx * tlz
    nz = tsx * tly - tsy * tlx
    nn = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nx * dxe + ny * dye + nz * dze < 0.0:
        nn = -nn
    return (True, zg, cx + dist * dxe, cy + dist * dye, cz + dist * dze, nx / nn, ny / nn, nz / nn,
            fr, water, texture)
