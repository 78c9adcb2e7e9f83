"""The games of the store: the engine's frames (``games``, ``game_seats``, ``rounds``,
``round_seats``; views over ``stored_games`` ... whose rows carry an integer cell id, see
``CELLS_DDL``), their standard views, and the write of one batch.

Integrity without indexes: DuckDB maintains an ART index per primary key on every insert.
Measured on 1M rounds + 4M round_seats (+ games, game_seats; 7.5M rows, 2 shared cores, batches
of 100k rounds): no results-table keys ~1.5-2.4M rows/s and a 45 MB file; keys on all four
tables ~0.7-0.9M rows/s and 300 MB; keys on games and game_seats only ~1.5M rows/s and 98 MB.
So only ``meta``, ``runs`` and ``variants`` carry primary keys. The results tables stay unique by
construction: ``write_batch`` accepts a batch only if its games continue the cell exactly where
the stored games end and every frame stays inside those games; ``duplicate_keys`` checks the
logical keys (tests use it).

Atomicity: each batch is one transaction (its four tables plus ``runs.games_completed``), so a
killed writer leaves only whole batches and a resume continues from ``completed_games``. Batches
of >= ~100k rows per table are much faster (DuckDB writes them straight to the file instead of the
WAL): 20k-round batches run at ~0.8M rows/s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from .. import codes
from ..codes import COUNTER_NAMES
from .runs import no_run
from .sql import StoreError, first_line, first_row, sql_literal, table_ddl, transaction

# Columns of the engine's frames: (name, DuckDB type, nullable). Compact types where the rule
# table's bounds allow (seats <= 10); INTEGER/BIGINT where caps reach millions (max_turns,
# max_rounds). Frames may use any narrower dtype: inserts CAST, and overflow fails the batch.
FRAME_COLUMNS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "games": (
        ("game", "INTEGER", False),
        ("rounds", "INTEGER", False),
        ("turns", "BIGINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("margin", "INTEGER", True),
        ("ended_by", "VARCHAR", False),
    ),
    "game_seats": (
        ("game", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("policy", "VARCHAR", False),
        ("final_score", "INTEGER", False),
        ("rank", "SMALLINT", False),
        ("is_winner", "BOOLEAN", False),
        ("is_loser", "BOOLEAN", False),
    ),
    "rounds": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("dealer_seat", "SMALLINT", False),
        ("first_seat", "SMALLINT", False),
        ("winner_seat", "SMALLINT", True),
        ("winner_position", "SMALLINT", True),
        *((name, "INTEGER", False) for name in COUNTER_NAMES),
        ("points", "INTEGER", False),
        ("ended_by", "VARCHAR", False),
        ("loser_seat", "SMALLINT", True),
        ("largest_penalty", "INTEGER", False),
    ),
    "round_seats": (
        ("game", "INTEGER", False),
        ("round", "INTEGER", False),
        ("seat", "SMALLINT", False),
        ("position", "SMALLINT", False),
        ("cards_left", "INTEGER", False),
        ("hand_points", "INTEGER", False),
        ("score_after", "INTEGER", False),
        ("hands_emptied", "SMALLINT", False),
        ("finish_place", "SMALLINT", True),
    ),
}

# Logical keys of the results tables (documented and checked by tests, not indexed).
RESULT_KEYS = {
    "games": ("run_id", "variant", "players", "game"),
    "game_seats": ("run_id", "variant", "players", "game", "seat"),
    "rounds": ("run_id", "variant", "players", "game", "round"),
    "round_seats": ("run_id", "variant", "players", "game", "round", "seat"),
}

# Where the rows are: each cell (run_id, variant, players) gets an integer id in ``cells`` when
# its first batch is stored; the rows are stored in ``stored_games`` ... and the views ``games``,
# ``game_seats``, ``rounds`` and ``round_seats`` give readers the columns they always saw (cell
# columns first, then ``FRAME_COLUMNS``, same types, same rows in the same order).
#
# DuckDB's write costs about the same per stored value whatever the value (measured on 293k rounds
# at 4 players, one thread: ~25-35 ns a value, a constant column included; compression ~30% of
# it). So the small bounded columns of a row are stored together in one BIGINT, ``slots``: each
# field in ``SLOTS[table]`` (name, bits) from bit 0 up. (The cell id stays a column of its own:
# stored constant within a batch, DuckDB scans it as a constant vector and the views look its
# cell columns up once a vector; decoded from ``slots`` it cost readers a lookup per row, 3x the
# time of a GROUP BY over the cell columns.) A NULL is the field's all-ones code, a name (ended_by) its index in the names, a
# boolean 0/1; a value outside its field fails the batch (seats, positions and ranks are < 10 and
# hands_emptied <= hand_size <= 20 by the rule table). The views decode the fields. The fields
# that vary most in a row group sit at the top (bitpacking stores each group in the bits its
# values span). Measured (391k rounds, 4 players, batches of 10,000 games, CPU of the writes):
# 2.26 -> 1.72 us a round (round_seats 10 stored values a row -> 5, rounds 28 -> 22), the file
# 17.1 -> 19.1 MB.
CELLS_DDL = """CREATE TABLE IF NOT EXISTS cells (
  cell INTEGER PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  UNIQUE (run_id, variant, players)
)"""
STORED = {name: f"stored_{name}" for name in FRAME_COLUMNS}
_NAMES = {("games", "ended_by"): codes.GAME_END_NAMES, ("rounds", "ended_by"): codes.ROUND_END_NAMES}
SLOTS: dict[str, tuple[tuple[str, int], ...]] = {
    "games": (("first_seat", 4), ("winner_seat", 4), ("ended_by", 1)),
    "game_seats": (("seat", 4), ("rank", 4), ("is_winner", 1), ("is_loser", 1)),
    "rounds": (("dealer_seat", 4), ("first_seat", 4), ("winner_seat", 4), ("winner_position", 4),
               ("loser_seat", 4), ("ended_by", 1)),
    "round_seats": (("seat", 4), ("position", 4), ("finish_place", 4), ("hands_emptied", 5),
                    ("cards_left", 16)),
}


def _stored_columns(table: str) -> tuple[tuple[str, str, bool], ...]:
    """The stored table's columns: the cell id, ``slots``, then the frame's columns not in it."""
    packed = {n for n, _ in SLOTS[table]}
    return (("cell", "INTEGER", False), ("slots", "BIGINT", False),
            *(c for c in FRAME_COLUMNS[table] if c[0] not in packed))


TABLES_DDL = [
    CELLS_DDL,
    *(table_ddl(STORED[t], _stored_columns(t)) for t in FRAME_COLUMNS),
]


def _fields(table: str) -> dict[str, tuple[int, int, str, bool]]:
    """Each packed field: (offset, mask, DuckDB type, nullable)."""
    types = {n: (t, null) for n, t, null in FRAME_COLUMNS[table]}
    out, offset = {}, 0
    for name, bits in SLOTS[table]:
        out[name] = (offset, (1 << bits) - 1, *types[name])
        offset += bits
    return out


def _encode(table: str, name: str, mask: int, sql_type: str, nullable: bool) -> tuple[str, str]:
    """(the field's code as BIGINT SQL, the condition that it fits) for frame column ``name``."""
    if (table, name) in _NAMES:
        names = _NAMES[table, name]
        code = ("CASE " + " ".join(f"WHEN {name} = {sql_literal(v)} THEN {i}"
                                   for i, v in enumerate(names)) + " END")
        return code, f"{name} IN ({', '.join(sql_literal(v) for v in names)})"
    if sql_type == "BOOLEAN":
        return f"CAST({name} AS BIGINT)", f"{name} IS NOT NULL"
    top = mask - 1 if nullable else mask  # a nullable field keeps its all-ones code for NULL
    value = f"CAST({name} AS BIGINT)"
    return (f"coalesce({value}, {mask})" if nullable else value,
            f"{'coalesce(' + value + ', 0)' if nullable else value} BETWEEN 0 AND {top}")


def _slots_sql(table: str) -> str:
    """The SELECT expression of a frame row's ``slots``; a field that does not fit raises an
    error naming the fields."""
    parts, fits = [], []
    for name, (offset, mask, sql_type, nullable) in _fields(table).items():
        code, fit = _encode(table, name, mask, sql_type, nullable)
        parts.append(f"(({code}) << {offset})" if offset else f"({code})")
        fits.append(fit)
    message = (f"a value of {', '.join(_fields(table))} is outside what the store holds "
               f"({', '.join(f'{n} {b} bits' for n, b in SLOTS[table])})")
    return (f"CASE WHEN {' AND '.join(fits)} THEN {' | '.join(parts)} "
            f"ELSE error({sql_literal(message)}) END")


def _code(table: str, name: str) -> str:
    """The raw code of packed field ``name`` of a stored row (a name's index, a boolean 0/1)."""
    offset, mask, _, _ = _fields(table)[name]
    return f"((t.slots >> {offset}) & {mask})"


def _decode(table: str, name: str) -> str:
    """The view's expression of frame column ``name`` (packed or stored as is)."""
    fields = _fields(table)
    if name not in fields:
        return f"t.{name}"
    _, mask, sql_type, nullable = fields[name]
    code = _code(table, name)
    if (table, name) in _NAMES:
        whens = " ".join(f"WHEN {i} THEN {sql_literal(v)}"
                         for i, v in enumerate(_NAMES[table, name]))
        return f"CAST(CASE {code} {whens} END AS {sql_type}) AS {name}"
    if sql_type == "BOOLEAN":
        return f"{code} = 1 AS {name}"
    if nullable:
        code = f"nullif({code}, {mask})"
    return f"CAST({code} AS {sql_type}) AS {name}"


def _cell_view(name: str) -> str:
    """The view ``name``: the cell columns looked up by id (cells are numbered 1, 2, ... and never
    removed), so the rows come in the order they were stored, as a scan of a table gives them (a
    join with ``cells`` would not keep that order); the packed fields decoded."""
    lookups = ", ".join(f"(SELECT list({c} ORDER BY cell) FROM cells)[t.cell] AS {c}"
                        for c in ("run_id", "variant", "players"))
    columns = ", ".join(_decode(name, n) for n, _, _ in FRAME_COLUMNS[name])
    return (f"CREATE OR REPLACE VIEW {name} AS\nSELECT {lookups},\n  {columns}\n"
            f"FROM {STORED[name]} t")


def _insert_sql(name: str, view: str) -> str:
    """INSERT of a registered frame ``view`` into the stored table (the cell id as $cell)."""
    packed = {n for n, _ in SLOTS[name]}
    select = ", ".join(["$cell", _slots_sql(name)] + [f"CAST({n} AS {t})" for n, t, _
                                             in FRAME_COLUMNS[name] if n not in packed])
    return f"INSERT INTO {STORED[name]} SELECT {select} FROM {view}"


# Quantiles are quantile_cont (linear interpolation, numpy's default); sd is the sample sd.
# The results tables as readers see them (the standard views below read these).
CELL_VIEWS_DDL = [_cell_view(name) for name in FRAME_COLUMNS]

VIEWS_DDL = [
    # Turns per round; capped rounds are included (at the cap) and their share is reported.
    """CREATE OR REPLACE VIEW round_length AS
SELECT run_id, variant, players,
  count(*) AS n,
  avg(turns) AS mean_turns,
  stddev_samp(turns) AS sd_turns,
  stddev_samp(turns) / sqrt(count(*)) AS se_turns,
  quantile_cont(turns, 0.10) AS p10,
  quantile_cont(turns, 0.50) AS p50,
  quantile_cont(turns, 0.90) AS p90,
  quantile_cont(turns, 0.99) AS p99,
  max(turns) AS max_turns,
  count(*) FILTER (WHERE ended_by = 'cap') AS n_capped,
  count(*) FILTER (WHERE ended_by = 'cap') / count(*) AS share_capped
FROM rounds
GROUP BY run_id, variant, players""",
    # Who wins a round by position (0 = first player). n = rounds with a winner, so rates sum
    # to 1 and equal positions means 1/players each. Positions without a win show wins = 0.
    """CREATE OR REPLACE VIEW win_rate_by_position AS
WITH cells AS (
  SELECT run_id, variant, players, count(*) FILTER (WHERE ended_by = 'win') AS n
  FROM rounds GROUP BY run_id, variant, players
), slots AS (
  SELECT run_id, variant, players, n, unnest(range(players)) AS position FROM cells
), wins AS (
  SELECT run_id, variant, players, winner_position AS position, count(*) AS wins
  FROM rounds WHERE ended_by = 'win'
  GROUP BY run_id, variant, players, winner_position
)
SELECT s.run_id, s.variant, s.players, CAST(s.position AS SMALLINT) AS position,
  coalesce(w.wins, 0) AS wins, s.n,
  coalesce(w.wins, 0) / s.n AS rate,
  wilson_lo(coalesce(w.wins, 0), s.n) AS lo,
  wilson_hi(coalesce(w.wins, 0), s.n) AS hi
FROM slots s
LEFT JOIN wins w USING (run_id, variant, players, position)
ORDER BY s.run_id, s.variant, s.players, s.position""",
    # Who wins a game by position, a seat's position being its position in round 1 of the game
    # (0 = first player of the game). n = games with a winner.
    """CREATE OR REPLACE VIEW game_win_rate_by_position AS
WITH cells AS (
  SELECT run_id, variant, players, count(*) FILTER (WHERE winner_seat IS NOT NULL) AS n
  FROM games GROUP BY run_id, variant, players
), slots AS (
  SELECT run_id, variant, players, n, unnest(range(players)) AS position FROM cells
), wins AS (
  SELECT gs.run_id, gs.variant, gs.players, rs.position, count(*) AS wins
  FROM game_seats gs
  JOIN round_seats rs
    ON rs.run_id = gs.run_id AND rs.variant = gs.variant AND rs.players = gs.players
   AND rs.game = gs.game AND rs.round = 1 AND rs.seat = gs.seat
  WHERE gs.is_winner
  GROUP BY gs.run_id, gs.variant, gs.players, rs.position
)
SELECT s.run_id, s.variant, s.players, CAST(s.position AS SMALLINT) AS position,
  coalesce(w.wins, 0) AS wins, s.n,
  coalesce(w.wins, 0) / s.n AS rate,
  wilson_lo(coalesce(w.wins, 0), s.n) AS lo,
  wilson_hi(coalesce(w.wins, 0), s.n) AS hi
FROM slots s
LEFT JOIN wins w USING (run_id, variant, players, position)
ORDER BY s.run_id, s.variant, s.players, s.position""",
    # Round points over rounds with a winner; margin over games with a winner; the spread of
    # final scores within a game (sample sd across its seats), averaged over games.
    """CREATE OR REPLACE VIEW score_spread AS
WITH r AS (
  SELECT run_id, variant, players,
    count(*) AS n_rounds, avg(points) AS mean_points, stddev_samp(points) AS sd_points,
    stddev_samp(points) / sqrt(count(*)) AS se_points
  FROM rounds WHERE ended_by = 'win' GROUP BY run_id, variant, players
), g AS (
  SELECT run_id, variant, players,
    count(*) AS n_games, avg(margin) AS mean_margin, stddev_samp(margin) AS sd_margin,
    stddev_samp(margin) / sqrt(count(*)) AS se_margin
  FROM games WHERE winner_seat IS NOT NULL GROUP BY run_id, variant, players
), s AS (
  SELECT run_id, variant, players, avg(score_sd) AS mean_final_score_sd
  FROM (SELECT run_id, variant, players, game, stddev_samp(final_score) AS score_sd
        FROM game_seats GROUP BY run_id, variant, players, game)
  GROUP BY run_id, variant, players
)
SELECT * FROM r FULL JOIN g USING (run_id, variant, players)
  FULL JOIN s USING (run_id, variant, players)
ORDER BY run_id, variant, players""",
    # Rounds and turns per game, over all games (capped ones included, share reported).
    """CREATE OR REPLACE VIEW game_length AS
SELECT run_id, variant, players,
  count(*) AS n,
  avg(rounds) AS mean_rounds,
  stddev_samp(rounds) AS sd_rounds,
  stddev_samp(rounds) / sqrt(count(*)) AS se_rounds,
  quantile_cont(rounds, 0.10) AS p10_rounds,
  quantile_cont(rounds, 0.50) AS p50_rounds,
  quantile_cont(rounds, 0.90) AS p90_rounds,
  quantile_cont(rounds, 0.99) AS p99_rounds,
  avg(turns) AS mean_turns,
  stddev_samp(turns) AS sd_turns,
  stddev_samp(turns) / sqrt(count(*)) AS se_turns,
  quantile_cont(turns, 0.10) AS p10_turns,
  quantile_cont(turns, 0.50) AS p50_turns,
  quantile_cont(turns, 0.90) AS p90_turns,
  quantile_cont(turns, 0.99) AS p99_turns,
  count(*) FILTER (WHERE ended_by = 'cap') / count(*) AS share_capped
FROM games
GROUP BY run_id, variant, players""",
]
VIEWS = ("round_length", "win_rate_by_position", "game_win_rate_by_position", "score_spread",
         "game_length")


def write_batch(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                batch: Any) -> None:
    """Store one engine batch (games, game_seats, rounds, round_seats: polars DataFrames or
    pyarrow Tables) in one transaction.

    The batch must continue the cell: its games are first..first+k-1 with first equal to
    ``completed_games``; this keeps the unindexed tables free of duplicates and gaps. DuckDB
    scans the Arrow columns where they are (a polars frame is viewed as Arrow, not copied).
    """
    frames = {name: _as_arrow(df) for name, df in frames_of(batch).items()}
    n_games = len(frames["games"])
    if n_games == 0:
        return
    # Views are registered outside the transaction: DuckDB refuses to unregister in an
    # aborted one.
    views = {name: f"_batch_{name}" for name in frames}
    for name, table in frames.items():
        con.register(views[name], table)
    try:
        with transaction(con):
            insert_games(con, run_id, variant, players, frames, views)
            con.execute("UPDATE runs SET games_completed = games_completed + ? WHERE run_id = ?",
                        [n_games, run_id])
    finally:
        for view in views.values():
            con.unregister(view)


def _as_arrow(frame: Any) -> pa.Table:
    return frame if isinstance(frame, pa.Table) else frame.to_arrow()


def frames_of(batch: Any) -> dict[str, Any]:
    """An engine batch's frames by table (as they are: polars or Arrow), each checked against
    ``FRAME_COLUMNS``."""
    frames = {name: getattr(batch, name) for name in FRAME_COLUMNS}
    for name, df in frames.items():
        _check_columns(name, df)
    return frames


def insert_games(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                 frames: Mapping[str, Any], views: Mapping[str, str]) -> None:
    """INSERT one cell's frames (``frames_of``; table -> the name they are registered under in
    ``views``) after checking that the run is running, has the cell and that the games continue
    the stored ones. The caller holds the transaction (``write_batch``, or the write of whole
    tournaments, whose table games are stored like any game)."""
    _check_cell(con, run_id, variant, players)
    cell = cell_id(con, run_id, variant, players, create=True)
    _check_game_range(frames, _stored_games(con, cell))
    for name in FRAME_COLUMNS:
        try:
            con.execute(_insert_sql(name, views[name]), {"cell": cell})
        except duckdb.Error as e:  # e.g. a value outside its column's type or field
            raise StoreError(f"cannot store the batch's {name}: {first_line(str(e))}") from e


def cell_id(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int, *,
            create: bool = False) -> int | None:
    """The id of a cell in ``cells`` (None if none of its games is stored yet; ``create``: a
    new id, the next one, inside the caller's transaction)."""
    row = first_row(con.execute(
        "SELECT cell FROM cells WHERE run_id = ? AND variant = ? AND players = ?",
        [run_id, variant, players]))
    if row is not None or not create:
        return None if row is None else row[0]
    (cell,), = con.execute("SELECT coalesce(max(cell), 0) + 1 FROM cells").fetchall()
    con.execute("INSERT INTO cells VALUES (?, ?, ?, ?)", [cell, run_id, variant, players])
    return cell


def _check_cell(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int) -> None:
    state = first_row(con.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]))
    if state is None:
        raise StoreError(no_run(run_id))
    if state[0] != "running":
        raise StoreError(f"run {run_id} is {state[0]}; resume it before writing")
    if not first_row(con.execute(
            "SELECT 1 FROM variants WHERE run_id = ? AND variant = ? AND players = ?",
            [run_id, variant, players])):
        raise StoreError(f"run {run_id} has no cell ({variant}, {players} players)")


