"""The bracket played: the tournaments of a batch of one field, side by side as columns.

Each stage of a bracket is drawn, read and ranked for all the tournaments of a batch at once
(numpy arrays with a row per tournament, ``[K, players]``: seats, finishes, what decided,
standings and places; a stage's tables one after another along the row), and the table player is
handed the tables of a step (the next stage of the main bracket and of the consolation, which
starts once the first stage is over) of many tournaments at once: the engine plays them in one
call per stage and table size (``PlayColumns``, ``tournaments.driver``), hand-made games in one
call per step (``PlayTables``, the tests). ``play_batch`` plays them; ``PlayedTournaments``
holds what they did, as the arrays the store's rows are made of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .... import seed_sequences
from ....seats import Seat
from .ranking import TableGame, TableGames, deciders, orders, tied
from .seeds import BatchSeeds, lot
from .spec import CONSOLATION, MAIN, Field, StagePlan, TournamentSpec

TableAsk = tuple[tuple[Seat, ...], int]  # a table to play: its seats and its game's seed
# The games of many tables (any sizes), in order: a player of single tables.
PlayTables = Callable[[Sequence[TableAsk]], Sequence[TableGame]]


class PlayColumns(Protocol):
    """A player of many tables of one size at once (the engine, ``tournaments.driver``):
    ``play_columns(seats, which, seeds)`` plays table i with seats ``seats[which[i, s]]`` (which:
    int64 [m, n]) and game seed ``seeds[i]`` (uint64 [m])."""

    def play_columns(self, seats: Sequence[Seat], which: np.ndarray,
                     seeds: np.ndarray) -> TableGames: ...


@dataclass(frozen=True)
class _FieldPlan:
    """What every tournament of a field shares: its entrants' profiles and seats, its brackets'
    plans (derived once per ``play_batch``)."""

    field: Field
    profiles: tuple[str, ...]  # by entrant
    entrant_seats: tuple[Seat, ...]  # by entrant
    seats: tuple[Seat, ...]  # the distinct profiles' seats, by profile index
    names: tuple[str, ...]  # the distinct profiles, by profile index
    profile_of: np.ndarray  # each entrant's profile index
    stage_names: tuple[str, ...]  # by stage index
    main_plan: tuple[StagePlan, ...]
    cons_plan: tuple[StagePlan, ...]

    @classmethod
    def of(cls, spec: TournamentSpec, fld: Field) -> _FieldPlan:
        profiles = fld.entrant_profiles()
        names = tuple(dict.fromkeys(profiles))
        return cls(fld, profiles, tuple(spec.seat(p) for p in profiles),
                   tuple(spec.seat(p) for p in names), names,
                   np.array([names.index(p) for p in profiles], dtype=np.int64),
                   tuple(s.name for s in spec.stages), *spec.brackets(fld))


class StageRecord:
    """One stage of one bracket as K tournaments played it (arrays [K, players], the stage's
    tables one after another: ``starts[j]`` is table j's first column)."""

    def __init__(self, bracket: str, plan: StagePlan, seated: np.ndarray, seeds: np.ndarray):
        self.bracket, self.plan = bracket, plan
        self.seated = seated  # entrants in seat order
        self.seeds = seeds  # [K, tables] uint64 game seeds
        self.starts = np.cumsum((0,) + plan.tables[:-1])
        # the tables of each size: (size, their indices j, their games; row k * len(js) + q
        # is table js[q] of tournament k)
        self.sizes: list[tuple[int, list[int]]] = [
            (n, [j for j, m in enumerate(plan.tables) if m == n])
            for n in dict.fromkeys(plan.tables)]
        self.games: list[TableGames] = []
        self.finish = np.empty_like(seated)  # entrants best first, table by table
        self.decided = np.empty(seeds.shape, dtype=np.int64)  # index into DECIDED_BY
        self.first_position = np.empty_like(seated)  # each seat's position in round 1

    def columns(self, j: int) -> slice:
        return slice(int(self.starts[j]), int(self.starts[j]) + self.plan.tables[j])

    def asks(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per table size: the entrants [K * tables, n] and game seeds of its tables."""
        out = []
        for n, js in self.sizes:
            k = len(self.seated)
            entrants = np.stack([self.seated[:, self.columns(j)] for j in js], axis=1)
            out.append((entrants.reshape(k * len(js), n),
                        self.seeds[:, js].reshape(k * len(js))))
        return out

    def slot(self, j: int) -> tuple[TableGames, int, int]:
        """Where table j's games are: its size's games, q and m (tournament k's game is row
        k * m + q)."""
        for (_, js), games in zip(self.sizes, self.games):
            if j in js:
                return games, js.index(j), len(js)
        raise IndexError(j)


class _BracketRun:
    """One bracket of K tournaments, stage by stage: ``ask`` draws the next stage, ``take``
    reads its games."""

    def __init__(self, bracket: str, plan: Sequence[StagePlan], seeds: BatchSeeds,
                 ctx: _Context, players: np.ndarray) -> None:
        self.bracket, self.plan, self.seeds, self.ctx = bracket, plan, seeds, ctx
        self.players = players  # [K, p] the next stage's players
        self.stages: list[StageRecord] = []
        k, e = len(players), ctx.field.field.entrants
        self.last_stage = np.full((k, e), -1, dtype=np.int64)  # -1: did not play here
        self.last_finish = np.zeros((k, e), dtype=np.int64)

    @property
    def playing(self) -> bool:
        """Has the bracket stages left to play?"""
        return len(self.stages) < len(self.plan)

    def ask(self) -> StageRecord:
        stage = self.plan[len(self.stages)]
        states = self.seeds.draws[(self.bracket, stage.stage)]
        players = np.sort(self.players, axis=1)
        seated = np.empty_like(players)
        for k in range(len(players)):
            rng = np.random.Generator(np.random.PCG64(seed_sequences.Seeded(states[k])))
            seated[k] = rng.permutation(players[k])
        seeds = np.stack([self.seeds.games[(self.bracket, stage.stage, j)]
                          for j in range(len(stage.tables))], axis=1)
        record = StageRecord(self.bracket, stage, seated, seeds)
        self.stages.append(record)
        return record

    def take(self, record: StageRecord, games: list[TableGames]) -> None:
        record.games = games
        stage = record.plan
        kk = len(record.seated)
        boundary = 1 if stage.is_final else stage.advance
        for (n, js), g in zip(record.sizes, games):
            shape = (kk, len(js), n)
            rank, won, left = (a.reshape(shape) for a in (g.rank, g.rounds_won, g.hand_points))
            order = orders(rank, won, left)
            for k, q in zip(*np.nonzero(tied(rank, won, left, order))):
                lots = lot(self.ctx.seed, self.ctx.field.field, self.ctx.indices[k],
                           self.bracket, stage.stage, js[q], n)
                order[k, q] = orders(rank[k, q], won[k, q], left[k, q],
                                      np.asarray(lots, dtype=np.int64))
            decided = deciders(rank, won, left, order, boundary)
            position = g.first_position.reshape(shape)
            for q, j in enumerate(js):
                cols = record.columns(j)
                record.finish[:, cols] = np.take_along_axis(record.seated[:, cols], order[:, q],
                                                            axis=1)
                record.decided[:, j] = decided[:, q]
                record.first_position[:, cols] = position[:, q]
        rows = np.arange(kk)[:, None]
        self.last_stage[rows, record.finish] = stage.stage
        self.last_finish[rows, record.finish] = np.concatenate(
            [np.arange(1, n + 1) for n in stage.tables])[None, :]
        if not stage.is_final:
            self.players = np.concatenate(
                [record.finish[:, record.columns(j)][:, :stage.advance]
                 for j in range(len(stage.tables))], axis=1)

    def places(self) -> np.ndarray:
        """Each entrant's place [K, entrants] (competition ranking: 1 + entrants strictly
        better: a later stage, then a better finish there); 0 where it did not play."""
        kk, e = self.last_stage.shape
        played = self.last_stage >= 0
        # smaller is better; equal keys share a place; rows apart (every key of row k is below
        # every key of row k + 1), so one sort ranks every tournament
        key = np.where(played, (_STAGES_MAX - self.last_stage) * (e + 1) + self.last_finish,
                       _UNPLAYED)
        flat = key + np.arange(kk, dtype=np.int64)[:, None] * (2 * _UNPLAYED)
        better = np.searchsorted(np.sort(flat, axis=None), flat, side="left")
        return np.where(played, better - np.arange(kk)[:, None] * e + 1, 0)


_STAGES_MAX = 1 << 16  # more than any stage index
_UNPLAYED = np.int64(1 << 40)  # above every key of an entrant who played


@dataclass(frozen=True)
class _Context:
    field: _FieldPlan
    seed: int
    indices: np.ndarray  # the tournaments' indices


class PlayedTournaments:
    """K tournaments of a field played side by side (``play_batch``): each bracket's stages
    (``StageRecord``) and the entrants' results as arrays [K, entrants]."""

    def __init__(self, ctx: _Context, main: _BracketRun, cons: _BracketRun | None) -> None:
        self.ctx, self.main, self.cons = ctx, main, cons
        self.field = ctx.field.field
        self.indices = ctx.indices
        first = main.stages[0]
        kk, e = first.seated.shape[0], self.field.entrants
        rows = np.arange(kk)[:, None]
        table_of = np.concatenate([np.full(n, j) for j, n in enumerate(first.plan.tables)])
        seat_of = np.concatenate([np.arange(n) for n in first.plan.tables])
        size_of = np.concatenate([np.full(n, n) for n in first.plan.tables])
        self.first_table = np.empty((kk, e), dtype=np.int64)
        self.first_seat = np.empty((kk, e), dtype=np.int64)
        self.first_players = np.empty((kk, e), dtype=np.int64)
        self.first_position = np.empty((kk, e), dtype=np.int64)
        self.first_table[rows, first.seated] = table_of[None, :]
        self.first_seat[rows, first.seated] = seat_of[None, :]
        self.first_players[rows, first.seated] = size_of[None, :]
        self.first_position[rows, first.seated] = first.first_position
        self.advanced_first = main.last_stage > first.plan.stage
        self.main_place = main.places()
        self.cons_place = cons.places() if cons is not None else None
        self.champion = main.stages[-1].finish[:, 0]
        self.consolation_champion = cons.stages[-1].finish[:, 0] if cons is not None else None

    @property
    def records(self) -> list[StageRecord]:
        """Every stage in play order: the main bracket's, then the consolation's."""
        return self.main.stages + (self.cons.stages if self.cons is not None else [])


class _Stepper:
    """K tournaments of a field stepping side by side: each step plays the next stage of the
    main bracket and of the consolation, which starts once the main bracket's first stage is
    over (its players are the first stage's losers)."""

    def __init__(self, spec: TournamentSpec, field: _FieldPlan, seed: int,
                 indices: np.ndarray) -> None:
        self.ctx = _Context(field, seed, indices)
        self.seeds = BatchSeeds(spec, field.field, seed, indices)
        e = field.field.entrants
        self.main = _BracketRun(MAIN, field.main_plan, self.seeds, self.ctx,
                                np.tile(np.arange(e, dtype=np.int64), (len(indices), 1)))
        self.cons: _BracketRun | None = None

    def asks(self) -> list[StageRecord]:
        """The stages the next step plays (drawn), none when the tournaments are over."""
        return [b.ask() for b in (self.main, self.cons) if b is not None and b.playing]

    def take(self, records: Sequence[StageRecord], games: Sequence[list[TableGames]]) -> None:
        for record, played in zip(records, games):
            (self.main if record.bracket == MAIN else self.cons).take(record, played)
        plan = self.ctx.field.cons_plan
        if plan and self.cons is None:
            went_on = np.zeros_like(self.main.last_stage, dtype=bool)
            went_on[np.arange(len(went_on))[:, None], self.main.players] = True  # the advancers
            knocked_out = np.argsort(went_on, axis=1, kind="stable")[:, :plan[0].players]
            self.cons = _BracketRun(CONSOLATION, plan, self.seeds, self.ctx, knocked_out)

    def played(self) -> PlayedTournaments:
        return PlayedTournaments(self.ctx, self.main, self.cons)


def _play_step(play_tables: PlayTables | PlayColumns, field: _FieldPlan,
               records: Sequence[StageRecord]) -> list[list[TableGames]]:
    """The games of the stages ``records``: per stage, per table size (``StageRecord.asks``)."""
    asks = [r.asks() for r in records]
    if hasattr(play_tables, "play_columns"):
        return [[play_tables.play_columns(field.seats, field.profile_of[entrants], seeds)
                 for entrants, seeds in stage] for stage in asks]
    seats = field.entrant_seats
    tables = [(tuple([seats[e] for e in row]), seed) for stage in asks
              for entrants, seeds in stage
              for row, seed in zip(entrants.tolist(), seeds.tolist())]
    games = play_tables(tables)
    if len(games) != len(tables):
        raise ValueError("play_tables returned a number of games other than of tables")
    out, at = [], 0
    for stage in asks:
        out.append([])
        for entrants, _ in stage:
            m, n = entrants.shape
            out[-1].append(TableGames.of(games[at:at + m], n))
            at += m
    return out


def play_batch(spec: TournamentSpec, fld: Field, *, seed: int, indices: Sequence[int],
               play_tables: PlayTables | PlayColumns) -> list[PlayedTournaments]:
    """Play tournaments ``indices`` of ``fld`` side by side, step by step: each step asks
    ``play_tables`` for the games of every table the tournaments play next (a stage of the
    main bracket and one of the consolation, of all of them at once), so an engine plays many
    tables at once: a ``PlayColumns`` in one ``play_columns`` call per stage and table size, a
    ``PlayTables`` in one call per step. Returns the tournaments in order, as one part (none
    for no indices). Tournament t is a pure function of its index, whatever the batch."""
    indices = np.asarray(list(indices), dtype=np.int64)
    if len(indices) == 0:
        return []
    field = _FieldPlan.of(spec, fld)
    stepper = _Stepper(spec, field, seed, indices)
    while records := stepper.asks():
        stepper.take(records, _play_step(play_tables, field, records))
    return [stepper.played()]
