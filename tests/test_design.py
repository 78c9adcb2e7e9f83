"""The design kind: the ``design:`` section checked like every key (file, line, key, allowed
values), a small search that must find the setting known to be best, the same seed giving the
same candidates and Pareto set, a stopped and resumed design giving the same, and the Pareto
set written as a scenario that loads."""

from __future__ import annotations

import pytest
import yaml

from unostats import store
from unostats.base.signals import StopRequest
from unostats.design.driver import plan
from unostats.design.spec.plan import Aim, pareto
from unostats.design.summary import design_results, scenario_yaml
from unostats.runs.simulate import resume, simulate
from unostats.scenario import ScenarioError, load_scenario, load_text
from unostats.stats import Estimate

SMALL = """\
name: shortest rounds
seed: 11
variants:
  - name: base
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
  goals:
    turns_per_round: minimize
  budget: {candidates: 6, games: 400}
"""

# 5 x 2 x 3 = 30 settings for 6 candidates: the optimiser (TPE) proposes them
SEARCHED = """\
name: club evening
seed: 3
variants:
  - name: house
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
    rules.seven_zero: [false, true]
    rules.stack_draw_two: [none, sum, pass_on]
  goals:
    minutes_per_game: {between: [15, 35]}
    turns_per_round: minimize
  budget: {candidates: 6, games: 300}
"""


def _run(text: str, db, **options):
    return simulate(scenario=load_text(text, "design.yaml"), db=db, **options)


def _answer(db, run_id):
    result, = design_results(db=db, run_ids=[run_id])
    candidates = [(c.name, c.games, round(c.estimates["turns_per_round"].value, 9))
                  for c in result.candidates]
    return result, candidates, [c.name for c in result.pareto]


# --- The section -----------------------------------------------------------------------------------

BAD = """\
name: bad
games: 10
variants:
  - name: base
design:
  players: 4
  search:
    rules.hand_sise: [5, 6]
    deck.wild_draw_four: {from: 2, to: 6}
    rules.seven_zero: {from: 0, to: 1}
    rules.uno_penalty: {from: 4, to: 2}
    rules.stack_draw_two: [none, double]
    players: [2, 4]
    rules.hand_size: [5, 30]
  goals:
    lead_changez: maximize
    minutes_per_game: {between: [30, 20]}
    first_player_excess: {at_most: -2}
    turns_per_round: maximise
  budget: {candidates: 0, games: 100}
"""


def test_bad_design_sections_are_refused_with_file_line_key_and_allowed_values():
    with pytest.raises(ScenarioError) as e:
        load_text(BAD, "bad.yaml")
    lines = str(e.value).splitlines()
    expected = [
        ("bad.yaml:2: games: ", "not used in a design scenario"),
        ("bad.yaml:8: design.search.rules.hand_sise: ",
         "unknown rule 'hand_sise'; did you mean 'hand_size'? allowed: hand_size, first_card"),
        ("bad.yaml:9: design.search.deck.wild_draw_four: ",
         "did you mean 'rules.deck.wild_draw_four'?"),
        ("bad.yaml:10: design.search.rules.seven_zero: ",
         "seven_zero takes false, true: give them as a list"),
        ("bad.yaml:11: design.search.rules.uno_penalty.to: ", "2 is below from (4)"),
        ("bad.yaml:12: design.search.rules.stack_draw_two[1]: ",
         "unknown value 'double'; allowed: none, sum, pass_on"),
        ("bad.yaml:13: design.search.players: ", "'players' cannot be searched"),
        ("bad.yaml:14: design.search.rules.hand_size[1]: ",
         "30 is out of range: expected an integer from 1 to 20"),
        ("bad.yaml:16: design.goals.lead_changez: ",
         "unknown statistic 'lead_changez'; did you mean 'lead_changes_per_game'? allowed: "
         "minutes_per_game, turns_per_round"),
        ("bad.yaml:17: design.goals.minutes_per_game.between: ",
         "[30, 20] is an impossible range"),
        ("bad.yaml:18: design.goals.first_player_excess.at_most: ",
         "takes values from -1 to 1: this constraint can never be met"),
        ("bad.yaml:19: design.goals.turns_per_round: ",
         "unknown goal 'maximise'; did you mean 'maximize'?"),
        ("bad.yaml:20: design.budget.candidates: ", "0 is out of range"),
    ]
    assert len(lines) == len(expected), "\n".join(lines)
    for line, (where, says) in zip(lines, expected):
        assert line.startswith(where) and says in line, line


