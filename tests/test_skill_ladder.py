"""The skill ladder (scenario/ladder.py, games/ladder.py, ``unostats skill``): the section's
problems with file, line, key and allowed values; a tiny ladder run whose cells, seats and
printed numbers are the store's rows; the relative skill's delta-method interval on counts made
by hand; the report's How it plays section showing the ladder."""

from __future__ import annotations

import csv
import io
import json
import math

import duckdb
import pytest

from unostats.games.ladder import RELATIVE_METHOD, relative_skill
from unostats.output import format_interval
from unostats.scenario import ScenarioError, load_text
from unostats.stats import wilson_interval

BASE = """name: ladder
seed: 11
games: 8
players: [2, 3]
seats: {policy: random}
variants:
  - name: official
  - name: stacking
    rules: {stack_draw_two: sum}
"""
SKILL = """skill:
  ladder: [random, strategist, expert, clairvoyant]
  budget: 4
"""


def _problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load_text(text, "s.yaml")
    return [str(p) for p in info.value.problems]


def test_the_section_expands_into_a_cell_per_variant_players_and_rung():
    sc = load_text(BASE + SKILL, "s.yaml")
    cells = list(sc.cells())
    assert [(c.variant.name, c.players) for c in cells] == [
        (f"{v}/{r}", n) for v in ("official", "stacking") for n in (2, 3)
        for r in ("random", "strategist", "expert", "clairvoyant")]
    for c in cells:
        rung = c.variant.name.split("/")[1]
        assert [s.policy for s in c.seats] == [rung] + ["random"] * (c.players - 1)
        search = c.seats[0].search
        if rung in ("expert", "clairvoyant"):
            assert (search.budget, search.playout, search.sees) == (
                4, "strategist", "all" if rung == "clairvoyant" else "own")
        else:
            assert search is None
    # the resolved section loads again (a stored run's scenario is read back from it)
    again = load_text(json.dumps(sc.resolved()), "resolved.json")
    assert again.hash() == sc.hash() and again.skill == sc.skill
    # the section is part of what the hash identifies
    assert sc.hash() != load_text(BASE + SKILL.replace("budget: 4", "budget: 5"), "s.yaml").hash()


def test_a_policy_written_as_data_is_a_rung_of_its_own_name():
    sc = load_text(BASE + """skill:
  ladder: [random, {name: tuned, weights: {points: 1}}, expert, clairvoyant]
""", "s.yaml")
    names = [name for name, _ in sc.skill.rungs]
    assert names == ["random", "tuned", "expert", "clairvoyant"]
    assert {c.variant.name for c in sc.cells()} >= {"official/tuned", "stacking/tuned"}
    from unostats.games.ladder import CellLadder, Rung, tuned_note
    cells = [CellLadder("r", "official", 2, tuple(Rung(n, 1, 2, 1, 2) for n in names))]
    assert tuned_note(cells).startswith("Tuned policy: tuned (written as data)")


def test_the_sections_problems_name_file_line_key_and_allowed_values():
    problems = _problems(BASE + """skill:
  ladder: [random, wizard, expert, expert]
  budget: 0
  playout: nope
  colour: red
""")
    text = "\n".join(problems)
    assert "s.yaml:12: skill.budget: 0 is out of range: expected an integer from 1" in text
    assert "s.yaml:13: skill.playout: unknown value 'nope'; " in text
    assert "allowed: random, first_legal" in text
    assert "s.yaml:14: skill.colour:" in text and "ladder, budget, playout, goal" in text
    fixed = _problems(BASE + """skill:
  ladder: [random, wizard, expert, expert]
""")
    assert any(p.startswith("s.yaml:11: skill.ladder[1]: unknown rung 'wizard'; ") and
               "allowed: a bundled policy (random, " in p and "expert or clairvoyant" in p
               for p in fixed), fixed
    assert any(p.startswith("s.yaml:11: skill.ladder[3]: rung 'expert' repeats rung 2")
               for p in fixed), fixed
    assert any("skill.ladder: expected a list of at least two rungs" in p
               for p in _problems(BASE + "skill: {ladder: [random]}\n"))


