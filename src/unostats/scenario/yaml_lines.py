"""YAML with line numbers: one document parsed, the line of every key path recorded (and
repeated keys, which PyYAML would silently drop, reported)."""

from __future__ import annotations

from typing import Any

import yaml

from .problems import KeyPath, Origins, Problem, Report, format_path


def parse_yaml(text: str, origins: Origins, report: Report) -> Any:
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


def _record_lines(loader, node, path: KeyPath, origins: Origins, report: Report) -> None:
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

