"""Scripted rule tests for the turn variants of docs/engine.md ("Turn variants").

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the exact
events docs/engine.md prescribes; the referee checks every trace as well. Where an option is a
switch the same deal is also played with it off.

The expected events were checked against the referee by building each game by hand as a trace.
"""

from __future__ import annotations

import pytest
from cases import draws, play, racer, scores, seat

# ---------------------------------------------------------------- S2 first_card: extreme


# ---------------------------------------------------------------- P3 wild: no_matching_colour


# ---------------------------------------------------------------- P4 challenge: house, extreme


# ---------------------------------------------------------------- P5 draw


# ---------------------------------------------------------------- P7 colour_cycle


# ---------------------------------------------------------------- A2 double_action


# ---------------------------------------------------------------- A3 stack_draw_two


# ---------------------------------------------------------------- A4 stack_draw_four


# ---------------------------------------------------------------- A5 draw_two_on_draw_four


# ---------------------------------------------------------------- A6 reverse_deflects: back


# ---------------------------------------------------------------- A6 reverse_deflects: extreme


# ---------------------------------------------------------------- A7 stack_skip


# ---------------------------------------------------------------- A8 skip_escape


# ---------------------------------------------------------------- J1-J4 jump_in

# Seat 1 plays a card; seat 0 holds the identical card and always jumps in when it may; seat 2,
# due to act next, holds none and races with reaction 0, so seat 0 wins every race it runs.
JUMP_SEATS = {0: racer(jump_in=1.0), 1: racer(), 2: racer(reaction=0.0)}
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


@pytest.mark.parametrize("mode", [
    pytest.param(mode) for mode in
    ("none", "numbers", "all_but_draw_four", "extreme")])
@pytest.mark.parametrize("card", ["R7", "R-skip", "wild", "+4"])
def test_jump_in_what_may_be_jumped_on(mode, card):  # J1, J4, P2
    # A +4 is never jumped on; seat 1 holds no red, so it may play it (P2).
    game = play(3, {1: [card, "G1", "G2"], 2: ["Y1", "Y2", "Y3"], 0: [card, "B1", "B2"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], seats=JUMP_SEATS, jump_in=mode)
    colour = [("colour", 1, "green")] if card in ("wild", "+4") else []
    after = JUMPED_ON.get((card, mode), NOT_JUMPED_ON[card])
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, card), *colour, *after], prefix=True)


@pytest.mark.parametrize("mode", [
    pytest.param(mode) for mode in
    ("numbers", "all_but_draw_four", "extreme")])
def test_jump_in_never_on_the_rounds_first_discard(mode):  # J2
    # Seat 0 holds the other R7 and would jump in, and seats 1 and 2 would lose any race to it.
    game = play(3, {1: ["G1", "G2"], 2: ["Y1", "Y2"], 0: ["R7", "B2"]}, "R7",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in=mode,
                seats={0: racer(jump_in=1.0), 1: racer(reaction=0.0), 2: racer(reaction=0.0)})
    game.expect([
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
    ])
    assert game.ending() == [("round_end", 0, "win", 8), *scores((0, 8), (3, 0), (5, 0))]
    assert game.result.rounds[0].jump_ins == 0


