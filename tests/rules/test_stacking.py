"""Pending penalties: A3 stack_draw_two, A4 stack_draw_four and draw_four_on_draw_two, A5
draw_two_on_draw_four, A6 reverse_deflects (back: a Reverse sends the penalty back; extreme: the
+2/Reverse escalation).

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import pytest
from cases import (
    Family,
    card,
    draws,
    expected_trace,
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
from unostats.seats import WeightedPolicy

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("stack_draw_two", "stack_draw_four", "draw_four_on_draw_two", "draw_two_on_draw_four",
           "reverse_deflects")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- A3 stack_draw_two

STACK_TWO = dict(players=3, hands={1: ["R+2", "B1"], 2: ["B+2", "G5"], 0: ["G+2", "G7"]},
                 flip="R5", draws=["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"])
YELLOWS = STACK_TWO["draws"]
# A chain of three Draw Twos (any colour answers); seat 1 cannot answer: it draws the whole
# penalty and is skipped without a turn.
case("stack_draw_two-sum-chain", **STACK_TWO, rules={"stack_draw_two": "sum"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"),
         ("turn", 2), ("play", 2, "B+2"),
         ("turn", 0), ("play", 0, "G+2"),
         *draws(1, YELLOWS, "draw_two"), ("skip", 1),
         ("turn", 2), ("play", 2, "G5"),
     ],
     ending=[("round_end", 2, "win", 31), *scores((7, 0), (24, 0), (0, 31))])
case("stack_draw_two-pass_on-chain", **STACK_TWO, rules={"stack_draw_two": "pass_on"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"),
         ("turn", 2), ("play", 2, "B+2"),
         ("turn", 0), ("play", 0, "G+2"),
         *draws(1, YELLOWS[:2], "draw_two"), ("skip", 1),
         ("turn", 2), ("play", 2, "G5"),
     ],
     ending=[("round_end", 2, "win", 11), *scores((7, 0), (4, 0), (0, 11))])
case("stack_draw_two-none-each-draw-two-is-drawn", **STACK_TWO, rules={"stack_draw_two": "none"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(2, YELLOWS[:2], "draw_two"), ("skip", 2),
         ("turn", 0), ("play", 0, "G+2"), *draws(1, YELLOWS[2:4], "draw_two"), ("skip", 1),
         ("turn", 2), ("play", 2, "G5"),
         ("turn", 0), ("play", 0, "G7"),
     ],
     ending=[("round_end", 0, "win", 31), *scores((0, 31), (8, 0), (23, 0))])

# ---------------------------------------------------------------- A4 stack_draw_four

STACK_FOUR = dict(players=3, hands={1: ["+4", "B1", "B2"], 2: ["+4", "B5", "G5"],
                                    0: ["Y1", "Y2", "Y3"]}, flip="R5",
                  seats={0: {"challenge": 1.0}})
REDS = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9"]
# Seat 2 answers though it holds blue, the colour named: a +4 is always legal in a chain.
# Seat 0 would challenge any +4 it may: a +4 played onto a pending penalty it may not.
for stack, count in (("sum", 8), ("pass_on", 4)):
    held = 6 + sum(int(n[1]) for n in REDS[:count]) + 6
    case(f"stack_draw_four-{stack}-chain", **STACK_FOUR, draws=[*REDS[:count], "G9", "Y6", "B7"],
         rules={"stack_draw_four": stack},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
             ("turn", 2), ("play", 2, "+4"), ("colour", 2, "green"),
             *draws(0, REDS[:count], "draw_four"), ("skip", 0),
             # The last +4 of the chain named the colour: green.
             ("turn", 1), ("draw", 1, "G9", "normal"), ("play", 1, "G9"),
             ("turn", 2), ("play", 2, "G5"),
             ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
             ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
             ("turn", 2), ("play", 2, "B5"),
         ],
         ending=[("round_end", 2, "win", held + 10), *scores((held, 0), (10, 0), (0, held + 10))],
         facts={"round.challenges": 0, "round.penalty_cards": count, "round.skips": 1})
case("stack_draw_four-none-same-deal-draws-four-at-once", **STACK_FOUR,
     draws=[*REDS[:4], "G9", "Y6", "B7"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
         *draws(2, REDS[:4], "draw_four"), ("skip", 2),
         ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
     ], prefix=True)

# ---------------------------------------------------------------- A4 draw_four_on_draw_two

FOUR_ON_TWO = dict(players=3, hands={1: ["R+2", "Y1"], 2: ["+4", "Y5"], 0: ["G7", "G8"]},
                   flip="R5", draws=["R1", "R2", "R3", "R4", "R6", "R7"])
# Seat 2 answers the Draw Two with a +4 (never restricted on a chain): the penalty grows by 4 to
# 6 and is now a +4 chain; seat 0 cannot answer it (no Wild Draw Four stacking) and draws the
# sum, without a turn.
case("draw_four_on_draw_two-on-draws-the-sum", **FOUR_ON_TWO,
     rules={"draw_four_on_draw_two": True},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"),
         ("turn", 2), ("play", 2, "+4"), ("colour", 2, "yellow"),
         *draws(0, FOUR_ON_TWO["draws"], "draw_four"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y1"),
     ],
     ending=[("round_end", 1, "win", 43), *scores((38, 0), (0, 43), (5, 0))],
     facts={"round.penalty_cards": 6, "round.challenges": 0, "round.skips": 1})
# Off, the same deal: the Draw Two is drawn at once and seat 2 keeps its +4.
case("draw_four_on_draw_two-off-draw-two-drawn-at-once", **FOUR_ON_TWO,
     rules={"draw_four_on_draw_two": False},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(2, ["R1", "R2"], "draw_two"), ("skip", 2),
         ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
     ], prefix=True)
# With Wild Draw Four stacking the chain goes on as A4 says: seat 0 adds its +4 (sum: 10; pass_on:
# still 6) and seat 1 draws it.
for stack, total in (("sum", 10), ("pass_on", 6)):
    drawn = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9", "Y1", "Y2"][:total]
    held = 1 + sum(int(n[1]) for n in drawn)
    case(f"draw_four_on_draw_two-then-stacks-as-a-draw-four-{stack}", 3,
         {1: ["R+2", "B1"], 2: ["+4", "G5"], 0: ["+4", "G7"]}, "R5", drawn,
         rules={"draw_four_on_draw_two": True, "stack_draw_four": stack},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R+2"),
             ("turn", 2), ("play", 2, "+4"), ("colour", 2, "green"),  # a +4 chain of 6
             ("turn", 0), ("play", 0, "+4"), ("colour", 0, "green"),
             *draws(1, drawn, "draw_four"), ("skip", 1),
             ("turn", 2), ("play", 2, "G5"),
         ],
         ending=[("round_end", 2, "win", held + 7), *scores((7, 0), (held, 0), (0, held + 7))],
         facts={"round.penalty_cards": total})


# ---------------------------------------------------------------- A5 draw_two_on_draw_four


def _escape_hands(draw_two: str) -> dict:
    return {1: ["+4", "B1"], 2: [draw_two, "Y5"], 0: ["G7", "Y7"]}


# A Draw Two of the colour the +4 named: the +4 is cancelled, a Draw Two of 2 is pending on
# seat 0, which cannot answer it (no stacking): it draws 2 and is skipped.
case("draw_two_on_draw_four-on-named-colour", 3, _escape_hands("B+2"), "R5",
     ["R1", "R2", "R3", "R4", "Y9"], rules={"draw_two_on_draw_four": True},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
         ("turn", 2), ("play", 2, "B+2"),
         *draws(0, ["R1", "R2"], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 22), *scores((17, 0), (0, 22), (5, 0))])
# A Draw Two of another colour does not escape: seat 2 draws 4, without a turn.
for escape, draw_two, name in ((True, "G+2", "on-other-colour"), (False, "B+2", "off")):
    case(f"draw_two_on_draw_four-{name}", 3, _escape_hands(draw_two), "R5",
         ["R1", "R2", "R3", "R4", "Y9"], rules={"draw_two_on_draw_four": escape},
         table=[
             ("flip", "R5"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
             *draws(2, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 2),
             ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
             ("turn", 1), ("play", 1, "B1"),
         ],
         ending=[("round_end", 1, "win", 58), *scores((23, 0), (0, 58), (35, 0))])
case("draw_two_on_draw_four-then-stacks-as-a-draw-two", 3,
     {1: ["+4", "B1"], 2: ["B+2", "G5"], 0: ["G+2", "Y7"]}, "R5", ["R1", "R2", "R3", "R4"],
     rules={"draw_two_on_draw_four": True, "stack_draw_two": "sum"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
         ("turn", 2), ("play", 2, "B+2"),  # the +4 becomes a Draw Two of 2
         ("turn", 0), ("play", 0, "G+2"),  # answered as a Draw Two: any colour, sum 4
         *draws(1, ["R1", "R2", "R3", "R4"], "draw_two"), ("skip", 1),
         ("turn", 2), ("play", 2, "G5"),
     ],
     ending=[("round_end", 2, "win", 18), *scores((7, 0), (11, 0), (0, 18))])

# ---------------------------------------------------------------- A6 reverse_deflects: back


def _deflect_hands(reverse: str) -> dict:
    return {1: ["R+2", "B1"], 2: [reverse, "Y5"], 0: ["R7", "R8"]}


DEFLECT_DRAWS = ["B2", "B3", "Y9", "B9"]
# A Reverse of the current colour: the direction flips and seat 1, which played the Draw Two,
# owes it now: it draws 2 and is skipped; play goes on counter-clockwise.
case("reverse_deflects-back-a-draw-two", 3, _deflect_hands("R-reverse"), "R5", DEFLECT_DRAWS,
     rules={"reverse_deflects": "back"},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R+2"),
         ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
         *draws(1, ["B2", "B3"], "draw_two"), ("skip", 1),
         ("turn", 0), ("play", 0, "R7"),
         ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
         ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "R8"),
     ],
     ending=[("round_end", 0, "win", 29), *scores((0, 29), (15, 0), (14, 0))])
# A Reverse of another colour does not answer: seat 2 draws 2, without a turn.
case("reverse_deflects-back-other-colour-does-not-answer", 3, _deflect_hands("G-reverse"), "R5",
     DEFLECT_DRAWS, rules={"reverse_deflects": "back"},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R+2"),
         *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
         ("turn", 0), ("play", 0, "R7"),
         ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R8"),
     ],
     ending=[("round_end", 0, "win", 49), *scores((0, 49), (10, 0), (39, 0))])
case("reverse_deflects-none-a-draw-two-is-drawn", 3, _deflect_hands("R-reverse"), "R5",
     DEFLECT_DRAWS, rules={"reverse_deflects": "none"},
     table=[
         ("flip", "R5"), ("turn", 1), ("play", 1, "R+2"),
         *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
         ("turn", 0), ("play", 0, "R7"),
         ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
         ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
         ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "R8"),
     ],
     ending=[("round_end", 0, "win", 29), *scores((0, 29), (19, 0), (10, 0))])
case("reverse_deflects-back-a-wild-draw-four", 3,
     {1: ["+4", "B1"], 2: ["B-reverse", "Y5"], 0: ["B7", "B8"]}, "R5",
     ["R1", "R2", "R3", "R4", "Y9"], rules={"reverse_deflects": "back"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
         ("turn", 2), ("play", 2, "B-reverse"), ("direction", -1),  # blue: the colour named
         *draws(1, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 1),
         ("turn", 0), ("play", 0, "B7"),
         ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
         ("turn", 1), ("play", 1, "B1"),
         ("turn", 0), ("play", 0, "B8"),
     ],
     ending=[("round_end", 0, "win", 24), *scores((0, 24), (10, 0), (14, 0))])
# With 2 players the penalty goes back to the other player (a direction event as well).
DEFLECT_2 = dict(players=2, hands={1: ["R+2", "B1"], 0: ["R-reverse", "R7"]}, flip="R5",
                 draws=["B2", "B3", "B4"])
case("reverse_deflects-back-a-draw-two-with-2-players", **DEFLECT_2,
     rules={"reverse_deflects": "back"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"),
         ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
         *draws(1, ["B2", "B3"], "draw_two"), ("skip", 1),
         ("turn", 0), ("play", 0, "R7"),
     ],
     ending=[("round_end", 0, "win", 6), *scores((0, 6), (6, 0))])
case("reverse_deflects-none-same-deal-2-players-the-draw-two-is-drawn-at-once", **DEFLECT_2,
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(0, ["B2", "B3"], "draw_two"), ("skip", 0),
         ("turn", 1), ("draw", 1, "B4", "normal"), ("pass", 1),
     ], prefix=True)

# ---------------------------------------------------------------- A6 reverse_deflects: extreme

# Seat 1 plays two Draw Twos, seat 0 a Reverse in between: the sequence is worth 2, 4, then 6.
ESCALATION = dict(players=3, hands={1: ["R+2", "R+2", "B1"], 2: ["R1", "Y5", "Y6"],
                                    0: ["R-reverse", "G3", "G4"]}, flip="R5",
                  draws=["Y7", "Y8", "Y9", "G6", "G7", "G8", "G9", "B6", "B7", "B8", "B9", "Y1"])
case("reverse_deflects-extreme-the-sequence-grows-by-two", **ESCALATION,
     rules={"reverse_deflects": "extreme"},
     table=[
         ("flip", "R5"),
         # The Draw Two is drawn at once, as usual, and opens a sequence of value 2.
         ("turn", 1), ("play", 1, "R+2"), *draws(2, ["Y7", "Y8"], "draw_two"), ("skip", 2),
         # A Reverse continues it: the direction flips and the next seat in the new direction,
         # seat 2 that has just drawn, draws 4 and is skipped again.
         ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
         *draws(2, ["Y9", "G6", "G7", "G8"], "draw_two"), ("skip", 2),
         # Counter-clockwise seat 1 is next: a Draw Two continues it, seat 0 draws 6.
         ("turn", 1), ("play", 1, "R+2"),
         *draws(0, ["G9", "B6", "B7", "B8", "B9", "Y1"], "draw_two"), ("skip", 0),
         # Any other play closes the sequence.
         ("turn", 2), ("play", 2, "R1"),
         ("turn", 1), ("play", 1, "B1"),
     ],
     ending=[("round_end", 1, "win", 103), *scores((47, 0), (0, 103), (56, 0))],
     facts={"round.penalty_cards": 12, "round.skips": 3, "round.direction_changes": 1})
case("reverse_deflects-none-same-deal-a-reverse-after-a-draw-two-is-a-reverse", **ESCALATION,
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(2, ["Y7", "Y8"], "draw_two"), ("skip", 2),
         ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
         ("turn", 2), ("play", 2, "R1"),  # seat 2 draws nothing and takes its turn
         ("turn", 1), ("play", 1, "R+2"), *draws(0, ["Y9", "G6"], "draw_two"), ("skip", 0),
         ("turn", 2),
     ], prefix=True)

GREENS = ["G2", "G3", "G6", "G7", "G8", "G9", "G2", "G3", "G6", "G7", "G8", "G9"]
ESCALATION_2 = dict(players=2, hands={1: ["R+2", "Y+2", "Y-reverse", "B1"],
                                      0: ["B-reverse", "B2", "G4", "G5"]},
                    flip="R5", draws=[*GREENS, "B5", "Y9"])
case("reverse_deflects-extreme-2-players-a-reverse-only-skips-and-a-draw-closes", **ESCALATION_2,
     rules={"reverse_deflects": "extreme"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(0, GREENS[:2], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y+2"), *draws(0, GREENS[2:6], "draw_two"), ("skip", 0),
         # With 2 players the Reverse flips nothing (no direction event): it acts as a Skip, and
         # seat 0 draws 6.
         ("turn", 1), ("play", 1, "Y-reverse"), *draws(0, GREENS[6:], "draw_two"), ("skip", 0),
         # Seat 1 has no legal card: its draw closes the sequence ...
         ("turn", 1), ("draw", 1, "B5", "normal"), ("pass", 1),
         # ... so seat 0's Reverse is a plain one: seat 1 is skipped and draws nothing.
         ("turn", 0), ("play", 0, "B-reverse"), ("skip", 1),
         ("turn", 0), ("play", 0, "B2"),
         ("turn", 1), ("play", 1, "B1"),
         ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B5"),
     ],
     ending=[("round_end", 1, "win", 88), *scores((88, 0), (0, 88))],
     facts={"round.penalty_cards": 12, "round.skips": 4, "round.direction_changes": 0})
case("reverse_deflects-none-same-deal-2-players-each-draw-two-costs-two", **ESCALATION_2,
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"), *draws(0, GREENS[:2], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y+2"), *draws(0, GREENS[2:4], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y-reverse"), ("skip", 0),
         ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
     ], prefix=True)

# A last card during the sequence (seat 1's R+2 opens it; seat 0 draws Y1, Y2).
LAST_OPENING = [("flip", "R5"), ("turn", 1), ("play", 1, "R+2"),
                *draws(0, ["Y1", "Y2"], "draw_two"), ("skip", 0)]
LAST_DRAWS = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]
# A last Draw Two is drawn first (the official scoring detail): the value the sequence reaches
# with it, 4.
case("reverse_deflects-extreme-a-last-draw-two-costs-the-sequence-value", 2,
     {1: ["R+2", "G+2"], 0: ["B1", "B2"]}, "R5", LAST_DRAWS, rules={"reverse_deflects": "extreme"},
     table=[*LAST_OPENING,
            ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4", "Y5", "Y6"], "draw_two")],
     ending=[("round_end", 1, "win", 24), *scores((24, 0), (0, 24))])
case("reverse_deflects-none-a-last-draw-two-costs-two", 2,
     {1: ["R+2", "G+2"], 0: ["B1", "B2"]}, "R5", LAST_DRAWS, rules={"reverse_deflects": "none"},
     table=[*LAST_OPENING,
            ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4"], "draw_two")],
     ending=[("round_end", 1, "win", 13), *scores((13, 0), (0, 13))])
# A last Reverse costs nothing: only a last Draw Two or +4 is drawn at the end of a round
# (docs/engine.md "After a play", 2).
case("reverse_deflects-extreme-a-last-reverse-costs-nothing", 2,
     {1: ["R+2", "G+2", "G-reverse"], 0: ["B1", "B2", "B3"]}, "R5", LAST_DRAWS,
     rules={"reverse_deflects": "extreme"},
     table=[*LAST_OPENING,
            ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4", "Y5", "Y6"], "draw_two"),
            ("skip", 0),
            ("turn", 1), ("play", 1, "G-reverse")],
     ending=[("round_end", 1, "win", 27), *scores((27, 0), (0, 27))])

# A2 too: two Draw Twos in one turn add 4 to the sequence.
DOUBLE_ESCALATION = dict(players=2, hands={1: ["R+2", "R+2", "G+2", "G1"],
                                           0: ["B1", "B2", "B3", "B4"]}, flip="R5",
                         draws=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "G2", "G3",
                                "G4"])
YG = DOUBLE_ESCALATION["draws"]
for double, rule, table, points, name in (
        # Two Draw Twos in one turn add 4 to the sequence: 4, then 6 with the next one.
        (True, "extreme", [
            ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
            *draws(0, YG[:4], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(0, YG[4:10], "draw_two"), ("skip", 0),
        ], 57, "double-extreme"),
        # One at a time: 2, 4, 6.
        (False, "extreme", [
            ("turn", 1), ("play", 1, "R+2"), *draws(0, YG[:2], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "R+2"), *draws(0, YG[2:6], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(0, YG[6:12], "draw_two"), ("skip", 0),
        ], 64, "single-extreme"),
        # Without the escalation: 4 (A2), then 2.
        (True, "none", [
            ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
            *draws(0, YG[:4], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(0, YG[4:6], "draw_two"), ("skip", 0),
        ], 31, "double-none")):
    case(f"reverse_deflects-{name}-a-double-draw-two", **DOUBLE_ESCALATION,
         rules={"double_action": double, "reverse_deflects": rule},
         table=[("flip", "R5"), *table, ("turn", 1), ("play", 1, "G1")],
         ending=[("round_end", 1, "win", points), *scores((points, 0), (0, points))])

# J1 too: seat 2, the victim of seat 1's Draw Two, holds the identical card and jumps in on it.
JUMP_ON_DRAW_TWO = dict(players=3, hands={1: ["R+2", "G+2"], 2: ["R+2", "B2"], 0: ["G3", "G4"]},
                        flip="R5",
                        draws=["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "B3"],
                        seats={2: {"jump_in": 1.0}})
JD = JUMP_ON_DRAW_TWO["draws"]
for jump_in, table, ending in (
        # extreme: seat 1's Draw Two still has its effect, but seat 2, which jumped in on a card
        # aimed at itself, draws nothing for it (it is skipped); then seat 2's Draw Two
        # continues the sequence from seat 2: seat 0 draws 4. Seat 1 goes out with a Draw Two:
        # seat 2 draws the value the sequence reaches with it, 6.
        ("extreme", [
            ("jump_in", 2, "R+2"), ("skip", 2),
            *draws(0, JD[:4], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(2, JD[4:10], "draw_two"),
        ], [("round_end", 1, "win", 57), *scores((17, 0), (0, 57), (40, 0))]),
        # all_but_draw_four: seat 1's Draw Two is cancelled and never opens a sequence; seat
        # 2's opens it (seat 0 draws 2) and seat 1's last card raises it to 4.
        ("all_but_draw_four", [
            ("jump_in", 2, "R+2"), *draws(0, JD[:2], "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(2, JD[2:6], "draw_two"),
        ], [("round_end", 1, "win", 30), *scores((10, 0), (0, 30), (20, 0))]),
        # No jump-in: seat 2 draws 2; seat 0 cannot play and its draw closes the sequence, so
        # seat 1's last Draw Two opens a new one: 2.
        ("none", [
            *draws(2, JD[:2], "draw_two"), ("skip", 2),
            ("turn", 0), ("draw", 0, "Y3", "normal"), ("pass", 0),
            ("turn", 1), ("play", 1, "G+2"), *draws(2, JD[3:5], "draw_two"),
        ], [("round_end", 1, "win", 44), *scores((10, 0), (0, 44), (34, 0))])):
    case(f"reverse_deflects-extreme-jump_in-{jump_in}-on-a-draw-two-aimed-at-the-jumper",
         **JUMP_ON_DRAW_TWO, rules={"reverse_deflects": "extreme", "jump_in": jump_in},
         table=[("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *table], ending=ending,
         facts={"round.jump_ins": int(jump_in != "none")})


# U2 and N5 too: a seat that owes a pending penalty and holds an answer takes a turn, whose start
# may cost it cards (a mistake, a broken silence); it chooses its answer after those draws, from
# the hand that holds them (docs/engine.md "Combinations"). Seat 1 plays its R+2 first (the most
# points). Seat 2 holds B+2 and errs in every turn: the mistake brings R+2, which it scores
# better (first_legal: the lower card id; the weights: the current colour), so it answers with
# R+2, the colour stays red and seat 1 goes out with R1. Chosen before the draw, the answer
# would be B+2 and R1 would not be legal.
ANSWER_AFTER_DRAWS = dict(players=3, hands={1: ["R+2", "R1"], 2: ["B+2", "G5"],
                                            0: ["G7", "Y8"]}, flip="R5",
                          draws=["R+2", "Y1", "Y2", "Y3", "Y4", "B5", "G4", "R5"])
RED_FIRST = WeightedPolicy.of("red-first", {"colour_match": 1}, ties="first")
for policy in ("first_legal", RED_FIRST):
    label = getattr(policy, "name", policy)
    case(f"stack_draw_two-answered-after-a-mistake-draws-a-better-answer-{label}",
         **ANSWER_AFTER_DRAWS, rules={"stack_draw_two": "sum", "mistake_penalty": 1},
         seats={1: {"policy": "high_value_first"}, 2: {"policy": policy, "mistake": 1.0}},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R+2"),
             ("turn", 2), ("mistake", 2, 1), ("draw", 2, "R+2", "mistake"), ("play", 2, "R+2"),
             *draws(0, ["Y1", "Y2", "Y3", "Y4"], "draw_two"), ("skip", 0),
             ("turn", 1), ("play", 1, "R1"),
         ],
         ending=[("round_end", 1, "win", 50), *scores((25, 0), (0, 50), (25, 0))],
         facts={"round.mistakes": 1, "round.penalty_cards": 5})
# The same deal without mistakes: B+2 is seat 2's only answer, and blue the colour.
case("stack_draw_two-answered-without-a-mistake-same-deal", **ANSWER_AFTER_DRAWS,
     rules={"stack_draw_two": "sum", "mistake_penalty": 0},
     seats={1: {"policy": "high_value_first"}, 2: {"mistake": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R+2"),
         ("turn", 2), ("play", 2, "B+2"),
         *draws(0, ["R+2", "Y1", "Y2", "Y3"], "draw_two"), ("skip", 0),
         ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "B5", "normal"), ("play", 2, "B5"),
         ("turn", 0), ("draw", 0, "G4", "normal"), ("pass", 0),
         ("turn", 1), ("draw", 1, "R5", "normal"), ("play", 1, "R5"),
         ("turn", 2), ("play", 2, "G5"),
     ],
     ending=[("round_end", 2, "win", 50), *scores((45, 0), (5, 0), (0, 50))],
     facts={"round.mistakes": 0, "round.penalty_cards": 4})
# N5 too: seat 1's +4 starts a silence (black) and is pending on seat 2, which breaks the silence
# at the start of the turn in which it answers (silence_break 1; the others never break it). The
# 2 cards drawn bring Y+2, an answer of the named colour (A5) it prefers to its +4 (the lower card
# id): the +4 is cancelled, seat 0 draws 2 and seat 1 goes out. Chosen before the draw, the answer
# would be the +4, and seat 0 would owe 8.
case("draw_two_on_draw_four-answered-after-a-broken-silence-draws-a-better-answer",
     3, {1: ["+4", "Y1"], 2: ["+4", "G5"], 0: ["G7", "B8"]}, "R5", ["Y+2", "G1", "B1", "B2"],
     rules={"stack_draw_four": "sum", "draw_two_on_draw_four": True, "silence": "black"},
     seats={2: {"silence_break": 1.0}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
         ("turn", 2), ("silence_break", 2, 2), *draws(2, ["Y+2", "G1"], "silence"),
         ("play", 2, "Y+2"),
         *draws(0, ["B1", "B2"], "draw_two"), ("skip", 0),
         ("turn", 1), ("play", 1, "Y1"),
     ],
     ending=[("round_end", 1, "win", 74), *scores((18, 0), (0, 74), (56, 0))],
     facts={"round.silence_breaks": 1})


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


def test_an_answer_chosen_before_the_turns_draws_is_rejected():
    """The referee rejects seat 2's answer chosen from the hand it held before its mistake."""
    for c in CASES:
        if c.id.startswith("stack_draw_two-answered-after-a-mistake"):
            trace = expected_trace(c)
            at = find(trace, codes.EV_PLAY, seat=2)
            broken(changed(trace, at, a=card("B+2")),
                   r"seat 2 \((first_legal|red-first), weights\) must play the answer it scores "
                   r"best: R\+2, not B\+2")


