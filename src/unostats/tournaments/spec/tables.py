"""The tournaments of the store: their tables and views, a run's cells, and reading them back
(``writer`` writes whole tournaments).

``open_store`` creates these with the rest of the schema (schema version 3 added them), in every
file, so one file can hold runs of any kind.
Every table game of a tournament is stored like any game, in ``games``, ``game_seats``, ``rounds``
and ``round_seats`` of the cell (run, variant, players = the table's size); the tournament tables
say which game a table played (``tournament_tables.game``).

Tables (logical keys in brackets):

- ``tournament_fields`` [run_id, variant, field]: a field's entrants, table size, profile mix and
  tournaments requested (one row per cell of a tournament run).
- ``tournament_stages`` [run_id, variant, field, bracket, stage]: each stage a bracket plays
  (``bracket`` 'main' or 'consolation'; ``stage`` indexes the scenario's stages, ``step`` counts
  the stages played from 0): players, tables, sizes and advancers per table (0 at the final).
- ``tournaments`` [run_id, variant, field, tournament]: the champion (entrant id and profile),
  what decided the final, the consolation's champion, the number of table games.
- ``tournament_tables`` [run_id, variant, field, tournament, bracket, stage, table_no]: seats
  (entrant and profile per seat), the game (``players``, ``game``: the row of ``games``), its
  engine seed, the finish order, who advanced and what decided the last place that advanced.
- ``tournament_entrants`` [run_id, variant, field, tournament, entrant]: profile and policy, the
  last main stage reached, final place, the first-stage table, seat, position (in round 1 of that
  game, 0 acts first) and whether the entrant advanced from it, and the same for the consolation.

Views (the standard answers; every rate with its 95% interval):

- ``tournament_profile_wins``: per profile, the chance an entrant of it wins (the champion's
  profile is one Bernoulli trial per tournament, Wilson; divided by the profile's entrants), the
  fair share 1/entrants and the edge (rate x entrants, 1 = fair); the same for the consolation.
- ``tournament_profile_stages``: per profile and main stage, the chance an entrant of it reaches
  the stage (mean over tournaments of the share of its entrants who do, ± 1.96 SE; Wilson for a
  profile with one entrant) and the fair share (stage players / entrants).
- ``tournament_stage_length``: per bracket and stage, rounds and turns per table game and of the
  stage's longest table (tables of a stage play at the same time).
- ``tournament_length``: the evening per tournament: main bracket = sum over its stages of the
  longest table; evening = first stage + the longer of (the later main stages, the consolation),
  which plays beside them; in rounds and turns.
- ``tournament_advance_by_position``: first-stage advancement by position in round 1 (Wilson), with
  the fair rate advance / table size.
- ``tournament_decided_by``: per stage, how often the last place that went on (at a final: the
  title) was decided by game rank, rounds won, points left in hand or the lot.
- ``tournament_durations``: per tournament cell (variant x field), each stage's longest table
  (tables of a stage play at the same time; ``tournament_stage_length``) and the evening (the
  first stage, then the longer of the later main stages and the consolation, which plays beside
  them; ``tournament_length``), in minutes at the run's pace (``sql.minutes``, as the store's
  ``durations`` view), over tournaments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from ...sql import PACE, as_json_text, first_row, minutes, table_ddl
from ...stats import Z95
from .bracket import BRACKETS, DECIDED_BY

TOURNAMENT_TABLES = ("tournament_fields", "tournament_stages", "tournaments", "tournament_tables",
                     "tournament_entrants")
BATCH_TABLES = ("tournaments", "tournament_tables", "tournament_entrants")
_KEY = (("run_id", "VARCHAR", False), ("variant", "VARCHAR", False), ("field", "VARCHAR", False))

COLUMNS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "tournaments": (
        ("tournament", "INTEGER", False),
        ("champion", "SMALLINT", False),
        ("champion_profile", "VARCHAR", False),
        ("champion_decided_by", "VARCHAR", False),
        ("consolation_champion", "SMALLINT", True),
        ("consolation_champion_profile", "VARCHAR", True),
        ("games", "SMALLINT", False),
    ),
    "tournament_tables": (
        ("tournament", "INTEGER", False),
        ("bracket", "VARCHAR", False),
        ("stage", "SMALLINT", False),
        ("stage_name", "VARCHAR", False),
        ("table_no", "SMALLINT", False),
        ("players", "SMALLINT", False),
        ("game", "INTEGER", False),
        ("game_seed", "BIGINT", False),
        ("entrants", "SMALLINT[]", False),
        ("profiles", "VARCHAR[]", False),
        ("advance", "SMALLINT", False),
        ("finish", "SMALLINT[]", False),
        ("advancers", "SMALLINT[]", False),
        ("decided_by", "VARCHAR", False),
    ),
    "tournament_entrants": (
        ("tournament", "INTEGER", False),
        ("entrant", "SMALLINT", False),
        ("profile", "VARCHAR", False),
        ("policy", "VARCHAR", False),
        ("stage", "SMALLINT", False),
        ("stage_name", "VARCHAR", False),
        ("finish", "SMALLINT", False),
        ("place", "SMALLINT", False),
        ("is_champion", "BOOLEAN", False),
        ("first_table", "SMALLINT", False),
        ("first_seat", "SMALLINT", False),
        ("first_position", "SMALLINT", False),
        ("first_table_players", "SMALLINT", False),
        ("advanced_first", "BOOLEAN", False),
        ("consolation_stage", "SMALLINT", True),
        ("consolation_stage_name", "VARCHAR", True),
        ("consolation_place", "SMALLINT", True),
        ("is_consolation_champion", "BOOLEAN", False),
    ),
}
RESULT_KEYS = {
    "tournaments": ("run_id", "variant", "field", "tournament"),
    "tournament_tables": ("run_id", "variant", "field", "tournament", "bracket", "stage",
                          "table_no"),
    "tournament_entrants": ("run_id", "variant", "field", "tournament", "entrant"),
}


def _in(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


_CHECKS = {
    "tournaments": (_in("champion_decided_by", DECIDED_BY),),
    "tournament_tables": (_in("bracket", BRACKETS), _in("decided_by", DECIDED_BY)),
}


TABLES_DDL = [
    """CREATE TABLE IF NOT EXISTS tournament_fields (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  field VARCHAR NOT NULL,
  description VARCHAR,
  entrants SMALLINT NOT NULL,
  table_size SMALLINT NOT NULL,
  consolation BOOLEAN NOT NULL,    -- the first stage's losers play a consolation bracket
  tournaments_requested BIGINT NOT NULL,
  games_per_tournament INTEGER NOT NULL,
  mix JSON NOT NULL,               -- profile -> entrants
  profiles JSON NOT NULL,          -- profile -> {policy, behaviour}
  PRIMARY KEY (run_id, variant, field)
)""",
    """CREATE TABLE IF NOT EXISTS tournament_stages (
  run_id VARCHAR NOT NULL,
  variant VARCHAR NOT NULL,
  field VARCHAR NOT NULL,
  bracket VARCHAR NOT NULL CHECK (bracket IN ('main', 'consolation')),
  stage SMALLINT NOT NULL,         -- index of the scenario's stage
  step SMALLINT NOT NULL,          -- 0, 1, ... in the order the bracket plays its stages
  stage_name VARCHAR NOT NULL,
  players SMALLINT NOT NULL,
  tables SMALLINT NOT NULL,
  table_sizes SMALLINT[] NOT NULL,
  advance SMALLINT NOT NULL,       -- per table; 0 at the final
  PRIMARY KEY (run_id, variant, field, bracket, stage)
)""",
    *(table_ddl(t, _KEY + COLUMNS[t], _CHECKS.get(t, ())) for t in BATCH_TABLES),
]

_Z = Z95
_GAMES = """SELECT t.run_id, t.variant, t.field, t.tournament, t.bracket, t.stage, t.stage_name,
    t.table_no, t.players, g.rounds, g.turns
  FROM tournament_tables t
  JOIN games g ON g.run_id = t.run_id AND g.variant = t.variant AND g.players = t.players
   AND g.game = t.game"""
_PER_STAGE = """SELECT run_id, variant, field, tournament, bracket, stage,
    any_value(stage_name) AS stage_name, count(*) AS tables,
    max(rounds) AS longest_rounds, max(turns) AS longest_turns,
    sum(rounds) AS rounds, sum(turns) AS turns
  FROM tgames GROUP BY run_id, variant, field, tournament, bracket, stage"""

VIEWS_DDL = [
    """CREATE OR REPLACE VIEW tournament_profile_wins AS