@pytest.mark.parametrize(("own", "due", "expected", "ending"), [
    # Seat 1 jumps in on its own R7 with its second R7; play goes on from seat 1.
    (1.0, 0.0, [
        ("jump_in", 1, "R7"),
        ("turn", 2), ("play", 2, "Y7"),
        ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
        ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
        ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
        ("turn", 2), ("play", 2, "Y2"),
    ], [("round_end", 2, "win", 11), *scores((10, 0), (1, 0), (0, 11))]),
    # Seat 2, due to act, wins the race without holding an R7: nobody jumps in, and seat 1
    # keeps its second R7 to the end.
    (0.0, 1.0, [
        ("turn", 2), ("play", 2, "Y7"),
        ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
        ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
        ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
        ("turn", 2), ("play", 2, "Y2"),
    ], [("round_end", 2, "win", 18), *scores((10, 0), (8, 0), (0, 18))]),
], ids=["jumps-on-its-own-card", "next-seat-blocks"])
def test_jump_in_on_ones_own_card_and_the_next_seat_blocking_it(own, due, expected,
                                                                ending):  # J3, J4
    game = play(3, {1: ["R7", "R7", "G1"], 2: ["Y1", "Y2", "Y7"], 0: ["G3", "B2", "G5"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in="numbers",
                seats={0: racer(), 1: racer(jump_in=1.0, reaction=own),
                       2: racer(reaction=due)})
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R7"), *expected])
    assert game.ending() == ending


# Seats 2 and 0 both hold a Wild like the one seat 1 plays (all_but_draw_four).
@pytest.mark.parametrize(("seat2", "seat0", "expected"), [
    # Both willing: the faster wins. Seat 2, due to act, may jump in itself; the race after its
    # jump-in (seat 0 alone, weight 0) has no winner.
    ((1.0, 1.0), (1.0, 0.0), [("jump_in", 2, "wild"), ("colour", 2, "yellow"), ("turn", 0)]),
    ((1.0, 0.0), (1.0, 1.0), [("jump_in", 0, "wild"), ("colour", 0, "blue"), ("turn", 1)]),
    # Seat 2 is not willing but, due to act, takes part in the race and wins it: nobody jumps
    # in.
    ((0.0, 1.0), (1.0, 0.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")]),
    # Nobody willing: no race at all, however fast seat 0 is.
    ((0.0, 0.0), (0.0, 1.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")]),
], ids=["due-seat-faster", "other-seat-faster", "unwilling-due-seat-wins", "nobody-willing"])
def test_jump_in_race_by_willingness_and_reaction(seat2, seat0, expected):  # J4, J1
    game = play(3, {1: ["wild", "G1", "G2"], 2: ["wild", "Y1", "Y2"], 0: ["wild", "B1", "B2"]},
                "R5", ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in="all_but_draw_four",
                seats={0: racer(jump_in=seat0[0], reaction=seat0[1]),
                       1: racer(reaction=0.0),
                       2: racer(jump_in=seat2[0], reaction=seat2[1])})
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"),
                 *expected], prefix=True)


@pytest.mark.parametrize(("mode", "expected"), [
    # The jumped-on Draw Two is cancelled: only seat 0's has its effect, on seat 1.
    pytest.param("all_but_draw_four", [
        ("jump_in", 0, "R+2"), *draws(1, ["Y4", "Y5"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y6", "normal"), ("pass", 2),
    ], id="all_but_draw_four"),
    # Seat 1's Draw Two is drawn by seat 2, then seat 0's by seat 1; seat 2 acts next.
    pytest.param("extreme", [
        ("jump_in", 0, "R+2"), *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
        *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
    ], id="extreme"),
    pytest.param("none", [
        *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R+2"), *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
    ], id="none"),
])
def test_jump_in_effects_of_the_jumped_on_card(mode, expected):  # J1
    game = play(3, {1: ["R+2", "B1"], 2: ["Y1", "Y2"], 0: ["R+2", "B2"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], seats=JUMP_SEATS, jump_in=mode)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *expected], prefix=True)


def test_jump_in_the_jumper_calls_uno_and_wins():  # J1, U1
    game = play(3, {1: ["R7", "B4"], 2: ["G7", "Y5"], 0: ["R7", "G7"]}, "R5",
                ["Y4", "Y6", "Y7", "Y8", "Y9"], jump_in="numbers", uno_penalty=2,
                seats=JUMP_SEATS)
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R7"), ("uno_call", 1),
        ("jump_in", 0, "R7"), ("uno_call", 0),
        ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
        ("turn", 2), ("play", 2, "G7"), ("uno_call", 2),
        # Seat 0, due to act, jumps in with its last card and wins, out of turn.
        ("jump_in", 0, "G7"),
    ])
    assert game.ending() == [("round_end", 0, "win", 13), *scores((0, 13), (8, 0), (5, 0))]
    rnd = game.result.rounds[0]
    assert (rnd.jump_ins, rnd.turns, rnd.cards_played) == (2, 3, 4)


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


# ---------------------------------------------------------------- B2 policy strategist

