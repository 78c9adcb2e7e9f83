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
random numbers make the variants' comparison sharper). ``play_tournaments`` derives the draws
and game seeds of all its tournaments at once (``_BatchSeeds``: those SeedSequences' words by
``seed_sequences``, without a SeedSequence object per key); ``draw`` and ``game_seed`` derive
one (tests compare the two). A table's lot is drawn only when two seats tie on everything before
it (``_finish``): where nothing ties, the lot changes no order.

This module is pure Python with an injectable table player (``play_tournaments(...,
play_tables)``), so the bracket logic is tested on hand-made games; ``runs.tournaments`` plugs in
the engine. Tournaments play side by side, stage by stage: the player is handed the tables of a
stage of many tournaments at once, which the engine plays in one call per table size; with
``groups`` the tournaments step in groups, one group's tables played on a thread of their own
while the next stage of another group is drawn (the same results).
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections import deque
from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

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
    without a SeedSequence per key). ``of(k)`` is the k-th tournament's share."""

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

    def of(self, k: int) -> _Seeds:
        return _Seeds(self, k)


@dataclass(frozen=True)
class _Seeds:
    """One tournament's game seeds and draws (``_BatchSeeds.of``)."""

    batch: _BatchSeeds
    k: int

    def game(self, bracket: str, stage: int, table: int) -> int:
        return int(self.batch.games[(bracket, stage, table)][self.k])

    def draw(self, bracket: str, plan: StagePlan,
             players: Sequence[int]) -> list[tuple[int, ...]]:
        state = seed_sequences.Seeded(self.batch.draws[(bracket, plan.stage)][self.k])
        return _deal(_shuffled(np.random.Generator(np.random.PCG64(state)), players), plan)


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

    def points_left(self, seat: int) -> int:
        return self.hand_points[seat] if self.hand_points else 0


TableAsk = tuple[tuple[Seat, ...], int]  # a table to play: its seats and its game's seed
# The games of many tables (any sizes), in order. The engine plays them together (runs.tournaments).
PlayTables = Callable[[Sequence[TableAsk]], Sequence[TableGame]]


def _merits(game: TableGame) -> list[tuple[int, int, int]]:
    """Each seat's (rank, -rounds won, points left in hand): what the lot is drawn to break."""
    left = game.hand_points or (0,) * len(game.rank)
    return list(zip(game.rank, [-w for w in game.rounds_won], left))


def finish_order(game: TableGame, lots: Sequence[int]) -> tuple[int, ...]:
    """Seats best first: rank, then more rounds won, then fewer points left in hand, then the
    lot."""
    merits = _merits(game)
    return tuple(sorted(range(len(merits)), key=lambda s: (*merits[s], lots[s])))


def _finish(game: TableGame, lots: Callable[[], Sequence[int]]) -> tuple[int, ...]:
    """``finish_order`` with the lot drawn (``lots()``) only if two seats tie on everything
    else: otherwise it changes no order."""
    merits = _merits(game)
    if len(set(merits)) == len(merits):
        return tuple(sorted(range(len(merits)), key=merits.__getitem__))
    drawn = lots()
    return tuple(sorted(range(len(merits)), key=lambda s: (*merits[s], drawn[s])))


def decided_by(game: TableGame, order: Sequence[int], boundary: int) -> str:
    """What separated ``order[boundary - 1]`` (the last to go on) from ``order[boundary]``."""
    a, b = order[boundary - 1], order[boundary]
    if game.rank[a] != game.rank[b]:
        return "rank"
    if game.rounds_won[a] != game.rounds_won[b]:
        return "rounds_won"
    if game.points_left(a) != game.points_left(b):
        return "hand_points"
    return "lot"


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

