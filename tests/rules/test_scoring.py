"""End of round and scoring: R1 hand values and the last-card draws, R2 winner_takes_all and the
target, R3 own_points_low_wins, R4 own_points_lose_at, R5 card_count, R6/R12 lazy (the loser
deals, the winner starts), R7 lone_zero_value, R8 h2o_bonus, R9 round_end to_the_last, R10
seven_rounds, R11 the game winner and losers; the caps max_turns and max_rounds, and game_end.

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from cases import (
    ONE_OF_EACH,
    Family,
    Round,
    deal_events,
    draws,
    first_round,
    game_rules,
    one_turn_rules,
    scores,
    written,
)
from traces import (
    broken,
    capped_round_then_win,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    quick_win,
    the_round,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import RefereeError, check_trace, format_trace
from unostats.engine.simulate import Trace
from unostats.rules import RuleError, RuleSet

# The rule options this family owns: each is played on and off on one deal (cases.py); the
# integer sizes and caps with two values at least.
OPTIONS = ("scoring", "lone_zero_value", "h2o_bonus", "round_end", "target_score", "max_turns",
           "max_rounds")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- R1, R2: winner_takes_all

case("winner-scores-the-other-hands-and-a-final-plus-four-is-drawn-first", 3,
     {1: ["R1", "R2", "+4"], 2: ["Y-skip", "G7", "B+2"], 0: ["Y5", "G-reverse", "B8"]}, "R4",
     ["Y9", "G9", "B9", "Y6", "wild", "+4", "R-skip", "B3"],
     rules={"target_score": 200, "max_rounds": 5}, seats={2: {"challenge": 1.0}},
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R1"),  # the +4 may not be played while holding red
         ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
         ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
         # Last card: the next player draws 4 before counting; no challenge, no skip.
         *draws(2, ["wild", "+4", "R-skip", "B3"], "draw_four"),
     ],
     # Seat 0: 5 + 20 + 8 + 9 + 6; seat 2: 20 + 7 + 20 + 9 + 9 + 50 + 50 + 20 + 3.
     ending=[("round_end", 1, "win", 236), *scores((48, 0), (0, 236), (188, 0))],
     game_end=("game_end", 1, "target"),
     facts={"game.winner_seat": 1, "game.ended_by": "target", "game.final_scores": (0, 236, 0)})
case("card-values-numbers-actions-and-black-cards", 2,
     {1: ["R-skip", "R-reverse", "Y-reverse", "Y9"], 0: ["Y7", "G+2", "wild", "+4"]}, "R4",
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 0),
         ("turn", 1), ("play", 1, "R-reverse"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y-reverse"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y9"),
     ],
     ending=[("round_end", 1, "win", 127), *scores((127, 0), (0, 127))])
case("a-final-draw-two-is-drawn-by-the-next-player-before-counting", 2,
     {1: ["R+2"], 0: ["Y7"]}, "R4", ["B5", "B6"],
     table=[("flip", "R4"), ("turn", 1), ("play", 1, "R+2"),
            *draws(0, ["B5", "B6"], "draw_two")],
     ending=[("round_end", 1, "win", 18), *scores((18, 0), (0, 18))],
     facts={"round.skips": 0})


def _seven_a_round(rounds: int) -> list[Round]:
    """2 players, hands of 1: the first player (dealer's left) holds R5 and wins 7 points; the
    dealer alternates."""
    out, score = [], [0, 0]
    for k in range(rounds):
        dealer = k % 2
        first = 1 - dealer
        score[first] += 7
        hand_points = [7, 7]
        hand_points[first] = 0
        out.append(Round(dealer, table=[("flip", "R2"), ("turn", first), ("play", first, "R5")],
                         ending=[("round_end", first, "win", 7),
                                 *scores(*zip(hand_points, score, strict=True))]))
    return out


for target, rounds, final in ((14, 3, (7, 14)), (15, 5, (14, 21))):
    played = _seven_a_round(rounds)
    case(f"game-ends-when-a-score-reaches-the-target-{target}", 2, {1: ["R5"], 0: ["Y7"]}, "R2",
         rules={"target_score": target, "max_rounds": 10}, **first_round(played[0]),
         later=played[1:], game_end=("game_end", 1, "target"),
         facts={"rounds.winner_seat": (1, 0, 1, 0, 1)[:rounds], "game.winner_seat": 1,
                "game.ended_by": "target", "game.final_scores": final})

# ---------------------------------------------------------------- caps

STUCK = ["B9", "B4", "Y3", "G6", "B5", "Y4", "G5", "B6", "Y5", "G4"]  # no red, no 2
case("max_turns-caps-the-round-with-no-winner-and-no-points", 2, {1: ["Y7"], 0: ["G8"]}, "R2",
     STUCK, rules={"max_turns": 10},
     table=[("flip", "R2"),
            *[e for turn, name in enumerate(STUCK) for s in [1 - turn % 2]
              for e in (("turn", s), ("draw", s, name, "normal"), ("pass", s))]],
     ending=[("round_end", -1, "cap", 0), *scores((32, 0), (34, 0))],
     facts={"round.ended_by": "cap", "round.winner_seat": None, "round.turns": 10,
            "round.cards_left": (6, 6)})
NEVER = ["Y1", "Y2", "B1", "B2", "G1"]  # never red, never the rank on top
REDS = ["R3", "R5", "R6", "R7", "R8"]
case("max_turns-a-win-on-the-last-allowed-turn-is-a-win", 2,
     {1: ["G9", "G9", "B9", "B9", "Y9"], 0: REDS}, "R4", NEVER, rules={"max_turns": 10},
     table=[("flip", "R4"),
            *[e for name, red in zip(NEVER, REDS, strict=True)
              for e in (("turn", 1), ("draw", 1, name, "normal"), ("pass", 1),
                        ("turn", 0), ("play", 0, red))]],
     ending=[("round_end", 0, "win", 52), *scores((0, 52), (52, 0))],
     facts={"round.turns": 10, "round.ended_by": "win"})

# ---------------------------------------------------------------- R7 lone zero, R3-R5

# Seat 0 is left holding Y0 alone.
LONE = dict(players=2, hands={1: ["R3", "G3"], 0: ["Y3", "Y0"]}, flip="R5")
LONE_TABLE = [("flip", "R5"), ("turn", 1), ("play", 1, "R3"), ("turn", 0), ("play", 0, "Y3"),
              ("turn", 1), ("play", 1, "G3")]
for value in (0, 50, 100):
    case(f"lone_zero_value-{value}", **LONE, rules={"lone_zero_value": value}, table=LONE_TABLE,
         ending=[("round_end", 1, "win", value), *scores((value, 0), (0, value))])
for scoring in ("own_points_low_wins", "own_points_lose_at"):
    # Every seat adds its own hand: seat 0 reaches the target; the lowest total, seat 1, wins.
    case(f"scoring-{scoring}", **LONE,
         rules={"scoring": scoring, "lone_zero_value": 100, "target_score": 100},
         table=LONE_TABLE, ending=[("round_end", 1, "win", 100), *scores((100, 100), (0, 0))],
         game_end=("game_end", 1, "target"), facts={"game.losers": (0,)})
case("scoring-card_count", **LONE, rules={"scoring": "card_count", "target_score": 1},
     table=LONE_TABLE, ending=[("round_end", 1, "win", 1), *scores((0, 0), (0, 1))],
     game_end=("game_end", 1, "target"), facts={"game.losers": (0,)})
case("scoring-winner_takes_all", **LONE,
     rules={"scoring": "winner_takes_all", "target_score": 1, "lone_zero_value": 50},
     table=LONE_TABLE, ending=[("round_end", 1, "win", 50), *scores((50, 0), (0, 50))],
     game_end=("game_end", 1, "target"), facts={"game.losers": (0,)})

# ---------------------------------------------------------------- R8 h2o_bonus

# Seat 1 goes out with a hit+1 (the last-card draw still happens) and takes 20 off.
H2O = dict(players=2, hands={1: ["R1", "hit+1"], 0: ["Y2", "Y3"]}, flip="R5", draws=["G4", "B5"])
H2O_TABLE = [("flip", "R5"), ("turn", 1), ("play", 1, "R1"),
             ("turn", 0), ("draw", 0, "G4", "normal"), ("pass", 0),
             ("turn", 1), ("play", 1, "hit+1"), ("colour", 1, "red"),
             ("draw", 0, "B5", "hit_all")]
for bonus in (True, False):
    case(f"h2o_bonus-{str(bonus).lower()}", **H2O,
         rules={"h2o_bonus": bonus, "scoring": "own_points_lose_at",
                "deck": {"hit_all_one": 1}},
         table=H2O_TABLE, ending=[("round_end", 1, "win", 14 - 20 * bonus),
                                  *scores((14, 14), (0, -20 * bonus))])

# ---------------------------------------------------------------- R6, R12 lazy

# Round 1: seat 1 wins, seat 2 (Y9) loses. Lazy: seat 2 deals round 2 and seat 1 plays first;
# the same deck order deals R1 to seat 0 this time, which goes out. Rotation instead: seat 1
# deals, seat 2 plays first and goes out with R1.
LAZY = dict(players=3, hands={1: ["R1"], 2: ["Y9"], 0: ["G2"]}, flip="R5", draws=["B3", "B4"])
ROUND_1 = [("flip", "R5"), ("turn", 1), ("play", 1, "R1")]
case("scoring-lazy", **LAZY, rules={"scoring": "lazy", "target_score": 5, "max_rounds": 2},
     table=ROUND_1, ending=[("round_end", 1, "win", 1), *scores((2, 0), (0, 1), (9, 0))],
     later=[Round(2, table=[("flip", "R5"),
                            ("turn", 1), ("draw", 1, "B3", "normal"), ("pass", 1),
                            ("turn", 2), ("draw", 2, "B4", "normal"), ("pass", 2),
                            ("turn", 0), ("play", 0, "R1")],
                  ending=[("round_end", 0, "win", 1), *scores((0, 1), (12, 1), (6, 0))])],
     facts={"rounds.loser_seat": (2, 1)})
case("scoring-lazy-off", **LAZY, rules={"scoring": "winner_takes_all", "max_rounds": 2},
     table=ROUND_1, ending=[("round_end", 1, "win", 11), *scores((2, 0), (0, 11), (9, 0))],
     later=[Round(1, table=[("flip", "R5"), ("turn", 2), ("play", 2, "R1")],
                  ending=[("round_end", 2, "win", 11), *scores((9, 0), (2, 11), (0, 11))])])

# ---------------------------------------------------------------- R9 to_the_last, R10

LAST = dict(players=3, hands={1: ["R1"], 2: ["R2"], 0: ["Y3"]}, flip="R5")
case("round_end-to_the_last", **LAST, rules={"round_end": "to_the_last"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"), ("finish", 1, 1),
         ("turn", 2), ("play", 2, "R2"), ("finish", 2, 2),
     ],
     ending=[("round_end", 1, "win", 3), *scores((3, 0), (0, 3), (0, 0))],
     facts={"round.finish_order": (1, 2, 0)})
case("round_end-first_out", **LAST, rules={"round_end": "first_out"},
     table=[("flip", "R5"), ("turn", 1), ("play", 1, "R1")],
     ending=[("round_end", 1, "win", 5), *scores((3, 0), (0, 5), (2, 0))])
# Seat 0 finishes with R-skip: the card still skips seat 1 (first_out: the round ends at once).
LAST_SKIP = dict(players=3, hands={0: ["R-skip"], 1: ["Y2"], 2: ["R3"]}, flip="R5", dealer=2)
case("round_end-to_the_last-finishing-skip", **LAST_SKIP, rules={"round_end": "to_the_last"},
     table=[
         ("flip", "R5"),
         ("turn", 0), ("play", 0, "R-skip"), ("finish", 0, 1), ("skip", 1),
         ("turn", 2), ("play", 2, "R3"), ("finish", 2, 2),
     ],
     ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0), (0, 0))],
     facts={"round.finish_order": (0, 2, 1), "round.loser_seat": 1})
case("round_end-first_out-finishing-skip", **LAST_SKIP, rules={"round_end": "first_out"},
     table=[("flip", "R5"), ("turn", 0), ("play", 0, "R-skip")],
     ending=[("round_end", 0, "win", 5), *scores((0, 5), (2, 0), (3, 0))])
# The R+2 turned up makes seat 0 draw 2; seat 1 finishes with R-reverse, and with two seats left
# in the round the Reverse skips seat 2 (A1), so seat 0 plays on to finish second.
LAST_REVERSE = dict(players=3, hands={0: ["R1"], 1: ["R-reverse"], 2: ["Y2"]}, flip="R+2",
                    draws=["B1", "B2", "Y3", "Y4"], dealer=2)
# Its events to the end, and the round's end (also the referee's game below).
LAST_REVERSE_TABLE = [
    ("flip", "R+2"), *draws(0, ["B1", "B2"], "draw_two"), ("skip", 0),
    ("turn", 1), ("play", 1, "R-reverse"), ("finish", 1, 1), ("skip", 2),
    ("turn", 0), ("play", 0, "R1"),
    ("turn", 2), ("draw", 2, "Y3", "normal"), ("pass", 2),
    ("turn", 0), ("play", 0, "B1"),
    ("turn", 2), ("draw", 2, "Y4", "normal"), ("pass", 2),
    ("turn", 0), ("play", 0, "B2"), ("finish", 0, 2),
]
LAST_REVERSE_ENDING = [("round_end", 1, "win", 9), *scores((0, 0), (0, 9), (9, 0))]
case("round_end-to_the_last-two-left-reverse", **LAST_REVERSE, rules={"round_end": "to_the_last"},
     table=LAST_REVERSE_TABLE, ending=LAST_REVERSE_ENDING,
     facts={"round.finish_order": (1, 0, 2), "round.direction_changes": 0})
case("round_end-first_out-two-left-reverse", **LAST_REVERSE, rules={"round_end": "first_out"},
     table=[
         ("flip", "R+2"), *draws(0, ["B1", "B2"], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "R-reverse"),
     ],
     ending=[("round_end", 1, "win", 6), *scores((4, 0), (0, 6), (2, 0))])
# A restricted +4 that empties a hand under to_the_last is not challenged: its seat has
# finished and takes no part in anything (docs/engine.md "Round modes"), so seat 2, certain to
# challenge, draws 4 and is skipped. With a card left, the same +4 is challenged.
case("round_end-to_the_last-finishing-plus-four-is-not-challenged", 3,
     {1: ["+4"], 2: ["Y2"], 0: ["G3"]}, "R5", ["B1", "B2", "B3", "B4"],
     rules={"round_end": "to_the_last"}, seats={2: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"), ("finish", 1, 1),
         *draws(2, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 2),
         ("turn", 0),
     ], prefix=True, facts={"round.challenges": 0})
case("round_end-to_the_last-plus-four-with-a-card-left-is-challenged", 3,
     {1: ["+4", "Y9"], 2: ["Y2", "Y3"], 0: ["G3", "G4"]}, "R5",
     ["B1", "B2", "B3", "B4", "B5", "B6"],
     rules={"round_end": "to_the_last"}, seats={2: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
         ("challenge", 2, 1, "innocent"),
         *draws(2, ["B1", "B2", "B3", "B4", "B5", "B6"], "challenge"), ("skip", 2),
         ("turn", 0),
     ], prefix=True)
SEVEN_ROUNDS = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
                    draws=["G6", "R7", "G8"])
case("round_end-seven_rounds", **SEVEN_ROUNDS, rules={"round_end": "seven_rounds"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"), ("new_hand", 1, 1, 1), ("draw", 1, "R7", "refill"),
         ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R7"),
     ],
     ending=[("round_end", 1, "win", 21), *scores((21, 0), (0, 21))],
     facts={"round.hands_emptied": (0, 2)})
case("round_end-first_out-two-cards", **SEVEN_ROUNDS, rules={"round_end": "first_out"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 13), *scores((13, 0), (0, 13))])


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


def test_h2o_bonus_needs_own_points_scoring():
    with pytest.raises(RuleError, match="h2o_bonus.*own_points_lose_at or own_points_low_wins"):
        RuleSet.from_mapping({"h2o_bonus": True})
    assert RuleSet.from_mapping({"h2o_bonus": True, "scoring": "own_points_lose_at"})


# ---------------------------------------------------------------- R1, R2 on hand-written traces


def last_card(name: str, colour: str | None, reason: str, drawn: list[str], points: int):
    """Seat 1 goes out with ``name``; seat 0 draws the final penalty."""
    return written(
        2, {1: [name], 0: ["Y1"]}, rules={"target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R5"),
            ("turn", 1), ("play", 1, name), *([("colour", 1, colour)] if colour else []),
            *draws(0, drawn, reason),
        ],
        ending=[("round_end", 1, "win", points), *scores((points, 0), (0, points))],
        game_end=("game_end", 1, "target"))


@pytest.mark.parametrize("name, colour, reason, drawn, points", [
    ("R+2", None, "draw_two", ["B1", "B2"], 4),
    ("+4", "red", "draw_four", ["B1", "B2", "B3", "B4"], 11),
])
def test_last_card_penalty_is_drawn_before_the_round_ends(name, colour, reason, drawn, points):
    trace = last_card(name, colour, reason, drawn, points)
    (r,) = check_trace(trace).rounds
    assert (r.cards_drawn, r.points, r.skips) == (len(drawn), points, 0)
    with pytest.raises(RefereeError, match="expected draw by seat 0"):
        check_trace(deleted(trace, find(trace, codes.EV_DRAW, nth=len(drawn) - 1)))
    with pytest.raises(RefereeError, match="expected round_end"):
        check_trace(inserted(trace, find(trace, codes.EV_ROUND_END), codes.EV_SKIP, 0))


def test_wrong_round_points():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), b=3), "round points b = 3, expected 2")


def test_wrong_round_winner():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), seat=0), "expected winner seat 1")


def test_wrong_hand_points():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=0), a=5),
           "hand points a = 5, expected 2")


def test_wrong_score():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=1), b=7), "score b = 7, expected 2")


def test_round_goes_on_after_a_hand_is_empty():
    trace = quick_win()
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_TURN, 0), "expected round_end: seat 1 has no cards left")


def test_game_goes_on_after_the_target():
    trace = quick_win()
    at = find(trace, codes.EV_GAME_END)
    broken(changed(trace, at, kind=codes.EV_ROUND_START, seat=1, a=2),
           "expected game_end won by seat 1")


# ---------------------------------------------------------------- caps on hand-written traces


def test_capped_round_and_capped_game():
    result = check_trace(capped_round_then_win())
    capped, won = result.rounds
    assert (capped.ended_by, capped.winner_seat, capped.winner_position) == ("cap", None, None)
    assert (capped.turns, capped.normal_draws, capped.points) == (10, 10, 0)
    assert capped.hand_points == (24, 26) and capped.score_after == (0, 0)
    assert (won.round, won.dealer_seat, won.first_seat, won.winner_seat) == (2, 1, 0, 0)
    assert (result.winner_seat, result.ended_by, result.final_scores) == (None, "cap", (8, 0))


def test_round_goes_on_past_the_turn_cap():
    trace = capped_round_then_win()
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_TURN, 1), r"expected round_end at the turn cap")


def test_capped_round_names_no_winner():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), seat=0, a=0),
           "a capped round ends with seat -1")


def test_wrong_round_number():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), a=3),
           "expected round number a = 2")


def test_game_end_before_the_round_cap():
    trace = capped_round_then_win()
    at = find(trace, codes.EV_ROUND_START, nth=1)
    broken(inserted(trace, at, codes.EV_GAME_END, -1, 1), "expected round_start of round 2")


@pytest.mark.parametrize("game, wrong_code", [(quick_win, codes.GAME_END_CAP),
                                               (capped_round_then_win, codes.GAME_END_TARGET)])
def test_wrong_game_end_code(game, wrong_code):
    trace = game()
    broken(changed(trace, find(trace, codes.EV_GAME_END), a=wrong_code), "expected a = ")


# ---------------------------------------------------------------- R3-R8 on hand-written traces


def lone_zero(points: int, *hand_points_and_scores: tuple[int, int], **rules) -> Trace:
    """Seat 1 is left holding Y0 alone; seat 0 wins the round (``points``) and the game."""
    return written(
        2, {0: ["R3", "G3"], 1: ["Y3", "Y0"]}, dealer=1, rules=game_rules(**rules),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R3"),
            ("turn", 1), ("play", 1, "Y3"),
            ("turn", 0), ("play", 0, "G3"),
        ],
        ending=[("round_end", 0, "win", points), *scores(*hand_points_and_scores)],
        game_end=("game_end", 0, "target"))


@pytest.mark.parametrize("value", [0, 50, 100])
def test_lone_zero_value(value):
    trace = lone_zero(value, (0, value), (value, 0), lone_zero_value=value,
                      target_score=0 if value == 0 else 1)
    assert the_round(trace).hand_points == (0, value)
    if value:
        broken(with_rules(trace, lone_zero_value=0), "round points b = 50|round points b = 100")


def test_a_zero_with_another_card_is_worth_nothing():
    trace = written(
        2, {0: ["R3", "G3", "G4"], 1: ["Y3", "Y0", "Y1"]},
        dealer=1, rules=game_rules(lone_zero_value=100, target_score=1),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R3"),
            ("turn", 1), ("play", 1, "Y3"),
            ("turn", 0), ("play", 0, "G3"),
            ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "G4"),
        ],
        ending=[("round_end", 0, "win", 8), *scores((0, 8), (8, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).hand_points == (0, 8)


@pytest.mark.parametrize("scoring", ["own_points_low_wins", "own_points_lose_at"])
def test_own_points(scoring):
    """Every seat adds its own hand: seat 1 reaches the target; the lowest total wins."""
    trace = lone_zero(100, (0, 0), (100, 100), scoring=scoring, lone_zero_value=100,
                      target_score=100)
    result = check_trace(trace)
    assert (result.winner_seat, result.losers, result.final_scores) == (0, (1,), (0, 100))
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=0), b=100), "score b = 100, expected 0")
    broken(with_rules(trace, target_score=101), "expected round_start of round 2")


def test_own_points_lose_at_names_every_seat_at_the_target_a_loser():
    trace = written(
        3, {0: ["R1"], 1: ["Y7"], 2: ["G9"]},
        dealer=2, rules=game_rules(scoring="own_points_lose_at", target_score=5),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 16), *scores((0, 0), (7, 7), (9, 9))],
        game_end=("game_end", 0, "target"))
    result = check_trace(trace)
    assert (result.winner_seat, result.losers) == (0, (1, 2))


def test_card_count():
    trace = lone_zero(1, (0, 1), (0, 0), scoring="card_count", target_score=1)
    result = check_trace(trace)
    assert (result.final_scores, result.losers) == ((1, 0), (1,))
    broken(changed(trace, find(trace, codes.EV_ROUND_END), b=0),
           r"round points b = 0, expected 1 \(the number of cards in the other hands\)")


def test_winner_takes_all_losers_have_the_lowest_score():
    trace = written(
        3, {0: ["R1"], 1: ["Y7"], 2: ["G9"]}, dealer=2, rules=game_rules(target_score=1),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 16), *scores((0, 16), (7, 0), (9, 0))],
        game_end=("game_end", 0, "target"))
    assert check_trace(trace).losers == (1, 2)


def lazy_game(second_flip: str = "R5", before_the_win: Sequence[tuple] = ()) -> Trace:
    """Round 1: seat 1 wins, seat 2 (9 points) loses. Round 2: seat 2 deals, seat 1 starts;
    after ``before_the_win``, seat 1 wins with R3."""
    return written(
        3, {1: ["R1"], 2: ["Y9"], 0: ["G2"]}, rules=game_rules(scoring="lazy", target_score=2),
        table=[("flip", "R5"), ("turn", 1), ("play", 1, "R1")],
        ending=[("round_end", 1, "win", 1), *scores((2, 0), (0, 1), (9, 0))],
        later=[Round(2, deals=deal_events(3, 2, {0: ["B1"], 1: ["R3"], 2: ["G4"]}),
                     table=[("flip", second_flip), *before_the_win,
                            ("turn", 1), ("play", 1, "R3")],
                     ending=[("round_end", 1, "win", 1), *scores((1, 0), (0, 2), (4, 0))])],
        game_end=("game_end", 1, "target"))


def test_lazy_winner_starts_loser_deals():
    trace = lazy_game()
    result = check_trace(trace)
    first, second = result.rounds
    assert (first.winner_seat, first.loser_seat, second.dealer_seat, second.first_seat) == (
        1, 2, 2, 1)
    assert (result.final_scores, result.losers) == ((0, 2, 0), (2,))
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), seat=1),
           re.escape("expected round_start of round 2 dealt by seat 2 (lazy: seat 2, the loser "
                     "of round 1, deals)"))
    broken(with_rules(trace, scoring="winner_takes_all"),
           r"round points b = 1, expected 11 \(the sum of the other hands\)")


def test_lazy_first_card_reverse_goes_to_the_seat_before_the_first_player():
    """Round 2's first player is seat 1: a Reverse turned up lets seat 0 (before it) start."""
    trace = lazy_game("R-reverse", [
        ("direction", -1),
        ("turn", 0), ("draw", 0, "R7", "normal"), ("play", 0, "R7"),
        ("turn", 2), ("draw", 2, "R9", "normal"), ("play", 2, "R9"),
    ])
    assert check_trace(trace).rounds[1].first_seat == 0
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=2), "expected turn of seat 0")