def test_a_draw_four_answers_a_draw_two_only_under_its_rule():
    """The expected events of the scripted case, with the rule off: the referee wants the Draw
    Two drawn at once, and a +4 is no answer to a Draw Two chain of A3 alone."""
    on, = (c for c in CASES if c.id == "draw_four_on_draw_two-on-draws-the-sum")
    trace = expected_trace(on)
    assert the_round(trace).penalty_cards == 6
    broken(with_rules(trace, draw_four_on_draw_two=False), r"expected draw by seat 2 \(draw_two")
    broken(with_rules(trace, draw_four_on_draw_two=False, stack_draw_two="sum"),
           r"expected draw by seat 2 \(draw_two")


# ---------------------------------------------------------------- A3 on hand-written traces


def stacked_draw_twos(stack: str, drawn: list[str], points: int):
    """Seat 1 answers R+2 with G+2; seat 2 cannot answer and draws the chain, without a turn."""
    return written(
        3, {0: ["R+2", "G3", "R1"], 1: ["G+2", "G1", "G2"], 2: ["Y1", "Y2", "Y3"]},
        dealer=2, rules=game_rules(stack_draw_two=stack),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"),
            ("turn", 1), ("play", 1, "G+2"), *draws(2, drawn, "draw_two"), ("skip", 2),
            ("turn", 0), ("play", 0, "G3"),
            ("turn", 1), ("play", 1, "G1"),
            ("turn", 2), ("play", 2, "Y1"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", points), *scores((0, points), (2, 0), (points - 2, 0))],
        game_end=("game_end", 0, "target"))


@pytest.mark.parametrize("stack, drawn, points", [
    ("sum", ["B1", "B2", "B3", "B4"], 17),
    ("pass_on", ["B1", "B2"], 10),
])
def test_stacked_draw_twos(stack, drawn, points):
    r = the_round(stacked_draw_twos(stack, drawn, points))
    assert numbers(r, "turns", "cards_played", "penalty_cards", "skips") == (6, 6, len(drawn), 1)


def test_stacked_draw_two_violations():
    trace = stacked_draw_twos("sum", ["B1", "B2", "B3", "B4"], 17)
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=3)),
           r"expected draw by seat 2 \(draw_two, card 4 of 4; seat 2 cannot answer the pending "
           r"Draw Two of 4\)")
    broken(inserted(trace, find(trace, codes.EV_DRAW), codes.EV_TURN, 2),
           r"expected draw by seat 2 \(draw_two, card 1 of 4")
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("G1")),
           r"G1 does not answer the pending Draw Two of 2 \(answers held: G\+2\)")
    answer = find(trace, codes.EV_PLAY, seat=1)
    drawing_instead = changed(trace, answer, kind=codes.EV_DRAW, a=card("B9"), b=0)
    broken(drawing_instead, r"expected answer by seat 1 to the pending Draw Two of 2")
    broken(deleted(drawing_instead, answer - 1),
           r"expected turn of seat 1 \(it must answer the pending Draw Two of 2; it holds G\+2\)")
    broken(with_rules(trace, stack_draw_two="none"), r"expected draw by seat 1 \(draw_two")
    trace = stacked_draw_twos("pass_on", ["B1", "B2"], 10)
    broken(inserted(trace, find(trace, codes.EV_SKIP), codes.EV_DRAW, 2, card("B3"),
                    codes.DRAW_DRAW_TWO), "expected skip of seat 2")


