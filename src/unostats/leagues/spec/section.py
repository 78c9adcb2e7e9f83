"""The ``league:`` section of a scenario file -> a checked ``LeagueSpec`` (the policies, bundled
names or policies written as data, the table sizes, the behaviour of every seat); ``seatings``
seats them. Its limits (``seatings.MAX_POLICIES``, ``MAX_SEATINGS``) are checked by counting, so a
league too large to play is refused before any seating is made. The scenario loader calls it."""

from __future__ import annotations

from typing import Any

from .seatings import MAX_POLICIES, MAX_SEATINGS, LeagueSpec, seating_count
from ...seats import Seat
from ...checking.problems import KeyPath, describe
from ...checking.values import Checker, make_seat

LEAGUE_KEYS = ("policies", "table_size", "behaviour")
REQUIRED_LEAGUE_KEYS = ("policies", "table_size")
TABLE_SIZE_RANGE = (2, 10)  # the engine's player counts (rule S1)


class LeagueSection(Checker):
    """Checks one ``league:`` mapping and builds its LeagueSpec."""

    def league(self, value: Any) -> LeagueSpec | None:
        path: KeyPath = ("league",)
        if not self.section(value, path, LEAGUE_KEYS, REQUIRED_LEAGUE_KEYS):
            return None
        behaviour = self.seat({"behaviour": value.get("behaviour")}, path)
        policies = self.policies(value.get("policies"), path + ("policies",), behaviour) \
            if "policies" in value else None
        sizes = self.table_sizes(value.get("table_size"), path + ("table_size",),
                                 None if policies is None else len(policies)) \
            if "table_size" in value else None
        if None in (behaviour, policies, sizes):
            return None
        return LeagueSpec(policies, sizes) if self.playable(
            len(policies), sizes, path + ("table_size",)) else None

    def playable(self, policies: int, sizes: tuple[int, ...], path: KeyPath) -> bool:
        """Whether the design's seatings (counted, not made) are within ``MAX_SEATINGS``."""
        counts = [seating_count(policies, n) for n in sizes]
        if sum(counts) <= MAX_SEATINGS:
            return True
        each = ", ".join(f"{c:,} at {n} players" for c, n in zip(counts, sizes))
        self.add(path, f"{sum(counts):,} seatings ({each}) for {policies} policies: a league "
                       f"plays at most {MAX_SEATINGS:,} over its table sizes (each seating at "
                       "least once); give fewer policies or smaller tables")
        return False

    def policies(self, value: Any, path: KeyPath, behaviour: Seat | None
                 ) -> tuple[Seat, ...] | None:
        if not isinstance(value, list) or len(value) < 2:
            self.add(path, "expected a list of at least 2 policies, each a bundled policy's "
                           f"name or a policy written as data (a mapping); got {describe(value)}")
            return None
        if len(value) > MAX_POLICIES:
            self.add(path, f"{len(value):,} policies: a league has at most {MAX_POLICIES} (the "
                           "most a batch of games can name); split it into leagues of fewer")
            return None
        checked = [self.policy(p, path + (i,)) for i, p in enumerate(value)]
        if None in checked or behaviour is None:
            return None
        seats = [make_seat(p, dict(behaviour.behaviour)) for p in checked]
        first: dict[str, int] = {}
        ok = True
        for i, seat in enumerate(seats):
            if seat.policy in first:
                line = self.report.origins.locate(path + (first[seat.policy],))[1]
                self.add(path + (i,), f"policy {seat.policy!r} is in the league twice (first at "
                                      f"line {line}); each policy plays once, under a name of "
                                      "its own")
                ok = False
            first.setdefault(seat.policy, i)
        return tuple(seats) if ok else None

    def table_sizes(self, value: Any, path: KeyPath, policies: int | None
                    ) -> tuple[int, ...] | None:
        lo, hi = TABLE_SIZE_RANGE
        top = hi if policies is None else min(hi, policies)
        what = (f"players per table, from {lo} to {top} (at most the league's {policies} "
                "policies: a table seats distinct policies)" if policies is not None and
                policies < hi else f"players per table, from {lo} to {top}")
        items = value if isinstance(value, list) else [value]
        if not items:
            self.add(path, f"expected {what}, or a non-empty list of them; got an empty list")
            return None
        where = [path + (i,) for i in range(len(items))] if isinstance(value, list) else [path]
        sizes = [self._int(v, w, lo, top, what) for v, w in zip(items, where)]
        if None in sizes:
            return None
        if len(set(sizes)) != len(sizes):
            self.add(path, f"table sizes repeat: {sizes}")
            return None
        return tuple(sorted(sizes))
