"""SQL helpers every part of the store shares: its errors, the transaction, CREATE TABLE text
from column lists, the casting INSERT of a registered frame, the Wilson interval macros and
turns as minutes at a run's pace.
Outside the ``store`` package so that each kind's tables (``tournaments.spec.tables``,
``leagues.spec.tables``) build on them without importing the store they are part of."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from .durations import KEY, SECONDS_PER_TURN_DEFAULT
from .stats import Z95  # the SQL Wilson macros use the same z as stats.wilson_interval


class StoreError(Exception):
    """An expected problem with the results database, phrased as one line for the user."""


class UnknownRunError(StoreError):
    """A run reference that names no run, or several (a usage error for the CLI)."""



def table_ddl(table: str, columns: Sequence[tuple[str, str, bool]],
              checks: Sequence[str] = ()) -> str:
    """CREATE TABLE text from (name, DuckDB type, nullable) columns and CHECK conditions
    (the games tables and the tournament tables)."""
    cols = [f"{n} {t}{'' if null else ' NOT NULL'}" for n, t, null in columns]
    cols += [f"CHECK ({c})" for c in checks]
    return f"CREATE TABLE IF NOT EXISTS {table} (\n  " + ",\n  ".join(cols) + "\n)"


# Wilson 95% bounds as SQL macros so views and `unostats query` users share one formula
# (stats.wilson_interval is the Python twin; tests compare them).
MACROS_DDL = [
    f"""CREATE OR REPLACE MACRO wilson_lo(k, n, z := {Z95}) AS
  CASE WHEN n > 0 THEN
    ((k / n + z * z / (2 * n)) - z * sqrt((k / n) * (1 - k / n) / n + z * z / (4 * n * n)))
    / (1 + z * z / n) END""",
    f"""CREATE OR REPLACE MACRO wilson_hi(k, n, z := {Z95}) AS
  CASE WHEN n > 0 THEN
    ((k / n + z * z / (2 * n)) + z * sqrt((k / n) * (1 - k / n) / n + z * z / (4 * n * n)))
    / (1 + z * z / n) END""",
]


def first_row(cur: duckdb.DuckDBPyConnection) -> tuple | None:
    """First row or None. Fetches everything: DuckDB 2 refuses relation queries (con.sql) while
    an execute() result is unread, which fetchone() would leave behind."""
    rows = cur.fetchall()
    return rows[0] if rows else None


def first_line(msg: str) -> str:
    return msg.strip().splitlines()[0] if msg.strip() else msg


class transaction:
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


def as_json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def insert_view(con: duckdb.DuckDBPyConnection, table: str,
                columns: Sequence[tuple[str, str, bool]], view: str,
                key: Mapping[str, Any], what: str | None = None) -> None:
    """INSERT a registered frame into ``table``: the ``key`` values (its first columns, in
    order), then the frame's ``columns`` cast to their types. ``what``: the rows' name in an
    error (default ``table``)."""
    values = ", ".join(f"${k}" for k in key)
    select = ", ".join(f"CAST({n} AS {t})" for n, t, _ in columns)
    try:
        con.execute(f"INSERT INTO {table} SELECT {values}, {select} FROM {view}", dict(key))
    except duckdb.Error as e:  # e.g. a value outside its column's type
        raise StoreError(f"cannot store the batch's {what or table}: {first_line(str(e))}") from e


def sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# Durations: turns as minutes at each run's pace, its seconds per turn read from its resolved
# scenario (the durations views).
PACE = f"""SELECT run_id, coalesce(TRY_CAST(json_extract(scenario_json, '$.{KEY}') AS DOUBLE),
    {SECONDS_PER_TURN_DEFAULT}) AS seconds_per_turn FROM runs"""
_DURATION_METHOD = "'mean ± 1.96 SE of the turns, times seconds_per_turn'"


def minutes(mean: str, se: str, p50: str, p90: str) -> str:
    """The duration columns from turn columns (``p`` is the pace's table alias)."""
    per_minute = "p.seconds_per_turn / 60.0"
    return f"""({mean}) * {per_minute} AS mean_minutes,
  (({mean}) - {Z95} * {se}) * {per_minute} AS lo_minutes,
  (({mean}) + {Z95} * {se}) * {per_minute} AS hi_minutes,
  ({p50}) * {per_minute} AS p50_minutes,
  ({p90}) * {per_minute} AS p90_minutes,
  {_DURATION_METHOD} AS method"""
