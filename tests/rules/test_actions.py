"""Action cards: A1 Skip, Reverse, Draw Two and Wild Draw Four; A2 double action; A7 stack_skip;
A8 skip_escape; A9 the extra black cards (D3 blank +10, D4 hit-all +1/+2, D5 Wild Swap Hands and
the customizable wild); P2-P4 restricted black cards, bluffs and challenges.

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import re

import pytest
from cases import (
    ONE_OF_EACH,
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
    action_cards,
    broken,
    changed,
    deleted,
    find,
    hit_all,
    inserted,
    numbers,
    the_round,
    with_policies,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import GameResult, check_trace, format_trace

# The rule options this family owns: each is played on and off on one deal (cases.py); a deck
# extra is played on a deal and on the same deal with a plain Wild in its place.
OPTIONS = ("wild_draw_four", "wild", "challenge", "double_action", "stack_skip", "skip_escape",
           "blank_effect", "custom_wild_effect", "deck.blank", "deck.hit_all_one",
           "deck.hit_all_two", "deck.swap_hands", "deck.custom_wild")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- A1: action cards

case("skip-and-matching-by-symbol", 3,
     {1: ["R-skip", "Y1"], 2: ["G5", "B6"], 0: ["G-skip", "G7"]}, "R4",
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
         ("turn", 0), ("play", 0, "G-skip"), ("skip", 1),  # same symbol
         ("turn", 2), ("play", 2, "G5"),
         ("turn", 0), ("play", 0, "G7"),
     ],
     ending=[("round_end", 0, "win", 7), *scores((0, 7), (1, 0), (6, 0))],
     facts={"round.skips": 2})
case("reverse-3-players-flips-the-direction", 3,
     {1: ["R-reverse", "Y5"], 2: ["R5", "B6"], 0: ["R7", "G8"]}, "R4",
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
         ("turn", 0), ("play", 0, "R7"),
         ("turn", 2), ("play", 2, "R5"),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 14), *scores((8, 0), (0, 14), (6, 0))],
     facts={"round.direction_changes": 1})
case("reverse-twice-restores-clockwise-play", 3,
     {1: ["R-reverse", "G1"], 2: ["B5", "B6"], 0: ["G-reverse", "G7"]}, "R4",
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
         ("turn", 0), ("play", 0, "G-reverse"), ("direction", 1),
         ("turn", 1), ("play", 1, "G1"),
     ],
     ending=[("round_end", 1, "win", 18), *scores((7, 0), (0, 18), (11, 0))],
     facts={"round.direction_changes": 2})
case("reverse-2-players-acts-as-skip", 2, {1: ["R-reverse", "R5"], 0: ["G1", "G2"]}, "R4",
     seats={1: {"policy": "high_value_first"}},
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R-reverse"), ("skip", 0),
         ("turn", 1), ("play", 1, "R5"),
     ],
     ending=[("round_end", 1, "win", 3), *scores((3, 0), (0, 3))],
     facts={"round.direction_changes": 0})
case("draw-two-next-player-draws-two-and-is-skipped", 3,
     {1: ["R+2", "Y5"], 2: ["G1", "G2"], 0: ["B1", "R5"]}, "R4", ["B7", "B8"],
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "R+2"), *draws(2, ["B7", "B8"], "draw_two"), ("skip", 2),
         ("turn", 0), ("play", 0, "R5"),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 19), *scores((1, 0), (0, 19), (18, 0))])
case("wild-draw-four-next-player-draws-four-and-is-skipped", 3,
     {1: ["+4", "Y5"], 2: ["G1", "G2"], 0: ["B1", "Y3"]}, "R4", ["B6", "B7", "B8", "B9"],
     seats={1: {"policy": "high_value_first"}},
     table=[
         ("flip", "R4"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
         *draws(2, ["B6", "B7", "B8", "B9"], "draw_four"), ("skip", 2),
         ("turn", 0), ("play", 0, "Y3"),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 34), *scores((1, 0), (0, 34), (33, 0))])

# ---------------------------------------------------------------- P2, P4: Wild Draw Four

PLUS_FOUR = dict(players=2, hands={1: ["R3", "+4"], 0: ["Y1", "Y2"]}, flip="R5")  # seat 1: red
# high_value_first would play the +4 (50 points) first if it were legal.
case("wild_draw_four-restricted-without-bluff-waits-until-the-colour-is-gone", **PLUS_FOUR,
     draws=["Y3", "B6", "B7", "B8", "B9"], rules={"wild_draw_four": "no_matching_colour"},
     seats={1: {"policy": "high_value_first", "bluff": 0.0}, 0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R3"),
         ("turn", 0), ("draw", 0, "Y3", "normal"), ("play", 0, "Y3"),
         # No yellow card left in hand: the +4 is legal now. It is the last card, so the next
         # player draws 4 before counting, and nobody may challenge it.
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
         *draws(0, ["B6", "B7", "B8", "B9"], "draw_four"),
     ],
     ending=[("round_end", 1, "win", 33), *scores((33, 0), (0, 33))])
for rule, bluff, challenge, name in (
        ("no_matching_colour", 1.0, 0.0, "bluff"),  # a certain bluff: played holding red
        ("free", 0.0, 1.0, "free")):  # free: legal at any time, and never challenged
    case(f"wild_draw_four-{rule}-played-while-holding-the-colour-{name}", **PLUS_FOUR,
         draws=["B6", "B7", "B8", "B9"], rules={"wild_draw_four": rule},
         seats={1: {"policy": "high_value_first", "bluff": bluff}, 0: {"challenge": challenge}},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
             *draws(0, ["B6", "B7", "B8", "B9"], "draw_four"), ("skip", 0),
             ("turn", 1), ("play", 1, "R3"),
         ],
         ending=[("round_end", 1, "win", 33), *scores((33, 0), (0, 33))],
         facts={"round.challenges": 0})

case("challenge-official-guilty-player-draws-four-and-the-victim-plays", 2,
     {1: ["R3", "+4"], 0: ["R1", "R2"]}, "R5", ["B6", "B7", "B8", "B9"],
     rules={"challenge": "official"},
     seats={1: {"policy": "high_value_first", "bluff": 1.0}, 0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
         ("challenge", 0, 1, "guilty"), *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
         ("turn", 0), ("play", 0, "R1"),  # the victim takes its turn normally
         ("turn", 1), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "R2"),
     ],
     ending=[("round_end", 0, "win", 30), *scores((0, 30), (30, 0))],
     facts={"round.challenges": 1, "round.challenges_won": 1, "round.penalty_cards": 4,
            "round.skips": 0})
# Y5 matches the R5 by number, but guilt is about the colour: seat 1 holds no red card.
INNOCENT_PLUS_FOUR = dict(players=2, hands={1: ["Y5", "+4"], 0: ["R1", "R2"]}, flip="R5")
case("challenge-official-innocent-challenger-draws-six-and-is-skipped", **INNOCENT_PLUS_FOUR,
     draws=["B1", "B2", "B3", "B4", "B5", "B6"],
     seats={1: {"policy": "high_value_first"}, 0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
         ("challenge", 0, 1, "innocent"),
         *draws(0, ["B1", "B2", "B3", "B4", "B5", "B6"], "challenge"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 24), *scores((24, 0), (0, 24))],
     facts={"round.challenges": 1, "round.challenges_won": 0, "round.penalty_cards": 6})
case("no-challenge-victim-draws-four-and-is-skipped", **INNOCENT_PLUS_FOUR,
     draws=["B1", "B2", "B3", "B4"],
     seats={1: {"policy": "high_value_first"}, 0: {"challenge": 0.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
         *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 13), *scores((13, 0), (0, 13))],
     facts={"round.challenges": 0})
# P5: a drawn +4 may be played at once, and is innocent (seat 1 held no red).
case("one_may_play-a-drawn-wild-draw-four-is-played", 2, {1: ["Y7"], 0: ["G3"]}, "R5",
     ["+4", "B1", "B2", "B3", "B4"], seats={0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "+4", "normal"), ("play", 1, "+4"), ("colour", 1, "yellow"),
         ("challenge", 0, 1, "innocent"),
     ], prefix=True)

# 7 cards: the four zeros and three +4s. With 2 hands of 3 dealt, every acceptable first card is
# in a hand, so the flipped +4 stays (S2) with no effect and no colour named. docs/engine.md: a
# restricted +4 is legal "only when the player holds no card of the current colour", and guilt
# is holding "a card of the colour that was current". There is no current colour here (colours
# are red, yellow, green and blue), so the +4 is legal and an innocent play: black cards never
# count as holding the current "colour" (else the +4 in hand would make itself illegal, nobody
# could ever play and the round would run into the turn cap).
BLACK_FIRST = dict(players=2, hands={1: ["R0", "Y0", "+4"], 0: ["G0", "B0", "+4"]}, flip="+4")
BLACK_FIRST_RULES = {"deck": small_deck(zero=1, wild_draw_four=3), "max_turns": 10}
# The table events of that deal when seat 1's +4 is not challenged (restricted or free).
BLACK_FIRST_PLAYED = [
    ("flip", "+4"),
    ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
    ("reshuffle", 1), ("draw", 0, "+4", "draw_four"), ("draw_fail", 0, "draw_four"),
    ("skip", 0),
    ("turn", 1), ("play", 1, "R0"),
    ("turn", 0), ("play", 0, "G0"),
    ("turn", 1), ("play", 1, "Y0"),
]
BLACK_FIRST_ENDING = [("round_end", 1, "win", 100), *scores((100, 0), (0, 100))]
case("wild_draw_four-restricted-is-legal-on-a-plus-four-first-card-that-stays", **BLACK_FIRST,
     rules=BLACK_FIRST_RULES, seats={1: {"bluff": 0.0}, 0: {"challenge": 0.0}},
     table=BLACK_FIRST_PLAYED, ending=BLACK_FIRST_ENDING)
case("wild_draw_four-on-a-plus-four-first-card-that-stays-is-innocent", **BLACK_FIRST,
     rules=BLACK_FIRST_RULES, seats={1: {"bluff": 1.0}, 0: {"challenge": 1.0}},
     table=[("flip", "+4"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
            ("challenge", 0, 1, "innocent")], prefix=True)
case("wild_draw_four-free-is-played-on-a-plus-four-first-card-that-stays", **BLACK_FIRST,
     rules={**BLACK_FIRST_RULES, "wild_draw_four": "free"},
     table=BLACK_FIRST_PLAYED, ending=BLACK_FIRST_ENDING)

# ---------------------------------------------------------------- P3 wild: no_matching_colour

WILD_AT_ONCE = [
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
    ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R3"),
]
WILD_WAITS = [
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R3"),  # the Wild is not legal while seat 1 holds red
    ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
    # No red card left: the Wild is legal now. It is the last card: nobody may challenge it.
    ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
]
# high_value_first plays the Wild (50 points) first whenever it may.
for wild, bluff, challenge, table, name in (
        # free: legal at any time, and never challenged
        ("free", 0.0, 1.0, WILD_AT_ONCE, "free"),
        ("no_matching_colour", 1.0, 0.0, WILD_AT_ONCE, "restricted-bluff"),
        ("no_matching_colour", 0.0, 1.0, WILD_WAITS, "restricted-no-bluff")):
    case(f"wild-{name}", 2, {1: ["R3", "wild"], 0: ["Y1", "Y2"]}, "R5", ["B6"],
         rules={"wild": wild},
         seats={1: {"policy": "high_value_first", "bluff": bluff}, 0: {"challenge": challenge}},
         table=table, ending=[("round_end", 1, "win", 9), *scores((9, 0), (0, 9))],
         facts={"round.challenges": 0})

RESTRICTED_WILD = {1: {"policy": "high_value_first", "bluff": 1.0}}
# Guilty (seat 1 held red): seat 1 draws 4, the Wild stays and seat 0 plays on it.
case("wild-restricted-challenge-official-guilty", 2, {1: ["R3", "wild"], 0: ["R1", "R2"]}, "R5",
     ["B6", "B7", "B8", "B9"], rules={"wild": "no_matching_colour"},
     seats={**RESTRICTED_WILD, 0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "wild"),
         ("colour", 1, "red"), ("challenge", 0, 1, "guilty"),
         *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
         ("turn", 0), ("play", 0, "R1"),
         ("turn", 1), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "R2"),
     ],
     ending=[("round_end", 0, "win", 30), *scores((0, 30), (30, 0))],
     facts={"round.challenges": 1, "round.challenges_won": 1})
# Innocent (Y5 matches by number, but seat 1 held no red): seat 0 draws 2, then takes its turn
# (not skipped, unlike a +4).
case("wild-restricted-challenge-official-innocent", 2, {1: ["Y5", "wild"], 0: ["R1", "R2"]},
     "R5", ["B6", "B7", "B8", "B9"], rules={"wild": "no_matching_colour"},
     seats={**RESTRICTED_WILD, 0: {"challenge": 1.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "wild"),
         ("colour", 1, "yellow"), ("challenge", 0, 1, "innocent"),
         *draws(0, ["B6", "B7"], "challenge"),
         ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 24), *scores((24, 0), (0, 24))],
     facts={"round.challenges": 1, "round.challenges_won": 0})
# Not challenged: a Wild carries no penalty.
case("wild-restricted-not-challenged", 2, {1: ["Y5", "wild"], 0: ["R1", "R2"]}, "R5",
     ["B6", "B7", "B8", "B9"], rules={"wild": "no_matching_colour"},
     seats={**RESTRICTED_WILD, 0: {"challenge": 0.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "wild"),
         ("colour", 1, "yellow"),
         ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "Y5"),
     ],
     ending=[("round_end", 1, "win", 9), *scores((9, 0), (0, 9))],
     facts={"round.challenges": 0, "round.challenges_won": 0})

# ---------------------------------------------------------------- P4 challenge: house, extreme

# Seat 1 bluffs on Y5 (it holds Y3) and names red (red and yellow tie: the lower index). Caught,
# it takes the card back: Y5 is the top card again and yellow the colour, so seat 0 may play its
# Y-skip, which a red black card would not allow.
TAKE_BACK_DRAWS = ["B6", "B7", "B8", "B9", "G9"]
BLUFFER = {1: {"policy": "high_value_first", "bluff": 1.0}, 0: {"challenge": 1.0}}


def _take_back_hands(black: str) -> dict[int, list[str]]:
    return {1: ["Y3", "R4", black], 0: ["Y-skip", "G-skip", "G1"]}


def _black_rules(black: str, challenge: str) -> dict:
    return {"challenge": challenge, **({"wild": "no_matching_colour"} if black == "wild" else {})}


for black in ("+4", "wild"):
    for challenge in ("house", "extreme"):
        case(f"challenge-{challenge}-guilty-{black}-taken-back-and-four-drawn", 2,
             _take_back_hands(black), "Y5", TAKE_BACK_DRAWS, rules=_black_rules(black, challenge),
             seats=BLUFFER,
             table=[
                 ("flip", "Y5"),
                 ("turn", 1), ("play", 1, black), ("colour", 1, "red"),
                 ("challenge", 0, 1, "guilty"), ("take_back", 1, black),
                 *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
                 # Y5 and yellow are current again; the challenger takes its turn normally.
                 ("turn", 0), ("play", 0, "Y-skip"), ("skip", 1),
                 ("turn", 0), ("play", 0, "G-skip"), ("skip", 1),
                 ("turn", 0), ("play", 0, "G1"),
             ],
             # Seat 1 holds its black card again: 3 + 4 + 50 + the four blue cards.
             ending=[("round_end", 0, "win", 87), *scores((0, 87), (87, 0))],
             facts={"round.challenges": 1, "round.challenges_won": 1, "round.penalty_cards": 4})
# For contrast: the +4 stays and red stays current: seat 0 cannot play its Y-skip and draws.
case("challenge-official-same-deal-the-guilty-card-stays", 2, _take_back_hands("+4"), "Y5",
     [*TAKE_BACK_DRAWS, "B5", "Y4", "G4"], seats=BLUFFER,
     table=[
         ("flip", "Y5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
         ("challenge", 0, 1, "guilty"), *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
         ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R4"),
     ], prefix=True, every={"take_back": []})

# Seat 1 holds no red: innocent. The challenger draws 6 (+4; 8 under extreme) and is skipped, or
# 2 (Wild; 8 under extreme) and then takes its turn, with nothing to play.
BLUES = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"]
for black, challenge, count in (("+4", "official", 6), ("+4", "house", 6), ("+4", "extreme", 8),
                                ("wild", "official", 2), ("wild", "house", 2),
                                ("wild", "extreme", 8)):
    after = ([("skip", 0)] if black == "+4" else
             [("turn", 0), ("draw", 0, BLUES[count], "normal"), ("pass", 0)])
    points = 3 + sum(range(1, count + (black == "wild") + 1))
    case(f"challenge-{challenge}-innocent-{black}-challenger-draws-{count}", 2,
         {1: ["G3", black], 0: ["R1", "R2"]}, "R5", BLUES, rules=_black_rules(black, challenge),
         seats={0: {"challenge": 1.0}},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, black), ("colour", 1, "green"),
             ("challenge", 0, 1, "innocent"), *draws(0, BLUES[:count], "challenge"),
             *after,
             ("turn", 1), ("play", 1, "G3"),
         ],
         ending=[("round_end", 1, "win", points), *scores((points, 0), (0, points))],
         facts={"round.challenges": 1, "round.challenges_won": 0, "round.penalty_cards": count})

# ---------------------------------------------------------------- A2 double_action

# Two Reverses cancel: no direction event, seat 2 is next as before.
DOUBLE_REVERSE = dict(players=3, hands={1: ["R-reverse", "R-reverse", "Y3"],
                                        2: ["R1", "R2", "B9"], 0: ["R3", "Y2", "B8"]}, flip="R5")
case("double_action-on-two-reverses-cancel", **DOUBLE_REVERSE, rules={"double_action": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-reverse"), ("play", 1, "R-reverse"),
         ("turn", 2), ("play", 2, "R1"),
         ("turn", 0), ("play", 0, "R3"),
         ("turn", 1), ("play", 1, "Y3"),
     ],
     ending=[("round_end", 1, "win", 21), *scores((10, 0), (0, 21), (11, 0))])
case("double_action-off-two-reverses-one-a-turn", **DOUBLE_REVERSE,
     rules={"double_action": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
         ("turn", 0), ("play", 0, "R3"),
         ("turn", 2), ("play", 2, "R1"),
         ("turn", 1), ("play", 1, "R-reverse"), ("direction", 1),
         ("turn", 2), ("play", 2, "R2"),
         ("turn", 0), ("play", 0, "Y2"),
         ("turn", 1), ("play", 1, "Y3"),
     ],
     ending=[("round_end", 1, "win", 17), *scores((8, 0), (0, 17), (9, 0))])
# Two Skips skip the next two players: with 3 players play comes back to seat 1.
DOUBLE_SKIP = dict(players=3, hands={1: ["R-skip", "R-skip", "G-skip"], 2: ["Y1", "Y2", "Y3"],
                                     0: ["B1", "B2", "B3"]}, flip="R5", draws=["Y9", "Y8"])
case("double_action-on-two-skips-skip-two-players", **DOUBLE_SKIP, rules={"double_action": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-skip"), ("play", 1, "R-skip"), ("skip", 2), ("skip", 0),
         ("turn", 1), ("play", 1, "G-skip"),
     ],
     ending=[("round_end", 1, "win", 12), *scores((6, 0), (0, 12), (6, 0))],
     facts={"round.skips": 2})
case("double_action-off-two-skips-one-a-turn", **DOUBLE_SKIP, rules={"double_action": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
         ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
         ("turn", 0), ("draw", 0, "Y8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "G-skip"),
     ],
     ending=[("round_end", 1, "win", 29), *scores((23, 0), (0, 29), (6, 0))],
     facts={"round.skips": 2})
# A3, R1 too. Two Draw Twos give 4 (drawn at once, or as an unanswerable pending penalty: the
# same); under pass_on nothing adds up, two Draw Twos still give 2.
DOUBLE_DRAW_TWO = dict(players=2, hands={1: ["R+2", "R+2", "G+2"], 0: ["Y1", "Y2", "Y3"]},
                       flip="R5", draws=BLUES[:6])
for stack in ("none", "sum"):
    case(f"double_action-on-two-draw-twos-give-four-stack_draw_two-{stack}", **DOUBLE_DRAW_TWO,
         rules={"double_action": True, "stack_draw_two": stack},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
             *draws(0, BLUES[:4], "draw_two"), ("skip", 0),
             ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[4:6], "draw_two"),
         ],
         ending=[("round_end", 1, "win", 27), *scores((27, 0), (0, 27))])
case("double_action-on-two-draw-twos-give-two-stack_draw_two-pass_on", **DOUBLE_DRAW_TWO,
     rules={"double_action": True, "stack_draw_two": "pass_on"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
         *draws(0, BLUES[:2], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[2:4], "draw_two"),
     ],
     ending=[("round_end", 1, "win", 16), *scores((16, 0), (0, 16))])
case("double_action-off-two-draw-twos-one-a-turn", **DOUBLE_DRAW_TWO,
     rules={"double_action": False, "stack_draw_two": "none"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(0, BLUES[:2], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "R+2"), *draws(0, BLUES[2:4], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[4:6], "draw_two"),
     ],
     ending=[("round_end", 1, "win", 27), *scores((27, 0), (0, 27))])

# ---------------------------------------------------------------- A7 stack_skip

SKIP_RUN = dict(players=3, hands={1: ["R-skip", "G-skip", "B1"], 2: ["Y1", "Y2", "Y3"],
                                  0: ["R-skip", "Y-skip", "G5"]},
                flip="R5", draws=["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"])
case("stack_skip-on-each-skip-of-the-run-skips-one-player-more", **SKIP_RUN,
     rules={"stack_skip": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
         # Seat 0's turn came right after the victims: its Skip skips 2 ...
         ("turn", 0), ("play", 0, "R-skip"), ("skip", 1), ("skip", 2),
         # ... and its next one 3, round the table: seat 0 skips itself too.
         ("turn", 0), ("play", 0, "Y-skip"), ("skip", 1), ("skip", 2), ("skip", 0),
         # 4: play moves 5 seats on, from seat 1 to seat 0.
         ("turn", 1), ("play", 1, "G-skip"), ("skip", 2), ("skip", 0), ("skip", 1), ("skip", 2),
         ("turn", 0), ("play", 0, "G5"),
     ],
     ending=[("round_end", 0, "win", 7), *scores((0, 7), (1, 0), (6, 0))],
     facts={"round.skips": 10})
case("stack_skip-off-same-deal-every-skip-skips-one", **SKIP_RUN,
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
         ("turn", 0), ("play", 0, "R-skip"), ("skip", 1),
         ("turn", 2), ("draw", 2, "Y4", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "Y-skip"), ("skip", 1),
         ("turn", 2), ("play", 2, "Y1"),
     ], prefix=True)
for seat0, between, name in (
        # Another play ends the run ...
        (["R3", "G4", "G5"], [("turn", 0), ("play", 0, "R3")], "play"),
        # ... and so does a draw.
        (["G3", "G4", "G5"], [("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0)], "draw")):
    case(f"stack_skip-on-a-{name}-ends-the-run", 3,
         {1: ["R-skip", "R-skip", "B3"], 2: ["Y1", "Y2", "Y3"], 0: seat0}, "R5",
         ["Y9", "Y4", "Y5"], rules={"stack_skip": True},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
             *between,
             ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),  # one player again
             ("turn", 0),
         ], prefix=True)

# ---------------------------------------------------------------- A8 skip_escape

ESCAPE = dict(players=3, hands={1: ["R-skip", "B1"], 2: ["R-skip", "Y2"], 0: ["R3", "G5"]},
              flip="R5", draws=["Y9", "Y4", "Y5", "Y6", "Y7", "Y8"])
# Seat 2 escapes with the identical Skip, out of turn; the skip moves on to seat 0.
case("skip_escape-on-the-skip-moves-on", **ESCAPE, rules={"skip_escape": True},
     seats={2: {"jump_in": 1.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R-skip"),
         ("jump_in", 2, "R-skip", "escape"), ("skip", 0),
         ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "Y4", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R3"),
     ], prefix=True,
     every={"jump_in": [("jump_in", 2, "R-skip", "escape")]},
     facts={"round.jump_ins": 1, "round.skips": 1})
# Not willing (jump_in 0), or the rule is off: seat 2 is skipped and plays its Skip later.
for escape, willing, name in ((True, 0.0, "on-unwilling"), (False, 1.0, "off")):
    case(f"skip_escape-{name}-the-skip-stands", **ESCAPE, rules={"skip_escape": escape},
         seats={2: {"jump_in": willing}},
         table=[
             ("flip", "R5"), ("turn", 1), ("play", 1, "R-skip"),
             ("skip", 2),
             ("turn", 0), ("play", 0, "R3"),
             ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
             ("turn", 2), ("play", 2, "R-skip"), ("skip", 0),
             ("turn", 1),
         ], prefix=True,
         every={"jump_in": []}, facts={"round.jump_ins": 0, "round.skips": 2})
case("skip_escape-2-players-the-skip-moves-on-to-the-player", 2,
     {1: ["R-skip", "B1"], 0: ["R-skip", "R3"]}, "R5", ["Y9"], rules={"skip_escape": True},
     seats={0: {"jump_in": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R-skip"),
         # Seat 0 escapes; the seat after it is seat 1, which played the Skip: it is skipped.
         ("jump_in", 0, "R-skip", "escape"), ("skip", 1),
         ("turn", 0), ("play", 0, "R3"),
     ],
     ending=[("round_end", 0, "win", 1), *scores((0, 1), (1, 0))],
     every={"jump_in": [("jump_in", 0, "R-skip", "escape")]})
# A7 too: seat 0's Skip skips 2; seat 1 escapes the first of them and the skip moves on to
# seats 2 and 0: seat 1 plays next.
for stack, after in ((True, [("skip", 2), ("skip", 0), ("turn", 1)]),
                     (False, [("skip", 2), ("turn", 0)])):
    case(f"skip_escape-from-a-skip-run-stack_skip-{str(stack).lower()}", 3,
         {1: ["R-skip", "Y-skip", "B1"], 2: ["Y1", "Y2", "Y3"], 0: ["Y-skip", "G4", "G5"]}, "R5",
         ["Y9", "Y4", "Y5"], rules={"stack_skip": stack, "skip_escape": True},
         seats={1: {"jump_in": 1.0}},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
             ("turn", 0), ("play", 0, "Y-skip"),
             ("jump_in", 1, "Y-skip", "escape"), *after,
         ], prefix=True,
         every={"jump_in": [("jump_in", 1, "Y-skip", "escape")]})

# ---------------------------------------------------------------- D3 blank_effect

BLANK = dict(players=2, hands={1: ["blank", "B1"], 0: ["Y2", "Y3"]}, flip="R5",
             draws=["G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "Y9"])
case("blank_effect-draw_ten", **BLANK, rules={"blank_effect": "draw_ten", "deck": {"blank": 1}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "blank"), ("colour", 1, "blue"),
         *draws(0, BLANK["draws"], "blank"), ("skip", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 59), *scores((59, 0), (0, 59))])
case("blank_effect-none", **BLANK, rules={"blank_effect": "none", "deck": {"blank": 1}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "blank"), ("colour", 1, "blue"),
         ("turn", 0), ("draw", 0, "G1", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 6), *scores((6, 0), (0, 6))])
# Off: the same deal with a plain Wild (which a blank without effect plays like).
case("blank-off-a-wild-instead", 2, {1: ["wild", "B1"], 0: ["Y2", "Y3"]}, "R5", ["G1"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
         ("turn", 0), ("draw", 0, "G1", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 6), *scores((6, 0), (0, 6))])

# ---------------------------------------------------------------- D4 hit-all +1 / +2

# Every other seat draws, in playing order from the next one; nobody is skipped.
HIT_ALL_HANDS = {2: ["Y2", "Y3"], 0: ["G4", "G6"]}
for kind, n in (("hit+1", 1), ("hit+2", 2)):
    key = "hit_all_one" if n == 1 else "hit_all_two"
    hit_draws = ["G7", "G8", "Y7", "Y8", "G9", "Y9"] if n == 2 else ["G7", "Y7", "G8", "Y8"]
    to_2, to_0 = hit_draws[:n], hit_draws[n:2 * n]
    more_2, more_0 = hit_draws[2 * n], hit_draws[2 * n + 1]
    held_2 = 2 + 3 + sum(int(c[1]) for c in (*to_2, more_2))
    held_0 = 4 + 6 + sum(int(c[1]) for c in (*to_0, more_0))
    case(f"hit_all-{n}", 3, {1: [kind, "B1"], **HIT_ALL_HANDS}, "R5", hit_draws,
         rules={"deck": {key: 1}},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, kind), ("colour", 1, "blue"),
             *draws(2, to_2, "hit_all"), *draws(0, to_0, "hit_all"),
             ("turn", 2), ("draw", 2, more_2, "normal"), ("pass", 2),
             ("turn", 0), ("draw", 0, more_0, "normal"), ("pass", 0),
             ("turn", 1), ("play", 1, "B1"),
         ],
         ending=[("round_end", 1, "win", held_2 + held_0),
                 *scores((held_0, 0), (0, held_2 + held_0), (held_2, 0))])
# Off: the same deal with a plain Wild: nobody draws for it.
case("hit_all-off-a-wild-instead", 3, {1: ["wild", "B1"], **HIT_ALL_HANDS}, "R5", ["G7", "Y7"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
         ("turn", 2), ("draw", 2, "G7", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "Y7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 29), *scores((17, 0), (0, 29), (12, 0))])

# ---------------------------------------------------------------- D5 Swap Hands, customizable

# Seats 2 and 0 hold two cards each: seat 1 swaps with seat 2 (first in playing order), which
# then goes out with seat 1's B1.
SWAP_HANDS = {2: ["Y1", "Y2"], 0: ["G3", "G4"]}
case("swap_hands", 3, {1: ["swap-hands", "B1"], **SWAP_HANDS}, "R5",
     rules={"deck": {"swap_hands": 1}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "swap-hands"), ("colour", 1, "blue"), ("swap_hands", 1, 2),
         ("turn", 2), ("play", 2, "B1"),
     ],
     ending=[("round_end", 2, "win", 10), *scores((7, 0), (3, 0), (0, 10))])
# Off: the same deal with a plain Wild: no swap, seat 1 goes out with its B1.
case("swap_hands-off-a-wild-instead", 3, {1: ["wild", "B1"], **SWAP_HANDS}, "R5",
     ["Y9", "G9"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
         ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
         ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 28), *scores((16, 0), (0, 28), (12, 0))])

CUSTOM = {"deck": {"custom_wild": 1}}
CUSTOM_DEAL = dict(players=2, hands={1: ["custom-wild", "B1"], 0: ["Y8", "Y9"]}, flip="R5")
# Everyone draws two, in playing order from the next seat, the player last.
case("custom_wild-everyone_draws_two", **CUSTOM_DEAL,
     draws=["G6", "G7", "B2", "B3", "Y4", "Y5", "Y6"],
     rules={**CUSTOM, "custom_wild_effect": "everyone_draws_two"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "custom-wild"), ("colour", 1, "blue"),
         *draws(0, ["G6", "G7"], "custom_wild"), *draws(1, ["B2", "B3"], "custom_wild"),
         ("turn", 0), ("draw", 0, "Y4", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
         ("turn", 0), ("draw", 0, "Y5", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B2"),
         ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B3"),
     ],
     ending=[("round_end", 1, "win", 45), *scores((45, 0), (0, 45))])
# The same deal, swapping one card with the next player: seat 1 gives B1 (its only card left),
# seat 0 (high_value_first) the card worth the most, Y9.
case("custom_wild-swap_one_with_next-same-deal", **CUSTOM_DEAL, draws=["B3", "Y3"],
     rules={**CUSTOM, "custom_wild_effect": "swap_one_with_next"},
     seats={0: {"policy": "high_value_first"}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "custom-wild"), ("colour", 1, "blue"),
         ("give", 1, "B1", 0), ("give", 0, "Y9", 1),
         ("turn", 0), ("play", 0, "B1"),
         ("turn", 1), ("draw", 1, "B3", "normal"), ("play", 1, "B3"),
         ("turn", 0), ("draw", 0, "Y3", "normal"), ("play", 0, "Y3"),
         ("turn", 1), ("play", 1, "Y9"),
     ],
     ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))],
     facts={"round.card_swaps": 1})
# Off: the same deal with a plain Wild.
case("custom_wild-off-a-wild-instead", 2, {1: ["wild", "B1"], 0: ["Y8", "Y9"]}, "R5", ["G6"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
         ("turn", 0), ("draw", 0, "G6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 23), *scores((23, 0), (0, 23))])
# As the last card: the others still draw two; the player has gone out.
case("custom_wild-everyone_draws_two-last-card", 2, {1: ["R1", "custom-wild"], 0: ["Y2", "Y3"]},
     "R5", ["G4", "G5", "G6"], rules={**CUSTOM, "custom_wild_effect": "everyone_draws_two"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "G4", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "custom-wild"), ("colour", 1, "red"),
         *draws(0, ["G5", "G6"], "custom_wild"),
     ],
     ending=[("round_end", 1, "win", 20), *scores((20, 0), (0, 20))])
# Swap one card with the next player: each gives its least useful card (seat 1, high_value_first:
# B9, worth the most; seat 0, strategist: its number worth the most, Y3).
case("custom_wild-swap_one_with_next", 2,
     {1: ["custom-wild", "B1", "B9"], 0: ["Y2", "Y3", "Y-skip"]}, "R5", ["Y1"],
     rules={**CUSTOM, "custom_wild_effect": "swap_one_with_next"},
     seats={1: {"policy": "high_value_first"}, 0: {"policy": "strategist"}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "custom-wild"), ("colour", 1, "blue"),
         ("give", 1, "B9", 0), ("give", 0, "Y3", 1),
         ("turn", 0), ("play", 0, "B9"),
         ("turn", 1), ("play", 1, "B1"),
         ("turn", 0), ("draw", 0, "Y1", "normal"), ("play", 0, "Y1"),
         ("turn", 1), ("play", 1, "Y3"),
     ],
     ending=[("round_end", 1, "win", 22), *scores((22, 0), (0, 22))])


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- hand-written legal games


def draw_fours():
    """3 players: an innocent +4 challenged, an unchallenged +4, a drawn card played."""
    return written(
        3, {0: ["+4", "Y1"], 1: ["B5", "B6"], 2: ["+4", "G1"]},
        dealer=2,
        rules={"uno_penalty": 0, "target_score": 1, "deck": {**ONE_OF_EACH, "wild_draw_four": 2}},
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "yellow"),
            ("challenge", 1, 0, "innocent"),
            *draws(1, ["B1", "B2", "B3", "B4", "B7", "B8"], "challenge"), ("skip", 1),
            ("turn", 2), ("play", 2, "+4"), ("colour", 2, "green"),
            *draws(0, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 0),
            ("turn", 1), ("draw", 1, "G9", "normal"), ("play", 1, "G9"),
            ("turn", 2), ("play", 2, "G1"),
        ],
        ending=[("round_end", 2, "win", 47), *scores((11, 0), (36, 0), (0, 47))],
        game_end=("game_end", 2, "target"))


def free_draw_four():
    return written(
        2, {1: ["+4", "R1"], 0: ["Y1", "Y2"]},
        rules={"uno_penalty": 0, "target_score": 1, "wild_draw_four": "free", "deck": ONE_OF_EACH},
        table=[
            ("flip", "R5"),
            ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
            *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
            ("turn", 1), ("play", 1, "R1"),
        ],
        ending=[("round_end", 1, "win", 13), *scores((13, 0), (0, 13))],
        game_end=("game_end", 1, "target"))


def uno_penalty_before_challenge():
    """Seat 0 plays an honest +4, is caught missing UNO and draws two red cards (red was the
    colour before the +4): the challenge is still innocent, judged on the hand at the play."""
    return written(
        3, {0: ["+4", "Y1"], 1: ["B5", "B6"], 2: ["Y2", "Y3"]},
        dealer=2, rules={"uno_penalty": 2, "target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "yellow"), ("uno_miss", 0, 2),
            *draws(0, ["R1", "R2"], "uno"), ("challenge", 1, 0, "innocent"),
            *draws(1, ["B3", "B4", "B7", "B8", "B9", "G7"], "challenge"), ("skip", 1),
            ("turn", 2), ("play", 2, "Y2"), ("uno_call", 2),
            ("turn", 0), ("play", 0, "Y1"),
            ("turn", 1), ("draw", 1, "G9", "normal"), ("pass", 1),
            ("turn", 2), ("play", 2, "Y3"),
        ],
        ending=[("round_end", 2, "win", 61), *scores((3, 0), (58, 0), (0, 61))],
        game_end=("game_end", 2, "target"))


LEGAL_GAMES = [draw_fours, free_draw_four, uno_penalty_before_challenge]


@pytest.mark.parametrize("game", LEGAL_GAMES, ids=lambda g: g.__name__)
def test_legal_game_passes(game):
    result = check_trace(game())
    assert isinstance(result, GameResult)


# ---------------------------------------------------------------- A1 on hand-written traces


def test_missed_skip():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=2)),
           r"expected skip of seat 2 \(R\+2 played by seat 0\)")


def test_draw_two_penalty_too_short():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=2)),
           r"expected draw by seat 2 \(draw_two, card 2 of 2\)")


def test_draw_two_penalty_too_long():
    trace = action_cards()
    at = find(trace, codes.EV_SKIP, seat=2)
    broken(inserted(trace, at, codes.EV_DRAW, 2, card("B1"), codes.DRAW_DRAW_TWO),
           "expected skip of seat 2")


def test_wrong_draw_reason():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_DRAW, seat=2), b=codes.DRAW_DRAW_FOUR),
           "expected draw reason draw_two")


def test_wrong_direction():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_DIRECTION), a=1), "expected direction -1")


def test_unchallenged_draw_four_skips_the_victim():
    trace = draw_fours()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=0)), "expected skip of seat 0")


# ---------------------------------------------------------------- P2-P4 on hand-written traces


def test_draw_four_counters():
    (r,) = check_trace(draw_fours()).rounds
    assert (r.challenges, r.challenges_won, r.penalty_cards, r.normal_draws) == (1, 0, 10, 1)
    assert r.winner_position == 2


def test_wrong_guilty_flag_on_a_bluff():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=0),
           "guilty flag b = 0, expected 1: seat 0 held green card")


def test_wrong_guilty_flag_on_an_honest_draw_four():
    trace = draw_fours()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=1),
           "guilty flag b = 1, expected 0: seat 0 held no red card")


def test_guilt_ignores_cards_drawn_after_the_play():
    trace = uno_penalty_before_challenge()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=1),
           "expected 0: seat 0 held no red card")


def test_innocent_challenger_draws_six():
    trace = draw_fours()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=1, nth=5)),
           r"expected draw by seat 1 \(challenge, card 6 of 6\)")


def test_guilty_player_draws_and_victim_plays_on():
    trace = action_cards()
    broken(inserted(trace, find(trace, codes.EV_TURN, seat=2, nth=0), codes.EV_SKIP, 2),
           "expected turn of seat 2")


def test_challenge_names_the_player_of_the_draw_four():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), a=1),
           "expected the challenged seat a = 0")


def test_challenge_under_free_draw_four():
    trace = free_draw_four()
    at = find(trace, codes.EV_DRAW)
    broken(inserted(trace, at, codes.EV_CHALLENGE, 0, 1, 0),
           "no challenge is possible when wild_draw_four is free")


def bluff_taken_back(black: str, challenge: str):
    """2 players: seat 0 bluffs (it holds red), is caught and takes the card back: R5 is on top
    again, so seat 1 may play B5."""
    return written(
        2, {0: [black, "R1"], 1: ["B5", "B8"]},
        dealer=1, rules=game_rules(wild="no_matching_colour", challenge=challenge),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, black), ("colour", 0, "red"), ("challenge", 1, 0, "guilty"),
            ("take_back", 0, black), *draws(0, ["B1", "B2", "B3", "B4"], "challenge"),
            ("turn", 1), ("play", 1, "B5"),
            ("turn", 0), ("play", 0, "B1"),
            ("turn", 1), ("play", 1, "B8"),
        ],
        ending=[("round_end", 1, "win", 60), *scores((60, 0), (0, 60))],
        game_end=("game_end", 1, "target"))


@pytest.mark.parametrize("black", ["wild", "+4"])
@pytest.mark.parametrize("challenge", ["house", "extreme"])
def test_guilty_player_takes_the_card_back(black, challenge):
    trace = bluff_taken_back(black, challenge)
    r = the_round(trace)
    assert numbers(r, "challenges", "challenges_won", "penalty_cards", "cards_played",
                   "turns") == (1, 1, 4, 4, 4)
    assert r.hand_points == (60, 0)
    broken(deleted(trace, find(trace, codes.EV_TAKE_BACK)),
           re.escape(f"expected take_back of {black} by seat 0 (guilty, challenge: {challenge})"))
    broken(changed(trace, find(trace, codes.EV_TAKE_BACK), a=card("R1")),
           re.escape(f"expected take_back of {black}"))
    broken(with_rules(trace, challenge="official"),
           r"expected draw by seat 0 \(challenge, card 1 of 4\)")


def wild_bluff_caught_official():
    """Official: the guilty player draws 4 and the Wild stays (red), the challenger plays on."""
    return written(
        2, {0: ["wild", "R1"], 1: ["R8", "R9"]},
        dealer=1, rules=game_rules(wild="no_matching_colour"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"), ("challenge", 1, 0, "guilty"),
            *draws(0, ["B1", "B2", "B3", "B4"], "challenge"),
            ("turn", 1), ("play", 1, "R8"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("play", 1, "R9"),
        ],
        ending=[("round_end", 1, "win", 10), *scores((10, 0), (0, 10))],
        game_end=("game_end", 1, "target"))


def test_guilty_wild_under_official():
    trace = wild_bluff_caught_official()
    r = the_round(trace)
    assert numbers(r, "challenges", "challenges_won", "penalty_cards") == (1, 1, 4)
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=0),
           "guilty flag b = 0, expected 1: seat 0 held red card when it played the wild")
    at = find(trace, codes.EV_DRAW)
    broken(inserted(trace, at, codes.EV_TAKE_BACK, 0, card("wild")),
           r"expected draw by seat 0 \(challenge")


def test_no_challenge_of_a_free_wild():
    trace = with_rules(wild_bluff_caught_official(), wild="free")
    broken(trace, "no challenge is possible when wild is free")


def innocent_challenge(black: str, challenge: str, drawn: list[str]):
    """Seat 0 holds no red card: the challenger loses. It is skipped after a +4; after a Wild it
    takes its turn (and has nothing to play)."""
    points = 11 + sum(int(name[1]) for name in drawn) + (9 if black == "wild" else 0)
    challenger_moves = ([("skip", 1)] if black == "+4"
                        else [("turn", 1), ("draw", 1, "R9", "normal"), ("pass", 1)])
    return written(
        2, {0: [black, "Y1"], 1: ["B5", "B6"]}, dealer=1,
        rules=game_rules(wild="no_matching_colour", challenge=challenge),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, black), ("colour", 0, "yellow"),
            ("challenge", 1, 0, "innocent"), *draws(1, drawn, "challenge"), *challenger_moves,
            ("turn", 0), ("play", 0, "Y1"),
        ],
        ending=[("round_end", 0, "win", points), *scores((0, points), (points, 0))],
        game_end=("game_end", 0, "target"))


DRAWN_8 = ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9"]


@pytest.mark.parametrize("black, challenge, count", [
    ("+4", "official", 6), ("+4", "house", 6), ("+4", "extreme", 8),
    ("wild", "official", 2), ("wild", "house", 2), ("wild", "extreme", 8),
])
def test_innocent_challenger_draws(black, challenge, count):
    trace = innocent_challenge(black, challenge, DRAWN_8[:count])
    r = the_round(trace)
    assert numbers(r, "challenges", "challenges_won", "penalty_cards") == (1, 0, count)
    assert r.skips == (1 if black == "+4" else 0)
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=1, nth=count - 1)),
           rf"expected draw by seat 1 \(challenge, card {count} of {count}\)")


def test_innocent_wild_challenger_is_not_skipped():
    trace = innocent_challenge("wild", "extreme", DRAWN_8)
    at = find(trace, codes.EV_TURN, seat=1)
    broken(inserted(trace, at, codes.EV_SKIP, 1), "expected turn of seat 1")


def test_innocent_draw_four_challenger_is_skipped():
    trace = innocent_challenge("+4", "extreme", DRAWN_8)
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 1")


# ---------------------------------------------------------------- A2 on hand-written traces


def double_skip():
    return written(
        3, {0: ["R-skip", "R-skip", "R1"], 1: ["G1", "G2", "G3"], 2: ["Y1", "Y2", "Y3"]},
        dealer=2, rules=game_rules({"skip": 2}, double_action=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("play", 0, "R-skip"), ("skip", 1), ("skip", 2),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 12), *scores((0, 12), (6, 0), (6, 0))],
        game_end=("game_end", 0, "target"))


def double_draw_two():
    return written(
        3, {0: ["R+2", "R+2", "R1"], 1: ["G1", "G2", "G3"], 2: ["Y1", "Y2", "Y3"]},
        dealer=2, rules=game_rules({"draw_two": 2}, double_action=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), ("play", 0, "R+2"),
            *draws(1, ["B1", "B2", "B3", "B4"], "draw_two"), ("skip", 1),
            ("turn", 2), ("draw", 2, "R9", "normal"), ("play", 2, "R9"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 22), *scores((0, 22), (16, 0), (6, 0))],
        game_end=("game_end", 0, "target"))


def double_reverse():
    return written(
        3, {0: ["R-reverse", "R-reverse", "R1"], 1: ["R2", "G2", "G3"], 2: ["R3", "Y4", "Y5"]},
        dealer=2, rules=game_rules({"reverse": 2}, double_action=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-reverse"), ("play", 0, "R-reverse"),
            ("turn", 1), ("play", 1, "R2"),
            ("turn", 2), ("play", 2, "R3"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 14), *scores((0, 14), (5, 0), (9, 0))],
        game_end=("game_end", 0, "target"))


def test_double_action():
    r = the_round(double_skip())
    assert numbers(r, "turns", "cards_played", "skips") == (2, 3, 2)
    r = the_round(double_draw_two())
    assert numbers(r, "turns", "cards_played", "penalty_cards", "skips") == (3, 4, 4, 1)
    r = the_round(double_reverse())
    assert numbers(r, "turns", "cards_played", "direction_changes") == (4, 5, 0)


def test_double_action_violations():
    trace = double_skip()
    broken(deleted(trace, find(trace, codes.EV_PLAY, nth=1)),
           r"expected second R-skip by seat 0 \(double_action: it holds another\)")
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=2)),
           r"expected skip of seat 2 \(R-skip played by seat 0, skipping 2\)")
    broken(with_rules(trace, double_action=False),
           "seat 0 has no further card to play in this turn")
    trace = double_draw_two()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=1, nth=3)), r"card 4 of 4")
    trace = double_reverse()
    broken(inserted(trace, find(trace, codes.EV_TURN, seat=1), codes.EV_DIRECTION, a=-1),
           "expected turn of seat 1")


# ---------------------------------------------------------------- A7, A8 on hand-written traces


def stacked_skips():
    """4 players: R-skip skips seat 1, then seat 2's G-skip skips two: seats 3 and 0."""
    return written(
        4, {0: ["R-skip", "R1"], 1: ["G2", "G3"], 2: ["G-skip", "G4"], 3: ["Y1", "Y2"]},
        dealer=3, rules=game_rules(stack_skip=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("skip", 1),
            ("turn", 2), ("play", 2, "G-skip"), ("skip", 3), ("skip", 0),
            ("turn", 1), ("play", 1, "G2"),
            ("turn", 2), ("play", 2, "G4"),
        ],
        ending=[("round_end", 2, "win", 7), *scores((1, 0), (3, 0), (0, 7), (3, 0))],
        game_end=("game_end", 2, "target"))


