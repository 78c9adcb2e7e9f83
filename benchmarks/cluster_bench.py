"""The cluster section of ``make bench``: ``unostats simulate --executor ray`` on a local Ray
cluster of 1 and then 2 worker nodes (1 CPU each, loopback only, ``runs.ray_cluster``), every
game, round and seat stored in DuckDB by the driver; games/s of each and the ratio 2 nodes / 1.

Each measurement is a fresh process that starts its cluster, plays the run and stops the
cluster; the rate counts the run's own time (the cluster's start-up and the workers' engine
start-up left out, as ``RunOutcome.seconds`` does). On a 2-core machine the driver's DuckDB
writes share the cores with the two workers, so the ratio is below 2 here; on separate machines
the driver has its own.

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
from unostats.runs.ray_cluster import local_cluster, use_loopback
use_loopback()  # before Ray is imported
from unostats.runs.ray_games import RayExecutor
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
job = json.loads(sys.argv[1])
temp = tempfile.mkdtemp(prefix="unostats-bench-ray-")
try:
    with local_cluster(nodes=job["nodes"], cpus_per_node=1, temp_dir=temp) as address:
        executor = RayExecutor(address)
        try:
            o = simulate(scenario=load_scenario(job["scenario"]), db=job["db"],
                         games=job["games"], seed=1, executor=executor)
        finally:
            executor.close()
    print(json.dumps({"status": o.status, "games": o.games_played, "rounds": o.rounds_played,
                      "seconds": o.seconds, "workers": len(executor.workers),
                      "batches": sum(executor.batches_by_worker.values())}))
finally:
    shutil.rmtree(temp, ignore_errors=True)
"""


def ray_missing() -> str | None:
    """Why the section cannot run here (None: it can)."""
    if importlib.util.find_spec("ray") is None:
        return "Ray is not installed (pip install 'unostats[ray]')"
    return None


def cluster_throughput(scenario: Path, scale: float, log) -> dict:
    """games/s of the same run on 1 and 2 worker nodes, and their ratio (``--json`` key
    "cluster"); {"skipped": reason} without Ray."""
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
            result["games_per_s"] = result["games"] / result["seconds"]
            out[f"nodes_{nodes}"] = result
    out["ratio"] = out["nodes_2"]["games_per_s"] / out["nodes_1"]["games_per_s"]
    return out


def print_cluster(figures: dict) -> None:
    if "skipped" in figures:
        print(f"cluster (ray executor): skipped: {figures['skipped']}")
        return
    for nodes in NODES:
        r = figures[f"nodes_{nodes}"]
        print(f"ray executor, {nodes} worker node(s): {r['games_per_s']:,.0f} games/s "
              f"({r['games']:,} games, {r['rounds']:,} rounds in {r['seconds']:.1f} s, "
              f"{r['batches']} batches on {r['workers']} worker processes)")
    print(f"ray executor, 2 nodes / 1 node: {figures['ratio']:.2f}x (2 cores shared by the "
          "driver's DuckDB writes and the two workers)")
