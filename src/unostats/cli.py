"""The ``unostats`` command line: thin Typer commands over ``runs``, ``report``, ``store`` and
``scenario``.

stdout carries data only (tables, CSV, JSON, traces); progress, logs and hints go to stderr.
Exit codes: 0 ok, 1 runtime failure, 2 usage or validation error; 130/143 when ``simulate`` is
stopped by SIGINT/SIGTERM. Expected errors are one message on stderr, never a traceback.

Start-up stays fast: this module imports neither the engine nor numba (nor polars); each command
imports what it needs when it runs, so ``query`` and ``runs`` start in a fraction of a second.
"""

from __future__ import annotations

import enum
import re
import shlex
import shutil
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

DB_ENV = "UNOSTATS_DB"  # runs.session.DB_ENV (not imported: keep start-up light)
STORE_ENV = "UNOSTATS_STORE"
DEFAULT_DB = "unostats.duckdb"
GAMES_MAX = 10**12  # scenario.resolve.GAMES_MAX (not imported: keep start-up light)

app = typer.Typer(
    name="unostats",
    help="Measure UNO rule variants: simulate millions of games, store every game and round in "
         "DuckDB, answer questions with SQL.",
    epilog="Examples:\n\n"
           "  unostats simulate standard --games 500\n"
           "  unostats query \"SELECT * FROM round_length\" --format csv\n"
           "  unostats runs\n\n"
           "Every command has --help with examples.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
)


class Format(str, enum.Enum):
    table = "table"
    csv = "csv"
    json = "json"
    ndjson = "ndjson"


class Executor(str, enum.Enum):
    local = "local"
    ray = "ray"


class ExportFormat(str, enum.Enum):
    parquet = "parquet"
    csv = "csv"


DbOption = Annotated[Path, typer.Option(
    "--db", envvar=DB_ENV, show_envvar=True, dir_okay=False,
    help="The results database (DuckDB file).")]
StoreOption = Annotated[str | None, typer.Option(
    "--store", envvar=STORE_ENV, show_envvar=True, metavar="SPEC",
    help="The results store instead of --db: parquet:DIR (a Parquet dataset in the folder or "
         "URI DIR, e.g. parquet:results/ or parquet:s3://bucket/unostats) or duckdb:FILE "
         "(the same as --db FILE).")]
FormatOption = Annotated[Format, typer.Option(
    "--format", "-f", case_sensitive=False, help="Output format of the rows.")]
OverwriteOption = Annotated[bool, typer.Option(
    "--overwrite", help="Replace an existing output file that unostats did not write (never "
    "the results store, nor a FIFO, device or folder).")]
SetOption = Annotated[list[str] | None, typer.Option(
    "--set", metavar="PATH=VALUE",
    help="Override a scenario value before validation (repeatable), e.g. --set players=4, "
         "--set rules.uno_penalty=4, --set variants.fast.rules.hand_size=5.")]


# --- Errors ------------------------------------------------------------------------------------

def _err(text: str) -> None:
    print(_printable(text), file=sys.stderr, flush=True)


def _fail(message: str, code: int) -> NoReturn:
    _err(f"error: {message}")
    raise typer.Exit(code)


@contextmanager
def _expected_errors() -> Iterator[None]:
    """Turn the package's expected exceptions into one message on stderr and an exit code."""
    from .runs.session import RunError
    from .scenario import ScenarioError
    from .store import OutputRefused, StoreError, UnknownRunError

    try:
        yield
    except ScenarioError as e:
        _err(str(e))
        raise typer.Exit(2) from None
    except RunError as e:
        _fail(str(e), e.exit_code)
    except (UnknownRunError, OutputRefused) as e:
        _fail(str(e), 2)
    except StoreError as e:
        _fail(str(e), 1)


