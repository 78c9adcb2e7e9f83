"""The design section of a report in headless Chromium (conftest's ``browser``): the section
renders offline with every chart drawn and the console clean; the Pareto chart has a point
and an interval for every candidate, the Pareto set's points among them; each goal has a
panel per searched setting with the constraint's band; the Pareto table shows the summary's
numbers (``design.summary.pareto_rows``); one objective ranks the candidates and three draw
each pair. Screenshots are saved. Skipped without Chromium."""

from __future__ import annotations

import math
import re

import pytest

from unostats.design.summary import design_results, pareto_rows
from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

DESIGN = """\
name: NAME
seed: 5
variants:
  - name: house
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
    rules.seven_zero: [false, true]
    rules.stack_draw_two: [none, sum, pass_on]
  goals:
    minutes_per_game: {between: [20, 30]}
GOALS  budget: {candidates: 8, games: 400}
"""
TWO = DESIGN.replace("NAME", "two objectives").replace(
    "GOALS", "    turns_per_round: minimize\n    lead_changes_per_game: maximize\n")
ONE = DESIGN.replace("NAME", "one objective").replace("GOALS", "    turns_per_round: minimize\n")
THREE = DESIGN.replace("NAME", "three objectives").replace(
    "GOALS", "    turns_per_round: minimize\n    lead_changes_per_game: maximize\n"
             "    points_per_round: maximize\n")
SCALE = {"first_player_excess": 100.0, "comeback_share": 100.0}

CHART_DATA_JS = """(() => { const d = document.getElementById(ID);
  return {traces: d.data.map(t => ({name: t.name, x: t.x, y: t.y,
                                     ex: t.error_x ? t.error_x.array.length : 0,
                                     ey: t.error_y ? t.error_y.array.length : 0})),
          errorbars: d.querySelectorAll('.errorbar').length,
          points: d.querySelectorAll('.scatterlayer .point').length,
          xtitles: Array.from(d.querySelectorAll('text[class^="x"][class$="title"]'))
            .map(t => t.textContent),
          ytitles: Array.from(d.querySelectorAll('text[class^="y"][class$="title"]'))
            .map(t => t.textContent),
          xticks: Array.from(d.querySelectorAll('.xaxislayer-above text'))
            .map(t => t.textContent),
          shapes: (d.layout.shapes || []).map(s => ({type: s.type, y0: s.y0, y1: s.y1}))};
})()"""

TABLE_JS = """Array.from(document.querySelectorAll('#ID tbody tr')).map(
    r => Array.from(r.querySelectorAll('td')).map(td => td.textContent.trim()))"""


def _chart(browser, div_id: str) -> dict:
    return browser.evaluate(CHART_DATA_JS.replace("ID", repr(div_id)))


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[-+]?[\d,]*\.?\d+", text)]


