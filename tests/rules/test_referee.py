"""The referee accepts hand-written legal games and catches each kind of broken event.

Every broken trace is a legal one with one event changed, removed or added, so each test fails if
the referee stops checking that one thing.
"""

from __future__ import annotations

import dataclasses

import pytest
from traces import ONE_OF_EACH, TraceBuilder, broken, card, changed, deleted, find, inserted

from unostats import codes
from unostats.engine.referee import (
    GameResult,
    RefereeError,
    RoundResult,
    check_trace,
    format_trace,
)
from unostats.rules import RuleSet

ZEROS_AND_DRAW_TWOS = {"zero": 1, "numbers": 0, "skip": 0, "reverse": 0, "draw_two": 1,
                       "wild": 0, "wild_draw_four": 0}
ZEROS_AND_SKIPS = {"zero": 1, "numbers": 0, "skip": 1, "reverse": 0, "draw_two": 0,
                   "wild": 0, "wild_draw_four": 0}


# --- Legal games -----------------------------------------------------------------------------


def quick_win():
    """2 players, 2 cards each; seat 1 plays out in three turns."""
    b = TraceBuilder(2, hand_size=2, uno_penalty=0, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: ["R1", "R3"], 0: ["R2", "Y2"]}).flip("R5")
    b.turn_play(1, "R1").turn_play(0, "R2").turn_play(1, "R3")
    b.round_won(1, 2).scores((2, 0), (0, 2)).game_won(1)
    return b.build()


def action_cards():
    """3 players: first-card skip, reverse, draw two, wild, a bluffed +4 caught by a challenge,
    UNO call and a caught UNO miss, a normal draw played at once."""
    b = TraceBuilder(3, hand_size=3, uno_penalty=2, target_score=1,
                     deck={**ONE_OF_EACH, "wild_draw_four": 2})
    b.round_start(2).deal(2, {0: ["R+2", "+4", "G7"], 1: ["R-reverse", "wild", "G5"],
                              2: ["Y1", "B3", "Y4"]})
    b.flip("+4").flip_return("+4").flip("R-skip").skip(0)
    b.turn_play(1, "R-reverse").direction(-1)
    b.turn_play(0, "R+2").draw(2, "B7", "Y8", reason="draw_two").skip(2)
    b.turn_play(1, "wild", "green").uno_call(1)
    b.turn_play(0, "+4", "green").uno_miss(0, caught_by=1).draw(0, "R9", "B9", reason="uno")
    b.challenge(2, 0, guilty=True).draw(0, "R8", "Y9", "B8", "R7", reason="challenge")
    b.turn(2).draw(2, "G9").play(2, "G9")
    b.turn_play(1, "G5")
    b.round_won(1, 80).scores((57, 0), (0, 80), (23, 0)).game_won(1)
    return b.build()


def piles_run_dry():
    """2 players, an 8-card deck: reshuffles, a penalty cut short and a normal draw that fail."""
    b = TraceBuilder(2, hand_size=3, uno_penalty=0, target_score=1, deck=ZEROS_AND_DRAW_TWOS)
    b.round_start(0).deal(0, {1: ["G+2", "R+2", "B0"], 0: ["Y0", "R0", "Y+2"]}).flip("G0")
    b.turn_play(1, "G+2").draw(0, "B+2", reason="draw_two").reshuffle(1)
    b.draw(0, "G0", reason="draw_two").skip(0)
    b.turn_play(1, "R+2").reshuffle(1).draw(0, "G+2", reason="draw_two")
    b.draw_fail(0, "draw_two").skip(0)
    b.turn(1).draw_fail(1).pass_(1)
    b.turn_play(0, "R0")
    b.turn_play(1, "B0")
    b.round_won(1, 60).scores((60, 0), (0, 60)).game_won(1)
    return b.build()


