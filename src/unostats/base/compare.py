"""``unostats compare A B [B...]``: stored cells compared statistic by statistic, with intervals.

A cell is written ``RUN/VARIANT/PLAYERS`` (RUN an id, a unique prefix or ``latest``). For each B,
one row per statistic: A's value, B's, ``diff`` = B - A with its 95% interval, the method and
whether the difference was paired.

Every statistic is a ratio of sums over a cell's games (turns / rounds, rounds / games, points /
won rounds, rounds won by position 0 / won rounds, and how the variant plays: lead changes /
games, comebacks, drama and decisiveness / won games, hand leader changes / rounds, ...:
``RATIOS``), estimated as the ratio of the totals with a
delta-method standard error over games (each game's residual ``(y - R x) / mean(x)``), so the
rounds of one game are never taken as independent.

The unpaired interval comes from the cells' sums (``store.sums``: Σy, Σx, Σy², Σx², Σxy over
games), so it is the same whatever the runs kept (``--keep``); pairing needs each game's
totals, kept by ``rows`` and ``games`` (a cell that kept ``summary`` is compared unpaired, and
the note says why).

Common random numbers: the engine seeds game i of every cell of a run from (run seed, i), and the
deal comes first from that stream, so two cells with the same seed, player count, deck and hand
size deal game i alike (their rules differ later). Then the difference is taken game by game
(paired: the spread of the per-game differences), which removes the deal's share of the noise;
``narrowing`` says by how much that interval is narrower than the unpaired one over the same
games. Pairing also checks the stored dealer of every game's first round, and says why when it
does not apply.

``format_comparisons`` writes the rows: csv and json every column of ``COLUMNS`` as numbers
(shares as fractions); the table for people, each value to the digits its difference's interval
supports, the share in percent (its difference in percentage points), fitted to a terminal.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .. import store
from ..output import Numeral, fixed, format_interval, format_rows, interval_digits
from ..stats import Z95, Estimate, two_sided_p
from .session import RunError, locate, resolve_run

# statistic -> (numerator, denominator) of the per-game totals; after the first four, how a
# variant plays (games/plays.py; balance, a gap between seats, is no ratio of a game's totals)
RATIOS = {"turns_per_round": ("turns", "rounds"), "rounds_per_game": ("rounds", "one"),
          "points_per_round": ("points", "won"), "first_player_share": ("p0", "won"),
          "lead_changes_per_game": ("lead_changes", "one"),
          "comeback_share": ("comeback", "won_game"),
          "drama_share": ("drama_share", "won_game"),
          "decisiveness": ("decisiveness", "won_game"),
          "hand_leader_changes_per_round": ("hand_leader_changes", "rounds"),
          "winner_largest_deficit": ("winner_deficit", "won"),
          "decision_share": ("decision_turns", "turns"),
          "legal_cards_per_decision": ("legal_cards_on_decisions", "decision_turns"),
          "uno_stops_per_round": ("uno_stops", "rounds"),
          "uno_stops_still_won_share": ("uno_stops_still_won", "uno_stops")}
# The four the report's tables and a sweep's heat maps show; ``unostats compare`` prints every one.
STATISTICS = ("turns_per_round", "rounds_per_game", "points_per_round", "first_player_share")
PLAY_STATISTICS = tuple(stat for stat in RATIOS if stat not in STATISTICS)
ALL_STATISTICS = STATISTICS + PLAY_STATISTICS
# Those read from the rounds' counters of how a round played, which a run stores only when it
# counts them (the scenario's ``how_it_plays``): "not counted" for a cell whose run did not.
COUNTED = ("hand_leader_changes_per_round", "winner_largest_deficit", "decision_share",
           "legal_cards_per_decision", "uno_stops_per_round", "uno_stops_still_won_share")
NOT_COUNTED = "not counted: {cells} did not count how its rounds play (how_it_plays: true)"
# The words of the table and the notes for each statistic and its scale (shares in percent).
LABELS = {"turns_per_round": ("turns/round", 1.0), "rounds_per_game": ("rounds/game", 1.0),
          "points_per_round": ("points/round", 1.0),
          "first_player_share": ("pos-0 round wins (%)", 100.0),
          "lead_changes_per_game": ("lead changes/game", 1.0),
          "comeback_share": ("comebacks (%)", 100.0),
          "drama_share": ("drama (% target)", 100.0),
          "decisiveness": ("decisiveness (%)", 100.0),
          "hand_leader_changes_per_round": ("leader changes/round", 1.0),
          "winner_largest_deficit": ("winner card deficit", 1.0),
          "decision_share": ("choice turns (%)", 100.0),
          "legal_cards_per_decision": ("cards/decision", 1.0),
          "uno_stops_per_round": ("UNO stops/round", 1.0),
          "uno_stops_still_won_share": ("stopped, won (%)", 100.0)}
COLUMNS = ("a_cell", "b_cell", "statistic", "a", "b", "diff", "lo", "hi", "method", "paired",
           "games", "narrowing")
PAIRED_METHOD = "paired over games, ratio delta method ± 1.96 SE"
UNPAIRED_METHOD = "independent games, ratio delta method ± 1.96 SE"


class CellRef(NamedTuple):
    run_id: str
    variant: str
    players: int

    def __str__(self) -> str:
        return f"{self.run_id}/{self.variant}/{self.players}"


@dataclass(frozen=True)
class CellGames:
    """One stored cell's sums (``store.sums``), its per-game totals where its run kept them,
    and what decides whether its deals pair."""

    ref: CellRef
    seed: int
    engine_version: str
    deal: tuple[Any, ...]  # (hand size, deck): the same values deal game i alike
    sums: dict[str, float | None]  # COMPARE_SUMS (None: a sum of NULLs, not counted)
    totals: dict[str, np.ndarray] | None  # _GAME_COLUMNS and one (None: its run kept summary)
    keep: str = "rows"

    @property
    def games(self) -> int:
        return int(self.sums.get("games") or 0)


@dataclass(frozen=True)
class Row:
    a_cell: str
    b_cell: str
    statistic: str
    a: float | None  # None: the cell did not count it (``COUNTED``)
    b: float | None
    diff: float | None
    lo: float | None
    hi: float | None
    method: str
    paired: bool
    games: str  # games used: "2000" paired, "2000 / 1500" unpaired
    narrowing: float | None  # 1 - paired width / unpaired width over the same games
    p_value: float | None = None

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, c) for c in COLUMNS)


@dataclass(frozen=True)
class Comparison:
    a: CellRef
    b: CellRef
    rows: tuple[Row, ...]
    note: str  # paired or not, and why; the narrowing in words


_INFO_SQL = """
WITH wanted AS (SELECT unnest($runs) AS run_id, unnest($variants) AS variant,
                       unnest($players) AS players)
