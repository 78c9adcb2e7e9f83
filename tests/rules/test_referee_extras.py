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
    changed,
    deleted,
    find,
    numbers,
    one_turn,
    the_round,
    with_rules,
)

from unostats import codes
from unostats.engine.referee import check_trace, format_trace

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
    lines = format_trace(to_the_last()).splitlines()
    assert "r1 t4 seat 0 finishes in place 1" in lines
    lines = format_trace(seven_rounds()).splitlines()
    assert "r1 t3 seat 0 has emptied hand 1 and takes 1 new cards" in lines
    assert "r1 t3 seat 0 draws R7 (refill)" in lines


# --- Combinations with the turn variants -------------------------------------------------------


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
