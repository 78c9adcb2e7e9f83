"""The referee on the rules of issue 5 (docs/engine.md "Number-card rules, deck extras, scoring
and round modes"): N1, N2, N4-N6, U1, U2, D3-D6, R3-R10.

For every rule: hand-written legal games that the referee accepts with the numbers it computes
asserted, and broken copies of them (one event changed, removed or added, or the rule switched
off) that it rejects, naming the problem.
"""

from __future__ import annotations

import re

import pytest
from traces import (
    ONE_OF_EACH,
    TraceBuilder,
    broken,
    builder,
    card,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    one_turn,
    the_round,
    with_policies,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import check_trace, format_trace

# --- N1 seven_zero ---------------------------------------------------------------------------


def seven_swaps():
    """Seat 2's R7 swaps hands with seat 0, which holds fewer cards than seat 1."""
    b = builder(3, 2, seven_zero=True)
    b.round_start(2).deal(2, {0: ["R2", "R6"], 1: ["Y1", "B4"], 2: ["R7", "G9"]}).flip("R5")
    b.turn_play(0, "R2")
    b.turn(1).draw(1, "Y3").pass_(1)
    b.turn_play(2, "R7").swap_hands(2, 0)
    b.turn(0).draw(0, "B2").pass_(0)
    b.turn(1).draw(1, "Y8").pass_(1)
    b.turn_play(2, "R6")
    b.round_won(2, 27).scores((11, 0), (16, 0), (0, 27)).game_won(2)
    return b.build()


def test_seven_swaps_hands_with_the_fewest_cards_seat():
    trace = seven_swaps()
    r = the_round(trace)
    assert numbers(r, "turns", "hand_swaps", "winner_seat") == (6, 1, 2)
    assert r.cards_left == (2, 4, 0)
    at = find(trace, codes.EV_SWAP_HANDS)
    broken(changed(trace, at, a=1), re.escape(
        "expected swap_hands of seat 2 with seat 0, the fewest-cards seat (seat 0 1, seat 1 3 "
        "cards; R7 played by seat 2 (seven_zero))"))
    broken(deleted(trace, at), "expected swap_hands of seat 2 with seat 0")
    broken(with_rules(trace, seven_zero=False), "expected turn of seat 0")


def zero_passes():
    """Seat 0's R0 passes every hand on clockwise: seat 1 gets R1 and goes out with it."""
    b = builder(3, 2, seven_zero=True)
    b.round_start(2).deal(2, {0: ["R0", "R1"], 1: ["Y2", "Y3"], 2: ["B4", "B6"]}).flip("R5")
    b.turn_play(0, "R0").pass_hands(0, 1)
    b.turn_play(1, "R1")
    b.round_won(1, 15).scores((10, 0), (0, 15), (5, 0)).game_won(1)
    return b.build()


def test_zero_passes_every_hand_on():
    trace = zero_passes()
    r = the_round(trace)
    assert numbers(r, "turns", "hand_swaps", "winner_seat") == (2, 1, 1)
    assert r.hand_points == (10, 0, 5)
    broken(changed(trace, find(trace, codes.EV_PASS_HANDS), a=-1),
           re.escape("expected pass_hands in direction +1 (R0 played by seat 0, seven_zero)"))
    broken(with_rules(trace, seven_zero=False), "expected turn of seat 1")


def test_zero_or_seven_as_the_last_card_has_no_effect():
    b = builder(2, 1, seven_zero=True)
    b.round_start(1).deal(1, {0: ["R7"], 1: ["Y2"]}).flip("R5")
    b.turn_play(0, "R7")
    b.round_won(0, 2).scores((0, 2), (2, 0)).game_won(0)
    trace = b.build()
    assert the_round(trace).hand_swaps == 0
    broken(inserted(trace, find(trace, codes.EV_ROUND_END), codes.EV_SWAP_HANDS, 0, 1),
           "expected round_end")


def double_zero(jump_in: str, held: tuple):
    """Seat 2 jumps in on seat 0's R0. Under extreme both 0s pass the hands (twice round);
    otherwise only the jumper's does. The capped round's score events show the hands."""
    b = one_turn(3, 2, {"zero": 2}, seven_zero=True, jump_in=jump_in)
    b.round_start(2).deal(2, {0: ["R0", "G1"], 1: ["Y2", "Y3"], 2: ["R0", "B4"]}).flip("R5")
    b.turn_play(0, "R0").jump_in(2, "R0").pass_hands(0 if jump_in == "extreme" else 2, 1)
    if jump_in == "extreme":
        b.pass_hands(2, 1)
    b.round_capped().scores(*((points, 0) for _, points in held)).game_capped()
    return b.build()


@pytest.mark.parametrize("jump_in, held", [
    ("extreme", ((2, 5), (1, 4), (1, 1))),  # twice on: seat 0 holds what seat 1 held
    ("numbers", ((1, 4), (1, 1), (2, 5))),  # once: seat 0 holds what seat 2 held
])
def test_jump_in_on_a_zero(jump_in, held):
    r = the_round(double_zero(jump_in, held))
    assert tuple(zip(r.cards_left, r.hand_points)) == held
    assert numbers(r, "hand_swaps", "jump_ins") == ((2 if jump_in == "extreme" else 1), 1)


# --- N2 five_swap ----------------------------------------------------------------------------


def five_swap():
    """Seat 0's R5: it gives G9 (its only number card), seat 1 gives B8 (its highest number)."""
    b = builder(2, 3, five_swap=True)
    b.round_start(1).deal(1, {0: ["R5", "+4", "G9"], 1: ["Y1", "Y2", "B8"]}).flip("R3")
    b.turn_play(0, "R5").give(0, "G9", 1).give(1, "B8", 0)
    b.turn(1).draw(1, "R6").play(1, "R6")
    b.turn_play(0, "+4", "blue").draw(1, "B1", "B2", "B3", "B4", reason="draw_four").skip(1)
    b.turn_play(0, "B8")
    b.round_won(0, 22).scores((0, 22), (22, 0)).game_won(0)
    return with_policies(b.build(), "first_legal", "first_legal")


def test_five_swap():
    trace = five_swap()
    r = the_round(trace)
    assert numbers(r, "card_swaps", "turns", "cards_played") == (1, 4, 4)
    assert r.hand_points == (0, 22)


def test_five_swap_least_useful_card():
    trace = five_swap()
    give = find(trace, codes.EV_GIVE, seat=0)
    broken(changed(trace, give, a=card("+4")),
           re.escape("seat 0 (first_legal) must give its least useful card, G9 (N2)"))
    broken(changed(trace, give + 1, a=card("Y1")),
           re.escape("seat 1 (first_legal) must give its least useful card, B8 (N2)"))
    # high_value_first gives the card worth the most points: seat 0's +4.
    broken(with_policies(trace, "high_value_first", "first_legal"),
           r"seat 0 \(high_value_first\) must give its least useful card, \+4")
    # A random seat may give any card it holds: the trace then fails only later, when seat 1,
    # holding the +4 it was given, draws instead of playing.
    err = broken(changed(with_policies(trace, "random", "random"), give, a=card("+4")),
                 r"expected a play by seat 1: it holds legal cards \(\+4\)")
    assert err.index == find(trace, codes.EV_DRAW, a=card("R6"))
    broken(changed(trace, give, b=0), r"expected give by seat 0 of its least useful card to "
                                      r"seat 1 \(R5 played by seat 0 \(five_swap\)\)")
    broken(with_rules(trace, five_swap=False), "expected turn of seat 1")


# --- N4 zero_slap, uno_slap -------------------------------------------------------------------


def zero_slap():
    b = builder(2, 2, zero_slap=4)
    b.round_start(1).deal(1, {0: ["R0", "R1"], 1: ["Y2", "Y3"]}).flip("R5")
    b.turn_play(0, "R0").slap(1, 0, "zero").draw(1, "B1", "B2", "B3", "B4", reason="slap")
    b.turn(1).draw(1, "G6").pass_(1)
    b.turn_play(0, "R1")
    b.round_won(0, 21).scores((0, 21), (21, 0)).game_won(0)
    return b.build()


def test_zero_slap():
    trace = zero_slap()
    r = the_round(trace)
    assert numbers(r, "slaps", "penalty_cards", "normal_draws") == (1, 4, 1)
    at = find(trace, codes.EV_SLAP)
    broken(changed(trace, at, seat=0),
           re.escape("expected slap (0 played by seat 0): the slowest of seats 1 draws 4"))
    broken(changed(trace, at, b=codes.SLAP_UNO), re.escape("expected a = 0 (who started it) and "
                                                         "b = 0 (0 played)"))
    broken(deleted(trace, at), "expected slap")
    broken(deleted(trace, find(trace, codes.EV_DRAW, nth=3)), r"card 4 of 4; slowest in the slap")
    broken(with_rules(trace, zero_slap=0), "expected turn of seat 1")
    broken(with_rules(trace, zero_slap=2), r"expected turn of seat 1")


@pytest.mark.parametrize("slowest", [1, 2])
def test_any_other_seat_may_be_the_slowest(slowest):
    b = one_turn(3, 2, zero_slap=2)
    b.round_start(2).deal(2, {0: ["R0", "R1"], 1: ["Y2", "Y3"], 2: ["G4", "G6"]}).flip("R5")
    b.turn_play(0, "R0").slap(slowest, 0).draw(slowest, "B1", "B2", reason="slap")
    b.round_capped().scores((1, 0), (5 + 3 * (slowest == 1), 0),
                            (10 + 3 * (slowest == 2), 0)).game_capped()
    r = the_round(b.build())
    assert r.cards_left[slowest] == 4


def uno_slap(call: bool):
    b = builder(2, 2, uno_penalty=2, uno_slap=2)
    b.round_start(1).deal(1, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn_play(0, "R1")
    if call:
        b.uno_call(0).slap(1, 0, "uno").draw(1, "G3", "G4", reason="slap")
    else:
        b.uno_miss(0)
    b.turn(1).draw(1, "G6").pass_(1)
    b.turn_play(0, "R2")
    points = 13 + (7 if call else 0)
    b.round_won(0, points).scores((0, points), (points, 0)).game_won(0)
    return b.build()


def test_uno_slap():
    trace = uno_slap(call=True)
    assert numbers(the_round(trace), "slaps", "penalty_cards") == (1, 2)
    broken(deleted(trace, find(trace, codes.EV_SLAP)), r"expected slap \(UNO called by seat 0\)")
    broken(with_rules(trace, uno_slap=0), "expected turn of seat 1")
    # A forgotten call starts no slap.
    trace = uno_slap(call=False)
    assert the_round(trace).slaps == 0
    broken(inserted(trace, find(trace, codes.EV_UNO_MISS) + 1, codes.EV_SLAP, 1, 0,
                    codes.SLAP_UNO), "expected turn of seat 1")


# --- N5 silence ------------------------------------------------------------------------------


def seven_silence():
    """Seat 0's R7 imposes silence; seat 2 breaks it in seat 1's turn and draws 4."""
    b = builder(3, 2, silence="seven")
    b.round_start(2).deal(2, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]}).flip("R5")
    b.turn_play(0, "R7")
    b.turn(1).silence_break(2, 4).draw(2, "B1", "B2", "B3", "B4", reason="silence")
    b.play(1, "R3")
    b.turn_play(2, "R4").turn_play(0, "R1")
    b.round_won(0, 13).scores((0, 13), (1, 0), (12, 0)).game_won(0)
    return b.build()


