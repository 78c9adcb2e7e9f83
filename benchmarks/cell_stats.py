"""Statistics of every golden cell under one engine, and z-scores between two engines' runs.

An engine change that alters which random numbers games draw (an ENGINE_VERSION bump) must keep
the statistics within noise. This plays every cell of the bundled scenarios and of the rule sets
of tests/test_engine.py (the 306 cells of the golden hashes) and compares two engines cell by
cell, statistic by statistic, with a z-score from the games' own variance:

    PYTHONPATH=/old/src python benchmarks/cell_stats.py run old.json --games 2000 --seed 11
    PYTHONPATH=src      python benchmarks/cell_stats.py run new.json --games 2000 --seed 12
    python benchmarks/cell_stats.py compare old.json new.json

Use different seeds for the two runs, so that the games are independent and |z| > 3 should
happen in about 0.27% of the (cell, statistic) pairs by chance. Ratio statistics (per round)
are estimated as sum/sum over games with a delta-method variance (games are the independent
units; rounds of one game are not).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

# (name, numerator, denominator): per-game sums; denominator None: a per-game mean.
STATS = (
    ("rounds_per_game", "rounds", None),
    ("turns_per_round", "turns", "rounds"),
    ("first_player_round_share", "first_wins", "decided"),
    ("points_per_round", "points", "rounds"),
    ("cards_drawn_per_round", "cards_drawn", "rounds"),
    ("penalty_cards_per_round", "penalty_cards", "rounds"),
    ("seat0_game_wins", "seat0_wins", None),
)


def _cells():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from engine_cases import RULE_SETS, bundled_cells, mixed_seats

    from unostats.rules import RuleSet

    for param in bundled_cells():  # pytest.param(rules, players, seats, id=...)
        yield (param.id, *param.values)
    for name, r in RULE_SETS.items():
        for n in (2, 3, 5, 10):
            yield f"set-{name}-{n}", RuleSet.from_mapping(r), n, mixed_seats(n)


def _per_game(games: int, batch) -> dict[str, np.ndarray]:
    """Per-game sums of one batch (polars frames)."""
    g, seats, rounds = batch.games, batch.game_seats, batch.rounds
    idx = rounds["game"].to_numpy() - g["game"].to_numpy()[0]
    n = g.height

    def by_game(values) -> np.ndarray:
        return np.bincount(idx, weights=np.asarray(values, dtype=np.float64), minlength=n)

    pos = rounds["winner_position"].to_numpy(allow_copy=True)
    decided = ~np.isnan(pos.astype(np.float64))
    first = np.where(decided, pos, -1) == 0
    winners = seats.filter(seats["seat"] == 0)["is_winner"].to_numpy()
    return {
        "rounds": g["rounds"].to_numpy().astype(np.float64),
        "turns": by_game(rounds["turns"].to_numpy()),
        "first_wins": by_game(first),
        "decided": by_game(decided),
        "points": by_game(rounds["points"].to_numpy()),
        "cards_drawn": by_game(rounds["cards_drawn"].to_numpy()),
        "penalty_cards": by_game(rounds["penalty_cards"].to_numpy()),
        "seat0_wins": winners.astype(np.float64),
    }


def _estimate(num: np.ndarray, den: np.ndarray | None) -> tuple[float, float]:
    """(estimate, standard error) of mean(num) or sum(num)/sum(den) over independent games."""
    n = len(num)
    if den is None:
        return float(num.mean()), float(num.std(ddof=1) / math.sqrt(n))
    total = den.sum()
    if total == 0:
        return float("nan"), float("nan")
    r = num.sum() / total
    resid = num - r * den
    return float(r), float(math.sqrt((resid ** 2).sum() * n / (n - 1)) / total)


def run(out: Path, games: int, seed: int, cpu_per_cell: float, resume: bool = False,
        skip: tuple[str, ...] = ()) -> None:
    from unostats.engine import ENGINE_VERSION
    from unostats.engine.simulate import simulate_batches

    result = {"engine_version": ENGINE_VERSION, "games": games, "seed": seed, "cells": {}}
    if resume and out.exists():
        result = json.loads(out.read_text())
    t0 = time.time()
    for name, rules, players, seats in _cells():
        if name in result["cells"] or name in skip:
            continue
        parts: dict[str, list[np.ndarray]] = {}
        start = time.process_time()
        for batch in simulate_batches(rules=rules, players=players, seats=seats, games=games,
                                      seed=seed, batch_games=50, threads=1, ahead=False):
            for k, v in _per_game(games, batch).items():
                parts.setdefault(k, []).append(v)
            if time.process_time() - start > cpu_per_cell:
                break  # a slow cell (long games): fewer games, a wider interval
        sums = {k: np.concatenate(v) for k, v in parts.items()}
        result["cells"][name] = {
            "games": len(sums["rounds"]),
            **{stat: _estimate(sums[num], None if den is None else sums[den])
               for stat, num, den in STATS}}
        print(f"{len(result['cells'])} {name} {len(sums['rounds'])} games "
              f"{time.time() - t0:.0f} s", flush=True)
        out.write_text(json.dumps(result, indent=0, sort_keys=True))
    print(f"{len(result['cells'])} cells, {games} games each, {time.time() - t0:.0f} s")


def compare(a_path: Path, b_path: Path, show: int) -> None:
    a, b = json.loads(a_path.read_text()), json.loads(b_path.read_text())
    zs = []
    for cell, stats in a["cells"].items():
        if cell not in b["cells"]:
            continue
        for stat, value in stats.items():
            if stat == "games":
                continue
            ea, sa = value
            eb, sb = b["cells"][cell][stat]
            se = math.hypot(sa, sb)
            if not (se > 0) or math.isnan(ea) or math.isnan(eb):
                continue  # a constant statistic (e.g. one capped round per game)
            zs.append(((eb - ea) / se, cell, stat, ea, eb))
    z = np.array([x[0] for x in zs])
    games = [c["games"] for c in a["cells"].values()] + [c["games"] for c in b["cells"].values()]
    print(f"engine {a['engine_version']} (seed {a['seed']}) vs {b['engine_version']} "
          f"(seed {b['seed']}), {min(games)}-{max(games)} games per cell (median "
          f"{int(np.median(games))})")
    print(f"{len(a['cells'])} cells, {len(zs)} (cell, statistic) pairs with a variance")
    for limit in (2, 3, 4):
        k = int((np.abs(z) > limit).sum())
        expected = len(z) * math.erfc(limit / math.sqrt(2))
        print(f"  |z| > {limit}: {k} ({100 * k / len(z):.2f}%), expected by chance "
              f"{expected:.1f} ({100 * math.erfc(limit / math.sqrt(2)):.2f}%)")
    print(f"  mean z {z.mean():+.3f}, sd of z {z.std(ddof=1):.3f} (1 if only noise)")
    for stat, _, _ in STATS:
        zz = np.array([x[0] for x in zs if x[2] == stat])
        print(f"  {stat:26s} n={len(zz):3d} mean z {zz.mean():+.3f} sd {zz.std(ddof=1):.3f} "
              f"max |z| {np.abs(zz).max():.2f}")
    print("largest |z|:")
    for zval, cell, stat, ea, eb in sorted(zs, key=lambda x: -abs(x[0]))[:show]:
        print(f"  {zval:+6.2f}  {cell:45s} {stat:26s} {ea:10.4f} -> {eb:10.4f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out", type=Path)
    r.add_argument("--games", type=int, default=2000)
    r.add_argument("--seed", type=int, default=11)
    r.add_argument("--cpu-per-cell", type=float, default=10.0,
                   help="CPU seconds after which a cell stops at the end of a batch of 50 games")
    r.add_argument("--resume", action="store_true", help="keep the cells OUT already holds")
    r.add_argument("--skip", action="append", default=[], help="a cell not to play (repeat)")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--show", type=int, default=15)
    args = p.parse_args()
    if args.cmd == "run":
        run(args.out, args.games, args.seed, args.cpu_per_cell, args.resume, tuple(args.skip))
    else:
        compare(args.a, args.b, args.show)


if __name__ == "__main__":
    main()