def test_double_draw_two_adds_four_to_a_chain():
    trace = written(
        3, {0: ["R+2", "G3", "R1"], 1: ["G+2", "G+2", "G1"], 2: ["Y1", "Y2", "Y3"]},
        dealer=2, rules=game_rules({"draw_two": 2}, stack_draw_two="sum", double_action=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"),
            ("turn", 1), ("play", 1, "G+2"), ("play", 1, "G+2"),
            *draws(2, ["B1", "B2", "B3", "B4", "B5", "B6"], "draw_two"), ("skip", 2),
            ("turn", 0), ("play", 0, "G3"),
            ("turn", 1), ("play", 1, "G1"),
        ],
        ending=[("round_end", 1, "win", 28), *scores((1, 0), (0, 28), (27, 0))],
        game_end=("game_end", 1, "target"))
    assert numbers(the_round(trace), "penalty_cards", "turns") == (6, 4)
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=5)), r"card 6 of 6")


# ---------------------------------------------------------------- A4, A5 on hand-written traces


def stacked_draw_fours(stack: str, drawn: list[str], points: int):
    """Seat 1 answers +4 with +4 and names green; seat 2 draws the chain."""
    return written(
        3, {0: ["+4", "G5", "R1"], 1: ["+4", "G1", "G2"], 2: ["Y1", "Y2", "B9"]},
        dealer=2,
        rules=game_rules({"wild_draw_four": 2}, wild_draw_four="free", stack_draw_four=stack),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "red"),
            ("turn", 1), ("play", 1, "+4"), ("colour", 1, "green"), *draws(2, drawn, "draw_four"),
            ("skip", 2),
            ("turn", 0), ("play", 0, "G5"),
            ("turn", 1), ("play", 1, "G1"),
            ("turn", 2), ("play", 2, "Y1"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", points), *scores((0, points), (2, 0), (points - 2, 0))],
        game_end=("game_end", 0, "target"))


