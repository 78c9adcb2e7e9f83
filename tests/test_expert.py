"""The expert seat (seats.SearchPolicy, engine/_expert.py): its games pass the referee and are the
same traced or not, whatever the threads, batches or tables; its search changes its plays and
beats a random seat; scenario files declare it with clear errors."""

from __future__ import annotations

import textwrap

import polars as pl
import pytest
from engine_cases import BUSY, RULE_SETS, assert_invariants

from unostats.engine.referee import check_trace
from unostats.engine.simulate import simulate_batches, simulate_tables, trace_game
from unostats.rules import RuleSet
from unostats.scenario import ScenarioError, load_scenario
from unostats.seats import Seat, SearchPolicy, WeightedPolicy
from unostats.stats import wilson_interval

EXPERT = Seat.playing(SearchPolicy("expert", budget=4), BUSY)
CLAIRVOYANT = Seat.playing(SearchPolicy("clairvoyant", budget=3, sees="all",
                                        playout="strategist"), BUSY)
WILD_LAST = Seat.playing(SearchPolicy("expert_wild_last", budget=2, playout="wild_last"), BUSY)
# UnoAI's RandomBot: a random legal card, a random colour.
RANDOM_BOT = Seat.playing(WeightedPolicy.of("random_bot", colour="random"))
# chausner/UnoAI's rules: no UNO call, Wild Draw Four unrestricted, draw one and play it if it
# can be played (the default draw rule).
UNOAI_RULES = {"uno_penalty": 0, "wild_draw_four": "free"}


def _seats(players: int) -> list[Seat]:
    others = [Seat("random", BUSY), Seat("strategist", BUSY), Seat("colour_first", BUSY)]
    return ([EXPERT, CLAIRVOYANT, WILD_LAST] + others)[:players]


def _play(rules, players, seats, games, seed, **kw):
    frames = list(simulate_batches(rules=RuleSet.from_mapping(rules), players=players,
                                   seats=seats, games=games, seed=seed, **kw))
    return [pl.concat([getattr(b, name) for b in frames]) for name in frames[0]._fields]


@pytest.mark.parametrize(("rules_name", "players"), [
    ("official", 3), ("reference", 2), ("stacking_sum", 4), ("extreme", 5),
    ("card_count_lone_zero", 3), ("lazy", 4), ("eight_cover_jump_in", 3)])
def test_expert_games_pass_the_referee_and_play_as_untraced(rules_name, players):
    """Every play of the experts is legal to the referee (their other choices are their playout
    policy's, checked as such), and tracing changes nothing in the game; the second game counts
    how its rounds play (the referee agrees)."""
    rules = RuleSet.from_mapping(RULE_SETS[rules_name])
    seats = _seats(players)
    for game in range(2):
        trace = trace_game(rules=rules, players=players, seats=seats, seed=11, game=game,
                           how_it_plays=game == 1)
        result = check_trace(trace)
        assert [r.uno_stops for r in result.rounds] == trace.batch.rounds["uno_stops"].to_list()
        untraced = next(iter(simulate_batches(rules=rules, players=players, seats=seats,
                                              games=1, seed=11, first_game=game, threads=1,
                                              how_it_plays=game == 1)))
        for name in untraced._fields:
            assert getattr(trace.batch, name).equals(getattr(untraced, name)), name


def test_expert_games_keep_the_invariants():
    rules = RULE_SETS["stacking_sum"]
    games, game_seats, rounds, round_seats = _play(rules, 4, _seats(4), 6, seed=3, threads=2)
    assert_invariants(RuleSet.from_mapping(rules), 4, 6, games, game_seats, rounds, round_seats)


def test_the_search_changes_the_plays():
    """The expert plays other cards than its playout policy would: its games differ from those
    of a seat playing the playout policy, from the same seed."""
    rules = UNOAI_RULES
    expert = _play(rules, 2, [Seat.playing(SearchPolicy("expert", budget=8)), RANDOM_BOT], 4, 5)
    plain = _play(rules, 2, [Seat("random"), RANDOM_BOT], 4, 5)
    assert not expert[2].equals(plain[2])