def test_lazy_loser_ties_go_to_the_most_cards():
    """Seats 0 and 2 both hold 14 points; seat 2 holds more cards and loses."""
    trace = written(
        3, {1: ["R1", "R2"], 2: ["Y6", "B2"], 0: ["G7", "B7"]},
        rules=game_rules(scoring="lazy", target_score=1),
        table=[
            ("flip", "R5"),
            ("turn", 1), ("play", 1, "R1"),
            ("turn", 2), ("draw", 2, "G6", "normal"), ("pass", 2),
            ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
            ("turn", 1), ("play", 1, "R2"),
        ],
        ending=[("round_end", 1, "win", 1), *scores((14, 0), (0, 1), (14, 0))],
        game_end=("game_end", 1, "target"))
    assert check_trace(trace).rounds[0].loser_seat == 2


def test_lazy_after_a_capped_round_the_dealer_rotates():
    trace = written(
        2, {1: ["Y1"], 0: ["G2"]},
        rules={"deck": ONE_OF_EACH, "uno_penalty": 0, "scoring": "lazy", "target_score": 5,
               "max_turns": 1, "max_rounds": 2},
        table=[("flip", "R5"), ("turn", 1), ("draw", 1, "B3", "normal"), ("pass", 1)],
        ending=[("round_end", -1, "cap", 0), *scores((2, 0), (4, 0))],
        later=[Round(1, deals=deal_events(2, 1, {0: ["Y1"], 1: ["G2"]}),
                     table=[("flip", "R5"), ("turn", 0), ("draw", 0, "B3", "normal"),
                            ("pass", 0)],
                     ending=[("round_end", -1, "cap", 0), *scores((4, 0), (2, 0))])])
    result = check_trace(trace)
    assert [(r.dealer_seat, r.first_seat, r.loser_seat) for r in result.rounds] == [
        (0, 1, None), (1, 0, None)]
    assert result.losers == ()