def test_stack_skip():
    trace = stacked_skips()
    assert numbers(the_round(trace), "turns", "skips") == (4, 3)
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=0)),
           r"expected skip of seat 0 \(G-skip played by seat 2, skipping 2\)")
    broken(with_rules(trace, stack_skip=False), "expected turn of seat 0")


def skip_escaped():
    """Seat 1 escapes R-skip with its own R-skip: the skip moves on to seat 2."""
    return written(
        3, {0: ["R-skip", "R1"], 1: ["R-skip", "G2"], 2: ["Y1", "Y2"]},
        dealer=2, rules=game_rules({"skip": 2}, skip_escape=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("jump_in", 1, "R-skip", "escape"), ("skip", 2),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 5), *scores((0, 5), (2, 0), (3, 0))],
        game_end=("game_end", 0, "target"))


def test_skip_escape():
    trace = skip_escaped()
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins", "skips") == (2, 3, 1, 1)
    at = find(trace, codes.EV_JUMP_IN)
    broken(changed(trace, at, a=card("G2")),
           "seat 1 can escape only with a Skip identical to R-skip")
    broken(changed(trace, at, seat=2), r"expected skip of seat 1, or its escape with R-skip")
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 2")
    broken(with_rules(trace, skip_escape=False), r"expected skip of seat 1 \(R-skip")
    broken(changed(trace, at, b=-1), "jump_in: none does not allow jumping in on R-skip")


