"""The referee: a slow, readable replay of one traced game that checks every event.

``check_trace`` walks the events of a ``Trace`` in order, keeping its own model of the table (the
draw pile as a multiset, since the engine draws uniformly at random and order is not observable;
the discard pile; every hand; colour, direction and whose turn it is; the scores) and checks each
event against docs/engine.md. It raises ``RefereeError`` at the first event that breaks a rule and
otherwise returns what it computed itself, so the engine's statistics can be compared with it.

The referee deliberately shares no code with the Numba kernels: a rule bug would have to be made
twice, in two different styles, to slip through. It supports exactly the rule options listed in
``_CLAIMED`` (every value of each) and refuses any other with ``NotImplementedError``; pairs the
rule table forbids (``needs``) are a ``RefereeError``. It reads the options through one object
(``self.rules``, by key).

The turn variants of docs/engine.md are checked in one flow: a turn (or a penalty drawn without
one), its plays (A2 double action, N3 extras), UNO and a win, the jump-ins that follow (J1-J4),
then the effects (A1 and its variants, P4 challenges). Three pieces of state carry from one turn
to the next: a pending penalty (A3-A6), the +2/Reverse sequence (A6 extreme) and the Skip run (A7).

The number-card, deck, scoring and round rules (docs/engine.md "Number-card rules, deck extras, scoring and round modes")
hook into the same flow: a turn starts with the N5 silence and U2 mistake checks; a move ends with
UNO (and its N4 slap), the empty hand (the round's end, a R9 finish or a R10 new hand), the N4
zero slap and the N5 silence start, before its jump-ins and effects; an 8 under N6 defers all that
to its cover. The round's end is scored by the R2-R8 scoring mode, and R6 lazy picks the next
dealer. What the referee cannot see (the slowest seat of a slap, who breaks a silence, who errs,
a random policy's gift) it accepts from any seat that could have done it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from .. import cards, codes, rules
from ..seats import PRESETS, WeightedPolicy

if TYPE_CHECKING:
    from .simulate import Trace


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


@dataclass(frozen=True)
class GameResult:
    rounds: tuple[RoundResult, ...]
    winner_seat: int | None
    ended_by: str  # "target" | "cap"
    final_scores: tuple[int, ...]
    # The game's losers by the scoring mode (none when capped). Left out of equality so that a
    # GameResult written without it (every mode before engine version 4 named winners only) still equals.
    losers: tuple[int, ...] = field(default=(), compare=False)


def check_trace(trace: Trace) -> GameResult:
    """Replay ``trace``; raise RefereeError at the first violation, else return the results."""
    return _Referee(trace).run()


def format_trace(trace: Trace) -> str:
    """One readable line per event, e.g. ``r1 t12 seat 2 plays R-skip``."""
    rows = _rows(trace)
    return "\n".join(prefix + _describe(*row) for prefix, row in zip(_prefixes(rows), rows))


# --- Rendering -------------------------------------------------------------------------------


def _rows(trace: Trace) -> list[tuple[int, int, int, int]]:
    events = trace.events
    if events.ndim != 2 or events.shape[1] != 4:
        raise RefereeError(f"trace events must be an [n, 4] array, got shape {events.shape}")
    return [tuple(row) for row in events.tolist()]


def _prefixes(rows):
    """The 'r<round> t<turn> ' context of each row (no turn part before a round's first turn)."""
    round_no = turn_no = 0
    for kind, _, a, _ in rows:
        if kind == codes.EV_ROUND_START:
            round_no, turn_no = a, 0
        elif kind == codes.EV_TURN:
            turn_no += 1
        yield f"r{round_no} t{turn_no} " if turn_no else f"r{round_no} "


def _card(t: int) -> str:
    return cards.card_to_str(t)


def _colour(c: int) -> str:
    return cards.COLOURS[c] if 0 <= c < cards.N_COLOURS else f"colour {c}"


def _reason(b: int) -> str:
    names = codes.DRAW_REASON_NAMES
    return names[b] if 0 <= b < len(names) else f"reason {b}"


_TEMPLATES = {
    codes.EV_DEAL: "seat {seat} is dealt {card}",
    codes.EV_FLIP: "{card} is turned up",
    codes.EV_FLIP_RETURN: "{card} goes back into the draw pile",
    codes.EV_TURN: "seat {seat} takes its turn",
    codes.EV_PLAY: "seat {seat} plays {card}",
    codes.EV_COLOUR: "seat {seat} names {colour}",
    codes.EV_DRAW: "seat {seat} draws {card} ({reason})",
    codes.EV_DRAW_FAIL: "seat {seat} cannot draw ({reason})",
    codes.EV_PASS: "seat {seat} passes",
    codes.EV_SKIP: "seat {seat} is skipped",
    codes.EV_DIRECTION: "direction becomes {a:+d}",
    codes.EV_UNO_CALL: "seat {seat} calls UNO",
    codes.EV_RESHUFFLE: "reshuffle: {a} discards become the draw pile",
    codes.EV_SCORE: "seat {seat} holds {a} points, score {b}",
    codes.EV_JUMP_IN: "seat {seat} jumps in with {card}",
    codes.EV_TAKE_BACK: "seat {seat} takes {card} back",
    codes.EV_MISTAKE: "seat {seat} makes a mistake and owes {a} cards",
    codes.EV_SILENCE_BREAK: "seat {seat} breaks the silence and owes {a} cards",
    codes.EV_SWAP_HANDS: "seat {seat} swaps hands with seat {a}",
    codes.EV_PASS_HANDS: "every hand passes on in direction {a:+d}",
    codes.EV_GIVE: "seat {seat} gives {card} to seat {b}",
    codes.EV_FINISH: "seat {seat} finishes in place {a}",
    codes.EV_NEW_HAND: "seat {seat} has emptied hand {a} and takes {b} new cards",
}


def _describe(kind: int, seat: int, a: int, b: int) -> str:
    if kind in _TEMPLATES:
        return _TEMPLATES[kind].format(seat=seat, a=a, b=b, card=_card(a), colour=_colour(a),
                                       reason=_reason(b))
    if kind == codes.EV_ROUND_START:
        first = f", seat {b} plays first" if b != -1 else ""
        return f"round {a} starts, seat {seat} deals{first}"
    if kind == codes.EV_CHALLENGE:
        verdict = {1: "guilty", 0: "innocent"}.get(b, f"b = {b}")
        return f"seat {seat} challenges seat {a}: {verdict}"
    if kind == codes.EV_UNO_MISS:
        caught = f"caught by seat {a}" if a != -1 else "nobody notices"
        return f"seat {seat} forgets UNO, {caught}"
    if kind == codes.EV_SLAP:
        what = {codes.SLAP_ZERO: "0 played", codes.SLAP_UNO: "UNO called"}.get(b, f"b = {b}")
        return f"seat {seat} is the slowest to slap ({what} by seat {a})"
    if kind == codes.EV_ROUND_END:
        if a == codes.ROUND_END_WIN:
            return f"round ends: seat {seat} wins {b} points"
        if a == codes.ROUND_END_CAP:
            return f"round ends at the turn cap (seat {seat}, {b} points)"
        return f"round ends with unknown code {a} (seat {seat}, {b} points)"
    if kind == codes.EV_GAME_END:
        if a == codes.GAME_END_TARGET:
            return f"game ends: seat {seat} wins"
        if a == codes.GAME_END_CAP:
            return f"game ends at the round cap (seat {seat})"
        return f"game ends with unknown code {a} (seat {seat})"
    return f"unknown event kind {kind} (seat {seat}, a {a}, b {b})"


# --- Supported rules -------------------------------------------------------------------------

# The rule options the referee checks, every value of each. Claimed here rather than read from
# rules.RULE_OPTIONS, so that adding a rule to the table does not silently claim that the referee
# checks it too.
_CLAIMED = frozenset({
    "hand_size", "first_card", "wild_draw_four", "wild", "challenge", "draw", "colour_cycle",
    "double_action", "stack_draw_two", "stack_draw_four", "draw_two_on_draw_four",
    "draw_four_on_draw_two",
    "reverse_deflects", "stack_skip", "skip_escape", "jump_in", "multi_play", "seven_zero",
    "five_swap", "zero_slap", "uno_slap", "silence", "eight_cover", "uno_penalty",
    "mistake_penalty", "scoring", "target_score", "lone_zero_value", "h2o_bonus", "round_end",
    "max_turns", "max_rounds", "blank_effect", "custom_wild_effect",
})


def _check_supported(trace: Trace) -> None:
    """Refuse a rule the referee does not claim, and the pairs the rule table's ``needs``
    forbid (the loader refuses them too: a trace that holds one was not built by it)."""
    values = trace.rules.values
    for key, value in values.items():
        if key not in _CLAIMED:
            raise NotImplementedError(f"the referee does not know the rule {key!r}")
        allowed = rules.RULES_BY_KEY[key].values  # an int option: any value (traces may cap low)
        if allowed is not None and value not in allowed:
            raise NotImplementedError(f"the referee cannot check rule {key} = {value!r} "
                                      f"(the rule table's values: {allowed})")
    for key, why in rules.unmet_needs(values):
        raise RefereeError(f"trace.rules combine what docs/engine.md forbids: {key}: {why}")
    if list(trace.deck_counts) != list(trace.rules.deck_counts()):
        raise RefereeError("trace.deck_counts differs from the deck of trace.rules")


# --- The table -------------------------------------------------------------------------------

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


# J1: the cards each jump_in mode lets players jump in on.
_JUMPABLE = {
    "none": lambda card: False,
    "numbers": cards.is_number,
    "all_but_draw_four": lambda card: not cards.is_black(card) or card == cards.WILD,
    "extreme": lambda card: not cards.is_black(card),
}
# P4: what an innocent challenger draws, for a +4 and for a plain Wild.
_INNOCENT_DRAWS = {"official": (6, 2), "house": (6, 2), "extreme": (8, 8)}

# N5: the cards that start (or renew) each kind of silence, and what breaking it costs.
_SILENCE_STARTS = {
    "none": lambda card: False,
    "seven": lambda card: _number(card) == 7,
    "two": lambda card: _number(card) == 2,
    "black": cards.is_black,
}
_SILENCE_PENALTY = {"seven": 4, "two": 2, "black": 2}
# D4 hit-all cards: what every other seat draws; R8: what finishing with one takes off.
_HIT_ALL = {cards.HIT_ALL_ONE: 1, cards.HIT_ALL_TWO: 2}
_H2O_BONUS = {cards.HIT_ALL_ONE: 20, cards.HIT_ALL_TWO: 40}
# R3/R4: the modes where every seat keeps its own points and the lowest total is best.
_OWN_POINTS = ("own_points_low_wins", "own_points_lose_at")
# round_end b, as each scoring mode computes it (for messages).
_ROUND_POINTS = {
    "winner_takes_all": "the sum of the other hands",
    "own_points_low_wins": "the sum of what every seat added to its own score",
    "own_points_lose_at": "the sum of what every seat added to its own score",
    "card_count": "the number of cards in the other hands",
    "lazy": "one round won",
}


def _number(card: int) -> int | None:
    """The number of a number card, else None."""
    return _RANK[card] if cards.is_number(card) else None


def _strategist_gift(hand: Counter, points: list[int]) -> int:
    """N2, D5 swap one: the card the strategist gives away: the lowest class (numbers, coloured
    actions, black cards), then the most points; ties to the lowest card id. (Every other
    policy gives the card it scores best.)"""

    def card_class(t: int) -> int:
        return 2 if cards.is_black(t) else int(not cards.is_number(t))

    return min(hand, key=lambda t: (card_class(t), -points[t], t))


# What a weighted policy's kind features call each rank (numbers: "number").
_KIND_NAMES = {cards.SKIP: "skip", cards.REVERSE: "reverse", cards.DRAW_TWO: "draw_two",
               cards.WILD_RANK: "wild", cards.WILD_DRAW_FOUR_RANK: "wild_draw_four",
               cards.BLANK_RANK: "blank", cards.HIT_ALL_ONE_RANK: "hit_all",
               cards.HIT_ALL_TWO_RANK: "hit_all", cards.SWAP_HANDS_RANK: "swap_hands",
               cards.CUSTOM_WILD_RANK: "custom_wild"}
_ATTACKS = (cards.SKIP, cards.REVERSE, cards.DRAW_TWO, cards.WILD_DRAW_FOUR_RANK)


def _weighted_score(policy: WeightedPolicy, hand: Counter, card: int, colour: int, top: int,
                    threat: bool, points: list[int]) -> float:
    """A weighted policy's score of ``card`` in ``hand`` (docs/engine.md "Policies as data"),
    summed in the kernel's order so that equal scores are equal to the last bit."""
    w = policy.weight
    black = cards.is_black(card)
    same_colour = sum(k for t, k in hand.items() if _COLOUR[t] == _COLOUR[card]) - 1
    same_rank = sum(k for t, k in hand.items() if _RANK[t] == _RANK[card]) - 1
    linked = sum(k for t, k in hand.items()
                 if _COLOUR[t] == _COLOUR[card] or _RANK[t] == _RANK[card]) - 1
    features = (
        ("points", points[card]),
        ("colour_match", float(not black and _COLOUR[card] == colour)),
        ("rank_match", float(_RANK[card] == _RANK[top])),
        ("colour_held", same_colour),
        ("rank_held", same_rank),
        ("links", linked),
        ("attack", float(threat and _RANK[card] in _ATTACKS)),
    )
    total = w(_KIND_NAMES.get(_RANK[card], "number"))
    for name, value in features:
        total += w(name) * value
    return total


# --- The referee -----------------------------------------------------------------------------


class _Referee:
    def __init__(self, trace: Trace):
        _check_supported(trace)
        self.rules = SimpleNamespace(**trace.rules.values)  # every option, by its key
        self.players = trace.players
        self.restricted = frozenset(
            card for card, key in ((cards.WILD_DRAW_FOUR, "wild_draw_four"), (cards.WILD, "wild"))
            if trace.rules.values[key] == "no_matching_colour")
        # A3-A6: which penalties wait for an answer instead of being drawn at once.
        r = self.rules
        self.draw_two_pends = (r.stack_draw_two != "none" or r.draw_four_on_draw_two
                               or r.reverse_deflects == "back")
        self.draw_four_pends = (r.stack_draw_four != "none" or r.draw_two_on_draw_four
                                or r.reverse_deflects == "back")
        self.policies = tuple(trace.policies)
        self.weighted = tuple(trace.weighted)
        self.deck = Counter({t: int(k) for t, k in enumerate(trace.deck_counts) if k})
        self.covers = 0  # N6: the covers of the current turn's chain
        self.card_points = [int(p) for p in trace.card_points]
        self.rows = _rows(trace)
        self.pos = 0
        self.scores = [0] * self.players
        self.rounds_lost = [0] * self.players  # R6 lazy: rounds each seat lost
        self.table = _Table(self.deck, self.players)
        self.count: dict[str, int] = {}
        self.pending: _Penalty | None = None  # owed by the seat that acts next (A3-A6)
        self.escalation = 0  # value of the open +2/Reverse sequence, 0 when closed (A6 extreme)
        self.skip_run = 0  # players the last Skip skipped, for the turn right after (A7)
        self._new_round_state()

    def _new_round_state(self) -> None:
        """The per-round state of the number-card, deck, scoring and round rules."""
        n = self.players
        self.in_round = [True] * n  # R9: False once a seat has finished
        self.finish_order: list[int] = []  # R9
        self.hands_done = [0] * n  # R10: hands each seat emptied
        self.last_laid: list[int | None] = [None] * n  # the last card each seat laid down
        self.finishing_card: dict[int, int] = {}  # R8: the card that emptied a hand for good
        self.silence_owner: int | None = None  # N5 seven/two: the seat whose next turn ends it
        self.silence_colour: int | None = None  # N5 black: the colour whose change ends it

    # Event cursor.

    def _fail(self, index: int, problem: str) -> NoReturn:
        if index >= len(self.rows):
            raise RefereeError(f"event {index} (end of trace): {problem}", index)
        row = self.rows[index]
        prefix = next(islice(_prefixes(self.rows), index, None))
        name = codes.EVENT_NAMES.get(row[0], f"kind {row[0]}")
        raise RefereeError(f"event {index} ({name}: {prefix}{_describe(*row)}): {problem}", index)

    def _fail_next(self, problem: str) -> NoReturn:
        self._fail(self.pos, problem)

    def _peek(self) -> int | None:
        return self.rows[self.pos][0] if self.pos < len(self.rows) else None

    def _take(self, kinds: int | tuple[int, ...], expected: str, seat: int | None = None) -> _Event:
        """Consume the next event, which must be of ``kinds`` (and by ``seat`` if given)."""
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if self._peek() not in kinds:
            self._fail_next(f"expected {expected}")
        event = _Event(self.pos, *self.rows[self.pos])
        if seat is not None and event.seat != seat:
            self._fail_next(f"expected {expected}")
        self.pos += 1
        return event

    def _check(self, ok: bool, event: _Event, problem: str) -> None:
        if not ok:
            self._fail(event.index, problem)

    def _next(self, seat: int) -> int:
        """The next seat in the round in the current direction (R9: finished seats are out)."""
        for step in range(1, self.players + 1):
            after = (seat + step * self.table.direction) % self.players
            if self.in_round[after]:
                return after
        raise AssertionError("no seat is left in the round")

    def _seats_left(self) -> int:
        return sum(self.in_round)

    def _playing_order(self, seat: int) -> list[int]:
        """The seats in the round in playing order from next(seat): the seat itself last, if it
        is still in the round."""
        order: list[int] = []
        s = seat
        while (s := self._next(s)) not in order:
            order.append(s)
        return order

    def _others(self, seat: int) -> list[int]:
        return [s for s in self._playing_order(seat) if s != seat]

    def _policy(self, seat: int) -> str:
        return self.policies[seat] if seat < len(self.policies) else "random"

    def _weighted(self, seat: int) -> WeightedPolicy | None:
        """The weights the seat plays by: its policy written as data, or its bundled policy's
        preset; None for the strategist (seats.CODED), whose turn choices are not checked."""
        policy = self.weighted[seat] if seat < len(self.weighted) else None
        return policy or PRESETS.get(self._policy(seat))

    def _best_scored(self, seat: int, candidates: list[int]) -> list[int]:
        """Of ``candidates`` (card types in the seat's hand), those the seat's weighted policy
        may choose: the best-scoring ones, or with ``ties: first`` the lowest id among them."""
        policy = self._weighted(seat)
        threat = self.table.hand_size(self._next(seat)) <= 2
        scores = {t: _weighted_score(policy, self.table.hands[seat], t, self.table.colour,
                                     self.table.top, threat, self.card_points)
                  for t in candidates}
        best = max(scores.values())
        tied = sorted(t for t, v in scores.items() if v == best)
        return tied[:1] if policy.ties == "first" else tied

    def _scored_problem(self, seat: int, card: int, choices: list[list[int]], what: str
                        ) -> str | None:
        """A weighted policy plays a best-scoring card of one of ``choices`` (with and without
        a bluff), else the problem."""
        allowed = [self._best_scored(seat, c) for c in choices if c]
        if not allowed or any(card in best for best in allowed):
            return None
        names = " or ".join(", ".join(_card(t) for t in best) for best in allowed)
        return (f"seat {seat} ({self._policy(seat)}, weights) must play the {what} it scores "
                f"best: {names}, not {_card(card)}")

    def _turn_choice_problem(self, seat: int, card: int) -> str | None:
        """P1, and for a weighted policy B2: the best-scoring legal card (a bluff, P2/P3, also
        allows the restricted black cards)."""
        problem = self._p1_problem(card)
        if problem or self._weighted(seat) is None:
            return problem
        hand = self.table.hands[seat]
        legal = self.table.legal_cards(seat, self.restricted)
        bluffing = sorted(t for t in hand if self.table.matches(t))
        choices = [legal] if bluffing == legal else [legal, bluffing]
        return self._scored_problem(seat, card, choices, "legal card")

    # Game.

    def run(self) -> GameResult:
        rounds: list[RoundResult] = []
        dealer = first = why = None
        while True:
            start = self._round_start(len(rounds) + 1, dealer, why)
            rounds.append(self._round(start, first))
            dealer, first, why = self._next_deal(rounds[-1])
            ended = self._game_end(len(rounds))
            if ended is not None:
                break
        if self.pos < len(self.rows):
            self._fail_next("no event may follow game_end")
        ended_by, winner, losers = ended
        return GameResult(tuple(rounds), winner, ended_by, tuple(self.scores), losers)

    def _next_deal(self, done: RoundResult) -> tuple[int, int | None, str]:
        """S3, R6: who deals the next round, who plays first in it (None: the dealer's left)."""
        if self.rules.scoring == "lazy" and done.winner_seat is not None:
            return done.loser_seat, done.winner_seat, (
                f"lazy: seat {done.loser_seat}, the loser of round {done.round}, deals")
        return (done.dealer_seat + 1) % self.players, None, "the dealer rotates clockwise"

    def _round_start(self, number: int, dealer: int | None, why: str | None) -> _Event:
        if dealer is None:
            event = self._take(codes.EV_ROUND_START, "round_start of round 1")
            self._check(0 <= event.seat < self.players, event, "the dealer must be a seat")
        else:
            expected = f"round_start of round {number} dealt by seat {dealer} ({why})"
            event = self._take(codes.EV_ROUND_START, expected, dealer)
        self._check(event.a == number, event, f"expected round number a = {number}")
        return event

    def _game_end(self, rounds_played: int) -> tuple[str, int | None, tuple[int, ...]] | None:
        """R2-R6, R11: the game ends when a score reaches the target (under lazy: rounds won);
        the winner is the highest score, or the lowest under the own-points modes (ties: the
        lowest seat)."""
        scores = self.scores
        if max(scores) >= self.rules.target_score:
            lowest_wins = self.rules.scoring in _OWN_POINTS
            best = min(scores) if lowest_wins else max(scores)
            winner = scores.index(best)
            if lowest_wins:
                why = (f"game_end won by seat {winner}, the lowest score {best} ({self.rules.scoring}: "
                       f"a score reached {self.rules.target_score})")
            else:
                why = f"game_end won by seat {winner} (score {best} reached {self.rules.target_score})"
            event = self._take(codes.EV_GAME_END, why, winner)
            self._check(event.a == codes.GAME_END_TARGET, event, "expected a = 0 (target)")
            return "target", winner, self._game_losers()
        if rounds_played == self.rules.max_rounds:
            why = f"game_end at the round cap ({self.rules.max_rounds} rounds), seat -1"
            event = self._take(codes.EV_GAME_END, why, -1)
            self._check(event.a == codes.GAME_END_CAP, event, "expected a = 1 (cap)")
            return "cap", None, ()
        return None

    def _game_losers(self) -> tuple[int, ...]:
        """docs/engine.md "Scoring": the game's losers by the scoring mode."""
        scores = self.scores
        if self.rules.scoring == "own_points_lose_at":
            return tuple(s for s in range(self.players) if scores[s] >= self.rules.target_score)
        if self.rules.scoring == "lazy":
            scores = self.rounds_lost
            worst = max(scores)
        else:
            worst = max(scores) if self.rules.scoring == "own_points_low_wins" else min(scores)
        return tuple(s for s in range(self.players) if scores[s] == worst)

    # Round.

    def _round(self, start: _Event, first_player: int | None) -> RoundResult:
        """One round; ``first_player`` is R6 lazy's previous winner (None: the dealer's left)."""
        dealer = start.seat
        self.table = _Table(self.deck, self.players)
        self.count = dict.fromkeys(codes.COUNTER_NAMES, 0)
        self.largest_penalty = 0
        self.pending, self.escalation, self.skip_run = None, 0, 0
        self._new_round_state()
        self._deal(dealer)
        first = (dealer + 1) % self.players if first_player is None else first_player
        first_seat = self._first_card(dealer, first)
        self._check(start.b in (-1, first_seat), start,
                    f"round_start names seat {start.b} as first player, but seat {first_seat} "
                    "plays first")
        start_direction = self.table.direction
        winner = self._turns(first_seat)
        hand_points = tuple(self._hand_points(s) for s in range(self.players))
        loser = self._round_loser(winner, hand_points)
        points = self._round_end(winner, loser, hand_points)
        position = None if winner is None else (
            (winner - first_seat) * start_direction % self.players)
        finish_order = self.finish_order
        if self.rules.round_end == "to_the_last" and winner is not None:
            finish_order = finish_order + [loser]
        return RoundResult(
            round=start.a, dealer_seat=dealer, first_seat=first_seat, winner_seat=winner,
            winner_position=position, **self.count, points=points,
            ended_by="cap" if winner is None else "win", hand_points=hand_points,
            cards_left=tuple(self.table.hand_size(s) for s in range(self.players)),
            score_after=tuple(self.scores), loser_seat=loser, finish_order=tuple(finish_order),
            hands_emptied=(tuple(self.hands_done) if self.rules.round_end == "seven_rounds"
                           else ()), largest_penalty=self.largest_penalty)

    def _hand_points(self, seat: int) -> int:
        """D2 values; R7: a hand of exactly one 0 is worth lone_zero_value (when not 0)."""
        hand = self.table.hands[seat]
        if self.rules.lone_zero_value and hand.total() == 1 and _number(next(iter(hand))) == 0:
            return self.rules.lone_zero_value
        return self.table.hand_points(seat, self.card_points)

    def _round_loser(self, winner: int | None, hand_points: tuple[int, ...]) -> int | None:
        """R9: the seat left last; R6 lazy: the highest hand points, then the most cards, then
        the lowest seat. No loser after a capped round, nor in the other modes."""
        if winner is None:
            return None
        if self.rules.round_end == "to_the_last":
            return self.in_round.index(True)
        if self.rules.scoring != "lazy":
            return None
        return min(range(self.players),
                   key=lambda s: (-hand_points[s], -self.table.hand_size(s), s))

    def _deal(self, dealer: int) -> None:
        """S1: hand_size passes, one card each, from the dealer's left, clockwise."""
        for card_no in range(1, self.rules.hand_size + 1):
            for offset in range(1, self.players + 1):
                seat = (dealer + offset) % self.players
                event = self._take(codes.EV_DEAL, f"deal of card {card_no} to seat {seat}", seat)
                self.table.hands[seat][self._from_draw_pile(event)] += 1
        self._check_card_count()

    def _from_draw_pile(self, event: _Event) -> int:
        card = event.a
        self._check(self.table.draw_pile[card] > 0, event,
                    f"{_card(card)} is not in the draw pile")
        self.table.take_from_draw_pile(card)
        return card

    def _check_card_count(self) -> None:
        """Conservation: every card of the deck is in a hand or a pile."""
        total = self.table.card_count()
        if total != self.deck.total():
            self._fail(self.pos - 1, f"the table holds {total} cards, the deck {self.deck.total()}")

    # First discard (S2).

    def _acceptable_first(self, card: int) -> bool:
        if self.rules.first_card == "number_only":
            return cards.is_number(card)
        if self.rules.first_card == "extreme":
            return True  # S2 extreme: a black first card stays too
        return card == cards.WILD or not cards.is_black(card)  # a +4 or an extra goes back

    def _first_card(self, dealer: int, first: int) -> int:
        """Flip the first discard, apply its effect to the first player ``first`` (the dealer's
        left, or R6 lazy's previous winner); return the seat that plays first."""
        card = self._flip()
        self.table.colour = _COLOUR[card]
        if self._peek() == codes.EV_JUMP_IN:
            self._fail_next("no jump-in on the round's first discard (J2)")
        if cards.is_black(card) and self.rules.first_card == "extreme":
            return self._extreme_black_first_card(card, dealer, first)
        if cards.is_black(card) and (self.rules.first_card == "number_only"
                                     or card != cards.WILD):
            # A black card that stays only because nothing acceptable was left: docs/engine.md
            # gives it no effect; a colour named by the first player is accepted, not required.
            if self._peek() == codes.EV_COLOUR:
                self._name_colour(first, "the black first card", free_choice=True)
            return first
        if self.rules.first_card == "number_only":
            return first
        return self._first_card_effect(card, dealer, first)

    def _flip(self) -> int:
        while True:
            event = self._take(codes.EV_FLIP, "flip of the first discard")
            card = self._from_draw_pile(event)
            acceptable = self._acceptable_first(card)
            if acceptable or not any(self._acceptable_first(t) for t in self.table.draw_pile):
                if self._peek() == codes.EV_FLIP_RETURN:
                    why = ("it is an acceptable first card" if acceptable
                           else "no acceptable card is left in the draw pile")
                    self._fail_next(f"{_card(card)} must stay: {why}")
                self.table.discard.append(card)
                return card
            why = f"flip_return of {_card(card)} (not a first card under {self.rules.first_card})"
            back = self._take(codes.EV_FLIP_RETURN, why)
            self._check(back.a == card, back, f"expected {why}")
            self.table.draw_pile[card] += 1

    def _first_card_effect(self, card: int, dealer: int, first: int) -> int:
        rank = _RANK[card]
        because = f"first card {_card(card)}"
        if rank == cards.SKIP or (rank == cards.REVERSE and self.players == 2):
            self._skip(first, because)
            return self._next(first)
        if rank == cards.DRAW_TWO:
            self._draw_cards(first, 2, codes.DRAW_DRAW_TWO)
            self._skip(first, because)
            return self._next(first)
        if rank == cards.REVERSE:
            self._reverse(because)
            return self._next(first)  # the seat before the first player: the dealer, but lazy
        if card == cards.WILD:
            # P7: even under colour_cycle the first player chooses (no colour to follow yet).
            self._name_colour(first, because, free_choice=True)
        return first

    def _extreme_black_first_card(self, card: int, dealer: int, first: int) -> int:
        """S2 extreme: the first player draws 4 and is skipped; the dealer names a random colour."""
        because = f"black first card {_card(card)} (first_card: extreme)"
        self._draw_cards(first, 4, codes.DRAW_DRAW_FOUR)
        self._skip(first, because)
        event = self._take(codes.EV_COLOUR, f"colour named by the dealer, seat {dealer}, after "
                                            f"the {because}", dealer)
        self._check(0 <= event.a < cards.N_COLOURS, event,
                    "the dealer must name one of the four colours")
        self.table.colour = event.a
        return self._next(first)

    # Turns.

    def _turns(self, seat: int) -> int | None:
        """Play from ``seat`` on; return the winner, or None at the cap (turns, N6 covers)."""
        try:
            while self.count["turns"] < self.rules.max_turns:
                self.covers = 0
                seat = self._act(seat)
                self._check_card_count()
        except _RoundWon as won:
            self._check_card_count()
            return won.seat
        except _CoversCapped:
            self._check_card_count()
        return None

    def _act(self, seat: int) -> int:
        """The seat's turn, or the penalty it draws without one; return the seat that acts next."""
        self._no_stray_jump_in()
        answers = self._answers(seat) if self.pending is not None else []
        if self.pending is not None and not answers:
            return self._pay_penalty(seat)
        expected = f"turn of seat {seat}"
        if answers:
            expected += (f" (it must answer the pending {self.pending}; it holds "
                         f"{', '.join(_card(t) for t in answers)})")
        self._take(codes.EV_TURN, expected, seat)
        self.count["turns"] += 1
        self._turn_start(seat)
        if answers:
            answers = self._answers(seat)  # N5/U2: cards drawn at the turn's start may answer
        move = self._answer(seat, answers) if answers else self._turn_plays(seat)
        if move is None:
            return self._next(seat)
        return self._resolve(move)

    def _turn_start(self, seat: int) -> None:
        """N5: the owner's turn ends its silence, then a silence may be broken; U2: a mistake."""
        if self.silence_owner == seat:
            self.silence_owner = None
        if self._peek() == codes.EV_SILENCE_BREAK:
            self._silence_break(seat)
        if self._peek() == codes.EV_MISTAKE:
            self._mistake(seat)

    def _silence_holds(self) -> bool:
        return self.silence_owner is not None or self.silence_colour is not None

    def _silence_break(self, seat: int) -> None:
        """N5: any seat in the round may break a silence at the start of a turn; it draws the
        penalty and the silence ends."""
        if self.rules.silence == "none":
            self._fail_next("silence: none has no silence to break (N5)")
        if not self._silence_holds():
            self._fail_next(f"no silence holds at seat {seat}'s turn, so none can be broken (N5)")
        event = self._take(codes.EV_SILENCE_BREAK, "silence_break")
        self._check(0 <= event.seat < self.players and self.in_round[event.seat], event,
                    "the breaker must be a seat in the round")
        penalty = _SILENCE_PENALTY[self.rules.silence]
        self._check(event.a == penalty, event,
                    f"breaking a silence ({self.rules.silence}) costs {penalty} cards, a = {event.a}")
        self.count["silence_breaks"] += 1
        self.silence_owner = self.silence_colour = None
        self._draw_cards(event.seat, penalty, codes.DRAW_SILENCE, "it broke the silence")

    def _mistake(self, seat: int) -> None:
        """U2: the seat taking its turn errs, draws mistake_penalty cards and plays on."""
        if self.rules.mistake_penalty == 0:
            self._fail_next("mistake_penalty: 0 turns mistakes off (U2)")
        event = self._take(codes.EV_MISTAKE,
                           f"mistake by seat {seat}, the seat taking its turn (U2)", seat)
        self._check(event.a == self.rules.mistake_penalty, event,
                    f"a mistake costs mistake_penalty = {self.rules.mistake_penalty} cards, "
                    f"a = {event.a}")
        self.count["mistakes"] += 1
        self._draw_cards(seat, self.rules.mistake_penalty, codes.DRAW_MISTAKE, "its mistake")

    def _no_stray_jump_in(self) -> None:
        """J1/J2: a jump-in follows a play directly, never the round's first discard."""
        if self._peek() != codes.EV_JUMP_IN:
            return
        if self.count["cards_played"] == 0:
            self._fail_next("no jump-in on the round's first discard (J2)")
        if self.rules.jump_in == "none":
            self._fail_next("jump-ins are off (jump_in: none)")
        self._fail_next("a jump-in must come right after a play, before the play's effect (J1)")

    def _turn_plays(self, seat: int) -> _Move | None:
        """A turn without a pending penalty: a play (P1) or a draw (P5), then A2/N3 extras."""
        start_top, start_colour = self.table.top, self.table.colour
        kind = self._peek()
        if kind == codes.EV_PLAY:
            first = self._play(seat, f"play or draw by seat {seat}",
                               lambda card: self._turn_choice_problem(seat, card))
        elif kind in (codes.EV_DRAW, codes.EV_RESHUFFLE, codes.EV_DRAW_FAIL):
            self._close_sequences()  # A6 extreme, A7: a draw ends them
            first = self._draw_instead_of_playing(seat)
        else:
            self._fail_next(f"expected a play or a draw by seat {seat}")
        if first is None:
            return None
        count = self._double(seat, first.card)
        if count == 1:
            self._extras(seat, first.card, start_top, start_colour)
        move = _Move(seat, first.card, count, True, first)
        if not self._owes_cover(move):  # N6: its cover is the next play
            self._no_more_plays(seat)
        return move

    def _answer(self, seat: int, answers: list[int]) -> _Move:
        """A3-A6: the seat that owes a pending penalty plays an answer (A2 may double it)."""
        pending = self.pending
        names = ", ".join(_card(t) for t in answers)

        def problem(card: int) -> str | None:
            if card not in answers:
                return (f"{_card(card)} does not answer the pending {pending} (answers held: "
                        f"{names})")
            if self._weighted(seat) is not None:  # the same scores decide (B2)
                return self._scored_problem(seat, card, [answers], "answer")
            return None

        first = self._play(seat, f"answer by seat {seat} to the pending {pending}", problem)
        count = self._double(seat, first.card)
        self._no_more_plays(seat)
        return _Move(seat, first.card, count, True, first)

    def _answers(self, seat: int) -> list[int]:
        """A3-A6: the cards of the seat's hand that answer the pending penalty."""
        pending, colour = self.pending, self.table.colour

        def answers(card: int) -> bool:
            rank = _RANK[card]
            # A6 back: a Reverse of the current colour, on either kind of penalty.
            if (self.rules.reverse_deflects == "back" and rank == cards.REVERSE
                    and _COLOUR[card] == colour):
                return True
            if pending.reason == codes.DRAW_DRAW_TWO and card == cards.WILD_DRAW_FOUR:
                return self.rules.draw_four_on_draw_two  # A4: a +4 on the Draw Twos
            if pending.reason == codes.DRAW_DRAW_TWO:
                return rank == cards.DRAW_TWO and self.rules.stack_draw_two != "none"  # A3: any colour
            if card == cards.WILD_DRAW_FOUR:
                return self.rules.stack_draw_four != "none"  # A4
            return (rank == cards.DRAW_TWO and _COLOUR[card] == colour  # A5: the named colour
                    and self.rules.draw_two_on_draw_four)

        return sorted(t for t in self.table.hands[seat] if answers(t))

    def _pay_penalty(self, seat: int) -> int:
        """A3-A6: a seat that cannot answer draws the whole penalty and is skipped, no turn."""
        penalty, self.pending = self.pending, None
        why = f"seat {seat} cannot answer the pending {penalty}"
        self._draw_cards(seat, penalty.total, penalty.reason, why)
        self._skip(seat, why)
        self._close_sequences()
        return self._next(seat)

    def _play(self, seat: int, expected: str, problem: Callable[[int], str | None]) -> _Played:
        """A play event by ``seat``; ``problem`` says what is wrong with its card, if anything."""
        event = self._take(codes.EV_PLAY, expected, seat)
        self._check_held(event)
        message = problem(event.a)
        if message:
            self._fail(event.index, message)
        return self._lay_down(event)

    def _p1_problem(self, card: int) -> str | None:
        """P1 (black cards always match: a restricted one may be a bluff, P2/P3)."""
        if self.table.matches(card):
            return None
        return (f"illegal play: {_card(card)} matches neither the current colour "
                f"{_colour(self.table.colour)} nor the top card {_card(self.table.top)}")

    def _check_held(self, event: _Event) -> None:
        self._check(self.table.hands[event.seat][event.a] > 0, event,
                    f"seat {event.seat} does not hold {_card(event.a)}")

    def _lay_down(self, event: _Event) -> _Played:
        """Move a played card (in turn or not) to the discard pile; a black card names a colour."""
        seat, card = event.seat, event.a
        table = self.table
        self._check_held(event)
        before = table.colour
        played = _Played(card, before, table.holds_colour(seat, before))
        table.play(seat, card)
        self.count["cards_played"] += 1
        self.last_laid[seat] = card
        if cards.is_black(card):
            self._name_colour(seat, f"{_card(card)} played by seat {seat}")
        else:
            table.colour = _COLOUR[card]
        self._colour_changed()
        return played

    def _colour_changed(self) -> None:
        """N5 black: the silence ends once the colour named is no longer current."""
        if self.silence_colour is not None and self.table.colour != self.silence_colour:
            self.silence_colour = None

    def _double(self, seat: int, card: int) -> int:
        """A2: a coloured action card is followed by an identical one the player holds."""
        if not (self.rules.double_action and _is_coloured_action(card) and self.table.hands[seat][card]):
            return 1
        self._play(seat, f"second {_card(card)} by seat {seat} (double_action: it holds another)",
                   lambda t: None if t == card else
                   f"the second card of a double action must be {_card(card)} (A2)")
        return 2

    def _extras(self, seat: int, first: int, start_top: int, start_colour: int) -> None:
        """N3: the number cards a turn adds after its first card."""
        hand = self.table.hands[seat]
        if self.rules.multi_play == "same_rank" and cards.is_number(first):
            rank = _RANK[first]
            for card in sorted(t for t in hand.elements() if _RANK[t] == rank):
                self._play(seat, f"play of {_card(card)} by seat {seat} (multi_play same_rank: "
                                 f"every other {rank} it holds, in card-id order)",
                           lambda t, want=card: None if t == want else
                           f"expected {_card(want)}: same_rank plays in card-id order")
        elif self.rules.multi_play == "two_matching":
            start = f"{_card(start_top)} in {_colour(start_colour)}"
            options = sorted(t for t in hand if cards.is_number(t) and (
                _COLOUR[t] == start_colour or _RANK[t] == _RANK[start_top]))
            if options:
                names = ", ".join(_card(t) for t in options)
                self._play(seat, f"a second card by seat {seat} (multi_play two_matching: it "
                                 f"holds {names}, matching {start} at the start of the turn)",
                           lambda t: None if t in options else
                           f"{_card(t)} is not a number card matching {start}, the top card at "
                           "the start of the turn (N3 two_matching)")

    def _no_more_plays(self, seat: int) -> None:
        if self._peek() == codes.EV_PLAY:
            self._fail_next(f"seat {seat} has no further card to play in this turn (A2, N3)")

    def _draw_instead_of_playing(self, seat: int) -> _Played | None:
        """P5: a player without a legal card draws as `draw` says; may play a drawn card."""
        legal = self.table.legal_cards(seat, self.restricted)
        if legal:
            names = ", ".join(_card(t) for t in legal)
            self._fail_next(f"expected a play by seat {seat}: it holds legal cards ({names}) "
                            "and may not draw")
        if self.rules.draw == "until_playable":
            return self._draw_until_playable(seat)
        drawn = self._draw_cards(seat, 2 if self.rules.draw == "two" else 1, codes.DRAW_NORMAL)
        playable = [t for t in drawn if self.table.may_play(seat, t, self.restricted)]
        if playable and self.rules.draw != "one_then_pass":
            return self._play_drawn(seat, drawn, playable)
        if not drawn:
            why = "nothing could be drawn"
        elif playable:
            why = "draw: one_then_pass passes even with a playable card"
        else:
            why = f"{', '.join(_card(t) for t in drawn)} not playable"
        self._take(codes.EV_PASS, f"pass of seat {seat} ({why})", seat)
        return None

    def _play_drawn(self, seat: int, drawn: list[int], playable: list[int]) -> _Played:
        """P5: the drawn card, or under `two` one of the drawn legal cards (a bluff included)."""
        if len(drawn) == 1:
            expected = f"play of {_card(drawn[0])} by seat {seat}: the drawn card is playable"
        else:
            expected = (f"play by seat {seat} of a drawn playable card "
                        f"({', '.join(_card(t) for t in playable)})")
        return self._play(seat, expected, lambda card: None if card in drawn and
                          self.table.matches(card) else f"expected {expected}")

    def _draw_until_playable(self, seat: int) -> _Played | None:
        """P5 until_playable: draw until a legal card comes and play it; pass on a draw_fail."""
        k = 1
        while (card := self._draw_one(seat, codes.DRAW_NORMAL,
                                      f"{k}, until a playable one comes")) is not None:
            if self.table.may_play(seat, card, self.restricted):
                return self._play_drawn(seat, [card], [card])
            k += 1
        self._take(codes.EV_PASS, f"pass of seat {seat} (nothing playable was drawn)", seat)
        return None

    def _name_colour(self, seat: int, because: str, free_choice: bool = False) -> None:
        """The colour the player holds most (ties: the lowest colour index); under P7
        colour_cycle the cycle's next colour in the direction of play, unless ``free_choice``."""
        event = self._take(codes.EV_COLOUR, f"colour named by seat {seat} after {because}", seat)
        current = self.table.colour
        if self.rules.colour_cycle and not free_choice and current != cards.NO_COLOUR:
            wanted = _cycle_next(current, self.table.direction)
            way = "clockwise" if self.table.direction == 1 else "counter-clockwise"
            why = (f"colour_cycle: {way} after {_colour(current)} comes {_colour(wanted)}, "
                   f"so seat {seat} must name {_colour(wanted)}")
        elif (policy := self._weighted(seat)) is not None and policy.colour == "random":
            wanted = event.a if 0 <= event.a < cards.N_COLOURS else None  # any of the four
            why = f"seat {seat} ({policy.name}) must name one of the four colours, not {event.a}"
        else:
            wanted = self.table.preferred_colour(seat)
            why = (f"seat {seat} holds most {_colour(wanted)} cards (ties: the lowest colour) "
                   f"and must name {_colour(wanted)}")
        self._check(event.a == wanted, event, why)
        self.table.colour = event.a

    def _close_sequences(self) -> None:
        self.escalation = 0
        self.skip_run = 0

    # After a play.

    def _resolve(self, move: _Move) -> int:
        """UNO and a win, the jump-ins (J1), then the effects; return the seat that acts next."""
        self._after_plays(move)
        moves = [move, *self._jump_ins(move)]
        if self.rules.jump_in != "extreme":
            # J1: a jump-in cancels the jumped-on card's effect; the last card has its effect.
            return self._effect(moves[-1], None)
        # J1 extreme: every card has its effect in turn, the last one's decides who acts next.
        jumpers = [m.seat for m in moves[1:]] + [None]
        for each, jumper in zip(moves, jumpers):
            next_seat = self._effect(each, jumper)
        return next_seat

    def _after_plays(self, move: _Move) -> None:
        """After the last card of a move (docs/engine.md "After a move", steps 1-4), unless an
        N6 cover is owed: then they wait for the cover, or for a jump-in taking the duty."""
        if not self._owes_cover(move):
            self._end_of_move(move)

    def _owes_cover(self, move: _Move) -> bool:
        return self.rules.eight_cover and _number(move.card) == 8

    def _end_of_move(self, move: _Move) -> None:
        """U1 (and the N4 UNO slap), the empty hand (round end, R9 finish, R10 new hand), the N4
        zero slap and the N5 silence."""
        seat = move.seat
        left = self.table.hand_size(seat)
        if left == 1 and self.rules.uno_penalty > 0:
            self._uno(seat)
        left_the_round = left == 0 and self._hand_emptied(move)
        if self.rules.zero_slap and _number(move.card) == 0:
            self._slap(seat, codes.SLAP_ZERO, self.rules.zero_slap)
        if not left_the_round and _SILENCE_STARTS[self.rules.silence](move.card):
            if self.rules.silence == "black":
                self.silence_colour = self.table.colour
            else:
                self.silence_owner = seat

    def _hand_emptied(self, move: _Move) -> bool:
        """The player has no card left: R10 takes a new hand (False: it stays in the round), R9
        finishes it (True: it has left the round); otherwise the round ends (_RoundWon)."""
        seat = move.seat
        if self.rules.round_end == "seven_rounds":
            self.hands_done[seat] += 1
            done = self.hands_done[seat]
            if done < self.rules.hand_size:
                new = self.rules.hand_size - done
                why = (f"new_hand of seat {seat}: it emptied hand {done} of {self.rules.hand_size} "
                       f"and takes {new} cards (round_end: seven_rounds)")
                event = self._take(codes.EV_NEW_HAND, why, seat)
                self._check((event.a, event.b) == (done, new), event, f"expected {why}")
                self._draw_cards(seat, new, codes.DRAW_REFILL, f"new hand {done + 1}")
                return False
        self.finishing_card[seat] = self.last_laid[seat]
        if self.rules.round_end == "to_the_last":
            place = len(self.finish_order) + 1
            why = f"finish of seat {seat} in place {place} (round_end: to_the_last)"
            event = self._take(codes.EV_FINISH, why, seat)
            self._check(event.a == place, event, f"expected {why}")
            self.finish_order.append(seat)
            self.in_round[seat] = False
            if self.silence_owner == seat:
                self.silence_owner = None  # N5: its owner has left the round
            if self._seats_left() > 1:
                return True
        self._last_card_penalty(move)
        raise _RoundWon(self.finish_order[0] if self.finish_order else seat)

    def _uno(self, seat: int) -> None:
        """U1: the call (N4: then the UNO slap), or a miss that another seat may catch."""
        event = self._take((codes.EV_UNO_CALL, codes.EV_UNO_MISS),
                           f"uno_call or uno_miss by seat {seat} (it has one card left)", seat)
        if event.kind == codes.EV_UNO_CALL:
            if self.rules.uno_slap:
                self._slap(seat, codes.SLAP_UNO, self.rules.uno_slap)
            return
        if event.a == -1:
            return
        self._check(0 <= event.a < self.players and event.a != seat and self.in_round[event.a],
                    event, "the catching seat must be another seat in the round, or -1")
        self.count["uno_penalties"] += 1
        self._draw_cards(seat, self.rules.uno_penalty, codes.DRAW_UNO)

    def _slap(self, starter: int, kind: int, count: int) -> None:
        """N4: the seats in the round other than the starter race; the slowest draws. Who is
        slowest is random (by reaction), so any of them may be."""
        racers = [s for s in range(self.players) if self.in_round[s] and s != starter]
        what = "0 played" if kind == codes.SLAP_ZERO else "UNO called"
        why = (f"slap ({what} by seat {starter}): the slowest of seats "
               f"{', '.join(map(str, racers))} draws {count}")
        event = self._take(codes.EV_SLAP, why)
        self._check(event.seat in racers, event, f"expected {why}")
        self._check((event.a, event.b) == (starter, kind), event,
                    f"expected a = {starter} (who started it) and b = {kind} ({what}) in the {why}")
        self.count["slaps"] += 1
        self._draw_cards(event.seat, count, codes.DRAW_SLAP, f"slowest in the slap ({what})")

    def _card_penalty(self, move: _Move) -> tuple[_Penalty | None, bool]:
        """What the move's card makes the next seat owe, and whether it waits for an answer
        (A3-A6: then it is the chain's new total): a Draw Two 2 each (A6 extreme: the sequence's
        value + 2), a +4 4, a blank +10 (D3); None for any other card."""
        card = move.card
        if _RANK[card] == cards.DRAW_TWO:
            if self.draw_two_pends or self.pending is not None:
                return self._chain_after(move), True
            value = self.escalation if self.rules.reverse_deflects == "extreme" else 0
            return _Penalty(codes.DRAW_DRAW_TWO, value + 2 * move.count), False
        if card == cards.WILD_DRAW_FOUR:
            if self.draw_four_pends or self.pending is not None:
                return self._chain_after(move), True
            return _Penalty(codes.DRAW_DRAW_FOUR, 4), False
        if card == cards.BLANK and self.rules.blank_effect == "draw_ten":
            return _Penalty(codes.DRAW_BLANK, 10), False
        return None, False

    def _last_card_penalty(self, move: _Move) -> None:
        """The official scoring detail: what a last card makes others draw is drawn before the
        round ends (``_card_penalty``: a pending chain's total too; D4/D5: every other seat)."""
        card, victim = move.card, self._next(move.seat)
        penalty, _ = self._card_penalty(move)
        if penalty is not None:
            self._draw_cards(victim, penalty.total, penalty.reason, f"a last {penalty}")
        elif card in _HIT_ALL:
            for seat in self._others(move.seat):  # D4
                self._draw_cards(seat, _HIT_ALL[card], codes.DRAW_HIT_ALL, "a last hit-all")
        elif card == cards.CUSTOM_WILD and self.rules.custom_wild_effect == "everyone_draws_two":
            for seat in self._others(move.seat):  # D5: the player has gone out
                self._draw_cards(seat, 2, codes.DRAW_CUSTOM_WILD, "a last customizable wild")

    def _jump_ins(self, move: _Move) -> list[_Move]:
        """J1-J4: plays out of turn of a card identical to the top card, right after a play.
        Who wins a race is random (J4): any seat holding the card may be the one. N6: a jump-in
        on an 8 takes the cover duty over, and the previous owner's move ends. A chain holds at
        most as many jump-ins as the deck holds copies of the card."""
        moves = []
        while self._peek() == codes.EV_JUMP_IN and not self._escape_next():
            top = self.table.top
            if moves and len(moves) >= self.deck[top]:
                self._fail_next(f"no more jump-ins on {_card(top)} in one move than the deck "
                                f"holds copies of it ({self.deck[top]}; J1)")
            if not _JUMPABLE[self.rules.jump_in](top):
                self._fail_next(f"jump_in: {self.rules.jump_in} does not allow jumping in on "
                                f"{_card(top)} (J1)")
            event = self._take(codes.EV_JUMP_IN, "jump_in")
            self._check(event.a == top, event,
                        f"a jump-in needs a card identical to the top card {_card(top)} (J1)")
            jump = self._out_of_turn(event)
            if self._owes_cover(move) and jump.seat != move.seat:
                self._end_of_move(move)  # N6: its owner owes no cover now (J3: unless it jumped)
            moves.append(jump)
            move = jump
        return moves

    def _out_of_turn(self, event: _Event) -> _Move:
        """A card played out of turn (J1, A8): not a turn; the jumper calls UNO and may win."""
        move = _Move(event.seat, event.a, 1, False, self._lay_down(event))
        self.count["jump_ins"] += 1
        self._after_plays(move)
        return move

    def _effect(self, move: _Move, jumper: int | None) -> int:
        """A1 and its variants: the effect of a move's card; return the seat that acts next.
        ``jumper``: the seat that jumped in on this card under jump_in extreme."""
        card, rank = move.card, _RANK[move.card]
        if rank != cards.SKIP:
            self.skip_run = 0  # A7: any other play ends a Skip run
        if rank not in (cards.DRAW_TWO, cards.REVERSE):
            self.escalation = 0  # A6 extreme: any other play closes the sequence
        if rank == cards.SKIP:
            return self._skip_effect(move)
        if rank == cards.REVERSE:
            return self._reverse_effect(move, jumper)
        if rank == cards.DRAW_TWO:
            return self._draw_two_effect(move, jumper)
        if card == cards.WILD_DRAW_FOUR:
            return self._draw_four_effect(move)
        if card == cards.WILD and self._peek() == codes.EV_CHALLENGE:
            return self._challenge(move)
        if cards.is_number(card):
            return self._number_effect(move, jumper)
        return self._extra_effect(move)

    # Effects of number cards (N1, N2, N6) and of the extra black cards (D3-D5).

    def _number_effect(self, move: _Move, jumper: int | None) -> int:
        player, number = move.seat, _RANK[move.card]
        because = f"{_card(move.card)} played by seat {player}"
        if self.rules.eight_cover and number == 8:
            if jumper is not None:
                return self._next(player)  # N6: the jump-in took the duty over
            return self._cover(move)
        if self.rules.seven_zero and number == 0:
            self._pass_hands(player, because)
        elif self.rules.seven_zero and number == 7:
            self._swap_hands(player, f"{because} (seven_zero)")
        elif self.rules.five_swap and number == 5:
            self._swap_one(player, self._fewest_cards_seat(player), f"{because} (five_swap)")
        return self._next(player)

    def _extra_effect(self, move: _Move) -> int:
        player, card = move.seat, move.card
        because = f"{_card(card)} played by seat {player}"
        penalty, _ = self._card_penalty(move)
        if penalty is not None:  # D3 blank_effect: draw_ten
            victim = self._next(player)
            self._draw_cards(victim, penalty.total, penalty.reason,
                             f"{because} (blank_effect: draw_ten)")
            self._skip(victim, because)
            return self._next(victim)
        if card in _HIT_ALL:  # D4: every other seat in the round, in playing order
            for seat in self._others(player):
                self._draw_cards(seat, _HIT_ALL[card], codes.DRAW_HIT_ALL, because)
        elif card == cards.SWAP_HANDS:  # D5
            self._swap_hands(player, because)
        elif card == cards.CUSTOM_WILD and self.rules.custom_wild_effect == "everyone_draws_two":
            for seat in self._playing_order(player):  # D5: everyone, the player last
                self._draw_cards(seat, 2, codes.DRAW_CUSTOM_WILD, f"{because} (everyone draws 2)")
        elif card == cards.CUSTOM_WILD:
            self._swap_one(player, self._next(player), f"{because} (swap one with the next)")
        return self._next(player)

    def _fewest_cards_seat(self, player: int) -> int:
        """The seat in the round other than the player with the fewest cards; ties to the first
        in playing order from the player."""
        return min(self._others(player), key=self.table.hand_size)

    def _pass_hands(self, player: int, because: str) -> None:
        """N1 0: every hand in the round moves on to next(seat)."""
        direction = self.table.direction
        why = f"pass_hands in direction {direction:+d} ({because}, seven_zero)"
        event = self._take(codes.EV_PASS_HANDS, why, player)
        self._check(event.a == direction, event, f"expected {why}")
        hands = self.table.hands
        seats = [s for s in range(self.players) if self.in_round[s]]
        moved = {self._next(s): hands[s] for s in seats}
        for s, hand in moved.items():
            hands[s] = hand
        self.count["hand_swaps"] += 1

    def _swap_hands(self, player: int, because: str) -> None:
        """N1 7, D5 Wild Swap Hands: the player swaps hands with its fewest-cards seat."""
        if self.table.hand_size(player) == 0:
            return  # it has gone out: it has no hand to swap
        partner = self._fewest_cards_seat(player)
        sizes = ", ".join(f"seat {s} {self.table.hand_size(s)}" for s in self._others(player))
        why = (f"swap_hands of seat {player} with seat {partner}, the fewest-cards seat "
               f"({sizes} cards; {because})")
        event = self._take(codes.EV_SWAP_HANDS, why, player)
        self._check(event.a == partner, event, f"expected {why}")
        hands = self.table.hands
        hands[player], hands[partner] = hands[partner], hands[player]
        self.count["hand_swaps"] += 1

    def _swap_one(self, player: int, partner: int, because: str) -> None:
        """N2, D5 swap one: each side gives its least useful card, chosen from the hands as they
        are before the exchange; the player's give event comes first."""
        hands = self.table.hands
        if not hands[player] or not hands[partner]:
            return
        gifts = [self._gift(player, partner, because), self._gift(partner, player, because)]
        for giver, card, taker in gifts:
            _remove(hands[giver], card)
            hands[taker][card] += 1
        self.count["card_swaps"] += 1

    def _gift(self, giver: int, taker: int, because: str) -> tuple[int, int, int]:
        why = f"give by seat {giver} of its least useful card to seat {taker} ({because})"
        event = self._take(codes.EV_GIVE, why, giver)
        self._check(event.b == taker, event, f"expected {why}")
        self._check_held(event)
        policy = self._policy(giver)
        if self._weighted(giver) is not None:  # the card it would most like to be rid of
            best = self._best_scored(giver, sorted(self.table.hands[giver]))
            self._check(event.a in best, event, f"seat {giver} ({policy}, weights) must give a "
                        f"card it scores best: {', '.join(_card(t) for t in best)} (N2, D5)")
            return giver, event.a, taker
        wanted = _strategist_gift(self.table.hands[giver], self.card_points)
        if event.a != wanted:
            self._fail(event.index, f"seat {giver} ({policy}) must give its least useful card, "
                                    f"{_card(wanted)} (N2)")
        return giver, event.a, taker

    def _cover(self, move: _Move) -> int:
        """N6: the owner of the duty covers its 8 with one legal card, drawing one card at a time
        until it can; the cover is a move of its own. If the piles run out the duty lapses."""
        owner, eight = move.seat, move.card
        self.covers += 1
        if self.covers > self.deck.total():
            raise _CoversCapped
        because = f"cover of {_card(eight)} by seat {owner} (eight_cover)"
        if self.table.legal_cards(owner, self.restricted):
            played = self._play(owner, because, self._p1_problem)
        else:
            played, k = None, 1
            while (card := self._draw_one(owner, codes.DRAW_COVER,
                                          f"{k}, until it can cover {_card(eight)}")) is not None:
                if self.table.may_play(owner, card, self.restricted):
                    played = self._play(owner, f"{because} with the drawn {_card(card)}",
                                        lambda t, want=card: None if t == want else
                                        f"expected the drawn {_card(want)} as the cover")
                    break
                k += 1
            if played is None:
                self._end_of_move(move)  # the duty lapses: the 8's move ends here
                return self._next(owner)
        return self._resolve(_Move(owner, played.card, 1, move.turn, played))

    def _skip_effect(self, move: _Move) -> int:
        """A1 Skip; A2: a double skips two; A7: a turn's Skip right after a Skip's victims skips
        one player more than that Skip did."""
        run = self.skip_run if self.rules.stack_skip and move.turn else 0
        self.skip_run = run + move.count
        because = f"{_card(move.card)} played by seat {move.seat}, skipping {self.skip_run}"
        return self._skip_players(move.seat, self.skip_run, move.card, because)

    def _skip_players(self, player: int, k: int, card: int, because: str) -> int:
        """Skip the k seats after the player (round the table if need be); return the seat after
        them. A8: a seat about to be skipped may escape with an identical Skip, and the skip
        moves on to the seats after it."""
        seat = self._next(player)
        while k:
            if self.rules.skip_escape and self._escape_next():
                self._escape(seat, card)
            else:
                self._skip(seat, because)
                k -= 1
            seat = self._next(seat)
        return seat

    def _escape_next(self) -> bool:
        """A8 escapes are jump_in events with b = 1 (J1 jump-ins have b = -1)."""
        return self._peek() == codes.EV_JUMP_IN and self.rows[self.pos][3] == 1

    def _escape(self, seat: int, card: int) -> None:
        """A8: the escape is a jump-in with a Skip identical to the one skipping the seat."""
        event = self._take(codes.EV_JUMP_IN, f"skip of seat {seat}, or its escape with "
                                             f"{_card(card)} (skip_escape)", seat)
        self._check(event.a == card, event,
                    f"seat {seat} can escape only with a Skip identical to {_card(card)} (A8)")
        self._out_of_turn(event)

    def _skip(self, seat: int, because: str) -> None:
        self._take(codes.EV_SKIP, f"skip of seat {seat} ({because})", seat)
        self.count["skips"] += 1

    def _reverse(self, because: str) -> None:
        self.table.direction = -self.table.direction
        new = self.table.direction
        event = self._take(codes.EV_DIRECTION, f"direction {new:+d} ({because})")
        self._check(event.a == new, event, f"expected direction {new:+d} ({because})")
        self.count["direction_changes"] += 1

    def _reverse_effect(self, move: _Move, jumper: int | None) -> int:
        """A1 Reverse; A2: a double cancels; A6 back deflects a penalty; A6 extreme escalates."""
        player = move.seat
        because = f"{_card(move.card)} played by seat {player}"
        if move.count == 2:
            return self._next(player)  # A2: two Reverses cancel
        if self.pending is not None:
            # A6 back: the same penalty is owed by the next seat in the new direction.
            self._reverse(because)
            return self._next(player)
        if self.escalation:
            return self._escalate(move, jumper)  # A6 extreme
        if self._seats_left() == 2:
            victim = self._next(player)  # A1: with 2 players a Reverse acts as a Skip
            self._skip(victim, because)
            return self._next(victim)
        self._reverse(because)
        return self._next(player)

    def _draw_two_effect(self, move: _Move, jumper: int | None) -> int:
        """A1 Draw Two: pending under A3/A5/A6 back, escalating under A6 extreme, else drawn."""
        victim = self._next(move.seat)
        penalty, pends = self._card_penalty(move)
        if pends:
            self.pending = penalty  # A3, A5, A6 back: the next seat may answer
            return victim
        if self.rules.reverse_deflects == "extreme":
            return self._escalate(move, jumper)
        if victim != jumper:  # J1 extreme: a jumper draws nothing for a card aimed at itself
            self._draw_cards(victim, penalty.total, penalty.reason)  # A1; A2 double: 4
        self._skip(victim, f"{_card(move.card)} played by seat {move.seat}")
        return self._next(victim)

    def _escalate(self, move: _Move, jumper: int | None) -> int:
        """A6 extreme: a Draw Two opens or continues the sequence, a Reverse continues it
        (flipping the direction; with 2 players it only skips); the next seat draws the value,
        which grows by 2 with each card (2, 4, 6, ...), and is skipped."""
        because = f"{_card(move.card)} played by seat {move.seat}"
        if _RANK[move.card] == cards.REVERSE and self._seats_left() > 2:
            self._reverse(because)
        victim = self._next(move.seat)
        self.escalation += 2 * move.count  # A2: a double Draw Two adds 4
        if victim != jumper:
            self._draw_cards(victim, self.escalation, codes.DRAW_DRAW_TWO,
                             f"+2/Reverse sequence of value {self.escalation}")
        self._skip(victim, because)
        return self._next(victim)

    def _draw_four_effect(self, move: _Move) -> int:
        """A1 +4: challenged (P4), stacked (A4), pending (A4-A6), else drawn at once."""
        player, victim = move.seat, self._next(move.seat)
        if self.pending is None and self._peek() == codes.EV_CHALLENGE:
            return self._challenge(move)
        if self._peek() == codes.EV_CHALLENGE:  # A4: a +4 on a pending penalty never is
            self._fail_next("a +4 played onto a pending penalty cannot be challenged (A4)")
        penalty, pends = self._card_penalty(move)
        if pends:
            self.pending = penalty
            return victim
        self._draw_cards(victim, penalty.total, penalty.reason)
        self._skip(victim, f"+4 played by seat {player}")
        return self._next(victim)

    def _chain_after(self, move: _Move) -> _Penalty:
        """The pending penalty once the move's Draw Two(s) or +4 are on it."""
        chain = self.pending
        for _ in range(move.count):
            chain = (self._add_draw_two(chain) if _RANK[move.card] == cards.DRAW_TWO
                     else self._add_draw_four(chain))
        return chain

    def _add_draw_two(self, chain: _Penalty | None) -> _Penalty:
        """A3/A5: one more Draw Two on the chain."""
        if chain is None or chain.reason == codes.DRAW_DRAW_FOUR:
            return _Penalty(codes.DRAW_DRAW_TWO, 2)  # a new chain; A5: the +4 is cancelled
        if self.rules.stack_draw_two == "pass_on":
            return chain  # A3 pass_on: still 2
        return _Penalty(codes.DRAW_DRAW_TWO, chain.total + 2)  # A3 sum; A2: a double adds 4

    def _add_draw_four(self, chain: _Penalty | None) -> _Penalty:
        """A4: one more +4 on the chain."""
        if chain is None:
            return _Penalty(codes.DRAW_DRAW_FOUR, 4)
        if chain.reason == codes.DRAW_DRAW_TWO:  # draw_four_on_draw_two: 4 more, now a +4 chain
            return _Penalty(codes.DRAW_DRAW_FOUR, chain.total + 4)
        if self.rules.stack_draw_four == "pass_on":
            return chain  # A4 pass_on: still 4
        return _Penalty(codes.DRAW_DRAW_FOUR, chain.total + 4)  # A4 sum

    def _challenge(self, move: _Move) -> int:
        """P4: the next seat challenges a restricted black card; penalties by `challenge`. R9:
        the card that empties a hand cannot be challenged (its seat has finished)."""
        player, card, played = move.seat, move.card, move.played
        if not self.in_round[player]:
            self._fail_next(f"seat {player} finished with the {_card(card)} (R9): a card that "
                            "empties a hand is not challenged")
        victim = self._next(player)
        if card not in self.restricted:
            key = "wild_draw_four" if card == cards.WILD_DRAW_FOUR else "wild"
            self._fail_next(f"no challenge is possible when {key} is free")
        event = self._take(codes.EV_CHALLENGE, f"challenge by seat {victim}", victim)
        self._check(event.a == player, event,
                    f"expected the challenged seat a = {player}, who played the {_card(card)}")
        guilty = played.held_colour_before
        held = "held" if guilty else "held no"
        self._check(event.b == int(guilty), event,
                    f"guilty flag b = {event.b}, expected {int(guilty)}: seat {player} {held} "
                    f"{_colour(played.colour_before)} card when it played the {_card(card)}")
        self.count["challenges"] += 1
        if guilty:
            self.count["challenges_won"] += 1
            if self.rules.challenge != "official" and self._can_take_back(card):
                self._take_back(player, played)
            self._draw_cards(player, 4, codes.DRAW_CHALLENGE)
            return victim
        for_draw_four, for_wild = _INNOCENT_DRAWS[self.rules.challenge]
        if card == cards.WILD:
            self._draw_cards(victim, for_wild, codes.DRAW_CHALLENGE)
            return victim
        self._draw_cards(victim, for_draw_four, codes.DRAW_CHALLENGE)
        self._skip(victim, f"lost challenge of seat {player}'s +4")
        return self._next(victim)

    def _can_take_back(self, card: int) -> bool:
        """P4: nothing is taken back once a reshuffle has taken the cards below the card."""
        discard = self.table.discard
        return card in discard and len(discard) > 1

    def _take_back(self, player: int, played: _Played) -> None:
        """P4 house/extreme: the guilty player's card goes back to its hand; the previous top card
        and colour are current again."""
        card = played.card
        why = (f"take_back of {_card(card)} by seat {player} (guilty, challenge: "
               f"{self.rules.challenge})")
        event = self._take(codes.EV_TAKE_BACK, why, player)
        self._check(event.a == card, event, f"expected {why}")
        self.table.take_back(player, card, played.colour_before)
        self._colour_changed()

    # Drawing.

    def _draw_cards(self, seat: int, count: int, reason: int, why: str = "") -> list[int]:
        """Draw ``count`` cards; a draw_fail abandons the rest (P6). Return the drawn cards.
        R9: a seat that has finished takes no part in anything, so it never draws."""
        if count > 0 and not self.in_round[seat]:
            self._fail_next(f"seat {seat} has finished (R9) and draws nothing"
                            + (f" ({why})" if why else ""))
        drawn = []
        for k in range(1, count + 1):
            card = self._draw_one(seat, reason, f"{k} of {count}" + (f"; {why}" if why else ""))
            if card is None:
                break
            drawn.append(card)
        if reason not in (codes.DRAW_NORMAL, codes.DRAW_COVER, codes.DRAW_REFILL):
            self.largest_penalty = max(self.largest_penalty, len(drawn))
        return drawn

    def _draw_one(self, seat: int, reason: int, which: str) -> int | None:
        """Draw one card (after a reshuffle if the pile is empty); None after a draw_fail."""
        what = f"draw by seat {seat} ({_reason(reason)}, card {which})"
        if self.table.draw_pile_size() == 0:
            self._reshuffle(what)
        if self.table.draw_pile_size() == 0:
            event = self._take(codes.EV_DRAW_FAIL,
                               f"draw_fail of seat {seat} (both piles are empty) for the {what}",
                               seat)
            self._check(event.b == reason, event, f"expected draw reason {_reason(reason)}")
            return None
        if self._peek() in (codes.EV_RESHUFFLE, codes.EV_DRAW_FAIL):
            self._fail_next(f"expected {what}: the draw pile still holds "
                            f"{self.table.draw_pile_size()} cards")
        event = self._take(codes.EV_DRAW, what, seat)
        self._check(event.b == reason, event, f"expected draw reason {_reason(reason)}")
        card = self._from_draw_pile(event)
        self.table.hands[seat][card] += 1
        self.count["cards_drawn"] += 1
        if reason in (codes.DRAW_NORMAL, codes.DRAW_COVER):
            self.count["normal_draws"] += 1
        elif reason != codes.DRAW_REFILL:
            self.count["penalty_cards"] += 1
        return card

    def _reshuffle(self, before: str) -> None:
        """P6: the discards below the top become the draw pile; a 0-card reshuffle is optional."""
        below_top = len(self.table.discard) - 1
        if below_top == 0 and self._peek() != codes.EV_RESHUFFLE:
            return
        event = self._take(codes.EV_RESHUFFLE, f"reshuffle: the draw pile is empty before the "
                                               f"{before}")
        self._check(event.a == below_top, event,
                    f"reshuffle moves a = {event.a} cards, but the discard pile holds "
                    f"{below_top} below its top card")
        self.table.reshuffle()
        self.count["reshuffles"] += 1

    # End of round.

    def _round_end(self, winner: int | None, loser: int | None,
                   hand_points: tuple[int, ...]) -> int:
        """Check round_end and the score events; return the round's points (what the round
        added to the scores, summed over the seats)."""
        if winner is None:
            event = self._take(codes.EV_ROUND_END,
                               f"round_end at the turn cap ({self.rules.max_turns} turns played)")
            self._check(event.seat == -1 and event.a == codes.ROUND_END_CAP, event,
                        "a capped round ends with seat -1, a = 1")
            points = 0
        else:
            first = " (the first to finish)" if self.rules.round_end == "to_the_last" else ""
            event = self._take(codes.EV_ROUND_END,
                               f"round_end: seat {winner} has no cards left{first}")
            self._check(event.seat == winner and event.a == codes.ROUND_END_WIN, event,
                        f"expected winner seat {winner} (no cards left{first}) and a = 0")
            before = sum(self.scores)
            self._score(winner, loser, hand_points)
            points = sum(self.scores) - before
        self._check(event.b == points, event,
                    f"round points b = {event.b}, expected {points}"
                    + ("" if winner is None else f" ({_ROUND_POINTS[self.rules.scoring]})"))
        for seat in range(self.players):
            score = self._take(codes.EV_SCORE, f"score event of seat {seat}", seat)
            self._check(score.a == hand_points[seat], score,
                        f"hand points a = {score.a}, expected {hand_points[seat]}")
            self._check(score.b == self.scores[seat], score,
                        f"score b = {score.b}, expected {self.scores[seat]}")
        return points

    def _score(self, winner: int, loser: int | None, hand_points: tuple[int, ...]) -> None:
        """R2-R6 (and R8) after a won round."""
        scores = self.scores
        others = [s for s in range(self.players) if s != winner]
        if self.rules.scoring == "winner_takes_all":
            scores[winner] += sum(hand_points[s] for s in others)
        elif self.rules.scoring == "card_count":
            scores[winner] += sum(self.table.hand_size(s) for s in others)
        elif self.rules.scoring == "lazy":
            scores[winner] += 1
        else:  # R3, R4: every seat adds its own hand points
            for seat in range(self.players):
                scores[seat] += hand_points[seat]
            if self.rules.h2o_bonus:  # R8: finishing with a hit-all takes 20 or 40 off
                for seat, card in self.finishing_card.items():
                    scores[seat] -= _H2O_BONUS.get(card, 0)
        if loser is not None:
            self.rounds_lost[loser] += 1
