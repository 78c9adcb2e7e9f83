"""The sweep report in headless Chromium (conftest's ``browser``): every chart of a swept run's
report renders offline, the sweep charts (heat maps of a two-key grid, a chart per statistic
of a one-key grid with both file variants on it) have traces, the console stays clean, and a
screenshot is saved. Skipped without Chromium."""

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
  - name: house
    rules: {uno_penalty: 4}
sweep:
  - rules.uno_penalty: [0, 4]
    seats.behaviour.forget_uno: [0.0, 0.3]
  - rules.hand_size: [5, 7, 9]
    players: [2, 3, 4]
"""
STATS = ("turns_per_round", "rounds_per_game", "points_per_round", "first_player_share")


def test_sweep_report_renders(browser, tmp_path_factory, tmp_path):
    folder = tmp_path_factory.mktemp("sweep-browser")
    db = folder / "s.duckdb"
    outcome = simulate(scenario=load_text(SWEPT, "swept.yaml"), db=db)
    report = build_report(db_path=db, run_ids=[outcome.run_id],
                          out=folder / "reports" / "swept.html")
    by_id = browser.drawn_charts(report, heat_maps=True)
    # the grids in the order stored: official's two-key grid (heat maps), official's hand
    # sizes (lines, house's hand sizes on the same charts), house's two-key grid
    heat = {f"fig-sweep-{i}-{s}" for i in (0, 2) for s in STATS}
    lines = {f"fig-sweep-1-{s}" for s in STATS}
    assert {i for i in by_id if i.startswith("fig-sweep")} == heat | lines
    # a heat map per player count; the one-key grids of both variants: a band and a line per
    # variant and player count (2 variants x 3 player counts x 2 traces), and on the first
    # player's share a fair line per player count
    assert by_id["fig-sweep-0-turns_per_round"]["traces"] == 2
    assert by_id["fig-sweep-1-turns_per_round"]["traces"] == 12
    assert by_id["fig-sweep-1-first_player_share"]["traces"] == 12 + 3
    ticks = browser.evaluate("""Array.from(document.querySelectorAll(
        '#fig-sweep-1-turns_per_round .xtick text')).map(t => t.textContent)""")
    assert ticks == ["5", "7", "9"]
    browser.finish_page(tmp_path / "sweep.png")
