"""Where a tournament's randomness comes from: every draw, every tie-break lot and every table
game's seed of tournament ``t`` of a field has its own
``numpy.random.SeedSequence(seed, spawn_key=(field key, t, purpose, bracket, stage[, table]))``,
so nothing depends on batch sizes, threads, other fields or where a run resumed.
``BatchSeeds`` derives the draws and game seeds of a batch's tournaments at once (the words of
those SeedSequences by ``seed_sequences``, without a SeedSequence object per key); ``lot`` draws
one table's lot, only where two seats tie on everything before it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .... import seed_sequences
from .spec import BRACKETS, CONSOLATION, MAIN, Field, TournamentSpec

# Purposes in the seed key (never renumber: stored runs depend on them).
DRAW, GAME, LOT = 0, 1, 2
BRACKET_CODE = {MAIN: 0, CONSOLATION: 1}
# A table game's engine seed: 63 bits of its SeedSequence's first word (the engine plays it as
# its game 0).
SEED_MASK = 2**63 - 1


def sequence(seed: int, fld: Field, t: int, *key: int) -> np.random.SeedSequence:
    """The SeedSequence of one key of tournament ``t``: (purpose, bracket code, stage[, table])."""
    return np.random.SeedSequence(entropy=seed, spawn_key=(fld.key, t, *key))


def rng(seed: int, fld: Field, t: int, *key: int) -> np.random.Generator:
    """A generator of one key's stream (a draw's or a lot's)."""
    return np.random.Generator(np.random.PCG64(sequence(seed, fld, t, *key)))


def lot(seed: int, fld: Field, t: int, bracket: str, stage: int, table: int,
        players: int) -> tuple[int, ...]:
    """Each seat's lot number (0 = best) for ties that rank and rounds won leave open."""
    perm = rng(seed, fld, t, LOT, BRACKET_CODE[bracket], stage, table).permutation(players)
    return tuple(perm.tolist())


class BatchSeeds:
    """The game seeds and draw streams of tournaments ``indices`` of a field, every one derived
    at once (``seed_sequences``: the words of the SeedSequences ``sequence`` makes, without a
    SeedSequence per key): ``games[(bracket, stage, table)]`` (the engine seeds, ``SEED_MASK``
    of the first word) and ``draws[(bracket, stage)]`` (the draw's stream, which permutes the
    stage's players in sorted order), a row per tournament."""

    def __init__(self, spec: TournamentSpec, fld: Field, seed: int, indices: Sequence[int]):
        ts = np.asarray(list(indices), dtype=np.uint64).reshape(-1, 1)
        n = len(ts)
        places, draws = [], []
        for bracket, plan in zip(BRACKETS, spec.brackets(fld)):
            for stage in plan:
                draws.append((bracket, stage.stage))
                places += [(bracket, stage.stage, table) for table in range(len(stage.tables))]

        def keys(rows: list[tuple], purpose: int) -> np.ndarray:
            head = np.tile(np.hstack([np.full((n, 1), fld.key, np.uint64), ts,
                                      np.full((n, 1), purpose, np.uint64)]), (len(rows), 1))
            tail = np.repeat(np.array([(BRACKET_CODE[r[0]], *r[1:]) for r in rows],
                                      dtype=np.uint64), n, axis=0)
            return np.hstack([head, tail])  # row i * n + k: key i of tournament k

        games = seed_sequences.generate_state(seed, keys(places, GAME), 1)[:, 0]
        games = (games & np.uint64(SEED_MASK)).reshape(len(places), n)
        self.games = {p: games[i] for i, p in enumerate(places)}
        states = seed_sequences.generate_state(seed, keys(draws, DRAW), 4)
        self.draws = {d: states[i * n:(i + 1) * n] for i, d in enumerate(draws)}

