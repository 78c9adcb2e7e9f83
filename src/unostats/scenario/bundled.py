"""The bundled scenario files: where they are (installed with the package, or the repository's
``scenarios/``), their names as presets for ``extends``, and a listing."""

from __future__ import annotations

import os
from pathlib import Path

from .files import read_scenario_file
from .problems import Origins, Report, ScenarioError
from .yaml_lines import parse_yaml

SCENARIOS_ENV = "UNOSTATS_SCENARIOS"


def bundled_dir() -> Path:
    """The folder of bundled scenario files.

    $UNOSTATS_SCENARIOS if set; else the copy installed inside the package (wheels); else the
    repository's ``scenarios/`` (editable installs import src/unostats in place). The installed
    copy is tried first because for a wheel ``parents[3]`` is site-packages' parent, not a repo.
    """
    env = os.environ.get(SCENARIOS_ENV)
    if env:
        return Path(env)
    installed = Path(__file__).parents[1] / "scenarios"  # this file is unostats/scenario/...
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[3] / "scenarios"


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
        try:  # bounded like any scenario: a FIFO or an alias bomb must not hang the list
            origins = Origins(str(path))
            raw = parse_yaml(read_scenario_file(path), origins, Report(origins))
        except ScenarioError:
            raw = None
        raw = raw if isinstance(raw, dict) else {}
        name = raw.get("name") if isinstance(raw.get("name"), str) else stem
        description = raw.get("description")
        description = " ".join(description.split()) if isinstance(description, str) else ""
        out.append((name, description, path))
    return out
