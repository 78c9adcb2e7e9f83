"""Scripted rule tests for the turn variants of docs/engine.md ("Turn variants").

Each test deals known hands from a fixed deck order (``scripted.play``), plays with deterministic
seats (``first_legal`` unless said otherwise, behaviour probabilities 0 or 1) and asserts the exact
events docs/engine.md prescribes; the referee checks every trace as well. Where an option is a
switch the same deal is also played with it off.

The expected events were checked against the referee by building each game by hand as a trace.
"""

from __future__ import annotations

import pytest
from cases import draws, play, racer, scores, seat

# ---------------------------------------------------------------- S2 first_card: extreme


# ---------------------------------------------------------------- P3 wild: no_matching_colour


# ---------------------------------------------------------------- P4 challenge: house, extreme


# ---------------------------------------------------------------- P5 draw


# ---------------------------------------------------------------- P7 colour_cycle


# ---------------------------------------------------------------- A2 double_action


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
    ], [("round_end", 2, "win", 31), *scores((7, 0), (24, 0), (0, 31))], id="sum"),
    pytest.param("pass_on", [
        ("turn", 1), ("play", 1, "R+2"),
        ("turn", 2), ("play", 2, "B+2"),
        ("turn", 0), ("play", 0, "G+2"),
        *draws(1, YELLOWS[:2], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
    ], [("round_end", 2, "win", 11), *scores((7, 0), (4, 0), (0, 11))], id="pass_on"),
    pytest.param("none", [
        ("turn", 1), ("play", 1, "R+2"), *draws(2, YELLOWS[:2], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "G+2"), *draws(1, YELLOWS[2:4], "draw_two"), ("skip", 1),
        ("turn", 2), ("play", 2, "G5"),
        ("turn", 0), ("play", 0, "G7"),
    ], [("round_end", 0, "win", 31), *scores((0, 31), (8, 0), (23, 0))], id="none"),
])
def test_stack_draw_two_chain(stack, expected, ending):  # A3
    game = play(3, STACK_TWO_HANDS, "R5", YELLOWS, stack_draw_two=stack)
    game.expect([("flip", "R5"), *expected])
    assert game.ending() == ending


# ---------------------------------------------------------------- A4 stack_draw_four

STACK_FOUR_HANDS = {1: ["+4", "B1", "B2"], 2: ["+4", "B5", "G5"], 0: ["Y1", "Y2", "Y3"]}
REDS = ["R1", "R2", "R3", "R4", "R6", "R7", "R8", "R9"]


@pytest.mark.parametrize(("stack", "count"), [
    pytest.param("sum", 8, id="sum"),
    pytest.param("pass_on", 4, id="pass_on"),
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
    ], [("round_end", 1, "win", 22), *scores((17, 0), (0, 22), (5, 0))], id="named-colour"),
    # A Draw Two of another colour does not escape: seat 2 draws 4, without a turn.
    *[pytest.param(escape, draw_two, [
        *draws(2, ["R1", "R2", "R3", "R4"], "draw_four"), ("skip", 2),
        ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "B1"),
    ], [("round_end", 1, "win", 58), *scores((23, 0), (0, 58), (35, 0))], id=name)
      for escape, draw_two, name in ((True, "G+2", "other-colour"), (False, "B+2", "off"))],
])
def test_draw_two_on_draw_four(escape, draw_two, expected, ending):  # A5
    hands = {1: ["+4", "B1"], 2: [draw_two, "Y5"], 0: ["G7", "Y7"]}
    game = play(3, hands, "R5", ["R1", "R2", "R3", "R4", "Y9"], draw_two_on_draw_four=escape)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "+4"), ("colour", 1, "blue"),
                 *expected])
    assert game.ending() == ending


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
    ], [("round_end", 0, "win", 29), *scores((0, 29), (15, 0), (14, 0))], id="back"),
    # A Reverse of another colour does not answer: seat 2 draws 2, without a turn.
    pytest.param("back", "G-reverse", [
        *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
        ("turn", 2), ("draw", 2, "B9", "normal"), ("pass", 2),
        ("turn", 0), ("play", 0, "R8"),
    ], [("round_end", 0, "win", 49), *scores((0, 49), (10, 0), (39, 0))], id="back-other-colour"),
    pytest.param("none", "R-reverse", [
        *draws(2, ["B2", "B3"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R7"),
        ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),
        ("turn", 2), ("play", 2, "R-reverse"), ("direction", -1),
        ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
        ("turn", 0), ("play", 0, "R8"),
    ], [("round_end", 0, "win", 29), *scores((0, 29), (19, 0), (10, 0))], id="none"),
])
def test_reverse_deflects_a_draw_two(rule, reverse, expected, ending):  # A6
    hands = {1: ["R+2", "B1"], 2: [reverse, "Y5"], 0: ["R7", "R8"]}
    game = play(3, hands, "R5", ["B2", "B3", "Y9", "B9"], reverse_deflects=rule)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *expected])
    assert game.ending() == ending


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


