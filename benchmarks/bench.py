"""Speed of unostats' engine, side by side with the C yardstick of shared/bench (``make bench``).

Prints one table (2, 4, 6 players; 1 and 2 threads): the engine's rounds/s, turns/s and ns/turn,
the C program's rounds/s and ns/turn on one core, the ratio engine/C per core and the 2-thread
speed-up; then games/s under the official rules and the cold-compile and cached start-up times.
Targets are printed beside the measured values as "met" / "missed"; nothing is asserted.

The engine plays the "reference rules" of shared/bench/README.md (the C program's rules) in games
to 500 points, so its rounds are all the rounds of those games. Engine time is the time spent
inside ``simulate_arrow`` producing batches: the engine as ``unostats simulate`` runs it (kernels
that play and record every game, round and seat, and the Arrow tables the store appends), after a
warm-up that compiles everything; the runs on 1 and 2 threads alternate (1, 2, 1, 2, ... the same
games), and the best of ``--reps`` runs of each counts, as the C program reports its best of ``-r``
repetitions (CPU time, pinned to one core). A third run in each turn, one thread through
``simulate_batches`` (the same tables viewed as polars DataFrames, the Python API's batches), is
the "as frames" column (``frames_ratio`` in ``--json``).

    python benchmarks/bench.py            # ~0.5 M rounds per measurement (a few minutes)
    python benchmarks/bench.py --quick    # a smoke run of a few seconds per step
    UNOSTATS_BENCH_SCALE=0.1 python benchmarks/bench.py   # any size factor
    UNOSTATS_SHARED=/path/to/shared python benchmarks/bench.py

End to end (``--no-end-to-end`` skips it): ``unostats simulate`` with every game, round and seat
stored in DuckDB, side by side with the C yardstick and the engine alone (4 players, reference
rules): on one core (``taskset -c 0``, one thread) and on all cores; peak memory (RSS) of
``simulate`` at G and 10 G games of the official rules (the second run, about 10 M rounds at
scale 1, is also timed with its ``report``); whole championships (scenarios/championship.yaml)
as tournaments/s and table games/s against plain games of the same rules and table size. Each
run is a fresh process (``_E2E_SNIPPET``); its rate counts the run's own time (start-up and
compiling left out), its CPU time comes from the kernel's accounting, its peak RSS from /proc (VmHWM).
The championships and their plain games are measured side by side instead (``_SIDE_BY_SIDE``):
``TOURNAMENT_REPS`` fresh processes, each of which first plays both scenarios briefly (the
engine's cached machine code and DuckDB loaded, as a run of any length has them after its first
second) and then times one run of each, in alternating order, wall and CPU seconds of the same
``simulate`` call; the plain run plays ``PLAIN_GAMES_FACTOR`` times the championships' table
games. The figure is the median repetition's ratio, the spread beside it.

On a cluster (``--no-cluster`` skips it; ``cluster_bench.py``): ``simulate --executor ray`` on a
local Ray cluster of 1 and 2 worker nodes (official rules, 4 players), games/s and the ratio;
skipped with the reason where Ray is not installed.

This module is importable: ``parse_c_output`` is unit-tested in tests/test_bench_parse.py.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_bench import cluster_throughput, print_cluster  # noqa: E402 (beside this file)

REPO = Path(__file__).resolve().parent.parent
BUILD = REPO / "benchmarks" / "_build"

PLAYERS = (2, 4, 6)
THREADS = (1, 2)
FRAMES = "frames"  # engine[players, FRAMES]: one thread through simulate_batches
REFERENCE_RULES = {"first_card": "number_only", "wild_draw_four": "free", "uno_penalty": 0}
ROUNDS_PER_MEASUREMENT = 500_000  # at scale 1; the brief for this script asks for 0.3-1 M
QUICK_SCALE = 0.02

TARGET_RATIO = 0.8  # engine/C per core
TARGET_SPEEDUP = 1.8  # 2 threads over 1
TARGET_STARTUP_S = 1.0  # cached start-up: import + one game
TARGET_COMPILE_S = 20.0  # cold compile: import + one game with an empty cache
TARGET_OPTION_COST = 2.0  # ns/turn of the official rules with one option changed, over the rules'
OPTION_PLAYERS = 4

# End to end (``end_to_end``): simulate into DuckDB against the C yardstick and the engine alone.
TARGET_E2E_RATIO_C = 0.4  # simulate on one core / C on one core
TARGET_E2E_RATIO_ENGINE = 0.8  # simulate on one core / the engine alone on one thread
TARGET_MEMORY_MB = 400  # peak RSS of simulate
TARGET_MEMORY_GROWTH = 1.15  # peak RSS at 10 G games / at G games
TARGET_10M_S = 20.0  # simulate + report, 10 M rounds, 4 players, all cores
TARGET_TOURNAMENT_RATIO = 0.3  # table games/s of championships / plain games/s
MEMORY_GAMES = 100_000  # G at scale 1 (official rules, 4 players): 100k and 1M games
TOURNAMENTS = 500  # championships per field at scale 1 (16,000 table games: ~3 s of play)
TARGET_KEEP_GAMES_ONE_CORE = 0.85  # simulate --keep games / the engine alone, one core (CPU)
TARGET_KEEP_10M_S = 15.0  # --keep games, 10 M rounds at 4 players, all cores
TARGET_KEEP_FILE = 0.1  # --keep games' file / rows'
TARGET_DESIGN_S = 600.0  # a 200-candidate design at 4 players, up to 20,000 games a candidate
KEEP_ONE_CORE_GAMES = 200_000  # at scale 1 (~2.2 M rounds)
KEEP_ALL_CORES_GAMES = 900_000  # at scale 1 (~10 M rounds at 4 players)
DESIGN_CANDIDATES = 200  # at scale 1
TOURNAMENT_REPS = 5  # side-by-side repetitions of championships and plain games (1 at --quick)
PLAIN_GAMES_FACTOR = 3  # the plain run plays this many times the championships' table games


# ---------------------------------------------------------------------------------------------
# The C yardstick


@dataclass(frozen=True)
class CResult:
    players: int
    rounds: int
    rounds_per_s: float  # from the "cpu:" line (best repetition, CPU time)
    turns_per_s: float
    ns_per_turn: float
    mean_turns: float


_KV = re.compile(r"(\w+)=(\S+)")


def _fields(line: str) -> dict[str, str]:
    return dict(_KV.findall(line))


def parse_c_output(text: str) -> CResult:
    """Parse the stdout of shared/bench/uno_ref.c (its header, ``cpu:`` and ``mean_turns=`` lines).

    Raises ValueError naming what is missing when the text is not such an output.
    """
    header = cpu = means = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("impl="):
            header = _fields(line)
        elif line.startswith("cpu:"):
            cpu = _fields(line)
        elif line.startswith("mean_turns="):
            means = _fields(line)
    missing = [name for name, found in (("impl= header", header), ("cpu:", cpu),
                                        ("mean_turns=", means)) if found is None]
    if missing:
        raise ValueError(f"not uno_ref output: no {', '.join(missing)} line")
    try:
        return CResult(
            players=int(header["players"]),
            rounds=int(header["rounds"]),
            rounds_per_s=float(cpu["rounds_per_s"]),
            turns_per_s=float(cpu["turns_per_s"]),
            ns_per_turn=float(cpu["ns_per_turn"]),
            mean_turns=float(means["mean_turns"]),
        )
    except KeyError as e:
        raise ValueError(f"not uno_ref output: field {e.args[0]!r} missing") from None


def shared_dir() -> Path:
    return Path(os.environ.get("UNOSTATS_SHARED") or REPO.parent / "shared")


def build_c() -> tuple[Path | None, str]:
    """Compile uno_ref.c into benchmarks/_build (only when the source is newer).

    Returns (binary, "") or (None, why it was skipped)."""
    src = shared_dir() / "bench" / "uno_ref.c"
    if not src.is_file():
        return None, f"{src} not found (set UNOSTATS_SHARED to the shared/ folder)"
    gcc = shutil.which("gcc")
    if gcc is None:
        return None, "gcc not found"
    exe = BUILD / "uno_ref"
    if exe.is_file() and exe.stat().st_mtime >= src.stat().st_mtime:
        return exe, ""
    BUILD.mkdir(parents=True, exist_ok=True)
    cmd = [gcc, "-O3", "-march=native", "-o", str(exe), str(src), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"gcc failed: {done.stderr.strip()[-500:]}"
    return exe, ""


def run_c(exe: Path, players: int, rounds: int) -> CResult:
    """One run of the C program (its own repetitions: 1; the caller keeps the best of its runs)."""
    cmd = [str(exe), "-p", str(players), "-n", str(rounds), "-r", "1"]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return parse_c_output(done.stdout)


# ---------------------------------------------------------------------------------------------
# unostats' engine


@dataclass(frozen=True)
class EngineResult:
    players: int
    threads: int
    games: int
    rounds: int
    turns: int
    seconds: float  # best repetition
    cpu_seconds: float = 0.0  # the process's CPU time in that repetition (all threads)

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.seconds

    @property
    def cpu_rounds_per_s(self) -> float:
        """Rounds per CPU second: wall time on a loaded machine counts other work too."""
        return self.rounds / self.cpu_seconds if self.cpu_seconds else 0.0

    @property
    def turns_per_s(self) -> float:
        return self.turns / self.seconds

    @property
    def ns_per_turn(self) -> float:
        return 1e9 * self.seconds / self.turns

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def mean_turns(self) -> float:
        return self.turns / self.rounds


def play(rules, players: int, games: int, threads: int, seed: int = 1,
         frames: bool = False) -> tuple[float, int, int, float]:
    """Play ``games`` games through ``simulate_arrow``, the engine as ``unostats simulate`` runs
    it (the kernels and the Arrow tables the store appends; no batch played ahead of the caller:
    simulate's writer thread is what overlaps the engine), or with ``frames`` through
    ``simulate_batches`` (the same tables viewed as polars DataFrames); return (seconds spent
    producing batches, rounds, turns, the process's CPU seconds meanwhile)."""
    import pyarrow.compute as pc

    from unostats.engine.simulate import Seat, simulate_arrow, simulate_batches

    run = simulate_batches if frames else simulate_arrow
    batches = run(rules=rules, players=players, seats=Seat("random"), games=games, seed=seed,
                  threads=threads, ahead=False)
    seconds, rounds, turns, cpu = 0.0, 0, 0, 0.0
    while True:
        t0, c0 = time.perf_counter(), time.process_time()
        batch = next(batches, None)
        seconds += time.perf_counter() - t0
        cpu += time.process_time() - c0
        if batch is None:
            return seconds, rounds, turns, cpu
        rounds += len(batch.rounds)
        turns += int(batch.rounds["turns"].sum() if frames else
                     pc.sum(batch.rounds["turns"]).as_py())


def timed(rules, players: int, games: int, threads: int, frames: bool = False) -> EngineResult:
    """One timed ``play`` of ``games`` games as an EngineResult."""
    seconds, rounds, turns, cpu = play(rules, players, games, threads, frames=frames)
    return EngineResult(players, threads, games, rounds, turns, seconds, cpu)


Run = tuple[int, bool]  # (threads, through polars frames: simulate_batches)


def measure(rules, players: int, threads: int | Sequence[int | Run], target_rounds: int,
            reps: int, between: Callable[[], None] | None = None,
            ) -> EngineResult | dict[int | Run, EngineResult]:
    """Warm up (compile, estimate rounds per game), then time ``reps`` runs of the same games.
    A sequence of thread counts (or of (threads, frames) runs: ``play``): each rep runs them
    in turn (1, 2, 1, 2, ...), so a busy moment of the machine falls on all of them alike; the
    best run of each counts. ``between`` runs at the start of each rep (the C yardstick)."""
    from unostats.base.engine_cache import prepare_engine

    prepare_engine(None, [rules])  # as `unostats simulate` does first (it also runs gc.freeze)
    counts = [threads] if isinstance(threads, int) else list(threads)
    runs = [c if isinstance(c, tuple) else (c, False) for c in counts]
    _, rounds, _, _ = play(rules, players, 50, *runs[0])
    games = max(1, math.ceil(target_rounds * 50 / max(rounds, 1)))
    for run in runs[1:]:
        play(rules, players, 50, *run)
    best: dict[int | Run, EngineResult] = {}
    for _ in range(reps):
        if between is not None:
            between()
        for key, (t, frames) in zip(counts, runs):
            result = timed(rules, players, games, t, frames)
            if key not in best or result.seconds < best[key].seconds:
                best[key] = result
    return best[threads] if isinstance(threads, int) else best


_STARTUP_SNIPPET = """
import json, time
t0 = time.perf_counter()
from unostats.rules import RuleSet
from unostats.engine.simulate import Seat, simulate_batches
t1 = time.perf_counter()
for _ in simulate_batches(rules=RuleSet.from_mapping({}), players=4, seats=Seat("random"),
                          games=1, seed=1):
    pass
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_game_s": t2 - t1}))
"""


def startup(cache_dir: Path) -> tuple[float, dict | str]:
    """Wall time of a fresh interpreter importing the engine and playing one game (its CPU
    time, user + system, as ``cpu_s``: the wall time of a cold compile on a busy machine says
    little)."""
    import resource

    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), UNOSTATS_CACHE_DIR=str(cache_dir))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _STARTUP_SNIPPET], capture_output=True,
                          text=True, env=env, cwd=REPO)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return wall, f"failed: {last}"
    info = json.loads(done.stdout.strip().splitlines()[-1])
    info["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, info


def cli_startup(cache_dir: Path, reps: int = 3) -> dict[str, tuple[float, float]]:
    """Fresh ``unostats --help`` and ``unostats simulate`` of one game of the official rules
    into a new results file, with a warm cache: (wall, CPU) seconds of each, the best of
    ``reps``."""
    import resource

    exe = Path(sys.executable).with_name("unostats")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), UNOSTATS_CACHE_DIR=str(cache_dir))
    out: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="unostats-bench-cli-") as folder:
        db = Path(folder) / "cli.duckdb"
        commands = {"help": ["--help"],
                    "simulate": ["simulate", str(plain_scenario(Path(folder), 4, {})), "--db",
                                 str(db)]}
        for name, args in commands.items():
            for _ in range(reps):
                for f in Path(folder).glob("cli.duckdb*"):
                    f.unlink()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run([str(exe) if exe.exists() else "unostats", *args], env=env,
                               capture_output=True, check=True, cwd=REPO)
                wall = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if name not in out or wall < out[name][0]:
                    out[name] = (wall, cpu)
    return out


