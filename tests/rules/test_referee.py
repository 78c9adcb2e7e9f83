"""The referee itself, across the rule families: the legal games under the official rules that
the families' tests damage (tests/rules/traces.py) pass with the numbers it computes; what no
rule family owns (a card played that is not held, a turn out of order, events after game_end, a
trace cut short, a rule value outside the rule table) is refused; and traces render as text.

Each family's own rejections (one event changed, removed or added) are in its file.
"""

from __future__ import annotations

import dataclasses

import pytest
from cases import card
from traces import (
    NO_LATER_COUNTERS,
    action_cards,
    broken,
    capped_round_then_win,
    changed,
    counters,
    deleted,
    find,
    inserted,
    quick_win,
)

from unostats import codes
from unostats.engine.referee import GameResult, RoundResult, check_trace, format_trace
from unostats.rules import RuleSet

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
            score_after=(0, 2),
            # how it plays: the winner never behind; one turn of three had a choice, of two cards
            winner_largest_deficit=0, decision_turns=1, legal_cards_on_decisions=2),),
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


def test_card_not_in_hand():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("R7")),
           "seat 1 does not hold R7")


def test_wrong_seat_takes_a_turn():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=1), "expected turn of seat 0")


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
    # The referee checks every value of the rule table: use one outside it.
    rules = RuleSet(values={**trace.rules.values, "silence": "whisper"}, deck=trace.rules.deck)
    with pytest.raises(NotImplementedError, match="silence = 'whisper'"):
        check_trace(dataclasses.replace(trace, rules=rules))


def test_a_rule_the_referee_does_not_claim(monkeypatch):
    # A rule added to the table is not checked until the referee claims its key.
    from unostats.engine import referee
    claimed = referee._supported._CLAIMED
    monkeypatch.setattr(referee._supported, "_CLAIMED", claimed - {"five_swap"})
    with pytest.raises(NotImplementedError, match="does not know the rule 'five_swap'"):
        check_trace(quick_win())


def test_the_referee_claims_every_option_of_the_rule_table():
    from unostats import rules as rules_mod
    from unostats.engine import referee
    assert referee._supported._CLAIMED == {o.key for o in rules_mod.RULE_OPTIONS}


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
