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

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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
# it). So columns of a row are stored packed, several in one BIGINT, a *word* (an INTEGER where
# its fields fit 31 bits: ``_word_type``): each word of ``WORDS[table]`` lists its fields
# (name, bits) from bit 0 up. (The cell id stays a column of its
# own: stored constant within a batch, DuckDB scans it as a constant vector and the views look its
# cell columns up once a vector; decoded from a word it cost readers a lookup per row, 3x the
# time of a GROUP BY over the cell columns.) The views decode the fields; nothing is lost:
#
# - a small bounded field (``bits`` < 32) holds a code from 0 to 2**bits - 1: a NULL is the
#   all-ones code, a name (ended_by) its index in the names, a boolean 0/1; seats, positions and
#   ranks are < 10, hands_emptied <= hand_size <= 20 and cards_left <= the deck's 2,360 cards
#   at most (40 of each kind) by the rule table; a policy is its code in ``policies``;
# - an INTEGER field (32 bits) holds any INTEGER: value + 2**31, or the value itself (signed)
#   at the top of a word, which the views take with an arithmetic shift;
# - a value outside its field fails the whole batch (nothing of it stored), as a CAST would.
#
# The round counters most rules leave at 0 share words two by two (a row group's words then span
# few bits: bitpacking stores each group in the bits its values span). The counters that vary,
# game, round and the scores stay columns of their own: packed too (game and round in one word,
# the varying counters paired with the quiet ones, hand_points with score_after) they took
# 0.3-0.5 us more off a round's write, but GROUP BYs over them ran 1.3-2.6x slower (decoding,
# wider words) and the file doubled. The encoding is numpy over the frames' Arrow columns
# (``_stored_frame``, ~0.1 us a round at 4 players); the rows go to DuckDB as Arrow columns.
# Measured against schema 9 (its slots encoded by SQL in the INSERT), benchmarks/store_bench.py
# --tables, 30k games of the official rules, alternated: 1.94/2.11 -> 1.82/2.00 us a round
# (rounds 23 stored values a row -> 18), the file 16.8 -> 18.4 MB. Schema 11 codes the seats'
# policies (a VARCHAR column before: DuckDB analysed and compressed its strings per batch) and
# stores the words of games, game_seats and round_seats as INTEGERs: simulate one core,
# reference rules, 150k games at 4 players, CPU per round, 7 pairs A B in fresh processes:
# median 4.04 -> 3.71 us; readers of round_seats ~2x faster (a 4-byte word to decode), a GROUP
# BY policy over 400k seats 2.7 -> 7 ms (the name looked up per row).
CELLS_DDL = """CREATE TABLE IF NOT EXISTS cells (
  cell INTEGER PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  UNIQUE (run_id, variant, players)
)"""
STORED = {name: f"stored_{name}" for name in FRAME_COLUMNS}
_NAMES = {("games", "ended_by"): codes.GAME_END_NAMES, ("rounds", "ended_by"): codes.ROUND_END_NAMES}
# A seat's policy is a name (a bundled policy's or one written as data), stored as its code in
# ``policies``: each name the file holds gets the next code when a batch first stores it.
POLICY_BITS = 16
POLICIES_DDL = """CREATE TABLE IF NOT EXISTS policies (
  code INTEGER PRIMARY KEY,
  policy VARCHAR NOT NULL UNIQUE
)"""
_POLICY = ("game_seats", "policy")
_INT = 32  # the bits of an INTEGER field
# The counters of a round that most rules leave at 0 (challenges, jump-ins, swaps ...), two in a
# word; the others (turns, cards, points ...), which vary and which readers read most, stay
# INTEGER columns of their own.
_QUIET_PAIRS = (("challenges", "challenges_won"), ("uno_penalties", "jump_ins"),
                ("hand_swaps", "card_swaps"), ("slaps", "silence_breaks"))
