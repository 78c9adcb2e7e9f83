"""Results database -> report model: every number a report shows, as plain frozen dataclasses.

All aggregation happens in DuckDB; Python receives aggregates only. Each measure (turns per
round, cards drawn, points, rounds and turns per game, margins, final scores) comes as its value
counts per cell: the exact distribution in a few thousand rows however many millions of rows
are stored, from one ``GROUP BY`` scan. Its summary (n, mean, sample sd, standard error, the
``quantile_cont`` quantiles, max) is computed from those counts (``describe``), so it equals
what the store's views ``round_length``, ``game_length`` and ``score_spread`` report (the tests
check it) without scanning the table again for each statistic, and the tables agree with the
charts drawn from the same counts. Win rates by position are the views'
``win_rate_by_position`` (the round's, counted in the pass that counts the round points, with the
view's own Wilson macros) and ``game_win_rate_by_position``; a few more queries give the capped
counts, per-rank means and the spread of final standings. Python then turns these small results
into ``stats.Estimate`` objects (intervals, differences, the chi-square test) with ``stats``'
functions. A kind of run may add its own section (``kinds.ReportSection``, e.g. the tournaments'
championship): ``load_model`` loads each one's model of the runs into ``ReportModel.sections``,
and the figures and the page draw and show it through the same section. Past ``DETAIL_CELLS``
cells (counted up front, one grouped query) the model reads and holds the first ones only, in the
scenario's order, and ``left_out`` says so: the page and its time stay bounded.

Vocabulary (docs/rules.md): a *cell* is one variant at one player count within one run; *position* is
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
from ..kinds import ReportSection, report_sections
from ..rules import RULE_OPTIONS
from ..base import compare
from ..stats import Estimate, TestResult
from ..store import BY_CELL

# The most cells whose detail (distributions, positions, ranks, comparisons with the base, game by
# game) a report reads and draws: past it the page grows with the cells (a 1,000-cell sweep gave a
# 25 MB page); the first ones in the scenario's order are shown and the page says so. The sweep
# section still draws every cell. Above the bundled sweeps.yaml's 90 cells.
DETAIL_CELLS = 100
QUANTILES = (("p10", 0.10), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99))
# An ablation variant is named after another variant of its run, the base, and the rule it
# removes: "<base> without <what>" or "<base>-no-<what>" (extreme.yaml: "extreme-no-zero-slap").
ABLATION_SEPARATOR = re.compile(r"\s+without\s+|[-_\s]no[-_\s]", re.IGNORECASE)


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

    def quantile_cont(self, p: float) -> float:
        """DuckDB's quantile_cont (numpy's "linear"): the order statistics at floor and ceil of
        (n - 1) * p, interpolated."""
        n = self.total
        if n == 0:
            return math.nan
        h = (n - 1) * p
        lo = math.floor(h)
        cum = np.cumsum(self.counts)
        a = float(self.values[int(np.searchsorted(cum, lo, side="right"))])
        b = float(self.values[int(np.searchsorted(cum, min(lo + 1, n - 1), side="right"))])
        return a + (h - lo) * (b - a)

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
    rule_ids: str  # catalogue ids (docs/rules.md)
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
    """Effect of one rule in an ablation scenario: base (with the rule) minus "base without X",
    both cells of the same run at the same player count."""

    cell: CellKey  # the "without" cell
    base: CellKey
    what: str  # the X of "base without X" ("zero slap" for "extreme-no-zero-slap")
    rules: tuple[str, ...]  # rule keys that differ between the two
    round_length: Estimate  # difference of mean turns per round
    first_win: Estimate  # difference of position 0's round win rate (Newcombe)
    game_rounds: Estimate | None = None  # difference of mean rounds per game


@dataclass(frozen=True)
class Finding:
    """One row of the key findings table."""

    group: str  # what is estimated, e.g. "Turns per round"
    cell: CellKey
    estimate: Estimate
    kind: str  # "mean" | "rate" | "diff_mean" | "diff_rate" | "p_value"
    unit: str = ""


@dataclass(frozen=True)
class Durations:
    """How long a round and a game of one cell last, in minutes at the run's pace (the store's
    ``durations`` view: mean ± 1.96 SE of the turns, times seconds_per_turn)."""

    seconds_per_turn: float
    round: Estimate
    game: Estimate


class LoadedSection(NamedTuple):
    section: ReportSection  # a kind's report section (kinds.RUN_KINDS)
    data: Any  # its model of the report's runs, None if they have none


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
    rule_changes: Mapping[str, tuple[RuleChange, ...]]  # variant label -> changes vs its base
    ablation: tuple[AblationEffect, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = field(default=())
    # every kind's report section with its model of these runs (None: they have none)
    sections: tuple[LoadedSection, ...] = field(default=())
    # variant label -> the label its rule changes are against (base_label unless it is an
    # ablation variant, which is compared with its own base)
    rule_bases: Mapping[str, str] = field(default_factory=dict)
    durations: Mapping[CellKey, Durations] = field(default_factory=dict)
    # the comparisons again as ``unostats compare`` makes them (paired where the deals agree)
    paired: tuple[compare.Comparison, ...] = field(default=())
    # what the page leaves out when the runs have more than DETAIL_CELLS cells ("" if nothing)
    left_out: str = ""

    def section(self, name: str) -> Any:
        """The model of report section ``name`` (None if the runs have none)."""
        return next(s.data for s in self.sections if s.section.name == name)

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

    @property
    def ablation_labels(self) -> tuple[str, ...]:
        """Labels of the ablation's "without" variants, in report order."""
        return tuple(dict.fromkeys(self.cell(a.cell).label for a in self.ablation))

    @property
    def ablation_base_labels(self) -> tuple[str, ...]:
        """Labels of the variants the ablation removes rules from (usually one)."""
        return tuple(dict.fromkeys(self.cell(a.base).label for a in self.ablation))

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
    left_out = ""
    if len(cells) > DETAIL_CELLS:
        left_out = (f"{'These runs have' if len(ids) > 1 else 'This run has'} {len(cells):,} "
                    f"cells with stored games; the page shows and draws the detail of the "
                    f"first {DETAIL_CELLS:,} in the scenario's order (distributions, win rates "
                    f"by position, comparisons with the base) and leaves out the other "
                    f"{len(cells) - DETAIL_CELLS:,} (the sweep charts draw every cell); "
                    "query the store for the rest (unostats query, unostats compare).")
        cells = cells[:DETAIL_CELLS]
        q = _Query(con, ids, [c.key for c in cells])
    keys = [c.key for c in cells]
    base = _base_cells(cells, runs)
    base_label = next(iter(base.values())).label if base else cells[0].label

    kept = store.sums.keeps(con, ids)
    rows_kept = [k for k in keys if kept[k.run_id] == "rows"]  # the round seats' measures
    points, round_pos = _round_wins(q, keys)
    round_pos = {k: v for k, v in round_pos.items() if k in rows_kept}
    measures = _measures(q, keys, points)
    game_pos = _positions(q, rows_kept, "game_win_rate_by_position", "game")
    rank_scores = _rank_scores(q, keys)
    spread = _standings_spread(q, keys)
    comparisons = _comparisons(cells, base, measures, round_pos)
    paired = _paired(con, comparisons)
    rules = _variant_rules(q)
    ablation_bases = _ablation_bases(cells)
    rule_changes, rule_bases = _rule_changes(rules, cells, base, ablation_bases)
    ablation = _ablation(cells, ablation_bases, measures, round_pos, rules)
    findings = _findings(cells, measures, round_pos, game_pos, comparisons)
    durations = _durations(q, keys, kept)
    notes = ((left_out,) if left_out else ()) + _kept_notes(runs, kept) + tuple(
        f"Run {r.run_id} is {r.status}: {r.games_completed:,} of {r.games_requested:,} games "
        "stored; the report covers the stored games."
        for r in runs if r.status != "complete")
    sections = tuple(LoadedSection(s, s.load(con, ids)) for s in report_sections())
    if title is None:
        title = next((s.section.title for s in sections if s.data is not None),
                     "UNO rules report: ") + ", ".join(dict.fromkeys(r.scenario_name for r in runs))
    return ReportModel(
        title=title, generated_at=datetime.now(UTC), db_path=db_path, runs=runs, cells=cells,
        base_label=base_label, measures=measures, round_positions=round_pos,
        game_positions=game_pos, rank_scores=rank_scores, standings_spread=spread,
        comparisons=comparisons, rule_changes=rule_changes, ablation=ablation,
        findings=findings, notes=notes, sections=sections, rule_bases=rule_bases,
        durations=durations, paired=paired, left_out=left_out)


