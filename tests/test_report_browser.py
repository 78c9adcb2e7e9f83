"""Reports in a real headless browser: Chromium opens a report from disk with the network cut
off; every chart must render (each plotly div holds an svg.main-svg with its traces), the
console must stay free of errors (and no script may open a dialog), no request may leave the
file, and a full-page screenshot is saved under pytest's tmp path (also copied to
$UNOSTATS_SCREENSHOTS when set) for people to look at.

The ``browser`` fixture (conftest.py, tests/chromium.py) skips, with the reason, when Chromium is
not installed; CI (.ci/run) installs it, so there it runs.
"""

from __future__ import annotations

import pytest

from unostats.report.build import build_index, build_report


@pytest.fixture(scope="module")
def reports(report_runs, tmp_path_factory):
    """The compare and ablation reports of the report tests' database, and their index."""
    db, runs = report_runs
    folder = tmp_path_factory.mktemp("browser")
    compare = build_report(db_path=db, run_ids=[runs["compare"]], out=folder / "reports" /
                           "compare.html")
    ablation = build_report(db_path=db, run_ids=[runs["ablation"]], out=folder / "reports" /
                            "ablation.html")
    return {"compare": compare, "ablation": ablation, "index": build_index(folder / "reports")}


@pytest.mark.parametrize("name", ["compare", "ablation"])
def test_report_renders_offline_without_console_errors(browser, reports, name, tmp_path):
    path = reports[name]
    charts = list(browser.drawn_charts(path).values())
    assert len(charts) >= 13
    assert all(c["width"] > 600 and c["height"] > 150 for c in charts), charts
    assert all(c["title"].strip() for c in charts), [c["id"] for c in charts if not c["title"]]
    if name == "ablation":
        # the rule-effect chart, and the ablation variants listed in the overlay charts'
        # legends but drawn only on demand (a legend click)
        assert "fig-ablation" in {c["id"] for c in charts}
        legend = browser.evaluate("""(() => {
          const d = document.getElementById('fig-round-turns-hist');
          return [d.querySelectorAll('.legend .traces').length,
                  d.querySelectorAll('.scatterlayer .trace').length];
        })()""")
        assert legend == [3, 1], legend
    assert browser.evaluate("typeof Plotly") == "object"

    shot = browser.finish_page(tmp_path / f"{name}.png")
    print(f"screenshot: {shot}")


def test_index_links_open(browser, reports):
    index = reports["index"]
    browser.navigate(index.resolve().as_uri())
    links = browser.evaluate(
        "Array.from(document.querySelectorAll('#reports a')).map(a => a.getAttribute('href'))")
    assert sorted(links) == ["ablation.html", "compare.html"]
    assert browser.console_problems() == []
    browser.navigate((index.parent / links[0]).resolve().as_uri())
    assert browser.evaluate("document.querySelectorAll('.plotly-graph-div').length") >= 13


def test_scenario_download_link_holds_the_file(browser, reports):
    browser.navigate(reports["compare"].resolve().as_uri())
    text = browser.evaluate("""
      (async () => {
        const a = document.querySelector('a[id^="download-scenario-"]');
        const r = await fetch(a.href);
        return [a.getAttribute('download'), await r.text()];
      })()""")
    name, body = text
    assert name.endswith(".yaml")
    assert body.startswith("name: ") and "variants:" in body
