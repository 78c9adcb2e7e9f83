"""The bundled scenario files: where they are (installed with the package, or the repository's
``scenarios/``), their names (file stems: presets for ``extends`` and scenarios a command runs
by name), how a command's FILE argument finds one, and a listing."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ..checking.problems import Origins, Problem, Report, ScenarioError, did_you_mean
from .files import read_scenario_file
from .yaml_lines import parse_yaml

SCENARIOS_ENV = "UNOSTATS_SCENARIOS"
SCENARIO_SUFFIXES = (".yaml", ".yml")


def bundled_dir() -> Path:
    """The folder of bundled scenario files.

    $UNOSTATS_SCENARIOS if set; else the copy installed inside the package (a wheel carries
    ``scenarios/`` as ``unostats/scenarios/``, found through the package's resources); else the
    repository's ``scenarios/`` (editable installs import src/unostats in place). The installed
    copy is tried first because for a wheel ``parents[3]`` is site-packages' parent, not a repo.
    """
    env = os.environ.get(SCENARIOS_ENV)
    if env:
        return Path(env)
    installed = resources.files("unostats") / "scenarios"
    if installed.is_dir():
        return Path(str(installed))
    return Path(__file__).resolve().parents[3] / "scenarios"


def bundled_presets() -> dict[str, Path]:
    """Preset name (file stem) -> path, for every bundled scenario file."""
    folder = bundled_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def locate_scenario(ref: str | os.PathLike) -> Path:
    """The scenario file a command's FILE argument names: the path if it exists (a path wins),
    else the bundled scenario of that name (``extreme``), else a ScenarioError that lists the
    bundled names (and, for a missing ``scenarios/extreme.yaml``, says how to run the bundled one).
    """
    path = Path(ref)
    if os.path.lexists(path):
        return path
    presets = bundled_presets()
    text = os.fspath(ref)
    if text in presets:
        return presets[text]
    names = ", ".join(presets) or "(none found)"
    if path.suffix in SCENARIO_SUFFIXES and path.stem in presets:
        hint = (f"no such file; the bundled scenario {path.stem!r} runs by its name: "
                f"`unostats simulate {path.stem}`")
    elif path.suffix in SCENARIO_SUFFIXES or os.sep in text or "/" in text:
        hint = f"no such file; or give a bundled scenario by name: {names}"
    else:
        hint = (f"no such file, and no bundled scenario is called {text!r}; "
                f"{did_you_mean(text, list(presets))}bundled: {names} "
                "(`unostats scenarios` describes them)")
    raise ScenarioError([Problem(text, None, "", hint)])


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
        description = raw.get("description")
        description = " ".join(description.split()) if isinstance(description, str) else ""
        out.append((stem, description, path))
    return out
