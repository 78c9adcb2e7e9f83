"""Report model -> plotly figures. Pure functions of the model: no database, no files.

Conventions, so charts read at a glance:

- one colour per variant (``colours``), the same in every chart; player counts are facets
  ("4 players", "6 players"), never colours;
- every chart has a title, axis titles with units, and hover text with the exact numbers;
- intervals are 95% (error bars), fair shares are dashed grey lines;
- in an ablation scenario the "without" variants are listed in the legends of the charts that
  overlay every variant but drawn only on demand (a legend click), so the base variant and what
  it is compared with stay readable; their effects have their own chart (``ablation_figure``);
- user-provided strings (variant names) are HTML-escaped before plotly sees them, because plotly
  interprets a small subset of HTML in labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from ..stats import Estimate
from ..base.format import esc
from .model import Distribution, Measure, ReportModel
from ..base.plotting import new_subplots, report_template

# Okabe & Ito's colour-blind-safe palette (without its yellow, too pale on white), then dark
# colours far from all of those (Tol's wine, olive and indigo, a brown, a yellow-green, a
# magenta), so a scenario of 13 variants (extreme.yaml) still has 13 distinguishable colours;
# beyond that plotly's Dark24.
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
EXTRA = ("#882255", "#999933", "#332288", "#8C564B", "#7FB800", "#E7298A")
PALETTE = OKABE_ITO + EXTRA + tuple(plotly.colors.qualitative.Dark24)
FAIR_COLOUR = "#6b6b6b"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"
HIST_BINS = 60  # at most this many bins below the clip point (fewer for small samples)
HIST_CLIP = 0.995  # histograms stop at the largest cell's 99.5th percentile
CDF_STEP = 0.0025  # the CDF is drawn through points 0.25% of probability apart
FACET_COLS = 3
FACET_HEIGHT = 330


@dataclass(frozen=True)
class Figure:
    div_id: str  # stable element id of the chart's div
    figure: go.Figure
    caption: str = ""


def colours(labels: Sequence[str]) -> dict[str, str]:
    """One colour per variant label, in report order."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(labels)}


def _slug(key: str) -> str:
    return key.replace("_", "-")


# --- Layout helpers ----------------------------------------------------------------------------

