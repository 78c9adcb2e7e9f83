"""What a run keeps (``--keep rows|games|summary``): the same seed played three times, once for
each keep, gives the same summary, precision estimates, design goals, unpaired comparisons and
round-length histogram (within float rounding); pairing needs rows or games; a resume keeps what
its run kept; what cannot be kept is refused in words."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from unostats import store
from unostats.base import compare, precision
from unostats.base.session import RunError
from unostats.design.spec import goals
from unostats.engine.simulate import simulate_arrow
from unostats.games.summary import summary_rows
from unostats.runs.simulate import resume, simulate
from unostats.scenario import load_text
from unostats.store import keep, sums

# Capped rounds (max_turns), own points (the lowest total is best), a game without a target's
# share, two player counts: every branch of a game's totals; how each round plays counted.
KEEPS_SCENARIO = """\
name: keeps
seed: 23
games: 240
how_it_plays: true
players: [2, 4]
variants:
  - name: standard
  - name: capped
    rules: {max_turns: 40}
  - name: low
    rules: {scoring: own_points_low_wins, target_score: 150}
  - name: stacking
    rules: {stack_draw_two: sum, round_end: to_the_last}
"""


def _scenario(text: str = KEEPS_SCENARIO):
    return load_text(text, "keeps.yaml")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    db = tmp_path_factory.mktemp("keep") / "k.duckdb"
    ids = {}
    for kept in store.KEEPS:
        outcome = simulate(scenario=_scenario(), db=db, keep=kept, batch_games=60)
        assert outcome.status == "complete"
        ids[kept] = outcome.run_id
    return db, ids


@pytest.fixture()
def con(runs):
    c = store.open_store(runs[0], read_only=True)
    yield c
    c.close()


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _by_cell(found):
    return {(variant, players): v for (_, variant, players), v in found.items()}


def test_every_sum_is_the_same_whatever_was_kept(runs, con):
    _, ids = runs
    for games in (None, 120):
        found = {k: _by_cell(sums.cell_sums(con, "c.run_id = $r", {"r": r}, games=games))
                 for k, r in ids.items()}
        assert len(found["rows"]) == 8
        assert found["rows"][("capped", 4)]["capped"] > 0  # the cap's branch is taken
        for kept in ("games", "summary"):
            assert found[kept].keys() == found["rows"].keys()
            for cell, expected in found["rows"].items():
                assert expected["games"] == (games or 240)
                for name, value in expected.items():
                    assert _close(value, found[kept][cell][name]), (kept, cell, name)


def test_the_summary_precision_and_goals_agree_across_keeps(runs, con):
    _, ids = runs
    rows = {k: summary_rows(con, r) for k, r in ids.items()}
    stats = list(precision.STATISTICS)
    estimates = {k: precision.run_estimates(con, r, stats) for k, r in ids.items()}
    one = {k: precision.cell_estimates(con, r, "low", 4, 180, stats) for k, r in ids.items()}
    goal_sums = {k: goals.cell_sums(con, sums.cell_sums, r) for k, r in ids.items()}
    for kept in ("games", "summary"):
        for mine, theirs in zip(rows["rows"], rows[kept]):
            for column, value in mine.items():
                if column not in ("run_id",):
                    assert value == theirs[column] or _close(value, theirs[column]), column
        for cell, by_stat in estimates["rows"].items():
            for stat, e in by_stat.items():
                other = estimates[kept][cell][stat]
                assert _close(e.lo, other.lo) and _close(e.hi, other.hi), (kept, cell, stat)
        for stat, e in one["rows"].items():
            assert e.n == one[kept][stat].n and _close(e.value, one[kept][stat].value)
        for variant, s in goal_sums["rows"].items():
            mine = goals.estimates(s, 4, 4.0)
            theirs = goals.estimates(goal_sums[kept][variant], 4, 4.0)
            for name, e in mine.items():
                assert _close(e.lo, theirs[name].lo) and _close(e.hi, theirs[name].hi), name
    assert rows["rows"][0]["games"] == 240 and rows["rows"][0]["turns_per_round_lo"] > 0


def test_compare_is_unpaired_from_sums_and_paired_where_games_were_kept(runs, con):
    _, ids = runs
    refs = {k: (compare.CellRef(r, "standard", 4), compare.CellRef(r, "stacking", 4))
            for k, r in ids.items()}
    loaded = compare.load_cells(con, [ref for pair in refs.values() for ref in pair])
    results = {k: compare.compare_cells(loaded[a], loaded[b], compare.ALL_STATISTICS)
               for k, (a, b) in refs.items()}
    assert results["rows"].rows[0].paired and results["games"].rows[0].paired
    for mine, theirs in zip(results["rows"].rows, results["games"].rows):
        assert _close(mine.diff, theirs.diff) and _close(mine.lo, theirs.lo), mine.statistic
    assert not results["summary"].rows[0].paired
    assert "kept summary" in results["summary"].note and "--keep rows or games" in \
        results["summary"].note
    # unpaired: the same from the rows' sums, the totals' and the blocks'
    across = {k: compare.compare_cells(loaded[refs[k][0]],
                                       loaded[compare.CellRef(ids["summary"], "stacking", 4)],
                                       compare.ALL_STATISTICS) for k in ("rows", "games")}
    for row, other in zip(across["rows"].rows, across["games"].rows):
        assert not row.paired and _close(row.lo, other.lo) and _close(row.hi, other.hi)
        assert row.method == compare.UNPAIRED_METHOD
    # and the same as the per-game residuals give
    a = loaded[refs["rows"][0]]
    for stat in compare.ALL_STATISTICS:
        r, u = compare._ratio(a.totals, stat)
        r2, var = compare._ratio_from_sums(a.sums, stat)
        assert _close(r, r2) and _close(compare._var_of_mean(u), var), stat


def test_the_round_length_histogram_is_kept_by_every_keep(runs, con):
    _, ids = runs
    found = {k: _by_cell(sums.round_lengths(con, "c.run_id = $r", {"r": r}))
             for k, r in ids.items()}
    assert found["rows"] == found["games"] == found["summary"]
    assert sum(found["rows"][("standard", 2)].values()) > 240


def test_games_keeps_games_and_seats_and_summary_no_rows(runs, con):
    _, ids = runs
    counts = {k: con.execute(
        "SELECT (SELECT count(*) FROM games WHERE run_id = $r), "
        "(SELECT count(*) FROM game_seats WHERE run_id = $r), "
        "(SELECT count(*) FROM rounds WHERE run_id = $r)", {"r": r}).fetchall()[0]
        for k, r in ids.items()}
    assert counts["rows"][0] == counts["games"][0] == 8 * 240
    assert counts["games"][1] == counts["rows"][1] and counts["games"][2] == 0
    assert counts["summary"] == (0, 0, 0)
    assert store.run_info(con, ids["summary"])["keep"] == "summary"
    assert {c["games_completed"] for c in store.run_info(con, ids["summary"])["cells"]} == {240}


def test_a_resume_keeps_what_its_run_kept(tmp_path, stop_after):
    db = tmp_path / "r.duckdb"
    scenario = _scenario()
    from unostats.base.signals import StopRequest

    whole = simulate(scenario=scenario, db=db, keep="summary", batch_games=60)
    stop = StopRequest()
    stopped = simulate(scenario=scenario, db=db, keep="summary", batch_games=60, stop=stop,
                       progress=stop_after(stop, 3))
    assert stopped.status == "interrupted"
    with pytest.raises(RunError, match=r"keeps summary .* cannot be resumed with --keep rows"):
        resume(run=stopped.run_id, db=db, keep="rows")
    done = resume(run=stopped.run_id, db=db, batch_games=60)
    assert done.status == "complete"
    con = store.open_store(db, read_only=True)
    try:
        a = _by_cell(sums.cell_sums(con, "c.run_id = $r", {"r": whole.run_id}))
        b = _by_cell(sums.cell_sums(con, "c.run_id = $r", {"r": done.run_id}))
        with pytest.raises(store.StoreError, match="inside a stored block"):
            sums.cell_sums(con, "c.run_id = $r", {"r": done.run_id}, games=100)
    finally:
        con.close()
    assert a == b


def test_precision_targets_stop_alike_whatever_was_kept(tmp_path):
    text = KEEPS_SCENARIO.replace("games: 240", "games: 3000") + (
        "precision: {turns_per_round: 0.8}\n")
    db = tmp_path / "p.duckdb"
    stops = {}
    for kept in ("rows", "summary"):
        run = simulate(scenario=_scenario(text), db=db, keep=kept)
        con = store.open_store(db, read_only=True)
        try:
            stops[kept] = sorted(con.execute(
                "SELECT variant, players, max(games), max(half_width) FILTER (WHERE look = "
                "(SELECT max(look) FROM precision_looks q WHERE q.run_id = p.run_id AND "
                "q.variant = p.variant AND q.players = p.players)) FROM precision_looks p "
                "WHERE run_id = $r GROUP BY ALL", {"r": run.run_id}).fetchall())
        finally:
            con.close()
    assert len(stops["rows"]) == 8
    for mine, theirs in zip(stops["rows"], stops["summary"]):
        assert mine[:3] == theirs[:3] and _close(mine[3], theirs[3])


def test_what_cannot_be_kept_is_refused(tmp_path):
    with pytest.raises(RunError, match="Parquet store .* keeps rows only"):
        simulate(scenario=_scenario(), db=store.parquet_location(f"parquet:{tmp_path / 'p'}"),
                 keep="games")
    with pytest.raises(RunError, match="expected one of rows, games, summary"):
        simulate(scenario=_scenario(), db=tmp_path / "x.duckdb", keep="everything")


def _totals(cell, counting: bool, **kwargs):
    batches = list(simulate_arrow(rules=cell.variant.rules, players=cell.players,
                                  seats=cell.seats, seed=3, totals=True, how_it_plays=counting,
                                  **{"games": 50, "batch_games": 50, **kwargs}))
    totals = pa.concat_tables(b.game_totals for b in batches)
    winners = np.concatenate([b.games["winner_seat"].to_numpy(zero_copy_only=False)
                              for b in batches])
    return keep.game_totals(totals, np.nan_to_num(winners, nan=-1).astype(np.int64), 500.0)


def test_a_measure_not_counted_sums_to_null_not_zero():
    cell = next(_scenario().cells())
    totals = _totals(cell, counting=False)
    assert np.isnan(totals["uno_stops"]).all() and not np.isnan(totals["turns"]).any()
    block = keep.block_sums(totals)
    assert block["uno_stops"] is None and block["uno_stops__rounds"] is None
    assert block["games"] == 50 and block["rounds"] == totals["rounds"].sum()
    counted = _totals(cell, counting=True)
    assert not np.isnan(counted["uno_stops"]).any()
    assert keep.block_sums(counted)["decision_turns"] > 0


def test_the_engine_s_totals_are_the_same_whatever_the_cut_and_its_games_as_with_rows():
    cell = [c for c in _scenario().cells() if c.players == 4 and c.variant.name == "low"][0]
    whole = _totals(cell, counting=True, games=300, batch_games=300, threads=1)
    cut = _totals(cell, counting=True, games=300, batch_games=37, threads=2)
    assert whole.keys() == cut.keys()
    for name, values in whole.items():
        np.testing.assert_array_equal(values, cut[name], err_msg=name)
    assert whole["lead_changes"].sum() > 0 and (whole["rounds"] > 1).any()
    kw = dict(rules=cell.variant.rules, players=4, seats=cell.seats, games=120, seed=3,
              batch_games=50)
    for rows, totals in zip(simulate_arrow(**kw), simulate_arrow(totals=True, **kw),
                            strict=True):
        assert rows.games.equals(totals.games) and rows.game_seats.equals(totals.game_seats)
        assert not hasattr(totals, "rounds") and not hasattr(totals, "round_seats")
        assert rows.round_count() == totals.round_count() == len(rows.rounds)
        lengths = np.bincount(rows.rounds["turns"].to_numpy())
        mine = np.bincount(totals.round_lengths["turns"].to_numpy(),  # a length once a part
                           weights=totals.round_lengths["rounds"].to_numpy())
        np.testing.assert_array_equal(mine, lengths)


def test_a_batch_without_what_its_run_keeps_is_refused(tmp_path):
    scenario = _scenario()
    cell = next(scenario.cells())
    kw = dict(rules=cell.variant.rules, players=cell.players, seats=cell.seats, games=5, seed=1)
    for kept, batch in (("rows", next(iter(simulate_arrow(totals=True, **kw)))),
                        ("games", next(iter(simulate_arrow(**kw))))):
        con = store.open_store(tmp_path / f"{kept}.duckdb", read_only=False)
        try:
            run_id = store.start_run(
                con, command="test", seed=1, games_requested=5, scenario_name="s",
                scenario_text="name: s\n", scenario_json={"name": "s"}, scenario_hash="s",
                variants=[{"variant": cell.variant.name, "players": cell.players,
                           "rules_json": cell.variant.rules.canonical_json(),
                           "rules_hash": "h", "description": ""}],
                versions={"unostats_version": "0.1", "engine_version": "1",
                          "numba_version": "0"}, keep=kept)
            with pytest.raises((store.StoreError, ValueError), match="totals"):
                store.write_batch(con, run_id, cell.variant.name, cell.players, batch)
        finally:
            con.close()


def test_how_it_plays_is_the_same_from_sums_and_says_what_it_cannot_show(runs, con):
    from unostats.games import plays

    _, ids = runs
    found = {k: {(c.variant, c.players): c for c in plays.load_plays(con, [r])}
             for k, r in ids.items()}
    ratios = {"decision_share", "legal_cards_per_decision", "uno_stops",
              "uno_stops_still_won_share"}
    for kept in ("games", "summary"):
        for cell, mine in found["rows"].items():
            theirs = found[kept][cell]
            assert theirs.kept == kept and "balance" in mine.estimates
            assert "balance" not in theirs.estimates
            for key, e in mine.estimates.items():
                if key == "balance":
                    continue
                other = theirs.estimates[key]
                assert _close(e.value, other.value), (kept, cell, key)
                if key not in ratios:  # the same interval; the ratios' over games instead
                    assert _close(e.lo, other.lo) and _close(e.hi, other.hi), (kept, key)
        note = plays.kept_note(list(found[kept].values()))
        assert f"({kept})" in note and "balance needs --keep rows" in note
    assert plays.kept_note(list(found["rows"].values())) is None


def test_a_report_of_runs_that_kept_less_shows_what_they_kept_and_says_the_rest(runs, con):
    from unostats.report.figures import build_figures
    from unostats.report.model import load_model

    _, ids = runs
    models = {k: load_model(con, [r]) for k, r in ids.items()}
    rows = models["rows"]
    for kept in ("games", "summary"):
        model = models[kept]
        assert any(f"kept {kept} (--keep {kept})" in note for note in model.notes)
        assert [c.games for c in model.cells] == [c.games for c in rows.cells]
        assert [c.rounds for c in model.cells] == [c.rounds for c in rows.cells]
        for key, summary in rows.measures["round_turns"].summaries.items():
            other = model.measures["round_turns"].summaries[key._replace(run_id=ids[kept])]
            assert _close(summary.mean.lo, other.mean.lo) and summary.quantiles == \
                other.quantiles and _close(summary.capped.value, other.capped.value)
        for key, d in rows.durations.items():
            other = model.durations[key._replace(run_id=ids[kept])]
            assert _close(d.game.lo, other.game.lo) and _close(d.round.hi, other.round.hi)
        assert not model.game_positions and not model.round_positions
        figs = build_figures(model)  # a chart of what was not kept is left out, not drawn empty
        assert "fig-positions-round" not in figs and "fig-round-cards-drawn-hist" not in figs
        assert ("fig-game-rounds-hist" in figs) == (kept == "games")
        assert "fig-round-turns-hist" in figs  # from the round-length histogram every keep has
    figs = build_figures(rows)
    assert {"fig-positions-round", "fig-round-cards-drawn-hist", "fig-game-rounds-hist"} <= set(figs)
    assert not any("kept" in note for note in rows.notes)


def test_an_export_of_a_run_that_kept_less_holds_what_it_kept(runs, tmp_path):
    import pyarrow.parquet as pq

    db, ids = runs
    con = store.open_store(db, read_only=True, writes_in=tmp_path)
    try:
        _exports(con, ids, tmp_path, pq)
    finally:
        con.close()


def _exports(con, ids, tmp_path, pq):
    paths = {p.name: p for p in store.export_run(con, ids["summary"], tmp_path / "s")}
    assert {"block_sums.parquet", "round_lengths.parquet"} <= set(paths)
    blocks = pq.read_table(paths["block_sums.parquet"])
    assert set(blocks["run_id"].to_pylist()) == {ids["summary"]}
    assert sum(v for n, v in zip(blocks["name"].to_pylist(), blocks["value"].to_pylist())
               if n == "games") == 8 * 240
    paths = {p.name: p for p in store.export_run(con, ids["games"], tmp_path / "g")}
    assert pq.read_table(paths["game_totals.parquet"]).num_rows == 8 * 240


def test_the_game_measures_view_reads_the_totals_of_a_run_that_kept_games(runs, con):
    _, ids = runs
    found = {k: con.execute(
        "SELECT variant, players, game, rounds, winner_seat, lead_changes, comeback, drama, "
        "drama_share, decisiveness FROM game_measures WHERE run_id = $r ORDER BY ALL",
        {"r": r}).fetchall() for k, r in ids.items()}
    assert len(found["rows"]) == 8 * 240 and found["summary"] == []
    for mine, theirs in zip(found["rows"], found["games"], strict=True):
        assert all(_close(a, b) if isinstance(a, float) else a == b
                   for a, b in zip(mine, theirs)), (list(mine), list(theirs))


def test_keep_on_the_command_line(invoke, tmp_path):
    db = str(tmp_path / "c.duckdb")
    done = invoke("simulate", "standard", "--games", "30", "--seed", "2", "--db", db,
                  "--keep", "summary", "--set", "players=4", "-q")
    assert done.exit_code == 0, done.output
    assert "turns/round" in done.stdout and "kept less than rows" in done.stdout
    assert "not counted" in done.stdout  # its rounds' counters: how_it_plays is off by default
    assert done.stdout.endswith(".\n")  # the line under the block ends: the next output starts
    bad = invoke("simulate", "standard", "--db", db, "--keep", "everything")
    assert bad.exit_code == 2 and "everything" in bad.output
    tour = invoke("simulate", "championship", "--games", "2", "--db", db, "--keep", "games")
    assert tour.exit_code == 2 and "keeps rows only" in tour.output
    con = store.open_store(db, read_only=True)
    try:
        (kept, command), = con.execute("SELECT keep, command FROM runs").fetchall()
    finally:
        con.close()
    assert kept == "summary" and "--keep summary" in command
