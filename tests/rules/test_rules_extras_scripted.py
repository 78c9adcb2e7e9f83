"""Scripted rule tests for the rules of issue 5 (docs/engine.md "Number-card rules, deck extras,
scoring and round modes").

Each case deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal``, every behaviour probability 0 or 1) and lists the exact events
docs/engine.md prescribes, round by round, with its ending and the game's end. Every option is
played on and off (or with each of its values) on the same deal.

Two tests run every case:

- ``test_engine_plays_the_case``: the kernel plays it; its trace must be the expected events,
  event for event, and pass the referee.
- ``test_the_expected_events_pass_the_referee``: the expected events, turned into a trace, pass
  the referee, with the numbers the case asserts. So the expectations and the referee agree
  independently of the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from cases import (
    BASE_RULES,
    deck_order,
    draws,
    encode,
    play,
    scores,
    seat_all,
)
from traces import rule_set

from unostats import cards, codes
from unostats import rules as rules_mod
from unostats.engine.referee import GameResult, check_trace
from unostats.engine.simulate import Trace

CAP = ("game_end", -1, "cap")


@dataclass(frozen=True)
class Case:
    """A scripted game: the deal of every round comes from the same deck order (hands dealt by
    the first dealer, then ``flip``, then ``draws``); ``rounds`` lists each round's dealer, its
    table events (from the flip to round_end) and its ending (round_end and the scores)."""

    id: str
    rules: dict
    players: int
    hands: dict
    flip: str
    draws: tuple = ()
    rounds: tuple = ()  # of (dealer, table events, ending events)
    game_end: tuple = CAP
    seats: dict = field(default_factory=dict)  # seat -> behaviour overrides (and "policy")
    check: Callable[[GameResult], None] | None = None

    def seat_list(self):
        out = []
        for s in range(self.players):
            spec = dict(self.seats.get(s, {}))
            out.append(seat_all(spec.pop("policy", "first_legal"), **spec))
        return out


def one_round(table, ending, dealer: int = 0) -> tuple:
    return ((dealer, [*table], [*ending]),)


CASES: list[Case] = []


def case(**kw) -> Case:
    c = Case(**kw)
    CASES.append(c)
    return c


# ---------------------------------------------------------------- N1 seven_zero

# Seat 1's R7 swaps hands with seat 2 (seats 2 and 0 hold two cards each: the first in playing
# order); seat 1 then holds seat 2's R1 and R2 and goes out. Off, seat 2 goes out first.
SEVEN = dict(players=3, hands={1: ["R7", "B9"], 2: ["R1", "R2"], 0: ["G3", "G4"]}, flip="R5",
             draws=("B8", "G8", "B7", "Y6"))
case(id="seven_zero-7-on", rules={"seven_zero": True}, **SEVEN, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R7"), ("swap_hands", 1, 2),
    ("turn", 2), ("draw", 2, "B8", "normal"), ("pass", 2),
    ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R1"),
    ("turn", 2), ("draw", 2, "B7", "normal"), ("pass", 2),
    ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R2"),
], [("round_end", 1, "win", 45), *scores((21, 0), (0, 45), (24, 0))]),
    check=lambda r: r.rounds[0].hand_swaps == 1 or pytest.fail("hand_swaps"))
case(id="seven_zero-7-off", rules={"seven_zero": False}, **SEVEN, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R7"),
    ("turn", 2), ("play", 2, "R1"),
    ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
    ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
    ("turn", 2), ("play", 2, "R2"),
], [("round_end", 2, "win", 32), *scores((15, 0), (17, 0), (0, 32))]))

# Seat 1's R0 passes every hand on clockwise: seat 2 receives R1 and goes out with it.
ZERO = dict(players=3, hands={1: ["R0", "R1"], 2: ["Y2", "Y3"], 0: ["B4", "B6"]}, flip="R5",
            draws=("G7", "G8"))
case(id="seven_zero-0-on", rules={"seven_zero": True}, **ZERO, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R0"), ("pass_hands", 1, 1),
    ("turn", 2), ("play", 2, "R1"),
], [("round_end", 2, "win", 15), *scores((5, 0), (10, 0), (0, 15))]))
case(id="seven_zero-0-off", rules={"seven_zero": False}, **ZERO, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R0"),
    ("turn", 2), ("draw", 2, "G7", "normal"), ("pass", 2),
    ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R1"),
], [("round_end", 1, "win", 30), *scores((18, 0), (0, 30), (12, 0))]))

# ---------------------------------------------------------------- N2 five_swap

# Seat 1 gives G9 (its only number card), seat 0 gives B8 (its number worth the most).
FIVE = dict(players=2, hands={1: ["R5", "+4", "G9"], 0: ["Y1", "Y2", "B8"]}, flip="R3",
            draws=("R6", "B1", "B2", "B3", "B4"))
case(id="five_swap-on", rules={"five_swap": True}, **FIVE, rounds=one_round([
    ("flip", "R3"),
    ("turn", 1), ("play", 1, "R5"), ("give", 1, "G9", 0), ("give", 0, "B8", 1),
    ("turn", 0), ("draw", 0, "R6", "normal"), ("play", 0, "R6"),
    ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
    *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
    ("turn", 1), ("play", 1, "B8"),
], [("round_end", 1, "win", 22), *scores((22, 0), (0, 22))]),
    check=lambda r: r.rounds[0].card_swaps == 1 or pytest.fail("card_swaps"))
case(id="five_swap-off", rules={"five_swap": False}, **FIVE, rounds=one_round([
    ("flip", "R3"),
    ("turn", 1), ("play", 1, "R5"),
    ("turn", 0), ("draw", 0, "R6", "normal"), ("play", 0, "R6"),
    ("turn", 1), ("play", 1, "+4"), ("colour", 1, "green"),
    *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
    ("turn", 1), ("play", 1, "G9"),
], [("round_end", 1, "win", 21), *scores((21, 0), (0, 21))]))

# ---------------------------------------------------------------- N4 zero_slap, uno_slap

# Two players: the other seat is the slowest for certain.
SLAP = dict(players=2, hands={1: ["R0", "R1"], 0: ["Y2", "Y3"]}, flip="R5",
            draws=("B1", "B2", "B3", "B4", "G6"))
case(id="zero_slap-4", rules={"zero_slap": 4}, **SLAP, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R0"), ("slap", 0, 1, "zero"),
    *draws(0, ["B1", "B2", "B3", "B4"], "slap"),
    ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R1"),
], [("round_end", 1, "win", 21), *scores((21, 0), (0, 21))]),
    check=lambda r: r.rounds[0].slaps == 1 or pytest.fail("slaps"))
case(id="zero_slap-0", rules={"zero_slap": 0}, **SLAP, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R0"),
    ("turn", 0), ("draw", 0, "B1", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R1"),
], [("round_end", 1, "win", 6), *scores((6, 0), (0, 6))]))

UNO_SLAP = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
                draws=("G3", "G4", "G6"))
case(id="uno_slap-2", rules={"uno_penalty": 2, "uno_slap": 2}, **UNO_SLAP, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R1"), ("uno_call", 1), ("slap", 0, 1, "uno"),
    *draws(0, ["G3", "G4"], "slap"),
    ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R2"),
], [("round_end", 1, "win", 20), *scores((20, 0), (0, 20))]))
case(id="uno_slap-0", rules={"uno_penalty": 2, "uno_slap": 0}, **UNO_SLAP, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R1"), ("uno_call", 1),
    ("turn", 0), ("draw", 0, "G3", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R2"),
], [("round_end", 1, "win", 10), *scores((10, 0), (0, 10))]))

# ---------------------------------------------------------------- N5 silence

# Seat 0 always breaks a silence (silence_break 1); the others never do. In seat 2's turn the
# seats are asked from seat 2: seat 2 keeps quiet, seat 0 breaks it and draws the penalty.
BREAKER = {0: {"silence_break": 1.0}}


def silence_case(rule: str, card: str, colour: str | None, hands: dict, drawn: list[str],
                 winner_points: int, quiet_points: int):
    flip = "R5"
    first = [("turn", 1), ("play", 1, card), *([("colour", 1, colour)] if colour else [])]
    rest = [("turn", 2), ("play", 2, hands[2][0]),
            ("turn", 0), ("play", 0, hands[0][0]),
            ("turn", 1), ("play", 1, hands[1][1])]
    broken = [("turn", 2), ("silence_break", 0, len(drawn)), *draws(0, drawn, "silence"),
              *rest[1:]]
    others = sum(int(n[1]) for n in (hands[2][1], hands[0][1]))
    case(id=f"silence-{rule}", rules={"silence": rule}, players=3, hands=hands, flip=flip,
         draws=tuple(drawn), seats=BREAKER, rounds=one_round(
             [("flip", flip), *first, *broken],
             [("round_end", 1, "win", winner_points),
              *scores((winner_points - int(hands[2][1][1]), 0), (0, winner_points),
                      (int(hands[2][1][1]), 0))]),
         check=lambda r: r.rounds[0].silence_breaks == 1 or pytest.fail("silence_breaks"))
    case(id=f"silence-none-{card}", rules={"silence": "none"}, players=3, hands=hands,
         flip=flip, draws=tuple(drawn), seats=BREAKER, rounds=one_round(
             [("flip", flip), *first, *rest],
             [("round_end", 1, "win", others),
              *scores((int(hands[0][1][1]), 0), (0, others), (int(hands[2][1][1]), 0))]))
    assert others == quiet_points


# A 7 (UNO-Extreme): 4 cards. The silence is over (broken) when seat 1's turn comes back.
silence_case("seven", "R7", None, {1: ["R7", "B4"], 2: ["R3", "Y1"], 0: ["R4", "G2"]},
             ["G6", "G7", "G8", "G9"], 33, 3)
# A 2 (HOUSE "Silent Two's"): 2 cards.
silence_case("two", "R2", None, {1: ["R2", "B4"], 2: ["R3", "Y1"], 0: ["R4", "G8"]},
             ["G6", "G7"], 22, 9)
# A black card (HOUSE): 2 cards; seat 2's B3 keeps the colour named (blue), so it holds.
silence_case("black", "wild", "blue", {1: ["wild", "B4"], 2: ["B3", "Y1"], 0: ["B7", "G8"]},
             ["G6", "G7"], 22, 9)

# ---------------------------------------------------------------- N6 eight_cover

# Seat 1 covers its R8 with R9 from its hand, in the same turn.
EIGHT = dict(players=2, hands={1: ["R8", "R9", "G9"], 0: ["Y3", "Y4", "B5"]}, flip="R5",
             draws=("Y9",))
case(id="eight_cover-on", rules={"eight_cover": True}, **EIGHT, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R8"), ("play", 1, "R9"),
    ("turn", 0), ("draw", 0, "Y9", "normal"), ("play", 0, "Y9"),
    ("turn", 1), ("play", 1, "G9"),
], [("round_end", 1, "win", 12), *scores((12, 0), (0, 12))]))
case(id="eight_cover-off", rules={"eight_cover": False}, **EIGHT, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R8"),
    ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R9"),
    ("turn", 0), ("play", 0, "Y9"),
    ("turn", 1), ("play", 1, "G9"),
], [("round_end", 1, "win", 12), *scores((12, 0), (0, 12))]))

# R8 is seat 1's last card: it may not go out on it, and draws until it can cover (Y2, R4).
LAST_EIGHT = dict(players=2, hands={1: ["R1", "R8"], 0: ["Y5", "Y6"]}, flip="R3",
                  draws=("B7", "Y2", "R4", "Y4"))
case(id="eight_cover-last-card-on", rules={"eight_cover": True}, **LAST_EIGHT, rounds=one_round([
    ("flip", "R3"),
    ("turn", 1), ("play", 1, "R1"),
    ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R8"), *draws(1, ["Y2", "R4"], "cover"), ("play", 1, "R4"),
    ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
    ("turn", 1), ("play", 1, "Y2"),
], [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))]),
    check=lambda r: r.rounds[0].normal_draws == 4 or pytest.fail("normal_draws"))
case(id="eight_cover-last-card-off", rules={"eight_cover": False}, **LAST_EIGHT,
     rounds=one_round([
         ("flip", "R3"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R8"),
     ], [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))]))

# Seat 0, due to act next, jumps in on seat 1's R8: the duty to cover is seat 0's now.
case(id="eight_cover-jump-in", rules={"eight_cover": True, "jump_in": "numbers"}, players=2,
     hands={1: ["R8", "G1"], 0: ["R8", "R4"]}, flip="R5", seats={0: {"jump_in": 1.0}},
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R8"), ("jump_in", 0, "R8"), ("play", 0, "R4"),
     ], [("round_end", 0, "win", 1), *scores((0, 1), (1, 0))]))

# ---------------------------------------------------------------- U1 uno_penalty

# Seat 1 always forgets to call, seat 0 always catches it (and calls its own UNO).
UNO = dict(players=2, hands={1: ["R1", "R2"], 0: ["R3", "Y2"]}, flip="R5",
           draws=("B4", "B6", "B7", "B8"),
           seats={1: {"forget_uno": 1.0}, 0: {"catch_uno": 1.0}})
for penalty, drawn in ((2, ["B4", "B6"]), (4, ["B4", "B6", "B7", "B8"])):
    points = sum(int(n[1]) for n in drawn)
    case(id=f"uno_penalty-{penalty}", rules={"uno_penalty": penalty}, **UNO, rounds=one_round([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R1"), ("uno_miss", 1, 0), *draws(1, drawn, "uno"),
        ("turn", 0), ("play", 0, "R3"), ("uno_call", 0),
        ("turn", 1), ("play", 1, "R2"),
        ("turn", 0), ("play", 0, "Y2"),
    ], [("round_end", 0, "win", points), *scores((0, points), (points, 0))]))
case(id="uno_penalty-0", rules={"uno_penalty": 0}, **UNO, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R1"),
    ("turn", 0), ("play", 0, "R3"),
    ("turn", 1), ("play", 1, "R2"),
], [("round_end", 1, "win", 2), *scores((2, 0), (0, 2))]))

# ---------------------------------------------------------------- U2 mistake_penalty

# Seat 0 errs in every turn (mistake 1): it draws the penalty first, then takes its turn.
MISTAKE = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
               seats={0: {"mistake": 1.0}})
case(id="mistake_penalty-1", rules={"mistake_penalty": 1}, **MISTAKE, draws=("B6", "G7"),
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("mistake", 0, 1), ("draw", 0, "B6", "mistake"),
         ("draw", 0, "G7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ], [("round_end", 1, "win", 20), *scores((20, 0), (0, 20))]),
     check=lambda r: r.rounds[0].mistakes == 1 or pytest.fail("mistakes"))
case(id="mistake_penalty-2", rules={"mistake_penalty": 2}, **MISTAKE, draws=("B6", "B7", "G8"),
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("mistake", 0, 2), *draws(0, ["B6", "B7"], "mistake"),
         ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ], [("round_end", 1, "win", 28), *scores((28, 0), (0, 28))]))
case(id="mistake_penalty-0", rules={"mistake_penalty": 0}, **MISTAKE, draws=("B6", "G7"),
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ], [("round_end", 1, "win", 13), *scores((13, 0), (0, 13))]))

# ---------------------------------------------------------------- R7 lone zero, R3-R5, R8

# Seat 0 is left holding Y0 alone.
LONE = dict(players=2, hands={1: ["R3", "G3"], 0: ["Y3", "Y0"]}, flip="R5")
LONE_TABLE = [("flip", "R5"), ("turn", 1), ("play", 1, "R3"), ("turn", 0), ("play", 0, "Y3"),
              ("turn", 1), ("play", 1, "G3")]
for value in (0, 50, 100):
    case(id=f"lone_zero_value-{value}", rules={"lone_zero_value": value}, **LONE,
         rounds=one_round(LONE_TABLE, [("round_end", 1, "win", value),
                                       *scores((value, 0), (0, value))]))


def _losers(expected):
    def check(result: GameResult):
        assert result.losers == expected, result.losers
    return check


for scoring in ("own_points_low_wins", "own_points_lose_at"):
    # Every seat adds its own hand: seat 0 reaches the target; the lowest total, seat 1, wins.
    case(id=f"scoring-{scoring}", rules={"scoring": scoring, "lone_zero_value": 100,
                                         "target_score": 100}, **LONE,
         rounds=one_round(LONE_TABLE, [("round_end", 1, "win", 100),
                                       *scores((100, 100), (0, 0))]),
         game_end=("game_end", 1, "target"), check=_losers((0,)))
case(id="scoring-card_count", rules={"scoring": "card_count", "target_score": 1}, **LONE,
     rounds=one_round(LONE_TABLE, [("round_end", 1, "win", 1), *scores((0, 0), (0, 1))]),
     game_end=("game_end", 1, "target"), check=_losers((0,)))
case(id="scoring-winner_takes_all", rules={"scoring": "winner_takes_all", "target_score": 1,
                                           "lone_zero_value": 50},
     **LONE, rounds=one_round(LONE_TABLE, [("round_end", 1, "win", 50),
                                           *scores((50, 0), (0, 50))]),
     game_end=("game_end", 1, "target"), check=_losers((0,)))

# R8: seat 1 goes out with a hit+1 (the last-card draw still happens) and takes 20 off.
H2O = dict(players=2, hands={1: ["R1", "hit+1"], 0: ["Y2", "Y3"]}, flip="R5",
           draws=("G4", "B5"))
H2O_TABLE = [("flip", "R5"), ("turn", 1), ("play", 1, "R1"),
             ("turn", 0), ("draw", 0, "G4", "normal"), ("pass", 0),
             ("turn", 1), ("play", 1, "hit+1"), ("colour", 1, "red"),
             ("draw", 0, "B5", "hit_all")]
for bonus in (True, False):
    case(id=f"h2o_bonus-{str(bonus).lower()}",
         rules={"h2o_bonus": bonus, "scoring": "own_points_lose_at",
                "deck": {"hit_all_one": 1}}, **H2O,
         rounds=one_round(H2O_TABLE, [("round_end", 1, "win", 14 - 20 * bonus),
                                      *scores((14, 14), (0, -20 * bonus))]))

# ---------------------------------------------------------------- R6 lazy

# Round 1: seat 1 wins, seat 2 (Y9) loses. Lazy: seat 2 deals round 2 and seat 1 plays first;
# the same deck order deals R1 to seat 0 this time, which goes out. Rotation instead: seat 1
# deals, seat 2 plays first and goes out with R1.
LAZY = dict(players=3, hands={1: ["R1"], 2: ["Y9"], 0: ["G2"]}, flip="R5", draws=("B3", "B4"))
ROUND_1 = [("flip", "R5"), ("turn", 1), ("play", 1, "R1")]
case(id="scoring-lazy", rules={"scoring": "lazy", "target_score": 5, "max_rounds": 2}, **LAZY,
     rounds=(
         (0, ROUND_1, [("round_end", 1, "win", 1), *scores((2, 0), (0, 1), (9, 0))]),
         (2, [("flip", "R5"),
              ("turn", 1), ("draw", 1, "B3", "normal"), ("pass", 1),
              ("turn", 2), ("draw", 2, "B4", "normal"), ("pass", 2),
              ("turn", 0), ("play", 0, "R1")],
          [("round_end", 0, "win", 1), *scores((0, 1), (12, 1), (6, 0))]),
     ), check=lambda r: [x.loser_seat for x in r.rounds] == [2, 1] or pytest.fail("losers"))
case(id="scoring-lazy-off", rules={"scoring": "winner_takes_all", "max_rounds": 2}, **LAZY,
     rounds=(
         (0, ROUND_1, [("round_end", 1, "win", 11), *scores((2, 0), (0, 11), (9, 0))]),
         (1, [("flip", "R5"), ("turn", 2), ("play", 2, "R1")],
          [("round_end", 2, "win", 11), *scores((9, 0), (2, 11), (0, 11))]),
     ))

# ---------------------------------------------------------------- R9 to_the_last, R10

LAST = dict(players=3, hands={1: ["R1"], 2: ["R2"], 0: ["Y3"]}, flip="R5")
case(id="round_end-to_the_last", rules={"round_end": "to_the_last"}, **LAST, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R1"), ("finish", 1, 1),
    ("turn", 2), ("play", 2, "R2"), ("finish", 2, 2),
], [("round_end", 1, "win", 3), *scores((3, 0), (0, 3), (0, 0))]),
    check=lambda r: r.rounds[0].finish_order == (1, 2, 0) or pytest.fail("finish_order"))
case(id="round_end-first_out", rules={"round_end": "first_out"}, **LAST, rounds=one_round([
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R1"),
], [("round_end", 1, "win", 5), *scores((3, 0), (0, 5), (2, 0))]))

# Seat 0 finishes with R-skip: the card still skips seat 1 (first_out: the round ends at once).
LAST_SKIP = dict(players=3, hands={0: ["R-skip"], 1: ["Y2"], 2: ["R3"]}, flip="R5")
case(id="round_end-to_the_last-finishing-skip", rules={"round_end": "to_the_last"}, **LAST_SKIP,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 0), ("play", 0, "R-skip"), ("finish", 0, 1), ("skip", 1),
         ("turn", 2), ("play", 2, "R3"), ("finish", 2, 2),
     ], [("round_end", 0, "win", 2), *scores((0, 2), (2, 0), (0, 0))], dealer=2),
     check=lambda r: (r.rounds[0].finish_order, r.rounds[0].loser_seat) == ((0, 2, 1), 1)
     or pytest.fail("finish_order"))
case(id="round_end-first_out-finishing-skip", rules={"round_end": "first_out"}, **LAST_SKIP,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 0), ("play", 0, "R-skip"),
     ], [("round_end", 0, "win", 5), *scores((0, 5), (2, 0), (3, 0))], dealer=2))

# The R+2 turned up makes seat 0 draw 2; seat 1 finishes with R-reverse, and with two seats
# left in the round the Reverse skips seat 2 (A1), so seat 0 plays on to finish second.
LAST_REVERSE = dict(players=3, hands={0: ["R1"], 1: ["R-reverse"], 2: ["Y2"]}, flip="R+2",
                    draws=("B1", "B2", "Y3", "Y4"))
case(id="round_end-to_the_last-two-left-reverse", rules={"round_end": "to_the_last"},
     **LAST_REVERSE, rounds=one_round([
         ("flip", "R+2"), *draws(0, ["B1", "B2"], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "R-reverse"), ("finish", 1, 1), ("skip", 2),
         ("turn", 0), ("play", 0, "R1"),
         ("turn", 2), ("draw", 2, "Y3", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "B1"),
         ("turn", 2), ("draw", 2, "Y4", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "B2"), ("finish", 0, 2),
     ], [("round_end", 1, "win", 9), *scores((0, 0), (0, 9), (9, 0))], dealer=2),
     check=lambda r: (r.rounds[0].finish_order, r.rounds[0].direction_changes) == ((1, 0, 2), 0)
     or pytest.fail("finish_order"))
case(id="round_end-first_out-two-left-reverse", rules={"round_end": "first_out"},
     **LAST_REVERSE, rounds=one_round([
         ("flip", "R+2"), *draws(0, ["B1", "B2"], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "R-reverse"),
     ], [("round_end", 1, "win", 6), *scores((4, 0), (0, 6), (2, 0))], dealer=2))

# Under to_the_last seat 1 finishes with R0 (N1): the two seats left pass their hands on, and
# seat 2 finishes with seat 0's R3; off, seat 2 has to draw and seat 0 finishes second.
LAST_ZERO = dict(players=3, hands={1: ["R0"], 2: ["Y2"], 0: ["R3"]}, flip="R5", draws=("B7",))
case(id="seven_zero-to_the_last-finishing-0-on", rules={"round_end": "to_the_last",
                                                        "seven_zero": True}, **LAST_ZERO,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("finish", 1, 1), ("pass_hands", 1, 1),
         ("turn", 2), ("play", 2, "R3"), ("finish", 2, 2),
     ], [("round_end", 1, "win", 2), *scores((2, 0), (0, 2), (0, 0))]),
     check=lambda r: r.rounds[0].finish_order == (1, 2, 0) or pytest.fail("finish_order"))
case(id="seven_zero-to_the_last-finishing-0-off", rules={"round_end": "to_the_last",
                                                         "seven_zero": False}, **LAST_ZERO,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("finish", 1, 1),
         ("turn", 2), ("draw", 2, "B7", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R3"), ("finish", 0, 2),
     ], [("round_end", 1, "win", 9), *scores((0, 0), (0, 9), (9, 0))]),
     check=lambda r: r.rounds[0].finish_order == (1, 0, 2) or pytest.fail("finish_order"))

SEVEN_ROUNDS = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
                    draws=("G6", "R7", "G8"))
case(id="round_end-seven_rounds", rules={"round_end": "seven_rounds"}, **SEVEN_ROUNDS,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"), ("new_hand", 1, 1, 1), ("draw", 1, "R7", "refill"),
         ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R7"),
     ], [("round_end", 1, "win", 21), *scores((21, 0), (0, 21))]),
     check=lambda r: r.rounds[0].hands_emptied == (0, 2) or pytest.fail("hands_emptied"))
case(id="round_end-first_out-two-cards", rules={"round_end": "first_out"}, **SEVEN_ROUNDS,
     rounds=one_round([
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ], [("round_end", 1, "win", 13), *scores((13, 0), (0, 13))]))


# ---------------------------------------------------------------- the two tests


def expected_trace(c: Case) -> Trace:
    """The case's expected events as a trace (rules by trace_builder.rule_set)."""
    rules = {**BASE_RULES, "hand_size": len(next(iter(c.hands.values()))), **c.rules}
    ruleset = rule_set(**rules)
    first_dealer = c.rounds[0][0]
    order = deck_order(c.players, first_dealer, c.hands, c.flip, c.draws)
    dealt = order[:c.players * rules["hand_size"]]
    rows = []
    for number, (dealer, table, ending) in enumerate(c.rounds, 1):
        rows.append((codes.EV_ROUND_START, dealer, number, -1))
        for i, name in enumerate(dealt):
            rows.append(encode(("deal", (dealer + 1 + i % c.players) % c.players, name)))
        rows += [encode(e) for e in (*table, *ending)]
    rows.append(encode(c.game_end))
    return Trace(rules=ruleset, players=c.players,
                 policies=tuple(s.policy for s in c.seat_list()), seed=0, game=0,
                 deck_counts=ruleset.deck_counts(), card_points=cards.card_points(),
                 events=np.array(rows, dtype=np.int64))


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_engine_plays_the_case(c: Case):
    dealer = c.rounds[0][0]
    game = play(c.players, c.hands, c.flip, c.draws, dealer=dealer,
                seats=dict(enumerate(c.seat_list())), **c.rules)
    for number, (round_dealer, table, ending) in enumerate(c.rounds, 1):
        assert game.round(number)[0] == ("round_start", round_dealer, number), game.text
        game.expect(table, number)
        assert game.ending(number) == ending, game.text
    assert game.game_end == c.game_end, game.text
    if c.check:
        c.check(game.result)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_the_expected_events_pass_the_referee(c: Case):
    result = check_trace(expected_trace(c))
    if c.check:
        c.check(result)


