"""How a row of the engine's frames is stored: several columns packed into one integer, a
*word*, and back.

DuckDB's write costs about the same per stored value whatever the value, so the small columns of
a row are stored packed, several in one BIGINT word (an INTEGER where its fields fit 31 bits:
DuckDB appends a 4-byte value faster than an 8-byte one). Each word of ``WORDS[table]`` lists its
fields (name, bits) from bit 0 up; the stored tables' views decode them (``decode``); the rows are
encoded with numpy over the frames' Arrow columns (``stored_frame``) and reach DuckDB as Arrow
columns. Nothing is lost:

- a small bounded field (``bits`` < 32) holds a code from 0 to 2**bits - 1: a NULL is the
  all-ones code, a name (ended_by) its index in the names, a boolean 0/1; seats, positions and
  ranks are < 10, hands_emptied <= hand_size <= 20 and cards_left <= the deck's 2,360 cards at
  most (40 of each kind) by the rule table; a policy is its code in the file's ``policies``;
- an INTEGER field (32 bits) holds any INTEGER: value + 2**31, or the value itself (signed) at
  the top of a word, which the views take with an arithmetic shift;
- a value outside its field fails the whole batch (nothing of it stored), as a CAST would.

What stays a column of its own, and why: the cell id (constant within a batch, DuckDB scans it as
a constant vector and the views look the cell columns up once a vector), and the values that vary
and that readers group by most (game, round, the busy counters, the scores): packed, they would
make the GROUP BYs decode wider words. The round counters most rules leave at 0 share words two
by two, so bitpacking stores a row group's words in the few bits they span. The A/B figures
behind this layout are in docs/performance.md ("The store's packed columns").
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..sql import StoreError, sql_literal
from .frames import FRAME_COLUMNS, NAMES

# A seat's policy is a name (a bundled policy's or one written as data), stored as its code in
# ``policies``: each name the file holds gets the next code when a batch first stores it.
POLICY_BITS = 16
POLICY = ("game_seats", "policy")
_INT = 32  # the bits of an INTEGER field
# The counters of a round that most rules leave at 0 (challenges, jump-ins, swaps ...), two in a
# word; the others (turns, cards, points ...), which vary and which readers read most, and the
# measures of how a round played (NULL where a run did not count them: an INTEGER field has no
# code left for NULL), stay INTEGER columns of their own.
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


def _packed_names(table: str) -> set[str]:
    return {name for _, fields in WORDS[table] for name, _ in fields}


def stored_columns(table: str) -> tuple[tuple[str, str, bool], ...]:
    """The stored table's columns: the cell id, the words, then the frame's columns not in one."""
    packed = _packed_names(table)
    return (("cell", "INTEGER", False), *((w, _word_type(fields), False)
                                          for w, fields in WORDS[table]),
            *(c for c in FRAME_COLUMNS[table] if c[0] not in packed))


def _word_type(fields: tuple[tuple[str, int], ...]) -> str:
    """An INTEGER word where its fields' codes (all >= 0) fit in 31 bits, else a BIGINT: DuckDB
    appends a 4-byte value in about two thirds of the time of an 8-byte one."""
    return "INTEGER" if sum(bits for _, bits in fields) <= 31 else "BIGINT"


@dataclass(frozen=True)
class Field:
    """Where one frame column sits in its word, and the SQL type the view gives it back as."""

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
def packed_fields(table: str) -> dict[str, Field]:
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
            out[name] = Field(word, offset, bits, top, sql_type, nullable)
            offset += bits
    return out


def decode(table: str, name: str) -> str:
    """The view's expression of frame column ``name`` (packed or stored as is)."""
    field = packed_fields(table).get(name)
    if field is None:
        return f"t.{name}"
    shifted = f"(t.{field.word} >> {field.offset})" if field.offset else f"t.{field.word}"
    if field.bits == _INT and field.top:
        return f"CAST({shifted} AS {field.sql_type}) AS {name}"
    code = f"({shifted} & {field.mask})" if not field.top else shifted
    if field.bits == _INT:
        return f"CAST({code} - {1 << 31} AS {field.sql_type}) AS {name}"
    if (table, name) == POLICY:
        return f"(SELECT list(policy ORDER BY code) FROM policies)[{code} + 1] AS {name}"
    if (table, name) in NAMES:
        whens = " ".join(f"WHEN {i} THEN {sql_literal(v)}"
                         for i, v in enumerate(NAMES[table, name]))
        return f"CAST(CASE {code} {whens} END AS {field.sql_type}) AS {name}"
    if field.sql_type == "BOOLEAN":
        return f"{code} = 1 AS {name}"
    if field.nullable:
        code = f"nullif({code}, {field.mask})"
    return f"CAST({code} AS {field.sql_type}) AS {name}"


_INT_RANGE = (-(1 << 31), (1 << 31) - 1)


class _Outside(ValueError):
    """A frame column's value that its field (or type) cannot hold."""


def stored_frame(table: str, frame: pa.Table,
                 names: Mapping[tuple[str, str], tuple[str, ...]] = NAMES) -> pa.Table:
    """Frame ``table`` as the stored table's columns after ``cell``: its words, then the columns
    stored as they are (cast by the INSERT). Raises StoreError if a value does not fit its
    field. A word is the sum of its fields' codes times 2**offset, built in place with numpy,
    chunk by chunk of the Arrow columns (no concatenated copies). ``names``: the names each
    named field codes by its index (``NAMES``, and the file's policies)."""
    fields = packed_fields(table)
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
    packed = _packed_names(table)
    for name, _, _ in FRAME_COLUMNS[table]:
        if name not in packed:
            columns[name] = frame.column(name)
    return pa.table(columns)


@functools.cache
def _bias(table: str, word: str) -> int:
    """The part of ``word`` every row has: 2**31 for each INTEGER field below the top (its code
    is value + 2**31)."""
    return sum(1 << (31 + f.offset) for f in packed_fields(table).values()
               if f.word == word and f.bits == _INT and not f.top)


def _add_codes(table: str, name: str, field: Field, column: pa.ChunkedArray, out: np.ndarray,
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


def _range(field: Field) -> tuple[int, int]:
    """The values a field holds (a nullable field's all-ones code is its NULL)."""
    if field.bits == _INT:
        return _INT_RANGE
    return 0, field.mask - 1 if field.nullable else field.mask


def _code(table: str, name: str, field: Field, column: pa.ChunkedArray | pa.Array,
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


def _outside(field: Field, name: str, column: pa.ChunkedArray, bad: np.ndarray,
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