WORDS: dict[str, tuple[tuple[str, tuple[tuple[str, int], ...]], ...]] = {
    "games": (("slots", (("first_seat", 4), ("winner_seat", 4), ("ended_by", 1))),),
    "game_seats": (("slots", (("seat", 4), ("rank", 4), ("is_winner", 1), ("is_loser", 1),
                              ("policy", POLICY_BITS))),),
    "rounds": (("slots", (("dealer_seat", 4), ("first_seat", 4), ("winner_seat", 4),
                          ("winner_position", 4), ("loser_seat", 4), ("ended_by", 1),
                          ("mistakes", _INT))),
               *((f"{a}_{b}", ((a, _INT), (b, _INT))) for a, b in _QUIET_PAIRS)),
    "round_seats": (("slots", (("seat", 4), ("position", 4), ("finish_place", 4),
                               ("hands_emptied", 5), ("cards_left", 12))),),
}


def _packed(table: str) -> set[str]:
    return {name for _, fields in WORDS[table] for name, _ in fields}


def _stored_columns(table: str) -> tuple[tuple[str, str, bool], ...]:
    """The stored table's columns: the cell id, the words, then the frame's columns not in one."""
    packed = _packed(table)
    return (("cell", "INTEGER", False), *((w, _word_type(fields), False)
                                          for w, fields in WORDS[table]),
            *(c for c in FRAME_COLUMNS[table] if c[0] not in packed))


def _word_type(fields: tuple[tuple[str, int], ...]) -> str:
    """An INTEGER word where its fields' codes (all >= 0) fit in 31 bits, else a BIGINT: DuckDB
    appends a 4-byte value in about two thirds of the time of an 8-byte one."""
    return "INTEGER" if sum(bits for _, bits in fields) <= 31 else "BIGINT"


TABLES_DDL = [
    CELLS_DDL,
    POLICIES_DDL,
    *(table_ddl(STORED[t], _stored_columns(t)) for t in FRAME_COLUMNS),
]


@dataclass(frozen=True)
class _Field:
    word: str
    offset: int
    bits: int
    top: bool  # the word's highest field (an INTEGER one there is stored signed)
    sql_type: str
    nullable: bool

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


@functools.cache
def _fields(table: str) -> dict[str, _Field]:
    """Each packed field of ``table`` by frame column."""
    types = {n: (t, null) for n, t, null in FRAME_COLUMNS[table]}
    out = {}
    for word, fields in WORDS[table]:
        offset = 0
        for i, (name, bits) in enumerate(fields):
            sql_type, nullable = types[name]
            top = i == len(fields) - 1
            assert bits != _INT or (sql_type == "INTEGER" and not nullable), (table, name)
            assert offset + bits <= (64 if bits == _INT and top else 63), (table, word)
            out[name] = _Field(word, offset, bits, top, sql_type, nullable)
            offset += bits
    return out


def _decode(table: str, name: str) -> str:
    """The view's expression of frame column ``name`` (packed or stored as is)."""
    field = _fields(table).get(name)
    if field is None:
        return f"t.{name}"
    shifted = f"(t.{field.word} >> {field.offset})" if field.offset else f"t.{field.word}"
    if field.bits == _INT and field.top:
        return f"CAST({shifted} AS {field.sql_type}) AS {name}"
    code = f"({shifted} & {field.mask})" if not field.top else shifted
    if field.bits == _INT:
        return f"CAST({code} - {1 << 31} AS {field.sql_type}) AS {name}"
    if (table, name) == _POLICY:
        return f"(SELECT list(policy ORDER BY code) FROM policies)[{code} + 1] AS {name}"
    if (table, name) in _NAMES:
        whens = " ".join(f"WHEN {i} THEN {sql_literal(v)}"
                         for i, v in enumerate(_NAMES[table, name]))
        return f"CAST(CASE {code} {whens} END AS {field.sql_type}) AS {name}"
    if field.sql_type == "BOOLEAN":
        return f"{code} = 1 AS {name}"
    if field.nullable:
        code = f"nullif({code}, {field.mask})"
    return f"CAST({code} AS {field.sql_type}) AS {name}"


def _cell_view(name: str) -> str:
    """The view ``name``: the cell columns looked up by id (cells are numbered 1, 2, ... and never
    removed), so the rows come in the order they were stored, as a scan of a table gives them (a
    join with ``cells`` would not keep that order); the packed fields decoded."""
    lookups = ", ".join(f"(SELECT list({c} ORDER BY cell) FROM cells)[t.cell] AS {c}"
                        for c in ("run_id", "variant", "players"))
    return (f"CREATE OR REPLACE VIEW {name} AS\nSELECT {lookups},\n  {_decoded(name)}\n"
            f"FROM {STORED[name]} t")


