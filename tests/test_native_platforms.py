"""The native FMU on its three platforms (docs/native.md): the Windows x86-64 DLL run under wine
and the Linux ARM64 library run under qemu-user, each by a small C host cross-built for its
platform (tests/c_host/native_run.c), give the Linux x86-64 library's outputs over the sedan's
lane change; every binary needs only the C and math libraries; a missing toolchain is named.

These tests need the toolchains of tools/system-packages.txt (`make setup`): a missing one
fails the test with the package to install, it is never skipped."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest

from simon_fmu.native.build import glibc_version, glibc_versions
from simon_fmu.native.targets import GLIBC_FLOOR
from support import fmus

ROOT = Path(__file__).resolve().parents[1]
SPEED = 20.0
#: the initial speed the plan sets (a parameter; the FMU is built at SPEED)
TUNED_SPEED = 18.0
#: qemu-user's root for the ARM64 dynamic loader and C library (libc6-arm64-cross)
ARM64_ROOT = Path("/usr/aarch64-linux-gnu")
#: Windows DLLs a native FMU's DLL may import: the kernel and the C runtime
WINDOWS_SYSTEM = re.compile(r"^(KERNEL32\.dll|msvcrt\.dll|ucrtbase\.dll|api-ms-win-crt-[\w-]+\.dll)$",
                            re.IGNORECASE)


def _need(program: str, package: str, *fallbacks: str) -> str:
    """The path of ``program`` (or of a fallback path), or fail naming the package."""
    found = shutil.which(program) or next((f for f in fallbacks if os.access(f, os.X_OK)), None)
    if found is None:
        pytest.fail(f"`{program}` is missing: install the Debian package {package} "
                    "(tools/system-packages.txt; `make setup`)", pytrace=False)
    return found


def _bits(v: float) -> str:
    return f"{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016x}"


def _steps():
    """Communication steps: 10 ms, then some that leave a remainder of the 1 ms grid (those of
    tests/test_native_fmu.py)."""
    return [0.01] * 100 + [0.0037] * 30 + [0.01] * 189


def _steer(t: float) -> float:
    return 1.2 * math.sin(math.pi * (t - 1.0)) if 1.0 <= t <= 3.0 else 0.0


@pytest.fixture(scope="module")
def native_fmu(tmp_path_factory) -> Path:
    import engine
    data = json.loads(engine.load_event().to_json())
    data["units"][0]["initial"]["speed"] = SPEED
    folder = tmp_path_factory.mktemp("native-platforms")
    (folder / "sedan.json").write_text(json.dumps(data))
    return fmus.native(folder / "sedan.json", folder / "SimonCar.fmu")


@pytest.fixture(scope="module")
def fmu_dir(native_fmu, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("native-extracted")
    with zipfile.ZipFile(native_fmu) as z:
        z.extractall(folder)
    return folder


@pytest.fixture(scope="module")
def plan(fmu_dir) -> tuple[Path, int]:
    """The lane change of tests/test_native_fmu.py, with the speed, the road's friction and the
    start's X set as parameters, as a plan for native_run; and the row width."""
    from fmpy import read_model_description
    md = read_model_description(str(fmu_dir))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    reals = [v.valueReference for v in md.modelVariables
             if v.causality == "output" and v.type == "Real"]
    bools = [v.valueReference for v in md.modelVariables
             if v.causality == "output" and v.type == "Boolean"]
    # parameters set in initialisation mode: the runtime applies them and checks the step at the
    # new initial state with the step-size kernel, on every platform
    lines = [f"parr {vr['car.speed0']} {_bits(TUNED_SPEED)}",
             f"parr {vr['frictionMultiplier']} {_bits(0.9)}", f"parr {vr['car.X0']} {_bits(5.0)}",
             f"real {len(reals)} " + " ".join(map(str, reals)),
             f"bool {len(bools)} " + " ".join(map(str, bools)),
             f"seti {vr['car.gear']} 4", f"setr {vr['car.throttle']} {_bits(0.2)}", "record"]
    t = 0.0
    for h in _steps():
        lines.append(f"step {vr['car.steeringWheelAngle']} {_bits(_steer(t))} {_bits(h)}")
        t += h
    path = fmu_dir.parent / "lane-change.plan"
    path.write_text("\n".join(lines) + "\n")
    return path, 1 + len(reals) + len(bools)


