"""The league tables of the store: ``league_fits`` (each league policy's rating at each table size
of a run, as fitted from its stored games) and the ``league_ratings`` view over it; reading a
league cell's results and replacing a run's fits.

A league's games are stored as any games (``games``, ``game_seats`` with each seat's policy, ...);
the fits are a function of them, recomputed whenever a session of the run ends, so they always
describe the games stored (an interrupted run's so far, a resumed run's all)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import numpy as np

from ...sql import table_ddl, transaction

COLUMNS = (
    ("run_id", "VARCHAR", False),
    ("variant", "VARCHAR", False),
    ("players", "SMALLINT", False),  # the table size
    ("policy", "VARCHAR", False),
    ("policy_index", "SMALLINT", False),  # its place in the league's list
    ("rating", "DOUBLE", True),  # null: no game of the cell yet
    ("lo", "DOUBLE", True),
    ("hi", "DOUBLE", True),
    ("games", "BIGINT", False),  # games it played at this table size
    ("wins", "BIGINT", False),
    ("decided_games", "BIGINT", False),  # the cell's games with a winner (those fitted)
    ("method", "VARCHAR", False),
)
TABLES_DDL = [table_ddl("league_fits", COLUMNS)]
VIEWS_DDL = [
    # One row per league (run, variant), table size and policy: the rating (the policy's chance
    # to win against one rated 1 is rating / (rating + 1); ratings average 1), its 95% interval,
    # and the games it played and won there.
    """CREATE OR REPLACE VIEW league_ratings AS
SELECT run_id, variant, players, policy, rating, lo, hi, games, wins,
  wins / nullif(games, 0) AS win_rate, 1 / players AS fair_share, method
FROM league_fits""",
]
LEAGUE_TABLES = ("league_fits",)


def cell_results(con: duckdb.DuckDBPyConnection, run_id: str, variant: str,
                 players: int) -> tuple[np.ndarray, np.ndarray]:
    """A league cell's stored games: each game's policies (games x players, seat order) and
    each game's winning seat (-1 without a winner)."""
    key = [run_id, variant, players]
    seats = con.execute("SELECT policy FROM game_seats WHERE run_id = ? AND variant = ? "
                        "AND players = ? ORDER BY game, seat", key).fetchall()
    winners = con.execute("SELECT coalesce(winner_seat, -1) FROM games WHERE run_id = ? "
                          "AND variant = ? AND players = ? ORDER BY game", key).fetchall()
    policies = np.array([p for (p,) in seats], dtype=object).reshape(-1, players)
    return policies, np.array([w for (w,) in winners], dtype=np.int64)


def replace_fits(con: duckdb.DuckDBPyConnection, run_id: str,
                 rows: Sequence[Mapping[str, Any]]) -> None:
    """The run's fits, all at once (one transaction: the old rows go, the new ones come)."""
    names = [c for c, _, _ in COLUMNS]
    with transaction(con):
        con.execute("DELETE FROM league_fits WHERE run_id = ?", [run_id])
        if rows:
            con.executemany(f"INSERT INTO league_fits VALUES ({', '.join('?' * len(names))})",
                            [[r[n] for n in names] for r in rows])


def is_league_run(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    return con.execute("SELECT count(*) FROM league_fits WHERE run_id = ?",
                       [run_id]).fetchall()[0][0] > 0


def rating_rows(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict[str, Any]]:
    """The run's ``league_ratings`` rows: by variant (as stored), table size, best rating
    first."""
    cur = con.execute(
        "SELECT r.* FROM league_ratings r JOIN league_fits f USING (run_id, variant, players, "
        "policy) WHERE run_id = ? ORDER BY (SELECT min(rowid) FROM variants v WHERE "
        "v.run_id = r.run_id AND v.variant = r.variant), players, rating DESC NULLS LAST, "
        "f.policy_index", [run_id])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]
