"""Collisions of the sprung mass: the manual's Sprung Mass Impact Model (DyMESH-style), whose
summed force and moment enter Eq. 3 and 7.

Each unit has an exterior mesh (:func:`engine.setup.collision.box_mesh`, from its dimensions): a box around the
sprung mass whose six faces carry a grid of vertices. Contact is detected vertex against
surface, as in DyMESH: every vertex that lies inside a surface gets a force, computed in
the vehicle-fixed frame, and the forces and their moments about the CG are summed onto the
sprung mass. The surfaces are the environment's: the road under the body (the terrain, so an
overturned body rests and slides on its roof or side), the event's rigid barriers (planes)
and a mesh terrain's standing polygons (:func:`_surface_pair`), its fixed objects given as
meshes (:func:`_object_pair`), and unit against unit (:func:`unit_pair`, P_PAIR): a tractor's cab (its
box cut at ``collision.cab_length``) with the trailer it tows, each unit's vertices against
the other's exterior: its box, the face of that box they entered through the contact normal
(each vertex's own, latched while it is inside, :func:`_vertices_into_box`), or its OBJ exterior's
triangles, the one a vertex is under along that face's normal (:func:`mesh_approach`), each
surface where the crush left it (:func:`surface_memory`: the permanent set of the vertices
there), the overlap shared between the two faces so that they carry one pressure
(:func:`series_split`), the vertex its own spring on its share, for the share of its
tributary area over that face (:func:`clipped_stiffness`), and halved (both directions are
summed), the reaction on the other unit at the same point.
The force law (:func:`normal_force`, :func:`vertex_force`) is the same for every pair of a
vertex and a surface.

Stiffness (docs/equations.md, "Collisions"): a face of the box has the crush coefficients A
(N/m) and B (N/m^2) of the unit's front, side or rear, the force per unit width of the
CRASH3 line F/w = A + B C in its crush C. Measured from first touch, the approach is
delta = C + A/B (A/B: the approach without damage, A^2/(2B) its energy G), and the line is
F/w = B delta: the face's stiffness per unit area is B / H (H the height of the face's crush
zone), and a vertex carries B / H times its tributary area on the face. The roof and the
underbody take the side's value. A vertex on several faces (an edge or a corner) takes each
face's stiffness weighted by how squarely the surface meets that face.

Per vertex (:func:`normal_force`): loading, while the approach exceeds its largest so far
(delta_max, a state), F = k delta; below it the unloading line of slope k / e^2, which
leaves the permanent crush (1 - e^2) delta_max and returns e^2 of the work of loading, e the
restitution; reloading follows it back up to the loading line. The elastic (unloading and
reloading) branch has a viscous damping of time constant tau = 2 zeta / omega_u (zeta the
damping ratio, omega_u the frequency of the unit's mass on its front face's unloading line),
so that a body resting on its crushed roof settles. The normal force is never negative (a
surface only pushes) and never exceeds the loading line. Tangential: Coulomb friction
mu F_n against the sliding velocity, regularised below a sliding speed v_reg.

The broad phase: before a plane's vertices are visited, the mesh's bounding box is tested
against it (the box corner deepest along the plane's normal); a unit away from every
surface costs one such test per surface. The largest approach of each vertex (and the
first contact) is latched at each integration step boundary, like a connection's failure:
the pass of the step's first stage, at the boundary's state, raises each memory as it meets
the vertex and goes on to its force on the raised memory (:func:`collision_pass`), and
:func:`boundary_latches` latches the contacts and the wheels' damage after it.
"""
import math

from .jit import dynamic, njit, njit_inline
from .layout import (BA_KIND, BA_NX, BA_NY, BA_NZ, BA_T0, BA_X, BA_Y, BA_Z, BAR_OBJECT, BAR_PLANE, BAR_RISER, CO_D0, CO_E, CO_MU, CO_NV, CO_TAU, CO_V0,
                     CO_VREG, CO_XMAX, CO_XMIN, CO_YMAX, CO_YMIN, CO_ZMAX, CO_ZMIN, CS_CONTACT, CS_HEADING0, CS_T0, CS_T1,
                     CS_VX0, CS_VY0, CS_VZ0, CV_CELL, E_COLL_BASE, E_COLL_T_ENV, E_GROUND_Z, E_MU,
                     E_TERRAIN, E_TERRAIN_TOP, FACE_BOTTOM, FACE_FRONT, FACE_LEFT, FACE_REAR,
                     FACE_RIGHT, FACE_ROOF, FR_R, IW_GRADEX, IW_GRADEY, IW_ROADZ, N_BODY,
                     N_COLL_UNIT_STATE, N_FACES, SP, SQ, SR, SU, SV, SW, SX, SY, SZ,
                     TERRAIN_EXTERNAL, TERRAIN_MESH, U_WHEEL0, W_X, W_Y0, CO_K0, E_COLL_T_VEH,
                     PA_A, PA_B, PA_AX, PA_BX, N_PAIR_STATE, N_PAIR_FACES, PS_FACE_ON_A, PS_FACE_ON_B, entry_code,
                     entry_face_of,
                     U_NWHEELS, CO_R0, CO_WHEELS, WC_BOUND, WC_E, WC_K0, WC_NV, WC_RADIUS, WC_V0, WP_EX, WP_EY, WP_EZ, WP_X,
                     WP_Y, WP_Z, N_XG, XG_N1, XG_N2, XG_O1, XG_O2, XG_S1, XG_S2, XG_START, XT_D,
                     XT_C0, XT_E0, XT_FACE, XT_INV0, XT_NX, XT_NY, XT_NZ, XT_V0, CO_GRID, OB_BOX, OB_K, OB_SLOT,
                     CRUSH_STATIONS, YU_COLL_FX, YU_CRUSH_FACE)
from .terrain_mesh import mesh_surface
from .wheel_damage import (add_wheel_load, contact_motions, damage_step, ensure_poses,
                           latch_wheel_motion, wheel_centre_x, wheel_vertex)

#: the sliding speed below which the friction force is regularised (grows linearly), m/s
FRICTION_SPEED = 0.1
#: the least speed a vertex inside another unit's box is taken to have entered it with, through
#: any face (engine.collision.entry_face), m/s
ENTRY_SPEED = 0.1
#: how much deeper than the contact reaches (at the last step boundary) a vertex coming into the
#: other unit's box may be along the contact's face (the pair's: the face the deepest vertex
#: entered through) and still take that face, m (engine.collision._vertex_into_box): more than
#: a vertex moves in a step. A vertex swept sideways into the crush zone of a front is no deeper
#: along it than the contact (and takes the front, not the side it crossed as made); one that
#: came in through another face is deeper (a car swept round the corner of another, or along
#: its side, would be metres deep along the first face at once)
ENTRY_DEPTH = 0.05
#: how far the contact's depth (how deep it reaches along its face, a state) moves before it is
#: renewed, m: a sustained contact whose depth only trembles changes no state of the block, so
#: that its steps copy none of it (engine.integrator.advance)
REACH_STEP = 1e-3
#: how far outside another unit's box a vertex still meets it, m: the vertices along the edges
#: of a face lie on the planes of the other box's faces when the two are level (two cars of one
#: height side by side), and meet it on both sides of that plane alike
EDGE = 1e-3

#: |n_i| of a triangle's unit normal below which it is parallel to axis i: a ray along that axis
#: never crosses it (engine.collision.mesh_approach; engine.setup.collision.pack_exterior_meshes)
PARALLEL = 1e-9
#: how far outside a triangle's edges (m) a ray along an axis still meets it: rounding only (a
#: ray through an edge shared by two triangles meets one of them)
RAY_EDGE = 1e-9

#: the tributary cell of a vertex that is a point (a wheel mesh's; layout.CV_CELL)
POINT = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

#: work columns of Work.coll[u, :] (layout.N_COLL_ROW): the force and moment, the vertices
#: with a force, the deepest crush now; and from a pass that latches (:func:`collision_pass`)
#: 1 where it changed a state of the collision block (a memory raised, a vertex's entry face latched
#: or freed) and the vertices pressed beyond their permanent crush (the contact that
#: :func:`boundary_latches` latches)
WC_FX, WC_FY, WC_FZ, WC_MX, WC_MY, WC_MZ, WC_CONTACT, WC_DEPTH, WC_CHANGED, WC_TOUCH = range(10)
#: s without contact that end a unit's impulse phase, its first contact episode (our reading
#: of the manual's collision pulse; docs/equations.md, "The collision pulse"): a later contact
#: (a secondary impact, the body settling on the road) is not part of collision.duration
IMPULSE_GAP = 0.05
#: collision.crushFace without residual crush (the CrushFace enumeration's first item, None);
#: its items Front, Rear, Right, Left follow in the order of layout.FACE_*
CRUSH_NONE = 1.0


# --- the force law (compiled; the mesh and the packing: engine.setup.collision) ----------------------------------------------------------

@njit
def face_stiffness(CK, v, nbx, nby, nbz):
    """The stiffness (N/m) of vertex v against a surface whose normal (out of the surface,
    towards the vehicle) is (nbx, nby, nbz) in the vehicle frame: each face the vertex is on,
    weighted by the cosine between the face's outward normal and the push (zero for a face
    turned away)."""
    k = 0.0
    if nbx < 0.0:
        k -= CK[v, FACE_FRONT] * nbx      # the front face (+x out) pushed back
    else:
        k += CK[v, FACE_REAR] * nbx
    if nby < 0.0:
        k -= CK[v, FACE_RIGHT] * nby
    else:
        k += CK[v, FACE_LEFT] * nby
    if nbz < 0.0:
        k -= CK[v, FACE_BOTTOM] * nbz     # the underbody (+z, down, out) pushed up
    else:
        k += CK[v, FACE_ROOF] * nbz
    return k


@njit
def no_damage_approach(P, v):
    """The CRASH3 no-damage approach A/B (m) of exterior vertex v (of the unit whose vertices
    hold it): that of the face on which the vertex has its largest stiffness (a box face's
    vertex: that face's; an edge's or a corner's: the stiffest of its faces'), the part of its
    approach that is not crush (0 without an A)."""
    PC = P.P_COLL
    for u in range(PC.shape[0]):
        if PC[u, CO_V0] <= v < PC[u, CO_V0] + PC[u, CO_NV]:
            return unit_no_damage(PC[u], P.CK, v)
    return 0.0


@njit_inline
def unit_no_damage(PCu, CK, v):
    """:func:`no_damage_approach` of vertex v of the unit whose P_COLL row is ``PCu``."""
    best, d0 = 0.0, 0.0
    for f in range(6):
        if CK[v, f] > best:
            best, d0 = CK[v, f], PCu[CO_D0 + f]
    return d0


@njit_inline
def set_fraction(e):
    """The share 1 - e^2 of a vertex's largest approach that stays as permanent crush once it
    is unloaded, restitution e (the crush law's unloading line, module docstring)."""
    return 1.0 - e * e


@njit_inline
def permanent_set(e, dmax):
    """How far the crush has moved a surface in (m): its permanent set (1 - e^2) delta_max,
    delta_max its largest approach so far, restitution e (docs/equations.md, "Crush that
    moves the mesh")."""
    return set_fraction(e) * dmax


@njit_inline
def normal_force(k, e, tau, pen, pen_rate, dmax):
    """The normal force (N, >= 0) of a vertex of stiffness k (N/m) at approach ``pen`` (m)
    growing at ``pen_rate`` (m/s), its largest approach so far ``dmax``, restitution e and
    damping time constant tau (s) of the elastic branch (module docstring)."""
    if pen <= 0.0:
        return 0.0
    load = k * pen
    if pen >= dmax:
        return load
    ku = k / (e * e)
    f = ku * (pen - permanent_set(e, dmax)) + tau * ku * pen_rate
    if f < 0.0:
        return 0.0
    return load if f > load else f


@njit
def vertex_force(k, e, tau, mu, vreg, pen, nx, ny, nz, vx, vy, vz, dmax):
    """(Fx, Fy, Fz) on a vertex at approach ``pen`` into a surface of unit normal n (out of
    the surface), the vertex moving at v relative to the surface, all in one frame: the
    normal force along n and Coulomb friction mu F_n against the sliding velocity
    (regularised below ``vreg``)."""
    return series_force(k, e, tau, mu, vreg, pen, 1.0, nx, ny, nz, vx, vy, vz, dmax, 0.0)


@njit_inline
def series_force(k, e, tau, mu, vreg, pen, share, nx, ny, nz, vx, vy, vz, dmax, slope_rate):
    """:func:`vertex_force` of a vertex whose own approach ``pen`` grows at ``share`` of the
    rate the surfaces approach at (a vertex in series with another unit's face, its share of
    their mutual approach, :func:`_vertex_into_box`), that rate -v.n less ``slope_rate`` (the
    part of it a crushed surface's slope adds as the vertex slides, v . grad s)."""
    vn = vx * nx + vy * ny + vz * nz
    fn = normal_force(k, e, tau, pen, (-vn - slope_rate) * share, dmax)
    if fn == 0.0:
        return 0.0, 0.0, 0.0
    tx, ty, tz = vx - vn * nx, vy - vn * ny, vz - vn * nz
    s = math.sqrt(tx * tx + ty * ty + tz * tz + vreg * vreg)
    c = mu * fn / s
    return fn * nx - c * tx, fn * ny - c * ty, fn * nz - c * tz


@njit_inline
def add_wrench(out, rx, ry, rz, fx, fy, fz):
    """A vertex's force f at r (from the CG) onto the sums out[0:3] (Eq. 3) and its moment
    r x f onto out[3:6] (Eq. 7); one more vertex in contact in out[6]."""
    out[0] += fx
    out[1] += fy
    out[2] += fz
    out[3] += ry * fz - rz * fy
    out[4] += rz * fx - rx * fz
    out[5] += rx * fy - ry * fx
    out[6] += 1.0


@njit
def _box_depth(P_COLL, u, nbx, nby, nbz, d0):
    """The signed distance from the plane (normal n_b in the vehicle frame, the CG at d0
    along it) of the corner of unit u's bounding box deepest into it (< 0: inside)."""
    cx = 0.5 * (P_COLL[u, CO_XMIN] + P_COLL[u, CO_XMAX])
    cy = 0.5 * (P_COLL[u, CO_YMIN] + P_COLL[u, CO_YMAX])
    cz = 0.5 * (P_COLL[u, CO_ZMIN] + P_COLL[u, CO_ZMAX])
    hx = 0.5 * (P_COLL[u, CO_XMAX] - P_COLL[u, CO_XMIN])
    hy = 0.5 * (P_COLL[u, CO_YMAX] - P_COLL[u, CO_YMIN])
    hz = 0.5 * (P_COLL[u, CO_ZMAX] - P_COLL[u, CO_ZMIN])
    return (d0 + cx * nbx + cy * nby + cz * nbz
            - (hx * abs(nbx) + hy * abs(nby) + hz * abs(nbz)))


