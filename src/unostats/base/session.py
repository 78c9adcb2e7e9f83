"""What every kind of run shares: its errors, its outcome, the options of a session (database,
threads, batch size), the stored scenario of a run, and a session of play (``playing``: the
skeleton of every kind's ``play``, from its status to the end of the session).

Errors meant for the user are ``RunError`` (exit code 2 for usage problems such as an unknown run
id or a scenario that does not match the stored run, 1 otherwise), ``store.StoreError`` and
``scenario.ScenarioError``.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from .. import store
from ..defaults import DB_ENV
from ..scenario import Cell, Scenario, ScenarioError, load_text
from ..version import __version__
from .progress import Progress
from .signals import StopRequest, is_interrupt

BATCH_GAMES_ENV = "UNOSTATS_BATCH_GAMES"


class RunError(Exception):
    """An expected problem with a run, phrased for the user; ``exit_code`` 2 = usage, 1 = other."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def default_db() -> Path:
    """$UNOSTATS_DB, else ./unostats.duckdb."""
    return Path(os.environ.get(DB_ENV) or store.DEFAULT_DB)


def locate(db: str | os.PathLike | store.ParquetLocation | None) -> Path | store.ParquetLocation:
    """The store a run or a reader uses: a Parquet store (``store.ParquetLocation``) as it is,
    a file name as a Path, None as ``default_db()``."""
    if db is None:
        return default_db()
    return db if store.is_parquet(db) else Path(db)


def check_db(db: str | os.PathLike, *, resume: bool = False) -> None:
    """The database a run writes must keep it: not DuckDB's in-memory database (the games
    would be played, then thrown away), and, to resume, a file that exists (a resume creates
    nothing)."""
    if store.is_parquet(db):
        if resume and not store.parquet.stored_runs_exist(db):
            raise RunError(f"no Parquet results store at {db.uri}: there is no run to resume "
                           "(nothing was created); check --store", exit_code=2)
        return
    if store.is_memory(db):
        raise RunError(f"--db {db}: an in-memory database keeps nothing, so the games would be "
                       "played and thrown away; give a file name", exit_code=2)
    if resume and not Path(db).exists():
        raise RunError(f"no results database at {db}: there is no run to resume (nothing was "
                       "created); check --db or $UNOSTATS_DB", exit_code=2)


# --- Outcome -----------------------------------------------------------------------------------

@dataclass
class RunOutcome:
    run_id: str
    db: Path | store.ParquetLocation  # the results file, or a Parquet store
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
    resume_options: tuple[str, ...] = ()  # added to the resume command (the executor's)

    @property
    def resume_command(self) -> str:
        where = (f"--store {shlex.quote(str(self.db))}" if store.is_parquet(self.db)
                 else f"--db {shlex.quote(str(self.db))}")
        extra = "".join(f" {shlex.quote(o)}" for o in self.resume_options)
        return f"unostats simulate --resume {self.run_id} {where}{extra}"


class Tally(NamedTuple):
    """What a session did, in its kind's words, for the line that ends it."""

    stored: str  # what an interrupted run has stored: "games stored"
    played: str  # what the session played: "1,000 games"
    count: int  # what the rate counts ...
    unit: str  # ... and its unit: "games"
    rate_format: str  # e.g. ",.0f"


def end_session(con, outcome: RunOutcome, status: str, *, started: float, progress: Progress,
                tally: Tally) -> None:
    """The end of a session of play (a kind's ``play``, ``started`` at that
    ``time.perf_counter()``): the outcome's time and status, the run closed in the store, then
    the warning with the command that resumes it or the line that says it is complete."""
    outcome.seconds = time.perf_counter() - started
    outcome.status = status
    try:
        progress.close()
        store.finish_run(con, outcome.run_id, status=status)
    except BaseException as e:
        if not is_interrupt(e):
            raise
        # A Ctrl-C in the run's last write: the run stays 'running', which the next writer
        # (and every reader meanwhile) takes for interrupted; its stored batches are whole.
        outcome.status = "interrupted"
        _say_interrupted(outcome, progress, tally)
        raise KeyboardInterrupt from None
    if status != "complete":
        _say_interrupted(outcome, progress, tally)
        return
    rate = tally.count / outcome.seconds if outcome.seconds > 0 else 0.0
    progress.log(f"run {outcome.run_id} complete: {tally.played}, {outcome.rounds_played:,} "
                 f"rounds in {outcome.seconds:.1f} s ({rate:{tally.rate_format}} {tally.unit}/s)")


@dataclass
class Playing:
    """A session of play under way: its status so far and when its clock started."""

    status: str = "interrupted"  # "complete" once every game is played
    started: float = field(default_factory=time.perf_counter)

    def start_clock(self) -> None:
        """The run's time and rate count from here (the engine's compile, a cluster's start-up
        left out)."""
        self.started = time.perf_counter()


@contextmanager
def playing(con, outcome: RunOutcome, *, progress: Progress, stop: StopRequest,
            tally: Callable[[RunOutcome], Tally],
            halt: Callable[[], None] | None = None) -> Iterator[Playing]:
    """The skeleton every kind's ``play`` shares, so that each says only how it plays.

    The body sets ``status`` to "complete" when it played everything; a stop request that
    ended it early gives the outcome its signal, and a Ctrl-C (also one DuckDB said as its own
    error) its SIGINT. The session then ends (``end_session``) before ``halt`` stops the
    kind's threads, so a Ctrl-C during the halt still finds the run marked."""
    session = Playing()
    try:
        yield session
        if session.status != "complete" and stop.requested:
            outcome.signal = stop.signum
    except BaseException as e:
        if not is_interrupt(e):
            raise
        outcome.signal = signal.SIGINT
        raise KeyboardInterrupt from None
    finally:
        try:
            end_session(con, outcome, session.status, started=session.started,
                        progress=progress, tally=tally(outcome))
        finally:
            if halt is not None:
                halt()


def _say_interrupted(outcome: RunOutcome, progress: Progress, tally: Tally) -> None:
    progress.warn(f"run {outcome.run_id} interrupted: {outcome.games_completed:,} of "
                  f"{outcome.games_requested:,} {tally.stored}. Resume with: "
                  f"{outcome.resume_command}")


# --- Options -----------------------------------------------------------------------------------

def numba_module():
    """Numba, once $NUMBA_NUM_THREADS is known to hold: Numba's import fails on a value below 1
    with a traceback (a value that is not a number it ignores, with a warning)."""
    text = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    try:
        below_one = int(text) < 1
    except ValueError:
        below_one = False
    if text and below_one:
        raise RunError(f"NUMBA_NUM_THREADS={text!r}: the engine needs at least 1 thread; set it "
                       "to a whole number from 1, or unset it to use every core", exit_code=2)
    import numba
    return numba


def check_threads(threads: int | None) -> None:
    if threads is None:
        return
    numba = numba_module()
    available = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= available:
        raise RunError(f"--threads must be from 1 to {available} (NUMBA_NUM_THREADS), "
                       f"got {threads}", exit_code=2)


def batch_size(given: int | None) -> int | None:
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


def versions() -> dict[str, str]:
    numba = numba_module()

    from ..engine import ENGINE_VERSION
    return {"unostats_version": __version__, "engine_version": str(ENGINE_VERSION),
            "numba_version": numba.__version__}


# --- Stored runs -------------------------------------------------------------------------------

def resolve_run(con, ref: str | None) -> str:
    """The run id ``ref`` names (id, unique prefix, 'latest' or None), or a usage RunError."""
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


def cell_label(cell: Cell) -> str:
    return f"{cell.variant.name} {cell.players}p"
