"""examples/crowned_road_wet_patch.py: its mesh, and its run through the FMU built from its event."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def crowned():
    spec = importlib.util.spec_from_file_location("crowned_road_wet_patch",
                                                  ROOT / "examples" / "crowned_road_wet_patch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_mesh_is_the_crowned_road_with_its_wet_patch(crowned, tmp_path):
    """2 n_x n_y triangles; the road's height is CROSSFALL |Y| below the crown (exact: a row of
    vertices on the crown line), its downward normal tilted uphill, (0, -sign(Y) CROSSFALL, 1)
    normalised; the patch's material from X 40 to 60 m, dry elsewhere."""
    import engine
    from engine.terrain_mesh import mesh_surface
    event = engine.load_event(str(crowned.write_event(tmp_path)))
    m = event.terrain_mesh
    assert m.TR_TRI.shape[0] == 2 * crowned.CELLS[0] * crowned.CELLS[1]
    arrays = (m.TR_TRI, m.TR_NRM, m.TR_MAT, m.TR_MATP, m.TR_GRID, m.TR_START, m.TR_CELL)
    for X, Y, wet in [(10.0, 1.75, False), (50.0, -2.9, True), (41.3, 0.2, True), (75.0, -0.4, False)]:
        found, z, nx, ny, nz, friction, water = mesh_surface(*arrays, X, Y)[:7]
        assert found
        assert z == pytest.approx(crowned.CROSSFALL * abs(Y), abs=1e-12)
        assert ny == pytest.approx(-np.sign(Y) * crowned.CROSSFALL / np.hypot(1, crowned.CROSSFALL),
                                   abs=1e-9)
        material = crowned.WET_MATERIAL if wet else crowned.DRY_MATERIAL
        assert (friction, water) == (material["friction_multiplier"], material["water_depth"])


def test_the_run_brakes_on_the_wet_patch_and_drifts_down_the_crossfall(crowned, tmp_path):
    """The example's core function through the FMU: files written, finite results; the road
    under the front tires at the start is CROSSFALL |Y| at their contact points (the car in the
    right lane, turned into the plane: the contact points track / 2 either side of the foot of
    the perpendicular from the CG to the road, which lies d sin(theta) uphill of Y0, d the CG's
    distance from the plane, tan(theta) = CROSSFALL); friction below the material's 0.7 on the patch (hydroplaning near its
    speed) and 1 off it; the front wheels locked only once on the patch; the car drifts right,
    down the slope."""
    result, table, event = crowned.run(tmp_path, tmp_path / "crowned.fmu")
    for suffix in (".obj", ".json", ".csv", ".png"):
        assert (tmp_path / f"{crowned.NAME}{suffix}").stat().st_size > 0
    names = result.dtype.names
    assert all(np.isfinite(result[n]).all() for n in names)
    assert result["time"][-1] > 3.0
    front = event.data["units"][0]["axles"][0]
    z, c = crowned.CONTACT_Z, crowned.CROSSFALL
    theta = np.arctan(c)
    d = (c * crowned.Y0 - result["car.Z"][0]) * np.cos(theta)
    foot = crowned.Y0 - d * np.sin(theta)
    for side, sign in (("left", -1), ("right", 1)):
        y_contact = foot + sign * front["track"] / 2 * np.cos(theta)
        # the car starts in equilibrium across the slope, leaning 0.005 rad further than the
        # road on its springs (docs/equations.md, "Static equilibrium on a grade or a
        # crossfall"): its contact points lie within a millimetre of those of a body in the
        # road's plane (measured 3.1e-5 m of road height, 0.8 mm across the slope)
        assert result[f"car.axle1.{side}.{z}"][0] == pytest.approx(c * y_contact, abs=1e-4)
    X = result["car.X"] + front["x"]     # the front axle (yaw stays under a degree)
    on_patch = (X > crowned.WET[0] + 0.5) & (X < crowned.WET[1] - 0.5)
    before = X < crowned.WET[0] - 0.5
    mu = result["car.axle1.left.frictionAvailable"]
    assert mu[on_patch].max() < crowned.WET_MATERIAL["friction_multiplier"]
    assert (mu[before] == 1.0).all()
    skid = result["car.axle1.left.skid"]
    assert skid[on_patch].any() and not skid[before].any()
    assert result["car.speed"][-1] < result["car.speed"][0] - 5.0
    assert 0.05 < result["car.Y"][-1] - crowned.Y0 < 1.0


def test_the_brake_pedal_force_decelerates_at_its_g_on_dry_level_ground(crowned):
    """The engine on the default (flat, dry) event, in neutral, at the pedal force for 0.5 g:
    the speed falls at 0.5 g plus the road load over the effective mass,
    (sigma0 m g + rho C_d A v^2 / 2) / (m + sum(I) / r^2), rho = p / (R T) of the air."""
    import engine
    from engine.signals import UNIT_INPUTS, UNIT_OUTPUTS
    from simon_fmu.controllers.vehicle_data import rolling_radius
    event = engine.load_event()
    data, car = event.data, event.data["units"][0]
    env = data["environment"]
    sim = engine.Simulation(event, initial={"car": {"speed0": 20.0}})
    sim.u_unit[0, UNIT_INPUTS.index("gear")] = 0
    sim.u_unit[0, UNIT_INPUTS.index("brakePedalForce")] = crowned.brake_pedal_force(event, 0.5)
    speed = UNIT_OUTPUTS.index("speed")
    sim.advance(1.0)        # the brakes applied, the pitch settled
    v0 = sim.y_unit[0, speed]
    sim.advance(1.5)
    v1 = sim.y_unit[0, speed]
    g, r = env["gravity"], rolling_radius(event)
    mass = car["sprung_mass"]["mass"] + sum(2 * a["unsprung_mass_per_wheel"] for a in car["axles"])
    spin = sum(2 * car["tires"][a["tire"]]["spin_inertia"] for a in car["axles"])
    sigma0 = {car["tires"][a["tire"]]["rolling_resistance"]["sigma0"] for a in car["axles"]}.pop()
    rho = env["air_pressure"] / (287.05 * env["air_temperature"])
    cda = sum(s["drag_coefficient"] * s["area"] for s in car["aerodynamics"])
    v_mean = 0.5 * (v0 + v1)
    expected = 0.5 * g + (sigma0 * mass * g + 0.5 * rho * cda * v_mean ** 2) / (mass + spin / r ** 2)
    assert (v0 - v1) / 0.5 == pytest.approx(expected, rel=0.01)   # agrees to 0.5 %
