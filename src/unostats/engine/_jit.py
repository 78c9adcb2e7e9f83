"""The one decorator of every kernel: ``kernel`` compiles with Numba, once per argument layout,
and caches the entry point's machine code where a change to any engine source cannot leave it
stale (_cache.py).

Two ways to compile, the same machine semantics (the same games): the fast one, when Numba's
internals are as this module expects them (``_internals_missing`` checks each class, method and
signature it uses), and plain ``njit`` otherwise or with ``UNOSTATS_PLAIN_NUMBA=1``, said once on
the ``unostats.engine`` logger. Either way only the engine's own dispatchers are touched: no
class of Numba is patched and Numba's settings are as the process had them.

``@kernel`` is ``njit``; ``@kernel(inline=True)`` adds ``forceinline=True`` for small helpers of
the turn loop (LLVM inlines them after Numba compiled each once; Numba's own IR inlining,
``inline="always"``, copies a helper into every caller and made the first compile take
minutes). On the fast path a kernel called by another kernel is typed on its arguments' plain
types: constants (``draw(st, s, 4, ...)``) and small integers (card types read from the uint8
piles) would otherwise each compile a specialisation of their own (``Literal[int](4)``,
``uint8``), and a first compile of the engine did five copies of the effect of a move.

Where the first compile's time goes: Numba gives each function a code library of its own, links
the libraries of everything it calls into it, runs LLVM's module optimisation over the lot and
emits machine code for it. Every kernel below the entry point thus optimised and compiled its
whole call tree once more for each level above it (_play_round all of the engine, then
play_games all of it again): two thirds of the LLVM time. On the fast path a kernel only other
kernels call gets a link-only library (``_LinkOnlyLibrary``): its LLVM IR (function passes run)
is linked into its callers and optimised and compiled once, with the entry point, the only
kernel Python calls and the only one cached. In an entry point's code every function but the
entry's own and its CPython wrapper is internal (``_EntryLibrary``): a function's name carries
an id of the process that compiled it, so two entry points cached by two processes could hold
two different functions of one name, and a process that loaded both would call one for the
other (tests/test_engine_fallback.py plays that case).

Where the cache is: an entry point's files go straight into the engine's keyed folder
(``_EngineLocator``), stamped with its key, not (as Numba's own locator does) into a sub-folder
named after the source file's absolute path: a second environment of the same sources (another
virtual environment, another checkout) finds and loads them instead of compiling in silence.
(The plain path keeps Numba's own cache and locator, under the keyed folder.) ``cached_here``
says, before a call, whether Numba will load an entry point's machine code on this machine or
compile it.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

import numba
from numba import njit, types

from ._cache import cache_dir, key

PLAIN_ENV = "UNOSTATS_PLAIN_NUMBA"  # "1": compile with plain njit (the fallback, for tests)
log = logging.getLogger("unostats.engine")


def _takes(owner, name: str, *params: str) -> bool:
    """Is ``owner.name`` a function of exactly these parameters (after ``self``)?"""
    fn = inspect.getattr_static(owner, name, None)
    fn = fn.__func__ if isinstance(fn, (staticmethod, classmethod)) else fn
    try:
        got = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return got[1:] == list(params) if got[:1] == ["self"] else got == list(params)


def _internals_missing() -> str | None:
    """What of Numba's internals the fast path uses is not as expected, or None when all is."""
    try:
        from numba.core import caching, codegen, compiler, compiler_machinery, dispatcher
        from numba.core.runtime import rtsys
        from numba.core.typed_passes import NativeLowering
    except ImportError as e:
        return f"cannot import {e.name or e}"
    needs = [
        (codegen.JITCodeLibrary, "_optimize_final_module"),
        (codegen.JITCodeLibrary, "_finalize_final_module"),
        (codegen.JITCodeLibrary, "_finalize_dynamic_globals"),
        (codegen.JITCodeLibrary, "_verify_declare_only_symbols"),
        (codegen.JITCPUCodegen, "set_env", "env_name", "env"),
        (NativeLowering, "run_pass", "state"),
        (compiler.CompilerBase, "define_pipelines"),
        (compiler.DefaultPassBuilder, "define_nopython_pipeline", "state", "name"),
        (compiler_machinery, "register_pass", "mutates_CFG", "analysis_only"),
        (caching.FunctionCache, "__init__", "py_func"),
        (caching.FunctionCache, "_load_overload", "sig", "target_context"),
        (caching.FunctionCache, "_guard_against_spurious_io_errors"),
        (dispatcher.Dispatcher, "get_call_template", "args", "kws"),
        (dispatcher.Dispatcher, "enable_caching"),
        (rtsys, "initialize", "ctx"),
    ]
    for owner, name, *params in needs:
        if not _takes(owner, name, *params):
            return f"{getattr(owner, '__name__', owner)}.{name}({', '.join(params)})"
    if not isinstance(inspect.getattr_static(codegen.CodeLibrary, "codegen", None), property):
        return "CodeLibrary.codegen"
    for option in ("no_cpython_wrapper", "no_cfunc_wrapper", "forceinline"):
        if not _njit_offers(option):
            return f"the njit option {option}"
    return None


