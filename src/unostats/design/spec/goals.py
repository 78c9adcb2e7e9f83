"""The statistics a design can aim at (``GOALS``): each one's name, how it reads, the range its
values can take, the sums over a cell's stored games it is estimated from (named as the store's
sums layer names them, ``store.sums``, which gives them whatever a run kept: rows, games or
summary) and its 95% interval from those sums. A new goal is one entry here: ``cell_sums``
gathers every goal's sums in one read.

The intervals are the summary's and the precision targets': means +- 1.96 SE from sums and
sums of squares, and the Wilson interval of a share."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ...codes import MEASURE_SUMS
from ...stats import Estimate, mean_se_from_sums, wilson_interval

# (sums, players, seconds per turn) -> the goal's interval
Estimator = Callable[[Mapping[str, float], int, float], Estimate]


@dataclass(frozen=True)
class Goal:
    name: str
    title: str  # how a table's header or a sentence reads it
    possible: tuple[float, float]  # the values it can take: a constraint outside them is refused
    sums: tuple[str, ...]  # the store's sums it is estimated from (``store.sums``)
    estimate: Estimator

    @property
    def counted(self) -> bool:
        """Does it read a round's counters of how it played (codes.MEASURE_NAMES), which a run
        stores only when it counts them (the scenario's ``how_it_plays``)?"""
        return any(s in sums for sums in MEASURE_SUMS.values() for s in self.sums)


def _scaled(e: Estimate, factor: float, method: str) -> Estimate:
    return Estimate(e.value * factor, e.lo * factor, e.hi * factor, e.n, method,
                    se=None if e.se is None else e.se * factor)


def _shifted(e: Estimate, by: float, method: str) -> Estimate:
    return Estimate(e.value + by, e.lo + by, e.hi + by, e.n, method, se=e.se)


GOALS: dict[str, Goal] = {g.name: g for g in (
    Goal("minutes_per_game", "minutes per game", (0.0, math.inf), ("games", "turns", "turns__2"),
         lambda s, players, pace: _scaled(
             mean_se_from_sums(int(s["games"]), s["turns"], s["turns__2"]),
             pace / 60, f"mean ± 1.96 SE of turns x {pace:g} s")),
    Goal("turns_per_round", "turns per round", (0.0, math.inf), ("rounds", "turns", "turns_sq"),
         lambda s, players, pace: mean_se_from_sums(int(s["rounds"]), s["turns"],
                                                    s["turns_sq"])),
    Goal("rounds_per_game", "rounds per game", (0.0, math.inf), ("games", "rounds", "rounds__2"),
         lambda s, players, pace: mean_se_from_sums(int(s["games"]), s["rounds"],
                                                    s["rounds__2"])),
    Goal("points_per_round", "points per won round", (0.0, math.inf),
         ("won", "points", "points_sq"),
         lambda s, players, pace: mean_se_from_sums(int(s["won"]), s["points"],
                                                    s["points_sq"])),
    Goal("lead_changes_per_game", "lead changes per game", (0.0, math.inf),
         ("games", "lead_changes", "lead_changes__2"),
         lambda s, players, pace: mean_se_from_sums(int(s["games"]), s["lead_changes"],
                                                    s["lead_changes__2"])),
    Goal("comeback_share", "share of games won by a player who once stood last", (0.0, 1.0),
         ("won_game", "comeback"),
         lambda s, players, pace: wilson_interval(int(s["comeback"]), int(s["won_game"]))),
    Goal("hand_leader_changes_per_round", "changes of the seat holding fewest cards per round",
         (0.0, math.inf), ("rounds", "hand_leader_changes", "hand_leader_changes_sq"),
         lambda s, players, pace: mean_se_from_sums(int(s["rounds"]), s["hand_leader_changes"],
                                                    s["hand_leader_changes_sq"])),
    Goal("first_player_excess", "first player's round-win share minus 1/players", (-1.0, 1.0),
         ("won", "p0"),
         lambda s, players, pace: _shifted(wilson_interval(int(s["p0"]), int(s["won"])),
                                           -1 / players, "Wilson, minus 1/players")),
)}

SUM_NAMES = tuple(dict.fromkeys(name for goal in GOALS.values() for name in goal.sums))
# (con, an SQL condition on the cells c, its parameters, sum names, games) -> the sums by
# (run_id, variant, players): the store's ``sums.cell_sums``, handed in from above the store
CellSums = Callable[..., Mapping[tuple[str, str, int], Mapping[str, float | None]]]


def cell_sums(con, store_sums: CellSums, run_id: str, variant: str | None = None,
              players: int | None = None, games: int | None = None
              ) -> dict[str, dict[str, float]]:
    """Every goal's sums by variant over a run's cells, or over games 0 .. ``games``-1 of one
    cell (``variant``, ``players``); a sum of NULLs only (a measure not counted) reads 0."""
    where, params = "c.run_id = $run_id", {"run_id": run_id}
    if variant is not None:
        where += " AND c.variant = $variant AND c.players = $players"
        params.update(variant=variant, players=players)
    found = store_sums(con, where, params, SUM_NAMES, games=games)
    return {v: {k: float(x or 0) for k, x in sums.items()} for (_, v, _), sums in found.items()}


def zero_sums() -> dict[str, float]:
    """The sums of a cell without games."""
    return dict.fromkeys(SUM_NAMES, 0.0)


def estimates(sums: Mapping[str, float], players: int, pace: float) -> dict[str, Estimate]:
    """Every goal's interval from a cell's sums."""
    return {name: goal.estimate(sums, players, pace) for name, goal in GOALS.items()}