def _target(db: Path, spec: str | None):
    """The store a command uses: --store SPEC (parquet:DIR or duckdb:FILE), else --db. Both
    given (a --db other than the default, or $UNOSTATS_DB) is a usage error."""
    if spec is None:
        return db
    import os
    if db != Path(DEFAULT_DB) or os.environ.get(DB_ENV):
        _fail("give either --db or --store (or $UNOSTATS_DB or $UNOSTATS_STORE), not both", 2)
    from .store import StoreError, parse_store
    try:
        return parse_store(spec)
    except StoreError as e:
        _fail(str(e), 2)


def _stdout_width() -> int | None:
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _write(text: str) -> None:
    sys.stdout.write(_printable(text))
    sys.stdout.flush()


# --- simulate ----------------------------------------------------------------------------------

@app.command(no_args_is_help=True, epilog="""Examples:

  unostats simulate standard
  unostats simulate extreme --games 10000 --seed 7 --db results.duckdb
  unostats simulate my.yaml --set players=4 --set rules.uno_penalty=4 -q
  unostats simulate scenarios/standard.yaml --games 50000 --precision first_player_share=0.005
  unostats simulate --resume 1a2b3c4d --db results.duckdb
  unostats simulate sweeps --store parquet:results/
  unostats simulate scenarios/sweeps.yaml --executor ray --address auto

FILE is a scenario file or the name of a bundled scenario (`unostats scenarios` lists them; a
file of that name in the current folder wins). Each FILE is its own run (run id printed in the summary). Ctrl-C or SIGTERM stops after the
batch being stored, marks the run interrupted and prints the command that resumes it; a
resumed run is identical to an uninterrupted one with the same seed.

A scenario with a `tournament:` section (e.g. the bundled championship) plays whole
championships: its summary gives, per profile, the chance one entrant wins (95% interval), the
fair share 1/entrants, the edge over it and the chance to reach the final; then rounds and
turns per stage and the length of the evening. (csv/json: the profile rows only; the rest is
in the tournament_* views.)

A scenario with a `league:` section (e.g. the bundled strategies) seats its policies in
balanced seatings at each table size; its summary adds the league table: each policy's rating
with its 95% bootstrap interval, games and wins (csv/json: those rows, the league_ratings
view).""")
def simulate(
    files: Annotated[list[Path] | None, typer.Argument(
        metavar="FILE", dir_okay=False,
        help="Scenario files (YAML) or bundled scenario names (e.g. extreme). Optional with "
             "--resume: the stored scenario is used; if given, it must resolve to the stored "
             "one (same canonical hash).")] = None,
    games: Annotated[int | None, typer.Option(
        "--games", "-n", min=1, max=GAMES_MAX, help="Games per cell, instead of the file's "
        "`games` (a tournament scenario: whole tournaments per variant and field; a league: "
        "games per table size, rounded up to whole cycles of its seatings); at most "
        "10^12, as in a file.")] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, max=2**63 - 1,
        help="Run seed, instead of the file's `seed`; with neither, one is chosen, printed "
             "and stored.")] = None,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
    threads: Annotated[int | None, typer.Option(
        "--threads", "-t", min=1, help="Engine threads (default: all, NUMBA_NUM_THREADS). "
        "Results do not depend on it. Tournament runs play each table's game on one thread.")
    ] = None,
    set_: SetOption = None,
    precision: Annotated[list[str] | None, typer.Option(
        "--precision", metavar="STAT=H",
        help="Play each cell in batches until the 95% interval half-width of STAT is at most "
             "H, the file's games (or --games) being the cap (repeatable; as the file key "
             "`precision: {STAT: H}`). STAT: turns_per_round, rounds_per_game, "
             "points_per_round, first_player_share.")] = None,
    resume: Annotated[str | None, typer.Option(
        "--resume", metavar="RUN_ID",
        help="Continue an interrupted run (id, unique prefix or 'latest').")] = None,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress or log lines on stderr (errors and the resume "
        "hint still appear).")] = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Log every stored batch on stderr.")] = False,
    fmt: FormatOption = Format.table,
    executor: Annotated[Executor, typer.Option(
        "--executor", help="Where the games are played: local (this machine's threads) or "
        "ray (batches as tasks on a Ray cluster, `pip install 'unostats\\[ray]'`; plain-games "
        "scenarios). The rows are the same either way, and either resumes the other's runs."
    )] = Executor.local,
    address: Annotated[str | None, typer.Option(
        "--address", metavar="HOST:PORT|auto",
        help="With --executor ray: the cluster to join (HOST:PORT of its head, or auto: the "
             "one started on this machine with `ray start`, or $RAY_ADDRESS). Default: a Ray "
             "instance of this command's own on this machine.")] = None,
) -> None:
    """Simulate scenario files into the database and print a summary per cell.

    Every cell (variant x player count) of each FILE is played; every game, round and seat is
    stored. Summary columns (stdout): games, rounds, mean turns per round, rounds per game,
    the share of rounds won by the first player (position 0, Wilson interval) and mean points
    per won round, each with its 95% interval (means: ± 1.96 SE). Tournament scenarios print
    per-profile win chances and stage lengths instead."""
    from .kinds import RUN_KINDS, kind_of
    from .runs.progress import ConsoleProgress
    from .runs.session import check_db
    from .runs.signals import StopRequest, is_interrupt, stop_on_signals
    from .runs.simulate import prepare, resume as resume_run, simulate as simulate_run
    from .scenario import ScenarioError, load_scenario

    files = files or []
    sets = (set_ or []) + _precision_sets(precision or [])
    if address is not None and executor is not Executor.ray:
        _fail("--address names a Ray cluster: give it with --executor ray", 2)
    progress = ConsoleProgress(quiet=quiet, verbose=verbose)
    stop = StopRequest()
    outcomes = []
    code = 0
    db = _target(db, store)
    with _expected_errors():
        check_db(db)  # an in-memory database: refused before any scenario is read
        if resume is not None:
            if len(files) > 1:
                _fail("--resume continues one run: give at most one FILE", 2)
            check = None
            if files:  # must resolve to the stored scenario; no seed given: the stored one
                check, _ = prepare(load_scenario(files[0], sets), games=games, seed=seed,
                                   choose_seed=False)
            elif sets or games is not None or seed is not None:
                _fail("--set, --games and --seed describe FILE; with --resume and no FILE the "
                      "stored scenario is used as it is", 2)
            jobs = [("resume", check)]
        else:
            if not files:
                _fail("give at least one scenario FILE (or --resume RUN_ID); "
                      "`unostats scenarios` lists the bundled ones", 2)
            problems, scenarios = [], []
            for path in files:
                try:
                    scenarios.append(load_scenario(path, sets))
                except ScenarioError as e:  # report every file's problems, then stop
                    problems.append(str(e))
            if problems:
                _err("\n".join(problems))
                raise typer.Exit(2)
            jobs = [("new", s) for s in scenarios]

        runner = _executor(executor, address)
        try:
            with stop_on_signals(stop, notify=progress.warn):
                for i, (job, scenario) in enumerate(jobs):
                    if job == "resume":
                        outcome = resume_run(run=resume, db=db, scenario=scenario,
                                             threads=threads, progress=progress, stop=stop,
                                             executor=runner)
                    else:
                        outcome = simulate_run(scenario=scenario, db=db, seed=seed, games=games,
                                               threads=threads, progress=progress, stop=stop,
                                               executor=runner,
                                               command=_command_line(
                                                   [files[i]], games=games,
                                                   seed=seed, db=db, threads=threads, sets=sets,
                                                   executor=runner))
                    outcomes.append(outcome)
                    if outcome.status != "complete":
                        code = stop.exit_code if outcome.signal else 1
                        rest = [str(s.source_path) for _, s in jobs[i + 1:] if s is not None]
                        if rest:
                            progress.warn(f"not started: {', '.join(rest)}")
                        break
        except BaseException as e:  # a second Ctrl-C, also one DuckDB said as its own error
            if not is_interrupt(e):
                raise
            code = 130
        finally:
            if runner is not None:
                runner.close()
        finished = [o for o in outcomes if o.status == "complete"]
        shown = False
        for kind in RUN_KINDS:  # each kind's summary of its finished runs, a blank line between
            run_ids = [o.run_id for o in finished if kind_of(o.scenario) is kind]
            if run_ids:
                if shown and fmt.value == "table":
                    _write("\n")
                _write(kind.summary(db=db, run_ids=run_ids, fmt=fmt.value,
                                    width=_stdout_width()))
                shown = True
    if code:
        raise typer.Exit(code)


