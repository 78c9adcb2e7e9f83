"""Scripted rule tests for the turn variants of docs/engine.md ("Turn variants"), written ahead of
the engine.

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the exact
events docs/engine.md prescribes; the referee checks every trace as well. A test is skipped until
the engine implements every rule value it needs (``rules.RULES_BY_KEY[key].is_implemented``), so
each one runs by itself once its value is switched on in rules.py. Where an option is a switch the
same deal is also played with it off; those cases run today.

The expected events were checked against the referee by building each game by hand as a trace.
"""

from __future__ import annotations

import pytest
from scripted import draws, play, scores, seat

from unostats import cards
from unostats import rules as rules_mod


def implemented(key: str, value) -> bool:
    return rules_mod.RULES_BY_KEY[key].is_implemented(value)


def needs(**rules) -> pytest.MarkDecorator:
    """Skip until the engine implements every one of these rule values."""
    missing = [f"{key}: {str(value).lower() if isinstance(value, bool) else value}"
               for key, value in rules.items() if not implemented(key, value)]
    return pytest.mark.skipif(bool(missing),
                              reason="not implemented by the engine yet: " + ", ".join(missing))


# ---------------------------------------------------------------- S2 first_card: extreme

# The first player (seat 1) holds only green; seat 2 holds a 1 and the dealer a 2 of every colour,
# so whatever colour is named, each of them plays the one card of that colour.
FIRST_CARD_HANDS = {1: ["G3", "G4", "G6", "G7"], 2: ["R1", "Y1", "G1", "B1"],
                    0: ["R2", "Y2", "G2", "B2"]}
FIRST_CARD_DRAWS = ["Y9", "Y8", "B9", "B8", "R9", "R8", "R7", "R6", "R4", "R3", "Y7", "Y6", "Y5",
                    "Y4", "Y3", "B7", "B6", "B5", "B4", "B3"]


@pytest.mark.parametrize("first", ["wild", "+4"])
@needs(first_card="extreme")
def test_first_card_extreme_black_card_first_player_draws_four_and_dealer_names_colour(first):
    game = play(3, FIRST_CARD_HANDS, first, FIRST_CARD_DRAWS, first_card="extreme")
    table = game.table()
    # The black card stays (even a +4): seat 1 draws 4 and is skipped, without a turn.
    assert table[:6] == [("flip", first), *draws(1, ["Y9", "Y8", "B9", "B8"], "draw_four"),
                         ("skip", 1)]
    # The dealer names a colour at random: any of the four.
    kind, named_by, colour = table[6]
    assert (kind, named_by) == ("colour", 0) and colour in cards.COLOURS
    # Play then follows that colour: seat 2 plays its 1, the dealer its 2 of the named colour.
    letter = "RYGB"[cards.COLOURS.index(colour)]
    assert table[7:11] == [("turn", 2), ("play", 2, f"{letter}1"),
                           ("turn", 0), ("play", 0, f"{letter}2")]
    rnd = game.result.rounds[0]
    assert (rnd.first_seat, rnd.skips, rnd.penalty_cards) == (2, 1, 4)