def test_stacked_skip_escaped_moves_on():
    """Under A7 + A8 the escaped skip of two moves on to the two seats after the escaper."""
    trace = written(
        4, {0: ["R-skip", "R1"], 1: ["G5", "G3"], 2: ["G-skip", "G2"], 3: ["G-skip", "Y2"]},
        dealer=3, rules=game_rules({"skip": 2}, stack_skip=True, skip_escape=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("skip", 1),
            ("turn", 2), ("play", 2, "G-skip"), ("jump_in", 3, "G-skip", "escape"), ("skip", 0),
            ("skip", 1),
            ("turn", 2), ("play", 2, "G2"),
        ],
        ending=[("round_end", 2, "win", 11), *scores((1, 0), (8, 0), (0, 11), (2, 0))],
        game_end=("game_end", 2, "target"))
    assert numbers(the_round(trace), "turns", "skips", "jump_ins") == (3, 3, 1)


def test_format_trace_shows_escapes_and_cards_taken_back():
    lines = format_trace(skip_escaped()).splitlines()
    assert "r1 t1 seat 1 jumps in with R-skip" in lines
    lines = format_trace(bluff_taken_back("wild", "house")).splitlines()
    assert "r1 t1 seat 0 takes wild back" in lines


# ---------------------------------------------------------------- D3-D5 on hand-written traces


