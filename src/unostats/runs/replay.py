"""Replaying a stored game: recomputed from the run's stored scenario and seed (through its
kind: a tournament table's game has that table's seats and seed), checked event by event by the
referee, and the referee's numbers compared with the stored rows."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .. import codes, store
from ..kinds import kind_of
from ..scenario import Cell
from ..base.engine_cache import prepare_engine
from ..base.progress import Progress
from ..base.session import RunError, cell_label, locate, resolve_run, stored_scenario


@dataclass
class Replay:
    run_id: str
    variant: str
    players: int
    game: int
    trace_text: str  # format_trace, all rounds or the requested one
    mismatches: list[str] = field(default_factory=list)  # empty: the stored rows agree
    referee_error: str | None = None  # the referee rejected the recomputed game
    compared: tuple[str, ...] = ("games", "game_seats", "rounds", "round_seats")  # rows kept


def replay(*, game: int, run: str | None = None, db: str | os.PathLike | None = None,
           variant: str | None = None, players: int | None = None,
           round: int | None = None, progress: Progress | None = None) -> Replay:
    """Recompute one stored game from the run's scenario and seed, check it with the referee
    and compare the referee's numbers with the stored rows of that game."""
    con = store.open_store(locate(db), read_only=True)
    try:
        run_id = resolve_run(con, run)
        info = store.run_info(con, run_id)
        scenario = stored_scenario(info)
        kind = kind_of(scenario)
        cells = (list(scenario.cells()) if kind.stored_cells is None
                 else kind.stored_cells(con, run_id, scenario))
        cell = _pick_cell(cells, run_id, variant, players)
        stored_games = next((c["games_completed"] for c in info["cells"]
                             if c["variant"] == cell.variant.name
                             and c["players"] == cell.players), 0)
        if not 0 <= game < stored_games:
            raise RunError(f"game {game} is not stored for {cell_label(cell)} of run {run_id}: "
                           f"stored games are 0..{stored_games - 1}"
                           if stored_games else
                           f"run {run_id} has no stored games for {cell_label(cell)}",
                           exit_code=2)
        kept = store.KEPT_TABLES[store.run_keep(con, run_id)]
        stored = _stored_game(con, run_id, cell, game, kept)
        seats, seed, index = kind.replay_args(con, run_id, scenario, cell, game)
    finally:
        con.close()

    # a replay plays the traced game only, counting as its run did
    prepare_engine(progress, [], traced=True, how_it_plays=scenario.how_it_plays)
    from ..engine.referee import RefereeError, check_trace, format_trace
    from ..engine.simulate import trace_game

    trace = trace_game(rules=cell.variant.rules, players=cell.players, seats=seats,
                       seed=seed, game=index, how_it_plays=scenario.how_it_plays)
    text = format_trace(trace)
    n_rounds = (stored["games"][0]["rounds"] if stored.get("games")  # else: the trace's
                else len({line.split(" ", 1)[0] for line in text.splitlines()
                          if line.startswith("r")}))
    if round is not None:
        if not 1 <= round <= max(n_rounds, 1):
            raise RunError(f"game {game} has rounds 1..{n_rounds}, not {round}", exit_code=2)
        prefix = f"r{round} "
        text = "\n".join(line for line in text.splitlines() if line.startswith(prefix))
    result = Replay(run_id, cell.variant.name, cell.players, game, text, compared=kept)
    try:
        checked = check_trace(trace)
    except RefereeError as e:
        result.referee_error = f"the referee rejects the recomputed game: {e}"
        return result
    except NotImplementedError as e:
        result.referee_error = f"the referee cannot check this game: {e}"
        return result
    result.mismatches = compare_game(checked, stored)
    return result


def _pick_cell(cells: list[Cell], run_id: str, variant: str | None,
               players: int | None) -> Cell:
    chosen = [c for c in cells if (variant is None or c.variant.name == variant)
              and (players is None or c.players == players)]
    if len(chosen) == 1:
        return chosen[0]
    listing = ", ".join(cell_label(c) for c in cells)
    if not chosen:
        asked = " ".join(x for x in (f"variant {variant!r}" if variant else "",
                                     f"players {players}" if players else "") if x)
        raise RunError(f"run {run_id} has no cell with {asked}; its cells: {listing}",
                       exit_code=2)
    which = "cells"
    if len(chosen) < len(cells):
        listing = ", ".join(cell_label(c) for c in chosen)
        which = "cells that match"
    raise RunError(f"run {run_id} has {len(chosen)} {which} ({listing}); say which with "
                   "--variant NAME --players N", exit_code=2)


def _stored_game(con, run_id: str, cell: Cell, game: int,
                 kept: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """The stored rows of one game in the tables its run kept (``store.keep``)."""
    out = {}
    order = {"games": "game", "game_seats": "seat", "rounds": "round",
             "round_seats": "round, seat"}
    for table, by in order.items():
        if table not in kept:
            continue
        cur = con.execute(
            f"SELECT * FROM {table} WHERE run_id = ? AND variant = ? AND players = ? "
            f"AND game = ? ORDER BY {by}", [run_id, cell.variant.name, cell.players, game])
        names = [d[0] for d in cur.description]
        out[table] = [dict(zip(names, row)) for row in cur.fetchall()]
    return out


_ROUND_FIELDS = ("dealer_seat", "first_seat", "winner_seat", "winner_position",
                 *codes.COUNTER_NAMES, "points", "ended_by", "largest_penalty",
                 *codes.MEASURE_NAMES)


def compare_game(result: Any, stored: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Differences between the referee's GameResult and the stored rows of one game (the
    tables its run kept)."""
    problems = []
    if "rounds" not in stored:
        return problems + _game_problems(result, stored)
    rounds = stored["rounds"]
    if len(result.rounds) != len(rounds):
        problems.append(f"rounds: the referee counts {len(result.rounds)}, "
                        f"the store has {len(rounds)}")
    seats_by_round: dict[int, list[dict]] = {}
    for row in stored["round_seats"]:
        seats_by_round.setdefault(row["round"], []).append(row)
    for ref, row in zip(result.rounds, rounds):
        for name in ("round", *_ROUND_FIELDS):
            if getattr(ref, name) != row[name]:
                problems.append(f"round {row['round']} {name}: referee {getattr(ref, name)!r}, "
                                f"stored {row[name]!r}")
        seat_rows = seats_by_round.get(row["round"], [])
        for name in ("cards_left", "hand_points", "score_after"):
            stored_values = tuple(s[name] for s in seat_rows)
            if getattr(ref, name) != stored_values:
                problems.append(f"round {row['round']} {name}: referee {getattr(ref, name)}, "
                                f"stored {stored_values}")
    return problems + _game_problems(result, stored)


def _game_problems(result: Any, stored: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Differences in the game's own rows (none kept: none found)."""
    if not stored.get("games"):
        return []
    problems = []
    g = stored["games"][0]
    if result.winner_seat != g["winner_seat"]:
        problems.append(f"game winner_seat: referee {result.winner_seat!r}, "
                        f"stored {g['winner_seat']!r}")
    if result.ended_by != g["ended_by"]:
        problems.append(f"game ended_by: referee {result.ended_by!r}, "
                        f"stored {g['ended_by']!r}")
    if sum(r.turns for r in result.rounds) != g["turns"]:
        problems.append(f"game turns: referee {sum(r.turns for r in result.rounds)}, "
                        f"stored {g['turns']}")
    finals = tuple(s["final_score"] for s in stored["game_seats"])
    if result.final_scores != finals:
        problems.append(f"final scores: referee {result.final_scores}, stored {finals}")
    return problems