@needs(first_card="official")
def test_first_card_official_same_deal_first_player_names_the_colour_of_a_wild():  # S2 switch
    game = play(3, FIRST_CARD_HANDS, "wild", FIRST_CARD_DRAWS, first_card="official")
    game.expect([
        ("flip", "wild"), ("colour", 1, "green"),
        ("turn", 1), ("play", 1, "G3"),
        ("turn", 2), ("play", 2, "G1"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G4"),
        ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
        ("turn", 0), ("draw", 0, "Y8", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G6"),
        ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
        ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G7"),
    ])
    assert game.ending() == [("round_end", 1, "win", 43), *scores((22, 0), (0, 43), (21, 0))]


# ---------------------------------------------------------------- P3 wild: no_matching_colour

WILD_AT_ONCE = [
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
    ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "R3"),
]
WILD_WAITS = [
    ("flip", "R5"),
    ("turn", 1), ("play", 1, "R3"),  # the Wild is not legal while seat 1 holds red
    ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
    # No red card left: the Wild is legal now. It is the last card: nobody may challenge it.
    ("turn", 1), ("play", 1, "wild"), ("colour", 1, "red"),
]


@pytest.mark.parametrize(("wild", "bluff", "challenge", "expected"), [
    # free: legal at any time, and never challenged
    pytest.param("free", 0.0, 1.0, WILD_AT_ONCE, marks=needs(wild="free"), id="free"),
    pytest.param("no_matching_colour", 1.0, 0.0, WILD_AT_ONCE,
                 marks=needs(wild="no_matching_colour"), id="restricted-bluff"),
    pytest.param("no_matching_colour", 0.0, 1.0, WILD_WAITS,
                 marks=needs(wild="no_matching_colour"), id="restricted-no-bluff"),
])
def test_wild_restricted_like_a_wild_draw_four(wild, bluff, challenge, expected):  # P3, P2
    # high_value_first plays the Wild (50 points) first whenever it may.
    game = play(2, {1: ["R3", "wild"], 0: ["Y1", "Y2"]}, "R5", ["B6"],
                seats={1: seat("high_value_first", bluff=bluff), 0: seat(challenge=challenge)},
                wild=wild)
    game.expect(expected)
    assert game.ending() == [("round_end", 1, "win", 9), *scores((9, 0), (0, 9))]
    assert game.result.rounds[0].challenges == 0


@pytest.mark.parametrize(("hands", "challenge", "after_play", "ending"), [
    # Guilty (seat 1 held red): seat 1 draws 4, the Wild stays and seat 0 plays on it.
    ({1: ["R3", "wild"], 0: ["R1", "R2"]}, 1.0, [
        ("colour", 1, "red"), ("challenge", 0, 1, "guilty"),
        *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
        ("turn", 0), ("play", 0, "R1"),
        ("turn", 1), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "R2"),
    ], [("round_end", 0, "win", 30), *scores((0, 30), (30, 0))]),
    # Innocent (Y5 matches by number, but seat 1 held no red): seat 0 draws 2, then takes its
    # turn (not skipped, unlike a +4).
    ({1: ["Y5", "wild"], 0: ["R1", "R2"]}, 1.0, [
        ("colour", 1, "yellow"), ("challenge", 0, 1, "innocent"),
        *draws(0, ["B6", "B7"], "challenge"),
        ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "Y5"),
    ], [("round_end", 1, "win", 24), *scores((24, 0), (0, 24))]),
    # Not challenged: a Wild carries no penalty.
    ({1: ["Y5", "wild"], 0: ["R1", "R2"]}, 0.0, [
        ("colour", 1, "yellow"),
        ("turn", 0), ("draw", 0, "B6", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "Y5"),
    ], [("round_end", 1, "win", 9), *scores((9, 0), (0, 9))]),
], ids=["guilty", "innocent", "not-challenged"])
@needs(wild="no_matching_colour", challenge="official")
def test_challenge_of_a_restricted_wild_official(hands, challenge, after_play, ending):  # P3, P4
    game = play(2, hands, "R5", ["B6", "B7", "B8", "B9"],
                seats={1: seat("high_value_first", bluff=1.0), 0: seat(challenge=challenge)},
                wild="no_matching_colour")
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "wild"), *after_play])
    assert game.ending() == ending
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.challenges_won) == (
        (0, 0) if challenge == 0.0 else (1, int(after_play[1][3] == "guilty")))


# ---------------------------------------------------------------- P4 challenge: house, extreme

# Seat 1 bluffs on Y5 (it holds Y3) and names red (red and yellow tie: the lower index). Caught,
# it takes the card back: Y5 is the top card again and yellow the colour, so seat 0 may play its
# Y-skip, which a red black card would not allow.
TAKE_BACK_HANDS = {1: ["Y3", "R4", "BLACK"], 0: ["Y-skip", "G-skip", "G1"]}
TAKE_BACK_DRAWS = ["B6", "B7", "B8", "B9", "G9"]


def _take_back_hands(black: str) -> dict[int, list[str]]:
    return {s: [black if n == "BLACK" else n for n in h] for s, h in TAKE_BACK_HANDS.items()}


def _black_rules(black: str, challenge: str) -> dict:
    rules = {"challenge": challenge}
    if black == "wild":
        rules["wild"] = "no_matching_colour"
    return rules


