"""The ``sweep:`` section: ``--set``-style paths mapped to the values they take, checked like
every other key, and expanded into points (one variant per point of the grid)::

    sweep:                                   # one grid; a list of mappings is several grids
      rules.uno_penalty: [0, 2, 4, 6]
      seats.behaviour.forget_uno: [0.0, 0.1, 0.3]
      rules.hand_size: {from: 5, to: 10, step: 1}
      players: [2, 4, 6]                     # instead of the file's players, for this grid

Every variant x every point of a grid (the product of its lists) x every player count is a
cell. A point is the file with the point's values set as ``--set`` would set them (``rules.X`` in
every variant, ``seats.X`` in every seat), resolved like the file itself, so a wrong path or
value is reported at the line of the sweep key or value that gives it, with the allowed values.
The point's variant is named after it (``base uno_penalty=2 forget_uno=0.1``: each key by its
last part unless two keys share it) and the cell stores the point, keys as written. Two keys of
a grid may not set the same value (the later would silently win). The limits (``MAX_*``) are
counted before any point is made, so a huge sweep is refused at once.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..checking.problems import KeyPath, Origins, Problem, Report, describe, format_path
from .model import Axis, Grid, Point, Variant
from .overrides import parse_path, set_value

MAX_AXIS_VALUES = 1_000
MAX_POINTS = 10_000  # points over all grids (each a variant of every file variant)
# cells (variant x point x player count) over all grids: each point is resolved to check it and
# each cell played and reported, so they are counted before any point is made
MAX_CELLS = 10_000
RANGE_KEYS = ("from", "to", "step")
SWEEPABLE = ("rules", "seats", "variants", "players")
_HOW = ("a --set path under rules, seats or variants.NAME.rules (e.g. rules.uno_penalty, "
        "seats.behaviour.forget_uno), or players")

# parts -> what the resolver made of the edited file: a dict with variants, seats, players, or
# None (its problems are in the report it was given)
Resolve = Callable[[Any, Origins, Report], dict[str, Any] | None]


def expand(raw: dict, origins: Origins, report: Report, resolve: Resolve,
           base: dict[str, Any], check_only: bool = False
           ) -> tuple[tuple[Grid, ...], tuple[Point, ...]]:
    """The grids of ``raw["sweep"]`` and their points, or ((), ()) with problems in ``report``.
    ``base`` is the resolution of the file itself, ``resolve`` resolves an edited copy; with
    ``check_only`` (the file has problems of its own) only the section's form is checked."""
    grids = _grids(raw["sweep"], report)
    if grids is None or check_only:
        return (), ()
    if not _playable(grids, base, report) or not _distinct_targets(raw, origins, grids, report):
        return (), ()
    if not _check_axes(raw, origins, report, resolve, grids):
        return (), ()
    points: list[Point] = []
    names: dict[str, str] = {}
    for variant_index, variant in enumerate(base["variants"]):
        for g, (path, full) in enumerate(grids):
            grid = Grid(tuple(a for a in full.axes if _applies(a, variant_index, variant)))
            for values in itertools.product(*(a.values for a in grid.axes
                                              if a.key != "players")):
                point = _point(raw, origins, report, resolve, base, path, grid, g,
                               variant_index, variant, values)
                if point is None:
                    continue
                where = f"{format_sweep(path)} {point_text(point.sweep)}"
                if point.variant.name in names:
                    report.add(path, f"the point {point_text(point.sweep)} of variant "
                                     f"{variant.name!r} repeats a point of "
                                     f"{names[point.variant.name]}; each point once")
                    continue
                names[point.variant.name] = where
                points.append(point)
    if report.problems:
        return (), ()
    return tuple(grid for _, grid in grids), tuple(points)


def _playable(grids: list[tuple[KeyPath, Grid]], base: dict[str, Any], report: Report) -> bool:
    """Whether the sweep's cells, counted from the grids (every variant x the points of its
    axes x player counts), are within ``MAX_CELLS``."""
    cells = 0
    for index, variant in enumerate(base["variants"]):
        for _, grid in grids:
            counts = [len(a.values) for a in grid.axes if _applies(a, index, variant)]
            if not any(a.key == "players" for a in grid.axes):
                counts.append(len(base["players"]))
            cells += math.prod(counts)
    if cells <= MAX_CELLS:
        return True
    n = len(base["variants"])
    report.add(("sweep",), f"{cells:,} cells ({n} variant{'s' * (n != 1)} x the points of "
                           "its grids x player counts): a sweep plays at most "
                           f"{MAX_CELLS:,}; sweep fewer values, variants or player counts")
    return False


