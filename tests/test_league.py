"""Leagues: the ``league:`` section (its errors at their lines), the balanced seatings, the
ratings (known strengths recovered, ties overlapping), and league runs (stored rows, the
league_ratings view, the summary's table, the report's section, replay, stop and resume)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import duckdb
import numpy as np
import pytest

from unostats import ratings, store
from unostats.kinds import kind_of
from unostats.leagues.spec.seatings import cycle_games, seatings
from unostats.report.build import build_report
from unostats.leagues.summary import LEAGUE_COLUMNS, summary_text
from unostats.runs.replay import replay
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.scenario import ScenarioError, load_scenario, load_text

LEAGUE = """\
name: tiny league
seed: 11
games: 12
variants:
  - name: official
league:
  policies:
    - random
    - strategist
    - name: keep-black
      weights: {points: 1, wild: -1000, wild_draw_four: -1000, colour_held: 2}
  table_size: [2, 3]
  behaviour: {forget_uno: 0.2}
"""


def _problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as e:
        load_text(text, "l.yaml")
    return [str(p) for p in e.value.problems]


# --- The section -------------------------------------------------------------------------------

def test_a_league_resolves_its_policies_table_sizes_and_behaviour():
    s = load_text(LEAGUE, "l.yaml")
    assert s.players == (2, 3) and s.league.names == ("random", "strategist", "keep-black")
    assert all(seat.behaviour["forget_uno"] == 0.2 for seat in s.league.policies)
    assert s.league.policies[2].weighted.weight("wild") == -1000
    assert [c.players for c in s.cells()] == [2, 3] and all(c.seats == () for c in s.cells())
    assert kind_of(s).name == "leagues"
    again = load_text(s.canonical_json(), "stored")  # what a resume loads
    assert again.hash() == s.hash() and again.league == s.league
    assert load_text(LEAGUE.replace("[2, 3]", "2"), "l.yaml").players == (2,)


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("    - random\n", "    - randm\n",
     "l.yaml:8: league.policies[0]: unknown policy 'randm'; did you mean 'random'? allowed: "),
    ("[2, 3]", "[2, 4]",
     "l.yaml:12: league.table_size[1]: 4 is out of range: expected players per table, from 2 "
     "to 3 (at most the league's 3 policies: a table seats distinct policies)"),
    ("[2, 3]", "[1, 3]", "l.yaml:12: league.table_size[0]: 1 is out of range"),
    ("[2, 3]", "four", "l.yaml:12: league.table_size: expected players per table"),
    ("[2, 3]", "[3, 3]", "l.yaml:12: league.table_size: table sizes repeat: [3, 3]"),
    ("[2, 3]", "[]", "l.yaml:12: league.table_size: expected players per table"),
    ("    - strategist\n", "    - random\n",
     "l.yaml:9: league.policies[1]: policy 'random' is in the league twice (first at line 8)"),
    ("wild: -1000,", "wilde: -1000,",
     "l.yaml:11: league.policies[2].weights.wilde: unknown feature 'wilde'"),
    ("points: 1,", "points: lots,", "l.yaml:11: league.policies[2].weights.points: expected a "
                                    "number"),
    ("{forget_uno: 0.2}", "{forget_uno: 2}",
     "l.yaml:13: league.behaviour.forget_uno: 2 is out of range: expected a probability"),
    ("  behaviour:", "  behavior:", "l.yaml:13: league.behavior: unknown key 'behavior'; "
                                    "did you mean 'behaviour'?"),
    ("games: 12\n", "games: 12\nplayers: 4\n",
     "l.yaml:4: players: not used in a league scenario: players come from league.table_size"),
    ("games: 12\n", "games: 12\nseats: {policy: random}\n",
     "l.yaml:4: seats: not used in a league scenario"),
    ("games: 12\n", "games: 12\nprecision: {turns_per_round: 1}\n",
     "l.yaml:4: precision: not used in a league scenario"),
    ("games: 12\n", "games: 12\nsweep: {rules.uno_penalty: [2, 4]}\n",
     "l.yaml:4: sweep: not used in a league scenario"),
    ("games: 12\n", "games: 12\ntournament: {}\n",
     "l.yaml:7: league: a scenario is a tournament or a league, not both"),
    ("games: 12\n", "games: 0\n", "l.yaml:3: games: 0 is out of range: expected an integer >= 1 "
                                  "(games per table size, rounded up to whole cycles"),
])
def test_league_errors_name_the_line_key_and_allowed_values(old, new, expected):
    assert old in LEAGUE
    problems = _problems(LEAGUE.replace(old, new, 1))
    assert any(p.startswith(expected) for p in problems), problems


def test_a_league_needs_two_policies_and_a_table_size():
    problems = _problems(LEAGUE.split("  policies:")[0] + "  policies: [random]\n")
    assert problems[0].startswith("l.yaml:6: league: missing required key 'table_size'")
    assert problems[1].startswith("l.yaml:7: league.policies: expected a list of at least 2 "
                                  "policies")
    assert _problems(LEAGUE.split("league:")[0] + "league: 4\n")[0].startswith(
        "l.yaml:6: league: expected a mapping with keys policies, table_size, behaviour")


def test_validate_describes_the_league(tmp_path):
    from typer.testing import CliRunner

    from unostats.cli import app

    path = tmp_path / "l.yaml"
    path.write_text(LEAGUE)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"ok: {path} (a league of 3 policies x 1 variant: 6 seatings at 2 "
                             "players (12 games), 6 seatings at 3 players (12 games), every "
                             "seating equally often)\n")


# --- Seatings ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("policies", "players"),
                         [(2, 2), (3, 2), (3, 3), (4, 3), (5, 4), (6, 4), (7, 5), (11, 4),
                          (11, 2), (6, 6)])
def test_seatings_are_balanced(policies, players):
    design = seatings(policies, players)
    orders = 1 if players == 2 else 2
    assert len(design) == math.comb(policies, players) * players * orders
    assert all(len(set(t)) == players for t in design)  # distinct policies at a table
    # every policy in every seat equally often
    per_seat = Counter((p, s) for t in design for s, p in enumerate(t))
    assert len(per_seat) == policies * players
    assert set(per_seat.values()) == {math.comb(policies - 1, players - 1) * orders}
    # every two policies meet equally often
    meet = Counter(pair for t in design for pair in itertools.combinations(sorted(t), 2))
    assert len(meet) == math.comb(policies, 2)
    assert set(meet.values()) == {math.comb(policies - 2, players - 2) * players * orders}
    # a sits directly before b as often as b before a
    before = Counter((t[s], t[(s + 1) % players]) for t in design for s in range(players))
    assert all(before[(a, b)] == before[(b, a)] for a, b in before)


def test_rotations_alone_would_fail_the_order_check():
    """The check above can fail: with rotations only, at 4 players the lowest policy of a
    combination always sits before the second lowest."""
    design = [c[r:] + c[:r] for c in itertools.combinations(range(5), 4) for r in range(4)]
    before = Counter((t[s], t[(s + 1) % 4]) for t in design for s in range(4))
    assert before[(0, 1)] != before[(1, 0)]


def test_games_round_up_to_whole_cycles():
    assert cycle_games(12, 6) == 12 and cycle_games(13, 6) == 18 and cycle_games(1, 2640) == 2640
    s = load_text(LEAGUE.replace("games: 12", "games: 7"), "l.yaml")
    assert [s.league.games(n, s.games) for n in (2, 3)] == [12, 12]
    assert kind_of(s).games_requested(s) == 24
    # game g seats seating g % S, whatever the batch
    assert s.league.seats(3, 1) == s.league.seats(3, 7)
    assert [x.policy for x in s.league.seats(2, 1)] == ["strategist", "random"]


# --- Ratings -----------------------------------------------------------------------------------

def _league_games(strengths, players, cycles, rng):
    design = np.array(seatings(len(strengths), players))
    tables = np.tile(design, (cycles, 1))
    p = np.asarray(strengths)[tables]
    p /= p.sum(axis=1, keepdims=True)
    winners = tables[np.arange(len(tables)), (rng.random(len(tables))[:, None]
                                              > np.cumsum(p, axis=1)).sum(axis=1)]
    return tables, winners


def test_ratings_recover_known_strengths_within_their_intervals():
    """40 synthetic leagues of 5 policies with known Luce strengths (scaled to average 1): the
    fits land near the truth and the 95% intervals cover it about 95% of the time."""
    rng = np.random.default_rng(2024)
    covered, total, errors = 0, 0, []
    for league in range(40):
        true = np.exp(rng.normal(0, 0.5, 5))
        true /= true.mean()
        players = (2, 3, 4)[league % 3]
        tables, winners = _league_games(true, players, 1200 // len(seatings(5, players)), rng)
        fit = ratings.fit(tables, winners, 5, seed=league, bootstrap=400)
        covered += int(((fit.lo <= true) & (true <= fit.hi)).sum())
        total += 5
        errors.append(np.abs(np.log(fit.rating / true)).max())
        assert fit.games.tolist() == [int((tables == i).any(axis=1).sum()) for i in range(5)]
    assert 0.88 <= covered / total <= 0.99, covered / total
    assert np.median(errors) < 0.25


def test_a_tied_league_gives_overlapping_intervals():
    rng = np.random.default_rng(5)
    tables, winners = _league_games([1.0] * 6, 4, 20, rng)
    fit = ratings.fit(tables, winners, 6, seed=1)
    assert max(fit.lo) < min(fit.hi)  # one rating lies in every interval
    assert all(lo < 1 < hi for lo, hi in zip(fit.lo, fit.hi))


def test_two_policies_are_bradley_terry():
    """Two policies: the rating ratio is the win ratio (the BT estimate; the virtual win and
    loss of each policy move it by 0.1% over 10,000 games), games without a winner change
    nothing, and a policy that never wins gets a small finite rating, not 0."""
    tables = np.array([[0, 1], [1, 0]] * 5000)
    winners = np.array([0] * 7000 + [1] * 3000)
    fit = ratings.fit(tables, winners, 2, seed=0, bootstrap=50)
    assert fit.rating[0] / fit.rating[1] == pytest.approx(7000 / 3000, rel=2e-3)
    assert fit.rating.mean() == pytest.approx(1)
    assert fit.lo[0] < fit.rating[0] < fit.hi[0]
    capped = ratings.fit(np.vstack([tables, [[0, 1]]]), np.append(winners, -1), 2, seed=0,
                         bootstrap=50)
    assert capped.rating == pytest.approx(fit.rating) and capped.games.tolist() == [10001] * 2
    never = ratings.fit(tables[:20], np.zeros(20, dtype=int), 2, seed=0, bootstrap=50)
    assert 0 < never.rating[1] < 0.1 and never.rating[0] > 1.9 and np.isfinite(never.hi).all()


# --- Runs --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def league_run(game_tables, stored_rows, tmp_path_factory):
    folder = tmp_path_factory.mktemp("league")
    path = folder / "l.yaml"
    path.write_text(LEAGUE)
    db = folder / "l.duckdb"
    outcome = simulate(scenario=load_scenario(path), db=db, batch_games=5)
    return {"path": path, "db": db, "outcome": outcome,
            "rows": stored_rows(db, game_tables + ("league_fits",), "games_completed")}


def test_a_league_run_stores_every_seating_as_plain_games(league_run):
    assert league_run["outcome"].status == "complete"
    con = duckdb.connect(str(league_run["db"]), read_only=True)
    try:
        seats = con.execute("SELECT players, game, seat, policy FROM game_seats "
                            "ORDER BY ALL").fetchall()
    finally:
        con.close()
    s = load_text(LEAGUE, "l.yaml")
    for n in (2, 3):
        got = [(g, seat, p) for players, g, seat, p in seats if players == n]
        want = [(g, i, seat.policy) for g in range(12)
                for i, seat in enumerate(s.league.seats(n, g))]
        assert got == want
        per_seat = Counter((seat, p) for g, seat, p in got)
        assert set(per_seat.values()) == {12 // 3}  # each policy in each seat equally often


def test_league_ratings_view_has_its_columns_and_the_fit(league_run):
    con = store.open_store(league_run["db"], read_only=True)
    try:
        cur = con.execute("SELECT * FROM league_ratings ORDER BY players, policy")
        columns = [d[0] for d in cur.description]
        rows = [dict(zip(columns, r)) for r in cur.fetchall()]
        wins = dict(((p, pol), w) for p, pol, w in con.execute(
            "SELECT g.players, s.policy, count(*) FROM games g JOIN game_seats s "
            "USING (run_id, variant, players, game) WHERE s.seat = g.winner_seat "
            "GROUP BY ALL").fetchall())
    finally:
        con.close()
    assert columns == ["run_id", "variant", "players", "policy", "rating", "lo", "hi", "games",
                       "wins", "win_rate", "fair_share", "method"]
    assert len(rows) == 6
    for r in rows:
        assert r["wins"] == wins.get((r["players"], r["policy"]), 0)
        assert r["games"] == (8 if r["players"] == 2 else 12)
        assert r["lo"] - 1e-9 <= r["rating"] <= r["hi"] + 1e-9 and r["method"] == ratings.METHOD
    for n in (2, 3):
        assert np.mean([r["rating"] for r in rows if r["players"] == n]) == pytest.approx(1)


def test_export_includes_the_league_fits(league_run, tmp_path):
    con = store.open_store(league_run["db"], read_only=True, writes_in=tmp_path)
    try:
        paths = store.export_run(con, league_run["outcome"].run_id, tmp_path, fmt="csv")
    finally:
        con.close()
    assert (tmp_path / "league_fits.csv") in paths
    assert len((tmp_path / "league_fits.csv").read_text().splitlines()) == 1 + 6


def test_simulate_summary_shows_the_league_table(league_run):
    run_id = league_run["outcome"].run_id
    text = summary_text(db=league_run["db"], run_ids=[run_id], fmt="table")
    lines = text.splitlines()
    assert lines[0].startswith("run ") and "turns/round [95% CI]" in lines[0]  # the games' table
    header = next(line for line in lines if "rating [95% CI]" in line)
    assert header.split() == ["run", "variant", "players", "policy", "rating", "[95%", "CI]",
                              "games", "wins", "win", "rate", "(%)", "fair", "share", "(%)"]
    assert sum(1 for line in lines if line.startswith(run_id) and "keep-black" in line) == 2
    csv_text = summary_text(db=league_run["db"], run_ids=[run_id], fmt="csv")
    assert csv_text.splitlines()[0] == ",".join(LEAGUE_COLUMNS)
    assert len(csv_text.strip().splitlines()) == 7


def test_the_league_summary_fits_a_terminal(league_run):
    run_ids = [league_run["outcome"].run_id]
    text = summary_text(db=league_run["db"], run_ids=run_ids, fmt="table", width=80)
    assert max(map(len, text.splitlines())) <= 80
    assert "left out to fit 80 columns" in text  # the games' table at least
    whole = summary_text(db=league_run["db"], run_ids=run_ids, fmt="table")
    assert max(map(len, whole.splitlines())) > 80 and "left out" not in whole


def test_the_report_has_a_league_section(league_run, tmp_path):
    out = tmp_path / "r.html"
    build_report(db_path=league_run["db"], run_ids=[league_run["outcome"].run_id], out=out,
                 index=False)
    html = out.read_text()
    assert '<section id="league">' in html and 'href="#league"' in html
    assert 'id="table-league-1-2"' in html and 'id="table-league-1-3"' in html
    assert 'id="fig-league-1"' in html and "keep-black" in html
    assert "UNO league report" in html


def test_a_league_game_replays_with_its_seating(league_run):
    result = replay(db=league_run["db"], run="latest", game=7, variant="official", players=3)
    assert result.referee_error is None and result.mismatches == [], result


def test_an_interrupted_league_resumes_to_the_same_rows_and_ratings(stop_after, game_tables,
                                                                    stored_rows, league_run,
                                                                    tmp_path):
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    first = simulate(scenario=load_scenario(league_run["path"]), db=db, batch_games=5,
                     progress=stop_after(stop, 2), stop=stop)
    assert first.status == "interrupted" and first.games_completed == 10
    partial = stored_rows(db, ("league_fits",), "games_completed")["league_fits"]
    decided = {players: d for _, players, *_, d, _ in partial}  # the games stored so far
    assert 0 < decided[2] <= 10 and decided[3] == 0
    assert all(r[4] is None for r in partial if r[1] == 3)  # no game: no rating yet
    stop = StopRequest()
    second = resume(run=first.run_id, db=db, batch_games=3, progress=stop_after(stop, 3),
                    stop=stop)
    assert second.status == "interrupted"
    assert resume(run=first.run_id, db=db).status == "complete"
    got = stored_rows(db, game_tables + ("league_fits",), "games_completed")
    for table, want in league_run["rows"].items():
        assert got[table] == want, table
