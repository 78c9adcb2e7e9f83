"""The sums every summary reads, whatever a run kept (``keep``): given cells, each cell's named
sums over its games (``keep.SUM_NAMES``: ``games``; each game total's sum, ``turns``, and sum
of squares over games, ``turns__2``; the ratios' cross-products, ``turns__rounds``), computed by
SQL over the rows (``rows`` kept), over the games' totals (``games``) or by adding up the blocks
(``summary``). Also each game's totals (``game_totals_sql``: rows or games kept) and the
round-length histogram (``round_lengths``: every keep).

A cell of a run that kept ``summary`` is summed over whole blocks: ``games=N`` (games 0 .. N-1)
must end at a block's end (a stored batch's; precision targets and designs store batches that
end at their looks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..sql import StoreError
from .games import BY_CELL, game_measures_sql
from .keep import (MEASURE_TOTALS, PRODUCTS, ROUND_TOTALS, STORED_TOTALS_SQL, SUM_NAMES, TOTALS,
                   product)

Cell = tuple[str, str, int]  # (run_id, variant, players)

# The totals of a game stored whole in its ``games`` row (no grouping of rounds needed).
_IN_GAMES = {"rounds", "turns"}


def _split(name: str) -> tuple[str, ...]:
    """The totals a sum multiplies: ('turns',), ('turns', 'turns'), ('turns', 'rounds')."""
    if name == "games":
        return ()
    if name.endswith("__2"):
        t = name[:-3]
        return t, t
    for y, x in PRODUCTS:
        if name == product(y, x):
            return y, x
    if name in TOTALS:
        return (name,)
    raise ValueError(f"unknown sum {name!r}; expected one of {', '.join(SUM_NAMES)}")


def _sum(name: str, source: str = "") -> str:
    """SQL of sum ``name`` over a relation with one row per game and the totals as columns."""
    parts = _split(name)
    if not parts:
        return "count(*)"
    return "sum(" + " * ".join(f"{source}{p}::DOUBLE" for p in parts) + ")"


def _where_cells(cells: str, games: int | None, column: str = "game") -> str:
    return f"{cells}" + ("" if games is None else f" AND {column} < {int(games)}")


def rows_sums_sql(names: Sequence[str], cells: str, games: int | None = None) -> str:
    """Sums ``names`` by cell from the stored rows of the cells where ``cells`` (an SQL
    condition on ``cell``) holds: sums of round totals over the rounds directly, squares and
    products of a game's rounds and turns over ``games``, the others over each game's totals
    (rounds grouped by game) or how each game played (``game_measures_sql``)."""
    where = _where_cells(cells, games)
    by_round = [n for n in names if len(_split(n)) == 1 and n in ROUND_TOTALS]
    by_game = [n for n in names if n == "games" or (len(_split(n)) == 2
                                                    and set(_split(n)) <= _IN_GAMES)]
    measured = [n for n in names if _split(n) and set(_split(n)) <= set(MEASURE_TOTALS)]
    grouped = [n for n in names if n not in (*by_round, *by_game, *measured)]
    parts = ["SELECT cell, count(*) AS games"
             + "".join(f", {_sum(n)} AS {n}" for n in by_game if n != "games")
             + f" FROM {BY_CELL['games']} WHERE {where} GROUP BY cell"]
    if by_round:
        parts.append("SELECT cell, " + ", ".join(f"{ROUND_TOTALS[n]} AS {n}" for n in by_round)
                     + f" FROM {BY_CELL['rounds']} WHERE {where} GROUP BY cell")
    if grouped:
        needed = sorted({t for n in grouped for t in _split(n)})
        if not set(needed) <= set(ROUND_TOTALS):
            raise ValueError(f"sums {grouped} mix a game's rounds with how it played")
        per_game = ("SELECT cell, game, " + ", ".join(f"{ROUND_TOTALS[t]} AS {t}" for t in needed)
                    + f" FROM {BY_CELL['rounds']} WHERE {where} GROUP BY cell, game")
        parts.append("SELECT cell, " + ", ".join(f"{_sum(n)} AS {n}" for n in grouped)
                     + f" FROM ({per_game}) GROUP BY cell")
    if measured:
        parts.append("SELECT cell, " + ", ".join(f"{_sum(n)} AS {n}" for n in measured)
                     + f" FROM ({measures_per_game_sql(cells)}) WHERE {where} GROUP BY cell")
    ctes = ", ".join(f"s{i} AS ({sql})" for i, sql in enumerate(parts))
    joins = " ".join(f"LEFT JOIN s{i} USING (cell)" for i in range(1, len(parts)))
    return f"WITH {ctes} SELECT s0.cell, * EXCLUDE (cell) FROM s0 {joins}"


def measures_per_game_sql(cells: str) -> str:
    """How each game played (``MEASURE_TOTALS``) by cell id and game, from the stored rows of the
    cells where ``cells`` holds, as the totals of ``keep.game_totals`` give it."""
    return (f"SELECT c.cell, m.game, m.lead_changes, "
            f"CAST(m.winner_seat IS NOT NULL AS INTEGER) AS won_game, "
            f"CASE WHEN m.winner_seat IS NOT NULL THEN coalesce(CAST(m.comeback AS INTEGER), 0) "
            f"END AS comeback, m.drama, m.drama_share, m.decisiveness "
            f"FROM ({game_measures_sql(cells)}) m JOIN cells c USING (run_id, variant, players)")


def totals_sums_sql(names: Sequence[str], cells: str, games: int | None = None) -> str:
    """Sums ``names`` by cell over the stored totals of the games (``games`` kept)."""
    return ("SELECT cell, " + ", ".join(f"{_sum(n)} AS {n}" for n in names)
            + f" FROM ({STORED_TOTALS_SQL.format(cells=_where_cells(cells, games))}) "
            "GROUP BY cell")


def block_sums_sql(cells: str, games: int | None = None) -> str:
    """Every sum by cell and name over the stored blocks (``summary`` kept), and how many
    blocks ``games`` would split (they must be 0)."""
    split = "0" if games is None else (f"count(*) FILTER (WHERE first_game < {int(games)} AND "
                                        f"end_game > {int(games)})")
    return (f"SELECT cell, name, sum(value) FILTER (WHERE "
            f"{'TRUE' if games is None else f'end_game <= {int(games)}'}) AS value, "
            f"{split} AS split FROM block_sums WHERE {cells} GROUP BY cell, name")


def cell_sums(con: Any, cells: str, params: Mapping[str, Any] | None = None,
              names: Iterable[str] = SUM_NAMES, games: int | None = None
              ) -> dict[Cell, dict[str, float | None]]:
    """Each cell's sums ``names`` (None: a sum of NULLs only, a measure its run did not count),
    for the cells of ``cells`` that have games: an SQL condition on ``cells``' columns (alias
    c: run_id, variant, players) with named ``params``, whatever their runs kept; over games
    0 .. ``games``-1 of each cell (None: every stored game)."""
    names = list(dict.fromkeys(["games", *names]))
    for name in names:
        _split(name)
    rows = con.execute(f"SELECT c.cell, c.run_id, c.variant, c.players, "
                       f"coalesce(r.keep, 'rows') FROM cells c JOIN runs r USING (run_id) "
                       f"WHERE {cells}", dict(params or {})).fetchall()
    ids = {cell: (run, variant, int(players)) for cell, run, variant, players, _ in rows}
    by_keep: dict[str, list[int]] = {}
    for cell, *_, kept in rows:
        by_keep.setdefault(kept, []).append(cell)
    out: dict[Cell, dict[str, float | None]] = {}
    for kept, kept_cells in by_keep.items():
        condition = f"cell IN ({', '.join(str(int(c)) for c in kept_cells)})"
        if kept == "summary":
            found = _blocks(con, condition, names, games)
        else:
            sql = (rows_sums_sql if kept == "rows" else totals_sums_sql)(names, condition, games)
            cur = con.execute(sql)
            columns = [d[0] for d in cur.description]
            found = {row[0]: dict(zip(columns[1:], row[1:])) for row in cur.fetchall()}
        for cell, sums in found.items():
            if sums.get("games"):
                out[ids[cell]] = {n: None if sums.get(n) is None else float(sums[n])
                                  for n in names}
    return out


def _blocks(con: Any, condition: str, names: Sequence[str], games: int | None
            ) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for cell, name, value, split in con.execute(block_sums_sql(condition, games)).fetchall():
        if split:
            raise StoreError(f"games 0 .. {games - 1} end inside a stored block of a run that "
                             "kept summary; its sums are over whole blocks (batches)")
        found.setdefault(cell, {})[name] = value
    return {cell: {n: sums.get(n) for n in names} for cell, sums in found.items()}


def game_totals_sql(kept: str, cells: str) -> str:
    """Each game's totals (``keep.TOTALS``, with ``dealer``: its first round's dealer) by cell
    and game of the cells where ``cells`` holds: from the rows (``rows`` kept) or the stored
    totals (``games``); ``summary`` keeps none."""
    if kept == "games":
        return STORED_TOTALS_SQL.format(cells=cells)
    if kept != "rows":
        raise StoreError("a run that kept summary has no game's totals; it needs --keep rows "
                         "or games")
    per_game = ("SELECT cell, game, min(dealer_seat) FILTER (WHERE round = 1) AS dealer, "
                + ", ".join(f"{sql} AS {t}" for t, sql in ROUND_TOTALS.items())
                + f" FROM {BY_CELL['rounds']} WHERE {cells} GROUP BY cell, game")
    return (f"SELECT * FROM ({per_game}) JOIN ({measures_per_game_sql(cells)}) "
            "USING (cell, game)")


def round_lengths(con: Any, cells: str, params: Mapping[str, Any] | None = None
                  ) -> dict[Cell, dict[int, int]]:
    """Each cell's rounds by length in turns ({turns: rounds}), whatever its run kept."""
    sql = f"""WITH wanted AS (SELECT c.cell, coalesce(r.keep, 'rows') AS keep
                FROM cells c JOIN runs r USING (run_id) WHERE {cells})
    SELECT c.run_id, c.variant, c.players, x.turns, x.rounds FROM (
      SELECT cell, turns, count(*) AS rounds FROM {BY_CELL['rounds']}
      WHERE cell IN (SELECT cell FROM wanted WHERE keep = 'rows') GROUP BY cell, turns
      UNION ALL
      SELECT cell, turns, sum(rounds) FROM round_lengths
      WHERE cell IN (SELECT cell FROM wanted WHERE keep <> 'rows') GROUP BY cell, turns
    ) x JOIN cells c USING (cell) ORDER BY c.run_id, c.variant, c.players, x.turns"""
    out: dict[Cell, dict[int, int]] = {}
    for run, variant, players, turns, rounds in con.execute(sql, dict(params or {})).fetchall():
        out.setdefault((run, variant, int(players)), {})[int(turns)] = int(rounds)
    return out


def keeps(con: Any, run_ids: Sequence[str]) -> dict[str, str]:
    """What each run kept, by run id."""
    return {run: keep or "rows" for run, keep in con.execute(
        "SELECT run_id, keep FROM runs WHERE list_contains($runs, run_id)",
        {"runs": list(run_ids)}).fetchall()}

