"""Sweeps, precision-targeted runs and ``compare`` end to end: a sweep's cells stored with their
points, a precision run's reproducible stop (also across a resume), the deal of game i shared by
cells whose deck and hand size agree, and paired differences that are exact where two cells play
the same games."""

from __future__ import annotations

import json

import duckdb
import pytest

from unostats.engine.simulate import trace_game
from unostats.rules import RuleSet
from unostats.base import compare, precision
from unostats.base.session import RunError
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.games.summary import precision_rows
from unostats.scenario import ScenarioError, load_text
from unostats.seats import Seat

SWEEP = """
name: sweep-test
games: 40
seed: 11
players: [2, 3]
variants:
  - name: base
sweep:
  rules.uno_penalty: [0, 4]
  seats.behaviour.forget_uno: [0.0, 0.5]
"""


def test_a_sweep_stores_every_cell_with_its_point(tmp_path):
    scenario = load_text(SWEEP)
    cells = list(scenario.cells())
    assert len(cells) == 2 * 2 * 2
    assert cells[0].variant.name == "base uno_penalty=0 forget_uno=0.0"
    db = tmp_path / "s.duckdb"
    outcome = simulate(scenario=scenario, db=db)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT variant, players, sweep, rules_json->>'uno_penalty' FROM variants "
                       "ORDER BY variant, players").fetchall()
    con.close()
    assert len(rows) == 8
    for variant, _players, sweep, penalty in rows:
        point = json.loads(sweep)
        assert list(point) == ["rules.uno_penalty", "seats.behaviour.forget_uno"]
        assert variant == (f"base uno_penalty={point['rules.uno_penalty']} "
                           f"forget_uno={point['seats.behaviour.forget_uno']}")
        assert int(penalty) == point["rules.uno_penalty"]
    assert outcome.games_completed == 8 * 40


def test_players_sweep_the_same_way_and_are_stored_in_the_point():
    scenario = load_text(SWEEP.replace("players: [2, 3]", "players: 4")
                         + "  players: {from: 2, to: 6, step: 2}\n")
    cells = list(scenario.cells())
    assert sorted({c.players for c in cells}) == [2, 4, 6]
    assert cells[0].sweep == {"rules.uno_penalty": 0, "seats.behaviour.forget_uno": 0.0,
                              "players": 2}
    assert "players" not in cells[0].variant.name


@pytest.mark.parametrize(("sweep", "expected"), [
    ("  rules.uno_penalti: [1, 2]", (":8: sweep.rules.uno_penalti: variants[0].rules."
                                     "uno_penalti: unknown rule 'uno_penalti'; did you mean "
                                     "'uno_penalty'?")),
    ("  rules.uno_penalty: [1, -1]", (":8: sweep.rules.uno_penalty[1]: variants[0].rules."
                                      "uno_penalty: -1 is out of range")),
    ("  rules.hand_size: {from: 5, to: 25, step: 20}",
     ":8: sweep.rules.hand_size: at 25: variants[0].rules.hand_size: 25 is out of range"),
    ("  rules.hand_size: [7, 11]\n  players: [2, 10]",
     ":8: sweep.rules.hand_size[1]: variants[0].rules: with 10 players: the deck has 108 cards"),
    ("  rules.hand_size: {from: 5, to: 3}", ":8: sweep.rules.hand_size.to: 3 is below from"),
    ("  games: [1, 2]", ":8: sweep.games: 'games' cannot be swept"),
    ("  players: [2, 11]", ":8: sweep.players[1]: 11 is out of range"),
    ("  rules.draw: [two, two]", ":8: sweep.rules.draw[1]: 'two' (a string) repeats item 0"),
])
def test_sweep_problems_name_the_file_line_and_allowed_values(sweep, expected):
    text = "\n".join(SWEEP.strip().splitlines()[:6]) + "\nsweep:\n" + sweep + "\n"
    with pytest.raises(ScenarioError) as e:
        load_text(text, "f.yaml")
    assert any(str(p).startswith("f.yaml" + expected) or expected in str(p)
               for p in e.value.problems), str(e.value)


