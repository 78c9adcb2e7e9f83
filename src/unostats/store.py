"""The DuckDB results store: schema, bulk writes per batch, standard views and clean opens.

One file holds every run. ``simulate`` is the only writer; everything else opens read-only.

Tables (logical keys in brackets; see ``TABLES`` for the columns):

- ``meta`` [key]: ``schema_version``.
- ``runs`` [run_id]: provenance, status and progress of one ``unostats simulate``.
- ``variants`` [run_id, variant, players]: the resolved rules of each cell of a run.
- ``games`` [run_id, variant, players, game], ``game_seats`` [... game, seat],
  ``rounds`` [... game, round], ``round_seats`` [... game, round, seat]: the engine's frames
  (``engine.simulate``), with the cell columns added on insert.
- Tournament runs add ``tournament_fields``, ``tournament_stages``, ``tournaments``,
  ``tournament_tables`` and ``tournament_entrants`` with their views: see ``tournament_store``.

Integrity without indexes: DuckDB maintains an ART index per primary key on every insert.
Measured on 1M rounds + 4M round_seats (+ games, game_seats; 7.5M rows, 2 shared cores, batches
of 100k rounds): no results-table keys ~1.5-2.4M rows/s and a 45 MB file; keys on all four
tables ~0.7-0.9M rows/s and 300 MB; keys on games and game_seats only ~1.5M rows/s and 98 MB.
So only ``meta``, ``runs`` and ``variants`` carry primary keys. The results tables stay unique by
construction: ``write_batch`` accepts a batch only if its games continue the cell exactly where
the stored games end and every frame stays inside those games; ``duplicate_keys`` checks the
logical keys (tests use it).

Atomicity: each batch is one transaction (its four tables plus ``runs.games_completed``), so a
killed writer leaves only whole batches and a resume continues from ``completed_games``. Batches
of >= ~100k rows per table are much faster (DuckDB writes them straight to the file instead of the
WAL): 20k-round batches run at ~0.8M rows/s.

Concurrency: DuckDB lets one process write a file, and a writer excludes all readers. The writer
keeps its connection for the whole run; a reader gets a one-line ``StoreError`` naming the
writer's pid. (Reopening per batch would let readers in, at ~0.1 s per batch plus a reconnect
retry loop, and a long reader would stall the simulation; not worth it.) A run left 'running' by
a killed process is marked 'interrupted' by the next writer to open the file, which holds the
only write lock and therefore knows that process is gone.
"""

from __future__ import annotations

import json
import os
import platform
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from .codes import COUNTER_NAMES
from .stats import Z95  # the SQL Wilson macros use the same z as stats.wilson_interval

# 2: rounds.jump_ins; 3: tournament tables; 4: the issue-5 round counters,
# rounds.loser_seat, game_seats.is_loser and round_seats.hands_emptied; 5: round_seats.finish_place
# (R9).
SCHEMA_VERSION = 5
DEFAULT_DB = "unostats.duckdb"
RUN_STATUSES = ("running", "complete", "interrupted")



class StoreError(Exception):
    """An expected problem with the results database, phrased as one line for the user."""


class UnknownRunError(StoreError):
    """A run reference that names no run, or several (a usage error for the CLI)."""


# --- Schema ------------------------------------------------------------------------------------

# Columns of the engine's frames: (name, DuckDB type, nullable). Compact types where the rule
# table's bounds allow (seats <= 10); INTEGER/BIGINT where caps reach millions (max_turns,
# max_rounds). Frames may use any narrower dtype: inserts CAST, and overflow fails the batch.
_CELL = (("run_id", "VARCHAR", False), ("variant", "VARCHAR", False),
         ("players", "SMALLINT", False))

