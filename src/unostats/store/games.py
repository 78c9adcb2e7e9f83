"""The games of the store: the stored tables that hold the engine's frames (``stored_games``
..., their rows packed by ``packing`` under an integer cell id, see ``CELLS_DDL``), the views that
give readers the frames' columns (``games``, ``game_seats``, ``rounds``, ``round_seats``) and the
standard views over them, and the write of one batch.

Integrity without indexes: DuckDB maintains an index per primary key on every insert, which
slows the writes of the results tables several times and multiplies the file's size
(docs/performance.md, "Keys and indexes"). So only ``meta``, ``runs`` and ``variants`` carry
primary keys. The results tables stay unique by construction: ``write_batch`` accepts a batch
only if its games continue the cell exactly where the stored games end and every frame stays
inside those games; ``duplicate_keys`` checks the logical keys (tests use it).

Atomicity: each batch is one transaction (its four tables plus ``runs.games_completed``), so a
killed writer leaves only whole batches and a resume continues from ``completed_games``. Large
batches are much faster, as DuckDB writes them straight to the file instead of the WAL.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..rules import LOWEST_TOTAL_LEADS
from ..sql import StoreError, first_line, first_row, table_ddl, transaction
from ..stats import Z95
from .frames import FRAME_COLUMNS, NAMES, RESULT_KEYS
from .packing import POLICY, POLICY_BITS, decode, stored_columns, stored_frame
from . import keep
from .runs import no_run

# Where the rows are: each cell (run_id, variant, players) gets an integer id in ``cells`` when
# its first batch is stored; the rows are stored in ``stored_games`` ... (packed: ``packing``)
# and the views ``games``, ``game_seats``, ``rounds`` and ``round_seats`` give readers the
# columns they always saw (cell columns first, then ``FRAME_COLUMNS``, same types, same rows in
# the same order).
CELLS_DDL = """CREATE TABLE IF NOT EXISTS cells (
  cell INTEGER PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  UNIQUE (run_id, variant, players)
)"""
STORED = {name: f"stored_{name}" for name in FRAME_COLUMNS}
# The file's policy names by code (``packing.POLICY_BITS``): a name gets the next code when a
# batch first stores it.
POLICIES_DDL = """CREATE TABLE IF NOT EXISTS policies (
  code INTEGER PRIMARY KEY,
  policy VARCHAR NOT NULL UNIQUE
)"""
TABLES_DDL = [
    CELLS_DDL,
    POLICIES_DDL,
    *(table_ddl(STORED[t], stored_columns(t)) for t in FRAME_COLUMNS),
]


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
    return ", ".join(decode(name, n) for n, _, _ in FRAME_COLUMNS[name])


# Readers that aggregate a whole table read it by cell: ``rounds_by_cell`` ... hold the cell id
# and the frame's columns (no cell columns), so a GROUP BY takes one INTEGER key and the cell
# columns are joined to its few result rows (``cells``), not looked up and hashed for each row.
# The standard views below and the report read these.
BY_CELL = {name: f"{name}_by_cell" for name in FRAME_COLUMNS}


def _by_cell_view(name: str) -> str:
    return (f"CREATE OR REPLACE VIEW {BY_CELL[name]} AS\nSELECT t.cell, {_decoded(name)}\n"
            f"FROM {STORED[name]} t")



def _insert(con: duckdb.DuckDBPyConnection, table: str, frame: pa.Table, cell: int) -> None:
    """Append frame ``table``'s rows (``stored_frame``) to its stored table (the seats'
    policies coded by ``policies``, new names added to it)."""
    names = NAMES
    if table == POLICY[0]:
        names = {**NAMES, POLICY: _policy_names(con, frame.column(POLICY[1]))}
    stored = stored_frame(table, frame, names)
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
def _ratio(name: str, y: str, x: str, yy: str, xy: str, xx: str) -> str:
    """``name`` = sum(y) / sum(x) over rounds, and its 95% bounds ``name_lo``/``_hi`` from the
    ratio estimator's se: sqrt(sum((y - R x)^2) / (n (n - 1))) / mean(x), the sums of squares
    and products ``yy``, ``xy``, ``xx`` summed over the rounds."""
    se = (f"sqrt(greatest({yy} - 2 * {name} * {xy} + {name} * {name} * {xx}, 0) "
          f"/ (n_rounds * (n_rounds - 1))) / ({x} / n_rounds)")
    return f"{name}, {name} - {Z95} * {se} AS {name}_lo, {name} + {Z95} * {se} AS {name}_hi"


def _mean(name: str) -> str:
    """``name`` and its 95% bounds from ``name_se`` (the normal interval of a mean)."""
    return (f"{name}, {name} - {Z95} * {name}_se AS {name}_lo, "
            f"{name} + {Z95} * {name}_se AS {name}_hi")


# The scorings whose lowest total leads, as an SQL list (``RuleSet.standings_sign``).
_LOWEST_LEADS = ", ".join(f"'{scoring}'" for scoring in LOWEST_TOTAL_LEADS)


def game_measures_sql(cells: str = "TRUE") -> str:
    """How each game played (the view ``game_measures``) for the cells where ``cells`` (an SQL
    condition on ``cell``) holds: readers of a few runs filter before the window functions.

    From the standings after each round: a seat's standing is its total, or minus it where the
    lowest total is best (R3/R4 own points). The leader is the seat alone at the top (a tie
    leaves the lead where it was: only rounds with one leader are compared), the last the seat
    alone at the bottom. Per game: lead_changes; with a winner, comeback (its winner stood last
    after some round), drama (its winner's largest deficit to the top, in points, and as a share
    of the target: drama_share) and decisiveness (the share of its rounds played after its
    winner led for good). A run that kept games (``keep``) has no standings: its games' are
    read from their stored totals (``game_totals``)."""
    return f"""WITH rules AS (
  SELECT c.cell,
    CASE WHEN v.rules_json->>'scoring' IN ({_LOWEST_LEADS}) THEN -1 ELSE 1 END AS sign,
    CAST(v.rules_json->>'target_score' AS DOUBLE) AS target, ru.keep
  FROM cells c JOIN variants v USING (run_id, variant, players) JOIN runs ru USING (run_id)
  WHERE {cells}
), standing AS (
  SELECT rs.cell, rs.game, rs.round, rs.seat, r.sign * rs.score_after AS v,
    max(r.sign * rs.score_after) OVER p AS best, min(r.sign * rs.score_after) OVER p AS worst
  FROM round_seats_by_cell rs JOIN rules r USING (cell)
  WINDOW p AS (PARTITION BY rs.cell, rs.game, rs.round)
), per_round AS (
  SELECT s.cell, s.game, s.round, any_value(g.winner_seat) AS winner,
    CASE WHEN count(*) FILTER (WHERE s.v = s.best) = 1
      THEN min(s.seat) FILTER (WHERE s.v = s.best) END AS leader,
    CASE WHEN count(*) FILTER (WHERE s.v = s.worst) = 1
      THEN min(s.seat) FILTER (WHERE s.v = s.worst) END AS last_seat,
    max(s.best - s.v) FILTER (WHERE s.seat = g.winner_seat) AS winner_deficit
  FROM standing s JOIN games_by_cell g USING (cell, game)
  GROUP BY s.cell, s.game, s.round
), leads AS (
  SELECT cell, game, leader <> lag(leader) OVER (PARTITION BY cell, game ORDER BY round) AS change
  FROM per_round WHERE leader IS NOT NULL
), changes AS (
  SELECT cell, game, count(*) FILTER (WHERE change) AS lead_changes FROM leads GROUP BY ALL
), per_game AS (
  SELECT cell, game,
    bool_or(last_seat = winner) AS comeback,
    max(winner_deficit) AS drama,
    coalesce(max(round) FILTER (WHERE leader IS DISTINCT FROM winner), 0) AS not_led
  FROM per_round GROUP BY ALL
)
SELECT c.run_id, c.variant, c.players, g.game, g.rounds, g.winner_seat,
  coalesce(ch.lead_changes, 0) AS lead_changes,
  CASE WHEN g.winner_seat IS NOT NULL THEN p.comeback END AS comeback,
  CASE WHEN g.winner_seat IS NOT NULL THEN p.drama END AS drama,
  CASE WHEN g.winner_seat IS NOT NULL THEN p.drama / r.target END AS drama_share,
  CASE WHEN g.winner_seat IS NOT NULL
    THEN greatest(g.rounds - p.not_led - 1, 0) / g.rounds END AS decisiveness
