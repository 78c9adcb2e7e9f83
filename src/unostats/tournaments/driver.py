"""The tournament kind of run: whole championships played with the engine and stored, with
stop, resume and progress; the bracket itself is the ``tournament`` package.

Each cell (variant x field) plays tournaments ``0 .. games-1`` in order, a batch of them at a
time (about ``TARGET_BATCH_SECONDS`` of play and at most ``MAX_BATCH_SEAT_ROWS`` round-seat
rows, or ``batch_size`` tournaments; near the end of the run at most half of what is left, down
to ``TAIL_SECONDS`` of play and ``TAIL_SEAT_ROWS`` rows, so that the last batch's rows, which
nothing overlaps, are few). A
batch's tournaments play side by side, step by step (``tournament.play_batch``): the
engine (``EngineTables``: ``engine.tables.TablePlayer``) plays the tables of a stage of every
tournament of the batch in one call per table size, each table's game being game 0 of the game
seed the bracket derived, so a tournament is a pure function of (scenario, engine version,
seed, index). A thread of its own (``_Player``, every cell's batches in turn) plays the
batches; the calling thread turns each played batch into rows (the engine's Arrow tables
gathered into the store's order, ``_gathered``: one take per table and table size; the
tournament rows built column by column from the bracket's arrays, ``_Rows``) and stores it,
while the next batch plays. Each batch is written in one transaction,
so a stop request or a killed process leaves whole tournaments only and a resume continues from
the tournaments stored. Table games are numbered per cell (variant, table size) in the order
they are written; that order is fixed (cells in order, tournaments in order, tables in play
order), so a resumed run equals an uninterrupted one row for row.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from .. import store
from ..base.engine_cache import prepare_engine
from ..base.handover import BatchThread
from ..base.memory import give_back_large_blocks
from ..base.progress import Progress
from ..base.session import RunError, RunOutcome, Tally, cell_label, playing
from ..base.signals import StopRequest
from ..scenario import Cell, Scenario, Variant
from ..seats import Seat
from .spec import tables as tournament_store
from .spec.bracket import DECIDED_BY, Field, PlayedTournaments, TableGames, TournamentSpec, play_batch
from .writer import write_tournaments

TARGET_BATCH_SECONDS = 3.0
# Round-seat rows per batch at most: DuckDB writes an insert of a row group (122,880 rows) or more
# straight to the file, a smaller one to the log and then again at the checkpoint, which made
# small batches' storing several times dearer (docs/performance.md, "Tournament batches").
MAX_BATCH_SEAT_ROWS = 300_000
FIRST_BATCH = 32  # tournaments in a cell's first batch, which measures their pace (~0.1 s)
GROWTH = 16  # a batch is at most this many times the one before
# The last batches of a run: at most half of the tournaments left, but not below this much play
# nor below TAIL_SEAT_ROWS round-seat rows. Nothing overlaps the rows and the storing of the last
# batch (the engine has nothing left to play), so it is kept short; but a smaller insert costs
# DuckDB more per row.
TAIL_SECONDS = 0.25
# Two row groups: DuckDB writes an insert of one straight to the file, and a batch's rows are
# those of two or more table sizes (a championship's finals of 2 are a small insert always).
# A batch's storing also has a fixed cost however small.
TAIL_SEAT_ROWS = 245_760
BATCHES_IN_FLIGHT = 2  # one being turned into rows and stored, one played (or waiting)
# A batch's tournaments step together: with the bracket as columns a step's Python is a few
# ms, and groups stepping on their own only doubled the engine calls.


@dataclass(frozen=True)
class TournamentCell:
    index: int
    variant: Variant
    field: Field

    @property
    def label(self) -> str:
        return f"{self.variant.name} / {self.field.name}"


def cells(scenario: Scenario) -> list[TournamentCell]:
    """Every variant x field of a tournament scenario, in file order."""
    spec = _spec(scenario)
    return [TournamentCell(i * len(spec.fields) + j, v, f)
            for i, v in enumerate(scenario.variants) for j, f in enumerate(spec.fields)]


def _spec(scenario: Scenario) -> TournamentSpec:
    if scenario.tournament is None:
        raise ValueError(f"scenario {scenario.name!r} has no tournament section")
    return scenario.tournament


def games_requested(scenario: Scenario) -> int:
    spec = _spec(scenario)
    return sum(scenario.games * spec.games_per_tournament(c.field) for c in cells(scenario))


def plan(scenario: Scenario) -> str:
    """What a new run plays, for its first log line."""
    n = len(cells(scenario))
    return (f"{n} tournament cell{'s' * (n != 1)} (variant x field) x {scenario.games:,} "
            f"tournaments ({games_requested(scenario):,} table games)")


def outline(scenario: Scenario) -> str:
    """What ``validate`` says a scenario plays: its tournament cells and each field's size."""
    spec = _spec(scenario)
    n_var, n_f = len(scenario.variants), len(spec.fields)
    fields = "; ".join(
        f"{f.name}: {f.entrants} entrants, {spec.games_per_tournament(f)} table games"
        for f in spec.fields)
    return (f"{n_var} variant{'s' * (n_var != 1)} x {n_f} field{'s' * (n_f != 1)} = "
            f"{n_var * n_f} tournament cell{'s' * (n_var * n_f != 1)}; {fields}")