FRAME_COLUMNS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "games": (
        ("game", "INTEGER", False),
        ("rounds", "INTEGER", False),
        ("turns", "BIGINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("margin", "INTEGER", True),
        ("ended_by", "VARCHAR", False),
    ),
    "game_seats": (
        ("game", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("policy", "VARCHAR", False),
        ("final_score", "INTEGER", False),
        ("rank", "SMALLINT", False),
        ("is_winner", "BOOLEAN", False),
        ("is_loser", "BOOLEAN", False),
    ),
    "rounds": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("dealer_seat", "SMALLINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("winner_position", "SMALLINT", True),
        *((name, "INTEGER", False) for name in COUNTER_NAMES),
        ("points", "INTEGER", False),
        ("ended_by", "VARCHAR", False),
        ("loser_seat", "SMALLINT", True),
    ),
    "round_seats": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("position", "SMALLINT", False),
        ("cards_left", "INTEGER", False),
        ("hand_points", "INTEGER", False),
        ("score_after", "INTEGER", False),
        ("hands_emptied", "SMALLINT", False),
        ("finish_place", "SMALLINT", True),
    ),
}

# Logical keys of the results tables (documented and checked by tests, not indexed).
RESULT_KEYS = {
    "games": ("run_id", "variant", "players", "game"),
    "game_seats": ("run_id", "variant", "players", "game", "seat"),
    "rounds": ("run_id", "variant", "players", "game", "round"),
    "round_seats": ("run_id", "variant", "players", "game", "round", "seat"),
}
_CHECKS = {"games": ("ended_by IN ('target', 'cap')",), "rounds": ("ended_by IN ('win', 'cap')",)}

RUN_COLUMNS = (
    "run_id", "started_at", "finished_at", "resumed_at", "status", "command", "seed",
    "games_requested", "games_completed", "scenario_name", "scenario_text", "scenario_json",
    "scenario_hash", "unostats_version", "engine_version", "numba_version", "duckdb_version",
    "python_version", "elapsed_s", "pid",
)
VERSION_KEYS = ("unostats_version", "engine_version", "numba_version", "duckdb_version",
                "python_version")


def table_ddl(table: str, columns: Sequence[tuple[str, str, bool]],
              checks: Sequence[str] = ()) -> str:
    """CREATE TABLE text from (name, DuckDB type, nullable) columns and CHECK conditions
    (the results tables here and the tournament tables of ``tournament_store``)."""
    cols = [f"{n} {t}{'' if null else ' NOT NULL'}" for n, t, null in columns]
    cols += [f"CHECK ({c})" for c in checks]
    return f"CREATE TABLE IF NOT EXISTS {table} (\n  " + ",\n  ".join(cols) + "\n)"


_TABLES_DDL = [
    "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
    """CREATE TABLE IF NOT EXISTS runs (
  run_id VARCHAR PRIMARY KEY,
  started_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ,
  resumed_at TIMESTAMPTZ,            -- last resume; elapsed_s counts running time only
  status VARCHAR NOT NULL CHECK (status IN ('running', 'complete', 'interrupted')),
  command VARCHAR,
  seed BIGINT NOT NULL,
  games_requested BIGINT NOT NULL,   -- total over all cells of the run
  games_completed BIGINT NOT NULL,   -- total over all cells, updated with every batch
  scenario_name VARCHAR,
  scenario_text VARCHAR,             -- the file as written
  scenario_json JSON,                -- resolved, canonical
  scenario_hash VARCHAR,
  unostats_version VARCHAR,
  engine_version VARCHAR,
  numba_version VARCHAR,
  duckdb_version VARCHAR,
  python_version VARCHAR,
  elapsed_s DOUBLE,
  pid INTEGER                        -- process that last ran it
)""",
    """CREATE TABLE IF NOT EXISTS variants (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  rules_json JSON NOT NULL,
  rules_hash VARCHAR NOT NULL,
  description VARCHAR,
  PRIMARY KEY (run_id, variant, players)
)""",
    *(table_ddl(t, _CELL + FRAME_COLUMNS[t], _CHECKS.get(t, ())) for t in FRAME_COLUMNS),
]

