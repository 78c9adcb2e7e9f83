"""HTML reports: the model's numbers against the raw rows, the page's content and structure,
escaping, the reproduction section, the index, default paths and errors.

The database is small and real: two runs simulated by the engine (a three-variant comparison at
4 and 6 players, and an ablation "base" / "base without X"), written with the store: conftest's
``report_runs``, which the browser test (test_report_browser.py) reads too.
"""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path

import numba
import numpy as np
import polars as pl
import pytest
from markupsafe import escape

from unostats import stats, store
from unostats.report import model as report_model
from unostats.report.build import build_index, build_report
from unostats.report.figures import build_figures
from unostats.report.model import load_model

# Like scenarios/extreme.yaml: the base variant first, then the variant the ablation removes
# rules from, then "<that>-no-<rule>" and "<that> without <rule>" variants.
EXTREME_LIKE_YAML = """\
name: extreme-like
seed: 11
games: 60
players: [4]
variants:
  - name: standard
  - name: extreme
    rules: {first_card: number_only, wild_draw_four: free, hand_size: 9}
  - name: extreme-no-number-first
    extends: extreme
    rules: {first_card: official}
  - name: extreme without free +4
    extends: extreme
    rules: {wild_draw_four: no_matching_colour}
"""
FIGURE_IDS = {
    "fig-round-turns-hist", "fig-round-turns-cdf", "fig-round-cards-drawn-hist",
    "fig-round-cards-drawn-cdf", "fig-game-rounds-hist", "fig-game-turns-hist",
    "fig-round-points-hist", "fig-final-score-hist", "fig-final-score-rank",
    "fig-game-margin-hist", "fig-positions-round", "fig-positions-game", "fig-compare",
    "fig-plays",  # the How it plays section (games/plays.py)
}


@pytest.fixture(scope="module")
def compare_model(report_runs):
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        return load_model(con, [runs["compare"]])
    finally:
        con.close()


@pytest.fixture(scope="module")
def ablation_model(report_runs):
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        return load_model(con, [runs["ablation"]])
    finally:
        con.close()


@pytest.fixture(scope="module")
def raw(report_runs):
    """The compare run's raw rows (small), to check the model against."""
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        return {t: con.sql(f"SELECT * FROM {t} WHERE run_id = $r",
                           params={"r": runs["compare"]}).pl()
                for t in ("rounds", "games", "game_seats", "round_seats")}
    finally:
        con.close()


@pytest.fixture(scope="module")
def compare_html(report_runs, tmp_path_factory):
    path, runs = report_runs
    out = tmp_path_factory.mktemp("out") / "reports" / "compare.html"
    build_report(db_path=path, run_ids=[runs["compare"]], out=out)
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def ablation_html(report_runs, tmp_path_factory):
    path, runs = report_runs
    out = tmp_path_factory.mktemp("out") / "ablation.html"
    build_report(db_path=path, run_ids=[runs["ablation"]], out=out, index=False)
    return out.read_text(encoding="utf-8")


def key(run_id: str, variant: str, players: int) -> report_model.CellKey:
    return report_model.CellKey(run_id, variant, players)


# --- The model against the raw rows ------------------------------------------------------------

def test_cells_follow_the_scenario_order(report_scenarios, compare_model, report_runs):
    _, runs = report_runs
    evil = report_scenarios.evil
    assert [(c.key.variant, c.players) for c in compare_model.cells] == [
        ("standard", 4), ("standard", 6), ("number first", 4), ("number first", 6),
        (evil, 4), (evil, 6)]
    assert all(c.games == 240 for c in compare_model.cells)
    assert compare_model.base_label == "standard"
    assert compare_model.games == 6 * 240
    assert compare_model.runs[0].run_id == runs["compare"]
    assert compare_model.players == (4, 6)


def test_round_length_matches_the_rows(compare_model, raw, report_runs):
    _, runs = report_runs
    rounds = raw["rounds"].filter(pl.col("variant") == "number first", pl.col("players") == 6)
    s = compare_model.measures["round_turns"].summaries[key(runs["compare"], "number first", 6)]
    turns = rounds["turns"].cast(pl.Float64)
    expected = stats.mean_se(turns.to_numpy())
    assert s.n == rounds.height
    assert s.mean.value == pytest.approx(expected.value)
    assert (s.mean.lo, s.mean.hi) == pytest.approx((expected.lo, expected.hi))
    assert s.mean.method == "mean ± 1.96 SE"
    assert dict(s.quantiles)["p50"] == pytest.approx(turns.quantile(0.5, "linear"))
    assert s.max == turns.max()
    capped = (rounds["ended_by"] == "cap").sum()
    assert s.capped.value == capped / rounds.height and s.capped.method == "Wilson"
    dist = compare_model.measures["round_turns"].distributions[
        key(runs["compare"], "number first", 6)]
    assert dist.total == rounds.height
    counts = rounds.group_by("turns").len().sort("turns")
    assert dist.values.tolist() == counts["turns"].to_list()
    assert dist.counts.tolist() == counts["len"].to_list()