def test_the_canonical_form_keeps_the_sweep_and_reloads_to_the_same_cells():
    scenario = load_text(SWEEP)
    again = load_text(scenario.canonical_json())
    assert again.hash() == scenario.hash()
    assert [c.variant.name for c in again.cells()] == [c.variant.name for c in scenario.cells()]
    # a file without sweep or precision keeps its hash: neither key is added to it
    plain = load_text(SWEEP.split("sweep:")[0])
    assert "sweep" not in plain.resolved() and "precision" not in plain.resolved()


def test_the_deal_of_game_i_is_the_same_whatever_the_rules_and_behaviour():
    """Cells of one seed deal game i alike when deck and hand size agree: the trace of the
    deal (every event before the first turn) is the same under other rules and seats."""
    def deal(rules, seats):
        t = trace_game(rules=RuleSet.from_mapping(rules), players=4, seats=seats, seed=9,
                       game=3)
        from unostats import codes
        first_turn = next(i for i, e in enumerate(t.events) if e[0] == codes.EV_TURN)
        return t.events[:first_turn].tolist()

    base = deal({}, Seat())
    assert deal({"uno_penalty": 4, "stack_draw_two": "sum"},
                Seat(behaviour={"forget_uno": 0.7})) == base
    assert deal({"hand_size": 5}, Seat()) != base


PRECISE = """
name: precise
games: 3000
seed: 5
players: [2, 4]
variants:
  - name: standard
precision: {turns_per_round: 1.2}
"""


def test_a_precision_run_stops_at_a_look_reproducibly_and_across_a_resume(stop_after, stored_rows,
                                                                          tmp_path):
    scenario = load_text(PRECISE)
    a = simulate(scenario=scenario, db=tmp_path / "a.duckdb", batch_games=100)
    con = duckdb.connect(str(tmp_path / "a.duckdb"), read_only=True)
    stops = precision_rows(con, a.run_id)
    con.close()
    assert [r["players"] for r in stops] == [2, 4]
    for r in stops:
        assert r["games"] in precision.looks(3000) and r["games"] < 3000  # stopped early
        assert r["met"] and r["half_width"] <= 1.2 and r["cap"] == 3000
    assert a.games_completed == sum(r["games"] for r in stops)
    # the same seed, stopped after a few batches and resumed: the same games, the same stops
    stop = StopRequest()
    b = simulate(scenario=scenario, db=tmp_path / "b.duckdb", batch_games=100,
                 progress=stop_after(stop, 7), stop=stop)
    assert b.status == "interrupted"
    b = resume(run=b.run_id, db=tmp_path / "b.duckdb", batch_games=300)
    assert b.status == "complete"
    tables = ("games", "rounds", "precision_looks")
    assert stored_rows(tmp_path / "a.duckdb", tables, "games_completed") == \
        stored_rows(tmp_path / "b.duckdb", tables, "games_completed")


def test_a_precision_target_out_of_reach_plays_to_the_cap(tmp_path):
    scenario = load_text(PRECISE.replace("1.2}", "0.01}").replace("3000", "700"))
    outcome = simulate(scenario=scenario, db=tmp_path / "c.duckdb")
    con = duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True)
    stops = precision_rows(con, outcome.run_id)
    con.close()
    assert all(r["games"] == 700 and not r["met"] for r in stops)
    assert all(r["looks"] == 2 for r in stops)  # at 500 and at the cap


def test_precision_problems_are_reported():
    with pytest.raises(ScenarioError, match="precision.turn_per_round: unknown statistic"):
        load_text(PRECISE.replace("turns_per_round", "turn_per_round"))
    with pytest.raises(ScenarioError, match="expected a half-width > 0"):
        load_text(PRECISE.replace("1.2}", "-1}"))