@njit
def wheel_normal(wpose, w, nbx, nby, nbz):
    """A vehicle-frame direction n_b in wheel w's axes (its mesh's faces are the wheel's own)."""
    p = wpose[w]
    return (nbx * p[WP_EX] + nby * p[WP_EX + 1] + nbz * p[WP_EX + 2],
            nbx * p[WP_EY] + nby * p[WP_EY + 1] + nbz * p[WP_EY + 2],
            nbx * p[WP_EZ] + nby * p[WP_EZ + 1] + nbz * p[WP_EZ + 2])


@njit
def vertex_stiffness(CK, vi, w, wpose, nbx, nby, nbz, sides):
    """Vertex vi's stiffness against a push of direction n_b (vehicle frame): a vertex of the
    exterior (w < 0) on the unit's faces, one of wheel w's mesh on the wheel's; with ``sides``
    >= 0 (a riser, the face of a step or kerb, whose push on the tread is the tire envelope's,
    engine.envelope) on the wheel's sides only, the faces across its axle, times ``sides``."""
    if w < 0:
        return face_stiffness(CK, vi, nbx, nby, nbz)
    nwx, nwy, nwz = wheel_normal(wpose, w, nbx, nby, nbz)
    if sides >= 0.0:
        return sides * (-CK[vi, FACE_RIGHT] * nwy if nwy < 0.0 else CK[vi, FACE_LEFT] * nwy)
    return face_stiffness(CK, vi, nwx, nwy, nwz)


@njit
def vertex_position(CV, vi, w, wpose):
    """Vertex vi in the vehicle frame (from the CG): a vertex of the exterior (w < 0) as
    packed, one of wheel w's mesh at its wheel's pose."""
    if w < 0:
        return CV[vi, 0], CV[vi, 1], CV[vi, 2]
    return wheel_vertex(CV, vi, wpose[w])


@njit
def _latch_vertex(y, s, w, pen, wcoll):
    """A vertex (its memory at y[s]; of wheel w's mesh, or of an exterior for w < 0) at
    approach pen > 0 at a step boundary: its largest approach raised to pen, and its wheel's
    deepest approach now (engine.wheel_damage). Whether its memory changed."""
    if w >= 0:
        latch_wheel_motion(wcoll[w], pen)
    if pen > y[s]:
        y[s] = pen
        return True
    return False


@njit_inline
def _latch_press(y, s, w, e, pen, out, wcoll):
    """A vertex's latches at a step boundary (:func:`collision_pass`): counted in
    out[WC_TOUCH] when pressed beyond its permanent crush, its memory raised to its approach
    ``pen`` (out[WC_CHANGED] if it was), its wheel's contact motion."""
    if pen > permanent_set(e, y[s]):      # pressed beyond its permanent crush: in contact
        out[WC_TOUCH] += 1.0
    if _latch_vertex(y, s, w, pen, wcoll):
        out[WC_CHANGED] = 1.0


@njit
def vertex_contact(y, s, P, vi, w, rx, ry, rz, pen, nbx, nby, nbz, vel, e, tau, mu, vreg, latch,
                   out, wpose, wcoll, sides):
    """One vertex vi at r (vehicle frame; of wheel w's mesh, or of the exterior for w < 0; its
    memory at y[s]) at approach pen > 0 into a surface of normal n_b (vehicle frame, out of the
    surface, the surface at rest): with ``latch`` first its latches (:func:`_latch_press`);
    then its force and moment about the CG added to out[0:6] (and a wheel's load to
    wcoll[w]), and out[6], out[7] as :func:`_surface_pair`.
    ``vel``: (u, v, w, p, q, r) of the unit; ``sides`` >= 0: a wheel's sides only, times it (a
    riser, :func:`vertex_stiffness`: a vertex they do not turn to it does not touch it), else
    < 0."""
    k = vertex_stiffness(P.CK, vi, w, wpose, nbx, nby, nbz, sides)
    if sides >= 0.0 and k <= 0.0:
        return
    vertex_press(y, s, P, vi, w, rx, ry, rz, pen, k, nbx, nby, nbz, vel, e, tau, mu, vreg, latch,
                 out, wpose, wcoll)


@njit
def vertex_press(y, s, P, vi, w, rx, ry, rz, pen, k, nbx, nby, nbz, vel, e, tau, mu, vreg, latch,
                 out, wpose, wcoll):
    """:func:`vertex_contact` with the vertex's stiffness k (N/m) given."""
    press_share(y, s, P, vi, w, rx, ry, rz, pen, 1.0, k, nbx, nby, nbz, vel, e, tau, mu, vreg,
                latch, out, wpose, wcoll)


@njit
def press_share(y, s, P, vi, w, rx, ry, rz, pen, share, k, nbx, nby, nbz, vel, e, tau, mu, vreg,
                latch, out, wpose, wcoll):
    """:func:`vertex_press` of a vertex whose own approach ``pen`` grows at ``share`` of the
    rate it approaches the surface at (in series with an object's stiffness)."""
    if latch:
        _latch_press(y, s, w, e, pen, out, wcoll)
    p, q, r = vel[3], vel[4], vel[5]
    vx = vel[0] + q * rz - r * ry
    vy = vel[1] + r * rx - p * rz
    vz = vel[2] + p * ry - q * rx
    fx, fy, fz = series_force(k, e, tau, mu, vreg, pen, share, nbx, nby, nbz, vx, vy, vz, y[s],
                              0.0)
    if fx == 0.0 and fy == 0.0 and fz == 0.0:
        return      # inside its own permanent crush: no force
    add_wrench(out, rx, ry, rz, fx, fy, fz)
    if w >= 0:
        add_wheel_load(wcoll[w], wpose[w], rx, ry, rz, fx, fy, fz)
    else:
        crush = pen - no_damage_approach(P, vi)
        if crush > out[7]:
            out[7] = crush


@njit
def _unit_mesh(PC, u):
    """Unit u's vertices in CV (first, count) and its restitution, damping time constant and
    friction regularisation speed."""
    return int(PC[u, CO_V0]), int(PC[u, CO_NV]), PC[u, CO_E], PC[u, CO_TAU], PC[u, CO_VREG]


@njit
def _reach_clear(PC, u, nbx, nby, nbz, d0):
    """Whether unit u has no wheel mesh, or its reach (layout.CO_R0) lies wholly in front of a
    plane (normal n_b in the vehicle frame, the CG at d0 from it): the wheels' first broad
    phase, before their poses are computed."""
    if PC[u, CO_WHEELS] <= 0.0:
        return True
    c, h = 0.0, 0.0
    for k, nk in ((0, nbx), (1, nby), (2, nbz)):
        lo, hi = PC[u, CO_R0 + 2 * k], PC[u, CO_R0 + 2 * k + 1]
        c += 0.5 * (lo + hi) * nk
        h += 0.5 * (hi - lo) * abs(nk)
    return d0 + c - h >= 0.0


@njit
def _wheel_clear(P, wpose, w, nbx, nby, nbz, d0):
    """Whether wheel w has no mesh, or its mesh's sphere lies wholly in front of a plane (normal
    n_b in the vehicle frame, the CG at d0 from it): the wheels' broad phase."""
    PWC = P.P_WCOLL
    if PWC[w, WC_NV] <= 0.0:
        return True
    p = wpose[w]
    return d0 + p[WP_X] * nbx + p[WP_Y] * nby + p[WP_Z] * nbz - PWC[w, WC_BOUND] >= 0.0


@njit
def _wheel_range(P, w):
    """Wheel w's vertices in CV: (first, count)."""
    return int(P.P_WCOLL[w, WC_V0]), int(P.P_WCOLL[w, WC_NV])


@njit
def _mesh_terrain_pair(y, P, u, vbase, R, X, Y, Z, vel, latch, out, wpose, wcoll):
    """Unit u's mesh against a mesh terrain: each vertex below the terrain's highest point
    looks up the road triangle under it and meets its plane (as :func:`_surface_pair`, with the
    friction of the triangle's material). The wheels' meshes do not meet the road (their tires
    do)."""
    PC = P.P_COLL
    v0, nv = int(PC[u, CO_V0]), int(PC[u, CO_NV])
    e, tau, vreg, mu0 = PC[u, CO_E], PC[u, CO_TAU], PC[u, CO_VREG], PC[u, CO_MU]
    top = P.P_ENV[E_TERRAIN_TOP]
    # the broad phase: the box's lowest corner against the terrain's highest point
    nbx, nby, nbz, d0 = _earth_plane(R, X, Y, Z, X, Y, top, 0.0, 0.0, -1.0)
    if _box_depth(PC, u, nbx, nby, nbz, d0) >= 0.0:
        return
    CV = P.CV
    for i in range(nv):
        vi = v0 + i
        rx, ry, rz = CV[vi, 0], CV[vi, 1], CV[vi, 2]
        Zv = Z + R[6] * rx + R[7] * ry + R[8] * rz
        if Zv <= top:
            continue
        Xv = X + R[0] * rx + R[1] * ry + R[2] * rz
        Yv = Y + R[3] * rx + R[4] * ry + R[5] * rz
        found, zr, nx, ny, nz, fr, water, texture = mesh_surface(
            P.TR_TRI, P.TR_NRM, P.TR_MAT, P.TR_MATP, P.TR_GRID, P.TR_START, P.TR_CELL, Xv, Yv)
        if not found:
            continue
        pen = (Zv - zr) * nz          # into the triangle's plane (its normal points down)
        if pen <= 0.0:
            continue
        # the normal out of the road (up, -n) in the vehicle frame: R^T (-n)
        nbx = -(R[0] * nx + R[3] * ny + R[6] * nz)
        nby = -(R[1] * nx + R[4] * ny + R[7] * nz)
        nbz = -(R[2] * nx + R[5] * ny + R[8] * nz)
        vertex_contact(y, vbase + vi, P, vi, dynamic(-1), rx, ry, rz, pen, nbx, nby, nbz, vel, e, tau,
                       mu0 * fr * P.P_ENV[E_MU], vreg, latch, out, wpose, wcoll, -1.0)


@njit
def _surface_range(y, P, first, count, w, vbase, vel, R, X, Y, Z, bar, clip, nbx, nby, nbz, d0, e,
                   tau, mu, vreg, latch, out, wpose, wcoll, sides):
    """The vertices first .. first + count - 1 (of wheel w's mesh, or of the exterior for w < 0)
    against a plane, as :func:`_surface_pair`; with ``clip`` only those whose foot on the plane
    lies in the triangle of ``bar`` (a standing polygon's row of P_BAR; not read without it);
    ``sides`` as :func:`vertex_contact`."""
    CV = P.CV
    ax, ay, az, e1x, e1y, e1z, e2x, e2y, e2z = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    d11, d12, d22, det = 1.0, 0.0, 1.0, 1.0
    if clip:
        ax, ay, az = bar[BA_T0], bar[BA_T0 + 1], bar[BA_T0 + 2]
        e1x, e1y, e1z = bar[BA_T0 + 3] - ax, bar[BA_T0 + 4] - ay, bar[BA_T0 + 5] - az
        e2x, e2y, e2z = bar[BA_T0 + 6] - ax, bar[BA_T0 + 7] - ay, bar[BA_T0 + 8] - az
        d11 = e1x * e1x + e1y * e1y + e1z * e1z
        d12 = e1x * e2x + e1y * e2y + e1z * e2z
        d22 = e2x * e2x + e2y * e2y + e2z * e2z
        det = d11 * d22 - d12 * d12
    for vi in range(first, first + count):
        rx, ry, rz = vertex_position(CV, vi, w, wpose)
        pen = -(d0 + rx * nbx + ry * nby + rz * nbz)
        if pen <= 0.0:
            continue
        if clip:
            # the barycentric coordinates of the vertex's foot on the plane
            px = X + R[0] * rx + R[1] * ry + R[2] * rz - ax
            py = Y + R[3] * rx + R[4] * ry + R[5] * rz - ay
            pz = Z + R[6] * rx + R[7] * ry + R[8] * rz - az
            p1 = px * e1x + py * e1y + pz * e1z
            p2 = px * e2x + py * e2y + pz * e2z
            s = (d22 * p1 - d12 * p2) / det
            t = (d11 * p2 - d12 * p1) / det
            if s < 0.0 or t < 0.0 or s + t >= 1.0:
                continue        # beside the triangle (an edge shared with the next counts once)
        vertex_contact(y, vbase + vi, P, vi, w, rx, ry, rz, pen, nbx, nby, nbz, vel, e, tau, mu, vreg,
                       latch, out, wpose, wcoll, sides)


@njit
def _surface_pair(y, P, u, vbase, vel, R, X, Y, Z, bar, clip, nbx, nby, nbz, d0, mu, latch, out,
                  body, wheels, wpose, wcoll, wvalid, U, t, frames):
    """Unit u's mesh (and with ``wheels`` its wheels' meshes) against a plane: normal n_b (unit,
    out of the solid side) in the vehicle frame, the CG at signed distance d0 from it; with
    ``clip`` only the triangle of ``bar``, a standing polygon of the terrain (a row of P_BAR),
    met by the vertices behind its plane whose foot on it lies in the triangle (the CG is in
    front of it). Adds the force and moment (vehicle frame, about the CG) to out[0:6], counts
    touching vertices in out[6] and the exterior's deepest approach in out[7] (a vertex inside
    its own permanent crush carries no force and does not count); with ``latch``, first raises
    each vertex's largest approach to its approach (state slots from ``vbase``;
    :func:`collision_pass`). ``vel``:
    (u, v, w, p, q, r) of the unit; R, X, Y, Z its rotation and CG (read with ``clip``). The
    wheels' poses (``wpose``, computed when the unit's reach meets the plane,
    engine.wheel_damage.ensure_poses, the driver's inputs ``U`` at time t), their loads
    into ``wcoll``. ``body``: whether the exterior meets it. A riser (the face of a step or
    kerb, BAR_RISER) is met by each wheel's sides while the wheel's centre is in front of it,
    their stiffness faded to zero as the centre nears its plane, within the mesh's half width
    (:func:`_riser_share`): the tread over its edge is the tire envelope's (engine.envelope)."""
    v0, nv, e, tau, vreg = _unit_mesh(P.P_COLL, u)
    if body and _box_depth(P.P_COLL, u, nbx, nby, nbz, d0) < 0.0:     # the broad phase
        _surface_range(y, P, v0, nv, dynamic(-1), vbase, vel, R, X, Y, Z, bar, clip, nbx, nby, nbz, d0, e, tau,
                       mu, vreg, latch, out, wpose, wcoll, -1.0)
    if not wheels or _reach_clear(P.P_COLL, u, nbx, nby, nbz, d0):
        return
    ensure_poses(y, P, U, t, u, wpose, wvalid, frames)
    riser = clip and bar[BA_KIND] == BAR_RISER
    w0 = int(P.P_UNIT[u, U_WHEEL0])
    for w in range(w0, w0 + int(P.P_UNIT[u, U_NWHEELS])):
        if _wheel_clear(P, wpose, w, nbx, nby, nbz, d0):
            continue
        sides = -1.0
        if riser:
            sides = _riser_share(P, wpose, w, nbx, nby, nbz, d0)
            if sides <= 0.0:
                continue
        elif not body:
            continue
        first, count = _wheel_range(P, w)
        _surface_range(y, P, first, count, w, vbase, vel, R, X, Y, Z, bar, clip, nbx, nby, nbz, d0,
                       P.P_WCOLL[w, WC_E], tau, mu, vreg, latch, out, wpose, wcoll, sides)


