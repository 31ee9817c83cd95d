"""The runner: each variant in a process of its own, in rounds; the machine and the revision.

Each variant runs in a new Python process (``speed.py --child NAME``), so that its peak memory
is its own; the parent passes it the manoeuvre as JSON and reads one ``RESULT {json}`` line
back. Rounds run every variant once per round, so each meets the machine's other work at
several moments; the fastest round is kept (:func:`best_of`) and every round is reported.
"""

from __future__ import annotations

import datetime
import json
import os
import pickle
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

from variants import VARIANTS, peak_rss_mb, run_variant, uses_engine, uses_fmu

REPO = Path(__file__).resolve().parents[1]
SPEED_SCRIPT = Path(__file__).resolve().parent / "speed.py"
#: The committed result files: a full run writes its JSON report here, and
#: tools/update_doc_numbers.py renders the docs' figures from them.
RESULTS = REPO / "benchmarks" / "results"


def shown(path):
    """`path` as a report records it: relative to the repository when inside it, so that a
    committed report names no folder of the machine it was measured on."""
    path = Path(path).resolve()
    return str(path.relative_to(REPO) if REPO in path.parents else path)


def result_path(name, partial=False):
    """Where a report named `name` goes by default: benchmarks/results/ for a full run, out/
    for a partial one (--quick, --only), so that a smoke run never replaces the docs' figures."""
    return (REPO / "out" if partial else RESULTS) / name


def child_main(name, manoeuvre, duration, fmu_path, throttle, event_file=None):
    """A variant's process: run it, print its figures and peak memory as one RESULT line."""
    if name == "manoeuvre":
        from manoeuvres import load

        print("RESULT " + json.dumps(load(duration, event_file)), flush=True)
        return
    try:
        result = run_variant(name, manoeuvre, duration, fmu_path, throttle)
        result["ok"] = True
    except Exception as exc:  # a benchmark reports a failing variant and goes on
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    result["max_rss_mb"], result["getrusage_maxrss_mb"] = peak_rss_mb()
    print("RESULT " + json.dumps(result), flush=True)


def best_of(runs):
    """The fastest successful run's figures, with every run's wall time, setup and memory."""
    good = [r for r in runs if r.get("ok")]
    if not good:
        return runs[-1]
    best = dict(min(good, key=lambda r: r.get("wall_s") or 0.0))
    if best.get("wall_s"):
        best["real_time_factor"] = best["simulated_s"] / best["wall_s"]
    best["rounds"] = len(runs)
    best["failed_rounds"] = len(runs) - len(good)
    best["wall_s_all_rounds"] = [r.get("wall_s") for r in good]
    best["setup_s_all_rounds"] = [r.get("setup_s") for r in good]
    best["max_rss_mb"] = max(r["max_rss_mb"] for r in good)
    return best


def engine_cache_dir():
    """The engine variants' numba cache directory, named by a hash of the engine's sources.

    The benchmark's own: the engine is compiled into it once, before the rounds and timed
    apart, so that no variant's setup includes a compilation and no other cache is touched.
    (The engine names its kernels' cache folder by a digest of its sources too; numba alone
    checks a cached kernel against its own file only.)
    """
    import hashlib

    digest = hashlib.sha256()
    for f in sorted((REPO / "engine").rglob("*")):
        if f.suffix in (".py", ".json") and "__pycache__" not in f.parts:
            digest.update(str(f.relative_to(REPO)).encode() + b"\0" + f.read_bytes())
    return REPO / "out" / "numba-cache" / f"engine-{digest.hexdigest()[:16]}"


