"""The environment, ``P_ENV`` (gravity, air, friction, the terrain's type and the
hydroplaning model, the collisions' start times, the state's block offsets), and the terrain
arrays ``TR_*`` (``engine.terrain``, ``engine.terrain_mesh``)."""
from __future__ import annotations

import math

import numpy as np

from ... import layout as L
from ...hydroplaning import MODELS
from ..fields import INTEGRATORS, METHODS

#: the engine's terrain source of each event terrain type: an OpenCRG road is triangulated at load
#: (engine.setup.terrain_crg), so the engine looks it up as a mesh
TERRAIN_TYPES = {"flat": L.TERRAIN_FLAT, "mesh": L.TERRAIN_MESH, "crg": L.TERRAIN_MESH,
                 "external": L.TERRAIN_EXTERNAL}


#: simulation.tire_limit's codes (engine.layout.TIRE_LIMIT_*)
TIRE_LIMITS = {"wheel": L.TIRE_LIMIT_WHEEL, "stop": L.TIRE_LIMIT_STOP}


def pack_environment(data, friction_multiplier, rho, terrain_top, layout, substeps=None,
                     integrator=None):
    """``P_ENV``: ``friction_multiplier`` scales the event's; ``substeps`` (an integer) stands
    for the event's ``simulation.substeps`` and ``integrator`` (a key of ``METHODS``) for its
    ``simulation.integrator`` where given; ``rho`` the air density
    (``engine.setup.derived.air_density``); ``terrain_top`` the earth Z of a mesh terrain's
    highest point (``engine.setup.collision.pack_collisions``); ``layout`` the state's
    :class:`engine.layout.StateLayout`, whose block offsets the kernels read here."""
    env, sim = data.environment, data.simulation
    P_ENV = np.zeros(L.N_ENV_P)
    P_ENV[L.E_G] = env.gravity
    P_ENV[L.E_RHO] = rho
    P_ENV[L.E_MU] = env.friction_multiplier * friction_multiplier
    P_ENV[L.E_GROUND_Z] = env.ground_elevation
    t0 = sim.steer_dof_start_time
    P_ENV[L.E_STEER_T0] = math.inf if t0 is None else t0      # autostart: at contact only
    layout.pack_bases(P_ENV)
    P_ENV[L.E_COLL_T_ENV] = sim.collisions.environment_start_time
    P_ENV[L.E_COLL_T_VEH] = sim.collisions.vehicle_start_time
    P_ENV[L.E_TERRAIN_TOP] = terrain_top
    P_ENV[L.E_TERRAIN] = TERRAIN_TYPES[env.terrain.type if env.terrain else "flat"]
    P_ENV[L.E_HYDRO] = MODELS[sim.hydroplaning or "off"]
    P_ENV[L.E_AIR_T] = env.air_temperature
    P_ENV[L.E_TIRE_LIMIT] = TIRE_LIMITS[sim.tire_limit or "wheel"]
    P_ENV[L.E_INTEGRATOR] = METHODS[integrator or sim.integrator or INTEGRATORS[0]].code
    P_ENV[L.E_SUBSTEPS] = substeps if substeps is not None else (sim.substeps or 1)
    return P_ENV


def terrain_arrays(mesh):
    """The mesh terrain's arrays TR_TRI .. TR_CELL, in the order of ``engine.layout.Model``
    (``engine.setup.meshes``; zero-size for the other terrains)."""
    return tuple(mesh[:7])
