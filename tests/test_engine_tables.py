"""``simulate_tables``: one engine call playing one game per table, each with its own seats, seed
and stream, must give every table exactly the game ``simulate_batches`` plays for those seats and
that seed (the tournaments' tables rely on it), whatever the threads or the order of the tables."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from engine_cases import BUSY, RULE_SETS

from unostats.engine.simulate import simulate_batches, simulate_tables
from unostats.rules import POLICIES, RuleSet
from unostats.seats import Seat

# Rule sets that reach every family of the kernel, and one whose long games overflow the first
# round buffer (the retry path).
CASES = [("official", 4), ("extreme", 6), ("lazy", 3), ("stacking_sum", 10),
         ("seven_rounds", 5), ("deck_extras_h2o", 2), ("long_games", 2)]
RULES = {**RULE_SETS, "long_games": {"target_score": 3000}}
POOL = [Seat(p, {**BUSY, "reaction": 0.3 + 0.5 * i}) for i, p in enumerate(POLICIES)] + \
    [Seat("random"), Seat("wild_last", {"jump_in": 1.0, "forget_uno": 0.0})]


def tables_for(players: int, k: int, rng: np.random.Generator):
    tables = [tuple(POOL[i] for i in rng.integers(0, len(POOL), players)) for _ in range(k)]
    seeds = [int(s) for s in rng.integers(0, 2**63, k, dtype=np.uint64) * 2 + rng.integers(0, 2, k)]
    streams = [int(s) for s in rng.integers(0, 5_000, k)]
    return tables, seeds, streams


def one_game(rules: RuleSet, players: int, seats, seed: int, stream: int):
    return next(iter(simulate_batches(rules=rules, players=players, seats=seats, games=1,
                                      seed=seed, first_game=stream, threads=1)))


@pytest.mark.parametrize(("rules_name", "players"), CASES)
def test_each_table_is_the_game_simulate_batches_plays(rules_name, players):
    rules = RuleSet.from_mapping(RULES[rules_name])
    rng = np.random.default_rng(players)
    tables, seeds, streams = tables_for(players, 24, rng)
    batch = simulate_tables(rules=rules, players=players, tables=tables, seeds=seeds,
                            streams=streams, threads=2)
    assert batch.games["game"].to_list() == list(range(24))
    for i in range(24):
        alone = one_game(rules, players, tables[i], seeds[i], streams[i])
        for name in batch._fields:
            got = getattr(batch, name).filter(pl.col("game") == i)
            want = getattr(alone, name)
            assert want["game"].unique().to_list() == [streams[i]]
            assert got.drop("game").equals(want.drop("game")), (name, i)
    # The policy column follows each table's seats.
    policies = batch.game_seats["policy"].cast(pl.String).to_list()
    assert policies == [s.policy for t in tables for s in t]


def test_threads_and_the_order_of_the_tables_change_nothing():
    rules = RuleSet.from_mapping(RULE_SETS["extreme"])
    tables, seeds, streams = tables_for(4, 60, np.random.default_rng(3))
    one = simulate_tables(rules=rules, players=4, tables=tables, seeds=seeds, streams=streams,
                          threads=1)
    two = simulate_tables(rules=rules, players=4, tables=tables, seeds=seeds, streams=streams,
                          threads=2)
    for a, b in zip(one, two):
        assert a.equals(b)
    back = simulate_tables(rules=rules, players=4, tables=tables[::-1], seeds=seeds[::-1],
                           streams=streams[::-1])
    for a, b in zip(one, back):
        flipped = b.with_columns((59 - pl.col("game")).alias("game")).sort("game", maintain_order=True)
        assert a.equals(flipped)


def test_streams_default_to_game_zero():
    rules = RuleSet.from_mapping({})
    seats = (Seat("random"), Seat("strategist"), Seat("colour_first"))
    batch = simulate_tables(rules=rules, players=3, tables=[seats, seats], seeds=[5, 6])
    for i, seed in enumerate((5, 6)):
        want = one_game(rules, 3, seats, seed, 0).rounds
        assert batch.rounds.filter(pl.col("game") == i).equals(want.with_columns(
            pl.lit(i, want["game"].dtype).alias("game")))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tables": [], "seeds": []}, "at least one table"),
    ({"seeds": [1]}, "one seed and one stream per table"),
    ({"streams": [0]}, "one seed and one stream per table"),
    ({"seeds": [1, -1]}, "seeds must be"),
    ({"seeds": [1, 2**64]}, "seeds must be"),
    ({"streams": [0, -2]}, "streams >= 0"),
    ({"tables": [(Seat(),) * 3, (Seat(),) * 2]}, "2 seats given for 3 players"),
    ({"tables": [(Seat("nope"),) * 3] * 2}, "unknown policy"),
])
def test_bad_calls_are_refused(kwargs, message):
    args = {"rules": RuleSet.from_mapping({}), "players": 3, "tables": [(Seat(),) * 3] * 2,
            "seeds": [1, 2], **kwargs}
    with pytest.raises(ValueError, match=message):
        simulate_tables(**args)


def test_a_table_player_plays_seats_given_by_index():
    """``engine.tables.TablePlayer``: seats as indices into a few distinct Seats (one of which
    sits nowhere), calls of two table sizes on one player (its kernel inputs kept per size):
    each table is the game ``simulate_batches`` plays for its seats and seed, and the policy
    column names only the policies that sit."""
    from unostats.engine.tables import TablePlayer

    rules = RuleSet.from_mapping(RULE_SETS["extreme"])
    player = TablePlayer(rules, threads=2)
    seats = [POOL[0], POOL[3], POOL[-1], Seat("strategist")]  # the last sits nowhere
    rng = np.random.default_rng(11)
    for players in (4, 2, 4):
        which = rng.integers(0, 3, size=(10, players))
        seeds = rng.integers(0, 2**63, 10, dtype=np.uint64)
        batch = player.play(seats, which, seeds)
        frames = {name: pl.from_arrow(getattr(batch, name)) for name in batch._fields}
        assert frames["games"]["game"].to_list() == list(range(10))
        for i in range(10):
            alone = one_game(rules, players, [seats[s] for s in which[i]], int(seeds[i]), 0)
            for name, frame in frames.items():
                coded = [c for c in ("policy", "ended_by") if c in frame.columns]
                got = frame.filter(pl.col("game") == i).drop("game")
                want = getattr(alone, name).drop("game")
                got, want = (f.with_columns(pl.col(coded).cast(pl.String)) for f in (got, want))
                assert got.equals(want), (players, name, i)
        policy = batch.game_seats.column("policy").combine_chunks()
        assert "strategist" not in policy.dictionary.to_pylist()
        assert policy.to_pylist() == [seats[s].policy for row in which for s in row]