def test_h2o_bonus():
    trace = written(
        2, {0: ["R1", "hit+1"], 1: ["Y2", "Y3"]}, dealer=1,
        rules=game_rules({"hit_all_one": 1}, scoring="own_points_lose_at", h2o_bonus=True,
                         target_score=200, max_rounds=1),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "G4", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "hit+1"), ("colour", 0, "red"), ("draw", 1, "B5", "hit_all"),
        ],
        ending=[("round_end", 0, "win", -6), *scores((0, -20), (14, 14))])
    assert check_trace(trace).final_scores == (-20, 14)
    broken(with_rules(trace, h2o_bonus=False), r"round points b = -6, expected 14")
    broken(with_rules(trace, scoring="winner_takes_all"),
           "trace.rules combine what docs/engine.md forbids: h2o_bonus: true cannot be "
           "combined with scoring: winner_takes_all")


# ---------------------------------------------------------------- R9, R10 on hand-written traces


def to_the_last():
    return written(
        3, {0: ["R1", "R2"], 1: ["Y5", "Y6"], 2: ["R3", "Y7"]},
        dealer=2, rules=game_rules(round_end="to_the_last"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "B8", "normal"), ("pass", 1),
            ("turn", 2), ("play", 2, "R3"),
            ("turn", 0), ("play", 0, "R2"), ("finish", 0, 1),
            ("turn", 1), ("draw", 1, "G9", "normal"), ("pass", 1),
            ("turn", 2), ("draw", 2, "Y2", "normal"), ("play", 2, "Y2"),
            ("turn", 1), ("play", 1, "Y5"),
            ("turn", 2), ("play", 2, "Y7"), ("finish", 2, 2),
        ],
        ending=[("round_end", 0, "win", 23), *scores((0, 23), (23, 0), (0, 0))],
        game_end=("game_end", 0, "target"))


