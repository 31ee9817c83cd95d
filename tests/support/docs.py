"""The project's pages as the tests read them."""
from __future__ import annotations

import re

from support.fmus import ROOT


#: The page that holds the generated variable tables (tools/update_variable_tables.py).
VARIABLES_PAGE = "docs/variables.md"


def variables_section(name: str) -> str:
    """The generated section ``name`` of docs/variables.md: between ``<!-- name:begin -->``
    and ``<!-- name:end -->``."""
    text = (ROOT / VARIABLES_PAGE).read_text()
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"{VARIABLES_PAGE} has no {name} section"
    return m.group(1)
