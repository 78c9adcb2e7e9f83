"""The summary of tournament runs: per profile the chance one entrant wins (with the fair share
and the edge over it) and reaches the final; per stage rounds and turns per table game and the
longest table; the evening's length (turns, rounds, hours); as rows or as the tables ``simulate``
prints."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from .. import store
from ..output import Column, Numeral, format_interval, format_rows, format_table, interval_cell
from ..stats import mean_interval

PROFILE_COLUMNS = (
    "run_id", "variant", "field", "profile", "entrants", "field_entrants", "tournaments",
    "wins", "win_rate", "win_rate_lo", "win_rate_hi", "fair", "edge", "edge_lo", "edge_hi",
    "final_rate", "final_rate_lo", "final_rate_hi",
)
STAGE_COLUMNS = (
    "run_id", "variant", "field", "bracket", "stage", "stage_name", "tables", "games",
    "rounds_per_game", "rounds_per_game_lo", "rounds_per_game_hi",
    "turns_per_game", "turns_per_game_lo", "turns_per_game_hi",
    "longest_turns", "longest_turns_lo", "longest_turns_hi",
)


def profile_rows(con, run_id: str) -> list[dict[str, Any]]:
    """Per variant, field and profile: the chance one entrant of the profile wins (Wilson over
    tournaments, divided by the profile's entrants), the fair share 1/entrants, the edge (rate x
    entrants) and the chance to reach the final."""
    rows = con.execute(
        """SELECT w.run_id, w.variant, w.field, w.profile, w.entrants, w.field_entrants,
             w.tournaments, w.wins, w.rate, w.lo, w.hi, w.fair, w.edge, w.edge_lo, w.edge_hi,
             s.rate, s.lo, s.hi
           FROM tournament_profile_wins w
           LEFT JOIN (SELECT * FROM tournament_profile_stages ps WHERE ps.run_id = $run_id
                        AND ps.step = (SELECT max(step) FROM tournament_stages st
                                       WHERE st.run_id = ps.run_id AND st.variant = ps.variant
                                         AND st.field = ps.field AND st.bracket = 'main')) s
             USING (run_id, variant, field, profile)
           WHERE w.run_id = $run_id""", {"run_id": run_id}).fetchall()
    out = [dict(zip(PROFILE_COLUMNS, r)) for r in rows]
    return _in_order(con, run_id, out, key=lambda r: (-r["edge"] if r["edge"] is not None
                                                      else 0, r["profile"]))


def stage_rows(con, run_id: str) -> list[dict[str, Any]]:
    """Per variant, field, bracket and stage: rounds and turns per table game and the turns of
    the stage's longest table (means with 95% intervals)."""
    out = []
    for r in _view_rows(con, "tournament_stage_length", run_id):
        rounds = mean_interval(_f(r["mean_rounds"]), _f(r["se_rounds"]), r["games"])
        turns = mean_interval(_f(r["mean_turns"]), _f(r["se_turns"]), r["games"])
        longest = mean_interval(_f(r["mean_longest_turns"]), _f(r["se_longest_turns"]),
                                r["tournaments"])
        out.append(dict(zip(STAGE_COLUMNS, (
            r["run_id"], r["variant"], r["field"], r["bracket"], r["stage"], r["stage_name"],
            r["tables"], r["games"], rounds.value, rounds.lo, rounds.hi, turns.value, turns.lo,
            turns.hi, longest.value, longest.lo, longest.hi))))
    return _in_order(con, run_id, out, key=lambda r: (r["bracket"] != "main", r["stage"]))


def evening_rows(con, run_id: str) -> list[dict[str, Any]]:
    """Per variant and field: the evening's length in turns, rounds and hours (at the run's
    seconds_per_turn; see the views tournament_length and tournament_durations)."""
    hours = {(r["variant"], r["field"]): r for r in _view_rows(con, "tournament_durations", run_id)
             if r["bracket"] is None}
    out = []
    for r in _view_rows(con, "tournament_length", run_id):
        turns = mean_interval(_f(r["mean_turns"]), _f(r["se_turns"]), r["tournaments"])
        rounds = mean_interval(_f(r["mean_rounds"]), _f(r["se_rounds"]), r["tournaments"])
        h = hours[(r["variant"], r["field"])]
        out.append({"run_id": r["run_id"], "variant": r["variant"], "field": r["field"],
                    "tournaments": r["tournaments"], "turns": turns, "rounds": rounds,
                    "p90_turns": r["p90_turns"], "seconds_per_turn": h["seconds_per_turn"],
                    "hours": tuple(_f(h[k]) / 60 for k in ("mean_minutes", "lo_minutes",
                                                          "hi_minutes"))})
    return _in_order(con, run_id, out, key=lambda r: 0)


