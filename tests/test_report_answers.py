"""The report's answers and its site: the sentences of "The answers" carry the model's own
numbers and intervals (checked against the model, not against fixed text), the relative change
is the delta method's, the key table folds per variant when long, and ``--site`` writes reports
that load one shared plotly.js (never a file unostats did not write).

The database is conftest's ``report_runs`` (a three-variant comparison at 4 and 6 players and an
ablation), read only.
"""

from __future__ import annotations

import math
import re

import pytest

from unostats import stats, store
from unostats.base.format import fmt_said
from unostats.report import render
from unostats.report.answers import answers, relative, sample_sentence
from unostats.report.build import build_index, build_report
from unostats.report.model import load_model


def _model(report_runs, name):
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        return load_model(con, [runs[name]])
    finally:
        con.close()


@pytest.fixture(scope="module")
def compare_model(report_runs):
    return _model(report_runs, "compare")


@pytest.fixture(scope="module")
def ablation_model(report_runs):
    return _model(report_runs, "ablation")


def _said(model):
    return {a.question: " ".join(a.sentences) for a in answers(model)}


def test_the_answers_carry_the_model_numbers_with_their_intervals(compare_model):
    said = _said(compare_model)
    assert list(said) == ["How long does a round last?", "How long does a game last?",
                          "Does acting first help?"]
    turns = compare_model.measures["round_turns"].summaries
    rounds = compare_model.measures["game_rounds"].summaries
    for c in compare_model.cells:  # every variant at every table size, with its interval
        assert fmt_said(turns[c.key].mean, unit="turns") in said["How long does a round last?"]
        assert fmt_said(rounds[c.key].mean, unit="rounds") in said["How long does a game last?"]
        excess = compare_model.round_positions[c.key].excess
        assert fmt_said(excess, "diff_rate") in said["Does acting first help?"]
        assert f"Under {c.label} " in said["How long does a round last?"]
    # each other variant against the base, as a relative change with its interval
    base = {c.players: c.key for c in compare_model.cells if c.label == compare_model.base_label}
    other = next(c for c in compare_model.cells if c.label != compare_model.base_label)
    rel = relative(turns[other.key].mean, turns[base[other.players]].mean)
    text = said["How long does a round last?"]
    if rel.lo <= 0 <= rel.hi:
        assert f"about as long as under {compare_model.base_label} (" in text
        assert f"{100 * rel.value:+.{digits(rel)}f}% [" in text
    else:
        flip = 1 if rel.value > 0 else -1
        e = stats.Estimate(flip * rel.value, min(flip * rel.lo, flip * rel.hi),
                           max(flip * rel.lo, flip * rel.hi), None, "")
        word = "longer" if rel.value > 0 else "shorter"
        assert f"{fmt_said(e, 'rate')} {word} than under {compare_model.base_label}" in text


def digits(e):
    return stats._digits_for(100 * (e.hi - e.lo))


def test_the_sample_size_is_said_in_words(compare_model):
    text = sample_sentence(compare_model)
    assert f"{compare_model.games:,} games" in text and f"{compare_model.rounds:,} rounds" in text
    assert f"{len(compare_model.cells)} cells" in text and "95% intervals" in text


def test_an_ablation_names_the_rules_that_matter_most(ablation_model):
    said = _said(ablation_model)
    text = said["Which rules matter most?"]
    top = max(ablation_model.ablation, key=lambda a: abs(a.round_length.value))
    assert f"the {top.what} changes a round's length most: " \
           f"{fmt_said(top.round_length, 'diff_mean', 'turns')}" in text
    # the "without" variants are answered through their effects, not one sentence each
    for label in ablation_model.ablation_labels:
        assert f"Under {label} " not in said["How long does a round last?"]


def test_relative_change_is_the_delta_method_on_the_log_ratio():
    a = stats.mean_interval(110.0, 2.0, 100)
    b = stats.mean_interval(100.0, 1.0, 100)
    r = relative(a, b)
    s = math.hypot(2 / 110, 1 / 100)
    assert r.value == pytest.approx(0.1)
    assert r.lo == pytest.approx(1.1 * math.exp(-1.96 * s) - 1)
    assert r.hi == pytest.approx(1.1 * math.exp(1.96 * s) - 1)
    assert r.lo < r.value < r.hi
    assert relative(stats.mean_interval(0.0, 1.0, 10), b) is None


def test_the_page_opens_with_the_answers(report_runs, tmp_path):
    path, runs = report_runs
    page = build_report(db_path=path, run_ids=[runs["compare"]], out=tmp_path / "c.html",
                        index=False).read_text()
    sections = re.findall(r'<section id="([^"]+)">', page)
    assert sections[:2] == ["answers", "findings"]
    answers_html = page.split('<section id="answers">')[1].split("</section>")[0]
    assert "The answers" in answers_html and "How long does a round last?" in answers_html
    assert re.search(r"\d+\.\d+ turns \[\d+\.\d+, \d+\.\d+\]", answers_html)
    assert 'id="sample-size"' in answers_html
    assert "<details class=\"variant\"" not in page  # 6 rows: one table, not folded


def test_a_long_key_table_folds_per_variant(report_runs, tmp_path, monkeypatch):
    monkeypatch.setattr(render, "FOLD_ROWS", 2)
    path, runs = report_runs
    model = _model(report_runs, "compare")
    page = build_report(db_path=path, run_ids=[runs["compare"]], out=tmp_path / "c.html",
                        index=False).read_text()
    folds = re.findall(r'<details class="variant" id="findings-\d+"( open)?>', page)
    assert len(folds) == len(model.labels)
    assert folds.count(" open") == min(len(model.labels), render.OPEN_VARIANTS)
    for i, label in enumerate(model.labels, start=1):
        table = page.split(f'id="table-findings-{i}"')[1].split("</table>")[0]
        rows = [c for c in model.cells if c.label == label]
        assert table.count("<tr><td class=\"v\">") == len(rows)


