"""What the commands write with -o (simon_fmu.runtime.packaging.check_output): never one of
their own inputs, a folder, a device, a FIFO, a link or a file that is not an output of
theirs, nor into a missing folder other than out/; a refusal is one line on stderr and exit
status 2, before any work. And study and sweep with a missing event or an FMU of another
event than the one given."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import engine
from engine.setup.event import DEFAULT_EVENT
from simon_fmu.__main__ import main as cli
from simon_fmu.runtime.packaging import OutputError, check_output, is_zip_with
from simon_fmu.studies.results import not_a_table

from conftest import ROOT, renamed_event

MESH = "v -50 -50 0\nv 50 -50 0\nv 50 50 0\nv -50 50 0\nf 1 2 3\nf 1 3 4\n"


def refused(capsys, argv: list[str], names: str) -> str:
    """Run the command in this process: exit 2 and one line on stderr that names ``names``."""
    assert cli(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert names in lines[0] and captured.out == ""
    return lines[0]


@pytest.fixture
def event(tmp_path) -> Path:
    """The default car's event, copied."""
    path = tmp_path / "ev.json"
    shutil.copyfile(DEFAULT_EVENT, path)
    return path


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


# --- build, build --standalone, build-driver, build-abs -----------------------------------

@pytest.mark.parametrize("command", [["build"], ["build", "--standalone"], ["build-driver"],
                                     ["build-abs"]])
def test_a_build_never_replaces_its_event_file(command, event, capsys):
    before = event.read_bytes()
    line = refused(capsys, command + [str(event), "-o", str(event)], str(event))
    assert "event file" in line
    assert event.read_bytes() == before
    assert not Path(str(event) + ".partial").exists()


def test_a_build_never_replaces_the_files_the_event_names(tmp_path, capsys):
    (tmp_path / "road.obj").write_text(MESH)
    data = json.loads(Path(DEFAULT_EVENT).read_text())
    data["environment"]["terrain"] = {"type": "mesh", "file": "road.obj"}
    event = tmp_path / "mesh.json"
    event.write_text(json.dumps(data))
    engine.load_event(event)                       # a valid event: the check alone refuses
    line = refused(capsys, ["build", str(event), "-o", str(tmp_path / "road.obj")], "road.obj")
    assert "terrain file" in line
    assert (tmp_path / "road.obj").read_text() == MESH


def test_a_build_replaces_no_fifo_folder_link_or_other_file(event, fifo, tmp_path, capsys):
    assert "not a regular file" in refused(capsys, ["build", "-o", str(fifo)], str(fifo))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert "folder" in refused(capsys, ["build", "-o", str(tmp_path)], str(tmp_path))
    for target in (fifo, tmp_path, event):
        link = tmp_path / f"link-to-{target.name}"
        link.symlink_to(target)
        refused(capsys, ["build-abs", "-o", str(link)], str(link))
        assert link.is_symlink()
    notes = tmp_path / "notes.fmu"
    notes.write_text("not an FMU")
    assert "not a zip file" in refused(capsys, ["build-driver", "-o", str(notes)], str(notes))
    assert notes.read_text() == "not an FMU"