def test_cards_drawn_points_and_game_length_match_the_rows(compare_model, raw, report_runs):
    _, runs = report_runs
    k = key(runs["compare"], "standard", 4)
    r = raw["rounds"].filter(pl.col("variant") == "standard", pl.col("players") == 4)
    g = raw["games"].filter(pl.col("variant") == "standard", pl.col("players") == 4)
    m = compare_model.measures
    assert m["round_cards_drawn"].summaries[k].mean.value == pytest.approx(r["cards_drawn"].mean())
    won = r.filter(pl.col("ended_by") == "win")
    assert m["round_points"].summaries[k].mean.value == pytest.approx(won["points"].mean())
    assert m["round_points"].summaries[k].n == won.height
    assert m["game_rounds"].summaries[k].mean.value == pytest.approx(g["rounds"].mean())
    assert m["game_rounds"].summaries[k].max == g["rounds"].max()
    assert m["game_turns"].summaries[k].mean.value == pytest.approx(g["turns"].mean())
    with_winner = g.filter(pl.col("winner_seat").is_not_null())
    assert m["game_margin"].summaries[k].mean.value == pytest.approx(with_winner["margin"].mean())
    gs = raw["game_seats"].filter(pl.col("variant") == "standard", pl.col("players") == 4)
    assert m["final_score"].summaries[k].n == gs.height
    sd = gs.group_by("game").agg(pl.col("final_score").std())["final_score"]
    spread = compare_model.standings_spread[k]
    assert spread.value == pytest.approx(sd.mean())
    assert spread.se == pytest.approx(sd.std() / math.sqrt(sd.len()))
    ranks = dict(compare_model.rank_scores[k])
    winners = gs.filter(pl.col("rank") == 1)["final_score"]
    assert ranks[1].value == pytest.approx(winners.mean()) and ranks[1].n == winners.len()


def test_first_player_advantage_matches_the_rows(compare_model, raw, report_runs):
    _, runs = report_runs
    for players in (4, 6):
        k = key(runs["compare"], "standard", players)
        won = raw["rounds"].filter(pl.col("variant") == "standard", pl.col("players") == players,
                                   pl.col("ended_by") == "win")
        wins = [won.filter(pl.col("winner_position") == i).height for i in range(players)]
        p = compare_model.round_positions[k]
        assert p.wins == tuple(wins) and p.n == won.height and p.fair == 1 / players
        w0 = stats.wilson_interval(wins[0], won.height)
        assert (p.rates[0].value, p.rates[0].lo, p.rates[0].hi) == pytest.approx(
            (w0.value, w0.lo, w0.hi))
        assert p.rates[0].method == "Wilson"
        assert p.excess.value == pytest.approx(w0.value - 1 / players)
        assert p.excess.lo == pytest.approx(w0.lo - 1 / players)
        chi = stats.chi_square_uniform(wins)
        assert p.test.p_value == pytest.approx(chi.p_value) and p.test.df == players - 1
        assert sum(e.value for e in p.rates) == pytest.approx(1.0)

        # games: a seat's position in round 1
        first = raw["round_seats"].filter(pl.col("variant") == "standard",
                                          pl.col("players") == players, pl.col("round") == 1)
        gw = raw["game_seats"].filter(pl.col("variant") == "standard",
                                      pl.col("players") == players, pl.col("is_winner"))
        pos = gw.join(first, on=["game", "seat"])["position"]
        g = compare_model.game_positions[k]
        assert g.wins == tuple((pos == i).sum() for i in range(players))


def test_comparisons_against_the_first_variant(report_scenarios, compare_model, report_runs):
    _, runs = report_runs
    cmp = {(c.cell.variant, c.cell.players): c for c in compare_model.comparisons}
    evil = report_scenarios.evil
    assert set(cmp) == {("number first", 4), ("number first", 6), (evil, 4), (evil, 6)}
    c = cmp[("number first", 6)]
    assert c.base == key(runs["compare"], "standard", 6)
    turns = compare_model.measures["round_turns"].summaries
    a, b = turns[c.cell], turns[c.base]
    expected = stats.difference_of_means(a.mean.value, a.mean.se, b.mean.value, b.mean.se,
                                         n1=a.n, n2=b.n)
    assert c.round_length == expected
    pa, pb = compare_model.round_positions[c.cell], compare_model.round_positions[c.base]
    assert c.first_win == stats.difference_of_proportions(pa.wins[0], pa.n, pb.wins[0], pb.n)
    assert c.first_win.method == "Newcombe hybrid score"
    assert not compare_model.ablation


def test_rules_that_differ(report_scenarios, compare_model):
    changes = compare_model.rule_changes
    evil = report_scenarios.evil
    assert set(changes) == {"number first", evil}
    assert [(c.key, c.rule_ids, c.base_value, c.value) for c in changes["number first"]] == [
        ("first_card", "S2", "official", "number_only")]
    assert {c.key: c.value for c in changes[evil]} == {"wild_draw_four": "free",
                                                       "uno_penalty": "0"}


def test_ablation_effects_are_base_minus_without(ablation_model, report_runs):
    _, runs = report_runs
    effects = {a.what: a for a in ablation_model.ablation}
    assert set(effects) == {"number-only first card", "free +4"}
    a = effects["free +4"]
    assert a.rules == ("wild_draw_four",)
    assert a.base == key(runs["ablation"], "extreme", 4)
    turns = ablation_model.measures["round_turns"].summaries
    diff = turns[a.base].mean.value - turns[a.cell].mean.value
    assert a.round_length.value == pytest.approx(diff)
    assert a.round_length.lo < diff < a.round_length.hi
    pb, pw = ablation_model.round_positions[a.base], ablation_model.round_positions[a.cell]
    direct = stats.difference_of_proportions(pb.wins[0], pb.n, pw.wins[0], pw.n)
    assert (a.first_win.value, a.first_win.lo, a.first_win.hi) == pytest.approx(
        (direct.value, direct.lo, direct.hi))