@pytest.mark.parametrize("stack, drawn, points", [
    ("sum", ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"], 49),
    ("pass_on", ["B1", "B2", "B3", "B4"], 23),
])
def test_stacked_draw_fours(stack, drawn, points):
    r = the_round(stacked_draw_fours(stack, drawn, points))
    assert numbers(r, "turns", "penalty_cards", "skips", "challenges") == (6, len(drawn), 1, 0)


def test_stacked_draw_four_violations():
    trace = stacked_draw_fours("sum", ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8"], 49)
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=7)),
           r"card 8 of 8; seat 2 cannot answer the pending \+4 of 8")
    at = find(trace, codes.EV_COLOUR, seat=1) + 1
    broken(inserted(trace, at, codes.EV_CHALLENGE, 2, 1, 0),
           r"a \+4 played onto a pending penalty cannot be challenged \(A4\)")
    broken(changed(trace, find(trace, codes.EV_COLOUR, seat=1), a=0), "must name green")
    broken(with_rules(trace, stack_draw_four="none"), r"expected draw by seat 1 \(draw_four")


def test_first_draw_four_of_a_chain_may_be_challenged():
    """The challenge settles the +4: the innocent challenger draws 6 and nothing is pending."""
    trace = written(
        2, {0: ["+4", "Y1"], 1: ["+4", "B2"]},
        dealer=1, rules=game_rules({"wild_draw_four": 2}, stack_draw_four="sum"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "yellow"),
            ("challenge", 1, 0, "innocent"),
            *draws(1, ["G1", "G2", "G3", "G4", "G6", "G7"], "challenge"), ("skip", 1),
            ("turn", 0), ("play", 0, "Y1"),
        ],
        ending=[("round_end", 0, "win", 75), *scores((0, 75), (75, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "challenges", "penalty_cards", "turns") == (1, 6, 2)
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 1")


def draw_two_on_draw_four():
    """Seat 1 escapes the +4 (red named) with R+2: seat 2 owes a Draw Two of 2."""
    return written(
        3, {0: ["+4", "R1", "R2"], 1: ["R+2", "G+2", "R7"], 2: ["Y1", "Y2", "B9"]},
        dealer=2, rules=game_rules(wild_draw_four="free", draw_two_on_draw_four=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "+4"), ("colour", 0, "red"),
            ("turn", 1), ("play", 1, "R+2"), *draws(2, ["B1", "B2"], "draw_two"), ("skip", 2),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 1), ("play", 1, "R7"),
            ("turn", 2), ("draw", 2, "Y4", "normal"), ("pass", 2),
            ("turn", 0), ("play", 0, "R2"),
        ],
        ending=[("round_end", 0, "win", 39), *scores((0, 39), (20, 0), (19, 0))],
        game_end=("game_end", 0, "target"))


