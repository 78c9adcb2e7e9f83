"""Scripted rule tests: a fixed deal for every rule option value.

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the
exact events that docs/engine.md prescribes; the referee checks every trace as well. RULES.md ids
are in the test names' comments. The last tests walk the rule table: every enum/bool value must
be covered by scripted tests.
"""

from __future__ import annotations

import pytest
from cases import draws, play, run, scores, seat, small_deck

from unostats import rules as rules_mod
from unostats.rules import RuleError, RuleSet

# ---------------------------------------------------------------- S1, S3: deal and dealer


# ---------------------------------------------------------------- S2: the first discard


# ---------------------------------------------------------------- P1: matching


def test_skip_and_matching_by_symbol():  # P1, A1 Skip
    hands = {1: ["R-skip", "Y1"], 2: ["G5", "B6"], 0: ["G-skip", "G7"]}
    game = play(3, hands, "R4")
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
        ("turn", 0), ("play", 0, "G-skip"), ("skip", 1),  # same symbol
        ("turn", 2), ("play", 2, "G5"),
        ("turn", 0), ("play", 0, "G7"),
    ])
    assert game.ending() == [("round_end", 0, "win", 7), *scores((0, 7), (1, 0), (6, 0))]
    assert game.result.rounds[0].skips == 2


# ---------------------------------------------------------------- P2, P4: Wild Draw Four

PLUS_FOUR_HANDS = {1: ["R3", "+4"], 0: ["Y1", "Y2"]}  # seat 1 holds red, the current colour
PLUS_FOUR_PLAYED_AT_ONCE = [
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
    *draws(0, ["B6", "B7", "B8", "B9"], "draw_four"), ("skip", 0),
    ("turn", 1), ("play", 1, "R3"),
]


def test_wild_draw_four_restricted_without_bluff_waits_until_the_colour_is_gone():  # P2
    # high_value_first would play the +4 (50 points) first if it were legal.
    game = play(2, PLUS_FOUR_HANDS, "R5", ["Y3", "B6", "B7", "B8", "B9"],
                seats={1: seat("high_value_first", bluff=0.0), 0: seat(challenge=1.0)},
                wild_draw_four="no_matching_colour")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R3"),
        ("turn", 0), ("draw", 0, "Y3", "normal"), ("play", 0, "Y3"),
        # No yellow card left in hand: the +4 is legal now. It is the last card, so the next
        # player draws 4 before counting, and nobody may challenge it.
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
        *draws(0, ["B6", "B7", "B8", "B9"], "draw_four"),
    ])
    assert game.ending() == [("round_end", 1, "win", 33), *scores((33, 0), (0, 33))]


@pytest.mark.parametrize(("rule", "bluff", "challenge"), [
    ("no_matching_colour", 1.0, 0.0),  # a certain bluff: played while holding red
    ("free", 0.0, 1.0),  # free: legal at any time, and never challenged
], ids=["no_matching_colour-bluff", "free"])
def test_wild_draw_four_played_while_holding_the_colour(rule, bluff, challenge):  # P2, A1
    game = play(2, PLUS_FOUR_HANDS, "R5", ["B6", "B7", "B8", "B9"],
                seats={1: seat("high_value_first", bluff=bluff), 0: seat(challenge=challenge)},
                wild_draw_four=rule)
    game.expect(PLUS_FOUR_PLAYED_AT_ONCE)
    assert game.ending() == [("round_end", 1, "win", 33), *scores((33, 0), (0, 33))]
    assert game.result.rounds[0].challenges == 0


