"""Write docs/event-format.md, the event format generated from the schema in engine/setup/event.py.

    .venv/bin/python tools/event_format.py           # writes docs/event-format.md
    .venv/bin/python tools/event_format.py --print   # prints it

tests/test_event.py checks that the page is current.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.setup.event import (EVENT, MATING_HEIGHT_TOLERANCE, MAX_DEPTH, MAX_ELEVATION, TIRE,  # noqa: E402
                          UNIT)
from engine.setup.schema import describe  # noqa: E402
from engine.setup.terrain_crg import MAX_TRIANGLES  # noqa: E402
from engine.setup.vehicle_classes import GROUPS, LIGHT_CLASS, TABLE, borrowed  # noqa: E402

#: the page this script writes
PAGE = ROOT / "docs" / "event-format.md"


def format_reference() -> str:
    """The event format as Markdown, generated from the schema (docs/event-format.md)."""
    unit_fields = {k: v for k, v in UNIT.items() if k != "tires"}
    lines = [
        "# Event format",
        "",
        "An event is one JSON object in SI units (angles in rad). This page is generated from",
        "the schema in `engine/setup/event.py` (`python tools/event_format.py`); the default event",
        "`engine/data/sedan.json` is a complete example. Unknown fields are rejected, and so",
        "is every missing, mistyped or out-of-range field, all listed in one error.",
        "",
        "| field | accepts | default | meaning |",
        "| --- | --- | --- | --- |",
    ]
    ev = {k: v for k, v in EVENT.items() if k != "units"}
    lines += describe(ev)
    lines.append("| `units` | a list of 1..8 vehicle units | required | |")
    lines += describe(unit_fields, "units[]")
    lines.append("| `units[].tires` | an object mapping tire names to tire data | required | "
                 "axles name their tire here |")
    lines += describe(TIRE, "units[].tires.<name>")
    lines += ["", "Tire property grids (`peak_friction` ... `camber_stiffness`) have one row per test load",
              "and one column per test speed. A tire of `\"property_model\": \"partial_derivatives\"`",
              "gives each property instead as a value at `reference_load` and `reference_speed` with",
              "its derivatives in load and in speed, extrapolated linearly and held only at physical",
              "limits; a property it leaves out is derived from the tire's table (docs/equations.md,",
              "\"Tire properties by partial derivatives\"). The default relaxation lengths are 0.2 m",
              "(longitudinal) and 0.4 m (lateral); the default skid flag uses F_z,min = 50 N and",
              "tau = 0.1 (Eq. 113).", "",
              "An event file is UTF-8 JSON with each key once per object, nested at most "
              f"{MAX_DEPTH} deep.",
              "Tables (`[x, y]` rows) may have any number of rows. Once every field is valid, each",
              "unit must have a static equilibrium, the state every simulation starts from: the axles,",
              "with the vertical loads of the unit's connections, balance the sprung weight about its",
              "CG (a unit on its own needs axles on both sides of the CG; a one-axle unit stands only",
              "when a connection that carries vertical load holds it), every tire carries a load > 0",
              "and deflects less than its `max_deflection` under it (Eq. 93).", "",
              "## Terrain and hydroplaning", "",
              "`environment.terrain` chooses the road: `{\"type\": \"flat\"}` (the default) is level",
              "ground at `ground_elevation`; `{\"type\": \"mesh\", \"file\": \"road.obj\"}` a Wavefront OBJ",
              "polygon database whose vertices are earth X, Y, Z in metres, Z down (`\"z_up\": true`",
              "for a file exported Z up), its `usemtl` names selecting entries of `materials` (a",
              "polygon without one has friction multiplier 1 and is dry; a name not in `materials` is",
              "refused); `{\"type\": \"crg\", \"file\": \"road.crg\"}` an ASAM OpenCRG road surface (read",
              "with crgutils; ASCII LRFI/LDFI or binary KRBI/KDBI), its reference line's start at `origin`",
              "(earth X, Y, Z, with the file's elevation 0 at Z) heading along the earth yaw `heading`, the",
              "file's y-left, z-up frame turned into the earth's y right, z down, the whole road one material",
              "(`friction_multiplier`, `water_depth`, `texture_depth`); its grid is triangulated, two",
              "triangles a cell, at most " + f"{MAX_TRIANGLES:,}".replace(",", " ") + " triangles, and a node whose height is NaN is off",
              "the road (docs/equations.md, \"OpenCRG terrain\"); `{\"type\": \"external\"}` takes the road",
              "under each wheel from its FMU inputs `roadZ`, `roadGradeX` and `roadGradeY`. A mesh or crg file's path is relative to the folder of",
              "the event file (for an event given as a parsed object, to the current folder or the",
              "folder `load_event(event, base=...)` names); the validated data holds its absolute path,",
              "and an FMU built from the event carries a copy of the file in its resources folder. The",
              "file is read when the event is loaded: a file that cannot be read, an unknown material,",
              "a degenerate triangle, a vertex that is not finite, a face naming a missing vertex, or",
              "overlapping polygons whose heights disagree is refused with the file and line named",
              "(`environment.terrain.file: <file>, line <n>: <what>`); a crg file that crgutils cannot",
              "read or refuses, one of too many triangles, or one whose road folds over itself, with the",
              "file (and the grid cell) named. `z_up` and `materials` belong to a mesh only, `origin`,",
              "`heading`, `friction_multiplier`, `water_depth` and `texture_depth` to a crg only, `file`",
              "to both (null in the data of the other types). A tire off the road of a mesh or a crg",
              "stops the simulation with an error naming the tire and its position. A terrain or exterior",
              "file must be a regular file (a folder or a device is refused as such) whose vertices lie",
              f"within +-{MAX_ELEVATION:g} m.", "",
              "An external road's grades `roadGradeX`, `roadGradeY` are those of a road: within +-1 (45",
              "degrees, beyond which a mesh terrain's polygons are walls); on a grade near that, whether",
              "a vehicle holds is its own matter (the reference sedan slides and tips on a 45 degree",
              "crossfall). `roadZ` is declared within the event's range of elevations; it is not a",
              "rate limit, and none can be declared: the road under a wheel must move with the wheel.",
              "The inputs are one plane per wheel, met by the manual's point contact, which the engine",
              "cannot envelop: for a step, a kerb or a pothole the host gives the road's envelope over",
              "the tire's contact length (`roadZ` the effective plane's height under the wheel centre,",
              "`roadGradeX`, `roadGradeY` its slopes; `docs/equations.md`, \"Tread envelope on mesh and",
              "OpenCRG roads\"). A jump of `roadZ` between two steps loads the tire by its stiffness",
              "times the jump in one step, beyond its range its rim (`simulation.tire_limit`): ramp a",
              "road input over several steps. On a mesh or crg road the tires meet the road's envelope,",
              "and a step's face (a polygon steeper than 45 degrees between two levels of road) with it.", "",
              "The start: `units[i].initial` `X`, `Y` lie within +-" + f"{MAX_ELEVATION:g} m, where doubles are",
              "1.5e-11 m apart, so that a step's displacement keeps its precision (at 1 ms and 0.1 m/s",
              "it has seven significant digits, and a run from X = Y = 1e5 m follows the run from 0 to",
              "2e-10 m after a second at 20 m/s), and `yaw` within one turn either way (+-2 pi rad). Every",
              "unit's exterior and wheel meshes start clear of the road, the barriers and the walls: a",
              "mesh reaching into the road, or a barrier or wall through a vehicle, is refused naming",
              "`units[i].collision.mesh_file` (or `ground_clearance`), `environment.barriers[k]` or",
              "`environment.terrain.file`. The step size is checked against the stiffest contact each",
              "unit's meshes can meet (its faces pressed flat on a rigid surface, loading and unloading):",
              "a crush stiffness the step cannot integrate is refused naming",
              "`units[i].collision.crush_stiffness.<face>` and about the largest the step allows.", "",
              "`simulation.hydroplaning` other than \"off\" needs `inflation_pressure`, `tread_depth` and",
              "`width` on every tire, and \"gallaway\" the `texture_depth` of every material, or of a",
              "crg terrain (`docs/equations.md` gives the models and their sources).", "",
              "## Combinations", "",
              "A unit with `connections.front` is *towed* by the unit its `tow` names; one without is a",
              "*lead* unit. A lead unit has `steering`, `drivetrain`, `brakes.pedal_ratio` and `initial`",
              "(default all 0); a towed unit has none of them (null in the validated data): it follows",
              "the lead unit's pedal through its own brake torque ratios, and is placed by its",
              "connection. Units are listed with each tow unit before the units it tows. A `kingpin`",
              "mates a `fifth_wheel`, a `drawbar` a `pintle`; one rear connection tows one unit; the",
              "two mating points lie at the same height above ground (`cg_height - z`) within "
              f"{MATING_HEIGHT_TOLERANCE:g} m.",
              "`dolly` is allowed on a unit whose front connection is a drawbar; a `fixed` dolly's",
              "rear connection needs `pitch_stiffness` > 0. Connection model `tow` needs the tow",
              "unit's rear `stiffness` and `damping`.", "",
              "A *full trailer* is one towed unit whose front axle sits on a turntable that its",
              "drawbar steers: that axle (its first, a solid axle, not steered) has `turntable` true,",
              "and its front connection is a `drawbar` with a `drawbar_length` (m, in plan view from",
              "the tow unit's pintle to the turntable's king pin, which is the connection's `point`).",
              "The front axle's steer angle is then the angle between the drawbar and the trailer",
              "body; the drawbar is massless, hinged at both ends, so that the trailer carries its",
              "load on its own axles (no vertical load at the pintle) and the pintle's",
              "`frame_torsion`, `hitch_friction` and pitch stiffness must be 0, and the drawbar has no",
              "`failure_force`. The trailer starts in line, its king pin `drawbar_length` behind the",
              "pintle; the two points lie at the same height (a level drawbar). `dolly` stays null:",
              "a converter dolly and a semitrailer remain the way to model a dolly of its own",
              "(`docs/equations.md`, \"Full trailer: the turntable\").", "",
              "A solid axle (`suspension.type` \"solid\") needs `roll_center_height`, `spring_spacing`",
              "and `axle_roll_inertia` (above m_axle rho^2, m_axle = 2 x `unsprung_mass_per_wheel`, rho",
              "from the roll centre to the loaded wheel centre); `roll_steer` and `camber_set` default",
              "to 0. It refuses `half_track_change`, `camber_change` and `bump_steer` (null in its",
              "data); an independent suspension refuses the solid fields (null in its data). Spring",
              "rate, damping, coulomb friction and stops are per spring.", "",
              "## Several vehicles", "",
              "An event may hold several vehicles: each lead unit and the units it tows, directly or",
              "through others, is one vehicle (`Event.vehicles()`), a single unit or a combination.",
              "Every vehicle has its own initial conditions, driver inputs and outputs under its unit",
              "names; vehicles interact only through collisions (engine.collision): apart, each moves",
              "exactly as it would in an event of its own. With several lead units, every lead unit",
              "needs its own `initial` (the default, all 0, would start them in one place), and the",
              "vehicles must start apart: the plan-view footprints of their units (`dimensions.length`",
              "along the unit's x axis from `front_x`, or with equal front and rear overhangs beyond",
              "the axles when `front_x` is null, by `dimensions.width`), placed at the start positions",
              "and yaw, may not overlap (an error names the later vehicle's `<lead>.X0`, `Y0`, `yaw0`",
              "and its `units[i].initial`). Units of one vehicle may overlap, and footprints may touch.",
              "`engine/data/two-cars.json` holds the reference sedan twice: `car` at the origin along X",
              "at 20 m/s and `car2` at X = 40 m, Y = -40 m heading along +Y at 15 m/s, on paths that",
              "cross; coasting, `car` passes the crossing before `car2` reaches it.",
              "`engine/data/car-and-semitrailer.json` holds the sedan (`car`, at the origin, 20 m/s) and",
              "the reference tractor-semitrailer (`tractor`, `trailer`) in the lane to its right, the",
              "tractor's CG at X = 30 m, Y = 3.7 m, at 15 m/s. Both copy their units from the",
              "single-vehicle events unchanged but for the names and `initial`.", "",
              *vehicle_classes(),
              "## The heavy-vehicle events", "",
              "`engine/data/tractor-semitrailer.json` (\"reference tractor-semitrailer\") takes every value",
              "from `docs/reference/tractor-semitrailer.md`, with the sheet's positions behind the front",
              "axle or the kingpin and heights above ground turned into coordinates from each unit's CG.",
              "The sheet gives no reverse gear: reverse uses gear 1's ratio, 12.94. The trailer's Ixz",
              "(not on the sheet) is 0, as the tractor's. The sheet gives the tractor's steering gear",
              "ratio and its stops (0.40 rad) but no steering inertia or friction, so its",
              "`steering.mode` is \"off\" (the other modes need them). The semitrailer has the sheet's rear pintle",
              "(towing nothing here). `engine/data/double.json` is the tractor, the semitrailer",
              "(`trailer1`), the converter `dolly` on its pintle and the same semitrailer again",
              "(`trailer2`) on the dolly. Choices of this project, not sheet data: the dolly's",
              "fifth wheel is 1.35 m high (the sheet's 1.20 m would not meet the semitrailer's 1.35 m",
              "kingpin); its axle takes the tractor drive axle's roll-centre height, spring spacing,",
              "rates, damping, friction, stops and roll inertia, the tractor tire with 0.335 m dual",
              "spacing, and the brake torque ratio 0.030 N m/Pa; its Ixz is 0 and its dimensions are",
              "3.50 m x 2.50 m. Its two connections use the connection model `both`: with `heavier`",
              "the light dolly's joint pitch mode between two 20 t units needs a step below 0.39 ms.",
              "`engine/data/double-fixed-dolly.json` is the double with a `fixed` dolly; its fifth",
              "wheel's pitch stiffness 1.0e8 N m/rad and damping 1.0e5 N m s/rad are project values.",
              "`engine/data/truck-full-trailer.json` is a rigid truck and a two-axle full trailer on a",
              "turntable, project data built from the reference units: the truck is the tractor with",
              "its front and first drive axle only (a 4.08 m wheelbase) and a pintle 1.92 m behind",
              "its rear axle, 0.90 m high; the trailer carries the semitrailer's axle, tire and brakes",
              "on a 10 t, 10 m body with axles 3.0 m ahead of and behind its CG, the front one on the",
              "turntable whose king pin is over it, and a 3.0 m drawbar.", ""]
    return "\n".join(lines)


#: where each group of a vehicle class's defaults sits in the event
_CLASS_FIELDS = {"crush_stiffness": "units[].collision.crush_stiffness.{}",
                 "restitution": "units[].collision.restitution",
                 "wheel_damage": "units[].axles[].wheel_damage.{}"}


def vehicle_classes() -> list:
    """The section on the vehicle classes, generated from engine/data/vehicle_classes.json."""
    rule = TABLE["inference"]
    limit = rule["mass_limit"]
    lines = ["## Vehicle classes", "",
             "A unit's crush stiffness, restitution and wheel-damage thresholds, where the event leaves",
             "them out (or gives null), are its vehicle class's, from `engine/data/vehicle_classes.json`,",
             "which names the source of every value. The class is `units[].vehicle_class` when the",
             "event gives it; else the lead unit's `vehicle_class`; else the class of the mass of the",
             "unit's vehicle (the lead unit and every unit it tows, sprung masses with their payloads",
             f"and occupants plus the unsprung masses): `{rule['at_most']}` up to {limit['value']:g} kg, "
             f"`{rule['above']}` above",
             f"({limit['source']}). The validated data holds the class and the values it gave.", "",
             "| class | field | default | source |", "| --- | --- | --- | --- |"]
    for name, cls in TABLE["classes"].items():
        for group, keys in GROUPS.items():
            for key in (None,) if keys is None else keys:
                entry = cls[group] if key is None else cls[group][key]
                unit = "" if entry["unit"] == "1" else " " + entry["unit"]
                lines.append(f"| `{name}` | `{_CLASS_FIELDS[group].format(key)}` | {entry['value']:g}{unit} "
                             f"| {entry['source']} |")
    lines.append("")
    for name in TABLE["classes"]:
        same = [group for group in GROUPS if name != LIGHT_CLASS and borrowed(name, group)]
        if same:
            lines += [f"For lack of a published figure, the `{name}` class takes the `{LIGHT_CLASS}` class's "
                      + ", ".join(f"`{g}`" for g in same) + " (their sources say so): set them",
                      "from the vehicle's own tests where they matter.", ""]
    lines += ["The car's wheel-damage thresholds are this project's choice (docs/equations.md, \"Wheel",
              "meshes and wheel damage\").", ""]
    return lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--print" in argv:
        print(format_reference())
    else:
        PAGE.write_text(format_reference() + "\n")
        print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
