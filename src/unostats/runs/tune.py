"""``unostats tune``: the weights of one seat's policy (a policy written as data,
``seats.WeightedPolicy``) searched against the other seats of a scenario's first cell, then
measured on fresh games beside every bundled policy in the same seat.

The search is CMA-ES (the ``cma`` package) over the features the cell's deck can tell apart
(``seats.features_in_play``), starting from the seat's own weights when it plays a policy written
as data, else from all weights 0 (which plays as ``random``). Every candidate of a generation
plays the same games (common seeds: game i of one seed per generation, fresh each generation),
so the ranking that moves the search is not blurred by the deals. The budget is games of the
search: generations x population x games per candidate (``Split``). The policy kept is the
search's final mean, scaled and rounded for reading (``readable``); the held-out evaluation then
plays it and each bundled policy in seat S on the same fresh games (a seed of their own, games
0..n-1, as ``unostats simulate --seed`` would play them), against the same opponents.

Games are played through ``engine.simulate.simulate_tables`` (one call plays many candidates'
games on all threads), in parts of ``PART_GAMES``.
"""

from __future__ import annotations

import math
import os
import secrets
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from .. import rules as rule_table
from .. import store
from ..kinds import kind_of
from ..rules import RuleSet
from ..scenario import Scenario
from ..seats import Seat, WeightedPolicy, features_in_play
from ..stats import Estimate, mean_interval, wilson_interval
from ..base.engine_cache import prepare_engine
from ..base.progress import Progress
from ..base.session import RunError
from ..base.signals import StopRequest

OBJECTIVES = ("games", "rounds")  # what a win is: a game won, or a round won
DEFAULT_BUDGET = 100_000
DEFAULT_HOLDOUT = 5_000  # held-out games per policy
DEFAULT_NAME = "tuned"
# Games per candidate when not given: budget / (population x TARGET_GENERATIONS), within these.
TARGET_GENERATIONS = 40
MIN_AUTO_GAMES = 50
MAX_AUTO_GAMES = 2_000
PART_GAMES = 4_096  # games per engine call (memory stays flat; progress moves)
SIGMA0 = 0.5  # the search's first step, in units of SCALES
# The spread of a weight's search step per feature: a feature with a wide range of values
# (points 0..50, counts of held cards) gets a smaller step, so each starts with a comparable pull.
SCALES = {"points": 0.1, "colour_held": 0.5, "rank_held": 0.5, "links": 0.5}
READABLE_TOP = 10.0  # the written weights: the largest, relative to its SCALES, is 10
READABLE_DIGITS = 3  # significant digits of a written weight

# Where each seed of a tuning comes from: (root seed, PURPOSE, ...) through numpy's SeedSequence.
_SEARCH, _HOLDOUT, _OPTIMISER = 0, 1, 2


@dataclass(frozen=True)
class Split:
    """How the games are spent: ``generations`` x ``population`` x ``games`` per candidate for
    the search, then ``holdout`` games for each of ``policies`` policies."""

    generations: int
    population: int
    games: int
    holdout: int
    policies: int

    @property
    def search_games(self) -> int:
        return self.generations * self.population * self.games

    @property
    def holdout_games(self) -> int:
        return self.holdout * self.policies

    def text(self, budget: int) -> str:
        return (f"search: {_count(self.generations, 'generation')} x {self.population} "
                f"candidates x {self.games:,} games = {self.search_games:,} games "
                f"(budget {budget:,}); "
                f"held-out: {self.policies} policies x {self.holdout:,} games = "
                f"{self.holdout_games:,} games")


@dataclass(frozen=True)
class Plan:
    """What a tuning plays: the cell (rules, players, seats), the seat searched, the objective,
    the features searched, the starting policy, the split of the games and the root seed."""

    scenario: str  # the scenario's name
    variant: str
    rules: RuleSet = field(repr=False)
    players: int
    seats: tuple[Seat, ...]
    seat: int
    objective: str
    features: tuple[str, ...]
    start: WeightedPolicy
    name: str  # the tuned policy's name
    budget: int
    split: Split
    seed: int
    seed_chosen: bool  # no seed given: drawn at random

    @property
    def bundled(self) -> tuple[str, ...]:
        return rule_table.POLICIES

    def policy(self, x: np.ndarray) -> WeightedPolicy:
        """The policy of search point ``x`` (the weights of ``features``)."""
        return WeightedPolicy.of(self.name, dict(zip(self.features, map(float, x))),
                                 colour=self.start.colour, ties=self.start.ties)

    def seated(self, policy: str | WeightedPolicy) -> tuple[Seat, ...]:
        """The cell's seats with ``policy`` in seat S (keeping its behaviour)."""
        seats = list(self.seats)
        seats[self.seat] = Seat.playing(policy, self.seats[self.seat].behaviour)
        return tuple(seats)

    @property
    def holdout_seed(self) -> int:
        return derived_seed(self.seed, _HOLDOUT)

    def generation_seed(self, g: int) -> int:
        return derived_seed(self.seed, _SEARCH, g)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' * (n != 1)}"


