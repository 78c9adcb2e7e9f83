"""``unostats compare`` (stored cells side by side, with 95% intervals) and ``unostats export``
(one run's rows as files)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

import typer

from ..defaults import DEFAULT_DB
from .app import app
from .common import (
    DbOption,
    Format,
    FormatOption,
    OverwriteOption,
    StoreOption,
    expected_errors,
    note,
    stdout_width,
    target,
    write,
)


class ExportFormat(str, enum.Enum):
    parquet = "parquet"
    csv = "csv"


@app.command(no_args_is_help=True, epilog="""Examples:

  unostats compare latest/standard/4 "latest/base uno_penalty=4/4"
  unostats compare 1a2b/standard/4 1a2b/house/4 9c8d/standard/4 --format csv

A cell is RUN/VARIANT/PLAYERS: RUN an id, a unique prefix or latest (quote a variant name with
spaces). Rows: statistic, a, b, diff = b - a with its 95% interval (lo, hi), the method, whether
it is paired, the games used and how much pairing narrowed the interval. The table shows each
value to the digits its interval supports and the first player's share in percent (its
difference in percentage points); csv and json give every column, shares as fractions. Cells of one seed whose
player count, deck and hand size agree deal game i alike, so their difference is taken game by
game (common random numbers); the note on stderr says so, or why not.""")
def compare(
    a: Annotated[str, typer.Argument(metavar="A", help="The cell compared with: "
                                                      "RUN/VARIANT/PLAYERS.")],
    b: Annotated[list[str], typer.Argument(metavar="B...", help="One or more cells, each "
                                                               "RUN/VARIANT/PLAYERS.")],
    fmt: FormatOption = Format.table,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
) -> None:
    """Compare stored cells: for each B, turns per round, rounds per game, points per round
    and the first player's share of round wins, B minus A with 95% intervals (paired over
    games where the deals agree)."""
    from ..base.compare import compare as compare_cells
    from ..base.compare import format_comparisons

    db = target(db, store)
    with expected_errors():
        results = compare_cells(a=a, b=b, db=db)
        write(format_comparisons(results, fmt.value, width=stdout_width()))
        for c in results:
            note(f"note: {c.note}")


# --- export, replay ----------------------------------------------------------------------------

@app.command(no_args_is_help=True, epilog="""Examples:

  unostats export latest --out results/
  unostats export 1a2b3c4d --format csv --out results/ --db results.duckdb

Writes runs, variants, games, game_seats, rounds and round_seats of the run, one file each;
prints the paths.""")
def export(
    run_ref: Annotated[str, typer.Argument(
        metavar="RUN", help="Run id, unique prefix, or 'latest'.")],
    out: Annotated[Path, typer.Option("--out", "-o", file_okay=False,
                                      help="Folder to write to (created if needed).")],
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", case_sensitive=False,
                                              help="File format.")] = ExportFormat.parquet,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Write one run's rows to files (Parquet or CSV with header).

    A file of the same name already in the folder is replaced only with --overwrite (checked
    before anything is written); the results store and anything that is not a regular file
    never."""
    from ..base.query import export as export_run

    db = target(db, store)
    with expected_errors():
        paths = export_run(run=run_ref, out=out, fmt=fmt.value, db=db, overwrite=overwrite)
        write("".join(f"{p}\n" for p in paths))
