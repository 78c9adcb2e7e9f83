"""The tournament kind of run: whole championships played with the engine and stored, with
stop, resume and progress; the bracket itself is ``tournament.py``.

Each cell (variant x field) plays tournaments ``0 .. games-1`` in order, a batch of them at a
time (about ``TARGET_BATCH_SECONDS`` of play, or ``batch_size`` tournaments). A batch's
tournaments play side by side, stage by stage (``tournament.play_tournaments``): the engine plays
the tables of a stage of every tournament of the batch in one ``simulate_tables`` call per table
size, each table's game being game 0 of the game seed the bracket derived, so a tournament is a
pure function of (scenario, engine version, seed, index). Each batch is written in one
transaction, so a stop request or a killed process leaves whole tournaments only and a resume
continues from the tournaments stored. Table games are numbered per cell
(variant, table size) in the order they are written; that order is fixed (cells in order,
tournaments in order, tables in play order), so a resumed run equals an uninterrupted one row for
row.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from .. import store
from ..scenario import Cell, Scenario, Variant
from ..seats import Seat
from ..store import tournaments as tournament_store
from ..tournament import (
    MAIN,
    Field,
    TableAsk,
    TableGame,
    TournamentResult,
    TournamentSpec,
    play_tournaments,
)
from .engine_cache import prepare_engine
from .progress import Progress
from .session import RunError, RunOutcome, Tally, cell_label, end_session
from .signals import StopRequest

TARGET_BATCH_SECONDS = 1.0
FIRST_BATCH = 4  # tournaments in a cell's first batch, which measures their pace


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
    """``tournament.PlayTables`` backed by the engine: the tables of each size in one
    ``simulate_tables`` call, each its seed's game 0. A TableGame's payload is (the call's
    Batch, the game's index in it), for storing: the frames are built once per call."""

    def __init__(self, variant: Variant, threads: int | None = None):
        self.rules = variant.rules
        self.threads = threads

    def __call__(self, asks: Sequence[TableAsk]) -> list[TableGame]:
        from ..engine.simulate import simulate_tables

        by_size: dict[int, list[int]] = {}
        for i, (seats, _) in enumerate(asks):
            by_size.setdefault(len(seats), []).append(i)
        games: list[TableGame] = [None] * len(asks)  # type: ignore[list-item]
        for n, which in by_size.items():
            batch = simulate_tables(rules=self.rules, players=n,
                                    tables=[asks[i][0] for i in which],
                                    seeds=[asks[i][1] for i in which], threads=self.threads)
            for i, game in zip(which, table_games(batch, n)):
                games[i] = game
        return games


def table_games(batch: Any, players: int) -> list[TableGame]:
    """What the bracket needs from each game of ``batch`` (games 0..k-1 of ``simulate_tables``,
    per seat, seat order)."""
    k = batch.games.height
    rank = batch.game_seats["rank"].to_numpy().reshape(k, players)
    rounds = batch.rounds
    won_at = rounds.filter(rounds["winner_seat"].is_not_null())
    won = np.bincount(won_at["game"].to_numpy() * players
                      + won_at["winner_seat"].to_numpy().astype(np.int64),
                      minlength=k * players).reshape(k, players)
    rs = batch.round_seats
    cell = rs["game"].to_numpy() * players + rs["seat"].to_numpy().astype(np.int64)
    left = np.bincount(cell, weights=rs["hand_points"].to_numpy(),
                       minlength=k * players).reshape(k, players).astype(np.int64)
    first = rs["round"].to_numpy() == 1  # every game has a round 1: k x players rows, in order
    position = rs["position"].to_numpy()[first].reshape(k, players)
    n_rounds = batch.games["rounds"].to_list()
    turns = batch.games["turns"].to_list()
    return [TableGame(rank=tuple(rank[g].tolist()), rounds_won=tuple(won[g].tolist()),
                      first_position=tuple(position[g].tolist()), rounds=n_rounds[g],
                      turns=turns[g], hand_points=tuple(left[g].tolist()), payload=(batch, g))
            for g in range(k)]


# --- Rows ---------------------------------------------------------------------------------------

# The tournament frames' dtypes by store type (every other store type is an integer); list
# columns are built through Arrow (``_list_column``), by the Arrow type of their items.
_POLARS_TYPES = {"BOOLEAN": pl.Boolean, "VARCHAR": pl.String}
_LIST_ITEMS = {"SMALLINT[]": pa.int64(), "VARCHAR[]": pa.large_string()}


def _frame(rows: list[dict[str, Any]], columns) -> pl.DataFrame:
    """``rows`` as a frame of ``columns`` (name, store type, nullable)."""
    lists = {c: _list_column([r.pop(c) for r in rows], _LIST_ITEMS[t])
             for c, t, _ in columns if t in _LIST_ITEMS}
    scalars = pl.DataFrame(rows, schema={c: _POLARS_TYPES.get(t, pl.Int64)
                                         for c, t, _ in columns if t not in _LIST_ITEMS})
    return scalars.with_columns(**lists).select(c for c, _, _ in columns)


def _list_column(values: list[Sequence], items: pa.DataType) -> pl.Series:
    """A list column from Python sequences, built from Arrow offsets and values (polars'
    conversion of nested Python lists took most of the time of storing a tournament)."""
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, values), np.int64, len(values)), out=offsets[1:])
    flat = pa.array([x for v in values for x in v], items)
    return pl.from_arrow(pa.ListArray.from_arrays(pa.array(offsets), flat))


