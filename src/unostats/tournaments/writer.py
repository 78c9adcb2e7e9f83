"""The write of whole tournaments: their table games through the store's games writer and
their ``tournaments``, ``tournament_tables`` and ``tournament_entrants`` rows, in one
transaction. Apart from ``tables`` because it writes games, which the store's schema (built
from ``tables``) must not need."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from ..sql import StoreError, first_row, insert_view, transaction
from ..store import games
from .spec.tables import BATCH_TABLES, COLUMNS, completed_tournaments


def write_tournaments(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, field: str,
                      games_by_size: Mapping[int, Any],
                      frames: Mapping[str, pa.Table | pl.DataFrame]) -> None:
    """Store whole tournaments of one cell in one transaction: their table games
    (``games_by_size``: players -> an engine Batch of that table size, games numbered to
    continue the cell) and their ``tournaments``, ``tournament_tables`` and
    ``tournament_entrants`` rows (Arrow tables or polars frames; DuckDB scans Arrow in place).
    The batch's tournaments must continue the stored ones (no gaps, no repeats)."""
    frames = {name: games.as_arrow(frames[name]) for name in BATCH_TABLES}
    for name in BATCH_TABLES:
        _check_columns(name, frames[name])
    n = frames["tournaments"].num_rows
    if n == 0:
        return
    views: dict[str, str] = {}
    table_games = {players: {name: games.as_arrow(df)
                             for name, df in games.frames_of(batch).items()}
                   for players, batch in games_by_size.items()}
    for name in BATCH_TABLES:
        views[name] = f"_tbatch_{name}"
        con.register(views[name], frames[name])
    try:
        with transaction(con):
            first = completed_tournaments(con, run_id, variant, field)
            _check_tournament_range(frames, first)
            _check_field(con, run_id, variant, field)
            n_games = 0
            for players, batch_frames in table_games.items():
                games.insert_games(con, run_id, variant, players, batch_frames)
                n_games += batch_frames["games"].num_rows
            key = {"run_id": run_id, "variant": variant, "field": field}
            for name in BATCH_TABLES:
                insert_view(con, name, COLUMNS[name], views[name], key)
            con.execute("UPDATE runs SET games_completed = games_completed + ? WHERE run_id = ?",
                        [n_games, run_id])
    finally:
        for view in views.values():
            con.unregister(view)


def _check_columns(name: str, table: pa.Table) -> None:
    expected = [c for c, _, _ in COLUMNS[name]]
    if table.column_names != expected:
        raise StoreError(f"tournament frame {name!r} has columns {table.column_names}, "
                         f"expected {expected}")


def _check_field(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, field: str) -> None:
    if not first_row(con.execute(
            "SELECT 1 FROM tournament_fields WHERE run_id = ? AND variant = ? AND field = ?",
            [run_id, variant, field])):
        raise StoreError(f"run {run_id} has no tournament cell ({variant}, field {field!r})")


def _check_tournament_range(frames: Mapping[str, pa.Table], first: int) -> None:
    t = frames["tournaments"].column("tournament").to_numpy()
    n = len(t)
    if t.min() != first or t.max() != first + n - 1 or len(np.unique(t)) != n:
        raise StoreError(
            f"batch tournaments {t.min()}..{t.max()} ({n} rows) do not continue the stored "
            f"tournaments 0..{first - 1}; whole tournaments are written in order")
    for name in ("tournament_tables", "tournament_entrants"):
        s = frames[name].column("tournament").to_numpy()
        if len(s) and (s.min() < first or s.max() > first + n - 1):
            raise StoreError(f"batch frame {name!r} has tournaments outside the batch")
