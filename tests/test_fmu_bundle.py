"""How the build bundles the code: import rewriting, content hash, the stable cached copy."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
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


def test_a_development_fmu_takes_the_repositorys_engine_while_its_files_are_the_same(car_fmu):
    """In this environment the FMU's bundled engine is the repository's files: the FMU runs
    the package ``engine`` itself, every module of it also under the bundled name, so that one
    compile serves both and a process holds one engine."""
    script = textwrap.dedent("""
        import sys
        from fmpy import simulate_fmu
        result = simulate_fmu(sys.argv[1], stop_time=0.05, output=["car.u"])
        import engine
        bundled = sorted(k for k in sys.modules if k.startswith("simon_engine_"))
        top = bundled[0]
        same = all(sys.modules[k] is sys.modules["engine" + k[len(top):]] for k in bundled)
        print(top, len(bundled), same, engine.__file__)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(car_fmu)], capture_output=True,
                          text=True, timeout=300, cwd=car_fmu.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    top, count, same, path = done.stdout.split()
    with zipfile.ZipFile(car_fmu) as z:
        shipped = {n.split("/")[1] for n in z.namelist() if n.startswith("resources/simon_engine_")}
    assert shipped == {top}
    modules = [rel for rel, _ in bundle.runtime_files({"engine": entry.ENGINE_FILES})
               if rel.endswith(".py")]
    assert same == "True" and int(count) == len(modules)     # every module, under both names
    assert Path(path) == ROOT / "engine" / "__init__.py"


def test_the_repositorys_engine_is_taken_only_for_its_own_digest(monkeypatch):
    import engine
    files = bundle.runtime_files({"engine": entry.ENGINE_FILES})
    own = "simon_engine_" + bundle.digest(files)
    assert entry.development_engine("simon_engine_" + "0" * 16) is None     # other files
    assert entry.development_engine("simon_" + bundle.digest(files)) is None   # not an engine
    monkeypatch.setenv("SIMON_FMU_BUNDLED_ENGINE", "1")
    assert entry.development_engine(own) is None
    monkeypatch.delenv("SIMON_FMU_BUNDLED_ENGINE")
    assert entry.development_engine(own) is engine
    assert sys.modules[own + ".setup.event"] is sys.modules["engine.setup.event"]
