"""The compiled engine a run needs: which entry points its rules play, whether this machine has
them cached, and compiling them before the run (one small game each), timed for the next
estimate.

The game loop is compiled once per set of move hooks (engine/_turns.py: none, the end of every
move, that and the cards a move adds, all of them; a traced game plays the one with all): each
is an entry point of its own, compiled the first time a game needs it and cached. A run of the
official rules compiles one.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from ..rules import RuleSet
from ..seats import Seat
from . import _cache
from . import _layout as L
from . import _turns as T


def levels(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False) -> set[int]:
    """The hook levels (entry points) games of ``rule_sets`` play; all of them when None (rules
    not known ahead); the traced one too when ``traced``."""
    if rule_sets is None:
        return {T.NO_HOOKS, T.MOVE_END, T.MOVE_PLAYS, T.ALL_HOOKS}
    needed = {T.hook_level(L.options_record(rules)) for rules in rule_sets}
    return needed | {T.ALL_HOOKS} if traced else needed


def is_cached(rule_sets: Iterable[RuleSet] | None = None, *, traced: bool = False) -> bool:
    """Has this machine compiled and cached every entry point games of ``rule_sets`` need?"""
    return _cache.is_warm([T.entry_name(level) for level in levels(rule_sets, traced=traced)])


def compile_estimate() -> float | None:
    """Seconds the last cold compile took on this machine (None before the first)."""
    return _cache.compile_estimate()


def compile_for(rule_sets: Iterable[RuleSet] | None = None, *,
                traced: bool = False) -> float | None:
    """Compile (or load) the entry points games of ``rule_sets`` need, if any is not cached
    yet, and remember how long it took. Returns the seconds, or None when all were cached."""
    rule_sets = None if rule_sets is None else list(rule_sets)
    if is_cached(rule_sets, traced=traced):
        return None
    from .simulate import simulate_arrow, trace_game  # the engine's own API: plays one game

    start = time.perf_counter()
    todo = levels(rule_sets, traced=traced)
    by_level = {T.hook_level(L.options_record(r)): r for r in reversed(rule_sets or [])}
    if T.ALL_HOOKS in todo and T.ALL_HOOKS not in by_level:  # traced, or rules not known
        trace_game(rules=RuleSet.from_mapping({}), players=2, seats=Seat(), seed=0, game=0)
        todo.discard(T.ALL_HOOKS)
    for level in sorted(todo):
        rules = by_level.get(level) or _EXAMPLES[level]
        for _ in simulate_arrow(rules=rules, players=2, seats=Seat(), games=1, seed=0,
                                threads=1, ahead=False):
            pass
    seconds = time.perf_counter() - start
    _cache.record_compile_time(seconds)
    return seconds


# A rule set of each hook level, for the entry points of runs whose rules are not known ahead.
_EXAMPLES = {T.NO_HOOKS: RuleSet.from_mapping({"uno_penalty": 0}),
             T.MOVE_END: RuleSet.from_mapping({}),
             T.MOVE_PLAYS: RuleSet.from_mapping({"multi_play": "same_rank"})}