def blank_ten():
    tens = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "G1"]
    return written(
        2, {0: ["blank", "R1"], 1: ["Y2", "Y3"]},
        dealer=1, rules=game_rules({"blank": 1}, blank_effect="draw_ten"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "blank"), ("colour", 0, "red"), *draws(1, tens, "blank"),
            ("skip", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 51), *scores((0, 51), (51, 0))],
        game_end=("game_end", 0, "target"))


def test_blank_draw_ten():
    trace = blank_ten()
    assert numbers(the_round(trace), "penalty_cards", "skips", "turns") == (10, 1, 2)
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=9)),
           r"card 10 of 10; blank played by seat 0 \(blank_effect: draw_ten\)")
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 1")
    broken(with_rules(trace, blank_effect="none"), "expected turn of seat 1")


def test_blank_without_effect_is_a_wild():
    trace = written(
        2, {0: ["blank", "R1"], 1: ["Y2", "Y3"]}, dealer=1, rules=game_rules({"blank": 1}),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "blank"), ("colour", 0, "red"),
            ("turn", 1), ("draw", 1, "B1", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 6), *scores((0, 6), (6, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).penalty_cards == 0
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=1), "must name red")


def test_a_last_blank_still_makes_the_next_draw_ten():
    tens = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "G1"]
    trace = written(
        2, {0: ["blank"], 1: ["Y2"]},
        dealer=1, rules=game_rules({"blank": 1}, blank_effect="draw_ten"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "blank"), ("colour", 0, "red"), *draws(1, tens, "blank"),
        ],
        ending=[("round_end", 0, "win", 48), *scores((0, 48), (48, 0))],
        game_end=("game_end", 0, "target"))
    assert the_round(trace).penalty_cards == 10
    broken(deleted(trace, find(trace, codes.EV_DRAW)), "card 10 of 10; a last blank")


