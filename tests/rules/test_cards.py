"""Deck and deal: D1-D6 (deck, card counts and their validation), S1-S3 (hand size, first
discard, dealer and first player), P1 matching, P5 drawing variants, P6 reshuffle and failed
draws.

``CASES`` are scripted games (tests/rules/cases.py): each is played by the kernel and checked by
the referee, and, when it lists every event, its expected events pass the referee on their own.
The tests after it give the referee games written in the same notation (``cases.written``),
legal ones and copies broken in one event (tests/rules/traces.py), which it must reject naming
the problem.
"""

from __future__ import annotations

import dataclasses

import pytest
from cases import (
    ONE_OF_EACH,
    Family,
    Round,
    card,
    draws,
    first_round,
    game_rules,
    scores,
    small_deck,
    written,
)
from traces import (
    NO_LATER_COUNTERS,
    action_cards,
    broken,
    capped_round_then_win,
    changed,
    counters,
    deleted,
    find,
    hit_all,
    inserted,
    numbers,
    quick_win,
    the_round,
    with_rules,
)

from unostats import cards, codes
from unostats import rules as rules_mod
from unostats.engine.referee import GameResult, RefereeError, check_trace

# The rule options this family owns: each is played on and off on one deal (cases.py).
OPTIONS = ("hand_size", "first_card", "draw")

FAMILY = Family(OPTIONS)
CASES, case = FAMILY.cases, FAMILY.case


# ---------------------------------------------------------------- S1, S3: deal and dealer

case("hand_size-1-first-player-plays-its-only-card", 3, {2: ["R5"], 0: ["Y7"], 1: ["G3"]}, "R2",
     dealer=1, rules={"target_score": 10},
     deals=[("deal", 2, "R5"), ("deal", 0, "Y7"), ("deal", 1, "G3")],
     table=[("flip", "R2"), ("turn", 2), ("play", 2, "R5")],
     ending=[("round_end", 2, "win", 10), *scores((7, 0), (3, 0), (0, 10))],
     game_end=("game_end", 2, "target"),
     facts={"round.dealer_seat": 1, "round.first_seat": 2, "round.winner_seat": 2,
            "round.winner_position": 0})

