"""The packed parameters' layout (engine/setup/parameter_layout.py): every column of every array
has exactly one name, as many names as the array is wide, for every reference event; the
documentation page is generated from it and current."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import engine
from engine import layout as L
from engine.setup.parameter_layout import PREFIXES, SPECS, UNUSED, parameter_layout, slot_names

ROOT = Path(__file__).resolve().parents[1]
#: the reference events (engine/data holds the vehicle classes' table too)
EVENTS = sorted(p for p in (ROOT / "engine" / "data").glob("*.json") if p.stem != "vehicle_classes")


def test_every_slot_constant_of_a_prefix_names_one_column_of_its_array():
    named = {s.field for s in SPECS if s.named_axis is not None and not s.names} - {"P_GEAR", "P_DIFF"}
    assert named == set(PREFIXES.values())
    for field in sorted(named):
        names = slot_names(field)
        assert names, field
        for index, at in enumerate(names):
            assert len(at) == 1, f"{field}[{index}]: {at or 'no name'}"


@pytest.mark.parametrize("path", EVENTS, ids=[p.stem for p in EVENTS])
def test_the_layout_matches_the_packed_arrays_of_each_reference_event(path):
    model = engine.Simulation(engine.load_event(path)).model
    arrays = parameter_layout(model)
    assert [a.field for a in arrays] == list(L.Model._fields)
    for a in arrays:
        x = getattr(model, a.field)
        assert x.dtype == np.dtype(a.dtype), a.field
        assert x.ndim == len(a.axes) and x.shape == a.shape, a.field
        if a.named_axis is not None:
            assert len(a.columns) == x.shape[a.named_axis], a.field
            assert len(set(a.columns)) == len(a.columns), a.field
        if a.width_name:
            assert len(a.columns) == a.width == getattr(L, a.width_name) == x.shape[a.named_axis], a.field
    for field, unused in UNUSED.items():        # a column no slot names holds nothing
        assert not np.any(getattr(model, field)[:, list(unused)]), field


def test_parameter_layout_doc_is_current():
    spec = importlib.util.spec_from_file_location("parameter_layout_tool", ROOT / "tools" / "parameter_layout.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert (ROOT / "docs" / "parameter-layout.md").read_text() == tool.format_layout(), \
        "run: python tools/parameter_layout.py"