def play_tournaments(spec: TournamentSpec, fld: Field, *, seed: int, indices: Sequence[int],
                     play_tables: PlayTables, groups: int = 1) -> list[TournamentResult]:
    """Play tournaments ``indices`` of ``fld`` side by side, stage by stage: each step asks
    ``play_tables`` for the games of every table the tournaments play next (one call for a
    stage of all of them), so an engine plays many tables at once. Each result is what
    ``play_tournament`` gives for its index alone.

    With ``groups`` > 1 the tournaments are split into that many groups of consecutive indices,
    each stepping on its own: ``play_tables`` plays one group's stage on a thread of its own
    (one call at a time, in turn) while this thread turns the group before's games into its next
    stage, so an engine that releases the GIL keeps playing while the brackets' Python runs.
    The results do not depend on it (nor on the order in which the groups' calls are made)."""
    indices = list(indices)
    seeds = _BatchSeeds(spec, fld, seed, indices)
    field = _FieldPlan.of(spec, fld)
    runs = [_tournament(field, seed, t, seeds.of(k)) for k, t in enumerate(indices)]
    results: list[TournamentResult | None] = [None] * len(runs)
    groups = max(1, min(groups, len(runs)))
    bounds = [len(runs) * g // groups for g in range(groups + 1)]
    # each group: {tournament k: the tables it asks for next}; every bracket plays a table
    steps = [{k: next(runs[k]) for k in range(lo, hi)} for lo, hi in zip(bounds, bounds[1:])]

    def step(asks: dict[int, list[TableAsk]], games: Sequence[TableGame]
             ) -> dict[int, list[TableAsk]]:
        if len(games) != sum(len(ask) for ask in asks.values()):
            raise ValueError("play_tables returned a number of games other than of tables")
        at, going_on = 0, {}
        for k, ask in asks.items():
            try:
                going_on[k] = runs[k].send(games[at:at + len(ask)])
            except StopIteration as done:
                results[k] = done.value
            at += len(ask)
        return going_on

    def tables(asks: dict[int, list[TableAsk]]) -> list[TableAsk]:
        return [table for ask in asks.values() for table in ask]

    if groups == 1:
        asks = steps[0]
        while asks:
            asks = step(asks, play_tables(tables(asks)))
        return results  # type: ignore[return-value]
    with ThreadPoolExecutor(1, thread_name_prefix="unostats-tables") as engine:
        pending = deque((asks, engine.submit(play_tables, tables(asks))) for asks in steps)
        while pending:
            asks, games = pending.popleft()
            asks = step(asks, games.result())  # the engine plays the next group meanwhile
            if asks:
                pending.append((asks, engine.submit(play_tables, tables(asks))))
    return results  # type: ignore[return-value]


def play_tournament(spec: TournamentSpec, fld: Field, *, seed: int, index: int,
                    play_tables: PlayTables) -> TournamentResult:
    """Play tournament ``index`` of ``fld``: the main bracket, then the consolation."""
    return play_tournaments(spec, fld, seed=seed, indices=(index,), play_tables=play_tables)[0]


# A tournament as a generator: it yields the tables of its next stage ((seats, game seed) each)
# and is sent their games; it returns its result.
_Play = Generator[list[TableAsk], Sequence[TableGame], Any]


@dataclass(frozen=True)
class _FieldPlan:
    """What every tournament of a field shares: its entrants' profiles and seats, its brackets'
    plans (derived once per ``play_tournaments``)."""

    field: Field
    profiles: tuple[str, ...]
    seats: tuple[Seat, ...]
    main_plan: tuple[StagePlan, ...]
    cons_plan: tuple[StagePlan, ...]

    @classmethod
    def of(cls, spec: TournamentSpec, fld: Field) -> _FieldPlan:
        profiles = fld.entrant_profiles()
        return cls(fld, profiles, tuple(spec.seat(p) for p in profiles), *spec.brackets(fld))


def _tournament(plan: _FieldPlan, seed: int, index: int, seeds: _Seeds) -> _Play:
    fld, profiles, seats = plan.field, plan.profiles, plan.seats
    main_plan, cons_plan = plan.main_plan, plan.cons_plan
    main_tables, main_standing = yield from _bracket(
        fld, seed, index, seeds, MAIN, main_plan, range(fld.entrants), profiles, seats)
    firsts = main_tables[:len(main_plan[0].tables)]  # the first stage's, played first
    seat_of = {e: (seat, t) for t in firsts
               for seat, e in enumerate(t.entrants)}  # each entrant's first-stage table
    went_on = {e for t in firsts for e in t.advancers}
    cons_tables: list[TableResult] = []
    cons_standing: dict[int, Standing] = {}
    if cons_plan:
        knocked_out = [e for e in range(fld.entrants) if e not in went_on]
        cons_tables, cons_standing = yield from _bracket(
            fld, seed, index, seeds, CONSOLATION, cons_plan, knocked_out, profiles, seats)

    entrants = []
    for e in range(fld.entrants):
        seat, t = seat_of[e]
        entrants.append(EntrantResult(
            entrant=e, profile=profiles[e], main=main_standing[e], first_table=t.table,
            first_seat=seat, first_position=t.game.first_position[seat],
            first_table_players=len(t.entrants), advanced_first=e in went_on,
            consolation=cons_standing.get(e)))
    champion = main_tables[-1].finish[0]
    return TournamentResult(
        field=fld, index=index, tables=tuple(main_tables + cons_tables),
        entrants=tuple(entrants), champion=champion,
        consolation_champion=cons_tables[-1].finish[0] if cons_tables else None)


def _bracket(fld: Field, seed: int, t: int, seeds: _Seeds, bracket: str,
             plan: Sequence[StagePlan], players: Sequence[int], profiles: Sequence[str],
             seats: Sequence[Seat]
             ) -> Generator[list[TableAsk], Sequence[TableGame],
                            tuple[list[TableResult], dict[int, Standing]]]:
    tables: list[TableResult] = []
    last: dict[int, tuple[StagePlan, int]] = {}  # entrant -> (last stage, finish there)
    current = list(players)
    for stage in plan:
        going_on: list[int] = []
        seating = seeds.draw(bracket, stage, current)
        asks = [(tuple([seats[e] for e in seated]), seeds.game(bracket, stage.stage, table_no))
                for table_no, seated in enumerate(seating)]
        games = yield asks
        boundary = 1 if stage.is_final else stage.advance
        for table_no, (seated, (_, gseed), game) in enumerate(zip(seating, asks, games)):
            order = _finish(game, functools.partial(lot, seed, fld, t, bracket, stage.stage,
                                                    table_no, len(seated)))
            finish = tuple([seated[s] for s in order])
            tables.append(TableResult(
                bracket, stage, table_no, seated, tuple([profiles[e] for e in seated]), gseed,
                game, finish, decided_by(game, order, boundary)))
            for pos, e in enumerate(finish, 1):
                last[e] = (stage, pos)
            if not stage.is_final:  # TableResult.advancers
                going_on.extend(finish[:stage.advance])
        current = going_on
    return tables, _standings(last)


def _standings(last: Mapping[int, tuple[StagePlan, int]]) -> dict[int, Standing]:
    """Each entrant's Standing; entrants of equal (stage, finish) share one (it is frozen)."""
    keys = {e: (-stage.stage, finish) for e, (stage, finish) in last.items()}
    place: dict[tuple[int, int], int] = {}
    for better, key in enumerate(sorted(keys.values())):  # better: entrants strictly better
        place.setdefault(key, better + 1)
    made: dict[tuple[int, int], Standing] = {}
    out = {}
    for e, (stage, finish) in last.items():
        key = keys[e]
        standing = made.get(key)
        if standing is None:
            standing = made[key] = Standing(stage.stage, stage.name, finish, place[key])
        out[e] = standing
    return out
