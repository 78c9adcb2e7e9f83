"""Reading the store with SQL: the user's queries (errors as one line; a write on a read-only
connection says what is allowed) and the export of one run's rows to files."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from . import tournaments
from .runs import run_info
from .sql import StoreError, sql_literal


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
    tables = EXPORT_TABLES + (tournaments.TOURNAMENT_TABLES
                              if tournaments.is_tournament_run(con, run_id) else ())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER"
    paths = []
    for table in tables:
        path = out / f"{table}.{fmt}"
        # COPY takes no bound parameters: the id is a stored run id and both literals are quoted.
        con.execute(
            f"COPY (SELECT * FROM {table} WHERE run_id = {sql_literal(run_id)}) "
            f"TO {sql_literal(str(path))} ({options})"
        )
        paths.append(path)
    return paths