WITH per AS (
  SELECT run_id, variant, field, tournament, profile, count(*) AS entrants,
    count(*) FILTER (WHERE is_champion) AS won,
    count(*) FILTER (WHERE is_consolation_champion) AS consolation_won
  FROM tournament_entrants GROUP BY ALL
), agg AS (
  SELECT run_id, variant, field, profile, max(entrants) AS entrants, count(*) AS tournaments,
    sum(won) AS wins, sum(consolation_won) AS consolation_wins
  FROM per GROUP BY ALL
)
SELECT a.run_id, a.variant, a.field, a.profile, a.entrants, f.entrants AS field_entrants,
  a.tournaments, a.wins,
  a.wins / a.tournaments AS profile_rate,
  wilson_lo(a.wins, a.tournaments) AS profile_lo,
  wilson_hi(a.wins, a.tournaments) AS profile_hi,
  a.wins / a.tournaments / a.entrants AS rate,
  wilson_lo(a.wins, a.tournaments) / a.entrants AS lo,
  wilson_hi(a.wins, a.tournaments) / a.entrants AS hi,
  1.0 / f.entrants AS fair,
  a.wins / a.tournaments / a.entrants * f.entrants AS edge,
  wilson_lo(a.wins, a.tournaments) / a.entrants * f.entrants AS edge_lo,
  wilson_hi(a.wins, a.tournaments) / a.entrants * f.entrants AS edge_hi,
  a.consolation_wins,
  a.consolation_wins / a.tournaments / a.entrants AS consolation_rate,
  wilson_lo(a.consolation_wins, a.tournaments) / a.entrants AS consolation_lo,
  wilson_hi(a.consolation_wins, a.tournaments) / a.entrants AS consolation_hi