# ---------------------------------------------------------------------------------------------
# End to end: simulate into DuckDB


_E2E_SNIPPET = """
import json, resource, sys, time
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
job = json.loads(sys.argv[1])
t0 = time.perf_counter()
o = simulate(scenario=load_scenario(job["scenario"]), db=job["db"], games=job["games"],
             threads=job["threads"])
wall = time.perf_counter() - t0
u = resource.getrusage(resource.RUSAGE_SELF)
# The peak of this process's own memory: Linux's VmHWM. ru_maxrss is not it: a child started
# by fork (or vfork) and exec keeps the parent's resident size as its maximum.
try:
    with open("/proc/self/status") as f:
        peak_mb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak_mb = u.ru_maxrss / 1024
print(json.dumps({"status": o.status, "seconds": o.seconds, "wall_s": wall,
                  "games": o.games_played, "rounds": o.rounds_played,
                  "tournaments": o.tournaments_played, "cpu_s": u.ru_utime + u.ru_stime,
                  "peak_rss_mb": peak_mb}))
"""

E2E_PLAIN = """name: bench-e2e
seed: 1
games: 1
players: [{players}]
seats:
  policy: random
variants:
  - name: bench
    extends: {extends}
    rules: {rules}
"""


@dataclass(frozen=True)
class RunResult:
    """One ``unostats simulate`` in a fresh process."""

    games: int
    rounds: int
    tournaments: int
    seconds: float  # the run's own time (no start-up, no compile)
    cpu_s: float  # the whole process
    peak_rss_mb: float
    report_s: float | None = None

    @property
    def rounds_per_s(self) -> float:
        return self.rounds / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def run_simulate(scenario: Path, games: int, *, threads: int | None, one_core: bool,
                 folder: Path, report: bool = False) -> RunResult:
    """``unostats simulate`` of ``scenario`` (``games`` per cell) into a new file in ``folder``;
    with ``report``, then ``unostats report`` of it (wall time)."""
    db = folder / f"run-{len(list(folder.glob('*.duckdb')))}.duckdb"
    job = {"scenario": str(scenario), "db": str(db), "games": games, "threads": threads}
    cmd = [sys.executable, "-c", _E2E_SNIPPET, json.dumps(job)]
    if one_core and shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"simulate {scenario.name} failed: {last}")
    info = json.loads(done.stdout.strip().splitlines()[-1])
    report_s = None
    if report:
        exe = Path(sys.executable).with_name("unostats")
        t0 = time.perf_counter()
        subprocess.run([str(exe) if exe.exists() else "unostats", "report", "--db", str(db),
                        "--out", str(folder / "report.html")], capture_output=True, check=True,
                       cwd=REPO)
        report_s = time.perf_counter() - t0
    for f in folder.glob(f"{db.name}*"):
        f.unlink()
    return RunResult(info["games"], info["rounds"], info["tournaments"], info["seconds"],
                     info["cpu_s"], info["peak_rss_mb"], report_s)