class _Query:
    """Runs SQL restricted to the report's runs: ``{runs}`` in the text becomes the filter on
    run_id, ``{cells}`` the filter on the cell id of the rows read by cell (``rounds_by_cell``
    ...: ``store.BY_CELL``), which ``by_cell`` names; ``keys``, if given, keep only those
    cells."""

    def __init__(self, con: duckdb.DuckDBPyConnection, run_ids: Sequence[str],
                 keys: Sequence[CellKey] | None = None):
        self.con = con
        self.params = {f"run{i}": r for i, r in enumerate(run_ids)}
        self.filter = "run_id IN (" + ", ".join(f"${k}" for k in self.params) + ")"
        self.cells = f"cell IN (SELECT cell FROM cells WHERE {self.filter})"
        self.cell_params: dict[str, Any] = {}
        if keys is not None:
            self.cell_params = {"keep_run": [k.run_id for k in keys],
                                "keep_variant": [k.variant for k in keys],
                                "keep_players": [k.players for k in keys]}
            self.cells = ("cell IN (SELECT c.cell FROM cells c JOIN (SELECT unnest($keep_run) "
                          "AS run_id, unnest($keep_variant) AS variant, unnest($keep_players) "
                          f"AS players) k USING (run_id, variant, players) WHERE c.{self.filter})")

    def __call__(self, sql: str) -> pl.DataFrame:
        params = self.params | (self.cell_params if "{cells}" in sql else {})
        sql = sql.replace("{runs}", self.filter).replace("{cells}", self.cells)
        return self.con.sql(sql, params=params).pl()

    def by_cell(self, sql: str) -> pl.DataFrame:
        """``sql``, whose first column is ``cell``, with the cell columns (run_id, variant,
        players) in its place, ordered by all columns. (A GROUP BY on the cell id, then a join
        to the few rows it gives: 3x less CPU than grouping the rows by their cell columns.)"""
        return self(f"SELECT c.run_id, c.variant, c.players, x.* EXCLUDE (cell) FROM ({sql}) x "
                    "JOIN cells c USING (cell) ORDER BY ALL")


