"""The referee's model of a game: its table (piles, hands, colour, direction), the moves
and penalties it replays, its errors and the results it computes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ... import cards, codes

if TYPE_CHECKING:
    from ..simulate import Trace


class RefereeError(AssertionError):
    """A trace breaks a rule. ``index`` is the offending event's row (None: not an event)."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


@dataclass(frozen=True)
class RoundResult:
    """What the referee itself computed for one round (counters as in codes.COUNTER_NAMES)."""

    round: int
    dealer_seat: int
    first_seat: int
    winner_seat: int | None
    winner_position: int | None
    turns: int
    cards_played: int
    cards_drawn: int
    normal_draws: int
    penalty_cards: int
    reshuffles: int
    direction_changes: int
    challenges: int
    challenges_won: int
    uno_penalties: int
    skips: int
    jump_ins: int  # cards played out of turn (J1 jump-ins and A8 escapes)
    points: int
    ended_by: str  # "win" | "cap"
    hand_points: tuple[int, ...]
    cards_left: tuple[int, ...]
    score_after: tuple[int, ...]
    # Number-card, deck, scoring and round rules (docs/engine.md): counters, and what the scoring and round modes record.
    hand_swaps: int = 0  # swap_hands and pass_hands events (N1, D5)
    card_swaps: int = 0  # exchanges of one card each (N2, D5 swap one)
    slaps: int = 0  # N4
    silence_breaks: int = 0  # N5
    mistakes: int = 0  # U2
    loser_seat: int | None = None  # R6 lazy and R9 to_the_last only; None when capped
    finish_order: tuple[int, ...] = ()  # R9 to_the_last: seats in the order they finished
    hands_emptied: tuple[int, ...] = ()  # R10 seven_rounds: hands each seat emptied
    largest_penalty: int = 0  # the most penalty cards one seat drew at once (one penalty)
    # How the round played (codes.MEASURE_NAMES, referee/_measures.py; None: not counted).
    hand_leader_changes: int | None = 0
    winner_largest_deficit: int | None = None
    decision_turns: int | None = 0
    legal_cards_on_decisions: int | None = 0
    uno_stops: int | None = 0
    uno_stops_still_won: int | None = 0


@dataclass(frozen=True)
class GameResult:
    rounds: tuple[RoundResult, ...]
    winner_seat: int | None
    ended_by: str  # "target" | "cap"
    final_scores: tuple[int, ...]
    # The game's losers by the scoring mode (none when capped). Left out of equality so that a
    # GameResult written without it (every mode before engine version 4 named winners only) still equals.
    losers: tuple[int, ...] = field(default=(), compare=False)


def _rows(trace: Trace) -> list[tuple[int, int, int, int]]:
    events = trace.events
    if events.ndim != 2 or events.shape[1] != 4:
        raise RefereeError(f"trace events must be an [n, 4] array, got shape {events.shape}")
    return [tuple(row) for row in events.tolist()]


_COLOUR = tuple(int(c) for c in cards.TYPE_COLOUR)


_RANK = tuple(int(r) for r in cards.TYPE_RANK)


# P7: the colour cycle drawn on the cards, clockwise: red, blue, green, yellow.
_CYCLE = tuple(cards.COLOURS.index(name) for name in ("red", "blue", "green", "yellow"))


def _cycle_next(colour: int, direction: int) -> int:
    return _CYCLE[(_CYCLE.index(colour) + direction) % len(_CYCLE)]


def _is_coloured_action(card: int) -> bool:
    return not cards.is_black(card) and _RANK[card] >= cards.SKIP