FROM agg a JOIN tournament_fields f USING (run_id, variant, field)
ORDER BY a.run_id, a.variant, a.field, a.profile""",
    f"""CREATE OR REPLACE VIEW tournament_profile_stages AS
WITH per AS (
  SELECT e.run_id, e.variant, e.field, e.tournament, e.profile, s.stage, s.step, s.stage_name,
    s.players AS stage_players, count(*) AS entrants,
    count(*) FILTER (WHERE e.stage >= s.stage) AS reached
  FROM tournament_entrants e
  JOIN tournament_stages s ON s.run_id = e.run_id AND s.variant = e.variant
   AND s.field = e.field AND s.bracket = 'main'
  GROUP BY ALL
), agg AS (
  SELECT run_id, variant, field, profile, stage, step, any_value(stage_name) AS stage_name,
    max(stage_players) AS stage_players, max(entrants) AS entrants, count(*) AS tournaments,
    sum(reached) AS reached, avg(reached) / max(entrants) AS rate,
    coalesce(stddev_samp(reached), 0) / sqrt(count(*)) / max(entrants) AS se
  FROM per GROUP BY run_id, variant, field, profile, stage, step
)
SELECT a.run_id, a.variant, a.field, a.profile, CAST(a.stage AS SMALLINT) AS stage, a.step,
  a.stage_name, a.entrants, a.tournaments, a.reached, a.rate, a.se,
  CASE WHEN a.entrants = 1 THEN wilson_lo(a.reached, a.tournaments)
       ELSE greatest(0.0, a.rate - {_Z} * a.se) END AS lo,
  CASE WHEN a.entrants = 1 THEN wilson_hi(a.reached, a.tournaments)
       ELSE least(1.0, a.rate + {_Z} * a.se) END AS hi,
  CASE WHEN a.entrants = 1 THEN 'Wilson' ELSE 'mean ± 1.96 SE over tournaments' END AS method,
  a.stage_players / f.entrants AS fair
