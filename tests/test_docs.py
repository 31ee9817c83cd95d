"""The variable tables (docs/variables.md) and the event-format page are generated, and kept
current; the README and the docs link only to files in the clone."""
import re

import engine
from model_description import build_catalogue, variable_table

from conftest import ROOT
from support.docs import variables_section


def test_variable_table_is_generated_from_the_catalogue():
    expected = variable_table(build_catalogue(engine.load_event()))
    assert variables_section("variables") == expected, \
        "run: .venv/bin/python tools/update_variable_tables.py"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _markdown_files():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
            *sorted((ROOT / "benchmarks").glob("*.md"))]


def test_every_relative_link_in_the_docs_resolves_inside_the_clone():
    broken = []
    for page in _markdown_files():
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            if ROOT.resolve() not in path.parents or not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_docs_cite_no_file_outside_the_clone():
    """The docs may not send a reader to ../shared or other folders beside the clone."""
    offenders = [str(p.relative_to(ROOT)) for p in _markdown_files()
                 if "../shared" in p.read_text()]
    assert not offenders, offenders


def test_docs_name_no_folder_of_the_machine_they_were_written_on():
    """A reader's clone is elsewhere: examples show a path of their own, not this clone's."""
    here = str(ROOT.resolve())
    offenders = [str(p.relative_to(ROOT)) for p in _markdown_files() if here in p.read_text()]
    assert not offenders, offenders


def test_every_test_marker_the_docs_name_marks_some_test():
    named = {m for page in _markdown_files()
             for m in re.findall(r"marked `(\w+)`", page.read_text())}
    used = "".join(p.read_text() for p in (ROOT / "tests").rglob("*.py"))
    unused = sorted(m for m in named if f"mark.{m}" not in used)
    assert not unused, unused


def test_no_test_installs_system_packages():
    """System packages come from the set-up step (`make setup`, tools/system-packages.txt)."""
    installer = "apt" + "-get"      # spelt apart, so that this file does not match itself
    pattern = re.compile(rf"""["']{installer}["']|{installer} install""")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                 if pattern.search(p.read_text())]
    assert not offenders, offenders


def test_variables_command_says_how_to_list_every_variable():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "variables"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "`<unit>.X`" in done.stdout and "--all" in done.stderr
    every = subprocess.run([sys.executable, "-m", "simon_fmu", "variables", "--all"],
                           capture_output=True, text=True, cwd=ROOT)
    assert "`car.axle2.right.Fz`" in every.stdout and not every.stderr
