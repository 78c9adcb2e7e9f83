"""Tournament runs with the engine: the stored rows add up (every stage's advancers play the next
stage, one champion per tournament, every table's game stored once), determinism (any batch
size, resume after a stop, one tournament played alone), the views against a recomputation in
Python, replay of a table's game, export, the CLI summary and the report's championship section."""

from __future__ import annotations

import json
import math
import signal
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl
import pytest

from unostats import stats, store
from unostats.engine.simulate import simulate_batches
from unostats.base.query import export
from unostats.runs.replay import replay
from unostats.base.signals import StopRequest
from unostats.runs.simulate import resume, simulate
from unostats.tournaments.driver import EngineTables, cells
from unostats.scenario import load_scenario
from unostats.tournaments.spec import tables as tournament_store
from unostats.tournaments.spec.bracket import TableGame

CUP = """\
name: cup
description: A small cup for tests.
seed: 17
games: 12
variants:
  - name: tour
    rules: {first_card: number_only, wild_draw_four: free, target_score: 200}
tournament:
  entrants: 16
  table_size: 5
  consolation: true
  stages:
    - name: group
      advance:
        - {entrants_at_most: 12, advance: 3}
        - {advance: 2}
    - {name: semifinal, advance: 1}
    - {name: final}
  profiles:
    careless: {policy: random, behaviour: {forget_uno: 0.5, catch_uno: 0.1}}
    steady: {policy: wild_last}
  fields:
    - name: mixed
      mix: {careless: 8, steady: rest}
    - name: lone
      entrants: 10
      mix: {steady: 1, careless: rest}
"""
TOURNAMENT_TABLES = tournament_store.TOURNAMENT_TABLES


def write(folder: Path, text: str = CUP) -> Path:
    path = folder / "cup.yaml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def snapshot(stored_rows, game_tables):
    """``snapshot(db, run_id=None)``: every stored row of one run (the only run if None), the
    tournament tables too, without the run id, sorted."""
    def read(db: Path, run_id: str | None = None) -> dict[str, list[tuple]]:
        return stored_rows(db, (*game_tables, *TOURNAMENT_TABLES, "variants"),
                           "status, seed, games_requested, games_completed, scenario_hash",
                           run_id)
    return read


def rows(con, sql: str, params=None) -> list[dict]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


@pytest.fixture(scope="module")
def cup(snapshot, tmp_path_factory):
    folder = tmp_path_factory.mktemp("cup")
    path = write(folder)
    db = folder / "cup.duckdb"
    outcome = simulate(scenario=load_scenario(path), db=db)
    assert outcome.status == "complete"
    return {"path": path, "db": db, "outcome": outcome, "rows": snapshot(db),
            "scenario": load_scenario(path).with_seed(17)}


@pytest.fixture()
def con(cup):
    c = store.open_store(cup["db"], read_only=True)
    yield c
    c.close()


# --- The stored rows add up ---------------------------------------------------------------------

def test_run_is_complete_with_every_table_game(cup, con):
    sc = cup["scenario"]
    outcome = cup["outcome"]
    spec = sc.tournament
    per_t = {f.name: spec.games_per_tournament(f) for f in spec.fields}
    expected = sc.games * sum(per_t.values())
    assert outcome.games_requested == outcome.games_completed == expected
    assert outcome.tournaments_played == 2 * sc.games
    info = store.run_info(con, outcome.run_id)
    assert info["status"] == "complete" and info["games_completed"] == expected
    assert con.execute("SELECT count(*) FROM games").fetchall()[0][0] == expected
    # Every table names a stored game of its size, and every stored game is one table's.
    assert con.execute("""
        SELECT count(*) FROM tournament_tables t
        JOIN games g ON g.run_id = t.run_id AND g.variant = t.variant
         AND g.players = t.players AND g.game = t.game""").fetchall()[0][0] == expected
    distinct = con.execute(
        "SELECT count(DISTINCT (variant, players, game)) FROM tournament_tables").fetchall()
    assert distinct[0][0] == expected
    for name, n in per_t.items():
        got = con.execute("SELECT tournament, count(*) FROM tournament_tables WHERE field = ? "
                          "GROUP BY ALL", [name]).fetchall()
        assert sorted(got) == [(t, n) for t in range(sc.games)]
    assert tournament_store.duplicate_keys(con) == dict.fromkeys(tournament_store.RESULT_KEYS, 0)
    assert store.duplicate_keys(con) == dict.fromkeys(store.RESULT_KEYS, 0)