def _distinct_targets(raw: dict, origins: Origins, grids: list[tuple[KeyPath, Grid]],
                      report: Report) -> bool:
    """Whether no two keys of a grid set the same value (or one a part of the other's): the
    later would silently replace the earlier's values, and the cells say what was not played."""
    ok = True
    for path, grid in grids:
        targets = []
        for axis in grid.axes:
            if axis.key == "players":
                continue
            edited = copy.deepcopy({k: v for k, v in raw.items() if k != "sweep"})
            set_ = set_value(edited, parse_path(axis.key), axis.values[0], lambda _: None)
            for earlier, before in targets:
                both = next(((a, b) for a in set_ for b in before
                             if a[:len(b)] == b or b[:len(a)] == a), None)
                if both is not None:
                    line = origins.locate(path + (earlier,))[1]
                    report.add(path + (axis.key,), f"sets {format_path(max(both, key=len))}, "
                               f"as {format_sweep(path + (earlier,))} (line {line}) does: the "
                               "later key would silently replace the other's values; remove "
                               "one")
                    ok = False
                    break
            targets.append((axis.key, set_))
    return ok


def _applies(axis: Axis, index: int, variant: Variant) -> bool:
    """Whether a swept key sets something of this variant: ``variants.NAME...`` (or
    ``variants[i]...``) only of its own; every other key of every variant."""
    parsed = parse_path(axis.key)
    return parsed[0] != "variants" or parsed[1] in (index, variant.name)


def point_text(sweep: tuple[tuple[str, Any], ...] | Mapping[str, Any],
               shorts: Mapping[str, str] | None = None) -> str:
    """``uno_penalty=2 forget_uno=0.1``: a point as its variant's name shows it."""
    items = sweep.items() if isinstance(sweep, Mapping) else sweep
    return " ".join(f"{(shorts or {}).get(k, k)}={show_value(v)}" for k, v in items)


def show_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float, str)):
        return str(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def format_sweep(path: KeyPath) -> str:
    return "sweep" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])


# --- The section -------------------------------------------------------------------------------

def _grids(value: Any, report: Report) -> list[tuple[KeyPath, Grid]] | None:
    if isinstance(value, dict):
        entries = [(("sweep",), value)]
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        entries = [(("sweep", i), v) for i, v in enumerate(value)]
    else:
        report.add(("sweep",), "expected a mapping of --set paths to lists of values (or "
                               "{from, to, step} ranges), or a list of such mappings (one grid "
                               f"each); got {describe(value)}")
        return None
    out = []
    total = 0
    for path, mapping in entries:
        if not mapping:
            report.add(path, "an empty sweep: give at least one path and its values")
            continue
        axes = [_axis(key, mapping[key], path, report) for key in mapping]
        if None in axes:
            continue
        shorts = _shorts([a.key for a in axes])
        grid = Grid(tuple(Axis(a.key, a.values, shorts[a.key]) for a in axes))
        total += math.prod(len(a.values) for a in grid.axes if a.key != "players")
        out.append((path, grid))
    if total > MAX_POINTS:
        report.add(("sweep",), f"{total:,} points: a sweep has at most {MAX_POINTS:,} (each "
                               "point is a variant at every player count); sweep fewer values")
        return None
    return out if len(out) == len(entries) else None


def _axis(key: Any, value: Any, path: KeyPath, report: Report) -> Axis | None:
    here = path + (key,)
    parsed = parse_path(key) if isinstance(key, str) else None
    if parsed is None:
        report.add(here, f"{key!r} is not a path: expected {_HOW}")
        return None
    head = parsed[0]
    if head not in SWEEPABLE or (head == "players" and len(parsed) > 1) or (
            head == "variants" and (len(parsed) < 4 or parsed[2] != "rules")) or (
            head in ("rules", "seats") and len(parsed) < 2):
        report.add(here, f"{key!r} cannot be swept: expected {_HOW}")
        return None
    if isinstance(value, dict):
        values = _range(value, here, report)
    elif isinstance(value, list) and value:
        values = tuple(value)
        seen: dict[str, int] = {}
        for i, v in enumerate(values):
            text = json.dumps(v, sort_keys=True, default=str)
            if text in seen:
                report.add(here + (i,), f"{describe(v)} repeats item {seen[text]}; "
                                        "give each value once")
                return None
            seen[text] = i
    else:
        report.add(here, "expected a non-empty list of values or a {from, to, step} range; "
                         f"got {describe(value)}")
        return None
    if values is None:
        return None
    if len(values) > MAX_AXIS_VALUES:
        report.add(here, f"{len(values):,} values: a swept key takes at most "
                         f"{MAX_AXIS_VALUES:,}")
        return None
    return Axis(key, values, key)


