"""Results database -> report model: every number a report shows, as plain frozen dataclasses.

All aggregation happens in DuckDB: the store's views (``round_length``, ``game_length``,
``win_rate_by_position``, ``game_win_rate_by_position``, ``score_spread``) give the standard
answers, and a few extra queries give value counts (the whole distribution of a measure in a few
thousand rows per cell), quantiles and per-rank means. Python only turns those small results into
``stats.Estimate`` objects (intervals, differences, the chi-square test) with ``stats``' functions.

Vocabulary (RULES.md): a *cell* is one variant at one player count within one run; *position* is
a seat's offset from the round's first player (position 0 acts first); a game's position of a seat
is its position in round 1.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, NamedTuple

import duckdb
import numpy as np
import polars as pl

from .. import stats, store
from ..rules import RULE_OPTIONS
from ..stats import Estimate, TestResult

QUANTILES = (("p10", 0.10), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99))
# "<base> without <what>": a variant of an ablation scenario (e.g. extreme.yaml).
ABLATION_NAME = re.compile(r"^(?P<base>.+?)\s+without\s+(?P<what>.+)$", re.IGNORECASE)


class CellKey(NamedTuple):
    run_id: str
    variant: str
    players: int


@dataclass(frozen=True)
class Cell:
    key: CellKey
    label: str  # the variant's display name, unique over the report (run id added if needed)
    games: int  # games stored
    rounds: int  # rounds stored
    description: str = ""

    @property
    def players(self) -> int:
        return self.key.players


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    status: str
    command: str | None
    seed: int
    games_requested: int
    games_completed: int
    scenario_name: str
    scenario_description: str
    scenario_text: str  # the file as written
    scenario_json: str  # resolved, canonical
    scenario_hash: str | None
    versions: Mapping[str, str | None]
    started_at: datetime | None
    finished_at: datetime | None
    elapsed_s: float | None
    variant_order: tuple[str, ...]  # as in the scenario file


@dataclass(frozen=True)
class Distribution:
    """The exact distribution of an integer measure in one cell: distinct values and counts."""

    values: np.ndarray
    counts: np.ndarray

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def quantile_value(self, p: float) -> float:
        """Smallest value whose cumulative share reaches p (the inverse CDF)."""
        if self.total == 0:
            return math.nan
        cdf = np.cumsum(self.counts) / self.total
        return float(self.values[min(int(np.searchsorted(cdf, p - 1e-12)), len(cdf) - 1)])


@dataclass(frozen=True)
class Summary:
    """One measure in one cell: mean with its interval, spread, quantiles, capped share."""

    n: int
    mean: Estimate  # mean ± 1.96 SE
    sd: float
    quantiles: tuple[tuple[str, float], ...]  # (label, value), quantile_cont
    max: float
    capped: Estimate | None = None  # share of rows ended by the safety cap (Wilson)


@dataclass(frozen=True)
class Measure:
    """A measure (e.g. turns per round) over every cell."""

    key: str  # stable id, e.g. "round_turns"
    title: str  # "Turns per round"
    unit: str  # what one unit of the value is, e.g. "turns"
    per: str  # what one observation is, e.g. "rounds"
    summaries: Mapping[CellKey, Summary]
    distributions: Mapping[CellKey, Distribution]
    note: str = ""


@dataclass(frozen=True)
class PositionRates:
    """Who wins by position in one cell (rounds or games)."""

    level: str  # "round" | "game"
    wins: tuple[int, ...]  # by position 0..players-1
    n: int  # rounds (games) with a winner
    rates: tuple[Estimate, ...]  # Wilson, from the store's views
    fair: float  # 1 / players
    test: TestResult  # chi-square of "all positions equal"
    excess: Estimate  # position 0's rate minus 1/players (its Wilson interval shifted)


@dataclass(frozen=True)
class RuleChange:
    key: str  # rule key (or deck.<kind>)
    rule_ids: str  # RULES.md ids
    doc: str
    base_value: str
    value: str


@dataclass(frozen=True)
class Comparison:
    """One cell against the base variant at the same player count (cell minus base)."""

    cell: CellKey
    base: CellKey
    round_length: Estimate  # difference of mean turns per round
    game_rounds: Estimate  # difference of mean rounds per game
    first_win: Estimate  # difference of position 0's round win rate (Newcombe)


@dataclass(frozen=True)
class AblationEffect:
    """Effect of one rule in an ablation scenario: base (with the rule) minus "base without X"."""

    cell: CellKey  # the "without" cell
    base: CellKey
    what: str  # the X of "base without X"
    rules: tuple[str, ...]  # rule keys that differ
    round_length: Estimate
    first_win: Estimate


@dataclass(frozen=True)
class Finding:
    """One row of the key findings table."""

    group: str  # what is estimated, e.g. "Turns per round"
    cell: CellKey
    estimate: Estimate
    kind: str  # "mean" | "rate" | "diff_mean" | "diff_rate" | "p_value"
    unit: str = ""


@dataclass(frozen=True)
class ReportModel:
    title: str
    generated_at: datetime
    db_path: str
    runs: tuple[RunSummary, ...]
    cells: tuple[Cell, ...]
    base_label: str
    measures: Mapping[str, Measure]
    round_positions: Mapping[CellKey, PositionRates]
    game_positions: Mapping[CellKey, PositionRates]
    rank_scores: Mapping[CellKey, tuple[tuple[int, Estimate], ...]]  # mean final score by rank
    standings_spread: Mapping[CellKey, Estimate]  # mean over games of the sd of final scores
    comparisons: tuple[Comparison, ...]
    rule_changes: Mapping[str, tuple[RuleChange, ...]]  # variant label -> changes vs base
    ablation: tuple[AblationEffect, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = field(default=())
    tournament: Any = None  # report.tournament.TournamentSection for tournament runs

    @property
    def labels(self) -> tuple[str, ...]:
        """Variant labels in report order (one colour each)."""
        return tuple(dict.fromkeys(c.label for c in self.cells))

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(sorted({c.players for c in self.cells}))

    @property
    def is_ablation(self) -> bool:
        return bool(self.ablation)

    def cell(self, key: CellKey) -> Cell:
        return self._by_key[key]

    @cached_property
    def _by_key(self) -> dict[CellKey, Cell]:
        return {c.key: c for c in self.cells}

    @property
    def games(self) -> int:
        return sum(c.games for c in self.cells)

    @property
    def rounds(self) -> int:
        return sum(c.rounds for c in self.cells)


# --- Building ----------------------------------------------------------------------------------

def load_model(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None = None, *,
               title: str | None = None, db_path: str = "") -> ReportModel:
    """The report model of ``run_ids`` (ids or unique prefixes; default: the latest run)."""
    refs = list(run_ids) if run_ids else [None]
    ids = list(dict.fromkeys(store.resolve_run_id(con, r) for r in refs))
    q = _Query(con, ids)
    runs = tuple(_run_summary(con, r) for r in ids)
    cells = _cells(q, runs)
    if not cells:
        raise store.StoreError(f"run {', '.join(ids)} has no stored games yet; nothing to report")
    keys = [c.key for c in cells]
    base = _base_cells(cells, runs)
    base_label = next(iter(base.values())).label if base else cells[0].label

    measures = {m.key: m for m in (
        _round_turns(q, keys), _round_summary(q, keys, "cards_drawn", "Cards drawn per round",
                                              "cards", "rounds"),
        _game_rounds(q, keys), _game_turns(q, keys),
        _round_summary(q, keys, "points", "Points per round", "points", "rounds with a winner",
                       where="ended_by = 'win'",
                       note="Points the round's winner scores (rounds ended by the cap score "
                            "nothing and are left out)."),
        _game_margin(q, keys), _final_scores(q, keys),
    )}
    round_pos = _positions(q, keys, "win_rate_by_position", "round")
    game_pos = _positions(q, keys, "game_win_rate_by_position", "game")
    rank_scores = _rank_scores(q, keys)
    spread = _standings_spread(q, keys)
    comparisons = _comparisons(cells, base, measures, round_pos)
    rule_changes = _rule_changes(q, cells, base)
    ablation = _ablation(cells, base, comparisons, rule_changes)
    findings = _findings(cells, measures, round_pos, game_pos, comparisons)
    notes = tuple(
        f"Run {r.run_id} is {r.status}: {r.games_completed:,} of {r.games_requested:,} games "
        "stored; the report covers the stored games."
        for r in runs if r.status != "complete")
    from .tournament import load_tournaments

    tournament = load_tournaments(con, ids)
    if title is None:
        title = ("UNO championship report: " if tournament else "UNO rules report: ") + \
            ", ".join(dict.fromkeys(r.scenario_name for r in runs))
    return ReportModel(
        title=title, generated_at=datetime.now(UTC), db_path=db_path, runs=runs, cells=cells,
        base_label=base_label, measures=measures, round_positions=round_pos,
        game_positions=game_pos, rank_scores=rank_scores, standings_spread=spread,
        comparisons=comparisons, rule_changes=rule_changes, ablation=ablation,
        findings=findings, notes=notes, tournament=tournament)


class _Query:
    """Runs SQL restricted to the report's runs: ``{runs}`` in the text becomes the filter."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]):
        self.con = con
        self.params = {f"run{i}": r for i, r in enumerate(run_ids)}
        self.filter = "run_id IN (" + ", ".join(f"${k}" for k in self.params) + ")"

    def __call__(self, sql: str) -> pl.DataFrame:
        return self.con.sql(sql.replace("{runs}", self.filter), params=self.params).pl()


