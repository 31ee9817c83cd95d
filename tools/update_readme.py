"""Regenerate the README's variable table from the catalogue (the single source of truth)."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from model_description import build_catalogue, variable_table  # noqa: E402


def main():
    readme = ROOT / "README.md"
    text = readme.read_text()
    table = variable_table(build_catalogue(engine.load_event()))
    text = re.sub(r"(<!-- variables:begin -->\n).*?(<!-- variables:end -->)",
                  lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    readme.write_text(text)


if __name__ == "__main__":
    main()
