"""The results database as rows: SQL from users (``query``: read-only, errors as one line),
the list of runs and the export of one run's rows to files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from .. import store
from .session import RunError, locate, resolve_run


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
          db: str | os.PathLike | None = None, overwrite: bool = False) -> QueryResult:
    """``run_sql`` on ``db`` opened read-only, after ``store.check_user_sql`` (no downloads, no
    ATTACH, COPY ... TO only a new file unless ``overwrite``)."""
    with stream(sql=sql, params=params, db=db, overwrite=overwrite) as result:
        return QueryResult(result.columns, result.types, list(result.rows))


@dataclass
class RowStream:
    columns: list[str]
    types: list[str]
    rows: Iterator[tuple]  # read in chunks while iterated; DuckDB errors become RunErrors


@contextmanager
def stream(*, sql: str, params: dict[str, Any] | None = None,
           db: str | os.PathLike | None = None, overwrite: bool = False) -> Iterator[RowStream]:
    """Like ``query``, but the rows come in chunks as they are read (constant memory)."""
    db = locate(db)
    try:
        # a Parquet store's own files are its folder's: its marker stands for them
        own = Path(db.path(store.parquet.MARKER)) if store.is_parquet(db) else db
        store.check_user_sql(sql, db_path=own, overwrite=overwrite)
    except store.StoreError as e:
        raise RunError(str(e)) from None
    con = store.open_store(db, read_only=True)
    try:
        try:
            result = store.sql_rows(con, sql, params)
        except store.StoreError as e:
            raise RunError(str(e)) from None
        if result is None:
            yield RowStream([], [], iter(()))
        else:
            yield RowStream(result[0], result[1], _run_errors(result[2]))
    finally:
        con.close()


def _run_errors(rows: Iterator[tuple]) -> Iterator[tuple]:
    try:
        yield from rows
    except store.StoreError as e:
        raise RunError(str(e)) from None


def list_runs(db: str | os.PathLike | None = None) -> QueryResult:
    """The ``unostats runs`` rows (a run whose process is gone shows as 'interrupted')."""
    return query(sql=RUNS_SQL, params={"me": os.getpid()}, db=db)


def export(*, run: str | None, out: str | os.PathLike, fmt: str = "parquet",
           db: str | os.PathLike | None = None, overwrite: bool = False) -> list[Path]:
    """Write one run's rows of every table to ``out``/<table>.<fmt> (parquet or csv; an
    existing file only with ``overwrite``: ``store.check_output``)."""
    if fmt not in ("parquet", "csv"):
        raise RunError(f"unknown export format {fmt!r}; allowed: parquet, csv", exit_code=2)
    con = store.open_store(locate(db), read_only=True)
    try:
        run_id = resolve_run(con, run)
        try:
            return store.export_run(con, run_id, out, fmt, overwrite=overwrite)
        except duckdb.Error as e:
            raise RunError(f"cannot export run {run_id} to {out}: {one_line(str(e))}") from None
    finally:
        con.close()


# A reader opens the file only when no other process writes it (DuckDB's lock), so a run still
# marked 'running' by another process was left by one that died (kill -9, power loss): it shows
# as 'interrupted', as the next writer will mark it. Bind $me to this process's id.
RUNS_SQL = """
SELECT run_id, scenario_name AS scenario,
  CASE WHEN status = 'running' AND pid IS DISTINCT FROM $me THEN 'interrupted' ELSE status END
    AS status,
  strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started,
  games_requested, games_completed, seed
FROM runs ORDER BY started_at, run_id
"""
