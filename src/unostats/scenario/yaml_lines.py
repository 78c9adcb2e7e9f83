"""YAML with line numbers: one document parsed, the line of every key path recorded (and
repeated keys, which PyYAML would silently drop, reported).

Hostile YAML is refused with its line before anything is built from it: control characters,
values that contain themselves (a recursive alias), aliases that expand past ``MAX_VALUES``
values (an "alias bomb"), nesting deeper than ``MAX_DEPTH`` and integers of more than
``MAX_INT_DIGITS`` digits. Merge keys (``<<: *base``, then overrides) are valid YAML and work.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ..checking.problems import KeyPath, Origins, Problem, Report, format_path

MAX_VALUES = 100_000  # values after alias expansion; the largest bundled file has ~1,500
MAX_DEPTH = 64  # nesting levels; a scenario needs about 8
MAX_INT_DIGITS = 30  # the largest allowed number (a seed below 2**63) has 19 digits
MERGE_TAG = "tag:yaml.org,2002:merge"
INT_TAG = "tag:yaml.org,2002:int"

# Tab, LF and CR are the only C0 controls a YAML file may hold; DEL and C1 (but NEL) neither.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x84\x86-\x9f\ufffe\uffff]")
_NAMES = {0: "NUL", 7: "BEL", 8: "BS", 0x1b: "ESC", 0x7f: "DEL"}


class _Refused(Exception):
    def __init__(self, line: int | None, path: KeyPath, message: str):
        self.line, self.path, self.message = line, path, message


def parse_yaml(text: str, origins: Origins, report: Report) -> Any:
    """Parse one YAML document, recording the line of every key path in ``origins``."""
    if _control_characters(text, origins, report):
        return None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node)
        _record_lines(loader, node, (), origins, report)
        return loader.construct_document(node)
    except _Refused as e:
        report.problems.append(Problem(origins.source, e.line, format_path(e.path), e.message))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        what = ": ".join(x for x in (e.context, e.problem) if x)
        if e.context_mark and mark and e.context_mark.line != mark.line:
            what += f" (the construct starts at line {e.context_mark.line + 1})"
        report.problems.append(Problem(origins.source, line, "", f"YAML syntax error: {what}"))
    except yaml.YAMLError as e:
        report.problems.append(Problem(origins.source, None, "", f"YAML error: {e}"))
    except RecursionError:
        report.problems.append(Problem(origins.source, None, "", "the YAML nests too deeply to "
                                       f"read (a scenario needs fewer than {MAX_DEPTH} levels)"))
    except ValueError as e:  # defensive: a value PyYAML cannot build
        report.problems.append(Problem(origins.source, None, "", f"YAML value error: {e}"))
    finally:
        loader.dispose()
    return None


def parse_value(text: str) -> tuple[Any, str | None]:
    """One YAML value (a ``--set`` value) with the same limits: (value, None) or
    (None, what is wrong)."""
    origins = Origins("<value>")
    report = Report(origins)
    value = parse_yaml(text, origins, report)
    if report.problems:
        p = report.problems[0]
        where = f"{p.path}: " if p.path else ""
        return None, where + p.message.removeprefix("YAML syntax error: ")
    return value, None


def _control_characters(text: str, origins: Origins, report: Report) -> bool:
    found = 0
    for m in _CONTROL.finditer(text):
        found += 1
        if found > 5:
            report.problems.append(Problem(origins.source, None, "", "more control characters "
                                           "follow (only the first 5 are listed)"))
            break
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        code = ord(m.group())
        name = f" ({_NAMES[code]})" if code in _NAMES else ""
        report.problems.append(Problem(
            origins.source, line, "", f"control character U+{code:04X}{name} at column "
            f"{column}; a scenario file is text (write \\e, \\x07 ... inside double quotes)"))
    return found > 0


def _check_graph(root) -> None:
    """Refuse a node graph that contains itself, nests too deeply, expands (through aliases)
    to more than MAX_VALUES values, or holds an integer of too many digits."""
    sizes: dict[int, int] = {}  # id(node) -> values under it, aliases expanded
    open_: set[int] = set()

    def size(node, path: KeyPath, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        line = node.start_mark.line + 1
        if key in open_:
            raise _Refused(line, path, "this value contains itself (a recursive alias); a "
                                       "scenario value cannot refer to itself")
        if depth > MAX_DEPTH:
            raise _Refused(line, path, f"nested more than {MAX_DEPTH} levels deep; a scenario "
                                       "needs about 8")
        if isinstance(node, yaml.ScalarNode):
            if node.tag == INT_TAG and len(node.value) > MAX_INT_DIGITS:
                digits = node.value.replace("_", "").lstrip("+-")
                digits = len(digits[2:] if digits[:2].lower() in ("0x", "0o", "0b") else digits)
                raise _Refused(line, path, f"an integer of {digits:,} digits; no value of a "
                                           f"scenario has more than 19 (the seed is below 2**63)")
            sizes[key] = 1
            return 1
        open_.add(key)
        total = 1
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                name = key_node.value if isinstance(key_node, yaml.ScalarNode) else "?"
                total += size(key_node, path, depth + 1)
                total += size(value_node, path + (name,), depth + 1)
                if total > MAX_VALUES:
                    break
        else:
            for i, item in enumerate(node.value):
                total += size(item, path + (i,), depth + 1)
                if total > MAX_VALUES:
                    break
        open_.discard(key)
        if total > MAX_VALUES:
            raise _Refused(line, path, f"its aliases expand to more than {MAX_VALUES:,} values "
                                       "(an alias bomb?); a scenario needs a few hundred")
        sizes[key] = total
        return total

    size(root, (), 0)


def _record_lines(loader, node, path: KeyPath, origins: Origins, report: Report) -> None:
    """Record each key path's line (before construction: PyYAML rewrites merged mappings)."""
    origins.at[path] = (origins.source, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        merged: list = []  # the mappings of `<<` keys, in precedence order
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                merged += [value_node] if isinstance(value_node, yaml.MappingNode) else [
                    n for n in getattr(value_node, "value", ()) if isinstance(n, yaml.MappingNode)]
                continue
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (list, dict)):
                continue  # unhashable keys fail construction with their own message
            line = key_node.start_mark.line + 1
            if key in seen:
                # PyYAML silently keeps the last one; a repeated key is almost always a mistake.
                report.problems.append(Problem(origins.source, line, format_path(path + (key,)),
                                               f"duplicate key (first at line {seen[key]})"))
            seen[key] = line
            _record_lines(loader, value_node, path + (key,), origins, report)
            origins.at[path + (key,)] = (origins.source, line)
        for base in merged:  # merged keys that no explicit key (or earlier merge) overrides
            for key_node, value_node in base.value:
                if key_node.tag == MERGE_TAG:
                    continue
                key = loader.construct_object(key_node, deep=True)
                if isinstance(key, (list, dict)) or key in seen:
                    continue
                seen[key] = key_node.start_mark.line + 1
                _record_lines(loader, value_node, path + (key,), origins, Report(origins))
                origins.at[path + (key,)] = (origins.source, seen[key])
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _record_lines(loader, item, path + (i,), origins, report)