def _run_summary(con: duckdb.DuckDBPyConnection, run_id: str) -> RunSummary:
    info = store.run_info(con, run_id)
    try:
        resolved = json.loads(info["scenario_json"] or "{}")
    except (TypeError, ValueError):
        resolved = {}
    order = tuple(v.get("name") for v in resolved.get("variants", []) if isinstance(v, dict))
    return RunSummary(
        run_id=run_id, status=info["status"], command=info["command"], seed=info["seed"],
        games_requested=info["games_requested"], games_completed=info["games_completed"],
        scenario_name=info["scenario_name"] or "(unnamed)",
        scenario_description=str(resolved.get("description") or ""),
        scenario_text=info["scenario_text"] or "", scenario_json=info["scenario_json"] or "",
        scenario_hash=info["scenario_hash"],
        versions={k: info[k] for k in store.VERSION_KEYS},
        started_at=info["started_at"], finished_at=info["finished_at"],
        elapsed_s=info["elapsed_s"], variant_order=order)


def _cells(q: _Query, runs: Sequence[RunSummary]) -> tuple[Cell, ...]:
    df = q("""
        WITH g AS (SELECT run_id, variant, players, count(*) AS games FROM games
                   WHERE {runs} GROUP BY ALL),
             r AS (SELECT run_id, variant, players, count(*) AS rounds FROM rounds
                   WHERE {runs} GROUP BY ALL)
        SELECT v.run_id, v.variant, v.players, v.description,
               coalesce(g.games, 0) AS games, coalesce(r.rounds, 0) AS rounds
        FROM variants v LEFT JOIN g USING (run_id, variant, players)
        LEFT JOIN r USING (run_id, variant, players)
        WHERE v.{runs}""")
    run_rank = {r.run_id: i for i, r in enumerate(runs)}
    order = {r.run_id: {name: i for i, name in enumerate(r.variant_order)} for r in runs}
    rows = sorted(df.iter_rows(named=True), key=lambda row: (
        run_rank[row["run_id"]], order[row["run_id"]].get(row["variant"], 10**6),
        row["variant"], row["players"]))
    runs_of = {}
    for row in rows:
        runs_of.setdefault(row["variant"], set()).add(row["run_id"])
    cells = []
    for row in rows:
        if row["games"] == 0:
            continue
        label = row["variant"] if len(runs_of[row["variant"]]) == 1 else \
            f"{row['variant']} ({row['run_id']})"
        cells.append(Cell(CellKey(row["run_id"], row["variant"], int(row["players"])), label,
                          int(row["games"]), int(row["rounds"]), row["description"] or ""))
    return tuple(cells)