COMPARED = """
name: compared
games: 300
seed: 21
players: 4
how_it_plays: true
variants:
  - name: official
  - name: same play
    rules: {uno_penalty: 4}
  - name: short hands
    rules: {hand_size: 5}
seats: {behaviour: {forget_uno: 0.0}}
"""


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    db = tmp_path_factory.mktemp("cmp") / "c.duckdb"
    return db, simulate(scenario=load_text(COMPARED), db=db).run_id


def test_paired_difference_of_cells_that_play_the_same_games_is_exactly_zero(compared):
    """No seat forgets UNO, so the penalty never applies: the same seed plays the same games,
    and the paired interval is [0, 0] while the unpaired one would not be."""
    db, run = compared
    (result,) = compare.compare(a=f"{run[:4]}/official/4", b=["latest/same play/4"], db=db)
    for row in result.rows:
        assert row.paired and row.diff == 0 and row.lo == 0 and row.hi == 0
        assert row.narrowing == 1
    assert "paired over 300 games" in result.note


def test_cells_dealt_differently_are_compared_unpaired_saying_why(compared):
    db, run = compared
    (result,) = compare.compare(a=f"{run}/official/4", b=[f"{run}/short hands/4"], db=db)
    assert not any(r.paired for r in result.rows)
    assert "hand sizes differ (7 vs 5)" in result.note
    turns = next(r for r in result.rows if r.statistic == "turns_per_round")
    assert turns.lo < turns.diff < turns.hi < 0  # shorter hands, shorter rounds


def test_compare_refuses_bad_cells(compared):
    db, _ = compared
    with pytest.raises(RunError, match="expected RUN/VARIANT/PLAYERS"):
        compare.compare(a="latest/official", b=["latest/official/4"], db=db)
    with pytest.raises(RunError, match="has player counts 4"):
        compare.compare(a="latest/official/6", b=["latest/official/4"], db=db)
    with pytest.raises(RunError, match="compared with itself"):
        compare.compare(a="latest/official/4", b=["latest/official/4"], db=db)


# --- Command line and report ---------------------------------------------------------------------

def _cli(*args):
    from typer.testing import CliRunner

    from unostats.cli import app
    return CliRunner().invoke(app, [str(a) for a in args])


def test_compare_prints_its_rows_in_every_format(compared):
    db, run = compared
    cells = [f"{run}/official/4", "latest/same play/4", "latest/short hands/4"]
    csv = _cli("compare", *cells, "--db", db, "--format", "csv")
    assert csv.exit_code == 0, csv.output
    lines = csv.stdout.splitlines()
    assert lines[0] == "a_cell,b_cell,statistic,a,b,diff,lo,hi,method,paired,games,narrowing"
    k = len(compare.ALL_STATISTICS)  # the four, then how it plays
    assert len(lines) == 1 + 2 * k
    rows = json.loads(_cli("compare", *cells, "--db", db, "-f", "json").stdout)
    assert [r["paired"] for r in rows] == [True] * k + [False] * k
    assert [r["statistic"] for r in rows[:k]] == list(compare.ALL_STATISTICS)
    ndjson = _cli("compare", *cells[:2], "--db", db, "-f", "ndjson").stdout.splitlines()
    assert len(ndjson) == k and json.loads(ndjson[0])["narrowing"] == 1
    table = _cli("compare", *cells, "--db", db)
    assert "turns/round" in table.stdout and "paired over 300 games" in table.stderr
    assert "unpaired (games independent): the hand sizes differ" in table.stderr
    bad = _cli("compare", "latest/nope/4", cells[1], "--db", db)
    assert bad.exit_code == 2 and "no cell 'nope' at 4 players" in bad.stderr


def test_validate_resolved_lists_a_sweeps_cells(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SWEEP)
    ok = _cli("validate", path)
    assert ok.exit_code == 0 and "4 points, 8 cells" in ok.stdout
    resolved = json.loads(_cli("validate", path, "--resolved").stdout)
    assert resolved["sweep"] == [{"rules.uno_penalty": [0, 4],
                                  "seats.behaviour.forget_uno": [0.0, 0.5]}]
    assert len(resolved["cells"]) == 8
    assert resolved["cells"][-1] == {"variant": "base uno_penalty=4 forget_uno=0.5",
                                     "players": 3, "sweep": {"rules.uno_penalty": 4,
                                                             "seats.behaviour.forget_uno": 0.5}}