@pytest.mark.parametrize(("black", "challenge"), [
    pytest.param(black, rule, marks=needs(**_black_rules(black, rule)), id=f"{black}-{rule}")
    for black in ("+4", "wild") for rule in ("house", "extreme")
])
def test_challenge_guilty_takes_the_card_back_and_draws_four(black, challenge):  # P4, P2, P3
    game = play(2, _take_back_hands(black), "Y5", TAKE_BACK_DRAWS,
                seats={1: seat("high_value_first", bluff=1.0), 0: seat(challenge=1.0)},
                **_black_rules(black, challenge))
    game.expect([
        ("flip", "Y5"),
        ("turn", 1), ("play", 1, black), ("colour", 1, "red"),
        ("challenge", 0, 1, "guilty"), ("take_back", 1, black),
        *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
        # Y5 and yellow are current again; the challenger takes its turn normally.
        ("turn", 0), ("play", 0, "Y-skip"), ("skip", 1),
        ("turn", 0), ("play", 0, "G-skip"), ("skip", 1),
        ("turn", 0), ("play", 0, "G1"),
    ])
    # Seat 1 holds its black card again: 3 + 4 + 50 + the four blue cards.
    assert game.ending() == [("round_end", 0, "win", 87), *scores((0, 87), (87, 0))]
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.challenges_won, rnd.penalty_cards) == (1, 1, 4)


@needs(challenge="official")
def test_challenge_official_same_deal_the_guilty_card_stays():  # P4 official, for contrast
    game = play(2, _take_back_hands("+4"), "Y5", [*TAKE_BACK_DRAWS, "B5", "Y4", "G4"],
                seats={1: seat("high_value_first", bluff=1.0), 0: seat(challenge=1.0)})
    # The +4 stays and red stays current: seat 0 cannot play its Y-skip and draws.
    game.expect([
        ("flip", "Y5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "red"),
        ("challenge", 0, 1, "guilty"), *draws(1, ["B6", "B7", "B8", "B9"], "challenge"),
        ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "R4"),
    ], prefix=True)
    assert "take_back" not in game.kinds()


# Seat 1 holds no red: innocent. The challenger draws 6 (+4; 8 under extreme) and is skipped, or
# 2 (Wild; 8 under extreme) and then takes its turn, with nothing to play.
@pytest.mark.parametrize(("black", "challenge", "count"), [
    pytest.param(black, rule, count, marks=needs(**_black_rules(black, rule)),
                 id=f"{black}-{rule}")
    for black, rule, count in (("+4", "official", 6), ("+4", "house", 6), ("+4", "extreme", 8),
                               ("wild", "official", 2), ("wild", "house", 2),
                               ("wild", "extreme", 8))
])
def test_challenge_innocent_challenger_draws(black, challenge, count):  # P4, P2, P3
    blues = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"]
    game = play(2, {1: ["G3", black], 0: ["R1", "R2"]}, "R5", blues,
                seats={0: seat(challenge=1.0)}, **_black_rules(black, challenge))
    after = ([("skip", 0)] if black == "+4" else
             [("turn", 0), ("draw", 0, blues[count], "normal"), ("pass", 0)])
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, black), ("colour", 1, "green"),
        ("challenge", 0, 1, "innocent"), *draws(0, blues[:count], "challenge"),
        *after,
        ("turn", 1), ("play", 1, "G3"),
    ])
    drawn = count + (black == "wild")
    points = 3 + sum(range(1, drawn + 1))
    assert game.ending() == [("round_end", 1, "win", points), *scores((points, 0), (0, points))]
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.challenges_won, rnd.penalty_cards) == (1, 0, count)


# ---------------------------------------------------------------- P5 draw

DRAW_HANDS = {1: ["Y7"], 0: ["G3"]}


@pytest.mark.parametrize(("rule", "expected", "ending"), [
    pytest.param("one_may_play", [
        ("turn", 1), ("draw", 1, "R3", "normal"), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "G3"),
    ], [("round_end", 0, "win", 7), *scores((0, 7), (7, 0))],
        marks=needs(draw="one_may_play"), id="one_may_play"),
    pytest.param("one_then_pass", [
        ("turn", 1), ("draw", 1, "R3", "normal"), ("pass", 1),  # playable, kept
        ("turn", 0), ("draw", 0, "G5", "normal"), ("pass", 0),  # playable, kept
        ("turn", 1), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "G3"),
        ("turn", 1), ("draw", 1, "G7", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G5"),
    ], [("round_end", 0, "win", 14), *scores((0, 14), (14, 0))],
        marks=needs(draw="one_then_pass"), id="one_then_pass"),
])
def test_draw_one_then_pass_keeps_a_playable_drawn_card(rule, expected, ending):  # P5
    game = play(2, DRAW_HANDS, "R5", ["R3", "G5", "G7"], draw=rule)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


