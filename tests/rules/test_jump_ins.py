"""Out-of-turn play: J1 jump-in (numbers, all_but_draw_four, extreme) and what a jump-in does to
the jumped-on card, J2 no jump-in on the first discard, J3 jumping in on one's own card, J4 who
jumps in (willingness and reaction races).

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from cases import (
    Family,
    card,
    draws,
    game_rules,
    scores,
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
    with_rules,
)

from unostats import codes

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("jump_in",)

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


YELLOWS = ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"]

# ---------------------------------------------------------------- J1, J4: what may be jumped on

# Seat 1 plays a card; seat 0 holds the identical card and always jumps in when it may; seat 2,
# due to act next, holds none and races with reaction 0, so seat 0 wins every race it runs.
JUMP_SEATS = {0: {"jump_in": 1.0}, 2: {"reaction": 0.0}}
FOUR_YELLOWS = draws(2, ["Y4", "Y5", "Y6", "Y7"], "draw_four")
NOT_JUMPED_ON = {  # what follows the card when nobody jumps in on it
    "R7": [("turn", 2)],
    "R-skip": [("skip", 2), ("turn", 0)],
    "wild": [("turn", 2)],
    "+4": [*FOUR_YELLOWS, ("skip", 2), ("turn", 0)],
}
JUMPED_ON = {  # (card, mode): what follows it when seat 0 jumps in on it
    # Play continues from the jumper: seat 1 is next, seat 2 has lost its turn.
    ("R7", "numbers"): [("jump_in", 0, "R7"), ("turn", 1)],
    ("R7", "all_but_draw_four"): [("jump_in", 0, "R7"), ("turn", 1)],
    ("R7", "extreme"): [("jump_in", 0, "R7"), ("turn", 1)],
    # all_but_draw_four cancels seat 1's Skip; seat 0's skips seat 1.
    ("R-skip", "all_but_draw_four"): [("jump_in", 0, "R-skip"), ("skip", 1), ("turn", 2)],
    # extreme: seat 1's Skip still skips seat 2, then seat 0's skips seat 1 from seat 0.
    ("R-skip", "extreme"): [("jump_in", 0, "R-skip"), ("skip", 2), ("skip", 1), ("turn", 2)],
    # A Wild played as a jump-in names a colour as usual (seat 0 holds blue).
    ("wild", "all_but_draw_four"): [("jump_in", 0, "wild"), ("colour", 0, "blue"), ("turn", 1)],
}
# A +4 is never jumped on; seat 1 holds no red, so it may play it (P2).
for card_name in ("R7", "R-skip", "wild", "+4"):
    for mode in ("none", "numbers", "all_but_draw_four", "extreme"):
        colour = [("colour", 1, "green")] if card_name in ("wild", "+4") else []
        after = JUMPED_ON.get((card_name, mode), NOT_JUMPED_ON[card_name])
        case(f"jump_in-{mode}-on-{card_name}", 3,
             {1: [card_name, "G1", "G2"], 2: ["Y1", "Y2", "Y3"], 0: [card_name, "B1", "B2"]},
             "R5", YELLOWS, rules={"jump_in": mode}, seats=JUMP_SEATS,
             table=[("flip", "R5"), ("turn", 1), ("play", 1, card_name), *colour, *after],
             prefix=True)

# ---------------------------------------------------------------- J2: not on the first discard

# Seat 0 holds the other R7 and would jump in, and seats 1 and 2 would lose any race to it.
for mode in ("numbers", "all_but_draw_four", "extreme"):
    case(f"jump_in-{mode}-never-on-the-rounds-first-discard", 3,
         {1: ["G1", "G2"], 2: ["Y1", "Y2"], 0: ["R7", "B2"]}, "R7", YELLOWS,
         rules={"jump_in": mode},
         seats={0: {"jump_in": 1.0}, 1: {"reaction": 0.0}, 2: {"reaction": 0.0}},
         table=[
             ("flip", "R7"),
             ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
             ("turn", 2), ("draw", 2, "Y5", "normal"), ("pass", 2),
             ("turn", 0), ("play", 0, "R7"),  # in its turn
             ("turn", 1), ("draw", 1, "Y6", "normal"), ("pass", 1),
             ("turn", 2), ("draw", 2, "Y7", "normal"), ("play", 2, "Y7"),
             ("turn", 0), ("draw", 0, "Y8", "normal"), ("play", 0, "Y8"),
             ("turn", 1), ("play", 1, "Y4"),
             ("turn", 2), ("play", 2, "Y1"),
             ("turn", 0), ("draw", 0, "Y9", "normal"), ("play", 0, "Y9"),
             ("turn", 1), ("play", 1, "Y6"),
             ("turn", 2), ("play", 2, "Y2"),
             ("turn", 0), ("play", 0, "B2"),
         ],
         ending=[("round_end", 0, "win", 8), *scores((0, 8), (3, 0), (5, 0))],
         facts={"round.jump_ins": 0})

# ---------------------------------------------------------------- J3, J4: one's own card

OWN_CARD = dict(players=3, hands={1: ["R7", "R7", "G1"], 2: ["Y1", "Y2", "Y7"],
                                  0: ["G3", "B2", "G5"]},
                flip="R5", draws=YELLOWS, rules={"jump_in": "numbers"})
# Seat 1 jumps in on its own R7 with its second R7; play goes on from seat 1.
case("jump_in-on-ones-own-card", **OWN_CARD,
     seats={1: {"jump_in": 1.0, "reaction": 1.0}, 2: {"reaction": 0.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R7"),
         ("jump_in", 1, "R7"),
         ("turn", 2), ("play", 2, "Y7"),
         ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
         ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
         ("turn", 2), ("play", 2, "Y1"),
         ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
         ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
         ("turn", 2), ("play", 2, "Y2"),
     ],
     ending=[("round_end", 2, "win", 11), *scores((10, 0), (1, 0), (0, 11))])
# Seat 2, due to act, wins the race without holding an R7: nobody jumps in, and seat 1 keeps its
# second R7 to the end.
case("jump_in-on-ones-own-card-the-next-seat-blocks-it", **OWN_CARD,
     seats={1: {"jump_in": 1.0, "reaction": 0.0}, 2: {"reaction": 1.0}},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R7"),
         ("turn", 2), ("play", 2, "Y7"),
         ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
         ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
         ("turn", 2), ("play", 2, "Y1"),
         ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
         ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
         ("turn", 2), ("play", 2, "Y2"),
     ],
     ending=[("round_end", 2, "win", 18), *scores((10, 0), (8, 0), (0, 18))])

# ---------------------------------------------------------------- J4: the race

# Seats 2 and 0 both hold a Wild like the one seat 1 plays (all_but_draw_four).
for seat2, seat0, after, name in (
        # Both willing: the faster wins. Seat 2, due to act, may jump in itself; the race after
        # its jump-in (seat 0 alone, weight 0) has no winner.
        ((1.0, 1.0), (1.0, 0.0), [("jump_in", 2, "wild"), ("colour", 2, "yellow"), ("turn", 0)],
         "due-seat-faster"),
        ((1.0, 0.0), (1.0, 1.0), [("jump_in", 0, "wild"), ("colour", 0, "blue"), ("turn", 1)],
         "other-seat-faster"),
        # Seat 2 is not willing but, due to act, takes part in the race and wins it: nobody
        # jumps in.
        ((0.0, 1.0), (1.0, 0.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")],
         "unwilling-due-seat-wins"),
        # Nobody willing: no race at all, however fast seat 0 is.
        ((0.0, 0.0), (0.0, 1.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")],
         "nobody-willing")):
    case(f"jump_in-race-{name}", 3,
         {1: ["wild", "G1", "G2"], 2: ["wild", "Y1", "Y2"], 0: ["wild", "B1", "B2"]}, "R5",
         YELLOWS, rules={"jump_in": "all_but_draw_four"},
         seats={0: {"jump_in": seat0[0], "reaction": seat0[1]}, 1: {"reaction": 0.0},
                2: {"jump_in": seat2[0], "reaction": seat2[1]}},
         table=[("flip", "R5"), ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"),
                *after], prefix=True)

# ---------------------------------------------------------------- J1: the jumped-on card's effect

for mode, after in (
        # The jumped-on Draw Two is cancelled: only seat 0's has its effect, on seat 1.
        ("all_but_draw_four", [
            ("jump_in", 0, "R+2"), *draws(1, ["Y4", "Y5"], "draw_two"), ("skip", 1),
            ("turn", 2), ("draw", 2, "Y6", "normal"), ("pass", 2),
        ]),
        # Seat 1's Draw Two is drawn by seat 2, then seat 0's by seat 1; seat 2 acts next.
        ("extreme", [
            ("jump_in", 0, "R+2"), *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
            *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
            ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
        ]),
        ("none", [
            *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
            ("turn", 0), ("play", 0, "R+2"), *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
            ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
        ])):
    case(f"jump_in-{mode}-effects-of-a-jumped-on-draw-two", 3,
         {1: ["R+2", "B1"], 2: ["Y1", "Y2"], 0: ["R+2", "B2"]}, "R5", YELLOWS,
         rules={"jump_in": mode}, seats=JUMP_SEATS,
         table=[("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *after], prefix=True)

# U1 too: the jumper calls UNO, and may win out of turn.
case("jump_in-the-jumper-calls-uno-and-wins", 3,
     {1: ["R7", "B4"], 2: ["G7", "Y5"], 0: ["R7", "G7"]}, "R5", ["Y4", "Y6", "Y7", "Y8", "Y9"],
     rules={"jump_in": "numbers", "uno_penalty": 2},
     seats=JUMP_SEATS,
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R7"), ("uno_call", 1),
         ("jump_in", 0, "R7"), ("uno_call", 0),
         ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
         ("turn", 2), ("play", 2, "G7"), ("uno_call", 2),
         # Seat 0, due to act, jumps in with its last card and wins, out of turn.
         ("jump_in", 0, "G7"),
     ],
     ending=[("round_end", 0, "win", 13), *scores((0, 13), (8, 0), (5, 0))],
     facts={"round.jump_ins": 2, "round.turns": 3, "round.cards_played": 4})


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- on hand-written traces


def number_jump_in():
    """Seat 2 jumps in on R3: play continues from it, so seat 1 loses its turn."""
    return written(
        3, {0: ["R3", "R4"], 1: ["B2", "B4"], 2: ["R3", "Y9"]},
        dealer=2, rules=game_rules({"numbers": 2}, jump_in="numbers"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R3"), ("jump_in", 2, "R3"),
            ("turn", 0), ("play", 0, "R4"),
        ],
        ending=[("round_end", 0, "win", 15), *scores((0, 15), (6, 0), (9, 0))],
        game_end=("game_end", 0, "target"))


def test_number_jump_in():
    trace = number_jump_in()
    r = the_round(trace)
    assert numbers(r, "turns", "cards_played", "jump_ins", "winner_position") == (2, 3, 1, 0)


def test_jump_in_violations():
    trace = number_jump_in()
    at = find(trace, codes.EV_JUMP_IN)
    broken(changed(trace, at, a=card("Y9")),
           r"a jump-in needs a card identical to the top card R3 \(J1\)")
    broken(changed(trace, at, seat=1), "seat 1 does not hold R3")
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=1), "expected turn of seat 0")
    broken(inserted(trace, at, codes.EV_TURN, 2), "expected turn of seat 1")
    broken(with_rules(trace, jump_in="none"), r"jump_in: none does not allow jumping in on R3")
    at_first = find(trace, codes.EV_FLIP) + 1
    broken(inserted(trace, at_first, codes.EV_JUMP_IN, 2, card("R5")),
           r"no jump-in on the round's first discard \(J2\)")
    trace = skip_jumped_on("all_but_draw_four")
    after_the_effect = find(trace, codes.EV_SKIP) + 1
    broken(inserted(trace, after_the_effect, codes.EV_JUMP_IN, 0, card("R-skip")),
           r"a jump-in must come right after a play, before the play's effect \(J1\)")


def test_no_jump_in_on_the_first_discard():
    trace = written(
        3, {0: ["R3", "R4"], 1: ["B2", "B4"], 2: ["R5", "Y9"]},
        dealer=2, rules=game_rules({"numbers": 2}, jump_in="numbers"),
        table=[
            ("flip", "R5"), ("jump_in", 2, "R5"),
        ],
        game_end=None)
    broken(trace, r"no jump-in on the round's first discard \(J2\)")


def test_player_jumps_in_on_its_own_card():
    """J3: seat 0 plays R3 and jumps in with its second R3, which wins the round."""
    trace = written(
        2, {0: ["R3", "R3"], 1: ["B1", "B2"]},
        dealer=1, rules=game_rules({"numbers": 2}, jump_in="numbers"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R3"), ("jump_in", 0, "R3"),
        ],
        ending=[("round_end", 0, "win", 3), *scores((0, 3), (3, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins") == (1, 2, 1)


def skip_jumped_on(jump_in: str):
    """Seat 2 jumps in on R-skip: the first Skip's effect is cancelled, seat 2's skips seat 0."""
    return written(
        3, {0: ["R-skip", "R1"], 1: ["G1", "G2"], 2: ["R-skip", "R2"]},
        dealer=2, rules=game_rules({"skip": 2}, jump_in=jump_in),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R-skip"), ("jump_in", 2, "R-skip"), ("skip", 0),
            ("turn", 1), ("draw", 1, "R7", "normal"), ("play", 1, "R7"),
            ("turn", 2), ("play", 2, "R2"),
        ],
        ending=[("round_end", 2, "win", 4), *scores((1, 0), (3, 0), (0, 4))],
        game_end=("game_end", 2, "target"))


def test_jump_in_cancels_the_jumped_on_effect():
    trace = skip_jumped_on("all_but_draw_four")
    assert numbers(the_round(trace), "turns", "jump_ins", "skips") == (3, 1, 1)
    at = find(trace, codes.EV_SKIP)
    broken(inserted(trace, at, codes.EV_SKIP, 1), "expected skip of seat 0")
    broken(with_rules(trace, jump_in="numbers"),
           "jump_in: numbers does not allow jumping in on R-skip")


def test_jump_in_extreme_keeps_the_jumped_on_skip():
    trace = skip_jumped_on("extreme")
    broken(trace, r"expected skip of seat 1 \(R-skip played by seat 0")
    at = find(trace, codes.EV_SKIP)
    assert the_round(inserted(trace, at, codes.EV_SKIP, 1)).skips == 2


def wild_on_wild():
    return written(
        3, {0: ["wild", "R1"], 1: ["G1", "G2"], 2: ["wild", "G8"]},
        dealer=2, rules=game_rules({"wild": 2}, jump_in="all_but_draw_four"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"), ("jump_in", 2, "wild"),
            ("colour", 2, "green"),
            ("turn", 0), ("draw", 0, "G4", "normal"), ("play", 0, "G4"),
            ("turn", 1), ("play", 1, "G1"),
            ("turn", 2), ("play", 2, "G8"),
        ],
        ending=[("round_end", 2, "win", 3), *scores((1, 0), (2, 0), (0, 3))],
        game_end=("game_end", 2, "target"))


def test_wild_on_wild():
    trace = wild_on_wild()
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins") == (4, 5, 1)
    broken(deleted(trace, find(trace, codes.EV_COLOUR, seat=2)),
           "expected colour named by seat 2 after wild")
    broken(with_rules(trace, jump_in="extreme"),
           "jump_in: extreme does not allow jumping in on wild")


def test_no_jump_in_on_a_draw_four():
    trace = written(
        3, {0: ["+4", "R1"], 1: ["G1", "G2"], 2: ["+4", "G8"]},
        dealer=2,
        rules=game_rules({"wild_draw_four": 2}, wild_draw_four="free", jump_in="all_but_draw_four"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "red"), ("jump_in", 2, "+4"),
            ("colour", 2, "green"),
        ],
        game_end=None)
    broken(trace, r"jump_in: all_but_draw_four does not allow jumping in on \+4")


def test_no_jump_in_on_an_extra_black_card():  # J1, D4
    trace = written(
        3, {0: ["hit+1", "R1"], 1: ["Y2", "Y3"], 2: ["hit+1", "G4"]},
        dealer=2, rules=game_rules({"hit_all_one": 2}, jump_in="all_but_draw_four"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "hit+1"), ("colour", 0, "red"), ("jump_in", 2, "hit+1"),
            ("colour", 2, "green"),
        ],
        game_end=None)
    broken(trace, "jump_in: all_but_draw_four does not allow jumping in on hit[+]1")


def draw_two_jumped_on_extreme():
    """Both Draw Twos apply: seat 1 draws for seat 0's, seat 0 for seat 2's."""
    return written(
        3, {0: ["R+2", "R1"], 1: ["G1", "G2"], 2: ["R+2", "R3"]},
        dealer=2, rules=game_rules({"draw_two": 2}, jump_in="extreme"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), ("jump_in", 2, "R+2"),
            *draws(1, ["B1", "B2"], "draw_two"), ("skip", 1), *draws(0, ["B3", "B4"], "draw_two"),
            ("skip", 0),
            ("turn", 1), ("draw", 1, "R7", "normal"), ("play", 1, "R7"),
            ("turn", 2), ("play", 2, "R3"),
        ],
        ending=[("round_end", 2, "win", 14), *scores((8, 0), (6, 0), (0, 14))],
        game_end=("game_end", 2, "target"))


def test_jump_in_extreme_on_a_draw_two():
    trace = draw_two_jumped_on_extreme()
    r = the_round(trace)
    assert numbers(r, "turns", "jump_ins", "penalty_cards", "skips") == (3, 1, 4, 2)
    broken(with_rules(trace, jump_in="all_but_draw_four"),
           r"expected draw by seat 0 \(draw_two, card 1 of 2\)")


def test_victim_jumping_in_draws_nothing():
    """J1 extreme: seat 1 jumps in on the R+2 aimed at itself: it draws nothing (and is still
    skipped by it); its own R+2 makes seat 2 draw."""
    trace = written(
        3, {0: ["R+2", "R1"], 1: ["R+2", "G2"], 2: ["Y1", "Y2"]},
        dealer=2, rules=game_rules({"draw_two": 2}, jump_in="extreme"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), ("jump_in", 1, "R+2"), ("skip", 1),
            *draws(2, ["B1", "B2"], "draw_two"), ("skip", 2),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 8), *scores((0, 8), (2, 0), (6, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "penalty_cards", "skips", "jump_ins") == (2, 2, 1)
    at = find(trace, codes.EV_SKIP, seat=1)
    broken(inserted(trace, at, codes.EV_DRAW, 1, card("B3"), codes.DRAW_DRAW_TWO),
           "expected skip of seat 1")


# ---------------------------------------------------------------- the cap on a chain of jump-ins

# A game found by tests/test_rule_combinations.py: seat 5 plays a card and jumps in on it with its
# second copy (J3), forgets UNO and is caught (U1); the penalty reshuffles the discards and brings
# back the copy below the top, and it jumps in again, and so on: the chain never ended and ran past
# the kernel's jumpers array (an out-of-bounds access). The chain now ends after as many
# jump-ins as the deck holds copies of the card (2). It runs in a subprocess so that a hang or a
# crash fails the test instead of stopping the suite.
_ENDLESS_JUMP_INS = """
import json
from unostats import codes
from unostats.engine.referee import RefereeError, check_trace
from unostats.engine.simulate import trace_game
from unostats.rules import RuleSet
from unostats.seats import Seat
from traces import inserted

