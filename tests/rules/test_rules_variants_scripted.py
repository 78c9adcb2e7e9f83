"""Scripted rule tests for the turn variants of docs/engine.md ("Turn variants").

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the exact
events docs/engine.md prescribes; the referee checks every trace as well. Where an option is a
switch the same deal is also played with it off.

The expected events were checked against the referee by building each game by hand as a trace.
"""

from __future__ import annotations

import pytest
from cases import play, scores, seat

# ---------------------------------------------------------------- N3 multi_play

# G7 is seat 1's only legal card on G5; it holds a 7 of every colour.
SAME_RANK_HANDS = {1: ["B7", "G7", "R7", "Y7", "Y1"], 0: ["R2", "B1", "G3", "G4", "Y9"]}


def test_multi_play_same_rank_plays_every_other_card_of_the_number():  # N3
    game = play(2, SAME_RANK_HANDS, "G5", ["Y4", "Y5"], multi_play="same_rank")
    game.expect([
        ("flip", "G5"),
        # The other 7s follow in card-id order (red, yellow, blue); the last, B7, sets blue.
        ("turn", 1), ("play", 1, "G7"), ("play", 1, "R7"), ("play", 1, "Y7"), ("play", 1, "B7"),
        ("turn", 0), ("play", 0, "B1"),
        ("turn", 1), ("play", 1, "Y1"),
    ])
    assert game.ending() == [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))]
    rnd = game.result.rounds[0]
    assert (rnd.turns, rnd.cards_played) == (3, 6)


def test_multi_play_none_same_deal_one_card_a_turn():  # N3 off
    game = play(2, SAME_RANK_HANDS, "G5", ["Y4", "Y5"])
    game.expect([
        ("flip", "G5"),
        ("turn", 1), ("play", 1, "G7"),
        ("turn", 0), ("play", 0, "G3"),
        ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
    ], prefix=True)


# actions_first plays the G-skip (seat 1's G3 is legal too); a number card may follow it only
# under two_matching (G3 matches G5, the top card at the start of the turn).
@pytest.mark.parametrize(("rule", "expected"), [
    pytest.param("same_rank", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")],
                 id="same_rank"),
    pytest.param("two_matching", [("play", 1, "G3"), ("skip", 2), ("turn", 0), ("play", 0, "B3")],
                 id="two_matching"),
    pytest.param("none", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")], id="none"),
])
def test_multi_play_after_an_action_card(rule, expected):  # N3, A1
    hands = {1: ["G-skip", "G3", "B9"], 2: ["Y1", "Y2", "Y3"], 0: ["B3", "B4", "B5"]}
    game = play(3, hands, "G5", ["B6", "Y5"], multi_play=rule,
                seats={1: seat("actions_first")})
    game.expect([("flip", "G5"), ("turn", 1), ("play", 1, "G-skip"), *expected], prefix=True)


@pytest.mark.parametrize(("rule", "expected", "ending"), [
    # R1 first (first_legal); then G5 matches R5, the top card as the turn started (G1 matches
    # only the new top R1). Next turn G1, then G9, green as G2 was at that turn's start.
    pytest.param("two_matching", [
        ("turn", 1), ("play", 1, "R1"), ("play", 1, "G5"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G1"), ("play", 1, "G9"),
    ], [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))], id="two_matching"),
    pytest.param("none", [
        ("turn", 1), ("play", 1, "R1"),
        ("turn", 0), ("draw", 0, "B4", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G1"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G5"),
    ], None, id="none"),
])
def test_multi_play_two_matching_one_more_card_matching_the_start_of_the_turn(
        rule, expected, ending):  # N3
    game = play(2, {1: ["R1", "G1", "G5", "G9"], 0: ["G2", "Y4", "Y6", "Y8"]}, "R5",
                ["B4", "Y5"], multi_play=rule)
    game.expect([("flip", "R5"), *expected], prefix=ending is None)
    if ending is not None:
        assert game.ending() == ending


@pytest.mark.parametrize(("hand", "extra"), [
    # Nothing matches R5 but R1 itself (G1 and B9 match neither red nor 5): no second card.
    (["R1", "G1", "B9", "Y8"], []),
    # R3 and G5 both match R5: the policy chooses (first_legal: the lower card id, R3).
    (["R1", "G5", "B9", "R3"], [("play", 1, "R3")]),
], ids=["holds-none", "policy-chooses"])
def test_multi_play_two_matching_none_held_or_several(hand, extra):  # N3
    game = play(2, {1: hand, 0: ["Y2", "Y4", "Y6", "Y7"]}, "R5", ["Y9", "Y5"],
                multi_play="two_matching")
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R1"), *extra, ("turn", 0)],
                prefix=True)
