"""Number-card rules: N1 seven_zero (7 swaps hands, 0 passes them on), N2 five_swap, N3 multi_play
(same_rank, two_matching), N4 zero_slap and uno_slap, N5 silence (seven, two, black), N6
eight_cover.

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from cases import (
    Case,
    Family,
    card,
    draws,
    game_rules,
    one_turn_rules,
    scores,
    small_deck,
    written,
)
from traces import (
    broken,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    the_round,
    with_policies,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import check_trace, format_trace
from unostats.engine.simulate import Trace

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("seven_zero", "five_swap", "multi_play", "zero_slap", "uno_slap", "silence",
           "eight_cover")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- N1 seven_zero

# Seat 1's R7 swaps hands with seat 2 (seats 2 and 0 hold two cards each: the first in playing
# order); seat 1 then holds seat 2's R1 and R2 and goes out. Off, seat 2 goes out first.
SEVEN = dict(players=3, hands={1: ["R7", "B9"], 2: ["R1", "R2"], 0: ["G3", "G4"]}, flip="R5",
             draws=["B8", "G8", "B7", "Y6"])
case("seven_zero-on-a-7-swaps-hands", **SEVEN, rules={"seven_zero": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R7"), ("swap_hands", 1, 2),
         ("turn", 2), ("draw", 2, "B8", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 2), ("draw", 2, "B7", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 45), *scores((21, 0), (0, 45), (24, 0))],
     facts={"round.hand_swaps": 1})
case("seven_zero-off-a-7-is-a-number", **SEVEN, rules={"seven_zero": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R7"),
         ("turn", 2), ("play", 2, "R1"),
         ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
         ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
         ("turn", 2), ("play", 2, "R2"),
     ],
     ending=[("round_end", 2, "win", 32), *scores((15, 0), (17, 0), (0, 32))])
# Seat 1's R0 passes every hand on clockwise: seat 2 receives R1 and goes out with it.
ZERO = dict(players=3, hands={1: ["R0", "R1"], 2: ["Y2", "Y3"], 0: ["B4", "B6"]}, flip="R5",
            draws=["G7", "G8"])
case("seven_zero-on-a-0-passes-every-hand-on", **ZERO, rules={"seven_zero": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("pass_hands", 1, 1),
         ("turn", 2), ("play", 2, "R1"),
     ],
     ending=[("round_end", 2, "win", 15), *scores((5, 0), (10, 0), (0, 15))])
case("seven_zero-off-a-0-is-a-number", **ZERO, rules={"seven_zero": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"),
         ("turn", 2), ("draw", 2, "G7", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R1"),
     ],
     ending=[("round_end", 1, "win", 30), *scores((18, 0), (0, 30), (12, 0))])
# R9 to_the_last too: seat 1 finishes with R0: the two seats left pass their hands on, and seat
# 2 finishes with seat 0's R3; off, seat 2 has to draw and seat 0 finishes second.
LAST_ZERO = dict(players=3, hands={1: ["R0"], 2: ["Y2"], 0: ["R3"]}, flip="R5", draws=["B7"])
case("seven_zero-on-to_the_last-a-finishing-0-still-passes-the-hands", **LAST_ZERO,
     rules={"round_end": "to_the_last", "seven_zero": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("finish", 1, 1), ("pass_hands", 1, 1),
         ("turn", 2), ("play", 2, "R3"), ("finish", 2, 2),
     ],
     ending=[("round_end", 1, "win", 2), *scores((2, 0), (0, 2), (0, 0))],
     facts={"round.finish_order": (1, 2, 0)})
case("seven_zero-off-to_the_last-a-finishing-0", **LAST_ZERO,
     rules={"round_end": "to_the_last", "seven_zero": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("finish", 1, 1),
         ("turn", 2), ("draw", 2, "B7", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R3"), ("finish", 0, 2),
     ],
     ending=[("round_end", 1, "win", 9), *scores((0, 0), (0, 9), (9, 0))],
     facts={"round.finish_order": (1, 0, 2)})

# ---------------------------------------------------------------- N2 five_swap

# Seat 1 (first_legal) gives G9 (its lowest card id), seat 0 (high_value_first) gives B8 (its
# card worth the most).
FIVE = dict(players=2, hands={1: ["R5", "+4", "G9"], 0: ["Y1", "Y2", "B8"]}, flip="R3",
            draws=["R6", "B1", "B2", "B3", "B4"])
case("five_swap-on", **FIVE, rules={"five_swap": True}, seats={0: {"policy": "high_value_first"}},
     table=[
         ("flip", "R3"),
         ("turn", 1), ("play", 1, "R5"), ("give", 1, "G9", 0), ("give", 0, "B8", 1),
         ("turn", 0), ("draw", 0, "R6", "normal"), ("play", 0, "R6"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
         *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
         ("turn", 1), ("play", 1, "B8"),
     ],
     ending=[("round_end", 1, "win", 22), *scores((22, 0), (0, 22))],
     facts={"round.card_swaps": 1})
case("five_swap-off", **FIVE, rules={"five_swap": False},
     table=[
         ("flip", "R3"),
         ("turn", 1), ("play", 1, "R5"),
         ("turn", 0), ("draw", 0, "R6", "normal"), ("play", 0, "R6"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "green"),
         *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
         ("turn", 1), ("play", 1, "G9"),
     ],
     ending=[("round_end", 1, "win", 21), *scores((21, 0), (0, 21))])

# ---------------------------------------------------------------- N3 multi_play

# G7 is seat 1's only legal card on G5; it holds a 7 of every colour.
SAME_RANK = dict(players=2, hands={1: ["B7", "G7", "R7", "Y7", "Y1"],
                                   0: ["R2", "B1", "G3", "G4", "Y9"]},
                 flip="G5", draws=["Y4", "Y5"])
case("multi_play-same_rank-plays-every-other-card-of-the-number", **SAME_RANK,
     rules={"multi_play": "same_rank"},
     table=[
         ("flip", "G5"),
         # The other 7s follow in card-id order (red, yellow, blue); the last, B7, sets blue.
         ("turn", 1), ("play", 1, "G7"), ("play", 1, "R7"), ("play", 1, "Y7"), ("play", 1, "B7"),
         ("turn", 0), ("play", 0, "B1"),
         ("turn", 1), ("play", 1, "Y1"),
     ],
     ending=[("round_end", 1, "win", 18), *scores((18, 0), (0, 18))],
     facts={"round.turns": 3, "round.cards_played": 6})
case("multi_play-none-same-deal-one-card-a-turn", **SAME_RANK,
     table=[
         ("flip", "G5"),
         ("turn", 1), ("play", 1, "G7"),
         ("turn", 0), ("play", 0, "G3"),
         ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
     ], prefix=True)
# A1 too: actions_first plays the G-skip (seat 1's G3 is legal too); a number card may follow it
# only under two_matching (G3 matches G5, the top card at the start of the turn).
for rule, after in (
        ("same_rank", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")]),
        ("two_matching", [("play", 1, "G3"), ("skip", 2), ("turn", 0), ("play", 0, "B3")]),
        ("none", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")])):
    case(f"multi_play-{rule}-after-an-action-card", 3,
         {1: ["G-skip", "G3", "B9"], 2: ["Y1", "Y2", "Y3"], 0: ["B3", "B4", "B5"]}, "G5",
         ["B6", "Y5"], rules={"multi_play": rule}, seats={1: {"policy": "actions_first"}},
         table=[("flip", "G5"), ("turn", 1), ("play", 1, "G-skip"), *after], prefix=True)
# R1 first (first_legal); then G5 matches R5, the top card as the turn started (G1 matches only
# the new top R1). Next turn G1, then G9, green as G2 was at that turn's start.
TWO_MATCHING = dict(players=2, hands={1: ["R1", "G1", "G5", "G9"], 0: ["G2", "Y4", "Y6", "Y8"]},
                    flip="R5", draws=["B4", "Y5"])
case("multi_play-two_matching-one-more-card-matching-the-start-of-the-turn", **TWO_MATCHING,
     rules={"multi_play": "two_matching"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"), ("play", 1, "G5"),
         ("turn", 0), ("play", 0, "G2"),
         ("turn", 1), ("play", 1, "G1"), ("play", 1, "G9"),
     ],
     ending=[("round_end", 1, "win", 18), *scores((18, 0), (0, 18))])
case("multi_play-none-same-deal-one-card-a-turn-from-r1", **TWO_MATCHING,
     rules={"multi_play": "none"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B4", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "G1"),
         ("turn", 0), ("play", 0, "G2"),
         ("turn", 1), ("play", 1, "G5"),
     ], prefix=True)
for hand, extra, name in (
        # Nothing matches R5 but R1 itself (G1 and B9 match neither red nor 5): no second card.
        (["R1", "G1", "B9", "Y8"], [], "holds-none"),
        # R3 and G5 both match R5: the policy chooses (first_legal: the lower card id, R3).
        (["R1", "G5", "B9", "R3"], [("play", 1, "R3")], "policy-chooses")):
    case(f"multi_play-two_matching-{name}", 2, {1: hand, 0: ["Y2", "Y4", "Y6", "Y7"]}, "R5",
         ["Y9", "Y5"], rules={"multi_play": "two_matching"},
         table=[("flip", "R5"), ("turn", 1), ("play", 1, "R1"), *extra, ("turn", 0)],
         prefix=True)

# ---------------------------------------------------------------- N4 zero_slap, uno_slap

# Two players: the other seat is the slowest for certain.
SLAP = dict(players=2, hands={1: ["R0", "R1"], 0: ["Y2", "Y3"]}, flip="R5",
            draws=["B1", "B2", "B3", "B4", "G6"])
case("zero_slap-4", **SLAP, rules={"zero_slap": 4},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"), ("slap", 0, 1, "zero"),
         *draws(0, ["B1", "B2", "B3", "B4"], "slap"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R1"),
     ],
     ending=[("round_end", 1, "win", 21), *scores((21, 0), (0, 21))],
     facts={"round.slaps": 1})
case("zero_slap-0", **SLAP, rules={"zero_slap": 0},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R0"),
         ("turn", 0), ("draw", 0, "B1", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R1"),
     ],
     ending=[("round_end", 1, "win", 6), *scores((6, 0), (0, 6))])
# Three players: seat 2's reaction is 0, so it is the slowest for certain.
case("zero_slap-the-slowest-is-any-other-seat-by-reaction", 3,
     {1: ["R0", "R1"], 2: ["Y2", "Y3"], 0: ["G4", "G6"]}, "R5", ["B1", "B2", "B3", "B4"],
     rules={"zero_slap": 4}, seats={2: {"reaction": 0.0}},
     table=[("flip", "R5"), ("turn", 1), ("play", 1, "R0"), ("slap", 2, 1, "zero")],
     prefix=True)
UNO_SLAP = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
                draws=["G3", "G4", "G6"])
case("uno_slap-2", **UNO_SLAP, rules={"uno_penalty": 2, "uno_slap": 2},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"), ("uno_call", 1), ("slap", 0, 1, "uno"),
         *draws(0, ["G3", "G4"], "slap"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 20), *scores((20, 0), (0, 20))])
case("uno_slap-0", **UNO_SLAP, rules={"uno_penalty": 2, "uno_slap": 0},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"), ("uno_call", 1),
         ("turn", 0), ("draw", 0, "G3", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 10), *scores((10, 0), (0, 10))])

# ---------------------------------------------------------------- N5 silence

# Seat 0 always breaks a silence (silence_break 1); the others never do. In seat 2's turn the
# seats are asked from seat 2: seat 2 keeps quiet, seat 0 breaks it and draws the penalty.
BREAKER = {0: {"silence_break": 1.0}}


def silence_cases(rule: str, card_name: str, colour: str | None, hands: dict, drawn: list[str],
                  winner_points: int, quiet_points: int) -> None:
    """The silence ``rule`` started by seat 1's ``card_name``, and the same deal without it."""
    first = [("turn", 1), ("play", 1, card_name), *([("colour", 1, colour)] if colour else [])]
    rest = [("turn", 2), ("play", 2, hands[2][0]),
            ("turn", 0), ("play", 0, hands[0][0]),
            ("turn", 1), ("play", 1, hands[1][1])]
    broken_silence = [("turn", 2), ("silence_break", 0, len(drawn)), *draws(0, drawn, "silence"),
                      *rest[1:]]
    others = sum(int(n[1]) for n in (hands[2][1], hands[0][1]))
    assert others == quiet_points
    case(f"silence-{rule}", 3, hands, "R5", drawn, rules={"silence": rule}, seats=BREAKER,
         table=[("flip", "R5"), *first, *broken_silence],
         ending=[("round_end", 1, "win", winner_points),
                 *scores((winner_points - int(hands[2][1][1]), 0), (0, winner_points),
                         (int(hands[2][1][1]), 0))],
         facts={"round.silence_breaks": 1})
    case(f"silence-none-{card_name}", 3, hands, "R5", drawn, rules={"silence": "none"},
         seats=BREAKER, table=[("flip", "R5"), *first, *rest],
         ending=[("round_end", 1, "win", others),
                 *scores((int(hands[0][1][1]), 0), (0, others), (int(hands[2][1][1]), 0))])