# Wilson 95% bounds as SQL macros so views and `unostats query` users share one formula
# (stats.wilson_interval is the Python twin; tests compare them).
_MACROS_DDL = [
    f"""CREATE OR REPLACE MACRO wilson_lo(k, n, z := {Z95}) AS
  CASE WHEN n > 0 THEN
    ((k / n + z * z / (2 * n)) - z * sqrt((k / n) * (1 - k / n) / n + z * z / (4 * n * n)))
    / (1 + z * z / n) END""",
    f"""CREATE OR REPLACE MACRO wilson_hi(k, n, z := {Z95}) AS
  CASE WHEN n > 0 THEN
    ((k / n + z * z / (2 * n)) + z * sqrt((k / n) * (1 - k / n) / n + z * z / (4 * n * n)))
    / (1 + z * z / n) END""",
]

# Quantiles are quantile_cont (linear interpolation, numpy's default); sd is the sample sd.
_VIEWS_DDL = [
    # Turns per round; capped rounds are included (at the cap) and their share is reported.
    """CREATE OR REPLACE VIEW round_length AS
SELECT run_id, variant, players,
  count(*) AS n,
  avg(turns) AS mean_turns,
  stddev_samp(turns) AS sd_turns,
  stddev_samp(turns) / sqrt(count(*)) AS se_turns,
  quantile_cont(turns, 0.10) AS p10,
  quantile_cont(turns, 0.50) AS p50,
  quantile_cont(turns, 0.90) AS p90,
  quantile_cont(turns, 0.99) AS p99,
  max(turns) AS max_turns,
  count(*) FILTER (WHERE ended_by = 'cap') AS n_capped,
  count(*) FILTER (WHERE ended_by = 'cap') / count(*) AS share_capped
FROM rounds
GROUP BY run_id, variant, players""",
    # Who wins a round by position (0 = first player). n = rounds with a winner, so rates sum
    # to 1 and equal positions means 1/players each. Positions without a win show wins = 0.
    """CREATE OR REPLACE VIEW win_rate_by_position AS
WITH cells AS (
  SELECT run_id, variant, players, count(*) FILTER (WHERE ended_by = 'win') AS n
  FROM rounds GROUP BY run_id, variant, players
), slots AS (
  SELECT run_id, variant, players, n, unnest(range(players)) AS position FROM cells
), wins AS (
  SELECT run_id, variant, players, winner_position AS position, count(*) AS wins
  FROM rounds WHERE ended_by = 'win'
  GROUP BY run_id, variant, players, winner_position
)
SELECT s.run_id, s.variant, s.players, CAST(s.position AS SMALLINT) AS position,
  coalesce(w.wins, 0) AS wins, s.n,
  coalesce(w.wins, 0) / s.n AS rate,
  wilson_lo(coalesce(w.wins, 0), s.n) AS lo,
  wilson_hi(coalesce(w.wins, 0), s.n) AS hi
FROM slots s
LEFT JOIN wins w USING (run_id, variant, players, position)
ORDER BY s.run_id, s.variant, s.players, s.position""",
    # Who wins a game by position, a seat's position being its position in round 1 of the game
    # (0 = first player of the game). n = games with a winner.
    """CREATE OR REPLACE VIEW game_win_rate_by_position AS
WITH cells AS (
  SELECT run_id, variant, players, count(*) FILTER (WHERE winner_seat IS NOT NULL) AS n
  FROM games GROUP BY run_id, variant, players
), slots AS (
  SELECT run_id, variant, players, n, unnest(range(players)) AS position FROM cells
), wins AS (
  SELECT gs.run_id, gs.variant, gs.players, rs.position, count(*) AS wins
  FROM game_seats gs
  JOIN round_seats rs
    ON rs.run_id = gs.run_id AND rs.variant = gs.variant AND rs.players = gs.players
   AND rs.game = gs.game AND rs.round = 1 AND rs.seat = gs.seat
  WHERE gs.is_winner
  GROUP BY gs.run_id, gs.variant, gs.players, rs.position
)
SELECT s.run_id, s.variant, s.players, CAST(s.position AS SMALLINT) AS position,
  coalesce(w.wins, 0) AS wins, s.n,
  coalesce(w.wins, 0) / s.n AS rate,
  wilson_lo(coalesce(w.wins, 0), s.n) AS lo,
  wilson_hi(coalesce(w.wins, 0), s.n) AS hi
FROM slots s
LEFT JOIN wins w USING (run_id, variant, players, position)
ORDER BY s.run_id, s.variant, s.players, s.position""",
    # Round points over rounds with a winner; margin over games with a winner; the spread of
    # final scores within a game (sample sd across its seats), averaged over games.
    """CREATE OR REPLACE VIEW score_spread AS
WITH r AS (
  SELECT run_id, variant, players,
    count(*) AS n_rounds, avg(points) AS mean_points, stddev_samp(points) AS sd_points,
    stddev_samp(points) / sqrt(count(*)) AS se_points
  FROM rounds WHERE ended_by = 'win' GROUP BY run_id, variant, players
), g AS (
  SELECT run_id, variant, players,
    count(*) AS n_games, avg(margin) AS mean_margin, stddev_samp(margin) AS sd_margin,
    stddev_samp(margin) / sqrt(count(*)) AS se_margin
  FROM games WHERE winner_seat IS NOT NULL GROUP BY run_id, variant, players
), s AS (
  SELECT run_id, variant, players, avg(score_sd) AS mean_final_score_sd
  FROM (SELECT run_id, variant, players, game, stddev_samp(final_score) AS score_sd
        FROM game_seats GROUP BY run_id, variant, players, game)
  GROUP BY run_id, variant, players
)
SELECT * FROM r FULL JOIN g USING (run_id, variant, players)
  FULL JOIN s USING (run_id, variant, players)
ORDER BY run_id, variant, players""",
    # Rounds and turns per game, over all games (capped ones included, share reported).
    """CREATE OR REPLACE VIEW game_length AS
SELECT run_id, variant, players,
  count(*) AS n,
  avg(rounds) AS mean_rounds,
  stddev_samp(rounds) AS sd_rounds,
  stddev_samp(rounds) / sqrt(count(*)) AS se_rounds,
  quantile_cont(rounds, 0.10) AS p10_rounds,
  quantile_cont(rounds, 0.50) AS p50_rounds,
  quantile_cont(rounds, 0.90) AS p90_rounds,
  quantile_cont(rounds, 0.99) AS p99_rounds,
  avg(turns) AS mean_turns,
  stddev_samp(turns) AS sd_turns,
  stddev_samp(turns) / sqrt(count(*)) AS se_turns,
  quantile_cont(turns, 0.10) AS p10_turns,
  quantile_cont(turns, 0.50) AS p50_turns,
  quantile_cont(turns, 0.90) AS p90_turns,
  quantile_cont(turns, 0.99) AS p99_turns,
  count(*) FILTER (WHERE ended_by = 'cap') / count(*) AS share_capped
FROM games
GROUP BY run_id, variant, players""",
]
VIEWS = ("round_length", "win_rate_by_position", "game_win_rate_by_position", "score_spread",
         "game_length")


