"""The referee on the turn variants of docs/engine.md (RULES.md sections 2-5 and N3).

For every rule value: hand-written legal games that the referee accepts with the right numbers,
and broken copies of them (one event changed, removed or added) that it rejects, naming the
problem.
"""

from __future__ import annotations

import pytest
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


def stacked_draw_twos(stack: str, drawn: list[str], points: int):
    """Seat 1 answers R+2 with G+2; seat 2 cannot answer and draws the chain, without a turn."""
    b = builder(3, 3, stack_draw_two=stack)
    b.round_start(2).deal(2, {0: ["R+2", "G3", "R1"], 1: ["G+2", "G1", "G2"],
                              2: ["Y1", "Y2", "Y3"]}).flip("R5")
    b.turn_play(0, "R+2").turn_play(1, "G+2").draw(2, *drawn, reason="draw_two").skip(2)
    b.turn_play(0, "G3").turn_play(1, "G1").turn_play(2, "Y1").turn_play(0, "R1")
    b.round_won(0, points).scores((0, points), (2, 0), (points - 2, 0)).game_won(0)
    return b.build()


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
    b = builder(3, 3, {"draw_two": 2}, stack_draw_two="sum", double_action=True)
    b.round_start(2).deal(2, {0: ["R+2", "G3", "R1"], 1: ["G+2", "G+2", "G1"],
                              2: ["Y1", "Y2", "Y3"]}).flip("R5")
    b.turn_play(0, "R+2").turn_play(1, "G+2").play(1, "G+2")
    b.draw(2, "B1", "B2", "B3", "B4", "B5", "B6", reason="draw_two").skip(2)
    b.turn_play(0, "G3").turn_play(1, "G1")
    b.round_won(1, 28).scores((1, 0), (0, 28), (27, 0)).game_won(1)
    trace = b.build()
    assert numbers(the_round(trace), "penalty_cards", "turns") == (6, 4)
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=5)), r"card 6 of 6")


# --- A4 stack_draw_four, A5 draw_two_on_draw_four --------------------------------------------


def stacked_draw_fours(stack: str, drawn: list[str], points: int):
    """Seat 1 answers +4 with +4 and names green; seat 2 draws the chain."""
    b = builder(3, 3, {"wild_draw_four": 2}, wild_draw_four="free", stack_draw_four=stack)
    b.round_start(2).deal(2, {0: ["+4", "G5", "R1"], 1: ["+4", "G1", "G2"],
                              2: ["Y1", "Y2", "B9"]}).flip("R5")
    b.turn_play(0, "+4", "red").turn_play(1, "+4", "green")
    b.draw(2, *drawn, reason="draw_four").skip(2)
    b.turn_play(0, "G5").turn_play(1, "G1").turn_play(2, "Y1").turn_play(0, "R1")
    b.round_won(0, points).scores((0, points), (2, 0), (points - 2, 0)).game_won(0)
    return b.build()


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
    b = builder(2, 2, {"wild_draw_four": 2}, stack_draw_four="sum")
    b.round_start(1).deal(1, {0: ["+4", "Y1"], 1: ["+4", "B2"]}).flip("R5")
    b.turn_play(0, "+4", "yellow").challenge(1, 0, guilty=False)
    b.draw(1, "G1", "G2", "G3", "G4", "G6", "G7", reason="challenge").skip(1)
    b.turn_play(0, "Y1")
    b.round_won(0, 75).scores((0, 75), (75, 0)).game_won(0)
    trace = b.build()
    assert numbers(the_round(trace), "challenges", "penalty_cards", "turns") == (1, 6, 2)
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 1")


def draw_two_on_draw_four():
    """Seat 1 escapes the +4 (red named) with R+2: seat 2 owes a Draw Two of 2."""
    b = builder(3, 3, wild_draw_four="free", draw_two_on_draw_four=True)
    b.round_start(2).deal(2, {0: ["+4", "R1", "R2"], 1: ["R+2", "G+2", "R7"],
                              2: ["Y1", "Y2", "B9"]}).flip("R5")
    b.turn_play(0, "+4", "red").turn_play(1, "R+2").draw(2, "B1", "B2", reason="draw_two")
    b.skip(2)
    b.turn_play(0, "R1").turn_play(1, "R7")
    b.turn(2).draw(2, "Y4").pass_(2)
    b.turn_play(0, "R2")
    b.round_won(0, 39).scores((0, 39), (20, 0), (19, 0)).game_won(0)
    return b.build()


def test_draw_two_on_draw_four():
    trace = draw_two_on_draw_four()
    assert numbers(the_round(trace), "turns", "penalty_cards", "skips") == (6, 2, 1)
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("G+2")),
           r"G\+2 does not answer the pending \+4 of 4 \(answers held: R\+2\)")
    broken(changed(trace, find(trace, codes.EV_DRAW), b=codes.DRAW_DRAW_FOUR),
           "expected draw reason draw_two")
    broken(with_rules(trace, draw_two_on_draw_four=False), r"expected draw by seat 1 \(draw_four")


# --- A6 reverse_deflects: back ---------------------------------------------------------------


