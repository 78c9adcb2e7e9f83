"""U1 the UNO call, U2 mistakes.
"""

from __future__ import annotations

from ... import codes


class UnoCall:
    """The referee's checks of UNO calls and mistakes (mixed into ``_turns._Referee``)."""

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
