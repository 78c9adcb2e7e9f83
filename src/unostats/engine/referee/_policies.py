"""B2 policies as the referee checks them: the weighted scores (policies written as data and
the bundled presets), the strategist, the card a seat gives away (N2, D5).
"""

from __future__ import annotations

from collections import Counter

from ... import cards
from ...event_text import card_name as _card
from ...seats import PRESETS, SearchPolicy, WeightedPolicy
from ._model import _COLOUR, _RANK


def _strategist_gift(hand: Counter, points: list[int]) -> int:
    """N2, D5 swap one: the card the strategist gives away: the lowest class (numbers, coloured
    actions, black cards), then the most points; ties to the lowest card id. (Every other
    policy gives the card it scores best.)"""

    def card_class(t: int) -> int:
        return 2 if cards.is_black(t) else int(not cards.is_number(t))

    return min(hand, key=lambda t: (card_class(t), -points[t], t))


# What a weighted policy's kind features call each rank (numbers: "number").
_KIND_NAMES = {cards.SKIP: "skip", cards.REVERSE: "reverse", cards.DRAW_TWO: "draw_two",
               cards.WILD_RANK: "wild", cards.WILD_DRAW_FOUR_RANK: "wild_draw_four",
               cards.BLANK_RANK: "blank", cards.HIT_ALL_ONE_RANK: "hit_all",
               cards.HIT_ALL_TWO_RANK: "hit_all", cards.SWAP_HANDS_RANK: "swap_hands",
               cards.CUSTOM_WILD_RANK: "custom_wild"}


_ATTACKS = (cards.SKIP, cards.REVERSE, cards.DRAW_TWO, cards.WILD_DRAW_FOUR_RANK)


def _weighted_score(policy: WeightedPolicy, hand: Counter, card: int, colour: int, top: int,
                    threat: bool, points: list[int]) -> float:
    """A weighted policy's score of ``card`` in ``hand`` (docs/engine.md "Policies as data"),
    summed in the kernel's order so that equal scores are equal to the last bit."""
    w = policy.weight
    black = cards.is_black(card)
    same_colour = sum(k for t, k in hand.items() if _COLOUR[t] == _COLOUR[card]) - 1
    same_rank = sum(k for t, k in hand.items() if _RANK[t] == _RANK[card]) - 1
    linked = sum(k for t, k in hand.items()
                 if _COLOUR[t] == _COLOUR[card] or _RANK[t] == _RANK[card]) - 1
    features = (
        ("points", points[card]),
        ("colour_match", float(not black and _COLOUR[card] == colour)),
        ("rank_match", float(_RANK[card] == _RANK[top])),
        ("colour_held", same_colour),
        ("rank_held", same_rank),
        ("links", linked),
        ("attack", float(threat and _RANK[card] in _ATTACKS)),
    )
    total = w(_KIND_NAMES.get(_RANK[card], "number"))
    for name, value in features:
        total += w(name) * value
    return total


class Policies:
    """The referee's checks of the cards a policy chooses (mixed into ``_turns._Referee``)."""

    def _policy(self, seat: int) -> str:
        return self.policies[seat] if seat < len(self.policies) else "random"

    def _search(self, seat: int) -> SearchPolicy | None:
        """The seat's search (the expert), None for a seat that plays a policy."""
        return self.search[seat] if seat < len(self.search) else None

    def _weighted(self, seat: int) -> WeightedPolicy | None:
        """The weights the seat plays by: its policy written as data, or its bundled policy's
        preset (an expert: its playout policy's); None for the strategist (seats.CODED), whose
        turn choices are not checked."""
        policy = self.weighted[seat] if seat < len(self.weighted) else None
        search = self._search(seat)
        return policy or PRESETS.get(search.playout if search else self._policy(seat))

    def _best_scored(self, seat: int, candidates: list[int]) -> list[int]:
        """Of ``candidates`` (card types in the seat's hand), those the seat's weighted policy
        may choose: the best-scoring ones, or with ``ties: first`` the lowest id among them."""
        policy = self._weighted(seat)
        threat = self.table.hand_size(self._next(seat)) <= 2
        scores = {t: _weighted_score(policy, self.table.hands[seat], t, self.table.colour,
                                     self.table.top, threat, self.card_points)
                  for t in candidates}
        best = max(scores.values())
        tied = sorted(t for t, v in scores.items() if v == best)
        return tied[:1] if policy.ties == "first" else tied

    def _scored_problem(self, seat: int, card: int, choices: list[list[int]], what: str
                        ) -> str | None:
        """A weighted policy plays a best-scoring card of one of ``choices`` (with and without
        a bluff), else the problem."""
        allowed = [self._best_scored(seat, c) for c in choices if c]
        if not allowed or any(card in best for best in allowed):
            return None
        names = " or ".join(", ".join(_card(t) for t in best) for best in allowed)
        return (f"seat {seat} ({self._policy(seat)}, weights) must play the {what} it scores "
                f"best: {names}, not {_card(card)}")

    def _turn_choice_problem(self, seat: int, card: int) -> str | None:
        """P1, and for a weighted policy B2: the best-scoring legal card (a bluff, P2/P3, also
        allows the restricted black cards). An expert's card is its search's: P1 only."""
        problem = self._p1_problem(card)
        if problem or self._weighted(seat) is None or self._search(seat) is not None:
            return problem
        hand = self.table.hands[seat]
        legal = self.table.legal_cards(seat, self.restricted)
        bluffing = sorted(t for t in hand if self.table.matches(t))
        choices = [legal] if bluffing == legal else [legal, bluffing]
        return self._scored_problem(seat, card, choices, "legal card")
