"""The co-simulation master's real-time mode: it paces to the wall clock and reports overruns."""
from __future__ import annotations

from simon_fmu.cosim.master import Master


def _driver_alone(driver_fmu):
    return Master({"driver": driver_fmu}, 0.01)


def test_real_time_paces_to_the_wall_clock(driver_fmu):
    r = _driver_alone(driver_fmu).run(1.0, real_time=True, record=["driver.steeringWheelAngle"])
    assert r.real_time is not None
    assert r.real_time.steps == 100
    assert 0.95 <= r.real_time.wall_time < 3.0
    # the overruns (steps that ended after their wall-clock time) are counted and reported;
    # how many there are depends on the machine's other work, not on the pacing
    assert 0 <= r.real_time.overruns <= r.real_time.steps
    assert (r.real_time.overruns == 0) == (r.real_time.max_lateness <= 0.0), r.real_time


def test_real_time_reports_overruns(driver_fmu):
    """1000 times faster than the wall clock is more than any FMU step can keep up with."""
    r = _driver_alone(driver_fmu).run(1.0, real_time=True, real_time_factor=1000.0,
                                      record=["driver.steeringWheelAngle"])
    report = r.real_time
    assert report.real_time_factor == 1000.0
    assert report.overruns > 50
    assert report.max_lateness > 0.0
    assert report.wall_time > 1.0 / 1000.0


def test_without_real_time_there_is_no_report(driver_fmu):
    r = _driver_alone(driver_fmu).run(0.1, record=["driver.steeringWheelAngle"])
    assert r.real_time is None
