"""The plain-games kind of run: every cell (variant x player count) played from its stored
games to ``scenario.games`` in batches, and how to recompute one stored game.

A game is a pure function of (rules, seats, seed, game index), so a resumed run equals an
uninterrupted one row for row, whatever the batch sizes or threads.

A producer thread drives the engine (``simulate_arrow``: Arrow tables built straight from the
kernel's reused output buffers) and hands batches over a queue of one; the calling thread stores
each batch (``store.write_batch``, one transaction per batch, DuckDB scanning the Arrow columns in
place) while the engine plays the next (on more than one CPU: ``batches_in_flight``). DuckDB
releases the GIL while it inserts and the batch kernel is compiled with ``nogil=True``, so the
two overlap (on 2 cores the engine's threads and DuckDB's then share the CPU).

Memory stays flat: at most ``batches_in_flight()`` batches' tables exist at once (the engine
starts a batch only when the writer has stored the one before last), plus each engine
thread's reused kernel rows and the parts in flight (``engine._parts``: ``STEP_ROUNDS``,
``PART_SEAT_ROWS``, ``PARTS_AHEAD``), and a batch holds at most ``MAX_BATCH_SEAT_ROWS``
round-seat rows (150,000 rounds at 4 players, about 30 MB of tables);
DuckDB's own memory is capped by ``store.open_store``.

Batch sizes adapt to about ``TARGET_BATCH_SECONDS`` of engine time (measured games/s) within
that cap, so a stop request is honoured within a second or two; ``UNOSTATS_BATCH_GAMES`` (or
``batch_games=``) fixes the size instead.
"""

from __future__ import annotations

import os
import queue
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import store
from ..base import precision
from ..base.engine_cache import prepare_engine
from ..base.handover import BatchThread
from ..base.memory import give_back_large_blocks
from ..base.progress import Progress
from ..base.session import RunOutcome, Tally, cell_label, playing
from ..base.signals import StopRequest
from ..scenario import Cell, Scenario
from ..seats import Seat

TARGET_BATCH_SECONDS = 1.0
FIRST_BATCH_GAMES = 1_000
MIN_BATCH_GAMES = 100
MAX_BATCH_GAMES = 500_000
# Round-seat rows per batch at most (adaptive sizes): enough for DuckDB to write the rounds too
# in whole row groups (122,880 rows) straight to the file, where larger batches cost less CPU a
# round, and few enough to keep the peak memory of a run under its 400 MB target
# (docs/performance.md, "Batch sizes").
MAX_BATCH_SEAT_ROWS = 600_000
BATCHES_IN_FLIGHT = 2  # one being stored, one being played (or waiting to be stored)


