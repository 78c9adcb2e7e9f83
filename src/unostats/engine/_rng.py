"""Counter-based per-game random streams: splitmix64 seeding, xoshiro256** output (njit only).

Game ``i`` of a run seeds its own four-word state from (run seed, i), so a game's cards never
depend on which thread played it, how games were batched, or where a run resumed. The state is a
uint64[4] array owned by the caller.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def seed_stream(rng, seed, index):
    """Fill ``rng`` with four splitmix64 outputs starting at seed + 4 * index * golden."""
    x = np.uint64(seed) + np.uint64(index) * np.uint64(4) * _GOLDEN
    for k in range(4):
        x += _GOLDEN
        z = x
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        rng[k] = z ^ (z >> np.uint64(31))


# Numba keeps reference-count operations in the hot loop when an inlined helper that takes arrays
# contains a branch and is itself called from an inlined helper. So the array-facing functions
# below are branch-free: they load the state into scalars and call scalar-only helpers.


@njit(cache=True, inline="always")
def _xoshiro(s0, s1, s2, s3):
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(cache=True, inline="always")
def _bounded_scalar(n, s0, s1, s2, s3):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire's multiply-shift with rejection)."""
    un = np.uint64(n)
    r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
    m = (r >> np.uint64(32)) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            r, s0, s1, s2, s3 = _xoshiro(s0, s1, s2, s3)
            m = (r >> np.uint64(32)) * un
            low = m & _MASK32
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@njit(cache=True, inline="always")
def bounded(rng, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32."""
    k, rng[0], rng[1], rng[2], rng[3] = _bounded_scalar(n, rng[0], rng[1], rng[2], rng[3])
    return k


@njit(cache=True, inline="always")
def uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    r, rng[0], rng[1], rng[2], rng[3] = _xoshiro(rng[0], rng[1], rng[2], rng[3])
    return np.float64(r >> np.uint64(11)) * (1.0 / 9007199254740992.0)
