"""Simulation runs (unostats.runs): resume equals uninterrupted for any batch sizes, real SIGINT,
SIGTERM and SIGKILL on a running `unostats simulate`, the resume checks, errors mid-run, the
summary's numbers, and the row formats of unostats.output."""

from __future__ import annotations

import datetime as dt
import json
import math
import signal
import subprocess
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from unostats import stats, store
from unostats.output import format_interval, format_rows
from unostats.base.session import BATCH_GAMES_ENV, RunError
from unostats.base.signals import StopRequest
from unostats.runs.simulate import prepare, resume, simulate
from unostats.games.summary import SUMMARY_COLUMNS, format_summary, summaries, summary_rows
from unostats.scenario import load_scenario

TINY = """\
name: tiny
description: Two variants at two player counts, for tests.
seed: 7
games: 40
players: [2, 3]
variants:
  - name: standard
  - name: short
    description: First to 200.
    rules: {target_score: 200}
"""


def write_scenario(folder: Path, text: str = TINY, name: str = "tiny.yaml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def snapshot(stored_rows, game_tables):
    """``snapshot(db, run_id=None)``: every stored row of one run (the only run if None),
    without the run id, sorted."""
    def read(db: Path, run_id: str | None = None) -> dict[str, list[tuple]]:
        return stored_rows(db, (*game_tables, "variants"),
                           "status, seed, games_requested, games_completed, scenario_hash, "
                           "scenario_json", run_id)
    return read


def assert_same_rows(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for table in want:
        assert len(got[table]) == len(want[table]), table
        assert got[table] == want[table], f"{table} differs"


@pytest.fixture(scope="module")
def reference(snapshot, tmp_path_factory) -> dict:
    """An uninterrupted run of TINY with default (adaptive) batches."""
    folder = tmp_path_factory.mktemp("reference")
    path = write_scenario(folder)
    db = folder / "ref.duckdb"
    outcome = simulate(scenario=load_scenario(path), db=db)
    assert outcome.status == "complete"
    return {"db": db, "rows": snapshot(db), "outcome": outcome}


def test_reference_run_is_complete(reference):
    rows = reference["rows"]
    assert rows["runs"][0][:4] == ("complete", 7, 160, 160)
    assert len(rows["games"]) == 160
    assert len(rows["variants"]) == 4
    con = store.open_store(reference["db"], read_only=True)
    try:
        assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
    finally:
        con.close()


def test_resume_equals_uninterrupted_for_any_batch_sizes(stop_after, snapshot, tmp_path, reference):
    path = write_scenario(tmp_path)
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    first = simulate(scenario=load_scenario(path), db=db, batch_games=7,
                         progress=stop_after(stop, 3), stop=stop)
    assert first.status == "interrupted" and first.signal is None
    assert first.games_completed == 21
    assert snapshot(db)["runs"][0][0] == "interrupted"
    # Resume twice more with other batch sizes, the second time to the end.
    stop = StopRequest()
    second = resume(run=first.run_id, db=db, batch_games=11,
                        progress=stop_after(stop, 5), stop=stop)
    # Cell 1 continues at game 21 with 11 + 8 games, then cell 2 gets 3 batches of 11.
    assert second.status == "interrupted" and second.games_completed == 21 + 11 + 8 + 33
    third = resume(run="latest", db=db, batch_games=1000)
    assert third.status == "complete" and third.games_played == 160 - 73
    assert_same_rows(snapshot(db), reference["rows"])


def test_stop_before_the_first_batch_keeps_nothing_and_resumes(snapshot, tmp_path, reference):
    path = write_scenario(tmp_path)
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    stop.request(signal.SIGTERM)
    outcome = simulate(scenario=load_scenario(path), db=db, stop=stop)
    assert (outcome.status, outcome.games_completed, outcome.signal) == \
        ("interrupted", 0, signal.SIGTERM)
    assert stop.exit_code == 143
    resume(run=outcome.run_id, db=db)
    assert_same_rows(snapshot(db), reference["rows"])


def test_error_while_storing_marks_the_run_interrupted(snapshot, tmp_path, reference, monkeypatch):
    path = write_scenario(tmp_path)
    db = tmp_path / "r.duckdb"
    real_write = store.write_batch
    calls = []

    def failing_write(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise store.StoreError("disk full (simulated)")
        return real_write(*args, **kwargs)

    monkeypatch.setattr(store, "write_batch", failing_write)
    with pytest.raises(store.StoreError, match="disk full"):
        simulate(scenario=load_scenario(path), db=db, batch_games=10)
    monkeypatch.setattr(store, "write_batch", real_write)
    con = store.open_store(db, read_only=True)
    try:
        (run_id, status, done), = con.execute(
            "SELECT run_id, status, games_completed FROM runs").fetchall()
    finally:
        con.close()
    assert (status, done) == ("interrupted", 10)
    resume(run=run_id, db=db)
    assert_same_rows(snapshot(db), reference["rows"])


def test_resume_checks(snapshot, tmp_path, reference):
    path = write_scenario(tmp_path)
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    stop.request()
    first = simulate(scenario=load_scenario(path), db=db, stop=stop)
    # The same file (any batch size) is accepted; another one is refused, naming what differs.
    other = write_scenario(tmp_path, TINY.replace("games: 40", "games: 41"), "other.yaml")
    with pytest.raises(RunError) as e:
        resume(run=first.run_id, db=db, scenario=load_scenario(other))
    assert e.value.exit_code == 2
    assert "does not match run" in str(e.value) and "differs in games (hash" in str(e.value)
    other = write_scenario(tmp_path, TINY.replace("target_score: 200", "target_score: 300"),
                           "rules.yaml")
    with pytest.raises(RunError, match=r"differs in variants\[1\]\.rules\.target_score "):
        resume(run=first.run_id, db=db, scenario=load_scenario(other))
    with pytest.raises(RunError, match="no run 'nope'") as e:
        resume(run="nope", db=db)
    assert e.value.exit_code == 2
    resume(run=first.run_id[:4], db=db, scenario=load_scenario(path))
    assert_same_rows(snapshot(db), reference["rows"])
    with pytest.raises(RunError, match="already complete") as e:
        resume(run=first.run_id, db=db)
    assert e.value.exit_code == 2


def test_a_scenario_without_seed_gets_one_that_is_stored_and_reused(snapshot, tmp_path):
    path = write_scenario(tmp_path, TINY.replace("seed: 7\n", "").replace("games: 40", "games: 5"))
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    stop.request()
    outcome = simulate(scenario=load_scenario(path), db=db, stop=stop)
    assert outcome.seed_chosen and outcome.scenario.seed is not None
    info = snapshot(db, outcome.run_id)["runs"][0]
    assert info[1] == outcome.scenario.seed
    assert json.loads(info[5])["seed"] == outcome.scenario.seed
    # Resuming with the seedless file takes the stored seed, so the hashes match.
    done = resume(run=outcome.run_id, db=db, scenario=load_scenario(path))
    assert done.status == "complete"
    again, chosen = prepare(load_scenario(path), seed=123)
    assert (again.seed, chosen) == (123, False)


def test_invalid_threads_and_batch_env_are_usage_errors(tmp_path, monkeypatch):
    path = write_scenario(tmp_path)
    with pytest.raises(RunError, match="--threads must be from 1") as e:
        simulate(scenario=load_scenario(path), db=tmp_path / "x.duckdb", threads=999)
    assert e.value.exit_code == 2
    monkeypatch.setenv(BATCH_GAMES_ENV, "lots")
    with pytest.raises(RunError, match="UNOSTATS_BATCH_GAMES"):
        simulate(scenario=load_scenario(path), db=tmp_path / "y.duckdb")
    assert not (tmp_path / "y.duckdb").exists()  # refused before any run was recorded


# --- Summary -----------------------------------------------------------------------------------

def test_summary_rows_match_a_direct_computation(reference):
    con = store.open_store(reference["db"], read_only=True)
    try:
        run_id = store.latest_run_id(con)
        rows = summary_rows(con, run_id)
        assert [(r["variant"], r["players"]) for r in rows] == [
            ("standard", 2), ("standard", 3), ("short", 2), ("short", 3)]  # file order
        for r in rows:
            cell = [run_id, r["variant"], r["players"]]
            turns = [t for (t,) in con.execute(
                "SELECT turns FROM rounds WHERE run_id = ? AND variant = ? AND players = ?",
                cell).fetchall()]
            per_game = [n for (n,) in con.execute(
                "SELECT rounds FROM games WHERE run_id = ? AND variant = ? AND players = ?",
                cell).fetchall()]
            won = con.execute(
                "SELECT count(*) FILTER (WHERE winner_position = 0), count(*) FROM rounds "
                "WHERE run_id = ? AND variant = ? AND players = ? AND ended_by = 'win'",
                cell).fetchall()[0]
            points = [p for (p,) in con.execute(
                "SELECT points FROM rounds WHERE run_id = ? AND variant = ? AND players = ? "
                "AND ended_by = 'win'", cell).fetchall()]
            assert (r["games"], r["rounds"]) == (40, len(turns))
            for key, want in (("turns_per_round", stats.mean_se(turns)),
                              ("rounds_per_game", stats.mean_se(per_game)),
                              ("p0_win_rate", stats.wilson_interval(*won)),
                              ("points_per_round", stats.mean_se(points))):
                got = (r[key], r[f"{key}_lo"], r[f"{key}_hi"])
                assert got == pytest.approx((want.value, want.lo, want.hi), rel=1e-9), key
    finally:
        con.close()


def test_format_summary(reference):
    rows = summaries(db=reference["db"], run_ids=[reference["outcome"].run_id])
    table = format_summary(rows).splitlines()
    assert table[0].split() == ["run", "variant", "players", "games", "rounds",
                                "turns/round", "[95%", "CI]", "rounds/game", "[95%", "CI]",
                                "pos-0", "round", "wins", "(%)", "[95%", "CI]",
                                "points/round", "[95%", "CI]", "minutes/game", "at", "4",
                                "s/turn", "[95%", "CI]"]
    assert len(table) == 2 + 4
    csv_lines = format_summary(rows, "csv").splitlines()
    assert csv_lines[0] == ",".join(SUMMARY_COLUMNS)
    assert json.loads(format_summary(rows, "json"))[0]["games"] == 40


def test_format_interval():
    assert format_interval(12.3456, 12.2, 12.5) == "12.35 [12.20, 12.50]"
    assert format_interval(0.27271, 0.27183, 0.27359) == "0.27271 [0.27183, 0.27359]"
    assert format_interval(5.0, math.nan, math.nan) == "5"
    assert format_interval(math.nan, 0, 1) == "-"


# --- Output formats ----------------------------------------------------------------------------

COLUMNS = ("name", "n", "x", "ok", "at", "doc", "missing")
ROWS = [
    ("a,b", 1, 0.1, True, dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC), '{"k": [1]}', None),
    ("c", 22, math.nan, False, dt.date(2026, 1, 2), "[]", Decimal("2.50")),
]


def test_csv_format():
    assert format_rows(COLUMNS, ROWS, "csv") == (
        "name,n,x,ok,at,doc,missing\n"
        '"a,b",1,0.1,true,2026-01-02 03:04:05+00:00,"{""k"": [1]}",\n'
        "c,22,nan,false,2026-01-02,[],2.50\n")
    assert format_rows([], [], "csv") == ""


def test_json_and_ndjson_formats():
    text = format_rows(COLUMNS, ROWS, "json", json_columns=["doc"])
    assert json.loads(text) == [
        {"name": "a,b", "n": 1, "x": 0.1, "ok": True, "at": "2026-01-02T03:04:05+00:00",
         "doc": {"k": [1]}, "missing": None},
        {"name": "c", "n": 22, "x": None, "ok": False, "at": "2026-01-02", "doc": [],
         "missing": 2.5},
    ]
    lines = format_rows(COLUMNS, ROWS, "ndjson").splitlines()
    assert [json.loads(line)["doc"] for line in lines] == ['{"k": [1]}', "[]"]
    assert format_rows(["a"], [], "json") == "[]\n"
    assert format_rows(["a"], [], "ndjson") == ""


def test_table_format():
    assert format_rows(("name", "n", "share"), [("a", 1, 0.5), ("bbb", 1234, None)]) == (
        "name     n  share\n"
        "----  ----  -----\n"
        "a        1    0.5\n"
        "bbb   1234   NULL\n")
    wrapped = format_rows(("k", "text"), [("x", "word " * 20)], width=30).splitlines()
    assert max(map(len, wrapped)) <= 30 and len(wrapped) > 3
    assert format_rows(("big",), [(12345678.5,)]).splitlines()[2] == "12345678.5"
    with pytest.raises(ValueError, match="allowed: table, csv, json, ndjson"):
        format_rows(("a",), [], "xml")


# --- Real signals on a running `unostats simulate` ---------------------------------------------

BIG = TINY.replace("games: 40", "games: 1000")


@pytest.fixture(scope="module")
def big_reference(snapshot, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("big")
    path = write_scenario(folder, BIG, "big.yaml")
    db = folder / "ref.duckdb"
    simulate(scenario=load_scenario(path), db=db)
    return {"path": path, "rows": snapshot(db)}


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_interrupts_and_resume_completes_identically(invoke, cli_process, snapshot,
                                                             tmp_path, big_reference, signum,
                                                             code):
    db = tmp_path / "run.duckdb"
    proc = cli_process.start_simulate(big_reference["path"], db)
    cli_process.wait_for_stored_batch(proc)
    # A reader meanwhile gets a clean explanation, not a traceback.
    busy = invoke("query", "SELECT 1", "--db", db)
    assert busy.exit_code == 1
    assert "is being written by process" in busy.stderr
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert out == ""  # no summary for an interrupted run: stdout carries data only
    con = store.open_store(db, read_only=True)
    try:
        (run_id, status, done, total), = con.execute(
            "SELECT run_id, status, games_completed, games_requested FROM runs").fetchall()
    finally:
        con.close()
    assert status == "interrupted" and 0 < done < total
    assert f"Resume with: unostats simulate --resume {run_id} --db {db}" in err
    resumed = subprocess.run([*cli_process.argv, "simulate", "--resume", run_id, "--db", str(db),
                              "-q", "--format", "csv"], capture_output=True, text=True,
                             env=cli_process.env(), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[0] == ",".join(SUMMARY_COLUMNS)
    assert len(resumed.stdout.splitlines()) == 1 + 4
    assert_same_rows(snapshot(db), big_reference["rows"])


def test_sigkill_leaves_whole_batches_and_resumes_identically(cli_process, snapshot, tmp_path,
                                                              big_reference):
    db = tmp_path / "run.duckdb"
    proc = cli_process.start_simulate(big_reference["path"], db)
    cli_process.wait_for_stored_batch(proc)
    proc.kill()
    proc.communicate(timeout=60)
    con = store.open_store(db, read_only=True)
    try:
        assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
        (run_id, status, done), = con.execute(
            "SELECT run_id, status, games_completed FROM runs").fetchall()
        assert status == "running"  # nobody could mark it; the next writer will
        stored = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
        assert stored == done and done % 20 == 0  # whole batches only
    finally:
        con.close()
    outcome = resume(run=run_id, db=db)
    assert outcome.status == "complete"
    assert_same_rows(snapshot(db), big_reference["rows"])


def test_a_cold_engine_is_compiled_before_the_run_and_said_so(tmp_path, monkeypatch):
    from unostats.engine import compiled
    from unostats.base import engine_cache

    logged = []

    class Log:
        def log(self, text):
            logged.append(text)

    monkeypatch.setattr(engine_cache, "_checked", set())
    # prepare_engine imports the engine when it runs (commands that only read start without it)
    counting = []
    monkeypatch.setattr(compiled, "is_cached", lambda rule_sets, traced, how_it_plays: False)
    monkeypatch.setattr(compiled, "compile_estimate", lambda: 17.0)
    monkeypatch.setattr(compiled, "compile_for",
                        lambda rule_sets, traced, how_it_plays: counting.append(how_it_plays)
                        or 16.5)
    assert engine_cache.prepare_engine(Log()) == 16.5
    assert logged == [engine_cache.compile_message(17.0), "engine compiled in 16.5 s"]
    assert "about 17 s" in logged[0]
    assert engine_cache.prepare_engine(Log()) is None and len(logged) == 2  # once per process
    # the loops that count how rounds play are other entry points: compiled when a run counts
    assert engine_cache.prepare_engine(Log(), how_it_plays=True) == 16.5 and len(logged) == 4
    assert engine_cache.prepare_engine(Log(), how_it_plays=True) is None
    assert counting == [False, True]
    assert "about 15 s on 2 cores" in engine_cache.compile_message(None)  # before any compile


WEIGHTED = """\
name: weighted
seed: 3
games: 30
players: 2
seats:
  - policy:
      name: keep-black
      weights: {points: 1, wild: -1000, wild_draw_four: -1000, colour_held: 2}
  - policy: random
variants:
  - name: standard
"""


def test_a_policy_written_as_data_is_stored_by_its_name_with_its_weights(tmp_path):
    db = tmp_path / "w.duckdb"
    outcome = simulate(scenario=load_scenario(write_scenario(tmp_path, WEIGHTED, "w.yaml")),
                       db=db)
    assert outcome.status == "complete"
    con = duckdb.connect(str(db), read_only=True)
    try:
        seats = con.execute("SELECT seat, policy, count(*) FROM game_seats GROUP BY ALL "
                            "ORDER BY seat").fetchall()
        (scenario_json,), = con.execute("SELECT scenario_json FROM runs").fetchall()
    finally:
        con.close()
    assert seats == [(0, "keep-black", 30), (1, "random", 30)]
    policy = json.loads(scenario_json)["seats"][0]["policy"]
    assert policy == {"name": "keep-black", "colour": "most_held", "ties": "random",
                      "weights": {"colour_held": 2.0, "points": 1.0, "wild": -1000.0,
                                  "wild_draw_four": -1000.0}}


def test_on_one_cpu_the_engine_plays_one_batch_at_a_time(monkeypatch):
    """On a single CPU the next batch is not played while one is stored (the overlap gains
    nothing there); with more CPUs one batch is stored while the next is played."""
    from unostats.games import driver as plain

    room = []
    monkeypatch.setattr(plain.BatchThread, "__init__",
                        lambda self, name, in_flight: room.append(in_flight))
    for cpus, want in (({0}, 1), ({0, 1}, 2), ({3, 5, 7}, 2)):
        monkeypatch.setattr(plain.os, "sched_getaffinity", lambda pid, c=cpus: c, raising=False)
        plain._Producer([], seed=1, threads=1, batch_games=None, how_it_plays=False,
                        totals=False)
        assert room.pop() == want, cpus


def test_the_run_s_rate_leaves_the_compile_out(tmp_path, monkeypatch):
    """A compile (here a stand-in that moves the run's clock on by 1,000 s) is said, and the
    time and rate the run prints count from after it."""
    from types import SimpleNamespace

    from unostats.base import engine_cache, session
    from unostats.base.progress import Progress
    from unostats.engine import compiled

    clock = {"offset": 0.0}
    real = session.time.perf_counter
    monkeypatch.setattr(session, "time", SimpleNamespace(
        perf_counter=lambda: real() + clock["offset"]))

    def compile_for(rule_sets, traced, how_it_plays):
        clock["offset"] += 1000.0
        return 1000.0

    monkeypatch.setattr(engine_cache, "_checked", set())
    monkeypatch.setattr(compiled, "is_cached", lambda rule_sets, traced, how_it_plays: False)
    monkeypatch.setattr(compiled, "compile_for", compile_for)

    class Lines(Progress):
        said: list[str] = []

        def log(self, text):
            self.said.append(text)

    outcome = simulate(scenario=load_scenario(write_scenario(tmp_path)), db=tmp_path / "r.db",
                       progress=Lines())
    assert outcome.status == "complete" and outcome.seconds < 1000
    compiling, compiled_line, complete = Lines.said[-3:]
    assert compiling.startswith("compiling the engine")
    assert compiled_line == "engine compiled in 1000.0 s"
    assert complete.endswith(f"in {outcome.seconds:.1f} s "
                             f"({outcome.games_played / outcome.seconds:,.0f} games/s)")