@pytest.mark.parametrize("device", ["/dev/null", "/dev/full"])
def test_a_build_replaces_no_device(device, capsys):
    assert "not a regular file" in refused(capsys, ["build", "-o", device], device)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_an_empty_path_or_the_current_folder_is_refused_without_a_traceback(tmp_path):
    for output in ("", ".", "sub/"):
        done = subprocess.run([sys.executable, "-m", "simon_fmu", "build", "-o", output],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        assert "folder" in done.stderr or "empty path" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_refused_naming_it(tmp_path, capsys):
    output = tmp_path / "missing" / "deeper" / "car.fmu"
    line = refused(capsys, ["build", "-o", str(output)], str(output.parent))
    assert "does not exist" in line
    assert not (tmp_path / "missing").exists()


def test_ssp_never_replaces_an_fmu_it_is_given(tmp_path, capsys):
    given = tmp_path / "car.fmu"
    with zipfile.ZipFile(given, "w") as z:
        z.writestr("modelDescription.xml", "<fmiModelDescription/>")
    before = given.read_bytes()
    line = refused(capsys, ["ssp", "abs-braking", "--vehicle", str(given), "-o", str(given)],
                   str(given))
    assert "--vehicle" in line and given.read_bytes() == before
    # an FMU is no SSP file either
    other = tmp_path / "other.ssp"
    shutil.copyfile(given, other)
    assert "SystemStructure.ssd" in refused(capsys, ["ssp", "lane-change", "-o", str(other)],
                                            str(other))


def test_what_an_existing_output_may_be(tmp_path):
    """Outputs of the command's own kind, and empty files, are replaced; nothing else."""
    fmu = tmp_path / "old.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", "<fmiModelDescription/>")
    assert check_output(fmu, accepts=is_zip_with("modelDescription.xml")) == fmu
    with pytest.raises(OutputError, match="SystemStructure.ssd"):
        check_output(fmu, accepts=is_zip_with("SystemStructure.ssd"))
    empty = tmp_path / "empty.fmu"
    empty.touch()
    assert check_output(empty, accepts=is_zip_with("modelDescription.xml")) == empty
    csv = tmp_path / "r.csv"
    csv.write_text('"case","speed0"\n0,10\n')
    assert check_output(csv, accepts=not_a_table) == csv
    csv.write_text("name,value\n")
    with pytest.raises(OutputError, match="results table"):
        check_output(csv, accepts=not_a_table)
    with pytest.raises(OutputError, match="partial"):
        (tmp_path / "x.fmu.partial").mkdir()
        check_output(tmp_path / "x.fmu")
    # out/ (the default outputs' folder) is the only missing folder a command may create
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert check_output("out/SimonCar.fmu") == Path("out/SimonCar.fmu")
        with pytest.raises(OutputError, match="out/sub does not exist"):
            check_output("out/sub/SimonCar.fmu")
    finally:
        os.chdir(cwd)


# --- sweep ----------------------------------------------------------------------------------

def _spec(tmp_path, event: Path | None) -> Path:
    spec = tmp_path / "spec.json"
    data = {"manoeuvre": {"name": "straight-brake"}, "grid": {"speed0": [10.0]}}
    if event is not None:
        data["event"] = str(event)
    spec.write_text(json.dumps(data))
    return spec


def test_sweep_never_replaces_its_spec_event_or_other_files(event, fifo, tmp_path, capsys):
    spec = _spec(tmp_path, event)
    before = spec.read_bytes(), event.read_bytes()
    assert "spec" in refused(capsys, ["sweep", str(spec), "-o", str(spec)], str(spec))
    assert "event file" in refused(capsys, ["sweep", str(spec), "-o", str(event)], str(event))
    assert (spec.read_bytes(), event.read_bytes()) == before
    refused(capsys, ["sweep", str(spec), "-o", str(fifo)], str(fifo))
    table = tmp_path / "table.csv"
    table.write_text("name,value\n1,2\n")
    assert "results table" in refused(capsys, ["sweep", str(spec), "-o", str(table)], str(table))
    assert table.read_text() == "name,value\n1,2\n"
    os.mkfifo(tmp_path / "r.parquet.journal.jsonl")
    refused(capsys, ["sweep", str(spec), "-o", str(tmp_path / "r.parquet")], "journal")
    refused(capsys, ["sweep", str(spec), "-o", str(tmp_path / "no" / "r.parquet")],
            str(tmp_path / "no"))


