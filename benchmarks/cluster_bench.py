"""The cluster section of ``make bench``: a local Ray cluster of 1 and then 2 worker nodes (1 CPU
each, loopback only, ``executors.ray.cluster``), official rules, 4 players:

- ``stored``: ``unostats simulate --executor ray``, every game, round and seat sent to the
  driver and stored in DuckDB there (one writer);
- ``played``: the same batch tasks, their tables sent to the driver and dropped (what the
  workers and the object store deliver when the store is not the limit, as with a dataset
  store whose workers write their own shards).

games/s of each and the ratios 2 nodes / 1. Each measurement is a fresh process that starts its
cluster, plays and stops the cluster; the rate counts the playing only (the cluster's start-up
and the workers' engine start-up left out, as ``RunOutcome.seconds`` does). On a 2-core machine
the driver shares the cores with the two workers, so the ratios stay below 2 here; on separate
machines the driver has a machine of its own.

Skipped, with the reason, where Ray is not installed (``pip install 'unostats[ray]'``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

NODES = (1, 2)
GAMES = 200_000  # at scale 1 (official rules, 4 players: about 1.4 M rounds)

_SNIPPET = """
import json, shutil, sys, tempfile
from unostats.executors.ray.cluster import local_cluster, use_loopback
use_loopback()  # before Ray is imported
from unostats.executors.ray.driver import RayExecutor
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
job = json.loads(sys.argv[1])
temp = tempfile.mkdtemp(prefix="unostats-bench-ray-")


def played(address, scenario, games, size):
    import time
    import ray
    from unostats.executors.ray.worker import play_batch, warm_node
    ray.init(address=address, logging_level="WARNING")
    try:
        (cell,) = scenario.cells()
        ray.get([ray.remote(warm_node).options(num_cpus=1).remote()
                 for _ in range(job["nodes"])])
        task = ray.remote(play_batch).options(num_cpus=1)
        start = time.perf_counter()
        refs = [task.remote(cell.variant.rules, cell.players, cell.seats, 1, lo,
                            min(games, lo + size), 1) for lo in range(0, games, size)]
        rounds = 0
        while refs:
            ready, refs = ray.wait(refs, num_returns=1)
            rounds += ray.get(ready[0]).rounds
        return {"games": games, "rounds": rounds, "seconds": time.perf_counter() - start,
                "batches": len(range(0, games, size))}
    finally:
        ray.shutdown()


try:
    with local_cluster(nodes=job["nodes"], cpus_per_node=1, temp_dir=temp) as address:
        scenario = load_scenario(job["scenario"])
        executor = RayExecutor(address)
        try:
            o = simulate(scenario=scenario, db=job["db"], games=job["games"], seed=1,
                         executor=executor)
        finally:
            executor.close()
        out = {"stored": {"games": o.games_played, "rounds": o.rounds_played,
                          "seconds": o.seconds, "workers": len(executor.workers),
                          "batches": sum(executor.batches_by_worker.values())},
               "played": played(address, scenario, job["games"], 2_000)}
    print(json.dumps(out))
finally:
    shutil.rmtree(temp, ignore_errors=True)
"""


def ray_missing() -> str | None:
    """Why the section cannot run here (None: it can)."""
    if importlib.util.find_spec("ray") is None:
        return "Ray is not installed (pip install 'unostats[ray]')"
    return None


def cluster_throughput(scenario: Path, scale: float, log) -> dict:
    """games/s on 1 and 2 worker nodes, stored and played only, and the ratios (``--json``
    key "cluster": nodes_1/nodes_2 -> stored/played -> games, rounds, seconds, games_per_s,
    batches; ratio_stored, ratio_played); {"skipped": reason} without Ray."""
    why = ray_missing()
    if why is not None:
        return {"skipped": why}
    games = max(5_000, int(GAMES * scale))
    out: dict = {"games_per_cell": games}
    with tempfile.TemporaryDirectory(prefix="unostats-bench-cluster-") as folder:
        for nodes in NODES:
            log(f"  ray executor, {nodes} worker node(s), {games:,} games ...")
            job = {"nodes": nodes, "scenario": str(scenario), "games": games,
                   "db": str(Path(folder) / f"nodes{nodes}.duckdb")}
            proc = subprocess.run([sys.executable, "-c", _SNIPPET, json.dumps(job)],
                                  capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                tail = " ".join(proc.stderr.strip().splitlines()[-1:])
                return {**out, "skipped": f"{nodes} node(s) failed: {tail[:300]}"}
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            for part in result.values():
                part["games_per_s"] = part["games"] / part["seconds"]
            out[f"nodes_{nodes}"] = result
    for part in ("stored", "played"):
        out[f"ratio_{part}"] = (out["nodes_2"][part]["games_per_s"]
                                / out["nodes_1"][part]["games_per_s"])
    return out


def print_cluster(figures: dict) -> None:
    if "skipped" in figures:
        print(f"cluster (ray executor): skipped: {figures['skipped']}")
        return
    for part, what in (("stored", "simulate --executor ray, stored in DuckDB by the driver"),
                       ("played", "the same tasks, tables sent to the driver and dropped")):
        print(f"{what}:")
        for nodes in NODES:
            r = figures[f"nodes_{nodes}"][part]
            print(f"  {nodes} worker node(s): {r['games_per_s']:,.0f} games/s ({r['games']:,} "
                  f"games, {r['rounds']:,} rounds in {r['seconds']:.1f} s, {r['batches']} "
                  "batches)")
        print(f"  2 nodes / 1 node: {figures[f'ratio_{part}']:.2f}x")
    print("(2 cores shared by the driver and the two workers: the ratios stay below 2 here)")
