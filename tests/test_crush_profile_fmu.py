"""The residual crush profile (collision.crushFace, crushWidth, crushC1..crushC6; engine.collision
.crush_profile; docs/equations.md, "The residual crush profile") as reconstructionists measure
it: six equally spaced stations across the damage width of the damaged face.

* Through the FMU, the sedan square into a rigid wall at 56 km/h (the CRASH3 full-width
  frontal test): every column of the front is crushed alike, so the face is the front, the
  width the car's and C1..C6 all the residual crush, (1 - e^2)(C + A/B) - A/B of the CRASH3
  crush C the same run reports (tests/test_crash3_fmu.py checks C against the energy).
* Through the FMU, the sedan into a rigid square pole set to the right of its centre line: the
  damage lies over the pole only, so the width is the pole's to within the mesh's column
  spacing, centred on it, and the stations run from the left to the right.
* The kernel against an independent computation of the same profile from the final state of
  the engine (each column of the front's box mesh, its strip between the midpoints to its
  neighbours, the deepest residual crush in it).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import engine
from engine import layout as L
from support.barrier import neutral_run
from support.exteriors import box_obj, read_objects
from support.fixtures import BARRIER_X, barrier_event
from support.fmus import event_fmu
from support.run import run
from support.sedan import DATA

CAR = DATA["units"][0]
WIDTH = CAR["dimensions"]["width"]
A_FRONT = 50.0e3                # N/m: the front's CRASH3 A (its no-damage approach A/B 5 cm)
CRUSH_A = {"front": A_FRONT, "side": 20.0e3, "rear": 30.0e3}
POLE, POLE_Y = 0.3, 0.35        # m: the square pole's width and its centre right of the path
V_TEST, V_POLE = 56.0 / 3.6, 8.0
PROFILE = tuple(f"car.collision.crush{k}" for k in ("Face", "Width", "C1", "C2", "C3", "C4",
                                                     "C5", "C6"))
RECORD = ("car.collision.maxCrush", "car.collision.residualCrush") + PROFILE
FRONT = 2                       # the CrushFace item Front


def _with_a(data):
    data["units"][0].setdefault("collision", {})["crush_a"] = dict(CRUSH_A)
    return data


def _pole_event(folder):
    box_obj(folder / "pole_right.obj", (BARRIER_X, POLE_Y - 0.5 * POLE, -3.0),
            (BARRIER_X + POLE, POLE_Y + 0.5 * POLE, 0.0), n=2)
    data = _with_a(copy.deepcopy(DATA))
    data["environment"]["objects"] = [{"mesh_file": str(folder / "pole_right.obj")}]
    return data


@pytest.fixture(scope="module")
def wall_fmu(fmu_dir):
    return event_fmu(fmu_dir, "crush_profile_wall", _with_a(barrier_event()))


@pytest.fixture(scope="module")
def pole_fmu(fmu_dir):
    return event_fmu(fmu_dir, "crush_profile_pole", _pole_event(fmu_dir))


def _front_columns(sim):
    """The front's vertices of the car's box mesh by column (y), with each column's strip."""
    P = sim.model
    v0, nv = int(P.P_COLL[0, L.CO_V0]), int(P.P_COLL[0, L.CO_NV])
    front = [v for v in range(v0, v0 + nv) if P.CK[v, L.FACE_FRONT] > 0.0]
    ys = np.unique(P.CV[front, 1])
    edges = np.concatenate([[ys[0]], 0.5 * (ys[1:] + ys[:-1]), [ys[-1]]])
    return front, ys, edges


