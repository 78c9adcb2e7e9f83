"""The report's sweep section: each key statistic against the swept values, with 95% bands.

A run of a scenario with ``sweep:`` stores each cell's point (``variants.sweep``). Cells of one
run, one file variant and one grid (the same swept keys) form a grid here. The grids of one run
over one key (one a file variant) are drawn together: a chart per statistic against the key's
values, a line per variant and player count with its 95% band, integer keys ticked at their
values, the first player's share with its fair 1/players; a grid of two keys draws a heat map
per statistic and player count (the value in each square, the interval on hover); more keys
draw lines against the first key, one per player count and value of the others. The intervals
are the summary's (``base.precision.estimate``), every cell's from one scan of the run. The
section answers where a round is shortest and longest and where the first player gains most.
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
from .. import stats
from ..stats import Estimate
from ..base.format import esc, fmt_estimate, fmt_said
from ..base.plotting import new_figure, new_subplots

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
        # a design's candidates store their settings as points too: its own section shows them
        rows = con.execute("SELECT variant, players, sweep, rowid FROM variants WHERE run_id = ? "
                           "AND sweep IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs WHERE "
                           "runs.run_id = variants.run_id AND (scenario_json->>'design') IS NOT "
                           "NULL) ORDER BY rowid", [run_id]).fetchall()
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

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
FAIR_COLOUR = "#6b6b6b"


def _groups(section: SweepSection) -> list[tuple[int, list[SweepGrid]]]:
    """The grids drawn together, each group with the index of its first grid (its charts' id):
    the grids of one run over the same keys (one a file variant) overlay on one chart per
    statistic; a two-key grid is a group of its own (a heat map per statistic)."""
    groups: dict[tuple, tuple[int, list[SweepGrid]]] = {}
    for i, grid in enumerate(section.grids):
        key = (i,) if len(grid.keys) == 2 else (grid.run_id, grid.keys)
        groups.setdefault(key, (i, []))[1].append(grid)
    return list(groups.values())


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(key: str) -> str:
    return key.split(".")[-1]


def _lines(grids: Sequence[SweepGrid], index: int, stat: str) -> tuple[str, go.Figure, str]:
    """One statistic against the first swept key (or the player count): a line with its 95%
    band per variant and player count (and value of any further key), every variant of the
    group on the one chart; the fair share where the statistic has one."""
    import plotly.graph_objects as go

    first = grids[0]
    key = first.keys[0] if first.keys else "players"
    others = list(first.keys[1:])
    bases = [g.base for g in grids]
    share = stat == "first_player_share"
    fig = new_figure()
    players = sorted({c.players for g in grids for c in g.cells})

    def label(c: SweepCell) -> tuple:
        return (0 if key == "players" else c.players,
                tuple(_hashable(c.point[k]) for k in others))

    # one colour per player count (and value of the further keys), the same for every variant,
    # one dash per variant; against the player count, one colour per variant
    labels = sorted({label(c) for g in grids for c in g.cells})
    xs_all: set = set()
    for b, grid in enumerate(grids):
        series: dict[tuple, list[SweepCell]] = {}
        for c in grid.cells:
            series.setdefault(label(c), []).append(c)
        for (n, rest), cells in sorted(series.items(), key=lambda kv: kv[0]):
            if key == "players":
                cells = sorted(cells, key=lambda c: c.players)
                colour, dash = COLOURS[b % len(COLOURS)], "solid"
                name = esc(grid.base)
            else:
                colour = COLOURS[labels.index((n, rest)) % len(COLOURS)]
                dash = DASHES[b % len(DASHES)]
                name = esc((f"{grid.base}, " if len(grids) > 1 else "") + f"{n} players" +
                           "".join(f", {_short(k)}={v}" for k, v in zip(others, rest)))
            x = [c.players if key == "players" else c.point[key] for c in cells]
            xs_all.update(x)
            est = [c.estimates[stat] for c in cells]
            fig.add_trace(go.Scatter(
                x=x + x[::-1], y=[e.hi for e in est] + [e.lo for e in est][::-1],
                mode="lines", fill="toself", fillcolor=_alpha(colour), line={"width": 0},
                hoverinfo="skip", showlegend=False, legendgroup=name))
            shown = "%{y:.2%}" if share else "%{y:.4g}"
            bounds = ("[%{customdata[0]:.2%}, %{customdata[1]:.2%}]" if share
                      else "[%{customdata[0]:.4g}, %{customdata[1]:.4g}]")
            fig.add_trace(go.Scatter(
                x=x, y=[_value(e) for e in est], mode="lines+markers", name=name,
                legendgroup=name, line={"color": colour, "dash": dash},
                customdata=[[e.lo, e.hi, e.n] for e in est],
                hovertemplate=f"{_short(key)}=%{{x}}<br>{TITLES[stat]} {shown} {bounds}<br>"
                              "n=%{customdata[2]:,}<extra>" + name + "</extra>"))
    caption = (f"{TITLES[stat].capitalize()} against {key}, "
               + ("one line per variant" if key == "players" else
                  "one colour per player count" + (", one dash per variant" if len(grids) > 1
                                                   else ""))
               + ", with its 95% band ("
               + ("Wilson intervals" if share else "means ± 1.96 SE") + ").")
    if share:
        _fair_lines(fig, key, players, sorted(xs_all, key=_sort_key))
        caption += " Dotted grey: the fair share 1/players, what position 0 would win if " \
                   "the order did not matter."
    xaxis: dict[str, Any] = {"title": {"text": _short(key)}}
    values = sorted(xs_all, key=_sort_key)
    if values and all(_is_int(v) for v in values):
        xaxis |= ({"tickmode": "array", "tickvals": values} if len(values) <= 16
                  else {"tickformat": ",d"})
    fig.update_layout(
        title={"text": f"{TITLES[stat].capitalize()}<br><span style=\"font-size: 13px\">"
                       f"against {_short(key)}, {esc(', '.join(bases))}</span>",
               "x": 0, "xanchor": "left", "xref": "container", "pad": {"l": 12}},
        xaxis=xaxis, yaxis={"title": {"text": TITLES[stat]},
                            **({"tickformat": ".0%"} if share else {})},
        height=460, legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
        margin={"t": 76, "l": 64, "r": 20, "b": 70})
    return f"fig-sweep-{index}-{stat}", fig, caption


def _fair_lines(fig: go.Figure, key: str, players: Sequence[int], xs: Sequence[Any]) -> None:
    """The fair share 1/players: a curve against the player count, else a level per count."""
    import plotly.graph_objects as go

    style = {"color": FAIR_COLOUR, "dash": "dot", "width": 1.5}
    if key == "players":
        fig.add_trace(go.Scatter(x=list(xs), y=[1 / n for n in xs], mode="lines", line=style,
                                 name="fair share 1/players", hovertemplate=(
                                     "fair share at %{x} players: %{y:.2%}<extra></extra>")))
        return
    for i, n in enumerate(players):
        fig.add_trace(go.Scatter(
            x=[xs[0], xs[-1]], y=[1 / n, 1 / n], mode="lines", line=style,
            name="fair share 1/players", legendgroup="fair", showlegend=i == 0,
            hovertemplate=f"fair share at {n} players: {100 / n:.2f}%<extra></extra>"))


def _sort_key(v: Any) -> tuple:
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0,
                                                                                       str(v))


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
        fig.update_xaxes(title_text=_short(kx), type="category", row=1, col=col)
        fig.update_yaxes(title_text=_short(ky) if col == 1 else None, type="category",
                         row=1, col=col)
    fig.update_layout(title=f"{grid.base}: {TITLES[stat]} by {_short(kx)} and {_short(ky)}",
                      height=380, margin={"t": 80})
    caption = (f"{TITLES[stat].capitalize()} at each point of {kx} × {ky}, a map per player "
               "count, its colours scaled to its own range (the value is in each square); "
               "hover a square for its 95% interval and sample size.")
    return f"fig-sweep-{index}-{stat}", fig, caption


def _alpha(hex_colour: str, a: float = 0.18) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{a})"


def sweep_figures(section: SweepSection) -> list[tuple[str, go.Figure, str]]:
    out = []
    for i, grids in _groups(section):
        if len(grids[0].keys) == 2:
            out += [_heatmaps(grids[0], i, stat) for stat in STATISTICS]
        else:
            out += [_lines(grids, i, stat) for stat in STATISTICS]
    return out


# --- The page's text -----------------------------------------------------------------------------

def _where(c: SweepCell, base: str | None = None) -> str:
    return ", ".join(([base] if base else []) + [f"{_short(k)}={v}" for k, v in c.point.items()]
                     + [f"{c.players} players"])


def _answers(grids: Sequence[SweepGrid]) -> list[str]:
    """A group's answers: the shortest and the longest round over its points, where the first
    player's share is furthest above and below the fair 1/players, and each further variant's
    rounds against the first variant's at the same points."""
    many = len(grids) > 1
    cells = [(g.base if many else None, c) for g in grids for c in g.cells]
    turns = [(b, c) for b, c in cells if math.isfinite(c.estimates["turns_per_round"].value)]
    if not turns:
        return []
    what = " and ".join(g.base for g in grids)
    lo = min(turns, key=lambda bc: bc[1].estimates["turns_per_round"].value)
    hi = max(turns, key=lambda bc: bc[1].estimates["turns_per_round"].value)
    title = " × ".join(_short(k) for k in grids[0].keys) or "players"
    out = [f"Over {what}'s {title} grid ({len(cells):,} points), a round lasts from "
           f"{fmt_said(lo[1].estimates['turns_per_round'], unit='turns')} ({_where(lo[1], lo[0])})"
           f" to {fmt_said(hi[1].estimates['turns_per_round'])} ({_where(hi[1], hi[0])})."]
    share = [(b, c) for b, c in cells if math.isfinite(c.estimates["first_player_share"].value)]
    if share:
        def excess(bc: tuple[str | None, SweepCell]) -> float:
            return bc[1].estimates["first_player_share"].value - 1 / bc[1].players

        up, down = max(share, key=excess), min(share, key=excess)
        e_up, e_down = (bc[1].estimates["first_player_share"] for bc in (up, down))
        out.append(f"The first player wins most over the fair share at {_where(up[1], up[0])}: "
                   f"{fmt_said(e_up, 'rate')} of rounds against a fair "
                   f"{100 / up[1].players:.1f}%; least at {_where(down[1], down[0])}: "
                   f"{fmt_said(e_down, 'rate')} against {100 / down[1].players:.1f}%.")
    for other in grids[1:]:
        out += _against(grids[0], other)
    return out


def _against(first: SweepGrid, other: SweepGrid) -> list[str]:
    """``other``'s rounds minus ``first``'s at the same points: the smallest and the largest
    difference (independent samples: conservative when the two share their deals)."""
    def at(c: SweepCell) -> tuple:
        return (c.players, tuple(_hashable(v) for v in c.point.values()))

    mine = {at(c): c for c in first.cells}
    diffs = []
    for c in other.cells:
        b = mine.get(at(c))
        if b is None:
            continue
        e, f = c.estimates["turns_per_round"], b.estimates["turns_per_round"]
        if e.se is None or f.se is None or not math.isfinite(e.value + f.value):
            continue
        diffs.append((stats.difference_of_means(e.value, e.se, f.value, f.se, n1=e.n, n2=f.n),
                      c))
    if not diffs:
        return []
    small = min(diffs, key=lambda d: d[0].value)
    large = max(diffs, key=lambda d: d[0].value)
    return [f"A round under {other.base} minus one under {first.base} at the same point: from "
            f"{fmt_said(small[0], 'diff_mean', 'turns')} ({_where(small[1])}) to "
            f"{fmt_said(large[0], 'diff_mean')} ({_where(large[1])})."]


def view(section: SweepSection) -> dict[str, Any]:
    """The sweep section for the template: per group of grids drawn together its figures'
    ids, a table of cells and its answers."""
    groups, said = [], []
    for i, grids in _groups(section):
        ids = [f"fig-sweep-{i}-{s}" for s in STATISTICS]
        cells = [c for g in grids for c in g.cells]
        rows = [{"variant": c.variant, "players": c.players,
                 "stats": [fmt_estimate(c.estimates[s], "rate" if s == "first_player_share"
                                        else "mean") for s in STATISTICS]}
                for c in cells[:TABLE_CELLS]]
        groups.append({"title": grids[0].title(), "base": ", ".join(g.base for g in grids),
                       "run": grids[0].run_id, "figures": ids, "rows": rows,
                       "cells": len(cells),
                       "players": ", ".join(map(str, sorted({c.players for c in cells})))})
        said += _answers(grids)
    return {"grids": groups, "titles": [TITLES[s] for s in STATISTICS],
            "answers": [("What does the sweep change?", said)] if said else []}