@njit
def _riser_share(P, wpose, w, nbx, nby, nbz, d0):
    """The share of wheel w's sides in its contact with a riser whose plane has the normal n_b
    (vehicle frame) with the CG at d0 from it: the wheel centre's distance in front of the
    plane over the mesh's half width, within [0, 1]."""
    p = wpose[w]
    half = math.sqrt(max(P.P_WCOLL[w, WC_BOUND] ** 2 - P.P_WCOLL[w, WC_RADIUS] ** 2, 0.0))
    front = d0 + p[WP_X] * nbx + p[WP_Y] * nby + p[WP_Z] * nbz
    if half <= 0.0:
        return 1.0 if front > 0.0 else 0.0
    return min(max(front / half, 0.0), 1.0)


@njit
def _earth_plane(R, X, Y, Z, px, py, pz, nx, ny, nz):
    """A plane through earth point p with earth unit normal n, in unit terms: (n_b, d0).
    R: the vehicle-to-earth rotation, row-major (R[3 i + j])."""
    return (R[0] * nx + R[3] * ny + R[6] * nz,
            R[1] * nx + R[4] * ny + R[7] * nz,
            R[2] * nx + R[5] * ny + R[8] * nz,
            (X - px) * nx + (Y - py) * ny + (Z - pz) * nz)


@njit
def environment_pairs(y, P, u_wheel, u, frames, latch, out, wpose, wcoll, wvalid, U, t):
    """Unit u's mesh against the environment: the road (flat ground, the terrain mesh, or an
    external road: the plane of its first wheel's road inputs, through the road under that
    wheel's centre), every barrier and every environment object (a fixed mesh,
    :func:`_object_pair`), which its wheels' meshes (at ``wpose``, their loads into ``wcoll``)
    meet as well. out[0:8] as :func:`_surface_pair` (cleared here); ``out`` has
    layout.N_COLL_ROW entries (a row of Work.coll: a pass that latches flags its last two,
    WC_CHANGED and WC_TOUCH)."""
    for k in range(8):
        out[k] = 0.0
    if P.P_COLL[u, CO_NV] <= 0.0:
        return
    o = N_BODY * u
    X, Y, Z = y[o + SX], y[o + SY], y[o + SZ]
    vel = (y[o + SU], y[o + SV], y[o + SW], y[o + SP], y[o + SQ], y[o + SR])
    R = frames[u, FR_R:FR_R + 9]
    vbase = int(P.P_ENV[E_COLL_BASE]) + N_COLL_UNIT_STATE * P.P_UNIT.shape[0]
    mu = P.P_COLL[u, CO_MU]
    kind = P.P_ENV[E_TERRAIN]
    if kind == TERRAIN_MESH:
        _mesh_terrain_pair(y, P, u, vbase, R, X, Y, Z, vel, latch, out, wpose, wcoll)
    else:
        zr, nx, ny, nz = P.P_ENV[E_GROUND_Z], 0.0, 0.0, -1.0
        px, py = X, Y
        if kind == TERRAIN_EXTERNAL:
            # the plane of the first wheel's road inputs, through the road under its centre
            w = int(P.P_UNIT[u, U_WHEEL0])
            xw, yw = P.P_WHEEL[w, W_X], P.P_WHEEL[w, W_Y0]
            px, py = X + R[0] * xw + R[1] * yw, Y + R[3] * xw + R[4] * yw
            gx, gy = u_wheel[w, IW_GRADEX], u_wheel[w, IW_GRADEY]
            m = math.sqrt(1.0 + gx * gx + gy * gy)
            zr, nx, ny, nz = u_wheel[w, IW_ROADZ], gx / m, gy / m, -1.0 / m
        nbx, nby, nbz, d0 = _earth_plane(R, X, Y, Z, px, py, zr, nx, ny, nz)
        _surface_pair(y, P, u, vbase, vel, R, X, Y, Z, P.P_ENV, dynamic(False), nbx, nby, nbz, d0,
                      mu * P.P_ENV[E_MU], latch, out, dynamic(True), dynamic(False), wpose, wcoll, wvalid, U, t,
                      frames)
    PB = P.P_BAR
    for b in range(PB.shape[0]):
        if PB[b, BA_KIND] == BAR_OBJECT:
            _object_pair(y, P, u, vbase, vel, R, X, Y, Z, PB[b], mu, latch, out, wpose, wcoll,
                         wvalid, U, t, frames)
            continue
        nbx, nby, nbz, d0 = _earth_plane(R, X, Y, Z, PB[b, BA_X], PB[b, BA_Y], PB[b, BA_Z],
                                         PB[b, BA_NX], PB[b, BA_NY], PB[b, BA_NZ])
        wall = PB[b, BA_KIND] != BAR_PLANE
        # a wall the CG is in front of (behind it, it is its back); a riser's, each wheel's centre
        body = not wall or d0 > 0.0
        if body or PB[b, BA_KIND] == BAR_RISER:
            _surface_pair(y, P, u, vbase, vel, R, X, Y, Z, PB[b], wall, nbx, nby, nbz, d0, mu, latch,
                          out, body, dynamic(True), wpose, wcoll, wvalid, U, t, frames)


# --- environment objects: fixed meshes -----------------------------------------------------

@njit
def _object_pair(y, P, u, vbase, vel, R, X, Y, Z, bar, mu, latch, out, wpose, wcoll, wvalid, U, t,
                 frames):
    """Unit u's exterior and its wheels' meshes against an environment object, a fixed mesh
    (``bar``: its row of P_BAR, BAR_OBJECT; its triangles in XM at its slot, earth-fixed). The
    object is met from the side the unit's CG is on: along the normal of the face of the
    object's bounding box that the CG is furthest beyond (as a wall is met while the CG is in
    front of it), each vertex past that face's plane whose cell lies across the box meets the
    farthest triangle on that side its ray out crosses (:func:`mesh_approach`), so that a
    vertex that has crossed a thin object whole (a pole) still presses on its near surface.
    Its stiffness is its own, for the share of its cell over that face (:func:`clipped_stiffness`),
    in series with the object's per unit area (OB_K; 0: rigid). out as :func:`_surface_pair`."""
    PC = P.P_COLL
    box = (bar[OB_BOX], bar[OB_BOX + 1], bar[OB_BOX + 2], bar[OB_BOX + 3], bar[OB_BOX + 4],
           bar[OB_BOX + 5])
    # the broad phase: the unit's box and its reach against the object's box (earth)
    body = not _apart(_earth_box(PC[u, CO_XMIN:CO_ZMAX + 1], -1.0e9, X, Y, Z, R), box)
    wheels = PC[u, CO_WHEELS] > 0.0 and not _apart(
        _earth_box(PC[u, CO_R0:CO_R0 + 6], -1.0e9, X, Y, Z, R), box)
    if not (body or wheels):
        return
    f = object_face(box, X, Y, Z)
    v0, nv, e, tau, vreg = _unit_mesh(PC, u)
    if body:
        CV = P.CV
        for vi in range(v0, v0 + nv):
            _vertex_into_object(y, P, u, vi, dynamic(-1), CV[vi, 0], CV[vi, 1], CV[vi, 2],
                                (CV[vi, CV_CELL], CV[vi, CV_CELL + 1], CV[vi, CV_CELL + 2],
                                 CV[vi, CV_CELL + 3], CV[vi, CV_CELL + 4], CV[vi, CV_CELL + 5]),
                                R, X, Y, Z, box, f, bar, vel, e, tau, mu, vreg, vbase, latch, out,
                                wpose, wcoll)
    if not wheels:
        return
    ensure_poses(y, P, U, t, u, wpose, wvalid, frames)
    w0 = int(P.P_UNIT[u, U_WHEEL0])
    for w in range(w0, w0 + int(P.P_UNIT[u, U_NWHEELS])):
        if P.P_WCOLL[w, WC_NV] <= 0.0:
            continue
        p = wpose[w]
        rb = P.P_WCOLL[w, WC_BOUND]
        cx = X + R[0] * p[WP_X] + R[1] * p[WP_Y] + R[2] * p[WP_Z]
        cy = Y + R[3] * p[WP_X] + R[4] * p[WP_Y] + R[5] * p[WP_Z]
        cz = Z + R[6] * p[WP_X] + R[7] * p[WP_Y] + R[8] * p[WP_Z]
        if not (box[0] - rb < cx < box[1] + rb and box[2] - rb < cy < box[3] + rb
                and box[4] - rb < cz < box[5] + rb):
            continue        # the wheels' broad phase: the sphere round its mesh
        first, count = _wheel_range(P, w)
        for vi in range(first, first + count):
            rx, ry, rz = wheel_vertex(P.CV, vi, p)
            _vertex_into_object(y, P, u, vi, w, rx, ry, rz, POINT, R, X, Y, Z, box, f, bar, vel,
                                P.P_WCOLL[w, WC_E], tau, mu, vreg, vbase, latch, out, wpose, wcoll)


@njit
def object_face(box, X, Y, Z):
    """The face of an object's earth bounding box ``box`` (lo X, hi X, lo Y, hi Y, lo Z, hi Z)
    that a unit whose CG is at (X, Y, Z) meets it through: the one the CG is furthest beyond
    (its outward normal towards the CG), as a wall is met from the side the CG is on."""
    cg = (X, Y, Z)
    f, far = FACE_FRONT, -math.inf
    for m in range(3):
        if box[2 * m] - cg[m] > far:
            f, far = (FACE_REAR if m == 0 else (FACE_LEFT if m == 1 else FACE_ROOF)), box[2 * m] - cg[m]
        if cg[m] - box[2 * m + 1] > far:
            f, far = (FACE_FRONT if m == 0 else (FACE_RIGHT if m == 1 else FACE_BOTTOM)), \
                cg[m] - box[2 * m + 1]
    return f


@njit
def object_approach(P, bar, f, qx, qy, qz, R, cell):
    """An exterior or wheel-mesh vertex at earth point q (``cell`` its tributary cell in its
    unit's axes, R the unit's rotation, row-major; all 0 for a point) against an environment
    object (``bar``: its row of P_BAR) met through face f of its bounding box
    (:func:`object_face`): past that face's plane (within EDGE), its cell across the box along
    the two other axes (within EDGE), the farthest surface its ray out along f's normal crosses
    from its point in the box (:func:`mesh_approach`). Returns mesh_approach's (approach,
    normal, face): approach 0 and face -1 where it does not meet the object."""
    box = (bar[OB_BOX], bar[OB_BOX + 1], bar[OB_BOX + 2], bar[OB_BOX + 3], bar[OB_BOX + 4],
           bar[OB_BOX + 5])
    q = (qx, qy, qz)
    i = face_axis(f)
    sg = 1.0 if (f == FACE_FRONT or f == FACE_RIGHT or f == FACE_BOTTOM) else -1.0
    near = box[2 * i + 1] if sg > 0.0 else box[2 * i]
    if sg * (q[i] - near) > EDGE:
        return 0.0, 0.0, 0.0, 0.0, -1       # in front of the face it would press on
    for m in range(3):      # across the box along the two other axes: its cell, within EDGE
        if m != i:
            lo, hi = _cell_along(R, cell, dynamic(-1), m, q[m])
            if not (box[2 * m] - EDGE < hi and lo < box[2 * m + 1] + EDGE):
                return 0.0, 0.0, 0.0, 0.0, -1
    # from its point in the box seen along the face's normal
    px = q[0] if i == 0 else min(max(q[0], box[0]), box[1])
    py = q[1] if i == 1 else min(max(q[1], box[2]), box[3])
    pz = q[2] if i == 2 else min(max(q[2], box[4]), box[5])
    return mesh_approach(P, int(bar[OB_SLOT]), f, px, py, pz, dynamic(True))


@njit
def _vertex_into_object(y, P, u, vi, w, rx, ry, rz, cell, R, X, Y, Z, box, f, bar, vel, e, tau, mu,
                        vreg, vbase, latch, out, wpose, wcoll):
    """Vertex vi of unit u at r (vehicle frame; of wheel w's mesh, or of the exterior for w < 0;
    ``cell`` its tributary cell) against an environment object (``box``: its earth bounding box,
    ``bar`` its row of P_BAR) met along the normal of its box's face f, as
    :func:`_object_pair` says."""
    q = (X + R[0] * rx + R[1] * ry + R[2] * rz, Y + R[3] * rx + R[4] * ry + R[5] * rz,
         Z + R[6] * rx + R[7] * ry + R[8] * rz)
    pen, nx, ny, nz, fk = object_approach(P, bar, f, q[0], q[1], q[2], R, cell)
    if pen <= 0.0:
        return
    # the normal out of the object in the vehicle frame: R^T n
    nbx = R[0] * nx + R[3] * ny + R[6] * nz
    nby = R[1] * nx + R[4] * ny + R[7] * nz
    nbz = R[2] * nx + R[5] * ny + R[8] * nz
    if w < 0:
        k = clipped_stiffness(P.CK, vi, nbx, nby, nbz, R, cell, q, box, f)
        Ka = areal_stiffness(P.P_COLL[u], dynamic(CO_K0), P.CK, vi, nbx, nby, nbz)
    else:
        k = vertex_stiffness(P.CK, vi, w, wpose, nbx, nby, nbz, -1.0)
        nwx, nwy, nwz = wheel_normal(wpose, w, nbx, nby, nbz)
        Ka = areal_stiffness(P.P_WCOLL[w], dynamic(WC_K0), P.CK, vi, nwx, nwy, nwz)
    Ko = bar[OB_K]
    s = vbase + vi
    own, share = pen, 1.0
    if Ko > 0.0 and w < 0:
        # in series with the object's, which is elastic: the exterior's own share of the
        # approach, as two units' faces share their overlap (:func:`series_split`)
        set_ = permanent_set(e, y[s])
        if Ka + Ko <= 0.0 or pen <= set_:
            return      # the object meets the crushed surface only beyond the vertex's set
        # (its latches, with ``latch``, raise its memory to ``own`` only on its loading line,
        # where the split does not depend on it: :func:`collision_pass`)
        x, share = series_split(Ka, e, y[s], Ko, 1.0, 0.0, pen - set_)
        own = set_ + x
    elif Ko > 0.0:      # a wheel's mesh: in series with the object's on the whole approach
        k = k * Ko / (Ka + Ko)
    if k <= 0.0:
        return
    press_share(y, s, P, vi, w, rx, ry, rz, own, share, k, nbx, nby, nbz, vel, e, tau, mu, vreg,
                latch, out, wpose, wcoll)


