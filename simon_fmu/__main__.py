"""Command line: ``python -m simon_fmu build [EVENT_FILE] -o OUT.fmu``."""
from __future__ import annotations

import argparse
import sys


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
    args = parser.parse_args(argv)

    import engine
    from .build import build_fmu
    try:
        path = build_fmu(args.event_file, args.output, args.model_identifier)
    except engine.EventError as exc:
        print(f"{args.event_file}: not a valid event:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