def test_hit_all():
    trace = hit_all()
    assert numbers(the_round(trace), "penalty_cards", "skips", "turns") == (4, 0, 4)
    broken(changed(trace, find(trace, codes.EV_DRAW, nth=2), seat=0, b=codes.DRAW_HIT_ALL),
           r"expected draw by seat 2 \(hit_all, card 1 of 2")
    broken(changed(trace, find(trace, codes.EV_DRAW), b=codes.DRAW_DRAW_TWO),
           "expected draw reason hit_all")


def test_wild_swap_hands():
    """Seats 1 and 2 hold three cards each: the tie goes to seat 1, first in playing order."""
    trace = written(
        3, {0: ["swap-hands", "R1", "R2"], 1: ["Y1", "Y2", "Y3"], 2: ["G1", "G2", "G3"]},
        dealer=2, rules=one_turn_rules({"swap_hands": 1}),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "swap-hands"), ("colour", 0, "red"), ("swap_hands", 0, 1),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((6, 0), (3, 0), (6, 0))])
    r = the_round(trace)
    assert numbers(r, "hand_swaps", "cards_left") == (1, (3, 2, 3))
    broken(changed(trace, find(trace, codes.EV_SWAP_HANDS), a=2),
           r"expected swap_hands of seat 0 with seat 1, the fewest-cards seat")


