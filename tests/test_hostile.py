"""Hostile input and faults, class by class: nothing of the user's is lost or overwritten, no
traceback and no hang, one clear message with the right exit code (2 bad input, 1 runtime).

Each test names the class it covers; ``HOSTILE`` inputs are counted by the parametrisations."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from unostats.cli import app

TINY = """\
name: tiny
description: One variant at two players, for the hostile-input tests.
seed: 5
games: 6
players: 2
variants:
  - name: standard
"""


def invoke(*args, input: str | None = None, env: dict | None = None):
    result = CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("hostile")
    scenario = folder / "tiny.yaml"
    scenario.write_text(TINY)
    db = folder / "tiny.duckdb"
    result = invoke("simulate", scenario, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    return {"folder": folder, "scenario": scenario, "db": db}


@pytest.fixture
def db(made, tmp_path) -> Path:
    """A private copy of the module's database (tests may try to damage it)."""
    path = tmp_path / "results.duckdb"
    shutil.copy(made["db"], path)
    return path


# --- Data loss: COPY ... TO, extensions, ATTACH ------------------------------------------------

def test_copy_to_a_new_file_is_allowed(db, tmp_path):
    out = tmp_path / "rounds.csv"
    result = invoke("query", f"COPY (SELECT * FROM rounds) TO '{out}' (HEADER)", "--db", db)
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("run_id,")


@pytest.mark.parametrize("kind", ["csv file", "another database", "folder", "symlink"])
def test_copy_over_an_existing_file_is_refused_without_overwrite(db, tmp_path, kind):
    target = tmp_path / "target"
    if kind == "csv file":
        target.write_text("precious\n")
    elif kind == "another database":
        shutil.copy(db, target)
    elif kind == "folder":
        target.mkdir()
        (target / "keep.txt").write_text("precious\n")
    else:
        (tmp_path / "real.txt").write_text("precious\n")
        target.symlink_to(tmp_path / "real.txt")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = invoke("query", f"COPY (SELECT 1 AS x) TO '{target}'", "--db", db)
    assert result.exit_code == 1
    assert "exists and would be overwritten" in result.stderr
    assert "--overwrite" in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_copy_over_an_existing_file_with_overwrite(db, tmp_path):
    target = tmp_path / "old.csv"
    target.write_text("old\n")
    result = invoke("query", f"COPY (SELECT 7 AS x) TO '{target}' (HEADER)", "--db", db,
                    "--overwrite")
    assert result.exit_code == 0, result.output
    assert target.read_text() == "x\n7\n"


