"""Championships (docs/rules.md section 9, TOUR): the bracket, the draw by lot, who advances.

A tournament scenario (``tournament:`` in a scenario file, validated by ``scenario``) names the
entrant profiles (a play policy and behaviour each), one or more *fields* (how many entrants of
each profile), the table size and the stages. One tournament of a field goes:

1. Stage by stage, the stage's players are drawn by lot onto ``ceil(players / table_size)``
   tables whose sizes differ by at most one (seat order = draw order). Every table plays one game
   of the variant (to its target score, 500 under TOUR).
2. The best ``advance`` players of each table go on to the next stage. ``advance`` is a number or
   a rule by the bracket's number of entrants (TOUR: "the best 2 of each table, or 3, depending on
   the number of entrants"). When a stage's players fit at one table, that table is the final and
   the stages in between are skipped. The final's best player is the champion.
3. With ``consolation``, the players knocked out in the first stage play a consolation tournament
   with the same stages and rules (TOUR T3), its advance rule evaluated with its own entrant count.

Who is better at a table: the engine's game rank (1 = best, by the variant's scoring; ties share a
rank), then more rounds won in that game, then fewer points left in hand at the ends of the game's
rounds (what the player gave away), then the lot. Ties on rank are common in winner-takes-all
games: players who never won a round all score 0, and at a table of 6 the third and fourth often
both have 0. ``TableResult.decided_by`` says which criterion separated the last player who went
on from the first who did not (at a final: the champion from the runner-up).

Final places (competition ranking, per bracket): players who reached a later stage are better;
within the stage they were knocked out in, the better finish at their table (1st, 2nd, ...) is
better; equal stage and finish share a place (two semifinal runners-up are both 3rd of a final of
two). Exactly one champion per bracket.

Randomness: tournament ``t`` of a field is a pure function of (scenario, engine version, seed, t):
every draw, every tie-break lot and every table game's seed comes from its own
``numpy.random.SeedSequence(seed, spawn_key=(field key, t, purpose, bracket, stage[, table]))``,
so nothing depends on batch sizes, threads, other fields or where a run resumed. The field key is
a hash of the field's name, so a field's tournaments do not change when other fields are added.
The variant is not in the key: the same field under two variants gets the same draws (common
random numbers make the variants' comparison sharper). ``play_batch`` derives the draws
and game seeds of all its tournaments at once (``_BatchSeeds``: those SeedSequences' words by
``seed_sequences``, without a SeedSequence object per key); ``draw`` and ``game_seed`` derive
one (tests compare the two). A table's lot is drawn only when two seats tie on everything before
it (``_BracketRun.take``): where nothing ties, the lot changes no order.

This module is pure Python and numpy with an injectable table player (``play_batch(...,
play_tables)``), so the bracket logic is tested on hand-made games; ``runs.tournaments`` plugs in
the engine. Tournaments play side by side as columns: a stage of a bracket is drawn, read and
ranked for all the tournaments of a batch at once (numpy arrays with a row per tournament:
seats, finishes, what decided, standings and places), and the player is handed the tables of a
step (the next stage of the main bracket and of the consolation, which starts once the first
stage is over) of many tournaments at once, which the engine plays in one call per stage and
table size (``PlayColumns``). (Groups of a batch stepping on their own, one group's tables played
on a thread while another's step is drawn, doubled the engine calls for a few ms of Python a
step: measured, and dropped.)
``play_tournaments`` gives the same tournaments as ``TournamentResult`` objects.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from . import seed_sequences
from .seats import Seat

MAIN = "main"
CONSOLATION = "consolation"
BRACKETS = (MAIN, CONSOLATION)
DECIDED_BY = ("rank", "rounds_won", "hand_points", "lot")
ENTRANTS_RANGE = (2, 10_000)
TABLE_SIZE_RANGE = (2, 10)  # the engine's player counts (rule S1)
DEFAULT_TABLE_SIZE = 6  # TOUR T1

# Purposes in the seed key (never renumber: stored runs depend on them).
_DRAW, _GAME, _LOT = 0, 1, 2
_BRACKET_CODE = {MAIN: 0, CONSOLATION: 1}


class PlanError(ValueError):
    """A bracket cannot be played with these entrants (the message says why)."""


# --- Specification -----------------------------------------------------------------------------

@dataclass(frozen=True)
class AdvanceRule:
    """``advance`` players per table go on when the bracket has at most ``entrants_at_most``
    entrants (None: any number)."""

    advance: int
    entrants_at_most: int | None = None

    def resolved(self) -> dict[str, Any]:
        out: dict[str, Any] = {"advance": self.advance}
        if self.entrants_at_most is not None:
            out["entrants_at_most"] = self.entrants_at_most
        return out


@dataclass(frozen=True)
class Stage:
    name: str
    advance: tuple[AdvanceRule, ...] = ()  # empty for the last stage (the final)

    def advancers(self, entrants: int) -> int:
        """Players per table who go on, for a bracket of ``entrants``."""
        for rule in self.advance:
            if rule.entrants_at_most is None or entrants <= rule.entrants_at_most:
                return rule.advance
        raise PlanError(f"stage {self.name!r} has no advance rule for {entrants} entrants")

    def resolved(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.advance:
            simple = len(self.advance) == 1 and self.advance[0].entrants_at_most is None
            out["advance"] = (self.advance[0].advance if simple
                              else [r.resolved() for r in self.advance])
        return out


@dataclass(frozen=True)
class Field:
    """Who enters: ``mix`` is (profile, count) sorted by profile name; counts sum to
    ``entrants``. Entrant ids 0..entrants-1 follow that order (the draw shuffles them)."""

    name: str
    entrants: int
    mix: tuple[tuple[str, int], ...]
    description: str = ""

    def entrant_profiles(self) -> tuple[str, ...]:
        return tuple(p for p, count in self.mix for _ in range(count))

    def count(self, profile: str) -> int:
        return dict(self.mix).get(profile, 0)

    @functools.cached_property
    def key(self) -> int:
        """The field's part of every seed key: a hash of its name (once: every seed needs it)."""
        return int.from_bytes(hashlib.sha256(self.name.encode()).digest()[:4], "little")

    def resolved(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "entrants": self.entrants,
                "mix": {p: c for p, c in self.mix}}


