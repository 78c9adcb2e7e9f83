"""What a run keeps (``--keep rows|games|summary``, the ``runs.keep`` column) and how a batch is
reduced to it when it keeps less than every row.

- ``rows`` (the default): every game, game seat, round and round seat (``games``).
- ``games``: the games and game seats, one row of totals per game (``game_totals``: its
  rounds' counts, sums and sums of squares, its first dealer and how it played:
  ``TOTALS``) and per cell a histogram of round lengths (``round_lengths``).
- ``summary``: per cell, blocks of games (one a stored batch, ``block_sums``): every total's
  sum and sum of squares over the block's games and the cross-products of the ratios
  (``PRODUCTS``), and the same histogram of round lengths.

Every summary reads the sums these give (``sums``), whatever was kept. The per-game totals are
computed here with numpy from a batch's Arrow frames (``game_totals``), as SQL computes them from
stored rows (``ROUND_TOTALS``, ``store.game_measures_sql``), so a cell's sums are the same
numbers whatever its run kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..codes import ROUND_END_NAMES
from ..sql import table_ddl

KEEPS = ("rows", "games", "summary")
KEPT = {"rows": "every game, game seat, round and round seat",
        "games": "every game and game seat, each game's totals and a round-length histogram",
        "summary": "each cell's sums in blocks of games and a round-length histogram"}

# A game's totals over its rounds: name -> SQL aggregate over its rows of ``rounds`` (a NULL
# value, e.g. a measure a run did not count, is left out of a sum as SQL leaves it out; only
# NULLs: NULL). ``turns_sq`` ... are sums of squares over rounds (a round's spread).
_WON = "ended_by = 'win'"
ROUND_TOTALS = {
    "rounds": "count(*)",
    "won": f"count(*) FILTER (WHERE {_WON})",
    "capped": "count(*) FILTER (WHERE ended_by = 'cap')",
    "turns": "sum(turns)",
    "turns_sq": "sum(turns::DOUBLE * turns)",
    "points": f"coalesce(sum(points) FILTER (WHERE {_WON}), 0)",
    "points_sq": f"coalesce(sum(points::DOUBLE * points) FILTER (WHERE {_WON}), 0)",
    "p0": f"count(*) FILTER (WHERE {_WON} AND winner_position = 0)",
    "hand_leader_changes": "sum(hand_leader_changes)",
    "hand_leader_changes_sq": "sum(hand_leader_changes::DOUBLE * hand_leader_changes)",
    "winner_deficit": "sum(winner_largest_deficit)",
    "winner_deficit_sq": "sum(winner_largest_deficit::DOUBLE * winner_largest_deficit)",
    "decision_turns": "sum(decision_turns)",
    "legal_cards_on_decisions": "sum(legal_cards_on_decisions)",
    "uno_stops": "sum(uno_stops)",
    "uno_stops_still_won": "sum(uno_stops_still_won)",
}
# The round columns behind the totals that may be NULL (not counted by a run, or defined on
# won rounds only): their per-game sums are NULL where every value is.
_NULLABLE = {"hand_leader_changes": "hand_leader_changes",
             "hand_leader_changes_sq": "hand_leader_changes",
             "winner_deficit": "winner_largest_deficit",
             "winner_deficit_sq": "winner_largest_deficit",
             "decision_turns": "decision_turns",
             "legal_cards_on_decisions": "legal_cards_on_decisions",
             "uno_stops": "uno_stops", "uno_stops_still_won": "uno_stops_still_won"}
# How each game played (``store.game_measures_sql``): won_game 1 if it has a winner; comeback,
# drama, drama_share and decisiveness NULL without one (comeback 0/1).
MEASURE_TOTALS = ("lead_changes", "won_game", "comeback", "drama", "drama_share",
                  "decisiveness")
TOTALS = (*ROUND_TOTALS, *MEASURE_TOTALS)
# The ratios y / x over games whose cross-products sum(y * x) the blocks keep (``base.compare``'s
# ratios, a denominator of one game each left out: sum(y * 1) is sum(y)).
PRODUCTS = (("turns", "rounds"), ("points", "won"), ("p0", "won"),
            ("comeback", "won_game"), ("drama_share", "won_game"), ("decisiveness", "won_game"),
            ("hand_leader_changes", "rounds"), ("winner_deficit", "won"),
            ("decision_turns", "turns"), ("legal_cards_on_decisions", "decision_turns"),
            ("uno_stops", "rounds"), ("uno_stops_still_won", "uno_stops"))


def square(name: str) -> str:
    """The name of the sum over games of a total's square."""
    return f"{name}__2"