def plain_scenario(folder: Path, players: int, rules: dict, extends: str = "standard") -> Path:
    path = folder / f"plain-{players}-{len(list(folder.glob('plain-*.yaml')))}.yaml"
    path.write_text(E2E_PLAIN.format(players=players, rules=json.dumps(rules), extends=extends))
    return path


def end_to_end(scale: float, engine_one: EngineResult | None, log) -> dict:
    """The end-to-end runs (see the module docstring), each in a fresh process: RunResults by
    name, and ``tournament_pairs``, the championships' side-by-side repetitions."""
    out: dict = {}
    rounds_per_game = 11.0  # reference rules, 4 players (refined by the first run)
    games = max(200, int(ROUNDS_PER_MEASUREMENT * scale / rounds_per_game))
    with tempfile.TemporaryDirectory(prefix="unostats-bench-e2e-") as tmp:
        folder = Path(tmp)
        reference = plain_scenario(folder, 4, REFERENCE_RULES)
        log("  end to end: simulate into DuckDB, one core (taskset -c 0, 1 thread) ...")
        out["one_core"] = run_simulate(reference, games, threads=1, one_core=True, folder=folder)
        log("  end to end: simulate into DuckDB, all cores ...")
        out["all_cores"] = run_simulate(reference, games, threads=None, one_core=False,
                                        folder=folder)
        official = plain_scenario(folder, 4, {})
        small = max(1_000, int(MEMORY_GAMES * scale))
        for key, n, report in (("memory_small", small, False), ("memory_large", 10 * small, True)):
            log(f"  end to end: peak memory, official rules, {n:,} games{' + report' * report}"
                " ...")
            out[key] = run_simulate(official, n, threads=None, one_core=False, folder=folder,
                                    report=report)
        championship = REPO / "scenarios" / "championship.yaml"
        if championship.is_file():
            n = max(2, int(TOURNAMENTS * scale))
            reps = TOURNAMENT_REPS if scale >= 0.1 else 1
            # The plain games a championship table plays: the TOUR preset, 6 seats.
            table = plain_scenario(folder, 6, {}, extends="tournament")
            log(f"  end to end: {n} championships per field (scenarios/championship.yaml) "
                f"against plain games of their rules at 6 players, side by side, {reps} "
                "repetition(s) ...")
            pairs = championships_vs_plain(championship, n, table, reps, folder)
            out["tournament_pairs"] = pairs
            out["tournaments"], out["tournament_plain"] = _median_pair(pairs)
    return out