def test_same_games_whatever_the_threads_batches_and_tables():
    """The search draws from the game's own stream: threads, batch sizes, where a run starts
    and playing each game as a table of its own change no game."""
    rules = RULE_SETS["official"]
    seats = _seats(3)
    one = _play(rules, 3, seats, 6, seed=21, threads=1, batch_games=6)
    two = _play(rules, 3, seats, 6, seed=21, threads=2, batch_games=2)
    for a, b in zip(one, two):
        assert a.equals(b)
    later = _play(rules, 3, seats, 3, seed=21, first_game=3, threads=2)
    for a, b in zip(one, later):
        assert a.filter(pl.col("game") >= 3).equals(b)
    tables = simulate_tables(rules=RuleSet.from_mapping(rules), players=3, tables=[seats] * 2,
                             seeds=[21, 21], streams=[1, 4], threads=2)
    for name, frame in zip(tables._fields, one):
        for i, game in enumerate((1, 4)):
            got = getattr(tables, name).filter(pl.col("game") == i).drop("game")
            assert got.equals(frame.filter(pl.col("game") == game).drop("game")), name


def _round_share(players: int, expert: SearchPolicy, games: int, seed: int):
    seats = [Seat.playing(expert)] + [RANDOM_BOT] * (players - 1)
    rounds = _play(UNOAI_RULES, players, seats, games, seed)[2]
    won = int((rounds["winner_seat"] == 0).sum())
    return wilson_interval(won, rounds.height)


def test_the_expert_beats_a_random_seat():
    """Two players, a fixed seed, about 900 rounds: the expert's share of rounds won has its
    95% interval above one half."""
    share = _round_share(2, SearchPolicy("expert", budget=16), 50, seed=1)
    assert share.n > 500
    assert share.lo > 0.5, share


@pytest.mark.slow
@pytest.mark.parametrize(("players", "bar"), [(2, 0.664), (6, 1 / 6)])
def test_the_expert_against_unoai_mixbot(players, bar):
    """chausner/UnoAI's MixBot wins 66.4% of hands against a random bot at 2 players and 23.6%
    against five at 6. Under the same rules the expert (budget 256, strategist playouts, goal
    rounds; benchmarks/expert_bench.py's games) wins more at 2 players, its 95% interval above
    MixBot's share; at 6 players it beats the fair share of five random bots, about as often as
    MixBot (docs/performance.md "The expert")."""
    expert = SearchPolicy("expert", budget=256, playout="strategist", goal="rounds")
    share = _round_share(players, expert, 250, seed=2026)
    assert share.lo > bar, share


# --- scenario files --------------------------------------------------------------------------


def _scenario(tmp_path, seats: str):
    path = tmp_path / "expert.yaml"
    path.write_text(textwrap.dedent("""\
        name: expert
        games: 10
        players: 2
        seats:
        """) + textwrap.indent(textwrap.dedent(seats), "  ") + "variants:\n  - name: official\n")
    return path


def test_a_scenario_declares_the_expert(tmp_path):
    scenario = load_scenario(_scenario(tmp_path, """\
        - policy: {name: expert, search: rollouts, budget: 16, playout: strategist, sees: all}
        - policy: {name: hopeful, budget: 8}
        """))
    first, second = scenario.seats_spec[:2]
    assert first.search == SearchPolicy("expert", "rollouts", 16, "strategist", "all")
    assert second.search == SearchPolicy("hopeful", budget=8)
    assert first.resolved()["policy"]["budget"] == 16


def test_bad_expert_settings_are_reported_with_their_keys(tmp_path):
    with pytest.raises(ScenarioError) as info:
        load_scenario(_scenario(tmp_path, """\
            - policy: {name: expert, search: mcts, budget: 0, playout: smart, sees: some}
            - policy: {name: random, budget: 8, speed: 2}
            """))
    text = str(info.value)
    for expected in ("seats[0].policy.search: unknown value 'mcts'; allowed: rollouts",
                     "seats[0].policy.budget: 0 is out of range: expected an integer from 1 to "
                     "4096",
                     "seats[0].policy.playout: unknown value 'smart'",
                     "seats[0].policy.sees: unknown value 'some'; allowed: own, all",
                     "seats[1].policy.name: 'random' is a bundled policy's name",
                     "seats[1].policy.speed: unknown key 'speed'"):
        assert expected in text, f"{expected!r} not in:\n{text}"


def test_two_experts_of_one_name_must_search_alike(tmp_path):
    with pytest.raises(ScenarioError, match="another seat's policy is named 'expert'"):
        load_scenario(_scenario(tmp_path, """\
            - policy: {name: expert, budget: 16}
            - policy: {name: expert, budget: 64}
            """))
