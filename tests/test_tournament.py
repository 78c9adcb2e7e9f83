"""The championship bracket (the ``tournament`` package) on hand-made games: table sizes, stage plans, the
draw by lot, ranking and tie-breaks, advancement, places, the consolation, and determinism.
No engine here: ``play_tables`` is a small fake whose results the tests choose."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from unostats.seats import Seat
from unostats.tournaments.spec.bracket import (
    CONSOLATION,
    DECIDED_BY,
    MAIN,
    AdvanceRule,
    Field,
    PlanError,
    Stage,
    StagePlan,
    TableGame,
    TournamentSpec,
    balanced_tables,
    consolation_entrants,
    plan_bracket,
)
from unostats.tournaments.spec.bracket.ranking import deciders, orders
from unostats.tournaments.spec.bracket.seeds import (
    BRACKET_CODE,
    DRAW,
    GAME,
    SEED_MASK,
    lot,
    rng,
    sequence,
)

# TOUR: tables of 6; the best 3 of each table when 24 entrants or fewer, else the best 2; the
# semifinal winners meet in the final.
TOUR_STAGES = (
    Stage("group", (AdvanceRule(3, 24), AdvanceRule(2))),
    Stage("semifinal", (AdvanceRule(1),)),
    Stage("final"),
)
STRONG, WEAK = Seat("strategist", {}), Seat("random", {})


def spec_for(mix: dict[str, int], *, consolation: bool = True, stages=TOUR_STAGES,
             table_size: int = 6, name: str = "evening") -> TournamentSpec:
    fld = Field(name, sum(mix.values()), tuple(sorted(mix.items())))
    return TournamentSpec(table_size=table_size, stages=tuple(stages),
                          profiles={"strong": STRONG, "weak": WEAK}, fields=(fld,),
                          consolation=consolation)


# One table at a time, as the bracket derives every table of a batch at once (the tests compare).

def game_seed(seed: int, fld: Field, t: int, bracket: str, stage: int, table: int) -> int:
    """The engine seed of one table's game."""
    state = sequence(seed, fld, t, GAME, BRACKET_CODE[bracket], stage, table)
    return int(state.generate_state(1, np.uint64)[0]) & SEED_MASK


def draw(seed: int, fld: Field, t: int, bracket: str, plan: StagePlan,
         players) -> list[tuple[int, ...]]:
    """The draw by lot of one stage: the entrants at each table, in seat order."""
    order = rng(seed, fld, t, DRAW, BRACKET_CODE[bracket], plan.stage).permutation(
        np.array(sorted(players), dtype=np.int64)).tolist()
    out, at = [], 0
    for size in plan.tables:
        out.append(tuple(order[at:at + size]))
        at += size
    return out


