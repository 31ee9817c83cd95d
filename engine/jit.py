"""The compiler for the hot path.

Every kernel of the engine is a plain function over floats and numpy arrays, decorated with
:func:`njit`. With numba present the kernels are compiled to machine code and cached on disk
(see :class:`EngineCacheLocator`); setting ``NUMBA_DISABLE_JIT=1`` runs the very same
functions as Python, which is how the formulas are debugged.

The kernels allocate nothing: every array they use is made once, in Python, when a simulation
is set up (the state, its scratch, the packed parameters). So they are compiled without
numba's reference-counting runtime, which would otherwise count a reference at every array
view and every call; an allocation inside a kernel is a compilation error.
"""
import hashlib
import os
import warnings
from pathlib import Path

import numba
from numba.core import caching, config, types
from numba.extending import intrinsic

#: The folder of the engine's sources (this package, or an FMU's bundled copy of it).
ENGINE_DIR = Path(__file__).resolve().parent


#: The engine's modules that hold no kernel and that no kernel imports: the package's front and
#: the Python driver of a run. The set-up side (``setup/``) is not compiled either.
NOT_COMPILED = ("__init__.py", "simulation.py")


def kernel_sources(folder: Path = ENGINE_DIR) -> list:
    """The sources the kernels are compiled from: the engine's top-level modules but
    :data:`NOT_COMPILED` (the set-up side, ``setup/``, is imported by no kernel: a test checks
    it)."""
    return [p for p in sorted(folder.glob("*.py")) if p.name not in NOT_COMPILED]


def source_digest(folder: Path = ENGINE_DIR) -> str:
    """A hash of the kernels' sources (names and bytes): an edit to set-up code, which no
    kernel imports, leaves the compiled kernels valid."""
    digest = hashlib.sha256()
    for path in kernel_sources(folder):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


#: The digest of the kernels' sources this process imported; it names the cache they compile into.
SOURCE_DIGEST = source_digest()


def user_cache_root():
    """The project's user-wide cache folder: ``$SIMON_FMU_CACHE``, else
    ``$XDG_CACHE_HOME/simon-fmu``, else ``~/.cache/simon-fmu`` (the folder the FMUs keep their
    bundled packages in, ``simon_fmu.runtime.entry.cache_root``); None when
    ``SIMON_FMU_CACHE`` is ``off``."""
    chosen = os.environ.get("SIMON_FMU_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "simon-fmu"


class EngineCacheLocator(caching.UserProvidedCacheLocator):
    """Where numba caches the engine's kernels: a folder named by :data:`SOURCE_DIGEST`.

    numba checks a cached kernel only against its own file, so after an edit to, say,
    ``tire.py`` a cached ``integrator.advance`` would still run the old tire code, which it
    had compiled in. Here every kernel of the engine is cached under
    ``<cache dir>/simon-engine-<digest of the kernels' sources>/<package>/``, so a kernel
    compiled from other sources is never found, and no cache file is ever deleted.
    ``<package>`` is the engine's folder name (``engine``, or an FMU's bundled copy's). The
    path does not depend on where the sources are (numba checks a cached kernel against the
    bytes of its file, not its path or time), so every checkout of the same kernels shares one
    compile. ``<cache dir>`` is ``NUMBA_CACHE_DIR`` when it is set, else
    ``<user cache>/kernels`` (:func:`user_cache_root`), else the engine's ``__pycache__``
    folder, else numba's user-wide cache folder: the first that is writable. Functions outside
    the engine's folder are left to numba's own locators.
    """

    def __init__(self, py_func, py_file, base: str = ""):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(base, f"simon-engine-{SOURCE_DIGEST}", ENGINE_DIR.name)

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            if ENGINE_DIR not in Path(py_file).resolve().parents:
                return None
        except OSError:
            return None
        if config.CACHE_DIR:
            bases = [config.CACHE_DIR]
        else:
            user = user_cache_root()
            user_wide = caching.UserWideCacheLocator(py_func, py_file).get_cache_path()
            bases = ([str(user / "kernels")] if user is not None else []) \
                + [str(ENGINE_DIR / "__pycache__"), os.path.dirname(user_wide)]
        for base in bases:
            locator = cls(py_func, py_file, base)
            try:
                locator.ensure_cache_path()
            except OSError:    # not writable: the next folder
                continue
            return locator
        return None


if EngineCacheLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, EngineCacheLocator)

