"""``unostats scenarios`` (the bundled scenario files, described) and ``unostats validate``
(scenario files checked, or shown resolved)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Annotated

import typer

from .app import app
from .common import (
    Format,
    FormatOption,
    SetOption,
    err,
    write,
)


@app.command(epilog="""Examples:

  unostats scenarios
  unostats scenarios --format json     # every description in full, with each file's path
  unostats simulate extreme            # run one by its name""")
def scenarios(fmt: FormatOption = Format.table) -> None:
    """List the bundled scenarios with their descriptions.

    The table fits the terminal (each description wrapped and cut to three lines; 100
    columns when stdout is not a terminal, or $COLUMNS); csv and json give each description in
    full, with the file's path.
    Any command that takes a scenario FILE also takes a bundled name (`unostats simulate
    extreme`), and a scenario can start from one: `extends: NAME`."""
    from ..output import format_rows
    from ..scenario import bundled_dir, bundled_scenarios

    listed = bundled_scenarios()
    if fmt.value != "table":
        write(format_rows(("name", "file", "description"),
                           [(name, str(path), text) for name, text, path in listed], fmt.value))
        return
    width = max(shutil.get_terminal_size((SCENARIOS_WIDTH, 24)).columns, 40)
    room = width - 2 - max([len("name"), *(len(name) for name, _, _ in listed)])
    rows = [(name, _first_lines(text, max(room, 20), SCENARIOS_LINES))
            for name, text, _ in listed]
    write(format_rows(("name", "description"), rows, "table", width=width))
    err(f"bundled scenario files: {_display_path(bundled_dir())}; full descriptions: "
        "--format json; run one by name: unostats simulate NAME")


SCENARIOS_WIDTH = 100  # the listing's width when stdout is not a terminal and $COLUMNS is unset
SCENARIOS_LINES = 3  # lines of description per scenario in the table (json: the full text)


def _first_lines(text: str, width: int, lines: int) -> str:
    """``text`` cut to what fills ``lines`` lines of ``width`` when wrapped, ending in " ..."
    if anything was cut."""
    wrapped = textwrap.wrap(text, width)
    if len(wrapped) <= lines:
        return text
    last = wrapped[lines - 1]
    while len(last) + 4 > width and " " in last:
        last = last.rsplit(" ", 1)[0]
    return " ".join(wrapped[:lines - 1] + [last + " ..."])


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# --- validate ----------------------------------------------------------------------------------

@app.command(no_args_is_help=True, epilog="""Examples:

  unostats validate standard
  unostats validate my.yaml --set players=[2,4] --resolved

FILE is a scenario file or the name of a bundled scenario (a file of that name wins).

Problems go to stderr as FILE:LINE: KEY.PATH: message, all of a file's problems at once.""")
def validate(
    files: Annotated[list[Path], typer.Argument(
        metavar="FILE", dir_okay=False,
        help="Scenario files (YAML) or bundled scenario names.")],
    resolved: Annotated[bool, typer.Option(
        "--resolved", help="Print each file's resolved form (every default filled in) as "
        "JSON, one document per file: what the run's scenario hash identifies; a sweep adds "
        "`cells`, every variant x point x player count it plays.")] = False,
    set_: SetOption = None,
) -> None:
    """Check scenario files without simulating anything."""
    import json

    from ..kinds import kind_of
    from ..scenario import ScenarioError, load_scenario

    failed = False
    for path in files:
        try:
            scenario = load_scenario(path, set_ or [])
        except ScenarioError as e:
            err(str(e))
            failed = True
            continue
        if resolved:
            out = scenario.resolved()
            if scenario.points:  # the cells a sweep expands to (not part of the hash)
                out["cells"] = [{"variant": c.variant.name, "players": c.players,
                                 "sweep": c.sweep} for c in scenario.cells()]
            write(json.dumps(out, indent=2, sort_keys=True) + "\n")
        else:
            write(f"ok: {path} ({kind_of(scenario).outline(scenario)})\n")
    if failed:
        raise typer.Exit(2)