# Three passes from the dealer's left; P5: a drawn card that cannot be played is kept.
HAND_SIZE_3 = {0: ["R1", "R2", "R3"], 1: ["Y4", "Y5", "Y6"], 2: ["G4", "G5", "G6"]}
case("hand_size-3-three-passes-from-the-dealers-left", 3, HAND_SIZE_3, "R9",
     ["B7", "B8", "B6", "B5"], dealer=2,
     deals=[("deal", s, HAND_SIZE_3[s][k]) for k in range(3) for s in (0, 1, 2)],
     table=[
         ("flip", "R9"),
         ("turn", 0), ("play", 0, "R1"),
         ("turn", 1), ("draw", 1, "B7", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "B8", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R2"),
         ("turn", 1), ("draw", 1, "B6", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "B5", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "R3"),
     ],
     ending=[("round_end", 0, "win", 56), *scores((0, 56), (28, 0), (28, 0))],
     facts={"round.cards_left": (0, 5, 5)})


# S3, max_rounds: every round is dealt from the same deck order, so the first player (dealer's
# left) always gets R5 and wins at once: the round winners show who played first. Nobody
# reaches 500, so max_rounds caps the game, which names no winner.
def _rotation(dealer: int, hand_points: tuple, score_after: tuple) -> Round:
    first = (dealer + 1) % 3
    return Round(dealer,
                 deals=[("deal", first, "R5"), ("deal", (first + 1) % 3, "Y7"),
                        ("deal", dealer, "G3")],
                 table=[("flip", "R2"), ("turn", first), ("play", first, "R5")],
                 ending=[("round_end", first, "win", 10),
                         *scores(*zip(hand_points, score_after, strict=True))])


ROTATION = [_rotation(0, (3, 0, 7), (0, 10, 0)), _rotation(1, (7, 3, 0), (0, 10, 10)),
            _rotation(2, (0, 7, 3), (10, 10, 10))]
case("dealer-rotates-first-player-left-of-the-dealer", 3, {1: ["R5"], 2: ["Y7"], 0: ["G3"]},
     "R2", rules={"max_rounds": 3}, **first_round(ROTATION[0]), later=ROTATION[1:],
     facts={"rounds.dealer_seat": (0, 1, 2), "rounds.first_seat": (1, 2, 0),
            "rounds.winner_seat": (1, 2, 0),
            "rounds.score_after": ((0, 10, 0), (0, 10, 10), (10, 10, 10)),
            "game.winner_seat": None, "game.ended_by": "cap", "game.final_scores": (10, 10, 10)})

# ---------------------------------------------------------------- S2: the first discard

case("first_card-official-skip-skips-the-first-player", 3, {1: ["Y5"], 2: ["R3"], 0: ["G1"]},
     "R-skip",
     table=[("flip", "R-skip"), ("skip", 1), ("turn", 2), ("play", 2, "R3")],
     ending=[("round_end", 2, "win", 6), *scores((1, 0), (5, 0), (0, 6))],
     facts={"round.first_seat": 2, "round.skips": 1})
case("first_card-official-draw-two-first-player-draws-two-and-is-skipped", 3,
     {1: ["Y5"], 2: ["R3"], 0: ["G1"]}, "R+2", ["B4", "B6"],
     table=[("flip", "R+2"), *draws(1, ["B4", "B6"], "draw_two"), ("skip", 1),
            ("turn", 2), ("play", 2, "R3")],
     ending=[("round_end", 2, "win", 16), *scores((1, 0), (15, 0), (0, 16))],
     facts={"round.penalty_cards": 2})
# Position counts in the round's starting direction: seat 2 is next after the dealer.
case("first_card-official-reverse-3-players-dealer-first-counter-clockwise", 3,
     {1: ["Y5", "Y6"], 2: ["R3", "B4"], 0: ["R7", "B8"]}, "R-reverse", ["R1", "B1"],
     table=[
         ("flip", "R-reverse"), ("direction", -1),
         ("turn", 0), ("play", 0, "R7"),
         ("turn", 2), ("play", 2, "R3"),
         ("turn", 1), ("draw", 1, "R1", "normal"), ("play", 1, "R1"),
         ("turn", 0), ("draw", 0, "B1", "normal"), ("play", 0, "B1"),
         ("turn", 2), ("play", 2, "B4"),
     ],
     ending=[("round_end", 2, "win", 19), *scores((8, 0), (11, 0), (0, 19))],
     facts={"round.first_seat": 0, "round.winner_position": 1, "round.direction_changes": 1})
case("first_card-official-reverse-2-players-acts-as-skip", 2, {1: ["Y5"], 0: ["R3"]},
     "R-reverse",
     table=[("flip", "R-reverse"), ("skip", 1), ("turn", 0), ("play", 0, "R3")],
     ending=[("round_end", 0, "win", 5), *scores((0, 5), (5, 0))],
     facts={"round.first_seat": 0, "round.direction_changes": 0})
# P7: the first player names the colour it holds most.
case("first_card-official-wild-first-player-names-the-colour", 2,
     {1: ["B7", "G3", "G7"], 0: ["R1", "R2", "R4"]}, "wild", ["Y9", "Y8"],
     table=[
         ("flip", "wild"), ("colour", 1, "green"),
         ("turn", 1), ("play", 1, "G3"),
         ("turn", 0), ("draw", 0, "Y9", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "G7"),
         ("turn", 0), ("draw", 0, "Y8", "normal"), ("pass", 0),
         ("turn", 1), ("play", 1, "B7"),
     ],
     ending=[("round_end", 1, "win", 24), *scores((24, 0), (0, 24))])
case("first_card-official-wild-draw-four-goes-back", 2, {1: ["R5"], 0: ["Y7"]}, ["+4", "R2"],
     table=[("flip", "+4"), ("flip_return", "+4"), ("flip", "R2"),
            ("turn", 1), ("play", 1, "R5")],
     ending=[("round_end", 1, "win", 7), *scores((7, 0), (0, 7))])

# number_only: no first-card effect either: seat 1 is not skipped by anything.
NON_NUMBERS = ["R-skip", "G+2", "B-reverse", "wild", "+4"]
case("first_card-number_only-returns-every-non-number-card", 2, {1: ["R5"], 0: ["Y3"]},
     [*NON_NUMBERS, "R8"], rules={"first_card": "number_only"},
     table=[*[e for name in NON_NUMBERS for e in (("flip", name), ("flip_return", name))],
            ("flip", "R8"), ("turn", 1), ("play", 1, "R5")],
     ending=[("round_end", 1, "win", 3), *scores((3, 0), (0, 3))])
# All four zeros are dealt, so the flipped Skip stays, and has no effect under number_only.
ZEROS_DEALT = dict(players=2, hands={1: ["R0", "Y0"], 0: ["G0", "B0"]}, flip="R-skip")
case("first_card-number_only-keeps-an-action-card-when-no-number-is-left", **ZEROS_DEALT,
     rules={"first_card": "number_only", "deck": small_deck(zero=1, skip=1)},
     table=[("flip", "R-skip"), ("turn", 1), ("play", 1, "R0"),
            ("turn", 0), ("play", 0, "G0"), ("turn", 1), ("play", 1, "Y0")],
     ending=[("round_end", 1, "win", 0), *scores((0, 0), (0, 0))])
case("first_card-official-same-deal-the-skip-skips", **ZEROS_DEALT,
     rules={"first_card": "official", "deck": small_deck(zero=1, skip=1)},
     table=[("flip", "R-skip"), ("skip", 1), ("turn", 0)], prefix=True)

# extreme: the first player (seat 1) holds only green; seat 2 holds a 1 and the dealer a 2 of
# every colour, so whatever colour is named, each of them plays the one card of that colour.
FIRST_CARD = dict(players=3, hands={1: ["G3", "G4", "G6", "G7"], 2: ["R1", "Y1", "G1", "B1"],
                                    0: ["R2", "Y2", "G2", "B2"]},
                  draws=["Y9", "Y8", "B9", "B8", "R9", "R8", "R7", "R6", "R4", "R3", "Y7", "Y6",
                         "Y5", "Y4", "Y3", "B7", "B6", "B5", "B4", "B3"])


def _dealer_names_any_colour(game) -> None:
    """The dealer names a colour at random: any of the four; play then follows that colour:
    seat 2 plays its 1, the dealer its 2 of the named colour."""
    table = game.table()
    kind, named_by, colour = table[6]
    assert (kind, named_by) == ("colour", 0) and colour in cards.COLOURS, game.text
    letter = "RYGB"[cards.COLOURS.index(colour)]
    assert table[7:11] == [("turn", 2), ("play", 2, f"{letter}1"),
                           ("turn", 0), ("play", 0, f"{letter}2")], game.text


for first in ("wild", "+4"):
    # The black card stays (even a +4): seat 1 draws 4 and is skipped, without a turn.
    case(f"first_card-extreme-{first}-first-player-draws-four-dealer-names-colour", **FIRST_CARD,
         flip=first, rules={"first_card": "extreme"},
         table=[("flip", first), *draws(1, ["Y9", "Y8", "B9", "B8"], "draw_four"), ("skip", 1)],
         prefix=True, check=_dealer_names_any_colour,
         facts={"round.first_seat": 2, "round.skips": 1, "round.penalty_cards": 4})
case("first_card-official-same-deal-first-player-names-the-colour-of-a-wild", **FIRST_CARD,
     flip="wild", rules={"first_card": "official"},
     table=[
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
     ],
     ending=[("round_end", 1, "win", 43), *scores((22, 0), (0, 43), (21, 0))])

# ---------------------------------------------------------------- P1: matching

# P3 free, P5 and P7 too: same number, a black card on anything, then the named colour.
case("matching-by-number-colour-and-black-on-anything", 2, {1: ["Y5", "B9"], 0: ["R2", "wild"]},
     "R5", ["Y9"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("play", 1, "Y5"),  # same number
         ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"),  # R2 does not match Y5
         ("turn", 1), ("draw", 1, "Y9", "normal"), ("pass", 1),  # nothing matches red
         ("turn", 0), ("play", 0, "R2"),  # same colour as the named one
     ],
     ending=[("round_end", 0, "win", 18), *scores((0, 18), (18, 0))])

# ---------------------------------------------------------------- P5: no legal card

DRAW_HANDS = dict(players=2, hands={1: ["Y7"], 0: ["G3"]}, flip="R5")

case("draw-one_may_play-a-playable-drawn-card-is-played-at-once", **DRAW_HANDS,
     draws=["R3", "G5", "G7"], rules={"draw": "one_may_play"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "R3", "normal"), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 7), *scores((0, 7), (7, 0))],
     facts={"round.normal_draws": 1})
