"""Reading the store with SQL: the user's queries (errors as one line; a write on a read-only
connection says what is allowed) and the export of one run's rows to files."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from ..leagues.spec import tables as leagues
from ..sql import StoreError, sql_literal
from ..tournaments.spec import tables as tournaments
from . import files
from .keep import run_keep
from .runs import run_info


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
        raise _user_error(e, _view_write(con, sql, e)) from None


# DuckDB refuses a write to a view (``games`` ... are views over the stored rows) when it binds
# the statement, before it would say the file is read-only.
_VIEW_WRITE = re.compile(r"Can only (delete from|update) base table|is not an table")


def _view_write(con: duckdb.DuckDBPyConnection, sql: str, e: duckdb.Error) -> str | None:
    """The kind of the statement (DELETE, UPDATE, INSERT, COPY) if ``e`` refuses a write to a
    view on a read-only connection, else None."""
    if not _VIEW_WRITE.search(str(e)):
        return None
    try:
        if con.execute("SELECT current_setting('access_mode')").fetchall()[0][0] != "read_only":
            return None
        kinds = [st.type.name for st in con.extract_statements(sql)]
    except duckdb.Error:
        return None
    return next((k for k in kinds if k in ("DELETE", "UPDATE", "INSERT", "COPY")), None)


# What the reader's sandbox (``database.sandbox``) refuses, in DuckDB's words: a file or
# folder outside the store (an extension's folder for INSTALL), a database file's own, an
# extension to load, a setting of the locked configuration.
_OUTSIDE = re.compile(r'Cannot access (?:file|directory) "(.*)" - file system operations are '
                      r'disabled by configuration')
_OWN_FILE = re.compile(r'Cannot COPY to "(.*)": the file belongs to an attached database')
_LOCKED = re.compile(r'Cannot change configuration option "(.*)" - the configuration has been '
                     r'locked')
_EXTENSIONS = ("Loading external extensions is disabled", "/.duckdb/extensions")
_STORE_ONLY = ("`unostats query` reads the results store's tables and views only (no file "
               "function, COPY, ATTACH or IMPORT/EXPORT DATABASE reaches a file); to save a "
               "result, give --out FILE")


def _sandbox_error(msg: str) -> StoreError | None:
    if any(s in msg for s in _EXTENSIONS):
        return StoreError("extensions are never installed or loaded: unostats works offline "
                          "and its SQL stays in the results store")
    if m := _OUTSIDE.search(msg):
        return StoreError(f"{m.group(1)!r} is out of a query's reach: {_STORE_ONLY}")
    if m := _OWN_FILE.search(msg):
        return StoreError(f"{m.group(1)!r} is the results store's own file, never written by "
                          f"a query: {_STORE_ONLY}")
    if m := _LOCKED.search(msg):
        return StoreError(f"the setting {m.group(1)} cannot be changed: the configuration is "
                          "locked (SET, RESET and PRAGMA included) so that SQL stays in the "
                          "results store")
    return None


def _user_error(e: duckdb.Error, write: str | None = None) -> StoreError:
    """``write``: the kind of a write refused on a read-only connection (found by the caller
    when DuckDB's own message does not say so)."""
    msg = str(e)
    if refused := _sandbox_error(msg):
        return refused
    if write or "read-only mode" in msg:
        kind = write or (m.group(1) if (m := re.search(r'statement of type "(\w+)"', msg))
                         else None)
        what = f"{kind} statements" if kind else "statements that write"
        return StoreError(
            f"the results database is open read-only: {what} are not allowed "
            "(only `unostats simulate` writes; CREATE TEMP TABLE works for scratch work)"
        )
    lines = [ln.strip() for ln in msg.strip().splitlines()]  # the LINE/caret excerpt dropped
    return StoreError(" ".join(" ".join(ln for ln in lines if ln and not ln.startswith("LINE ")
                                        and set(ln) != {"^"}).split()))


# Statements whose rows are read in chunks as they are printed (a cursor streams them).
STREAMED = ("SELECT", "EXPLAIN", "PRAGMA", "CALL")
FETCH_ROWS = 2048


def sql_rows(con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, Any] | None = None,
             *, arrow: bool = False) -> tuple[list[str], list[str], Iterator[Any]] | None:
    """Run SQL; the last statement's (columns, type names, rows), None if it returns no rows.
    The rows of a query come in chunks while they are read, so a result of any length takes
    constant memory (``arrow``: as Arrow record batches instead of tuples). Each statement gets
    the parameters it names; a parameter no statement names, or a parameter named and not
    given, is an error. DuckDB errors (also while rows are read) become one-line StoreErrors."""
    params = dict(params or {})
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as e:
        raise _user_error(e) from None
    if not statements:
        return None
    named = set().union(*(s.named_parameters for s in statements))
    unused = sorted(set(params) - named)
    if unused:
        raise StoreError(f"--param {unused[0]}: the SQL has no ${unused[0]}"
                         + (f" (named: {', '.join('$' + n for n in sorted(named))})"
                            if named else ""))
    missing = sorted(named - set(params))
    if missing and not missing[0].isidentifier():
        raise StoreError(f"the SQL has the numbered parameter ${missing[0]}; name it instead "
                         "($name) and give its value with --param name=VALUE")
    if missing:
        raise StoreError(f"the SQL uses ${missing[0]} but no value is given for it; pass one "
                         f"with --param {missing[0]}=VALUE")
    try:
        for statement in statements[:-1]:  # run to their end, their rows unread
            con.execute(statement.query, {k: params[k] for k in statement.named_parameters})
            con.complete()
        last = statements[-1]
        own = {k: params[k] for k in last.named_parameters}
        if arrow:
            rel = con.sql(last.query, params=own or None)
            if rel is None:
                return None
            return (list(rel.columns), [str(t) for t in rel.types],
                    Batches(rel.to_arrow_reader(FETCH_ROWS)))
        if last.type.name not in STREAMED:
            rel = con.sql(last.query, params=own or None)
            if rel is None:
                return None
            return list(rel.columns), [str(t) for t in rel.types], iter(rel.fetchall())
        cur = con.execute(last.query, own)
        if cur.description is None:
            return None
        columns = [d[0] for d in cur.description]
        types = [str(d[1]) for d in cur.description]
    except duckdb.Error as e:
        raise _user_error(e, _view_write(con, sql, e)) from None
    return columns, types, _chunks(cur)