def result_frames(results: Sequence[TournamentResult], spec: TournamentSpec,
                  counters: dict[int, int]) -> tuple[dict[int, Any], dict[str, pl.DataFrame]]:
    """The rows of whole tournaments: engine frames per table size (games numbered from
    ``counters``, which is advanced) and the tournament tables' frames."""
    from ..engine.simulate import Batch

    # table size -> id of an engine Batch -> (the Batch, its games' numbers: -1 if not stored)
    numbers: dict[int, dict[int, tuple[Any, np.ndarray]]] = {}
    tours, tables, entrants = [], [], []
    for r in results:
        final = next(t for t in reversed(r.tables) if t.bracket == MAIN)
        tours.append({
            "tournament": r.index, "champion": r.champion,
            "champion_profile": r.field.entrant_profiles()[r.champion],
            "champion_decided_by": final.decided_by,
            "consolation_champion": r.consolation_champion,
            "consolation_champion_profile": (None if r.consolation_champion is None else
                                             r.field.entrant_profiles()[r.consolation_champion]),
            "games": r.games()})
        for t in r.tables:
            n = len(t.entrants)
            game = counters.get(n, 0)
            counters[n] = game + 1
            batch, i = t.game.payload
            of_size = numbers.setdefault(n, {})
            if id(batch) not in of_size:
                of_size[id(batch)] = (batch, np.full(batch.games.height, -1, dtype=np.int64))
            of_size[id(batch)][1][i] = game
            tables.append({
                "tournament": r.index, "bracket": t.bracket, "stage": t.stage.stage,
                "stage_name": t.stage.name, "table_no": t.table, "players": n, "game": game,
                "game_seed": t.game_seed, "entrants": list(t.entrants),
                "profiles": list(t.profiles), "advance": t.stage.advance,
                "finish": list(t.finish), "advancers": list(t.advancers),
                "decided_by": t.decided_by})
        for e in r.entrants:
            c = e.consolation
            entrants.append({
                "tournament": r.index, "entrant": e.entrant, "profile": e.profile,
                "policy": spec.profiles[e.profile].policy, "stage": e.main.stage,
                "stage_name": e.main.stage_name, "finish": e.main.finish, "place": e.main.place,
                "is_champion": e.entrant == r.champion, "first_table": e.first_table,
                "first_seat": e.first_seat, "first_position": e.first_position,
                "first_table_players": e.first_table_players,
                "advanced_first": e.advanced_first,
                "consolation_stage": None if c is None else c.stage,
                "consolation_stage_name": None if c is None else c.stage_name,
                "consolation_place": None if c is None else c.place,
                "is_consolation_champion": e.entrant == r.consolation_champion})
    games = {}
    for n, batches in numbers.items():  # the engine numbered each call's games 0..k-1
        out = []
        for name in store.FRAME_COLUMNS:
            renumbered = []
            for batch, number in batches.values():
                df = getattr(batch, name)
                df = df.with_columns(pl.Series("game", number[df["game"].to_numpy()]))
                renumbered.append(df.filter(pl.col("game") >= 0))
            # in the order the games are numbered (each game's rows keep theirs)
            out.append(pl.concat(renumbered, how="vertical").sort("game", maintain_order=True))
        games[n] = Batch(*out)
    rows = {"tournaments": tours, "tournament_tables": tables, "tournament_entrants": entrants}
    frames = {name: _frame(rows[name], tournament_store.COLUMNS[name])
              for name in tournament_store.BATCH_TABLES}
    return games, frames


# --- Playing a run ------------------------------------------------------------------------------

