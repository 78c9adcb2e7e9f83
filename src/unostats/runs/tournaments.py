"""The tournament kind of run: whole championships played with the engine and stored, with
stop, resume and progress; the bracket itself is ``tournament.py``.

Each cell (variant x field) plays tournaments ``0 .. games-1`` in order, a batch of them at a
time (about ``TARGET_BATCH_SECONDS`` of play and at most ``MAX_BATCH_SEAT_ROWS`` round-seat
rows, or ``batch_size`` tournaments; near the end of the run at most half of what is left, down
to ``TAIL_SECONDS`` of play and ``TAIL_SEAT_ROWS`` rows, so that the last batch's rows, which
nothing overlaps, are few). A
batch's tournaments play side by side, stage by stage (``tournament.play_tournaments``): the
engine plays the tables of a stage of every tournament of the batch in one
``simulate_tables_arrow`` call per table size, each table's game being game 0 of the game seed
the bracket derived, so a tournament is a pure function of (scenario, engine version, seed,
index). The batch's tournaments step in ``GROUPS`` groups: while the engine plays one group's
stage (it releases the GIL), the bracket's Python reads the other's games and draws its next
stage. A thread of its own (``_Player``, every cell's batches in turn) plays the batches; the
calling thread turns each played batch into rows (the engine's Arrow tables gathered into the
store's order, ``_gathered``: one take per table and table size; the tournament rows built column
by column) and stores it, while the next batch plays. Each batch is written in one transaction,
so a stop request or a killed process leaves whole tournaments only and a resume continues from
the tournaments stored. Table games are numbered per cell (variant, table size) in the order
they are written; that order is fixed (cells in order, tournaments in order, tables in play
order), so a resumed run equals an uninterrupted one row for row.
"""

from __future__ import annotations

import gc
import itertools
import math
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
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
from .handover import BatchThread
from .memory import give_back_large_blocks
from .progress import Progress
from .session import RunError, RunOutcome, Tally, cell_label, end_session
from .signals import StopRequest