# P5 one_may_play "may be played": a seat keeps a drawn black card while its hand, the card
# included, holds more cards than its keep_drawn (B1's seat behaviour; 0, the default: played).
KEEP_HANDS = dict(players=2, hands={1: ["Y7"], 0: ["R3"]}, flip="R5", draws=["wild", "G5"])
case("draw-one_may_play-keep_drawn-keeps-a-drawn-black-card-above-its-hand-size", **KEEP_HANDS,
     seats={1: {"keep_drawn": 1}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "wild", "normal"), ("pass", 1),  # 2 cards > 1: kept
         ("turn", 0), ("play", 0, "R3"),
     ],
     ending=[("round_end", 0, "win", 57), *scores((0, 57), (57, 0))])
PLAYED_WILD = [
    ("flip", "R5"),
    ("turn", 1), ("draw", 1, "wild", "normal"), ("play", 1, "wild"), ("colour", 1, "yellow"),
    ("turn", 0), ("draw", 0, "G5", "normal"), ("pass", 0),
    ("turn", 1), ("play", 1, "Y7"),
]
case("draw-one_may_play-keep_drawn-plays-a-drawn-black-card-at-its-hand-size", **KEEP_HANDS,
     seats={1: {"keep_drawn": 2}}, table=PLAYED_WILD,  # 2 cards, not more than 2: played
     ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))])
case("draw-one_may_play-keep_drawn-off-plays-a-drawn-black-card", **KEEP_HANDS,
     table=PLAYED_WILD, ending=[("round_end", 1, "win", 8), *scores((8, 0), (0, 8))])
case("draw-one_may_play-keep_drawn-plays-a-drawn-coloured-card", **DRAW_HANDS,
     draws=["R3", "G5", "G7"], seats={1: {"keep_drawn": 1}},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "R3", "normal"), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 7), *scores((0, 7), (7, 0))])
