"""The referee's flow: a game, its rounds and turns, the event cursor and its failures; the
rule families' checks are mixed in from the modules beside it (as engine/_turns.py calls the
kernel's families).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import islice
from types import SimpleNamespace
from typing import TYPE_CHECKING, NoReturn

from ... import cards, codes
from ...event_text import (
    card_name as _card, colour_name as _colour, describe as _describe, prefixes as _prefixes,
)
from ._actions import Actions
from ._cards import Cards
from ._jump_ins import JumpIns
from ._measures import Measures
from ._model import (
    _COLOUR, _CoversCapped, _Event, _Move, _number, _Penalty, _Played, _RoundWon, _rows, _Table,
    GameResult, RefereeError, RoundResult,
)
from ._numbers import _SILENCE_STARTS, Numbers
from ._penalties import Penalties
from ._policies import Policies
from ._scoring import Scoring
from ._supported import _check_supported
from ._uno_call import UnoCall

if TYPE_CHECKING:
    from ..simulate import Trace


class _Referee(Cards, Policies, Penalties, Actions, JumpIns, Numbers, UnoCall, Scoring, Measures):
    """One traced game replayed (``check_trace``)."""

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
        self.search = tuple(trace.search)
        self.keep_drawn = tuple(trace.keep_drawn)
        self.how_it_plays = trace.how_it_plays  # counted by the kernel: recompute, else None
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

    # Round.

    def _round(self, start: _Event, first_player: int | None) -> RoundResult:
        """One round; ``first_player`` is R6 lazy's previous winner (None: the dealer's left)."""
        dealer = start.seat
        self.table = _Table(self.deck, self.players)
        self.count = dict.fromkeys(codes.COUNTER_NAMES, 0)
        self.largest_penalty = 0
        self.pending, self.escalation, self.skip_run = None, 0, 0
        self._start_measures()
        self._new_round_state()
        self._deal(dealer)
        first = (dealer + 1) % self.players if first_player is None else first_player
        first_seat = self._first_card(dealer, first)
        self._check(start.b in (-1, first_seat), start,
                    f"round_start names seat {start.b} as first player, but seat {first_seat} "
                    "plays first")
        start_direction = self.table.direction
        winner = self._turns(first_seat)
        measures = self._measures_of_round(winner)
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
                           else ()), largest_penalty=self.largest_penalty, **measures)

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
        self._sample_hands(seat)
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

    def _turn_plays(self, seat: int) -> _Move | None:
        """A turn without a pending penalty: a play (P1) or a draw (P5), then A2/N3 extras."""
        start_top, start_colour = self.table.top, self.table.colour
        self._count_decision(seat)
        kind = self._peek()
        if kind == codes.EV_PLAY:
            first = self._play(seat, f"play or draw by seat {seat}",
                               lambda card: self._turn_choice_problem(seat, card),
                               searched=self._search(seat) is not None)
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

    def _play(self, seat: int, expected: str, problem: Callable[[int], str | None],
              searched: bool = False) -> _Played:
        """A play event by ``seat``; ``problem`` says what is wrong with its card, if anything;
        ``searched``: an expert's card of its turn, whose colour its search may choose."""
        event = self._take(codes.EV_PLAY, expected, seat)
        self._check_held(event)
        message = problem(event.a)
        if message:
            self._fail(event.index, message)
        return self._lay_down(event, searched)

    def _p1_problem(self, card: int) -> str | None:
        """P1 (black cards always match: a restricted one may be a bluff, P2/P3)."""
        if self.table.matches(card):
            return None
        return (f"illegal play: {_card(card)} matches neither the current colour "
                f"{_colour(self.table.colour)} nor the top card {_card(self.table.top)}")

    def _check_held(self, event: _Event) -> None:
        self._check(self.table.hands[event.seat][event.a] > 0, event,
                    f"seat {event.seat} does not hold {_card(event.a)}")

    def _lay_down(self, event: _Event, searched: bool = False) -> _Played:
        """Move a played card (in turn or not) to the discard pile; a black card names a colour
        (``searched``: any of the four, unless P7's cycle names it)."""
        seat, card = event.seat, event.a
        table = self.table
        self._check_held(event)
        before = table.colour
        played = _Played(card, before, table.holds_colour(seat, before))
        table.play(seat, card)
        self.count["cards_played"] += 1
        self.last_laid[seat] = card
        if cards.is_black(card):
            self._name_colour(seat, f"{_card(card)} played by seat {seat}", searched=searched)
        else:
            table.colour = _COLOUR[card]
        self._colour_changed()
        return played

    def _colour_changed(self) -> None:
        """N5 black: the silence ends once the colour named is no longer current."""
        if self.silence_colour is not None and self.table.colour != self.silence_colour:
            self.silence_colour = None

    def _no_more_plays(self, seat: int) -> None:
        if self._peek() == codes.EV_PLAY:
            self._fail_next(f"seat {seat} has no further card to play in this turn (A2, N3)")

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