def _facets(players: Sequence[int], legend: Sequence[str], *, title: str, x_title: str,
            y_title: str, shared_y: bool = True
            ) -> tuple[go.Figure, dict[int, tuple[int, int]]]:
    """One subplot per player count, up to FACET_COLS a row. ``shared_y`` for measures whose
    scale does not depend on the table size (shares of rounds); win rates and scores do."""
    k = len(players)
    cols = min(k, FACET_COLS)
    rows = math.ceil(k / cols)
    top = _top_margin(legend)
    plot_height = FACET_HEIGHT * rows + 70 * (rows - 1)
    fig = new_subplots(
        rows=rows, cols=cols, shared_yaxes=shared_y,
        subplot_titles=[f"{n} players" for n in players],
        horizontal_spacing=0.05, vertical_spacing=(90 / plot_height) if rows > 1 else 0.1)
    where = {n: (i // cols + 1, i % cols + 1) for i, n in enumerate(players)}
    for n, (r, c) in where.items():
        fig.update_xaxes(title_text=x_title, row=r, col=c)
        if c == 1:
            fig.update_yaxes(title_text=y_title, row=r, col=c)
    _style(fig, title, height=top + plot_height + 70, top=top)
    return fig, where


LEGEND_WIDTH = 1150  # px a legend row may fill (the page's figures are ~1250 px wide)


def _legend_rows(names: Sequence[str]) -> int:
    rows, used = 1, 0.0
    for name in names:
        w = 7.5 * len(name) + 48
        if used and used + w > LEGEND_WIDTH:
            rows, used = rows + 1, 0.0
        used += w
    return rows


def _top_margin(legend: Sequence[str]) -> int:
    """Room for the title, the legend rows under it and the facet titles."""
    return 58 + 24 * _legend_rows(legend) + 34


def _style(fig: go.Figure, title: str, height: int, top: int = 80) -> None:
    """Title top left, legend in rows under it (read before the chart); the white template
    comes with the figure (``plotting``)."""
    fig.update_layout(
        height=height,
        title=dict(text=title, x=0.0, xanchor="left", xref="container", y=1 - 16 / height,
                   yref="container", yanchor="top", pad=dict(l=12), font=dict(size=17)),
        font=dict(family=FONT, size=13, color="#222"),
        margin=dict(l=70, r=30, t=top, b=70),
        legend=dict(orientation="h", xref="container", x=0.0, xanchor="left",
                    yref="container", y=1 - 50 / height, yanchor="top",
                    title=dict(text=""), font=dict(size=13)),
        hoverlabel=dict(namelength=-1))
    fig.update_xaxes(showline=True, linecolor="#999", ticks="outside", zeroline=False)
    fig.update_yaxes(showline=True, linecolor="#999", ticks="outside", zeroline=False)


def hidden_labels(model: ReportModel) -> frozenset[str]:
    """Variants drawn only on demand (legend click) in the charts that overlay every variant:
    an ablation's "without" variants, whose effects have their own chart; the rest (the base
    and whatever it is compared with) stay readable at a glance."""
    hidden = frozenset(model.ablation_labels)
    return hidden if len(hidden) < len(model.labels) else frozenset()


def _visible(label: str, hidden: frozenset[str]) -> bool | str:
    return "legendonly" if label in hidden else True


def _hidden_note(hidden: frozenset[str]) -> str:
    if not hidden:
        return ""
    return (f" The {len(hidden)} ablation variants (\"without\" one rule) are hidden at first: "
            "click a name in the legend to show or hide it, double-click to show it alone.")


class _Legend:
    """Shows each variant once in the legend, however many facets it appears in."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, name: str) -> bool:
        if name in self.seen:
            return False
        self.seen.add(name)
        return True


# --- Distributions -----------------------------------------------------------------------------

def _nice_width(span: float, bins: int = HIST_BINS) -> int:
    """The 1-2-5 step closest (in ratio) to span/bins; at least 1 (the values are integers)."""
    raw = max(span / bins, 1.0)
    mag = 10 ** math.floor(math.log10(raw))
    return int(min((m * mag for m in (1, 2, 5, 10)), key=lambda w: abs(math.log(w / raw))))


def _binning(dists: Sequence[Distribution]) -> tuple[int, int, int]:
    """(start, width, stop) shared by every cell: stop is the largest 99.5th percentile."""
    present = [d for d in dists if d.total]
    lo = int(min(d.values.min() for d in present))
    clip = int(max(d.quantile_value(HIST_CLIP) for d in present))
    smallest = min(d.total for d in present)
    bins = max(10, min(HIST_BINS, round(2 * smallest ** (1 / 3))))  # Rice's rule, capped
    width = _nice_width(clip - lo + 1, bins)
    start = (lo // width) * width
    stop = ((clip - start) // width + 1) * width + start  # exclusive, a whole number of bins
    return start, width, stop


def histogram_figure(model: ReportModel, measure: Measure, colour: Mapping[str, str],
                     *, x_title: str, title: str | None = None) -> Figure | None:
    """Share of observations per bin, one step line per variant, one facet per player count;
    None when no run kept them (``--keep``: the page's notes say so)."""
    per = measure.per
    dists = [measure.distributions[c.key] for c in model.cells]
    if not any(d.total for d in dists):
        return None
    start, width, stop = _binning(dists)
    nbins = (stop - start) // width
    unit = measure.unit
    where_text = f"in each bin of {width} {unit}" if width > 1 else "at each value"
    y_title = f"Share per {width} {unit} (% of {per})" if width > 1 else f"Share (% of {per})"
    fig, where = _facets(model.players, model.labels,
                         title=title or f"{measure.title}: distribution",
                         x_title=x_title, y_title=y_title)
    legend = _Legend()
    hidden = hidden_labels(model)
    beyond = []
    for cell in model.cells:
        d = measure.distributions[cell.key]
        if not d.total:
            continue
        keep = d.values < stop
        idx = (d.values[keep] - start) // width
        binned = np.bincount(idx, weights=d.counts[keep], minlength=nbins)[:nbins]
        share = 100.0 * binned / d.total
        left = start + width * np.arange(nbins)
        x = np.append(left, stop)
        y = np.append(share, share[-1])
        rng = [f"{a}" if width == 1 else f"{a}–{a + width - 1}" for a in left] + [""]
        counts = np.append(binned, binned[-1]).astype(np.int64)
        out_share = 100.0 * d.counts[~keep].sum() / d.total
        if out_share > 0:
            beyond.append(out_share)
        r, c = where[cell.players]
        name = esc(cell.label)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(shape="hv", width=2, color=colour[cell.label]),
            name=name, legendgroup=name, showlegend=legend(cell.label),
            visible=_visible(cell.label, hidden),
            customdata=np.column_stack([rng, counts]),
            hovertemplate=(f"<b>{name}</b>, {cell.players} players<br>{unit}: %{{customdata[0]}}"
                           f"<br>%{{y:.2f}}% of {per} (%{{customdata[1]:,}})<extra></extra>"),
        ), row=r, col=c)
    fig.update_yaxes(rangemode="tozero")
    caption = (f"Each line is one variant: the share of its {per} {where_text}"
               + (f"; bins are {width} wide and the same for every variant." if width > 1
                  else "."))
    if beyond:
        caption += (f" The x axis stops at {stop}, the largest 99.5th percentile; at most "
                    f"{max(beyond):.2f}% of a variant's {per} lie beyond (see the quantiles).")
    return Figure(f"fig-{_slug(measure.key)}-hist", fig, caption + _hidden_note(hidden))


def cdf_figure(model: ReportModel, measure: Measure, colour: Mapping[str, str],
               *, x_title: str) -> Figure | None:
    """Cumulative share of observations at or below x, per variant and player count; None
    when no run kept them."""
    per = measure.per
    dists = [measure.distributions[c.key] for c in model.cells]
    if not any(d.total for d in dists):
        return None
    fig, where = _facets(model.players, model.labels,
                         title=f"{measure.title}: cumulative distribution",
                         x_title=x_title, y_title=f"Share of {per} at or below x (%)")
    legend = _Legend()
    hidden = hidden_labels(model)
    x_hi = max(d.quantile_value(0.999) for d in dists if d.total)
    x_lo = min(d.values.min() for d in dists if d.total)
    for cell in model.cells:
        d = measure.distributions[cell.key]
        if not d.total:
            continue
        cdf = np.cumsum(d.counts) / d.total
        grid = np.arange(CDF_STEP, 1.0 + CDF_STEP / 2, CDF_STEP)
        idx = np.unique(np.minimum(np.searchsorted(cdf, grid - 1e-12), len(cdf) - 1))
        x = np.concatenate([[d.values[0]], d.values[idx]])
        y = 100.0 * np.concatenate([[0.0], cdf[idx]])
        r, c = where[cell.players]
        name = esc(cell.label)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines", line=dict(shape="hv", width=2, color=colour[cell.label]),
            name=name, legendgroup=name, showlegend=legend(cell.label),
            visible=_visible(cell.label, hidden),
            hovertemplate=(f"<b>{name}</b>, {cell.players} players<br>%{{y:.1f}}% of {per} "
                           f"have ≤ %{{x:,}} {measure.unit}<extra></extra>"),
        ), row=r, col=c)
    for level in (50, 90):
        fig.add_hline(y=level, line=dict(color=FAIR_COLOUR, width=1, dash="dot"),
                      annotation_text="median" if level == 50 else "90th percentile",
                      annotation_position="bottom right", annotation_font_size=11,
                      row="all", col="all")
    fig.update_xaxes(range=[x_lo - 0.5, x_hi + 0.5])
    fig.update_yaxes(range=[0, 101])
    caption = (f"Read a quantile off the dotted lines: where a line crosses 50% is the median "
               f"number of {measure.unit}. The x axis stops at the largest 99.9th percentile.")
    return Figure(f"fig-{_slug(measure.key)}-cdf", fig, caption + _hidden_note(hidden))