def test_each_stage_plays_the_previous_stages_advancers(con):
    tables = rows(con, "SELECT * FROM tournament_tables ORDER BY field, tournament, bracket, "
                       "stage, table_no")
    stages = rows(con, "SELECT * FROM tournament_stages ORDER BY field, bracket, step")
    plan = defaultdict(list)
    for s in stages:
        plan[(s["field"], s["bracket"])].append(s)
    by = defaultdict(list)
    for t in tables:
        by[(t["field"], t["tournament"], t["bracket"], t["stage"])].append(t)
    tournaments = {(r["field"], r["tournament"]): r for r in rows(con, "SELECT * FROM tournaments")}
    for (fld, t), tour in tournaments.items():
        for bracket in ("main", "consolation"):
            previous = None
            for s in plan[(fld, bracket)]:
                at = by[(fld, t, bracket, s["stage"])]
                assert [len(x["entrants"]) for x in at] == list(s["table_sizes"])
                players = sorted(e for x in at for e in x["entrants"])
                assert len(players) == len(set(players)) == s["players"]
                if previous is not None:
                    assert players == sorted(e for x in previous for e in x["advancers"])
                for x in at:
                    assert x["advancers"] == x["finish"][:x["advance"]]
                    assert sorted(x["finish"]) == sorted(x["entrants"])
                previous = at
            if previous:
                assert len(previous) == 1
                champion = previous[0]["finish"][0]
                key = "champion" if bracket == "main" else "consolation_champion"
                assert tour[key] == champion
        first = by[(fld, t, "main", plan[(fld, "main")][0]["stage"])]
        losers = {e for x in first for e in x["entrants"]} - {e for x in first
                                                              for e in x["advancers"]}
        cons = {e for x in tables if x["field"] == fld and x["tournament"] == t
                and x["bracket"] == "consolation" for e in x["entrants"]}
        assert cons == losers


def test_exactly_one_champion_per_tournament(cup, con):
    got = con.execute("""
        SELECT field, tournament, count(*) FILTER (WHERE is_champion),
          count(*) FILTER (WHERE place = 1), count(*) FILTER (WHERE is_consolation_champion),
          count(*) FILTER (WHERE consolation_place = 1), count(*)
        FROM tournament_entrants GROUP BY ALL""").fetchall()
    assert len(got) == 2 * cup["scenario"].games
    for fld, _, champs, firsts, cons, cons_firsts, n in got:
        assert (champs, firsts, cons, cons_firsts) == (1, 1, 1, 1)
        assert n == {"mixed": 16, "lone": 10}[fld]
    assert con.execute("""SELECT count(*) FROM tournaments t JOIN tournament_entrants e
        USING (run_id, variant, field, tournament)
        WHERE e.is_champion AND (e.entrant != t.champion OR e.profile != t.champion_profile)
    """).fetchall()[0][0] == 0