def _base_cells(cells: Sequence[Cell], runs: Sequence[RunSummary]) -> dict[int, Cell]:
    """players -> the base cell: the first run's first variant (scenario order)."""
    first_run = runs[0].run_id
    in_run = [c for c in cells if c.key.run_id == first_run] or list(cells)
    base_variant = in_run[0].key.variant
    return {c.players: c for c in in_run if c.key.variant == base_variant}


# --- Measures ----------------------------------------------------------------------------------

def _key(row: Mapping[str, Any]) -> CellKey:
    return CellKey(row["run_id"], row["variant"], int(row["players"]))


def _value_counts(q: _Query, keys: Sequence[CellKey], table: str, expr: str,
                  where: str = "TRUE") -> dict[CellKey, Distribution]:
    df = q(f"""SELECT run_id, variant, players, {expr} AS v, count(*) AS n FROM {table}
               WHERE {{runs}} AND ({where}) AND {expr} IS NOT NULL
               GROUP BY ALL ORDER BY run_id, variant, players, v""")
    out = {}
    for (run_id, variant, players), part in df.group_by(["run_id", "variant", "players"]):
        part = part.sort("v")
        out[CellKey(run_id, variant, int(players))] = Distribution(
            part["v"].to_numpy().astype(np.int64), part["n"].to_numpy().astype(np.int64))
    empty = Distribution(np.zeros(0, np.int64), np.zeros(0, np.int64))
    return {k: out.get(k, empty) for k in keys}