def _decoded(name: str) -> str:
    """The frame's columns of stored table ``name`` (alias t), decoded."""
    return ", ".join(_decode(name, n) for n, _, _ in FRAME_COLUMNS[name])


# Readers that aggregate a whole table read it by cell: ``rounds_by_cell`` ... hold the cell id
# and the frame's columns (no cell columns), so a GROUP BY takes one INTEGER key and the cell
# columns are joined to its few result rows (``cells``). Grouping the views ``rounds`` ... by
# run_id, variant and players costs 3x the CPU: each row's cell columns looked up and hashed
# (9.8M rounds, value counts of turns: 0.16 -> 0.05 s). The standard views below and the
# report read these.
BY_CELL = {name: f"{name}_by_cell" for name in FRAME_COLUMNS}


def _by_cell_view(name: str) -> str:
    return (f"CREATE OR REPLACE VIEW {BY_CELL[name]} AS\nSELECT t.cell, {_decoded(name)}\n"
            f"FROM {STORED[name]} t")


# --- Encoding a frame's rows as the stored columns ----------------------------------------------

_INT_RANGE = (-(1 << 31), (1 << 31) - 1)


class _Outside(ValueError):
    """A frame column's value that its field (or type) cannot hold."""


def _stored_frame(table: str, frame: pa.Table,
                  names: Mapping[tuple[str, str], tuple[str, ...]] = _NAMES) -> pa.Table:
    """Frame ``table`` as the stored table's columns after ``cell``: its words, then the columns
    stored as they are (cast by the INSERT). Raises StoreError if a value does not fit its
    field. A word is the sum of its fields' codes times 2**offset, built in place with numpy,
    chunk by chunk of the Arrow columns (no concatenated copies). ``names``: the names each
    named field codes by its index (``_NAMES``, and the file's policies)."""
    fields = _fields(table)
    n = frame.num_rows
    columns = {}
    scratch = np.empty(n, np.int64)
    for word, members in WORDS[table]:
        value = np.full(n, _bias(table, word), np.int64)
        try:
            for name, _ in members:
                _add_codes(table, name, fields[name], frame.column(name), value, scratch, names)
        except _Outside as e:
            raise StoreError(f"cannot store the batch's {table}: {e}") from None
        columns[word] = value if _word_type(members) == "BIGINT" else value.astype(np.int32)
    packed = _packed(table)
    for name, _, _ in FRAME_COLUMNS[table]:
        if name not in packed:
            columns[name] = frame.column(name)
    return pa.table(columns)


@functools.cache
def _bias(table: str, word: str) -> int:
    """The part of ``word`` every row has: 2**31 for each INTEGER field below the top (its code
    is value + 2**31)."""
    return sum(1 << (31 + f.offset) for f in _fields(table).values()
               if f.word == word and f.bits == _INT and not f.top)


def _add_codes(table: str, name: str, field: _Field, column: pa.ChunkedArray, out: np.ndarray,
               scratch: np.ndarray, names: Mapping[tuple[str, str], tuple[str, ...]]) -> None:
    """Add frame column ``name``'s codes (an INTEGER field: its values), times 2**offset, to
    ``out``. Integer columns go chunk by chunk from the Arrow buffers (a chunk all NULL adds its
    NULL code at once), the range checked only where the column's type allows values outside
    the field; names, booleans, chunks with NULLs and values out of range take ``_code``."""
    if (table, name) in names or not pa.types.is_integer(column.type):
        codes_ = _code(table, name, field, column, names)
        np.left_shift(codes_, field.offset, out=scratch)
        np.add(out, scratch, out=out)
        return
    lo, hi = _range(field)
    start = 0
    for chunk in column.chunks:
        m = len(chunk)
        part, rows = scratch[:m], out[start:start + m]
        start += m
        if m == 0:
            continue
        if chunk.null_count == m and field.nullable:  # e.g. no finish places under first_out
            rows += field.mask << field.offset
            continue
        if chunk.null_count:
            values = _code(table, name, field, chunk, names)
        else:
            values = chunk.to_numpy()
            info = np.iinfo(values.dtype)
            if (info.min < lo or info.max > hi) and (values.min() < lo or values.max() > hi):
                values = _code(table, name, field, chunk, names)  # raises, naming it
        np.left_shift(values, field.offset, out=part, dtype=np.int64)
        np.add(rows, part, out=rows)