rules = RuleSet.from_mapping({
    "hand_size": 5, "wild_draw_four": "free", "wild": "no_matching_colour", "colour_cycle": True,
    "double_action": True, "stack_draw_two": "pass_on", "stack_draw_four": "pass_on",
    "reverse_deflects": "back", "stack_skip": True, "skip_escape": True, "jump_in": "extreme",
    "zero_slap": 2, "uno_slap": 2, "silence": "black", "uno_penalty": 2, "mistake_penalty": 1,
    "round_end": "to_the_last", "max_turns": 400, "max_rounds": 2,
    "custom_wild_effect": "everyone_draws_two", "deck": {"numbers": 2, "hit_all_one": 2}})
names = ("forget_uno", "catch_uno", "challenge", "bluff", "jump_in", "silence_break", "mistake",
         "reaction")
seats = [Seat(policy, dict(zip(names, map(float, b)))) for policy, b in [
    ("number_first", (0, 1, 0, 0, 1, 0, 1, 2)), ("colour_first", (0, 0, 0, 0, .3, 1, 1, 0)),
    ("colour_first", (0, 0, 0, 0, .3, 0, 1, .5)), ("wild_last", (0, 0, 1, 0, .3, 0, 1, 0)),
    ("strategist", (0, 1, 0, 0, 0, .3, .3, 0)), ("colour_first", (1, 0, .3, 0, 1, 0, 0, 2)),
    ("wild_last", (0, 0, 0, 0, 1, 1, 1, .5)), ("actions_first", (0, 0, 0, 0, 1, 1, 0, 2)),
    ("wild_last", (0, .3, 1, 0, 1, .3, 1, 0)), ("colour_first", (0, 0, 0, 0, .3, 0, .3, 0))]]