# A 7 (UNO-Extreme): 4 cards. The silence is over (broken) when seat 1's turn comes back.
silence_cases("seven", "R7", None, {1: ["R7", "B4"], 2: ["R3", "Y1"], 0: ["R4", "G2"]},
              ["G6", "G7", "G8", "G9"], 33, 3)
# A 2 (HOUSE "Silent Two's"): 2 cards.
silence_cases("two", "R2", None, {1: ["R2", "B4"], 2: ["R3", "Y1"], 0: ["R4", "G8"]},
              ["G6", "G7"], 22, 9)
# A black card (HOUSE): 2 cards; seat 2's B3 keeps the colour named (blue), so it holds.
silence_cases("black", "wild", "blue", {1: ["wild", "B4"], 2: ["B3", "Y1"], 0: ["B7", "G8"]},
              ["G6", "G7"], 22, 9)

# ---------------------------------------------------------------- N6 eight_cover

# Seat 1 covers its R8 with R9 from its hand, in the same turn.
EIGHT = dict(players=2, hands={1: ["R8", "R9", "G9"], 0: ["Y3", "Y4", "B5"]}, flip="R5",
             draws=["Y9"])
case("eight_cover-on", **EIGHT, rules={"eight_cover": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R8"), ("play", 1, "R9"),
         ("turn", 0), ("draw", 0, "Y9", "normal"), ("play", 0, "Y9"),
         ("turn", 1), ("play", 1, "G9"),
     ],
     ending=[("round_end", 1, "win", 12), *scores((12, 0), (0, 12))])