TARGET_BATCH_SECONDS = 3.0
# Round-seat rows per batch at most: DuckDB writes an insert of a row group (122,880 rows) or more
# straight to the file, a smaller one to the log and then again at the checkpoint; at 100
# tournaments a batch (the size a second of play made) storing cost 2.5 times what it costs now.
MAX_BATCH_SEAT_ROWS = 300_000
FIRST_BATCH = 4  # tournaments in a cell's first batch, which measures their pace
GROWTH = 8  # a batch is at most this many times the one before
# The last batches of a run: at most half of the tournaments left, but not below this much play
# nor below TAIL_SEAT_ROWS round-seat rows. Nothing overlaps the rows and the storing of the last
# batch (the engine has nothing left to play): a run of 2 x 500 championships used to end with
# 0.5 s of them. A smaller insert costs DuckDB more per row (measured, storing per table game:
# batches of 125 tournaments 55-65 us, 250: 40-46 us, 500: 29-35 us, 1000: 25-33 us).
TAIL_SECONDS = 0.25
TAIL_SEAT_ROWS = 122_880  # a row group: DuckDB writes an insert of one straight to the file
BATCHES_IN_FLIGHT = 2  # one being turned into rows and stored, one played (or waiting)
GROUPS = 2  # a batch's tournaments step in this many groups: one's stage plays, another's is read


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
    ``simulate_tables_arrow`` call, each its seed's game 0. A TableGame's payload is (the call's
    Batch of Arrow tables, the game's index in it), for storing: the tables are built once per
    call."""

    def __init__(self, variant: Variant, threads: int | None = None):
        self.rules = variant.rules
        self.threads = threads

    def __call__(self, asks: Sequence[TableAsk]) -> list[TableGame]:
        from ..engine.simulate import simulate_tables_arrow

        by_size: dict[int, list[int]] = {}
        for i, (seats, _) in enumerate(asks):
            by_size.setdefault(len(seats), []).append(i)
        games: list[TableGame] = [None] * len(asks)  # type: ignore[list-item]
        for n, which in by_size.items():
            batch = simulate_tables_arrow(rules=self.rules, players=n,
                                          tables=[asks[i][0] for i in which],
                                          seeds=[asks[i][1] for i in which],
                                          threads=self.threads)
            for i, game in zip(which, table_games(batch, n)):
                games[i] = game
        return games


def _numbers(table: pa.Table, name: str, null: int = -1) -> np.ndarray:
    """An integer column as numpy, nulls as ``null``."""
    column = table.column(name)
    if column.null_count:
        import pyarrow.compute as pc  # only when a column has nulls (winner_seat)

        column = pc.fill_null(column, null)
    return column.to_numpy()


def table_games(batch: Any, players: int) -> list[TableGame]:
    """What the bracket needs from each game of ``batch`` (games 0..k-1 of
    ``simulate_tables_arrow``, per seat, seat order)."""
    k = batch.games.num_rows
    rank = _numbers(batch.game_seats, "rank").reshape(k, players)
    winner = _numbers(batch.rounds, "winner_seat").astype(np.int64)
    won_at = winner >= 0
    won = np.bincount(_numbers(batch.rounds, "game")[won_at] * players + winner[won_at],
                      minlength=k * players).reshape(k, players)
    rs = batch.round_seats
    cell = _numbers(rs, "game") * players + _numbers(rs, "seat").astype(np.int64)
    left = np.bincount(cell, weights=_numbers(rs, "hand_points"),
                       minlength=k * players).reshape(k, players).astype(np.int64)
    first = _numbers(rs, "round") == 1  # every game has a round 1: k x players rows, in order
    position = _numbers(rs, "position")[first].reshape(k, players)
    return [TableGame(rank=tuple(r), rounds_won=tuple(w), first_position=tuple(p), rounds=n,
                      turns=t, hand_points=tuple(h), payload=(batch, g))
            for g, (r, w, p, n, t, h) in enumerate(zip(
                rank.tolist(), won.tolist(), position.tolist(),
                batch.games.column("rounds").to_pylist(), batch.games.column("turns").to_pylist(),
                left.tolist()))]


# --- Rows ---------------------------------------------------------------------------------------

# The tournament tables' Arrow types by store type (the store casts each column to its own
# type, at no cost where they agree; an INTEGER column is 64-bit here so that an overflow is the
# store's error); list columns by the type of their items. Every SMALLINT value is bounded by
# the entrant count (at most tournament.ENTRANTS_RANGE[1]).
_ARROW_TYPES = {"BOOLEAN": pa.bool_(), "VARCHAR": pa.string(), "SMALLINT": pa.int16()}
_LIST_ITEMS = {"SMALLINT[]": pa.int16(), "VARCHAR[]": pa.string()}


def _table(values: dict[str, Sequence], columns) -> pa.Table:
    """Column ``values`` (Python sequences) as an Arrow table of ``columns`` (name, store type,
    nullable)."""
    return pa.table([_list_array(values[c], _LIST_ITEMS[t]) if t in _LIST_ITEMS
                     else pa.array(values[c], _ARROW_TYPES.get(t, pa.int64()))
                     for c, t, _ in columns], names=[c for c, _, _ in columns])


def _list_array(values: list[Sequence], items: pa.DataType) -> pa.Array:
    """A list column from Python sequences, built from Arrow offsets and values."""
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, values), np.int64, len(values)), out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets),
                                    pa.array(list(itertools.chain.from_iterable(values)), items))


def _gathered(played: list[tuple[Any, int]], numbers: Sequence[int]) -> Any:
    """One Batch of the games ``played`` ((engine Batch, game in it) each, the games of one
    table size) in that order, numbered ``numbers``: each game's rows as the engine wrote
    them."""
    from ..engine.simulate import Batch

    batches = list({id(b): b for b, _ in played}.values())
    where = {id(b): i for i, b in enumerate(batches)}
    which = np.array([where[id(b)] for b, _ in played], dtype=np.int64)
    games = np.array([g for _, g in played], dtype=np.int64)
    numbers = np.asarray(numbers, dtype=np.int64)
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


def result_frames(results: Sequence[TournamentResult], spec: TournamentSpec,
                  counters: dict[int, int]) -> tuple[dict[int, Any], dict[str, pa.Table]]:
    """The rows of whole tournaments: engine tables per table size (games numbered from
    ``counters``, which is advanced) and the tournament tables' rows, as Arrow tables. The
    results' rows are named tuples: each table's columns come from one transposition
    (``zip(*rows)``) rather than a pass per column."""
    tabled = [t for r in results for t in r.tables]  # TableResults, in play order
    table_of = [r.index for r in results for _ in r.tables]
    sizes = [len(t.entrants) for t in tabled]
    played: dict[int, list[tuple[Any, int]]] = {}  # table size -> (engine Batch, game in it)
    numbers: dict[int, list[int]] = {}
    game_of = []  # each table's game number, in the order of the tables
    for n, t in zip(sizes, tabled):
        game = counters.get(n, 0)
        counters[n] = game + 1
        played.setdefault(n, []).append(t.game.payload)
        numbers.setdefault(n, []).append(game)
        game_of.append(game)
    games = {n: _gathered(played[n], numbers[n]) for n in played}

    profiles_of: dict[int, tuple[str, ...]] = {}  # by field: each entrant's profile
    for r in results:
        if id(r.field) not in profiles_of:
            profiles_of[id(r.field)] = r.field.entrant_profiles()
    finals = [next(t for t in reversed(r.tables) if t.bracket == MAIN) for r in results]
    tours = {
        "tournament": [r.index for r in results],
        "champion": [r.champion for r in results],
        "champion_profile": [profiles_of[id(r.field)][r.champion] for r in results],
        "champion_decided_by": [f.decided_by for f in finals],
        "consolation_champion": [r.consolation_champion for r in results],
        "consolation_champion_profile": [
            None if r.consolation_champion is None
            else profiles_of[id(r.field)][r.consolation_champion] for r in results],
        "games": [len(r.tables) for r in results]}

    (brackets, stages, table_nos, entrants_at, profiles, seeds, _, finish,
     decided) = zip(*tabled)
    plans = {id(p): p for p in stages}  # the few StagePlans of the field's brackets
    stage_no = {k: p.stage for k, p in plans.items()}
    stage_name = {k: p.name for k, p in plans.items()}
    advance = {k: p.advance for k, p in plans.items()}
    tables = {
        "tournament": table_of, "bracket": brackets,
        "stage": [stage_no[id(p)] for p in stages],
        "stage_name": [stage_name[id(p)] for p in stages],
        "table_no": table_nos, "players": sizes, "game": game_of, "game_seed": seeds,
        "entrants": entrants_at, "profiles": profiles,
        "advance": [advance[id(p)] for p in stages],
        "finish": finish,
        "advancers": [() if advance[id(p)] == 0 else f[:advance[id(p)]]
                      for p, f in zip(stages, finish)],  # TableResult.advancers
        "decided_by": decided}

    entered = [e for r in results for e in r.entrants]
    (entrant, profile, main, first_table, first_seat, first_position, first_table_players,
     advanced_first, consolation) = zip(*entered)
    main_stage, main_stage_name, main_finish, main_place = zip(*main)
    played_consolation = [c for c in consolation if c is not None]
    c_stage, c_stage_name, _, c_place = (zip(*played_consolation) if played_consolation
                                         else ((), (), (), ()))
    c_stage, c_stage_name, c_place = iter(c_stage), iter(c_stage_name), iter(c_place)
    champions = [r.champion for r in results for _ in r.entrants]
    c_champions = [r.consolation_champion for r in results for _ in r.entrants]
    policy_of = {name: spec.profiles[name].policy for name in set(profile)}
    entrants = {
        "tournament": [r.index for r in results for _ in r.entrants],
        "entrant": entrant, "profile": profile,
        "policy": [policy_of[p] for p in profile],
        "stage": main_stage, "stage_name": main_stage_name, "finish": main_finish,
        "place": main_place,
        "is_champion": [e == c for e, c in zip(entrant, champions)],
        "first_table": first_table, "first_seat": first_seat,
        "first_position": first_position, "first_table_players": first_table_players,
        "advanced_first": advanced_first,
        "consolation_stage": [None if c is None else next(c_stage) for c in consolation],
        "consolation_stage_name": [None if c is None else next(c_stage_name)
                                   for c in consolation],
        "consolation_place": [None if c is None else next(c_place) for c in consolation],
        "is_consolation_champion": [e == c for e, c in zip(entrant, c_champions)]}
    rows = {"tournaments": tours, "tournament_tables": tables, "tournament_entrants": entrants}
    frames = {name: _table(rows[name], tournament_store.COLUMNS[name])
              for name in tournament_store.BATCH_TABLES}
    return games, frames


# --- Playing a run ------------------------------------------------------------------------------

@dataclass
class _Played:
    """A batch of one cell's tournaments, played, to be turned into rows and stored."""

    cell: TournamentCell
    lo: int  # its tournaments: lo .. hi
    hi: int
    results: list[TournamentResult]  # their TableGames' payloads hold the engine's tables
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
    started = time.perf_counter()
    status = "interrupted"
    outcome.tournaments_played = 0
    try:
        give_back_large_blocks()
        prepare_engine(progress, [v.rules for v in scenario.variants])
        started = time.perf_counter()  # the run's time and rate leave the compile out
        for c, first in zip(todo, firsts):
            progress.cell_started(str(c.index), c.label, first, scenario.games,
                                  unit="tournaments")
        player.start()
        for item in player.items(stop):
            _store(con, outcome, item, counters[item.cell.variant.name], progress)
            del item
            player.stored()
        if player.finished:
            status = "complete"
        elif stop.requested:
            outcome.signal = stop.signum
    except KeyboardInterrupt:
        outcome.signal = signal.SIGINT
        raise
    finally:
        player.halt()
        try:
            tally = Tally("table games stored (whole tournaments)",
                          f"{outcome.tournaments_played:,} tournaments, "
                          f"{outcome.games_played:,} table games",
                          outcome.tournaments_played, "tournaments", ",.1f")
            end_session(con, outcome, status, started=started, progress=progress, tally=tally)
        finally:
            player.join()
    return outcome


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
                results = play_tournaments(spec, c.field, seed=self.scenario.seed,
                                           indices=range(t, min(t + size, self.scenario.games)),
                                           play_tables=tables, groups=GROUPS)
            seconds = time.perf_counter() - since
            played = len(results)
            batches = _engine_batches(results)
            item = _Played(c, t, t + played - 1, results, played * per_tournament,
                           sum(b.rounds.num_rows for b in batches), seconds)
            self._seat_rows = sum(b.round_seats.num_rows for b in batches) / played
            del results, batches
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


def _engine_batches(results: Sequence[TournamentResult]) -> list[Any]:
    """The engine Batches whose games ``results`` played (each once)."""
    return list({id(b): b for r in results for b, _ in (t.game.payload for t in r.tables)}
                .values())


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
        games, frames = result_frames(item.results, _spec(outcome.scenario), counters)
    tournament_store.write_tournaments(con, outcome.run_id, c.variant.name, c.field.name,
                                       games, frames)
    outcome.games_played += item.table_games
    outcome.games_completed += item.table_games
    outcome.rounds_played += item.rounds
    outcome.tournaments_played += item.hi - item.lo + 1
    progress.batch_stored(str(c.index), c.label, item.lo, item.hi, item.hi + 1,
                          outcome.scenario.games,
                          (item.hi - item.lo + 1) / max(item.seconds, 1e-6), unit="tournaments")
