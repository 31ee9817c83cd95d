"""``python -m simon_fmu doctor FMU``: does this FMU run on this machine, and if not, why.

It reads the FMU (a ``.fmu`` file or an extracted folder), says whether it is native (the
kernels compiled ahead of time, no Python; docs/native.md: its platforms, each binary's
dependencies, its resources file), standalone (carries its own Python, docs/standalone.md) or
a development FMU (needs the Python environment it was built in, docs/fmi2-library.md),
checks what that kind needs on this
machine, then instantiates it and runs one step in a process of its own, and ends with what to
do about anything missing. Exit status 0 when the trial step succeeded, 1 otherwise.
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree

TRIAL = textwrap.dedent("""
    import sys, time
    from ctypes import byref
    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave, fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
    from fmpy.fmi2 import fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE
    from fmpy.fmi1 import calloc, free
    from fmpy.logging import addLoggerProxy
    folder = sys.argv[1]
    md = read_model_description(folder, validate=False)
    def logger(env, name, status, category, message):
        print(f"  log [{(category or b'').decode()}] {(message or b'').decode()}", flush=True)
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(logger)
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    start = time.perf_counter()
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=folder,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="doctor")
    fmu.instantiate(callbacks=callbacks)
    instantiated = time.perf_counter()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.doStep(0.0, 0.001)
    stepped = time.perf_counter()
    fmu.terminate()
    fmu.freeInstance()
    print(f"TRIAL instantiate {instantiated - start:.3f} s, to the first finished step "
          f"{stepped - start:.3f} s", flush=True)