@pytest.mark.parametrize(("rule", "expected", "ending"), [
    pytest.param("one_may_play", [
        ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
        ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
        ("turn", 1), ("draw", 1, "B8", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G3"),
    ], [("round_end", 0, "win", 24), *scores((0, 24), (24, 0))],
        marks=needs(draw="one_may_play"), id="one_may_play"),
    # The second of the two drawn cards is the playable one.
    pytest.param("two", [
        ("turn", 1), ("draw", 1, "B9", "normal"), ("draw", 1, "R3", "normal"), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "G3"),
    ], [("round_end", 0, "win", 16), *scores((0, 16), (16, 0))],
        marks=needs(draw="two"), id="two"),
])
def test_draw_two_plays_the_playable_one_of_the_two(rule, expected, ending):  # P5
    game = play(2, DRAW_HANDS, "R5", ["B9", "R3", "B8"], draw=rule)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


@needs(draw="two")
def test_draw_two_passes_when_neither_is_playable_and_the_policy_picks_among_two():  # P5
    game = play(2, DRAW_HANDS, "R5", ["B9", "B8", "G5", "R3", "Y1", "Y2", "Y4", "Y6"],
                draw="two")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), *draws(1, ["B9", "B8"], "normal"), ("pass", 1),
        # Both drawn cards are playable on R5: first_legal plays the lower card id.
        ("turn", 0), *draws(0, ["G5", "R3"], "normal"), ("play", 0, "R3"),
        ("turn", 1), *draws(1, ["Y1", "Y2"], "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G3"),
        ("turn", 1), *draws(1, ["Y4", "Y6"], "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G5"),
    ])
    assert game.ending() == [("round_end", 0, "win", 37), *scores((0, 37), (37, 0))]
    assert game.result.rounds[0].normal_draws == 8


@pytest.mark.parametrize(("rule", "expected", "ending"), [
    pytest.param("one_may_play", [
        ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
        ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
        ("turn", 1), ("draw", 1, "Y1", "normal"), ("pass", 1),
        ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
        ("turn", 1), ("draw", 1, "B2", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G3"),
        ("turn", 1), ("draw", 1, "B3", "normal"), ("play", 1, "B3"),
        ("turn", 0), ("play", 0, "B8"),
    ], [("round_end", 0, "win", 19), *scores((0, 19), (19, 0))],
        marks=needs(draw="one_may_play"), id="one_may_play"),
    # Three unplayable cards come first, then R3, which is played at once.
    pytest.param("until_playable", [
        ("turn", 1), *draws(1, ["B9", "B8", "Y1", "R3"], "normal"), ("play", 1, "R3"),
        ("turn", 0), ("play", 0, "G3"),
    ], [("round_end", 0, "win", 25), *scores((0, 25), (25, 0))],
        marks=needs(draw="until_playable"), id="until_playable"),
])
def test_draw_until_playable_draws_past_unplayable_cards(rule, expected, ending):  # P5
    game = play(2, DRAW_HANDS, "R5", ["B9", "B8", "Y1", "R3", "B2", "B3"], draw=rule)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


# ---------------------------------------------------------------- P7 colour_cycle


@pytest.mark.parametrize(("cycle", "expected", "ending"), [
    # Clockwise after red comes blue (seat 1 holds green).
    pytest.param(True, [
        ("turn", 1), ("play", 1, "wild"), ("colour", 1, "blue"),
        ("turn", 0), ("play", 0, "B2"),
        ("turn", 1), ("draw", 1, "G2", "normal"), ("play", 1, "G2"),
        ("turn", 0), ("play", 0, "G2"),
    ], [("round_end", 0, "win", 1), *scores((0, 1), (1, 0))],
        marks=needs(colour_cycle=True), id="on"),
    pytest.param(False, [
        ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G1"),
    ], [("round_end", 1, "win", 2), *scores((2, 0), (0, 2))],
        marks=needs(colour_cycle=False), id="off"),
])
def test_colour_cycle_clockwise_sets_the_next_colour(cycle, expected, ending):  # P7
    game = play(2, {1: ["wild", "G1"], 0: ["B2", "G2"]}, "R5", ["G2"], colour_cycle=cycle)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


@pytest.mark.parametrize(("cycle", "expected", "ending"), [
    # Counter-clockwise after red comes yellow (seat 0 holds green).
    pytest.param(True, [
        ("turn", 0), ("play", 0, "wild"), ("colour", 0, "yellow"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 1), ("play", 1, "Y7"),
    ], [("round_end", 1, "win", 5), *scores((4, 0), (0, 5), (1, 0))],
        marks=needs(colour_cycle=True), id="on"),
    pytest.param(False, [
        ("turn", 0), ("play", 0, "wild"), ("colour", 0, "green"),
        ("turn", 2), ("play", 2, "G1"),
        ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "G4"),
    ], [("round_end", 0, "win", 17), *scores((0, 17), (16, 0), (1, 0))],
        marks=needs(colour_cycle=False), id="off"),
])
def test_colour_cycle_counter_clockwise_after_a_reverse(cycle, expected, ending):  # P7, A1
    hands = {1: ["R-reverse", "Y7"], 2: ["Y1", "G1"], 0: ["wild", "G4"]}
    game = play(3, hands, "R5", ["Y9"], colour_cycle=cycle)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
                 *expected])
    assert game.ending() == ending


