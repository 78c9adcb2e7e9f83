"""``unostats query`` under attack, class by class, on both stores (a DuckDB file and a Parquet
store): every file function and bypass stays inside the store (DuckDB's sandbox), nothing is
written or fetched, no traceback; ``--out`` writes a result and never over the store or a file
it was not allowed to replace; the query's own faults (a parameter not given, bytes that are not
UTF-8, stdout closed or full) are one sentence. A normal query still works on both stores.

Each class is one parametrised test, so the cases per class are its parametrisations."""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

TINY = """\
name: tiny
description: One variant at two players, for the hostile query tests.
seed: 5
games: 6
players: 2
variants:
  - name: standard
"""
SECRET = "TOPSECRET-d41d8"


@pytest.fixture(scope="module")
def made(tmp_path_factory, invoke) -> dict:
    """One run in a DuckDB file and the same run in a Parquet store."""
    folder = tmp_path_factory.mktemp("hostile_query")
    scenario = folder / "tiny.yaml"
    scenario.write_text(TINY)
    for args in (("--db", folder / "made.duckdb"), ("--store", f"parquet:{folder / 'made'}")):
        result = invoke("simulate", scenario, *args, "-q")
        assert result.exit_code == 0, result.output
    return {"duckdb": folder / "made.duckdb", "parquet": folder / "made"}


@pytest.fixture(params=["duckdb", "parquet"])
def store(request, made, tmp_path) -> dict:
    """A private copy of one store in tmp_path/store, with a secret file beside it; ``args``
    select it on the command line, ``files`` are its own files."""
    kind = request.param
    home = tmp_path / "store"
    home.mkdir()
    (tmp_path / "secret.csv").write_text(f"a,b\n{SECRET},1\n")
    (tmp_path / "secret.json").write_text(f'{{"a": "{SECRET}"}}\n')
    pq.write_table(pq.read_table(next(made["parquet"].rglob("games-*.parquet"))),
                   tmp_path / "outside.parquet")
    if kind == "duckdb":
        db = home / "results.duckdb"
        shutil.copy(made["duckdb"], db)
        return {"kind": kind, "args": ("--db", db), "db": db, "files": [db]}
    folder = home / "dir"
    shutil.copytree(made["parquet"], folder)
    return {"kind": kind, "args": ("--store", f"parquet:{folder}"), "dir": folder,
            "files": sorted(p for p in folder.rglob("*") if p.is_file())}


