"""How much is skill: the skill ladder of runs with a ``skill:`` section (scenario/ladder.py).
Per variant and player count, each rung's one seat (seat 0, among the table's seats) with its
share of the rounds and of the games with a winner (Wilson 95%), and the relative skill
(expert - random) / (clairvoyant - random) of Dreef, Borm and van der Genugten, on rounds and on
games, with its delta-method interval (``relative_skill``; docs/statistics.md). Read from the
store's rows, so ``unostats skill`` and the report's "How it plays" section show the same
numbers; the table ``unostats skill`` prints, its csv/json rows, the chart and the template's
view.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw
    import plotly.graph_objects as go

from .. import rules, stats, store
from ..base.session import locate
from ..base.format import fmt_estimate
from ..base.plotting import new_figure
from ..output import Column, format_interval, format_rows, format_table
from ..scenario.ladder import SEARCH_RUNGS, cell_name, rung_names
from ..stats import Estimate
from ..store import BY_CELL, UnknownRunError

# The rungs the relative skill is made of: (skill - floor) / (ceiling - floor).
FLOOR, SKILLED, CEILING = "random", "expert", "clairvoyant"
RELATIVE_METHOD = ("delta method on (e - r) / (c - r), three independent binomial shares, "
                   "± 1.96 SE")


@dataclass(frozen=True)
class Rung:
    name: str
    round_wins: int
    rounds: int  # rounds with a winner
    game_wins: int
    games: int  # games with a winner

    @property
    def round_share(self) -> Estimate:
        return stats.wilson_interval(self.round_wins, self.rounds)

    @property
    def game_share(self) -> Estimate:
        return stats.wilson_interval(self.game_wins, self.games)


@dataclass(frozen=True)
class CellLadder:
    run_id: str
    variant: str  # the file's variant (the cells are VARIANT/RUNG)
    players: int
    rungs: tuple[Rung, ...]  # in the ladder's order

    def rung(self, name: str) -> Rung | None:
        return next((r for r in self.rungs if r.name == name), None)

    def relative(self, level: str) -> Estimate | None:
        """The relative skill on ``level`` ("rounds" or "games"); None without the three rungs
        or when the clairvoyant wins no more than random."""
        rungs = [self.rung(n) for n in (SKILLED, FLOOR, CEILING)]
        if None in rungs:
            return None
        wins, n = f"{level[:-1]}_wins", level
        return relative_skill(*((getattr(r, wins), getattr(r, n)) for r in rungs))


def relative_skill(expert: tuple[int, int], random: tuple[int, int],
                   clairvoyant: tuple[int, int]) -> Estimate | None:
    """(e - r) / (c - r) of three shares given as (wins, n), with the delta-method interval:
    the shares independent binomials (var p(1 - p) / n), so with a = e - r, b = c - r and
    s = a / b, var s = (var e + s^2 var c + (1 - s)^2 var r) / b^2. None when b <= 0 (the
    clairvoyant no better than random: no scale to measure on) or a share has no trials."""
    if min(expert[1], random[1], clairvoyant[1]) <= 0:
        return None
    (e, ve), (r, vr), (c, vc) = ((k / n, (k / n) * (1 - k / n) / n)
                                 for k, n in (expert, random, clairvoyant))
    b = c - r
    if b <= 0:
        return None
    s = (e - r) / b
    se = math.sqrt(ve + s * s * vc + (1 - s) ** 2 * vr) / b
    return Estimate(s, s - stats.Z95 * se, s + stats.Z95 * se,
                    expert[1] + random[1] + clairvoyant[1], RELATIVE_METHOD, se=se)


# Per cell of the runs: the rounds and games with a winner and those seat 0 (the rung) won.
_COUNTS = f"""
WITH cs AS (SELECT cell, variant, players FROM cells WHERE run_id = $run),
r AS (SELECT cell, count(*) AS rounds, count(*) FILTER (WHERE winner_seat = 0) AS wins
      FROM {BY_CELL['rounds']} WHERE cell IN (SELECT cell FROM cs) AND ended_by = 'win'
      GROUP BY ALL),
