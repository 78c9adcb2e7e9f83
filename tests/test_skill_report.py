"""The report's skill-and-luck section (games/skill.py): per-policy shares of a mixed table
recomputed from the raw rows, the edges and the weaker side, which cells count as mixed tables,
and the page's section.

The database is small and real: a table of one policy written as data (keep-black) against three
``random`` seats, and a table of four ``random`` seats, simulated by the engine.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from unostats import stats, store
from unostats.report.build import build_report
from unostats.games.skill import load_skill, view
from unostats.store.packing import packed_fields

PLAIN_YAML = """\
name: plain-test
seed: 3
games: 100
players: [3]
seats: {policy: random}
variants:
  - name: official
"""


@pytest.fixture(scope="module")
def skill_runs(write_run, mixed_table_yaml, tmp_path_factory):
    """(path, {"mixed": run id, "plain": run id}): the two runs in one results file."""
    path = tmp_path_factory.mktemp("skill") / "s.duckdb"
    con = store.open_store(path, read_only=False)
    try:
        runs = {"mixed": write_run(con, mixed_table_yaml), "plain": write_run(con, PLAIN_YAML)}
    finally:
        con.close()
    return path, runs


def _section(path, run_ids):
    con = store.open_store(path, read_only=True)
    try:
        return load_skill(con, run_ids)
    finally:
        con.close()


def _raw(path, run_id, variant):
    """Wins per policy counted from the raw rows, without the section's SQL."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        policy = dict(con.execute(
            "SELECT seat, policy FROM game_seats WHERE run_id = ? AND variant = ? AND game = 0",
            [run_id, variant]).fetchall())
        rounds = con.execute("SELECT winner_seat FROM rounds WHERE run_id = ? AND variant = ? "
                             "AND ended_by = 'win'", [run_id, variant]).fetchall()
        games = con.execute("SELECT winner_seat FROM games WHERE run_id = ? AND variant = ? "
                            "AND winner_seat IS NOT NULL", [run_id, variant]).fetchall()
        first = con.execute("SELECT count(*) FILTER (WHERE winner_position = 0), count(*) "
                            "FROM rounds WHERE run_id = ? AND variant = ? AND ended_by = 'win'",
                            [run_id, variant]).fetchone()
    finally:
        con.close()
    count = lambda rows: {p: sum(policy[w] == p for (w,) in rows) for p in set(policy.values())}
    seats = {p: sum(v == p for v in policy.values()) for p in set(policy.values())}
    return seats, count(rounds), len(rounds), count(games), len(games), first


def test_shares_match_the_raw_rows(skill_runs):
    path, runs = skill_runs
    section = _section(path, [runs["mixed"]])
    assert section is not None
    assert [(t.variant, t.players) for t in section.tables] == [("official", 4), ("short", 4)]
    for t in section.tables:
        seats, round_wins, rounds, game_wins, games, (first_wins, n) = _raw(
            path, runs["mixed"], t.variant)
        assert {p.policy: p.seats for p in t.policies} == seats == {"keep-black": 1, "random": 3}
        for p in t.policies:
            assert p.rounds.value == pytest.approx(round_wins[p.policy] / rounds / p.seats)
            assert p.games.value == pytest.approx(game_wins[p.policy] / games / p.seats)
            w = stats.wilson_interval(game_wins[p.policy], games)
            assert (p.games.lo, p.games.hi) == pytest.approx((w.lo / p.seats, w.hi / p.seats))
            assert p.games.n == games and p.rounds.n == rounds
        # every game has one winner: the per-seat shares times the seats add up to 1
        assert sum(p.games.value * p.seats for p in t.policies) == pytest.approx(1)
        assert sum(p.rounds.value * p.seats for p in t.policies) == pytest.approx(1)
        assert t.best.games.value == max(p.games.value for p in t.policies)
        assert t.best_edge_games.value == pytest.approx(t.best.games.value - 0.25)
        assert t.best_edge_games.lo == pytest.approx(t.best.games.lo - 0.25)
        assert t.weaker_games.value == pytest.approx(1 - game_wins[t.best.policy] / games)
        assert t.weaker_rounds.value == pytest.approx(1 - round_wins[t.best.policy] / rounds)
        assert t.weaker_fair == pytest.approx(0.75)
        assert t.first_edge_rounds.value == pytest.approx(first_wins / n - 0.25)
    assert section.tables[0].target_score == 500 and section.tables[1].target_score == 200


def test_keep_black_is_the_better_policy(skill_runs):
    """Not a pinned number: keep-black beats random seats by far more than noise (its edge's
    interval clears zero over 300 games), so a section that mixed up policies would fail."""
    path, runs = skill_runs
    t = _section(path, [runs["mixed"]]).tables[0]
    assert t.best.policy == "keep-black"
    assert t.best_edge_rounds.lo > 0 and t.best_edge_games.lo > 0


def test_only_mixed_tables_with_fixed_seats_count(skill_runs, tmp_path):
    path, runs = skill_runs
    assert _section(path, [runs["plain"]]) is None  # one policy at every seat
    copy = tmp_path / "changed.duckdb"
    shutil.copy(path, copy)
    con = duckdb.connect(str(copy))
    try:  # seat 0 plays another policy in one game of 'short': no longer a fixed table
        # (a seat's policy is a code in ``policies``, the top field of game_seats' slots)
        offset = packed_fields("game_seats")["policy"].offset
        con.execute("INSERT INTO policies SELECT (SELECT count(*) FROM policies), 'random' "
                    "WHERE NOT EXISTS (SELECT 1 FROM policies WHERE policy = 'random')")
        con.execute(f"UPDATE stored_game_seats SET slots = (slots & {(1 << offset) - 1}) | "
                    f"((SELECT code FROM policies WHERE policy = 'random') << {offset}) "
                    "WHERE cell IN (SELECT cell FROM cells WHERE run_id = ? AND variant = "
                    "'short') AND game = 5 AND slots & 15 = 0",
                    [runs["mixed"]])  # seat 0 (seats are in slots)
    finally:
        con.close()
    section = _section(copy, [runs["mixed"]])
    assert [t.variant for t in section.tables] == ["official"]


def test_report_shows_the_section(skill_runs, tmp_path):
    path, runs = skill_runs
    out = tmp_path / "r.html"
    build_report(db_path=path, out=out, run_ids=[runs["mixed"]], index=False)
    page = out.read_text()
    assert '<section id="skill">' in page and 'href="#skill"' in page
    assert 'id="fig-skill"' in page and 'id="table-skill-1"' in page
    section = _section(path, [runs["mixed"]])
    for t in view(section)["tables"]:
        assert t["sentence"] in page
    assert "at a table of 4 with 3 random seats, against a fair 25.0%" in page
    assert "of games to 500" in page and "of games to 200" in page
    plain = tmp_path / "p.html"
    build_report(db_path=path, out=plain, run_ids=[runs["plain"]], index=False)
    assert '<section id="skill">' not in plain.read_text()