def capped_round_then_win():
    """A round that reaches max_turns, then a won round under the next dealer; the game is
    capped by max_rounds."""
    b = TraceBuilder(2, hand_size=1, max_turns=10, max_rounds=2, target_score=1000,
                     deck=ONE_OF_EACH)
    b.round_start(0, 1).deal(0, {1: ["R1"], 0: ["Y1"]}).flip("G5")
    for seat, drawn in zip([1, 0] * 5, ["R2", "R3", "R4", "R6", "R7", "R8", "R9", "Y2", "Y3",
                                        "Y4"]):
        b.turn(seat).draw(seat, drawn).pass_(seat)
    b.round_capped().scores((24, 0), (26, 0))
    b.round_start(1, 2).deal(1, {0: ["B7"], 1: ["B8"]}).flip("B2")
    b.turn_play(0, "B7")
    b.round_won(0, 8).scores((0, 8), (8, 0)).game_capped()
    return b.build()


def draw_fours():
    """3 players: an innocent +4 challenged, an unchallenged +4, a drawn card played."""
    b = TraceBuilder(3, hand_size=2, uno_penalty=0, target_score=1,
                     deck={**ONE_OF_EACH, "wild_draw_four": 2})
    b.round_start(2).deal(2, {0: ["+4", "Y1"], 1: ["B5", "B6"], 2: ["+4", "G1"]}).flip("R5")
    b.turn_play(0, "+4", "yellow").challenge(1, 0, guilty=False)
    b.draw(1, "B1", "B2", "B3", "B4", "B7", "B8", reason="challenge").skip(1)
    b.turn_play(2, "+4", "green").draw(0, "R1", "R2", "R3", "R4", reason="draw_four").skip(0)
    b.turn(1).draw(1, "G9").play(1, "G9")
    b.turn_play(2, "G1")
    b.round_won(2, 47).scores((11, 0), (36, 0), (0, 47)).game_won(2)
    return b.build()


def free_draw_four():
    b = TraceBuilder(2, hand_size=2, uno_penalty=0, target_score=1, wild_draw_four="free",
                     deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: ["+4", "R1"], 0: ["Y1", "Y2"]}).flip("R5")
    b.turn_play(1, "+4", "red").draw(0, "B1", "B2", "B3", "B4", reason="draw_four").skip(0)
    b.turn_play(1, "R1")
    b.round_won(1, 13).scores((13, 0), (0, 13)).game_won(1)
    return b.build()


def last_card(name: str, colour: str | None, reason: str, drawn: list[str], points: int):
    """Seat 1 goes out with ``name``; seat 0 draws the final penalty."""
    b = TraceBuilder(2, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: [name], 0: ["Y1"]}).flip("R5")
    b.turn_play(1, name, colour).draw(0, *drawn, reason=reason)
    b.round_won(1, points).scores((points, 0), (0, points)).game_won(1)
    return b.build()


def first_reverse_three_players():
    """The dealer plays first, counter-clockwise; seat 2 wins in position 1."""
    b = TraceBuilder(3, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0, first=0).deal(0, {1: ["Y1"], 2: ["R2"], 0: ["Y3"]})
    b.flip("R-reverse").direction(-1)
    b.turn(0).draw(0, "B4").pass_(0)
    b.turn_play(2, "R2")
    b.round_won(2, 8).scores((7, 0), (1, 0), (0, 8)).game_won(2)
    return b.build()


def first_reverse_two_players():
    b = TraceBuilder(2, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: ["Y1"], 0: ["R3"]}).flip("R-reverse").skip(1)
    b.turn_play(0, "R3")
    b.round_won(0, 1).scores((0, 1), (1, 0)).game_won(0)
    return b.build()