def keeps_and_design(scale: float, reps: int, log) -> dict:
    """What a run keeps (``store_bench.py --keeps``, each side by side with the engine alone:
    pinned to one core, then on all cores at ~10 M rounds) and the bundled design with
    ``DESIGN_CANDIDATES`` candidates of up to 20,000 games (wall time), each in a fresh
    process."""
    out: dict = {}
    store_bench = REPO / "benchmarks" / "store_bench.py"
    reps = min(reps, 3)
    for key, games, pin in (("one_core", KEEP_ONE_CORE_GAMES, True),
                            ("all_cores", KEEP_ALL_CORES_GAMES, False)):
        n = max(2_000, int(games * scale))
        log(f"  what a run keeps, {n:,} games at 4 players, "
            f"{'one core (taskset -c 0)' if pin else 'all cores'}, rows/games/summary beside "
            f"the engine alone, median of {reps} ...")
        cmd = [sys.executable, str(store_bench), "--keeps", "--games", str(n), "--reps",
               str(reps), "--json"]
        if pin and shutil.which("taskset"):
            cmd = ["taskset", "-c", "0", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
        if done.returncode != 0:
            raise RuntimeError("store_bench.py --keeps failed: "
                               + (done.stderr.strip().splitlines() or ["no output"])[-1])
        out[key] = json.loads(done.stdout.strip().splitlines()[-1])
    candidates = max(4, int(DESIGN_CANDIDATES * scale))
    games = 20_000 if scale >= 0.5 else max(500, int(20_000 * scale))
    log(f"  a design of {candidates} candidates (scenarios/design.yaml, up to {games:,} games "
        "each), all cores ...")
    with tempfile.TemporaryDirectory(prefix="unostats-bench-design-") as tmp:
        exe = Path(sys.executable).with_name("unostats")
        t0 = time.perf_counter()
        done = subprocess.run(
            [str(exe) if exe.exists() else "unostats", "design", "design", "--db",
             str(Path(tmp) / "design.duckdb"), "--set", f"design.budget.candidates={candidates}",
             "--set", f"design.budget.games={games}", "--out", str(Path(tmp) / "best.yaml"),
             "-q", "--format", "json"], capture_output=True, text=True, cwd=REPO, check=False)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError("unostats design failed: "
                               + (done.stderr.strip().splitlines() or ["no output"])[-1])
        store_path = Path(tmp) / "design.duckdb"
        import duckdb

        con = duckdb.connect(str(store_path), read_only=True)
        try:
            played, = con.execute("SELECT sum(games_completed) FROM runs").fetchone()
        finally:
            con.close()
    out["design"] = {"candidates": candidates, "games_cap": games, "seconds": wall,
                     "games": int(played or 0)}
    return out


def print_keeps_and_design(k: dict) -> None:
    print("what a run keeps (benchmarks/store_bench.py --keeps: the same games played by the "
          "engine alone and stored by simulate --keep ..., medians, alternated):")
    for key, what in (("one_core", "one core"), ("all_cores", "all cores")):
        f = k[key]
        m = f["keeps"]
        alone = m["engine"]
        print(f"  {what}, {f['games']:,} games ({f['rounds']:,} rounds): engine alone "
              f"{alone['seconds']:.1f} s (CPU {alone['cpu_s']:.1f} s); " + "; ".join(
                  f"{kept} {m[kept]['seconds']:.1f} s ({alone['seconds'] / m[kept]['seconds']:.2f}x"
                  f" wall, {alone['cpu_s'] / m[kept]['cpu_s']:.2f}x CPU, "
                  f"{m[kept]['bytes'] / 1e6:.1f} MB)" for kept in ("rows", "games", "summary")))
    one = k["one_core"]["keeps"]
    ratio = one["engine"]["cpu_s"] / one["games"]["cpu_s"]
    print(f"  --keep games on one core / the engine alone (CPU): {ratio:.2f}x  target >= "
          f"{TARGET_KEEP_GAMES_ONE_CORE}x: {verdict(ratio, TARGET_KEEP_GAMES_ONE_CORE)}")
    big = k["all_cores"]
    secs = big["keeps"]["games"]["seconds"] * 10_000_000 / max(big["rounds"], 1)
    print(f"  --keep games, 10 M rounds on all cores (scaled from {big['rounds']:,}): "
          f"{secs:.1f} s (the engine alone "
          f"{big['keeps']['engine']['seconds'] * 10_000_000 / max(big['rounds'], 1):.1f} s)  "
          f"target < {TARGET_KEEP_10M_S:.0f} s: "
          f"{verdict(secs, TARGET_KEEP_10M_S, higher_is_better=False)}")
    share = big["keeps"]["games"]["bytes"] / big["keeps"]["rows"]["bytes"]
    print(f"  --keep games' file / rows': {share:.3f}  target < {TARGET_KEEP_FILE}: "
          f"{verdict(share, TARGET_KEEP_FILE, higher_is_better=False)}")
    d = k["design"]
    print(f"  design, {d['candidates']} candidates (up to {d['games_cap']:,} games each): "
          f"{d['seconds']:.1f} s, {d['games']:,} games  target < {TARGET_DESIGN_S / 60:.0f} "
          f"min at 200 candidates: "
          + (verdict(d["seconds"], TARGET_DESIGN_S, higher_is_better=False)
             if d["candidates"] >= DESIGN_CANDIDATES else "not measured at this scale"))


_SIDE_BY_SIDE = """
import json, resource, sys, time
from pathlib import Path
from unostats.runs.simulate import simulate
from unostats.scenario import load_scenario
job = json.loads(sys.argv[1])
folder = Path(job["folder"])
sides = {name: load_scenario(side["scenario"]) for name, side in job["sides"].items()}
for name, side in job["sides"].items():  # warm-up: the engine's machine code, DuckDB
    simulate(scenario=sides[name], db=str(folder / f"warm-{name}.duckdb"),
             games=side["warm_games"], threads=None)
out = {}
for name in job["order"]:
    side = job["sides"][name]
    t0, c0 = time.perf_counter(), time.process_time()
    o = simulate(scenario=sides[name], db=str(folder / f"timed-{name}.duckdb"),
                 games=side["games"], threads=None)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert o.status == "complete", o.status
    out[name] = {"seconds": wall, "cpu_s": cpu, "games": o.games_played,
                 "rounds": o.rounds_played, "tournaments": o.tournaments_played}
with open("/proc/self/status") as f:
    peak_mb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
print(json.dumps({"runs": out, "peak_rss_mb": peak_mb}))
"""


def championships_vs_plain(championship: Path, tournaments: int, plain: Path, reps: int,
                           folder: Path) -> list[tuple[RunResult, RunResult]]:
    """(championships, plain games) of ``reps`` side-by-side repetitions (``_SIDE_BY_SIDE``):
    ``tournaments`` per field of ``championship``, then ``PLAIN_GAMES_FACTOR`` times their
    table games of ``plain`` (or the other way round: the order alternates), all cores,
    wall and CPU seconds of each ``simulate`` call after both were warmed up in the process."""
    from unostats.scenario import load_scenario

    spec = load_scenario(championship).tournament
    table_games = tournaments * sum(spec.games_per_tournament(f) for f in spec.fields)
    sides = {"tournaments": {"scenario": str(championship), "games": tournaments,
                             "warm_games": 2},
             "plain": {"scenario": str(plain), "games": PLAIN_GAMES_FACTOR * table_games,
                       "warm_games": 200}}
    pairs = []
    for rep in range(reps):
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            order = ["tournaments", "plain"][::1 if rep % 2 == 0 else -1]
            job = {"folder": tmp, "sides": sides, "order": order}
            done = subprocess.run([sys.executable, "-c", _SIDE_BY_SIDE, json.dumps(job)],
                                  capture_output=True, text=True, cwd=REPO, check=False)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"championships side by side failed: {last}")
            info = json.loads(done.stdout.strip().splitlines()[-1])
        runs = info["runs"]
        pairs.append(tuple(RunResult(r["games"], r["rounds"], r["tournaments"], r["seconds"],
                                     r["cpu_s"], info["peak_rss_mb"])
                           for r in (runs["tournaments"], runs["plain"])))
    return pairs


