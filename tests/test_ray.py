"""The Ray executor (``simulate --executor ray``) against a real cluster of two nodes on this
machine (a head and a worker node, loopback only), started once for the module and stopped at
its end: rows identical to the local executor's (a sweep, many batches finishing in any order),
a worker process killed mid-run (Ray runs its task again; nothing lost or stored twice), Ctrl-C
and resume across executors, the engine made ready once per worker process, a design finding
the local candidates and Pareto set, tournaments and leagues refused. Skipped only where Ray cannot be imported (`pip install 'unostats[ray]'`)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb
import pytest

from unostats import store
from unostats.base.progress import Progress
from unostats.base.session import RunError
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.scenario import load_scenario

from unostats.executors.ray.cluster import local_cluster, use_loopback

use_loopback()  # before Ray is imported (it reads the environment once)
ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'unostats[ray]' "
                                        "(the Ray executor's tests need a local cluster)")

from unostats.executors.ray.driver import RayExecutor  # noqa: E402 (needs Ray)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
CLI = [sys.executable, "-c", "from unostats.cli import app; app()"]

# Two variants x two player counts; small fixed batches make many tasks per cell.
SCENARIO = """\
name: cluster
description: Two variants at two player counts, for the cluster tests.
seed: 11
games: 600
players: [2, 4]
variants:
  - name: standard
  - name: short
    rules: {target_score: 200}
"""


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node (1 CPU each) on 127.0.0.1; the driver (this process)
    connected. The workers import this checkout's unostats and share its engine cache, which
    is filled first here so that the two nodes do not compile at the same time."""
    from unostats.engine.compiled import compile_for

    compile_for(None)  # every entry point
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    temp = tempfile.mkdtemp(prefix="unostats-ray-")  # short: Ray's socket paths must fit
    try:
        with local_cluster(nodes=2, cpus_per_node=1, temp_dir=temp) as address:
            ray.init(address=address, logging_level="WARNING")
            try:
                yield address
            finally:
                ray.shutdown()
    finally:
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cluster") / "cluster.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture(scope="module")
def local_rows(snapshot, tmp_path_factory, scenario_file) -> dict:
    """The scenario played by the local executor, uninterrupted."""
    db = tmp_path_factory.mktemp("local") / "local.duckdb"
    assert simulate(scenario=load_scenario(scenario_file), db=db).status == "complete"
    return snapshot(db)


@pytest.fixture(scope="module")
def snapshot(stored_rows, game_tables):
    """``snapshot(db)``: every stored row of the file's one run, without the run id, sorted."""
    def read(db: Path) -> dict[str, list[tuple]]:
        return stored_rows(db, (*game_tables, "variants"),
                           "status, seed, games_requested, games_completed, scenario_hash")
    return read


def assert_same_rows(got: dict, want: dict) -> None:
    for table in want:
        assert len(got[table]) == len(want[table]), table
        assert got[table] == want[table], f"{table} differs"


def no_duplicates(db: Path) -> None:
    con = store.open_store(db, read_only=True)
    try:
        assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
    finally:
        con.close()


class Log(Progress):
    """Keeps the log lines; with ``stop``, requests it after ``after`` stored batches."""

    def __init__(self, stop: StopRequest | None = None, after: int = 0) -> None:
        self.lines: list[str] = []
        self.stop, self.after, self.seen = stop, after, 0

    def log(self, text: str) -> None:
        self.lines.append(text)

    warn = log

    def batch_stored(self, *args, **kwargs) -> None:
        self.seen += 1
        if self.stop is not None and self.seen == self.after:
            self.stop.request()


def test_a_sweep_on_two_nodes_is_the_local_run_row_for_row(snapshot, tmp_path, cluster):
    """The bundled sweep (90 cells) through the command line, joined to the cluster by its
    address: the same rows as the local executor, batches played on both nodes."""
    common = ["simulate", str(ROOT / "scenarios" / "sweeps.yaml"), "--games", "20",
              "--format", "csv"]
    env = dict(os.environ)
    env.pop("UNOSTATS_DB", None)
    local = subprocess.run([*CLI, *common, "--db", str(tmp_path / "local.duckdb")],
                           capture_output=True, text=True, env=env, timeout=300)
    assert local.returncode == 0, local.stderr
    on_ray = subprocess.run([*CLI, *common, "--db", str(tmp_path / "ray.duckdb"),
                             "--executor", "ray", "--address", cluster],
                            capture_output=True, text=True, env=env, timeout=300)
    assert on_ray.returncode == 0, on_ray.stderr
    # the summaries, the run id (the first column) aside
    assert [line.split(",", 1)[1] for line in on_ray.stdout.splitlines()] == \
        [line.split(",", 1)[1] for line in local.stdout.splitlines()]
    assert "ray: cluster at 127.0.0.1:" in on_ray.stderr and "2 nodes, 2 CPUs" in on_ray.stderr
    assert on_ray.stderr.count("engine loaded from the node's cache in") + \
        on_ray.stderr.count("engine compiled in") >= 2  # each worker process says it once
    assert_same_rows(snapshot(tmp_path / "ray.duckdb"), snapshot(tmp_path / "local.duckdb"))
    con = duckdb.connect(str(tmp_path / "ray.duckdb"), read_only=True)
    try:
        (command,), = con.execute("SELECT command FROM runs").fetchall()
    finally:
        con.close()
    assert f" --executor ray --address {cluster} " in command


