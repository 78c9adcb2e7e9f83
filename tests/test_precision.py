"""Precision targets: the looks' schedule, the stop rule, and the coverage of the intervals the
sequential procedure reports (on simulated data of known mean; and, marked slow, on the engine),
then a precision-targeted run: reproducible stop, stored looks, resume."""

from __future__ import annotations

import numpy as np
import pytest

from unostats.runs import precision
from unostats.runs.precision import estimate, half_width, looks, met


def test_looks_start_after_the_minimum_sample_and_end_at_the_cap():
    assert looks(100) == (100,)
    schedule = looks(20_000)
    assert schedule[0] == precision.FIRST_LOOK and schedule[-1] == 20_000
    assert all(b > a for a, b in zip(schedule, schedule[1:]))
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
    return {"games": float(n), "rounds": rounds.sum(), "rounds_sq": (rounds ** 2).sum(),
            "turns": turns.sum(), "turns_sq": (turns ** 2).sum(), "won": float(won.sum()),
            "points": 0.0, "points_sq": 0.0, "p0": float(p0.sum())}


KNOWN = {"rounds_per_game": 1 / 0.15, "turns_per_round": 40.0, "first_player_share": 0.27}
TARGETS = {"rounds_per_game": 0.35, "turns_per_round": 0.9, "first_player_share": 0.012}


@pytest.mark.parametrize("stat", list(KNOWN))
def test_sequentially_stopped_intervals_still_cover_the_known_value(stat):
    rng = np.random.default_rng(20261201)
    reps = 1000
    hits, stopped_early = 0, 0
    for _ in range(reps):
        e, n = _sequential(rng, _rounds, stat, TARGETS[stat], 20_000)
        hits += e.lo <= KNOWN[stat] <= e.hi
        stopped_early += n < 20_000
    coverage = hits / reps
    print(f"{stat}: coverage {coverage:.3f} over {reps} sequential runs "
          f"({stopped_early} stopped before the cap)")
    assert stopped_early > 0.9 * reps  # the targets are reachable: the stop rule is exercised
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
