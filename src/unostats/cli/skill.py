"""``unostats skill``: the skill ladder of a run with a ``skill:`` section (games/ladder.py):
each rung's share of rounds and games won, and the relative skill, with 95% intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..defaults import DEFAULT_DB
from .app import app
from .common import (
    DbOption,
    Format,
    FormatOption,
    StoreOption,
    expected_errors,
    stdout_width,
    target,
    write,
)


@app.command(epilog="""Examples:

  unostats simulate how-it-plays
  unostats skill
  unostats skill 1a2b3c4d --format csv

A ladder seats one player of each rung (random, the best bundled policy, a tuned policy, the
expert, the clairvoyant who sees every card) among the table's other seats, one cell per variant,
player count and rung (variant VARIANT/RUNG). Rows: each rung's share of the rounds and of the
games with a winner, with 95% Wilson intervals; then the relative skill (expert - random) /
(clairvoyant - random) per variant and player count, on rounds and on games, with its 95%
delta-method interval. The table shows shares in percent; csv and json give fractions, the
relative skill of the rung's cell on every row.""")
def skill(
    run_ref: Annotated[str | None, typer.Argument(
        metavar="[RUN]", help="Run id, unique prefix, or 'latest' (default: the latest run "
                              "with a skill ladder).")] = None,
    fmt: FormatOption = Format.table,
    db: DbOption = Path(DEFAULT_DB),
    store: StoreOption = None,
) -> None:
    """How much of each variant is skill: the skill ladder of a run, each rung's round and game
    win shares and the relative skill, with 95% intervals."""
    from ..games.ladder import skill_text

    db = target(db, store)
    with expected_errors():
        write(skill_text(db=db, run_ref=run_ref, fmt=fmt.value, width=stdout_width()) + "\n")