#: the part of an index's path that names a cache of this engine's kernels
#: (:class:`EngineCacheLocator`)
_ENGINE_CACHE_MARK = "simon-engine-"


def _tolerate_foreign_entries():
    """Read an index of the engine's cache that holds an entry this process cannot unpickle as
    an empty one, instead of failing.

    numba keys a kernel's cached versions by their argument types, and pickles a record type
    (a namedtuple) by reference to its module. A kernel called with a test's or a script's own
    record type (a test of the tread's envelope passes a namedtuple of just the mesh's arrays)
    is cached with that type, and a later process that cannot import the type's module failed
    with ModuleNotFoundError as it loaded the kernel's index to compile its own version (a
    benchmark's loop over the derivative, after the tests had run). Now that process compiles
    its version, as for an index that is not there, and its save leaves the index with its own
    entry. Indexes outside the engine's cache folders are numba's as they were."""
    original = caching.IndexDataCacheFile._load_index
    if getattr(original, "engine_tolerant", False):
        return

    def load_index(self):
        try:
            return original(self)
        except Exception:   # noqa: BLE001 - an entry of a type this process cannot import
            if _ENGINE_CACHE_MARK not in str(self._index_path):
                raise
            return {}
    load_index.engine_tolerant = True
    caching.IndexDataCacheFile._load_index = load_index


_tolerate_foreign_entries()

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", _nrt=False)


def _drop_dead_arguments(library):
    """Make the engine's kernels that ``library`` linked in (its own copies of them) internal,
    and remove the arguments none of them reads.

    numba passes an array as nine words (meminfo, parent, sizes, data, shape, strides) and the
    model's record as some thirty arrays, and a kernel linked into another stays
    ``linkonce_odr``, so LLVM keeps every word of every call: a call of the derivative pushed
    about 450 words. The copies are this library's own, so they can be internal, and
    dead-argument elimination then leaves what each callee reads (about 130 words for the
    derivative). It runs after numba's optimisation, so what is inlined stays as it was, and
    it removes arguments only, not arithmetic: the results are bit-identical. The sedan's
    1 ms step runs about 1.25 times faster (benchmarks/speed.py)."""
    import llvmlite.binding as llvm
    from numba.core.codegen import CPUCodeLibrary
    module = library._final_module
    prefixes = tuple(CPUCodeLibrary._engine_prefixes)
    changed = False
    for fn in module.functions:
        if (not fn.is_declaration and fn.linkage == llvm.Linkage.linkonce_odr
                and fn.name.startswith(prefixes)):
            fn.linkage = llvm.Linkage.internal
            changed = True
    if changed:
        machine = library._codegen._tm
        builder = llvm.create_pass_builder(machine,
                                           llvm.create_pipeline_tuning_options(speed_level=0))
        passes = llvm.create_new_module_pass_manager()
        passes.add_dead_arg_elimination_pass()
        passes.add_global_dead_code_eliminate_pass()
        passes.run(module, builder)


def _drop_dead_arguments_of_this_engine():
    """Run :func:`_drop_dead_arguments` after numba optimises a library's final module, for the
    kernels of this package (their mangled names start with ``_ZN<len><package>``; an FMU's
    bundled copy of the engine has a package name of its own, and both may be imported in one
    process). Another numba, whose internals differ, keeps the arguments (a warning says so):
    the kernels are the same, only slower. The native build's compile turns it off
    (``simon_fmu.native.kernels``): it links the kernels into one module itself, where each
    kernel's copy would otherwise be kept once per entry point."""
    from numba.core.codegen import CPUCodeLibrary
    if not hasattr(CPUCodeLibrary, "_engine_prefixes"):
        original = CPUCodeLibrary._optimize_final_module

        def optimize(self):
            original(self)
            if CPUCodeLibrary._engine_prefixes:
                try:
                    _drop_dead_arguments(self)
                except Exception as exc:   # noqa: BLE001 - another numba: only speed is lost
                    CPUCodeLibrary._engine_prefixes.clear()
                    warnings.warn(f"engine: the kernels' dead arguments stay ({exc!r}); they run "
                                  "about 1.25 times slower with this numba", RuntimeWarning)
        CPUCodeLibrary._optimize_final_module = optimize
        CPUCodeLibrary._engine_prefixes = set()
    CPUCodeLibrary._engine_prefixes.add(f"_ZN{len(ENGINE_DIR.name)}{ENGINE_DIR.name}")