# --- Opening -----------------------------------------------------------------------------------

def open_store(path: str | os.PathLike, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the results file. Writing creates it (schema, macros, views) if needed."""
    path = Path(path)
    if read_only and not path.exists():
        raise StoreError(
            f"no results database at {path}; create one with "
            f"`unostats simulate SCENARIO --db {path}`"
        )
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as e:
        raise _open_error(path, e, read_only) from None
    try:
        con.execute("SET TimeZone = 'UTC'")  # show stored UTC instants as UTC
        if read_only:
            _check_readable(con, path)
        else:
            _create_schema(con, path)
            _mark_stale_runs(con)
    except BaseException:
        con.close()
        raise
    return con


def _open_error(path: Path, e: duckdb.Error, read_only: bool) -> StoreError:
    msg = str(e)
    if "lock" in msg.lower():
        pid = re.search(r"PID (\d+)", msg)
        who = f"process {pid.group(1)}" if pid else "another process"
        if read_only:  # readers share the file, so the holder is a writer
            return StoreError(
                f"{path} is being written by {who} (a running `unostats simulate`); DuckDB lets "
                "nobody else open the file meanwhile. Wait for the run to finish, or stop it with "
                "Ctrl-C (it can be resumed with --resume), then retry"
            )
        return StoreError(
            f"{path} is in use by {who} (another unostats command); only one process can write "
            "and it must have the file to itself. Retry when that process has finished"
        )
    if "different configuration" in msg:
        return StoreError(
            f"{path} is already open in this process in {'write' if read_only else 'read-only'} "
            "mode; close that connection first"
        )
    reason = re.sub(r"^[\w ]*Error: ", "", _first_line(msg))  # drop DuckDB's "IO Error: "
    return StoreError(f"cannot open {path} as a DuckDB database: {reason}")


def _first(cur: duckdb.DuckDBPyConnection) -> tuple | None:
    """First row or None. Fetches everything: DuckDB 2 refuses relation queries (con.sql) while
    an execute() result is unread, which fetchone() would leave behind."""
    rows = cur.fetchall()
    return rows[0] if rows else None


def _first_line(msg: str) -> str:
    return msg.strip().splitlines()[0] if msg.strip() else msg


def _stored_version(con: duckdb.DuckDBPyConnection) -> int | None:
    has_meta = con.execute(
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name = 'meta'"
    ).fetchall()[0][0]
    if not has_meta:
        return None
    row = _first(con.execute("SELECT value FROM meta WHERE key = 'schema_version'"))
    return int(row[0]) if row else None


def _check_version(version: int | None, path: Path) -> None:
    if version is not None and version != SCHEMA_VERSION:
        raise StoreError(
            f"{path} has results schema version {version} but this unostats uses version "
            f"{SCHEMA_VERSION}; use the matching unostats version or a new --db file"
        )


def _check_readable(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    version = _stored_version(con)
    if version is None:
        raise StoreError(f"{path} is not a unostats results database (no meta table)")
    _check_version(version, path)


def _create_schema(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    version = _stored_version(con)
    _check_version(version, path)
    if version is None and _has_user_tables(con):
        raise StoreError(f"{path} is a DuckDB file with other tables, not a unostats results "
                         "database; choose another --db file")
    from . import tournament_store  # imports this module: import it late

    with _transaction(con):
        for ddl in (*_TABLES_DDL, *tournament_store.TABLES_DDL, *_MACROS_DDL, *_VIEWS_DDL,
                    *tournament_store.VIEWS_DDL):
            con.execute(ddl)
        con.execute(
            "INSERT INTO meta VALUES ('schema_version', ?) ON CONFLICT DO NOTHING",
            [str(SCHEMA_VERSION)],
        )


def _has_user_tables(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()[0][0] > 0


def _mark_stale_runs(con: duckdb.DuckDBPyConnection) -> None:
    """A run still 'running' from another process died: we hold the only write lock."""
    con.execute(
        "UPDATE runs SET status = 'interrupted' "
        "WHERE status = 'running' AND pid IS DISTINCT FROM ?",
        [os.getpid()],
    )


class _transaction:
    """BEGIN ... COMMIT, or ROLLBACK on any exception (including KeyboardInterrupt)."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con

    def __enter__(self) -> duckdb.DuckDBPyConnection:
        self.con.begin()
        return self.con

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.con.commit()
        else:
            self.con.rollback()


# --- Runs --------------------------------------------------------------------------------------

def _now() -> datetime:
    return datetime.now(UTC)


def _as_json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def start_run(
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str | None = None,
    command: str,
    seed: int,
    games_requested: int,
    scenario_name: str,
    scenario_text: str,
    scenario_json: str | Mapping[str, Any],
    scenario_hash: str,
    variants: Sequence[Mapping[str, Any]],
    versions: Mapping[str, str | None],
    on_start: Callable[[duckdb.DuckDBPyConnection, str], None] | None = None,
) -> str:
    """Record a new run and its cells; returns the run id (8 hex digits unless given).

    ``games_requested`` is the total over all cells. ``variants`` items have variant, players,
    rules_json (text or mapping), rules_hash and description. ``versions`` keys are
    ``VERSION_KEYS``; duckdb_version and python_version are filled in when absent.
    ``on_start(con, run_id)`` adds rows in the same transaction (a tournament run's cells).
    """
    unknown = set(versions) - set(VERSION_KEYS)
    if unknown:
        raise ValueError(f"unknown version keys {sorted(unknown)}; expected {VERSION_KEYS}")
    versions = {"duckdb_version": duckdb.__version__,
                "python_version": platform.python_version(), **versions}
    with _transaction(con):
        if run_id is None:
            run_id = _new_run_id(con)
        elif _first(con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id])):
            raise StoreError(f"run {run_id} already exists in this database")
        con.execute(
            """INSERT INTO runs (run_id, started_at, status, command, seed, games_requested,
                 games_completed, scenario_name, scenario_text, scenario_json, scenario_hash,
                 unostats_version, engine_version, numba_version, duckdb_version, python_version,
                 elapsed_s, pid)
               VALUES (?, ?, 'running', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)""",
            [run_id, _now(), command, seed, games_requested, scenario_name, scenario_text,
             _as_json_text(scenario_json), scenario_hash,
             *(versions.get(k) for k in VERSION_KEYS), os.getpid()],
        )
        for v in variants:
            con.execute(
                "INSERT INTO variants VALUES (?, ?, ?, ?, ?, ?)",
                [run_id, v["variant"], v["players"], _as_json_text(v["rules_json"]),
                 v["rules_hash"], v.get("description")],
            )
        if on_start is not None:
            on_start(con, run_id)
    return run_id


