"""The storage path: ``simulate`` (Arrow tables built from reused kernel buffers, parts joined,
a bounded producer/writer pipeline) stores exactly the rows of the simple path (polars frames
of ``simulate_batches``, one ``write_batch`` each), whatever the batch and part sizes, buffer
retries, look-ahead and threads; and exactly the rows main stored before this path existed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import numba
import polars as pl
import pytest

from unostats import store
from unostats.codes import MEASURE_NAMES
from unostats.engine import _parts
from unostats.engine.simulate import simulate_batches, simulate_arrow
from unostats.rules import RuleSet
from unostats.base.session import versions
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
from unostats.seats import Seat

MIX = """\
name: mix
seed: 11
how_it_plays: true
games: 150
players: [2, 4]
seats:
  policy: random
variants:
  - name: standard
  - name: stacking
    rules: {stack_draw_two: sum, stack_draw_four: sum, draw_two_on_draw_four: true}
"""
# The digest of MIX's stored games, game_seats, rounds and round_seats (every column but run_id
# and the later rounds.largest_penalty and how a round played, codes.MEASURE_NAMES; rows
# sorted), as stored by main before this storage path, with batches of 40 games. MIX counts
# how its rounds play (the engine's loops that count): they store these rows all the same.
MAIN_DIGEST = "881778f3fe9c0879"


def digest(db: Path, tables: tuple[str, ...]) -> str:
    con = duckdb.connect(str(db), read_only=True)
    try:
        h = hashlib.sha256()
        for table in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall()
                if c not in ("run_id", "largest_penalty", *MEASURE_NAMES)]
            for row in con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL"
                                   ).fetchall():
                h.update(repr(row).encode())
        return h.hexdigest()[:16]
    finally:
        con.close()


def simple_path(db: Path, scenario, batch_games: int) -> None:
    """MIX stored the plain way: polars frames, one write_batch per batch."""
    con = store.open_store(db, read_only=False)
    try:
        cells = list(scenario.cells())
        run_id = store.start_run(
            con, command="test", seed=scenario.seed, games_requested=scenario.games * len(cells),
            scenario_name=scenario.name, scenario_text=scenario.source_text,
            scenario_json=scenario.canonical_json(), scenario_hash=scenario.hash(),
            variants=[{"variant": c.variant.name, "players": c.players,
                       "rules_json": c.variant.rules.canonical_json(),
                       "rules_hash": c.variant.rules.hash(), "description": ""} for c in cells],
            versions=versions())
        for c in cells:
            for batch in simulate_batches(rules=c.variant.rules, players=c.players,
                                          seats=c.seats, games=scenario.games,
                                          seed=scenario.seed, batch_games=batch_games,
                                          how_it_plays=scenario.how_it_plays):
                assert isinstance(batch.games, pl.DataFrame)
                store.write_batch(con, run_id, c.variant.name, c.players, batch)
    finally:
        con.close()


@pytest.fixture(scope="module")
def mix(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mix")
    path = folder / "mix.yaml"
    path.write_text(MIX)
    scenario = load_scenario(path)
    fast = folder / "fast.duckdb"
    assert simulate(scenario=scenario, db=fast).status == "complete"
    return {"folder": folder, "scenario": scenario, "fast": fast}


@pytest.fixture(scope="module")
def game_rows(stored_rows, game_tables):
    """``game_rows(db)``: every stored game row of the file's one run, sorted."""
    def read(db: Path) -> dict:
        rows = stored_rows(db, game_tables, "seed")
        del rows["runs"]
        return rows
    return read


def test_simulate_stores_the_rows_of_the_simple_path(game_rows, game_tables, mix):
    simple = mix["folder"] / "simple.duckdb"
    simple_path(simple, mix["scenario"], batch_games=37)
    got, want = game_rows(mix["fast"]), game_rows(simple)
    for table in game_tables:
        assert len(got[table]) == len(want[table]) > 0, table
        assert got[table] == want[table], f"{table} differs"


def test_simulate_stores_the_rows_main_stored(game_tables, mix):
    assert digest(mix["fast"], game_tables) == MAIN_DIGEST


