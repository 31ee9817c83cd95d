"""Write the benchmark's mesh event: the default car on a flat 20 000-triangle mesh.

The mesh (Wavefront OBJ, tests/support/roads.py, grid_mesh_obj) is level at the event's ground
elevation and covers the variants' paths with room to spare: the 20 s sine at 20 m/s starts
at X = Y = 0 and goes about 400 m forward and 25 m to the right (Y +); engine-advance holds
the steering at the sine's amplitude, a circle to the right of about 107 m radius (3.75 m/s^2)
through X = -107 to 107 m and Y = 0 to 214 m. On a level mesh
the physics are those of flat ground, so the timings against the flat event differ only by
the terrain look-up (the mesh's grid, per tire per evaluation).

    python benchmarks/mesh_event.py [--out out] [--triangles 20000]
    python benchmarks/speed.py --event out/bench-mesh.json     # FMU out/SimonBenchMesh.fmu
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAME = "bench-mesh"
X_RANGE = (-120.0, 410.0)    # m: the sine runs from X = 0 to about 400 m, the circle from -107 m
Y_RANGE = (-10.0, 230.0)     # m: the sine from Y = 0 to about 25 m, the circle to 214 m
TRIANGLES = 20000


def write(out: Path, triangles: int = TRIANGLES) -> Path:
    """Write ``<out>/bench-mesh.obj`` and ``<out>/bench-mesh.json``; the event's path.

    The grid's quads (two triangles each) are as near square as the count allows: the rows
    across Y are the divisor of the quad count nearest to the square grid's."""
    sys.path[:0] = [str(REPO), str(REPO / "tests")]
    from support.roads import grid_mesh_obj

    out.mkdir(parents=True, exist_ok=True)
    data = json.loads((REPO / "engine" / "data" / "sedan.json").read_text())
    lx, ly = X_RANGE[1] - X_RANGE[0], Y_RANGE[1] - Y_RANGE[0]
    if triangles < 2 or triangles % 2:
        raise SystemExit(f"--triangles: an even count >= 2 (got {triangles})")
    quads = triangles // 2
    square = math.sqrt(quads * ly / lx)
    ny = min((d for d in range(1, quads + 1) if quads % d == 0), key=lambda d: abs(d - square))
    nx = quads // ny
    z = data["environment"]["ground_elevation"]
    grid_mesh_obj(out / f"{NAME}.obj", lambda X, Y: z + 0.0 * X, X_RANGE, Y_RANGE, (nx, ny))
    data["name"] = NAME
    data["description"] = (f"the default car on a level mesh of {triangles} triangles "
                           "(benchmarks/mesh_event.py)")
    data["environment"]["terrain"] = {"type": "mesh", "file": f"{NAME}.obj"}
    path = out / f"{NAME}.json"
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "out")
    parser.add_argument("--triangles", type=int, default=TRIANGLES)
    args = parser.parse_args(argv)
    print(f"wrote {write(args.out, args.triangles)}")


if __name__ == "__main__":
    main()
