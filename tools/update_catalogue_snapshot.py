"""Rewrite ``tests/data/sedan_catalogue.json``, the default car's catalogue that
``tests/test_combination_catalogue.py`` holds the catalogue to, after a change that adds or
moves the car's variables on purpose.

The file holds every variable's row (the test's columns, one variable per line, so that a
review shows each change) and the SHA-256 of the modelDescription written with the test's
fixed GUID and date. Run it, read the diff, then update the test's variable count and its
docstring's list of what the car gained.
"""
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import engine  # noqa: E402
from model_description import build_catalogue, model_description_xml  # noqa: E402
from test_combination_catalogue import DATE  # noqa: E402
from simon_fmu.vehicle.build import DESCRIPTION  # noqa: E402

SNAPSHOT = ROOT / "tests" / "data" / "sedan_catalogue.json"


def main():
    columns = json.loads(SNAPSHOT.read_text())["columns"]
    catalogue = build_catalogue(engine.load_event())
    rows = []
    for v in catalogue:
        row = [getattr(v, c) for c in columns]
        source, index = row[columns.index("binding")]
        row[columns.index("binding")] = [source, list(index)]
        rows.append(json.dumps(row))
    xml = model_description_xml(catalogue, model_identifier="SimonCar",
                                guid="{00000000-0000-0000-0000-000000000000}",
                                generated_at=DATE, description=DESCRIPTION)
    SNAPSHOT.write_text(
        f'{{"model_description_sha256": "{hashlib.sha256(xml).hexdigest()}",\n'
        f' "columns": {json.dumps(columns)},\n "variables": [\n  '
        + ",\n  ".join(rows) + "\n]}\n")
    print(f"{SNAPSHOT.relative_to(ROOT)}: {len(rows)} variables")


if __name__ == "__main__":
    main()