# --- unit against unit -------------------------------------------------------------------

@njit_inline
def _face_areal(K, k0, CK, v, f, cos):
    """One face's terms of :func:`areal_stiffness`: (K[k0 + f] cos, cos), or zeros where
    the face is turned away or v is not on it."""
    if cos > 0.0 and CK[v, f] > 0.0:
        return K[k0 + f] * cos, cos
    return 0.0, 0.0


@njit_inline
def areal_stiffness(K, k0, CK, v, nbx, nby, nbz):
    """The stiffness per unit area (N/m^3) of the faces vertex v lies on, against a push of
    direction n_b (in the axes of its mesh, as :func:`face_stiffness`): each face's value
    K[k0 + face] weighted by its cosine, over the sum of those cosines (0 if no face is turned
    to it). The six faces in FACE_* order, each written out."""
    k, c = 0.0, 0.0
    dk, dc = _face_areal(K, k0, CK, v, FACE_FRONT, -nbx)
    k, c = k + dk, c + dc
    dk, dc = _face_areal(K, k0, CK, v, FACE_REAR, nbx)
    k, c = k + dk, c + dc
    dk, dc = _face_areal(K, k0, CK, v, FACE_RIGHT, -nby)
    k, c = k + dk, c + dc
    dk, dc = _face_areal(K, k0, CK, v, FACE_LEFT, nby)
    k, c = k + dk, c + dc
    dk, dc = _face_areal(K, k0, CK, v, FACE_BOTTOM, -nbz)
    k, c = k + dk, c + dc
    dk, dc = _face_areal(K, k0, CK, v, FACE_ROOF, nbz)
    k, c = k + dk, c + dc
    return k / c if c > 0.0 else 0.0


@njit
def _earth_box(B, xmin, X, Y, Z, R):
    """The earth-fixed bounding box (lo X, hi X, lo Y, hi Y, lo Z, hi Z) of a vehicle-fixed box
    ``B`` (lo x, hi x, lo y, hi y, lo z, hi z: a unit's box or its reach), cut at x = xmin
    behind."""
    x0 = max(B[0], xmin)
    cx, cy, cz = 0.5 * (x0 + B[1]), 0.5 * (B[2] + B[3]), 0.5 * (B[4] + B[5])
    hx, hy, hz = 0.5 * (B[1] - x0), 0.5 * (B[3] - B[2]), 0.5 * (B[5] - B[4])
    ex = X + R[0] * cx + R[1] * cy + R[2] * cz
    ey = Y + R[3] * cx + R[4] * cy + R[5] * cz
    ez = Z + R[6] * cx + R[7] * cy + R[8] * cz
    rx = abs(R[0]) * hx + abs(R[1]) * hy + abs(R[2]) * hz
    ry = abs(R[3]) * hx + abs(R[4]) * hy + abs(R[5]) * hz
    rz = abs(R[6]) * hx + abs(R[7]) * hy + abs(R[8]) * hz
    return ex - rx, ex + rx, ey - ry, ey + ry, ez - rz, ez + rz


@njit_inline
def _face_approach(f, px, py, pz, x0, x1, y0, y1, z0, z1):
    """The approach (m) of a point (px, py, pz) inside the box [x0, x1] x [y0, y1] x [z0, z1]
    past its face f (``layout.FACE_*``) and that face's outward unit normal."""
    if f == FACE_FRONT:
        return x1 - px, 1.0, 0.0, 0.0
    if f == FACE_REAR:
        return px - x0, -1.0, 0.0, 0.0
    if f == FACE_RIGHT:
        return y1 - py, 0.0, 1.0, 0.0
    if f == FACE_LEFT:
        return py - y0, 0.0, -1.0, 0.0
    if f == FACE_BOTTOM:
        return z1 - pz, 0.0, 0.0, 1.0
    return pz - z0, 0.0, 0.0, -1.0


@njit_inline
def face_axis(f):
    """The axis (0 x, 1 y, 2 z) of a box's face f (``layout.FACE_*``): the axis it is normal
    to."""
    if f == FACE_FRONT or f == FACE_REAR:
        return 0
    if f == FACE_RIGHT or f == FACE_LEFT:
        return 1
    return 2


@njit
def entry_face(px, py, pz, x0, x1, y0, y1, z0, z1, vx, vy, vz):
    """The face of the box [x0, x1] x [y0, y1] x [z0, z1] that a point inside it, moving at
    (vx, vy, vz) relative to the box, crossed last: the face it would have crossed the
    shortest time ago, its distance over its speed inwards (away from the face), that speed
    taken as at least ENTRY_SPEED. So a point grazing a face (at a distance much less than
    ENTRY_SPEED times the time since it entered) is in through that face, whichever way it
    slides, and a point at rest inside is in through its nearest face. Its distance to a face
    is taken as at least EDGE: a point on the plane of a face (the edge vertices of two boxes
    level with each other) has not crossed it, and is in through the face it is moving in
    through, not through that plane at no depth."""
    best, bd, bs = FACE_FRONT, 1.0, 0.0
    for f in range(N_FACES):
        d, nx, ny, nz = _face_approach(f, px, py, pz, x0, x1, y0, y1, z0, z1)
        d = max(d, EDGE)
        sp = max(-(vx * nx + vy * ny + vz * nz), ENTRY_SPEED)
        if f == FACE_FRONT or d * bs < bd * sp:
            best, bd, bs = f, d, sp
    return best


@njit_inline
def cell_share(lo, hi, b0, b1):
    """The share of the interval [lo, hi] (a vertex's tributary cell along an axis) that lies
    within [b0, b1] (a face of the other box along that axis); a point (lo = hi) counts whole
    within EDGE of it."""
    if hi <= lo:
        return 1.0 if b0 - EDGE < lo < b1 + EDGE else 0.0
    if b0 <= lo and hi <= b1:
        return 1.0          # all of it (what the quotient below gives, without dividing)
    s = (min(hi, b1) - max(lo, b0)) / (hi - lo)
    return min(max(s, 0.0), 1.0)


@njit_inline
def _cell_along(M, cell, skip, m, p):
    """The extent [lo, hi] along unit b's axis m of a vertex's tributary cell (``cell``: lo x,
    hi x, lo y, hi y, lo z, hi z from the vertex, in a's axes) without its extent along a's axis
    ``skip`` (-1: none), the vertex at p along m; M = R_b^T R_a row-major (its bounding
    interval: exact for axes that line up)."""
    lo, hi = p, p
    for j in range(3):
        if j == skip:
            continue
        c0, c1 = M[3 * m + j] * cell[2 * j], M[3 * m + j] * cell[2 * j + 1]
        lo += min(c0, c1)
        hi += max(c0, c1)
    return lo, hi


@njit_inline
def _face_over(CK, v, f, ia, cos, M, cell, p, box, m1, m2):
    """One face's term of :func:`clipped_stiffness`: face f (its axis ia) of vertex v at the
    cosine ``cos`` of its normal to the push, 0 where it is turned away or v is not on it."""
    if cos <= 0.0 or CK[v, f] <= 0.0:
        return 0.0
    lo1, hi1 = _cell_along(M, cell, ia, m1, p[m1])
    lo2, hi2 = _cell_along(M, cell, ia, m2, p[m2])
    return (CK[v, f] * cos * cell_share(lo1, hi1, box[2 * m1], box[2 * m1 + 1])
            * cell_share(lo2, hi2, box[2 * m2], box[2 * m2 + 1]))


@njit_inline
def clipped_stiffness(CK, v, nbx, nby, nbz, M, cell, p, box, fb):
    """Vertex v's stiffness (N/m) against a push of direction n_b (in its mesh's axes) from the
    face fb of another unit's box (``box``: x0, x1, y0, y1, z0, z1 in that unit's frame, the
    vertex at p there, M = R_b^T R_a): each face of the vertex's box weighted by its cosine, as
    :func:`face_stiffness`, and by the share of its tributary area (its cell without the face's
    own axis) that lies over face fb, along fb's two axes (:func:`cell_share`). So the vertices
    of a face count the area it has in common with face fb, not more or less as their rows
    line up with fb's edges. The six faces in FACE_* order, each written out (its axis a
    constant of the code)."""
    ib = face_axis(fb)
    m1, m2 = (ib + 1) % 3, (ib + 2) % 3
    k = 0.0
    k += _face_over(CK, v, FACE_FRONT, 0, -nbx, M, cell, p, box, m1, m2)
    k += _face_over(CK, v, FACE_REAR, 0, nbx, M, cell, p, box, m1, m2)
    k += _face_over(CK, v, FACE_RIGHT, 1, -nby, M, cell, p, box, m1, m2)
    k += _face_over(CK, v, FACE_LEFT, 1, nby, M, cell, p, box, m1, m2)
    k += _face_over(CK, v, FACE_BOTTOM, 2, -nbz, M, cell, p, box, m1, m2)
    k += _face_over(CK, v, FACE_ROOF, 2, nbz, M, cell, p, box, m1, m2)
    return k


@njit_inline
def pair_rotation(Ra, Rb):
    """M = R_b^T R_a (row-major) of two units' rotations (vehicle to earth, row-major): unit
    a's axes in unit b's, M[3 j + i] the component along b's axis j of a's axis i."""
    return (Rb[0] * Ra[0] + Rb[3] * Ra[3] + Rb[6] * Ra[6],
            Rb[0] * Ra[1] + Rb[3] * Ra[4] + Rb[6] * Ra[7],
            Rb[0] * Ra[2] + Rb[3] * Ra[5] + Rb[6] * Ra[8],
            Rb[1] * Ra[0] + Rb[4] * Ra[3] + Rb[7] * Ra[6],
            Rb[1] * Ra[1] + Rb[4] * Ra[4] + Rb[7] * Ra[7],
            Rb[1] * Ra[2] + Rb[4] * Ra[5] + Rb[7] * Ra[8],
            Rb[2] * Ra[0] + Rb[5] * Ra[3] + Rb[8] * Ra[6],
            Rb[2] * Ra[1] + Rb[5] * Ra[4] + Rb[8] * Ra[7],
            Rb[2] * Ra[2] + Rb[5] * Ra[5] + Rb[8] * Ra[8])


@njit
def _box_in_frame(box, Ra, Rb, M, pos_a, pos_b):
    """The bounding box in unit a's frame (lo x, hi x, lo y, hi y, lo z, hi z) of unit b's
    ``box`` (in b's frame) grown by EDGE: a vertex of a outside it is outside b's box (M:
    :func:`pair_rotation`)."""
    x0, x1, y0, y1, z0, z1 = box
    hx, hy, hz = 0.5 * (x1 - x0) + EDGE, 0.5 * (y1 - y0) + EDGE, 0.5 * (z1 - z0) + EDGE
    cx, cy, cz = 0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (z0 + z1)
    # the centre from a's CG in earth axes, then in a's: R_a^T (X_b + R_b c - X_a)
    ex = pos_b[0] + Rb[0] * cx + Rb[1] * cy + Rb[2] * cz - pos_a[0]
    ey = pos_b[1] + Rb[3] * cx + Rb[4] * cy + Rb[5] * cz - pos_a[1]
    ez = pos_b[2] + Rb[6] * cx + Rb[7] * cy + Rb[8] * cz - pos_a[2]
    ax = Ra[0] * ex + Ra[3] * ey + Ra[6] * ez
    ay = Ra[1] * ex + Ra[4] * ey + Ra[7] * ez
    az = Ra[2] * ex + Ra[5] * ey + Ra[8] * ez
    # the half extents along a's axes i: over b's axes j, |M[3 j + i]| h_j
    rx = abs(M[0]) * hx + abs(M[3]) * hy + abs(M[6]) * hz
    ry = abs(M[1]) * hx + abs(M[4]) * hy + abs(M[7]) * hz
    rz = abs(M[2]) * hx + abs(M[5]) * hy + abs(M[8]) * hz
    return ax - rx, ax + rx, ay - ry, ay + ry, az - rz, az + rz


@njit
def _in_projection(X, t, i, qj, qk):
    """Whether the point (qj, qk) lies in the projection along axis i (on the axes i + 1, i + 2)
    of the exterior triangle whose row is at X[t] (layout.XT_*): inside each edge's line
    (XT_E0), or at most RAY_EDGE outside it."""
    o = t + XT_E0 + 9 * i
    return (X[o] * qj + X[o + 1] * qk + X[o + 2] >= -RAY_EDGE
            and X[o + 3] * qj + X[o + 4] * qk + X[o + 5] >= -RAY_EDGE
            and X[o + 6] * qj + X[o + 7] * qk + X[o + 8] >= -RAY_EDGE)


@njit
def _plane_gap(X, t, px, py, pz):
    """d - n . p of the exterior triangle whose row is at X[t]: the depth of p below its plane."""
    return X[t + XT_D] - (X[t + XT_NX] * px + X[t + XT_NY] * py + X[t + XT_NZ] * pz)


@njit
def mesh_approach(P, b, f, px, py, pz, farthest):
    """:func:`mesh_hit` without the triangle."""
    pen, nx, ny, nz, fk, _ = mesh_hit(P, b, f, px, py, pz, farthest)
    return pen, nx, ny, nz, fk