def _host(tmp_path_factory, cc: str, output: str, *extra: str,
          source: str = "native_run.c") -> Path:
    """A C host of tests/c_host (``source``) built by ``cc`` as ``output``."""
    from simon_fmu.runtime.fmi2_library import fmi2_headers
    exe = tmp_path_factory.mktemp("native-host") / output
    subprocess.run([cc, "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off",
                    f"-I{fmi2_headers()}", str(ROOT / "tests" / "c_host" / source),
                    *extra, "-o", str(exe)], check=True)
    return exe


def _read_rows(path: Path, width: int) -> np.ndarray:
    rows = np.fromfile(path, "<f8")
    assert rows.size % width == 0 and rows.size, rows.size
    return rows.reshape(-1, width)


def _run(command, out: Path, width: int, env=None, timeout=300, starts: int = 1,
         steps: int = 319) -> np.ndarray:
    """The host's rows. ``starts``: how many times a launcher that fails before the host prints
    anything (exit status not 0, no output at all) is started again: wine, whose start-up
    under a loaded parallel suite once failed so; the host itself always prints, on success as
    on failure."""
    for _ in range(starts):
        run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
        if run.returncode == 0 or run.stdout or run.stderr:
            break
    assert run.returncode == 0, f"{command[0]} exited {run.returncode}:\n{run.stdout}{run.stderr}"
    assert f"steps={steps} " in run.stdout, run.stdout
    return _read_rows(out, width)


@pytest.fixture(scope="module")
def linux64_host(tmp_path_factory) -> Path:
    return _host(tmp_path_factory, _need("gcc", "gcc"), "native_run", "-ldl")


@pytest.fixture(scope="module")
def linux64_rows(fmu_dir, plan, linux64_host) -> np.ndarray:
    host = linux64_host
    out = fmu_dir.parent / "linux64.rows"
    md_guid = _guid(fmu_dir)
    return _run([str(host), str(fmu_dir / "binaries" / "linux64" / "SimonCar.so"),
                 (fmu_dir / "resources").as_uri() + "/", md_guid, str(plan[0]), str(out)],
                out, plan[1])


def _guid(fmu_dir: Path) -> str:
    return re.search(r'guid="([^"]+)"', (fmu_dir / "modelDescription.xml").read_text()).group(1)


def _compare(name: str, rows: np.ndarray, reference: np.ndarray) -> float:
    assert rows.shape == reference.shape, (rows.shape, reference.shape)
    assert np.array_equal(np.isfinite(rows), np.isfinite(reference))
    worst = float(np.max(np.abs(rows - reference) / np.maximum(1.0, np.abs(reference))))
    identical = int(np.sum(rows.view(np.uint64) == reference.view(np.uint64)))
    print(f"{name} vs linux64: {rows.shape[0]} communication points x {rows.shape[1] - 1} "
          f"outputs, largest relative difference {worst:.3g}, {identical} of {rows.size} values "
          f"bit-identical")
    assert np.max(np.abs(reference[:, 2])) > 0.5       # car.Y: the vehicle changed lanes
    assert reference[0, 1] == rows[0, 1] == 5.0         # car.X at the start: the parameter X0
    return worst


def _windows_path(path: Path) -> str:
    """The path as wine's programs see it (drive Z: is the Unix root)."""
    return "Z:" + str(path).replace("/", "\\")


