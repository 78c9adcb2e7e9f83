"""Tournament runs: whole championships played with the engine and stored, with stop, resume and
progress; and the end-of-run summary. ``run.simulate`` / ``run.resume`` hand a scenario with a
``tournament:`` section to ``play``; the bracket itself is ``tournament.py``.

Each cell (variant x field) plays tournaments ``0 .. games-1`` in order. A table's game is one
``simulate_batches`` call with the table's seats and the game seed the bracket derived, so a
tournament is a pure function of (scenario, engine version, seed, index). Whole tournaments are
buffered and written together, one transaction per batch (about ``TARGET_BATCH_SECONDS`` of play,
or ``batch_tournaments``), so a stop request or a killed process leaves whole tournaments only and
a resume continues from the tournaments stored. Table games are numbered per cell (variant, table
size) in the order they are written; that order is fixed (cells in order, tournaments in order,
tables in play order), so a resumed run equals an uninterrupted one row for row.
"""

from __future__ import annotations

import math
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from . import run, store
from .store import tournaments as tournament_store
from .output import format_rows
from .run import format_interval
from .scenario import Scenario, Variant
from .seats import Seat
from .stats import mean_interval
from .tournament import (
    MAIN,
    Field,
    TableGame,
    TournamentResult,
    TournamentSpec,
    play_tournament,
)

TARGET_BATCH_SECONDS = 1.0


@dataclass(frozen=True)
class TournamentCell:
    index: int
    variant: Variant
    field: Field

    @property
    def label(self) -> str:
        return f"{self.variant.name} / {self.field.name}"


def cells(scenario: Scenario) -> list[TournamentCell]:
    """Every variant x field of a tournament scenario, in file order."""
    spec = _spec(scenario)
    return [TournamentCell(i * len(spec.fields) + j, v, f)
            for i, v in enumerate(scenario.variants) for j, f in enumerate(spec.fields)]


def _spec(scenario: Scenario) -> TournamentSpec:
    if scenario.tournament is None:
        raise ValueError(f"scenario {scenario.name!r} has no tournament section")
    return scenario.tournament


def games_requested(scenario: Scenario) -> int:
    spec = _spec(scenario)
    return sum(scenario.games * spec.games_per_tournament(c.field) for c in cells(scenario))


def start_fields(con, run_id: str, scenario: Scenario) -> None:
    """The tournament_fields and tournament_stages rows of a new run."""
    spec = _spec(scenario)
    fields, stages = [], []
    for c in cells(scenario):
        main, consolation = spec.brackets(c.field)
        fields.append({
            "variant": c.variant.name, "field": c.field.name,
            "description": c.field.description, "entrants": c.field.entrants,
            "table_size": spec.table_size, "consolation": bool(consolation),
            "tournaments_requested": scenario.games,
            "games_per_tournament": spec.games_per_tournament(c.field),
            "mix": dict(c.field.mix),
            "profiles": {p: {"policy": spec.profiles[p].policy,
                             "behaviour": dict(spec.profiles[p].behaviour)}
                         for p, _ in c.field.mix}})
        for bracket, plan in (("main", main), ("consolation", consolation)):
            for step, s in enumerate(plan):
                stages.append({"variant": c.variant.name, "field": c.field.name,
                               "bracket": bracket, "stage": s.stage, "step": step,
                               "stage_name": s.name, "players": s.players,
                               "tables": len(s.tables), "table_sizes": s.tables,
                               "advance": s.advance})
    tournament_store.insert_fields(con, run_id, fields, stages)


# --- The engine at a table ---------------------------------------------------------------------

class EngineTables:
    """``tournament.PlayTable`` backed by the engine: one game per call, the engine's game 0 of
    the table's seed. The Batch rides along as the payload, for storing.

    One game cannot use more than one thread, and starting Numba's thread pool for it costs far
    more than the game (measured: ~40 ms per 16-game tournament on 1 thread, 4-8x more with the
    pool on a busy 2-core machine), so tables play on one thread (``threads`` is for tests)."""

    def __init__(self, variant: Variant, threads: int | None = 1):
        self.rules = variant.rules
        self.threads = threads

    def __call__(self, seats: tuple[Seat, ...], game_seed: int) -> TableGame:
        from .engine.simulate import simulate_batches

        n = len(seats)
        batch = next(iter(simulate_batches(rules=self.rules, players=n, seats=seats, games=1,
                                           seed=game_seed, threads=self.threads)))
        return table_game(batch, n)


