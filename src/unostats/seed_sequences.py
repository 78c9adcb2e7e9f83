"""numpy's ``SeedSequence`` for many spawn keys at once: the same words, computed as arrays.

``numpy.random.SeedSequence(entropy, spawn_key=key).generate_state(n)`` costs about 30 us a key
in Python; a championship derives dozens of them per tournament (every draw and every table
game's seed), which took most of the bracket's own time. ``generate_state(entropy, keys, n)``
gives the same words for each row of ``keys`` with a few numpy operations per key column, and
``Seeded`` hands such a state to a bit generator (``numpy.random.PCG64(Seeded(state))``), which
then draws exactly what it draws when seeded with the SeedSequence itself.

The algorithm is numpy's (numpy/random/bit_generator.pyx, pool size 4): the entropy and the
spawn key are cut into 32-bit words (a value of 0 is one word 0; the entropy is padded with
zero words to the pool size when a spawn key follows), hashed into the pool, and the pool
hashed out into the state. tests/test_tournament.py checks it against numpy on many keys.
"""

from __future__ import annotations

import numpy as np
from numpy.random.bit_generator import ISeedSequence

_POOL = 4
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_MASK = 0xFFFFFFFF


def _words(value: int) -> list[int]:
    """An integer's 32-bit words, least significant first (0 is one word)."""
    if value < 0:
        raise ValueError("expected a non-negative integer")
    out = [value & _MASK]
    value >>= 32
    while value:
        out.append(value & _MASK)
        value >>= 32
    return out


def _shift(x: np.ndarray) -> np.ndarray:
    return x ^ (x >> np.uint32(16))


def _pool(entropy: np.ndarray) -> np.ndarray:
    """numpy's ``mix_entropy``: rows of assembled entropy words (n x k, uint32) -> pools
    (n x 4)."""
    n, k = entropy.shape
    const = _INIT_A

    def hashmix(value: np.ndarray) -> np.ndarray:
        nonlocal const
        value = value ^ np.uint32(const)
        const = (const * _MULT_A) & _MASK
        return _shift(value * np.uint32(const))

    def mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _shift(np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y)

    zero = np.zeros(n, dtype=np.uint32)
    pool = [hashmix(entropy[:, i] if i < k else zero) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for src in range(_POOL, k):
        for dst in range(_POOL):
            pool[dst] = mix(pool[dst], hashmix(entropy[:, src]))
    return np.stack(pool, axis=1)


def _assembled(entropy: int, keys: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(rows, assembled words) groups: rows of ``keys`` whose words have the same layout."""
    run = _words(entropy)
    run += [0] * (_POOL - len(run))  # the spawn key follows: pad to the pool size
    keys = np.asarray(keys, dtype=np.uint64)
    high = keys >> np.uint64(32)
    low = (keys & np.uint64(_MASK)).astype(np.uint32)
    two = high != 0  # a key value of two words
    layout = (two.astype(np.int64) << np.arange(keys.shape[1], dtype=np.int64)).sum(axis=1)
    out = []
    for code in np.unique(layout):
        rows = np.flatnonzero(layout == code)
        cols = [np.full(len(rows), w, dtype=np.uint32) for w in run]
        for c in range(keys.shape[1]):
            cols.append(low[rows, c])
            if code >> c & 1:
                cols.append(high[rows, c].astype(np.uint32))
        out.append((rows, np.stack(cols, axis=1)))
    return out


def generate_state(entropy: int, keys: np.ndarray, n_words: int) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=keys[i]).generate_state(n_words, np.uint64)`` for
    every row ``i`` of ``keys`` (non-negative integers below 2**64): an (n, n_words) uint64
    array."""
    keys = np.asarray(keys, dtype=np.uint64)
    if keys.ndim != 2 or keys.shape[1] == 0:
        raise ValueError("keys must be a 2-d array with at least one column")
    out = np.empty((len(keys), 2 * n_words), dtype=np.uint32)
    if len(keys) == 0:
        return out.view(np.uint64)
    for rows, words in _assembled(entropy, keys):
        pool = _pool(words)
        const = _INIT_B
        for i in range(2 * n_words):
            value = pool[:, i % _POOL] ^ np.uint32(const)
            const = (const * _MULT_B) & _MASK
            out[rows, i] = _shift(value * np.uint32(const))
    # numpy views the words as little-endian 64-bit values
    return out.astype("<u4").view("<u8").astype(np.uint64)


class Seeded(ISeedSequence):
    """A precomputed state (``generate_state(...)``'s row, 4 words or more) that a bit
    generator takes in place of its SeedSequence: ``np.random.PCG64(Seeded(row))``."""

    def __init__(self, state: np.ndarray):
        self.state = np.asarray(state, dtype=np.uint64)

    def generate_state(self, n_words: int, dtype=np.uint32) -> np.ndarray:
        if np.dtype(dtype) != np.uint64 or n_words > len(self.state):
            raise ValueError(f"this state holds {len(self.state)} 64-bit words; asked for "
                             f"{n_words} of {np.dtype(dtype)}")
        return self.state[:n_words].copy()
