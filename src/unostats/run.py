"""Simulation runs: a scenario's cells played in batches and stored, with signals, resume,
progress and the end-of-run summary. Keyword-only functions, usable from a notebook::

    from unostats import run
    from unostats.scenario import load_scenario
    outcome = run.simulate(scenario=load_scenario("scenarios/standard.yaml"), db="u.duckdb",
                           games=500, progress=run.ConsoleProgress())
    print(run.format_summary(run.summaries(db="u.duckdb", run_ids=[outcome.run_id])))

A scenario with a ``tournament:`` section is played by ``tournament_run.play`` instead (whole
tournaments per batch, the same stop/resume contract); ``batch_games`` then counts tournaments.

How a run goes:

1. ``simulate`` resolves the seed (argument, else the scenario's, else a random one that is
   stored), records the run and its cells (``store.start_run``) and plays every cell from game 0.
   ``resume`` takes the scenario from the stored run and plays every cell from
   ``store.completed_games``. A game is a pure function of (rules, seats, seed, game index), so a
   resumed run equals an uninterrupted one row for row, whatever the batch sizes or threads.
2. A producer thread drives the engine (``simulate_batches``) and hands batches over a queue of
   one; the calling thread stores each batch (``store.write_batch``, one transaction per batch)
   while the engine computes the next. DuckDB releases the GIL while it inserts and the batch
   kernel is compiled with ``nogil=True``, so the two overlap (on 2 cores the engine's threads
   and DuckDB's then share the CPU).
3. Batch sizes adapt to about ``TARGET_BATCH_SECONDS`` of engine time (measured games/s), so a
   stop request is honoured within a second or two; ``UNOSTATS_BATCH_GAMES`` (or
   ``batch_games=``) fixes the size instead.
4. SIGINT/SIGTERM (``stop_on_signals``) only set a flag: the batch being stored is committed, the
   run is marked ``interrupted`` and ``RunOutcome.signal`` says which signal stopped it. A second
   Ctrl-C interrupts at once (the batch being written is rolled back). A killed process leaves
   whole batches only; the next writer marks its run interrupted.

Errors meant for the user are ``RunError`` (exit code 2 for usage problems such as an unknown run
id or a scenario that does not match the stored run, 1 otherwise), ``store.StoreError`` and
``scenario.ScenarioError``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import queue
import re
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from . import __version__, codes, store
from .output import format_rows
from .scenario import Cell, Scenario, ScenarioError, load_text

DB_ENV = "UNOSTATS_DB"
BATCH_GAMES_ENV = "UNOSTATS_BATCH_GAMES"
TARGET_BATCH_SECONDS = 1.0
FIRST_BATCH_GAMES = 1_000
MIN_BATCH_GAMES = 100
MAX_BATCH_GAMES = 500_000
COMPILE_MESSAGE = "compiling the engine (first run only, ~30 s)..."


class RunError(Exception):
    """An expected problem with a run, phrased for the user; ``exit_code`` 2 = usage, 1 = other."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def default_db() -> Path:
    """$UNOSTATS_DB, else ./unostats.duckdb."""
    return Path(os.environ.get(DB_ENV) or store.DEFAULT_DB)


# --- Stopping ----------------------------------------------------------------------------------

class StopRequest:
    """A stop flag checked between batches; ``signum`` is the signal that set it (or None)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.signum: int | None = None

    def request(self, signum: int | None = None) -> None:
        if not self._event.is_set():
            self.signum = signum
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    @property
    def exit_code(self) -> int:
        """The shell convention for a process stopped by a signal: 128 + signal number."""
        return 128 + self.signum if self.signum else 1


@contextmanager
def stop_on_signals(stop: StopRequest,
                    notify: Callable[[str], None] | None = None) -> Iterator[StopRequest]:
    """SIGINT and SIGTERM set ``stop`` instead of raising; a second SIGINT raises
    KeyboardInterrupt. Handlers are installed only in the main thread and restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum, frame):
        if stop.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.request(signum)
        if notify is not None:
            notify(f"{signal.Signals(signum).name}: stopping after the batch being stored"
                   + (" (Ctrl-C again to stop at once)" if signum == signal.SIGINT else ""))

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


# --- Progress ----------------------------------------------------------------------------------

class Progress:
    """What a run reports while it goes. This base class is silent; see ConsoleProgress."""

    def log(self, text: str) -> None:
        """An informational line (quiet mode drops it)."""

    def warn(self, text: str) -> None:
        """A line that must be seen even in quiet mode (interruptions, how to resume)."""

    def cell_started(self, key: str, label: str, done: int, total: int,
                     unit: str = "games") -> None: ...

    def batch_stored(self, key: str, label: str, first: int, last: int, done: int, total: int,
                     games_per_s: float, unit: str = "games") -> None: ...

    def close(self) -> None: ...