def table_game(batch: Any, players: int) -> TableGame:
    """What the bracket needs from one game's frames (per seat, seat order)."""
    gs = batch.game_seats
    rank = np.zeros(players, dtype=np.int64)
    rank[gs["seat"].to_numpy()] = gs["rank"].to_numpy()
    winners = batch.rounds["winner_seat"].drop_nulls().to_numpy().astype(np.int64)
    won = np.bincount(winners, minlength=players)
    rs = batch.round_seats
    seat = rs["seat"].to_numpy().astype(np.int64)
    first = rs["round"].to_numpy() == 1
    position = np.zeros(players, dtype=np.int64)
    position[seat[first]] = rs["position"].to_numpy()[first]
    left = np.bincount(seat, weights=rs["hand_points"].to_numpy(), minlength=players)
    return TableGame(rank=tuple(int(r) for r in rank), rounds_won=tuple(int(w) for w in won),
                     first_position=tuple(int(p) for p in position),
                     rounds=int(batch.games["rounds"][0]), turns=int(batch.games["turns"][0]),
                     hand_points=tuple(int(h) for h in left), payload=batch)


# --- Rows ---------------------------------------------------------------------------------------

# The tournament frames' dtypes by store type (every other store type is an integer).
_POLARS_TYPES = {"BOOLEAN": pl.Boolean, "VARCHAR": pl.String, "SMALLINT[]": pl.List(pl.Int64),
                 "VARCHAR[]": pl.List(pl.String)}


def result_frames(results: Sequence[TournamentResult], spec: TournamentSpec,
                  counters: dict[int, int]) -> tuple[dict[int, Any], dict[str, pl.DataFrame]]:
    """The rows of whole tournaments: engine frames per table size (games numbered from
    ``counters``, which is advanced) and the tournament tables' frames."""
    from .engine.simulate import Batch

    parts: dict[int, dict[str, list[pl.DataFrame]]] = {}
    numbers: dict[int, list[int]] = {}  # table size -> the game number of each part
    tours, tables, entrants = [], [], []
    for r in results:
        final = next(t for t in reversed(r.tables) if t.bracket == MAIN)
        tours.append({
            "tournament": r.index, "champion": r.champion,
            "champion_profile": r.field.entrant_profiles()[r.champion],
            "champion_decided_by": final.decided_by,
            "consolation_champion": r.consolation_champion,
            "consolation_champion_profile": (None if r.consolation_champion is None else
                                             r.field.entrant_profiles()[r.consolation_champion]),
            "games": r.games()})
        for t in r.tables:
            n = len(t.entrants)
            game = counters.get(n, 0)
            counters[n] = game + 1
            batch = t.game.payload
            frames = parts.setdefault(n, {name: [] for name in store.FRAME_COLUMNS})
            for name in store.FRAME_COLUMNS:
                frames[name].append(getattr(batch, name))
            numbers.setdefault(n, []).append(game)
            tables.append({
                "tournament": r.index, "bracket": t.bracket, "stage": t.stage.stage,
                "stage_name": t.stage.name, "table_no": t.table, "players": n, "game": game,
                "game_seed": t.game_seed, "entrants": list(t.entrants),
                "profiles": list(t.profiles), "advance": t.stage.advance,
                "finish": list(t.finish), "advancers": list(t.advancers),
                "decided_by": t.decided_by})
        for e in r.entrants:
            c = e.consolation
            entrants.append({
                "tournament": r.index, "entrant": e.entrant, "profile": e.profile,
                "policy": spec.profiles[e.profile].policy, "stage": e.main.stage,
                "stage_name": e.main.stage_name, "finish": e.main.finish, "place": e.main.place,
                "is_champion": e.entrant == r.champion, "first_table": e.first_table,
                "first_seat": e.first_seat, "first_position": e.first_position,
                "first_table_players": e.first_table_players,
                "advanced_first": e.advanced_first,
                "consolation_stage": None if c is None else c.stage,
                "consolation_stage_name": None if c is None else c.stage_name,
                "consolation_place": None if c is None else c.place,
                "is_consolation_champion": e.entrant == r.consolation_champion})
    games = {}
    for n, p in parts.items():  # each table's frames hold its game 0: renumber them
        out = []
        for name in store.FRAME_COLUMNS:
            heights = [df.height for df in p[name]]
            df = pl.concat(p[name], how="vertical")
            out.append(df.with_columns(pl.Series("game", np.repeat(
                np.asarray(numbers[n], dtype=np.int64), heights))))
        games[n] = Batch(*out)
    rows = {"tournaments": tours, "tournament_tables": tables, "tournament_entrants": entrants}
    frames = {name: pl.DataFrame(rows[name], schema={
                  c: _POLARS_TYPES.get(t, pl.Int64) for c, t, _ in tournament_store.COLUMNS[name]})
              for name in tournament_store.BATCH_TABLES}
    return games, frames


