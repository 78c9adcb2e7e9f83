"""The summary of plain-games runs: per cell, turns per round, rounds per game, the first
player's share of round wins, points per round and the minutes a round and a game last (at the
run's seconds_per_turn), each with its 95% interval, from the cells' sums (``store.sums``:
whatever the run kept); as rows or as the table ``simulate`` prints."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import duckdb

from .. import store
from ..output import Column, Numeral, format_rows, format_table, interval_cell
from ..base.session import RunError, locate, stored_scenario
from ..sql import PACE, first_line
from ..stats import mean_se_from_sums, wilson_interval
from . import ladder, plays

SUMMARY_COLUMNS = (
    "run_id", "scenario", "variant", "players", "games", "rounds",
    "turns_per_round", "turns_per_round_lo", "turns_per_round_hi",
    "rounds_per_game", "rounds_per_game_lo", "rounds_per_game_hi",
    "p0_win_rate", "p0_win_rate_lo", "p0_win_rate_hi",
    "points_per_round", "points_per_round_lo", "points_per_round_hi",
    "capped_rounds",
    "seconds_per_turn", "minutes_per_round", "minutes_per_round_lo", "minutes_per_round_hi",
    "minutes_per_game", "minutes_per_game_lo", "minutes_per_game_hi",
)

# The sums the summary reads (``store.sums``: from whatever the run kept).
SUMMARY_SUMS = ("games", "rounds", "turns", "turns_sq", "rounds__2", "won", "p0", "points",
                "points_sq", "capped", "turns__2")
_CELLS_SQL = f"""SELECT v.variant, v.players, r.scenario_name, p.seconds_per_turn
FROM variants v JOIN runs r USING (run_id) JOIN ({PACE}) p USING (run_id)
WHERE v.run_id = $run_id"""


def summary_rows(con, run_id: str) -> list[dict[str, Any]]:
    """One dict per cell of the run (``SUMMARY_COLUMNS``), in the scenario's cell order, with
    95% intervals: means +- 1.96 SE, the position-0 round win rate with Wilson bounds; from the
    cells' sums (``store.sums``), whatever the run kept."""
    sums = store.sums.cell_sums(con, "c.run_id = $run_id", {"run_id": run_id}, SUMMARY_SUMS)
    info = store.run_info(con, run_id)
    order = {}
    try:
        for i, cell in enumerate(stored_scenario(info).cells()):
            order[(cell.variant.name, cell.players)] = i
    except RunError:
        pass
    out = []
    for variant, players, scenario, pace in con.execute(_CELLS_SQL, {"run_id": run_id}
                                                        ).fetchall():
        s = {k: v or 0.0 for k, v in sums.get((run_id, variant, int(players)), {}).items()}
        s = {**dict.fromkeys(SUMMARY_SUMS, 0.0), **s}
        games, rounds, won = int(s["games"]), int(s["rounds"]), int(s["won"])
        turns = mean_se_from_sums(rounds, s["turns"], s["turns_sq"])
        per_game = mean_se_from_sums(games, s["rounds"], s["rounds__2"])
        p0 = wilson_interval(int(s["p0"]), won)
        points = mean_se_from_sums(won, s["points"], s["points_sq"])
        game_turns = mean_se_from_sums(games, s["turns"], s["turns__2"])
        minute = float(pace) / 60
        out.append(dict(zip(SUMMARY_COLUMNS, (
            run_id, scenario, variant, players, games, rounds,
            turns.value, turns.lo, turns.hi, per_game.value, per_game.lo, per_game.hi,
            p0.value, p0.lo, p0.hi, points.value, points.lo, points.hi, int(s["capped"]),
            float(pace), *(x * minute for x in (turns.value, turns.lo, turns.hi)),
            *(x * minute for x in (game_turns.value, game_turns.lo, game_turns.hi))))))
    out.sort(key=lambda r: (order.get((r["variant"], r["players"]), len(order)),
                            r["variant"], r["players"]))
    return out


# DuckDB's memory for the summary a run prints: its grouped aggregates over every cell of the
# run. The writer's 64 MB ran out on the 90 cells of scenarios/sweeps.yaml in a file that
# already held the other bundled scenarios' runs (make demo); 128 MB was enough there.
SUMMARY_MEMORY_LIMIT = "256MB"


def summaries(*, db: str | os.PathLike | None = None, run_ids: Sequence[str]
              ) -> list[dict[str, Any]]:
    """``summary_rows`` of several runs, read from ``db`` opened read-only with a memory limit
    of its own (``simulate`` prints them, and its memory stays bounded)."""
    con = store.open_store(locate(db), read_only=True,
                           memory_limit=SUMMARY_MEMORY_LIMIT)
    try:
        return [row for rid in run_ids for row in summary_rows(con, rid)]
    finally:
        con.close()


