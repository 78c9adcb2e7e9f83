"""What a run keeps (``--keep rows|games|summary``, the ``runs.keep`` column) and how a batch is
reduced to it when it keeps less than every row.

- ``rows`` (the default): every game, game seat, round and round seat (``games``).
- ``games``: the games and game seats, one row of totals per game (``game_totals``: its
  rounds' counts, sums and sums of squares, its first dealer and how it played:
  ``TOTALS``) and per cell a histogram of round lengths (``round_lengths``).
- ``summary``: per cell, blocks of games (one a stored batch, ``block_sums``): every total's
  sum and sum of squares over the block's games and the cross-products of the ratios
  (``PRODUCTS``), and the same histogram of round lengths.

Every summary reads the sums these give (``sums``), whatever was kept. The engine counts each
game's sums over its rounds as it plays them (``simulate_arrow(totals=True)``: a batch's
``game_totals`` and ``round_lengths``, no round rows); ``game_totals`` here derives from them
what SQL computes from the stored rows (``ROUND_TOTALS``, ``store.game_measures_sql``), so a
cell's sums are the same numbers whatever its run kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..codes import MEASURE_SUMS
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

# The stored totals of a game (``game_totals``), integers all (bitpacked, a few bytes a game):
# its drama_share and decisiveness are derived when read (``STORED_TOTALS_SQL``) from drama and
# ``settled``, the rounds its winner led after for good, less one.
_BIG = {"turns", "points", "turns_sq", "points_sq", "hand_leader_changes_sq",
        "winner_deficit_sq"}
_NOT_NULL = {"rounds", "won", "capped", "turns", "turns_sq", "points", "points_sq", "p0",
             "lead_changes", "won_game"}
_STORED = tuple(t for t in TOTALS if t not in ("drama_share", "decisiveness")) + ("settled",)
TOTAL_COLUMNS = (("game", "INTEGER", False), ("dealer", "SMALLINT", False),
                 *((t, "BIGINT" if t in _BIG else "INTEGER", t not in _NOT_NULL)
                   for t in _STORED))
# Each game's totals as ``TOTALS`` name them, from the stored ones (cell ids where ``{cells}``),
# the target as ``store.game_measures_sql`` reads it; a NULL comeback (no seat ever alone at
# the bottom) is 0, as the rows' totals count it.
STORED_TOTALS_SQL = """SELECT t.* EXCLUDE (settled, comeback),
  CASE WHEN t.won_game = 1 THEN coalesce(t.comeback, 0) END AS comeback,
  t.drama / r.target AS drama_share, t.settled / t.rounds AS decisiveness
FROM game_totals t JOIN (
  SELECT c.cell, CAST(v.rules_json->>'target_score' AS DOUBLE) AS target
  FROM cells c JOIN variants v USING (run_id, variant, players)) r USING (cell)
WHERE {cells}"""

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

def cell_target(con: duckdb.DuckDBPyConnection, cell: int) -> float | None:
    """The target score of a cell's rules, as ``store.game_measures_sql`` reads it (None:
    none)."""
    (target,), = con.execute("SELECT CAST(v.rules_json->>'target_score' AS DOUBLE) FROM cells c "
                             "JOIN variants v USING (run_id, variant, players) WHERE c.cell = ?",
                             [cell]).fetchall()
    return target


def game_totals(totals: pa.Table, winners: np.ndarray, target: float | None
                ) -> dict[str, np.ndarray]:
    """Each game's ``TOTALS`` (and ``game``, ``dealer``, ``settled``) as float64 arrays (NaN:
    NULL), from the sums the engine counted over its rounds (a batch's ``game_totals``,
    ``simulate_arrow(totals=True)``) and the games' winners (-1: none), as ``ROUND_TOTALS``
    and ``store.game_measures_sql`` compute them from the stored rows."""
    out = {name: totals[name].to_numpy().astype(np.float64) for name in totals.column_names}
    for column, names in MEASURE_SUMS.items():
        not_counted = out.pop(f"{column}__counted") == 0
        for name in names:
            out[name][not_counted] = np.nan
    n = len(out["game"])
    has_winner = winners >= 0
    nan = np.full(n, np.nan)
    not_led = out.pop("not_led")
    out["won_game"] = has_winner.astype(np.float64)
    seen = out.pop("comeback")
    # the view's comeback (NULL where no round had a seat alone at the bottom), as stored;
    # as summed, a NULL adds nothing (0)
    out["stored_comeback"] = np.where(has_winner & (seen > 0), seen - 1, nan)
    out["comeback"] = np.where(has_winner, np.maximum(seen - 1, 0), nan)
    out["drama"] = np.where(has_winner, out["drama"], nan)
    out["settled"] = np.where(has_winner, np.maximum(out["rounds"] - not_led - 1, 0), nan)
    out["drama_share"] = nan if target is None else out["drama"] / target
    out["decisiveness"] = out["settled"] / np.maximum(out["rounds"], 1)
    return out


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

def insert_kept(con: duckdb.DuckDBPyConnection, keep: str, cell: int,
                frames: Mapping[str, pa.Table]) -> None:
    """Store what ``keep`` (games or summary) keeps of a batch's frames (its games and the
    totals the engine counted: ``game_totals``, ``round_lengths``), in the caller's
    transaction: the games' totals or the block's sums, and the round lengths."""
    if frames.get("game_totals") is None or frames.get("round_lengths") is None:
        raise ValueError(f"a batch of a run that keeps {keep} carries its games' totals "
                         "(played with simulate_arrow(totals=True))")
    winners = pc.fill_null(frames["games"]["winner_seat"], -1).to_numpy().astype(np.int64)
    totals = game_totals(frames["game_totals"], winners, cell_target(con, cell))
    first = int(totals["game"][0])
    lengths = frames["round_lengths"]
    counts = np.bincount(lengths["turns"].to_numpy(), weights=lengths["rounds"].to_numpy())
    turns = np.flatnonzero(counts)
    con.from_arrow(pa.table({"cell": pa.array(np.full(len(turns), cell, np.int32)),
                             "first_game": pa.array(np.full(len(turns), first, np.int64)),
                             "turns": pa.array(turns.astype(np.int32)),
                             "rounds": pa.array(counts[turns].astype(np.int64))})
                   ).insert_into("round_lengths")
    if keep == "games":
        columns = {"cell": pa.array(np.full(len(totals["game"]), cell, np.int32))}
        for name, sql_type, nullable in TOTAL_COLUMNS:
            values = totals.get(f"stored_{name}", totals[name])
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
