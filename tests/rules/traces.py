"""Hand-written game traces for the referee's own tests, damaged on purpose, and the checks on them.

The games are written in the scripted cases' notation (``cases.written``: the deal, then the
events as tuples); ``find``, ``changed``, ``deleted``, ``inserted``, ``with_rules`` and
``with_policies`` damage a legal trace; ``broken`` asserts the referee rejects it, naming the
problem; ``the_round`` and ``numbers`` read what the referee computed.

The legal games at the end are damaged by the tests of several families.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from cases import ONE_OF_EACH, Round, deal_events, draws, game_rules, scores, written

from unostats import codes
from unostats.engine.referee import RefereeError, check_trace
from unostats.engine.simulate import Trace
from unostats.rules import RuleSet

# Damaging a valid trace.


def find(trace: Trace, kind: int, seat: int | None = None, a: int | None = None,
         nth: int = 0) -> int:
    """Row index of the ``nth`` event of ``kind`` (optionally by ``seat`` / with ``a``)."""
    hits = [i for i, (k, s, x, _) in enumerate(trace.events.tolist())
            if k == kind and seat in (None, s) and a in (None, x)]
    return hits[nth]


def with_policies(trace: Trace, *policies: str) -> Trace:
    """The trace with these seat policies (N2: the referee checks what a seat gives by them)."""
    assert len(policies) == trace.players, policies
    return dataclasses.replace(trace, policies=tuple(policies))


def with_events(trace: Trace, rows) -> Trace:
    return dataclasses.replace(trace, events=np.array(rows, dtype=np.int64).reshape(-1, 4))


def changed(trace: Trace, index: int, **fields: int) -> Trace:
    """The trace with some of (kind, seat, a, b) of one event replaced."""
    rows = trace.events.tolist()
    names = ("kind", "seat", "a", "b")
    rows[index] = [fields.get(name, value) for name, value in zip(names, rows[index])]
    return with_events(trace, rows)


def deleted(trace: Trace, index: int) -> Trace:
    rows = trace.events.tolist()
    del rows[index]
    return with_events(trace, rows)


def inserted(trace: Trace, index: int, kind: int, seat: int = -1, a: int = -1,
             b: int = -1) -> Trace:
    rows = trace.events.tolist()
    rows.insert(index, [kind, seat, a, b])
    return with_events(trace, rows)


# Checking with the referee.


def broken(trace: Trace, match: str) -> RefereeError:
    """The referee must reject ``trace`` with a message matching ``match``."""
    with pytest.raises(RefereeError, match=match) as caught:
        check_trace(trace)
    return caught.value


def the_round(trace: Trace):
    """The one round the referee computes for a one-round trace."""
    (r,) = check_trace(trace).rounds
    return r


def numbers(r, *names: str) -> tuple:
    return tuple(getattr(r, name) for name in names)


def counters(r) -> dict[str, int]:
    """Every counter of a RoundResult (codes.COUNTER_NAMES)."""
    return {name: getattr(r, name) for name in codes.COUNTER_NAMES}


# The counters of the number-card rules, slaps, silences and mistakes: 0 under the official rules.
NO_LATER_COUNTERS = dict(hand_swaps=0, card_swaps=0, slaps=0, silence_breaks=0, mistakes=0)


def with_rules(trace: Trace, **values) -> Trace:
    """The trace with some rules switched (not validated: the referee must refuse bad pairs)."""
    rules = RuleSet(values={**trace.rules.values, **values}, deck=trace.rules.deck)
    return dataclasses.replace(trace, rules=rules)


# Legal games that the tests of several families damage (hit_all: D4, with a hit+2).


def quick_win() -> Trace:
    """2 players, 2 cards each; seat 1 plays out in three turns."""
    return written(
        2, {1: ["R1", "R3"], 0: ["R2", "Y2"]},
        rules={"uno_penalty": 0, "target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R5"),
            ("turn", 1), ("play", 1, "R1"),
            ("turn", 0), ("play", 0, "R2"),
            ("turn", 1), ("play", 1, "R3"),
        ],
        ending=[("round_end", 1, "win", 2), *scores((2, 0), (0, 2))],
        game_end=("game_end", 1, "target"))


def action_cards() -> Trace:
    """3 players: first-card skip, reverse, draw two, wild, a bluffed +4 caught by a challenge,
    UNO call and a caught UNO miss, a normal draw played at once."""
    return written(
        3, {0: ["R+2", "+4", "G7"], 1: ["R-reverse", "wild", "G5"], 2: ["Y1", "B3", "Y4"]},
        dealer=2,
        rules={"uno_penalty": 2, "target_score": 1, "deck": {**ONE_OF_EACH, "wild_draw_four": 2}},
        table=[
            ("flip", "+4"), ("flip_return", "+4"), ("flip", "R-skip"), ("skip", 0),
            ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
            ("turn", 0), ("play", 0, "R+2"), *draws(2, ["B7", "Y8"], "draw_two"), ("skip", 2),
            ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"), ("uno_call", 1),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "green"), ("uno_miss", 0, 1),
            *draws(0, ["R9", "B9"], "uno"), ("challenge", 2, 0, "guilty"),
            *draws(0, ["R8", "Y9", "B8", "R7"], "challenge"),
            ("turn", 2), ("draw", 2, "G9", "normal"), ("play", 2, "G9"),
            ("turn", 1), ("play", 1, "G5"),
        ],
        ending=[("round_end", 1, "win", 80), *scores((57, 0), (0, 80), (23, 0))],
        game_end=("game_end", 1, "target"))


def capped_round_then_win() -> Trace:
    """A round that reaches max_turns, then a won round under the next dealer; the game is
    capped by max_rounds."""
    return written(
        2, {1: ["R1"], 0: ["Y1"]},
        rules={"max_turns": 10, "max_rounds": 2, "target_score": 1000, "deck": ONE_OF_EACH},
        table=[
            ("flip", "G5"),
            ("turn", 1), ("draw", 1, "R2", "normal"), ("pass", 1),
            ("turn", 0), ("draw", 0, "R3", "normal"), ("pass", 0),
            ("turn", 1), ("draw", 1, "R4", "normal"), ("pass", 1),
            ("turn", 0), ("draw", 0, "R6", "normal"), ("pass", 0),
            ("turn", 1), ("draw", 1, "R7", "normal"), ("pass", 1),
            ("turn", 0), ("draw", 0, "R8", "normal"), ("pass", 0),
            ("turn", 1), ("draw", 1, "R9", "normal"), ("pass", 1),
            ("turn", 0), ("draw", 0, "Y2", "normal"), ("pass", 0),
            ("turn", 1), ("draw", 1, "Y3", "normal"), ("pass", 1),
            ("turn", 0), ("draw", 0, "Y4", "normal"), ("pass", 0),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((24, 0), (26, 0))],
        later=[Round(1, deals=deal_events(2, 1, {0: ["B7"], 1: ["B8"]}),
                     table=[("flip", "B2"), ("turn", 0), ("play", 0, "B7")],
                     ending=[("round_end", 0, "win", 8), *scores((0, 8), (8, 0))])])


def hit_all() -> Trace:
    """Seat 0's hit+2: seats 1 and 2 draw 2 each, and seat 1 still takes its turn."""
    return written(
        3, {0: ["hit+2", "R1"], 1: ["Y2", "Y3"], 2: ["G4", "G6"]},
        dealer=2, rules=game_rules({"hit_all_two": 1}),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "hit+2"), ("colour", 0, "red"),
            *draws(1, ["B1", "B2"], "hit_all"), *draws(2, ["B3", "B4"], "hit_all"),
            ("turn", 1), ("draw", 1, "B5", "normal"), ("pass", 1),
            ("turn", 2), ("draw", 2, "B6", "normal"), ("pass", 2),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 36), *scores((0, 36), (13, 0), (23, 0))],
        game_end=("game_end", 0, "target"))
