"""Precision targets: play a cell until the 95% interval of each targeted statistic is at most
a given half-width, the scenario's ``games`` being the cap.

Sequential stopping is done so that the intervals stay honest:

- the looks are at fixed game counts that depend on the cap only (``looks``): the first after
  ``FIRST_LOOK`` games (a minimum sample, so that the normal and Wilson intervals are sound
  before anything is decided), then each ``GROWTH`` times the one before, rounded up to a
  hundred games, and the cap last: a handful of looks, never one per batch;
- a look sees games 0 .. n-1 of the cell as stored, and a game is a pure function of the seed
  and its index, so the same seed stops at the same look (reproducible; a resumed run looks
  again at the same games and decides the same);
- the rule looks at the interval's width only, never at the estimate, and the width settles
  quickly, so stopping on it shifts coverage little: ``tests/test_precision.py`` measures the
  coverage of this very procedure (``estimate``, ``met``, ``looks``) on simulated data of known
  mean, and, marked slow, on the engine.

The intervals are the summary's (``estimate``): means of rounds or games +- 1.96 SE and the
Wilson interval of the first player's share of the rounds with a winner.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..scenario import PRECISION_STATS
from ..stats import Estimate, mean_se_from_sums, wilson_interval

FIRST_LOOK = 500  # games before the first look (the minimum sample)
GROWTH = 1.5  # each look after this many times the games of the one before

STATISTICS = PRECISION_STATS
TITLES = {"turns_per_round": "turns per round", "rounds_per_game": "rounds per game",
          "points_per_round": "points per round",
          "first_player_share": "share of rounds won by position 0"}


def look_schedule(cap: int, first: int, growth: float) -> tuple[int, ...]:
    """Game counts to look at a cell of at most ``cap`` games: ``first`` (at most the cap),
    then each ``growth`` times the one before rounded up to a hundred games, the cap last. The
    precision targets' looks and a design's (``design.driver.looks``) differ only in the first
    look and the growth."""
    out = []
    n = min(first, cap)
    while n < cap:
        out.append(n)
        n = min(cap, math.ceil(n * growth / 100) * 100)
    out.append(cap)
    return tuple(out)


def looks(cap: int) -> tuple[int, ...]:
    """The game counts at which a cell of at most ``cap`` games is looked at."""
    return look_schedule(cap, FIRST_LOOK, GROWTH)


def half_width(e: Estimate) -> float:
    return (e.hi - e.lo) / 2 if math.isfinite(e.hi - e.lo) else math.inf


def met(estimates: Mapping[str, Estimate], targets: Sequence[tuple[str, float]]) -> bool:
    """Whether every targeted statistic's 95% half-width is at most its target."""
    return all(half_width(estimates[stat]) <= target for stat, target in targets)


def estimate(stat: str, sums: Mapping[str, float]) -> Estimate:
    """The summary's interval of ``stat`` from sums over a cell's games (``CELL_SUMS_SQL``)."""
    if stat == "turns_per_round":
        return mean_se_from_sums(int(sums["rounds"]), sums["turns"], sums["turns_sq"])
    if stat == "rounds_per_game":
        return mean_se_from_sums(int(sums["games"]), sums["rounds"], sums["rounds_sq"])
    if stat == "points_per_round":
        return mean_se_from_sums(int(sums["won"]), sums["points"], sums["points_sq"])
    if stat == "first_player_share":
        return wilson_interval(int(sums["p0"]), int(sums["won"]))
    raise ValueError(f"unknown statistic {stat!r}; expected one of {', '.join(STATISTICS)}")


