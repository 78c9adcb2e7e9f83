"""rounds.largest_penalty: the most penalty cards one seat drew at once in a round (a paid
stack counts whole; every reason counted in penalty_cards counts), from the kernel's round rows
and from the referee, on fixed deals."""

from __future__ import annotations

import pytest
from cases import Case, check_case, draws, kernel_game, scores
from traces import action_cards, quick_win, the_round

# Seat 1 plays R+2, seat 2 answers with B+2; seat 0 holds no Draw Two.
DEAL = dict(players=3, hands={1: ["R+2", "B1"], 2: ["B+2", "G5"], 0: ["G7", "G8"]}, flip="R5",
            draws=["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"])
PAID = Case("largest_penalty-a-stack-of-two-draw-twos-paid-at-once", **DEAL,
            rules={"stack_draw_two": "sum"},
            table=[
                ("flip", "R5"),
                ("turn", 1), ("play", 1, "R+2"),
                ("turn", 2), ("play", 2, "B+2"),
                *draws(0, ["Y1", "Y2", "Y3", "Y4"], "draw_two"), ("skip", 0),
                ("turn", 1), ("play", 1, "B1"),
            ],
            ending=[("round_end", 1, "win", 30), *scores((25, 0), (0, 30), (5, 0))],
            facts={"round.largest_penalty": 4, "round.penalty_cards": 4})
# The same deal without stacking: each Draw Two is drawn on its own, two cards at a time.
UNSTACKED = Case("largest_penalty-two-draw-twos-drawn-one-by-one", **DEAL,
                 rules={"stack_draw_two": "none"},
                 facts={"round.largest_penalty": 2})
# No penalty at all.
NONE = Case("largest_penalty-no-penalty", players=2, hands={1: ["R1", "R3"], 0: ["R2", "Y2"]},
            flip="R5", facts={"round.largest_penalty": 0, "round.penalty_cards": 0})


@pytest.mark.parametrize("case, expected", [(PAID, 4), (UNSTACKED, 2), (NONE, 0)],
                         ids=lambda c: getattr(c, "id", None))
def test_the_kernel_and_the_referee_record_the_largest_penalty(case, expected):
    check_case(case)  # the referee accepts the kernel's game and computes the fact
    rounds = kernel_game(case).trace.batch.rounds
    assert rounds["largest_penalty"][0] == expected
    assert rounds["largest_penalty"][0] <= rounds["penalty_cards"][0]


def test_the_referee_takes_the_largest_of_a_rounds_penalties():
    assert the_round(quick_win()).largest_penalty == 0
    # Draw Two (2 cards), UNO miss (2), lost challenge of a bluffed +4 (4): the largest is 4.
    r = the_round(action_cards())
    assert (r.penalty_cards, r.largest_penalty) == (8, 4)
