"""Shared helpers for the referee tests on hand-written traces (test_referee_variants.py,
test_referee_extras.py): a short-game builder, the one round the referee computes, a few of its
numbers, a trace the referee must reject, and a trace with some rules switched."""

from __future__ import annotations

import dataclasses

import pytest
from trace_builder import ONE_OF_EACH, TraceBuilder

from unostats.engine.referee import RefereeError, check_trace
from unostats.rules import RuleSet

# Short games: the first round decides the game.
GAME = {"uno_penalty": 0, "target_score": 1}


def builder(players: int, hand_size: int, deck=None, **rules) -> TraceBuilder:
    return TraceBuilder(players, hand_size=hand_size, deck={**ONE_OF_EACH, **(deck or {})},
                        **{**GAME, **rules})


def the_round(trace):
    (r,) = check_trace(trace).rounds
    return r


def numbers(r, *names):
    return tuple(getattr(r, name) for name in names)


def broken(trace, match):
    with pytest.raises(RefereeError, match=match) as caught:
        check_trace(trace)
    return caught.value


def with_rules(trace, **values):
    rules = RuleSet(values={**trace.rules.values, **values}, deck=trace.rules.deck)
    return dataclasses.replace(trace, rules=rules)