class ConsoleProgress(Progress):
    """Progress on stderr with rich: one bar per cell (games done/total, games/s, ETA).

    ``bar`` defaults to "stderr is a terminal and not quiet". ``verbose`` prints one line per
    stored batch (what tests and logs watch)."""

    def __init__(self, *, quiet: bool = False, verbose: bool = False, bar: bool | None = None,
                 console: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(stderr=True)
        self.quiet = quiet
        self.verbose = verbose
        self.bar = (not quiet and self.console.is_terminal) if bar is None else bar
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def _print(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def log(self, text: str) -> None:
        if not self.quiet:
            self._print(text)

    def warn(self, text: str) -> None:
        self._print(text)

    def cell_started(self, key: str, label: str, done: int, total: int,
                     unit: str = "games") -> None:
        if not self.bar:
            return
        if self._progress is None:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bars,
                                       TextColumn, TimeRemainingColumn)
            self._progress = Bars(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"), TextColumn("{task.fields[rate]}"),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=self.console, transient=False)
            self._progress.start()
        self._tasks[key] = self._progress.add_task(label, total=total, completed=done, rate="",
                                                   unit=unit)

    def batch_stored(self, key: str, label: str, first: int, last: int, done: int, total: int,
                     games_per_s: float, unit: str = "games") -> None:
        if self.verbose:
            rate = f"{games_per_s:,.0f}" if unit == "games" else f"{games_per_s:,.1f}"
            self._print(f"stored batch: {label} {unit} {first}..{last} ({done}/{total}, "
                        f"{rate} {unit}/s)")
        if self._progress is not None and key in self._tasks:
            self._progress.update(self._tasks[key], completed=done,
                                  rate=f"{games_per_s:,.0f}/s")

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
            self._tasks = {}


# --- Outcome -----------------------------------------------------------------------------------

@dataclass
class RunOutcome:
    run_id: str
    db: Path
    scenario: Scenario  # as stored: seed resolved
    status: str  # "complete" | "interrupted"
    games_requested: int
    games_completed: int  # over the whole run, including earlier sessions
    games_played: int = 0  # in this session
    rounds_played: int = 0
    seconds: float = 0.0  # wall time of this session's simulation loop
    signal: int | None = None  # the signal that interrupted it
    seed_chosen: bool = False  # the seed was drawn at random (nobody gave one)
    tournaments_played: int = 0  # in this session (tournament scenarios)

    @property
    def is_tournament(self) -> bool:
        return self.scenario.tournament is not None

    @property
    def resume_command(self) -> str:
        return f"unostats simulate --resume {self.run_id} --db {_shell_quote(str(self.db))}"


def _shell_quote(text: str) -> str:
    import shlex
    return shlex.quote(text)


# --- Running -----------------------------------------------------------------------------------

def prepare(scenario: Scenario, *, seed: int | None = None, games: int | None = None,
            choose_seed: bool = True) -> tuple[Scenario, bool]:
    """The scenario as it will be stored: ``games`` per cell and the seed (argument, else the
    file's, else - with ``choose_seed`` - a random one) applied.
    Returns (scenario, seed_was_chosen)."""
    if games is not None:
        if games < 1:
            raise RunError(f"--games must be >= 1, got {games}", exit_code=2)
        scenario = dataclasses.replace(scenario, games=games)
    chosen = False
    if seed is None:
        seed = scenario.seed
    if seed is None:
        if not choose_seed:
            return scenario, False
        seed = secrets.randbelow(2**32)
        chosen = True
    if not 0 <= seed < 2**63:
        raise RunError(f"the seed must be from 0 to {2**63 - 1}, got {seed}", exit_code=2)
    return scenario.with_seed(seed), chosen


def simulate(*, scenario: Scenario, db: str | os.PathLike | None = None, seed: int | None = None,
             games: int | None = None, threads: int | None = None,
             batch_games: int | None = None, progress: Progress | None = None,
             stop: StopRequest | None = None, command: str | None = None) -> RunOutcome:
    """Start a new run of ``scenario`` in ``db`` and play it to the end (or until ``stop``)."""
    scenario, chosen = prepare(scenario, seed=seed, games=games)
    progress = progress or Progress()
    db = Path(db) if db is not None else default_db()
    _check_threads(threads)
    batch_games = _batch_games(batch_games)
    cells = list(scenario.cells())
    con = store.open_store(db, read_only=False)
    try:
        requested = scenario.games * len(cells)
        on_start = None
        if scenario.tournament is not None:
            from . import tournament_run
            requested = tournament_run.games_requested(scenario)

            def on_start(con, run_id):
                tournament_run.start_fields(con, run_id, scenario)
        run_id = store.start_run(
            con, command=command or "unostats.run.simulate()", seed=scenario.seed,
            games_requested=requested, scenario_name=scenario.name,
            scenario_text=scenario.source_text, scenario_json=scenario.canonical_json(),
            scenario_hash=scenario.hash(),
            variants=[{"variant": c.variant.name, "players": c.players,
                       "rules_json": c.variant.rules.canonical_json(),
                       "rules_hash": c.variant.rules.hash(),
                       "description": c.variant.description} for c in cells],
            versions=_versions(), on_start=on_start)
        where = f" ({scenario.source_path})" if scenario.source_path else ""
        chosen_text = " (chosen at random; stored with the run)" if chosen else ""
        outcome = RunOutcome(run_id=run_id, db=db, scenario=scenario, status="running",
                             games_requested=requested, games_completed=0,
                             seed_chosen=chosen)
        if scenario.tournament is not None:
            n_cells = len(scenario.variants) * len(scenario.tournament.fields)
            progress.log(f"run {run_id}: scenario {scenario.name!r}{where}, {n_cells} "
                         f"tournament cell{'s' * (n_cells != 1)} (variant x field) x "
                         f"{scenario.games:,} tournaments ({requested:,} table games), seed "
                         f"{scenario.seed}{chosen_text}, db {db}")
            return tournament_run.play(con, outcome, threads=threads,
                                       batch_tournaments=batch_games, progress=progress,
                                       stop=stop)
        plural = "s" * (len(cells) != 1)
        progress.log(f"run {run_id}: scenario {scenario.name!r}{where}, {len(cells)} "
                     f"cell{plural} x {scenario.games:,} games, seed {scenario.seed}"
                     f"{chosen_text}, db {db}")
        return _play(con, outcome, {}, threads=threads, batch_games=batch_games,
                     progress=progress, stop=stop)
    finally:
        con.close()


def resume(*, run: str, db: str | os.PathLike | None = None, scenario: Scenario | None = None,
           threads: int | None = None, batch_games: int | None = None,
           progress: Progress | None = None, stop: StopRequest | None = None) -> RunOutcome:
    """Continue an interrupted run (id, unique prefix or 'latest') from its stored games.

    The scenario is the stored one. If ``scenario`` is given (e.g. the file named again on the
    command line, with its seed and games applied) its canonical hash must match the stored hash;
    a scenario without a seed takes the stored seed first."""
    progress = progress or Progress()
    db = Path(db) if db is not None else default_db()
    _check_threads(threads)
    batch_games = _batch_games(batch_games)
    con = store.open_store(db, read_only=False)
    try:
        run_id = _resolve_run(con, run)
        info = store.run_info(con, run_id)
        if info["status"] == "complete":
            raise RunError(f"run {run_id} is already complete; nothing to resume", exit_code=2)
        from .engine import ENGINE_VERSION
        if str(info["engine_version"]) != str(ENGINE_VERSION):
            raise RunError(
                f"run {run_id} was played by engine version {info['engine_version']}, but this "
                f"unostats has engine version {ENGINE_VERSION}, which plays different games; "
                "start a new run instead")
        stored = stored_scenario(info)
        if scenario is not None:
            if scenario.seed is None:
                scenario = scenario.with_seed(info["seed"])
            if scenario.hash() != info["scenario_hash"]:
                raise RunError(_mismatch_message(run_id, scenario, stored), exit_code=2)
        store.resume_run(con, run_id)
        done = {(c["variant"], c["players"]): c["games_completed"] for c in info["cells"]}
        outcome = RunOutcome(run_id=run_id, db=db, scenario=stored, status="running",
                             games_requested=info["games_requested"],
                             games_completed=sum(done.values()))
        if stored.tournament is not None:
            from . import tournament_run
            progress.log(f"resuming tournament run {run_id}: scenario {stored.name!r}, "
                         f"{outcome.games_completed:,} of {outcome.games_requested:,} table "
                         f"games stored, seed {stored.seed}, db {db}")
            return tournament_run.play(con, outcome, threads=threads,
                                       batch_tournaments=batch_games, progress=progress,
                                       stop=stop)
        progress.log(f"resuming run {run_id}: scenario {stored.name!r}, "
                     f"{outcome.games_completed:,} of {outcome.games_requested:,} games stored, "
                     f"seed {stored.seed}, db {db}")
        return _play(con, outcome, done, threads=threads, batch_games=batch_games,
                     progress=progress, stop=stop)
    finally:
        con.close()


def _resolve_run(con, ref: str | None) -> str:
    try:
        return store.resolve_run_id(con, ref)
    except store.StoreError as e:
        raise RunError(str(e), exit_code=2) from None


def stored_scenario(info: dict[str, Any]) -> Scenario:
    """The resolved Scenario of a stored run (from its canonical JSON, checked by its hash)."""
    try:
        scenario = load_text(info["scenario_json"], f"run {info['run_id']} (stored scenario)")
    except ScenarioError as e:
        raise RunError(f"the stored scenario of run {info['run_id']} no longer loads with this "
                       f"unostats: {e}") from None
    if scenario.hash() != info["scenario_hash"]:
        raise RunError(f"the stored scenario of run {info['run_id']} resolves differently with "
                       "this unostats (hash mismatch); start a new run")
    return dataclasses.replace(scenario, source_text=info.get("scenario_text") or "")


def _mismatch_message(run_id: str, given: Scenario, stored: Scenario) -> str:
    paths = list(_differences(given.resolved(), stored.resolved()))
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    where = str(given.source_path) if given.source_path else "the given scenario"
    return (f"{where} does not match run {run_id}: it differs in "
            f"{shown or 'its resolved form'} (hash {given.hash()}, stored {stored.hash()}). "
            "Resume without FILE to use the stored scenario, or pass the same "
            "--set/--games/--seed options as the original run")


def _differences(a: Any, b: Any, path: str = "") -> Iterator[str]:
    """Key paths (``variants[0].rules.hand_size``) where two resolved scenarios differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            yield from _differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _differences(x, y, f"{path}[{i}]")
    elif a != b:
        yield path or "(everything)"


def _check_threads(threads: int | None) -> None:
    if threads is None:
        return
    import numba
    available = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= available:
        raise RunError(f"--threads must be from 1 to {available} (NUMBA_NUM_THREADS), "
                       f"got {threads}", exit_code=2)


def _versions() -> dict[str, str]:
    import numba

    from .engine import ENGINE_VERSION
    return {"unostats_version": __version__, "engine_version": str(ENGINE_VERSION),
            "numba_version": numba.__version__}


def cell_label(cell: Cell) -> str:
    return f"{cell.variant.name} {cell.players}p"


@dataclass
class _Job:
    index: int
    cell: Cell
    first: int  # first game to play
    end: int  # one past the last game


def _play(con, outcome: RunOutcome, done: dict[tuple[str, int], int], *, threads: int | None,
          batch_games: int | None, progress: Progress, stop: StopRequest | None) -> RunOutcome:
    scenario = outcome.scenario
    stop = stop or StopRequest()
    jobs = []
    for i, cell in enumerate(scenario.cells()):
        first = done.get((cell.variant.name, cell.players), 0)
        jobs.append(_Job(i, cell, first, scenario.games))
    producer = _Producer(jobs, seed=scenario.seed, threads=threads, batch_games=batch_games)
    started = time.perf_counter()
    status = "interrupted"
    try:
        global _compile_message_shown
        announce_compilation(progress)
        for job in jobs:
            progress.cell_started(str(job.index), cell_label(job.cell), job.first,
                                  scenario.games)
        producer.start()
        waited_since = time.perf_counter()
        while not stop.requested:
            try:
                item = producer.queue.get(timeout=0.1)
            except queue.Empty:
                if (not _compile_message_shown and outcome.games_played == 0
                        and time.perf_counter() - waited_since > 3.0):
                    progress.log(COMPILE_MESSAGE)  # the cache probe missed a compilation
                    _compile_message_shown = True
                continue
            if stop.requested:
                break
            if item is None:
                status = "complete"
                break
            if isinstance(item, BaseException):
                raise item
            job, lo, hi, batch, rate = item
            store.write_batch(con, outcome.run_id, job.cell.variant.name, job.cell.players,
                              batch)
            outcome.games_played += hi - lo
            outcome.games_completed += hi - lo
            outcome.rounds_played += batch.rounds.height
            progress.batch_stored(str(job.index), cell_label(job.cell), lo, hi - 1, hi,
                                  scenario.games, rate)
        if stop.requested and status != "complete":
            outcome.signal = stop.signum
    except KeyboardInterrupt:
        outcome.signal = signal.SIGINT
        raise
    finally:
        producer.halt()
        try:
            end_session(con, outcome, status, started=started, progress=progress)
        finally:
            producer.join()
    return outcome


_compile_message_shown = False  # once per process


def announce_compilation(progress: Progress) -> None:
    """Say once per process that the engine is about to be compiled (if its cache is cold)."""
    global _compile_message_shown
    if not _compile_message_shown and engine_cache_is_warm() is False:
        progress.log(COMPILE_MESSAGE)
        _compile_message_shown = True


def end_session(con, outcome: RunOutcome, status: str, *, started: float,
                progress: Progress) -> None:
    """The end of a session of play (``_play`` or ``tournament_run.play``, ``started`` at that
    ``time.perf_counter()``): the outcome's time and status, the run closed in the store, then
    the warning with the command that resumes it or the line that says it is complete."""
    outcome.seconds = time.perf_counter() - started
    progress.close()
    outcome.status = status
    store.finish_run(con, outcome.run_id, status=status)
    tournament = outcome.is_tournament
    if status != "complete":
        stored = "table games stored (whole tournaments)" if tournament else "games stored"
        progress.warn(f"run {outcome.run_id} interrupted: {outcome.games_completed:,} of "
                      f"{outcome.games_requested:,} {stored}. Resume with: "
                      f"{outcome.resume_command}")
        return
    if tournament:
        played = (f"{outcome.tournaments_played:,} tournaments, "
                  f"{outcome.games_played:,} table games")
        count, unit, rate_format = outcome.tournaments_played, "tournaments", ",.1f"
    else:
        played = f"{outcome.games_played:,} games"
        count, unit, rate_format = outcome.games_played, "games", ",.0f"
    rate = count / outcome.seconds if outcome.seconds > 0 else 0.0
    progress.log(f"run {outcome.run_id} complete: {played}, {outcome.rounds_played:,} rounds "
                 f"in {outcome.seconds:.1f} s ({rate:{rate_format}} {unit}/s)")


def _batch_games(given: int | None) -> int | None:
    """A fixed batch size: the argument, else $UNOSTATS_BATCH_GAMES, else None (adaptive)."""
    if given is not None:
        if given < 1:
            raise RunError(f"batch_games must be >= 1, got {given}", exit_code=2)
        return given
    text = os.environ.get(BATCH_GAMES_ENV)
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise RunError(f"{BATCH_GAMES_ENV}={text!r}: expected a positive integer", exit_code=2)
    return value


class _Producer(threading.Thread):
    """Plays the jobs' games in batches on its own thread and puts
    (job, first, end, batch, games_per_s) on ``queue``, then None; an exception is put as is."""

    def __init__(self, jobs: Sequence[_Job], *, seed: int, threads: int | None,
                 batch_games: int | None) -> None:
        super().__init__(name="unostats-engine", daemon=True)
        self.jobs = jobs
        self.seed = seed
        self.threads = threads
        self.fixed = batch_games
        self.queue: queue.Queue = queue.Queue(maxsize=1)
        self._halt = threading.Event()
        self._batches_seen = 0

    def halt(self) -> None:
        self._halt.set()
        try:  # unblock a producer waiting to hand over a batch
            while True:
                self.queue.get_nowait()
        except queue.Empty:
            pass

    def join(self, timeout: float | None = None) -> None:
        if self.is_alive() or self.ident is not None:
            super().join(timeout)

    def _put(self, item: Any) -> bool:
        while not self._halt.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run(self) -> None:
        try:
            for job in self.jobs:
                if not self._play_job(job):
                    return
            self._put(None)
        except BaseException as e:  # handed to the consumer, which re-raises it
            self._put(e)

    def _play_job(self, job: _Job) -> bool:
        from .engine.simulate import simulate_batches

        lo = job.first
        size = self.fixed or FIRST_BATCH_GAMES
        rate: float | None = None  # games/s of this cell, smoothed
        while lo < job.end:
            batches = simulate_batches(
                rules=job.cell.variant.rules, players=job.cell.players, seats=job.cell.seats,
                games=job.end - lo, seed=self.seed, first_game=lo, threads=self.threads,
                batch_games=size)
            for batch in _timed(batches):
                if self._halt.is_set():
                    batches.close()
                    return False
                batch, seconds = batch
                n = batch.games.height
                measured = n / max(seconds, 1e-6)
                if self._batches_seen > 0:  # the first batch of a process may include compiling
                    rate = measured if rate is None else 0.5 * rate + 0.5 * measured
                self._batches_seen += 1
                if not self._put((job, lo, lo + n, batch, measured)):
                    batches.close()
                    return False
                lo += n
                if self.fixed or rate is None:
                    continue
                want = int(min(MAX_BATCH_GAMES, max(MIN_BATCH_GAMES,
                                                    rate * TARGET_BATCH_SECONDS)))
                if want > 2 * size or want < size // 2:  # resize: restart the stream at lo
                    size = want
                    batches.close()
                    break
        return True


def _timed(batches: Iterator[Any]) -> Iterator[tuple[Any, float]]:
    """(item, seconds spent producing it) for each item of ``batches``."""
    while True:
        t0 = time.perf_counter()
        try:
            item = next(batches)
        except StopIteration:
            return
        yield item, time.perf_counter() - t0


def engine_cache_is_warm(kernel: str = "_play_batch") -> bool | None:
    """Whether Numba's on-disk cache holds ``kernel`` compiled from the current source (so no
    compilation is due): True/False, or None when the cache cannot be found."""
    try:
        spec = importlib.util.find_spec("unostats.engine._kernels")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    source = Path(spec.origin)
    cache_dirs = [source.parent / "__pycache__"]
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        cache_dirs = [Path(custom)]
    try:
        stamp = source.stat().st_mtime
        found = [p for d in cache_dirs if d.is_dir()
                 for p in d.rglob(f"_kernels.{kernel}-*.nbi")]
    except OSError:
        return None
    if not found:
        writable = not custom and os.access(source.parent, os.W_OK)
        return False if writable else None
    return any(p.stat().st_mtime >= stamp for p in found)


# --- Summary -----------------------------------------------------------------------------------

SUMMARY_COLUMNS = (
    "run_id", "scenario", "variant", "players", "games", "rounds",
    "turns_per_round", "turns_per_round_lo", "turns_per_round_hi",
    "rounds_per_game", "rounds_per_game_lo", "rounds_per_game_hi",
    "p0_win_rate", "p0_win_rate_lo", "p0_win_rate_hi",
    "points_per_round", "points_per_round_lo", "points_per_round_hi",
    "capped_rounds",
)

# Everything filtered to one run before it meets a view, so a file with many runs stays fast.
_SUMMARY_SQL = """
WITH cells AS (
  SELECT v.run_id, r.scenario_name, v.variant, v.players
  FROM variants v JOIN runs r ON r.run_id = v.run_id WHERE v.run_id = $run_id
)
SELECT c.run_id, c.scenario_name, c.variant, c.players,
  coalesce(gl.n, 0) AS games, coalesce(rl.n, 0) AS rounds,
  rl.mean_turns, rl.se_turns, gl.mean_rounds, gl.se_rounds,
  w.wins AS p0_wins, w.n AS won_rounds, w.lo AS p0_lo, w.hi AS p0_hi,
  p.mean_points, p.se_points, coalesce(rl.n_capped, 0) AS capped
FROM cells c
LEFT JOIN (SELECT * FROM round_length WHERE run_id = $run_id) rl
  USING (run_id, variant, players)
LEFT JOIN (SELECT * FROM game_length WHERE run_id = $run_id) gl
  USING (run_id, variant, players)
LEFT JOIN (SELECT * FROM win_rate_by_position WHERE run_id = $run_id AND position = 0) w
  USING (run_id, variant, players)
LEFT JOIN (
  -- score_spread's definition of points per round (rounds with a winner), run-filtered first
  SELECT variant, players, avg(points) AS mean_points,
    stddev_samp(points) / sqrt(count(*)) AS se_points
  FROM rounds WHERE run_id = $run_id AND ended_by = 'win' GROUP BY variant, players
) p USING (variant, players)
"""


def summary_rows(con, run_id: str) -> list[dict[str, Any]]:
    """One dict per cell of the run (``SUMMARY_COLUMNS``), in the scenario's cell order, with
    95% intervals: means +- 1.96 SE, the position-0 round win rate with Wilson bounds."""
    from .stats import mean_interval, wilson_interval

    rows = con.execute(_SUMMARY_SQL, {"run_id": run_id}).fetchall()
    info = store.run_info(con, run_id)
    order = {}
    try:
        for i, cell in enumerate(stored_scenario(info).cells()):
            order[(cell.variant.name, cell.players)] = i
    except RunError:
        pass
    out = []
    for (rid, scen, variant, players, games, rounds, mean_turns, se_turns, mean_rounds,
         se_rounds, p0_wins, won, _lo, _hi, mean_points, se_points, capped) in rows:
        turns = mean_interval(*_mean_se(mean_turns, se_turns), rounds)
        per_game = mean_interval(*_mean_se(mean_rounds, se_rounds), games)
        p0 = wilson_interval(int(p0_wins or 0), int(won or 0))
        points = mean_interval(*_mean_se(mean_points, se_points), won)
        out.append(dict(zip(SUMMARY_COLUMNS, (
            rid, scen, variant, players, games, rounds,
            turns.value, turns.lo, turns.hi, per_game.value, per_game.lo, per_game.hi,
            p0.value, p0.lo, p0.hi, points.value, points.lo, points.hi, capped))))
    out.sort(key=lambda r: (order.get((r["variant"], r["players"]), len(order)),
                            r["variant"], r["players"]))
    return out


def _mean_se(mean: float | None, se: float | None) -> tuple[float, float]:
    return (math.nan if mean is None else float(mean)), (math.nan if se is None else float(se))


def summaries(*, db: str | os.PathLike | None = None, run_ids: Sequence[str]
              ) -> list[dict[str, Any]]:
    """``summary_rows`` of several runs, read from ``db`` opened read-only."""
    con = store.open_store(Path(db) if db is not None else default_db(), read_only=True)
    try:
        return [row for rid in run_ids for row in summary_rows(con, rid)]
    finally:
        con.close()


def format_summary(rows: Sequence[dict[str, Any]], fmt: str = "table",
                   width: int | None = None) -> str:
    """The summary as text; the table shows each estimate as 'value [lo, hi]'."""
    if fmt != "table":
        return format_rows(SUMMARY_COLUMNS, [[r[c] for c in SUMMARY_COLUMNS] for r in rows], fmt)
    columns = ("run", "variant", "players", "games", "rounds", "turns/round [95% CI]",
               "rounds/game [95% CI]", "pos-0 round wins [95% CI]", "points/round [95% CI]")
    table = [[r["run_id"], r["variant"], r["players"], r["games"], r["rounds"],
              format_interval(r["turns_per_round"], r["turns_per_round_lo"],
                              r["turns_per_round_hi"]),
              format_interval(r["rounds_per_game"], r["rounds_per_game_lo"],
                              r["rounds_per_game_hi"]),
              format_interval(r["p0_win_rate"], r["p0_win_rate_lo"], r["p0_win_rate_hi"]),
              format_interval(r["points_per_round"], r["points_per_round_lo"],
                              r["points_per_round_hi"])]
             for r in rows]
    return format_rows(columns, table, "table", width=width)


def format_interval(value: float, lo: float, hi: float) -> str:
    """'12.34 [12.10, 12.58]': two significant digits of the half-width, as stats.Estimate."""
    if value is None or not math.isfinite(value):
        return "-"
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return f"{value:.3g}"
    half = (hi - lo) / 2
    digits = 3 if half <= 0 else max(0, min(10, 1 - math.floor(math.log10(half))))
    return f"{value:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


# --- Replay ------------------------------------------------------------------------------------

@dataclass
class Replay:
    run_id: str
    variant: str
    players: int
    game: int
    trace_text: str  # format_trace, all rounds or the requested one
    mismatches: list[str] = field(default_factory=list)  # empty: the stored rows agree
    referee_error: str | None = None  # the referee rejected the recomputed game


def replay(*, game: int, run: str | None = None, db: str | os.PathLike | None = None,
           variant: str | None = None, players: int | None = None,
           round: int | None = None, progress: Progress | None = None) -> Replay:
    """Recompute one stored game from the run's scenario and seed, check it with the referee
    and compare the referee's numbers with the stored rows of that game."""
    con = store.open_store(Path(db) if db is not None else default_db(), read_only=True)
    try:
        run_id = _resolve_run(con, run)
        info = store.run_info(con, run_id)
        scenario = stored_scenario(info)
        cell = _pick_cell(scenario, run_id, variant, players)
        stored_games = next((c["games_completed"] for c in info["cells"]
                             if c["variant"] == cell.variant.name
                             and c["players"] == cell.players), 0)
        if not 0 <= game < stored_games:
            raise RunError(f"game {game} is not stored for {cell_label(cell)} of run {run_id}: "
                           f"stored games are 0..{stored_games - 1}"
                           if stored_games else
                           f"run {run_id} has no stored games for {cell_label(cell)}",
                           exit_code=2)
        stored = _stored_game(con, run_id, cell, game)
        seats, seed, index = cell.seats, scenario.seed, game
        if scenario.tournament is not None:  # a table's game: its seats and its own seed
            from .store import tournaments as tournament_store
            table = tournament_store.table_of_game(con, run_id, cell.variant.name,
                                                   cell.players, game)
            if table is None:
                raise RunError(f"game {game} of {cell_label(cell)} in run {run_id} belongs to "
                               "no tournament table", exit_code=1)
            seats = tuple(scenario.tournament.seat(p) for p in table["profiles"])
            seed, index = int(table["game_seed"]), 0
    finally:
        con.close()

    from .engine.referee import RefereeError, check_trace, format_trace
    from .engine.simulate import trace_game

    if engine_cache_is_warm("_play_games") is False and progress is not None:
        progress.log(COMPILE_MESSAGE)
    trace = trace_game(rules=cell.variant.rules, players=cell.players, seats=seats,
                       seed=seed, game=index)
    text = format_trace(trace)
    n_rounds = stored["games"][0]["rounds"] if stored["games"] else 0
    if round is not None:
        if not 1 <= round <= max(n_rounds, 1):
            raise RunError(f"game {game} has rounds 1..{n_rounds}, not {round}", exit_code=2)
        prefix = f"r{round} "
        text = "\n".join(line for line in text.splitlines() if line.startswith(prefix))
    result = Replay(run_id, cell.variant.name, cell.players, game, text)
    try:
        checked = check_trace(trace)
    except RefereeError as e:
        result.referee_error = f"the referee rejects the recomputed game: {e}"
        return result
    except NotImplementedError as e:
        result.referee_error = f"the referee cannot check this game: {e}"
        return result
    result.mismatches = compare_game(checked, stored)
    return result


def _pick_cell(scenario: Scenario, run_id: str, variant: str | None,
               players: int | None) -> Cell:
    cells = list(scenario.cells())
    chosen = [c for c in cells if (variant is None or c.variant.name == variant)
              and (players is None or c.players == players)]
    if len(chosen) == 1:
        return chosen[0]
    listing = ", ".join(cell_label(c) for c in cells)
    if not chosen:
        asked = " ".join(x for x in (f"variant {variant!r}" if variant else "",
                                     f"players {players}" if players else "") if x)
        raise RunError(f"run {run_id} has no cell with {asked}; its cells: {listing}",
                       exit_code=2)
    which = "cells"
    if len(chosen) < len(cells):
        listing = ", ".join(cell_label(c) for c in chosen)
        which = "cells that match"
    raise RunError(f"run {run_id} has {len(chosen)} {which} ({listing}); say which with "
                   "--variant NAME --players N", exit_code=2)


def _stored_game(con, run_id: str, cell: Cell, game: int) -> dict[str, list[dict[str, Any]]]:
    out = {}
    order = {"games": "game", "game_seats": "seat", "rounds": "round",
             "round_seats": "round, seat"}
    for table, by in order.items():
        cur = con.execute(
            f"SELECT * FROM {table} WHERE run_id = ? AND variant = ? AND players = ? "
            f"AND game = ? ORDER BY {by}", [run_id, cell.variant.name, cell.players, game])
        names = [d[0] for d in cur.description]
        out[table] = [dict(zip(names, row)) for row in cur.fetchall()]
    return out


_ROUND_FIELDS = ("dealer_seat", "first_seat", "winner_seat", "winner_position",
                 *codes.COUNTER_NAMES, "points", "ended_by")


def compare_game(result: Any, stored: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Differences between the referee's GameResult and the stored rows of one game."""
    problems = []
    rounds = stored["rounds"]
    if len(result.rounds) != len(rounds):
        problems.append(f"rounds: the referee counts {len(result.rounds)}, "
                        f"the store has {len(rounds)}")
    seats_by_round: dict[int, list[dict]] = {}
    for row in stored["round_seats"]:
        seats_by_round.setdefault(row["round"], []).append(row)
    for ref, row in zip(result.rounds, rounds):
        for name in ("round", *_ROUND_FIELDS):
            if getattr(ref, name) != row[name]:
                problems.append(f"round {row['round']} {name}: referee {getattr(ref, name)!r}, "
                                f"stored {row[name]!r}")
        seat_rows = seats_by_round.get(row["round"], [])
        for name in ("cards_left", "hand_points", "score_after"):
            stored_values = tuple(s[name] for s in seat_rows)
            if getattr(ref, name) != stored_values:
                problems.append(f"round {row['round']} {name}: referee {getattr(ref, name)}, "
                                f"stored {stored_values}")
    if stored["games"]:
        g = stored["games"][0]
        if result.winner_seat != g["winner_seat"]:
            problems.append(f"game winner_seat: referee {result.winner_seat!r}, "
                            f"stored {g['winner_seat']!r}")
        if result.ended_by != g["ended_by"]:
            problems.append(f"game ended_by: referee {result.ended_by!r}, "
                            f"stored {g['ended_by']!r}")
        if sum(r.turns for r in result.rounds) != g["turns"]:
            problems.append(f"game turns: referee {sum(r.turns for r in result.rounds)}, "
                            f"stored {g['turns']}")
    finals = tuple(s["final_score"] for s in stored["game_seats"])
    if result.final_scores != finals:
        problems.append(f"final scores: referee {result.final_scores}, stored {finals}")
    return problems


# --- Query, listings, export -------------------------------------------------------------------

@dataclass
class QueryResult:
    columns: list[str]
    types: list[str]  # DuckDB type names, e.g. "BIGINT", "JSON"
    rows: list[tuple]


def run_sql(con, sql: str, params: dict[str, Any] | None = None) -> QueryResult:
    """Run SQL (named parameters as $name); the last statement's rows as Python values (no
    DataFrame conversion, so every DuckDB type prints). Errors become one-line RunErrors."""
    try:
        rel = store.sql_relation(con, sql, params)
        if rel is None:
            return QueryResult([], [], [])
        return QueryResult(list(rel.columns), [str(t) for t in rel.types], rel.fetchall())
    except store.StoreError as e:
        raise RunError(str(e)) from None
    except duckdb.Error as e:  # raised while fetching rows
        raise RunError(one_line(str(e))) from None


def one_line(message: str) -> str:
    """A DuckDB error as one line: the LINE/caret excerpt dropped, the other lines joined."""
    lines = [ln.strip() for ln in message.strip().splitlines()]
    return " ".join(ln for ln in lines if ln and not ln.startswith("LINE ") and set(ln) != {"^"})


def query(*, sql: str, params: dict[str, Any] | None = None,
          db: str | os.PathLike | None = None) -> QueryResult:
    """``run_sql`` on ``db`` opened read-only."""
    con = store.open_store(Path(db) if db is not None else default_db(), read_only=True)
    try:
        return run_sql(con, sql, params)
    finally:
        con.close()


def export(*, run: str | None, out: str | os.PathLike, fmt: str = "parquet",
           db: str | os.PathLike | None = None) -> list[Path]:
    """Write one run's rows of every table to ``out``/<table>.<fmt> (parquet or csv)."""
    if fmt not in ("parquet", "csv"):
        raise RunError(f"unknown export format {fmt!r}; allowed: parquet, csv", exit_code=2)
    con = store.open_store(Path(db) if db is not None else default_db(), read_only=True)
    try:
        run_id = _resolve_run(con, run)
        try:
            return store.export_run(con, run_id, out, fmt)
        except (OSError, duckdb.Error) as e:
            raise RunError(f"cannot export run {run_id} to {out}: {one_line(str(e))}") from None
    finally:
        con.close()


RUNS_SQL = """
SELECT run_id, scenario_name AS scenario, status,
  strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started,
  games_requested, games_completed, seed
FROM runs ORDER BY started_at, run_id
"""
