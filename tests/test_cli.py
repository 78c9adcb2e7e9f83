"""The command line through typer.testing.CliRunner: exact CSV/JSON output of `query`, runs,
scenarios, validate (good files and the malformed corpus), export, replay, simulate's usage
errors and summary, --threads independence, and a start-up that never imports numba."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import typer

from unostats.cli import app
from unostats.games.summary import SUMMARY_COLUMNS
from unostats.scenario import ScenarioError, load_scenario

SRC = Path(__file__).resolve().parents[1] / "src"
# The malformed corpus (test_scenario.py checks each file's messages).
BAD_DIR = Path(__file__).parent / "scenarios_bad"

TINY = """\
name: tiny
description: Two variants at two player counts, for CLI tests.
seed: 11
games: 20
players: [2, 3]
variants:
  - name: standard
  - name: short
    rules: {target_score: 200}
"""
# Every command the app registers: a new one is checked without being listed here.
COMMANDS = tuple(typer.main.get_command(app).commands)


@pytest.fixture(scope="module")
def tiny(invoke, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("cli")
    path = folder / "tiny.yaml"
    path.write_text(TINY)
    db = folder / "tiny.duckdb"
    result = invoke("simulate", path, "--db", db, "-q", "--format", "csv")
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(db), read_only=True)
    (run_id,), = con.execute("SELECT run_id FROM runs").fetchall()
    con.close()
    return {"folder": folder, "path": path, "db": db, "run_id": run_id, "simulate": result}


# --- simulate ----------------------------------------------------------------------------------

def test_simulate_prints_one_summary_row_per_cell(tiny):
    result = tiny["simulate"]
    assert result.stderr == ""  # -q: nothing but errors on stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ",".join(SUMMARY_COLUMNS)
    cells = [line.split(",")[:5] for line in lines[1:]]
    assert cells == [[tiny["run_id"], "tiny", v, p, "20"]
                     for v in ("standard", "short") for p in ("2", "3")]


def test_simulate_table_summary_and_stderr_log(invoke, tmp_path, tiny):
    db = tmp_path / "t.duckdb"
    result = invoke("simulate", tiny["path"], "--db", db, "--games", 3, "--seed", 5)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("run       variant   players  games  rounds  turns/round")
    table = lines[:lines.index("")]  # then how each cell plays (games/plays.py)
    assert set(table[1]) == {"-", " "} and len(table) == 2 + 4
    for level in ("game", "round"):
        head = lines.index(f"How it plays, per {level} (95% CI):")
        assert len(lines[head:]) >= 1 + 2 + 4 and lines[head + 1].startswith("run ")
    assert "seed 5" in result.stderr and "complete: 12 games" in result.stderr
    con = duckdb.connect(str(db), read_only=True)
    stored = con.execute("SELECT seed, games_requested, command FROM runs").fetchall()
    con.close()
    assert stored == [(5, 12, f"unostats simulate {tiny['path']} --games 3 --seed 5 "
                              f"--db {db}")]


def test_simulate_usage_errors(invoke, tiny):
    for args, message in [
        (("simulate", "-q"), "give at least one scenario FILE"),
        (("simulate", "--resume", "x", "--set", "players=2"), "--set, --games and --seed "
                                                               "describe FILE"),
        (("simulate", tiny["path"], tiny["path"], "--resume", "x"), "at most one FILE"),
        (("simulate", tiny["path"], "--set", "rules.hand_sise=5", "--db", tiny["db"]),
         "unknown rule 'hand_sise'; did you mean 'hand_size'?"),
        (("simulate", tiny["path"], "--games", "0"), "Invalid value for '--games'"),
        (("simulate", "--resume", "nope", "--db", tiny["db"]), "error: no run 'nope'"),
        (("simulate", "--resume", tiny["run_id"], "--db", tiny["db"]), "already complete"),
    ]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr, (args, result.stderr)
        assert result.stdout == ""


def test_resume_with_file_must_match_the_stored_scenario(invoke, tmp_path, tiny):
    db = tmp_path / "copy.duckdb"
    shutil.copy(tiny["db"], db)
    con = duckdb.connect(str(db))
    con.execute("UPDATE runs SET status = 'interrupted'")
    con.close()
    result = invoke("simulate", tiny["path"], "--games", 21, "--resume", tiny["run_id"],
                    "--db", db)
    assert result.exit_code == 2
    assert f"does not match run {tiny['run_id']}: it differs in games" in result.stderr
    # The same file resolves to the stored scenario: the run is resumed (nothing left to play).
    result = invoke("simulate", tiny["path"], "--resume", tiny["run_id"], "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2].split()[:4] == [tiny["run_id"], "standard", "2", "20"]


@pytest.mark.parametrize("name", sorted(p.name for p in BAD_DIR.glob("*.yaml")))
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_malformed_corpus(invoke, command, name, tmp_path):
    """Each corpus file's problems, as the loader words them, reach stderr whole."""
    with pytest.raises(ScenarioError) as error:
        load_scenario(BAD_DIR / name)
    result = invoke(command, BAD_DIR / name, *(["--db", tmp_path / "x.duckdb"]
                                                if command == "simulate" else []))
    assert result.exit_code == 2
    assert result.stdout == ""
    for problem in str(error.value).splitlines():
        assert problem in result.stderr, f"{problem!r} not in:\n{result.stderr}"
    assert not (tmp_path / "x.duckdb").exists()  # nothing simulated, no database created


