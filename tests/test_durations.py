"""Durations in minutes: the scenario key seconds_per_turn (default, range, file and line of a
bad value), the durations and tournament_durations views against turns recomputed from the
tables, a run stored without the key, and the minutes in the summaries and the report."""

from __future__ import annotations

import duckdb
import pytest

from unostats import durations, store
from unostats.scenario import ScenarioError, load_scenario, load_text
from unostats.stats import Z95

SCENARIO = """\
name: paced
seed: 3
games: 30
players: [2, 4]
seconds_per_turn: 6.5
variants:
  - name: standard
"""


def test_default_and_resolved_form(tmp_path):
    s = load_text(SCENARIO.replace("seconds_per_turn: 6.5\n", ""))
    assert s.seconds_per_turn == durations.SECONDS_PER_TURN_DEFAULT == 4.0
    assert s.resolved()["seconds_per_turn"] == 4.0
    assert load_text(SCENARIO).resolved()["seconds_per_turn"] == 6.5
    assert load_text(SCENARIO, overrides=["seconds_per_turn=3"]).seconds_per_turn == 3.0
    # a stored run's scenario (its canonical JSON) loads back with the same pace and hash
    paced = load_text(SCENARIO)
    assert load_text(paced.canonical_json()).hash() == paced.hash()


@pytest.mark.parametrize("value, message", [
    ("0", "0 is out of range"), ("601", "601 is out of range"), ("true", "got True"),
    ("fast", "got 'fast'"), (".nan", "nan is out of range"), ("[4]", "got a list")])
def test_bad_values_named_with_file_line_and_range(tmp_path, value, message):
    path = tmp_path / "paced.yaml"
    path.write_text(SCENARIO.replace("6.5", value))
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    text = str(e.value)
    assert text.startswith(f"{path}:5: seconds_per_turn: ") and message in text
    assert "a number of seconds from 0.5 to 600" in text


@pytest.fixture(scope="module")
def paced(invoke, tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("durations")
    path, db = folder / "paced.yaml", folder / "paced.duckdb"
    path.write_text(SCENARIO)
    result = invoke("simulate", path, "--db", db, "-q", "--format", "json")
    assert result.exit_code == 0, result.output
    return {"db": db, "simulate": result}


def test_durations_view_is_turns_times_the_pace(paced):
    con = duckdb.connect(str(paced["db"]), read_only=True)
    for unit, table in (("round", "rounds"), ("game", "games")):
        rows = con.execute(f"""
            SELECT d.players, d.n, d.seconds_per_turn, d.mean_minutes, d.lo_minutes,
              d.hi_minutes, d.p90_minutes, t.n, t.mean, t.se, t.p90
            FROM durations d JOIN (SELECT players, count(*) AS n, avg(turns) AS mean,
                stddev_samp(turns) / sqrt(count(*)) AS se, quantile_cont(turns, 0.9) AS p90
              FROM {table} GROUP BY players) t USING (players)
            WHERE d.unit = '{unit}' ORDER BY players""").fetchall()
        assert [r[0] for r in rows] == [2, 4]
        for _, n, pace, mean, lo, hi, p90, tn, tmean, tse, tp90 in rows:
            assert n == tn and pace == 6.5
            assert mean == pytest.approx(tmean * 6.5 / 60)
            assert (lo, hi) == pytest.approx(((tmean - Z95 * tse) * 6.5 / 60,
                                              (tmean + Z95 * tse) * 6.5 / 60))
            assert p90 == pytest.approx(tp90 * 6.5 / 60)
    assert {"durations", "tournament_durations"} <= {r[0] for r in con.execute(
        "SELECT view_name FROM duckdb_views()").fetchall()} >= set(store.durations.VIEWS)
    con.close()


def test_summary_gives_minutes_per_round_and_game(paced):
    import json
    rows = json.loads(paced["simulate"].stdout)
    con = duckdb.connect(str(paced["db"]), read_only=True)
    for row in rows:
        (game_turns,), = con.execute("SELECT avg(turns) FROM games WHERE players = ?",
                                     [row["players"]]).fetchall()
        (round_turns,), = con.execute("SELECT avg(turns) FROM rounds WHERE players = ?",
                                      [row["players"]]).fetchall()
        assert row["seconds_per_turn"] == 6.5
        assert row["minutes_per_game"] == pytest.approx(game_turns * 6.5 / 60)
        assert row["minutes_per_round"] == pytest.approx(round_turns * 6.5 / 60)
        assert row["minutes_per_game_lo"] < row["minutes_per_game"] < row["minutes_per_game_hi"]
    con.close()


def test_summary_table_names_the_pace(invoke, tmp_path, paced):
    path = tmp_path / "p.yaml"
    path.write_text(SCENARIO)
    result = invoke("simulate", path, "--db", tmp_path / "p.duckdb", "--games", 5, "-q")
    assert result.exit_code == 0, result.output
    assert "minutes/game at 6.5 s/turn [95% CI]" in result.stdout.splitlines()[0]


def test_a_run_stored_without_the_key_takes_the_default(tmp_path, paced):
    db = tmp_path / "old.duckdb"
    db.write_bytes(paced["db"].read_bytes())
    con = store.open_store(db, read_only=False)
    con.execute("UPDATE runs SET scenario_json = json_remove(scenario_json::JSON, "
                "'$.seconds_per_turn')")
    (pace, minutes, turns), = con.execute(
        "SELECT seconds_per_turn, mean_minutes, (SELECT avg(turns) FROM games WHERE players = 2)"
        " FROM durations WHERE unit = 'game' AND players = 2").fetchall()
    con.close()
    assert pace == 4.0 and minutes == pytest.approx(turns * 4 / 60)


def test_report_shows_durations(invoke, paced, tmp_path):
    out = tmp_path / "r.html"
    assert invoke("report", "--db", paced["db"], "--out", out).exit_code == 0
    page = out.read_text()
    assert 'id="table-durations"' in page and "A game, minutes" in page
    assert "<td>6.5</td>" in page  # the pace, per cell


def test_tournament_durations(invoke, tmp_path):
    db = tmp_path / "t.duckdb"
    result = invoke("simulate", "championship", "--games", 3,
                    "--set", "seconds_per_turn=5", "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert "evening, hours [95% CI]" in result.stdout
    con = duckdb.connect(str(db), read_only=True)
    evening = con.execute("""
        SELECT d.field, d.n, d.mean_minutes, d.lo_minutes, l.mean_turns, l.se_turns
        FROM tournament_durations d JOIN tournament_length l USING (run_id, variant, field)
        WHERE d.part = 'evening'""").fetchall()
    assert len(evening) == 2
    for _, n, mean, lo, turns, se in evening:
        assert n == 3 and mean == pytest.approx(turns * 5 / 60)
        assert lo == pytest.approx((turns - Z95 * se) * 5 / 60)
    stages = con.execute("""
        SELECT d.mean_minutes, s.mean_longest_turns FROM tournament_durations d
        JOIN tournament_stage_length s USING (run_id, variant, field, bracket, step)""").fetchall()
    assert stages and all(m == pytest.approx(t * 5 / 60) for m, t in stages)
    con.close()
    out = tmp_path / "t.html"
    assert invoke("report", "--db", db, "--out", out).exit_code == 0
    assert "An evening of this championship lasts <b>" in out.read_text()
