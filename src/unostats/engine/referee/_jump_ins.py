"""J1-J4 jump-ins (and no stray one).
"""

from __future__ import annotations

from ... import cards, codes
from ...event_text import card_name as _card
from ._model import _Event, _Move


# J1: the cards each jump_in mode lets players jump in on.
_JUMPABLE = {
    "none": lambda card: False,
    "numbers": cards.is_number,
    "all_but_draw_four": lambda card: not cards.is_black(card) or card == cards.WILD,
    "extreme": lambda card: not cards.is_black(card),
}


class JumpIns:
    """The referee's checks of jump-ins (mixed into ``_turns._Referee``)."""

    def _no_stray_jump_in(self) -> None:
        """J1/J2: a jump-in follows a play directly, never the round's first discard."""
        if self._peek() != codes.EV_JUMP_IN:
            return
        if self.count["cards_played"] == 0:
            self._fail_next("no jump-in on the round's first discard (J2)")
        if self.rules.jump_in == "none":
            self._fail_next("jump-ins are off (jump_in: none)")
        self._fail_next("a jump-in must come right after a play, before the play's effect (J1)")

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
