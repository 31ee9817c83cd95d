"""Parameter sweeps on Dask (simon_fmu.studies.sweep) through the built FMU.

The locked-wheel stop is checked against its closed form from the sedan sheet: every wheel
slides at the tire's slide friction mu_s (0.8 at every test load and speed) times the road's
friction multiplier f, so the deceleration is f mu_s g plus the aerodynamic drag, and the
mean fully developed deceleration between 0.8 v0 and 0.1 v0 integrates in closed form.
"""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from simon_fmu.studies import results as store
from simon_fmu.studies import spec as spec_module
from simon_fmu.studies.sweep import run_case, run_sweep, worker_runner

from support.fmus import event_fmu
from support.sedan import CDA, EV, G, M, RHO, event_data

ROOT = Path(__file__).resolve().parents[1]
MU_S = {v for tire in EV["tires"].values() for row in tire["slide_friction"] for v in row}

LOCKED = {"manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000.0}},
          "grid": {"frictionMultiplier": [0.3, 0.55, 0.8, 1.0], "speed0": [15.0, 25.0]}}


def mfdd_closed_form(f: float, v0: float) -> float:
    """ECE R13-H mean fully developed deceleration of a locked-wheel stop with drag:
    dv/dt = -(A + k v^2), A = f mu_s g, k = rho CdA / (2 M), so the distance from v_b to v_e
    is ln((A + k v_b^2) / (A + k v_e^2)) / (2 k)."""
    (mu_s,) = MU_S
    a, k = f * mu_s * G, 0.5 * RHO * CDA / M
    vb, ve = 0.8 * v0, 0.1 * v0
    distance = math.log((a + k * vb ** 2) / (a + k * ve ** 2)) / (2 * k)
    return (vb ** 2 - ve ** 2) / (2 * distance)


def rows_of(path: Path) -> list[dict]:
    return store.read_table(path).to_pylist()


def test_locked_wheel_sweep_gives_f_mu_g_and_is_worker_count_independent(car_fmu, tmp_path):
    spec = spec_module.parse(LOCKED)
    one = run_sweep(spec, tmp_path / "one.parquet", car_fmu, workers=1, progress=False)
    two = run_sweep(spec, tmp_path / "two.parquet", car_fmu, workers=2, progress=False)
    assert one["run"] == two["run"] == 8 and one["failed"] == two["failed"] == 0
    t1, t2 = store.read_table(tmp_path / "one.parquet"), store.read_table(tmp_path / "two.parquet")
    assert t1.equals(t2)                                      # bit for bit
    rows = t1.to_pylist()
    assert [r["case"] for r in rows] == list(range(8))
    (mu_s,) = MU_S
    for r in rows:
        assert r["status"] == "ok"
        f, v0 = r["frictionMultiplier"], r["speed0"]
        assert r["meanDeceleration"] == pytest.approx(mfdd_closed_form(f, v0), rel=0.01)  # measured 0.53 %
        # the plain f mu_s g: drag adds up to 3.0 % (f = 0.3 at 25 m/s)
        assert r["meanDeceleration"] == pytest.approx(f * mu_s * G, rel=0.04)
        # stopping distance with drag, ln(1 + k v0^2 / A) / (2 k); the brakes' pressure lag
        # adds a little: measured up to 0.28 %
        a, k = f * mu_s * G, 0.5 * RHO * CDA / M
        assert r["stoppingDistance"] == pytest.approx(math.log(1 + k * v0 ** 2 / a) / (2 * k),
                                                      rel=0.006)