def _range(value: dict, path: KeyPath, report: Report) -> tuple[Any, ...] | None:
    report.keys(value, path, RANGE_KEYS, ("from", "to"), what="range key")
    if any(k not in RANGE_KEYS for k in value) or "from" not in value or "to" not in value:
        return None
    step = value.get("step", 1)
    nums = {"from": value["from"], "to": value["to"], "step": step}
    for k, v in nums.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            report.add(path + (k,), f"expected a number, got {describe(v)}")
            return None
    lo, hi = nums["from"], nums["to"]
    if step <= 0:
        report.add(path + ("step",), f"{step} is out of range: expected a step > 0")
        return None
    if hi < lo:
        report.add(path + ("to",), f"{hi} is below from ({lo}): expected to >= from")
        return None
    steps = (hi - lo) / step if math.isfinite(hi - lo) else math.inf
    if not steps < MAX_AXIS_VALUES:  # counted before any value is made (inf beyond a float)
        count = f"{math.floor(steps + 1e-9) + 1:,}" if steps < 1e12 else "more than " \
            f"{MAX_AXIS_VALUES:,}"
        report.add(path, f"{count} values: a swept key takes at most {MAX_AXIS_VALUES:,}")
        return None
    count = math.floor(steps + 1e-9) + 1
    if all(isinstance(v, int) for v in nums.values()):
        return tuple(lo + i * step for i in range(count))
    return tuple(round(lo + i * step, 12) for i in range(count))


def _shorts(keys: list[str]) -> dict[str, str]:
    """Each key by its last part (``uno_penalty``), or in full where two keys share it."""
    last = {k: k.split(".")[-1] for k in keys}
    clash = {v for v in last.values() if list(last.values()).count(v) > 1}
    return {k: (k if last[k] in clash else last[k]) for k in keys}


# --- Checking and expanding ----------------------------------------------------------------------

def _edited(raw: dict, origins: Origins, sets: list[tuple[KeyPath, str, Any, KeyPath]],
            players: list[int] | None) -> tuple[dict, Origins, list[Problem]]:
    """A copy of the file (without ``sweep``) with each (path, key, value, value's location) set,
    the origins of what was set moved to the sweep value's line."""
    edited = copy.deepcopy({k: v for k, v in raw.items() if k != "sweep"})
    at = Origins(origins.source)
    at.at = dict(origins.at)
    if players is not None:
        edited["players"] = players
    failures: list[Problem] = []
    for path, key, value, where in sets:
        source, line = origins.locate(where)

        def fail(message: str, source=source, line=line) -> None:
            failures.append(Problem(source, line, "", message))

        for target in set_value(edited, path, value, fail):
            at.at = {p: o for p, o in at.at.items() if p[:len(target)] != target}
            at.at[target] = (source, line)
    return edited, at, failures


def _value_location(path: KeyPath, axis: Axis, value: Any, raw_axis: Any) -> KeyPath:
    here = path + (axis.key,)
    return here + (axis.values.index(value),) if isinstance(raw_axis, list) else here


