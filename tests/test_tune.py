"""`unostats tune` (runs/tune.py): the command end to end on a tiny budget (the written seat loads,
plays, and its held-out numbers are those a re-simulation of the same games gives), common seeds
within a generation, refused input, determinism, and that the search improves on a deliberately
bad start.

The scenario is a table of three (a bad policy written as data in seat 0, random and strategist
opponents) playing games to 200, so a tuning of a few thousand games takes seconds.
"""

from __future__ import annotations

import csv
import io

import pytest
import yaml

from unostats.engine.simulate import simulate_batches
from unostats.rules import POLICIES
from unostats.runs import tune as T
from unostats.scenario import load_scenario, load_text
from unostats.seats import FEATURES, WeightedPolicy, features_in_play

LAB = """\
name: lab
description: A bad policy against random and the strategist, games to 200 (tune tests).
seed: 7
games: 10
players: 3
seats:
  - policy: {name: bad, weights: {colour_held: -1}}
  - {policy: random}
  - {policy: strategist}
variants:
  - name: short
    rules: {target_score: 200}
"""


@pytest.fixture()
def lab(tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text(LAB)
    return path


def seat_from(text: str, others: list[dict], seat: int = 0):
    """The seat a written policy file gives, read through a scenario's ``seats:``."""
    seats = list(others)
    seats.insert(seat, yaml.safe_load(text))
    scenario = load_text(yaml.safe_dump({
        "name": "check", "description": "", "games": 1, "players": len(seats),
        "seats": seats, "variants": [{"name": "short", "rules": {"target_score": 200}}]}))
    return scenario, scenario.seats_for(len(seats))


def seat_wins(scenario, seats, seed: int, games: int, seat: int = 0) -> int:
    (cell,) = scenario.cells()
    wins = 0
    for batch in simulate_batches(rules=cell.variant.rules, players=len(seats), seats=seats,
                                  games=games, seed=seed):
        wins += int((batch.games["winner_seat"] == seat).sum())
    return wins


# --- End to end --------------------------------------------------------------------------------

def test_the_command_writes_a_seat_that_loads_plays_and_repeats_its_held_out_numbers(invoke, lab):
    out = lab.parent / "tuned.yaml"
    result = invoke("tune", lab, "--seat", 0, "--budget", 1_200, "--holdout", 300,
                    "--seed", 5, "--games-per-candidate", 40, "--out", out, "-f", "csv")
    assert result.exit_code == 0, result.output
    # stderr: the split, a line per generation with its ETA, what was written
    split = T.Split(generations=2, population=11, games=40, holdout=300, policies=11)
    assert split.text(1_200) in result.stderr
    assert "generation 2/2: best" in result.stderr and "left" in result.stderr
    assert f"wrote {out}" in result.stderr
    rows = {r["policy"]: r for r in csv.DictReader(io.StringIO(result.stdout))}
    assert set(rows) == {"tuned", "bad", *POLICIES}
    assert rows["tuned"]["kind"] == "tuned" and rows["bad"]["kind"] == "start"
    assert {r["games"] for r in rows.values()} == {"300"}

    text = out.read_text()
    assert text.startswith("# Tuned by unostats tune")
    policy = yaml.safe_load(text)["policy"]
    assert policy["name"] == "tuned" and set(policy["weights"]) <= set(FEATURES)
    others = [{"policy": "random"}, {"policy": "strategist"}]
    scenario, seats = seat_from(text, others)
    assert seats[0].weighted.weights == WeightedPolicy.of("tuned", policy["weights"]).weights

    # the held-out games are games 0..299 of the held-out seed, as `simulate --seed` plays them
    holdout_seed = T.plan(load_scenario(lab), seat=0, budget=1_200, seed=5, games=40,
                          holdout=300).holdout_seed
    assert f"seed {holdout_seed}, games 0..299" in text
    assert seat_wins(scenario, seats, holdout_seed, 300) == int(rows["tuned"]["wins"])
    _, strategist = seat_from(yaml.safe_dump({"policy": "strategist"}), others)
    assert seat_wins(scenario, strategist, holdout_seed, 300) == int(rows["strategist"]["wins"])
    wins = int(rows["tuned"]["wins"])
    assert float(rows["tuned"]["win_rate"]) == pytest.approx(wins / 300)
    assert float(rows["tuned"]["win_rate_lo"]) < wins / 300 < float(rows["tuned"]["win_rate_hi"])


def test_the_written_seat_plays_through_simulate_set(invoke, lab, tmp_path):
    out = tmp_path / "seat1.yaml"
    result = invoke("tune", lab, "--seat", 1, "--budget", 600, "--holdout", 20,
                    "--games-per-candidate", 50, "--population", 6, "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # -q
    assert "round" not in result.stdout.splitlines()[0]  # games won, not rounds
    db = tmp_path / "r.duckdb"
    run = invoke("simulate", lab, "--games", 20, "--db", db, "-q", "-f", "csv",
                 "--set", f"seats[1]={out.read_text()}")
    assert run.exit_code == 0, run.output
    query = invoke("query", "SELECT DISTINCT policy FROM game_seats WHERE seat = 1", "--db", db,
                   "-f", "csv")
    assert query.stdout.split() == ["policy", "tuned"]


def test_rounds_objective_counts_round_wins(invoke, lab):
    result = invoke("tune", lab, "--budget", 300, "--games-per-candidate", 50, "--population",
                    6, "--holdout", 30, "--objective", "rounds", "--out",
                    lab.parent / "r.yaml", "-f", "csv", "-q")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    for r in rows:  # wins are rounds won, of the rounds of 30 games (at least one each)
        assert int(r["rounds"]) >= 30 and 0 <= int(r["wins"]) <= int(r["rounds"])
        assert float(r["win_rate"]) == pytest.approx(int(r["wins"]) / int(r["rounds"]))
    assert "round win rate" in (lab.parent / "r.yaml").read_text()


# --- Common seeds, determinism -----------------------------------------------------------------

def test_candidates_of_a_generation_play_the_same_games(lab):
    plan = T.plan(load_scenario(lab), seat=0, budget=10_000, seed=3)
    a = plan.policy([1.0, -2.0, 0.5, 3.0, -1.0, 2.0, 0.1, 1.0, 0.5, 0.25, -0.5, 0.0, 4.0])
    doubled = plan.policy([2 * a.weight(f) for f in plan.features])  # the same choices at any scale
    other = plan.policy([0.0] * len(plan.features))
    scores = T.play(plan, [a, other, doubled, a], seed=11, games=150)
    assert (scores.wins[0] == scores.wins[2]).all() and (scores.wins[0] == scores.wins[3]).all()
    assert (scores.wins[0] != scores.wins[1]).any()  # another policy: other games
    alone = T.play(plan, [a], seed=11, games=150)  # where it sits in the generation is moot
    assert (alone.wins[0] == scores.wins[0]).all()
    assert (T.play(plan, [a], seed=12, games=150).wins[0] != alone.wins[0]).any()


def test_same_seed_same_tuned_weights_whatever_the_threads(lab):
    scenario = load_scenario(lab)

    def tuned(seed: int, threads: int | None = None):
        plan = T.plan(scenario, seat=0, budget=360, seed=seed, population=6, games=30,
                      holdout=40)
        return T.tune(plan, threads=threads)

    first, again, other = tuned(9), tuned(9, threads=1), tuned(10)
    assert first.policy == again.policy
    assert [s.wins for s in first.standings] == [s.wins for s in again.standings]
    assert first.policy.weights != other.policy.weights


def test_the_file_seed_is_the_default_and_no_seed_anywhere_is_chosen(lab):
    assert T.plan(load_scenario(lab), seat=0, budget=600).seed == 7
    no_seed = load_text(LAB.replace("seed: 7\n", ""))
    chosen = T.plan(no_seed, seat=0, budget=600)
    assert chosen.seed_chosen and 0 <= chosen.seed < 2**63


# --- The search ---------------------------------------------------------------------------------

def test_tuning_beats_the_bad_start_on_held_out_games(lab):
    plan = T.plan(load_scenario(lab), seat=0, budget=8_800, seed=1, games=100, holdout=2_000)
    assert plan.start.name == "bad"
    result = T.tune(plan)
    start = next(s for s in result.standings if s.kind == "start")
    # paired over the same 2,000 held-out games: tuned minus bad, with its 95% interval above 0
    assert start.minus_tuned.hi < 0, start
    assert result.standing.rate.value > start.rate.value + 0.04


def test_the_search_starts_from_zero_for_a_bundled_seat_and_keeps_colour_and_ties(lab):
    plan = T.plan(load_scenario(lab), seat=2, budget=600)
    assert plan.start.weights == () and plan.start.ties == "random"
    tied = load_text(LAB.replace("{colour_held: -1}}", "{colour_held: -1}, ties: first, "
                                 "colour: random}"))
    start = T.plan(tied, seat=0, budget=600).start
    assert (start.ties, start.colour) == ("first", "random")
    assert T.plan(tied, seat=0, budget=600).policy([1.0] * 13).ties == "first"


def test_only_features_the_deck_can_tell_apart_are_searched():
    standard = load_scenario("standard").variants[0].rules.deck_counts()
    assert "blank" not in features_in_play(standard)
    assert len(features_in_play(standard)) == 13
    blanks = load_text(LAB.replace("{target_score: 200}", "{target_score: 200, deck: "
                                   "{blank: 4, swap_hands: 1}}"))
    searched = T.plan(blanks, seat=0, budget=1_000).features
    assert {"blank", "swap_hands"} <= set(searched) and "hit_all" not in searched


def test_readable_weights_are_scaled_to_ten_and_rounded():
    # relative to its search step (points: 0.1), wild weighs most: it becomes -10
    policy = WeightedPolicy.of("t", {"points": 0.0123456, "wild": -0.5, "attack": 0.2})
    shown = T.readable(policy, ("points", "wild", "attack"))
    assert dict(shown.weights) == {"points": 0.247, "wild": -10.0, "attack": 4.0}
    assert (shown.name, shown.colour, shown.ties) == ("t", "most_held", "random")
    assert T.readable(WeightedPolicy.of("t"), ("points",)) == WeightedPolicy.of("t")


# --- Refused input ------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--seat", "3"], "--seat 3: lab plays 'short' at 3 players first, so its seats are 0 to 2"),
    (["--budget", "500"], "--budget 500 is too small to run one generation of the search: one "
                          "takes 11 candidates x 50 games = 550 games"),
    (["--budget", "90", "--games-per-candidate", "10", "--population", "10"],
     "one takes 10 candidates x 10 games = 100 games"),
    (["--name", "strategist"], "--name 'strategist' is a bundled policy's name"),
    (["--name", "bad"], "--name 'bad': a seat of lab already plays a policy of that name"),
    (["--set", "players=x"], "players: expected a player count"),
    (["--objective", "wins"], "'wins' is not one of 'games', 'rounds'"),
    (["--seat", "-1"], "Invalid value for '--seat'"),
])
def test_bad_input_is_refused_before_anything_is_played(invoke, lab, args, message):
    out = lab.parent / "never.yaml"
    result = invoke("tune", lab, "--out", out, *args)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.replace("│", " ").split()), result.stderr
    assert "generation 1/" not in result.stderr and not out.exists()