@pytest.fixture(scope="module")
def extreme_like(write_run, tmp_path_factory):
    """An ablation whose base is not the scenario's first variant (as in extreme.yaml)."""
    folder = tmp_path_factory.mktemp("extreme-like")
    con = store.open_store(folder / "x.duckdb", read_only=False)
    try:
        run_id = write_run(con, EXTREME_LIKE_YAML)
    finally:
        con.close()
    con = store.open_store(folder / "x.duckdb", read_only=True)
    try:
        model = load_model(con, [run_id])
    finally:
        con.close()
    out = build_report(db_path=folder / "x.duckdb", out=folder / "x.html", index=False)
    return run_id, model, out.read_text(encoding="utf-8")


def test_ablation_of_a_variant_that_is_not_the_base(extreme_like):
    run_id, model, page = extreme_like
    assert model.base_label == "standard"
    effects = {a.what: a for a in model.ablation}
    assert set(effects) == {"number first", "free +4"}  # "-no-number-first" reads as words
    a = effects["number first"]
    assert a.base == key(run_id, "extreme", 4)
    assert a.cell == key(run_id, "extreme-no-number-first", 4)
    assert a.rules == ("first_card",)  # against extreme, not against standard
    turns = model.measures["round_turns"].summaries
    assert a.round_length == stats.difference_of_means(
        turns[a.base].mean.value, turns[a.base].mean.se, turns[a.cell].mean.value,
        turns[a.cell].mean.se, n1=turns[a.base].n, n2=turns[a.cell].n)
    pb, pw = model.round_positions[a.base], model.round_positions[a.cell]
    assert a.first_win == stats.difference_of_proportions(pb.wins[0], pb.n, pw.wins[0], pw.n)
    rounds = model.measures["game_rounds"].summaries
    assert a.game_rounds.value == pytest.approx(rounds[a.base].mean.value
                                                - rounds[a.cell].mean.value)
    assert model.ablation_labels == ("extreme-no-number-first", "extreme without free +4")
    assert model.ablation_base_labels == ("extreme",)
    # the rules table: extreme against standard, each ablation variant against extreme
    assert model.rule_bases == {"extreme": "standard", "extreme-no-number-first": "extreme",
                                "extreme without free +4": "extreme"}
    assert [(c.key, c.base_value, c.value)
            for c in model.rule_changes["extreme-no-number-first"]] == [
        ("first_card", "number_only", "official")]
    assert len(model.rule_changes["extreme"]) == 3


def test_ablation_scenario_gets_its_rule_effect_chart(extreme_like):
    run_id, model, page = extreme_like
    figs = build_figures(model)
    assert {"fig-ablation", "fig-compare"} <= set(figs)
    ablation = figs["fig-ablation"].figure
    rows = {y for tr in ablation.data for y in tr.y}
    assert rows == {"number first", "free +4"}
    assert "extreme with the rule minus extreme without it" in ablation.layout.title.text
    axes = [v["title"]["text"] for k, v in ablation.to_plotly_json()["layout"].items()
            if k.startswith("xaxis")]
    assert axes == ["Effect on mean turns per round (turns)",
                    "Effect on first-player round win rate (percentage points)"]
    errors = [tr.error_x.array[0] for tr in ablation.data]
    assert len(errors) == 4 and all(e > 0 for e in errors)  # intervals drawn, both panels
    # the comparison chart keeps the variants that are not ablation variants
    assert {y for tr in figs["fig-compare"].figure.data for y in tr.y} == {"extreme · 4 players"}
    # the overlay charts show standard and extreme, the ablation variants on demand
    for div_id in ("fig-round-turns-hist", "fig-round-turns-cdf", "fig-positions-round",
                   "fig-final-score-rank"):
        f = figs[div_id]
        visible = {tr.name: tr.visible for tr in f.figure.data if not tr.name.startswith("fair")}
        assert visible == {"standard": True, "extreme": True,
                           "extreme-no-number-first": "legendonly",
                           "extreme without free +4": "legendonly"}, div_id
        assert "hidden at first" in f.caption
    assert 'id="table-ablation"' in page and 'href="#ablation"' in page
    assert "Effect on rounds per game" in page


def test_ablation_names():
    def cells(*names):
        return [report_model.Cell(key("r", n, 4), n, 1, 1) for n in names]

    found = report_model._ablation_bases(cells(
        "house", "house-no-stack", "house-no-stack-no-jump", "nobody-no-thing", "house_no_x",
        "house without the 7-0 rule", "standard"))
    assert {k.variant: (b.variant, what) for k, (b, what) in found.items()} == {
        "house-no-stack": ("house", "stack"),
        "house-no-stack-no-jump": ("house-no-stack", "jump"),  # the longest base that exists
        "house_no_x": ("house", "x"),
        "house without the 7-0 rule": ("house", "the 7-0 rule"),
    }


