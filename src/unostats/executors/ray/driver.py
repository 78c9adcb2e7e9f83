"""The plain-games kind of run played on a Ray cluster (``unostats simulate FILE --executor ray``):
the driver (this process) plans each cell's games as batches, Ray runs each batch as a task on a
worker (``executors.ray.worker.play_batch``), and the driver stores the returned tables in the
results database, each batch exactly once and in each cell's order. A design (``unostats design
FILE --executor ray``) is played by the design's own driver, which asks for each look's games of
a candidate in turn: they play here as tasks (``_CandidateGames``) and come back in game order.

Identical rows: a game is a pure function of (rules, seats, seed, game index) and a batch's games
are fixed when it is submitted, so the stored rows are the local executor's whatever the number
of workers, the batch sizes and the order the tasks finish in. Batches that finish early wait
(as object references: their tables stay in Ray's object store) until the batches before them in
their cell are stored. A run started on one executor resumes on the other: both continue each
cell from its stored games.

Faults: a task whose worker process (or node) dies is run again by Ray (``MAX_RETRIES``); its
result is delivered to the driver once per reference, and the store's
``write_batch_once`` makes any repeat a no-op anyway. A task that fails in Python (a bug, a
node with another unostats) is not retried: the run stops with the error, its stored batches
kept, and says how to resume.

Start-up: the driver sends one warm-up task to each node first (``warm_node``), so one process
per node fills the node's engine cache (compiling only where it is cold) before the batches
start; every worker process then loads the engine once, and its start-up time is printed the
first time it reports. The engine version of every worker is checked against the driver's.

Memory: at most ``IN_FLIGHT_PER_CPU`` batches per cluster CPU are submitted and not yet stored;
batches adapt to about ``TARGET_TASK_SECONDS`` of engine time within ``games.MAX_BATCH_SEAT_ROWS``
rows, as locally (``batch_games`` fixes the size).

Ctrl-C (or SIGTERM) stops after the batch being stored: the outstanding tasks are cancelled,
the run is marked interrupted and the resume command is printed.

Stores: with the DuckDB file (``--db``) every row travels to the driver, which writes the
file (``store.batches.write_batch_once``). With a Parquet dataset (``--store parquet:DIR``,
DIR reachable from every node: a shared disk, object storage) each task writes its batch's
shards itself (named by run, cell and games, so a retried task rewrites the same files) and
returns only a receipt, which the driver records (``store.record_shards``: once per batch);
rows never pass through the driver. A cell whose stored games have gaps (a Parquet store)
is played as one job per missing range.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ... import store
from ...engine import ENGINE_VERSION
from ...design import driver as design
from ...games import driver as games
from ...base.progress import Progress
from ...base.session import Playing, RunError, RunOutcome, cell_label, playing
from ...base.signals import StopRequest
from ...store.batches import write_batch_once
from .cluster import CONNECT_TIMEOUT_ENV, connect_timeout, joins, unreachable
from .worker import BatchResult, Ready, ShardTarget, Worker, play_batch, warm_node

MAX_RETRIES = 3  # runs of a task whose worker dies, after the first
IN_FLIGHT_PER_CPU = 2
TARGET_TASK_SECONDS = 2.0  # engine time per task (a task costs a few ms of scheduling)
MIN_DESIGN_TASK_GAMES = 50  # games of a design's task at least
POLL_SECONDS = 0.1  # how often the driver looks at the stop flag while it waits


class RayExecutor:
    """Plays plain-games runs as Ray tasks. ``address``: a cluster's HOST:PORT or 'auto' (the
    cluster started on this machine with ``ray start``, or $RAY_ADDRESS); None starts a Ray
    instance of this process's own on this machine."""

    name = "ray"

    def __init__(self, address: str | None = None) -> None:
        self.address = address
        self._started = False  # this executor called ray.init (and shuts it down)
        self.workers: dict[Worker, Ready] = {}
        self.batches_by_worker: dict[Worker, int] = {}
        self.shard_batches = 0  # batches whose shards the workers wrote (a Parquet store)

    @property
    def resume_options(self) -> tuple[str, ...]:
        return ("--executor", "ray") + (("--address", self.address) if self.address else ())

    def check(self, kind: Any) -> None:
        """Refuse a kind of run this executor does not play, before anything is stored."""
        if self.name not in kind.executors:
            raise RunError(f"--executor ray plays scenarios of plain games and designs, not "
                           f"{kind.label}s (a `{kind.section}:` section), which play on the "
                           "local executor only: drop --executor ray", exit_code=2)

    def connect(self, progress: Progress) -> None:
        """Join the cluster (or start the local instance); a cluster that cannot be reached
        is a RunError before a run is recorded."""
        if ray.is_initialized():
            return
        head = joins(self.address)
        try:  # Ray would wait for ever for a head that is not there
            problem = unreachable(head, connect_timeout())
        except ValueError as e:
            raise RunError(str(e), exit_code=2) from None
        if problem is not None:
            raise RunError(f"--executor ray: cannot start or reach the Ray cluster at {head}: "
                           f"{problem}. Start its head there (`ray start --head --port PORT`), "
                           "check --address (and $RAY_ADDRESS), give a slow one more time "
                           f"with ${CONNECT_TIMEOUT_ENV}=SECONDS, or leave --address out to "
                           "play on a Ray instance of this command's own")
        kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
        if self.address is None:
            kwargs.update(include_dashboard=False)
        try:
            info = ray.init(address=self.address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = self.address or "this machine"
            raise RunError(f"--executor ray: cannot start or reach the Ray cluster at {where}: "
                           f"{' '.join(str(e).split())[:300]}") from None
        self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = len(_nodes())
        progress.log(f"ray: cluster at {info.address_info.get('gcs_address', self.address)}, "
                     f"{nodes} node{'s' * (nodes != 1)}, {cpus} CPU{'s' * (cpus != 1)}")

    def close(self) -> None:
        if self._started:
            ray.shutdown()
            self._started = False

    # --- Playing a run --------------------------------------------------------------------------

    def play(self, con, outcome: RunOutcome, *, threads: int | None, batch_size: int | None,
             progress: Progress, stop: StopRequest | None) -> RunOutcome:
        """Play every cell of ``outcome.scenario`` from its stored games to the end (or until
        ``stop``) as Ray tasks, storing each batch once, in order; a design is played by its
        own driver, its candidates' games here (``_CandidateGames``)."""
        stop = stop or StopRequest()
        outcome.resume_options = self.resume_options
        if outcome.scenario.design is not None:
            return design.play(con, outcome, threads=threads, batch_size=batch_size,
                               progress=progress, stop=stop,
                               games=_CandidateGames(self, threads or 1))
        cells = [_Cell(job) for job in games.plan_cells(con, outcome, progress)]
        outstanding: dict[Any, tuple[_Cell, int, int]] = {}  # ref -> (cell, first, end)
        with playing(con, outcome, progress=progress, stop=stop, tally=games.tally) as session:
            try:
                session.status = self._run(con, outcome, cells, outstanding, session,
                                           threads=threads or 1, batch_size=batch_size,
                                           progress=progress, stop=stop)
            finally:  # before the session's last line
                for ref in outstanding:
                    ray.cancel(ref)
                self._log_workers(progress)
        return outcome

    def _run(self, con, outcome: RunOutcome, cells: list[_Cell], outstanding: dict,
             session: Playing, *, threads: int, batch_size: int | None, progress: Progress,
             stop: StopRequest) -> str:
        """The driver's loop: submit, wait, store what is next in its cell; the status."""
        self._warm(progress, stop)
        session.start_clock()  # the run's time and rate leave start-up out
        for c in cells:
            if c is next(d for d in cells if d.job.index == c.job.index):  # a cell's first job
                progress.cell_started(str(c.job.index), cell_label(c.job.cell), c.stored,
                                      outcome.scenario.games)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        limit = max(2, IN_FLIGHT_PER_CPU * cpus // threads)
        # SPREAD: Ray's default packs tasks onto the driver's node while they keep its leased
        # worker busy, so short batches could all play on one node of many.
        task = ray.remote(play_batch).options(num_cpus=threads, max_retries=MAX_RETRIES,
                                              retry_exceptions=False, scheduling_strategy="SPREAD")
        finished: set[Any] = set()
        # the games' totals, not their rounds' rows, for a run that keeps less than rows
        totals = store.run_keep(con, outcome.run_id) != "rows"
        while not stop.requested:
            _submit(task, cells, outstanding, limit, outcome, threads, batch_size, totals)
            if not outstanding:
                return "complete"
            ready, _ = ray.wait(list(outstanding), num_returns=len(outstanding),
                                timeout=POLL_SECONDS, fetch_local=False)
            finished.update(ready)
            for ref in _storable(cells, outstanding, finished):
                if stop.requested:
                    break
                c = outstanding.pop(ref)[0]
                finished.discard(ref)
                self._deliver(con, outcome, c, _result(ref, c), progress)
                if c.stored == c.segment_end:
                    c.next_segment(con, outcome, progress)
        return "interrupted"

    def _warm(self, progress: Progress, stop: StopRequest) -> None:
        """One warm-up task per node with CPUs, so each node's engine cache is filled once."""
        refs = [ray.remote(warm_node).options(
            num_cpus=1, max_retries=MAX_RETRIES,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
        ).remote() for node in _nodes()]
        progress.log(f"ray: making the engine ready on {len(refs)} node"
                     f"{'s' * (len(refs) != 1)} (compiled once per node and unostats version)")
        while refs and not stop.requested:
            ready, refs = ray.wait(refs, num_returns=len(refs), timeout=POLL_SECONDS)
            for ref in ready:
                self._started_worker(_get(ref, "making the engine ready"), progress)

    def _started_worker(self, ready: Ready, progress: Progress) -> None:
        if ready.engine_version != str(ENGINE_VERSION):
            raise RunError(f"{ready.worker} has unostats engine version "
                           f"{ready.engine_version}, this driver {ENGINE_VERSION}: the games "
                           "would differ; install the same unostats on every node")
        if ready.worker not in self.workers:
            self.workers[ready.worker] = ready
            progress.log(f"ray: {ready.describe()}")

    def _deliver(self, con, outcome: RunOutcome, c: _Cell, result: BatchResult,
                 progress: Progress) -> None:
        """Store one task's batch (a repeat is a no-op) and report it."""
        self._heard(result, progress)
        cell = c.job.cell
        if result.receipt is not None:  # the worker wrote the shards; recorded once
            self.shard_batches += 1
            written = (result.end - result.first) * store.record_shards(con, result.receipt)
        else:
            written = write_batch_once(con, outcome.run_id, cell.variant.name, cell.players,
                                       result.first, result.end, result.batch)
        c.stored = max(c.stored, result.end)
        c.learn(result)
        if written:
            outcome.games_played += written
            outcome.games_completed += written
            outcome.rounds_played += result.rounds
        rate = (result.end - result.first) / max(result.seconds, 1e-6)
        progress.batch_stored(str(c.job.index), cell_label(cell), result.first, result.end - 1,
                              c.stored, outcome.scenario.games, rate)

    def _heard(self, result: BatchResult, progress: Progress) -> None:
        """A task's batch arrived: its worker checked (the first time) and counted."""
        self._started_worker(result.ready, progress)
        worker = result.ready.worker
        self.batches_by_worker[worker] = self.batches_by_worker.get(worker, 0) + 1

    def _log_workers(self, progress: Progress) -> None:
        if not self.batches_by_worker:
            return
        counts = ", ".join(f"{w.pid}@{w.host}: {n}" for w, n in self.batches_by_worker.items())
        shards = (f"; the workers wrote the shards of {self.shard_batches}"
                  if self.shard_batches else "")
        n, w = sum(self.batches_by_worker.values()), len(self.batches_by_worker)
        progress.log(f"ray: {n} batch{'es' * (n != 1)} on {w} worker process"
                     f"{'es' * (w != 1)} ({counts}){shards}")


class _CandidateGames:
    """A design's games on the cluster (``design.driver.Games``): the design's driver asks for
    a candidate's games up to its next look, which are split into tasks over the cluster's CPUs
    and handed back in game order; the driver stores them and judges the candidate as it does
    locally. Candidates are judged one after the other (each look decides what plays next), so
    the cluster works on one candidate's look at a time."""

    def __init__(self, executor: RayExecutor, threads: int) -> None:
        self.executor, self.threads = executor, threads
        self.progress: Progress | None = None

    def ready(self, progress: Progress, stop: StopRequest, how_it_plays: bool) -> None:
        """The nodes warmed (a worker compiles or loads the loops that count how rounds play
        at its first task that counts)."""
        self.progress = progress
        self.executor._warm(progress, stop)

    def batches(self, cell, seed: int, first: int, end: int, *, threads: int | None,
                batch: int, how_it_plays: bool, totals: bool):
        """Games ``first`` .. ``end - 1`` as tasks of at most ``batch`` games, at least
        ``MIN_DESIGN_TASK_GAMES`` (so a short look still spreads over the CPUs), at most
        ``IN_FLIGHT_PER_CPU`` per CPU in flight; the tasks left are cancelled at a stop."""
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        limit = max(2, IN_FLIGHT_PER_CPU * cpus // self.threads)
        size = min(batch, max(MIN_DESIGN_TASK_GAMES, -(-(end - first) // limit)))
        task = ray.remote(play_batch).options(num_cpus=self.threads, max_retries=MAX_RETRIES,
                                              retry_exceptions=False, scheduling_strategy="SPREAD")
        pending: deque[Any] = deque()
        at = first
        try:
            while pending or at < end:
                while at < end and len(pending) < limit:
                    upto = min(end, at + size)
                    pending.append(task.remote(cell.variant.rules, cell.players, cell.seats,
                                               seed, at, upto, self.threads, None,
                                               how_it_plays, totals))
                    at = upto
                result = _get(pending[0], f"a batch of {cell_label(cell)}")
                pending.popleft()
                self.executor._heard(result, self.progress)
                yield result.batch
        finally:
            for ref in pending:
                ray.cancel(ref)

    def done(self, progress: Progress) -> None:
        self.executor._log_workers(progress)


@dataclass
class _Cell:
    """A cell's state on the driver: the games stored, the next to submit, the end of the
    segment being played (the next precision look, else the cell's end) and the batch size."""

    job: games._Job  # noqa: the games kind's own plan of a cell
    stored: int = 0
    submitted: int = 0
    segment_end: int = 0
    looks: list[int] = field(default_factory=list)
    size: int = games.FIRST_BATCH_GAMES
    fixed: bool = False
    done: bool = False

    def __post_init__(self) -> None:
        self.stored = self.submitted = self.job.first
        self.looks = list(self.job.looks) or [self.job.end]
        self.segment_end = self.looks.pop(0)
        self.done = self.stored >= self.segment_end and not self.looks

    def next_segment(self, con, outcome: RunOutcome, progress: Progress) -> None:
        """Every game to the segment's end is stored: look at the intervals (precision
        targets) and go on to the next look, or end the cell."""
        if self.job.looks and not games._look(con, outcome, self.job, self.segment_end,
                                             progress):
            self.done = True
        elif self.looks:
            self.segment_end = self.looks.pop(0)
        else:
            self.done = True

    def learn(self, result: BatchResult) -> None:
        """Size the cell's next batches from this one: about TARGET_TASK_SECONDS of engine time
        within the rows cap."""
        if self.fixed:
            return
        n = result.end - result.first
        rate = n / max(result.seconds, 1e-6)
        rows_per_game = self.job.cell.players * result.rounds / max(n, 1)
        most = games.MAX_BATCH_SEAT_ROWS / max(rows_per_game, 1)
        self.size = int(min(games.MAX_BATCH_GAMES, most,
                            max(games.MIN_BATCH_GAMES, rate * TARGET_TASK_SECONDS)))


def _submit(task, cells: list[_Cell], outstanding: dict, limit: int, outcome: RunOutcome,
            threads: int, batch_size: int | None, totals: bool) -> None:
    """Submit batches, cells in order, until ``limit`` are outstanding (``totals``: their games'
    totals instead of their rounds' rows)."""
    parquet = store.is_parquet(outcome.db)
    for c in cells:
        if batch_size is not None:
            c.size, c.fixed = batch_size, True
        while len(outstanding) < limit and not c.done and c.submitted < c.segment_end:
            first, end = c.submitted, min(c.segment_end, c.submitted + c.size)
            cell = c.job.cell
            shards = (ShardTarget(outcome.db, outcome.run_id, cell.variant.name) if parquet
                      else None)
            ref = task.remote(cell.variant.rules, cell.players, cell.seats,
                              outcome.scenario.seed, first, end, threads, shards,
                              outcome.scenario.how_it_plays, totals)
            outstanding[ref] = (c, first, end)
            c.submitted = end
        if len(outstanding) >= limit:
            return


def _storable(cells: list[_Cell], outstanding: dict, finished: set) -> list[Any]:
    """The finished references that are next in their cell (in cell order, then game order)."""
    by_start = {(id(c), first): ref for ref, (c, first, _) in outstanding.items()}
    out = []
    for c in cells:
        at = c.stored
        while (ref := by_start.get((id(c), at))) is not None and ref in finished:
            out.append(ref)
            at = outstanding[ref][2]
    return out


def _result(ref: Any, c: _Cell) -> BatchResult:
    return _get(ref, f"a batch of {cell_label(c.job.cell)}")


def _get(ref: Any, what: str) -> Any:
    """A task's value; a task that failed for good is a RunError (the stored batches stay)."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as e:
        cause = e.cause if getattr(e, "cause", None) is not None else e
        raise RunError(f"{what} failed on the cluster: {type(cause).__name__}: "
                       f"{' '.join(str(cause).split())[:300]}") from None
    except ray.exceptions.RayError as e:
        raise RunError(f"{what} failed on the cluster after {MAX_RETRIES} retries: "
                       f"{' '.join(str(e).split())[:300]}") from None


def _nodes() -> list[dict[str, Any]]:
    """The alive nodes that have CPUs."""
    return [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]

