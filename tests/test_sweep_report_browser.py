"""The sweep report in headless Chromium (as test_report_browser.py, whose browser driver this
reuses): every chart of a swept run's report renders offline, the sweep charts (heat maps of a
two-key grid, bands of a one-key grid) have traces, the console stays clean, and a screenshot
is saved. Skipped without Chromium."""

from __future__ import annotations

from test_report_browser import (
    CHART_STATE_JS,
    CHROMIUM,
    NEEDS_CHROMIUM,
    Browser,
    drawn_charts,
    finish_page,
)

from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

pytestmark = NEEDS_CHROMIUM

SWEPT = """\
name: browser sweep
seed: 8
games: 60
players: [2, 4]
variants:
  - name: official
sweep:
  - rules.uno_penalty: [0, 4]
    seats.behaviour.forget_uno: [0.0, 0.3]
  - rules.hand_size: [5, 7, 9]
    players: [2, 3, 4]
"""
STATS = ("turns_per_round", "rounds_per_game", "points_per_round", "first_player_share")
SWEEP_CHARTS = {f"fig-sweep-0-{s}" for s in STATS} | {"fig-sweep-1"}
# test_report_browser's chart state, counting heat maps (drawn as images in .hm) as traces too
STATE_JS = CHART_STATE_JS.replace("'.scatterlayer .trace, .barlayer .trace'",
                                  "'.scatterlayer .trace, .barlayer .trace, .heatmaplayer .hm'")



def test_sweep_report_renders(tmp_path_factory, tmp_path):
    folder = tmp_path_factory.mktemp("sweep-browser")
    db = folder / "s.duckdb"
    outcome = simulate(scenario=load_text(SWEPT, "swept.yaml"), db=db)
    report = build_report(db_path=db, run_ids=[outcome.run_id],
                          out=folder / "reports" / "swept.html")
    browser = Browser(CHROMIUM)
    try:
        browser.open_page()
        by_id = drawn_charts(browser, report, STATE_JS)
        assert SWEEP_CHARTS <= set(by_id)
        # a heat map per player count; the one-key grid: a band and a line per statistic and
        # player count (3 player counts x 4 statistics x 2 traces)
        assert STATE_JS != CHART_STATE_JS
        assert by_id["fig-sweep-0-turns_per_round"]["traces"] == 2
        assert by_id["fig-sweep-1"]["traces"] == 24
        finish_page(browser, tmp_path / "sweep.png")
    finally:
        browser.close()