def test_finish_follows_the_games_ranks_and_tie_breaks(con):
    tables = rows(con, "SELECT * FROM tournament_tables")
    seats = defaultdict(dict)
    for r in rows(con, "SELECT variant, players, game, seat, rank FROM game_seats"):
        seats[(r["variant"], r["players"], r["game"])][r["seat"]] = r["rank"]
    won = Counter((r["variant"], r["players"], r["game"], r["winner_seat"]) for r in rows(
        con, "SELECT variant, players, game, winner_seat FROM rounds "
             "WHERE winner_seat IS NOT NULL"))
    decided = Counter()
    for t in tables:
        key = (t["variant"], t["players"], t["game"])
        seat_of = {e: s for s, e in enumerate(t["entrants"])}
        ranks = [seats[key][seat_of[e]] for e in t["finish"]]
        assert ranks == sorted(ranks)
        wins = [won[(*key, seat_of[e])] for e in t["finish"]]
        for i in range(len(ranks) - 1):  # equal rank: more rounds won first
            if ranks[i] == ranks[i + 1]:
                assert wins[i] >= wins[i + 1]
        boundary = 1 if t["advance"] == 0 else t["advance"]
        a, b = t["finish"][boundary - 1], t["finish"][boundary]
        expected = "rank" if ranks[boundary - 1] != ranks[boundary] else \
            "rounds_won" if wins[boundary - 1] != wins[boundary] else None
        if expected:
            assert t["decided_by"] == expected, (t, a, b)
        else:
            assert t["decided_by"] in ("hand_points", "lot")
        decided[t["decided_by"]] += 1
    assert decided["rank"] > 0


def test_first_stage_seats_and_positions(con):
    firsts = {(r["field"], r["tournament"], r["table_no"]): r for r in rows(
        con, "SELECT * FROM tournament_tables WHERE bracket = 'main' AND stage = 0")}
    positions = {(r["players"], r["game"], r["seat"]): r["position"] for r in rows(
        con, "SELECT players, game, seat, position FROM round_seats WHERE round = 1")}
    for e in rows(con, "SELECT * FROM tournament_entrants"):
        t = firsts[(e["field"], e["tournament"], e["first_table"])]
        assert t["entrants"][e["first_seat"]] == e["entrant"]
        assert e["first_table_players"] == t["players"]
        assert e["first_position"] == positions[(t["players"], t["game"], e["first_seat"])]
        assert e["advanced_first"] == (e["entrant"] in t["advancers"])
        assert t["profiles"][e["first_seat"]] == e["profile"]


# --- Determinism ---------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", [1, 5])
def test_rows_do_not_depend_on_batch_size(snapshot, cup, tmp_path, batch):
    db = tmp_path / f"b{batch}.duckdb"
    outcome = simulate(scenario=load_scenario(cup["path"]), db=db, batch_games=batch)
    assert outcome.status == "complete"
    got, want = snapshot(db), cup["rows"]
    for table in want:
        assert got[table] == want[table], table


def test_resume_equals_uninterrupted(snapshot, stop_after, cup, tmp_path):
    db = tmp_path / "r.duckdb"
    stop = StopRequest()
    first = simulate(scenario=load_scenario(cup["path"]), db=db, batch_games=4,
                         progress=stop_after(stop, 2), stop=stop)
    assert first.status == "interrupted"
    con = store.open_store(db, read_only=True)
    try:
        assert tournament_store.completed_by_field(con, first.run_id) == {
            ("tour", "mixed"): 8, ("tour", "lone"): 0}
        assert store.run_info(con, first.run_id)["status"] == "interrupted"
    finally:
        con.close()
    stop = StopRequest()
    second = resume(run=first.run_id, db=db, batch_games=3, progress=stop_after(stop, 3),
                        stop=stop)
    assert second.status == "interrupted"
    third = resume(run=first.run_id, db=db)
    assert third.status == "complete"
    got, want = snapshot(db), cup["rows"]
    for table in want:
        assert got[table] == want[table], table


