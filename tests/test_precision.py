"""Precision targets: the looks' schedule, the stop rule, and the coverage of the intervals the
sequential procedure reports (on simulated data of known mean; and, marked slow, on the engine),
then a precision-targeted run: reproducible stop, stored looks, resume."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from unostats.base import precision
from unostats.base.precision import estimate, half_width, looks, met


def test_looks_start_after_the_minimum_sample_and_end_at_the_cap():
    assert looks(100) == (100,)
    schedule = looks(20_000)
    assert schedule[0] == precision.FIRST_LOOK and schedule[-1] == 20_000
    assert all(b > a for a, b in itertools.pairwise(schedule))
    assert all(n % 100 == 0 for n in schedule)
    assert len(schedule) <= 10  # a handful of looks, never one per batch


def _sequential(rng, draw, stat: str, target: float, cap: int):
    """The procedure of a precision run on simulated games: look at ``looks(cap)``, stop at the
    first look whose interval is narrow enough. ``draw(rng, n)`` gives n games' sums."""
    sums = None
    for n in looks(cap):
        more = draw(rng, n - (0 if sums is None else int(sums["games"])))
        sums = more if sums is None else {k: sums[k] + more[k] for k in sums}
        e = estimate(stat, sums)
        if met({stat: e}, [(stat, target)]):
            return e, n
    return e, cap


def _rounds(rng, n):
    """Games of a geometric number of rounds (mean 1/0.15) and skewed turns per round."""
    rounds = rng.geometric(0.15, n).astype(float)
    total = int(rounds.sum())
    turns = rng.gamma(2.0, 20.0, total)  # mean 40, a long right tail like real rounds
    won = rng.random(total) < 0.97
    p0 = won & (rng.random(total) < 0.27)
    return {"games": float(n), "rounds": rounds.sum(), "rounds__2": (rounds ** 2).sum(),
            "turns": turns.sum(), "turns_sq": (turns ** 2).sum(), "won": float(won.sum()),
            "points": 0.0, "points_sq": 0.0, "p0": float(p0.sum())}


KNOWN = {"rounds_per_game": 1 / 0.15, "turns_per_round": 40.0, "first_player_share": 0.27}
# Each target is the expected half-width at the look after 1,200 games, so the runs split
# between two looks (1,200 or 1,800 games): where a stop on the width could bias coverage most.
_N = 1200
TARGETS = {"rounds_per_game": 1.96 * (0.85 / 0.15 ** 2 / _N) ** 0.5,
           "turns_per_round": 1.96 * (2 * 20.0 ** 2 / (_N / 0.15)) ** 0.5,
           "first_player_share": 1.96 * (0.27 * 0.73 / (0.97 * _N / 0.15)) ** 0.5}


@pytest.mark.parametrize("stat", list(KNOWN))
def test_sequentially_stopped_intervals_still_cover_the_known_value(stat):
    rng = np.random.default_rng(20261201)
    reps = 1000
    hits, stops = 0, []
    for _ in range(reps):
        e, n = _sequential(rng, _rounds, stat, TARGETS[stat], 20_000)
        hits += e.lo <= KNOWN[stat] <= e.hi
        stops.append(n)
    coverage = hits / reps
    split = {n: stops.count(n) for n in sorted(set(stops))}
    print(f"{stat}: coverage {coverage:.3f} over {reps} sequential runs, stopped at {split}")
    # the stop rule is exercised: the runs stop at different looks, before the cap
    assert max(split.values()) < 0.9 * reps and max(stops) < 20_000
    # 95% nominal; with 1,000 runs the binomial sd is 0.7 points
    assert 0.93 <= coverage <= 0.97, coverage


def test_stopping_on_the_estimate_instead_would_be_caught():
    """The coverage check can fail: a rule that stops when the estimate looks low (peeking at
    the value) covers the true mean far less often."""
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(400):
        sums = None
        for n in looks(20_000):
            more = _rounds(rng, n - (0 if sums is None else int(sums["games"])))
            sums = more if sums is None else {k: sums[k] + more[k] for k in sums}
            e = estimate("rounds_per_game", sums)
            if e.hi < KNOWN["rounds_per_game"] + 0.05:
                break
        hits += e.lo <= KNOWN["rounds_per_game"] <= e.hi
    assert hits / 400 < 0.9


def test_half_width_and_met():
    e = estimate("first_player_share", {"p0": 250.0, "won": 1000.0})
    assert half_width(e) == pytest.approx((e.hi - e.lo) / 2)
    assert met({"first_player_share": e}, [("first_player_share", 0.03)])
    assert not met({"first_player_share": e}, [("first_player_share", 0.02)])


def _engine_sums(rules, players, seed, lo, hi):
    """The sums behind every statistic over games lo .. hi-1 of the engine (no database)."""
    import polars as pl

    from unostats.engine.simulate import simulate_batches
    from unostats.seats import Seat

    parts = list(simulate_batches(rules=rules, players=players, seats=Seat(), games=hi - lo,
                                  seed=seed, first_game=lo, batch_games=5_000))
    games = pl.concat([p.games for p in parts])
    rounds = pl.concat([p.rounds for p in parts])
    won = rounds.filter(pl.col("ended_by") == "win")
    return {"games": float(games.height), "rounds": float(rounds.height),
            "rounds__2": float((games["rounds"].cast(pl.Float64) ** 2).sum()),
            "turns": float(rounds["turns"].sum()),
            "turns_sq": float((rounds["turns"].cast(pl.Float64) ** 2).sum()),
            "won": float(won.height), "points": float(won["points"].sum()),
            "points_sq": float((won["points"].cast(pl.Float64) ** 2).sum()),
            "p0": float((won["winner_position"] == 0).sum())}


@pytest.mark.slow
@pytest.mark.parametrize(("stat", "target"), [("rounds_per_game", None),
                                              ("first_player_share", None)])
def test_sequentially_stopped_engine_intervals_cover_a_reference_value(stat, target):
    """The engine's statistic has no closed form: its reference is 300,000 games of other
    seeds (its own interval is ~15x narrower than a replicate's). 300 sequential replicates,
    one seed each, cap 20,000 games, the target the expected half-width after 1,200 games."""
    from unostats.rules import RuleSet

    rules = RuleSet.from_mapping({})
    ref_sums = _engine_sums(rules, 2, 10**9, 0, 300_000)
    ref = estimate(stat, ref_sums)
    reference = ref.value
    if target is None:  # the expected half-width after 1,200 games: stops split between looks
        target = ref.se * (ref.n / (1200 * ref.n / 300_000)) ** 0.5 * 1.96
    hits, games = 0, []
    for seed in range(300):
        sums = None
        for n in looks(20_000):
            lo = 0 if sums is None else int(sums["games"])
            more = _engine_sums(rules, 2, seed, lo, n)
            sums = more if sums is None else {k: sums[k] + more[k] for k in sums}
            e = estimate(stat, sums)
            if met({stat: e}, [(stat, target)]):
                break
        hits += e.lo <= reference <= e.hi
        games.append(n)
    coverage = hits / 300
    split = {n: games.count(n) for n in sorted(set(games))}
    print(f"engine {stat}: coverage {coverage:.3f} over 300 sequential runs, target "
          f"±{target:.4g}, stopped at {split}, reference {reference:.4f}")
    assert max(split.values()) < 0.9 * 300  # the runs stop at different looks
    assert 0.92 <= coverage <= 0.98, coverage
