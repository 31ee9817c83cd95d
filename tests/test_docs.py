"""The variable tables (docs/variables.md) and the event-format page are generated, and kept
current; every measured figure of the README and the docs is rendered from its result file
(tools/update_doc_numbers.py); the README and the docs link only to files in the clone."""
import importlib.util
import json
import re
import shutil
import sys

import engine
from model_description import build_catalogue, variable_table

from conftest import ROOT
from support.docs import variables_section


def test_variable_table_is_generated_from_the_catalogue():
    expected = variable_table(build_catalogue(engine.load_event()))
    assert variables_section("variables") == expected, \
        "run: .venv/bin/python tools/update_variable_tables.py"


def _doc_numbers():
    spec = importlib.util.spec_from_file_location("update_doc_numbers",
                                                  ROOT / "tools" / "update_doc_numbers.py")
    tool = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_every_marked_figure_is_the_one_its_result_file_gives():
    """Each figure between markers equals what tools/update_doc_numbers.py renders from
    benchmarks/results/, and every marker names a result file, a key and a block that exist."""
    findings = _doc_numbers().update(ROOT, write=False)
    assert not findings, "\n".join(map(str, findings)) + \
        "\nrun: .venv/bin/python tools/update_doc_numbers.py"


def test_no_measured_figure_stands_outside_a_marker():
    """A figure that reads as measured (203x, 25 us, 0.4 MB, a time where the text speaks of
    measuring) in the README and the benchmark pages sits between markers."""
    loose = _doc_numbers().unmarked(ROOT)
    assert not loose, "\n".join(loose)


def test_the_figure_checks_fail_on_a_copy_with_stale_missing_and_unmarked_figures(tmp_path):
    """On a copy of the pages and result files: a changed result makes the figures quoting it
    stale (inline and in a generated table), a marker naming a missing key or file is an error,
    and a measured figure added without a marker is found; rendering puts the figures right."""
    tool = _doc_numbers()
    for page in tool.pages(ROOT):
        (tmp_path / page.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, tmp_path / page.relative_to(ROOT))
    shutil.copytree(ROOT / tool.RESULTS, tmp_path / tool.RESULTS)
    assert not tool.update(tmp_path, write=False) and not tool.unmarked(tmp_path)

    speed = tmp_path / tool.RESULTS / "speed.json"
    report = json.loads(speed.read_text())
    shown = f"{report['results']['fmu-10ms']['real_time_factor']:.0f}"   # as the README has it
    report["results"]["fmu-10ms"]["real_time_factor"] = 150.0
    speed.write_text(json.dumps(report))
    stale = tool.update(tmp_path, write=False)
    assert shown != "150"
    assert any(f.page == "README.md" and (f.found, f.expected) == (shown, "150") for f in stale)
    assert any(f.page == "docs/benchmarks.md" and f.marker == "block speed-summary"
               and "150.0" in f.expected for f in stale)
    assert not any(f.error for f in stale)
    assert str(stale[0]).startswith(f"{stale[0].page}:{stale[0].line}: ")

    assert tool.update(tmp_path) and not tool.update(tmp_path, write=False)
    assert "150<!-- /number -->x real time" in (tmp_path / "README.md").read_text()

    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text()
                      .replace("results.fmu-1ms.doStep.p99_us", "results.fmu-1ms.doStep.p98_us")
                      .replace("<!-- number native:", "<!-- number nativ:", 1)
                      .replace("file_bytes / 1e6 as .1f", "file_bytes / 1e6 | .1f"))
    errors = [f.error for f in tool.update(tmp_path, write=False)]
    assert any("speed.json has no results.fmu-1ms.doStep.p98_us" in e for e in errors), errors
    assert any("no result file benchmarks/results/nativ.json" in e for e in errors), errors
    assert any("a marker this tool cannot read" in e for e in errors), errors

    page = tmp_path / "docs" / "native.md"
    page.write_text(page.read_text() + "\nMeasured again: 99x real time, 12.5 us a doStep, "
                    "0.5 MB; it took 2.5 s to start.\n")
    loose = tool.unmarked(tmp_path)
    assert [f.split(": ")[1].split()[0] for f in loose] == ["'99x'", "'0.5", "'12.5", "'2.5"], loose
    assert all(f.startswith(f"docs/native.md:{len(page.read_text().splitlines())}: ")
               for f in loose), loose


def test_the_agreement_figures_fail_when_stale_or_written_without_a_marker(tmp_path):
    """On a copy: a changed figure of agreement.json (tools/measure_agreement.py) makes its
    copies in the README and the guides stale; a figure of agreement written without a marker
    (a percentage against a closed form or a model, a largest difference, a deltaV, a crush,
    N of M values, an amplification) is found on the pages that repeat the README's."""
    tool = _doc_numbers()
    for page in tool.pages(ROOT):
        (tmp_path / page.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, tmp_path / page.relative_to(ROOT))
    shutil.copytree(ROOT / tool.RESULTS, tmp_path / tool.RESULTS)
    agreement = tmp_path / tool.RESULTS / "agreement.json"
    report = json.loads(agreement.read_text())
    report["figures"]["understeer"]["vs_k_us"] = 0.1
    report["figures"]["tbone"]["crush_m"][0] = 0.5
    agreement.write_text(json.dumps(report))
    stale = {(f.page, f.expected) for f in tool.update(tmp_path, write=False)}
    assert {("README.md", "10.0"), ("docs/limitations.md", "10.0"),
            ("docs/guide-own-vehicle.md", "10.0"), ("README.md", "0.50"),
            ("docs/usage.md", "0.50"), ("docs/guide-crash-reconstruction.md", "0.50")} <= stale, \
        stale

    page = tmp_path / "docs" / "guide-own-vehicle.md"
    added = ["The truck's gradient came out 7.5 % above the bicycle model.",
             "Under wine the largest difference 2.3e-10, and 100 of 200 values bit-identical.",
             "The deltaV was 30.2 and 28.1 km/h, and it crushes the door 0.35 m.",
             "The triple's rearward amplification in that run is 2.40."]
    page.write_text(page.read_text() + "\n" + "\n".join(added) + "\n")
    first = len(page.read_text().splitlines()) - len(added) + 1
    loose = [f for f in tool.unmarked(tmp_path) if f.startswith("docs/guide-own-vehicle.md:")]
    assert [int(f.split(":")[1]) for f in loose] == \
        [first, first + 1, first + 1, first + 2, first + 2, first + 3], loose
    assert all("reads as an agreement figure and has no marker" in f for f in loose), loose


def test_a_span_reads_as_one_figure_when_its_ends_agree_and_count_counts(tmp_path):
    """``span(lo, hi)``: "lo to hi", or one figure where the two ends read alike; ``count``:
    a list's items."""
    tool = _doc_numbers()
    (tmp_path / tool.RESULTS).mkdir(parents=True)
    (tmp_path / tool.RESULTS / "runs.json").write_text(json.dumps(
        {"start": [{"s": 0.00104}, {"s": 0.00112}], "close": [{"s": 0.00109}, {"s": 0.00111}]}))
    results = tool.Results(tmp_path)
    assert tool.render_number(results, "runs", "span(min(start[*].s) * 1000, "
                              "max(start[*].s) * 1000)", ".2f") == "1.04 to 1.12"
    assert tool.render_number(results, "runs", "span(min(close[*].s) * 1000, "
                              "max(close[*].s) * 1000)", ".1f") == "1.1"
    assert tool.render_number(results, "runs", "count(start[*].s)", None) == "2"


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