def first_draw_two():
    """Seat 2 (dealer's left) draws 2 and is skipped; seat 0 draws and plays, calling UNO."""
    b = TraceBuilder(3, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(1).deal(1, {2: ["Y1"], 0: ["G2"], 1: ["R3"]}).flip("R+2")
    b.draw(2, "B5", "B6", reason="draw_two").skip(2)
    b.turn(0).draw(0, "R9").play(0, "R9").uno_call(0)
    b.turn_play(1, "R3")
    b.round_won(1, 14).scores((2, 0), (0, 14), (12, 0)).game_won(1)
    return b.build()


def first_wild():
    b = TraceBuilder(2, hand_size=1, target_score=1, deck=ONE_OF_EACH)
    b.round_start(1).deal(1, {0: ["Y1"], 1: ["B2"]}).flip("wild").colour(0, "yellow")
    b.turn_play(0, "Y1")
    b.round_won(0, 2).scores((0, 2), (2, 0)).game_won(0)
    return b.build()


def number_only_returns_actions():
    b = TraceBuilder(2, hand_size=1, target_score=1, first_card="number_only", deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: ["R1"], 0: ["Y2"]})
    b.flip("R-skip").flip_return("R-skip").flip("R5")
    b.turn_play(1, "R1")
    b.round_won(1, 2).scores((2, 0), (0, 2)).game_won(1)
    return b.build()


def number_only_no_number_left():
    """Every number card is dealt, so the flipped Skip stays, without effect."""
    b = TraceBuilder(2, hand_size=2, uno_penalty=0, max_rounds=1, first_card="number_only",
                     deck=ZEROS_AND_SKIPS)
    b.round_start(0).deal(0, {1: ["R0", "Y0"], 0: ["G0", "B0"]}).flip("R-skip")
    b.turn_play(1, "R0").turn_play(0, "G0").turn_play(1, "Y0")
    b.round_won(1, 0).scores((0, 0), (0, 0)).game_capped()
    return b.build()


def uno_penalty_before_challenge():
    """Seat 0 plays an honest +4, is caught missing UNO and draws two red cards (red was the
    colour before the +4): the challenge is still innocent, judged on the hand at the play."""
    b = TraceBuilder(3, hand_size=2, uno_penalty=2, target_score=1, deck=ONE_OF_EACH)
    b.round_start(2).deal(2, {0: ["+4", "Y1"], 1: ["B5", "B6"], 2: ["Y2", "Y3"]}).flip("R5")
    b.turn_play(0, "+4", "yellow").uno_miss(0, caught_by=2).draw(0, "R1", "R2", reason="uno")
    b.challenge(1, 0, guilty=False)
    b.draw(1, "B3", "B4", "B7", "B8", "B9", "G7", reason="challenge").skip(1)
    b.turn_play(2, "Y2").uno_call(2)
    b.turn_play(0, "Y1")
    b.turn(1).draw(1, "G9").pass_(1)
    b.turn_play(2, "Y3")
    b.round_won(2, 61).scores((3, 0), (58, 0), (0, 61)).game_won(2)
    return b.build()


def draw_four_first_card_stays():
    """Only +4s are left to flip, so the +4 stays (no effect); the first player may name a
    colour (docs/engine.md does not say; the referee accepts it)."""
    b = TraceBuilder(2, hand_size=2, uno_penalty=0, max_rounds=1,
                     deck={**ZEROS_AND_SKIPS, "skip": 0, "wild_draw_four": 2})
    b.round_start(0).deal(0, {1: ["R0", "Y0"], 0: ["G0", "B0"]}).flip("+4").colour(1, "red")
    b.turn_play(1, "R0").turn_play(0, "G0").turn_play(1, "Y0")
    b.round_won(1, 0).scores((0, 0), (0, 0)).game_capped()
    return b.build()


LEGAL_GAMES = [quick_win, action_cards, piles_run_dry, capped_round_then_win, draw_fours,
               free_draw_four, first_reverse_three_players, first_reverse_two_players,
               first_draw_two, first_wild, number_only_returns_actions,
               number_only_no_number_left, uno_penalty_before_challenge,
               draw_four_first_card_stays]


@pytest.mark.parametrize("game", LEGAL_GAMES, ids=lambda g: g.__name__)
def test_legal_game_passes(game):
    result = check_trace(game())
    assert isinstance(result, GameResult)


NO_ISSUE_5_EVENTS = dict(hand_swaps=0, card_swaps=0, slaps=0, silence_breaks=0, mistakes=0)