def deflected_three_players():
    """Seat 1 sends R+2 back with R-reverse: play turns counter-clockwise, seat 0 draws 2."""
    b = builder(3, 3, reverse_deflects="back")
    b.round_start(2).deal(2, {0: ["R+2", "R1", "G4"], 1: ["R-reverse", "R6", "R7"],
                              2: ["R3", "B8", "B9"]}).flip("R5")
    b.turn_play(0, "R+2").turn_play(1, "R-reverse").direction(-1)
    b.draw(0, "Y1", "Y2", reason="draw_two").skip(0)
    b.turn_play(2, "R3").turn_play(1, "R6").turn_play(0, "R1")
    b.turn(2).draw(2, "G9").pass_(2)
    b.turn_play(1, "R7")
    b.round_won(1, 33).scores((7, 0), (0, 33), (26, 0)).game_won(1)
    return b.build()


def deflected_two_players(penalty: str, colour: str | None, drawn: list[str], reason: str):
    b = builder(2, 2, wild_draw_four="free", reverse_deflects="back")
    b.round_start(1).deal(1, {0: [penalty, "R1"], 1: ["R-reverse", "R7"]}).flip("R5")
    b.turn_play(0, penalty, colour).turn_play(1, "R-reverse").direction(-1)
    b.draw(0, *drawn, reason=reason).skip(0)
    b.turn_play(1, "R7")
    points = 1 + sum(int(name[1]) for name in drawn)
    b.round_won(1, points).scores((points, 0), (0, points)).game_won(1)
    return b.build()


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


# --- A6 reverse_deflects: extreme ------------------------------------------------------------


def escalation():
    """R+2 (seat 1 draws 2), R-reverse (seat 1 draws 4), R+2 (seat 2 draws 6), then a draw."""
    b = builder(3, 3, {"draw_two": 2}, reverse_deflects="extreme")
    b.round_start(2).deal(2, {0: ["R+2", "R+2", "R1"], 1: ["G1", "G2", "G3"],
                              2: ["R-reverse", "Y1", "Y2"]}).flip("R5")
    b.turn_play(0, "R+2").draw(1, "B1", "B2", reason="draw_two").skip(1)
    b.turn_play(2, "R-reverse").direction(-1)
    b.draw(1, "B3", "B4", "B5", "B6", reason="draw_two").skip(1)
    b.turn_play(0, "R+2").draw(2, "B7", "B8", "B9", "Y3", "Y4", "Y5", reason="draw_two").skip(2)
    b.turn(1).draw(1, "Y6").pass_(1)
    b.turn_play(0, "R1")
    b.round_won(0, 72).scores((0, 72), (33, 0), (39, 0)).game_won(0)
    return b.build()


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
    b = builder(2, 3 if closed else 2, {"draw_two": 2}, reverse_deflects="extreme")
    hand = ["R+2", "R9", "R+2"] if closed else ["R+2", "R+2"]
    b.round_start(1).deal(1, {0: hand, 1: ["G5", "G6", "G7"][:len(hand)]}).flip("R5")
    b.turn_play(0, "R+2").draw(1, "B1", "B2", reason="draw_two").skip(1)
    if closed:
        b.turn_play(0, "R9").turn(1).draw(1, "Y3").pass_(1)
        b.turn_play(0, "R+2").draw(1, "Y1", "Y2", reason="draw_two")
        b.round_won(0, 27).scores((0, 27), (27, 0)).game_won(0)
    else:
        b.turn_play(0, "R+2").draw(1, "B3", "B4", "B5", "B6", reason="draw_two")
        b.round_won(0, 32).scores((0, 32), (32, 0)).game_won(0)
    return b.build()


@pytest.mark.parametrize("closed, penalty", [(True, 4), (False, 6)])
def test_escalation_of_a_last_card(closed, penalty):
    trace = escalation_last_card(closed)
    assert the_round(trace).penalty_cards == penalty
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_DRAW, 1, card("B9"), codes.DRAW_DRAW_TWO),
           "expected round_end")


def test_escalation_cannot_be_combined_with_stacked_draw_twos():
    trace = with_rules(escalation(), stack_draw_two="sum")
    broken(trace, "trace.rules combine reverse_deflects = 'extreme' with stack_draw_two = 'sum', "
                  "which docs/engine.md forbids")


def double_escalation(drawn_first: int):
    """A2 + A6 extreme: two R+2 in one turn open the sequence at 4; a Reverse makes it 6."""
    b = builder(3, 3, {"draw_two": 2}, reverse_deflects="extreme", double_action=True)
    b.round_start(2).deal(2, {0: ["R+2", "R+2", "R1"], 1: ["G1", "G2", "G3"],
                              2: ["R-reverse", "Y1", "Y2"]}).flip("R5")
    first = ["B1", "B2", "B3", "B4", "B5", "B6"][:drawn_first]
    b.turn_play(0, "R+2").play(0, "R+2").draw(1, *first, reason="draw_two").skip(1)
    b.turn_play(2, "R-reverse").direction(-1)
    b.draw(1, "B7", "B8", "B9", "Y3", "Y4", "Y5", reason="draw_two").skip(1)
    b.turn_play(0, "R1")
    points = 6 + sum(range(1, drawn_first + 1)) + 24 + 12
    b.round_won(0, points + 3).scores((0, points + 3), (points, 0), (3, 0)).game_won(0)
    return b.build()


def test_escalation_counts_a_double_draw_two_twice():
    r = the_round(double_escalation(4))
    assert numbers(r, "cards_played", "penalty_cards", "skips") == (4, 10, 2)
    broken(double_escalation(2), r"expected draw by seat 1 \(draw_two, card 3 of 4")


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


