"""Ratings of policies from game results: the Luce choice model on each game's winner, with
bootstrap 95% intervals over games (pure numpy; ``leagues.driver`` feeds it a league's games).

The model: policy i has a rating r_i > 0 and wins a game at table T with probability
r_i / sum(r_j for j in T), whatever the table's size; at two players this is Bradley-Terry, and
it is the first stage of Plackett-Luce (only the winner of a game is used: the rest of a game's
ranking is not comparable across scoring modes, and a game's winner is what the league asks
about). Ratings are scaled to average 1 over the league's policies, so a rating of 2 wins twice
as often as an average policy would in its place, and at a table of n policies rated 1 each wins
1/n. Capped games (no winner) carry no information and are left out of the fit (their rows still
count in ``games``).

The fit is the maximum-likelihood estimate by Hunter's MM iteration (Hunter 2004, "MM
algorithms for generalized Bradley-Terry models", sec. 5): r_i <- W_i / sum_T c_T / R_T over the
table compositions T that seat i (c_T their games, R_T the sum of their ratings, W_i i's wins),
every step raising the likelihood. Each policy also gets one virtual win and one virtual loss,
spread evenly over two-player games against each other policy (weight 1/(P-1) each), the usual
remedy for a policy that never wins or always wins
(the plain estimate is then 0 or infinite, and the iteration crawls towards it): every rating
stays finite and the iteration no longer crawls towards 0 or infinity, while with hundreds of games a
policy the two virtual games move a rating by well under its interval. The games enter only
through the counts per composition and the wins per policy, so each bootstrap resample (games
drawn with replacement, as many as there are) is two ``bincount``s, and all resamples iterate
together as one matrix: a thousand fits take a fraction of a second (scipy's optimisers fit one
problem per call, and scipy is not a dependency).
The interval is the bootstrap's 2.5% and 97.5% percentiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

BOOTSTRAP = 1000  # resamples per fit
TOLERANCE = 1e-9  # largest relative change of a rating between iterations at convergence
MAX_ITERATIONS = 10_000
METHOD = (f"Luce choice model on game winners (Bradley-Terry at 2 players), fitted by MM with "
          f"a virtual win and loss per policy; 95% percentile bootstrap over games ({BOOTSTRAP} "
          "resamples)")


@dataclass(frozen=True)
class Ratings:
    rating: np.ndarray  # per policy, mean 1 (nan for a policy in no game)
    lo: np.ndarray
    hi: np.ndarray
    games: np.ndarray  # games each policy played
    wins: np.ndarray  # games each policy won


def fit(tables: np.ndarray, winners: np.ndarray, policies: int, *, seed: Any,
        bootstrap: int = BOOTSTRAP) -> Ratings:
    """Ratings of ``policies`` policies from games: ``tables`` (games x players) holds each
    game's policy per seat, ``winners`` each game's winning policy (-1: no winner). The
    bootstrap draws from ``numpy.random.default_rng(seed)``."""
    tables = np.asarray(tables, dtype=np.int64)
    winners = np.asarray(winners, dtype=np.int64)
    games = len(tables)
    compositions, which = np.unique(np.sort(tables, axis=1), axis=0, return_inverse=True)
    which = which.reshape(-1)
    member = np.zeros((len(compositions), policies))
    np.put_along_axis(member, compositions, 1.0, axis=1)
    played = np.bincount(tables.reshape(-1), minlength=policies)
    won = np.bincount(winners[winners >= 0], minlength=policies)
    decided = winners >= 0
    point = _mm(*_counts(np.arange(games)[None, :], which, winners, decided,
                         len(compositions), policies), member)[0]
    rng = np.random.default_rng(seed)
    draws = []
    for lo in range(0, bootstrap, 100):  # resamples in chunks: memory stays small
        picks = rng.integers(0, games, size=(min(100, bootstrap - lo), games))
        draws.append(_mm(*_counts(picks, which, winners, decided, len(compositions),
                                  policies), member))
    draws = np.concatenate(draws)
    with np.errstate(all="ignore"):
        lo, hi = np.nanpercentile(draws, [2.5, 97.5], axis=0)
    return Ratings(point, lo, hi, played, won)


def _counts(picks: np.ndarray, which: np.ndarray, winners: np.ndarray, decided: np.ndarray,
            compositions: int, policies: int) -> tuple[np.ndarray, np.ndarray]:
    """Per resample (a row of game indexes): games per composition and wins per policy, over
    the games with a winner."""
    k = len(picks)
    rows = np.repeat(np.arange(k), picks.shape[1])
    flat = picks.reshape(-1)
    keep = decided[flat]
    rows, flat = rows[keep], flat[keep]
    counts = np.bincount(rows * compositions + which[flat],
                         minlength=k * compositions).reshape(k, compositions)
    wins = np.bincount(rows * policies + winners[flat],
                       minlength=k * policies).reshape(k, policies)
    return counts.astype(np.float64), wins.astype(np.float64)


def _mm(counts: np.ndarray, wins: np.ndarray, member: np.ndarray) -> np.ndarray:
    """The ratings of each row's counts (resamples x policies), mean 1 over the policies that
    played; nan for a policy that did not. Each policy also has one virtual win and one virtual
    loss, spread evenly over two-player games against every other policy."""
    present = counts @ member > 0
    others = np.maximum(present.sum(axis=1, keepdims=True) - 1, 1)
    pairs = present[:, :, None] & present[:, None, :] & ~np.eye(present.shape[1], dtype=bool)
    r = np.where(present, 1.0, 0.0)
    for _ in range(MAX_ITERATIONS):
        total = r @ member.T  # each composition's sum of ratings
        with np.errstate(divide="ignore", invalid="ignore"):
            virtual = np.where(pairs, 2 / (r[:, :, None] + r[:, None, :]), 0.0).sum(axis=2)
            exposure = np.where(counts > 0, counts / total, 0.0) @ member + virtual / others
            new = np.where(present, (wins + 1) / exposure, 0.0)
        new /= new.sum(axis=1, keepdims=True) / np.maximum(present.sum(axis=1, keepdims=True), 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            change = np.nanmax(np.abs(new - r) / np.maximum(r, 1e-300), initial=0.0)
        r = new
        if change < TOLERANCE:
            break
    return np.where(present, r, np.nan)
