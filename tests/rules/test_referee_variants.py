"""The referee on the turn variants of docs/engine.md (RULES.md sections 2-5 and N3).

For every rule value: hand-written legal games that the referee accepts with the right numbers,
and broken copies of them (one event changed, removed or added) that it rejects, naming the
problem.
"""

from __future__ import annotations

from traces import (
    broken,
    builder,
    card,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    the_round,
    with_rules,
)

from unostats import codes

# --- S2 first_card: extreme ------------------------------------------------------------------


# --- P3 wild: no_matching_colour, P4 challenge -----------------------------------------------


# --- P5 draw ---------------------------------------------------------------------------------


# --- P7 colour_cycle -------------------------------------------------------------------------


# --- A2 double_action ------------------------------------------------------------------------


# --- A3 stack_draw_two -----------------------------------------------------------------------


# --- A4 stack_draw_four, A5 draw_two_on_draw_four --------------------------------------------


# --- A6 reverse_deflects: back ---------------------------------------------------------------


# --- A6 reverse_deflects: extreme ------------------------------------------------------------


# --- A7 stack_skip, A8 skip_escape -----------------------------------------------------------


# --- J1-J4 jump_in ---------------------------------------------------------------------------


def number_jump_in():
    """Seat 2 jumps in on R3: play continues from it, so seat 1 loses its turn."""
    b = builder(3, 2, {"numbers": 2}, jump_in="numbers")
    b.round_start(2).deal(2, {0: ["R3", "R4"], 1: ["B2", "B4"], 2: ["R3", "Y9"]}).flip("R5")
    b.turn_play(0, "R3").jump_in(2, "R3").turn_play(0, "R4")
    b.round_won(0, 15).scores((0, 15), (6, 0), (9, 0)).game_won(0)
    return b.build()


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
    b = builder(3, 2, {"numbers": 2}, jump_in="numbers")
    b.round_start(2).deal(2, {0: ["R3", "R4"], 1: ["B2", "B4"], 2: ["R5", "Y9"]}).flip("R5")
    b.jump_in(2, "R5")
    broken(b.build(), r"no jump-in on the round's first discard \(J2\)")


def test_player_jumps_in_on_its_own_card():
    """J3: seat 0 plays R3 and jumps in with its second R3, which wins the round."""
    b = builder(2, 2, {"numbers": 2}, jump_in="numbers")
    b.round_start(1).deal(1, {0: ["R3", "R3"], 1: ["B1", "B2"]}).flip("R5")
    b.turn_play(0, "R3").jump_in(0, "R3")
    b.round_won(0, 3).scores((0, 3), (3, 0)).game_won(0)
    assert numbers(the_round(b.build()), "turns", "cards_played", "jump_ins") == (1, 2, 1)


def skip_jumped_on(jump_in: str):
    """Seat 2 jumps in on R-skip: the first Skip's effect is cancelled, seat 2's skips seat 0."""
    b = builder(3, 2, {"skip": 2}, jump_in=jump_in)
    b.round_start(2).deal(2, {0: ["R-skip", "R1"], 1: ["G1", "G2"], 2: ["R-skip", "R2"]})
    b.flip("R5")
    b.turn_play(0, "R-skip").jump_in(2, "R-skip").skip(0)
    b.turn(1).draw(1, "R7").play(1, "R7")
    b.turn_play(2, "R2")
    b.round_won(2, 4).scores((1, 0), (3, 0), (0, 4)).game_won(2)
    return b.build()


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
    b = builder(3, 2, {"wild": 2}, jump_in="all_but_draw_four")
    b.round_start(2).deal(2, {0: ["wild", "R1"], 1: ["G1", "G2"], 2: ["wild", "G8"]})
    b.flip("R5")
    b.turn_play(0, "wild", "red").jump_in(2, "wild", "green")
    b.turn(0).draw(0, "G4").play(0, "G4")
    b.turn_play(1, "G1").turn_play(2, "G8")
    b.round_won(2, 3).scores((1, 0), (2, 0), (0, 3)).game_won(2)
    return b.build()