# --- query -------------------------------------------------------------------------------------

GAMES_SQL = "SELECT variant, players, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL"


def test_query_csv_is_exact(invoke, tiny):
    result = invoke("query", GAMES_SQL, "--format", "csv", "--db", tiny["db"])
    assert result.exit_code == 0
    assert result.stdout == ("variant,players,games\n"
                             "short,2,20\nshort,3,20\nstandard,2,20\nstandard,3,20\n")
    assert result.stderr == ""


def test_query_json_ndjson_and_table_are_exact(invoke, tiny):
    result = invoke("query", GAMES_SQL, "-f", "json", "--db", tiny["db"])
    assert result.stdout == (
        '[\n'
        '  {"variant": "short", "players": 2, "games": 20},\n'
        '  {"variant": "short", "players": 3, "games": 20},\n'
        '  {"variant": "standard", "players": 2, "games": 20},\n'
        '  {"variant": "standard", "players": 3, "games": 20}\n'
        ']\n')
    result = invoke("query", GAMES_SQL + " LIMIT 2", "-f", "ndjson", "--db", tiny["db"])
    assert result.stdout == ('{"variant": "short", "players": 2, "games": 20}\n'
                             '{"variant": "short", "players": 3, "games": 20}\n')
    result = invoke("query", GAMES_SQL + " LIMIT 2", "--db", tiny["db"])
    assert result.stdout == ("variant  players  games\n"
                             "-------  -------  -----\n"
                             "short          2     20\n"
                             "short          3     20\n")