trace = trace_game(rules=rules, players=10, seats=seats, seed=10, game=0)
check_trace(trace)
# The longest chain of jump-ins on one card, with what came between them (U1, draws).
between = {codes.EV_UNO_MISS, codes.EV_UNO_CALL, codes.EV_DRAW, codes.EV_DRAW_FAIL,
           codes.EV_RESHUFFLE}
longest, chain, card, end, reshuffled = 0, 0, -1, -1, False
for i, (kind, seat, a, b) in enumerate(trace.events.tolist()):
    if kind == codes.EV_JUMP_IN:
        chain = chain + 1 if a == card else 1
        card = a
        if chain > longest:
            longest, end, jumper, shuffled_in = chain, i, seat, reshuffled
        reshuffled = False
    elif kind == codes.EV_RESHUFFLE:
        reshuffled = True
    elif kind not in between:
        chain, card = 0, -1
after = end + 1
while trace.events[after, 0] in between:
    after += 1
try:
    check_trace(inserted(trace, after, codes.EV_JUMP_IN, jumper, int(trace.events[end, 2])))
    rejected = ""
except RefereeError as err:
    rejected = str(err)
print(json.dumps({"longest": longest, "reshuffled": shuffled_in, "rejected": rejected}))
"""


def test_a_chain_of_jump_ins_ends_after_the_cards_copies_in_the_deck():
    tests = Path(__file__).parent
    done = subprocess.run([sys.executable, "-c", _ENDLESS_JUMP_INS], capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              [str(tests), *sys.path])})
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    # the kernel's chain stops at the cap, after a reshuffle brought the card back ...
    assert got["longest"] == 2 and got["reshuffled"], got
    # ... and the referee refuses one jump-in more
    assert re.search(r"no more jump-ins on \S+ in one move than the deck holds copies of it "
                     r"\(2; J1\)", got["rejected"]), got
