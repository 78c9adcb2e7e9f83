"""How a variant plays: the game-design measures of each cell (lead changes, comebacks, drama,
decisiveness, balance; hand leader changes, the winner's deficit, decisions, UNO stops), each an
``Estimate`` with its 95% interval, read from the store (``store.how_it_plays_sql``, the view
``how_it_plays``); the summary's block and the report's section "How it plays", which puts the
variants side by side on every measure and, for a run with a skill ladder (games/ladder.py), on
how much of each is skill. docs/guide/how-it-plays.md defines each measure and the source it
follows. The per-round measures come from counters a run keeps only when it asks
(``how_it_plays: true``): where a cell's run did not, every reader says "not counted".
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from . import ladder
from .. import store
from ..base import compare
from ..base.format import fmt_estimate
from ..base.plotting import new_figure
from ..output import format_interval, format_rows
from ..stats import Estimate, mean_se_from_sums, wilson_interval
from ..store import how_it_plays_sql


@dataclass(frozen=True)
class Measure:
    key: str  # the column of ``how_it_plays`` (its bounds: key_lo, key_hi)
    title: str  # what a club calls it
    level: str  # "game" or "round": what n counts
    kind: str  # "rate" (a share, shown in %) or "mean"
    method: str  # how its interval is computed
    higher: str  # what a higher value means, for the chart's caption


_MEAN = "normal interval of the mean, ± 1.96 SE"
_RATIO = "ratio of sums over rounds, ± 1.96 SE (rounds as units)"
MEASURES = (
    Measure("lead_changes", "lead changes per game", "game", "mean", _MEAN,
            "the lead in points passes more often"),
    Measure("comeback_share", "comebacks (winner once last)", "game", "rate", "Wilson",
            "more games are won from last place"),
    Measure("drama_share", "drama (winner's worst deficit, share of target)", "game", "rate",
            _MEAN, "winners came from further behind"),
    Measure("decisiveness", "decisiveness (share of rounds after the winner led for good)",
            "game", "rate", _MEAN, "games are settled earlier"),
    Measure("balance", "balance (1 - largest gap in win rate by position)", "game", "rate",
            "normal interval of the gap between the extreme positions", "seats are fairer"),
    Measure("hand_leader_changes", "hand leader changes per round", "round", "mean", _MEAN,
            "the race to empty a hand swings more"),
    Measure("winner_largest_deficit", "round winner's largest card deficit", "round", "mean",
            _MEAN, "round winners came from further behind"),
    Measure("decision_share", "decisions (turns with a choice of card)", "round", "rate",
            _RATIO, "players choose more often"),
    Measure("legal_cards_per_decision", "distinct legal cards per decision", "round", "mean",
            _RATIO, "choices are wider"),
    Measure("uno_stops", "UNO stops per round", "round", "mean", _MEAN,
            "seats on one card are stopped more"),
    Measure("uno_stops_still_won_share", "stopped seats that still won the round", "round",
            "rate", _RATIO, "a stop is less often decisive"),
)


@dataclass(frozen=True)
class CellPlays:
    run_id: str
    variant: str
    players: int
    estimates: dict[str, Estimate]  # by Measure.key
    kept: str = "rows"  # what its run kept (``store.keep``): less than rows, read from sums
    # Did its run count how each round plays (the round measures' counters)? False: they are
    # null in its rows, and the round measures are "not counted".
    counted: bool = True


NOT_COUNTED = "not counted"
# Why, in a line under a summary's block or in the report's section.
NOT_COUNTED_WHY = ("not counted: the run did not count how each round plays (its rows' "
                   "counters are null); a scenario asks with how_it_plays: true (or --set "
                   "how_it_plays=true), the engine then about a fifth slower")


@dataclass(frozen=True)
class PlaysSection:
    cells: tuple[CellPlays, ...]
    ladders: tuple[ladder.CellLadder, ...] = ()  # the skill ladders of the runs, if any
    left_out: int = 0  # cells past TABLE_CELLS, not shown (the how_it_plays view has them)


# The most cells the section shows (a column of its tables and a dot of each panel each): a
# sweep of thousands of cells would make a page no one reads.
TABLE_CELLS = 100


_N = {"comeback_share": "n_won_games", "drama_share": "n_won_games",
      "decisiveness": "n_won_games", "balance": "n_won_games", "lead_changes": "n_games"}


def load_plays(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> list[CellPlays]:
    """Every cell of ``run_ids`` with its measures: from the rows (the cells' rows filtered
    before the window functions, so a file of many runs stays fast), or for a run that kept
    games or summary from its sums (``from_sums``)."""
    kept = store.sums.keeps(con, run_ids)
    less = [r for r in run_ids if kept.get(r, "rows") != "rows"]
    rows = [r for r in run_ids if r not in less]
    return (_from_view(con, rows) if rows else []) + (from_sums(con, less) if less else [])


# What a run that kept less than rows cannot show, and the sums the others come from.
NOT_KEPT = {"balance": "balance needs --keep rows (each game winner's first position)"}
_MEAN_SUMS = {"lead_changes": ("games", "lead_changes"),
              "drama_share": ("won_game", "drama_share"),
              "decisiveness": ("won_game", "decisiveness")}
_ROUND_MEANS = {"hand_leader_changes": ("rounds", "hand_leader_changes",
                                        "hand_leader_changes_sq"),
                "winner_largest_deficit": ("won", "winner_deficit", "winner_deficit_sq")}
_RATIOS = {"decision_share": "decision_share",
           "legal_cards_per_decision": "legal_cards_per_decision",
           "uno_stops": "uno_stops_per_round",
           "uno_stops_still_won_share": "uno_stops_still_won_share"}


def from_sums(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> list[CellPlays]:
    """The measures of the cells of ``run_ids`` from their sums (``store.sums``), whatever the
    runs kept: the same means and shares as the rows give; the per-round ratios (and UNO stops
    per round) by the ratio of sums over games, games as units; no balance."""
    names = {"comeback", *compare.COMPARE_SUMS, *(n for a in _MEAN_SUMS.values() for n in a),
             *(f"{a[1]}__2" for a in _MEAN_SUMS.values()),
             *(n for a in _ROUND_MEANS.values() for n in a)}
    kept = store.sums.keeps(con, run_ids)
    found = store.sums.cell_sums(con, "list_contains($runs, c.run_id)",
                                 {"runs": list(run_ids)}, sorted(names))
    out = []
    for (run, variant, players), s in found.items():
        estimates = {}
        for key, (n, total) in _MEAN_SUMS.items():
            if s[n] and s[total] is not None:
                estimates[key] = _named(mean_se_from_sums(int(s[n]), s[total], s[f"{total}__2"]),
                                        key)
        if s["won_game"]:
            estimates["comeback_share"] = _named(
                wilson_interval(int(s["comeback"] or 0), int(s["won_game"])), "comeback_share")
        for key, (n, total, squares) in _ROUND_MEANS.items():
            if s[n] and s[total] is not None:
                estimates[key] = _named(mean_se_from_sums(int(s[n]), s[total], s[squares]), key)
        for key, stat in _RATIOS.items():
            if (e := compare.ratio_estimate(s, stat)) is not None:
                estimates[key] = e
        counted = not (s["rounds"] and s["hand_leader_changes"] is None)  # a sum of NULLs
        out.append(CellPlays(run, variant, players, estimates, kept[run], counted))
    return out


def _named(e: Estimate, key: str) -> Estimate:
    """``e`` with its measure's method (and no interval where it is undefined)."""
    method = next(m.method for m in MEASURES if m.key == key)
    return Estimate(e.value, e.lo, e.hi, e.n, method, se=e.se)