def test_a_full_width_wall_crushes_every_station_alike(instance, wall_fmu):
    r = neutral_run(instance, wall_fmu, V_TEST, 0.7, RECORD)
    col = CAR["collision"]
    B, e = col["crush_stiffness"]["front"], col["restitution"]
    d0 = A_FRONT / B
    crush = r["car.collision.maxCrush"][-1]
    residual = (1.0 - e * e) * (crush + d0) - d0
    stations = [r[f"car.collision.crushC{k}"][-1] for k in range(1, 7)]
    print(f"wall at 56 km/h: C1..C6 {np.round(stations, 4)} m, width "
          f"{r['car.collision.crushWidth'][-1]:.4f} m; residual (1 - e^2)(C + A/B) - A/B "
          f"{residual:.4f} m")
    assert r["car.collision.crushFace"][-1] == FRONT
    assert r["car.collision.crushWidth"][-1] == pytest.approx(WIDTH, rel=1e-12)
    assert stations == pytest.approx([residual] * 6, rel=1e-9)
    assert r["car.collision.residualCrush"][-1] == pytest.approx(residual, rel=1e-9)
    # before the wall: no residual crush, the face None (1) and the rest zero
    assert r["car.collision.crushFace"][0] == 1
    assert all(r[name][0] == 0.0 for name in PROFILE[1:])


def test_a_pole_right_of_centre_crushes_a_strip_its_width(instance, pole_fmu, tmp_path):
    r = neutral_run(instance, pole_fmu, V_POLE, 0.5, RECORD)
    stations = np.array([r[f"car.collision.crushC{k}"][-1] for k in range(1, 7)])
    width = r["car.collision.crushWidth"][-1]
    sim = engine.Simulation(engine.load_event(_pole_event(tmp_path)), warn=False)
    _, ys, _ = _front_columns(sim)
    spacing = float(np.max(np.diff(ys)))
    print(f"pole {POLE} m at y = {POLE_Y} m: width {width:.4f} m (columns {spacing:.4f} m "
          f"apart), C1..C6 {np.round(stations, 4)} m")
    assert r["car.collision.crushFace"][-1] == FRONT
    # the columns over the pole, and at most one beside it on each side
    assert POLE - spacing <= width <= POLE + 2.0 * spacing
    assert np.all(stations > 0.0)
    assert np.max(stations) == pytest.approx(r["car.collision.residualCrush"][-1], rel=1e-12)


def test_the_profile_is_the_deepest_residual_crush_of_each_columns_strip(tmp_path):
    """The kernel's profile against the columns of the front computed here from the state."""
    data = _pole_event(tmp_path)
    data["units"][0]["initial"]["speed"] = V_POLE
    sim = engine.Simulation(engine.load_event(data), warn=False)
    sim.u_unit[0, L.IU_GEAR] = 0
    sim.advance(0.4)
    P = sim.model
    e = P.P_COLL[0, L.CO_E]
    d0 = P.P_COLL[0, L.CO_D0 + L.FACE_FRONT]
    vbase = sim.layout.at("vertex")
    front, ys, edges = _front_columns(sim)
    residual = (1.0 - e * e) * sim.y[vbase + np.array(front)] - d0
    residual[sim.y[vbase + np.array(front)] <= 0.0] = -np.inf
    column = np.array([np.max(residual[P.CV[front, 1] == y], initial=-np.inf) for y in ys])
    damaged = ys[column > 0.0]
    lo, hi = damaged[0], damaged[-1]
    expected = []
    for k in range(6):
        s = lo + (hi - lo) * k / 5
        inside = (edges[:-1] <= s) & (s <= edges[1:])
        expected.append(max(0.0, float(np.max(column[inside]))))
    out = sim.y_unit[0]
    got = out[L.YU_CRUSH_C1:L.YU_CRUSH_C1 + 6]
    print(f"kernel {np.round(got, 5)} m; columns {np.round(expected, 5)} m")
    assert out[L.YU_CRUSH_FACE] == FRONT
    assert out[L.YU_CRUSH_WIDTH] == pytest.approx(hi - lo, rel=1e-12)
    assert list(got) == pytest.approx(expected, rel=1e-12)
    assert lo < POLE_Y < hi