def test_summaries_equal_the_store_views(compare_model, report_runs):
    """The summaries come from the value counts; they are the views' numbers."""
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        views = {v: {(r["variant"], r["players"]): r for r in con.sql(
            f"SELECT * FROM {v} WHERE run_id = $r", params={"r": runs["compare"]}).pl()
            .iter_rows(named=True)} for v in ("round_length", "game_length", "score_spread")}
    finally:
        con.close()
    m = compare_model.measures
    for c in compare_model.cells:
        v = (c.key.variant, c.players)
        rl, gl, sp = views["round_length"][v], views["game_length"][v], views["score_spread"][v]
        s = m["round_turns"].summaries[c.key]
        assert (s.n, s.max) == (rl["n"], rl["max_turns"])
        assert (s.mean.value, s.sd, s.mean.se) == pytest.approx(
            (rl["mean_turns"], rl["sd_turns"], rl["se_turns"]))
        assert [q for _, q in s.quantiles] == pytest.approx([rl[q] for q in ("p10", "p50", "p90",
                                                                               "p99")])
        assert s.capped.value == pytest.approx(rl["share_capped"])
        for what in ("rounds", "turns"):
            s = m[f"game_{what}"].summaries[c.key]
            assert s.n == gl["n"]
            assert (s.mean.value, s.sd, s.mean.se) == pytest.approx(
                (gl[f"mean_{what}"], gl[f"sd_{what}"], gl[f"se_{what}"]))
            assert [q for _, q in s.quantiles] == pytest.approx(
                [gl[f"{q}_{what}"] for q in ("p10", "p50", "p90", "p99")])
        s = m["round_points"].summaries[c.key]
        assert (s.n, s.mean.value, s.sd) == (sp["n_rounds"], pytest.approx(sp["mean_points"]),
                                             pytest.approx(sp["sd_points"]))
        s = m["game_margin"].summaries[c.key]
        assert (s.n, s.mean.value, s.mean.se) == (sp["n_games"], pytest.approx(sp["mean_margin"]),
                                                  pytest.approx(sp["se_margin"]))


def test_quantiles_from_value_counts_are_quantile_cont():
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 1000):
        x = rng.integers(0, 40, size)
        values, counts = np.unique(x, return_counts=True)
        d = report_model.Distribution(values, counts)
        for p in (0.0, 0.1, 0.5, 0.9, 0.99, 1.0):
            assert d.quantile_cont(p) == pytest.approx(np.quantile(x, p)), (size, p)
        s = report_model.describe(d, n_capped=0)
        assert s.mean.value == pytest.approx(x.mean()) and s.max == x.max()
        if size > 1:
            assert s.sd == pytest.approx(x.std(ddof=1))
    assert report_model.describe(report_model.Distribution(np.zeros(0, np.int64),
                                                           np.zeros(0, np.int64))) is None


def test_findings_cover_every_cell_with_intervals(compare_model):
    groups = {}
    for f in compare_model.findings:
        groups.setdefault(f.group, []).append(f)
        assert f.estimate.lo <= f.estimate.value <= f.estimate.hi
        assert f.estimate.n and f.estimate.method
    assert len(groups["Turns per round"]) == 6
    assert len(groups["First player wins the round"]) == 6
    assert len(groups["First player wins the game"]) == 6
    assert len(groups["Turns per round vs base"]) == 4
    assert len(groups["First player's round win rate vs base"]) == 4
    assert all(f.estimate.method == "Wilson" for f in groups["First player wins the round"])
    assert "Rounds ended by the safety cap" not in groups  # shown only when some round was


