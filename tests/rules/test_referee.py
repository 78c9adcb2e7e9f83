"""The referee accepts hand-written legal games and catches each kind of broken event.

Every broken trace is a legal one with one event changed, removed or added, so each test fails if
the referee stops checking that one thing.
"""

from __future__ import annotations

import dataclasses

import pytest
from traces import (
    NO_LATER_COUNTERS,
    ONE_OF_EACH,
    TraceBuilder,
    action_cards,
    broken,
    capped_round_then_win,
    card,
    changed,
    counters,
    deleted,
    find,
    inserted,
    quick_win,
)

from unostats import codes
from unostats.engine.referee import (
    GameResult,
    RefereeError,
    RoundResult,
    check_trace,
    format_trace,
)
from unostats.rules import RuleSet

# --- Legal games -----------------------------------------------------------------------------


def last_card(name: str, colour: str | None, reason: str, drawn: list[str], points: int):
    """Seat 1 goes out with ``name``; seat 0 draws the final penalty."""
    b = TraceBuilder(2, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: [name], 0: ["Y1"]}).flip("R5")
    b.turn_play(1, name, colour).draw(0, *drawn, reason=reason)
    b.round_won(1, points).scores((points, 0), (0, points)).game_won(1)
    return b.build()


LEGAL_GAMES = [quick_win, action_cards, capped_round_then_win]


@pytest.mark.parametrize("game", LEGAL_GAMES, ids=lambda g: g.__name__)
def test_legal_game_passes(game):
    result = check_trace(game())
    assert isinstance(result, GameResult)


def test_quick_win_results():
    result = check_trace(quick_win())
    assert result == GameResult(
        rounds=(RoundResult(
            round=1, dealer_seat=0, first_seat=1, winner_seat=1, winner_position=0, turns=3,
            cards_played=3, cards_drawn=0, normal_draws=0, penalty_cards=0, reshuffles=0,
            direction_changes=0, challenges=0, challenges_won=0, uno_penalties=0, skips=0,
            jump_ins=0, points=2, ended_by="win", hand_points=(2, 0), cards_left=(1, 0),
            score_after=(0, 2)),),
        winner_seat=1, ended_by="target", final_scores=(0, 2))


def test_action_cards_counters():
    (r,) = check_trace(action_cards()).rounds
    assert counters(r) == dict(
        turns=6, cards_played=6, cards_drawn=9, normal_draws=1, penalty_cards=8, reshuffles=0,
        direction_changes=1, challenges=1, challenges_won=1, uno_penalties=1, skips=2,
        jump_ins=0, **NO_LATER_COUNTERS)
    assert (r.dealer_seat, r.first_seat, r.winner_seat, r.points) == (2, 1, 1, 80)
    assert r.cards_left == (7, 0, 5)
    assert r.hand_points == (57, 0, 23)


def test_capped_round_and_capped_game():
    result = check_trace(capped_round_then_win())
    capped, won = result.rounds
    assert (capped.ended_by, capped.winner_seat, capped.winner_position) == ("cap", None, None)
    assert (capped.turns, capped.normal_draws, capped.points) == (10, 10, 0)
    assert capped.hand_points == (24, 26) and capped.score_after == (0, 0)
    assert (won.round, won.dealer_seat, won.first_seat, won.winner_seat) == (2, 1, 0, 0)
    assert (result.winner_seat, result.ended_by, result.final_scores) == (None, "cap", (8, 0))


@pytest.mark.parametrize("name, colour, reason, drawn, points", [
    ("R+2", None, "draw_two", ["B1", "B2"], 4),
    ("+4", "red", "draw_four", ["B1", "B2", "B3", "B4"], 11),
])
def test_last_card_penalty_is_drawn_before_the_round_ends(name, colour, reason, drawn, points):
    trace = last_card(name, colour, reason, drawn, points)
    (r,) = check_trace(trace).rounds
    assert (r.cards_drawn, r.points, r.skips) == (len(drawn), points, 0)
    with pytest.raises(RefereeError, match="expected draw by seat 0"):
        check_trace(deleted(trace, find(trace, codes.EV_DRAW, nth=len(drawn) - 1)))
    with pytest.raises(RefereeError, match="expected round_end"):
        check_trace(inserted(trace, find(trace, codes.EV_ROUND_END), codes.EV_SKIP, 0))


