"""Standalone FMUs (docs/standalone.md): they run where the building environment is not.

The standalone vehicle and driver FMUs are built once per session with the commands a user
runs (``build --standalone``, ``build-driver --standalone``). They run:

- in a C host started with an empty environment, in a mount namespace where this repository,
  its virtual environment and the Python it was made from are hidden (empty folders mounted
  over them), also with the FMU's folder mounted read-only; /proc/<pid>/maps of the host and
  of the FMU's workers show that nothing Python-related comes from outside the FMU's folder;
- in fmpy inside a virtual environment that has only fmpy, made once per session from the
  package registries, on Debian's Python with a NumPy older than the FMU's;
- in libcosim and ecos.

Every result agrees with the development FMU's (fmpy in this environment) to 1e-9 relative.
A development FMU whose environment is missing says so plainly, in a C host and in a foreign
Python host.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

from importers import Scenario, compare_results
from importers.c_host import build_host, fmi2_headers, run_host
from importers.isolated import isolated_runner
from importers.system import MissingSystemLibrary, require_tbb
from support import fmus

ROOT = Path(__file__).resolve().parents[1]
#: The building environment: the repository (with .venv), and the Python it was made from.
_PLACES = {ROOT, Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
BUILDING = sorted(p for p in _PLACES if not any(q in p.parents for q in _PLACES))
PYTHON_RELATED = re.compile(r"python|numpy|numba|llvmlite|lxml|\.cpython-|openblas|gfortran",
                            re.IGNORECASE)
DEVELOPMENT = ("this FMU was built for development and needs the Python environment at "
               f"{sys.prefix}; build with --native (a vehicle FMU) or --standalone to run it "
               "elsewhere")
RTOL = 1e-9
FOREIGN_PYTHON = "/usr/bin/python3"


def _build(command: str, output: Path) -> Path:
    """``python -m simon_fmu <command> --standalone``, run once for all sessions with the
    same sources and environment (tests/support/fmus.py): it compiles the engine anew."""
    def make(path: Path) -> None:
        subprocess.run([sys.executable, "-m", "simon_fmu", command, "--standalone", "-o",
                        str(path)], check=True, cwd=ROOT, capture_output=True, timeout=1200)
    output.parent.mkdir(parents=True, exist_ok=True)     # -o refuses a missing folder
    return fmus.cached(fmus.standalone_key(command), output, make)


@pytest.fixture(scope="session")
def standalone_car(fmu_dir) -> Path:
    return _build("build", fmu_dir / "standalone" / "SimonCar.fmu")


@pytest.fixture(scope="session")
def standalone_driver(fmu_dir) -> Path:
    return _build("build-driver", fmu_dir / "standalone" / "Driver.fmu")


def _extract(fmu: Path, folder: Path) -> Path:
    """Extract as Python's zipfile does (file modes dropped: the worker is not executable)."""
    with zipfile.ZipFile(fmu) as archive:
        archive.extractall(folder)
    return folder.resolve()