@pytest.fixture(scope="module")
def wine() -> tuple[str, dict]:
    """wine and its environment: no debug output, no Mono or Gecko installers, and a prefix
    made by the first session with these sources and this wine (its first start takes a while)
    and kept in the suite's cache (tests/support/fmus.py)."""
    program = _need("wine64", "wine64", "/usr/lib/wine/wine64")
    version = subprocess.run([program, "--version"], capture_output=True, text=True,
                             timeout=60).stdout.strip()
    base = dict(os.environ, WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=",
                WINEARCH="win64")
    base.pop("DISPLAY", None)

    def make(prefix: Path) -> None:
        boot = subprocess.run([program, "wineboot", "--init"], capture_output=True, text=True,
                              env=dict(base, WINEPREFIX=str(prefix)), timeout=600)
        assert boot.returncode == 0, boot.stderr[-2000:]
        # until its server has written the prefix and exited: a host started while it shuts
        # down need not find it
        subprocess.run([_wineserver(), "-w"], env=dict(base, WINEPREFIX=str(prefix)),
                       capture_output=True, timeout=600)
    env = dict(base, WINEPREFIX=str(fmus.cached_folder(fmus.key("wine prefix", program,
                                                                  version), make)))
    yield program, env
    subprocess.run([_wineserver(), "-k"], env=env, capture_output=True, timeout=60)


def _wineserver() -> str:
    server = shutil.which("wineserver") or "/usr/lib/wine/wineserver64"
    if not os.access(server, os.X_OK):
        pytest.fail("wineserver is missing: install the Debian package wine64 "
                    "(tools/system-packages.txt)", pytrace=False)
    return server


@pytest.fixture(scope="module")
def win64_host(tmp_path_factory) -> Path:
    return _host(tmp_path_factory, _need("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64-posix"),
                 "native_run.exe", "-D__USE_MINGW_ANSI_STDIO=1", "-static")


def _win64_command(program, host, fmu_dir, location, plan_path, out) -> list[str]:
    return [program, str(host), _windows_path(fmu_dir / "binaries" / "win64" / "SimonCar.dll"),
            location, _guid(fmu_dir), _windows_path(plan_path), _windows_path(out)]


def _win64_uri(folder: Path) -> str:
    """The file URI of ``folder`` as wine's programs see it, as fmpy and Dymola write one on
    Windows: file:///Z:/..., the name percent-encoded as UTF-8 (RFC 3986)."""
    return "file:///" + quote(_windows_path(folder).replace("\\", "/"), safe="/:") + "/"


@pytest.fixture(scope="module")
def win64_rows(fmu_dir, plan, wine, win64_host) -> np.ndarray:
    """The lane change through the DLL under wine, at its widest instruction-set level."""
    program, env = wine
    out = fmu_dir.parent / "win64-widest.rows"
    return _run(_win64_command(program, win64_host, fmu_dir, _win64_uri(fmu_dir / "resources"),
                               plan[0], out), out, plan[1], env=env, starts=2)


def test_windows_binary_matches_linux_under_wine(fmu_dir, plan, linux64_rows, wine, win64_host,
                                                 win64_rows):
    program, env = wine
    worst = _compare("win64 (wine)", win64_rows, linux64_rows)
    assert worst <= 1e-9, f"largest relative difference {worst:.3g}"
    # the DLL's kernels at each instruction-set level this processor runs (docs/native.md):
    # the same results, bit for bit, as at the widest one, which ran above
    from simon_fmu.native.targets import levels_run_here
    levels = levels_run_here(_need("gcc", "gcc"))
    assert levels[0] == "x86-64", levels
    for level in levels:
        out = fmu_dir.parent / f"win64-{level}.rows"
        rows = _run(_win64_command(program, win64_host, fmu_dir, _win64_uri(fmu_dir / "resources"),
                                   plan[0], out), out, plan[1],
                    env=dict(env, SIMON_NATIVE_ISA=level), starts=2)
        assert np.array_equal(rows.view(np.uint64), win64_rows.view(np.uint64)), level