@njit
def mesh_hit(P, b, f, px, py, pz, farthest):
    """The approach of a point p (unit b's frame) into unit b's OBJ exterior, pressing along
    the normal of face f of b's bounding box (the pair's latched face, :func:`entry_face`): the
    ray from p along that normal, out of b, meets b's triangles (those of the grid cell of p
    seen along the normal's axis, layout.XG_*, edges inclusive); the nearest it crosses is the
    surface p is under. Where the ray leaves b through it (its outward normal along the ray) p
    is inside, and its approach is its depth below that triangle's plane, the contact normal
    the triangle's outward normal; where the ray enters b through it, or meets nothing, p is
    outside. With ``farthest`` (a fixed object, which a vertex may cross whole: a pole), the
    farthest triangle the ray leaves b through, entering or not: the outer surface on that side,
    which the vertex has passed. Returns (approach, nx, ny, nz, the face of the box whose
    stiffness the triangle carries, the triangle's row in XM): approach 0, face -1 and row -1
    outside."""
    i = face_axis(f)
    sg = 1.0 if (f == FACE_FRONT or f == FACE_RIGHT or f == FACE_BOTTOM) else -1.0
    j, k = (i + 1) % 3, (i + 2) % 3
    p = (px, py, pz)
    X = P.XM
    g = N_XG * (3 * b + i)
    n1, n2 = int(X[g + XG_N1]), int(X[g + XG_N2])
    f1, f2 = (p[j] - X[g + XG_O1]) / X[g + XG_S1], (p[k] - X[g + XG_O2]) / X[g + XG_S2]
    if not (0.0 <= f1 <= n1 and 0.0 <= f2 <= n2):
        return 0.0, 0.0, 0.0, 0.0, -1, -1
    c = int(X[g + XG_START]) + min(int(f1), n1 - 1) + n1 * min(int(f2), n2 - 1)
    best, hit = (-1.0 if farthest else math.inf), -1
    for e in range(int(X[c]), int(X[c + 1])):
        t = int(X[e])
        along = sg * _plane_gap(X, t, px, py, pz) * X[t + XT_INV0 + i]    # to its plane
        if farthest:
            if along >= 0.0 and along > best and sg * X[t + XT_NX + i] > 0.0 \
                    and _in_projection(X, t, i, p[j], p[k]):
                best, hit = along, t
        elif 0.0 <= along < best and _in_projection(X, t, i, p[j], p[k]):
            best, hit = along, t
    if hit < 0 or sg * X[hit + XT_NX + i] <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, -1, -1
    return (_plane_gap(X, hit, px, py, pz), X[hit + XT_NX], X[hit + XT_NY], X[hit + XT_NZ],
            int(X[hit + XT_FACE]), hit)


@njit
def grid_vertex(nx, ny, nz, i, j, k):
    """The number (from the unit's first, CO_V0) of the vertex at node (i, j, k) of a box
    mesh's grid of nx x ny x nz nodes (layout.CO_GRID), a node on its surface:
    engine.setup.collision.box_mesh keeps the surface nodes in the order of i, then j, then k,
    so a slab of x at either end holds ny nz vertices and one between them a ring of
    2 nz + 2 (ny - 2)."""
    full = ny * nz
    if i == 0:
        return j * nz + k
    start = full + (i - 1) * (2 * nz + 2 * (ny - 2))
    if i == nx - 1:
        return start + j * nz + k
    if j == 0:
        return start + k
    if j == ny - 1:
        return start + nz + 2 * (ny - 2) + k
    return start + nz + 2 * (j - 1) + (0 if k == 0 else 1)


@njit_inline
def _grid_node(CV, v0, n, axis, m):
    """The coordinate along ``axis`` of node m of a box mesh's grid (n: its nodes along x, y, z;
    its vertices from v0 in CV): that of a surface vertex on the node's plane, the one at
    (m, 0, 0), (0, m, 0) or (0, 0, m) (:func:`grid_vertex`: on the rear slab, j n_z + k)."""
    if axis == 1:
        return CV[v0 + m * n[2], 1]
    if axis == 2:
        return CV[v0 + m, 2]
    return CV[v0 + grid_vertex(n[0], n[1], n[2], m, 0, 0), 0]


@njit_inline
def grid_scale(CV, PCb):
    """Per axis of unit b's box-mesh grid (layout.CO_GRID): the coordinate of its first node
    and its nodes per metre from there to its last, (n - 1) / (last - first), the guess
    :func:`_grid_bracket` starts from (0 without a grid); computed once per pair and direction,
    not per vertex."""
    v0 = int(PCb[CO_V0])
    n = (int(PCb[CO_GRID]), int(PCb[CO_GRID + 1]), int(PCb[CO_GRID + 2]))
    if n[0] == 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    first = (_grid_node(CV, v0, n, dynamic(0), 0), _grid_node(CV, v0, n, dynamic(1), 0),
             _grid_node(CV, v0, n, dynamic(2), 0))
    span = (_grid_node(CV, v0, n, dynamic(0), n[0] - 1) - first[0],
            _grid_node(CV, v0, n, dynamic(1), n[1] - 1) - first[1],
            _grid_node(CV, v0, n, dynamic(2), n[2] - 1) - first[2])
    return (first[0], first[1], first[2], (n[0] - 1) / span[0], (n[1] - 1) / span[1],
            (n[2] - 1) / span[2])


@njit_inline
def _grid_bracket(CV, v0, n, axis, q, first, scale):
    """The node m of a box mesh's grid along ``axis`` at or below coordinate q (clamped to the
    grid), q's fraction of the way to node m + 1 and the spacing of the two (0 where q lies
    beyond the grid's ends): the node an even spacing puts q after (``first``, ``scale``:
    :func:`grid_scale`), then the neighbours' until q lies between m and m + 1 (the nodes are
    evenly spaced but for a cab's ring, engine.setup.collision.box_nodes). A q on a node
    between two cells is in the cell above it, whatever the guess."""
    last = n[axis] - 1
    m = min(max(int((q - first) * scale), 0), last - 1)
    a, b = _grid_node(CV, v0, n, axis, m), _grid_node(CV, v0, n, axis, m + 1)
    while m > 0 and q < a:
        m -= 1
        a, b = _grid_node(CV, v0, n, axis, m), a
    while m < last - 1 and q >= b:
        m += 1
        a, b = b, _grid_node(CV, v0, n, axis, m + 1)
    # the spacing the fraction varies over (0 beyond the grid's ends, where it is held)
    return m, min(max((q - a) / (b - a), 0.0), 1.0), (b - a) if a <= q <= b else 0.0


@njit_inline
def surface_memory(y, P, b, vbase, f, px, py, pz, box, hit, grid):
    """The largest approach so far delta_max (m) of unit b's surface where a point p (b's
    frame) presses on face f of its box (``box`` as the pair cuts it) along that face's normal,
    and its rate along b's two axes across that face (axis i + 1 and i + 2 of the face's axis
    i), each as a rise over a run (a run of 0: no rate; divided where a contact needs it, not
    for every vertex inside the box): its vertices' there, interpolated linearly between them, over the triangle it is under
    (XM's row ``hit`` >= 0) of an OBJ exterior, over the four nodes round its point on that
    face of a box mesh's grid (CO_GRID); its permanent set (1 - e^2) delta_max is how far the
    crush has moved that surface in (docs/equations.md, "Crush that moves the mesh"). 0 on a
    face the pair cuts (a cab's back) and on the box of an OBJ exterior. ``grid``: b's
    :func:`grid_scale`."""
    PCb, CV = P.P_COLL[b], P.CV
    v0 = int(PCb[CO_V0])
    i = face_axis(f)
    if hit >= 0:
        j, k = (i + 1) % 3, (i + 2) % 3
        p = (px, py, pz)
        X = P.XM
        ax, ay = X[hit + XT_C0 + j], X[hit + XT_C0 + k]
        bx, by = X[hit + XT_C0 + 3 + j], X[hit + XT_C0 + 3 + k]
        cx, cy = X[hit + XT_C0 + 6 + j], X[hit + XT_C0 + 6 + k]
        d = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy)
        if d == 0.0:
            return 0.0, 0.0, 0.0, 0.0, 0.0
        m1 = y[vbase + v0 + int(X[hit + XT_V0])]
        m2 = y[vbase + v0 + int(X[hit + XT_V0 + 1])]
        m3 = y[vbase + v0 + int(X[hit + XT_V0 + 2])]
        w1 = ((by - cy) * (p[j] - cx) + (cx - bx) * (p[k] - cy)) / d
        w2 = ((cy - ay) * (p[j] - cx) + (ax - cx) * (p[k] - cy)) / d
        l1, l2 = max(w1, 0.0), max(w2, 0.0)
        l3 = max(1.0 - l1 - l2, 0.0)
        # the linear function of the triangle's corners: its rate across the face (none at a
        # point held on the triangle's edge, beyond it)
        inside = w1 >= 0.0 and w2 >= 0.0 and w1 + w2 <= 1.0
        return ((l1 * m1 + l2 * m2 + l3 * m3) / (l1 + l2 + l3),
                (by - cy) * (m1 - m3) + (cy - ay) * (m2 - m3), d if inside else 0.0,
                (cx - bx) * (m1 - m3) + (ax - cx) * (m2 - m3), d if inside else 0.0)
    n = (int(PCb[CO_GRID]), int(PCb[CO_GRID + 1]), int(PCb[CO_GRID + 2]))
    if n[0] == 0 or (f == FACE_REAR and box[0] > PCb[CO_XMIN]):
        return 0.0, 0.0, 0.0, 0.0, 0.0
    m = n[i] - 1 if (f == FACE_FRONT or f == FACE_RIGHT or f == FACE_BOTTOM) else 0
    # each face's two axes written out, so that the brackets' axes and the corners' nodes are
    # constants of the code: node (mj, mk) of the face is the grid's node with index mj along
    # axis j, mk along axis k and m along the face's own axis i
    n0, n1, n2 = n
    if i == 0:
        # the front or the rear: a slab of one x, its node (y j, z k) at j n_z + k from its first
        mj, tj, sj = _grid_bracket(CV, v0, n, 1, py, grid[1], grid[4])
        mk, tk, sk = _grid_bracket(CV, v0, n, 2, pz, grid[2], grid[5])
        v = vbase + v0 + grid_vertex(n0, n1, n2, m, mj, mk)
        c00, c10, c01, c11 = y[v], y[v + n2], y[v + 1], y[v + n2 + 1]
    elif i == 1:
        # a side: j is z, k is x
        mj, tj, sj = _grid_bracket(CV, v0, n, 2, pz, grid[2], grid[5])
        mk, tk, sk = _grid_bracket(CV, v0, n, 0, px, grid[0], grid[3])
        v = vbase + v0
        c00 = y[v + grid_vertex(n0, n1, n2, mk, m, mj)]
        c10 = y[v + grid_vertex(n0, n1, n2, mk, m, mj + 1)]
        c01 = y[v + grid_vertex(n0, n1, n2, mk + 1, m, mj)]
        c11 = y[v + grid_vertex(n0, n1, n2, mk + 1, m, mj + 1)]
    else:
        # the roof or the underbody: j is x, k is y
        mj, tj, sj = _grid_bracket(CV, v0, n, 0, px, grid[0], grid[3])
        mk, tk, sk = _grid_bracket(CV, v0, n, 1, py, grid[1], grid[4])
        v = vbase + v0
        c00 = y[v + grid_vertex(n0, n1, n2, mj, mk, m)]
        c10 = y[v + grid_vertex(n0, n1, n2, mj + 1, mk, m)]
        c01 = y[v + grid_vertex(n0, n1, n2, mj, mk + 1, m)]
        c11 = y[v + grid_vertex(n0, n1, n2, mj + 1, mk + 1, m)]
    low, high = c00 + tj * (c10 - c00), c01 + tj * (c11 - c01)      # along j, at k's two nodes
    return low + tk * (high - low), (1.0 - tk) * (c10 - c00) + tk * (c11 - c01), sj, high - low, sk


@njit_inline
def _elastic_law(x, e, dmax):
    """A face's load per unit of its stiffness (m) at x beyond its permanent set
    (1 - e^2) dmax: along its elastic line up to dmax, then along the loading line."""
    if x <= e * e * dmax:
        return x / (e * e)
    return permanent_set(e, dmax) + x


@njit_inline
def series_split(Ka, ea, ma, Kb, eb, mb, d):
    """How the overlap d > 0 of two crushed surfaces in contact divides between them: x_a on
    the face of stiffness Ka per unit area (restitution ea, largest approach so far ma), d -
    x_a on the other, so that the two carry one pressure, each on its own law (elastic from
    its permanent set (1 - e^2) m up to m, loading beyond: :func:`_elastic_law`), and the rate
    at which x_a grows with d there.

    The pressure difference g(x) = Ka L_a(x) - Kb L_b(d - x) grows with x and is piecewise
    linear, with a corner where each face leaves its elastic line (a's at x = c1 = ea^2 ma,
    where L_a = ma; b's at x = c2 = d - eb^2 mb, where L_b = mb). Its sign at the corners
    inside (0, d) tells which line each face is on at the root; on those lines, L = alpha +
    beta x (elastic: 0 and 1 / e^2; loading: the set (1 - e^2) m and 1), g is linear and its
    root is x_a = (Kb (alpha_b + beta_b d) - Ka alpha_a) / (Ka beta_a + Kb beta_b), the rate
    Kb beta_b / (Ka beta_a + Kb beta_b)."""
    c1 = ea * ea * ma                   # a's corner, as x_a: elastic below it
    c2 = d - eb * eb * mb               # b's corner, as x_a: elastic above it
    a_elastic = 0.0 < c1 and (c1 >= d or Ka * ma >= Kb * _elastic_law(d - c1, eb, mb))
    b_elastic = c2 <= 0.0 or (c2 < d and Ka * _elastic_law(c2, ea, ma) < Kb * mb)
    alpha_a, beta_a = (0.0, 1.0 / (ea * ea)) if a_elastic else (permanent_set(ea, ma), 1.0)
    alpha_b, beta_b = (0.0, 1.0 / (eb * eb)) if b_elastic else (permanent_set(eb, mb), 1.0)
    sa, sb = Ka * beta_a, Kb * beta_b   # the two faces' stiffness on those lines
    per = 1.0 / (sa + sb)
    xa = (Kb * (alpha_b + beta_b * d) - Ka * alpha_a) * per
    return min(max(xa, 0.0), d), sb * per


@njit_inline
def series_restitution(Ka, ea, Kb, eb):
    """The restitution of two faces in series (stiffness Ka, Kb per unit area; restitution
    ea, eb) loaded together from fresh and unloaded together: each carries the one pressure, so
    each stores a share of the work inversely as its stiffness and returns e^2 of it; the pair
    returns e^2 = (ea^2 Kb + eb^2 Ka) / (Ka + Kb) of the work, and its unloading line is the
    series of the two faces' (docs/equations.md, "Wheel meshes and wheel damage")."""
    return math.sqrt((ea * ea * Kb + eb * eb * Ka) / (Ka + Kb))


@njit
def _into_box(PCb, i, px, py, pz):
    """The point p (unit b's frame) moved into b's bounding box (``PCb``: b's row of P_COLL)
    across axis i, along the two others: itself where it is in the box, else its point in the
    box seen along axis i (a vertex on the plane of a face or beside it, within EDGE or with its
    cell reaching in, meets the triangles there)."""
    return (px if i == 0 else min(max(px, PCb[CO_XMIN]), PCb[CO_XMAX]),
            py if i == 1 else min(max(py, PCb[CO_YMIN]), PCb[CO_YMAX]),
            pz if i == 2 else min(max(pz, PCb[CO_ZMIN]), PCb[CO_ZMAX]))


