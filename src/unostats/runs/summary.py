"""The summary of plain-games runs: per cell, turns per round, rounds per game, the first
player's share of round wins and points per round, each with its 95% interval, read from the
store's views; as rows or as the table ``simulate`` prints."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import store
from ..output import format_interval, format_rows
from ..stats import mean_interval, wilson_interval
from .session import RunError, default_db, stored_scenario

SUMMARY_COLUMNS = (
    "run_id", "scenario", "variant", "players", "games", "rounds",
    "turns_per_round", "turns_per_round_lo", "turns_per_round_hi",
    "rounds_per_game", "rounds_per_game_lo", "rounds_per_game_hi",
    "p0_win_rate", "p0_win_rate_lo", "p0_win_rate_hi",
    "points_per_round", "points_per_round_lo", "points_per_round_hi",
    "capped_rounds",
)

# Everything filtered to one run before it meets a view, so a file with many runs stays fast.
_SUMMARY_SQL = """
WITH cells AS (
  SELECT v.run_id, r.scenario_name, v.variant, v.players
  FROM variants v JOIN runs r ON r.run_id = v.run_id WHERE v.run_id = $run_id
)
SELECT c.run_id, c.scenario_name, c.variant, c.players,
  coalesce(gl.n, 0) AS games, coalesce(rl.n, 0) AS rounds,
  rl.mean_turns, rl.se_turns, gl.mean_rounds, gl.se_rounds,
  w.wins AS p0_wins, w.n AS won_rounds, w.lo AS p0_lo, w.hi AS p0_hi,
  p.mean_points, p.se_points, coalesce(rl.n_capped, 0) AS capped
FROM cells c
LEFT JOIN (
  -- round_length's count, mean, standard error and capped rounds, without its quantiles (which
  -- hold every round's turns in memory: 350 MB and 5 s at 10 M rounds, against 1.5 s)
  SELECT run_id, variant, players, count(*) AS n, avg(turns) AS mean_turns,
    stddev_samp(turns) / sqrt(count(*)) AS se_turns,
    count(*) FILTER (WHERE ended_by = 'cap') AS n_capped
  FROM rounds WHERE run_id = $run_id GROUP BY run_id, variant, players
) rl USING (run_id, variant, players)
LEFT JOIN (SELECT * FROM game_length WHERE run_id = $run_id) gl
  USING (run_id, variant, players)
LEFT JOIN (SELECT * FROM win_rate_by_position WHERE run_id = $run_id AND position = 0) w
  USING (run_id, variant, players)
LEFT JOIN (
  -- score_spread's definition of points per round (rounds with a winner), run-filtered first
  SELECT variant, players, avg(points) AS mean_points,
    stddev_samp(points) / sqrt(count(*)) AS se_points
  FROM rounds WHERE run_id = $run_id AND ended_by = 'win' GROUP BY variant, players
) p USING (variant, players)
"""


def summary_rows(con, run_id: str) -> list[dict[str, Any]]:
    """One dict per cell of the run (``SUMMARY_COLUMNS``), in the scenario's cell order, with
    95% intervals: means +- 1.96 SE, the position-0 round win rate with Wilson bounds."""
    rows = con.execute(_SUMMARY_SQL, {"run_id": run_id}).fetchall()
    info = store.run_info(con, run_id)
    order = {}
    try:
        for i, cell in enumerate(stored_scenario(info).cells()):
            order[(cell.variant.name, cell.players)] = i
    except RunError:
        pass
    out = []
    for (rid, scen, variant, players, games, rounds, mean_turns, se_turns, mean_rounds,
         se_rounds, p0_wins, won, _lo, _hi, mean_points, se_points, capped) in rows:
        turns = mean_interval(*_mean_se(mean_turns, se_turns), rounds)
        per_game = mean_interval(*_mean_se(mean_rounds, se_rounds), games)
        p0 = wilson_interval(int(p0_wins or 0), int(won or 0))
        points = mean_interval(*_mean_se(mean_points, se_points), won)
        out.append(dict(zip(SUMMARY_COLUMNS, (
            rid, scen, variant, players, games, rounds,
            turns.value, turns.lo, turns.hi, per_game.value, per_game.lo, per_game.hi,
            p0.value, p0.lo, p0.hi, points.value, points.lo, points.hi, capped))))
    out.sort(key=lambda r: (order.get((r["variant"], r["players"]), len(order)),
                            r["variant"], r["players"]))
    return out


def _mean_se(mean: float | None, se: float | None) -> tuple[float, float]:
    return (math.nan if mean is None else float(mean)), (math.nan if se is None else float(se))


def summaries(*, db: str | os.PathLike | None = None, run_ids: Sequence[str]
              ) -> list[dict[str, Any]]:
    """``summary_rows`` of several runs, read from ``db`` opened read-only (with the writer's
    memory limit: ``simulate`` prints them, and its memory stays flat)."""
    con = store.open_store(Path(db) if db is not None else default_db(), read_only=True,
                           memory_limit=store.WRITER_MEMORY_LIMIT)
    try:
        return [row for rid in run_ids for row in summary_rows(con, rid)]
    finally:
        con.close()


def format_summary(rows: Sequence[dict[str, Any]], fmt: str = "table",
                   width: int | None = None) -> str:
    """The summary as text; the table shows each estimate as 'value [lo, hi]'."""
    if fmt != "table":
        return format_rows(SUMMARY_COLUMNS, [[r[c] for c in SUMMARY_COLUMNS] for r in rows], fmt)
    columns = ("run", "variant", "players", "games", "rounds", "turns/round [95% CI]",
               "rounds/game [95% CI]", "pos-0 round wins [95% CI]", "points/round [95% CI]")
    table = [[r["run_id"], r["variant"], r["players"], r["games"], r["rounds"],
              format_interval(r["turns_per_round"], r["turns_per_round_lo"],
                              r["turns_per_round_hi"]),
              format_interval(r["rounds_per_game"], r["rounds_per_game_lo"],
                              r["rounds_per_game_hi"]),
              format_interval(r["p0_win_rate"], r["p0_win_rate_lo"], r["p0_win_rate_hi"]),
              format_interval(r["points_per_round"], r["points_per_round_lo"],
                              r["points_per_round_hi"])]
             for r in rows]
    return format_rows(columns, table, "table", width=width)



def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """The summary of finished runs as ``simulate`` prints it. The table keeps its natural width
    (``width`` is not applied to it, unlike the tournament summary's)."""
    return format_summary(summaries(db=db, run_ids=run_ids), fmt)
