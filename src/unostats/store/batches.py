"""A batch accepted exactly once: the write an executor uses when a batch may arrive twice (a
cluster task retried after its worker died, a result delivered again).

A batch is keyed by its cell and its games: (run, variant, players, first game, end game). The
results tables carry no index (``store.games``); they stay unique because a cell's games are
stored in order without gaps, so the cell's stored game count says which keys are taken. Against
it a delivered batch is:

- new (it starts where the stored games end): written, one transaction, as ``write_batch``;
- a repeat (every game already stored): a no-op;
- overlapping the end (a resume that cut batches at other points): its new games only;
- beyond a gap (games missing before it): refused, since storing it would leave a hole.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from ..sql import StoreError
from .games import completed_games, frames_of, write_batch


def write_batch_once(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                     first: int, end: int, batch: Any) -> int:
    """Store games ``first`` .. ``end - 1`` of a cell (an engine batch of Arrow tables) unless
    they are stored already. Returns the number of games written (0 for a repeat)."""
    stored = completed_games(con, run_id, variant, players)
    if end <= stored:
        return 0
    if first > stored:
        raise StoreError(f"batch games {first}..{end - 1} of ({variant}, {players} players) "
                         f"would leave a gap: games {stored}..{first - 1} are not stored yet")
    frames = frames_of(batch)
    if first < stored:  # the stored games' rows dropped, the rest written
        if frames["round_lengths"] is not None:
            raise StoreError(f"batch games {first}..{end - 1} of ({variant}, {players} players) "
                             f"overlap the stored games 0..{stored - 1}, and their round lengths "
                             "(a run that keeps less than rows) cannot be split by game")
        frames = {name: None if table is None else _games_from(table, stored)
                  for name, table in frames.items()}
    write_batch(con, run_id, variant, players,
                type(batch)(**{name: frames[name] for name in type(batch)._fields}))
    return end - stored


def _games_from(table: Any, first: int) -> pa.Table:
    table = table if isinstance(table, pa.Table) else table.to_arrow()
    return table.filter(pc.greater_equal(table["game"], first))