@njit
def mesh_entry_face(P, b, px, py, pz, vx, vy, vz):
    """The face of unit b's bounding box whose normal a point p inside b's OBJ exterior (b's
    frame, moving at v relative to b) entered along, as :func:`entry_face` for a box, the
    distance it has come through b's surface along each face's normal measured on the ray out
    of b along it to the triangle it leaves through (:func:`mesh_approach`), not to the box's
    face: a vertex may be inside the box long before it reaches the mesh (in front of a sloped
    hood). A point beyond the plane of a face of the box (within EDGE of it) is in through
    that face, as :func:`entry_face` has it, at no depth. -1 where no ray leaves b (p is
    outside)."""
    PCb = P.P_COLL[b]
    p = (px, py, pz)
    for i in range(3):
        if p[i] < PCb[CO_XMIN + 2 * i]:
            return FACE_REAR if i == 0 else (FACE_LEFT if i == 1 else FACE_ROOF)
        if p[i] > PCb[CO_XMIN + 2 * i + 1]:
            return FACE_FRONT if i == 0 else (FACE_RIGHT if i == 1 else FACE_BOTTOM)
    best, bd, bs = -1, 1.0, 0.0
    for f in range(N_FACES):
        i = face_axis(f)
        pen, nx, ny, nz, fk = mesh_approach(P, b, f, px, py, pz, dynamic(False))
        if fk < 0:
            continue
        sg = 1.0 if (f == FACE_FRONT or f == FACE_RIGHT or f == FACE_BOTTOM) else -1.0
        n_along = sg * (nx if i == 0 else (ny if i == 1 else nz))
        d = max(pen / n_along, EDGE)
        v_along = vx if i == 0 else (vy if i == 1 else vz)
        sp = max(-sg * v_along, ENTRY_SPEED)    # moving in: against the ray out
        if best < 0 or d * bs < bd * sp:
            best, bd, bs = f, d, sp
    return best


@njit_inline
def _relative_velocity(M, vel_a, vel_b, rx, ry, rz, px, py, pz):
    """The velocity of unit a's point r (a's frame; at p in b's frame) relative to b's material
    point there, in b's frame (vel_*: each unit's u, v, w, p, q, r; M = R_b^T R_a row-major)."""
    ua, va, wa, pa, qa, ra = vel_a
    ub, vb, wb, pb, qb, rb = vel_b
    vax = ua + qa * rz - ra * ry
    vay = va + ra * rx - pa * rz
    vaz = wa + pa * ry - qa * rx
    return (M[0] * vax + M[1] * vay + M[2] * vaz - (ub + qb * pz - rb * py),
            M[3] * vax + M[4] * vay + M[5] * vaz - (vb + rb * px - pb * pz),
            M[6] * vax + M[7] * vay + M[8] * vaz - (wb + pb * py - qb * px))


@njit_inline
def _in_frame(M, tb, rx, ry, rz):
    """A point r of unit a's frame in unit b's frame: M r + t_b, M = R_b^T R_a (row-major),
    t_b = R_b^T (X_a - X_b), the pair's rotation and offset formed once per pass: R_b^T (X_a +
    R_a r - X_b)."""
    return (M[0] * rx + M[1] * ry + M[2] * rz + tb[0],
            M[3] * rx + M[4] * ry + M[5] * rz + tb[1],
            M[6] * rx + M[7] * ry + M[8] * rz + tb[2])


@njit_inline
def _free_entry(y, e, b, out):
    """A vertex's entry state y[e] freed where it holds a face of unit b's box (out[WC_CHANGED]
    when it did)."""
    if entry_face_of(y[e], b) >= 0:
        y[e] = 0.0
        out[WC_CHANGED] = 1.0


@njit
def _free_entries(y, ebase, first, last, b, out):
    """:func:`_free_entry` for vertices first .. last - 1 of CV."""
    for vi in range(first, last):
        _free_entry(y, ebase + vi, b, out)


@njit
def _free_wheel_entries(y, P, ebase, a, b, out):
    """:func:`_free_entry` for every vertex of unit a's wheel meshes."""
    w0 = int(P.P_UNIT[a, U_WHEEL0])
    for w in range(w0, w0 + int(P.P_UNIT[a, U_NWHEELS])):
        first, count = _wheel_range(P, w)
        _free_entries(y, ebase, first, first + count, b, out)


@njit_inline
def _vertex_into_box(y, P, vi, w, rx, ry, rz, cell, M, tb, a, b, ebase, fp, reach, box, vel_a,
                     vel_b, vbase, latch, out_a, out_b, wpose, wcoll, mesh, grid, mu):
    """Vertex vi of unit a at r (a's frame; of a's wheel w's mesh, or of its exterior for
    w < 0; ``cell`` its tributary cell, all 0 for a point) against the box of unit b (``box``:
    x0, x1, y0, y1, z0, z1 in b's frame; M = R_b^T R_a, t_b: :func:`_in_frame`), pressing on
    the face of b's box it entered through, as :func:`_vertices_into_box` says: the face its
    entry state y[ebase + vi] holds; else the contact's face ``fp`` (the pair's, -1 none) where
    its approach along it is at most ``reach`` (how deep the contact reaches and
    ENTRY_DEPTH); else the face it enters through by its velocity (:func:`entry_face`;
    with ``mesh``, :func:`mesh_entry_face`); with ``mesh``, against b's
    OBJ exterior along that face's normal (:func:`mesh_approach`: the approach below the
    triangle it is under, that triangle's normal and its face's stiffness); ``grid``: b's
    :func:`grid_scale`, ``mu`` the two bodies' friction coefficient. A vertex beside the box
    (by more than EDGE) whose cell reaches into it meets the face it holds or the contact's,
    never chooses one: across a face it has not passed, its approach to another face means
    nothing (against a mesh, from its point in the box seen along the face's normal). With
    ``latch`` its entry
    state holds the face while its approach into b's box (or mesh) as made is positive, and is
    freed when it is not. Its force is on the overlap of the two surfaces as the crush moved
    them (b's set where it presses, :func:`surface_memory`, and its own), of which it takes the
    share that gives the two faces one pressure (:func:`series_split`; docs/equations.md,
    "Crush that moves the mesh"); its memory is its own approach, that share and its set. A
    wheel mesh's vertex, which b's vertices do not meet, takes the whole overlap on the two
    faces' stiffness and restitution in series. Returns (its approach into b's box or mesh as
    made along that face, the face): an approach <= 0 where it is outside."""
    x0, x1, y0, y1, z0, z1 = box
    px, py, pz = _in_frame(M, tb, rx, ry, rz)
    p = (px, py, pz)
    e_at = ebase + vi
    inside = True
    for m in range(3):      # its cell (a point: the vertex) against the box grown by EDGE
        lo, hi = _cell_along(M, cell, dynamic(-1), m, p[m])
        if not (box[2 * m] - EDGE < hi and lo < box[2 * m + 1] + EDGE):
            if latch:
                _free_entry(y, e_at, b, out_a)
            return 0.0, -1
        inside = inside and box[2 * m] - EDGE < p[m] < box[2 * m + 1] + EDGE
    # the face of b's box it presses on: the approach and the normal out of b. The one it
    # holds; else the contact's (the pair's, fp) where it is no deeper along it than the
    # contact reaches, else the one it enters through, by its velocity
    PC = P.P_COLL
    held = entry_face_of(y[e_at], b)
    f = held if held >= 0 else fp
    for attempt in range(2):
        if f < 0:
            if not inside:  # beside the box, its cell reaching in: it never chooses a face
                if latch:
                    _free_entry(y, e_at, b, out_a)
                return 0.0, -1
            vx, vy, vz = _relative_velocity(M, vel_a, vel_b, rx, ry, rz, px, py, pz)
            if mesh:
                f = mesh_entry_face(P, b, px, py, pz, vx, vy, vz)
                if f < 0:
                    return 0.0, -1
            else:
                f = entry_face(px, py, pz, x0, x1, y0, y1, z0, z1, vx, vy, vz)
        trial = held < 0 and attempt == 0 and f == fp      # the contact's face, on trial
        ib = face_axis(f)
        if not (box[2 * ib] - EDGE < p[ib] < box[2 * ib + 1] + EDGE):
            if trial:
                f = -1
                continue
            if latch:       # beside the box across the face it would press on
                _free_entry(y, e_at, b, out_a)
            return 0.0, -1
        if mesh:
            qx, qy, qz = _into_box(PC[b], ib, px, py, pz)
            pen, nx, ny, nz, fk, hit = mesh_hit(P, b, f, qx, qy, qz, dynamic(False))
        else:
            qx, qy, qz = px, py, pz
            pen, nx, ny, nz = _face_approach(f, px, py, pz, x0, x1, y0, y1, z0, z1)
            fk, hit = f, -1
        if trial and (pen <= 0.0 or pen > reach):
            f = -1          # deeper than the contact reaches: in through another face
            continue
        break
    # its own face, latched once the contact's is (at the contact's first boundary the pass
    # chooses the contact's from the faces the vertices enter through: _vertices_into_box)
    if latch and fp >= 0:
        if pen <= 0.0:
            _free_entry(y, e_at, b, out_a)
        elif y[e_at] == 0.0:        # in: it holds the face it came through until it is out
            y[e_at] = entry_code(f, b)
            out_a[WC_CHANGED] = 1.0
    if pen <= 0.0:
        return pen, f
    depth = pen         # inside b's box (its mesh) as made
    s = vbase + vi
    e = PC[a, CO_E] if w < 0 else P.P_WCOLL[w, WC_E]
    # the surfaces as the crush has moved them (docs/equations.md, "Crush that moves the mesh"):
    # b's where the vertex presses, and an exterior vertex itself, each by its permanent set
    # (1 - e^2) delta_max; pen is now the two crushed surfaces' overlap there
    set_a = permanent_set(e, y[s]) if w < 0 else 0.0
    mem_b, rise_j, run_j, rise_k, run_k = surface_memory(y, P, b, vbase, f, qx, qy, qz, box, hit,
                                                         grid)
    e_b = PC[b, CO_E]
    set_b = permanent_set(e_b, mem_b)
    pen = pen - set_a - set_b
    if pen <= 0.0:
        return depth, f
    vx, vy, vz = _relative_velocity(M, vel_a, vel_b, rx, ry, rz, px, py, pz)
    # the normal in a's frame: R_a^T R_b n = M^T n
    nax = M[0] * nx + M[3] * ny + M[6] * nz
    nay = M[1] * nx + M[4] * ny + M[7] * nz
    naz = M[2] * nx + M[5] * ny + M[8] * nz
    Kb = PC[b, CO_K0 + fk]
    if w < 0:
        Ka = areal_stiffness(PC[a], dynamic(CO_K0), P.CK, vi, nax, nay, naz)
    else:
        nwx, nwy, nwz = wheel_normal(wpose, w, nax, nay, naz)
        Ka = areal_stiffness(P.P_WCOLL[w], dynamic(WC_K0), P.CK, vi, nwx, nwy, nwz)
    if Ka + Kb <= 0.0:
        return depth, f
    # an exterior vertex's own approach: its set and its share of the overlap, the two faces'
    # crush in series (the stiffer face crushes less); a wheel's mesh, which nothing of b meets,
    # takes the whole overlap, on the two faces in series: loaded together from its memory,
    # their loading lines' series slope (below) and the restitution that returns each face's
    # share of the work at its own restitution, e^2 = (e_a^2 K_b + e_b^2 K_a) / (K_a + K_b)
    if w < 0:
        x_a, share = series_split(Ka, e, y[s], Kb, e_b, mem_b, pen)
    else:
        x_a, share = pen, 1.0
        e = series_restitution(Ka, e, Kb, e_b)
    own = set_a + x_a
    if latch:
        # its latches at the step boundary (:func:`collision_pass`), then its force: a memory
        # raised to its own approach leaves the split as it is (it was on its loading line,
        # where the split does not depend on it), so its set and split are not taken again
        if w < 0 or pen > permanent_set(e, y[s]):    # pressed beyond its permanent crush
            out_a[WC_TOUCH] += 1.0
            out_b[WC_TOUCH] += 1.0
        if _latch_vertex(y, s, w, own, wcoll):
            out_a[WC_CHANGED] = 1.0
    if w < 0:
        # its share of the area its faces have in common with b's face, its own spring
        ka = clipped_stiffness(P.CK, vi, nax, nay, naz, M, cell, p, box, f)
        k = 0.5 * ka        # halved: b's vertices meet a's box as well
    else:
        ka = vertex_stiffness(P.CK, vi, w, wpose, nax, nay, naz, -1.0)
        k = ka * Kb / (Ka + Kb)
    if ka <= 0.0:
        return depth, f
    tau, vreg = PC[a, CO_TAU], PC[a, CO_VREG]
    # where b's set varies across the face its crushed surface is turned: the push F_n (n +
    # grad s_b), the gradient of the overlap, so that it has a potential (a vertex sliding
    # along a crushed pocket is turned into it, with no work gained round a loop); the
    # overlap's rate, which the damping takes, is -v . (n + grad s_b)
    ij, ik = (ib + 1) % 3, (ib + 2) % 3
    grad_j = rise_j / run_j if run_j != 0.0 else 0.0
    grad_k = rise_k / run_k if run_k != 0.0 else 0.0
    sb = set_fraction(e_b)
    gx = sb * (grad_j if ij == 0 else (grad_k if ik == 0 else 0.0))
    gy = sb * (grad_j if ij == 1 else (grad_k if ik == 1 else 0.0))
    gz = sb * (grad_j if ij == 2 else (grad_k if ik == 2 else 0.0))
    fx, fy, fz = series_force(k, e, tau, mu, vreg, own, share, nx, ny, nz, vx, vy, vz, y[s],
                              vx * gx + vy * gy + vz * gz)
    if fx == 0.0 and fy == 0.0 and fz == 0.0:
        return depth, f
    fn = fx * nx + fy * ny + fz * nz        # the friction is across n
    fx += fn * gx
    fy += fn * gy
    fz += fn * gz
    # on b: the reaction, at the vertex
    add_wrench(out_b, px, py, pz, -fx, -fy, -fz)
    # on a: the force in a's frame, M^T f
    fax = M[0] * fx + M[3] * fy + M[6] * fz
    fay = M[1] * fx + M[4] * fy + M[7] * fz
    faz = M[2] * fx + M[5] * fy + M[8] * fz
    add_wrench(out_a, rx, ry, rz, fax, fay, faz)
    if w >= 0:
        add_wheel_load(wcoll[w], wpose[w], rx, ry, rz, fax, fay, faz)
    else:
        # each unit's own crush: its set and its share of the overlap, less its A/B
        crush_a = own - unit_no_damage(PC[a], P.CK, vi)
        crush_b = set_b + pen - x_a - PC[b, CO_D0 + fk]
        if crush_a > out_a[7]:
            out_a[7] = crush_a
        if crush_b > out_b[7]:
            out_b[7] = crush_b
    return depth, f