def counters(r: RoundResult) -> dict[str, int]:
    return {name: getattr(r, name) for name in codes.COUNTER_NAMES}


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
        jump_ins=0, **NO_ISSUE_5_EVENTS)
    assert (r.dealer_seat, r.first_seat, r.winner_seat, r.points) == (2, 1, 1, 80)
    assert r.cards_left == (7, 0, 5)
    assert r.hand_points == (57, 0, 23)


def test_dry_piles_counters():
    (r,) = check_trace(piles_run_dry()).rounds
    assert counters(r) == dict(
        turns=5, cards_played=4, cards_drawn=3, normal_draws=0, penalty_cards=3, reshuffles=2,
        direction_changes=0, challenges=0, challenges_won=0, uno_penalties=0, skips=2, jump_ins=0,
        **NO_ISSUE_5_EVENTS)
    assert r.cards_left == (5, 0)


def test_capped_round_and_capped_game():
    result = check_trace(capped_round_then_win())
    capped, won = result.rounds
    assert (capped.ended_by, capped.winner_seat, capped.winner_position) == ("cap", None, None)
    assert (capped.turns, capped.normal_draws, capped.points) == (10, 10, 0)
    assert capped.hand_points == (24, 26) and capped.score_after == (0, 0)
    assert (won.round, won.dealer_seat, won.first_seat, won.winner_seat) == (2, 1, 0, 0)
    assert (result.winner_seat, result.ended_by, result.final_scores) == (None, "cap", (8, 0))


def test_draw_four_counters():
    (r,) = check_trace(draw_fours()).rounds
    assert (r.challenges, r.challenges_won, r.penalty_cards, r.normal_draws) == (1, 0, 10, 1)
    assert r.winner_position == 2


def test_winner_position_follows_the_starting_direction():
    (r,) = check_trace(first_reverse_three_players()).rounds
    assert (r.first_seat, r.winner_seat, r.winner_position, r.direction_changes) == (0, 2, 1, 1)


def test_first_draw_two_counts_as_penalty_and_skip():
    (r,) = check_trace(first_draw_two()).rounds
    assert (r.first_seat, r.penalty_cards, r.normal_draws, r.skips) == (0, 2, 1, 1)
    assert r.winner_position == 1


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


def test_zero_card_reshuffle_before_a_draw_fail_is_accepted():
    trace = piles_run_dry()
    at = find(trace, codes.EV_DRAW_FAIL, seat=1)
    (r,) = check_trace(inserted(trace, at, codes.EV_RESHUFFLE, a=0)).rounds
    assert r.reshuffles == 3


def test_round_start_may_name_the_first_player():
    trace = quick_win()
    check_trace(changed(trace, 0, b=1))
    with pytest.raises(RefereeError, match="seat 1 plays first"):
        check_trace(changed(trace, 0, b=0))


# --- Broken games ----------------------------------------------------------------------------


def test_illegal_play():
    trace = quick_win()
    err = broken(changed(trace, find(trace, codes.EV_PLAY, seat=0), a=card("Y2")),
                 "illegal play: Y2 matches neither the current colour red nor the top card R1")
    assert err.index == find(trace, codes.EV_PLAY, seat=0)
    assert "event 9 (play: r1 t2 seat 0 plays Y2)" in str(err)


def test_card_not_in_hand():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=1), a=card("R7")),
           "seat 1 does not hold R7")


def test_drawn_card_not_in_draw_pile():
    trace = piles_run_dry()
    broken(changed(trace, find(trace, codes.EV_DRAW), a=card("R0")),
           "R0 is not in the draw pile")


def test_dealt_card_not_in_draw_pile():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_DEAL, nth=1), a=card("R1")),
           "R1 is not in the draw pile")


def test_deal_order():
    trace = quick_win()
    first_two_deals_swapped = trace.events[[0, 2, 1, *range(3, len(trace.events))]]
    broken(dataclasses.replace(trace, events=first_two_deals_swapped),
           "expected deal of card 1 to seat 1")


def test_first_dealer_must_be_a_seat():
    trace = quick_win()
    broken(changed(trace, 0, seat=2), "the dealer must be a seat")


