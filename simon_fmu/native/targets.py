"""The native FMU's platforms: for each FMI platform folder, the LLVM target triple the kernels
are emitted for, the C cross compiler that links them with the runtime, the Debian package that
provides it, and the object emission itself (docs/native.md).

numba generates the kernels' LLVM IR for the machine it runs on (``x86_64-unknown-linux-gnu``,
its data layout). The same IR is emitted for another triple after the module's triple and data
layout are set to the target's; :func:`check_layouts` first proves that every type the module
uses has the same size, alignment and member offsets under both layouts (the optimised IR holds
byte offsets computed for the host's layout), so that retargeting changes no address.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass

#: the triple numba's IR is generated for (the host of the build)
HOST_TRIPLE = "x86_64-unknown-linux-gnu"


@dataclass(frozen=True)
class Level:
    """One instruction-set level the kernels are emitted for: its name (the x86-64 psABI's
    micro-architecture levels; what ``SIMON_NATIVE_ISA`` names), the LLVM CPU it is emitted for
    ("": the triple's generic CPU) and the C expression that is true on a processor (and
    operating system) that runs it."""
    name: str
    cpu: str
    check: str


#: x86-64: the baseline (SSE2, every x86-64 processor), v3 (AVX2, FMA, BMI2: Intel from
#: Haswell, 2013, AMD from Zen) and v4 (AVX-512: its 32 vector registers are what the kernels
#: gain from, fewer values spilled to the stack). GCC's checks look at the operating system's
#: support of the wider registers too (XGETBV). No level fuses a multiply and an add: the IR
#: carries no fast-math flags, so every level computes the same IEEE operations and gives the
#: same results, bit for bit (tests/test_native_fmu.py runs each).
X86_64_LEVELS = (
    Level("x86-64", "", "1"),
    Level("x86-64-v3", "x86-64-v3", '__builtin_cpu_init(), __builtin_cpu_supports("x86-64-v3")'),
    Level("x86-64-v4", "x86-64-v4", '__builtin_cpu_init(), __builtin_cpu_supports("x86-64-v4")'),
)


@dataclass(frozen=True)
class Platform:
    folder: str              # binaries/<folder>/
    triple: str              # LLVM target triple of the kernels' object
    cc: str                  # C compiler (cross compiler) of that platform
    package: str             # the Debian package that provides ``cc``
    suffix: str              # the library's file name suffix
    cflags: tuple = ()
    ldflags: tuple = ()
    #: the kernels are linked in once per level; the best one the processor runs is chosen
    #: when an instance is created (simon_native.c, ``select_level``)
    levels: tuple = (Level("generic", "", "1"),)
    #: a Linux library's oldest glibc ("": not a glibc platform): no symbol it imports has a
    #: later version (c/glibc_floor.c; the build checks)
    glibc: str = ""


#: the oldest glibc the Linux libraries load with: 2.17, that of RHEL and CentOS 7 (2014) and
#: the first with ARM64; every Linux distribution since has a later one (docs/native.md,
#: "Which Linux")
GLIBC_FLOOR = "2.17"

#: every platform the native FMU is built for, in the order of the option's default
PLATFORMS = {
    "linux64": Platform(
        "linux64", "x86_64-unknown-linux-gnu", "gcc", "gcc", ".so",
        cflags=("-fPIC", "-fvisibility=hidden"),
        ldflags=("-Wl,--no-undefined", "-Wl,--exclude-libs,ALL", "-lm"),
        levels=X86_64_LEVELS, glibc=GLIBC_FLOOR),
    "win64": Platform(
        "win64", "x86_64-w64-windows-gnu", "x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64-posix",
        ".dll",
        # mingw-w64's own printf and strtod (C99, as glibc's) for the log messages; the FMI
        # functions are exported by the headers' dllexport, nothing else is. libgcc
        # (___chkstk_ms) is linked statically; sincos, atan2, pow and rint, which the kernels
        # call, come from mingw-w64's static libmingwex, asin from msvcrt.dll
        cflags=("-D__USE_MINGW_ANSI_STDIO=1",),
        ldflags=("-static-libgcc", "-s", "-Wl,--no-undefined", "-Wl,--exclude-libs,ALL",
                 "-lm"),
        levels=X86_64_LEVELS),
    "aarch64-linux": Platform(
        "aarch64-linux", "aarch64-unknown-linux-gnu", "aarch64-linux-gnu-gcc",
        "gcc-aarch64-linux-gnu", ".so",
        cflags=("-fPIC", "-fvisibility=hidden"),
        ldflags=("-Wl,--no-undefined", "-Wl,--exclude-libs,ALL", "-lm"), glibc=GLIBC_FLOOR),
}


def parse_platforms(text) -> list[str]:
    """The platform folders of ``--platforms`` (comma-separated; None or "all": every one)."""
    if text is None or text == "all":
        return list(PLATFORMS)
    names = [p.strip() for p in str(text).split(",") if p.strip()]
    unknown = [p for p in names if p not in PLATFORMS]
    if unknown or not names:
        raise ValueError(f"unknown platform {', '.join(unknown) or repr(text)}: it accepts "
                         f"{', '.join(PLATFORMS)} (comma-separated) or all")
    return list(dict.fromkeys(names))


def missing_toolchain(platform: Platform) -> str | None:
    """None when the platform's compiler is on PATH, else what to install."""
    if shutil.which(platform.cc) is None:
        return (f"{platform.folder}: no `{platform.cc}` on PATH (Debian package "
                f"{platform.package}; `make setup` installs tools/system-packages.txt)")
    return None


