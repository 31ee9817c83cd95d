"""The FMU in importers nobody on this project wrote: fmpy, libcosim, Vico's ecos,
a C host, and the FMI cross-check validator.

Each importer runs in a process of its own (see ``importers.isolated`` for why).

Every test runs on a small pythonfmu probe FMU built here, and on the vehicle FMU
when a ``vehicle_fmu`` fixture (a path to the built .fmu) is defined; an optional
``vehicle_inputs`` fixture (an ``importers.InputTable``) replaces the default input
excursions for it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from importers import InputTable, Scenario, compare_results, run_and_compare
from importers.c_env import describe, host_environment
from importers.c_host import build_host, run_host
from simon_fmu.tools.crosscheck import validate, write_input_csv
from importers.isolated import isolated_runner
from importers.probe import build_probe_fmu
from importers.runners import PYTHON_IMPORTERS
from importers.references import independent_reference
from importers.system import MissingSystemLibrary, require_tbb



def _once_per_scenario(runner):
    """``runner``, run once per importer and scenario in a session: the smoke tests, the
    agreement test and the comparisons with fmpy check the one run's result."""
    results = {}

    def run(scenario: Scenario):
        inputs = scenario.inputs
        key = (str(scenario.fmu), scenario.step_size, scenario.n_steps, scenario.outputs,
               tuple(inputs.names), np.asarray(inputs.times).tobytes(),
               np.asarray(inputs.values).tobytes(), tuple(sorted(scenario.start_values.items())))
        if key not in results:
            results[key] = runner(scenario)
        return results[key]
    return run


IMPORTERS = {name: _once_per_scenario(isolated_runner(name)) for name in PYTHON_IMPORTERS}
run_fmpy = IMPORTERS["fmpy"]

RTOL = 1e-9
STOP_TIME = 3.0


@pytest.fixture(scope="session")
def probe_fmu(tmp_path_factory):
    return build_probe_fmu(tmp_path_factory.mktemp("probe"))


def _optional_fixture(request, name):
    try:
        return request.getfixturevalue(name)
    except pytest.FixtureLookupError:
        return None


@pytest.fixture(params=["probe", "vehicle", "native"])
def scenario(request, probe_fmu) -> Scenario:
    """The probe, the vehicle FMU and (``native_vehicle_fmu``) the same vehicle's native FMU,
    whose library has no Python: every importer runs it as it runs the other two."""
    if request.param == "probe":
        return Scenario.for_fmu(probe_fmu, step_size=0.05, stop_time=STOP_TIME)
    name = {"vehicle": "vehicle_fmu", "native": "native_vehicle_fmu"}[request.param]
    fmu = _optional_fixture(request, name)
    if fmu is None:
        pytest.skip(f"no `{name}` fixture is defined, so there is no such FMU to import")
    return Scenario.for_fmu(
        fmu, step_size=0.01, stop_time=STOP_TIME, inputs=_optional_fixture(request, "vehicle_inputs")
    )


@pytest.fixture(scope="session")
def tbb():
    """oneTBB for ecospy (installed by the set-up step, `make setup`)."""
    try:
        require_tbb()
    except MissingSystemLibrary as error:
        pytest.fail(f"ecospy cannot be loaded: {error}")