def batches_in_flight() -> int:
    """``BATCHES_IN_FLIGHT`` when the process may run on more than one CPU; one on a single CPU
    (``taskset -c 0``, a one-CPU container), where playing the next batch while this one is
    stored gains nothing and the two threads taking turns on the core evict each other's
    caches (docs/performance.md, "Batch sizes")."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this system (macOS, Windows)
        cpus = os.cpu_count() or 1
    return BATCHES_IN_FLIGHT if cpus > 1 else 1


def games_requested(scenario: Scenario) -> int:
    """Games over all cells."""
    return scenario.games * len(list(scenario.cells()))


def plan(scenario: Scenario) -> str:
    """What a new run plays, for its first log line (and that it counts how rounds play)."""
    n = len(list(scenario.cells()))
    counting = ", counting how each round plays" if scenario.how_it_plays else ""
    if scenario.precision:
        targets = ", ".join(f"{stat} ±{h:g}" for stat, h in scenario.precision)
        return (f"{n} cell{'s' * (n != 1)} x up to {scenario.games:,} games until {targets} "
                f"(looks at {', '.join(f'{g:,}' for g in precision.looks(scenario.games))})"
                f"{counting}")
    return f"{n} cell{'s' * (n != 1)} x {scenario.games:,} games{counting}"


def outline(scenario: Scenario) -> str:
    """What ``validate`` says a scenario plays: its cells (a sweep's points among them)."""
    n_var, n_pl = len(scenario.variants), len(scenario.players)
    if scenario.points:
        n_cells, n_pt = len(list(scenario.cells())), len(scenario.points)
        return (f"{n_var} variant{'s' * (n_var != 1)} x sweep = {n_pt} point"
                f"{'s' * (n_pt != 1)}, {n_cells} cell{'s' * (n_cells != 1)}; --resolved "
                "lists them")
    if scenario.skill is not None:
        n_r = len(scenario.skill.rungs)
        return (f"{n_var} variant{'s' * (n_var != 1)} x {n_pl} player count"
                f"{'s' * (n_pl != 1)} x {n_r} rungs of the skill ladder = "
                f"{n_var * n_pl * n_r} cells")
    return (f"{n_var} variant{'s' * (n_var != 1)} x {n_pl} player count{'s' * (n_pl != 1)} = "
            f"{n_var * n_pl} cell{'s' * (n_var * n_pl != 1)}")


def replay_args(con, run_id: str, scenario: Scenario, cell: Cell,
                game: int) -> tuple[tuple[Seat, ...], int, int]:
    """How stored game ``game`` of ``cell`` is recomputed: (seats, seed, game index)."""
    return cell.seats, scenario.seed, game


# --- Playing a run -----------------------------------------------------------------------------

@dataclass
class _Job:
    index: int
    cell: Cell
    first: int  # first game to play
    end: int  # one past the last game
    # precision targets: the game counts still to look at (the last is ``end``), each a stop
    # where the engine waits for the consumer's decision
    looks: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Look:
    """The producer has handed over every batch of ``job`` up to ``games``: continue or stop?"""

    job: _Job
    games: int


def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None) -> RunOutcome:
    """Play every cell of ``outcome.scenario`` from its stored games to the end (or until
    ``stop``); ``batch_size`` fixes the games per batch (None: adaptive)."""
    scenario = outcome.scenario
    stop = stop or StopRequest()
    give_back_large_blocks()
    jobs = plan_cells(con, outcome, progress)
    producer = _Producer(jobs, seed=scenario.seed, threads=threads, batch_games=batch_size,
                         how_it_plays=scenario.how_it_plays,
                         totals=store.run_keep(con, outcome.run_id) != "rows")

    def halt() -> None:
        producer.halt()
        producer.join()

    with playing(con, outcome, progress=progress, stop=stop, tally=tally, halt=halt) as session:
        prepare_engine(progress, [v.rules for v in scenario.variants],
                       how_it_plays=scenario.how_it_plays)
        session.start_clock()  # the run's time and rate leave the compile out
        for job in jobs:
            if job is next(j for j in jobs if j.index == job.index):  # a cell's first job
                progress.cell_started(str(job.index), cell_label(job.cell), job.first,
                                      scenario.games)
        producer.start()
        for item in producer.items(stop):
            if isinstance(item, _Look):
                producer.decisions.put(_look(con, outcome, item.job, item.games, progress))
                continue
            job, lo, hi, batch, rate = item
            store.write_batch(con, outcome.run_id, job.cell.variant.name, job.cell.players,
                              batch)
            outcome.games_played += hi - lo
            outcome.games_completed += hi - lo
            outcome.rounds_played += batch.round_count()
            del batch, item
            producer.stored()
            progress.batch_stored(str(job.index), cell_label(job.cell), lo, hi - 1, hi,
                                  scenario.games, rate)
        if producer.finished:
            session.status = "complete"
    return outcome


def tally(outcome: RunOutcome) -> Tally:
    """What a session of plain games did, for the line that ends it."""
    return Tally("games stored", f"{outcome.games_played:,} games", outcome.games_played,
                 "games", ",.0f")


def plan_cells(con, outcome: RunOutcome, progress: Progress) -> list[_Job]:
    """What is left to play of each cell: the game ranges not stored (a Parquet store may have
    gaps, so a cell may have several), or - precision targets - the games from the stored
    ones on, with the looks still ahead (the passed ones taken again)."""
    scenario = outcome.scenario
    jobs = []
    for i, cell in enumerate(scenario.cells()):
        if not scenario.precision:  # the games not stored (a Parquet store may have gaps)
            ranges = store.missing_ranges(con, outcome.run_id, cell.variant.name, cell.players,
                                          scenario.games)
            jobs += [_Job(i, cell, lo, hi) for lo, hi in ranges] or [
                _Job(i, cell, scenario.games, scenario.games)]
            continue
        first = store.completed_games(con, outcome.run_id, cell.variant.name, cell.players)
        job = _Job(i, cell, first, scenario.games)
        _looks_so_far(con, outcome, job, progress)
        jobs.append(job)
    return jobs