def test_reverse_deflects_none_same_deal_two_players_draw_two_is_drawn_at_once():  # A6 off
    game = play(2, {1: ["R+2", "B1"], 0: ["R-reverse", "R7"]}, "R5", ["B2", "B3", "B4"])
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, ["B2", "B3"], "draw_two"), ("skip", 0),
        ("turn", 1), ("draw", 1, "B4", "normal"), ("pass", 1),
    ], prefix=True)


# ---------------------------------------------------------------- A6 reverse_deflects: extreme

# Seat 1 plays two Draw Twos, seat 0 a Reverse in between: the sequence is worth 2, 4, then 6.
ESCALATION_HANDS = {1: ["R+2", "R+2", "B1"], 2: ["R1", "Y5", "Y6"], 0: ["R-reverse", "G3", "G4"]}
ESCALATION_DRAWS = ["Y7", "Y8", "Y9", "G6", "G7", "G8", "G9", "B6", "B7", "B8", "B9", "Y1"]


def test_reverse_deflects_extreme_the_sequence_grows_by_two():  # A6 extreme
    game = play(3, ESCALATION_HANDS, "R5", ESCALATION_DRAWS, reverse_deflects="extreme")
    game.expect([
        ("flip", "R5"),
        # The Draw Two is drawn at once, as usual, and opens a sequence of value 2.
        ("turn", 1), ("play", 1, "R+2"), *draws(2, ["Y7", "Y8"], "draw_two"), ("skip", 2),
        # A Reverse continues it: the direction flips and the next seat in the new direction,
        # seat 2 that has just drawn, draws 4 and is skipped again.
        ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
        *draws(2, ["Y9", "G6", "G7", "G8"], "draw_two"), ("skip", 2),
        # Counter-clockwise seat 1 is next: a Draw Two continues it, seat 0 draws 6.
        ("turn", 1), ("play", 1, "R+2"),
        *draws(0, ["G9", "B6", "B7", "B8", "B9", "Y1"], "draw_two"), ("skip", 0),
        # Any other play closes the sequence.
        ("turn", 2), ("play", 2, "R1"),
        ("turn", 1), ("play", 1, "B1"),
    ])
    assert game.ending() == [("round_end", 1, "win", 103), *scores((47, 0), (0, 103), (56, 0))]
    rnd = game.result.rounds[0]
    assert (rnd.penalty_cards, rnd.skips, rnd.direction_changes) == (12, 3, 1)


def test_reverse_deflects_none_same_deal_a_reverse_after_a_draw_two_is_a_reverse():  # A6 off
    game = play(3, ESCALATION_HANDS, "R5", ESCALATION_DRAWS)
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(2, ["Y7", "Y8"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R-reverse"), ("direction", -1),
        ("turn", 2), ("play", 2, "R1"),  # seat 2 draws nothing and takes its turn
        ("turn", 1), ("play", 1, "R+2"), *draws(0, ["Y9", "G6"], "draw_two"), ("skip", 0),
        ("turn", 2),
    ], prefix=True)


