"""How a variant plays, from hand-made stored games whose measures are counted by hand: the
views ``game_measures`` (lead changes, comebacks, drama, decisiveness by the scoring's own
order) and ``how_it_plays`` (per cell, with intervals), the summary's block, and ``compare``'s
new statistics."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import polars as pl
import pytest

from unostats import codes, stats, store
from unostats.base import compare
from unostats.games import plays


def stored_games(players: int, games: list[tuple[int, list[tuple[int, ...]]]],
                 measures: dict[str, list[int]] | None = None) -> SimpleNamespace:
    """Frames of ``games``: each (winner seat, the seats' totals after each round); every round
    is won by seat 0 in 10 turns unless ``measures`` (per round, in order) says otherwise, and
    seat 0 plays first (positions are seats)."""
    rounds, seats, game_rows, final = [], [], [], []
    for g, (winner, totals) in enumerate(games):
        for r, after in enumerate(totals, start=1):
            rounds.append({"game": g, "round": r, "dealer_seat": players - 1, "first_seat": 0,
                           "winner_seat": 0, "winner_position": 0, "points": 10,
                           "ended_by": "win", "loser_seat": None, "largest_penalty": 0})
            seats += [{"game": g, "round": r, "seat": s, "position": s, "cards_left": 0,
                       "hand_points": 0, "score_after": after[s], "hands_emptied": 0,
                       "finish_place": None} for s in range(players)]
        game_rows.append({"game": g, "rounds": len(totals), "turns": 10 * len(totals),
                          "first_seat": 0, "winner_seat": winner, "margin": 0,
                          "ended_by": "target"})
        final += [{"game": g, "seat": s, "policy": "random", "final_score": totals[-1][s],
                   "rank": 1 if s == winner else 2, "is_winner": s == winner,
                   "is_loser": s != winner} for s in range(players)]
    n = len(rounds)
    columns = {name: [0] * n for name in (*codes.COUNTER_NAMES, *codes.MEASURE_NAMES)}
    columns["turns"] = [10] * n
    columns.update(measures or {})
    frame = pl.DataFrame(rounds).with_columns(
        pl.col("loser_seat").cast(pl.Int8),
        **{k: pl.Series(v, dtype=pl.Int64) for k, v in columns.items()})
    return SimpleNamespace(games=pl.DataFrame(game_rows), game_seats=pl.DataFrame(final),
                           rounds=frame, round_seats=pl.DataFrame(seats))


# Highest total wins, target 100. Game 0 (won by seat 2): leaders 0, 1, 2, 2 (two changes);
# seat 2 alone last after round 2 (a comeback); its largest deficit 40 (round 2); it led for
# good from round 3, so one of four rounds came after. Game 1 (won by seat 0): leaders 2, 0 (one
# change); nobody alone last; deficit 60 (round 1); it took the lead in the last round.
HIGH = [(2, [(30, 0, 0), (30, 40, 0), (30, 40, 50), (30, 40, 120)]),
        (0, [(0, 0, 60), (110, 0, 60)])]
# Lowest total wins (own_points_low_wins), target 100: seat 0 trails after round 1 (10 to 0),
# then seat 1 passes the target; the winner, seat 0, came back from last, 10 points behind.
LOW = [(0, [(10, 0), (10, 120)])]
ROUND_MEASURES = {"turns": [10, 20, 30, 40, 10, 30], "decision_turns": [5, 10, 15, 20, 5, 15],
                  "legal_cards_on_decisions": [10, 30, 30, 40, 10, 30],
                  "hand_leader_changes": [1, 2, 3, 4, 5, 6],
                  "winner_largest_deficit": [2, 2, 2, 2, 2, 2],
                  "uno_stops": [1, 0, 2, 0, 1, 0], "uno_stops_still_won": [1, 0, 0, 0, 1, 0]}


VARIANTS = [("high", 3, {"scoring": "winner_takes_all", "target_score": 100}),
            ("low", 2, {"scoring": "own_points_low_wins", "target_score": 100})]


def _start(con, run_id: str, variants) -> str:
    return store.start_run(
        con, run_id=run_id, command="test", seed=1, games_requested=3, scenario_name="s",
        scenario_text="name: s\n", scenario_json={"name": "s"}, scenario_hash=run_id,
        variants=[{"variant": v, "players": p, "rules_json": rules, "rules_hash": v,
                   "description": ""} for v, p, rules in variants],
        versions={"unostats_version": "0.1", "engine_version": "1", "numba_version": "0"})


def _open(tmp_path, uncounted: bool):
    db = tmp_path / "plays.duckdb"
    con = store.open_store(db, read_only=False)
    run_id = _start(con, "plays", VARIANTS)
    store.write_batch(con, run_id, "high", 3, stored_games(3, HIGH, ROUND_MEASURES))
    store.write_batch(con, run_id, "low", 2, stored_games(2, LOW))
    if uncounted:  # a run that did not count how its rounds play: the same games, measures null
        store.write_batch(con, _start(con, "uncounted", VARIANTS[:1]), "high", 3, stored_games(
            3, HIGH, {**ROUND_MEASURES, **dict.fromkeys(codes.MEASURE_NAMES, [None] * 6)}))
    con.close()
    return store.open_store(db, read_only=True)


@pytest.fixture
def con(tmp_path):
    con = _open(tmp_path, uncounted=False)
    yield con
    con.close()


@pytest.fixture
def con_uncounted(tmp_path):
    con = _open(tmp_path, uncounted=True)
    yield con
    con.close()


def test_game_measures_follow_the_standings_in_the_scorings_order(con):
    rows = store.query(con, "SELECT variant, game, lead_changes, comeback, drama, drama_share, "
                            "decisiveness FROM game_measures ORDER BY variant, game").rows()
    assert rows == [("high", 0, 2, True, 40, 0.4, 0.25), ("high", 1, 1, False, 60, 0.6, 0.0),
                    ("low", 0, 1, True, 10, 0.1, 0.0)]


def test_how_it_plays_gives_every_measure_with_its_interval(con):
    row = store.query(con, "SELECT * FROM how_it_plays WHERE variant = 'high'").row(
        0, named=True)
    assert (row["n_games"], row["n_won_games"], row["n_rounds"]) == (2, 2, 6)
    assert row["lead_changes"] == 1.5 and row["comeback_share"] == 0.5
    wilson = stats.wilson_interval(1, 2)
    assert (row["comeback_share_lo"], row["comeback_share_hi"]) == pytest.approx(
        (wilson.lo, wilson.hi))
    assert row["drama_share"] == pytest.approx(0.5) and row["decisiveness"] == 0.125
    assert row["drama_share_hi"] - row["drama_share"] == pytest.approx(
        stats.Z95 * 0.1 * math.sqrt(2) / math.sqrt(2))  # sd of (0.4, 0.6) / sqrt(2)
    # Games won at positions 2 and 0 of 3: the rates 1/2, 0, 1/2, the largest gap 1/2.
    assert row["balance"] == 0.5 and row["balance_lo"] < 0.5 <= row["balance_hi"]
    m = ROUND_MEASURES
    assert row["decision_share"] == pytest.approx(sum(m["decision_turns"]) / sum(m["turns"]))
    assert row["legal_cards_per_decision"] == pytest.approx(
        sum(m["legal_cards_on_decisions"]) / sum(m["decision_turns"]))
    assert row["hand_leader_changes"] == 3.5 and row["winner_largest_deficit"] == 2
    assert row["uno_stops"] == pytest.approx(4 / 6)
    assert row["uno_stops_still_won_share"] == 0.5
    for key in ("decision_share", "legal_cards_per_decision", "uno_stops_still_won_share",
                "hand_leader_changes", "uno_stops"):
        assert row[f"{key}_lo"] <= row[key] <= row[f"{key}_hi"], key
    # decisions are half of every round's turns: the ratio has no spread over rounds
    assert row["decision_share_hi"] == pytest.approx(row["decision_share"])


def test_the_summary_block_and_compare_show_the_measures(con):
    cells = plays.load_plays(con, ["plays"])
    assert [(c.variant, c.players) for c in cells] == [("high", 3), ("low", 2)]
    high = cells[0].estimates
    assert high["comeback_share"].value == 0.5 and high["comeback_share"].n == 2
    assert high["lead_changes"].method.startswith("normal")
    text = plays.block(cells)
    assert "How it plays, per game" in text and "How it plays, per round" in text
    assert re.search(r"  50(\.0+)? \[", text)  # the comeback share, in percent, with its interval
    assert "comebacks (%)" in text
    ref = compare.CellRef("plays", "high", 3)
    totals = compare.load_cell(con, ref).totals
    assert list(totals["lead_changes"]) == [2, 1] and list(totals["comeback"]) == [1, 0]
    assert list(totals["decision_turns"]) == [50, 20]
    rows = {r.statistic: r for r in compare.compare_cells(
        compare.load_cell(con, ref), compare.load_cell(con, ref), compare.ALL_STATISTICS).rows}
    assert rows["decision_share"].a == pytest.approx(70 / 140)
    assert rows["comeback_share"].a == 0.5 and rows["lead_changes_per_game"].a == 1.5


def test_the_report_section_puts_the_variants_side_by_side(con):
    from unostats.kinds import report_sections

    section = next(s for s in report_sections() if s.name == "plays")
    data = section.load(con, ["plays"])
    assert [c.variant for c in data.cells] == ["high", "low"]
    (div, fig, caption), = section.figures(data)
    assert div == "fig-plays" and len(fig.data) == len(plays.MEASURES)
    comebacks = fig.data[[m.key for m in plays.MEASURES].index("comeback_share")]
    assert list(comebacks.x) == [50.0, 100.0]  # in %: high 1 of 2 games, low 1 of 1
    assert "higher means" in caption
    view = section.view(data)
    assert view["labels"] == ["high, 3p", "low, 2p"]
    game_rows = view["tables"][0]["rows"]
    assert game_rows[1]["measure"].startswith("comebacks")
    assert game_rows[1]["cells"][0]["value"].startswith("50") and game_rows[1]["cells"][0]["n"] == "2"


def test_the_report_page_has_the_section_with_every_measure(report_runs, tmp_path):
    """The built page: a "How it plays" section in the contents, its chart and both tables,
    a row per measure with an interval in every cell."""
    from unostats.report.build import build_report

    path, runs = report_runs
    page = build_report(db_path=path, run_ids=[runs["compare"]], out=tmp_path / "r.html",
                        index=False).read_text(encoding="utf-8")
    assert '<a href="#plays">How it plays</a>' in page and 'id="fig-plays-figure"' in page
    for level, measures in ((1, "game"), (2, "round")):
        table = page.split(f'id="table-plays-{level}"')[1].split("</table>")[0]
        rows = table.split("<tbody>")[1].split("</tr>")[:-1]
        assert len(rows) == sum(m.level == measures for m in plays.MEASURES)
        assert all(row.count('class="ci"') >= 1 for row in rows)


def test_every_reader_says_not_counted_where_a_run_did_not_count(con_uncounted):
    """A run without ``how_it_plays``: its per-game measures are there (from the standings),
    its per-round ones "not counted" in the summary's block, the report's section and
    ``compare``, never blank or zero."""
    con = con_uncounted
    (cell,) = plays.load_plays(con, ["uncounted"])
    assert not cell.counted and plays.load_plays(con, ["plays"])[0].counted
    assert cell.estimates["lead_changes"].value == 1.5  # the game measures, as counted above
    assert not any(m.key in cell.estimates for m in plays.MEASURES if m.level == "round")
    text = plays.block([cell])
    per_game, per_round = text.split("How it plays, per round")
    assert "not counted" not in per_game
    row = next(line for line in per_round.splitlines() if "uncounted" in line)
    assert row.count("not counted") == sum(m.level == "round" for m in plays.MEASURES)
    assert plays.NOT_COUNTED_WHY in per_round
    narrow = plays.block([cell], width=60).split("How it plays, per round")[1]
    assert "how_it_plays: true" in narrow.replace("\n", " ")
    assert max(map(len, narrow.splitlines())) <= 60
    view = plays.view(plays.PlaysSection((cell,)))
    game_table, round_table = view["tables"]
    assert game_table["note"] is None and all(r["cells"][0] for r in game_table["rows"])
    assert all(r["cells"] == ["not counted"] for r in round_table["rows"])
    assert "how_it_plays: true" in round_table["note"]
    counted, plain = (compare.load_cell(con, compare.CellRef(run, "high", 3))
                      for run in ("plays", "uncounted"))
    rows = {r.statistic: r for r in compare.compare_cells(counted, plain,
                                                          compare.ALL_STATISTICS).rows}
    for stat in compare.COUNTED:
        assert rows[stat].method.startswith("not counted: uncounted/high/3"), stat
        assert math.isfinite(rows[stat].a) and rows[stat].b is None, stat
        assert rows[stat].diff is None and rows[stat].lo is None, stat
    assert rows["decision_share"].a == pytest.approx(70 / 140)
    assert rows["lead_changes_per_game"].diff == 0  # the same games: the standings agree
    shown = compare.format_comparisons([compare.Comparison(
        counted.ref, plain.ref, tuple(rows.values()), "")])
    line = next(x for x in shown.splitlines() if "UNO stops/round" in x)
    assert "not counted" in line
    assert set(compare.COUNTED) == {stat for stat in compare.PLAY_STATISTICS
                                    if rows[stat].method.startswith("not counted")}


def test_the_report_page_says_not_counted_for_a_run_that_did_not_count(report_runs, tmp_path):
    """The 'ablation' run does not count how its rounds play: every per-round row of the
    section says so, with the note on how a run asks."""
    from unostats.report.build import build_report

    path, runs = report_runs
    page = build_report(db_path=path, run_ids=[runs["ablation"]], out=tmp_path / "r.html",
                        index=False).read_text(encoding="utf-8")
    games = page.split('id="table-plays-1"')[1].split("</table>")[0]
    assert "not counted" not in games and 'class="ci"' in games
    after = page.split('id="table-plays-2"')[1]
    table = after.split("</table>")[0]
    rows = table.split("<tbody>")[1].split("</tr>")[:-1]
    assert len(rows) == sum(m.level == "round" for m in plays.MEASURES)
    assert all("<td>not counted</td>" in row and 'class="ci"' not in row for row in rows)
    assert "how_it_plays: true" in after.split("</p>")[0]
