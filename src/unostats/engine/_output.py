"""The engine's rows as tables: the kernel's int64 rows narrowed into compact columns
(``Narrowing``, ``Columns``; one GIL-free pass a step), the four tables of a batch as pyarrow
Tables viewing those columns (``batch_of``; for a run that keeps less, the games' tables with
their totals instead of the rounds: ``totals_batch_of``), and the same tables as polars
DataFrames without a copy (``frames``). The columns of each table are listed in ``simulate``'s docstring."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    import polars as pl  # imported by frames: simulate_arrow's callers (the store) need none

    from ._inputs import KernelInputs

from .. import codes
from . import _columns as C
from . import _layout as L
from ._totals import COLUMNS as TOTAL_COLUMNS


class Batch(NamedTuple):
    """One batch's four tables: polars DataFrames (``simulate_batches``) or pyarrow Tables
    (``simulate_arrow``), with the same columns."""

    games: pl.DataFrame | pa.Table
    game_seats: pl.DataFrame | pa.Table
    rounds: pl.DataFrame | pa.Table
    round_seats: pl.DataFrame | pa.Table

    def round_count(self) -> int:
        """The rounds the batch's games played."""
        return len(self.rounds)


class TotalsBatch(NamedTuple):
    """One batch played for a run that keeps less than rows (``simulate_arrow(totals=True)``):
    the games and game seats tables as ``Batch`` has them, and instead of the rounds' rows each
    game's totals over its rounds (``game_totals``: ``game`` and ``_totals.COLUMNS``, float64)
    and how many rounds of each length it played (``round_lengths``: ``turns``, ``rounds``; a
    length may come once a part)."""

    games: pa.Table
    game_seats: pa.Table
    game_totals: pa.Table
    round_lengths: pa.Table

    def round_count(self) -> int:
        """The rounds the batch's games played."""
        return int(self.round_lengths["rounds"].to_numpy().sum())


def joined(tables: Sequence[Batch | TotalsBatch]) -> Batch | TotalsBatch:
    """Parts' tables one after the other (each part stays a chunk: no copy)."""
    if len(tables) == 1:
        return tables[0]
    return type(tables[0])(*(pa.concat_tables(columns) for columns in zip(*tables)))


class Narrowing:
    """How one table's columns come out of rows of the kernel (``_columns.narrow``): each is
    (name, the rows' column, numpy dtype, the value that means null or None, the names its
    codes stand for or None). ``start`` makes the columns to fill (``Columns``)."""

    WIDTHS = (np.int64, np.int32, np.int16, np.int8)

    def __init__(self, columns: Sequence[tuple[str, int, Any, int | None,
                                               Sequence[str] | None]]) -> None:
        take: dict[Any, list[int]] = {w: [] for w in self.WIDTHS}
        nullable: list[int] = []
        null_value: list[int] = []
        self.plan = []  # (name, width, row of its width, bitmap or -1, Arrow type, dictionary)
        for name, col, dtype, null, names in columns:
            width = np.dtype(dtype).type
            bitmap = -1
            if null is not None:
                bitmap = len(nullable)
                nullable.append(col)
                null_value.append(null)
            self.plan.append((name, width, len(take[width]), bitmap,
                              pa.from_numpy_dtype(width),
                              None if names is None else pa.array(list(names), pa.string())))
            take[width].append(col)
        self.take = {w: np.array(cols, dtype=np.int64) for w, cols in take.items()}
        self.nullable = np.array(nullable, dtype=np.int64)
        self.null_value = np.array(null_value, dtype=np.int64)

    def start(self, room: int) -> Columns:
        """Empty columns for ``room`` rows (more are made room for as they come)."""
        return Columns(self, room)