def test_many_batches_in_any_order_are_stored_once_in_order(snapshot, tmp_path, cluster,
                                                            scenario_file, local_rows):
    executor = RayExecutor(cluster)
    log = Log()
    outcome = simulate(scenario=load_scenario(scenario_file), db=tmp_path / "r.duckdb",
                       batch_games=50, executor=executor, progress=log)
    assert outcome.status == "complete" and outcome.games_played == 4 * 600
    assert_same_rows(snapshot(tmp_path / "r.duckdb"), local_rows)
    no_duplicates(tmp_path / "r.duckdb")
    # 48 batches on both nodes; each worker process made the engine ready once, not per task
    assert sum(executor.batches_by_worker.values()) == 48
    assert len({w.node_id for w in executor.batches_by_worker}) == 2
    assert set(executor.batches_by_worker) <= set(executor.workers)
    ready_lines = [line for line in log.lines if ": engine " in line]
    assert len(ready_lines) == len(executor.workers) < 48


def test_a_run_that_keeps_games_stores_on_ray_what_it_stores_locally(tmp_path, cluster,
                                                                      scenario_file):
    """The workers count the games' totals (``--keep games``): the same totals and round
    lengths as the local executor's."""
    scenario = load_scenario(scenario_file)
    local, on_ray = tmp_path / "local.duckdb", tmp_path / "ray.duckdb"
    assert simulate(scenario=scenario, db=local, keep="games").status == "complete"
    assert simulate(scenario=scenario, db=on_ray, keep="games", batch_games=100,
                    executor=RayExecutor(cluster)).status == "complete"

    def kept(db):
        con = duckdb.connect(str(db), read_only=True)
        try:
            return [con.execute(f"SELECT c.variant, c.players, t.* EXCLUDE (cell, {first}) "
                                f"FROM {table} t JOIN cells c USING (cell) ORDER BY ALL"
                                ).fetchall()
                    for table, first in (("game_totals", "game"),
                                         ("round_lengths", "first_game"))]
        finally:
            con.close()

    totals, lengths = kept(local)
    assert len(totals) == 4 * 600 and lengths
    assert kept(on_ray)[0] == totals
    # a length comes once per stored batch: the same counts added up
    assert _added(kept(on_ray)[1]) == _added(lengths)


def _added(lengths):
    counts: dict = {}
    for variant, players, turns, rounds in lengths:
        counts[variant, players, turns] = counts.get((variant, players, turns), 0) + rounds
    return counts


