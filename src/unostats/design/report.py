"""The report's design section (the design kind's ``kinds.ReportSection``): a design run's
candidates as the summary reads them (``summary.design_result``) -> the answer in words (the
Pareto set, the best on each objective, what the search cost), the Pareto set as a table with
95% intervals, the Pareto chart (two objectives: one against the other; one: the candidates
ranked; more: each pair) and each goal against each searched setting, the constraints' bounds
drawn as bands. Reports of runs without a design have no such section (``load_designs``
returns None).

A candidate is one of: in the Pareto set; meets every constraint but is beaten on every
objective by another that does; misses a constraint (its interval not inside the bounds);
stopped early (out of contention at a look, ``spec.plan.out_of_contention``); not finished
(short of its next look in an interrupted run). Candidates are numbered in the order they were
proposed (#1, #2 ...).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from ..base.format import esc, fmt_estimate, fmt_number
from ..base.plotting import new_subplots
from ..stats import Estimate
from .spec.goals import GOALS
from .spec.plan import Aim, out_of_contention
from .summary import Candidate, DesignResult, design_result


@dataclass(frozen=True)
class Shown:
    """How the report shows a goal: ``kind`` as ``fmt_estimate`` takes it (a share in %, a
    share's excess in percentage points), the unit after a value in a sentence, an axis title
    (in words, with its unit), and how "more" reads ("the most lead changes per game")."""

    kind: str
    unit: str
    axis: str
    more: str = "the most"
    less: str = "the fewest"

    @property
    def scale(self) -> float:
        return 100.0 if self.kind in ("rate", "diff_rate") else 1.0


# An axis title breaks its line where a chart's panel is too short for it ("<br>"); "{pace}" is
# the scenario's seconds per turn.
SHOWN: dict[str, Shown] = {
    "minutes_per_game": Shown("mean", "minutes", "Minutes per game<br>(at {pace:g} s a turn)"),
    "turns_per_round": Shown("mean", "turns", "Turns per round"),
    "rounds_per_game": Shown("mean", "rounds", "Rounds per game"),
    "points_per_round": Shown("mean", "points", "Points scored<br>by a round's winner"),
    "lead_changes_per_game": Shown("mean", "lead changes", "Lead changes per game"),
    "comeback_share": Shown("rate", "of won games",
                            "Games won by a player<br>who once stood last (%)",
                            "the highest", "the lowest"),
    "hand_leader_changes_per_round": Shown(
        "mean", "changes", "Changes of the seat holding<br>fewest cards, per round"),
    "first_player_excess": Shown(
        "diff_rate", "percentage points",
        "First player's share of won rounds<br>minus the fair 1/players (percentage points)",
        "the highest", "the lowest"),
}

STATUSES = ("pareto", "beaten", "missed", "stopped", "unfinished")
STATUS_NAMES = {"pareto": "in the Pareto set",
                "beaten": "beaten (meets every constraint)",
                "missed": "misses a constraint",
                "stopped": "stopped early (out of contention)",
                "unfinished": "not finished (interrupted)"}
COLOURS = {"pareto": "#D55E00", "beaten": "#0072B2", "missed": "#8c8c8c", "stopped": "#b8b8b8",
           "unfinished": "#b8b8b8"}
SYMBOLS = {"pareto": "diamond", "beaten": "circle", "missed": "circle",
           "stopped": "circle-open", "unfinished": "square-open"}
BAND = "rgba(0,158,115,0.13)"  # a constraint's bounds
BOUND = "#009E73"
TABLE_CANDIDATES = 1000  # the most candidates the table of every candidate lists
RANKED = 50  # the most candidates the ranked chart of one objective draws (the best ones)
PANELS_PER_ROW = 5
TOP = 58 + 24 * 2 + 34  # px above the panels: the title, two rows of legend, the panels' titles


@dataclass(frozen=True)
class Judged:
    number: int  # 1, 2 ... in the order proposed
    candidate: Candidate
    status: str  # one of STATUSES
    why: str  # the status in words, with numbers
    unfinished: bool = False  # short of its next look, neither at the cap nor out (interrupted)


@dataclass(frozen=True)
class DesignRun:
    result: DesignResult
    judged: tuple[Judged, ...]

    @property
    def spec(self):
        return self.result.scenario.design

    @property
    def pareto(self) -> list[Judged]:
        return [j for j in self.judged if j.status == "pareto"]


@dataclass(frozen=True)
class DesignSection:
    runs: tuple[DesignRun, ...]


def load_designs(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]
                 ) -> DesignSection | None:
    designs = {r for r, in con.execute(
        "SELECT run_id FROM runs WHERE list_contains($runs, run_id) "
        "AND (scenario_json->>'design') IS NOT NULL", {"runs": list(run_ids)}).fetchall()}
    runs = [judge(design_result(con, r)) for r in run_ids if r in designs]
    runs = [r for r in runs if r.judged]
    return DesignSection(tuple(runs)) if runs else None


def judge(result: DesignResult) -> DesignRun:
    """Each candidate's status and why, as the driver judged it at its last look."""
    spec = result.scenario.design
    names = {c.name: i for i, c in enumerate(result.candidates, start=1)}
    pareto = {c.name for c in result.pareto}
    feasible = [c for c in result.candidates if _meets(spec, c)]
    out, before = [], {}
    for number, c in enumerate(result.candidates, start=1):
        reason = None if c.games >= spec.games else out_of_contention(spec, c.estimates,
                                                                      before)
        unfinished = c.games < spec.games and reason is None
        if c.games == 0:
            out.append(Judged(number, c, "unfinished", "no games stored yet", True))
            continue
        if c.name in pareto:
            status, why = "pareto", "meets every constraint; no other beats it on every objective"
            if unfinished:
                why += f" so far ({c.games:,} of {spec.games:,} games: not finished)"
        elif unfinished:
            status, why = "unfinished", f"{c.games:,} of {spec.games:,} games, not finished"
        elif c.games < spec.games:
            status = "stopped"
            why = f"stopped at {c.games:,} of {spec.games:,} games: " + (
                _missed(reason.aim, c.estimates[reason.aim.goal]) if reason.aim
                else f"beaten on every objective by #{names[reason.by]}")
        elif _meets(spec, c):
            by = next((o for o in feasible if o is not c and all(
                a.better(o.estimates[a.goal], c.estimates[a.goal]) for a in spec.objectives)),
                None)
            status = "beaten"
            why = "beaten on every objective" + ("" if by is None else f" by #{names[by.name]}")
        else:
            status = "missed"
            why = "; ".join(_missed(a, c.estimates[a.goal]) for a in spec.constraints
                            if not a.met(c.estimates[a.goal]))
        out.append(Judged(number, c, status, why, unfinished))
        before[c.name] = c.estimates
    return DesignRun(result, tuple(out))


def _meets(spec, c: Candidate) -> bool:
    return all(a.met(c.estimates[a.goal]) for a in spec.constraints)


def _missed(aim: Aim, e: Estimate) -> str:
    return f"{_said(aim.goal, e)}, not inside {_bounds(aim)}"


def _said(goal: str, e: Estimate) -> str:
    """A goal in a sentence: "minutes per game 26.26 [25.87, 26.65]"."""
    f = fmt_estimate(e, SHOWN[goal].kind)
    return f"{GOALS[goal].title} {f['value']} {f['interval']}"


def _bounds(aim: Aim) -> str:
    """A constraint's bounds in the goal's units: "between 20 and 30 minutes", "at most +1
    percentage points"."""
    s = SHOWN[aim.goal]
    signed = "+" if s.kind == "diff_rate" else ""

    def num(x: float) -> str:
        return f"{x * s.scale:{signed}g}"

    unit = {"rate": "%", "diff_rate": " percentage points"}.get(s.kind, f" {s.unit}")
    if aim.how == "between":
        return f"between {num(aim.lo)} and {num(aim.hi)}{unit}"
    return f"at most {num(aim.hi)}{unit}" if aim.how == "at_most" \
        else f"at least {num(aim.lo)}{unit}"


def _settings(run: DesignRun, c: Candidate) -> str:
    return ", ".join(f"{k.short}={_value(c.settings[k.key])}" for k in run.spec.search)


def _value(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _finite(e: Estimate) -> bool:
    return all(math.isfinite(x) for x in (e.value, e.lo, e.hi))


# --- Figures -----------------------------------------------------------------------------------

def _goal_text(j: Judged, goals: Sequence[str]) -> str:
    """A candidate's hover text: its number, settings, games, status and goals."""
    c = j.candidate
    lines = [f"<b>#{j.number}</b> {esc(c.name)}", f"{c.games:,} games; {esc(j.why)}"]
    for g in goals:
        e = fmt_estimate(c.estimates[g], SHOWN[g].kind)
        lines.append(f"{esc(GOALS[g].title)}: {e['value']} {e['interval']}")
    return "<br>".join(lines)


def _points(fig: go.Figure, members: Sequence[Judged], status: str, x: Sequence[float],
            y: Sequence[float], *, error_x=None, error_y=None, show: bool, goals: Sequence[str],
            row: int, col: int, labels: bool = False) -> None:
    import plotly.graph_objects as go

    pareto = status == "pareto"
    fig.add_trace(go.Scatter(
        x=list(x), y=list(y), mode="markers+text" if labels and pareto else "markers",
        text=[f"#{j.number}" for j in members] if labels and pareto else None,
        textposition="top right", textfont={"color": COLOURS[status], "size": 12},
        name=STATUS_NAMES[status], legendgroup=status, showlegend=show,
        marker={"color": COLOURS[status], "symbol": SYMBOLS[status],
                "size": 11 if pareto else 8,
                "line": {"width": 1.5 if status == "stopped" else 0.5,
                         "color": COLOURS[status] if status == "stopped" else "white"}},
        error_x=error_x, error_y=error_y,
        hovertext=[_goal_text(j, goals) for j in members], hoverinfo="text"),
        row=row, col=col)


def _bars(members: Sequence[Judged], goal: str, status: str) -> dict[str, Any]:
    s = SHOWN[goal]
    es = [j.candidate.estimates[goal] for j in members]
    return {"type": "data", "symmetric": False, "thickness": 1.3, "width": 0,
            "color": COLOURS[status],
            "array": [(e.hi - e.value) * s.scale for e in es],
            "arrayminus": [(e.value - e.lo) * s.scale for e in es]}


def _axis_title(run: DesignRun, aim: Aim, one_line: bool = False) -> str:
    better = {"maximize": " - higher is better", "minimize": " - lower is better"}
    text = SHOWN[aim.goal].axis.format(pace=run.result.scenario.seconds_per_turn)
    return (text.replace("<br>", " ") if one_line else text) + better.get(aim.how, "")


def pareto_figure(run: DesignRun, index: int) -> tuple[str, go.Figure, str]:
    """Two objectives: one against the other; three or more: each pair; one: the candidates
    ranked on it. Every candidate with its 95% intervals, the Pareto set highlighted and
    numbered, the others greyed where they miss a constraint or stopped early."""
    spec = run.spec
    objectives = spec.objectives
    goals = [a.goal for a in (*objectives, *spec.constraints)]
    if len(objectives) == 1:
        return _ranked(run, index, objectives[0], goals)
    pairs = list(itertools.combinations(objectives, 2))
    cols = min(len(pairs), 3)
    rows = math.ceil(len(pairs) / cols)
    fig = new_subplots(rows=rows, cols=cols, horizontal_spacing=0.09,
                       vertical_spacing=80 / (420 * rows + 80 * (rows - 1)),
                       subplot_titles=[f"{GOALS[b.goal].title} against {GOALS[a.goal].title}"
                                       for a, b in pairs] if len(pairs) > 1 else None)
    for p, (ax, ay) in enumerate(pairs):
        row, col = p // cols + 1, p % cols + 1
        sx, sy = SHOWN[ax.goal], SHOWN[ay.goal]
        for status in STATUSES:
            members = [j for j in run.judged if j.status == status
                       and _finite(j.candidate.estimates[ax.goal])
                       and _finite(j.candidate.estimates[ay.goal])]
            if not members:
                continue
            _points(fig, members, status,
                    [j.candidate.estimates[ax.goal].value * sx.scale for j in members],
                    [j.candidate.estimates[ay.goal].value * sy.scale for j in members],
                    error_x=_bars(members, ax.goal, status),
                    error_y=_bars(members, ay.goal, status), show=p == 0, goals=goals,
                    row=row, col=col, labels=True)
        fig.update_xaxes(title_text=_axis_title(run, ax, one_line=True), row=row, col=col)
        fig.update_yaxes(title_text=_axis_title(run, ay), row=row, col=col)
    what = _and([GOALS[a.goal].title for a in objectives])
    _layout(fig, f"The Pareto chart: {what}", 420 * rows + 80 * (rows - 1))
    caption = (f"Every candidate's {what}, each with its 95% interval in both directions "
               "(hover a point for its settings and every goal). Orange diamonds, numbered: "
               "the Pareto set (every constraint met, and no other candidate beats them on "
               "every objective with its interval wholly better); blue: meet every constraint "
               "but are beaten; grey: miss a constraint; open grey: stopped early, out of "
               "contention at a look (fewer games, wider intervals)" + _unfinished(run) + ".")
    return f"fig-design-{index}-pareto", fig, caption


def _ranked(run: DesignRun, index: int, aim: Aim, goals: Sequence[str]
            ) -> tuple[str, go.Figure, str]:
    s = SHOWN[aim.goal]
    played = [j for j in run.judged if _finite(j.candidate.estimates[aim.goal])]
    best_first = sorted(played, key=lambda j: j.candidate.estimates[aim.goal].value,
                        reverse=aim.how == "maximize")
    shown = best_first[:RANKED]
    order = [f"#{j.number}" for j in reversed(shown)]  # plotly draws the first row at the bottom
    fig = new_subplots(rows=1, cols=1)
    for status in STATUSES:
        members = [j for j in shown if j.status == status]
        if members:
            _points(fig, members, status,
                    [j.candidate.estimates[aim.goal].value * s.scale for j in members],
                    [f"#{j.number}" for j in members],
                    error_x=_bars(members, aim.goal, status), show=True, goals=goals,
                    row=1, col=1)
    fig.update_xaxes(title_text=_axis_title(run, aim, one_line=True))
    fig.update_yaxes(title_text="candidate (in the order proposed)", type="category",
                     categoryorder="array", categoryarray=order)
    _layout(fig, f"The Pareto chart: the candidates ranked on {GOALS[aim.goal].title}",
            40 + 22 * len(shown))
    left = (f" The best {len(shown)} of {len(played)} candidates are drawn; the table below "
            "lists every one." if len(shown) < len(played) else "")
    caption = (f"Each candidate's {GOALS[aim.goal].title} with its 95% interval, the best at "
               "the top (hover a point for its settings and every goal). Orange diamonds: the "
               "Pareto set (every constraint met, and no other candidate's interval wholly "
               "better); blue: meet every constraint but are beaten; grey: miss a constraint; "
               "open grey: stopped early, out of contention at a look" + _unfinished(run) + "."
               + left)
    return f"fig-design-{index}-pareto", fig, caption


def goal_figure(run: DesignRun, index: int, aim: Aim) -> tuple[str, go.Figure, str]:
    """One goal against each searched setting, a panel per setting: every candidate at its
    value of that setting (spread sideways in the order proposed) with its 95% interval, a
    constraint's bounds as a band."""
    spec = run.spec
    s = SHOWN[aim.goal]
    keys = spec.search
    rows = math.ceil(len(keys) / PANELS_PER_ROW)
    cols = math.ceil(len(keys) / rows)
    fig = new_subplots(rows=rows, cols=cols, shared_yaxes=True, horizontal_spacing=0.03,
                       vertical_spacing=90 / (300 * rows + 90 * (rows - 1)),
                       subplot_titles=[k.short for k in keys])
    played = [j for j in run.judged if _finite(j.candidate.estimates[aim.goal])]
    goals = [a.goal for a in (*spec.objectives, *spec.constraints)]
    for i, key in enumerate(keys):
        row, col = i // cols + 1, i % cols + 1
        at: dict[int, list[Judged]] = {}
        for j in played:
            at.setdefault(key.values.index(j.candidate.settings[key.key]), []).append(j)
        x_of = {}
        for v, members in at.items():
            for k, j in enumerate(members):  # spread within +-0.3 of the value's position
                x_of[j.number] = v + (0 if len(members) == 1
                                      else -0.3 + 0.6 * k / (len(members) - 1))
        for status in STATUSES:
            members = [j for j in played if j.status == status]
            if members:
                _points(fig, members, status, [x_of[j.number] for j in members],
                        [j.candidate.estimates[aim.goal].value * s.scale for j in members],
                        error_y=_bars(members, aim.goal, status), show=i == 0, goals=goals,
                        row=row, col=col)
        fig.update_xaxes(tickmode="array", tickvals=list(range(len(key.values))),
                         ticktext=[_value(v) for v in key.values],
                         range=[-0.6, len(key.values) - 0.4], zeroline=False, row=row,
                         col=col)
    if not aim.objective:
        _band(fig, aim, played)
    fig.update_yaxes(title_text=_axis_title(run, aim), col=1)
    _layout(fig, f"{GOALS[aim.goal].title.capitalize()} against each searched setting",
            300 * rows + 90 * (rows - 1))
    bounds = ("" if aim.objective else f" The green band: the constraint, {_bounds(aim)}; a "
              "candidate meets it when its whole interval lies inside.")
    caption = (f"{GOALS[aim.goal].title.capitalize()} ({GOALS[aim.goal].name}) of every "
               f"candidate with its 95% interval ({_method(run, aim.goal)}), one panel per "
               "searched setting: each candidate sits at its value of that setting, spread "
               "sideways in the order proposed, so a panel shows how the goal moves with that "
               "setting across the other settings tried." + bounds + " Colours as in the "
               "Pareto chart.")
    return f"fig-design-{index}-{aim.goal}", fig, caption


def _band(fig: go.Figure, aim: Aim, played: Sequence[Judged]) -> None:
    """The constraint's bounds as a band on every panel, the axis range fitted to the band and
    the intervals (a one-sided bound's band reaches the edge)."""
    s = SHOWN[aim.goal]
    es = [j.candidate.estimates[aim.goal] for j in played]
    finite = [x for x in (aim.lo, aim.hi) if math.isfinite(x)]
    lo = min([e.lo for e in es] + finite) * s.scale
    hi = max([e.hi for e in es] + finite) * s.scale
    pad = 0.06 * (hi - lo or 1.0)
    lo, hi = lo - pad, hi + pad
    y0 = aim.lo * s.scale if math.isfinite(aim.lo) else lo
    y1 = aim.hi * s.scale if math.isfinite(aim.hi) else hi
    fig.add_hrect(y0=y0, y1=y1, fillcolor=BAND, line_width=0, layer="below", row="all",
                  col="all")
    for bound in finite:
        fig.add_hline(y=bound * s.scale, line={"color": BOUND, "dash": "dash", "width": 1.2},
                      row="all", col="all")
    fig.update_yaxes(range=[lo, hi])


def _unfinished(run: DesignRun) -> str:
    return ("; open grey squares: not finished (the run was interrupted before their next look)"
            if any(j.unfinished for j in run.judged) else "")


def _layout(fig: go.Figure, title: str, plots: int) -> None:
    """The report's chart look: the title at the top left, the statuses' legend hung 50 px
    under it (the page gives it more room on a narrow screen), then ``plots`` px of panels
    (with their titles) and their axes."""
    height = TOP + plots + 80
    fig.update_layout(
        height=height, margin={"t": TOP, "l": 90, "r": 20, "b": 80}, hovermode="closest",
        title={"text": esc(title), "x": 0, "xanchor": "left", "xref": "container",
               "y": 1 - 16 / height, "yref": "container", "yanchor": "top", "pad": {"l": 12},
               "font": {"size": 17}},
        legend={"orientation": "h", "xref": "container", "x": 0, "xanchor": "left",
                "yref": "container", "y": 1 - 50 / height, "yanchor": "top"})


def _method(run: DesignRun, goal: str) -> str:
    c = next((c for c in run.result.candidates if c.games), None)
    return "" if c is None else c.estimates[goal].method


def design_figures(section: DesignSection) -> list[tuple[str, go.Figure, str]]:
    out = []
    for i, run in enumerate(section.runs, start=1):
        out.append(pareto_figure(run, i))
        out += [goal_figure(run, i, a) for a in (*run.spec.objectives, *run.spec.constraints)]
    return out


# --- The page's text -----------------------------------------------------------------------------

def _cells(run: DesignRun, j: Judged) -> dict[str, Any]:
    spec = run.spec
    return {"number": j.number, "status": STATUS_NAMES[j.status], "why": j.why,
            "colour": COLOURS[j.status], "games": fmt_number(j.candidate.games),
            "settings": [_value(j.candidate.settings[k.key]) for k in spec.search],
            "goals": [fmt_estimate(j.candidate.estimates[a.goal], SHOWN[a.goal].kind)
                      for a in (*spec.objectives, *spec.constraints)]}


def _goal_heads(run: DesignRun) -> list[dict[str, str]]:
    heads = []
    for a in (*run.spec.objectives, *run.spec.constraints):
        s = SHOWN[a.goal]
        unit = {"rate": ", %", "diff_rate": ", pp"}.get(s.kind, "")
        heads.append({"title": GOALS[a.goal].title, "unit": unit,
                      "aim": f"objective: {a.how}" if a.objective
                      else f"constraint: {_bounds(a)}",
                      "method": _method(run, a.goal)})
    return heads


def _best_first(run: DesignRun) -> list[Judged]:
    """The Pareto set, the best on the first objective first."""
    aim = run.spec.objectives[0]
    return sorted(run.pareto, key=lambda j: j.candidate.estimates[aim.goal].value,
                  reverse=aim.how == "maximize")


def _answers(run: DesignRun, many: bool) -> list[str]:
    """The Pareto set in words: how many candidates meet the constraints and are not beaten,
    the best of them on each objective with every goal, and what the search played."""
    result, spec = run.result, run.spec
    pareto = run.pareto
    tried = len(result.candidates)
    head = (f"In design run {result.run_id} ({result.scenario.name}), of" if many else "Of")
    searched = _and([k.short for k in spec.search])
    constraints = "; ".join(f"{GOALS[a.goal].title} {_bounds(a)}" for a in spec.constraints)
    feasible = sum(_meets(spec, j.candidate) for j in run.judged if j.candidate.games)
    goals = [a.goal for a in (*spec.objectives, *spec.constraints)]

    def every_goal(j: Judged) -> str:
        return "; ".join(_said(g, j.candidate.estimates[g]) for g in goals)

    settings = f"{_n(tried, 'candidate setting')} of {searched} ({spec.space_size():,} possible)"
    pareto_words = (f"{len(pareto):,} of them {'is' if len(pareto) == 1 else 'are'} not beaten "
                    "on every objective by another: the Pareto set.")
    out = []
    if constraints:
        out.append(f"{head} {settings}, {feasible:,} "
                   f"{'meets' if feasible == 1 else 'meet'} every constraint ({constraints}) "
                   f"with {'its' if feasible == 1 else 'their'} 95% interval inside, and "
                   + pareto_words)
    else:
        out.append(f"{head} {settings}, " + pareto_words.replace(" of them", "", 1))
    best: dict[int, list[Aim]] = {}  # the best of the Pareto set on each objective
    for aim in spec.objectives if pareto else ():
        pick = (max if aim.how == "maximize" else min)(
            pareto, key=lambda j: j.candidate.estimates[aim.goal].value)
        best.setdefault(pick.number, []).append(aim)
    for number, aims in best.items():
        pick = run.judged[number - 1]
        most = _and([f"{SHOWN[a.goal].more if a.how == 'maximize' else SHOWN[a.goal].less} "
                     f"{GOALS[a.goal].title}" for a in aims])
        text = (f"The one with {most} is #{number} ({_settings(run, pick.candidate)}): "
                f"{every_goal(pick)}.")
        for aim in aims:
            e = pick.candidate.estimates[aim.goal]
            level = [f"#{j.number}" for j in pareto if j is not pick
                     and j.candidate.estimates[aim.goal].hi >= e.lo
                     and j.candidate.estimates[aim.goal].lo <= e.hi]
            if level:
                text += (f" On {GOALS[aim.goal].title} {_and(level)} "
                         f"{'is' if len(level) == 1 else 'are'} as good within the noise "
                         "(the intervals overlap).")
        out.append(text)
    if not pareto:
        played = [j for j in run.judged if j.candidate.games]
        if played:
            near = max(played, key=lambda j: (sum(a.met(j.candidate.estimates[a.goal])
                                                  for a in spec.constraints),
                                              j.candidate.games))
            met = sum(a.met(near.candidate.estimates[a.goal]) for a in spec.constraints)
            out.append(f"None meets every constraint with its interval inside. #{near.number} "
                       f"({_settings(run, near.candidate)}) comes nearest, meeting {met} of "
                       f"{len(spec.constraints)}: {every_goal(near)}.")
    stopped = sum(j.status == "stopped" for j in run.judged)
    out.append(f"The search played {result.games:,} games of the {tried * spec.games:,} its "
               f"candidates could have had ({spec.games:,} each at most): "
               f"{_n(stopped, 'candidate')} stopped early, out of contention at a look.")
    unfinished = sum(j.unfinished for j in run.judged)
    if unfinished:
        out.append(f"The run is not finished ({_n(unfinished, 'candidate')} short of its next "
                   f"look): the answer may change as it goes on (unostats design --resume "
                   f"{result.run_id}).")
    return out


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}{'s' * (count != 1)}"


def view(section: DesignSection) -> dict[str, Any]:
    """The design section for the template: per run its Pareto set and every candidate as
    display strings, its figures' ids, and the answers."""
    runs, said = [], []
    many = len(section.runs) > 1
    for i, run in enumerate(section.runs, start=1):
        spec = run.spec
        rows = [_cells(run, j) for j in run.judged]
        runs.append({
            "index": i, "run_id": run.result.run_id, "name": run.result.scenario.name,
            "searched": [k.short for k in spec.search], "goals": _goal_heads(run),
            "pareto": [_cells(run, j) for j in _best_first(run)],
            "rows": rows[:TABLE_CANDIDATES], "candidates": len(rows),
            "players": spec.players, "cap": fmt_number(spec.games),
            "figures": [f"fig-design-{i}-pareto"] + [
                f"fig-design-{i}-{a.goal}" for a in (*spec.objectives, *spec.constraints)]})
        said += _answers(run, many)
    return {"runs": runs, "answers": [("Which house rules meet the goals?", said)]}