_drop_dead_arguments_of_this_engine()


def njit(fn):
    """Compile ``fn`` in nopython mode with an on-disk cache, without the runtime."""
    return numba.njit(**_OPTIONS)(fn)


def njit_inline(fn):
    """:func:`njit`, and inlined into its callers before they are compiled: for the kernels
    with one or two call sites on the hot path, whose loop bounds become constants there and
    whose array arguments are then not passed through a call.

    Inlining copies the callee into every call site before type inference, so a large kernel
    inlined at several sites is compiled once per site, and the copies nest. The model's
    derivative (``vehicle.derivatives``), the collision kernels (``collision``) and the wheel
    meshes' (``wheel_damage``) are therefore plain :func:`njit` functions, called; LLVM still
    inlines the small ones when it optimises the linked module. On a 2-core machine the
    engine compiled cold in 5.6 minutes with the collision and wheel-mesh kernels inlined, in
    1.7 minutes with them called; the sedan ran at the same speed, and two cars 2 to 4 %
    slower. (With ``derivatives`` inlined too, it took 13 minutes and 4.4 GB.)

    The exception is the per-vertex path of two units in contact: ``collision._vertex_into_box``
    (two call sites) and the small kernels it calls are inlined into the loop over the
    vertices. A call passes its arguments flattened, every array of the packed model ``P`` as
    its pointer, shape and strides, hundreds of words per vertex. Inlined, with the other
    changes to the pair's path of revisions ca9347a to 0f25f75, two cars in sustained contact
    ran 1.6 times as fast through the FMU (benchmarks/collision.py, alternated with the older
    code; benchmarks/README.md, "Collisions")."""
    return numba.njit(inline="always", **_OPTIONS)(fn)


if config.DISABLE_JIT:
    def dynamic(value):
        """``value`` itself (the kernels run as Python)."""
        return value
else:
    @intrinsic
    def dynamic(typingctx, value):
        """``value``, typed as a value known only at run time.

        numba types a constant passed to a kernel as a literal (``Literal[bool](True)``,
        ``Literal[int](-1)``) and compiles the kernel once for each such constant, with
        every kernel it passes the argument on to: the model's derivative once with its
        outputs recorded and once without, the collision kernels up to eight times. A flag
        or an index passed through ``dynamic`` is compiled once, as a plain ``bool`` or
        ``int64``, and tested where the kernel reads it, which costs a branch."""
        plain = types.unliteral(value)

        def codegen(context, builder, signature, args):
            return args[0]
        return plain(plain), codegen


def compiled_entry(kernel, args):
    """The machine-code entry point ``kernel`` has for the types of ``args``, to call in its
    place with arguments of exactly those types.

    A call through numba's dispatcher first works out the type of every argument, and for the
    integrator's records of arrays (the model, the inputs, the outputs, the scratch) that
    costs more than a 1 ms step's integration; the entry point skips it and only unboxes.
    The types are resolved here once, for the arrays the caller keeps passing. Compiles
    ``kernel`` for them if it has not been; ``kernel`` itself when numba has no entry point.
    """
    if not hasattr(kernel, "overloads"):    # NUMBA_DISABLE_JIT=1: the Python function itself
        return kernel
    types = tuple(kernel.typeof_pyval(a) for a in args)
    if types not in kernel.overloads:
        kernel.compile(types)
    result = kernel.overloads.get(types)
    return kernel if result is None else result.entry_point
