"""A3-A6 pending penalties: answers, chains, A6 extreme's escalation, and what a card makes
the next seat owe (``_card_penalty``, a card's effect and a last card's alike).
"""

from __future__ import annotations

from ... import cards, codes
from ...event_text import card_name as _card
from ._model import _COLOUR, _Move, _Penalty, _RANK


class Penalties:
    """The referee's checks of pending penalties (mixed into ``_turns._Referee``)."""

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
                # A3: a Draw Two of any colour
                return rank == cards.DRAW_TWO and self.rules.stack_draw_two != "none"
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

    def _close_sequences(self) -> None:
        self.escalation = 0
        self.skip_run = 0

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