def test_draw_two_on_draw_four():
    trace = draw_two_on_draw_four()
    assert numbers(the_round(trace), "turns", "penalty_cards", "skips") == (6, 2, 1)
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("G+2")),
           r"G\+2 does not answer the pending \+4 of 4 \(answers held: R\+2\)")
    broken(changed(trace, find(trace, codes.EV_DRAW), b=codes.DRAW_DRAW_FOUR),
           "expected draw reason draw_two")
    broken(with_rules(trace, draw_two_on_draw_four=False), r"expected draw by seat 1 \(draw_four")


# ---------------------------------------------------------------- A6 on hand-written traces


def deflected_three_players():
    """Seat 1 sends R+2 back with R-reverse: play turns counter-clockwise, seat 0 draws 2."""
    return written(
        3, {0: ["R+2", "R1", "G4"], 1: ["R-reverse", "R6", "R7"], 2: ["R3", "B8", "B9"]},
        dealer=2, rules=game_rules(reverse_deflects="back"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"),
            ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
            *draws(0, ["Y1", "Y2"], "draw_two"), ("skip", 0),
            ("turn", 2), ("play", 2, "R3"),
            ("turn", 1), ("play", 1, "R6"),
            ("turn", 0), ("play", 0, "R1"),
            ("turn", 2), ("draw", 2, "G9", "normal"), ("pass", 2),
            ("turn", 1), ("play", 1, "R7"),
        ],
        ending=[("round_end", 1, "win", 33), *scores((7, 0), (0, 33), (26, 0))],
        game_end=("game_end", 1, "target"))