class _Table:
    """Where every card of one round is, as the referee sees it."""

    def __init__(self, deck: Counter, players: int):
        self.draw_pile = Counter(deck)
        self.discard: list[int] = []
        self.hands = [Counter() for _ in range(players)]
        self.colour = cards.NO_COLOUR
        self.direction = 1

    @property
    def top(self) -> int:
        return self.discard[-1]

    def draw_pile_size(self) -> int:
        return self.draw_pile.total()

    def hand_size(self, seat: int) -> int:
        return self.hands[seat].total()

    def card_count(self) -> int:
        return self.draw_pile.total() + len(self.discard) + sum(h.total() for h in self.hands)

    def take_from_draw_pile(self, card: int) -> None:
        _remove(self.draw_pile, card)

    def play(self, seat: int, card: int) -> None:
        _remove(self.hands[seat], card)
        self.discard.append(card)

    def take_back(self, seat: int, card: int, colour_before: int) -> None:
        """P4: the card goes back to the hand; if it was on top, the previous top card and colour
        are current again (a two_matching extra card on it stays on top)."""
        at = len(self.discard) - 1 - self.discard[::-1].index(card)
        if at == len(self.discard) - 1:
            self.colour = colour_before
        del self.discard[at]
        self.hands[seat][card] += 1

    def reshuffle(self) -> None:
        """All discards but the top become the draw pile (P6)."""
        self.draw_pile.update(self.discard[:-1])
        del self.discard[:-1]

    def holds_colour(self, seat: int, colour: int) -> bool:
        """Does the seat hold a card of this colour? Black cards have none (and after a black
        first card that stays, no colour is current)."""
        return colour < cards.N_COLOURS and any(_COLOUR[t] == colour for t in self.hands[seat])

    def matches(self, card: int) -> bool:
        """P1: the current colour, the top card's number/symbol, or any black card."""
        if cards.is_black(card):
            return True
        return _COLOUR[card] == self.colour or _RANK[card] == _RANK[self.top]

    def may_play(self, seat: int, card: int, restricted: frozenset[int]) -> bool:
        """P1 with the P2/P3 restrictions (a bluff is not counted as a legal choice here)."""
        if card in restricted:
            return not self.holds_colour(seat, self.colour)
        return self.matches(card)

    def legal_cards(self, seat: int, restricted: frozenset[int]) -> list[int]:
        return sorted(t for t in self.hands[seat] if self.may_play(seat, t, restricted))

    def preferred_colour(self, seat: int) -> int:
        """The colour the seat holds most; ties go to the lowest colour index."""
        held = Counter(_COLOUR[t] for t in self.hands[seat].elements())
        return max(range(cards.N_COLOURS), key=lambda c: (held[c], -c))

    def hand_points(self, seat: int, points: list[int]) -> int:
        return sum(points[t] * k for t, k in self.hands[seat].items())


def _remove(multiset: Counter, card: int) -> None:
    multiset[card] -= 1
    if not multiset[card]:
        del multiset[card]


class _Played(NamedTuple):
    card: int
    colour_before: int
    held_colour_before: bool  # the player held a card of colour_before (guilt of a black card)


class _Move(NamedTuple):
    """One play action: the cards of a turn (several under A2/N3), or one card out of turn."""

    seat: int
    card: int  # the card whose effect applies: the turn's first card (extras are numbers)
    count: int  # 2 for a double action (A2), else 1
    turn: bool  # False for a jump-in (J1) or a skip escape (A8)
    played: _Played  # the first card, as it was played


_PENALTY_NAMES = {codes.DRAW_DRAW_TWO: "Draw Two", codes.DRAW_DRAW_FOUR: "+4",
                  codes.DRAW_BLANK: "blank +10"}


class _Penalty(NamedTuple):
    """A draw penalty owed by the next seat (A3-A6): its chain's kind (a draw reason), its total."""

    reason: int
    total: int

    def __str__(self) -> str:
        return f"{_PENALTY_NAMES[self.reason]} of {self.total}"


class _Event(NamedTuple):
    index: int
    kind: int
    seat: int
    a: int
    b: int


class _RoundWon(Exception):
    """A hand is empty (raised wherever the last card is played, in turn or out of turn)."""

    def __init__(self, seat: int):
        super().__init__(seat)
        self.seat = seat


class _CoversCapped(Exception):
    """N6: one turn's chain of covers is longer than the deck (8s covering 8s drawn back from
    the discards never end): the round ends at the cap."""


# D4 hit-all cards: what every other seat draws; R8: what finishing with one takes off.
_HIT_ALL = {cards.HIT_ALL_ONE: 1, cards.HIT_ALL_TWO: 2}


def _number(card: int) -> int | None:
    """The number of a number card, else None."""
    return _RANK[card] if cards.is_number(card) else None