def test_seven_silence():
    trace = seven_silence()
    r = the_round(trace)
    assert numbers(r, "silence_breaks", "penalty_cards", "turns") == (1, 4, 4)
    at = find(trace, codes.EV_SILENCE_BREAK)
    broken(changed(trace, at, a=2), r"breaking a silence \(seven\) costs 4 cards, a = 2")
    broken(changed(trace, find(trace, codes.EV_DRAW), b=codes.DRAW_NORMAL),
           "expected draw reason silence")
    broken(with_rules(trace, silence="none"), r"silence: none has no silence to break \(N5\)")
    # Broken once, it is over: seat 2 cannot break it again in its own turn.
    again = inserted(trace, find(trace, codes.EV_TURN, seat=2) + 1, codes.EV_SILENCE_BREAK, 1, 4)
    broken(again, r"no silence holds at seat 2's turn, so none can be broken \(N5\)")


def test_silence_ends_at_the_owners_next_turn():
    b = builder(3, 2, silence="seven")
    b.round_start(2).deal(2, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]}).flip("R5")
    b.turn_play(0, "R7").turn_play(1, "R3").turn_play(2, "R4").turn_play(0, "R1")
    b.round_won(0, 3).scores((0, 3), (1, 0), (2, 0)).game_won(0)
    trace = b.build()
    assert the_round(trace).silence_breaks == 0
    # Too late in seat 0's (the owner's) next turn: its silence has ended.
    late = inserted(trace, find(trace, codes.EV_TURN, seat=0, nth=1) + 1,
                    codes.EV_SILENCE_BREAK, 1, 4)
    broken(late, "no silence holds at seat 0's turn")
    # Still in time in seat 2's turn, even by the owner itself.
    b = one_turn(3, 2, silence="seven", max_turns=3)
    b.round_start(2).deal(2, {0: ["R7", "R1"], 1: ["R3", "Y1"], 2: ["R4", "G2"]}).flip("R5")
    b.turn_play(0, "R7").turn_play(1, "R3")
    b.turn(2).silence_break(0, 4).draw(0, "B1", "B2", "B3", "B4", reason="silence")
    b.play(2, "R4")
    b.round_capped().scores((11, 0), (1, 0), (2, 0)).game_capped()
    assert the_round(b.build()).silence_breaks == 1