def test_challenge_official_guilty_player_draws_four_and_victim_plays():  # P4 official
    game = play(2, {1: ["R3", "+4"], 0: ["R1", "R2"]}, "R5", ["B6", "B7", "B8", "B9"],
                seats={1: seat("high_value_first", bluff=1.0), 0: seat(challenge=1.0)},
                challenge="official")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
        ("challenge", 0, 1, "guilty"), *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
        ("turn", 0), ("play", 0, "R1"),  # the victim takes its turn normally
        ("turn", 1), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "R2"),
    ])
    assert game.ending() == [("round_end", 0, "win", 30), *scores((0, 30), (30, 0))]
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.challenges_won, rnd.penalty_cards, rnd.skips) == (1, 1, 4, 0)


def test_challenge_official_innocent_challenger_draws_six_and_is_skipped():  # P4 official
    # Y5 matches the R5 by number, but guilt is about the colour: seat 1 holds no red card.
    game = play(2, {1: ["Y5", "+4"], 0: ["R1", "R2"]}, "R5",
                ["B1", "B2", "B3", "B4", "B5", "B6"],
                seats={1: seat("high_value_first"), 0: seat(challenge=1.0)})
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
        ("challenge", 0, 1, "innocent"),
        *draws(0, ["B1", "B2", "B3", "B4", "B5", "B6"], "challenge"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 24), *scores((24, 0), (0, 24))]
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.challenges_won, rnd.penalty_cards) == (1, 0, 6)


def test_no_challenge_victim_draws_four_and_is_skipped():  # P4, A1
    game = play(2, {1: ["Y5", "+4"], 0: ["R1", "R2"]}, "R5", ["B1", "B2", "B3", "B4"],
                seats={1: seat("high_value_first"), 0: seat(challenge=0.0)})
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
        *draws(0, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 13), *scores((13, 0), (0, 13))]
    assert game.result.rounds[0].challenges == 0


# ---------------------------------------------------------------- P5: no legal card


def test_one_may_play_a_drawn_wild_draw_four_is_played():  # P5, P2
    game = play(2, {1: ["Y7"], 0: ["G3"]}, "R5", ["+4", "B1", "B2", "B3", "B4"],
                seats={0: seat(challenge=1.0)})
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("draw", 1, "+4", "normal"), ("play", 1, "+4"), ("colour", 1, "yellow"),
        ("challenge", 0, 1, "innocent"),
    ], prefix=True)


# ---------------------------------------------------------------- P6: empty draw pile


# ---------------------------------------------------------------- P7: colour choice


# ---------------------------------------------------------------- A1: action cards


def test_reverse_three_players_flips_the_direction():  # A1 Reverse
    hands = {1: ["R-reverse", "Y5"], 2: ["R5", "B6"], 0: ["R7", "G8"]}
    game = play(3, hands, "R4")
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 2), ("play", 2, "R5"),
        ("turn", 1), ("play", 1, "Y5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 14), *scores((8, 0), (0, 14), (6, 0))]
    assert game.result.rounds[0].direction_changes == 1


def test_reverse_twice_restores_clockwise_play():  # A1 Reverse
    hands = {1: ["R-reverse", "G1"], 2: ["B5", "B6"], 0: ["G-reverse", "G7"]}
    game = play(3, hands, "R4")
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
        ("turn", 0), ("play", 0, "G-reverse"), ("direction", 1),
        ("turn", 1), ("play", 1, "G1"),
    ])
    assert game.ending() == [("round_end", 1, "win", 18), *scores((7, 0), (0, 18), (11, 0))]
    assert game.result.rounds[0].direction_changes == 2