def _summary(row: Mapping[str, Any], prefix: str = "", suffix: str = "",
             capped: Estimate | None = None) -> Summary:
    n = int(row["n"] or 0)
    mean = row[f"mean{suffix}"]
    se = row[f"se{suffix}"]
    est = stats.mean_interval(_num(mean), _num(se), n)
    quantiles = tuple((label, _num(row[f"{prefix}{label}{suffix}"])) for label, _ in QUANTILES)
    return Summary(n=n, mean=est, sd=_num(row[f"sd{suffix}"]), quantiles=quantiles,
                   max=_num(row.get(f"max{suffix}")), capped=capped)


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _summary_sql(table: str, column: str, where: str = "TRUE", capped: bool = True) -> str:
    qs = ",\n".join(f"quantile_cont({column}, {p}) AS {label}" for label, p in QUANTILES)
    n_capped = "count(*) FILTER (WHERE ended_by = 'cap')" if capped else "0"
    return f"""SELECT run_id, variant, players, count(*) AS n, avg({column}) AS mean,
                 stddev_samp({column}) AS sd, stddev_samp({column}) / sqrt(count(*)) AS se,
                 {qs}, max({column}) AS max,
                 {n_capped} AS n_capped
               FROM {table} WHERE {{runs}} AND ({where}) GROUP BY ALL"""


def _round_turns(q: _Query, keys: Sequence[CellKey]) -> Measure:
    df = q("SELECT * FROM round_length WHERE {runs}")
    summaries = {}
    for row in df.iter_rows(named=True):
        row = {**row, "mean": row["mean_turns"], "sd": row["sd_turns"], "se": row["se_turns"],
               "max": row["max_turns"]}
        capped = stats.wilson_interval(int(row["n_capped"]), int(row["n"]))
        summaries[_key(row)] = _summary(row, capped=capped)
    return Measure("round_turns", "Turns per round", "turns", "rounds", summaries,
                   _value_counts(q, keys, "rounds", "turns"),
                   note="Every round, including rounds ended by the safety cap (counted at the "
                        "cap; their share is shown).")


