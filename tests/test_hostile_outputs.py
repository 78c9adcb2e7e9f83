"""The outputs under attack (issue 36), one class of finding per ``CLASS`` mark so the tally
counts cases per class:

- ``overwrite``: no command writes over the results store or a file that is not a regular one,
  even with --overwrite, nor over a file it did not write without --overwrite (report, export,
  tune, the reports index);
- ``hang``: a FIFO in the reports folder, a --out path deep enough to recurse, a Ray address
  where nothing listens (127.0.0.1 only) each end at once with a sentence;
- ``interrupt``: a second Ctrl-C, wherever it lands (inside DuckDB's insert, the run's last
  write, the hand-over's halt), ends ``simulate`` with 130 and the sentence that says what is
  stored and how to resume; the resume then completes the run.

The races are made deterministic: the first Ctrl-C is a real SIGINT raised from a patched
store write (the handler sets the stop flag), the second is the error DuckDB raises when a
KeyboardInterrupt stops its statement, raised by the same patch.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import threading
from pathlib import Path

import duckdb
import pytest

from unostats import store

SCENARIO = """\
name: outputs
description: A small run for the output tests.
seed: 3
games: 40
players: [2]
variants:
  - name: standard
"""


def CLASS(name):  # noqa: N802 - reads as a label in the parameter lists
    return pytest.param(name, id=name)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def made(tmp_path_factory, invoke) -> dict:
    folder = tmp_path_factory.mktemp("made")
    scenario = folder / "outputs.yaml"
    scenario.write_text(SCENARIO)
    db = folder / "r.duckdb"
    result = invoke("simulate", scenario, "--db", db, "-q", env={"UNOSTATS_BATCH_GAMES": "10"})
    assert result.exit_code == 0, result.output
    return {"scenario": scenario, "db": db}


def run_with_watchdog(target, release=None, seconds: float = 120):
    """Run ``target()`` on a thread; a hang (still running after ``seconds``) fails the test
    after ``release()`` has unblocked it. A guard against hanging the suite, not a timing."""
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", target()), daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if release is not None:
            release()
        pytest.fail(f"still running after {seconds:g} s: it hangs")
    return box["result"]


def open_fifo_writer(path: Path):
    """Unblock a reader waiting on FIFO ``path``."""
    def release():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    return release


# --- overwrite: outputs that replace what they did not write -----------------------------------

@pytest.mark.parametrize("cls", [CLASS("overwrite")])
@pytest.mark.parametrize("which", ["database", "wal", "another database"])
@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]], ids=["plain", "--overwrite"])
def test_report_never_writes_over_a_results_database(invoke, made, tmp_path, cls, which,
                                                     overwrite):
    db = tmp_path / "r.duckdb"
    db.write_bytes(made["db"].read_bytes())
    other = tmp_path / "other.duckdb"
    other.write_bytes(made["db"].read_bytes())
    wal = tmp_path / "r.duckdb.wal"
    target = {"database": db, "wal": wal, "another database": other}[which]
    before = {p: digest(p) for p in (db, other)}
    result = invoke("report", "--db", db, "--out", target, *overwrite)
    assert result.exit_code == 2, result.output
    assert "never writes over the results store" in result.stderr
    assert result.stderr.count("\n") == 1
    assert {p: digest(p) for p in (db, other)} == before and not wal.exists()


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
def test_report_replaces_a_users_file_only_with_overwrite(invoke, made, tmp_path, cls):
    notes = tmp_path / "notes.html"
    notes.write_text("my notes\n")
    refused = invoke("report", "--db", made["db"], "--out", notes)
    assert refused.exit_code == 2 and "--overwrite" in refused.stderr
    assert notes.read_text() == "my notes\n"
    assert not (tmp_path / "index.html").exists()
    replaced = invoke("report", "--db", made["db"], "--out", notes, "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    assert "unostats-report-meta" in notes.read_text()
    again = invoke("report", "--db", made["db"], "--out", notes)  # now a report of its own
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
def test_report_never_writes_over_a_fifo(invoke, made, tmp_path, cls):
    out = tmp_path / "r.html"
    os.mkfifo(out)
    result = run_with_watchdog(lambda: invoke("report", "--db", made["db"], "--out", out,
                                              "--overwrite"), open_fifo_writer(out))
    assert result.exit_code == 2, result.output
    assert "not a regular file" in result.stderr and result.stderr.count("\n") == 1
    assert out.is_fifo()


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
def test_report_never_writes_into_a_parquet_store(invoke, made, tmp_path, cls):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / store.parquet.MARKER).write_text("{}")
    result = invoke("report", "--db", made["db"], "--out", folder / "r.html", "--overwrite")
    assert result.exit_code == 2, result.output
    assert "Parquet results store" in result.stderr
    assert sorted(p.name for p in folder.iterdir()) == [store.parquet.MARKER]


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_replaces_existing_files_only_with_overwrite(invoke, made, tmp_path, cls, fmt):
    out = tmp_path / "out"
    out.mkdir()
    mine = out / f"games.{fmt}"
    mine.write_text("my own games\n")
    refused = invoke("export", "latest", "--db", made["db"], "--out", out, "--format", fmt)
    assert refused.exit_code == 2, refused.output
    assert f"games.{fmt} exists" in refused.stderr and "--overwrite" in refused.stderr
    assert sorted(p.name for p in out.iterdir()) == [mine.name]  # nothing half-exported
    assert mine.read_text() == "my own games\n"
    done = invoke("export", "latest", "--db", made["db"], "--out", out, "--format", fmt,
                  "--overwrite")
    assert done.exit_code == 0, done.output
    con = duckdb.connect()
    reader = "read_csv" if fmt == "csv" else "read_parquet"
    assert con.execute(f"SELECT count(*) FROM {reader}(?)", [str(mine)]).fetchall() == [(40,)]


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
@pytest.mark.parametrize("kind", ["link to the database", "fifo"])
def test_export_never_writes_through_a_link_to_the_store_or_into_a_fifo(invoke, made, tmp_path,
                                                                      cls, kind):
    db = tmp_path / "r.duckdb"
    db.write_bytes(made["db"].read_bytes())
    before = digest(db)
    out = tmp_path / "out"
    out.mkdir()
    target = out / "games.csv"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(db)
    result = run_with_watchdog(lambda: invoke("export", "latest", "--db", db, "--out", out,
                                              "--format", "csv", "--overwrite"),
                               open_fifo_writer(target))
    assert result.exit_code == 2, result.output
    assert ("never writes over the results store" if kind != "fifo"
            else "not a regular file") in result.stderr
    assert digest(db) == before and sorted(p.name for p in out.iterdir()) == ["games.csv"]


@pytest.mark.parametrize("cls", [CLASS("overwrite")])
def test_tune_never_writes_over_the_results_database(invoke, made, tmp_path, cls):
    db = tmp_path / "r.duckdb"
    db.write_bytes(made["db"].read_bytes())
    before = digest(db)
    result = invoke("tune", made["scenario"], "--out", db, "--overwrite", "--budget", "4",
                    "--population", "2", "--games-per-candidate", "1", "--holdout", "2", "-q")
    assert result.exit_code == 2, result.output
    assert "never writes over the results store" in result.stderr
    assert digest(db) == before


# --- hang: each ends at once with a sentence ----------------------------------------------------

@pytest.mark.parametrize("cls", [CLASS("hang")])
def test_a_fifo_in_the_reports_folder_is_skipped_with_a_note(invoke, made, tmp_path, cls):
    site = tmp_path / "site"
    site.mkdir()
    fifo = site / "pipe.html"
    os.mkfifo(fifo)
    result = run_with_watchdog(lambda: invoke("report", "--db", made["db"], "--out",
                                              site / "r.html"), open_fifo_writer(fifo))
    assert result.exit_code == 0, result.output
    assert f"{fifo} is not a regular file: not listed in the index" in result.stderr
    index = (site / "index.html").read_text()
    assert 'href="r.html"' in index and "pipe.html" not in index


@pytest.mark.parametrize("cls", [CLASS("hang")])
def test_a_report_path_deep_enough_to_recurse_is_written(invoke, made, tmp_path, cls):
    out = tmp_path.joinpath(*["d"] * 1500) / "r.html"  # deeper than Python's recursion limit
    try:
        result = invoke("report", "--db", made["db"], "--out", out, "--overwrite")
        assert result.exit_code == 0, result.output
        assert "unostats-report-meta" in out.read_text()
    finally:  # shutil.rmtree (pytest's clean-up of old temporary folders) would recurse
        remove_tree(tmp_path / "d")


def remove_tree(top: Path) -> None:
    """Remove a folder tree of any depth, without recursion."""
    stack = [top]
    while stack:
        if not os.path.isdir(stack[-1]):
            stack.pop()
            continue
        folders = []
        for entry in os.scandir(stack[-1]):
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            else:
                os.unlink(entry.path)
        if folders:
            stack.extend(folders)
        else:
            os.rmdir(stack.pop())


def free_loopback_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("cls", [CLASS("hang")])
def test_a_ray_address_where_nothing_listens_is_a_sentence(invoke, made, tmp_path, cls):
    pytest.importorskip("ray")
    address = f"127.0.0.1:{free_loopback_port()}"
    db = tmp_path / "r.duckdb"
    result = run_with_watchdog(lambda: invoke(
        "simulate", made["scenario"], "--db", db, "--executor", "ray", "--address", address,
        "-q", env={"RAY_ADDRESS": None, "UNOSTATS_RAY_CONNECT_TIMEOUT": "5"}))
    assert result.exit_code == 1, result.output
    assert f"cannot start or reach the Ray cluster at {address}: " in result.stderr
    assert "ray start --head" in result.stderr and result.stderr.count("\n") == 1
    assert not db.exists() or invoke("runs", "--db", db).stdout.count("\n") <= 2


# --- interrupt: a second Ctrl-C, wherever it lands ----------------------------------------------

def _ctrl_c_twice(second: BaseException):
    """The first Ctrl-C (a real SIGINT: the handler sets the stop flag), then ``second`` as
    it reaches the code that was running."""
    def fire(*args, **kwargs):
        signal.raise_signal(signal.SIGINT)
        raise second
    return fire


def _patch(monkeypatch, where: str):
    """Make the second Ctrl-C land ``where``, once."""
    from unostats.base import handover

    calls = {"n": 0}
    second = {"duckdb's insert": RuntimeError("Query interrupted"),
              "duckdb's interrupt error": duckdb.InterruptException("INTERRUPT Error: "
                                                                    "Interrupted!"),
              "the run's last write": RuntimeError("Query interrupted"),
              "the hand-over's halt": KeyboardInterrupt()}[where]
    fire = _ctrl_c_twice(second)
    if where in ("duckdb's insert", "duckdb's interrupt error"):
        real = store.write_batch

        def write_batch(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == 2:  # one batch stored, the second interrupted mid-insert
                fire()
            return real(*args, **kwargs)
        monkeypatch.setattr(store, "write_batch", write_batch)
    elif where == "the run's last write":
        real_finish = store.finish_run
        real_write = store.write_batch

        def write_batch(*args, **kwargs):
            calls["n"] += 1
            real_write(*args, **kwargs)
            if calls["n"] == 2:  # the first Ctrl-C: the run stops after this batch
                signal.raise_signal(signal.SIGINT)

        def finish_run(*args, **kwargs):
            if calls.setdefault("finished", 0) == 0:
                calls["finished"] = 1
                raise second  # the second Ctrl-C, inside the UPDATE that closes the run
            return real_finish(*args, **kwargs)
        monkeypatch.setattr(store, "write_batch", write_batch)
        monkeypatch.setattr(store, "finish_run", finish_run)
    else:
        real_halt = handover.BatchThread.halt
        real_write = store.write_batch

        def write_batch(*args, **kwargs):
            calls["n"] += 1
            real_write(*args, **kwargs)
            if calls["n"] == 2:
                signal.raise_signal(signal.SIGINT)

        def halt(self):
            real_halt(self)
            if calls.setdefault("halted", 0) == 0:
                calls["halted"] = 1
                raise second
        monkeypatch.setattr(store, "write_batch", write_batch)
        monkeypatch.setattr(handover.BatchThread, "halt", halt)


@pytest.mark.parametrize("cls", [CLASS("interrupt")])
@pytest.mark.parametrize("where", ["duckdb's insert", "duckdb's interrupt error",
                                   "the run's last write", "the hand-over's halt"])
def test_a_second_ctrl_c_anywhere_exits_130_with_the_resume_sentence(invoke, made, tmp_path,
                                                                     monkeypatch, cls, where):
    db = tmp_path / "r.duckdb"
    _patch(monkeypatch, where)
    result = invoke("simulate", made["scenario"], "--db", db,
                    env={"UNOSTATS_BATCH_GAMES": "10"})
    monkeypatch.undo()
    assert result.exit_code == 130, result.output
    assert result.stdout == ""
    con = duckdb.connect(str(db), read_only=True)
    try:
        (run_id, done), = con.execute("SELECT run_id, games_completed FROM runs").fetchall()
        stored = con.execute("SELECT count(*) FROM games").fetchall()[0][0]
    finally:
        con.close()
    assert stored == done and done % 10 == 0 and 0 < done < 40  # whole batches, nothing lost
    assert (f"run {run_id} interrupted: {done:,} of 40 games stored. Resume with: "
            f"unostats simulate --resume {run_id} --db {db}") in result.stderr
    resumed = invoke("simulate", "--resume", run_id, "--db", db, "-q", "--format", "csv")
    assert resumed.exit_code == 0, resumed.output
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT status, games_completed FROM runs").fetchall() == \
            [("complete", 40)]
        assert con.execute("SELECT count(*), count(DISTINCT game) FROM games").fetchall() == \
            [(40, 40)]
    finally:
        con.close()
