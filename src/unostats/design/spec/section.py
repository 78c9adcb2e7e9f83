"""The ``design:`` section of a scenario file -> a checked ``DesignSpec``: the players, the rule
paths searched (each value checked against the rule table and, alone, on the file's base
variant at that player count), the goals (known statistics, constraints that can be met, at
least one objective) and the budget. The scenario loader calls it."""

from __future__ import annotations

import math
from typing import Any

from ... import cards, rules
from ...checking.problems import KeyPath, describe, did_you_mean
from ...checking.values import Checker
from .goals import GOALS
from .plan import CONSTRAINTS, OBJECTIVES, Aim, DesignSpec, SearchKey, candidate_rules, shorts

DESIGN_KEYS = ("players", "search", "goals", "budget")
BUDGET_KEYS = ("candidates", "games")
RANGE_KEYS = ("from", "to", "step")
PLAYERS_RANGE = (2, 10)  # rule S1
CANDIDATES_MAX = 10_000  # each candidate is a cell of the run
GAMES_MAX = 10**9  # games of one candidate
VALUES_MAX = 1_000  # values of one searched key
_HOW = (f"a rule path rules.NAME (NAME a rule of docs/rules.md, e.g. rules.hand_size) or "
        f"rules.deck.KIND (KIND one of {', '.join(cards.DECK_KEYS)})")