def _ratio(tours: RunResult, plain: RunResult, cpu: bool = False) -> float:
    """Table games per second of championships over plain games per second (wall or CPU)."""
    if cpu:
        return (tours.games / tours.cpu_s) / (plain.games / plain.cpu_s)
    return tours.games_per_s / plain.games_per_s


def _median_pair(pairs: list[tuple[RunResult, RunResult]]) -> tuple[RunResult, RunResult]:
    """The repetition whose wall ratio is the median (the lower middle of an even number)."""
    ranked = sorted(pairs, key=lambda p: _ratio(*p))
    return ranked[(len(ranked) - 1) // 2]


def e2e_figures(e2e: dict, c4: CResult | None,
                engine_one: EngineResult | None) -> dict:
    """The end-to-end figures (``--json`` key "end_to_end")."""
    out: dict = {}
    for key, r in e2e.items():
        if not isinstance(r, RunResult):
            continue
        out[key] = {"games": r.games, "rounds": r.rounds, "tournaments": r.tournaments,
                    "seconds": r.seconds, "rounds_per_s": r.rounds_per_s,
                    "games_per_s": r.games_per_s, "cpu_s": r.cpu_s,
                    "peak_rss_mb": r.peak_rss_mb, "report_s": r.report_s}
    one = e2e.get("one_core")
    if one and c4:
        out["one_core_vs_c"] = one.rounds_per_s / c4.rounds_per_s
    if one and engine_one:
        out["one_core_vs_engine"] = one.rounds_per_s / engine_one.rounds_per_s
    small, large = e2e.get("memory_small"), e2e.get("memory_large")
    if small and large:
        out["memory_growth"] = large.peak_rss_mb / small.peak_rss_mb
        out["memory_large_simulate_plus_report_s"] = large.seconds + (large.report_s or 0.0)
    tours, plain = e2e.get("tournaments"), e2e.get("tournament_plain")
    if tours and plain:
        out["tournaments_per_s"] = tours.tournaments / tours.seconds
        out["tournament_table_games_per_s"] = tours.games_per_s
        out["tournament_vs_plain"] = _ratio(tours, plain)
        out["tournament_vs_plain_cpu"] = _ratio(tours, plain, cpu=True)
        pairs = e2e.get("tournament_pairs") or [(tours, plain)]
        out["tournament_vs_plain_reps"] = [
            {"wall": _ratio(*p), "cpu": _ratio(*p, cpu=True), "tournament_s": p[0].seconds,
             "tournament_cpu_s": p[0].cpu_s, "plain_s": p[1].seconds, "plain_cpu_s": p[1].cpu_s}
            for p in pairs]
    return out


def print_e2e(e2e: dict, c4: CResult | None,
              engine_one: EngineResult | None) -> None:
    f = e2e_figures(e2e, c4, engine_one)
    print("end to end: unostats simulate, every game, round and seat stored in DuckDB "
          "(rates: the run's own time; CPU: the whole process)")
    if c4:
        print(f"  C yardstick, 4 players, one core:   {_si(c4.rounds_per_s)} rounds/s")
    if engine_one:
        print(f"  engine alone, 4 players, 1 thread:  {_si(engine_one.rounds_per_s)} rounds/s")
    for key, name in (("one_core", "simulate, one core, 1 thread:     "),
                      ("all_cores", "simulate, all cores:              ")):
        r = e2e.get(key)
        if r:
            print(f"  {name} {_si(r.rounds_per_s)} rounds/s ({r.rounds:,} rounds in "
                  f"{r.seconds:.1f} s, CPU {r.cpu_s:.1f} s, peak {r.peak_rss_mb:.0f} MB)")
    if "one_core_vs_c" in f:
        v = f["one_core_vs_c"]
        print(f"  simulate one core / C:      {v:.2f}x  target >= {TARGET_E2E_RATIO_C}x: "
              f"{verdict(v, TARGET_E2E_RATIO_C)}")
    if "one_core_vs_engine" in f:
        v = f["one_core_vs_engine"]
        print(f"  simulate one core / engine: {v:.2f}x  target >= {TARGET_E2E_RATIO_ENGINE}x: "
              f"{verdict(v, TARGET_E2E_RATIO_ENGINE)}")
    small, large = e2e.get("memory_small"), e2e.get("memory_large")
    if small and large:
        worst = max(small.peak_rss_mb, large.peak_rss_mb)
        print(f"  peak memory, official rules, 4 players: {small.peak_rss_mb:.0f} MB at "
              f"{small.games:,} games, {large.peak_rss_mb:.0f} MB at {large.games:,} "
              f"({f['memory_growth']:.2f}x)  target <= {TARGET_MEMORY_MB} MB: "
              f"{verdict(worst, TARGET_MEMORY_MB, higher_is_better=False)}, <= "
              f"{TARGET_MEMORY_GROWTH}x: "
              f"{verdict(f['memory_growth'], TARGET_MEMORY_GROWTH, higher_is_better=False)}")
        total = f["memory_large_simulate_plus_report_s"]
        goal = (f"  target < {TARGET_10M_S:.0f} s at 10 M rounds: "
                f"{verdict(total, TARGET_10M_S, higher_is_better=False)}"
                if large.rounds >= 9_000_000 else "")
        print(f"  {large.rounds:,} rounds: simulate {large.seconds:.1f} s + report "
              f"{large.report_s or 0:.1f} s = {total:.1f} s{goal}")
    if "tournaments_per_s" in f:
        v = f["tournament_vs_plain"]
        tours, plain = e2e["tournaments"], e2e["tournament_plain"]
        reps = f["tournament_vs_plain_reps"]
        walls, cpus = [r["wall"] for r in reps], [r["cpu"] for r in reps]
        print(f"  championships: {f['tournaments_per_s']:.1f} tournaments/s, "
              f"{_si(f['tournament_table_games_per_s'])} table games/s ({tours.games:,} in "
              f"{tours.seconds:.1f} s, CPU {tours.cpu_s:.1f} s) against "
              f"{_si(plain.games_per_s)} plain games/s ({plain.games:,} in {plain.seconds:.1f} s, "
              f"CPU {plain.cpu_s:.1f} s)")
        print(f"  championships / plain: {v:.3f}x wall (median of {len(reps)}: "
              f"{min(walls):.3f}-{max(walls):.3f}x), {f['tournament_vs_plain_cpu']:.3f}x CPU "
              f"({min(cpus):.3f}-{max(cpus):.3f}x)  target >= {TARGET_TOURNAMENT_RATIO}x: "
              f"{verdict(v, TARGET_TOURNAMENT_RATIO)}")


# ---------------------------------------------------------------------------------------------
# Report


def verdict(value: float | None, target: float, higher_is_better: bool = True) -> str:
    if value is None or math.isnan(value):
        return ""
    ok = value >= target if higher_is_better else value < target
    return "met" if ok else "missed"


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _si(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.2f} {unit}"
    return f"{x:.0f}"


def print_table(engine: dict[tuple[int, int | str], EngineResult], c: dict[int, CResult]) -> None:
    head = ("players", "threads", "rounds/s", "turns/s", "ns/turn", "turns/round",
            "C rounds/s", "C ns/turn", "C turns/round", "engine/C per core", "2-thread speed-up",
            "as frames/C")
    rows = []
    for p in PLAYERS:
        for t in THREADS:
            e, ref, one = engine.get((p, t)), c.get(p), engine.get((p, 1))
            ratio = e.rounds_per_s / (t * ref.rounds_per_s) if e and ref else None
            speedup = e.rounds_per_s / one.rounds_per_s if e and one and t > 1 else None
            framed = engine.get((p, FRAMES)) if t == 1 else None
            as_frames = framed.rounds_per_s / ref.rounds_per_s if framed and ref else None
            rows.append((
                str(p), str(t),
                _si(e and e.rounds_per_s), _si(e and e.turns_per_s),
                _num(e and e.ns_per_turn, ".1f"), _num(e and e.mean_turns, ".1f"),
                _si(ref and ref.rounds_per_s), _num(ref and ref.ns_per_turn, ".1f"),
                _num(ref and ref.mean_turns, ".1f"),
                "-" if ratio is None else f"{ratio:.2f}x {verdict(ratio, TARGET_RATIO)}",
                "-" if speedup is None else f"{speedup:.2f}x {verdict(speedup, TARGET_SPEEDUP)}",
                "-" if as_frames is None else f"{as_frames:.2f}x",
            ))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths))  # noqa: E731
    print(line(head))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    print(f"targets: engine/C per core >= {TARGET_RATIO}x, 2-thread speed-up >= {TARGET_SPEEDUP}x;"
          " C figures are CPU time on one pinned core, engine figures wall time; the engine as"
          " `unostats simulate` runs it (simulate_arrow: kernels and the Arrow tables stored);"
          " as frames: one thread through simulate_batches (the same tables as polars"
          " DataFrames)")
    cpu = [f"{p}p {_si(e.cpu_rounds_per_s)}" for p in PLAYERS
           if (e := engine.get((p, 1))) and e.cpu_seconds]
    if cpu:  # on a loaded machine wall time also counts the others' work; CPU time does not
        print("engine rounds per CPU second, 1 thread (the process's CPU time in the best run):",
              ", ".join(cpu))
    for p in PLAYERS:
        e, ref = engine.get((p, 1)), c.get(p)
        if e and ref and abs(e.mean_turns / ref.mean_turns - 1) > 0.02:
            print(f"note: {p} players: mean turns per round differ (engine {e.mean_turns:.2f},"
                  f" C {ref.mean_turns:.2f}); compare ns/turn rather than rounds/s")