def test_returned_first_card_is_the_flipped_one():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_FLIP_RETURN), a=card("wild")),
           r"expected flip_return of \+4")


def test_wrong_seat_takes_a_turn():
    trace = quick_win()
    broken(changed(trace, find(trace, codes.EV_TURN, nth=1), seat=1), "expected turn of seat 0")


def test_missed_skip():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=2)),
           r"expected skip of seat 2 \(R\+2 played by seat 0\)")


def test_missed_first_card_skip():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=0)),
           r"expected skip of seat 0 \(first card R-skip\)")


def test_draw_two_penalty_too_short():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=2)),
           r"expected draw by seat 2 \(draw_two, card 2 of 2\)")


def test_draw_two_penalty_too_long():
    trace = action_cards()
    at = find(trace, codes.EV_SKIP, seat=2)
    broken(inserted(trace, at, codes.EV_DRAW, 2, card("B1"), codes.DRAW_DRAW_TWO),
           "expected skip of seat 2")


def test_wrong_draw_reason():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_DRAW, seat=2), b=codes.DRAW_DRAW_FOUR),
           "expected draw reason draw_two")


def test_wrong_guilty_flag_on_a_bluff():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=0),
           "guilty flag b = 0, expected 1: seat 0 held green card")


def test_wrong_guilty_flag_on_an_honest_draw_four():
    trace = draw_fours()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=1),
           "guilty flag b = 1, expected 0: seat 0 held no red card")


def test_guilt_ignores_cards_drawn_after_the_play():
    trace = uno_penalty_before_challenge()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), b=1),
           "expected 0: seat 0 held no red card")


def test_innocent_challenger_draws_six():
    trace = draw_fours()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=1, nth=5)),
           r"expected draw by seat 1 \(challenge, card 6 of 6\)")


def test_guilty_player_draws_and_victim_plays_on():
    trace = action_cards()
    broken(inserted(trace, find(trace, codes.EV_TURN, seat=2, nth=0), codes.EV_SKIP, 2),
           "expected turn of seat 2")


def test_challenge_names_the_player_of_the_draw_four():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_CHALLENGE), a=1),
           "expected the challenged seat a = 0")


def test_unchallenged_draw_four_skips_the_victim():
    trace = draw_fours()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=0)), "expected skip of seat 0")


def test_challenge_under_free_draw_four():
    trace = free_draw_four()
    at = find(trace, codes.EV_DRAW)
    broken(inserted(trace, at, codes.EV_CHALLENGE, 0, 1, 0),
           "no challenge is possible when wild_draw_four is free")


def test_missing_uno_call():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_UNO_CALL)),
           r"expected uno_call or uno_miss by seat 1 \(it has one card left\)")


def test_uno_event_without_uno_rule():
    trace = quick_win()
    at = find(trace, codes.EV_TURN, nth=1)
    broken(inserted(trace, at, codes.EV_UNO_CALL, 1), "expected turn of seat 0")


def test_uno_penalty_too_short():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=0, nth=1)),
           r"expected draw by seat 0 \(uno, card 2 of 2\)")


def test_uno_miss_caught_by_the_player_itself():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_UNO_MISS), a=0),
           "the catching seat must be another seat")


def test_draw_while_holding_a_legal_card():
    trace = quick_win()
    at = find(trace, codes.EV_PLAY, seat=0)
    broken(changed(trace, at, kind=codes.EV_DRAW, a=card("G5"), b=codes.DRAW_NORMAL),
           r"it holds legal cards \(R2\) and may not draw")


def test_playable_drawn_card_must_be_played():
    trace = action_cards()
    at = find(trace, codes.EV_PLAY, seat=2)
    broken(changed(trace, at, kind=codes.EV_PASS, a=-1),
           "expected play of G9 by seat 2: the drawn card is playable")


def test_unplayable_drawn_card_is_followed_by_a_pass():
    trace = capped_round_then_win()
    at = find(trace, codes.EV_PASS)
    broken(changed(trace, at, kind=codes.EV_PLAY, a=card("R2")), r"expected pass of seat 1")