g AS (SELECT cell, count(*) AS games, count(*) FILTER (WHERE winner_seat = 0) AS wins
      FROM {BY_CELL['games']} WHERE cell IN (SELECT cell FROM cs) AND winner_seat IS NOT NULL
      GROUP BY ALL)
SELECT cs.variant, cs.players, coalesce(r.wins, 0), coalesce(r.rounds, 0),
       coalesce(g.wins, 0), coalesce(g.games, 0)
FROM cs LEFT JOIN r USING (cell) LEFT JOIN g USING (cell)
"""


def ladder_runs(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]
                ) -> dict[str, tuple[list[str], list[str]]]:
    """Run -> (its variants, its rungs) for the runs of ``run_ids`` with a ``skill:`` section."""
    out = {}
    for run_id, text in con.execute(
            "SELECT run_id, scenario_json FROM runs WHERE list_contains($runs, run_id) "
            "AND (scenario_json->>'skill') IS NOT NULL ORDER BY started_at",
            {"runs": list(run_ids)}).fetchall():
        resolved = json.loads(text)
        out[run_id] = ([v["name"] for v in resolved["variants"]],
                       rung_names(resolved["skill"]))
    return out


def load_ladders(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> list[CellLadder]:
    """Every variant x player count of the ladder runs among ``run_ids`` that played a game,
    in the file's order of variants, then players."""
    out = []
    for run_id, (variants, rungs) in ladder_runs(con, run_ids).items():
        counts = {(v, int(p)): tuple(int(x) for x in rest) for v, p, *rest in
                  con.execute(_COUNTS, {"run": run_id}).fetchall()}
        players = sorted({p for _, p in counts})
        for variant in variants:
            for n in players:
                found = [(rung, counts.get((cell_name(variant, rung), n))) for rung in rungs]
                cell = tuple(Rung(rung, *c) for rung, c in found if c is not None and c[3] > 0)
                if cell:
                    out.append(CellLadder(run_id, variant, n, cell))
    return out


# --- the table ``unostats skill`` prints, and its rows -----------------------------------------

LADDER_COLUMNS = ("run_id", "variant", "players", "rung", "round_wins", "rounds", "round_share",
                  "round_share_lo", "round_share_hi", "game_wins", "games", "game_share",
                  "game_share_lo", "game_share_hi", "method")
RELATIVE_COLUMNS = ("run_id", "variant", "players", "level", "relative_skill", "lo", "hi",
                    "clairvoyant_minus_random", "method")


def ladder_rows(cells: Sequence[CellLadder]) -> list[dict[str, Any]]:
    rows = []
    for c in cells:
        for r in c.rungs:
            rs, gs = r.round_share, r.game_share
            rows.append({"run_id": c.run_id, "variant": c.variant, "players": c.players,
                         "rung": r.name, "round_wins": r.round_wins, "rounds": r.rounds,
                         "round_share": rs.value, "round_share_lo": rs.lo,
                         "round_share_hi": rs.hi, "game_wins": r.game_wins, "games": r.games,
                         "game_share": gs.value, "game_share_lo": gs.lo, "game_share_hi": gs.hi,
                         "method": "Wilson 95%, the rung's one seat"})
    return rows


def relative_rows(cells: Sequence[CellLadder]) -> list[dict[str, Any]]:
    rows = []
    for c in cells:
        for level in ("rounds", "games"):
            floor, ceiling = c.rung(FLOOR), c.rung(CEILING)
            if floor is None or ceiling is None or c.rung(SKILLED) is None:
                continue
            share = "round_share" if level == "rounds" else "game_share"
            gap = getattr(ceiling, share).value - getattr(floor, share).value
            e = c.relative(level)
            rows.append({"run_id": c.run_id, "variant": c.variant, "players": c.players,
                         "level": level, "relative_skill": None if e is None else e.value,
                         "lo": None if e is None else e.lo, "hi": None if e is None else e.hi,
                         "clairvoyant_minus_random": gap, "method": RELATIVE_METHOD})
    return rows