def test_a_run_that_does_not_count_stores_the_same_games_with_the_measures_null(
        game_rows, game_tables, mix):
    """Counting how rounds play draws no random number: without it (``how_it_plays: false``,
    the engine's loops without any counter) every other column is the same, and the measures'
    columns are null where the counting run has them."""
    path = mix["folder"] / "mix.yaml"
    uncounted = mix["folder"] / "uncounted.duckdb"
    scenario = load_scenario(path, ["how_it_plays=false"])
    assert mix["scenario"].how_it_plays and not scenario.how_it_plays
    assert simulate(scenario=scenario, db=uncounted).status == "complete"
    assert digest(uncounted, game_tables) == MAIN_DIGEST
    counted, plain = game_rows(mix["fast"]), game_rows(uncounted)
    con = duckdb.connect(str(uncounted), read_only=True)
    try:
        columns = [c for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'rounds' "
            "AND column_name <> 'run_id' ORDER BY ordinal_position").fetchall()]
        nulls = con.execute("SELECT " + ", ".join(f"count({m})" for m in MEASURE_NAMES)
                            + ", count(*) FROM rounds").fetchall()[0]
    finally:
        con.close()
    assert nulls[:-1] == (0,) * len(MEASURE_NAMES) and nulls[-1] > 0
    at = [columns.index(m) for m in MEASURE_NAMES]
    for table in game_tables:
        assert len(plain[table]) == len(counted[table]) > 0, table
        if table != "rounds":
            assert plain[table] == counted[table], f"{table} differs"
            continue
        # rows sorted alike: the measures come after every other column of a round
        assert min(at) > max(i for i, c in enumerate(columns) if c not in MEASURE_NAMES)
        for a, b in zip(plain[table], counted[table]):
            assert a[:min(at)] == b[:min(at)]
            assert all(a[i] is None for i in at)
        assert any(b[columns.index("hand_leader_changes")] for b in counted[table])


def test_stacked_penalties_show_in_the_stored_rounds(mix):
    con = store.open_store(mix["fast"], read_only=True)
    try:
        (standard, stacking, above), = con.execute(
            "SELECT max(largest_penalty) FILTER (WHERE variant = 'standard'), "
            "max(largest_penalty) FILTER (WHERE variant = 'stacking'), "
            "count(*) FILTER (WHERE largest_penalty > penalty_cards) FROM rounds").fetchall()
    finally:
        con.close()
    assert above == 0
    assert standard <= 6 < stacking  # a challenge of +4 draws 6 at most; stacks draw more


def frames(batches) -> list[pl.DataFrame]:
    """Each table over all batches, names as strings (Arrow dictionaries are Categorical in
    polars, the frames' ended_by an Enum)."""
    batches = list(batches)  # every batch kept: reused buffers must not change earlier ones
    out = []
    for tables in zip(*batches):
        df = pl.concat([t if isinstance(t, pl.DataFrame) else pl.from_arrow(t) for t in tables])
        out.append(df.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String)))
    return out


RULES = RuleSet.from_mapping({"stack_draw_two": "sum", "round_end": "to_the_last"})


@pytest.fixture(scope="module")
def reference_frames():
    return frames(simulate_batches(rules=RULES, players=3, seats=Seat("random"), games=60,
                                   seed=4))


@pytest.mark.parametrize("batch_games, part_rows, ahead, threads", [
    (1, 65_536, True, None),  # one game per batch: one-row columns must still be copies
    (7, 150, True, None),  # batches of several parts joined
    (25, 30, False, 1),  # parts of one game
    (60, 600, False, None),
])
def test_tables_equal_the_frames_for_any_batch_part_and_thread_count(
        monkeypatch, reference_frames, batch_games, part_rows, ahead, threads):
    monkeypatch.setattr(_parts, "PART_SEAT_ROWS", part_rows)
    threads = threads or numba.config.NUMBA_NUM_THREADS
    got = frames(simulate_arrow(rules=RULES, players=3, seats=Seat("random"), games=60,
                                 seed=4, batch_games=batch_games, ahead=ahead,
                                 threads=threads))
    for g, want in zip(got, reference_frames):
        assert g.equals(want, null_equal=True)


def test_tables_equal_the_frames_when_the_round_buffers_run_out(monkeypatch, reference_frames):
    # A tiny estimate sizes every chunk's round buffer too small: each chunk is retried.
    monkeypatch.setattr(_parts.RoundsEstimate, "per_game", lambda self: 0.01)
    got = frames(simulate_arrow(rules=RULES, players=3, seats=Seat("random"), games=60,
                                 seed=4, batch_games=30))
    for g, want in zip(got, reference_frames):
        assert g.equals(want, null_equal=True)
