"""The design kind of run: an optimiser (optuna) proposes candidate settings of the searched
rules one after the other, each candidate is a cell of the run (named by its settings, stored
like any cell, its settings as the cell's sweep point), played with growing game counts while
it is still in contention, and its goals' intervals are told back to the optimiser.

- The proposals: every point of the space once (in an order shuffled by the seed) when the
  space has no more points than the budget's candidates; else TPE for one objective, NSGA-II
  for several, both told the constraints. All are seeded from the run's seed.
- The looks (``looks``): the first after about a sixteenth of the cap (at least
  ``FIRST_LOOK_MIN`` games), each next ``LOOK_GROWTH`` times as many, the cap last. After a
  look a candidate stops when a constraint's interval lies wholly outside its bounds, or when a
  candidate before it that meets every constraint beats it on every objective (interval wholly
  better); else it plays on to the cap.
- Reproducible and resumable: a look sees games 0 .. n-1 of its cell as stored, a game is a
  pure function of (rules, seats, seed, game index), and the optimiser is replayed from the
  start of the run, told the same values, so it proposes the same candidates; a resumed run
  takes its stored candidates' looks again (no game replayed) and goes on where it stopped.
- Where the games play: this machine's threads (``LocalGames``), or an executor's (``play``'s
  ``games``: a Ray cluster plays each look's games as tasks); the games, and so the looks and
  the proposals, are the same either way.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .. import store
from ..base.engine_cache import prepare_engine
from ..base.precision import look_schedule
from ..base.progress import Progress
from ..base.session import RunOutcome, Tally, cell_label, playing
from ..base.signals import StopRequest
from ..rules import RuleError, RuleSet
from ..scenario import Cell, Scenario, Variant, point_text
from ..seats import Seat
from ..stats import Estimate
from .spec import goals
from .spec.plan import DesignSpec, candidate_rules, out_of_contention

if TYPE_CHECKING:  # the engine is imported when a design plays
    from ..engine.simulate import Batch

FIRST_LOOK_MIN = 100
LOOK_GROWTH = 4
BATCH_GAMES = 1_000  # games per stored batch: a stop is honoured within one
REPEATS_MAX = 10  # proposals per candidate at most (an optimiser that repeats itself stops)


def looks(cap: int) -> tuple[int, ...]:
    """The game counts at which a candidate of at most ``cap`` games is looked at: the
    precision targets' schedule with a first look scaled to the cap (a sixteenth, at least
    ``FIRST_LOOK_MIN``) and ``LOOK_GROWTH``: cheap first looks over many candidates."""
    return look_schedule(cap, max(FIRST_LOOK_MIN, math.ceil(cap / 16 / 100) * 100),
                         LOOK_GROWTH)


def games_requested(scenario: Scenario) -> int:
    """The most games the design may play: every candidate to the cap."""
    return scenario.design.candidates * scenario.design.games


def plan(scenario: Scenario) -> str:
    """What a design plays, for its first log line and ``validate``."""
    spec = scenario.design
    keys = ", ".join(k.short for k in spec.search)
    return (f"design at {spec.players} players: up to {spec.candidates} candidates of "
            f"{spec.space_size():,} settings ({keys}) with {sampler_name(spec)}, up to "
            f"{spec.games:,} games each (looks at {', '.join(f'{g:,}' for g in looks(spec.games))}"
            f"); goals: {'; '.join(a.text() for a in spec.aims)}")


def sampler_name(spec: DesignSpec) -> str:
    if spec.space_size() <= spec.candidates:
        return "every point once"
    return "TPE" if len(spec.objectives) == 1 else "NSGA-II"


def replay_args(con, run_id: str, scenario: Scenario, cell: Cell,
                game: int) -> tuple[tuple[Seat, ...], int, int]:
    """How stored game ``game`` of a candidate is recomputed: (seats, seed, game index)."""
    return cell.seats, scenario.seed, game


def stored_cells(con, run_id: str, scenario: Scenario) -> list[Cell]:
    """The candidates a design run stored, as cells (for replay), in the order proposed."""
    rows = con.execute("SELECT variant, players, rules_json, sweep FROM variants WHERE "
                       "run_id = ? ORDER BY rowid", [run_id]).fetchall()
    return [Cell(Variant(name, "", RuleSet.from_mapping(json.loads(rules))), players,
                 scenario.seats_for(players), json.loads(sweep))
            for name, players, rules, sweep in rows]


def tally(outcome: RunOutcome) -> Tally:
    return Tally("games stored", f"{outcome.games_played:,} games", outcome.games_played,
                 "games", ",.0f")


# --- Playing a design --------------------------------------------------------------------------

class Games(Protocol):
    """Where a design's games play (``play``'s ``games``): ``LocalGames``, or an executor's
    (``executors.ray``: each look's games as tasks on a cluster)."""

    def ready(self, progress: Progress, stop: StopRequest, how_it_plays: bool) -> None: ...

    def batches(self, cell: Cell, seed: int, first: int, end: int, *, threads: int | None,
                batch: int, how_it_plays: bool, totals: bool) -> Iterator[Batch]: ...

    def done(self, progress: Progress) -> None: ...


class LocalGames:
    """A design's games on this machine's threads."""

    def ready(self, progress: Progress, stop: StopRequest, how_it_plays: bool) -> None:
        """Make the engine ready before the clock starts (the loops that count how rounds
        play when ``how_it_plays``: its goals read a round counter)."""
        # the candidates' rules are not known ahead
        prepare_engine(progress, None, how_it_plays=how_it_plays)

    def batches(self, cell: Cell, seed: int, first: int, end: int, *, threads: int | None,
                batch: int, how_it_plays: bool, totals: bool) -> Iterator[Batch]:
        """Games ``first`` .. ``end - 1`` of a candidate, in order, as batches of at most
        ``batch`` games (closed early at a stop), counting how rounds play when
        ``how_it_plays``, with the games' totals instead of their rounds when ``totals``."""
        from ..engine.simulate import simulate_arrow

        return simulate_arrow(rules=cell.variant.rules, players=cell.players, seats=cell.seats,
                              games=end - first, seed=seed, first_game=first, threads=threads,
                              batch_games=batch, how_it_plays=how_it_plays, totals=totals)

    def done(self, progress: Progress) -> None:
        """The session's end, before its last line."""


def play(con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
         progress: Progress, stop: StopRequest | None, games: Games | None = None
         ) -> RunOutcome:
    """Propose, play and judge candidates until the budget's candidates are played (or until
    ``stop``); candidates stored by an earlier session are judged again from their games.
    ``games``: where the games play (default: this machine's threads)."""
    stop = stop or StopRequest()
    games = games or LocalGames()
    with playing(con, outcome, progress=progress, stop=stop, tally=tally) as session:
        try:
            games.ready(progress, stop, outcome.scenario.how_it_plays)
            session.start_clock()
            design = _Design(con, outcome, games, threads=threads,
                             batch=batch_size or BATCH_GAMES, progress=progress, stop=stop)
            if design.run():
                session.status = "complete"
        finally:
            games.done(progress)
    return outcome


class _Design:
    """One session of a design: the optimiser's proposals judged one after the other."""

    def __init__(self, con, outcome: RunOutcome, games: Games, *, threads: int | None,
                 batch: int, progress: Progress, stop: StopRequest) -> None:
        self.con, self.outcome, self.games = con, outcome, games
        self.threads, self.batch = threads, batch
        self.progress, self.stop = progress, stop
        self.scenario = outcome.scenario
        # the games' totals, not their rounds' rows, for a run that keeps less than rows
        self.totals = store.run_keep(con, outcome.run_id) != "rows"
        self.spec: DesignSpec = self.scenario.design
        self.base: Variant = self.scenario.variants[0]
        self.found: dict[str, dict[str, Estimate]] = {}  # candidate -> its goals' intervals

    def run(self) -> bool:
        """True when every candidate of the budget was judged, False at a stop."""
        spec = self.spec
        wanted = min(spec.candidates, spec.space_size())
        proposals = _proposals(spec, self.scenario.seed)
        tried = 0
        for asked, (point, tell) in enumerate(proposals):
            if self.stop.requested:
                proposals.close()
                return False
            if tried >= wanted or asked >= REPEATS_MAX * spec.candidates:
                proposals.close()
                break
            name = point_text(point, spec.shorts())
            if name in self.found:  # proposed again: told again, nothing played
                tell(self.found[name])
                continue
            tried += 1
            try:
                rules = candidate_rules(self.base.rules, point, [k.key for k in spec.search])
            except RuleError as e:
                self.progress.log(f"candidate {tried}: {name}: not playable ({e}); skipped")
                tell(None)
                continue
            estimates = self.judge(tried, name, point, rules)
            if estimates is None:
                proposals.close()
                return False
            self.found[name] = estimates
            tell(estimates)
        if tried < wanted:
            self.progress.log(f"the optimiser proposed {tried} distinct candidates in "
                              f"{REPEATS_MAX * spec.candidates} proposals; the design ends "
                              "there")
        return True

    def judge(self, index: int, name: str, point: Mapping[str, Any], rules
              ) -> dict[str, Estimate] | None:
        """Play a candidate look by look until it is out of contention or at the cap; its
        intervals at its last look (None: stopped)."""
        spec, scenario = self.spec, self.scenario
        players = spec.players
        cell = Cell(Variant(name, "", rules), players, scenario.seats_for(players), dict(point))
        done = store.completed_games(self.con, self.outcome.run_id, name, players)
        if not done and not _recorded(self.con, self.outcome.run_id, name):
            store.add_cells(self.con, self.outcome.run_id, [
                {"variant": name, "players": players, "rules_json": rules.canonical_json(),
                 "rules_hash": rules.hash(), "description": None, "sweep": dict(point)}])
        label = f"candidate {index}: {cell_label(cell)}"
        self.progress.cell_started(name, label, done, spec.games)
        for n in looks(spec.games):
            if done < n:
                done = self._play(cell, label, done, n)
                if done < n:
                    return None
            estimates = self._estimates(name, n)
            out = out_of_contention(spec, estimates, self.found)
            why = None if out is None else out.text()
            if why or n == spec.games:
                shown = "; ".join(f"{a.goal} {estimates[a.goal].format()}" for a in spec.aims)
                met = all(a.met(estimates[a.goal]) for a in spec.constraints)
                self.progress.log(f"{label}: {n:,} games: {shown}; {why or 'played to the cap, '}"
                                  + ("" if why else "meets every constraint" if met
                                     else "a constraint's interval not inside its bounds"))
                return estimates
        raise AssertionError("the last look is the cap")

    def _estimates(self, name: str, games: int) -> dict[str, Estimate]:
        sums = goals.cell_sums(self.con, store.sums.cell_sums, self.outcome.run_id, name,
                               self.spec.players, games).get(name, goals.zero_sums())
        return goals.estimates(sums, self.spec.players, self.scenario.seconds_per_turn)

    def _play(self, cell: Cell, label: str, lo: int, end: int) -> int:
        """Play and store games lo .. end-1 of a candidate in batches; the games stored (fewer
        than ``end`` at a stop)."""
        batches = self.games.batches(cell, self.scenario.seed, lo, end, threads=self.threads,
                                     batch=self.batch, how_it_plays=self.scenario.how_it_plays,
                                     totals=self.totals)
        try:
            started = time.perf_counter()
            for batch in batches:
                n = len(batch.games)
                rate = n / max(time.perf_counter() - started, 1e-6)
                store.write_batch(self.con, self.outcome.run_id, cell.variant.name,
                                  cell.players, batch)
                self.outcome.games_played += n
                self.outcome.games_completed += n
                self.outcome.rounds_played += batch.round_count()
                self.progress.batch_stored(cell.variant.name, label, lo, lo + n - 1, lo + n,
                                           self.spec.games, rate)
                lo += n
                started = time.perf_counter()
                if self.stop.requested:
                    break
        finally:
            batches.close()
        return lo


def _recorded(con, run_id: str, variant: str) -> bool:
    return bool(con.execute("SELECT count(*) FROM variants WHERE run_id = ? AND variant = ?",
                            [run_id, variant]).fetchall()[0][0])


def _proposals(spec: DesignSpec, seed: int) -> Iterator[tuple[dict[str, Any], Any]]:
    """The optimiser's proposals, each (settings by key as written, tell): ``tell`` takes the
    candidate's intervals (None: not playable) before the next proposal is made."""
    keys = [k.key for k in spec.search]
    if spec.space_size() <= spec.candidates:  # every point once, in an order of the seed's
        points = list(itertools.product(*(k.values for k in spec.search)))
        random.Random(seed).shuffle(points)
        for values in points:
            yield dict(zip(keys, values)), lambda estimates: None
        return
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed = seed % 2**32  # numpy's generators take 32 bits
    distributions = {k.key: optuna.distributions.CategoricalDistribution(list(k.values))
                     if k.step is None else optuna.distributions.IntDistribution(
                         k.values[0], k.values[-1], step=k.step) for k in spec.search}

    sampler = (optuna.samplers.TPESampler(seed=seed) if len(spec.objectives) == 1
               else optuna.samplers.NSGAIISampler(seed=seed))
    study = optuna.create_study(sampler=sampler, directions=[
        "minimize" if a.how == "minimize" else "maximize" for a in spec.objectives])
    while True:
        trial = study.ask(distributions)
        told = []

        def tell(estimates: Mapping[str, Estimate] | None, trial=trial) -> None:
            told.append(True)
            values = None if estimates is None else [estimates[a.goal].value
                                                     for a in spec.objectives]
            if values is None or any(math.isnan(v) for v in values):
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                return
            for aim in spec.constraints:  # the samplers prefer candidates with none > 0
                trial.set_constraint(aim.goal, aim.violation(estimates[aim.goal]))
            study.tell(trial, values)

        yield {key: trial.params[key] for key in keys}, tell
        if not told:
            return