CYCLE = [  # (direction, colour of the top card, colour the cycle sets)
    (1, "R", "blue"), (1, "B", "green"), (1, "G", "yellow"), (1, "Y", "red"),
    (-1, "R", "yellow"), (-1, "Y", "green"), (-1, "G", "blue"), (-1, "B", "red"),
]


@pytest.mark.parametrize(("direction", "top", "colour"), CYCLE,
                         ids=[f"{'cw' if d == 1 else 'ccw'}-{t}" for d, t, _ in CYCLE])
@needs(colour_cycle=True)
def test_colour_cycle_whole_cycle_both_ways(direction, top, colour):  # P7
    if direction == 1:
        # A Wild as the last card still names a colour: the cycle's, not red for an empty hand.
        game = play(2, {1: ["wild"], 0: ["Y8"]}, f"{top}5", colour_cycle=True)
        game.expect([("flip", f"{top}5"), ("turn", 1), ("play", 1, "wild"),
                     ("colour", 1, colour)])
        assert game.ending() == [("round_end", 1, "win", 8), *scores((8, 0), (0, 8))]
    else:
        # A Reverse turned up first (3 players): counter-clockwise, and the dealer plays first.
        game = play(3, {1: ["Y8"], 2: ["G8"], 0: ["wild"]}, f"{top}-reverse", colour_cycle=True)
        game.expect([("flip", f"{top}-reverse"), ("direction", -1),
                     ("turn", 0), ("play", 0, "wild"), ("colour", 0, colour)])
        assert game.ending() == [("round_end", 0, "win", 16), *scores((0, 16), (8, 0), (8, 0))]


@needs(colour_cycle=True)
def test_colour_cycle_a_wild_first_card_lets_the_first_player_choose():  # P7, S2 official
    game = play(2, {1: ["G3"], 0: ["Y8"]}, "wild", colour_cycle=True)
    game.expect([("flip", "wild"), ("colour", 1, "green"), ("turn", 1), ("play", 1, "G3")])
    assert game.ending() == [("round_end", 1, "win", 8), *scores((8, 0), (0, 8))]


# ---------------------------------------------------------------- A2 double_action


@pytest.mark.parametrize(("double", "expected", "ending"), [
    # Two Reverses cancel: no direction event, seat 2 is next as before.
    pytest.param(True, [
        ("turn", 1), ("play", 1, "R-reverse"), ("play", 1, "R-reverse"),
        ("turn", 2), ("play", 2, "R1"),
        ("turn", 0), ("play", 0, "R3"),
        ("turn", 1), ("play", 1, "Y3"),
    ], [("round_end", 1, "win", 21), *scores((10, 0), (0, 21), (11, 0))],
        marks=needs(double_action=True), id="on"),
    pytest.param(False, [
        ("turn", 1), ("play", 1, "R-reverse"), ("direction", -1),
        ("turn", 0), ("play", 0, "R3"),
        ("turn", 2), ("play", 2, "R1"),
        ("turn", 1), ("play", 1, "R-reverse"), ("direction", 1),
        ("turn", 2), ("play", 2, "R2"),
        ("turn", 0), ("play", 0, "Y2"),
        ("turn", 1), ("play", 1, "Y3"),
    ], [("round_end", 1, "win", 17), *scores((8, 0), (0, 17), (9, 0))],
        marks=needs(double_action=False), id="off"),
])
def test_double_action_two_reverses_cancel(double, expected, ending):  # A2, A1
    hands = {1: ["R-reverse", "R-reverse", "Y3"], 2: ["R1", "R2", "B9"], 0: ["R3", "Y2", "B8"]}
    game = play(3, hands, "R5", double_action=double)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