def tuned_note(cells: Sequence[CellLadder]) -> str:
    """Which rungs are policies written as data (a tuned policy), or "not tuned"."""
    tuned = [n for n in dict.fromkeys(r.name for c in cells for r in c.rungs)
             if n not in rules.POLICIES and n not in SEARCH_RUNGS]
    return (f"Tuned policy: {', '.join(tuned)} (written as data)" if tuned else
            "Tuned policy: not tuned (the ladder names no policy written as data)")


def _pct(key: str):
    def cell(row):
        return format_interval(*(100 * row[k] for k in (key, f"{key}_lo", f"{key}_hi")))
    return cell


LADDER_TABLE = (
    Column("run", 5, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("players", 0, lambda r: r["players"]),
    Column("rung", 0, lambda r: r["rung"]),
    Column("round wins (%) [95% CI]", 1, _pct("round_share")),
    Column("rounds", 3, lambda r: r["rounds"]),
    Column("game wins (%) [95% CI]", 0, _pct("game_share")),
    Column("games", 2, lambda r: r["games"]),
)
RELATIVE_TABLE = (
    Column("run", 3, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("players", 0, lambda r: r["players"]),
    Column("on", 0, lambda r: r["level"]),
    Column("relative skill [95% CI]", 0, lambda r: "-" if r["relative_skill"] is None
           else format_interval(r["relative_skill"], r["lo"], r["hi"])),
    Column("clairvoyant - random (pp)", 1,
           lambda r: f"{100 * r['clairvoyant_minus_random']:+.1f}"),
)


def format_ladder(cells: Sequence[CellLadder], fmt: str = "table",
                  width: int | None = None) -> str:
    """The ladder table then the relative skill (shares in percent); csv and json give the
    ladder's rows with the relative skill of their cell (fractions)."""
    ladder, relative = ladder_rows(cells), relative_rows(cells)
    if fmt != "table":
        by_cell = {(r["run_id"], r["variant"], r["players"], r["level"]): r for r in relative}
        columns = (*LADDER_COLUMNS, "relative_skill_rounds", "relative_skill_rounds_lo",
                   "relative_skill_rounds_hi", "relative_skill_games", "relative_skill_games_lo",
                   "relative_skill_games_hi")
        rows = []
        for row in ladder:
            extra = []
            for level in ("rounds", "games"):
                rel = by_cell.get((row["run_id"], row["variant"], row["players"], level), {})
                extra += [rel.get("relative_skill"), rel.get("lo"), rel.get("hi")]
            rows.append([*(row[c] for c in LADDER_COLUMNS), *extra])
        return format_rows(columns, rows, fmt)
    text = ("The skill ladder: one seat of each rung among the table's seats (95% Wilson):\n"
            + format_table(LADDER_TABLE, ladder, width))
    if relative:
        text += ("\n\nRelative skill (expert - random) / (clairvoyant - random): 0 plays like "
                 "random, 1 like the clairvoyant\n" + format_table(RELATIVE_TABLE, relative, width)
                 + f"\nmethod: {RELATIVE_METHOD}; '-' where the clairvoyant wins no more than "
                   "random")
    text += "\n" + tuned_note(cells)
    return text


def skill_text(*, db: str | os.PathLike | None, run_ref: str | None, fmt: str = "table",
               width: int | None = None) -> str:
    """What ``unostats skill`` prints: the ladder of run ``run_ref`` (an id, a prefix, or
    None/'latest': the latest run with a ladder)."""
    con = store.open_store(locate(db), read_only=True)
    try:
        if run_ref in (None, "latest"):
            found = list(ladder_runs(con, [r for r, in con.execute(
                "SELECT run_id FROM runs").fetchall()]))
            if not found:
                raise UnknownRunError("no run in this database has a skill ladder: run a "
                                      "scenario with a skill: section (e.g. how-it-plays)")
            run_id = found[-1]
        else:
            run_id = store.resolve_run_id(con, run_ref)
        cells = load_ladders(con, [run_id])
    finally:
        con.close()
    if not cells:
        raise UnknownRunError(f"run {run_id} has no skill ladder with a game played (its "
                              "scenario has no skill: section, or no game finished)")
    return format_ladder(cells, fmt, width)


# --- the report: a chart and the template's view -----------------------------------------------

_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
            "#000000")
_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star")


def _label(cell: CellLadder, cells: Sequence[CellLadder]) -> str:
    runs = {c.run_id for c in cells}
    return (f"{cell.variant} ({cell.run_id}), {cell.players}p" if len(runs) > 1
            else f"{cell.variant}, {cell.players}p")


def ladder_figure(cells: Sequence[CellLadder]) -> tuple[str, go.Figure, str]:
    """Each rung's game win share as a dot with its 95% bar, one colour per variant, the fair
    share 1/players as a dashed line: a club reads how far each kind of player gets."""
    import plotly.graph_objects as go

    fig = new_figure()
    labels = [_label(c, cells) for c in cells]
    rungs = list(dict.fromkeys(r.name for c in cells for r in c.rungs))
    variants = list(dict.fromkeys(c.variant for c in cells))
    players = sorted({c.players for c in cells})
    k = len(cells)
    for i, (cell, label) in enumerate(zip(cells, labels)):
        offset = (i - (k - 1) / 2) * 0.8 / max(k, 1)
        es = [(rungs.index(r.name) + offset, r.game_share, r.games) for r in cell.rungs]
        fig.add_trace(go.Scatter(
            x=[x for x, _, _ in es], y=[100 * e.value for _, e, _ in es], mode="markers",
            name=label, marker={"color": _COLOURS[variants.index(cell.variant) % len(_COLOURS)],
                                "symbol": _SYMBOLS[players.index(cell.players) % len(_SYMBOLS)],
                                "size": 9},
            error_y={"type": "data", "symmetric": False,
                     "array": [100 * (e.hi - e.value) for _, e, _ in es],
                     "arrayminus": [100 * (e.value - e.lo) for _, e, _ in es]},
            customdata=[[r.name, 100 * e.lo, 100 * e.hi, n] for r, (_, e, n)
                        in zip(cell.rungs, es)],
            hovertemplate=("%{customdata[0]}: %{y:.1f}% [%{customdata[1]:.1f}, "
                           "%{customdata[2]:.1f}] of %{customdata[3]:,} games"
                           f"<extra>{label}</extra>")))
    for n in players:
        fig.add_hline(y=100 / n, line_dash="dash", line_color="#888",
                      annotation_text=f"fair share at {n} players", annotation_position="top left")
    fig.update_xaxes(tickvals=list(range(len(rungs))), ticktext=rungs, title_text="one seat of")
    fig.update_yaxes(title_text="games won (%)", ticksuffix="%")
    fig.update_layout(title="How much is skill: one seat against the table")
    caption = ("Each dot the share of games one seat of that kind wins against the other seats "
               "(random), with its 95% Wilson interval; one colour per variant, one marker per "
               "player count. The higher the "
               "expert climbs toward the clairvoyant (who sees every card), the more of the "
               "variant is skill; the dashed line is the share of a seat like the others.")
    return "fig-ladder", fig, caption


def view(cells: Sequence[CellLadder]) -> dict[str, Any]:
    """The ladder for a template: a row per rung, a column per variant and player count; the
    relative skill per cell on rounds and on games."""
    labels = [_label(c, cells) for c in cells]
    rungs = list(dict.fromkeys(r.name for c in cells for r in c.rungs))
    rows = []
    for name in rungs:
        found = [c.rung(name) for c in cells]
        rows.append({"rung": name, "cells": [
            None if r is None else {"games": fmt_estimate(r.game_share, "rate"),
                                    "rounds": fmt_estimate(r.round_share, "rate")}
            for r in found]})
    relative = []
    for level in ("rounds", "games"):
        es = [c.relative(level) for c in cells]
        if any(e is not None for e in es):
            relative.append({"level": level, "cells": [None if e is None else fmt_estimate(e)
                                                       for e in es]})
    return {"labels": labels, "rows": rows, "relative": relative, "method": RELATIVE_METHOD,
            "tuned": tuned_note(cells)}