@pytest.fixture(scope="session")
def c_host(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.fail("gcc is needed to compile the C host (Debian: gcc)")
    return build_host(tmp_path_factory.mktemp("c-host") / "host")


def check_probe_answers(scenario: Scenario, result) -> None:
    """For the probe, y2 after the step from t_k is sin(u1(t_k))*u2(t_k) + t_k: this
    pins down when each importer applied which input."""
    if scenario.fmu.stem != "ImporterProbe":
        return
    rows = scenario.input_rows()
    t = np.array([scenario.time(k) for k in range(scenario.n_steps)])
    expected = np.sin(rows[:, 0]) * rows[:, 1] + t
    np.testing.assert_allclose(result.column("y2"), expected, rtol=1e-12, atol=1e-12)


def check_plausible(scenario: Scenario, result) -> None:
    assert result.values.shape == (scenario.n_steps, len(scenario.outputs))
    assert np.all(np.isfinite(result.values)), f"{result.importer} returned non-finite outputs"
    np.testing.assert_allclose(
        result.time, scenario.step_size * np.arange(1, scenario.n_steps + 1), rtol=0, atol=1e-9
    )
    check_probe_answers(scenario, result)


@pytest.mark.parametrize("importer", ["fmpy", "libcosim"])
def test_importer_runs_the_fmu(scenario, importer):
    check_plausible(scenario, IMPORTERS[importer](scenario))


def test_ecos_runs_the_fmu(scenario, tbb):
    check_plausible(scenario, IMPORTERS["ecos"](scenario))


def test_fmpy_libcosim_and_ecos_agree(scenario, tbb):
    results, mismatches = run_and_compare(scenario, IMPORTERS, rtol=RTOL)
    assert set(results) == {"fmpy", "libcosim", "ecos"}
    assert not mismatches, "\n".join(map(str, mismatches[:20]))


def test_comparison_catches_a_difference(probe_fmu):
    """The comparison is not vacuous: a different input table is noticed."""
    a = Scenario.for_fmu(probe_fmu, step_size=0.05, stop_time=1.0)
    b = Scenario.for_fmu(
        probe_fmu, step_size=0.05, stop_time=1.0,
        inputs=InputTable(a.inputs.names, a.inputs.times, a.inputs.values * (1 + 1e-7)),
    )
    assert compare_results(run_fmpy(a), [run_fmpy(b)], rtol=RTOL)


def test_c_host_agrees_with_fmpy(scenario, c_host):
    """The C host, in the environment that ``host_environment`` computes from this
    interpreter, gives fmpy's outputs."""
    result = run_host(c_host, scenario, env=host_environment(sys.executable))
    check_plausible(scenario, result)
    mismatches = compare_results(run_fmpy(scenario), [result], rtol=RTOL)
    assert not mismatches, "\n".join(map(str, mismatches[:20]))


def _minimal_base_environment():
    """No Python on PATH but Debian's, no Python variables: the worst case for a host."""
    return {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}


@pytest.mark.parametrize("explicit", [False, True], ids=["PATH", "PYTHONHOME+PYTHONPATH"])
def test_c_host_embeds_this_interpreter(probe_fmu, c_host, tmp_path, explicit):
    """The Python that the FMU's library starts inside the C host is this environment:
    same version, same NumPy, and (through PATH) the same sys.prefix and sys.path."""
    report = tmp_path / "report.json"
    env = host_environment(sys.executable, base=_minimal_base_environment(), explicit=explicit)
    env["IMPORTER_PROBE_REPORT"] = str(report)
    scenario = Scenario.for_fmu(probe_fmu, step_size=0.1, stop_time=0.5)
    run_host(c_host, scenario, env=env, unpack=not explicit)  # PATH case: host unzips itself
    seen = json.loads(report.read_text())
    import numpy as np_here

    assert seen["version"] == sys.version
    assert seen["base_prefix"] == sys.base_prefix
    assert seen["numpy"] == np_here.__file__
    if not explicit:
        assert seen["prefix"] == sys.prefix
        assert set(describe(sys.executable)["path"]) <= set(seen["path"])


def test_c_host_without_the_environment_cannot_load_the_fmu(probe_fmu, c_host):
    """Why the environment is needed: the library does not link libpython."""
    scenario = Scenario.for_fmu(probe_fmu, step_size=0.1, stop_time=0.5)
    with pytest.raises(RuntimeError, match="undefined symbol: _?Py"):
        run_host(c_host, scenario, env=_minimal_base_environment())


def write_crosscheck_folder(scenario: Scenario, root: Path, *extra: str) -> Path:
    """``python -m simon_fmu.tools.crosscheck`` as a user runs it; returns the model folder."""
    command = [
        sys.executable, "-m", "simon_fmu.tools.crosscheck", str(scenario.fmu), str(root),
        "--step-size", repr(scenario.step_size), "--stop-time", repr(scenario.stop_time), *extra,
    ]
    if scenario.inputs.names:
        table = root.parent / "inputs.csv"
        write_input_csv(scenario.inputs, table)
        command += ["--inputs", str(table)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).parent), env.get("PYTHONPATH")) if p)
    completed = subprocess.run(command, capture_output=True, text=True, env=env)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    prefix = "cross-check folder: "
    lines = [l for l in completed.stdout.splitlines() if l.startswith(prefix)]
    assert lines, completed.stdout + completed.stderr
    model_dir = Path(lines[0][len(prefix):])
    assert "Warning" not in completed.stdout + completed.stderr, "fmpy complained about the inputs"
    assert model_dir.is_dir(), completed.stdout + completed.stderr
    return model_dir


def test_crosscheck_folder_is_accepted_by_fmpy(scenario, tmp_path):
    root = tmp_path / "xc"
    model_dir = write_crosscheck_folder(scenario, root)
    model = scenario.fmu.stem
    assert model_dir.parts[-7:] == ("fmus", "2.0", "cs", "linux64", *model_dir.parts[-3:-1], model)
    names = sorted(p.name for p in model_dir.iterdir())
    expected = [f"{model}.fmu", f"{model}_ref.csv", f"{model}_ref.opt"]
    if scenario.inputs.names:
        expected.append(f"{model}_in.csv")
    assert names == sorted(expected)

    completed = validate(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "0 problems found" in completed.stdout
    assert "Validated 1 FMUs and 1 results" in completed.stdout

    # the reference matches one computed without the FMU: the probe's closed form, or the
    # engine run directly through its Python API
    reference = np.genfromtxt(
        model_dir / f"{model}_ref.csv", delimiter=",", names=True, deletechars=""
    )
    assert math.isclose(reference["time"][0], 0.0)
    assert math.isclose(reference["time"][-1], scenario.stop_time)
    independent = independent_reference(scenario)
    for name in reference.dtype.names[1:]:
        np.testing.assert_allclose(reference[name][1:], independent.column(name),
                                   rtol=RTOL, atol=1e-12, err_msg=name)


def test_independent_references_agree_with_fmpy(scenario):
    """The closed-form probe and the direct engine are references for every importer."""
    mismatches = compare_results(independent_reference(scenario), [run_fmpy(scenario)], rtol=RTOL)
    assert not mismatches, "\n".join(map(str, mismatches[:20]))


def test_crosscheck_validator_rejects_a_broken_folder(probe_fmu, tmp_path):
    """The validator really checks: a reference options file without RelTol fails."""
    scenario = Scenario.for_fmu(probe_fmu, step_size=0.1, stop_time=1.0)
    root = tmp_path / "xc"
    model_dir = write_crosscheck_folder(scenario, root, "--no-fmpy-result", "--no-validate")
    opt = model_dir / "ImporterProbe_ref.opt"
    opt.write_text("".join(l for l in opt.read_text().splitlines(True) if not l.startswith("RelTol")))
    completed = validate(root)
    assert completed.returncode != 0
    assert "Missing element 'RelTol'" in completed.stdout
