"""The results database as rows: SQL from users (``query``: read-only, errors as one line),
the list of runs and the export of one run's rows to files."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from .. import store
from .session import RunError, default_db, resolve_run


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
        run_id = resolve_run(con, run)
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