def derived_seed(root: int, *path: int) -> int:
    """A seed from 0 to 2**63 - 1 (what ``unostats simulate --seed`` takes) for ``path``."""
    state = np.random.SeedSequence([root, *path]).generate_state(1, np.uint64)[0]
    return int(state) >> 1


def plan(scenario: Scenario, *, seat: int, budget: int, objective: str = "games",
         seed: int | None = None, population: int | None = None, games: int | None = None,
         holdout: int = DEFAULT_HOLDOUT, name: str = DEFAULT_NAME) -> Plan:
    """The tuning of ``seat`` in the first cell of ``scenario``; raises RunError (exit code 2)
    for what cannot be tuned: a scenario whose kind has no seat to tune (a tournament, a
    league), a seat the cell does not have, a budget too small for one generation, a name the
    results could not tell apart."""
    where = scenario.name
    untunable = kind_of(scenario).untunable
    if untunable is not None:
        raise RunError(f"{where} is {untunable}, so there is no seat to tune; give a scenario "
                       "of plain games", 2)
    if objective not in OBJECTIVES:
        raise RunError(f"--objective {objective!r}: expected one of {', '.join(OBJECTIVES)}", 2)
    cell = next(scenario.cells())
    n = cell.players
    if not 0 <= seat < n:
        raise RunError(f"--seat {seat}: {where} plays {cell.variant.name!r} at {n} players "
                       f"first, so its seats are 0 to {n - 1} (tune plays the file's first "
                       "variant at its first player count; --set players=N picks another)", 2)
    own = cell.seats[seat]
    start = own.weighted if own.weighted is not None else WeightedPolicy.of(f"{name} start")
    if name in rule_table.POLICIES:
        raise RunError(f"--name {name!r} is a bundled policy's name; the tuned policy needs a "
                       "name of its own", 2)
    taken = {s.policy for i, s in enumerate(cell.seats) if i != seat}
    if own.weighted is not None:
        taken.add(own.policy)
    if name in taken:
        raise RunError(f"--name {name!r}: a seat of {where} already plays a policy of that name; "
                       "give the tuned policy another (--name)", 2)
    features = features_in_play(cell.variant.rules.deck_counts())
    pop = population or _default_population(len(features))
    per = games or _default_games(budget, pop)
    generations = budget // (pop * per)
    if generations < 1:
        raise RunError(f"--budget {budget:,} is too small to run one generation of the search: "
                       f"one takes {pop} candidates x {per:,} games = {pop * per:,} games; give "
                       f"--budget {pop * per:,} or more (or fewer --population / "
                       "--games-per-candidate)", 2)
    policies = 1 + (own.weighted is not None) + len(rule_table.POLICIES)
    chosen = seed is None and scenario.seed is None
    root = secrets.randbelow(2**63) if chosen else (seed if seed is not None else scenario.seed)
    return Plan(scenario=scenario.name, variant=cell.variant.name, rules=cell.variant.rules,
                players=n, seats=tuple(cell.seats), seat=seat, objective=objective,
                features=features, start=start, name=name, budget=budget,
                split=Split(generations, pop, per, holdout, policies), seed=root,
                seed_chosen=chosen)


def _default_population(dimensions: int) -> int:
    """CMA-ES's own default population, 4 + 3 ln(n)."""
    return 4 + int(3 * math.log(dimensions))