def _precision_sets(targets: list[str]) -> list[str]:
    """--precision STAT=H as the --set that writes it into the scenario (``precision.STAT=H``),
    so the target is validated, hashed and stored with the run like the file key."""
    out = []
    for item in targets:
        stat, eq, width = item.partition("=")
        if not eq or not stat.strip() or not width.strip():
            _fail(f"--precision {item!r}: expected STAT=H, e.g. --precision "
                  "turns_per_round=0.5", 2)
        out.append(f"precision.{stat.strip()}={width.strip()}")
    return out


def _executor(executor: Executor, address: str | None):
    """The executor object of --executor (None: the local one). Ray is imported only here."""
    if executor is Executor.local:
        return None
    from .runs.ray_cluster import is_loopback, joins, use_loopback
    if is_loopback(joins(address)):  # before Ray is imported: Ray reads it once
        use_loopback()
    try:
        from .runs.ray_games import RayExecutor
    except ImportError as e:
        _fail(f"--executor ray needs Ray: pip install 'unostats[ray]' ({e})", 2)
    return RayExecutor(address)


def _command_line(files: list[Path], *, games: int | None, seed: int | None, db,
                  threads: int | None, sets: list[str], executor=None) -> str:
    """The simulate command as stored with the run (rebuilt from the parsed options)."""
    words = ["unostats", "simulate", *map(str, files)]
    for name, value in (("--games", games), ("--seed", seed), ("--threads", threads)):
        if value is not None:
            words += [name, str(value)]
    for expr in sets:
        words += ["--set", expr]
    if executor is not None:
        words += list(executor.resume_options)
    # A file name that is not UTF-8 (undecodable bytes as surrogates) is stored with \x escapes.
    where = ["--db", str(db)] if isinstance(db, Path) else ["--store", str(db)]
    return shlex.join(_printable(w) for w in words + where)


