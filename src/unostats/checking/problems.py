"""What is wrong with a scenario, and where: a ``Problem`` per finding (file, line, key path,
message), ``ScenarioError`` carrying all of a file's problems, the origin of every key path, and
the wording helpers ("did you mean ...")."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

KeyPath = tuple  # of str (mapping keys) and int (list indexes)


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


def describe(value: Any) -> str:
    if value == [] or value == {}:
        return f"an empty {'list' if value == [] else 'mapping'}"
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a mapping", type(None): "null"}.get(type(value), "a value")
    return f"{value!r} ({kind})" if not isinstance(value, (list, dict)) else kind


def did_you_mean(word: Any, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


class Origins:
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


class Report:
    """Collects problems with their locations."""

    def __init__(self, origins: Origins):
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
                         f"{did_you_mean(key, allowed)}allowed: {', '.join(allowed)}")
        for key in required:
            if key not in mapping:
                self.add(path, f"missing required key {key!r}")

