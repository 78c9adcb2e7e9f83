"""The summary of league runs: the plain games' summary of every cell, then the league table
(each policy's rating at each table size with its 95% interval, games and wins, read from the
``league_ratings`` view); as rows or as the tables ``simulate`` prints."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ratings, store
from ..games import summary
from ..output import format_interval, format_rows
from .spec import tables as league_store

LEAGUE_COLUMNS = ("run_id", "variant", "players", "policy", "rating", "lo", "hi", "games",
                  "wins", "win_rate", "fair_share", "method")


def league_rows(*, db: str | os.PathLike, run_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The ``league_ratings`` rows of the runs, best first within each variant and table
    size."""
    con = store.open_store(Path(db), read_only=True)
    try:
        return [row for rid in run_ids for row in league_store.rating_rows(con, rid)]
    finally:
        con.close()


def format_league(rows: Sequence[dict[str, Any]], fmt: str = "table",
                  width: int | None = None) -> str:
    """The league table (shares in percent, fitted to ``width`` when given); csv and json give
    the view's rows (shares as fractions)."""
    if fmt != "table":
        return format_rows(LEAGUE_COLUMNS, [[r[c] for c in LEAGUE_COLUMNS] for r in rows], fmt)
    table = [[r["run_id"], r["variant"], r["players"], r["policy"],
              format_interval(r["rating"], r["lo"], r["hi"]), r["games"], r["wins"],
              f"{100 * r['win_rate']:.1f}" if r["win_rate"] is not None else "-",
              f"{100 * r['fair_share']:.1f}"] for r in rows]
    text = format_rows(("run", "variant", "players", "policy", "rating [95% CI]", "games",
                        "wins", "win rate (%)", "fair share (%)"), table, "table", width=width,
                       rank=(4, 0, 0, 0, 0, 2, 3, 1, 1))
    return text + f"\nrating: {ratings.METHOD}; ratings average 1, and a policy rated r wins " \
                  "against one rated 1 with chance r / (r + 1)"


def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """What ``simulate`` prints for finished league runs: in a table, the games' summary then
    the league table; in other formats the league rows (the games' rows are in the views)."""
    league = format_league(league_rows(db=db, run_ids=run_ids), fmt, width=width)
    if fmt != "table":
        return league
    return summary.summary_text(db=db, run_ids=run_ids, fmt=fmt, width=width) + "\n" + league
