"""How a round plays (codes.MEASURE_NAMES): hand leader changes, the winner's largest card
deficit, decisions and UNO stops, on fixed deals counted by hand, from the kernel's round rows
and from the referee (over the kernel's trace and over the events written here)."""

from __future__ import annotations

import pytest
from cases import Case, check_case, draws, kernel_game, scores

from unostats import codes

# Seat 1 plays first (dealer 0), then 2, then 0. Turn starts (cards held by seats 0, 1, 2):
# (3, 3, 3) no leader; (3, 2, 3) seat 1 leads; (3, 2, 2) and (2, 2, 2) ties keep it; (2, 1, 2)
# seat 1; (2, 1, 1), (3, 1, 1) and (3, 1, 1) ties; seat 2 goes out: the one change. Decisions:
# seat 1 on R5 (R1, R2), seat 2 on R1 (R4, G1), seat 0 on R4 (R3, Y4): three, two cards each.
# Seat 2's largest deficit to the fewest held: one card (3 to 2, then 2 to 1).
LEADER = Case(
    "measures-leader-changes-and-decisions", players=3,
    hands={1: ["R1", "R2", "B7"], 2: ["R4", "G1", "G2"], 0: ["R3", "Y4", "Y6"]}, flip="R5",
    draws=["Y8", "G9"],
    table=[
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R1"),
        ("turn", 2), ("play", 2, "R4"),
        ("turn", 0), ("play", 0, "R3"),
        ("turn", 1), ("play", 1, "R2"),
        ("turn", 2), ("play", 2, "G2"),
        ("turn", 0), ("draw", 0, "Y8", "normal"), ("pass", 0),
        ("turn", 1), ("draw", 1, "G9", "normal"), ("play", 1, "G9"),
        ("turn", 2), ("play", 2, "G1"),
    ],
    ending=[("round_end", 2, "win", 25), *scores((18, 0), (7, 0), (0, 25))],
    facts={"round.hand_leader_changes": 1, "round.winner_largest_deficit": 1,
           "round.decision_turns": 3, "round.legal_cards_on_decisions": 6,
           "round.uno_stops": 0, "round.uno_stops_still_won": 0})

# Seat 1 is down to G3 when seat 0's Skip skips it: a stop; nobody else can play and seat 1
# goes out, so the stopped seat still won. No turn offers two distinct legal cards.
SKIPPED_STILL_WON = Case(
    "measures-uno-stop-by-a-skip-still-won", players=3,
    hands={1: ["R1", "G3"], 2: ["G1", "B7"], 0: ["G-skip", "Y8"]}, flip="R5",
    draws=["Y9", "Y6"],
    table=[
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R1"),
        ("turn", 2), ("play", 2, "G1"),
        ("turn", 0), ("play", 0, "G-skip"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G3"),
    ],
    ending=[("round_end", 1, "win", 30), *scores((14, 0), (0, 30), (16, 0))],
    facts={"round.hand_leader_changes": 0, "round.winner_largest_deficit": 0,
           "round.decision_turns": 0, "round.uno_stops": 1, "round.uno_stops_still_won": 1})

# Seat 1 on one card draws seat 0's Draw Two (one stop: the skip after it finds three cards)
# and seat 2 goes out: the stop held. Leaders: seat 1, then seat 2 (one change).
DRAWN_STOPPED = Case(
    "measures-uno-stop-by-a-draw-two", players=3,
    hands={1: ["R1", "G3"], 2: ["G1", "G4"], 0: ["G+2", "Y8"]}, flip="R5",
    draws=["Y1", "Y2"],
    table=[
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R1"),
        ("turn", 2), ("play", 2, "G1"),
        ("turn", 0), ("play", 0, "G+2"), *draws(1, ["Y1", "Y2"], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G4"),
    ],
    ending=[("round_end", 2, "win", 14), *scores((8, 0), (6, 0), (0, 14))],
    facts={"round.hand_leader_changes": 1, "round.winner_largest_deficit": 1,
           "round.decision_turns": 0, "round.uno_stops": 1, "round.uno_stops_still_won": 0})


@pytest.mark.parametrize("case", [LEADER, SKIPPED_STILL_WON, DRAWN_STOPPED], ids=lambda c: c.id)
def test_the_kernel_and_the_referee_count_how_the_round_played(case):
    check_case(case)  # the referee accepts the kernel's game and computes the facts
    rounds = kernel_game(case).trace.batch.rounds
    for name in codes.MEASURE_NAMES:
        assert rounds[name][0] == case.facts.get(f"round.{name}", 0), name
