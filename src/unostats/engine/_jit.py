"""The one decorator of every kernel: ``kernel`` compiles with Numba, once per argument layout,
and caches the entry point's machine code where a change to any engine source cannot leave it
stale (_cache.py).

``@kernel`` is ``njit``; ``@kernel(inline=True)`` adds ``forceinline=True`` for small helpers of
the turn loop (LLVM inlines them after Numba compiled each once; Numba's own IR inlining,
``inline="always"``, copies a helper into every caller and made the first compile take
minutes). A kernel called by another kernel is typed on its arguments' plain types: constants
(``draw(st, s, 4, ...)``) and small integers (card types read from the uint8 piles) would
otherwise each compile a specialisation of their own (``Literal[int](4)``, ``uint8``), and a
first compile of the engine did five copies of the effect of a move.

Where the first compile's time goes: Numba gives each function a code library of its own, links
the libraries of everything it calls into it, runs LLVM's module optimisation over the lot and
emits machine code for it. Every kernel below the entry point thus optimised and compiled its
whole call tree once more for each level above it (_play_round all of the engine, then
play_games all of it again): two thirds of the LLVM time. A kernel only other kernels call gets
a link-only library (``_LinkOnlyLibrary``): its LLVM IR (function passes run) is linked into its
callers and optimised and compiled once, with the entry point, the only kernel Python calls and
the only one cached.
"""

import gc

import numba
from numba import njit, types
from numba.core import codegen as _codegen
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.caching import FunctionCache
from numba.core.compiler_machinery import register_pass
from numba.core.runtime import rtsys
from numba.core.typed_passes import NativeLowering

from ._cache import cache_dir

# The entry point caches its machine code under a directory keyed on all the engine's sources
# (_cache.py), set before the first ``@kernel`` below is applied.
numba.config.CACHE_DIR = str(cache_dir())


class _LinkOnlyLibrary(_codegen.JITCodeLibrary):
    """The code library of a kernel only other kernels call (it has no CPython or C wrapper):
    finalising it links in its callees but neither optimises the whole nor emits machine code,
    which its callers do, once, for everything they link."""

    def _optimize_final_module(self):
        pass  # the caller's module passes optimise this code with its own

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True  # not added to the JIT engine: no machine code of its own


_set_env = _codegen.JITCPUCodegen.set_env


def _set_env_where_defined(self, env_name, env):
    """Numba's ``set_env``, but for a link-only library's environment, which is in no module of
    the JIT engine (its address would be 0); the kernels use no environment."""
    if self._engine.get_global_value_address(env_name):
        _set_env(self, env_name, env)


_codegen.JITCPUCodegen.set_env = _set_env_where_defined


@register_pass(mutates_CFG=True, analysis_only=False)
class _LinkOnlyLowering(NativeLowering):
    """Numba's lowering, into a ``_LinkOnlyLibrary``."""

    _name = "unostats_link_only_lowering"

    def run_pass(self, state):
        state.library = _LinkOnlyLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


class _LinkOnlyPipeline(CompilerBase):
    """Numba's nopython pipeline, lowering into a ``_LinkOnlyLibrary``."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = [(_LinkOnlyLowering if p is NativeLowering else p, d) for p, d in pm.passes]
        pm.finalize()
        return [pm]


class _CacheLoadedAsIs(FunctionCache):
    """Numba's cache of compiled functions, loading an entry without first refreshing the
    target context. The refresh imports and registers every typing and lowering registry
    (two thirds of a warm start-up's first call), which only compiling needs, and compiling
    does it itself; loading machine code needs the code generator and the runtime."""

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)  # the compiled code calls the runtime's functions
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


def _plain(t):
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


def kernel(fn=None, *, inline=False, entry=False):
    """``njit`` (``forceinline`` when ``inline``), typed without literal values. Only an
    ``entry`` kernel can be called from Python: it gets Numba's CPython wrapper, releases the
    GIL and is cached; the others skip compiling a wrapper (a third of the first compile) and
    are linked into their callers' code (``_LinkOnlyLibrary``)."""
    def wrap(f):
        options = dict(cache=entry, forceinline=inline, nogil=entry, no_cpython_wrapper=not entry,
                       no_cfunc_wrapper=True)
        if not entry:
            options["pipeline_class"] = _LinkOnlyPipeline
        d = njit(**options)(f)
        if entry:
            d._cache = _CacheLoadedAsIs(d.py_func)
        get_call_template = d.get_call_template

        def plain_call_template(args, kws):
            return get_call_template(tuple(_plain(a) for a in args),
                                     {k: _plain(v) for k, v in kws.items()})

        d.get_call_template = plain_call_template
        return d
    return wrap(fn) if fn is not None else wrap


# The objects of the imports so far (numpy, Numba, pyarrow: about 55,000, nearly all alive until
# the process ends) go to the collector's permanent generation: no collection traverses them
# again, nor the interpreter's last one at exit, which otherwise took about a fifth of a cached
# start-up's CPU time (0.15-0.2 s of 0.9 s, measured).
gc.freeze()
