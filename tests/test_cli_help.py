"""The command line's help texts."""
from __future__ import annotations

import pytest

from simon_fmu.__main__ import main
from simon_fmu.studies.manoeuvres import MANOEUVRES


def test_study_help_lists_every_manoeuvre(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "1000")  # one line: argparse wraps at hyphens otherwise
    with pytest.raises(SystemExit) as exit_:
        main(["study", "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert len(MANOEUVRES) == 10
    for name in MANOEUVRES:
        assert name in text, name