def _from_view(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> list[CellPlays]:
    cur = con.execute(how_it_plays_sql(
        "cell IN (SELECT cell FROM cells WHERE list_contains($runs, run_id))"),
        {"runs": list(run_ids)})
    names = [d[0] for d in cur.description]
    out = []
    for values in cur.fetchall():
        row = dict(zip(names, values))
        estimates = {}
        for m in MEASURES:
            value, lo, hi = row[m.key], row[f"{m.key}_lo"], row[f"{m.key}_hi"]
            if value is None or lo is None or hi is None:
                continue  # no game (round) it is defined on, or a single one
            n = row[_N.get(m.key, "n_rounds")]
            estimates[m.key] = Estimate(float(value), float(lo), float(hi),
                                        None if n is None else int(n), m.method)
        # the mean of a counter over the cell's rounds is null only when none was counted
        counted = not (row["n_rounds"] and row["hand_leader_changes"] is None)
        out.append(CellPlays(row["run_id"], row["variant"], int(row["players"]), estimates,
                             counted=counted))
    return out


def load_section(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> PlaysSection | None:
    """The report's section: the cells of plain-games runs (not a tournament's or a league's,
    whose seats change from game to game) that have played a game."""
    plain = [r for r, in con.execute(
        "SELECT run_id FROM runs WHERE list_contains($runs, run_id) "
        "AND (scenario_json->>'tournament') IS NULL AND (scenario_json->>'league') IS NULL",
        {"runs": list(run_ids)}).fetchall()]
    cells = [c for c in load_plays(con, plain) if c.estimates] if plain else []
    # a ladder run's measures are those of its first rung's cells (the table as it plays
    # without the rung's seat, random in the default ladder): the variants side by side
    firsts = {run: {ladder.cell_name(v, rungs[0]) for v in variants}
              for run, (variants, rungs) in ladder.ladder_runs(con, plain).items()}
    cells = [c for c in cells if c.run_id not in firsts or c.variant in firsts[c.run_id]]
    ladders = tuple(ladder.load_ladders(con, plain)) if firsts else ()
    shown = tuple(cells[:TABLE_CELLS])
    return (PlaysSection(shown, ladders, len(cells) - len(shown)) if cells or ladders
            else None)


def _label(cell: CellPlays, cells: Sequence[CellPlays]) -> str:
    runs = {c.run_id for c in cells}
    return (f"{cell.variant} ({cell.run_id}), {cell.players}p" if len(runs) > 1
            else f"{cell.variant}, {cell.players}p")


def kept_note(cells: Sequence[CellPlays]) -> str | None:
    """What the cells of runs that kept less than rows cannot show, and how theirs differ."""
    less = sorted({f"{c.run_id} ({c.kept})" for c in cells if c.kept != "rows"})
    if not less:
        return None
    return (f"Runs {', '.join(less)} kept less than rows: {NOT_KEPT['balance']}; their "
            f"decisions, cards/decision and UNO stops are a {compare.RATIO_METHOD}.")


def block(cells: Sequence[CellPlays], width: int | None = None) -> str:
    """The summary's "how it plays" block: two tables (per game, per round), a row per cell,
    every measure as 'value [lo, hi]' ("not counted" for a round measure its run did not
    count, said why under the table); under them what runs that kept less cannot show."""
    parts = []
    for level, head in (("game", "How it plays, per game (95% CI)"),
                        ("round", "How it plays, per round (95% CI)")):
        measures = [m for m in MEASURES if m.level == level]
        rows = [[c.run_id, c.variant, c.players,
                 *(_cell_text(c.estimates.get(m.key), m) if c.counted or level == "game"
                   else NOT_COUNTED for m in measures)] for c in cells]
        columns = ("run", "variant", "players", *(_short(m) for m in measures))
        # on a narrow terminal the run goes first, then the measures from the last
        rank = [len(measures) + 1, 0, 0, *range(1, len(measures) + 1)]
        parts.append(f"{head}:\n"
                     f"{format_rows(columns, rows, 'table', width=width, rank=rank, wrap=[False, True, *[False] * (len(columns) - 2)])}")
        if level == "round" and not all(c.counted for c in cells):
            why = f"{NOT_COUNTED_WHY}."
            parts[-1] += "\n" + (textwrap.fill(why, width) if width else why)
    note = kept_note(cells)
    return "\n\n".join(parts) + (f"\n{note}" if note else "")


_SHORT = {"lead_changes": "lead changes", "comeback_share": "comebacks",
          "drama_share": "drama/target", "decisiveness": "decisiveness", "balance": "balance",
          "hand_leader_changes": "hand leader chg", "winner_largest_deficit": "winner deficit",
          "decision_share": "decisions/turn", "legal_cards_per_decision": "cards/decision",
          "uno_stops": "UNO stops", "uno_stops_still_won_share": "stopped, still won"}


def _short(m: Measure) -> str:
    return _SHORT[m.key] + (" (%)" if m.kind == "rate" else "")


def _cell_text(e: Estimate | None, m: Measure) -> str:
    """'value [lo, hi]', a share in percent (csv and the views keep fractions)."""
    if e is None:
        return "-"
    scale = 100.0 if m.kind == "rate" else 1.0
    return format_interval(*(None if x is None else scale * x for x in (e.value, e.lo, e.hi)))


_AXIS = {"lead_changes": "changes (per game)", "comeback_share": "games won (%)",
         "drama_share": "deficit (% of the target)", "decisiveness": "rounds (% of the game)",
         "balance": "balance (%)", "hand_leader_changes": "changes (per round)",
         "winner_largest_deficit": "cards (per won round)", "decision_share": "turns (%)",
         "legal_cards_per_decision": "cards (per decision)", "uno_stops": "stops (per round)",
         "uno_stops_still_won_share": "stops (%)"}
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
            "#000000")


def plays_figures(section: PlaysSection) -> list[tuple[str, go.Figure, str]]:
    """One small chart per measure, the variants side by side as dots with their 95% bars:
    a club reads each panel as "which rules make this higher"; then a ladder's chart."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    cells = section.cells
    ladder_figures = [ladder.ladder_figure(section.ladders)] if section.ladders else []
    if not cells:
        return ladder_figures
    labels = [_label(c, cells) for c in cells]
    cols = 2
    rows = (len(MEASURES) + cols - 1) // cols
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[m.title for m in MEASURES],
                        horizontal_spacing=0.25, vertical_spacing=0.7 / rows)
    base = new_figure()
    fig.update_layout(base.layout)
    for i, m in enumerate(MEASURES):
        scale = 100 if m.kind == "rate" else 1
        es = [c.estimates.get(m.key) for c in cells]
        shown = [(lab, e) for lab, e in zip(labels, es) if e is not None]
        fig.add_trace(go.Scatter(
            x=[scale * e.value for _, e in shown], y=[lab for lab, _ in shown], mode="markers",
            marker={"color": [_COLOURS[labels.index(lab) % len(_COLOURS)] for lab, _ in shown],
                    "size": 9},
            error_x={"type": "data", "symmetric": False,
                     "array": [scale * (e.hi - e.value) for _, e in shown],
                     "arrayminus": [scale * (e.value - e.lo) for _, e in shown]},
            customdata=[[scale * e.lo, scale * e.hi, e.n or 0] for _, e in shown],
            hovertemplate=(f"{m.title}: %{{x:.3g}}{'%' if scale == 100 else ''} "
                           "[%{customdata[0]:.3g}, %{customdata[1]:.3g}], "
                           "n=%{customdata[2]:,}<extra>%{y}</extra>"),
            showlegend=False), row=i // cols + 1, col=i % cols + 1)
        at = {"row": i // cols + 1, "col": i % cols + 1}
        fig.update_xaxes(title_text=_AXIS[m.key], ticksuffix="%" if scale == 100 else None,
                         **at)
        fig.update_yaxes(title_text="variant (players)" if i % cols == 0 else None, **at)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title="How it plays: the variants side by side",
                      height=max(480, rows * (130 + 26 * len(labels))))
    caption = ("Each panel one measure, each dot a variant with its 95% interval (shares in %). "
               + "; ".join(f"{m.title}: higher means {m.higher}" for m in MEASURES) + "."
               + ("" if all(c.counted for c in cells) else
                  " The per-round panels have no dot for a variant whose run did not count how "
                  "each round plays."))
    return [("fig-plays", fig, caption), *ladder_figures]


def view(section: PlaysSection) -> dict[str, Any]:
    """The section for a template: a table per level, a row per measure, a column per cell."""
    cells = section.cells
    labels = [_label(c, cells) for c in cells]
    tables = []
    for level, title in (("game", "Per game"), ("round", "Per round")):
        rows = []
        for m in MEASURES:
            if m.level != level:
                continue
            rows.append({"measure": m.title, "method": m.method,
                         "cells": [fmt_estimate(c.estimates[m.key], m.kind)
                                   if m.key in c.estimates
                                   else NOT_COUNTED if level == "round" and not c.counted
                                   else None for c in cells]})
        tables.append({"title": title, "rows": rows,
                       "note": (NOT_COUNTED_WHY[0].upper() + NOT_COUNTED_WHY[1:] + "."
                                if level == "round" and not all(c.counted for c in cells)
                                else None)})
    left_out = (f"The section shows the first {len(cells):,} cells of "
                f"{len(cells) + section.left_out:,}; `unostats query \"SELECT * FROM "
                f"how_it_plays\"` gives every one." if section.left_out else None)
    if note := kept_note(cells):
        left_out = f"{left_out} {note}" if left_out else note
    return {"labels": labels, "tables": tables if cells else [], "left_out": left_out,
            "ladder": ladder.view(section.ladders) if section.ladders else None}
