"""The skill-and-luck section in headless Chromium (conftest's ``browser``): the edges chart of
a mixed table renders offline with its four bar traces, the console stays clean, and a
screenshot of the section is saved. Skipped without Chromium."""

from __future__ import annotations

from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

def test_skill_section_renders(browser, mixed_table_yaml, tmp_path_factory, tmp_path):
    folder = tmp_path_factory.mktemp("skill-browser")
    db = folder / "s.duckdb"
    outcome = simulate(scenario=load_text(mixed_table_yaml.replace("games: 300", "games: 80"),
                                          "mixed.yaml"), db=db)
    report = build_report(db_path=db, run_ids=[outcome.run_id],
                          out=folder / "reports" / "mixed.html")
    charts = browser.drawn_charts(report)
    assert charts["fig-skill"]["traces"] == 4  # best policy and first player, games and rounds
    browser.finish_page(tmp_path / "skill.png")
    top = browser.evaluate("document.getElementById('skill').getBoundingClientRect().top "
                           "+ window.scrollY")
    browser.screenshot(tmp_path / "skill-section.png", clip=(int(top), 1300))