def test_aggregation_happens_in_duckdb(report_runs, monkeypatch):
    """Python receives aggregates only: one row per cell (or per position, rank), and exact
    distributions as value counts; never the rows themselves."""
    path, runs = report_runs
    heights = []
    original = report_model._Query.__call__

    def spy(self, sql):
        df = original(self, sql)
        heights.append(df.height)
        return df

    monkeypatch.setattr(report_model._Query, "__call__", spy)
    con = store.open_store(path, read_only=True)
    try:
        model = load_model(con, [runs["compare"]])
        stored = sum(con.sql(f"SELECT count(*) FROM {t} WHERE run_id = $r",
                             params={"r": runs["compare"]}).fetchall()[0][0]
                     for t in ("rounds", "round_seats", "games", "game_seats"))
    finally:
        con.close()
    assert model.rounds > 10_000
    assert max(heights) < 0.05 * stored, (heights, stored)
    assert sorted(heights)[len(heights) // 2] <= 6 * 6  # most queries: a row per cell/position


# --- The page ----------------------------------------------------------------------------------

def chart_ids(page: str) -> set[str]:
    return set(re.findall(r'<div id="([^"]+)" class="plotly-graph-div"', page))


def test_page_is_self_contained(compare_html):
    page = compare_html
    assert page.startswith("<!DOCTYPE html>")
    scripts = re.findall(r"<script\b([^>]*)>", page)
    assert not any("src=" in attrs for attrs in scripts)
    assert not re.search(r"<link\b[^>]*href=\"https?:", page)
    assert page.count("plotly.js v") == 1 or page.count("* plotly.js") == 1
    # plotly.js once; every figure fragment without its own copy
    assert len(re.findall(r"<script>\s*/\*\*?\s*\n?\s*\*?\s*plotly\.js", page)) <= 1
    assert page.count("Plotly.newPlot(") == len(chart_ids(page))


def test_page_has_every_chart_with_stable_ids(compare_html, ablation_html):
    assert chart_ids(compare_html) == FIGURE_IDS
    assert chart_ids(ablation_html) == FIGURE_IDS - {"fig-compare"} | {"fig-ablation"}
    for section in ("findings", "round-length", "game-length", "scoring", "first-player",
                    "variants", "plays", "reproduction"):
        assert f'<section id="{section}">' in compare_html


def test_page_sections_content(compare_html, compare_model):
    page = compare_html
    text = re.sub(r"<[^>]+>", " ", page)
    assert "mean ± 1.96 SE" in text and "Wilson" in text and "Newcombe hybrid score" in text
    assert "chi-square" in text.lower() or "χ²" in text
    for h in ("Turns per round", "Cards drawn per round", "Rounds per game", "Turns per game",
              "Points per round", "Final scores", "Margin between first and second",
              "How spread the final standings are", "Rules that differ from standard"):
        assert h in text
    # a finding rendered as value, interval, n and method
    k = compare_model.cells[0].key
    s = compare_model.measures["round_turns"].summaries[k]
    digits = stats._digits_for(s.mean.hi - s.mean.lo)
    assert f"{s.mean.value:,.{digits}f}" in page
    assert f"[{s.mean.lo:,.{digits}f}, {s.mean.hi:,.{digits}f}]" in page
    assert f"{s.n:,}" in page
    # win rates as percentages, the fair line named
    assert "Fair share 1/n" in page and "25.00%" in page and "16.67%" in page
    # the rules table names the rule, its RULES.md id and both values
    assert re.search(r"<code>first_card</code></td><td class=\"l\">S2</td><td class=\"l\">"
                     r"official</td><td class=\"l\"><b>number_only</b>", page)


def test_reproduction_section(report_scenarios, compare_html, compare_model, report_runs):
    _, runs = report_runs
    page = compare_html
    run = compare_model.runs[0]
    assert "unostats simulate test.yaml" in page
    assert f"<dd>{run.seed}</dd>" in page
    assert numba.__version__ in page and run.versions["duckdb_version"] in page
    assert run.scenario_hash in page
    # the scenario as written, escaped in a <pre>, and as a download
    assert str(escape(report_scenarios.compare)).splitlines()[1] in page
    m = re.search(r'href="data:application/x-yaml;charset=utf-8;base64,([A-Za-z0-9+/=]+)" '
                  r'download="compare-test.yaml"', page)
    assert m and base64.b64decode(m.group(1)).decode() == report_scenarios.compare
    m = re.search(r'href="data:application/json;charset=utf-8;base64,([A-Za-z0-9+/=]+)"', page)
    assert json.loads(base64.b64decode(m.group(1)))["name"] == "compare-test"


def test_user_strings_are_escaped(report_scenarios, compare_html):
    page = compare_html
    for raw in ('<b>&amp;</b> "q"', "</script><script>alert", "<i>more</i>"):
        assert raw not in page
    assert str(escape(report_scenarios.evil)) in page
    assert "&lt;/script&gt;&lt;script&gt;alert(&#34;d&#34;)" in page  # header description
    # plotly renders a subset of HTML in labels, so trace names are HTML-escaped before they
    # enter plotly's JSON (which in turn escapes "<", ">" and "/")
    assert '"name":"house &lt;b&gt;&amp;amp;&lt;\\u002fb&gt; \\"q\\" \'s"' in page
    assert '"name":"house \\u003cb' not in page


def test_same_colour_for_a_variant_in_every_chart(compare_model):
    figs = build_figures(compare_model)
    seen: dict[str, set[str]] = {}
    for f in figs.values():
        for tr in f.figure.data:
            colour = (tr.marker.color if tr.mode and "markers" in tr.mode and tr.marker.color
                      else tr.line.color)
            if tr.name and not tr.name.startswith("fair"):
                seen.setdefault(tr.name, set()).add(colour)
    assert len(seen) == 3
    assert all(len(c) == 1 for c in seen.values()), seen
    assert len({next(iter(c)) for c in seen.values()}) == 3


def test_figures_have_titles_and_axis_units(compare_model):
    for div_id, f in build_figures(compare_model).items():
        layout = f.figure.layout
        assert layout.title.text, div_id
        x_titles = [v["title"]["text"] for k, v in f.figure.to_plotly_json()["layout"].items()
                    if k.startswith("xaxis") and v.get("title", {}).get("text")]
        y_titles = [v["title"]["text"] for k, v in f.figure.to_plotly_json()["layout"].items()
                    if k.startswith("yaxis") and v.get("title", {}).get("text")]
        assert x_titles, div_id
        assert all(re.search(r"\(.+\)", t) for t in x_titles), (div_id, x_titles)
        if div_id not in ("fig-compare",):
            assert y_titles and all(re.search(r"\(.+\)", t) for t in y_titles), (div_id, y_titles)


def test_histogram_shares_add_up(compare_model):
    figs = build_figures(compare_model)
    for tr in figs["fig-round-turns-hist"].figure.data:
        share = sum(tr.y[:-1])  # the last point repeats the last bin (step line)
        assert 95.0 < share <= 100.0 + 1e-9


# --- Index, defaults, several runs, errors ----------------------------------------------------

def test_index_lists_every_report(report_runs, tmp_path):
    path, runs = report_runs
    folder = tmp_path / "reports"
    a = build_report(db_path=path, run_ids=[runs["compare"]], out=folder / "a.html",
                     title="First <report>")
    b = build_report(db_path=path, run_ids=[runs["ablation"]], out=folder / "b.html")
    index = folder / "index.html"
    assert "b.html" in index.read_text()  # build_report refreshes the folder's index
    (folder / "notes.html").write_text("<html><body>hand written</body></html>")
    build_index(folder)
    page = index.read_text()
    rows = re.findall(r"<tr><td><a href=\"([^\"]+)\">([^<]*)</a></td><td>([^<]*)</td>"
                      r"<td>([^<]*)</td><td class=\"num\">([^<]*)</td>", page)
    by_file = {r[0]: r[1:] for r in rows}
    assert set(by_file) == {"a.html", "b.html", "notes.html"}
    assert by_file["a.html"][0] == "First &lt;report&gt;"
    assert by_file["a.html"][1] == "compare-test"
    assert by_file["a.html"][3] == "1,440"
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", by_file["a.html"][2])
    assert by_file["b.html"][:2] == ("UNO rules report: ablation-test", "ablation-test")
    assert by_file["notes.html"][0] == "notes.html"
    b.unlink()
    build_index(folder)
    assert "b.html" not in (folder / "index.html").read_text()
    assert a.exists()


def test_default_run_and_output_path(report_runs, tmp_path, monkeypatch):
    path, runs = report_runs
    monkeypatch.chdir(tmp_path)
    out = build_report(db_path=path)
    assert out == Path("reports") / "ablation-test.html"  # the latest run, named by scenario
    assert (tmp_path / "reports" / "index.html").exists()
    assert f"<dd>{9}</dd>" in out.read_text()


def test_several_runs_in_one_report(report_runs, tmp_path):
    path, runs = report_runs
    out = build_report(db_path=path, run_ids=[runs["compare"][:4], runs["ablation"]],
                       out=tmp_path / "both.html", index=False)
    page = out.read_text()
    for run_id in runs.values():
        assert f"<h3>Run {run_id}: " in page
    assert page.count('download="') >= 4
    con = store.open_store(path, read_only=True)
    try:
        model = load_model(con, [runs["compare"], runs["ablation"]])
    finally:
        con.close()
    assert model.base_label == "standard"
    assert len(model.labels) == 6  # 3 + 3 variants, names unique
    # ablation cells are compared with the first run's base at 4 players, not treated as one
    assert {c.cell.run_id for c in model.comparisons} == set(runs.values())


def test_several_runs_of_one_scenario_get_distinct_labels(report_scenarios, write_run, tmp_path):
    path = tmp_path / "two.duckdb"
    con = store.open_store(path, read_only=False)
    try:
        small = report_scenarios.ablation.replace("games: 240", "games: 30")
        first = write_run(con, small)
        second = write_run(con, small.replace("seed: 9", "seed: 10"),
                              status="interrupted", games=20)
    finally:
        con.close()
    out = build_report(db_path=path, run_ids=[first, second], out=tmp_path / "x" / "r.html",
                       index=False)
    page = out.read_text()
    assert f"extreme ({first})" in page and f"extreme ({second})" in page
    assert f"Run {second} is interrupted: 60 of 90 games stored" in page
    con = store.open_store(path, read_only=True)
    try:
        model = load_model(con, [first, second])
    finally:
        con.close()
    from unostats.report.build import default_out
    assert default_out(model) == Path("reports") / \
        f"ablation-test-{first}__ablation-test-{second}.html"


def test_errors_are_store_errors(report_runs, tmp_path):
    path, _ = report_runs
    with pytest.raises(store.StoreError, match="no run 'nope'"):
        build_report(db_path=path, run_ids=["nope"], out=tmp_path / "x.html")
    with pytest.raises(store.StoreError, match="no results database"):
        build_report(db_path=tmp_path / "missing.duckdb", out=tmp_path / "x.html")
    with pytest.raises(store.StoreError, match="reserved"):
        build_report(db_path=path, out=tmp_path / "index.html")
    assert not (tmp_path / "x.html").exists()


# --- Every number the page prints, against the store's own definitions --------------------------

# The report reads each statistic in whichever way is fastest (value counts, fewer passes, only
# the columns it needs); these are the store's views and the plain SQL the page's numbers are
# defined by. A change in how the report loads them must leave every number where it was.
_REFERENCE_SQL = {
    "cells": """SELECT variant, players, (SELECT count(*) FROM games g WHERE g.run_id = v.run_id
                  AND g.variant = v.variant AND g.players = v.players) AS games,
                (SELECT count(*) FROM rounds r WHERE r.run_id = v.run_id
                  AND r.variant = v.variant AND r.players = v.players) AS rounds
                FROM variants v WHERE run_id = $r""",
    "round_cards_drawn": """SELECT variant, players, count(*) AS n, avg(cards_drawn) AS mean,
                stddev_samp(cards_drawn) AS sd, max(cards_drawn) AS max,
                quantile_cont(cards_drawn, [0.1, 0.5, 0.9, 0.99]) AS q,
                count(*) FILTER (WHERE ended_by = 'cap') AS capped
                FROM rounds WHERE run_id = $r GROUP BY ALL""",
    "final_score": """SELECT variant, players, count(*) AS n, avg(final_score) AS mean,
                stddev_samp(final_score) AS sd, max(final_score) AS max,
                quantile_cont(final_score, [0.1, 0.5, 0.9, 0.99]) AS q
                FROM game_seats WHERE run_id = $r GROUP BY ALL""",
    "games": """SELECT variant, players, count(*) FILTER (WHERE ended_by = 'cap') AS capped,
                max(rounds) AS max_rounds, max(turns) AS max_turns
                FROM games WHERE run_id = $r GROUP BY ALL""",
    "round_points": """SELECT variant, players, max(points) AS max,
                quantile_cont(points, [0.1, 0.5, 0.9, 0.99]) AS q
                FROM rounds WHERE run_id = $r AND ended_by = 'win' GROUP BY ALL""",
    "game_margin": """SELECT variant, players, max(margin) AS max,
                quantile_cont(margin, [0.1, 0.5, 0.9, 0.99]) AS q
                FROM games WHERE run_id = $r AND winner_seat IS NOT NULL GROUP BY ALL""",
    "ranks": """SELECT variant, players, rank, count(*) AS n, avg(final_score) AS mean,
                stddev_samp(final_score) / sqrt(count(*)) AS se
                FROM game_seats WHERE run_id = $r GROUP BY ALL""",
    "spread": """SELECT variant, players, count(sd) AS n, avg(sd) AS mean,
                stddev_samp(sd) / sqrt(count(sd)) AS se
                FROM (SELECT variant, players, game, stddev_samp(final_score) AS sd
                      FROM game_seats WHERE run_id = $r GROUP BY ALL) GROUP BY ALL""",
}
_VIEWS = ("round_length", "game_length", "score_spread", "win_rate_by_position",
          "game_win_rate_by_position", "durations")


def _reference(con, run_id: str) -> dict[str, list[dict]]:
    out = {name: con.sql(sql, params={"r": run_id}).pl().to_dicts()
           for name, sql in _REFERENCE_SQL.items()}
    for view in _VIEWS:
        out[view] = con.sql(f"SELECT * FROM {view} WHERE run_id = $r",
                            params={"r": run_id}).pl().to_dicts()
    return out


def _by(rows, *keys):
    return {tuple(r[k] for k in keys): r for r in rows}


def _same(a, b):
    """Equal, or the same float up to the last bits (DuckDB's parallel sums run in any order)."""
    if isinstance(a, float) or isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-12)
    return a == b