def test_windows_binary_reads_its_resources_from_a_folder_not_named_in_ascii(
        fmu_dir, plan, wine, win64_host, win64_rows):
    """fmuResourceLocation as Windows hosts write it (fmpy, Dymola): a file:/// URI with the
    folder's name percent-encoded as UTF-8, so a folder not named in ASCII (a user profile,
    C:\\Users\\Jürgen, where hosts extract FMUs) reaches the DLL as UTF-8 bytes. The DLL opened
    them in the ANSI code page and refused to instantiate ("cannot open"); it now opens them
    by their UTF-16 name. The lane change from there is the ASCII folder's, bit for bit; the
    URI's other forms instantiate too, a host's name as a UNC path (//host/...)."""
    program, env = wine
    named = fmu_dir.parent / "Prüfstand Jürgen 試験" / "resources"
    shutil.copytree(fmu_dir / "resources", named, dirs_exist_ok=True)
    out = fmu_dir.parent / "win64-named.rows"
    rows = _run(_win64_command(program, win64_host, fmu_dir, _win64_uri(named), plan[0], out),
                out, plan[1], env=env, starts=2)
    assert np.array_equal(rows.view(np.uint64), win64_rows.view(np.uint64))
    # the other forms of the URI: instantiated and initialised (a plan of one row)
    short = fmu_dir.parent / "one-row.plan"
    lines = plan[0].read_text().splitlines()
    short.write_text("\n".join(lines[:lines.index("record") + 1]) + "\n")
    path = quote(_windows_path(named).replace("\\", "/"), safe="/:")
    deep = fmu_dir.parent.joinpath(*["a-folder-forty-characters-long-of-a-host"] * 7, "resources")
    shutil.copytree(fmu_dir / "resources", deep, dirs_exist_ok=True)
    assert len(_windows_path(deep / "native.bin")) > 260
    forms = {"file:/ and one slash": "file:/" + path,
             "file://localhost/": "file://localhost/" + path + "/",
             "FILE://LOCALHOST/": "FILE://LOCALHOST/" + path + "/",
             "file://C:/, two slashes": "file://" + path,
             # a host's name: the UNC path //./Z:/..., the device namespace's, which wine has
             "file://host/": "file://./" + path,
             "a plain path": _windows_path(fmu_dir / "resources"),
             # beyond MAX_PATH, opened by its extended name \\?\Z:\... (wine opens the
             # plain one too: this shows the extended one works, not that it is needed)
             "a folder deeper than MAX_PATH": _win64_uri(deep)}
    for name, location in forms.items():
        one = fmu_dir.parent / "win64-one.rows"
        run = subprocess.run(_win64_command(program, win64_host, fmu_dir, location, short, one),
                             capture_output=True, text=True, env=env, timeout=300)
        print(name, location, run.stdout.strip(), run.stderr.strip())
        assert run.returncode == 0 and "steps=0 " in run.stdout, (name, run.stdout, run.stderr)
        assert np.array_equal(_read_rows(one, plan[1]).view(np.uint64),
                              win64_rows[:1].view(np.uint64)), name


