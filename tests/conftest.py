"""What the test modules share, as fixtures (a test module never imports another one):

- the command line: ``invoke`` runs it in-process and fails on any traceback;
  ``cli_process`` runs it as a child process (real signals, kills, a second writer);
- a run's stored rows: ``stored_rows``, ``game_tables`` and ``stop_after`` (a stop after some
  batches, an in-process stand-in for Ctrl-C);
- synthetic store batches: ``make_batch`` and ``start_run`` (plain functions here, so that a
  child process can import them too);
- reports: ``write_run`` (a scenario played by the engine into an open store), the report
  tests' two-run database, ``report_runs`` with its texts in ``report_scenarios``, and
  ``mixed_table_yaml`` (a scenario of mixed tables, for the skill-and-luck section);
- tournaments: ``check_tournament``, the invariants of a played tournament, and
  ``play_tournaments``/``play_tournament``, tournaments read one at a time as objects;
- the browser: ``browser``, headless Chromium with one page (tests/chromium.py drives it),
  skipping the test when Chromium is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence as _Sequence
from dataclasses import dataclass as _dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple as _NamedTuple

import duckdb
import pytest
from typer.testing import CliRunner

from unostats.cli import app
from unostats.tournaments.spec.bracket import (
    DECIDED_BY,
    Field,
    PlayedTournaments,
    StagePlan,
    TableGame,
    TableGames,
    play_batch,
)

SRC = Path(__file__).resolve().parents[1] / "src"


# --- The command line ---------------------------------------------------------------------------

def _invoke(*args, input: str | None = None, env: dict | None = None):
    result = CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    return result


@pytest.fixture(scope="session")
def invoke():
    """``invoke(*args, input=None, env=None)``: ``unostats ARGS`` through Typer's CliRunner;
    fails the test on any traceback or any exception but the command's own exit. The result
    carries ``exit_code``, ``stdout``, ``stderr`` and ``output``."""
    return _invoke


class CliProcess:
    """``unostats`` in a child process, importing this checkout's sources."""

    argv = [sys.executable, "-c", "from unostats.cli import app; app()"]

    @staticmethod
    def env(**extra: str) -> dict[str, str]:
        """The environment of a child: no UNOSTATS_DB, this checkout first on the path."""
        env = dict(os.environ)
        env.pop("UNOSTATS_DB", None)
        env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
        env.update(extra)
        return env

    def start_simulate(self, path: Path, db: Path, *, batch_games: int = 20
                       ) -> subprocess.Popen:
        """``unostats simulate PATH --db DB -v`` running, its stderr (one line a batch) piped."""
        return subprocess.Popen(
            [*self.argv, "simulate", str(path), "--db", str(db), "-v", "--format", "csv"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=self.env(UNOSTATS_BATCH_GAMES=str(batch_games)))

    @staticmethod
    def wait_for_stored_batch(proc: subprocess.Popen, timeout: float = 180) -> list[str]:
        """stderr lines up to the first 'stored batch' line (the engine may compile first);
        the timeout only keeps a broken run from hanging the tests."""
        lines = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("stored batch:"):
                return lines
        proc.kill()
        pytest.fail(f"no batch was stored: {''.join(lines)}")


@pytest.fixture(scope="session")
def cli_process() -> CliProcess:
    """The command line as a child process: ``argv``, ``env(**extra)``, ``start_simulate`` and
    ``wait_for_stored_batch``."""
    return CliProcess()


# --- A run's stored rows ------------------------------------------------------------------------

# The tables of game results, one row per game, seat, round or round seat.
GAME_TABLES = ("games", "game_seats", "rounds", "round_seats")


def _stored_rows(db: Path, tables, runs_columns: str,
                 run_id: str | None = None) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        if run_id is None:
            (run_id,), = con.execute("SELECT run_id FROM runs").fetchall()
        out = {}
        for table in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall() if c != "run_id"]
            out[table] = con.execute(
                f"SELECT {', '.join(cols)} FROM {table} WHERE run_id = ? ORDER BY ALL",
                [run_id]).fetchall()
        out["runs"] = con.execute(
            f"SELECT {runs_columns} FROM runs WHERE run_id = ?", [run_id]).fetchall()
        return out
    finally:
        con.close()


@pytest.fixture(scope="session")
def stored_rows():
    """``stored_rows(db, tables, runs_columns, run_id=None)``: every stored row of ``tables``
    for one run (the only run if None), without the run id, sorted; under "runs", that run's
    ``runs_columns``. Two runs that should agree compare equal row for row."""
    return _stored_rows