def test_reverse_two_players_acts_as_skip():  # A1 Reverse, 2 players
    game = play(2, {1: ["R-reverse", "R5"], 0: ["G1", "G2"]}, "R4",
                seats={1: seat("high_value_first")})
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R-reverse"), ("skip", 0),
        ("turn", 1), ("play", 1, "R5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 3), *scores((3, 0), (0, 3))]
    assert game.result.rounds[0].direction_changes == 0


def test_draw_two_next_player_draws_two_and_is_skipped():  # A1 Draw Two
    hands = {1: ["R+2", "Y5"], 2: ["G1", "G2"], 0: ["B1", "R5"]}
    game = play(3, hands, "R4", ["B7", "B8"])
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R+2"), *draws(2, ["B7", "B8"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R5"),
        ("turn", 1), ("play", 1, "Y5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 19), *scores((1, 0), (0, 19), (18, 0))]


def test_wild_draw_four_next_player_draws_four_and_is_skipped():  # A1 Wild Draw Four
    hands = {1: ["+4", "Y5"], 2: ["G1", "G2"], 0: ["B1", "Y3"]}
    game = play(3, hands, "R4", ["B6", "B7", "B8", "B9"], seats={1: seat("high_value_first")})
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "yellow"),
        *draws(2, ["B6", "B7", "B8", "B9"], "draw_four"), ("skip", 2),
        ("turn", 0), ("play", 0, "Y3"),
        ("turn", 1), ("play", 1, "Y5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 34), *scores((1, 0), (0, 34), (33, 0))]


# ---------------------------------------------------------------- U1: UNO call

UNO_HANDS = {1: ["R1", "G5"], 0: ["Y7", "Y8"]}
UNO_OPENING = [("flip", "R4"), ("turn", 1), ("play", 1, "R1")]
PENALTY_CARDS = ["B6", "B7", "B8", "B9", "B5"]


@pytest.mark.parametrize(("penalty", "forget", "catch", "after_play"), [
    (2, 1.0, 1.0, [("uno_miss", 1, 0), *draws(1, PENALTY_CARDS[:2], "uno")]),
    (2, 0.0, 1.0, [("uno_call", 1)]),
    (2, 1.0, 0.0, [("uno_miss", 1, -1)]),
    (5, 1.0, 1.0, [("uno_miss", 1, 0), *draws(1, PENALTY_CARDS, "uno")]),
    (0, 1.0, 1.0, []),
], ids=["caught-penalty-2", "called", "nobody-catches", "caught-penalty-5", "no-uno-rule"])
def test_uno_call_and_penalty(penalty, forget, catch, after_play):  # U1
    game = play(2, UNO_HANDS, "R4", PENALTY_CARDS, uno_penalty=penalty,
                seats={1: seat(forget_uno=forget), 0: seat(catch_uno=catch)})
    game.expect([*UNO_OPENING, *after_play, ("turn", 0)], prefix=True)
    if penalty == 0:
        assert not game.kinds() & {"uno_call", "uno_miss"}


@pytest.mark.parametrize(("catch2", "catch0", "catcher"), [
    (1.0, 1.0, 2), (0.0, 1.0, 0), (1.0, 0.0, 2), (0.0, 0.0, -1),
])
def test_uno_catchers_are_asked_in_playing_order_from_the_next_seat(catch2, catch0, catcher):
    hands = {1: ["R1", "G5"], 2: ["Y7", "Y8"], 0: ["B7", "B8"]}
    game = play(3, hands, "R4", ["B6", "B9"], uno_penalty=2,
                seats={1: seat(forget_uno=1.0), 2: seat(catch_uno=catch2),
                       0: seat(catch_uno=catch0)})
    penalty = draws(1, ["B6", "B9"], "uno") if catcher >= 0 else []
    game.expect([*UNO_OPENING, ("uno_miss", 1, catcher), *penalty, ("turn", 2)], prefix=True)


def test_uno_catchers_are_asked_before_a_reverse_takes_effect():  # U1 then A1
    hands = {1: ["R-reverse", "G5"], 2: ["Y7", "Y8"], 0: ["B7", "B8"]}
    game = play(3, hands, "R4", ["B6", "B9"], uno_penalty=2,
                seats={1: seat(forget_uno=1.0), 2: seat(catch_uno=1.0), 0: seat(catch_uno=1.0)})
    game.expect([*UNO_OPENING[:2], ("play", 1, "R-reverse"), ("uno_miss", 1, 2),
                 *draws(1, ["B6", "B9"], "uno"), ("direction", -1), ("turn", 0)], prefix=True)


def test_uno_catchers_are_asked_counter_clockwise_when_play_goes_that_way():  # U1
    hands = {1: ["Y7", "Y8"], 2: ["B7", "B8"], 0: ["R1", "G5"]}
    game = play(3, hands, "R-reverse", ["B6", "B9"], uno_penalty=2,
                seats={0: seat(forget_uno=1.0), 1: seat(catch_uno=1.0), 2: seat(catch_uno=1.0)})
    game.expect([("flip", "R-reverse"), ("direction", -1), ("turn", 0), ("play", 0, "R1"),
                 ("uno_miss", 0, 2), *draws(0, ["B6", "B9"], "uno"), ("turn", 2)], prefix=True)


def test_uno_penalty_is_drawn_before_the_cards_effect():  # U1 then A1
    game = play(2, {1: ["R+2", "G5"], 0: ["Y7", "Y8"]}, "R4", ["B6", "B7", "B8", "B9"],
                uno_penalty=2, seats={1: seat(forget_uno=1.0), 0: seat(catch_uno=1.0)})
    game.expect([
        ("flip", "R4"), ("turn", 1), ("play", 1, "R+2"),
        ("uno_miss", 1, 0), *draws(1, ["B6", "B7"], "uno"),
        *draws(0, ["B8", "B9"], "draw_two"), ("skip", 0),
        ("turn", 1),
    ], prefix=True)


# ---------------------------------------------------------------- R1, R2: scoring


def test_winner_scores_the_other_hands_and_a_final_plus_four_is_drawn_first():  # R1, R2
    hands = {1: ["R1", "R2", "+4"], 2: ["Y-skip", "G7", "B+2"], 0: ["Y5", "G-reverse", "B8"]}
    game = play(3, hands, "R4", ["Y9", "G9", "B9", "Y6", "wild", "+4", "R-skip", "B3"],
                seats={2: seat(challenge=1.0)}, target_score=200, max_rounds=5)
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R1"),  # the +4 may not be played while holding red
        ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
        ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "R2"),
        ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
        # Last card: the next player draws 4 before counting; no challenge, no skip.
        *draws(2, ["wild", "+4", "R-skip", "B3"], "draw_four"),
    ])
    # Seat 0: 5 + 20 + 8 + 9 + 6; seat 2: 20 + 7 + 20 + 9 + 9 + 50 + 50 + 20 + 3.
    assert game.ending() == [("round_end", 1, "win", 236), *scores((48, 0), (0, 236), (188, 0))]
    assert game.game_end == ("game_end", 1, "target")
    assert (game.result.winner_seat, game.result.ended_by) == (1, "target")
    assert game.result.final_scores == (0, 236, 0)


