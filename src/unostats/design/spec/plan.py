"""A checked design (``DesignSpec``): the rule paths it may change and the values each takes
(``SearchKey``), its goals (``Aim``: a constraint on a statistic's interval, or an objective),
its budget; a candidate's rules; when a candidate is out of contention after a look
(``out_of_contention``) and which candidates meet the constraints and are not beaten
(``pareto``). Pure Python: the section builds it, the driver and the summary use it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import rules
from ...stats import Estimate

CONSTRAINTS = ("between", "at_most", "at_least")
OBJECTIVES = ("minimize", "maximize")


@dataclass(frozen=True)
class Aim:
    """One goal: ``how`` is a constraint (``between`` lo and hi, ``at_most`` hi, ``at_least``
    lo: met when the 95% interval lies inside) or an objective (``minimize``, ``maximize``)."""

    goal: str
    how: str
    lo: float = -math.inf
    hi: float = math.inf

    @property
    def objective(self) -> bool:
        return self.how in OBJECTIVES

    def met(self, e: Estimate) -> bool:
        """A constraint met: the interval inside the bounds."""
        return self.lo <= e.lo and e.hi <= self.hi

    def ruled_out(self, e: Estimate) -> bool:
        """A constraint surely broken: the interval wholly outside the bounds."""
        return e.hi < self.lo or e.lo > self.hi

    def violation(self, e: Estimate) -> float:
        """How far the estimate is outside the bounds (<= 0: inside), for the optimiser."""
        if math.isnan(e.value):
            return math.inf
        return max(self.lo - e.value, e.value - self.hi)

    def better(self, a: Estimate, b: Estimate) -> bool:
        """An objective: ``a``'s interval wholly on the better side of ``b``'s."""
        return a.hi < b.lo if self.how == "minimize" else a.lo > b.hi

    def resolved(self) -> Any:
        if self.objective:
            return self.how
        if self.how == "between":
            return {"between": [self.lo, self.hi]}
        return {self.how: self.hi if self.how == "at_most" else self.lo}

    def text(self) -> str:
        if self.objective:
            return f"{self.how} {self.goal}"
        if self.how == "between":
            return f"{self.goal} in [{self.lo:g}, {self.hi:g}]"
        return f"{self.goal} {'<=' if self.how == 'at_most' else '>='} " \
               f"{self.hi if self.how == 'at_most' else self.lo:g}"


@dataclass(frozen=True)
class SearchKey:
    """A rule path the design may change (``rules.hand_size``, ``rules.deck.wild_draw_four``):
    a list of values, or an integer range ``{from, to, step}``."""

    key: str
    short: str  # how a candidate's name shows it: the path's last part, unless two share it
    values: tuple[Any, ...]
    step: int | None = None  # a range's step (its values are from .. to by step); None: a list

    @property
    def target(self) -> tuple[str, ...]:
        """The rule set's key (``("hand_size",)``) or deck key (``("deck", "blank")``)."""
        return tuple(self.key.split(".")[1:])

    def resolved(self) -> Any:
        if self.step is None:
            return list(self.values)
        return {"from": self.values[0], "to": self.values[-1], "step": self.step}


@dataclass(frozen=True)
class DesignSpec:
    players: int
    search: tuple[SearchKey, ...]
    aims: tuple[Aim, ...]
    candidates: int  # candidates the optimiser proposes at most (distinct settings)
    games: int  # the most games any one candidate gets

    @property
    def constraints(self) -> tuple[Aim, ...]:
        return tuple(a for a in self.aims if not a.objective)

    @property
    def objectives(self) -> tuple[Aim, ...]:
        return tuple(a for a in self.aims if a.objective)

    def space_size(self) -> int:
        return math.prod(len(k.values) for k in self.search)

    def shorts(self) -> dict[str, str]:
        return {k.key: k.short for k in self.search}

    def resolved(self) -> dict[str, Any]:
        return {"players": self.players,
                "search": {k.key: k.resolved() for k in self.search},
                "goals": {a.goal: a.resolved() for a in self.aims},
                "budget": {"candidates": self.candidates, "games": self.games}}


def shorts(keys: Sequence[str]) -> dict[str, str]:
    """Each key by its last part (``hand_size``), or in full where two keys share it."""
    last = {k: k.split(".")[-1] for k in keys}
    clash = {v for v in last.values() if list(last.values()).count(v) > 1}
    return {k: (k if last[k] in clash else last[k]) for k in keys}


def candidate_rules(base: rules.RuleSet, point: Mapping[str, Any],
                    searched: Sequence[str] = ()) -> rules.RuleSet:
    """The base rules with a candidate's values set (keys as written, ``rules.X`` or
    ``rules.deck.X``); raises ``rules.RuleError`` for a combination the rules refuse. A base
    ``target_score`` that is its scoring's default follows a searched ``scoring``."""
    merged = base.as_dict()
    for key, value in point.items():
        target = key.split(".")[1:]
        if target[0] == rules.DECK_KEY:
            merged[rules.DECK_KEY] = {**merged[rules.DECK_KEY], target[1]: value}
        else:
            merged[target[0]] = value
    searched = set(searched) | set(point)
    if "rules.scoring" in searched and "rules.target_score" not in searched and \
            base.values["target_score"] == rules.TARGET_SCORE_DEFAULTS[base.values["scoring"]]:
        del merged["target_score"]
    return rules.RuleSet.from_mapping(merged)


@dataclass(frozen=True)
class Out:
    """Why a candidate is out of contention: a constraint its interval lies wholly outside
    (``aim``), or the candidate that beats it on every objective (``by``)."""

    aim: Aim | None = None
    by: str | None = None

    def text(self) -> str:
        if self.aim is not None:
            return f"out: {self.aim.goal} outside its bounds ({self.aim.text()})"
        return f"out: beaten on every objective by {self.by}"


def out_of_contention(spec: DesignSpec, estimates: Mapping[str, Estimate],
                      before: Mapping[str, Mapping[str, Estimate]]) -> Out | None:
    """Why a candidate is out of contention after a look (None: it plays on): a constraint's
    interval wholly outside its bounds, or a candidate judged ``before`` it that meets every
    constraint beats it on every objective (its interval wholly better)."""
    for aim in spec.constraints:
        if aim.ruled_out(estimates[aim.goal]):
            return Out(aim=aim)
    for other, theirs in before.items():
        meets = all(a.met(theirs[a.goal]) for a in spec.constraints)
        if meets and all(a.better(theirs[a.goal], estimates[a.goal]) for a in spec.objectives):
            return Out(by=other)
    return None


def pareto(spec: DesignSpec, found: Mapping[str, Mapping[str, Estimate]]) -> list[str]:
    """The candidates (by name, in ``found``'s order) whose intervals meet every constraint
    and that no other such candidate beats on every objective (its interval wholly better)."""
    feasible = [name for name, e in found.items()
                if all(a.met(e[a.goal]) for a in spec.constraints)
                and not any(math.isnan(e[a.goal].value) for a in spec.objectives)]

    def beats(x: str, y: str) -> bool:
        return all(a.better(found[x][a.goal], found[y][a.goal]) for a in spec.objectives)

    return [y for y in feasible if not any(beats(x, y) for x in feasible if x != y)]