def _view_rows(con, view: str, run_id: str) -> list[dict[str, Any]]:
    cur = con.execute(f"SELECT * FROM {view} WHERE run_id = ?", [run_id])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def _f(x: Any) -> float:
    return math.nan if x is None else float(x)


def _in_order(con, run_id: str, rows: list[dict[str, Any]], key) -> list[dict[str, Any]]:
    """Rows sorted by the scenario's cell order (variant, field), then ``key``."""
    order = {(v, f): i for i, (v, f) in enumerate(con.execute(
        "SELECT variant, field FROM tournament_fields WHERE run_id = ? ORDER BY rowid",
        [run_id]).fetchall())}
    return sorted(rows, key=lambda r: (order.get((r["variant"], r["field"]), len(order)),
                                       key(r)))


def summaries(*, db, run_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Profile, stage and evening rows of tournament runs, read-only."""
    con = store.open_store(db, read_only=True)
    try:
        out: dict[str, list[dict[str, Any]]] = {"profiles": [], "stages": [], "evening": []}
        for rid in run_ids:
            out["profiles"] += profile_rows(con, rid)
            out["stages"] += stage_rows(con, rid)
            out["evening"] += evening_rows(con, rid)
        return out
    finally:
        con.close()


def format_summary(rows: dict[str, list[dict[str, Any]]], fmt: str = "table",
                   width: int | None = None) -> str:
    """The profile table (per-entrant win chance with its interval, fair share, edge, reaching
    the final); in table format also the stage lengths and the evening, each fitted to
    ``width`` when given, shares in percent. Other formats give the profile rows only (the
    rest is in the views), shares as fractions."""
    profiles = rows["profiles"]
    if fmt != "table":
        return format_rows(PROFILE_COLUMNS, [[r[c] for c in PROFILE_COLUMNS] for r in profiles],
                           fmt)
    return "\n".join([format_table(PROFILE_TABLE, profiles, width),
                      format_table(STAGE_TABLE, rows["stages"], width),
                      format_table(EVENING_TABLE, rows["evening"], width)])


# The tables ``simulate`` prints. Shares in percent (fractions in csv and json).
PROFILE_TABLE = (
    Column("run", 4, lambda r: r["run_id"]),
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("field", 2, lambda r: r["field"], wrap=True),
    Column("profile", 0, lambda r: r["profile"], wrap=True),
    Column("entrants", 3, lambda r: r["entrants"]),
    Column("tournaments", 4, lambda r: r["tournaments"]),
    Column("titles", 3, lambda r: r["wins"]),
    Column("win chance per entrant (%) [95% CI]", 0, interval_cell("win_rate", 100)),
    Column("fair 1/n (%)", 1, lambda r: Numeral(f"{100 * r['fair']:.1f}")),
    Column("edge x fair [95% CI]", 1, interval_cell("edge")),
    Column("reaches the final (%) [95% CI]", 2, interval_cell("final_rate", 100)),
)
STAGE_TABLE = (
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("field", 2, lambda r: r["field"], wrap=True),
    Column("bracket", 3, lambda r: r["bracket"]),
    Column("stage", 0, lambda r: r["stage_name"]),
    Column("tables", 4, lambda r: r["tables"]),
    Column("games", 4, lambda r: r["games"]),
    Column("rounds/game [95% CI]", 1, interval_cell("rounds_per_game")),
    Column("turns/game [95% CI]", 1, interval_cell("turns_per_game")),
    Column("longest table, turns [95% CI]", 2, interval_cell("longest_turns")),
)
EVENING_TABLE = (
    Column("variant", 0, lambda r: r["variant"], wrap=True),
    Column("field", 2, lambda r: r["field"], wrap=True),
    Column("tournaments", 4, lambda r: r["tournaments"]),
    Column("evening, turns [95% CI]", 1, lambda r: _interval(r["turns"])),
    Column("p90 turns", 3,
           lambda r: Numeral(f"{r['p90_turns']:.0f}" if r["p90_turns"] is not None else "-")),
    Column("evening, rounds [95% CI]", 2, lambda r: _interval(r["rounds"])),
    Column("evening, hours [95% CI]", 0, lambda r: format_interval(*r["hours"])),
    Column("s/turn", 3, lambda r: Numeral(f"{r['seconds_per_turn']:g}")),
)


def _interval(est) -> str:
    return format_interval(est.value, est.lo, est.hi)


def summary_text(*, db: str | os.PathLike, run_ids: Sequence[str], fmt: str,
                 width: int | None = None) -> str:
    """The summary of finished tournament runs as ``simulate`` prints it."""
    return format_summary(summaries(db=db, run_ids=run_ids), fmt, width=width)