def _new_run_id(con: duckdb.DuckDBPyConnection) -> str:
    while True:  # 32 random bits: a clash is rare, and checked
        run_id = secrets.token_hex(4)
        if not _first(con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id])):
            return run_id


def resume_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """Mark an interrupted run as running again (for --resume); returns its run_info."""
    info = run_info(con, run_id)
    if info["status"] == "complete":
        raise StoreError(f"run {run_id} is complete; nothing to resume")
    con.execute(
        "UPDATE runs SET status = 'running', resumed_at = ?, finished_at = NULL, pid = ? "
        "WHERE run_id = ?",
        [_now(), os.getpid(), run_id],
    )
    return run_info(con, run_id)


def finish_run(con: duckdb.DuckDBPyConnection, run_id: str, *, status: str) -> None:
    """Close a run as 'complete' or 'interrupted'; elapsed_s adds this session's running time."""
    if status not in ("complete", "interrupted"):
        raise ValueError(f"status must be 'complete' or 'interrupted', not {status!r}")
    now = _now()
    updated = con.execute(
        """UPDATE runs SET status = ?, finished_at = ?,
             elapsed_s = coalesce(elapsed_s, 0)
                         + epoch(?::TIMESTAMPTZ - coalesce(resumed_at, started_at))
           WHERE run_id = ? RETURNING run_id""",
        [status, now, now, run_id],
    ).fetchall()
    if not updated:
        raise StoreError(_no_run(run_id))