def _check(got, want, what):
    assert set(got) == set(want), what
    bad = {k: (got[k], want[k]) for k in want if not _same(got[k], want[k])}
    assert not bad, (what, bad)


def _estimate(e):
    return {"value": e.value, "lo": e.lo, "hi": e.hi, "n": e.n, "method": e.method}


def _summary_numbers(s):
    return {"n": s.n, **{f"mean.{k}": v for k, v in _estimate(s.mean).items()}, "sd": s.sd,
            "max": s.max, **{f"q.{label}": v for label, v in s.quantiles},
            **({f"capped.{k}": v for k, v in _estimate(s.capped).items()} if s.capped else {})}


def _expected_summary(n, mean, sd, quantiles, max_, capped=None):
    e = stats.mean_interval(mean, sd / math.sqrt(n), n)
    out = {"n": n, **{f"mean.{k}": v for k, v in _estimate(e).items()}, "sd": sd,
           "max": float(max_), **dict(zip((f"q.{label}" for label, _ in
                                           report_model.QUANTILES), quantiles))}
    if capped is not None:
        out.update({f"capped.{k}": v for k, v in
                    _estimate(stats.wilson_interval(capped, n)).items()})
    return out


def _positions(p):
    return {"wins": p.wins, "n": p.n, "fair": p.fair,
            "rates": [(e.value, e.lo, e.hi, e.n, e.method) for e in p.rates]}