def test_sigint_keeps_whole_batches_and_the_resume_equals_an_uninterrupted_run(cli_process,
                                                                               snapshot, tmp_path):
    path = write(tmp_path, CUP.replace("games: 12", "games: 150"))
    reference = tmp_path / "ref.duckdb"
    assert simulate(scenario=load_scenario(path), db=reference).status == "complete"
    db = tmp_path / "run.duckdb"
    # the next batch plays while one is stored
    proc = cli_process.start_simulate(path, db, batch_games=3)
    cli_process.wait_for_stored_batch(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and out == ""
    con = store.open_store(db, read_only=True)
    try:
        (run_id, status, done), = con.execute(
            "SELECT run_id, status, games_completed FROM runs").fetchall()
        stored = tournament_store.completed_by_field(con, run_id)
        counts = [con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
                  for t in ("games", "tournament_tables")]
    finally:
        con.close()
    assert status == "interrupted" and 0 < sum(stored.values()) < 300
    assert all(n % 3 == 0 for n in stored.values())  # whole batches, whole tournaments
    spec = load_scenario(path).tournament
    per_t = {f.name: spec.games_per_tournament(f) for f in spec.fields}
    assert counts == [done] * 2 == [sum(n * per_t[f] for (_, f), n in stored.items())] * 2
    assert f"Resume with: unostats simulate --resume {run_id} --db {db}" in err
    assert resume(run=run_id, db=db).status == "complete"
    got, want = snapshot(db), snapshot(reference)
    for table in want:
        assert got[table] == want[table], table


def test_a_tournament_is_a_pure_function_of_its_index(check_tournament, cup, con,
                                                      play_tournament):
    sc = cup["scenario"]
    cell = cells(sc)[1]  # the lone field
    alone = play_tournament(sc.tournament, cell.field, seed=sc.seed, index=7,
                            play_tables=EngineTables(cell.variant))
    check_tournament(sc.tournament, alone)
    stored = rows(con, "SELECT * FROM tournament_tables WHERE field = 'lone' AND tournament = 7 "
                       "ORDER BY bracket = 'consolation', stage, table_no")
    assert [(t["game_seed"], tuple(t["entrants"]), tuple(t["finish"]), t["decided_by"])
            for t in stored] == [(t.game_seed, t.entrants, t.finish, t.decided_by)
                                 for t in alone.tables]
    # ... and its games are the stored games, turn for turn.
    turns = [con.execute("SELECT turns FROM games WHERE variant = ? AND players = ? AND game = ?",
                         [t["variant"], t["players"], t["game"]]).fetchall()[0][0]
             for t in stored]
    assert turns == [t.game.turns for t in alone.tables]


def per_game_tables(variant):
    """The per-game path the runs took before ``simulate_tables``: one ``simulate_batches`` call
    per table (game 0 of the table's seed), read back per seat from its frames."""
    def play(asks):
        games = []
        for seats, seed in asks:
            n = len(seats)
            b = next(iter(simulate_batches(rules=variant.rules, players=n, seats=seats, games=1,
                                           seed=seed, threads=1)))
            rs = b.round_seats
            games.append(TableGame(
                rank=tuple(b.game_seats.sort("seat")["rank"].to_list()),
                rounds_won=tuple(b.rounds.filter(pl.col("winner_seat") == s).height
                                 for s in range(n)),
                first_position=tuple(rs.filter(pl.col("round") == 1).sort("seat")["position"]),
                rounds=b.games["rounds"][0], turns=b.games["turns"][0],
                hand_points=tuple(int(rs.filter(pl.col("seat") == s)["hand_points"].sum())
                                  for s in range(n)),
                payload=b))
        return games
    return play


def test_the_stored_run_is_what_the_per_game_path_plays(game_tables, cup, con, play_tournaments):
    """Every stored tournament (draws, tie-breaks, finishes, entrants' results) and every table's
    stored game rows equal what one engine call per table gives."""
    sc = cup["scenario"]
    for cell in cells(sc):
        old = play_tournaments(sc.tournament, cell.field, seed=sc.seed, indices=range(sc.games),
                               play_tables=per_game_tables(cell.variant))
        stored = rows(con, "SELECT * FROM tournament_tables WHERE field = ? ORDER BY tournament, "
                           "bracket = 'consolation', stage, table_no", [cell.field.name])
        assert [(t["tournament"], t["game_seed"], t["entrants"], t["profiles"], t["finish"],
                 t["advancers"], t["decided_by"]) for t in stored] == [
            (r.index, t.game_seed, list(t.entrants), list(t.profiles), list(t.finish),
             list(t.advancers), t.decided_by) for r in old for t in r.tables]
        entrants = rows(con, "SELECT tournament, entrant, place, first_position, "
                             "consolation_place FROM tournament_entrants WHERE field = ? "
                             "ORDER BY tournament, entrant", [cell.field.name])
        assert [tuple(e.values()) for e in entrants] == [
            (r.index, e.entrant, e.main.place, e.first_position,
             e.consolation.place if e.consolation else None) for r in old for e in r.entrants]
        for t, table in zip(stored, (t for r in old for t in r.tables)):
            for name in game_tables:
                got = con.execute(f"SELECT * EXCLUDE (run_id, variant, players, game) FROM {name} "
                                  "WHERE players = ? AND game = ?", [t["players"], t["game"]])
                want = getattr(table.game.payload, name).drop("game")
                assert got.fetchall() == want.rows(), (name, t["tournament"], t["game"])


def test_tournaments_of_the_engine_keep_the_bracket_invariants(check_tournament, cup,
                                                               play_tournament):
    sc = cup["scenario"]
    for cell in cells(sc):
        for index in (0, 5):
            result = play_tournament(sc.tournament, cell.field, seed=sc.seed, index=index,
                                     play_tables=EngineTables(cell.variant))
            check_tournament(sc.tournament, result)


# --- Views against Python ---------------------------------------------------------------------

def test_profile_wins_view(cup, con):
    entrants = rows(con, "SELECT * FROM tournament_entrants")
    view = {(r["field"], r["profile"]): r for r in rows(
        con, "SELECT * FROM tournament_profile_wins")}
    n_t = cup["scenario"].games
    field_size = {"mixed": 16, "lone": 10}
    counts = Counter((e["field"], e["profile"]) for e in entrants)
    wins = Counter((e["field"], e["profile"]) for e in entrants if e["is_champion"])
    cons = Counter((e["field"], e["profile"]) for e in entrants if e["is_consolation_champion"])
    assert set(view) == set(counts)
    for key, r in view.items():
        per = counts[key] // n_t
        assert r["entrants"] == per and r["tournaments"] == n_t
        assert r["wins"] == wins[key] and r["consolation_wins"] == cons[key]
        w = stats.wilson_interval(wins[key], n_t)
        assert r["rate"] == pytest.approx(wins[key] / n_t / per)
        assert r["lo"] == pytest.approx(w.lo / per) and r["hi"] == pytest.approx(w.hi / per)
        assert r["fair"] == pytest.approx(1 / field_size[key[0]])
        assert r["edge"] == pytest.approx(wins[key] / n_t / per * field_size[key[0]])
    assert sum(r["wins"] for r in view.values()) == 2 * n_t


def test_profile_stages_view(cup, con):
    entrants = rows(con, "SELECT * FROM tournament_entrants")
    stages = rows(con, "SELECT * FROM tournament_stages WHERE bracket = 'main'")
    view = {(r["field"], r["profile"], r["stage"]): r for r in rows(
        con, "SELECT * FROM tournament_profile_stages")}
    n_t = cup["scenario"].games
    field_size = {"mixed": 16, "lone": 10}
    for s in stages:
        for profile in {e["profile"] for e in entrants if e["field"] == s["field"]}:
            mine = [e for e in entrants if e["field"] == s["field"] and e["profile"] == profile]
            per = len(mine) // n_t
            reached = [sum(e["stage"] >= s["stage"] for e in mine if e["tournament"] == t)
                       for t in range(n_t)]
            r = view[(s["field"], profile, s["stage"])]
            assert r["reached"] == sum(reached) and r["entrants"] == per
            assert r["rate"] == pytest.approx(sum(reached) / n_t / per)
            if per == 1:
                w = stats.wilson_interval(sum(reached), n_t)
                assert (r["lo"], r["hi"]) == (pytest.approx(w.lo), pytest.approx(w.hi))
            else:
                e = stats.mean_se(reached)
                assert r["se"] * per == pytest.approx(e.se if e.se == e.se else 0, abs=1e-12)
            assert r["fair"] == pytest.approx(s["players"] / field_size[s["field"]])
    assert len(view) == sum(len({e["profile"] for e in entrants if e["field"] == s["field"]})
                            for s in stages)


def _stage_games(con):
    return rows(con, """SELECT t.field, t.tournament, t.bracket, t.stage, g.rounds, g.turns
        FROM tournament_tables t JOIN games g ON g.run_id = t.run_id AND g.variant = t.variant
        AND g.players = t.players AND g.game = t.game""")


def test_stage_length_view(con):
    games = _stage_games(con)
    view = rows(con, "SELECT * FROM tournament_stage_length")
    assert len(view) == len({(g["field"], g["bracket"], g["stage"]) for g in games})
    for r in view:
        mine = [g for g in games if (g["field"], g["bracket"], g["stage"]) ==
                (r["field"], r["bracket"], r["stage"])]
        assert r["games"] == len(mine)
        assert r["mean_turns"] == pytest.approx(sum(g["turns"] for g in mine) / len(mine))
        assert r["mean_rounds"] == pytest.approx(sum(g["rounds"] for g in mine) / len(mine))
        longest = defaultdict(int)
        for g in mine:
            longest[g["tournament"]] = max(longest[g["tournament"]], g["turns"])
        assert r["tournaments"] == len(longest)
        assert r["mean_longest_turns"] == pytest.approx(sum(longest.values()) / len(longest))
        e = stats.mean_se(list(longest.values()))
        if math.isfinite(e.se):
            assert r["se_longest_turns"] == pytest.approx(e.se)


def test_evening_view(cup, con):
    games = _stage_games(con)
    longest = defaultdict(int)
    for g in games:
        key = (g["field"], g["tournament"], g["bracket"], g["stage"])
        longest[key] = max(longest[key], g["turns"])
    view = {r["field"]: r for r in rows(con, "SELECT * FROM tournament_length")}
    for fld in ("mixed", "lone"):
        evenings = []
        for t in range(cup["scenario"].games):
            main = sorted((k[3], v) for k, v in longest.items()
                          if k[:3] == (fld, t, "main"))
            cons = sum(v for k, v in longest.items() if k[:3] == (fld, t, "consolation"))
            first = main[0][1]
            later = sum(v for _, v in main[1:])
            evenings.append(first + max(later, cons))
        assert view[fld]["mean_turns"] == pytest.approx(sum(evenings) / len(evenings))
        assert view[fld]["tournaments"] == len(evenings)


def test_advance_by_position_view(con):
    entrants = rows(con, "SELECT * FROM tournament_entrants")
    view = rows(con, "SELECT * FROM tournament_advance_by_position")
    advance = {r["field"]: r["advance"] for r in rows(
        con, "SELECT field, advance FROM tournament_stages WHERE bracket = 'main' AND step = 0")}
    n = Counter((e["field"], e["first_table_players"], e["first_position"]) for e in entrants)
    adv = Counter((e["field"], e["first_table_players"], e["first_position"]) for e in entrants
                  if e["advanced_first"])
    assert {(r["field"], r["players"], r["position"]) for r in view} == set(n)
    for r in view:
        key = (r["field"], r["players"], r["position"])
        assert (r["n"], r["advanced"]) == (n[key], adv[key])
        w = stats.wilson_interval(adv[key], n[key])
        assert (r["lo"], r["hi"]) == (pytest.approx(w.lo), pytest.approx(w.hi))
        assert r["fair"] == pytest.approx(advance[r["field"]] / r["players"])
    # Every table has one seat at each position, so n is equal across a table size's positions.
    for (fld, size) in {(r["field"], r["players"]) for r in view}:
        assert len({r["n"] for r in view if (r["field"], r["players"]) == (fld, size)}) == 1


def test_decided_by_view(con):
    tables = rows(con, "SELECT * FROM tournament_tables")
    view = rows(con, "SELECT * FROM tournament_decided_by")
    for r in view:
        mine = [t for t in tables if (t["field"], t["bracket"], t["stage"]) ==
                (r["field"], r["bracket"], r["stage"])]
        c = Counter(t["decided_by"] for t in mine)
        assert (r["tables"], r["by_rank"], r["by_rounds_won"], r["by_hand_points"],
                r["by_lot"]) == (len(mine), c["rank"], c["rounds_won"], c["hand_points"],
                                 c["lot"])


# --- Replay, export, CLI, report -----------------------------------------------------------------

def test_replay_of_a_table_game_agrees_with_the_store(cup, con):
    t = rows(con, "SELECT variant, players, game FROM tournament_tables "
                  "WHERE field = 'mixed' AND tournament = 3 AND bracket = 'consolation' "
                  "ORDER BY stage DESC LIMIT 1")[0]
    con.close()
    result = replay(run=cup["outcome"].run_id, db=cup["db"], game=t["game"],
                        variant=t["variant"], players=t["players"])
    assert result.referee_error is None and result.mismatches == []
    assert result.trace_text


def test_export_includes_the_tournament_tables(cup, tmp_path):
    paths = export(run=cup["outcome"].run_id, out=tmp_path / "x", fmt="csv", db=cup["db"])
    names = [p.name for p in paths]
    assert names == [f"{t}.csv" for t in (*store.EXPORT_TABLES, *TOURNAMENT_TABLES)]
    assert (tmp_path / "x" / "tournaments.csv").read_text().count("\n") == 1 + 2 * 12


def test_cli_simulate_prints_the_tournament_summary(invoke, cup, tmp_path):
    db = tmp_path / "cli.duckdb"
    result = invoke("simulate", cup["path"], "--games", 3, "--db", db, "-q")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "win chance per entrant (%) [95% CI]" in out and "longest table, turns" in out
    assert "evening, turns" in out and "semifinal" in out
    result = invoke("simulate", cup["path"], "--games", 3, "--db", db, "-q", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {r["field"] for r in data} == {"mixed", "lone"}
    assert {r["profile"] for r in data if r["field"] == "lone"} == {"steady", "careless"}
    for r in data:
        assert r["win_rate_lo"] <= r["win_rate"] <= r["win_rate_hi"]
        assert r["tournaments"] == 3
    assert sum(r["wins"] for r in data) == 2 * 3


def test_cli_validate_names_the_fields(invoke, cup):
    result = invoke("validate", cup["path"])
    assert result.exit_code == 0
    assert "1 variant x 2 fields = 2 tournament cells; mixed: 16 entrants" in result.stdout


def test_cli_query_the_views(invoke, cup):
    result = invoke("query", "SELECT field, profile, wins FROM tournament_profile_wins "
                             "ORDER BY field, profile", "--db", cup["db"], "-f", "csv")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "field,profile,wins"


def test_report_has_a_championship_section(cup, tmp_path):
    from unostats.report.build import build_report
    from unostats.report.figures import build_figures
    from unostats.report.model import load_model

    con = store.open_store(cup["db"], read_only=True)
    try:
        model = load_model(con, [cup["outcome"].run_id])
    finally:
        con.close()
    section = model.section("tournament")
    assert section is not None and [f.label for f in section.fields] == ["mixed", "lone"]
    lone = section.fields[1].lone
    assert lone is not None and lone.profile == "steady" and lone.fair == pytest.approx(1 / 10)
    mixed = section.fields[0]
    assert sum(p.titles for p in mixed.profiles) == 12
    assert mixed.positions and mixed.positions[0].players == 4  # 16 entrants at tables of 4
    figs = build_figures(model)
    assert {"fig-tournament-wins", "fig-tournament-reach", "fig-tournament-positions"} <= set(figs)
    path = build_report(db_path=cup["db"], run_ids=[cup["outcome"].run_id],
                        out=tmp_path / "cup.html")
    html = path.read_text()
    assert '<section id="championship">' in html and "8. Reproduction" in html
    assert 'id="table-tournament-lone"' in html and 'id="table-tournament-profiles-1"' in html


def test_the_cycle_collector_is_paused_for_a_batch_only():
    """A batch is played with the cyclic collector off; after it, the collector is as before
    (on, or still off if the caller had turned it off)."""
    import gc

    from unostats.tournaments.driver import _cycle_collector_paused

    assert gc.isenabled()
    with _cycle_collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(KeyError), _cycle_collector_paused():
        raise KeyError("a batch that fails")
    assert gc.isenabled()
    gc.disable()
    try:
        with _cycle_collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_batches_stop_growing_at_the_round_seat_cap(cup):
    """A batch is about TARGET_BATCH_SECONDS of play, but never more round-seat rows than
    MAX_BATCH_SEAT_ROWS at the cell's rows per tournament (small inserts cost DuckDB twice)."""
    from unostats.tournaments import driver as runs_tournaments

    player = runs_tournaments._Player(cup["scenario"], [], threads=1, fixed=None)
    assert player._size(None, 16) == runs_tournaments.FIRST_BATCH  # nothing measured yet
    player._pace = 1e6  # table games per second: time alone would allow 187,500 tournaments
    assert player._size(None, 16) == round(1e6 * runs_tournaments.TARGET_BATCH_SECONDS / 16)
    player._seat_rows = 600.0
    assert player._size(None, 16) == round(runs_tournaments.MAX_BATCH_SEAT_ROWS / 600)
    assert player._size(10, 16) == 10 * runs_tournaments.GROWTH  # growth still bounds it


def test_the_cycle_collector_stays_paused_while_another_thread_pauses_it():
    """The playing and the storing thread pause the collector side by side: it comes back on
    only when the last of them is done."""
    import gc
    import threading

    from unostats.tournaments.driver import _cycle_collector_paused

    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with _cycle_collector_paused():
            inside.set()
            leave.wait(10)

    assert gc.isenabled()
    with _cycle_collector_paused():
        thread = threading.Thread(target=other)
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread still plays its batch
    leave.set()
    thread.join(10)
    assert gc.isenabled()


def test_the_last_batches_of_a_run_taper(cup):
    """Near the end of a run a batch is at most half of the tournaments left, in equal parts,
    but not below TAIL_SECONDS of play nor TAIL_SEAT_ROWS round-seat rows: the last batch,
    whose rows and storing nothing overlaps, is small; far from the end the time target alone
    sizes a batch."""
    from unostats.tournaments import driver as runs_tournaments

    player = runs_tournaments._Player(cup["scenario"], [], threads=1, fixed=None)
    tail = 100  # tournaments of 16 table games in TAIL_SECONDS
    player._pace = tail * 16 / runs_tournaments.TAIL_SECONDS
    full = round(player._pace * runs_tournaments.TARGET_BATCH_SECONDS / 16)
    assert player._size(None, 16, 100 * full) == full
    left, sizes, previous = 1000, [], full
    while left:
        size = player._size(previous, 16, left)
        assert size <= max(math.ceil(left / 2), tail) and size <= left
        sizes.append(size)
        left, previous = left - size, size
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 500 and sizes[-1] <= tail
    assert player._size(None, 16, 80) == 80  # less than the tail: one batch
    player._seat_rows = runs_tournaments.TAIL_SEAT_ROWS / 300  # a row group is 300 tournaments
    assert player._size(None, 16, 280) == 280  # less than a row group: one batch
    assert player._size(None, 16, 500) == 250  # two, in equal parts
    assert player._size(None, 16, 700) == 350  # (below MAX_BATCH_SEAT_ROWS' 366)


def test_the_tournament_summary_fits_a_terminal_and_says_what_it_left_out(cup):
    from unostats.tournaments.summary import EVENING_TABLE, PROFILE_TABLE, summary_text

    run_ids = [cup["outcome"].run_id]
    for width in (80, 200):
        text = summary_text(db=cup["db"], run_ids=run_ids, fmt="table", width=width)
        assert max(map(len, text.splitlines())) <= width
        assert ("left out to fit 80 columns" in text) == (width == 80)
    whole = summary_text(db=cup["db"], run_ids=run_ids, fmt="table")  # a pipe: every column
    assert all(c.head in whole for c in (*PROFILE_TABLE, *EVENING_TABLE))
    rows = json.loads(summary_text(db=cup["db"], run_ids=run_ids, fmt="json"))
    assert all(0 <= r["win_rate"] <= 1 and r["fair"] < 1 for r in rows)  # fractions