def test_card_values_numbers_actions_and_black_cards():  # R1 (D2 values)
    hands = {1: ["R-skip", "R-reverse", "Y-reverse", "Y9"], 0: ["Y7", "G+2", "wild", "+4"]}
    game = play(2, hands, "R4")
    game.expect([
        ("flip", "R4"),
        ("turn", 1), ("play", 1, "R-skip"), ("skip", 0),
        ("turn", 1), ("play", 1, "R-reverse"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y-reverse"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y9"),
    ])
    assert game.ending() == [("round_end", 1, "win", 127), *scores((127, 0), (0, 127))]


def test_a_final_draw_two_is_drawn_by_the_next_player_before_counting():  # R1
    game = play(2, {1: ["R+2"], 0: ["Y7"]}, "R4", ["B5", "B6"])
    game.expect([("flip", "R4"), ("turn", 1), ("play", 1, "R+2"),
                 *draws(0, ["B5", "B6"], "draw_two")])
    assert game.ending() == [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))]
    assert game.result.rounds[0].skips == 0


@pytest.mark.parametrize(("target", "rounds", "final"), [(14, 3, (7, 14)), (15, 5, (14, 21))])
def test_game_ends_when_a_score_reaches_the_target(target, rounds, final):  # R2
    # The first player always holds R5 and wins 7 points; the dealer alternates.
    game = run(2, ["R5", "Y7", "R2"], hand_size=1, target_score=target, max_rounds=10)
    assert len(game.result.rounds) == rounds
    assert [r.winner_seat for r in game.result.rounds] == [1, 0, 1, 0, 1][:rounds]
    assert game.game_end == ("game_end", 1, "target")
    assert (game.result.winner_seat, game.result.ended_by) == (1, "target")
    assert game.result.final_scores == final
    assert game.ending(rounds) == [("round_end", 1, "win", 7), *scores((7, final[0]),
                                                                        (0, final[1]))]