def _run_summary(con: duckdb.DuckDBPyConnection, run_id: str) -> RunSummary:
    info = store.run_info(con, run_id)
    try:
        resolved = json.loads(info["scenario_json"] or "{}")
    except (TypeError, ValueError):
        resolved = {}
    order = tuple(v.get("name") for v in resolved.get("variants", []) if isinstance(v, dict))
    if resolved.get("sweep") or resolved.get("skill"):  # the cells in the order played
        order = tuple(dict.fromkeys(v for (v,) in con.execute(
            "SELECT variant FROM variants WHERE run_id = ? ORDER BY rowid", [run_id]).fetchall()))
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
    """The runs' cells with games (their games and rounds from their sums, whatever their runs
    kept), in the runs' and scenarios' order."""
    counted = store.sums.cell_sums(q.con, f"c.{q.filter}", q.params, ("games", "rounds"))
    df = q("SELECT run_id, variant, players, description FROM variants WHERE {runs}")
    df = df.with_columns(
        pl.Series("games", [int(counted.get(_key(r), {}).get("games") or 0)
                            for r in df.iter_rows(named=True)], pl.Int64),
        pl.Series("rounds", [int(counted.get(_key(r), {}).get("rounds") or 0)
                             for r in df.iter_rows(named=True)], pl.Int64))
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
    df = q.by_cell(f"""SELECT cell, {expr} AS v, count(*) AS n FROM {BY_CELL[table]}
                       WHERE {{cells}} AND ({where}) AND {expr} IS NOT NULL GROUP BY ALL""")
    return _distributions(df, keys)


def _distributions(df: pl.DataFrame, keys: Sequence[CellKey]) -> dict[CellKey, Distribution]:
    """Each cell's distribution from value counts (columns run_id, variant, players, v, n)."""
    out = {}
    for (run_id, variant, players), part in df.group_by(["run_id", "variant", "players"]):
        part = part.sort("v")
        out[CellKey(run_id, variant, int(players))] = Distribution(
            part["v"].to_numpy().astype(np.int64), part["n"].to_numpy().astype(np.int64))
    empty = Distribution(np.zeros(0, np.int64), np.zeros(0, np.int64))
    return {k: out.get(k, empty) for k in keys}