def test_sweep_with_a_missing_event_is_reported_without_a_traceback(tmp_path):
    spec = _spec(tmp_path, tmp_path / "nope.json")
    done = subprocess.run([sys.executable, "-m", "simon_fmu", "sweep", str(spec), "-o",
                           str(tmp_path / "r.parquet")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{tmp_path / 'nope.json'}: not a valid event:")


# --- study ----------------------------------------------------------------------------------

def test_study_with_a_missing_event_is_reported_as_build_does(tmp_path):
    def run(*argv):
        return subprocess.run([sys.executable, "-m", "simon_fmu", *argv], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
    study = run("study", "straight-brake", "nope.json", "-o", "report")
    assert study.returncode == 2 and "Traceback" not in study.stderr
    build = run("build", "nope.json", "-o", "x.fmu")
    assert build.returncode == 2 and study.stderr == build.stderr
    assert study.stderr.startswith("nope.json: not a valid event:")
    assert list(tmp_path.iterdir()) == []


def test_study_never_writes_over_its_event_or_into_a_non_folder(event, fifo, tmp_path, capsys):
    before = event.read_bytes()
    assert "event file" in refused(
        capsys, ["study", "straight-brake", str(event), "-o", str(event)], str(event))
    assert event.read_bytes() == before
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert "not a folder" in refused(capsys, ["study", "straight-brake", "-o", str(notes)],
                                     str(notes))
    assert notes.read_text() == "mine"
    # the event file where the report's metrics.json would go
    folder = tmp_path / "report"
    folder.mkdir()
    shutil.copyfile(event, folder / "metrics.json")
    refused(capsys, ["study", "straight-brake", str(folder / "metrics.json"), "-o", str(folder)],
            "metrics.json")
    assert (folder / "metrics.json").read_bytes() == before
    shutil.move(fifo, folder / "report.png")
    refused(capsys, ["study", "straight-brake", "-o", str(folder)], "report.png")
    refused(capsys, ["study", "straight-brake", "-o", str(tmp_path / "no" / "report")],
            str(tmp_path / "no"))


def test_an_fmu_is_refused_beside_another_event(car_fmu, tmp_path, capsys):
    """The FMU's own event gives the vehicle's values: an event given beside it must be the
    same, or the study and the sweep would run one vehicle with another's data."""
    truck = tmp_path / "truck.json"
    truck.write_text(json.dumps(renamed_event("truck")))
    line = refused(capsys, ["study", "lane-change", str(truck), "--fmu", str(car_fmu),
                            "-o", str(tmp_path / "report")], str(truck))
    assert "another event" in line and str(car_fmu) in line
    assert not (tmp_path / "report").exists()
    spec = _spec(tmp_path, truck)
    assert "another event" in refused(capsys, ["sweep", str(spec), "--fmu", str(car_fmu),
                                               "-o", str(tmp_path / "r.parquet")], str(truck))
    assert not (tmp_path / "r.parquet.journal.jsonl").exists()
    # a file that is no vehicle FMU of this project
    other = tmp_path / "other.fmu"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("modelDescription.xml", "<fmiModelDescription/>")
    assert "not a vehicle FMU" in refused(
        capsys, ["study", "straight-brake", "--fmu", str(other), "-o", str(tmp_path / "r")],
        str(other))


def test_a_study_runs_with_its_fmus_own_event_into_out(car_fmu, tmp_path, monkeypatch, capsys):
    """The same event as the FMU's (a copy, elsewhere) is accepted; out/ is created."""
    event = tmp_path / "events" / "sedan.json"
    event.parent.mkdir()
    shutil.copyfile(DEFAULT_EVENT, event)
    monkeypatch.chdir(tmp_path)
    assert cli(["study", "straight-brake", str(event), "--fmu", str(car_fmu),
                "--set", "speed0=10", "-o", "out/brake"]) == 0
    data = json.loads((tmp_path / "out" / "brake" / "metrics.json").read_text())
    assert data["settings"]["speed0"] == 10.0 and data["metrics"]["stoppingDistance"] > 0
    assert sorted(p.name for p in (tmp_path / "out" / "brake").iterdir()) == [
        "exteriors.obj", "histories.csv", "histories.mat", "metrics.json", "report.html",
        "report.md", "report.png"]
    capsys.readouterr()