def _expected_positions(rows, players):
    rows = sorted(rows, key=lambda r: r["position"])
    assert [r["position"] for r in rows] == list(range(players))
    n = rows[0]["n"]
    return {"wins": tuple(r["wins"] for r in rows), "n": n, "fair": 1 / players,
            "rates": [(r["rate"], r["lo"], r["hi"], n, "Wilson") for r in rows]}


def _assert_model_is_the_reference(model, run_id, ref):
    """Every statistic of ``model`` that the page prints (run ``run_id``'s cells) equals the
    reference numbers read from the views and plain SQL (``_reference``)."""
    cells = {(c.key.variant, c.players): c for c in model.cells if c.key.run_id == run_id}
    counts = _by(ref["cells"], "variant", "players")
    assert set(cells) == {k for k, r in counts.items() if r["games"] > 0}
    m = model.measures
    views = {v: _by(ref[v], "variant", "players") for v in ("round_length", "game_length",
                                                              "score_spread")}
    for (variant, players), cell in cells.items():
        k, v = cell.key, (variant, players)
        assert (cell.games, cell.rounds) == (counts[v]["games"], counts[v]["rounds"])
        rl, gl, sp = (views[name][v] for name in ("round_length", "game_length", "score_spread"))
        _check(_summary_numbers(m["round_turns"].summaries[k]), _expected_summary(
            rl["n"], rl["mean_turns"], rl["sd_turns"], [rl[q] for q in ("p10", "p50", "p90",
                                                                        "p99")],
            rl["max_turns"], rl["n_capped"]), ("round_turns", v))
        cd = _by(ref["round_cards_drawn"], "variant", "players")[v]
        _check(_summary_numbers(m["round_cards_drawn"].summaries[k]), _expected_summary(
            cd["n"], cd["mean"], cd["sd"], cd["q"], cd["max"], cd["capped"]),
            ("round_cards_drawn", v))
        g = _by(ref["games"], "variant", "players")[v]
        for what, capped in (("rounds", g["capped"]), ("turns", None)):
            _check(_summary_numbers(m[f"game_{what}"].summaries[k]), _expected_summary(
                gl["n"], gl[f"mean_{what}"], gl[f"sd_{what}"],
                [gl[f"{q}_{what}"] for q in ("p10", "p50", "p90", "p99")], g[f"max_{what}"],
                capped), (f"game_{what}", v))
        for key_, n, mean, sd in (("round_points", "n_rounds", "mean_points", "sd_points"),
                                  ("game_margin", "n_games", "mean_margin", "sd_margin")):
            r = _by(ref[key_], "variant", "players")[v]
            _check(_summary_numbers(m[key_].summaries[k]), _expected_summary(
                sp[n], sp[mean], sp[sd], r["q"], r["max"]), (key_, v))
        fs = _by(ref["final_score"], "variant", "players")[v]
        _check(_summary_numbers(m["final_score"].summaries[k]), _expected_summary(
            fs["n"], fs["mean"], fs["sd"], fs["q"], fs["max"]), ("final_score", v))
        for level, view in (("round", "win_rate_by_position"),
                            ("game", "game_win_rate_by_position")):
            rows = [r for r in ref[view] if (r["variant"], r["players"]) == v]
            got = (model.round_positions if level == "round" else model.game_positions)[k]
            _check(_positions(got), _expected_positions(rows, players), (view, v))
        ranks = {r["rank"]: r for r in ref["ranks"] if (r["variant"], r["players"]) == v}
        assert [rank for rank, _ in model.rank_scores[k]] == sorted(ranks)
        for rank, e in model.rank_scores[k]:
            r = ranks[rank]
            _check(_estimate(e), _estimate(stats.mean_interval(r["mean"], r["se"], r["n"])),
                   ("rank", v, rank))
        spread = _by(ref["spread"], "variant", "players")[v]
        assert _same(spread["mean"], sp["mean_final_score_sd"])
        _check(_estimate(model.standings_spread[k]), _estimate(stats.mean_interval(
            spread["mean"], spread["se"], spread["n"])), ("spread", v))
        d = {r["unit"]: r for r in ref["durations"] if (r["variant"], r["players"]) == v}
        got = model.durations[k]
        assert got.seconds_per_turn == d["game"]["seconds_per_turn"]
        for unit, e in (("round", got.round), ("game", got.game)):
            r = d[unit]
            _check(_estimate(e), {"value": r["mean_minutes"], "lo": r["lo_minutes"],
                                  "hi": r["hi_minutes"], "n": r["n"], "method": r["method"]},
                   ("durations", unit, v))