def test_to_the_last():
    trace = to_the_last()
    r = the_round(trace)
    assert (r.winner_seat, r.loser_seat, r.finish_order) == (0, 1, (0, 2, 1))
    broken(changed(trace, find(trace, codes.EV_TURN, seat=1, nth=2), seat=0),
           "expected turn of seat 1")
    broken(deleted(trace, find(trace, codes.EV_FINISH)),
           re.escape("expected finish of seat 0 in place 1 (round_end: to_the_last)"))
    broken(changed(trace, find(trace, codes.EV_FINISH, nth=1), a=1), "expected finish of seat 2 "
                                                                    "in place 2")
    broken(with_rules(trace, round_end="first_out"), "expected round_end")


def test_to_the_last_finishing_card_has_its_effect():
    """Seat 0 goes out with R-skip: it still skips seat 1."""
    trace = written(
        3, {0: ["R-skip"], 1: ["Y2"], 2: ["R3"]},
        dealer=2, rules=game_rules(round_end="to_the_last"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("finish", 0, 1), ("skip", 1),
            ("turn", 2), ("play", 2, "R3"), ("finish", 2, 2),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0), (0, 0))],
        game_end=("game_end", 0, "target"))
    r = the_round(trace)
    assert (r.finish_order, r.loser_seat, r.skips) == ((0, 2, 1), 1, 1)


