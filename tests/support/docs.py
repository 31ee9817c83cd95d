"""The project's pages as the tests read them."""
from __future__ import annotations

import re

from support.fmus import ROOT


def readme_section(name: str) -> str:
    """The generated section ``name`` of README.md: between ``<!-- name:begin -->`` and
    ``<!-- name:end -->``."""
    text = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"README.md has no {name} section"
    return m.group(1)