def _game_arrays(game: TableGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(game.rank)
    return (np.array(game.rank, dtype=np.int64), np.array(game.rounds_won, dtype=np.int64),
            np.array(game.hand_points or (0,) * n, dtype=np.int64))


def finish_order(game: TableGame, lots) -> tuple[int, ...]:
    """Seats best first: rank, then more rounds won, then fewer points left in hand, then the
    lot."""
    return tuple(orders(*_game_arrays(game), np.asarray(lots, dtype=np.int64)).tolist())


def decided_by(game: TableGame, order, boundary: int) -> str:
    """What separated ``order[boundary - 1]`` (the last to go on) from ``order[boundary]``."""
    return DECIDED_BY[int(deciders(*_game_arrays(game), np.asarray(order, dtype=np.int64),
                                   boundary))]


class FakeTables:
    """Strong seats beat weak ones; among equals the game seed picks the order. ``ties`` makes
    every game a draw on rank and rounds won (the lot decides everything)."""

    def __init__(self, ties: bool = False):
        self.ties = ties
        self.calls: list[list[tuple[tuple[Seat, ...], int]]] = []  # the tables of each call

    def __call__(self, asks) -> list[TableGame]:
        self.calls.append(list(asks))
        return [self.game(seats, seed) for seats, seed in asks]

    def game(self, seats, seed) -> TableGame:
        n = len(seats)
        if self.ties:
            return TableGame(rank=(1,) * n, rounds_won=(0,) * n,
                             first_position=tuple(range(n)), rounds=1, turns=10)
        rng = random.Random(seed)
        noise = [rng.random() for _ in range(n)]
        order = sorted(range(n), key=lambda s: (seats[s].policy != "strategist", noise[s]))
        rank = [0] * n
        for r, s in enumerate(order):
            rank[s] = r + 1
        won = tuple(n - rank[s] for s in range(n))
        first = rng.randrange(n)
        return TableGame(rank=tuple(rank), rounds_won=won,
                         first_position=tuple((s - first) % n for s in range(n)),
                         rounds=3 + n, turns=40 * n + rng.randrange(50))


# --- Tables and plans ---------------------------------------------------------------------------

@pytest.mark.parametrize("players,size,expected", [
    (36, 6, (6, 6, 6, 6, 6, 6)),
    (32, 6, (6, 6, 5, 5, 5, 5)),
    (13, 6, (5, 4, 4)),
    (7, 6, (4, 3)),
    (6, 6, (6,)),
    (2, 6, (2,)),
    (11, 4, (4, 4, 3)),
])
def test_balanced_tables(players, size, expected):
    assert balanced_tables(players, size) == expected
    assert sum(expected) == players and max(expected) - min(expected) <= 1


def _shape(plan):
    return [(s.name, s.tables, s.advance) for s in plan]


def test_tour_plan_by_entrant_count():
    assert _shape(plan_bracket(TOUR_STAGES, 6, 36)) == [
        ("group", (6,) * 6, 2), ("semifinal", (6, 6), 1), ("final", (2,), 0)]
    # 24 entrants or fewer: the best 3 of each table go on.
    assert _shape(plan_bracket(TOUR_STAGES, 6, 24)) == [
        ("group", (6,) * 4, 3), ("semifinal", (6, 6), 1), ("final", (2,), 0)]
    assert _shape(plan_bracket(TOUR_STAGES, 6, 25)) == [
        ("group", (5,) * 5, 2), ("semifinal", (5, 5), 1), ("final", (2,), 0)]


def test_a_stage_that_fits_one_table_is_the_final():
    plan = plan_bracket(TOUR_STAGES, 6, 12)  # 2 tables x 3 = 6 players: one table
    assert _shape(plan) == [("group", (6, 6), 3), ("final", (6,), 0)]
    assert plan[-1].stage == 2  # the final keeps its index; the semifinal is skipped
    assert _shape(plan_bracket(TOUR_STAGES, 6, 5)) == [("final", (5,), 0)]


def test_impossible_plans_say_why():
    with pytest.raises(PlanError, match="18 players would reach the final 'final'"):
        plan_bracket((Stage("group", (AdvanceRule(3),)), Stage("final")), 6, 36)
    with pytest.raises(PlanError, match="a table of 3 would knock nobody out"):
        plan_bracket((Stage("group", (AdvanceRule(3),)), Stage("final")), 6, 7)
    with pytest.raises(PlanError, match="at least 2"):
        plan_bracket(TOUR_STAGES, 6, 1)


def test_consolation_entrants_are_the_first_stage_losers():
    assert consolation_entrants(plan_bracket(TOUR_STAGES, 6, 36)) == 24
    assert consolation_entrants(plan_bracket(TOUR_STAGES, 6, 6)) == 0  # only a final
    spec = spec_for({"weak": 36})
    main, cons = spec.brackets(spec.fields[0])
    assert _shape(cons) == [("group", (6,) * 4, 3), ("semifinal", (6, 6), 1),
                            ("final", (2,), 0)]
    assert spec.games_per_tournament(spec.fields[0]) == 9 + 7
    assert spec.table_sizes() == (2, 6)


# --- Ranking and tie-breaks ---------------------------------------------------------------------

def _game(rank, won, left=()):
    return TableGame(rank=tuple(rank), rounds_won=tuple(won),
                     first_position=tuple(range(len(rank))), rounds=1, turns=1,
                     hand_points=tuple(left))


def test_finish_order_rank_then_rounds_won_then_hand_points_then_lot():
    game = _game([2, 1, 2, 2, 3, 2], [1, 4, 2, 1, 0, 1], [30, 0, 10, 30, 90, 12])
    lots = [3, 4, 1, 0, 2, 5]
    # seat 1 (rank 1); seat 2 (rank 2, 2 rounds won); seats 0, 3 and 5 tie on rank and rounds
    # won: seat 5 left fewer points in hand (12); seats 0 and 3 tie on that too (30), so the lot
    # puts seat 3 (lot 0) before seat 0 (lot 3); seat 4 last.
    order = finish_order(game, lots)
    assert order == (1, 2, 5, 3, 0, 4)
    assert decided_by(game, order, 1) == "rank"
    assert decided_by(game, order, 2) == "rounds_won"
    assert decided_by(game, order, 3) == "hand_points"
    assert decided_by(game, order, 4) == "lot"
    assert decided_by(game, order, 5) == "rank"


def test_a_full_tie_is_the_lot_alone():
    game = _game([1] * 6, [0] * 6)
    lots = [5, 2, 0, 4, 1, 3]
    order = finish_order(game, lots)
    assert order == (2, 4, 1, 5, 3, 0)
    assert all(decided_by(game, order, b) == "lot" for b in range(1, 6))


def test_lot_ties_in_a_tournament_follow_the_lot_stream(play_tournament):
    spec = spec_for({"weak": 12})
    fld = spec.fields[0]
    result = play_tournament(spec, fld, seed=3, index=0, play_tables=FakeTables(ties=True))
    for t in result.tables:
        lots = lot(3, fld, 0, t.bracket, t.stage.stage, t.table, len(t.entrants))
        expected = tuple(t.entrants[s] for s in sorted(range(len(lots)), key=lambda s: lots[s]))
        assert t.finish == expected
        assert t.decided_by == "lot"


# --- Whole tournaments --------------------------------------------------------------------------

@pytest.mark.parametrize("entrants", [2, 5, 8, 12, 13, 24, 25, 36, 50])
def test_tournament_invariants(check_tournament, entrants, play_tournament):
    spec = spec_for({"strong": 1, "weak": entrants - 1})
    for index in range(4):
        result = play_tournament(spec, spec.fields[0], seed=11, index=index,
                                 play_tables=FakeTables())
        check_tournament(spec, result)


def test_the_strongest_entrant_always_wins_when_it_always_wins_its_games(play_tournament):
    spec = spec_for({"strong": 1, "weak": 35})
    for index in range(10):
        result = play_tournament(spec, spec.fields[0], seed=5, index=index,
                                 play_tables=FakeTables())
        assert result.entrants[result.champion].profile == "strong"
        assert all(t.decided_by == "rank" for t in result.tables)


def test_places_are_competition_ranking(play_tournament):
    spec = spec_for({"weak": 36})
    result = play_tournament(spec, spec.fields[0], seed=8, index=0, play_tables=FakeTables())
    places = Counter(e.main.place for e in result.entrants)
    # final of 2: 1 and 2; semifinal (2 tables of 6, 1 advances): 2nd-6th at each table share
    # 3, 5, 7, 9, 11; group (6 tables, 2 advance): 3rd-6th at each table share 13, 19, 25, 31.
    assert places == Counter({1: 1, 2: 1, 3: 2, 5: 2, 7: 2, 9: 2, 11: 2,
                              13: 6, 19: 6, 25: 6, 31: 6})
    cons = Counter(e.consolation.place for e in result.entrants if e.consolation)
    assert cons[1] == 1 and sum(cons.values()) == 24
    by_stage = Counter(e.main.stage_name for e in result.entrants)
    assert by_stage == Counter({"group": 24, "semifinal": 10, "final": 2})


def test_tournament_is_a_pure_function_of_seed_and_index(play_tournament):
    spec = spec_for({"strong": 6, "weak": 30})
    fld = spec.fields[0]
    a = [play_tournament(spec, fld, seed=99, index=i, play_tables=FakeTables()) for i in range(5)]
    alone = play_tournament(spec, fld, seed=99, index=3, play_tables=FakeTables())
    assert alone == a[3]
    again = play_tournament(spec, fld, seed=99, index=3, play_tables=FakeTables())
    assert again.tables == alone.tables and again.entrants == alone.entrants
    other_seed = play_tournament(spec, fld, seed=100, index=3, play_tables=FakeTables())
    assert other_seed.tables[0].entrants != alone.tables[0].entrants or \
        other_seed.tables[0].game_seed != alone.tables[0].game_seed
    assert len({r.tables[0].entrants for r in a}) > 1  # each tournament draws anew


@pytest.mark.parametrize("entrants", [9, 24, 36, 50])
def test_each_place_is_one_plus_the_entrants_strictly_better(entrants, play_tournaments):
    """Every Standing against the definition: a later stage reached is better, then a better
    finish at the table of that stage; the stage's name is its plan's."""
    spec = spec_for({"strong": 3, "weak": entrants - 3})
    fld = spec.fields[0]
    names = [s.name for s in TOUR_STAGES]
    for r in play_tournaments(spec, fld, seed=31, indices=range(12), play_tables=FakeTables()):
        for which in ("main", "consolation"):
            got = [(e.entrant, getattr(e, which)) for e in r.entrants if getattr(e, which)]
            for e, s in got:
                better = sum(1 for _, o in got if (o.stage, -o.finish) > (s.stage, -s.finish))
                assert s.place == better + 1, (r.index, which, e)
                assert s.stage_name == names[s.stage]


def step_tables(spec, fld) -> list[int]:
    """Tables per tournament of each step: step s plays the main bracket's stage s and the
    consolation's stage s - 1 (the consolation starts once the first stage is over)."""
    main, cons = spec.brackets(fld)
    return [(len(main[s].tables) if s < len(main) else 0)
            + (len(cons[s - 1].tables) if 1 <= s <= len(cons) else 0)
            for s in range(max(len(main), 1 + len(cons)))]


@pytest.mark.parametrize("entrants", [5, 36])
def test_tournaments_side_by_side_equal_each_alone(entrants, play_tournament, play_tournaments):
    spec = spec_for({"strong": 2, "weak": entrants - 2})
    fld = spec.fields[0]
    fakes = FakeTables()
    together = play_tournaments(spec, fld, seed=21, indices=range(3, 9), play_tables=fakes)
    assert [r.index for r in together] == list(range(3, 9))
    for r in together:
        assert r == play_tournament(spec, fld, seed=21, index=r.index, play_tables=FakeTables())
    # One call per step, each with that step's tables of every tournament.
    assert [len(c) for c in fakes.calls] == [6 * n for n in step_tables(spec, fld)]
    assert sum(len(c) for c in fakes.calls) == 6 * spec.games_per_tournament(fld)


def test_a_player_returning_too_few_games_is_refused(play_tournaments):
    spec = spec_for({"weak": 12})
    with pytest.raises(ValueError, match="number of games"):
        play_tournaments(spec, spec.fields[0], seed=1, indices=range(2),
                         play_tables=lambda asks: FakeTables()(asks)[1:])


def test_a_fields_tournaments_do_not_depend_on_other_fields(play_tournament):
    spec = spec_for({"weak": 18})
    fld = spec.fields[0]
    other = Field("other", 18, (("weak", 18),))
    bigger = TournamentSpec(table_size=6, stages=TOUR_STAGES, profiles=spec.profiles,
                            fields=(other, fld), consolation=True)
    a = play_tournament(spec, fld, seed=4, index=2, play_tables=FakeTables())
    b = play_tournament(bigger, fld, seed=4, index=2, play_tables=FakeTables())
    assert a == b
    c = play_tournament(bigger, other, seed=4, index=2, play_tables=FakeTables())
    assert c.tables[0].entrants != a.tables[0].entrants  # another field: another draw


def test_draw_is_a_permutation_dealt_in_table_order():
    spec = spec_for({"weak": 32})
    fld = spec.fields[0]
    stage = spec.brackets(fld)[0][0]
    tables = draw(1, fld, 0, MAIN, stage, range(32))
    assert [len(t) for t in tables] == [6, 6, 5, 5, 5, 5]
    assert sorted(e for t in tables for e in t) == list(range(32))
    assert tables == draw(1, fld, 0, MAIN, stage, list(reversed(range(32))))  # order-free
    assert tables != draw(1, fld, 0, CONSOLATION, stage, range(32))


def test_draw_is_fair_over_many_tournaments():
    """Entrant 0 sits at each of 6 tables and each seat about equally often."""
    spec = spec_for({"weak": 36})
    fld = spec.fields[0]
    stage = spec.brackets(fld)[0][0]
    seats = Counter()
    for t in range(3000):
        for table in draw(7, fld, t, MAIN, stage, range(36)):
            if 0 in table:
                seats[table.index(0)] += 1
    assert set(seats) == set(range(6))
    assert all(abs(c - 500) < 5 * 500 ** 0.5 for c in seats.values())


def test_game_seeds_are_63_bit_and_distinct_by_place_in_the_bracket():
    fld = Field("f", 12, (("weak", 12),))
    seeds = {game_seed(1, fld, t, b, s, k) for t in range(3) for b in (MAIN, CONSOLATION)
             for s in range(3) for k in range(4)}
    assert len(seeds) == 3 * 2 * 3 * 4
    assert all(0 <= x < 2**63 for x in seeds)


def test_first_position_comes_from_the_game(play_tournament):
    spec = spec_for({"weak": 12})
    fakes = FakeTables()
    result = play_tournament(spec, spec.fields[0], seed=2, index=0, play_tables=fakes)
    first = [t for t in result.tables if t.bracket == MAIN and t.stage.stage == 0]
    for e in result.entrants:
        t = first[e.first_table]
        assert t.entrants[e.first_seat] == e.entrant
        assert e.first_position == t.game.first_position[e.first_seat]
        assert e.first_table_players == len(t.entrants)


# --- Seeds of many tournaments at once -----------------------------------------------------------

@pytest.mark.parametrize("entropy", [0, 1, 20131123, 2**32, 2**40 + 5, 2**63 - 1])
def test_batched_seed_words_are_numpys_seed_sequence(entropy):
    """``seed_sequences.generate_state`` gives numpy's SeedSequence words for every key, keys of
    one and two 32-bit words and zeros mixed, and a bit generator seeded with them draws the
    same numbers."""
    import numpy as np

    from unostats.seed_sequences import Seeded, generate_state

    rng = np.random.default_rng(entropy % 1000)
    for width in (1, 5, 6, 7):
        keys = rng.integers(0, 2**32, size=(40, width), dtype=np.uint64)
        keys[::3, 0] = 0
        keys[::5, -1] = rng.integers(2**32, 2**63, size=len(keys[::5]), dtype=np.uint64)
        keys[::7, 0] = 2**64 - 1
        got = generate_state(entropy, keys, 4)
        for row, words in zip(keys, got):
            sequence = np.random.SeedSequence(entropy, spawn_key=tuple(int(v) for v in row))
            assert words.tolist() == sequence.generate_state(4, np.uint64).tolist()
        sequence = np.random.SeedSequence(entropy, spawn_key=tuple(int(v) for v in keys[1]))
        a = np.random.Generator(np.random.PCG64(sequence)).permutation(36)
        b = np.random.Generator(np.random.PCG64(Seeded(got[1]))).permutation(36)
        assert a.tolist() == b.tolist()


def test_tournaments_played_together_draw_as_each_draws_alone(play_tournaments):
    """The draws and game seeds derived for a batch of tournaments at once are the ones
    ``draw`` and ``game_seed`` derive for each table alone (numpy's SeedSequence)."""
    spec = spec_for({"strong": 3, "weak": 33})
    fld = spec.fields[0]
    fakes = FakeTables()
    results = play_tournaments(spec, fld, seed=77, indices=range(10, 16), play_tables=fakes)
    for r in results:
        for stage in {t.stage for t in r.tables}:
            for bracket in (MAIN, CONSOLATION):
                at = [t for t in r.tables if t.bracket == bracket and t.stage == stage]
                if not at:
                    continue
                players = [e for t in at for e in t.entrants]
                assert [t.entrants for t in at] == draw(77, fld, r.index, bracket, stage, players)
                assert [t.game_seed for t in at] == [
                    game_seed(77, fld, r.index, bracket, stage.stage, t.table) for t in at]