def test_to_the_last_two_seats_left_reverse_is_a_skip():
    """Seat 1 goes out with R-reverse: two seats are left, so it skips seat 2 (R2 has been
    turned up: seat 0 drew 2 and was skipped)."""
    trace = written(
        3, {0: ["R1"], 1: ["R-reverse"], 2: ["Y2"]},
        dealer=2, rules=game_rules(round_end="to_the_last"),
        table=LAST_REVERSE_TABLE, ending=LAST_REVERSE_ENDING, game_end=("game_end", 1, "target"))
    r = the_round(trace)
    assert (r.finish_order, r.direction_changes, r.skips) == ((1, 0, 2), 0, 2)
    broken(with_rules(trace, round_end="first_out"), "expected round_end")


def test_a_capped_round_to_the_last_keeps_its_finishers():
    """Seat 0 goes out with a hit+1 (the two others draw one each); the round is then capped."""
    trace = written(
        3, {0: ["hit+1"], 1: ["Y2"], 2: ["Y3"]},
        dealer=2, rules=one_turn_rules({"hit_all_one": 1}, round_end="to_the_last"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "hit+1"), ("colour", 0, "red"), ("finish", 0, 1),
            ("draw", 1, "B4", "hit_all"), ("draw", 2, "B6", "hit_all"),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((0, 0), (6, 0), (9, 0))])
    r = the_round(trace)
    assert (r.finish_order, r.loser_seat, r.winner_seat, r.cards_left) == ((0,), None, None,
                                                                            (0, 2, 2))