@pytest.mark.parametrize(("double", "expected", "ending"), [
    # Two Skips skip the next two players: with 3 players play comes back to seat 1.
    pytest.param(True, [
        ("turn", 1), ("play", 1, "R-skip"), ("play", 1, "R-skip"), ("skip", 2), ("skip", 0),
        ("turn", 1), ("play", 1, "G-skip"),
    ], [("round_end", 1, "win", 12), *scores((6, 0), (0, 12), (6, 0))],
        marks=needs(double_action=True), id="on"),
    pytest.param(False, [
        ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
        ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "R-skip"), ("skip", 2),
        ("turn", 0), ("draw", 0, "Y8", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G-skip"),
    ], [("round_end", 1, "win", 29), *scores((23, 0), (0, 29), (6, 0))],
        marks=needs(double_action=False), id="off"),
])
def test_double_action_two_skips_skip_two_players(double, expected, ending):  # A2, A1
    hands = {1: ["R-skip", "R-skip", "G-skip"], 2: ["Y1", "Y2", "Y3"], 0: ["B1", "B2", "B3"]}
    game = play(3, hands, "R5", ["Y9", "Y8"], double_action=double)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending
    assert game.result.rounds[0].skips == 2


BLUES = ["B1", "B2", "B3", "B4", "B5", "B6"]


