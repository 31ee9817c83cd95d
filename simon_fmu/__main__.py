"""Command line.

``python -m simon_fmu build [EVENT_FILE] -o OUT.fmu`` builds an FMU (the default car without
EVENT_FILE); ``python -m simon_fmu variables [EVENT_FILE]`` prints its variable table;
``python -m simon_fmu ssp SYSTEM -o OUT.ssp`` writes a closed-loop system as an SSP file.
``python -m simon_fmu sweep SPEC.json -o RESULTS`` runs a parameter sweep on Dask and
``python -m simon_fmu study MANOEUVRE [EVENT] -o OUT_DIR`` one standard manoeuvre with its
report (:mod:`simon_fmu.studies`).
``--standalone`` (build, build-driver, build-abs) writes an FMU that carries its own Python
(docs/standalone.md); ``python -m simon_fmu doctor FMU`` checks an FMU on this machine.
``python -m simon_fmu rough-road --class B -o ROAD.crg`` writes an ISO 8608 random road as an
OpenCRG file (:mod:`simon_fmu.tools.rough_road`).
``python -m simon_fmu pulse HISTORY.csv --unit car -o OUT_DIR`` writes a run's collision pulse,
CFC-filtered, and its event data recorder table (:mod:`simon_fmu.tools.pulse`).
``python -m simon_fmu exterior FMU STATE -o OUT.obj`` writes the vehicles' exteriors as the
crush left them in a serialised FMU state (:mod:`simon_fmu.tools.exterior`).
``python -m simon_fmu crash3-coefficients --mass KG --speed KM_H --width M --crush C1 .. C6``
prints the CRASH3 A and B of a full-width frontal barrier test (:mod:`simon_fmu.tools.crash3`).

Every command that writes checks its ``-o`` first, before any work
(:func:`simon_fmu.runtime.packaging.check_output`): it never replaces one of its own input
files, a folder, a device, a FIFO or a link, nor an existing file that is not an output of
its kind; only the folder ``out/`` is created when missing. A refusal is one line on stderr
and exit status 2.
"""
from __future__ import annotations

import argparse
import sys

from .tools.report import print_event_error

#: What an existing file at ``-o`` must be for a command to replace it (besides empty).
FMU_MEMBER = "modelDescription.xml"
SSP_MEMBER = "SystemStructure.ssd"