@pytest.fixture(scope="module")
def arm64_host(tmp_path_factory) -> tuple[str, Path]:
    """qemu-aarch64 and the C host built for ARM64."""
    host = _host(tmp_path_factory, _need("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
                 "native_run.arm64", "-ldl")
    qemu = _need("qemu-aarch64", "qemu-user")
    if not (ARM64_ROOT / "lib" / "ld-linux-aarch64.so.1").is_file():
        pytest.fail(f"{ARM64_ROOT}/lib/ld-linux-aarch64.so.1 is missing: install the Debian "
                    "package libc6-dev-arm64-cross (tools/system-packages.txt)", pytrace=False)
    return qemu, host


def test_arm64_binary_matches_linux_under_qemu(fmu_dir, plan, linux64_rows, arm64_host):
    qemu, host = arm64_host
    out = fmu_dir.parent / "aarch64.rows"
    rows = _run([qemu, "-L", str(ARM64_ROOT), str(host),
                 str(fmu_dir / "binaries" / "aarch64-linux" / "SimonCar.so"),
                 (fmu_dir / "resources").as_uri() + "/", _guid(fmu_dir), str(plan[0]), str(out)],
                out, plan[1])
    worst = _compare("aarch64-linux (qemu)", rows, linux64_rows)
    assert worst <= 1e-9, f"largest relative difference {worst:.3g}"


# ------------------------------------------------------------------ the host's floating point

#: the crash the floating-point environment is tried on: the bundled car at 30 m/s into the
#: side of the bundled tractor-semitrailer, at its tandem axle (a case of the severe-event
#: campaign), communication every 10 ms for CRASH_S s
CRASH_S = 1.2


@pytest.fixture(scope="module")
def crash(tmp_path_factory) -> tuple[Path, Path, int]:
    """The crash's FMU, extracted, and a plan recording every Real output: (folder, plan,
    row width)."""
    data = json.loads((ROOT / "engine" / "data" / "car-and-semitrailer.json").read_text())
    units = {u["name"]: u for u in data["units"]}
    units["car"]["initial"] = {"X": 5.101, "Y": -21.665, "yaw": 1.8873, "speed": 29.98}
    units["tractor"]["initial"] = {"X": 0.0, "Y": 0.0, "yaw": 0.0, "speed": 10.94}
    data["simulation"] = {"step_size": 0.002}
    folder = tmp_path_factory.mktemp("native-fp")
    (folder / "crash.json").write_text(json.dumps(data))
    fmu = fmus.native(folder / "crash.json", folder / "SimonCar.fmu")
    extracted = folder / "fmu"
    with zipfile.ZipFile(fmu) as z:
        z.extractall(extracted)
    from fmpy import read_model_description
    md = read_model_description(str(extracted))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    reals = [v.valueReference for v in md.modelVariables
             if v.causality == "output" and v.type == "Real"]
    lines = [f"real {len(reals)} " + " ".join(map(str, reals)), "record"]
    lines += [f"step {vr['car.steeringWheelAngle']} {_bits(0.0)} {_bits(0.01)}"] * round(CRASH_S / 0.01)
    plan = folder / "crash.plan"
    plan.write_text("\n".join(lines) + "\n")
    return extracted, plan, 1 + len(reals)


def _fp_runs(crash, modes, command, env=None, **run) -> dict:
    """The crash's rows in the host's floating-point environment of each mode (None: as the
    process starts). ``command(location, out)``: the host's command line."""
    folder, plan, width = crash
    rows = {}
    for mode in modes:
        out = folder.parent / f"fp-{mode}.rows"
        rows[mode] = _run(command(plan, out), out, width,
                          env=dict(env or os.environ, NATIVE_RUN_FP=mode or ""),
                          steps=round(CRASH_S / 0.01), **run)
    return rows


def _same_crash(name: str, rows: dict, crash) -> None:
    folder, _, _ = crash
    from fmpy import read_model_description
    md = read_model_description(str(folder))
    reals = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    delta_v = rows[None][:, 1 + reals.index("car.collision.deltaV")]
    assert delta_v[-1] > 10.0, "the car did not meet the trailer"
    for mode, r in rows.items():
        same = np.array_equal(r.view(np.uint64), rows[None].view(np.uint64))
        print(f"{name}, host's floating point {mode}: {r.shape[0]} rows, bit-identical {same}")
        assert same, mode


def test_the_hosts_floating_point_environment_changes_nothing_on_linux(crash, linux64_host):
    """A host may unmask floating-point exceptions (tools built with Delphi, real-time targets
    that trap numerical faults), flush subnormals to zero (real-time targets, for speed) or
    set the x87 to single precision. The kernels' compiled code divides by zero where it then
    discards the quotient (LLVM's if-conversion): in a host that trapped the invalid operation
    this crash killed the host process with SIGFPE (flushing and the x87's precision happened
    to change nothing in it). Each entry point now computes in the FMU's own environment and
    gives the host's back: every mode gives the default's rows, bit for bit, and every call
    leaves the host's control bits as they were (docs/native.md)."""
    folder = crash[0]
    rows = _fp_runs(crash, (None, "trap", "flush", "x87single"), lambda plan, out: [
        str(linux64_host), str(folder / "binaries" / "linux64" / "SimonCar.so"),
        (folder / "resources").as_uri() + "/", _guid(folder), str(plan), str(out)])
    _same_crash("linux64", rows, crash)


def test_the_hosts_floating_point_environment_changes_nothing_in_the_development_fmu(
        crash, linux64_host):
    """The same for the development FMU of the crash, through the same C host (in the
    environment that lets it start this Python): its loader computed in the host's
    environment too, and the engine's compiled kernels killed the trapping host with SIGFPE
    as the native ones did. Its loader now takes the native runtime's guard (fp_guard.h)."""
    from importers.c_env import host_environment
    native, plan, width = crash
    dev_fmu = fmus.vehicle(native.parent / "crash.json", native.parent / "SimonCarDev.fmu")
    folder = native.parent / "development"
    with zipfile.ZipFile(dev_fmu) as z:
        z.extractall(folder)
    rows = _fp_runs((folder, plan, width), (None, "trap", "flush", "x87single"),
                    lambda plan_path, out: [
                        str(linux64_host), str(folder / "binaries" / "linux64" / "SimonCar.so"),
                        (folder / "resources").as_uri() + "/", _guid(folder), str(plan_path),
                        str(out)],
                    env=host_environment(sys.executable))
    _same_crash("development FMU", rows, (folder, plan, width))


def test_the_hosts_floating_point_environment_changes_nothing_on_windows(crash, wine, win64_host):
    """The same under wine, with the x87, which mingw-w64's sin and cos use, at single
    precision too."""
    folder = crash[0]
    program, env = wine
    rows = _fp_runs(crash, (None, "trap", "flush", "x87single"), lambda plan, out: [
        program, str(win64_host), _windows_path(folder / "binaries" / "win64" / "SimonCar.dll"),
        _win64_uri(folder / "resources"), _guid(folder), _windows_path(plan), _windows_path(out)],
        env=env, starts=2)
    _same_crash("win64 (wine)", rows, crash)


def test_the_hosts_floating_point_environment_changes_nothing_on_arm64(crash, arm64_host):
    """The same under qemu-user. Its trap enables have no effect (they are optional in the
    architecture) and the crash meets no subnormal, so this run did not fail before the
    change; it checks that each call gives the host's FPCR back."""
    folder = crash[0]
    qemu, host = arm64_host
    rows = _fp_runs(crash, (None, "trap", "flush"), lambda plan, out: [
        qemu, "-L", str(ARM64_ROOT), str(host),
        str(folder / "binaries" / "aarch64-linux" / "SimonCar.so"),
        (folder / "resources").as_uri() + "/", _guid(folder), str(plan), str(out)])
    _same_crash("aarch64-linux (qemu)", rows, crash)


def test_real_time_threads_of_two_priorities_go_on_with_the_arm64_library(fmu_dir, arm64_host,
                                                                         tmp_path_factory):
    """tests/c_host/priority.c on the ARM64 library under qemu-user (whose threads are the
    host's, SCHED_FIFO included): two real-time threads of different priority on one CPU, each
    with its own instance, both go on calling. With the runtime's spin locks they stopped
    within a second here as on x86-64 (tests/test_native_robustness.py runs the x86-64 one)."""
    qemu, _ = arm64_host
    host = _host(tmp_path_factory, _need("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
                 "priority.arm64", "-ldl", "-lpthread", source="priority.c")
    from fmpy import read_model_description
    vr = {v.name: v.valueReference for v in read_model_description(str(fmu_dir)).modelVariables}
    run = subprocess.run([qemu, "-L", str(ARM64_ROOT), str(host),
                          str(fmu_dir / "binaries" / "aarch64-linux" / "SimonCar.so"),
                          (fmu_dir / "resources").as_uri() + "/", _guid(fmu_dir),
                          str(vr["car.speed"]), "3"], capture_output=True, text=True, timeout=120)
    print(run.stdout, run.stderr)
    assert run.returncode == 0 and "H went on calling for 3 s" in run.stdout, (
        run.returncode, run.stdout, run.stderr)


def test_every_binary_needs_only_the_c_and_math_libraries(fmu_dir):
    names = sorted(str(p.relative_to(fmu_dir)) for p in (fmu_dir / "binaries").rglob("*.*"))
    assert names == ["binaries/aarch64-linux/SimonCar.so", "binaries/linux64/SimonCar.so",
                     "binaries/win64/SimonCar.dll"], names
    objdump = _need("x86_64-w64-mingw32-objdump", "binutils-mingw-w64-x86-64")
    dll = subprocess.run([objdump, "-p", str(fmu_dir / "binaries/win64/SimonCar.dll")],
                         capture_output=True, text=True, check=True).stdout
    imports = re.findall(r"DLL Name: (\S+)", dll)
    assert imports and all(WINDOWS_SYSTEM.match(d) for d in imports), imports
    exports = re.findall(r"^\s+\[\s*\d+\] (\w+)$", dll.split("[Ordinal/Name Pointer] Table", 1)[1],
                         re.MULTILINE)
    assert "fmi2DoStep" in exports and all(e.startswith("fmi2") for e in exports), exports
    for folder, allowed in (("linux64", {"libc.so.6", "libm.so.6"}),
                            ("aarch64-linux", {"libc.so.6", "libm.so.6"})):
        lib = fmu_dir / "binaries" / folder / "SimonCar.so"
        dynamic = subprocess.run(["readelf", "-d", "-h", str(lib)], capture_output=True,
                                 text=True, check=True).stdout
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic))
        assert needed and needed <= allowed, (folder, needed)
        machine = re.search(r"Machine:\s+(.+)", dynamic).group(1)
        assert ("AArch64" in machine) == (folder == "aarch64-linux"), machine
        symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True,
                                 text=True, check=True).stdout
        assert not re.search(r"\b(Py\w+|numba_\w+|NRT_\w+)", symbols), folder
        # no symbol of a glibc later than the floor (RHEL 7's): built on glibc 2.36, the
        # libraries needed 2.35 (hypot) and 2.29 (log, pow), and loaded on no older system
        versions = glibc_versions(lib)
        newest = max(versions.values(), key=glibc_version)
        print(f"{folder}: {len(versions)} glibc symbols, the newest version {newest}")
        assert glibc_version(newest) <= glibc_version(GLIBC_FLOOR), (
            folder, {n: v for n, v in versions.items() if v == newest})
    print("dependencies: win64 " + ", ".join(imports) + "; linux64 and aarch64-linux "
          "libc.so.6, libm.so.6")


