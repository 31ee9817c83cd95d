"""numba's on-disk cache of the engine's kernels: never stale, never deleted at import.

A temporary copy of the engine gets two small kernels in two files, one calling the other
(numba compiles the callee into the caller and checks a cached caller only against its own
file). Changing the callee's file must change the answer of the next process, whether
NUMBA_CACHE_DIR is set or not, and no cache file may disappear on the way.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

CALLER = """from .jit import njit
from ._probe_callee import offset


@njit
def probe(x):
    return x + offset(x)
"""
CALLEE = """from .jit import njit


@njit
def offset(x):
    return {value}
"""
RUN = ("import engine._probe_caller as m, engine.jit as j; "
       "print(m.probe(1.0), sum(m.probe.stats.cache_hits.values()), "
       "getattr(j, 'SOURCE_DIGEST', '-'))")


def _engine_copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "engine", src / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    (src / "engine" / "_probe_caller.py").write_text(CALLER)
    (src / "engine" / "_probe_callee.py").write_text(CALLEE.format(value="1.0"))
    return src


def _run(src: Path, cache_dir: Path | None, user_cache: Path | None = None) -> tuple[float, int, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["PYTHONPATH"] = str(src)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    if user_cache is not None:
        env["SIMON_FMU_CACHE"] = str(user_cache)
    out = subprocess.run([sys.executable, "-c", RUN], cwd=src, env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1]), out[2]


def _files(folder: Path) -> set[tuple]:
    """numba's cache files under ``folder``: (path, inode, mtime) each."""
    return {(p, p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file() and p.suffix in (".nbi", ".nbc")}


@pytest.mark.parametrize("where", ["user-cache", "in-tree", "NUMBA_CACHE_DIR"])
def test_a_changed_engine_source_never_loads_a_stale_kernel(tmp_path, where):
    src = _engine_copy(tmp_path)
    cache_dir = tmp_path / "numba-cache" if where == "NUMBA_CACHE_DIR" else None
    # the user cache (default), or, when SIMON_FMU_CACHE is off, the engine's own folder
    user_cache = tmp_path / "user-cache" if where == "user-cache" else Path("off")
    folder = {"user-cache": user_cache / "kernels", "in-tree": src / "engine" / "__pycache__",
              "NUMBA_CACHE_DIR": cache_dir}[where]

    def run():
        return _run(src, cache_dir, user_cache)
    value, hits, first = run()
    assert value == 2.0
    cached = _files(folder)
    assert cached
    assert run()[:2] == (2.0, 1)     # the second process loads the cache
    # the callee changes; the caller's file does not
    (src / "engine" / "_probe_callee.py").write_text(CALLEE.format(value="2.0"))
    value, hits, second = run()
    assert (value, hits) == (3.0, 0), "a kernel compiled from the old sources was loaded"
    assert cached <= _files(folder), "cache files were deleted or rewritten"
    assert second != first
    # back to the first sources: their cache is still there and current
    (src / "engine" / "_probe_callee.py").write_text(CALLEE.format(value="1.0"))
    assert run() == (2.0, 1, first)


def test_two_checkouts_of_the_same_kernels_share_one_compile(tmp_path):
    """The user cache's path depends on the kernels' sources, not on where they are: a second
    checkout loads what the first compiled."""
    user_cache = tmp_path / "user-cache"
    first = _engine_copy(tmp_path / "one")
    second = _engine_copy(tmp_path / "two")
    assert _run(first, None, user_cache)[:2] == (2.0, 0)
    assert _run(second, None, user_cache)[:2] == (2.0, 1)


RECORD_KERNEL = """from .jit import njit


@njit
def scaled(rec, x):
    return rec.a[0] * x
"""


def test_a_kernel_cached_for_another_programs_record_type_does_not_break_this_one(tmp_path):
    """A kernel called with a record type of the caller's own (a test's or a script's
    namedtuple) is cached with that type's module in its index. Another process, which cannot
    import that module, compiles the kernel for its own type instead of failing as it loads
    the index (it failed with ModuleNotFoundError)."""
    src = _engine_copy(tmp_path)
    (src / "engine" / "_probe_record.py").write_text(RECORD_KERNEL)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "foreign_record.py").write_text(
        "from collections import namedtuple\nRec = namedtuple('Rec', 'a')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["SIMON_FMU_CACHE"] = str(tmp_path / "user-cache")

    def run(code, path):
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                              env={**env, "PYTHONPATH": os.pathsep.join(map(str, path))},
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.split()

    kernel = "import numpy as np, engine._probe_record as m; "
    theirs = kernel + ("import foreign_record as f; "
                       "print(m.scaled(f.Rec(np.full(1, 2.0)), 3.0))")
    assert run(theirs, [src, foreign]) == ["6.0"]
    index = list((tmp_path / "user-cache" / "kernels").rglob("_probe_record.scaled-*.nbi"))
    assert len(index) == 1 and b"foreign_record" in index[0].read_bytes()
    own = kernel + ("from collections import namedtuple; R = namedtuple('R', 'a'); "
                    "print(m.scaled(R(np.full(1, 5.0)), 2.0))")
    assert run(own, [src]) == ["10.0"]
    assert run(theirs, [src, foreign]) == ["6.0"]   # and the other program after it