GREENS = ["G2", "G3", "G6", "G7", "G8", "G9", "G2", "G3", "G6", "G7", "G8", "G9"]
TWO_PLAYER_ESCALATION = {1: ["R+2", "Y+2", "Y-reverse", "B1"], 0: ["B-reverse", "B2", "G4", "G5"]}


def test_reverse_deflects_extreme_two_players_reverse_only_skips_and_a_draw_closes():  # A6 ext
    game = play(2, TWO_PLAYER_ESCALATION, "R5", [*GREENS, "B5", "Y9"],
                reverse_deflects="extreme")
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, GREENS[:2], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y+2"), *draws(0, GREENS[2:6], "draw_two"), ("skip", 0),
        # With 2 players the Reverse flips nothing (no direction event): it acts as a Skip, and
        # seat 0 draws 6.
        ("turn", 1), ("play", 1, "Y-reverse"), *draws(0, GREENS[6:], "draw_two"), ("skip", 0),
        # Seat 1 has no legal card: its draw closes the sequence ...
        ("turn", 1), ("draw", 1, "B5", "normal"), ("pass", 1),
        # ... so seat 0's Reverse is a plain one: seat 1 is skipped and draws nothing.
        ("turn", 0), ("play", 0, "B-reverse"), ("skip", 1),
        ("turn", 0), ("play", 0, "B2"),
        ("turn", 1), ("play", 1, "B1"),
        ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "B5"),
    ])
    assert game.ending() == [("round_end", 1, "win", 88), *scores((88, 0), (0, 88))]
    rnd = game.result.rounds[0]
    assert (rnd.penalty_cards, rnd.skips, rnd.direction_changes) == (12, 4, 0)


def test_reverse_deflects_none_same_deal_two_players_each_draw_two_costs_two():  # A6 off
    game = play(2, TWO_PLAYER_ESCALATION, "R5", [*GREENS, "B5", "Y9"])
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, GREENS[:2], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y+2"), *draws(0, GREENS[2:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "Y-reverse"), ("skip", 0),
        ("turn", 1), ("draw", 1, "G8", "normal"), ("pass", 1),
    ], prefix=True)


@pytest.mark.parametrize(("rule", "hands", "expected", "ending"), [
    # A last Draw Two is drawn first (the official scoring detail): the value the sequence
    # reaches with it, 4.
    pytest.param("extreme", {1: ["R+2", "G+2"], 0: ["B1", "B2"]}, [
        ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4", "Y5", "Y6"], "draw_two"),
    ], [("round_end", 1, "win", 24), *scores((24, 0), (0, 24))], id="extreme-draw-two"),
    pytest.param("none", {1: ["R+2", "G+2"], 0: ["B1", "B2"]}, [
        ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4"], "draw_two"),
    ], [("round_end", 1, "win", 13), *scores((13, 0), (0, 13))], id="none-draw-two"),
    # A last Reverse costs nothing: only a last Draw Two or +4 is drawn at the end of a round
    # (docs/engine.md "After a play", 2).
    pytest.param("extreme", {1: ["R+2", "G+2", "G-reverse"], 0: ["B1", "B2", "B3"]}, [
        ("turn", 1), ("play", 1, "G+2"), *draws(0, ["Y3", "Y4", "Y5", "Y6"], "draw_two"),
        ("skip", 0),
        ("turn", 1), ("play", 1, "G-reverse"),
    ], [("round_end", 1, "win", 27), *scores((27, 0), (0, 27))], id="extreme-reverse"),
])
def test_reverse_deflects_extreme_a_last_card_during_the_sequence(rule, hands, expected,
                                                                  ending):  # A6 extreme
    game = play(2, hands, "R5", ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"],
                reverse_deflects=rule)
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, ["Y1", "Y2"], "draw_two"), ("skip", 0),
        *expected,
    ])
    assert game.ending() == ending


YELLOWS_AND_GREENS = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "G2", "G3", "G4"]