def record_fields(con, run_id: str, scenario: Scenario) -> None:
    """The tournament_fields and tournament_stages rows of a new run."""
    spec = _spec(scenario)
    fields, stages = [], []
    for c in cells(scenario):
        main, consolation = spec.brackets(c.field)
        fields.append({
            "variant": c.variant.name, "field": c.field.name,
            "description": c.field.description, "entrants": c.field.entrants,
            "table_size": spec.table_size, "consolation": bool(consolation),
            "tournaments_requested": scenario.games,
            "games_per_tournament": spec.games_per_tournament(c.field),
            "mix": dict(c.field.mix),
            "profiles": {p: {"policy": spec.profiles[p].policy,
                             "behaviour": dict(spec.profiles[p].behaviour)}
                         for p, _ in c.field.mix}})
        for bracket, stage_plans in (("main", main), ("consolation", consolation)):
            for step, s in enumerate(stage_plans):
                stages.append({"variant": c.variant.name, "field": c.field.name,
                               "bracket": bracket, "stage": s.stage, "step": step,
                               "stage_name": s.name, "players": s.players,
                               "tables": len(s.tables), "table_sizes": s.tables,
                               "advance": s.advance})
    tournament_store.insert_fields(con, run_id, fields, stages)


def replay_args(con, run_id: str, scenario: Scenario, cell: Cell,
                game: int) -> tuple[tuple[Seat, ...], int, int]:
    """How stored game ``game`` of ``cell`` is recomputed: the seats of the tournament table that
    played it and that table's own seed (its game 0)."""
    table = tournament_store.table_of_game(con, run_id, cell.variant.name, cell.players, game)
    if table is None:
        raise RunError(f"game {game} of {cell_label(cell)} in run {run_id} belongs to "
                       "no tournament table", exit_code=1)
    return tuple(scenario.tournament.seat(p) for p in table["profiles"]), \
        int(table["game_seed"]), 0



# --- The engine at the tables ------------------------------------------------------------------

class EngineTables:
    """``tournament.PlayColumns`` backed by the engine (``engine.tables.TablePlayer``): the
    tables of a stage and size in one call, each its seed's game 0. The TableGames' payload is
    the call's Batch of Arrow tables (game i = table i), for storing."""

    def __init__(self, variant: Variant, threads: int | None = None):
        from ..engine.tables import TablePlayer

        self.player = TablePlayer(variant.rules, threads)

    def play_columns(self, seats: Sequence[Seat], which: np.ndarray,
                     seeds: np.ndarray) -> TableGames:
        return table_games(self.player.play(seats, which, seeds), which.shape[1])


def _numbers(table: pa.Table, name: str, null: int = -1) -> np.ndarray:
    """An integer column as numpy, nulls as ``null``."""
    column = table.column(name)
    if column.null_count:
        import pyarrow.compute as pc  # only when a column has nulls (winner_seat)

        column = pc.fill_null(column, null)
    return column.to_numpy()


