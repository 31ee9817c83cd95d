"""Build the native FMU: the engine's integrator kernels compiled ahead of time, linked with an
FMI 2.0 runtime in C, and the event's packed arrays in ``resources/native.bin`` (docs/native.md).

The build runs the set-up in Python (``engine.Simulation`` of the event at its default
parameters: packing, static equilibrium, preloads, the step-size check), then writes every
array the kernels read and write, as they stand after that set-up, with the tables the C
runtime needs (value references to array slots, the input checks and the message texts). The
kernels' object code comes from :mod:`simon_fmu.native.kernels`, run in a process of its own,
and is kept in a cache folder by the engine's source digest, the numba and llvmlite versions,
the kernels' argument types and the target triple.

The kernels are compiled once, to LLVM IR for the build's host; llvmlite emits that IR as an
object for each platform's triple (Linux x86-64, Windows x86-64, Linux ARM64), which the
platform's C compiler (a cross compiler for the two others) links with the runtime.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

import engine
from engine.setup.fields import METHODS
from engine.signals import WHOLE_INPUTS

from . import kernels as K
from .binaries import LEVELS_TAG
from . import targets as T
from . import tuning
from .resources import RESOURCE_FILE, pack, texts

C_DIR = Path(__file__).resolve().parent / "c"
#: FMI platform folder -> its target triple, compiler and package (simon_fmu/native/targets.py)
PLATFORMS = T.PLATFORMS
#: the engine's output arrays, in the order of their source codes in the variable table
OUTPUT_ARRAYS = ("y_unit", "y_wheel", "y_tire", "y_axle", "y_conn", "y_steer", "y_solver")
INPUT_ARRAYS = ("u_unit", "u_wheel", "u_env")
#: variable table: type and source codes (docs/native.md)
TYPE_CODES = {"Real": 0, "Integer": 1, "Enumeration": 1, "Boolean": 2, "String": 3}
SOURCE_PARAMETER = 3 + len(OUTPUT_ARRAYS)      # simon_native.c: S_PARAMETER
SOURCE_CALCULATED = SOURCE_PARAMETER + 1
CAUSALITY_CODES = {"parameter": 0, "calculatedParameter": 1, "input": 2, "output": 3}
#: what an input that takes whole numbers accepts (a fraction is refused with it), by the code
#: of ``in.whole`` (0: any number)
WHOLE_TEXTS = ("",) + tuple(WHOLE_INPUTS.values())
WHOLE_CODES = {f: k for k, f in enumerate(WHOLE_INPUTS, 1)}


class NativeBuildError(RuntimeError):
    """The native FMU cannot be built (the message says why)."""


def cache_root() -> Path:
    """Where the kernels' IR and objects are kept: ``$SIMON_NATIVE_CACHE``, else ``native/`` in
    the project's user cache (``simon_fmu.runtime.entry.cache_root``)."""
    from ..runtime.entry import cache_root as user_cache
    chosen = os.environ.get("SIMON_NATIVE_CACHE")
    return Path(chosen) if chosen else user_cache() / "native"


def kernel_args(sim: "engine.Simulation") -> tuple:
    """The arguments ``engine.Simulation`` passes ``integrator.advance`` (its ``_run``)."""
    return (sim.y, sim.time, sim.step_size, 0, sim._work, sim._inputs, sim.model, sim._outputs,
            sim._err, sim._scratch)


def kernel_signature(sim: "engine.Simulation") -> tuple:
    """The numba types of :func:`kernel_args`, the signature the kernels are compiled for
    (``numba.typeof``, as numba's dispatcher types them; the same with ``NUMBA_DISABLE_JIT``)."""
    import numba
    return tuple(numba.typeof(a) for a in kernel_args(sim))