@pytest.mark.parametrize(("double", "rule", "expected", "ending"), [
    # Two Draw Twos in one turn add 4 to the sequence: 4, then 6 with the next one.
    pytest.param(True, "extreme", [
        ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
        *draws(0, YELLOWS_AND_GREENS[:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, YELLOWS_AND_GREENS[4:10], "draw_two"),
        ("skip", 0),
    ], [("round_end", 1, "win", 57), *scores((57, 0), (0, 57))], id="double-extreme"),
    # One at a time: 2, 4, 6.
    pytest.param(False, "extreme", [
        ("turn", 1), ("play", 1, "R+2"), *draws(0, YELLOWS_AND_GREENS[:2], "draw_two"),
        ("skip", 0),
        ("turn", 1), ("play", 1, "R+2"), *draws(0, YELLOWS_AND_GREENS[2:6], "draw_two"),
        ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, YELLOWS_AND_GREENS[6:12], "draw_two"),
        ("skip", 0),
    ], [("round_end", 1, "win", 64), *scores((64, 0), (0, 64))], id="single-extreme"),
    # Without the escalation: 4 (A2), then 2.
    pytest.param(True, "none", [
        ("turn", 1), ("play", 1, "R+2"), ("play", 1, "R+2"),
        *draws(0, YELLOWS_AND_GREENS[:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(0, YELLOWS_AND_GREENS[4:6], "draw_two"),
        ("skip", 0),
    ], [("round_end", 1, "win", 31), *scores((31, 0), (0, 31))], id="double-none"),
])
def test_reverse_deflects_extreme_a_double_draw_two_adds_four(double, rule, expected,
                                                             ending):  # A6 extreme, A2
    game = play(2, {1: ["R+2", "R+2", "G+2", "G1"], 0: ["B1", "B2", "B3", "B4"]}, "R5",
                YELLOWS_AND_GREENS, double_action=double, reverse_deflects=rule)
    game.expect([("flip", "R5"), *expected, ("turn", 1), ("play", 1, "G1")])
    assert game.ending() == ending


# Seat 2, the victim of seat 1's Draw Two, holds the identical card and jumps in on it.
JUMP_ON_DRAW_TWO_HANDS = {1: ["R+2", "G+2"], 2: ["R+2", "B2"], 0: ["G3", "G4"]}
JUMP_ON_DRAW_TWO_DRAWS = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "B3"]
JUMP_ON_DRAW_TWO_SEATS = {0: racer(), 1: racer(), 2: racer(jump_in=1.0)}


@pytest.mark.parametrize(("jump_in", "expected", "ending"), [
    # extreme: seat 1's Draw Two still has its effect, but seat 2, which jumped in on a card
    # aimed at itself, draws nothing for it (it is skipped); then seat 2's Draw Two continues
    # the sequence from seat 2: seat 0 draws 4. Seat 1 goes out with a Draw Two: seat 2 draws
    # the value the sequence reaches with it, 6.
    pytest.param("extreme", [
        ("jump_in", 2, "R+2"), ("skip", 2),
        *draws(0, JUMP_ON_DRAW_TWO_DRAWS[:4], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(2, JUMP_ON_DRAW_TWO_DRAWS[4:10], "draw_two"),
    ], [("round_end", 1, "win", 57), *scores((17, 0), (0, 57), (40, 0))], id="extreme"),
    # all_but_draw_four: seat 1's Draw Two is cancelled and never opens a sequence; seat 2's
    # opens it (seat 0 draws 2) and seat 1's last card raises it to 4.
    pytest.param("all_but_draw_four", [
        ("jump_in", 2, "R+2"), *draws(0, JUMP_ON_DRAW_TWO_DRAWS[:2], "draw_two"), ("skip", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(2, JUMP_ON_DRAW_TWO_DRAWS[2:6], "draw_two"),
    ], [("round_end", 1, "win", 30), *scores((10, 0), (0, 30), (20, 0))], id="all_but_draw_four"),
    # No jump-in: seat 2 draws 2; seat 0 cannot play and its draw closes the sequence, so seat
    # 1's last Draw Two opens a new one: 2.
    pytest.param("none", [
        *draws(2, JUMP_ON_DRAW_TWO_DRAWS[:2], "draw_two"), ("skip", 2),
        ("turn", 0), ("draw", 0, "Y3", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G+2"), *draws(2, JUMP_ON_DRAW_TWO_DRAWS[3:5], "draw_two"),
    ], [("round_end", 1, "win", 44), *scores((10, 0), (0, 44), (34, 0))], id="none"),
])
def test_reverse_deflects_extreme_jump_in_on_a_draw_two_aimed_at_the_jumper(jump_in, expected,
                                                                            ending):  # A6, J1
    game = play(3, JUMP_ON_DRAW_TWO_HANDS, "R5", JUMP_ON_DRAW_TWO_DRAWS,
                seats=JUMP_ON_DRAW_TWO_SEATS, reverse_deflects="extreme", jump_in=jump_in)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *expected])
    assert game.ending() == ending
    assert game.result.rounds[0].jump_ins == (jump_in != "none")


# ---------------------------------------------------------------- A7 stack_skip


# ---------------------------------------------------------------- A8 skip_escape


# ---------------------------------------------------------------- J1-J4 jump_in

# Seat 1 plays a card; seat 0 holds the identical card and always jumps in when it may; seat 2,
# due to act next, holds none and races with reaction 0, so seat 0 wins every race it runs.
JUMP_SEATS = {0: racer(jump_in=1.0), 1: racer(), 2: racer(reaction=0.0)}
FOUR_YELLOWS = draws(2, ["Y4", "Y5", "Y6", "Y7"], "draw_four")
NOT_JUMPED_ON = {  # what follows the card when nobody jumps in on it
    "R7": [("turn", 2)],
    "R-skip": [("skip", 2), ("turn", 0)],
    "wild": [("turn", 2)],
    "+4": [*FOUR_YELLOWS, ("skip", 2), ("turn", 0)],
}
JUMPED_ON = {  # (card, mode): what follows it when seat 0 jumps in on it
    # Play continues from the jumper: seat 1 is next, seat 2 has lost its turn.
    ("R7", "numbers"): [("jump_in", 0, "R7"), ("turn", 1)],
    ("R7", "all_but_draw_four"): [("jump_in", 0, "R7"), ("turn", 1)],
    ("R7", "extreme"): [("jump_in", 0, "R7"), ("turn", 1)],
    # all_but_draw_four cancels seat 1's Skip; seat 0's skips seat 1.
    ("R-skip", "all_but_draw_four"): [("jump_in", 0, "R-skip"), ("skip", 1), ("turn", 2)],
    # extreme: seat 1's Skip still skips seat 2, then seat 0's skips seat 1 from seat 0.
    ("R-skip", "extreme"): [("jump_in", 0, "R-skip"), ("skip", 2), ("skip", 1), ("turn", 2)],
    # A Wild played as a jump-in names a colour as usual (seat 0 holds blue).
    ("wild", "all_but_draw_four"): [("jump_in", 0, "wild"), ("colour", 0, "blue"), ("turn", 1)],
}


@pytest.mark.parametrize("mode", [
    pytest.param(mode) for mode in
    ("none", "numbers", "all_but_draw_four", "extreme")])
@pytest.mark.parametrize("card", ["R7", "R-skip", "wild", "+4"])
def test_jump_in_what_may_be_jumped_on(mode, card):  # J1, J4, P2
    # A +4 is never jumped on; seat 1 holds no red, so it may play it (P2).
    game = play(3, {1: [card, "G1", "G2"], 2: ["Y1", "Y2", "Y3"], 0: [card, "B1", "B2"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], seats=JUMP_SEATS, jump_in=mode)
    colour = [("colour", 1, "green")] if card in ("wild", "+4") else []
    after = JUMPED_ON.get((card, mode), NOT_JUMPED_ON[card])
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, card), *colour, *after], prefix=True)


