"""The Python API (``unostats.simulate``, ``unostats.open``) gives what the commands give: the
same summary rows, query rows and sandbox, comparisons, report and scenario messages; and the
examples of docs/api.md run as written."""

import doctest
import io
import os
import signal
from pathlib import Path

import polars as pl
import pytest
import yaml
from polars.testing import assert_frame_equal

import unostats
from unostats.base.compare import ALL_STATISTICS

DOCS = Path(__file__).resolve().parents[1] / "docs"

# two variants of one seed at one table size: their games are dealt alike (compare pairs them)
TINY = {
    "name": "tiny",
    "seed": 11,
    "games": 30,
    "players": 4,
    "variants": [
        {"name": "official", "extends": "standard"},
        {"name": "penalty4", "extends": "standard", "rules": {"uno_penalty": 4}},
    ],
}


def _csv(text: str, **types: pl.DataType) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), schema_overrides=types)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> unostats.Run:
    db = tmp_path_factory.mktemp("api") / "results.duckdb"
    return unostats.simulate(TINY, db=db, quiet=True)


def test_a_bundled_name_gives_the_summary_the_cli_prints(tmp_path, invoke):
    run = unostats.simulate("standard", games=20, seed=3, set=["players=4"],
                            db=tmp_path / "api.duckdb", quiet=True)
    cli = invoke("simulate", "standard", "--games", "20", "--seed", "3", "--set", "players=4",
                 "--format", "csv", "-q", "--db", str(tmp_path / "cli.duckdb"))
    assert cli.exit_code == 0, cli.output
    expected = _csv(cli.stdout)
    assert run.summary["run_id"].to_list() == [run.id]
    assert run.db == tmp_path / "api.duckdb"
    assert_frame_equal(run.summary.drop("run_id"), expected.drop("run_id"))
    # and the stored run's summary, read back, is the one returned
    assert_frame_equal(unostats.open(run.db).summary(run.id), run.summary)


def test_a_summary_s_names_stay_text_whatever_they_look_like():
    from unostats.api import _csv_frame

    frame = _csv_frame("run_id,variant,players,games\n859409e4,1e5,4,20\n")
    assert frame["run_id"].to_list() == ["859409e4"] and frame["variant"].to_list() == ["1e5"]
    assert frame["games"].to_list() == [20]


def test_a_path_and_a_mapping_of_the_same_scenario_play_the_same_games(tmp_path, tiny_run):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY, sort_keys=False), encoding="utf-8")
    from_file = unostats.simulate(path, db=tmp_path / "file.duckdb", quiet=True)
    assert from_file.summary["variant"].to_list() == ["official", "penalty4"]
    assert from_file.summary["games"].to_list() == [30, 30]
    assert_frame_equal(from_file.summary.drop("run_id"), tiny_run.summary.drop("run_id"))
    # a mapping as --set overrides: the same cells, with the games changed
    fewer = unostats.simulate(path, set={"games": 5}, db=tmp_path / "file.duckdb", quiet=True)
    assert fewer.summary["games"].to_list() == [5, 5]
    assert unostats.open(tmp_path / "file.duckdb").runs()["run_id"].to_list() == [
        from_file.id, fewer.id]


def test_query_returns_the_stored_rows_with_parameters(tiny_run):
    with unostats.open(tiny_run.db) as results:
        games = results.query("SELECT variant, count(*) AS games FROM games "
                              "WHERE run_id = $run GROUP BY variant ORDER BY variant",
                              run=tiny_run.id)
        rounds = results.query("SELECT count(*) AS n FROM rounds WHERE variant = $v",
                               v="penalty4")
    assert games.rows() == [("official", 30), ("penalty4", 30)]
    assert rounds["n"][0] == tiny_run.summary.filter(variant="penalty4")["rounds"][0]


def test_query_is_sandboxed_as_the_cli_is(tiny_run, invoke):
    sql = "SELECT * FROM read_csv('/etc/passwd')"
    with pytest.raises(unostats.UnostatsError) as caught:
        unostats.open(tiny_run.db).query(sql)
    assert not isinstance(caught.value, unostats.ScenarioError)
    cli = invoke("query", sql, "--db", str(tiny_run.db))
    assert cli.exit_code == 1
    assert "out of a query's reach" in str(caught.value)
    assert cli.stderr.strip() == f"error: {caught.value}"


def test_an_unknown_run_is_an_unostats_error(tiny_run):
    with pytest.raises(unostats.UnostatsError, match="zzzz"):
        unostats.open(tiny_run.db).summary("zzzz")


def test_compare_gives_the_cli_rows(tiny_run, invoke):
    a, b = f"{tiny_run.id}/official/4", f"{tiny_run.id}/penalty4/4"
    rows = unostats.open(tiny_run.db).compare(a, b)
    cli = invoke("compare", a, b, "--format", "csv", "--db", str(tiny_run.db))
    assert cli.exit_code == 0, cli.output
    expected = _csv(cli.stdout, games=pl.String)  # "30", or "30 / 20" when not paired
    assert rows.columns == expected.columns
    assert rows.height == expected.height == len(ALL_STATISTICS)  # how it plays too
    assert rows["statistic"].to_list() == list(ALL_STATISTICS)
    assert rows["a_cell"].unique().to_list() == [a]
    assert_frame_equal(rows, expected)