def test_failing_case_is_recorded_and_the_sweep_goes_on(car_fmu, tmp_path):
    spec = spec_module.parse({"manoeuvre": {"name": "straight-brake",
                                            "settings": {"duration": 4.0}},
                              "grid": {"frictionMultiplier": [1.0, 6.0, 0.8]}})
    out = tmp_path / "r.csv"
    summary = run_sweep(spec, out, car_fmu, workers=1, progress=False)
    assert summary["failed"] == 1
    rows = rows_of(out)
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    assert "frictionMultiplier" in rows[1]["error"] and "6" in rows[1]["error"]
    assert math.isnan(rows[1]["meanDeceleration"]) and rows[1]["frictionMultiplier"] == 6.0
    assert rows[0]["error"] == "" and "failed" in out.read_text().splitlines()[3]
    # the case after the failure ran on the same instance, reset: same as on its own
    alone = run_case(str(car_fmu), "straight-brake", {"duration": 4.0}, 2,
                     {"frictionMultiplier": 0.8})
    assert alone["status"] == "ok"
    for key in ("meanDeceleration", "stoppingDistance", "stoppingTime"):
        assert alone[key] == pytest.approx(rows[2][key], rel=1e-8)   # through the CSV's %.9g


def test_csv_table_has_the_units_row_and_a_resumed_sweep_rewrites_it(car_fmu, tmp_path, capsys):
    """The CSV table as the studies' CSVs: names, SI units (a setting's from the manoeuvre,
    an FMU parameter's from its model description, a metric's from the manoeuvre, none for
    case, status and error), numbers in %.9g; read back as the Parquet table is; a sweep
    resumed into it runs only the missing case and writes the same file."""
    from simon_fmu.__main__ import main as cli
    data = {"manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000.0}},
            "grid": {"frictionMultiplier": [0.3, 0.55], "car.X0": [2.5], "speed0": [20.0]}}
    spec = spec_module.parse(data)
    out, parquet = tmp_path / "r.csv", tmp_path / "r.parquet"
    run_sweep(spec, out, car_fmu, workers=1, progress=False)
    run_sweep(spec, parquet, car_fmu, workers=1, progress=False)
    lines = out.read_text().splitlines()
    names, units = lines[0].split(","), lines[1].split(",")
    assert names == ["case", "frictionMultiplier", "car.X0", "speed0", "brakeSpeed",
                     "meanDeceleration", "stoppingDistance", "stoppingTime", "status", "error",
                     "notes"]
    assert dict(zip(names, units)) == {
        "case": "", "frictionMultiplier": "", "car.X0": "m", "speed0": "m/s",
        "brakeSpeed": "m/s", "meanDeceleration": "m/s2", "stoppingDistance": "m",
        "stoppingTime": "s", "status": "", "error": "", "notes": ""}
    journal = store.read_journal(out)
    for k, line in enumerate(lines[2:]):
        cells = dict(zip(names, line.split(",")))
        assert cells["case"] == str(k) and cells["status"] == "ok" and cells["error"] == ""
        assert cells["notes"] == ""
        for name in names[1:-3]:
            assert cells[name] == "%.9g" % journal[k][name]
    # read back: the CSV's numbers are the journal's to nine digits, and the table is the
    # Parquet one (the units in the fields' metadata) with those numbers
    csv_table, pq_table = store.read_table(out), store.read_table(parquet)
    assert store.table_units(csv_table) == store.table_units(pq_table) == dict(zip(names, units))
    assert csv_table.schema.equals(pq_table.schema, check_metadata=True)
    for got, full in zip(csv_table.to_pylist(), pq_table.to_pylist()):
        assert got == {k: float("%.9g" % v) if isinstance(v, float) else v
                       for k, v in full.items()}
    assert got["frictionMultiplier"] == 0.55 and got["car.X0"] == 2.5
    # a sweep killed after its first case: the command resumes into the existing CSV
    before = out.read_bytes()
    path = store.journal_path(out)
    path.write_text(path.read_text().splitlines()[0] + "\n")
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(data))
    assert cli(["sweep", str(spec_file), "-o", str(out), "--fmu", str(car_fmu),
                "--workers", "1", "--no-progress"]) == 0
    assert "2 cases, 1 run, 1 already done, 0 failed" in capsys.readouterr().out
    assert out.read_bytes() == before


