"""The report's championship section: tournament views -> plain dataclasses -> plotly figures
and display strings (the tournament kind's ``kinds.ReportSection``).

Everything is read from the store's tournament views (``tables``), filtered to the
report's runs; Python only wraps their numbers in ``stats.Estimate`` objects and adds the
chi-square test of first-stage advancement by position. Reports of runs without tournaments have
no such section (``load_tournaments`` returns None).

What it answers (rule T4): per profile, the chance to reach each stage and to
win; the chance the strongest profile wins against a field of equals; how long each stage and
the evening last; how often the first-stage seat order (position in round 1) decides who goes
on; how often the lot decides.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import duckdb
import numpy as np

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from .. import stats
from ..base.format import esc, fmt_estimate, fmt_number, fmt_pct, fmt_said, fmt_test
from ..base.plotting import new_subplots
from ..stats import Estimate, TestResult

FAIR_COLOUR = "#6b6b6b"
PROFILE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
                   "#882255", "#117733", "#44AA99")


class FieldKey(NamedTuple):
    run_id: str
    variant: str
    field: str


@dataclass(frozen=True)
class ProfileResult:
    profile: str
    policy: str
    entrants: int  # of this profile in the field
    tournaments: int
    titles: int
    win: Estimate  # chance one entrant of the profile wins the tournament
    edge: Estimate  # win chance x field entrants (1 = fair)
    reach: tuple[tuple[str, Estimate, float], ...]  # (stage name, chance, fair share) per stage
    consolation_win: Estimate  # chance one entrant wins the consolation (unconditional)


@dataclass(frozen=True)
class StageLength:
    bracket: str
    stage_name: str
    tables: int
    players: int
    games: int
    rounds: Estimate  # per table game
    turns: Estimate  # per table game
    longest_turns: Estimate  # the stage's longest table (per tournament)
    longest_rounds: Estimate


@dataclass(frozen=True)
class PositionAdvance:
    players: int  # first-stage table size
    n: int  # entrants per position
    advanced: tuple[int, ...]
    rates: tuple[Estimate, ...]  # by position 0..players-1, Wilson
    fair: float  # advance / players
    test: TestResult  # chi-square: every position advances equally often
    excess: Estimate  # position 0's rate minus the fair rate


@dataclass(frozen=True)
class DecidedBy:
    bracket: str
    stage_name: str
    tables: int
    by_rank: int
    by_rounds_won: int
    by_hand_points: int
    lot: Estimate  # share of tables where the lot decided the last place that went on


@dataclass(frozen=True)
class LoneEntrant:
    """One entrant of a profile among a field of one other profile: the skill question."""

    profile: str
    against: str
    field_entrants: int
    win: Estimate
    fair: float
    difference: Estimate  # win - fair (the Wilson interval shifted)
    edge: Estimate


@dataclass(frozen=True)
class FieldResult:
    key: FieldKey
    label: str
    description: str
    entrants: int
    table_size: int
    tournaments: int
    stage_names: tuple[str, ...]  # main bracket, in play order
    profiles: tuple[ProfileResult, ...]  # strongest (highest edge) first
    stages: tuple[StageLength, ...]
    evening_turns: Estimate
    evening_rounds: Estimate
    evening_p90_turns: float
    evening_hours: Estimate  # at the run's seconds_per_turn (the tournament_durations view)
    seconds_per_turn: float
    main_turns: Estimate
    positions: tuple[PositionAdvance, ...]
    decided: tuple[DecidedBy, ...]
    champion_by_lot: Estimate  # share of finals decided by the lot
    lone: LoneEntrant | None


@dataclass(frozen=True)
class TournamentSection:
    fields: tuple[FieldResult, ...]

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.profile for f in self.fields for p in f.profiles))


# --- Loading -----------------------------------------------------------------------------------

def load_tournaments(con: duckdb.DuckDBPyConnection,
                     run_ids: Sequence[str]) -> TournamentSection | None:
    params = {f"run{i}": r for i, r in enumerate(run_ids)}
    runs = "run_id IN (" + ", ".join(f"${k}" for k in params) + ")"

    def q(sql: str) -> list[dict[str, Any]]:
        cur = con.execute(sql.replace("{runs}", runs), params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    fields_rows = q("SELECT *, rowid AS _order FROM tournament_fields WHERE {runs}")
    if not fields_rows:
        return None
    run_rank = {r: i for i, r in enumerate(run_ids)}
    fields_rows.sort(key=lambda r: (run_rank[r["run_id"]], r["_order"]))

    def key(row: Mapping[str, Any]) -> FieldKey:
        return FieldKey(row["run_id"], row["variant"], row["field"])

    by_key: dict[FieldKey, dict[str, list]] = {key(r): {} for r in fields_rows}

    def group(name: str, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            k = key(r)
            if k in by_key:
                by_key[k].setdefault(name, []).append(r)

    group("wins", q("SELECT * FROM tournament_profile_wins WHERE {runs}"))
    group("stages", q("SELECT * FROM tournament_profile_stages WHERE {runs} "
                      "ORDER BY profile, step"))
    group("length", q("SELECT * FROM tournament_stage_length WHERE {runs}"))
    group("evening", q("SELECT * FROM tournament_length WHERE {runs}"))
    group("hours", q("SELECT * FROM tournament_durations WHERE {runs} AND bracket IS NULL"))
    group("position", q("SELECT * FROM tournament_advance_by_position WHERE {runs} "
                        "ORDER BY players, position"))
    group("decided", q("SELECT * FROM tournament_decided_by WHERE {runs}"))
    group("plan", q("SELECT * FROM tournament_stages WHERE {runs} AND bracket = 'main' "
                    "ORDER BY step"))
    policies = {(key(r), r["profile"]): r["policy"] for r in q(
        "SELECT DISTINCT run_id, variant, field, profile, policy FROM tournament_entrants "
        "WHERE {runs}")}
    multi_run = len({r["run_id"] for r in fields_rows}) > 1
    multi_variant = len({r["variant"] for r in fields_rows}) > 1
    out = []
    for row in fields_rows:
        k = key(row)
        parts = by_key[k]
        if not parts.get("wins"):
            continue  # no tournament stored yet
        label = row["field"] + (f" · {row['variant']}" if multi_variant else "") + \
            (f" ({row['run_id']})" if multi_run else "")
        out.append(_field(k, label, row, parts, policies))
    return TournamentSection(tuple(out)) if out else None


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _wilson_scaled(k: int, n: int, scale: float, method: str) -> Estimate:
    w = stats.wilson_interval(int(k), int(n))
    return Estimate(w.value * scale, w.lo * scale, w.hi * scale, int(n), method)


def _field(k: FieldKey, label: str, row: Mapping[str, Any], parts: Mapping[str, list],
           policies: Mapping[tuple[FieldKey, str], str]) -> FieldResult:
    entrants = int(row["entrants"])
    plan = parts.get("plan", [])
    stage_names = tuple(s["stage_name"] for s in plan)
    reach_rows: dict[str, list[dict[str, Any]]] = {}
    for r in parts.get("stages", []):
        reach_rows.setdefault(r["profile"], []).append(r)
    profiles = []
    for w in parts["wins"]:
        n_t, count = int(w["tournaments"]), int(w["entrants"])
        method = f"Wilson over tournaments ÷ {count} entrant{'s' * (count != 1)}"
        win = _wilson_scaled(w["wins"], n_t, 1 / count, method)
        edge = _wilson_scaled(w["wins"], n_t, entrants / count, method + f" × {entrants}")
        reach = tuple(
            (r["stage_name"], Estimate(_num(r["rate"]), _num(r["lo"]), _num(r["hi"]),
                                       int(r["tournaments"]), r["method"]), _num(r["fair"]))
            for r in sorted(reach_rows.get(w["profile"], []), key=lambda r: r["step"]))
        cons = _wilson_scaled(w["consolation_wins"], n_t, 1 / count, method)
        profiles.append(ProfileResult(
            profile=w["profile"], policy=policies.get((k, w["profile"]), ""), entrants=count,
            tournaments=n_t, titles=int(w["wins"]), win=win, edge=edge, reach=reach,
            consolation_win=cons))
    profiles.sort(key=lambda p: (-p.edge.value, p.profile))

    stages = []
    for r in parts.get("length", []):
        stages.append(StageLength(
            bracket=r["bracket"], stage_name=r["stage_name"], tables=int(r["tables"]),
            players=int(r["stage_players"]), games=int(r["games"]),
            rounds=stats.mean_interval(_num(r["mean_rounds"]), _num(r["se_rounds"]),
                                       int(r["games"])),
            turns=stats.mean_interval(_num(r["mean_turns"]), _num(r["se_turns"]),
                                      int(r["games"])),
            longest_turns=stats.mean_interval(_num(r["mean_longest_turns"]),
                                              _num(r["se_longest_turns"]),
                                              int(r["tournaments"])),
            longest_rounds=stats.mean_interval(_num(r["mean_longest_rounds"]),
                                               _num(r["se_longest_rounds"]),
                                               int(r["tournaments"]))))
    ev = parts["evening"][0]
    hours = parts["hours"][0]
    n_t = int(ev["tournaments"])

    positions = []
    by_size: dict[int, list[dict[str, Any]]] = {}
    for r in parts.get("position", []):
        by_size.setdefault(int(r["players"]), []).append(r)
    for size, rows in sorted(by_size.items(), reverse=True):
        rows.sort(key=lambda r: r["position"])
        advanced = tuple(int(r["advanced"]) for r in rows)
        n = int(rows[0]["n"])
        rates = tuple(Estimate(_num(r["rate"]), _num(r["lo"]), _num(r["hi"]), int(r["n"]),
                               "Wilson") for r in rows)
        fair = _num(rows[0]["fair"])
        first = rates[0]
        positions.append(PositionAdvance(
            players=size, n=n, advanced=advanced, rates=rates, fair=fair,
            test=stats.chi_square_uniform(advanced),
            excess=Estimate(first.value - fair, first.lo - fair, first.hi - fair, n,
                            "Wilson interval minus the fair rate")))

    decided = []
    champion_lot = Estimate(math.nan, math.nan, math.nan, 0, "Wilson")
    for r in parts.get("decided", []):
        lot = Estimate(_num(r["lot_rate"]), _num(r["lot_lo"]), _num(r["lot_hi"]),
                       int(r["tables"]), "Wilson")
        decided.append(DecidedBy(r["bracket"], r["stage_name"], int(r["tables"]),
                                 int(r["by_rank"]), int(r["by_rounds_won"]),
                                 int(r["by_hand_points"]), lot))
        if r["bracket"] == "main" and plan and r["stage_name"] == plan[-1]["stage_name"]:
            champion_lot = lot

    lone = None
    if len(profiles) == 2 and min(p.entrants for p in profiles) == 1 and entrants > 2:
        one = next(p for p in profiles if p.entrants == 1)
        rest = next(p for p in profiles if p is not one)
        fair = 1.0 / entrants
        lone = LoneEntrant(
            profile=one.profile, against=rest.profile, field_entrants=entrants, win=one.win,
            fair=fair,
            difference=Estimate(one.win.value - fair, one.win.lo - fair, one.win.hi - fair,
                                one.win.n, "Wilson interval minus 1/entrants"),
            edge=one.edge)
    return FieldResult(
        key=k, label=label, description=row["description"] or "", entrants=entrants,
        table_size=int(row["table_size"]), tournaments=n_t, stage_names=stage_names,
        profiles=tuple(profiles), stages=tuple(stages),
        evening_turns=stats.mean_interval(_num(ev["mean_turns"]), _num(ev["se_turns"]), n_t),
        evening_rounds=stats.mean_interval(_num(ev["mean_rounds"]), _num(ev["se_rounds"]), n_t),
        evening_p90_turns=_num(ev["p90_turns"]),
        evening_hours=Estimate(*(_num(hours[c]) / 60 for c in ("mean_minutes", "lo_minutes",
                                                               "hi_minutes")), n_t, hours["method"]),
        seconds_per_turn=_num(hours["seconds_per_turn"]),
        main_turns=stats.mean_interval(_num(ev["mean_main_turns"]), _num(ev["se_main_turns"]),
                                       n_t),
        positions=tuple(positions), decided=tuple(decided), champion_by_lot=champion_lot,
        lone=lone)


# --- Figures -----------------------------------------------------------------------------------

def profile_colours(section: TournamentSection) -> dict[str, str]:
    return {p: PROFILE_COLOURS[i % len(PROFILE_COLOURS)] for i, p in enumerate(section.profiles)}


def _layout(fig: go.Figure, title: str, height: int) -> None:
    fig.update_layout(
        height=height,
        title=dict(text=title, x=0.0, xanchor="left", xref="container", y=1 - 16 / height,
                   yref="container", yanchor="top", pad=dict(l=12), font=dict(size=17)),
        font=dict(family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif",
                  size=13, color="#222"),
        margin=dict(l=70, r=30, t=110, b=70),
        legend=dict(orientation="h", xref="container", x=0.0, xanchor="left",
                    yref="container", y=1 - 50 / height, yanchor="top", font=dict(size=13)),
        hoverlabel=dict(namelength=-1))
    fig.update_xaxes(showline=True, linecolor="#999", ticks="outside", zeroline=False)
    fig.update_yaxes(showline=True, linecolor="#999", ticks="outside", zeroline=False)


def wins_figure(section: TournamentSection) -> tuple[str, go.Figure, str]:
    """Per field, the win chance of one entrant of each profile, with the fair share 1/n."""
    import plotly.graph_objects as go

    colour = profile_colours(section)
    fields = section.fields
    fig = new_subplots(rows=1, cols=len(fields), shared_yaxes=False,
                       subplot_titles=[esc(f.label) for f in fields],
                       horizontal_spacing=0.08)
    shown: set[str] = set()
    for col, f in enumerate(fields, start=1):
        names = [p.profile for p in f.profiles]
        for p in f.profiles:
            y, lo, hi = 100 * p.win.value, 100 * p.win.lo, 100 * p.win.hi
            fig.add_trace(go.Bar(
                x=[esc(p.profile)], y=[y], name=esc(p.profile), legendgroup=p.profile,
                showlegend=p.profile not in shown, marker_color=colour[p.profile],
                error_y=dict(type="data", array=[hi - y], arrayminus=[y - lo], thickness=1.5),
                hovertemplate=(f"<b>{esc(p.profile)}</b> ({p.entrants} of {f.entrants})<br>"
                               f"wins {y:.2f}% [{lo:.2f}, {hi:.2f}] per entrant<br>"
                               f"{p.titles:,} titles in {p.tournaments:,} tournaments"
                               "<extra></extra>")), row=1, col=col)
            shown.add(p.profile)
        fair = 100.0 / f.entrants
        fig.add_trace(go.Scatter(
            x=[esc(n) for n in names], y=[fair] * len(names), mode="lines",
            line=dict(color=FAIR_COLOUR, dash="dash", width=1.5), name="fair share 1/entrants",
            legendgroup="fair", showlegend=col == 1,
            hovertemplate=f"fair share 1/{f.entrants} = {fair:.2f}%<extra></extra>"),
            row=1, col=col)
        fig.update_xaxes(title_text="Profile", row=1, col=col)
    fig.update_yaxes(title_text="Chance one entrant wins (%)", row=1, col=1, rangemode="tozero")
    _layout(fig, "Who wins the championship: chance per entrant, by profile", 460)
    caption = ("Bars: the chance that one entrant of the profile wins the tournament (the "
               "champion's profile counted over tournaments, 95% Wilson interval, divided by the "
               "profile's entrants); dashed: the fair share 1/entrants every entrant would have "
               "if the result were pure luck.")
    return "fig-tournament-wins", fig, caption


def reach_figure(section: TournamentSection) -> tuple[str, go.Figure, str]:
    """Per field, each profile's chance to reach each later stage and to win, as a multiple of
    the fair share (1 = what luck alone gives)."""
    import plotly.graph_objects as go

    colour = profile_colours(section)
    fields = section.fields
    fig = new_subplots(rows=1, cols=len(fields), subplot_titles=[esc(f.label) for f in fields],
                       horizontal_spacing=0.08)
    shown: set[str] = set()
    for col, f in enumerate(fields, start=1):
        steps = [*f.stage_names[1:], "champion"]
        for p in f.profiles:
            ests = [(e, fair) for _, e, fair in p.reach[1:]] + [(p.win, 1.0 / f.entrants)]
            y = np.array([e.value / fair for e, fair in ests])
            lo = np.array([e.lo / fair for e, fair in ests])
            hi = np.array([e.hi / fair for e, fair in ests])
            pct = np.array([100 * e.value for e, _ in ests])
            fig.add_trace(go.Scatter(
                x=[esc(s) for s in steps], y=y, mode="lines+markers", name=esc(p.profile),
                legendgroup=p.profile, showlegend=p.profile not in shown,
                line=dict(color=colour[p.profile], width=2), marker=dict(size=8),
                error_y=dict(type="data", array=hi - y, arrayminus=y - lo, thickness=1.2,
                             width=3),
                customdata=np.column_stack([lo, hi, pct]),
                hovertemplate=(f"<b>{esc(p.profile)}</b> ({p.entrants} of {f.entrants})<br>"
                               "%{x}: %{y:.2f} × fair [%{customdata[0]:.2f}, "
                               "%{customdata[1]:.2f}]<br>chance %{customdata[2]:.2f}%"
                               "<extra></extra>")), row=1, col=col)
            shown.add(p.profile)
        fig.add_trace(go.Scatter(
            x=[esc(s) for s in steps], y=[1.0] * len(steps), mode="lines",
            line=dict(color=FAIR_COLOUR, dash="dash", width=1.5), name="fair share (luck alone)",
            legendgroup="fair", showlegend=col == 1,
            hovertemplate="fair share: 1 ×<extra></extra>"), row=1, col=col)
        fig.update_yaxes(rangemode="tozero", row=1, col=col)
    fig.update_yaxes(title_text="Chance to get there ÷ fair share", row=1, col=1)
    _layout(fig, "How far each profile goes: chance to reach each stage, over the fair share",
            480)
    caption = ("Lines: the chance that one entrant of the profile plays each stage after the "
               "first, and wins the title, divided by the fair share (the stage's players ÷ "
               "entrants; 1/entrants for the title), with 95% intervals (stages: ± 1.96 SE over "
               "tournaments, Wilson for a profile of one entrant; the title: Wilson). Above the "
               "dashed line at 1 the profile goes further than luck alone would take it.")
    return "fig-tournament-reach", fig, caption


def positions_figure(section: TournamentSection) -> tuple[str, go.Figure, str] | None:
    """First-stage advancement by position in round 1, per field and table size."""
    import plotly.graph_objects as go

    panels = [(f, p) for f in section.fields for p in f.positions]
    if not panels:
        return None
    fig = new_subplots(rows=1, cols=len(panels),
                       subplot_titles=[f"{esc(f.label)} · tables of {p.players}"
                                       for f, p in panels], horizontal_spacing=0.06)
    for col, (f, p) in enumerate(panels, start=1):
        x = np.arange(p.players)
        y = np.array([e.value for e in p.rates]) * 100
        lo = np.array([e.lo for e in p.rates]) * 100
        hi = np.array([e.hi for e in p.rates]) * 100
        fig.add_trace(go.Scatter(
            x=x, y=y, mode="markers", name="advance rate", legendgroup="rate",
            showlegend=col == 1, marker=dict(size=9, color="#0072B2"),
            error_y=dict(type="data", array=hi - y, arrayminus=y - lo, thickness=1.5, width=3),
            customdata=np.column_stack([lo, hi, p.advanced]),
            hovertemplate=(f"position %{{x}}: %{{y:.2f}}% [%{{customdata[0]:.2f}}, "
                           f"%{{customdata[1]:.2f}}]<br>%{{customdata[2]:,}} of {p.n:,} "
                           "went on<extra></extra>")), row=1, col=col)
        fair = 100 * p.fair
        fig.add_trace(go.Scatter(
            x=[-0.5, p.players - 0.5], y=[fair, fair], mode="lines",
            line=dict(color=FAIR_COLOUR, dash="dash", width=1.5), name="fair rate",
            legendgroup="fair", showlegend=col == 1,
            hovertemplate=f"fair rate {fair:.2f}%<extra></extra>"), row=1, col=col)
        fig.update_xaxes(tickmode="array", tickvals=list(range(p.players)),
                         ticktext=["0 (first)"] + [str(i) for i in range(1, p.players)],
                         title_text="Position in round 1", row=1, col=col)
    fig.update_yaxes(title_text="Went on from the first stage (%)", row=1, col=1)
    _layout(fig, "Does the first-stage seat order decide who goes on?", 440)
    caption = ("Dots: the share of first-stage players at each position (0 acts first in the "
               "table's first round) who reached the next stage, with 95% Wilson intervals; "
               "dashed: the fair rate (advancers ÷ players at the table).")
    return "fig-tournament-positions", fig, caption


def tournament_figures(section: TournamentSection) -> list[tuple[str, go.Figure, str]]:
    figs = [wins_figure(section), reach_figure(section), positions_figure(section)]
    return [f for f in figs if f is not None]


# --- Display strings ---------------------------------------------------------------------------

def view(section: TournamentSection) -> dict[str, Any]:
    """The championship section's tables as display strings, for the template."""
    fields = []
    for f in section.fields:
        profiles = [{
            "profile": p.profile, "policy": p.policy, "entrants": p.entrants,
            "titles": fmt_number(p.titles), "win": fmt_estimate(p.win, "rate"),
            "edge": fmt_estimate(p.edge), "consolation": fmt_estimate(p.consolation_win, "rate"),
            "reach": [fmt_estimate(e, "rate") for _, e, _ in p.reach[1:]],
        } for p in f.profiles]
        reach_fair = [fmt_pct(x, 2) for _, _, x in f.profiles[0].reach[1:]] if f.profiles else []
        stages = [{
            "bracket": s.bracket, "stage": s.stage_name, "tables": s.tables,
            "players": s.players, "games": fmt_number(s.games),
            "rounds": fmt_estimate(s.rounds), "turns": fmt_estimate(s.turns),
            "longest_turns": fmt_estimate(s.longest_turns),
            "longest_rounds": fmt_estimate(s.longest_rounds)} for s in f.stages]
        positions = [{
            "players": p.players, "n": fmt_number(p.n), "fair": fmt_pct(p.fair, 2),
            "rates": [fmt_estimate(e, "rate") for e in p.rates],
            "excess": fmt_estimate(p.excess, "diff_rate"), "test": fmt_test(p.test)}
            for p in f.positions]
        decided = [{
            "bracket": d.bracket, "stage": d.stage_name, "tables": fmt_number(d.tables),
            "by_rank": fmt_number(d.by_rank), "by_rounds_won": fmt_number(d.by_rounds_won),
            "by_hand_points": fmt_number(d.by_hand_points),
            "lot": fmt_estimate(d.lot, "rate")} for d in f.decided]
        lone = None
        if f.lone is not None:
            lone = {"profile": f.lone.profile, "against": f.lone.against,
                    "entrants": f.lone.field_entrants, "win": fmt_estimate(f.lone.win, "rate"),
                    "fair": fmt_pct(f.lone.fair, 2),
                    "difference": fmt_estimate(f.lone.difference, "diff_rate"),
                    "edge": fmt_estimate(f.lone.edge)}
        fields.append({
            "label": f.label, "description": f.description, "entrants": f.entrants,
            "table_size": f.table_size, "tournaments": fmt_number(f.tournaments),
            "fair": fmt_pct(1 / f.entrants, 2), "stage_names": list(f.stage_names[1:]),
            "reach_fair": reach_fair, "profiles": profiles, "stages": stages,
            "evening_turns": fmt_estimate(f.evening_turns),
            "evening_rounds": fmt_estimate(f.evening_rounds),
            "evening_p90": fmt_number(f.evening_p90_turns, 0),
            "evening_hours": fmt_estimate(f.evening_hours),
            "pace": f"{f.seconds_per_turn:g}", "hours_method": f.evening_hours.method,
            "main_turns": fmt_estimate(f.main_turns), "positions": positions,
            "decided": decided, "champion_lot": fmt_estimate(f.champion_by_lot, "rate"),
            "lone": lone})
    return {"fields": fields, "colour": profile_colours(section),
            "lone": [f for f in fields if f["lone"]], "answers": _answers(section)}


def _answers(section: TournamentSection) -> list[tuple[str, list[str]]]:
    """Per field: the strongest profile's chance to win and how long an evening lasts."""
    said = []
    for f in section.fields:
        if not f.profiles:
            continue
        p = f.profiles[0]
        who = (f"one {f.lone.profile} among {f.lone.field_entrants - 1} {f.lone.against}"
               if f.lone is not None and f.lone.profile == p.profile
               else f"an entrant of {p.profile}")
        said.append(f"In {f.label} ({f.entrants} entrants at tables of {f.table_size}, "
                    f"{f.tournaments:,} tournaments) {who} wins {fmt_said(p.win, 'rate')} of "
                    f"the championships, {fmt_said(p.edge)} times the fair "
                    f"{fmt_pct(1 / f.entrants)}. An evening lasts "
                    f"{fmt_said(f.evening_hours, unit='hours')} at {f.seconds_per_turn:g} s a "
                    "turn.")
    return [("Who wins the championship?", said)] if said else []
