"""The results database as rows: SQL from users (``query``: read-only, in the reader's sandbox,
errors as one line; ``save``: its result written to a file by unostats), the list of runs and
the export of one run's rows to files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from .. import store
from ..output import write_rows
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
          db: str | os.PathLike | None = None) -> QueryResult:
    """``sql`` on ``db`` opened read-only, in the reader's sandbox (``store.open_store``: no
    file outside the store, no download), every row read."""
    with stream(sql=sql, params=params, db=db) as result:
        return QueryResult(result.columns, result.types, list(result.rows))


@dataclass
class RowStream:
    columns: list[str]
    types: list[str]
    rows: Iterator[Any]  # read in chunks while iterated; DuckDB errors become RunErrors
    schema: Any = None  # with ``arrow``: the rows are Arrow record batches of this schema


@contextmanager
def stream(*, sql: str, params: dict[str, Any] | None = None,
           db: str | os.PathLike | None = None, arrow: bool = False) -> Iterator[RowStream]:
    """Like ``query``, but the rows come in chunks as they are read (constant memory);
    ``arrow``: as Arrow record batches."""
    con = store.open_store(locate(db), read_only=True)
    try:
        try:
            result = store.sql_rows(con, sql, params, arrow=arrow)
        except store.StoreError as e:
            raise RunError(str(e)) from None
        if result is None:
            yield RowStream([], [], iter(()))
        else:
            yield RowStream(result[0], result[1], _run_errors(result[2]),
                            getattr(result[2], "schema", None))
    finally:
        con.close()


# What ``save`` writes: the printed formats, and Parquet (by pyarrow).
SAVE_FORMATS = ("csv", "json", "ndjson", "parquet")


def save(*, sql: str, out: str | os.PathLike, fmt: str, params: dict[str, Any] | None = None,
         db: str | os.PathLike | None = None, overwrite: bool = False) -> int:
    """Write the result of ``sql`` to the file ``out`` and return its number of rows: csv, json
    and ndjson as ``unostats query`` prints them, parquet by pyarrow (zstd). ``out`` must be a
    regular file outside any results store, new unless ``overwrite`` (``store.write_output``,
    the rule of every file unostats writes): written under a temporary name and renamed, so a
    failed query leaves no file."""
    if fmt not in SAVE_FORMATS:
        raise RunError(f"--format {fmt} cannot be written to a file; use one of "
                       f"{', '.join(SAVE_FORMATS)}", exit_code=2)
    target, out = locate(db), Path(out)
    count = 0

    def write(tmp: Path) -> None:
        nonlocal count
        with stream(sql=sql, params=params, db=target, arrow=fmt == "parquet") as result:
            if not result.columns:
                raise RunError(f"the SQL's last statement returns no rows, so there is nothing "
                               f"to write to {out}; end it with a query (SELECT ...)")
            count = _write_result(tmp, result, fmt)

    try:
        store.check_output(out, overwrite=overwrite, what="the query's result")
        store.write_output(out, write, what="the query's result", overwrite=overwrite)
    except store.OutputRefused as e:
        raise RunError(str(e), exit_code=2) from None
    except store.StoreError as e:
        raise RunError(str(e)) from None
    return count


def _write_result(path: Path, result: RowStream, fmt: str) -> int:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        count = 0
        with pq.ParquetWriter(path, result.schema, compression="zstd") as writer:
            for batch in result.rows:
                writer.write_batch(batch)
                count += batch.num_rows
        return count
    count = 0

    def counted() -> Iterator[tuple]:
        nonlocal count
        for row in result.rows:
            count += 1
            yield row

    json_columns = [c for c, t in zip(result.columns, result.types) if t == "JSON"]
    with open(path, "w", encoding="utf-8", newline="") as f:
        write_rows(f, result.columns, counted(), fmt, json_columns=json_columns)
    return count


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
    con = store.open_store(locate(db), read_only=True, writes_in=out)
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
