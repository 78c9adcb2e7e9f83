"""The two results stores side by side: the same run (scenario, seed, games) stored in a DuckDB
file (``--db``) and in a Parquet store (``--store parquet:DIR``), repetitions alternated in one
process so both see the same machine load; then the same queries read back from both.

    python benchmarks/store_bench.py [--games 40000] [--players 4] [--reps 3]
    python benchmarks/store_bench.py --tables [--batch-games 25000]
    taskset -c 0 python benchmarks/store_bench.py --floor [--games 50000]
    [taskset -c 0] python benchmarks/store_bench.py --keeps [--games 900000] [--reps 1] [--json]

Prints, per store, the median wall time and process CPU time of the run (the engine's compile
left out: it is done before), games/s, the bytes stored, and the time of a few reader queries;
then the ratio Parquet / DuckDB.

``--tables``: the DuckDB write alone, per table: the same engine batches (played once, kept in
memory) written into a new file with all four tables (``store.write_batch``), then with each
table alone; the CPU time of the writes and the closing checkpoint per round and the rows
stored per CPU second (best of ``--reps``), and the file's size. CPU time, so other load on
the machine distorts it less.

``--floor``: what DuckDB itself costs, and so the best ``simulate`` on one core could do. The
engine plays the games (CPU per round, best of ``--reps``: the engine alone, as ``bench.py``
measures it); their four tables are encoded as stored (``packing.stored_frame``, timed too) and
kept in memory; then only DuckDB's part is timed: each batch's encoded Arrow tables appended to the
stored tables in a new file with the writer's settings (``store.database``: its memory limit,
no vacuum, its block pool; one thread), one transaction a batch, then the checkpoint, with
DuckDB's own choice of compression, with bitpacking forced and with no compression. Per stored
value and per round, and the ceiling engine / (engine + encoding + DuckDB) that ``simulate`` on
one core cannot pass whatever the Python around it does (run it pinned, ``taskset -c 0``).

``--keeps``: what each ``--keep`` costs, side by side in one process (repetitions alternated):
the engine alone (the same games played, their batches dropped), then ``simulate`` keeping
rows, games and summary; per keep the wall and CPU time (the compile done before), rounds/s,
the engine's time over simulate's (wall and CPU) and the file's size, also against rows'.
Pinned to one core (``taskset -c 0``) it gives the one-core ratio; unpinned on this machine's
2 cores, ``--games 900000`` at 4 players is about 10M rounds.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from unostats import store  # noqa: E402
from unostats.base.engine_cache import prepare_engine  # noqa: E402
from unostats.base.progress import Progress  # noqa: E402
from unostats.runs.simulate import simulate  # noqa: E402
from unostats.scenario import load_scenario  # noqa: E402

QUERIES = {
    "count + mean turns (rounds)": "SELECT count(*), avg(turns) FROM rounds",
    "round_length view": "SELECT * FROM round_length",
    "game_win_rate_by_position view": "SELECT * FROM game_win_rate_by_position",
}


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.name + ".wal"))
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def table_costs(games: int, players: int, batch_games: int, reps: int) -> None:
    """The ``--tables`` figures (see the module docstring)."""
    from unostats.engine.simulate import simulate_arrow
    from unostats.rules import RuleSet
    from unostats.runs.simulate import versions
    from unostats.seats import Seat
    from unostats.store import games as stored
    from unostats.sql import transaction

    batches = list(simulate_arrow(rules=RuleSet.from_mapping({}), players=players, seats=Seat(),
                                  games=games, seed=1, batch_games=batch_games, ahead=False))
    n_rounds = sum(len(b.rounds) for b in batches)
    print(f"DuckDB writes: {games:,} games at {players} players ({n_rounds:,} rounds) in batches "
          f"of {batch_games:,} games; CPU per round, best of {reps}")

    def write(tables: tuple[str, ...] | None) -> tuple[float, int]:
        work = Path(tempfile.mkdtemp(prefix="unostats-store-tables-"))
        try:
            con = store.open_store(work / "t.duckdb", read_only=False)
            run_id = store.start_run(
                con, command="store_bench", seed=1, games_requested=games, scenario_name="b",
                scenario_text="", scenario_json="{}", scenario_hash="-", versions=versions(),
                variants=[{"variant": "standard", "players": players, "rules_json": "{}",
                           "rules_hash": "-", "description": "", "sweep": None}])
            c0 = cpu()
            for batch in batches:
                if tables is None:
                    store.write_batch(con, run_id, "standard", players, batch)
                    continue
                with transaction(con):
                    for name in tables:
                        stored._insert(con, name, getattr(batch, name), 1)
            con.close()
            return cpu() - c0, size(work / "t.duckdb")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    print(f"{'tables':<24} {'us/round':>9} {'rows/s':>11} {'MB':>7}")
    for label, tables in (("all (write_batch)", None),
                          *((name, (name,)) for name in stored.FRAME_COLUMNS)):
        runs = [write(tables) for _ in range(reps)]
        best = min(r[0] for r in runs)
        rows = sum(len(getattr(b, name)) for b in batches
                   for name in (tables or stored.FRAME_COLUMNS))
        print(f"{label:<24} {best * 1e6 / n_rounds:9.3f} {rows / best:11,.0f} "
              f"{runs[0][1] / 1e6:7.1f}")


def floor_costs(games: int, players: int, batch_games: int, reps: int) -> None:
    """The ``--floor`` figures (see the module docstring)."""
    import duckdb

    from unostats.engine.simulate import simulate_arrow
    from unostats.rules import RuleSet
    from unostats.seats import Seat
    from unostats.store import database, packing
    from unostats.store import games as stored

    rules = RuleSet.from_mapping({"first_card": "number_only", "wild_draw_four": "free",
                                  "uno_penalty": 0})  # bench.py's reference rules
    list(simulate_arrow(rules=rules, players=players, seats=Seat(), games=50, seed=1))  # compile
    engine_s = encode_s = math.inf
    names = {**packing.NAMES, packing.POLICY: ("random",)}
    for _ in range(reps):
        batches = None  # one set of batches in memory at a time
        c0 = cpu()
        batches = list(simulate_arrow(rules=rules, players=players, seats=Seat(), games=games,
                                      seed=1, batch_games=batch_games, ahead=False, threads=1))
        engine_s = min(engine_s, cpu() - c0)
        c0 = cpu()
        encoded = [{t: packing.stored_frame(t, getattr(b, t), names)
                    for t in stored.FRAME_COLUMNS} for b in batches]
        encode_s = min(encode_s, cpu() - c0)
    n_rounds = sum(len(b.rounds) for b in batches)
    values = sum(tbl.num_rows * (tbl.num_columns + 1) for e in encoded for tbl in e.values())

    def append(compression: str) -> tuple[float, int]:
        work = Path(tempfile.mkdtemp(prefix="unostats-store-floor-"))
        try:
            con = duckdb.connect(str(work / "f.duckdb"))
            database.writer_settings(con, threads=1)  # as the store's writer runs
            if compression:
                con.execute(f"SET force_compression = '{compression}'")
            for ddl in stored.TABLES_DDL:
                con.execute(ddl)
            c0 = cpu()
            for batch in encoded:
                con.execute("BEGIN")
                for t, tbl in batch.items():
                    con.from_arrow(tbl).project("CAST(1 AS INTEGER), *").insert_into(
                        stored.STORED[t])
                con.execute("COMMIT")
            con.execute("CHECKPOINT")
            used = cpu() - c0
            con.close()
            return used, size(work / "f.duckdb")
        finally:
            shutil.rmtree(work, ignore_errors=True)

    engine = engine_s * 1e6 / n_rounds
    encode = encode_s * 1e6 / n_rounds
    print(f"DuckDB's floor: {games:,} games at {players} players, reference rules "
          f"({n_rounds:,} rounds, {values / n_rounds:.1f} stored values a round, batches of "
          f"{batch_games:,} games); CPU, best of {reps}")
    print(f"  engine alone (1 thread): {engine:.3f} us/round; encoding the words: "
          f"{encode:.3f} us/round")
    print(f"{'compression':<14} {'ns/value':>9} {'us/round':>9} {'MB':>7} {'ceiling':>8}")
    for label, compression in (("DuckDB's", ""), ("bitpacking", "bitpacking"),
                               ("none", "uncompressed")):  # forced for every column
        runs = [append(compression) for _ in range(reps)]
        best = min(r[0] for r in runs)
        duck = best * 1e6 / n_rounds
        print(f"{label:<14} {best * 1e9 / values:9.1f} {duck:9.3f} {runs[0][1] / 1e6:7.1f} "
              f"{engine / (engine + encode + duck):7.2f}x")
    print("ceiling: simulate on one core / the engine alone, were nothing else spent")


def keep_costs(games: int, players: int, reps: int) -> dict:
    """The ``--keeps`` figures (see the module docstring): the played rounds and, per keep
    (``engine``: the engine alone), the medians of wall and CPU seconds and the file's bytes."""
    from unostats.engine.simulate import simulate_arrow
    from unostats.scenario import load_text

    scenario = load_text(f"name: keeps\nseed: 1\ngames: {games}\nplayers: {players}\n"
                         "variants:\n  - name: reference\n    rules: {first_card: number_only, "
                         "wild_draw_four: free, uno_penalty: 0}\n", "keeps.yaml")
    cell = next(scenario.cells())
    prepare_engine(Progress())
    list(simulate_arrow(rules=cell.variant.rules, players=players, seats=cell.seats, games=50,
                        seed=1))  # compiled before anything is timed
    work = Path(tempfile.mkdtemp(prefix="unostats-keep-bench-"))
    keeps = ("engine", *store.KEEPS)
    results: dict[str, list[tuple[float, float, int]]] = {k: [] for k in keeps}
    rounds = 0
    try:
        simulate(scenario=scenario.with_games(200), db=work / "warm.duckdb", keep="games")
        for rep in range(reps):
            for kept in keeps:
                path = work / f"{kept}-{rep}.duckdb"
                c0, t0 = cpu(), time.perf_counter()
                if kept == "engine":  # the same games played, their batches dropped
                    rounds = sum(len(b.rounds) for b in simulate_arrow(
                        rules=cell.variant.rules, players=players, seats=cell.seats,
                        games=games, seed=1, batch_games=25_000, ahead=False))
                else:
                    outcome = simulate(scenario=scenario, db=path, keep=kept)
                    assert outcome.status == "complete"
                wall, used = time.perf_counter() - t0, cpu() - c0
                results[kept].append((wall, used, size(path) if kept != "engine" else 0))
                if kept != "engine" and rep < reps - 1:
                    path.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"games": games, "players": players, "reps": reps, "rounds": rounds,
            "keeps": {k: {"seconds": statistics.median(r[0] for r in rs),
                          "cpu_s": statistics.median(r[1] for r in rs), "bytes": rs[-1][2]}
                      for k, rs in results.items()}}