FROM games_by_cell g JOIN rules r USING (cell) JOIN cells c USING (cell)
  LEFT JOIN per_game p USING (cell, game) LEFT JOIN changes ch USING (cell, game)
WHERE r.keep = 'rows'
UNION ALL
SELECT c.run_id, c.variant, c.players, t.game, t.rounds, g.winner_seat, t.lead_changes,
  CAST(t.comeback AS BOOLEAN), t.drama, t.drama / r.target, t.settled / t.rounds
FROM game_totals t JOIN games_by_cell g USING (cell, game) JOIN rules r USING (cell)
  JOIN cells c USING (cell)"""


def how_it_plays_sql(cells: str = "TRUE") -> str:
    """Every measure of how it plays per cell (the view ``how_it_plays``) with its 95% interval,
    for the cells where ``cells`` holds (as ``game_measures_sql``): a share of games by Wilson;
    a mean over games or rounds by the normal interval (se = sd / sqrt(n)); a ratio of sums
    over rounds (decisions per turn, legal cards per decision, stops still won per stop) by
    the normal interval of a ratio estimator, rounds as the units; balance (1 - the largest
    gap between the positions' game win rates, a position being a seat's in round 1) by the
    normal interval of the gap between the two positions at the extremes (picked after
    looking, so it leans narrow)."""
    return f"""WITH gm AS ({game_measures_sql(cells)}
), g AS (
  SELECT run_id, variant, players, count(*) AS n_games, count(winner_seat) AS n_won_games,
    avg(lead_changes) AS lead_changes,
    stddev_samp(lead_changes) / sqrt(count(*)) AS lead_changes_se,
    count(*) FILTER (WHERE comeback) AS comebacks,
    avg(drama) AS drama, stddev_samp(drama) / sqrt(count(drama)) AS drama_se,
    avg(drama_share) AS drama_share,
    stddev_samp(drama_share) / sqrt(count(drama_share)) AS drama_share_se,
    avg(decisiveness) AS decisiveness,
    stddev_samp(decisiveness) / sqrt(count(decisiveness)) AS decisiveness_se
  FROM gm GROUP BY run_id, variant, players
), sums AS (
  SELECT cell, count(*) AS n_rounds,
    avg(hand_leader_changes) AS hand_leader_changes,
    stddev_samp(hand_leader_changes) / sqrt(count(*)) AS hand_leader_changes_se,
    avg(winner_largest_deficit) AS winner_largest_deficit,
    stddev_samp(winner_largest_deficit) / sqrt(count(winner_largest_deficit))
      AS winner_largest_deficit_se,
    avg(uno_stops) AS uno_stops, stddev_samp(uno_stops) / sqrt(count(*)) AS uno_stops_se,
    sum(turns)::DOUBLE AS t, sum(decision_turns)::DOUBLE AS d,
    sum(legal_cards_on_decisions)::DOUBLE AS l, sum(uno_stops)::DOUBLE AS u,
    sum(uno_stops_still_won)::DOUBLE AS w,
    sum(turns::DOUBLE * turns) AS tt, sum(decision_turns::DOUBLE * decision_turns) AS dd,
    sum(turns::DOUBLE * decision_turns) AS td,
    sum(legal_cards_on_decisions::DOUBLE * legal_cards_on_decisions) AS ll,
    sum(decision_turns::DOUBLE * legal_cards_on_decisions) AS dl,
    sum(uno_stops::DOUBLE * uno_stops) AS uu,
    sum(uno_stops_still_won::DOUBLE * uno_stops_still_won) AS ww,
    sum(uno_stops::DOUBLE * uno_stops_still_won) AS uw
  FROM rounds_by_cell WHERE {cells} GROUP BY cell
), r AS (
  SELECT c.run_id, c.variant, c.players, s.*,
    d / nullif(t, 0) AS decision_share, l / nullif(d, 0) AS legal_cards_per_decision,
    w / nullif(u, 0) AS uno_stops_still_won_share
  FROM sums s JOIN cells c USING (cell)
), won AS (
  SELECT cell, count(winner_seat) AS n FROM games_by_cell WHERE {cells} GROUP BY cell
), wins AS (
  SELECT g.cell, rs.position, count(*) AS wins
  FROM games_by_cell g JOIN round_seats_by_cell rs
    ON rs.cell = g.cell AND rs.game = g.game AND rs.round = 1 AND rs.seat = g.winner_seat
  WHERE g.cell IN (SELECT cell FROM won) GROUP BY ALL
), slots AS (
  SELECT w.cell, w.n, unnest(range(c.players)) AS position
  FROM won w JOIN cells c USING (cell) WHERE w.n > 0
), b AS (
  SELECT c.run_id, c.variant, c.players, any_value(s.n) AS n,
    max(coalesce(x.wins, 0) / s.n) AS hi_rate, min(coalesce(x.wins, 0) / s.n) AS lo_rate
  FROM slots s LEFT JOIN wins x USING (cell, position) JOIN cells c USING (cell)
  GROUP BY ALL
)
SELECT run_id, variant, players, n_games, n_won_games, n_rounds,
  {_mean("lead_changes")},
  comebacks / nullif(n_won_games, 0) AS comeback_share,
  wilson_lo(comebacks, n_won_games) AS comeback_share_lo,
  wilson_hi(comebacks, n_won_games) AS comeback_share_hi,
  {_mean("drama")}, {_mean("drama_share")}, {_mean("decisiveness")},
  1 - (hi_rate - lo_rate) AS balance,
  1 - (hi_rate - lo_rate) - {Z95} * sqrt((hi_rate + lo_rate - (hi_rate - lo_rate) ** 2) / n)
    AS balance_lo,
  least(1, 1 - (hi_rate - lo_rate)
    + {Z95} * sqrt((hi_rate + lo_rate - (hi_rate - lo_rate) ** 2) / n)) AS balance_hi,
  {_mean("hand_leader_changes")}, {_mean("winner_largest_deficit")},
  {_ratio("decision_share", "d", "t", "dd", "td", "tt")},
  {_ratio("legal_cards_per_decision", "l", "d", "ll", "dl", "dd")},
  {_mean("uno_stops")},
  {_ratio("uno_stops_still_won_share", "w", "u", "ww", "uw", "uu")}