def _round_summary(q: _Query, keys: Sequence[CellKey], column: str, title: str, unit: str,
                   per: str, where: str = "TRUE", note: str = "") -> Measure:
    df = q(_summary_sql("rounds", column, where))
    summaries = {}
    for row in df.iter_rows(named=True):
        capped = stats.wilson_interval(int(row["n_capped"]), int(row["n"])) \
            if where == "TRUE" else None
        summaries[_key(row)] = _summary(row, capped=capped)
    return Measure(f"round_{column}", title, unit, per, summaries,
                   _value_counts(q, keys, "rounds", column, where), note=note)


def _game_length_rows(q: _Query) -> list[dict[str, Any]]:
    return list(q("SELECT * FROM game_length WHERE {runs}").iter_rows(named=True))


def _game_rounds(q: _Query, keys: Sequence[CellKey]) -> Measure:
    summaries = {}
    for row in _game_length_rows(q):
        capped = stats.wilson_interval(round(row["share_capped"] * row["n"]), int(row["n"]))
        summaries[_key(row)] = _summary(row, prefix="", suffix="_rounds", capped=capped)
    dist = _value_counts(q, keys, "games", "rounds")
    for k, s in summaries.items():  # the view has no max; the distribution does
        d = dist[k]
        summaries[k] = Summary(s.n, s.mean, s.sd, s.quantiles,
                               float(d.values.max()) if d.total else math.nan, s.capped)
    return Measure("game_rounds", "Rounds per game", "rounds", "games", summaries, dist,
                   note="Every game, including games ended by the safety cap on rounds.")


def _game_turns(q: _Query, keys: Sequence[CellKey]) -> Measure:
    summaries = {}
    dist = _value_counts(q, keys, "games", "turns")
    for row in _game_length_rows(q):
        s = _summary(row, suffix="_turns")
        d = dist[_key(row)]
        summaries[_key(row)] = Summary(s.n, s.mean, s.sd, s.quantiles,
                                       float(d.values.max()) if d.total else math.nan)
    return Measure("game_turns", "Turns per game", "turns", "games", summaries, dist)


def _game_margin(q: _Query, keys: Sequence[CellKey]) -> Measure:
    df = q(_summary_sql("games", "margin", "winner_seat IS NOT NULL"))
    spread = {_key(r): r for r in q("SELECT * FROM score_spread WHERE {runs}")
              .iter_rows(named=True)}
    summaries = {}
    for row in df.iter_rows(named=True):
        view = spread.get(_key(row))
        if view is not None:  # the mean and its SE as the store's view defines them
            row = {**row, "mean": view["mean_margin"], "se": view["se_margin"],
                   "sd": view["sd_margin"]}
        summaries[_key(row)] = _summary(row)
    return Measure("game_margin", "Winning margin", "points", "games with a winner", summaries,
                   _value_counts(q, keys, "games", "margin", "winner_seat IS NOT NULL"),
                   note="The winner's final score minus the runner-up's.")


def _final_scores(q: _Query, keys: Sequence[CellKey]) -> Measure:
    df = q(_summary_sql("game_seats", "final_score", capped=False))
    summaries = {_key(r): _summary(r) for r in df.iter_rows(named=True)}
    return Measure("final_score", "Final scores", "points", "players' games", summaries,
                   _value_counts(q, keys, "game_seats", "final_score"),
                   note="Every player's score at the end of the game, winners and losers.")


# --- Positions, ranks, spread ------------------------------------------------------------------