def test_turn_without_play_or_draw():
    trace = quick_win()
    at = find(trace, codes.EV_PLAY, seat=0)
    broken(changed(trace, at, kind=codes.EV_PASS, a=-1), "expected a play or a draw by seat 0")


def test_play_after_a_draw_must_be_the_drawn_card():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=2), a=card("Y1")),
           "expected play of G9 by seat 2")


def test_wrong_colour_choice():
    trace = action_cards()
    at = find(trace, codes.EV_COLOUR, seat=1)
    broken(changed(trace, at, a=3), "must name green")


def test_colour_must_follow_a_black_card():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_COLOUR, seat=1)),
           "expected colour named by seat 1 after wild")


def test_colour_after_a_coloured_card():
    trace = quick_win()
    at = find(trace, codes.EV_TURN, nth=1)
    broken(inserted(trace, at, codes.EV_COLOUR, 1, 0), "expected turn of seat 0")


def test_acceptable_first_card_is_not_returned():
    trace = quick_win()
    at = find(trace, codes.EV_FLIP) + 1
    broken(inserted(trace, at, codes.EV_FLIP_RETURN, a=card("R5")),
           "R5 must stay: it is an acceptable first card")


def test_draw_four_first_card_goes_back():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_FLIP_RETURN)), r"expected flip_return of \+4")


def test_first_card_stays_when_no_acceptable_card_is_left():
    trace = number_only_no_number_left()
    at = find(trace, codes.EV_FLIP) + 1
    broken(inserted(trace, at, codes.EV_FLIP_RETURN, a=card("R-skip")),
           "must stay: no acceptable card is left in the draw pile")


def test_staying_black_first_card_has_no_effect():
    trace = draw_four_first_card_stays()
    at = find(trace, codes.EV_TURN)
    broken(inserted(trace, at, codes.EV_SKIP, 1), "expected turn of seat 1")
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=1), "must name red")


def test_first_card_effect_not_applied_under_number_only():
    trace = number_only_no_number_left()
    at = find(trace, codes.EV_TURN)
    broken(inserted(trace, at, codes.EV_SKIP, 1), "expected turn of seat 1")


def test_first_card_draw_two_penalty():
    trace = first_draw_two()
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=2)), r"card 2 of 2")


def test_reverse_with_two_players_is_a_skip():
    trace = first_reverse_two_players()
    at = find(trace, codes.EV_SKIP)
    broken(changed(trace, at, kind=codes.EV_DIRECTION, seat=-1, a=-1), "expected skip of seat 1")


def test_wrong_direction():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_DIRECTION), a=1), "expected direction -1")


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


def test_wrong_reshuffle_count():
    trace = piles_run_dry()
    broken(changed(trace, find(trace, codes.EV_RESHUFFLE), a=2),
           "reshuffle moves a = 2 cards, but the discard pile holds 1 below its top card")


def test_missing_reshuffle():
    trace = piles_run_dry()
    broken(deleted(trace, find(trace, codes.EV_RESHUFFLE)), "expected reshuffle")


def test_wrong_draw_fail_reason():
    trace = piles_run_dry()
    broken(changed(trace, find(trace, codes.EV_DRAW_FAIL), b=codes.DRAW_NORMAL),
           "expected draw reason draw_two")


def test_draw_fail_while_the_draw_pile_holds_cards():
    trace = piles_run_dry()
    broken(changed(trace, find(trace, codes.EV_DRAW), kind=codes.EV_DRAW_FAIL, a=-1),
           "the draw pile still holds 1 cards")


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


def test_wrong_dealer():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), seat=0),
           "round_start of round 2 dealt by seat 1")


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


def test_deck_must_match_the_rules():
    trace = quick_win()
    counts = trace.deck_counts.copy()
    counts[card("R1")] += 1
    with pytest.raises(RefereeError, match="deck_counts differs"):
        check_trace(dataclasses.replace(trace, deck_counts=counts))


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
