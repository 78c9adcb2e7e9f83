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

from unostats.store import SCHEMA_VERSION

TINY = """\
name: tiny
description: One variant at two players, for the hostile-input tests.
seed: 5
games: 6
players: 2
variants:
  - name: standard
"""


@pytest.fixture(scope="module")
def made(invoke, tmp_path_factory) -> dict:
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


# --- Extensions: never fetched (what `query` may reach: tests/test_hostile_query.py) --------

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
def test_a_sqlite_file_as_db_gets_a_message_not_a_download(invoke, tmp_path, made, command):
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

def test_report_leaves_the_users_own_index_alone_and_says_so(invoke, made, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    own = site / "index.html"
    own.write_text("<html><body>my own page</body></html>\n")
    result = invoke("report", "--out", site / "r.html", "--db", made["db"])
    assert result.exit_code == 0, result.output
    assert own.read_text() == "<html><body>my own page</body></html>\n"
    assert "was not written by unostats: left as it is" in result.stderr
    assert (site / "r.html").exists()


def test_report_refreshes_the_index_it_wrote(invoke, made, tmp_path):
    site = tmp_path / "site"
    assert invoke("report", "--out", site / "a.html", "--db", made["db"]).exit_code == 0
    index = site / "index.html"
    assert '<meta name="unostats-index"' in index.read_text()
    result = invoke("report", "--out", site / "b.html", "--db", made["db"])
    assert result.exit_code == 0 and "left as it is" not in result.stderr
    assert "b.html" in index.read_text() and "a.html" in index.read_text()


def test_an_index_of_an_earlier_unostats_is_still_refreshed(invoke, made, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<!DOCTYPE html>\n<html><head><meta name="generator" '
                                     'content="unostats 0.9">\n<title>unostats reports</title>')
    assert invoke("report", "--out", site / "a.html", "--db", made["db"]).exit_code == 0
    assert "a.html" in (site / "index.html").read_text()


# --- Data loss: results thrown away, files created ---------------------------------------------

@pytest.mark.parametrize("name", [":memory:", ":memory:x"])
def test_an_in_memory_database_is_refused_before_anything_is_played(invoke, made, tmp_path, name,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("simulate", made["scenario"], "--db", name)
    assert result.exit_code == 2
    assert "an in-memory database keeps nothing" in result.stderr
    assert "run " not in result.stderr  # no run started
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ref", ["latest", "1a2b3c4d"])
def test_resume_on_a_missing_database_creates_nothing(invoke, tmp_path, ref):
    path = tmp_path / "missing.duckdb"
    result = invoke("simulate", "--resume", ref, "--db", path)
    assert result.exit_code == 2
    assert "no results database at" in result.stderr and "nothing was created" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_read_commands_on_an_in_memory_database_say_why(invoke, tmp_path):
    result = invoke("runs", "--db", ":memory:")
    assert result.exit_code == 1 and "in-memory database keeps nothing" in result.stderr


# --- Scenario files that would hang, exhaust memory or raise ------------------------------------

HEAD = "name: h\ngames: 1\nplayers: 2\nvariants: [{name: s}]\n"
BOMB = HEAD.replace("variants", "x0: &a0 [q, q, q, q, q, q, q, q, q, q]\nvariants") + "".join(
    f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))


@pytest.mark.parametrize("text, line, words", [
    (BOMB, 9, "x4: its aliases expand to more than 100,000 values"),
    (HEAD + "seats: &s [*s]\n", 5, "seats[0]: this value contains itself (a recursive alias)"),
    (HEAD + "seats: &s {policy: *s}\n", 5, "this value contains itself"),
    (HEAD + "seats: " + "[" * 70 + "]" * 70 + "\n", 5, "nested more than 64 levels"),
    (HEAD + "seats: " + "[" * 3000 + "]" * 3000 + "\n", None, "nests too deeply"),
    ("name: \"a\x00b\"\n" + HEAD[8:], 1, "control character U+0000 (NUL) at column 9"),
    ("name: a\x07b\n" + HEAD[8:], 1, "U+0007 (BEL)"),
    ("name: a\x1b[2Jb\n" + HEAD[8:], 1, "U+001B (ESC)"),
    (HEAD + "# \x7f\n", 5, "U+007F (DEL)"),
    (HEAD + "# \x9b\n", 5, "U+009B"),
    (HEAD.replace("games: 1", "games: " + "9" * 5000), 2, "games: an integer of 5,000 digits"),
    (HEAD.replace("games: 1", "games: -" + "1" * 4301), 2, "an integer of 4,301 digits"),
    (HEAD + "seed: 0x" + "f" * 4000 + "\n", 5, "seed: an integer of 4,000 digits"),
])
def test_hostile_yaml_is_refused_with_its_line(invoke, tmp_path, text, line, words):
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    result = invoke("validate", path)
    assert result.exit_code == 2, result.output
    where = f"{path}:{line}: " if line else f"{path}: "
    assert where in result.stderr and words in result.stderr, result.stderr


@pytest.mark.parametrize("value, words", [
    ("9" * 5000, "an integer of 5,000 digits"),
    ("&s [*s]", "contains itself"),
    ("[" * 3000, "nests too deeply"),
    ("a\x1bb", "U+001B (ESC)"),
])
def test_hostile_set_values_are_refused(invoke, made, value, words):
    result = invoke("validate", made["scenario"], "--set", f"seats={value}")
    assert result.exit_code == 2
    assert f"{made['scenario']} (--set seats=" in result.stderr and words in result.stderr
    assert len(result.stderr) < 600  # a long expression is shortened, not echoed whole


def test_the_alias_bomb_is_refused_before_any_value_is_built(invoke, tmp_path, monkeypatch):
    import yaml
    built = []
    construct = yaml.SafeLoader.construct_object
    monkeypatch.setattr(yaml.SafeLoader, "construct_object",
                        lambda self, node, deep=False: built.append(node) or
                        construct(self, node, deep))
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    assert invoke("validate", path).exit_code == 2
    assert built == []  # expanded, the bomb holds 10**9 values: the check stops at the nodes


@pytest.mark.parametrize("kind", ["fifo", "folder", "device"])
def test_a_scenario_that_is_not_a_regular_file_is_refused_without_blocking(tmp_path, kind):
    import subprocess
    import sys
    path = {"fifo": tmp_path / "pipe.yaml", "folder": tmp_path, "device": Path("/dev/zero")}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    done = subprocess.run([sys.executable, "-c", "from unostats.cli import app; app()",
                           "validate", str(path)], capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "300",
                               "PYTHONPATH": str(Path(__file__).parents[1] / "src")})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert {"fifo": "is a FIFO (named pipe)", "folder": "is a directory",
            "device": "is a device"}[kind] in done.stderr


