"""The end of a hand, a round and a game: R1-R12 scoring, the last card's draws, losers.
"""

from __future__ import annotations

from ... import cards, codes
from ._model import _HIT_ALL, _Move, _number, _RoundWon


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


class Scoring:
    """The referee's checks of round ends and scores (mixed into ``_turns._Referee``)."""

    def _game_end(self, rounds_played: int) -> tuple[str, int | None, tuple[int, ...]] | None:
        """R2-R6, R11: the game ends when a score reaches the target (under lazy: rounds won);
        the winner is the highest score, or the lowest under the own-points modes (ties: the
        lowest seat)."""
        scores = self.scores
        if max(scores) >= self.rules.target_score:
            lowest_wins = self.rules.scoring in _OWN_POINTS
            best = min(scores) if lowest_wins else max(scores)
            winner = scores.index(best)
            target = self.rules.target_score
            if lowest_wins:
                why = (f"game_end won by seat {winner}, the lowest score {best} "
                       f"({self.rules.scoring}: a score reached {target})")
            else:
                why = f"game_end won by seat {winner} (score {best} reached {target})"
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

    def _hand_emptied(self, move: _Move) -> bool:
        """The player has no card left: R10 takes a new hand (False: it stays in the round), R9
        finishes it (True: it has left the round); otherwise the round ends (_RoundWon)."""
        seat = move.seat
        if self.rules.round_end == "seven_rounds":
            self.hands_done[seat] += 1
            done = self.hands_done[seat]
            if done < self.rules.hand_size:
                new = self.rules.hand_size - done
                why = (f"new_hand of seat {seat}: it emptied hand {done} of "
                       f"{self.rules.hand_size} and takes {new} cards (round_end: seven_rounds)")
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
