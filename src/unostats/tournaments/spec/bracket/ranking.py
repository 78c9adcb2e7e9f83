"""Who is better at a table: a table's game as the bracket reads it (``TableGame`` for one,
``TableGames`` for many tables of one size) and the order of its seats: the engine's game rank
(1 = best, by the variant's scoring; ties share a rank), then more rounds won in that game, then
fewer points left in hand at the ends of the game's rounds (what the player gave away), then the
lot. Ties on rank are common in winner-takes-all games: players who never won a round all score
0, and at a table of 6 the third and fourth often both have 0. ``DECIDED_BY`` names what
separated the last player who went on from the first who did not (at a final: the champion from
the runner-up)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

DECIDED_BY = ("rank", "rounds_won", "hand_points", "lot")


class TableGame(NamedTuple):
    """What a bracket needs from one table's game (per seat, seat order)."""

    rank: tuple[int, ...]  # engine rank, 1 = best, ties share
    rounds_won: tuple[int, ...]
    first_position: tuple[int, ...]  # position in round 1 (0 acts first)
    rounds: int
    turns: int
    hand_points: tuple[int, ...] = ()  # points left in hand, summed over the rounds (() = 0s)
    payload: Any = None  # the engine's frames, stored by tournaments.driver


class TableGames(NamedTuple):
    """The games of ``m`` tables of one size ``n``, row i the i-th table asked: int64 arrays
    [m, n] per seat (seat order) and [m] per game. ``payload``: what is stored of them (the
    engine's Batch of the m games, game i = row i), or ``games``: the TableGames a player of
    single tables returned (``of``)."""

    rank: np.ndarray
    rounds_won: np.ndarray
    first_position: np.ndarray
    rounds: np.ndarray
    turns: np.ndarray
    hand_points: np.ndarray
    payload: Any = None
    games: Sequence[TableGame] | None = None

    @classmethod
    def of(cls, games: Sequence[TableGame], n: int) -> TableGames:
        def seats(values: list[Sequence[int]]) -> np.ndarray:
            return np.array(values, dtype=np.int64).reshape(len(games), n)

        return cls(seats([g.rank for g in games]), seats([g.rounds_won for g in games]),
                   seats([g.first_position for g in games]),
                   np.array([g.rounds for g in games], dtype=np.int64),
                   np.array([g.turns for g in games], dtype=np.int64),
                   seats([g.hand_points or (0,) * n for g in games]), games=games)


def orders(rank: np.ndarray, won: np.ndarray, left: np.ndarray,
           lots: np.ndarray | None = None) -> np.ndarray:
    """Each table's seats best first (arrays [..., n] per seat): rank, then more rounds won,
    then fewer points left in hand, then the lot (``lots``, 0 = best; None: seat order)."""
    keys = (left, -won, rank) if lots is None else (lots, left, -won, rank)
    return np.lexsort(keys, axis=-1)


def tied(rank: np.ndarray, won: np.ndarray, left: np.ndarray,
         order: np.ndarray) -> np.ndarray:
    """Tables (arrays [..., n]; ``order`` from ``orders``) where two seats tie on everything
    before the lot."""
    same = np.ones(order.shape[:-1] + (order.shape[-1] - 1,), dtype=bool)
    for key in (rank, won, left):
        s = np.take_along_axis(key, order, axis=-1)
        same &= s[..., 1:] == s[..., :-1]
    return same.any(axis=-1)


def deciders(rank: np.ndarray, won: np.ndarray, left: np.ndarray, order: np.ndarray,
             boundary: int) -> np.ndarray:
    """Index into DECIDED_BY of what separated ``order[..., boundary - 1]`` (the last to go
    on) from ``order[..., boundary]``."""
    a, b = order[..., boundary - 1:boundary], order[..., boundary:boundary + 1]
    out = np.full(order.shape[:-1], 3, dtype=np.int64)  # the lot
    for code, key in reversed(list(enumerate((rank, won, left)))):
        differ = (np.take_along_axis(key, a, -1) != np.take_along_axis(key, b, -1))[..., 0]
        out[differ] = code
    return out
