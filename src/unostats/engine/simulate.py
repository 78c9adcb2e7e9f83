"""The Python face of the engine: the only caller of the jitted kernels.

``simulate_batches`` plays games in batches and yields polars DataFrames, so memory stays flat for
any number of games; ``trace_game`` replays one game with every event recorded.

A game is a pure function of (rules, players, seats, seed, game index): each game seeds its own
random stream, so results do not depend on thread count, batch size or where a run resumed.

Schemas (game is the 0-based game index of the run; round is 1-based within its game):

- games: game, rounds, turns, first_seat (first player of round 1), winner_seat (null if the game
  was capped), margin (winner's score minus the runner-up's), ended_by ("target" | "cap")
- game_seats: game, seat, policy, final_score, rank (1 = best, ties share), is_winner
- rounds: game, round, dealer_seat, first_seat, winner_seat, winner_position (null when capped),
  the counters of ``codes.COUNTER_NAMES`` (turns, cards_played, ...), points, ended_by ("win" | "cap")
- round_seats: game, round, seat, position (seat offset from the round's first player),
  cards_left, hand_points, score_after
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import polars as pl

from ..rules import RuleSet


@dataclass(frozen=True)
class Seat:
    """One seat's play policy (rules.POLICIES) and behaviour probabilities (rules.BEHAVIOUR)."""

    policy: str = "random"
    behaviour: Mapping[str, float] = field(default_factory=dict)


class Batch(NamedTuple):
    games: pl.DataFrame
    game_seats: pl.DataFrame
    rounds: pl.DataFrame
    round_seats: pl.DataFrame


@dataclass(frozen=True)
class Trace:
    """Every event of one game (rows of codes.EV_* records) and what is needed to check it."""

    rules: RuleSet
    players: int
    policies: tuple[str, ...]
    seed: int
    game: int
    deck_counts: np.ndarray  # copies per card type
    card_points: np.ndarray  # scoring value per card type
    events: np.ndarray  # int64 [n, 4]: kind, seat, a, b


def simulate_batches(
    *,
    rules: RuleSet,
    players: int,
    seats: Seat | Sequence[Seat],
    games: int,
    seed: int,
    first_game: int = 0,
    threads: int | None = None,
    batch_games: int = 20_000,
) -> Iterator[Batch]:
    raise NotImplementedError


def trace_game(
    *, rules: RuleSet, players: int, seats: Seat | Sequence[Seat], seed: int, game: int
) -> Trace:
    raise NotImplementedError