@dataclass(frozen=True)
class StagePlan:
    """One stage as a bracket plays it."""

    stage: int  # index into TournamentSpec.stages
    name: str
    players: int
    tables: tuple[int, ...]  # players at each table
    advance: int  # per table; 0 at the final

    @property
    def is_final(self) -> bool:
        return self.advance == 0

    @property
    def advancing(self) -> int:
        return self.advance * len(self.tables)


@dataclass(frozen=True)
class TournamentSpec:
    table_size: int
    stages: tuple[Stage, ...]
    profiles: Mapping[str, Seat]  # by name, sorted
    fields: tuple[Field, ...]
    consolation: bool = False
    entrants: int | None = None  # the file's default entrant count (fields may override)

    def resolved(self) -> dict[str, Any]:
        return {
            "entrants": self.entrants,
            "table_size": self.table_size,
            "consolation": self.consolation,
            "stages": [s.resolved() for s in self.stages],
            "profiles": {name: s.resolved() for name, s in self.profiles.items()},
            "fields": [f.resolved() for f in self.fields],
        }

    def plan(self, entrants: int) -> tuple[StagePlan, ...]:
        return plan_bracket(self.stages, self.table_size, entrants)

    def brackets(self, fld: Field) -> tuple[tuple[StagePlan, ...], tuple[StagePlan, ...]]:
        """The main bracket's plan and the consolation's (empty without one)."""
        main = self.plan(fld.entrants)
        knocked_out = consolation_entrants(main) if self.consolation else 0
        return main, (self.plan(knocked_out) if knocked_out >= 2 else ())

    def games_per_tournament(self, fld: Field) -> int:
        return sum(len(s.tables) for plan in self.brackets(fld) for s in plan)

    def table_sizes(self) -> tuple[int, ...]:
        """Every table size some stage of some field plays (the run's player-count cells)."""
        return tuple(sorted({n for f in self.fields for plan in self.brackets(f)
                             for s in plan for n in s.tables}))

    def seat(self, profile: str) -> Seat:
        return self.profiles[profile]


def balanced_tables(players: int, table_size: int) -> tuple[int, ...]:
    """``ceil(players / table_size)`` tables whose sizes differ by at most one, larger first."""
    tables = max(1, math.ceil(players / table_size))
    base, extra = divmod(players, tables)
    return tuple(base + 1 if i < extra else base for i in range(tables))