case("eight_cover-off", **EIGHT, rules={"eight_cover": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R8"),
         ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R9"),
         ("turn", 0), ("play", 0, "Y9"),
         ("turn", 1), ("play", 1, "G9"),
     ],
     ending=[("round_end", 1, "win", 12), *scores((12, 0), (0, 12))])
# R8 is seat 1's last card: it may not go out on it, and draws until it can cover (Y2, R4).
LAST_EIGHT = dict(players=2, hands={1: ["R1", "R8"], 0: ["Y5", "Y6"]}, flip="R3",
                  draws=["B7", "Y2", "R4", "Y4"])
case("eight_cover-on-the-last-card", **LAST_EIGHT, rules={"eight_cover": True},
     table=[
         ("flip", "R3"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R8"), *draws(1, ["Y2", "R4"], "cover"), ("play", 1, "R4"),
         ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
         ("turn", 1), ("play", 1, "Y2"),
     ],
     ending=[("round_end", 1, "win", 18), *scores((18, 0), (0, 18))],
     facts={"round.normal_draws": 4})
case("eight_cover-off-the-last-card", **LAST_EIGHT, rules={"eight_cover": False},
     table=[
         ("flip", "R3"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R8"),
     ],
     ending=[("round_end", 1, "win", 18), *scores((18, 0), (0, 18))])
# Seat 0, due to act next, jumps in on seat 1's R8: the duty to cover is seat 0's now.
case("eight_cover-jump-in", 2, {1: ["R8", "G1"], 0: ["R8", "R4"]}, "R5",
     rules={"eight_cover": True, "jump_in": "numbers"}, seats={0: {"jump_in": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R8"), ("jump_in", 0, "R8"), ("play", 0, "R4"),
     ],
     ending=[("round_end", 0, "win", 1), *scores((0, 1), (1, 0))])


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- N6: the cap on covers

# 8s covering 8s drawn back from the discards: seat 1 (no red, green or 8 left) covers its R8
# with the G8 below it, the G8 with the R8 reshuffled back, and so on for ever: the round ends
# at the cap once the turn would play more covers than the deck holds (36 cards). Not in FAMILY:
# a kernel that loops must fail the test, not hang the suite, so it is played in a subprocess.
CYCLE = ["R8", "G8"] * 18
ENDLESS_COVERS = Case(
    "eight_cover-covers-recycled-for-ever-end-at-the-cap", 3,
    {1: ["R8", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "B1", "B2", "B3"],
     2: ["B6", "B7", "B9", "Y9", "Y8", "B8", "R1", "R2", "R3", "R4", "R5"],
     0: ["R6", "R7", "R9", "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G9"]},
    "G8", draws=["B4", "B5"], rules={"eight_cover": True, "deck": small_deck(numbers=1)},
    table=[
        ("flip", "G8"),
        ("turn", 1), ("play", 1, "R8"), *draws(1, ["B4", "B5"], "cover"),
        *[e for eight in CYCLE[1:] + CYCLE[:1]
          for e in (("reshuffle", 1), ("draw", 1, eight, "cover"), ("play", 1, eight))],
    ],
    ending=[("round_end", -1, "cap", 0), *scores((59, 0), (43, 0), (62, 0))],
    facts={"round.turns": 1, "round.ended_by": "cap", "round.cards_played": 37})


def test_covers_recycled_for_ever_end_the_round_at_the_cap():
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "from cases import check_case\n"
            "from test_numbers import ENDLESS_COVERS\n"
            "check_case(ENDLESS_COVERS)\n")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- N1 on hand-written traces


def seven_swaps():
    """Seat 2's R7 swaps hands with seat 0, which holds fewer cards than seat 1."""
    return written(
        3, {0: ["R2", "R6"], 1: ["Y1", "B4"], 2: ["R7", "G9"]},
        dealer=2, rules=game_rules(seven_zero=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R2"),
            ("turn", 1), ("draw", 1, "Y3", "normal"), ("pass", 1),
            ("turn", 2), ("play", 2, "R7"), ("swap_hands", 2, 0),
            ("turn", 0), ("draw", 0, "B2", "normal"), ("pass", 0),
            ("turn", 1), ("draw", 1, "Y8", "normal"), ("pass", 1),
            ("turn", 2), ("play", 2, "R6"),
        ],
        ending=[("round_end", 2, "win", 27), *scores((11, 0), (16, 0), (0, 27))],
        game_end=("game_end", 2, "target"))


def test_seven_swaps_hands_with_the_fewest_cards_seat():
    trace = seven_swaps()
    r = the_round(trace)
    assert numbers(r, "turns", "hand_swaps", "winner_seat") == (6, 1, 2)
    assert r.cards_left == (2, 4, 0)
    at = find(trace, codes.EV_SWAP_HANDS)
    broken(changed(trace, at, a=1), re.escape(
        "expected swap_hands of seat 2 with seat 0, the fewest-cards seat (seat 0 1, seat 1 3 "
        "cards; R7 played by seat 2 (seven_zero))"))
    broken(deleted(trace, at), "expected swap_hands of seat 2 with seat 0")
    broken(with_rules(trace, seven_zero=False), "expected turn of seat 0")


def zero_passes():
    """Seat 0's R0 passes every hand on clockwise: seat 1 gets R1 and goes out with it."""
    return written(
        3, {0: ["R0", "R1"], 1: ["Y2", "Y3"], 2: ["B4", "B6"]},
        dealer=2, rules=game_rules(seven_zero=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R0"), ("pass_hands", 0, 1),
            ("turn", 1), ("play", 1, "R1"),
        ],
        ending=[("round_end", 1, "win", 15), *scores((10, 0), (0, 15), (5, 0))],
        game_end=("game_end", 1, "target"))


def test_zero_passes_every_hand_on():
    trace = zero_passes()
    r = the_round(trace)
    assert numbers(r, "turns", "hand_swaps", "winner_seat") == (2, 1, 1)
    assert r.hand_points == (10, 0, 5)
    broken(changed(trace, find(trace, codes.EV_PASS_HANDS), a=-1),
           re.escape("expected pass_hands in direction +1 (R0 played by seat 0, seven_zero)"))
    broken(with_rules(trace, seven_zero=False), "expected turn of seat 1")


def test_zero_or_seven_as_the_last_card_has_no_effect():
    trace = written(
        2, {0: ["R7"], 1: ["Y2"]}, dealer=1, rules=game_rules(seven_zero=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).hand_swaps == 0
    broken(inserted(trace, find(trace, codes.EV_ROUND_END), codes.EV_SWAP_HANDS, 0, 1),
           "expected round_end")


def double_zero(jump_in: str, held: tuple):
    """Seat 2 jumps in on seat 0's R0. Under extreme both 0s pass the hands (twice round);
    otherwise only the jumper's does. The capped round's score events show the hands."""
    passes = [("pass_hands", 0, 1), ("pass_hands", 2, 1)] if jump_in == "extreme" else [
        ("pass_hands", 2, 1)]
    return written(
        3, {0: ["R0", "G1"], 1: ["Y2", "Y3"], 2: ["R0", "B4"]},
        dealer=2, rules=one_turn_rules({"zero": 2}, seven_zero=True, jump_in=jump_in),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R0"), ("jump_in", 2, "R0"), *passes,
        ],
        ending=[("round_end", -1, "cap", 0), *scores(*((points, 0) for _, points in held))])


@pytest.mark.parametrize("jump_in, held", [
    ("extreme", ((2, 5), (1, 4), (1, 1))),  # twice on: seat 0 holds what seat 1 held
    ("numbers", ((1, 4), (1, 1), (2, 5))),  # once: seat 0 holds what seat 2 held
])
def test_jump_in_on_a_zero(jump_in, held):
    r = the_round(double_zero(jump_in, held))
    assert tuple(zip(r.cards_left, r.hand_points)) == held
    assert numbers(r, "hand_swaps", "jump_ins") == ((2 if jump_in == "extreme" else 1), 1)


@pytest.mark.parametrize("jump_in, swaps", [
    ("numbers", [(2, 0)]),  # only the jumper's 7 has its effect
    ("extreme", [(0, 2), (2, 0)]),  # both, in turn: each with its fewest-cards seat then
])
def test_jump_in_on_a_seven(jump_in, swaps):
    held = {"numbers": ((4, 0), (5, 0), (1, 0)), "extreme": ((1, 0), (5, 0), (4, 0))}[jump_in]
    trace = written(
        3, {0: ["R7", "G1"], 1: ["Y2", "Y3"], 2: ["R7", "B4"]},
        dealer=2, rules=one_turn_rules({"numbers": 2}, seven_zero=True, jump_in=jump_in),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"), ("jump_in", 2, "R7"),
            *(("swap_hands", seat, other) for seat, other in swaps),
        ],
        ending=[("round_end", -1, "cap", 0), *scores(*held)])
    assert the_round(trace).hand_swaps == len(swaps)



# ---------------------------------------------------------------- N2 on hand-written traces


def five_swap():
    """Seat 0's R5: it gives G9 (its only number card), seat 1 gives B8 (its highest number)."""
    trace = written(
        2, {0: ["R5", "+4", "G9"], 1: ["Y1", "Y2", "B8"]},
        dealer=1, rules=game_rules(five_swap=True),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R5"), ("give", 0, "G9", 1), ("give", 1, "B8", 0),
            ("turn", 1), ("draw", 1, "R6", "normal"), ("play", 1, "R6"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "blue"),
            *draws(1, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 1),
            ("turn", 0), ("play", 0, "B8"),
        ],
        ending=[("round_end", 0, "win", 22), *scores((0, 22), (22, 0))],
        game_end=("game_end", 0, "target"))
    return with_policies(trace, "first_legal", "high_value_first")


