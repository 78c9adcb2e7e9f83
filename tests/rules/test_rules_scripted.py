"""Scripted rule tests: a fixed deal for every rule option value.

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the
exact events that docs/engine.md prescribes; the referee checks every trace as well. RULES.md ids
are in the test names' comments. The last tests walk the rule table: every enum/bool value must
be covered by scripted tests.
"""

from __future__ import annotations

import pytest
from cases import draws, play, run, scores, seat

from unostats import rules as rules_mod
from unostats.rules import RuleError, RuleSet

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
