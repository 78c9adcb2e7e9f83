"""Runs played one after another, as ``unostats simulate FILE...`` plays them: each job a new
run or a resumed one, under one stop request, and each kind's summary of the finished runs.

SIGINT/SIGTERM (``signals.stop_on_signals``) stop the run being played after its batch; the
jobs after it are not started (and said so). A second Ctrl-C, even one DuckDB said as its own
error, ends the jobs at once with exit code 130. The executor, if any, is closed at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..kinds import RUN_KINDS, kind_of
from ..scenario import Scenario
from ..base.progress import Progress
from ..base.session import RunOutcome
from ..base.signals import StopRequest, is_interrupt, stop_on_signals
from .simulate import resume, simulate


@dataclass(frozen=True)
class Job:
    """A new run of ``scenario`` (stored with ``command``), or - ``resume`` given - the run it
    names continued (``scenario``, if given, must resolve to the stored one)."""

    scenario: Scenario | None
    command: str | None = None
    resume: str | None = None


def play_jobs(jobs: Sequence[Job], *, db: Any, seed: int | None = None,
              games: int | None = None, threads: int | None = None,
              progress: Progress, executor: Any = None, keep: str | None = None
              ) -> tuple[list[RunOutcome], int]:
    """Play ``jobs`` in order until one does not complete. Returns the outcomes and the exit
    code: 0, that of the signal that stopped a run, 130 for a second Ctrl-C, 1 otherwise."""
    stop = StopRequest()
    outcomes: list[RunOutcome] = []
    code = 0
    try:
        with stop_on_signals(stop, notify=progress.warn):
            for i, job in enumerate(jobs):
                if job.resume is not None:
                    outcome = resume(run=job.resume, db=db, scenario=job.scenario,
                                     threads=threads, progress=progress, stop=stop,
                                     executor=executor, keep=keep)
                else:
                    outcome = simulate(scenario=job.scenario, db=db, seed=seed, games=games,
                                       threads=threads, progress=progress, stop=stop,
                                       executor=executor, command=job.command, keep=keep)
                outcomes.append(outcome)
                if outcome.status != "complete":
                    code = stop.exit_code if outcome.signal else 1
                    rest = [str(j.scenario.source_path) for j in jobs[i + 1:]
                            if j.scenario is not None]
                    if rest:
                        progress.warn(f"not started: {', '.join(rest)}")
                    break
    except BaseException as e:  # a second Ctrl-C, also one DuckDB said as its own error
        if not is_interrupt(e):
            raise
        code = 130
    finally:
        if executor is not None:
            executor.close()
    return outcomes, code


def summaries(outcomes: Sequence[RunOutcome], *, db: str | os.PathLike, fmt: str,
              width: int | None = None) -> Iterator[str]:
    """Each kind's summary of its finished runs, in ``RUN_KINDS`` order, a blank line between
    two tables; given one at a time, so one that fails leaves those before it shown."""
    finished = [o for o in outcomes if o.status == "complete"]
    shown = False
    for kind in RUN_KINDS:
        run_ids = [o.run_id for o in finished if kind_of(o.scenario) is kind]
        if run_ids:
            if shown and fmt == "table":
                yield "\n"
            yield kind.summary(db=db, run_ids=run_ids, fmt=fmt, width=width)
            shown = True