def test_wild_on_wild():
    trace = wild_on_wild()
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins") == (4, 5, 1)
    broken(deleted(trace, find(trace, codes.EV_COLOUR, seat=2)),
           "expected colour named by seat 2 after wild")
    broken(with_rules(trace, jump_in="extreme"),
           "jump_in: extreme does not allow jumping in on wild")


def test_no_jump_in_on_a_draw_four():
    b = builder(3, 2, {"wild_draw_four": 2}, wild_draw_four="free", jump_in="all_but_draw_four")
    b.round_start(2).deal(2, {0: ["+4", "R1"], 1: ["G1", "G2"], 2: ["+4", "G8"]}).flip("R5")
    b.turn_play(0, "+4", "red").jump_in(2, "+4", "green")
    broken(b.build(), r"jump_in: all_but_draw_four does not allow jumping in on \+4")


def draw_two_jumped_on_extreme():
    """Both Draw Twos apply: seat 1 draws for seat 0's, seat 0 for seat 2's."""
    b = builder(3, 2, {"draw_two": 2}, jump_in="extreme")
    b.round_start(2).deal(2, {0: ["R+2", "R1"], 1: ["G1", "G2"], 2: ["R+2", "R3"]})
    b.flip("R5")
    b.turn_play(0, "R+2").jump_in(2, "R+2")
    b.draw(1, "B1", "B2", reason="draw_two").skip(1)
    b.draw(0, "B3", "B4", reason="draw_two").skip(0)
    b.turn(1).draw(1, "R7").play(1, "R7")
    b.turn_play(2, "R3")
    b.round_won(2, 14).scores((8, 0), (6, 0), (0, 14)).game_won(2)
    return b.build()


def test_jump_in_extreme_on_a_draw_two():
    trace = draw_two_jumped_on_extreme()
    r = the_round(trace)
    assert numbers(r, "turns", "jump_ins", "penalty_cards", "skips") == (3, 1, 4, 2)
    broken(with_rules(trace, jump_in="all_but_draw_four"),
           r"expected draw by seat 0 \(draw_two, card 1 of 2\)")


def test_victim_jumping_in_draws_nothing():
    """J1 extreme: seat 1 jumps in on the R+2 aimed at itself: it draws nothing (and is still
    skipped by it); its own R+2 makes seat 2 draw."""
    b = builder(3, 2, {"draw_two": 2}, jump_in="extreme")
    b.round_start(2).deal(2, {0: ["R+2", "R1"], 1: ["R+2", "G2"], 2: ["Y1", "Y2"]})
    b.flip("R5")
    b.turn_play(0, "R+2").jump_in(1, "R+2").skip(1)
    b.draw(2, "B1", "B2", reason="draw_two").skip(2)
    b.turn_play(0, "R1")
    b.round_won(0, 8).scores((0, 8), (2, 0), (6, 0)).game_won(0)
    trace = b.build()
    assert numbers(the_round(trace), "penalty_cards", "skips", "jump_ins") == (2, 2, 1)
    at = find(trace, codes.EV_SKIP, seat=1)
    broken(inserted(trace, at, codes.EV_DRAW, 1, card("B3"), codes.DRAW_DRAW_TWO),
           "expected skip of seat 1")


# --- N3 multi_play ---------------------------------------------------------------------------


def same_rank():
    b = builder(2, 3, {"numbers": 2}, multi_play="same_rank")
    b.round_start(1).deal(1, {0: ["R5", "B5", "G5"], 1: ["B2", "B7", "Y9"]}).flip("R3")
    b.turn_play(0, "R5").play(0, "G5").play(0, "B5")
    b.round_won(0, 18).scores((0, 18), (18, 0)).game_won(0)
    return b.build()


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
    b = builder(2, 3, multi_play="two_matching")
    b.round_start(1).deal(1, {0: ["R-skip", "B3", "B7"], 1: ["G1", "G2", "G4"]}).flip("R3")
    b.turn_play(0, "R-skip").play(0, "B3").skip(1)
    b.turn_play(0, "B7")
    b.round_won(0, 7).scores((0, 7), (7, 0)).game_won(0)
    return b.build()


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


# --- Rendering -------------------------------------------------------------------------------


