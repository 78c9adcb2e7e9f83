"""Engine tests: the kernels against the referee, invariants for 2-10 players and for every cell
of the bundled scenarios, determinism, and statistics with known answers (the C yardstick's
figures in shared/bench/README.md)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from unostats import codes
from unostats.engine.referee import check_trace
from unostats.engine.simulate import simulate_batches, trace_game
from unostats.rules import RuleSet
from unostats.seats import Seat

from engine_cases import (
    REFERENCE_RULES,
    RULE_SETS,
    assert_invariants,
    bundled_cells,
    mixed_seats,
    play,
)


# ---------------------------------------------------------------- kernel against referee


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
@pytest.mark.parametrize("players", range(2, 11))
def test_referee_accepts_traced_games_and_agrees_with_the_batch_rows(rules_name, players):
    counting = players % 2 == 0  # the loops that count how rounds play, and those that do not
    rules = RuleSet.from_mapping(RULE_SETS[rules_name])
    seats = mixed_seats(players)
    games, game_seats, rounds, round_seats = play(RULE_SETS[rules_name], players, seats, 12,
                                                  seed=99, how_it_plays=counting)
    if not counting:  # the measures are null, and so the referee says they are
        assert rounds.select(codes.MEASURE_NAMES).null_count().row(0) == (rounds.height,) * 6
    for g in range(12):
        result = check_trace(trace_game(rules=rules, players=players, seats=seats, seed=99,
                                        game=g, how_it_plays=counting))
        stored = rounds.filter(pl.col("game") == g).sort("round")
        assert stored.height == len(result.rounds)
        for row, ref in zip(stored.iter_rows(named=True), result.rounds):
            for key in ("dealer_seat", "first_seat", "winner_seat", "winner_position", "turns",
                        "cards_played", "cards_drawn", "normal_draws", "penalty_cards",
                        "reshuffles", "direction_changes", "challenges", "challenges_won",
                        "uno_penalties", "skips", "jump_ins", "slaps", "silence_breaks",
                        "mistakes", "points", "ended_by", "largest_penalty",
                        *codes.MEASURE_NAMES):
                assert row[key] == getattr(ref, key), (g, row["round"], key)
            seats_rows = round_seats.filter((pl.col("game") == g) & (pl.col("round") == row["round"]))
            assert tuple(seats_rows.sort("seat")["hand_points"]) == ref.hand_points
            assert tuple(seats_rows.sort("seat")["cards_left"]) == ref.cards_left
            assert tuple(seats_rows.sort("seat")["score_after"]) == ref.score_after
            assert row["loser_seat"] == ref.loser_seat, (g, row["round"], "loser_seat")
            if ref.hands_emptied:  # R10
                assert tuple(seats_rows.sort("seat")["hands_emptied"]) == ref.hands_emptied
            if ref.finish_order:  # R9
                placed = seats_rows.drop_nulls("finish_place").sort("finish_place")
                assert tuple(placed["seat"]) == ref.finish_order, (g, row["round"])
        game = games.filter(pl.col("game") == g).row(0, named=True)
        assert game["winner_seat"] == result.winner_seat
        assert game["ended_by"] == result.ended_by
        losers = game_seats.filter(pl.col("game") == g).sort("seat")["is_loser"]
        assert tuple(s for s, lost in enumerate(losers) if lost) == result.losers


# Game 164 of seed 11 under "extreme" at 10 players never ended: in its first round a seat
# covered an 8 (N6) with the 8 below it, drawn back from the discards, and so on for ever. It
# runs in a subprocess so that a hang fails the test instead of stopping the suite.
_ENDLESS_COVERS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine_cases import RULE_SETS, mixed_seats, play
from unostats import codes
from unostats.engine.referee import check_trace
from unostats.engine.simulate import trace_game
from unostats.rules import RuleSet
seats = mixed_seats(10)
frames = play(RULE_SETS["extreme"], 10, seats, 1, seed=11, first_game=164)
result = check_trace(trace_game(rules=RuleSet.from_mapping(RULE_SETS["extreme"]), players=10,
                                seats=seats, seed=11, game=164))
print(json.dumps({"stored": frames[2]["ended_by"].cast(str).to_list(),
                  "turns": frames[2]["turns"].to_list(),
                  "refereed": [r.ended_by for r in result.rounds],
                  "refereed_turns": [r.turns for r in result.rounds]}))
"""