# --- Playing a run ------------------------------------------------------------------------------

def play(con, outcome: Any, *, threads: int | None, batch_tournaments: int | None,
         progress: Any, stop: Any) -> Any:
    """Play every tournament cell of ``outcome.scenario`` from its stored tournaments to the end
    (or until ``stop``); the twin of ``run._play`` for tournament scenarios. Every table game
    plays on one thread, whatever ``threads`` says (see ``EngineTables``)."""
    scenario = outcome.scenario
    spec = _spec(scenario)
    stop = stop or run.StopRequest()
    todo = cells(scenario)
    done = tournament_store.completed_by_field(con, outcome.run_id)
    # variant -> table size -> games stored: the number of the cell's next table game
    counters = {v.name: {n: store.completed_games(con, outcome.run_id, v.name, n)
                         for n in scenario.players} for v in scenario.variants}
    started = time.perf_counter()
    status = "interrupted"
    outcome.tournaments_played = 0
    try:
        run.announce_compilation(progress)
        firsts = [done.get((c.variant.name, c.field.name), 0) for c in todo]
        for c, first in zip(todo, firsts):
            progress.cell_started(str(c.index), c.label, first, scenario.games,
                                  unit="tournaments")
        for c, first in zip(todo, firsts):
            if not _play_cell(con, outcome, c, spec, first, counters[c.variant.name],
                              batch_tournaments=batch_tournaments, progress=progress,
                              stop=stop):
                break
        else:
            status = "complete"
        if stop.requested and status != "complete":
            outcome.signal = stop.signum
    except KeyboardInterrupt:
        outcome.signal = signal.SIGINT
        raise
    finally:
        run.end_session(con, outcome, status, started=started, progress=progress)
    return outcome


def _play_cell(con, outcome: Any, c: TournamentCell, spec: TournamentSpec, first: int,
               counters: dict[int, int], *, batch_tournaments: int | None, progress: Any,
               stop: Any) -> bool:
    """Play one cell's remaining tournaments; False if a stop request ended it early.
    ``counters`` (table size -> the variant's next game number) advances as they are stored."""
    scenario = outcome.scenario
    tables = EngineTables(c.variant)
    buffer: list[TournamentResult] = []
    since = time.perf_counter()
    t = first
    while t < scenario.games:
        if stop.requested:
            break
        buffer.append(play_tournament(spec, c.field, seed=scenario.seed, index=t,
                                      play_table=tables))
        t += 1
        elapsed = time.perf_counter() - since
        full = (len(buffer) >= batch_tournaments if batch_tournaments
                else elapsed >= TARGET_BATCH_SECONDS)
        if full or t == scenario.games:
            _store(con, outcome, c, spec, buffer, counters, progress, elapsed)
            buffer, since = [], time.perf_counter()
    if buffer:  # a stop request: keep what is whole
        _store(con, outcome, c, spec, buffer, counters, progress,
               time.perf_counter() - since)
    return t >= scenario.games


