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
    # The deck extras (D3-D5), the number-card rules (N1-N6) and U1-U2 are played on and off in
    # tests/rules/test_actions.py, test_numbers.py and test_uno_call.py.
    for key in ("scoring", "lone_zero_value", "h2o_bonus", "round_end"):
        assert key in keys, key
    values = {(k, str(v)) for c in CASES for k, v in c.rules.items() if k != "deck"}
    for key in ("scoring", "round_end"):
        for value in rules_mod.RULES_BY_KEY[key].values:
            assert (key, str(value)) in values, (key, value)
