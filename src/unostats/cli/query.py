"""``unostats query`` (SQL over the results store, read-only: rows to stdout or to a file) and
``unostats runs`` (the runs stored)."""

from __future__ import annotations

import enum
import re
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ..defaults import DEFAULT_DB
from .app import app
from .common import (
    DbOption,
    Format,
    FormatOption,
    StoreOption,
    err,
    expected_errors,
    fail,
    stdout_width,
    target,
    write,
)


def _parse_params(params: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in params:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
            fail(f"--param {item!r}: expected name=value, e.g. --param players=4", 2)
        name = name.strip()
        if name in out:
            fail(f"--param {name} is given twice; give each parameter once", 2)
        text = value
        parsed: object = text
        if re.fullmatch(r"[+-]?\d+", text.strip()):
            if len(text.strip().lstrip("+-")) > 19:
                fail(f"--param {name}: {_short(text)} has more digits than a 64-bit integer; "
                     "quote a long number in the SQL as text, or CAST a string", 2)
            parsed = int(text)
        elif re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text.strip()):
            parsed = float(text)
        out[name] = parsed
    return out


def _short(text: str, n: int = 30) -> str:
    """A long value shortened for a message: its start and its length."""
    return repr(text) if len(text) <= n else f"{text[:n]!r}... ({len(text):,} characters)"


# A table of more rows than this is not worth reading on a screen: it shows the first ones and
# says so on stderr (csv, json and ndjson stream every row, in constant memory).
MAX_TABLE_ROWS = 10_000


class QueryFormat(str, enum.Enum):
    table = "table"
    csv = "csv"
    json = "json"
    ndjson = "ndjson"
    parquet = "parquet"


# --out FILE without --format: the format its name ends with.
OUT_SUFFIXES = {".csv": "csv", ".json": "json", ".ndjson": "ndjson", ".jsonl": "ndjson",
                ".parquet": "parquet"}


def _utf8(text: str, what: str) -> str:
    """``text`` if it is UTF-8 (an argument of other bytes arrives with surrogate escapes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        byte = ord(text[e.start]) & 0xFF
        fail(f"{what} is not UTF-8 text (byte 0x{byte:02x} at character {e.start + 1}); "
             "write it in UTF-8", 2)
    return text


def _read_sql(sql: str) -> str:
    if sql != "-":
        return _utf8(sql, "the SQL argument")
    try:
        return sys.stdin.read()
    except UnicodeDecodeError as e:
        fail(f"the SQL on stdin is not UTF-8 text (byte 0x{e.object[e.start]:02x} at byte "
             f"{e.start + 1}); write it in UTF-8", 2)


def _out_format(fmt: QueryFormat | None, out: Path | None) -> str:
    """The format of the rows: --format, else (with --out) the one --out's name ends with."""
    if out is None:
        if fmt is QueryFormat.parquet:
            fail("--format parquet writes a file: give it with --out FILE", 2)
        return (fmt or QueryFormat.table).value
    if fmt is None:
        if out.suffix.lower() not in OUT_SUFFIXES:
            fail(f"--out {out}: give --format (csv, json, ndjson or parquet); the name does not "
                 f"end with one of {', '.join(OUT_SUFFIXES)}", 2)
        return OUT_SUFFIXES[out.suffix.lower()]
    if fmt is QueryFormat.table:
        fail("--format table is for the screen; with --out give csv, json, ndjson or parquet", 2)
    return fmt.value


def _stdout_failed(e: OSError) -> NoReturn:
    """Rows that could not be written to stdout: one sentence, and stdout pointed at
    /dev/null so that Python's own flush at exit does not fail again."""
    import errno
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's stdout)
        pass
    if isinstance(e, BrokenPipeError):
        fail("stdout was closed before every row was written (the reader of the pipe stopped); "
             "narrow the query with LIMIT, or write the rows with --out FILE", 1)
    reason = "no space left on the device" if e.errno == errno.ENOSPC else (e.strerror or str(e))
    fail(f"cannot write the rows to stdout: {reason}; write them with --out FILE instead", 1)