class _Producer(BatchThread):
    """Plays the jobs' games in batches on its own thread and puts
    (job, first, end, batch, games_per_s) on ``queue``, then None; an exception is put as is."""

    def __init__(self, jobs: Sequence[_Job], *, seed: int, threads: int | None,
                 batch_games: int | None, how_it_plays: bool, totals: bool) -> None:
        super().__init__("unostats-engine", batches_in_flight())
        self.jobs = jobs
        self.seed = seed
        self.how_it_plays = how_it_plays  # count how each round plays (the scenario's key)
        self.totals = totals  # the games' totals, not their rounds' rows (a run keeping less)
        self.threads = threads
        self.fixed = batch_games
        self.decisions: queue.Queue = queue.Queue()  # the consumer's answers to each _Look
        self._batches_seen = 0

    def run(self) -> None:
        try:
            for job in self.jobs:
                if not self._play_job(job):
                    return
            self._put(None)
        except BaseException as e:  # handed to the consumer, which re-raises it
            self._put(e)

    def _play_job(self, job: _Job) -> bool:
        if not job.looks:
            return self._play_range(job, job.first, job.end)
        lo = job.first
        for stop in job.looks:  # play to each look, then wait for the consumer's decision
            if not self._play_range(job, lo, stop) or not self._put(_Look(job, stop)):
                return False
            while True:
                try:
                    go_on = self.decisions.get(timeout=0.1)
                    break
                except queue.Empty:
                    if self._halt.is_set():
                        return False
            if not go_on:
                return True
            lo = stop
        return True

    def _play_range(self, job: _Job, lo: int, end: int) -> bool:
        from ..engine.simulate import simulate_arrow

        size = self.fixed or FIRST_BATCH_GAMES
        rate: float | None = None  # games/s of this cell, smoothed
        games_seen = rounds_seen = 0
        while lo < end:
            # The writer thread overlaps the engine: no look-ahead (and its second buffers).
            batches = simulate_arrow(
                rules=job.cell.variant.rules, players=job.cell.players, seats=job.cell.seats,
                games=end - lo, seed=self.seed, first_game=lo, threads=self.threads,
                batch_games=size, ahead=False, how_it_plays=self.how_it_plays,
                totals=self.totals)
            for batch in _timed(batches, self._take_room, self._room.release):
                if self._halt.is_set():
                    batches.close()
                    return False
                batch, seconds = batch
                n = len(batch.games)
                games_seen, rounds_seen = games_seen + n, rounds_seen + batch.round_count()
                measured = n / max(seconds, 1e-6)
                if self._batches_seen > 0:  # the first batch of a process may include compiling
                    rate = measured if rate is None else 0.5 * rate + 0.5 * measured
                self._batches_seen += 1
                if not self._put((job, lo, lo + n, batch, measured)):
                    batches.close()
                    return False
                del batch  # the queue holds it now: memory stays bounded
                lo += n
                if self.fixed or rate is None:
                    continue
                # the largest table's rows a game: its round seats, or (its games' totals
                # instead) its game seats
                rows_per_game = job.cell.players * (
                    1 if self.totals else rounds_seen / max(games_seen, 1))
                most = MAX_BATCH_SEAT_ROWS / max(rows_per_game, 1)
                want = int(min(MAX_BATCH_GAMES, most, max(MIN_BATCH_GAMES,
                                                          rate * TARGET_BATCH_SECONDS)))
                if want > 2 * size or want < size // 2:  # resize: restart the stream at lo
                    size = want
                    batches.close()
                    break
            if self._halt.is_set():  # halted while waiting for room
                batches.close()
                return False
        return True


# --- Precision targets -------------------------------------------------------------------------

def _look(con, outcome: RunOutcome, job: _Job, games: int, progress: Progress) -> bool:
    """Look at a cell's intervals after ``games`` games (all stored), record the look, and say
    whether to play on (to the next look)."""
    scenario = outcome.scenario
    targets = scenario.precision
    cap = scenario.games
    look = precision.looks(cap).index(games)
    estimates = precision.cell_estimates(con, outcome.run_id, job.cell.variant.name,
                                         job.cell.players, games, [s for s, _ in targets])
    store.record_looks(con, outcome.run_id, job.cell.variant.name, job.cell.players, look,
                       games, [(stat, target, estimates[stat].value,
                                precision.half_width(estimates[stat])) for stat, target in targets])
    done = precision.met(estimates, targets) or games >= cap
    if done:
        progress.log(f"{cell_label(job.cell)}: "
                     f"{precision.describe_stop(estimates, targets, games, cap)}")
    return not done


def _looks_so_far(con, outcome: RunOutcome, job: _Job, progress: Progress) -> None:
    """A resumed cell: the looks its stored games have passed are taken again (the same games
    decide the same), so it stops where the uninterrupted run stopped; the rest are ahead."""
    ahead = []
    for games in precision.looks(outcome.scenario.games):
        if games > job.first:
            ahead.append(games)
        elif not _look(con, outcome, job, games, progress):
            job.end = job.first  # it stopped at this look: nothing more to play
            return
    job.looks = tuple(ahead)


def _timed(batches: Iterator[Any], take: Callable[[], bool],
           give_back: Callable[[], None]) -> Iterator[tuple[Any, float]]:
    """(item, seconds spent producing it) for each item of ``batches``, each made once
    ``take()`` returns True (False: stop); the end of ``batches`` gives its room back."""
    while take():
        t0 = time.perf_counter()
        try:
            item = next(batches)
        except StopIteration:
            give_back()
            return
        yield item, time.perf_counter() - t0
        item = None  # not held while the next one is made

