"""The DuckDB store: schema, runs, atomic batches, views on hand-computed data, read-only opens,
export round trips, and a writer killed mid-run. (The insert throughput is measured by
benchmarks/store_bench.py --tables.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import duckdb
import numpy as np
import polars as pl
import pytest

from unostats import stats, store
from unostats.codes import COUNTER_NAMES, MEASURE_NAMES
from unostats.store.packing import WORDS

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.fixture
def db(tmp_path):
    return tmp_path / "results.duckdb"


# --- Schema, runs and batches ------------------------------------------------------------------

def test_schema_is_idempotent_and_versioned(db):
    for _ in range(2):
        con = store.open_store(db, read_only=False)
        con.close()
    con = store.open_store(db, read_only=True)
    assert store.query(con, "SELECT value FROM meta WHERE key = 'schema_version'").item() \
        == str(store.SCHEMA_VERSION)
    names = set(store.query(con, "SELECT table_name FROM information_schema.tables")["table_name"])
    assert {"meta", "runs", "variants", *store.FRAME_COLUMNS, *store.VIEWS} <= names
    from unostats.tournaments.spec import tables as tournaments
    assert {*tournaments.TOURNAMENT_TABLES, *tournaments.VIEWS} <= names


def test_other_schema_version_is_refused(db):
    con = store.open_store(db, read_only=False)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    con.close()
    for read_only in (True, False):
        with pytest.raises(store.StoreError, match="schema version 99"):
            store.open_store(db, read_only=read_only)


def test_file_of_the_previous_schema_is_refused_with_a_clear_message(db):
    """A version-6 file (cell columns in every row of the results tables) is neither read nor
    written: the message says it is older and what to do."""
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '6')")
    con.execute("CREATE TABLE games (run_id VARCHAR, variant VARCHAR, players SMALLINT, "
                "game INTEGER)")
    con.close()
    for read_only in (True, False):
        with pytest.raises(store.StoreError, match=r"older unostats \(results schema version 6; "
                                                   rf"this one reads version {store.SCHEMA_VERSION} "
                                                   r"only\).*new --db"):
            store.open_store(db, read_only=read_only)
    con = duckdb.connect(str(db), read_only=True)  # the writer left the file as it was
    assert con.execute("SELECT table_name FROM information_schema.tables").fetchall() == [
        ("games",), ("meta",)]
    con.close()


def test_foreign_duckdb_file_is_refused(db):
    duckdb.connect(str(db)).execute("CREATE TABLE t(a INT)").close()
    with pytest.raises(store.StoreError, match="not a unostats results database"):
        store.open_store(db, read_only=True)
    with pytest.raises(store.StoreError, match="other tables"):
        store.open_store(db, read_only=False)


def test_run_lifecycle(start_run, make_batch, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con, cells=[("standard", 4), ("stacking", 4)], games_requested=40)
    assert len(run_id) == 8 and store.latest_run_id(con) == run_id
    for i in range(2):
        store.write_batch(con, run_id, "standard", 4, make_batch(10 * i, 10))
        assert store.run_info(con, run_id)["games_completed"] == 10 * (i + 1)
    store.write_batch(con, run_id, "stacking", 4, make_batch(0, 7))
    assert store.completed_games(con, run_id, "standard", 4) == 20
    assert store.completed_games(con, run_id, "stacking", 4) == 7
    store.finish_run(con, run_id, status="complete")
    info = store.run_info(con, run_id)
    assert info["status"] == "complete" and info["games_completed"] == 27
    assert info["finished_at"] >= info["started_at"] and info["elapsed_s"] >= 0
    assert info["duckdb_version"] == duckdb.__version__ and info["python_version"]
    assert json.loads(info["scenario_json"]) == {"name": "s"}
    assert [(c["variant"], c["games_completed"]) for c in info["cells"]] == [
        ("stacking", 7), ("standard", 20)]
    assert store.list_runs(con)["run_id"].to_list() == [run_id]
    assert store.resolve_run_id(con, run_id[:3]) == run_id
    assert store.resolve_run_id(con, None) == run_id
    with pytest.raises(store.StoreError, match="run .* is complete"):
        store.write_batch(con, run_id, "standard", 4, make_batch(20, 1))
    with pytest.raises(store.StoreError, match="already exists"):
        start_run(con, run_id=run_id)
    assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)


def test_rows_are_stored_with_cell_columns(start_run, make_batch, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con)
    batch = make_batch(0, 5)
    store.write_batch(con, run_id, "standard", 4, batch)
    for name in store.FRAME_COLUMNS:
        got = store.query(con, f"SELECT * FROM {name} ORDER BY ALL")
        assert got.select(pl.col("run_id", "variant", "players").unique()).rows() == [
            (run_id, "standard", 4)]
        expected = getattr(batch, name)
        cols = expected.columns
        assert got.select(cols).cast(expected.schema).sort(cols).equals(expected.sort(cols))


def test_results_rows_carry_a_cell_id_and_the_views_give_the_cell_columns(start_run, make_batch,
                                                                          db):
    """The rows are stored with an integer cell id (no run or variant text per row); the views of
    the results tables' names give readers the cell columns first, with their types, each row
    under its own cell, in the order the rows were stored."""
    con = store.open_store(db, read_only=False)
    runs = [start_run(con, cells=(("standard", 4), ("house", 3)), run_id=r) for r in ("r1", "r2")]
    written = {}
    for first in (0, 2):  # two batches per cell, the cells' batches interleaved
        for run_id in runs:
            for variant, players in (("standard", 4), ("house", 3)):
                batch = make_batch(first, 2, players=players, seed=len(written))
                store.write_batch(con, run_id, variant, players, batch)
                written.setdefault((run_id, variant, players), []).append(batch)
    assert con.execute("SELECT cell, run_id, variant, players FROM cells ORDER BY cell"
                       ).fetchall() == [(1, "r1", "standard", 4), (2, "r1", "house", 3),
                                        (3, "r2", "standard", 4), (4, "r2", "house", 3)]
    for name, columns in store.FRAME_COLUMNS.items():
        stored = [c for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "ORDER BY ordinal_position", [f"stored_{name}"]).fetchall()]
        words = WORDS[name]  # packed in words
        packed = {n for _, fields in words for n, _ in fields}
        assert stored == ["cell", *(w for w, _ in words),
                          *(n for n, _, _ in columns if n not in packed)]
        view = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                           "WHERE table_name = ? ORDER BY ordinal_position", [name]).fetchall()
        assert view == [("run_id", "VARCHAR"), ("variant", "VARCHAR"), ("players", "SMALLINT"),
                        *((n, t) for n, t, _ in columns)]
        got = store.query(con, f"SELECT * FROM {name}")  # no ORDER BY: the stored order
        want = pl.concat([
            pl.concat([getattr(b, name) for b in written[(r, v, p)][i:i + 1]])
            .cast(dict(got.drop("run_id", "variant", "players").schema))
            .select(pl.lit(r).alias("run_id"), pl.lit(v).alias("variant"),
                    pl.lit(p, pl.Int16).alias("players"), pl.all())
            for i in (0, 1) for r in runs for v, p in (("standard", 4), ("house", 3))])
        assert got.equals(want), name
        assert store.completed_games(con, "r2", "house", 3) == 4
    assert store.completed_games(con, "r2", "nope", 3) == 0


def test_batches_must_continue_the_cell(start_run, make_batch, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con)
    store.write_batch(con, run_id, "standard", 4, make_batch(0, 5))
    for bad in (make_batch(0, 5), make_batch(6, 5)):  # a repeat, a gap
        with pytest.raises(store.StoreError, match="do not continue"):
            store.write_batch(con, run_id, "standard", 4, bad)
    with pytest.raises(store.StoreError, match="no cell"):
        store.write_batch(con, run_id, "other", 4, make_batch(0, 1))
    broken = make_batch(5, 2)
    broken.rounds = broken.rounds.drop("skips")
    with pytest.raises(store.StoreError, match=r"missing \['skips'\]"):
        store.write_batch(con, run_id, "standard", 4, broken)
    assert store.completed_games(con, run_id, "standard", 4) == 5
    assert store.query(con, "SELECT count(*) FROM rounds").item() == make_batch(0, 5).rounds.height


def test_failed_batch_rolls_back_everything(start_run, make_batch, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con)
    store.write_batch(con, run_id, "standard", 4, make_batch(0, 3))
    bad = make_batch(3, 3)
    bad.round_seats = bad.round_seats.with_columns(pl.lit(10**6).alias("position"))  # > SMALLINT
    with pytest.raises(store.StoreError, match="cannot store the batch's round_seats"):
        store.write_batch(con, run_id, "standard", 4, bad)
    counts = {t: store.query(con, f"SELECT count(*) FROM {t}").item() for t in store.FRAME_COLUMNS}
    good = make_batch(0, 3)
    assert counts == {t: getattr(good, t).height for t in store.FRAME_COLUMNS}
    assert store.run_info(con, run_id)["games_completed"] == 3


def test_resume_and_stale_runs(start_run, make_batch, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con)
    store.write_batch(con, run_id, "standard", 4, make_batch(0, 4))
    con.execute("UPDATE runs SET pid = -1")  # as if its process died
    con.close()
    con = store.open_store(db, read_only=False)  # we hold the write lock: that run is dead
    assert store.run_info(con, run_id)["status"] == "interrupted"
    info = store.resume_run(con, run_id)
    assert info["status"] == "running" and info["resumed_at"] is not None
    store.write_batch(con, run_id, "standard", 4,
                      make_batch(store.completed_games(con, run_id, "standard", 4), 4))
    store.finish_run(con, run_id, status="complete")
    assert store.run_info(con, run_id)["games_completed"] == 8
    with pytest.raises(store.StoreError, match="nothing to resume"):
        store.resume_run(con, run_id)


# --- Views on hand-computed data ----------------------------------------------------------------

def tiny_batch() -> SimpleNamespace:
    """Two 3-player games. Game 0: rounds of 10, 20, 30 turns, the last capped. Game 1: one
    round of 40 turns. Round winners by position: 0, 2 (then cap), 0."""
    counters = {n: [0, 0, 0, 0] for n in COUNTER_NAMES}
    counters["turns"] = [10, 20, 30, 40]
    rounds = pl.DataFrame({
        "game": [0, 0, 0, 1], "round": [1, 2, 3, 1],
        "dealer_seat": [2, 0, 1, 0], "first_seat": [0, 1, 2, 1],
        "winner_seat": [0, 0, None, 1], "winner_position": [0, 2, None, 0],
        **counters, "points": [100, 50, 0, 30], "ended_by": ["win", "win", "cap", "win"],
        "loser_seat": [None, None, None, None], "largest_penalty": [0, 4, 2, 0],
        **{n: [0, 0, 0, 0] for n in MEASURE_NAMES}, "winner_largest_deficit": [1, 0, None, 2],
    })
    rs = []
    for g, r, first in [(0, 1, 0), (0, 2, 1), (0, 3, 2), (1, 1, 1)]:
        for seat in range(3):
            rs.append({"game": g, "round": r, "seat": seat, "position": (seat - first) % 3,
                       "cards_left": 1, "hand_points": 1, "score_after": 0,
                       "hands_emptied": 0, "finish_place": None})
    games = pl.DataFrame({
        "game": [0, 1], "rounds": [3, 1], "turns": [60, 40], "first_seat": [0, 1],
        "winner_seat": [0, 1], "margin": [150, 30], "ended_by": ["target", "target"],
    })
    game_seats = pl.DataFrame({
        "game": [0, 0, 0, 1, 1, 1], "seat": [0, 1, 2, 0, 1, 2], "policy": "random",
        "final_score": [150, 0, 0, 0, 30, 0], "rank": [1, 2, 2, 2, 1, 2],
        "is_winner": [True, False, False, False, True, False],
        "is_loser": [False, True, True, True, False, True],
    })
    return SimpleNamespace(games=games, game_seats=game_seats, rounds=rounds,
                           round_seats=pl.DataFrame(rs))


@pytest.fixture
def tiny(start_run, db):
    con = store.open_store(db, read_only=False)
    run_id = start_run(con, cells=[("standard", 3)])
    store.write_batch(con, run_id, "standard", 3, tiny_batch())
    con.close()
    con = store.open_store(db, read_only=True)
    yield con
    con.close()


def test_round_length_view(tiny):
    row = store.query(tiny, "SELECT * FROM round_length").row(0, named=True)
    turns = np.array([10, 20, 30, 40])
    assert row["n"] == 4 and row["n_capped"] == 1 and row["share_capped"] == 0.25
    assert row["mean_turns"] == 25
    assert row["sd_turns"] == pytest.approx(turns.std(ddof=1))
    assert row["se_turns"] == pytest.approx(turns.std(ddof=1) / 2)
    for q in (10, 50, 90, 99):
        assert row[f"p{q}"] == pytest.approx(np.quantile(turns, q / 100))


def test_win_rate_by_position_view(tiny):
    df = store.query(tiny, "SELECT * FROM win_rate_by_position")
    assert df["position"].to_list() == [0, 1, 2]
    assert df["wins"].to_list() == [2, 0, 1] and df["n"].to_list() == [3, 3, 3]
    for k, lo, hi in zip(df["wins"], df["lo"], df["hi"]):
        w = stats.wilson_interval(k, 3)
        assert (lo, hi) == pytest.approx((w.lo, w.hi), abs=1e-12)


def test_wilson_sql_macro_matches_known_values(tiny):
    # Newcombe (1998), Table I: 81/263 -> 0.2553..0.3662, 0/20 -> 0..0.1611, 1/29 -> 0.0061..0.1718
    got = store.query(tiny, "SELECT wilson_lo(k, n) AS lo, wilson_hi(k, n) AS hi FROM "
                            "(VALUES (81, 263), (0, 20), (1, 29)) v(k, n)")
    flat = [bound for row in got.rows() for bound in row]
    assert flat == pytest.approx([0.2553, 0.3662, 0.0, 0.1611, 0.0061, 0.1718], abs=5e-5)


def test_game_win_rate_by_position_view(tiny):
    # Game 0: seat 0 wins, at position 0 of round 1. Game 1: seat 1 wins, first seat 1 -> pos 0.
    df = store.query(tiny, "SELECT position, wins, n FROM game_win_rate_by_position")
    assert df.rows() == [(0, 2, 2), (1, 0, 2), (2, 0, 2)]


def test_score_spread_view(tiny):
    row = store.query(tiny, "SELECT * FROM score_spread").row(0, named=True)
    assert row["n_rounds"] == 3 and row["mean_points"] == 60
    assert row["sd_points"] == pytest.approx(np.std([100, 50, 30], ddof=1))
    assert row["n_games"] == 2 and row["mean_margin"] == 90
    expected = np.mean([np.std([150, 0, 0], ddof=1), np.std([0, 30, 0], ddof=1)])
    assert row["mean_final_score_sd"] == pytest.approx(expected)


def test_game_length_view(tiny):
    row = store.query(tiny, "SELECT * FROM game_length").row(0, named=True)
    assert row["n"] == 2 and row["mean_rounds"] == 2 and row["mean_turns"] == 50
    assert row["se_rounds"] == pytest.approx(np.std([3, 1], ddof=1) / np.sqrt(2))
    assert row["p50_turns"] == 50 and row["p90_turns"] == pytest.approx(58)
    assert row["share_capped"] == 0


# --- Read-only use ------------------------------------------------------------------------------

def test_read_only_refuses_writes(tiny):
    for sql in ("INSERT INTO meta VALUES ('x', 'y')", "DROP TABLE stored_rounds",
                "UPDATE runs SET seed = 1"):
        with pytest.raises(store.StoreError, match="open read-only") as err:
            store.query(tiny, sql)
        assert "\n" not in str(err.value)
    assert store.query(tiny, "SELECT count(*) AS n FROM rounds WHERE round = $r",
                       {"r": 1}).item() == 2


def test_query_errors_are_store_errors(tiny):
    with pytest.raises(store.StoreError, match="syntax error"):
        store.query(tiny, "SELEC 1")


def test_missing_file_message(tmp_path):
    path = tmp_path / "nope.duckdb"
    with pytest.raises(store.StoreError, match=r"no results database at .*nope\.duckdb.*"
                                               r"unostats simulate"):
        store.open_store(path, read_only=True)
    assert not path.exists()


WRITER = textwrap.dedent("""
    import sys, time
    sys.path[:0] = [{src!r}, {tests!r}]
    from unostats import store
    from conftest import make_batch, start_run  # the child is no test session: plain functions
    con = store.open_store({db!r}, read_only=False)
    run_id = start_run(con, run_id="killme", games_requested=10**9)
    print("ready", flush=True)
    i = 0
    while True:
        store.write_batch(con, run_id, "standard", 4, make_batch(i * {size}, {size}))
        i += 1
        if i == 3:
            print("written", flush=True)
        time.sleep({pause})
