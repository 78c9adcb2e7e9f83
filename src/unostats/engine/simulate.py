"""The Python face of the engine: the only caller of the jitted kernels.

``simulate_batches`` plays games in batches and yields polars DataFrames, so memory stays flat for
any number of games; ``trace_game`` replays one game with every event recorded.

A game is a pure function of (rules, players, seats, seed, game index): each game seeds its own
random stream, so results do not depend on thread count, batch size or where a run resumed.

Schemas (game is the 0-based game index of the run; round is 1-based within its game):

- games: game, rounds, turns, first_seat (first player of round 1), winner_seat (null if the game
  was capped), margin (winner's score minus the runner-up's), ended_by ("target" | "cap")
- game_seats: game, seat, policy, final_score, rank (1 = best, ties share), is_winner, is_loser
  (by the scoring mode; docs/engine.md "Scoring")
- rounds: game, round, dealer_seat, first_seat, winner_seat, winner_position (null when capped),
  the counters of ``codes.COUNTER_NAMES`` (turns, cards_played, ...), points, ended_by ("win" | "cap")
- round_seats: game, round, seat, position (seat offset from the round's first player),
  cards_left, hand_points, score_after, hands_emptied (R10; 1 for the winner of a first_out round),
  finish_place (R9 to_the_last: 1, 2, ... in finishing order, the seat left last n; 1 for the
  winner of the other modes; null for the other seats and for seats holding cards at a cap)
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
import polars as pl

from .. import cards, codes
from ..rules import RuleSet, behaviour_array, policy_codes
from ..seats import Seat, resolve_seats
from . import _cache
from . import _layout as L
from . import _turns as T


class Batch(NamedTuple):
    games: pl.DataFrame
    game_seats: pl.DataFrame
    rounds: pl.DataFrame
    round_seats: pl.DataFrame


@dataclass(frozen=True)
class Trace:
    """Every event of one game (rows of codes.EV_* records) and what is needed to check it."""

    rules: RuleSet
    players: int
    policies: tuple[str, ...]
    seed: int
    game: int
    deck_counts: np.ndarray  # copies per card type
    card_points: np.ndarray  # scoring value per card type
    events: np.ndarray  # int64 [n, 4]: kind, seat, a, b


def simulate_batches(
    *,
    rules: RuleSet,
    players: int,
    seats: Seat | Sequence[Seat],
    games: int,
    seed: int,
    first_game: int = 0,
    threads: int | None = None,
    batch_games: int = 10_000,
) -> Iterator[Batch]:
    """Play games ``first_game .. first_game + games - 1`` and yield them in batches, in order."""
    inputs = _KernelInputs.build(rules, players, seats)
    if games < 0 or first_game < 0 or batch_games < 1:
        raise ValueError("games and first_game must be >= 0 and batch_games >= 1")
    _set_threads(threads)
    estimate = _RoundsEstimate()
    end = first_game + games
    ranges = [(lo, min(lo + batch_games, end)) for lo in range(first_game, end, batch_games)]
    if _threads == 1 or len(ranges) < 2:
        for lo, hi in ranges:
            yield _frames(inputs, *_play_rows(inputs, seed, lo, hi, estimate))
        return
    # With more threads than one, the next batch plays while this one's tables are built and
    # used (the kernels hold no GIL): building tables would otherwise leave the threads idle.
    with ThreadPoolExecutor(1) as ahead:
        pending = ahead.submit(_play_rows, inputs, seed, *ranges[0], estimate)
        for i in range(len(ranges)):
            rows = pending.result()
            if i + 1 < len(ranges):
                pending = ahead.submit(_play_rows, inputs, seed, *ranges[i + 1], estimate)
            yield _frames(inputs, *rows)


def trace_game(
    *, rules: RuleSet, players: int, seats: Seat | Sequence[Seat], seed: int, game: int
) -> Trace:
    """Replay game ``game`` of a run seeded with ``seed``, recording every event."""
    return _trace(_KernelInputs.build(rules, players, seats), rules, seed, game)


def trace_scripted_game(
    *,
    rules: RuleSet,
    players: int,
    seats: Seat | Sequence[Seat],
    dealer: int,
    deck_top: Sequence[int],
    seed: int = 0,
) -> Trace:
    """A game whose every round is dealt from a fixed deck order (scripted rule tests).

    ``deck_top`` lists the first cards of the deck (card type ids; the first is dealt first, to
    the dealer's left); the rest of ``rules``' deck follows in card-id order. Draws take the
    top card and a reshuffled pile keeps the discard order. Randomness is left only in policies
    and behaviour, so tests use deterministic ones (``first_legal``, probabilities 0 or 1).
    """
    inputs = _KernelInputs.build(rules, players, seats)
    rest = inputs.deck.copy()
    for t in deck_top:
        if not 0 <= t < cards.N_TYPES or rest[t] == 0:
            raise ValueError(f"deck_top: no {cards.card_to_str(t)} left in the deck for it")
        rest[t] -= 1
    stack = np.concatenate([np.asarray(deck_top, dtype=np.int64),
                            np.repeat(np.arange(cards.N_TYPES, dtype=np.int64), rest)])
    return _trace(inputs, rules, seed, 0, stack=stack, first_dealer=dealer)


def _trace(inputs: _KernelInputs, rules: RuleSet, seed: int, game: int,
           stack: np.ndarray | None = None, first_dealer: int = -1) -> Trace:
    max_rounds = rules.values["max_rounds"]
    tables = inputs.tables(1, tracing=True, stack=stack)
    capacity = 1 << 16
    while True:
        out = _Outputs(1, max_rounds, inputs.players)
        trace = np.full((capacity, 4), -1, dtype=np.int64)
        tables[0]["tpos"] = 0
        T.play_games(tables[0], inputs.options, np.uint64(seed), game, game + 1, out.game,
                     out.game_seat, out.round, out.round_seat, trace, first_dealer)
        used = int(tables[0]["tpos"])
        if used < 0:
            raise RuntimeError(f"game {game}: more trace events in one step than the kernel's "
                               f"ring holds ({L.RING}); the trace is incomplete")
        if used <= capacity:
            return Trace(rules=rules, players=inputs.players, policies=inputs.policies,
                         seed=seed, game=game, deck_counts=inputs.deck,
                         card_points=inputs.points, events=trace[:used].copy())
        capacity = used


# ---------------------------------------------------------------- internals


@dataclass(frozen=True)
class _KernelInputs:
    players: int
    options: L.Options
    deck: np.ndarray
    points: np.ndarray
    policy: np.ndarray
    behaviour: np.ndarray
    policies: tuple[str, ...]

    @classmethod
    def build(cls, rules: RuleSet, players: int, seats: Seat | Sequence[Seat]) -> _KernelInputs:
        if not 2 <= players <= L.MAX_SEATS:
            raise ValueError(f"players must be from 2 to {L.MAX_SEATS}, got {players}")
        problem = rules.check_players(players)
        if problem:
            raise ValueError(problem)
        seat_list = resolve_seats(seats, players)
        policies = tuple(s.policy for s in seat_list)
        return cls(
            players=players,
            options=L.options_record(rules),
            deck=rules.deck_counts(),
            points=cards.card_points(),
            policy=policy_codes(list(policies)),
            behaviour=behaviour_array([dict(s.behaviour) for s in seat_list]),
            policies=policies,
        )

    def tables(self, k: int, tracing: bool = False, stack: np.ndarray | None = None) -> np.ndarray:
        """``k`` TABLE records holding the seats and the deck to deal: ``stack`` (a scripted
        order, its first card dealt first) or the deck in card-type order."""
        if stack is None:
            pile = np.repeat(np.arange(cards.N_TYPES, dtype=np.uint8), self.deck)
        else:
            pile = np.asarray(stack, dtype=np.uint8)[::-1]  # the top of the pile is its end
        tables = np.zeros(k, dtype=L.TABLE)
        n = self.players
        tables["n"] = n
        tables["tracing"] = int(tracing)
        tables["stacked"] = int(stack is not None)
        tables["policy"][:, :n] = self.policy
        tables["behaviour"][:, :n] = self.behaviour
        tables["points"] = self.points
        tables["full"][:, :len(pile)] = pile
        tables["ncards"] = len(pile)
        return tables


_threads = numba.config.NUMBA_NUM_THREADS  # threads that play chunks of games


def _set_threads(threads: int | None) -> None:
    global _threads
    available = numba.config.NUMBA_NUM_THREADS
    if threads is not None and not 1 <= threads <= available:
        raise ValueError(f"threads must be from 1 to {available}, got {threads}")
    _threads = threads or available


class _RoundsEstimate:
    """Rounds per game seen so far, to size the round buffers (too small only costs a retry)."""

    def __init__(self) -> None:
        self.games = 0
        self.rounds = 0

    def per_game(self) -> float:
        return self.rounds / self.games if self.games else 16.0

    def add(self, games: int, rounds: int) -> None:
        self.games += games
        self.rounds += rounds


class _Outputs:
    """Preallocated kernel outputs for ``games`` games and ``rounds`` round rows."""

    def __init__(self, games: int, rounds: int, players: int) -> None:
        self.game = np.zeros((games, L.N_GO), dtype=np.int64)
        self.game_seat = np.zeros((games, players, L.N_GS), dtype=np.int64)
        self.round = np.zeros((rounds, L.N_RO), dtype=np.int64)
        self.round_seat = np.zeros((rounds, players, L.N_RS), dtype=np.int64)


def _play_rows(inputs: _KernelInputs, seed: int, lo: int, hi: int, estimate: _RoundsEstimate):
    """Play games [lo, hi) in parallel chunks, retrying any chunk whose round buffer ran out.
    Returns the kernel's rows: (game, game_seat, round, round_seat)."""
    games = hi - lo
    chunk = max(1, min(256, math.ceil(games / (4 * _threads))))
    starts = np.arange(lo, hi, chunk, dtype=np.int64)
    ends = np.minimum(starts + chunk, hi)
    round_cap = int(chunk * estimate.per_game() * 1.5) + 64
    out = _Outputs(games, len(starts) * round_cap, inputs.players)
    done = np.zeros(len(starts), dtype=np.int64)
    rounds = np.zeros(len(starts), dtype=np.int64)
    _run_chunks(inputs, seed, starts, ends, round_cap, out, done, rounds)

    round_parts, seat_parts = [], []
    for c in range(len(starts)):
        r0 = c * round_cap
        round_parts.append(out.round[r0:r0 + rounds[c]])
        seat_parts.append(out.round_seat[r0:r0 + rounds[c]])
        next_game, cap = int(starts[c] + done[c]), round_cap
        while next_game < ends[c]:  # this chunk ran out of room: play the rest again, larger
            cap *= 2
            extra = _Outputs(0, cap, inputs.players)
            d, r = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
            g0 = next_game - lo
            sub = _Outputs.__new__(_Outputs)
            sub.game, sub.game_seat = out.game[g0:], out.game_seat[g0:]
            sub.round, sub.round_seat = extra.round, extra.round_seat
            _run_chunks(inputs, seed, np.array([next_game]), ends[c:c + 1], cap, sub, d, r)
            round_parts.append(extra.round[:r[0]])
            seat_parts.append(extra.round_seat[:r[0]])
            next_game += int(d[0])
    round_rows = np.concatenate(round_parts)
    seat_rows = np.concatenate(seat_parts)
    estimate.add(games, len(round_rows))
    return out.game, out.game_seat, round_rows, seat_rows


_NO_TRACE = np.zeros((1, 4), dtype=np.int64)


def _run_chunks(inputs, seed, starts, ends, round_cap, out, done, rounds) -> None:
    """Chunk c plays games [starts[c], ends[c]) into rows from c * round_cap of the round
    outputs. Threads (the kernel releases the GIL) take the next chunk as they finish one, each
    with a table of its own."""
    seed = np.uint64(seed)
    chunks = iter(range(len(starts)))  # shared: each chunk is taken once
    workers = min(_threads, len(starts))
    tables = inputs.tables(workers)

    def work(w: int) -> None:
        for c in chunks:
            lo, hi = int(starts[c]), int(ends[c])
            g0, r0 = lo - int(starts[0]), c * round_cap
            done[c], rounds[c] = T.play_games(
                tables[w], inputs.options, seed, lo, hi, out.game[g0:g0 + hi - lo],
                out.game_seat[g0:g0 + hi - lo], out.round[r0:r0 + round_cap],
                out.round_seat[r0:r0 + round_cap], _NO_TRACE, -1)

    if workers == 1:
        work(0)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(work, range(workers)))


