"""Leagues: every policy of a list meets every other at tables of a given size, in balanced
seatings (pure Python; ``leagues.driver`` plays them with the engine, ``ratings`` rates them).

The design (``seatings``): for a table of n from P policies, every combination of n distinct
policies, each seated in its n rotations and, for n >= 3, also in the n rotations of the reversed
order (the combination's cyclic orders both ways round). So, over one cycle of the seatings:

- every policy sits in every seat equally often: C(P-1, n-1) x 2 times (x 1 for n = 2);
- every two policies meet equally often: C(P-2, n-2) x 2n games (n games for n = 2);
- for any two policies a and b, a sits directly before b (b plays after a, the next seat) as
  often as b sits directly before a.

The first player of a game's first round is drawn by the engine, so positions (the order of play
within a round) are balanced in expectation over seats. A table size cell plays
``cycle_games(games, S)`` games: the scenario's ``games`` rounded up to whole cycles of its S
seatings, so every seating plays equally often. Game g plays seating ``g % S``, as game g of the
run's seed: the same game g under two variants seats the same policies on the same deal.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import Any

from ...seats import Seat

# A batch of games names its seats' policies by an 8-bit code (``engine.simulate``), so a league
# (all of whose policies may sit in one batch) has at most this many.
MAX_POLICIES = 128
# Seatings over a league's table sizes: each is held in memory (about 100 bytes) and played at
# least once, so the design is counted (``seating_count``) and refused above this before any is
# made.
MAX_SEATINGS = 1_000_000


@dataclass(frozen=True)
class LeagueSpec:
    """The policies of a league (seats with the league's behaviour, in file order, names
    distinct) and the table sizes it plays (sorted, distinct)."""

    policies: tuple[Seat, ...]
    table_sizes: tuple[int, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.policy for s in self.policies)

    def seatings(self, players: int) -> tuple[tuple[int, ...], ...]:
        return seatings(len(self.policies), players)

    def seats(self, players: int, game: int) -> tuple[Seat, ...]:
        """The seats of game ``game`` of the table size's cell."""
        design = self.seatings(players)
        return tuple(self.policies[i] for i in design[game % len(design)])

    def games(self, players: int, games: int) -> int:
        """Games the cell of this table size plays for a scenario's ``games``."""
        return cycle_games(games, seating_count(len(self.policies), players))

    def resolved(self) -> dict[str, Any]:
        """The section as a scenario file writes it (every seat has the same behaviour)."""
        seats = [s.resolved() for s in self.policies]
        return {"policies": [s["policy"] for s in seats], "table_size": list(self.table_sizes),
                "behaviour": seats[0]["behaviour"]}


def seatings(policies: int, players: int) -> tuple[tuple[int, ...], ...]:
    """The balanced design (module docstring): tuples of policy indexes, seat by seat."""
    if not 2 <= players <= policies:
        raise ValueError(f"a table of {players} needs from 2 to {policies} players")
    return _seatings(policies, players)


def seating_count(policies: int, players: int) -> int:
    """How many seatings ``seatings`` makes, counted: C(policies, players) combinations x
    ``players`` rotations (x 2, both ways round, for players >= 3)."""
    return math.comb(policies, players) * players * (1 if players == 2 else 2)


@functools.lru_cache(maxsize=64)
def _seatings(policies: int, players: int) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = []
    for combo in itertools.combinations(range(policies), players):
        orders = [combo] if players == 2 else [combo, combo[:1] + combo[:0:-1]]
        for order in orders:
            out.extend(order[r:] + order[:r] for r in range(players))
    return tuple(out)


def cycle_games(games: int, seatings_: int) -> int:
    """``games`` rounded up to whole cycles of ``seatings_`` seatings."""
    return math.ceil(games / seatings_) * seatings_
