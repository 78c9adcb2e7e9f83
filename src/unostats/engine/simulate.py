"""The Python face of the engine: the only caller of the jitted kernels.

``simulate_batches`` plays games in batches and yields polars DataFrames, so memory stays flat for
any number of games (``simulate_arrow``: the same batches as pyarrow Tables, for the store);
``simulate_tables`` plays one game per table of many tables, each with its
own seats and seed, in one call (tournaments; ``simulate_tables_arrow``: the same as pyarrow
Tables); ``trace_game`` replays one game with every event recorded.

A game is a pure function of (rules, players, seats, seed, game index): each game seeds its own
random stream, so results do not depend on thread count, batch size or where a run resumed.

Schemas (game is the 0-based game index of the run; round is 1-based within its game):

- games: game, rounds, turns, first_seat (first player of round 1), winner_seat (null if the game
  was capped), margin (winner's score minus the runner-up's), ended_by ("target" | "cap")
- game_seats: game, seat, policy, final_score, rank (1 = best, ties share), is_winner, is_loser
  (by the scoring mode; docs/engine.md "Scoring")
- rounds: game, round, dealer_seat, first_seat, winner_seat, winner_position (null when capped),
  the counters of ``codes.COUNTER_NAMES`` (turns, cards_played, ...), points,
  ended_by ("win" | "cap"),
  loser_seat (R6 lazy, R9 to_the_last; null otherwise), largest_penalty (the most penalty cards
  one seat drew at once in the round, 0 if none: docs/engine.md "What each round, game and seat
  records")
- round_seats: game, round, seat, position (seat offset from the round's first player),
  cards_left, hand_points, score_after, hands_emptied (R10; 1 for the winner of a first_out round),
  finish_place (R9 to_the_last: 1, 2, ... in finishing order, the seat left last n; 1 for the
  winner of the other modes; null for the other seats and for seats holding cards at a cap)
"""

from __future__ import annotations

import collections
import functools
import math
import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    import polars as pl  # imported by _frames: simulate_arrow's callers (the store) need none

from .. import cards, codes
from ..rules import RuleSet, behaviour_array, coded_policy
from ..seats import Seat, WeightedPolicy, resolve_seats
from . import _columns as C
from . import _layout as L
from . import _turns as T


class Batch(NamedTuple):
    """One batch's four tables: polars DataFrames (``simulate_batches``) or pyarrow Tables
    (``simulate_arrow``), with the same columns."""

    games: pl.DataFrame | pa.Table
    game_seats: pl.DataFrame | pa.Table
    rounds: pl.DataFrame | pa.Table
    round_seats: pl.DataFrame | pa.Table


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
    # The kernel's rows of the game (simulate_batches' frames); None for a hand-made trace.
    batch: Batch | None = field(default=None, compare=False, repr=False)
    # Each seat's policy written as data (None: the bundled policy ``policies`` names).
    weighted: tuple[WeightedPolicy | None, ...] = ()


def simulate_batches(**kwargs: Any) -> Iterator[Batch]:
    """Play games ``first_game .. first_game + games - 1`` and yield them in batches, in order,
    as polars DataFrames (the tables of ``simulate_arrow``, viewed without a copy). Takes the
    keywords of ``simulate_arrow``: rules, players, seats, games, seed, first_game=0,
    threads=None, batch_games=10_000."""
    for tables in simulate_arrow(**kwargs):
        yield _frames(tables)


