"""The referee: a slow, readable replay of one traced game that checks every event.

``check_trace`` walks the events of a ``Trace`` in order, keeping its own model of the table (the
draw pile as a multiset, since the engine draws uniformly at random and order is not observable;
the discard pile; every hand; colour, direction and whose turn it is; the scores) and checks each
event against docs/engine.md. It raises ``RefereeError`` at the first event that breaks a rule and
otherwise returns what it computed itself, so the engine's statistics can be compared with it.

The referee deliberately shares no code with the Numba kernels: a rule bug would have to be made
twice, in two different styles, to slip through. It supports exactly the rule values listed in
``_SUPPORTED`` and refuses any other with ``NotImplementedError``.
"""

from __future__ import annotations

from collections import Counter
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
    "first_card": ("official", "number_only"),
    "wild_draw_four": ("no_matching_colour", "free"),
    "wild": ("free",),
    "challenge": ("official",),
    "draw": ("one_may_play",),
    "colour_cycle": (False,),
    "double_action": (False,),
    "stack_draw_two": ("none",),
    "stack_draw_four": ("none",),
    "draw_two_on_draw_four": (False,),
    "reverse_deflects": ("none",),
    "stack_skip": (False,),
    "skip_escape": (False,),
    "jump_in": ("none",),
    "multi_play": ("none",),
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


def _check_supported(trace: Trace) -> None:
    for key, value in trace.rules.values.items():
        if key not in _SUPPORTED:
            raise NotImplementedError(f"the referee does not know the rule {key!r}")
        allowed = _SUPPORTED[key]
        if allowed is not None and value not in allowed:
            raise NotImplementedError(
                f"the referee cannot check rule {key} = {value!r} yet (supported: {allowed})")
    for t in range(cards.WILD_DRAW_FOUR + 1, cards.N_TYPES):
        if trace.deck_counts[t]:
            raise NotImplementedError(
                f"the referee cannot check decks with {cards.card_to_str(t)} cards yet")
    if list(trace.deck_counts) != list(trace.rules.deck_counts()):
        raise RefereeError("trace.deck_counts differs from the deck of trace.rules")


# --- The table -------------------------------------------------------------------------------

_COLOUR = tuple(int(c) for c in cards.TYPE_COLOUR)
_RANK = tuple(int(r) for r in cards.TYPE_RANK)


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

    def reshuffle(self) -> None:
        """All discards but the top become the draw pile (P6)."""
        self.draw_pile.update(self.discard[:-1])
        del self.discard[:-1]

    def holds_colour(self, seat: int, colour: int) -> bool:
        return any(_COLOUR[t] == colour for t in self.hands[seat])

    def matches(self, card: int) -> bool:
        """P1: the current colour, the top card's number/symbol, or any black card."""
        if cards.is_black(card):
            return True
        return _COLOUR[card] == self.colour or _RANK[card] == _RANK[self.top]

    def may_play(self, seat: int, card: int, restricted_draw_four: bool) -> bool:
        """P1 with the P2 restriction (a bluff is not counted as a legal choice here)."""
        if card == cards.WILD_DRAW_FOUR and restricted_draw_four:
            return not self.holds_colour(seat, self.colour)
        return self.matches(card)

    def legal_cards(self, seat: int, restricted_draw_four: bool) -> list[int]:
        return sorted(t for t in self.hands[seat] if self.may_play(seat, t, restricted_draw_four))

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
    held_colour_before: bool  # the player held a card of colour_before (guilt of a +4)


class _Event(NamedTuple):
    index: int
    kind: int
    seat: int
    a: int
    b: int


# --- The referee -----------------------------------------------------------------------------