def test_site_reports_share_one_plotly_file(report_runs, tmp_path):
    path, runs = report_runs
    site = tmp_path / "site"
    first = build_report(db_path=path, run_ids=[runs["compare"]], site=site)
    second = build_report(db_path=path, run_ids=[runs["ablation"]], site=site)
    assert first.parent == second.parent == site
    js = site / render.plotly_file_name()
    assert sorted(p.name for p in site.iterdir()) == sorted(
        [first.name, second.name, "index.html", js.name])
    for page in (first, second):
        text = page.read_text()
        assert f'<script src="{js.name}"></script>' in text
        assert page.stat().st_size < js.stat().st_size / 3  # plotly.js is not inside
    assert render.is_plotly_js(js)
    stamp = js.stat().st_mtime_ns
    build_report(db_path=path, run_ids=[runs["compare"]], site=site)  # the same file is kept
    assert js.stat().st_mtime_ns == stamp
    index = build_index(site).read_text()
    assert first.name in index and second.name in index and js.name not in index


def test_site_never_replaces_a_plotly_file_unostats_did_not_write(report_runs, tmp_path):
    path, runs = report_runs
    site = tmp_path / "site"
    site.mkdir()
    mine = site / render.plotly_file_name()
    mine.write_text("// my own build\n")
    with pytest.raises(store.OutputRefused, match="--overwrite"):
        build_report(db_path=path, run_ids=[runs["compare"]], site=site)
    assert mine.read_text() == "// my own build\n"
    build_report(db_path=path, run_ids=[runs["compare"]], site=site, overwrite=True)
    assert render.is_plotly_js(mine)


def test_report_cli_site_and_out_are_one_or_the_other(invoke, report_runs, tmp_path):
    path, runs = report_runs
    both = invoke("report", runs["compare"], "--db", path, "--site", tmp_path / "s",
                  "--out", tmp_path / "a.html")
    assert both.exit_code == 2 and "--out and --site" in both.stderr
    ok = invoke("report", runs["compare"], "--db", path, "--site", tmp_path / "s")
    assert ok.exit_code == 0, ok.output
    written = tmp_path / "s" / "compare-test.html"
    assert ok.stdout.strip() == str(written) and written.exists()
    assert (tmp_path / "s" / render.plotly_file_name()).exists()


SWEPT = """\
name: answers sweep
seed: 4
games: 30
players: [2, 4]
variants:
  - name: official
  - name: house
    rules: {uno_penalty: 4}
sweep:
  rules.hand_size: [5, 7, 9]
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    from unostats.games import sweep
    from unostats.runs.simulate import simulate
    from unostats.scenario import load_text

    db = tmp_path_factory.mktemp("swept") / "s.duckdb"
    run = simulate(scenario=load_text(SWEPT, "answers-sweep.yaml"), db=db)
    con = store.open_store(db, read_only=True)
    try:
        return sweep.load_sweeps(con, [run.run_id])
    finally:
        con.close()


def test_a_sweep_answers_from_its_cells_and_overlays_its_variants(swept):
    from unostats.games import sweep

    official, house = swept.grids
    view = sweep.view(swept)
    [(question, said)] = view["answers"]
    text = " ".join(said)
    cells = [c for g in swept.grids for c in g.cells]
    shortest = min(cells, key=lambda c: c.estimates["turns_per_round"].value)
    assert fmt_said(shortest.estimates["turns_per_round"], unit="turns") in text
    assert "A round under house minus one under official at the same point: from " in text
    # one chart per statistic for both variants: a line and a band per variant and player count,
    # the hand sizes ticked at their values, the fair share 1/players on the first player's
    figures = {i: fig for i, fig, _ in sweep.sweep_figures(swept)}
    assert set(figures) == {f"fig-sweep-0-{s}" for s in sweep.STATISTICS}
    turns = figures["fig-sweep-0-turns_per_round"]
    lines = [t for t in turns.data if t.mode == "lines+markers"]
    assert sorted(t.name for t in lines) == ["house, 2 players", "house, 4 players",
                                             "official, 2 players", "official, 4 players"]
    assert {t.line.dash for t in lines if t.name.startswith("house")} == {"dash"}
    assert list(turns.layout.xaxis.tickvals) == [5, 7, 9]
    fair = [t for t in figures["fig-sweep-0-first_player_share"].data
            if t.name == "fair share 1/players"]
    assert sorted(t.y[0] for t in fair) == [0.25, 0.5]


def test_with_many_variants_the_answers_name_the_extremes(compare_model, monkeypatch):
    from unostats.report import answers as page_answers

    monkeypatch.setattr(page_answers, "MAX_NAMED", 1)
    text = _said(compare_model)["How long does a round last?"]
    turns = compare_model.measures["round_turns"].summaries
    for n in compare_model.players:
        cells = [c for c in compare_model.cells if c.players == n]
        lo = min(cells, key=lambda c: turns[c.key].mean.value)
        hi = max(cells, key=lambda c: turns[c.key].mean.value)
        assert (f"At {n} players a round is shortest under {lo.label}: "
                f"{fmt_said(turns[lo.key].mean, unit='turns')}; longest under {hi.label}: "
                f"{fmt_said(turns[hi.key].mean, unit='turns')}") in text
    assert "Under " not in text  # no sentence per variant