FROM agg a JOIN tournament_fields f USING (run_id, variant, field)
ORDER BY a.run_id, a.variant, a.field, a.profile, a.step""",
    f"""CREATE OR REPLACE VIEW tournament_stage_length AS
WITH tgames AS ({_GAMES}), per_stage AS ({_PER_STAGE}),
games_agg AS (
  SELECT run_id, variant, field, bracket, stage, count(*) AS games,
    avg(rounds) AS mean_rounds, stddev_samp(rounds) / sqrt(count(*)) AS se_rounds,
    avg(turns) AS mean_turns, stddev_samp(turns) / sqrt(count(*)) AS se_turns,
    quantile_cont(turns, 0.5) AS p50_turns, quantile_cont(turns, 0.9) AS p90_turns
  FROM tgames GROUP BY run_id, variant, field, bracket, stage
), stage_agg AS (
  SELECT run_id, variant, field, bracket, stage, any_value(stage_name) AS stage_name,
    count(*) AS tournaments, max(tables) AS tables,
    avg(longest_rounds) AS mean_longest_rounds,
    stddev_samp(longest_rounds) / sqrt(count(*)) AS se_longest_rounds,
    avg(longest_turns) AS mean_longest_turns,
    stddev_samp(longest_turns) / sqrt(count(*)) AS se_longest_turns,
    quantile_cont(longest_turns, 0.5) AS p50_longest_turns,
    quantile_cont(longest_turns, 0.9) AS p90_longest_turns
  FROM per_stage GROUP BY run_id, variant, field, bracket, stage
)
SELECT s.run_id, s.variant, s.field, s.bracket, CAST(s.stage AS SMALLINT) AS stage, st.step,
  s.stage_name, s.tournaments, s.tables, st.players AS stage_players, g.games,
  g.mean_rounds, g.se_rounds, g.mean_turns, g.se_turns, g.p50_turns, g.p90_turns,
  s.mean_longest_rounds, s.se_longest_rounds, s.mean_longest_turns, s.se_longest_turns,
  s.p50_longest_turns, s.p90_longest_turns
FROM stage_agg s
JOIN games_agg g USING (run_id, variant, field, bracket, stage)
JOIN tournament_stages st USING (run_id, variant, field, bracket, stage)
ORDER BY s.run_id, s.variant, s.field, s.bracket = 'consolation', st.step""",
    f"""CREATE OR REPLACE VIEW tournament_length AS
WITH tgames AS ({_GAMES}), per_stage AS ({_PER_STAGE}),
per_t AS (
  SELECT run_id, variant, field, tournament,
    sum(longest_turns) FILTER (WHERE bracket = 'main') AS main_turns,
    sum(longest_rounds) FILTER (WHERE bracket = 'main') AS main_rounds,
    arg_min(longest_turns, stage) FILTER (WHERE bracket = 'main') AS first_turns,
    arg_min(longest_rounds, stage) FILTER (WHERE bracket = 'main') AS first_rounds,
    coalesce(sum(longest_turns) FILTER (WHERE bracket = 'consolation'), 0)
      AS consolation_turns,
    coalesce(sum(longest_rounds) FILTER (WHERE bracket = 'consolation'), 0)
      AS consolation_rounds,
    sum(turns) AS table_turns, sum(rounds) AS table_rounds
  FROM per_stage GROUP BY run_id, variant, field, tournament
), evening AS (
  SELECT *,
    first_turns + greatest(main_turns - first_turns, consolation_turns) AS evening_turns,
    first_rounds + greatest(main_rounds - first_rounds, consolation_rounds) AS evening_rounds
  FROM per_t
)
SELECT run_id, variant, field, count(*) AS tournaments,
  avg(evening_turns) AS mean_turns, stddev_samp(evening_turns) / sqrt(count(*)) AS se_turns,
  quantile_cont(evening_turns, 0.1) AS p10_turns, quantile_cont(evening_turns, 0.5) AS p50_turns,
  quantile_cont(evening_turns, 0.9) AS p90_turns, max(evening_turns) AS max_turns,
  avg(evening_rounds) AS mean_rounds, stddev_samp(evening_rounds) / sqrt(count(*)) AS se_rounds,
  quantile_cont(evening_rounds, 0.5) AS p50_rounds,
  quantile_cont(evening_rounds, 0.9) AS p90_rounds,
  avg(main_turns) AS mean_main_turns, stddev_samp(main_turns) / sqrt(count(*)) AS se_main_turns,
  avg(main_rounds) AS mean_main_rounds,
  stddev_samp(main_rounds) / sqrt(count(*)) AS se_main_rounds,
  avg(table_turns) AS mean_table_turns, avg(table_rounds) AS mean_table_rounds
