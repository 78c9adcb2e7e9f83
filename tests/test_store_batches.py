"""A batch delivered twice is stored once (``store.write_batch_once``, what the Ray executor
writes with): a repeat is a no-op, an overlap stores its new games only, a gap is refused. And
the core never imports Ray: the package, its command line and a local run leave ``ray`` out of
``sys.modules``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from unostats import store
from unostats.engine.simulate import simulate_arrow
from unostats.rules import RuleSet
from unostats.seats import Seat
from unostats.store.batches import write_batch_once

SRC = Path(__file__).resolve().parents[1] / "src"


def batch(first: int, end: int):
    (b,) = simulate_arrow(rules=RuleSet.from_mapping({}), players=3, seats=Seat(),
                          games=end - first, seed=5, first_game=first, batch_games=end - first)
    return b


def counts(con) -> tuple[int, ...]:
    return tuple(con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
                 for t in ("games", "game_seats", "rounds", "round_seats"))


def new_run(con) -> str:
    """A run of one cell (standard, 3 players) to write batches into."""
    return store.start_run(
        con, command="test", seed=5, games_requested=30, scenario_name="t", scenario_text="",
        scenario_json="{}", scenario_hash="h",
        variants=[{"variant": "standard", "players": 3, "rules_json": "{}", "rules_hash": "r",
                   "description": "", "sweep": None}],
        versions={"unostats_version": "0", "engine_version": "0", "numba_version": "0"})


@pytest.fixture
def cell(tmp_path):
    con = store.open_store(tmp_path / "b.duckdb", read_only=False)
    yield con, new_run(con)
    con.close()


def test_a_repeated_batch_is_a_no_op_and_an_overlap_stores_its_new_games(cell, tmp_path):
    con, run_id = cell
    assert write_batch_once(con, run_id, "standard", 3, 0, 10, batch(0, 10)) == 10
    once = counts(con)
    assert write_batch_once(con, run_id, "standard", 3, 0, 10, batch(0, 10)) == 0
    assert counts(con) == once
    assert write_batch_once(con, run_id, "standard", 3, 5, 20, batch(5, 20)) == 10
    assert store.completed_games(con, run_id, "standard", 3) == 20
    assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
    # the rows equal one batch of games 0..19 written at once
    ref = store.open_store(tmp_path / "ref.duckdb", read_only=False)
    try:
        store.write_batch(ref, new_run(ref), "standard", 3, batch(0, 20))
        for table in ("games", "game_seats", "rounds", "round_seats"):
            cols = "* EXCLUDE (run_id)"
            got = con.execute(f"SELECT {cols} FROM {table} ORDER BY ALL").fetchall()
            want = ref.execute(f"SELECT {cols} FROM {table} ORDER BY ALL").fetchall()
            assert got == want, table
    finally:
        ref.close()
    assert con.execute("SELECT games_completed FROM runs").fetchall() == [(20,)]


def test_a_batch_beyond_a_gap_is_refused(cell):
    con, run_id = cell
    with pytest.raises(store.StoreError, match="would leave a gap: games 0..9"):
        write_batch_once(con, run_id, "standard", 3, 10, 20, batch(10, 20))
    assert counts(con) == (0, 0, 0, 0)


def test_the_core_and_a_local_run_never_import_ray(tmp_path):
    code = f"""
import sys
from typer.testing import CliRunner
from unostats.cli import app
result = CliRunner().invoke(app, ["simulate", "standard", "--games", "20", "-q",
                                  "--db", {str(tmp_path / 'l.duckdb')!r}])
assert result.exit_code == 0, result.output
assert "ray" not in sys.modules, "ray was imported"
print("ok")
"""
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    env.update({k: v for k, v in os.environ.items() if k.startswith(("UNOSTATS_CACHE", "HOME",
                                                                       "NUMBA", "XDG"))})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