def deflected_two_players(penalty: str, colour: str | None, drawn: list[str], reason: str):
    points = 1 + sum(int(name[1]) for name in drawn)
    return written(
        2, {0: [penalty, "R1"], 1: ["R-reverse", "R7"]},
        dealer=1, rules=game_rules(wild_draw_four="free", reverse_deflects="back"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, penalty), *([("colour", 0, colour)] if colour else []),
            ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1), *draws(0, drawn, reason),
            ("skip", 0),
            ("turn", 1), ("play", 1, "R7"),
        ],
        ending=[("round_end", 1, "win", points), *scores((points, 0), (0, points))],
        game_end=("game_end", 1, "target"))


def test_reverse_deflects_back():
    r = the_round(deflected_three_players())
    assert numbers(r, "turns", "direction_changes", "penalty_cards", "skips") == (7, 1, 2, 1)
    r = the_round(deflected_two_players("R+2", None, ["Y1", "Y2"], "draw_two"))
    assert numbers(r, "turns", "direction_changes", "penalty_cards") == (3, 1, 2)
    r = the_round(deflected_two_players("+4", "red", ["B1", "B2", "B3", "B4"], "draw_four"))
    assert numbers(r, "turns", "direction_changes", "penalty_cards") == (3, 1, 4)


def test_reverse_deflects_back_violations():
    trace = deflected_three_players()
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("R6")),
           r"R6 does not answer the pending Draw Two of 2 \(answers held: R-reverse\)")
    broken(deleted(trace, find(trace, codes.EV_DIRECTION)), "expected direction -1")
    broken(changed(trace, find(trace, codes.EV_DRAW, nth=0), seat=2), "expected draw by seat 0")
    # Only a Reverse of the current colour answers: with G-reverse seat 1 must draw.
    green = changed(trace, find(trace, codes.EV_DEAL, a=card("R-reverse")), a=card("G-reverse"))
    green = changed(green, find(green, codes.EV_PLAY, seat=1), a=card("G-reverse"))
    broken(green, r"expected draw by seat 1 \(draw_two, card 1 of 2; seat 1 cannot answer")