def test_five_swap():
    trace = five_swap()
    r = the_round(trace)
    assert numbers(r, "card_swaps", "turns", "cards_played") == (1, 4, 4)
    assert r.hand_points == (0, 22)


def test_five_swap_least_useful_card():
    trace = five_swap()
    give = find(trace, codes.EV_GIVE, seat=0)
    # Every policy but the strategist gives the card it scores best: first_legal the lowest id,
    # high_value_first the card worth the most points (seat 0's +4).
    broken(changed(trace, give, a=card("+4")), re.escape(
        "seat 0 (first_legal, weights) must give a card it scores best: G9 (N2, D5)"))
    broken(changed(trace, give + 1, a=card("Y1")), re.escape(
        "seat 1 (high_value_first, weights) must give a card it scores best: B8 (N2, D5)"))
    broken(with_policies(trace, "high_value_first", "high_value_first"),
           r"seat 0 \(high_value_first, weights\) must give a card it scores best: \+4")
    # The strategist gives its least useful card: numbers first, the most points.
    strategist = with_policies(trace, "strategist", "strategist")
    check_trace(strategist)
    broken(changed(strategist, give, a=card("+4")),
           re.escape("seat 0 (strategist) must give its least useful card, G9 (N2)"))
    # A random seat may give any card it holds: the trace then fails only later, when seat 1,
    # holding the +4 it was given, draws instead of playing.
    err = broken(changed(with_policies(trace, "random", "random"), give, a=card("+4")),
                 r"expected a play by seat 1: it holds legal cards \(\+4\)")
    assert err.index == find(trace, codes.EV_DRAW, a=card("R6"))
    broken(changed(trace, give, b=0), r"expected give by seat 0 of its least useful card to "
                                      r"seat 1 \(R5 played by seat 0 \(five_swap\)\)")
    broken(with_rules(trace, five_swap=False), "expected turn of seat 1")