def _no_run(run_id: str) -> str:
    return f"no run {run_id!r} in this database; `unostats runs` lists the runs"


# --- Writing batches ---------------------------------------------------------------------------

def write_batch(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                batch: Any) -> None:
    """Store one engine batch (games, game_seats, rounds, round_seats) in one transaction.

    The batch must continue the cell: its games are first..first+k-1 with first equal to
    ``completed_games``; this keeps the unindexed tables free of duplicates and gaps.
    """
    frames = {name: getattr(batch, name) for name in FRAME_COLUMNS}
    for name, df in frames.items():
        _check_columns(name, df)
    n_games = frames["games"].height
    if n_games == 0:
        return
    # Views are registered outside the transaction: DuckDB refuses to unregister in an
    # aborted one.
    views = {name: f"_batch_{name}" for name in frames}
    for name, df in frames.items():
        con.register(views[name], df.to_arrow())
    try:
        with _transaction(con):
            _check_cell(con, run_id, variant, players)
            _check_game_range(frames, completed_games(con, run_id, variant, players))
            _insert_frames(con, run_id, variant, players, views)
            con.execute("UPDATE runs SET games_completed = games_completed + ? WHERE run_id = ?",
                        [n_games, run_id])
    finally:
        for view in views.values():
            con.unregister(view)