def test_a_file_that_is_not_utf8_names_its_line(invoke, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(HEAD.encode() + b"description: caf\xe9\n")
    result = invoke("validate", path)
    assert result.exit_code == 2
    assert f"{path}:5: not UTF-8 text: byte 0xe9" in result.stderr


def test_a_file_name_that_is_not_utf8_is_printed_and_stored_escaped(invoke, tmp_path):
    name = os.fsdecode(b"caf\xe9.yaml")
    path = tmp_path / name
    path.write_text(TINY)
    db = tmp_path / "x.duckdb"
    assert invoke("validate", path).exit_code == 0
    result = invoke("simulate", path, "--db", db, "-q", "--games", "2")
    assert result.exit_code == 0, result.output
    (command,), = duckdb.connect(str(db), read_only=True).execute(
        "SELECT command FROM runs").fetchall()
    assert "caf\\xe9.yaml" in command


def test_a_long_extends_chain_of_presets_is_refused(invoke, tmp_path, monkeypatch):
    for i in range(300):
        extends = f"\n    extends: p{i + 1}" if i < 299 else ""
        (tmp_path / f"p{i}.yaml").write_text(
            f"name: p{i}\ngames: 1\nplayers: 2\nvariants:\n  - name: v{extends}\n")
    mine = tmp_path / "mine.yml"
    mine.write_text("name: m\ngames: 1\nplayers: 2\nvariants:\n  - name: a\n    extends: p0\n")
    monkeypatch.setenv("UNOSTATS_SCENARIOS", str(tmp_path))
    result = invoke("validate", mine)
    assert result.exit_code == 2
    assert "extends chain of more than 16 presets (p0 -> p1 -> p2 -> ..." in result.stderr
    assert invoke("scenarios").exit_code == 0


# --- One limit on games ------------------------------------------------------------------------

@pytest.mark.parametrize("games, words", [
    (str(10**12 + 1), "less than or equal to 1000000000000"),
    (str(2**63), "less than or equal to 1000000000000"),
    ("9" * 5000, "Invalid value for '--games'"),
    ("0", "greater than or equal to 1"),
])
def test_games_on_the_command_line_has_the_files_limit(invoke, made, games, words):
    result = invoke("simulate", made["scenario"], "--games", games, "--db", made["db"],
                    env={"COLUMNS": "300"})
    assert result.exit_code == 2
    assert words in result.stderr


def test_a_total_past_a_bigint_is_refused_before_anything_is_stored(made, tmp_path,
                                                                    monkeypatch):
    from unostats.runs import simulate as sim
    from unostats.scenario import load_scenario
    monkeypatch.setattr(sim, "TOTAL_MAX", 10)  # stands for 2**63 - 1 (two cells of 10**12 fit)
    db = tmp_path / "t.duckdb"
    with pytest.raises(sim.RunError, match="more than a run can count") as e:
        sim.simulate(scenario=load_scenario(made["scenario"]), db=db, games=11)
    assert e.value.exit_code == 2
    assert duckdb.connect(str(db)).execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


# --- Damaged or foreign databases --------------------------------------------------------------

def _damage(db: Path, how: str) -> None:
    if how == "truncated":
        data = db.read_bytes()
        db.write_bytes(data[:len(data) // 3])
    elif how == "not DuckDB":
        db.write_bytes(b"PK\x03\x04 a zip, or anything" * 10)
    elif how in ("version text", "renamed column", "dropped table"):
        con = duckdb.connect(str(db))
        con.execute({"version text": "UPDATE meta SET value = 'five' WHERE key = 'schema_version'",
                     "renamed column": "ALTER TABLE stored_rounds RENAME COLUMN turns TO turnz",
                     "dropped table": "DROP TABLE stored_round_seats CASCADE"}[how])
        con.close()


DAMAGE = {
    "truncated": "cannot open",
    "not DuckDB": "is not a DuckDB database (damaged, truncated, or another kind of file)",
    "version text": "has schema_version 'five', which is not a version number",
    "renamed column": "table stored_rounds does not have the columns of results schema version "
                      f"{SCHEMA_VERSION} (missing turns; unexpected turnz)",
    "dropped table": "table stored_round_seats is missing",
}


@pytest.mark.parametrize("command", ["runs", "query", "report", "simulate"])
@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_database_gets_one_sentence_and_exit_1(invoke, db, made, tmp_path, how, command):
    _damage(db, how)
    before = db.read_bytes()
    args = {"runs": ("runs",), "query": ("query", "SELECT count(*) FROM rounds"),
            "report": ("report", "--out", tmp_path / "r.html"),
            "simulate": ("simulate", made["scenario"], "-q")}[command]
    result = invoke(*args, "--db", db)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert DAMAGE[how] in result.stderr, result.stderr
    assert db.read_bytes() == before  # refused before anything is written


def test_a_failing_write_mid_run_is_one_sentence_with_the_resume_command(invoke, made, tmp_path,
                                                                        monkeypatch):
    from unostats import store
    calls = {"n": 0}
    real = store.write_batch

    def full_disk(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise duckdb.IOException("IO Error: Could not write file: No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "write_batch", full_disk)
    db = tmp_path / "full.duckdb"
    result = invoke("simulate", made["scenario"], "--db", db, "-q", "--games", "6",
                    env={"UNOSTATS_BATCH_GAMES": "2"})
    assert result.exit_code == 1
    assert "writing" in result.stderr and "No space left on device" in result.stderr
    assert "unostats simulate --resume" in result.stderr
    monkeypatch.undo()
    (run_id, completed), = duckdb.connect(str(db), read_only=True).execute(
        "SELECT run_id, games_completed FROM runs").fetchall()
    assert completed == 2  # the batch before the failure is kept
    assert invoke("simulate", "--resume", run_id, "--db", db, "-q").exit_code == 0


# --- report and export write errors ------------------------------------------------------------

@pytest.mark.parametrize("where, words", [
    ("under a file", "is a file, not a folder"),
    ("name too long", "the file name is too long for the file system"),
])
def test_report_write_errors_are_one_sentence(invoke, made, tmp_path, where, words):
    (tmp_path / "plain").write_text("a file\n")
    out = {"under a file": tmp_path / "plain" / "r.html",
           "name too long": tmp_path / ("r" * 300 + ".html")}[where]
    result = invoke("report", "--out", out, "--db", made["db"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot write the report") and words in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("names", [[f"scenario-{i}" for i in range(14)], ["x" * 400],
                                   ["é" * 300]])
def test_report_default_name_stays_short_enough_for_a_file_system(names):
    from types import SimpleNamespace

    from unostats.report.build import default_out
    model = SimpleNamespace(runs=[SimpleNamespace(scenario_name=n, run_id=f"{i:08x}")
                                  for i, n in enumerate(names)])
    path = default_out(model)
    assert len(path.name.encode()) <= 130 and path.name.endswith(".html")
    other = SimpleNamespace(runs=model.runs[:-1] + [SimpleNamespace(scenario_name="other",
                                                                    run_id="ffffffff")])
    assert default_out(other) != path  # the shortened names stay distinct


def test_export_under_a_file_is_one_sentence(invoke, made, tmp_path):
    (tmp_path / "plain").write_text("a file\n")
    result = invoke("export", "latest", "--out", tmp_path / "plain" / "out", "--db", made["db"])
    assert result.exit_code == 1
    assert "is a file, not a folder" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's sysfs")
def test_a_folder_nobody_may_write_even_root(invoke, made):
    """sysfs refuses new files to root too, so this runs where the test below is skipped."""
    result = invoke("report", "--out", "/sys/kernel/r.html", "--db", made["db"])
    assert result.exit_code == 1 and "not writable" in result.stderr
    assert "Traceback" not in result.output
    result = invoke("export", "latest", "--out", "/sys/kernel/unostats-x", "--db", made["db"])
    assert result.exit_code == 1 and "not writable" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folders(invoke, made, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(made["db"], folder / "r.duckdb")
    folder.chmod(0o555)
    try:
        result = invoke("report", "--out", folder / "r.html", "--db", made["db"])
        assert result.exit_code == 1 and "not writable" in result.stderr
        result = invoke("simulate", made["scenario"], "--db", folder / "r.duckdb", "-q")
        assert result.exit_code == 1 and "Traceback" not in result.output
    finally:
        folder.chmod(0o755)


# --- Smaller but wrong -------------------------------------------------------------------------

MERGE = """\
name: merged
games: 2
players: 2
variants:
  - &base
    name: base
    rules: {hand_size: 5, uno_penalty: 4}
  - <<: *base
    name: shorter
  - <<: *base
    name: bogus
    rules: {not_a_rule: 1}
"""


def test_yaml_merge_keys_work_and_overrides_win(invoke, tmp_path):
    from unostats.scenario import load_scenario, load_text
    scenario = load_text(MERGE.rsplit("  - <<: *base\n    name: bogus", 1)[0], "m.yaml")
    assert [v.name for v in scenario.variants] == ["base", "shorter"]
    assert scenario.variants[1].rules.values["hand_size"] == 5
    path = tmp_path / "m.yaml"
    path.write_text(MERGE)
    result = invoke("validate", path)
    assert result.exit_code == 2
    assert result.stderr == (f"{path}:12: variants[2].rules.not_a_rule: unknown rule "
                             f"'not_a_rule'; ") + result.stderr.split("; ", 1)[1]
    assert "duplicate key" not in result.stderr
    with pytest.raises(Exception, match="duplicate key"):  # a real repeat is still caught
        load_text("name: a\nname: b\ngames: 1\nplayers: 2\nvariants: [{name: s}]\n")
    del load_scenario


def test_every_rule_conflict_of_a_variant_is_reported_at_its_own_line(invoke, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("name: c\ngames: 1\nplayers: 4\nvariants:\n  - name: v\n    rules:\n"
                    "      reverse_deflects: extreme\n      eight_cover: true\n"
                    "      stack_draw_two: sum\n      multi_play: same_rank\n"
                    "      h2o_bonus: true\n")
    result = invoke("validate", path)
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert [ln.split(": ")[0:2] for ln in lines] == [
        [f"{path}:9", "variants[0].rules.stack_draw_two"],
        [f"{path}:10", "variants[0].rules.multi_play"],
        [f"{path}:11", "variants[0].rules.h2o_bonus"]], result.stderr


@pytest.mark.parametrize("name", ["\x1b[2J", "a\x1b]0;pwned\x07b", "\x9b31m", "x\x7fy", "\x00"])
def test_terminal_escapes_in_names_are_escaped_in_every_table(invoke, tmp_path, name):
    quoted = name.encode("unicode_escape").decode().replace('"', '\\"')
    path = tmp_path / "esc.yaml"
    path.write_text(TINY.replace("name: tiny", f'name: "{quoted}"').replace(
        "  - name: standard", f'  - name: "v{quoted}"'))
    db = tmp_path / "e.duckdb"
    result = invoke("simulate", path, "--db", db, "-q", "--games", "2")
    assert result.exit_code == 0, result.output
    outputs = [result.stdout, invoke("runs", "--db", db).stdout,
               invoke("query", "SELECT scenario_name, variant FROM runs JOIN variants "
                      "USING (run_id)", "--db", db).stdout,
               invoke("query", f"SELECT 1 AS \"{name.replace(chr(0), '')}x\"", "--db", db).stdout]
    for out in outputs:
        assert not any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) <= 0x9f for c in out), out
    assert "\\x1b" in outputs[1] or "\\x9b" in outputs[1] or "\\x7f" in outputs[1] \
        or "\\x00" in outputs[1]


def test_a_repeated_param_is_refused(invoke, db):
    result = invoke("query", "SELECT $n AS n", "--param", "n=1", "--param", "n=2", "--db", db)
    assert result.exit_code == 2
    assert "--param n is given twice" in result.stderr


@pytest.mark.parametrize("value", ["9" * 5000, "-" + "1" * 20])
def test_a_param_of_too_many_digits_is_refused(invoke, db, value):
    result = invoke("query", "SELECT $n AS n", "--param", f"n={value}", "--db", db)
    assert result.exit_code == 2 and "more digits than a 64-bit integer" in result.stderr
    assert len(result.stderr) < 300


def test_an_unused_param_is_named(invoke, db):
    result = invoke("query", "SELECT $n AS n", "--param", "m=1", "--db", db)
    assert result.exit_code == 1 and "--param m: the SQL has no $m (named: $n)" in result.stderr


def test_a_run_whose_process_is_gone_shows_as_interrupted(invoke, made, db):
    con = duckdb.connect(str(db))
    con.execute("UPDATE runs SET status = 'running', pid = 2147483000")  # a killed writer
    con.close()
    for fmt in ("csv", "json"):
        result = invoke("runs", "--db", db, "--format", fmt)
        assert result.exit_code == 0 and "interrupted" in result.stdout
        assert "running" not in result.stdout


def test_a_run_of_this_process_still_shows_as_running(invoke, db):
    con = duckdb.connect(str(db))
    con.execute("UPDATE runs SET status = 'running', pid = ?", [os.getpid()])
    con.close()
    assert "running" in invoke("runs", "--db", db, "--format", "csv").stdout


# --- query: streamed rows, tables that are too long --------------------------------------------

def test_query_streams_rows_in_every_format(db, monkeypatch):
    from unostats.store import queries
    fetched = []
    real = queries._chunks

    def counting(cur):
        for row in real(cur):
            fetched.append(row)
            yield row

    monkeypatch.setattr(queries, "_chunks", counting)
    import io
    import sys

    from unostats.output import write_rows
    from unostats.base.query import stream
    seen = []

    class Probe(io.StringIO):  # each write sees how many rows were fetched by then
        def write(self, text):
            seen.append(len(fetched))
            return super().write(text)

    for fmt in ("csv", "json", "ndjson"):
        fetched.clear()
        seen.clear()
        with stream(sql="SELECT range AS i FROM range(20000)", db=db) as result:
            write_rows(Probe(), result.columns, result.rows, fmt)
        assert len(fetched) == 20000
        assert min(s for s in seen if s) < 5000, fmt  # written while the rest is unread
    del sys


def test_a_long_table_shows_its_first_rows_and_says_so(invoke, db):
    result = invoke("query", "SELECT range AS i FROM range(50000)", "--db", db)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 2 + 10_000
    assert "more than 10,000 rows, too many for a table" in result.stderr
    csv_out = invoke("query", "SELECT range AS i FROM range(50000)", "--db", db, "-f", "csv")
    assert len(csv_out.stdout.splitlines()) == 50001 and csv_out.stderr == ""