class DesignSection(Checker):
    """Checks one ``design:`` mapping against the file's base variant and builds its spec."""

    def design(self, value: Any, base: rules.RuleSet | None) -> DesignSpec | None:
        path: KeyPath = ("design",)
        if not self.section(value, path, DESIGN_KEYS, DESIGN_KEYS):
            return None
        lo, hi = PLAYERS_RANGE
        players = self._int(value["players"], path + ("players",), lo, hi,
                            f"a player count from {lo} to {hi}") if "players" in value else None
        search = self.search(value["search"], path + ("search",), base, players) \
            if "search" in value else None
        aims = self.goals(value["goals"], path + ("goals",)) if "goals" in value else None
        budget = self.budget(value["budget"], path + ("budget",)) if "budget" in value else None
        if None in (players, search, aims, budget):
            return None
        return DesignSpec(players=players, search=search, aims=aims, candidates=budget[0],
                          games=budget[1])

    # -- search ----------------------------------------------------------------------------
    def search(self, value: Any, path: KeyPath, base: rules.RuleSet | None,
               players: int | None) -> tuple[SearchKey, ...] | None:
        if not isinstance(value, dict) or not value:
            self.add(path, "expected a mapping of rule paths to the values they may take (a "
                           "list, or an integer range {from, to, step}), e.g. "
                           f"{{rules.hand_size: {{from: 5, to: 9}}}}; got {describe(value)}")
            return None
        names = shorts([k for k in value if isinstance(k, str)])
        keys = [self.search_key(k, v, path + (k,), names.get(k, str(k)), base, players)
                for k, v in value.items()]
        # in the order of their paths: the canonical form's, so a resumed run names and
        # proposes its candidates as the first session did
        return None if None in keys else tuple(sorted(keys, key=lambda k: k.key))

    def search_key(self, key: Any, value: Any, path: KeyPath, short: str,
                   base: rules.RuleSet | None, players: int | None) -> SearchKey | None:
        option = self.rule_path(key, path)
        if option is False:
            return None
        if isinstance(value, dict):
            found = self.range(value, path, option)
            if found is None:
                return None
            values, step = found
        elif isinstance(value, list) and value:
            values, step = tuple(value), None
            ok = True
            for i, v in enumerate(values):
                message = _check(option, key, v)
                if message is None and v in values[:i]:
                    message = f"{describe(v)} repeats item {values.index(v)}; give each once"
                if message:
                    self.add(path + (i,), message)
                    ok = False
            if not ok:
                return None
        else:
            self.add(path, "expected a non-empty list of values or an integer range {from, to, "
                           f"step}}; got {describe(value)}")
            return None
        if len(values) > VALUES_MAX:
            self.add(path, f"{len(values):,} values: a searched key takes at most {VALUES_MAX:,}")
            return None
        if base is not None and players is not None and not self.on_base(
                key, values, step, path, base, players):
            return None
        return SearchKey(key, short, values, step)

    def rule_path(self, key: Any, path: KeyPath) -> rules.RuleOption | None | bool:
        """The rule option a path names (None: a deck count), or False (reported)."""
        parts = key.split(".") if isinstance(key, str) else []
        if parts[:1] == [rules.DECK_KEY] or (parts[:1] == ["rules"] and len(parts) == 2
                                              and parts[1] in cards.DECK_KEYS):
            hint = "rules.deck." + parts[-1]
            self.add(path, f"{key!r} cannot be searched: did you mean {hint!r}? expected {_HOW}")
            return False
        if len(parts) == 3 and parts[:2] == ["rules", rules.DECK_KEY]:
            if parts[2] in cards.DECK_KEYS:
                return None
            self.add(path, f"unknown card kind {parts[2]!r}; "
                           f"{did_you_mean(parts[2], tuple(cards.DECK_KEYS))}allowed: "
                           f"{', '.join(cards.DECK_KEYS)}")
            return False
        if len(parts) != 2 or parts[0] != "rules":
            self.add(path, f"{key!r} cannot be searched: expected {_HOW}")
            return False
        option = rules.RULES_BY_KEY.get(parts[1])
        if option is None:
            names = tuple(o.key for o in rules.RULE_OPTIONS)
            self.add(path, f"unknown rule {parts[1]!r}; {did_you_mean(parts[1], names)}"
                           f"allowed: {', '.join(names)}")
            return False
        return option

    def range(self, value: dict, path: KeyPath, option: rules.RuleOption | None
              ) -> tuple[tuple[int, ...], int] | None:
        if option is not None and option.int_range is None:
            self.add(path, f"{option.key} takes {option.allowed_text()}: give them as a list, "
                           "not a range")
            return None
        self.report.keys(value, path, RANGE_KEYS, ("from", "to"), what="range key")
        if any(k not in RANGE_KEYS for k in value) or "from" not in value or "to" not in value:
            return None
        lo, hi = option.int_range if option is not None else rules.DECK_RANGE
        what = f"an integer from {lo} to {hi}"
        start = self._int(value["from"], path + ("from",), lo, hi, what)
        end = self._int(value["to"], path + ("to",), lo, hi, what)
        step = self._int(value.get("step", 1), path + ("step",), 1, hi - lo or 1,
                         f"an integer step from 1 to {hi - lo or 1}")
        if None in (start, end, step):
            return None
        if end < start:
            self.add(path + ("to",), f"{end} is below from ({start}): an empty range; expected "
                                     "to >= from")
            return None
        return tuple(range(start, end + 1, step)), step

    def on_base(self, key: str, values: tuple[Any, ...], step: int | None, path: KeyPath,
                base: rules.RuleSet, players: int) -> bool:
        """Each value alone on the base variant: a rule conflict or a deck too small for the
        players is reported at the value (a range's: at the key, saying which value)."""
        ok = True
        for i, v in enumerate(values):
            try:
                message = candidate_rules(base, {key: v}).check_players(players)
            except rules.RuleError as e:
                message = "; ".join(f"{k}: {m}" for k, m in e.problems)
            if message:
                where = path + (i,) if step is None else path
                self.add(where, message if step is None else f"at {v}: {message}")
                ok = False
        return ok

    # -- goals -----------------------------------------------------------------------------
    def goals(self, value: Any, path: KeyPath) -> tuple[Aim, ...] | None:
        if not isinstance(value, dict) or not value:
            self.add(path, "expected a mapping of statistics to goals (minimize, maximize, "
                           "{between: [lo, hi]}, {at_most: x}, {at_least: x}); statistics: "
                           f"{', '.join(GOALS)}; got {describe(value)}")
            return None
        self.report.keys(value, path, tuple(GOALS), what="statistic")
        aims = [self.aim(k, v, path + (k,)) for k, v in value.items() if k in GOALS]
        if len(aims) != len(value) or None in aims:
            return None
        if not any(a.objective for a in aims):
            self.add(path, "no objective: give at least one statistic to minimize or "
                           "maximize (the others may be constraints)")
            return None
        return tuple(sorted(aims, key=lambda a: a.goal))  # the canonical form's order

    def aim(self, goal: str, value: Any, path: KeyPath) -> Aim | None:
        lo, hi = GOALS[goal].possible
        expected = (f"{' or '.join(OBJECTIVES)}, or a mapping with one of "
                    f"{', '.join(CONSTRAINTS)} ({{between: [lo, hi]}}, {{at_most: x}}, "
                    "{at_least: x})")
        if isinstance(value, str):
            if value in OBJECTIVES:
                return Aim(goal, value)
            self.add(path, f"unknown goal {value!r}; {did_you_mean(value, OBJECTIVES)}"
                           f"expected {expected}")
            return None
        if not isinstance(value, dict) or len(value) != 1:
            self.add(path, f"expected {expected}; got {describe(value)}")
            return None
        (how, bound), = value.items()
        if how not in CONSTRAINTS:
            self.add(path + (how,), f"unknown constraint {how!r}; "
                                    f"{did_you_mean(how, CONSTRAINTS)}allowed: "
                                    f"{', '.join(CONSTRAINTS)}")
            return None
        where = path + (how,)
        if how == "between":
            if not isinstance(bound, list) or len(bound) != 2:
                self.add(where, f"expected [lo, hi], two numbers; got {describe(bound)}")
                return None
            low, high = (self._bound(b, where + (i,)) for i, b in enumerate(bound))
            if low is None or high is None:
                return None
            if low >= high:
                self.add(where, f"[{low:g}, {high:g}] is an impossible range: expected lo < hi")
                return None
        else:
            x = self._bound(bound, where)
            if x is None:
                return None
            low, high = (-math.inf, x) if how == "at_most" else (x, math.inf)
        if high < lo or low > hi:
            self.add(where, f"{goal} takes values from {lo:g} to {hi:g}: this constraint can "
                            "never be met")
            return None
        return Aim(goal, how, low, high)

    def _bound(self, value: Any, path: KeyPath) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            self.add(path, f"expected a number, got {describe(value)}")
            return None
        return float(value)

    # -- budget ----------------------------------------------------------------------------
    def budget(self, value: Any, path: KeyPath) -> tuple[int, int] | None:
        if not isinstance(value, dict):
            self.add(path, f"expected a mapping with keys {', '.join(BUDGET_KEYS)}, e.g. "
                           f"{{candidates: 200, games: 20000}}; got {describe(value)}")
            return None
        self.report.keys(value, path, BUDGET_KEYS, BUDGET_KEYS)
        candidates = self._int(value["candidates"], path + ("candidates",), 1, CANDIDATES_MAX,
                               f"an integer from 1 to {CANDIDATES_MAX:,} (settings tried)") \
            if "candidates" in value else None
        games = self._int(value["games"], path + ("games",), 1, GAMES_MAX,
                          f"an integer from 1 to {GAMES_MAX:,} (the most games a candidate "
                          "gets)") if "games" in value else None
        return None if None in (candidates, games) else (candidates, games)


def _check(option: rules.RuleOption | None, key: str, value: Any) -> str | None:
    """The rule table's word on one value of a searched rule or deck count."""
    if option is not None:
        return rules.check_value(option, value)
    problems = rules.check_deck({key.split(".")[-1]: value})
    return problems[0][1] if problems else None
