"""The league kind of run: every policy of ``league:`` meets every other in balanced seatings
(``league.py``), the games stored as plain games, and the policies rated (``ratings.py``) into
``league_fits`` whenever a session ends.

A cell is a variant at one table size. Its game g seats seating ``g % S`` of the design and is
game g of the run's seed, so a game is a pure function of (scenario, engine version, seed, game
index) like any other: ``simulate_tables`` plays a batch of games, each with its own seats, in
one engine call, and ``store.write_batch`` stores it (one transaction), so a stop or a killed
process leaves whole batches and a resume continues from the games stored. The fits read the
stored games only, and the bootstrap's seed comes from the run's seed and the cell, so a resumed
run ends with the ratings of an uninterrupted one.
"""

from __future__ import annotations

import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl

from .. import ratings, store
from ..games.driver import MAX_BATCH_SEAT_ROWS, TARGET_BATCH_SECONDS, tally
from ..base.engine_cache import prepare_engine
from ..base.progress import Progress
from ..base.session import RunOutcome, cell_label, playing
from ..base.signals import StopRequest
from ..scenario import Cell, Scenario
from ..seats import Seat
from .spec import tables as league_store
from .spec.seatings import LeagueSpec

FIRST_BATCH_GAMES = 200  # a cell's first batch, which measures its pace
MAX_BATCH_GAMES = 100_000


def _spec(scenario: Scenario) -> LeagueSpec:
    if scenario.league is None:
        raise ValueError(f"scenario {scenario.name!r} has no league section")
    return scenario.league


def cell_games(scenario: Scenario, cell: Cell) -> int:
    """Games the cell plays: ``games`` rounded up to whole cycles of its seatings."""
    return _spec(scenario).games(cell.players, scenario.games)


def games_requested(scenario: Scenario) -> int:
    return sum(cell_games(scenario, c) for c in scenario.cells())


def plan(scenario: Scenario) -> str:
    """What a new run plays, for its first log line."""
    spec = _spec(scenario)
    sizes = ", ".join(f"{len(spec.seatings(n)):,} seatings at {n} players "
                      f"({spec.games(n, scenario.games):,} games)" for n in spec.table_sizes)
    n = len(scenario.variants)
    return (f"a league of {len(spec.policies)} policies x {n} variant{'s' * (n != 1)}: {sizes}, "
            "every seating equally often")


def replay_args(con, run_id: str, scenario: Scenario, cell: Cell,
                game: int) -> tuple[tuple[Seat, ...], int, int]:
    """How stored game ``game`` of ``cell`` is recomputed: its seating, the run's seed, the
    game's index."""
    return _spec(scenario).seats(cell.players, game), scenario.seed, game


# --- Playing a run -----------------------------------------------------------------------------

def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None) -> RunOutcome:
    """Play every cell of the league from its stored games to the end (or until ``stop``), then
    fit the ratings of the games stored; ``batch_size`` fixes the games per batch (None:
    about ``TARGET_BATCH_SECONDS`` of play)."""
    scenario = outcome.scenario
    stop = stop or StopRequest()
    cells = list(scenario.cells())
    firsts = [store.completed_games(con, outcome.run_id, c.variant.name, c.players)
              for c in cells]
    with playing(con, outcome, progress=progress, stop=stop, tally=tally) as session:
        prepare_engine(progress, [c.variant.rules for c in cells])
        session.start_clock()  # the run's time and rate leave the compile out
        for i, (cell, first) in enumerate(zip(cells, firsts)):
            progress.cell_started(str(i), cell_label(cell), first, cell_games(scenario, cell))
        for i, (cell, first) in enumerate(zip(cells, firsts)):
            if not _play_cell(con, outcome, i, cell, first, batch_games=batch_size,
                              threads=threads, progress=progress, stop=stop):
                break
        else:
            session.status = "complete"
        fit_ratings(con, outcome.run_id, scenario, progress)
    return outcome


