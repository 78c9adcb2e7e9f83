"""The Python face of the engine: the functions that play games and trace them.

``simulate_batches`` plays games in batches and yields polars DataFrames, so memory stays flat for
any number of games (``simulate_arrow``: the same batches as pyarrow Tables, for the store);
``simulate_tables`` plays one game per table of many tables, each with its
own seats and seed, in one call (tournaments; ``simulate_tables_arrow``: the same as pyarrow
Tables); ``trace_game`` replays one game with every event recorded.

A game is a pure function of (rules, players, seats, seed, game index): each game seeds its own
random stream, so results do not depend on thread count, batch size or where a run resumed.

Behind these functions: ``_inputs`` (what the kernel is handed), ``_parts`` (how a run's games
are cut into parts and played on threads) and ``_output`` (the kernel's rows as tables).

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
  records"), then how the round played (``codes.MEASURE_NAMES``: hand_leader_changes,
  winner_largest_deficit (null when capped), decision_turns, legal_cards_on_decisions, uno_stops,
  uno_stops_still_won; docs/guide/how-it-plays.md), counted only when ``how_it_plays`` asks
  (the engine's loops that count are slower): null otherwise
- round_seats: game, round, seat, position (seat offset from the round's first player),
  cards_left, hand_points, score_after, hands_emptied (R10; 1 for the winner of a first_out round),
  finish_place (R9 to_the_last: 1, 2, ... in finishing order, the seat left last n; 1 for the
  winner of the other modes; null for the other seats and for seats holding cards at a cap)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyarrow as pa

from .. import cards
from .. import codes as C
from ..rules import RuleSet, behaviour_array
from ..seats import SearchPolicy, Seat, WeightedPolicy, resolve_seats
from . import _layout as L
from . import _turns as T
from ._inputs import KernelInputs, Outputs, PolicyRows
from ._output import Batch, TotalsBatch, frames, joined, named, tables_of
from ._parts import next_batch, play_parts, thread_count


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
    # Each seat's search (the expert; None: none), whose choices of card are its own.
    search: tuple[SearchPolicy | None, ...] = ()
    # Did the kernel count how each round played (its rows' measures; else null)? The referee
    # counts them from the events when True, else expects null.
    how_it_plays: bool = True
    # Each seat's ``keep_drawn`` behaviour (P5; empty or 0: it plays every drawn card it may).
    keep_drawn: tuple[int, ...] = ()


def simulate_batches(**kwargs: Any) -> Iterator[Batch]:
    """Play games ``first_game .. first_game + games - 1`` and yield them in batches, in order,
    as polars DataFrames (the tables of ``simulate_arrow``, viewed without a copy). Takes the
    keywords of ``simulate_arrow``: rules, players, seats, games, seed, first_game=0,
    threads=None, batch_games=10_000, how_it_plays=False."""
    for tables in simulate_arrow(**kwargs):
        yield frames(tables)


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
    how_it_plays: bool = False,
    totals: bool = False,
) -> Iterator[Batch | TotalsBatch]:
    """The games of ``simulate_batches`` as pyarrow Tables built straight from the kernel's
    rows (narrowed once into the columns the Arrow arrays view; the storage path hands them to
    DuckDB as they are).

    Memory: a batch is played in parts of about ``_parts.PART_SEAT_ROWS`` round-seat rows, each
    part by one thread a step of ``_parts.STEP_ROUNDS`` at a time into kernel rows the thread
    reuses, each step's rows narrowed into the part's compact columns at once; at most
    ``_parts.PARTS_AHEAD`` parts per thread are played ahead of the caller. ``ahead``: with more
    than one thread, the next batch plays while the caller uses this one (a caller that stores
    batches on a thread of its own already overlaps, and saves a batch of memory with
    ``ahead=False``).

    ``how_it_plays``: count how each round plays (the rounds' measures columns; null
    otherwise), on the engine's loops that count, about a fifth slower.

    ``totals``: each game's totals over its rounds instead of the rounds' rows (a
    ``TotalsBatch``), for a run that keeps games or summary.
    """
    inputs = KernelInputs.build(rules, players, seats, how_it_plays)
    if games < 0 or first_game < 0 or batch_games < 1:
        raise ValueError("games and first_game must be >= 0 and batch_games >= 1")
    threads = thread_count(threads)
    end = first_game + games
    ranges = [(lo, min(lo + batch_games, end)) for lo in range(first_game, end, batch_games)]
    parts = play_parts(inputs, seed, threads, ranges,
                       rules.standings_sign if totals else None)
    if not ahead or threads == 1 or len(ranges) < 2:
        for _ in ranges:
            yield next_batch(parts)
        return
    # With more threads than one, the next batch plays while this one is used (the kernels
    # hold no GIL): the caller's work would otherwise leave the threads idle.
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(next_batch, parts)
        for i in range(len(ranges)):
            batch = pending.result()
            if i + 1 < len(ranges):
                pending = pool.submit(next_batch, parts)
            yield batch
            batch = None  # not held while the next one is made




def simulate_tables(**kwargs: Any) -> Batch:
    """Play one game per entry of ``tables`` in one engine call (a tournament stage's tables,
    across many tournaments) and return them as one Batch of polars DataFrames whose ``game``
    column is the entry's index: the tables of ``simulate_tables_arrow`` (its keywords: rules,
    players, tables, seeds, streams=None, threads=None, how_it_plays=False), viewed without a
    copy."""
    return frames(simulate_tables_arrow(**kwargs))


def simulate_tables_arrow(
    *,
    rules: RuleSet,
    players: int,
    tables: Sequence[Sequence[Seat]],
    seeds: Sequence[int],
    streams: Sequence[int] | None = None,
    threads: int | None = None,
    how_it_plays: bool = False,
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
            key = (seat.policy, seat.weighted, seat.search,
                   tuple(sorted(seat.behaviour.items())))
            if key not in distinct:
                distinct[key] = len(unique)
                unique.append(seat)
            at = by_object[id(seat)] = distinct[key]
        return at

    which = np.array([[index_of(seat) for seat in resolve_seats(seats, players)]
                      for seats in tables], dtype=np.int64).reshape(k, players)
    return play_tables(KernelInputs.build(rules, players, unique[0], how_it_plays), unique, which,
                       np.asarray(seeds, dtype=np.uint64), np.asarray(streams, dtype=np.int64),
                       threads)


def play_tables(inputs: KernelInputs, seats: Sequence[Seat], which: np.ndarray,
                seeds: np.ndarray, streams: np.ndarray | None, threads: int | None) -> Batch:
    """Table i seats ``seats[which[i, s]]`` in place s (``which``: int64 [k, players]) and is
    game ``streams[i]`` (None: 0) of a run seeded ``seeds[i]`` (uint64), under ``inputs``' rules
    (its seats are not used): ``simulate_tables_arrow``'s Batch, game i the i-th table."""
    k, players = which.shape
    setups = np.zeros(k, dtype=L.GAME_SETUP)
    setups["seed"] = seeds
    setups["stream"] = 0 if streams is None else streams
    rows = PolicyRows.of(seats)
    setups["policy"][:, :players] = rows.policy[which]
    setups["weights"][:, :players] = rows.weights[which]
    setups["colour_random"][:, :players] = rows.colour_random[which]
    setups["ties_first"][:, :players] = rows.ties_first[which]
    setups["budget"][:, :players] = rows.budget[which]
    setups["sees_all"][:, :players] = rows.sees_all[which]
    setups["rounds_goal"][:, :players] = rows.rounds_goal[which]
    setups["colour_search"][:, :players] = rows.colour_search[which]
    setups["behaviour"][:, :players] = behaviour_array([dict(s.behaviour) for s in seats])[which]
    inputs = replace(inputs, setups=setups)
    parts = [tables for tables, _ in play_parts(inputs, 0, thread_count(threads), [(0, k)])]
    # the policy column by each game's seats (named by the policies that sit), chunked as played
    names = sorted({seats[i].policy for i in np.unique(which).tolist()})
    code = np.array([names.index(s.policy) if s.policy in names else -1 for s in seats],
                    dtype=np.int64)[which].reshape(-1)
    cuts = np.cumsum([len(t.game_seats) for t in parts])[:-1]
    played = joined(parts)
    game_seats = played.game_seats.set_column(
        played.game_seats.schema.get_field_index("policy"), "policy",
        pa.chunked_array([named(c, names) for c in np.split(code, cuts)]))
    return played._replace(game_seats=game_seats)


