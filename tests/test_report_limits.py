"""The report of a run with many cells stays bounded: past ``model.DETAIL_CELLS`` cells the page
reads and draws the detail of the first ones only and says, on the page and on stderr, what it
left out; a grid's table lists at most ``sweep.TABLE_CELLS`` cells, the skill-and-luck section
at most ``skill.MAX_TABLES`` mixed tables. The caps are patched low so
that a sweep of 8 tiny cells crosses them. The paired comparisons load every cell in one query
(``compare.load_cells``), with the totals a cell's own query gives."""

from __future__ import annotations

import pytest

from unostats import store
from unostats.base import compare
from unostats.games import plays
from unostats.games import skill as report_skill
from unostats.games import sweep as report_sweep
from unostats.report import model as report_model
from unostats.runs.simulate import simulate
from unostats.scenario import load_text

PENALTIES = range(8)
SWEPT = """\
name: limits
seed: 11
games: 3
players: [2]
variants:
  - name: official
sweep:
  - rules.uno_penalty: [0, 1, 2, 3, 4, 5, 6, 7]
"""

MIXED = """\
name: limits mixed
seed: 5
games: 3
players: [3]
seats:
  - {policy: high_value_first}
  - {policy: random}
  - {policy: random}
variants:
  - name: official
sweep:
  - rules.uno_penalty: [0, 1, 2]
"""


def _variant(penalty: int) -> str:
    return f"official uno_penalty={penalty}"


@pytest.fixture(scope="module")
def swept_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("limits") / "limits.duckdb"
    simulate(scenario=load_text(SWEPT, "limits.yaml"), db=db)
    return db


def _report(invoke, db, out):
    result = invoke("report", "--db", db, "--out", out)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    detail, _, swept = html.partition('<section id="sweep"')
    assert swept, "the page has no sweep section"
    return result, detail, swept


def test_a_run_past_the_cap_shows_the_first_cells_and_says_what_it_left_out(
        invoke, swept_db, tmp_path, monkeypatch):
    monkeypatch.setattr(report_model, "DETAIL_CELLS", 5)
    monkeypatch.setattr(report_sweep, "TABLE_CELLS", 6)
    monkeypatch.setattr(plays, "TABLE_CELLS", 6)
    result, detail, swept = _report(invoke, swept_db, tmp_path / "limits.html")
    said = "This run has 8 cells with stored games; the page shows and draws the detail of " \
           "the first 5"
    assert said in result.stderr and "leaves out the other 3" in result.stderr
    assert said in detail and "query the store for the rest" in detail
    for p in PENALTIES:  # the detail: the first 5 cells; the grid's table: the first 6
        assert (_variant(p) in detail) == (p < 5), p
        assert (_variant(p) in swept) == (p < 6), p
    assert "(8 cells, players 2)" in swept and "The first 6 of the 8 cells of this grid" in swept
    assert "The section shows the first 6 cells of 8" in swept  # How it plays
    assert swept.count("<tr><td class=\"l\">official uno_penalty=") == 6

    con = store.open_store(swept_db, read_only=True)
    try:
        m = report_model.load_model(con)
    finally:
        con.close()
    assert [c.key.variant for c in m.cells] == [_variant(p) for p in range(5)]
    assert set(m.measures["round_turns"].distributions) == {c.key for c in m.cells}
    assert len(m.paired) == 4 and m.left_out in m.notes


def test_a_run_under_the_cap_shows_every_cell(invoke, swept_db, tmp_path, monkeypatch):
    monkeypatch.setattr(report_model, "DETAIL_CELLS", 8)
    result, detail, swept = _report(invoke, swept_db, tmp_path / "limits.html")
    assert "cells with stored games" not in result.stderr
    assert "query the store for the rest" not in detail + swept
    assert "Every cell of this grid" in swept
    for p in PENALTIES:
        assert _variant(p) in detail, p
    assert swept.count("<tr><td class=\"l\">official uno_penalty=") == 8


def test_cells_loaded_in_one_query_keep_each_cell_apart(swept_db):
    """Loaded together or alone, each cell's per-game totals are its own: its games' rounds and
    turns as the games table stores them."""
    con = store.open_store(swept_db, read_only=True)
    try:
        run_id = store.resolve_run_id(con, None)
        refs = [compare.CellRef(run_id, _variant(p), 2) for p in PENALTIES]
        together = compare.load_cells(con, refs)
        assert list(together) == refs
        for ref in refs:
            got, alone = together[ref], compare.load_cells(con, [ref])[ref]
            assert (got.ref, got.seed, got.engine_version, got.deal) == \
                (alone.ref, alone.seed, alone.engine_version, alone.deal)
            games = con.execute("SELECT game, rounds, turns FROM games WHERE run_id = ? AND "
                                "variant = ? AND players = ? ORDER BY game", list(ref)).fetchall()
            assert len(games) == 3
            for i, column in enumerate(("game", "rounds", "turns")):
                expected = [float(g[i]) for g in games]
                assert got.totals[column].tolist() == expected, (ref, column)
                assert alone.totals[column].tolist() == expected, (ref, column)
    finally:
        con.close()


@pytest.mark.parametrize("cap", [2, 3])
def test_the_skill_section_shows_at_most_its_cap_of_mixed_tables(
        invoke, tmp_path, monkeypatch, cap):
    db = tmp_path / "mixed.duckdb"
    simulate(scenario=load_text(MIXED, "mixed.yaml"), db=db)
    monkeypatch.setattr(report_skill, "MAX_TABLES", cap)
    out = tmp_path / "mixed.html"
    result = invoke("report", "--db", db, "--out", out)
    assert result.exit_code == 0, result.output
    skill = out.read_text().partition('<section id="skill"')[2].partition("</section>")[0]
    assert skill.count('<table id="table-skill-edges-') == cap
    said = "The runs have 3 mixed tables; this section shows the first 2 and leaves out the " \
           "other 1: query the store for the rest."
    assert (said in skill) == (cap == 2)