def _decimals(text: str) -> int:
    first = re.search(r"[-+]?[\d,]*\.?\d+", text).group()
    return len(first.split(".")[1]) if "." in first else 0


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The three designs in one file: (db, {name: run id})."""
    folder = tmp_path_factory.mktemp("design-browser")
    db = folder / "d.duckdb"
    runs = {}
    for name, text in (("two", TWO), ("one", ONE), ("three", THREE)):
        outcome = simulate(scenario=load_text(text, f"{name}.yaml"), db=db)
        assert outcome.status == "complete"
        runs[name] = outcome.run_id
    return db, runs


def test_two_objectives_draw_the_pareto_chart_and_the_summary_s_table(browser, played,
                                                                     tmp_path):
    db, runs = played
    result, = design_results(db=db, run_ids=[runs["two"]])
    report = build_report(db_path=db, run_ids=[runs["two"]], out=tmp_path / "two.html")
    charts = browser.drawn_charts(report)
    # the objectives in their canonical order (by name), then the constraint
    goals = ["lead_changes_per_game", "turns_per_round", "minutes_per_game"]
    assert {i for i in charts if i.startswith("fig-design")} == \
        {"fig-design-1-pareto"} | {f"fig-design-1-{g}" for g in goals}
    assert browser.evaluate("document.querySelector('nav.toc a[href=\"#design\"]') !== null")

    # the Pareto chart: every candidate a point with both intervals, the set's among them
    pareto = _chart(browser, "fig-design-1-pareto")
    n = len(result.candidates)
    assert pareto["points"] == pareto["errorbars"] == n
    by_name = {t["name"]: t for t in pareto["traces"]}
    assert len(by_name["in the Pareto set"]["x"]) == len(result.pareto) > 0
    assert sum(t["ex"] for t in pareto["traces"]) == sum(t["ey"] for t in pareto["traces"]) == n
    best = sorted(zip(by_name["in the Pareto set"]["x"], by_name["in the Pareto set"]["y"]))
    want = sorted((c.estimates["lead_changes_per_game"].value,
                   c.estimates["turns_per_round"].value) for c in result.pareto)
    assert [x for pair in best for x in pair] == pytest.approx([x for p in want for x in p])
    assert pareto["xtitles"] == ["Lead changes per game - higher is better"]
    assert pareto["ytitles"] == ["Turns per round - lower is better"]

    # a goal against each searched setting: a panel per key, ticked at its values, the
    # constraint's band on each panel and its bounds dashed
    minutes = _chart(browser, "fig-design-1-minutes_per_game")
    assert minutes["xticks"] == ["5", "6", "7", "8", "9", "false", "true", "none", "sum",
                                 "pass_on"]
    assert minutes["points"] == 3 * n
    rects = [s for s in minutes["shapes"] if s["type"] == "rect"]
    assert len(rects) == 3 and all((s["y0"], s["y1"]) == (20, 30) for s in rects)
    assert sorted(s["y0"] for s in minutes["shapes"] if s["type"] == "line") == [20] * 3 + [30] * 3
    assert _chart(browser, "fig-design-1-turns_per_round")["shapes"] == []  # an objective

    # the Pareto table: the summary's rows, number for number
    columns, rows = pareto_rows(result)
    shown = browser.evaluate(TABLE_JS.replace("ID", "table-design-pareto-1"))
    assert len(shown) == len(rows) == len(result.pareto)
    names = [c.name for c in result.candidates]
    keys = [k.key for k in result.scenario.design.search]
    for cells in shown:
        row = rows[[r[1] for r in rows].index(names[int(cells[0].lstrip("#")) - 1])]
        record = dict(zip(columns, row))
        assert cells[1:1 + len(keys)] == [str(record[k]).lower() for k in keys]
        assert int(cells[1 + len(keys)].replace(",", "")) == record["games"]
        for text, goal in zip(cells[2 + len(keys):], goals):
            value, lo, hi = _numbers(text)
            half = 0.5 * 10 ** -_decimals(text) + 1e-9
            scale = SCALE.get(goal, 1.0)
            for got, want in ((value, record[goal]), (lo, record[f"{goal}_lo"]),
                              (hi, record[f"{goal}_hi"])):
                assert math.isclose(got, want * scale, abs_tol=half), (goal, text)
    # every candidate, folded: in or out, and why
    every = browser.evaluate(TABLE_JS.replace("ID", "table-design-candidates-1"))
    assert [r[0] for r in every] == [f"#{i}" for i in range(1, n + 1)]
    assert sum(r[-1].startswith("in the Pareto set") for r in every) == len(result.pareto)
    browser.finish_page(tmp_path / "design-two.png")


def test_one_objective_ranks_the_candidates_and_three_draw_each_pair(browser, played,
                                                                     tmp_path):
    db, runs = played
    one, three = design_results(db=db, run_ids=[runs["one"], runs["three"]])
    report = build_report(db_path=db, run_ids=[runs["one"], runs["three"]],
                          out=tmp_path / "two-runs.html")
    browser.drawn_charts(report)
    ranked = _chart(browser, "fig-design-1-pareto")
    ys = [y for t in ranked["traces"] for y in t["y"]]
    xs = [x for t in ranked["traces"] for x in t["x"]]
    assert len(ys) == len(one.candidates) and all(y.startswith("#") for y in ys)
    order = [y for _, y in sorted(zip(xs, ys))]  # the fewest turns per round first
    layout = browser.evaluate("document.getElementById('fig-design-1-pareto').layout"
                              ".yaxis.categoryarray")
    assert layout[::-1] == order  # drawn best at the top
    assert ranked["xtitles"] == ["Turns per round - lower is better"]

    pairs = _chart(browser, "fig-design-2-pareto")
    assert len(pairs["xtitles"]) == 3  # turns x lead changes, turns x points, lead x points
    assert pairs["points"] == pairs["errorbars"] == 3 * len(three.candidates)
    # two runs: the answers name each run
    said = browser.evaluate("Array.from(document.querySelectorAll('#answers p'))"
                            ".map(p => p.textContent)")
    assert any(s.startswith(f"In design run {runs['one']} (one objective), of 8") for s in said)
    assert any(s.startswith(f"In design run {runs['three']} (three objectives), of 8")
               for s in said)
    browser.finish_page(tmp_path / "design-one-three.png")


def test_on_a_phone_the_section_fits_and_no_legend_covers_a_chart(browser, played, tmp_path):
    """420 px wide: the page never scrolls sideways (the table scrolls in its box), and each
    design chart's legend, hung under its title, ends above its panels once the page has
    given it the room it needs."""
    db, runs = played
    report = build_report(db_path=db, run_ids=[runs["two"]], out=tmp_path / "phone.html")
    browser.call("Emulation.setDeviceMetricsOverride", {
        "width": 420, "height": 900, "deviceScaleFactor": 1, "mobile": True})
    try:
        browser.drawn_charts(report)
        browser.pump(2.0)
        assert browser.evaluate("document.scrollingElement.scrollWidth") <= 420
        clear = browser.evaluate("""Array.from(document.querySelectorAll(
            '.plotly-graph-div[id^="fig-design"]')).map(d => {
              const legend = d.querySelector('.legend').getBoundingClientRect();
              const top = Math.min(...Array.from(d.querySelectorAll('.draglayer .nsewdrag'))
                                   .map(p => p.getBoundingClientRect().top));
              return [d.id, legend.bottom <= top + 1];
            })""")
        assert len(clear) == 4 and all(ok for _, ok in clear), clear
        browser.finish_page(tmp_path / "design-phone.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")