def test_a_cover_chain_that_never_ends_ends_the_round_at_the_cap():
    done = subprocess.run([sys.executable, "-c", _ENDLESS_COVERS, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["stored"][0] == "cap" and got["turns"][0] < 5000  # capped in its 169th turn
    assert got["refereed"] == got["stored"] and got["refereed_turns"] == got["turns"]
    frames = play(RULE_SETS["extreme"], 10, mixed_seats(10), 1, seed=11, first_game=164)
    assert_invariants(RuleSet.from_mapping(RULE_SETS["extreme"]), 10, 1, *frames)


# ---------------------------------------------------------------- invariants


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
@pytest.mark.parametrize("players", range(2, 11))
def test_invariants_hold_for_every_player_count(rules_name, players):
    frames = play(RULE_SETS[rules_name], players, mixed_seats(players), 200, seed=7)
    assert_invariants(RuleSet.from_mapping(RULE_SETS[rules_name]), players, 200, *frames)


@pytest.mark.parametrize(("rules", "players", "seats"), list(bundled_cells()))
def test_every_bundled_scenario_cell_passes_the_referee_and_the_invariants(rules, players, seats):
    frames = [pl.concat(f) for f in zip(*simulate_batches(rules=rules, players=players,
                                                          seats=seats, games=30, seed=5,
                                                          how_it_plays=True))]
    for game in range(2):
        result = check_trace(trace_game(rules=rules, players=players, seats=seats, seed=5,
                                        game=game, how_it_plays=True))
        stored = frames[2].filter(pl.col("game") == game).sort("round")
        for row, ref in zip(stored.iter_rows(named=True), result.rounds, strict=True):
            for name in codes.MEASURE_NAMES:  # how the round played, counted twice
                assert row[name] == getattr(ref, name), (game, row["round"], name)
    assert_invariants(rules, players, 30, *frames)


# ---------------------------------------------------------------- determinism


def frames_equal(a, b):
    for x, y in zip(a, b):
        assert x.equals(y)


def test_one_thread_equals_two_threads():
    seats = mixed_seats(5)
    frames_equal(play({}, 5, seats, 300, seed=3, threads=1),
                 play({}, 5, seats, 300, seed=3, threads=2))


def test_two_threads_equal_one_when_parts_play_while_others_are_copied(monkeypatch):
    # Small parts: with two threads several parts play at once, each on its own thread.
    from unostats.engine import _parts
    monkeypatch.setattr(_parts, "PART_SEAT_ROWS", 120)
    seats = mixed_seats(4)
    frames_equal(play({}, 4, seats, 200, seed=5, threads=1, batch_games=90),
                 play({}, 4, seats, 200, seed=5, threads=2, batch_games=90))


def test_parts_of_several_batches_play_at_once_with_the_same_rows(monkeypatch):
    # Tiny parts and batches: with two threads the queue of parts runs on from one batch into
    # the next.
    from unostats.engine import _parts
    monkeypatch.setattr(_parts, "PART_SEAT_ROWS", 40)
    seats = mixed_seats(3)
    one = list(simulate_batches(rules=RuleSet.from_mapping({}), players=3, seats=seats,
                                games=150, seed=6, threads=1, batch_games=7))
    two = list(simulate_batches(rules=RuleSet.from_mapping({}), players=3, seats=seats,
                                games=150, seed=6, threads=2, batch_games=7))
    assert [b.games["game"].to_list() for b in two] == [list(range(lo, min(lo + 7, 150)))
                                                         for lo in range(0, 150, 7)]
    for a, b in zip(one, two):
        frames_equal(a, b)


@pytest.mark.parametrize("threads", [1, 2])
def test_steps_and_parts_that_run_out_of_rows_play_on_with_the_same_rows(monkeypatch, threads):
    # A tiny estimate sizes every part's columns too small (they grow) and asks each engine call
    # for more games than its rows hold (the call stops early and the next plays on); a step's
    # rows shorter than a game (they double).
    from unostats.engine import _parts
    seats = mixed_seats(4)
    expected = play({}, 4, seats, 300, seed=4, threads=1 if threads == 2 else 2)
    calls = []
    kernel = _parts.kernel
    monkeypatch.setattr(_parts, "kernel", lambda *a: calls.append(a[4]) or kernel(*a))
    monkeypatch.setattr(_parts.RoundsEstimate, "per_game", lambda self: 0.01)
    monkeypatch.setattr(_parts, "STEP_ROUNDS", 2)
    frames_equal(expected, play({}, 4, seats, 300, seed=4, threads=threads))
    assert len(calls) > len(set(calls))  # some call ran out of rows and the next played on


def test_batch_size_changes_nothing():
    seats = mixed_seats(4)
    frames_equal(play({}, 4, seats, 250, seed=3, batch_games=1000),
                 play({}, 4, seats, 250, seed=3, batch_games=7))


def test_games_resume_from_any_index():
    whole = play({}, 3, Seat(), 60, seed=8)
    tail = play({}, 3, Seat(), 25, seed=8, first_game=35)
    for full, part in zip(whole, tail):
        assert full.filter(pl.col("game") >= 35).equals(part)


def test_turns_without_the_move_hooks_equal_turns_with_them():
    # The reference rules turn on no option of the move hooks, so their turns skip the hooks;
    # the official rules' U1 call (uno_penalty) needs only the end of every move, A2 and N3 that
    # and the cards a move adds; uno_slap acts only after an UNO call (none without uno_penalty)
    # but turns the end-of-move hook on, as zero_slap does; silence every hook.
    from unostats.engine import _layout, _turns
    slapping = RULE_SETS["reference"] | {"uno_slap": 2}

    def level(rules):
        return _turns.hook_level(_layout.options_record(RuleSet.from_mapping(rules)))

    assert level(RULE_SETS["reference"]) == _turns.NO_HOOKS
    assert level({}) == level({"uno_penalty": 4}) == _turns.MOVE_END
    assert level({"multi_play": "two_matching"}) == level({"double_action": True}) \
        == level({"multi_play": "same_rank", "uno_penalty": 0}) == _turns.MOVE_PLAYS
    assert level(slapping) == level({"zero_slap": 2, "uno_penalty": 0}) == _turns.MOVE_END
    assert level({"silence": "seven"}) == level({"jump_in": "numbers"}) == _turns.ALL_HOOKS
    seats = mixed_seats(4)
    frames_equal(play(RULE_SETS["reference"], 4, seats, 300, seed=4),
                 play(slapping, 4, seats, 300, seed=4))


def test_each_loop_plays_the_games_of_the_loop_with_every_hook(monkeypatch):
    # play_games picks the round loop (entry point) by the options' hook level: the official
    # rules play the loop with the end-of-move hook only, the reference rules the one without
    # hooks, A2 and N3 the one of the cards a move adds. Forced to the loop with every hook,
    # they play the same games.
    from unostats.engine import _turns
    seats = mixed_seats(4)
    rule_sets = {"official": {}, "reference": RULE_SETS["reference"],
                 "two_matching": {"multi_play": "two_matching", "uno_penalty": 0},
                 "same_rank": {"multi_play": "same_rank", "double_action": True}}
    own = {name: play(rules, 4, seats, 200, seed=6) for name, rules in rule_sets.items()}
    monkeypatch.setattr(_turns, "hook_level", lambda opt: _turns.ALL_HOOKS)
    for name, rules in rule_sets.items():
        frames_equal(own[name], play(rules, 4, seats, 200, seed=6))


# Every extra card kind of the deck (D3-D6), so the options of their effects act too.
_EVERY_EXTRA_CARD = {"blank": 4, "custom_wild": 4, "hit_all_one": 2, "hit_all_two": 2,
                     "swap_hands": 1}


def _option_changes() -> list[dict]:
    """Each rule option of the table at every value but its default (an int option at one), with
    what its row needs, every extra card in the deck, with the UNO call and without it (the
    level of no hook)."""
    from unostats import rules as rules_mod
    out = []
    for o in rules_mod.RULE_OPTIONS:
        if o.kind == "int":
            lo, hi = o.int_range
            values = [lo if o.default != lo else min(hi, lo + 2)]
        else:
            values = [v for v in o.values if v != o.default]
        out += [{**o.companions(v), "deck": _EVERY_EXTRA_CARD, **call, o.key: v}
                for v in values for call in ({}, {"uno_penalty": 0})]
    return out


@pytest.mark.parametrize("change", _option_changes(), ids=lambda c: "-".join(
    f"{k}={v}" for k, v in c.items() if k != "deck"))
def test_each_option_plays_the_same_games_at_its_hook_level_as_with_every_hook(change,
                                                                                monkeypatch):
    # The level of the move hooks an option needs is read from the lists of _turns.py, not from
    # the hooks' code (traced games, as the rules' scripted cases play, run every hook): an
    # option listed at too low a level would lose its effect in untraced games only. Played on
    # its own level and forced to every hook, every option plays the same games.
    from unostats.engine import _turns
    seats = mixed_seats(4)
    own = play(change, 4, seats, 40, seed=8)
    monkeypatch.setattr(_turns, "hook_level", lambda opt: _turns.ALL_HOOKS)
    frames_equal(own, play(change, 4, seats, 40, seed=8))


def test_same_seed_same_rows_and_different_seeds_differ():
    frames_equal(play({}, 4, Seat(), 50, seed=1), play({}, 4, Seat(), 50, seed=1))
    assert not play({}, 4, Seat(), 50, seed=1)[2].equals(play({}, 4, Seat(), 50, seed=2)[2])


# ---------------------------------------------------------------- statistics with known answers

# shared/bench/README.md, 1M rounds of the C yardstick under the reference rules.
YARDSTICK = {2: (39.9, 0.514), 4: (50.4, 0.272), 6: (64.0, 0.189)}


@pytest.mark.parametrize("players", sorted(YARDSTICK))
def test_reference_rules_agree_with_the_c_yardstick(players):
    games = {2: 20_000, 4: 10_000, 6: 8_000}[players]
    rounds = play(REFERENCE_RULES, players, Seat(), games, seed=2026)[2]
    n = rounds.height
    assert n > 50_000
    turns, se_turns = rounds["turns"].mean(), rounds["turns"].std() / math.sqrt(n)
    rate = (rounds["winner_position"] == 0).mean()
    se_rate = math.sqrt(rate * (1 - rate) / n)
    expected_turns, expected_rate = YARDSTICK[players]
    # The README's figures are rounded to 0.1 turns and 0.001: allow for that too.
    assert abs(turns - expected_turns) <= 4 * se_turns + 0.05
    assert abs(rate - expected_rate) <= 4 * se_rate + 0.0005


def test_first_player_advantage_is_visible_with_two_players():
    rounds = play(REFERENCE_RULES, 2, Seat(), 5000, seed=5)[2]
    wins = np.bincount(rounds["winner_position"].to_numpy(), minlength=2)
    assert wins[0] > wins[1]


def test_parts_cover_every_game_once_in_order_and_shrink_at_the_end_for_the_threads(
        monkeypatch):
    from unostats.engine import _parts
    monkeypatch.setattr(_parts, "PART_SEAT_ROWS", 65_536)
    estimate = _parts.RoundsEstimate()
    estimate.add(100, 1000)  # 10 rounds a game: 65,536 round seats at 4 players = 1,638 games
    ranges = [(0, 10_000), (10_000, 13_000)]
    plan = _parts.Plan(ranges, 4, 2, estimate)
    parts = list(iter(plan.next, None))
    assert [lo for lo, _, _ in parts[1:]] == [hi for _, hi, _ in parts[:-1]]  # no gap, no overlap
    assert parts[0][0] == 0 and parts[-1][1] == 13_000
    assert [hi for _, hi, last in parts if last] == [10_000, 13_000]  # batches end parts
    sizes = [hi - lo for lo, hi, _ in parts]
    assert max(sizes) == 1638
    tail = sizes[sizes.index(max(sizes[-8:])):]  # the last parts: a thread's share of the rest
    assert tail == sorted(tail, reverse=True) and tail[-2] <= _parts.MIN_PART_GAMES * 2
    one = list(iter(_parts.Plan(ranges, 4, 1, estimate).next, None))  # one thread: full parts
    assert all(hi - lo == 1638 for lo, hi, last in one if not last)


def test_frames_have_the_documented_types():
    # ended_by comes out of Arrow as polars' Enum (no cast per row), the policy Categorical.
    (b,) = simulate_batches(rules=RuleSet.from_mapping({"round_end": "to_the_last"}), players=3,
                            seats=Seat("random"), games=20, seed=2)
    from unostats import codes
    assert b.games.schema == pl.Schema({
        "game": pl.Int64, "rounds": pl.Int32, "turns": pl.Int64, "first_seat": pl.Int8,
        "winner_seat": pl.Int8, "margin": pl.Int32,
        "ended_by": pl.Enum(list(codes.GAME_END_NAMES))})
    assert [(k, v.base_type()) for k, v in b.game_seats.schema.items()] == [
        ("game", pl.Int64), ("seat", pl.Int8), ("policy", pl.Categorical),
        ("final_score", pl.Int32), ("rank", pl.Int8), ("is_winner", pl.Boolean),
        ("is_loser", pl.Boolean)]
    assert b.rounds.schema["ended_by"] == pl.Enum(list(codes.ROUND_END_NAMES))
    assert list(b.round_seats.schema.items()) == [
        ("game", pl.Int64), ("round", pl.Int32), ("seat", pl.Int8), ("position", pl.Int8),
        ("cards_left", pl.Int16), ("hand_points", pl.Int32), ("score_after", pl.Int32),
        ("hands_emptied", pl.Int8), ("finish_place", pl.Int8)]
    # The seats' keys and flags agree with the game and round rows.
    winners = b.games.select("game", "winner_seat").join(
        b.game_seats.filter("is_winner").select("game", winner_seat="seat"), on="game",
        how="left", suffix="_seats")
    assert winners["winner_seat"].equals(winners["winner_seat_seats"], null_equal=True)
    keys = b.round_seats.group_by("game", "round", maintain_order=True).agg(pl.col("seat"))
    assert keys.select("game", "round").equals(b.rounds.select("game", "round"))
    assert keys["seat"].to_list() == [[0, 1, 2]] * b.rounds.height


def test_the_kernel_is_compiled_for_one_layout_of_its_outputs():
    # Every call hands play_games outputs of one layout whatever their size (one round, one
    # game, a trace, a table's game): a second layout would compile the engine again
    from unostats.engine import _turns
    from unostats.engine.simulate import simulate_tables
    rules = RuleSet.from_mapping({"max_rounds": 1})
    list(simulate_batches(rules=rules, players=2, seats=Seat(), games=3, seed=1, batch_games=1))
    trace_game(rules=rules, players=2, seats=Seat(), seed=1, game=0)
    simulate_tables(rules=rules, players=2, tables=[[Seat(), Seat()]], seeds=[1])
    # (the official rules play the entry point of the end-of-move hook, a trace the one of
    # every hook: each compiled once, for the same argument types)
    moves, traced = _turns._ENTRIES[_turns.MOVE_END], _turns._ENTRIES[_turns.ALL_HOOKS]
    assert len(moves.signatures) == 1 and moves.signatures == traced.signatures