def escalation():
    """R+2 (seat 1 draws 2), R-reverse (seat 1 draws 4), R+2 (seat 2 draws 6), then a draw."""
    return written(
        3, {0: ["R+2", "R+2", "R1"], 1: ["G1", "G2", "G3"], 2: ["R-reverse", "Y1", "Y2"]},
        dealer=2, rules=game_rules({"draw_two": 2}, reverse_deflects="extreme"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), *draws(1, ["B1", "B2"], "draw_two"), ("skip", 1),
            ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
            *draws(1, ["B3", "B4", "B5", "B6"], "draw_two"), ("skip", 1),
            ("turn", 0), ("play", 0, "R+2"),
            *draws(2, ["B7", "B8", "B9", "Y3", "Y4", "Y5"], "draw_two"), ("skip", 2),
            ("turn", 1), ("draw", 1, "Y6", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 72), *scores((0, 72), (33, 0), (39, 0))],
        game_end=("game_end", 0, "target"))


def test_escalation():
    r = the_round(escalation())
    assert numbers(r, "turns", "penalty_cards", "skips", "direction_changes") == (5, 12, 3, 1)


def test_escalation_violations():
    trace = escalation()
    broken(deleted(trace, find(trace, codes.EV_DRAW, a=card("B6"))),
           r"expected draw by seat 1 \(draw_two, card 4 of 4; \+2/Reverse sequence of value 4\)")
    broken(deleted(trace, find(trace, codes.EV_DRAW, a=card("Y5"))), r"card 6 of 6")
    broken(with_rules(trace, reverse_deflects="none"), "expected turn of seat 1")


