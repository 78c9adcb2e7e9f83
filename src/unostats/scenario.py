"""Scenario files: YAML -> validated, fully resolved ``Scenario``.

A scenario names rule variants (each a set of RULES.md section-12 overrides, optionally extending
an earlier variant or a bundled preset), the player counts to sweep, seat policies and behaviour,
games per cell and a seed. Every variant x player count is one cell.

Validation is strict and reports every problem of a file at once, one line each:
``<file>:<line>: <key path>: <message>``. Rule keys and values are checked against the rule table
in ``rules.py``; nothing about rules is repeated here.

Seats: ``seats:`` is either one mapping used for every seat, or a list of mappings, one per seat.
A list must be at least as long as the largest player count; a table of n players uses the
first n entries (so one list serves a sweep over several player counts).

``extends``: ``name`` is an earlier variant of the same file if one has that name, else the first
variant of the bundled preset ``name`` (a file stem in ``bundled_dir()``); ``preset:variant`` picks
a preset's variant. Only earlier variants can be extended, so chains never loop (a forward
reference or a cycle is an error). Without ``extends`` a variant starts from the official rules
(``standard`` is the rule table's defaults). Rule overrides accumulate along the chain, ``deck``
counts merge key by key, and defaults such as ``target_score`` resolve at the end of the chain.

``--set path=value`` overrides (``apply_overrides``) edit the parsed file before validation, so a
wrong path or value is reported like any other problem, located at the ``--set`` expression.

Tournaments (RULES.md section 9): a file with a ``tournament:`` section plays whole championships
instead of games (``tournament.py`` describes the bracket). Its ``games`` is the number of
tournaments per cell, a cell being one variant x one field; ``players`` and ``seats`` are not used
(table sizes follow from ``tournament.table_size`` and the entrants, seats from the profiles)::

    tournament:
      entrants: 36              # default for every field
      table_size: 6             # default 6 (TOUR)
      consolation: true         # first-stage losers play their own tournament (default false)
      stages:                   # the last stage is the final (no advance)
        - name: group
          advance:              # a number, or a rule by the bracket's entrant count
            - {entrants_at_most: 24, advance: 3}
            - {advance: 2}      # the last rule has no entrants_at_most
        - {name: semifinal, advance: 1}
        - {name: final}
      profiles:                 # name -> a seat mapping (policy, behaviour)
        casual: {policy: random, behaviour: {forget_uno: 0.2}}
      fields:                   # each one is a cell (x every variant)
        - name: evening
          mix: {casual: 30, regular: rest}   # counts per profile; at most one `rest`

Entrant counts are resolved (``rest`` and a field's default ``entrants``) in the canonical form,
and every field's brackets (main and consolation) are checked: each non-final stage must knock
someone out at every table and the final must fit at one table.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from . import cards, rules
from .seats import Seat
from .tournament import (
    DEFAULT_TABLE_SIZE,
    ENTRANTS_RANGE,
    TABLE_SIZE_RANGE,
    AdvanceRule,
    Field,
    PlanError,
    Stage,
    TournamentSpec,
)

TOP_KEYS = ("name", "description", "seed", "games", "players", "seats", "variants", "tournament")
REQUIRED_TOP_KEYS = ("name", "games", "players", "variants")
REQUIRED_TOURNAMENT_TOP_KEYS = ("name", "games", "variants")
TOURNAMENT_KEYS = ("entrants", "table_size", "consolation", "stages", "profiles", "fields")
REQUIRED_TOURNAMENT_KEYS = ("stages", "profiles", "fields")
STAGE_KEYS = ("name", "advance")
ADVANCE_RULE_KEYS = ("entrants_at_most", "advance")
FIELD_KEYS = ("name", "description", "entrants", "mix")
REST = "rest"  # a field's mix: this profile fills the field up to its entrant count
VARIANT_KEYS = ("name", "description", "extends", "rules")
SEAT_KEYS = ("policy", "behaviour")
PLAYERS_RANGE = (2, 10)  # RULES.md S1
SEED_MAX = 2**63 - 1
# Behaviour names that are relative weights rather than probabilities (rules.BEHAVIOUR docs).
WEIGHT_BEHAVIOURS = ("reaction",)
SCENARIOS_ENV = "UNOSTATS_SCENARIOS"

KeyPath = tuple  # of str (mapping keys) and int (list indexes)


# --------------------------------------------------------------------------------------------
# Result types


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    rules: rules.RuleSet
    # The explicit rule settings accumulated along the extends chain (what the files say).
    overrides: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Cell:
    """One variant at one player count, with a resolved Seat for every seat."""

    variant: Variant
    players: int
    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    seed: int | None  # None: the caller chooses one (then stores it; see with_seed)
    games: int  # games per cell
    players: tuple[int, ...]  # sorted, distinct
    seats_spec: Seat | tuple[Seat, ...]  # one Seat for every seat, or one per seat (>= players)
    variants: tuple[Variant, ...]
    source_path: Path | None = None
    source_text: str = ""
    overrides: tuple[str, ...] = ()  # the --set expressions applied, as given
    # A tournament scenario: ``games`` is tournaments per variant x field, ``players`` the table
    # sizes its brackets play, and each table's seats come from the profiles (cells have none).
    tournament: TournamentSpec | None = None

    def seats_for(self, players: int) -> tuple[Seat, ...]:
        if isinstance(self.seats_spec, tuple):
            return self.seats_spec[:players]
        return (self.seats_spec,) * players

    def cells(self) -> Iterator[Cell]:
        """Every variant x player count. In a tournament scenario these are the cells its table
        games are stored in (one per table size) and their seats are empty: they vary by table."""
        for variant in self.variants:
            for n in self.players:
                yield Cell(variant, n, () if self.tournament else self.seats_for(n))

    def with_seed(self, seed: int) -> Scenario:
        return replace(self, seed=seed)

    def resolved(self) -> dict[str, Any]:
        """Canonical form: every default resolved; what the hash identifies."""
        seats = ([_seat_dict(s) for s in self.seats_spec] if isinstance(self.seats_spec, tuple)
                 else _seat_dict(self.seats_spec))
        out = {
            "name": self.name,
            "description": self.description,
            "seed": self.seed,
            "games": self.games,
            "players": list(self.players),
            "seats": seats,
            "variants": [{"name": v.name, "description": v.description,
                          "rules": v.rules.as_dict()} for v in self.variants],
        }
        if self.tournament is not None:  # players and seats follow from the tournament
            del out["players"], out["seats"]
            out["tournament"] = self.tournament.resolved()
        return out

    def canonical_json(self) -> str:
        return json.dumps(self.resolved(), sort_keys=True, separators=(",", ":"))

    def hash(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]


def _seat_dict(seat: Seat) -> dict[str, Any]:
    return {"policy": seat.policy, "behaviour": dict(seat.behaviour)}


def _make_seat(policy: str, behaviour: dict[str, float]) -> Seat:
    return Seat(policy=policy, behaviour=behaviour)


# --------------------------------------------------------------------------------------------
# Problems


@dataclass(frozen=True)
class Problem:
    source: str  # file name, or "file (--set expr)"
    line: int | None
    path: str  # "variants[2].rules.stack_draw_two"; "" for the whole file
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ScenarioError(Exception):
    """A scenario is invalid. ``problems`` lists every problem; str() has one line per problem."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def format_path(path: KeyPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _describe(value: Any) -> str:
    if value == [] or value == {}:
        return f"an empty {'list' if value == [] else 'mapping'}"
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a mapping", type(None): "null"}.get(type(value), "a value")
    return f"{value!r} ({kind})" if not isinstance(value, (list, dict)) else kind


