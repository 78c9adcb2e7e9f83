"""Counter-based per-game random streams: splitmix64 seeding, xoshiro256** output (njit only).

Game ``i`` of a run seeds its own state from (run seed, i), so a game's cards never depend on which
thread played it, how games were batched, or where a run resumed.

The state is a value, a tuple of four uint64 words: every draw takes it and returns the next state
(``k, state = bounded(state, n)``). Kept in registers, it costs no memory traffic and no
reference counting in the kernels' hot loops.
"""

import numpy as np

from ._jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@kernel(inline=True)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel(inline=True)
def _splitmix(x):
    z = (x ^ (x >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def seed_stream(seed, index):
    """The state of stream ``index``: four splitmix64 outputs from seed + 4 * index * golden."""
    x = np.uint64(seed) + np.uint64(index) * np.uint64(4) * _GOLDEN
    return (_splitmix(x + _GOLDEN), _splitmix(x + np.uint64(2) * _GOLDEN),
            _splitmix(x + np.uint64(3) * _GOLDEN), _splitmix(x + np.uint64(4) * _GOLDEN))


@kernel(inline=True)
def _next(state):
    """xoshiro256**: (64 random bits, next state)."""
    s0, s1, s2, s3 = state
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, (s0, s1, s2, s3)


@kernel(inline=True)
def bounded(state, n):
    """(uniform integer in [0, n), next state) for 1 <= n < 2**32.

    Lemire's multiply-shift on the high 32 bits, with rejection to remove the bias.
    """
    un = np.uint64(n)
    r, state = _next(state)
    m = (r >> np.uint64(32)) * un
    low = m & _MASK32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            r, state = _next(state)
            m = (r >> np.uint64(32)) * un
            low = m & _MASK32
    return np.int64(m >> np.uint64(32)), state


@kernel(inline=True)
def uniform(state):
    """(uniform float in [0, 1) with 53 random bits, next state)."""
    r, state = _next(state)
    return np.float64(r >> np.uint64(11)) * (1.0 / 9007199254740992.0), state


@kernel(inline=True)
def side_key(state):
    """The key of a game's side stream (``side_quarter``), from its state, which it leaves as it
    is: draws made through the key move no draw of the game's own stream."""
    s0, _, _, s3 = state
    return _splitmix(s0 ^ _rotl(s3, 29) ^ _MIX2)


@kernel(inline=True)
def side_quarter(key, counter):
    """Draw ``counter`` (1, 2, ...) of the side stream ``key``: uniform in 0..3."""
    return np.int64(_splitmix(key + np.uint64(counter) * _GOLDEN) >> np.uint64(62))
