"""The report's sweep section: each key statistic against the swept values, with 95% bands.

A run of a scenario with ``sweep:`` stores each cell's point (``variants.sweep``). Cells of one
run, one file variant and one grid (the same swept keys) form a grid here. A grid of one key
draws each statistic against the key's values, one line per player count with its 95% band; a
grid of two keys draws a heat map per statistic and player count (the value in each square, the
interval on hover); more keys draw lines against the first key, one per player count and value
of the others. The intervals are the summary's (``base.precision.estimate``), every cell's from one scan of the run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from ..base.precision import STATISTICS, TITLES, run_estimates
from ..stats import Estimate
from ..base.format import fmt_estimate
from ..base.plotting import new_subplots

# The most cells a grid's table lists (the charts draw every one): the table is the part of
# the sweep section that grows fastest with the cells.
TABLE_CELLS = 1000
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#882255", "#999933", "#332288")


@dataclass(frozen=True)
class SweepCell:
    variant: str
    players: int
    point: dict[str, Any]  # keys as written, players not included
    estimates: dict[str, Estimate]


@dataclass(frozen=True)
class SweepGrid:
    run_id: str
    base: str  # the file's variant the points are of
    keys: tuple[str, ...]  # swept keys other than players, in the file's order
    values: tuple[tuple[Any, ...], ...]  # each key's values, in order of appearance
    players: tuple[int, ...]
    cells: tuple[SweepCell, ...]

    def title(self) -> str:
        return " × ".join(self.keys) or "players"


@dataclass(frozen=True)
class SweepSection:
    grids: tuple[SweepGrid, ...]


def load_sweeps(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> SweepSection | None:
    grids = []
    for run_id in run_ids:
        rows = con.execute("SELECT variant, players, sweep, rowid FROM variants WHERE run_id = ? "
                           "AND sweep IS NOT NULL ORDER BY rowid", [run_id]).fetchall()
        if not rows:
            continue
        by_grid: dict[tuple, list] = {}
        for variant, players, sweep, _ in rows:
            point = {k: v for k, v in json.loads(sweep).items() if k != "players"}
            shown = " ".join(f"{k.split('.')[-1]}=" for k in point)
            base = _base_name(variant, point)
            by_grid.setdefault((base, tuple(point), shown), []).append(
                (variant, int(players), point))
        estimates = run_estimates(con, run_id, STATISTICS)
        for (base, keys, _), members in by_grid.items():
            cells = tuple(SweepCell(v, n, p, estimates[v, n]) for v, n, p in members)
            values = tuple(tuple(dict.fromkeys(_hashable(c.point[k]) for c in cells))
                           for k in keys)
            grids.append(SweepGrid(run_id, base, keys, values,
                                   tuple(sorted({c.players for c in cells})), cells))
    return SweepSection(tuple(grids)) if grids else None


def _base_name(variant: str, point: dict[str, Any]) -> str:
    """The file's variant a point's variant is named after (``base uno_penalty=2`` -> base)."""
    cut = len(variant)
    for key in point:
        for short in (key.split(".")[-1], key):
            at = variant.rfind(f" {short}=")
            if at >= 0:
                cut = min(cut, at)
    return variant[:cut]


def _hashable(v: Any) -> Any:
    return json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else v


def _value(e: Estimate) -> float:
    return e.value if math.isfinite(e.value) else math.nan


# --- Figures -----------------------------------------------------------------------------------

def _lines(grid: SweepGrid, index: int) -> tuple[str, go.Figure, str]:
    import plotly.graph_objects as go

    key = grid.keys[0] if grid.keys else "players"
    fig = new_subplots(rows=2, cols=2, subplot_titles=[TITLES[s] for s in STATISTICS],
                       horizontal_spacing=0.09, vertical_spacing=0.14)
    others = [k for k in grid.keys[1:]]
    series: dict[tuple, list[SweepCell]] = {}
    for c in grid.cells:
        label = (c.players, tuple(_hashable(c.point[k]) for k in others))
        series.setdefault(label, []).append(c)
    for i, ((players, rest), cells) in enumerate(sorted(series.items(), key=lambda kv: kv[0])):
        if key == "players":
            cells = sorted(grid.cells, key=lambda c: c.players)
            name = grid.base
        else:
            name = f"{players} players" + "".join(f", {k.split('.')[-1]}={v}"
                                                  for k, v in zip(others, rest))
        colour = COLOURS[i % len(COLOURS)]
        x = [c.players if key == "players" else c.point[key] for c in cells]
        for j, stat in enumerate(STATISTICS):
            row, col = divmod(j, 2)
            est = [c.estimates[stat] for c in cells]
            fig.add_trace(go.Scatter(
                x=x + x[::-1], y=[e.hi for e in est] + [e.lo for e in est][::-1],
                mode="lines", fill="toself", fillcolor=_alpha(colour), line={"width": 0},
                hoverinfo="skip",
                showlegend=False, legendgroup=name), row=row + 1, col=col + 1)
            fig.add_trace(go.Scatter(
                x=x, y=[_value(e) for e in est], mode="lines+markers", name=name,
                legendgroup=name, showlegend=j == 0, line={"color": colour},
                customdata=[[e.lo, e.hi, e.n] for e in est],
                hovertemplate=f"{key}=%{{x}}<br>{TITLES[stat]} %{{y:.4g}} "
                              "[%{customdata[0]:.4g}, %{customdata[1]:.4g}]<br>"
                              "n=%{customdata[2]:,}<extra>" + name + "</extra>"),
                row=row + 1, col=col + 1)
        if key == "players":
            break
    for j in range(4):
        fig.update_xaxes(title_text=key, row=j // 2 + 1, col=j % 2 + 1)
    fig.update_layout(title=f"{grid.base}: statistics against {key}", height=720,
                      legend={"orientation": "h", "y": -0.12},
                      margin={"t": 80})
    caption = (f"Each statistic of {grid.base} against {key}, one line per player count, "
               "with its 95% band (means ± 1.96 SE; the first player's share with a Wilson "
               "interval).")
    return f"fig-sweep-{index}", fig, caption


def _heatmaps(grid: SweepGrid, index: int, stat: str) -> tuple[str, go.Figure, str]:
    import plotly.graph_objects as go

    kx, ky = grid.keys[0], grid.keys[1]
    xs, ys = grid.values[0], grid.values[1]
    fig = new_subplots(rows=1, cols=len(grid.players),
                       subplot_titles=[f"{n} players" for n in grid.players],
                       horizontal_spacing=0.06)
    for col, n in enumerate(grid.players, start=1):
        z = [[math.nan] * len(xs) for _ in ys]
        text = [[""] * len(xs) for _ in ys]
        for c in grid.cells:
            if c.players != n:
                continue
            e = c.estimates[stat]
            i, j = ys.index(_hashable(c.point[ky])), xs.index(_hashable(c.point[kx]))
            z[i][j] = _value(e)
            text[i][j] = f"{e.value:.4g} [{e.lo:.4g}, {e.hi:.4g}]<br>n={e.n:,}"
        fig.add_trace(go.Heatmap(
            x=[str(x) for x in xs], y=[str(y) for y in ys], z=z, text=text,
            texttemplate="%{z:.3g}", colorscale="Viridis", showscale=False,
            hovertemplate=f"{kx}=%{{x}}<br>{ky}=%{{y}}<br>%{{text}}<extra></extra>"),
            row=1, col=col)
        fig.update_xaxes(title_text=kx.split(".")[-1], type="category", row=1, col=col)
        fig.update_yaxes(title_text=ky.split(".")[-1] if col == 1 else None, type="category",
                         row=1, col=col)
    fig.update_layout(title=f"{grid.base}: {TITLES[stat]} by {kx} and {ky}", height=380,
                      margin={"t": 80})
    caption = (f"{TITLES[stat].capitalize()} at each point of {kx} × {ky}, a map per player "
               "count, its colours scaled to its own range (the value is in each square); "
               "hover a square for its 95% interval and sample size.")
    return f"fig-sweep-{index}-{stat}", fig, caption


def _alpha(hex_colour: str, a: float = 0.18) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{a})"


def sweep_figures(section: SweepSection) -> list[tuple[str, go.Figure, str]]:
    out = []
    for i, grid in enumerate(section.grids):
        if len(grid.keys) == 2:
            out += [_heatmaps(grid, i, stat) for stat in STATISTICS]
        else:
            out.append(_lines(grid, i))
    return out


def view(section: SweepSection) -> dict[str, Any]:
    """The sweep section for the template: per grid its figures' ids and a table of cells."""
    grids = []
    for i, grid in enumerate(section.grids):
        ids = ([f"fig-sweep-{i}-{s}" for s in STATISTICS] if len(grid.keys) == 2
               else [f"fig-sweep-{i}"])
        rows = [{"variant": c.variant, "players": c.players,
                 "stats": [fmt_estimate(c.estimates[s], "rate" if s == "first_player_share"
                                        else "mean") for s in STATISTICS]}
                for c in grid.cells[:TABLE_CELLS]]
        grids.append({"title": grid.title(), "base": grid.base, "run": grid.run_id,
                      "figures": ids, "rows": rows, "cells": len(grid.cells),
                      "players": ", ".join(map(str, grid.players))})
    return {"grids": grids, "titles": [TITLES[s] for s in STATISTICS]}
