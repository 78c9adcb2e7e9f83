"""The runs of the store: the ``meta``, ``runs`` and ``variants`` tables, a run's life (start,
resume, finish) and reading runs back (by id, prefix or 'latest')."""

from __future__ import annotations

import json
import math
import os
import platform
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import duckdb
import polars as pl

from ..sql import StoreError, UnknownRunError, as_json_text, first_row, transaction

RUN_STATUSES = ("running", "complete", "interrupted")

RUN_COLUMNS = (
    "run_id", "started_at", "finished_at", "resumed_at", "status", "command", "seed",
    "games_requested", "games_completed", "scenario_name", "scenario_text", "scenario_json",
    "scenario_hash", "unostats_version", "engine_version", "numba_version", "duckdb_version",
    "python_version", "elapsed_s", "pid", "keep",
)
VERSION_KEYS = ("unostats_version", "engine_version", "numba_version", "duckdb_version",
                "python_version")

TABLES_DDL = [
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
  pid INTEGER,                       -- process that last ran it
  keep VARCHAR NOT NULL DEFAULT 'rows' -- what it stores: rows, games or summary (store.keep)
    CHECK (keep IN ('rows', 'games', 'summary'))
)""",
    """CREATE TABLE IF NOT EXISTS variants (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  rules_json JSON NOT NULL,
  rules_hash VARCHAR NOT NULL,
  description VARCHAR,
  sweep JSON,                        -- the cell's sweep point, keys as written (null: none)
  PRIMARY KEY (run_id, variant, players)
)""",
    # Precision-targeted runs: every look at a cell's interval (at fixed game counts), one row
    # per statistic targeted; the last look of a cell says why it stopped.
    """CREATE TABLE IF NOT EXISTS precision_looks (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  look INTEGER NOT NULL,             -- 0, 1, ...: the looks at the cell's game counts
  games BIGINT NOT NULL,             -- games 0 .. games-1 of the cell are looked at
  statistic VARCHAR NOT NULL,
  target DOUBLE NOT NULL,            -- the 95% half-width asked for
  estimate DOUBLE,
  half_width DOUBLE,                 -- the 95% half-width reached at this look
  met BOOLEAN NOT NULL,              -- half_width <= target
  PRIMARY KEY (run_id, variant, players, look, statistic)
)""",
]


def _now() -> datetime:
    return datetime.now(UTC)

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
    keep: str = "rows",
) -> str:
    """Record a new run and its cells; returns the run id (8 hex digits unless given).

    ``games_requested`` is the total over all cells. ``variants`` items have variant, players,
    rules_json (text or mapping), rules_hash, description and (a sweep's cells) sweep, the
    point as a mapping. ``versions`` keys are
    ``VERSION_KEYS``; duckdb_version and python_version are filled in when absent.
    ``on_start(con, run_id)`` adds rows in the same transaction (a tournament run's cells).
    ``keep``: what the run stores of its games (``store.keep.KEEPS``).
    """
    unknown = set(versions) - set(VERSION_KEYS)
    if unknown:
        raise ValueError(f"unknown version keys {sorted(unknown)}; expected {VERSION_KEYS}")
    versions = {"duckdb_version": duckdb.__version__,
                "python_version": platform.python_version(), **versions}
    with transaction(con):
        if run_id is None:
            run_id = _new_run_id(con)
        elif first_row(con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id])):
            raise StoreError(f"run {run_id} already exists in this database")
        con.execute(
            """INSERT INTO runs (run_id, started_at, status, command, seed, games_requested,
                 games_completed, scenario_name, scenario_text, scenario_json, scenario_hash,
                 unostats_version, engine_version, numba_version, duckdb_version, python_version,
                 elapsed_s, pid, keep)
               VALUES (?, ?, 'running', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)""",
            [run_id, _now(), command, seed, games_requested, scenario_name, scenario_text,
             as_json_text(scenario_json), scenario_hash,
             *(versions.get(k) for k in VERSION_KEYS), os.getpid(), keep],
        )
        add_cells(con, run_id, variants)
        if on_start is not None:
            on_start(con, run_id)
    return run_id


def add_cells(con: duckdb.DuckDBPyConnection, run_id: str,
              variants: Sequence[Mapping[str, Any]]) -> None:
    """Record cells of a run (``start_run``'s ``variants`` items), in the caller's transaction
    or on their own: a design run adds each candidate when the search proposes it."""
    for v in variants:
        sweep = v.get("sweep")
        con.execute(
            "INSERT INTO variants VALUES (?, ?, ?, ?, ?, ?, ?)",
            [run_id, v["variant"], v["players"], as_json_text(v["rules_json"]),
             v["rules_hash"], v.get("description"),
             None if sweep is None else json.dumps(sweep, separators=(", ", ": "))],
        )


def _new_run_id(con: duckdb.DuckDBPyConnection) -> str:
    while True:  # 32 random bits: a clash is rare, and checked
        run_id = secrets.token_hex(4)
        if not first_row(con.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id])):
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
        raise StoreError(no_run(run_id))


def no_run(run_id: str) -> str:
    return f"no run {run_id!r} in this database; `unostats runs` lists the runs"

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
        raise UnknownRunError(no_run(ref))
    raise UnknownRunError(f"run id {ref!r} is ambiguous: {', '.join(ids)}")


def run_info(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """The runs row as a dict, plus 'cells': each variant/players with games stored."""
    cur = con.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM runs WHERE run_id = ?", [run_id])
    row = first_row(cur)
    if row is None:
        raise UnknownRunError(no_run(run_id))
    info = dict(zip(RUN_COLUMNS, row))
    cells = con.sql(
        """SELECT v.variant, v.players, v.rules_json, v.rules_hash, v.description,
             (SELECT count(*) FROM games g WHERE g.run_id = v.run_id AND g.variant = v.variant
                AND g.players = v.players)
             + (SELECT coalesce(max(b.end_game), 0) FROM block_sums b JOIN cells c USING (cell)
                WHERE c.run_id = v.run_id AND c.variant = v.variant AND c.players = v.players)
               AS games_completed
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
    row = first_row(con.execute("SELECT run_id FROM runs ORDER BY started_at DESC, run_id LIMIT 1"))
    return row[0] if row else None



def record_looks(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                 look: int, games: int, rows: Sequence[tuple[str, float, float, float]]) -> None:
    """A look at a cell's intervals after ``games`` games: (statistic, target, estimate,
    half-width) per statistic targeted. A look recorded before (a resumed run looks again at
    the same games, and finds the same) is replaced."""
    with transaction(con):
        con.execute("DELETE FROM precision_looks WHERE run_id = ? AND variant = ? AND "
                    "players = ? AND look = ?", [run_id, variant, players, look])
        for statistic, target, estimate, half in rows:
            con.execute("INSERT INTO precision_looks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [run_id, variant, players, look, games, statistic, target, estimate,
                         half, bool(not math.isnan(half) and half <= target)])
