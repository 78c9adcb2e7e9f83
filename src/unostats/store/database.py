"""The results file: open it, create or check its schema, and mark the runs a killed writer
left behind.

Concurrency: DuckDB lets one process write a file, and a writer excludes all readers. The writer
keeps its connection for the whole run; a reader gets a one-line ``StoreError`` naming the
writer's pid. (Reopening per batch would let readers in, at ~0.1 s per batch plus a reconnect
retry loop, and a long reader would stall the simulation; not worth it.) A run left 'running' by
a killed process is marked 'interrupted' by the next writer to open the file, which holds the
only write lock and therefore knows that process is gone.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb

from . import games, runs, tournaments
from .sql import MACROS_DDL, StoreError, first_line, first_row, transaction

# 2: rounds.jump_ins; 3: tournament tables; 4: the issue-5 round counters,
# rounds.loser_seat, game_seats.is_loser and round_seats.hands_emptied; 5: round_seats.finish_place
# (R9).
SCHEMA_VERSION = 5
DEFAULT_DB = "unostats.duckdb"

# The whole schema, whichever kinds of run a file will hold: tables, then the macros the views
# use, then the views.
SCHEMA_DDL = (*runs.TABLES_DDL, *games.TABLES_DDL, *tournaments.TABLES_DDL, *MACROS_DDL,
              *games.VIEWS_DDL, *tournaments.VIEWS_DDL)


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
    reason = re.sub(r"^[\w ]*Error: ", "", first_line(msg))  # drop DuckDB's "IO Error: "
    return StoreError(f"cannot open {path} as a DuckDB database: {reason}")

def _stored_version(con: duckdb.DuckDBPyConnection) -> int | None:
    has_meta = con.execute(
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name = 'meta'"
    ).fetchall()[0][0]
    if not has_meta:
        return None
    row = first_row(con.execute("SELECT value FROM meta WHERE key = 'schema_version'"))
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
    with transaction(con):
        for ddl in SCHEMA_DDL:
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