case("draw-one_then_pass-keeps-a-playable-drawn-card", **DRAW_HANDS, draws=["R3", "G5", "G7"],
     rules={"draw": "one_then_pass"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "R3", "normal"), ("pass", 1),  # playable, kept
         ("turn", 0), ("draw", 0, "G5", "normal"), ("pass", 0),  # playable, kept
         ("turn", 1), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "G3"),
         ("turn", 1), ("draw", 1, "G7", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G5"),
     ],
     ending=[("round_end", 0, "win", 14), *scores((0, 14), (14, 0))])
case("draw-one_may_play-an-unplayable-drawn-card-is-kept-and-the-turn-passes", **DRAW_HANDS,
     draws=["B4", "G5", "B3"],
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "B4", "normal"), ("pass", 1),
         ("turn", 0), ("draw", 0, "G5", "normal"), ("play", 0, "G5"),
         ("turn", 1), ("draw", 1, "B3", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 14), *scores((0, 14), (14, 0))])
case("draw-one_may_play-one-card-where-two-would-be-drawn", **DRAW_HANDS,
     draws=["B9", "R3", "B8"], rules={"draw": "one_may_play"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
         ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
         ("turn", 1), ("draw", 1, "B8", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 24), *scores((0, 24), (24, 0))])
# The second of the two drawn cards is the playable one.
case("draw-two-plays-the-playable-one-of-the-two", **DRAW_HANDS, draws=["B9", "R3", "B8"],
     rules={"draw": "two"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "B9", "normal"), ("draw", 1, "R3", "normal"),
         ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 16), *scores((0, 16), (16, 0))])
case("draw-two-passes-when-neither-is-playable-and-the-policy-picks-among-two", **DRAW_HANDS,
     draws=["B9", "B8", "G5", "R3", "Y1", "Y2", "Y4", "Y6"], rules={"draw": "two"},
     table=[
         ("flip", "R5"),
         ("turn", 1), *draws(1, ["B9", "B8"], "normal"), ("pass", 1),
         # Both drawn cards are playable on R5: first_legal plays the lower card id.
         ("turn", 0), *draws(0, ["G5", "R3"], "normal"), ("play", 0, "R3"),
         ("turn", 1), *draws(1, ["Y1", "Y2"], "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G3"),
         ("turn", 1), *draws(1, ["Y4", "Y6"], "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G5"),
     ],
     ending=[("round_end", 0, "win", 37), *scores((0, 37), (37, 0))],
     facts={"round.normal_draws": 8})
case("draw-one_may_play-one-card-a-turn-past-unplayable-cards", **DRAW_HANDS,
     draws=["B9", "B8", "Y1", "R3", "B2", "B3"], rules={"draw": "one_may_play"},
     table=[
         ("flip", "R5"),
         ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
         ("turn", 0), ("draw", 0, "B8", "normal"), ("pass", 0),
         ("turn", 1), ("draw", 1, "Y1", "normal"), ("pass", 1),
         ("turn", 0), ("draw", 0, "R3", "normal"), ("play", 0, "R3"),
         ("turn", 1), ("draw", 1, "B2", "normal"), ("pass", 1),
         ("turn", 0), ("play", 0, "G3"),
         ("turn", 1), ("draw", 1, "B3", "normal"), ("play", 1, "B3"),
         ("turn", 0), ("play", 0, "B8"),
     ],
     ending=[("round_end", 0, "win", 19), *scores((0, 19), (19, 0))])
# Three unplayable cards come first, then R3, which is played at once.
case("draw-until_playable-draws-past-unplayable-cards", **DRAW_HANDS,
     draws=["B9", "B8", "Y1", "R3", "B2", "B3"], rules={"draw": "until_playable"},
     table=[
         ("flip", "R5"),
         ("turn", 1), *draws(1, ["B9", "B8", "Y1", "R3"], "normal"), ("play", 1, "R3"),
         ("turn", 0), ("play", 0, "G3"),
     ],
     ending=[("round_end", 0, "win", 25), *scores((0, 25), (25, 0))])

# ---------------------------------------------------------------- P6: empty draw pile

# 8-card deck: the one card left after the deal is drawn, then the discards come back.
case("reshuffle-when-the-draw-pile-is-empty", 3,
     {1: ["R0", "R-skip"], 2: ["G-skip", "Y-skip"], 0: ["G0", "Y0"]}, "B0",
     rules={"deck": small_deck(zero=1, skip=1)},
     table=[
         ("flip", "B0"),
         ("turn", 1), ("play", 1, "R0"),
         ("turn", 2), ("draw", 2, "B-skip", "normal"), ("pass", 2),
         ("turn", 0), ("play", 0, "Y0"),
         ("turn", 1), ("reshuffle", 2), ("draw", 1, "R0", "normal"), ("play", 1, "R0"),
         ("turn", 2), ("draw", 2, "B0", "normal"), ("play", 2, "B0"),
         ("turn", 0), ("play", 0, "G0"),
     ],
     ending=[("round_end", 0, "win", 80), *scores((0, 80), (20, 0), (60, 0))],
     facts={"round.reshuffles": 1})