# --- First-player advantage --------------------------------------------------------------------

def positions_figure(model: ReportModel, level: str,
                     colour: Mapping[str, str]) -> Figure | None:
    data = model.round_positions if level == "round" else model.game_positions
    div_id = f"fig-positions-{level}"
    if not data:  # no run kept rows
        return None
    what = "rounds" if level == "round" else "games"
    fig, where = _facets(
        model.players, [*model.labels, "fair share 1/n"],
        title=f"Who wins the {level}: win rate by position (position 0 acts first"
              f"{'' if level == 'round' else ' in round 1'})",
        x_title="Position (0 = first player)", y_title=f"Share of {what} won (%)",
        shared_y=False)
    legend = _Legend()
    hidden = hidden_labels(model)
    per_players: dict[int, list] = {}
    for cell in model.cells:
        if cell.key in data:
            per_players.setdefault(cell.players, []).append(cell)
    for players, cells in per_players.items():
        r, c = where[players]
        # the variants shown at first take the middle of each position's slot, hidden ones
        # (shown on demand) its two sides; traces stay in report order, as the legend does
        off = [x.key for x in cells if x.label in hidden]
        half = len(off) // 2
        slots = off[:half] + [x.key for x in cells if x.label not in hidden] + off[half:]
        slot = {k: i for i, k in enumerate(slots)}
        m = len(slots)
        for cell in cells:
            i = slot[cell.key]
            p = data[cell.key]
            offset = (i - (m - 1) / 2) * min(0.6 / m, 0.15)
            x = np.arange(players) + offset
            y = np.array([e.value for e in p.rates]) * 100
            lo = np.array([e.lo for e in p.rates]) * 100
            hi = np.array([e.hi for e in p.rates]) * 100
            name = esc(cell.label)
            fig.add_trace(go.Scatter(
                x=x, y=y, mode="markers", name=name, legendgroup=name,
                showlegend=legend(cell.label), visible=_visible(cell.label, hidden),
                marker=dict(size=8, color=colour[cell.label]),
                error_y=dict(type="data", array=hi - y, arrayminus=y - lo, thickness=1.5,
                             width=3, color=colour[cell.label]),
                customdata=np.column_stack([np.arange(players), lo, hi, p.wins]),
                hovertemplate=(f"<b>{name}</b>, {players} players<br>position "
                               f"%{{customdata[0]}}: %{{y:.2f}}% "
                               f"[%{{customdata[1]:.2f}}, %{{customdata[2]:.2f}}]"
                               f"<br>%{{customdata[3]:,}} of {p.n:,} {what}<extra></extra>"),
            ), row=r, col=c)
        fair = 100.0 / players
        fig.add_trace(go.Scatter(
            x=[-0.5, players - 0.5], y=[fair, fair], mode="lines",
            line=dict(color=FAIR_COLOUR, dash="dash", width=1.5),
            name="fair share 1/n", legendgroup="fair", showlegend=legend("\0fair"),
            hovertemplate=f"fair share 1/{players} = {fair:.2f}%<extra></extra>",
        ), row=r, col=c)
        fig.update_xaxes(tickmode="array", tickvals=list(range(players)),
                         ticktext=["0 (first)"] + [str(i) for i in range(1, players)],
                         range=[-0.6, players - 0.4], row=r, col=c)
    caption = ("Dots: share of the {w} won from each position, with 95% Wilson intervals; dashed: "
               "the fair share 1/n every position would have if going first did not matter."
               ).format(w=what)
    return Figure(div_id, fig, caption + _hidden_note(hidden))