# ---------------------------------------------------------------- caps


def test_max_turns_caps_the_round_with_no_winner_and_no_points():  # max_turns
    stuck = ["B9", "B4", "Y3", "G6", "B5", "Y4", "G5", "B6", "Y5", "G4"]  # no red, no 2
    game = play(2, {1: ["Y7"], 0: ["G8"]}, "R2", stuck, max_turns=10)
    expected = [("flip", "R2")]
    for turn, name in enumerate(stuck):
        s = 1 - turn % 2
        expected += [("turn", s), ("draw", s, name, "normal"), ("pass", s)]
    game.expect(expected)
    assert game.ending() == [("round_end", -1, "cap", 0), *scores((32, 0), (34, 0))]
    assert game.game_end == ("game_end", -1, "cap")
    rnd = game.result.rounds[0]
    assert (rnd.ended_by, rnd.winner_seat, rnd.turns, rnd.cards_left) == ("cap", None, 10, (6, 6))


def test_a_win_on_the_last_allowed_turn_is_a_win():  # max_turns boundary
    hands = {1: ["G9", "G9", "B9", "B9", "Y9"], 0: ["R3", "R5", "R6", "R7", "R8"]}
    stuck = ["Y1", "Y2", "B1", "B2", "G1"]  # never red, never the rank on top
    game = play(2, hands, "R4", stuck, max_turns=10)
    expected = [("flip", "R4")]
    for name, red in zip(stuck, ["R3", "R5", "R6", "R7", "R8"], strict=True):
        expected += [("turn", 1), ("draw", 1, name, "normal"), ("pass", 1),
                     ("turn", 0), ("play", 0, red)]
    game.expect(expected)
    assert game.ending() == [("round_end", 0, "win", 52), *scores((0, 52), (52, 0))]
    assert (game.result.rounds[0].turns, game.result.rounds[0].ended_by) == (10, "win")


# ---------------------------------------------------------------- a black first card that stays

# 7 cards: the four zeros and three +4s. With 2 hands of 3 dealt, every acceptable first card is
# in a hand, so the flipped +4 stays (S2) with no effect and no colour named. docs/engine.md: a
# restricted +4 is legal "only when the player holds no card of the current colour", and guilt
# is holding "a card of the colour that was current". There is no current colour here (colours
# are red, yellow, green and blue), so the +4 is legal and an innocent play: black cards never
# count as holding the current "colour" (else the +4 in hand would make itself illegal, nobody
# could ever play and the round would run into the turn cap).
BLACK_FIRST = dict(hands={1: ["R0", "Y0", "+4"], 0: ["G0", "B0", "+4"]}, flip="+4",
                   deck=small_deck(zero=1, wild_draw_four=3), max_turns=10)
# The table events of that deal when seat 1's +4 is not challenged (restricted or free).
BLACK_FIRST_PLAYED = [
    ("flip", "+4"),
    ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
    ("reshuffle", 1), ("draw", 0, "+4", "draw_four"), ("draw_fail", 0, "draw_four"),
    ("skip", 0),
    ("turn", 1), ("play", 1, "R0"),
    ("turn", 0), ("play", 0, "G0"),
    ("turn", 1), ("play", 1, "Y0"),
]