# 10 cards, 3 hands of 3 and the first discard: nothing is left to draw at the start.
case("draw_fail-on-a-normal-draw-passes-the-turn", 3,
     {1: ["Y-skip", "G-skip", "B-skip"], 2: ["Y0", "G0", "B0"], 0: ["R-skip", "wild", "wild"]},
     "R0", rules={"deck": small_deck(zero=1, skip=1, wild=2)},
     table=[
         ("flip", "R0"),
         ("turn", 1), ("draw_fail", 1, "normal"), ("pass", 1),
         ("turn", 2), ("play", 2, "Y0"),
         ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"),
         ("turn", 1), ("reshuffle", 2), ("draw", 1, "Y0", "normal"), ("pass", 1),
         ("turn", 2), ("draw", 2, "R0", "normal"), ("play", 2, "R0"),
         ("turn", 0), ("play", 0, "R-skip"), ("skip", 1),
         ("turn", 2), ("reshuffle", 2), ("draw", 2, "R0", "normal"), ("play", 2, "R0"),
         ("turn", 0), ("play", 0, "wild"), ("colour", 0, "red"),
     ],
     ending=[("round_end", 0, "win", 60), *scores((0, 60), (60, 0), (0, 0))])
# S2, R1 too. 9 cards, 2 hands of 4 and the first discard: the first Draw Two finds nothing to
# draw.
case("draw_fail-abandons-the-rest-of-a-penalty", 2,
     {1: ["Y0", "G0", "B0", "wild"], 0: ["R0", "Y+2", "G+2", "B+2"]}, "R+2",
     rules={"deck": small_deck(zero=1, draw_two=1, wild=1)},
     table=[
         ("flip", "R+2"), ("draw_fail", 1, "draw_two"), ("skip", 1),
         ("turn", 0), ("play", 0, "R0"),
         ("turn", 1), ("play", 1, "Y0"),
         ("turn", 0), ("play", 0, "Y+2"),
         ("reshuffle", 3), *draws(1, ["Y0", "R0"], "draw_two"), ("skip", 1),
         ("turn", 0), ("play", 0, "G+2"),
         ("draw", 1, "R+2", "draw_two"), ("reshuffle", 1), ("draw", 1, "Y+2", "draw_two"),
         ("skip", 1),
         ("turn", 0), ("play", 0, "B+2"),
         # The last card is a Draw Two: seat 1 draws what there is before the count.
         ("reshuffle", 1), ("draw", 1, "G+2", "draw_two"), ("draw_fail", 1, "draw_two"),
     ],
     ending=[("round_end", 0, "win", 110), *scores((0, 110), (110, 0))],
     facts={"round.reshuffles": 3})


test_case, test_every_option_is_played_on_and_off = FAMILY.tests()


# ---------------------------------------------------------------- D6: the deck


def test_deck_counts_are_validated():  # D6
    with pytest.raises(rules_mod.RuleError, match="deck.zero"):
        rules_mod.RuleSet.from_mapping({"deck": {"zero": -1}})
    with pytest.raises(rules_mod.RuleError, match="deck.wilds: unknown card kind"):
        rules_mod.RuleSet.from_mapping({"deck": {"wilds": 4}})
    small = rules_mod.RuleSet.from_mapping({"deck": {"zero": 0, "numbers": 1, "skip": 0,
                                                     "reverse": 0, "draw_two": 0, "wild": 0,
                                                     "wild_draw_four": 0}})
    assert small.check_players(5) is None  # 36 cards: 5 x 7 + 1
    assert "too few to deal" in small.check_players(6)


def test_deck_must_match_the_rules():  # D6
    trace = quick_win()
    counts = trace.deck_counts.copy()
    counts[card("R1")] += 1
    with pytest.raises(RefereeError, match="deck_counts differs"):
        check_trace(dataclasses.replace(trace, deck_counts=counts))


def test_deck_must_match_the_rules_with_extras():  # D6, D4
    trace = hit_all()
    counts = trace.deck_counts.copy()
    counts[cards.HIT_ALL_ONE] += 1
    with pytest.raises(RefereeError, match="deck_counts differs"):
        check_trace(dataclasses.replace(trace, deck_counts=counts))


# ---------------------------------------------------------------- hand-written legal games

ZEROS_AND_DRAW_TWOS = {"zero": 1, "numbers": 0, "skip": 0, "reverse": 0, "draw_two": 1,
                       "wild": 0, "wild_draw_four": 0}
ZEROS_AND_SKIPS = {"zero": 1, "numbers": 0, "skip": 1, "reverse": 0, "draw_two": 0,
                   "wild": 0, "wild_draw_four": 0}