def kernel_ir(signature, log=print) -> tuple[Path, dict]:
    """The folder holding the kernels' LLVM IR (``kernels.ll``, numba's, for the build's host)
    for ``signature`` and its ABI, from the cache or compiled now (several minutes: numba
    compiles the engine from scratch)."""
    import llvmlite
    import numba
    from engine.jit import SOURCE_DIGEST
    key = hashlib.sha256("\0".join((
        SOURCE_DIGEST, numba.__version__, llvmlite.__version__, repr(tuple(signature)),
        T.HOST_TRIPLE, Path(K.__file__).read_text())).encode()).hexdigest()[:24]
    folder = cache_root() / key
    if (folder / "kernels.ll").is_file() and (folder / "abi.json").is_file():
        return folder, json.loads((folder / "abi.json").read_text())
    folder.parent.mkdir(parents=True, exist_ok=True)
    # one compile at a time for a key: a second build waits for the first and takes its result
    with open(folder.parent / f"{key}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "kernels.ll").is_file() and (folder / "abi.json").is_file():
            return folder, json.loads((folder / "abi.json").read_text())
        return _compile_ir(signature, key, folder, log)


def _compile_ir(signature, key: str, folder: Path, log) -> tuple[Path, dict]:
    work = Path(tempfile.mkdtemp(prefix="partial-", dir=folder.parent))
    try:
        (work / "request.pickle").write_bytes(pickle.dumps(
            {"signature": tuple(signature)}))
        env = dict(os.environ, NUMBA_CACHE_DIR=str(work / "numba-cache"), NUMBA_CPU_NAME="generic")
        env.pop("NUMBA_DISABLE_JIT", None)
        log("compiling the engine's kernels (numba, a few minutes) ...")
        root = Path(__file__).resolve().parents[2]
        run = subprocess.run([sys.executable, "-m", "simon_fmu.native.kernels",
                              str(work / "request.pickle"), str(work)], env=env, cwd=root,
                             capture_output=True, text=True)
        if run.returncode:
            raise NativeBuildError("compiling the kernels failed:\n" + run.stdout + run.stderr)
        shutil.rmtree(work / "numba-cache", ignore_errors=True)
        (work / "request.pickle").unlink()
        try:
            os.replace(work, folder)
        except OSError:       # another build got there first
            shutil.rmtree(work, ignore_errors=True)
    finally:
        if work.exists() and work != folder:
            shutil.rmtree(work, ignore_errors=True)
    return folder, json.loads((folder / "abi.json").read_text())


def level_suffix(index: int) -> str:
    """What the kernels' symbols of a platform's level ``index`` end with (none for the first)."""
    return f"__L{index}" if index else ""


def kernel_object(folder: Path, platform: "T.Platform", index: int = 0) -> Path:
    """The kernels' object for ``platform`` at its level ``index`` (``Platform.levels``),
    emitted by llvmlite from the IR in ``folder`` (a few seconds) and kept there, keyed by the
    triple, the level and the emitting code."""
    level = platform.levels[index]
    emitter = hashlib.sha256(Path(T.__file__).read_bytes()).hexdigest()[:12]
    obj = folder / f"kernels-{platform.triple}-{level.name}-{emitter}.o"
    if obj.is_file():
        return obj
    try:
        code, facts = T.emit_object((folder / "kernels.ll").read_text(), platform.triple,
                                    level.cpu, level_suffix(index))
    except ValueError as exc:
        raise NativeBuildError(f"{platform.folder}: the kernels' IR cannot be retargeted to "
                               f"{platform.triple}: {exc}") from None
    partial = obj.with_name(obj.name + f".{os.getpid()}.partial")
    partial.write_bytes(code)
    os.replace(partial, obj)
    obj.with_suffix(".json").write_text(json.dumps(facts, indent=1))
    return obj


def _named_arrays(args, names) -> dict:
    """{flattened name: array} of the kernel's arguments (named tuples by their fields)."""
    out = {}
    for name, value in zip(names, args):
        if isinstance(value, np.ndarray):
            out[name] = value
        elif hasattr(value, "_fields"):
            for field in value._fields:
                out[f"{name}.{field}"] = getattr(value, field)
    return out


def _accepts(lo, hi) -> str:
    return f"a value in {lo if lo is not None else '-inf'} .. {hi if hi is not None else 'inf'}"


def resource_arrays(event, sim, catalogue, guid: str) -> dict:
    """Every array of ``resources/native.bin`` (docs/native.md)."""
    from engine import layout as L
    from engine import vehicle
    from engine.simulation import MAX_STEPS_PER_ADVANCE
    from simon_fmu.vehicle.slave import _input_arrays

    args = kernel_args(sim)
    arrays = {}
    kernel = _named_arrays(args, K.KERNELS["advance"])
    kernel["dy"] = np.zeros_like(sim.y)
    for name, a in kernel.items():
        arrays[name] = np.array(a, copy=True)

    # the FMU's own copy of the inputs (fmi2SetReal writes it; doStep copies it into U.*)
    for source, a in _input_arrays(event, catalogue).items():
        arrays[f"in.{source}"] = a

    # variables: vr, type, causality, source, flat offset; their fixed values
    table = np.zeros((len(catalogue), 5), np.int64)
    values = np.zeros(len(catalogue))
    for v in catalogue:
        source, index = v.binding
        code, offset = 0, 0
        if source in INPUT_ARRAYS:
            code = INPUT_ARRAYS.index(source)
            offset = int(np.ravel_multi_index(index, getattr(sim, source).shape))
            values[v.value_reference] = float(v.start)
        elif source in OUTPUT_ARRAYS:
            code = 3 + OUTPUT_ARRAYS.index(source)
            offset = int(np.ravel_multi_index(index, getattr(sim, source).shape))
        elif source in ("parameter", "initial", "steering"):
            code = SOURCE_PARAMETER
            values[v.value_reference] = float(v.start)
        elif source == "calculated":
            code = SOURCE_CALCULATED
            unit, key = index
            values[v.value_reference] = float(sim.unit_mass(unit) if key == "mass"
                                              else sim.unit_wheelbase(unit))
        else:
            raise NativeBuildError(f"{v.name}: a variable bound to {source!r} has no native slot")
        if v.type == "String":
            raise NativeBuildError(f"{v.name}: String variables are not native yet")
        table[v.value_reference] = (v.value_reference, TYPE_CODES[v.type],
                                    CAUSALITY_CODES[v.causality], code, offset)
    arrays["var.table"] = table
    arrays["var.value"] = values
    arrays["var.names"] = texts(v.name for v in catalogue)

    # the input checks of Simulation.check_inputs, slot by slot (u_unit, u_wheel, u_env flat)
    lo_all, hi_all, whole, names, accepts = [], [], [], [], []
    n_gears = [int(p) for p in sim.model.P_UNIT[:, L.U_N_GEARS]]
    # a unit without a drivetrain has differential gear 1 only (engine.Simulation)
    n_diffs = [max(1, int(p)) for p in sim.model.P_UNIT[:, L.U_N_DIFFS]]
    tops = {"gear": n_gears, "differentialGear": n_diffs}
    for source, fields, owners in (("u_unit", engine.UNIT_INPUTS, sim.unit_names),
                                   ("u_wheel", engine.WHEEL_INPUTS, sim.wheel_names),
                                   ("u_env", engine.ENV_INPUTS, [None])):
        for i, owner in enumerate(owners):
            for f in fields:
                lo, hi, _ = engine.INPUT_LIMITS[f]
                if f in tops:
                    hi = tops[f][i] if i < len(tops[f]) else hi
                lo_all.append(-math.inf if lo is None else float(lo))
                hi_all.append(math.inf if hi is None else float(hi))
                whole.append(WHOLE_CODES.get(f, 0))
                names.append(f if owner is None else f"{owner}.{f}")
                accepts.append(_accepts(lo, hi))
    arrays["in.lo"] = np.array(lo_all)
    arrays["in.hi"] = np.array(hi_all)
    arrays["in.whole"] = np.array(whole, np.int64)
    arrays["in.names"] = texts(names)
    arrays["in.accepts"] = texts(accepts)
    arrays["in.whole_texts"] = texts(WHOLE_TEXTS)


    # the parameters the runtime sets, and the step-size kernel's arrays (simon_fmu/native/tuning.py)
    tables = tuning.tables(event, sim, catalogue)
    _, pitch, settle = tables["tune.terrain_flags"]
    arrays["meta"] = np.array([
        sim.step_size,                       # 0 the internal step
        float(settle or pitch),              # 1 the set-up reads the wheel inputs (a road other
                                             #   than flat ground, or displaced wheels)
        vehicle.ERR_TIRE_DEFLECTION,         # 2..4 the kernels' error codes
        vehicle.ERR_OFF_TERRAIN,
        vehicle.ERR_NONFINITE,
        L.T_DMAX,                            # 5 P_TIRE's column of the maximum deflection
        float(MAX_STEPS_PER_ADVANCE),        # 6 most steps of one advance
    ])
    arrays.update(tables)
    arrays["tire.names"] = texts(sim.tire_names)
    arrays["state.names"] = texts(sim.state_names)
    arrays["check.accepts"] = np.zeros(3)     # engine.layout.state_fault's answer
    # the integration methods' names in messages, in the order of the parameter integrator's
    # items (tune.methods' rows)
    arrays["step.method"] = texts(m.title for m in METHODS.values())
    arrays["guid"] = texts([guid])
    return arrays


#: the C type of each LLVM parameter type a flattened kernel argument has
_C_TYPES = {"double": "double", "i64": "int64_t", "ptr": "void *"}


def _c_params(kind: str) -> list[str]:
    """The C parameter types of a flattened argument of ``kind``: those of its LLVM parameters
    (``kernels._llvm_params``, which the build checks against the IR), one for one."""
    return [_C_TYPES[t] for t in K._llvm_params(kind)]


def kernel_entry_c(abi: dict, levels: tuple) -> str:
    """The C entry points over the kernels' native calling convention (generated from the
    flattened arguments, checked against the IR signature in :mod:`.kernels`): each calls the
    kernel of the instance's level (``levels``: the platform's, ``Platform.levels``, one object
    each, :func:`kernel_object`), and the levels' names and checks for ``select_level`` in
    simon_native.c."""
    out = ["/* Generated by simon_fmu/native/build.py from the kernels' ABI: do not edit. */",
           '#include "simon_native.h"', "",
           f"const int sn_nlevels = {len(levels)};",
           "/* what doctor reads (simon_fmu/native/binaries.py, kernel_levels) */",
           f'__attribute__((used)) const char sn_levels_tag[] = "{LEVELS_TAG} '
           + " ".join(lv.name for lv in levels) + '";',
           "const char *const sn_level_names[] = {"
           + ", ".join(f'"{lv.name}"' for lv in levels) + "};",
           "int sn_level_runs(int level)",
           "{",
           "    switch (level) {"]
    for i, lv in enumerate(levels):
        out.append(f"    case {i}: return ({lv.check}) != 0;")
    out += ["    default: return 0;", "    }", "}", ""]
    for name, k in abi["kernels"].items():
        params = ["void *", "void *"]
        for _, kind in k["args"]:
            params += _c_params(kind)
        out.append(f"typedef int32_t sn_{name}_fn({', '.join(params)});")
        for i in range(len(levels)):
            out.append(f"extern sn_{name}_fn sn_kernel_{name}_{i} "
                       f"__asm__(\"{k['symbol']}{level_suffix(i)}\");")
        out.append(f"static sn_{name}_fn *const sn_kernel_{name}[] = {{"
                   + ", ".join(f"sn_kernel_{name}_{i}" for i in range(len(levels))) + "};")
        arrays = [a for a, kind in k["args"] if kind.startswith("array")]
        scalars = [(a, kind) for a, kind in k["args"] if not kind.startswith("array")]
        out.append(f"const char *const sn_{name}_arrays[] = {{"
                   + ", ".join(f'"{a}"' for a in arrays) + "};")
        out.append(f"const int sn_{name}_narrays = {len(arrays)};")
        sparams = "".join(f", {'double' if kind == 'f64' else 'int64_t'} {a}"
                          for a, kind in scalars)
        out.append(f"int32_t sn_call_{name}(int level, sn_array *const *a{sparams}, void *ret)")
        out.append("{")
        out.append("    void *excinfo = 0;")
        call, i = [], 0
        for a, kind in k["args"]:
            if kind.startswith("array"):
                nd = int(kind.split(":")[1])
                parts = [f"a[{i}]->meminfo", f"a[{i}]->parent", f"a[{i}]->nitems",
                         f"a[{i}]->itemsize", f"a[{i}]->data"]
                parts += [f"a[{i}]->shape[{d}]" for d in range(nd)]
                parts += [f"a[{i}]->strides[{d}]" for d in range(nd)]
                call.append(", ".join(parts))
                i += 1
            else:
                call.append(a)
        out.append(f"    return sn_kernel_{name}[level](ret, &excinfo,\n        "
                   + ",\n        ".join(call) + ");")
        out.append("}")
        out.append("")
    return "\n".join(out)


def link_library(objects: list, abi: dict, output: Path, model_identifier: str,
                 platform: "T.Platform" = PLATFORMS["linux64"]) -> None:
    """The platform's C compiler links the C runtime, the generated entry points and the
    kernels' objects (one per level of the platform, in its order) into ``output`` (a shared
    library or DLL)."""
    from simon_fmu.runtime.fmi2_library import fmi2_headers
    cc = os.environ.get("CC", "gcc") if platform.folder == "linux64" else platform.cc
    if shutil.which(cc) is None:
        raise NativeBuildError(T.missing_toolchain(platform) if cc == platform.cc else
                               f"no C compiler `{cc}` on PATH (Debian: gcc)")
    with tempfile.TemporaryDirectory(prefix="simon_native_") as tmp:
        entry = Path(tmp) / "kernel_entry.c"
        entry.write_text(kernel_entry_c(abi, platform.levels))
        # a Linux library keeps to its oldest glibc: the math functions with later versions
        # bound to their first (c/glibc_floor.c)
        floor = ([str(GLIBC_FLOOR_C)] + [f"-Wl,--wrap={name}" for name in glibc_wrapped()]
                 if platform.glibc else [])
        # -ffp-contract=off: no fused multiply-add in the runtime's arithmetic on any target
        # (GCC contracts by default where the CPU has FMA, ARM64), as the kernels' IR has none
        cmd = [cc, "-shared", "-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
               "-Wno-format-truncation", "-ffp-contract=off", *platform.cflags,
               f"-I{C_DIR}", f"-I{fmi2_headers()}",
               f"-DSN_MODEL_IDENTIFIER=\"{model_identifier}\"",
               str(C_DIR / "simon_native.c"), str(entry), *map(str, objects),
               *platform.ldflags, *floor, "-o", str(output)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode:
            raise NativeBuildError(f"linking the native library for {platform.folder} failed:\n"
                                   + " ".join(cmd) + "\n" + run.stdout + run.stderr)
    if platform.glibc:
        later = {name: v for name, v in glibc_versions(output).items()
                 if glibc_version(v) > glibc_version(platform.glibc)}
        if later:
            raise NativeBuildError(
                f"{platform.folder}: the library needs a glibc later than {platform.glibc}, "
                "the oldest the Linux libraries load with: "
                + ", ".join(f"{n} (GLIBC_{v})" for n, v in sorted(later.items()))
                + f"; bind them to their first version in {GLIBC_FLOOR_C}")


#: the Linux libraries' glibc floor: the math functions bound to their first version
GLIBC_FLOOR_C = C_DIR / "glibc_floor.c"


def glibc_wrapped() -> list[str]:
    """The functions c/glibc_floor.c binds to their first glibc version (its SN_FIRST_1 and
    SN_FIRST_2 lines), each linked with -Wl,--wrap."""
    return re.findall(r"^SN_FIRST_[12]\((\w+)\)", GLIBC_FLOOR_C.read_text(), re.MULTILINE)


def glibc_version(text: str) -> tuple[int, ...]:
    """A glibc version ("2.17") as a tuple that compares as versions do."""
    return tuple(int(part) for part in text.split("."))


def glibc_versions(library: Path) -> dict[str, str]:
    """The glibc version of each symbol a Linux library imports ("2.17"), as readelf lists
    them (readelf reads an ELF file of any machine)."""
    if shutil.which("readelf") is None:
        raise NativeBuildError("no readelf on PATH (Debian: binutils)")
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(library)], capture_output=True,
                         text=True, check=True).stdout
    return dict(re.findall(r"\bUND\s+(\w+)@GLIBC_([\d.]+)", out))