_ROUND_ENDS = pl.Enum(list(codes.ROUND_END_NAMES))
_GAME_ENDS = pl.Enum(list(codes.GAME_END_NAMES))


def _named(values: np.ndarray, names, dtype) -> pl.Series:
    """Codes 0..len(names)-1 as the ``dtype`` column of their names (mapped in polars: making
    the strings in numpy first took a third of the time of building a batch's tables)."""
    return pl.Series(values.astype(np.uint8)).replace_strict(
        list(range(len(names))), list(names), return_dtype=dtype)


def _seat_or_null(values: np.ndarray) -> pl.Series:
    return pl.Series(values, dtype=pl.Int8).replace(-1, None)


def _frames(inputs: _KernelInputs, game_rows, game_seat_rows, round_rows, seat_rows) -> Batch:
    n = inputs.players
    n_games = len(game_rows)
    games = pl.DataFrame({
        "game": game_rows[:, L.GO_GAME],
        "rounds": game_rows[:, L.GO_ROUNDS].astype(np.int32),
        "turns": game_rows[:, L.GO_TURNS],
        "first_seat": game_rows[:, L.GO_FIRST].astype(np.int8),
        "winner_seat": _seat_or_null(game_rows[:, L.GO_WINNER]),
        "margin": game_rows[:, L.GO_MARGIN].astype(np.int32),
        "ended_by": _named(game_rows[:, L.GO_ENDED_BY], codes.GAME_END_NAMES, _GAME_ENDS),
    })
    seat_ids = np.tile(np.arange(n, dtype=np.int8), n_games)
    winners = np.repeat(game_rows[:, L.GO_WINNER], n)
    game_seats = pl.DataFrame({
        "game": np.repeat(game_rows[:, L.GO_GAME], n),
        "seat": seat_ids,
        "policy": _named(seat_ids, inputs.policies, pl.Categorical),
        "final_score": game_seat_rows[:, :, L.GS_FINAL_SCORE].reshape(-1).astype(np.int32),
        "rank": game_seat_rows[:, :, L.GS_RANK].reshape(-1).astype(np.int8),
        "is_winner": winners == seat_ids,
        "is_loser": game_seat_rows[:, :, L.GS_IS_LOSER].reshape(-1).astype(bool),
    })
    rounds = pl.DataFrame({
        "game": round_rows[:, L.RO_GAME],
        "round": round_rows[:, L.RO_ROUND].astype(np.int32),
        "dealer_seat": round_rows[:, L.RO_DEALER].astype(np.int8),
        "first_seat": round_rows[:, L.RO_FIRST].astype(np.int8),
        "winner_seat": _seat_or_null(round_rows[:, L.RO_WINNER]),
        "winner_position": _seat_or_null(round_rows[:, L.RO_WINNER_POS]),
        **{name: round_rows[:, L.RO_COUNTERS + i].astype(np.int32)
           for i, name in enumerate(codes.COUNTER_NAMES)},
        "points": round_rows[:, L.RO_POINTS].astype(np.int32),
        "ended_by": _named(round_rows[:, L.RO_ENDED_BY], codes.ROUND_END_NAMES, _ROUND_ENDS),
        "loser_seat": _seat_or_null(round_rows[:, L.RO_LOSER]),
        "largest_penalty": round_rows[:, L.RO_LARGEST_PENALTY].astype(np.int32),
    })
    round_seats = pl.DataFrame({
        "game": np.repeat(round_rows[:, L.RO_GAME], n),
        "round": np.repeat(round_rows[:, L.RO_ROUND], n).astype(np.int32),
        "seat": np.tile(np.arange(n, dtype=np.int8), len(round_rows)),
        "position": seat_rows[:, :, L.RS_POSITION].reshape(-1).astype(np.int8),
        "cards_left": seat_rows[:, :, L.RS_CARDS_LEFT].reshape(-1).astype(np.int16),
        "hand_points": seat_rows[:, :, L.RS_HAND_POINTS].reshape(-1).astype(np.int32),
        "score_after": seat_rows[:, :, L.RS_SCORE_AFTER].reshape(-1).astype(np.int32),
        "hands_emptied": seat_rows[:, :, L.RS_HANDS_EMPTIED].reshape(-1).astype(np.int8),
        "finish_place": pl.Series(seat_rows[:, :, L.RS_FINISH_PLACE].reshape(-1),
                                  dtype=pl.Int8).replace(0, None),
    })
    return Batch(games, game_seats, rounds, round_seats)


def engine_is_cached() -> bool:
    """Has this engine version been compiled and cached on this machine?"""
    return _cache.is_warm()


def compile_estimate() -> float | None:
    """Seconds the last cold compile took on this machine (None before the first)."""
    return _cache.compile_estimate()


def ensure_compiled() -> float | None:
    """Compile the engine now if this version has no cached machine code yet (one small game
    compiles every kernel), and remember how long it took. Returns the seconds it took, or None
    when the cache was warm."""
    if _cache.is_warm():
        return None
    start = time.perf_counter()
    trace_game(rules=RuleSet.from_mapping({}), players=2, seats=Seat(), seed=0, game=0)
    seconds = time.perf_counter() - start
    _cache.record_compile_time(seconds)
    return seconds