def product(y: str, x: str) -> str:
    """The name of the sum over games of the product of two totals."""
    return f"{y}__{x}"


# Every sum a cell has: the games, each total's sum and sum of squares over games, the products.
SUM_NAMES = ("games", *TOTALS, *(square(t) for t in TOTALS),
             *(product(y, x) for y, x in PRODUCTS))

_TYPES = {"turns": "BIGINT", "points": "BIGINT", "turns_sq": "DOUBLE", "points_sq": "DOUBLE",
          "hand_leader_changes_sq": "DOUBLE", "winner_deficit_sq": "DOUBLE",
          "drama_share": "DOUBLE", "decisiveness": "DOUBLE"}
_NOT_NULL = {"rounds", "won", "capped", "turns", "turns_sq", "points", "points_sq", "p0",
             "lead_changes", "won_game"}
TOTAL_COLUMNS = (("game", "INTEGER", False), ("dealer", "SMALLINT", False),
                 *((t, _TYPES.get(t, "INTEGER"), t not in _NOT_NULL) for t in TOTALS))

TABLES_DDL = [
    # --keep games: each game's totals, by cell id (``games.CELLS_DDL``)
    table_ddl("game_totals", (("cell", "INTEGER", False), *TOTAL_COLUMNS)),
    # --keep games and summary: how many rounds of each length (turns) a batch of games played
    table_ddl("round_lengths", (("cell", "INTEGER", False), ("first_game", "BIGINT", False),
                                ("turns", "INTEGER", False), ("rounds", "BIGINT", False))),
    # --keep summary: a block's sums (games first_game .. end_game - 1 of a cell), one row a sum
    table_ddl("block_sums", (("cell", "INTEGER", False), ("first_game", "BIGINT", False),
                             ("end_game", "BIGINT", False), ("name", "VARCHAR", False),
                             ("value", "DOUBLE", True))),
]


# --- A batch's totals ----------------------------------------------------------------------------

def cell_rules(con: duckdb.DuckDBPyConnection, cell: int) -> tuple[int, float | None]:
    """(sign, target) of a cell's scoring, as ``store.game_measures_sql`` reads them: -1 where
    the lowest total is best, and the target score (None: none)."""
    (rules,), = con.execute("SELECT v.rules_json FROM cells c JOIN variants v "
                            "USING (run_id, variant, players) WHERE c.cell = ?",
                            [cell]).fetchall()
    rules = json.loads(rules)
    sign = -1 if rules.get("scoring") in ("own_points_low_wins", "own_points_lose_at") else 1
    target = rules.get("target_score")
    return sign, None if target is None else float(target)


