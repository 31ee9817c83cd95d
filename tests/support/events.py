"""Checking the event format: the problems a refused event is refused with."""
from __future__ import annotations

import pytest

import engine


def problems(data) -> list[str]:
    """The problems :func:`engine.load_event` names in refusing ``data`` (it must refuse)."""
    with pytest.raises(engine.EventError) as exc:
        engine.load_event(data)
    return exc.value.problems