SELECT run_id, variant, players, r.seed, r.engine_version, v.rules_json,
  coalesce(r.keep, 'rows'), c.cell
FROM runs r JOIN variants v USING (run_id) JOIN wanted USING (run_id, variant, players)
  LEFT JOIN cells c USING (run_id, variant, players)
"""
_WANTED = ("EXISTS (SELECT 1 FROM (SELECT unnest($runs) AS r, unnest($variants) AS v, "
           "unnest($players) AS p) w WHERE w.r = c.run_id AND w.v = c.variant "
           "AND w.p = c.players)")
_GAME_COLUMNS = tuple(dict.fromkeys((
    "game", "rounds", "turns", "won", "points", "p0", "dealer",
    *(column for pair in RATIOS.values() for column in pair if column != "one"))))


def _sum_names(stat: str) -> tuple[str, ...]:
    """The sums (``store.sums``) the unpaired interval of ``stat`` needs."""
    y, x = RATIOS[stat]
    if x == "one":
        return y, f"{y}__2"
    return y, x, f"{y}__2", f"{x}__2", f"{y}__{x}"


COMPARE_SUMS = tuple(dict.fromkeys(["games", *(n for stat in RATIOS for n in _sum_names(stat))]))


def parse_cell(con, text: str) -> CellRef:
    """``RUN/VARIANT/PLAYERS`` -> the stored cell, or a usage RunError naming what exists."""
    run, sep, rest = text.partition("/")
    variant, sep2, players = rest.rpartition("/")
    players = players.strip()
    if not sep or not sep2 or not run or not variant or not (
            players.isascii() and players.isdigit()):  # not '²' (no int) nor '٤' (one)
        raise RunError(f"cell {text!r}: expected RUN/VARIANT/PLAYERS, e.g. latest/standard/4 "
                       "(RUN an id, a unique prefix or latest; PLAYERS a number in digits "
                       "0-9)", exit_code=2)
    run_id = resolve_run(con, run)
    cells = con.execute("SELECT variant, players FROM variants WHERE run_id = ? "
                        "ORDER BY variant, players", [run_id]).fetchall()
    ref = CellRef(run_id, variant, int(players))
    if (ref.variant, ref.players) not in cells:
        names = sorted({v for v, _ in cells})
        counts = sorted({p for v, p in cells if v == variant})
        what = (f"variant {variant!r} has player counts {', '.join(map(str, counts))}" if counts
                else f"its variants: {', '.join(repr(n) for n in names[:20])}"
                + (f" and {len(names) - 20} more" if len(names) > 20 else ""))
        raise RunError(f"cell {text!r}: run {run_id} has no cell {variant!r} at {players} "
                       f"players; {what}", exit_code=2)
    return ref


def load_cell(con, ref: CellRef) -> CellGames:
    return load_cells(con, [ref])[ref]


def load_cells(con, refs: Sequence[CellRef]) -> dict[CellRef, CellGames]:
    """The sums of every cell of ``refs`` (stored cells) and, where their runs kept rows or
    games, their per-game totals, from one grouped query a keep: a report compares hundreds of
    cells, and a query a cell cost a second each."""
    refs = list(dict.fromkeys(refs))
    params = {"runs": [r.run_id for r in refs], "variants": [r.variant for r in refs],
              "players": [r.players for r in refs]}
    info = {CellRef(run, variant, int(players)): (seed, version, json.loads(rules), keep, cell)
            for run, variant, players, seed, version, rules, keep, cell
            in con.execute(_INFO_SQL, params).fetchall()}
    sums = store.sums.cell_sums(con, _WANTED, params, COMPARE_SUMS)
    parts: dict[int, Any] = {}
    for keep in ("rows", "games"):
        cells = [str(int(v[4])) for v in info.values() if v[3] == keep and v[4] is not None]
        if cells:
            df = con.sql(store.sums.game_totals_sql(keep, f"cell IN ({', '.join(cells)})")
                         + " ORDER BY cell, game").pl()
            parts.update({cell: part for (cell,), part
                          in df.partition_by(["cell"], as_dict=True).items()})
    out = {}
    for ref in refs:
        seed, engine_version, rules, keep, cell = info[ref]
        totals = None
        if keep != "summary":  # a NULL total (no won round, or not counted) adds 0
            part = parts.get(cell)
            totals = {c: (np.zeros(0) if part is None else
                          part[c].fill_null(0).to_numpy().astype(np.float64))
                      for c in _GAME_COLUMNS}
            totals["one"] = np.ones(totals["game"].size)
        deal = (rules.get("hand_size"), json.dumps(rules.get("deck"), sort_keys=True))
        cell_sums = sums.get(tuple(ref), dict.fromkeys(COMPARE_SUMS, 0.0))
        out[ref] = CellGames(ref, int(seed), str(engine_version), deal, cell_sums, totals, keep)
    return out


def pairing(a: CellGames, b: CellGames) -> tuple[np.ndarray | None, str]:
    """The games both cells dealt alike (indexes into a's and b's totals), or None and why."""
    for cell in (a, b):
        if cell.totals is None:
            return None, (f"{cell.ref} kept {cell.keep} (no game's totals; pairing needs "
                          "--keep rows or games)")
    if a.ref.players != b.ref.players:
        return None, f"player counts differ ({a.ref.players} vs {b.ref.players})"
    if a.seed != b.seed:
        return None, f"the seeds differ ({a.seed} vs {b.seed})"
    if a.engine_version != b.engine_version:
        return None, (f"the engine versions differ ({a.engine_version} vs "
                      f"{b.engine_version})")
    if a.deal[0] != b.deal[0]:
        return None, f"the hand sizes differ ({a.deal[0]} vs {b.deal[0]})"
    if a.deal[1] != b.deal[1]:
        return None, "the decks differ"
    common, ia, ib = np.intersect1d(a.totals["game"], b.totals["game"], return_indices=True)
    if common.size < 2:
        return None, "fewer than 2 games in common"
    if not np.array_equal(a.totals["dealer"][ia], b.totals["dealer"][ib]):
        return None, "the first dealers of the stored games differ (not the same deals)"
    return np.stack([ia, ib]), (f"paired over {common.size:,} games: same seed ({a.seed}), "
                                "player count, deck and hand size, so game i is dealt alike")


def _ratio(t: dict[str, np.ndarray], stat: str, idx: np.ndarray | None = None
           ) -> tuple[float, np.ndarray]:
    """(ratio of totals, per-game delta-method residuals) of ``stat`` over the games ``idx``."""
    num, den = RATIOS[stat]
    y, x = t[num], t[den]
    if idx is not None:
        y, x = y[idx], x[idx]
    if x.sum() <= 0:
        return math.nan, np.full(y.size, math.nan)
    r = y.sum() / x.sum()
    return float(r), (y - r * x) / x.mean()


def _var_of_mean(u: np.ndarray) -> float:
    return float(u.var(ddof=1) / u.size) if u.size > 1 else math.nan


def _ratio_from_sums(sums: dict[str, float | None], stat: str) -> tuple[float, float]:
    """(ratio of totals, variance of its mean) of ``stat`` over a cell's games from its sums,
    as ``_ratio`` over every game: the residuals (y - R x) / mean(x) sum to 0, and their sum
    of squares is (Σy² - 2 R Σxy + R² Σx²) / mean(x)²."""
    n = int(sums.get("games") or 0)
    y_name, x_name = RATIOS[stat]
    names = _sum_names(stat)
    if any(sums.get(name) is None for name in names):
        return math.nan, math.nan  # a measure its run did not count
    if x_name == "one":
        sy, syy = (float(sums[name]) for name in names)
        sx, sxx, sxy = float(n), float(n), sy
    else:
        sy, sx, syy, sxx, sxy = (float(sums[name]) for name in names)
    if sx <= 0 or n < 1:
        return math.nan, math.nan
    r = sy / sx
    if n < 2:
        return r, math.nan
    squares = max(syy - 2 * r * sxy + r * r * sxx, 0.0) / (sx / n) ** 2
    return r, squares / (n - 1) / n


RATIO_METHOD = "ratio of sums over games, ± 1.96 SE (games as units)"


def ratio_estimate(sums: dict[str, float | None], stat: str) -> Estimate | None:
    """``stat`` of one cell from its sums, with its 95% interval by the delta method over games
    (None: not counted, or no games it is defined on)."""
    r, var = _ratio_from_sums(sums, stat)
    if not math.isfinite(r) or not math.isfinite(var):
        return None
    se = math.sqrt(var)
    return Estimate(r, r - Z95 * se, r + Z95 * se, int(sums.get("games") or 0), RATIO_METHOD,
                    se=se)


def compare_cells(a: CellGames, b: CellGames,
                  statistics: Sequence[str] = STATISTICS) -> Comparison:
    """B minus A on each of ``statistics`` (``RATIOS``' keys), paired where the deals agree."""
    pairs, why = pairing(a, b)
    rows = []
    narrowings = []
    uncounted = [str(c.ref) for c in (a, b) if c.sums.get("hand_leader_changes") is None]
    for stat in statistics:
        if stat in COUNTED and uncounted:  # each cell's own value where it counted, else null
            ra, rb = (None if str(c.ref) in uncounted else _ratio_from_sums(c.sums, stat)[0]
                      for c in (a, b))
            rows.append(Row(str(a.ref), str(b.ref), stat, ra, rb, None, None, None,
                            NOT_COUNTED.format(cells=" and ".join(uncounted)),
                            pairs is not None, "-", None))
            continue
        if pairs is None:  # from the cells' sums, whatever they kept
            (ra, va), (rb, vb) = _ratio_from_sums(a.sums, stat), _ratio_from_sums(b.sums, stat)
            se, narrowing = math.sqrt(va + vb), None
            games, method = f"{a.games} / {b.games}", UNPAIRED_METHOD
        else:
            ra, ua = _ratio(a.totals, stat, pairs[0])
            rb, ub = _ratio(b.totals, stat, pairs[1])
            se_unpaired = math.sqrt(_var_of_mean(ua) + _var_of_mean(ub))
            se = math.sqrt(_var_of_mean(ub - ua))
            narrowing = 1 - se / se_unpaired if se_unpaired > 0 else None
            if narrowing is not None and math.isfinite(narrowing):
                narrowings.append((stat, narrowing, se, se_unpaired))
            games, method = f"{pairs.shape[1]}", PAIRED_METHOD
        d = rb - ra
        p = two_sided_p(d / se) if se > 0 else None
        rows.append(Row(str(a.ref), str(b.ref), stat, ra, rb, d, d - Z95 * se, d + Z95 * se,
                        method, pairs is not None, games, narrowing, p))
    if pairs is None:
        note = f"{b.ref} vs {a.ref}: unpaired (games independent): {why}"
    else:
        parts = ", ".join(f"{LABELS[stat][0]} {100 * n:.0f}% (±{Z95 * s * LABELS[stat][1]:.3g} "
                          f"vs ±{Z95 * su * LABELS[stat][1]:.3g})"
                          for stat, n, s, su in narrowings)
        note = (f"{b.ref} vs {a.ref}: {why}; pairing narrowed the intervals against unpaired "
                f"ones over the same games by: {parts}")
    return Comparison(a.ref, b.ref, tuple(rows), note)


def compare(*, a: str, b: Sequence[str], db: str | os.PathLike | None = None
            ) -> list[Comparison]:
    """Cell ``a`` against each cell of ``b`` (``RUN/VARIANT/PLAYERS`` each), on every
    statistic (``ALL_STATISTICS``)."""
    con = store.open_store(locate(db), read_only=True)
    try:
        ref_a = parse_cell(con, a)
        refs = [parse_cell(con, x) for x in b]
        cell_a = load_cell(con, ref_a)
        out = []
        for ref in refs:
            if ref == ref_a:
                raise RunError(f"cell {ref} is compared with itself; name another cell",
                               exit_code=2)
            cell_b = load_cell(con, ref)
            for cell in (cell_a, cell_b):
                if cell.games < 2:
                    raise RunError(f"cell {cell.ref} has {cell.games} stored "
                                   "games; at least 2 are needed for an interval")
            out.append(compare_cells(cell_a, cell_b, ALL_STATISTICS))
        return out
    finally:
        con.close()


# The table's columns: header, rank (the highest left out first on a narrow terminal; 0 kept).
TABLE = (("cell A", 4), ("cell B", 0), ("statistic", 0), ("A", 1), ("B", 1),
         ("B - A [95% CI]", 0), ("games", 2), ("paired", 3), ("narrowing (%)", 3),
         ("method", 5))


def format_comparisons(results: Sequence[Comparison], fmt: str = "table",
                       width: int | None = None) -> str:
    """The rows of ``results`` in ``fmt``; a table fitted to ``width`` when given."""
    rows = [row for c in results for row in c.rows]
    if fmt != "table":
        return format_rows(COLUMNS, [row.values() for row in rows], fmt)
    return format_rows([head for head, _ in TABLE], [_shown(row) for row in rows], "table",
                       width=width, rank=[rank for _, rank in TABLE])


def _shown(row: Row) -> list[Any]:
    """A row as the table shows it: A and B to the digits of their difference's interval."""
    label, scale = LABELS[row.statistic]
    a, b, diff, lo, hi = (math.nan if x is None else scale * x
                          for x in (row.a, row.b, row.diff, row.lo, row.hi))
    digits = interval_digits(lo, hi) if math.isfinite(lo) and math.isfinite(hi) else 3
    missing = "not counted" if row.method.startswith("not counted") else "-"
    values = [Numeral(fixed(x, digits) if math.isfinite(x) else missing) for x in (a, b)]
    narrowing = Numeral("-" if row.narrowing is None or not math.isfinite(row.narrowing)
                        else fixed(100 * row.narrowing, 0))
    return [row.a_cell, row.b_cell, label, *values, format_interval(diff, lo, hi, signed=True),
            row.games, "yes" if row.paired else "no", narrowing, row.method]