def _play_cell(con, outcome: RunOutcome, index: int, cell: Cell, first: int, *,
               batch_games: int | None, threads: int | None, progress: Progress,
               stop: StopRequest) -> bool:
    """Play one cell's remaining games; False if a stop request ended it early. The next batch
    plays on a thread of its own while this one is stored (the engine and DuckDB release the
    GIL); after a stop request, the batch in play is dropped."""
    scenario = outcome.scenario
    end = cell_games(scenario, cell)

    def play_batch(lo: int, size: int):
        since = time.perf_counter()
        hi = min(lo + size, end)
        return lo, hi, league_batch(scenario, cell, lo, hi, threads), time.perf_counter() - since

    size = batch_games or FIRST_BATCH_GAMES
    done = first
    with ThreadPoolExecutor(1, thread_name_prefix="unostats-league") as ahead:
        playing = ahead.submit(play_batch, done, size) \
            if done < end and not stop.requested else None
        while playing is not None and not stop.requested:
            lo, hi, batch, seconds = playing.result()
            if not batch_games:  # about TARGET_BATCH_SECONDS of play, a bounded batch
                rows_per_game = cell.players * batch.rounds.height / (hi - lo)
                size = int(max(1, min(MAX_BATCH_GAMES, MAX_BATCH_SEAT_ROWS / rows_per_game,
                                      8 * size, (hi - lo) * TARGET_BATCH_SECONDS
                                      / max(seconds, 1e-3))))
            playing = ahead.submit(play_batch, hi, size) if hi < end else None
            store.write_batch(con, outcome.run_id, cell.variant.name, cell.players, batch)
            outcome.games_played += hi - lo
            outcome.games_completed += hi - lo
            outcome.rounds_played += batch.rounds.height
            progress.batch_stored(str(index), cell_label(cell), lo, hi - 1, hi, end,
                                  (hi - lo) / max(seconds, 1e-6))
            done = hi
    return done >= end


def league_batch(scenario: Scenario, cell: Cell, lo: int, hi: int, threads: int | None = None):
    """Games [lo, hi) of a league cell as one engine Batch (polars frames, games numbered
    lo..hi-1): each its seating, each game g of the run's seed."""
    from ..engine.simulate import simulate_tables

    spec = _spec(scenario)
    batch = simulate_tables(rules=cell.variant.rules, players=cell.players,
                            tables=[spec.seats(cell.players, g) for g in range(lo, hi)],
                            seeds=[scenario.seed] * (hi - lo), streams=list(range(lo, hi)),
                            threads=threads)
    return batch._replace(**{name: df.with_columns(pl.col("game").cast(pl.Int64) + lo)
                             for name, df in batch._asdict().items() if df is not None})


# --- Ratings -----------------------------------------------------------------------------------

def fit_ratings(con, run_id: str, scenario: Scenario, progress: Progress | None = None) -> None:
    """Rate the league's policies on every cell's stored games (``ratings.fit``) and replace the
    run's ``league_fits`` rows."""
    spec = _spec(scenario)
    since = time.perf_counter()
    index = {name: i for i, name in enumerate(spec.names)}
    rows = []
    for cell in scenario.cells():
        policies, winner_seat = league_store.cell_results(con, run_id, cell.variant.name,
                                                          cell.players)
        tables = np.vectorize(index.__getitem__, otypes=[np.int64])(policies) \
            if len(policies) else np.zeros((0, cell.players), dtype=np.int64)
        games = len(tables)
        winners = np.where(winner_seat >= 0,
                           tables[np.arange(games), np.maximum(winner_seat, 0)], -1)
        fitted = ratings.fit(tables, winners, len(spec.names),
                             seed=fit_seed(scenario.seed, cell)) if games else None
        for i, name in enumerate(spec.names):
            rows.append({
                "run_id": run_id, "variant": cell.variant.name, "players": cell.players,
                "policy": name, "policy_index": i,
                "rating": _value(fitted, "rating", i), "lo": _value(fitted, "lo", i),
                "hi": _value(fitted, "hi", i),
                "games": int((tables == i).any(axis=1).sum()),
                "wins": int((winners == i).sum()), "decided_games": int((winners >= 0).sum()),
                "method": ratings.METHOD})
    league_store.replace_fits(con, run_id, rows)
    if progress is not None:
        progress.log(f"league ratings of {len(spec.names)} policies x "
                     f"{len(rows) // max(len(spec.names), 1)} cells fitted in "
                     f"{time.perf_counter() - since:.1f} s")


def fit_seed(seed: int, cell: Cell) -> np.random.SeedSequence:
    """The bootstrap's seed of a cell: the run's seed, the table size and the variant's name."""
    return np.random.SeedSequence(entropy=seed, spawn_key=(
        cell.players, zlib.crc32(cell.variant.name.encode())))


def _value(fitted: ratings.Ratings | None, name: str, i: int) -> float | None:
    if fitted is None:
        return None
    x = float(getattr(fitted, name)[i])
    return x if np.isfinite(x) else None