def _store(con, outcome: Any, c: TournamentCell, spec: TournamentSpec,
           results: list[TournamentResult], counters: dict[int, int], progress: Any,
           seconds: float) -> None:
    numbers = dict(counters)  # advanced by result_frames; kept only once the write succeeds
    games, frames = result_frames(results, spec, numbers)
    tournament_store.write_tournaments(con, outcome.run_id, c.variant.name, c.field.name, games,
                                       frames)
    counters.update(numbers)
    n_games = sum(r.games() for r in results)
    outcome.games_played += n_games
    outcome.games_completed += n_games
    outcome.rounds_played += sum(b.rounds.height for b in games.values())
    outcome.tournaments_played += len(results)
    lo, hi = results[0].index, results[-1].index
    progress.batch_stored(str(c.index), c.label, lo, hi, hi + 1, outcome.scenario.games,
                          len(results) / max(seconds, 1e-6), unit="tournaments")


# --- Summary ------------------------------------------------------------------------------------

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
    """Per variant and field: the evening's length in turns and rounds (see the view)."""
    out = []
    for r in _view_rows(con, "tournament_length", run_id):
        turns = mean_interval(_f(r["mean_turns"]), _f(r["se_turns"]), r["tournaments"])
        rounds = mean_interval(_f(r["mean_rounds"]), _f(r["se_rounds"]), r["tournaments"])
        out.append({"run_id": r["run_id"], "variant": r["variant"], "field": r["field"],
                    "tournaments": r["tournaments"], "turns": turns, "rounds": rounds,
                    "p90_turns": r["p90_turns"]})
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
    the final); in table format also the stage lengths and the evening. Other formats give the
    profile rows only (the rest is in the views)."""
    profiles = rows["profiles"]
    if fmt != "table":
        return format_rows(PROFILE_COLUMNS, [[r[c] for c in PROFILE_COLUMNS] for r in profiles],
                           fmt)
    table = [[r["run_id"], r["variant"], r["field"], r["profile"], r["entrants"],
              r["tournaments"], r["wins"],
              format_interval(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"]),
              f"{r['fair']:.4f}",
              format_interval(r["edge"], r["edge_lo"], r["edge_hi"]),
              format_interval(r["final_rate"], r["final_rate_lo"], r["final_rate_hi"])]
             for r in profiles]
    text = format_rows(("run", "variant", "field", "profile", "entrants", "tournaments", "titles",
                        "win chance per entrant [95% CI]", "fair 1/n", "edge x fair [95% CI]",
                        "reaches the final [95% CI]"), table, "table", width=width)
    stages = [[r["variant"], r["field"], r["bracket"], r["stage_name"], r["tables"], r["games"],
               format_interval(r["rounds_per_game"], r["rounds_per_game_lo"],
                               r["rounds_per_game_hi"]),
               format_interval(r["turns_per_game"], r["turns_per_game_lo"],
                               r["turns_per_game_hi"]),
               format_interval(r["longest_turns"], r["longest_turns_lo"],
                               r["longest_turns_hi"])]
              for r in rows["stages"]]
    text += "\n" + format_rows(("variant", "field", "bracket", "stage", "tables", "games",
                                "rounds/game [95% CI]", "turns/game [95% CI]",
                                "longest table, turns [95% CI]"), stages, "table", width=width)
    evening = [[r["variant"], r["field"], r["tournaments"],
                format_interval(r["turns"].value, r["turns"].lo, r["turns"].hi),
                f"{r['p90_turns']:.0f}" if r["p90_turns"] is not None else "-",
                format_interval(r["rounds"].value, r["rounds"].lo, r["rounds"].hi)]
               for r in rows["evening"]]
    text += "\n" + format_rows(("variant", "field", "tournaments", "evening, turns [95% CI]",
                                "p90 turns", "evening, rounds [95% CI]"), evening, "table",
                               width=width)
    return text