def simulate_arrow(
    *,
    rules: RuleSet,
    players: int,
    seats: Seat | Sequence[Seat],
    games: int,
    seed: int,
    first_game: int = 0,
    threads: int | None = None,
    batch_games: int = 10_000,
    ahead: bool = True,
) -> Iterator[Batch]:
    """The games of ``simulate_batches`` as pyarrow Tables built straight from the kernel's
    rows (narrowed once into the columns the Arrow arrays view; the storage path hands them to
    DuckDB as they are).

    Memory: a batch is played in parts of about ``PART_SEAT_ROWS`` round-seat rows (16,384
    rounds at 4 players), each part by one thread a step of ``STEP_ROUNDS`` at a time into
    kernel rows the thread reuses, each step's rows narrowed into the part's columns at once
    (about 200 bytes a round at 4 players, against 400 in the kernel's int64 rows); at most
    ``PARTS_AHEAD`` parts per thread are played ahead of the caller. ``ahead``: with more than one
    thread, the next batch plays while the caller uses this one (a caller that stores batches
    on a thread of its own already overlaps, and saves a batch of memory with ``ahead=False``).
    """
    inputs = _KernelInputs.build(rules, players, seats)
    if games < 0 or first_game < 0 or batch_games < 1:
        raise ValueError("games and first_game must be >= 0 and batch_games >= 1")
    _set_threads(threads)
    end = first_game + games
    ranges = [(lo, min(lo + batch_games, end)) for lo in range(first_game, end, batch_games)]
    parts = _play_parts(inputs, seed, ranges)
    if not ahead or _threads == 1 or len(ranges) < 2:
        for _ in ranges:
            yield _next_batch(parts)
        return
    # With more threads than one, the next batch plays while this one is used (the kernels
    # hold no GIL): the caller's work would otherwise leave the threads idle.
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(_next_batch, parts)
        for i in range(len(ranges)):
            batch = pending.result()
            if i + 1 < len(ranges):
                pending = pool.submit(_next_batch, parts)
            yield batch
            batch = None  # not held while the next one is made


# Round-seat rows per part of simulate_arrow (one Arrow chunk). (4 times as many cost about 1%
# less CPU a round, polars' work on a batch being per chunk and column, but took the peak memory
# of a 100,000-game run into DuckDB from 385 to 419 MB.)
PART_SEAT_ROWS = 65_536
# Rounds of one engine call within a part (a thread's rows, reused), whatever the players: an
# engine call costs ~20 us of argument checks (8,192 round seats a call, as before, spent 3-5%
# more CPU a round at 4 and 6 players), but the narrowing reads a step's rows from the cache
# only while they fit (16,384 rounds at 2 players: 2-4% more).
STEP_ROUNDS = 4_096
MIN_PART_GAMES = 16  # the smallest part the end of a run is cut into for the threads
PARTS_AHEAD = 2  # with threads: parts played or queued per thread ahead of the caller


def _next_batch(parts: Iterator[tuple[Batch, bool]]) -> Batch:
    """The next batch's tables, from the parts ``_play_parts`` yields (the last one says so)."""
    tables = []
    for table, last in parts:
        tables.append(table)
        if last:
            break
    return _joined(tables)


def _joined(tables: Sequence[Batch]) -> Batch:
    """Parts' tables one after the other (each part stays a chunk: no copy)."""
    if len(tables) == 1:
        return tables[0]
    return Batch(*(pa.concat_tables(columns) for columns in zip(*tables)))


def _play_parts(inputs: _KernelInputs, seed: int,
                ranges: Sequence[tuple[int, int]]) -> Iterator[tuple[Batch, bool]]:
    """The games of ``ranges`` (the batches' games) as the tables of parts (``_Plan``), in
    order, each with whether it ends its batch.

    A part is played by one thread from start to end (``_Scratch.play``: engine calls of a step
    of games each, whose rows are narrowed into the part's columns at once, in one GIL-free call
    each). With more threads than one, the threads take parts from one queue that runs on from
    batch to batch, ``PARTS_AHEAD`` per thread ahead of the caller: no thread waits for another
    or for the caller's copy, and a thread takes the GIL only a few times per step."""
    estimate = _RoundsEstimate()
    plan = _Plan(ranges, inputs.players, _threads, estimate)
    scratches: queue.SimpleQueue[_Scratch] = queue.SimpleQueue()  # one per thread at work

    def play(lo: int, hi: int) -> Batch:
        try:
            scratch = scratches.get_nowait()
        except queue.Empty:
            scratch = _Scratch(inputs)
        try:
            return scratch.play(seed, lo, hi, estimate)
        finally:
            scratches.put(scratch)

    if _threads == 1:
        while (part := plan.next()) is not None:
            yield play(part[0], part[1]), part[2]
        return
    inflight: collections.deque[tuple[Future, bool]] = collections.deque()
    with ThreadPoolExecutor(_threads) as pool:
        def submit() -> None:
            part = plan.next()
            if part is not None:
                inflight.append((pool.submit(play, part[0], part[1]), part[2]))
        for _ in range(PARTS_AHEAD * _threads):
            submit()
        try:
            while inflight:
                future, last = inflight.popleft()
                done = future.result()
                submit()
                yield done, last
        finally:  # a caller that stops early waits for no part it did not take
            for future, _ in inflight:
                future.cancel()


