"""The report's league section: the ``league_ratings`` view -> plain dataclasses -> a plotly
figure per league (each policy's rating with its 95% interval, one panel per table size) and
the table's display strings (the league kind's ``kinds.ReportSection``). Reports of runs without
a league have no such section (``load_leagues`` returns None)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from ..ratings import METHOD
from ..base.format import esc, fmt_estimate, fmt_number, fmt_pct, fmt_said
from ..base.plotting import new_subplots
from ..stats import Estimate, wilson_interval
from .spec import tables as league_store

RATING_COLOUR = "#0072B2"
EVEN_COLOUR = "#6b6b6b"


@dataclass(frozen=True)
class Rated:
    policy: str
    rating: Estimate  # the fit's rating, its bootstrap interval
    games: int
    wins: int
    win_rate: Estimate  # wins / games, Wilson


@dataclass(frozen=True)
class LeagueTable:
    """One league (run and variant) at one table size, best rating first."""

    run_id: str
    variant: str
    players: int
    rated: tuple[Rated, ...]
    decided: int  # games with a winner (those fitted)


@dataclass(frozen=True)
class LeagueSection:
    tables: tuple[LeagueTable, ...]

    def leagues(self) -> list[tuple[str, str]]:
        """(run, variant) of each league, in order."""
        return list(dict.fromkeys((t.run_id, t.variant) for t in self.tables))


def load_leagues(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]
                 ) -> LeagueSection | None:
    tables: dict[tuple[str, str, int], list[Rated]] = {}
    decided: dict[tuple[str, str, int], int] = {}
    for run_id in run_ids:
        for r in league_store.rating_rows(con, run_id):
            key = (r["run_id"], r["variant"], r["players"])
            rating = Estimate(*(float("nan") if r[k] is None else r[k]
                                for k in ("rating", "lo", "hi")), r["games"], r["method"])
            tables.setdefault(key, []).append(Rated(
                r["policy"], rating, r["games"], r["wins"],
                wilson_interval(r["wins"], r["games"])))
            decided[key] = decided.get(key, 0) + r["wins"]
    if not tables:
        return None
    return LeagueSection(tuple(LeagueTable(*k, tuple(v), decided[k]) for k, v in tables.items()))


# --- Figures -----------------------------------------------------------------------------------

def rating_figure(section: LeagueSection, run_id: str, variant: str, index: int
                  ) -> tuple[str, go.Figure, str]:
    """One panel per table size: each policy's rating (dot) and 95% interval (bar), best at
    the top, the even rating 1 dashed."""
    import plotly.graph_objects as go

    tables = [t for t in section.tables if (t.run_id, t.variant) == (run_id, variant)]
    fig = new_subplots(rows=1, cols=len(tables), horizontal_spacing=0.18,
                       subplot_titles=[f"tables of {t.players}" for t in tables])
    most = max((len(t.rated) for t in tables), default=1)
    for col, t in enumerate(tables, start=1):
        rated = [r for r in reversed(t.rated)]  # plotly draws the first row at the bottom
        names = [esc(r.policy) for r in rated]
        fig.add_trace(go.Scatter(
            x=[r.rating.value for r in rated], y=names, mode="markers",
            marker=dict(color=RATING_COLOUR, size=9), showlegend=False,
            error_x=dict(type="data", symmetric=False, thickness=1.5,
                         array=[r.rating.hi - r.rating.value for r in rated],
                         arrayminus=[r.rating.value - r.rating.lo for r in rated]),
            hovertemplate=[f"<b>{esc(r.policy)}</b> at tables of {t.players}<br>"
                           f"rating {r.rating.value:.3f} [{r.rating.lo:.3f}, {r.rating.hi:.3f}]"
                           f"<br>won {r.wins:,} of {r.games:,} games<extra></extra>"
                           for r in rated]), row=1, col=col)
        fig.add_vline(x=1.0, line=dict(color=EVEN_COLOUR, dash="dash", width=1.2), row=1,
                      col=col)
        fig.update_xaxes(title_text="rating (average 1)", rangemode="tozero", row=1, col=col)
    height = 140 + 26 * most
    fig.update_layout(height=height, margin=dict(l=140, r=30, t=90, b=60),
                      title=dict(text=f"League ratings: {esc(variant)}", x=0.0, xanchor="left",
                                 font=dict(size=17)),
                      font=dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, "
                                       "sans-serif", size=13, color="#222"))
    caption = (f"Each policy's rating with its 95% interval ({METHOD}); dashed: 1, the average "
               "policy. A policy rated r wins against one rated 1 with chance r / (r + 1), and "
               "at a table its chance is its rating over the sum of the table's ratings.")
    return f"fig-league-{index}", fig, caption


def league_figures(section: LeagueSection) -> list[tuple[str, go.Figure, str]]:
    return [rating_figure(section, run_id, variant, i)
            for i, (run_id, variant) in enumerate(section.leagues(), start=1)]


# --- Display strings ---------------------------------------------------------------------------

def view(section: LeagueSection) -> dict[str, Any]:
    """The league section's tables as display strings, for the template."""
    leagues = []
    for i, (run_id, variant) in enumerate(section.leagues(), start=1):
        tables = [{
            "players": t.players, "fair": fmt_pct(1 / t.players, 1),
            "decided": fmt_number(t.decided),
            "rows": [{"policy": r.policy, "rating": fmt_estimate(r.rating),
                      "games": fmt_number(r.games), "wins": fmt_number(r.wins),
                      "win_rate": fmt_estimate(r.win_rate, "rate")} for r in t.rated]}
            for t in section.tables if (t.run_id, t.variant) == (run_id, variant)]
        leagues.append({"run_id": run_id, "variant": variant, "figure": f"fig-league-{i}",
                        "tables": tables})
    return {"leagues": leagues, "method": METHOD, "answers": _answers(section)}


def _answers(section: LeagueSection) -> list[tuple[str, list[str]]]:
    """Per league and table size, the best- and the worst-rated policy."""
    said = []
    for t in section.tables:
        if len(t.rated) < 2:
            continue
        best, worst = t.rated[0], t.rated[-1]
        said.append(
            f"At tables of {t.players} under {t.variant}, {best.policy} is rated "
            f"{fmt_said(best.rating)} and wins {fmt_said(best.win_rate, 'rate')} of its games "
            f"(fair {fmt_pct(1 / t.players)}); {worst.policy} is rated "
            f"{fmt_said(worst.rating)} and wins {fmt_said(worst.win_rate, 'rate')}.")
    return [("Which policy is best?", said)] if said else []