""")


def spawn_writer(db: Path, *, size: int, pause: float) -> subprocess.Popen:
    code = WRITER.format(src=str(SRC), tests=str(Path(__file__).parent), db=str(db),
                         size=size, pause=pause)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def test_reader_gets_clean_message_while_writer_runs(db):
    proc = spawn_writer(db, size=10, pause=0.05)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(store.StoreError, match=rf"being written by process {proc.pid}") as e:
            store.open_store(db, read_only=True)
        assert "\n" not in str(e.value)
    finally:
        proc.kill()
        proc.wait()


def test_writer_gets_clean_message_while_a_reader_has_the_file(db):
    store.open_store(db, read_only=False).close()
    code = (f"import sys, time; sys.path.insert(0, {str(SRC)!r}); from unostats import store; "
            f"con = store.open_store({str(db)!r}, read_only=True); print('ready', flush=True); "
            "time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        with pytest.raises(store.StoreError, match=rf"in use by process {proc.pid}"):
            store.open_store(db, read_only=False)
    finally:
        proc.kill()
        proc.wait()


def test_killed_writer_leaves_only_whole_batches(make_batch, db):
    size = 500
    proc = spawn_writer(db, size=size, pause=0)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert proc.stdout.readline().strip() == "written"
        time.sleep(0.3)  # kill somewhere inside a later batch
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    con = store.open_store(db, read_only=True)
    info = store.run_info(con, "killme")
    games = store.completed_games(con, "killme", "standard", 4)
    assert info["status"] == "running"  # nobody could mark it; the next writer will
    assert games >= 3 * size and games % size == 0 and info["games_completed"] == games
    stored_rounds = store.query(con, "SELECT count(*) FROM rounds").item()
    stored_seats = store.query(con, "SELECT count(*) FROM round_seats").item()
    expected = [make_batch(i * size, size) for i in range(games // size)]
    assert stored_rounds == sum(b.rounds.height for b in expected)
    assert stored_seats == 4 * stored_rounds
    assert store.query(con, "SELECT count(*) FROM game_seats").item() == 4 * games
    assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
    con.close()
    con = store.open_store(db, read_only=False)
    assert store.run_info(con, "killme")["status"] == "interrupted"


# --- Export -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_export_round_trip(start_run, make_batch, db, tmp_path, fmt):
    con = store.open_store(db, read_only=False)
    other = start_run(con)
    store.write_batch(con, other, "standard", 4, make_batch(0, 3, seed=1))
    run_id = start_run(con)
    store.write_batch(con, run_id, "standard", 4, make_batch(0, 20))
    con.close()
    con = store.open_store(db, read_only=True, writes_in=tmp_path / "out")  # its one folder
    paths = store.export_run(con, run_id, tmp_path / "out", fmt)
    assert [p.name for p in paths] == [f"{t}.{fmt}" for t in store.EXPORT_TABLES]
    for table, path in zip(store.EXPORT_TABLES, paths):
        want = store.query(con, f"SELECT * FROM {table} WHERE run_id = $r", {"r": run_id})
        if fmt == "parquet":
            got = pl.read_parquet(path)
        else:  # CSV carries no types: read it back through DuckDB into the table's types
            types = store.query(con, "SELECT column_name, data_type FROM information_schema"
                                     ".columns WHERE table_name = $t ORDER BY ordinal_position",
                                {"t": table})
            columns = ", ".join(f"'{n}': '{t}'" for n, t in types.rows())
            got = store.query(con, f"SELECT * FROM read_csv($p, header = true, "
                                   f"columns = {{{columns}}})", {"p": str(path)})
        assert got.height == want.height and got.height > 0
        assert got.equals(want.select(got.columns)), table
    with pytest.raises(store.StoreError, match="no run"):
        store.export_run(con, "zzz", tmp_path / "out", fmt)