class _Plan:
    """The parts of ``ranges``' games, in order: about PART_SEAT_ROWS round-seat rows each (by
    the rounds per game seen so far), never across the end of a range (a batch); with threads,
    at most a thread's share of the games still to plan (not under MIN_PART_GAMES), so the
    parts shrink at the end of the run and the threads finish together. Any cut plays the same
    games: a game's rows depend on nothing but its index."""

    def __init__(self, ranges: Sequence[tuple[int, int]], players: int, threads: int,
                 estimate: _RoundsEstimate) -> None:
        self.ranges = collections.deque(ranges)
        self.players, self.threads, self.estimate = players, threads, estimate
        self.left = sum(hi - lo for lo, hi in ranges)

    def next(self) -> tuple[int, int, bool] | None:
        """(lo, hi, whether hi ends its range) of the next part, or None after the last."""
        if not self.ranges:
            return None
        lo, end = self.ranges[0]
        games = max(1, int(PART_SEAT_ROWS / (self.players * self.estimate.per_game())))
        if self.threads > 1:
            games = min(games, max(MIN_PART_GAMES, math.ceil(self.left / self.threads)))
        hi = min(end, lo + games)
        self.left -= hi - lo
        if hi == end:
            self.ranges.popleft()
        else:
            self.ranges[0] = (hi, end)
        return lo, hi, hi == end


class _Scratch:
    """What one thread plays parts with: a TABLE record of its own, and the kernel's int64 rows
    of a part's games and of one step's rounds (reused from part to part; grown when short)."""

    def __init__(self, inputs: _KernelInputs) -> None:
        self.inputs = inputs
        self.table = inputs.tables(1)[0]
        self.games = _Outputs(0, 0, inputs.players)
        self.step = _Outputs(0, STEP_ROUNDS, inputs.players)

    def play(self, seed: int, lo: int, hi: int, estimate: _RoundsEstimate) -> Batch:
        """Games [lo, hi) as tables, played a step of games at a time: each step's round rows
        are narrowed into the part's columns while they are still in the cache."""
        inputs, n = self.inputs, self.inputs.players
        if len(self.games.game) < hi - lo:
            self.games = _Outputs(hi - lo, 0, n)
        game, game_seat = self.games.game[:hi - lo], self.games.game_seat[:hi - lo]
        per_game = estimate.per_game()
        room = int((hi - lo) * per_game * 1.25) + 64
        rounds, seats = _ROUNDS.start(room), _ROUND_SEATS.start(room * n)
        g = lo
        while g < hi:
            step = self.step
            e = min(hi, g + max(1, int(len(step.round) / (1.25 * per_game))))
            done, r = _kernel(inputs, self.table, np.uint64(seed), g, e, game[g - lo:],
                              game_seat[g - lo:], step.round, step.round_seat)
            if done == 0:  # one game has more rounds than the step holds
                self.step = _Outputs(0, 2 * len(step.round), n)
                continue
            rounds.add(step.round[:r])
            seats.add(step.round_seat[:r].reshape(r * n, L.N_RS))
            g += int(done)
        estimate.add(hi - lo, rounds.n)
        return _batch(inputs, game, game_seat, rounds, seats)


def simulate_tables(**kwargs: Any) -> Batch:
    """Play one game per entry of ``tables`` in one engine call (a tournament stage's tables,
    across many tournaments) and return them as one Batch of polars DataFrames whose ``game``
    column is the entry's index: the tables of ``simulate_tables_arrow`` (its keywords: rules,
    players, tables, seeds, streams=None, threads=None), viewed without a copy."""
    return _frames(simulate_tables_arrow(**kwargs))


