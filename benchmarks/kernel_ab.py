"""The engine's kernel of two source trees side by side: rounds/s of ``play_games`` alone (no
tables built, no store), reference rules, random seats, one thread, thread CPU time.

    python benchmarks/kernel_ab.py OLD_SRC NEW_SRC [--players 2,4,6] [--orders 3] [--pairs 40]
                                   [--how-it-plays]
    git archive main src | tar -x -C /tmp/old && python benchmarks/kernel_ab.py /tmp/old/src src

Each tree's ``unostats`` package is copied under a name of its own (``unostats_a``,
``unostats_b``: the engine imports itself relatively), so one process holds both engines and
their runs alternate (A B A B ..., ``--pairs`` times, games sized to a few tens of ms), other load
on the machine falling on both alike. The engine whose machine code is loaded second runs slower
in such a process, whatever its source (~10% on the 2-core development machine, two identical
trees included: where the code lands in memory), so every comparison runs in fresh processes in
both load orders, ``--orders`` times each, and reports sqrt(r(A first) / r(B first)) of the
median ratios B/A of each order, in which that bias cancels, with the range over the repetitions.
It also checks that both engines wrote the same rows (``outputs identical``; of the round rows
the columns both have: an engine from before the counters of how a round plays has none).
``--how-it-plays``: the trees whose ``KernelInputs.build`` takes ``how_it_plays`` play the loops
that count how each round plays (engine/_turns.py); without it, the loops that do not.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REFERENCE_RULES = {"first_card": "number_only", "wild_draw_four": "free", "uno_penalty": 0}
GAMES = {2: 400, 4: 350, 6: 300}  # ~30 ms of play each on the development machine

_ONE_PROCESS = r"""
import importlib, inspect, json, statistics, sys, time
import numpy as np
first, second, players, pairs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
games, rules, counting = json.loads(sys.argv[5]), json.loads(sys.argv[6]), sys.argv[7] == "1"


def setup(pkg, n, g):
    R = importlib.import_module(pkg + ".rules")
    T = importlib.import_module(pkg + ".engine._turns")
    seats = importlib.import_module(pkg + ".seats")
    try:
        I = importlib.import_module(pkg + ".engine._inputs")
        inputs_of, outputs = I.KernelInputs, I.Outputs
    except ModuleNotFoundError:  # a checkout from before the engine's API was split
        S = importlib.import_module(pkg + ".engine.simulate")
        inputs_of, outputs = S._KernelInputs, S._Outputs
    counts = "how_it_plays" in inspect.signature(inputs_of.build).parameters
    inputs = inputs_of.build(R.RuleSet.from_mapping(rules), n, seats.Seat(),
                             **({"how_it_plays": counting} if counts else {}))
    out = outputs(g, g * 80, n)
    table = inputs.tables(1)
    trace = np.zeros((1, 4), np.int64)

    def run():
        t0 = time.thread_time()
        _, rounds = T.play_games(table[0], inputs.options, np.uint64(7), 0, g, out.game,
                                 out.game_seat, out.round, out.round_seat, trace, -1,
                                 inputs.setups)
        return rounds / (time.thread_time() - t0), rounds
    return run, out


for n in players:
    g = games[str(n)]
    runs = {pkg: setup(pkg, n, g) for pkg in (first, second)}
    for pkg in (first, second):  # loads (or compiles) each engine in this order
        runs[pkg][0]()
    rates = {first: [], second: []}
    for i in range(pairs):
        for pkg in ((first, second) if i % 2 == 0 else (second, first)):
            rates[pkg].append(runs[pkg][0]()[0])
    a, b = runs[first][1], runs[second][1]
    width = min(a.round.shape[1], b.round.shape[1])
    same = all(np.array_equal(getattr(a, k), getattr(b, k))
               for k in ("game", "game_seat", "round_seat")) and np.array_equal(
        a.round[:, :width], b.round[:, :width])
    print(json.dumps({"players": n, "ratio": statistics.median(
        y / x for x, y in zip(rates[first], rates[second])),
        "rate_first": statistics.median(rates[first]), "same": same}))
"""


def _copy(src: Path, into: Path, name: str) -> None:
    shutil.copytree(src / "unostats", into / name,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _order(folder: Path, first: str, second: str, players: list[int], pairs: int,
           cache: Path, counting: bool) -> dict[int, dict]:
    env = {**os.environ, "PYTHONPATH": str(folder), "UNOSTATS_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _ONE_PROCESS, first, second, json.dumps(players), str(pairs),
         json.dumps({str(n): GAMES.get(n, 300) for n in players}), json.dumps(REFERENCE_RULES), str(int(counting))],
        env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {r["players"]: r for r in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the src folder holding the old unostats")
    parser.add_argument("new", type=Path, help="the src folder holding the new unostats")
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--orders", type=int, default=3, help="processes per load order")
    parser.add_argument("--pairs", type=int, default=40, help="alternations per process")
    parser.add_argument("--how-it-plays", action="store_true",
                        help="play the loops that count how each round plays")
    args = parser.parse_args(argv)
    players = [int(p) for p in args.players.split(",")]
    with tempfile.TemporaryDirectory(prefix="kernel_ab_") as tmp:
        folder = Path(tmp)
        _copy(args.old, folder, "unostats_a")
        _copy(args.new, folder, "unostats_b")
        cache = folder / "cache"  # compiled once per tree, loaded by every later process
        ab, ba = [], []
        for _ in range(args.orders):
            ab.append(_order(folder, "unostats_a", "unostats_b", players, args.pairs, cache,
                             args.how_it_plays))
            ba.append(_order(folder, "unostats_b", "unostats_a", players, args.pairs, cache,
                             args.how_it_plays))
    for n in players:
        combined = [math.sqrt(x[n]["ratio"] / y[n]["ratio"]) for x, y in zip(ab, ba)]
        same = all(r[n]["same"] for r in ab + ba)
        old_rate = statistics.median(r[n]["rate_first"] for r in ab)
        new_rate = statistics.median(r[n]["rate_first"] for r in ba)
        print(f"{n} players: new/old {statistics.median(combined):.3f} (range "
              f"{min(combined):.3f}-{max(combined):.3f}, {len(combined)} pairs of orders); "
              f"loaded first: old {old_rate / 1e3:,.0f}k, new {new_rate / 1e3:,.0f}k rounds/s; "
              f"outputs identical: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
