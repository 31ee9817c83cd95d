"""Names of the engine's per-unit, per-wheel and per-tire input and output fields.

These tuples are the single source of the field names. The FMU catalogue in
``model_description/`` composes full variable names from them
(``<unit>.<field>``, ``<unit>.axle<k>.<side>.<field>``, and for dual tires
``<unit>.axle<k>.<side>.<inner|outer>.<field>``). The engine's input and output arrays
are laid out in the same order, so ``UNIT_OUTPUTS.index("yaw")`` is the column of
``Simulation.y_unit`` that holds the yaw angle.

Frames and units (SI, SAE J670: x forward, y right, z down):

unit inputs
    steeringWheelAngle  rad, positive steers right (positive rotation about z down)
    throttle            1, fraction of wide-open throttle, 0..1
    brakePedalForce     N, >= 0
    gear                1 (integer valued), -1 reverse, 0 neutral, 1..n forward
    steeringWheelTorque N m, positive turns the steering wheel to the right; read only in the
                        steering mode ``torque`` (``engine.steering``)
    differentialGear    1 (integer valued), 1..n: the entry of the unit's differential gear
                        table (``drivetrain.differential_ratios``) in use, a two-speed axle's
                        1 and 2 (Eq. 50's eta_Differential); 1 with a single differential_ratio
wheel inputs
    brakePressureFactor 1, 0..1, multiplies the wheel's brake pressure (for an ABS)
    frictionMultiplier  1, >= 0, multiplies road friction under this wheel's tires
    roadZ               m, earth Z of the road under the wheel centre (Z down); read only
                        with ``environment.terrain`` of type ``external``
    roadGradeX, roadGradeY  1, dZ/dX and dZ/dY of that road, earth frame (external terrain)
    roadWaterDepth      m, >= 0, water depth on that road (external terrain; hydroplaning)
    brakeForce          N, >= 0, attempted braking force at the ground (Eq. 49, Braking Force
                        table); read only with the unit's ``brakes.method`` 'force'
    brakeFriction       1, 0..1, attempted braking as a fraction of the available tire friction
                        (Eq. 49, % Available Friction); read only with ``brakes.method`` 'friction'
    driveForce          N, >= 0, attempted tractive effort at the ground (Eq. 52); read only on
                        a driven wheel with the unit's ``drivetrain.method`` 'force'
    driveFriction       1, 0..1, attempted traction as a fraction of the available friction
                        (Eq. 52); read only on a driven wheel with ``drivetrain.method`` 'friction'
    (the engine reads all four; the FMU has only those the unit's methods read,
    ``model_description.catalogue.TABLE_INPUTS``)
    steerAngle          rad, the road-wheel steer angle of a steered wheel (positive right,
                        as the output ``steer``); read only with the unit's steering.input
                        'at_axle' (the manual's At Axle option), in place of the steering-
                        wheel angle over the axle's gear ratio; the FMU has it on the steered
                        wheels of such a unit only
environment inputs
    windSpeed           m/s, >= 0
    windDirection       rad, direction the wind comes from, measured from earth X
    gravityTilt         rad, gravity turned about earth X: (0, g sin, g cos) in the earth
                        frame, the level ground a tilt table whose +Y side is down
unit outputs
    X, Y, Z             m, earth-fixed position of the sprung-mass CG
    roll, pitch, yaw    rad, Euler angles (yaw, pitch, roll order)
    u, v, w             m/s, CG velocity in the vehicle-fixed frame
    p, q, r             rad/s, angular velocity in the vehicle-fixed frame
    ax, ay, az          m/s^2, CG acceleration in the vehicle-fixed frame, gravity excluded
    speed               m/s, magnitude of the CG velocity
    sideslip            rad, atan2(v, u)
    engineSpeed         rad/s, engine speed (lead units)
    clutchSlip          1, 1 - transmission input speed / engine speed: 0 with the clutch
                        locked, 1 with the transmission at rest (0 in neutral and for a
                        drivetrain without a clutch, whose engine follows the wheels)
    aero.Fx, aero.Fy, aero.Fz   N, the sum of the unit's aerodynamic forces (Eq. 141),
                        vehicle-fixed; the variables are ``<unit>.aero.<field>``
    aero.Mx, aero.My, aero.Mz   N m, their moment about the CG (Eq. 142),
                        vehicle-fixed
    collision.Fx, .Fy, .Fz  N, the sum of the collision forces on the unit's exterior mesh
                        (the manual's Sprung Mass Impact Model, into Eq. 3), vehicle-fixed;
                        ``<unit>.collision.<field>``
    collision.Mx, .My, .Mz  N m, their moment about the CG (Eq. 7), vehicle-fixed
    collision.contact   1/0, a vertex of the mesh touches the road or a barrier now
    collision.deltaV    m/s, magnitude of the change of the CG velocity since the first
                        contact (0 before it)
    collision.maxCrush  m, the deepest approach any vertex of the mesh has had so far (its
                        permanent crush is (1 - e^2) of it, engine.collision)
wheel outputs
    steer               rad, road-wheel steer angle relative to the vehicle (positive right)
    spin                rad/s, wheel spin velocity (positive rolling forward)
    jounce              m, suspension compression from static equilibrium (wheel up +)
    brakePressure       Pa, pressure at the wheel cylinder after proportioning and ABS factor,
                        lagging the pedal by the brake system's time constant
    brakeTorque         N m, brake torque acting on the wheel (opposing spin, so <= 0 while
                        rolling forward)
    driveTorque         N m, drivetrain torque delivered to the wheel
    brakeTemperature    K, temperature of a designed brake's drum or disc (and lining); the
                        air temperature for a generic brake (Eq. 47's fixed torque ratio)
    brakeTorqueRatio    N m/Pa, the brake's current torque ratio (Eq. 47): a designed brake's
                        from its lining friction at its temperature and sliding speed
    damageDisplacement  m, how far collisions on the wheel's mesh have set its centre back or
                        in, permanently (the magnitude of its vehicle-fixed x-y displacement,
                        Eq. 58-62, engine.wheel_damage)
tire outputs
    Fx, Fy              N, ground force on the tire in the tire frame (x' forward, y' right)
    Fz                  N, radial (normal) tire load, >= 0
    slip                1, longitudinal slip: braking positive (Eq. 94), driving negative
    slipAngle           rad, tire slip angle, positive when the contact patch moves to the right
    inclination         rad, inclination of the wheel plane to the ground normal
    deflection          m, tire radial deflection
    skid                1/0, skid flag (Eq. 113)
    roadZ               m, earth Z of the road at the contact point (Z down)
    frictionAvailable   1, the friction multiplier the tire has: the road's (its material,
                        the event's and the wheel's frictionMultiplier) after hydroplaning
    waterDepth          m, water depth on the road under the tire
    pneumaticTrail      m, pneumatic trail T_P behind the contact point (``engine.tire``)
    Mz                  N m, moment of the ground force about the wheel's steer axis (the
                        vehicle z-line through the wheel centre, Eq. 38), positive turns
                        the wheel to the right
steering outputs (one row per unit with a steering system and a steered axle,
``<unit>.steering.<field>``)
    angle               rad, steering-wheel angle (positive right)
    rate                rad/s, its rate
    torque              N m, the torque the driver must apply to hold the steering wheel
                        still (positive right): minus the tire and stop moments about the
                        steer axes, over the gear ratio
solid-axle outputs (one row per solid axle, ``<unit>.axle<k>.<field>``)
    roll                rad, axle roll relative to the sprung mass, positive right side down
    heave               m, roll-centre displacement from static equilibrium, down +
connection outputs (one row per towed unit, at its front connection)
    articulation        rad, yaw of the unit ahead minus this unit's yaw (Eq. 126), wrapped
                        to (-pi, pi]; the variable is ``<unit>.articulation``
    Fx, Fy, Fz          N, force the unit ahead exerts on this unit at its front connection,
                        in this unit's vehicle-fixed frame; ``<unit>.hitch.<field>``
    failed              1/0, the connection has failed (above its failure force,
                        not before its failure start time); ``<unit>.hitch.failed``
    separation          m, distance between the two connection points (horizontal for
                        a hinged drawbar); ``<unit>.hitch.separation``
"""
import numpy as np

