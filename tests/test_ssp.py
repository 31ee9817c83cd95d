"""The closed-loop systems as SSP files, run in fmpy's SSP support and in libcosim, against the
master in Jacobi order (see simon_fmu.cosim.ssp for what each importer needs)."""
from __future__ import annotations

import subprocess
import sys
import zipfile

import numpy as np
import pytest

from conftest import ROOT
from simon_fmu.cosim import ssp


@pytest.fixture(scope="session")
def system_fmus(car_fmu, driver_fmu, abs_fmu):
    return {"vehicle": car_fmu, "driver": driver_fmu, "abs": abs_fmu}


def _start_importer(importer, file, out):
    return subprocess.Popen([sys.executable, "-m", "simon_fmu.cosim.ssp", "run", importer, str(file),
                             str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def _finish(process) -> None:
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output.decode(errors="replace")[-2000:]


@pytest.mark.parametrize("name", list(ssp.SYSTEMS))
def test_ssp_runs_in_fmpy_and_libcosim_as_in_the_master(name, system_fmus, tmp_path):
    system = ssp.SYSTEMS[name]
    file = ssp.write_ssp(system, system_fmus, tmp_path / f"{name}.ssp")
    with zipfile.ZipFile(file) as z:
        assert sorted(z.namelist()) == sorted(
            ["SystemStructure.ssd"] + [f"resources/{i}.fmu" for i in system.instances])
    runs = {imp: _start_importer(imp, file, tmp_path / f"{imp}.npz")
            for imp in ("fmpy", "libcosim")}
    m = ssp.master(system, system_fmus, order="jacobi")
    like_libcosim = m.run(system.stop_time, start_values=system.start_values,
                          record=system.record)
    like_fmpy = m.run(system.stop_time, start_values=system.start_values,
                      record=system.record, initial_exchange=False)
    for process in runs.values():
        _finish(process)
    got = {imp: np.load(tmp_path / f"{imp}.npz") for imp in runs}
    assert np.allclose(got["libcosim"]["time"], like_libcosim.time[1:], atol=1e-9)
    for ref in system.record:
        scale = 1.0 + np.ptp(like_libcosim[ref])
        d_fmpy = np.abs(got["fmpy"][ref] - like_fmpy[ref][1:]).max()
        d_cosim = np.abs(got["libcosim"][ref] - like_libcosim[ref][1:]).max()
        start = np.abs(like_fmpy[ref] - like_libcosim[ref]).max()
        assert d_fmpy <= 1e-8 * scale, f"{ref}: fmpy {d_fmpy:.1e} (zero start vs exchange {start:.1e})"
        assert d_cosim <= 1e-8 * scale, f"{ref}: libcosim {d_cosim:.1e} (zero start vs exchange {start:.1e})"


def test_ssp_carries_start_values_fmpy_can_set(system_fmus, tmp_path):
    """fmpy sets no String: the systems choose the driver's course by its Integer."""
    file = ssp.write_ssp(ssp.SYSTEMS["split-mu"], system_fmus, tmp_path / "s.ssp")
    names = {p.name: p.value for p in ssp.fmpy_parameter_set(file).parameters}
    assert int(names["driver.course"]) == 4        # fmpy keeps an Integer as its text
    assert float(names["vehicle.car.axle1.right.frictionMultiplier"]) == 0.25
    assert not any(n.endswith(".path") for n in names)