def test_a_ladder_plays_plain_games_at_one_table():
    listed = _problems(BASE.replace("seats: {policy: random}",
                                    "seats: [{policy: random}, {policy: random}, "
                                    "{policy: random}]") + SKILL)
    assert any(p.startswith("s.yaml:5: seats: with skill: give one seat mapping") for p in listed)
    swept = _problems(BASE + SKILL + "sweep: {rules.uno_penalty: [2, 4]}\n")
    assert any("sweep: not used with skill" in p for p in swept), swept
    league = _problems("""name: l
games: 10
variants: [{name: official}]
league: {policies: [random, strategist], table_size: 2}
""" + SKILL)
    assert any("skill: not used in a tournament, league or design scenario" in p
               for p in league), league


def test_relative_skill_is_the_ratio_of_differences_with_its_delta_interval():
    # e = 0.60, r = 0.25, c = 0.75 of 100 each: s = 0.35 / 0.5 = 0.7
    e = relative_skill((60, 100), (25, 100), (75, 100))
    assert e.value == pytest.approx(0.7)
    var = (0.6 * 0.4 / 100 + 0.7 ** 2 * 0.75 * 0.25 / 100 + 0.3 ** 2 * 0.25 * 0.75 / 100) / 0.25
    assert e.se == pytest.approx(math.sqrt(var))
    assert (e.lo, e.hi) == pytest.approx((0.7 - 1.96 * math.sqrt(var), 0.7 + 1.96 * math.sqrt(var)))
    assert e.n == 300 and e.method == RELATIVE_METHOD
    # the delta method against a brute-force check: the ratio's spread over draws of the shares
    import numpy as np
    rng = np.random.default_rng(5)
    draws = [rng.binomial(4000, p, 20000) / 4000 for p in (0.6, 0.25, 0.75)]
    ratio = (draws[0] - draws[1]) / (draws[2] - draws[1])
    big = relative_skill((2400, 4000), (1000, 4000), (3000, 4000))
    assert big.se == pytest.approx(float(ratio.std()), rel=0.05)
    # no scale when the clairvoyant is no better than random, or a rung never played
    assert relative_skill((60, 100), (50, 100), (50, 100)) is None
    assert relative_skill((60, 100), (50, 100), (40, 100)) is None
    assert relative_skill((0, 0), (25, 100), (75, 100)) is None