def piles_run_dry():
    """2 players, an 8-card deck: reshuffles, a penalty cut short and a normal draw that fail."""
    return written(
        2, {1: ["G+2", "R+2", "B0"], 0: ["Y0", "R0", "Y+2"]},
        rules={"uno_penalty": 0, "target_score": 1, "deck": ZEROS_AND_DRAW_TWOS},
        table=[
            ("flip", "G0"),
            ("turn", 1), ("play", 1, "G+2"), ("draw", 0, "B+2", "draw_two"), ("reshuffle", 1),
            ("draw", 0, "G0", "draw_two"), ("skip", 0),
            ("turn", 1), ("play", 1, "R+2"), ("reshuffle", 1), ("draw", 0, "G+2", "draw_two"),
            ("draw_fail", 0, "draw_two"), ("skip", 0),
            ("turn", 1), ("draw_fail", 1, "normal"), ("pass", 1),
            ("turn", 0), ("play", 0, "R0"),
            ("turn", 1), ("play", 1, "B0"),
        ],
        ending=[("round_end", 1, "win", 60), *scores((60, 0), (0, 60))],
        game_end=("game_end", 1, "target"))


def first_reverse_three_players():
    """The dealer plays first, counter-clockwise; seat 2 wins in position 1."""
    trace = written(
        3, {1: ["Y1"], 2: ["R2"], 0: ["Y3"]},
        rules={"target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R-reverse"), ("direction", -1),
            ("turn", 0), ("draw", 0, "B4", "normal"), ("pass", 0),
            ("turn", 2), ("play", 2, "R2"),
        ],
        ending=[("round_end", 2, "win", 8), *scores((7, 0), (1, 0), (0, 8))],
        game_end=("game_end", 2, "target"))
    # round_start names seat 0 as the first player (b), as the kernel writes it
    return changed(trace, find(trace, codes.EV_ROUND_START), b=0)


def first_reverse_two_players():
    return written(
        2, {1: ["Y1"], 0: ["R3"]}, rules={"target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R-reverse"), ("skip", 1),
            ("turn", 0), ("play", 0, "R3"),
        ],
        ending=[("round_end", 0, "win", 1), *scores((0, 1), (1, 0))],
        game_end=("game_end", 0, "target"))


def first_draw_two():
    """Seat 2 (dealer's left) draws 2 and is skipped; seat 0 draws and plays, calling UNO."""
    return written(
        3, {2: ["Y1"], 0: ["G2"], 1: ["R3"]},
        dealer=1, rules={"target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "R+2"), *draws(2, ["B5", "B6"], "draw_two"), ("skip", 2),
            ("turn", 0), ("draw", 0, "R9", "normal"), ("play", 0, "R9"), ("uno_call", 0),
            ("turn", 1), ("play", 1, "R3"),
        ],
        ending=[("round_end", 1, "win", 14), *scores((2, 0), (0, 14), (12, 0))],
        game_end=("game_end", 1, "target"))


def first_wild():
    return written(
        2, {0: ["Y1"], 1: ["B2"]}, dealer=1, rules={"target_score": 1, "deck": ONE_OF_EACH},
        table=[
            ("flip", "wild"), ("colour", 0, "yellow"),
            ("turn", 0), ("play", 0, "Y1"),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0))],
        game_end=("game_end", 0, "target"))


def number_only_returns_actions():
    return written(
        2, {1: ["R1"], 0: ["Y2"]},
        rules={"target_score": 1, "first_card": "number_only", "deck": ONE_OF_EACH},
        table=[
            ("flip", "R-skip"), ("flip_return", "R-skip"), ("flip", "R5"),
            ("turn", 1), ("play", 1, "R1"),
        ],
        ending=[("round_end", 1, "win", 2), *scores((2, 0), (0, 2))],
        game_end=("game_end", 1, "target"))


def number_only_no_number_left():
    """Every number card is dealt, so the flipped Skip stays, without effect."""
    return written(
        2, {1: ["R0", "Y0"], 0: ["G0", "B0"]},
        rules={"uno_penalty": 0, "max_rounds": 1, "first_card": "number_only",
               "deck": ZEROS_AND_SKIPS},
        table=[
            ("flip", "R-skip"),
            ("turn", 1), ("play", 1, "R0"),
            ("turn", 0), ("play", 0, "G0"),
            ("turn", 1), ("play", 1, "Y0"),
        ],
        ending=[("round_end", 1, "win", 0), *scores((0, 0), (0, 0))])


def draw_four_first_card_stays():
    """Only +4s are left to flip, so the +4 stays (no effect); the first player may name a
    colour (docs/engine.md does not say; the referee accepts it)."""
    return written(
        2, {1: ["R0", "Y0"], 0: ["G0", "B0"]},
        rules={"uno_penalty": 0, "max_rounds": 1,
               "deck": {**ZEROS_AND_SKIPS, "skip": 0, "wild_draw_four": 2}},
        table=[
            ("flip", "+4"), ("colour", 1, "red"),
            ("turn", 1), ("play", 1, "R0"),
            ("turn", 0), ("play", 0, "G0"),
            ("turn", 1), ("play", 1, "Y0"),
        ],
        ending=[("round_end", 1, "win", 0), *scores((0, 0), (0, 0))])