FROM g FULL JOIN r USING (run_id, variant, players) LEFT JOIN b USING (run_id, variant, players)
ORDER BY run_id, variant, players"""


# How it plays (docs/guide/how-it-plays.md): per game, and per cell with intervals.
MEASURES_DDL = [f"CREATE OR REPLACE VIEW game_measures AS\n{game_measures_sql()}",
                f"CREATE OR REPLACE VIEW how_it_plays AS\n{how_it_plays_sql()}"]


VIEWS = ("round_length", "win_rate_by_position", "game_win_rate_by_position", "score_spread",
         "game_length", "game_measures", "how_it_plays")


def write_batch(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                batch: Any) -> None:
    """Store one engine batch (games, game_seats, rounds, round_seats: polars DataFrames or
    pyarrow Tables) in one transaction.

    The batch must continue the cell: its games are first..first+k-1 with first equal to
    ``completed_games``; this keeps the unindexed tables free of duplicates and gaps. The rows
    reach DuckDB as Arrow columns (a polars frame is viewed as Arrow, not copied).
    """
    frames = {name: as_arrow(df) for name, df in frames_of(batch).items()}
    n_games = len(frames["games"])
    if n_games == 0:
        return
    with transaction(con):
        insert_games(con, run_id, variant, players, frames)
        con.execute("UPDATE runs SET games_completed = games_completed + ? WHERE run_id = ?",
                    [n_games, run_id])


def as_arrow(frame: Any) -> pa.Table | None:
    """A frame as an Arrow table (a polars frame viewed, not copied; None stays None)."""
    return frame if frame is None or isinstance(frame, pa.Table) else frame.to_arrow()


def frames_of(batch: Any) -> dict[str, Any]:
    """An engine batch's frames by table (as they are: polars or Arrow), each checked against
    ``FRAME_COLUMNS``; also its games' totals (``game_totals``, ``round_lengths``) where it has
    them instead of its rounds (an engine ``TotalsBatch``; None where it has not, and its
    rounds and round seats None)."""
    frames = {name: getattr(batch, name, None) for name in (*FRAME_COLUMNS, *TOTALS)}
    for name in FRAME_COLUMNS:
        if frames[name] is not None or name not in TOTALLED:
            _check_columns(name, frames[name])
    return frames


# The frames of round rows, which a batch played for its games' totals has not, and what it has
# instead.
TOTALLED = ("rounds", "round_seats")
TOTALS = ("game_totals", "round_lengths")


def insert_games(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                 frames: Mapping[str, Any]) -> None:
    """INSERT one cell's frames (``frames_of``, by table) after checking that the run is
    running, has the cell and that the games continue the stored ones. The caller holds the
    transaction (``write_batch``, or the write of whole tournaments, whose table games are
    stored like any game). The stored rows are encoded from ``frames`` themselves."""
    _check_cell(con, run_id, variant, players)
    cell = cell_id(con, run_id, variant, players, create=True)
    frames = {name: as_arrow(frame) for name, frame in frames.items()}
    kept = keep.run_keep(con, run_id)
    _check_game_range(frames, _stored_games(con, cell, kept))
    if kept == "rows" and any(frames[name] is None for name in TOTALLED):
        raise StoreError(f"run {run_id} keeps rows, and the batch has its games' totals "
                         "instead of its rounds (played with totals=True)")
    for name in KEPT_TABLES[kept]:
        try:
            _insert(con, name, frames[name], cell)
        except duckdb.Error as e:  # e.g. a value outside its column's type
            raise StoreError(f"cannot store the batch's {name}: {first_line(str(e))}") from e
    if kept != "rows" and len(frames["games"]):
        keep.insert_kept(con, kept, cell, frames)


# The engine's frames each keep stores as rows (``keep``: the rest is reduced to totals).
KEPT_TABLES = {"rows": tuple(FRAME_COLUMNS), "games": ("games", "game_seats"), "summary": ()}


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
    for name in ("game_seats", "rounds", "round_seats", "game_totals"):
        if frames.get(name) is None:
            continue
        g = _games_of(frames[name])
        if len(g) and (g.min() < first or g.max() > first + n - 1):
            raise StoreError(f"batch frame {name!r} has games outside the batch's games")


def _games_of(frame: Any) -> np.ndarray:
    """The ``game`` column of a polars frame or an Arrow table, as numpy (no copy if it can)."""
    return frame["game"].to_numpy()


def completed_games(con: duckdb.DuckDBPyConnection, run_id: str, variant: str,
                    players: int) -> int:
    """Games stored for one cell; games are stored in order, so a resume starts at this index."""
    return _stored_games(con, cell_id(con, run_id, variant, players),
                         keep.run_keep(con, run_id))


def _stored_games(con: duckdb.DuckDBPyConnection, cell: int | None, kept: str) -> int:
    if cell is None:
        return 0
    if kept == "summary":  # no game rows: the blocks' games
        return keep.kept_games(con, cell)
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