@njit_inline
def _tally(entry, b, code, pen, f, held, deepest, face):
    """A vertex met in a latching pass, of entry state ``entry``, approach ``pen`` along face f
    of unit b's box, added to the pass's tally (:func:`_vertices_into_box`): the vertices that
    hold a face of b's box (before the contact's face ``code`` - 1 is set: those inside), and
    the deepest of them along the contact's face (before it is set: along its own)."""
    if entry_face_of(entry, b) >= 0 or (code == 0 and pen > 0.0):
        held += 1
        if pen > deepest and (code == 0 or f == code - 1):
            deepest, face = pen, f
    return held, deepest, face


@njit
def _vertices_into_box(y, P, a, b, xa, xb, vbase, ebase, fs, frames, latch, out_a, out_b, do_box,
                       do_wheels, wpose, wcoll, wvalid, U, t):
    """The vertices of unit a (those at vehicle-fixed x >= xa), and of its wheels' meshes,
    against the box of unit b (cut at x = xb behind): a vertex inside b's box (a vertex of a's
    box exterior: whose tributary cell reaches into it) presses on one face of b's box (normal
    out of b), as DyMESH's crush keeps the direction it started in. At the first step boundary
    with a vertex inside, the contact's face y[fs] is latched: the face the deepest vertex
    entered through (:func:`entry_face`, by its velocity relative to b: the face it crossed the
    shortest time ago), with how deep it reaches along it (y[fs + N_PAIR_FACES]: the deepest
    approach of the vertices holding it, renewed at a boundary where it moved by more than
    REACH_STEP). From then on each vertex holds a face of its own (its entry state y[ebase +
    vi]), latched at the first boundary it is inside and held until it is out: the contact's
    face where it is no deeper along it than the contact reaches plus ENTRY_DEPTH (a side swept
    sideways into a crushed front meets the front, although it crossed the side as made), else
    the face it came in through by its velocity (a vertex that comes in later through another
    face: a car swept round another's corner, or along its side, would be metres deep along the
    contact's face at once, and give back on unloading work that was never done). Not each
    vertex's nearest face: a vertex pushed deep into a side comes nearer the roof or the
    underbody, and would push out the wrong way. The contact's face is freed, and with it the
    vertices' (those the pass does not visit, the broad phase's, too), when no vertex holds one.
    Each vertex is its own spring k_a on its share of
    the overlap of the two crushed surfaces (:func:`_vertex_into_box`: while both load from
    fresh, k_a K_b / (K_a + K_b) on the overlap, K the faces' stiffness per unit area), k_a the
    share of its tributary area that lies over b's face (:func:`clipped_stiffness`), halved for
    a vertex of a's exterior because b's vertices meet a's box as well: each direction then
    counts the area the two faces have in common, whatever their height, pitch and mesh, and
    two faces pressed together carry their series stiffness over it once. A box mesh's slabs
    of one x are tested whole first. The force on the vertex goes to out_a
    (a's frame, about a's CG; a wheel's load to wcoll), its reaction at the same point to out_b (b's
    frame); the contact counts for both. With ``latch``: each vertex's largest approach raised
    before its force and its entry state latched or freed, and the contact's face and depth
    after the last vertex (:func:`collision_pass`). ``do_box``, ``do_wheels``:
    whether a's exterior, and its wheels (their poses computed here), can reach b's box (the
    broad phase). When b's exterior is an OBJ file (and the pair does not cut b's box), a
    vertex inside b's box meets b's triangles instead of its box's face: along that face's
    normal, the triangle it is under (:func:`mesh_approach`); its approach, normal and
    stiffness are that triangle's, the face it holds the box's as before."""
    PC, CV = P.P_COLL, P.CV
    # the contact's face (0: none, else 1 + the face); while it is set, a vertex of a holds a
    # face of b's box, and the pass frees the ones it does not visit
    code = int(y[fs] + 0.5)
    reach = y[fs + N_PAIR_FACES] + ENTRY_DEPTH      # the contact's deepest, and a step's motion
    free = latch and code > 0
    held = 0        # the pass's tally (_tally)
    deepest, face = -1.0, -1
    oa, ob = N_BODY * a, N_BODY * b
    Ra, Rb = frames[a, FR_R:FR_R + 9], frames[b, FR_R:FR_R + 9]
    pos_a = (y[oa + SX], y[oa + SY], y[oa + SZ])
    pos_b = (y[ob + SX], y[ob + SY], y[ob + SZ])
    vel_a = (y[oa + SU], y[oa + SV], y[oa + SW], y[oa + SP], y[oa + SQ], y[oa + SR])
    vel_b = (y[ob + SU], y[ob + SV], y[ob + SW], y[ob + SP], y[ob + SQ], y[ob + SR])
    box = (max(PC[b, CO_XMIN], xb), PC[b, CO_XMAX], PC[b, CO_YMIN], PC[b, CO_YMAX], PC[b, CO_ZMIN],
           PC[b, CO_ZMAX])
    v0, nv = int(PC[a, CO_V0]), int(PC[a, CO_NV])
    if not do_box:
        if free:
            _free_entries(y, ebase, v0, v0 + nv, b, out_a)
        nv = 0
    # b's OBJ exterior is met as its triangles (mesh_approach), unless the pair cuts b's box
    mesh = P.XM[N_XG * 3 * b + XG_N1] > 0.0 and xb <= PC[b, CO_XMIN]
    grid = grid_scale(CV, PC[b])
    mu = math.sqrt(PC[a, CO_MU] * PC[b, CO_MU])      # the two bodies' friction on each other
    M = pair_rotation(Ra, Rb)       # a's axes in b's
    lx, hx, ly, hy, lz, hz = _box_in_frame(box, Ra, Rb, M, pos_a, pos_b)
    # a's CG in b's frame: t_b = R_b^T (X_a - X_b), so that a point r of a's is at M r + t_b
    dX, dY, dZ = pos_a[0] - pos_b[0], pos_a[1] - pos_b[1], pos_a[2] - pos_b[2]
    tb = (Rb[0] * dX + Rb[3] * dY + Rb[6] * dZ, Rb[1] * dX + Rb[4] * dY + Rb[7] * dZ,
          Rb[2] * dX + Rb[5] * dY + Rb[8] * dZ)
    # a box mesh's vertices come in slabs of one x (grid_vertex), each slab's cells of one
    # extent along x: a slab behind the cut or wholly outside b's box along a's x is skipped
    # whole, which the cheap test below would do vertex by vertex (the others are visited in
    # their order, as before)
    gx, gy, gz = int(PC[a, CO_GRID]), int(PC[a, CO_GRID + 1]), int(PC[a, CO_GRID + 2])
    for slab in range(0 if nv == 0 else (gx if gx > 0 else 1)):
        first, last = v0, v0 + nv
        if gx > 0:
            first = v0 + grid_vertex(gx, gy, gz, slab, 0, 0)
            last = v0 + (grid_vertex(gx, gy, gz, slab + 1, 0, 0) if slab + 1 < gx else nv)
            xs = CV[first, 0]
            if xs < xa or xs + CV[first, CV_CELL + 1] < lx or xs + CV[first, CV_CELL] > hx:
                if free:
                    _free_entries(y, ebase, first, last, b, out_a)
                continue
        for vi in range(first, last):
            rx, ry, rz = CV[vi, 0], CV[vi, 1], CV[vi, 2]
            # its tributary cell, cut at the pair's x behind
            cell = (max(CV[vi, CV_CELL], xa - rx), CV[vi, CV_CELL + 1], CV[vi, CV_CELL + 2],
                    CV[vi, CV_CELL + 3], CV[vi, CV_CELL + 4], CV[vi, CV_CELL + 5])
            if rx < xa or not (lx <= rx + cell[1] and rx + cell[0] <= hx and ly <= ry + cell[3]
                               and ry + cell[2] <= hy and lz <= rz + cell[5] and rz + cell[4] <= hz):
                if free:        # behind the cut, or outside b's box seen from a (the cheap test)
                    _free_entry(y, ebase + vi, b, out_a)
                continue
            pen, f = _vertex_into_box(y, P, vi, dynamic(-1), rx, ry, rz, cell, M, tb, a, b, ebase,
                                      code - 1, reach, box, vel_a, vel_b, vbase, latch, out_a,
                                      out_b, wpose, wcoll, mesh, grid, mu)
            if latch:
                held, deepest, face = _tally(y[ebase + vi], b, code, pen, f, held, deepest, face)
    w0, nw = int(P.P_UNIT[a, U_WHEEL0]), int(P.P_UNIT[a, U_NWHEELS])
    if do_wheels and PC[a, CO_WHEELS] > 0.0 and _wheels_along(y, P, w0, nw, xa, lx, hx, M):
        ensure_poses(y, P, U, t, a, wpose, wvalid, frames)
    else:
        if free:
            _free_wheel_entries(y, P, ebase, a, b, out_a)
        nw = 0
    for w in range(w0, w0 + nw):
        if P.P_WCOLL[w, WC_NV] <= 0.0:
            continue
        p = wpose[w]
        rb = P.P_WCOLL[w, WC_BOUND]
        first, count = _wheel_range(P, w)
        # the wheels' broad phase: the sphere round the wheel's mesh against b's box
        cx, cy, cz = _in_frame(M, tb, p[WP_X], p[WP_Y], p[WP_Z])
        if p[WP_X] + rb < xa or not (box[0] - rb < cx < box[1] + rb and box[2] - rb < cy < box[3] + rb
                                     and box[4] - rb < cz < box[5] + rb):
            if free:
                _free_entries(y, ebase, first, first + count, b, out_a)
            continue
        for vi in range(first, first + count):
            rx, ry, rz = wheel_vertex(CV, vi, p)
            if rx < xa:
                if free:
                    _free_entry(y, ebase + vi, b, out_a)
                continue
            pen, f = _vertex_into_box(y, P, vi, w, rx, ry, rz, POINT, M, tb, a, b, ebase,
                                      code - 1, reach, box, vel_a, vel_b, vbase, latch, out_a,
                                      out_b, wpose, wcoll, mesh, grid, mu)
            if latch:
                held, deepest, face = _tally(y[ebase + vi], b, code, pen, f, held, deepest, face)
    if latch:
        if held == 0:
            if code != 0:
                out_a[WC_CHANGED] = 1.0
            y[fs] = 0.0                 # no vertex holds a face: the contact's is free again
            y[fs + N_PAIR_FACES] = 0.0
        else:
            if code == 0:
                y[fs] = 1.0 + face      # the face the deepest vertex entered through
                out_a[WC_CHANGED] = 1.0
            # how deep the contact reaches, renewed when it moves by more than REACH_STEP
            if abs(deepest - y[fs + N_PAIR_FACES]) > REACH_STEP:
                y[fs + N_PAIR_FACES] = deepest
                out_a[WC_CHANGED] = 1.0


@njit_inline
def _wheels_along(y, P, w0, nw, xa, lx, hx, M):
    """Whether a wheel w0 .. w0 + nw - 1 of unit a (with a mesh) may pass the wheels' test of
    :func:`_vertices_into_box` against b's box, whose extent along a's x is [lx, hx]
    (:func:`_box_in_frame`): its sphere round its centre (WC_BOUND) is behind the pair's cut
    at xa, or its centre is outside that extent grown by the sphere as b's axes turn it onto
    a's x (and EDGE more, for rounding), along x alone, which its centre's x gives before its
    pose is computed (engine.wheel_damage.wheel_centre_x; a turntable's wheel always may). A
    unit none of whose wheels may does not compute their poses."""
    grow = abs(M[0]) + abs(M[3]) + abs(M[6])
    for w in range(w0, w0 + nw):
        if P.P_WCOLL[w, WC_NV] <= 0.0:
            continue
        xc, rb = wheel_centre_x(y, P, w), P.P_WCOLL[w, WC_BOUND]
        if math.isnan(xc) or (xc + rb >= xa
                              and lx - rb * grow - EDGE < xc < hx + rb * grow + EDGE):
            return True
    return False


@njit
def _apart(ba, bb):
    """Whether two earth-fixed bounding boxes (lo X, hi X, lo Y, hi Y, lo Z, hi Z) are apart."""
    return ba[1] < bb[0] or bb[1] < ba[0] or ba[3] < bb[2] or bb[3] < ba[2] or ba[5] < bb[4] \
        or bb[5] < ba[4]


@njit
def unit_pair(y, P, k, frames, latch, coll, wpose, wcoll, wvalid, U, t):
    """Pair k of P_PAIR: each unit's vertices (and its wheels') against the other's box (cut
    behind at the pair's x of each), after a broad phase on the earth-fixed bounding boxes of
    the boxes and of the units' reaches (layout.CO_R0); into coll's rows of both units
    (:func:`_vertices_into_box`)."""
    PP, PC = P.P_PAIR, P.P_COLL
    a, b = int(PP[k, PA_A]), int(PP[k, PA_B])
    xa, xb = PP[k, PA_AX], PP[k, PA_BX]
    oa, ob = N_BODY * a, N_BODY * b
    vbase = int(P.P_ENV[E_COLL_BASE]) + N_COLL_UNIT_STATE * P.P_UNIT.shape[0]
    ebase = vbase + P.CV.shape[0]           # the vertices' entry states
    fs = ebase + P.CV.shape[0] + N_PAIR_STATE * k
    Ra, Rb = frames[a, FR_R:FR_R + 9], frames[b, FR_R:FR_R + 9]
    ba = _earth_box(PC[a, CO_XMIN:CO_ZMAX + 1], xa, y[oa + SX], y[oa + SY], y[oa + SZ], Ra)
    bb = _earth_box(PC[b, CO_XMIN:CO_ZMAX + 1], xb, y[ob + SX], y[ob + SY], y[ob + SZ], Rb)
    ra = _earth_box(PC[a, CO_R0:CO_R0 + 6], xa, y[oa + SX], y[oa + SY], y[oa + SZ], Ra)
    rb = _earth_box(PC[b, CO_R0:CO_R0 + 6], xb, y[ob + SX], y[ob + SY], y[ob + SZ], Rb)
    boxes = not _apart(ba, bb)
    a_wheels, b_wheels = not _apart(ra, bb), not _apart(ba, rb)
    if not (boxes or a_wheels or b_wheels):
        if latch:       # the broad phase: the units are apart, and no vertex is inside
            _part(y, P, ebase, fs + PS_FACE_ON_B, a, b, coll[a])
            _part(y, P, ebase, fs + PS_FACE_ON_A, b, a, coll[b])
        return
    _vertices_into_box(y, P, a, b, xa, xb, vbase, ebase, fs + PS_FACE_ON_B, frames, latch, coll[a],
                       coll[b], boxes, a_wheels, wpose, wcoll, wvalid, U, t)
    _vertices_into_box(y, P, b, a, xb, xa, vbase, ebase, fs + PS_FACE_ON_A, frames, latch, coll[b],
                       coll[a], boxes, b_wheels, wpose, wcoll, wvalid, U, t)


