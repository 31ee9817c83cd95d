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


def test_a_long_step_says_what_it_is_doing_and_a_quick_one_stays_silent():
    """A compile that takes long (a cold cache) prints what it is doing once; a quick one
    (a warm cache) prints nothing (engine.setup.progress.says_when_slow, used by the engine, the build,
    the standalone build and the test session's warm-up)."""
    import io
    import time

    from simon_fmu.tools.report import says_when_slow
    out = io.StringIO()
    with says_when_slow("compiling ...", after=0.05, stream=out):
        time.sleep(0.3)
    assert out.getvalue() == "compiling ...\n"
    quiet = io.StringIO()
    with says_when_slow("compiling ...", after=0.5, stream=quiet):
        pass
    time.sleep(0.6)
    assert quiet.getvalue() == ""