@pytest.fixture(scope="session")
def hide(tmp_path_factory):
    """hide(command, read_only=()) -> the command run in a mount namespace where the building
    environment is hidden and the folders `read_only` are read-only."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("hiding the building environment needs root and unshare(1)")
    work = tmp_path_factory.mktemp("hide")
    empty = work / "empty"
    empty.mkdir()
    script = work / "hide.sh"
    script.write_text("#!/bin/sh\nset -e\n"
                      + "".join(f"mount --bind '{empty}' '{p}'\n" for p in BUILDING)
                      + 'while [ "$1" != "--" ]; do mount --bind "$1" "$1"; '
                        'mount -o remount,bind,ro "$1"; shift; done\nshift\nexec "$@"\n')

    def wrap(command, read_only=()):
        return ["unshare", "-m", "--propagation", "private", "/bin/sh", str(script),
                *map(str, read_only), "--", *map(str, command)]
    done = subprocess.run(wrap(["/bin/ls", *BUILDING]), capture_output=True, text=True)
    assert done.returncode == 0, f"the building environment cannot be hidden: {done.stderr}"
    assert done.stdout.strip() == "" or set(done.stdout.split()) <= {f"{p}:" for p in BUILDING}, \
        "the building environment is still visible"
    return wrap


def _empty_env(tmp_path: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": "/usr/bin:/bin", "HOME": str(home)}


def _written(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _scenario(fmu: Path, stop_time: float = 1.0) -> Scenario:
    inputs = ["car.steeringWheelAngle", "car.throttle", "car.brakePedalForce"]
    return Scenario.for_fmu(fmu, step_size=0.001, stop_time=stop_time, inputs=inputs)


@pytest.fixture(scope="session")
def development_reference(car_fmu):
    """The development FMU in fmpy, in this environment: what every run must reproduce."""
    return isolated_runner("fmpy")(_scenario(car_fmu))


def _assert_same(result, reference):
    mismatches = compare_results(reference, [result], rtol=RTOL)
    assert not mismatches, f"{len(mismatches)} values differ, first: {mismatches[0]}"


# ------------------------------------------------------------------ C hosts


@pytest.fixture(scope="session")
def maps_host(tmp_path_factory):
    output = tmp_path_factory.mktemp("standalone-host") / "standalone_host"
    subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(ROOT / "tests" / "c_host" / "standalone_host.c"),
                    "-o", str(output), "-ldl"], check=True, capture_output=True)
    return output


def test_c_host_runs_it_with_an_empty_environment_and_no_building_environment(
        standalone_car, development_reference, hide, tmp_path):
    script = tmp_path / "host.sh"      # run_host's host: the compiled host, inside `hide`
    host = build_host(tmp_path / "host")
    script.write_text("#!/bin/sh\nexec " + " ".join(hide([host])) + ' "$@"\n')
    script.chmod(0o755)
    env = _empty_env(tmp_path)
    result = run_host(script, _scenario(standalone_car), env=env)
    _assert_same(result, development_reference)
    assert _written(Path(env["HOME"])) == [], "the FMU wrote into HOME"


def _run_maps_host(maps_host, hide, tmp_path, fmus, read_only=(), n_steps=50):
    maps = tmp_path / "maps.txt"
    args = [maps_host, n_steps, 0.001, maps]
    for folder, fmu in fmus:
        md = _md(fmu)
        outputs = [v.valueReference for v in md.modelVariables
                   if v.causality == "output" and v.type == "Real"]
        args += [folder, md.coSimulation.modelIdentifier, md.guid, ",".join(map(str, outputs))]
    env = dict(_empty_env(tmp_path), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(hide(args, read_only), env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    assert _written(tmp_path / "tmp") == [] and _written(Path(env["HOME"])) == [], \
        "the FMU wrote outside the folders it was given"
    lines = {line.split()[0]: np.array(line.split()[1:], dtype=float)
             for line in done.stdout.splitlines()}
    sections, current = {}, None
    for line in maps.read_text().splitlines():
        if line.startswith("== "):
            current = line[3:]
            sections[current] = []
        else:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].startswith("/"):
                sections[current].append(parts[5])
    return lines, sections


def _md(fmu: Path):
    from fmpy import read_model_description
    return read_model_description(str(fmu), validate=False)


def _python_related_outside(paths, folders) -> list[str]:
    return sorted({p for p in paths if PYTHON_RELATED.search(p)
                   and not any(p.startswith(str(f) + "/") for f in folders)})


def test_two_fmus_two_instances_each_in_one_c_host_load_nothing_from_outside(
        standalone_car, standalone_driver, maps_host, hide, extracted, tmp_path):
    car, driver = extracted(standalone_car)[0], extracted(standalone_driver)[0]
    lines, sections = _run_maps_host(maps_host, hide, tmp_path,
                                     [(car, standalone_car), (driver, standalone_driver)])
    assert set(lines) == {"SimonCar-a", "SimonCar-b", "Driver-a", "Driver-b"}
    np.testing.assert_array_equal(lines["SimonCar-a"], lines["SimonCar-b"])
    np.testing.assert_array_equal(lines["Driver-a"], lines["Driver-b"])
    host = next(v for k, v in sections.items() if k.startswith("host"))
    workers = {k: v for k, v in sections.items() if k.startswith("child")}
    assert len(workers) == 4, list(sections)
    # the host: the FMUs' libraries only, nothing Python-related at all
    assert [p for p in host if PYTHON_RELATED.search(p)] == []
    assert {p for p in host if p.startswith((str(car), str(driver)))} == {
        f"{car}/binaries/linux64/SimonCar.so", f"{driver}/binaries/linux64/Driver.so"}
    for name, paths in workers.items():
        assert _python_related_outside(paths, (car, driver)) == [], name
        assert any("libpython" in p for p in paths) and any("numba" in p for p in paths)
        assert not any(p.startswith(tuple(map(str, BUILDING))) for p in paths), name


def test_read_only_resources(standalone_car, maps_host, hide, extracted, tmp_path):
    car = extracted(standalone_car)[0]
    before = {p: p.stat().st_mtime_ns for p in car.rglob("*")}
    lines, _ = _run_maps_host(maps_host, hide, tmp_path, [(car, standalone_car)],
                              read_only=[car], n_steps=20)
    assert np.all(np.isfinite(lines["SimonCar-a"]))
    assert {p: p.stat().st_mtime_ns for p in car.rglob("*")} == before


def test_development_fmu_without_its_environment_says_so_in_a_c_host(car_fmu, hide, tmp_path):
    scenario = _scenario(car_fmu, stop_time=0.01)
    script = tmp_path / "host.sh"
    script.write_text("#!/bin/sh\nexec " + " ".join(hide([build_host(tmp_path / "host")]))
                      + ' "$@"\n')
    script.chmod(0o755)
    with pytest.raises(RuntimeError) as failure:
        run_host(script, scenario, env=_empty_env(tmp_path))
    assert DEVELOPMENT in str(failure.value)
    assert "numba" not in str(failure.value).lower()


# ------------------------------------------------------------------ a Python host of its own


@pytest.fixture(scope="session")
def fmpy_venv(tmp_path_factory) -> Path:
    """A virtual environment with fmpy only (and an older NumPy than the FMU's), on Debian's
    Python, installed from the package registries."""
    if not os.access(FOREIGN_PYTHON, os.X_OK):
        pytest.skip(f"{FOREIGN_PYTHON} is needed for a foreign Python host")
    requirements = ("fmpy", "numpy<2")

    def make(venv: Path) -> None:
        subprocess.run([FOREIGN_PYTHON, "-m", "venv", str(venv)], check=True,
                       capture_output=True)
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *requirements],
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"pip install fmpy failed:\n{done.stderr[-3000:]}"
    # made once for all sessions with the same sources (tests/support/fmus.py)
    version = subprocess.run([FOREIGN_PYTHON, "--version"], capture_output=True,
                             text=True).stdout.strip()
    venv = fmus.cached_folder(fmus.key("fmpy-only venv", version, *requirements), make)
    return venv / "bin" / "python"


FOREIGN_RUN = textwrap.dedent("""
    import atexit, json, shutil, sys, time
    started = time.perf_counter()
    import numpy
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    spec = json.load(open(sys.argv[1]))
    messages = []
    def logger(env, name, status, category, message):
        messages.append(message.decode())
    folders, identifiers, loaded, unzipped = [], [], [], {}
    def instance(fmu, name, initial=False):
        # each FMU extracted once, its instances over the one folder
        if fmu not in unzipped:
            unzipped[fmu] = extract(fmu)
            atexit.register(shutil.rmtree, unzipped[fmu], True)
        folder = unzipped[fmu]
        folders.append(folder)
        identifiers.append(read_model_description(folder).coSimulation.modelIdentifier)
        md = read_model_description(folder, validate=False)
        loaded.append(time.perf_counter())
        s = FMU2Slave(guid=md.guid, unzipDirectory=folder, instanceName=name,
                      modelIdentifier=md.coSimulation.modelIdentifier)
        from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
        from fmpy.fmi2 import fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE
        from fmpy.fmi1 import calloc, free
        from fmpy.logging import addLoggerProxy
        from ctypes import byref
        cb = fmi2CallbackFunctions()
        cb.logger = fmi2CallbackLoggerTYPE(logger)
        cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        addLoggerProxy(byref(cb))
        s._keep = cb
        try:
            s.instantiate(callbacks=cb)
        except Exception as exc:
            return None, folder
        s.setupExperiment(startTime=0.0)
        s.enterInitializationMode()
        if initial and spec["initial"]:
            s.setReal(spec["initial_vrs"], spec["initial"])
        s.exitInitializationMode()
        return s, folder
    out = {"numpy": numpy.__version__}
    car, folder = instance(spec["fmu"], "car", True)
    if car is None:
        out["messages"] = messages
        json.dump(out, open(sys.argv[2], "w"))
        sys.exit(0)
    h, rows, values = spec["h"], spec["rows"], []
    for k, row in enumerate(rows):
        car.setReal(spec["in_vrs"], row)
        car.doStep(k * h, h)
        if k == 0:
            out["cold_start_s"] = time.perf_counter() - loaded[0]
        values.append(car.getReal(spec["out_vrs"]))
    out["values"] = values
    # a second instance, and two of another FMU, in the same process
    others = [instance(spec["fmu"], "car2", True)[0]] + [instance(spec["other"], f"o{i}")[0]
                                                   for i in range(2)]
    for i, other in enumerate(others):
        for k in range(5):
            other.doStep(k * h, h)
    out["folders"], out["identifiers"] = folders, identifiers
    import os
    maps = {"host": open("/proc/self/maps").read()}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stat = open(f"/proc/{pid}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                maps[f"child {pid}"] = open(f"/proc/{pid}/maps").read()
    out["maps"] = maps
    for s in [car, *others]:
        s.terminate()
        s.freeInstance()
    json.dump(out, open(sys.argv[2], "w"))
""")


def _run_foreign(python: Path, fmu: Path, other: Path, scenario: Scenario, tmp_path: Path,
                 standalone: bool = True):
    from importers.runners import _initial_values
    initial = _initial_values(scenario)
    spec = {"fmu": str(fmu), "other": str(other), "h": scenario.step_size,
            "rows": scenario.input_rows().tolist(),
            "in_vrs": scenario.value_references(scenario.inputs.names),
            "out_vrs": scenario.value_references(scenario.outputs),
            "initial_vrs": scenario.value_references(list(initial)),
            "initial": list(initial.values())}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmp_path)}
    done = subprocess.run([str(python), "-c", FOREIGN_RUN, str(tmp_path / "spec.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    if standalone:     # a development FMU keeps its documented cache under HOME
        assert _written(home) == [], "the FMU wrote into HOME"
    return json.loads((tmp_path / "out.json").read_text())


def test_fmpy_only_venv_runs_it(fmpy_venv, standalone_car, standalone_driver,
                                development_reference, tmp_path):
    scenario = _scenario(standalone_car)
    out = _run_foreign(fmpy_venv, standalone_car, standalone_driver, scenario, tmp_path)
    manifest = json.loads(zipfile.ZipFile(standalone_car).read(
        "resources/standalone/manifest.json"))
    assert out["numpy"].split(".")[0] != manifest["packages"]["numpy"].split(".")[0], \
        "the host's NumPy should differ from the FMU's"
    from importers import Result
    result = Result("fmpy-only venv", scenario.outputs, development_reference.time,
                    np.array(out["values"]))
    _assert_same(result, development_reference)
    # from loading the library to the first finished step, with empty caches (a new HOME):
    # the kernels come compiled (compiling them would take minutes); how fast it starts is
    # measured by benchmarks/speed.py, not here (docs/standalone.md: 0.5 s on a quiet machine)
    assert out["cold_start_s"] < 30.0, f"first step after {out['cold_start_s']:.2f} s"
    # the host: its own Python, fmpy, NumPy and lxml; of the FMUs, only their libraries
    host = [l.split(maxsplit=5)[5] for l in out["maps"]["host"].splitlines()
            if len(l.split()) == 6]
    assert not [p for p in host if re.search(r"numba|llvmlite", p)], "the host loaded them"
    assert {p for p in host if p.startswith(tuple(out["folders"]))} == {
        f"{f}/binaries/linux64/{n}.so" for f, n in zip(out["folders"], out["identifiers"])}
    workers = {k: v for k, v in out["maps"].items() if k.startswith("child")}
    assert len(workers) == 4
    for name, text in workers.items():
        paths = [l.split(maxsplit=5)[5] for l in text.splitlines() if len(l.split()) == 6]
        outside = _python_related_outside([p for p in paths if p.startswith("/")],
                                          out["folders"])
        assert outside == [], name


def test_development_fmu_in_a_foreign_python_says_so(fmpy_venv, car_fmu, standalone_driver,
                                                       tmp_path):
    out = _run_foreign(fmpy_venv, car_fmu, standalone_driver, _scenario(car_fmu, 0.01),
                       tmp_path, standalone=False)
    text = "\n".join(out["messages"])
    assert DEVELOPMENT in text, text[-2000:]
    assert "numba" not in text.lower(), text[-2000:]


# ------------------------------------------------------------------ other importers


@pytest.mark.parametrize("importer", ["libcosim", "ecos"])
def test_libcosim_and_ecos_run_it(importer, standalone_car, development_reference):
    if importer == "ecos":
        try:
            require_tbb()
        except MissingSystemLibrary as error:
            pytest.fail(f"ecospy cannot be loaded: {error}")
    result = isolated_runner(importer)(_scenario(standalone_car))
    _assert_same(result, development_reference)


# ------------------------------------------------------------------ size


def test_the_size_the_readme_and_the_design_page_state_is_the_fmus(standalone_car):
    """README and docs/standalone.md give the file and its extracted size in MB of 2^20 bytes."""
    mib = 2 ** 20
    with zipfile.ZipFile(standalone_car) as archive:
        extracted = sum(info.file_size for info in archive.infolist()) / mib
    size = standalone_car.stat().st_size / mib
    for page in (ROOT / "README.md", ROOT / "docs" / "standalone.md"):
        text = re.sub(r"<!-- /?number[^>]*-->", "", page.read_text())   # rendered figures
        stated = re.search(r"\*\*(\d+) MB\*\* \((\d+) MB extracted", text)
        assert stated, f"{page.name} states no size"
        assert float(stated[1]) == pytest.approx(size, rel=0.03), page.name
        assert float(stated[2]) == pytest.approx(extracted, rel=0.03), page.name


# ------------------------------------------------------------------ kernels kept between builds


def test_a_second_build_of_the_same_sources_takes_the_kernels_the_first_compiled(
        standalone_car, car_fmu, tmp_path, monkeypatch):
    """``build --standalone`` keeps the kernels it compiled in the user cache
    (runtime.standalone.kernel_store), by bundled package (named by its sources' digest), and
    the runtime it staged (runtime.standalone.prepared_runtime: the worker, libpython, the
    standard library and the packages, compressed), by environment: the next standalone FMU of
    the same sources ships both without compiling or staging, holds the same files, and runs.
    The stores are a fresh folder holding what the session's standalone car compiled and the
    runtime this environment keeps."""
    from simon_fmu.runtime.standalone import (RUNTIME_ZIP, kernel_store, make_standalone,
                                              prepared_runtime, runtime_store)
    runtime, _ = prepared_runtime()
    monkeypatch.setenv("SIMON_FMU_CACHE", str(tmp_path / "user-cache"))
    shutil.copytree(runtime, runtime_store() / runtime.name)
    store = kernel_store()
    with zipfile.ZipFile(standalone_car) as archive:
        shipped = "resources/standalone/numba-cache/"
        for name in archive.namelist():
            if name.startswith(shipped) and name.endswith((".nbi", ".nbc")):
                target = store / name[len(shipped):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    for package in store.iterdir():
        (package / ".complete").write_text(package.name + "\n")
    out = make_standalone(car_fmu, tmp_path / "again.fmu")
    with zipfile.ZipFile(out) as archive:
        manifest = json.loads(archive.read("resources/standalone/manifest.json"))
        engine_package = next(n.split("/")[1] for n in archive.namelist()
                              if n.startswith("resources/simon_engine_"))
        again = {i.filename: (i.CRC, i.external_attr) for i in archive.infolist()}
    assert engine_package in manifest["kernels_from_an_earlier_build"]
    assert manifest["compiled_kernels"] and manifest["compiled_by_this_build"] == []
    assert manifest["runtime_from_an_earlier_build"] is True
    # the kept runtime's members come first, as they are; then the FMU's own files
    with zipfile.ZipFile(runtime / RUNTIME_ZIP) as archive:
        kept = {i.filename: (i.CRC, i.external_attr) for i in archive.infolist()}
    assert list(again)[:len(kept)] == list(kept)
    assert [n for n in kept if again[n] != kept[n]] == []
    # the files of the session's standalone car, the FMU's own byte for byte and mode for
    # mode (but the build's time in the model description, the manifest, and bytecode, which
    # CPython does not write reproducibly)
    with zipfile.ZipFile(standalone_car) as archive:
        first = {i.filename: (i.CRC, i.external_attr) for i in archive.infolist()}
    assert set(again) == set(first)
    own = [n for n in first if n not in kept and not n.endswith(".pyc")
           and n not in ("modelDescription.xml", "resources/standalone/manifest.json")]
    assert len(own) > 100 and [n for n in own if first[n] != again[n]] == []
    from fmpy import simulate_fmu
    result = simulate_fmu(str(out), stop_time=0.05, output_interval=0.01,
                          start_values={"car.speed0": 10.0}, output=["car.u"])
    assert result["car.u"][-1] == pytest.approx(10.0, rel=0.01)


# ------------------------------------------------------------------ doctor


def test_doctor(standalone_car, car_fmu, tmp_path):
    def doctor(fmu):
        return subprocess.run([sys.executable, "-m", "simon_fmu", "doctor", str(fmu)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
    good = doctor(standalone_car)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "standalone" in good.stdout and "trial step: instantiate" in good.stdout
    broken = tmp_path / "moved.fmu"
    with zipfile.ZipFile(car_fmu) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "resources/fmi2_python.txt":
                data = data.replace(sys.prefix.encode(), b"/nonexistent/venv")
            dst.writestr(info, data)
    bad = doctor(broken)
    assert bad.returncode == 1, bad.stdout
    assert "/nonexistent/venv" in bad.stdout and "--standalone" in bad.stdout
    # the trial runs it as a Python host does, which says nothing about a C host
    assert f"under this Python, {sys.executable}" in bad.stdout, bad.stdout
    assert "is missing: a C host cannot run it here" in bad.stdout, bad.stdout


def test_deferred_inputs_and_prefetched_outputs_answer_as_the_development_fmu(
        standalone_car, instance):
    """fmi2SetReal of inputs waits for the next call, fmi2GetReal after a step may come from
    the worker's prefetch (docs/standalone.md): a refused input is still named by the step,
    and an output set is still a warning."""
    inst = instance(standalone_car).start()
    inst.fmu.doStep(0.0, 0.001)
    speed = inst.get("car.u")
    assert inst.get("car.u") == speed
    inst.set("car.throttle", 2.0)      # accepts 0..1: taken now, refused by the step
    with pytest.raises(Exception):
        inst.fmu.doStep(0.001, 0.001)
    assert any("car.throttle" in m for m in inst.messages(min_status=3)), inst.log
    before = len(inst.log)
    inst.set("car.u", 1.0)             # an output: not deferred, a warning at once
    assert any(status == 1 for status, _, _ in inst.log[before:]), inst.log[before:]


def test_fmu_states_through_the_worker(standalone_car, instance):
    inst = instance(standalone_car).start()
    names = ["car.u", "car.v", "car.yaw", "car.X"]
    inst.set("car.steeringWheelAngle", 0.5)
    inst.fmu.doStep(0.0, 0.01)
    state = inst.fmu.getFMUstate()
    inst.fmu.doStep(0.01, 0.01)
    after = inst.get_reals(names)
    inst.fmu.setFMUstate(state)
    inst.fmu.doStep(0.01, 0.01)
    assert inst.get_reals(names) == after
    copy = inst.fmu.deSerializeFMUstate(inst.fmu.serializeFMUstate(state))
    inst.fmu.doStep(0.02, 0.01)
    inst.fmu.setFMUstate(copy)
    inst.fmu.doStep(0.01, 0.01)
    assert inst.get_reals(names) == after
    inst.fmu.freeFMUstate(state)
    inst.fmu.freeFMUstate(copy)


def _workers() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"simon-fmu-worker" in cmdline:
            found.append(int(pid))
    return found


def test_a_worker_that_dies_is_an_error_for_its_instance_only(standalone_car, instance):
    import signal
    first = instance(standalone_car, "first").start()
    first.fmu.doStep(0.0, 0.001)
    (worker,) = _workers()
    second = instance(standalone_car, "second").start()
    os.kill(worker, signal.SIGKILL)
    with pytest.raises(Exception):
        first.fmu.doStep(0.001, 0.001)
    # fmpy's logger proxy passes every message to the logger registered last: second's
    logged = first.messages(3) + second.messages(3)
    assert any("worker process" in m and "signal 9" in m for m in logged), logged
    second.fmu.doStep(0.0, 0.001)       # the other instance carries on
    first.free()
    assert len(_workers()) == 1


# ------------------------------------------------------------------ a logger that calls back


@pytest.fixture(scope="session")
def reentrant_host(tmp_path_factory):
    output = tmp_path_factory.mktemp("reentrant-host") / "reentrant_logger"
    subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror",
                    f"-I{fmi2_headers()}", str(ROOT / "tests" / "c_host" / "reentrant_logger.c"),
                    "-o", str(output), "-ldl", "-lm"], check=True, capture_output=True)
    return output


_REJECTED = "input car.throttle = nan rejected"

#: fmpy as the host: its logger reads car.X from the same instance for every message (MODE
#: "always") or only for those not logged inside its own call ("guarded"), as the C host does.
_FMPY_REENTRANT = textwrap.dedent("""
    import json, math, sys
    from ctypes import byref
    from fmpy import read_model_description
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE,
                           fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE)
    from fmpy.fmi1 import calloc, free
    from fmpy.logging import addLoggerProxy
    folder, mode = sys.argv[1], sys.argv[2]
    md = read_model_description(folder)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="reentrant")
    out = {"log": [], "nested": []}
    depth = [0]
    def logger(_env, _name, status, _category, message):
        out["log"].append([depth[0], status, message.decode()])
        if getattr(fmu, "component", None) and (mode == "always" or depth[0] == 0):
            depth[0] += 1
            try:
                fmu.getReal([vr["car.X"]])
                out["nested"].append(0)
            except Exception as exc:
                out["nested"].append(type(exc).__name__)
            finally:
                depth[0] -= 1
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    fmu.instantiate(callbacks=callbacks, loggingOn=True)
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    t, h = 0.0, 0.01
    for _ in range(3):
        fmu.doStep(t, h)
        t += h
    fmu.setReal([vr["car.throttle"]], [math.nan])
    try:
        fmu.doStep(t, h)
        out["nan_step"] = "OK"
        t += h
    except Exception as exc:
        out["nan_step"] = str(exc)
    out["host_time"] = t
    out["last_successful"] = fmu.getRealStatus(2)   # fmi2LastSuccessfulTime
    fmu.freeInstance()
    print(json.dumps(out))
""")


def _flavour(flavour, car_fmu, request) -> Path:
    return car_fmu if flavour == "development" else request.getfixturevalue("standalone_car")


@pytest.mark.parametrize("flavour", ["development", "standalone"])
@pytest.mark.parametrize("mode", ["always", "guarded"])
def test_a_logger_that_calls_the_instance_back_in_a_c_host(
        flavour, mode, car_fmu, request, reentrant_host, extracted):
    """Issue 27, item 2: each message reaches the logger once, the logger's fmi2GetReal is
    served (or refused with fmi2Error), and the step after a NaN input answers fmi2Error, so the
    host's time stays with the FMU's."""
    fmu = _flavour(flavour, car_fmu, request)
    folder = extracted(fmu)[0]
    md = _md(fmu)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    done = subprocess.run([reentrant_host, folder, md.coSimulation.modelIdentifier, md.guid,
                           str(vr["car.X"]), str(vr["car.throttle"]), mode],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stdout[-3000:], done.stderr[-3000:])
    lines = done.stdout.splitlines()
    results = {line.split()[0]: line.split()[1:] for line in lines
               if not line.startswith(("log ", "nested "))}
    messages = [line.split(" ", 3)[3] for line in lines if line.startswith("log ")]
    nested = [int(line.split()[2]) for line in lines if line.startswith("nested ")]
    assert results["nan-step"] == ["3"], lines
    assert sum(_REJECTED in m for m in messages) == 1, lines
    assert len(messages) == len(set(messages)), f"a message came twice: {lines}"
    assert nested and set(nested) <= {0, 3}, lines
    status, last, _, host_time = results["last-successful"]
    assert status == "0" and float(last) == pytest.approx(0.03) and float(host_time) == 0.03
    assert lines[-1] == "survived"


@pytest.mark.parametrize("flavour", ["development", "standalone"])
@pytest.mark.parametrize("mode", ["always", "guarded"])
def test_a_logger_that_calls_the_instance_back_in_fmpy(flavour, mode, car_fmu, request,
                                                        extracted):
    fmu = _flavour(flavour, car_fmu, request)
    folder = extracted(fmu)[0]
    done = subprocess.run([sys.executable, "-c", _FMPY_REENTRANT, str(folder), mode],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "RecursionError" not in done.stderr, done.stderr[-3000:]
    out = json.loads(done.stdout)
    messages = [m for _, _, m in out["log"]]
    assert sum(_REJECTED in m for m in messages) == 1, out["log"]
    assert len(messages) == len(set(messages)), out["log"]
    assert out["nested"] and set(out["nested"]) <= {0, "FMICallException"}, out
    assert out["nan_step"] != "OK" and "fmi2DoStep" in out["nan_step"], out
    assert out["last_successful"] == pytest.approx(0.03) and out["host_time"] == 0.03, out


# ------------------------------------------------------------------ a worker that stops


_STOPPED = textwrap.dedent("""
    import json, os, signal, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from conftest import Instance
    from fmpy import read_model_description
    folder = Path(sys.argv[1])
    inst = Instance(folder, read_model_description(str(folder))).start()
    out = {}
    def children():
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == str(os.getpid()):
                found.append(int(pid))
        return found
    (worker,) = children()
    out["worker"] = worker
    start = time.monotonic()
    inst.fmu.doStep(0.0, 100.0)         # computes far longer than the bound: no stop
    out["long_step_s"] = time.monotonic() - start
    os.kill(worker, signal.SIGSTOP)
    start = time.monotonic()
    try:
        inst.fmu.doStep(100.0, 0.001)
        out["stopped_step"] = "OK"
    except Exception as exc:
        out["stopped_step"] = str(exc)
    out["stopped_s"] = time.monotonic() - start
    out["errors"] = inst.messages(3)
    os.kill(worker, signal.SIGCONT)
    inst.free()
    out["worker_left"] = not Path(f"/proc/{worker}").exists()
    # stopped while it computes a step (of a day: it would run for minutes)
    import threading
    inst = Instance(folder, read_model_description(str(folder))).start()
    (worker,) = children()
    during = {}
    def step():
        start = time.monotonic()
        try:
            inst.fmu.doStep(0.0, 86400.0)
            during["step"] = "OK"
        except Exception as exc:
            during["step"] = str(exc)
        during["s"] = time.monotonic() - start
    thread = threading.Thread(target=step)
    thread.start()
    time.sleep(0.5)
    os.kill(worker, signal.SIGSTOP)
    thread.join(60)
    out["during"] = dict(during, errors=inst.messages(3), worker=worker)
    os.kill(worker, signal.SIGCONT)
    inst.free()
    out["during_worker_left"] = not Path(f"/proc/{worker}").exists()
    print(json.dumps(out))
""")


def test_a_stopped_worker_ends_the_call_with_an_error(standalone_car, extracted):
    """Issue 27, item 3: a worker that is stopped for longer than SIMON_FMU_STOPPED_S ends the
    call with fmi2Error naming its pid and state, the instance can be freed; a long step (far
    longer than the bound, computing) is not taken for a stop."""
    folder = extracted(standalone_car)[0]
    env = dict(os.environ, SIMON_FMU_STOPPED_S="0.1")
    done = subprocess.run([sys.executable, "-c", _STOPPED, str(folder), str(ROOT / "tests")],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["long_step_s"] > 0.1, out
    assert out["stopped_step"] != "OK", out
    assert out["stopped_s"] < 5.0, out
    (message,) = [m for m in out["errors"] if "does not answer" in m]
    assert f"worker process (pid {out['worker']})" in message, message
    assert "state T (stopped)" in message and "SIMON_FMU_STOPPED_S" in message, message
    assert out["worker_left"], out
    during = out["during"]
    assert during["step"] != "OK" and during["s"] < 5.0, during
    assert any(f"fmi2DoStep: the FMU's worker process (pid {during['worker']}) does not answer"
               in m for m in during["errors"]), during
    assert out["during_worker_left"], out


# ------------------------------------------------------------------ resources edited after the build


def _instantiation_log(folder: Path, md) -> tuple[bool, list[tuple[int, str]]]:
    """(whether fmi2Instantiate gave an instance, the messages it logged) in fmpy."""
    from ctypes import byref
    from fmpy.fmi1 import calloc, free
    from fmpy.fmi2 import (FMU2Slave, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)
    from fmpy.logging import addLoggerProxy
    log = []

    def logger(_env, _name, status, _category, message):
        log.append((status, message.decode()))
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(folder),
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="resources")
    try:
        fmu.instantiate(callbacks=callbacks, loggingOn=False)
    except Exception:       # fmpy: fmi2Instantiate answered NULL
        return False, log
    fmu.freeInstance()
    return True, log


@pytest.mark.parametrize("flavour", ["development", "standalone"])
def test_resources_missing_or_edited_after_the_build_are_refused(flavour, car_fmu, request,
                                                                 tmp_path):
    """Issue 27, item 11: a missing or edited resources/event.json (a syntax error, a valid
    edit: doubled masses) is refused by fmi2Instantiate with one line naming the file, no
    traceback, no path of the building machine; as built, the FMU instantiates."""
    fmu = _flavour(flavour, car_fmu, request)
    folder = _extract(fmu, tmp_path / "fmu")
    md = _md(fmu)
    event = folder / "resources" / "event.json"
    original = event.read_bytes()
    doubled = json.loads(original)
    for unit in doubled["units"]:
        unit["sprung_mass"]["mass"] *= 2
    edits = {"missing": event.unlink,
             "syntax": lambda: event.write_bytes(original[:-3] + b"{{"),
             "doubled mass": lambda: event.write_text(json.dumps(doubled, indent=2))}
    for case, edit in edits.items():
        edit()
        made, log = _instantiation_log(folder, md)
        event.write_bytes(original)
        assert not made, f"{case}: instantiated"
        assert len(log) == 1, (case, log)
        status, line = log[0]
        assert status == 3 and "\n" not in line and "Traceback" not in line, (case, line)
        assert line.startswith("fmi2Instantiate: resources/event.json "), (case, line)
        assert "simon_standalone_" not in line and "simon_dev_" not in line, (case, line)
        assert ("is missing" if case == "missing" else "changed after the FMU was built") \
            in line, (case, line)
    assert _instantiation_log(folder, md) == (True, [])


def test_controller_resources_edited_after_the_build_are_refused(driver_fmu, tmp_path):
    """The driver FMU's resources (controller.json, courses/*.csv) are checked the same way."""
    folder = _extract(driver_fmu, tmp_path / "fmu")
    md = _md(driver_fmu)
    course = folder / "resources" / "courses" / "straight.csv"
    course.write_text(course.read_text() + "1000,0\n")
    made, log = _instantiation_log(folder, md)
    assert not made
    assert [m for _, m in log] == [
        "fmi2Instantiate: resources/courses/straight.csv was changed after the FMU was built "
        "(its SHA-256 differs from the one in resources/resources.sha256); an FMU's resources "
        "are part of it: build a new FMU from the edited file instead"], log
