"""Validation and resolution: a parsed file -> a ``Scenario`` (the top level, player counts,
seats, variants and their ``extends`` chains through earlier variants and bundled presets), and
loading a file or a text with every problem reported at once, in file order."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import cards, durations, rules
from ..checking.problems import (
    KeyPath,
    Origins,
    Problem,
    Report,
    ScenarioError,
    describe,
    did_you_mean,
)
from ..checking.values import Checker, behaviour_defaults, make_seat
from ..defaults import GAMES_MAX
from ..design.spec.goals import GOALS
from ..design.spec.section import DesignSection
from ..leagues.spec.section import LeagueSection
from ..tournaments.spec.section import TournamentSection
from .bundled import bundled_presets, locate_scenario
from .files import read_scenario_file
from .ladder import SkillSection, check_table
from .model import Scenario, Variant
from .overrides import apply
from .sweep import expand as expand_sweep
from .yaml_lines import parse_yaml

TOP_KEYS = ("name", "description", "seed", "games", "players", "seats", "variants", "tournament",
            "league", "design", durations.KEY, "sweep", "precision", "skill", "how_it_plays")
# ``precision: {STAT: H}``: play each cell until the 95% half-width of STAT is at most H
PRECISION_STATS = ("turns_per_round", "rounds_per_game", "points_per_round",
                   "first_player_share")
REQUIRED_TOP_KEYS = ("name", "games", "players", "variants")
REQUIRED_TOURNAMENT_TOP_KEYS = ("name", "games", "variants")
REQUIRED_DESIGN_TOP_KEYS = ("name", "variants", "design")
VARIANT_KEYS = ("name", "description", "extends", "rules")
PLAYERS_RANGE = (2, 10)  # rule S1
SEED_MAX = 2**63 - 1
MAX_PRESET_DEPTH = 16  # presets extending presets; the bundled ones go 2 deep


class _Resolver(Checker):
    """Validates one parsed file and resolves its variants (presets are loaded on demand)."""

    def __init__(self, report: Report, preset_stack: tuple[str, ...]):
        super().__init__(report)
        self.preset_stack = preset_stack
        self.presets: dict[str, Scenario | None] = {}  # loaded once per file; None = broken

    # -- top level -----------------------------------------------------------------------
    def scenario(self, raw: Any) -> dict[str, Any] | None:
        if raw is None:
            self.add((), "the file is empty; expected a mapping with keys "
                         f"{', '.join(TOP_KEYS)}")
            return None
        if not isinstance(raw, dict):
            self.add((), f"the top level must be a mapping with keys {', '.join(TOP_KEYS)}; "
                         f"got {describe(raw) if not isinstance(raw, list) else 'a list'}")
            return None
        is_tournament = "tournament" in raw
        is_league = "league" in raw and not is_tournament
        is_design = "design" in raw and not is_tournament and not is_league
        if "skill" in raw and (is_tournament or is_league or is_design):
            self.add(("skill",), "not used in a tournament, league or design scenario: a "
                                 "ladder plays plain games; remove it")
        if "design" in raw and not is_design:
            self.add(("design",), "a scenario is a tournament, a league or a design, one of "
                                  "them; remove the other sections")
        self.report.keys(raw, (), TOP_KEYS, REQUIRED_DESIGN_TOP_KEYS if is_design
                         else REQUIRED_TOURNAMENT_TOP_KEYS if is_tournament or is_league
                         else REQUIRED_TOP_KEYS)
        out: dict[str, Any] = {
            "name": self._string(raw, "name", ()) if "name" in raw else None,
            "description": self._string(raw, "description", (), default=""),
            "seed": None,
            "games": None,
            "players": None,
            "tournament": None,
            "league": None,
            "design": None,
            "how_it_plays": self.how_it_plays(raw, is_tournament, is_league),
        }
        if raw.get("seed") is not None:
            out["seed"] = self._int(raw["seed"], ("seed",), 0, SEED_MAX,
                                    f"an integer from 0 to {SEED_MAX}")
        if "games" in raw and not is_design:
            out["games"] = self._int(raw["games"], ("games",), 1, GAMES_MAX,
                                     "an integer >= 1 (tournaments per variant and field)"
                                     if is_tournament else "an integer >= 1 (games per table "
                                     "size, rounded up to whole cycles of its seatings)"
                                     if is_league else "an integer >= 1 (games per cell)")
        out["variants"] = self.variants(raw["variants"]) if "variants" in raw else None
        out[durations.KEY] = durations.SECONDS_PER_TURN_DEFAULT if raw.get(durations.KEY) is None \
            else self._number(raw[durations.KEY], (durations.KEY,),
                              *durations.SECONDS_PER_TURN_RANGE, durations.ALLOWED_TEXT)
        if is_tournament:
            for key in ("players", "seats"):
                if key in raw:
                    self.add((key,), f"not used in a tournament scenario: {key} come from "
                             + ("tournament.table_size and the entrants (tables are balanced)"
                                if key == "players" else "tournament.profiles")
                             + "; remove it")
            if "precision" in raw:
                self.add(("precision",), "not used in a tournament scenario: its games are "
                                         "whole tournaments; remove it")
            out["tournament"] = TournamentSection(self.report).tournament(raw["tournament"])
            if out["tournament"] is not None:
                out["players"] = out["tournament"].table_sizes()
            if "league" in raw:
                self.add(("league",), "a scenario is a tournament or a league, not both; "
                                      "remove one of the sections")
            out["seats"] = make_seat("random", behaviour_defaults())  # unused placeholder
            return out
        if is_league:
            return self.league_scenario(raw, out)
        if is_design:
            return self.design_scenario(raw, out)
        out["players"] = self.players(raw["players"]) if "players" in raw else None
        out["seats"] = self.seats(raw.get("seats"), out["players"])
        out["precision"] = self.precision(raw.get("precision"))
        if "skill" in raw:
            out["skill"] = SkillSection(self.report).skill(raw["skill"])
            check_table(self.report, raw, out["seats"])
        return out

    def league_scenario(self, raw: dict, out: dict[str, Any]) -> dict[str, Any]:
        """The top level of a league: its players and seats come from ``league:``."""
        for key, why in (("players", "league.table_size"),
                         ("seats", "league.policies (and league.behaviour)")):
            if key in raw:
                self.add((key,), f"not used in a league scenario: {key} come from {why}; "
                                 "remove it")
        if "precision" in raw:
            self.add(("precision",), "not used in a league scenario: every seating plays "
                                     "equally often; remove it")
        out["league"] = LeagueSection(self.report).league(raw["league"])
        if out["league"] is not None:
            out["players"] = out["league"].table_sizes
        out["seats"] = make_seat("random", behaviour_defaults())  # unused placeholder
        return out

    def design_scenario(self, raw: dict, out: dict[str, Any]) -> dict[str, Any]:
        """The top level of a design: its players and games come from ``design:``, its one
        variant is the base the search changes."""
        for key, why in (("players", "it plays design.players"),
                         ("games", "design.budget.games caps each candidate's games"),
                         ("precision", "each candidate plays until it is out of contention"),
                         ("sweep", "design.search says what changes")):
            if key in raw:
                self.add((key,), f"not used in a design scenario: {why}; remove it")
        variants = out["variants"]
        if variants is not None and len(variants) != 1:
            self.add(("variants",), f"{len(variants)} variants: a design searches from one "
                                    "(the base rules its search changes); keep one")
        base = variants[0].rules if variants is not None and len(variants) == 1 else None
        out["design"] = DesignSection(self.report).design(raw["design"], base)
        if out["design"] is not None:
            out["players"], out["games"] = (out["design"].players,), out["design"].games
            counted = [a.goal for a in out["design"].aims if GOALS[a.goal].counted]
            if counted and raw.get("how_it_plays") is False:
                self.add(("how_it_plays",), f"false, but the goal{'s' * (len(counted) > 1)} "
                         f"{', '.join(counted)} need{'s' * (len(counted) == 1)} how each round "
                         "plays: remove how_it_plays (it is on by itself then) or the goal")
            elif counted:
                out["how_it_plays"] = True  # its goals read the rounds' counters
        out["seats"] = self.seats(raw.get("seats"), out["players"])
        return out

    def how_it_plays(self, raw: dict, is_tournament: bool, is_league: bool) -> bool:
        """``how_it_plays: true``: the games count how each round plays (the rounds' measures;
        null otherwise, and the engine a fifth faster). Plain games and designs only."""
        value = raw.get("how_it_plays")
        if value is None:
            return False
        if is_tournament or is_league:
            self.add(("how_it_plays",), "not used in a tournament or league scenario: its "
                                        "summary reads no round's measures; remove it")
            return False
        if not isinstance(value, bool):
            self.add(("how_it_plays",), f"expected true or false (count how each round "
                                        f"plays), got {describe(value)}")
            return False
        return value

    def precision(self, value: Any) -> tuple[tuple[str, float], ...] | None:
        """``precision: {STAT: H}``: 95% half-widths to reach, in PRECISION_STATS order."""
        if value is None:
            return ()
        path: KeyPath = ("precision",)
        if not isinstance(value, dict) or not value:
            self.add(path, "expected a mapping of statistics to 95% half-widths, e.g. "
                           f"{{turns_per_round: 0.5}}; statistics: {', '.join(PRECISION_STATS)}"
                           f"; got {describe(value)}")
            return None
        self.report.keys(value, path, PRECISION_STATS, what="statistic")
        ok = all(k in PRECISION_STATS for k in value)
        for key, width in value.items():
            if key not in PRECISION_STATS:
                continue
            if isinstance(width, bool) or not isinstance(width, (int, float)) \
                    or not math.isfinite(width) or width <= 0:
                self.add(path + (key,), f"expected a half-width > 0 (the 95% interval's "
                                        f"half-width to reach), got {describe(width)}")
                ok = False
        if not ok:
            return None
        return tuple((k, float(value[k])) for k in PRECISION_STATS if k in value)

    def players(self, value: Any) -> tuple[int, ...] | None:
        lo, hi = PLAYERS_RANGE
        what = f"a player count from {lo} to {hi}"
        if isinstance(value, list):
            if not value:
                self.add(("players",), f"expected {what} or a non-empty list of them")
                return None
            counts = [self._int(v, ("players", i), lo, hi, what) for i, v in enumerate(value)]
            if None in counts:
                return None
            if len(set(counts)) != len(counts):
                self.add(("players",), f"player counts repeat: {counts}")
                return None
            return tuple(sorted(counts))
        count = self._int(value, ("players",), lo, hi, f"{what}, or a list of them")
        return None if count is None else (count,)

    # -- seats ---------------------------------------------------------------------------
    def seats(self, value: Any, players: tuple[int, ...] | None):
        path: KeyPath = ("seats",)
        if value is None:
            return make_seat("random", behaviour_defaults())
        if isinstance(value, dict):
            return self.seat(value, path)
        if not isinstance(value, list) or not value:
            self.add(path, "expected one seat mapping (policy, behaviour) for every seat, or a "
                           f"non-empty list with one per seat; got {describe(value)}")
            return None
        seats = [self.seat(s, path + (i,)) for i, s in enumerate(value)]
        if players and len(value) < max(players):
            self.add(path, f"{len(value)} seat mappings, but the file plays up to {max(players)} "
                           f"players: give at least {max(players)} (a table of n players uses "
                           "the first n), or one mapping (not a list) for every seat")
            return None
        named = [(path + (i,), s) for i, s in enumerate(seats) if s is not None]
        if not self.one_policy_per_name(named) or None in seats:
            return None
        return tuple(seats)

    # -- variants ------------------------------------------------------------------------
    def variants(self, value: Any) -> tuple[Variant, ...] | None:
        if not isinstance(value, list) or not value:
            self.add(("variants",), "expected a non-empty list of variants "
                     f"({', '.join(VARIANT_KEYS)}), got {describe(value)}")
            return None
        entries = [self.variant_entry(v, ("variants", i)) for i, v in enumerate(value)]
        first_index: dict[str, int] = {}
        for i, entry in enumerate(entries):
            if entry is None or entry["name"] is None:
                continue
            name = entry["name"]
            if name in first_index:
                line = self.report.origins.locate(("variants", first_index[name], "name"))[1]
                self.add(("variants", i, "name"),
                         f"duplicate variant name {name!r} (first used at line {line})")
            else:
                first_index[name] = i
        # Explicit overrides per variant name after resolving extends; None = broken.
        done: dict[str, dict | None] = {}
        out: list[Variant] = []
        for i, entry in enumerate(entries):
            variant = self.resolve(i, entry, entries, first_index, done)
            if variant is not None:
                out.append(variant)
        return tuple(out) if len(out) == len(entries) else None

    def variant_entry(self, value: Any, path: KeyPath) -> dict | None:
        if not isinstance(value, dict):
            self.add(path, f"expected a variant mapping with keys {', '.join(VARIANT_KEYS)}, "
                           f"got {describe(value)}")
            return None
        self.report.keys(value, path, VARIANT_KEYS, ("name",))
        name = self._string(value, "name", path) if "name" in value else None
        if name is not None and ":" in name:
            self.add(path + ("name",), f"{name!r}: a variant name cannot contain ':' "
                                       "(extends uses preset:variant)")
            name = None
        extends = value.get("extends")
        if extends is not None and (not isinstance(extends, str) or not extends.strip()):
            self.add(path + ("extends",), "expected the name of an earlier variant or a preset, "
                                          f"got {describe(extends)}")
            extends = False  # broken, but not "no extends"
        return {
            "name": name,
            "description": self._string(value, "description", path, default=""),
            "extends": extends,
            "own": self.rule_overrides(value.get("rules"), path + ("rules",)),
        }

    def rule_overrides(self, value: Any, path: KeyPath) -> dict | None:
        """Check one variant's own `rules:` key by key against the rule table."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add(path, f"expected a mapping of rule options, got {describe(value)}")
            return None
        ok = True
        for key, val in value.items():
            if key == rules.DECK_KEY:
                for sub, message in rules.check_deck({} if val is None else val):
                    sub_key = sub.split(".", 1)[1] if "." in sub else None
                    if sub_key is not None and sub_key not in cards.DECK_KEYS:
                        message = message.replace("allowed:", did_you_mean(
                            sub_key, tuple(cards.DECK_KEYS)) + "allowed:", 1)
                    self.add(path + (rules.DECK_KEY,) + ((sub_key,) if sub_key else ()), message)
                    ok = False
                continue
            opt = rules.RULES_BY_KEY.get(key)
            if opt is None:
                self.add(path + (key,), f"unknown rule {key!r}; "
                         f"{did_you_mean(key, rules.ALL_RULE_KEYS)}"
                         f"allowed: {', '.join(rules.ALL_RULE_KEYS)}")
                ok = False
                continue
            message = rules.check_value(opt, val)
            if message:
                self.add(path + (key,), message)
                ok = False
        return dict(value) if ok else None

    def resolve(self, i: int, entry: dict | None, entries: list, first_index: dict,
                done: dict) -> Variant | None:
        path: KeyPath = ("variants", i)
        if entry is None or entry["name"] is None:
            return None
        name, extends = entry["name"], entry["extends"]
        base: dict | None = {}
        if extends is False:
            base = None
        elif extends is not None:
            base = self.base_for(extends, name, path + ("extends",), first_index, entries, done)
        own = entry["own"]
        ok = base is not None and own is not None and entry["description"] is not None
        merged = _merge_rules(base, own) if ok else None
        if first_index.get(name) == i:
            done[name] = merged
        if merged is None:
            return None
        try:
            ruleset = rules.RuleSet.from_mapping(merged)
        except rules.RuleError as e:  # rule conflicts: each at its own key's line
            for key, message in e.problems:
                self.add(path + ("rules", *key.split(".")), message)
            return None
        return Variant(name, entry["description"], ruleset, merged)

    def base_for(self, extends: str, name: str, path: KeyPath, first_index: dict,
                 entries: list, done: dict) -> dict | None:
        earlier = [n for n, j in first_index.items() if j < path[1]]
        if extends in earlier:
            return done.get(extends)  # None if that variant is broken (already reported)
        if extends in first_index and extends not in bundled_presets():
            cycle = _local_cycle(name, first_index, entries)
            if cycle:
                self.add(path, f"extends cycle: {' -> '.join(cycle)}")
            else:
                self.add(path, f"refers to variant {extends!r}, defined later in the file; "
                               "a variant can only extend an earlier one")
            return None
        preset, _, variant_name = extends.partition(":")
        return self.preset_rules(preset.strip(), variant_name.strip() or None, path, earlier)

    def preset_rules(self, preset: str, variant_name: str | None, path: KeyPath,
                     earlier: list[str]) -> dict | None:
        presets = bundled_presets()
        if preset not in presets:
            hint = did_you_mean(preset, list(presets) + earlier)
            self.add(path, f"unknown preset or variant {preset!r}; {hint}"
                           f"earlier variants: {', '.join(earlier) or '(none)'}; "
                           f"presets: {', '.join(presets) or '(none)'}")
            return None
        if preset in self.preset_stack:
            chain = " -> ".join(self.preset_stack + (preset,))
            self.add(path, f"extends cycle through presets: {chain}")
            return None
        if len(self.preset_stack) >= MAX_PRESET_DEPTH:
            chain = " -> ".join(self.preset_stack[:3] + ("...",) + self.preset_stack[-2:]
                                + (preset,))
            self.add(path, f"extends chain of more than {MAX_PRESET_DEPTH} presets ({chain}); "
                           "extend a preset nearer the end of the chain")
            return None
        if preset not in self.presets:
            try:
                self.presets[preset] = _load_file(presets[preset], (),
                                                  self.preset_stack + (preset,))
            except ScenarioError as e:
                self.presets[preset] = None
                self.report.problems.extend(e.problems)
        loaded = self.presets[preset]
        if loaded is None:
            self.add(path, f"preset {preset!r} ({presets[preset]}) is invalid (see its problems)")
            return None
        if variant_name is None:
            return dict(loaded.variants[0].overrides)
        for v in loaded.variants:
            if v.name == variant_name:
                return dict(v.overrides)
        names = [v.name for v in loaded.variants]
        self.add(path, f"preset {preset!r} has no variant {variant_name!r}; "
                       f"{did_you_mean(variant_name, names)}variants: {', '.join(names)}")
        return None

    # -- whole-scenario checks -----------------------------------------------------------
    def check_decks(self, variants: tuple[Variant, ...], players: tuple[int, ...],
                    raw_variants: list) -> None:
        for i, variant in enumerate(variants):
            for n in players:
                message = variant.rules.check_players(n)
                if message:
                    where = ("variants", i, "rules") if isinstance(raw_variants[i], dict) \
                        and "rules" in raw_variants[i] else ("variants", i)
                    self.add(where, f"with {n} players: {message}")
                    break