# ---------------------------------------------------------------- N3 on hand-written traces


def same_rank():
    return written(
        2, {0: ["R5", "B5", "G5"], 1: ["B2", "B7", "Y9"]},
        dealer=1, rules=game_rules({"numbers": 2}, multi_play="same_rank"),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R5"), ("play", 0, "G5"), ("play", 0, "B5"),
        ],
        ending=[("round_end", 0, "win", 18), *scores((0, 18), (18, 0))],
        game_end=("game_end", 0, "target"))


def test_same_rank():
    trace = same_rank()
    assert numbers(the_round(trace), "turns", "cards_played") == (1, 3)
    broken(changed(trace, find(trace, codes.EV_PLAY, nth=1), a=card("B5")),
           "expected G5: same_rank plays in card-id order")
    broken(deleted(trace, find(trace, codes.EV_PLAY, nth=2)),
           r"expected play of B5 by seat 0 \(multi_play same_rank")
    broken(with_rules(trace, multi_play="none"), "seat 0 has no further card to play")


def two_matching():
    """Seat 0 plays R-skip and B3 (it matches R3, the top card at the start of the turn)."""
    return written(
        2, {0: ["R-skip", "B3", "B7"], 1: ["G1", "G2", "G4"]},
        dealer=1, rules=game_rules(multi_play="two_matching"),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R-skip"), ("play", 0, "B3"), ("skip", 1),
            ("turn", 0), ("play", 0, "B7"),
        ],
        ending=[("round_end", 0, "win", 7), *scores((0, 7), (7, 0))],
        game_end=("game_end", 0, "target"))


