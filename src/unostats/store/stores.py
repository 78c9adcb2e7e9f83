"""Which store a run writes and a reader reads: a DuckDB results file (``--db FILE``) or a
Parquet dataset (``--store parquet:DIR``, ``parquet``), behind one ``open_store`` and one
``write_batch``. Everything else takes the connection ``open_store`` returns and runs the same
SQL on either."""

from __future__ import annotations

import os
from typing import Any

import duckdb

from . import database, games, parquet


def open_store(path: str | os.PathLike | parquet.ParquetLocation, *, read_only: bool,
               memory_limit: str | None = None, writes_in: str | os.PathLike | None = None
               ) -> Any:
    """Open the results file, or the Parquet store a ``ParquetLocation`` names (a reader: a
    DuckDB connection over its views, sandboxed: ``database.sandbox``, ``writes_in`` the one
    folder it may write; the writer: a ``parquet.ParquetWriter``). Writing creates it if
    needed."""
    if isinstance(path, parquet.ParquetLocation):
        if read_only:
            return parquet.open_reader(path, memory_limit, writes_in)
        return parquet.ParquetWriter(path, memory_limit or database.WRITER_MEMORY_LIMIT)
    return database.open_store(path, read_only=read_only, memory_limit=memory_limit,
                               writes_in=writes_in)


def write_batch(con: duckdb.DuckDBPyConnection | parquet.ParquetWriter, run_id: str,
                variant: str, players: int, batch: Any) -> None:
    """Store one engine batch in whichever store ``con`` writes (``games.write_batch``,
    ``parquet.write_batch``)."""
    if isinstance(con, parquet.ParquetWriter):
        parquet.write_batch(con, run_id, variant, players, batch)
    else:
        games.write_batch(con, run_id, variant, players, batch)


def missing_ranges(con: duckdb.DuckDBPyConnection | parquet.ParquetWriter, run_id: str,
                   variant: str, players: int, games_wanted: int) -> list[tuple[int, int]]:
    """The game ranges of a cell still to play up to ``games_wanted``: in a file, the games
    after the stored ones (stored in order); in a Parquet store, every gap between recorded
    batches too (an executor may record them in any order)."""
    if isinstance(con, parquet.ParquetWriter):
        return parquet.missing_ranges(con, run_id, variant, players, games_wanted)
    done = games.completed_games(con, run_id, variant, players)
    return [(done, games_wanted)] if done < games_wanted else []


def is_parquet(target: Any) -> bool:
    return isinstance(target, parquet.ParquetLocation)