@pytest.fixture(scope="module")
def ladder_run(tmp_path_factory, invoke):
    folder = tmp_path_factory.mktemp("ladder")
    scenario = folder / "ladder.yaml"
    scenario.write_text(BASE + SKILL)
    db = folder / "x.duckdb"
    result = invoke("simulate", scenario, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    assert "The skill ladder:" in result.stdout  # simulate's summary ends with the ladder
    assert result.stdout.endswith("written as data)\n")  # its last line whole
    return db


def _counts(db) -> dict[tuple[str, int], tuple[int, int, int, int]]:
    """Cell -> (rounds seat 0 won, rounds with a winner, games seat 0 won, games with one),
    counted from the views every user queries."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rounds = {(v, p): (w, n) for v, p, w, n in con.execute(
            "SELECT variant, players, count(*) FILTER (WHERE winner_seat = 0), count(*) "
            "FROM rounds WHERE ended_by = 'win' GROUP BY ALL").fetchall()}
        games = {(v, p): (w, n) for v, p, w, n in con.execute(
            "SELECT variant, players, count(*) FILTER (WHERE winner_seat = 0), count(*) "
            "FROM games WHERE winner_seat IS NOT NULL GROUP BY ALL").fetchall()}
        seats = con.execute("SELECT variant, seat, list(DISTINCT policy) FROM game_seats "
                            "GROUP BY ALL").fetchall()
    finally:
        con.close()
    for variant, seat, policies in seats:
        assert policies == ([variant.split("/")[1]] if seat == 0 else ["random"])
    return {k: (*rounds[k], *games[k]) for k in games}


def test_a_ladder_run_stores_its_cells_and_prints_the_stores_numbers(ladder_run, invoke):
    counts = _counts(ladder_run)
    assert set(counts) == {(f"{v}/{r}", n) for v in ("official", "stacking") for n in (2, 3)
                           for r in ("random", "strategist", "expert", "clairvoyant")}
    out = invoke("skill", "--db", ladder_run, "--format", "csv")
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert len(rows) == len(counts)
    for row in rows:
        rw, rn, gw, gn = counts[f"{row['variant']}/{row['rung']}", int(row["players"])]
        assert (int(row["round_wins"]), int(row["rounds"]), int(row["game_wins"]),
                int(row["games"])) == (rw, rn, gw, gn)
        share = wilson_interval(gw, gn)
        assert float(row["game_share_lo"]) == pytest.approx(share.lo)
        cell = {r: counts[f"{row['variant']}/{r}", int(row["players"])]
                for r in ("expert", "random", "clairvoyant")}
        expected = relative_skill(*((g, n) for _, _, g, n in cell.values()))
        got = row["relative_skill_games"]
        assert (got == "") == (expected is None)
        if expected is not None:
            assert float(got) == pytest.approx(expected.value)
            assert float(row["relative_skill_games_hi"]) == pytest.approx(expected.hi)
    table = invoke("skill", "--db", ladder_run)
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    for (variant, players), (rw, rn, gw, gn) in counts.items():
        base, rung = variant.split("/")
        line = next(ln for ln in lines if ln.split()[1:4] == [base, str(players), rung])
        g = wilson_interval(gw, gn)
        assert format_interval(100 * g.value, 100 * g.lo, 100 * g.hi) in line
    assert "Relative skill" in table.stdout and RELATIVE_METHOD in table.stdout
    assert "Tuned policy: not tuned" in table.stdout


def test_skill_refuses_a_run_without_a_ladder(ladder_run, invoke, tmp_path):
    plain = tmp_path / "p.yaml"
    plain.write_text(BASE)
    db = tmp_path / "p.duckdb"
    assert invoke("simulate", plain, "--db", db, "-q", "--games", "2").exit_code == 0
    con = duckdb.connect(str(db), read_only=True)
    (run_id,), = con.execute("SELECT run_id FROM runs").fetchall()
    con.close()
    result = invoke("skill", run_id, "--db", db)
    assert result.exit_code == 2 and f"run {run_id} has no skill ladder" in result.stderr
    latest = invoke("skill", "--db", db)
    assert latest.exit_code == 2 and "no run in this database has a skill ladder" in \
        latest.stderr


def test_the_report_shows_the_ladder(ladder_run, tmp_path):
    from unostats.report.build import build_report

    out = build_report(db_path=ladder_run, out=tmp_path / "r.html", index=False)
    html = out.read_text()
    assert 'id="table-ladder"' in html and 'id="fig-ladder"' in html
    assert "Tuned policy: not tuned (the ladder names no policy written as data)." in html
    section = html[html.index('id="skill-ladder"'):]
    section = section[:section.index("</table>")]
    counts = _counts(ladder_run)
    for rung in ("random", "strategist", "expert", "clairvoyant"):
        assert f'<td class="l">{rung}</td>' in section
    # the official 2-player random rung's game share, as the report writes a rate
    from unostats.base.format import fmt_estimate
    _, _, gw, gn = counts["official/random", 2]
    shown = fmt_estimate(wilson_interval(gw, gn), "rate")
    assert f"{shown['value']} <span class=\"ci\">{shown['interval']}</span>" in section
    for level, (wins, n) in (("rounds", (0, 1)), ("games", (2, 3))):
        defined = [relative_skill(*((counts[f"{v}/{r}", p][wins], counts[f"{v}/{r}", p][n])
                                    for r in ("expert", "random", "clairvoyant")))
                   for v in ("official", "stacking") for p in (2, 3)]
        assert (f"relative skill</b>, on {level}" in section) == any(defined)


def test_a_ladder_game_replays_from_the_stored_scenario(ladder_run, invoke):
    for variant in ("official/clairvoyant", "stacking/expert"):
        result = invoke("replay", "latest", "--game", "1", "--variant", variant, "--players", "3",
                        "--db", ladder_run)
        assert result.exit_code == 0, result.output