@pytest.mark.parametrize(("double", "stack", "expected", "ending"), [
    # Two Draw Twos give 4 (drawn at once, or as an unanswerable pending penalty: the same).
    *[pytest.param(True, stack, [
        ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
        *draws(0, BLUES[:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[4:6], "draw_two"),
    ], [("round_end", 1, "win", 27), *scores((27, 0), (0, 27))],
        marks=needs(double_action=True, stack_draw_two=stack), id=f"on-{stack}")
      for stack in ("none", "sum")],
    # pass_on: nothing adds up, two Draw Twos still give 2.
    pytest.param(True, "pass_on", [
        ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
        *draws(0, BLUES[:2], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[2:4], "draw_two"),
    ], [("round_end", 1, "win", 16), *scores((16, 0), (0, 16))],
        marks=needs(double_action=True, stack_draw_two="pass_on"), id="on-pass_on"),
    pytest.param(False, "none", [
        ("turn", 1), ("play", 1, "R+2"), *draws(0, BLUES[:2], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, BLUES[2:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, BLUES[4:6], "draw_two"),
    ], [("round_end", 1, "win", 27), *scores((27, 0), (0, 27))],
        marks=needs(double_action=False), id="off"),
])
def test_double_action_two_draw_twos(double, stack, expected, ending):  # A2, A3, R1
    hands = {1: ["R+2", "R+2", "G+2"], 0: ["Y1", "Y2", "Y3"]}
    game = play(2, hands, "R5", BLUES, double_action=double, stack_draw_two=stack)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


# ---------------------------------------------------------------- A3 stack_draw_two

STACK_TWO_HANDS = {1: ["R+2", "B1"], 2: ["B+2", "G5"], 0: ["G+2", "G7"]}
YELLOWS = ["Y1", "Y2", "Y3", "Y4", "Y6", "Y7"]


@pytest.mark.parametrize(("stack", "expected", "ending"), [
    # A chain of three Draw Twos (any colour answers); seat 1 cannot answer: it draws the whole
    # penalty and is skipped without a turn.
    pytest.param("sum", [
        ("turn", 1), ("play", 1, "R+2"),
        ("turn", 2), ("play", 2, "B+2"),
        ("turn", 0), ("play", 0, "G+2"),
        *draws(1, YELLOWS, "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
    ], [("round_end", 2, "win", 31), *scores((7, 0), (24, 0), (0, 31))],
        marks=needs(stack_draw_two="sum"), id="sum"),
    pytest.param("pass_on", [
        ("turn", 1), ("play", 1, "R+2"),
        ("turn", 2), ("play", 2, "B+2"),
        ("turn", 0), ("play", 0, "G+2"),
        *draws(1, YELLOWS[:2], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
    ], [("round_end", 2, "win", 11), *scores((7, 0), (4, 0), (0, 11))],
        marks=needs(stack_draw_two="pass_on"), id="pass_on"),
    pytest.param("none", [
        ("turn", 1), ("play", 1, "R+2"), *draws(2, YELLOWS[:2], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "G+2"), *draws(1, YELLOWS[2:4], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
        ("turn", 0), ("play", 0, "G7"),
    ], [("round_end", 0, "win", 31), *scores((0, 31), (8, 0), (23, 0))],
        marks=needs(stack_draw_two="none"), id="none"),
])
def test_stack_draw_two_chain(stack, expected, ending):  # A3
    game = play(3, STACK_TWO_HANDS, "R5", YELLOWS, stack_draw_two=stack)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


# ---------------------------------------------------------------- A4 stack_draw_four

STACK_FOUR_HANDS = {1: ["+4", "B1", "B2"], 2: ["+4", "B5", "G5"], 0: ["Y1", "Y2", "Y3"]}
REDS = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9"]


@pytest.mark.parametrize(("stack", "count"), [
    pytest.param("sum", 8, marks=needs(stack_draw_four="sum"), id="sum"),
    pytest.param("pass_on", 4, marks=needs(stack_draw_four="pass_on"), id="pass_on"),
])
def test_stack_draw_four_chain(stack, count):  # A4, P2, P4
    # Seat 2 answers though it holds blue, the colour named: a +4 is always legal in a chain.
    # Seat 0 would challenge any +4 it may: a +4 played onto a pending penalty it may not.
    game = play(3, STACK_FOUR_HANDS, "R5", [*REDS[:count], "G9", "Y6", "B7"],
                seats={0: seat(challenge=1.0)}, stack_draw_four=stack)
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
        ("turn", 2), ("play", 2, "+4"), ("colour", 2, "green"),
        *draws(0, REDS[:count], "draw_four"), ("skip", 0),
        # The last +4 of the chain named the colour: green.
        ("turn", 1), ("draw", 1, "G9", "normal"), ("play", 1, "G9"),
        ("turn", 2), ("play", 2, "G5"),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("pass", 0),
        ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
        ("turn", 2), ("play", 2, "B5"),
    ])
    held = 6 + sum(int(n[1]) for n in REDS[:count]) + 6
    assert game.ending() == [("round_end", 2, "win", held + 10),
                             *scores((held, 0), (10, 0), (0, held + 10))]
    rnd = game.result.rounds[0]
    assert (rnd.challenges, rnd.penalty_cards, rnd.skips) == (0, count, 1)


@needs(stack_draw_four="none")
def test_stack_draw_four_none_same_deal_draws_four_at_once():  # A4 off, A1
    game = play(3, STACK_FOUR_HANDS, "R5", [*REDS[:4], "G9", "Y6", "B7"],
                seats={0: seat(challenge=1.0)})
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
        *draws(2, REDS[:4], "draw_four"), ("skip", 2),
        ("turn", 0), ("draw", 0, "G9", "normal"), ("pass", 0),
    ], prefix=True)


# ---------------------------------------------------------------- A5 draw_two_on_draw_four


@pytest.mark.parametrize(("escape", "draw_two", "expected", "ending"), [
    # A Draw Two of the colour the +4 named: the +4 is cancelled, a Draw Two of 2 is pending on
    # seat 0, which cannot answer it (no stacking): it draws 2 and is skipped.
    pytest.param(True, "B+2", [
        ("turn", 2), ("play", 2, "B+2"),
        *draws(0, ["R1", "R2"], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "B1"),
    ], [("round_end", 1, "win", 22), *scores((17, 0), (0, 22), (5, 0))],
        marks=needs(draw_two_on_draw_four=True), id="named-colour"),
    # A Draw Two of another colour does not escape: seat 2 draws 4, without a turn.
    *[pytest.param(escape, draw_two, [
        *draws(2, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 2),
        ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "B1"),
    ], [("round_end", 1, "win", 58), *scores((23, 0), (0, 58), (35, 0))],
        marks=needs(draw_two_on_draw_four=escape), id=name)
      for escape, draw_two, name in ((True, "G+2", "other-colour"), (False, "B+2", "off"))],
])
def test_draw_two_on_draw_four(escape, draw_two, expected, ending):  # A5
    hands = {1: ["+4", "B1"], 2: [draw_two, "Y5"], 0: ["G7", "Y7"]}
    game = play(3, hands, "R5", ["R1", "R2", "R3", "R4", "Y9"], draw_two_on_draw_four=escape)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
                 *expected])
    assert game.ending() == ending