def test_customizable_wild_everyone_draws_two():
    trace = written(
        3, {0: ["custom-wild", "R1"], 1: ["Y2", "Y3"], 2: ["G4", "G6"]},
        dealer=2, rules=one_turn_rules({"custom_wild": 1}, custom_wild_effect="everyone_draws_two"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "custom-wild"), ("colour", 0, "red"),
            *draws(1, ["B1", "B2"], "custom_wild"), *draws(2, ["B3", "B4"], "custom_wild"),
            *draws(0, ["B5", "B6"], "custom_wild"),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((12, 0), (8, 0), (17, 0))])
    assert numbers(the_round(trace), "penalty_cards", "cards_left") == (6, (3, 4, 4))
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=0, nth=1)),
           r"expected draw by seat 0 \(custom_wild, card 2 of 2")


def test_customizable_wild_swap_one_with_next():
    trace = written(
        3, {0: ["custom-wild", "R1", "B9"], 1: ["Y2", "Y3", "Y-skip"], 2: ["G4", "G6", "G7"]},
        dealer=2, rules=one_turn_rules({"custom_wild": 1}, custom_wild_effect="swap_one_with_next"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "custom-wild"), ("colour", 0, "red"), ("give", 0, "B9", 1),
            ("give", 1, "Y3", 0),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((4, 0), (31, 0), (17, 0))])
    trace = with_policies(trace, "high_value_first", "strategist", "first_legal")
    assert numbers(the_round(trace), "card_swaps", "cards_left") == (1, (2, 3, 3))
    broken(changed(trace, find(trace, codes.EV_GIVE, seat=0), b=2),
           "expected give by seat 0 of its least useful card to seat 1")