def trace_game(
    *, rules: RuleSet, players: int, seats: Seat | Sequence[Seat], seed: int, game: int,
    how_it_plays: bool = False,
) -> Trace:
    """Replay game ``game`` of a run seeded with ``seed``, recording every event (its rows
    count how each round played when ``how_it_plays``, as the run's did)."""
    return _trace(KernelInputs.build(rules, players, seats, how_it_plays), rules, seed, game)


def trace_scripted_game(
    *,
    rules: RuleSet,
    players: int,
    seats: Seat | Sequence[Seat],
    dealer: int,
    deck_top: Sequence[int],
    seed: int = 0,
    how_it_plays: bool = False,
) -> Trace:
    """A game whose every round is dealt from a fixed deck order (scripted rule tests).

    ``deck_top`` lists the first cards of the deck (card type ids; the first is dealt first, to
    the dealer's left); the rest of ``rules``' deck follows in card-id order. Draws take the
    top card and a reshuffled pile keeps the discard order. Randomness is left only in policies
    and behaviour, so tests use deterministic ones (``first_legal``, probabilities 0 or 1).
    ``how_it_plays``: the rows count how each round played.
    """
    inputs = KernelInputs.build(rules, players, seats, how_it_plays)
    rest = inputs.deck.copy()
    for t in deck_top:
        if not 0 <= t < cards.N_TYPES or rest[t] == 0:
            raise ValueError(f"deck_top: no {cards.card_to_str(t)} left in the deck for it")
        rest[t] -= 1
    stack = np.concatenate([np.asarray(deck_top, dtype=np.int64),
                            np.repeat(np.arange(cards.N_TYPES, dtype=np.int64), rest)])
    return _trace(inputs, rules, seed, 0, stack=stack, first_dealer=dealer)


def _trace(inputs: KernelInputs, rules: RuleSet, seed: int, game: int,
           stack: np.ndarray | None = None, first_dealer: int = -1) -> Trace:
    max_rounds = rules.values["max_rounds"]
    tables = inputs.tables(1, tracing=True, stack=stack)
    capacity = 1 << 16
    while True:
        out = Outputs(1, max_rounds, inputs.players)
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
            batch = frames(tables_of(inputs, out.game, out.game_seat, out.round[:rounds],
                                     out.round_seat[:rounds]))
            return Trace(rules=rules, players=inputs.players, policies=inputs.policies,
                         seed=seed, game=game, deck_counts=inputs.deck,
                         card_points=inputs.points, events=trace[:used].copy(), batch=batch,
                         weighted=inputs.weighted, search=inputs.search,
                         how_it_plays=inputs.how_it_plays,
                         keep_drawn=tuple(int(k) for k in inputs.behaviour[:, C.B_KEEP_DRAWN]))
        capacity = used
