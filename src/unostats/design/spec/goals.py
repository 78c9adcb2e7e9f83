"""The statistics a design can aim at (``GOALS``): each one's name, how it reads, the range its
values can take, the sums over a cell's stored games it is estimated from (SQL over the
``games`` or ``rounds`` view, or over how each game played, the ``game_measures`` view) and its
95% interval from those sums. A new goal is one entry
here: ``sums_sql`` gathers every goal's sums in one scan a cell.

The intervals are the summary's and the precision targets': means +- 1.96 SE from sums and
sums of squares, and the Wilson interval of a share."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...codes import MEASURE_NAMES
from ...stats import Estimate, mean_se_from_sums, wilson_interval

# (sums, players, seconds per turn) -> the goal's interval
Estimator = Callable[[Mapping[str, float], int, float], Estimate]


@dataclass(frozen=True)
class Goal:
    name: str
    title: str  # how a table's header or a sentence reads it
    possible: tuple[float, float]  # the values it can take: a constraint outside them is refused
    game_sums: Mapping[str, str]  # sum name -> SQL aggregate over the cell's ``games`` rows
    round_sums: Mapping[str, str]  # sum name -> SQL aggregate over the cell's ``rounds`` rows
    estimate: Estimator
    # sum name -> SQL aggregate over the cell's ``game_measures`` rows (how each game played)
    measure_sums: Mapping[str, str] = field(default_factory=dict)

    @property
    def counted(self) -> bool:
        """Does it read a round's counters of how it played (codes.MEASURE_NAMES), which a run
        stores only when it counts them (the scenario's ``how_it_plays``)?"""
        return any(re.search(rf"\b{name}\b", sql) for sql in self.round_sums.values()
                   for name in MEASURE_NAMES)


def _scaled(e: Estimate, factor: float, method: str) -> Estimate:
    return Estimate(e.value * factor, e.lo * factor, e.hi * factor, e.n, method,
                    se=None if e.se is None else e.se * factor)


def _shifted(e: Estimate, by: float, method: str) -> Estimate:
    return Estimate(e.value + by, e.lo + by, e.hi + by, e.n, method, se=e.se)


_GAME_TURNS = {"games": "count(*)", "game_turns": "sum(turns)",
               "game_turns_sq": "sum(turns::DOUBLE * turns)"}
_GAME_ROUNDS = {"games": "count(*)", "game_rounds": "sum(rounds)",
                "game_rounds_sq": "sum(rounds::DOUBLE * rounds)"}
_ROUND_TURNS = {"rounds": "count(*)", "turns": "sum(turns)",
                "turns_sq": "sum(turns::DOUBLE * turns)"}
_WON = "ended_by = 'win'"
_ROUND_POINTS = {"won": f"count(*) FILTER (WHERE {_WON})",
                 "points": f"sum(points) FILTER (WHERE {_WON})",
                 "points_sq": f"sum(points::DOUBLE * points) FILTER (WHERE {_WON})"}
_FIRST_WINS = {"won": f"count(*) FILTER (WHERE {_WON})",
               "p0": f"count(*) FILTER (WHERE {_WON} AND winner_position = 0)"}

GOALS: dict[str, Goal] = {g.name: g for g in (
    Goal("minutes_per_game", "minutes per game", (0.0, math.inf), _GAME_TURNS, {},
         lambda s, players, pace: _scaled(
             mean_se_from_sums(int(s["games"]), s["game_turns"], s["game_turns_sq"]),
             pace / 60, f"mean ± 1.96 SE of turns x {pace:g} s")),
    Goal("turns_per_round", "turns per round", (0.0, math.inf), {}, _ROUND_TURNS,
         lambda s, players, pace: mean_se_from_sums(int(s["rounds"]), s["turns"],
                                                    s["turns_sq"])),
    Goal("rounds_per_game", "rounds per game", (0.0, math.inf), _GAME_ROUNDS, {},
         lambda s, players, pace: mean_se_from_sums(int(s["games"]), s["game_rounds"],
                                                    s["game_rounds_sq"])),
    Goal("points_per_round", "points per won round", (0.0, math.inf), {}, _ROUND_POINTS,
         lambda s, players, pace: mean_se_from_sums(int(s["won"]), s["points"],
                                                    s["points_sq"])),
    Goal("lead_changes_per_game", "lead changes per game", (0.0, math.inf), {}, {},
         lambda s, players, pace: mean_se_from_sums(int(s["measured_games"]), s["lead_changes"],
                                                    s["lead_changes_sq"]),
         measure_sums={"measured_games": "count(*)", "lead_changes": "sum(lead_changes)",
                       "lead_changes_sq": "sum(lead_changes::DOUBLE * lead_changes)"}),
    Goal("comeback_share", "share of games won by a player who once stood last", (0.0, 1.0),
         {}, {},
         lambda s, players, pace: wilson_interval(int(s["comebacks"]), int(s["won_games"])),
         measure_sums={"won_games": "count(winner_seat)",
                       "comebacks": "count(*) FILTER (WHERE comeback)"}),
    Goal("hand_leader_changes_per_round", "changes of the seat holding fewest cards per round",
         (0.0, math.inf), {},
         {"rounds": "count(*)", "hand_leader_changes": "sum(hand_leader_changes)",
          "hand_leader_changes_sq": "sum(hand_leader_changes::DOUBLE * hand_leader_changes)"},
         lambda s, players, pace: mean_se_from_sums(int(s["rounds"]), s["hand_leader_changes"],
                                                    s["hand_leader_changes_sq"])),
    Goal("first_player_excess", "first player's round-win share minus 1/players", (-1.0, 1.0),
         {}, _FIRST_WINS,
         lambda s, players, pace: _shifted(wilson_interval(int(s["p0"]), int(s["won"])),
                                           -1 / players, "Wilson, minus 1/players")),
)}


def _sums(scope: str) -> dict[str, str]:
    """Every goal's sums over one view, each name once (two goals naming a sum alike must
    compute it alike)."""
    out: dict[str, str] = {}
    for goal in GOALS.values():
        sums = {"games": goal.game_sums, "rounds": goal.round_sums,
                "measures": goal.measure_sums}[scope]
        for name, sql in sums.items():
            if out.setdefault(name, sql) != sql:
                raise ValueError(f"goal {goal.name}: sum {name!r} is {sql!r} here and "
                                 f"{out[name]!r} in another goal")
    return out


GAME_SUMS, ROUND_SUMS, MEASURE_SUMS = _sums("games"), _sums("rounds"), _sums("measures")
SUM_NAMES = tuple(dict.fromkeys([*GAME_SUMS, *ROUND_SUMS, *MEASURE_SUMS]))


def sums_sql(one_cell: bool, game_measures_sql: Callable[[str], str]) -> str:
    """The sums of every goal by variant, over a run's cells (``$run_id``), or over games
    0 .. ``$games``-1 of one cell (``$variant``, ``$players``) with ``one_cell``;
    ``game_measures_sql`` is the store's (how each game played, for the cells where a condition
    holds), handed in from above the store."""
    where = "run_id = $run_id" + (" AND variant = $variant AND players = $players AND "
                                  "game < $games" if one_cell else "")

    def select(sums: Mapping[str, str]) -> str:
        return ", ".join(f"coalesce({sql}, 0) AS {name}" for name, sql in sums.items())

    round_only = {k: v for k, v in ROUND_SUMS.items() if k not in GAME_SUMS}
    measure_only = {k: v for k, v in MEASURE_SUMS.items()
                    if k not in GAME_SUMS and k not in ROUND_SUMS}
    # how each game played, its window functions over the run's (the cell's) rows alone
    cells = ("cell IN (SELECT cell FROM cells WHERE run_id = $run_id"
             + (" AND variant = $variant AND players = $players)" if one_cell else ")"))
    measured = (f"SELECT variant, {select(measure_only)} FROM ({game_measures_sql(cells)}) "
                + ("WHERE game < $games " if one_cell else "") + "GROUP BY variant")
    return (f"WITH g AS (SELECT variant, {select(GAME_SUMS)} FROM games WHERE {where} "
            f"GROUP BY variant), r AS (SELECT variant, {select(round_only)} FROM rounds WHERE "
            f"{where} GROUP BY variant), m AS ({measured}) SELECT variant, "
            + ", ".join(f"coalesce({name}, 0) AS {name}" for name in SUM_NAMES)
            + " FROM g LEFT JOIN r USING (variant) LEFT JOIN m USING (variant) ORDER BY variant")


def estimates(sums: Mapping[str, float], players: int, pace: float) -> dict[str, Estimate]:
    """Every goal's interval from a cell's sums."""
    return {name: goal.estimate(sums, players, pace) for name, goal in GOALS.items()}