@pytest.mark.parametrize("mode", [
    pytest.param(mode) for mode in
    ("numbers", "all_but_draw_four", "extreme")])
def test_jump_in_never_on_the_rounds_first_discard(mode):  # J2
    # Seat 0 holds the other R7 and would jump in, and seats 1 and 2 would lose any race to it.
    game = play(3, {1: ["G1", "G2"], 2: ["Y1", "Y2"], 0: ["R7", "B2"]}, "R7",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in=mode,
                seats={0: racer(jump_in=1.0), 1: racer(reaction=0.0), 2: racer(reaction=0.0)})
    game.expect([
        ("flip", "R7"),
        ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
        ("turn", 2), ("draw", 2, "Y5", "normal"), ("pass", 2),
        ("turn", 0), ("play", 0, "R7"),  # in its turn
        ("turn", 1), ("draw", 1, "Y6", "normal"), ("pass", 1),
        ("turn", 2), ("draw", 2, "Y7", "normal"), ("play", 2, "Y7"),
        ("turn", 0), ("draw", 0, "Y8", "normal"), ("play", 0, "Y8"),
        ("turn", 1), ("play", 1, "Y4"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 0), ("draw", 0, "Y9", "normal"), ("play", 0, "Y9"),
        ("turn", 1), ("play", 1, "Y6"),
        ("turn", 2), ("play", 2, "Y2"),
        ("turn", 0), ("play", 0, "B2"),
    ])
    assert game.ending() == [("round_end", 0, "win", 8), *scores((0, 8), (3, 0), (5, 0))]
    assert game.result.rounds[0].jump_ins == 0