def test_refused_files_and_outputs(invoke, lab, tmp_path):
    tournament = invoke("tune", "championship", "--out", tmp_path / "t.yaml")
    assert tournament.exit_code == 2
    assert "championship is a tournament scenario" in tournament.stderr
    league = invoke("tune", "strategies", "--out", tmp_path / "t.yaml")  # its kind says why not
    assert league.exit_code == 2
    assert "strategies is a league scenario" in league.stderr
    missing = invoke("tune", tmp_path / "nope.yaml", "--out", tmp_path / "t.yaml")
    assert missing.exit_code == 2 and "no such file" in missing.stderr
    taken = tmp_path / "taken.yaml"
    taken.write_text("mine\n")
    exists = invoke("tune", lab, "--out", taken)
    assert exists.exit_code == 2 and "--overwrite" in exists.stderr
    assert taken.read_text() == "mine\n"
    nowhere = invoke("tune", lab, "--out", tmp_path / "no" / "such" / "t.yaml")
    assert nowhere.exit_code == 2 and "no folder" in nowhere.stderr


@pytest.mark.slow
def test_tuning_from_zero_beats_random_at_four_players():
    """Official rules, seat 0 against three random seats: from all weights 0 (random), 100,000
    search games reach well above random on 10,000 held-out games."""
    plan = T.plan(load_scenario("standard", ["players=4"]), seat=0, budget=100_000, seed=2,
                  holdout=10_000)
    result = T.tune(plan)
    random = next(s for s in result.standings if s.policy == "random")
    assert random.minus_tuned.hi < -0.05, random


def test_help_has_examples(invoke):
    result = invoke("tune", "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
    assert "unostats tune standard --set players=4" in result.stdout
    assert "tune" in invoke("--help").stdout


def test_a_stop_request_ends_the_search_and_still_evaluates(lab):
    from unostats.base.signals import StopRequest

    stop = StopRequest()
    stop.request()  # as Ctrl-C during the first generation
    plan = T.plan(load_scenario(lab), seat=0, budget=1_800, population=6, games=50,
                  holdout=40)
    result = T.tune(plan, stop=stop)
    assert result.stopped and len(result.generations) == 1
    assert len(result.standings) == 11 and result.standing.games == 40
    assert "Search (stopped early): 1 generation x 6" in T.policy_yaml(result)