@needs(draw_two_on_draw_four=True, stack_draw_two="sum")
def test_draw_two_on_draw_four_then_stacks_as_a_draw_two():  # A5, A3
    hands = {1: ["+4", "B1"], 2: ["B+2", "G5"], 0: ["G+2", "Y7"]}
    game = play(3, hands, "R5", ["R1", "R2", "R3", "R4"], draw_two_on_draw_four=True,
                stack_draw_two="sum")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
        ("turn", 2), ("play", 2, "B+2"),  # the +4 becomes a Draw Two of 2
        ("turn", 0), ("play", 0, "G+2"),  # answered as a Draw Two: any colour, sum 4
        *draws(1, ["R1", "R2", "R3", "R4"], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
    ])
    assert game.ending() == [("round_end", 2, "win", 18), *scores((7, 0), (11, 0), (0, 18))]


# ---------------------------------------------------------------- A6 reverse_deflects: back


@pytest.mark.parametrize(("rule", "reverse", "expected", "ending"), [
    # A Reverse of the current colour: the direction flips and seat 1, which played the Draw
    # Two, owes it now: it draws 2 and is skipped; play goes on counter-clockwise.
    pytest.param("back", "R-reverse", [
        ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
        *draws(1, ["B2", "B3"], "draw_two"), ("skip", 1),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
        ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "R8"),
    ], [("round_end", 0, "win", 29), *scores((0, 29), (15, 0), (14, 0))],
        marks=needs(reverse_deflects="back"), id="back"),
    # A Reverse of another colour does not answer: seat 2 draws 2, without a turn.
    pytest.param("back", "G-reverse", [
        *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
        ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
        ("turn", 0), ("play", 0, "R8"),
    ], [("round_end", 0, "win", 49), *scores((0, 49), (10, 0), (39, 0))],
        marks=needs(reverse_deflects="back"), id="back-other-colour"),
    pytest.param("none", "R-reverse", [
        *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
        ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
        ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "R8"),
    ], [("round_end", 0, "win", 29), *scores((0, 29), (19, 0), (10, 0))],
        marks=needs(reverse_deflects="none"), id="none"),
])
def test_reverse_deflects_a_draw_two(rule, reverse, expected, ending):  # A6
    hands = {1: ["R+2", "B1"], 2: [reverse, "Y5"], 0: ["R7", "R8"]}
    game = play(3, hands, "R5", ["B2", "B3", "Y9", "B9"], reverse_deflects=rule)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *expected])
    assert game.ending() == ending


@needs(reverse_deflects="back")
def test_reverse_deflects_a_wild_draw_four():  # A6, P2
    hands = {1: ["+4", "B1"], 2: ["B-reverse", "Y5"], 0: ["B7", "B8"]}
    game = play(3, hands, "R5", ["R1", "R2", "R3", "R4", "Y9"], reverse_deflects="back")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
        ("turn", 2), ("play", 2, "B-reverse"), ("direction", -1),  # blue: the colour named
        *draws(1, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 1),
        ("turn", 0), ("play", 0, "B7"),
        ("turn", 2), ("draw", 2, "Y9", "normal"), ("pass", 2),
        ("turn", 1), ("play", 1, "B1"),
        ("turn", 0), ("play", 0, "B8"),
    ])
    assert game.ending() == [("round_end", 0, "win", 24), *scores((0, 24), (10, 0), (14, 0))]


@needs(reverse_deflects="back")
def test_reverse_deflects_a_draw_two_with_two_players():  # A6
    # With 2 players the penalty goes back to the other player (a direction event as well).
    game = play(2, {1: ["R+2", "B1"], 0: ["R-reverse", "R7"]}, "R5", ["B2", "B3", "B4"],
                reverse_deflects="back")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"),
        ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
        *draws(1, ["B2", "B3"], "draw_two"), ("skip", 1),
        ("turn", 0), ("play", 0, "R7"),
    ])
    assert game.ending() == [("round_end", 0, "win", 6), *scores((0, 6), (6, 0))]


@needs(reverse_deflects="none")
def test_reverse_deflects_none_same_deal_two_players_draw_two_is_drawn_at_once():  # A6 off
    game = play(2, {1: ["R+2", "B1"], 0: ["R-reverse", "R7"]}, "R5", ["B2", "B3", "B4"])
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, ["B2", "B3"], "draw_two"), ("skip", 0),
        ("turn", 1), ("draw", 1, "B4", "normal"), ("pass", 1),
    ], prefix=True)
