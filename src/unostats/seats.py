"""Who sits at the table: each seat's play policy (B2) and behaviour probabilities (B1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Seat:
    """One seat's play policy (rules.POLICIES) and behaviour probabilities (rules.BEHAVIOUR)."""

    policy: str = "random"
    behaviour: Mapping[str, float] = field(default_factory=dict)


def resolve_seats(seats: Seat | Sequence[Seat], players: int) -> tuple[Seat, ...]:
    """One Seat per seat: a single Seat is used for every seat; a list must match ``players``."""
    if isinstance(seats, Seat):
        return (seats,) * players
    seats = tuple(seats)
    if len(seats) != players:
        raise ValueError(f"{len(seats)} seats given for {players} players")
    return seats
