"""The championship report in headless Chromium (conftest's ``browser``): every chart of a
tournament run's report renders offline, the championship charts have traces, the console stays
clean, and a screenshot is saved. Skipped without Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

CUP = """\
name: browser cup
seed: 5
games: 8
variants:
  - name: tour
    rules: {first_card: number_only, wild_draw_four: free, target_score: 200}
tournament:
  entrants: 12
  consolation: true
  stages:
    - {name: group, advance: 2}
    - {name: final}
  profiles:
    careless: {policy: random, behaviour: {forget_uno: 0.5}}
    steady: {policy: wild_last}
  fields:
    - name: mixed
      mix: {careless: 6, steady: 6}
    - name: lone
      mix: {steady: 1, careless: rest}
"""
TOURNAMENT_CHARTS = {"fig-tournament-wins", "fig-tournament-reach", "fig-tournament-positions"}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cup-browser")
    db = folder / "cup.duckdb"
    outcome = simulate(scenario=load_text(CUP, "cup.yaml"), db=db)
    return build_report(db_path=db, run_ids=[outcome.run_id],
                        out=folder / "reports" / "cup.html")


def test_championship_report_renders(browser, report, tmp_path):
    charts = list(browser.drawn_charts(report).values())
    ids = {c["id"] for c in charts}
    assert TOURNAMENT_CHARTS <= ids
    assert all(c["title"].strip() for c in charts if c["id"] in TOURNAMENT_CHARTS)
    top = browser.evaluate(
        "document.getElementById('championship').getBoundingClientRect().top + scrollY")
    assert top > 0
    browser.finish_page(tmp_path / "championship.png")
