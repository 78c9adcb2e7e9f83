"""The one decorator of every kernel: ``kernel`` compiles with Numba, once per argument layout,
and caches the result where a change to any engine source cannot leave it stale (_cache.py).

``@kernel`` is ``njit(cache=True)``; ``@kernel(inline=True)`` adds ``forceinline=True`` for small
helpers of the turn loop (LLVM inlines them after Numba compiled each once; Numba's own IR
inlining, ``inline="always"``, copies a helper into every caller and made the first compile take
minutes). A kernel called by another kernel is typed on its arguments' plain types: constants
(``draw(st, s, 4, ...)``) and small integers (card types read from the uint8 piles) would
otherwise each compile a specialisation of their own (``Literal[int](4)``, ``uint8``), and a
first compile of the engine did five copies of the effect of a move.
"""

import numba
from numba import njit, types

from ._cache import cache_dir

# Every kernel caches its machine code under a directory keyed on all the engine's sources
# (_cache.py), set before the first ``@kernel`` below is applied.
numba.config.CACHE_DIR = str(cache_dir())


def _plain(t):
    t = types.unliteral(t)
    if isinstance(t, types.Integer) and t.bitwidth < 64:
        return types.int64
    return t


def kernel(fn=None, *, inline=False, entry=False):
    """``njit(cache=True)`` (``forceinline`` when ``inline``), typed without literal values.
    Only an ``entry`` kernel can be called from Python: it gets Numba's CPython wrapper and
    releases the GIL; the others skip compiling a wrapper (a third of the first compile)."""
    def wrap(f):
        d = njit(cache=True, forceinline=inline, nogil=entry, no_cpython_wrapper=not entry,
                 no_cfunc_wrapper=True)(f)
        get_call_template = d.get_call_template

        def plain_call_template(args, kws):
            return get_call_template(tuple(_plain(a) for a in args),
                                     {k: _plain(v) for k, v in kws.items()})

        d.get_call_template = plain_call_template
        return d
    return wrap(fn) if fn is not None else wrap