def rule_option_variants() -> list[tuple[str, dict]]:
    """Every non-default value of every enum and switch rule, as a one-option change
    of the official rules; int options that switch a rule on, at the rule table's sample; each
    with what its row says it needs (other rules, cards: ``companions``); each extra card kind
    of the deck."""
    from unostats.rules import DECK_SAMPLES, RULE_OPTIONS

    out = [(f"{opt.key}: {opt.sample}", {opt.key: opt.sample, **opt.companions(opt.sample)})
           for opt in RULE_OPTIONS if opt.sample is not None]
    for opt in RULE_OPTIONS:
        if opt.kind not in ("enum", "bool"):
            continue
        for value in opt.values:
            if value != opt.default:
                shown = str(value).lower() if isinstance(value, bool) else value
                out.append((f"{opt.key}: {shown}", {opt.key: value, **opt.companions(value)}))
    out += [(f"deck: {kind} {count}", {"deck": {kind: count}})
            for kind, count in DECK_SAMPLES.items()]
    return out


OptionCost = tuple[str, EngineResult, EngineResult]  # (option, its runs' best, the official's)


def print_option_costs(costs: list[OptionCost]) -> None:
    """ns/turn per rule option against the official rules timed beside it, random policy, one
    thread."""
    print(f"rule options, {OPTION_PLAYERS} players, 1 thread, random policy: ns/turn against "
          f"the official rules' timed in turn with each (target <= {TARGET_OPTION_COST:.0f}x)")
    width = max(len(name) for name, _, _ in costs)
    for name, r, base in costs:
        ratio = r.ns_per_turn / base.ns_per_turn
        ok = "met" if ratio <= TARGET_OPTION_COST else "missed"
        print(f"  {name.ljust(width)}  {r.ns_per_turn:6.1f} ns/turn  {ratio:5.2f}x {ok}  "
              f"(official {base.ns_per_turn:.1f}; {r.mean_turns:.1f} turns/round)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"scale {QUICK_SCALE}: a smoke run")
    ap.add_argument("--scale", type=float, default=None,
                    help="size factor (default: env UNOSTATS_BENCH_SCALE or 1)")
    ap.add_argument("--reps", type=int, default=5, help="timed repetitions, best counts (5)")
    ap.add_argument("--no-startup", action="store_true", help="skip the compile/start-up timings")
    ap.add_argument("--no-options", action="store_true", help="skip the per-rule-option costs")
    ap.add_argument("--no-end-to-end", action="store_true",
                    help="skip simulate into DuckDB, peak memory and championships")
    ap.add_argument("--no-cluster", action="store_true",
                    help="skip the Ray executor on 1 and 2 local worker nodes")
    ap.add_argument("--no-keep", action="store_true",
                    help="skip --keep rows/games/summary beside the engine alone and the "
                         "200-candidate design")
    ap.add_argument("--no-expert", action="store_true",
                    help="skip the expert seat's decisions/s and games/s at budgets 16/64/256")
    ap.add_argument("--json", action="store_true",
                    help="print the figures as one JSON object on stdout (progress on stderr)")
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error(f"--reps must be at least 1, got {args.reps}")
    if args.scale is not None and not args.scale > 0:
        ap.error(f"--scale must be a positive number, got {args.scale}")
    out = sys.stderr if args.json else sys.stdout

    def log(*parts, **kw):
        print(*parts, file=out, flush=True, **kw)
    scale = args.scale or (QUICK_SCALE if args.quick else
                           float(os.environ.get("UNOSTATS_BENCH_SCALE", "1")))
    target_rounds = max(1000, int(ROUNDS_PER_MEASUREMENT * scale))
    c_rounds = max(1000, int(1_000_000 * scale))

    log(f"unostats bench: {os.cpu_count()} cores, ~{target_rounds:,} engine rounds and "
          f"{c_rounds:,} C rounds per measurement, best of {args.reps}")

    # The C program runs once at the start of each repetition of the engine's runs of the same
    # players (its best run counts): both sides meet the same moments of a host whose speed
    # drifts over minutes.
    c_runs: dict[int, list[CResult]] = {p: [] for p in PLAYERS}
    exe, why = build_c()
    if exe is None:
        log(f"C yardstick skipped: {why}")

    def c_run(players: int) -> None:
        if exe is not None:
            c_runs[players].append(run_c(exe, players, c_rounds))

    engine: dict[tuple[int, int | str], EngineResult] = {}
    official = {}
    engine_error = None
    option_costs: list[OptionCost] = []
    try:
        from unostats.rules import RuleSet

        rules = RuleSet.from_mapping(REFERENCE_RULES)
        for p in PLAYERS:
            log(f"  engine, {p} players, {' and '.join(map(str, THREADS))} threads and polars "
                f"frames in turn{', the C yardstick before each turn' * (exe is not None)} ...")
            runs = [*THREADS, (1, True)]
            for key, result in measure(rules, p, runs, target_rounds, args.reps,
                                       between=functools.partial(c_run, p)).items():
                engine[(p, key) if isinstance(key, int) else (p, FRAMES)] = result
        log(f"  engine, official rules, 4 players, {' and '.join(map(str, THREADS))} threads ...")
        official_rules = RuleSet.from_mapping({})
        official = measure(official_rules, 4, THREADS, target_rounds, args.reps)
        options = [] if args.no_options else rule_option_variants()
        # Each option's runs alternate with runs of the official rules (a quarter of their
        # games above): an option and its yardstick meet the same moments of the host.
        base_games = max(1, official[1].games // 4)

        def official_run(runs: list[EngineResult]) -> None:
            runs.append(timed(official_rules, OPTION_PLAYERS, base_games, 1))

        for name, change in options:
            log(f"  engine, official rules with {name}, {OPTION_PLAYERS} players, in turn "
                "with the official rules ...")
            beside: list[EngineResult] = []
            result = measure(RuleSet.from_mapping(change), OPTION_PLAYERS, 1,
                             target_rounds // 4, args.reps,
                             between=functools.partial(official_run, beside))
            option_costs.append((name, result, min(beside, key=lambda r: r.ns_per_turn)))
    except Exception as e:  # the engine may not exist yet: still report what could be measured
        engine_error = f"{type(e).__name__}: {e}"
        log(f"engine skipped: {engine_error}")
    for p in PLAYERS:
        while exe is not None and len(c_runs[p]) < args.reps:  # the engine stopped early
            log(f"  C yardstick, {p} players ...")
            c_run(p)
    c = {p: max(runs, key=lambda r: r.rounds_per_s) for p, runs in c_runs.items() if runs}

    e2e: dict = {}
    if not args.no_end_to_end and engine_error is None:
        try:
            e2e = end_to_end(scale, engine.get((4, 1)), log)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            log(f"end to end stopped: {e}")

    keeps: dict = {}
    if not args.no_keep and engine_error is None:
        try:
            keeps = keeps_and_design(scale, args.reps, log)
        except RuntimeError as e:
            log(f"what a run keeps stopped: {e}")

    cluster: dict = {}
    if not args.no_cluster and engine_error is None:
        with tempfile.TemporaryDirectory(prefix="unostats-bench-cluster-") as folder:
            cluster = cluster_throughput(plain_scenario(Path(folder), 4, {}), scale, log)

    expert: dict[int, tuple[float, float, int]] = {}
    if not args.no_expert and engine_error is None:
        import expert_bench  # beside this file

        log("  the expert seat, 2 players, budgets "
            f"{'/'.join(map(str, expert_bench.BUDGETS))}, one thread ...")
        expert_bench.speed(4, 1)  # compiles (or loads) the expert's entry point
        for budget in expert_bench.BUDGETS:
            expert[budget] = expert_bench.speed(budget, max(1, int(2048 * scale) // budget))

    startup_info: dict[str, tuple[float, dict | str]] = {}
    cli: dict[str, tuple[float, float]] = {}
    if not args.no_startup and engine_error is None:
        log("  cold compile and cached start-up ...")
        with tempfile.TemporaryDirectory(prefix="unostats-bench-numba-") as cache:
            startup_info["cold"] = startup(Path(cache))
            startup_info["warm"] = startup(Path(cache))
            log("  command line start-up ...")
            cli = cli_startup(Path(cache))
    if args.json:
        out = figures(engine, c, official, option_costs, startup_info, cli)
        if e2e:
            out["end_to_end"] = e2e_figures(e2e, c.get(4), engine.get((4, 1)))
        if keeps:
            out["keeps"] = keeps
        if cluster:
            out["cluster"] = cluster
        if expert:
            out["expert"] = {str(b): {"decisions_per_s": d, "games_per_s": g, "decisions": n}
                             for b, (d, g, n) in expert.items()}
        print(json.dumps(out, indent=1))
        return 0

    print()
    print_table(engine, c)
    print()
    for t, r in official.items():
        print(f"official rules, 4 players, {t} thread(s): {_si(r.games_per_s)} games/s "
              f"({r.rounds / r.games:.2f} rounds/game, {_si(r.rounds_per_s)} rounds/s)")
    if engine_error is None and option_costs:
        print()
        print_option_costs(option_costs)
    if e2e:
        print()
        print_e2e(e2e, c.get(4), engine.get((4, 1)))
    if keeps:
        print()
        print_keeps_and_design(keeps)
    if cluster:
        print()
        print_cluster(cluster)
    if expert:
        print()
        print("the expert seat (2 players, official rules, one thread; a decision is a search):")
        for budget, (per_s, games_per_s, n) in expert.items():
            print(f"  budget {budget:>3}: {per_s:8.0f} decisions/s ({1000 / per_s:.2f} ms each), "
                  f"{games_per_s:7.2f} games/s ({n} decisions)")
    for key, name, target in (("cold", "cold compile (empty Numba cache)", TARGET_COMPILE_S),
                              ("warm", "cached start-up", TARGET_STARTUP_S)):
        if key not in startup_info:
            continue
        wall, info = startup_info[key]
        detail = (info if isinstance(info, str) else
                  f"import {info['import_s']:.2f} s, first game {info['first_game_s']:.2f} s, "
                  f"CPU {info['cpu_s']:.2f} s")
        goal = f"  target <= {target:.0f} s: " + verdict(
            wall if isinstance(info, dict) else None, target, higher_is_better=False)
        print(f"{name}: {wall:.2f} s ({detail}){goal}")
    if cli:
        print("command line, warm cache: " + ", ".join(
            f"{what} {cli[key][0]:.2f} s (CPU {cli[key][1]:.2f} s)" for key, what in (
                ("help", "unostats --help"),
                ("simulate", "unostats simulate of one game into a new file"))))
    return 0


def figures(engine, c, official, option_costs, startup_info, cli=None) -> dict:
    """The figures of the table as one JSON-able object (``--json``)."""
    rows = []
    for (p, t), e in sorted((k, e) for k, e in engine.items() if k[1] != FRAMES):
        ref, one, framed = c.get(p), engine.get((p, 1)), engine.get((p, FRAMES))
        rows.append({
            "players": p, "threads": t,
            "engine_rounds_per_s": e.rounds_per_s, "engine_ns_per_turn": e.ns_per_turn,
            "engine_cpu_rounds_per_s": e.cpu_rounds_per_s,
            "c_rounds_per_s": ref.rounds_per_s if ref else None,
            "ratio": e.rounds_per_s / (t * ref.rounds_per_s) if ref else None,
            "speedup": e.rounds_per_s / one.rounds_per_s if one and t > 1 else None,
            "frames_ratio": (framed.rounds_per_s / ref.rounds_per_s
                             if framed and ref and t == 1 else None),
        })
    out = {"rows": rows,
           "official_games_per_s": {str(t): r.games_per_s for t, r in official.items()}}
    if option_costs:
        out["option_cost"] = {name: r.ns_per_turn / base.ns_per_turn
                              for name, r, base in option_costs}
    for key, name in (("cold", "cold_compile_s"), ("warm", "cached_startup_s")):
        if key in startup_info:
            wall, info = startup_info[key]
            out[name] = wall if isinstance(info, dict) else None
    for key, (wall, _) in (cli or {}).items():
        out[f"cli_{key}_s"] = wall
    return out


if __name__ == "__main__":
    sys.exit(main())