# --- Broken games ----------------------------------------------------------------------------


def test_card_not_in_hand():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("R7")),
           "seat 1 does not hold R7")


def test_wrong_seat_takes_a_turn():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=1), "expected turn of seat 0")


def test_wrong_round_points():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), b=3), "round points b = 3, expected 2")


def test_wrong_round_winner():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), seat=0), "expected winner seat 1")


def test_wrong_hand_points():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=0), a=5),
           "hand points a = 5, expected 2")


def test_wrong_score():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_SCORE, seat=1), b=7), "score b = 7, expected 2")


def test_round_goes_on_after_a_hand_is_empty():
    trace = quick_win()
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_TURN, 0), "expected round_end: seat 1 has no cards left")


def test_round_goes_on_past_the_turn_cap():
    trace = capped_round_then_win()
    at = find(trace, codes.EV_ROUND_END)
    broken(inserted(trace, at, codes.EV_TURN, 1), r"expected round_end at the turn cap")


def test_capped_round_names_no_winner():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_END), seat=0, a=0),
           "a capped round ends with seat -1")


def test_wrong_round_number():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), a=3),
           "expected round number a = 2")


def test_game_goes_on_after_the_target():
    trace = quick_win()
    at = find(trace, codes.EV_GAME_END)
    broken(changed(trace, at, kind=codes.EV_ROUND_START, seat=1, a=2),
           "expected game_end won by seat 1")


def test_game_end_before_the_round_cap():
    trace = capped_round_then_win()
    at = find(trace, codes.EV_ROUND_START, nth=1)
    broken(inserted(trace, at, codes.EV_GAME_END, -1, 1), "expected round_start of round 2")


@pytest.mark.parametrize("game, wrong_code", [(quick_win, codes.GAME_END_CAP),
                                               (capped_round_then_win, codes.GAME_END_TARGET)])
def test_wrong_game_end_code(game, wrong_code):
    trace = game()
    broken(changed(trace, find(trace, codes.EV_GAME_END), a=wrong_code), "expected a = ")


def test_events_after_game_end():
    trace = quick_win()
    broken(inserted(trace, len(trace.events), codes.EV_TURN, 0),
           "no event may follow game_end")


def test_trace_cut_short():
    trace = quick_win()
    err = broken(deleted(trace, len(trace.events) - 1), r"end of trace\): expected game_end")
    assert err.index == len(trace.events) - 1


def test_unsupported_rule_value():
    trace = quick_win()
    # Every value of the rule table is checked since issue 5: use one outside it.
    rules = RuleSet(values={**trace.rules.values, "silence": "whisper"}, deck=trace.rules.deck)
    with pytest.raises(NotImplementedError, match="silence = 'whisper'"):
        check_trace(dataclasses.replace(trace, rules=rules))


def test_format_trace():
    lines = format_trace(action_cards()).splitlines()
    assert len(lines) == len(action_cards().events)
    assert lines[0] == "r1 round 1 starts, seat 2 deals"
    assert lines[1] == "r1 seat 0 is dealt R+2"
    assert "r1 +4 goes back into the draw pile" in lines
    assert "r1 t2 seat 0 plays R+2" in lines
    assert "r1 t2 seat 2 draws B7 (draw_two)" in lines
    assert "r1 t3 seat 1 names green" in lines
    assert "r1 t4 seat 0 forgets UNO, caught by seat 1" in lines
    assert "r1 t4 seat 2 challenges seat 0: guilty" in lines
    assert lines[-5:] == ["r1 t6 round ends: seat 1 wins 80 points",
                          "r1 t6 seat 0 holds 57 points, score 0",
                          "r1 t6 seat 1 holds 0 points, score 80",
                          "r1 t6 seat 2 holds 23 points, score 0",
                          "r1 t6 game ends: seat 1 wins"]
