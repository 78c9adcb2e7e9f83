"""Durations in minutes: the view that turns stored games' turns into time at each run's pace
(``sql.PACE`` and ``sql.minutes``; a tournament's own is ``tournaments.spec.tables``'
``tournament_durations``).

A run's pace is its scenario's ``seconds_per_turn`` (``durations.py``; a run stored without one
takes the default). It is a setting, not an estimate: a duration's interval is its turns'
interval (mean ± 1.96 SE), times the pace.

- ``durations``: per cell and ``unit`` ('round' or 'game'): n, the pace, the mean duration in
  minutes with its 95% interval, the median and p90, and the method. Every round and game
  counts, including those ended by a safety cap (at the cap), as ``round_length`` and
  ``game_length`` count them (read by cell: ``games.BY_CELL``).
"""

from __future__ import annotations

from ..sql import PACE, minutes

VIEWS_DDL = [
    f"""CREATE OR REPLACE VIEW durations AS
WITH pace AS ({PACE}), units AS (
  SELECT cell, 'round' AS unit, turns FROM rounds_by_cell
  UNION ALL
  SELECT cell, 'game' AS unit, turns FROM games_by_cell
), agg AS (
  SELECT cell, unit, count(*) AS n, avg(turns) AS mean_turns,
    stddev_samp(turns) / sqrt(count(*)) AS se_turns,
    quantile_cont(turns, 0.5) AS p50_turns, quantile_cont(turns, 0.9) AS p90_turns
  FROM units GROUP BY cell, unit
)
SELECT c.run_id, c.variant, c.players, a.unit, a.n, p.seconds_per_turn,
  {minutes("a.mean_turns", "a.se_turns", "a.p50_turns", "a.p90_turns")}
FROM agg a JOIN cells c USING (cell) JOIN pace p USING (run_id)
ORDER BY c.run_id, c.variant, c.players, a.unit = 'game'""",
]
VIEWS = ("durations",)