class _Referee:
    def __init__(self, trace: Trace):
        _check_supported(trace)
        rules = trace.rules.values
        self.players = trace.players
        self.hand_size = rules["hand_size"]
        self.first_card_rule = rules["first_card"]
        self.restricted_draw_four = rules["wild_draw_four"] == "no_matching_colour"
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
        self.count = dict.fromkeys(codes.COUNTER_NAMES, 0)
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
        return card != cards.WILD_DRAW_FOUR

    def _first_card(self, dealer: int) -> int:
        """Flip the first discard, apply its effect; return the seat that plays first."""
        card = self._flip()
        self.table.colour = _COLOUR[card]
        first = (dealer + 1) % self.players
        if cards.is_black(card) and (self.first_card_rule == "number_only"
                                     or card == cards.WILD_DRAW_FOUR):
            # A black card that stays only because nothing acceptable was left: docs/engine.md
            # gives it no effect; a colour named by the first player is accepted, not required.
            if self._peek() == codes.EV_COLOUR:
                self._name_colour(first, "the black first card")
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
            self._name_colour(first, because)
        return first

    # Turns.

    def _turns(self, seat: int) -> int | None:
        """Play turns from ``seat``; return the winner, or None at the turn cap."""
        while self.count["turns"] < self.max_turns:
            next_seat = self._turn(seat)
            self._check_card_count()
            if next_seat is None:
                return seat
            seat = next_seat
        return None

    def _turn(self, seat: int) -> int | None:
        """One turn; return the seat that acts next, or None if ``seat`` emptied its hand."""
        self._take(codes.EV_TURN, f"turn of seat {seat}", seat)
        self.count["turns"] += 1
        kind = self._peek()
        if kind == codes.EV_PLAY:
            played = self._play(seat)
        elif kind in (codes.EV_DRAW, codes.EV_RESHUFFLE, codes.EV_DRAW_FAIL):
            played = self._draw_instead_of_playing(seat)
        else:
            self._fail_next(f"expected a play or a draw by seat {seat}")
        if played is None:
            return self._next(seat)
        return self._after_play(seat, played)

    def _play(self, seat: int, drawn: int | None = None) -> _Played:
        table = self.table
        expected = (f"play of {_card(drawn)} by seat {seat}: the drawn card is playable"
                    if drawn is not None else f"play or draw by seat {seat}")
        event = self._take(codes.EV_PLAY, expected, seat)
        card = event.a
        self._check(drawn is None or card == drawn, event, f"expected {expected}")
        self._check(table.hands[seat][card] > 0, event,
                    f"seat {seat} does not hold {_card(card)}")
        self._check(table.matches(card), event,
                    f"illegal play: {_card(card)} matches neither the current colour "
                    f"{_colour(table.colour)} nor the top card {_card(table.top)}")
        before = table.colour
        played = _Played(card, before, table.holds_colour(seat, before))
        table.play(seat, card)
        self.count["cards_played"] += 1
        if cards.is_black(card):
            self._name_colour(seat, f"{_card(card)} played by seat {seat}")
        else:
            table.colour = _COLOUR[card]
        return played

    def _draw_instead_of_playing(self, seat: int) -> _Played | None:
        """P5 one_may_play: draw one card and play it at once if it is legal, else pass."""
        legal = self.table.legal_cards(seat, self.restricted_draw_four)
        if legal:
            names = ", ".join(_card(t) for t in legal)
            self._fail_next(f"expected a play by seat {seat}: it holds legal cards ({names}) "
                            "and may not draw")
        drawn = self._draw_one(seat, codes.DRAW_NORMAL, "1 of 1")
        if drawn is not None and self.table.may_play(seat, drawn, self.restricted_draw_four):
            return self._play(seat, drawn)
        why = "nothing could be drawn" if drawn is None else f"{_card(drawn)} is not playable"
        self._take(codes.EV_PASS, f"pass of seat {seat} ({why})", seat)
        return None

    def _name_colour(self, seat: int, because: str) -> None:
        event = self._take(codes.EV_COLOUR, f"colour named by seat {seat} after {because}", seat)
        wanted = self.table.preferred_colour(seat)
        self._check(event.a == wanted, event,
                    f"seat {seat} holds most {_colour(wanted)} cards (ties: the lowest colour) "
                    f"and must name {_colour(wanted)}")
        self.table.colour = event.a

    # After a play.

    def _after_play(self, seat: int, played: _Played) -> int | None:
        left = self.table.hand_size(seat)
        if left == 1 and self.uno_penalty > 0:
            self._uno(seat)
        if left == 0:
            self._last_card_penalty(seat, played.card)
            return None
        return self._card_effect(seat, played)

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

    def _last_card_penalty(self, winner: int, card: int) -> None:
        """The official scoring detail: a final Draw Two / +4 is drawn before the round ends."""
        victim = self._next(winner)
        if _RANK[card] == cards.DRAW_TWO:
            self._draw_cards(victim, 2, codes.DRAW_DRAW_TWO)
        elif card == cards.WILD_DRAW_FOUR:
            self._draw_cards(victim, 4, codes.DRAW_DRAW_FOUR)

    def _card_effect(self, seat: int, played: _Played) -> int:
        """A1: apply the card's effect; return the seat that acts next."""
        card = played.card
        rank = _RANK[card]
        victim = self._next(seat)
        because = f"{_card(card)} played by seat {seat}"
        if rank == cards.SKIP or (rank == cards.REVERSE and self.players == 2):
            self._skip(victim, because)
            return self._next(victim)
        if rank == cards.REVERSE:
            self._reverse(because)
            return self._next(seat)
        if rank == cards.DRAW_TWO:
            self._draw_cards(victim, 2, codes.DRAW_DRAW_TWO)
            self._skip(victim, because)
            return self._next(victim)
        if card == cards.WILD_DRAW_FOUR:
            return self._wild_draw_four(seat, victim, played)
        return victim

    def _skip(self, seat: int, because: str) -> None:
        self._take(codes.EV_SKIP, f"skip of seat {seat} ({because})", seat)
        self.count["skips"] += 1

    def _reverse(self, because: str) -> None:
        self.table.direction = -self.table.direction
        new = self.table.direction
        event = self._take(codes.EV_DIRECTION, f"direction {new:+d} ({because})")
        self._check(event.a == new, event, f"expected direction {new:+d} ({because})")
        self.count["direction_changes"] += 1

    def _wild_draw_four(self, player: int, victim: int, played: _Played) -> int:
        if self._peek() == codes.EV_CHALLENGE:
            if not self.restricted_draw_four:
                self._fail_next("no challenge is possible when wild_draw_four is free")
            return self._challenge(player, victim, played)
        self._draw_cards(victim, 4, codes.DRAW_DRAW_FOUR)
        self._skip(victim, f"+4 played by seat {player}")
        return self._next(victim)

    def _challenge(self, player: int, victim: int, played: _Played) -> int:
        """P4 official: guilty, the player draws 4 and the victim plays; else the victim draws 6."""
        event = self._take(codes.EV_CHALLENGE, f"challenge by seat {victim}", victim)
        self._check(event.a == player, event,
                    f"expected the challenged seat a = {player}, who played the +4")
        guilty = played.held_colour_before
        held = "held" if guilty else "held no"
        self._check(event.b == int(guilty), event,
                    f"guilty flag b = {event.b}, expected {int(guilty)}: seat {player} {held} "
                    f"{_colour(played.colour_before)} card when it played the +4")
        self.count["challenges"] += 1
        if guilty:
            self.count["challenges_won"] += 1
            self._draw_cards(player, 4, codes.DRAW_CHALLENGE)
            return victim
        self._draw_cards(victim, 6, codes.DRAW_CHALLENGE)
        self._skip(victim, f"lost challenge of seat {player}'s +4")
        return self._next(victim)

    # Drawing.

    def _draw_cards(self, seat: int, count: int, reason: int) -> None:
        """Draw ``count`` cards; a draw_fail abandons the rest (P6)."""
        for k in range(1, count + 1):
            if self._draw_one(seat, reason, f"{k} of {count}") is None:
                return

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
