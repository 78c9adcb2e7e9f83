"""``--set path=value`` overrides: the parsed file edited before validation, so a wrong path or
value is reported like any other problem, located at the ``--set`` expression."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any

from ..checking.problems import KeyPath, Origins, Problem, Report, ScenarioError, format_path
from .yaml_lines import parse_value


def apply_overrides(raw: Any, overrides: Sequence[str]) -> dict:
    """A copy of ``raw`` with ``path=value`` overrides applied (value parsed as YAML).

    ``rules.X=v`` sets rule X in every variant; ``seats.X=v`` sets X in every seat when ``seats``
    is a list; list items are addressed as ``variants[1]`` or ``variants.1`` or by variant name
    (``variants.fast.rules.X``). Raises ScenarioError for malformed or impossible paths.
    """
    origins = Origins("<overrides>")
    report = Report(origins)
    raw = copy.deepcopy(raw) if raw is not None else {}
    apply(raw, overrides, origins, report)
    if report.problems:
        raise ScenarioError(report.problems)
    return raw


def apply(raw: Any, overrides: Sequence[str], origins: Origins, report: Report) -> None:
    file_source = origins.source
    done: list[tuple[str, str, list[KeyPath]]] = []  # (where, expression shown, key paths set)
    for expr in overrides:
        shown = expr if len(expr) <= 80 else f"{expr[:60]}... ({len(expr):,} characters)"
        where = f"{file_source} (--set {shown})"

        def fail(message: str, where=where) -> None:
            report.problems.append(Problem(where, None, "", message))

        if not isinstance(raw, dict):
            return  # the top-level problem is reported by validation
        path_text, eq, value_text = expr.partition("=")
        path = _parse_path(path_text.strip())
        if not eq or path is None:
            fail("expected path=value, e.g. rules.stack_draw_two=sum or players=[4,6]")
            continue
        value, problem = parse_value(value_text) if value_text.strip() else (None, None)
        if problem:
            fail(f"the value is not valid YAML: {problem}")
            continue
        targets = set_value(raw, path, value, fail)
        for target in targets:
            origins.replace_subtree(target, where)
        done.append((where, shown, targets))
    _refuse_lost(done, report)


def _refuse_lost(done: list[tuple[str, str, list[KeyPath]]], report: Report) -> None:
    """An override whose every key path a later one sets again (or a mapping around it) would
    be lost without a word: refused, so a value given twice (``--precision`` too) is noticed."""
    for i, (where, _, targets) in enumerate(done):
        for _, later, again in done[i + 1:]:
            if targets and all(any(t[:len(a)] == a for a in again) for t in targets):
                hint = " (--precision STAT=H sets precision.STAT)" \
                    if targets[0][0] == "precision" else ""
                report.problems.append(Problem(where, None, "", (
                    f"{format_path(targets[0])} is set again by --set {later}, so this value "
                    f"would be lost; give each path once{hint}")))
                break


def parse_path(text: str) -> KeyPath | None:
    """A ``--set`` path (``rules.hand_size``, ``variants[1].rules.X``, ``seats.behaviour.Y``)
    as a key path, or None if it is malformed."""
    return _parse_path(text)


def set_value(raw: dict, path: KeyPath, value: Any, fail) -> list[KeyPath]:
    """Set ``path`` to ``value`` in ``raw`` as ``--set`` does (``rules.X`` in every variant,
    ``seats.X`` in every seat of a list); ``fail(message)`` hears what cannot be set. Returns
    the key paths set, list items named by index (as validation reports them)."""
    done = []
    for target in _expand_targets(raw, path, fail):
        error = _set_path(raw, target, value)
        if error:
            fail(error)
        else:
            done.append(_canonical_target(raw, target))
    return done


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