def _child_env(name=""):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"]
                                     if env.get("PYTHONPATH") else "")
    if uses_engine(name):
        env["NUMBA_CACHE_DIR"] = str(engine_cache_dir())
    # numpy's OpenBLAS starts a thread per core that polls for work although nothing in a run
    # calls BLAS (6 % of a profile of an fmpy run was its thread server): one thread, so that
    # on a machine of two cores the timed process has the other to itself
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def spawn(name, manoeuvre, duration, fmu_path=None, throttle=None, timeout=1800,
          event_file=None):
    """Run one variant in a new interpreter; returns its result dict plus process wall time.

    The name "manoeuvre" instead derives the manoeuvre from `event_file` (None: the default
    event; the parent itself never imports the engine); its result is the manoeuvre.
    """
    cmd = [sys.executable, str(SPEED_SCRIPT), "--child", name, "--duration", repr(duration)]
    if event_file is not None:
        cmd += ["--event", str(event_file)]
    if manoeuvre is not None:
        cmd += ["--manoeuvre", json.dumps(manoeuvre), "--throttle",
                repr(manoeuvre["throttle_feedforward"] if throttle is None else throttle)]
    if fmu_path is not None:
        cmd += ["--fmu", str(fmu_path)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=_child_env(name), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    result, first_step_at = None, None
    for line in proc.stdout:
        if line.startswith("FIRST_DOSTEP_DONE") and first_step_at is None:
            first_step_at = time.perf_counter() - t0
        elif line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    stderr = proc.stderr.read()
    proc.wait(timeout=timeout)
    if result is None:
        how = (f"killed by {signal.Signals(-proc.returncode).name}" if proc.returncode < 0
               else f"exit {proc.returncode}")
        result = {"ok": False, "error": f"{how}: {stderr.strip()[-2000:]}"}
    result["process_wall_s"] = time.perf_counter() - t0
    if first_step_at is not None:
        result["time_to_first_doStep_s"] = first_step_at
    return result


def machine_info():
    cpuinfo = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            cpuinfo.setdefault(key.strip(), value.strip())   # the first processor's entry
    except OSError:
        pass
    versions = {}
    for module in ("numpy", "numba", "fmpy", "pythonfmu"):
        try:
            versions[module] = __import__(module).__version__
        except Exception:
            versions[module] = None
    try:
        from importlib.metadata import version
        versions["commonroad-vehicle-models"] = version("commonroad-vehicle-models")
    except Exception:
        versions["commonroad-vehicle-models"] = None
    return {
        "hostname": platform.node(),
        "cpu_model": cpuinfo.get("model name", "unknown"),
        "cpu_mhz": cpuinfo.get("cpu MHz"),
        "physical_cores": cpuinfo.get("cpu cores"),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else None,
        "load_average_at_start": os.getloadavg(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
    }


def write_report(report, path):
    """Write `report` as JSON at `path` (its folder made when missing); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2) + "\n")
    return path


def kept(path, make):
    """``make()``, kept in the pickle ``path`` (None: not kept): read from it when it exists,
    else made and written to it, so that later runs, of this checkout or another with the same
    layout, take the very same value (the saved states of collision_pass.py, derivative.py)."""
    if path is not None and Path(path).is_file():
        with open(path, "rb") as f:
            value = pickle.load(f)
        print(f"read from {path}")
        return value
    value = make()
    if path is not None:
        with open(path, "wb") as f:
            pickle.dump(value, f)
    return value


def kernel_digest():
    """engine.jit's digest of the kernels' sources in this working tree (read in a process of
    its own: the parent never imports the engine). tools/update_doc_numbers.py compares it
    with today's digest to tell which results were measured on other kernels."""
    code = "import engine.jit; print(engine.jit.SOURCE_DIGEST)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=_child_env(),
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def native_level_here():
    """The instruction-set level a native FMU's kernels run at on this machine: the widest
    this processor runs (simon_fmu.native.targets.levels_run_here; docs/native.md,
    "Instruction-set levels"), None where that is not known (no gcc, or not x86-64)."""
    from simon_fmu.native.targets import levels_run_here
    return (levels_run_here() or [None])[-1]


def provenance():
    """What every benchmark's JSON report starts with: the command, when, at which commit
    (and kernel sources) and on which machine it was measured."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return {"command": " ".join(["python", shown(sys.argv[0]), *sys.argv[1:]]),
            "date_utc": now.isoformat(timespec="seconds"),
            "git_revision": git_revision(), "kernel_digest": kernel_digest(),
            "machine": machine_info()}


def git_revision():
    """HEAD, and the engine, slave and catalogue files that differ from it (the run times
    the working tree)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout
    try:
        changed = git("status", "--porcelain", "--", "engine", "simon_fmu", "model_description")
        return {"head": git("rev-parse", "--short", "HEAD").strip(),
                "uncommitted": [line[3:] for line in changed.splitlines()]}
    except Exception:
        return {"head": None, "uncommitted": None}


def fmu_staleness(fmu_path):
    """Sources of the FMU newer than the FMU file, when it is older than any of them."""
    built = fmu_path.stat().st_mtime
    newer = [str(f.relative_to(REPO)) for folder in ("engine", "simon_fmu", "model_description")
             for f in (REPO / folder).rglob("*") if f.suffix in (".py", ".json")
             and f.stat().st_mtime > built]
    return sorted(newer)


def ensure_fmu(fmu_path, rebuild=False, event_file=None):
    """Build the FMU of `event_file` (None: the default event) when it is missing (or when
    asked); returns an error text or None."""
    if fmu_path.exists() and not rebuild:
        return None
    fmu_path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "simon_fmu", "build",
           *([str(event_file)] if event_file is not None else []), "-o", str(fmu_path)]
    print("building the FMU: " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=_child_env(), capture_output=True, text=True)
    if proc.returncode != 0 or not fmu_path.exists():
        return f"build failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}"
    print(f"built in {time.perf_counter() - t0:.1f} s", flush=True)
    return None


def load_manoeuvre(duration, event_file=None):
    """The manoeuvre for the event (None: the default event), derived in a process of its
    own."""
    result = spawn("manoeuvre", None, duration, event_file=event_file)
    if "speed_mps" not in result:
        raise SystemExit(f"cannot derive the manoeuvre from the event: {result.get('error')}")
    result.pop("process_wall_s", None)
    return result


def run_rounds(selected, manoeuvre, fmu_path, rounds, build_error=None):
    """Every selected variant (and the bare interpreter) once per round, then the cold
    starts; returns (results by variant, cold starts, engine compile time or None)."""
    duration = manoeuvre["duration_s"]
    names = [v for v in VARIANTS if v in selected] + ["python"]
    runs = {name: [] for name in names}
    compile_s = None
    if any(uses_engine(name) for name in names):
        cache = engine_cache_dir()
        if not any(cache.rglob("*.nbi")):   # importing the engine creates the folders
            print(f"compiling the engine into {cache.relative_to(REPO)} ...", flush=True)
            t0 = time.perf_counter()
            spawn("engine-advance", manoeuvre, 0.01, fmu_path)
            compile_s = time.perf_counter() - t0
    for i in range(max(1, rounds)):
        for name in names:
            if uses_fmu(name) and build_error:
                runs[name].append({"ok": False, "error": "no FMU"})
                continue
            print(f"round {i + 1}/{rounds}: {name} ...", flush=True)
            # simulate_fmu has no governor: it holds the throttle engine-10ms averaged.
            mean_throttle = next((r["mean_throttle"] for r in runs.get("engine-10ms", [])
                                  if r.get("ok")), manoeuvre["throttle_feedforward"])
            runs[name].append(spawn(name, manoeuvre, duration, fmu_path, mean_throttle))
    results = {name: best_of(rs) for name, rs in runs.items()}

    cold_starts = []
    if "cold-start" in selected and not build_error:
        # The first process primes whatever the FMU caches on the machine (it has usually run
        # already in the variants above); the two after it are the measured cold starts.
        for i in range(3):
            print(f"cold start {i} ...", flush=True)
            cold_starts.append(spawn("cold-start", manoeuvre, 0.0, fmu_path))
    return results, cold_starts, compile_s


def profile_variants(names, manoeuvre, fmu_path, rebuild, event_file=None):
    """cProfile of variants run in this process. The FMU's Python slave runs in this
    interpreter (pythonfmu re-enters it on the calling thread), so its frames show too."""
    import cProfile
    import pstats

    if any(uses_fmu(n) for n in names):
        error = ensure_fmu(fmu_path, rebuild, event_file)
        if error:
            print(error)
            return 1
    sys.path.insert(0, str(REPO))
    for name in names:
        profiler = cProfile.Profile()
        profiler.enable()
        run_variant(name, manoeuvre, manoeuvre["duration_s"], fmu_path,
                    manoeuvre["throttle_feedforward"])
        profiler.disable()
        print(f"--- {name}, {manoeuvre['duration_s']:g} s (setup and compilation included)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return 0