def plan_bracket(stages: Sequence[Stage], table_size: int,
                 entrants: int) -> tuple[StagePlan, ...]:
    """The stages a bracket of ``entrants`` plays; raises PlanError if it cannot be played."""
    if entrants < 2:
        raise PlanError(f"{entrants} entrants: a bracket needs at least 2")
    out: list[StagePlan] = []
    players, i = entrants, 0
    while True:
        last = i == len(stages) - 1
        if not last and players <= table_size:  # one table: it is the final
            i, last = len(stages) - 1, True
        stage = stages[i]
        if last:
            if players > table_size:
                before = f"after stage {out[-1].name!r} " if out else ""
                raise PlanError(
                    f"{players} players would reach the final {stage.name!r} {before}with "
                    f"{entrants} entrants, more than one table of {table_size}: add a stage or "
                    "let fewer players advance")
            out.append(StagePlan(i, stage.name, players, (players,), 0))
            return tuple(out)
        tables = balanced_tables(players, table_size)
        k = stage.advancers(entrants)
        if k >= min(tables):
            raise PlanError(
                f"stage {stage.name!r} with {entrants} entrants: {k} of each table advance, but "
                f"its {players} players sit at tables of {', '.join(map(str, tables))}, so a "
                f"table of {min(tables)} would knock nobody out")
        out.append(StagePlan(i, stage.name, players, tables, k))
        players, i = k * len(tables), i + 1


def consolation_entrants(main: Sequence[StagePlan]) -> int:
    """Players knocked out in the main bracket's first stage (0 if it is the final)."""
    first = main[0]
    return 0 if first.is_final else first.players - first.advancing


# --- Seeds -------------------------------------------------------------------------------------

