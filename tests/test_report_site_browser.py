"""A site's reports (``unostats report --site``) in headless Chromium, on a 1,400 px page and a
420 px phone: the page never scrolls sideways (a wide table scrolls inside its own box), "The
answers" open the page with numbers and their intervals, every chart is drawn with plotly.js
loaded from the one file beside the reports, the charts' toolbar sits clear of their titles,
no legend runs into its plot, the console stays clean and nothing is asked of the
network. Screenshots of the top of each
page are kept under pytest's tmp path (and in $UNOSTATS_SCREENSHOTS when set). Skipped without
Chromium (conftest's ``browser``)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from unostats.report import render
from unostats.report.build import build_report
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

SWEPT = """\
name: site sweep
seed: 3
games: 40
players: [2, 4]
variants:
  - name: official
  - name: house
    rules: {uno_penalty: 4}
sweep:
  rules.hand_size: [5, 7, 9]
"""
WIDTHS = (1400, 420)
# Does any chart's toolbar overlap its title? (the toolbar shows on hover; its box is there)
TOOLBAR_OVER_TITLE_JS = """
Array.from(document.querySelectorAll('.plotly-graph-div')).filter(d => {
  const bar = d.querySelector('.modebar'), title = d.querySelector('.gtitle');
  if (!bar || !title) return false;
  const a = bar.getBoundingClientRect(), b = title.getBoundingClientRect();
  return a.width > 0 && b.width > 0 && a.left < b.right && b.left < a.right
         && a.top < b.bottom && b.top < a.bottom;
}).map(d => d.id)
"""

# Which charts' legend (hung from the top: report.figures) runs into the plot area below it?
LEGEND_OVER_PLOT_JS = """
Array.from(document.querySelectorAll('.plotly-graph-div')).filter(d => {
  if (!d.layout || !d.layout.legend || d.layout.legend.yref !== 'container') return false;
  const legend = d.querySelector('.legend'), plots = d.querySelectorAll('.draglayer .nsewdrag');
  if (!legend || !plots.length) return false;
  const top = Math.min(...Array.from(plots).map(p => p.getBoundingClientRect().top));
  return legend.getBoundingClientRect().bottom > top + 1;
}).map(d => d.id)
"""


@pytest.fixture(scope="module")
def site(report_runs, tmp_path_factory):
    db, runs = report_runs
    folder = tmp_path_factory.mktemp("site") / "reports"
    swept_db = folder.parent / "swept.duckdb"
    swept = simulate(scenario=load_text(SWEPT, "site-sweep.yaml"), db=swept_db)
    return {"compare": build_report(db_path=db, run_ids=[runs["compare"]], site=folder),
            "ablation": build_report(db_path=db, run_ids=[runs["ablation"]], site=folder),
            "sweep": build_report(db_path=swept_db, run_ids=[swept.run_id], site=folder)}


def _at_width(browser, width: int) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600})


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["compare", "ablation", "sweep"])
def test_site_report_fits_answers_first_and_draws_with_the_shared_plotly(
        browser, site, name, width, tmp_path):
    page = site[name]
    _at_width(browser, width)
    charts = browser.drawn_charts(page, heat_maps=True)
    assert len(charts) >= 13
    assert browser.evaluate("window.innerWidth") == width
    assert browser.evaluate("document.scrollingElement.scrollWidth") <= width
    # plotly.js from the one file beside the reports
    js = render.plotly_file_name()
    assert browser.evaluate("Array.from(document.scripts).filter(s => s.src)"
                            ".map(s => s.getAttribute('src'))") == [js]
    assert browser.evaluate("typeof Plotly") == "object"
    assert (page.parent / js).resolve().as_uri() in browser.requested_urls()
    # the answers first, with numbers and their intervals, in view at the top
    first = browser.evaluate("document.querySelector('main section').id")
    assert first == "answers"
    text = browser.evaluate("document.getElementById('answers').innerText")
    assert text.startswith("The answers")
    assert re.search(r"\d+(\.\d+)? turns \[\d+(\.\d+)?, \d+(\.\d+)?\]", text), text
    assert "games" in browser.evaluate("document.getElementById('sample-size').innerText")
    assert browser.evaluate(TOOLBAR_OVER_TITLE_JS) == []
    browser.pump(2.0)  # on a phone the page gives long legends their room after drawing
    assert browser.evaluate(LEGEND_OVER_PLOT_JS) == []
    assert browser.console_problems() == []
    leaving = [u for u in browser.requested_urls() if not u.startswith(("file:", "data:"))]
    assert leaving == []
    shot = browser.screenshot(tmp_path / f"{name}-{width}.png", width=width, clip=(0, 1600))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("UNOSTATS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)


@pytest.mark.parametrize("width", WIDTHS)
def test_site_index_fits_and_lists_the_reports(browser, site, width):
    _at_width(browser, width)
    index = site["compare"].parent / "index.html"
    browser.navigate(index.resolve().as_uri())
    assert browser.evaluate("document.scrollingElement.scrollWidth") <= width
    links = browser.evaluate(
        "Array.from(document.querySelectorAll('#reports a')).map(a => a.getAttribute('href'))")
    assert sorted(links) == sorted(p.name for p in site.values())
    assert browser.console_problems() == []
