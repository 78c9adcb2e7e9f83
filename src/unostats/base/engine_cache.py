"""Loading the engine before a run, or compiling it when this version has no cached machine code
yet (or the cache cannot be read), and the lines that say so on stderr (once per process); at
the first run, the process's objects so far are frozen (gc.freeze). The engine (and Numba with
it) is imported only when a run prepares it, so commands that only read the store (report,
query) start without it."""

from __future__ import annotations

import gc
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .progress import Progress
from .session import numba_module

if TYPE_CHECKING:
    from ..rules import RuleSet

_checked: set[int] = set()  # the entry points found or compiled (once per process)


def compile_message(estimate_s: float | None) -> str:
    """What a cold start says: the time the last compile took here, else a typical one."""
    took = (f"about {estimate_s:.0f} s last time" if estimate_s is not None
            else "about 15 s on 2 cores")
    return f"compiling the engine (once per unostats version and machine; {took})..."


def prepare_engine(progress: Progress | None, rule_sets: Iterable[RuleSet] | None = None, *,
                   traced: bool = False) -> float | None:
    """Load the engine's entry points that games of ``rule_sets`` need (None: rules not known
    ahead, every entry point; ``traced``: the one traced games play too), or compile them if
    one is not cached or its cache cannot be read (compiled.load), saying so first with the
    time the last compile took on this machine, and after with the time this one took.
    Returns the seconds it took, or None when nothing was compiled."""
    numba_module()  # $NUMBA_NUM_THREADS checked before the engine imports Numba
    from ..engine import compiled

    if not _checked:  # the process's first run
        # Its objects so far (numpy, Numba, pyarrow, DuckDB: nearly all alive until it ends)
        # out of the collector's reach: no collection traverses them again, nor the last one at
        # exit, a share of a short run's CPU time worth keeping (not done on importing the
        # engine: a process that only uses unostats' engine keeps its collector as it was).
        gc.freeze()
    rule_sets = None if rule_sets is None else list(rule_sets)
    levels = compiled.levels(rule_sets, traced=traced)
    if levels <= _checked or compiled.load(rule_sets, traced=traced):
        _checked.update(levels)
        return None
    if progress is not None:
        progress.log(compile_message(compiled.compile_estimate()))
    seconds = compiled.compile_for(rule_sets, traced=traced)
    _checked.update(levels)
    if progress is not None and seconds is not None:
        progress.log(f"engine compiled in {seconds:.1f} s")
    return seconds