def _insert_frames(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                   views: Mapping[str, str]) -> None:
    """INSERT the registered frames (table -> registered view name) of one cell; the caller
    holds the transaction and has checked the game range (tournament_store shares this)."""
    key = {"run_id": run_id, "variant": variant, "players": players}
    for name in FRAME_COLUMNS:
        insert_view(con, name, FRAME_COLUMNS[name], views[name], key)


def insert_view(con: duckdb.DuckDBPyConnection, table: str,
                columns: Sequence[tuple[str, str, bool]], view: str,
                key: Mapping[str, Any]) -> None:
    """INSERT a registered frame into ``table``: the ``key`` values (its first columns, in
    order), then the frame's ``columns`` cast to their types."""
    values = ", ".join(f"${k}" for k in key)
    select = ", ".join(f"CAST({n} AS {t})" for n, t, _ in columns)
    try:
        con.execute(f"INSERT INTO {table} SELECT {values}, {select} FROM {view}", dict(key))
    except duckdb.Error as e:  # e.g. a value outside its column's type
        raise StoreError(f"cannot store the batch's {table}: {_first_line(str(e))}") from e


def _check_cell(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int) -> None:
    state = _first(con.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]))
    if state is None:
        raise StoreError(_no_run(run_id))
    if state[0] != "running":
        raise StoreError(f"run {run_id} is {state[0]}; resume it before writing")
    if not _first(con.execute(
            "SELECT 1 FROM variants WHERE run_id = ? AND variant = ? AND players = ?",
            [run_id, variant, players])):
        raise StoreError(f"run {run_id} has no cell ({variant}, {players} players)")


def _check_columns(name: str, df: pl.DataFrame) -> None:
    expected = [n for n, _, _ in FRAME_COLUMNS[name]]
    missing = [c for c in expected if c not in df.columns]
    extra = [c for c in df.columns if c not in expected]
    if missing or extra:
        raise StoreError(
            f"batch frame {name!r} does not match the store schema: missing {missing}, "
            f"unexpected {extra} (add new columns to store.FRAME_COLUMNS and bump SCHEMA_VERSION)"
        )


def _check_game_range(frames: Mapping[str, pl.DataFrame], first: int) -> None:
    games = frames["games"]["game"]
    n = games.len()
    if games.min() != first or games.max() != first + n - 1 or games.n_unique() != n:
        raise StoreError(
            f"batch games {games.min()}..{games.max()} ({n} rows) do not continue the stored "
            f"games 0..{first - 1}; batches must be written in order without repeats"
        )
    for name in ("game_seats", "rounds", "round_seats"):
        g = frames[name]["game"]
        if g.len() and (g.min() < first or g.max() > first + n - 1):
            raise StoreError(f"batch frame {name!r} has games outside the batch's games")


def completed_games(con: duckdb.DuckDBPyConnection, run_id: str, variant: str,
                    players: int) -> int:
    """Games stored for one cell; games are stored in order, so a resume starts at this index."""
    return con.execute(
        "SELECT count(*) FROM games WHERE run_id = ? AND variant = ? AND players = ?",
        [run_id, variant, players],
    ).fetchall()[0][0]


# --- Reading -----------------------------------------------------------------------------------

def resolve_run_id(con: duckdb.DuckDBPyConnection, ref: str | None) -> str:
    """An exact run id, a unique prefix of one, or None/'latest' for the most recent run."""
    if ref is None or ref == "latest":
        latest = latest_run_id(con)
        if latest is None:
            raise UnknownRunError(
                "this database has no runs yet; start one with `unostats simulate`")
        return latest
    ids = [r[0] for r in con.execute(
        "SELECT run_id FROM runs WHERE starts_with(run_id, ?) ORDER BY run_id", [ref]).fetchall()]
    if ref in ids:
        return ref
    if len(ids) == 1:
        return ids[0]
    if not ids:
        raise UnknownRunError(_no_run(ref))
    raise UnknownRunError(f"run id {ref!r} is ambiguous: {', '.join(ids)}")