def levels_run_here(cc: str = "gcc") -> list[str]:
    """The levels of :data:`X86_64_LEVELS` this processor runs, in their order, by the very
    checks the native binaries make when an instance is created (compiled here with ``cc``):
    the last is the one a native FMU runs here. Empty on a machine that is not x86-64 (or has
    no ``cc``: None then)."""
    import platform
    import subprocess
    import tempfile
    from pathlib import Path
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    if shutil.which(cc) is None:
        return None
    lines = ["#include <stdio.h>", "int main(void)", "{"]
    lines += [f'    if (({level.check}) != 0) puts("{level.name}");' for level in X86_64_LEVELS]
    lines += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory(prefix="simon_levels_") as tmp:
        source, program = Path(tmp) / "levels.c", Path(tmp) / "levels"
        source.write_text("\n".join(lines) + "\n")
        subprocess.run([cc, str(source), "-o", str(program)], check=True, capture_output=True)
        return subprocess.run([str(program)], capture_output=True, text=True,
                              check=True).stdout.split()


def _types_of(module):
    """Every type the module's globals, function signatures and instructions use, by text."""
    seen = {}

    def add(t):
        key = str(t)
        if key in seen or key in ("void", "label", "metadata", "token"):
            return
        seen[key] = t
        if t.is_struct or t.is_array or t.is_vector:
            for e in t.elements:
                add(e)

    for g in module.global_variables:
        add(g.global_value_type)
    for s in module.struct_types:
        add(s)
    for fn in module.functions:
        for a in fn.arguments:
            add(a.type)
        for block in fn.blocks:
            for ins in block.instructions:
                add(ins.type)
                for op in ins.operands:
                    add(op.type)
    return seen


def check_layouts(module, target_data) -> int:
    """Raise if a type of ``module`` is laid out differently by its own data layout (numba's,
    the host's) and by ``target_data``; returns how many types were compared."""
    import llvmlite.binding as llvm
    host = llvm.create_target_data(module.data_layout)
    types = _types_of(module)
    compared = 0
    for key, t in types.items():
        if t.is_function or key.startswith(("void", "label", "metadata", "token")) or key == "{}":
            continue
        try:
            a = (host.get_abi_size(t), host.get_abi_alignment(t))
        except Exception:            # opaque or unsized
            continue
        b = (target_data.get_abi_size(t), target_data.get_abi_alignment(t))
        if a != b:
            raise ValueError(f"type {key}: size/alignment {a} on the host, {b} on the target")
        if t.is_struct:
            n = len(list(t.elements))
            for i in range(n):
                if host.get_element_offset(t, i) != target_data.get_element_offset(t, i):
                    raise ValueError(f"type {key}: member {i} at a different offset on the target")
        compared += 1
    return compared


def emit_object(ir: str, triple: str, cpu: str = "", suffix: str = "") -> tuple[bytes, dict]:
    """The object file of the kernels' IR text ``ir`` for ``triple`` (position-independent, the
    generic CPU of that triple unless ``cpu`` names one), and facts about it: the data layouts
    before and after and how many types were checked to lay out alike. ``suffix`` is appended
    to the name of every function the object defines for others (the kernels' entry points),
    so that the objects of several levels link into one library."""
    import llvmlite.binding as llvm
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(ir)
    source_layout = module.data_layout
    target = llvm.Target.from_triple(triple)
    machine = target.create_target_machine(cpu=cpu, features="", reloc="pic", codemodel="default",
                                           opt=3)
    compared = check_layouts(module, machine.target_data)
    module.triple = triple
    module.data_layout = str(machine.target_data)
    if suffix:
        for fn in module.functions:
            if not fn.is_declaration and fn.linkage == llvm.Linkage.external:
                fn.name = fn.name + suffix
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=0))
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    # numba passes an array as nine words (meminfo, parent, sizes, data, shape, strides) and
    # the model's record as some thirty arrays, so each call of the derivative pushed about 450
    # words; the kernels are internal here (kernels.link_kernels), so the arguments no callee
    # reads can go: about 130 words a call, the sedan's 1 ms step 1.25 times faster. It only
    # removes arguments and leaves the arithmetic as it is: the results are bit-identical.
    passes.add_dead_arg_elimination_pass()
    passes.add_strip_dead_prototype_pass()
    passes.run(module, builder)
    # then LLVM's O3 pipeline once more over the linked kernels, for this target and level:
    # numba optimised each function for a generic CPU, apart from the others; here the
    # integrator's step is inlined into advance and the kernels are scheduled for the level's
    # registers (a few percent off a step). The IR has no fast-math or contract flags, so no
    # pass reorders or fuses an operation: the results are bit-identical
    # (tests/test_native_fmu.py, tests/test_native_platforms.py)
    full = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    full.getModulePassManager().run(module, full)
    module.verify()
    return machine.emit_object(module), {"triple": module.triple, "cpu": cpu or "generic",
                                         "from": source_layout,
                                         "data_layout": module.data_layout,
                                         "types_checked": compared}