def game_totals(frames: Mapping[str, pa.Table], players: int, sign: int,
                target: float | None) -> dict[str, np.ndarray]:
    """Each game's ``TOTALS`` (and ``game``, ``dealer``) of a batch's frames, as float64 arrays
    (NaN: NULL), computed as ``ROUND_TOTALS`` and ``store.game_measures_sql`` compute them from
    the stored rows."""
    games, rounds, seats = frames["games"], frames["rounds"], frames["round_seats"]
    game = _ints(games["game"])
    first, n = (int(game.min()), len(game)) if len(game) else (0, 0)
    order = np.argsort(game, kind="stable")
    rg, rr = _ints(rounds["game"]), _ints(rounds["round"])
    by_round = np.lexsort((rr, rg))
    if not np.array_equal(by_round, np.arange(len(rg))):
        rounds = rounds.take(by_round)
        rg, rr = rg[by_round], rr[by_round]
    gi = rg - first
    out: dict[str, np.ndarray] = {"game": game[order].astype(np.float64)}
    starts = np.searchsorted(gi, np.arange(n))

    def per_game(values: np.ndarray) -> np.ndarray:
        return np.bincount(gi, weights=values, minlength=n)

    end = _codes(rounds["ended_by"])
    won, capped = end == ROUND_END_NAMES.index("win"), end == ROUND_END_NAMES.index("cap")
    turns = _ints(rounds["turns"]).astype(np.float64)
    points = np.where(won, _ints(rounds["points"]), 0).astype(np.float64)
    position = _ints(rounds["winner_position"], fill=-1)
    out["dealer"] = _ints(rounds["dealer_seat"])[starts].astype(np.float64)
    out["rounds"] = per_game(np.ones(len(gi)))
    out["won"], out["capped"] = per_game(won), per_game(capped)
    out["turns"], out["turns_sq"] = per_game(turns), per_game(turns * turns)
    out["points"], out["points_sq"] = per_game(points), per_game(points * points)
    out["p0"] = per_game(won & (position == 0))
    for name, column in _NULLABLE.items():
        values, valid = _nullable(rounds[column])
        if name.endswith("_sq"):
            values = values * values
        total = per_game(values)
        total[per_game(valid) == 0] = np.nan
        out[name] = total
    out.update(_measures(seats, games, order, gi, rr, starts, n, players, sign, target))
    return out


def _measures(seats: pa.Table, games: pa.Table, order: np.ndarray, gi: np.ndarray,
              rr: np.ndarray, starts: np.ndarray, n: int, players: int, sign: int,
              target: float | None) -> dict[str, np.ndarray]:
    """How each game played, from the standings after each round (``game_measures_sql``)."""
    sg, sr, ss = _ints(seats["game"]), _ints(seats["round"]), _ints(seats["seat"])
    by_seat = np.lexsort((ss, sr, sg))
    score = _ints(seats["score_after"])[by_seat].reshape(-1, players) * sign
    best, worst = score.max(axis=1), score.min(axis=1)
    is_best, is_worst = score == best[:, None], score == worst[:, None]
    leader = np.where(is_best.sum(axis=1) == 1, is_best.argmax(axis=1), -1)
    last = np.where(is_worst.sum(axis=1) == 1, is_worst.argmax(axis=1), -1)
    winner_of_game = _ints(games["winner_seat"], fill=-1)[order]
    winner = winner_of_game[gi]
    has_winner = winner_of_game >= 0
    led = leader >= 0
    lg, lead = gi[led], leader[led]
    change = (lg[1:] == lg[:-1]) & (lead[1:] != lead[:-1])
    out = {"lead_changes": np.bincount(lg[1:][change], minlength=n).astype(np.float64),
           "won_game": has_winner.astype(np.float64)}
    deficit = np.where(winner >= 0, best - score[np.arange(len(gi)), np.maximum(winner, 0)], 0)
    drama = np.maximum.reduceat(deficit, starts).astype(np.float64) if n else np.zeros(0)
    not_led = np.maximum.reduceat(np.where(leader != winner, rr, 0), starts) if n else \
        np.zeros(0, np.int64)
    rounds = np.bincount(gi, minlength=n)
    comeback = np.bincount(gi[(last == winner) & (winner >= 0)], minlength=n) > 0
    nan = np.full(n, np.nan)
    out["comeback"] = np.where(has_winner, comeback.astype(np.float64), nan)
    out["drama"] = np.where(has_winner, drama, nan)
    out["drama_share"] = nan if target is None else np.where(has_winner, drama / target, nan)
    out["decisiveness"] = np.where(
        has_winner, np.maximum(rounds - not_led - 1, 0) / np.maximum(rounds, 1), nan)
    return out


def _ints(column: pa.ChunkedArray, fill: int = 0) -> np.ndarray:
    """An integer column as int64 (NULL: ``fill``)."""
    if column.null_count:
        column = pc.fill_null(column, fill)
    return column.to_numpy().astype(np.int64, copy=False)


