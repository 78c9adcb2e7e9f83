"""The results file's layout (schema 12: most columns packed, several per word; the seats'
policies coded; the rows also by cell id) against the layout before it (schema 8: every frame
column stored as it is): a real run's views give exactly the rows, columns and types the old
layout's views gave; a value that does not fit its packed field fails the batch and stores
nothing."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from unostats import store
from unostats.engine.simulate import simulate_batches
from unostats.base.progress import Progress
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
from unostats.store.packing import WORDS
from unostats.sql import table_ddl

# Rule variants whose packed columns take many values: R9 (finish places, hands emptied), R10
# (several hands emptied a round), capped rounds and games (ended_by 'cap', no winners), losers,
# and house rules that challenge, jump in, swap, slap and break silences (the paired counters);
# seats of several policies, one written as data (the policy codes).
SCENARIO = """name: layout
seed: 7
games: 60
players: [2, 5]
seats: [{policy: random}, {policy: strategist}, {policy: first_legal}, {policy: random},
        {policy: {name: keep-wilds, weights: {wild: -5}}}]
variants:
  - name: standard
  - name: to the last
    rules: {round_end: to_the_last}
  - name: seven rounds
    rules: {round_end: seven_rounds, hand_size: 8}
  - name: capped
    rules: {max_turns: 40, max_rounds: 3}
  - name: lose at
    rules: {scoring: own_points_lose_at, target_score: 150}
  - name: house
    rules: {jump_in: all_but_draw_four, seven_zero: true, five_swap: true, zero_slap: 2,
            silence: seven, wild_draw_four: no_matching_colour}
"""

# The games each seat position of round 1 won, over the results views (as schema 8's
# game_win_rate_by_position counted them).
_WINS_BY_POSITION = """SELECT gs.run_id, gs.variant, gs.players, rs.position, count(*)
FROM game_seats gs JOIN round_seats rs
  ON rs.run_id = gs.run_id AND rs.variant = gs.variant AND rs.players = gs.players
 AND rs.game = gs.game AND rs.round = 1 AND rs.seat = gs.seat
