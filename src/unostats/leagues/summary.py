"""The summary of league runs: the plain games' summary of every cell, then the league table
(each policy's rating at each table size with its 95% interval, games and wins, read from the
``league_ratings`` view); as rows or as the tables ``simulate`` prints."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ratings, store
from ..games import summary
from ..output import Column, Numeral, format_interval, format_rows, format_table
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
    text = format_table(LEAGUE_TABLE, rows, width)
    method = (f"rating: {ratings.METHOD}; ratings average 1, and a policy rated r wins against "
              "one rated 1 with chance r / (r + 1)")
    return text + "\n" + ("\n".join(textwrap.wrap(method, width)) if width else method)


# The league table ``simulate`` prints; shares in percent (fractions in csv and json).
LEAGUE_TABLE = (
    Column("run", 4, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("players", 0, lambda r: r["players"]),
    Column("policy", 0, lambda r: r["policy"], wrap=True),
    Column("rating [95% CI]", 0, lambda r: format_interval(r["rating"], r["lo"], r["hi"])),
    Column("games", 2, lambda r: r["games"]),
    Column("wins", 3, lambda r: r["wins"]),
    Column("win rate (%)", 1, lambda r: Numeral(
        f"{100 * r['win_rate']:.1f}" if r["win_rate"] is not None else "-")),
    Column("fair share (%)", 1, lambda r: Numeral(f"{100 * r['fair_share']:.1f}")),
)


def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """What ``simulate`` prints for finished league runs: in a table, the games' summary then
    the league table; in other formats the league rows (the games' rows are in the views)."""
    league = format_league(league_rows(db=db, run_ids=run_ids), fmt, width=width)
    if fmt != "table":
        return league
    return summary.summary_text(db=db, run_ids=run_ids, fmt=fmt, width=width) + "\n" + league
