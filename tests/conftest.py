"""Shared fixtures: FMUs built once per session, and fmpy instances that record their log."""
from __future__ import annotations

import json
import os
import shutil
import sys
from ctypes import byref
from pathlib import Path

import pytest

from support import fmus
from support.fmus import event_fmu  # noqa: F401 - event_fmu(fmu_dir, name, data), imported from here

ROOT = Path(__file__).resolve().parents[1]
#: the fixtures several test modules share, set up once per session and worker
pytest_plugins = ["support.fixtures"]
#: The slow groups (a cold run compiles the engine for each of standalone and native): `make
#: test` runs them too, and first, in this order (see pytest_collection_modifyitems);
#: ``-m "not slow"`` leaves them out of a quick run.
SLOW_FILES = {"test_standalone.py": "standalone", "test_importers.py": "importers",
              "test_native_fmu.py": "native", "test_native_platforms.py": "native",
              "test_sweep.py": "Dask", "test_ssp.py": "SSP"}
#: Then the other files that take longest (a warm run on 2 workers, 2026-12-06: 45 to 12 s
#: each), longest first, so that no worker is left running a long file alone at the end.
LONG_FILES = ("test_study_combination.py", "test_rough_road_fmu.py", "test_native_events.py",
              "test_study.py", "test_engine_cache.py", "test_fmu_exit.py",
              "test_fmi2_threads.py")
_loaded_fmu_library = False   # set once pythonfmu's shared library is loaded in this process


def pytest_configure(config):
    """Before the workers of ``-n`` start, compile the engine and the FMU's bundled copy of it
    once (tests/support/fmus.py, warm_up), rather than in every worker at the same time."""
    if hasattr(config, "workerinput") or config.option.collectonly \
            or not getattr(config.option, "numprocesses", None) \
            or os.environ.get("SIMON_TEST_NO_WARM_UP"):
        return
    fmus.warm_up()


def pytest_collection_modifyitems(config, items):
    """Mark the slow groups ``slow`` and put them first, then :data:`LONG_FILES`. `make test`
    distributes whole files (``--dist loadfile --no-loadscope-reorder``), so each group runs on
    one worker (its session fixtures built once), the groups start at once on different
    workers, and none of them ends the run alone. (``--dist loadgroup`` would not do: with
    pytest 9 and pytest-xdist 3.8 the ``xdist_group`` mark does not group.)"""
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
    order = list(SLOW_FILES) + list(LONG_FILES)
    items.sort(key=lambda item: order.index(item.path.name) if item.path.name in order
               else len(order))   # stable


def pytest_sessionfinish(session, exitstatus):
    session.config._simon_exitstatus = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Leave with os._exit once pythonfmu's library was loaded (see docs/importers.md).

    pythonfmu 0.7.0's library resets its global interpreter state twice when the process
    exits (a C++ static destructor and a destructor function), which can corrupt the heap
    and abort the process after every test has passed. By now pytest has reported and
    written everything, so skipping the process's exit handlers loses nothing. The FMUs
    this project builds carry its own library (simon_fmu/runtime/native/), which needs no such
    care: a session that loaded only those exits normally.
    """
    if _loaded_fmu_library:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(getattr(config, "_simon_exitstatus", 0))


def build(event_file: Path | None, output: Path) -> Path:
    """The vehicle FMU of ``event_file`` (None: the default car) at ``output``: built in
    process with ``simon_fmu.vehicle.build.build_fmu`` once for all sessions with the same
    sources and event (tests/support/fmus.py); the command-line build has tests of its own
    (test_fmu_behaviour.py, test_cli_outputs.py)."""
    return fmus.vehicle(event_file, output)


def renamed_event(unit_name: str) -> dict:
    """The default event with its (first) unit renamed."""
    import engine
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["name"] = unit_name
    return data


@pytest.fixture(scope="session")
def fmu_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fmus")


@pytest.fixture(scope="session")
def car_fmu(fmu_dir) -> Path:
    """The default car, as ``python -m simon_fmu build`` builds it."""
    return build(None, fmu_dir / "SimonCar.fmu")


@pytest.fixture(scope="session")
def driver_fmu(fmu_dir) -> Path:
    """The driver FMU, as ``python -m simon_fmu build-driver`` builds it."""
    return fmus.controller("driver", fmu_dir / "Driver.fmu")


@pytest.fixture(scope="session")
def abs_fmu(fmu_dir) -> Path:
    """The default car's ABS FMU, as ``python -m simon_fmu build-abs`` builds it."""
    return fmus.controller("abs", fmu_dir / "ABS.fmu")


@pytest.fixture(scope="session")
def vehicle_fmu(car_fmu) -> Path:
    """The vehicle FMU the importer tests (tests/importers) run."""
    return car_fmu


@pytest.fixture(scope="session")
def native_vehicle_fmu(tmp_path_factory) -> Path:
    """The default car's native FMU (its Linux x86-64 library), which the importer tests run
    as they run the development FMU."""
    return fmus.native(None, tmp_path_factory.mktemp("native-importers") / "SimonCar.fmu",
                       platforms="linux64")


