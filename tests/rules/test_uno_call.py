"""The UNO call: U1 uno_penalty (calling, forgetting, who catches it and when, the penalty drawn;
0 turns the rule off) and U2 mistake_penalty (a mistake at the start of a turn costs cards).

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
    game_rules,
    one_turn_rules,
    scores,
    written,
)
from traces import (
    action_cards,
    broken,
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

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("uno_penalty", "mistake_penalty")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- U1: calling and catching

UNO_HANDS = {1: ["R1", "G5"], 0: ["Y7", "Y8"]}
UNO_OPENING = [("flip", "R4"), ("turn", 1), ("play", 1, "R1")]
PENALTY_CARDS = ["B6", "B7", "B8", "B9", "B5"]
for penalty, forget, catch, after_play, name in (
        (2, 1.0, 1.0, [("uno_miss", 1, 0), *draws(1, PENALTY_CARDS[:2], "uno")],
         "caught-penalty-2"),
        (2, 0.0, 1.0, [("uno_call", 1)], "called"),
        (2, 1.0, 0.0, [("uno_miss", 1, -1)], "nobody-catches"),
        (5, 1.0, 1.0, [("uno_miss", 1, 0), *draws(1, PENALTY_CARDS, "uno")],
         "caught-penalty-5"),
        (0, 1.0, 1.0, [], "no-uno-rule")):
    case(f"uno_penalty-{penalty}-{name}", 2, UNO_HANDS, "R4", PENALTY_CARDS,
         rules={"uno_penalty": penalty},
         seats={1: {"forget_uno": forget}, 0: {"catch_uno": catch}},
         table=[*UNO_OPENING, *after_play, ("turn", 0)], prefix=True,
         every={"uno_call": [], "uno_miss": []} if penalty == 0 else {})

# The catchers are asked in playing order from the next seat.
for catch2, catch0, catcher in ((1.0, 1.0, 2), (0.0, 1.0, 0), (1.0, 0.0, 2), (0.0, 0.0, -1)):
    penalty = draws(1, ["B6", "B9"], "uno") if catcher >= 0 else []
    case(f"uno-catchers-in-playing-order-seat2-{catch2:g}-seat0-{catch0:g}", 3,
         {1: ["R1", "G5"], 2: ["Y7", "Y8"], 0: ["B7", "B8"]}, "R4", ["B6", "B9"],
         rules={"uno_penalty": 2},
         seats={1: {"forget_uno": 1.0}, 2: {"catch_uno": catch2}, 0: {"catch_uno": catch0}},
         table=[*UNO_OPENING, ("uno_miss", 1, catcher), *penalty, ("turn", 2)], prefix=True)
# A1 too: the catchers are asked before a Reverse takes effect.
case("uno-catchers-are-asked-before-a-reverse-takes-effect", 3,
     {1: ["R-reverse", "G5"], 2: ["Y7", "Y8"], 0: ["B7", "B8"]}, "R4", ["B6", "B9"],
     rules={"uno_penalty": 2},
     seats={1: {"forget_uno": 1.0}, 2: {"catch_uno": 1.0}, 0: {"catch_uno": 1.0}},
     table=[("flip", "R4"), ("turn", 1), ("play", 1, "R-reverse"), ("uno_miss", 1, 2),
            *draws(1, ["B6", "B9"], "uno"), ("direction", -1), ("turn", 0)], prefix=True)
case("uno-catchers-are-asked-counter-clockwise-when-play-goes-that-way", 3,
     {1: ["Y7", "Y8"], 2: ["B7", "B8"], 0: ["R1", "G5"]}, "R-reverse", ["B6", "B9"],
     rules={"uno_penalty": 2},
     seats={0: {"forget_uno": 1.0}, 1: {"catch_uno": 1.0}, 2: {"catch_uno": 1.0}},
     table=[("flip", "R-reverse"), ("direction", -1), ("turn", 0), ("play", 0, "R1"),
            ("uno_miss", 0, 2), *draws(0, ["B6", "B9"], "uno"), ("turn", 2)], prefix=True)
# A1 too: the UNO penalty is drawn before the card's effect.
case("uno-penalty-is-drawn-before-the-cards-effect", 2, {1: ["R+2", "G5"], 0: ["Y7", "Y8"]}, "R4",
     ["B6", "B7", "B8", "B9"], rules={"uno_penalty": 2},
     seats={1: {"forget_uno": 1.0}, 0: {"catch_uno": 1.0}},
     table=[
         ("flip", "R4"), ("turn", 1), ("play", 1, "R+2"),
         ("uno_miss", 1, 0), *draws(1, ["B6", "B7"], "uno"),
         *draws(0, ["B8", "B9"], "draw_two"), ("skip", 0),
         ("turn", 1),
     ], prefix=True)

# Seat 1 always forgets to call, seat 0 always catches it (and calls its own UNO).
UNO = dict(players=2, hands={1: ["R1", "R2"], 0: ["R3", "Y2"]}, flip="R5",
           draws=["B4", "B6", "B7", "B8"],
           seats={1: {"forget_uno": 1.0}, 0: {"catch_uno": 1.0}})
for penalty, drawn in ((2, ["B4", "B6"]), (4, ["B4", "B6", "B7", "B8"])):
    points = sum(int(n[1]) for n in drawn)
    case(f"uno_penalty-{penalty}", **UNO, rules={"uno_penalty": penalty},
         table=[
             ("flip", "R5"),
             ("turn", 1), ("play", 1, "R1"), ("uno_miss", 1, 0), *draws(1, drawn, "uno"),
             ("turn", 0), ("play", 0, "R3"), ("uno_call", 0),
             ("turn", 1), ("play", 1, "R2"),
             ("turn", 0), ("play", 0, "Y2"),
         ],
         ending=[("round_end", 0, "win", points), *scores((0, points), (points, 0))])
case("uno_penalty-0", **UNO, rules={"uno_penalty": 0},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("play", 0, "R3"),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 2), *scores((2, 0), (0, 2))])

# ---------------------------------------------------------------- U2 mistake_penalty

# Seat 0 errs in every turn (mistake 1): it draws the penalty first, then takes its turn.
MISTAKE = dict(players=2, hands={1: ["R1", "R2"], 0: ["Y3", "Y4"]}, flip="R5",
               seats={0: {"mistake": 1.0}})
case("mistake_penalty-1", **MISTAKE, draws=["B6", "G7"], rules={"mistake_penalty": 1},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("mistake", 0, 1), ("draw", 0, "B6", "mistake"),
         ("draw", 0, "G7", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 20), *scores((20, 0), (0, 20))],
     facts={"round.mistakes": 1})
case("mistake_penalty-2", **MISTAKE, draws=["B6", "B7", "G8"], rules={"mistake_penalty": 2},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("mistake", 0, 2), *draws(0, ["B6", "B7"], "mistake"),
         ("draw", 0, "G8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 28), *scores((28, 0), (0, 28))])
case("mistake_penalty-0", **MISTAKE, draws=["B6", "G7"], rules={"mistake_penalty": 0},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "R2"),
     ],
     ending=[("round_end", 1, "win", 13), *scores((13, 0), (0, 13))])


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- U1 on hand-written traces


def test_missing_uno_call():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_UNO_CALL)),
           r"expected uno_call or uno_miss by seat 1 \(it has one card left\)")


def test_uno_event_without_uno_rule():
    trace = quick_win()
    at = find(trace, codes.EV_TURN, nth=1)
    broken(inserted(trace, at, codes.EV_UNO_CALL, 1), "expected turn of seat 0")


def test_uno_penalty_too_short():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=0, nth=1)),
           r"expected draw by seat 0 \(uno, card 2 of 2\)")


def test_uno_miss_caught_by_the_player_itself():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_UNO_MISS), a=0),
           "the catching seat must be another seat")


@pytest.mark.parametrize("penalty", [0, 2, 4])
def test_uno_penalty(penalty):
    """0 turns the UNO rule off (nothing is written); otherwise a caught miss costs it."""
    drawn = ["B1", "B2", "B3", "B4"][:penalty]
    caught = [("uno_miss", 0, 1), *draws(0, drawn, "uno")] if penalty else []
    trace = written(
        2, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}, dealer=1, rules=one_turn_rules(uno_penalty=penalty),
        table=[("flip", "R5"), ("turn", 0), ("play", 0, "R1"), *caught],
        ending=[("round_end", -1, "cap", 0),
                *scores((2 + sum(range(1, penalty + 1)), 0), (7, 0))])
    r = the_round(trace)
    assert numbers(r, "uno_penalties", "penalty_cards") == (int(penalty > 0), penalty)
    if penalty:
        broken(deleted(trace, find(trace, codes.EV_UNO_MISS)),
               "expected uno_call or uno_miss by seat 0")
    else:
        broken(inserted(trace, find(trace, codes.EV_PLAY) + 1, codes.EV_UNO_CALL, 0),
               "expected round_end at the turn cap")


# ---------------------------------------------------------------- U2 on hand-written traces


def mistake():
    """Seat 0 errs in its first turn: it draws R6 and plays on."""
    return written(
        2, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}, dealer=1, rules=game_rules(mistake_penalty=1),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("mistake", 0, 1), ("draw", 0, "R6", "mistake"), ("play", 0, "R1"),
            ("turn", 1), ("draw", 1, "G7", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R2"),
            ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R6"),
        ],
        ending=[("round_end", 0, "win", 22), *scores((0, 22), (22, 0))],
        game_end=("game_end", 0, "target"))


def test_mistake():
    trace = mistake()
    r = the_round(trace)
    assert numbers(r, "mistakes", "penalty_cards", "turns") == (1, 1, 5)
    at = find(trace, codes.EV_MISTAKE)
    broken(changed(trace, at, seat=1), r"expected mistake by seat 0, the seat taking its turn")
    broken(changed(trace, at, a=2), "a mistake costs mistake_penalty = 1 cards, a = 2")
    broken(with_rules(trace, mistake_penalty=2), "a mistake costs mistake_penalty = 2 cards, a = 1")
    broken(with_rules(trace, mistake_penalty=0), r"mistake_penalty: 0 turns mistakes off \(U2\)")
    broken(deleted(trace, at + 1), r"expected draw by seat 0 \(mistake, card 1 of 1; its mistake")


def test_two_mistakes_cost_two_cards_each():
    trace = written(
        2, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}, dealer=1, rules=game_rules(mistake_penalty=2),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("mistake", 0, 2), *draws(0, ["B1", "B2"], "mistake"), ("play", 0, "R1"),
            ("turn", 1), ("mistake", 1, 2), *draws(1, ["G1", "G2"], "mistake"), ("play", 1, "G1"),
            ("turn", 0), ("play", 0, "B1"),
            ("turn", 1), ("draw", 1, "B3", "normal"), ("play", 1, "B3"),
            ("turn", 0), ("play", 0, "B2"),
            ("turn", 1), ("play", 1, "G2"),
            ("turn", 0), ("play", 0, "R2"),
        ],
        ending=[("round_end", 0, "win", 7), *scores((0, 7), (7, 0))],
        game_end=("game_end", 0, "target"))
    assert numbers(the_round(trace), "mistakes", "penalty_cards") == (2, 4)


def test_no_mistake_without_a_turn():
    """A seat drawing a penalty without a turn (here after a Draw Two) makes no mistake."""
    trace = written(
        2, {0: ["R+2", "R1"], 1: ["Y3", "Y4"]}, dealer=1, rules=game_rules(mistake_penalty=1),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"), ("mistake", 1, 1),
        ],
        game_end=None)
    broken(trace, r"expected draw by seat 1 \(draw_two, card 1 of 2\)")


def test_a_mistake_before_answering_a_pending_penalty():  # U2, A3
    """Seat 1 owes a Draw Two it can answer: its turn starts with a mistake, then it answers."""
    trace = written(
        2, {0: ["R+2", "R1"], 1: ["G+2", "Y5"]},
        dealer=1, rules=one_turn_rules(stack_draw_two="sum", mistake_penalty=1, max_turns=3),
        table=[
            ("flip", "R5"),
            ("turn", 0), ("play", 0, "R+2"),
            ("turn", 1), ("mistake", 1, 1), ("draw", 1, "B9", "mistake"), ("play", 1, "G+2"),
            *draws(0, ["B1", "B2", "B3", "B4"], "draw_two"), ("skip", 0),
            ("turn", 1), ("draw", 1, "G7", "normal"), ("play", 1, "G7"),
        ],
        ending=[("round_end", -1, "cap", 0), *scores((11, 0), (14, 0))])
    assert numbers(the_round(trace), "mistakes", "penalty_cards", "turns") == (1, 5, 3)
    # No mistake for seat 0, which pays the penalty without a turn.
    broken(inserted(trace, find(trace, codes.EV_DRAW, a=card("B1")), codes.EV_MISTAKE, 0, 1),
           r"expected draw by seat 0 \(draw_two, card 1 of 4")