def simulate_tables_arrow(
    *,
    rules: RuleSet,
    players: int,
    tables: Sequence[Sequence[Seat]],
    seeds: Sequence[int],
    streams: Sequence[int] | None = None,
    threads: int | None = None,
) -> Batch:
    """``simulate_tables``' games as pyarrow Tables. Entry i seats ``tables[i]`` (``players``
    Seats) and is game ``streams[i]`` (default 0) of a run seeded ``seeds[i]``: row for row the
    game that ``simulate_batches(seats=tables[i], seed=seeds[i], first_game=streams[i],
    games=1)`` plays, but for its number."""
    k = len(tables)
    streams = [0] * k if streams is None else list(streams)
    if k == 0 or len(seeds) != k or len(streams) != k:
        raise ValueError(f"one seed and one stream per table: {k} tables, {len(seeds)} seeds, "
                         f"{len(streams)} streams (and at least one table)")
    if not all(0 <= s < 2**64 for s in seeds) or min(streams) < 0:
        raise ValueError("seeds must be from 0 to 2**64 - 1 and streams >= 0")
    # Each distinct seat once: its policy code and behaviour; ``which`` is the seat per place.
    # (A tournament hands the same Seat objects again and again: each is looked at once.)
    distinct: dict[tuple, int] = {}
    by_object: dict[int, int] = {}
    unique: list[Seat] = []

    def index_of(seat: Seat) -> int:
        at = by_object.get(id(seat))
        if at is None:
            key = (seat.policy, seat.weighted, tuple(sorted(seat.behaviour.items())))
            if key not in distinct:
                distinct[key] = len(unique)
                unique.append(seat)
            at = by_object[id(seat)] = distinct[key]
        return at

    which = np.array([[index_of(seat) for seat in resolve_seats(seats, players)]
                      for seats in tables], dtype=np.int64).reshape(k, players)
    return _play_tables(_KernelInputs.build(rules, players, unique[0]), unique, which,
                        np.asarray(seeds, dtype=np.uint64), np.asarray(streams, dtype=np.int64),
                        threads)


def _play_tables(inputs: _KernelInputs, seats: Sequence[Seat], which: np.ndarray,
                 seeds: np.ndarray, streams: np.ndarray | None, threads: int | None) -> Batch:
    """Table i seats ``seats[which[i, s]]`` in place s (``which``: int64 [k, players]) and is
    game ``streams[i]`` (None: 0) of a run seeded ``seeds[i]`` (uint64), under ``inputs``' rules
    (its seats are not used): ``simulate_tables_arrow``'s Batch, game i the i-th table."""
    k, players = which.shape
    setups = np.zeros(k, dtype=L.GAME_SETUP)
    setups["seed"] = seeds
    setups["stream"] = 0 if streams is None else streams
    rows = _PolicyRows.of(seats)
    setups["policy"][:, :players] = rows.policy[which]
    setups["weights"][:, :players] = rows.weights[which]
    setups["colour_random"][:, :players] = rows.colour_random[which]
    setups["ties_first"][:, :players] = rows.ties_first[which]
    setups["behaviour"][:, :players] = behaviour_array([dict(s.behaviour) for s in seats])[which]
    inputs = replace(inputs, setups=setups)
    _set_threads(threads)
    parts = [tables for tables, _ in _play_parts(inputs, 0, [(0, k)])]
    # the policy column by each game's seats (named by the policies that sit), chunked as played
    names = sorted({seats[i].policy for i in np.unique(which).tolist()})
    code = np.array([names.index(s.policy) if s.policy in names else -1 for s in seats],
                    dtype=np.int64)[which].reshape(-1)
    cuts = np.cumsum([len(t.game_seats) for t in parts])[:-1]
    played = _joined(parts)
    game_seats = played.game_seats.set_column(
        played.game_seats.schema.get_field_index("policy"), "policy",
        pa.chunked_array([_named(c, names) for c in np.split(code, cuts)]))
    return played._replace(game_seats=game_seats)


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
                     out.game_seat, out.round, out.round_seat, trace, first_dealer,
                     inputs.setups)
        used = int(tables[0]["tpos"])
        if used < 0:
            raise RuntimeError(f"game {game}: more trace events in one step than the kernel's "
                               f"ring holds ({L.RING}); the trace is incomplete")
        if used <= capacity:
            rounds = int(out.game[0, L.GO_ROUNDS])
            batch = _frames(_tables(inputs, out.game, out.game_seat, out.round[:rounds],
                                    out.round_seat[:rounds]))
            return Trace(rules=rules, players=inputs.players, policies=inputs.policies,
                         seed=seed, game=game, deck_counts=inputs.deck,
                         card_points=inputs.points, events=trace[:used].copy(), batch=batch,
                         weighted=inputs.weighted)
        capacity = used


# ---------------------------------------------------------------- internals