@pytest.fixture(scope="session")
def truck_fmu(fmu_dir) -> Path:
    """The default vehicle with its unit named ``truck``: other variable names."""
    event_file = fmu_dir / "truck.json"
    event_file.write_text(json.dumps(renamed_event("truck")))
    return build(event_file, fmu_dir / "SimonTruck.fmu")


@pytest.fixture(scope="session")
def semitrailer_fmu(fmu_dir) -> Path:
    """The reference tractor-semitrailer (engine/data/tractor-semitrailer.json)."""
    from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
    return build(Path(TRACTOR_SEMITRAILER_EVENT), fmu_dir / "SimonTractorSemitrailer.fmu")


@pytest.fixture(scope="session")
def double_fmu(fmu_dir) -> Path:
    """The double with a converter dolly (engine/data/double.json)."""
    from engine.setup.event import DOUBLE_EVENT
    return build(Path(DOUBLE_EVENT), fmu_dir / "SimonDouble.fmu")


@pytest.fixture(scope="session")
def two_cars_fmu(fmu_dir) -> Path:
    """Two vehicles: the sedan twice, units ``car`` and ``car2`` (engine/data/two-cars.json)."""
    from engine.setup.event import TWO_CARS_EVENT
    return build(Path(TWO_CARS_EVENT), fmu_dir / "SimonTwoCars.fmu")


@pytest.fixture(scope="session")
def fixed_dolly_fmu(fmu_dir) -> Path:
    """The double with a fixed dolly (engine/data/double-fixed-dolly.json)."""
    return build(ROOT / "engine" / "data" / "double-fixed-dolly.json", fmu_dir / "SimonDoubleFixed.fmu")


class Instance:
    """An fmpy FMU2Slave of an extracted FMU, with its log and value references by name."""

    def __init__(self, unzipped: Path, model_description, name: str = "instance",
                 logging_on: bool = True):
        from fmpy.fmi2 import (FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE,
                               fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE)
        from fmpy.fmi1 import calloc, free
        from fmpy.logging import addLoggerProxy

        self.md = model_description
        self.vr = {v.name: v.valueReference for v in model_description.modelVariables}
        # an Enumeration is got and set as an Integer (FMI 2.0)
        self.types = {v.name: "Integer" if v.type == "Enumeration" else v.type
                      for v in model_description.modelVariables}
        self.log: list[tuple[int, str, str]] = []
        self.freed = False

        def logger(_env, _instance, status, category, message):
            self.log.append((status, (category or b"").decode(), (message or b"").decode()))

        self._callbacks = fmi2CallbackFunctions()
        self._callbacks.logger = fmi2CallbackLoggerTYPE(logger)
        self._callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self._callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        addLoggerProxy(byref(self._callbacks))
        identifier = model_description.coSimulation.modelIdentifier
        if not (Path(unzipped) / "binaries" / "linux64" / f"{identifier}_python.so").is_file():
            global _loaded_fmu_library
            _loaded_fmu_library = True      # not the project's library: pythonfmu's
        self.fmu = FMU2Slave(guid=model_description.guid, unzipDirectory=str(unzipped),
                             modelIdentifier=identifier, instanceName=name)
        self.fmu.instantiate(callbacks=self._callbacks, loggingOn=logging_on)

    def start(self, parameters: dict | None = None, start_time: float = 0.0) -> "Instance":
        self.fmu.setupExperiment(startTime=start_time)
        self.fmu.enterInitializationMode()
        for name, value in (parameters or {}).items():
            self.set(name, value)
        self.fmu.exitInitializationMode()
        return self

    def set(self, name: str, value) -> None:
        kind = self.types[name]
        getattr(self.fmu, f"set{kind}")([self.vr[name]], [value])

    def get(self, name: str):
        return getattr(self.fmu, f"get{self.types[name]}")([self.vr[name]])[0]

    def get_reals(self, names: list[str]) -> list[float]:
        return self.fmu.getReal([self.vr[n] for n in names])

    def messages(self, min_status: int = 0) -> list[str]:
        return [m for status, _, m in self.log if status >= min_status]

    def free(self) -> None:
        """fmi2FreeInstance (and unload the library); safe to call twice."""
        if not self.freed:
            self.freed = True
            self.fmu.freeInstance()


@pytest.fixture(scope="session")
def extracted(tmp_path_factory):
    """extracted(fmu) -> (folder, model description), each FMU extracted once per session."""
    from fmpy import extract, read_model_description
    cache = {}

    def get(fmu: Path):
        if fmu not in cache:
            folder = tmp_path_factory.mktemp(fmu.stem)
            extract(str(fmu), str(folder))
            cache[fmu] = (folder, read_model_description(str(folder)))
        return cache[fmu]
    yield get
    for folder, _ in cache.values():
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def instance(extracted):
    """instance(fmu, name) -> a fresh Instance; all are freed after the test."""
    made = []

    def make(fmu: Path, name: str = "instance", logging_on: bool = True) -> Instance:
        inst = Instance(*extracted(fmu), name=name, logging_on=logging_on)
        made.append(inst)
        return inst
    yield make
    for inst in made:
        inst.free()