def test_a_value_is_checked_on_the_base_variant_and_an_objective_is_needed():
    text = SMALL.replace("rules.hand_size: {from: 5, to: 9}", "rules.hand_size: [5, 7, 20]") \
        .replace("players: 4", "players: 10").replace("turns_per_round: minimize",
                                                       "turns_per_round: {at_most: 40}")
    with pytest.raises(ScenarioError) as e:
        load_text(text, "d.yaml")
    lines = str(e.value).splitlines()
    assert lines[0].startswith("d.yaml:8: design.search.rules.hand_size[2]: the deck has 108 "
                               "cards, too few to deal 20 to 10 players"), lines
    assert lines[1].startswith("d.yaml:9: design.goals: no objective"), lines
    assert len(lines) == 2


def test_a_design_round_trips_through_its_canonical_form():
    scenario = load_text(SEARCHED, "d.yaml")
    again = load_text(scenario.canonical_json(), "stored")
    assert again.design == scenario.design and again.hash() == scenario.hash()
    assert [k.key for k in scenario.design.search] == sorted(k.key for k in
                                                               scenario.design.search)
    assert list(scenario.cells()) == []  # the candidates are proposed as the run goes


def test_games_caps_each_candidate_and_is_stored_with_the_design():
    from unostats.runs.simulate import prepare

    scenario, _ = prepare(load_text(SMALL, "d.yaml"), games=250)
    assert scenario.design.games == 250 and scenario.design.candidates == 6
    assert load_text(scenario.canonical_json(), "stored").hash() == scenario.hash()
    assert scenario.hash() != load_text(SMALL, "d.yaml").hash()


def test_the_pareto_set_keeps_what_meets_the_constraints_and_is_not_beaten():
    def e(value, half=1.0):
        return Estimate(value, value - half, value + half, 100, "test")

    spec = load_text(SEARCHED, "d.yaml").design
    found = {
        "fast": {"minutes_per_game": e(20), "turns_per_round": e(30)},
        "as fast": {"minutes_per_game": e(21), "turns_per_round": e(31)},  # overlaps "fast"
        "slow": {"minutes_per_game": e(22), "turns_per_round": e(40)},  # beaten by "fast"
        "too long": {"minutes_per_game": e(34.5), "turns_per_round": e(10)},  # hi 35.5 > 35
    }
    assert pareto(spec, found) == ["fast", "as fast"]
    assert Aim("x", "at_least", lo=1.0).met(e(3)) and not Aim("x", "at_least", lo=1.0).met(e(1))


# --- Runs ------------------------------------------------------------------------------------------

def test_a_small_design_finds_the_shortest_rounds(tmp_path):
    db = tmp_path / "d.duckdb"
    outcome = _run(SMALL, db)
    assert outcome.status == "complete"
    result, candidates, best = _answer(db, outcome.run_id)
    # 5 settings for a budget of 6: every one once
    assert sorted(name for name, _, _ in candidates) == [f"hand_size={n}" for n in range(5, 10)]
    assert best == ["hand_size=5"]
    games = {name: g for name, g, _ in candidates}
    assert games["hand_size=5"] == 400
    assert min(games.values()) < 400  # a candidate out of contention stopped at a look
    assert outcome.games_completed == sum(games.values())
    # a candidate's stored game is recomputed and checked by the referee like any cell's
    from unostats.runs.replay import replay

    checked = replay(run=outcome.run_id, db=db, variant="hand_size=5", game=7)
    assert checked.referee_error is None and checked.mismatches == []
    assert checked.trace_text


