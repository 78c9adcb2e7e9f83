"""The effect of every move (A1, A2, A7, A8, A9 with D3-D5; P2-P4 challenges and take-backs).
"""

from __future__ import annotations

from ... import cards, codes
from ...event_text import card_name as _card, colour_name as _colour
from ._model import _HIT_ALL, _is_coloured_action, _Move, _Played, _RANK


# P4: what an innocent challenger draws, for a +4 and for a plain Wild.
_INNOCENT_DRAWS = {"official": (6, 2), "house": (6, 2), "extreme": (8, 8)}


class Actions:
    """The referee's checks of a move's effect (mixed into ``_turns._Referee``)."""

    def _double(self, seat: int, card: int) -> int:
        """A2: a coloured action card is followed by an identical one the player holds."""
        if not (self.rules.double_action and _is_coloured_action(card)
                and self.table.hands[seat][card]):
            return 1
        self._play(seat, f"second {_card(card)} by seat {seat} (double_action: it holds another)",
                   lambda t: None if t == card else
                   f"the second card of a double action must be {_card(card)} (A2)")
        return 2

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
        self._stopped(seat, self.table.hand_size(seat))

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