def test_query_views_params_stdin_and_json_columns(invoke, tiny):
    sql = ("SELECT players, n, rate FROM win_rate_by_position "
           "WHERE variant = $v AND players = $p AND position = 0")
    result = invoke("query", sql, "-p", "v=standard", "-p", "p=3", "-f", "json",
                    "--db", tiny["db"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["players"] == 3 and 0 <= row["rate"] <= 1 and row["n"] > 0
    result = invoke("query", "-", "-f", "csv", "--db", tiny["db"],
                    input="SELECT count(*) AS n FROM round_seats WHERE players = 2")
    rounds = duckdb.connect(str(tiny["db"]), read_only=True).execute(
        "SELECT count(*) FROM rounds WHERE players = 2").fetchall()[0][0]
    assert result.stdout == f"n\n{2 * rounds}\n"
    result = invoke("query", "SELECT scenario_json FROM runs", "-f", "json", "--db", tiny["db"])
    assert json.loads(result.stdout)[0]["scenario_json"] == \
        load_scenario(tiny["path"]).with_seed(11).resolved()


def test_query_refuses_writes(invoke, tiny):
    for sql, kind in (("DELETE FROM games", "DELETE"), ("CREATE TABLE t (a INT)", "CREATE"),
                      ("INSERT INTO meta VALUES ('a', 'b')", "INSERT"),
                      # games ... are views over the stored rows: DuckDB's own refusal differs
                      ("UPDATE rounds SET turns = 0", "UPDATE"), ("TRUNCATE round_seats", "DELETE"),
                      ("INSERT INTO games SELECT * FROM games", "INSERT"),
                      ("DELETE FROM stored_games", "DELETE")):
        result = invoke("query", sql, "--db", tiny["db"])
        assert result.exit_code == 1
        assert result.stderr == (f"error: the results database is open read-only: {kind} "
                                 "statements are not allowed (only `unostats simulate` writes; "
                                 "CREATE TEMP TABLE works for scratch work)\n")
    result = invoke("query", "CREATE TEMP TABLE t AS SELECT 1 AS a; SELECT a FROM t",
                    "-f", "csv", "--db", tiny["db"])
    assert (result.exit_code, result.stdout) == (0, "a\n1\n")


def test_query_errors_are_one_line(invoke, tiny, tmp_path):
    result = invoke("query", "SELECT * FROM gmes", "--db", tiny["db"])
    assert result.exit_code == 1
    assert result.stderr == ('error: Catalog Error: Table with name gmes does not exist! '
                             'Did you mean "games"?\n')
    result = invoke("query", "SELEC 1", "--db", tiny["db"])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert result.stderr.startswith('error: Parser Error: syntax error at or near "SELEC"')
    missing = tmp_path / "none.duckdb"
    result = invoke("query", "SELECT 1", "--db", missing)
    assert result.exit_code == 1
    assert result.stderr == (f"error: no results database at {missing}; create one with "
                             f"`unostats simulate SCENARIO --db {missing}`\n")
    assert not missing.exists()
    result = invoke("query", "SELECT 1", "--param", "oops", "--db", tiny["db"])
    assert result.exit_code == 2 and "expected name=value" in result.stderr
    result = invoke("query", "SELECT 1", "--format", "xml", "--db", tiny["db"])
    assert result.exit_code == 2 and "'xml' is not one of" in result.stderr


def test_db_from_environment(invoke, tiny, monkeypatch):
    monkeypatch.setenv("UNOSTATS_DB", str(tiny["db"]))
    result = invoke("query", "SELECT count(*) AS n FROM runs", "-f", "csv")
    assert result.stdout == "n\n1\n"


# --- runs, scenarios, validate -----------------------------------------------------------------

def test_runs(invoke, tiny):
    result = invoke("runs", "--format", "csv", "--db", tiny["db"])
    header, row = result.stdout.splitlines()
    assert header == "run_id,scenario,status,started,games_requested,games_completed,seed"
    fields = row.split(",")
    assert fields[:3] == [tiny["run_id"], "tiny", "complete"]
    assert fields[4:] == ["80", "80", "11"]
    assert len(fields[3]) == 20 and fields[3].endswith("Z")  # 2026-01-02T03:04:05Z
    (obj,) = json.loads(invoke("runs", "-f", "json", "--db", tiny["db"]).stdout)
    assert obj["run_id"] == tiny["run_id"] and obj["games_completed"] == 80
    table = invoke("runs", "--db", tiny["db"]).stdout.splitlines()
    assert table[0].split() == ["run_id", "scenario", "status", "started", "games_requested",
                                "games_completed", "seed"]


def test_scenarios(invoke):
    result = invoke("scenarios", "--format", "csv")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "name,file,description"
    assert any(line.startswith("standard,") and "Official UNO rules" in line
               for line in lines[1:])
    rows = json.loads(invoke("scenarios", "-f", "json").stdout)
    assert {"name", "file", "description"} == set(rows[0])


def test_validate(invoke, tiny):
    path = tiny["path"]
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == \
        (0, f"ok: {path} (2 variants x 2 player counts = 4 cells)\n")
    result = invoke("validate", path, "--set", "players=4")
    assert result.stdout == f"ok: {path} (2 variants x 1 player count = 2 cells)\n"
    result = invoke("validate", path, "--resolved")
    assert json.loads(result.stdout) == load_scenario(path).resolved()
    result = invoke("validate", path, BAD_DIR / "games_zero.yaml")
    assert result.exit_code == 2
    assert result.stdout == f"ok: {path} (2 variants x 2 player counts = 4 cells)\n"
    assert "games_zero.yaml:2: games: 0 is out of range" in result.stderr


# --- export, replay ----------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export(invoke, tiny, tmp_path, fmt):
    out = tmp_path / "out"
    result = invoke("export", tiny["run_id"][:3], "--format", fmt, "--out", out,
                    "--db", tiny["db"])
    assert result.exit_code == 0, result.output
    tables = ("runs", "variants", "games", "game_seats", "rounds", "round_seats")
    assert result.stdout == "".join(f"{out / t}.{fmt}\n" for t in tables)
    con = duckdb.connect()
    reader = "read_csv" if fmt == "csv" else "read_parquet"
    assert con.execute(f"SELECT count(*) FROM {reader}('{out}/games.{fmt}')").fetchall() == \
        [(80,)]
    result = invoke("export", "nope", "--out", out, "--db", tiny["db"])
    assert result.exit_code == 2 and "no run 'nope'" in result.stderr


def test_report(invoke, tiny, tmp_path):
    out = tmp_path / "site" / "tiny.html"
    result = invoke("report", tiny["run_id"][:4], "--out", out, "--title", "Tiny <b>run</b>",
                    "--db", tiny["db"])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{out}\n"
    page = out.read_text()
    assert "Tiny &lt;b&gt;run&lt;/b&gt;" in page and "Tiny <b>run</b>" not in page
    assert "tiny.html" in (out.parent / "index.html").read_text()
    result = invoke("report", "nope", "--out", out, "--db", tiny["db"])
    assert result.exit_code == 2 and "no run 'nope'" in result.stderr
    result = invoke("report", "--db", tmp_path / "missing.duckdb")
    assert result.exit_code == 1 and "unostats simulate" in result.stderr


def test_replay(invoke, tiny):
    args = ("replay", "latest", "--game", 7, "--variant", "short", "--players", 3,
            "--db", tiny["db"])
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("r1 round 1 starts")
    assert "game ends" in lines[-1]
    assert result.stderr.endswith(f"run {tiny['run_id']}, short 3p, game 7: the referee "
                                  "accepts every event and agrees with the stored rows\n")
    only = invoke(*args, "--round", 1).stdout.splitlines()
    assert only and all(line.startswith("r1 ") for line in only)
    assert only == [line for line in lines if line.startswith("r1 ")]


def test_replay_errors(invoke, tiny):
    result = invoke("replay", tiny["run_id"], "--game", 0, "--db", tiny["db"])
    assert result.exit_code == 2
    assert result.stderr == (f"error: run {tiny['run_id']} has 4 cells (standard 2p, "
                             "standard 3p, short 2p, short 3p); say which with --variant NAME "
                             "--players N\n")
    result = invoke("replay", tiny["run_id"], "--game", 20, "--variant", "short", "--players",
                    2, "--db", tiny["db"])
    assert result.exit_code == 2
    assert "game 20 is not stored for short 2p" in result.stderr
    assert "stored games are 0..19" in result.stderr


def test_replay_detects_rows_that_differ(invoke, tiny, tmp_path):
    db = tmp_path / "tampered.duckdb"
    shutil.copy(tiny["db"], db)
    con = duckdb.connect(str(db))
    cell = "(SELECT cell FROM cells WHERE variant = 'standard' AND players = 2)"
    con.execute("UPDATE stored_rounds SET turns = turns + 1 "
                f"WHERE cell = {cell} AND game = 3 AND round = 1")
    con.execute("UPDATE stored_game_seats SET final_score = final_score + 1 "  # seat: in slots
                f"WHERE cell = {cell} AND game = 3 AND slots & 15 = 0")
    con.close()
    result = invoke("replay", "latest", "--game", 3, "--variant", "standard", "--players", 2,
                    "--db", db)
    assert result.exit_code == 1
    assert "the recomputed game differs from the stored rows" in result.stderr
    assert "round 1 turns: referee" in result.stderr
    assert "final scores: referee" in result.stderr


# --- help, start-up, threads -------------------------------------------------------------------

def test_every_command_has_help_with_examples(invoke):
    assert "Usage" in invoke().output  # no arguments: the help
    assert {"simulate", "query", "runs", "report", "compare", "tune", "replay"} <= set(COMMANDS)
    for command in COMMANDS:
        result = invoke(command, "--help")
        assert result.exit_code == 0
        assert "Examples:" in result.stdout and f"unostats {command}" in result.stdout


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("UNOSTATS_DB", None)
    return env


def test_cli_start_up_imports_no_engine(tiny):
    code = ("import sys\n"
            "from typer.testing import CliRunner\n"
            "import unostats.cli\n"
            "assert 'numba' not in sys.modules, 'import unostats.cli imported numba'\n"
            "from unostats.cli import app\n"
            f"r = CliRunner().invoke(app, ['query', 'SELECT 1', '--db', {str(tiny['db'])!r}])\n"
            "assert r.exit_code == 0, r.output\n"
            f"r = CliRunner().invoke(app, ['runs', '--db', {str(tiny['db'])!r}])\n"
            "assert r.exit_code == 0, r.output\n"
            "bad = sorted(m for m in sys.modules if m == 'numba' or m.startswith("
            "('numba.', 'unostats.engine')))\n"
            "assert not bad, bad\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr


def test_one_thread_equals_two_threads(tmp_path, tiny):
    dbs = []
    for threads in (1, 2):
        db = tmp_path / f"t{threads}.duckdb"
        done = subprocess.run(
            [sys.executable, "-c", "from unostats.cli import app; app()", "simulate",
             str(tiny["path"]), "--threads", str(threads), "--db", str(db), "-q"],
            capture_output=True, text=True, timeout=300,
            env={**_env(), "NUMBA_NUM_THREADS": "2", "UNOSTATS_BATCH_GAMES": "7"})
        assert done.returncode == 0, done.stderr
        dbs.append(db)
    tables = ("games", "game_seats", "rounds", "round_seats")
    rows = []
    for db in dbs:
        con = duckdb.connect(str(db), read_only=True)
        rows.append({t: con.execute(f"SELECT * EXCLUDE (run_id) FROM {t} ORDER BY ALL")
                     .fetchall() for t in tables})
        con.close()
    assert rows[0] == rows[1]
    assert len(rows[0]["games"]) == 80


def test_version_prints_the_packages_version(invoke):
    from unostats.version import __version__

    result = invoke("--version")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"unostats {__version__}\n"