def _default_games(budget: int, population: int) -> int:
    return max(MIN_AUTO_GAMES, min(MAX_AUTO_GAMES,
                                   budget // (population * TARGET_GENERATIONS)))


# --- Playing -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scores:
    """Per policy and game: seat S's wins (a game won: 0/1; rounds won) and what it could win
    (1 game; the game's rounds), over the same games for every policy."""

    wins: np.ndarray  # [policies, games]
    units: np.ndarray  # [policies, games]

    def rates(self) -> np.ndarray:
        return self.wins.sum(axis=1) / self.units.sum(axis=1)


def play(plan: Plan, policies: Sequence[str | WeightedPolicy], *, seed: int, games: int,
         threads: int | None = None,
         played: Callable[[int], None] | None = None) -> Scores:
    """Every policy in seat S plays games 0..games-1 of ``seed`` (common seeds: the same deals
    for each), against the cell's other seats. ``played(k)`` after each part of k games."""
    from ..engine.simulate import simulate_tables  # Numba, once prepare_engine checked it

    tables = [plan.seated(p) for p in policies]
    entries = [(p, g) for p in range(len(policies)) for g in range(games)]
    wins = np.zeros(len(entries))
    units = np.zeros(len(entries))
    for lo in range(0, len(entries), PART_GAMES):
        part = entries[lo:lo + PART_GAMES]
        batch = simulate_tables(rules=plan.rules, players=plan.players,
                                tables=[tables[p] for p, _ in part], seeds=[seed] * len(part),
                                streams=[g for _, g in part], threads=threads)
        if plan.objective == "games":
            rows = batch.games.select("game", won=(pl.col("winner_seat") == plan.seat)
                                      .fill_null(False))
            units[lo:lo + len(part)] = 1
        else:
            rows = batch.rounds.select("game", won=(pl.col("winner_seat") == plan.seat)
                                       .fill_null(False))
            units[lo:lo + len(part)] = np.bincount(rows["game"].to_numpy(),
                                                   minlength=len(part))
        wins[lo:lo + len(part)] = np.bincount(rows["game"].to_numpy(),
                                              weights=rows["won"].to_numpy().astype(float),
                                              minlength=len(part))
        if played is not None:
            played(len(part))
    shape = (len(policies), games)
    return Scores(wins.reshape(shape), units.reshape(shape))


# --- The search --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Generation:
    index: int  # from 1
    best: float  # the best candidate's win rate on the generation's games
    mean: float  # the candidates' mean win rate
    sigma: float  # the search's step size after it


@dataclass(frozen=True)
class Standing:
    """One policy in seat S on the held-out games: its win rate (Wilson 95%) and its paired
    difference from the tuned policy (game by game, delta method for rounds)."""

    policy: str
    kind: str  # "tuned", "start" (seat S's own policy written as data) or "bundled"
    games: int
    units: int  # games, or rounds played
    wins: int
    rate: Estimate
    minus_tuned: Estimate


@dataclass(frozen=True)
class Tuned:
    plan: Plan
    policy: WeightedPolicy
    generations: tuple[Generation, ...]
    standings: tuple[Standing, ...]
    search_seconds: float
    holdout_seconds: float
    stopped: bool  # the search was stopped before its last generation

    @property
    def seat(self) -> Seat:
        """The tuned seat (its behaviour as in the file)."""
        return self.plan.seated(self.policy)[self.plan.seat]

    @property
    def standing(self) -> Standing:
        return next(s for s in self.standings if s.kind == "tuned")


def tune(plan: Plan, *, threads: int | None = None, progress: Progress | None = None,
         stop: StopRequest | None = None) -> Tuned:
    """Run the search, then the held-out evaluation. A stop request ends the search after the
    generation being played; the policy reached so far is still evaluated."""
    progress = progress or Progress()
    split = plan.split
    prepare_engine(progress, [plan.rules])
    optimiser = _optimiser(plan)
    progress.cell_started("search", f"search, {split.generations} generations",
                          0, split.search_games)
    clock = _Clock(progress, "search", "search", split.search_games)
    history = []
    for g in range(split.generations):
        xs = optimiser.ask()
        scores = play(plan, [plan.policy(x) for x in xs], seed=plan.generation_seed(g),
                      games=split.games, threads=threads, played=clock.played)
        rates = scores.rates()
        optimiser.tell(xs, list(-rates))  # cma minimises
        history.append(Generation(g + 1, float(rates.max()), float(rates.mean()),
                                  float(optimiser.sigma)))
        progress.log(f"generation {g + 1}/{split.generations}: best {rates.max():.3f}, mean "
                     f"{rates.mean():.3f} {_objective_unit(plan)} win rate over "
                     f"{split.games:,} games each; step {optimiser.sigma:.3g}; "
                     f"{clock.eta_text()}")
        if stop is not None and stop.requested and g + 1 < split.generations:
            progress.warn(f"search stopped after generation {g + 1} of {split.generations}; "
                          "the policy reached so far is evaluated and written")
            break
    search_seconds = clock.seconds()
    tuned = readable(plan.policy(optimiser.mean), plan.features)
    policies: list[tuple[str | WeightedPolicy, str]] = [(tuned, "tuned")]
    if plan.seats[plan.seat].weighted is not None:
        policies.append((plan.start, "start"))
    policies += [(p, "bundled") for p in plan.bundled]
    total = split.holdout * len(policies)
    progress.cell_started("holdout", "held-out games", 0, total)
    clock = _Clock(progress, "holdout", "held-out games", total)
    scores = play(plan, [p for p, _ in policies], seed=plan.holdout_seed, games=split.holdout,
                  threads=threads, played=clock.played)
    standings = _standings(policies, scores)
    progress.close()
    return Tuned(plan, tuned, tuple(history), standings, search_seconds, clock.seconds(),
                 stopped=len(history) < split.generations)


def _objective_unit(plan: Plan) -> str:
    return "game" if plan.objective == "games" else "round"


def _optimiser(plan: Plan):
    """CMA-ES from the starting weights, every draw from its own generator (the global numpy
    state is left alone), writing no files and running every generation of the split."""
    with warnings.catch_warnings():  # cma warns that matplotlib (plots) is missing
        warnings.simplefilter("ignore")
        import cma
    rng = np.random.default_rng(derived_seed(plan.seed, _OPTIMISER))
    scales = np.array([SCALES.get(f, 1.0) for f in plan.features])
    x0 = np.array([plan.start.weight(f) for f in plan.features])
    top = np.abs(x0 / scales).max()
    if top > 0:  # a policy is the same at any positive scale: start at a scale of 1
        x0 = x0 / top
    never = 10**9
    options = {
        "popsize": plan.split.population, "CMA_stds": list(scales), "seed": math.nan,
        "randn": lambda *shape: rng.standard_normal(shape), "verbose": -9, "verb_log": 0,
        "verb_disp": 0, "signals_filename": "", "maxiter": never, "tolfun": 0, "tolx": 0,
        "tolfunhist": 0, "tolflatfitness": never, "tolstagnation": never,
        "tolconditioncov": False,
    }
    return cma.CMAEvolutionStrategy(x0, SIGMA0, options)


def readable(policy: WeightedPolicy, features: Sequence[str]) -> WeightedPolicy:
    """The same policy at a scale that reads well: weights scaled so that the largest, relative
    to its feature's search step (SCALES), is READABLE_TOP, each rounded to READABLE_DIGITS
    significant digits. (Scaling by a positive number changes no choice; rounding may change a
    few: the held-out games play the written weights.)"""
    x = np.array([policy.weight(f) for f in features])
    scales = np.array([SCALES.get(f, 1.0) for f in features])
    top = np.abs(x / scales).max()
    if top == 0:
        return policy
    x = x * (READABLE_TOP / top)
    rounded = {f: float(f"{v:.{READABLE_DIGITS}g}") for f, v in zip(features, x)}
    return replace(policy, weights=WeightedPolicy.of(policy.name, rounded).weights)


def _standings(policies: Sequence[tuple[str | WeightedPolicy, str]],
               scores: Scores) -> tuple[Standing, ...]:
    """Each policy's held-out win rate and its paired difference from the tuned one (row 0)."""
    out = []
    rates = scores.rates()
    for i, (policy, kind) in enumerate(policies):
        wins, units = scores.wins[i], scores.units[i]
        rate = wilson_interval(int(wins.sum()), int(units.sum()))
        out.append(Standing(
            policy=policy if isinstance(policy, str) else policy.name, kind=kind,
            games=len(wins), units=int(units.sum()), wins=int(wins.sum()),
            rate=replace(rate, method="Wilson" if len(wins) == units.sum()
                         else "Wilson over rounds"),
            minus_tuned=_paired_difference(scores, i, 0, rates)))
    return tuple(out)


def _paired_difference(scores: Scores, a: int, b: int, rates: np.ndarray) -> Estimate:
    """rate a - rate b over the same games, with the 95% interval of the game-by-game
    linearised difference (delta method for ratios of sums; for games, the paired mean)."""
    def linear(i: int) -> np.ndarray:
        return (scores.wins[i] - rates[i] * scores.units[i]) / scores.units[i].mean()

    d = linear(a) - linear(b)
    n = len(d)
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return mean_interval(float(rates[a] - rates[b]), se, n)


class _Clock:
    """Games played so far against the total: the progress bar, and the ETA of the log lines."""

    def __init__(self, progress: Progress, key: str, label: str, total: int):
        self.progress, self.key, self.label, self.total = progress, key, label, total
        self.done = 0
        self.start = time.perf_counter()

    def played(self, games: int) -> None:
        self.done += games
        self.progress.batch_stored(self.key, self.label, self.done - games, self.done - 1,
                                   self.done, self.total, self.done / max(self.seconds(), 1e-9))

    def seconds(self) -> float:
        return time.perf_counter() - self.start

    def eta_text(self) -> str:
        if not self.done:
            return ""
        left = self.seconds() * (self.total - self.done) / self.done
        return f"{self.done:,}/{self.total:,} games, about {_duration(left)} left"


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


# --- Output ------------------------------------------------------------------------------------

COLUMNS = ("policy", "kind", "games", "rounds", "wins", "win_rate", "win_rate_lo", "win_rate_hi",
           "minus_tuned", "minus_tuned_lo", "minus_tuned_hi")


def rows(tuned: Tuned) -> list[list]:
    """The held-out table's rows (COLUMNS), best win rate first. ``wins``: games won, or for
    ``--objective rounds`` rounds won (of ``rounds``, the rounds of those games; None for
    games)."""
    ordered = sorted(tuned.standings, key=lambda s: -s.rate.value)
    rounds = tuned.plan.objective == "rounds"
    return [[s.policy, s.kind, s.games, s.units if rounds else None, s.wins,
             s.rate.value, s.rate.lo, s.rate.hi,
             s.minus_tuned.value, s.minus_tuned.lo, s.minus_tuned.hi] for s in ordered]


def policy_yaml(tuned: Tuned, command: str = "", path: str = "THIS_FILE") -> str:
    """The tuned seat as YAML: a seat mapping (``policy:`` written as data, and ``behaviour:``
    where seat S's differs from the defaults) for an entry of ``seats:``, after comment lines
    saying how it was tuned and how it did."""
    import yaml

    plan, split, s = tuned.plan, tuned.plan.split, tuned.standing
    seat: dict = {"policy": tuned.policy.as_dict()}
    defaults = {k: float(d) for k, (d, _) in rule_table.BEHAVIOUR.items()}
    behaviour = {k: v for k, v in tuned.seat.behaviour.items() if defaults.get(k) != v}
    if behaviour:
        seat["behaviour"] = behaviour
    stopped = " (stopped early)" if tuned.stopped else ""
    command = " ".join(command.split())  # one comment line
    lines = [
        f"# Tuned by {command or 'unostats tune'}",
        f"# Seat {plan.seat} of {plan.scenario} ({plan.variant}, {plan.players} players), "
        f"maximising its {_objective_unit(plan)} win rate, seed {plan.seed}.",
        f"# Search{stopped}: {_count(len(tuned.generations), 'generation')} x "
        f"{split.population} candidates x {split.games:,} games (CMA-ES).",
        f"# Held-out: {s.rate.value:.4f} [{s.rate.lo:.4f}, {s.rate.hi:.4f}] "
        f"{_objective_unit(plan)} win rate (95%, {s.rate.method}) over {s.games:,} games "
        f"(seed {plan.holdout_seed}, games 0..{s.games - 1}).",
        "# Use it as an entry of `seats:` in a scenario, e.g. with --set 'seats=[...]' and "
        f"--set \"seats[{plan.seat}]=$(cat {path})\".",
    ]
    return "\n".join(lines) + "\n" + yaml.safe_dump(seat, sort_keys=False,
                                                    default_flow_style=False)


def write_policy(tuned: Tuned, path: str | os.PathLike, command: str = "",
                 overwrite: bool = False) -> None:
    """Write ``policy_yaml`` to ``path`` (``store.write_output``: an existing file only with
    ``overwrite``, a stopped write leaves no half file), after checking that it reads back as
    the tuned seat."""
    text = policy_yaml(tuned, command, str(path))
    check_written(text, tuned.plan, tuned.seat)
    store.write_output(path, text, what="the tuned seat", overwrite=overwrite)


def check_written(text: str, plan: Plan, expected: Seat) -> None:
    """The written YAML, read back through the scenario checks as seat S of the cell, is the
    tuned seat (a file that would not load, or would load as another policy, is an error)."""
    import yaml

    from ..scenario import load_text

    seats = [s.resolved() for s in plan.seats]
    seats[plan.seat] = yaml.safe_load(text)
    scenario = load_text(yaml.safe_dump({"name": "check", "description": "", "games": 1,
                                          "players": plan.players, "seats": seats,
                                          "variants": [{"name": "v"}]}), "<tuned policy>")
    got = scenario.seats_for(plan.players)[plan.seat]
    if got != expected:
        raise RunError(f"the written policy reads back as {got}, not {expected}")