def test_a_later_seven_makes_its_player_the_owner():
    """Seat 1's Y7 renews the silence: it still holds in seat 0's turn, and ends in seat 1's."""
    b = builder(3, 2, silence="seven")
    b.round_start(2).deal(2, {0: ["R7", "Y3"], 1: ["Y7", "Y1"], 2: ["Y4", "G2"]}).flip("R5")
    b.turn_play(0, "R7").turn_play(1, "Y7").turn_play(2, "Y4")
    b.turn(0).silence_break(2, 4).draw(2, "B1", "B2", "B3", "B4", reason="silence")
    b.play(0, "Y3")
    b.round_won(0, 13).scores((0, 13), (1, 0), (12, 0)).game_won(0)
    trace = b.build()
    assert the_round(trace).silence_breaks == 1


def two_silence():
    """Seat 0's R2: silent until seat 0's turn comes back; seat 1 breaks it and draws 2."""
    b = builder(2, 2, silence="two")
    b.round_start(1).deal(1, {0: ["R2", "R1"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn_play(0, "R2")
    b.turn(1).silence_break(1, 2).draw(1, "B5", "B6", reason="silence")
    b.draw(1, "G7").pass_(1)
    b.turn_play(0, "R1")
    b.round_won(0, 25).scores((0, 25), (25, 0)).game_won(0)
    return b.build()


def test_two_silence():
    trace = two_silence()
    assert numbers(the_round(trace), "silence_breaks", "penalty_cards", "normal_draws") == (
        1, 2, 1)
    broken(changed(trace, find(trace, codes.EV_SILENCE_BREAK), a=4),
           r"breaking a silence \(two\) costs 2 cards, a = 4")
    for other in ("seven", "black"):  # neither starts with a 2
        broken(with_rules(trace, silence=other), "no silence holds at seat 1's turn")


def black_silence(third: str):
    """Seat 0's Wild (red) imposes silence until the colour changes: seat 1's R3 keeps red."""
    b = builder(3, 2, silence="black")
    b.round_start(2).deal(2, {0: ["wild", "R1"], 1: ["R3", "Y1"], 2: [third, "G2"]}).flip("Y5")
    b.turn_play(0, "wild", "red").turn_play(1, "R3")
    return b


def test_black_silence_holds_while_the_colour_does():
    b = black_silence("R4")
    b.turn(2).silence_break(1, 2).draw(1, "B1", "B2", reason="silence").play(2, "R4")
    b.turn_play(0, "R1")
    b.round_won(0, 6).scores((0, 6), (4, 0), (2, 0)).game_won(0)
    trace = b.build()
    assert the_round(trace).silence_breaks == 1
    broken(changed(trace, find(trace, codes.EV_SILENCE_BREAK), a=4),
           r"breaking a silence \(black\) costs 2 cards")


def test_black_silence_ends_when_the_colour_changes():
    b = black_silence("Y3")  # seat 2's Y3 (on R3) turns the colour yellow
    b.turn_play(2, "Y3").turn(0).silence_break(1, 2)
    trace = b.build()
    err = broken(trace, "no silence holds at seat 0's turn")
    assert err.index == find(trace, codes.EV_SILENCE_BREAK)


def test_the_first_discard_starts_no_silence():
    b = builder(2, 1, silence="seven")
    b.round_start(1).deal(1, {0: ["R1"], 1: ["Y2"]}).flip("R7")
    b.turn(0).silence_break(1, 4)
    broken(b.build(), "no silence holds at seat 0's turn")


# --- N6 eight_cover --------------------------------------------------------------------------


def eight_covered():
    b = builder(2, 3, eight_cover=True)
    b.round_start(1).deal(1, {0: ["R8", "R1", "Y1"], 1: ["Y3", "Y4", "B5"]}).flip("R5")
    b.turn_play(0, "R8").play(0, "R1")
    b.turn(1).draw(1, "G6").pass_(1)
    b.turn_play(0, "Y1")
    b.round_won(0, 18).scores((0, 18), (18, 0)).game_won(0)
    return b.build()


def test_eight_cover():
    trace = eight_covered()
    assert numbers(the_round(trace), "turns", "cards_played") == (3, 3)
    cover = find(trace, codes.EV_PLAY, a=card("R1"))
    broken(deleted(trace, cover), re.escape("expected cover of R8 by seat 0 (eight_cover)"))
    broken(changed(trace, cover, a=card("Y1")), "illegal play: Y1 matches neither")
    broken(with_rules(trace, eight_cover=False), "seat 0 has no further card to play")


def last_eight_covered_by_drawing():
    """R8 was seat 0's last card: it draws until it can cover it (Y2, then R4)."""
    b = builder(2, 2, eight_cover=True)
    b.round_start(1).deal(1, {0: ["R1", "R8"], 1: ["Y5", "Y6"]}).flip("R3")
    b.turn_play(0, "R1")
    b.turn(1).draw(1, "B7").pass_(1)
    b.turn_play(0, "R8").draw(0, "Y2", "R4", reason="cover").play(0, "R4")
    b.turn(1).draw(1, "Y4").play(1, "Y4")
    b.turn_play(0, "Y2")
    b.round_won(0, 18).scores((0, 18), (18, 0)).game_won(0)
    return b.build()


def test_an_eight_as_the_last_card_is_covered_all_the_same():
    trace = last_eight_covered_by_drawing()
    r = the_round(trace)
    assert numbers(r, "normal_draws", "penalty_cards", "winner_seat", "turns") == (4, 0, 0, 5)
    at = find(trace, codes.EV_DRAW, a=card("R4"))
    broken(changed(trace, at, b=codes.DRAW_NORMAL), "expected draw reason cover")
    # It may not go out on the 8.
    b = builder(2, 2, eight_cover=True)
    b.round_start(1).deal(1, {0: ["R1", "R8"], 1: ["Y5", "Y6"]}).flip("R3")
    b.turn_play(0, "R1").turn(1).draw(1, "B7").pass_(1).turn_play(0, "R8")
    b.round_won(0, 18).scores((0, 18), (18, 0)).game_won(0)
    broken(b.build(), r"expected draw by seat 0 \(cover, card 1, until it can cover R8\)")


def eight_jumped_on(jump_in: str):
    """Seat 2 jumps in on seat 0's R8: the duty is seat 2's, which covers with R4 and wins."""
    b = builder(3, 2, {"numbers": 2}, eight_cover=True, jump_in=jump_in)
    b.round_start(2).deal(2, {0: ["R8", "R1"], 1: ["Y2", "Y3"], 2: ["R8", "R4"]}).flip("R5")
    b.turn_play(0, "R8").jump_in(2, "R8").play(2, "R4")
    b.round_won(2, 6).scores((1, 0), (5, 0), (0, 6)).game_won(2)
    return b.build()


@pytest.mark.parametrize("jump_in", ["numbers", "all_but_draw_four", "extreme"])
def test_a_jump_in_moves_the_duty(jump_in):
    trace = eight_jumped_on(jump_in)
    assert numbers(the_round(trace), "turns", "cards_played", "jump_ins") == (1, 3, 1)
    cover = find(trace, codes.EV_PLAY, a=card("R4"))
    broken(changed(trace, cover, seat=0), "expected cover of R8 by seat 2")


def test_a_jump_in_on_the_last_eight_lets_its_player_out():
    """Seat 0 played its last card, an R8; once seat 2 takes the duty, seat 0 has gone out."""
    b = builder(3, 1, {"numbers": 2}, eight_cover=True, jump_in="numbers")
    b.round_start(2).deal(2, {0: ["R8"], 1: ["Y2"], 2: ["R8"]}).flip("R5")
    b.turn_play(0, "R8").jump_in(2, "R8")
    b.round_won(0, 2).scores((0, 2), (2, 0), (0, 0)).game_won(0)
    trace = b.build()
    assert numbers(the_round(trace), "winner_seat", "jump_ins") == (0, 1)
    # With UNO on, seat 0's call (it holds one card) comes right after the jump-in.
    b = builder(3, 2, {"numbers": 2}, eight_cover=True, jump_in="numbers", uno_penalty=2)
    b.round_start(2).deal(2, {0: ["R8", "G1"], 1: ["Y2", "Y3"], 2: ["R8", "R4"]}).flip("R5")
    b.turn_play(0, "R8").jump_in(2, "R8").uno_call(0).play(2, "R4")
    b.round_won(2, 6).scores((1, 0), (5, 0), (0, 6)).game_won(2)
    trace = b.build()
    check_trace(trace)
    broken(deleted(trace, find(trace, codes.EV_UNO_CALL)), "expected uno_call or uno_miss by "
                                                          "seat 0")


def test_eight_cover_and_multi_play_are_forbidden():
    broken(with_rules(eight_covered(), multi_play="same_rank"),
           "trace.rules combine eight_cover = True with multi_play = 'same_rank'")


# --- U1 uno_penalty, U2 mistake_penalty -------------------------------------------------------


def mistake():
    """Seat 0 errs in its first turn: it draws R6 and plays on."""
    b = builder(2, 2, mistake_penalty=1)
    b.round_start(1).deal(1, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn(0).mistake(0, 1).draw(0, "R6", reason="mistake").play(0, "R1")
    b.turn(1).draw(1, "G7").pass_(1)
    b.turn_play(0, "R2")
    b.turn(1).draw(1, "G8").pass_(1)
    b.turn_play(0, "R6")
    b.round_won(0, 22).scores((0, 22), (22, 0)).game_won(0)
    return b.build()


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
    b = builder(2, 2, mistake_penalty=2)
    b.round_start(1).deal(1, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn(0).mistake(0, 2).draw(0, "B1", "B2", reason="mistake").play(0, "R1")
    b.turn(1).mistake(1, 2).draw(1, "G1", "G2", reason="mistake").play(1, "G1")
    b.turn_play(0, "B1")
    b.turn(1).draw(1, "B3").play(1, "B3")
    b.turn_play(0, "B2")
    b.turn_play(1, "G2")
    b.turn_play(0, "R2")
    b.round_won(0, 7).scores((0, 7), (7, 0)).game_won(0)
    assert numbers(the_round(b.build()), "mistakes", "penalty_cards") == (2, 4)


def test_no_mistake_without_a_turn():
    """A seat drawing a penalty without a turn (here after a Draw Two) makes no mistake."""
    b = builder(2, 2, mistake_penalty=1)
    b.round_start(1).deal(1, {0: ["R+2", "R1"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn_play(0, "R+2").mistake(1, 1)
    broken(b.build(), r"expected draw by seat 1 \(draw_two, card 1 of 2\)")


@pytest.mark.parametrize("penalty", [0, 2, 4])
def test_uno_penalty(penalty):
    """0 turns the UNO rule off (nothing is written); otherwise a caught miss costs it."""
    b = one_turn(2, 2, uno_penalty=penalty)
    b.round_start(1).deal(1, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn_play(0, "R1")
    drawn = ["B1", "B2", "B3", "B4"][:penalty]
    if penalty:
        b.uno_miss(0, caught_by=1).draw(0, *drawn, reason="uno")
    b.round_capped().scores((2 + sum(range(1, penalty + 1)), 0), (7, 0)).game_capped()
    trace = b.build()
    r = the_round(trace)
    assert numbers(r, "uno_penalties", "penalty_cards") == (int(penalty > 0), penalty)
    if penalty:
        broken(deleted(trace, find(trace, codes.EV_UNO_MISS)),
               "expected uno_call or uno_miss by seat 0")
    else:
        broken(inserted(trace, find(trace, codes.EV_PLAY) + 1, codes.EV_UNO_CALL, 0),
               "expected round_end at the turn cap")


# --- R7 lone zero, R3-R6 scoring, R8 H2O bonus ------------------------------------------------


def lone_zero(**rules):
    """Seat 1 is left holding Y0 alone."""
    b = builder(2, 2, **rules)
    b.round_start(1).deal(1, {0: ["R3", "G3"], 1: ["Y3", "Y0"]}).flip("R5")
    b.turn_play(0, "R3").turn_play(1, "Y3").turn_play(0, "G3")
    return b


@pytest.mark.parametrize("value", [0, 50, 100])
def test_lone_zero_value(value):
    b = lone_zero(lone_zero_value=value, target_score=0 if value == 0 else 1)
    b.round_won(0, value).scores((0, value), (value, 0)).game_won(0)
    trace = b.build()
    assert the_round(trace).hand_points == (0, value)
    if value:
        broken(with_rules(trace, lone_zero_value=0), "round points b = 50|round points b = 100")


def test_a_zero_with_another_card_is_worth_nothing():
    b = builder(2, 3, lone_zero_value=100, target_score=1)
    b.round_start(1).deal(1, {0: ["R3", "G3", "G4"], 1: ["Y3", "Y0", "Y1"]}).flip("R5")
    b.turn_play(0, "R3").turn_play(1, "Y3").turn_play(0, "G3")
    b.turn(1).draw(1, "B7").pass_(1).turn_play(0, "G4")
    b.round_won(0, 8).scores((0, 8), (8, 0)).game_won(0)
    assert the_round(b.build()).hand_points == (0, 8)


@pytest.mark.parametrize("scoring", ["own_points_low_wins", "own_points_lose_at"])
def test_own_points(scoring):
    """Every seat adds its own hand: seat 1 reaches the target; the lowest total wins."""
    b = lone_zero(scoring=scoring, lone_zero_value=100, target_score=100)
    b.round_won(0, 100).scores((0, 0), (100, 100)).game_won(0)
    result = check_trace(b.build())
    assert (result.winner_seat, result.losers, result.final_scores) == (0, (1,), (0, 100))
    trace = b.build()
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=0), b=100), "score b = 100, expected 0")
    broken(with_rules(trace, target_score=101), "expected round_start of round 2")


def test_own_points_lose_at_names_every_seat_at_the_target_a_loser():
    b = builder(3, 1, scoring="own_points_lose_at", target_score=5)
    b.round_start(2).deal(2, {0: ["R1"], 1: ["Y7"], 2: ["G9"]}).flip("R5")
    b.turn_play(0, "R1")
    b.round_won(0, 16).scores((0, 0), (7, 7), (9, 9)).game_won(0)
    result = check_trace(b.build())
    assert (result.winner_seat, result.losers) == (0, (1, 2))


def test_card_count():
    b = lone_zero(scoring="card_count", target_score=1)
    b.round_won(0, 1).scores((0, 1), (0, 0)).game_won(0)
    trace = b.build()
    result = check_trace(trace)
    assert (result.final_scores, result.losers) == ((1, 0), (1,))
    broken(changed(trace, find(trace, codes.EV_ROUND_END), b=0),
           r"round points b = 0, expected 1 \(the number of cards in the other hands\)")


def test_winner_takes_all_losers_have_the_lowest_score():
    b = builder(3, 1, target_score=1)
    b.round_start(2).deal(2, {0: ["R1"], 1: ["Y7"], 2: ["G9"]}).flip("R5")
    b.turn_play(0, "R1")
    b.round_won(0, 16).scores((0, 16), (7, 0), (9, 0)).game_won(0)
    assert check_trace(b.build()).losers == (1, 2)


def lazy_game(second_flip: str = "R5"):
    """Round 1: seat 1 wins, seat 2 (9 points) loses. Round 2: seat 2 deals, seat 1 starts."""
    b = builder(3, 1, scoring="lazy", target_score=2)
    b.round_start(0).deal(0, {1: ["R1"], 2: ["Y9"], 0: ["G2"]}).flip("R5")
    b.turn_play(1, "R1")
    b.round_won(1, 1).scores((2, 0), (0, 1), (9, 0))
    b.round_start(2, number=2).deal(2, {0: ["B1"], 1: ["R3"], 2: ["G4"]}).flip(second_flip)
    return b


def test_lazy_winner_starts_loser_deals():
    b = lazy_game()
    b.turn_play(1, "R3")
    b.round_won(1, 1).scores((1, 0), (0, 2), (4, 0)).game_won(1)
    trace = b.build()
    result = check_trace(trace)
    first, second = result.rounds
    assert (first.winner_seat, first.loser_seat, second.dealer_seat, second.first_seat) == (
        1, 2, 2, 1)
    assert (result.final_scores, result.losers) == ((0, 2, 0), (2,))
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), seat=1),
           re.escape("expected round_start of round 2 dealt by seat 2 (lazy: seat 2, the loser "
                     "of round 1, deals)"))
    broken(with_rules(trace, scoring="winner_takes_all"),
           r"round points b = 1, expected 11 \(the sum of the other hands\)")


def test_lazy_first_card_reverse_goes_to_the_seat_before_the_first_player():
    """Round 2's first player is seat 1: a Reverse turned up lets seat 0 (before it) start."""
    b = lazy_game("R-reverse")
    b.direction(-1).turn(0).draw(0, "R7").play(0, "R7")
    b.turn(2).draw(2, "R9").play(2, "R9")
    b.turn_play(1, "R3")
    b.round_won(1, 1).scores((1, 0), (0, 2), (4, 0)).game_won(1)
    trace = b.build()
    assert check_trace(trace).rounds[1].first_seat == 0
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=2), "expected turn of seat 0")


def test_lazy_loser_ties_go_to_the_most_cards():
    """Seats 0 and 2 both hold 14 points; seat 2 holds more cards and loses."""
    b = builder(3, 2, scoring="lazy", target_score=1)
    b.round_start(0).deal(0, {1: ["R1", "R2"], 2: ["Y6", "B2"], 0: ["G7", "B7"]}).flip("R5")
    b.turn_play(1, "R1")
    b.turn(2).draw(2, "G6").pass_(2)
    b.turn(0).draw(0, "R3").play(0, "R3")
    b.turn_play(1, "R2")
    b.round_won(1, 1).scores((14, 0), (0, 1), (14, 0)).game_won(1)
    assert check_trace(b.build()).rounds[0].loser_seat == 2


def h2o_finish(scoring: str = "own_points_lose_at", bonus: bool = True):
    b = builder(2, 2, {"hit_all_one": 1}, scoring=scoring, h2o_bonus=bonus, target_score=200,
                max_rounds=1)
    b.round_start(1).deal(1, {0: ["R1", "hit+1"], 1: ["Y2", "Y3"]}).flip("R5")
    b.turn_play(0, "R1").turn(1).draw(1, "G4").pass_(1)
    b.turn_play(0, "hit+1", "red").draw(1, "B5", reason="hit_all")
    return b


def test_h2o_bonus():
    b = h2o_finish()
    b.round_won(0, -6).scores((0, -20), (14, 14)).game_capped()
    trace = b.build()
    assert check_trace(trace).final_scores == (-20, 14)
    broken(with_rules(trace, h2o_bonus=False), r"round points b = -6, expected 14")
    broken(with_rules(trace, scoring="winner_takes_all"),
           "trace.rules combine h2o_bonus = True with scoring = 'winner_takes_all'")


# --- R9 to_the_last, R10 seven_rounds ---------------------------------------------------------


def to_the_last():
    b = builder(3, 2, round_end="to_the_last")
    b.round_start(2).deal(2, {0: ["R1", "R2"], 1: ["Y5", "Y6"], 2: ["R3", "Y7"]}).flip("R5")
    b.turn_play(0, "R1").turn(1).draw(1, "B8").pass_(1).turn_play(2, "R3")
    b.turn_play(0, "R2").finish(0, 1)
    b.turn(1).draw(1, "G9").pass_(1)
    b.turn(2).draw(2, "Y2").play(2, "Y2")
    b.turn_play(1, "Y5")  # seat 0 has left the round: after seat 2 comes seat 1
    b.turn_play(2, "Y7").finish(2, 2)
    b.round_won(0, 23).scores((0, 23), (23, 0), (0, 0)).game_won(0)
    return b.build()


def test_to_the_last():
    trace = to_the_last()
    r = the_round(trace)
    assert (r.winner_seat, r.loser_seat, r.finish_order) == (0, 1, (0, 2, 1))
    broken(changed(trace, find(trace, codes.EV_TURN, seat=1, nth=2), seat=0),
           "expected turn of seat 1")
    broken(deleted(trace, find(trace, codes.EV_FINISH)),
           re.escape("expected finish of seat 0 in place 1 (round_end: to_the_last)"))
    broken(changed(trace, find(trace, codes.EV_FINISH, nth=1), a=1), "expected finish of seat 2 "
                                                                    "in place 2")
    broken(with_rules(trace, round_end="first_out"), "expected round_end")


def test_to_the_last_finishing_card_has_its_effect():
    """Seat 0 goes out with R-skip: it still skips seat 1."""
    b = builder(3, 1, round_end="to_the_last")
    b.round_start(2).deal(2, {0: ["R-skip"], 1: ["Y2"], 2: ["R3"]}).flip("R5")
    b.turn_play(0, "R-skip").finish(0, 1).skip(1).turn_play(2, "R3").finish(2, 2)
    b.round_won(0, 2).scores((0, 2), (2, 0), (0, 0)).game_won(0)
    trace = b.build()
    r = the_round(trace)
    assert (r.finish_order, r.loser_seat, r.skips) == ((0, 2, 1), 1, 1)


def test_to_the_last_two_seats_left_reverse_is_a_skip():
    """Seat 1 goes out with R-reverse: two seats are left, so it skips seat 2 (R2 has been
    turned up: seat 0 drew 2 and was skipped)."""
    b = builder(3, 1, round_end="to_the_last")
    b.round_start(2).deal(2, {0: ["R1"], 1: ["R-reverse"], 2: ["Y2"]}).flip("R+2")
    b.draw(0, "B1", "B2", reason="draw_two").skip(0)
    b.turn_play(1, "R-reverse").finish(1, 1).skip(2)
    b.turn_play(0, "R1").turn(2).draw(2, "Y3").pass_(2)
    b.turn_play(0, "B1").turn(2).draw(2, "Y4").pass_(2)
    b.turn_play(0, "B2").finish(0, 2)
    b.round_won(1, 9).scores((0, 0), (0, 9), (9, 0)).game_won(1)
    trace = b.build()
    r = the_round(trace)
    assert (r.finish_order, r.direction_changes, r.skips) == ((1, 0, 2), 0, 2)
    broken(with_rules(trace, round_end="first_out"), "expected round_end")


def seven_rounds():
    b = builder(2, 2, round_end="seven_rounds")
    b.round_start(1).deal(1, {0: ["R1", "R2"], 1: ["Y3", "Y4"]}).flip("R5")
    b.turn_play(0, "R1").turn(1).draw(1, "G6").pass_(1)
    b.turn_play(0, "R2").new_hand(0, 1, 1).draw(0, "R7", reason="refill")
    b.turn(1).draw(1, "G8").pass_(1)
    b.turn_play(0, "R7")
    b.round_won(0, 21).scores((0, 21), (21, 0)).game_won(0)
    return b.build()


def test_seven_rounds():
    trace = seven_rounds()
    r = the_round(trace)
    assert numbers(r, "cards_drawn", "normal_draws", "penalty_cards", "hands_emptied") == (
        3, 2, 0, (2, 0))
    at = find(trace, codes.EV_NEW_HAND)
    broken(changed(trace, at, b=2), re.escape(
        "expected new_hand of seat 0: it emptied hand 1 of 2 and takes 1 cards"))
    broken(deleted(trace, at), "expected new_hand of seat 0")
    broken(with_rules(trace, round_end="first_out"), "expected round_end")
    broken(changed(trace, at + 1, b=codes.DRAW_NORMAL), "expected draw reason refill")


# --- D6 and rendering ------------------------------------------------------------------------


def test_format_trace_shows_the_new_events():
    lines = format_trace(zero_slap()).splitlines()
    assert "r1 t1 seat 1 is the slowest to slap (0 played by seat 0)" in lines
    assert "r1 t1 seat 1 draws B1 (slap)" in lines
    lines = format_trace(seven_swaps()).splitlines()
    assert "r1 t3 seat 2 swaps hands with seat 0" in lines
    lines = format_trace(five_swap()).splitlines()
    assert "r1 t1 seat 0 gives G9 to seat 1" in lines
    lines = format_trace(to_the_last()).splitlines()
    assert "r1 t4 seat 0 finishes in place 1" in lines
    lines = format_trace(seven_rounds()).splitlines()
    assert "r1 t3 seat 0 has emptied hand 1 and takes 1 new cards" in lines
    assert "r1 t3 seat 0 draws R7 (refill)" in lines
    lines = format_trace(seven_silence()).splitlines()
    assert "r1 t2 seat 2 breaks the silence and owes 4 cards" in lines
    lines = format_trace(zero_passes()).splitlines()
    assert "r1 t1 every hand passes on in direction +1" in lines


# --- Combinations with the turn variants -------------------------------------------------------


def test_an_eight_covered_by_an_eight_is_covered_in_turn():
    b = builder(2, 3, eight_cover=True)
    b.round_start(1).deal(1, {0: ["R8", "G8", "G1"], 1: ["Y3", "Y4", "B5"]}).flip("R5")
    b.turn_play(0, "R8").play(0, "G8").play(0, "G1")
    b.round_won(0, 12).scores((0, 12), (12, 0)).game_won(0)
    trace = b.build()
    assert numbers(the_round(trace), "turns", "cards_played") == (1, 3)
    broken(deleted(trace, find(trace, codes.EV_PLAY, a=card("G1"))),
           "expected cover of G8 by seat 0")


@pytest.mark.parametrize("jump_in, swaps", [
    ("numbers", [(2, 0)]),  # only the jumper's 7 has its effect
    ("extreme", [(0, 2), (2, 0)]),  # both, in turn: each with its fewest-cards seat then
])
def test_jump_in_on_a_seven(jump_in, swaps):
    b = one_turn(3, 2, {"numbers": 2}, seven_zero=True, jump_in=jump_in)
    b.round_start(2).deal(2, {0: ["R7", "G1"], 1: ["Y2", "Y3"], 2: ["R7", "B4"]}).flip("R5")
    b.turn_play(0, "R7").jump_in(2, "R7")
    for seat, other in swaps:
        b.swap_hands(seat, other)
    held = {"numbers": ((4, 0), (5, 0), (1, 0)), "extreme": ((1, 0), (5, 0), (4, 0))}[jump_in]
    b.round_capped().scores(*held).game_capped()
    assert the_round(b.build()).hand_swaps == len(swaps)


def test_a_mistake_before_answering_a_pending_penalty():
    """Seat 1 owes a Draw Two it can answer: its turn starts with a mistake, then it answers."""
    b = one_turn(2, 2, stack_draw_two="sum", mistake_penalty=1, max_turns=3)
    b.round_start(1).deal(1, {0: ["R+2", "R1"], 1: ["G+2", "Y5"]}).flip("R5")
    b.turn_play(0, "R+2")
    b.turn(1).mistake(1, 1).draw(1, "B9", reason="mistake").play(1, "G+2")
    b.draw(0, "B1", "B2", "B3", "B4", reason="draw_two").skip(0)
    b.turn(1).draw(1, "G7").play(1, "G7")
    b.round_capped().scores((11, 0), (14, 0)).game_capped()
    trace = b.build()
    assert numbers(the_round(trace), "mistakes", "penalty_cards", "turns") == (1, 5, 3)
    # No mistake for seat 0, which pays the penalty without a turn.
    broken(inserted(trace, find(trace, codes.EV_DRAW, a=card("B1")), codes.EV_MISTAKE, 0, 1),
           r"expected draw by seat 0 \(draw_two, card 1 of 4")


def test_a_capped_round_to_the_last_keeps_its_finishers():
    """Seat 0 goes out with a hit+1 (the two others draw one each); the round is then capped."""
    b = one_turn(3, 1, {"hit_all_one": 1}, round_end="to_the_last")
    b.round_start(2).deal(2, {0: ["hit+1"], 1: ["Y2"], 2: ["Y3"]}).flip("R5")
    b.turn_play(0, "hit+1", "red").finish(0, 1)
    b.draw(1, "B4", reason="hit_all").draw(2, "B6", reason="hit_all")
    b.round_capped().scores((0, 0), (6, 0), (9, 0)).game_capped()
    r = the_round(b.build())
    assert (r.finish_order, r.loser_seat, r.winner_seat, r.cards_left) == ((0,), None, None,
                                                                            (0, 2, 2))


def test_lazy_after_a_capped_round_the_dealer_rotates():
    b = TraceBuilder(2, hand_size=1, deck=ONE_OF_EACH, uno_penalty=0, scoring="lazy",
                     target_score=5, max_turns=1, max_rounds=2)
    b.round_start(0).deal(0, {1: ["Y1"], 0: ["G2"]}).flip("R5")
    b.turn(1).draw(1, "B3").pass_(1)
    b.round_capped().scores((2, 0), (4, 0))
    b.round_start(1, number=2).deal(1, {0: ["Y1"], 1: ["G2"]}).flip("R5")
    b.turn(0).draw(0, "B3").pass_(0)
    b.round_capped().scores((4, 0), (2, 0)).game_capped()
    result = check_trace(b.build())
    assert [(r.dealer_seat, r.first_seat, r.loser_seat) for r in result.rounds] == [
        (0, 1, None), (1, 0, None)]
    assert result.losers == ()
