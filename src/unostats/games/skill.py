"""The report's skill-and-luck section: at a table of mixed policies, the best policy's edge over
its fair share next to the first player's edge, and how often the weaker side still wins.

A cell is a *mixed table* when its seats play more than one policy and every seat keeps its
policy in every game (plain runs; a tournament's tables change seats from game to game and are
the championship section's). Per policy: the share of rounds and of games its seats win, per seat
(the group's share divided by its number of seats, so 1/players is the fair share of every
policy). Intervals: a game (round) is won by exactly one seat, so the group's wins over the games
(rounds) with a winner are binomial: Wilson on the group's share, divided by its seats. Edges are
those shares minus 1/players (the interval shifted); the first player's edge is position 0's share
minus 1/players, from the store's views ``win_rate_by_position`` and
``game_win_rate_by_position``; the weaker side is every seat not of the best policy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:  # plotly is imported by the functions that draw: simulate needs none
    import plotly.graph_objects as go

from .. import stats
from ..base.format import fmt_estimate, fmt_pct
from ..base.plotting import new_figure
from ..stats import Estimate
from ..store import BY_CELL


@dataclass(frozen=True)
class PolicyShare:
    policy: str
    seats: int  # seats of the table playing it
    rounds: Estimate  # per seat: share of the rounds with a winner its seats win, / seats
    games: Estimate  # per seat: share of the games with a winner its seats win, / seats


@dataclass(frozen=True)
class MixedTable:
    run_id: str
    variant: str
    players: int
    target_score: int | None  # the score a game is played to (None: not recorded)
    policies: tuple[PolicyShare, ...]  # best first (per-seat game share)
    best_edge_rounds: Estimate  # best policy's per-seat round share minus 1/players
    best_edge_games: Estimate
    first_edge_rounds: Estimate  # position 0's round share minus 1/players
    first_edge_games: Estimate
    weaker_rounds: Estimate  # share of rounds won by a seat not of the best policy
    weaker_games: Estimate

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def best(self) -> PolicyShare:
        return self.policies[0]

    @property
    def weaker_fair(self) -> float:
        return (self.players - self.best.seats) / self.players


# The mixed tables the report's answers speak of (the first ones).
ANSWERED = 3
# The most mixed tables the section shows (a chart bar group and two tables each): the first
# ones in the store's order; past it the section says how many it leaves out.
MAX_TABLES = 100


@dataclass(frozen=True)
class SkillSection:
    tables: tuple[MixedTable, ...]  # the first MAX_TABLES
    mixed: int = 0  # mixed tables of the runs, shown or not (0: as many as shown)


# The mixed tables' seats: each seat's policies first (a few rows a cell), so the full scan of
# game_seats groups on the seat and the policy only (8.8M rounds, one cell: 0.64 -> ~0.1 s of
# CPU against a count(DISTINCT policy) per seat over every row); the rows read by cell id
# (``store.BY_CELL``), the cell columns joined to the few cells found.
_MIXED = f"""
seats AS (
  SELECT cell, seat, policy FROM {BY_CELL['game_seats']}
  WHERE cell IN (SELECT cell FROM cells WHERE run_id IN ({{ids}}))
  GROUP BY ALL
), fixed AS (  -- the seats that keep one policy in every game of their cell, and that policy
  SELECT cell, seat, min(policy) AS policy FROM seats
  GROUP BY ALL HAVING count(*) = 1
), mixed AS (  -- the cells whose every seat is fixed, with more than one policy
  SELECT cell FROM fixed JOIN cells USING (cell) GROUP BY ALL
  HAVING count(*) = any_value(players) AND count(DISTINCT policy) > 1
), seat_policy AS (
  SELECT * FROM fixed JOIN mixed USING (cell)
)"""
_ANY_MIXED = f"WITH {_MIXED} SELECT count(*) FROM mixed"
_SHARES = f"""
WITH {_MIXED}, groups AS (
  SELECT cell, policy, count(*) AS seats FROM seat_policy GROUP BY ALL
), round_wins AS (
  SELECT cell, sp.policy, count(*) AS wins
  FROM {BY_CELL['rounds']} r JOIN seat_policy sp USING (cell)
  WHERE r.ended_by = 'win' AND r.winner_seat = sp.seat GROUP BY ALL
), game_wins AS (
  SELECT cell, sp.policy, count(*) AS wins
  FROM {BY_CELL['games']} g JOIN seat_policy sp USING (cell)
  WHERE g.winner_seat = sp.seat GROUP BY ALL
)
SELECT c.run_id, c.variant, c.players, g.policy, g.seats,
  coalesce(rw.wins, 0) AS round_wins, coalesce(gw.wins, 0) AS game_wins