LEGAL_GAMES = [piles_run_dry, first_reverse_three_players, first_reverse_two_players,
               first_draw_two, first_wild, number_only_returns_actions,
               number_only_no_number_left, draw_four_first_card_stays]


@pytest.mark.parametrize("game", LEGAL_GAMES, ids=lambda g: g.__name__)
def test_legal_game_passes(game):
    result = check_trace(game())
    assert isinstance(result, GameResult)


# ---------------------------------------------------------------- S1, S3 on hand-written traces


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


def test_round_start_may_name_the_first_player():
    trace = quick_win()
    check_trace(changed(trace, 0, b=1))
    with pytest.raises(RefereeError, match="seat 1 plays first"):
        check_trace(changed(trace, 0, b=0))


def test_wrong_dealer():
    trace = capped_round_then_win()
    broken(changed(trace, find(trace, codes.EV_ROUND_START, nth=1), seat=0),
           "round_start of round 2 dealt by seat 1")


# ---------------------------------------------------------------- S2 on hand-written traces


def test_winner_position_follows_the_starting_direction():
    (r,) = check_trace(first_reverse_three_players()).rounds
    assert (r.first_seat, r.winner_seat, r.winner_position, r.direction_changes) == (0, 2, 1, 1)


def test_first_draw_two_counts_as_penalty_and_skip():
    (r,) = check_trace(first_draw_two()).rounds
    assert (r.first_seat, r.penalty_cards, r.normal_draws, r.skips) == (0, 2, 1, 1)
    assert r.winner_position == 1


def test_returned_first_card_is_the_flipped_one():
    trace = action_cards()
    broken(changed(trace, find(trace, codes.EV_FLIP_RETURN), a=card("wild")),
           r"expected flip_return of \+4")


def test_missed_first_card_skip():
    trace = action_cards()
    broken(deleted(trace, find(trace, codes.EV_SKIP, seat=0)),
           r"expected skip of seat 0 \(first card R-skip\)")


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


def extreme_black_first_card(first_card: str):
    """The black first card stays: seat 1 draws 4 and is skipped, the dealer names yellow."""
    return written(
        3, {1: ["R1", "R5"], 2: ["Y1", "Y2"], 0: ["Y7", "G8"]},
        rules=game_rules(first_card="extreme"),
        table=[
            ("flip", first_card), *draws(1, ["B1", "B2", "B3", "B4"], "draw_four"), ("skip", 1),
            ("colour", 0, "yellow"),
            ("turn", 2), ("play", 2, "Y1"),
            ("turn", 0), ("play", 0, "Y7"),
            ("turn", 1), ("draw", 1, "B9", "normal"), ("pass", 1),
            ("turn", 2), ("play", 2, "Y2"),
        ],
        ending=[("round_end", 2, "win", 33), *scores((8, 0), (25, 0), (0, 33))],
        game_end=("game_end", 2, "target"))


@pytest.mark.parametrize("first_card", ["wild", "+4"])
def test_extreme_black_first_card(first_card):
    trace = extreme_black_first_card(first_card)
    r = the_round(trace)
    assert numbers(r, "first_seat", "winner_position", "turns", "penalty_cards", "skips") == (
        2, 0, 4, 4, 1)
    broken(deleted(trace, find(trace, codes.EV_DRAW, seat=1, nth=3)),
           r"expected draw by seat 1 \(draw_four, card 4 of 4\)")
    broken(deleted(trace, find(trace, codes.EV_SKIP)), "expected skip of seat 1")
    broken(changed(trace, find(trace, codes.EV_COLOUR), seat=1),
           "expected colour named by the dealer, seat 0")
    broken(changed(trace, find(trace, codes.EV_COLOUR), a=4),
           "the dealer must name one of the four colours")


def test_extreme_dealer_colour_is_any_colour():
    """Red is as good a random colour as yellow: the trace then fails only at the Y1 play."""
    trace = extreme_black_first_card("wild")
    err = broken(changed(trace, find(trace, codes.EV_COLOUR), a=0), "illegal play: Y1")
    assert err.index == find(trace, codes.EV_PLAY, seat=2)


def test_extreme_first_card_stays():
    trace = extreme_black_first_card("+4")
    at = find(trace, codes.EV_FLIP) + 1
    broken(inserted(trace, at, codes.EV_FLIP_RETURN, a=card("+4")),
           r"\+4 must stay: it is an acceptable first card")
    broken(with_rules(trace, first_card="official"), r"expected flip_return of \+4")


def test_extra_black_cards_go_back_as_the_first_card():  # S2, D3, D4
    trace = written(
        2, {0: ["R1"], 1: ["Y2"]}, dealer=1, rules=game_rules({"blank": 1, "hit_all_one": 1}),
        table=[
            ("flip", "blank"), ("flip_return", "blank"), ("flip", "hit+1"),
            ("flip_return", "hit+1"), ("flip", "R5"),
            ("turn", 0), ("play", 0, "R1"),
        ],
        ending=[("round_end", 0, "win", 2), *scores((0, 2), (2, 0))],
        game_end=("game_end", 0, "target"))
    check_trace(trace)
    broken(with_rules(trace, first_card="extreme"), "blank must stay")