FROM evening GROUP BY run_id, variant, field
ORDER BY run_id, variant, field""",
    """CREATE OR REPLACE VIEW tournament_advance_by_position AS
WITH firsts AS (
  SELECT e.run_id, e.variant, e.field, e.first_table_players AS players,
    e.first_position AS position, e.advanced_first, s.advance
  FROM tournament_entrants e
  JOIN tournament_stages s ON s.run_id = e.run_id AND s.variant = e.variant
   AND s.field = e.field AND s.bracket = 'main' AND s.step = 0
  WHERE s.advance > 0
)
SELECT run_id, variant, field, players, position, count(*) AS n,
  count(*) FILTER (WHERE advanced_first) AS advanced,
  count(*) FILTER (WHERE advanced_first) / count(*) AS rate,
  wilson_lo(count(*) FILTER (WHERE advanced_first), count(*)) AS lo,
  wilson_hi(count(*) FILTER (WHERE advanced_first), count(*)) AS hi,
  any_value(advance) / players AS fair
FROM firsts GROUP BY run_id, variant, field, players, position
ORDER BY run_id, variant, field, players, position""",
    """CREATE OR REPLACE VIEW tournament_decided_by AS
SELECT t.run_id, t.variant, t.field, t.bracket, t.stage, any_value(s.step) AS step,
  any_value(t.stage_name) AS stage_name, count(*) AS tables,
  count(*) FILTER (WHERE t.decided_by = 'rank') AS by_rank,
  count(*) FILTER (WHERE t.decided_by = 'rounds_won') AS by_rounds_won,
  count(*) FILTER (WHERE t.decided_by = 'hand_points') AS by_hand_points,
  count(*) FILTER (WHERE t.decided_by = 'lot') AS by_lot,
  count(*) FILTER (WHERE t.decided_by = 'lot') / count(*) AS lot_rate,
  wilson_lo(count(*) FILTER (WHERE t.decided_by = 'lot'), count(*)) AS lot_lo,
  wilson_hi(count(*) FILTER (WHERE t.decided_by = 'lot'), count(*)) AS lot_hi
FROM tournament_tables t
JOIN tournament_stages s USING (run_id, variant, field, bracket, stage)
GROUP BY t.run_id, t.variant, t.field, t.bracket, t.stage
ORDER BY t.run_id, t.variant, t.field, t.bracket = 'consolation', step""",
    f"""CREATE OR REPLACE VIEW tournament_durations AS
WITH pace AS ({PACE}), parts AS (
  SELECT run_id, variant, field, bracket, step, stage_name AS part, tournaments AS n,
    mean_longest_turns AS mean_turns, se_longest_turns AS se_turns,
    p50_longest_turns AS p50_turns, p90_longest_turns AS p90_turns
  FROM tournament_stage_length
  UNION ALL
  SELECT run_id, variant, field, NULL, NULL, 'evening', tournaments, mean_turns, se_turns,
    p50_turns, p90_turns
  FROM tournament_length
)
SELECT t.run_id, t.variant, t.field, t.bracket, t.step, t.part, t.n, p.seconds_per_turn,
  {minutes("t.mean_turns", "t.se_turns", "t.p50_turns", "t.p90_turns")}
