"""The referee on the turn variants of docs/engine.md (RULES.md sections 2-5 and N3).

For every rule value: hand-written legal games that the referee accepts with the right numbers,
and broken copies of them (one event changed, removed or added) that it rejects, naming the
problem.
"""

from __future__ import annotations

from traces import (
    broken,
    builder,
    card,
    changed,
    deleted,
    find,
    inserted,
    numbers,
    the_round,
    with_rules,
)

from unostats import codes

# --- N3 multi_play ---------------------------------------------------------------------------


def same_rank():
    b = builder(2, 3, {"numbers": 2}, multi_play="same_rank")
    b.round_start(1).deal(1, {0: ["R5", "B5", "G5"], 1: ["B2", "B7", "Y9"]}).flip("R3")
    b.turn_play(0, "R5").play(0, "G5").play(0, "B5")
    b.round_won(0, 18).scores((0, 18), (18, 0)).game_won(0)
    return b.build()


def test_same_rank():
    trace = same_rank()
    assert numbers(the_round(trace), "turns", "cards_played") == (1, 3)
    broken(changed(trace, find(trace, codes.EV_PLAY, nth=1), a=card("B5")),
           "expected G5: same_rank plays in card-id order")
    broken(deleted(trace, find(trace, codes.EV_PLAY, nth=2)),
           r"expected play of B5 by seat 0 \(multi_play same_rank")
    broken(with_rules(trace, multi_play="none"), "seat 0 has no further card to play")


def two_matching():
    """Seat 0 plays R-skip and B3 (it matches R3, the top card at the start of the turn)."""
    b = builder(2, 3, multi_play="two_matching")
    b.round_start(1).deal(1, {0: ["R-skip", "B3", "B7"], 1: ["G1", "G2", "G4"]}).flip("R3")
    b.turn_play(0, "R-skip").play(0, "B3").skip(1)
    b.turn_play(0, "B7")
    b.round_won(0, 7).scores((0, 7), (7, 0)).game_won(0)
    return b.build()


def test_two_matching():
    trace = two_matching()
    assert numbers(the_round(trace), "turns", "cards_played", "skips") == (2, 3, 1)
    broken(changed(trace, find(trace, codes.EV_PLAY, nth=1), a=card("B7")),
           "B7 is not a number card matching R3 in red, the top card at the start of the turn")
    broken(deleted(trace, find(trace, codes.EV_PLAY, nth=1)),
           r"expected a second card by seat 0 \(multi_play two_matching: it holds B3")
    at = find(trace, codes.EV_SKIP)
    broken(inserted(trace, at, codes.EV_PLAY, 0, card("B7")),
           "seat 0 has no further card to play in this turn")