def test_a_library_that_needs_a_later_glibc_is_refused(monkeypatch, tmp_path):
    """The build checks every glibc version a Linux library imports against the floor: with
    nothing bound to its first version (c/glibc_floor.c emptied), it refuses the library,
    naming the symbols and their versions, instead of writing an FMU that does not load on
    an older Linux."""
    from simon_fmu.native import build as B
    system = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
    assert glibc_version(system) >= (2, 29), (
        f"this test needs a build machine whose glibc gave pow and log later versions (2.29 "
        f"or later); it has {system}")
    monkeypatch.setattr(B, "glibc_wrapped", lambda: [])
    floor = tmp_path / "glibc_floor.c"
    floor.write_text("/* nothing bound */\n")
    monkeypatch.setattr(B, "GLIBC_FLOOR_C", floor)
    with pytest.raises(B.NativeBuildError) as refused:
        B.build_native(None, tmp_path / "later.fmu", log=lambda text: None, platforms="linux64")
    print(refused.value)
    assert "linux64: the library needs a glibc later than 2.17" in str(refused.value)
    assert re.search(r"\b(pow|log|hypot) \(GLIBC_2\.(29|35)\)", str(refused.value))
    assert not (tmp_path / "later.fmu").exists()


def test_a_missing_toolchain_is_named_and_the_others_build(monkeypatch):
    from simon_fmu.native import build as B
    from simon_fmu.native import targets as T
    real = shutil.which
    monkeypatch.setattr(T.shutil, "which",
                        lambda cmd, *a, **k: None if cmd == "x86_64-w64-mingw32-gcc"
                        else real(cmd, *a, **k))
    with pytest.raises(B.NativeBuildError) as error:
        B.resolve_platforms(None)
    text = str(error.value)
    assert "x86_64-w64-mingw32-gcc" in text and "gcc-mingw-w64-x86-64-posix" in text, text
    assert "--platforms linux64,aarch64-linux" in text, text
    assert [p.folder for p in B.resolve_platforms("linux64,aarch64-linux")] == \
        ["linux64", "aarch64-linux"]
    with pytest.raises(B.NativeBuildError, match="unknown platform win32"):
        B.resolve_platforms("linux64,win32")