@contextmanager
def _caching_under_engine_dir() -> Iterator[None]:
    """Numba reads its cache directory (a setting of the whole process) when a cached function
    is declared: the entry point takes the engine's keyed one, and the setting is put back."""
    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(cache_dir())
    try:
        yield
    finally:
        numba.config.CACHE_DIR = before


def _njit_offers(option: str) -> bool:
    """Does this Numba's ``njit`` take ``option``?"""
    try:
        from numba.core.options import DefaultOptions
    except ImportError:
        return False
    return hasattr(DefaultOptions, option)


def _engine_caches():
    """The fast path's cache of compiled functions (Numba's, loading without the target
    context's refresh), located by ``_EngineLocator``; None where Numba's caching classes are
    not as expected (its own cache and locator are kept then, as on the plain path)."""
    try:
        from numba.core.caching import (CompileResultCacheImpl, FunctionCache,
                                        IndexDataCacheFile, _CacheLocator)
        from numba.core.runtime import rtsys
    except ImportError:
        return None
    if not (_takes(_CacheLocator, "ensure_cache_path")
            and _takes(CompileResultCacheImpl, "__init__", "py_func")
            and isinstance(getattr(CompileResultCacheImpl, "_locator_classes", None), list)
            and _takes(FunctionCache, "_index_key", "sig", "codegen")
            and _takes(IndexDataCacheFile, "_load_index")):
        return None

    class _EngineLocator(_CacheLocator):
        """The engine's keyed folder, stamped with its key (a hash of every engine source): the
        same sources at another path load the same files."""

        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = str(cache_dir())

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return key()

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:  # a folder that cannot be written: Numba's next locator
                return None
            return self

    class _EngineCacheImpl(CompileResultCacheImpl):
        _locator_classes = [_EngineLocator, *CompileResultCacheImpl._locator_classes]

    class _EngineCache(FunctionCache):
        """Numba's cache of compiled functions, in the engine's folder, loading an entry
        without first refreshing the target context: the refresh imports and registers every
        typing and lowering registry (two thirds of a warm start-up's first call), which only
        compiling needs, and compiling does it itself; loading machine code needs the code
        generator and the runtime."""

        _impl_class = _EngineCacheImpl

        def load_overload(self, sig, target_context):
            rtsys.initialize(target_context)  # the compiled code calls the runtime's functions
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

    return _EngineCache


def _entry(f, options: dict, cache_class):
    """``f`` as an entry point: ``njit`` releasing the GIL, cached by ``cache_class`` in the
    engine's folder (None: Numba's own cache, under the engine's folder)."""
    if cache_class is None:
        with _caching_under_engine_dir():
            return njit(cache=True, nogil=True, **options)(f)
    d = njit(nogil=True, **options)(f)
    d._cache = cache_class(d.py_func)  # what cache=True does, with the engine's locator
    return d


def cached_here(d) -> bool:
    """Will Numba load entry point ``d``'s machine code from its cache on this machine, rather
    than compile it? Its index must be of these sources (the stamp) and hold code for this
    machine (the code generator's magic tuple: CPU name and features) and this bytecode, in a
    data file that is there. An index that cannot be read raises (the caller removes it)."""
    from numba.core.registry import cpu_target

    cache = d._cache
    if not hasattr(cache, "_cache_file"):  # Numba's caching not as expected: try to load it
        return True
    index = cache._cache_file._load_index()
    if not index:
        return False
    codegen = cpu_target.target_context.codegen()
    return any(cache._index_key(entry[0], codegen) == entry
               and os.path.exists(os.path.join(cache.cache_path, data))
               for entry, data in index.items())


def compiles(d) -> int:
    """How many times ``d`` compiled (a signature its cache did not hold) in this process."""
    return sum(d.stats.cache_misses.values())


def _plain_kernel(inline: bool, entry: bool):
    """Plain ``njit``: the entry point releases the GIL and is cached; a small helper is
    ``forceinline`` where Numba offers it (without, the engine plays at about half speed)."""
    def wrap(f):
        if not entry:
            return njit(forceinline=True)(f) if inline and _njit_offers("forceinline") else njit(f)
        return _entry(f, {}, None)
    return wrap


