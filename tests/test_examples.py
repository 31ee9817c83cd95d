"""The examples under examples/: their core functions through the built FMUs, their geometry."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def truck():
    return _example("tractor_semitrailer_lane_change")


def test_off_tracking_of_a_circle_is_the_difference_of_radii(truck):
    """A follower on a circle of radius R - d inside a leader's circle of radius R (turning
    right, J670: Y right +) is d to the right of the leader's path, at the leader's arc length."""
    R, d = 50.0, 0.8
    a = np.linspace(0.0, 1.0, 400)
    leader = np.column_stack([R * np.sin(a), R * (1 - np.cos(a))])
    b = np.linspace(0.2, 0.8, 7)
    follower = np.column_stack([(R - d) * np.sin(b), R - (R - d) * np.cos(b)])
    station, lateral = truck.off_tracking(leader, follower)
    assert lateral == pytest.approx(np.full(b.size, d), abs=2e-3)   # chords: R (1 - cos(da/2))
    assert station == pytest.approx(R * b, rel=1e-4)
    behind = truck.off_tracking(leader, np.array([[-5.0, 0.0]]))
    assert np.isnan(behind[0]).all() and np.isnan(behind[1]).all()


def test_cruise_gear_puts_the_engine_in_its_full_torque_band(truck):
    """Gear 10 (0.73) at 80 km/h: 22.2 / r * 0.73 * 4.56 rad/s, r the drive tires' loaded
    radius (0.559 m less the static deflection) is 1300 rpm, above the 1200 rpm where the
    sheet's full torque starts; gear 9 (1.00) would also do (1780 rpm), the highest is taken."""
    import engine
    from engine.setup.event import TRACTOR_SEMITRAILER_EVENT
    event = engine.load_event(TRACTOR_SEMITRAILER_EVENT)
    assert truck.cruise_gear(event, 80 / 3.6) == 10
    assert truck.cruise_gear(event, 50 / 3.6) == 8        # gears 10, 9: 810, 1110 rpm; 8: 1510
    with pytest.raises(ValueError, match="no gear"):
        truck.cruise_gear(event, 0.5)


def test_tractor_semitrailer_lane_change_runs_through_the_fmu(truck, semitrailer_fmu, tmp_path):
    """The example's core function, cut short in the first half of the sine: finite peaks,
    the speed held, the trailer following the tractor into the turn, and both files written."""
    p = truck.lane_change(semitrailer_fmu, tmp_path, stop_time=2.5, start=0.5, iterations=1)
    assert all(math.isfinite(v) for v in p.values())
    assert p["gear"] == 10
    assert p["final_speed"] == pytest.approx(truck.SPEED, abs=0.3)
    assert 0.0 < p["articulation"] < math.radians(10.0)
    assert p["tractor_yaw_rate"] > 0 and p["trailer_yaw_rate"] > 0 and p["tractor_ay"] > 0
    assert p["lateral_offset"] > 0.1          # steering wheel positive first: to the right
    csv = tmp_path / "tractor-semitrailer-lane-change.csv"
    header = csv.read_text().splitlines()[0].split(",")
    for name in ("time", "trailer.articulation", "trailer.r", "front.X", "tridem.Y", "offtracking"):
        assert name in header
    units = csv.read_text().splitlines()[1].split(",")       # the units row, SI
    assert units[header.index("time")] == "s" and units[header.index("trailer.r")] == "rad/s"
    assert units[header.index("offtracking")] == "m"
    data = np.loadtxt(csv, delimiter=",", skiprows=2)
    assert data.shape == (251, len(header))
    assert np.isfinite(data[:, :header.index("offtracking.station")]).all()
    assert (tmp_path / "tractor-semitrailer-lane-change.png").stat().st_size > 10000


def test_closed_loop_prints_its_metrics_and_writes_into_its_output_folder(
        car_fmu, driver_fmu, abs_fmu, tmp_path, capsys):
    """examples/closed_loop.py's lane change with the given FMUs: the plot goes into --out (no
    FMU is built there), and the run's metrics are printed as a table in display units."""
    closed_loop = _example("closed_loop")
    assert closed_loop.main(["iso3888-2", "--out", str(tmp_path), "--vehicle", str(car_fmu),
                             "--driver", str(driver_fmu), "--abs", str(abs_fmu)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["iso3888_2.png"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"iso3888-2 ({tmp_path / 'iso3888_2.png'}):"
    rows = {line[:28].strip(): line[28:].split() for line in lines[1:]}
    assert rows["body inside the lanes"] == ["yes"]
    assert rows["entry speed"][1] == "km/h" and 55 < float(rows["entry speed"][0]) <= 60.5
    assert rows["peak lateral acceleration"][1] == "g"
    assert 0.3 < float(rows["peak lateral acceleration"][0]) < 1.2
    assert rows["least cone margin"][1] == "m" and float(rows["least cone margin"][0]) > 0
    assert rows["peak tracking error"][1] == "m"


def test_closed_loop_metrics_table():
    closed_loop = _example("closed_loop")
    table = closed_loop.metrics_table("abs:", [("stopping distance", 38.04, "m"),
                                                ("mean deceleration", 0.97, "g"),
                                                ("inside", "yes", "")])
    assert table.splitlines() == ["abs:",
                                  "  stopping distance      38.040  m",
                                  "  mean deceleration       0.970  g",
                                  "  inside                    yes"]


def test_dolly_rollover_launches_through_the_fmu_and_reports_the_roll(car_fmu, tmp_path, capsys):
    """examples/dolly_rollover.py with the given FMU: its plot and CSV go into --out, and the
    quarter turns it prints are those of the roll output it wrote (launch to rest)."""
    dolly = _example("dolly_rollover")
    dolly.main(["--fmu", str(car_fmu), "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dolly_rollover.csv", "dolly_rollover.png"]
    line = capsys.readouterr().out.splitlines()[0]
    from simon_fmu.studies.tables import read_csv
    _, units, columns = read_csv(tmp_path / "dolly_rollover.csv")
    roll = columns["car.roll"]
    turns = int(abs(roll[-1] - roll[0]) // (0.5 * math.pi))
    assert line.startswith(f"dolly rollover: {turns} quarter turns") and turns >= 4
