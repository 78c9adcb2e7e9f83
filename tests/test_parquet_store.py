"""The Parquet store (``--store parquet:DIR``): a run stored as Parquet shards reads, row for row,
like the same run in a DuckDB file (tables and views), through every reader; resume, shards
written but not recorded, batches delivered twice or out of order, non-local pyarrow file
systems, and the store specs refused."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from unostats import store
from unostats.base.compare import ALL_STATISTICS
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.scenario import load_scenario
from unostats.store import parquet

# Two variants at two player counts, one variant name with a space (percent-encoded in the
# folder names).
TINY = """\
name: tiny
description: Two variants at two player counts, for tests.
seed: 7
games: 40
players: [2, 3]
variants:
  - name: standard
  - name: short house
    description: First to 200.
    rules: {target_score: 200}
"""
# Everything a reader sees, tables and views (a view's rows come from the shard tables).
READ = ("games", "game_seats", "rounds", "round_seats", "variants", *store.VIEWS, "durations")


def rows(con, name: str, run_id: str) -> list[tuple]:
    cols = [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position", [name]).fetchall() if c != "run_id"]
    return con.execute(f"SELECT {', '.join(cols)} FROM {name} WHERE run_id = ? ORDER BY ALL",
                       [run_id]).fetchall()


def columns(con, name: str) -> list[tuple]:
    return con.execute("SELECT column_name, data_type FROM information_schema.columns "
                       "WHERE table_name = ? ORDER BY ordinal_position", [name]).fetchall()


def snapshot(target, run_id: str | None = None) -> dict[str, list[tuple]]:
    con = store.open_store(target, read_only=True)
    try:
        run_id = run_id or store.latest_run_id(con)
        out = {name: rows(con, name, run_id) for name in READ}
        out["runs"] = con.execute(
            "SELECT status, seed, games_requested, games_completed, scenario_hash "
            "FROM runs WHERE run_id = ?", [run_id]).fetchall()
        return out
    finally:
        con.close()


def assert_same(got: dict, want: dict) -> None:
    """Tables equal row for row; views too, but their floats to 1e-12 (relative): aggregates
    over rows read in another order round differently in the last bits."""
    assert got.keys() == want.keys()
    for name in want:
        assert len(got[name]) == len(want[name]), name
        if name not in (*store.VIEWS, "durations"):
            assert got[name] == want[name], f"{name} differs"
            continue
        for a, b in zip(got[name], want[name]):
            assert len(a) == len(b) and all(
                math.isclose(x, y, rel_tol=1e-12) if isinstance(x, float) else x == y
                for x, y in zip(a, b)), f"{name} differs: {a} != {b}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """The same scenario stored in a DuckDB file and in a Parquet store."""
    folder = tmp_path_factory.mktemp("pq")
    path = folder / "tiny.yaml"
    path.write_text(TINY)
    db = folder / "ref.duckdb"
    ref = simulate(scenario=load_scenario(path), db=db, batch_games=15)
    loc = store.parquet_location(str(folder / "store"))
    got = simulate(scenario=load_scenario(path), db=loc, batch_games=15)
    assert ref.status == got.status == "complete"
    return {"path": path, "db": db, "loc": loc, "dir": folder / "store", "ref": snapshot(db),
            "run_id": got.run_id}


def test_a_parquet_run_reads_like_the_duckdb_file_row_for_row(runs):
    got = snapshot(runs["loc"])
    assert len(got["round_seats"]) > 1000
    assert got["runs"][0][:4] == ("complete", 7, 160, 160)
    assert_same(got, runs["ref"])
    file, dataset = (store.open_store(t, read_only=True) for t in (runs["db"], runs["loc"]))
    try:
        for name in (*READ, "runs", "precision_looks", "meta"):  # same columns, same types
            assert columns(dataset, name) == columns(file, name), name
        assert store.duplicate_keys(dataset) == dict.fromkeys(store.RESULT_KEYS, 0)
    finally:
        file.close()
        dataset.close()


def test_the_dataset_is_hive_partitioned_by_run_variant_and_players(runs):
    folder = runs["dir"] / "rounds" / f"run_id={runs['run_id']}"
    cells = sorted(p.relative_to(folder).as_posix() for p in folder.glob("*/*"))
    assert cells == ["variant=short%20house/players=2", "variant=short%20house/players=3",
                     "variant=standard/players=2", "variant=standard/players=3"]
    shards = sorted(p.name for p in (folder / "variant=standard" / "players=3").iterdir())
    assert shards == ["games-000000000000-000000000015.parquet",
                      "games-000000000015-000000000030.parquet",
                      "games-000000000030-000000000040.parquet"]
    # a Parquet reader that knows hive partitions reads the cells from the folder names
    cell_schema = pa.schema([("run_id", pa.string()), ("variant", pa.string()),
                             ("players", pa.int16())])
    table = pads.dataset(runs["dir"] / "games", partitioning=pads.partitioning(
        cell_schema, flavor="hive")).to_table()
    assert table.num_rows == 160
    assert sorted(set(zip(table["variant"].to_pylist(), table["players"].to_pylist()))) == [
        ("short house", 2), ("short house", 3), ("standard", 2), ("standard", 3)]


def test_every_reader_command_reads_the_store(invoke, runs, tmp_path):
    spec = f"parquet:{runs['dir']}"
    r = invoke("query", "SELECT variant, players, count(*) AS n FROM games GROUP BY ALL "
               "ORDER BY ALL", "--store", spec, "-f", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout == ("variant,players,n\nshort house,2,40\nshort house,3,40\n"
                        "standard,2,40\nstandard,3,40\n")
    r = invoke("runs", "--store", spec, "-f", "json")
    assert r.exit_code == 0, r.output
    (run,) = json.loads(r.stdout)
    assert (run["run_id"], run["status"], run["games_completed"]) == (runs["run_id"],
                                                                      "complete", 160)
    r = invoke("compare", "latest/standard/2", "latest/short house/2", "--store", spec,
               "-f", "csv")
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 1 + len(ALL_STATISTICS)
    out = tmp_path / "report.html"
    r = invoke("report", "--store", spec, "--out", out)
    assert r.exit_code == 0, r.output
    assert "standard" in out.read_text() and out.stat().st_size > 100_000
    r = invoke("export", "latest", "--out", tmp_path / "exp", "--store", spec)
    assert r.exit_code == 0, r.output
    assert pq.read_table(tmp_path / "exp" / "round_seats.parquet").num_rows == \
        len(runs["ref"]["round_seats"])
    r = invoke("replay", "latest", "--game", "3", "--variant", "standard", "--players", "3",
               "--store", spec)
    assert r.exit_code == 0, r.output
    r = invoke("query", "DELETE FROM runs", "--store", spec)  # read-only, as a file
    assert r.exit_code == 1 and "open read-only: DELETE statements are not allowed" in r.output
    r = invoke("query", "CREATE TEMP TABLE t AS SELECT 1 AS x; SELECT x FROM t", "--store", spec,
               "-f", "csv")
    assert r.exit_code == 0 and r.stdout == "x\n1\n", r.output
    r = invoke("runs", "--store", f"parquet:file://{runs['dir']}", "-f", "csv")  # a URI
    assert r.exit_code == 0 and runs["run_id"] in r.stdout, r.output
    r = invoke("query", "SELECT count(*) FROM round_seats", "--store", f"duckdb:{runs['db']}",
               "-f", "csv")
    assert r.exit_code == 0 and r.stdout.splitlines()[1] == str(len(runs["ref"]["round_seats"]))


def test_simulate_on_the_command_line_and_its_resume_hint(invoke, runs, tmp_path):
    folder = tmp_path / "cli store"
    r = invoke("simulate", runs["path"], "--store", f"parquet:{folder}", "-f", "csv")
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 1 + 4  # a header, a row per cell (2 variants x 2 tables)
    assert f"--store 'parquet:{folder}'" in snapshot_command(folder)
    assert_same(snapshot(store.parquet_location(str(folder))), runs["ref"])


def snapshot_command(folder: Path) -> str:
    con = store.open_store(store.parquet_location(str(folder)), read_only=True)
    try:
        return con.execute("SELECT command FROM runs").fetchall()[0][0]
    finally:
        con.close()


def test_resume_after_interruption_stores_every_game_once(stop_after, runs, tmp_path):
    loc = store.parquet_location(str(tmp_path / "s"))
    stop = StopRequest()
    first = simulate(scenario=load_scenario(runs["path"]), db=loc, batch_games=7,
                     progress=stop_after(stop, 3), stop=stop)
    assert first.status == "interrupted" and first.games_completed == 21
    assert first.resume_command.endswith(f"--store parquet:{tmp_path / 's'}")
    assert snapshot(loc)["runs"][0][:4] == ("interrupted", 7, 160, 21)
    stop = StopRequest()
    second = resume(run=first.run_id, db=loc, batch_games=11, progress=stop_after(stop, 5),
                    stop=stop)
    assert second.status == "interrupted" and second.games_completed == 21 + 11 + 8 + 33
    third = resume(run="latest", db=loc, batch_games=1000)
    assert third.status == "complete" and third.games_played == 160 - 73
    assert_same(snapshot(loc), runs["ref"])


def test_a_shard_written_but_not_recorded_is_ignored_then_overwritten(game_tables, stop_after, runs,
                                                                      tmp_path):
    loc = store.parquet_location(str(tmp_path / "s"))
    stop = StopRequest()
    first = simulate(scenario=load_scenario(runs["path"]), db=loc, batch_games=10,
                     progress=stop_after(stop, 2), stop=stop)
    assert first.games_completed == 20
    cell = tmp_path / "s" / "{}" / f"run_id={first.run_id}" / "variant=standard" / "players=2"
    # a worker wrote the next batch's shards (here: copies of the first batch's, wrong rows)
    # and died before the driver recorded it
    for table in game_tables:
        folder = Path(str(cell).format(table))
        shutil.copy(folder / "games-000000000000-000000000010.parquet",
                    folder / "games-000000000020-000000000030.parquet")
    seen = snapshot(loc)
    assert len(seen["games"]) == 20 and seen["runs"][0][3] == 20
    assert store.duplicate_keys(store.open_store(loc, read_only=True)) == \
        dict.fromkeys(store.RESULT_KEYS, 0)
    done = resume(run=first.run_id, db=loc, batch_games=10)  # plays 20..29 again: overwritten
    assert done.status == "complete"
    assert_same(snapshot(loc), runs["ref"])


def _batches(scenario, cell, lo, hi, size):
    from unostats.engine.simulate import simulate_arrow
    return list(simulate_arrow(rules=cell.variant.rules, players=cell.players, seats=cell.seats,
                               games=hi - lo, seed=scenario.seed, first_game=lo,
                               batch_games=size, ahead=False))


@pytest.mark.parametrize("filesystem", ["subtree", "mock"])
def test_shards_from_workers_recorded_once_in_any_order_on_other_file_systems(
        runs, tmp_path, filesystem):
    """What a cluster executor does: workers write shards (here in reverse order, one batch
    twice), the driver records each receipt; the store is a pyarrow file system that is not
    the local one (read through Arrow datasets)."""
    if filesystem == "subtree":
        (tmp_path / "root").mkdir()
        fs = pafs.SubTreeFileSystem(str(tmp_path / "root"), pafs.LocalFileSystem())
        loc = store.parquet_location("results/store", filesystem=fs)
    else:
        loc = store.parquet_location("mock:///results/store")  # pyarrow's in-memory one
    assert not loc.is_local
    stop = StopRequest()
    stop.request()  # the run and its cells recorded, no batch played
    scenario = load_scenario(runs["path"])
    run = simulate(scenario=scenario, db=loc, stop=stop)
    assert run.games_completed == 0
    con = store.open_store(loc, read_only=False)
    try:
        store.resume_run(con, run.run_id)
        for cell in scenario.cells():
            name = cell.variant.name
            assert store.missing_ranges(con, run.run_id, name, cell.players, 40) == [(0, 40)]
            receipts = [store.write_shards(loc, run.run_id, name, cell.players, b)
                        for b in reversed(_batches(scenario, cell, 0, 40, 15))]
            assert store.record_shards(con, receipts[0])
            assert store.missing_ranges(con, run.run_id, name, cell.players, 40) == [(0, 30)]
            assert store.record_shards(con, *receipts[1:]) == len(receipts) - 1  # at once
            assert store.record_shards(con, receipts[1]) == 0  # delivered twice: stored once
            with pytest.raises(store.StoreError, match="overlap"):
                store.record_shards(con, store.write_shards(
                    loc, run.run_id, name, cell.players, _batches(scenario, cell, 10, 20, 10)[0]))
        store.finish_run(con, run.run_id, status="complete")
    finally:
        con.close()
    assert_same(snapshot(loc), runs["ref"])


def test_bad_store_specs_are_refused(invoke, runs, tmp_path):
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    cases = [
        (("runs", "--store", "results/"), 2, "expected parquet:DIR"),
        (("runs", "--store", "sqlite:x.db"), 2, "expected parquet:DIR"),
        (("runs", "--store", "parquet:"), 2, "needs a folder or URI"),
        (("runs", "--store", "parquet:nosuch://bucket/x"), 2, "not a location pyarrow can open"),
        (("runs", "--store", f"parquet:{tmp_path / 'none'}"), 1, "no Parquet results store"),
        (("runs", "--store", f"parquet:{a_file}"), 1, "is a file"),
        (("runs", "--store", f"parquet:{runs['dir']}", "--db", runs["db"]), 2, "not both"),
        (("simulate", runs["path"], "--store", f"parquet:{busy}"), 1, "other files"),
        (("simulate", "--resume", "latest", "--store", f"parquet:{tmp_path / 'none'}"), 2,
         "no run to resume"),
        (("simulate", "championship", "--games", "2", "--store", f"parquet:{tmp_path / 'c'}"),
         2, "plain games, not tournament runs"),
        (("simulate", "strategies", "--games", "2", "--store", f"parquet:{tmp_path / 'l'}"),
         2, "plain games, not league runs"),
    ]
    for args, code, text in cases:
        r = invoke(*args)
        assert r.exit_code == code, (args, r.output)
        assert text in r.output and "Traceback" not in r.output, (args, r.output)
    assert not (tmp_path / "none").exists()


def test_a_marker_of_another_version_is_refused(invoke, runs, tmp_path):
    folder = tmp_path / "old"
    shutil.copytree(runs["dir"], folder)
    marker = folder / parquet.MARKER
    marker.write_text(json.dumps({**json.loads(marker.read_text()), "schema_version": 1}))
    r = invoke("runs", "--store", f"parquet:{folder}")
    assert r.exit_code == 1 and "schema version 1" in r.output


def test_the_local_driver_resumes_a_run_recorded_out_of_order(runs, tmp_path):
    """A run whose middle batches a cluster recorded first: the local resume plays the gaps."""
    loc = store.parquet_location(str(tmp_path / "s"))
    stop = StopRequest()
    stop.request()
    scenario = load_scenario(runs["path"])
    run = simulate(scenario=scenario, db=loc, stop=stop)
    con = store.open_store(loc, read_only=False)
    try:
        store.resume_run(con, run.run_id)
        for cell in scenario.cells():
            middle = _batches(scenario, cell, 0, 40, 15)[1]
            store.record_shards(con, store.write_shards(loc, run.run_id, cell.variant.name,
                                                        cell.players, middle))
            assert store.missing_ranges(con, run.run_id, cell.variant.name, cell.players,
                                        40) == [(0, 15), (30, 40)]
        store.finish_run(con, run.run_id, status="interrupted")
    finally:
        con.close()
    done = resume(run=run.run_id, db=loc, batch_games=4)
    assert done.status == "complete" and done.games_played == 4 * 25
    assert_same(snapshot(loc), runs["ref"])


def test_sigkill_mid_run_leaves_recorded_batches_readable_and_resumes_identically(cli_process,
                                                                                  invoke, tmp_path):
    """A writer killed outright: readers (who may read while it writes) see whole recorded
    batches and the run as interrupted; the resume completes it row for row."""
    path = tmp_path / "big.yaml"
    path.write_text(TINY.replace("games: 40", "games: 1000"))
    ref = tmp_path / "ref.duckdb"
    simulate(scenario=load_scenario(path), db=ref)
    folder = tmp_path / "store"
    proc = subprocess.Popen(
        [*cli_process.argv, "simulate", str(path), "--store", f"parquet:{folder}", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_process.env(UNOSTATS_BATCH_GAMES="20"))
    cli_process.wait_for_stored_batch(proc)
    during = invoke("query", "SELECT count(*) FROM games", "--store", f"parquet:{folder}",
                    "-f", "csv")  # no lock: a reader reads the batches recorded so far
    assert during.exit_code == 0 and int(during.stdout.split()[1]) % 20 == 0, during.output
    proc.kill()
    proc.communicate(timeout=60)
    loc = store.parquet_location(str(folder))
    con = store.open_store(loc, read_only=True)
    try:
        assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)
        (run_id, done), = con.execute("SELECT run_id, games_completed FROM runs").fetchall()
        assert con.execute("SELECT count(*) FROM games").fetchall()[0][0] == done
        assert done % 20 == 0 and 0 < done < 4000
    finally:
        con.close()
    listed = invoke("runs", "--store", f"parquet:{folder}", "-f", "csv")
    assert ",interrupted," in listed.stdout, listed.output
    assert resume(run=run_id, db=loc).status == "complete"
    assert_same(snapshot(loc), snapshot(ref))


def test_a_precision_targeted_run_looks_and_stops_as_in_the_file(runs, tmp_path):
    sets = ["games=2000", "precision.turns_per_round=3"]
    got, want = {}, {}
    for target, out in ((store.parquet_location(str(tmp_path / "s")), got),
                        (tmp_path / "f.duckdb", want)):
        assert simulate(scenario=load_scenario(runs["path"], sets), db=target).status == \
            "complete"
        con = store.open_store(target, read_only=True)
        try:
            out["looks"] = rows(con, "precision_looks", store.latest_run_id(con))
            out["games"] = rows(con, "games", store.latest_run_id(con))
        finally:
            con.close()
    assert len(want["looks"]) >= 4 and len(want["games"]) < 4 * 2000  # some cell stopped early
    assert got == want


# --- A store edited by hand: one sentence naming the file, at open time ---------------------------

def _edit_manifest(folder: Path, edit) -> None:
    path = next((folder / "runs").glob("*.json"))
    doc = json.loads(path.read_text())
    edit(doc["tables"][parquet.BATCHES_TABLE], doc)
    path.write_text(json.dumps(doc))


def _shift(part, doc, by=(0, 0), copy=True, **values):
    """Append a copy of the first recorded batch, its games shifted and ``values`` set."""
    cols = part["columns"]
    row = list(part["rows"][0])
    row[cols.index("first_game")] += by[0]
    row[cols.index("end_game")] += by[1]
    for name, value in values.items():
        row[cols.index(name)] = value
    part["rows"].append(row) if copy else part["rows"].__setitem__(0, row)


def _shard(folder: Path) -> Path:
    return min(folder.glob("games/*/*/*/games-*.parquet"))


def _replace_with_link(folder: Path, tmp_path: Path, what: str) -> None:
    shard = _shard(folder)
    if what == "file":
        shutil.copy(shard, tmp_path / "elsewhere.parquet")
        shard.unlink()
        shard.symlink_to(tmp_path / "elsewhere.parquet")
    else:
        run_folder = shard.parent.parent.parent
        shutil.copytree(run_folder, tmp_path / "elsewhere")
        shutil.rmtree(run_folder)
        run_folder.symlink_to(tmp_path / "elsewhere")


HAND_EDITS = {
    "a batch recorded twice": (lambda f, t: _edit_manifest(f, _shift), "twice"),
    "overlapping batches": (lambda f, t: _edit_manifest(
        f, lambda p, d: _shift(p, d, by=(1, 1))), "overlapping batches"),
    "a batch that is no range": (lambda f, t: _edit_manifest(
        f, lambda p, d: _shift(p, d, by=(0, -10**9), copy=False)), "not a range of games"),
    "a batch of another run": (lambda f, t: _edit_manifest(
        f, lambda p, d: _shift(p, d, by=(1000, 1000), run_id="other")), "not of its own run"),
    "a variant with ../": (lambda f, t: _edit_manifest(
        f, lambda p, d: _shift(p, d, by=(1000, 1000), variant="../../x")), "is missing"),
    "a run id with ../": (lambda f, t: _edit_manifest(
        f, lambda p, d: d.__setitem__("run_id", "../../etc")), "holds run '../../etc'"),
    "a manifest that is not JSON": (lambda f, t: next((f / "runs").glob("*.json")).write_text(
        "{"), "is not a run manifest"),
    "a manifest copied under another name": (lambda f, t: shutil.copy(
        next((f / "runs").glob("*.json")), f / "runs" / "copy.json"), "runs/copy.json holds run"),
    "rows that do not fit": (lambda f, t: _edit_manifest(
        f, lambda p, d: _shift(p, d, copy=False, players="four")), "do not fit its columns"),
    "a missing shard": (lambda f, t: _shard(f).unlink(), "is missing"),
    "a shard that is a symbolic link": (lambda f, t: _replace_with_link(f, t, "file"),
                                        "not a regular file of the store"),
    "a run folder that is a symbolic link": (lambda f, t: _replace_with_link(f, t, "folder"),
                                             "not a regular file of the store"),
    "a shard with a foreign schema": (lambda f, t: pq.write_table(
        pa.table({"game": [1], "other": ["x"]}), _shard(f)), "does not have the columns"),
    "a shard of the wrong types": (lambda f, t: pq.write_table(
        pq.read_table(_shard(f)).cast(pa.schema([
            pa.field(x.name, pa.string()) for x in pq.read_schema(_shard(f))])), _shard(f)),
        "does not have the columns"),
    "a shard that is not Parquet": (lambda f, t: _shard(f).write_text("not parquet"),
                                    "is not a Parquet file"),
}


@pytest.mark.parametrize("case", list(HAND_EDITS))
@pytest.mark.parametrize("command", ["query", "simulate --resume"])
def test_a_store_edited_by_hand_is_refused_naming_the_file(runs, tmp_path, invoke, case,
                                                           command):
    folder = tmp_path / "store"
    shutil.copytree(runs["dir"], folder)
    edit, words = HAND_EDITS[case]
    edit(folder, tmp_path)
    args = (["query", "SELECT count(*) FROM games"] if command == "query"
            else ["simulate", runs["path"], "--resume", "latest", "-q"])
    result = invoke(*args, "--store", f"parquet:{folder}")
    assert result.exit_code == 1, result.output
    assert words in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert "restore" in result.stderr or "move" in result.stderr  # what to do