def test_precision_option_is_the_scenario_key(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(PRECISE.replace("precision: {turns_per_round: 1.2}", ""))
    db = tmp_path / "p.duckdb"
    out = _cli("simulate", path, "--db", db, "--games", 1200, "--precision",
               "turns_per_round=1.2", "-q")
    assert out.exit_code == 0, out.output
    assert "half-width reached" in out.stdout and "target" in out.stdout
    con = duckdb.connect(str(db), read_only=True)
    (stored,), = con.execute("SELECT scenario_json->>'precision' FROM runs").fetchall()
    con.close()
    assert json.loads(stored) == {"turns_per_round": 1.2}
    bad = _cli("simulate", path, "--db", db, "--precision", "turns=1")
    assert bad.exit_code == 2 and "precision.turns: unknown statistic 'turns'" in bad.stderr
    bad = _cli("simulate", path, "--db", db, "--precision", "turns_per_round")
    assert bad.exit_code == 2 and "expected STAT=H" in bad.stderr


def test_the_report_of_a_sweep_draws_it_and_lists_the_compare_rows(tmp_path):
    from unostats.report.build import build_report

    text = SWEEP.replace("  seats.behaviour.forget_uno: [0.0, 0.5]\n",
                         "  seats.behaviour.forget_uno: [0.0, 0.5]\n"
                         "  - rules.hand_size: [5, 6, 7]\n")
    text = text.replace("sweep:\n  rules", "sweep:\n  - rules").replace(
        "\n  seats.behaviour", "\n    seats.behaviour")
    db = tmp_path / "r.duckdb"
    simulate(scenario=load_text(text), db=db)
    html = build_report(db_path=db, out=tmp_path / "r.html").read_text()
    assert 'id="sweep"' in html and "UNO sweep report: sweep-test" in html
    for stat in compare.STATISTICS:  # two keys: a heat map per statistic
        assert f'id="fig-sweep-0-{stat}"' in html
    for stat in compare.STATISTICS:  # one key: a chart of lines against it per statistic
        assert f'id="fig-sweep-1-{stat}"' in html
    assert 'id="table-compare-paired"' in html
    # the cells with forget_uno 0 never forget: the penalty changes nothing, paired exactly
    assert "base uno_penalty=4 forget_uno=0.0" in html and "100%" in html


def test_a_key_of_one_variant_sweeps_that_variant_only_and_seat_keys_every_seat():
    scenario = load_text("""
name: one
games: 10
players: 4
seats: [{policy: strategist}, {policy: random}, {policy: random}, {policy: random}]
variants:
  - name: a
  - name: b
sweep:
  variants.b.rules.hand_size: [5, 6]
  seats.policy: [random, wild_last]
""")
    cells = {c.variant.name: c for c in scenario.cells()}
    assert sorted(cells) == ["a policy=random", "a policy=wild_last",
                             "b hand_size=5 policy=random", "b hand_size=5 policy=wild_last",
                             "b hand_size=6 policy=random", "b hand_size=6 policy=wild_last"]
    assert cells["a policy=wild_last"].variant.rules.values["hand_size"] == 7
    assert cells["b hand_size=6 policy=random"].variant.rules.values["hand_size"] == 6
    assert {s.policy for s in cells["a policy=wild_last"].seats} == {"wild_last"}
    with pytest.raises(ScenarioError) as e:  # a bad value set in every seat: said once
        load_text(scenario.source_text.replace("wild_last]", "wild_lst]") or "", "f.yaml")
    assert len(e.value.problems) == 1
    assert str(e.value.problems[0]).startswith("f.yaml:11: sweep.seats.policy[1]: unknown "
                                               "policy 'wild_lst'; did you mean 'wild_last'?")
