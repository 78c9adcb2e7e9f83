"""A championship's specification (docs/rules.md section 9, TOUR): its stages and their
advance rules, its fields of entrants, and the plan of the stages a bracket of some number of
entrants plays (tables of balanced sizes; a stage whose players fit at one table is the final).
``scenario`` reads a tournament section into a ``TournamentSpec``; ``bracket`` plays it."""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ....seats import Seat

MAIN = "main"
CONSOLATION = "consolation"
BRACKETS = (MAIN, CONSOLATION)
ENTRANTS_RANGE = (2, 10_000)
TABLE_SIZE_RANGE = (2, 10)  # the engine's player counts (rule S1)
DEFAULT_TABLE_SIZE = 6  # TOUR T1


class PlanError(ValueError):
    """A bracket cannot be played with these entrants (the message says why)."""


@dataclass(frozen=True)
class AdvanceRule:
    """``advance`` players per table go on when the bracket has at most ``entrants_at_most``
    entrants (None: any number)."""

    advance: int
    entrants_at_most: int | None = None

    def resolved(self) -> dict[str, Any]:
        out: dict[str, Any] = {"advance": self.advance}
        if self.entrants_at_most is not None:
            out["entrants_at_most"] = self.entrants_at_most
        return out


@dataclass(frozen=True)
class Stage:
    name: str
    advance: tuple[AdvanceRule, ...] = ()  # empty for the last stage (the final)

    def advancers(self, entrants: int) -> int:
        """Players per table who go on, for a bracket of ``entrants``."""
        for rule in self.advance:
            if rule.entrants_at_most is None or entrants <= rule.entrants_at_most:
                return rule.advance
        raise PlanError(f"stage {self.name!r} has no advance rule for {entrants} entrants")

    def resolved(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.advance:
            simple = len(self.advance) == 1 and self.advance[0].entrants_at_most is None
            out["advance"] = (self.advance[0].advance if simple
                              else [r.resolved() for r in self.advance])
        return out


@dataclass(frozen=True)
class Field:
    """Who enters: ``mix`` is (profile, count) sorted by profile name; counts sum to
    ``entrants``. Entrant ids 0..entrants-1 follow that order (the draw shuffles them)."""

    name: str
    entrants: int
    mix: tuple[tuple[str, int], ...]
    description: str = ""

    def entrant_profiles(self) -> tuple[str, ...]:
        return tuple(p for p, count in self.mix for _ in range(count))

    def count(self, profile: str) -> int:
        return dict(self.mix).get(profile, 0)

    @functools.cached_property
    def key(self) -> int:
        """The field's part of every seed key: a hash of its name (once: every seed needs it)."""
        return int.from_bytes(hashlib.sha256(self.name.encode()).digest()[:4], "little")

    def resolved(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "entrants": self.entrants,
                "mix": {p: c for p, c in self.mix}}


@dataclass(frozen=True)
class StagePlan:
    """One stage as a bracket plays it."""

    stage: int  # index into TournamentSpec.stages
    name: str
    players: int
    tables: tuple[int, ...]  # players at each table
    advance: int  # per table; 0 at the final

    @property
    def is_final(self) -> bool:
        return self.advance == 0

    @property
    def advancing(self) -> int:
        return self.advance * len(self.tables)


@dataclass(frozen=True)
class TournamentSpec:
    table_size: int
    stages: tuple[Stage, ...]
    profiles: Mapping[str, Seat]  # by name, sorted
    fields: tuple[Field, ...]
    consolation: bool = False
    entrants: int | None = None  # the file's default entrant count (fields may override)

    def resolved(self) -> dict[str, Any]:
        return {
            "entrants": self.entrants,
            "table_size": self.table_size,
            "consolation": self.consolation,
            "stages": [s.resolved() for s in self.stages],
            "profiles": {name: s.resolved() for name, s in self.profiles.items()},
            "fields": [f.resolved() for f in self.fields],
        }

    def plan(self, entrants: int) -> tuple[StagePlan, ...]:
        return plan_bracket(self.stages, self.table_size, entrants)

    def brackets(self, fld: Field) -> tuple[tuple[StagePlan, ...], tuple[StagePlan, ...]]:
        """The main bracket's plan and the consolation's (empty without one)."""
        main = self.plan(fld.entrants)
        knocked_out = consolation_entrants(main) if self.consolation else 0
        return main, (self.plan(knocked_out) if knocked_out >= 2 else ())

    def games_per_tournament(self, fld: Field) -> int:
        return sum(len(s.tables) for plan in self.brackets(fld) for s in plan)

    def table_sizes(self) -> tuple[int, ...]:
        """Every table size some stage of some field plays (the run's player-count cells)."""
        return tuple(sorted({n for f in self.fields for plan in self.brackets(f)
                             for s in plan for n in s.tables}))

    def seat(self, profile: str) -> Seat:
        return self.profiles[profile]


def balanced_tables(players: int, table_size: int) -> tuple[int, ...]:
    """``ceil(players / table_size)`` tables whose sizes differ by at most one, larger first."""
    tables = max(1, math.ceil(players / table_size))
    base, extra = divmod(players, tables)
    return tuple(base + 1 if i < extra else base for i in range(tables))


def plan_bracket(stages: Sequence[Stage], table_size: int,
                 entrants: int) -> tuple[StagePlan, ...]:
    """The stages a bracket of ``entrants`` plays; raises PlanError if it cannot be played."""
    if entrants < 2:
        raise PlanError(f"{entrants} entrants: a bracket needs at least 2")
    out: list[StagePlan] = []
    players, i = entrants, 0
    while True:
        last = i == len(stages) - 1
        if not last and players <= table_size:  # one table: it is the final
            i, last = len(stages) - 1, True
        stage = stages[i]
        if last:
            if players > table_size:
                before = f"after stage {out[-1].name!r} " if out else ""
                raise PlanError(
                    f"{players} players would reach the final {stage.name!r} {before}with "
                    f"{entrants} entrants, more than one table of {table_size}: add a stage or "
                    "let fewer players advance")
            out.append(StagePlan(i, stage.name, players, (players,), 0))
            return tuple(out)
        tables = balanced_tables(players, table_size)
        k = stage.advancers(entrants)
        if k >= min(tables):
            raise PlanError(
                f"stage {stage.name!r} with {entrants} entrants: {k} of each table advance, but "
                f"its {players} players sit at tables of {', '.join(map(str, tables))}, so a "
                f"table of {min(tables)} would knock nobody out")
        out.append(StagePlan(i, stage.name, players, tables, k))
        players, i = k * len(tables), i + 1


def consolation_entrants(main: Sequence[StagePlan]) -> int:
    """Players knocked out in the main bracket's first stage (0 if it is the final)."""
    first = main[0]
    return 0 if first.is_final else first.players - first.advancing
