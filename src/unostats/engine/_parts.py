"""How a run's games are cut into parts and played: each part (about ``PART_SEAT_ROWS``
round-seat rows, one Arrow chunk) by one thread, a step of ``STEP_ROUNDS`` rounds per engine
call into rows the thread reuses, the parts of every batch taken in order from one queue
(``play_parts``). Any cut plays the same games: a game's rows depend on nothing but its index."""

from __future__ import annotations

import collections
import math
import queue
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numba
import numpy as np

from . import _layout as L
from . import _totals as TOT
from . import _turns as T
from ._inputs import KernelInputs, Outputs
from ._output import ROUND_SEATS, ROUNDS, Batch, TotalsBatch, batch_of, joined, totals_batch_of


# Round-seat rows per part (one Arrow chunk): larger parts save little CPU and raise the peak
# memory of a run into the store (docs/performance.md, "Parts and steps").
PART_SEAT_ROWS = 65_536
# Rounds of one engine call within a part (a thread's rows, reused), whatever the players: few
# enough that the narrowing reads a step's rows from the cache, many enough that the engine
# call's argument checks do not count (docs/performance.md, "Parts and steps").
STEP_ROUNDS = 4_096
MIN_PART_GAMES = 16  # the smallest part the end of a run is cut into for the threads
PARTS_AHEAD = 2  # with threads: parts played or queued per thread ahead of the caller


def next_batch(parts: Iterator[tuple[Batch | TotalsBatch, bool]]) -> Batch | TotalsBatch:
    """The next batch's tables, from the parts ``play_parts`` yields (the last one says so)."""
    tables = []
    for table, last in parts:
        tables.append(table)
        if last:
            break
    return joined(tables)


def play_parts(inputs: KernelInputs, seed: int, threads: int,
               ranges: Sequence[tuple[int, int]], totals: int | None = None
               ) -> Iterator[tuple[Batch | TotalsBatch, bool]]:
    """The games of ``ranges`` (the batches' games) as the tables of parts (``Plan``), in
    order, each with whether it ends its batch.

    A part is played by one thread from start to end (``Scratch.play``: engine calls of a step
    of games each, whose rows are narrowed into the part's columns at once, in one GIL-free call
    each). With more threads than one, the threads take parts from one queue that runs on from
    batch to batch, ``PARTS_AHEAD`` per thread ahead of the caller: no thread waits for another
    or for the caller's copy, and a thread takes the GIL only a few times per step. ``threads``:
    from ``thread_count``."""
    estimate = RoundsEstimate()
    plan = Plan(ranges, inputs.players, threads, estimate)
    scratches: queue.SimpleQueue[Scratch] = queue.SimpleQueue()  # one per thread at work

    def play(lo: int, hi: int) -> Batch:
        try:
            scratch = scratches.get_nowait()
        except queue.Empty:
            scratch = Scratch(inputs)
        try:
            return scratch.play(seed, lo, hi, estimate, totals)
        finally:
            scratches.put(scratch)

    if threads == 1:
        while (part := plan.next()) is not None:
            yield play(part[0], part[1]), part[2]
        return
    inflight: collections.deque[tuple[Future, bool]] = collections.deque()
    with ThreadPoolExecutor(threads) as pool:
        def submit() -> None:
            part = plan.next()
            if part is not None:
                inflight.append((pool.submit(play, part[0], part[1]), part[2]))
        for _ in range(PARTS_AHEAD * threads):
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


class Plan:
    """The parts of ``ranges``' games, in order: about PART_SEAT_ROWS round-seat rows each (by
    the rounds per game seen so far), never across the end of a range (a batch); with threads,
    at most a thread's share of the games still to plan (not under MIN_PART_GAMES), so the
    parts shrink at the end of the run and the threads finish together. Any cut plays the same
    games: a game's rows depend on nothing but its index."""

    def __init__(self, ranges: Sequence[tuple[int, int]], players: int, threads: int,
                 estimate: RoundsEstimate) -> None:
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


class Scratch:
    """What one thread plays parts with: a TABLE record of its own, and the kernel's int64 rows
    of a part's games and of one step's rounds (reused from part to part; grown when short)."""

    def __init__(self, inputs: KernelInputs) -> None:
        self.inputs = inputs
        self.table = inputs.tables(1)[0]
        self.games = Outputs(0, 0, inputs.players)
        self.step = Outputs(0, STEP_ROUNDS, inputs.players)

    def play(self, seed: int, lo: int, hi: int, estimate: RoundsEstimate,
             totals: int | None = None) -> Batch | TotalsBatch:
        """Games [lo, hi) as tables, played a step of games at a time: each step's round rows
        are narrowed into the part's columns while they are still in the cache, or added to
        their games' totals (``totals``: the standings' sign; ``_totals.add_rounds``)."""
        inputs, n = self.inputs, self.inputs.players
        if len(self.games.game) < hi - lo:
            self.games = Outputs(hi - lo, 0, n)
        game, game_seat = self.games.game[:hi - lo], self.games.game_seat[:hi - lo]
        per_game = estimate.per_game()
        if totals is None:
            room = int((hi - lo) * per_game * 1.25) + 64
            rounds, seats = ROUNDS.start(room), ROUND_SEATS.start(room * n)
        else:
            sums = np.zeros((hi - lo, len(TOT.COLUMNS)))
            lengths = np.zeros(0, np.int64)  # rounds by turns
            played = 0
        g = lo
        while g < hi:
            step = self.step
            e = min(hi, g + max(1, int(len(step.round) / (1.25 * per_game))))
            done, r = kernel(inputs, self.table, np.uint64(seed), g, e, game[g - lo:],
                              game_seat[g - lo:], step.round, step.round_seat)
            if done == 0:  # one game has more rounds than the step holds
                self.step = Outputs(0, 2 * len(step.round), n)
                continue
            if totals is None:
                rounds.add(step.round[:r])
                seats.add(step.round_seat[:r].reshape(r * n, L.N_RS))
            else:
                TOT.add_rounds(step.round[:r], step.round_seat[:r], game, lo, totals, sums)
                step_lengths = np.bincount(step.round[:r, TOT.TURNS], minlength=len(lengths))
                step_lengths[:len(lengths)] += lengths
                lengths = step_lengths
                played += r
            g += int(done)
        if totals is not None:
            estimate.add(hi - lo, played)
            return totals_batch_of(inputs, game, game_seat, sums, lengths)
        estimate.add(hi - lo, rounds.n)
        return batch_of(inputs, game, game_seat, rounds, seats)


def thread_count(threads: int | None) -> int:
    """The threads that play parts: ``threads``, or None for all Numba has."""
    available = numba.config.NUMBA_NUM_THREADS
    if threads is not None and not 1 <= threads <= available:
        raise ValueError(f"threads must be from 1 to {available}, got {threads}")
    return threads or available


class RoundsEstimate:
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


_NO_TRACE = np.zeros((1, 4), dtype=np.int64)


def kernel(inputs: KernelInputs, table, seed: np.uint64, lo: int, hi: int, game_out,
           game_seat_out, round_out, round_seat_out) -> tuple[int, int]:
    """``T.play_games`` of games [lo, hi) into the outputs' rows from 0, with ``table`` (a TABLE
    record no other thread uses meanwhile): (games completed, rounds written)."""
    return T.play_games(table, inputs.options, seed, lo, hi, game_out, game_seat_out, round_out,
                        round_seat_out, _NO_TRACE, -1, inputs.setups)