def _fast_kernels():
    """The fast path's ``kernel`` maker, built on the internals ``_internals_missing`` checked."""
    from numba.core import codegen as _codegen
    from numba.core.compiler import CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import register_pass
    from numba.core.typed_passes import NativeLowering

    class _EnvWhereDefined:
        """A link-only library's code generator: Numba's, but setting an environment only
        where the JIT engine holds it (a link-only library's is in none of its modules: its
        address would be 0); the kernels use no environment."""

        def __init__(self, codegen):
            self._codegen = codegen

        def __getattr__(self, name):
            return getattr(self._codegen, name)

        def set_env(self, env_name, env):
            engine = getattr(self._codegen, "_engine", None)
            if engine is not None and engine.get_global_value_address(env_name):
                self._codegen.set_env(env_name, env)

    class _LinkOnlyLibrary(_codegen.JITCodeLibrary):
        """The code library of a kernel only other kernels call (it has no CPython or C
        wrapper): finalising it links in its callees but neither optimises the whole nor emits
        machine code, which its callers do, once, for everything they link."""

        @property
        def codegen(self):
            return _EnvWhereDefined(self._codegen)

        def _optimize_final_module(self):
            pass  # the caller's module passes optimise this code with its own

        def _finalize_final_module(self):
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            self._finalized = True  # not added to the JIT engine: no machine code of its own

    class _EntryLibrary(_codegen.JITCodeLibrary):
        """An entry point's code library: once its callees are linked in, every function in it
        but the entry's own and its CPython wrapper is made internal. A linked-in function
        comes as ``linkonce_odr``, its name carrying an id of the process that compiled it:
        two entry points cached by two processes may hold two different functions of one
        name, and the JIT linker of a process that loads both would call one for the other."""

        def _optimize_final_module(self):
            wrapper = "_ZN7cpython"  # Numba's CPython wrapper: the entry's name, prefixed
            kept = set()
            for fn in self._final_module.functions:
                if fn.name.startswith(wrapper):
                    kept.update((fn.name, "_ZN" + fn.name[len(wrapper):]))
            for fn in self._final_module.functions:
                if not fn.is_declaration and fn.name not in kept:
                    fn.linkage = "internal"
            super()._optimize_final_module()

    def _pipeline_into(library_class, name: str, cached: bool):
        """Numba's nopython pipeline, its lowering into a ``library_class`` (``cached``: its
        object code kept for the cache, as Numba's own lowering does)."""

        @register_pass(mutates_CFG=True, analysis_only=False)
        class _Lowering(NativeLowering):
            _name = name

            def run_pass(self, state):
                state.library = library_class(state.targetctx.codegen(),
                                              state.func_id.func_qualname)
                if cached:
                    state.library.enable_object_caching()
                return super().run_pass(state)

        class _Pipeline(CompilerBase):
            def define_pipelines(self):
                pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
                pm.passes = [(_Lowering if p is NativeLowering else p, d) for p, d in pm.passes]
                pm.finalize()
                return [pm]

        return _Pipeline

    _LinkOnlyPipeline = _pipeline_into(_LinkOnlyLibrary, "unostats_link_only_lowering", False)
    _EntryPipeline = _pipeline_into(_EntryLibrary, "unostats_entry_lowering", True)

    def _plain(t):
        t = types.unliteral(t)
        if isinstance(t, types.Integer) and t.bitwidth < 64:
            return types.int64
        return t

    engine_cache = _engine_caches()

    def fast_kernel(inline: bool, entry: bool):
        def wrap(f):
            options = dict(forceinline=inline, no_cpython_wrapper=not entry,
                           no_cfunc_wrapper=True)
            if entry:
                d = _entry(f, {**options, "pipeline_class": _EntryPipeline}, engine_cache)
            else:
                d = njit(pipeline_class=_LinkOnlyPipeline, **options)(f)
            get_call_template = d.get_call_template

            def plain_call_template(args, kws):
                return get_call_template(tuple(_plain(a) for a in args),
                                         {k: _plain(v) for k, v in kws.items()})

            d.get_call_template = plain_call_template
            return d
        return wrap

    return fast_kernel


def _choose():
    """The kernel maker of this process, and why it is the plain one (None when fast)."""
    if os.environ.get(PLAIN_ENV) == "1":
        return _plain_kernel, f"{PLAIN_ENV}=1"
    missing = _internals_missing()
    if missing is not None:
        return _plain_kernel, f"Numba {numba.__version__} has no {missing} as unostats expects"
    try:
        return _fast_kernels(), None
    except Exception as e:  # noqa: BLE001 - an internal that is there but does not take it
        return _plain_kernel, f"Numba {numba.__version__}: {type(e).__name__}: {e}"


_make, PLAIN = _choose()
if PLAIN is not None:
    log.warning("the engine compiles with plain Numba (%s): its first compile and start-up are "
                "slower, its games the same", PLAIN)


def kernel(fn=None, *, inline=False, entry=False):
    """``njit`` (``forceinline`` when ``inline``). Only an ``entry`` kernel can be called from
    Python: it gets Numba's CPython wrapper, releases the GIL and is cached; on the fast path
    the others skip compiling a wrapper (a third of the first compile), are linked into their
    callers' code (``_LinkOnlyLibrary``) and are typed without literal values."""
    wrap = _make(inline, entry)
    return wrap(fn) if fn is not None else wrap