def describe(d: Distribution, n_capped: int | None = None) -> Summary | None:
    """The summary of one cell's measure from its exact distribution: n, mean ± 1.96 SE (sample
    sd / sqrt(n)), sd, quantile_cont quantiles, max, and the capped share (Wilson) when
    ``n_capped`` is given. None for an empty cell."""
    n = d.total
    if n == 0:
        return None
    v = d.values.astype(np.float64)
    w = d.counts.astype(np.float64)
    mean = float((v * w).sum() / n)
    sd = math.sqrt(float((w * (v - mean) ** 2).sum()) / (n - 1)) if n > 1 else math.nan
    se = sd / math.sqrt(n)
    capped = stats.wilson_interval(int(n_capped), n) if n_capped is not None else None
    return Summary(n=n, mean=stats.mean_interval(mean, se, n), sd=sd,
                   quantiles=tuple((label, d.quantile_cont(p)) for label, p in QUANTILES),
                   max=float(v[-1]), capped=capped)


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _capped_counts(q: _Query, table: str) -> dict[CellKey, int]:
    """Rows ended by the safety cap per cell (few or none: a cheap filtered count)."""
    df = q.by_cell(f"""SELECT cell, count(*) AS n FROM {BY_CELL[table]}
                       WHERE {{cells}} AND ended_by = 'cap' GROUP BY ALL""")
    return {_key(r): int(r["n"]) for r in df.iter_rows(named=True)}


def _measure(q: _Query, keys: Sequence[CellKey], *, key: str, table: str, column: str,
             title: str, unit: str, per: str, where: str = "TRUE",
             capped: Mapping[CellKey, int] | None = None, note: str = "",
             counted: Mapping[CellKey, Distribution] | None = None) -> Measure:
    """A measure from its value counts (``counted``: read already): the distributions and
    their summaries."""
    dist = counted if counted is not None else _value_counts(q, keys, table, column, where)
    summaries = {}
    for k in keys:
        s = describe(dist[k], None if capped is None else capped.get(k, 0))
        if s is not None:
            summaries[k] = s
    return Measure(key, title, unit, per, summaries, dist, note=note)


def _measures(q: _Query, keys: Sequence[CellKey],
              points: Mapping[CellKey, Distribution]) -> dict[str, Measure]:
    """Every measure; ``points``: the round points' distributions (``_round_wins``)."""
    round_caps, game_caps = _capped_counts(q, "rounds"), _capped_counts(q, "games")
    lengths = store.sums.round_lengths(q.con, f"c.{q.filter}", q.params)  # every keep has it
    round_caps |= {k: int(v["capped"] or 0) for k, v in store.sums.cell_sums(
        q.con, f"c.{q.filter} AND r.keep <> 'rows'", q.params, ("capped",)).items()}
    turns = {k: Distribution(np.array(sorted(lengths.get(k, {})), np.int64),
                             np.array([n for _, n in sorted(lengths.get(k, {}).items())],
                                      np.int64)) for k in keys}
    measures = (
        _measure(q, keys, key="round_turns", table="rounds", column="turns",
                 title="Turns per round", unit="turns", per="rounds", capped=round_caps,
                 counted=turns,
                 note="Every round, including rounds ended by the safety cap (counted at the "
                      "cap; their share is shown)."),
        _measure(q, keys, key="round_cards_drawn", table="rounds", column="cards_drawn",
                 title="Cards drawn per round", unit="cards", per="rounds", capped=round_caps),
        _measure(q, keys, key="game_rounds", table="games", column="rounds",
                 title="Rounds per game", unit="rounds", per="games", capped=game_caps,
                 note="Every game, including games ended by the safety cap on rounds."),
        _measure(q, keys, key="game_turns", table="games", column="turns",
                 title="Turns per game", unit="turns", per="games"),
        _measure(q, keys, key="round_points", table="rounds", column="points",
                 title="Points per round", unit="points", per="rounds with a winner",
                 where="ended_by = 'win'", counted=points,
                 note="The points the round adds to the scores: the winner's gain when the "
                      "winner takes all, the sum of every player's own hand points when each "
                      "scores their own (rounds ended by the cap score nothing and are left "
                      "out)."),
        _measure(q, keys, key="game_margin", table="games", column="margin",
                 title="Winning margin", unit="points", per="games with a winner",
                 where="winner_seat IS NOT NULL",
                 note="How far the winner's final score is ahead of the runner-up's (the lower "
                      "total is ahead when the lowest total wins)."),
        _measure(q, keys, key="final_score", table="game_seats", column="final_score",
                 title="Final scores", unit="points", per="players' games",
                 note="Every player's score at the end of the game, winners and losers."),
    )
    return {m.key: m for m in measures}


