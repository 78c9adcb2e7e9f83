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

from ..leagues.spec import tables as leagues
from ..sql import MACROS_DDL, StoreError, first_line, first_row, transaction
from ..tournaments.spec import tables as tournaments
from . import durations, games, keep, runs

# 2: rounds.jump_ins; 3: tournament tables; 4: the number-card and round-mode counters,
# rounds.loser_seat, game_seats.is_loser and round_seats.hands_emptied; 5: round_seats.finish_place
# (R9); 6: variants.sweep, the precision_looks table (sweeps and precision targets) and
# rounds.largest_penalty; 7: the league_fits table and the league_ratings view; 8: the results
# tables store an integer cell id (tables `cells`, `stored_games` ...), the views `games` ... look
# the cell columns up; 9: the stored results rows keep their small bounded columns packed in one
# BIGINT, ``slots`` (``games.SLOTS``), which the views decode; 10: more of them packed, several
# per BIGINT (``packing.WORDS``: game and round in one, two counters in one ...), encoded with
# numpy; 11: the seats' policies coded in game_seats' word (names in the table ``policies``), and
# the words whose fields fit 31 bits stored as INTEGERs; 12: the views ``games_by_cell`` ... (the
# rows by cell id, ``games.BY_CELL``), which the standard views and the report read; 13: how a
# round plays (rounds.hand_leader_changes ... ``codes.MEASURE_NAMES``) and the views
# ``game_measures`` and ``how_it_plays``; 14: what a run keeps (``runs.keep``) and the tables of
# the runs that keep less than rows (``game_totals``, ``round_lengths``, ``block_sums``); 15: how a
# round plays NULL where a run did not count it (uno_stops and uno_stops_still_won not packed).
SCHEMA_VERSION = 15
# The writer's DuckDB: memory for the batch being inserted and the blocks it compresses (the
# rest of what it wrote is evicted instead of kept: flat memory), and one thread per four cores
# (at least one): parallel inserts split row groups, cost CPU and grow the file, and the engine's
# threads keep the other cores. 32 MB commits the largest adaptive batch (16 MB does not) at a
# lower peak memory than 64 MB.
# Readers (queries, reports) keep DuckDB's defaults. (Figures: docs/performance.md, "The
# writer's DuckDB".)
WRITER_MEMORY_LIMIT = "32MB"
WRITER_THREADS = max(1, (os.cpu_count() or 1) // 4)
# The writer's checkpoints do not vacuum: a batch of rounds ends in a partial row group, and
# DuckDB's vacuum merged each three row groups that fit in two, decompressing and recompressing
# them; the results tables only grow (no deletes to reclaim), so the merge only saves a few row
# groups. Its blocks come from a pool of the memory limit's size, allocated once: DuckDB's
# blocks are otherwise each a fresh mapping (glibc's mmap threshold, ``base.memory``) whose
# pages fault in at every append.
WRITER_SETTINGS = (("max_vacuum_tasks", "0"), ("block_allocator_memory", f"'{WRITER_MEMORY_LIMIT}'"))

# The whole schema, whichever kinds of run a file will hold: tables, then the macros the views
# use, then the views (first the results tables' views over the stored rows, which the others
# read).
SCHEMA_DDL = (*runs.TABLES_DDL, *games.TABLES_DDL, *keep.TABLES_DDL,
              *tournaments.TABLES_DDL, *leagues.TABLES_DDL,
              *MACROS_DDL, *games.CELL_VIEWS_DDL, *games.BY_CELL_VIEWS_DDL, *games.VIEWS_DDL,
              *games.MEASURES_DDL,
              *tournaments.VIEWS_DDL, *leagues.VIEWS_DDL, *durations.VIEWS_DDL)


# --- Opening -----------------------------------------------------------------------------------

def open_store(path: str | os.PathLike, *, read_only: bool, memory_limit: str | None = None,
               writes_in: str | os.PathLike | None = None) -> duckdb.DuckDBPyConnection:
    """Open the results file. Writing creates it (schema, macros, views) if needed; a reader
    is ``sandbox``ed (``writes_in``: the one folder it may also write, for an export).
    ``memory_limit``: DuckDB's (e.g. "64MB"); the writer's default is WRITER_MEMORY_LIMIT, a
    reader's DuckDB's own (80% of RAM)."""
    path = Path(path)
    if is_memory(path):
        raise StoreError(f"--db {path}: an in-memory database keeps nothing; give a file name")
    if read_only and not path.exists():
        raise StoreError(
            f"no results database at {path}; create one with "
            f"`unostats simulate SCENARIO --db {path}`"
        )
    _sniff(path)
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=dict(OFFLINE_CONFIG))
    except duckdb.Error as e:
        raise _open_error(path, e, read_only) from None
    except OSError as e:  # e.g. a folder DuckDB cannot create its files in
        raise StoreError(f"cannot open {path}: {e.strerror or e}") from None
    try:
        con.execute("SET TimeZone = 'UTC'")  # show stored UTC instants as UTC
        con.execute("SET enable_progress_bar = false")  # stdout carries data only
        if not read_only:
            writer_settings(con, memory_limit)
        elif memory_limit:
            con.execute("SET memory_limit = ?", [memory_limit])
        if read_only:
            sandbox(con, writes_in)
        else:
            con.execute("SET lock_configuration = true")  # no SQL turns downloads back on
        if read_only:
            _check_readable(con, path)
        else:
            _create_schema(con, path)
            _mark_stale_runs(con)
    except duckdb.Error as e:  # a damaged file that opened but cannot be read or written
        con.close()
        raise (_truncated(path, e) or StoreError(
            f"cannot use {path} as a results database: {_reason(e)}")) from None
    except BaseException:
        con.close()
        raise
    return con