def print_keep_costs(figures: dict) -> None:
    """The ``--keeps`` table of ``keep_costs``' figures."""
    rounds, med = figures["rounds"], figures["keeps"]
    print(f"--keep side by side: {figures['games']:,} games at {figures['players']} players, "
          f"reference rules ({rounds:,} rounds), median of {figures['reps']}, alternated")
    print(f"{'keep':<8} {'wall s':>7} {'CPU s':>7} {'Mrounds/s':>10} {'x engine':>9} "
          f"{'x engine CPU':>13} {'MB':>7} {'x rows MB':>10}")
    engine = med["engine"]
    for kept, m in med.items():
        wall, used, stored = m["seconds"], m["cpu_s"], m["bytes"]
        alone = kept == "engine"
        ratio = "" if alone else f"{engine['seconds'] / wall:9.2f}"
        ratio_cpu = "" if alone else f"{engine['cpu_s'] / used:13.2f}"
        mb = "" if alone else f"{stored / 1e6:7.1f}"
        share = "" if alone else f"{stored / med['rows']['bytes']:10.3f}"
        print(f"{kept:<8} {wall:7.2f} {used:7.2f} {rounds / wall / 1e6:10.2f} {ratio:>9} "
              f"{ratio_cpu:>13} {mb:>7} {share:>10}")
    print("x engine: the engine alone's time / simulate's (1.00: storing costs nothing); "
          "pin to one core with taskset -c 0 for the one-core figure")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40_000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tables", action="store_true", help="the DuckDB write per table alone")
    ap.add_argument("--floor", action="store_true",
                    help="DuckDB's own append cost and the one-core ceiling it sets")
    ap.add_argument("--keeps", action="store_true",
                    help="simulate --keep rows, games and summary against the engine alone")
    ap.add_argument("--batch-games", type=int, default=25_000)
    ap.add_argument("--json", action="store_true", help="with --keeps: its figures as JSON")
    args = ap.parse_args()
    if args.keeps:
        figures = keep_costs(args.games, args.players, args.reps)
        if args.json:
            print(json.dumps(figures))
        else:
            print_keep_costs(figures)
        return 0
    if args.floor:
        floor_costs(args.games, args.players, args.batch_games, args.reps)
        return 0
    if args.tables:
        table_costs(args.games, args.players, args.batch_games, args.reps)
        return 0
    work = Path(tempfile.mkdtemp(prefix="unostats-store-bench-"))
    scenario_path = work / "bench.yaml"
    scenario_path.write_text(f"name: bench\nseed: 1\ngames: {args.games}\nvariants:\n  - name: standard\n"
                             f"players: {args.players}\n")
    scenario = load_scenario(scenario_path)
    prepare_engine(Progress())
    results: dict[str, list[tuple[float, float, int, int]]] = {"duckdb": [], "parquet": []}
    targets = {}
    try:
        for rep in range(args.reps):
            for kind in ("duckdb", "parquet"):
                path = work / f"{kind}-{rep}{'.duckdb' if kind == 'duckdb' else ''}"
                target = path if kind == "duckdb" else store.parquet_location(str(path))
                c0, t0 = cpu(), time.perf_counter()
                outcome = simulate(scenario=scenario, db=target)
                wall, used = time.perf_counter() - t0, cpu() - c0
                assert outcome.status == "complete"
                results[kind].append((wall, used, outcome.rounds_played, size(path)))
                targets[kind] = target
        print(f"one run: {args.games:,} games at {args.players} players "
              f"({results['duckdb'][0][2]:,} rounds), median of {args.reps}, alternated")
        print(f"{'store':<8} {'wall s':>8} {'CPU s':>8} {'games/s':>10} {'MB stored':>10}")
        med = {}
        for kind, rs in results.items():
            wall = statistics.median(r[0] for r in rs)
            used = statistics.median(r[1] for r in rs)
            med[kind] = (wall, used)
            print(f"{kind:<8} {wall:8.2f} {used:8.2f} {args.games / wall:10,.0f} "
                  f"{rs[0][3] / 1e6:10.1f}")
        print(f"ratio parquet/duckdb: wall {med['parquet'][0] / med['duckdb'][0]:.2f}, "
              f"CPU {med['parquet'][1] / med['duckdb'][1]:.2f}, size "
              f"{results['parquet'][0][3] / results['duckdb'][0][3]:.2f}")
        print(f"{'query':<32} {'duckdb s':>9} {'parquet s':>10}")
        for name, sql in QUERIES.items():
            times = {}
            for kind, target in targets.items():
                con = store.open_store(target, read_only=True)
                try:
                    t0 = time.perf_counter()
                    for _ in range(3):
                        con.sql(sql).fetchall()
                    times[kind] = (time.perf_counter() - t0) / 3
                finally:
                    con.close()
            print(f"{name:<32} {times['duckdb']:9.3f} {times['parquet']:10.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