# The sums behind every statistic, over games 0 .. $games-1 of one cell.
CELL_SUMS_SQL = """
SELECT
  (SELECT count(*) FROM games WHERE run_id = $run_id AND variant = $variant
     AND players = $players AND game < $games) AS games,
  count(*) AS rounds,
  coalesce(sum(turns), 0) AS turns, coalesce(sum(turns::DOUBLE * turns), 0) AS turns_sq,
  count(*) FILTER (WHERE ended_by = 'win') AS won,
  coalesce(sum(points) FILTER (WHERE ended_by = 'win'), 0) AS points,
  coalesce(sum(points::DOUBLE * points) FILTER (WHERE ended_by = 'win'), 0) AS points_sq,
  count(*) FILTER (WHERE ended_by = 'win' AND winner_position = 0) AS p0,
  (SELECT coalesce(sum(rounds::DOUBLE * rounds), 0) FROM games WHERE run_id = $run_id
     AND variant = $variant AND players = $players AND game < $games) AS rounds_sq
FROM rounds WHERE run_id = $run_id AND variant = $variant AND players = $players
  AND game < $games
"""


def cell_estimates(con, run_id: str, variant: str, players: int, games: int,
                   stats: Sequence[str]) -> dict[str, Estimate]:
    """The intervals of ``stats`` over games 0 .. games-1 of a stored cell."""
    cur = con.execute(CELL_SUMS_SQL, {"run_id": run_id, "variant": variant,
                                      "players": players, "games": games})
    sums = dict(zip([d[0] for d in cur.description], cur.fetchall()[0]))
    sums = {k: float(v or 0) for k, v in sums.items()}
    return {stat: estimate(stat, sums) for stat in stats}


# The same sums over every game of every cell of a run, a row per cell: one scan, not one a cell.
RUN_SUMS_SQL = """
WITH r AS (
  SELECT variant, players, count(*) AS rounds,
    coalesce(sum(turns), 0) AS turns, coalesce(sum(turns::DOUBLE * turns), 0) AS turns_sq,
    count(*) FILTER (WHERE ended_by = 'win') AS won,
    coalesce(sum(points) FILTER (WHERE ended_by = 'win'), 0) AS points,
    coalesce(sum(points::DOUBLE * points) FILTER (WHERE ended_by = 'win'), 0) AS points_sq,
    count(*) FILTER (WHERE ended_by = 'win' AND winner_position = 0) AS p0
  FROM rounds WHERE run_id = $run_id GROUP BY variant, players
), g AS (
  SELECT variant, players, count(*) AS games,
    coalesce(sum(rounds::DOUBLE * rounds), 0) AS rounds_sq
  FROM games WHERE run_id = $run_id GROUP BY variant, players
)
SELECT variant, players, coalesce(g.games, 0) AS games, r.rounds, r.turns, r.turns_sq, r.won,
  r.points, r.points_sq, r.p0, coalesce(g.rounds_sq, 0) AS rounds_sq
FROM r FULL JOIN g USING (variant, players)
"""


def run_estimates(con, run_id: str, stats: Sequence[str]
                  ) -> defaultdict[tuple[str, int], dict[str, Estimate]]:
    """``cell_estimates`` over all stored games of every cell of a run, by (variant, players)
    (a cell without games: no values)."""
    cur = con.execute(RUN_SUMS_SQL, {"run_id": run_id})
    names = [d[0] for d in cur.description]
    out = defaultdict(lambda: {stat: estimate(stat, dict.fromkeys(names[2:], 0.0))
                               for stat in stats})
    for row in cur.fetchall():
        sums = {k: float(v or 0) for k, v in zip(names[2:], row[2:])}
        out[(row[0], int(row[1]))] = {stat: estimate(stat, sums) for stat in stats}
    return out


def describe_stop(estimates: Mapping[str, Estimate], targets: Sequence[tuple[str, float]],
                  games: int, cap: int) -> str:
    """'turns_per_round ±0.31 (target 0.5)' for each statistic, and why the cell stopped."""
    parts = ", ".join(f"{stat} ±{half_width(estimates[stat]):.3g} (target {target:g})"
                      for stat, target in targets)
    how = "target met" if met(estimates, targets) else "cap reached, target not met"
    return f"{games:,} of {cap:,} games: {parts}; {how}"