@app.command(no_args_is_help=True, epilog="""Examples:

  unostats query "SELECT variant, players, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL"
  unostats query "SELECT * FROM win_rate_by_position WHERE players = $n" --param n=4 -f csv
  unostats query - --format json < question.sql
  unostats query "SELECT * FROM rounds" --out rounds.parquet
  unostats query "SELECT * FROM round_length" --out lengths.csv --overwrite

Tables: runs, variants (with each cell's sweep point), games, game_seats, rounds,
round_seats, precision_looks. Views: round_length,
win_rate_by_position, game_win_rate_by_position, score_spread, game_length, durations
(minutes per round and game at the scenario's seconds_per_turn). Macros:
wilson_lo(k, n), wilson_hi(k, n).

Tournament runs add the tables tournament_fields, tournament_stages, tournaments,
tournament_tables, tournament_entrants and the views tournament_profile_wins,
tournament_profile_stages, tournament_stage_length, tournament_length,
tournament_advance_by_position, tournament_decided_by, tournament_durations.

League runs add the table league_fits and the view league_ratings (each policy's rating at
each table size, its 95% interval, games, wins, method).""")
def query(
    sql: Annotated[str, typer.Argument(
        metavar="SQL", help="SQL to run, or - to read it from stdin.")],
    fmt: Annotated[QueryFormat | None, typer.Option(
        "--format", "-f", case_sensitive=False, show_default=False,
        help="Format of the rows: table (the default on screen), csv, json, ndjson; with --out "
             "also parquet (default: the one --out's name ends with).")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="NAME=VALUE",
        help="A named parameter, used as $NAME in the SQL (repeatable). Values that look like "
             "numbers are numbers; anything else is text.")] = None,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="FILE",
        help="Write the rows to FILE (a new file; never one of the results store's) instead "
             "of stdout.")] = None,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Let --out replace an existing file (a regular file only).")] = False,
) -> None:
    """Run SQL over the results store (read-only).

    The SQL runs in DuckDB's sandbox: it reads the store only (no other file, no COPY, ATTACH,
    IMPORT/EXPORT DATABASE or extension; settings are locked), and writing statements are
    refused; CREATE TEMP TABLE works for scratch work. To save a result, give --out FILE.
    Rows are streamed; a table shows at most 10,000 rows (csv, json and ndjson give them all).
    SQL errors are one line on stderr (exit 1)."""
    from ..output import write_rows
    from ..base.query import save, stream

    text = _read_sql(sql)
    if not text.strip():
        fail("no SQL given" + (" on stdin" if sql == "-" else ""), 2)
    params = _parse_params([_utf8(p, f"--param {p.partition('=')[0]!r}") for p in param or []])
    form = _out_format(fmt, out)
    db = target(db, store)
    if out is not None:
        with expected_errors():
            count = save(sql=text, out=out, fmt=form, params=params, db=db, overwrite=overwrite)
        err(f"wrote {count:,} rows to {out}")
        return
    if sys.stdout is None:  # started with stdout closed (>&-)
        fail("stdout is closed, so the rows have nowhere to go; write them with --out FILE", 1)
    with expected_errors(), stream(sql=text, params=params, db=db) as result:
        json_columns = [c for c, t in zip(result.columns, result.types) if t == "JSON"]
        try:
            cut = write_rows(sys.stdout, result.columns, result.rows, form,
                             json_columns=json_columns, width=stdout_width(),
                             max_table_rows=MAX_TABLE_ROWS)
            sys.stdout.flush()
        except OSError as e:
            _stdout_failed(e)
        if cut is not None:
            err(f"note: the result has more than {cut:,} rows, too many for a table: only the "
                "first ones are shown. Use --format csv, json or ndjson for every row (streamed), "
                "or narrow the query (LIMIT, WHERE, GROUP BY)")



@app.command(epilog="""Examples:

  unostats runs
  unostats runs --format json --db results.duckdb
  unostats runs --store parquet:results/""")
def runs(fmt: FormatOption = Format.table, db: DbOption = Path(DEFAULT_DB),
         store: StoreOption = None) -> None:
    """List the runs in the database.

    Columns: run id, scenario name, status (running, complete, interrupted: also a run whose
    process is gone, e.g. killed), start time (UTC), games requested and completed (over all
    cells), seed."""
    from ..output import format_rows
    from ..base.query import list_runs

    db = target(db, store)
    with expected_errors():
        result = list_runs(db)
        write(format_rows(result.columns, result.rows, fmt.value, width=stdout_width()))