def _rewritten(fmu: Path, out: Path, name: str, change) -> Path:
    """A copy of ``fmu`` whose member ``name`` is ``change(its bytes)``."""
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, change(data) if info.filename == name else data)
    return out


def test_doctor_knows_native_fmus(native_fmu, tmp_path, capsys):
    from simon_fmu.tools.doctor import doctor
    assert doctor(str(native_fmu)) == 0
    text = capsys.readouterr().out
    print(text)
    assert "native: the engine's kernels compiled ahead of time" in text
    x86 = "kernels at x86-64, x86-64-v3, x86-64-v4"
    for line in ("[ok] binaries/linux64/SimonCar.so: ELF x86-64, needs libm.so.6, libc.so.6; "
                 + x86,
                 "[ok] binaries/aarch64-linux/SimonCar.so: ELF ARM64, needs libm.so.6, libc.so.6; "
                 "kernels at generic",
                 "[ok] binaries/win64/SimonCar.dll: PE x86-64, needs KERNEL32.dll, msvcrt.dll; "
                 + x86,
                 "[ok] platforms: aarch64-linux, linux64, win64",
                 "digest ok, GUID matches the model description",
                 "[ok] this machine is Linux x86_64: binaries/linux64", "[ok] trial step:"):
        assert line in text, line

    def flip(data: bytes) -> bytes:            # one byte of the arrays, past the header
        return data[:100] + bytes([data[100] ^ 1]) + data[101:]
    damaged = _rewritten(native_fmu, tmp_path / "damaged.fmu", "resources/native.bin", flip)
    assert doctor(str(damaged)) == 1
    text = capsys.readouterr().out
    assert "[!!] resources/native.bin (magic b'SIMONNAT', version 1, " in text, text
    assert "the resources file is corrupt (digest)" in text, text

    def other_guid(data: bytes) -> bytes:
        return re.sub(rb'guid="[^"]+"', b'guid="{00000000-0000-0000-0000-000000000000}"', data,
                      count=1)
    stranger = _rewritten(native_fmu, tmp_path / "stranger.fmu", "modelDescription.xml",
                          other_guid)
    assert doctor(str(stranger)) == 1
    text = capsys.readouterr().out
    assert "is not the model description's {00000000-0000-0000-0000-000000000000}" in text, text


