"""Game traces written by hand for the referee tests, damaged on purpose, and the checks on them.

``TraceBuilder`` only records events (it knows no rules, so a test's expectations stay written out
in the test); cards and colours are given by name: "R5", "Y-skip", "G+2", "B-reverse", "wild",
"+4"; "red", "yellow", "green", "blue". ``builder`` and ``one_turn`` start short games; ``find``,
``changed``, ``deleted``, ``inserted``, ``with_rules`` and ``with_policies`` damage a legal trace;
``broken`` asserts the referee rejects it, naming the problem; ``the_round`` and ``numbers`` read
what the referee computed.

The legal games at the end are damaged by the tests of several families.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from cases import card

from unostats import cards, codes
from unostats.engine.referee import RefereeError, check_trace
from unostats.engine.simulate import Trace
from unostats.rules import RULES_BY_KEY, RuleSet

REASONS = {name: code for code, name in enumerate(codes.DRAW_REASON_NAMES)}

# A 54-card deck with one card of every standard type (numbers 0-9, actions, wild, +4).
ONE_OF_EACH = {"zero": 1, "numbers": 1, "skip": 1, "reverse": 1, "draw_two": 1,
               "wild": 1, "wild_draw_four": 1}


def rule_set(**rules) -> RuleSet:
    """A resolved RuleSet. Keys and values must exist in the rule table; pairs that cannot be
    combined are not refused here, so tests can hand them to the referee."""
    deck = rules.pop("deck", {})
    for key, value in rules.items():
        opt = RULES_BY_KEY[key]
        if opt.values is not None and value not in opt.values:
            raise ValueError(f"{key}: unknown value {value!r}; allowed: {opt.allowed_text()}")
    unknown = set(deck) - set(cards.DECK_KEYS)
    if unknown:
        raise ValueError(f"deck: unknown card kinds {sorted(unknown)}")
    base = RuleSet.from_mapping({})
    return RuleSet(values={**base.values, **rules}, deck={**base.deck, **deck})


class TraceBuilder:
    def __init__(self, players: int, **rules):
        self.rules = rule_set(**rules)
        self.players = players
        self.rows: list[tuple[int, int, int, int]] = []

    def event(self, kind: int, seat: int = -1, a: int = -1, b: int = -1) -> TraceBuilder:
        self.rows.append((kind, seat, a, b))
        return self

    def build(self) -> Trace:
        return Trace(
            rules=self.rules,
            players=self.players,
            policies=("random",) * self.players,
            seed=0,
            game=0,
            deck_counts=self.rules.deck_counts(),
            card_points=cards.card_points(),
            events=np.array(self.rows, dtype=np.int64).reshape(-1, 4),
        )

    # Start of round.

    def round_start(self, dealer: int, number: int = 1, first: int = -1) -> TraceBuilder:
        return self.event(codes.EV_ROUND_START, dealer, number, first)

    def deal(self, dealer: int, hands: dict[int, list[str]]) -> TraceBuilder:
        """Deal ``hands[seat]`` pass by pass, from the dealer's left, clockwise."""
        for k in range(len(hands[0])):
            for offset in range(1, self.players + 1):
                seat = (dealer + offset) % self.players
                self.event(codes.EV_DEAL, seat, card(hands[seat][k]))
        return self

    def flip(self, name: str) -> TraceBuilder:
        return self.event(codes.EV_FLIP, a=card(name))

    def flip_return(self, name: str) -> TraceBuilder:
        return self.event(codes.EV_FLIP_RETURN, a=card(name))

    # Turns.

    def turn(self, seat: int) -> TraceBuilder:
        return self.event(codes.EV_TURN, seat)

    def play(self, seat: int, name: str, colour: str | None = None) -> TraceBuilder:
        self.event(codes.EV_PLAY, seat, card(name))
        return self.colour(seat, colour) if colour else self

    def turn_play(self, seat: int, name: str, colour: str | None = None) -> TraceBuilder:
        return self.turn(seat).play(seat, name, colour)

    def colour(self, seat: int, name: str) -> TraceBuilder:
        return self.event(codes.EV_COLOUR, seat, cards.COLOURS.index(name))

    def draw(self, seat: int, *names: str, reason: str = "normal") -> TraceBuilder:
        for name in names:
            self.event(codes.EV_DRAW, seat, card(name), REASONS[reason])
        return self

    def draw_fail(self, seat: int, reason: str = "normal") -> TraceBuilder:
        return self.event(codes.EV_DRAW_FAIL, seat, b=REASONS[reason])

    def pass_(self, seat: int) -> TraceBuilder:
        return self.event(codes.EV_PASS, seat)

    def skip(self, seat: int) -> TraceBuilder:
        return self.event(codes.EV_SKIP, seat)

    def direction(self, direction: int) -> TraceBuilder:
        return self.event(codes.EV_DIRECTION, a=direction)

    def challenge(self, victim: int, player: int, guilty: bool) -> TraceBuilder:
        return self.event(codes.EV_CHALLENGE, victim, player, int(guilty))

    def take_back(self, seat: int, name: str) -> TraceBuilder:
        return self.event(codes.EV_TAKE_BACK, seat, card(name))

    def jump_in(self, seat: int, name: str, colour: str | None = None) -> TraceBuilder:
        self.event(codes.EV_JUMP_IN, seat, card(name))
        return self.colour(seat, colour) if colour else self

    def escape(self, seat: int, name: str) -> TraceBuilder:
        """A8: a jump_in event with b = 1."""
        return self.event(codes.EV_JUMP_IN, seat, card(name), 1)

    def uno_call(self, seat: int) -> TraceBuilder:
        return self.event(codes.EV_UNO_CALL, seat)

    def uno_miss(self, seat: int, caught_by: int = -1) -> TraceBuilder:
        return self.event(codes.EV_UNO_MISS, seat, caught_by)

    def reshuffle(self, moved: int) -> TraceBuilder:
        return self.event(codes.EV_RESHUFFLE, a=moved)

    # End of round and game.

    def round_won(self, winner: int, points: int) -> TraceBuilder:
        return self.event(codes.EV_ROUND_END, winner, codes.ROUND_END_WIN, points)

    def round_capped(self) -> TraceBuilder:
        return self.event(codes.EV_ROUND_END, -1, codes.ROUND_END_CAP, 0)

    def scores(self, *hand_points_and_scores: tuple[int, int]) -> TraceBuilder:
        for seat, (hand_points, score) in enumerate(hand_points_and_scores):
            self.event(codes.EV_SCORE, seat, hand_points, score)
        return self

    def game_won(self, winner: int) -> TraceBuilder:
        return self.event(codes.EV_GAME_END, winner, codes.GAME_END_TARGET)

    def game_capped(self) -> TraceBuilder:
        return self.event(codes.EV_GAME_END, -1, codes.GAME_END_CAP)

    # Issue 5 (docs/engine.md "Number-card rules, deck extras, scoring and round modes").

    def mistake(self, seat: int, owed: int) -> TraceBuilder:
        return self.event(codes.EV_MISTAKE, seat, owed)

    def slap(self, slowest: int, starter: int, kind: str = "zero") -> TraceBuilder:
        return self.event(codes.EV_SLAP, slowest, starter, codes.SLAP_NAMES.index(kind))

    def silence_break(self, seat: int, owed: int) -> TraceBuilder:
        return self.event(codes.EV_SILENCE_BREAK, seat, owed)

    def swap_hands(self, seat: int, other: int) -> TraceBuilder:
        return self.event(codes.EV_SWAP_HANDS, seat, other)

    def pass_hands(self, seat: int, direction: int = 1) -> TraceBuilder:
        return self.event(codes.EV_PASS_HANDS, seat, direction)

    def give(self, seat: int, name: str, to: int) -> TraceBuilder:
        return self.event(codes.EV_GIVE, seat, card(name), to)

    def finish(self, seat: int, place: int) -> TraceBuilder:
        return self.event(codes.EV_FINISH, seat, place)

    def new_hand(self, seat: int, emptied: int, new_cards: int) -> TraceBuilder:
        return self.event(codes.EV_NEW_HAND, seat, emptied, new_cards)