class Batches:
    """A result's Arrow record batches as they are read (DuckDB errors become StoreErrors),
    and their ``schema`` (known before the first batch, also for no rows)."""

    def __init__(self, reader):
        self.schema = reader.schema
        self._reader = reader

    def __iter__(self) -> Iterator[Any]:
        import pyarrow as pa  # here: a query printing rows does not pay for pyarrow

        try:
            yield from self._reader
        except (duckdb.Error, pa.ArrowException) as e:
            raise _user_error(e) from None


def _chunks(cur) -> Iterator[tuple]:
    while True:
        try:
            rows = cur.fetchmany(FETCH_ROWS)
        except duckdb.Error as e:
            raise _user_error(e) from None
        if not rows:
            return
        yield from rows


# --- Export ------------------------------------------------------------------------------------

EXPORT_TABLES = ("runs", "variants", "games", "game_seats", "rounds", "round_seats")
# The tables a run that kept games or summary adds (``keep``; by cell id: exported with the cell
# columns).
KEPT_EXPORTS = {"rows": (), "games": ("game_totals", "round_lengths"),
                "summary": ("block_sums", "round_lengths")}
BY_CELL_ID = ("game_totals", "round_lengths", "block_sums")


def export_run(con: duckdb.DuckDBPyConnection, run_id: str, out_dir: str | os.PathLike,
               fmt: str = "parquet", overwrite: bool = False) -> list[Path]:
    """Write each table's rows of one run to out_dir/<table>.<fmt>; returns the paths (a
    tournament run adds its tournament tables, a league run league_fits, a precision-targeted
    run precision_looks, a run that kept games or summary what it kept). Every path is checked (``files.check_output``: an existing file only
    with ``overwrite``) before the first is written."""
    if fmt not in ("parquet", "csv"):
        raise StoreError(f"unknown export format {fmt!r}; use parquet or csv")
    run_info(con, run_id)  # clean error for an unknown run
    tables = EXPORT_TABLES + (tournaments.TOURNAMENT_TABLES
                              if tournaments.is_tournament_run(con, run_id) else ())
    if leagues.is_league_run(con, run_id):
        tables += leagues.LEAGUE_TABLES  # a league run's ratings
    if con.execute("SELECT count(*) FROM precision_looks WHERE run_id = ?",
                   [run_id]).fetchall()[0][0]:
        tables += ("precision_looks",)  # a precision-targeted run's looks
    tables += KEPT_EXPORTS[run_keep(con, run_id)]  # what a run that kept less stored
    out = Path(out_dir)
    paths = [files.check_output(out / f"{table}.{fmt}", overwrite=overwrite,
                                    what="the export") for table in tables]
    options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER"
    for table, path in zip(tables, paths):
        # COPY takes no bound parameters: the id is a stored run id and both literals are quoted.
        rows = (f"SELECT * FROM {table}" if table not in BY_CELL_ID else
                f"SELECT c.run_id, c.variant, c.players, t.* EXCLUDE (cell) FROM {table} t "
                "JOIN cells c USING (cell)")
        files.write_output(path, lambda tmp, rows=rows: con.execute(
            f"COPY ({rows} WHERE run_id = {sql_literal(run_id)}) "
            f"TO {sql_literal(str(tmp))} ({options})"), what="the export", overwrite=overwrite)
    return paths


