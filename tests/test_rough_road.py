"""ISO 8608 rough roads (simon_fmu/tools/rough_road.py, ``python -m simon_fmu rough-road``): the
profile's spectrum against the standard's line, the seed, the OpenCRG file as the engine reads
it, the command's refusals; and the quarter car's closed form (tests/support/quarter_car.py)
against its limits. The sedan driven on these roads: tests/test_rough_road_fmu.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

import engine
from engine.setup.terrain_crg import crg_nodes, read_crg
from simon_fmu.__main__ import main as cli
from simon_fmu.tools.rough_road import BAND, CLASSES, N0, iso_psd, rough_road, write_crg
from support.quarter_car import (NULL_BAND, axle_corners, cg_response, friction_damping,
                                 pitch_plane_response, rms_on_lines, rms_on_psd, with_friction)
from support.sedan import A_S, B_S, event_data


def test_the_classes_are_iso_8608_geometric_means():
    """ISO 8608:2016: Gd(n0) at n0 = 0.1 cycles/m, w = 2; class A's range is below 32e-6 m^3,
    each next class's four times the last, and a class here is its range's geometric mean."""
    assert N0 == 0.1 and BAND == (0.01, 10.0)
    limits = [8e-6 * 4 ** k for k in range(5)]    # the class limits (A's lower one notional)
    for (name, gd), low, high in zip(CLASSES.items(), limits, limits[1:]):
        assert gd == pytest.approx(math.sqrt(low * high), rel=1e-12), name
    assert list(CLASSES) == ["A", "B", "C", "D"]
    assert iso_psd(0.2, "B") == pytest.approx(64e-6 / 4)


def test_the_profile_holds_the_iso_psd_on_its_lines():
    """Sampled over one period, the profile's discrete Fourier transform has exactly its lines:
    each line's power is the ISO PSD's over its bin (the PSD itself within 0.1 % from
    0.1 cycles/m up), and the profile's mean square is the PSD's integral over the band."""
    period, step = 200.0, 0.02
    road = rough_road("C", period, seed=3)
    s = np.arange(round(period / step)) * step
    z = road.elevation(s)
    spectrum = np.fft.rfft(z) / len(s)
    k = np.rint(road.n * period).astype(int)
    power = 2 * np.abs(spectrum[k]) ** 2                  # A^2 / 2 of each line
    assert np.allclose(power, road.amplitude ** 2 / 2, rtol=1e-9, atol=0)
    others = np.delete(np.abs(spectrum), k)
    assert np.max(others) < 1e-12 * np.max(np.abs(spectrum))
    integral = CLASSES["C"] * N0 ** 2 * (1 / BAND[0] - 1 / BAND[1])
    assert np.mean(z ** 2) == pytest.approx(integral, rel=1e-9)
    assert road.mean_square == pytest.approx(integral, rel=1e-12)
    inside = (road.n >= 0.1) & (road.n < BAND[1])          # the end line: half a bin
    assert np.allclose(power[inside] * period, iso_psd(road.n[inside], "C"), rtol=1e-3)
    assert road.n[0] == BAND[0] and road.n[-1] == BAND[1] and len(road.n) == 1999


def test_the_profile_on_a_grid_is_the_line_by_line_sum():
    """On the samples a file holds (evenly spaced, the spacing dividing the period) the
    profile is one inverse FFT; the line-by-line sum is the reference: measured 5.4e-15 m on a
    400 m class C road (16 mm rms), 8.4e-14 m on a 5 km class D road, whose 250 001 samples of
    50 000 lines a line-by-line sum takes minutes for; samples that are not such a grid take
    the sum itself."""
    road = rough_road("C", 400.0, seed=1)
    u = np.linspace(0.0, 400.0, 20001)
    assert road._on_grid(u) is not None
    every = slice(None, None, 7)                       # the reference sum on every 7th sample
    assert np.max(np.abs(road.elevation(u)[every] - road.direct(u[every]))) < 5e-14
    shifted = u[1000:3000] + 1234.5                   # beyond the period, from another start
    assert np.max(np.abs(road.elevation(shifted) - road.direct(shifted))) < 5e-14
    long = rough_road("D", 5000.0, seed=2)
    grid = np.linspace(0.0, 5000.0, 250001)
    some = np.arange(0, len(grid), 997)
    assert len(long.n) == 49951
    assert np.max(np.abs(long.elevation(grid)[some] - long.direct(grid[some]))) < 5e-13
    odd = np.sort(np.random.default_rng(0).uniform(0.0, 400.0, 500))
    assert road._on_grid(odd) is None
    assert np.array_equal(road.elevation(odd), road.direct(odd))
    # a spacing that does not divide the period is summed line by line
    off = np.linspace(0.0, 399.0, 20001)
    assert road._on_grid(off) is None


def test_a_seed_gives_the_same_road_and_the_classes_scale_it():
    s = np.linspace(0.0, 50.0, 501)
    a = rough_road("A", 300.0, seed=7).elevation(s)
    assert np.array_equal(a, rough_road("A", 300.0, seed=7).elevation(s))
    assert not np.allclose(a, rough_road("A", 300.0, seed=8).elevation(s))
    for name, factor in (("B", 2), ("C", 4), ("D", 8)):
        assert np.allclose(rough_road(name, 300.0, seed=7).elevation(s), factor * a,
                           rtol=1e-12, atol=1e-15)
    # the default period is the length (at least 1 / the band's low): the road repeats
    road = rough_road("B", 150.0, seed=7)
    assert road.period == 150.0
    assert np.allclose(road.elevation(s + 150.0), road.elevation(s), atol=1e-12)
    assert rough_road("B", 40.0).period == 100.0


def test_the_crg_file_is_the_profile_the_engine_reads(tmp_path):
    """The file's nodes, read by the engine's OpenCRG reader, are the profile within the
    float32 of crgutils' grid, the same on every long section; an event on it loads."""
    road = rough_road("A", 60.0, seed=2)
    path = write_crg(tmp_path / "a.crg", road, length=60.0, step=0.02, width=4.0)
    z, x, y, nan, _ = crg_nodes(read_crg(path))
    assert not nan.any() and z.shape == (3, 3001)
    assert np.allclose(y[:, 0], [-2.0, 0.0, 2.0]) and np.allclose(x[0], np.linspace(0, 60, 3001))
    assert np.max(np.abs(z - road.elevation(x[0]))) < 2e-9      # measured 4.7e-10 m
    data = event_data()
    data["environment"]["terrain"] = {"type": "crg", "file": str(path),
                                      "origin": [-5.0, 0.0, 0.0]}
    assert engine.load_event(data).data["environment"]["terrain"]["type"] == "crg"