# Damaging a valid trace.


def find(trace: Trace, kind: int, seat: int | None = None, a: int | None = None,
         nth: int = 0) -> int:
    """Row index of the ``nth`` event of ``kind`` (optionally by ``seat`` / with ``a``)."""
    hits = [i for i, (k, s, x, _) in enumerate(trace.events.tolist())
            if k == kind and seat in (None, s) and a in (None, x)]
    return hits[nth]


def with_policies(trace: Trace, *policies: str) -> Trace:
    """The trace with these seat policies (N2: the referee checks what a seat gives by them)."""
    assert len(policies) == trace.players, policies
    return dataclasses.replace(trace, policies=tuple(policies))


def with_events(trace: Trace, rows) -> Trace:
    return dataclasses.replace(trace, events=np.array(rows, dtype=np.int64).reshape(-1, 4))


def changed(trace: Trace, index: int, **fields: int) -> Trace:
    """The trace with some of (kind, seat, a, b) of one event replaced."""
    rows = trace.events.tolist()
    names = ("kind", "seat", "a", "b")
    rows[index] = [fields.get(name, value) for name, value in zip(names, rows[index])]
    return with_events(trace, rows)


def deleted(trace: Trace, index: int) -> Trace:
    rows = trace.events.tolist()
    del rows[index]
    return with_events(trace, rows)


