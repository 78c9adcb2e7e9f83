"""The tournament kind of run: whole championships played with the engine and stored, with
stop, resume and progress; the bracket itself is ``tournament.py``.

Each cell (variant x field) plays tournaments ``0 .. games-1`` in order. A table's game is one
``simulate_batches`` call with the table's seats and the game seed the bracket derived, so a
tournament is a pure function of (scenario, engine version, seed, index). Whole tournaments are
buffered and written together, one transaction per batch (about ``TARGET_BATCH_SECONDS`` of play,
or ``batch_size`` tournaments), so a stop request or a killed process leaves whole tournaments
only and a resume continues from the tournaments stored. Table games are numbered per cell
(variant, table size) in the order they are written; that order is fixed (cells in order,
tournaments in order, tables in play order), so a resumed run equals an uninterrupted one row for
row.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .. import store
from ..scenario import Cell, Scenario, Variant
from ..seats import Seat
from ..store import tournaments as tournament_store
from ..tournament import (
    MAIN,
    Field,
    TableGame,
    TournamentResult,
    TournamentSpec,
    play_tournament,
)
from .engine_cache import prepare_engine
from .progress import Progress
from .session import RunError, RunOutcome, Tally, cell_label, end_session
from .signals import StopRequest

TARGET_BATCH_SECONDS = 1.0


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



# --- The engine at a table ---------------------------------------------------------------------

class EngineTables:
    """``tournament.PlayTable`` backed by the engine: one game per call, the engine's game 0 of
    the table's seed. The Batch rides along as the payload, for storing.

    One game cannot use more than one thread, and starting Numba's thread pool for it costs far
    more than the game (measured: ~40 ms per 16-game tournament on 1 thread, 4-8x more with the
    pool on a busy 2-core machine), so tables play on one thread (``threads`` is for tests)."""

    def __init__(self, variant: Variant, threads: int | None = 1):
        self.rules = variant.rules
        self.threads = threads

    def __call__(self, seats: tuple[Seat, ...], game_seed: int) -> TableGame:
        from ..engine.simulate import simulate_batches

        n = len(seats)
        batch = next(iter(simulate_batches(rules=self.rules, players=n, seats=seats, games=1,
                                           seed=game_seed, threads=self.threads)))
        return table_game(batch, n)


def table_game(batch: Any, players: int) -> TableGame:
    """What the bracket needs from one game's frames (per seat, seat order)."""
    gs = batch.game_seats
    rank = np.zeros(players, dtype=np.int64)
    rank[gs["seat"].to_numpy()] = gs["rank"].to_numpy()
    winners = batch.rounds["winner_seat"].drop_nulls().to_numpy().astype(np.int64)
    won = np.bincount(winners, minlength=players)
    rs = batch.round_seats
    seat = rs["seat"].to_numpy().astype(np.int64)
    first = rs["round"].to_numpy() == 1
    position = np.zeros(players, dtype=np.int64)
    position[seat[first]] = rs["position"].to_numpy()[first]
    left = np.bincount(seat, weights=rs["hand_points"].to_numpy(), minlength=players)
    return TableGame(rank=tuple(int(r) for r in rank), rounds_won=tuple(int(w) for w in won),
                     first_position=tuple(int(p) for p in position),
                     rounds=int(batch.games["rounds"][0]), turns=int(batch.games["turns"][0]),
                     hand_points=tuple(int(h) for h in left), payload=batch)


# --- Rows ---------------------------------------------------------------------------------------

# The tournament frames' dtypes by store type (every other store type is an integer).
_POLARS_TYPES = {"BOOLEAN": pl.Boolean, "VARCHAR": pl.String, "SMALLINT[]": pl.List(pl.Int64),
                 "VARCHAR[]": pl.List(pl.String)}


def result_frames(results: Sequence[TournamentResult], spec: TournamentSpec,
                  counters: dict[int, int]) -> tuple[dict[int, Any], dict[str, pl.DataFrame]]:
    """The rows of whole tournaments: engine frames per table size (games numbered from
    ``counters``, which is advanced) and the tournament tables' frames."""
    from ..engine.simulate import Batch

    parts: dict[int, dict[str, list[pl.DataFrame]]] = {}
    numbers: dict[int, list[int]] = {}  # table size -> the game number of each part
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
            batch = t.game.payload
            frames = parts.setdefault(n, {name: [] for name in store.FRAME_COLUMNS})
            for name in store.FRAME_COLUMNS:
                frames[name].append(getattr(batch, name))
            numbers.setdefault(n, []).append(game)
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
    for n, p in parts.items():  # each table's frames hold its game 0: renumber them
        out = []
        for name in store.FRAME_COLUMNS:
            heights = [df.height for df in p[name]]
            df = pl.concat(p[name], how="vertical")
            out.append(df.with_columns(pl.Series("game", np.repeat(
                np.asarray(numbers[n], dtype=np.int64), heights))))
        games[n] = Batch(*out)
    rows = {"tournaments": tours, "tournament_tables": tables, "tournament_entrants": entrants}
    frames = {name: pl.DataFrame(rows[name], schema={
                  c: _POLARS_TYPES.get(t, pl.Int64) for c, t, _ in tournament_store.COLUMNS[name]})
              for name in tournament_store.BATCH_TABLES}
    return games, frames


# --- Playing a run ------------------------------------------------------------------------------

def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None) -> RunOutcome:
    """Play every tournament cell of ``outcome.scenario`` from its stored tournaments to the end
    (or until ``stop``); ``batch_size`` fixes the tournaments per batch (None: about
    ``TARGET_BATCH_SECONDS``). Every table game plays on one thread, whatever ``threads`` says
    (see ``EngineTables``)."""
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
                              batch_tournaments=batch_size, progress=progress, stop=stop):
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
               counters: dict[int, int], *, batch_tournaments: int | None, progress: Progress,
               stop: StopRequest) -> bool:
    """Play one cell's remaining tournaments; False if a stop request ended it early.
    ``counters`` (table size -> the variant's next game number) advances as they are stored."""
    scenario = outcome.scenario
    tables = EngineTables(c.variant)
    buffer: list[TournamentResult] = []
    since = time.perf_counter()
    t = first
    while t < scenario.games:
        if stop.requested:
            break
        buffer.append(play_tournament(spec, c.field, seed=scenario.seed, index=t,
                                      play_table=tables))
        t += 1
        elapsed = time.perf_counter() - since
        full = (len(buffer) >= batch_tournaments if batch_tournaments
                else elapsed >= TARGET_BATCH_SECONDS)
        if full or t == scenario.games:
            _store(con, outcome, c, spec, buffer, counters, progress, elapsed)
            buffer, since = [], time.perf_counter()
    if buffer:  # a stop request: keep what is whole
        _store(con, outcome, c, spec, buffer, counters, progress,
               time.perf_counter() - since)
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
