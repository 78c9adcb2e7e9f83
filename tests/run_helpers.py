"""Shared helpers for the tests of simulation runs (test_run.py, test_tournament_run.py): the
stored rows of a run, and a progress hook that stops a run after some batches."""

from __future__ import annotations

from pathlib import Path

import duckdb

from unostats.runs.progress import Progress
from unostats.runs.signals import StopRequest

# The tables of game results, one row per game, seat, round or round seat.
GAME_TABLES = ("games", "game_seats", "rounds", "round_seats")


def stored_rows(db: Path, tables, runs_columns: str,
                run_id: str | None = None) -> dict[str, list[tuple]]:
    """Every stored row of ``tables`` for one run (the only run if None), without the run id,
    sorted; under "runs", that run's ``runs_columns``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        if run_id is None:
            (run_id,), = con.execute("SELECT run_id FROM runs").fetchall()
        out = {}
        for table in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall() if c != "run_id"]
            out[table] = con.execute(
                f"SELECT {', '.join(cols)} FROM {table} WHERE run_id = ? ORDER BY ALL",
                [run_id]).fetchall()
        out["runs"] = con.execute(
            f"SELECT {runs_columns} FROM runs WHERE run_id = ?", [run_id]).fetchall()
        return out
    finally:
        con.close()


class StopAfter(Progress):
    """Requests a stop after ``n`` stored batches (an in-process stand-in for Ctrl-C)."""

    def __init__(self, stop: StopRequest, n: int):
        self.stop, self.n, self.seen = stop, n, 0

    def batch_stored(self, *args, **kwargs) -> None:
        self.seen += 1
        if self.seen == self.n:
            self.stop.request()