# The table ``simulate`` prints ("{pace}": the run's seconds per turn). Shares are percentages
# here, fractions in csv and json.
TABLE = (
    Column("run", 4, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("players", 0, lambda r: r["players"]),
    Column("games", 3, lambda r: r["games"]),
    Column("rounds", 6, lambda r: r["rounds"]),
    Column("turns/round [95% CI]", 1, interval_cell("turns_per_round")),
    Column("rounds/game [95% CI]", 2, interval_cell("rounds_per_game")),
    Column("pos-0 round wins (%) [95% CI]", 1, interval_cell("p0_win_rate", 100)),
    Column("points/round [95% CI]", 3, interval_cell("points_per_round")),
    Column("minutes/game{pace} [95% CI]", 5, interval_cell("minutes_per_game")),
)


def format_summary(rows: Sequence[dict[str, Any]], fmt: str = "table",
                   width: int | None = None) -> str:
    """The summary as text: csv and json every column of ``SUMMARY_COLUMNS`` (shares as
    fractions); the table the columns of ``TABLE``, each estimate as 'value [lo, hi]', fitted
    to ``width`` (a terminal's) when given."""
    if fmt != "table":
        return format_rows(SUMMARY_COLUMNS, [[r[c] for c in SUMMARY_COLUMNS] for r in rows], fmt)
    paces = {r["seconds_per_turn"] for r in rows}
    pace = f" at {paces.pop():g} s/turn" if len(paces) == 1 else ""
    return format_table([c._replace(head=c.head.format(pace=pace)) for c in TABLE], rows,
                        width)


def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """The summary of finished runs as ``simulate`` prints it, its tables fitted to ``width``
    when given. A precision-targeted run adds, in a table, each cell's stop: games played of
    the cap, the half-width reached. Below the table, how each cell plays (``plays_text``) and a
    skill ladder's table (games/ladder.py)."""
    rows = summaries(db=db, run_ids=run_ids)
    text = format_summary(rows, fmt, width=width)
    if fmt != "table":
        return text
    text += "\n\n" + plays_text(db=db, run_ids=run_ids, width=width,
                                order=[(r["run_id"], r["variant"], r["players"]) for r in rows])
    con = store.open_store(locate(db), read_only=True)
    try:
        rows = [row for rid in run_ids for row in precision_rows(con, rid)]
        ladders = ladder.load_ladders(con, run_ids)  # a run with a skill: section
    finally:
        con.close()
    if ladders:
        text += "\n\n" + ladder.format_ladder(ladders, width=width) + "\n"
    if not rows:
        return text
    return text + "\n" + format_table(PRECISION_TABLE, rows, width)


# A precision-targeted run's stops (the half-width and target in the statistic's own unit, as
# the scenario's ``precision`` key gives it).
PRECISION_TABLE = (
    Column("run", 4, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("players", 0, lambda r: r["players"]),
    Column("games", 0, lambda r: r["games"]),
    Column("cap", 2, lambda r: r["cap"]),
    Column("looks", 3, lambda r: r["looks"]),
    Column("statistic", 0, lambda r: r["statistic"]),
    Column("half-width reached", 1, lambda r: Numeral(f"{r['half_width']:.4g}")),
    Column("target", 1, lambda r: Numeral(f"{r['target']:g}")),
    Column("met", 0, lambda r: "yes" if r["met"] else "no (cap)"),
)


def plays_text(*, db: str | os.PathLike, run_ids: Sequence[str],
               order: Sequence[tuple[str, str, int]] = (), width: int | None = None) -> str:
    """The "how it plays" block of the runs' cells (games/plays.py) in the summary's ``order``
    of (run, variant, players), read with the summary's memory limit; if DuckDB cannot compute
    it there, a line saying where to find it."""
    con = store.open_store(locate(db), read_only=True, memory_limit=SUMMARY_MEMORY_LIMIT)
    place = {cell: i for i, cell in enumerate(order)}
    try:
        cells = plays.load_plays(con, run_ids)
        cells.sort(key=lambda c: place.get((c.run_id, c.variant, c.players), len(place)))
        return plays.block(cells, width)
    except duckdb.Error as e:
        return (f"How it plays: not computed here ({first_line(str(e))}); "
                "`unostats query \"SELECT * FROM how_it_plays\"` reads it")
    finally:
        con.close()


PRECISION_SQL = """
SELECT p.run_id, p.variant, p.players, p.games, p.statistic, p.target, p.estimate,
  p.half_width, p.met, p.look + 1 AS looks,
  (r.scenario_json->>'games')::BIGINT AS cap
FROM precision_looks p JOIN runs r USING (run_id)
WHERE p.run_id = $run_id
QUALIFY p.look = max(p.look) OVER (PARTITION BY p.variant, p.players)
ORDER BY p.variant, p.players, p.statistic
"""


def precision_rows(con, run_id: str) -> list[dict[str, Any]]:
    """Each cell's last look of a precision-targeted run, one row per statistic: games
    played, the cap, looks taken, the half-width reached against the target."""
    cur = con.execute(PRECISION_SQL, {"run_id": run_id})
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, row)) for row in cur.fetchall()]
    order = {}
    try:
        for i, cell in enumerate(stored_scenario(store.run_info(con, run_id)).cells()):
            order[(cell.variant.name, cell.players)] = i
    except RunError:
        pass
    rows.sort(key=lambda r: (order.get((r["variant"], r["players"]), len(order)),
                             r["statistic"]))
    return rows