""")


class Report:
    def __init__(self):
        self.problems: list[str] = []
        self.advice: list[str] = []

    def line(self, ok: bool, text: str) -> None:
        print(f"  [{'ok' if ok else '!!'}] {text}")
        if not ok:
            self.problems.append(text)


def _folder(fmu: Path, tmp: Path) -> Path:
    if fmu.is_dir():
        return fmu
    with zipfile.ZipFile(fmu) as archive:
        archive.extractall(tmp)
    for info in zipfile.ZipFile(fmu).infolist():   # keep the execute bits
        mode = (info.external_attr >> 16) & 0o777
        if mode and not info.is_dir():
            os.chmod(tmp / info.filename, mode)
    return tmp


def _check_standalone(folder: Path, manifest: dict, report: Report) -> None:
    resources = folder / "resources"
    worker = resources / manifest.get("worker", "standalone/bin/simon-fmu-worker")
    print(f"  Python {manifest.get('python')} with "
          + ", ".join(f"{k} {v}" for k, v in manifest.get("packages", {}).items())
          + f"; kernels compiled for a {manifest.get('numba_cpu')} x86-64 CPU "
          f"({len(manifest.get('compiled_kernels', []))} cached)")
    report.line(worker.is_file(), f"worker {worker.relative_to(folder)}")
    report.line(os.path.exists("/lib64/ld-linux-x86-64.so.2"),
                "the x86-64 ELF interpreter /lib64/ld-linux-x86-64.so.2")
    report.line(hasattr(os, "memfd_create"), "shared memory (memfd_create)")
    needed, here = manifest.get("glibc"), platform.libc_ver()[1]
    if needed:
        def version(text):
            return tuple(int(x) for x in text.split(".") if x.isdigit())
        ok = bool(here) and version(here) >= version(needed)
        report.line(ok, f"glibc {here or '(not glibc)'}; the FMU needs {needed} or newer")
        if not ok:
            report.advice.append(f"run it on a Linux with glibc {needed} or newer, or build it "
                                 "on a machine with an older glibc")
    if not worker.is_file():
        report.advice.append("extract the whole FMU again: its worker is missing")
        return
    command = [str(worker), "--python", "-c",
               "import numpy, numba, llvmlite, lxml, sys; print(sys.version.split()[0], "
               "numpy.__version__, numba.__version__, sep=' ')"]
    if not os.access(worker, os.X_OK):
        command.insert(0, "/lib64/ld-linux-x86-64.so.2")
    done = subprocess.run(command, capture_output=True, text=True, env={"HOME": str(Path.home())})
    report.line(done.returncode == 0, "the FMU's own Python starts and imports its packages"
                + (f" ({done.stdout.strip()})" if done.returncode == 0 else
                   f":\n{textwrap.indent(done.stderr.strip(), '      ')}"))
    if done.returncode != 0:
        report.advice.append("the FMU's runtime does not start here: check that this is Linux "
                             "x86-64 with glibc at least as new as the building machine's "
                             f"(this machine: glibc {platform.libc_ver()[1]})")


#: FMI platform folder -> (system, machines) of the machines that run its binary
NATIVE_PLATFORMS = {"linux64": ("Linux", ("x86_64", "AMD64")),
                    "win64": ("Windows", ("AMD64", "x86_64")),
                    "aarch64-linux": ("Linux", ("aarch64", "arm64"))}
#: what a native FMU's binary may need: the C and math libraries (docs/native.md)
NATIVE_DEPENDENCIES = {"ELF": ("libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2",
                               "ld-linux-aarch64.so.1"),
                       "PE": ("kernel32.dll", "msvcrt.dll", "ucrtbase.dll", "api-ms-win-crt-")}


def fixed_parameters(md, arrays) -> list:
    """The parameters of a native FMU that keep the value of the event it was built from
    (``tune.kind`` FIXED: the build found no way to repeat the set-up's answer to another
    value; simon_fmu.native.tuning), each with the build's reason (``tune.reasons``, in the
    order of the value references): [(name, reason)]."""
    from simon_fmu.native.resources import FIXED
    kind = arrays.get("tune.kind")
    if kind is None:
        return []
    reasons = bytes(arrays.get("tune.reasons", b"")).split(b"\0")
    fixed = []
    for v in md.iter("ScalarVariable"):
        vr = int(v.get("valueReference"))
        if v.get("causality") == "parameter" and vr < len(kind) and kind[vr] == FIXED:
            why = reasons[vr].decode(errors="replace") if vr < len(reasons) else ""
            fixed.append((v.get("name"), why or "no reason recorded"))
    return fixed


def _check_native(folder: Path, md, identifier: str, machine: str, report: Report):
    """A native FMU: its binaries (platform, machine, dependencies) and resources/native.bin
    (magic, version, size, digest, GUID). Returns this machine's platform folder, or None."""
    from simon_fmu.native.binaries import dependencies, kernel_levels
    from simon_fmu.native.resources import MAGIC, RESOURCE_FILE, VERSION, unpack
    print("  native: the engine's kernels compiled ahead of time with an FMI runtime in C; no "
          "Python at run time (docs/native.md)")
    binaries = folder / "binaries"
    found = sorted(p for p in binaries.glob("*/*") if p.is_file()) if binaries.is_dir() else []
    platforms = []
    for lib in found:
        rel = lib.relative_to(folder).as_posix()
        try:
            kind, arch, needed = dependencies(lib)
        except (ValueError, IndexError, OSError) as exc:
            report.line(False, f"{rel}: unreadable ({exc})")
            continue
        allowed = NATIVE_DEPENDENCIES[kind]
        extra = [n for n in needed if not n.lower().startswith(tuple(a.lower() for a in allowed))]
        platforms.append(lib.parent.name)
        levels = kernel_levels(lib)
        report.line(lib.stem == identifier and not extra,
                    f"{rel}: {kind} {arch}, needs {', '.join(needed) or 'nothing'}"
                    + (f"; kernels at {', '.join(levels)}" if levels else "")
                    + (f"; {', '.join(extra)} is not the C or math library" if extra else "")
                    + ("" if lib.stem == identifier else f"; not named {identifier}"))
    report.line(bool(platforms), "platforms: " + (", ".join(platforms) or "none"))
    blob_path = folder / "resources" / RESOURCE_FILE
    blob = blob_path.read_bytes()
    head = f"magic {blob[:8]!r}, version {int.from_bytes(blob[8:12], 'little')}"
    try:
        arrays = unpack(blob)
    except ValueError as exc:
        report.line(False, f"resources/native.bin ({head}, {len(blob)} bytes): {exc}")
        report.advice.append("extract or build the FMU again: its resources file is damaged")
        return None
    guid = bytes(arrays.get("guid", b"")).rstrip(b"\0").decode(errors="replace")
    report.line(guid == md.get("guid"),
                f"resources/native.bin: {MAGIC.decode()} version {VERSION}, {len(arrays)} arrays, "
                f"{len(blob)} bytes, digest ok, GUID "
                + ("matches the model description" if guid == md.get("guid") else
                   f"{guid} is not the model description's {md.get('guid')}"))
    fixed = fixed_parameters(md, arrays)
    print("  parameters: " + ("every one can be set at initialisation, as in the development FMU"
                              if not fixed else
                              f"{len(fixed)} kept at the value of the event the FMU was built from "
                              "(another answers fmi2Error; build from an event with the value "
                              "instead): " + "; ".join(f"{name} ({why})" for name, why in fixed)))
    system, arch = platform.system(), platform.machine()
    here = next((p for p in platforms if NATIVE_PLATFORMS.get(p, ("", ()))[0] == system
                 and arch in NATIVE_PLATFORMS[p][1]), None)
    report.line(here is not None, f"this machine is {machine}: "
                + (f"binaries/{here}" if here else "none of the FMU's platforms"))
    return here