def _in_file_order(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by line within each source; sources keep their first-seen order."""
    rank = {}
    for p in problems:
        rank.setdefault(p.source, len(rank))
    return sorted(problems, key=lambda p: (rank[p.source], p.line or 0))


def _merge_rules(base: Mapping, own: Mapping) -> dict:
    merged = {**base, **own}
    if rules.DECK_KEY in base or rules.DECK_KEY in own:
        merged[rules.DECK_KEY] = {**(base.get(rules.DECK_KEY) or {}),
                                  **(own.get(rules.DECK_KEY) or {})}
    return merged


def _local_cycle(start: str, first_index: dict, entries: list) -> list[str]:
    """The extends cycle through ``start`` within the file, or []."""
    chain = [start]
    current = start
    while True:
        entry = entries[first_index[current]]
        nxt = entry["extends"] if entry else None
        if not isinstance(nxt, str) or nxt not in first_index:
            return []
        chain.append(nxt)
        if nxt == start:
            return chain
        if nxt in chain[:-1]:
            return []  # a cycle that does not pass through start; reported from its members
        current = nxt


# --- Loading -----------------------------------------------------------------------------------

def load_scenario(path: str | os.PathLike, overrides: Sequence[str] = ()) -> Scenario:
    """Load, validate and resolve a scenario file, or the bundled scenario of that name if no
    such file exists (``locate_scenario``); raises ScenarioError listing every problem."""
    return _load_file(locate_scenario(path), overrides, ())


def load_text(text: str, source_name: str = "<string>", overrides: Sequence[str] = ()) -> Scenario:
    return _load(text, source_name, None, overrides, ())


def _load_file(path: Path, overrides: Sequence[str], preset_stack: tuple[str, ...]) -> Scenario:
    return _load(read_scenario_file(path), str(path), path, overrides, preset_stack)


def _load(text: str, source: str, path: Path | None, overrides: Sequence[str],
          preset_stack: tuple[str, ...]) -> Scenario:
    origins = Origins(source)
    report = Report(origins)
    raw = parse_yaml(text, origins, report)
    if report.problems and raw is None:
        raise ScenarioError(report.problems)  # syntax errors: nothing more to check
    apply(raw, overrides, origins, report)
    presets: dict[str, Scenario | None] = {}

    def resolve(raw: Any, origins: Origins, report: Report) -> dict[str, Any] | None:
        resolver = _Resolver(report, preset_stack)
        resolver.presets = presets  # each preset loaded once for the file and its sweep points
        parts = resolver.scenario(raw)
        if parts and parts["variants"] and parts["players"]:
            resolver.check_decks(parts["variants"], parts["players"], raw["variants"])
        return parts

    parts = resolve(raw, origins, report)
    required = ("name", "description", "games", "players", "seats", "variants")
    grids, points = (), ()
    if isinstance(raw, dict) and raw.get("sweep") is not None and parts is not None \
            and "design" not in raw:  # a design's sweep is refused with its section
        if parts["tournament"] is not None:
            report.add(("sweep",), "not used in a tournament scenario (its cells are variants "
                                   "x fields); sweep a scenario of plain games")
        elif parts["league"] is not None or "league" in raw:
            report.add(("sweep",), "not used in a league scenario (its cells are variants x "
                                   "table sizes); sweep a scenario of plain games")
        else:  # with the file's own problems, only the section's form is checked
            grids, points = expand_sweep(raw, origins, report, resolve, parts, check_only=bool(
                report.problems or any(parts[k] is None for k in required)))
    if report.problems or parts is None or any(parts[k] is None for k in required):
        if not report.problems:  # defensive: never fail without saying why
            report.add((), "invalid scenario")
        raise ScenarioError(_in_file_order(report.problems))
    return Scenario(
        name=parts["name"], description=parts["description"], seed=parts["seed"],
        games=parts["games"], players=parts["players"], seats_spec=parts["seats"],
        variants=parts["variants"], source_path=path, source_text=text,
        overrides=tuple(overrides), tournament=parts["tournament"], league=parts["league"],
        sweep=grids, points=points,
        precision=parts.get("precision") or (), seconds_per_turn=parts[durations.KEY],
        design=parts["design"], skill=parts.get("skill"), how_it_plays=parts["how_it_plays"],
    )
