"""Checking values of a parsed scenario: strings, integers and numbers in a range, seats (policy and
behaviour) and lists of mappings, each problem reported at its key path. The resolver and the
tournament section build on this."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import rules, seats
from ..seats import SearchPolicy, Seat, WeightedPolicy
from .problems import KeyPath, Report, describe, did_you_mean

SEAT_KEYS = ("policy", "behaviour")
POLICY_KEYS = ("name", "weights", "colour", "ties")  # a policy written as data
SEARCH_KEYS = ("name", "search", "budget", "playout", "sees", "goal", "colours")  # the expert
MAX_WEIGHT = 1e9  # weights beyond it could make scores lose every smaller term
# What a behaviour's value may be (rules.BEHAVIOUR docs): a probability, but for the names here.
PROBABILITY = ("a probability from 0 to 1", lambda v: 0 <= v <= 1)
OTHER_BEHAVIOURS = {
    "reaction": ("a positive weight", lambda v: v > 0),
    "keep_drawn": ("a number of cards (a whole number from 0)", lambda v: v >= 0 and v == int(v)),
}


class Checker:
    """Checks values against what a scenario allows; problems go to ``report``."""

    def __init__(self, report: Report):
        self.report = report
        self.add = report.add

    # -- a kind's section ----------------------------------------------------------------
    def section(self, value: Any, path: KeyPath, keys: Sequence[str],
                required: Sequence[str] = ()) -> bool:
        """Whether a kind's section (``design:``, ``league:`` ...) is a mapping, its unknown
        keys and missing required ones reported (what every section's check starts with)."""
        if not isinstance(value, dict):
            self.add(path, f"expected a mapping with keys {', '.join(keys)}, got "
                           f"{describe(value)}")
            return False
        self.report.keys(value, path, keys, required)
        return True

    # -- scalars -------------------------------------------------------------------------
    def _string(self, raw: Mapping, key: str, path: KeyPath, default: str | None = None):
        value = raw.get(key, default)
        if value is None and default is not None:
            return default
        if not isinstance(value, str) or (key == "name" and not value.strip()):
            self.add(path + (key,), f"expected a non-empty string, got {describe(value)}"
                     if key == "name" else f"expected a string, got {describe(value)}")
            return None
        return value

    def _int(self, value: Any, path: KeyPath, lo: int, hi: int, what: str) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"expected {what}, got {describe(value)}")
            return None
        if not lo <= value <= hi:
            self.add(path, f"{value} is out of range: expected {what}")
            return None
        return value

    def _number(self, value: Any, path: KeyPath, lo: float, hi: float, what: str
                ) -> float | None:
        """A finite number (integer or decimal, not a boolean) from lo to hi, as a float."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.add(path, f"expected {what}, got {describe(value)}")
            return None
        if not (math.isfinite(value) and lo <= value <= hi):
            self.add(path, f"{value} is out of range: expected {what}")
            return None
        return float(value)

    # -- seats ---------------------------------------------------------------------------
    def seat(self, value: Any, path: KeyPath) -> Seat | None:
        if not isinstance(value, dict):
            self.add(path, f"expected a seat mapping with keys {', '.join(SEAT_KEYS)}, "
                           f"got {describe(value)}")
            return None
        self.report.keys(value, path, SEAT_KEYS)
        policy = self.policy(value.get("policy", "random"), path + ("policy",))
        ok = policy is not None
        behaviour = behaviour_defaults()
        given = value.get("behaviour")
        given = {} if given is None else given
        if not isinstance(given, dict):
            self.add(path + ("behaviour",), "expected a mapping of behaviour names to "
                     f"probabilities, got {describe(given)}")
            return None
        self.report.keys(given, path + ("behaviour",), tuple(rules.BEHAVIOUR), what="behaviour")
        for name, prob in given.items():
            if name not in rules.BEHAVIOUR:
                ok = False
                continue
            checked = self.behaviour_value(name, prob, path + ("behaviour", name))
            ok = ok and checked is not None
            behaviour[name] = checked
        return make_seat(policy, behaviour) if ok else None

    def policy(self, value: Any, path: KeyPath) -> str | WeightedPolicy | SearchPolicy | None:
        """A bundled policy's name, a policy written as data (a mapping of POLICY_KEYS) or a
        search (a mapping of SEARCH_KEYS, told by any key of its own)."""
        if isinstance(value, dict) and set(value) & (set(SEARCH_KEYS) - {"name"}):
            return self.search_policy(value, path)
        if isinstance(value, dict):
            return self.weighted_policy(value, path)
        if value not in rules.POLICIES:
            self.add(path, f"unknown policy {value!r}; {did_you_mean(value, rules.POLICIES)}"
                           f"allowed: {', '.join(rules.POLICIES)}, or a mapping with keys "
                           f"{', '.join(POLICY_KEYS)} (a policy written as data) or "
                           f"{', '.join(SEARCH_KEYS)} (a search: the expert)")
            return None
        return value

    def search_policy(self, value: dict, path: KeyPath) -> SearchPolicy | None:
        """The expert: ``search`` rollouts, ``budget`` deals per choice of card, the
        ``playout`` policy (a bundled one), what it ``sees`` and its ``goal``
        (seats.SearchPolicy)."""
        problems = len(self.report.problems)
        self.report.keys(value, path, SEARCH_KEYS, required=("name",))
        name = self._string(value, "name", path) if "name" in value else None
        if name in rules.POLICIES:
            self.add(path + ("name",), f"{name!r} is a bundled policy's name; a search needs a "
                                       "name of its own")
        choices = self.search_choices(value, path, tuple(
            (key, allowed, allowed[0]) for key, allowed in (
                ("search", seats.SEARCHES), ("playout", rules.POLICIES), ("sees", seats.SEES),
                ("goal", seats.GOALS), ("colours", seats.COLOURS))))
        budget = self.search_budget(value, path)
        if len(self.report.problems) > problems:
            return None
        return SearchPolicy(name, budget=budget, **choices)

    def search_choices(self, value: Mapping, path: KeyPath,
                       keys: Sequence[tuple[str, Sequence[str], str]]) -> dict[str, str]:
        """A search's named choices (key, allowed values, default), each refused with the
        allowed values when unknown (an expert seat's and a skill ladder's)."""
        choices = {}
        for key, allowed, default in keys:
            choice = value.get(key, default)
            if choice not in allowed:
                self.add(path + (key,), f"unknown value {choice!r}; "
                         f"{did_you_mean(choice, allowed)}allowed: {', '.join(allowed)}")
            choices[key] = choice
        return choices

    def search_budget(self, value: Mapping, path: KeyPath) -> int | None:
        """A search's ``budget``: deals sampled per choice of card (``seats.BUDGET_RANGE``)."""
        lo, hi = seats.BUDGET_RANGE
        return self._int(value.get("budget", seats.DEFAULT_BUDGET), path + ("budget",), lo, hi,
                         f"an integer from {lo} to {hi} (deals sampled per choice of card)")

    def weighted_policy(self, value: dict, path: KeyPath) -> WeightedPolicy | None:
        problems = len(self.report.problems)
        self.report.keys(value, path, POLICY_KEYS, required=("name",))
        name = self._string(value, "name", path) if "name" in value else None
        if name in rules.POLICIES:
            self.add(path + ("name",), f"{name!r} is a bundled policy's name; a policy "
                                       "written as data needs a name of its own")
        weights = value.get("weights")
        weights = {} if weights is None else weights
        if not isinstance(weights, dict):
            self.add(path + ("weights",), "expected a mapping of features to numbers, got "
                                          f"{describe(weights)}")
            weights = {}
        self.report.keys(weights, path + ("weights",), seats.FEATURES, what="feature")
        checked = {}
        for feature, w in weights.items():
            if feature in seats.FEATURES:
                checked[feature] = self._number(w, path + ("weights", feature), -MAX_WEIGHT,
                                                MAX_WEIGHT, f"a number from {-MAX_WEIGHT:g} "
                                                            f"to {MAX_WEIGHT:g}")
        choices = {}
        for key, allowed in (("colour", seats.COLOUR_CHOICES), ("ties", seats.TIE_BREAKS)):
            choice = value.get(key, allowed[0])
            if choice not in allowed:
                self.add(path + (key,), f"unknown value {choice!r}; "
                         f"{did_you_mean(choice, allowed)}allowed: {', '.join(allowed)}")
            choices[key] = choice
        if len(self.report.problems) > problems:
            return None
        return WeightedPolicy.of(name, checked, **choices)

    def one_policy_per_name(self, seats: Sequence[tuple[KeyPath, Seat]]) -> bool:
        """Two seats whose policies share a name (the results' ``policy`` column) must play the
        same policy; False (and a problem at the later seat) when they do not."""
        first: dict[str, Seat] = {}
        ok = True
        for path, seat in seats:
            other = first.setdefault(seat.policy, seat)
            if other.weighted != seat.weighted or other.search != seat.search:
                self.add(path + ("policy",), f"another seat's policy is named {seat.policy!r} "
                                             "with other weights or rules: give each policy a "
                                             "name of its own")
                ok = False
        return ok

    def behaviour_value(self, name: str, value: Any, path: KeyPath) -> float | None:
        what, allowed = OTHER_BEHAVIOURS.get(name, PROBABILITY)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.add(path, f"expected {what}, got {describe(value)}")
            return None
        if not math.isfinite(value) or not allowed(value):
            self.add(path, f"{value} is out of range: expected {what}")
            return None
        return float(value)

    # -- lists ---------------------------------------------------------------------------
    def _non_empty_list(self, value: Any, path: KeyPath, expected: str) -> bool:
        if isinstance(value, list) and value:
            return True
        self.add(path, f"expected {expected}; got {describe(value)}")
        return False

    def _mappings(self, items: list, path: KeyPath, what: str, keys: Sequence[str]
                  ) -> Iterator[tuple[int, KeyPath, dict]]:
        """(index, path, item) for each mapping of a list; any other item is reported."""
        for i, item in enumerate(items):
            if isinstance(item, dict):
                yield i, path + (i,), item
            else:
                self.add(path + (i,), f"expected {what} with keys {', '.join(keys)}, "
                                      f"got {describe(item)}")


def make_seat(policy: str | WeightedPolicy | SearchPolicy, behaviour: dict[str, float]) -> Seat:
    return Seat.playing(policy, behaviour)


def behaviour_defaults() -> dict[str, float]:
    return {name: float(default) for name, (default, _) in rules.BEHAVIOUR.items()}
