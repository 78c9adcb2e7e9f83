"""Durations in minutes: the views that turn stored turns into time at each run's pace.

A run's pace is its scenario's ``seconds_per_turn`` (``durations.py``; a run stored without one
takes the default). It is a setting, not an estimate: a duration's interval is its turns'
interval (mean ± 1.96 SE), times the pace.

- ``durations``: per cell and ``unit`` ('round' or 'game'): n, the pace, the mean duration in
  minutes with its 95% interval, the median and p90, and the method. Every round and game
  counts, including those ended by a safety cap (at the cap), as ``round_length`` and
  ``game_length`` count them (read by cell: ``games.BY_CELL``).
- ``tournament_durations``: per tournament cell (variant x field), each stage's longest table
  (tables of a stage play at the same time; ``tournament_stage_length``) and the evening (the
  first stage, then the longer of the later main stages and the consolation, which plays beside
  them; ``tournament_length``), in minutes with the same interval, over tournaments.
"""

from __future__ import annotations

from ..durations import KEY, SECONDS_PER_TURN_DEFAULT
from ..stats import Z95

# Each run's seconds per turn, read from its resolved scenario.
_PACE = f"""SELECT run_id, coalesce(TRY_CAST(json_extract(scenario_json, '$.{KEY}') AS DOUBLE),
    {SECONDS_PER_TURN_DEFAULT}) AS seconds_per_turn FROM runs"""
_METHOD = "'mean ± 1.96 SE of the turns, times seconds_per_turn'"


def _minutes(mean: str, se: str, p50: str, p90: str) -> str:
    """The duration columns from turn columns (``p`` is the pace's table alias)."""
    per_minute = "p.seconds_per_turn / 60.0"
    return f"""({mean}) * {per_minute} AS mean_minutes,
  (({mean}) - {Z95} * {se}) * {per_minute} AS lo_minutes,
  (({mean}) + {Z95} * {se}) * {per_minute} AS hi_minutes,
  ({p50}) * {per_minute} AS p50_minutes,
  ({p90}) * {per_minute} AS p90_minutes,
  {_METHOD} AS method"""


VIEWS_DDL = [
    f"""CREATE OR REPLACE VIEW durations AS
WITH pace AS ({_PACE}), units AS (
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
  {_minutes("a.mean_turns", "a.se_turns", "a.p50_turns", "a.p90_turns")}
FROM agg a JOIN cells c USING (cell) JOIN pace p USING (run_id)
ORDER BY c.run_id, c.variant, c.players, a.unit = 'game'""",
    f"""CREATE OR REPLACE VIEW tournament_durations AS
WITH pace AS ({_PACE}), parts AS (
  SELECT run_id, variant, field, bracket, step, stage_name AS part, tournaments AS n,
    mean_longest_turns AS mean_turns, se_longest_turns AS se_turns,
    p50_longest_turns AS p50_turns, p90_longest_turns AS p90_turns
  FROM tournament_stage_length
  UNION ALL
  SELECT run_id, variant, field, NULL, NULL, 'evening', tournaments, mean_turns, se_turns,
    p50_turns, p90_turns
  FROM tournament_length
)
SELECT t.run_id, t.variant, t.field, t.bracket, t.step, t.part, t.n, p.seconds_per_turn,
  {_minutes("t.mean_turns", "t.se_turns", "t.p50_turns", "t.p90_turns")}
FROM parts t JOIN pace p USING (run_id)
ORDER BY t.run_id, t.variant, t.field, t.bracket IS NULL, t.bracket = 'consolation', t.step""",
]
VIEWS = ("durations", "tournament_durations")
