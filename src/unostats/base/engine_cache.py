"""Loading the engine before a run, or compiling it when this version has no cached machine code
for this machine yet (or the cache cannot be read), and the lines that say so on stderr (once per
process): before a compile the cache's files foretell, after one they did not (Numba's count of
cache misses), so no compile goes unsaid and the run's clock starts after it; at
the first run, the process's objects so far are frozen (gc.freeze). The engine (and Numba with
it) is imported only when a run prepares it, so commands that only read the store (report,
query) start without it."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .progress import Progress
from .session import numba_module

if TYPE_CHECKING:
    from ..rules import RuleSet

# The entry points found or compiled (once per process): (hook level, counting or not).
_checked: set[tuple[int, bool]] = set()


def compile_message(estimate_s: float | None) -> str:
    """What a cold start says: the time the last compile took here, else a typical one."""
    took = (f"about {estimate_s:.0f} s last time" if estimate_s is not None
            else "about 15 s on 2 cores")
    return f"compiling the engine (once per unostats version and machine; {took})..."


def prepare_engine(progress: Progress | None, rule_sets: Iterable[RuleSet] | None = None, *,
                   traced: bool = False, how_it_plays: bool = False) -> float | None:
    """Load the engine's entry points that games of ``rule_sets`` need (None: rules not known
    ahead, every entry point; ``traced``: the one traced games play too; ``how_it_plays``: the
    ones that count how each round plays, instead of those that do not), or compile them if
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
    levels = {(level, how_it_plays) for level in compiled.levels(rule_sets, traced=traced)}
    if levels <= _checked:
        return None
    before, start = compiled.compiles(), time.perf_counter()
    if compiled.load(rule_sets, traced=traced, how_it_plays=how_it_plays):
        _checked.update(levels)
        if compiled.compiles() == before:
            return None
        seconds = time.perf_counter() - start  # Numba compiled all the same: said after it
        compiled.record_compile_time(seconds)
        if progress is not None:
            progress.log(f"engine compiled in {seconds:.1f} s: its cache in "
                         f"{compiled.cache_folder()} held no machine code Numba could load here")
        return seconds
    if progress is not None:
        progress.log(compile_message(compiled.compile_estimate()))
    seconds = compiled.compile_for(rule_sets, traced=traced, how_it_plays=how_it_plays)
    _checked.update(levels)
    if progress is not None and seconds is not None:
        progress.log(f"engine compiled in {seconds:.1f} s")
    return seconds