def test_a_study_into_the_wall_reports_the_crush_profile(wall_fmu, tmp_path):
    """A study's report (straight-brake into the wall) carries each unit's collision: the
    crush profile as the FMU gives it at the end of the run, in the JSON and the report."""
    from simon_fmu.studies.study import run_study
    result = run_study("straight-brake", wall_fmu, {"speed0": V_TEST, "duration": 1.0}, tmp_path)
    car = result["collisions"]["car"]
    col = CAR["collision"]
    B, e = col["crush_stiffness"]["front"], col["restitution"]
    d0 = A_FRONT / B
    residual = (1.0 - e * e) * (car["collision.maxCrush"] + d0) - d0
    print({k: round(v, 4) if isinstance(v, float) else v for k, v in car.items()})
    assert car["collision.crushFace"] == "Front"
    assert car["collision.crushWidth"] == pytest.approx(WIDTH, rel=1e-12)
    assert [car[f"collision.crushC{k}"] for k in range(1, 7)] == pytest.approx([residual] * 6,
                                                                             rel=1e-9)
    assert car["collision.deltaV"] > 0.9 * V_TEST
    md = (tmp_path / "report.md").read_text()
    assert "Collisions" in md and "crushC6" in md and "Front" in md
    # the figure's crush panel: the profile drawn inwards across the width
    panel = next(p for p in result["figure"] if p.title.startswith("Residual crush profile"))
    line = panel.line("car, front")
    assert list(line.x) == pytest.approx([WIDTH * k / 5 for k in range(6)], rel=1e-12)
    assert list(line.y) == [-car[f"collision.crushC{k}"] for k in range(1, 7)]
    # the exterior as the crush left it (exteriors.obj): the front moved in by its permanent
    # set (1 - e^2)(C + A/B), the deepest vertex by that of maxCrush, the rear where it was, a
    # closed surface turned outwards
    verts, tris = read_objects((tmp_path / "exteriors.obj").read_text())["car"]
    sim = engine.Simulation(engine.load_event(_with_a(barrier_event())), warn=False)
    P = sim.model
    v0, nv = int(P.P_COLL[0, L.CO_V0]), int(P.P_COLL[0, L.CO_NV])
    made = P.CV[v0:v0 + nv, :3]
    front = P.CK[v0:v0 + nv, L.FACE_FRONT] > 0.0
    rear = P.CK[v0:v0 + nv, L.FACE_REAR] > 0.0
    set_ = (1.0 - e * e) * (car["collision.maxCrush"] + d0)
    assert verts.shape == made.shape
    assert made[front, 0].max() - verts[front, 0].min() == pytest.approx(set_, rel=1e-9)   # 1e-12
    assert np.all(verts[front, 0] < made[front, 0])
    assert verts[rear] == pytest.approx(made[rear], abs=1e-9)     # as printed to 12 digits
    edges = {(a, b) for t in tris for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0]))}
    assert len(edges) == 3 * len(tris) and all((b, a) in edges for a, b in edges)
    corners = verts[tris]
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6
    assert 0.0 < volume < np.prod(np.ptp(made, axis=0))