def test_two_matching():
    trace = two_matching()
    assert numbers(the_round(trace), "turns", "cards_played", "skips") == (2, 3, 1)
    broken(changed(trace, find(trace, codes.EV_PLAY, nth=1), a=card("B7")),
           "B7 is not a number card matching R3 in red, the top card at the start of the turn")
    broken(deleted(trace, find(trace, codes.EV_PLAY, nth=1)),
           r"expected a second card by seat 0 \(multi_play two_matching: it holds B3")
    at = find(trace, codes.EV_SKIP)
    broken(inserted(trace, at, codes.EV_PLAY, 0, card("B7")),
           "seat 0 has no further card to play in this turn")


# ---------------------------------------------------------------- N4 on hand-written traces


def zero_slap():
    return written(
        2, {0: ["R0", "R1"], 1: ["Y2", "Y3"]}, dealer=1, rules=game_rules(zero_slap=4),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R0"), ("slap", 1, 0, "zero"),
            *draws(1, ["B1", "B2", "B3", "B4"], "slap"),
            ("turn", 1), ("draw", 1, "G6", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 21), *scores((0, 21), (21, 0))],
        game_end=("game_end", 0, "target"))


def test_zero_slap():
    trace = zero_slap()
    r = the_round(trace)
    assert numbers(r, "slaps", "penalty_cards", "normal_draws") == (1, 4, 1)
    at = find(trace, codes.EV_SLAP)
    broken(changed(trace, at, seat=0),
           re.escape("expected slap (0 played by seat 0): the slowest of seats 1 draws 4"))
    broken(changed(trace, at, b=codes.SLAP_UNO), re.escape("expected a = 0 (who started it) and "
                                                         "b = 0 (0 played)"))
    broken(deleted(trace, at), "expected slap")
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=3)), r"card 4 of 4; slowest in the slap")
    broken(with_rules(trace, zero_slap=0), "expected turn of seat 1")
    broken(with_rules(trace, zero_slap=2), r"expected turn of seat 1")


@pytest.mark.parametrize("slowest", [1, 2])
def test_any_other_seat_may_be_the_slowest(slowest):
    trace = written(
        3, {0: ["R0", "R1"], 1: ["Y2", "Y3"], 2: ["G4", "G6"]},
        dealer=2, rules=one_turn_rules(zero_slap=2),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R0"), ("slap", slowest, 0, "zero"),
            *draws(slowest, ["B1", "B2"], "slap"),
        ],
        ending=[
            ("round_end", -1, "cap", 0),
            *scores((1, 0), (5 + 3 * (slowest == 1), 0), (10 + 3 * (slowest == 2), 0)),
        ])
    r = the_round(trace)
    assert r.cards_left[slowest] == 4


def uno_slap(call: bool):
    called = ([("uno_call", 0), ("slap", 1, 0, "uno"), *draws(1, ["G3", "G4"], "slap")] if call
              else [("uno_miss", 0, -1)])
    points = 13 + (7 if call else 0)
    return written(
        2, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}, dealer=1,
        rules=game_rules(uno_penalty=2, uno_slap=2),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"), *called,
            ("turn", 1), ("draw", 1, "G6", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R2"),
        ],
        ending=[("round_end", 0, "win", points), *scores((0, points), (points, 0))],
        game_end=("game_end", 0, "target"))



def test_uno_slap():
    trace = uno_slap(call=True)
    assert numbers(the_round(trace), "slaps", "penalty_cards") == (1, 2)
    broken(deleted(trace, find(trace, codes.EV_SLAP)), r"expected slap \(UNO called by seat 0\)")
    broken(with_rules(trace, uno_slap=0), "expected turn of seat 1")
    # A forgotten call starts no slap.
    trace = uno_slap(call=False)
    assert the_round(trace).slaps == 0
    broken(inserted(trace, find(trace, codes.EV_UNO_MISS) + 1, codes.EV_SLAP, 1, 0,
                    codes.SLAP_UNO), "expected turn of seat 1")


# ---------------------------------------------------------------- N5 on hand-written traces


def seven_silence():
    """Seat 0's R7 imposes silence; seat 2 breaks it in seat 1's turn and draws 4."""
    return written(
        3, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]},
        dealer=2, rules=game_rules(silence="seven"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"),
            ("turn", 1), ("silence_break", 2, 4), *draws(2, ["B1", "B2", "B3", "B4"], "silence"),
            ("play", 1, "R3"),
            ("turn", 2), ("play", 2, "R4"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 13), *scores((0, 13), (1, 0), (12, 0))],
        game_end=("game_end", 0, "target"))


def test_seven_silence():
    trace = seven_silence()
    r = the_round(trace)
    assert numbers(r, "silence_breaks", "penalty_cards", "turns") == (1, 4, 4)
    at = find(trace, codes.EV_SILENCE_BREAK)
    broken(changed(trace, at, a=2), r"breaking a silence \(seven\) costs 4 cards, a = 2")
    broken(changed(trace, find(trace, codes.EV_DRAW), b=codes.DRAW_NORMAL),
           "expected draw reason silence")
    broken(with_rules(trace, silence="none"), r"silence: none has no silence to break \(N5\)")
    # Broken once, it is over: seat 2 cannot break it again in its own turn.
    again = inserted(trace, find(trace, codes.EV_TURN, seat=2) + 1, codes.EV_SILENCE_BREAK, 1, 4)
    broken(again, r"no silence holds at seat 2's turn, so none can be broken \(N5\)")


