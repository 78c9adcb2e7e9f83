"""``unostats simulate``: its options, read into the jobs that ``runs.jobs`` plays (new runs of
scenario files, or one run resumed), then each kind's summary of the finished runs on stdout;
and the command line stored with each run, which its resume line repeats."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from ..defaults import DEFAULT_DB, GAMES_MAX
from .app import app
from .common import (
    AddressOption,
    DbOption,
    Executor,
    ExecutorOption,
    Format,
    FormatOption,
    SetOption,
    StoreOption,
    err,
    expected_errors,
    fail,
    make_executor,
    printable,
    stdout_width,
    target,
    write,
)


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
        "games per table size, rounded up to whole cycles of its seatings; a design: the most "
        "games one candidate gets); at most "
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
    executor: ExecutorOption = Executor.local,
    address: AddressOption = None,
) -> None:
    """Simulate scenario files into the database and print a summary per cell.

    Every cell (variant x player count) of each FILE is played; every game, round and seat is
    stored. Summary columns (stdout): games, rounds, mean turns per round, rounds per game,
    the share of rounds won by the first player (position 0, Wilson interval) and mean points
    per won round, each with its 95% interval (means: ± 1.96 SE). Tournament scenarios print
    per-profile win chances and stage lengths instead.

    On a terminal the table fits its width: the least important columns are left out and named
    under it. Piped or redirected it is whole, and --format csv or json gives every column.
    Shares are percentages in the table, fractions in csv and json."""
    from ..runs.jobs import Job, play_jobs, summaries
    from ..base.progress import ConsoleProgress
    from ..base.session import check_db
    from ..runs.simulate import prepare
    from ..scenario import ScenarioError, load_scenario

    files = files or []
    sets = (set_ or []) + _precision_sets(precision or [])
    if address is not None and executor is not Executor.ray:
        fail("--address names a Ray cluster: give it with --executor ray", 2)
    progress = ConsoleProgress(quiet=quiet, verbose=verbose)
    db = target(db, store)
    with expected_errors():
        check_db(db)  # an in-memory database: refused before any scenario is read
        if resume is not None:
            if len(files) > 1:
                fail("--resume continues one run: give at most one FILE", 2)
            check = None
            if files:  # must resolve to the stored scenario; no seed given: the stored one
                check, _ = prepare(load_scenario(files[0], sets), games=games, seed=seed,
                                   choose_seed=False)
            elif sets or games is not None or seed is not None:
                fail("--set, --games and --seed describe FILE; with --resume and no FILE the "
                     "stored scenario is used as it is", 2)
            jobs = [Job(check, resume=resume)]
        else:
            if not files:
                fail("give at least one scenario FILE (or --resume RUN_ID); "
                     "`unostats scenarios` lists the bundled ones", 2)
            problems, scenarios = [], []
            for path in files:
                try:
                    scenarios.append(load_scenario(path, sets))
                except ScenarioError as e:  # report every file's problems, then stop
                    problems.append(str(e))
            if problems:
                err("\n".join(problems))
                raise typer.Exit(2)

        runner = make_executor(executor, address)
        if resume is None:
            jobs = [Job(s, command=_command_line([path], games=games, seed=seed, db=db,
                                                 threads=threads, sets=sets, executor=runner))
                    for path, s in zip(files, scenarios)]
        outcomes, code = play_jobs(jobs, db=db, seed=seed, games=games, threads=threads,
                                   progress=progress, executor=runner)
        for text in summaries(outcomes, db=db, fmt=fmt.value, width=stdout_width()):
            write(text)
    if code:
        raise typer.Exit(code)


def _precision_sets(targets: list[str]) -> list[str]:
    """--precision STAT=H as the --set that writes it into the scenario (``precision.STAT=H``),
    so the target is validated, hashed and stored with the run like the file key."""
    out = []
    for item in targets:
        stat, eq, width = item.partition("=")
        if not eq or not stat.strip() or not width.strip():
            fail(f"--precision {item!r}: expected STAT=H, e.g. --precision "
                 "turns_per_round=0.5", 2)
        out.append(f"precision.{stat.strip()}={width.strip()}")
    return out


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
    return shlex.join(printable(w) for w in words + where)