def table_games(batch: Any, players: int) -> TableGames:
    """What the bracket needs from the games of ``batch`` (games 0..k-1 of
    ``simulate_tables_arrow``, per seat, seat order)."""
    k = batch.games.num_rows
    rank = _numbers(batch.game_seats, "rank").astype(np.int64).reshape(k, players)
    winner = _numbers(batch.rounds, "winner_seat").astype(np.int64)
    won_at = winner >= 0
    won = np.bincount(_numbers(batch.rounds, "game")[won_at] * players + winner[won_at],
                      minlength=k * players).reshape(k, players)
    rs = batch.round_seats
    cell = _numbers(rs, "game") * players + _numbers(rs, "seat").astype(np.int64)
    left = np.bincount(cell, weights=_numbers(rs, "hand_points"),
                       minlength=k * players).reshape(k, players).astype(np.int64)
    first = _numbers(rs, "round") == 1  # every game has a round 1: k x players rows, in order
    position = _numbers(rs, "position")[first].astype(np.int64).reshape(k, players)
    return TableGames(rank=rank, rounds_won=won.astype(np.int64), first_position=position,
                      rounds=_numbers(batch.games, "rounds").astype(np.int64),
                      turns=_numbers(batch.games, "turns").astype(np.int64), hand_points=left,
                      payload=batch)


# --- Rows ---------------------------------------------------------------------------------------

# The tournament tables' Arrow types by store type (the store casts each column to its own
# type, at no cost where they agree; an INTEGER column is 64-bit here so that an overflow is the
# store's error); list columns by the type of their items. Every SMALLINT value is bounded by
# the entrant count (at most tournament.ENTRANTS_RANGE[1]).
_ARROW_TYPES = {"BOOLEAN": pa.bool_(), "VARCHAR": pa.string(), "SMALLINT": pa.int16()}
_LIST_ITEMS = {"SMALLINT[]": pa.int16(), "VARCHAR[]": pa.string()}


def _array(values: Any, store_type: str) -> pa.Array:
    """A column (numpy values, or a numpy object array of strings; a masked array: nulls where
    masked) as the Arrow type of its store type."""
    type_ = _ARROW_TYPES.get(store_type, pa.int64())
    if isinstance(values, np.ma.MaskedArray):
        return pa.array(values.data, type_, mask=np.ma.getmaskarray(values))
    return pa.array(values, type_)