def _check_output(args, engine) -> None:
    """The ``-o`` check of build, build-driver, build-abs and ssp (OutputError if refused)."""
    from .runtime.packaging import check_output, is_zip_with
    if args.command == "ssp":
        given = [(f"the {name} FMU given with --{name}", getattr(args, name))
                 for name in ("vehicle", "driver", "abs")]
        check_output(args.output, given, is_zip_with(SSP_MEMBER))
    else:
        from .vehicle.build import event_inputs
        event = engine.load_event(args.event_file)
        check_output(args.output, event_inputs(args.event_file, event),
                     is_zip_with(FMU_MEMBER))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simon_fmu",
                                     description="SIMON vehicle-dynamics FMU tools")
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build an FMI 2.0 Co-Simulation FMU")
    build.add_argument("event_file", nargs="?", default=None,
                       help="event JSON file (default: the default car)")
    build.add_argument("-o", "--output", default="out/SimonCar.fmu",
                       help="FMU file to write (default: %(default)s)")
    build.add_argument("--model-identifier", default="SimonCar",
                       help="modelIdentifier, the shared library's name (default: %(default)s)")
    build.add_argument("--no-warm", action="store_true",
                       help="do not compile the bundled engine at build time")
    build.add_argument("--library", choices=("simon", "pythonfmu"), default="simon",
                       help="the FMU's shared library: the project's own (default) or "
                            "pythonfmu 0.7.0's")
    standalone_help = ("write an FMU that carries its own Python runtime and compiled kernels, "
                       "for Linux x86-64 machines without this environment (docs/standalone.md)")
    build.add_argument("--standalone", action="store_true", help=standalone_help)
    build.add_argument("--native", action="store_true",
                       help="write an FMU whose binary is the engine's kernels compiled ahead of "
                            "time with an FMI runtime in C: no Python at run time (Linux x86-64, "
                            "Windows x86-64, Linux ARM64; the event's default parameters; "
                            "docs/native.md)")
    build.add_argument("--platforms", default=None, metavar="LIST",
                       help="with --native: the binaries to build, comma-separated from "
                            "linux64, win64, aarch64-linux (default: all three; each needs its "
                            "C compiler, tools/system-packages.txt)")
    drv = commands.add_parser("build-driver", help="build the closed-loop driver FMU")
    drv.add_argument("event_file", nargs="?", default=None,
                     help="the vehicle's event JSON file (default: the default car)")
    drv.add_argument("-o", "--output", default="out/Driver.fmu",
                     help="FMU file to write (default: %(default)s)")
    drv.add_argument("--standalone", action="store_true", help=standalone_help)
    abs_ = commands.add_parser("build-abs", help="build the ABS FMU for a vehicle")
    abs_.add_argument("event_file", nargs="?", default=None,
                      help="the vehicle's event JSON file (default: the default car)")
    abs_.add_argument("-o", "--output", default="out/ABS.fmu",
                      help="FMU file to write (default: %(default)s)")
    abs_.add_argument("--standalone", action="store_true", help=standalone_help)
    doctor = commands.add_parser("doctor", help="check that an FMU runs on this machine, and "
                                                "what to do if it does not")
    doctor.add_argument("fmu", help="the .fmu file or an extracted FMU folder")
    ssp = commands.add_parser("ssp", help="write a closed-loop system as an SSP file")
    ssp.add_argument("system", choices=("lane-change", "abs-braking", "split-mu"),
                     help="the system (see simon_fmu.cosim.ssp)")
    ssp.add_argument("-o", "--output", default=None,
                     help="SSP file to write (default: out/<system>.ssp)")
    for name in ("vehicle", "driver", "abs"):
        ssp.add_argument(f"--{name}", default=None, metavar="FMU",
                         help=f"the {name} FMU to use (default: build it)")
    table = commands.add_parser("variables", help="print the FMU's variables as a Markdown table")
    table.add_argument("event_file", nargs="?", default=None,
                       help="event JSON file (default: the default car)")
    table.add_argument("--all", action="store_true",
                       help="list every variable by name, not each kind once")
    sweep = commands.add_parser("sweep", help="run a parameter sweep of a manoeuvre on Dask")
    sweep.add_argument("spec", help="sweep specification JSON (simon_fmu.studies.spec)")
    sweep.add_argument("-o", "--output", required=True,
                       help="results table: Parquet, or CSV when the name ends .csv")
    where = sweep.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=2,
                       help="worker processes of the local Dask cluster (default: %(default)s)")
    where.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="an existing Dask scheduler (e.g. tcp://host:8786) instead")
    sweep.add_argument("--fmu", default=None,
                       help="the FMU to run (default: built from the spec's event, cached in "
                            "out/studies)")
    sweep.add_argument("--retry-failed", action="store_true",
                       help="run the cases that failed before again")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar")
    study = commands.add_parser("study", help="run one standard manoeuvre and write its report")
    from .studies.manoeuvres import MANOEUVRES
    names = list(MANOEUVRES)
    study.add_argument("manoeuvre", help=", ".join(names[:-1]) + " or " + names[-1])
    study.add_argument("event_file", nargs="?", default=None,
                       help="event JSON file (default: the default car)")
    study.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help="a manoeuvre setting or FMU parameter (repeatable)")
    study.add_argument("-o", "--output", required=True, help="folder for the report")
    study.add_argument("--fmu", default=None,
                       help="the FMU to run (default: built from the event, cached in "
                            "out/studies)")
    from .tools.rough_road import BAND, CLASSES
    rough = commands.add_parser("rough-road", help="write an ISO 8608 random road profile "
                                                   "(classes A to D) as an OpenCRG file")
    rough.add_argument("--class", dest="road_class", type=str.upper, default="B",
                       metavar="CLASS", help=f"ISO 8608 class: {', '.join(CLASSES)} "
                                             f"(default: %(default)s)")
    rough.add_argument("--length", type=float, default=400.0,
                       help="length of the road, m (default: %(default)s)")
    rough.add_argument("--seed", type=int, default=1,
                       help="seed of the random phases: the same seed, the same road "
                            "(default: %(default)s)")
    rough.add_argument("--step", type=float, default=0.02,
                       help="sample spacing along the road, m (default: %(default)s)")
    rough.add_argument("--width", type=float, default=4.0,
                       help="width of the road, m; every line across it has the same "
                            "profile (default: %(default)s)")
    rough.add_argument("--band", type=float, nargs=2, default=list(BAND),
                       metavar=("LOW", "HIGH"),
                       help="spatial frequencies synthesised, cycles/m (default: %(default)s)")
    rough.add_argument("--period", type=float, default=None,
                       help="the profile repeats every PERIOD m (default: the length, at "
                            "least 1/LOW)")
    rough.add_argument("-o", "--output", default=None,
                       help="OpenCRG file to write (default: out/rough-road-CLASS.crg)")
    ext = commands.add_parser("exterior", help="write the exteriors of a run's vehicles as the "
                              "crush left them (OBJ), from an FMU (development or native) and a "
                              "serialised FMU state of it")
    ext.add_argument("fmu", help="the FMU the state belongs to (development or native)")
    ext.add_argument("state", help="a file of fmi2SerializeFMUstate's bytes")
    ext.add_argument("-o", "--output", default="out/exteriors.obj",
                     help="OBJ file to write (default: %(default)s)")
    pulse = commands.add_parser("pulse", help="write a run's collision pulse (SAE J211 CFC 60 "
                                "and 180) and its event data recorder table (49 CFR 563)")
    pulse.add_argument("history", help="CSV of the run's outputs (time, <unit>.ax, ay, az, p, q, "
                       "r, collision.contact, collision.Fx, collision.Fy)")
    pulse.add_argument("--unit", default="car", help="the unit (default: car)")
    pulse.add_argument("--point", type=float, nargs=3, default=None, metavar=("X", "Y", "Z"),
                       help="the recorder's or an occupant's vehicle-fixed point, m from the CG "
                            "(x forward, y right, z down; default: the CG)")
    pulse.add_argument("-o", "--output", default="out/pulse",
                       help="folder for pulse.csv, edr.csv and summary.json (default: out/pulse)")
    from .tools.crash3 import add_parser as add_crash3_parser
    add_crash3_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "crash3-coefficients":
        from .tools.crash3 import main as crash3_main
        return crash3_main(args)
    if args.command == "exterior":
        from .tools.exterior import main as exterior_main
        return exterior_main(args)
    if args.command == "pulse":
        from .tools.pulse import main as pulse_main
        return pulse_main(args)
    if args.command == "rough-road":
        from .tools.rough_road import problems
        found = problems(args.road_class, args.length, args.seed, args.step, args.width,
                         tuple(args.band), args.period)
        if found:
            rough.error("; ".join(f"--{name}: {what}" for name, what in found))
        if args.output is None:
            args.output = f"out/rough-road-{args.road_class}.crg"
    if args.command == "sweep":
        if args.workers < 1:
            parser.error("--workers: expected a whole number >= 1")
        from .studies.sweep import main as sweep_main
        return sweep_main(args)
    if args.command == "study":
        from .studies.study import main as study_main
        return study_main(args)

    import engine
    from .runtime.packaging import OutputError
    try:
        if args.command == "ssp" and args.output is None:
            args.output = f"out/{args.system}.ssp"
        if args.command in ("build", "build-driver", "build-abs", "ssp"):
            _check_output(args, engine)
        if args.command == "build" and args.native:
            from .native.build import build_native
            if args.standalone or args.library != "simon":
                parser.error("--native takes neither --standalone nor --library")
            print(build_native(args.event_file, args.output, args.model_identifier,
                               log=lambda text: print(text, file=sys.stderr),
                               platforms=args.platforms))
        elif args.command == "build" and args.platforms is not None:
            parser.error("--platforms goes with --native")
        elif args.command == "build" and args.standalone:
            from .runtime.standalone import build_standalone
            from .vehicle.build import build_fmu
            if args.library != "simon":
                parser.error("--standalone needs the project's own library (--library simon)")
            print(build_standalone(build_fmu, args.output, args.event_file,
                                   model_identifier=args.model_identifier, warm_cache=False))
        elif args.command == "build":
            from .vehicle.build import build_fmu
            print(build_fmu(args.event_file, args.output, args.model_identifier,
                            warm_cache=not args.no_warm, library=args.library))
        elif args.command in ("build-driver", "build-abs"):
            from .controllers import build as controllers
            builder = controllers.build_driver if args.command == "build-driver" \
                else controllers.build_abs
            if args.standalone:
                from .runtime.standalone import build_standalone
                print(build_standalone(builder, args.output, args.event_file))
            else:
                print(builder(args.event_file, args.output))
        elif args.command == "rough-road":
            from .tools.rough_road import main as rough_road_main
            return rough_road_main(args)
        elif args.command == "doctor":
            from .tools.doctor import doctor
            return doctor(args.fmu)
        elif args.command == "ssp":
            from .cosim.ssp import make_ssp
            print(make_ssp(args.system, args.output,
                           {"vehicle": args.vehicle, "driver": args.driver, "abs": args.abs}))
        else:
            from model_description import build_catalogue, variable_table
            event = engine.load_event(args.event_file)
            print(variable_table(build_catalogue(event), generic=not args.all), end="")
            if not args.all:
                print("each kind of variable once, with <unit>, <k> and <side> for the unit, "
                      "axle and side; --all lists every variable by name", file=sys.stderr)
    except engine.EventError as exc:
        return print_event_error(args.event_file, exc)
    except OutputError as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        from .native.build import NativeBuildError
        if not isinstance(exc, NativeBuildError):
            raise
        print(f"{args.command} --native: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