def test_csv_table_text_columns_round_trip(tmp_path):
    """Without an FMU: a message with a comma, a quote and a line break is quoted and read back
    whole; a missing metric is nan in the CSV and NaN read back, as in Parquet."""
    from simon_fmu.studies import tables
    message = 'frictionMultiplier: 6.0 is not accepted, "6"\nsee the range'
    rows = [{"case": 1, "speed0": 25.0, "status": "failed", "error": message},
            {"case": 0, "speed0": 1 / 3, "stoppingTime": 2.0 / 3, "status": "ok", "error": ""}]
    units = {"speed0": "m/s", "stoppingTime": "s"}
    for name in ("r.csv", "r.parquet"):
        store.write_table(tmp_path / name, rows, ["speed0"], units)
    text = (tmp_path / "r.csv").read_text()
    assert text == ("case,speed0,stoppingTime,status,error,notes\n"
                    ",m/s,s,,,\n"
                    "0,0.333333333,0.666666667,ok,,\n"
                    '1,25,nan,failed,"frictionMultiplier: 6.0 is not accepted, ""6""\n'
                    'see the range",\n')
    assert store.not_a_table(tmp_path / "r.csv") is None
    csv_rows = rows_of(tmp_path / "r.csv")
    pq_rows = rows_of(tmp_path / "r.parquet")
    assert csv_rows[1]["error"] == pq_rows[1]["error"] == message
    assert math.isnan(csv_rows[1]["stoppingTime"]) and math.isnan(pq_rows[1]["stoppingTime"])
    assert csv_rows[0] == {"case": 0, "speed0": 0.333333333, "stoppingTime": 0.666666667,
                           "status": "ok", "error": "", "notes": ""}
    names, unit_row, columns = tables.read_csv(tmp_path / "r.csv")
    assert unit_row == ["", "m/s", "s", "", "", ""] and list(columns["status"]) == ["ok", "failed"]
    assert tables.csv_text(names, unit_row, list(columns.values())) == text


@pytest.fixture(scope="module")
def stop_fmu(fmu_dir):
    """The sedan with the manual's stop at a tire's max_deflection (simulation.tire_limit)."""
    data = event_data()
    data["simulation"]["tire_limit"] = "stop"
    return event_fmu(fmu_dir, "tire_limit_stop", data)


def test_case_failing_in_a_step_is_recorded_and_the_next_case_is_unaffected(stop_fmu, tmp_path):
    # friction 5 with a full pedal from 40 m/s deflects the front tires past their maximum,
    # where the manual's tire limit stops the run
    fixed = {"brakePedalForce": 5000.0, "speed0": 40.0, "duration": 8.0}
    spec = spec_module.parse({"manoeuvre": {"name": "straight-brake", "settings": fixed},
                              "grid": {"frictionMultiplier": [5.0, 0.8]}})
    run_sweep(spec, tmp_path / "r.parquet", stop_fmu, workers=1, progress=False)
    failed, ok = rows_of(tmp_path / "r.parquet")
    assert failed["status"] == "failed" and "tire deflection exceeds its maximum" in failed["error"]
    assert failed["error"].startswith("step at t = ")
    alone = run_case(str(stop_fmu), "straight-brake", fixed, 1, {"frictionMultiplier": 0.8})
    assert ok["status"] == "ok" and ok["stoppingDistance"] == alone["stoppingDistance"]


def test_worker_instantiates_once_and_reset_repeats_a_case(car_fmu):
    first = run_case(str(car_fmu), "straight-brake", {}, 0, {"frictionMultiplier": 0.7})
    run_case(str(car_fmu), "straight-brake", {}, 1, {"frictionMultiplier": 1.0, "speed0": 30.0})
    again = run_case(str(car_fmu), "straight-brake", {}, 0, {"frictionMultiplier": 0.7})
    assert first == again
    assert worker_runner(str(car_fmu)).instantiations == 1


def test_killed_sweep_resumes_without_redoing_cases(car_fmu, tmp_path):
    data = {"manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000.0}},
            "grid": {"frictionMultiplier": list(np.round(np.linspace(0.3, 0.6, 12), 4)),
                     "speed0": [25.0, 30.0]}}
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(data))
    out = tmp_path / "r.parquet"
    journal = store.journal_path(out)
    proc = subprocess.Popen([sys.executable, "-m", "simon_fmu", "sweep", str(spec_file), "-o",
                             str(out), "--fmu", str(car_fmu), "--workers", "2", "--no-progress"],
                            cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if len(store.read_journal(out)) >= 4:
                break
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = store.read_journal(out)
    assert 4 <= len(before) < 24 and not out.exists()
    summary = run_sweep(spec_module.load(spec_file), out, car_fmu, workers=1, progress=False)
    assert summary["skipped"] == len(before) and summary["run"] == 24 - len(before)
    lines = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()
             and line.startswith("{") and line.endswith("}")]
    cases = [r["case"] for r in lines]
    assert sorted(cases) == list(range(24))                  # each case journalled once
    assert [r["case"] for r in rows_of(out)] == list(range(24))
    assert all(r["status"] == "ok" for r in rows_of(out))