def inserted(trace: Trace, index: int, kind: int, seat: int = -1, a: int = -1,
             b: int = -1) -> Trace:
    rows = trace.events.tolist()
    rows.insert(index, [kind, seat, a, b])
    return with_events(trace, rows)


# Checking with the referee.


def broken(trace: Trace, match: str) -> RefereeError:
    """The referee must reject ``trace`` with a message matching ``match``."""
    with pytest.raises(RefereeError, match=match) as caught:
        check_trace(trace)
    return caught.value


def the_round(trace: Trace):
    """The one round the referee computes for a one-round trace."""
    (r,) = check_trace(trace).rounds
    return r


def numbers(r, *names: str) -> tuple:
    return tuple(getattr(r, name) for name in names)


def counters(r) -> dict[str, int]:
    """Every counter of a RoundResult (codes.COUNTER_NAMES)."""
    return {name: getattr(r, name) for name in codes.COUNTER_NAMES}


# The counters of the number-card rules, slaps, silences and mistakes: 0 under the official rules.
NO_LATER_COUNTERS = dict(hand_swaps=0, card_swaps=0, slaps=0, silence_breaks=0, mistakes=0)


def with_rules(trace: Trace, **values) -> Trace:
    """The trace with some rules switched (not validated: the referee must refuse bad pairs)."""
    rules = RuleSet(values={**trace.rules.values, **values}, deck=trace.rules.deck)
    return dataclasses.replace(trace, rules=rules)


# Short games.

# The first round decides the game.
GAME = {"uno_penalty": 0, "target_score": 1}
# One round only, whatever the scores (a capped round ends it at once with max_turns).
ONE_ROUND = {"uno_penalty": 0, "max_rounds": 1, "target_score": 10_000}


def builder(players: int, hand_size: int, deck=None, **rules) -> TraceBuilder:
    """A game decided by its first round, on ONE_OF_EACH with ``deck``'s counts on top."""
    return TraceBuilder(players, hand_size=hand_size, deck={**ONE_OF_EACH, **(deck or {})},
                        **{**GAME, **rules})


def one_turn(players: int, hand_size: int, deck=None, **rules) -> TraceBuilder:
    """A round capped after its first turn (max_turns 1): enough to check an effect's result."""
    return TraceBuilder(players, hand_size=hand_size, deck={**ONE_OF_EACH, **(deck or {})},
                        **{**ONE_ROUND, "max_turns": 1, **rules})


# Legal games that the tests of several families damage (hit_all: D4, with a hit+2).


def quick_win() -> Trace:
    """2 players, 2 cards each; seat 1 plays out in three turns."""
    b = TraceBuilder(2, hand_size=2, uno_penalty=0, target_score=1, deck=ONE_OF_EACH)
    b.round_start(0).deal(0, {1: ["R1", "R3"], 0: ["R2", "Y2"]}).flip("R5")
    b.turn_play(1, "R1").turn_play(0, "R2").turn_play(1, "R3")
    b.round_won(1, 2).scores((2, 0), (0, 2)).game_won(1)
    return b.build()


def action_cards() -> Trace:
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


def capped_round_then_win() -> Trace:
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


def hit_all() -> Trace:
    """Seat 0's hit+2: seats 1 and 2 draw 2 each, and seat 1 still takes its turn."""
    b = builder(3, 2, {"hit_all_two": 1})
    b.round_start(2).deal(2, {0: ["hit+2", "R1"], 1: ["Y2", "Y3"], 2: ["G4", "G6"]}).flip("R5")
    b.turn_play(0, "hit+2", "red")
    b.draw(1, "B1", "B2", reason="hit_all").draw(2, "B3", "B4", reason="hit_all")
    b.turn(1).draw(1, "B5").pass_(1)
    b.turn(2).draw(2, "B6").pass_(2)
    b.turn_play(0, "R1")
    b.round_won(0, 36).scores((0, 36), (13, 0), (23, 0)).game_won(0)
    return b.build()