def _positions(q: _Query, keys: Sequence[CellKey], view: str,
               level: str) -> dict[CellKey, PositionRates]:
    df = q(f"SELECT * FROM {view} WHERE {{runs}} ORDER BY run_id, variant, players, position")
    out = {}
    for (run_id, variant, players), part in df.group_by(["run_id", "variant", "players"]):
        part = part.sort("position")
        players = int(players)
        n = int(part["n"][0])
        wins = tuple(int(w) for w in part["wins"])
        rates = tuple(Estimate(_num(r), _num(lo), _num(hi), n, "Wilson")
                      for r, lo, hi in zip(part["rate"], part["lo"], part["hi"]))
        fair = 1.0 / players
        first = rates[0]
        excess = Estimate(first.value - fair, first.lo - fair, first.hi - fair, n,
                          "Wilson interval minus 1/n")
        out[CellKey(run_id, variant, players)] = PositionRates(
            level=level, wins=wins, n=n, rates=rates, fair=fair,
            test=stats.chi_square_uniform(wins), excess=excess)
    return {k: out[k] for k in keys if k in out}


def _rank_scores(q: _Query, keys: Sequence[CellKey]) -> dict[CellKey, tuple]:
    df = q("""SELECT run_id, variant, players, rank, count(*) AS n, avg(final_score) AS mean,
                stddev_samp(final_score) / sqrt(count(*)) AS se
              FROM game_seats WHERE {runs} GROUP BY ALL ORDER BY ALL""")
    out: dict[CellKey, list] = {}
    for row in df.iter_rows(named=True):
        est = stats.mean_interval(_num(row["mean"]), _num(row["se"]), int(row["n"]))
        out.setdefault(_key(row), []).append((int(row["rank"]), est))
    return {k: tuple(out[k]) for k in keys if k in out}


def _standings_spread(q: _Query, keys: Sequence[CellKey]) -> dict[CellKey, Estimate]:
    """Mean over games of the sd of the final scores within a game (as score_spread defines it),
    with its standard error over games."""
    df = q("""SELECT run_id, variant, players, count(score_sd) AS n, avg(score_sd) AS mean,
                stddev_samp(score_sd) / sqrt(count(score_sd)) AS se
              FROM (SELECT run_id, variant, players, game, stddev_samp(final_score) AS score_sd
                    FROM game_seats WHERE {runs} GROUP BY ALL)
              GROUP BY ALL""")
    out = {_key(r): stats.mean_interval(_num(r["mean"]), _num(r["se"]), int(r["n"]))
           for r in df.iter_rows(named=True)}
    return {k: out[k] for k in keys if k in out}


# --- Variants compared -------------------------------------------------------------------------

def _comparisons(cells: Sequence[Cell], base: Mapping[int, Cell],
                 measures: Mapping[str, Measure],
                 round_pos: Mapping[CellKey, PositionRates]) -> tuple[Comparison, ...]:
    out = []
    turns, rounds = measures["round_turns"].summaries, measures["game_rounds"].summaries
    for c in cells:
        b = base.get(c.players)
        if b is None or b.key == c.key:
            continue
        k, bk = c.key, b.key
        if k not in turns or bk not in turns or k not in round_pos or bk not in round_pos:
            continue
        out.append(Comparison(
            cell=k, base=bk,
            round_length=_diff_means(turns[k], turns[bk]),
            game_rounds=_diff_means(rounds[k], rounds[bk]),
            first_win=stats.difference_of_proportions(
                round_pos[k].wins[0], round_pos[k].n, round_pos[bk].wins[0], round_pos[bk].n)))
    return tuple(out)


def _diff_means(a: Summary, b: Summary) -> Estimate:
    return stats.difference_of_means(a.mean.value, a.mean.se, b.mean.value, b.mean.se,
                                      n1=a.n, n2=b.n)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "—" if value is None else str(value)