def test_sweep_on_an_existing_scheduler(car_fmu, tmp_path):
    import logging

    from distributed import LocalCluster
    spec = spec_module.parse({"manoeuvre": {"name": "straight-brake"},
                              "grid": {"frictionMultiplier": [0.6, 0.9]}})
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster:
        summary = run_sweep(spec, tmp_path / "r.parquet", car_fmu,
                            scheduler=cluster.scheduler_address, progress=False)
    assert summary["run"] == 2 and summary["failed"] == 0
    for r in rows_of(tmp_path / "r.parquet"):
        assert r["meanDeceleration"] == pytest.approx(
            mfdd_closed_form(r["frictionMultiplier"], 20.0), rel=0.01)


def test_random_sampling_is_seeded_on_the_client():
    data = {"manoeuvre": {"name": "straight-brake"}, "grid": {"speed0": [10.0, 20.0]},
            "random": {"frictionMultiplier": {"uniform": [0.3, 1.0]},
                       "brakePedalForce": {"normal": [2000.0, 100.0]}, "samples": 5, "seed": 7}}
    a, b = spec_module.parse(data).cases(), spec_module.parse(data).cases()
    assert a == b and len(a) == 10
    rng = np.random.default_rng(7)
    mu, force = rng.uniform(0.3, 1.0, 5), rng.normal(2000.0, 100.0, 5)
    assert [c["frictionMultiplier"] for c in a[::2]] == list(mu)
    assert [c["brakePedalForce"] for c in a[1::2]] == list(force)
    assert [c["speed0"] for c in a[:2]] == [10.0, 20.0]


@pytest.mark.parametrize("data, field", [
    ({"grid": {"speed0": [1.0]}}, "manoeuvre"),
    ({"manoeuvre": {"name": "loop"}, "grid": {"speed0": [1.0]}}, "manoeuvre.name"),
    ({"manoeuvre": {"name": "straight-brake", "settings": {"speed0": -3}}, "grid": {"brakeTime": [0]}},
     "manoeuvre.settings.speed0"),
    ({"manoeuvre": {"name": "straight-brake"}, "grid": {"speed0": []}}, "grid.speed0"),
    ({"manoeuvre": {"name": "straight-brake"}, "grid": {"speed0": ["fast"]}}, "grid.speed0"),
    ({"manoeuvre": {"name": "straight-brake"}, "random": {"speed0": {"uniform": [3, 1]},
                                                          "samples": 2}}, "random.speed0"),
    ({"manoeuvre": {"name": "straight-brake"}, "random": {"speed0": {"normal": [3, 1]}}},
     "random.samples"),
    ({"manoeuvre": {"name": "straight-brake"}}, "grid, random"),
    ({"manoeuvre": {"name": "straight-brake"}, "grid": {"speed0": [1]}, "grids": {}}, "grids"),
])
def test_spec_errors_name_the_field(data, field):
    with pytest.raises(spec_module.SpecError) as info:
        spec_module.parse(data)
    assert any(p.startswith(field + ":") or p.startswith(field + ".") for p in info.value.problems), \
        info.value.problems


def test_unknown_parameter_is_named(car_fmu, tmp_path):
    spec = spec_module.parse({"manoeuvre": {"name": "straight-brake"},
                              "grid": {"car.notAThing": [1.0]}})
    with pytest.raises(spec_module.SpecError, match=r"grid\.car\.notAThing: neither a setting"):
        run_sweep(spec, tmp_path / "r.parquet", car_fmu, progress=False)