def test_the_exterior_command_writes_the_crushed_exterior_of_a_saved_state(instance, wall_fmu,
                                                                           pole_fmu, tmp_path,
                                                                           capsys, monkeypatch):
    """``python -m simon_fmu exterior FMU STATE -o OUT.obj``: the wall run through fmpy, its
    FMU state serialised to a file after it, the command's OBJ has the front moved in by the
    permanent set (1 - e^2)(C + A/B) of the run's own maxCrush C, as the study's; a file that is
    no FMU state is refused naming it, and the command replaces no file but its own."""
    from simon_fmu.__main__ import main
    inst = instance(wall_fmu).start({"car.speed0": V_TEST})
    run(inst, 0.7, lambda t, i: i.set("car.gear", 0), h=0.001, record=())
    crush = inst.get("car.collision.maxCrush")
    state = inst.fmu.getFMUstate()
    (tmp_path / "state.bin").write_bytes(inst.fmu.serializeFMUstate(state))
    inst.fmu.freeFMUstate(state)
    out = tmp_path / "crushed.obj"
    assert main(["exterior", str(wall_fmu), str(tmp_path / "state.bin"), "-o", str(out)]) == 0
    verts, _ = read_objects(out.read_text())["car"]
    col = CAR["collision"]
    e, d0 = col["restitution"], A_FRONT / col["crush_stiffness"]["front"]
    sim = engine.Simulation(engine.load_event(_with_a(barrier_event())), warn=False)
    v0, nv = int(sim.model.P_COLL[0, L.CO_V0]), int(sim.model.P_COLL[0, L.CO_NV])
    made = sim.model.CV[v0:v0 + nv, :3]
    front = sim.model.CK[v0:v0 + nv, L.FACE_FRONT] > 0.0
    assert made[front, 0].max() - verts[front, 0].min() == pytest.approx(
        (1.0 - e * e) * (crush + d0), rel=1e-9)
    # the default -o, out/exteriors.obj, from a folder without out/
    monkeypatch.chdir(tmp_path)
    assert main(["exterior", str(wall_fmu), str(tmp_path / "state.bin")]) == 0
    assert (tmp_path / "out" / "exteriors.obj").read_text() == out.read_text()
    # refusals, each naming the state file: not a state, one cut short, another FMU's
    (tmp_path / "junk.bin").write_bytes(b"not a state")
    good = (tmp_path / "state.bin").read_bytes()
    (tmp_path / "short.bin").write_bytes(good[:100])
    (tmp_path / "damaged.bin").write_bytes(good[:-10] + bytes([good[-10] ^ 1]) + good[-9:])
    for state, why, fmu in (("junk.bin", "not a serialised FMU state", wall_fmu),
                            ("short.bin", "cut short", wall_fmu),
                            ("damaged.bin", "checksum", wall_fmu),
                            ("state.bin", "of another FMU", pole_fmu)):
        capsys.readouterr()
        assert main(["exterior", str(fmu), str(tmp_path / state), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert why in err and state in err
    other = tmp_path / "mine.obj"
    other.write_text("v 0 0 0\n")
    assert main(["exterior", str(wall_fmu), str(tmp_path / "state.bin"), "-o", str(other)]) == 2
    assert other.read_text() == "v 0 0 0\n"


def test_a_frontal_crush_is_the_fronts_when_the_sides_a_over_b_is_smaller():
    """The front's corner vertices are on a side too; with the sides' A/B below the front's
    their residual crush on the side is the deeper, but the front holds the crushed volume:
    the profile is the front's, across the car's width, every station alike (the engine, the
    wall square at 56 km/h; the side's A 10 kN/m against the front's 50 kN/m)."""
    data = barrier_event()
    data["units"][0]["collision"]["crush_a"] = {**CRUSH_A, "side": 10.0e3}
    data["units"][0]["initial"]["speed"] = V_TEST
    sim = engine.Simulation(engine.load_event(data), warn=False)
    sim.u_unit[0, L.IU_GEAR] = 0
    sim.advance(0.7)
    out = sim.y_unit[0]
    stations = out[L.YU_CRUSH_C1:L.YU_CRUSH_C1 + 6]
    print(f"side A 10 kN/m: face {out[L.YU_CRUSH_FACE]:.0f}, width {out[L.YU_CRUSH_WIDTH]:.4f} m, "
          f"C1..C6 {np.round(stations, 4)} m")
    assert out[L.YU_CRUSH_FACE] == FRONT
    assert out[L.YU_CRUSH_WIDTH] == pytest.approx(WIDTH, rel=1e-12)
    assert list(stations) == pytest.approx([stations[2]] * 6, rel=1e-12)