def _printable(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# --- query -------------------------------------------------------------------------------------

def _parse_params(params: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in params:
        name, eq, value = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
            _fail(f"--param {item!r}: expected name=value, e.g. --param players=4", 2)
        name = name.strip()
        if name in out:
            _fail(f"--param {name} is given twice; give each parameter once", 2)
        text = value
        parsed: object = text
        if re.fullmatch(r"[+-]?\d+", text.strip()):
            if len(text.strip().lstrip("+-")) > 19:
                _fail(f"--param {name}: {_short(text)} has more digits than a 64-bit integer; "
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
        _fail(f"{what} is not UTF-8 text (byte 0x{byte:02x} at character {e.start + 1}); "
              "write it in UTF-8", 2)
    return text


def _read_sql(sql: str) -> str:
    if sql != "-":
        return _utf8(sql, "the SQL argument")
    try:
        return sys.stdin.read()
    except UnicodeDecodeError as e:
        _fail(f"the SQL on stdin is not UTF-8 text (byte 0x{e.object[e.start]:02x} at byte "
              f"{e.start + 1}); write it in UTF-8", 2)


def _out_format(fmt: QueryFormat | None, out: Path | None) -> str:
    """The format of the rows: --format, else (with --out) the one --out's name ends with."""
    if out is None:
        if fmt is QueryFormat.parquet:
            _fail("--format parquet writes a file: give it with --out FILE", 2)
        return (fmt or QueryFormat.table).value
    if fmt is None:
        if out.suffix.lower() not in OUT_SUFFIXES:
            _fail(f"--out {out}: give --format (csv, json, ndjson or parquet); the name does not "
                  f"end with one of {', '.join(OUT_SUFFIXES)}", 2)
        return OUT_SUFFIXES[out.suffix.lower()]
    if fmt is QueryFormat.table:
        _fail("--format table is for the screen; with --out give csv, json, ndjson or parquet", 2)
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
        _fail("stdout was closed before every row was written (the reader of the pipe stopped); "
              "narrow the query with LIMIT, or write the rows with --out FILE", 1)
    reason = "no space left on the device" if e.errno == errno.ENOSPC else (e.strerror or str(e))
    _fail(f"cannot write the rows to stdout: {reason}; write them with --out FILE instead", 1)


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
    from .output import write_rows
    from .runs.query import save, stream

    text = _read_sql(sql)
    if not text.strip():
        _fail("no SQL given" + (" on stdin" if sql == "-" else ""), 2)
    params = _parse_params([_utf8(p, f"--param {p.partition('=')[0]!r}") for p in param or []])
    form = _out_format(fmt, out)
    db = _target(db, store)
    if out is not None:
        with _expected_errors():
            count = save(sql=text, out=out, fmt=form, params=params, db=db, overwrite=overwrite)
        _err(f"wrote {count:,} rows to {out}")
        return
    if sys.stdout is None:  # started with stdout closed (>&-)
        _fail("stdout is closed, so the rows have nowhere to go; write them with --out FILE", 1)
    with _expected_errors(), stream(sql=text, params=params, db=db) as result:
        json_columns = [c for c, t in zip(result.columns, result.types) if t == "JSON"]
        try:
            cut = write_rows(sys.stdout, result.columns, result.rows, form,
                             json_columns=json_columns, width=_stdout_width(),
                             max_table_rows=MAX_TABLE_ROWS)
            sys.stdout.flush()
        except OSError as e:
            _stdout_failed(e)
        if cut is not None:
            _err(f"note: the result has more than {cut:,} rows, too many for a table: only the "
                 "first ones are shown. Use --format csv, json or ndjson for every row (streamed), "
                 "or narrow the query (LIMIT, WHERE, GROUP BY)")


# --- runs, scenarios ---------------------------------------------------------------------------

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
    from .output import format_rows
    from .runs.query import list_runs

    db = _target(db, store)
    with _expected_errors():
        result = list_runs(db)
        _write(format_rows(result.columns, result.rows, fmt.value, width=_stdout_width()))


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
    from .output import format_rows
    from .scenario import bundled_dir, bundled_scenarios

    listed = bundled_scenarios()
    if fmt.value != "table":
        _write(format_rows(("name", "file", "description"),
                           [(name, str(path), text) for name, text, path in listed], fmt.value))
        return
    width = max(shutil.get_terminal_size((SCENARIOS_WIDTH, 24)).columns, 40)
    room = width - 2 - max([len("name"), *(len(name) for name, _, _ in listed)])
    rows = [(name, _first_lines(text, max(room, 20), SCENARIOS_LINES))
            for name, text, _ in listed]
    _write(format_rows(("name", "description"), rows, "table", width=width))
    _err(f"bundled scenario files: {_display_path(bundled_dir())}; full descriptions: "
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

    from .kinds import kind_of
    from .scenario import ScenarioError, load_scenario

    failed = False
    for path in files:
        try:
            scenario = load_scenario(path, set_ or [])
        except ScenarioError as e:
            _err(str(e))
            failed = True
            continue
        if resolved:
            out = scenario.resolved()
            if scenario.points:  # the cells a sweep expands to (not part of the hash)
                out["cells"] = [{"variant": c.variant.name, "players": c.players,
                                 "sweep": c.sweep} for c in scenario.cells()]
            _write(json.dumps(out, indent=2, sort_keys=True) + "\n")
        else:
            _write(f"ok: {path} ({kind_of(scenario).outline(scenario)})\n")
    if failed:
        raise typer.Exit(2)


# --- compare -----------------------------------------------------------------------------------

@app.command(no_args_is_help=True, epilog="""Examples:

  unostats compare latest/standard/4 "latest/base uno_penalty=4/4"
  unostats compare 1a2b/standard/4 1a2b/house/4 9c8d/standard/4 --format csv

A cell is RUN/VARIANT/PLAYERS: RUN an id, a unique prefix or latest (quote a variant name with
spaces). Rows: statistic, a, b, diff = b - a with its 95% interval (lo, hi), the method, whether
it is paired, the games used and how much pairing narrowed the interval. Cells of one seed whose
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
    from .output import format_rows
    from .runs.compare import COLUMNS
    from .runs.compare import compare as compare_cells

    db = _target(db, store)
    with _expected_errors():
        results = compare_cells(a=a, b=b, db=db)
        _write(format_rows(COLUMNS, [row.values() for c in results for row in c.rows],
                           fmt.value, width=_stdout_width()))
        for c in results:
            _err(f"note: {c.note}")


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
    from .runs.query import export as export_run

    db = _target(db, store)
    with _expected_errors():
        paths = export_run(run=run_ref, out=out, fmt=fmt.value, db=db, overwrite=overwrite)
        _write("".join(f"{p}\n" for p in paths))


@app.command(epilog="""Examples:

  unostats report
  unostats report 1a2b3c4d --out reports/extreme.html --title "UNO-Extreme, rule by rule"

Prints the report's path; reports/index.html (next to the report) is refreshed to list every
report in that folder, if unostats wrote it (your own index.html is left alone, with a note).
OUT is replaced if it is a report unostats wrote; any other file only with --overwrite, and
never the results database or a file that is not a regular one (a FIFO, a device).""")
def report(
    run_refs: Annotated[list[str] | None, typer.Argument(
        metavar="[RUN]...", help="Run ids or unique prefixes (default: the latest run).")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", dir_okay=False,
        help="HTML file to write (default: reports/<scenario>.html).")] = None,
    title: Annotated[str | None, typer.Option("--title", help="Page title.")] = None,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Write one self-contained HTML report (round length, scoring spread, first-player
    advantage, variants compared, with 95% intervals) from the stored runs."""
    from .report.build import build_report

    db = _target(db, store)
    with _expected_errors():
        path = build_report(db_path=db, run_ids=run_refs or None, out=out, title=title,
                            overwrite=overwrite, notify=lambda text: _err(f"note: {text}"))
    _write(f"{path}\n")


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
    from .runs.progress import ConsoleProgress
    from .runs.replay import replay as replay_game

    db = _target(db, store)
    with _expected_errors():
        result = replay_game(run=run_ref, game=game, round=round_, variant=variant,
                             players=players, db=db, progress=ConsoleProgress())
    if result.trace_text:
        _write(result.trace_text + "\n")
    where = f"run {result.run_id}, {result.variant} {result.players}p, game {result.game}"
    if result.referee_error:
        _fail(f"{where}: {result.referee_error}", 1)
    if result.mismatches:
        _err(f"error: {where}: the recomputed game differs from the stored rows:")
        for line in result.mismatches[:20]:
            _err(f"  {line}")
        if len(result.mismatches) > 20:
            _err(f"  ... and {len(result.mismatches) - 20} more")
        raise typer.Exit(1)
    _err(f"{where}: the referee accepts every event and agrees with the stored rows")


# --- tune --------------------------------------------------------------------------------------

class Objective(str, enum.Enum):
    games = "games"
    rounds = "rounds"


@app.command(no_args_is_help=True, epilog=(
    "Examples:\n\n"
    "  unostats tune standard --set players=4 --seat 0 --budget 200000 --out tuned.yaml\n"
    "  unostats tune my.yaml --seat 2 --budget 50000 --objective rounds --seed 7 --out s2.yaml\n"
    "  unostats tune standard --set players=4 --budget 20000 --games-per-candidate 100 -f csv"
    "\n\n"
    "Seat S plays a policy written as data whose weights CMA-ES searches, against the other "
    "seats of FILE's first variant at its first player count (--set players=N picks another). "
    "It starts from seat S's own weights if FILE gives it a policy written as data, else from "
    "all weights 0 (which plays as random), and keeps its colour and ties rules. Every "
    "candidate of a generation plays the same games; the budget is the search's games, "
    "generations x population x games per candidate (stderr shows the split and a line per "
    "generation with the time left).\n\n"
    "Then the tuned policy and every bundled policy play the same fresh held-out games in seat "
    "S against the same opponents: stdout gets each one's win rate with its 95% Wilson "
    "interval and its difference from the tuned one (paired over the games, 95%).\n\n"
    "OUT is a seat mapping for an entry of `seats:` in a scenario, e.g. --set "
    "'seats=[...]' --set \"seats[0]=$(cat tuned.yaml)\"; its comment lines say how it was "
    "tuned and how it did. Ctrl-C stops the search after the generation being played and "
    "still evaluates and writes the policy reached; a second Ctrl-C abandons the run (nothing "
    "written)."))
def tune(
    file: Annotated[Path, typer.Argument(
        metavar="FILE", dir_okay=False,
        help="Scenario file (YAML) or bundled scenario name; its first variant and player "
             "count are played.")],
    seat: Annotated[int, typer.Option(
        "--seat", "-s", min=0, help="The seat whose policy is tuned (from 0).")] = 0,
    budget: Annotated[int, typer.Option(
        "--budget", "-b", min=1, max=GAMES_MAX,
        help="Games the search may play (the held-out games come on top).")] = 100_000,
    out: Annotated[Path, typer.Option(
        "--out", "-o", dir_okay=False, help="YAML file to write the tuned seat to.")
    ] = Path("tuned.yaml"),
    objective: Annotated[Objective, typer.Option(
        "--objective", case_sensitive=False,
        help="What seat S wins: games (to the target score), or rounds.")] = Objective.games,
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, max=2**63 - 1,
        help="Seed of the search and of the held-out games (default: the file's seed; with "
             "none, one is chosen and printed). Same seed, same tuned weights.")] = None,
    population: Annotated[int | None, typer.Option(
        "--population", min=2, max=1000,
        help="Candidates per generation (default: CMA-ES's 4 + 3 ln(features)).")] = None,
    games_per_candidate: Annotated[int | None, typer.Option(
        "--games-per-candidate", min=1, max=GAMES_MAX,
        help="Games each candidate plays per generation (default: budget / (population x "
             "40), from 50 to 2,000).")] = None,
    holdout: Annotated[int, typer.Option(
        "--holdout", min=2, max=GAMES_MAX,
        help="Held-out games per policy (tuned, and each bundled one).")] = 5_000,
    name: Annotated[str, typer.Option(
        "--name", help="The tuned policy's name (what results and reports show).")
    ] = "tuned",
    set_: SetOption = None,
    threads: Annotated[int | None, typer.Option(
        "--threads", "-t", min=1, help="Engine threads (default: all, NUMBA_NUM_THREADS). "
        "Results do not depend on it.")] = None,
    overwrite: OverwriteOption = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress or log lines on stderr.")] = False,
    fmt: FormatOption = Format.table,
) -> None:
    """Tune one seat's policy (weights of card features) to win more, and compare it on fresh
    games with every bundled policy in the same seat."""
    from .runs.progress import ConsoleProgress
    from .runs.signals import StopRequest, stop_on_signals
    from .runs.tune import plan as plan_tuning, tune as run_tuning, write_policy
    from .scenario import load_scenario
    from .store import check_output

    if not name.strip():
        _fail("--name: give the tuned policy a name", 2)
    progress = ConsoleProgress(quiet=quiet)
    stop = StopRequest()
    with _expected_errors():
        # refused before the tuning, not after it
        check_output(out, overwrite=overwrite, what="the tuned seat")
        if not out.parent.is_dir():
            _fail(f"--out {out}: no folder {out.parent} to write it in", 2)
        scenario = load_scenario(file, set_ or [])
        plan = plan_tuning(scenario, seat=seat, budget=budget, objective=objective.value,
                           seed=seed, population=population, games=games_per_candidate,
                           holdout=holdout, name=name)
        progress.log(f"tuning seat {plan.seat} of {plan.scenario} ({plan.variant}, "
                     f"{plan.players} players) to win {objective.value}, over "
                     f"{len(plan.features)} features; seed {plan.seed}"
                     + (" (chosen: give --seed to repeat)" if plan.seed_chosen else ""))
        progress.log(plan.split.text(plan.budget))
        try:
            with stop_on_signals(stop, notify=progress.warn,
                                 finishing="the generation being played"):
                tuned = run_tuning(plan, threads=threads, progress=progress, stop=stop)
        except KeyboardInterrupt:
            progress.close()
            _fail(f"interrupted: nothing written to {out}", 130)
        command = _tune_command(file, seat=plan.seat, budget=budget, objective=objective.value,
                                seed=plan.seed, population=population,
                                games=games_per_candidate, holdout=holdout, name=name,
                                sets=set_ or [], out=out)
        write_policy(tuned, out, command=command, overwrite=overwrite)
        _write(_tune_table(tuned, fmt.value))
        s = tuned.standing
        progress.log(f"wrote {out}: {tuned.policy.name}, held-out {objective.value[:-1]} win "
                     f"rate {s.rate.value:.3f} [{s.rate.lo:.3f}, {s.rate.hi:.3f}] over "
                     f"{s.games:,} games (fair share {1 / plan.players:.3f}); search "
                     f"{tuned.search_seconds:.0f} s, held-out {tuned.holdout_seconds:.0f} s")
    if tuned.stopped:
        raise typer.Exit(stop.exit_code)


def _tune_table(tuned, fmt: str) -> str:
    from .output import format_interval, format_rows
    from .runs.tune import COLUMNS, rows

    table = rows(tuned)
    if fmt != "table":
        return format_rows(COLUMNS, table, fmt)
    rounds = tuned.plan.objective == "rounds"
    unit = "round" if rounds else "game"
    return format_rows(
        ("policy", "kind", "games", *(["rounds"] * rounds), f"{unit} wins",
         f"{unit} win rate [95% CI]", "minus tuned [95% CI]"),
        [[*r[:3], *([r[3]] * rounds), r[4], format_interval(*r[5:8]),
          "-" if r[1] == "tuned" else format_interval(*r[8:11])] for r in table],
        "table", width=_stdout_width())


def _tune_command(file: Path, *, seat: int, budget: int, objective: str, seed: int,
                  population: int | None, games: int | None, holdout: int, name: str,
                  sets: list[str], out: Path) -> str:
    """The tune command that repeats this tuning (the seed as resolved)."""
    words = ["unostats", "tune", str(file), "--seat", str(seat), "--budget", str(budget),
             "--objective", objective, "--seed", str(seed)]
    for option, value in (("--population", population), ("--games-per-candidate", games)):
        if value is not None:
            words += [option, str(value)]
    words += ["--holdout", str(holdout), "--name", name]
    for expr in sets:
        words += ["--set", expr]
    return shlex.join(_printable(w) for w in words + ["--out", str(out)])


def main() -> None:  # pragma: no cover - console entry alternative
    app()