@pytest.fixture(scope="session")
def game_tables() -> tuple[str, ...]:
    """The tables of game results, one row per game, seat, round or round seat."""
    return GAME_TABLES


@pytest.fixture(scope="session")
def stop_after():
    """``stop_after(stop, n)``: a progress hook that requests ``stop`` after ``n`` stored
    batches (an in-process stand-in for Ctrl-C)."""
    from unostats.base.progress import Progress

    class StopAfter(Progress):
        def __init__(self, stop, n: int):
            self.stop, self.n, self.seen = stop, n, 0

        def batch_stored(self, *args, **kwargs) -> None:
            self.seen += 1
            if self.seen == self.n:
                self.stop.request()

    return StopAfter


# --- Synthetic store batches (the schemas of engine/simulate.py) -------------------------------

def make_batch(first: int, n_games: int, *, players: int = 4, rounds_per_game: int | None = None,
               seed: int = 0) -> SimpleNamespace:
    """Plausible random frames for games first..first+n_games-1, built vectorised."""
    import numpy as np
    import polars as pl

    from unostats.codes import COUNTER_NAMES, MEASURE_NAMES

    rng = np.random.default_rng(seed + first)
    game_ids = np.arange(first, first + n_games, dtype=np.int64)
    rpg = (np.full(n_games, rounds_per_game) if rounds_per_game
           else 1 + (game_ids % 3))
    n_rounds = int(rpg.sum())
    r_game = np.repeat(game_ids, rpg)
    starts = np.repeat(np.cumsum(rpg) - rpg, rpg)
    r_round = np.arange(n_rounds) - starts + 1
    first_seat = rng.integers(0, players, n_rounds)
    capped = rng.random(n_rounds) < 0.01
    winner_pos = rng.integers(0, players, n_rounds)
    turns = rng.integers(5, 200, n_rounds)
    rounds = pl.DataFrame({
        "game": r_game, "round": r_round,
        "dealer_seat": (first_seat - 1) % players, "first_seat": first_seat,
        "winner_seat": np.where(capped, -1, (first_seat + winner_pos) % players),
        "winner_position": np.where(capped, -1, winner_pos),
        **{name: (turns if name == "turns" else rng.integers(0, 50, n_rounds))
           for name in COUNTER_NAMES},
        "points": np.where(capped, 0, rng.integers(0, 300, n_rounds)),
        "ended_by": np.where(capped, "cap", "win"),
        "loser_seat": None,
        "largest_penalty": rng.integers(0, 9, n_rounds),
        **{name: rng.integers(0, 9, n_rounds) for name in MEASURE_NAMES},
    }).with_columns(
        pl.when(pl.col("winner_seat") < 0).then(None).otherwise(pl.col(c)).alias(c)
        for c in ("winner_seat", "winner_position", "winner_largest_deficit")
    )
    seat = np.tile(np.arange(players), n_rounds)
    round_seats = pl.DataFrame({
        "game": np.repeat(r_game, players), "round": np.repeat(r_round, players),
        "seat": seat, "position": (seat - np.repeat(first_seat, players)) % players,
        "cards_left": rng.integers(0, 20, n_rounds * players),
        "hand_points": rng.integers(0, 200, n_rounds * players),
        "score_after": rng.integers(0, 600, n_rounds * players),
        "hands_emptied": rng.integers(0, 2, n_rounds * players),
        "finish_place": pl.Series([None] * (n_rounds * players), dtype=pl.Int8),
    })
    g_turns = rounds.group_by("game").agg(pl.col("turns").sum()).sort("game")["turns"]
    winner = rng.integers(0, players, n_games)
    games = pl.DataFrame({
        "game": game_ids, "rounds": rpg, "turns": g_turns,
        "first_seat": rounds.filter(pl.col("round") == 1)["first_seat"],
        "winner_seat": winner, "margin": rng.integers(1, 400, n_games), "ended_by": "target",
    })
    g_seat = np.tile(np.arange(players), n_games)
    game_seats = pl.DataFrame({
        "game": np.repeat(game_ids, players), "seat": g_seat, "policy": "random",
        "final_score": rng.integers(0, 600, n_games * players),
        "rank": 1 + (g_seat != np.repeat(winner, players)),
        "is_winner": g_seat == np.repeat(winner, players),
        "is_loser": g_seat != np.repeat(winner, players),
    })
    return SimpleNamespace(games=games, game_seats=game_seats, rounds=rounds,
                           round_seats=round_seats)