def _did_you_mean(word: Any, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


class _Origins:
    """Where each key path came from: (source, line). Lookups use the longest known prefix."""

    def __init__(self, source: str):
        self.source = source
        self.at: dict[KeyPath, tuple[str, int | None]] = {(): (source, 1)}

    def locate(self, path: KeyPath) -> tuple[str, int | None]:
        for n in range(len(path), -1, -1):
            if path[:n] in self.at:
                return self.at[path[:n]]
        return self.source, None

    def replace_subtree(self, path: KeyPath, source: str) -> None:
        self.at = {p: o for p, o in self.at.items() if p[:len(path)] != path}
        self.at[path] = (source, None)


class _Report:
    """Collects problems with their locations."""

    def __init__(self, origins: _Origins):
        self.origins = origins
        self.problems: list[Problem] = []

    def add(self, path: KeyPath, message: str) -> None:
        source, line = self.origins.locate(path)
        self.problems.append(Problem(source, line, format_path(path), message))

    def keys(self, mapping: Mapping, path: KeyPath, allowed: Sequence[str],
             required: Sequence[str] = (), what: str = "key") -> None:
        for key in mapping:
            if key not in allowed:
                self.add(path + (key,), f"unknown {what} {key!r}; "
                         f"{_did_you_mean(key, allowed)}allowed: {', '.join(allowed)}")
        for key in required:
            if key not in mapping:
                self.add(path, f"missing required key {key!r}")


# --------------------------------------------------------------------------------------------
# YAML with line numbers


def _parse_yaml(text: str, origins: _Origins, report: _Report) -> Any:
    """Parse one YAML document, recording the line of every key path in ``origins``."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        data = loader.construct_document(node)
        _record_lines(loader, node, (), origins, report)
        return data
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        what = ": ".join(x for x in (e.context, e.problem) if x)
        if e.context_mark and mark and e.context_mark.line != mark.line:
            what += f" (the construct starts at line {e.context_mark.line + 1})"
        report.problems.append(Problem(origins.source, line, "", f"YAML syntax error: {what}"))
    except yaml.YAMLError as e:
        report.problems.append(Problem(origins.source, None, "", f"YAML error: {e}"))
    finally:
        loader.dispose()
    return None


def _record_lines(loader, node, path: KeyPath, origins: _Origins, report: _Report) -> None:
    origins.at[path] = (origins.source, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                continue  # unhashable keys already failed construction
            line = key_node.start_mark.line + 1
            if key in seen:
                # PyYAML silently keeps the last one; a repeated key is almost always a mistake.
                report.problems.append(Problem(origins.source, line, format_path(path + (key,)),
                                               f"duplicate key (first at line {seen[key]})"))
            seen[key] = line
            _record_lines(loader, value_node, path + (key,), origins, report)
            origins.at[path + (key,)] = (origins.source, line)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _record_lines(loader, item, path + (i,), origins, report)


# --------------------------------------------------------------------------------------------
# --set overrides


def apply_overrides(raw: Any, overrides: Sequence[str]) -> dict:
    """A copy of ``raw`` with ``path=value`` overrides applied (value parsed as YAML).

    ``rules.X=v`` sets rule X in every variant; ``seats.X=v`` sets X in every seat when ``seats``
    is a list; list items are addressed as ``variants[1]`` or ``variants.1`` or by variant name
    (``variants.fast.rules.X``). Raises ScenarioError for malformed or impossible paths.
    """
    origins = _Origins("<overrides>")
    report = _Report(origins)
    raw = copy.deepcopy(raw) if raw is not None else {}
    _apply(raw, overrides, origins, report)
    if report.problems:
        raise ScenarioError(report.problems)
    return raw


def _apply(raw: Any, overrides: Sequence[str], origins: _Origins, report: _Report) -> None:
    file_source = origins.source
    for expr in overrides:
        where = f"{file_source} (--set {expr})"

        def fail(message: str, where=where) -> None:
            report.problems.append(Problem(where, None, "", message))

        if not isinstance(raw, dict):
            return  # the top-level problem is reported by validation
        path_text, eq, value_text = expr.partition("=")
        path = _parse_path(path_text.strip())
        if not eq or path is None:
            fail("expected path=value, e.g. rules.stack_draw_two=sum or players=[4,6]")
            continue
        try:
            value = yaml.safe_load(value_text) if value_text.strip() else None
        except yaml.YAMLError as e:
            fail(f"the value is not valid YAML: {getattr(e, 'problem', e)}")
            continue
        for target in _expand_targets(raw, path, fail):
            error = _set_path(raw, target, value)
            if error:
                fail(error)
            else:
                origins.replace_subtree(_canonical_target(raw, target), where)


def _parse_path(text: str) -> KeyPath | None:
    if not text or not re.fullmatch(r"[^.\[\]\s]+(\.[^.\[\]\s]+|\[\d+\])*", text):
        return None
    parts = re.findall(r"\[(\d+)\]|([^.\[\]]+)", text)
    return tuple(int(i) if i else (int(k) if k.isdigit() else k) for i, k in parts)


def _expand_targets(raw: dict, path: KeyPath, fail) -> list[KeyPath]:
    head, rest = path[0], path[1:]
    if head == "rules":  # rules.X applies to every variant
        if not rest:
            fail("rules needs a rule name, e.g. rules.stack_draw_two=sum")
            return []
        variants = raw.get("variants")
        if not isinstance(variants, list) or not variants:
            fail("rules.* applies to every variant, but the file has no variants list")
            return []
        return [("variants", i, "rules") + rest for i in range(len(variants))]
    if head == "seats" and rest and isinstance(rest[0], str) and isinstance(raw.get("seats"), list):
        return [("seats", i) + rest for i in range(len(raw["seats"]))]  # every seat
    return [path]


def _list_index(items: list, part: Any) -> int | None:
    if isinstance(part, int):
        return part if 0 <= part < len(items) else None
    for i, item in enumerate(items):  # a variant (or anything with a name) by name
        if isinstance(item, dict) and item.get("name") == part:
            return i
    return None


def _canonical_target(raw: dict, path: KeyPath) -> KeyPath:
    """``path`` with list items named by index, as validation reports them."""
    out: list = []
    node: Any = raw
    for part in path:
        if isinstance(node, list):
            part = _list_index(node, part)
        out.append(part)
        node = node[part] if isinstance(node, (dict, list)) else None
    return tuple(out)


def _set_path(raw: dict, path: KeyPath, value: Any) -> str | None:
    node: Any = raw
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        here = format_path(path[:depth]) or "the top level"
        if isinstance(node, list):
            index = _list_index(node, part)
            if index is None:
                return (f"{format_path(path[:depth + 1])}: no such item "
                        f"({here} has {len(node)} items)")
            part = index
        elif not isinstance(node, dict):
            return f"{here} is not a mapping or list, cannot set {format_path(path)}"
        if last:
            node[part] = value
        else:
            if isinstance(node, dict) and node.get(part) is None:
                node[part] = {}  # create missing (or empty `rules:`) mappings on the way
            node = node[part]
    return None


# --------------------------------------------------------------------------------------------
# Validation and resolution


class _Resolver:
    """Validates one parsed file and resolves its variants (presets are loaded on demand)."""

    def __init__(self, report: _Report, preset_stack: tuple[str, ...]):
        self.report = report
        self.preset_stack = preset_stack
        self.add = report.add
        self.presets: dict[str, Scenario | None] = {}  # loaded once per file; None = broken

    # -- scalars -------------------------------------------------------------------------
    def _string(self, raw: Mapping, key: str, path: KeyPath, default: str | None = None):
        value = raw.get(key, default)
        if value is None and default is not None:
            return default
        if not isinstance(value, str) or (key == "name" and not value.strip()):
            self.add(path + (key,), f"expected a non-empty string, got {_describe(value)}"
                     if key == "name" else f"expected a string, got {_describe(value)}")
            return None
        return value

    def _int(self, value: Any, path: KeyPath, lo: int, hi: int, what: str) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"expected {what}, got {_describe(value)}")
            return None
        if not lo <= value <= hi:
            self.add(path, f"{value} is out of range: expected {what}")
            return None
        return value

    # -- top level -----------------------------------------------------------------------
    def scenario(self, raw: Any) -> dict[str, Any] | None:
        if raw is None:
            self.add((), "the file is empty; expected a mapping with keys "
                         f"{', '.join(TOP_KEYS)}")
            return None
        if not isinstance(raw, dict):
            self.add((), f"the top level must be a mapping with keys {', '.join(TOP_KEYS)}; "
                         f"got {_describe(raw) if not isinstance(raw, list) else 'a list'}")
            return None
        is_tournament = "tournament" in raw
        self.report.keys(raw, (), TOP_KEYS,
                         REQUIRED_TOURNAMENT_TOP_KEYS if is_tournament else REQUIRED_TOP_KEYS)
        out: dict[str, Any] = {
            "name": self._string(raw, "name", ()) if "name" in raw else None,
            "description": self._string(raw, "description", (), default=""),
            "seed": None,
            "games": None,
            "players": None,
            "tournament": None,
        }
        if raw.get("seed") is not None:
            out["seed"] = self._int(raw["seed"], ("seed",), 0, SEED_MAX,
                                    f"an integer from 0 to {SEED_MAX}")
        if "games" in raw:
            out["games"] = self._int(raw["games"], ("games",), 1, 10**12,
                                     "an integer >= 1 (tournaments per variant and field)"
                                     if is_tournament else "an integer >= 1 (games per cell)")
        out["variants"] = self.variants(raw["variants"]) if "variants" in raw else None
        if is_tournament:
            for key in ("players", "seats"):
                if key in raw:
                    self.add((key,), f"not used in a tournament scenario: {key} come from "
                             + ("tournament.table_size and the entrants (tables are balanced)"
                                if key == "players" else "tournament.profiles")
                             + "; remove it")
            out["tournament"] = self.tournament(raw["tournament"])
            if out["tournament"] is not None:
                out["players"] = out["tournament"].table_sizes()
            out["seats"] = _make_seat("random", _behaviour_defaults())  # unused placeholder
            return out
        out["players"] = self.players(raw["players"]) if "players" in raw else None
        out["seats"] = self.seats(raw.get("seats"), out["players"])
        return out

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
            return _make_seat("random", _behaviour_defaults())
        if isinstance(value, dict):
            return self.seat(value, path)
        if not isinstance(value, list) or not value:
            self.add(path, "expected one seat mapping (policy, behaviour) for every seat, or a "
                           f"non-empty list with one per seat; got {_describe(value)}")
            return None
        seats = [self.seat(s, path + (i,)) for i, s in enumerate(value)]
        if players and len(value) < max(players):
            self.add(path, f"{len(value)} seat mappings, but the file plays up to {max(players)} "
                           f"players: give at least {max(players)} (a table of n players uses "
                           "the first n), or one mapping (not a list) for every seat")
            return None
        return None if None in seats else tuple(seats)

    def seat(self, value: Any, path: KeyPath) -> Seat | None:
        if not isinstance(value, dict):
            self.add(path, f"expected a seat mapping with keys {', '.join(SEAT_KEYS)}, "
                           f"got {_describe(value)}")
            return None
        self.report.keys(value, path, SEAT_KEYS)
        ok = True
        policy = value.get("policy", "random")
        if policy not in rules.POLICIES:
            ok = False
            self.add(path + ("policy",), f"unknown policy {policy!r}; "
                     f"{_did_you_mean(policy, rules.POLICIES)}allowed: {', '.join(rules.POLICIES)}")
        behaviour = _behaviour_defaults()
        given = value.get("behaviour")
        given = {} if given is None else given
        if not isinstance(given, dict):
            self.add(path + ("behaviour",), "expected a mapping of behaviour names to "
                     f"probabilities, got {_describe(given)}")
            return None
        self.report.keys(given, path + ("behaviour",), tuple(rules.BEHAVIOUR), what="behaviour")
        for name, prob in given.items():
            if name not in rules.BEHAVIOUR:
                ok = False
                continue
            checked = self.behaviour_value(name, prob, path + ("behaviour", name))
            ok = ok and checked is not None
            behaviour[name] = checked
        return _make_seat(policy, behaviour) if ok else None

    def behaviour_value(self, name: str, value: Any, path: KeyPath) -> float | None:
        weight = name in WEIGHT_BEHAVIOURS
        what = "a positive weight" if weight else "a probability from 0 to 1"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.add(path, f"expected {what}, got {_describe(value)}")
            return None
        if not math.isfinite(value) or (value <= 0 if weight else not 0 <= value <= 1):
            self.add(path, f"{value} is out of range: expected {what}")
            return None
        return float(value)

    # -- tournament ----------------------------------------------------------------------
    def tournament(self, value: Any) -> TournamentSpec | None:
        path: KeyPath = ("tournament",)
        if not isinstance(value, dict):
            self.add(path, "expected a mapping with keys "
                           f"{', '.join(TOURNAMENT_KEYS)}, got {_describe(value)}")
            return None
        self.report.keys(value, path, TOURNAMENT_KEYS, REQUIRED_TOURNAMENT_KEYS)
        lo, hi = ENTRANTS_RANGE
        entrants = None
        if value.get("entrants") is not None:
            entrants = self._int(value["entrants"], path + ("entrants",), lo, hi,
                                 f"an entrant count from {lo} to {hi}")
        tlo, thi = TABLE_SIZE_RANGE
        table_size = self._int(value.get("table_size", DEFAULT_TABLE_SIZE),
                               path + ("table_size",), tlo, thi,
                               f"players per table, from {tlo} to {thi}")
        consolation = value.get("consolation", False)
        if not isinstance(consolation, bool):
            self.add(path + ("consolation",), f"expected true or false, got "
                                              f"{_describe(consolation)}")
            consolation = None
        stages = self.stages(value.get("stages"), path + ("stages",), table_size) \
            if "stages" in value else None
        profiles = self.profiles(value.get("profiles"), path + ("profiles",)) \
            if "profiles" in value else None
        fields = self.fields(value.get("fields"), path + ("fields",), profiles, entrants) \
            if "fields" in value else None
        if None in (table_size, consolation, stages, profiles, fields) or \
                (value.get("entrants") is not None and entrants is None):
            return None
        spec = TournamentSpec(table_size=table_size, stages=stages, profiles=profiles,
                              fields=fields, consolation=consolation, entrants=entrants)
        ok = True
        for i, fld in enumerate(fields):
            try:
                spec.brackets(fld)
            except PlanError as e:
                raw_field = value["fields"][i]
                where = path + ("fields", i) + (("entrants",) if "entrants" in raw_field else ())
                self.add(where, f"field {fld.name!r} ({fld.entrants} entrants) cannot be "
                                f"played: {e}")
                ok = False
        return spec if ok else None

    def _non_empty_list(self, value: Any, path: KeyPath, expected: str) -> bool:
        if isinstance(value, list) and value:
            return True
        self.add(path, f"expected {expected}; got {_describe(value)}")
        return False

    def _mappings(self, items: list, path: KeyPath, what: str, keys: Sequence[str]
                  ) -> Iterator[tuple[int, KeyPath, dict]]:
        """(index, path, item) for each mapping of a list; any other item is reported."""
        for i, item in enumerate(items):
            if isinstance(item, dict):
                yield i, path + (i,), item
            else:
                self.add(path + (i,), f"expected {what} with keys {', '.join(keys)}, "
                                      f"got {_describe(item)}")

    def stages(self, value: Any, path: KeyPath, table_size: int | None
               ) -> tuple[Stage, ...] | None:
        if not self._non_empty_list(value, path, "a non-empty list of stages (name, advance), "
                                                 "the last one the final"):
            return None
        out: list[Stage] = []
        seen: dict[str, int] = {}
        for i, where, item in self._mappings(value, path, "a stage mapping", STAGE_KEYS):
            last = i == len(value) - 1
            self.report.keys(item, where, STAGE_KEYS, ("name",) if last else ("name", "advance"))
            name = self._string(item, "name", where) if "name" in item else None
            if name is not None and name in seen:
                self.add(where + ("name",), f"duplicate stage name {name!r} (stage {seen[name]})")
                name = None
            if name is not None:
                seen[name] = i
            rules_: tuple[AdvanceRule, ...] | None = ()
            if last and "advance" in item:
                self.add(where + ("advance",), "the last stage is the final: its table's best "
                                               "player is the champion, nobody advances; remove "
                                               "advance or add a stage after it")
                rules_ = None
            elif "advance" in item:
                rules_ = self.advance(item["advance"], where + ("advance",), table_size)
            if name is not None and rules_ is not None and (last or rules_):
                out.append(Stage(name, rules_))
        return tuple(out) if len(out) == len(value) else None

    def advance(self, value: Any, path: KeyPath, table_size: int | None
                ) -> tuple[AdvanceRule, ...] | None:
        top = (table_size or TABLE_SIZE_RANGE[1]) - 1
        what = f"players per table who go on, from 1 to {top}"
        if isinstance(value, int) and not isinstance(value, bool):
            k = self._int(value, path, 1, top, what)
            return None if k is None else (AdvanceRule(k),)
        if not self._non_empty_list(value, path, f"{what}, or a list of rules by entrant count "
                                    "like [{entrants_at_most: 24, advance: 3}, {advance: 2}]"):
            return None
        out: list[AdvanceRule] = []
        ok = all(isinstance(item, dict) for item in value)
        previous = None
        for i, where, item in self._mappings(value, path, "a mapping", ADVANCE_RULE_KEYS):
            last = i == len(value) - 1
            self.report.keys(item, where, ADVANCE_RULE_KEYS, ("advance",))
            k = self._int(item["advance"], where + ("advance",), 1, top, what) \
                if "advance" in item else None
            at_most = item.get("entrants_at_most")
            if at_most is None and not last:
                self.add(where, "only the last rule may leave out entrants_at_most (it applies "
                                "to any larger number of entrants)")
                ok = False
            elif at_most is not None and last:
                self.add(where + ("entrants_at_most",), "the last rule applies to any larger "
                         "number of entrants: leave out entrants_at_most")
                ok = False
            elif at_most is not None:
                lo, hi = ENTRANTS_RANGE
                at_most = self._int(at_most, where + ("entrants_at_most",), lo, hi,
                                    f"an entrant count from {lo} to {hi}")
                if at_most is not None and previous is not None and at_most <= previous:
                    self.add(where + ("entrants_at_most",), f"{at_most} must be larger than the "
                             f"rule before it ({previous}): rules go from few entrants to many")
                    at_most = None
                if at_most is None:
                    ok = False
                previous = at_most if at_most is not None else previous
            if k is None:
                ok = False
            else:
                out.append(AdvanceRule(k, at_most))
        return tuple(out) if ok else None

    def profiles(self, value: Any, path: KeyPath) -> dict[str, Seat] | None:
        if not isinstance(value, dict) or not value:
            self.add(path, "expected a non-empty mapping of profile names to seat mappings "
                           f"({', '.join(SEAT_KEYS)}); got {_describe(value)}")
            return None
        out: dict[str, Seat] = {}
        ok = True
        for name, seat in value.items():
            if not isinstance(name, str) or not name.strip() or name == REST:
                self.add(path + (name,), f"a profile name must be a non-empty string other "
                                         f"than {REST!r}, got {_describe(name)}")
                ok = False
                continue
            checked = self.seat(seat if seat is not None else {}, path + (name,))
            if checked is None:
                ok = False
            else:
                out[name] = checked
        return dict(sorted(out.items())) if ok else None

    def fields(self, value: Any, path: KeyPath, profiles: dict[str, Seat] | None,
               entrants: int | None) -> tuple[Field, ...] | None:
        if not self._non_empty_list(value, path, "a non-empty list of fields (name, mix, "
                                                 "entrants, description)"):
            return None
        out: list[Field] = []
        seen: dict[str, int] = {}
        for i, where, item in self._mappings(value, path, "a field mapping", FIELD_KEYS):
            self.report.keys(item, where, FIELD_KEYS, ("name", "mix"))
            name = self._string(item, "name", where) if "name" in item else None
            if name is not None and name in seen:
                line = self.report.origins.locate(path + (seen[name], "name"))[1]
                self.add(where + ("name",), f"duplicate field name {name!r} (first used at "
                                            f"line {line})")
                name = None
            if name is not None:
                seen[name] = i
            description = self._string(item, "description", where, default="")
            count = entrants
            if item.get("entrants") is not None:
                lo, hi = ENTRANTS_RANGE
                count = self._int(item["entrants"], where + ("entrants",), lo, hi,
                                  f"an entrant count from {lo} to {hi}")
                if count is None:
                    continue
            mix = self.mix(item.get("mix"), where + ("mix",), profiles, count) \
                if "mix" in item else None
            if None not in (name, description, mix):
                total = sum(c for _, c in mix)
                out.append(Field(name, total, mix, description))
        return tuple(out) if len(out) == len(value) else None

    def mix(self, value: Any, path: KeyPath, profiles: dict[str, Seat] | None,
            entrants: int | None) -> tuple[tuple[str, int], ...] | None:
        if not isinstance(value, dict) or not value:
            self.add(path, "expected a mapping of profile names to entrant counts (one may be "
                           f"{REST!r}), got {_describe(value)}")
            return None
        counts: dict[str, int] = {}
        rest: list[str] = []
        ok = True
        for name, count in value.items():
            if profiles is not None and name not in profiles:
                self.add(path + (name,), f"unknown profile {name!r}; "
                         f"{_did_you_mean(name, list(profiles))}profiles: "
                         f"{', '.join(profiles)}")
                ok = False
                continue
            if count == REST:
                rest.append(name)
                continue
            checked = self._int(count, path + (name,), 0, ENTRANTS_RANGE[1],
                                f"an entrant count >= 0 or {REST!r}")
            if checked is None:
                ok = False
            else:
                counts[name] = checked
        if len(rest) > 1:
            self.add(path, f"only one profile can be {REST!r}; here: {', '.join(rest)}")
            ok = False
        if not ok or profiles is None:
            return None
        given = sum(counts.values())
        if rest:
            if entrants is None:
                self.add(path + (rest[0],), f"{REST!r} needs the field's entrant count: set "
                                            "entrants on the field or the tournament")
                return None
            if given > entrants:
                self.add(path, f"the counts add up to {given}, more than the {entrants} "
                               f"entrants, leaving nothing for {rest[0]!r}")
                return None
            counts[rest[0]] = entrants - given
        elif entrants is not None and given != entrants:
            self.add(path, f"the counts add up to {given} but the field has {entrants} "
                           f"entrants; make them agree or give one profile {REST!r}")
            return None
        total = sum(counts.values())
        lo, hi = ENTRANTS_RANGE
        if not lo <= total <= hi:
            self.add(path, f"{total} entrants in all; a field needs from {lo} to {hi}")
            return None
        return tuple(sorted((p, c) for p, c in counts.items() if c > 0))

    # -- variants ------------------------------------------------------------------------
    def variants(self, value: Any) -> tuple[Variant, ...] | None:
        if not isinstance(value, list) or not value:
            self.add(("variants",), "expected a non-empty list of variants "
                     f"({', '.join(VARIANT_KEYS)}), got {_describe(value)}")
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
                           f"got {_describe(value)}")
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
                                          f"got {_describe(extends)}")
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
            self.add(path, f"expected a mapping of rule options, got {_describe(value)}")
            return None
        ok = True
        for key, val in value.items():
            if key == rules.DECK_KEY:
                for sub, message in rules.check_deck({} if val is None else val):
                    sub_key = sub.split(".", 1)[1] if "." in sub else None
                    if sub_key is not None and sub_key not in cards.DECK_KEYS:
                        message = message.replace("allowed:", _did_you_mean(
                            sub_key, tuple(cards.DECK_KEYS)) + "allowed:", 1)
                    self.add(path + (rules.DECK_KEY,) + ((sub_key,) if sub_key else ()), message)
                    ok = False
                continue
            opt = rules.RULES_BY_KEY.get(key)
            if opt is None:
                self.add(path + (key,), f"unknown rule {key!r}; "
                         f"{_did_you_mean(key, rules.ALL_RULE_KEYS)}"
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
        except rules.RuleError as e:  # defensive: every piece was checked key by key
            for key, message in e.problems:
                self.add(path + ("rules",), f"{key}: {message}")
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
            hint = _did_you_mean(preset, list(presets) + earlier)
            self.add(path, f"unknown preset or variant {preset!r}; {hint}"
                           f"earlier variants: {', '.join(earlier) or '(none)'}; "
                           f"presets: {', '.join(presets) or '(none)'}")
            return None
        if preset in self.preset_stack:
            chain = " -> ".join(self.preset_stack + (preset,))
            self.add(path, f"extends cycle through presets: {chain}")
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
                       f"{_did_you_mean(variant_name, names)}variants: {', '.join(names)}")
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


def _behaviour_defaults() -> dict[str, float]:
    return {name: float(default) for name, (default, _) in rules.BEHAVIOUR.items()}


# --------------------------------------------------------------------------------------------
# Loading


def load_scenario(path: str | os.PathLike, overrides: Sequence[str] = ()) -> Scenario:
    """Load, validate and resolve a scenario file; raises ScenarioError listing every problem."""
    return _load_file(Path(path), overrides, ())


def load_text(text: str, source_name: str = "<string>", overrides: Sequence[str] = ()) -> Scenario:
    return _load(text, source_name, None, overrides, ())


def _load_file(path: Path, overrides: Sequence[str], preset_stack: tuple[str, ...]) -> Scenario:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError([Problem(str(path), None, "", f"cannot read the file: {e}")]) from None
    return _load(text, str(path), path, overrides, preset_stack)


def _load(text: str, source: str, path: Path | None, overrides: Sequence[str],
          preset_stack: tuple[str, ...]) -> Scenario:
    origins = _Origins(source)
    report = _Report(origins)
    raw = _parse_yaml(text, origins, report)
    if report.problems and raw is None:
        raise ScenarioError(report.problems)  # syntax errors: nothing more to check
    _apply(raw, overrides, origins, report)
    resolver = _Resolver(report, preset_stack)
    parts = resolver.scenario(raw)
    if parts and parts["variants"] and parts["players"]:
        resolver.check_decks(parts["variants"], parts["players"], raw["variants"])
    required = ("name", "description", "games", "players", "seats", "variants")
    if report.problems or parts is None or any(parts[k] is None for k in required):
        if not report.problems:  # defensive: never fail without saying why
            report.add((), "invalid scenario")
        raise ScenarioError(_in_file_order(report.problems))
    return Scenario(
        name=parts["name"], description=parts["description"], seed=parts["seed"],
        games=parts["games"], players=parts["players"], seats_spec=parts["seats"],
        variants=parts["variants"], source_path=path, source_text=text,
        overrides=tuple(overrides), tournament=parts["tournament"],
    )


# --------------------------------------------------------------------------------------------
# Bundled presets


def bundled_dir() -> Path:
    """The folder of bundled scenario files.

    $UNOSTATS_SCENARIOS if set; else the copy installed inside the package (wheels); else the
    repository's ``scenarios/`` (editable installs import src/unostats in place). The installed
    copy is tried first because for a wheel ``parents[2]`` is site-packages' parent, not a repo.
    """
    env = os.environ.get(SCENARIOS_ENV)
    if env:
        return Path(env)
    installed = Path(__file__).parent / "scenarios"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "scenarios"


def bundled_presets() -> dict[str, Path]:
    """Preset name (file stem) -> path, for every bundled scenario file."""
    folder = bundled_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def bundled_scenarios() -> list[tuple[str, str, Path]]:
    """(name, description, path) of every bundled scenario, read without full validation."""
    out = []
    for stem, path in bundled_presets().items():
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            raw = None
        raw = raw if isinstance(raw, dict) else {}
        name = raw.get("name") if isinstance(raw.get("name"), str) else stem
        description = raw.get("description")
        description = " ".join(description.split()) if isinstance(description, str) else ""
        out.append((name, description, path))
    return out