def test_the_command_writes_the_road_and_refuses_bad_arguments(tmp_path, capsys):
    out = tmp_path / "road.crg"
    assert cli(["rough-road", "--class", "b", "--length", "120", "--seed", "4",
                "-o", str(out)]) == 0
    assert "class B, seed 4, 120 m" in capsys.readouterr().out
    z, x, _, _, _ = crg_nodes(read_crg(out))
    assert np.max(np.abs(z[1] - rough_road("B", 120.0, 4).elevation(x[1]))) < 2e-9
    assert cli(["rough-road", "--class", "B", "--length", "120", "-o", str(out)]) == 0  # its own
    capsys.readouterr()
    for argv, names in ((["--class", "E"], "--class: one of A, B, C, D (got 'E')"),
                        (["--step", "0.05"], "--step: at most 0.025 m"),
                        (["--length", "-1"], "--length: a number > 0"),
                        (["--seed", "-2"], "--seed: a whole number >= 0"),
                        (["--band", "1", "0.5"], "--band: two spatial frequencies"),
                        (["--period", "50"], "--period: a length >= 1 / the band's low = 100 m"),
                        (["--length", "6000"], "--length: at most 5000 m at a step of 0.02 m")):
        with pytest.raises(SystemExit) as exit_:
            cli(["rough-road", *argv, "-o", str(tmp_path / "x.crg")])
        assert exit_.value.code == 2
        assert names in capsys.readouterr().err, argv
    assert not (tmp_path / "x.crg").exists()
    other = tmp_path / "notes.crg"
    other.write_text("$CT\nsomeone else's road\n")
    assert cli(["rough-road", "-o", str(other)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(other) in err[0] and "not a rough road" in err[0]
    assert other.read_text() == "$CT\nsomeone else's road\n"


def test_the_quarter_car_closed_form():
    """The front quarter car: its body follows the road at low frequency (|H| / omega^2 -> 1),
    its modes are the sedan's ride (1.4 Hz) and wheel hop (12 Hz); on a class B road the sum
    over the road's lines is the integral over the ISO line within 0.1 %, and the blend of
    the two axles' quarter cars at the CG the whole linear pitch plane's. The friction's
    equivalent damping: F sqrt(2 / pi) / sigma for a stroke velocity far above the null band,
    the band's own rate F / e far below it, and the fixed point's sigma gives back its c."""
    front = axle_corners()[0]
    assert abs(front.body_acceleration(1e-3)) / 1e-6 == pytest.approx(1.0, rel=1e-6)
    ride, hop = front.natural_frequencies()
    assert 1.3 < ride < 1.5 and 11 < hop < 13
    speed = 80 / 3.6
    road = rough_road("B", 400.0, seed=1)
    lines = rms_on_lines(lambda w: cg_response(w, speed), road.n, road.amplitude, speed)
    psd = rms_on_psd(lambda w: cg_response(w, speed), lambda n: iso_psd(n, "B"), BAND, speed)
    assert lines == pytest.approx(psd, rel=1e-3)
    # the blend at the CG is the whole pitch plane's within 0.01 %, the corners within 1 %
    whole = rms_on_lines(lambda w: pitch_plane_response(w, speed), road.n, road.amplitude, speed)
    assert lines == pytest.approx(whole, rel=5e-4)
    for corner, x in zip(axle_corners(), (A_S, -B_S)):
        assert rms_on_lines(lambda w: corner.body_acceleration(w) * corner.envelope(w, speed),
                            road.n, road.amplitude, speed) \
            == pytest.approx(rms_on_lines(lambda w: pitch_plane_response(w, speed, x), road.n,
                                          road.amplitude, speed), rel=0.02)
    assert friction_damping(50.0, 10.0) == pytest.approx(50.0 * math.sqrt(2 / math.pi) / 10.0,
                                                         rel=1e-6)
    assert friction_damping(50.0, 1e-4) == pytest.approx(50.0 / NULL_BAND, rel=1e-12)
    linear = with_friction(front, road.n, road.amplitude, speed)
    sigma = rms_on_lines(lambda w: linear.stroke_velocity(w) * linear.envelope(w, speed), road.n,
                         road.amplitude, speed)
    assert linear.c == pytest.approx(front.c + friction_damping(front.friction, sigma), abs=1e-6)
    assert linear.friction == 0.0 and front.friction == 50.0