def test_every_printed_statistic_equals_the_store_views(report_runs, compare_model, ablation_model):
    """Each number of the page (sample sizes, means, sds, quantiles, maxima, capped shares, win
    rates by position with their Wilson bounds, mean scores by rank, the spread of standings,
    durations) is the views' and plain SQL's, cell by cell; so is a report of two runs."""
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        refs = {name: _reference(con, run_id) for name, run_id in runs.items()}
        both = load_model(con, [runs["compare"], runs["ablation"]])
    finally:
        con.close()
    _assert_model_is_the_reference(compare_model, runs["compare"], refs["compare"])
    _assert_model_is_the_reference(ablation_model, runs["ablation"], refs["ablation"])
    for name, run_id in runs.items():
        _assert_model_is_the_reference(both, run_id, refs[name])
    assert len(both.cells) == len(compare_model.cells) + len(ablation_model.cells)


def test_the_reference_check_sees_a_changed_number(report_runs, compare_model):
    """The check above fails when one printed number moves (here a rate's upper bound by
    1e-9, a count by one)."""
    path, runs = report_runs
    con = store.open_store(path, read_only=True)
    try:
        ref = _reference(con, runs["compare"])
    finally:
        con.close()
    moved = json.loads(json.dumps(ref["win_rate_by_position"], default=str))
    moved[0]["hi"] += 1e-9
    with pytest.raises(AssertionError):
        _assert_model_is_the_reference(compare_model, runs["compare"],
                                       {**ref, "win_rate_by_position": moved})
    counts = [dict(r) for r in ref["cells"]]
    counts[0]["rounds"] += 1
    with pytest.raises(AssertionError):
        _assert_model_is_the_reference(compare_model, runs["compare"], {**ref, "cells": counts})


def test_the_compiled_template_is_kept_and_reused(tmp_path):
    """The page's template compiles once into the cache folder; a later load takes it from
    there and renders the same page; a folder that cannot be written only costs the compile."""
    import jinja2

    from unostats.report import render

    def env(folder):
        return jinja2.Environment(
            loader=jinja2.PackageLoader("unostats.report", "templates"), autoescape=True,
            bytecode_cache=render._TemplateCache(str(folder)))

    folder = tmp_path / "templates"
    env(folder).get_template("index.html.j2")
    kept = list(folder.iterdir())
    assert len(kept) == 1 and kept[0].stat().st_size > 0
    again = env(folder)
    loaded = []
    original = again.bytecode_cache.load_bytecode
    again.bytecode_cache.load_bytecode = lambda bucket: (original(bucket),
                                                         loaded.append(bucket.code is not None))
    page = {"rows": [], "version": "v", "generated": "now"}
    assert again.get_template("index.html.j2").render(**page) == \
        jinja2.Environment(loader=jinja2.PackageLoader("unostats.report", "templates"),
                           autoescape=True).get_template("index.html.j2").render(**page)
    assert loaded == [True]  # compiled code came from the folder
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert env(blocked / "templates").get_template("index.html.j2").render(**page)