def _check_development(folder: Path, report: Report) -> None:
    record = {}
    path = folder / "resources" / "fmi2_python.txt"
    if path.is_file():
        for line in path.read_text().splitlines():
            if "=" in line and not line.startswith("#"):
                key, _, value = line.partition("=")
                record[key] = value
    executable = os.environ.get("SIMON_FMU_PYTHON") or record.get("executable", "")
    print(f"  built for development: needs the Python environment at {executable or '?'}")
    report.line(bool(executable) and os.access(executable, os.X_OK), f"Python {executable}")
    if not (executable and os.access(executable, os.X_OK)):
        report.advice.append(f"its environment, {record.get('prefix') or executable or '?'}, is "
                             "missing: a C host cannot run it here; rebuild the FMU in an "
                             "environment that exists, or set SIMON_FMU_PYTHON to a Python "
                             "with its packages")
    if record.get("libpython"):
        report.line(os.path.isfile(record["libpython"]), f"libpython {record['libpython']}")
    if executable and os.access(executable, os.X_OK):
        done = subprocess.run([executable, "-c", "import numpy, numba, scipy, lxml"],
                              capture_output=True, text=True)
        report.line(done.returncode == 0, "its packages numpy, numba, scipy, lxml"
                    + ("" if done.returncode == 0 else f": {done.stderr.strip().splitlines()[-1]}"))
    print("  (a Python host, such as fmpy, runs it with its own interpreter: that interpreter "
          "needs numpy, numba, scipy and lxml)")
    report.advice.append("to run this FMU elsewhere, build it with --native (a vehicle FMU: "
                         "python -m simon_fmu build --native; no Python, Windows, Linux and "
                         "ARM64) or --standalone (python -m simon_fmu build --standalone, "
                         "build-driver --standalone, build-abs --standalone)")


def doctor(fmu: str) -> int:
    """Check ``fmu`` on this machine, print the findings; 0 when a trial step succeeded."""
    path = Path(fmu)
    report = Report()
    if not path.exists():
        print(f"{fmu}: no such file or folder")
        return 1
    with tempfile.TemporaryDirectory(prefix="simon_doctor_") as tmp:
        try:
            folder = _folder(path, Path(tmp))
            md = ElementTree.parse(folder / "modelDescription.xml").getroot()
        except (zipfile.BadZipFile, OSError, ElementTree.ParseError) as exc:
            print(f"{fmu}: not an FMU ({exc})")
            return 1
        cs = md.find("CoSimulation")
        identifier = cs.get("modelIdentifier") if cs is not None else None
        print(f"{fmu}: {md.get('modelName')} (FMI {md.get('fmiVersion')}, "
              f"modelIdentifier {identifier}, generated by {md.get('generationTool')})")
        machine = f"{platform.system()} {platform.machine()}"
        manifest_file = folder / "resources" / "standalone" / "manifest.json"
        from simon_fmu.native.resources import RESOURCE_FILE
        if (folder / "resources" / RESOURCE_FILE).is_file():
            if _check_native(folder, md, identifier, machine, report) is None:
                report.advice.append(f"this FMU has no binary for {machine}; run it on one of "
                                     "the platforms listed above")
            where = "in fmpy under this Python (the FMU itself loads no Python)"
        else:
            report.line(platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64"),
                        f"this machine is {machine}; the FMU has binaries for linux64 only")
            library = folder / "binaries" / "linux64" / f"{identifier}.so"
            report.line(library.is_file(), f"binaries/linux64/{identifier}.so")
            if manifest_file.is_file():
                print("  standalone: carries its own Python runtime")
                _check_standalone(folder, json.loads(manifest_file.read_text()), report)
                where = "in a process of its own"
            else:
                _check_development(folder, report)
                where = f"in fmpy under this Python, {sys.executable}, as a Python host runs it"
        print(f"  trial: instantiate, initialise and one 1 ms step, {where}")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", TRIAL, str(folder)], capture_output=True,
                              text=True, timeout=600)
        lines = [l for l in done.stdout.splitlines() if l.strip()]
        for line in lines:
            if not line.startswith("TRIAL"):
                print(line)
        trial = next((l[len("TRIAL "):] for l in lines if l.startswith("TRIAL")), None)
        report.line(done.returncode == 0 and trial is not None,
                    f"trial step: {trial}" if trial else
                    f"trial step failed after {time.perf_counter() - start:.1f} s"
                    + (f": {done.stderr.strip().splitlines()[-1]}" if done.stderr.strip() else ""))
    if report.problems:
        print("what to do:")
        for advice in report.advice or ["see the messages above"]:
            print(f"  - {advice}")
        return 1
    if report.advice:
        print("note:")
        for advice in report.advice:
            print(f"  - {advice}")
    print("this FMU runs on this machine")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m simon_fmu.tools.doctor FMU")
    sys.exit(doctor(sys.argv[1]))