def _nullable(column: pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """(values as float64 with NULL as 0, valid as 0/1) of a round column."""
    if pa.types.is_null(column.type):
        return np.zeros(len(column)), np.zeros(len(column))
    valid = column.is_valid().to_numpy(zero_copy_only=False)
    return _ints(column).astype(np.float64), valid.astype(np.float64)


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """The index in ``ROUND_END_NAMES`` of each round's ended_by (a string or dictionary
    column)."""
    value_set = pa.array(ROUND_END_NAMES, pa.string())
    parts = []
    for chunk in column.chunks:
        if pa.types.is_dictionary(chunk.type):
            mapping = pc.index_in(chunk.dictionary.cast(pa.string()), value_set=value_set)
            mapping = pc.fill_null(mapping, -1).to_numpy().astype(np.int64)
            parts.append(mapping[chunk.indices.to_numpy().astype(np.int64)] if len(mapping)
                         else np.full(len(chunk), -1))
        else:
            parts.append(pc.fill_null(pc.index_in(chunk.cast(pa.string()), value_set=value_set),
                                      -1).to_numpy().astype(np.int64))
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def block_sums(totals: Mapping[str, np.ndarray]) -> dict[str, float | None]:
    """A block's ``SUM_NAMES`` from its games' totals, NULL-aware as SQL's sum (None where
    every game's value is NULL)."""
    out: dict[str, float | None] = {"games": float(len(totals["game"]))}

    def total(values: np.ndarray) -> float | None:
        valid = ~np.isnan(values)
        return float(values[valid].sum()) if valid.any() else None

    for t in TOTALS:
        out[t] = total(totals[t])
        out[square(t)] = total(totals[t] * totals[t])
    for y, x in PRODUCTS:
        out[product(y, x)] = total(totals[y] * totals[x])
    return out


# --- Writing -----------------------------------------------------------------------------------

def insert_kept(con: duckdb.DuckDBPyConnection, keep: str, cell: int, players: int,
                frames: Mapping[str, pa.Table]) -> None:
    """Store what ``keep`` (games or summary) keeps of a batch's frames, in the caller's
    transaction: the games' totals or the block's sums, and the round lengths."""
    totals = game_totals(frames, players, *cell_rules(con, cell))
    first = int(totals["game"][0])
    turns, counts = np.unique(_ints(frames["rounds"]["turns"]), return_counts=True)
    con.from_arrow(pa.table({"cell": pa.array(np.full(len(turns), cell, np.int32)),
                             "first_game": pa.array(np.full(len(turns), first, np.int64)),
                             "turns": pa.array(turns.astype(np.int32)),
                             "rounds": pa.array(counts.astype(np.int64))})
                   ).insert_into("round_lengths")
    if keep == "games":
        columns = {"cell": pa.array(np.full(len(totals["game"]), cell, np.int32))}
        for name, sql_type, nullable in TOTAL_COLUMNS:
            values = totals[name]
            mask = np.isnan(values) if nullable else None
            columns[name] = pa.array(np.nan_to_num(values), mask=mask).cast(_ARROW[sql_type])
        con.from_arrow(pa.table(columns)).insert_into("game_totals")
        return
    sums = block_sums(totals)
    end = first + len(totals["game"])
    con.from_arrow(pa.table({
        "cell": pa.array([cell] * len(sums), pa.int32()),
        "first_game": pa.array([first] * len(sums), pa.int64()),
        "end_game": pa.array([end] * len(sums), pa.int64()),
        "name": pa.array(list(sums), pa.string()),
        "value": pa.array(list(sums.values()), pa.float64())})).insert_into("block_sums")


_ARROW = {"INTEGER": pa.int32(), "SMALLINT": pa.int16(), "BIGINT": pa.int64(),
          "DOUBLE": pa.float64()}


def kept_games(con: duckdb.DuckDBPyConnection, cell: int) -> int:
    """Games stored for a cell of a run that keeps ``summary`` (its blocks continue each
    other: the next batch starts here)."""
    return int(con.execute("SELECT coalesce(max(end_game), 0) FROM block_sums WHERE cell = ?",
                           [cell]).fetchall()[0][0])


def run_keep(con: Any, run_id: str) -> str:
    """What a stored run keeps (``rows`` for a run stored before --keep)."""
    row = con.execute("SELECT keep FROM runs WHERE run_id = ?", [run_id]).fetchall()
    return row[0][0] if row and row[0][0] else "rows"