def _range(field: _Field) -> tuple[int, int]:
    """The values a field holds (a nullable field's all-ones code is its NULL)."""
    if field.bits == _INT:
        return _INT_RANGE
    return 0, field.mask - 1 if field.nullable else field.mask


def _code(table: str, name: str, field: _Field, column: pa.ChunkedArray | pa.Array,
          names: Mapping[tuple[str, str], tuple[str, ...]]) -> np.ndarray:
    """The codes of frame column ``name`` (or of one chunk of it) in its field, as int64 (not
    yet shifted; an INTEGER field's values as they are): the general path (names, booleans,
    NULLs); raises ``_Outside`` naming the first value that does not fit."""
    n = len(column)
    named = names.get((table, name))
    if named is not None:
        code = _name_codes(column, named)
        bad = code < 0
    elif pa.types.is_null(column.type):  # all NULL (a polars column of None)
        code, bad = np.full(n, field.mask, np.int64), np.full(n, not field.nullable)
    else:
        nulls = column.null_count
        filled = pc.fill_null(column, 0) if nulls else column
        values = filled.to_numpy(zero_copy_only=False).astype(np.int64)
        lo, hi = _range(field)
        code = values
        bad = (values < lo) | (values > hi)
        if nulls:
            is_null = column.is_null().to_numpy(zero_copy_only=False)
            if field.nullable:
                code = np.where(is_null, field.mask, code)
                bad &= ~is_null
            else:
                bad |= is_null
    if bad.any():
        raise _Outside(_outside(field, name, column, bad, named))
    return code


def _name_codes(column: pa.ChunkedArray, names: tuple[str, ...]) -> np.ndarray:
    """Each row's index in ``names`` (-1: not a name, or NULL); a dictionary column is mapped
    through its dictionary, not row by row."""
    value_set = pa.array(names, pa.string())
    parts = []
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            mapping = pc.fill_null(pc.index_in(chunk.dictionary.cast(pa.string()),
                                               value_set=value_set), -1).to_numpy()
            idx = pc.fill_null(chunk.indices, 0).to_numpy().astype(np.int64)
            code = mapping[idx].astype(np.int64) if len(mapping) else np.full(len(chunk), -1)
            if chunk.null_count:
                code[chunk.is_null().to_numpy(zero_copy_only=False)] = -1
        else:
            code = pc.fill_null(pc.index_in(chunk.cast(pa.string()), value_set=value_set),
                                -1).to_numpy().astype(np.int64)
        parts.append(code)
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _outside(field: _Field, name: str, column: pa.ChunkedArray, bad: np.ndarray,
             names: tuple[str, ...] | None) -> str:
    """The message for the rows ``bad`` of ``column``: the first such value and what fits."""
    value = column[int(np.argmax(bad))].as_py()
    if names is not None:
        holds = "one of " + ", ".join(names)
    elif field.sql_type == "BOOLEAN":
        holds = "true or false"
    elif field.bits == _INT:
        holds = f"an INTEGER ({_INT_RANGE[0]} to {_INT_RANGE[1]})"
    else:
        top = field.mask - 1 if field.nullable else field.mask
        holds = f"0 to {top}{' or NULL' if field.nullable else ''} ({field.bits} bits)"
    rows = int(bad.sum())
    return (f"{name} = {value!r} ({rows} row{'s' * (rows != 1)}) is outside what the store "
            f"holds: {holds}")


def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pa.Table, cell: int) -> None:
    """Append frame ``table``'s rows (``_stored_frame``) to its stored table (the seats'
    policies coded by ``policies``, new names added to it)."""
    names = _NAMES
    if table == _POLICY[0]:
        names = {**_NAMES, _POLICY: _policy_names(con, frame.column(_POLICY[1]))}
    stored = _stored_frame(table, frame, names)
    types = {n: t for n, t, _ in FRAME_COLUMNS[table]}
    select = ", ".join([f"CAST({int(cell)} AS INTEGER)"] + [
        name if name not in types else f"CAST({name} AS {types[name]})"
        for name in stored.column_names])
    con.from_arrow(stored).project(select).insert_into(STORED[table])


