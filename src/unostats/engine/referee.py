"""The referee: a slow, readable replay of one traced game that checks every event.

``check_trace`` walks the events of a ``Trace`` in order, keeping its own model of the table (the
draw pile as a multiset, since the engine draws uniformly at random and order is not observable;
the discard pile; every hand; colour, direction and whose turn it is; the scores) and checks each
event against docs/engine.md. It raises ``RefereeError`` at the first event that breaks a rule and
otherwise returns what it computed itself, so the engine's statistics can be compared with it.

The referee deliberately shares no code with the Numba kernels: a rule bug would have to be made
twice, in two different styles, to slip through. It supports exactly the rule values listed in
``_SUPPORTED`` and refuses any other with ``NotImplementedError``, as it does the pairs of values
docs/engine.md leaves undefined (``_UNDEFINED``); pairs the spec forbids are a ``RefereeError``.

The turn variants of docs/engine.md are checked in one flow: a turn (or a penalty drawn without
one), its plays (A2 double action, N3 extras), UNO and a win, the jump-ins that follow (J1-J4),
then the effects (A1 and its variants, P4 challenges). Three pieces of state carry from one turn
to the next: a pending penalty (A3-A6), the +2/Reverse sequence (A6 extreme) and the Skip run (A7).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from .. import cards, codes

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


@dataclass(frozen=True)
class GameResult:
    rounds: tuple[RoundResult, ...]
    winner_seat: int | None
    ended_by: str  # "target" | "cap"
    final_scores: tuple[int, ...]


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

# Every rule option the referee knows, with the values it can check (None: any valid value).
# Kept here rather than read from rules.RULE_OPTIONS.implemented, so that implementing a rule in
# the engine does not silently claim that the referee checks it too.
_SUPPORTED: dict[str, tuple | None] = {
    "hand_size": None,
    "first_card": ("official", "number_only", "extreme"),
    "wild_draw_four": ("no_matching_colour", "free"),
    "wild": ("free", "no_matching_colour"),
    "challenge": ("official", "house", "extreme"),
    "draw": ("one_may_play", "one_then_pass", "two", "until_playable"),
    "colour_cycle": (False, True),
    "double_action": (False, True),
    "stack_draw_two": ("none", "sum", "pass_on"),
    "stack_draw_four": ("none", "sum", "pass_on"),
    "draw_two_on_draw_four": (False, True),
    "reverse_deflects": ("none", "back", "extreme"),
    "stack_skip": (False, True),
    "skip_escape": (False, True),
    "jump_in": ("none", "numbers", "all_but_draw_four", "extreme"),
    "multi_play": ("none", "same_rank", "two_matching"),
    "seven_zero": (False,),
    "five_swap": (False,),
    "zero_slap": (0,),
    "uno_slap": (0,),
    "silence": ("none",),
    "eight_cover": (False,),
    "uno_penalty": None,
    "mistake_penalty": (0,),
    "scoring": ("winner_takes_all",),
    "target_score": None,
    "lone_zero_value": (0,),
    "h2o_bonus": (False,),
    "round_end": ("first_out",),
    "max_turns": None,
    "max_rounds": None,
    "blank_effect": ("none",),
    "custom_wild_effect": ("everyone_draws_two",),
}

# Pairs docs/engine.md forbids: (key, value, other key, its forbidden values, why).
_FORBIDDEN = (
    ("reverse_deflects", "extreme", "stack_draw_two", ("sum", "pass_on"),
     "the +2/Reverse escalation draws every Draw Two at once, so Draw Twos cannot also stack"),
)
# Pairs docs/engine.md leaves undefined, which the referee refuses rather than guess.
_UNDEFINED = (
    ("reverse_deflects", "extreme", "double_action", (True,),
     "docs/engine.md does not say how two Draw Twos or two Reverses of one turn count in the "
     "+2/Reverse escalation"),
)


def _check_supported(trace: Trace) -> None:
    rules = trace.rules.values
    for key, value in rules.items():
        if key not in _SUPPORTED:
            raise NotImplementedError(f"the referee does not know the rule {key!r}")
        allowed = _SUPPORTED[key]
        if allowed is not None and value not in allowed:
            raise NotImplementedError(
                f"the referee cannot check rule {key} = {value!r} yet (supported: {allowed})")
    for key, value, other, values, why in _FORBIDDEN:
        if rules[key] == value and rules[other] in values:
            raise RefereeError(f"trace.rules combine {key} = {value!r} with {other} = "
                               f"{rules[other]!r}, which docs/engine.md forbids: {why}")
    for key, value, other, values, why in _UNDEFINED:
        if rules[key] == value and rules[other] in values:
            raise NotImplementedError(f"the referee cannot check {key} = {value!r} with {other} = "
                                      f"{rules[other]!r}: {why}")
    for t in range(cards.WILD_DRAW_FOUR + 1, cards.N_TYPES):
        if trace.deck_counts[t]:
            raise NotImplementedError(
                f"the referee cannot check decks with {cards.card_to_str(t)} cards yet")
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


_PENALTY_NAMES = {codes.DRAW_DRAW_TWO: "Draw Two", codes.DRAW_DRAW_FOUR: "+4"}


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


# J1: the cards each jump_in mode lets players jump in on.
_JUMPABLE = {
    "none": lambda card: False,
    "numbers": cards.is_number,
    "all_but_draw_four": lambda card: card != cards.WILD_DRAW_FOUR,
    "extreme": lambda card: not cards.is_black(card),
}
# P4: what an innocent challenger draws, for a +4 and for a plain Wild.
_INNOCENT_DRAWS = {"official": (6, 2), "house": (6, 2), "extreme": (8, 8)}


# --- The referee -----------------------------------------------------------------------------


class _Referee:
    def __init__(self, trace: Trace):
        _check_supported(trace)
        rules = trace.rules.values
        self.players = trace.players
        self.hand_size = rules["hand_size"]
        self.first_card_rule = rules["first_card"]
        self.restricted = frozenset(
            card for card, key in ((cards.WILD_DRAW_FOUR, "wild_draw_four"), (cards.WILD, "wild"))
            if rules[key] == "no_matching_colour")
        self.challenge_rule = rules["challenge"]
        self.draw_rule = rules["draw"]
        self.colour_cycle = rules["colour_cycle"]
        self.double_action = rules["double_action"]
        self.stack_draw_two = rules["stack_draw_two"]
        self.stack_draw_four = rules["stack_draw_four"]
        self.draw_two_on_draw_four = rules["draw_two_on_draw_four"]
        self.reverse_deflects = rules["reverse_deflects"]
        self.stack_skip = rules["stack_skip"]
        self.skip_escape = rules["skip_escape"]
        self.jump_in = rules["jump_in"]
        self.multi_play = rules["multi_play"]
        # A3-A6: which penalties wait for an answer instead of being drawn at once.
        self.draw_two_pends = self.stack_draw_two != "none" or self.reverse_deflects == "back"
        self.draw_four_pends = (self.stack_draw_four != "none" or self.draw_two_on_draw_four
                                or self.reverse_deflects == "back")
        self.uno_penalty = rules["uno_penalty"]
        self.target_score = rules["target_score"]
        self.max_turns = rules["max_turns"]
        self.max_rounds = rules["max_rounds"]
        self.deck = Counter({t: int(k) for t, k in enumerate(trace.deck_counts) if k})
        self.card_points = [int(p) for p in trace.card_points]
        self.rows = _rows(trace)
        self.pos = 0
        self.scores = [0] * self.players
        self.table = _Table(self.deck, self.players)
        self.count: dict[str, int] = {}
        self.pending: _Penalty | None = None  # owed by the seat that acts next (A3-A6)
        self.escalation = 0  # value of the open +2/Reverse sequence, 0 when closed (A6 extreme)
        self.skip_run = 0  # players the last Skip skipped, for the turn right after (A7)

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
        return (seat + self.table.direction) % self.players

    # Game.

    def run(self) -> GameResult:
        rounds: list[RoundResult] = []
        dealer = None
        while True:
            start = self._round_start(len(rounds) + 1, dealer)
            dealer = start.seat
            rounds.append(self._round(start))
            ended = self._game_end(len(rounds))
            if ended is not None:
                break
        if self.pos < len(self.rows):
            self._fail_next("no event may follow game_end")
        ended_by, winner = ended
        return GameResult(tuple(rounds), winner, ended_by, tuple(self.scores))

    def _round_start(self, number: int, previous_dealer: int | None) -> _Event:
        if previous_dealer is None:
            event = self._take(codes.EV_ROUND_START, "round_start of round 1")
            self._check(0 <= event.seat < self.players, event, "the dealer must be a seat")
        else:
            dealer = (previous_dealer + 1) % self.players
            why = (f"round_start of round {number} dealt by seat {dealer} "
                   "(the dealer rotates clockwise)")
            event = self._take(codes.EV_ROUND_START, why, dealer)
        self._check(event.a == number, event, f"expected round number a = {number}")
        return event

    def _game_end(self, rounds_played: int) -> tuple[str, int | None] | None:
        best = max(self.scores)
        if best >= self.target_score:
            winner = self.scores.index(best)
            why = f"game_end won by seat {winner} (score {best} reached {self.target_score})"
            event = self._take(codes.EV_GAME_END, why, winner)
            self._check(event.a == codes.GAME_END_TARGET, event, "expected a = 0 (target)")
            return "target", winner
        if rounds_played == self.max_rounds:
            why = f"game_end at the round cap ({self.max_rounds} rounds), seat -1"
            event = self._take(codes.EV_GAME_END, why, -1)
            self._check(event.a == codes.GAME_END_CAP, event, "expected a = 1 (cap)")
            return "cap", None
        return None

    # Round.

    def _round(self, start: _Event) -> RoundResult:
        dealer = start.seat
        self.table = _Table(self.deck, self.players)
        self.count = dict.fromkeys((*codes.COUNTER_NAMES, "jump_ins"), 0)
        self.pending, self.escalation, self.skip_run = None, 0, 0
        self._deal(dealer)
        first_seat = self._first_card(dealer)
        self._check(start.b in (-1, first_seat), start,
                    f"round_start names seat {start.b} as first player, but seat {first_seat} "
                    "plays first")
        start_direction = self.table.direction
        winner = self._turns(first_seat)
        hand_points = tuple(self.table.hand_points(s, self.card_points)
                            for s in range(self.players))
        points = self._round_end(winner, hand_points)
        position = None if winner is None else (
            (winner - first_seat) * start_direction % self.players)
        return RoundResult(
            round=start.a, dealer_seat=dealer, first_seat=first_seat, winner_seat=winner,
            winner_position=position, **self.count, points=points,
            ended_by="cap" if winner is None else "win", hand_points=hand_points,
            cards_left=tuple(self.table.hand_size(s) for s in range(self.players)),
            score_after=tuple(self.scores))

    def _deal(self, dealer: int) -> None:
        """S1: hand_size passes, one card each, from the dealer's left, clockwise."""
        for card_no in range(1, self.hand_size + 1):
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
        if self.first_card_rule == "number_only":
            return cards.is_number(card)
        if self.first_card_rule == "extreme":
            return True  # S2 extreme: a black first card stays too
        return card != cards.WILD_DRAW_FOUR

    def _first_card(self, dealer: int) -> int:
        """Flip the first discard, apply its effect; return the seat that plays first."""
        card = self._flip()
        self.table.colour = _COLOUR[card]
        first = (dealer + 1) % self.players
        if self._peek() == codes.EV_JUMP_IN:
            self._fail_next("no jump-in on the round's first discard (J2)")
        if cards.is_black(card) and self.first_card_rule == "extreme":
            return self._extreme_black_first_card(card, dealer, first)
        if cards.is_black(card) and (self.first_card_rule == "number_only"
                                     or card == cards.WILD_DRAW_FOUR):
            # A black card that stays only because nothing acceptable was left: docs/engine.md
            # gives it no effect; a colour named by the first player is accepted, not required.
            if self._peek() == codes.EV_COLOUR:
                self._name_colour(first, "the black first card", free_choice=True)
            return first
        if self.first_card_rule == "number_only":
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
            why = f"flip_return of {_card(card)} (not a first card under {self.first_card_rule})"
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
            return dealer
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
        """Play from ``seat`` on; return the winner, or None at the turn cap."""
        try:
            while self.count["turns"] < self.max_turns:
                seat = self._act(seat)
                self._check_card_count()
        except _RoundWon as won:
            self._check_card_count()
            return won.seat
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
        move = self._answer(seat, answers) if answers else self._turn_plays(seat)
        if move is None:
            return self._next(seat)
        return self._resolve(move)

    def _no_stray_jump_in(self) -> None:
        """J1/J2: a jump-in follows a play directly, never the round's first discard."""
        if self._peek() != codes.EV_JUMP_IN:
            return
        if self.count["cards_played"] == 0:
            self._fail_next("no jump-in on the round's first discard (J2)")
        if self.jump_in == "none":
            self._fail_next("jump-ins are off (jump_in: none)")
        self._fail_next("a jump-in must come right after a play, before the play's effect (J1)")

    def _turn_plays(self, seat: int) -> _Move | None:
        """A turn without a pending penalty: a play (P1) or a draw (P5), then A2/N3 extras."""
        start_top, start_colour = self.table.top, self.table.colour
        kind = self._peek()
        if kind == codes.EV_PLAY:
            first = self._play(seat, f"play or draw by seat {seat}", self._p1_problem)
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
        self._no_more_plays(seat)
        return _Move(seat, first.card, count, True, first)

    def _answer(self, seat: int, answers: list[int]) -> _Move:
        """A3-A6: the seat that owes a pending penalty plays an answer (A2 may double it)."""
        pending = self.pending
        names = ", ".join(_card(t) for t in answers)

        def problem(card: int) -> str | None:
            if card in answers:
                return None
            return f"{_card(card)} does not answer the pending {pending} (answers held: {names})"

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
            if (self.reverse_deflects == "back" and rank == cards.REVERSE
                    and _COLOUR[card] == colour):
                return True
            if pending.reason == codes.DRAW_DRAW_TWO:
                return rank == cards.DRAW_TWO and self.stack_draw_two != "none"  # A3: any colour
            if card == cards.WILD_DRAW_FOUR:
                return self.stack_draw_four != "none"  # A4
            return (rank == cards.DRAW_TWO and _COLOUR[card] == colour  # A5: the named colour
                    and self.draw_two_on_draw_four)

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
        if cards.is_black(card):
            self._name_colour(seat, f"{_card(card)} played by seat {seat}")
        else:
            table.colour = _COLOUR[card]
        return played

    def _double(self, seat: int, card: int) -> int:
        """A2: a coloured action card is followed by an identical one the player holds."""
        if not (self.double_action and _is_coloured_action(card) and self.table.hands[seat][card]):
            return 1
        self._play(seat, f"second {_card(card)} by seat {seat} (double_action: it holds another)",
                   lambda t: None if t == card else
                   f"the second card of a double action must be {_card(card)} (A2)")
        return 2

    def _extras(self, seat: int, first: int, start_top: int, start_colour: int) -> None:
        """N3: the number cards a turn adds after its first card."""
        hand = self.table.hands[seat]
        if self.multi_play == "same_rank" and cards.is_number(first):
            rank = _RANK[first]
            for card in sorted(t for t in hand.elements() if _RANK[t] == rank):
                self._play(seat, f"play of {_card(card)} by seat {seat} (multi_play same_rank: "
                                 f"every other {rank} it holds, in card-id order)",
                           lambda t, want=card: None if t == want else
                           f"expected {_card(want)}: same_rank plays in card-id order")
        elif self.multi_play == "two_matching":
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
        if self.draw_rule == "until_playable":
            return self._draw_until_playable(seat)
        drawn = self._draw_cards(seat, 2 if self.draw_rule == "two" else 1, codes.DRAW_NORMAL)
        playable = [t for t in drawn if self.table.may_play(seat, t, self.restricted)]
        if playable and self.draw_rule != "one_then_pass":
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
        if self.colour_cycle and not free_choice and current != cards.NO_COLOUR:
            wanted = _cycle_next(current, self.table.direction)
            way = "clockwise" if self.table.direction == 1 else "counter-clockwise"
            why = (f"colour_cycle: {way} after {_colour(current)} comes {_colour(wanted)}, "
                   f"so seat {seat} must name {_colour(wanted)}")
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
        moves = [move, *self._jump_ins()]
        if self.jump_in != "extreme":
            # J1: a jump-in cancels the jumped-on card's effect; the last card has its effect.
            return self._effect(moves[-1], None)
        # J1 extreme: every card has its effect in turn, the last one's decides who acts next.
        jumpers = [m.seat for m in moves[1:]] + [None]
        for each, jumper in zip(moves, jumpers):
            next_seat = self._effect(each, jumper)
        return next_seat

    def _after_plays(self, move: _Move) -> None:
        """U1 and the win, after the last card of a move."""
        seat = move.seat
        left = self.table.hand_size(seat)
        if left == 1 and self.uno_penalty > 0:
            self._uno(seat)
        if left == 0:
            self._last_card_penalty(move)
            raise _RoundWon(seat)

    def _uno(self, seat: int) -> None:
        """U1: the call, or a miss that another seat may catch."""
        event = self._take((codes.EV_UNO_CALL, codes.EV_UNO_MISS),
                           f"uno_call or uno_miss by seat {seat} (it has one card left)", seat)
        if event.kind == codes.EV_UNO_CALL or event.a == -1:
            return
        self._check(0 <= event.a < self.players and event.a != seat, event,
                    "the catching seat must be another seat, or -1")
        self.count["uno_penalties"] += 1
        self._draw_cards(seat, self.uno_penalty, codes.DRAW_UNO)

    def _last_card_penalty(self, move: _Move) -> None:
        """The official scoring detail: a last Draw Two / +4 is drawn by the next seat before the
        round ends: its chain's total when penalties pend (A3-A6), value + 2 under A6 extreme."""
        card, victim = move.card, self._next(move.seat)
        if _RANK[card] == cards.DRAW_TWO:
            if self.draw_two_pends or self.pending is not None:
                total = self._chain_after(move).total
            elif self.reverse_deflects == "extreme":
                total = self.escalation + 2
            else:
                total = 2 * move.count
            self._draw_cards(victim, total, codes.DRAW_DRAW_TWO)
        elif card == cards.WILD_DRAW_FOUR:
            self._draw_cards(victim, self._chain_after(move).total, codes.DRAW_DRAW_FOUR)

    def _jump_ins(self) -> list[_Move]:
        """J1-J4: plays out of turn of a card identical to the top card, right after a play.
        Who wins a race is random (J4): any seat holding the card may be the one."""
        moves = []
        while self._peek() == codes.EV_JUMP_IN:
            top = self.table.top
            if not _JUMPABLE[self.jump_in](top):
                if self.skip_escape and _RANK[top] == cards.SKIP:
                    break  # an A8 escape, checked with the Skip's effect
                self._fail_next(f"jump_in: {self.jump_in} does not allow jumping in on "
                                f"{_card(top)} (J1)")
            event = self._take(codes.EV_JUMP_IN, "jump_in")
            self._check(event.a == top, event,
                        f"a jump-in needs a card identical to the top card {_card(top)} (J1)")
            moves.append(self._out_of_turn(event))
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
        return self._next(move.seat)

    def _skip_effect(self, move: _Move) -> int:
        """A1 Skip; A2: a double skips two; A7: a turn's Skip right after a Skip's victims skips
        one player more than that Skip did."""
        run = self.skip_run if self.stack_skip and move.turn else 0
        self.skip_run = run + move.count
        because = f"{_card(move.card)} played by seat {move.seat}, skipping {self.skip_run}"
        return self._skip_players(move.seat, self.skip_run, move.card, because)

    def _skip_players(self, player: int, k: int, card: int, because: str) -> int:
        """Skip the k seats after the player (round the table if need be); return the seat after
        them. A8: a seat about to be skipped may escape with an identical Skip, and the skip
        moves on to the seats after it."""
        seat = self._next(player)
        while k:
            if self.skip_escape and self._peek() == codes.EV_JUMP_IN:
                self._escape(seat, card)
            else:
                self._skip(seat, because)
                k -= 1
            seat = self._next(seat)
        return seat

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
        if self.players == 2:
            victim = self._next(player)  # A1: with 2 players a Reverse acts as a Skip
            self._skip(victim, because)
            return self._next(victim)
        self._reverse(because)
        return self._next(player)

    def _draw_two_effect(self, move: _Move, jumper: int | None) -> int:
        """A1 Draw Two: pending under A3/A5/A6 back, escalating under A6 extreme, else drawn."""
        victim = self._next(move.seat)
        if self.draw_two_pends or self.pending is not None:
            self.pending = self._chain_after(move)  # A3, A5, A6 back: the next seat may answer
            return victim
        if self.reverse_deflects == "extreme":
            return self._escalate(move, jumper)
        if victim != jumper:  # J1 extreme: a jumper draws nothing for a card aimed at itself
            self._draw_cards(victim, 2 * move.count, codes.DRAW_DRAW_TWO)  # A1; A2 double: 4
        self._skip(victim, f"{_card(move.card)} played by seat {move.seat}")
        return self._next(victim)

    def _escalate(self, move: _Move, jumper: int | None) -> int:
        """A6 extreme: a Draw Two opens or continues the sequence, a Reverse continues it
        (flipping the direction; with 2 players it only skips); the next seat draws the value,
        which grows by 2 with each card (2, 4, 6, ...), and is skipped."""
        because = f"{_card(move.card)} played by seat {move.seat}"
        if _RANK[move.card] == cards.REVERSE and self.players > 2:
            self._reverse(because)
        victim = self._next(move.seat)
        self.escalation += 2
        if victim != jumper:
            self._draw_cards(victim, self.escalation, codes.DRAW_DRAW_TWO,
                             f"+2/Reverse sequence of value {self.escalation}")
        self._skip(victim, because)
        return self._next(victim)

    def _draw_four_effect(self, move: _Move) -> int:
        """A1 +4: challenged (P4), stacked (A4), pending (A4-A6), else drawn at once."""
        player, victim = move.seat, self._next(move.seat)
        if self.pending is not None:  # A4: a +4 on a pending +4 is never challenged
            if self._peek() == codes.EV_CHALLENGE:
                self._fail_next("a +4 played onto a pending penalty cannot be challenged (A4)")
            self.pending = self._chain_after(move)
            return victim
        if self._peek() == codes.EV_CHALLENGE:
            return self._challenge(move)
        if self.draw_four_pends:
            self.pending = self._chain_after(move)
            return victim
        self._draw_cards(victim, 4, codes.DRAW_DRAW_FOUR)
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
        if self.stack_draw_two == "pass_on":
            return chain  # A3 pass_on: still 2
        return _Penalty(codes.DRAW_DRAW_TWO, chain.total + 2)  # A3 sum; A2: a double adds 4

    def _add_draw_four(self, chain: _Penalty | None) -> _Penalty:
        """A4: one more +4 on the chain."""
        if chain is None:
            return _Penalty(codes.DRAW_DRAW_FOUR, 4)
        if self.stack_draw_four == "pass_on":
            return chain  # A4 pass_on: still 4
        return _Penalty(codes.DRAW_DRAW_FOUR, chain.total + 4)  # A4 sum

    def _challenge(self, move: _Move) -> int:
        """P4: the next seat challenges a restricted black card; penalties by `challenge`."""
        player, card, played = move.seat, move.card, move.played
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
            if self.challenge_rule != "official":
                self._take_back(player, played)
            self._draw_cards(player, 4, codes.DRAW_CHALLENGE)
            return victim
        for_draw_four, for_wild = _INNOCENT_DRAWS[self.challenge_rule]
        if card == cards.WILD:
            self._draw_cards(victim, for_wild, codes.DRAW_CHALLENGE)
            return victim
        self._draw_cards(victim, for_draw_four, codes.DRAW_CHALLENGE)
        self._skip(victim, f"lost challenge of seat {player}'s +4")
        return self._next(victim)

    def _take_back(self, player: int, played: _Played) -> None:
        """P4 house/extreme: the guilty player's card goes back to its hand; the previous top card
        and colour are current again."""
        card = played.card
        why = (f"take_back of {_card(card)} by seat {player} (guilty, challenge: "
               f"{self.challenge_rule})")
        event = self._take(codes.EV_TAKE_BACK, why, player)
        self._check(event.a == card, event, f"expected {why}")
        if card not in self.table.discard or self.table.discard == [card]:
            raise NotImplementedError(
                f"event {event.index}: docs/engine.md does not say how {_card(card)} is taken "
                "back after a reshuffle took the cards below it")
        self.table.take_back(player, card, played.colour_before)

    # Drawing.

    def _draw_cards(self, seat: int, count: int, reason: int, why: str = "") -> list[int]:
        """Draw ``count`` cards; a draw_fail abandons the rest (P6). Return the drawn cards."""
        drawn = []
        for k in range(1, count + 1):
            card = self._draw_one(seat, reason, f"{k} of {count}" + (f"; {why}" if why else ""))
            if card is None:
                break
            drawn.append(card)
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
        self.count["normal_draws" if reason == codes.DRAW_NORMAL else "penalty_cards"] += 1
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

    def _round_end(self, winner: int | None, hand_points: tuple[int, ...]) -> int:
        """Check round_end and the score events; return the round's points."""
        if winner is None:
            event = self._take(codes.EV_ROUND_END,
                               f"round_end at the turn cap ({self.max_turns} turns played)")
            self._check(event.seat == -1 and event.a == codes.ROUND_END_CAP, event,
                        "a capped round ends with seat -1, a = 1")
            points = 0
        else:
            event = self._take(codes.EV_ROUND_END,
                               f"round_end: seat {winner} has no cards left")
            self._check(event.seat == winner and event.a == codes.ROUND_END_WIN, event,
                        f"expected winner seat {winner} (no cards left) and a = 0")
            points = sum(hand_points)
            self.scores[winner] += points
        self._check(event.b == points, event,
                    f"round points b = {event.b}, expected {points}"
                    + ("" if winner is None else " (the sum of the other hands)"))
        for seat in range(self.players):
            score = self._take(codes.EV_SCORE, f"score event of seat {seat}", seat)
            self._check(score.a == hand_points[seat], score,
                        f"hand points a = {score.a}, expected {hand_points[seat]}")
            self._check(score.b == self.scores[seat], score,
                        f"score b = {score.b}, expected {self.scores[seat]}")
        return points