# What a report of a run that kept less than rows cannot show (``store.keep``).
KEPT_NOTES = {
    "games": "kept games (--keep games): its rounds' own rows are not stored, so the page "
             "leaves out its cards drawn and points per round, its round and game win rates "
             "by position and its comparisons with the base; turns per round come from its "
             "round-length histogram, the rest from its games and their totals. --keep rows "
             "stores them.",
    "summary": "kept summary (--keep summary): only its cells' sums and round-length "
               "histogram are stored, so the page shows its turns per round and durations "
               "(and the summary `unostats simulate` prints, how it plays and `unostats "
               "compare`, unpaired) but no distribution of its games, win rates by position "
               "or comparisons with the base. --keep games or rows stores them.",
}


def _kept_notes(runs: Sequence[RunSummary], kept: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(f"Run {r.run_id} {KEPT_NOTES[kept[r.run_id]]}" for r in runs
                 if kept[r.run_id] != "rows")


def _durations(q: _Query, keys: Sequence[CellKey],
               kept: Mapping[str, str]) -> dict[CellKey, Durations]:
    """How long a round and a game last: the ``durations`` view over the rows, and the same
    from the sums of the cells of runs that kept less."""
    # Only the columns shown: DuckDB then leaves out the view's median and p90, whose
    # quantile_cont holds every round's turns (8.8M rounds: 0.73 -> 0.18 s of CPU).
    df = q("""SELECT run_id, variant, players, unit, n, seconds_per_turn, mean_minutes,
                lo_minutes, hi_minutes, method FROM durations WHERE {runs}""")
    rows = {(_key(r), r["unit"]): r for r in df.iter_rows(named=True)
            if kept[r["run_id"]] == "rows"}
    rows |= _durations_from_sums(q, [k for k in keys if kept[k.run_id] != "rows"])
    out = {}
    for k in keys:
        if (k, "round") not in rows or (k, "game") not in rows:
            continue
        est = {unit: Estimate(_num(r["mean_minutes"]), _num(r["lo_minutes"]),
                              _num(r["hi_minutes"]), int(r["n"]), r["method"])
               for unit in ("round", "game") for r in (rows[(k, unit)],)}
        out[k] = Durations(float(rows[(k, "game")]["seconds_per_turn"]), est["round"],
                           est["game"])
    return out


def _durations_from_sums(q: _Query, keys: Sequence[CellKey]) -> dict[tuple, dict[str, Any]]:
    """The ``durations`` view's rows of ``keys`` from their sums: mean ± 1.96 SE of the turns
    of a round and of a game, times the run's pace."""
    if not keys:
        return {}
    from ..sql import PACE

    found = store.sums.cell_sums(q.con, f"c.{q.filter}", q.params,
                                 ("games", "rounds", "turns", "turns_sq", "turns__2"))
    pace = dict(q.con.execute(f"SELECT run_id, seconds_per_turn FROM ({PACE}) WHERE "
                              f"{q.filter}", q.params).fetchall())
    out = {}
    for k in keys:
        s = found.get(k)
        if s is None:
            continue
        minute = float(pace[k.run_id]) / 60
        for unit, n, squares in (("round", "rounds", "turns_sq"), ("game", "games", "turns__2")):
            e = stats.mean_se_from_sums(int(s[n]), s["turns"], s[squares])
            out[(k, unit)] = {"n": e.n, "seconds_per_turn": pace[k.run_id],
                              "mean_minutes": e.value * minute, "lo_minutes": e.lo * minute,
                              "hi_minutes": e.hi * minute,
                              "method": "mean ± 1.96 SE of the turns, times seconds_per_turn"}
    return out


# --- Positions, ranks, spread ------------------------------------------------------------------

def _round_wins(q: _Query, keys: Sequence[CellKey]
                ) -> tuple[dict[CellKey, Distribution], dict[CellKey, PositionRates]]:
    """The rounds with a winner in one scan: their counts by points and winner's position give
    the points' distributions and the wins by position. The rates are the view
    ``win_rate_by_position``'s (which reads the rounds twice more): n = the cell's rounds with a
    winner, every position 0..players-1 (0 wins where none), the rate wins / n and the bounds of
    the store's SQL macros wilson_lo and wilson_hi, on the same BIGINT counts."""
    counts = q.by_cell(f"""
        WITH joint AS MATERIALIZED (
          SELECT cell, points, winner_position, count(*) AS n
          FROM {BY_CELL['rounds']} WHERE {{cells}} AND ended_by = 'win' GROUP BY ALL)
        SELECT cell, 'points' AS part, points AS v, sum(n) AS n
        FROM joint GROUP BY ALL
        UNION ALL
        SELECT cell, 'position', winner_position, sum(n)
        FROM joint WHERE winner_position IS NOT NULL GROUP BY ALL""")
    points = _distributions(counts.filter(pl.col("part") == "points"), keys)
    won = {(_key(r), r["v"]): int(r["n"]) for r in
           counts.filter(pl.col("part") == "position").iter_rows(named=True)}
    rows = [(k, i, won.get((k, i), 0), points[k].total) for k in keys for i in range(k.players)]
    bounds = q.con.execute(
        """SELECT k / n, wilson_lo(k, n), wilson_hi(k, n)
           FROM (SELECT unnest($k::BIGINT[]) AS k, unnest($n::BIGINT[]) AS n,
                        unnest(range(len($k))) AS i)
           ORDER BY i""", {"k": [w for _, _, w, _ in rows], "n": [n for *_, n in rows]}
    ).fetchall() if rows else []
    df = pl.DataFrame(
        {"run_id": [k.run_id for k, *_ in rows], "variant": [k.variant for k, *_ in rows],
         "players": [k.players for k, *_ in rows], "position": [i for _, i, _, _ in rows],
         "wins": [w for _, _, w, _ in rows], "n": [n for *_, n in rows],
         "rate": [b[0] for b in bounds], "lo": [b[1] for b in bounds],
         "hi": [b[2] for b in bounds]},
        schema={"run_id": pl.String, "variant": pl.String, "players": pl.Int64,
                "position": pl.Int64, "wins": pl.Int64, "n": pl.Int64, "rate": pl.Float64,
                "lo": pl.Float64, "hi": pl.Float64})
    return points, _position_rates(df, keys, "round")


def _positions(q: _Query, keys: Sequence[CellKey], view: str,
               level: str) -> dict[CellKey, PositionRates]:
    df = q(f"SELECT * FROM {view} WHERE {{runs}} ORDER BY run_id, variant, players, position")
    return _position_rates(df, keys, level)


def _position_rates(df: pl.DataFrame, keys: Sequence[CellKey],
                    level: str) -> dict[CellKey, PositionRates]:
    """Each cell's rates from rows shaped like the position views' (one a position)."""
    out = {}
    wanted = set(keys)
    for (run_id, variant, players), part in df.group_by(["run_id", "variant", "players"]):
        if CellKey(run_id, variant, int(players)) not in wanted:
            continue
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
    df = q.by_cell(f"""SELECT cell, rank, count(*) AS n, avg(final_score) AS mean,
                         stddev_samp(final_score) / sqrt(count(*)) AS se
                       FROM {BY_CELL['game_seats']} WHERE {{cells}} GROUP BY ALL""")
    out: dict[CellKey, list] = {}
    for row in df.iter_rows(named=True):
        est = stats.mean_interval(_num(row["mean"]), _num(row["se"]), int(row["n"]))
        out.setdefault(_key(row), []).append((int(row["rank"]), est))
    return {k: tuple(out[k]) for k in keys if k in out}


def _standings_spread(q: _Query, keys: Sequence[CellKey]) -> dict[CellKey, Estimate]:
    """Mean over games of the sd of the final scores within a game (as score_spread defines it),
    with its standard error over games."""
    df = q.by_cell(f"""SELECT cell, count(score_sd) AS n, avg(score_sd) AS mean,
                         stddev_samp(score_sd) / sqrt(count(score_sd)) AS se
                       FROM (SELECT cell, game, stddev_samp(final_score) AS score_sd
                             FROM {BY_CELL['game_seats']} WHERE {{cells}} GROUP BY ALL)
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


def _paired(con: duckdb.DuckDBPyConnection,
            comparisons: Sequence[Comparison]) -> tuple[compare.Comparison, ...]:
    """Each comparison as ``unostats compare`` makes it: base as A, the cell as B."""
    loaded = compare.load_cells(con, [compare.CellRef(*key) for c in comparisons
                                      for key in (c.base, c.cell)]) if comparisons else {}
    out = []
    for c in comparisons:
        a, b = loaded[compare.CellRef(*c.base)], loaded[compare.CellRef(*c.cell)]
        if a.games >= 2 and b.games >= 2:
            out.append(compare.compare_cells(a, b))
    return tuple(out)


def _diff_means(a: Summary, b: Summary) -> Estimate:
    return stats.difference_of_means(a.mean.value, a.mean.se, b.mean.value, b.mean.se,
                                      n1=a.n, n2=b.n)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "—" if value is None else str(value)


def _variant_rules(q: _Query) -> dict[CellKey, dict[str, Any]]:
    df = q("SELECT run_id, variant, players, rules_json FROM variants WHERE {runs}")
    return {_key(r): json.loads(r["rules_json"]) for r in df.iter_rows(named=True)}


def _differences(base_rules: Mapping[str, Any], mine: Mapping[str, Any]) -> list[RuleChange]:
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
    return changes


def _rule_changes(rules: Mapping[CellKey, Mapping[str, Any]], cells: Sequence[Cell],
                  base: Mapping[int, Cell], ablation_bases: Mapping[CellKey, tuple[CellKey, str]]
                  ) -> tuple[dict[str, tuple[RuleChange, ...]], dict[str, str]]:
    """variant label -> its rules that differ from the base variant's (an ablation variant's:
    from its own base's), and variant label -> the label it is compared with."""
    if not base:
        return {}, {}
    base_cell = next(iter(base.values()))
    label_of = {c.key: c.label for c in cells}
    out: dict[str, tuple[RuleChange, ...]] = {}
    against: dict[str, str] = {}
    for c in cells:
        if c.label == base_cell.label or c.label in out:
            continue
        other = ablation_bases[c.key][0] if c.key in ablation_bases else base_cell.key
        out[c.label] = tuple(_differences(rules.get(other, {}), rules.get(c.key, {})))
        against[c.label] = label_of.get(other, base_cell.label)
    return out, against


def _ablation_bases(cells: Sequence[Cell]) -> dict[CellKey, tuple[CellKey, str]]:
    """"without" cell -> (its base cell, what it removes), for variants named "<base> without
    <what>" or "<base>-no-<what>" where <base> is another variant of the same run (the longest
    such name when several fit)."""
    variants: dict[str, set[str]] = {}
    keys = {c.key for c in cells}
    for c in cells:
        variants.setdefault(c.key.run_id, set()).add(c.key.variant)
    out = {}
    for c in cells:
        name = c.key.variant
        found = None
        for m in ABLATION_SEPARATOR.finditer(name):
            base_name, what = name[:m.start()], name[m.end():].strip()
            if base_name in variants[c.key.run_id] and base_name != name and what:
                if "without" not in m.group(0).lower():
                    what = re.sub(r"[-_]+", " ", what)  # "zero-slap" -> "zero slap"
                if found is None or len(base_name) > len(found[0]):
                    found = (base_name, what)
        if found is None:
            continue
        base_key = CellKey(c.key.run_id, found[0], c.key.players)
        if base_key in keys:
            out[c.key] = (base_key, found[1])
    return out


def _ablation(cells: Sequence[Cell], ablation_bases: Mapping[CellKey, tuple[CellKey, str]],
              measures: Mapping[str, Measure], round_pos: Mapping[CellKey, PositionRates],
              rules: Mapping[CellKey, Mapping[str, Any]]) -> tuple[AblationEffect, ...]:
    """Rule effects of an ablation: the base (with the rule) minus the variant without it."""
    turns, rounds = measures["round_turns"].summaries, measures["game_rounds"].summaries
    out = []
    for c in cells:
        if c.key not in ablation_bases:
            continue
        b, what = ablation_bases[c.key]
        k = c.key
        if k not in turns or b not in turns or k not in round_pos or b not in round_pos:
            continue
        pb, pk = round_pos[b], round_pos[k]
        out.append(AblationEffect(
            cell=k, base=b, what=what,
            rules=tuple(rc.key for rc in _differences(rules.get(b, {}), rules.get(k, {}))),
            round_length=_diff_means(turns[b], turns[k]),
            first_win=stats.difference_of_proportions(pb.wins[0], pb.n, pk.wins[0], pk.n),
            game_rounds=_diff_means(rounds[b], rounds[k])
            if k in rounds and b in rounds else None))
    return tuple(out)


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