FROM groups g
JOIN cells c USING (cell)
LEFT JOIN round_wins rw USING (cell, policy)
LEFT JOIN game_wins gw USING (cell, policy)
ORDER BY c.run_id, c.variant, c.players, g.policy
"""


def _per_seat(wins: int, n: int, seats: int) -> Estimate:
    e = stats.wilson_interval(wins, n)
    return Estimate(e.value / seats, e.lo / seats, e.hi / seats, n,
                    "Wilson" if seats == 1 else f"Wilson on the {seats} seats' share, / {seats}")


def _minus(e: Estimate, fair: float) -> Estimate:
    return Estimate(e.value - fair, e.lo - fair, e.hi - fair, e.n, e.method + " minus 1/n")


def _first_player(con: duckdb.DuckDBPyConnection, view: str, ids: str,
                  params: list[str]) -> dict[tuple[str, str, int], tuple[int, int]]:
    """Cell -> (position 0's wins, rounds or games with a winner) from a position view."""
    rows = con.execute(f"SELECT run_id, variant, players, wins, n FROM {view} "
                       f"WHERE position = 0 AND run_id IN ({ids})", params).fetchall()
    return {(r, v, int(p)): (int(w), int(n)) for r, v, p, w, n in rows}


def load_skill(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> SkillSection | None:
    """The mixed tables of ``run_ids`` (None if they have none)."""
    ids = ", ".join("?" for _ in run_ids)
    params = list(run_ids)
    if not con.execute(_ANY_MIXED.format(ids=ids), params).fetchall()[0][0]:
        return None  # the rounds and games are read only for mixed tables
    rows = con.execute(_SHARES.format(ids=ids), params).fetchall()
    first_rounds = _first_player(con, "win_rate_by_position", ids, params)
    first_games = _first_player(con, "game_win_rate_by_position", ids, params)
    targets = {(r, v, int(p)): json.loads(rules).get("target_score") for r, v, p, rules in
               con.execute(f"SELECT run_id, variant, players, rules_json FROM variants "
                           f"WHERE run_id IN ({ids})", params).fetchall()}
    cells: dict[tuple[str, str, int], list[tuple]] = {}
    for run_id, variant, players, *rest in rows:
        cells.setdefault((run_id, variant, int(players)), []).append(tuple(rest))
    tables = []
    for key, groups in cells.items():
        (first_rw, rounds), (first_gw, games) = first_rounds[key], first_games[key]
        if not rounds or not games:
            continue  # no round or no game with a winner yet
        players = key[2]
        shares = sorted((PolicyShare(policy, int(seats), _per_seat(rw, rounds, seats),
                                     _per_seat(gw, games, seats))
                         for policy, seats, rw, gw in groups),
                        key=lambda s: (-s.games.value, -s.rounds.value, s.policy))
        best = shares[0]
        _, _, best_rw, best_gw = next(g for g in groups if g[0] == best.policy)
        weaker = "Wilson (every seat not of the best policy)"
        tables.append(MixedTable(
            run_id=key[0], variant=key[1], players=players,
            target_score=targets.get(key), policies=tuple(shares),
            best_edge_rounds=_minus(best.rounds, 1 / players),
            best_edge_games=_minus(best.games, 1 / players),
            first_edge_rounds=_minus(stats.wilson_interval(first_rw, rounds), 1 / players),
            first_edge_games=_minus(stats.wilson_interval(first_gw, games), 1 / players),
            weaker_rounds=_named(stats.wilson_interval(rounds - best_rw, rounds), weaker),
            weaker_games=_named(stats.wilson_interval(games - best_gw, games), weaker)))
    if not tables:
        return None
    mixed = len(tables) if len(tables) > MAX_TABLES else 0
    return SkillSection(tuple(tables[:MAX_TABLES]), mixed)


def _named(e: Estimate, method: str) -> Estimate:
    return Estimate(e.value, e.lo, e.hi, e.n, method)


def _label(t: MixedTable, section: SkillSection) -> str:
    runs = {x.run_id for x in section.tables}
    return f"{t.variant} ({t.run_id}), {t.players}p" if len(runs) > 1 else \
        f"{t.variant}, {t.players}p"


EDGES = (("best_edge_games", "best policy, games", "#0072B2"),
         ("best_edge_rounds", "best policy, rounds", "#56B4E9"),
         ("first_edge_games", "first player, games", "#D55E00"),
         ("first_edge_rounds", "first player, rounds", "#E69F00"))


def skill_figures(section: SkillSection) -> list[tuple[str, go.Figure, str]]:
    """One chart: per mixed table, the four edges over the fair share in points, with 95% bars."""
    import plotly.graph_objects as go

    labels = [_label(t, section) for t in section.tables]
    fig = new_figure()
    for attr, name, colour in EDGES:
        es = [getattr(t, attr) for t in section.tables]
        fig.add_trace(go.Bar(
            y=labels, x=[100 * e.value for e in es], name=name, orientation="h",
            marker_color=colour,
            error_x={"type": "data", "symmetric": False,
                     "array": [100 * (e.hi - e.value) for e in es],
                     "arrayminus": [100 * (e.value - e.lo) for e in es]},
            customdata=[[100 * e.lo, 100 * e.hi, e.n] for e in es],
            hovertemplate=f"{name}: %{{x:+.2f}} pp [%{{customdata[0]:+.2f}}, "
                          "%{customdata[1]:+.2f}], n=%{customdata[2]:,}<extra></extra>"))
    fig.update_layout(
        barmode="group", title="Skill and luck: edges over the fair share",
        xaxis_title="percentage points over 1/players (per seat)",
        height=max(320, 60 + 110 * len(labels)), yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0}, margin={"t": 110})
    caption = ("Per mixed table: how many points of game (round) share the best policy's seat "
               "wins above the fair 1/players, next to what sitting first is worth, with 95% "
               "intervals (Wilson, shifted by the fair share).")
    return [("fig-skill", fig, caption)]


def _sentence(t: MixedTable) -> str:
    against = ", ".join(f"{p.seats} {p.policy} seat{'s' if p.seats > 1 else ''}"
                        for p in t.policies[1:])
    to = f" to {t.target_score}" if t.target_score else ""
    b, fr = t.best.games, t.first_edge_rounds
    return (f"Under these rules a {t.best.policy} seat wins {fmt_pct(b.value)} "
            f"[{fmt_pct(b.lo)}, {fmt_pct(b.hi)}] of games{to} at a table of {t.players} with "
            f"{against}, against a fair {fmt_pct(t.fair)}; sitting first is worth "
            f"{100 * fr.value:+.1f} points [{100 * fr.lo:+.1f}, {100 * fr.hi:+.1f}] of round "
            f"share. The weaker side still wins {fmt_pct(t.weaker_games.value)} "
            f"[{fmt_pct(t.weaker_games.lo)}, {fmt_pct(t.weaker_games.hi)}] of games{to} "
            f"(fair {fmt_pct(t.weaker_fair)}) and {fmt_pct(t.weaker_rounds.value)} of rounds.")


def view(section: SkillSection) -> dict[str, Any]:
    """The skill-and-luck section for the template: a sentence and two tables per mixed table."""
    tables = []
    for t in section.tables:
        tables.append({
            "label": _label(t, section), "sentence": _sentence(t),
            "fair": fmt_pct(t.fair), "games_n": f"{t.best.games.n:,}",
            "rounds_n": f"{t.best.rounds.n:,}",
            "policies": [{"policy": p.policy, "seats": p.seats,
                          "rounds": fmt_estimate(p.rounds, "rate"),
                          "games": fmt_estimate(p.games, "rate")} for p in t.policies],
            "edges": [{"what": name, "estimate": fmt_estimate(getattr(t, attr), "diff_rate")}
                      for attr, name, _ in EDGES],
            "weaker": {"games": fmt_estimate(t.weaker_games, "rate"),
                       "rounds": fmt_estimate(t.weaker_rounds, "rate"),
                       "fair": fmt_pct(t.weaker_fair)}})
    said = [_sentence(t) for t in section.tables[:ANSWERED]]
    if len(section.tables) > ANSWERED:
        said.append(f"The section below has the other {len(section.tables) - ANSWERED:,} mixed "
                    "tables.")
    left_out = (f"The runs have {section.mixed:,} mixed tables; this section shows the first "
                f"{len(tables):,} and leaves out the other {section.mixed - len(tables):,}: "
                "query the store for the rest.") if section.mixed else ""
    return {"tables": tables, "left_out": left_out,
            "answers": [("Skill or luck?", said)] if said else []}