def rank_scores_figure(model: ReportModel, colour: Mapping[str, str]) -> Figure | None:
    if not model.rank_scores:  # no run kept its games
        return None
    fig, where = _facets(model.players, model.labels,
                         title="Final standings: mean final score by rank",
                         x_title="Final rank (1 = winner)", y_title="Mean final score (points)",
                         shared_y=False)
    legend = _Legend()
    hidden = hidden_labels(model)
    for cell in model.cells:
        ranks = model.rank_scores.get(cell.key)
        if not ranks:
            continue
        r, c = where[cell.players]
        x = np.array([k for k, _ in ranks])
        y = np.array([e.value for _, e in ranks])
        lo = np.array([e.lo for _, e in ranks])
        hi = np.array([e.hi for _, e in ranks])
        ns = np.array([e.n for _, e in ranks])
        name = esc(cell.label)
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="lines+markers", name=name, legendgroup=name,
            showlegend=legend(cell.label), visible=_visible(cell.label, hidden),
            line=dict(color=colour[cell.label], width=2),
            marker=dict(size=7),
            error_y=dict(type="data", array=hi - y, arrayminus=y - lo, thickness=1.2, width=3),
            customdata=np.column_stack([lo, hi, ns]),
            hovertemplate=(f"<b>{name}</b>, {cell.players} players<br>rank %{{x}}: "
                           "%{y:.1f} points [%{customdata[0]:.1f}, %{customdata[1]:.1f}]"
                           "<br>n=%{customdata[2]:,}<extra></extra>"),
        ), row=r, col=c)
        fig.update_xaxes(tickmode="linear", dtick=1, row=r, col=c)
    caption = ("Mean final score of the player finishing at each rank (ties share a rank), with "
               "95% intervals (mean ± 1.96 SE). A steep line means widely spread standings. "
               "Where every player scores their own points and the lowest total wins, rank 1 "
               "has the lowest score, so the line rises.")
    return Figure("fig-final-score-rank", fig, caption + _hidden_note(hidden))