def start_run(con, *, cells=(("standard", 4),), run_id=None, games_requested=100) -> str:
    """A run started in the open store ``con`` with ``cells`` (variant, players)."""
    from unostats import store

    return store.start_run(
        con, run_id=run_id, command="unostats simulate s.yaml", seed=42,
        games_requested=games_requested, scenario_name="s", scenario_text="name: s\n",
        scenario_json={"name": "s"}, scenario_hash="abc",
        variants=[{"variant": v, "players": p, "rules_json": {"hand_size": 7},
                   "rules_hash": "h", "description": "d"} for v, p in cells],
        versions={"unostats_version": "0.1", "engine_version": "1", "numba_version": "0.6"},
    )


@pytest.fixture(scope="session", name="make_batch")
def make_batch_fixture():
    """``make_batch(first, n_games, *, players=4, rounds_per_game=None, seed=0)``: plausible
    random frames of an engine batch (games, game_seats, rounds, round_seats)."""
    return make_batch


@pytest.fixture(scope="session", name="start_run")
def start_run_fixture():
    """``start_run(con, *, cells=(("standard", 4),), run_id=None, games_requested=100)``: a
    run started in an open store, its id returned."""
    return start_run


# --- Reports: runs played by the engine into a store -------------------------------------------

# The report tests' two runs: a three-variant comparison at 4 and 6 players (one variant name
# HTML must escape) and an ablation, "base" / "base without X".
EVIL = 'house <b>&amp;</b> "q" \'s'
COMPARE_YAML = f"""\
name: compare-test
description: 'Test </script><script>alert("d")</script> & <i>more</i>'
seed: 5
how_it_plays: true
games: 240
players: [4, 6]
seats:
  policy: random
variants:
  - name: standard
    description: the official rules
  - name: number first
    rules: {{first_card: number_only}}
  - name: '{EVIL.replace("'", "''")}'
    rules: {{wild_draw_four: free, uno_penalty: 0}}
"""
ABLATION_YAML = """\
name: ablation-test
description: one rule removed at a time
seed: 9
games: 240
players: [4]
variants:
  - name: extreme
    rules: {first_card: number_only, wild_draw_four: free, hand_size: 9}
  - name: extreme without number-only first card
    extends: extreme
    rules: {first_card: official}
  - name: extreme without free +4
    extends: extreme
    rules: {wild_draw_four: no_matching_colour}
"""


def _write_run(con, text: str, *, status: str = "complete", games: int | None = None) -> str:
    import numba

    from unostats import __version__, store
    from unostats.engine.simulate import simulate_batches
    from unostats.scenario import load_text

    sc = load_text(text, "test.yaml")
    games = games or sc.games
    cells = list(sc.cells())
    run_id = store.start_run(
        con, command="unostats simulate test.yaml", seed=sc.seed,
        games_requested=sc.games * len(cells), scenario_name=sc.name,
        scenario_text=sc.source_text, scenario_json=sc.canonical_json(),
        scenario_hash=sc.hash(),
        variants=[dict(variant=c.variant.name, players=c.players,
                       rules_json=c.variant.rules.canonical_json(),
                       rules_hash=c.variant.rules.hash(), description=c.variant.description)
                  for c in cells],
        versions=dict(unostats_version=__version__, engine_version="test",
                      numba_version=numba.__version__))
    for c in cells:
        for batch in simulate_batches(rules=c.variant.rules, players=c.players, seats=c.seats,
                                      games=games, seed=sc.seed, how_it_plays=sc.how_it_plays):
            store.write_batch(con, run_id, c.variant.name, c.players, batch)
    store.finish_run(con, run_id, status=status)
    return run_id


@pytest.fixture(scope="session")
def write_run():
    """``write_run(con, text, *, status="complete", games=None)``: the scenario ``text`` played
    by the engine (``games`` a cell, the file's by default) and written into the open store
    ``con`` as one run with ``status``; its id returned."""
    return _write_run


@pytest.fixture(scope="session")
def report_scenarios() -> SimpleNamespace:
    """The texts of the report tests' two runs (``compare``, ``ablation``) and ``evil``, the
    variant name of ``compare`` that HTML must escape."""
    return SimpleNamespace(compare=COMPARE_YAML, ablation=ABLATION_YAML, evil=EVIL)


# A mixed table: one policy written as data (keep-black) against three ``random`` seats.
MIXED_TABLE_YAML = """\
name: mixed-test
seed: 3
games: 300
players: [4]
seats:
  - policy:
      name: keep-black
      weights: {points: 1, wild: -1000, wild_draw_four: -1000, colour_held: 2}
  - {policy: random}
  - {policy: random}
  - {policy: random}
variants:
  - name: official
  - name: short
    rules: {target_score: 200}
"""


