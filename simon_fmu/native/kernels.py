"""The engine's integrator kernels as one LLVM module, from the IR numba compiles for them.

Run as a program (``python -m simon_fmu.native.kernels REQUEST.pickle OUT_DIR``) in a process of
its own: numba keeps a kernel's LLVM IR only when it compiles it, not when it loads it from its
on-disk cache, so this process points ``NUMBA_CACHE_DIR`` at an empty folder (the parent sets it)
and compiles ``engine.integrator.advance`` for the argument types the parent's
``engine.Simulation`` passes it (``engine.jit.compiled_entry``). The final module of ``advance``
links in every kernel it calls, ``record`` included.

It writes to OUT_DIR:

* ``kernels.ll``: the module's IR (target attributes removed, for the generic CPU), which
  :mod:`simon_fmu.native.targets` emits as an object for each platform's triple,
* ``abi.json``: per kernel, its symbol, its IR signature and the flattened arguments
  (:func:`flatten`), which :mod:`simon_fmu.native.build` turns into the C entry points.

The kernels keep numba's native calling convention: ``i32 f(ret*, excinfo**, args...)`` where
an array argument is flattened into meminfo, parent, nitems, itemsize, data, shape[ndim],
strides[ndim], and a named tuple into its members in order.
"""
from __future__ import annotations

import json
import pickle
import re
import sys
from pathlib import Path

#: the kernels the native FMU calls, and the names of their arguments
KERNELS = {
    "advance": ("y", "t0", "h", "n", "work", "U", "P", "Y", "err", "W"),
    "record": ("y", "dy", "U", "P", "Y", "err", "W"),
    "stable_step": ("y", "U", "P", "Y", "err", "W", "stab.free", "stab.base", "stab.shifted",
                    "stab.J", "stab.A", "stab.wr", "stab.wi", "stab.M", "stab.x", "stab.d", "stab.piv",
                    "stab.out"),
    "engage_clutches": ("y", "U", "P"),
    "place_launch": ("y", "P", "launch.R", "u", "ground_z"),
    "place_towed": ("y", "P"),
    "footprint_hits": ("y", "apart.pairs", "apart.foot", "apart.where", "apart.corners",
                       "apart.hits"),
    # engine.setup.start_clear.start_arguments: the wheel inputs are the integrator's
    "start_overlaps": ("y", "P", "U.u_wheel", "clear.R", "clear.rot", "clear.hits"),
    # engine.setup.settle.SETTLE_ARGS and PRELOAD_ARGS, the set-up's arrays under settle.*, pre.*
    "settle_on_terrain": ("y", "P", "settle.u_wheel", "settle.R", "settle.A", "settle.b",
                          "settle.x", "settle.perm", "settle.tau", "settle.rz", "settle.xp",
                          "settle.fault"),
    "preload_lateral": ("y", "pre.U", "P", "pre.Y", "pre.err", "pre.W", "pre.dy", "pre.tires",
                        "pre.groups", "pre.group0", "pre.unknowns", "pre.residuals", "pre.blocks",
                        "pre.block0", "pre.start_at", "pre.start_by", "pre.tire_loads", "pitch",
                        "pre.R", "pre.vn", "pre.J", "pre.vt", "pre.vu", "pre.A", "pre.vb",
                        "pre.perm"),
    # engine.layout.state_fault: an FMU state's y before it is restored (the runtime's copy)
    "state_fault": ("y", "P", "check.accepts"),
}


def flatten(name, typ):
    """The flattened arguments of a numba type ``typ`` named ``name``: a list of
    (argument name, C kind) where kind is one of array:<ndim>:<dtype>, f64, i64."""
    from numba.core import types
    if isinstance(typ, types.Array):
        return [(name, f"array:{typ.ndim}:{typ.dtype}")]
    if isinstance(typ, (types.NamedTuple, types.NamedUniTuple)):
        out = []
        for field, member in zip(typ.fields, typ.types):
            out += flatten(f"{name}.{field}", member)
        return out
    if isinstance(typ, types.Float) and typ.bitwidth == 64:
        return [(name, "f64")]
    if isinstance(typ, types.Integer) and typ.bitwidth == 64:
        return [(name, "i64")]
    raise TypeError(f"{name}: a kernel argument of type {typ} cannot be passed natively")


def _llvm_params(kind):
    """The LLVM parameter types a flattened argument of ``kind`` becomes (opaque pointers)."""
    if kind == "f64":
        return ["double"]
    if kind == "i64":
        return ["i64"]
    ndim = int(kind.split(":")[1])
    return ["ptr", "ptr", "i64", "i64", "ptr"] + ["i64"] * (2 * ndim)


_TARGET_ATTRS = re.compile(r'\s*"target-(cpu|features)"="[^"]*"')


def signature_of(module, symbol: str) -> list[str]:
    """The parameter types of the function ``symbol`` of the llvmlite ``module``."""
    fn = module.get_function(symbol)
    return [str(a.type) for a in fn.arguments]


def link_kernels(irs: list, keep: list):
    """One module of the IR texts ``irs``, where only the functions ``keep`` stay visible
    (hidden, for the C entry points): every other definition is made internal, and what they
    do not reach is removed, the CPython and cfunc wrappers numba adds with the Python C-API
    they call among it."""
    import llvmlite.binding as llvm
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = None
    for ir in irs:
        m = llvm.parse_assembly(_TARGET_ATTRS.sub("", ir))
        if module is None:
            module = m
        else:
            module.link_in(m)
    for fn in module.functions:
        if fn.is_declaration:
            continue
        if fn.name in keep:
            fn.linkage = llvm.Linkage.external
            fn.visibility = llvm.Visibility.hidden
        else:
            fn.linkage = llvm.Linkage.internal
    for gv in module.global_variables:
        if not gv.is_declaration:
            gv.linkage = llvm.Linkage.internal
    return module