# ---------------------------------------------------------------- P1, P5 on hand-written traces


def test_illegal_play():  # P1
    trace = quick_win()
    err = broken(changed(trace, find(trace, codes.EV_PLAY, seat=0), a=card("Y2")),
                 "illegal play: Y2 matches neither the current colour red nor the top card R1")
    assert err.index == find(trace, codes.EV_PLAY, seat=0)
    assert "event 9 (play: r1 t2 seat 0 plays Y2)" in str(err)


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


def drawing(draw: str, drawn: list[str], then_play: str | None):
    """2 players: seat 0 cannot play Y1 on R5 and draws; seat 1 then wins with R3."""
    points = 1 + sum(int(name[1]) for name in drawn if name != then_play)
    return written(
        2, {0: ["Y1"], 1: ["R3"]}, dealer=1, rules=game_rules(draw=draw),
        table=[
            ("flip", "R5"),
            ("turn", 0), *draws(0, drawn, "normal"),
            ("play", 0, then_play) if then_play else ("pass", 0),
            ("turn", 1), ("play", 1, "R3"),
        ],
        ending=[("round_end", 1, "win", points), *scores((points, 0), (0, points))],
        game_end=("game_end", 1, "target"))


@pytest.mark.parametrize("draw, drawn, then_play", [
    ("one_then_pass", ["R6"], None),
    ("two", ["B7", "R6"], "R6"),
    ("two", ["B7", "G8"], None),
    ("until_playable", ["B7", "G8", "R6"], "R6"),
])
def test_drawing_variants(draw, drawn, then_play):
    r = the_round(drawing(draw, drawn, then_play))
    assert numbers(r, "normal_draws", "cards_played", "turns") == (
        len(drawn), 2 if then_play else 1, 2)


def test_one_then_pass_never_plays_the_drawn_card():
    trace = drawing("one_then_pass", ["R6"], None)
    broken(changed(trace, find(trace, codes.EV_PASS), kind=codes.EV_PLAY, a=card("R6")),
           r"expected pass of seat 0 \(draw: one_then_pass passes even with a playable card\)")


def test_draw_two_draws_two():
    trace = drawing("two", ["B7", "R6"], "R6")
    broken(deleted(trace, find(trace, codes.EV_DRAW)), r"card 2 of 2")
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=0), kind=codes.EV_PASS, a=-1),
           r"expected play by seat 0 of a drawn playable card \(R6\)")
    broken(changed(trace, find(trace, codes.EV_PLAY, seat=0), a=card("B7")),
           r"expected play by seat 0 of a drawn playable card \(R6\)")


def test_draw_two_plays_a_drawn_card_only():
    trace = drawing("two", ["B7", "G8"], None)
    broken(changed(trace, find(trace, codes.EV_PASS), kind=codes.EV_PLAY, a=card("Y1")),
           "expected pass of seat 0")


def test_until_playable_draws_until_a_playable_card():
    trace = drawing("until_playable", ["B7", "G8", "R6"], "R6")
    at = find(trace, codes.EV_DRAW, a=card("R6"))
    broken(changed(trace, at, kind=codes.EV_PASS, a=-1, b=-1),
           r"expected draw by seat 0 \(normal, card 3, until a playable one comes\)")
    broken(inserted(trace, at + 1, codes.EV_DRAW, 0, card("B9"), codes.DRAW_NORMAL),
           "expected play of R6 by seat 0: the drawn card is playable")


@pytest.mark.parametrize("draw", ["one_then_pass", "two", "until_playable"])
def test_every_draw_rule_passes_after_a_draw_fail(draw):
    """Both piles are empty in seat 1's third turn: it passes under every draw rule."""
    r = the_round(with_rules(piles_run_dry(), draw=draw))
    assert numbers(r, "turns", "normal_draws") == (5, 0)


# ---------------------------------------------------------------- P6 on hand-written traces


def test_dry_piles_counters():
    (r,) = check_trace(piles_run_dry()).rounds
    assert counters(r) == dict(
        turns=5, cards_played=4, cards_drawn=3, normal_draws=0, penalty_cards=3, reshuffles=2,
        direction_changes=0, challenges=0, challenges_won=0, uno_penalties=0, skips=2, jump_ins=0,
        **NO_LATER_COUNTERS)
    assert r.cards_left == (5, 0)


def test_zero_card_reshuffle_before_a_draw_fail_is_accepted():
    trace = piles_run_dry()
    at = find(trace, codes.EV_DRAW_FAIL, seat=1)
    (r,) = check_trace(inserted(trace, at, codes.EV_RESHUFFLE, a=0)).rounds
    assert r.reshuffles == 3


def test_drawn_card_not_in_draw_pile():
    trace = piles_run_dry()
    broken(changed(trace, find(trace, codes.EV_DRAW), a=card("R0")),
           "R0 is not in the draw pile")


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