def _lists(flat: Any, lengths: np.ndarray, items: str) -> pa.Array:
    """A list column: ``flat`` values cut into lists of ``lengths``."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat, _LIST_ITEMS[items]))


def _table(values: dict[str, Any], columns) -> pa.Table:
    """Column ``values`` (``_array``'s, or Arrow arrays) as an Arrow table of ``columns``
    (name, store type, nullable)."""
    return pa.table([values[c] if isinstance(values[c], pa.Array) else _array(values[c], t)
                     for c, t, _ in columns], names=[c for c, _, _ in columns])


def _gathered(batches: Sequence[Any], which: np.ndarray, games: np.ndarray,
              numbers: np.ndarray) -> Any:
    """One Batch of games ``games[i]`` of engine Batch ``batches[which[i]]`` (the games of one
    table size) in that order, numbered ``numbers``: each game's rows as the engine wrote
    them."""
    from ..engine.simulate import Batch

    out = []
    for name in store.FRAME_COLUMNS:
        tables = [getattr(b, name) for b in batches]
        # each game's first row and number of rows in the engine tables side by side (an
        # engine table's rows are in game order)
        first, length, base = [], [], 0
        for b, table in zip(batches, tables):
            count = np.bincount(_numbers(table, "game"), minlength=b.games.num_rows)
            first.append(base + np.cumsum(count) - count)
            length.append(count)
            base += table.num_rows
        at = np.cumsum([0] + [len(c) for c in length])[which] + games
        first, length = np.concatenate(first)[at], np.concatenate(length)[at]
        rows = np.repeat(first - np.cumsum(length) + length, length) + np.arange(length.sum())
        gathered = pa.concat_tables(tables).take(pa.array(rows))
        at = gathered.schema.get_field_index("game")
        out.append(gathered.set_column(at, "game", pa.array(np.repeat(numbers, length))))
    return Batch(*out)


def _strings(names: Sequence[str | None], codes: np.ndarray) -> np.ndarray:
    """``names[codes]`` as a numpy object array (what pa.array makes a string column of)."""
    return np.array(list(names), dtype=object)[codes]


class _Rows:
    """The rows of one part of a played batch (``tournament.PlayedTournaments``: K
    tournaments side by side), tournament after tournament, each's tables in play order."""

    def __init__(self, part: PlayedTournaments, spec: TournamentSpec) -> None:
        self.part, self.spec = part, spec
        records = part.records
        # every table of a tournament in play order: (stage record, table j)
        self.tables = [(r, j) for r in records for j in range(len(r.plan.tables))]
        self.k = len(part.indices)

    def games(self, counters: dict[int, int]) -> tuple[np.ndarray, dict[int, tuple]]:
        """Each table's game number [K, tables] (numbered on from ``counters``, advanced) and,
        per table size, (engine Batches, which, game in it, number) of its games in store
        order (tournament after tournament, tables in play order)."""
        k, sizes = self.k, np.array([r.plan.tables[j] for r, j in self.tables])
        number = np.empty((k, len(self.tables)), dtype=np.int64)
        out = {}
        for n in dict.fromkeys(sizes.tolist()):
            at = np.nonzero(sizes == n)[0]
            first = counters.get(n, 0)
            number[:, at] = first + np.arange(k * len(at)).reshape(k, len(at))
            counters[n] = first + k * len(at)
            batches: list[Any] = []  # the engine Batches of these games, each once
            index: dict[int, int] = {}  # by id
            which, rows = [], []
            for g in at:
                record, j = self.tables[g]
                games, q, m = record.slot(j)
                if id(games.payload) not in index:
                    index[id(games.payload)] = len(batches)
                    batches.append(games.payload)
                which.append(np.full(k, index[id(games.payload)]))
                rows.append(q + m * np.arange(k))
            which = np.stack(which, axis=1).reshape(-1)  # tournament after tournament
            rows = np.stack(rows, axis=1).reshape(-1)
            out[n] = (batches, which, rows, number[:, at].reshape(-1))
        return number, out

    def frames(self, number: np.ndarray) -> dict[str, dict[str, Any]]:
        part, k = self.part, self.k
        fp = part.ctx.field
        profiles = fp.profiles
        profile_of = fp.profile_of
        names = fp.names
        t_index = part.indices
        main_final = part.main.stages[-1]
        tours = {
            "tournament": t_index,
            "champion": part.champion,
            "champion_profile": _strings(names, profile_of[part.champion]),
            "champion_decided_by": _strings(DECIDED_BY, main_final.decided[:, 0]),
            "games": np.full(k, len(self.tables)),
        }
        if part.cons is not None:
            tours["consolation_champion"] = part.consolation_champion
            tours["consolation_champion_profile"] = _strings(
                names, profile_of[part.consolation_champion])
        else:
            tours["consolation_champion"] = np.ma.masked_all(k, dtype=np.int64)
            tours["consolation_champion_profile"] = np.full(k, None, dtype=object)

        g = len(self.tables)
        sizes = np.array([r.plan.tables[j] for r, j in self.tables])
        advance = np.array([r.plan.advance for r, _ in self.tables])
        entrants = np.concatenate([r.seated[:, r.columns(j)] for r, j in self.tables], axis=1)
        finish = np.concatenate([r.finish[:, r.columns(j)] for r, j in self.tables], axis=1)
        advancers = np.concatenate([r.finish[:, r.columns(j)][:, :r.plan.advance]
                                    for r, j in self.tables], axis=1)
        lengths = np.tile(sizes, k)
        brackets = [r.bracket for r, _ in self.tables]
        stage_names = [r.plan.name for r, _ in self.tables]
        tables = {
            "tournament": np.repeat(t_index, g),
            "bracket": np.tile(np.array(brackets, dtype=object), k),
            "stage": np.tile([r.plan.stage for r, _ in self.tables], k),
            "stage_name": np.tile(np.array(stage_names, dtype=object), k),
            "table_no": np.tile([j for _, j in self.tables], k),
            "players": lengths,
            "game": number.reshape(-1),
            "game_seed": np.stack([r.seeds[:, j] for r, j in self.tables],
                                  axis=1).reshape(-1).astype(np.int64),
            "entrants": _lists(entrants.reshape(-1), lengths, "SMALLINT[]"),
            "profiles": _lists(_strings(profiles, entrants.reshape(-1)), lengths, "VARCHAR[]"),
            "advance": np.tile(advance, k),
            "finish": _lists(finish.reshape(-1), lengths, "SMALLINT[]"),
            "advancers": _lists(advancers.reshape(-1), np.tile(advance, k), "SMALLINT[]"),
            "decided_by": _strings(DECIDED_BY, np.stack(
                [r.decided[:, j] for r, j in self.tables], axis=1).reshape(-1)),
        }

        e = part.field.entrants
        main, cons = part.main, part.cons
        stage_names_all = fp.stage_names
        entrant = np.tile(np.arange(e), k)
        policy_of = np.array([s.policy for s in fp.seats], dtype=object)
        people = {
            "tournament": np.repeat(t_index, e),
            "entrant": entrant,
            "profile": _strings(profiles, entrant),
            "policy": policy_of[np.tile(profile_of, k)],
            "stage": main.last_stage.reshape(-1),
            "stage_name": _strings(stage_names_all, main.last_stage.reshape(-1)),
            "finish": main.last_finish.reshape(-1),
            "place": part.main_place.reshape(-1),
            "is_champion": (np.arange(e)[None, :] == part.champion[:, None]).reshape(-1),
            "first_table": part.first_table.reshape(-1),
            "first_seat": part.first_seat.reshape(-1),
            "first_position": part.first_position.reshape(-1),
            "first_table_players": part.first_players.reshape(-1),
            "advanced_first": part.advanced_first.reshape(-1),
        }
        if cons is not None:
            absent = (cons.last_stage < 0).reshape(-1)
            stage = cons.last_stage.reshape(-1)
            people["consolation_stage"] = np.ma.masked_array(stage, absent)
            people["consolation_stage_name"] = np.where(
                absent, None, _strings(stage_names_all, np.maximum(stage, 0)))
            people["consolation_place"] = np.ma.masked_array(part.cons_place.reshape(-1),
                                                             absent)
            people["is_consolation_champion"] = (
                np.arange(e)[None, :] == part.consolation_champion[:, None]).reshape(-1)
        else:
            people["consolation_stage"] = np.ma.masked_all(k * e, dtype=np.int64)
            people["consolation_stage_name"] = np.full(k * e, None, dtype=object)
            people["consolation_place"] = np.ma.masked_all(k * e, dtype=np.int64)
            people["is_consolation_champion"] = np.zeros(k * e, dtype=bool)
        return {"tournaments": tours, "tournament_tables": tables, "tournament_entrants": people}


def result_frames(parts: Sequence[PlayedTournaments], spec: TournamentSpec,
                  counters: dict[int, int]) -> tuple[dict[int, Any], dict[str, pa.Table]]:
    """The rows of whole tournaments (``parts`` of a played batch, in order): engine tables per
    table size (games numbered from ``counters``, which is advanced: tournament after
    tournament, each's tables in play order) and the tournament tables' rows, as Arrow
    tables, built column by column from the parts' arrays."""
    played: dict[int, list[tuple]] = {}
    rows: dict[str, list[pa.Table]] = {name: [] for name in tournament_store.BATCH_TABLES}
    for part in parts:
        part_rows = _Rows(part, spec)
        number, games = part_rows.games(counters)
        for n, gathered in games.items():
            played.setdefault(n, []).append(gathered)
        for name, values in part_rows.frames(number).items():
            rows[name].append(_table(values, tournament_store.COLUMNS[name]))
    games = {}
    for n, pieces in played.items():
        batches = [b for bs, _, _, _ in pieces for b in bs]
        base = np.cumsum([0] + [len(bs) for bs, _, _, _ in pieces])
        games[n] = _gathered(batches, np.concatenate([w + base[i] for i, (_, w, _, _)
                                                      in enumerate(pieces)]),
                             np.concatenate([r for _, _, r, _ in pieces]),
                             np.concatenate([m for _, _, _, m in pieces]))
    frames = {name: pa.concat_tables(tables) if len(tables) > 1 else tables[0]
              for name, tables in rows.items()}
    return games, frames


# --- Playing a run ------------------------------------------------------------------------------

@dataclass
class _Played:
    """A batch of one cell's tournaments, played, to be turned into rows and stored."""

    cell: TournamentCell
    lo: int  # its tournaments: lo .. hi
    hi: int
    parts: list[PlayedTournaments]  # their TableGames' payloads hold the engine's tables
    table_games: int
    rounds: int
    seconds: float  # the time it took to play


def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None) -> RunOutcome:
    """Play every tournament cell of ``outcome.scenario`` from its stored tournaments to the end
    (or until ``stop``); ``batch_size`` fixes the tournaments per batch (None: about
    ``TARGET_BATCH_SECONDS``); ``threads`` play the tables of a stage (results never depend
    on it).

    A thread of its own (``_Player``) plays the batches, cell after cell, while this one turns
    them into rows and stores them (the engine and DuckDB release the GIL, so they overlap);
    after a stop request, the batch in play is dropped."""
    scenario = outcome.scenario
    stop = stop or StopRequest()
    todo = cells(scenario)
    done = tournament_store.completed_by_field(con, outcome.run_id)
    firsts = [done.get((c.variant.name, c.field.name), 0) for c in todo]
    # variant -> table size -> games stored: the number of the cell's next table game
    counters = {v.name: {n: store.completed_games(con, outcome.run_id, v.name, n)
                         for n in scenario.players} for v in scenario.variants}
    player = _Player(scenario, list(zip(todo, firsts)), threads=threads, fixed=batch_size)
    outcome.tournaments_played = 0

    def halt() -> None:
        player.halt()
        player.join()

    with playing(con, outcome, progress=progress, stop=stop, tally=tally,
                 halt=halt) as session:
        give_back_large_blocks()
        prepare_engine(progress, [v.rules for v in scenario.variants])
        session.start_clock()  # the run's time and rate leave the compile out
        for c, first in zip(todo, firsts):
            progress.cell_started(str(c.index), c.label, first, scenario.games,
                                  unit="tournaments")
        player.start()
        for item in player.items(stop):
            _store(con, outcome, item, counters[item.cell.variant.name], progress)
            del item
            player.stored()
        if player.finished:
            session.status = "complete"
    return outcome