# --- Variants compared -------------------------------------------------------------------------

@dataclass(frozen=True)
class _ForestRow:
    y: str
    label: str  # variant label (colour, legend)
    players: int
    left: Estimate
    right: Estimate
    note: str = ""  # extra hover line


def _forest(div_id: str, rows: Sequence[_ForestRow], colour: Mapping[str, str], *, title: str,
            left_title: str, right_title: str, caption: str,
            left_axis: str = "Difference in mean turns per round (turns)",
            right_axis: str = "Difference in first-player round win rate (percentage points)"
            ) -> Figure:
    fig = new_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                       subplot_titles=[left_title, right_title])
    legend = _Legend()
    symbols = ("circle", "diamond", "square", "triangle-up", "x", "star", "hexagon",
               "cross", "triangle-down")
    all_players = sorted({r.players for r in rows})
    ys = [r.y for r in rows]
    for row in rows:
        name = esc(row.label)
        symbol = symbols[all_players.index(row.players) % len(symbols)]
        for col, (est, scale, unit) in enumerate(
                ((row.left, 1.0, "turns"), (row.right, 100.0, "pp")), start=1):
            v, lo, hi = est.value * scale, est.lo * scale, est.hi * scale
            p = "—" if est.p_value is None else f"{est.p_value:.3g}"
            fig.add_trace(go.Scatter(
                x=[v], y=[esc(row.y)], mode="markers", name=name, legendgroup=name,
                showlegend=col == 1 and legend(row.label),
                marker=dict(size=10, color=colour[row.label], symbol=symbol),
                error_x=dict(type="data", array=[hi - v], arrayminus=[v - lo], thickness=2,
                             width=4, color=colour[row.label]),
                hovertemplate=(f"<b>{esc(row.y)}</b><br>{v:+.3f} {unit} "
                               f"[{lo:+.3f}, {hi:+.3f}], p={p}<br>{esc(est.method)}"
                               + (f"<br>{esc(row.note)}" if row.note else "")
                               + "<extra></extra>"),
            ), row=1, col=col)
    for col in (1, 2):
        fig.add_vline(x=0, line=dict(color=FAIR_COLOUR, width=1.5, dash="dash"), row=1, col=col)
    fig.update_xaxes(title_text=left_axis, row=1, col=1)
    fig.update_xaxes(title_text=right_axis, row=1, col=2)
    fig.update_yaxes(autorange="reversed", categoryorder="array",
                     categoryarray=[esc(y) for y in ys])
    top = _top_margin(list(dict.fromkeys(r.label for r in rows)))
    _style(fig, title, height=top + 80 + 34 * len(rows), top=top)
    fig.update_layout(margin=dict(l=10))
    fig.update_yaxes(automargin=True)
    return Figure(div_id, fig, caption)


