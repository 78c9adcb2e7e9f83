"""Starting and resuming runs: a scenario's cells played and stored, with signals, resume and
progress. Keyword-only functions, usable from a notebook::

    from unostats.base.progress import ConsoleProgress
    from unostats.runs.simulate import simulate
    from unostats.games.summary import format_summary, summaries
    from unostats.scenario import load_scenario
    outcome = simulate(scenario=load_scenario("scenarios/standard.yaml"), db="u.duckdb",
                       games=500, progress=ConsoleProgress())
    print(format_summary(summaries(db="u.duckdb", run_ids=[outcome.run_id])))

How a run goes:

1. ``simulate`` resolves the seed (argument, else the scenario's, else a random one that is
   stored), records the run and its cells (``store.start_run``, with the rows its kind adds) and
   hands it to the driver of its kind (``kinds.kind_of``): plain games (``games.driver``) or whole
   tournaments (``tournaments.driver``, where ``batch_games`` counts tournaments). ``resume`` takes
   the scenario from the stored run and hands it to the same driver, which plays every cell from
   what is stored. A game is a pure function of (rules, seats, seed, game index), so a resumed run
   equals an uninterrupted one row for row, whatever the batch sizes or threads.
   ``executor`` (e.g. ``executors.ray.driver.RayExecutor``) plays the run elsewhere instead of the
   kind's own driver: it ``check``s the kind and ``connect``s before anything is stored, then
   ``play``s like a kind's driver; either executor resumes the other's runs.
2. The driver stores whole batches (one transaction each) and checks ``stop`` between them:
   SIGINT/SIGTERM (``signals.stop_on_signals``) only set it, so the run ends ``interrupted`` with
   its batches kept, and ``RunOutcome.signal`` says which signal stopped it.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import duckdb

from .. import store
from ..kinds import kind_of
from ..scenario import GAMES_MAX, Scenario
from ..base.progress import Progress
from ..base.session import (
    RunError,
    RunOutcome,
    batch_size,
    check_db,
    check_threads,
    locate,
    resolve_run,
    stored_scenario,
    versions,
)
from ..base.signals import StopRequest

TOTAL_MAX = 2**63 - 1  # games of a run, over every cell (a BIGINT column)


def prepare(scenario: Scenario, *, seed: int | None = None, games: int | None = None,
            choose_seed: bool = True) -> tuple[Scenario, bool]:
    """The scenario as it will be stored: ``games`` per cell and the seed (argument, else the
    file's, else - with ``choose_seed`` - a random one) applied.
    Returns (scenario, seed_was_chosen)."""
    if games is not None:
        if not 1 <= games <= GAMES_MAX:
            raise RunError(f"--games must be from 1 to {GAMES_MAX:,} (10^12), got {games:,}",
                           exit_code=2)
        scenario = scenario.with_games(games)
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
             stop: StopRequest | None = None, command: str | None = None,
             executor: Any = None, keep: str | None = None) -> RunOutcome:
    """Start a new run of ``scenario`` in ``db`` and play it to the end (or until ``stop``).
    ``keep``: what it stores of its games (``store.keep.KEEPS``; None: its kind's default)."""
    scenario, chosen = prepare(scenario, seed=seed, games=games)
    progress = progress or Progress()
    db = locate(db)
    check_db(db)
    check_threads(threads)
    batch_games = batch_size(batch_games)
    kind = kind_of(scenario)
    _check_store_kind(db, kind)
    keep = _check_keep(db, kind, keep)
    cells = list(scenario.cells())
    _connect(executor, kind, progress)
    with _writing(db) as con:
        requested = kind.games_requested(scenario)
        if requested > TOTAL_MAX:  # DuckDB's BIGINT; checked before anything is stored
            raise RunError(f"{requested:,} games in all is more than a run can count "
                           f"({TOTAL_MAX:,}); play fewer games per cell or fewer cells",
                           exit_code=2)
        # the rows the kind adds to a new run, in start_run's transaction
        on_start = None if kind.record is None else partial(kind.record, scenario=scenario)
        run_id = store.start_run(
            con, command=command or "unostats.runs.simulate.simulate()", seed=scenario.seed,
            games_requested=requested, scenario_name=scenario.name,
            scenario_text=scenario.source_text, scenario_json=scenario.canonical_json(),
            scenario_hash=scenario.hash(),
            variants=[{"variant": c.variant.name, "players": c.players,
                       "rules_json": c.variant.rules.canonical_json(),
                       "rules_hash": c.variant.rules.hash(),
                       "description": c.variant.description, "sweep": c.sweep}
                      for c in cells],
            versions=versions(), on_start=on_start, keep=keep)
        where = f" ({scenario.source_path})" if scenario.source_path else ""
        chosen_text = " (chosen at random; stored with the run)" if chosen else ""
        outcome = RunOutcome(run_id=run_id, db=db, scenario=scenario, status="running",
                             games_requested=requested, games_completed=0,
                             seed_chosen=chosen)
        kept = "" if keep == "rows" else f", keeping {keep}"
        progress.log(f"run {run_id}: scenario {scenario.name!r}{where}, {kind.plan(scenario)}, "
                     f"seed {scenario.seed}{chosen_text}, {_where(db)}{kept}")
        return _play(con, db, kind, outcome, executor, threads=threads,
                     batch_size=batch_games, progress=progress, stop=stop)


def resume(*, run: str, db: str | os.PathLike | None = None, scenario: Scenario | None = None,
           threads: int | None = None, batch_games: int | None = None,
           progress: Progress | None = None, stop: StopRequest | None = None,
           executor: Any = None, keep: str | None = None) -> RunOutcome:
    """Continue an interrupted run (id, unique prefix or 'latest') from its stored games.

    The scenario is the stored one. If ``scenario`` is given (e.g. the file named again on the
    command line, with its seed and games applied) its canonical hash must match the stored hash;
    a scenario without a seed takes the stored seed first. ``keep``, if given, must be what the
    run keeps."""
    progress = progress or Progress()
    db = locate(db)
    check_db(db, resume=True)
    check_threads(threads)
    batch_games = batch_size(batch_games)
    with _writing(db) as con:
        run_id = resolve_run(con, run)
        info = store.run_info(con, run_id)
        if info["status"] == "complete":
            raise RunError(f"run {run_id} is already complete; nothing to resume", exit_code=2)
        from ..engine import ENGINE_VERSION
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
        kind = kind_of(stored)
        _check_store_kind(db, kind)
        kept = info.get("keep") or "rows"
        if keep is not None and keep != kept:
            raise RunError(f"run {run_id} keeps {kept} ({store.KEPT[kept]}); it cannot be "
                           f"resumed with --keep {keep}: resume it without --keep (or with "
                           f"--keep {kept}), or start a new run", exit_code=2)
        _connect(executor, kind, progress)
        store.resume_run(con, run_id)
        outcome = RunOutcome(run_id=run_id, db=db, scenario=stored, status="running",
                             games_requested=info["games_requested"],
                             games_completed=sum(c["games_completed"] for c in info["cells"]))
        progress.log(f"resuming {kind.label} {run_id}: scenario {stored.name!r}, "
                     f"{outcome.games_completed:,} of {outcome.games_requested:,} "
                     f"{kind.games_label} stored, seed {stored.seed}, {_where(db)}")
        return _play(con, db, kind, outcome, executor, threads=threads,
                     batch_size=batch_games, progress=progress, stop=stop)


def _where(db) -> str:
    return f"store {db}" if store.is_parquet(db) else f"db {db}"


def _check_store_kind(db, kind) -> None:
    """A Parquet store holds plain games (a tournament's or a league's own tables are written
    whole by one writer, which the DuckDB file is)."""
    if store.is_parquet(db) and not kind.parquet:
        raise RunError(f"--store {db}: a Parquet store holds plain games, not {kind.label}s; "
                       f"store {kind.label}s in a DuckDB file (--db FILE)", exit_code=2)


def _check_keep(db, kind, keep: str | None) -> str:
    """What a new run keeps: ``keep``, or its kind's default; one its kind keeps, and rows in a
    Parquet store."""
    if keep is None:
        keep = "rows" if store.is_parquet(db) else kind.keeps[0]
    if keep not in store.KEEPS:
        raise RunError(f"--keep {keep!r}: expected one of {', '.join(store.KEEPS)}",
                       exit_code=2)
    if keep not in kind.keeps:
        raise RunError(f"--keep {keep}: a {kind.label} keeps {', '.join(kind.keeps)} only "
                       "(its tables are written from every row)", exit_code=2)
    if keep != "rows" and store.is_parquet(db):
        raise RunError(f"--keep {keep}: a Parquet store (--store {db}) keeps rows only; keep "
                       f"{keep} in a DuckDB file (--db FILE)", exit_code=2)
    return keep


@contextmanager
def _writing(db: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """The store open for a run's writes, closed at the end (a failing close said as a RunError,
    unless an error is already on its way)."""
    con = store.open_store(db, read_only=False)
    try:
        yield con
    except BaseException:
        _close(con, db, quiet=True)
        raise
    _close(con, db)


def _connect(executor: Any, kind, progress: Progress) -> None:
    """An executor other than the local one: it plays this kind, and its cluster is reached."""
    if executor is not None:
        executor.check(kind)
        executor.connect(progress)


def _play(con, db: Path, kind, outcome: RunOutcome, executor: Any, **play) -> RunOutcome:
    """Play the run's kind (on ``executor``, if given) to the end (or the stop), a failing
    write said in one sentence."""
    with _store_failures(db, outcome):
        return (kind.play if executor is None else executor.play)(con, outcome, **play)


@contextmanager
def _store_failures(db: Path, outcome: RunOutcome) -> Iterator[None]:
    """A write that fails mid-run (a full disk, a file made read-only, an I/O error) is one
    sentence: the batches committed before it are whole and kept, and the run resumes."""
    try:
        yield
    except (duckdb.Error, OSError) as e:
        reason = " ".join(str(e).strip().splitlines()[0].split()) if str(e).strip() else repr(e)
        if isinstance(e, OSError) and e.errno is not None:
            reason = store.write_problem(
                e, db if isinstance(db, Path) else Path(db.path(store.parquet.MARKER)))
        raise RunError(f"writing {db} failed: {reason}. The batches stored before are kept "
                       f"({outcome.games_completed:,} of {outcome.games_requested:,} games); "
                       f"free space or fix the file, then: {outcome.resume_command}") from None


def _close(con, db: Path, *, quiet: bool = False) -> None:
    try:
        con.close()
    except (duckdb.Error, OSError) as e:
        if quiet:
            return  # an error is already on its way; this one adds nothing  # the last checkpoint failed: the WAL keeps the batches
        raise RunError(f"closing {db} failed: {' '.join(str(e).split())[:300]}; the stored "
                       "batches are in its write-ahead log and the next open replays it") from None


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