def test_every_option_of_issue_5_has_a_case():
    keys = {k for c in CASES for k in c.rules} | {k for c in CASES for k in c.rules.get("deck", {})}
    # The deck extras (D3-D5) are played on and off in tests/rules/test_actions.py.
    for key in ("seven_zero", "five_swap", "zero_slap", "uno_slap", "silence", "eight_cover",
                "uno_penalty", "mistake_penalty", "scoring", "lone_zero_value", "h2o_bonus",
                "round_end"):
        assert key in keys, key
    values = {(k, str(v)) for c in CASES for k, v in c.rules.items() if k != "deck"}
    for key in ("silence", "scoring", "round_end"):
        for value in rules_mod.RULES_BY_KEY[key].values:
            assert (key, str(value)) in values, (key, value)


# ---------------------------------------------------------------- beyond a fixed event list


def test_zero_slap_the_slowest_is_any_other_seat_by_reaction():
    """Three players: seat 2's reaction is 0, so it is the slowest for certain."""
    seats = {0: seat_all(reaction=1.0), 1: seat_all(reaction=1.0), 2: seat_all(reaction=0.0)}
    game = play(3, {1: ["R0", "R1"], 2: ["Y2", "Y3"], 0: ["G4", "G6"]}, "R5",
                ["B1", "B2", "B3", "B4"], seats=seats, zero_slap=4)
    assert game.table()[:4] == [("flip", "R5"), ("turn", 1), ("play", 1, "R0"),
                                ("slap", 2, 1, "zero")]
