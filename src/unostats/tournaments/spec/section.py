"""The ``tournament:`` section of a scenario file -> a checked ``TournamentSpec`` (stages and
their advance rules, entrant profiles, fields and their mixes), every field's brackets checked
(``bracket`` plays them). The scenario loader calls it."""

from __future__ import annotations

from typing import Any

from ...seats import Seat
from .bracket import (
    DEFAULT_TABLE_SIZE,
    ENTRANTS_RANGE,
    TABLE_SIZE_RANGE,
    AdvanceRule,
    Field,
    PlanError,
    Stage,
    TournamentSpec,
)
from ...checking.problems import KeyPath, describe, did_you_mean
from ...checking.values import SEAT_KEYS, Checker

TOURNAMENT_KEYS = ("entrants", "table_size", "consolation", "stages", "profiles", "fields")
REQUIRED_TOURNAMENT_KEYS = ("stages", "profiles", "fields")
STAGE_KEYS = ("name", "advance")
ADVANCE_RULE_KEYS = ("entrants_at_most", "advance")
FIELD_KEYS = ("name", "description", "entrants", "mix")
REST = "rest"  # a field's mix: this profile fills the field up to its entrant count


class TournamentSection(Checker):
    """Checks one ``tournament:`` mapping and builds its TournamentSpec."""

    def tournament(self, value: Any) -> TournamentSpec | None:
        path: KeyPath = ("tournament",)
        if not self.section(value, path, TOURNAMENT_KEYS, REQUIRED_TOURNAMENT_KEYS):
            return None
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
                                              f"{describe(consolation)}")
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
                           f"({', '.join(SEAT_KEYS)}); got {describe(value)}")
            return None
        out: dict[str, Seat] = {}
        ok = True
        for name, seat in value.items():
            if not isinstance(name, str) or not name.strip() or name == REST:
                self.add(path + (name,), f"a profile name must be a non-empty string other "
                                         f"than {REST!r}, got {describe(name)}")
                ok = False
                continue
            checked = self.seat(seat if seat is not None else {}, path + (name,))
            if checked is None:
                ok = False
            else:
                out[name] = checked
        ok = ok and self.one_policy_per_name([(path + (n,), s) for n, s in out.items()])
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
                           f"{REST!r}), got {describe(value)}")
            return None
        counts: dict[str, int] = {}
        rest: list[str] = []
        ok = True
        for name, count in value.items():
            if profiles is not None and name not in profiles:
                self.add(path + (name,), f"unknown profile {name!r}; "
                         f"{did_you_mean(name, list(profiles))}profiles: "
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