def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None) -> RunOutcome:
    """Play every tournament cell of ``outcome.scenario`` from its stored tournaments to the end
    (or until ``stop``); ``batch_size`` fixes the tournaments per batch (None: about
    ``TARGET_BATCH_SECONDS``); ``threads`` play the tables of a stage (results never depend
    on it)."""
    scenario = outcome.scenario
    spec = _spec(scenario)
    stop = stop or StopRequest()
    todo = cells(scenario)
    done = tournament_store.completed_by_field(con, outcome.run_id)
    # variant -> table size -> games stored: the number of the cell's next table game
    counters = {v.name: {n: store.completed_games(con, outcome.run_id, v.name, n)
                         for n in scenario.players} for v in scenario.variants}
    started = time.perf_counter()
    status = "interrupted"
    outcome.tournaments_played = 0
    try:
        prepare_engine(progress)
        started = time.perf_counter()  # the run's time and rate leave the compile out
        firsts = [done.get((c.variant.name, c.field.name), 0) for c in todo]
        for c, first in zip(todo, firsts):
            progress.cell_started(str(c.index), c.label, first, scenario.games,
                                  unit="tournaments")
        for c, first in zip(todo, firsts):
            if not _play_cell(con, outcome, c, spec, first, counters[c.variant.name],
                              batch_tournaments=batch_size, threads=threads,
                              progress=progress, stop=stop):
                break
        else:
            status = "complete"
        if stop.requested and status != "complete":
            outcome.signal = stop.signum
    except KeyboardInterrupt:
        outcome.signal = signal.SIGINT
        raise
    finally:
        tally = Tally("table games stored (whole tournaments)",
                      f"{outcome.tournaments_played:,} tournaments, "
                      f"{outcome.games_played:,} table games",
                      outcome.tournaments_played, "tournaments", ",.1f")
        end_session(con, outcome, status, started=started, progress=progress, tally=tally)
    return outcome


def _play_cell(con, outcome: RunOutcome, c: TournamentCell, spec: TournamentSpec, first: int,
               counters: dict[int, int], *, batch_tournaments: int | None,
               threads: int | None, progress: Progress, stop: StopRequest) -> bool:
    """Play one cell's remaining tournaments; False if a stop request ended it early.
    ``counters`` (table size -> the variant's next game number) advances as they are stored.

    The next batch plays on a thread of its own while this one is stored (the engine and DuckDB
    release the GIL, so they overlap); after a stop request, the batch in play is dropped."""
    scenario = outcome.scenario
    tables = EngineTables(c.variant, threads)

    def play_batch(lo: int, size: int) -> tuple[list[TournamentResult], float]:
        since = time.perf_counter()
        results = play_tournaments(spec, c.field, seed=scenario.seed,
                                   indices=range(lo, min(lo + size, scenario.games)),
                                   play_tables=tables)
        return results, time.perf_counter() - since

    size = batch_tournaments or FIRST_BATCH  # tournaments in the next batch
    t = first
    with ThreadPoolExecutor(1, thread_name_prefix="unostats-tournaments") as ahead:
        playing = (ahead.submit(play_batch, t, size)
                   if t < scenario.games and not stop.requested else None)
        while playing is not None and not stop.requested:
            results, seconds = playing.result()
            if not batch_tournaments:  # about TARGET_BATCH_SECONDS of play per batch
                size = max(1, min(8 * size, round(
                    len(results) * TARGET_BATCH_SECONDS / max(seconds, 1e-3))))
            lo = t + len(results)
            playing = ahead.submit(play_batch, lo, size) if lo < scenario.games else None
            _store(con, outcome, c, spec, results, counters, progress, seconds)
            t = lo
    return t >= scenario.games


def _store(con, outcome: RunOutcome, c: TournamentCell, spec: TournamentSpec,
           results: list[TournamentResult], counters: dict[int, int], progress: Progress,
           seconds: float) -> None:
    numbers = dict(counters)  # advanced by result_frames; kept only once the write succeeds
    games, frames = result_frames(results, spec, numbers)
    tournament_store.write_tournaments(con, outcome.run_id, c.variant.name, c.field.name, games,
                                       frames)
    counters.update(numbers)
    n_games = sum(r.games() for r in results)
    outcome.games_played += n_games
    outcome.games_completed += n_games
    outcome.rounds_played += sum(b.rounds.height for b in games.values())
    outcome.tournaments_played += len(results)
    lo, hi = results[0].index, results[-1].index
    progress.batch_stored(str(c.index), c.label, lo, hi, hi + 1, outcome.scenario.games,
                          len(results) / max(seconds, 1e-6), unit="tournaments")
