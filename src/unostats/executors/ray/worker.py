"""What a Ray worker runs for ``--executor ray``: one batch of a cell's games, played with the
engine in the worker's process and returned as Arrow tables (Ray moves them to the driver
through its object store, zero-copy where it can) - or, when the run's store is a Parquet
dataset (``--store parquet:DIR``), written there by the worker as the batch's shards
(``store.write_shards``) and returned as the receipt the driver records.

A game is a pure function of (rules, seats, seed, game index), so a batch is the same rows on
any worker, on a retry, and in any order the batches finish.

The engine is made ready once per worker process (``_engine_ready``): the first task a process
runs loads the compiled engine from the node's cache (or compiles it, on a node whose cache is
cold) and times it; later tasks of that process reuse it. ``warm_node`` is the task the driver
sends to each node first, so one process per node fills the node's cache before the others
start, and each batch's ``BatchResult.ready`` carries the process's own start-up.

Imported only by the Ray executor (``executors.ray.driver``) and by the Ray workers themselves: the
rest of unostats never imports Ray.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from ... import store
from ...engine import ENGINE_VERSION
from ...engine.compiled import compile_for
from ...engine.simulate import Batch, joined, simulate_arrow
from ...rules import RuleSet
from ...seats import Seat


@dataclass(frozen=True)
class Worker:
    """Where a task ran: the node, its host name and the worker process."""

    node_id: str
    host: str
    pid: int

    def __str__(self) -> str:
        return f"worker {self.pid} on {self.host} (node {self.node_id[:8]})"


@dataclass(frozen=True)
class Ready:
    """How a worker process made the engine ready: seconds, and whether it compiled it (a cold
    cache on that node) or loaded the cached machine code."""

    worker: Worker
    seconds: float
    compiled: bool
    engine_version: str

    def describe(self) -> str:
        how = "compiled" if self.compiled else "loaded from the node's cache"
        return f"{self.worker}: engine {how} in {self.seconds:.1f} s"


@dataclass(frozen=True)
class ShardTarget:
    """Where a worker writes its batch itself: a Parquet store (``store.ParquetLocation``,
    picklable) and the run and variant of the batch's cell."""

    location: Any
    run_id: str
    variant: str


@dataclass
class BatchResult:
    """One task's answer: games ``first`` .. ``end - 1`` of a cell as tables (``batch``), or the
    receipt of the shards the worker wrote (``receipt``, the other one None); the engine's
    seconds for them, and how the worker process made the engine ready (the driver prints it
    the first time it hears from that process)."""

    first: int
    end: int
    batch: Batch | None
    receipt: store.ShardReceipt | None
    rounds: int
    seconds: float
    ready: Ready


_ready: Ready | None = None  # this process's engine start-up, once


def _worker() -> Worker:
    import ray

    return Worker(node_id=ray.get_runtime_context().get_node_id(), host=socket.gethostname(),
                  pid=os.getpid())


def _engine_ready() -> Ready:
    """Compile or load the engine in this process, once: the cache check and one small game
    of the official rules (which loads the kernels their batches use; other rules' entry
    points load, or compile, when a task first plays them)."""
    global _ready
    if _ready is None:
        start = time.perf_counter()
        official = RuleSet.from_mapping({})
        compiled = compile_for([official]) is not None
        for _ in simulate_arrow(rules=official, players=2, seats=Seat(),
                                games=1, seed=0, threads=1, ahead=False):
            pass
        _ready = Ready(worker=_worker(), seconds=time.perf_counter() - start,
                       compiled=compiled, engine_version=str(ENGINE_VERSION))
    return _ready


def warm_node() -> Ready:
    """The engine made ready in this worker process (the driver's first task on each node)."""
    return _engine_ready()


def play_batch(rules: RuleSet, players: int, seats: tuple[Seat, ...], seed: int, first: int,
               end: int, threads: int, shards: ShardTarget | None = None,
               how_it_plays: bool = False, totals: bool = False) -> BatchResult:
    """Games ``first`` .. ``end - 1`` of a cell, as one batch of Arrow tables, or written as
    shards to ``shards`` (a retry rewrites the same files: a shard's name is its batch's);
    ``how_it_plays``: counting how each round plays (its loops compile, or load, at the first
    such task); ``totals``: the games' totals instead of their rounds' rows (a run that keeps
    games or summary)."""
    ready = _engine_ready()
    start = time.perf_counter()
    parts = list(simulate_arrow(rules=rules, players=players, seats=seats, games=end - first,
                                seed=seed, first_game=first, threads=threads,
                                batch_games=end - first, ahead=False,
                                how_it_plays=how_it_plays, totals=totals))
    batch = joined(parts)
    receipt = None
    if shards is not None:
        receipt = store.write_shards(shards.location, shards.run_id, shards.variant, players,
                                     batch)
    return BatchResult(first=first, end=end, batch=None if receipt else batch, receipt=receipt,
                       rounds=batch.round_count(), seconds=time.perf_counter() - start,
                       ready=ready)