from .jit import njit


UNIT_INPUTS = ("steeringWheelAngle", "throttle", "brakePedalForce", "gear", "steeringWheelTorque",
               "differentialGear")
WHEEL_INPUTS = ("brakePressureFactor", "frictionMultiplier", "roadZ", "roadGradeX", "roadGradeY",
                "roadWaterDepth", "brakeForce", "brakeFriction", "driveForce", "driveFriction",
                "steerAngle")
ENV_INPUTS = ("windSpeed", "windDirection", "gravityTilt")

UNIT_OUTPUTS = (
    "X", "Y", "Z", "roll", "pitch", "yaw",
    "u", "v", "w", "p", "q", "r",
    "ax", "ay", "az", "speed", "sideslip", "engineSpeed", "clutchSlip",
    "aero.Fx", "aero.Fy", "aero.Fz", "aero.Mx", "aero.My", "aero.Mz",
    "collision.Fx", "collision.Fy", "collision.Fz", "collision.Mx", "collision.My", "collision.Mz",
    "collision.contact", "collision.deltaV", "collision.maxCrush", "collision.residualCrush",
    "collision.deltaVx", "collision.deltaVy", "collision.pdof", "collision.duration",
    "collision.crushFace", "collision.crushWidth", "collision.crushC1", "collision.crushC2",
    "collision.crushC3", "collision.crushC4", "collision.crushC5", "collision.crushC6",
)
#: the unit outputs only a unit with a drivetrain (a lead unit) has in the FMU
DRIVETRAIN_OUTPUTS = ("engineSpeed", "clutchSlip")
WHEEL_OUTPUTS = ("steer", "spin", "jounce", "brakePressure", "brakeTorque", "driveTorque",
                 "brakeTemperature", "brakeTorqueRatio", "damageDisplacement")