def _rule_changes(q: _Query, cells: Sequence[Cell],
                  base: Mapping[int, Cell]) -> dict[str, tuple[RuleChange, ...]]:
    df = q("SELECT run_id, variant, players, rules_json FROM variants WHERE {runs}")
    rules = {_key(r): json.loads(r["rules_json"]) for r in df.iter_rows(named=True)}
    if not base:
        return {}
    base_cell = next(iter(base.values()))
    base_rules = rules.get(base_cell.key, {})
    out: dict[str, tuple[RuleChange, ...]] = {}
    for c in cells:
        if c.label == base_cell.label or c.label in out:
            continue
        mine = rules.get(c.key, {})
        changes = []
        for opt in RULE_OPTIONS:
            a, b = base_rules.get(opt.key), mine.get(opt.key)
            if a != b:
                changes.append(RuleChange(opt.key, opt.rule_ids, opt.doc, _show(a), _show(b)))
        deck_a, deck_b = base_rules.get("deck") or {}, mine.get("deck") or {}
        for kind in dict.fromkeys([*deck_a, *deck_b]):
            if deck_a.get(kind) != deck_b.get(kind):
                changes.append(RuleChange(f"deck.{kind}", "D1, D3-D6",
                                          f"Cards of kind {kind} in the deck.",
                                          _show(deck_a.get(kind)), _show(deck_b.get(kind))))
        out[c.label] = tuple(changes)
    return out


def _ablation(cells: Sequence[Cell], base: Mapping[int, Cell],
              comparisons: Sequence[Comparison],
              rule_changes: Mapping[str, tuple[RuleChange, ...]]) -> tuple[AblationEffect, ...]:
    """Rule effects when variants are named "<base> without <X>": with minus without."""
    by_cell = {cmp.cell: cmp for cmp in comparisons}
    label_of = {c.key: c.label for c in cells}
    out = []
    for c in cells:
        m = ABLATION_NAME.match(c.key.variant)
        cmp = by_cell.get(c.key)
        if m is None or cmp is None:
            continue
        out.append(AblationEffect(
            cell=c.key, base=cmp.base, what=m.group("what"),
            rules=tuple(rc.key for rc in rule_changes.get(label_of[c.key], ())),
            round_length=_negate(cmp.round_length), first_win=_negate(cmp.first_win)))
    return tuple(out)


def _negate(e: Estimate) -> Estimate:
    """-(a - b) = b - a: the same interval mirrored (both intervals used here are symmetric
    under swapping the samples)."""
    return Estimate(-e.value, -e.hi, -e.lo, e.n, e.method, se=e.se, p_value=e.p_value)


# --- Key findings ------------------------------------------------------------------------------

def _findings(cells: Sequence[Cell], measures: Mapping[str, Measure],
              round_pos: Mapping[CellKey, PositionRates],
              game_pos: Mapping[CellKey, PositionRates],
              comparisons: Sequence[Comparison]) -> tuple[Finding, ...]:
    rows: list[Finding] = []

    def add(group: str, kind: str, values: Mapping[CellKey, Estimate], unit: str = ""):
        for c in cells:
            if c.key in values:
                rows.append(Finding(group, c.key, values[c.key], kind, unit))

    def means(key: str) -> dict[CellKey, Estimate]:
        return {k: s.mean for k, s in measures[key].summaries.items()}

    add("Turns per round", "mean", means("round_turns"), "turns")
    add("Rounds per game", "mean", means("game_rounds"), "rounds")
    add("First player wins the round", "rate", {k: p.rates[0] for k, p in round_pos.items()})
    add("First player wins the game", "rate", {k: p.rates[0] for k, p in game_pos.items()})
    capped = {k: s.capped for k, s in measures["round_turns"].summaries.items()
              if s.capped is not None}
    if any(e.value > 0 for e in capped.values()):
        add("Rounds ended by the safety cap", "rate", capped)
    if comparisons:
        add("Turns per round vs base", "diff_mean",
            {cmp.cell: cmp.round_length for cmp in comparisons}, "turns")
        add("First player's round win rate vs base", "diff_rate",
            {cmp.cell: cmp.first_win for cmp in comparisons})
    return tuple(rows)
