"""The sweep report in headless Chromium (conftest's ``browser``): every chart of a swept run's
report renders offline, the sweep charts (heat maps of a two-key grid, bands of a one-key grid)
have traces, the console stays clean, and a screenshot is saved. Skipped without Chromium."""

from __future__ import annotations

from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

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


def test_sweep_report_renders(browser, tmp_path_factory, tmp_path):
    folder = tmp_path_factory.mktemp("sweep-browser")
    db = folder / "s.duckdb"
    outcome = simulate(scenario=load_text(SWEPT, "swept.yaml"), db=db)
    report = build_report(db_path=db, run_ids=[outcome.run_id],
                          out=folder / "reports" / "swept.html")
    by_id = browser.drawn_charts(report, heat_maps=True)
    assert SWEEP_CHARTS <= set(by_id)
    # a heat map per player count; the one-key grid: a band and a line per statistic and
    # player count (3 player counts x 4 statistics x 2 traces)
    assert by_id["fig-sweep-0-turns_per_round"]["traces"] == 2
    assert by_id["fig-sweep-1"]["traces"] == 24
    browser.finish_page(tmp_path / "sweep.png")
