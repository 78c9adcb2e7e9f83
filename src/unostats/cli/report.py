"""``unostats report`` (the HTML report of stored runs) and ``unostats replay`` (one stored game
played again, checked by the referee and printed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..defaults import DEFAULT_DB
from .app import app
from .common import (
    DbOption,
    OverwriteOption,
    StoreOption,
    err,
    expected_errors,
    fail,
    target,
    write,
)


@app.command(epilog="""Examples:

  unostats report
  unostats report 1a2b3c4d --out reports/extreme.html --title "UNO-Extreme, rule by rule"
  unostats report --site public/reports

The report opens with "The answers": a few sentences per question the scenario asks (round and
game length, what acting first is worth, which rules matter; a sweep's, a tournament's or a
league's own), each number with its 95% interval.

Prints the report's path; index.html (next to the report) is refreshed to list every report in
that folder, if unostats wrote it (your own index.html is left alone, with a note). With --out
the report is one self-contained file (plotly.js inside, ~5 MB); with --site DIR it is
DIR/<scenario>.html and loads plotly.js from one plotly-<version>.min.js file the folder's
reports share, so a folder of reports stays a few MB. A file is replaced if unostats wrote it;
any other file only with --overwrite, and never the results database or a file that is not a
regular one (a FIFO, a device).""")
def report(
    run_refs: Annotated[list[str] | None, typer.Argument(
        metavar="[RUN]...", help="Run ids or unique prefixes (default: the latest run).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", dir_okay=False,
        help="HTML file to write, self-contained (default: reports/<scenario>.html).")] = None,
    site: Annotated[Path | None, typer.Option(
        "--site", file_okay=False,
        help="Folder to write the report into, with the plotly.js its reports share and "
             "the index (not with --out).")] = None,
    title: Annotated[str | None, typer.Option("--title", help="Page title.")] = None,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Write the HTML report of stored runs: the answers in sentences first, then round length,
    scoring spread, first-player advantage and the variants compared, with 95% intervals."""
    from ..report.build import build_report

    db = target(db, store)
    with expected_errors():
        path = build_report(db_path=db, run_ids=run_refs or None, out=out, title=title,
                            overwrite=overwrite, notify=lambda text: err(f"note: {text}"),
                            site=site)
    write(f"{path}\n")


@app.command(no_args_is_help=True, epilog="""Examples:

  unostats replay latest --game 0
  unostats replay 1a2b3c4d --game 17 --round 2 --variant standard --players 4

Exit code 1 if the referee rejects the recomputed game or its numbers differ from the stored
rows.""")
def replay(
    run_ref: Annotated[str, typer.Argument(
        metavar="RUN", help="Run id, unique prefix, or 'latest'.")],
    game: Annotated[int, typer.Option("--game", "-g", min=0, help="Game index (from 0).")],
    round_: Annotated[int | None, typer.Option(
        "--round", "-r", min=1, help="Print only this round (from 1).")] = None,
    variant: Annotated[str | None, typer.Option(
        "--variant", help="The cell's variant (needed when the run has several).")] = None,
    players: Annotated[int | None, typer.Option(
        "--players", min=2, max=10,
        help="The cell's player count (needed when the run has several).")] = None,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
) -> None:
    """Recompute a stored game, check it with the referee and print its events.

    The game is played again from the run's stored scenario and seed; the referee checks every
    event against the rules, and its per-round numbers (winner, turns, points, counters, hands,
    scores) are compared with the stored rows. The events go to stdout."""
    from ..base.progress import ConsoleProgress
    from ..runs.replay import replay as replay_game

    db = target(db, store)
    with expected_errors():
        result = replay_game(run=run_ref, game=game, round=round_, variant=variant,
                             players=players, db=db, progress=ConsoleProgress())
    if result.trace_text:
        write(result.trace_text + "\n")
    where = f"run {result.run_id}, {result.variant} {result.players}p, game {result.game}"
    if result.referee_error:
        fail(f"{where}: {result.referee_error}", 1)
    if result.mismatches:
        err(f"error: {where}: the recomputed game differs from the stored rows:")
        for line in result.mismatches[:20]:
            err(f"  {line}")
        if len(result.mismatches) > 20:
            err(f"  ... and {len(result.mismatches) - 20} more")
        raise typer.Exit(1)
    if not result.compared:
        err(f"{where}: the referee accepts every event (its run kept summary: no stored row "
            "to compare)")
        return
    err(f"{where}: the referee accepts every event and agrees with the stored rows"
        + ("" if len(result.compared) == 4 else f" ({', '.join(result.compared)}: what its "
           "run kept)"))