def _check_columns(name: str, df: Any) -> None:
    expected = [n for n, _, _ in FRAME_COLUMNS[name]]
    have = df.column_names if isinstance(df, pa.Table) else df.columns
    missing = [c for c in expected if c not in have]
    extra = [c for c in have if c not in expected]
    if missing or extra:
        raise StoreError(
            f"batch frame {name!r} does not match the store schema: missing {missing}, "
            f"unexpected {extra} (add new columns to store.FRAME_COLUMNS and bump SCHEMA_VERSION)"
        )


def _check_game_range(frames: Mapping[str, Any], first: int) -> None:
    games = _games_of(frames["games"])
    n = len(games)
    lo, hi = (int(games.min()), int(games.max())) if n else (None, None)
    if lo != first or hi != first + n - 1 or len(np.unique(games)) != n:
        raise StoreError(
            f"batch games {lo}..{hi} ({n} rows) do not continue the stored "
            f"games 0..{first - 1}; batches must be written in order without repeats"
        )
    for name in ("game_seats", "rounds", "round_seats"):
        g = _games_of(frames[name])
        if len(g) and (g.min() < first or g.max() > first + n - 1):
            raise StoreError(f"batch frame {name!r} has games outside the batch's games")


def _games_of(frame: Any) -> np.ndarray:
    """The ``game`` column of a polars frame or an Arrow table, as numpy (no copy if it can)."""
    return frame["game"].to_numpy()


def completed_games(con: duckdb.DuckDBPyConnection, run_id: str, variant: str,
                    players: int) -> int:
    """Games stored for one cell; games are stored in order, so a resume starts at this index."""
    return _stored_games(con, cell_id(con, run_id, variant, players))


def _stored_games(con: duckdb.DuckDBPyConnection, cell: int | None) -> int:
    if cell is None:
        return 0
    return con.execute(f"SELECT count(*) FROM {STORED['games']} WHERE cell = ?",
                       [cell]).fetchall()[0][0]


def duplicate_keys(con: duckdb.DuckDBPyConnection,
                   tables: Iterable[str] = RESULT_KEYS) -> dict[str, int]:
    """Count logical-key duplicates per results table (an integrity check; 0 everywhere)."""
    counts = {}
    for table in tables:
        keys = ", ".join(RESULT_KEYS[table])
        counts[table] = con.execute(
            f"SELECT count(*) FROM (SELECT {keys} FROM {table} GROUP BY {keys} HAVING count(*) > 1)"
        ).fetchall()[0][0]
    return counts