def snapshot(root: Path) -> dict:
    """Every file and folder under root, with its bytes (files)."""
    return {p: (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def refused(result, words: str) -> None:
    assert result.exit_code == 1, result.output
    assert words in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr  # one sentence
    assert SECRET not in result.stdout and "root:" not in result.stdout


# --- Reading files outside the store ------------------------------------------------------------

OUTSIDE = "is out of a query's reach"
READS = {
    "read_csv /etc/passwd": "SELECT * FROM read_csv('/etc/passwd', sep = ':')",
    "read_csv_auto /etc/passwd": "SELECT * FROM read_csv_auto('/etc/passwd')",
    "read_csv secret": "SELECT * FROM read_csv('{tmp}/secret.csv')",
    "read_text /etc/shadow": "SELECT * FROM read_text('/etc/shadow')",
    "read_text secret": "SELECT content FROM read_text('{tmp}/secret.csv')",
    "read_blob /proc/self/environ": "SELECT * FROM read_blob('/proc/self/environ')",
    "read_json secret": "SELECT * FROM read_json('{tmp}/secret.json')",
    "read_json_auto secret": "SELECT * FROM read_json_auto('{tmp}/secret.json')",
    "read_ndjson secret": "SELECT * FROM read_ndjson('{tmp}/secret.json')",
    "read_parquet outside": "SELECT * FROM read_parquet('{tmp}/outside.parquet')",
    "read_parquet /any/glob/**": "SELECT * FROM read_parquet('/any/glob/**')",
    "read_parquet /**/*.parquet": "SELECT count(*) FROM read_parquet('/**/*.parquet')",
    "read_parquet glob beside the store": "SELECT * FROM read_parquet('{tmp}/*.parquet')",
    "parquet_scan outside": "SELECT * FROM parquet_scan('{tmp}/outside.parquet')",
    "parquet_metadata outside": "SELECT * FROM parquet_metadata('{tmp}/outside.parquet')",
    "parquet_schema outside": "SELECT * FROM parquet_schema('{tmp}/outside.parquet')",
    "glob /**": "SELECT * FROM glob('/**')",
    "glob beside the store": "SELECT * FROM glob('{tmp}/*')",
    "a file name as a table": "SELECT * FROM '{tmp}/secret.csv'",
    "file:// URI": "SELECT * FROM read_csv('file://{tmp}/secret.csv')",
    "../ out of the store": "SELECT * FROM read_text('{home}/../secret.csv')",
    "in a subquery": "SELECT (SELECT count(*) FROM read_text('/etc/passwd')) AS n",
    "after a harmless statement": "SELECT 1; SELECT * FROM read_text('/etc/passwd')",
    "in a CTE over a view": "WITH x AS (SELECT * FROM read_text('/etc/passwd')) "
                            "SELECT * FROM round_length, x",
}


@pytest.mark.parametrize("case", list(READS))
def test_a_query_reads_no_file_outside_the_store(store, tmp_path, invoke, case):
    sql = READS[case].format(tmp=tmp_path, home=tmp_path / "store")
    result = invoke("query", sql, *store["args"], "-f", "csv")
    refused(result, OUTSIDE)


@pytest.mark.parametrize("case", ["a shard by path", "the manifest", "the marker",
                                  "a glob of the shards"])
def test_a_query_on_a_parquet_store_reads_no_file_of_its_folder_either(made, tmp_path, invoke,
                                                                       case):
    folder = tmp_path / "dir"
    shutil.copytree(made["parquet"], folder)
    shard = next(folder.rglob("games-*.parquet"))
    sql = {"a shard by path": f"SELECT * FROM read_parquet('{shard}')",
           "the manifest": f"SELECT * FROM read_text('{folder}/runs/*.json')",
           "the marker": f"SELECT * FROM read_json('{folder}/unostats-store.json')",
           "a glob of the shards": f"SELECT count(*) FROM read_parquet('{folder}/**')"}[case]
    refused(invoke("query", sql, "--store", f"parquet:{folder}"), OUTSIDE)


# --- Writing files: COPY, EXPORT/IMPORT DATABASE, ATTACH ----------------------------------------

WRITES = {
    "COPY TO a new file": ("COPY (SELECT * FROM rounds) TO '{tmp}/new.csv'", OUTSIDE),
    "COPY TO an existing file": ("COPY (SELECT 1 AS x) TO '{tmp}/secret.csv'", OUTSIDE),
    "COPY TO file://": ("COPY (SELECT 1 AS x) TO 'file://{tmp}/secret.csv'", OUTSIDE),
    "COPY TO with OVERWRITE": ("COPY (SELECT 1 AS x) TO '{tmp}/secret.csv' (OVERWRITE)", OUTSIDE),
    "COPY TO a folder, partitioned": ("COPY (SELECT 1 AS x) TO '{tmp}/part' "
                                      "(FORMAT parquet, PARTITION_BY (x))", OUTSIDE),
    "EXPLAIN ANALYZE COPY": ("EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{tmp}/secret.csv'",
                             OUTSIDE),
    "EXPLAIN COPY": ("EXPLAIN COPY (SELECT 1 AS x) TO '{tmp}/new.csv'", OUTSIDE),
    "COPY FROM a file": ("CREATE TEMP TABLE t (a VARCHAR, b INT); "
                         "COPY t FROM '{tmp}/secret.csv'", OUTSIDE),
    "EXPORT DATABASE": ("EXPORT DATABASE '{tmp}/dump'", OUTSIDE),
    "IMPORT DATABASE": ("IMPORT DATABASE '{tmp}/planted'", OUTSIDE),
    "ATTACH a new file": ("ATTACH '{tmp}/new.duckdb' AS o", OUTSIDE),
    "ATTACH for writing": ("ATTACH '{tmp}/other.duckdb' AS o; "
                           "CREATE TABLE o.t AS SELECT 1", OUTSIDE),
}


@pytest.mark.parametrize("case", list(WRITES))
def test_a_query_writes_no_file(store, tmp_path, invoke, case):
    planted = tmp_path / "planted"  # an IMPORT DATABASE folder whose load.sql would write
    planted.mkdir()
    (planted / "schema.sql").write_text("")
    (planted / "load.sql").write_text(f"COPY (SELECT 'x' AS x) TO '{tmp_path}/pwned.csv';\n")
    (tmp_path / "other.duckdb").write_bytes(b"")
    before = snapshot(tmp_path)
    sql, words = WRITES[case]
    result = invoke("query", sql.format(tmp=tmp_path), *store["args"])
    refused(result, words)
    assert snapshot(tmp_path) == before


def own_files(store: dict) -> dict:
    if store["kind"] == "duckdb":
        db = store["db"]
        return {"the file": db, "its WAL": Path(f"{db}.wal"),
                "its recovery WAL": Path(f"{db}.wal.recovery")}
    folder = store["dir"]
    return {"a shard": next(folder.rglob("games-*.parquet")),
            "the manifest": next((folder / "runs").glob("*.json")),
            "the marker": folder / "unostats-store.json"}


@pytest.mark.parametrize("which", [0, 1, 2])
def test_a_query_never_writes_the_stores_own_files(store, tmp_path, invoke, which):
    name, target = list(own_files(store).items())[which]
    before = snapshot(tmp_path)
    result = invoke("query", f"COPY (SELECT 1 AS x) TO '{target}'", *store["args"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, (name, result.stderr)
    assert "results store" in result.stderr
    assert snapshot(tmp_path) == before


# --- Extensions and the network -----------------------------------------------------------------

@pytest.fixture
def loopback():
    """A local HTTP server that records every request (none may come)."""
    seen: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            seen.append(self.path)
            self.send_error(404)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


NETWORK = {
    "INSTALL": "INSTALL sqlite",
    "LOAD": "LOAD sqlite",
    "LOAD a file": "LOAD '{tmp}/evil.duckdb_extension'",
    "FORCE INSTALL FROM a URL": "FORCE INSTALL httpfs FROM '{url}'",
    "EXPLAIN ANALYZE FORCE INSTALL": "EXPLAIN ANALYZE FORCE INSTALL httpfs FROM '{url}'",
    "INSTALL FROM a URL": "INSTALL json FROM '{url}'",
    "INSTALL after a SELECT": "SELECT 1; INSTALL sqlite FROM '{url}'",
    "a URL read directly": "SELECT * FROM read_csv('{url}/data.csv')",
    "read_text of a URL": "SELECT * FROM read_text('{url}/x')",
    "SET the repository": "SET custom_extension_repository = '{url}'; INSTALL httpfs",
}


@pytest.mark.parametrize("case", list(NETWORK))
def test_a_query_installs_loads_and_fetches_nothing(store, tmp_path, invoke, loopback, case):
    url, seen = loopback
    (tmp_path / "evil.duckdb_extension").write_bytes(b"\0" * 64)
    before = snapshot(tmp_path)
    result = invoke("query", NETWORK[case].format(tmp=tmp_path, url=url), *store["args"])
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert any(w in result.stderr for w in ("extensions are never installed", OUTSIDE,
                                            "cannot be changed")), result.stderr
    assert seen == []
    assert snapshot(tmp_path) == before


# --- Turning the sandbox off --------------------------------------------------------------------

SETTINGS = {
    "SET enable_external_access": "SET enable_external_access = true",
    "SET GLOBAL": "SET GLOBAL enable_external_access = true",
    "RESET enable_external_access": "RESET enable_external_access",
    "SET lock_configuration": "SET lock_configuration = false",
    "RESET lock_configuration": "RESET lock_configuration",
    "SET allowed_directories": "SET allowed_directories = ['/']",
    "SET allowed_paths": "SET allowed_paths = ['/etc/passwd']",
    "SET autoinstall": "SET autoinstall_known_extensions = true",
    "SET then read": "SET enable_external_access = true; "
                     "SELECT * FROM read_text('/etc/passwd')",
    "PRAGMA a setting": "PRAGMA enable_profiling",
    "PRAGMA an output file": "PRAGMA profiling_output = '{tmp}/profile.json'",
    "SET a log file": "SET log_query_path = '{tmp}/log.sql'",
    "SET the temp folder": "SET temp_directory = '{tmp}/spill'",
}


@pytest.mark.parametrize("case", list(SETTINGS))
def test_the_sandbox_cannot_be_turned_off(store, tmp_path, invoke, case):
    before = snapshot(tmp_path)
    result = invoke("query", SETTINGS[case].format(tmp=tmp_path), *store["args"])
    refused(result, "cannot be changed: the configuration is locked")
    assert snapshot(tmp_path) == before


# --- What still works ---------------------------------------------------------------------------

NORMAL = {
    "count of games": ("SELECT count(*) AS n FROM games", [], "n\n6\n"),
    "a join of runs and variants": ("SELECT v.variant, r.games_completed FROM runs r "
                                    "JOIN variants v USING (run_id)", [],
                                    "variant,games_completed\nstandard,6\n"),
    "a view": ("SELECT count(*) > 0 AS ok FROM round_length", [], "ok\ntrue\n"),
    "a parameter": ("SELECT count(*) AS n FROM rounds WHERE game < $g", ["--param", "g=3"],
                    None),
    "a temp table": ("CREATE TEMP TABLE t AS SELECT game FROM games; "
                     "SELECT count(*) AS n FROM t", [], "n\n6\n"),
    "a macro": ("SELECT round(wilson_lo(5, 10), 3) AS lo", [], "lo\n0.237\n"),
    "the sandbox's own settings": ("SELECT current_setting('enable_external_access') AS x",
                                   [], "x\nfalse\n"),
}


@pytest.mark.parametrize("case", list(NORMAL))
def test_a_normal_query_works_on_both_stores(made, store, invoke, case):
    sql, extra, want = NORMAL[case]
    result = invoke("query", sql, *extra, *store["args"], "-f", "csv")
    assert result.exit_code == 0, result.output
    other = invoke("query", sql, *extra, "--db", made["duckdb"], "-f", "csv")
    assert result.stdout == other.stdout  # the same answer from either store
    if want is not None:
        assert result.stdout == want
    else:
        assert int(result.stdout.split()[1]) > 0


@pytest.mark.parametrize("fmt", ["table", "json", "ndjson"])
def test_a_normal_query_prints_every_format(store, invoke, fmt):
    result = invoke("query", "SELECT game FROM games ORDER BY game", *store["args"], "-f", fmt)
    assert result.exit_code == 0, result.output
    assert all(str(g) in result.stdout for g in range(6))


# --- --out: the result written by unostats ------------------------------------------------------

@pytest.mark.parametrize("name, fmt", [("g.csv", None), ("g.json", None), ("g.ndjson", None),
                                       ("g.parquet", None), ("g.data", "csv"),
                                       ("g.out", "parquet")])
def test_out_writes_the_result_in_its_format(store, tmp_path, invoke, name, fmt):
    out = tmp_path / name
    sql = "SELECT game, rounds FROM games ORDER BY game"
    result = invoke("query", sql, *store["args"], "--out", out, *(["-f", fmt] if fmt else []))
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and "wrote 6 rows" in result.stderr
    kind = fmt or name.rsplit(".", 1)[1]
    if kind == "parquet":
        assert pq.read_table(out).column("game").to_pylist() == list(range(6))
    else:
        printed = invoke("query", sql, *store["args"], "-f", kind).stdout
        assert out.read_text() == printed  # the file holds what query prints
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_out_refuses_an_existing_file_unless_overwrite(store, tmp_path, invoke):
    out = tmp_path / "secret.csv"
    before = out.read_text()
    result = invoke("query", "SELECT 1 AS x", *store["args"], "--out", out)
    assert result.exit_code == 2 and "exists" in result.stderr and "--overwrite" in result.stderr
    assert out.read_text() == before
    result = invoke("query", "SELECT 1 AS x", *store["args"], "--out", out, "--overwrite")
    assert result.exit_code == 0, result.output
    assert out.read_text() == "x\n1\n"


def store_targets(store: dict, tmp_path: Path) -> dict:
    """Names under which --out would reach the store."""
    if store["kind"] == "duckdb":
        db = store["db"]
        (tmp_path / "hard.duckdb").hardlink_to(db)
        (tmp_path / "soft.duckdb").symlink_to(db)
        return {"the file": db, "its WAL": Path(f"{db}.wal"), "a hard link": tmp_path /
                "hard.duckdb", "a symbolic link": tmp_path / "soft.duckdb",
                "a relative name": Path(os.path.relpath(db))}
    folder = store["dir"]
    (tmp_path / "soft").symlink_to(folder)
    return {"a shard": next(folder.rglob("games-*.parquet")),
            "the manifest": next((folder / "runs").glob("*.json")),
            "the marker": folder / "unostats-store.json",
            "a new file in the folder": folder / "new.csv",
            "through a symbolic link": tmp_path / "soft" / "unostats-store.json"}


@pytest.mark.parametrize("which", range(5))
def test_out_never_writes_over_the_store(store, tmp_path, invoke, which):
    name, out = list(store_targets(store, tmp_path).items())[which]
    before = snapshot(tmp_path)
    result = invoke("query", "SELECT 1 AS x", *store["args"], "--out", out, "-f", "csv",
                    "--overwrite")
    assert result.exit_code == 2, (name, result.output)
    assert "unostats never writes over the results store" in result.stderr, result.stderr
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_out_never_writes_a_file_that_is_not_regular(store, tmp_path, invoke, kind):
    out = {"fifo": tmp_path / "fifo", "device": Path("/dev/null"),
           "folder": tmp_path / "folder"}[kind]
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "folder":
        out.mkdir()
    result = invoke("query", "SELECT 1 AS x", *store["args"], "--out", out, "-f", "csv",
                    "--overwrite")  # would block on a FIFO if it opened it
    assert result.exit_code == 2 and "not a regular file" in result.stderr, result.stderr


@pytest.mark.parametrize("args, words", [
    (["--out", "x.txt"], "give --format"),
    (["--out", "x.csv", "-f", "table"], "--format table is for the screen"),
    (["-f", "parquet"], "give it with --out FILE"),
    (["--out", "/proc/version/x.csv"], "cannot write"),
    (["--out", "x.csv", "--param", "n=1"], "the SQL has no $n"),
])
def test_out_usage_errors_are_one_sentence(store, tmp_path, invoke, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    result = invoke("query", "SELECT 1 AS x", *store["args"], *args)
    assert result.exit_code in (1, 2) and words in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "x.txt").exists() and not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("name", ["x.csv", "x.parquet"])
def test_a_statement_without_rows_writes_no_file(store, tmp_path, invoke, name):
    result = invoke("query", "/* a comment, no statement */", *store["args"],
                    "--out", tmp_path / name)
    assert result.exit_code == 1 and "returns no rows" in result.stderr, result.output
    assert not any(p.name.startswith((".x", "x")) for p in tmp_path.iterdir())


def test_a_failing_query_with_out_leaves_no_file(store, tmp_path, invoke):
    result = invoke("query", "SELECT CASE WHEN range = 9000 THEN error('boom') ELSE range END "
                    "AS i FROM range(10000)", *store["args"], "--out", tmp_path / "x.parquet")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "boom" in result.stderr
    assert not any(p.name.startswith((".x", "x")) for p in tmp_path.iterdir())


# --- The query's own faults: one sentence -------------------------------------------------------

@pytest.mark.parametrize("sql, args, words", [
    ("SELECT $x AS x", [], "no value is given for it; pass one with --param x=VALUE"),
    ("SELECT $n AS n, $x AS x", ["--param", "n=1"], "--param x=VALUE"),
    ("SELECT 1; SELECT $x AS x", [], "--param x=VALUE"),
    ("SELECT $1 AS x", [], "numbered parameter $1"),
])
def test_a_parameter_not_given_is_named(store, invoke, sql, args, words):
    result = invoke("query", sql, *args, *store["args"])
    assert result.exit_code == 1 and words in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("where", ["SQL", "param", "stdin"])
def test_bytes_that_are_not_utf8_are_one_sentence(store, invoke, where):
    bad = b"SELECT '\xff\xfe' AS x".decode("utf-8", "surrogateescape")
    args = {"SQL": (bad,), "param": ("SELECT $v AS v", "--param", "v=\udcff"),
            "stdin": ("-",)}[where]
    result = invoke("query", *args, *store["args"],
                    input=b"SELECT '\xff' AS x" if where == "stdin" else None)
    assert result.exit_code == 2, result.output
    assert "is not UTF-8 text (byte 0xff" in result.stderr, result.stderr


def run_cli(*args: bytes | str, stdout=subprocess.PIPE, **kwargs) -> subprocess.CompletedProcess:
    """The command line in a child process (real file descriptors, real argv bytes)."""
    return subprocess.run([sys.executable, "-c", "from unostats.cli import app; app()", *args],
                          stdout=stdout, stderr=subprocess.PIPE, timeout=120, **kwargs)


@pytest.mark.parametrize("how", ["argv bytes", "closed pipe", "closed stdout", "/dev/full"])
def test_stdout_faults_and_raw_bytes_in_a_child_process(made, how):
    db = str(made["duckdb"])
    sql = "SELECT range AS i FROM range(200000)"
    if how == "argv bytes":
        result = run_cli("query", b"SELECT '\xff' AS x", "--db", db)
        words, code = b"is not UTF-8 text (byte 0xff", 2
    elif how == "closed pipe":
        child = subprocess.Popen([sys.executable, "-c", "from unostats.cli import app; app()",
                                  "query", sql, "--db", db, "-f", "csv"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        child.stdout.close()  # as `| head -0`
        _, err = child.communicate(timeout=120)
        result = subprocess.CompletedProcess(child.args, child.returncode, b"", err)
        words, code = b"stdout was closed before every row was written", 1
    elif how == "closed stdout":
        result = run_cli("query", sql, "--db", db, stdout=None,
                         preexec_fn=lambda: os.close(1))
        words, code = b"stdout is closed", 1
    else:
        with open("/dev/full", "w") as full:
            result = run_cli("query", sql, "--db", db, "-f", "csv", stdout=full)
        words, code = b"no space left on the device", 1
    assert result.returncode == code, result.stderr
    assert words in result.stderr, result.stderr
    assert b"Traceback" not in result.stderr and result.stderr.count(b"\n") == 1, result.stderr


# --- Every reader runs in the sandbox (report, compare, summaries, export) ---------------------

def test_every_reader_connection_is_sandboxed_and_locked(store, tmp_path):
    from unostats import store as results

    target = store["db"] if store["kind"] == "duckdb" else \
        results.parquet_location(str(store["dir"]))
    con = results.open_store(target, read_only=True)
    try:
        got = [con.execute(f"SELECT current_setting('{name}')").fetchall()[0][0]
               for name in ("enable_external_access", "lock_configuration",
                            "autoinstall_known_extensions", "autoload_known_extensions")]
        assert got == [False, True, False, False]
        with pytest.raises(results.StoreError, match="out of a query's reach"):
            results.query(con, f"SELECT * FROM read_text('{tmp_path}/secret.csv')")
    finally:
        con.close()


def test_an_export_connection_writes_its_one_folder_only(store, tmp_path):
    from unostats import store as results

    target = store["db"] if store["kind"] == "duckdb" else \
        results.parquet_location(str(store["dir"]))
    out = tmp_path / "out"
    con = results.open_store(target, read_only=True, writes_in=out)
    try:
        results.export_run(con, results.latest_run_id(con), out, "csv")
        assert (out / "games.csv").read_text().count("\n") == 7  # a header and 6 games
        for sql in (f"SELECT * FROM read_text('{tmp_path}/secret.csv')",
                    f"COPY (SELECT 1) TO '{tmp_path}/outside.csv'",
                    f"COPY (SELECT 1) TO '{out}side.csv'"):  # a name that only starts as out
            with pytest.raises(results.StoreError, match="out of a query's reach"):
                results.query(con, sql)
    finally:
        con.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.parquet", "secret.csv",
                                                          "secret.json", "store"]