def run_info(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """The runs row as a dict, plus 'cells': each variant/players with games stored."""
    cur = con.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", [run_id])
    row = _first(cur)
    if row is None:
        raise UnknownRunError(_no_run(run_id))
    info = dict(zip(RUN_COLUMNS, row))
    cells = con.sql(
        """SELECT v.variant, v.players, v.rules_json, v.rules_hash, v.description,
             (SELECT count(*) FROM games g WHERE g.run_id = v.run_id AND g.variant = v.variant
                AND g.players = v.players) AS games_completed
           FROM variants v WHERE v.run_id = $run_id ORDER BY v.variant, v.players""",
        params={"run_id": run_id},
    ).pl()
    info["cells"] = cells.to_dicts()
    return info


def list_runs(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per run, oldest first."""
    return con.sql(
        """SELECT run_id, started_at, finished_at, status, scenario_name, games_completed,
             games_requested, seed, elapsed_s, engine_version, command
           FROM runs ORDER BY started_at, run_id"""
    ).pl()


def latest_run_id(con: duckdb.DuckDBPyConnection) -> str | None:
    row = _first(con.execute("SELECT run_id FROM runs ORDER BY started_at DESC, run_id LIMIT 1"))
    return row[0] if row else None


def query(con: duckdb.DuckDBPyConnection, sql: str,
          params: Mapping[str, Any] | None = None) -> pl.DataFrame:
    """Run SQL (named parameters as $name) and return the last statement's rows."""
    rel = sql_relation(con, sql, params)
    return pl.DataFrame() if rel is None else rel.pl()


def sql_relation(con: duckdb.DuckDBPyConnection, sql: str,
                 params: Mapping[str, Any] | None = None) -> duckdb.DuckDBPyRelation | None:
    """Run SQL; the last statement's relation (None if it returns no rows). DuckDB errors become
    one-line StoreErrors; a write on a read-only connection says what is allowed instead."""
    try:
        return con.sql(sql, params=dict(params) if params else None)
    except duckdb.Error as e:
        msg = str(e)
        if "read-only mode" in msg:
            kind = re.search(r'statement of type "(\w+)"', msg)
            what = f"{kind.group(1)} statements" if kind else "statements that write"
            raise StoreError(
                f"the results database is open read-only: {what} are not allowed "
                "(only `unostats simulate` writes; CREATE TEMP TABLE works for scratch work)"
            ) from None
        raise StoreError(" ".join(msg.split())) from None


# --- Export ------------------------------------------------------------------------------------

EXPORT_TABLES = ("runs", "variants", "games", "game_seats", "rounds", "round_seats")


def export_run(con: duckdb.DuckDBPyConnection, run_id: str, out_dir: str | os.PathLike,
               fmt: str = "parquet") -> list[Path]:
    """Write each table's rows of one run to out_dir/<table>.<fmt>; returns the paths (a
    tournament run adds its tournament tables)."""
    if fmt not in ("parquet", "csv"):
        raise StoreError(f"unknown export format {fmt!r}; use parquet or csv")
    run_info(con, run_id)  # clean error for an unknown run
    from . import tournament_store

    tables = EXPORT_TABLES + (tournament_store.TOURNAMENT_TABLES
                              if tournament_store.is_tournament_run(con, run_id) else ())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER"
    paths = []
    for table in tables:
        path = out / f"{table}.{fmt}"
        # COPY takes no bound parameters: the id is a stored run id and both literals are quoted.
        con.execute(
            f"COPY (SELECT * FROM {table} WHERE run_id = {_sql_literal(run_id)}) "
            f"TO {_sql_literal(str(path))} ({options})"
        )
        paths.append(path)
    return paths


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def duplicate_keys(con: duckdb.DuckDBPyConnection,
                   tables: Iterable[str] = RESULT_KEYS) -> dict[str, int]:
    """Count logical-key duplicates per results table (an integrity check; 0 everywhere)."""
    counts = {}
    for table in tables:
        keys = ", ".join(RESULT_KEYS[table])
        counts[table] = con.execute(
            f"SELECT count(*) FROM (SELECT {keys} FROM {table} GROUP BY {keys} HAVING count(*) > 1)"
        ).fetchall()[0][0]
    return counts