def batch_workers() -> list[int]:
    """The processes of this machine inside a batch task (Ray titles them ray::play_batch)."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().startswith(b"ray::play_batch"):
                pids.append(int(cmdline.parent.name))
        except OSError:  # the process ended meanwhile
            continue
    return pids


def test_a_worker_killed_mid_run_is_retried_and_nothing_is_lost_or_doubled(snapshot, tmp_path,
                                                                           cluster):
    """SIGKILL to a worker process while it plays a batch: Ray runs the task again on a new
    worker, and the run equals the uninterrupted local one (batches long enough to be caught
    while they play)."""
    path = tmp_path / "k.yaml"
    path.write_text(SCENARIO.replace("games: 600", "games: 16000").replace("[2, 4]", "[4]"))
    scenario = load_scenario(path)
    local = tmp_path / "local.duckdb"
    assert simulate(scenario=scenario, db=local, batch_games=2000).status == "complete"
    killed: list[int] = []
    started, done = threading.Event(), threading.Event()

    class KillOnce(Progress):
        def batch_stored(self, *args, **kwargs) -> None:
            started.set()  # the cluster is warm and playing: the next batch task dies

    def kill_a_batch_worker() -> None:
        """Polls this machine's processes from a thread of its own (the driver keeps tasks in
        flight meanwhile) and kills the first one found inside a batch task."""
        started.wait()
        while not done.is_set() and not killed:
            for pid in batch_workers()[:1]:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.002)

    killer = threading.Thread(target=kill_a_batch_worker, daemon=True)
    killer.start()
    db = tmp_path / "killed.duckdb"
    try:
        outcome = simulate(scenario=scenario, db=db, batch_games=1000,
                           executor=RayExecutor(cluster), progress=KillOnce())
    finally:
        done.set()
        killer.join()
    assert killed, "no worker was found inside a batch task to kill"
    assert outcome.status == "complete" and outcome.games_played == 2 * 16000
    assert_same_rows(snapshot(db), snapshot(local))
    no_duplicates(db)


def test_a_stopped_run_resumes_on_the_other_executor(snapshot, stop_after, tmp_path, cluster,
                                                     scenario_file, local_rows):
    """Interrupted on Ray, resumed locally; interrupted locally, resumed on Ray: both equal the
    uninterrupted local run. The interruption names the Ray options in its resume command."""
    scenario = load_scenario(scenario_file)
    on_ray = tmp_path / "ray-first.duckdb"
    stop = StopRequest()
    log = Log(stop, after=3)
    first = simulate(scenario=scenario, db=on_ray, batch_games=100, stop=stop,
                     executor=RayExecutor(cluster), progress=log)
    assert first.status == "interrupted" and 0 < first.games_completed < 2400
    assert any(f"--resume {first.run_id} --db {on_ray} --executor ray --address {cluster}"
               in line for line in log.lines)
    assert resume(run=first.run_id, db=on_ray).status == "complete"
    assert_same_rows(snapshot(on_ray), local_rows)

    local_first = tmp_path / "local-first.duckdb"
    stop = StopRequest()
    second = simulate(scenario=scenario, db=local_first, batch_games=100, stop=stop,
                      progress=stop_after(stop, 3))
    assert second.status == "interrupted"
    assert resume(run=second.run_id, db=local_first, executor=RayExecutor(cluster),
                  batch_games=70).status == "complete"
    assert_same_rows(snapshot(local_first), local_rows)
    no_duplicates(local_first)


def test_ctrl_c_cancels_the_tasks_keeps_the_batches_and_prints_the_resume_command(
        snapshot, tmp_path, cluster, scenario_file, local_rows):
    db = tmp_path / "c.duckdb"
    env = {**os.environ, "UNOSTATS_BATCH_GAMES": "40"}
    env.pop("UNOSTATS_DB", None)
    proc = subprocess.Popen([*CLI, "simulate", str(scenario_file), "--db", str(db), "-v",
                             "--executor", "ray", "--address", cluster],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("stored batch:"):
            break
    else:
        proc.kill()
        pytest.fail("no batch was stored: " + "".join(seen))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    con = duckdb.connect(str(db), read_only=True)
    try:
        (run_id, status, done), = con.execute(
            "SELECT run_id, status, games_completed FROM runs").fetchall()
        assert con.execute("SELECT count(*) FROM games").fetchall()[0][0] == done
    finally:
        con.close()
    assert status == "interrupted" and 0 < done < 2400
    assert (f"Resume with: unostats simulate --resume {run_id} --db {db} --executor ray "
            f"--address {cluster}") in err
    outcome = resume(run=run_id, db=db, executor=RayExecutor(cluster))
    assert outcome.status == "complete"
    assert_same_rows(snapshot(db), local_rows)


def test_a_parquet_store_is_written_by_the_workers_and_equals_the_local_run(
        game_tables, tmp_path, cluster, scenario_file, local_rows):
    """--store parquet:DIR: each task writes its batch's shards on its worker and the driver
    records the receipts; interrupted and resumed, the dataset reads as the local run."""
    location = store.parquet_location(str(tmp_path / "dataset"))
    stop = StopRequest()
    first = RayExecutor(cluster)
    interrupted = simulate(scenario=load_scenario(scenario_file), db=location, batch_games=100,
                           stop=stop, executor=first, progress=Log(stop, after=4))
    assert interrupted.status == "interrupted"
    second = RayExecutor(cluster)
    assert resume(run=interrupted.run_id, db=location, executor=second,
                  batch_games=150).status == "complete"
    assert first.shard_batches + second.shard_batches == sum(
        first.batches_by_worker.values()) + sum(second.batches_by_worker.values()) > 4
    con = store.open_store(location, read_only=True)
    try:
        got = {}
        for table in game_tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall() if c != "run_id"]
            got[table] = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL"
                                     ).fetchall()
        assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
    finally:
        con.close()
    assert_same_rows(got, {t: local_rows[t] for t in game_tables})


# 5 x 2 x 3 = 30 settings, 5 candidates (TPE), a constraint and an objective: looks at 100
# and 300 games, so some candidates stop early
DESIGN = """\
name: cluster design
seed: 5
variants:
  - name: house