def writer_settings(con: duckdb.DuckDBPyConnection, memory_limit: str | None = None,
                    threads: int = WRITER_THREADS) -> None:
    """Set the writer's DuckDB settings on ``con``: its threads, ``WRITER_SETTINGS`` and its
    memory limit (``memory_limit``, default ``WRITER_MEMORY_LIMIT``)."""
    con.execute(f"SET threads = {int(threads)}")
    for name, value in WRITER_SETTINGS:
        con.execute(f"SET {name} = {value}")
    con.execute("SET memory_limit = ?", [memory_limit or WRITER_MEMORY_LIMIT])


# DuckDB must never fetch or load extensions by itself: unostats works offline, and a foreign
# file (SQLite) would otherwise make it download sqlite_scanner.
OFFLINE_CONFIG = (("autoinstall_known_extensions", False), ("autoload_known_extensions", False),
                  ("allow_community_extensions", False), ("allow_persistent_secrets", False))


def sandbox(con: duckdb.DuckDBPyConnection, writes_in: str | os.PathLike | None = None) -> None:
    """Keep a reader's SQL (a user's, in ``unostats query``) inside the store: DuckDB's own
    sandbox, not a reading of the SQL. No file but the database's own (DuckDB allows its file
    and WAL, and refuses to write them) and ``writes_in``: no file function, COPY, ATTACH,
    IMPORT/EXPORT DATABASE reaches another file, and no extension is installed or loaded;
    then the configuration is locked, so no SET, RESET or PRAGMA undoes it."""
    if writes_in is not None:  # a trailing / so that the folder's name is not a mere prefix
        folder = os.path.join(os.path.abspath(writes_in), "")
        con.execute("SET allowed_directories = ?", [[folder]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def is_memory(path: str | os.PathLike) -> bool:
    """``:memory:`` (or ``:memory:NAME``): DuckDB's in-memory database, gone at exit."""
    return str(path).startswith(":memory:")


def _sniff(path: Path) -> None:
    """Refuse files that are not DuckDB databases before DuckDB sees them."""
    if not path.exists():
        return
    if not path.is_file():
        raise StoreError(f"{path} is not a regular file; --db takes a DuckDB database file")
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror or e}") from None
    if head.startswith(b"SQLite format 3"):
        raise StoreError(f"{path} is a SQLite database, not a unostats results database "
                         "(DuckDB); choose another --db file")
    if head and (len(head) < 12 or head[8:12] != b"DUCK"):
        raise StoreError(f"{path} is not a DuckDB database (damaged, truncated, or another "
                         "kind of file); choose another --db file")


def _truncated(path: Path, e: BaseException) -> StoreError | None:
    if "Could not read enough bytes" not in str(e):
        return None
    return StoreError(f"cannot open {path}: the file is truncated or damaged (DuckDB could not "
                      "read all of it); restore it from a copy, or use a new --db file")


def _reason(e: BaseException) -> str:
    return re.sub(r"^[\w ]*Error: ", "", first_line(str(e)))


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
    if _truncated(path, e):
        return _truncated(path, e)
    reason = _reason(e)  # DuckDB's "IO Error: " dropped
    if read_only is False and re.search(r"permission denied|read-only file system", msg, re.IGNORECASE):
        return StoreError(f"cannot write {path}: {reason} (DuckDB also writes {path.name}.wal "
                          "beside it, so its folder must be writable)")
    return StoreError(f"cannot open {path} as a DuckDB database: {reason}")

def _stored_version(con: duckdb.DuckDBPyConnection, path: Path) -> int | None:
    has_meta = con.execute(
        "SELECT count(*) FROM information_schema.tables "
        "WHERE table_schema = 'main' AND table_name = 'meta'"
    ).fetchall()[0][0]
    if not has_meta:
        return None
    row = first_row(con.execute("SELECT value FROM meta WHERE key = 'schema_version'"))
    if row is None:
        return None
    try:
        return int(str(row[0]).strip())
    except ValueError:
        raise StoreError(f"{path}: its meta table has schema_version {str(row[0])[:40]!r}, which is not "
                         "a version number: the file is damaged or not written by unostats; "
                         "use a new --db file") from None


def _check_version(version: int | None, path: Path) -> None:
    if version is not None and version < SCHEMA_VERSION:
        raise StoreError(
            f"{path} was written by an older unostats (results schema version {version}; this "
            f"one reads version {SCHEMA_VERSION} only); read it with the unostats that wrote it "
            "(`unostats export` saves its runs as Parquet or CSV), or use a new --db file"
        )
    if version is not None and version != SCHEMA_VERSION:
        raise StoreError(
            f"{path} has results schema version {version} but this unostats uses version "
            f"{SCHEMA_VERSION}; use the matching unostats version or a new --db file"
        )


def _check_readable(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    version = _stored_version(con, path)
    if version is None:
        raise StoreError(f"{path} is not a unostats results database (no meta table)")
    _check_version(version, path)
    _check_columns(con, path)


def _create_schema(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    version = _stored_version(con, path)
    _check_version(version, path)
    if version is not None:
        _check_columns(con, path)  # before the views are made over the tables
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
    global _expected
    if version is None and _expected is None:  # a new file holds this version's tables only:
        _expected = _table_columns(con)  # no schema built in memory to check them later


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




# --- Schema drift ------------------------------------------------------------------------------

_COLUMNS_SQL = """SELECT table_name, column_name FROM information_schema.columns
WHERE table_schema = 'main' AND table_name IN (SELECT table_name FROM information_schema.tables
  WHERE table_schema = 'main' AND table_type = 'BASE TABLE')
ORDER BY table_name, ordinal_position"""

_expected: dict[str, list[str]] | None = None


def _table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for table, column in con.execute(_COLUMNS_SQL).fetchall():
        out.setdefault(table, []).append(column)
    return out


def expected_columns() -> dict[str, list[str]]:
    """Each table's columns in this schema version (the schema built once in memory)."""
    global _expected
    if _expected is None:
        mem = duckdb.connect(":memory:", config=dict(OFFLINE_CONFIG))
        try:
            for ddl in SCHEMA_DDL:
                mem.execute(ddl)
            _expected = _table_columns(mem)
        finally:
            mem.close()
    return _expected


def _check_columns(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """The file's tables have exactly this version's columns (a renamed or dropped column, or a
    missing table, is refused here rather than failing later in a query or a write)."""
    have = _table_columns(con)
    for table, columns in expected_columns().items():
        if table not in have:
            raise StoreError(f"{path}: table {table} is missing, although the file says results "
                             f"schema version {SCHEMA_VERSION}: the file was altered or damaged; "
                             "use a new --db file")
        missing = [c for c in columns if c not in have[table]]
        extra = [c for c in have[table] if c not in columns]
        if missing or extra:
            what = "; ".join(x for x in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unexpected {', '.join(extra)}" if extra else "") if x)
            raise StoreError(f"{path}: table {table} does not have the columns of results schema "
                             f"version {SCHEMA_VERSION} ({what}): the file was altered; use a "
                             "new --db file")