def test_the_same_seed_gives_the_same_candidates_and_a_stop_resumes_to_them(tmp_path,
                                                                            stop_after):
    first = _run(SEARCHED, tmp_path / "a.duckdb")
    second = _run(SEARCHED, tmp_path / "b.duckdb")
    _, candidates, best = _answer(tmp_path / "a.duckdb", first.run_id)
    assert len(candidates) == 6 and best
    assert _answer(tmp_path / "b.duckdb", second.run_id)[1:] == (candidates, best)

    db = tmp_path / "c.duckdb"
    stop = StopRequest()
    stopped = _run(SEARCHED, db, batch_games=50, progress=stop_after(stop, 9), stop=stop)
    assert stopped.status == "interrupted"
    assert 0 < stopped.games_completed < first.games_completed
    resumed = resume(run=stopped.run_id, db=db, batch_games=200)
    assert resumed.status == "complete"
    assert resumed.games_completed == first.games_completed
    assert _answer(db, stopped.run_id)[1:] == (candidates, best)


def test_another_seed_proposes_other_candidates(tmp_path):
    a = _run(SEARCHED, tmp_path / "a.duckdb")
    b = _run(SEARCHED, tmp_path / "b.duckdb", seed=4)
    assert _answer(tmp_path / "a.duckdb", a.run_id)[1] != \
        _answer(tmp_path / "b.duckdb", b.run_id)[1]


def test_the_pareto_set_is_written_as_a_scenario_that_loads(tmp_path, invoke):
    path = tmp_path / "design.yaml"
    path.write_text(SEARCHED)
    out = tmp_path / "best.yaml"
    result = invoke("design", path, "--db", tmp_path / "d.duckdb", "--out", out, "-q",
                    "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].startswith(
        "run_id,candidate,rules.hand_size,rules.seven_zero,rules.stack_draw_two,games,"
        "minutes_per_game,minutes_per_game_lo,minutes_per_game_hi,turns_per_round")
    written = load_scenario(out)
    answer, = design_results(db=tmp_path / "d.duckdb", run_ids=[
        result.stdout.splitlines()[1].split(",")[0]])
    assert [v.name for v in written.variants] == [c.name for c in answer.pareto]
    assert [v.rules for v in written.variants] == [c.rules for c in answer.pareto]
    assert written.players == (4,) and written.seed == 3
    assert yaml.safe_load(scenario_yaml(answer)) == yaml.safe_load(out.read_text())
    # without --out the scenario is stdout's, the table stderr's
    again = invoke("design", path, "--db", tmp_path / "e.duckdb", "-q")
    assert again.exit_code == 0
    assert [(v.name, v.rules) for v in load_text(again.stdout, "stdout").variants] == \
        [(v.name, v.rules) for v in written.variants]
    assert "Pareto set" in again.stderr


def test_design_refuses_a_file_or_a_run_without_a_design(tmp_path, invoke):
    path = tmp_path / "plain.yaml"
    path.write_text("name: plain\ngames: 10\nplayers: 4\nvariants:\n  - name: base\n")
    db = tmp_path / "d.duckdb"
    result = invoke("design", path, "--db", db)
    assert result.exit_code == 2 and "has no design: section" in result.stderr
    stop = StopRequest()
    stop.request()
    run = simulate(scenario=load_scenario(path), db=db, stop=stop)
    assert run.status == "interrupted"
    result = invoke("design", "--resume", run.run_id, "--db", db)
    assert result.exit_code == 2 and "is not a design run; resume it with `unostats " \
        f"simulate --resume {run.run_id}`" in result.stderr