def resolve_platforms(platforms=None) -> list["T.Platform"]:
    """The platforms of ``platforms`` (a list of folders, a comma-separated text, or None: all),
    after checking that each one's compiler is installed: a missing one is an error that names
    its package."""
    try:
        names = T.parse_platforms(platforms if platforms is None or isinstance(platforms, str)
                                  else ",".join(platforms))
    except ValueError as exc:
        raise NativeBuildError(str(exc)) from None
    chosen = [PLATFORMS[n] for n in names]
    missing = [m for m in map(T.missing_toolchain, chosen) if m]
    if missing:
        text = "missing toolchain: " + "; ".join(missing)
        others = [p.folder for p in chosen if not T.missing_toolchain(p)]
        if others:
            text += f" (to build the others only: --platforms {','.join(others)})"
        raise NativeBuildError(text)
    return chosen


def build_native(event_file=None, output="out/SimonCar-native.fmu",
                 model_identifier: str = "SimonCar", log=print, platforms=None) -> Path:
    """Build the native FMU of ``event_file`` (None: the default sedan) at ``output``, with a
    binary for each of ``platforms`` (folder names, or a comma-separated text; None: every
    platform of :data:`PLATFORMS`)."""
    from model_description import build_catalogue, generation_time
    from simon_fmu.runtime.packaging import partial_path
    from simon_fmu.vehicle.build import fmu_event_json, fmu_model_description, resource_files

    chosen = resolve_platforms(platforms)
    event = engine.load_event(event_file)
    output = Path(output)
    sim = engine.Simulation(event)           # the set-up, at the parameters' start values
    catalogue = build_catalogue(event)
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    xml = fmu_model_description(event, model_identifier,
                                generation_time(float(epoch) if epoch else None))
    guid = xml.split(b'guid="', 1)[1].split(b'"', 1)[0].decode()
    signature = kernel_signature(sim)
    blob = pack(resource_arrays(event, sim, catalogue, guid))
    partial = partial_path(output)
    with tempfile.TemporaryDirectory(prefix="simon_native_") as tmp:
        libraries = {}
        folder, abi = kernel_ir(signature, log)
        for platform in chosen:
            objects = [kernel_object(folder, platform, i) for i in range(len(platform.levels))]
            lib = Path(tmp) / f"{platform.folder}-{model_identifier}{platform.suffix}"
            link_library(objects, abi, lib, model_identifier, platform)
            libraries[f"binaries/{platform.folder}/{model_identifier}{platform.suffix}"] = lib
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("modelDescription.xml", xml)
            for name, lib in libraries.items():
                z.write(lib, name)
            z.writestr(f"resources/{RESOURCE_FILE}", blob)
            # the event as the development FMU carries it, with the files it names (a study
            # and the exterior command read them; the runtime reads only native.bin)
            z.writestr("resources/event.json", fmu_event_json(event))
            for name, path in resource_files(event).items():
                z.write(path, f"resources/{name}")
    os.replace(partial, output)
    return output
