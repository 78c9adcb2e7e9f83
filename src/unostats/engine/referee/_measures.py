"""How a round plays, recomputed from the trace (the kernel's engine/_measures.py, written
again): the hand leader and its changes, the winner's largest card deficit, decisions and UNO
stops, when the kernel counted them (a trace of a run that did not count: None, the rows'
null). docs/guide/how-it-plays.md defines each.
"""

from __future__ import annotations

from ... import codes

_PENALTY_FREE = (codes.DRAW_NORMAL, codes.DRAW_COVER, codes.DRAW_REFILL)


class Measures:
    """Mixed into the referee: its table, seats and restrictions are the referee's."""

    def _start_measures(self) -> None:
        n = self.players
        self.leader: int | None = None
        self.measures = dict.fromkeys(("hand_leader_changes", "decision_turns",
                                       "legal_cards_on_decisions"), 0)
        self.deficit = [0] * n  # each seat's largest deficit to the fewest held, in its turns
        self.stops = [0] * n  # UNO stops each seat suffered

    def _sample_hands(self, seat: int) -> None:
        """The seat's turn starts: the seat in the round holding alone the fewest cards leads
        (ties leave the lead as it was; a leader after the first one is a change); the seat's
        own deficit to the fewest held."""
        sizes = {s: self.table.hand_size(s) for s in range(self.players) if self.in_round[s]}
        fewest = min(sizes.values())
        holders = [s for s, h in sizes.items() if h == fewest]
        if len(holders) == 1 and holders[0] != self.leader:
            if self.leader is not None:
                self.measures["hand_leader_changes"] += 1
            self.leader = holders[0]
        self.deficit[seat] = max(self.deficit[seat], sizes[seat] - fewest)

    def _count_decision(self, seat: int) -> None:
        """The seat chooses the card of its turn among its distinct legal cards (no bluffs)."""
        legal = len(self.table.legal_cards(seat, self.restricted))
        if legal > 1:
            self.measures["decision_turns"] += 1
            self.measures["legal_cards_on_decisions"] += legal

    def _stopped(self, seat: int, held: int) -> None:
        """The seat, holding ``held`` cards, is skipped or made to draw a penalty."""
        if held == 1:
            self.stops[seat] += 1

    def _penalty_drawn(self, seat: int, reason: int, drawn: int) -> None:
        if reason not in _PENALTY_FREE and drawn:
            self._stopped(seat, self.table.hand_size(seat) - drawn)

    def _measures_of_round(self, winner: int | None) -> dict[str, int | None]:
        """The round's measures (codes.MEASURE_NAMES): the winner ends as the hand leader. All
        None when the kernel did not count them (``Trace.how_it_plays``: its rows hold null)."""
        if not self.how_it_plays:
            return dict.fromkeys(codes.MEASURE_NAMES)
        changes = self.measures["hand_leader_changes"]
        if winner is not None and self.leader is not None and self.leader != winner:
            changes += 1
        return {**self.measures, "hand_leader_changes": changes,
                "winner_largest_deficit": None if winner is None else self.deficit[winner],
                "uno_stops": sum(self.stops),
                "uno_stops_still_won": 0 if winner is None else self.stops[winner]}
