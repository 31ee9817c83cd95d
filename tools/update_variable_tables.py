"""Regenerate the variable tables of docs/variables.md from the catalogue (the single source of
truth).

Two sections: ``variables``, every variable of the default car, and ``combination-variables``,
the kinds of variable a combination adds, those of a towed unit's front connection and of a
solid axle, as the reference tractor-semitrailer has them.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from model_description import build_catalogue, variable_table  # noqa: E402

#: The combination whose extra variables docs/variables.md lists.
COMBINATION_EVENT = ROOT / "engine" / "data" / "tractor-semitrailer.json"


def sections() -> dict[str, str]:
    """The page's generated sections: name -> text between its begin and end markers."""
    combination = build_catalogue(engine.load_event(COMBINATION_EVENT))
    return {"variables": variable_table(build_catalogue(engine.load_event())),
            "combination-variables": variable_table(
                combination, only=lambda v: v.binding.source in ("y_axle", "y_conn"))}


def main():
    page = ROOT / "docs" / "variables.md"
    text = page.read_text()
    for name, table in sections().items():
        text, n = re.subn(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)",
                          lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
        if n != 1:
            raise SystemExit(f"docs/variables.md: no <!-- {name}:begin --> ... <!-- {name}:end --> section")
    page.write_text(text)


if __name__ == "__main__":
    main()
