"""``unostats design``: play a scenario's ``design:`` section (or resume a design run), then
print its Pareto set with intervals and write it as a scenario file of ready-to-use variants."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from ..defaults import DEFAULT_DB
from .app import app
from .common import (
    AddressOption,
    DbOption,
    Executor,
    ExecutorOption,
    Format,
    FormatOption,
    OverwriteOption,
    SetOption,
    err,
    expected_errors,
    fail,
    make_executor,
    printable,
    stdout_width,
    write,
)


@app.command(no_args_is_help=True, epilog="""Examples:

  unostats design scenarios/design.yaml
  unostats design scenarios/design.yaml --out evening.yaml --db design.duckdb
  unostats design my.yaml --set design.budget.candidates=50 --seed 3
  unostats design --resume 1a2b3c4d --db design.duckdb --out evening.yaml
  unostats design scenarios/design.yaml --executor ray --address auto

FILE is a scenario with a `design:` section (its one variant is the base the search changes;
docs/guide/design.md). An optimiser proposes candidate settings of the searched rules, each is
played with growing game counts while it is still in contention, and every candidate is stored
as a cell named by its settings (`unostats query`, `compare` and `report` see them). Ctrl-C
stops after the batch being stored; --resume goes on and finds the same candidates. With
--executor ray each look's games of a candidate play as tasks on a Ray cluster: the same
seed gives the same candidates and Pareto set as on this machine's threads.

Without --out the scenario of the Pareto set goes to stdout and the table to stderr; with
--out the table goes to stdout.""")
def design(
    file: Annotated[Path | None, typer.Argument(
        metavar="FILE", dir_okay=False,
        help="A scenario file with a design: section, or a bundled scenario's name (optional "
             "with --resume: if given, it must resolve to the stored one).")] = None,
    seed: Annotated[int | None, typer.Option(
        "--seed", min=0, max=2**63 - 1,
        help="Run seed, instead of the file's `seed` (it seeds the optimiser and the games); "
             "with neither, one is chosen, printed and stored.")] = None,
    db: DbOption = Path(DEFAULT_DB),
    threads: Annotated[int | None, typer.Option(
        "--threads", "-t", min=1, help="Engine threads (default: all). Results do not depend "
        "on it.")] = None,
    set_: SetOption = None,
    resume: Annotated[str | None, typer.Option(
        "--resume", metavar="RUN_ID",
        help="Continue an interrupted design run (id, unique prefix or 'latest').")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", dir_okay=False,
        help="Write the scenario of the Pareto set (YAML) to this file instead of stdout.")
    ] = None,
    overwrite: OverwriteOption = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="No progress or log lines on stderr.")] = False,
    fmt: FormatOption = Format.table,
    executor: ExecutorOption = Executor.local,
    address: AddressOption = None,
) -> None:
    """Search house rules for a table's goals: print the Pareto set and write it as variants.

    The Pareto set: the candidates whose 95% intervals lie inside every constraint and that no
    other such candidate beats on every objective (its interval wholly better)."""
    from ..base.progress import ConsoleProgress
    from ..base.session import check_db
    from ..design.summary import design_results, format_design, scenario_yaml
    from ..runs.jobs import Job, play_jobs
    from ..runs.simulate import prepare
    from ..scenario import load_scenario
    from ..store import check_output, write_output

    if address is not None and executor is not Executor.ray:
        fail("--address names a Ray cluster: give it with --executor ray", 2)
    progress = ConsoleProgress(quiet=quiet)
    with expected_errors():
        check_db(db)
        if out is not None:
            check_output(out, overwrite=overwrite, what="the Pareto set's scenario")
        scenario = None
        if file is not None:
            scenario = load_scenario(file, set_ or [])
            if scenario.design is None:
                fail(f"{file} has no design: section; `unostats simulate` plays it "
                     "(docs/guide/design.md says what a design needs)", 2)
        if resume is not None:
            if scenario is not None:
                scenario, _ = prepare(scenario, seed=seed, choose_seed=False)
            elif set_ or seed is not None:
                fail("--set and --seed describe FILE; with --resume and no FILE the stored "
                     "scenario is used as it is", 2)
            else:
                _check_design_run(resume, db)
            job = Job(scenario, resume=resume)
        elif scenario is None:
            fail("give a scenario FILE with a design: section (or --resume RUN_ID)", 2)
        runner = make_executor(executor, address)
        if resume is None:
            job = Job(scenario, command=_command_line(file, seed=seed, db=db, threads=threads,
                                                      sets=set_ or [], executor=runner))
        outcomes, code = play_jobs([job], db=db, seed=seed, threads=threads,
                                   progress=progress, executor=runner)
        if code or not outcomes or outcomes[0].status != "complete":
            raise typer.Exit(code or 1)
        result, = design_results(db=db, run_ids=[outcomes[0].run_id])
        table = format_design(result, fmt.value, width=stdout_width() if out else None)
        text = scenario_yaml(result)
        if out is None:
            err(table.rstrip("\n"))
            write(text)
        else:
            write(table)
            write_output(out, text, what="the Pareto set's scenario", overwrite=overwrite)
            progress.log(f"wrote the Pareto set ({len(result.pareto)} variants) to {out}")


def _check_design_run(ref: str, db: Path) -> None:
    """The run ``--resume`` names is a design run (any other resumes with `simulate`)."""
    from .. import store
    from ..base.session import check_db, resolve_run, stored_scenario

    check_db(db, resume=True)
    con = store.open_store(db, read_only=True)
    try:
        run_id = resolve_run(con, ref)
        if stored_scenario(store.run_info(con, run_id)).design is None:
            fail(f"run {run_id} is not a design run; resume it with `unostats simulate "
                 f"--resume {run_id}`", 2)
    finally:
        con.close()


def _command_line(file: Path, *, seed: int | None, db: Path, threads: int | None,
                  sets: list[str], executor=None) -> str:
    """The design command as stored with the run."""
    words = ["unostats", "design", str(file)]
    for name, value in (("--seed", seed), ("--threads", threads)):
        if value is not None:
            words += [name, str(value)]
    for expr in sets:
        words += ["--set", expr]
    if executor is not None:
        words += list(executor.resume_options)
    return shlex.join(printable(w) for w in [*words, "--db", str(db)])