def _check_axes(raw: dict, origins: Origins, report: Report, resolve: Resolve,
                grids: list[tuple[KeyPath, Grid]]) -> bool:
    """Each value of each axis alone on the file: its problems at the sweep value's line (or,
    when every value of a key fails alike, once at the key's line)."""
    ok = True
    for path, grid in grids:
        mapping = _raw_grid(raw, path)
        players = next((list(a.values) for a in grid.axes if a.key == "players"), None)
        if players is not None:  # first: every other key is checked at these player counts
            at = _players_origins(origins, path)
            sub = Report(at)
            resolve({**{k: v for k, v in raw.items() if k != "sweep"}, "players": players},
                    at, sub)
            for p in sub.problems:  # at the sweep's players (their lines are in ``at``)
                report.problems.append(Problem(p.source, p.line, "sweep" + (
                    f"[{path[1]}]" if len(path) > 1 else "") + "." + p.path, p.message)
                    if p.path.startswith("players") else p)
            if sub.problems:
                ok = False
                continue
        for axis in grid.axes:
            if axis.key == "players":
                continue
            found: list[list[Problem]] = []
            parsed = parse_path(axis.key)
            for value in axis.values:
                where = _value_location(path, axis, value, mapping[axis.key])
                edited, at, failures = _edited(raw, origins, [(parsed, axis.key, value, where)],
                                               players)
                sub = Report(at)
                if not failures:
                    resolve(edited, at, sub)
                problems = _relabel(failures + sub.problems, origins.locate(where), where)
                if not isinstance(mapping[axis.key], list):  # a range: say which value
                    problems = [Problem(p.source, p.line, p.path,
                                        f"at {show_value(value)}: {p.message}")
                                for p in problems]
                found.append(problems)
            common = set.intersection(*({_bare(p) for p in f} for f in found))
            if common:
                source, line = origins.locate(path + (axis.key,))
                for message in sorted(common):
                    report.problems.append(Problem(source, line, format_sweep(
                        path + (axis.key,)), message))
            for problems in found:
                for p in problems:
                    if _bare(p) not in common and p not in report.problems:
                        report.problems.append(p)
            ok = ok and not any(found)
    return ok


def _players_origins(origins: Origins, path: KeyPath) -> Origins:
    at = Origins(origins.source)
    at.at = dict(origins.at)
    at.at = {p: o for p, o in at.at.items() if p[:1] != ("players",)}
    at.at[("players",)] = origins.locate(path + ("players",))
    for p, o in origins.at.items():  # players[i] -> the sweep's players[i]
        if p[:len(path) + 1] == path + ("players",) and len(p) == len(path) + 2:
            at.at[("players", p[-1])] = o
    return at


def _raw_grid(raw: dict, path: KeyPath) -> dict:
    return raw["sweep"] if len(path) == 1 else raw["sweep"][path[1]]


def _bare(p: Problem) -> str:
    """A problem without its place: what it says about the value."""
    return p.message if p.path.startswith("sweep") else f"{p.path}: {p.message}"


def _relabel(problems: list[Problem], location: tuple[str, int | None],
             where: KeyPath) -> list[Problem]:
    """Problems of the file with one sweep value set (the file alone has none, so the value
    causes them) placed at that value, the path they concern kept in the message (once, without
    it, when the value fails alike in every variant or seat it is set in)."""
    paths: dict[str, list[str]] = {}
    for p in problems:
        paths.setdefault(p.message, []).append(p.path)
    return [Problem(location[0], location[1], format_sweep(where),
                    f"{found[0]}: {message}" if len(found) == 1 and found[0] else message)
            for message, found in paths.items()]


def _point(raw: dict, origins: Origins, report: Report, resolve: Resolve, base: dict,
           path: KeyPath, grid: Grid, g: int, variant_index: int, variant: Variant,
           values: tuple[Any, ...]) -> Point | None:
    mapping = _raw_grid(raw, path)
    axes = [a for a in grid.axes if a.key != "players"]
    swept_players = next((a.values for a in grid.axes if a.key == "players"), None)
    sets = [(parse_path(a.key), a.key, v, _value_location(path, a, v, mapping[a.key]))
            for a, v in zip(axes, values)]
    edited, at, failures = _edited(raw, origins, sets,
                                   list(swept_players) if swept_players else None)
    sweep = tuple((a.key, v) for a, v in zip(axes, values))
    shown = point_text(sweep, {a.key: a.short for a in axes})
    sub = Report(at)
    parts = None if failures else resolve(edited, at, sub)
    if failures or sub.problems or parts is None:
        for p in failures + sub.problems:  # only combinations fail here (values were checked)
            report.problems.append(Problem(p.source, p.line, p.path,
                                           f"at the sweep point {shown}: {p.message}"))
        return None
    resolved = parts["variants"][variant_index]
    name = f"{variant.name} {shown}" if shown else variant.name
    return Point(
        variant=Variant(name, resolved.description, resolved.rules, resolved.overrides),
        base=variant.name, grid=g, sweep=sweep, players=parts["players"],
        seats=parts["seats"], players_swept=swept_players is not None)