def test_a_combination_the_rules_refuse_is_skipped_and_the_rest_is_played(tmp_path):
    from unostats.base.progress import Progress

    class Lines(Progress):
        def __init__(self):
            self.lines = []

        def log(self, text):
            self.lines.append(text)

    text = SMALL.replace("rules.hand_size: {from: 5, to: 9}",
                         "rules.stack_draw_two: [none, sum]\n    "
                         "rules.reverse_deflects: [none, extreme]")
    progress = Lines()
    outcome = _run(text, tmp_path / "d.duckdb", progress=progress)
    assert outcome.status == "complete"
    _, candidates, best = _answer(tmp_path / "d.duckdb", outcome.run_id)
    assert len(candidates) == 3 and best
    assert "reverse_deflects=extreme stack_draw_two=sum" not in [n for n, _, _ in candidates]
    skipped = [line for line in progress.lines if "not playable" in line]
    assert len(skipped) == 1 and "reverse_deflects=extreme stack_draw_two=sum" in skipped[0]


def test_ctrl_c_then_design_resume_gives_the_same_pareto_set(tmp_path, cli_process, invoke):
    import signal

    path = tmp_path / "design.yaml"
    path.write_text(SEARCHED)
    whole = invoke("design", path, "--db", tmp_path / "whole.duckdb", "-q", "--out",
                   tmp_path / "whole.yaml", "--format", "csv")
    assert whole.exit_code == 0, whole.output
    db = tmp_path / "stopped.duckdb"
    proc = cli_process.start_simulate(path, db, batch_games=50)
    cli_process.wait_for_stored_batch(proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err
    run_id = err.split("Resume with: unostats simulate --resume ")[1].split()[0]
    resumed = invoke("design", "--resume", run_id, "--db", db, "-q", "--out",
                     tmp_path / "resumed.yaml", "--format", "csv")
    assert resumed.exit_code == 0, resumed.output

    def rows(text):  # the run id aside, the same rows
        return [line.split(",", 1)[1] for line in text.splitlines()[1:]]

    assert rows(resumed.stdout) == rows(whole.stdout) and rows(whole.stdout)
    assert [v.rules for v in load_scenario(tmp_path / "resumed.yaml").variants] == \
        [v.rules for v in load_scenario(tmp_path / "whole.yaml").variants]


def test_several_objectives_search_with_nsga_ii_and_repeat_with_the_seed(tmp_path):
    text = SEARCHED.replace("turns_per_round: minimize",
                            "turns_per_round: minimize\n    points_per_round: maximize") \
        .replace("games: 300", "games: 200")
    assert "with NSGA-II" in plan(load_text(text, "d.yaml"))
    first = _run(text, tmp_path / "a.duckdb")
    second = _run(text, tmp_path / "b.duckdb")
    answer = _answer(tmp_path / "a.duckdb", first.run_id)
    assert len(answer[1]) == 6 and answer[2]
    assert _answer(tmp_path / "b.duckdb", second.run_id)[1:] == answer[1:]


def test_how_it_plays_goals_are_the_store_s_measures(tmp_path):
    """A goal on how a variant plays (lead changes, comebacks, hand-leader changes) is
    estimated from the games each candidate stored, as the ``how_it_plays`` view reads them
    from the rows (a design keeps summary unless told: the same sums, tests/test_keep.py)."""
    db = tmp_path / "m.duckdb"
    text = SMALL.replace("turns_per_round: minimize", "lead_changes_per_game: maximize\n"
                         "    comeback_share: {at_most: 1}\n"
                         "    hand_leader_changes_per_round: maximize")
    outcome = _run(text, db, keep="rows")
    result, = design_results(db=db, run_ids=[outcome.run_id])
    con = store.open_store(db, read_only=True)
    try:
        view = {row[0]: row[1:] for row in con.execute(
            "SELECT variant, n_games, lead_changes, comeback_share, hand_leader_changes "
            "FROM how_it_plays WHERE run_id = $r", {"r": outcome.run_id}).fetchall()}
    finally:
        con.close()
    for c in result.candidates:
        games, lead, comeback, leader = view[c.name]
        assert c.games == games
        assert c.estimates["lead_changes_per_game"].value == pytest.approx(lead)
        assert c.estimates["comeback_share"].value == pytest.approx(comeback)
        assert c.estimates["hand_leader_changes_per_round"].value == pytest.approx(leader)
    assert result.pareto