def _sequence(seed: int, fld: Field, t: int, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(entropy=seed, spawn_key=(fld.key, t, *key))


def _rng(seed: int, fld: Field, t: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(_sequence(seed, fld, t, *key)))


_SEED_MASK = 2**63 - 1


def game_seed(seed: int, fld: Field, t: int, bracket: str, stage: int, table: int) -> int:
    """The engine seed of one table's game (63 bits; the engine plays it as its game 0)."""
    state = _sequence(seed, fld, t, _GAME, _BRACKET_CODE[bracket], stage, table)
    return int(state.generate_state(1, np.uint64)[0]) & _SEED_MASK


def _deal(order: Sequence[int], plan: StagePlan) -> list[tuple[int, ...]]:
    out, at = [], 0
    for size in plan.tables:
        out.append(tuple(order[at:at + size]))
        at += size
    return out


def _shuffled(rng: np.random.Generator, players: Sequence[int]) -> list[int]:
    return rng.permutation(np.array(sorted(players), dtype=np.int64)).tolist()


def draw(seed: int, fld: Field, t: int, bracket: str, plan: StagePlan,
         players: Sequence[int]) -> list[tuple[int, ...]]:
    """The draw by lot of one stage: the entrants at each table, in seat order."""
    rng = _rng(seed, fld, t, _DRAW, _BRACKET_CODE[bracket], plan.stage)
    return _deal(_shuffled(rng, players), plan)


def lot(seed: int, fld: Field, t: int, bracket: str, stage: int, table: int,
        players: int) -> tuple[int, ...]:
    """Each seat's lot number (0 = best) for ties that rank and rounds won leave open."""
    perm = _rng(seed, fld, t, _LOT, _BRACKET_CODE[bracket], stage, table).permutation(players)
    return tuple(perm.tolist())


class _BatchSeeds:
    """The game seeds and draw streams of tournaments ``indices`` of a field, every one derived
    at once (``seed_sequences``: the words of ``game_seed`` and ``draw``'s SeedSequences,
    without a SeedSequence per key): ``games[(bracket, stage, table)]`` and
    ``draws[(bracket, stage)]``, a row per tournament."""

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
            tail = np.repeat(np.array([(_BRACKET_CODE[r[0]], *r[1:]) for r in rows],
                                      dtype=np.uint64), n, axis=0)
            return np.hstack([head, tail])  # row i * n + k: key i of tournament k

        games = seed_sequences.generate_state(seed, keys(places, _GAME), 1)[:, 0]
        games = (games & np.uint64(_SEED_MASK)).reshape(len(places), n)
        self.games = {p: games[i] for i, p in enumerate(places)}
        states = seed_sequences.generate_state(seed, keys(draws, _DRAW), 4)
        self.draws = {d: states[i * n:(i + 1) * n] for i, d in enumerate(draws)}


# --- One table ---------------------------------------------------------------------------------

class TableGame(NamedTuple):
    """What a bracket needs from one table's game (per seat, seat order)."""

    rank: tuple[int, ...]  # engine rank, 1 = best, ties share
    rounds_won: tuple[int, ...]
    first_position: tuple[int, ...]  # position in round 1 (0 acts first)
    rounds: int
    turns: int
    hand_points: tuple[int, ...] = ()  # points left in hand, summed over the rounds (() = 0s)
    payload: Any = None  # the engine's frames, stored by runs.tournaments


class TableGames(NamedTuple):
    """The games of ``m`` tables of one size ``n``, row i the i-th table asked: int64 arrays
    [m, n] per seat (seat order) and [m] per game. ``payload``: what is stored of them (the
    engine's Batch of the m games, game i = row i), or ``games``: the TableGames a player of
    single tables returned (``of``)."""

    rank: np.ndarray
    rounds_won: np.ndarray
    first_position: np.ndarray
    rounds: np.ndarray
    turns: np.ndarray
    hand_points: np.ndarray
    payload: Any = None
    games: Sequence[TableGame] | None = None

    @classmethod
    def of(cls, games: Sequence[TableGame], n: int) -> TableGames:
        def seats(values: list[Sequence[int]]) -> np.ndarray:
            return np.array(values, dtype=np.int64).reshape(len(games), n)

        return cls(seats([g.rank for g in games]), seats([g.rounds_won for g in games]),
                   seats([g.first_position for g in games]),
                   np.array([g.rounds for g in games], dtype=np.int64),
                   np.array([g.turns for g in games], dtype=np.int64),
                   seats([g.hand_points or (0,) * n for g in games]), games=games)

    def game(self, i: int) -> TableGame:
        if self.games is not None:
            return self.games[i]
        return TableGame(tuple(self.rank[i].tolist()), tuple(self.rounds_won[i].tolist()),
                         tuple(self.first_position[i].tolist()), int(self.rounds[i]),
                         int(self.turns[i]), tuple(self.hand_points[i].tolist()),
                         (self.payload, i))


TableAsk = tuple[tuple[Seat, ...], int]  # a table to play: its seats and its game's seed
# The games of many tables (any sizes), in order: a player of single tables.
PlayTables = Callable[[Sequence[TableAsk]], Sequence[TableGame]]


class PlayColumns(Protocol):
    """A player of many tables of one size at once (the engine, ``runs.tournaments``):
    ``play_columns(seats, which, seeds)`` plays table i with seats ``seats[which[i, s]]`` (which:
    int64 [m, n]) and game seed ``seeds[i]`` (uint64 [m])."""

    def play_columns(self, seats: Sequence[Seat], which: np.ndarray,
                     seeds: np.ndarray) -> TableGames: ...


def _orders(rank: np.ndarray, won: np.ndarray, left: np.ndarray,
            lots: np.ndarray | None = None) -> np.ndarray:
    """Each table's seats best first (arrays [..., n] per seat): rank, then more rounds won,
    then fewer points left in hand, then the lot (``lots``, 0 = best; None: seat order)."""
    keys = (left, -won, rank) if lots is None else (lots, left, -won, rank)
    return np.lexsort(keys, axis=-1)


def _tied(rank: np.ndarray, won: np.ndarray, left: np.ndarray,
          order: np.ndarray) -> np.ndarray:
    """Tables (arrays [..., n]; ``order`` from ``_orders``) where two seats tie on everything
    before the lot."""
    same = np.ones(order.shape[:-1] + (order.shape[-1] - 1,), dtype=bool)
    for key in (rank, won, left):
        s = np.take_along_axis(key, order, axis=-1)
        same &= s[..., 1:] == s[..., :-1]
    return same.any(axis=-1)


def _deciders(rank: np.ndarray, won: np.ndarray, left: np.ndarray, order: np.ndarray,
              boundary: int) -> np.ndarray:
    """Index into DECIDED_BY of what separated ``order[..., boundary - 1]`` (the last to go
    on) from ``order[..., boundary]``."""
    a, b = order[..., boundary - 1:boundary], order[..., boundary:boundary + 1]
    out = np.full(order.shape[:-1], 3, dtype=np.int64)  # the lot
    for code, key in reversed(list(enumerate((rank, won, left)))):
        differ = (np.take_along_axis(key, a, -1) != np.take_along_axis(key, b, -1))[..., 0]
        out[differ] = code
    return out


def _game_arrays(game: TableGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(game.rank)
    return (np.array(game.rank, dtype=np.int64), np.array(game.rounds_won, dtype=np.int64),
            np.array(game.hand_points or (0,) * n, dtype=np.int64))


def finish_order(game: TableGame, lots: Sequence[int]) -> tuple[int, ...]:
    """Seats best first: rank, then more rounds won, then fewer points left in hand, then the
    lot."""
    return tuple(_orders(*_game_arrays(game), np.asarray(lots, dtype=np.int64)).tolist())


def decided_by(game: TableGame, order: Sequence[int], boundary: int) -> str:
    """What separated ``order[boundary - 1]`` (the last to go on) from ``order[boundary]``."""
    code = _deciders(*_game_arrays(game), np.asarray(order, dtype=np.int64), boundary)
    return DECIDED_BY[int(code)]


class TableResult(NamedTuple):
    bracket: str
    stage: StagePlan
    table: int  # 0-based within the stage
    entrants: tuple[int, ...]  # entrant in each seat
    profiles: tuple[str, ...]  # their profiles
    game_seed: int
    game: TableGame
    finish: tuple[int, ...]  # entrants best first
    decided_by: str

    @property
    def advancers(self) -> tuple[int, ...]:
        return () if self.stage.is_final else self.finish[:self.stage.advance]


class Standing(NamedTuple):
    """One entrant's result in one bracket."""

    stage: int  # index into the spec's stages of the last stage played
    stage_name: str
    finish: int  # 1-based finish at that stage's table
    place: int  # competition ranking: 1 + players strictly better


class EntrantResult(NamedTuple):
    entrant: int
    profile: str
    main: Standing
    first_table: int
    first_seat: int
    first_position: int
    first_table_players: int
    advanced_first: bool  # went on from the first stage (False if the first stage is the final)
    consolation: Standing | None = None


@dataclass(frozen=True)
class TournamentResult:
    field: Field
    index: int
    tables: tuple[TableResult, ...]  # in play order: main stages, then consolation stages
    entrants: tuple[EntrantResult, ...]
    champion: int
    consolation_champion: int | None

    def games(self) -> int:
        return len(self.tables)


# --- Playing -----------------------------------------------------------------------------------
#
# The tournaments of a batch play side by side as columns: each stage of a bracket is played by
# all of them at once, its draws, seats, finishes and standings numpy arrays with a row per
# tournament ([K, players]; a stage's tables one after another along the row). The consolation
# starts as soon as the main bracket's first stage is over, so its stages play in the main
# bracket's later steps (a step: the tables of every stage that can play next).


@dataclass(frozen=True)
class _FieldPlan:
    """What every tournament of a field shares: its entrants' profiles and seats, its brackets'
    plans (derived once per ``play_batch``)."""

    field: Field
    profiles: tuple[str, ...]  # by entrant
    entrant_seats: tuple[Seat, ...]  # by entrant
    seats: tuple[Seat, ...]  # the distinct profiles' seats, by profile index
    names: tuple[str, ...]  # the distinct profiles, by profile index
    profile_of: np.ndarray  # each entrant's profile index
    stage_names: tuple[str, ...]  # by stage index
    main_plan: tuple[StagePlan, ...]
    cons_plan: tuple[StagePlan, ...]

    @classmethod
    def of(cls, spec: TournamentSpec, fld: Field) -> _FieldPlan:
        profiles = fld.entrant_profiles()
        names = tuple(dict.fromkeys(profiles))
        return cls(fld, profiles, tuple(spec.seat(p) for p in profiles),
                   tuple(spec.seat(p) for p in names), names,
                   np.array([names.index(p) for p in profiles], dtype=np.int64),
                   tuple(s.name for s in spec.stages), *spec.brackets(fld))


class StageRecord:
    """One stage of one bracket as K tournaments played it (arrays [K, players], the stage's
    tables one after another: ``starts[j]`` is table j's first column)."""

    def __init__(self, bracket: str, plan: StagePlan, seated: np.ndarray, seeds: np.ndarray):
        self.bracket, self.plan = bracket, plan
        self.seated = seated  # entrants in seat order
        self.seeds = seeds  # [K, tables] uint64 game seeds
        self.starts = np.cumsum((0,) + plan.tables[:-1])
        # the tables of each size: (size, their indices j, their games; row k * len(js) + q
        # is table js[q] of tournament k)
        self.sizes: list[tuple[int, list[int]]] = [
            (n, [j for j, m in enumerate(plan.tables) if m == n])
            for n in dict.fromkeys(plan.tables)]
        self.games: list[TableGames] = []
        self.finish = np.empty_like(seated)  # entrants best first, table by table
        self.decided = np.empty(seeds.shape, dtype=np.int64)  # index into DECIDED_BY
        self.first_position = np.empty_like(seated)  # each seat's position in round 1

    def columns(self, j: int) -> slice:
        return slice(int(self.starts[j]), int(self.starts[j]) + self.plan.tables[j])

    def asks(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per table size: the entrants [K * tables, n] and game seeds of its tables."""
        out = []
        for n, js in self.sizes:
            k = len(self.seated)
            entrants = np.stack([self.seated[:, self.columns(j)] for j in js], axis=1)
            out.append((entrants.reshape(k * len(js), n),
                        self.seeds[:, js].reshape(k * len(js))))
        return out

    def slot(self, j: int) -> tuple[TableGames, int, int]:
        """Where table j's games are: its size's games, q and m (tournament k's game is row
        k * m + q)."""
        for (_, js), games in zip(self.sizes, self.games):
            if j in js:
                return games, js.index(j), len(js)
        raise IndexError(j)


class _BracketRun:
    """One bracket of K tournaments, stage by stage: ``ask`` draws the next stage, ``take``
    reads its games."""

    def __init__(self, bracket: str, plan: Sequence[StagePlan], seeds: _BatchSeeds,
                 ctx: _Context, players: np.ndarray) -> None:
        self.bracket, self.plan, self.seeds, self.ctx = bracket, plan, seeds, ctx
        self.players = players  # [K, p] the next stage's players
        self.stages: list[StageRecord] = []
        k, e = len(players), ctx.field.field.entrants
        self.last_stage = np.full((k, e), -1, dtype=np.int64)  # -1: did not play here
        self.last_finish = np.zeros((k, e), dtype=np.int64)

    @property
    def playing(self) -> bool:
        """Has the bracket stages left to play?"""
        return len(self.stages) < len(self.plan)

    def ask(self) -> StageRecord:
        stage = self.plan[len(self.stages)]
        states = self.seeds.draws[(self.bracket, stage.stage)]
        players = np.sort(self.players, axis=1)
        seated = np.empty_like(players)
        for k in range(len(players)):
            rng = np.random.Generator(np.random.PCG64(seed_sequences.Seeded(states[k])))
            seated[k] = rng.permutation(players[k])
        seeds = np.stack([self.seeds.games[(self.bracket, stage.stage, j)]
                          for j in range(len(stage.tables))], axis=1)
        record = StageRecord(self.bracket, stage, seated, seeds)
        self.stages.append(record)
        return record

    def take(self, record: StageRecord, games: list[TableGames]) -> None:
        record.games = games
        stage = record.plan
        kk = len(record.seated)
        boundary = 1 if stage.is_final else stage.advance
        for (n, js), g in zip(record.sizes, games):
            shape = (kk, len(js), n)
            rank, won, left = (a.reshape(shape) for a in (g.rank, g.rounds_won, g.hand_points))
            order = _orders(rank, won, left)
            for k, q in zip(*np.nonzero(_tied(rank, won, left, order))):
                lots = lot(self.ctx.seed, self.ctx.field.field, self.ctx.indices[k],
                           self.bracket, stage.stage, js[q], n)
                order[k, q] = _orders(rank[k, q], won[k, q], left[k, q],
                                      np.asarray(lots, dtype=np.int64))
            decided = _deciders(rank, won, left, order, boundary)
            position = g.first_position.reshape(shape)
            for q, j in enumerate(js):
                cols = record.columns(j)
                record.finish[:, cols] = np.take_along_axis(record.seated[:, cols], order[:, q],
                                                            axis=1)
                record.decided[:, j] = decided[:, q]
                record.first_position[:, cols] = position[:, q]
        rows = np.arange(kk)[:, None]
        self.last_stage[rows, record.finish] = stage.stage
        self.last_finish[rows, record.finish] = np.concatenate(
            [np.arange(1, n + 1) for n in stage.tables])[None, :]
        if not stage.is_final:
            self.players = np.concatenate(
                [record.finish[:, record.columns(j)][:, :stage.advance]
                 for j in range(len(stage.tables))], axis=1)

    def places(self) -> np.ndarray:
        """Each entrant's place [K, entrants] (competition ranking: 1 + entrants strictly
        better: a later stage, then a better finish there); 0 where it did not play."""
        kk, e = self.last_stage.shape
        played = self.last_stage >= 0
        # smaller is better; equal keys share a place; rows apart (every key of row k is below
        # every key of row k + 1), so one sort ranks every tournament
        key = np.where(played, (_STAGES_MAX - self.last_stage) * (e + 1) + self.last_finish,
                       _UNPLAYED)
        flat = key + np.arange(kk, dtype=np.int64)[:, None] * (2 * _UNPLAYED)
        better = np.searchsorted(np.sort(flat, axis=None), flat, side="left")
        return np.where(played, better - np.arange(kk)[:, None] * e + 1, 0)


_STAGES_MAX = 1 << 16  # more than any stage index
_UNPLAYED = np.int64(1 << 40)  # above every key of an entrant who played


@dataclass(frozen=True)
class _Context:
    field: _FieldPlan
    seed: int
    indices: np.ndarray  # the tournaments' indices


class PlayedTournaments:
    """K tournaments of a field played side by side (``play_batch``): each bracket's stages
    (``StageRecord``) and the entrants' results as arrays [K, entrants]."""

    def __init__(self, ctx: _Context, main: _BracketRun, cons: _BracketRun | None) -> None:
        self.ctx, self.main, self.cons = ctx, main, cons
        self.field = ctx.field.field
        self.indices = ctx.indices
        first = main.stages[0]
        kk, e = first.seated.shape[0], self.field.entrants
        rows = np.arange(kk)[:, None]
        table_of = np.concatenate([np.full(n, j) for j, n in enumerate(first.plan.tables)])
        seat_of = np.concatenate([np.arange(n) for n in first.plan.tables])
        size_of = np.concatenate([np.full(n, n) for n in first.plan.tables])
        self.first_table = np.empty((kk, e), dtype=np.int64)
        self.first_seat = np.empty((kk, e), dtype=np.int64)
        self.first_players = np.empty((kk, e), dtype=np.int64)
        self.first_position = np.empty((kk, e), dtype=np.int64)
        self.first_table[rows, first.seated] = table_of[None, :]
        self.first_seat[rows, first.seated] = seat_of[None, :]
        self.first_players[rows, first.seated] = size_of[None, :]
        self.first_position[rows, first.seated] = first.first_position
        self.advanced_first = main.last_stage > first.plan.stage
        self.main_place = main.places()
        self.cons_place = cons.places() if cons is not None else None
        self.champion = main.stages[-1].finish[:, 0]
        self.consolation_champion = cons.stages[-1].finish[:, 0] if cons is not None else None

    @property
    def records(self) -> list[StageRecord]:
        """Every stage in play order: the main bracket's, then the consolation's."""
        return self.main.stages + (self.cons.stages if self.cons is not None else [])

    def results(self) -> list[TournamentResult]:
        """The tournaments as TournamentResults (one object per table, entrant and standing)."""
        profiles, names = self.ctx.field.profiles, self.ctx.field.stage_names
        out = []
        for k, t in enumerate(self.indices.tolist()):
            tables = []
            for r in self.records:
                for j in range(len(r.plan.tables)):
                    cols = r.columns(j)
                    seated = tuple(r.seated[k, cols].tolist())
                    games, q, m = r.slot(j)
                    tables.append(TableResult(
                        r.bracket, r.plan, j, seated, tuple(profiles[e] for e in seated),
                        int(r.seeds[k, j]), games.game(k * m + q),
                        tuple(r.finish[k, cols].tolist()), DECIDED_BY[int(r.decided[k, j])]))
            entrants = []
            for e in range(self.field.entrants):
                cons = None
                if self.cons is not None and self.cons.last_stage[k, e] >= 0:
                    s = int(self.cons.last_stage[k, e])
                    cons = Standing(s, names[s], int(self.cons.last_finish[k, e]),
                                    int(self.cons_place[k, e]))
                s = int(self.main.last_stage[k, e])
                entrants.append(EntrantResult(
                    entrant=e, profile=profiles[e],
                    main=Standing(s, names[s], int(self.main.last_finish[k, e]),
                                  int(self.main_place[k, e])),
                    first_table=int(self.first_table[k, e]),
                    first_seat=int(self.first_seat[k, e]),
                    first_position=int(self.first_position[k, e]),
                    first_table_players=int(self.first_players[k, e]),
                    advanced_first=bool(self.advanced_first[k, e]), consolation=cons))
            out.append(TournamentResult(
                field=self.field, index=t, tables=tuple(tables), entrants=tuple(entrants),
                champion=int(self.champion[k]),
                consolation_champion=(None if self.consolation_champion is None
                                      else int(self.consolation_champion[k]))))
        return out


class _Stepper:
    """K tournaments of a field stepping side by side: each step plays the next stage of the
    main bracket and of the consolation, which starts once the main bracket's first stage is
    over (its players are the first stage's losers)."""

    def __init__(self, spec: TournamentSpec, field: _FieldPlan, seed: int,
                 indices: np.ndarray) -> None:
        self.ctx = _Context(field, seed, indices)
        self.seeds = _BatchSeeds(spec, field.field, seed, indices)
        e = field.field.entrants
        self.main = _BracketRun(MAIN, field.main_plan, self.seeds, self.ctx,
                                np.tile(np.arange(e, dtype=np.int64), (len(indices), 1)))
        self.cons: _BracketRun | None = None

    def asks(self) -> list[StageRecord]:
        """The stages the next step plays (drawn), none when the tournaments are over."""
        return [b.ask() for b in (self.main, self.cons) if b is not None and b.playing]

    def take(self, records: Sequence[StageRecord], games: Sequence[list[TableGames]]) -> None:
        for record, played in zip(records, games):
            (self.main if record.bracket == MAIN else self.cons).take(record, played)
        plan = self.ctx.field.cons_plan
        if plan and self.cons is None:
            went_on = np.zeros_like(self.main.last_stage, dtype=bool)
            went_on[np.arange(len(went_on))[:, None], self.main.players] = True  # the advancers
            knocked_out = np.argsort(went_on, axis=1, kind="stable")[:, :plan[0].players]
            self.cons = _BracketRun(CONSOLATION, plan, self.seeds, self.ctx, knocked_out)

    def played(self) -> PlayedTournaments:
        return PlayedTournaments(self.ctx, self.main, self.cons)


def _play_step(play_tables: PlayTables | PlayColumns, field: _FieldPlan,
               records: Sequence[StageRecord]) -> list[list[TableGames]]:
    """The games of the stages ``records``: per stage, per table size (``StageRecord.asks``)."""
    asks = [r.asks() for r in records]
    if hasattr(play_tables, "play_columns"):
        return [[play_tables.play_columns(field.seats, field.profile_of[entrants], seeds)
                 for entrants, seeds in stage] for stage in asks]
    seats = field.entrant_seats
    tables = [(tuple([seats[e] for e in row]), seed) for stage in asks
              for entrants, seeds in stage
              for row, seed in zip(entrants.tolist(), seeds.tolist())]
    games = play_tables(tables)
    if len(games) != len(tables):
        raise ValueError("play_tables returned a number of games other than of tables")
    out, at = [], 0
    for stage in asks:
        out.append([])
        for entrants, _ in stage:
            m, n = entrants.shape
            out[-1].append(TableGames.of(games[at:at + m], n))
            at += m
    return out


def play_batch(spec: TournamentSpec, fld: Field, *, seed: int, indices: Sequence[int],
               play_tables: PlayTables | PlayColumns) -> list[PlayedTournaments]:
    """Play tournaments ``indices`` of ``fld`` side by side, step by step: each step asks
    ``play_tables`` for the games of every table the tournaments play next (a stage of the
    main bracket and one of the consolation, of all of them at once), so an engine plays many
    tables at once: a ``PlayColumns`` in one ``play_columns`` call per stage and table size, a
    ``PlayTables`` in one call per step. Returns the tournaments in order, as one part (none
    for no indices). Tournament t is a pure function of its index, whatever the batch."""
    indices = np.asarray(list(indices), dtype=np.int64)
    if len(indices) == 0:
        return []
    field = _FieldPlan.of(spec, fld)
    stepper = _Stepper(spec, field, seed, indices)
    while records := stepper.asks():
        stepper.take(records, _play_step(play_tables, field, records))
    return [stepper.played()]


def play_tournaments(spec: TournamentSpec, fld: Field, *, seed: int, indices: Sequence[int],
                     play_tables: PlayTables | PlayColumns) -> list[TournamentResult]:
    """``play_batch``'s tournaments as TournamentResults, in order. Each result is what
    ``play_tournament`` gives for its index alone."""
    return [r for part in play_batch(spec, fld, seed=seed, indices=indices,
                                     play_tables=play_tables)
            for r in part.results()]


def play_tournament(spec: TournamentSpec, fld: Field, *, seed: int, index: int,
                    play_tables: PlayTables | PlayColumns) -> TournamentResult:
    """Play tournament ``index`` of ``fld``: the main bracket, then the consolation."""
    return play_tournaments(spec, fld, seed=seed, indices=(index,), play_tables=play_tables)[0]
