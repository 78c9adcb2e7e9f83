"""The ``skill:`` section of a scenario of plain games: a ladder of policies, each seated once at
a table of the scenario's ``seats:`` (random unless it says otherwise), so a run measures how much
of each variant is skill (``games.ladder`` reads the runs back). Each rung is a cell of its own,
its variant named ``VARIANT/RUNG``; the rung's seat is seat 0, and the engine draws the first
dealer of every game by lot, so the seat plays first as often as any other.

A rung is a bundled policy's name, a policy written as data (e.g. the weights ``tune`` found),
``expert`` (the search of seats.SearchPolicy at the section's ``budget``, ``playout`` and
``goal``, seeing its own hand) or ``clairvoyant`` (the same search with ``sees: all``)::

    skill:
      ladder: [random, strategist, expert, clairvoyant]   # the default
      budget: 32          # deals per choice of card of the expert and the clairvoyant
      playout: strategist # their playout policy (a bundled one)
      goal: score         # what their playouts count (seats.GOALS)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import rules, seats
from ..checking.problems import KeyPath, describe, did_you_mean
from ..checking.values import Checker, make_seat
from ..seats import SearchPolicy, Seat, WeightedPolicy

SKILL_KEYS = ("ladder", "budget", "playout", "goal")
SEARCH_RUNGS = ("expert", "clairvoyant")  # the search seeing its own hand, and every card
DEFAULT_LADDER = ("random", "strategist", "expert", "clairvoyant")
DEFAULT_PLAYOUT = "strategist"
RUNG_SEP = "/"  # a rung's cell is the variant ``VARIANT/RUNG``


@dataclass(frozen=True)
class Ladder:
    """The rungs in order, each its name and the policy of its one seat."""

    rungs: tuple[tuple[str, str | WeightedPolicy | SearchPolicy], ...]
    budget: int
    playout: str
    goal: str

    def seats(self, policy: str | WeightedPolicy | SearchPolicy,
              table: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The table with seat 0 playing ``policy`` (its behaviour the table's)."""
        return (make_seat(policy, dict(table[0].behaviour)), *table[1:])

    def resolved(self) -> dict[str, Any]:
        """The section as a file writes it (a stored run's scenario loads again from it)."""
        return {"ladder": [p if isinstance(p, str) else p.as_dict() for _, p in self.rungs],
                "budget": self.budget, "playout": self.playout, "goal": self.goal}


def cell_name(variant: str, rung: str) -> str:
    return f"{variant}{RUNG_SEP}{rung}"


def rung_names(resolved: Mapping[str, Any]) -> list[str]:
    """The rungs' names of a resolved ``skill:`` section (``Ladder.resolved``)."""
    return [r if isinstance(r, str) else r["name"] for r in resolved["ladder"]]


class SkillSection(Checker):
    """Checks one ``skill:`` mapping and builds its Ladder."""

    def skill(self, value: Any) -> Ladder | None:
        path: KeyPath = ("skill",)
        if not isinstance(value, dict):
            self.add(path, f"expected a mapping with keys {', '.join(SKILL_KEYS)}, got "
                           f"{describe(value)}")
            return None
        problems = len(self.report.problems)
        self.report.keys(value, path, SKILL_KEYS)
        choices = self.search_choices(value, path, (
            ("playout", rules.POLICIES, DEFAULT_PLAYOUT), ("goal", seats.GOALS, seats.GOALS[0])))
        budget = self.search_budget(value, path)
        ladder = value.get("ladder", list(DEFAULT_LADDER))
        if len(self.report.problems) > problems:
            return None
        rungs = self.rungs(ladder, path + ("ladder",), budget, **choices)
        return None if rungs is None else Ladder(rungs, budget, **choices)

    def rungs(self, value: Any, path: KeyPath, budget: int, playout: str, goal: str):
        allowed = (f"a bundled policy ({', '.join(rules.POLICIES)}), "
                   f"{' or '.join(SEARCH_RUNGS)}, or a policy mapping (a policy written as data)")
        if not isinstance(value, list) or len(value) < 2:
            self.add(path, f"expected a list of at least two rungs, each {allowed}; got "
                           f"{describe(value)}")
            return None
        out, seen = [], {}
        for i, item in enumerate(value):
            if item in SEARCH_RUNGS:
                policy = SearchPolicy(item, budget=budget, playout=playout, goal=goal,
                                      sees="all" if item == "clairvoyant" else "own")
            elif isinstance(item, str) and item not in rules.POLICIES:
                names = (*rules.POLICIES, *SEARCH_RUNGS)
                self.add(path + (i,), f"unknown rung {item!r}; {did_you_mean(item, names)}"
                                      f"allowed: {allowed}")
                continue
            else:
                policy = self.policy(item, path + (i,))
                if policy is None:
                    continue
            name = policy if isinstance(policy, str) else policy.name
            if name in seen:
                self.add(path + (i,), f"rung {name!r} repeats rung {seen[name]}: each rung "
                                      "once")
                continue
            seen[name] = i
            out.append((name, policy))
        return tuple(out) if len(out) == len(value) else None


def check_table(report, raw: Mapping, seats_value) -> None:
    """A ladder's table is one ``seats:`` mapping (the rung takes seat 0 of it), and its cells
    are the ladder's: a list of seats or a sweep is refused (a tournament, league or design is
    refused by the loader, which reads those first)."""
    if "sweep" in raw:
        report.add(("sweep",), "not used with skill: a ladder's cells are variant x player "
                               "count x rung; remove one of the sections")
    if isinstance(seats_value, tuple):
        report.add(("seats",), "with skill: give one seat mapping for every seat (the rung "
                               "plays seat 0, the others this mapping), not a list")