design:
  players: 4
  search:
    rules.hand_size: {from: 5, to: 9}
    rules.seven_zero: [false, true]
    rules.stack_draw_two: [none, sum, pass_on]
  goals:
    minutes_per_game: {between: [15, 35]}
    turns_per_round: minimize
  budget: {candidates: 5, games: 300}
"""


def _design_answer(db: Path):
    from unostats.design.summary import design_results

    con = duckdb.connect(str(db), read_only=True)
    try:
        (run_id,), = con.execute("SELECT run_id FROM runs").fetchall()
    finally:
        con.close()
    result, = design_results(db=db, run_ids=[run_id])
    return ([(c.name, c.games, {g: (e.value, e.lo, e.hi) for g, e in c.estimates.items()})
             for c in result.candidates], [c.name for c in result.pareto])


def test_a_design_on_two_nodes_finds_the_local_candidates_and_pareto_set(snapshot, tmp_path,
                                                                         cluster):
    """A design's looks played as tasks on both nodes: the same candidates, games and Pareto
    set as on this machine's threads, row for row; stopped on Ray and resumed locally, the
    same again; and through the command line (``design --executor ray``) the same table."""
    path = tmp_path / "design.yaml"
    path.write_text(DESIGN)
    local = tmp_path / "local.duckdb"
    assert simulate(scenario=load_scenario(path), db=local).status == "complete"
    want = _design_answer(local)
    assert want[1] and len(want[0]) == 5  # a Pareto set to compare

    executor = RayExecutor(cluster)
    on_ray = tmp_path / "ray.duckdb"
    outcome = simulate(scenario=load_scenario(path), db=on_ray, batch_games=60,
                       executor=executor, progress=Log())
    assert outcome.status == "complete"
    assert _design_answer(on_ray) == want
    assert_same_rows(snapshot(on_ray), snapshot(local))
    no_duplicates(on_ray)
    assert len({w.node_id for w in executor.batches_by_worker}) == 2

    stopped = tmp_path / "stopped.duckdb"
    stop = StopRequest()
    log = Log(stop, after=4)
    first = simulate(scenario=load_scenario(path), db=stopped, batch_games=60, stop=stop,
                     executor=RayExecutor(cluster), progress=log)
    assert first.status == "interrupted"
    assert any(f"--resume {first.run_id} --db {stopped} --executor ray --address {cluster}"
               in line for line in log.lines)
    assert resume(run=first.run_id, db=stopped).status == "complete"
    assert _design_answer(stopped) == want

    env = dict(os.environ)
    env.pop("UNOSTATS_DB", None)
    runs = [subprocess.run([*CLI, "design", str(path), "--format", "csv", "--out",
                            str(tmp_path / f"{name}.yaml"), "--db",
                            str(tmp_path / f"cli-{name}.duckdb"), *extra],
                           capture_output=True, text=True, env=env, timeout=300)
            for name, extra in (("local", []),
                                ("ray", ["--executor", "ray", "--address", cluster]))]
    for run in runs:
        assert run.returncode == 0, run.stderr
    local_csv, ray_csv = ([line.split(",", 1)[1] for line in run.stdout.splitlines()]
                          for run in runs)
    assert ray_csv == local_csv and len(ray_csv) == 1 + len(want[1])
    assert "ray: cluster at 127.0.0.1:" in runs[1].stderr


@pytest.mark.parametrize("name, what", [("championship", "tournament runs .a `tournament:`"),
                                        ("strategies", "league runs .a `league:`")])
def test_a_tournament_or_league_is_refused_before_anything_is_stored(tmp_path, name, what):
    """No cluster needed: the refusal comes before the executor connects."""
    db = tmp_path / "t.duckdb"
    with pytest.raises(RunError, match=f"{what} section.*local executor only"):
        simulate(scenario=load_scenario(name), db=db, executor=RayExecutor("x:1"))
    assert not db.exists()


def test_an_unreachable_cluster_is_one_sentence_before_a_run_is_recorded(tmp_path,
                                                                        monkeypatch):
    db = tmp_path / "u.duckdb"
    executor = RayExecutor("127.0.0.1:1")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)

    def refused(**kwargs):
        raise ConnectionError("Could not find any running Ray instance")

    monkeypatch.setattr(ray, "init", refused)
    with pytest.raises(RunError, match="cannot start or reach the Ray cluster at 127.0.0.1:1"):
        simulate(scenario=load_scenario("standard"), db=db, games=10, executor=executor)
    assert not db.exists()