def test_doctor_names_the_parameters_a_native_fmu_keeps_fixed(native_fmu, tmp_path, capsys):
    """doctor reads which parameters the build could not make tunable (tune.kind FIXED, with
    tune.reasons) from resources/native.bin: none for the sedan; one, with its reason, in a
    copy whose arrays say so (the runtime refuses another value of it with that reason)."""
    from simon_fmu.native.resources import pack, unpack
    from simon_fmu.native.resources import FIXED
    from simon_fmu.tools.doctor import doctor
    assert doctor(str(native_fmu)) == 0
    assert "  parameters: every one can be set at initialisation, as in the development FMU" \
        in capsys.readouterr().out
    root = ET.fromstring(zipfile.ZipFile(native_fmu).read("modelDescription.xml"))
    vr = next(int(v.get("valueReference")) for v in root.iter("ScalarVariable")
              if v.get("name") == "car.speed0")
    names = [v.get("name") for v in root.iter("ScalarVariable")]

    def fix_speed(data: bytes) -> bytes:
        arrays = unpack(data)
        arrays["tune.kind"] = arrays["tune.kind"].copy()
        arrays["tune.kind"][vr] = FIXED
        reasons = [""] * len(names)
        reasons[vr] = "told so"
        arrays["tune.reasons"] = np.frombuffer(b"".join(r.encode() + b"\0" for r in reasons),
                                               np.uint8).copy()
        return pack(arrays)
    fixed = _rewritten(native_fmu, tmp_path / "fixed.fmu", "resources/native.bin", fix_speed)
    assert doctor(str(fixed)) == 0
    text = capsys.readouterr().out
    assert "  parameters: 1 kept at the value of the event the FMU was built from (another answers " \
           "fmi2Error; build from an event with the value instead): car.speed0 (told so)" \
        in text, text
