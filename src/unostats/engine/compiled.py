"""The compiled engine a run needs: which entry points its rules play, whether this machine has
them cached, and compiling them before the run (one small game each), timed for the next
estimate, or loading them, where a cache file Numba cannot read is removed and compiled afresh.

The game loop is compiled once per set of move hooks (engine/_turns.py: none, the end of every
move, that and the cards a move adds, all of them; a traced game plays the one with all), and
once more for each that counts how its rounds play (``how_it_plays``): each is an entry point of
its own, compiled the first time a game needs it and cached. A run of the official rules that
does not count compiles one, and none of the loops that count.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import numpy as np

from ..rules import RuleSet
from ..seats import Seat
from . import _cache, _jit
from . import _columns as C
from . import _layout as L
from . import _totals as TOT
from . import _turns as T

log = logging.getLogger("unostats.engine")


def levels(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False) -> set[int]:
    """The hook levels (entry points) games of ``rule_sets`` play; all of them when None (rules
    not known ahead); the traced one too when ``traced``."""
    if rule_sets is None:
        return {T.NO_HOOKS, T.MOVE_END, T.MOVE_PLAYS, T.ALL_HOOKS}
    needed = {T.hook_level(L.options_record(rules)) for rules in rule_sets}
    return needed | {T.ALL_HOOKS} if traced else needed


def is_cached(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False,
              how_it_plays: bool = False) -> bool:
    """Will every entry point games of ``rule_sets`` need (counting how each round plays when
    ``how_it_plays``) load from the cache on this machine, none compiling
    (``_jit.cached_here``)? An index Numba cannot read is removed (said on the
    ``unostats.engine`` logger) and counts as not cached."""
    return all([_cached_here(d) for d in _entries(rule_sets, traced=traced,
                                                  how_it_plays=how_it_plays)])


def compiles() -> int:
    """How many times the engine's entry points compiled in this process (cache misses): a
    compile the cache's files did not foretell shows here after the fact."""
    return sum(_jit.compiles(d) for d in (*T._ENTRIES, *T._COUNTING_ENTRIES, C.narrow,
                                         TOT.add_rounds))


def _game_loops(how_it_plays: bool) -> tuple:
    """The game loops by hook level: counting how each round plays, or not."""
    return T._COUNTING_ENTRIES if how_it_plays else T._ENTRIES


def _entries(rule_sets: Iterable[RuleSet] | None, *, traced: bool, how_it_plays: bool) -> list:
    """The entry points games of ``rule_sets`` call: the game loop of each hook level they
    play (counting or not), the narrowing of their rows into columns and the games' totals
    (a run that keeps games or summary)."""
    loops = _game_loops(how_it_plays)
    return [loops[level] for level in sorted(levels(rule_sets, traced=traced))] + [
        C.narrow, TOT.add_rounds]


def _name(d) -> str:
    """An entry point's name as its cache files begin: ``_turns.play_games_without_hooks``."""
    return f"{d.py_func.__module__.rpartition('.')[2]}.{d.py_func.__qualname__}"


def _cached_here(d) -> bool:
    try:
        return _jit.cached_here(d)
    except Exception as e:  # noqa: BLE001 - Numba raises whatever unpickling a bad file raises
        _discard(d, e)
        return False


def _discard(d, e: Exception) -> None:
    folder = _cache.discard(_name(d))
    log.warning("the engine's cache in %s could not be read (%s: %s); its files of %s were "
                "removed and it compiles afresh", folder, type(e).__name__, e, _name(d))


def compile_estimate() -> float | None:
    """Seconds the last cold compile took on this machine (None before the first)."""
    return _cache.compile_estimate()


def record_compile_time(seconds: float) -> None:
    """Remember a compile's seconds for the next estimate."""
    _cache.record_compile_time(seconds)


def cache_folder():
    """The folder of this engine's cached machine code."""
    return _cache.cache_dir()


def compile_for(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False,
                how_it_plays: bool = False) -> float | None:
    """Compile (or load) the entry points games of ``rule_sets`` need (counting how each round
    plays when ``how_it_plays``), if any is not cached yet, and remember how long it took.
    Returns the seconds, or None when all were cached."""
    rule_sets = None if rule_sets is None else list(rule_sets)
    if is_cached(rule_sets, traced=traced, how_it_plays=how_it_plays):
        return None
    start = time.perf_counter()
    for level in sorted(levels(rule_sets, traced=traced)):
        _play(level, rule_sets, how_it_plays)
    _add_no_rounds()
    seconds = time.perf_counter() - start
    _cache.record_compile_time(seconds)
    return seconds


def load(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False,
         how_it_plays: bool = False) -> bool:
    """Load the cached entry points games of ``rule_sets`` need (counting how each round plays
    when ``how_it_plays``). False when one is not cached here, or its cache files cannot be
    read: those are removed (said on the ``unostats.engine`` logger, once: the next
    ``compile_for`` compiles and caches the entry point afresh)."""
    rule_sets = None if rule_sets is None else list(rule_sets)
    if not is_cached(rule_sets, traced=traced, how_it_plays=how_it_plays):
        return False
    loaded = True
    for level in sorted(levels(rule_sets, traced=traced)):
        try:
            _play(level, rule_sets, how_it_plays)
        except Exception as e:  # noqa: BLE001 - Numba raises whatever unpickling a bad file raises
            _discard(_game_loops(how_it_plays)[level], e)
            loaded = False
    try:
        _add_no_rounds()
    except Exception as e:  # noqa: BLE001 - as above
        _discard(TOT.add_rounds, e)
        loaded = False
    return loaded


def _play(level: int, rule_sets: list[RuleSet] | None, how_it_plays: bool) -> None:
    """One small game on the entry point of ``level``, counting or not (Numba loads it from
    the cache, or compiles and caches it): of the first of ``rule_sets`` that plays it, else of
    an example; with every hook, a traced game when no rule set needs them all."""
    from .simulate import simulate_arrow, trace_game  # the engine's own API: plays one game

    rules = next((r for r in rule_sets or [] if T.hook_level(L.options_record(r)) == level),
                 None)
    if rules is None and level == T.ALL_HOOKS:  # traced, or rules not known
        trace_game(rules=RuleSet.from_mapping({}), players=2, seats=Seat(), seed=0, game=0,
                   how_it_plays=how_it_plays)
        return
    for _ in simulate_arrow(rules=rules or _EXAMPLES[level], players=2, seats=Seat(), games=1,
                            seed=0, threads=1, ahead=False, how_it_plays=how_it_plays):
        pass


def _add_no_rounds() -> None:
    """The games' totals of no round (Numba loads the pass from the cache, or compiles it)."""
    TOT.add_rounds(np.zeros((0, L.N_RO), np.int64), np.zeros((0, 2, L.N_RS), np.int64),
                   np.zeros((0, L.N_GO), np.int64), 0, 1, np.zeros((0, len(TOT.COLUMNS))))


# A rule set of each hook level, for the entry points of runs whose rules are not known ahead.
_EXAMPLES = {T.NO_HOOKS: RuleSet.from_mapping({"uno_penalty": 0}),
             T.MOVE_END: RuleSet.from_mapping({}),
             T.MOVE_PLAYS: RuleSet.from_mapping({"multi_play": "same_rank"})}
