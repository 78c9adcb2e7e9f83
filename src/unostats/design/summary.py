"""What a design run answers, read from the store: every candidate's goals with their 95%
intervals (from all its stored games), the candidates that meet the constraints and that no
other beats on every objective (the Pareto set), as the table ``simulate`` and ``unostats
design`` print, as rows (csv, json) and as a scenario file whose variants are the Pareto set,
ready to simulate."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .. import rules, store
from ..base.session import stored_scenario
from ..output import Column, Numeral, format_interval, format_rows, format_table
from ..scenario import Scenario
from ..stats import Estimate
from .spec import goals
from .spec.plan import pareto


@dataclass(frozen=True)
class Candidate:
    name: str
    settings: dict[str, Any]  # the searched keys as written -> the candidate's values
    rules: rules.RuleSet
    games: int
    estimates: dict[str, Estimate]


@dataclass(frozen=True)
class DesignResult:
    run_id: str
    scenario: Scenario
    candidates: tuple[Candidate, ...]  # in the order they were proposed
    pareto: tuple[Candidate, ...]

    @property
    def games(self) -> int:
        return sum(c.games for c in self.candidates)

    @property
    def feasible(self) -> int:
        return sum(all(a.met(c.estimates[a.goal]) for a in self.scenario.design.constraints)
                   for c in self.candidates)


def design_result(con, run_id: str) -> DesignResult:
    """A design run's candidates and Pareto set, from its stored games."""
    scenario = stored_scenario(store.run_info(con, run_id))
    spec = scenario.design
    cells = con.execute("SELECT variant, rules_json, sweep FROM variants WHERE run_id = ? "
                        "ORDER BY rowid", [run_id]).fetchall()
    sums = goals.cell_sums(con, store.sums.cell_sums, run_id)
    candidates = []
    for name, rules_json, sweep in cells:
        cell_sums = sums.get(name, goals.zero_sums())
        candidates.append(Candidate(
            name, json.loads(sweep), rules.RuleSet.from_mapping(json.loads(rules_json)),
            int(cell_sums["games"]),
            goals.estimates(cell_sums, spec.players, scenario.seconds_per_turn)))
    best = set(pareto(spec, {c.name: c.estimates for c in candidates}))
    return DesignResult(run_id, scenario, tuple(candidates),
                        tuple(c for c in candidates if c.name in best))


def design_results(*, db: str | os.PathLike, run_ids: Sequence[str]) -> list[DesignResult]:
    con = store.open_store(Path(db), read_only=True)
    try:
        return [design_result(con, run_id) for run_id in run_ids]
    finally:
        con.close()


# --- As text -------------------------------------------------------------------------------------

def pareto_rows(result: DesignResult) -> tuple[list[str], list[list[Any]]]:
    """The Pareto set as rows: run, candidate, each searched key, games, each goal's value
    and 95% interval."""
    spec = result.scenario.design
    columns = ["run_id", "candidate", *(k.key for k in spec.search), "games"]
    for aim in spec.aims:
        columns += [aim.goal, f"{aim.goal}_lo", f"{aim.goal}_hi"]
    rows = []
    for c in result.pareto:
        row = [result.run_id, c.name, *(c.settings[k.key] for k in spec.search), c.games]
        for aim in spec.aims:
            e = c.estimates[aim.goal]
            row += [e.value, e.lo, e.hi]
        rows.append(row)
    return columns, rows


def format_design(result: DesignResult, fmt: str = "table", width: int | None = None) -> str:
    """The Pareto set (a table for people, with a line that says what was searched and how the
    intervals are made; csv and json: ``pareto_rows``)."""
    columns, rows = pareto_rows(result)
    if fmt != "table":
        return format_rows(columns, rows, fmt)
    spec = result.scenario.design
    table = [Column("candidate", 0, lambda c: c.name, wrap=True),
             Column("games", 2, lambda c: c.games)]
    for rank, aim in enumerate(spec.aims, start=1):
        table.append(Column(f"{aim.goal} [95% CI]", 0 if aim.objective else rank,
                            lambda c, g=aim.goal: Numeral(format_interval(
                                c.estimates[g].value, c.estimates[g].lo, c.estimates[g].hi))))
    head = (f"design run {result.run_id}: {len(result.candidates)} candidates, "
            f"{result.games:,} games; {result.feasible} meet every constraint "
            f"({'; '.join(a.text() for a in spec.constraints) or 'none given'}); Pareto set "
            f"({'; '.join(a.text() for a in spec.objectives)}): {len(result.pareto)}\n")
    if not result.pareto:
        return head + "no candidate meets every constraint with its 95% interval inside\n"
    methods = sorted({f"{a.goal}: {result.pareto[0].estimates[a.goal].method}"
                      for a in spec.aims})
    return (head + format_table(table, result.pareto, width)
            + "95% intervals; " + "; ".join(methods) + "\n")


def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """What ``simulate`` prints for finished design runs: each run's Pareto set."""
    return "\n".join(format_design(r, fmt, width)
                     for r in design_results(db=db, run_ids=run_ids))


# --- As a scenario -------------------------------------------------------------------------------

def scenario_yaml(result: DesignResult) -> str:
    """A scenario file (YAML) whose variants are the Pareto set: each candidate's rules as
    they differ from the official ones, its goals' intervals in its description."""
    scenario = result.scenario
    spec = scenario.design
    resolved = scenario.resolved()
    variants = []
    for c in result.pareto:
        shown = "; ".join(f"{a.goal} {_interval(c.estimates[a.goal])}" for a in spec.aims)
        variants.append({"name": c.name, "description": f"design run {result.run_id}, "
                                                        f"{c.games:,} games: {shown}",
                         "rules": _differences(c.rules)})
    doc = {"name": f"{scenario.name} (Pareto set)",
           "description": f"The Pareto set of design run {result.run_id} of "
                          f"{scenario.name!r}: {'; '.join(a.text() for a in spec.aims)}.",
           "seed": scenario.seed, "games": spec.games, "players": spec.players,
           "seconds_per_turn": scenario.seconds_per_turn, "seats": resolved["seats"],
           "variants": variants}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def _interval(e: Estimate) -> str:
    return format_interval(e.value, e.lo, e.hi)


def _differences(ruleset: rules.RuleSet) -> dict[str, Any]:
    """The rules of ``ruleset`` that differ from the official ones (a ``target_score`` only
    when it is not its scoring's default; the deck's counts that differ)."""
    official = rules.RuleSet.from_mapping({})
    out = {k: v for k, v in ruleset.values.items() if v != official.values[k]
           and k != "target_score"}
    if ruleset.values["target_score"] != rules.TARGET_SCORE_DEFAULTS[ruleset.values["scoring"]]:
        out["target_score"] = ruleset.values["target_score"]
    deck = {k: v for k, v in ruleset.deck.items() if v != official.deck[k]}
    if deck:
        out[rules.DECK_KEY] = deck
    return out