FROM parts t JOIN pace p USING (run_id)
ORDER BY t.run_id, t.variant, t.field, t.bracket IS NULL, t.bracket = 'consolation', t.step""",
]
VIEWS = ("tournament_profile_wins", "tournament_profile_stages", "tournament_stage_length",
         "tournament_length", "tournament_advance_by_position", "tournament_decided_by",
         "tournament_durations")


# --- Writing -----------------------------------------------------------------------------------

def insert_fields(con: duckdb.DuckDBPyConnection, run_id: str,
                 fields: Sequence[Mapping[str, Any]],
                 stages: Sequence[Mapping[str, Any]]) -> None:
    """Record a tournament run's cells (``tournament_fields`` rows) and their brackets
    (``tournament_stages`` rows). Runs inside ``start_run``'s transaction (its ``on_start``),
    so a run never exists without its cells."""
    for f in fields:
        con.execute(
            "INSERT INTO tournament_fields VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, f["variant"], f["field"], f.get("description"), f["entrants"],
             f["table_size"], f["consolation"], f["tournaments_requested"],
             f["games_per_tournament"], as_json_text(f["mix"]),
             as_json_text(f["profiles"])])
    for s in stages:
        con.execute(
            "INSERT INTO tournament_stages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, s["variant"], s["field"], s["bracket"], s["stage"], s["step"],
             s["stage_name"], s["players"], s["tables"], list(s["table_sizes"]),
             s["advance"]])


def completed_tournaments(con: duckdb.DuckDBPyConnection, run_id: str, variant: str,
                          field: str) -> int:
    """Tournaments stored for one cell (stored in order, whole, so a resume starts here)."""
    return con.execute(
        "SELECT count(*) FROM tournaments WHERE run_id = ? AND variant = ? AND field = ?",
        [run_id, variant, field]).fetchall()[0][0]


# --- Reading -----------------------------------------------------------------------------------

def is_tournament_run(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    return bool(first_row(con.execute(
        "SELECT 1 FROM tournament_fields WHERE run_id = ? LIMIT 1", [run_id])))


def completed_by_field(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[tuple[str, str], int]:
    """(variant, field) -> tournaments stored, for every cell of a tournament run."""
    rows = con.execute(
        """SELECT f.variant, f.field, count(t.tournament)
           FROM tournament_fields f LEFT JOIN tournaments t
             ON t.run_id = f.run_id AND t.variant = f.variant AND t.field = f.field
           WHERE f.run_id = ? GROUP BY f.variant, f.field""", [run_id]).fetchall()
    return {(v, f): int(n) for v, f, n in rows}


def table_of_game(con: duckdb.DuckDBPyConnection, run_id: str, variant: str, players: int,
                  game: int) -> dict[str, Any] | None:
    """The tournament table that played a stored game (for replay), or None."""
    cur = con.execute(
        """SELECT field, tournament, bracket, stage, stage_name, table_no, game_seed, entrants,
             profiles FROM tournament_tables
           WHERE run_id = ? AND variant = ? AND players = ? AND game = ?""",
        [run_id, variant, players, game])
    names = [d[0] for d in cur.description]
    row = first_row(cur)
    return dict(zip(names, row)) if row else None


def duplicate_keys(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Logical-key duplicates per tournament table (an integrity check; 0 everywhere)."""
    counts = {}
    for table, key in RESULT_KEYS.items():
        keys = ", ".join(key)
        counts[table] = con.execute(
            f"SELECT count(*) FROM (SELECT {keys} FROM {table} GROUP BY {keys} "
            "HAVING count(*) > 1)").fetchall()[0][0]
    return counts
