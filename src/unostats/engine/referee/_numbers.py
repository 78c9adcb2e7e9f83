"""N1-N6: hands moved by numbers, five swap, slaps, silences, extra numbers of a turn, covers.
"""

from __future__ import annotations

from ... import cards, codes
from ...event_text import card_name as _card, colour_name as _colour
from ._model import _COLOUR, _CoversCapped, _Move, _number, _RANK, _remove
from ._policies import _strategist_gift


# N5: the cards that start (or renew) each kind of silence, and what breaking it costs.
_SILENCE_STARTS = {
    "none": lambda card: False,
    "seven": lambda card: _number(card) == 7,
    "two": lambda card: _number(card) == 2,
    "black": cards.is_black,
}


_SILENCE_PENALTY = {"seven": 4, "two": 2, "black": 2}


class Numbers:
    """The referee's checks of the number-card rules (mixed into ``_turns._Referee``)."""

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
                    f"breaking a silence ({self.rules.silence}) costs {penalty} cards, "
                    f"a = {event.a}")
        self.count["silence_breaks"] += 1
        self.silence_owner = self.silence_colour = None
        self._draw_cards(event.seat, penalty, codes.DRAW_SILENCE, "it broke the silence")

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

    def _owes_cover(self, move: _Move) -> bool:
        return self.rules.eight_cover and _number(move.card) == 8

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
