"""``unostats tune``: one seat's policy tuned (CMA-ES over its card features), compared on
held-out games with every bundled policy, and written as a seat mapping."""

from __future__ import annotations

import enum
import shlex
from pathlib import Path
from typing import Annotated

import typer

from ..defaults import GAMES_MAX
from .app import app
from .common import (
    Format,
    FormatOption,
    OverwriteOption,
    SetOption,
    expected_errors,
    fail,
    printable,
    stdout_width,
    write,
)


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
    from ..base.progress import ConsoleProgress
    from ..base.signals import StopRequest, stop_on_signals
    from ..runs.tune import plan as plan_tuning, tune as run_tuning, write_policy
    from ..scenario import load_scenario
    from ..store import check_output

    if not name.strip():
        fail("--name: give the tuned policy a name", 2)
    progress = ConsoleProgress(quiet=quiet)
    stop = StopRequest()
    with expected_errors():
        # refused before the tuning, not after it
        check_output(out, overwrite=overwrite, what="the tuned seat")
        if not out.parent.is_dir():
            fail(f"--out {out}: no folder {out.parent} to write it in", 2)
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
            fail(f"interrupted: nothing written to {out}", 130)
        command = _tune_command(file, seat=plan.seat, budget=budget, objective=objective.value,
                                seed=plan.seed, population=population,
                                games=games_per_candidate, holdout=holdout, name=name,
                                sets=set_ or [], out=out)
        write_policy(tuned, out, command=command, overwrite=overwrite)
        write(_tune_table(tuned, fmt.value))
        s = tuned.standing
        progress.log(f"wrote {out}: {tuned.policy.name}, held-out {objective.value[:-1]} win "
                     f"rate {s.rate.value:.3f} [{s.rate.lo:.3f}, {s.rate.hi:.3f}] over "
                     f"{s.games:,} games (fair share {1 / plan.players:.3f}); search "
                     f"{tuned.search_seconds:.0f} s, held-out {tuned.holdout_seconds:.0f} s")
    if tuned.stopped:
        raise typer.Exit(stop.exit_code)


def _tune_table(tuned, fmt: str) -> str:
    from ..output import format_interval, format_rows
    from ..runs.tune import COLUMNS, rows

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
        "table", width=stdout_width())


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
    return shlex.join(printable(w) for w in words + ["--out", str(out)])