def tally(outcome: RunOutcome) -> Tally:
    """What a session of tournaments did, for the line that ends it."""
    return Tally("table games stored (whole tournaments)",
                 f"{outcome.tournaments_played:,} tournaments, "
                 f"{outcome.games_played:,} table games",
                 outcome.tournaments_played, "tournaments", ",.1f")


class _Player(BatchThread):
    """Plays the cells' remaining tournaments in batches, cell after cell, and puts each batch
    (a ``_Played``) on ``queue``, then None; an exception is put as it is. At most
    ``BATCHES_IN_FLIGHT`` batches exist at once (one being stored, one played or waiting).

    Batch sizes: ``fixed`` tournaments, else about ``TARGET_BATCH_SECONDS`` of play at the pace
    of table games measured so far (in any cell) and at most ``MAX_BATCH_SEAT_ROWS`` round-seat
    rows (at the cell's rows per tournament so far), from ``FIRST_BATCH`` growing at most
    ``GROWTH``-fold from batch to batch of a cell, and at most half of the run's tournaments
    left unless that is less than ``TAIL_SECONDS`` of play or ``TAIL_SEAT_ROWS`` rows."""

    def __init__(self, scenario: Scenario, todo: Sequence[tuple[TournamentCell, int]], *,
                 threads: int | None, fixed: int | None) -> None:
        super().__init__("unostats-tournaments", BATCHES_IN_FLIGHT)
        self.scenario = scenario
        self.todo = todo
        self.threads = threads
        self.fixed = fixed
        self._pace: float | None = None  # table games per second of play, measured
        self._seat_rows: float | None = None  # round-seat rows per tournament, of this cell
        self._batches = 0  # played so far

    def run(self) -> None:
        try:
            for i, (c, first) in enumerate(self.todo):
                later = sum(self.scenario.games - f for _, f in self.todo[i + 1:])
                if not self._play_cell(c, first, later):
                    return
            self._put(None)
        except BaseException as e:  # handed to the storing thread, which raises it
            self._put(e)

    def _play_cell(self, c: TournamentCell, t: int, later: int) -> bool:
        """Play the cell's tournaments from ``t``; ``later``: tournaments of the cells after."""
        spec = _spec(self.scenario)
        tables = EngineTables(c.variant, self.threads)
        per_tournament = spec.games_per_tournament(c.field)
        size = None
        self._seat_rows = None
        while t < self.scenario.games:
            size = self._size(size, per_tournament, self.scenario.games - t + later)
            if not self._take_room():
                return False
            since = time.perf_counter()
            with _cycle_collector_paused():
                parts = play_batch(spec, c.field, seed=self.scenario.seed,
                                   indices=range(t, min(t + size, self.scenario.games)),
                                   play_tables=tables)
            seconds = time.perf_counter() - since
            played = sum(len(p.indices) for p in parts)
            batches = _engine_batches(parts)
            item = _Played(c, t, t + played - 1, parts, played * per_tournament,
                           sum(b.rounds.num_rows for b in batches), seconds)
            self._seat_rows = sum(b.round_seats.num_rows for b in batches) / played
            del parts, batches
            if not self._put(item):
                return False
            del item
            t += played
            if self._batches > 0:  # the first batch of a process may include loading the engine
                rate = played * per_tournament / max(seconds, 1e-6)
                self._pace = rate if self._pace is None else 0.5 * (self._pace + rate)
            self._batches += 1
        return True

    def _size(self, previous: int | None, per_tournament: int, left: int | None = None) -> int:
        """Tournaments in a cell's next batch (``previous``: in its last, None at its first;
        ``left``: tournaments the run has left to play, None: many)."""
        if self.fixed:
            return self.fixed
        if self._pace is None:  # nothing measured yet: start small, then grow
            return FIRST_BATCH if previous is None else GROWTH * previous
        want = self._pace * TARGET_BATCH_SECONDS / per_tournament
        if self._seat_rows:
            want = min(want, MAX_BATCH_SEAT_ROWS / self._seat_rows)
        if left:
            tail = max(self._pace * TAIL_SECONDS / per_tournament,
                       TAIL_SEAT_ROWS / self._seat_rows if self._seat_rows else 0)
            want = min(want, max(left / 2, tail))
            want = math.ceil(left / math.ceil(left / max(1, round(want))))  # no straggler
        want = max(1, round(want))
        return want if previous is None else min(want, GROWTH * previous)