def escalation_last_card(closed: bool):
    """2 players: seat 0 goes out with its second R+2. Seat 1 draws 2 more than the open
    sequence's value, or just 2 once R9 has closed the sequence."""
    hand = ["R+2", "R9", "R+2"] if closed else ["R+2", "R+2"]
    if closed:
        end = [("turn", 0), ("play", 0, "R9"),
               ("turn", 1), ("draw", 1, "Y3", "normal"), ("pass", 1),
               ("turn", 0), ("play", 0, "R+2"), *draws(1, ["Y1", "Y2"], "draw_two")]
        points = 27
    else:
        end = [("turn", 0), ("play", 0, "R+2"), *draws(1, ["B3", "B4", "B5", "B6"], "draw_two")]
        points = 32
    return written(
        2, {0: hand, 1: ["G5", "G6", "G7"][:len(hand)]}, dealer=1,
        rules=game_rules({"draw_two": 2}, reverse_deflects="extreme"),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), *draws(1, ["B1", "B2"], "draw_two"), ("skip", 1), *end,
        ],
        ending=[("round_end", 0, "win", points), *scores((0, points), (points, 0))],
        game_end=("game_end", 0, "target"))


@pytest.mark.parametrize("closed, penalty", [(True, 4), (False, 6)])
def test_escalation_of_a_last_card(closed, penalty):
    trace = escalation_last_card(closed)
    assert the_round(trace).penalty_cards == penalty
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_DRAW, 1, card("B9"), codes.DRAW_DRAW_TWO),
           "expected round_end")


def test_escalation_cannot_be_combined_with_stacked_draw_twos():
    trace = with_rules(escalation(), stack_draw_two="sum")
    broken(trace, "trace.rules combine what docs/engine.md forbids: stack_draw_two: sum cannot "
                  "be combined with reverse_deflects: extreme")


def double_escalation(drawn_first: int):
    """A2 + A6 extreme: two R+2 in one turn open the sequence at 4; a Reverse makes it 6."""
    first = ["B1", "B2", "B3", "B4", "B5", "B6"][:drawn_first]
    points = 6 + sum(range(1, drawn_first + 1)) + 24 + 12
    return written(
        3, {0: ["R+2", "R+2", "R1"], 1: ["G1", "G2", "G3"], 2: ["R-reverse", "Y1", "Y2"]},
        dealer=2, rules=game_rules({"draw_two": 2}, reverse_deflects="extreme", double_action=True),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), ("play", 0, "R+2"), *draws(1, first, "draw_two"),
            ("skip", 1),
            ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
            *draws(1, ["B7", "B8", "B9", "Y3", "Y4", "Y5"], "draw_two"), ("skip", 1),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", points + 3), *scores((0, points + 3), (points, 0), (3, 0))],
        game_end=("game_end", 0, "target"))


def test_escalation_counts_a_double_draw_two_twice():
    r = the_round(double_escalation(4))
    assert numbers(r, "cards_played", "penalty_cards", "skips") == (4, 10, 2)
    broken(double_escalation(2), r"expected draw by seat 1 \(draw_two, card 3 of 4")
