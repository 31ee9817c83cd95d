"""The README's variable table and the event-format page are generated, and kept current."""
import re

import engine
from model_description import build_catalogue, variable_table

from conftest import ROOT


def readme_section(name):
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"README.md has no {name} section"
    return m.group(1)


def test_readme_variable_table_is_generated_from_the_catalogue():
    expected = variable_table(build_catalogue(engine.load_event()))
    assert readme_section("variables") == expected, "run: python tools/update_readme.py"