@dataclass(frozen=True)
class _PolicyRows:
    """The kernel's rows of some seats' policies: codes (codes.POLICY_*) and the weights
    (codes.F_* columns), colour and tie rules they play by (a bundled policy: its preset,
    seats.PRESETS)."""

    policy: np.ndarray
    weights: np.ndarray
    colour_random: np.ndarray
    ties_first: np.ndarray

    @classmethod
    def of(cls, seats: Sequence[Seat]) -> _PolicyRows:
        n = len(seats)
        weights = np.zeros((n, codes.N_FEATURES), dtype=np.float64)
        colour_random = np.zeros(n, dtype=np.int64)
        ties_first = np.zeros(n, dtype=np.int64)
        policy = np.zeros(n, dtype=np.int64)
        for i, seat in enumerate(seats):
            w = seat.weights()
            if w is None:
                policy[i] = coded_policy(seat.policy)
                continue
            weights[i] = w.vector()
            policy[i] = codes.POLICY_SCORED if weights[i].any() else codes.POLICY_UNIFORM
            colour_random[i] = int(w.colour == "random")
            ties_first[i] = int(w.ties == "first")
        return cls(policy, weights, colour_random, ties_first)


@dataclass(frozen=True)
class _KernelInputs:
    players: int
    options: L.Options
    deck: np.ndarray
    points: np.ndarray
    policy: np.ndarray
    behaviour: np.ndarray
    policies: tuple[str, ...]
    rows: _PolicyRows
    weighted: tuple[WeightedPolicy | None, ...]
    # One game per entry with its own seats and stream (``simulate_tables``); empty: the seats
    # above for every game.
    setups: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=L.GAME_SETUP))

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
            policy=(rows := _PolicyRows.of(seat_list)).policy,
            behaviour=behaviour_array([dict(s.behaviour) for s in seat_list]),
            policies=policies,
            rows=rows,
            weighted=tuple(s.weighted for s in seat_list),
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
        tables["weights"][:, :n] = self.rows.weights
        tables["colour_random"][:, :n] = self.rows.colour_random
        tables["ties_first"][:, :n] = self.rows.ties_first
        tables["points"] = self.points
        tables["full"][:, :len(pile)] = pile
        tables["ncards"] = len(pile)
        return tables


_threads = numba.config.NUMBA_NUM_THREADS  # threads that play parts of games


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
        self.lock = threading.Lock()  # parts end on any thread

    def per_game(self) -> float:
        return self.rounds / self.games if self.games else 16.0

    def add(self, games: int, rounds: int) -> None:
        with self.lock:
            self.games += games
            self.rounds += rounds


class _Outputs:
    """Preallocated kernel outputs for ``games`` games and ``rounds`` round rows."""

    def __init__(self, games: int, rounds: int, players: int) -> None:
        self.game = np.zeros((games, L.N_GO), dtype=np.int64)
        self.game_seat = np.zeros((games, players, L.N_GS), dtype=np.int64)
        self.round = np.zeros((rounds, L.N_RO), dtype=np.int64)
        self.round_seat = np.zeros((rounds, players, L.N_RS), dtype=np.int64)


_NO_TRACE = np.zeros((1, 4), dtype=np.int64)


def _kernel(inputs: _KernelInputs, table, seed: np.uint64, lo: int, hi: int, game_out,
            game_seat_out, round_out, round_seat_out) -> tuple[int, int]:
    """``T.play_games`` of games [lo, hi) into the outputs' rows from 0, with ``table`` (a TABLE
    record no other thread uses meanwhile): (games completed, rounds written)."""
    return T.play_games(table, inputs.options, seed, lo, hi, game_out, game_seat_out, round_out,
                        round_seat_out, _NO_TRACE, -1, inputs.setups)


class _Narrowing:
    """How one table's columns come out of rows of the kernel (``_columns.narrow``): each is
    (name, the rows' column, numpy dtype, the value that means null or None, the names its
    codes stand for or None). ``start`` makes the columns to fill (``_Columns``)."""

    WIDTHS = (np.int64, np.int32, np.int16, np.int8)

    def __init__(self, columns: Sequence[tuple[str, int, Any, int | None,
                                               Sequence[str] | None]]) -> None:
        take: dict[Any, list[int]] = {w: [] for w in self.WIDTHS}
        nullable: list[int] = []
        null_value: list[int] = []
        self.plan = []  # (name, width, row of its width, bitmap or -1, Arrow type, dictionary)
        for name, col, dtype, null, names in columns:
            width = np.dtype(dtype).type
            bitmap = -1
            if null is not None:
                bitmap = len(nullable)
                nullable.append(col)
                null_value.append(null)
            self.plan.append((name, width, len(take[width]), bitmap,
                              pa.from_numpy_dtype(width),
                              None if names is None else pa.array(list(names), pa.string())))
            take[width].append(col)
        self.take = {w: np.array(cols, dtype=np.int64) for w, cols in take.items()}
        self.nullable = np.array(nullable, dtype=np.int64)
        self.null_value = np.array(null_value, dtype=np.int64)

    def start(self, room: int) -> _Columns:
        """Empty columns for ``room`` rows (more are made room for as they come)."""
        return _Columns(self, room)