@pytest.fixture(scope="session")
def mixed_table_yaml() -> str:
    """A scenario of mixed tables (keep-black, a policy written as data, against three
    ``random`` seats), 300 games a cell, for the skill-and-luck section."""
    return MIXED_TABLE_YAML


@pytest.fixture(scope="session")
def report_runs(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """(path, {"compare": run id, "ablation": run id}): a results file with two complete runs,
    'compare' (older) and 'ablation' (latest). Read it, do not change it."""
    from unostats import store

    path = tmp_path_factory.mktemp("report") / "r.duckdb"
    con = store.open_store(path, read_only=False)
    try:
        runs = {"compare": _write_run(con, COMPARE_YAML),
                "ablation": _write_run(con, ABLATION_YAML)}
    finally:
        con.close()
    return path, runs


# --- Tournaments -----------------------------------------------------------------------------

def _check_tournament(spec, result) -> None:
    from unostats.tournaments.spec.bracket import CONSOLATION, MAIN

    fld = result.field
    main_plan, cons_plan = spec.brackets(fld)
    for bracket, plan in ((MAIN, main_plan), (CONSOLATION, cons_plan)):
        tables = [t for t in result.tables if t.bracket == bracket]
        assert len(tables) == sum(len(s.tables) for s in plan)
        previous = None
        for stage in plan:
            at = [t for t in tables if t.stage == stage]
            assert tuple(len(t.entrants) for t in at) == stage.tables
            players = sorted(e for t in at for e in t.entrants)
            assert len(set(players)) == len(players) == stage.players
            if previous is not None:  # exactly the previous stage's advancers play this one
                assert players == sorted(e for t in previous for e in t.advancers)
            for t in at:
                assert sorted(t.finish) == sorted(t.entrants)
                assert len(t.advancers) == stage.advance
                assert t.advancers == t.finish[:stage.advance]  # the best go on
                seat_of = {e: i for i, e in enumerate(t.entrants)}
                ranks = [t.game.rank[seat_of[e]] for e in t.finish]
                assert ranks == sorted(ranks)
                assert t.profiles == tuple(fld.entrant_profiles()[e] for e in t.entrants)
            previous = at
        if plan:
            assert len(previous) == 1 and previous[0].stage.is_final
    champions = [e for e in result.entrants if e.main.place == 1]
    assert [e.entrant for e in champions] == [result.champion]
    assert result.champion == [t for t in result.tables if t.bracket == MAIN][-1].finish[0]
    first = [t for t in result.tables if t.bracket == MAIN and t.stage == main_plan[0]]
    if cons_plan:
        knocked_out = {e for t in first for e in t.entrants} - {e for t in first
                                                               for e in t.advancers}
        assert {e.entrant for e in result.entrants if e.consolation} == knocked_out
        assert [e.entrant for e in result.entrants
                if e.consolation and e.consolation.place == 1] == [result.consolation_champion]
    else:
        assert result.consolation_champion is None
    for e in result.entrants:
        assert e.advanced_first == any(e.entrant in t.advancers for t in first)
    seeds = [t.game_seed for t in result.tables]
    assert len(set(seeds)) == len(seeds)


@pytest.fixture(scope="session")
def check_tournament():
    """``check_tournament(spec, result)``: asserts the invariants of one played tournament
    (its stages and tables, who advances, places, the champions, distinct game seeds)."""
    return _check_tournament


# --- The browser -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    """Headless Chromium with one page open, one per test module (see tests/chromium.py);
    skips the test when Chromium is not installed."""
    from chromium import CHROMIUM, Browser

    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs "
                    "it), so the headless-browser check of the report cannot run")
    b = Browser(CHROMIUM)
    try:
        b.open_page()
        yield b
    finally:
        b.close()


# --- Tournaments as objects ----------------------------------------------------------------------
# The bracket (``unostats.tournaments.spec.bracket``) plays a batch of tournaments as numpy columns,
# which the store's rows are made of; the tests read one tournament at a time as objects instead: a
# ``TournamentResult`` per tournament, a ``TableResult`` per table, an ``EntrantResult`` per
# entrant. ``play_tournaments`` / ``play_tournament`` (fixtures) play them.



class TableResult(_NamedTuple):
    bracket: str
    stage: StagePlan
    table: int  # 0-based within the stage
    entrants: tuple[int, ...]  # entrant in each seat
    profiles: tuple[str, ...]  # their profiles
    game_seed: int
    game: TableGame
    finish: tuple[int, ...]  # entrants best first
    decided_by: str

    @property
    def advancers(self) -> tuple[int, ...]:
        return () if self.stage.is_final else self.finish[:self.stage.advance]


class Standing(_NamedTuple):
    """One entrant's result in one bracket."""

    stage: int  # index into the spec's stages of the last stage played
    stage_name: str
    finish: int  # 1-based finish at that stage's table
    place: int  # competition ranking: 1 + players strictly better


class EntrantResult(_NamedTuple):
    entrant: int
    profile: str
    main: Standing
    first_table: int
    first_seat: int
    first_position: int
    first_table_players: int
    advanced_first: bool  # went on from the first stage (False if the first stage is the final)
    consolation: Standing | None = None


@_dataclass(frozen=True)
class TournamentResult:
    field: Field
    index: int
    tables: tuple[TableResult, ...]  # in play order: main stages, then consolation stages
    entrants: tuple[EntrantResult, ...]
    champion: int
    consolation_champion: int | None

    def games(self) -> int:
        return len(self.tables)


def _table_game(games: TableGames, i: int) -> TableGame:
    """Game ``i`` of ``games``: the TableGame a player of single tables returned, else one read
    from the arrays (its payload: the engine's tables and the game's row in them)."""
    if games.games is not None:
        return games.games[i]
    return TableGame(tuple(games.rank[i].tolist()), tuple(games.rounds_won[i].tolist()),
                     tuple(games.first_position[i].tolist()), int(games.rounds[i]),
                     int(games.turns[i]), tuple(games.hand_points[i].tolist()),
                     (games.payload, i))


def tournament_results(played: PlayedTournaments) -> list[TournamentResult]:
    """The tournaments of ``played`` as TournamentResults (one object per table, entrant and
    standing)."""
    profiles, names = played.ctx.field.profiles, played.ctx.field.stage_names
    out = []
    for k, t in enumerate(played.indices.tolist()):
        tables = []
        for r in played.records:
            for j in range(len(r.plan.tables)):
                cols = r.columns(j)
                seated = tuple(r.seated[k, cols].tolist())
                games, q, m = r.slot(j)
                tables.append(TableResult(
                    r.bracket, r.plan, j, seated, tuple(profiles[e] for e in seated),
                    int(r.seeds[k, j]), _table_game(games, k * m + q),
                    tuple(r.finish[k, cols].tolist()), DECIDED_BY[int(r.decided[k, j])]))
        entrants = []
        for e in range(played.field.entrants):
            cons = None
            if played.cons is not None and played.cons.last_stage[k, e] >= 0:
                s = int(played.cons.last_stage[k, e])
                cons = Standing(s, names[s], int(played.cons.last_finish[k, e]),
                                int(played.cons_place[k, e]))
            s = int(played.main.last_stage[k, e])
            entrants.append(EntrantResult(
                entrant=e, profile=profiles[e],
                main=Standing(s, names[s], int(played.main.last_finish[k, e]),
                              int(played.main_place[k, e])),
                first_table=int(played.first_table[k, e]),
                first_seat=int(played.first_seat[k, e]),
                first_position=int(played.first_position[k, e]),
                first_table_players=int(played.first_players[k, e]),
                advanced_first=bool(played.advanced_first[k, e]), consolation=cons))
        out.append(TournamentResult(
            field=played.field, index=t, tables=tuple(tables), entrants=tuple(entrants),
            champion=int(played.champion[k]),
            consolation_champion=(None if played.consolation_champion is None
                                  else int(played.consolation_champion[k]))))
    return out


def _play_tournaments(spec, fld, *, seed: int, indices: _Sequence[int],
                      play_tables) -> list[TournamentResult]:
    """``play_batch``'s tournaments as TournamentResults, in order (each what
    ``play_tournament`` gives for its index alone)."""
    return [r for part in play_batch(spec, fld, seed=seed, indices=indices,
                                     play_tables=play_tables)
            for r in tournament_results(part)]


def _play_tournament(spec, fld, *, seed: int, index: int, play_tables) -> TournamentResult:
    """Tournament ``index`` of ``fld`` alone: the main bracket, then the consolation."""
    return _play_tournaments(spec, fld, seed=seed, indices=(index,), play_tables=play_tables)[0]


@pytest.fixture(scope="session")
def play_tournaments():
    """``play_tournaments(spec, field, *, seed, indices, play_tables)``: TournamentResults."""
    return _play_tournaments


@pytest.fixture(scope="session")
def play_tournament():
    """``play_tournament(spec, field, *, seed, index, play_tables)``: one TournamentResult."""
    return _play_tournament