@njit
def _part(y, P, ebase, hs, a, b, out):
    """Units a and b apart at a step boundary: where a vertex of a held a face of b's box (the
    pair's contact face y[hs] is set), every vertex of a (its exterior's and its wheels') freed
    of b's faces, and the contact's face freed."""
    if y[hs] > 0.5:
        v0 = int(P.P_COLL[a, CO_V0])
        _free_entries(y, ebase, v0, v0 + int(P.P_COLL[a, CO_NV]), b, out)
        _free_wheel_entries(y, P, ebase, a, b, out)
        y[hs] = 0.0
        y[hs + N_PAIR_FACES] = 0.0
        out[WC_CHANGED] = 1.0


@njit
def collision_pass(y, P, U, W, t, latch):
    """Every environment pair (from simulation.collisions.environment_start_time on) and every
    unit pair (from vehicle_start_time on) into W.coll and W.wcoll (both cleared first), the
    wheels' meshes at W.wpose. With ``latch`` (the integrator's first stage at a step
    boundary, ``W.clock[1]``), each vertex met has its latches first: its largest approach
    raised to its approach now (and its wheel's contact motion, engine.wheel_damage), counted
    in W.coll[u, WC_TOUCH] when pressed beyond its permanent crush; then its force, on the
    raised memory, and its entry face latched or freed (:func:`_vertices_into_box`).
    W.coll[u, WC_CHANGED] is 1 where the pass changed a state of the collision block. So a
    vertex meets the other unit's surface as the boundary's latches left it when that unit's
    vertices came first (the pair's second direction), or as the step before left it (the
    first, in this stage only; docs/equations.md, "Crush that moves the mesh")."""
    coll, wcoll = W.coll, W.wcoll
    for u in range(W.wvalid.shape[0]):
        W.wvalid[u] = 0.0                # the wheels' poses: computed where they are needed
    for w in range(wcoll.shape[0]):
        for k in range(wcoll.shape[1]):
            wcoll[w, k] = 0.0
    for u in range(P.P_UNIT.shape[0]):
        row = coll[u]
        for k in range(row.shape[0]):
            row[k] = 0.0
        if t >= P.P_ENV[E_COLL_T_ENV]:
            environment_pairs(y, P, U.u_wheel, u, W.frames, latch, row, W.wpose, wcoll, W.wvalid,
                              U, t)
    if t >= P.P_ENV[E_COLL_T_VEH]:
        for k in range(P.P_PAIR.shape[0]):
            unit_pair(y, P, k, W.frames, latch, coll, W.wpose, wcoll, W.wvalid, U, t)


@njit
def collision_forces(y, P, U, W, t):
    """Every unit's collision force and moment (vehicle-fixed, about its CG) into
    W.coll[u, 0:6], whether it touches into W.coll[u, 6] and its exterior's deepest approach
    now into W.coll[u, 7]; each wheel mesh's load into W.wcoll (its pose computed where its
    unit's reach meets something, engine.wheel_damage.ensure_poses): :func:`collision_pass`
    without latches."""
    collision_pass(y, P, U, W, t, dynamic(False))


@njit
def boundary_latches(y, t, P, W):
    """At a step boundary, after the first stage's :func:`collision_pass` latched the
    vertices' largest approaches and entry faces: a unit's first contact latched with
    its earth-fixed CG velocity then (for deltaV), and each wheel's damage set grown by the
    load on its mesh at the boundary (the stage's, W.wcoll) within its contact motion over the
    step just taken (engine.wheel_damage.damage_step). W.frames: the units' rotations of this
    state (``vehicle.synchronize``). Returns how many states of the collision block, from its
    start, the boundary (with the first stage's pass) may have changed: 0, the units' own
    states (:data:`N_COLL_UNIT_STATE` a unit, at the block's start: a contact episode's latest
    time moves at every boundary of sustained contact) or the whole block (a vertex's memory,
    an entry face, a wheel's damage set); the integrator copies that much of the block to its
    stages and to its last good state. And whether a wheel's set grew (its mesh moved: the
    stage is evaluated again)."""
    base = int(P.P_ENV[E_COLL_BASE])
    contact_motions(y, P, W.wcoll, W.wmotion)
    coll, frames = W.coll, W.frames
    changed = False     # a unit's own states
    memory = False      # a vertex's memory or entry face (the pass's latches)
    for u in range(P.P_UNIT.shape[0]):
        row = coll[u]
        s = base + N_COLL_UNIT_STATE * u
        if row[WC_CHANGED] > 0.0:
            memory = True
        if row[WC_TOUCH] > 0.0 and y[s + CS_CONTACT] < 0.5:
            changed = True
            o = N_BODY * u
            R = frames[u, FR_R:FR_R + 9]
            uu, vv, ww = y[o + SU], y[o + SV], y[o + SW]
            y[s + CS_CONTACT] = 1.0
            y[s + CS_VX0] = R[0] * uu + R[1] * vv + R[2] * ww
            y[s + CS_VY0] = R[3] * uu + R[4] * vv + R[5] * ww
            y[s + CS_VZ0] = R[6] * uu + R[7] * vv + R[8] * ww
            y[s + CS_HEADING0] = math.atan2(R[3], R[0])    # its x axis over the ground
            y[s + CS_T0] = t
            y[s + CS_T1] = t
        elif y[s + CS_CONTACT] < 1.5 and y[s + CS_CONTACT] > 0.5:    # in its first episode
            if row[WC_TOUCH] > 0.0:
                y[s + CS_T1] = t
                changed = True
            elif t - y[s + CS_T1] > IMPULSE_GAP:
                y[s + CS_CONTACT] = 2.0     # the impulse phase is over
                changed = True
    damaged, grown = damage_step(y, P, W.wcoll, W.wmotion)
    if memory or damaged:
        return y.shape[0] - base, grown
    return N_COLL_UNIT_STATE * P.P_UNIT.shape[0] if changed else 0, grown


@njit
def collision_outputs(y, P, u, frames, coll, y_unit_row, c_fx):
    """The unit's collision outputs from c_fx on (layout.YU_COLL_*): force, moment, contact,
    deltaV, maxCrush, residualCrush, deltaVx, deltaVy, pdof and duration. A vertex's crush is
    its approach less its face's no-damage approach A/B (CRASH3: F/w = A + B C is F/w = B delta with delta = C + A/B); its
    residual crush is its permanent approach (1 - e^2) delta_max less the same."""
    for k in range(6):
        y_unit_row[c_fx + k] = coll[u, k]
    y_unit_row[c_fx + 6] = 1.0 if coll[u, WC_CONTACT] > 0.0 else 0.0
    s = int(P.P_ENV[E_COLL_BASE]) + N_COLL_UNIT_STATE * u
    dv, dx, dy = 0.0, 0.0, 0.0
    if y[s + CS_CONTACT] > 0.5:
        o = N_BODY * u
        R = frames[u, FR_R:FR_R + 9]
        uu, vv, ww = y[o + SU], y[o + SV], y[o + SW]
        dx = R[0] * uu + R[1] * vv + R[2] * ww - y[s + CS_VX0]
        dy = R[3] * uu + R[4] * vv + R[5] * ww - y[s + CS_VY0]
        dz = R[6] * uu + R[7] * vv + R[8] * ww - y[s + CS_VZ0]
        dv = math.sqrt(dx * dx + dy * dy + dz * dz)
    y_unit_row[c_fx + 7] = dv
    # the horizontal delta-V along and across the heading at first contact, the direction
    # the impulse came from (clockwise from straight ahead), the time in contact
    dvx, dvy, pdof, duration = 0.0, 0.0, 0.0, 0.0
    if y[s + CS_CONTACT] > 0.5:
        c, sn = math.cos(y[s + CS_HEADING0]), math.sin(y[s + CS_HEADING0])
        dvx, dvy = c * dx + sn * dy, -sn * dx + c * dy
        if dvx != 0.0 or dvy != 0.0:
            pdof = math.atan2(-dvy, -dvx)
            if pdof < 0.0:
                pdof += 2.0 * math.pi
        duration = y[s + CS_T1] - y[s + CS_T0]
    y_unit_row[c_fx + 10] = dvx
    y_unit_row[c_fx + 11] = dvy
    y_unit_row[c_fx + 12] = pdof
    y_unit_row[c_fx + 13] = duration
    vbase = int(P.P_ENV[E_COLL_BASE]) + N_COLL_UNIT_STATE * P.P_UNIT.shape[0]
    PCu = P.P_COLL[u]
    v0, nv, e = int(PCu[CO_V0]), int(PCu[CO_NV]), PCu[CO_E]
    crush, residual = 0.0, 0.0
    # a unit that has never touched anything has no memory (a raised one is a contact)
    touched = y[s + CS_CONTACT] > 0.5
    for i in range(nv if touched else 0):
        dmax = y[vbase + v0 + i]
        if dmax > 0.0:
            d0 = unit_no_damage(PCu, P.CK, v0 + i)
            if dmax - d0 > crush:
                crush = dmax - d0
            left = permanent_set(e, dmax) - d0      # its residual crush
            if left > residual:
                residual = left
    y_unit_row[c_fx + 8] = max(crush, coll[u, WC_DEPTH])
    y_unit_row[c_fx + 9] = residual
    crush_profile(y, P, u, vbase, y_unit_row, c_fx + YU_CRUSH_FACE - YU_COLL_FX, touched)


@njit
def _profile_axis(f):
    """The axis across face f (front, rear, right or left) along which its crush profile is
    measured, and the sign that makes it run from C1 to C6: from the left to the right across
    the front and the rear (+y), from the front to the rear along a side (-x)."""
    if f == FACE_FRONT or f == FACE_REAR:
        return 1, 1.0
    return 0, -1.0


@njit
def _residual(y, P, u, vbase, v, f):
    """The residual crush (m) of exterior vertex v of unit u on face f: its permanent approach
    (1 - e^2) delta_max less the face's CRASH3 no-damage approach A/B (collision_outputs)."""
    e = P.P_COLL[u, CO_E]
    return permanent_set(e, y[vbase + v]) - P.P_COLL[u, CO_D0 + f]


@njit
def crush_profile(y, P, u, vbase, row, c, touched):
    """Unit u's residual crush profile as reconstructionists measure it (CRASH3, NASS) into
    row[c:c + 2 + CRUSH_STATIONS] (layout.YU_CRUSH_FACE on): the damaged face, the damage
    width L and the crush C1 .. C6 at six equally spaced stations across it
    (docs/equations.md, "The residual crush profile"). The face is the one of front, rear,
    right and left whose crushed volume is the largest: the sum over the vertices on it (CK >
    0; an edge's vertex is on two) of their residual crush into it (:func:`_residual`, with
    that face's A/B) times their tributary area on it (CK over the face's stiffness per unit
    area), so that a frontal crush is the front's though the front's corner vertices are the
    sides' too; L runs between the outermost of that face's vertices with a residual crush,
    across the face (:func:`_profile_axis`); station k's crush is the deepest residual crush of
    the face's vertices whose tributary cell (layout.CV_CELL) spans the station, so a column of
    vertices stands for the strip it carries, at any height. The face as the FMU's CrushFace enumeration: 2 + FACE_* (1: no
    residual crush yet, and all the rest zero; so without ``touched``, the unit's first contact:
    no vertex has a memory before it)."""
    row[c] = CRUSH_NONE
    for k in range(1, 2 + CRUSH_STATIONS):
        row[c + k] = 0.0
    if not touched:
        return
    PC, CK, CV = P.P_COLL, P.CK, P.CV
    v0, nv = int(PC[u, CO_V0]), int(PC[u, CO_NV])
    # the four faces' crushed volumes in one pass over the vertices (each summed in the
    # vertices' order)
    vol_front, vol_rear, vol_right, vol_left = 0.0, 0.0, 0.0, 0.0
    for v in range(v0, v0 + nv):
        if y[vbase + v] <= 0.0:
            continue        # never pressed: no residual crush on any face
        for f in (FACE_FRONT, FACE_REAR, FACE_RIGHT, FACE_LEFT):
            if PC[u, CO_K0 + f] > 0.0 and CK[v, f] > 0.0:
                r = _residual(y, P, u, vbase, v, f)
                if r > 0.0:
                    part = r * CK[v, f] / PC[u, CO_K0 + f]
                    if f == FACE_FRONT:
                        vol_front += part
                    elif f == FACE_REAR:
                        vol_rear += part
                    elif f == FACE_RIGHT:
                        vol_right += part
                    else:
                        vol_left += part
    face, most = -1, 0.0
    for f, volume in ((FACE_FRONT, vol_front), (FACE_REAR, vol_rear), (FACE_RIGHT, vol_right),
                      (FACE_LEFT, vol_left)):
        if PC[u, CO_K0 + f] > 0.0 and volume > most:
            face, most = f, volume
    if face < 0:
        return
    axis, sign = _profile_axis(face)
    lo, hi = math.inf, -math.inf
    for v in range(v0, v0 + nv):
        if y[vbase + v] > 0.0 and CK[v, face] > 0.0 and _residual(y, P, u, vbase, v, face) > 0.0:
            s = sign * CV[v, axis]
            lo, hi = min(lo, s), max(hi, s)
    row[c] = CRUSH_NONE + 1.0 + face
    row[c + 1] = hi - lo
    # the stations' deepest residual crush (row[c + 2 + k], from 0) in one pass over the
    # vertices
    for v in range(v0, v0 + nv):
        if y[vbase + v] <= 0.0 or CK[v, face] <= 0.0:
            continue
        a = CV[v, axis] + CV[v, CV_CELL + 2 * axis]         # its cell along the axis
        b = CV[v, axis] + CV[v, CV_CELL + 2 * axis + 1]
        if sign < 0.0:
            a, b = -b, -a
        for k in range(CRUSH_STATIONS):
            station = lo + (hi - lo) * k / (CRUSH_STATIONS - 1)
            if a <= station <= b:
                row[c + 2 + k] = max(row[c + 2 + k], _residual(y, P, u, vbase, v, face))