WHERE gs.is_winner GROUP BY ALL"""

_OLD_CHECKS = {"games": ("ended_by IN ('target', 'cap')",),
               "rounds": ("ended_by IN ('win', 'cap')",)}


def _old_layout(cells: list[tuple[str, str, int, dict]]) -> duckdb.DuckDBPyConnection:
    """Schema 8's results tables and views in memory, holding the engine's frames of ``cells``
    ((run_id, variant, players, frames by table)) as that layout stored them."""
    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE cells (cell INTEGER PRIMARY KEY, run_id VARCHAR NOT NULL, "
                "variant VARCHAR NOT NULL, players SMALLINT NOT NULL)")
    for name, columns in store.FRAME_COLUMNS.items():
        con.execute(table_ddl(f"stored_{name}", (("cell", "INTEGER", False),) + columns,
                              _OLD_CHECKS.get(name, ())))
        lookups = ", ".join(f"(SELECT list({c} ORDER BY cell) FROM cells)[t.cell] AS {c}"
                            for c in ("run_id", "variant", "players"))
        con.execute(f"CREATE VIEW {name} AS SELECT {lookups}, "
                    f"{', '.join(f't.{n}' for n, _, _ in columns)} FROM stored_{name} t")
    for cell, (run_id, variant, players, frames) in enumerate(cells, 1):
        con.execute("INSERT INTO cells VALUES (?, ?, ?, ?)", [cell, run_id, variant, players])
        for name, columns in store.FRAME_COLUMNS.items():
            frame = frames[name]  # noqa: F841 (scanned by DuckDB)
            select = ", ".join(f"CAST({n} AS {t})" for n, t, _ in columns)
            con.execute(f"INSERT INTO stored_{name} SELECT {cell}, {select} FROM frame")
    return con


def test_a_runs_views_equal_the_old_layouts_rows(tmp_path):
    path = tmp_path / "layout.yaml"
    path.write_text(SCENARIO)
    scenario = load_scenario(path)
    db = tmp_path / "new.duckdb"
    outcome = simulate(scenario=scenario, db=db, progress=Progress(), batch_games=25)
    assert outcome.status == "complete"
    cells = []
    for cell in scenario.cells():
        batches = list(simulate_batches(rules=cell.variant.rules, players=cell.players,
                                        seats=cell.seats, games=scenario.games,
                                        seed=scenario.seed, batch_games=25))
        cells.append((outcome.run_id, cell.variant.name, cell.players,
                      {name: pl.concat([getattr(b, name) for b in batches])
                       for name in store.FRAME_COLUMNS}))
    old = _old_layout(cells)
    new = store.open_store(db, read_only=True)
    try:
        for name in store.FRAME_COLUMNS:
            # names and types (a decoded column's NOT NULL is not carried by a view's DESCRIBE)
            assert [r[:2] for r in new.sql(f"DESCRIBE {name}").fetchall()] == \
                [r[:2] for r in old.sql(f"DESCRIBE {name}").fetchall()]
            got, want = new.sql(f"SELECT * FROM {name}").fetchall(), \
                old.sql(f"SELECT * FROM {name}").fetchall()  # no ORDER BY: the stored order
            assert len(got) == len(want) > 0 and got == want, name
            # the same rows by cell id, the cell columns joined
            by_cell = new.sql(f"SELECT c.run_id, c.variant, c.players, b.* EXCLUDE (cell) "
                              f"FROM {store.BY_CELL[name]} b JOIN cells c USING (cell)")
            assert by_cell.columns == new.sql(f"SELECT * FROM {name}").columns
            assert sorted(by_cell.fetchall(), key=repr) == sorted(want, key=repr), name
        # the packed columns take more than one value each (the comparison means something;
        # no seat makes mistakes: test_each_kind_of_field... stores values in that one)
        for name, words in WORDS.items():
            for field in (f for _, fields in words for f, _ in fields):
                if field == "mistakes":
                    continue
                distinct = new.sql(f"SELECT count(DISTINCT {field}) + "
                                   f"max(({field} IS NULL)::INT) FROM {name}").fetchall()[0][0]
                assert distinct >= 2, (name, field)
        # the view that reads the stored rows itself gives what it gave over the results views
        rows = new.sql("SELECT * FROM game_win_rate_by_position").fetchall()
        assert len(rows) == 6 * (2 + 5)  # every position of every cell
        assert {r[:4]: r[4] for r in rows if r[4]} == {
            r[:4]: r[4] for r in new.sql(_WINS_BY_POSITION).fetchall()}
    finally:
        new.close()
        old.close()


def test_a_value_outside_its_packed_field_fails_the_batch(start_run, make_batch, tmp_path):
    con = store.open_store(tmp_path / "t.duckdb", read_only=False)
    try:
        run_id = start_run(con)
        store.write_batch(con, run_id, "standard", 4, make_batch(0, 3))
        batch = make_batch(3, 3)
        batch.round_seats = batch.round_seats.with_columns(
            pl.when(pl.col("game") == 4).then(70_000).otherwise(pl.col("cards_left"))
            .alias("cards_left"))
        with pytest.raises(store.StoreError, match="round_seats.*outside what the store holds"):
            store.write_batch(con, run_id, "standard", 4, batch)
        assert store.completed_games(con, run_id, "standard", 4) == 3  # nothing of it stored
        assert con.sql("SELECT max(game), count(*) FROM round_seats").fetchall()[0][0] == 2
        store.write_batch(con, run_id, "standard", 4, make_batch(3, 3))  # the run goes on
        assert store.completed_games(con, run_id, "standard", 4) == 6
    finally:
        con.close()


@pytest.mark.parametrize("table, column, value, message", [
    ("rounds", "winner_seat", 15, "winner_seat = 15 .*0 to 14 or NULL"),  # beside NULLs
    ("rounds", "dealer_seat", None, "dealer_seat = None"),  # NULL where none is allowed
    ("rounds", "ended_by", "draw", "ended_by = 'draw' .*one of win, cap"),
    ("rounds", "slaps", 2**31, r"slaps = 2147483648 .*an INTEGER"),  # in a word of two
    ("rounds", "mistakes", -(2**31) - 1, "mistakes = -2147483649"),  # at a word's top
    ("rounds", "silence_breaks", 2**31, "silence_breaks = 2147483648"),  # top of a pair
    ("round_seats", "hands_emptied", -1, "hands_emptied = -1 .*0 to 31"),
])
def test_each_kind_of_field_refuses_what_it_cannot_hold(start_run, make_batch, tmp_path, table,
                                                        column, value, message):
    con = store.open_store(tmp_path / "t.duckdb", read_only=False)
    try:
        run_id = start_run(con)
        batch = make_batch(0, 4)
        frame = getattr(batch, table)
        bad = frame.with_columns(pl.when(pl.col("game") == 2).then(pl.lit(value))
                                 .otherwise(pl.col(column)).alias(column))
        setattr(batch, table, bad)
        with pytest.raises(store.StoreError, match=f"cannot store the batch's {table}: {message}"):
            store.write_batch(con, run_id, "standard", 4, batch)
        assert store.completed_games(con, run_id, "standard", 4) == 0
        assert con.sql(f"SELECT count(*) FROM {table}").fetchall() == [(0,)]
        # the same value stored where it fits: signed INTEGERs anywhere in a word
        if column in ("slaps", "mistakes", "silence_breaks"):
            ok = make_batch(0, 4)
            setattr(ok, table, frame.with_columns(
                pl.when(pl.col("game") == 2).then(pl.lit(-(2**31) if value > 0 else 2**31 - 1))
                .otherwise(pl.col(column)).alias(column)))
            store.write_batch(con, run_id, "standard", 4, ok)
            got = con.sql(f"SELECT {column} FROM {table} ORDER BY game, round").pl()[column]
            assert got.to_list() == getattr(ok, table).sort("game", "round")[column].to_list()
    finally:
        con.close()


def test_each_policy_name_gets_one_code_and_a_failed_batch_adds_none(start_run, make_batch,
                                                                     tmp_path):

    def with_policies(batch, names):
        seats = batch.game_seats
        batch.game_seats = seats.with_columns(
            pl.Series("policy", [names[i % len(names)] for i in range(len(seats))]))
        return batch

    con = store.open_store(tmp_path / "t.duckdb", read_only=False)
    try:
        run_id = start_run(con)
        store.write_batch(con, run_id, "standard", 4, with_policies(make_batch(0, 3), ["b", "a"]))
        bad = with_policies(make_batch(3, 3), ["c", "a"])
        bad.round_seats = bad.round_seats.with_columns(pl.lit(5000).alias("cards_left"))
        with pytest.raises(store.StoreError, match="cards_left = 5000 .*0 to 4095"):
            store.write_batch(con, run_id, "standard", 4, bad)
        assert con.sql("SELECT code, policy FROM policies ORDER BY code").fetchall() == \
            [(0, "a"), (1, "b")]
        batch = with_policies(make_batch(3, 3), ["c", "a", "d\u00e9j\u00e0 vu"])
        store.write_batch(con, run_id, "standard", 4, batch)
        assert con.sql("SELECT code, policy FROM policies ORDER BY code").fetchall() == \
            [(0, "a"), (1, "b"), (2, "c"), (3, "d\u00e9j\u00e0 vu")]
        got = con.sql("SELECT policy FROM game_seats ORDER BY game, seat").fetchall()
        want = (["b", "a"] * 6)[:12] + (["c", "a", "d\u00e9j\u00e0 vu"] * 4)
        assert [p for p, in got] == want
    finally:
        con.close()
