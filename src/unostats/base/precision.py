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

from .. import store
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
    """The summary's interval of ``stat`` from sums over a cell's games (``SUMS``)."""
    if stat == "turns_per_round":
        return mean_se_from_sums(int(sums["rounds"]), sums["turns"], sums["turns_sq"])
    if stat == "rounds_per_game":
        return mean_se_from_sums(int(sums["games"]), sums["rounds"], sums["rounds__2"])
    if stat == "points_per_round":
        return mean_se_from_sums(int(sums["won"]), sums["points"], sums["points_sq"])
    if stat == "first_player_share":
        return wilson_interval(int(sums["p0"]), int(sums["won"]))
    raise ValueError(f"unknown statistic {stat!r}; expected one of {', '.join(STATISTICS)}")


# The sums behind every statistic (``store.sums``: from whatever the run kept).
SUMS = ("games", "rounds", "turns", "turns_sq", "rounds__2", "won", "points", "points_sq", "p0")


def cell_estimates(con, run_id: str, variant: str, players: int, games: int,
                   stats: Sequence[str]) -> dict[str, Estimate]:
    """The intervals of ``stats`` over games 0 .. games-1 of a stored cell."""
    found = store.sums.cell_sums(
        con, "c.run_id = $run_id AND c.variant = $variant AND c.players = $players",
        {"run_id": run_id, "variant": variant, "players": players}, SUMS, games=games)
    sums = {k: v or 0.0 for k, v in found.get((run_id, variant, players),
                                              dict.fromkeys(SUMS)).items()}
    return {stat: estimate(stat, sums) for stat in stats}


def run_estimates(con, run_id: str, stats: Sequence[str]
                  ) -> defaultdict[tuple[str, int], dict[str, Estimate]]:
    """``cell_estimates`` over all stored games of every cell of a run, by (variant, players)
    (a cell without games: no values)."""
    found = store.sums.cell_sums(con, "c.run_id = $run_id", {"run_id": run_id}, SUMS)
    out = defaultdict(lambda: {stat: estimate(stat, dict.fromkeys(SUMS, 0.0))
                               for stat in stats})
    for (_, variant, players), sums in found.items():
        sums = {k: v or 0.0 for k, v in sums.items()}
        out[(variant, players)] = {stat: estimate(stat, sums) for stat in stats}
    return out


def describe_stop(estimates: Mapping[str, Estimate], targets: Sequence[tuple[str, float]],
                  games: int, cap: int) -> str:
    """'turns_per_round ±0.31 (target 0.5)' for each statistic, and why the cell stopped."""
    parts = ", ".join(f"{stat} ±{half_width(estimates[stat]):.3g} (target {target:g})"
                      for stat, target in targets)
    how = "target met" if met(estimates, targets) else "cap reached, target not met"
    return f"{games:,} of {cap:,} games: {parts}; {how}"