@pytest.mark.parametrize(("own", "due", "expected", "ending"), [
    # Seat 1 jumps in on its own R7 with its second R7; play goes on from seat 1.
    (1.0, 0.0, [
        ("jump_in", 1, "R7"),
        ("turn", 2), ("play", 2, "Y7"),
        ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
        ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
        ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
        ("turn", 2), ("play", 2, "Y2"),
    ], [("round_end", 2, "win", 11), *scores((10, 0), (1, 0), (0, 11))]),
    # Seat 2, due to act, wins the race without holding an R7: nobody jumps in, and seat 1
    # keeps its second R7 to the end.
    (0.0, 1.0, [
        ("turn", 2), ("play", 2, "Y7"),
        ("turn", 0), ("draw", 0, "Y4", "normal"), ("play", 0, "Y4"),
        ("turn", 1), ("draw", 1, "Y5", "normal"), ("play", 1, "Y5"),
        ("turn", 2), ("play", 2, "Y1"),
        ("turn", 0), ("draw", 0, "Y6", "normal"), ("play", 0, "Y6"),
        ("turn", 1), ("draw", 1, "Y7", "normal"), ("play", 1, "Y7"),
        ("turn", 2), ("play", 2, "Y2"),
    ], [("round_end", 2, "win", 18), *scores((10, 0), (8, 0), (0, 18))]),
], ids=["jumps-on-its-own-card", "next-seat-blocks"])
def test_jump_in_on_ones_own_card_and_the_next_seat_blocking_it(own, due, expected,
                                                                ending):  # J3, J4
    game = play(3, {1: ["R7", "R7", "G1"], 2: ["Y1", "Y2", "Y7"], 0: ["G3", "B2", "G5"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in="numbers",
                seats={0: racer(), 1: racer(jump_in=1.0, reaction=own),
                       2: racer(reaction=due)})
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R7"), *expected])
    assert game.ending() == ending


# Seats 2 and 0 both hold a Wild like the one seat 1 plays (all_but_draw_four).
@pytest.mark.parametrize(("seat2", "seat0", "expected"), [
    # Both willing: the faster wins. Seat 2, due to act, may jump in itself; the race after its
    # jump-in (seat 0 alone, weight 0) has no winner.
    ((1.0, 1.0), (1.0, 0.0), [("jump_in", 2, "wild"), ("colour", 2, "yellow"), ("turn", 0)]),
    ((1.0, 0.0), (1.0, 1.0), [("jump_in", 0, "wild"), ("colour", 0, "blue"), ("turn", 1)]),
    # Seat 2 is not willing but, due to act, takes part in the race and wins it: nobody jumps
    # in.
    ((0.0, 1.0), (1.0, 0.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")]),
    # Nobody willing: no race at all, however fast seat 0 is.
    ((0.0, 0.0), (0.0, 1.0), [("turn", 2), ("play", 2, "wild"), ("colour", 2, "yellow")]),
], ids=["due-seat-faster", "other-seat-faster", "unwilling-due-seat-wins", "nobody-willing"])
def test_jump_in_race_by_willingness_and_reaction(seat2, seat0, expected):  # J4, J1
    game = play(3, {1: ["wild", "G1", "G2"], 2: ["wild", "Y1", "Y2"], 0: ["wild", "B1", "B2"]},
                "R5", ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], jump_in="all_but_draw_four",
                seats={0: racer(jump_in=seat0[0], reaction=seat0[1]),
                       1: racer(reaction=0.0),
                       2: racer(jump_in=seat2[0], reaction=seat2[1])})
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "wild"), ("colour", 1, "green"),
                 *expected], prefix=True)