def test_restricted_plus_four_is_legal_when_the_first_card_is_a_plus_four_that_stays():
    game = play(2, **BLACK_FIRST, seats={1: seat(bluff=0.0), 0: seat(challenge=0.0)})
    game.expect(BLACK_FIRST_PLAYED)


def test_plus_four_on_a_plus_four_first_card_that_stays_is_innocent():
    game = play(2, **BLACK_FIRST, seats={1: seat(bluff=1.0), 0: seat(challenge=1.0)})
    game.expect([("flip", "+4"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
                 ("challenge", 0, 1, "innocent")], prefix=True)


def test_free_plus_four_is_played_when_the_first_card_is_a_plus_four_that_stays():  # S2, P2
    game = play(2, **BLACK_FIRST, wild_draw_four="free")
    game.expect(BLACK_FIRST_PLAYED)
    assert game.ending() == [("round_end", 1, "win", 100), *scores((100, 0), (0, 100))]


# ---------------------------------------------------------------- the rule table

# Every value of every enum/bool rule, with the tests above that script it. When the rule table
# gains another value, test_every_value_has_scripted_tests fails until the value is added here
# (with its scripted tests).
SCRIPTED = {
    "first_card": {"official", "number_only", "extreme"},
    "wild_draw_four": {"no_matching_colour", "free"},
    "wild": {"free", "no_matching_colour"},
    "challenge": {"official", "house", "extreme"},
    "draw": {"one_may_play", "one_then_pass", "two", "until_playable"},
    "stack_draw_two": {"none", "sum", "pass_on"},
    "stack_draw_four": {"none", "sum", "pass_on"},
    "reverse_deflects": {"none", "back", "extreme"},
    "jump_in": {"none", "numbers", "all_but_draw_four", "extreme"},
    "multi_play": {"none", "same_rank", "two_matching"},
    "silence": {"none", "seven", "two", "black"},  # test_rules_extras_scripted.py
    "scoring": {"winner_takes_all", "own_points_low_wins", "own_points_lose_at", "card_count",
                "lazy"},
    "round_end": {"first_out", "to_the_last", "seven_rounds"},
    # issue 5 values scripted in tests/test_rules_extras_scripted.py
    "blank_effect": {"none", "draw_ten"},
    "custom_wild_effect": {"everyone_draws_two", "swap_one_with_next"},
    # switches whose "true" is scripted in tests/test_rules_variants_scripted.py
    "colour_cycle": {False, True},
    "double_action": {False, True},
    "draw_two_on_draw_four": {False, True},
    "stack_skip": {False, True},
    "skip_escape": {False, True},
    "eight_cover": {False, True},
    "seven_zero": {False, True},
    "five_swap": {False, True},
    "h2o_bonus": {False, True},
}
BOOL_RULES = [o.key for o in rules_mod.RULE_OPTIONS if o.kind == "bool"]


def test_h2o_bonus_needs_own_points_scoring():
    with pytest.raises(RuleError, match="h2o_bonus.*own_points_low_wins or own_points_lose_at"):
        RuleSet.from_mapping({"h2o_bonus": True})
    assert RuleSet.from_mapping({"h2o_bonus": True, "scoring": "own_points_lose_at"})


def test_every_value_has_scripted_tests():
    for opt in rules_mod.RULE_OPTIONS:
        if opt.kind == "int":
            continue
        values = set(opt.values)
        scripted = SCRIPTED.get(opt.key, set())
        assert values == scripted, (
            f"{opt.key}: values {sorted(values)}, scripted {sorted(scripted)}: script the others "
            f"and list them in SCRIPTED")
        if opt.kind == "enum":
            for value in values:
                RuleSet.from_mapping({opt.key: value})  # accepted