def _engine_batches(parts: Sequence[PlayedTournaments]) -> list[Any]:
    """The engine Batches whose games ``parts`` played (each once)."""
    return list({id(g.payload): g.payload for p in parts for r in p.records
                 for g in r.games}.values())


_paused = 0  # threads inside _cycle_collector_paused
_paused_lock = threading.Lock()
_was_on = False  # the collector's state when the first of them came in


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a batch is played or turned into rows, on
    again after (as it was before the first of the threads that paused it). A batch's brackets
    make hundreds of thousands of small objects (tables, standings, tuples), which trigger
    collections, and each full collection walks every object of the process (the engine's and
    the libraries' too): a quarter of the bracket's CPU time. Those objects hold no reference
    cycles (they go when the batch goes), so nothing accumulates meanwhile. The playing thread
    and the storing thread pause it side by side: it stays off until both are done."""
    global _paused, _was_on
    with _paused_lock:
        if _paused == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused -= 1
            if _paused == 0 and _was_on:
                gc.enable()


def _store(con, outcome: RunOutcome, item: _Played, counters: dict[int, int],
           progress: Progress) -> None:
    """Turn a played batch into rows (its table games numbered from ``counters``: table size ->
    the cell's next game, advanced) and store them."""
    c = item.cell
    with _cycle_collector_paused():
        games, frames = result_frames(item.parts, _spec(outcome.scenario), counters)
    write_tournaments(con, outcome.run_id, c.variant.name, c.field.name, games, frames)
    outcome.games_played += item.table_games
    outcome.games_completed += item.table_games
    outcome.rounds_played += item.rounds
    outcome.tournaments_played += item.hi - item.lo + 1
    progress.batch_stored(str(c.index), c.label, item.lo, item.hi, item.hi + 1,
                          outcome.scenario.games,
                          (item.hi - item.lo + 1) / max(item.seconds, 1e-6), unit="tournaments")