class _Columns:
    """A table's columns filled from kernel rows, a step at a time (``add``)."""

    def __init__(self, narrowing: _Narrowing, room: int) -> None:
        self.narrowing = narrowing
        self.n = 0
        self.room = room
        self.out = {w: np.empty((len(narrowing.take[w]), room), dtype=w)
                    for w in narrowing.WIDTHS}
        self.bits = np.zeros((len(narrowing.nullable), (room + 7) // 8), dtype=np.uint8)
        self.nulls = np.zeros(len(narrowing.nullable), dtype=np.int64)
        self._args()

    def _args(self) -> None:
        """``narrow``'s arguments after the rows (made once: a part is many calls)."""
        nar = self.narrowing
        self.args = (*(a for w in nar.WIDTHS for a in (nar.take[w], self.out[w])), nar.nullable,
                     nar.null_value, self.bits, self.nulls)

    def add(self, rows: np.ndarray) -> None:
        """Append the columns of kernel rows ``rows`` (2-D int64)."""
        if self.n + len(rows) > self.room:
            self._grow(max(2 * self.room, self.n + len(rows)))
        C.narrow(np.ascontiguousarray(rows), self.n, *self.args)
        self.n += len(rows)

    def _grow(self, room: int) -> None:
        n, self.room = self.n, room
        for w, old in self.out.items():
            self.out[w] = np.empty((len(old), room), dtype=w)
            self.out[w][:, :n] = old[:, :n]
        bits = np.zeros((len(self.bits), (room + 7) // 8), dtype=np.uint8)
        bits[:, :self.bits.shape[1]] = self.bits
        self.bits = bits
        self._args()

    def arrays(self) -> dict[str, pa.Array]:
        """The columns by name, in the order given, as Arrow arrays viewing them (no copy); a
        column without nulls has no bitmap."""
        n = self.n
        arrays = {}
        for name, width, k, bitmap, type_, names in self.narrowing.plan:
            data = self.out[width][k, :n]
            if bitmap >= 0 and self.nulls[bitmap]:
                arr = pa.Array.from_buffers(
                    type_, n, [pa.py_buffer(self.bits[bitmap, :(n + 7) // 8]),
                               pa.py_buffer(data)], null_count=int(self.nulls[bitmap]))
            else:
                arr = pa.array(data)
            if names is not None:
                arr = pa.DictionaryArray.from_arrays(arr, names, safe=False)
            arrays[name] = arr
        return arrays


def _named(codes_: np.ndarray, names: Sequence[str]) -> pa.Array:
    """Codes 0..len(names)-1 as a dictionary column of their names (no string per row)."""
    return pa.DictionaryArray.from_arrays(pa.array(codes_.astype(np.int8)),
                                          pa.array(list(names), pa.string()), safe=False)


_GAMES = _Narrowing([
    ("game", L.GO_GAME, np.int64, None, None),
    ("rounds", L.GO_ROUNDS, np.int32, None, None),
    ("turns", L.GO_TURNS, np.int64, None, None),
    ("first_seat", L.GO_FIRST, np.int8, None, None),
    ("winner_seat", L.GO_WINNER, np.int8, -1, None),
    ("margin", L.GO_MARGIN, np.int32, None, None),
    ("ended_by", L.GO_ENDED_BY, np.int8, None, codes.GAME_END_NAMES),
])
_GAME_SEATS = _Narrowing([
    ("final_score", L.GS_FINAL_SCORE, np.int32, None, None),
    ("rank", L.GS_RANK, np.int8, None, None),
])
_ROUNDS = _Narrowing([
    ("game", L.RO_GAME, np.int64, None, None),
    ("round", L.RO_ROUND, np.int32, None, None),
    ("dealer_seat", L.RO_DEALER, np.int8, None, None),
    ("first_seat", L.RO_FIRST, np.int8, None, None),
    ("winner_seat", L.RO_WINNER, np.int8, -1, None),
    ("winner_position", L.RO_WINNER_POS, np.int8, -1, None),
    *((name, L.RO_COUNTERS + i, np.int32, None, None)
      for i, name in enumerate(codes.COUNTER_NAMES)),
    ("points", L.RO_POINTS, np.int32, None, None),
    ("ended_by", L.RO_ENDED_BY, np.int8, None, codes.ROUND_END_NAMES),
    ("loser_seat", L.RO_LOSER, np.int8, -1, None),
    ("largest_penalty", L.RO_LARGEST_PENALTY, np.int32, None, None),
])
_ROUND_SEATS = _Narrowing([
    ("position", L.RS_POSITION, np.int8, None, None),
    ("cards_left", L.RS_CARDS_LEFT, np.int16, None, None),
    ("hand_points", L.RS_HAND_POINTS, np.int32, None, None),
    ("score_after", L.RS_SCORE_AFTER, np.int32, None, None),
    ("hands_emptied", L.RS_HANDS_EMPTIED, np.int8, None, None),
    ("finish_place", L.RS_FINISH_PLACE, np.int8, 0, None),
])


def _tables(inputs: _KernelInputs, game_rows, game_seat_rows, round_rows, seat_rows) -> Batch:
    """The batch's four tables (schemas in the module docstring) from the kernel's rows."""
    rounds, seats = _ROUNDS.start(len(round_rows)), _ROUND_SEATS.start(seat_rows[:, :, 0].size)
    rounds.add(round_rows)
    seats.add(seat_rows.reshape(-1, L.N_RS))
    return _batch(inputs, game_rows, game_seat_rows, rounds, seats)


def _batch(inputs: _KernelInputs, game_rows, game_seat_rows, rounds: _Columns,
           seats: _Columns) -> Batch:
    """The four tables of the kernel's game rows and the round and round-seat columns."""
    n = inputs.players
    n_games, n_rounds = len(game_rows), rounds.n
    games = _GAMES.start(n_games)
    games.add(game_rows)
    games = games.arrays()
    seat_ids = np.tile(np.arange(n, dtype=np.int8), n_games)
    policy_names = list(dict.fromkeys(inputs.policies))
    policy_of_seat = np.array([policy_names.index(p) for p in inputs.policies], dtype=np.int8)
    final = _GAME_SEATS.start(n_games * n)
    final.add(game_seat_rows.reshape(n_games * n, L.N_GS))
    game_seats = {
        "game": pa.array(np.repeat(games["game"].to_numpy(), n)),
        "seat": pa.array(seat_ids),
        "policy": _named(np.tile(policy_of_seat, n_games), policy_names),
        **final.arrays(),
        "is_winner": pa.array(np.repeat(game_rows[:, L.GO_WINNER], n) == seat_ids),
        "is_loser": pa.array(game_seat_rows[:, :, L.GS_IS_LOSER].reshape(-1) != 0),
    }
    rounds = rounds.arrays()
    round_seats = {
        "game": pa.array(np.repeat(rounds["game"].to_numpy(), n)),
        "round": pa.array(np.repeat(rounds["round"].to_numpy(), n)),
        "seat": pa.array(np.tile(np.arange(n, dtype=np.int8), n_rounds)),
        **seats.arrays(),
    }
    return Batch(pa.table(games), pa.table(game_seats), pa.table(rounds), pa.table(round_seats))


def _frames(tables: Batch) -> Batch:
    """The batch's tables as polars DataFrames (the columns are shared, not copied): ended_by
    of games and rounds as an Enum of its names, the other dictionary columns Categorical."""
    import polars as pl

    out = []
    for name, table in zip(Batch._fields, tables):
        if name in _ENUMS:
            at = table.schema.get_field_index("ended_by")
            table = pa.Table.from_arrays(table.columns, schema=table.schema.set(
                at, table.schema.field(at).with_metadata(_polars_enum(_ENUMS[name]))))
        out.append(pl.from_arrow(table, rechunk=False))  # the parts stay chunks: no copy
    return Batch(*out)


_ENUMS = {"games": codes.GAME_END_NAMES, "rounds": codes.ROUND_END_NAMES}


@functools.cache
def _polars_enum(names: tuple[str, ...]) -> dict[bytes, bytes]:
    """The Arrow field metadata by which polars reads a dictionary column of ``names`` (in code
    order) as an Enum of them: as polars writes one (a cast from Categorical after reading
    costs 50 ns a row)."""
    import polars as pl

    field = pl.DataFrame(schema={"e": pl.Enum(list(names))}).to_arrow().schema.field("e")
    return field.metadata