@pytest.mark.parametrize(("mode", "expected"), [
    # The jumped-on Draw Two is cancelled: only seat 0's has its effect, on seat 1.
    pytest.param("all_but_draw_four", [
        ("jump_in", 0, "R+2"), *draws(1, ["Y4", "Y5"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y6", "normal"), ("pass", 2),
    ], id="all_but_draw_four"),
    # Seat 1's Draw Two is drawn by seat 2, then seat 0's by seat 1; seat 2 acts next.
    pytest.param("extreme", [
        ("jump_in", 0, "R+2"), *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
        *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
    ], id="extreme"),
    pytest.param("none", [
        *draws(2, ["Y4", "Y5"], "draw_two"), ("skip", 2),
        ("turn", 0), ("play", 0, "R+2"), *draws(1, ["Y6", "Y7"], "draw_two"), ("skip", 1),
        ("turn", 2), ("draw", 2, "Y8", "normal"), ("pass", 2),
    ], id="none"),
])
def test_jump_in_effects_of_the_jumped_on_card(mode, expected):  # J1
    game = play(3, {1: ["R+2", "B1"], 2: ["Y1", "Y2"], 0: ["R+2", "B2"]}, "R5",
                ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"], seats=JUMP_SEATS, jump_in=mode)
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R+2"), *expected], prefix=True)


def test_jump_in_the_jumper_calls_uno_and_wins():  # J1, U1
    game = play(3, {1: ["R7", "B4"], 2: ["G7", "Y5"], 0: ["R7", "G7"]}, "R5",
                ["Y4", "Y6", "Y7", "Y8", "Y9"], jump_in="numbers", uno_penalty=2,
                seats=JUMP_SEATS)
    game.expect([
        ("flip", "R5"),
        ("turn", 1), ("play", 1, "R7"), ("uno_call", 1),
        ("jump_in", 0, "R7"), ("uno_call", 0),
        ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
        ("turn", 2), ("play", 2, "G7"), ("uno_call", 2),
        # Seat 0, due to act, jumps in with its last card and wins, out of turn.
        ("jump_in", 0, "G7"),
    ])
    assert game.ending() == [("round_end", 0, "win", 13), *scores((0, 13), (8, 0), (5, 0))]
    rnd = game.result.rounds[0]
    assert (rnd.jump_ins, rnd.turns, rnd.cards_played) == (2, 3, 4)


# ---------------------------------------------------------------- N3 multi_play

# G7 is seat 1's only legal card on G5; it holds a 7 of every colour.
SAME_RANK_HANDS = {1: ["B7", "G7", "R7", "Y7", "Y1"], 0: ["R2", "B1", "G3", "G4", "Y9"]}


def test_multi_play_same_rank_plays_every_other_card_of_the_number():  # N3
    game = play(2, SAME_RANK_HANDS, "G5", ["Y4", "Y5"], multi_play="same_rank")
    game.expect([
        ("flip", "G5"),
        # The other 7s follow in card-id order (red, yellow, blue); the last, B7, sets blue.
        ("turn", 1), ("play", 1, "G7"), ("play", 1, "R7"), ("play", 1, "Y7"), ("play", 1, "B7"),
        ("turn", 0), ("play", 0, "B1"),
        ("turn", 1), ("play", 1, "Y1"),
    ])
    assert game.ending() == [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))]
    rnd = game.result.rounds[0]
    assert (rnd.turns, rnd.cards_played) == (3, 6)


def test_multi_play_none_same_deal_one_card_a_turn():  # N3 off
    game = play(2, SAME_RANK_HANDS, "G5", ["Y4", "Y5"])
    game.expect([
        ("flip", "G5"),
        ("turn", 1), ("play", 1, "G7"),
        ("turn", 0), ("play", 0, "G3"),
        ("turn", 1), ("draw", 1, "Y4", "normal"), ("pass", 1),
    ], prefix=True)


# actions_first plays the G-skip (seat 1's G3 is legal too); a number card may follow it only
# under two_matching (G3 matches G5, the top card at the start of the turn).
@pytest.mark.parametrize(("rule", "expected"), [
    pytest.param("same_rank", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")],
                 id="same_rank"),
    pytest.param("two_matching", [("play", 1, "G3"), ("skip", 2), ("turn", 0), ("play", 0, "B3")],
                 id="two_matching"),
    pytest.param("none", [("skip", 2), ("turn", 0), ("draw", 0, "B6", "normal")], id="none"),
])
def test_multi_play_after_an_action_card(rule, expected):  # N3, A1
    hands = {1: ["G-skip", "G3", "B9"], 2: ["Y1", "Y2", "Y3"], 0: ["B3", "B4", "B5"]}
    game = play(3, hands, "G5", ["B6", "Y5"], multi_play=rule,
                seats={1: seat("actions_first")})
    game.expect([("flip", "G5"), ("turn", 1), ("play", 1, "G-skip"), *expected], prefix=True)


@pytest.mark.parametrize(("rule", "expected", "ending"), [
    # R1 first (first_legal); then G5 matches R5, the top card as the turn started (G1 matches
    # only the new top R1). Next turn G1, then G9, green as G2 was at that turn's start.
    pytest.param("two_matching", [
        ("turn", 1), ("play", 1, "R1"), ("play", 1, "G5"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G1"), ("play", 1, "G9"),
    ], [("round_end", 1, "win", 18), *scores((18, 0), (0, 18))], id="two_matching"),
    pytest.param("none", [
        ("turn", 1), ("play", 1, "R1"),
        ("turn", 0), ("draw", 0, "B4", "normal"), ("pass", 0),
        ("turn", 1), ("play", 1, "G1"),
        ("turn", 0), ("play", 0, "G2"),
        ("turn", 1), ("play", 1, "G5"),
    ], None, id="none"),
])
def test_multi_play_two_matching_one_more_card_matching_the_start_of_the_turn(
        rule, expected, ending):  # N3
    game = play(2, {1: ["R1", "G1", "G5", "G9"], 0: ["G2", "Y4", "Y6", "Y8"]}, "R5",
                ["B4", "Y5"], multi_play=rule)
    game.expect([("flip", "R5"), *expected], prefix=ending is None)
    if ending is not None:
        assert game.ending() == ending


@pytest.mark.parametrize(("hand", "extra"), [
    # Nothing matches R5 but R1 itself (G1 and B9 match neither red nor 5): no second card.
    (["R1", "G1", "B9", "Y8"], []),
    # R3 and G5 both match R5: the policy chooses (first_legal: the lower card id, R3).
    (["R1", "G5", "B9", "R3"], [("play", 1, "R3")]),
], ids=["holds-none", "policy-chooses"])
def test_multi_play_two_matching_none_held_or_several(hand, extra):  # N3
    game = play(2, {1: hand, 0: ["Y2", "Y4", "Y6", "Y7"]}, "R5", ["Y9", "Y5"],
                multi_play="two_matching")
    game.expect([("flip", "R5"), ("turn", 1), ("play", 1, "R1"), *extra, ("turn", 0)],
                prefix=True)


# ---------------------------------------------------------------- B2 policy strategist