def _policy_names(con: duckdb.DuckDBPyConnection, column: pa.ChunkedArray) -> tuple[str, ...]:
    """Every policy name of ``policies`` by code, after adding those of ``column`` it lacked
    (inside the caller's transaction: a batch that fails adds none)."""
    stored = [name for name, in con.execute("SELECT policy FROM policies ORDER BY code").fetchall()]
    new = sorted(_distinct_names(column) - set(stored))
    if len(stored) + len(new) > 1 << POLICY_BITS:
        raise StoreError(f"cannot store the batch's game_seats: the file would hold more than "
                         f"{1 << POLICY_BITS:,} policy names")
    if new:
        con.executemany("INSERT INTO policies VALUES (?, ?)",
                        [[len(stored) + i, name] for i, name in enumerate(new)])
    return (*stored, *new)


def _distinct_names(column: pa.ChunkedArray) -> set[str]:
    """The names in a string or dictionary column (NULLs left out), a dictionary's through the
    codes its rows use."""
    out: set[str] = set()
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            used = pc.unique(chunk.indices).drop_null()
            chunk = chunk.dictionary.take(used)
        out.update(pc.unique(chunk.cast(pa.string())).drop_null().to_pylist())
    return out


# Quantiles are quantile_cont (linear interpolation, numpy's default); sd is the sample sd.
# The results tables as readers see them (the standard views below read these).
CELL_VIEWS_DDL = [_cell_view(name) for name in FRAME_COLUMNS]
BY_CELL_VIEWS_DDL = [_by_cell_view(name) for name in FRAME_COLUMNS]

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
WITH totals AS (
  SELECT cell, count(*) FILTER (WHERE winner_seat IS NOT NULL) AS n
  FROM games_by_cell GROUP BY cell
), slots AS (
  SELECT c.run_id, c.variant, c.players, t.cell, t.n, unnest(range(c.players)) AS position
  FROM totals t JOIN cells c USING (cell)
), wins AS (
  SELECT g.cell, rs.position, count(*) AS wins
  FROM games_by_cell g
  JOIN round_seats_by_cell rs
    ON rs.cell = g.cell AND rs.game = g.game AND rs.round = 1 AND rs.seat = g.winner_seat
  GROUP BY g.cell, rs.position
)
SELECT s.run_id, s.variant, s.players, CAST(s.position AS SMALLINT) AS position,
  coalesce(w.wins, 0) AS wins, s.n,
  coalesce(w.wins, 0) / s.n AS rate,
  wilson_lo(coalesce(w.wins, 0), s.n) AS lo,
  wilson_hi(coalesce(w.wins, 0), s.n) AS hi
FROM slots s
LEFT JOIN wins w ON w.cell = s.cell AND w.position = s.position
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
    ``completed_games``; this keeps the unindexed tables free of duplicates and gaps. The rows
    reach DuckDB as Arrow columns (a polars frame is viewed as Arrow, not copied).
    """
    frames = {name: _as_arrow(df) for name, df in frames_of(batch).items()}
    n_games = len(frames["games"])
    if n_games == 0:
        return
    with transaction(con):
        insert_games(con, run_id, variant, players, frames)
        con.execute("UPDATE runs SET games_completed = games_completed + ? WHERE run_id = ?",
                    [n_games, run_id])


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
                 frames: Mapping[str, Any]) -> None:
    """INSERT one cell's frames (``frames_of``, by table) after checking that the run is
    running, has the cell and that the games continue the stored ones. The caller holds the
    transaction (``write_batch``, or the write of whole tournaments, whose table games are
    stored like any game). The stored rows are encoded from ``frames`` themselves."""
    _check_cell(con, run_id, variant, players)
    cell = cell_id(con, run_id, variant, players, create=True)
    frames = {name: _as_arrow(frame) for name, frame in frames.items()}
    _check_game_range(frames, _stored_games(con, cell))
    for name in FRAME_COLUMNS:
        try:
            _insert(con, name, frames[name], cell)
        except duckdb.Error as e:  # e.g. a value outside its column's type
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