def comparison_figure(model: ReportModel, colour: Mapping[str, str]) -> Figure | None:
    """Every variant against the base. In an ablation scenario the "without" variants have
    their own chart (``ablation_figure``), so only the others are drawn here, if any."""
    ablated = {a.cell for a in model.ablation}
    comparisons = [c for c in model.comparisons if c.cell not in ablated]
    if not comparisons:
        return None
    rows = [_ForestRow(f"{model.cell(c.cell).label} · {c.cell.players} players",
                       model.cell(c.cell).label, c.cell.players, c.round_length, c.first_win)
            for c in comparisons]
    caption = ("Points right of the dashed line: longer rounds (left) or a larger first-player "
               "win rate (right) than the base variant. Bars are 95% intervals: difference of "
               "means ± 1.96 SE (left), Newcombe's hybrid score interval (right).")
    if ablated:
        caption += (" The ablation variants are left out here: their rule effects are in the "
                    "next chart, their differences from the base variant in the table below.")
    return _forest(
        "fig-compare", rows, colour,
        title=f"Each variant minus the base variant ({esc(model.base_label)}), "
              "same player count",
        left_title="Round length", right_title="First-player advantage", caption=caption)


def ablation_figure(model: ReportModel, colour: Mapping[str, str]) -> Figure | None:
    """One row per rule removed (and player count): base minus "base without the rule"."""
    if not model.ablation:
        return None
    multi = len({a.cell.players for a in model.ablation}) > 1
    bases = model.ablation_base_labels
    base = bases[0] if len(bases) == 1 else "the base"
    rows = [_ForestRow(a.what + (f" · {a.cell.players} players" if multi else ""),
                       model.cell(a.cell).label, a.cell.players, a.round_length, a.first_win,
                       note=f"{model.cell(a.base).label} minus {model.cell(a.cell).label}; "
                            f"rules: {', '.join(a.rules) or 'none differ'}")
            for a in model.ablation]
    turns = model.measures["round_turns"].summaries
    first = model.round_positions
    levels = "; ".join(
        f"{model.cell(k).label} at {k.players} players: {turns[k].mean.value:.1f} turns per "
        f"round, first player wins {100 * first[k].rates[0].value:.1f}% of rounds"
        for k in dict.fromkeys(a.base for a in model.ablation) if k in turns and k in first)
    return _forest(
        "fig-ablation", rows, colour,
        title=f"Effect of each rule: {esc(base)} with the rule minus {esc(base)} without it",
        left_title="Round length", right_title="First-player advantage",
        left_axis="Effect on mean turns per round (turns)",
        right_axis="Effect on first-player round win rate (percentage points)",
        caption="Each row removes one rule from the base variant and puts it back to the "
                "official default; the point is what the rule adds (base minus \"base without "
                "the rule\"): right of the dashed line, the rule makes rounds longer (left) or "
                "helps the first player (right). Bars are 95% intervals: difference of means "
                "± 1.96 SE (left), Newcombe's hybrid score interval (right)."
                + (f" For scale, {levels}." if levels else ""))


# --- All figures -------------------------------------------------------------------------------

X_TITLES = {
    "round_turns": "Turns in the round (turns)",
    "round_cards_drawn": "Cards drawn in the round (cards)",
    "round_points": "Points scored in the round (points)",
    "game_rounds": "Rounds in the game (rounds)",
    "game_turns": "Turns in the game (turns)",
    "game_margin": "Winner's lead over the runner-up (points)",
    "final_score": "Final score (points)",
}


def build_figures(model: ReportModel) -> dict[str, Figure]:
    """Every chart of the report by div id (stable ids; templates place them by id)."""
    with report_template():  # named once for every chart (``plotting``)
        return _build_figures(model)


def _build_figures(model: ReportModel) -> dict[str, Figure]:
    colour = colours(model.labels)
    figs: list[Figure | None] = []
    for key in ("round_turns", "round_cards_drawn"):
        m = model.measures[key]
        figs += [histogram_figure(model, m, colour, x_title=X_TITLES[key]),
                 cdf_figure(model, m, colour, x_title=X_TITLES[key])]
    for key in ("game_rounds", "game_turns", "round_points", "game_margin", "final_score"):
        m = model.measures[key]
        figs.append(histogram_figure(model, m, colour, x_title=X_TITLES[key]))
    figs += [rank_scores_figure(model, colour),
             positions_figure(model, "round", colour), positions_figure(model, "game", colour),
             comparison_figure(model, colour), ablation_figure(model, colour)]
    for s in model.sections:  # the sections of the runs' kinds (kinds.ReportSection)
        if s.data is not None:
            figs += [Figure(div_id, fig, caption)
                     for div_id, fig, caption in s.section.figures(s.data)]
    return {f.div_id: f for f in figs if f is not None}