TIRE_OUTPUTS = ("Fx", "Fy", "Fz", "slip", "slipAngle", "inclination", "deflection", "skid",
                "roadZ", "frictionAvailable", "waterDepth", "pneumaticTrail", "Mz")
AXLE_OUTPUTS = ("roll", "heave")
HITCH_OUTPUTS = ("articulation", "Fx", "Fy", "Fz", "failed", "separation")
STEERING_OUTPUTS = ("angle", "rate", "torque")
#: the integrator's own outputs, one row for the simulation (engine.integrator: the steps of
#: the last communication step taken in sub-steps, and the most sub-steps one was split into)
SOLVER_OUTPUTS = ("splitSteps", "mostSubsteps")

#: (min, max, start) accepted for each input field; None means unbounded.
#: ``gear`` max depends on the vehicle's transmission: its number of forward gears (the FMU
#: declares it per unit), ``differentialGear`` max on its differential gear table (its number
#: of ratios; 1 for a unit without a drivetrain, whose row the engine does not read). An
#: external road's grades are those of a road, at most 45 degrees
#: (a mesh terrain's polygons steeper than that are walls); roadZ spans the elevations of
#: the event's ground and barriers. The inputs are one plane per wheel, met by a point contact: a
#: road that moves under a wheel between two steps loads its tire by K_T times the move in that
#: step; a host gives the envelope of a step or kerb over the contact length (docs/event-format.md).
INPUT_LIMITS = {
    "steeringWheelAngle": (-20.0, 20.0, 0.0),
    "throttle": (0.0, 1.0, 0.0),
    "brakePedalForce": (0.0, 5000.0, 0.0),
    "gear": (-1, None, 0),
    "steeringWheelTorque": (-500.0, 500.0, 0.0),
    "differentialGear": (1, None, 1),
    "brakePressureFactor": (0.0, 1.0, 1.0),
    "frictionMultiplier": (0.0, 5.0, 1.0),
    "roadZ": (-1.0e5, 1.0e5, 0.0),
    "roadGradeX": (-1.0, 1.0, 0.0),
    "roadGradeY": (-1.0, 1.0, 0.0),
    "roadWaterDepth": (0.0, 1.0, 0.0),
    "brakeForce": (0.0, 1.0e6, 0.0),
    "brakeFriction": (0.0, 1.0, 0.0),
    "driveForce": (0.0, 1.0e6, 0.0),
    "driveFriction": (0.0, 1.0, 0.0),
    "steerAngle": (-1.5, 1.5, 0.0),     # the largest steering stop (engine.setup.fields.MAX_STEER_STOP)
    "windSpeed": (0.0, 100.0, 0.0),
    "windDirection": (-1.0e3, 1.0e3, 0.0),
    "gravityTilt": (-1.5, 1.5, 0.0),
}

#: the inputs that take whole numbers only, and what a fraction is told it accepts (their
#: largest values are per unit: engine.Simulation, the catalogue)
WHOLE_INPUTS = {"gear": "an integer gear", "differentialGear": "an integer differential gear"}


@njit
def inputs_in_range(u, lo, hi, integer):
    """True when every input of ``u`` lies in its range lo .. hi (NaN fails every comparison,
    an infinite value is outside the largest finite bound) and is whole where ``integer`` is
    set (the gear, the differential gear); ``u``, ``lo``, ``hi`` and ``integer`` have the shape
    of one input array."""
    for i in range(u.shape[0]):
        for j in range(u.shape[1]):
            v = u[i, j]
            if not lo[i, j] <= v <= hi[i, j]:
                return False
            if integer[i, j] and v != np.round(v):
                return False
    return True