def compile_kernels(signature, out_dir: Path) -> dict:
    """Compile ``advance`` for ``signature`` (its numba argument types) and write the files of
    the module docstring; returns the ABI description."""
    from numba.core import types
    from numba.core.codegen import CPUCodeLibrary
    from engine import (drivetrain, integrator, launch, layout, preload, settle, stability,
                        start_check)
    # the kernels linked here into one module share one copy of each kernel they call
    # (linkonce_odr) and lose their dead arguments there (targets.emit_object); the JIT's
    # own pass (engine.jit) would give each entry point internal copies of its own
    CPUCodeLibrary._engine_prefixes.clear()
    signature = tuple(signature)
    integrator.advance.compile(signature)
    y, t0, h, n, work, U, P, Y, err, W = signature
    # record(y, dy, U, P, Y, err, W): the types advance calls it with (dy = work[0])
    f1, f2 = types.Array(work.dtype, 1, "C"), types.Array(work.dtype, 2, "C")
    i1, i2 = types.Array(types.int64, 1, "C"), types.Array(types.int64, 2, "C")
    sigs = {"advance": signature,
            "record": (y, f1, U, P, Y, err, W),
            # stable_step(y, U, P, Y, err, W, free, base, shifted, J, A, wr, wi, M, x, d, piv, out)
            "stable_step": (y, U, P, Y, err, W, i1, f1, f1, f2, f2, f1, f1, f2, f1, f1, i1, f1),
            "engage_clutches": (y, U, P),
            # place_launch(y, P, R, u, ground_z)
            "place_launch": (y, P, f2, types.int64, types.float64),
            "place_towed": (y, P),
            # footprint_hits(y, pairs, foot, where, corners, hits)
            "footprint_hits": (y, f2, f2, f2, types.Array(work.dtype, 3, "C"), i1),
            # start_overlaps(y, P, u_wheel, R, rot, hits)
            "start_overlaps": (y, P, U.types[U.fields.index("u_wheel")], f2, f1,
                               types.Array(work.dtype, 3, "C")),
            # settle_on_terrain(y, P, u_wheel, R, A, b, x, perm, tau, rz, xp, fault)
            "settle_on_terrain": (y, P, f2, f2, f2, f1, f1, i1, f1, f1, f1, f1),
            # preload_lateral(y, U, P, Y, err, W, dy, tires, groups, group0, unknowns, residuals,
            # blocks, block0, start_at, start_by, tire_loads, pitch, R, vn, J, vt, vu, A, vb, perm)
            "preload_lateral": (y, U, P, Y, err, W, f1, i2, i1, i1, i1, i2, i1, i1, i1, f1, f1,
                                types.int64, f2, f2, f2, f2, f2, f2, f2, i1),
            # state_fault(y, P, accepts)
            "state_fault": (y, P, f1)}
    stability.stable_step.compile(sigs["stable_step"])
    drivetrain.engage_clutches.compile(sigs["engage_clutches"])
    launch.place_launch.compile(sigs["place_launch"])
    launch.place_towed.compile(sigs["place_towed"])
    launch.footprint_hits.compile(sigs["footprint_hits"])
    start_check.start_overlaps.compile(sigs["start_overlaps"])
    settle.settle_on_terrain.compile(sigs["settle_on_terrain"])
    preload.preload_lateral.compile(sigs["preload_lateral"])
    layout.state_fault.compile(sigs["state_fault"])
    modules = {"advance": integrator, "record": integrator, "stable_step": stability,
               "engage_clutches": drivetrain, "place_launch": launch, "place_towed": launch,
               "footprint_hits": launch, "start_overlaps": start_check,
               "settle_on_terrain": settle, "preload_lateral": preload, "state_fault": layout}
    abi, irs, symbols = {"kernels": {}}, [], []
    for name, sig in sigs.items():
        kernel = getattr(modules[name], name)
        over = kernel.overloads.get(sig)
        if over is None:
            raise LookupError(f"{name}: not compiled for {sig}; compiled: {list(kernel.overloads)}")
        irs.append(over.library.get_llvm_str())
        symbol = over.fndesc.mangled_name
        symbols.append(symbol)
        args = []
        for arg_name, typ in zip(KERNELS[name], sig):
            args += flatten(arg_name, typ)
        abi["kernels"][name] = {"symbol": symbol, "args": args,
                                "returns": str(over.signature.return_type)}
    module = link_kernels(irs, symbols)
    for name, k in abi["kernels"].items():
        params = signature_of(module, k["symbol"])
        want = ["ptr", "ptr"]
        for _, kind in k["args"]:
            want += _llvm_params(kind)
        if params != want:
            raise TypeError(f"{name}: the IR signature {params} is not the flattened "
                            f"arguments {want}")
        k["params"] = params
    (out_dir / "kernels.ll").write_text(str(module))
    (out_dir / "abi.json").write_text(json.dumps(abi, indent=1))
    return abi


if __name__ == "__main__":
    request = pickle.loads(Path(sys.argv[1]).read_bytes())
    compile_kernels(request["signature"], Path(sys.argv[2]))
