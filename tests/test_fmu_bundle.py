"""How the build bundles the code: import rewriting, content hash, the stable cached copy."""
from __future__ import annotations

import os
import zipfile

import pytest

from simon_fmu.runtime import bundle, entry


def test_absolute_imports_of_project_packages_are_rewritten():
    source = (
        "import numpy as np\n"
        "import engine\n"
        "import engine.signals\n"
        "import engine.signals as sig, os\n"
        "from engine import load_event\n"
        "from model_description.catalogue import (\n"
        "    build_catalogue,\n"
        "    Binding as B)\n"
        "from . import sibling\n"
        "def f():\n"
        "    from engine.event import Event  # late import\n"
        "    return Event\n"
    )
    names = {"engine": "simon_engine_e", "model_description": "simon_abc.model_description"}
    out = bundle.rewrite_imports(source, names)
    lines = out.splitlines()
    assert len(lines) == len(source.splitlines())
    assert lines[0] == "import numpy as np"
    assert lines[1] == "import simon_engine_e as engine"
    assert lines[2] == "import simon_engine_e.signals; import simon_engine_e as engine"
    assert lines[3] == "import simon_engine_e.signals as sig; import os"
    assert lines[4] == "from simon_engine_e import load_event"
    assert lines[5] == ("from simon_abc.model_description.catalogue import build_catalogue, "
                        "Binding as B")
    assert lines[6] == lines[7] == ""
    assert lines[8] == "from . import sibling"
    assert lines[10] == "    from simon_engine_e.event import Event  # late import"


def test_digest_names_the_content(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    files = [("engine/a.py", a), ("engine/b.py", b)]
    first = bundle.digest(files)
    assert first == bundle.digest(files)
    b.write_text("y = 3\n")
    assert bundle.digest(files) != first
    assert bundle.digest([("engine/c.py", a), ("engine/b.py", b)]) != bundle.digest(files)


def test_the_bundle_holds_the_runtime_packages(car_fmu):
    with zipfile.ZipFile(car_fmu) as z:
        names = z.namelist()
        module = z.read("resources/slavemodule.txt").decode().strip()
    digest = module.removeprefix("simon_slave_")
    assert f"resources/{module}.py" in names
    for path in ("model_description/catalogue.py", "simon_fmu/vehicle/slave.py"):
        assert f"resources/simon_{digest}/{path}" in names
    engine = {n.split("/")[1] for n in names if n.startswith("resources/simon_engine_")}
    assert len(engine) == 1
    for path in ("__init__.py", "data/sedan.json", "signals.py"):
        assert f"resources/{next(iter(engine))}/{path}" in names
    assert "resources/event.json" in names
    assert "binaries/linux64/SimonCar.so" in names
    assert not [n for n in names if "__pycache__" in n]


def test_stable_copy_is_made_once_and_keeps_its_files(tmp_path, monkeypatch):
    source = tmp_path / "resources" / "simon_feed"
    (source / "engine").mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "engine" / "k.py").write_text("X = 1\n")
    monkeypatch.setenv("SIMON_FMU_CACHE", str(tmp_path / "cache"))
    copy = entry.stable_copy(source, "simon_feed")
    assert copy == tmp_path / "cache" / "simon_feed"
    stamp = os.stat(copy / "engine" / "k.py").st_mtime_ns
    # another extraction of the same FMU: new files, same content hash
    (source / "engine" / "k.py").write_text("X = 1\n")
    assert entry.stable_copy(source, "simon_feed") == copy
    assert os.stat(copy / "engine" / "k.py").st_mtime_ns == stamp


def test_stable_copy_falls_back_to_the_resources(tmp_path, monkeypatch):
    source = tmp_path / "simon_feed"
    source.mkdir()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("SIMON_FMU_CACHE", str(blocked / "cache"))
    assert entry.stable_copy(source, "simon_feed") == source


@pytest.mark.parametrize("source", ["from engine import (\n a,\n b); x = 1\n"])
def test_unrewritable_source_is_an_error(source):
    with pytest.raises(bundle.BundleError):
        bundle.rewrite_imports(source, {"engine": "simon_engine_e"})