def test_report_writes_the_html_report_under_the_output_rule(tiny_run, tmp_path):
    results = unostats.open(tiny_run.db)
    out = results.report(tmp_path / "tiny.html", runs=[tiny_run.id])
    assert out == tmp_path / "tiny.html"
    page = out.read_text(encoding="utf-8")
    assert "penalty4" in page and tiny_run.id in page
    assert results.report(out) == out  # a report unostats wrote is replaced
    mine = tmp_path / "notes.html"
    mine.write_text("mine", encoding="utf-8")
    with pytest.raises(unostats.UnostatsError, match="overwrite"):
        results.report(mine)
    assert mine.read_text(encoding="utf-8") == "mine"
    assert results.report(mine, overwrite=True) == mine
    site = results.report(site=tmp_path / "site", runs=[tiny_run.id])
    assert site.parent == tmp_path / "site" and site.suffix == ".html"
    shared = sorted((tmp_path / "site").glob("plotly-*.min.js"))
    assert len(shared) == 1 and shared[0].name in site.read_text(encoding="utf-8")
    with pytest.raises(unostats.UnostatsError, match="give one"):
        results.report(tmp_path / "x.html", site=tmp_path / "site")


def test_a_bad_mapping_raises_the_cli_message(tmp_path, invoke):
    bad = {**TINY, "seeds": 3, "players": 11}
    with pytest.raises(unostats.ScenarioError) as caught:
        unostats.simulate(bad, db=tmp_path / "never.duckdb")
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(bad, sort_keys=False), encoding="utf-8")
    cli = invoke("simulate", str(path), "--db", str(tmp_path / "never.duckdb"))
    assert cli.exit_code == 2
    message = str(caught.value)
    assert "seeds: unknown key 'seeds'; did you mean 'seed'?" in message
    assert len(message.splitlines()) == 2  # both problems, one a line
    assert cli.stderr.strip() == message.replace("<mapping>", str(path))
    assert not (tmp_path / "never.duckdb").exists()


def test_a_parquet_store_is_named_as_the_cli_names_it(tmp_path):
    spec = f"parquet:{tmp_path / 'store'}"
    run = unostats.simulate(TINY, games=4, db=spec, quiet=True)
    assert (tmp_path / "store").is_dir() and not Path(spec).exists()
    results = unostats.open(spec)
    assert results.runs()["run_id"].to_list() == [run.id]
    assert results.query("SELECT count(*) AS n FROM games")["n"][0] == 8
    assert_frame_equal(results.summary(), run.summary)
    with pytest.raises(unostats.UnostatsError, match="needs a file name"):
        unostats.open("duckdb:")


def test_an_interrupted_run_raises_with_the_command_that_resumes_it(tmp_path, monkeypatch,
                                                                   invoke):
    from unostats.base.progress import ConsoleProgress

    monkeypatch.setenv("UNOSTATS_BATCH_GAMES", "5")
    # the kernel's interrupt, sent when the first batch is stored
    monkeypatch.setattr(ConsoleProgress, "batch_stored",
                        lambda self, *args, **kwargs: os.kill(os.getpid(), signal.SIGINT))
    db = tmp_path / "stopped.duckdb"
    with pytest.raises(unostats.UnostatsError, match="resume it with unostats simulate "
                                                     "--resume") as caught:
        unostats.simulate(TINY, db=db, quiet=True)
    runs = unostats.open(db).runs()
    assert runs["status"].to_list() == ["interrupted"]
    assert runs["games_completed"][0] < 60
    run_id = runs["run_id"][0]
    assert f"--resume {run_id}" in str(caught.value)
    monkeypatch.undo()  # the resume command given finishes it
    done = invoke("simulate", "--resume", run_id, "--db", str(db), "-q")
    assert done.exit_code == 0, done.output
    assert unostats.open(db).runs()["status"].to_list() == ["complete"]


def test_a_mapping_of_values_yaml_cannot_write_is_a_scenario_error(tmp_path):
    with pytest.raises(unostats.ScenarioError, match="<mapping>: a value is not plain data"):
        unostats.simulate({**TINY, "games": object()}, db=tmp_path / "never.duckdb")
    assert not (tmp_path / "never.duckdb").exists()


def test_an_in_memory_database_is_refused(tmp_path):
    with pytest.raises(unostats.UnostatsError, match="in-memory"):
        unostats.simulate(TINY, db=":memory:")


def test_the_api_page_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the page's default database, unostats.duckdb, lands here
    monkeypatch.delenv("UNOSTATS_DB", raising=False)
    result = doctest.testfile(str(DOCS / "api.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              raise_on_error=False, verbose=False)
    assert result.attempted >= 8
    assert result.failed == 0
    assert (tmp_path / "unostats.duckdb").exists()
