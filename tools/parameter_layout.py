"""Write docs/parameter-layout.md, the packed parameters' layout generated from
engine/setup/parameter_layout.py (the slot constants of engine/layout.py).

    .venv/bin/python tools/parameter_layout.py           # writes docs/parameter-layout.md
    .venv/bin/python tools/parameter_layout.py --print   # prints it

tests/test_parameter_layout.py checks that the page is current.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.setup.parameter_layout import PREFIXES, RUNS, UNUSED, parameter_layout  # noqa: E402

#: the page this script writes
PAGE = ROOT / "docs" / "parameter-layout.md"


def format_layout() -> str:
    """The packed parameters' layout as Markdown (docs/parameter-layout.md)."""
    arrays = parameter_layout()
    lines = [
        "# Packed parameter layout",
        "",
        "The kernels read the event as the arrays of `engine.layout.Model`, packed once by",
        "`engine.setup.params.pack`, each subsystem its own rows and columns (`engine/setup/pack/`,",
        "`engine/setup/collision.py`, `engine/setup/wheel_meshes.py`). This page is generated from",
        "`engine/setup/parameter_layout.py` (`python tools/parameter_layout.py`), which takes the",
        "column names from the slot constants of `engine/layout.py`. Every array is C-ordered and",
        "little-endian in `resources/native.bin` (as `P.<field>`, [native.md](native.md)); integers",
        "held in a float64 column (indices, counts, codes) are whole numbers.",
        "",
        "## The arrays",
        "",
        "| field | dtype | axes | one row is | packed by (`engine.setup.`) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for a in arrays:
        axes = ", ".join(f"{x} (`{a.width_name}` = {a.width})" if a.width_name and i == a.named_axis else x
                         for i, x in enumerate(a.axes))
        lines.append(f"| `{a.field}` | {a.dtype} | [{axes}] | {a.row} | {a.packer} |")
    lines += ["", "## Which slot constants name which array", "",
              "A constant belongs to the longest prefix it starts with.", "",
              "| prefix | array |", "| --- | --- |"]
    lines += [f"| `{p}*` | `{f}` |" for p, f in PREFIXES.items()]
    lines += ["", "A slot that starts a run of unnamed columns names them `<slot>+k`: "
              + ", ".join(f"`{k}` ({n})" for k, n in RUNS.items()) + ".",
              "Columns no slot names: " + ", ".join(f"`{f}` {list(ix)}" for f, ix in UNUSED.items())
              + " (`N_WCOLL_P` = 11 + 6 counts `WC_K0` twice; the column is always 0).", "",
              "## Columns", ""]
    for a in arrays:
        if not a.columns:
            continue
        axis = a.axes[a.named_axis]
        lines += [f"### `{a.field}`", "", f"One row: {a.row}. Index of the {axis} axis:", ""]
        if a.field == "P_GEAR":
            lines += ["0 `reverse`, k `gear<k>` for k = 1 .. the event's most forward gears.", ""]
            continue
        if a.field == "P_DIFF":
            lines += ["k - 1 `differential<k>` for k = 1 .. the event's most differential gears (the "
                      "input `differentialGear`; at least 1).", ""]
            continue
        lines.append(" ".join(f"{i} `{c}`" for i, c in enumerate(a.columns)))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--print" in argv:
        print(format_layout(), end="")
    else:
        PAGE.write_text(format_layout())
        print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