def test_silence_ends_at_the_owners_next_turn():
    trace = written(
        3, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]},
        dealer=2, rules=game_rules(silence="seven"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"),
            ("turn", 1), ("play", 1, "R3"),
            ("turn", 2), ("play", 2, "R4"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 3), *scores((0, 3), (1, 0), (2, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).silence_breaks == 0
    # Too late in seat 0's (the owner's) next turn: its silence has ended.
    late = inserted(trace, find(trace, codes.EV_TURN, seat=0, nth=1) + 1,
                    codes.EV_SILENCE_BREAK, 1, 4)
    broken(late, "no silence holds at seat 0's turn")
    # Still in time in seat 2's turn, even by the owner itself.
    trace = written(
        3, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]},
        dealer=2, rules=one_turn_rules(silence="seven", max_turns=3),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"),
            ("turn", 1), ("play", 1, "R3"),
            ("turn", 2), ("silence_break", 0, 4), *draws(0, ["B1", "B2", "B3", "B4"], "silence"),
            ("play", 2, "R4"),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((11, 0), (1, 0), (2, 0))])
    assert the_round(trace).silence_breaks == 1


def test_a_later_seven_makes_its_player_the_owner():
    """Seat 1's Y7 renews the silence: it still holds in seat 0's turn, and ends in seat 1's."""
    trace = written(
        3, {0: ["R7", "Y3"], 1: ["Y7", "Y1"], 2: ["Y4", "G2"]},
        dealer=2, rules=game_rules(silence="seven"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R7"),
            ("turn", 1), ("play", 1, "Y7"),
            ("turn", 2), ("play", 2, "Y4"),
            ("turn", 0), ("silence_break", 2, 4), *draws(2, ["B1", "B2", "B3", "B4"], "silence"),
            ("play", 0, "Y3"),
        ],
        ending=[("round_end", 0, "win", 13), *scores((0, 13), (1, 0), (12, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).silence_breaks == 1


def two_silence():
    """Seat 0's R2: silent until seat 0's turn comes back; seat 1 breaks it and draws 2."""
    return written(
        2, {0: ["R2", "R1"], 1: ["Y3", "Y4"]}, dealer=1, rules=game_rules(silence="two"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R2"),
            ("turn", 1), ("silence_break", 1, 2), *draws(1, ["B5", "B6"], "silence"),
            ("draw", 1, "G7", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 25), *scores((0, 25), (25, 0))],
        game_end=("game_end", 0, "target"))


def test_two_silence():
    trace = two_silence()
    assert numbers(the_round(trace), "silence_breaks", "penalty_cards", "normal_draws") == (
        1, 2, 1)
    broken(changed(trace, find(trace, codes.EV_SILENCE_BREAK), a=4),
           r"breaking a silence \(two\) costs 2 cards, a = 4")
    for other in ("seven", "black"):  # neither starts with a 2
        broken(with_rules(trace, silence=other), "no silence holds at seat 1's turn")


def black_silence(third: str, then: list[tuple], **end) -> Trace:
    """Seat 0's Wild (red) imposes silence until the colour changes: seat 1's R3 keeps red;
    ``then`` goes on from there (``end``: the ending and game_end, if the trace has them)."""
    return written(
        3, {0: ["wild", "R1"], 1: ["R3", "Y1"], 2: [third, "G2"]},
        dealer=2, rules=game_rules(silence="black"),
        table=[
            ("flip", "Y5"),
            ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"),
            ("turn", 1), ("play", 1, "R3"), *then,
        ],
        **end)


def test_black_silence_holds_while_the_colour_does():
    trace = black_silence(
        "R4", [("turn", 2), ("silence_break", 1, 2), *draws(1, ["B1", "B2"], "silence"),
               ("play", 2, "R4"), ("turn", 0), ("play", 0, "R1")],
        ending=[("round_end", 0, "win", 6), *scores((0, 6), (4, 0), (2, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).silence_breaks == 1
    broken(changed(trace, find(trace, codes.EV_SILENCE_BREAK), a=4),
           r"breaking a silence \(black\) costs 2 cards")


def test_black_silence_ends_when_the_colour_changes():
    # seat 2's Y3 (on R3) turns the colour yellow
    trace = black_silence("Y3", [("turn", 2), ("play", 2, "Y3"), ("turn", 0),
                                 ("silence_break", 1, 2)], game_end=None)
    err = broken(trace, "no silence holds at seat 0's turn")
    assert err.index == find(trace, codes.EV_SILENCE_BREAK)


def test_the_first_discard_starts_no_silence():
    trace = written(
        2, {0: ["R1"], 1: ["Y2"]}, dealer=1, rules=game_rules(silence="seven"),
        table=[
            ("flip", "R7"),
            ("turn", 0), ("silence_break", 1, 4),
        ],
        game_end=None)
    broken(trace, "no silence holds at seat 0's turn")


# ---------------------------------------------------------------- N6 on hand-written traces


def eight_covered():
    return written(
        2, {0: ["R8", "R1", "Y1"], 1: ["Y3", "Y4", "B5"]},
        dealer=1, rules=game_rules(eight_cover=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R8"), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "G6", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "Y1"),
        ],
        ending=[("round_end", 0, "win", 18), *scores((0, 18), (18, 0))],
        game_end=("game_end", 0, "target"))


def test_eight_cover():
    trace = eight_covered()
    assert numbers(the_round(trace), "turns", "cards_played") == (3, 3)
    cover = find(trace, codes.EV_PLAY, a=card("R1"))
    broken(deleted(trace, cover), re.escape("expected cover of R8 by seat 0 (eight_cover)"))
    broken(changed(trace, cover, a=card("Y1")), "illegal play: Y1 matches neither")
    broken(with_rules(trace, eight_cover=False), "seat 0 has no further card to play")


def last_eight_covered_by_drawing():
    """R8 was seat 0's last card: it draws until it can cover it (Y2, then R4)."""
    return written(
        2, {0: ["R1", "R8"], 1: ["Y5", "Y6"]}, dealer=1, rules=game_rules(eight_cover=True),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R8"), *draws(0, ["Y2", "R4"], "cover"), ("play", 0, "R4"),
            ("turn", 1), ("draw", 1, "Y4", "normal"), ("play", 1, "Y4"),
            ("turn", 0), ("play", 0, "Y2"),
        ],
        ending=[("round_end", 0, "win", 18), *scores((0, 18), (18, 0))],
        game_end=("game_end", 0, "target"))


def test_an_eight_as_the_last_card_is_covered_all_the_same():
    trace = last_eight_covered_by_drawing()
    r = the_round(trace)
    assert numbers(r, "normal_draws", "penalty_cards", "winner_seat", "turns") == (4, 0, 0, 5)
    at = find(trace, codes.EV_DRAW, a=card("R4"))
    broken(changed(trace, at, b=codes.DRAW_NORMAL), "expected draw reason cover")
    # It may not go out on the 8.
    trace = written(
        2, {0: ["R1", "R8"], 1: ["Y5", "Y6"]}, dealer=1, rules=game_rules(eight_cover=True),
        table=[
            ("flip", "R3"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R8"),
        ],
        ending=[("round_end", 0, "win", 18), *scores((0, 18), (18, 0))],
        game_end=("game_end", 0, "target"))
    broken(trace, r"expected draw by seat 0 \(cover, card 1, until it can cover R8\)")


def eight_jumped_on(jump_in: str):
    """Seat 2 jumps in on seat 0's R8: the duty is seat 2's, which covers with R4 and wins."""
    return written(
        3, {0: ["R8", "R1"], 1: ["Y2", "Y3"], 2: ["R8", "R4"]},
        dealer=2, rules=game_rules({"numbers": 2}, eight_cover=True, jump_in=jump_in),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R8"), ("jump_in", 2, "R8"), ("play", 2, "R4"),
        ],
        ending=[("round_end", 2, "win", 6), *scores((1, 0), (5, 0), (0, 6))],
        game_end=("game_end", 2, "target"))


@pytest.mark.parametrize("jump_in", ["numbers", "all_but_draw_four", "extreme"])
def test_a_jump_in_moves_the_duty(jump_in):
    trace = eight_jumped_on(jump_in)
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins") == (1, 3, 1)
    cover = find(trace, codes.EV_PLAY, a=card("R4"))
    broken(changed(trace, cover, seat=0), "expected cover of R8 by seat 2")


def test_a_jump_in_on_the_last_eight_lets_its_player_out():
    """Seat 0 played its last card, an R8; once seat 2 takes the duty, seat 0 has gone out."""
    trace = written(
        3, {0: ["R8"], 1: ["Y2"], 2: ["R8"]},
        dealer=2, rules=game_rules({"numbers": 2}, eight_cover=True, jump_in="numbers"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R8"), ("jump_in", 2, "R8"),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0), (0, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "winner_seat", "jump_ins") == (0, 1)
    # With UNO on, seat 0's call (it holds one card) comes right after the jump-in.
    trace = written(
        3, {0: ["R8", "G1"], 1: ["Y2", "Y3"], 2: ["R8", "R4"]},
        dealer=2,
        rules=game_rules({"numbers": 2}, eight_cover=True, jump_in="numbers", uno_penalty=2),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R8"), ("jump_in", 2, "R8"), ("uno_call", 0),
            ("play", 2, "R4"),
        ],
        ending=[("round_end", 2, "win", 6), *scores((1, 0), (5, 0), (0, 6))],
        game_end=("game_end", 2, "target"))
    check_trace(trace)
    broken(deleted(trace, find(trace, codes.EV_UNO_CALL)), "expected uno_call or uno_miss by "
                                                          "seat 0")


def test_an_eight_covered_by_an_eight_is_covered_in_turn():
    trace = written(
        2, {0: ["R8", "G8", "G1"], 1: ["Y3", "Y4", "B5"]},
        dealer=1, rules=game_rules(eight_cover=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R8"), ("play", 0, "G8"), ("play", 0, "G1"),
        ],
        ending=[("round_end", 0, "win", 12), *scores((0, 12), (12, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "turns", "cards_played") == (1, 3)
    broken(deleted(trace, find(trace, codes.EV_PLAY, a=card("G1"))),
           "expected cover of G8 by seat 0")


def test_eight_cover_and_multi_play_are_forbidden():
    broken(with_rules(eight_covered(), multi_play="same_rank"),
           "trace.rules combine what docs/engine.md forbids: multi_play: same_rank cannot be "
           "combined with eight_cover: true")


def test_format_trace_shows_the_number_card_events():
    lines = format_trace(zero_slap()).splitlines()
    assert "r1 t1 seat 1 is the slowest to slap (0 played by seat 0)" in lines
    assert "r1 t1 seat 1 draws B1 (slap)" in lines
    lines = format_trace(seven_swaps()).splitlines()
    assert "r1 t3 seat 2 swaps hands with seat 0" in lines
    lines = format_trace(five_swap()).splitlines()
    assert "r1 t1 seat 0 gives G9 to seat 1" in lines
    lines = format_trace(seven_silence()).splitlines()
    assert "r1 t2 seat 2 breaks the silence and owes 4 cards" in lines
    lines = format_trace(zero_passes()).splitlines()
    assert "r1 t1 every hand passes on in direction +1" in lines