class Columns:
    """A table's columns filled from kernel rows, a step at a time (``add``)."""

    def __init__(self, narrowing: Narrowing, room: int) -> None:
        self.narrowing = narrowing
        self.n = 0
        self.room = room
        self.out = {w: np.empty((len(narrowing.take[w]), room), dtype=w)
                    for w in narrowing.WIDTHS}
        self.bits = np.zeros((len(narrowing.nullable), (room + 7) // 8), dtype=np.uint8)
        self.nulls = np.zeros(len(narrowing.nullable), dtype=np.int64)
        self._args()

    def _args(self) -> None:
        """``narrow``'s arguments after the rows (made once: a part is many calls)."""
        nar = self.narrowing
        self.args = (*(a for w in nar.WIDTHS for a in (nar.take[w], self.out[w])), nar.nullable,
                     nar.null_value, self.bits, self.nulls)

    def add(self, rows: np.ndarray) -> None:
        """Append the columns of kernel rows ``rows`` (2-D int64)."""
        if self.n + len(rows) > self.room:
            self._grow(max(2 * self.room, self.n + len(rows)))
        C.narrow(np.ascontiguousarray(rows), self.n, *self.args)
        self.n += len(rows)

    def _grow(self, room: int) -> None:
        n, self.room = self.n, room
        for w, old in self.out.items():
            self.out[w] = np.empty((len(old), room), dtype=w)
            self.out[w][:, :n] = old[:, :n]
        bits = np.zeros((len(self.bits), (room + 7) // 8), dtype=np.uint8)
        bits[:, :self.bits.shape[1]] = self.bits
        self.bits = bits
        self._args()

    def arrays(self) -> dict[str, pa.Array]:
        """The columns by name, in the order given, as Arrow arrays viewing them (no copy); a
        column without nulls has no bitmap."""
        n = self.n
        arrays = {}
        for name, width, k, bitmap, type_, names in self.narrowing.plan:
            data = self.out[width][k, :n]
            if bitmap >= 0 and self.nulls[bitmap]:
                arr = pa.Array.from_buffers(
                    type_, n, [pa.py_buffer(self.bits[bitmap, :(n + 7) // 8]),
                               pa.py_buffer(data)], null_count=int(self.nulls[bitmap]))
            else:
                arr = pa.array(data)
            if names is not None:
                arr = pa.DictionaryArray.from_arrays(arr, names, safe=False)
            arrays[name] = arr
        return arrays


def named(codes_: np.ndarray, names: Sequence[str]) -> pa.Array:
    """Codes 0..len(names)-1 as a dictionary column of their names (no string per row)."""
    return pa.DictionaryArray.from_arrays(pa.array(codes_.astype(np.int8)),
                                          pa.array(list(names), pa.string()), safe=False)


GAMES = Narrowing([
    ("game", L.GO_GAME, np.int64, None, None),
    ("rounds", L.GO_ROUNDS, np.int32, None, None),
    ("turns", L.GO_TURNS, np.int64, None, None),
    ("first_seat", L.GO_FIRST, np.int8, None, None),
    ("winner_seat", L.GO_WINNER, np.int8, -1, None),
    ("margin", L.GO_MARGIN, np.int32, None, None),
    ("ended_by", L.GO_ENDED_BY, np.int8, None, codes.GAME_END_NAMES),
])
GAME_SEATS = Narrowing([
    ("final_score", L.GS_FINAL_SCORE, np.int32, None, None),
    ("rank", L.GS_RANK, np.int8, None, None),
])
ROUNDS = Narrowing([
    ("game", L.RO_GAME, np.int64, None, None),
    ("round", L.RO_ROUND, np.int32, None, None),
    ("dealer_seat", L.RO_DEALER, np.int8, None, None),
    ("first_seat", L.RO_FIRST, np.int8, None, None),
    ("winner_seat", L.RO_WINNER, np.int8, -1, None),
    ("winner_position", L.RO_WINNER_POS, np.int8, -1, None),
    *((name, L.RO_COUNTERS + i, np.int32, None, None)
      for i, name in enumerate(codes.COUNTER_NAMES)),
    ("points", L.RO_POINTS, np.int32, None, None),
    ("ended_by", L.RO_ENDED_BY, np.int8, None, codes.ROUND_END_NAMES),
    ("loser_seat", L.RO_LOSER, np.int8, -1, None),
    ("largest_penalty", L.RO_LARGEST_PENALTY, np.int32, None, None),
    # how the round played: -1 (null) in a run that does not count (_measures.no_measures)
    ("hand_leader_changes", L.RO_HAND_LEADER_CHANGES, np.int32, -1, None),
    ("winner_largest_deficit", L.RO_WINNER_LARGEST_DEFICIT, np.int16, -1, None),
    ("decision_turns", L.RO_DECISION_TURNS, np.int32, -1, None),
    ("legal_cards_on_decisions", L.RO_LEGAL_CARDS_ON_DECISIONS, np.int32, -1, None),
    ("uno_stops", L.RO_UNO_STOPS, np.int32, -1, None),
    ("uno_stops_still_won", L.RO_UNO_STOPS_STILL_WON, np.int32, -1, None),
])
ROUND_SEATS = Narrowing([
    ("position", L.RS_POSITION, np.int8, None, None),
    ("cards_left", L.RS_CARDS_LEFT, np.int16, None, None),
    ("hand_points", L.RS_HAND_POINTS, np.int32, None, None),
    ("score_after", L.RS_SCORE_AFTER, np.int32, None, None),
    ("hands_emptied", L.RS_HANDS_EMPTIED, np.int8, None, None),
    ("finish_place", L.RS_FINISH_PLACE, np.int8, 0, None),
])


def tables_of(inputs: KernelInputs, game_rows, game_seat_rows, round_rows, seat_rows) -> Batch:
    """The batch's four tables (schemas in ``simulate``'s docstring) from the kernel's rows."""
    rounds, seats = ROUNDS.start(len(round_rows)), ROUND_SEATS.start(seat_rows[:, :, 0].size)
    rounds.add(round_rows)
    seats.add(seat_rows.reshape(-1, L.N_RS))
    return batch_of(inputs, game_rows, game_seat_rows, rounds, seats)


def batch_of(inputs: KernelInputs, game_rows, game_seat_rows, rounds: Columns,
             seats: Columns) -> Batch:
    """The four tables of the kernel's game rows and the round and round-seat columns."""
    n, n_rounds = inputs.players, rounds.n
    games, game_seats = _game_tables(inputs, game_rows, game_seat_rows)
    rounds = rounds.arrays()
    round_seats = {
        "game": pa.array(np.repeat(rounds["game"].to_numpy(), n)),
        "round": pa.array(np.repeat(rounds["round"].to_numpy(), n)),
        "seat": pa.array(np.tile(np.arange(n, dtype=np.int8), n_rounds)),
        **seats.arrays(),
    }
    return Batch(games, game_seats, pa.table(rounds), pa.table(round_seats))


def totals_batch_of(inputs: KernelInputs, game_rows, game_seat_rows, totals: np.ndarray,
                    lengths: np.ndarray) -> TotalsBatch:
    """The games' tables of the kernel's game rows, with their totals (``_totals.add_rounds``'
    rows) and the histogram of round lengths (``lengths[t]``: rounds of t turns)."""
    games, game_seats = _game_tables(inputs, game_rows, game_seat_rows)
    columns = {"game": games["game"], **{name: pa.array(np.ascontiguousarray(totals[:, k]))
                                          for k, name in enumerate(TOTAL_COLUMNS)}}
    turns = np.flatnonzero(lengths)
    round_lengths = pa.table({"turns": pa.array(turns.astype(np.int32)),
                              "rounds": pa.array(lengths[turns].astype(np.int64))})
    return TotalsBatch(games, game_seats, pa.table(columns), round_lengths)


def _game_tables(inputs: KernelInputs, game_rows, game_seat_rows) -> tuple[pa.Table, pa.Table]:
    """The games and game seats tables of the kernel's game rows."""
    n = inputs.players
    n_games = len(game_rows)
    games = GAMES.start(n_games)
    games.add(game_rows)
    games = games.arrays()
    seat_ids = np.tile(np.arange(n, dtype=np.int8), n_games)
    policy_names = list(dict.fromkeys(inputs.policies))
    policy_of_seat = np.array([policy_names.index(p) for p in inputs.policies], dtype=np.int8)
    final = GAME_SEATS.start(n_games * n)
    final.add(game_seat_rows.reshape(n_games * n, L.N_GS))
    game_seats = {
        "game": pa.array(np.repeat(games["game"].to_numpy(), n)),
        "seat": pa.array(seat_ids),
        "policy": named(np.tile(policy_of_seat, n_games), policy_names),
        **final.arrays(),
        "is_winner": pa.array(np.repeat(game_rows[:, L.GO_WINNER], n) == seat_ids),
        "is_loser": pa.array(game_seat_rows[:, :, L.GS_IS_LOSER].reshape(-1) != 0),
    }
    return pa.table(games), pa.table(game_seats)


def frames(tables: Batch) -> Batch:
    """The batch's tables as polars DataFrames (the columns are shared, not copied): ended_by
    of games and rounds as an Enum of its names, the other dictionary columns Categorical."""
    import polars as pl

    out = []
    for name, table in zip(Batch._fields, tables):
        if name in _ENUMS:
            at = table.schema.get_field_index("ended_by")
            table = pa.Table.from_arrays(table.columns, schema=table.schema.set(
                at, table.schema.field(at).with_metadata(_polars_enum(_ENUMS[name]))))
        out.append(pl.from_arrow(table, rechunk=False))  # the parts stay chunks: no copy
    return Batch(*out)


_ENUMS = {"games": codes.GAME_END_NAMES, "rounds": codes.ROUND_END_NAMES}


@functools.cache
def _polars_enum(names: tuple[str, ...]) -> dict[bytes, bytes]:
    """The Arrow field metadata by which polars reads a dictionary column of ``names`` (in code
    order) as an Enum of them: as polars writes one (a cast from Categorical after reading
    would cost a pass over every row)."""
    import polars as pl

    field = pl.DataFrame(schema={"e": pl.Enum(list(names))}).to_arrow().schema.field("e")
    return field.metadata