@pytest.mark.parametrize("which", ["file", "relative", "wal", "symlink"])
def test_copy_never_writes_the_databases_own_files(db, tmp_path, which, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = {"file": str(db), "relative": db.name, "wal": f"{db}.wal",
              "symlink": str(tmp_path / "link.duckdb")}[which]
    if which == "symlink":
        (tmp_path / "link.duckdb").symlink_to(db)
    before = db.read_bytes()
    result = invoke("query", f"COPY (SELECT 1 AS x) TO '{target}'", "--db", db, "--overwrite")
    assert result.exit_code == 1
    assert "the results database's own file" in result.stderr
    assert db.read_bytes() == before
    assert not Path(f"{db}.wal").exists()


@pytest.mark.parametrize("sql, words", [
    ("COPY (SELECT 1) TO E'x.csv'", "one quoted string"),
    ("COPY (SELECT 1) TO $$x.csv$$", "one quoted string"),
    ("INSTALL sqlite", "never downloads"),
    ("LOAD sqlite", "never downloads"),
    ("FORCE INSTALL httpfs", "never downloads"),
    ("SELECT 1; INSTALL sqlite", "never downloads"),
    ("ATTACH 'other.duckdb' AS o", "ATTACH statements are refused"),
    ("EXPORT DATABASE 'dump'", "EXPORT DATABASE is refused"),
    ("PREPARE p AS SELECT 1", "PREPARE/EXECUTE are refused"),
    ("SET autoinstall_known_extensions = true", "locked"),
    ("SET autoload_known_extensions = true", "locked"),
])
def test_statements_that_download_attach_or_escape_checks_are_refused(db, tmp_path, sql, words,
                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("query", sql, "--db", db)
    assert result.exit_code == 1
    assert words in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [db.name]  # nothing written


def test_a_copy_to_hidden_in_a_comment_or_string_is_still_found(db, tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("precious\n")
    sql = f"COPY (SELECT ' TO ''x''' AS a /* TO 'y' */) -- TO 'z'\n TO '{target}'"
    result = invoke("query", sql, "--db", db)
    assert result.exit_code == 1 and "exists" in result.stderr
    assert target.read_text() == "precious\n"


def test_connections_never_fetch_extensions(db):
    from unostats import store
    con = store.open_store(db, read_only=True)
    try:
        for name in ("autoinstall_known_extensions", "autoload_known_extensions"):
            (value,), = con.execute(f"SELECT current_setting('{name}')").fetchall()
            assert value is False, name
    finally:
        con.close()


@pytest.mark.parametrize("command", ["query", "runs", "simulate"])
def test_a_sqlite_file_as_db_gets_a_message_not_a_download(tmp_path, made, command):
    path = tmp_path / "mine.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE t (a)")
    before = path.read_bytes()
    args = {"query": ("query", "SELECT 1"), "runs": ("runs",),
            "simulate": ("simulate", made["scenario"], "-q")}[command]
    result = invoke(*args, "--db", path)
    assert result.exit_code == 1
    assert "is a SQLite database, not a unostats results database" in result.stderr
    assert path.read_bytes() == before


# --- Data loss: the reports index --------------------------------------------------------------

def test_report_leaves_the_users_own_index_alone_and_says_so(made, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    own = site / "index.html"
    own.write_text("<html><body>my own page</body></html>\n")
    result = invoke("report", "--out", site / "r.html", "--db", made["db"])
    assert result.exit_code == 0, result.output
    assert own.read_text() == "<html><body>my own page</body></html>\n"
    assert "was not written by unostats: left as it is" in result.stderr
    assert (site / "r.html").exists()


def test_report_refreshes_the_index_it_wrote(made, tmp_path):
    site = tmp_path / "site"
    assert invoke("report", "--out", site / "a.html", "--db", made["db"]).exit_code == 0
    index = site / "index.html"
    assert '<meta name="unostats-index"' in index.read_text()
    result = invoke("report", "--out", site / "b.html", "--db", made["db"])
    assert result.exit_code == 0 and "left as it is" not in result.stderr
    assert "b.html" in index.read_text() and "a.html" in index.read_text()


def test_an_index_of_an_earlier_unostats_is_still_refreshed(made, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<!DOCTYPE html>\n<html><head><meta name="generator" '
                                     'content="unostats 0.9">\n<title>unostats reports</title>')
    assert invoke("report", "--out", site / "a.html", "--db", made["db"]).exit_code == 0
    assert "a.html" in (site / "index.html").read_text()


# --- Data loss: results thrown away, files created ---------------------------------------------

@pytest.mark.parametrize("name", [":memory:", ":memory:x"])
def test_an_in_memory_database_is_refused_before_anything_is_played(made, tmp_path, name,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("simulate", made["scenario"], "--db", name)
    assert result.exit_code == 2
    assert "an in-memory database keeps nothing" in result.stderr
    assert "run " not in result.stderr  # no run started
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ref", ["latest", "1a2b3c4d"])
def test_resume_on_a_missing_database_creates_nothing(tmp_path, ref):
    path = tmp_path / "missing.duckdb"
    result = invoke("simulate", "--resume", ref, "--db", path)
    assert result.exit_code == 2
    assert "no results database at" in result.stderr and "nothing was created" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_read_commands_on_an_in_memory_database_say_why(tmp_path):
    result = invoke("runs", "--db", ":memory:")
    assert result.exit_code == 1 and "in-memory database keeps nothing" in result.stderr