def seven_rounds():
    return written(
        2, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}, dealer=1, rules=game_rules(round_end="seven_rounds"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "G6", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R2"), ("new_hand", 0, 1, 1), ("draw", 0, "R7", "refill"),
            ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R7"),
        ],
        ending=[("round_end", 0, "win", 21), *scores((0, 21), (21, 0))],
        game_end=("game_end", 0, "target"))


def test_seven_rounds():
    trace = seven_rounds()
    r = the_round(trace)
    assert numbers(r, "cards_drawn", "normal_draws", "penalty_cards", "hands_emptied") == (
        3, 2, 0, (2, 0))
    at = find(trace, codes.EV_NEW_HAND)
    broken(changed(trace, at, b=2), re.escape(
        "expected new_hand of seat 0: it emptied hand 1 of 2 and takes 1 cards"))
    broken(deleted(trace, at), "expected new_hand of seat 0")
    broken(with_rules(trace, round_end="first_out"), "expected round_end")
    broken(changed(trace, at + 1, b=codes.DRAW_NORMAL), "expected draw reason refill")


def test_format_trace_shows_finishes_and_new_hands():
    lines = format_trace(to_the_last()).splitlines()
    assert "r1 t4 seat 0 finishes in place 1" in lines
    lines = format_trace(seven_rounds()).splitlines()
    assert "r1 t3 seat 0 has emptied hand 1 and takes 1 new cards" in lines
    assert "r1 t3 seat 0 draws R7 (refill)" in lines
