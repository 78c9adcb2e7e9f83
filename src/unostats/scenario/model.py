"""The resolved scenario: its variants (name, description, rule set), its cells (a variant at a
player count, with a Seat per seat), its sweep (``scenario.sweep``: the grid points, each a
variant of its own), its precision targets, and its canonical form and hash."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..design.spec.plan import DesignSpec
from ..durations import SECONDS_PER_TURN_DEFAULT
from ..leagues.spec.seatings import LeagueSpec
from ..rules import RuleSet
from ..seats import Seat
from ..tournaments.spec.bracket import TournamentSpec
from .ladder import Ladder, cell_name


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    rules: RuleSet
    # The explicit rule settings accumulated along the extends chain (what the files say).
    overrides: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Cell:
    """One variant at one player count, with a resolved Seat for every seat."""

    variant: Variant
    players: int
    seats: tuple[Seat, ...]
    # The sweep point this cell plays (keys as written in ``sweep:``, ``players`` included when
    # swept); None outside a sweep.
    sweep: Mapping[str, Any] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Axis:
    """One key of a sweep: its path as written (``rules.uno_penalty``, ``players``), the values
    it takes in order, and the name the variant names show it by (``uno_penalty``)."""

    key: str
    values: tuple[Any, ...]
    short: str


@dataclass(frozen=True)
class Grid:
    """One ``sweep:`` mapping: every combination of its axes' values is a point."""

    axes: tuple[Axis, ...]

    def resolved(self) -> dict[str, list[Any]]:
        return {a.key: list(a.values) for a in self.axes}

    @property
    def keys(self) -> tuple[str, ...]:
        """The swept keys other than ``players`` (what a point's variant is named by)."""
        return tuple(a.key for a in self.axes if a.key != "players")


@dataclass(frozen=True)
class Point:
    """A variant at one point of a grid: named after the point (``base uno_penalty=2``), with the
    rules and seats the point gives it and the player counts it plays."""

    variant: Variant
    base: str  # the variant's name in the file
    grid: int  # index of its grid in ``Scenario.sweep``
    sweep: tuple[tuple[str, Any], ...]  # (key as written, value), ``players`` not included
    players: tuple[int, ...]
    seats: Seat | tuple[Seat, ...]
    players_swept: bool = False

    def seats_for(self, players: int) -> tuple[Seat, ...]:
        if isinstance(self.seats, tuple):
            return self.seats[:players]
        return (self.seats,) * players

    def sweep_of(self, players: int) -> dict[str, Any]:
        out = dict(self.sweep)
        if self.players_swept:
            out["players"] = players
        return out


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    seed: int | None  # None: the caller chooses one (then stores it; see with_seed)
    games: int  # games per cell
    players: tuple[int, ...]  # sorted, distinct
    seats_spec: Seat | tuple[Seat, ...]  # one Seat for every seat, or one per seat (>= players)
    variants: tuple[Variant, ...]
    source_path: Path | None = None
    source_text: str = ""
    overrides: tuple[str, ...] = ()  # the --set expressions applied, as given
    # A tournament scenario: ``games`` is tournaments per variant x field, ``players`` the table
    # sizes its brackets play, and each table's seats come from the profiles (cells have none).
    tournament: TournamentSpec | None = None
    # A league scenario: ``players`` are its table sizes, each game's seats a seating of its
    # policies (``league.LeagueSpec.seats``; cells have none), ``games`` per table size rounded
    # up to whole cycles of the seatings.
    league: LeagueSpec | None = None
    # ``sweep:`` as resolved (grids of axes) and the points it expands to, each a variant of
    # its own at its player counts (``sweep.Point``); empty without a sweep.
    sweep: tuple[Grid, ...] = ()
    points: tuple[Point, ...] = ()
    # ``precision:`` targets, (statistic, 95% half-width) pairs; empty: play ``games`` per cell.
    precision: tuple[tuple[str, float], ...] = ()
    # The pace that turns turns into minutes (durations.py); it changes no game, only durations.
    seconds_per_turn: float = SECONDS_PER_TURN_DEFAULT
    # A design scenario: its one variant is the base the search changes, ``players`` the
    # design's, ``games`` the most a candidate gets; its cells are the candidates the run
    # proposes as it goes (``cells`` yields none ahead).
    design: DesignSpec | None = None
    # ``skill:``: a ladder of policies, each seated once among the table's seats (seat 0); every
    # variant x player count x rung is a cell, its variant named ``VARIANT/RUNG``.
    skill: Ladder | None = None
    # ``how_it_plays: true`` (or a design goal that needs it): the games count how each round
    # plays (the rounds' measures, engine/_measures.py); null otherwise.
    how_it_plays: bool = False

    def seats_for(self, players: int) -> tuple[Seat, ...]:
        if isinstance(self.seats_spec, tuple):
            return self.seats_spec[:players]
        return (self.seats_spec,) * players

    def cells(self) -> Iterator[Cell]:
        """Every variant x player count. In a tournament scenario these are the cells its table
        games are stored in (one per table size) and their seats are empty: they vary by table.
        A design's cells are the candidates its run proposes: none ahead."""
        if self.points:
            for point in self.points:
                for n in point.players:
                    yield Cell(point.variant, n, point.seats_for(n), point.sweep_of(n))
            return
        if self.design is not None:
            return
        if self.skill is not None:
            for variant in self.variants:
                for n in self.players:
                    for rung, policy in self.skill.rungs:
                        yield Cell(replace(variant, name=cell_name(variant.name, rung)), n,
                                   self.skill.seats(policy, self.seats_for(n)))
            return
        for variant in self.variants:
            for n in self.players:
                yield Cell(variant, n, () if self.tournament or self.league
                           else self.seats_for(n))

    def with_seed(self, seed: int) -> Scenario:
        return replace(self, seed=seed)

    def with_games(self, games: int) -> Scenario:
        """Games per cell set (``--games``); a design's are the most a candidate gets."""
        return replace(self, games=games, design=None if self.design is None
                       else replace(self.design, games=games))

    def resolved(self) -> dict[str, Any]:
        """Canonical form: every default resolved; what the hash identifies."""
        seats = ([s.resolved() for s in self.seats_spec] if isinstance(self.seats_spec, tuple)
                 else self.seats_spec.resolved())
        out = {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "games": self.games,
            "players": list(self.players),
            "seats": seats,
            "variants": [{"name": v.name, "description": v.description,
                          "rules": v.rules.as_dict()} for v in self.variants],
            "seconds_per_turn": self.seconds_per_turn,
        }
        if self.sweep:  # only when given, so the hash of a file without one is unchanged
            out["sweep"] = [grid.resolved() for grid in self.sweep]
        if self.skill is not None:
            out["skill"] = self.skill.resolved()
        if self.precision:
            out["precision"] = dict(self.precision)
        if self.how_it_plays:  # only when on, so the hash of a file without it is unchanged
            out["how_it_plays"] = True
        if self.tournament is not None:  # players and seats follow from the tournament
            del out["players"], out["seats"]
            out["tournament"] = self.tournament.resolved()
        if self.league is not None:  # players and seats follow from the league
            del out["players"], out["seats"]
            out["league"] = self.league.resolved()
        if self.design is not None:  # players and games are the design's
            del out["players"], out["games"]
            out["design"] = self.design.resolved()
        return out

    def canonical_json(self) -> str:
        return json.dumps(self.resolved(), sort_keys=True, separators=(",", ":"))

    def hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]
