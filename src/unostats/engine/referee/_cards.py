"""D1-D6, S1-S3 the deal and the first card, P5 drawing, P6 reshuffles, P7 colours named:
the referee's side of engine/_cards.py.
"""

from __future__ import annotations

from ... import cards, codes
from ...event_text import card_name as _card, colour_name as _colour, reason_name as _reason
from ._model import _COLOUR, _cycle_next, _Event, _Played, _RANK


class Cards:
    """The referee's checks of the deal, draws and colours (mixed into ``_turns._Referee``)."""

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

    def _draw_instead_of_playing(self, seat: int) -> _Played | None:
        """P5: a player without a legal card draws as `draw` says; may play a drawn card (under
        one_may_play a seat keeps a drawn black card while it holds more cards than its
        ``keep_drawn``)."""
        legal = self.table.legal_cards(seat, self.restricted)
        if legal:
            names = ", ".join(_card(t) for t in legal)
            self._fail_next(f"expected a play by seat {seat}: it holds legal cards ({names}) "
                            "and may not draw")
        if self.rules.draw == "until_playable":
            return self._draw_until_playable(seat)
        drawn = self._draw_cards(seat, 2 if self.rules.draw == "two" else 1, codes.DRAW_NORMAL)
        playable = [t for t in drawn if self.table.may_play(seat, t, self.restricted)]
        keep = self.keep_drawn[seat] if seat < len(self.keep_drawn) else 0
        kept = (self.rules.draw == "one_may_play" and playable and keep > 0
                and playable[0] >= cards.FIRST_BLACK and self.table.hand_size(seat) > keep)
        if playable and self.rules.draw != "one_then_pass" and not kept:
            return self._play_drawn(seat, drawn, playable)
        if not drawn:
            why = "nothing could be drawn"
        elif kept:
            why = (f"it keeps the drawn {_card(playable[0])}: it holds "
                   f"{self.table.hand_size(seat)} cards, more than its keep_drawn {keep}")
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

    def _name_colour(self, seat: int, because: str, free_choice: bool = False,
                     searched: bool = False) -> None:
        """The colour the player holds most (ties: the lowest colour index), or any with
        ``colour: random`` or when an expert's search chose it (``searched``); under P7
        colour_cycle the cycle's next colour in the direction of play, unless ``free_choice``."""
        event = self._take(codes.EV_COLOUR, f"colour named by seat {seat} after {because}", seat)
        current = self.table.colour
        if self.rules.colour_cycle and not free_choice and current != cards.NO_COLOUR:
            wanted = _cycle_next(current, self.table.direction)
            way = "clockwise" if self.table.direction == 1 else "counter-clockwise"
            why = (f"colour_cycle: {way} after {_colour(current)} comes {_colour(wanted)}, "
                   f"so seat {seat} must name {_colour(wanted)}")
        elif searched or ((policy := self._weighted(seat)) is not None
                          and policy.colour == "random"):
            wanted = event.a if 0 <= event.a < cards.N_COLOURS else None  # any of the four
            why = f"seat {seat} must name one of the four colours, not {event.a}"
        else:
            wanted = self.table.preferred_colour(seat)
            why = (f"seat {seat} holds most {_colour(wanted)} cards (ties: the lowest colour) "
                   f"and must name {_colour(wanted)}")
        self._check(event.a == wanted, event, why)
        self.table.colour = event.a

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
        self._penalty_drawn(seat, reason, len(drawn))
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
